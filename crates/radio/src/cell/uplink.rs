//! The abstracted uplink of one UE: what the UE sends to the eNB (IP packets — mostly TCP
//! ACKs — and the RLC STATUS PDUs of its downlink receiver) waits `grant_delay`, then is
//! served first-in first-out at `rate_bps`, and is lost with probability `loss`.
//!
//! An item that enters at time a, of b bytes on the air, leaves at
//! `f = max(a + grant_delay, f_previous) + 8·b / rate_bps` (a delay line followed by a
//! work-conserving server). `grant_delay` stands for the scheduling request and the uplink
//! grant (TS 36.213 §8.0: PUSCH in subframe n + 4 after a grant in n), `rate_bps` for the
//! share of the uplink carrier the UE is granted, `loss` for residual errors after uplink HARQ.
//! Bytes on the air are the IP datagram plus the PDCP and RLC headers of the uplink bearer
//! (`l2_overhead_bytes`), or the STATUS PDU's own size. The uplink PHY, MAC scheduling among
//! UEs and uplink RLC ARQ are not modelled (`docs/lte-model.md` says why).
//!
//! Each item takes exactly one uniform from the UE's uplink stream when it enters, whether or
//! not the loss probability is 0 or 1, so the stream stays aligned across configurations.

use std::collections::VecDeque;

use celltcp_engine::{RngStream, SimDuration, SimTime};
use celltcp_net::packet::Packet;

use crate::rlc::StatusPdu;

use super::config::UplinkConfig;

/// What a UE sends on the uplink.
#[derive(Clone, Debug)]
pub enum UplinkItem {
    Packet(Packet),
    Status(StatusPdu),
}

#[derive(Debug)]
struct Queued {
    deliver_at: SimTime,
    item: UplinkItem,
    lost: bool,
}

/// Counters of one UE's uplink.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UplinkStats {
    pub packets: u64,
    pub packets_lost: u64,
    pub status_pdus: u64,
    pub status_lost: u64,
    /// Bytes on the air, lost items included.
    pub bytes: u64,
}

/// One UE's uplink FIFO.
#[derive(Debug)]
pub struct UplinkFifo {
    queue: VecDeque<Queued>,
    /// When the server finishes the last item queued.
    busy_until: SimTime,
    l2_overhead_bytes: u32,
    rng: RngStream,
    stats: UplinkStats,
}

impl UplinkFifo {
    pub fn new(l2_overhead_bytes: u32, rng: RngStream) -> Self {
        UplinkFifo {
            queue: VecDeque::new(),
            busy_until: SimTime::ZERO,
            l2_overhead_bytes,
            rng,
            stats: UplinkStats::default(),
        }
    }

    /// Queues `item` handed over at `now`.
    pub fn push(&mut self, now: SimTime, item: UplinkItem, cfg: &UplinkConfig) {
        let bytes = match &item {
            UplinkItem::Packet(p) => p.size_bytes() + self.l2_overhead_bytes,
            UplinkItem::Status(s) => s.size_bytes(),
        };
        // One uniform per item whatever the loss probability (`bernoulli` skips the draw at 0).
        let lost = self.rng.next_f64() < cfg.loss;
        let start = (now + cfg.grant_delay).max(self.busy_until);
        let done = start + SimDuration::transmission(u64::from(bytes), cfg.rate_bps);
        self.busy_until = done;
        self.stats.bytes += u64::from(bytes);
        match &item {
            UplinkItem::Packet(_) => {
                self.stats.packets += 1;
                self.stats.packets_lost += u64::from(lost);
            }
            UplinkItem::Status(_) => {
                self.stats.status_pdus += 1;
                self.stats.status_lost += u64::from(lost);
            }
        }
        self.queue.push_back(Queued {
            deliver_at: done,
            item,
            lost,
        });
    }

    /// When the oldest item reaches the eNB.
    pub fn next_deadline(&self) -> Option<SimTime> {
        self.queue.front().map(|q| q.deliver_at)
    }

    /// The oldest item if it has reached the eNB by `now`, with whether it was lost.
    pub fn pop_due(&mut self, now: SimTime) -> Option<(UplinkItem, bool)> {
        if self.queue.front()?.deliver_at > now {
            return None;
        }
        self.queue.pop_front().map(|q| (q.item, q.lost))
    }

