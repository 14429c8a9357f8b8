//! The receive side: acceptability (RFC 9293 §3.10.7.4), reassembly of out-of-order data,
//! SACK block generation (RFC 2018 §4), delayed ACKs (RFC 5681 §4.2, RFC 9293 §3.8.6.3) with
//! an optional quick-ACK start (Linux's, [`Receiver::with_quick_acks`]), the ECN echo
//! (RFC 3168 §6.1.3) and the advertised window with scaling (RFC 7323 §2).
//!
//! Offsets are relative to the peer's initial sequence number (offset 0 is its SYN).

use celltcp_engine::{SimDuration, SimTime};

use crate::seq::SeqNum;

/// SACK blocks remembered for recency ordering (more than the 4 that fit an ACK).
const RECENT_BLOCKS: usize = 8;

/// What one arriving segment did to the receive side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DataOutcome {
    /// The segment was outside the window and was dropped (an ACK is due).
    pub unacceptable: bool,
    /// Bytes newly delivered in order by this segment (including reassembled data behind it).
    pub delivered: u64,
    /// The segment landed above a gap.
    pub out_of_order: bool,
    /// The FIN became in order with this segment.
    pub fin: bool,
}

#[derive(Clone, Debug)]
pub struct Receiver {
    /// RCV.NXT as an offset.
    rcv_nxt: u64,
    /// Out-of-order data above RCV.NXT: sorted, disjoint, non-adjacent half-open ranges.
    ooo: Vec<(u64, u64)>,
    /// Offsets of recently received out-of-order segments, most recent first; each names the
    /// SACK block that contains it (RFC 2018 §4 ordering).
    recent: Vec<u64>,
    /// Offset of the peer's FIN once seen.
    fin_at: Option<u64>,
    /// The FIN has been received in order.
    fin_received: bool,
    /// Receive buffer, bytes.
    buf: u64,
    /// In-order bytes not yet taken by the application.
    unread: u64,
    /// In-order bytes since the last `take_delivered`.
    delivered_pending: u64,
    /// Our window-scale shift, applied to advertisements once negotiated.
    wscale: u8,
    /// Right edge of the last advertised window (never moved left, RFC 9293 §3.8.6.2.2).
    adv_right: u64,
    /// Full- or partial-sized in-order segments received since the last ACK.
    unacked_segs: u32,
    /// In-order segments acknowledged at once, without the delayed-ACK rule, at the start of
    /// the connection (`TcpConfig::quick_acks`); and how many of them have been.
    quick_acks: u32,
    quick_acked: u32,
    delack_deadline: Option<SimTime>,
    /// An ACK must go out without delay.
    ack_now: bool,
    /// Set ECE on every ACK until a CWR arrives (RFC 3168 §6.1.3).
    ece: bool,
    /// TS.Recent of RFC 7323 §4.3.
    ts_recent: u32,
    /// Last.ACK.sent of RFC 7323 §4.3 (offset).
    last_ack_sent: u64,
    mss: u32,
}

impl Receiver {
    /// A receiver whose peer's SYN occupied offset 0.
    pub fn new(buf: u64, mss: u32) -> Self {
        Receiver {
            rcv_nxt: 1,
            ooo: Vec::new(),
            recent: Vec::new(),
            fin_at: None,
            fin_received: false,
            buf,
            unread: 0,
            delivered_pending: 0,
            wscale: 0,
            adv_right: 1,
            unacked_segs: 0,
            quick_acks: 0,
            quick_acked: 0,
            delack_deadline: None,
            ack_now: false,
            ece: false,
            ts_recent: 0,
            last_ack_sent: 1,
            mss,
        }
    }

    /// Acknowledges each of the first `n` in-order data segments at once, before delaying ACKs
    /// (`TcpConfig::quick_acks`): Linux's quick-ACK mode at the start of a connection.
    pub fn with_quick_acks(mut self, n: u32) -> Self {
        self.quick_acks = n;
        self
    }

    /// Our window-scale shift (RFC 7323 §2.2), applied to advertisements from now on.
    pub fn with_window_scale(mut self, shift: u8) -> Self {
        self.wscale = shift;
        self
    }

