//! The abstracted uplink of one UE: what the UE sends to the eNB (IP packets — mostly TCP
//! ACKs — and the RLC STATUS PDUs of its downlink receiver) is served first-in first-out at
//! `rate_bps` in the grants of the configured scheduling, and is lost with probability `loss`.
//!
//! * [`UplinkScheduling::Fixed`]: an item that enters at time a, of b bytes on the air, leaves
//!   at `f = max(a + grant_delay, f_previous) + 8·b / rate_bps` (a delay line followed by a
//!   work-conserving server). `grant_delay` stands for the scheduling request and the uplink
//!   grant (TS 36.213 §8.0: PUSCH in subframe n + 4 after a grant in n).
//! * [`UplinkScheduling::SrBsr`]: the request–grant cycle itself (TS 36.321 §5.4.4–5.4.5, TS
//!   38.321 §5.4.4–5.4.5). Data that find the UE with nothing left to send wait for its next
//!   SR occasion (every `sr_period`, at the UE's offset); the grant follows `sr_to_grant` later
//!   and its PUSCH `grant_to_pusch` after that, with room for `first_grant_bytes` and the
//!   buffer status report; the base station then grants the reported rest slot by slot, from
//!   `sr_to_grant + grant_to_pusch` after that PUSCH. Data that arrive while the UE is still
//!   sending are reported in the BSR of its next PUSCH and granted that long after it, so that
//!   ACKs arriving one by one leave together, as they do over a scheduled uplink.
//! * [`UplinkScheduling::Configured`]: occasions of `grant_bytes` every `period` (TS 38.321
//!   §5.8.2), filled in order, without requests.
//!
//! In the scheduled modes a PUSCH occupies one slot and an item reaches the eNB at the end of
//! the slot that carries its last byte; a slot carries at most `rate_bps` × slot. Bytes on the
//! air are the IP datagram plus the PDCP and RLC headers of the uplink bearer
//! (`l2_overhead_bytes`), or the STATUS PDU's own size; the BSR MAC CE and MAC subheaders are
//! not counted. The uplink PHY, MAC scheduling among UEs (each UE's grants are its own) and
//! uplink RLC ARQ are not modelled (`docs/lte-model.md` says why).
//!
//! Each item takes exactly one uniform from the UE's uplink stream when it enters, whether or
//! not the loss probability is 0 or 1, so the stream stays aligned across configurations; the
//! SR offset is the UE's node number modulo the SR period in slots (the base station spreads
//! its UEs' SR resources over the period, TS 36.213 Table 10.1.5-1's I_SR), drawing nothing.

use std::collections::VecDeque;

use celltcp_engine::{RngStream, SimDuration, SimTime};
use celltcp_net::packet::Packet;

use super::bearer::UlStatus;
use super::config::{ConfiguredGrantConfig, SrBsrConfig, UplinkConfig, UplinkScheduling};

/// What a UE sends on the uplink.
#[derive(Clone, Debug)]
pub enum UplinkItem {
    Packet(Packet),
    Status(UlStatus),
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
    /// The scheduled modes' slot, ns.
    slot_ns: u64,
    /// The UE's SR offset within the SR period, in slots.
    sr_offset_slots: u64,
    /// The scheduled modes' grants in progress.
    grants: Grants,
}

/// Where the scheduled modes stand. SR/BSR: the first PUSCH of the current request–grant
/// cycle and its free bytes, the start of the slot-by-slot run of grants that follows it, and
/// the last PUSCH granted so far. Configured: the occasion being filled and its free bytes.
#[derive(Clone, Copy, Debug, Default)]
struct Grants {
    first_pusch: SimTime,
    room: u64,
    run_start: Option<SimTime>,
    last_pusch: Option<SimTime>,
}

