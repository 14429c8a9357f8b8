//! Controlled Delay (CoDel), RFC 8289.
//!
//! CoDel acts on each packet's sojourn time (time spent in the queue), measured at dequeue. When
//! the sojourn time has stayed at or above `target` for a whole `interval` (and more than one
//! MTU is queued), it enters the dropping state and drops the head packet; while dropping, the
//! next drop is scheduled `interval/√count` after the previous one, so the drop rate rises until
//! the sojourn time falls below `target` again (RFC 8289 §3, §5). Arrivals are only checked
//! against the hard `limit`.

use celltcp_engine::{RngStream, SimDuration, SimTime};

use super::fifo::Fifo;
use super::{
    ecn_capable, mark_ce, DropCause, ParamError, QueueDisc, QueueLimit, QueueStats, Verdict,
};
use crate::packet::Packet;

/// Parameters of a CoDel queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoDelConfig {
    /// Hard buffer limit; an arrival beyond it is tail-dropped with [`DropCause::QueueFull`]
    /// (RFC 8289 §5, enqueue routine).
    pub limit: QueueLimit,
    /// Acceptable standing queue delay (RFC 8289 §4 recommends 5 ms).
    pub target: SimDuration,
    /// Window over which the sojourn time must stay above `target` before dropping starts, of
    /// the order of a worst-case RTT (RFC 8289 §4 recommends 100 ms).
    pub interval: SimDuration,
    /// Mark ECN-capable packets CE instead of dropping them (RFC 8289 §5; RFC 3168 §5).
    pub ecn: bool,
    /// Largest packet the link carries, bytes: no drop while at most this many bytes remain
    /// queued, since a single packet is no standing queue (RFC 8289 §5, `maxpacket` in `dodequeue`).
    pub mtu: u32,
}

impl CoDelConfig {
    /// The parameters RFC 8289 recommends for the Internet: target 5 ms, interval 100 ms, with a
    /// 1500-byte MTU and no ECN.
    pub fn rfc8289(limit: QueueLimit) -> Self {
        CoDelConfig {
            limit,
            target: SimDuration::from_ms(5),
            interval: SimDuration::from_ms(100),
            ecn: false,
            mtu: 1500,
        }
    }

    /// Checks every field; called by [`CoDel::new`].
    pub fn validate(&self) -> Result<(), ParamError> {
        self.limit.validate("codel.limit")?;
        if self.target == SimDuration::ZERO {
            return Err(ParamError::Zero {
                param: "codel.target",
            });
        }
        if self.interval == SimDuration::ZERO {
            return Err(ParamError::Zero {
                param: "codel.interval",
            });
        }
        if self.mtu == 0 {
            return Err(ParamError::Zero { param: "codel.mtu" });
        }
        Ok(())
    }
}

/// A CoDel queue.
#[derive(Debug)]
pub struct CoDel {
    cfg: CoDelConfig,
    fifo: Fifo,
    stats: QueueStats,
    /// When the sojourn time will have been above `target` for a full `interval`; `None` while
    /// it is below (RFC 8289 §5: `first_above_time_ = 0`).
    first_above_time: Option<SimTime>,
    /// Time of the next scheduled drop while dropping.
    drop_next: SimTime,
    /// Drops (or marks) since entering the dropping state; sets the control law's rate.
    count: u32,
    /// `count` when the dropping state was last entered.
    lastcount: u32,
    dropping: bool,
}

/// A packet taken from the head of the queue and whether CoDel may drop it.
struct Head {
    pkt: Packet,
    ok_to_drop: bool,
}

impl CoDel {
    pub fn new(cfg: CoDelConfig) -> Result<Self, ParamError> {
        cfg.validate()?;
        Ok(CoDel {
            cfg,
            fifo: Fifo::new(),
            stats: QueueStats::default(),
            first_above_time: None,
            drop_next: SimTime::ZERO,
            count: 0,
            lastcount: 0,
            dropping: false,
        })
    }

    pub fn config(&self) -> &CoDelConfig {
        &self.cfg
    }

    /// True while in the dropping state.
    pub fn dropping(&self) -> bool {
        self.dropping
    }

    /// The time of the next drop while in the dropping state: a dequeue at or after it drops.
    pub fn drop_next(&self) -> Option<SimTime> {
        self.dropping.then_some(self.drop_next)
    }

    /// Drops (or marks) counted by the control law in the current or last dropping state.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// RFC 8289 §5, `control_law`: the next drop comes `interval/√count` after `t`, rounded to the nearest
    /// nanosecond.
    fn control_law(&self, t: SimTime, count: u32) -> SimTime {
        let gap_ns = self.cfg.interval.as_ns() as f64 / (count.max(1) as f64).sqrt();
        t + SimDuration::from_ns(gap_ns.round() as u64)
    }

