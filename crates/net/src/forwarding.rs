//! A base station's X2-U data forwarding (TS 36.300 §10.1.2.1.2): the buffer from which the
//! source eNB reads the data it forwards to the target, and the rate at which it reads it.
//!
//! At the handover command the source hands every PDCP SDU not yet confirmed delivered to the
//! target, and keeps forwarding fresh data that reaches it until the end marker (§10.1.2.2). A
//! real eNB does not write that backlog (up to the whole RLC buffer of the UE, a megabyte by
//! default) into its transport interface at once: it reads it out of its own memory as fast as
//! the interface takes it, so its own egress queue is back-pressured, never overflowed. TS 36.300
//! leaves the rate and the memory set aside for it to the implementation; this type models them
//! with two parameters:
//!
//! * `rate_bps` — the most the eNB forwards per second (`None`: as fast as the interface takes
//!   it, i.e. its line rate). Packets leave at most one per `size / rate` after the previous one.
//! * `capacity` — how much forwarded data the eNB holds while it waits for its interface
//!   (`None`: unlimited). What does not fit is dropped at the source ([`Offer::Full`]); end
//!   markers are control messages and always fit (TS 29.281 §7.3.2: the end marker follows the
//!   last G-PDU, it is never discarded in its place).
//!
//! Sans-IO: the network (`world::x2u`) owns the timer and the back-pressure rule; this type only
//! orders the packets, accounts for their bytes and says when the next may leave.

use std::collections::VecDeque;

use celltcp_engine::{SimDuration, SimTime};

use crate::packet::{GtpMessage, Packet};
use crate::queue::QueueLimit;

/// How a base station forwards over X2-U.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ForwardingConfig {
    /// Bits per second at most (`None`: the line rate of the transport interface).
    pub rate_bps: Option<u64>,
    /// The eNB-internal buffer of data waiting to be forwarded (`None`: unlimited).
    pub capacity: Option<QueueLimit>,
}

/// What [`ForwardingBuffer::offer`] did with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    Queued,
    /// The buffer is full: the packet is lost at the source.
    Full(Packet),
}

/// Counters of one base station's forwarding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ForwardingStats {
    /// Packets (G-PDUs and end markers) handed to the transport interface.
    pub released: u64,
    /// G-PDUs dropped because the buffer was full.
    pub dropped: u64,
    /// The most bytes the buffer held at once.
    pub peak_bytes: u64,
    /// The longest a packet waited in the buffer, nanoseconds.
    pub max_wait_ns: u64,
}

/// The data one base station has yet to forward, in the order it was handed over.
#[derive(Clone, Debug)]
pub struct ForwardingBuffer {
    cfg: ForwardingConfig,
    /// Each packet with the time it entered.
    queue: VecDeque<(Packet, SimTime)>,
    bytes: u64,
    /// The earliest time the next packet may leave at `rate_bps`.
    next_release: SimTime,
    /// The pending pacing deadline the network scheduled, if any.
    pub(crate) timer: Option<SimTime>,
    stats: ForwardingStats,
}

impl ForwardingBuffer {
    pub fn new(cfg: ForwardingConfig) -> Self {
        ForwardingBuffer {
            cfg,
            queue: VecDeque::new(),
            bytes: 0,
            next_release: SimTime::ZERO,
            timer: None,
            stats: ForwardingStats::default(),
        }
    }

    pub fn config(&self) -> ForwardingConfig {
        self.cfg
    }

    pub fn stats(&self) -> ForwardingStats {
        self.stats
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    pub fn len_packets(&self) -> usize {
        self.queue.len()
    }

    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }

    /// Queues `pkt` (an encapsulated G-PDU or end marker) behind everything handed over before.
    pub fn offer(&mut self, pkt: Packet, now: SimTime) -> Offer {
        let end_marker = pkt
            .tunnel
            .is_some_and(|t| t.message == GtpMessage::EndMarker);
        let fits = match self.cfg.capacity {
            None => true,
            Some(limit) => limit.admits(self.queue.len(), self.bytes, pkt.size_bytes()),
        };
        if !fits && !end_marker {
            self.stats.dropped += 1;
            return Offer::Full(pkt);
        }
        self.bytes += u64::from(pkt.size_bytes());
        self.stats.peak_bytes = self.stats.peak_bytes.max(self.bytes);
        self.queue.push_back((pkt, now));
        Offer::Queued
    }