    /// RCV.NXT as an offset.
    #[inline]
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// The FIN has been received in order.
    #[inline]
    pub fn fin_received(&self) -> bool {
        self.fin_received
    }

    /// Our window-scale shift.
    pub fn wscale(&self) -> u8 {
        self.wscale
    }

    /// An ACK must go out without delay.
    #[inline]
    pub fn ack_now(&self) -> bool {
        self.ack_now
    }

    /// The next segment must carry an ACK at once: the segment just received asks for one
    /// (RFC 9293 §3.10.7.4, RFC 5681 §4.2's out-of-order and duplicate cases).
    #[inline]
    pub fn ack_immediately(&mut self) {
        self.ack_now = true;
    }

    /// ACKs carry ECE (RFC 3168 §6.1.3).
    #[inline]
    pub fn ece(&self) -> bool {
        self.ece
    }

    /// RFC 3168 §6.1.3: a CE-marked data packet arrived; ECE is set on every ACK from now on.
    pub fn on_ce(&mut self) {
        self.ece = true;
    }

    /// RFC 3168 §6.1.3: a CWR arrived; the echo ends.
    pub fn on_cwr(&mut self) {
        self.ece = false;
    }

    /// TS.Recent (RFC 7323 §4.3), the TSval that our timestamps echo.
    #[inline]
    pub fn ts_recent(&self) -> u32 {
        self.ts_recent
    }

    /// Last.ACK.sent (RFC 7323 §4.3) as an offset: the RCV.NXT of the last ACK sent.
    #[inline]
    pub fn last_ack_sent(&self) -> u64 {
        self.last_ack_sent
    }

    /// TS.Recent from the peer's SYN (or SYN-ACK), RFC 7323 §4.3 (1).
    pub fn on_syn_timestamp(&mut self, tsval: u32) {
        self.ts_recent = tsval;
    }

    /// RFC 7323 §4.3 (2): TS.Recent takes the TSval of a segment at offset `seq` that starts
    /// at or before Last.ACK.sent and is not older (modulo 2^32) than TS.Recent.
    pub fn on_timestamp(&mut self, seq: u64, tsval: u32) {
        if seq <= self.last_ack_sent && SeqNum(tsval).ge(SeqNum(self.ts_recent)) {
            self.ts_recent = tsval;
        }
    }

    fn ooo_bytes(&self) -> u64 {
        self.ooo.iter().map(|(a, b)| b - a).sum()
    }

    /// RCV.WND: buffer space not holding unread or out-of-order data, but never less than
    /// what was already promised (no shrinking).
    pub fn rcv_wnd(&self) -> u64 {
        let free = self.buf.saturating_sub(self.unread + self.ooo_bytes());
        free.max(self.adv_right.saturating_sub(self.rcv_nxt))
    }

    /// The window to advertise, a multiple of the scale granule 2^wscale: the free space
    /// rounded down, but what was already promised rounded *up*. RFC 7323 §2.4: with a scale
    /// factor, rounding the promised window down after RCV.NXT advanced by less than a granule
    /// offers a window whose right edge lies left of the last one (a retraction, which
    /// RFC 9293 §3.8.6.2.2 forbids), and repeated ACKs would move it further left each time;
    /// rounding up keeps the edge, at the cost of accepting less than a granule beyond the
    /// buffer (as Linux's tcp_select_window does).
    fn advertised_window(&self) -> u64 {
        let granule = 1u64 << self.wscale;
        let free = self.buf.saturating_sub(self.unread + self.ooo_bytes());
        let promised = self.adv_right.saturating_sub(self.rcv_nxt);
        (free & !(granule - 1)).max(promised.div_ceil(granule) * granule)
    }

    /// The 16-bit window field to send: the advertised window (never below what was promised)
    /// in units of the window scale.
    pub fn window_field(&self) -> u16 {
        (self.advertised_window() >> self.wscale).min(65_535) as u16
    }