    /// RFC 8289 §5, `dodequeue`: takes the head packet and tracks how long the sojourn time
    /// has been above `target`.
    fn do_dequeue(&mut self, now: SimTime) -> Option<Head> {
        let Some((pkt, enqueued_at)) = self.fifo.pop() else {
            // An empty queue cannot be above target.
            self.first_above_time = None;
            return None;
        };
        let sojourn = now.saturating_since(enqueued_at);
        let mut ok_to_drop = false;
        if sojourn < self.cfg.target || self.fifo.bytes() <= self.cfg.mtu as u64 {
            // Below target, or no more than one packet left: stay out for at least an interval.
            self.first_above_time = None;
        } else {
            match self.first_above_time {
                // Just went above: it is fine to drop if still above an interval from now.
                None => self.first_above_time = Some(now + self.cfg.interval),
                Some(t) => ok_to_drop = now >= t,
            }
        }
        Some(Head { pkt, ok_to_drop })
    }

    /// With ECN on, marks an ECN-capable packet and returns true; otherwise returns false and
    /// the caller drops it.
    fn try_mark(&mut self, pkt: &mut Packet) -> bool {
        if self.cfg.ecn && ecn_capable(pkt.ip.ecn) {
            mark_ce(pkt);
            self.stats.ce_marked += 1;
            true
        } else {
            false
        }
    }

    fn drop_packet(&mut self, pkt: Packet, on_drop: &mut dyn FnMut(Packet, DropCause)) {
        self.stats.dropped_aqm += 1;
        on_drop(pkt, DropCause::Aqm);
    }
}

impl QueueDisc for CoDel {
    fn enqueue(&mut self, pkt: Packet, now: SimTime, _rng: &mut RngStream) -> Verdict {
        if !self
            .cfg
            .limit
            .admits(self.fifo.len(), self.fifo.bytes(), pkt.size_bytes())
        {
            self.stats.dropped_full += 1;
            return Verdict::Dropped(DropCause::QueueFull);
        }
        // RFC 8289 §5, enqueue routine: each packet is timestamped on arrival.
        self.fifo.push(pkt, now);
        self.stats.enqueued += 1;
        Verdict::Enqueued { ce_marked: false }
    }

    /// RFC 8289 §5, dequeue routine.
    fn dequeue(
        &mut self,
        now: SimTime,
        on_drop: &mut dyn FnMut(Packet, DropCause),
    ) -> Option<Packet> {
        let Some(mut head) = self.do_dequeue(now) else {
            // An empty queue takes CoDel out of the dropping state.
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !head.ok_to_drop {
                // Sojourn time below target: leave the dropping state.
                self.dropping = false;
            }
            // A large backlog can call for several drops at once, hence the loop.
            while self.dropping && now >= self.drop_next {
                self.count = self.count.saturating_add(1);
                if self.try_mark(&mut head.pkt) {
                    // The marked packet is sent; the next signal follows the control law.
                    self.drop_next = self.control_law(self.drop_next, self.count);
                    break;
                }
                self.drop_packet(head.pkt, on_drop);
                match self.do_dequeue(now) {
                    Some(next) if next.ok_to_drop => {
                        head = next;
                        self.drop_next = self.control_law(self.drop_next, self.count);
                    }
                    Some(next) => {
                        head = next;
                        self.dropping = false;
                    }
                    None => {
                        self.dropping = false;
                        return None;
                    }
                }
            }
        } else if head.ok_to_drop {
            // Above target for a full interval: enter the dropping state with a first drop (or
            // mark), then send the next packet whatever its sojourn time.
            let sent = if self.try_mark(&mut head.pkt) {
                Some(head.pkt)
            } else {
                self.drop_packet(head.pkt, on_drop);
                self.do_dequeue(now).map(|h| h.pkt)
            };
            self.dropping = true;
            // RFC 8289 §5, dequeue routine: if the queue went back above target soon after the last dropping
            // state ended, resume near the drop rate that controlled it then (`now − drop_next`
            // approximates the time since the last drop).
            let delta = self.count.saturating_sub(self.lastcount);
            let recent =
                now.saturating_since(self.drop_next) < self.cfg.interval.saturating_mul(16);
            self.count = if delta > 1 && recent { delta } else { 1 };
            self.drop_next = self.control_law(now, self.count);
            self.lastcount = self.count;
            let pkt = sent?;
            self.stats.dequeued += 1;
            return Some(pkt);
        }
        self.stats.dequeued += 1;
        Some(head.pkt)
    }