impl UplinkFifo {
    /// The uplink of a UE; `slot_ns` is the cell's TTI or slot, `sr_offset_slots` the UE's SR
    /// offset (taken modulo the SR period).
    pub fn new(l2_overhead_bytes: u32, rng: RngStream, slot_ns: u64, sr_offset_slots: u64) -> Self {
        UplinkFifo {
            queue: VecDeque::new(),
            busy_until: SimTime::ZERO,
            l2_overhead_bytes,
            rng,
            stats: UplinkStats::default(),
            slot_ns: slot_ns.max(1),
            sr_offset_slots,
            grants: Grants::default(),
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
        let deliver_at = match cfg.scheduling {
            UplinkScheduling::Fixed => {
                let start = (now + cfg.grant_delay).max(self.busy_until);
                let done = start + SimDuration::transmission(u64::from(bytes), cfg.rate_bps);
                self.busy_until = done;
                done
            }
            UplinkScheduling::SrBsr(sr) => self.sr_bsr(now, u64::from(bytes), cfg.rate_bps, &sr),
            UplinkScheduling::Configured(cg) => {
                self.configured(now, u64::from(bytes), cfg.rate_bps, &cg)
            }
        };
        // One logical channel, in order (TS 36.322 / 38.322 deliver in sequence): an item never
        // overtakes one queued before it, whichever way its grant came.
        let deliver_at = self
            .queue
            .back()
            .map_or(deliver_at, |q| q.deliver_at.max(deliver_at));
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
            deliver_at,
            item,
            lost,
        });
    }

    /// Bytes one slot carries at `rate_bps` (at least one).
    fn slot_bytes(&self, rate_bps: u64) -> u64 {
        (u128::from(rate_bps) * u128::from(self.slot_ns) / 8_000_000_000).max(1) as u64
    }

    /// The start of the first slot at or after `t`.
    fn slot_at_or_after(&self, t: SimTime) -> SimTime {
        SimTime(t.as_ns().div_ceil(self.slot_ns) * self.slot_ns)
    }

    /// When the last of `bytes` leaves if slot-sized grants run back to back from the slot
    /// at or after `from` (or from where the previous item ended, if later): the end of the
    /// slot that carries the last byte.
    fn serve_slots(&mut self, from: SimTime, bytes: u64, rate_bps: u64) -> SimTime {
        let from = self.slot_at_or_after(from);
        if from > self.busy_until {
            // A new run of grants after a gap in the PUSCHs.
            self.grants.run_start = Some(from);
        }
        let start = from.max(self.busy_until);
        let done = start + SimDuration::transmission(bytes, rate_bps);
        self.busy_until = done;
        let end = self.slot_at_or_after(done);
        self.grants.last_pusch = Some(SimTime(end.as_ns() - self.slot_ns));
        end
    }

    /// [`UplinkScheduling::SrBsr`]'s delivery time of `bytes` entering at `now`.
    ///
    /// New data trigger a regular BSR and, as long as the UE has no grant for them, an SR
    /// (TS 36.321 §5.4.5, §5.4.4). The base station learns of them from whichever comes
    /// first: the BSR in the next PUSCH the UE builds after they arrive (its MAC PDU is built
    /// when its grant arrives, `grant_to_pusch` before it, TS 36.321 §5.4.1), or the next SR
    /// occasion; it grants them `sr_to_grant + grant_to_pusch` after that. Grants answer a BSR
    /// with the bytes it reported and an SR with `first_grant_bytes`.
    fn sr_bsr(&mut self, now: SimTime, bytes: u64, rate_bps: u64, sr: &SrBsrConfig) -> SimTime {
        let latency = sr.sr_to_grant + sr.grant_to_pusch;
        let slot = SimDuration::from_ns(self.slot_ns);
        let built_by = now + sr.grant_to_pusch;
        let g = self.grants;
        if built_by <= g.first_pusch && bytes <= g.room {
            // In the cycle's first PUSCH, not built yet.
            self.grants.room -= bytes;
            return g.first_pusch + slot;
        }
        // The BSR's way: the first PUSCH built after `now`, if one is still to come.
        let bsr_grant = g.last_pusch.filter(|&last| built_by <= last).map(|_| {
            let report = if built_by <= g.first_pusch {
                g.first_pusch
            } else {
                let next = self.slot_at_or_after(built_by);
                g.run_start.map_or(next, |run| run.max(next))
            };
            report + slot + latency
        });
        // The SR's way: its next occasion (every `sr_period`, at the UE's offset).
        let period = (sr.sr_period.as_ns() / self.slot_ns).max(1);
        let offset = (self.sr_offset_slots % period) * self.slot_ns;
        let period_ns = period * self.slot_ns;
        let from = self.slot_at_or_after(now).as_ns();
        let sr_at = offset + from.saturating_sub(offset).div_ceil(period_ns) * period_ns;
        let sr_pusch = self.slot_at_or_after(SimTime(sr_at) + latency);
        match bsr_grant {
            Some(at) if at <= sr_pusch => self.serve_slots(at, bytes, rate_bps),
            _ if g.last_pusch.is_some_and(|last| sr_pusch <= last) => {
                // The SR's grant falls inside the run the UE already has: its bytes follow.
                self.serve_slots(sr_pusch, bytes, rate_bps)
            }
            _ => {
                // A new request–grant cycle: its first PUSCH carries what fits and the BSR.
                let room = sr
                    .first_grant_bytes
                    .unwrap_or_else(|| self.slot_bytes(rate_bps));
                self.grants = Grants {
                    first_pusch: sr_pusch,
                    room,
                    run_start: None,
                    last_pusch: Some(sr_pusch),
                };
                self.busy_until = sr_pusch + slot;
                if bytes <= room {
                    self.grants.room -= bytes;
                    return sr_pusch + slot;
                }
                self.grants.room = 0;
                self.serve_slots(sr_pusch + slot + latency, bytes, rate_bps)
            }
        }
    }

    /// [`UplinkScheduling::Configured`]'s delivery time of `bytes` entering at `now`: the end
    /// of the occasion that carries its last byte.
    fn configured(
        &mut self,
        now: SimTime,
        bytes: u64,
        rate_bps: u64,
        cg: &ConfiguredGrantConfig,
    ) -> SimTime {
        let period_ns = (cg.period.as_ns() / self.slot_ns).max(1) * self.slot_ns;
        let period = SimDuration::from_ns(period_ns);
        let per_occasion = cg.grant_bytes.unwrap_or_else(|| {
            (u128::from(rate_bps) * u128::from(period_ns) / 8_000_000_000).max(1) as u64
        });
        let g = &mut self.grants;
        let first_to_come = SimTime(now.as_ns().div_ceil(period_ns) * period_ns);
        if g.room == 0 || g.first_pusch < now {
            // The occasion being filled is full or has gone: the first free one to come.
            let after_full = if g.room == 0 && g.last_pusch.is_some() {
                g.first_pusch + period
            } else {
                SimTime::ZERO
            };
            g.first_pusch = first_to_come.max(after_full);
            g.room = per_occasion;
        }
        let mut left = bytes;
        loop {
            let take = left.min(g.room);
            g.room -= take;
            left -= take;
            if left == 0 {
                break;
            }
            g.first_pusch += period;
            g.room = per_occasion;
        }
        g.last_pusch = Some(g.first_pusch);
        g.first_pusch + SimDuration::from_ns(self.slot_ns)
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
        self.grants = Grants::default();
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
    use crate::rlc::StatusPdu;

    const MS: u64 = 1_000_000;

    #[test]
    fn fifo_after_the_grant_delay_at_the_rate() {
        let cfg = UplinkConfig {
            rate_bps: 1_000_000,
            grant_delay: SimDuration::from_ms(8),
            loss: 0.0,
            ..UplinkConfig::default()
        };
        let mut ul = UplinkFifo::new(4, RngStream::new(1, 0, "ul"), MS, 0);
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
            ..UplinkConfig::default()
        };
        let mut ul = UplinkFifo::new(4, RngStream::new(1, 0, "ul"), MS, 0);
        ul.push(SimTime::ZERO, UplinkItem::Packet(sdu(1, 96)), &cfg);
        let status = StatusPdu {
            ack_sn: 0,
            nacks: Vec::new(),
            mrw_ack: None,
            size_bytes: 2,
        };
        ul.push(
            SimTime::ZERO,
            UplinkItem::Status(UlStatus::Lte(status)),
            &cfg,
        );
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
        let mut ul = UplinkFifo::new(0, RngStream::new(1, 0, "ul"), MS, 0);
        for uid in 0..20_000 {
            ul.push(SimTime::ZERO, UplinkItem::Packet(sdu(uid, 40)), &cfg);
        }
        let p = ul.stats().packets_lost as f64 / 20_000.0;
        assert!((p - 0.2).abs() < 0.01, "{p}");
    }

    fn at(ms_tenths: u64) -> SimTime {
        SimTime::from_ns(ms_tenths * MS / 10)
    }

    fn sr_bsr(first_grant_bytes: Option<u64>) -> UplinkConfig {
        UplinkConfig {
            rate_bps: 5_000_000,
            scheduling: UplinkScheduling::SrBsr(SrBsrConfig {
                first_grant_bytes,
                ..SrBsrConfig::default()
            }),
            ..UplinkConfig::default()
        }
    }

    /// Delivery times, ms, of `(arrival in tenths of ms, bytes on the air)`.
    fn deliveries(ul: &mut UplinkFifo, cfg: &UplinkConfig, items: &[(u64, u32)]) -> Vec<f64> {
        for &(t, bytes) in items {
            // The fixture's L2 overhead is 4 bytes.
            ul.push(at(t), UplinkItem::Packet(sdu(t, bytes - 4)), cfg);
        }
        let mut out = Vec::new();
        while let Some(d) = ul.next_deadline() {
            out.push(d.as_ns() as f64 / MS as f64);
            ul.pop_due(d);
        }
        out
    }

    #[test]
    fn an_ack_waits_for_the_next_sr_occasion_then_grant_and_pusch_ts36321_5_4_4() {
        // SR every 10 ms at offset 0; grant 4 ms after the SR, PUSCH 4 ms after the grant
        // (TS 36.213 §8.0), delivered at the end of the PUSCH's TTI. Two ACKs at 3.2 and 3.5 ms
        // share the SR of 10 ms and the PUSCH of 18 ms; one at 14.5 ms, after that PUSCH's
        // grant (14 ms), needs the SR of 20 ms.
        let cfg = sr_bsr(None);
        let mut ul = UplinkFifo::new(4, RngStream::new(1, 0, "ul"), MS, 0);
        let got = deliveries(&mut ul, &cfg, &[(32, 64), (35, 64)]);
        assert_eq!(got, vec![19.0, 19.0]);
        let got = deliveries(&mut ul, &cfg, &[(145, 64)]);
        assert_eq!(got, vec![29.0]);
        // The UE's offset moves its occasions: 3 slots into the period.
        let mut ul = UplinkFifo::new(4, RngStream::new(1, 0, "ul"), MS, 13);
        assert_eq!(deliveries(&mut ul, &cfg, &[(0, 64)]), vec![12.0]);
    }

    #[test]
    fn what_the_first_grant_cannot_carry_follows_its_bsr_slot_by_slot_ts36321_5_4_5() {
        // 5 Mbit/s: 625 bytes a TTI. 2,000 bytes at 0 ms: SR at 0, first PUSCH at 8 ms with
        // only room for 625 (it carries the BSR); granted from 8 + 1 + 8 = 17 ms, 3.2 ms of
        // transmission, delivered at the end of the TTI of 20.2 ms.
        let cfg = sr_bsr(None);
        let mut ul = UplinkFifo::new(4, RngStream::new(1, 0, "ul"), MS, 0);
        ul.push(at(0), UplinkItem::Packet(sdu(1, 1_976)), &cfg);
        assert_eq!(ul.next_deadline(), Some(at(210)));
        // An ACK at 15 ms, while the UE sends: the PUSCH of 19 ms, whose grant comes at 15 ms,
        // carries it in its BSR (not the next SR occasion); granted from 19 + 1 + 8 = 28 ms and
        // delivered at 29 ms. One at 18 ms comes after the grant of the run's last PUSCH (20 ms)
        // and needs the SR of 20 ms: PUSCH at 28 ms, delivered at 29 ms as well.
        ul.push(at(150), UplinkItem::Packet(sdu(2, 40)), &cfg);
        ul.pop_due(at(210));
        assert_eq!(ul.next_deadline(), Some(at(290)));
        ul.pop_due(at(290));
        ul.push(at(180), UplinkItem::Packet(sdu(3, 40)), &cfg);
        assert_eq!(ul.next_deadline(), Some(at(290)));
        // A first grant large enough carries it all at 8 ms.
        let mut ul = UplinkFifo::new(4, RngStream::new(1, 0, "ul"), MS, 0);
        ul.push(
            at(0),
            UplinkItem::Packet(sdu(1, 1_976)),
            &sr_bsr(Some(3_000)),
        );
        assert_eq!(ul.next_deadline(), Some(at(90)));
    }

    #[test]
    fn acks_of_a_burst_leave_together_over_the_scheduled_uplink() {
        // Ten ACKs 0.3 ms apart (a downlink burst of 20 segments, one ACK per two) reach the
        // base station 1 ms apart or less under the fixed delay, but all in one PUSCH under
        // SR/BSR (600 bytes in the first grant's 625): the ACK clock is compressed as over a
        // scheduled uplink. An eleventh would not fit and follow the BSR 9 ms later.
        let items: Vec<(u64, u32)> = (0..10).map(|k| (11 + 3 * k, 60)).collect();
        let mut fixed = UplinkFifo::new(4, RngStream::new(1, 0, "ul"), MS, 0);
        let f = deliveries(&mut fixed, &UplinkConfig::default(), &items);
        assert!(f.windows(2).all(|w| w[1] > w[0]), "{f:?}");
        let mut sched = UplinkFifo::new(4, RngStream::new(1, 0, "ul"), MS, 0);
        let s = deliveries(&mut sched, &sr_bsr(None), &items);
        assert_eq!(s, vec![19.0; 10]);
    }

    #[test]
    fn configured_grants_fill_their_occasions_in_order_ts38321_5_8_2() {
        // 100 bytes every 2 ms (slots of 1 ms): 64 + 64 bytes at 0.5 and 0.6 ms fill the
        // occasion of 2 ms and spill 28 bytes into that of 4 ms; the first ends at 3 ms, the
        // second at 5 ms. An item at 4.5 ms, after the occasion of 4 ms began, takes that of
        // 6 ms.
        let cfg = UplinkConfig {
            scheduling: UplinkScheduling::Configured(ConfiguredGrantConfig {
                period: SimDuration::from_ms(2),
                grant_bytes: Some(100),
            }),
            ..UplinkConfig::default()
        };
        let mut ul = UplinkFifo::new(4, RngStream::new(1, 0, "ul"), MS, 0);
        assert_eq!(
            deliveries(&mut ul, &cfg, &[(5, 64), (6, 64)]),
            vec![3.0, 5.0]
        );
        assert_eq!(deliveries(&mut ul, &cfg, &[(45, 64)]), vec![7.0]);
    }
}
