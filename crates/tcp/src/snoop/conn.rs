//! The state Snoop keeps per connection: the cache of unacknowledged segments towards the
//! mobile host, the last ACK seen from it, the local retransmission timer and its wireless
//! round-trip estimator. The rules are those of the module documentation (`snoop_data`,
//! `snoop_ack` and the local timer of Balakrishnan et al. 1995).

use std::collections::VecDeque;

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::middlebox::MiddleboxCtx;
use celltcp_net::packet::{Packet, TcpFlags};

use super::{SnoopStats, LOCAL_CLOCK_GRANULARITY, MAX_LOCAL_RTO};
use crate::rtt::RttEstimator;
use crate::seq::SeqNum;

/// A data segment towards the mobile, kept until the mobile acknowledges it.
struct CachedSegment {
    /// First sequence number, and one past the last (a FIN counts as one).
    seq: SeqNum,
    end: SeqNum,
    /// The segment as last forwarded, for local retransmission.
    pkt: Packet,
    /// When the agent last sent it (forwarded or retransmitted).
    forwarded_at: SimTime,
    /// Local retransmissions of it.
    local_retx: u32,
    /// The sender retransmitted it: the sender owns its recovery, so duplicate ACKs for it go
    /// on to the sender.
    sender_retx: bool,
}

pub(super) struct Connection {
    /// Unacknowledged segments in sequence order.
    cache: VecDeque<CachedSegment>,
    /// One past the highest sequence number seen from the sender.
    high: Option<SeqNum>,
    /// The last (highest) ACK number seen from the mobile, its window field and the packet.
    last_ack: Option<SeqNum>,
    last_window: u16,
    last_ack_pkt: Option<Packet>,
    /// The hole (ACK number) already retransmitted locally; its duplicate ACKs are absorbed.
    retransmitted_for: Option<SeqNum>,
    /// Duplicate ACKs seen for the last ACK number.
    dupacks: u32,
    /// Duplicate ACKs the last local retransmission can still be followed by: the segments
    /// beyond the hole sent before it (the paper's "expected" duplicate ACKs). One more means a
    /// segment sent after the retransmission arrived while the hole stayed open: the
    /// retransmission was lost.
    expected_dupacks: u32,
    /// The sender's FIN passed: the state ends once everything is acknowledged.
    fin_seen: bool,
    /// RFC 6298 estimator over the wireless round trip, bounded by `min_rto` and
    /// [`MAX_LOCAL_RTO`].
    rtt: RttEstimator,
    /// Deadline of the local retransmission timer.
    timer: Option<SimTime>,
}

impl Connection {
    pub(super) fn new(initial_rto: SimDuration, min_rto: SimDuration) -> Self {
        Connection {
            cache: VecDeque::new(),
            high: None,
            last_ack: None,
            last_window: 0,
            last_ack_pkt: None,
            retransmitted_for: None,
            dupacks: 0,
            expected_dupacks: 0,
            fin_seen: false,
            rtt: RttEstimator::new(
                initial_rto.max(min_rto),
                min_rto,
                MAX_LOCAL_RTO,
                LOCAL_CLOCK_GRANULARITY,
            ),
            timer: None,
        }
    }

    pub(super) fn deadline(&self) -> Option<SimTime> {
        self.timer
    }

    pub(super) fn srtt(&self) -> Option<SimDuration> {
        self.rtt.has_sample().then(|| self.rtt.srtt())
    }

    /// A data segment (payload or FIN) from the fixed host; returns it to forward it.
    pub(super) fn on_data(
        &mut self,
        pkt: Packet,
        ctx: &mut MiddleboxCtx<'_>,
        cache_packets: u32,
        stats: &mut SnoopStats,
    ) -> Option<Packet> {
        let Some(h) = pkt.tcp() else {
            return Some(pkt);
        };
        let now = ctx.now;
        let fin = h.flags.contains(TcpFlags::FIN);
        self.fin_seen |= fin;
        let seq = SeqNum(h.seq);
        let end = seq.wrapping_add(pkt.payload_len + fin as u32);
        let segment = |sender_retx| CachedSegment {
            seq,
            end,
            pkt,
            forwarded_at: now,
            local_retx: 0,
            sender_retx,
        };
        match self.high {
            Some(high) if seq.lt(high) => {
                if end.gt(high) {
                    self.high = Some(end);
                }
            }
            _ => {
                // In the normal sequence (a gap means a loss upstream, which the sender repairs).
                self.high = Some(end);
                self.insert(segment(false), cache_packets, stats);
                self.timer.get_or_insert(now + self.rtt.rto());
                return Some(pkt);
            }
        }
        stats.sender_retransmissions += 1;
        if self.last_ack.is_some_and(|a| end.le(a)) {
            // The mobile has it all: its ACK may have been lost on the way back. Answer with
            // the last ACK seen, from the mobile's address, and absorb the retransmission.
            if let Some(mut a) = self.last_ack_pkt {
                a.created_at = now;
                ctx.out.push(a);
                stats.acks_generated += 1;
            }
            return None;
        }
        match self.cache.iter_mut().find(|s| s.seq == seq) {
            Some(s) => {
                s.pkt = pkt;
                s.forwarded_at = now;
                s.sender_retx = true;
            }
            None => self.insert(segment(true), cache_packets, stats),
        }
        self.timer.get_or_insert(now + self.rtt.rto());
        Some(pkt)
    }