    fn len_packets(&self) -> usize {
        self.fifo.len()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.bytes()
    }

    fn stats(&self) -> &QueueStats {
        &self.stats
    }

    fn kind(&self) -> &'static str {
        "codel"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::queue::testkit::{check_conservation, ops, udp_packet};
    use proptest::prelude::*;

    const MS: u64 = 1_000_000;

    fn cfg() -> CoDelConfig {
        CoDelConfig::rfc8289(QueueLimit::Packets(100_000))
    }

    fn rng() -> RngStream {
        RngStream::new(1, 0, "test/queue/codel")
    }

    /// Enqueues `n` 1500-byte packets with the given ECN field at `t`, uids from `first_uid`.
    fn fill(q: &mut CoDel, n: u64, first_uid: u64, ecn: Ecn, t: SimTime) {
        let mut r = rng();
        for uid in first_uid..first_uid + n {
            assert!(matches!(
                q.enqueue(udp_packet(uid, 1472, ecn), t, &mut r),
                Verdict::Enqueued { .. }
            ));
        }
    }

    /// Dequeues on a 1 ms grid from `start` and additionally at every scheduled `drop_next`
    /// until `end`. Returns the drop times and the (time, packet) of every packet sent.
    fn drain(
        q: &mut CoDel,
        start: SimTime,
        end: SimTime,
    ) -> (Vec<SimTime>, Vec<(SimTime, Packet)>) {
        let (mut drops, mut sent) = (Vec::new(), Vec::new());
        let mut grid = start;
        loop {
            let t = match q.drop_next() {
                Some(d) if d < grid => d,
                _ => {
                    let t = grid;
                    grid += SimDuration::from_ns(MS);
                    t
                }
            };
            if t >= end {
                return (drops, sent);
            }
            if let Some(p) = q.dequeue(t, &mut |_, cause| {
                assert_eq!(cause, DropCause::Aqm);
                drops.push(t);
            }) {
                sent.push((t, p));
            }
        }
    }

    /// Checks d_1 = first and d_{k+1} − d_k = interval/√k within 1 ns (RFC 8289 §5, `control_law`).
    fn assert_control_law(times: &[SimTime], first: SimTime, interval: SimDuration) {
        assert_eq!(times[0], first);
        for (k, w) in times.windows(2).enumerate() {
            let gap = (w[1] - w[0]).as_ns() as f64;
            let law = interval.as_ns() as f64 / ((k + 1) as f64).sqrt();
            assert!(
                (gap - law).abs() <= 1.0,
                "drop {}: gap {gap} ns, law {law} ns",
                k + 2
            );
        }
    }

    #[test]
    fn no_drops_while_sojourn_is_below_target() {
        let mut q = CoDel::new(cfg()).unwrap();
        let mut r = rng();
        // One arrival per ms, each sent 4 ms later: a standing queue of 4–5 packets (more than
        // one MTU) whose sojourn time, 4 ms, stays below the 5 ms target for 10 s.
        for ms in 0..10_000u64 {
            let now = SimTime::from_ns(ms * MS);
            q.enqueue(udp_packet(ms, 1472, Ecn::NotEct), now, &mut r);
            if ms >= 4 {
                let p = q
                    .dequeue(now, &mut |_, _| panic!("dropped below target"))
                    .unwrap();
                assert_eq!(p.uid, ms - 4);
            }
        }
        assert!(!q.dropping());
        assert_eq!(q.stats().dropped_aqm, 0);
    }

    #[test]
    fn standing_queue_drops_follow_the_control_law() {
        let mut q = CoDel::new(cfg()).unwrap();
        fill(&mut q, 5000, 0, Ecn::NotEct, SimTime::ZERO);
        let (drops, sent) = drain(&mut q, SimTime::from_ns(MS), SimTime::from_ns(1500 * MS));
        // The sojourn time first reaches 5 ms at the 5 ms dequeue; a full interval later, at
        // 105 ms, the first drop.
        assert!(drops.len() >= 40, "{} drops", drops.len());
        assert_control_law(&drops, SimTime::from_ns(105 * MS), cfg().interval);
        assert!(q.dropping());
        assert_eq!(q.count() as usize, drops.len());
        assert_eq!(q.stats().dropped_aqm, drops.len() as u64);
        // Every drop is followed at once by the send of the next packet.
        for d in &drops {
            assert!(sent.iter().any(|(t, _)| t == d));
        }
    }

