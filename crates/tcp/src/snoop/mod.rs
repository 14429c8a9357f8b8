//! Snoop, a TCP-aware link-layer agent at the base station (Balakrishnan, Seshan, Amir & Katz,
//! "Improving TCP/IP performance over wireless networks", MobiCom 1995; Balakrishnan, Seshan &
//! Katz, "Improving reliable transport and handoff performance in cellular wireless networks",
//! ACM Wireless Networks 1(4), 1995).
//!
//! The agent watches the TCP connections through its router between fixed hosts and the mobile
//! hosts behind it (`SnoopConfig::mobile`). It caches the data segments going to a mobile host
//! until the mobile acknowledges them, repairs losses of the wireless hop from its cache, and
//! hides those losses from the fixed sender, so that the sender sees neither the duplicate
//! ACKs of a radio loss nor its fast retransmission and window halving:
//!
//! * **data towards the mobile** (`snoop_data` of the paper): a segment at or beyond the
//!   highest sequence number seen is new: it is cached (while the connection's cache has room)
//!   and forwarded. A segment below it is a retransmission by the sender: when the mobile has
//!   already acknowledged all of it, the mobile's last ACK may have been lost on the way back,
//!   so the agent absorbs the segment and sends that ACK again from the mobile's address;
//!   otherwise the segment is forwarded and marked as retransmitted by the sender, who has then
//!   taken over its recovery (the paper marks only segments missing from the cache; see
//!   docs/middleboxes.md);
//! * **ACKs from the mobile** (`snoop_ack`): a new ACK frees the acknowledged segments, gives a
//!   sample of the wireless round trip (from segments forwarded once, Karn's rule) and is
//!   forwarded. An ACK below the last one is spurious and dropped. A duplicate ACK (same ACK
//!   number and window, no data, no SYN/FIN/RST) for a segment in the cache that the sender
//!   did not retransmit makes the agent retransmit that segment locally, once per loss and
//!   ahead of the queue ("at a higher priority"), and suppresses this and every following
//!   duplicate ACK for it. The agent expects as many further duplicate ACKs as segments beyond
//!   the hole were in flight when it retransmitted; one more means that a segment sent after
//!   the retransmission arrived while the hole stayed open — the local retransmission was lost
//!   too, a new loss — and the segment is retransmitted again. A duplicate ACK for a segment
//!   not in the cache, or retransmitted by
//!   the sender, goes on to the sender. With SACK, a new ACK whose SACK blocks show the segment
//!   at its ACK number missing counts as that first duplicate ACK, and the agent removes the
//!   blocks from it (see `Connection::hide_repaired_hole`);
//! * **local retransmission timer**: per connection, restarted by each new ACK and each local
//!   retransmission while segments are cached; its value is the RFC 6298 estimator over the
//!   wireless round-trip samples, at least `min_rto`, doubled at each expiry. On expiry the
//!   oldest cached segment is retransmitted locally, when it is the one the mobile asks for
//!   and the sender has not retransmitted it.
//!
//! Everything else (other protocols, SYNs, packets between two fixed or two mobile hosts, data
//! from the mobile) passes untouched. Sequence numbers are compared modulo 2^32 (RFC 1982).

mod conn;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::middlebox::{Middlebox, MiddleboxCtx, MiddleboxFigure};
use celltcp_net::packet::{Packet, TcpFlags, TcpHeader};
use thiserror::Error;

use conn::Connection;

/// The local timer before the first wireless round-trip sample of a connection.
pub const INITIAL_LOCAL_RTO: SimDuration = SimDuration::from_ms(200);
/// Upper bound of the local timer, backoff included: beyond it the sender's own timer (at
/// least 200 ms, RFC 6298 §2.4 / Linux) would have taken over long ago.
pub const MAX_LOCAL_RTO: SimDuration = SimDuration::from_secs(1);
/// Clock granularity G of the local RTO (RFC 6298 §2).
const LOCAL_CLOCK_GRANULARITY: SimDuration = SimDuration::from_ms(1);

/// Configuration of a Snoop agent.
#[derive(Clone, Debug, PartialEq)]
pub struct SnoopConfig {
    /// Addresses of the mobile hosts behind the base station (the wireless side).
    pub mobile: Vec<Ipv4Addr>,
    /// Data segments cached per connection; a new segment arriving while the cache is full is
    /// forwarded without being cached.
    pub cache_packets: u32,
    /// Lower bound of the local retransmission timer.
    pub min_rto: SimDuration,
}