    /// Caches `seg` in sequence order, unless the cache is full.
    fn insert(&mut self, seg: CachedSegment, cache_packets: u32, stats: &mut SnoopStats) {
        if self.cache.len() >= cache_packets as usize {
            stats.cache_full += 1;
            return;
        }
        stats.segments_cached += 1;
        let at = self
            .cache
            .iter()
            .rposition(|s| s.seq.lt(seg.seq))
            .map_or(0, |i| i + 1);
        self.cache.insert(at, seg);
    }

    /// An ACK from the mobile; returns the packet to forward (`None`: absorbed) and whether
    /// the connection's state can go (the sender's FIN and everything before it acknowledged).
    pub(super) fn on_ack(
        &mut self,
        pkt: Packet,
        ctx: &mut MiddleboxCtx<'_>,
        stats: &mut SnoopStats,
    ) -> (Option<Packet>, bool) {
        let Some(h) = pkt.tcp() else {
            return (Some(pkt), false);
        };
        let ack = SeqNum(h.ack);
        let carries = pkt.payload_len > 0
            || h.flags.contains(TcpFlags::SYN)
            || h.flags.contains(TcpFlags::FIN)
            || h.flags.contains(TcpFlags::RST);
        match self.last_ack {
            Some(last) if ack.lt(last) => {
                if carries {
                    return (Some(pkt), false);
                }
                stats.old_acks_dropped += 1;
                (None, false)
            }
            Some(last) if ack == last => {
                let duplicate = !carries && h.window == self.last_window && self.outstanding(ack);
                if duplicate {
                    return (self.on_dupack(pkt, ack, ctx, stats), false);
                }
                self.last_window = h.window;
                self.last_ack_pkt = Some(pkt);
                (Some(pkt), false)
            }
            _ => {
                let previous = self.last_ack.map(|hole| (hole, self.dupacks));
                let finished = self.on_new_ack(pkt, ack, h.window, ctx.now);
                if let Some((hole, dupacks)) = previous {
                    self.on_partial_ack(hole, dupacks, ack, ctx, stats);
                }
                (
                    Some(self.hide_repaired_hole(pkt, ack, ctx, stats)),
                    finished,
                )
            }
        }
    }

    /// A new ACK ending a run of `dupacks` duplicate ACKs for `previous` (the repaired hole).
    /// Each of those duplicates was caused by a segment beyond `previous` reaching the mobile;
    /// the segments between `previous` and the new ACK number account for some of them. If
    /// there were more, a segment beyond the new ACK number arrived while the one at it did
    /// not, though it was sent first: it was lost on the wireless hop as well, and is
    /// retransmitted at once instead of after one more round trip through the sender — the
    /// local counterpart of NewReno's partial-ACK retransmission (RFC 6582 §3.2 step 4).
    fn on_partial_ack(
        &mut self,
        previous: SeqNum,
        dupacks: u32,
        ack: SeqNum,
        ctx: &mut MiddleboxCtx<'_>,
        stats: &mut SnoopStats,
    ) {
        if dupacks == 0 || self.retransmitted_for == Some(ack) {
            return;
        }
        let Some(i) = self
            .cache
            .iter()
            .position(|s| s.seq == ack && !s.sender_retx)
        else {
            return;
        };
        let len = self.cache[i].end.distance(ack).max(1) as u64;
        let span = ack.distance(previous).max(0) as u64;
        // Segments strictly between the repaired one and the new hole.
        let between = span.div_ceil(len).saturating_sub(1);
        if (dupacks as u64) <= between {
            return;
        }
        self.retransmit(i, ctx, stats);
        // The duplicates caused by segments beyond the new hole count towards it.
        self.dupacks = (dupacks as u64 - between) as u32;
        stats.partial_ack_retransmissions += 1;
    }

    /// SACK (RFC 2018), which the 1995 design predates: a new ACK whose SACK blocks lie above
    /// its ACK number says, as a duplicate ACK would, that the segment at the ACK number is
    /// missing while later ones arrived. When that segment is cached and the sender has not
    /// retransmitted it, the agent retransmits it locally (once, as for the first duplicate
    /// ACK) and removes the SACK blocks from the ACK it forwards, so that the sender does not
    /// deem the segment lost (RFC 6675 `IsLost`) and retransmit it too.
    fn hide_repaired_hole(
        &mut self,
        mut pkt: Packet,
        ack: SeqNum,
        ctx: &mut MiddleboxCtx<'_>,
        stats: &mut SnoopStats,
    ) -> Packet {
        let Some(h) = pkt.tcp_mut() else {
            return pkt;
        };
        if !h.options.sack().iter().any(|b| SeqNum(b.left).gt(ack)) {
            return pkt;
        }
        let Some(i) = self
            .cache
            .iter()
            .position(|s| s.seq == ack && !s.sender_retx)
        else {
            return pkt;
        };
        if self.retransmitted_for != Some(ack) {
            self.retransmit(i, ctx, stats);
        }
        h.options.sack_len = 0;
        stats.sack_blocks_removed += 1;
        pkt
    }

