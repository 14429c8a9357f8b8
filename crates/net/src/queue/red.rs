//! Random Early Detection: S. Floyd and V. Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM Transactions on Networking 1(4), 1993, with the "gentle"
//! variant of S. Floyd, "Recommendation on using the gentle_ variant of RED" (2000).
//!
//! On every arrival the discipline updates an exponentially weighted average `avg` of the
//! queue size and, from `avg` alone, decides whether to accept the packet, drop it early with a
//! probability that rises with `avg` (or mark it CE when ECN is on and the packet is
//! ECN-capable, RFC 3168 §5/§7), or drop it unconditionally. A separate hard `limit` bounds
//! the buffer itself.

use celltcp_engine::{RngStream, SimTime};

use super::fifo::Fifo;
use super::{
    ecn_capable, mark_ce, DropCause, ParamError, QueueDisc, QueueLimit, QueueStats, Verdict,
};
use crate::packet::Packet;

/// Parameters of a RED queue. Thresholds and `avg` are in packets, or in bytes when
/// `byte_mode`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedConfig {
    /// Hard buffer limit; an arrival beyond it is tail-dropped with [`DropCause::QueueFull`].
    pub limit: QueueLimit,
    /// Average queue size below which no packet is dropped early (packets, or bytes).
    pub min_th: f64,
    /// Average queue size at which the early-drop probability reaches `max_p` (packets, or
    /// bytes). Above it every packet is dropped, or, when `gentle`, the probability keeps rising
    /// to 1 at `2·max_th`.
    pub max_th: f64,
    /// Early-drop probability p_b at `avg = max_th`, in [0, 1].
    pub max_p: f64,
    /// Weight of the newest sample in the average queue size, in (0, 1].
    pub w_q: f64,
    /// Use the gentle variant between `max_th` and `2·max_th`.
    pub gentle: bool,
    /// Mark ECN-capable packets CE instead of dropping them early (RFC 3168 §7).
    pub ecn: bool,
    /// Measure the queue, `min_th` and `max_th` in bytes instead of packets. The drop
    /// probability itself does not scale with the arriving packet's size (the paper's optional
    /// byte-mode scaling is left out, following RFC 7141 §2.3: the probability of dropping or
    /// marking a packet SHOULD NOT depend on its size).
    pub byte_mode: bool,
    /// Typical packet size, bytes: with `link_rate_bps` it sets the time one packet would have
    /// taken to send, which paces the decay of `avg` while the queue is idle (paper §4).
    pub mean_packet_size: u32,
    /// Rate of the link the queue feeds, bits per second.
    pub link_rate_bps: u64,
}

impl RedConfig {
    /// Checks every field; called by [`Red::new`].
    pub fn validate(&self) -> Result<(), ParamError> {
        self.limit.validate("red.limit")?;
        if !(self.min_th.is_finite() && self.min_th >= 0.0) {
            return Err(ParamError::OutOfRange {
                param: "red.min_th",
                value: self.min_th,
                expected: "a finite value >= 0",
            });
        }
        if !self.max_th.is_finite() {
            return Err(ParamError::OutOfRange {
                param: "red.max_th",
                value: self.max_th,
                expected: "a finite value",
            });
        }
        if self.min_th >= self.max_th {
            return Err(ParamError::ThresholdOrder {
                min_th: self.min_th,
                max_th: self.max_th,
            });
        }
        ParamError::check_probability("red.max_p", self.max_p)?;
        if !(self.w_q > 0.0 && self.w_q <= 1.0) {
            return Err(ParamError::OutOfRange {
                param: "red.w_q",
                value: self.w_q,
                expected: "a weight in (0, 1]",
            });
        }
        if self.mean_packet_size == 0 {
            return Err(ParamError::Zero {
                param: "red.mean_packet_size",
            });
        }
        if self.link_rate_bps == 0 {
            return Err(ParamError::Zero {
                param: "red.link_rate_bps",
            });
        }
        Ok(())
    }
}