impl Default for SnoopConfig {
    /// No mobile host (to be filled in), 100 segments per connection, a 50 ms floor (above the
    /// 40 ms delayed-ACK timer of the mobile's TCP, so that one lone segment does not time out
    /// while its ACK is merely delayed).
    fn default() -> Self {
        SnoopConfig {
            mobile: Vec::new(),
            cache_packets: 100,
            min_rto: SimDuration::from_ms(50),
        }
    }
}

/// A Snoop configuration out of range; messages name the key as in scenario files.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum SnoopError {
    #[error("mobile: empty; expected the mobile hosts behind the base station")]
    NoMobile,
    #[error("cache: {0} is out of range; expected at least 1 segment")]
    EmptyCache(u32),
    #[error("min_rto: {value} is out of range; expected > 0 and at most {max}")]
    MinRto {
        value: SimDuration,
        max: SimDuration,
    },
}

impl SnoopConfig {
    pub fn validate(&self) -> Result<(), SnoopError> {
        if self.mobile.is_empty() {
            return Err(SnoopError::NoMobile);
        }
        if self.cache_packets == 0 {
            return Err(SnoopError::EmptyCache(0));
        }
        if self.min_rto.0 == 0 || self.min_rto > MAX_LOCAL_RTO {
            return Err(SnoopError::MinRto {
                value: self.min_rto,
                max: MAX_LOCAL_RTO,
            });
        }
        Ok(())
    }
}

/// What the agent counted, over all connections.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SnoopStats {
    /// Connections the agent kept state for.
    pub connections: u64,
    /// New data segments cached.
    pub segments_cached: u64,
    /// New data segments forwarded without caching because the cache was full.
    pub cache_full: u64,
    /// Retransmissions by the sender that passed (forwarded, or absorbed and answered).
    pub sender_retransmissions: u64,
    /// Loss indications served from the cache: duplicate ACKs that caused a local
    /// retransmission, and local timer expiries.
    pub cache_hits: u64,
    /// Duplicate ACKs for a segment not in the cache (passed on to the sender).
    pub cache_misses: u64,
    /// Segments retransmitted locally, on a duplicate ACK or on the local timer.
    pub local_retransmissions: u64,
    /// Local timer expiries.
    pub local_timeouts: u64,
    /// Duplicate ACKs absorbed.
    pub dupacks_suppressed: u64,
    /// Duplicate ACKs passed on to the sender (segment not cached, or retransmitted by it).
    pub dupacks_passed: u64,
    /// ACKs below the last ACK seen, dropped.
    pub old_acks_dropped: u64,
    /// ACKs sent again on behalf of the mobile, answering a retransmission of data it had.
    pub acks_generated: u64,
    /// New ACKs forwarded without their SACK blocks, which reported a loss the agent repairs.
    pub sack_blocks_removed: u64,
    /// Of the local retransmissions, those for a second hole revealed by a new ACK that
    /// ended a run of duplicate ACKs (see `Connection::on_partial_ack`).
    pub partial_ack_retransmissions: u64,
}

/// Connection key: fixed host address and port, mobile host address and port.
type Key = (u32, u16, u32, u16);

/// A Snoop agent on a base station; a [`Middlebox`].
pub struct Snoop {
    name: String,
    cfg: SnoopConfig,
    conns: BTreeMap<Key, Connection>,
    stats: SnoopStats,
}

impl Snoop {
    /// A Snoop agent named `name` (its name in summaries), or an error naming the bad key.
    pub fn new(name: &str, cfg: SnoopConfig) -> Result<Self, SnoopError> {
        cfg.validate()?;
        Ok(Snoop {
            name: name.to_string(),
            cfg,
            conns: BTreeMap::new(),
            stats: SnoopStats::default(),
        })
    }

    pub fn stats(&self) -> &SnoopStats {
        &self.stats
    }

    /// Connections with state at present.
    pub fn open_connections(&self) -> usize {
        self.conns.len()
    }

    /// The smoothed wireless round trip of the connection `(fixed, mobile)`, if it has state
    /// and a sample.
    pub fn wireless_srtt(
        &self,
        fixed: (Ipv4Addr, u16),
        mobile: (Ipv4Addr, u16),
    ) -> Option<SimDuration> {
        let key = (u32::from(fixed.0), fixed.1, u32::from(mobile.0), mobile.1);
        self.conns.get(&key).and_then(Connection::srtt)
    }