    /// Empties the queue at a handover: returns the IP packets not yet delivered, in order, for
    /// the UE to send in the target cell (36.300 §10.1.2.1.2: uplink PDCP SDUs not confirmed
    /// are retransmitted there), and drops the STATUS PDUs (the RLC entity they belong to is
    /// re-established). A packet whose loss was drawn when it entered is returned too — it has
    /// not been lost yet — and is no longer counted as lost. The server is free at once.
    pub fn drain_packets(&mut self) -> Vec<Packet> {
        let mut packets = Vec::with_capacity(self.queue.len());
        for q in self.queue.drain(..) {
            match q.item {
                UplinkItem::Packet(p) => {
                    self.stats.packets_lost -= u64::from(q.lost);
                    packets.push(p);
                }
                UplinkItem::Status(_) => {
                    self.stats.status_lost -= u64::from(q.lost);
                }
            }
        }
        self.busy_until = SimTime::ZERO;
        packets
    }

    pub fn stats(&self) -> UplinkStats {
        self.stats
    }

    /// Items waiting or in transmission.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rlc::testkit::sdu;

    #[test]
    fn fifo_after_the_grant_delay_at_the_rate() {
        let cfg = UplinkConfig {
            rate_bps: 1_000_000,
            grant_delay: SimDuration::from_ms(8),
            loss: 0.0,
        };
        let mut ul = UplinkFifo::new(4, RngStream::new(1, 0, "ul"));
        // 96 + 4 bytes at 1 Mbit/s = 800 us.
        ul.push(SimTime::ZERO, UplinkItem::Packet(sdu(1, 96)), &cfg);
        ul.push(SimTime::ZERO, UplinkItem::Packet(sdu(2, 96)), &cfg);
        ul.push(
            SimTime::from_ns(20_000_000),
            UplinkItem::Packet(sdu(3, 96)),
            &cfg,
        );
        assert_eq!(ul.next_deadline(), Some(SimTime::from_ns(8_800_000)));
        assert!(ul.pop_due(SimTime::from_ns(8_799_999)).is_none());
        assert!(ul.pop_due(SimTime::from_ns(8_800_000)).is_some());
        assert_eq!(ul.next_deadline(), Some(SimTime::from_ns(9_600_000)));
        ul.pop_due(SimTime::from_ns(9_600_000));
        // The third waits its own grant delay: 28 ms + 0.8 ms.
        assert_eq!(ul.next_deadline(), Some(SimTime::from_ns(28_800_000)));
    }

    #[test]
    fn drain_returns_the_packets_in_order_and_frees_the_server() {
        let cfg = UplinkConfig {
            rate_bps: 1_000_000,
            grant_delay: SimDuration::from_ms(8),
            loss: 1.0,
        };
        let mut ul = UplinkFifo::new(4, RngStream::new(1, 0, "ul"));
        ul.push(SimTime::ZERO, UplinkItem::Packet(sdu(1, 96)), &cfg);
        let status = StatusPdu {
            ack_sn: 0,
            nacks: Vec::new(),
            mrw_ack: None,
            size_bytes: 2,
        };
        ul.push(SimTime::ZERO, UplinkItem::Status(status), &cfg);
        ul.push(SimTime::ZERO, UplinkItem::Packet(sdu(2, 96)), &cfg);
        assert_eq!((ul.stats().packets_lost, ul.stats().status_lost), (2, 1));
        let uids: Vec<u64> = ul.drain_packets().iter().map(|p| p.uid).collect();
        assert_eq!(uids, vec![1, 2]);
        assert!(ul.is_empty() && ul.next_deadline().is_none());
        let st = ul.stats();
        assert_eq!((st.packets, st.packets_lost, st.status_lost), (2, 0, 0));
        // The next item waits only its own grant delay.
        ul.push(
            SimTime::from_ns(1_000_000),
            UplinkItem::Packet(sdu(3, 96)),
            &cfg,
        );
        assert_eq!(ul.next_deadline(), Some(SimTime::from_ns(9_800_000)));
    }

    #[test]
    fn loss_is_bernoulli() {
        let cfg = UplinkConfig {
            loss: 0.2,
            ..UplinkConfig::default()
        };
        let mut ul = UplinkFifo::new(0, RngStream::new(1, 0, "ul"));
        for uid in 0..20_000 {
            ul.push(SimTime::ZERO, UplinkItem::Packet(sdu(uid, 40)), &cfg);
        }
        let p = ul.stats().packets_lost as f64 / 20_000.0;
        assert!((p - 0.2).abs() < 0.01, "{p}");
    }
}