/// Where `avg` lies relative to the thresholds.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Region {
    /// `avg < min_th`: accept.
    Below,
    /// Early-drop band with its base probability p_b.
    Early { p_b: f64 },
    /// `avg ≥ max_th` (`≥ 2·max_th` when gentle): drop every arrival.
    Forced,
}

fn region(cfg: &RedConfig, avg: f64) -> Region {
    if avg < cfg.min_th {
        Region::Below
    } else if avg < cfg.max_th {
        // Paper §4: p_b grows linearly from 0 at min_th to max_p at max_th.
        Region::Early {
            p_b: cfg.max_p * (avg - cfg.min_th) / (cfg.max_th - cfg.min_th),
        }
    } else if cfg.gentle && avg < 2.0 * cfg.max_th {
        // Gentle RED: p_b grows linearly from max_p at max_th to 1 at 2·max_th.
        Region::Early {
            p_b: cfg.max_p + (1.0 - cfg.max_p) * (avg - cfg.max_th) / cfg.max_th,
        }
    } else {
        Region::Forced
    }
}

/// Spreads drops uniformly (paper §4, "uniform" spacing): p_a = p_b / (1 − count·p_b), which
/// makes the number of arrivals between drops roughly uniform on {1, …, 1/p_b} instead of
/// geometric. Once `count·p_b ≥ 1 − p_b` the formula would exceed one (or change sign), so the
/// packet is dropped for certain.
fn spaced(p_b: f64, count: u32) -> f64 {
    if p_b <= 0.0 {
        return 0.0;
    }
    let denominator = 1.0 - count as f64 * p_b;
    if denominator <= p_b {
        1.0
    } else {
        p_b / denominator
    }
}

/// The probability p_a that RED drops (or marks) an arrival when the average queue is `avg`
/// (packets, or bytes in byte mode) and `count` packets have arrived in the early-drop band
/// since the last drop or mark (the paper's `count` after its increment for this arrival: 0
/// for the first arrival after `avg` rose above `min_th`, 1 for the arrival right after a drop).
///
/// 0 below `min_th`; p_b/(1 − count·p_b) in the early-drop band (capped at 1); 1 where every
/// packet is dropped (`avg ≥ max_th`, or `avg ≥ 2·max_th` when gentle).
pub fn red_probability(cfg: &RedConfig, avg: f64, count: u32) -> f64 {
    match region(cfg, avg) {
        Region::Below => 0.0,
        Region::Early { p_b } => spaced(p_b, count),
        Region::Forced => 1.0,
    }
}

/// A RED queue.
#[derive(Debug)]
pub struct Red {
    cfg: RedConfig,
    fifo: Fifo,
    stats: QueueStats,
    /// Average queue size, packets or bytes.
    avg: f64,
    /// Arrivals in the early-drop band since the last drop or mark; −1 while `avg` is below
    /// `min_th`, as in the paper's Figure 2, so that the first arrival in the band counts 0.
    count: i64,
    /// Start of the current idle period (the paper's `q_time`); meaningful while empty.
    q_time: SimTime,
    /// Time to send one `mean_packet_size` packet at the link rate, nanoseconds: the unit of
    /// the idle decay exponent m.
    idle_slot_ns: f64,
}

impl Red {
    pub fn new(cfg: RedConfig) -> Result<Self, ParamError> {
        cfg.validate()?;
        let idle_slot_ns = cfg.mean_packet_size as f64 * 8.0 * 1e9 / cfg.link_rate_bps as f64;
        Ok(Red {
            cfg,
            fifo: Fifo::new(),
            stats: QueueStats::default(),
            avg: 0.0,
            count: -1,
            q_time: SimTime::ZERO,
            idle_slot_ns,
        })
    }