    #[test]
    fn leaves_dropping_when_sojourn_falls_below_target() {
        let mut q = CoDel::new(cfg()).unwrap();
        fill(&mut q, 200, 0, Ecn::NotEct, SimTime::ZERO);
        let (drops, _) = drain(&mut q, SimTime::from_ns(MS), SimTime::from_ns(106 * MS));
        assert_eq!(drops, vec![SimTime::from_ns(105 * MS)]);
        assert!(q.dropping());
        // Fresh arrivals at 106 ms; the old backlog leaves at 106 ms before the next scheduled
        // drop (205 ms), so nothing more is dropped.
        let t = SimTime::from_ns(106 * MS);
        let old = q.len_packets();
        fill(&mut q, 20, 1000, Ecn::NotEct, t);
        let mut no_drop = |_: Packet, _: DropCause| panic!("unexpected drop");
        for _ in 0..old {
            assert!(q.dequeue(t, &mut no_drop).is_some_and(|p| p.uid < 1000));
        }
        assert!(q.dropping(), "above target with a backlog: still dropping");
        // At 107 ms the head's sojourn time is 1 ms: below target, CoDel leaves the state.
        let t = SimTime::from_ns(107 * MS);
        assert!(q.dequeue(t, &mut no_drop).is_some());
        assert!(!q.dropping());
        assert_eq!(q.drop_next(), None);
        while q
            .dequeue(SimTime::from_ns(300 * MS), &mut no_drop)
            .is_some()
        {}
        // An empty queue also ends the dropping state.
        let mut q = CoDel::new(cfg()).unwrap();
        fill(&mut q, 200, 0, Ecn::NotEct, SimTime::ZERO);
        drain(&mut q, SimTime::from_ns(MS), SimTime::from_ns(106 * MS));
        assert!(q.dropping());
        let t = SimTime::from_ns(150 * MS);
        while q.dequeue(t, &mut no_drop).is_some() {}
        assert!(q.dequeue(t, &mut no_drop).is_none());
        assert!(!q.dropping());
    }

    /// Drives `q` through one dropping episode of `drops` drops starting from an empty queue at
    /// `start`, then ends it with fresh traffic; returns the time the episode ended.
    fn episode(q: &mut CoDel, start: SimTime, drops: usize, uid: &mut u64) -> SimTime {
        fill(q, 3000, *uid, Ecn::NotEct, start);
        *uid += 3000;
        let mut t = start;
        let mut seen = 0;
        while seen < drops {
            t = match q.drop_next() {
                Some(d) if d <= t + SimDuration::from_ns(MS) => d,
                _ => t + SimDuration::from_ns(MS),
            };
            q.dequeue(t, &mut |_, _| seen += 1);
        }
        assert_eq!(seen, drops);
        // Flush the old backlog and end the episode by a low sojourn time.
        let mut no_drop = |_: Packet, _: DropCause| panic!("unexpected drop");
        while q.dequeue(t, &mut no_drop).is_some() {}
        fill(q, 5, *uid, Ecn::NotEct, t);
        *uid += 5;
        while q.dequeue(t, &mut no_drop).is_some() {}
        assert!(!q.dropping());
        t
    }

    #[test]
    fn reentry_soon_after_reuses_the_previous_drop_rate() {
        let mut q = CoDel::new(cfg()).unwrap();
        let mut uid = 0;
        let end = episode(&mut q, SimTime::ZERO, 5, &mut uid);
        assert_eq!(q.count(), 5);
        // Re-entry about 105 ms later, well within 16 intervals of the last drop_next:
        // count = count − lastcount = 5 − 1 = 4, and the next drop comes interval/√4 = 50 ms on.
        let start = end + SimDuration::from_ns(MS);
        fill(&mut q, 3000, uid, Ecn::NotEct, start);
        uid += 3000;
        let mut t = start;
        while !q.dropping() {
            t += SimDuration::from_ns(MS);
            q.dequeue(t, &mut |_, _| {});
        }
        assert_eq!(q.count(), 4);
        assert_eq!(q.drop_next(), Some(t + SimDuration::from_ns(50 * MS)));
        // A re-entry more than 16 intervals after the last scheduled drop starts from count 1.
        let mut q = CoDel::new(cfg()).unwrap();
        let end = episode(&mut q, SimTime::ZERO, 5, &mut uid);
        let start = end + SimDuration::from_secs(2);
        episode(&mut q, start, 1, &mut uid);
        assert_eq!(q.count(), 1);
    }