    /// Data beyond `ack` is outstanding (so an ACK for `ack` can be a duplicate).
    fn outstanding(&self, ack: SeqNum) -> bool {
        self.high.is_some_and(|h| h.gt(ack))
    }

    /// A new ACK: frees what it covers, samples the wireless round trip, restarts the timer.
    /// Returns whether the connection has finished.
    fn on_new_ack(&mut self, pkt: Packet, ack: SeqNum, window: u16, now: SimTime) -> bool {
        let mut sample = None;
        while self.cache.front().is_some_and(|s| s.end.le(ack)) {
            let s = self.cache.pop_front().expect("front exists");
            // Karn's rule (RFC 6298 §3): only a segment sent once gives an unambiguous sample.
            sample =
                (s.local_retx == 0 && !s.sender_retx).then(|| now.saturating_since(s.forwarded_at));
        }
        match sample {
            Some(r) => self.rtt.on_sample(r),
            // The wireless hop delivers again: the next expiry starts from the base timeout.
            None => self.rtt.clear_backoff(),
        }
        self.last_ack = Some(ack);
        self.last_window = window;
        self.last_ack_pkt = Some(pkt);
        if self.retransmitted_for != Some(ack) {
            self.retransmitted_for = None;
        }
        self.dupacks = 0;
        self.timer = (!self.cache.is_empty()).then(|| now + self.rtt.rto());
        self.fin_seen && self.cache.is_empty() && !self.outstanding(ack)
    }

    /// A duplicate ACK asking for `hole`.
    fn on_dupack(
        &mut self,
        pkt: Packet,
        hole: SeqNum,
        ctx: &mut MiddleboxCtx<'_>,
        stats: &mut SnoopStats,
    ) -> Option<Packet> {
        self.dupacks += 1;
        let Some(i) = self.cache.iter().position(|s| s.seq == hole) else {
            // Lost before the base station (congestion upstream) or never cached: the
            // sender must repair it.
            stats.cache_misses += 1;
            stats.dupacks_passed += 1;
            return Some(pkt);
        };
        if self.cache[i].sender_retx {
            stats.dupacks_passed += 1;
            return Some(pkt);
        }
        // The first duplicate ACK for this segment, or more than its local retransmission can
        // be followed by (that retransmission was lost too): retransmit it from the cache now.
        if self.retransmitted_for != Some(hole) || self.dupacks > self.expected_dupacks {
            self.retransmit(i, ctx, stats);
        }
        stats.dupacks_suppressed += 1;
        None
    }

    /// Sends cached segment `i` again now, restarts the timer, and counts the duplicate ACKs
    /// the segments beyond it, all sent before this retransmission, may still cause.
    fn retransmit(&mut self, i: usize, ctx: &mut MiddleboxCtx<'_>, stats: &mut SnoopStats) {
        let seg = &mut self.cache[i];
        seg.local_retx += 1;
        seg.forwarded_at = ctx.now;
        ctx.out.push(seg.pkt);
        let (hole, end) = (seg.seq, seg.end);
        let len = end.distance(hole).max(1) as u64;
        let beyond = self.high.map_or(0, |h| h.distance(end).max(0) as u64);
        self.expected_dupacks = u32::try_from(beyond.div_ceil(len)).unwrap_or(u32::MAX);
        self.retransmitted_for = Some(hole);
        stats.cache_hits += 1;
        stats.local_retransmissions += 1;
        self.timer = Some(ctx.now + self.rtt.rto());
    }

    /// The local timer expired: retransmits the oldest cached segment when it is the one the
    /// mobile asks for and the sender has not retransmitted it, and backs the timer off
    /// (RFC 6298 §5.5).
    pub(super) fn on_timer(&mut self, ctx: &mut MiddleboxCtx<'_>, stats: &mut SnoopStats) {
        self.timer = None;
        let Some(seg) = self.cache.front() else {
            return;
        };
        if self.last_ack.is_some_and(|a| a != seg.seq) || seg.sender_retx {
            // The segment the mobile waits for is not cached, or the sender has taken over
            // its recovery: nothing to repair locally.
            return;
        }
        stats.local_timeouts += 1;
        self.rtt.back_off();
        self.retransmit(0, ctx, stats);
        // Duplicate ACKs already counted stay below the new expectation.
        self.expected_dupacks = self.expected_dupacks.saturating_add(self.dupacks);
    }
}