    /// The average queue size, packets (bytes in byte mode), as of the last arrival.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    pub fn config(&self) -> &RedConfig {
        &self.cfg
    }

    /// Paper §4, Figure 2: with a backlog, avg ← (1 − w_q)·avg + w_q·q. On an arrival to an
    /// empty queue, avg instead decays as if m packets of `mean_packet_size` had arrived to an
    /// empty queue during the idle time: avg ← (1 − w_q)^m·avg, m = idle time / slot (real-valued,
    /// so that the decay is continuous in the idle time).
    fn update_avg(&mut self, now: SimTime) {
        if self.fifo.is_empty() {
            let m = now.saturating_since(self.q_time).as_ns() as f64 / self.idle_slot_ns;
            // powf, not exp(m·ln(1 − w_q)): with w_q = 1, 0^0 must be 1, not NaN.
            self.avg *= (1.0 - self.cfg.w_q).powf(m);
            // The decay up to now is accounted for; if this arrival is dropped, the idle period
            // continues from here.
            self.q_time = now;
        } else {
            let q = if self.cfg.byte_mode {
                self.fifo.bytes() as f64
            } else {
                self.fifo.len() as f64
            };
            self.avg = (1.0 - self.cfg.w_q) * self.avg + self.cfg.w_q * q;
        }
    }
}

/// The RED decision for one arrival, before the hard limit is checked.
enum Decision {
    Accept,
    Early,
    Forced,
}