    /// Processes the sequence-space part of a segment: `seq` its first offset, `len` payload
    /// bytes, `fin` its FIN flag. `delack` and `delack_segments` come from the configuration.
    pub fn on_segment(
        &mut self,
        now: SimTime,
        seq: u64,
        len: u64,
        fin: bool,
        delack: Option<SimDuration>,
        delack_segments: u32,
    ) -> DataOutcome {
        let mut out = DataOutcome::default();
        let wnd = self.rcv_wnd();
        let seg_len = len + fin as u64;
        // RFC 9293 §3.10.7.4: the four acceptability cases.
        let acceptable = match (seg_len, wnd) {
            (0, 0) => seq == self.rcv_nxt,
            (0, _) => seq >= self.rcv_nxt && seq < self.rcv_nxt + wnd,
            (_, 0) => false,
            (_, _) => seq < self.rcv_nxt + wnd && seq + seg_len > self.rcv_nxt,
        };
        if !acceptable {
            // Duplicates, probes and data beyond the window are answered with an ACK.
            if seg_len > 0 || seq != self.rcv_nxt {
                self.ack_now = true;
            }
            out.unacceptable = true;
            return out;
        }
        if fin {
            self.fin_at = Some(seq + len);
        }
        if len > 0 {
            // Trim to the window (RFC 9293 §3.10.7.4 "segments with higher beginning sequence
            // numbers ... trimmed").
            let start = seq.max(self.rcv_nxt);
            let end = (seq + len).min(self.rcv_nxt + wnd);
            if start == self.rcv_nxt {
                let had_gap = !self.ooo.is_empty();
                self.rcv_nxt = end;
                // Pull in reassembled data now contiguous.
                while let Some(&(a, b)) = self.ooo.first() {
                    if a > self.rcv_nxt {
                        break;
                    }
                    self.rcv_nxt = self.rcv_nxt.max(b);
                    self.ooo.remove(0);
                }
                let delivered = self.rcv_nxt - start;
                self.unread += delivered;
                self.delivered_pending += delivered;
                out.delivered = delivered;
                self.recent.retain(|&o| o >= self.rcv_nxt);
                if had_gap {
                    // RFC 5681 §4.2: an ACK for a segment that fills (part of) a gap is immediate.
                    self.ack_now = true;
                } else if self.quick_acked < self.quick_acks {
                    // Quick-ACK mode (`TcpConfig::quick_acks`): this segment is acknowledged
                    // at once whatever the delayed-ACK rule would do.
                    self.quick_acked += 1;
                    self.ack_now = true;
                } else {
                    self.unacked_segs += 1;
                    match delack {
                        Some(d) if self.unacked_segs < delack_segments => {
                            self.delack_deadline.get_or_insert(now + d);
                        }
                        _ => self.ack_now = true,
                    }
                }
            } else if start < end {
                self.insert_ooo(start, end);
                self.recent.retain(|&o| o != start);
                self.recent.insert(0, start);
                self.recent.truncate(RECENT_BLOCKS);
                // RFC 5681 §4.2: out-of-order data is acknowledged immediately.
                self.ack_now = true;
                out.out_of_order = true;
            }
        }
        if !self.fin_received && self.fin_at == Some(self.rcv_nxt) {
            self.rcv_nxt += 1;
            self.fin_received = true;
            self.ack_now = true;
            out.fin = true;
        }
        out
    }

    fn insert_ooo(&mut self, start: u64, end: u64) {
        let i = self.ooo.partition_point(|&(_, b)| b < start);
        let mut s = start;
        let mut e = end;
        let mut j = i;
        while j < self.ooo.len() && self.ooo[j].0 <= e {
            s = s.min(self.ooo[j].0);
            e = e.max(self.ooo[j].1);
            j += 1;
        }
        self.ooo.splice(i..j, [(s, e)]);
    }