    fn is_mobile(&self, addr: Ipv4Addr) -> bool {
        self.cfg.mobile.contains(&addr)
    }

    /// A packet from a fixed host to a mobile one.
    fn towards_mobile(
        &mut self,
        pkt: Packet,
        h: TcpHeader,
        ctx: &mut MiddleboxCtx<'_>,
    ) -> Option<Packet> {
        let key = (
            u32::from(pkt.ip.src),
            h.src_port,
            u32::from(pkt.ip.dst),
            h.dst_port,
        );
        if h.flags.contains(TcpFlags::RST) {
            self.conns.remove(&key);
            return Some(pkt);
        }
        let carries_data = pkt.payload_len > 0 || h.flags.contains(TcpFlags::FIN);
        if h.flags.contains(TcpFlags::SYN) || !carries_data {
            return Some(pkt);
        }
        let stats = &mut self.stats;
        let conn = self.conns.entry(key).or_insert_with(|| {
            stats.connections += 1;
            Connection::new(INITIAL_LOCAL_RTO, self.cfg.min_rto)
        });
        conn.on_data(pkt, ctx, self.cfg.cache_packets, &mut self.stats)
    }

    /// A packet from a mobile host to a fixed one.
    fn ack_from_mobile(
        &mut self,
        pkt: Packet,
        h: TcpHeader,
        ctx: &mut MiddleboxCtx<'_>,
    ) -> Option<Packet> {
        let key = (
            u32::from(pkt.ip.dst),
            h.dst_port,
            u32::from(pkt.ip.src),
            h.src_port,
        );
        if h.flags.contains(TcpFlags::RST) {
            self.conns.remove(&key);
            return Some(pkt);
        }
        if !h.flags.contains(TcpFlags::ACK) {
            return Some(pkt);
        }
        // An ACK of a connection without state (no data seen yet) passes as it is.
        let Some(conn) = self.conns.get_mut(&key) else {
            return Some(pkt);
        };
        let (kept, finished) = conn.on_ack(pkt, ctx, &mut self.stats);
        if finished {
            self.conns.remove(&key);
        }
        kept
    }
}

impl Middlebox for Snoop {
    fn name(&self) -> &str {
        &self.name
    }

    fn on_forward(&mut self, pkt: Packet, ctx: &mut MiddleboxCtx<'_>) -> Option<Packet> {
        let (Some(&h), None) = (pkt.tcp(), pkt.tunnel) else {
            return Some(pkt);
        };
        match (self.is_mobile(pkt.ip.src), self.is_mobile(pkt.ip.dst)) {
            (false, true) => self.towards_mobile(pkt, h, ctx),
            (true, false) => self.ack_from_mobile(pkt, h, ctx),
            _ => Some(pkt),
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        self.conns.values().filter_map(Connection::deadline).min()
    }

    fn on_timer(&mut self, ctx: &mut MiddleboxCtx<'_>) {
        for conn in self.conns.values_mut() {
            if conn.deadline().is_some_and(|t| t <= ctx.now) {
                conn.on_timer(ctx, &mut self.stats);
            }
        }
    }

    /// Local retransmissions (data) go ahead of the queue; ACKs sent for the mobile do not.
    fn expedite(&self, pkt: &Packet) -> bool {
        pkt.payload_len > 0 || pkt.tcp().is_some_and(|h| h.flags.contains(TcpFlags::FIN))
    }

    fn report(&self, _now: SimTime) -> Vec<MiddleboxFigure> {
        let s = &self.stats;
        [
            ("connections", s.connections),
            ("segments_cached", s.segments_cached),
            ("cache_full", s.cache_full),
            ("cache_hits", s.cache_hits),
            ("cache_misses", s.cache_misses),
            ("local_retransmissions", s.local_retransmissions),
            ("local_timeouts", s.local_timeouts),
            ("dupacks_suppressed", s.dupacks_suppressed),
            ("dupacks_passed", s.dupacks_passed),
            ("old_acks_dropped", s.old_acks_dropped),
            ("acks_generated", s.acks_generated),
            ("sack_blocks_removed", s.sack_blocks_removed),
            ("partial_ack_retransmissions", s.partial_ack_retransmissions),
            ("sender_retransmissions", s.sender_retransmissions),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v as f64))
        .collect()
    }
}