impl QueueDisc for Red {
    fn enqueue(&mut self, mut pkt: Packet, now: SimTime, rng: &mut RngStream) -> Verdict {
        self.update_avg(now);
        let decision = match region(&self.cfg, self.avg) {
            Region::Below => {
                self.count = -1;
                Decision::Accept
            }
            Region::Early { p_b } => {
                self.count += 1;
                let count = u32::try_from(self.count).unwrap_or(u32::MAX);
                if rng.bernoulli(spaced(p_b, count)) {
                    self.count = 0;
                    Decision::Early
                } else {
                    Decision::Accept
                }
            }
            Region::Forced => {
                self.count = 0;
                Decision::Forced
            }
        };
        let ce_marked = match decision {
            Decision::Accept => false,
            // RFC 3168 §7: an ECN-capable packet chosen for an early drop may be marked CE and
            // forwarded instead; a Not-ECT packet is dropped.
            Decision::Early if self.cfg.ecn && ecn_capable(pkt.ip.ecn) => true,
            // Forced drops (avg beyond the drop-everything threshold) are never replaced by
            // marks: the queue must shed load whatever the transport.
            Decision::Early | Decision::Forced => {
                self.stats.dropped_aqm += 1;
                return Verdict::Dropped(DropCause::Aqm);
            }
        };
        if !self
            .cfg
            .limit
            .admits(self.fifo.len(), self.fifo.bytes(), pkt.size_bytes())
        {
            self.stats.dropped_full += 1;
            return Verdict::Dropped(DropCause::QueueFull);
        }
        if ce_marked {
            mark_ce(&mut pkt);
            self.stats.ce_marked += 1;
        }
        self.fifo.push(pkt, now);
        self.stats.enqueued += 1;
        Verdict::Enqueued { ce_marked }
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        _on_drop: &mut dyn FnMut(Packet, DropCause),
    ) -> Option<Packet> {
        let (pkt, _) = self.fifo.pop()?;
        self.stats.dequeued += 1;
        if self.fifo.is_empty() {
            // Paper Figure 2: "when queue becomes empty: q_time ← time".
            self.q_time = now;
        }
        Some(pkt)
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
        "red"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::queue::testkit::{check_conservation, ops, udp_packet};
    use celltcp_engine::SimDuration;
    use proptest::prelude::*;

    /// min_th 5, max_th 15 packets, max_p 0.1, w_q 1 (avg = instantaneous queue), 8 Mb/s,
    /// 1000-byte mean packets (1 ms idle slot).
    fn cfg() -> RedConfig {
        RedConfig {
            limit: QueueLimit::Packets(1000),
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 1.0,
            gentle: false,
            ecn: false,
            byte_mode: false,
            mean_packet_size: 1000,
            link_rate_bps: 8_000_000,
        }
    }

    fn no_drop(_: Packet, _: DropCause) {
        panic!("RED never drops at dequeue");
    }

    /// Offers `n` arrivals while holding the instantaneous queue at `q` packets (each accepted
    /// arrival is followed by one departure); with w_q = 1 that holds avg at `q`. Returns the
    /// verdicts in order.
    fn hold_queue(red: &mut Red, q: usize, n: usize, ecn: Ecn, seed: u64) -> Vec<Verdict> {
        let mut rng = RngStream::new(seed, 0, "test/queue/red");
        let t = SimTime::from_ns(1);
        let mut uid = 0;
        while red.len_packets() < q {
            red.fifo.push(udp_packet(uid, 1000, ecn), t);
            uid += 1;
        }
        (0..n)
            .map(|_| {
                uid += 1;
                let v = red.enqueue(udp_packet(uid, 1000, ecn), t, &mut rng);
                if let Verdict::Enqueued { .. } = v {
                    red.dequeue(t, &mut no_drop);
                }
                assert_eq!(red.len_packets(), q);
                v
            })
            .collect()
    }

    #[test]
    fn probability_follows_the_formula() {
        let c = cfg();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert_eq!(red_probability(&c, 4.999, 3), 0.0);
        // At min_th p_b = 0, whatever the count.
        assert_eq!(red_probability(&c, 5.0, 50), 0.0);
        // avg 10: p_b = 0.1·5/10 = 0.05; p_a = 0.05/(1 − count·0.05).
        assert!(close(red_probability(&c, 10.0, 0), 0.05));
        assert!(close(red_probability(&c, 10.0, 5), 0.05 / 0.75));
        assert!(close(red_probability(&c, 10.0, 18), 0.05 / 0.1));
        // count·p_b = 0.95: the 20th arrival since the last drop is dropped for certain.
        assert_eq!(red_probability(&c, 10.0, 19), 1.0);
        assert_eq!(red_probability(&c, 10.0, 1000), 1.0);
        // avg 12.5: p_b = 0.075; count 4: 0.075/0.7.
        assert!(close(red_probability(&c, 12.5, 4), 0.075 / 0.7));
        // Without gentle, avg ≥ max_th drops everything.
        assert_eq!(red_probability(&c, 15.0, 0), 1.0);
        assert_eq!(red_probability(&c, 22.5, 0), 1.0);
        // max_p = 0 disables early drops but not forced ones.
        let quiet = RedConfig { max_p: 0.0, ..c };
        assert_eq!(red_probability(&quiet, 14.9, 1_000_000), 0.0);
        assert_eq!(red_probability(&quiet, 15.0, 0), 1.0);
    }

    #[test]
    fn gentle_region_rises_linearly_to_one() {
        let c = RedConfig {
            gentle: true,
            ..cfg()
        };
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        // At max_th p_b = max_p; halfway to 2·max_th it is max_p + (1 − max_p)/2 = 0.55.
        assert!(close(red_probability(&c, 15.0, 0), 0.1));
        assert!(close(red_probability(&c, 22.5, 0), 0.55));
        assert!(close(
            red_probability(&c, 18.0, 2),
            0.28 / (1.0 - 2.0 * 0.28)
        ));
        assert!(red_probability(&c, 29.99, 0) < 1.0);
        assert_eq!(red_probability(&c, 30.0, 0), 1.0);
        // Behaviour: held at 22 packets (p_b = 0.1 + 0.9·7/15 = 0.52) some arrivals survive and
        // ECT ones are marked; held at 30 every arrival is dropped, ECT or not.
        let mut red = Red::new(RedConfig { ecn: true, ..c }).unwrap();
        let v = hold_queue(&mut red, 22, 2000, Ecn::Ect0, 3);
        let marked = v
            .iter()
            .filter(|v| **v == Verdict::Enqueued { ce_marked: true })
            .count();
        let passed = v
            .iter()
            .filter(|v| **v == Verdict::Enqueued { ce_marked: false })
            .count();
        assert!(
            marked > 0 && passed > 0 && marked + passed == 2000,
            "{marked} {passed}"
        );
        let mut red = Red::new(RedConfig { ecn: true, ..c }).unwrap();
        let v = hold_queue(&mut red, 30, 100, Ecn::Ect0, 3);
        assert!(v.iter().all(|v| *v == Verdict::Dropped(DropCause::Aqm)));
        assert_eq!(red.stats().ce_marked, 0);
    }

    /// Expected fraction of arrivals dropped early with avg held constant: drops form a renewal
    /// process whose inter-drop count X satisfies P(X > n) = Π_{k=1..n} (1 − p_a(k)) with
    /// p_a(k) = p_b/(1 − k·p_b) (the count restarts at 1 after each drop), so the fraction is
    /// 1/E[X] with E[X] = Σ_{n≥0} P(X > n).
    fn expected_drop_fraction(p_b: f64) -> f64 {
        let (mut survive, mut mean_gap, mut k) = (1.0, 0.0, 0.0);
        while survive > 0.0 {
            mean_gap += survive;
            k += 1.0;
            let p_a = if 1.0 - k * p_b <= p_b {
                1.0
            } else {
                p_b / (1.0 - k * p_b)
            };
            survive *= 1.0 - p_a;
        }
        1.0 / mean_gap
    }

    #[test]
    fn measured_early_drop_fraction_matches_the_formula() {
        // avg held at 10: p_b = 0.05. The uniform spacing makes the gap uniform on {1, …, 19}:
        // E[X] = 10, so 10% of arrivals are dropped (twice p_b, as the paper notes).
        let p_b = 0.05;
        let expected = expected_drop_fraction(p_b);
        assert!((expected - 0.1).abs() < 1e-12, "{expected}");
        let mut red = Red::new(cfg()).unwrap();
        let n = 100_000;
        let v = hold_queue(&mut red, 10, n, Ecn::NotEct, 11);
        assert_eq!(red.avg(), 10.0);
        let drops: Vec<usize> = (0..n)
            .filter(|&i| v[i] == Verdict::Dropped(DropCause::Aqm))
            .collect();
        let fraction = drops.len() as f64 / n as f64;
        // Var(X) = (19² − 1)/12 = 30, so the drop count has standard deviation
        // √(n·Var(X)/E[X]³) ≈ 55, i.e. 5.5e-4 in the fraction; 0.003 is about 5.5 sigma.
        assert!(
            (fraction - expected).abs() < 0.003,
            "measured {fraction}, expected {expected}"
        );
        // Uniform spacing: never more than 19 arrivals from one drop to the next.
        let max_gap = drops.windows(2).map(|w| w[1] - w[0]).max().unwrap();
        assert!(max_gap <= 19, "gap {max_gap}");
        assert_eq!(red.stats().dropped_aqm, drops.len() as u64);
        assert_eq!(red.stats().dropped_full, 0);
    }

    #[test]
    fn ecn_marks_replace_early_drops_for_ect_only() {
        let c = RedConfig { ecn: true, ..cfg() };
        let mut ect = Red::new(c).unwrap();
        let mut not_ect = Red::new(c).unwrap();
        let n = 5000;
        // Same seed, same avg: both queues take the same early decisions.
        let v_ect = hold_queue(&mut ect, 12, n, Ecn::Ect0, 5);
        let v_not = hold_queue(&mut not_ect, 12, n, Ecn::NotEct, 5);
        for (a, b) in v_ect.iter().zip(&v_not) {
            match b {
                Verdict::Dropped(DropCause::Aqm) => {
                    assert_eq!(*a, Verdict::Enqueued { ce_marked: true })
                }
                _ => assert_eq!(*a, Verdict::Enqueued { ce_marked: false }),
            }
        }
        assert!(not_ect.stats().dropped_aqm > 0);
        assert_eq!(not_ect.stats().ce_marked, 0);
        assert_eq!(ect.stats().dropped_aqm, 0);
        assert_eq!(ect.stats().ce_marked, not_ect.stats().dropped_aqm);
        // The marked packets leave with CE set.
        let mut rng = RngStream::new(1, 0, "test/queue/red");
        let t = SimTime::from_ns(1);
        let mut q = Red::new(RedConfig { max_p: 1.0, ..c }).unwrap();
        while q.len_packets() < 14 {
            q.fifo.push(udp_packet(0, 1000, Ecn::Ect1), t);
        }
        // avg 14: p_b = 0.9; p_a = 0.9 for the first arrival in the band.
        let marked = (1..=20).find(|&uid| {
            q.enqueue(udp_packet(uid, 10, Ecn::Ect1), t, &mut rng)
                == Verdict::Enqueued { ce_marked: true }
        });
        let uid = marked.expect("no mark at p_a = 0.9");
        let out: Vec<Packet> = std::iter::from_fn(|| q.dequeue(t, &mut no_drop)).collect();
        assert_eq!(out.iter().find(|p| p.uid == uid).unwrap().ip.ecn, Ecn::Ce);
        // Without ECN in the configuration, ECT packets are dropped.
        let mut off = Red::new(cfg()).unwrap();
        let v = hold_queue(&mut off, 12, n, Ecn::Ect0, 5);
        assert_eq!(v, v_not);
        assert_eq!(off.stats().ce_marked, 0);
    }

    #[test]
    fn average_follows_the_ewma_and_decays_while_idle() {
        let c = RedConfig { w_q: 0.5, ..cfg() };
        let mut red = Red::new(c).unwrap();
        let mut rng = RngStream::new(1, 0, "test/queue/red");
        let t0 = SimTime::ZERO;
        // Arrivals see queues 0 (empty: decay of a zero average), 1, 2, 3.
        for uid in 0..4 {
            red.enqueue(udp_packet(uid, 972, Ecn::NotEct), t0, &mut rng);
        }
        // 0.5·1 = 0.5; 0.25 + 1 = 1.25; 0.625 + 1.5 = 2.125.
        assert_eq!(red.avg(), 2.125);
        // The queue empties at 1 ms; the idle slot is 1000 B at 8 Mb/s = 1 ms.
        let t1 = SimTime::from_ns(1_000_000);
        while red.dequeue(t1, &mut no_drop).is_some() {}
        red.enqueue(
            udp_packet(10, 972, Ecn::NotEct),
            t1 + SimDuration::from_us(3000),
            &mut rng,
        );
        assert!(
            (red.avg() - 2.125 * 0.5f64.powi(3)).abs() < 1e-12,
            "{}",
            red.avg()
        );
        // With a backlog again, the next arrival uses the EWMA: 0.5·avg + 0.5·1.
        let before = red.avg();
        red.enqueue(
            udp_packet(11, 972, Ecn::NotEct),
            t1 + SimDuration::from_us(3000),
            &mut rng,
        );
        assert!((red.avg() - (0.5 * before + 0.5)).abs() < 1e-12);
        // A fractional number of idle slots decays continuously: 2.5 slots.
        let t2 = SimTime::from_ns(10_000_000);
        while red.dequeue(t2, &mut no_drop).is_some() {}
        let before = red.avg();
        red.enqueue(
            udp_packet(12, 972, Ecn::NotEct),
            t2 + SimDuration::from_us(2500),
            &mut rng,
        );
        assert!((red.avg() - before * 0.5f64.powf(2.5)).abs() < 1e-12);
    }

    #[test]
    fn byte_mode_measures_bytes() {
        let c = RedConfig {
            byte_mode: true,
            min_th: 5000.0,
            max_th: 15000.0,
            ..cfg()
        };
        let mut red = Red::new(c).unwrap();
        // Ten 1028-byte packets: avg = 10280 bytes, p_b = 0.1·5280/10000.
        hold_queue(&mut red, 10, 1, Ecn::NotEct, 1);
        assert_eq!(red.avg(), 10280.0);
        assert!((red_probability(&c, red.avg(), 0) - 0.0528).abs() < 1e-12);
    }

    #[test]
    fn hard_limit_drops_are_queue_full() {
        let mut red = Red::new(RedConfig {
            limit: QueueLimit::Packets(3),
            ..cfg()
        })
        .unwrap();
        let mut rng = RngStream::new(1, 0, "test/queue/red");
        let v: Vec<Verdict> = (0..5)
            .map(|uid| red.enqueue(udp_packet(uid, 100, Ecn::NotEct), SimTime::ZERO, &mut rng))
            .collect();
        assert_eq!(v[3], Verdict::Dropped(DropCause::QueueFull));
        assert_eq!(v[4], Verdict::Dropped(DropCause::QueueFull));
        assert_eq!(red.stats().dropped_full, 2);
        assert_eq!(red.kind(), "red");
    }

    #[test]
    fn invalid_parameters_are_rejected() {
        let bad = |c: RedConfig| Red::new(c).unwrap_err();
        assert_eq!(
            bad(RedConfig {
                min_th: 15.0,
                ..cfg()
            }),
            ParamError::ThresholdOrder {
                min_th: 15.0,
                max_th: 15.0
            }
        );
        assert_eq!(
            bad(RedConfig {
                max_p: 1.5,
                ..cfg()
            }),
            ParamError::NotProbability {
                param: "red.max_p",
                value: 1.5
            }
        );
        assert!(matches!(
            bad(RedConfig {
                max_p: f64::NAN,
                ..cfg()
            }),
            ParamError::NotProbability { .. }
        ));
        assert!(matches!(
            bad(RedConfig { w_q: 0.0, ..cfg() }),
            ParamError::OutOfRange {
                param: "red.w_q",
                ..
            }
        ));
        assert!(matches!(
            bad(RedConfig {
                min_th: -1.0,
                ..cfg()
            }),
            ParamError::OutOfRange {
                param: "red.min_th",
                ..
            }
        ));
        assert!(matches!(
            bad(RedConfig {
                max_th: f64::INFINITY,
                ..cfg()
            }),
            ParamError::OutOfRange {
                param: "red.max_th",
                ..
            }
        ));
        assert_eq!(
            bad(RedConfig {
                mean_packet_size: 0,
                ..cfg()
            }),
            ParamError::Zero {
                param: "red.mean_packet_size"
            }
        );
        assert_eq!(
            bad(RedConfig {
                link_rate_bps: 0,
                ..cfg()
            }),
            ParamError::Zero {
                param: "red.link_rate_bps"
            }
        );
        assert_eq!(
            bad(RedConfig {
                limit: QueueLimit::Packets(0),
                ..cfg()
            }),
            ParamError::Zero { param: "red.limit" }
        );
        assert_eq!(
            bad(RedConfig {
                max_p: 2.0,
                ..cfg()
            })
            .to_string(),
            "red.max_p: 2 is not a probability; expected a value in [0, 1]"
        );
    }

    fn arb_cfg() -> impl Strategy<Value = RedConfig> {
        (
            1u32..8,
            1u32..12,
            0.0..=1.0f64,
            0.01..=1.0f64,
            any::<(bool, bool, bool)>(),
            1u32..40,
        )
            .prop_map(
                |(min_th, width, max_p, w_q, (gentle, ecn, byte_mode), limit)| {
                    let scale = if byte_mode { 800.0 } else { 1.0 };
                    RedConfig {
                        limit: if byte_mode {
                            QueueLimit::Bytes(limit as u64 * 800)
                        } else {
                            QueueLimit::Packets(limit)
                        },
                        min_th: min_th as f64 * scale,
                        max_th: (min_th + width) as f64 * scale,
                        max_p,
                        w_q,
                        gentle,
                        ecn,
                        byte_mode,
                        mean_packet_size: 800,
                        link_rate_bps: 10_000_000,
                    }
                },
            )
    }

    proptest! {
        #[test]
        fn conservation(c in arb_cfg(), ops in ops(2_000_000, 300)) {
            check_conservation(&mut Red::new(c).unwrap(), &ops)?;
        }
    }
}