    /// SACK blocks for the next ACK (RFC 2018 §4): the block holding the most recently
    /// received segment first, then other blocks by recency of their arrivals, at most `max`.
    pub fn sack_blocks(&self, max: usize) -> impl Iterator<Item = (u64, u64)> + '_ {
        let mut out: [(u64, u64); 4] = [(0, 0); 4];
        let mut n = 0;
        for &o in &self.recent {
            if n >= max.min(4) {
                break;
            }
            let i = self.ooo.partition_point(|&(_, b)| b <= o);
            if let Some(&blk) = self.ooo.get(i) {
                if blk.0 <= o && !out[..n].contains(&blk) {
                    out[n] = blk;
                    n += 1;
                }
            }
        }
        out.into_iter().take(n)
    }

    /// Records the (unscaled, RFC 7323 §2.2) window of the SYN or SYN-ACK we sent: its right
    /// edge, offset 1 + `window`, is promised as much as any later ACK's.
    pub fn on_syn_window_sent(&mut self, window: u64) {
        self.adv_right = self.adv_right.max(self.rcv_nxt + window);
    }

    /// Records that an ACK covering RCV.NXT went out.
    pub fn on_ack_sent(&mut self) {
        self.unacked_segs = 0;
        self.delack_deadline = None;
        self.ack_now = false;
        self.last_ack_sent = self.rcv_nxt;
        self.adv_right = self.rcv_nxt + self.advertised_window();
    }

    /// The delayed-ACK deadline, if an ACK is being held.
    pub fn delack_deadline(&self) -> Option<SimTime> {
        self.delack_deadline
    }

    /// The delayed-ACK timer fired.
    pub fn on_delack_timer(&mut self, now: SimTime) {
        if self.delack_deadline.is_some_and(|d| d <= now) {
            self.delack_deadline = None;
            self.ack_now = true;
        }
    }

    /// Hands the in-order bytes received since the last call to the application and frees
    /// their buffer space; a window update is scheduled when the usable window at least
    /// doubles (receiver-side SWS avoidance, RFC 9293 §3.8.6.2.2, as Linux applies it).
    pub fn take_delivered(&mut self) -> u64 {
        let n = self.delivered_pending;
        self.delivered_pending = 0;
        let before = self.adv_right.saturating_sub(self.rcv_nxt);
        self.unread = 0;
        let now_wnd = self.rcv_wnd();
        if now_wnd >= 2 * before && now_wnd - before >= self.mss as u64 && now_wnd > before {
            self.ack_now = true;
        }
        n
    }

    /// Out-of-order ranges currently held (for tests and traces).
    pub fn out_of_order(&self) -> &[(u64, u64)] {
        &self.ooo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: SimTime = SimTime(0);
    const D: Option<SimDuration> = Some(SimDuration::from_ms(40));

    #[test]
    fn delayed_ack_every_second_segment_rfc5681_4_2() {
        let mut r = Receiver::new(100_000, 100);
        r.on_segment(T, 1, 100, false, D, 2);
        assert!(!r.ack_now);
        assert_eq!(r.delack_deadline(), Some(SimTime(40_000_000)));
        r.on_segment(T, 101, 100, false, D, 2);
        assert!(r.ack_now);
        r.on_ack_sent();
        r.on_segment(T, 201, 100, false, D, 2);
        r.on_delack_timer(SimTime(39_999_999));
        assert!(!r.ack_now);
        r.on_delack_timer(SimTime(40_000_000));
        assert!(r.ack_now);
        assert_eq!(r.take_delivered(), 300);
    }

    /// Linux's quick-ACK start (`TcpConfig::quick_acks`): the first segments are acknowledged
    /// one by one, then the delayed-ACK rule takes over. Without it the receiver delays from
    /// the first segment: in slow start its pairs then leave the last segment of every round
    /// to the 40 ms timer, and the sender's queue drains between rounds.
    #[test]
    fn quick_acks_acknowledge_the_first_segments_at_once() {
        let mut r = Receiver::new(100_000, 100).with_quick_acks(3);
        for k in 0..3 {
            r.on_segment(T, 1 + 100 * k, 100, false, D, 2);
            assert!(r.ack_now, "segment {k}");
            assert_eq!(r.delack_deadline(), None);
            r.on_ack_sent();
        }
        // The fourth waits for the fifth or the timer.
        r.on_segment(T, 301, 100, false, D, 2);
        assert!(!r.ack_now);
        assert_eq!(r.delack_deadline(), Some(SimTime(40_000_000)));
        r.on_segment(T, 401, 100, false, D, 2);
        assert!(r.ack_now);
        // Off (the default): delayed from the first segment.
        let mut r = Receiver::new(100_000, 100);
        r.on_segment(T, 1, 100, false, D, 2);
        assert!(!r.ack_now);
    }

    #[test]
    fn reassembly_and_sack_order_rfc2018_4() {
        let mut r = Receiver::new(100_000, 100);
        let o = r.on_segment(T, 201, 100, false, D, 2);
        assert!(o.out_of_order && r.ack_now);
        r.on_segment(T, 501, 100, false, D, 2);
        r.on_segment(T, 301, 100, false, D, 2);
        // Most recent arrival (301) extends block 201..401, listed first; then 501..601.
        let blocks: Vec<_> = r.sack_blocks(3).collect();
        assert_eq!(blocks, vec![(201, 401), (501, 601)]);
        r.on_ack_sent();
        // Filling the first hole delivers through 401 and ACKs at once.
        let o = r.on_segment(T, 1, 200, false, D, 2);
        assert_eq!(o.delivered, 400);
        assert_eq!(r.rcv_nxt, 401);
        assert!(r.ack_now);
        assert_eq!(r.sack_blocks(3).collect::<Vec<_>>(), vec![(501, 601)]);
    }

    #[test]
    fn duplicates_and_out_of_window_data_are_acked_not_taken() {
        let mut r = Receiver::new(1_000, 100);
        r.on_segment(T, 1, 100, false, None, 2);
        r.on_ack_sent();
        let o = r.on_segment(T, 1, 100, false, None, 2);
        assert!(o.unacceptable && r.ack_now);
        r.on_ack_sent();
        // Window is 900 bytes (100 unread); data at 1001.. is beyond it.
        assert_eq!(r.rcv_wnd(), 900);
        assert!(r.on_segment(T, 1001, 100, false, None, 2).unacceptable);
    }

    #[test]
    fn window_closes_with_a_slow_reader_and_reopens_with_an_update() {
        let mut r = Receiver::new(300, 100);
        for k in 0..3 {
            r.on_segment(T, 1 + 100 * k, 100, false, None, 1);
            r.on_ack_sent();
        }
        assert_eq!(r.rcv_wnd(), 0);
        assert_eq!(r.window_field(), 0);
        assert!(r.on_segment(T, 301, 100, false, None, 1).unacceptable);
        r.on_ack_sent();
        assert_eq!(r.take_delivered(), 300);
        assert!(
            r.ack_now,
            "window update after the reader drained the buffer"
        );
        assert_eq!(r.rcv_wnd(), 300);
    }

    /// Found by the model-based fuzzing (tests/fuzz.rs): with window scaling and a buffer
    /// that is filling, each ACK after RCV.NXT advanced by less than a granule rounded the
    /// promised window down, so the advertised right edge crept left ACK after ACK.
    #[test]
    fn scaled_window_right_edge_never_retracts_rfc7323_2_4() {
        let mut r = Receiver::new(1_000, 100);
        r.wscale = 3;
        r.on_ack_sent();
        let edge = |r: &Receiver| r.rcv_nxt + ((r.window_field() as u64) << r.wscale);
        let mut last = edge(&r);
        assert_eq!(last, 1 + 1_000);
        // The application reads nothing: the free space shrinks by each segment's length, a
        // length that is no multiple of the 8-byte granule.
        let mut seq = 1;
        for _ in 0..20 {
            r.on_segment(T, seq, 45, false, None, 1);
            seq += 45;
            let now = edge(&r);
            assert!(now >= last, "right edge moved left: {now} after {last}");
            r.on_ack_sent();
            last = now;
        }
        // The data up to the promised edge is still accepted.
        assert!(!r.on_segment(T, seq, 1, false, None, 1).unacceptable);
    }

    #[test]
    fn fin_after_a_gap_waits_for_the_data() {
        let mut r = Receiver::new(1_000, 100);
        let o = r.on_segment(T, 101, 50, true, None, 1);
        assert!(!o.fin && !r.fin_received);
        let o = r.on_segment(T, 1, 100, false, None, 1);
        assert!(o.fin && r.fin_received);
        assert_eq!(r.rcv_nxt, 152);
    }

    #[test]
    fn scaled_window_field_rfc7323_2_3() {
        let mut r = Receiver::new(1 << 20, 1000);
        r.wscale = 5;
        assert_eq!(r.window_field(), ((1u64 << 20) >> 5) as u16);
    }
}