    /// The packet that leaves next.
    pub fn head(&self) -> Option<&Packet> {
        self.queue.front().map(|(p, _)| p)
    }

    /// When the head may leave at the configured rate: `now` or later; `None` when empty.
    pub fn ready_at(&self, now: SimTime) -> Option<SimTime> {
        self.head().map(|_| self.next_release.max(now))
    }

    /// Takes the head out at `now` (the caller checked [`ready_at`](Self::ready_at)); the next
    /// packet may leave one serialisation time of this one at `rate_bps` later.
    pub fn release(&mut self, now: SimTime) -> Option<Packet> {
        let (pkt, entered) = self.queue.pop_front()?;
        self.bytes -= u64::from(pkt.size_bytes());
        self.stats.released += 1;
        self.stats.max_wait_ns = self
            .stats
            .max_wait_ns
            .max(now.saturating_since(entered).as_ns());
        if let Some(rate) = self.cfg.rate_bps {
            self.next_release = now + SimDuration::transmission(u64::from(pkt.size_bytes()), rate);
        }
        Some(pkt)
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;
    use crate::packet::{Ecn, GtpInterface};
    use crate::queue::testkit::udp_packet;

    /// A UDP datagram of `payload + 28` bytes.
    fn data(uid: u64, payload: u32) -> Packet {
        udp_packet(uid, payload, Ecn::NotEct)
    }

    fn marker(uid: u64) -> Packet {
        let a = Ipv4Addr::new(10, 0, 0, 1);
        Packet::end_marker(uid, a, a, a, 1, GtpInterface::X2u, SimTime::ZERO)
    }

    fn ms(t: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_ms(t)
    }

    #[test]
    fn packets_leave_in_order_at_the_rate() {
        // 1000-byte datagrams at 8 Mb/s: one per millisecond.
        let mut f = ForwardingBuffer::new(ForwardingConfig {
            rate_bps: Some(8_000_000),
            capacity: None,
        });
        let size = data(0, 972).size_bytes();
        assert_eq!(size, 1000);
        for uid in 0..3 {
            assert_eq!(f.offer(data(uid, 972), SimTime::ZERO), Offer::Queued);
        }
        let t0 = ms(5);
        assert_eq!(f.ready_at(t0), Some(t0));
        assert_eq!(f.release(t0).unwrap().uid, 0);
        assert_eq!(f.ready_at(t0), Some(ms(6)));
        assert_eq!(f.release(ms(6)).unwrap().uid, 1);
        // Later than its earliest time: the pace counts from the actual release.
        assert_eq!(f.release(ms(9)).unwrap().uid, 2);
        assert_eq!(f.ready_at(ms(9)), None);
        let s = f.stats();
        assert_eq!((s.released, s.dropped, s.peak_bytes), (3, 0, 3000));
        assert_eq!(s.max_wait_ns, 9_000_000);
    }

    #[test]
    fn without_a_rate_every_packet_is_ready_at_once() {
        let mut f = ForwardingBuffer::new(ForwardingConfig::default());
        f.offer(data(0, 1000), SimTime::ZERO);
        f.offer(data(1, 1000), SimTime::ZERO);
        let now = ms(1);
        f.release(now);
        assert_eq!(f.ready_at(now), Some(now));
    }

    #[test]
    fn a_full_buffer_drops_data_but_never_the_end_marker() {
        let mut f = ForwardingBuffer::new(ForwardingConfig {
            rate_bps: None,
            capacity: Some(QueueLimit::Bytes(2500)),
        });
        assert_eq!(f.offer(data(0, 972), SimTime::ZERO), Offer::Queued);
        assert_eq!(f.offer(data(1, 972), SimTime::ZERO), Offer::Queued);
        assert!(matches!(f.offer(data(2, 972), SimTime::ZERO), Offer::Full(p) if p.uid == 2));
        assert_eq!(f.offer(marker(3), SimTime::ZERO), Offer::Queued);
        assert_eq!(f.len_packets(), 3);
        assert_eq!(f.stats().dropped, 1);
        let uids: Vec<u64> =
            std::iter::from_fn(|| f.release(SimTime::ZERO).map(|p| p.uid)).collect();
        assert_eq!(uids, [0, 1, 3]);
        assert_eq!(f.len_bytes(), 0);
    }
}