    #[test]
    fn at_most_one_mtu_queued_is_never_dropped() {
        let mut q = CoDel::new(cfg()).unwrap();
        let mut r = rng();
        // One packet at a time, each waiting 50 ms: far above target but no standing queue.
        for i in 0..100u64 {
            q.enqueue(
                udp_packet(i, 1472, Ecn::NotEct),
                SimTime::from_ns(i * 100 * MS),
                &mut r,
            );
            let p = q.dequeue(SimTime::from_ns((i * 100 + 50) * MS), &mut |_, _| {
                panic!("dropped")
            });
            assert_eq!(p.map(|p| p.uid), Some(i));
        }
        assert!(!q.dropping());
    }

    #[test]
    fn ecn_marks_ect_packets_instead_of_dropping() {
        let ecn_cfg = CoDelConfig { ecn: true, ..cfg() };
        let mut q = CoDel::new(ecn_cfg).unwrap();
        fill(&mut q, 5000, 0, Ecn::Ect0, SimTime::ZERO);
        let (drops, sent) = drain(&mut q, SimTime::from_ns(MS), SimTime::from_ns(1500 * MS));
        assert!(drops.is_empty());
        let marks: Vec<SimTime> = sent
            .iter()
            .filter(|(_, p)| p.ip.ecn == Ecn::Ce)
            .map(|(t, _)| *t)
            .collect();
        // The marks follow the same schedule the drops would.
        assert!(marks.len() >= 40);
        assert_control_law(&marks, SimTime::from_ns(105 * MS), ecn_cfg.interval);
        assert_eq!(q.stats().ce_marked, marks.len() as u64);
        assert_eq!(q.stats().dropped_aqm, 0);
        // Not-ECT packets are still dropped with ECN on, and ECT ones without it.
        for (c, ecn) in [(ecn_cfg, Ecn::NotEct), (cfg(), Ecn::Ect1)] {
            let mut q = CoDel::new(c).unwrap();
            fill(&mut q, 5000, 0, ecn, SimTime::ZERO);
            let (drops, sent) = drain(&mut q, SimTime::from_ns(MS), SimTime::from_ns(1500 * MS));
            assert!(drops.len() >= 40);
            assert!(sent.iter().all(|(_, p)| p.ip.ecn == ecn));
            assert_eq!(q.stats().ce_marked, 0);
        }
    }

    #[test]
    fn limit_overflow_is_queue_full_and_bad_parameters_are_rejected() {
        let mut q = CoDel::new(CoDelConfig {
            limit: QueueLimit::Bytes(3000),
            ..cfg()
        })
        .unwrap();
        let mut r = rng();
        assert!(matches!(
            q.enqueue(udp_packet(0, 1472, Ecn::NotEct), SimTime::ZERO, &mut r),
            Verdict::Enqueued { .. }
        ));
        assert!(matches!(
            q.enqueue(udp_packet(1, 1472, Ecn::NotEct), SimTime::ZERO, &mut r),
            Verdict::Enqueued { .. }
        ));
        assert_eq!(
            q.enqueue(udp_packet(2, 0, Ecn::NotEct), SimTime::ZERO, &mut r),
            Verdict::Dropped(DropCause::QueueFull)
        );
        assert_eq!(q.stats().dropped_full, 1);
        assert_eq!(q.kind(), "codel");
        let bad = |c: CoDelConfig| CoDel::new(c).unwrap_err();
        assert_eq!(
            bad(CoDelConfig {
                target: SimDuration::ZERO,
                ..cfg()
            }),
            ParamError::Zero {
                param: "codel.target"
            }
        );
        assert_eq!(
            bad(CoDelConfig {
                interval: SimDuration::ZERO,
                ..cfg()
            }),
            ParamError::Zero {
                param: "codel.interval"
            }
        );
        assert_eq!(
            bad(CoDelConfig { mtu: 0, ..cfg() }),
            ParamError::Zero { param: "codel.mtu" }
        );
        assert_eq!(
            bad(CoDelConfig {
                limit: QueueLimit::Bytes(0),
                ..cfg()
            }),
            ParamError::Zero {
                param: "codel.limit"
            }
        );
    }

    fn arb_cfg() -> impl Strategy<Value = CoDelConfig> {
        (
            1u64..10,
            10u64..200,
            any::<bool>(),
            prop_oneof![
                (1u32..80).prop_map(QueueLimit::Packets),
                (1u64..100_000).prop_map(QueueLimit::Bytes)
            ],
        )
            .prop_map(|(target_ms, interval_ms, ecn, limit)| CoDelConfig {
                limit,
                target: SimDuration::from_ms(target_ms),
                interval: SimDuration::from_ms(interval_ms),
                ecn,
                mtu: 1500,
            })
    }

    proptest! {
        #[test]
        fn conservation(c in arb_cfg(), ops in ops(20 * MS, 400)) {
            check_conservation(&mut CoDel::new(c).unwrap(), &ops)?;
        }
    }
}
