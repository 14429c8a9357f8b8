//! BBR v1's long-term ("LT") bandwidth sampler for token-bucket policers, as Linux's
//! `tcp_bbr.c` runs it (`bbr_lt_bw_sampling`, `bbr_lt_bw_interval_done`; Linux 4.10+).
//!
//! A policer lets a burst through while it has tokens and then drops everything above its
//! token rate; the windowed-max BtlBw remembers the burst and keeps the sender above the policed
//! rate, losing a fifth or more of what it sends. The sampler watches for that: it starts an
//! interval at a loss, lets it run for at least [`LT_INTVL_MIN_ROUNDS`] round trips, ends it at
//! a loss, and calls the interval lossy when at least [`LT_LOSS_THRESH`]/256 (≈ 20 %) of the
//! segments delivered in it were lost. Two consecutive lossy intervals whose delivery rates
//! agree within 1/8 ([`LT_BW_RATIO_INV`]) or [`LT_BW_DIFF_BPS`] mean a policer: BBR then uses
//! their average rate, `lt_bw`, in place of BtlBw and paces at gain 1, for
//! [`LT_BW_MAX_ROUNDS`] round trips of ProbeBW, after which it samples afresh.
//!
//! An application-limited sample resets the sampling (the interval would under-estimate), as
//! does an interval longer than 4·[`LT_INTVL_MIN_ROUNDS`] rounds.

use celltcp_engine::SimTime;

/// `bbr_lt_intvl_min_rtts`: the shortest sampling interval, round trips.
pub const LT_INTVL_MIN_ROUNDS: u32 = 4;
/// `bbr_lt_loss_thresh`: an interval is lossy when lost/delivered ≥ this/256 (≈ 20 %).
pub const LT_LOSS_THRESH: u64 = 50;
/// `bbr_lt_bw_ratio` = BBR_UNIT/8: two intervals' rates are consistent when they differ by at
/// most 1/this of the earlier one...
pub const LT_BW_RATIO_INV: u64 = 8;
/// ...or (`bbr_lt_bw_diff`, 4000/8 bytes per second) by at most 4 kbit/s.
pub const LT_BW_DIFF_BPS: u64 = 4_000;
/// `bbr_lt_bw_max_rtts`: round trips of ProbeBW spent at `lt_bw` before sampling again.
pub const LT_BW_MAX_ROUNDS: u32 = 48;

/// What the sampler reads from one ACK (or from an RTO, which Linux feeds it as a sample
/// with one loss that ends a round).
#[derive(Clone, Copy, Debug)]
pub(super) struct LtInput {
    /// Linux's `delivered_mstamp`: when data was last delivered.
    pub delivered_time: SimTime,
    /// Bytes delivered on the connection so far (`tp->delivered`, in bytes).
    pub delivered: u64,
    /// Segments deemed lost on the connection so far (`tp->lost`).
    pub lost: u64,
    /// Segments this ACK marked lost (`rs->losses`).
    pub losses: u64,
    pub round_start: bool,
    pub is_app_limited: bool,
    /// BBR is in ProbeBW (only ProbeBW rounds count towards [`LT_BW_MAX_ROUNDS`]).
    pub in_probe_bw: bool,
}

/// What a sample changed, for the controller to act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LtOutcome {
    Unchanged,
    /// A policer was found: `lt_bw` replaces BtlBw from now on, pacing gain 1.
    StartedUsing,
    /// [`LT_BW_MAX_ROUNDS`] have passed: back to BtlBw, and ProbeBW restarts its gain cycle.
    StoppedUsing,
}

/// The sampler's state (Linux's `lt_*` fields of `struct bbr`); rates in bits per second.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LtBwSampler {
    is_sampling: bool,
    /// Round trips in the current interval, or, while using `lt_bw`, since it was adopted.
    rtt_cnt: u32,
    use_bw: bool,
    /// The previous lossy interval's rate, or the policed rate while `use_bw`.
    bw: u64,
    last_delivered: u64,
    /// Interval start, whole milliseconds (Linux keeps `lt_last_stamp` in ms).
    last_stamp_ms: u64,
    last_lost: u64,
}

impl LtBwSampler {
    /// The policed rate, bits per second, while BBR uses it in place of BtlBw.
    pub fn bw(&self) -> Option<u64> {
        self.use_bw.then_some(self.bw)
    }

    /// `bbr_reset_lt_bw_sampling_interval`: a new interval starts at `x`.
    fn reset_interval(&mut self, x: &LtInput) {
        self.last_stamp_ms = x.delivered_time.as_ns() / 1_000_000;
        self.last_delivered = x.delivered;
        self.last_lost = x.lost;
        self.rtt_cnt = 0;
    }

    /// `bbr_reset_lt_bw_sampling`: forget everything, including a policed rate in use.
    pub(super) fn reset(&mut self, delivered_time: SimTime, delivered: u64, lost: u64) {
        self.bw = 0;
        self.use_bw = false;
        self.is_sampling = false;
        self.reset_interval(&LtInput {
            delivered_time,
            delivered,
            lost,
            losses: 0,
            round_start: false,
            is_app_limited: false,
            in_probe_bw: false,
        });
    }

    /// `bbr_lt_bw_sampling`, once per valid rate sample (after the round update) and once per
    /// retransmission timeout. `mss` converts the segment counts to bytes for the loss ratio.
    pub(super) fn on_sample(&mut self, x: &LtInput, mss: u64) -> LtOutcome {
        if self.use_bw {
            if x.in_probe_bw && x.round_start {
                self.rtt_cnt += 1;
                if self.rtt_cnt >= LT_BW_MAX_ROUNDS {
                    self.reset(x.delivered_time, x.delivered, x.lost);
                    return LtOutcome::StoppedUsing;
                }
            }
            return LtOutcome::Unchanged;
        }
        // Sampling starts at the first loss: by then the policer's tokens are spent, and an
        // interval that began earlier would include the burst and over-estimate.
        if !self.is_sampling {
            if x.losses == 0 {
                return LtOutcome::Unchanged;
            }
            self.reset_interval(x);
            self.is_sampling = true;
        }
        if x.is_app_limited {
            self.reset(x.delivered_time, x.delivered, x.lost);
            return LtOutcome::Unchanged;
        }
        if x.round_start {
            self.rtt_cnt += 1;
        }
        if self.rtt_cnt < LT_INTVL_MIN_ROUNDS {
            return LtOutcome::Unchanged;
        }
        if self.rtt_cnt > 4 * LT_INTVL_MIN_ROUNDS {
            self.reset(x.delivered_time, x.delivered, x.lost);
            return LtOutcome::Unchanged;
        }
        // The interval ends at a loss, when the tokens are known to be exhausted.
        if x.losses == 0 {
            return LtOutcome::Unchanged;
        }
        let lost_bytes = (x.lost - self.last_lost).saturating_mul(mss);
        let delivered = x.delivered - self.last_delivered;
        if delivered == 0 || lost_bytes.saturating_mul(256) < LT_LOSS_THRESH * delivered {
            return LtOutcome::Unchanged;
        }
        let now_ms = x.delivered_time.as_ns() / 1_000_000;
        let Some(t_ms) = now_ms.checked_sub(self.last_stamp_ms).filter(|t| *t >= 1) else {
            return LtOutcome::Unchanged; // shorter than 1 ms: wait
        };
        let bw =
            u64::try_from(u128::from(delivered) * 8 * 1_000 / u128::from(t_ms)).unwrap_or(u64::MAX);
        self.interval_done(bw, x)
    }

    /// `bbr_lt_bw_interval_done`: a lossy interval of rate `bw` ended.
    fn interval_done(&mut self, bw: u64, x: &LtInput) -> LtOutcome {
        if self.bw > 0 {
            let diff = bw.abs_diff(self.bw);
            // Linux converts the difference to bytes per second through
            // `bbr_rate_bytes_per_sec`, which takes off the 1 % pacing margin.
            let diff_paced = diff / 100 * (100 - super::PACING_MARGIN_PERCENT);
            if diff.saturating_mul(LT_BW_RATIO_INV) <= self.bw || diff_paced <= LT_BW_DIFF_BPS {
                self.bw = (bw + self.bw) / 2;
                self.use_bw = true;
                self.rtt_cnt = 0;
                return LtOutcome::StartedUsing;
            }
        }
        self.bw = bw;
        self.reset_interval(x);
        LtOutcome::Unchanged
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use celltcp_engine::SimDuration;

    const MSS: u64 = 1_000;

    /// A sender policed to 1 Mb/s (125 segments/s) that offers 25 % more: one loss in five
    /// segments. One ACK per 8 ms carries one segment; a round is 50 ms (6.25 ACKs).
    struct Policed {
        now: SimTime,
        delivered: u64,
        lost: u64,
        round_at: SimTime,
    }

    impl Policed {
        fn new() -> Self {
            Policed {
                now: SimTime::ZERO,
                delivered: 0,
                lost: 0,
                round_at: SimTime::ZERO,
            }
        }
        /// One ACK; every fourth also reports one segment lost (1 lost per 4 delivered = 25 %
        /// of delivered, above the 20 % threshold).
        fn ack(&mut self, lt: &mut LtBwSampler, i: u64, app_limited: bool) -> LtOutcome {
            self.now += SimDuration::from_ms(8);
            self.delivered += MSS;
            let losses = u64::from(i % 4 == 3);
            self.lost += losses;
            let round_start = self.now >= self.round_at + SimDuration::from_ms(50);
            if round_start {
                self.round_at = self.now;
            }
            lt.on_sample(
                &LtInput {
                    delivered_time: self.now,
                    delivered: self.delivered,
                    lost: self.lost,
                    losses,
                    round_start,
                    is_app_limited: app_limited,
                    in_probe_bw: true,
                },
                MSS,
            )
        }
    }

    #[test]
    fn two_consistent_lossy_intervals_mean_a_policer() {
        let mut lt = LtBwSampler::default();
        let mut p = Policed::new();
        let mut started = None;
        for i in 0..200 {
            if p.ack(&mut lt, i, false) == LtOutcome::StartedUsing {
                started = Some(i);
                break;
            }
        }
        // Sampling starts at the first loss (ACK 3); rounds start every 7 ACKs (56 ms: ACKs
        // 6, 13, 20, 27, ...); an interval needs 4 of them and ends at a loss (every fourth
        // ACK): the first lossy interval (6 lost of 24 delivered) closes at ACK 27, the second,
        // consistent one at ACK 55.
        assert_eq!(started, Some(55));
        // 1 segment per 8 ms = 1 Mb/s, measured over whole milliseconds.
        let bw = lt.bw().expect("lt_bw in use");
        assert!((990_000..=1_010_000).contains(&bw), "{bw}");
    }

    #[test]
    fn lt_bw_is_used_for_48_probe_bw_rounds() {
        let mut lt = LtBwSampler::default();
        let mut p = Policed::new();
        let mut i = 0;
        while p.ack(&mut lt, i, false) != LtOutcome::StartedUsing {
            i += 1;
        }
        let mut rounds = 0;
        loop {
            i += 1;
            let was = p.round_at;
            let out = p.ack(&mut lt, i, false);
            rounds += u32::from(p.round_at != was);
            if out == LtOutcome::StoppedUsing {
                break;
            }
            assert!(lt.bw().is_some());
        }
        assert_eq!(rounds, LT_BW_MAX_ROUNDS);
        assert_eq!(lt.bw(), None);
    }

    #[test]
    fn low_loss_or_app_limited_intervals_find_no_policer() {
        // 1 loss per 8 delivered: 12.5 % < 20 %, never lossy enough.
        let mut lt = LtBwSampler::default();
        let mut p = Policed::new();
        for i in 0..400 {
            let x = LtInput {
                delivered_time: p.now + SimDuration::from_ms(8),
                delivered: p.delivered + MSS,
                lost: p.lost + u64::from(i % 8 == 7),
                losses: u64::from(i % 8 == 7),
                round_start: i % 6 == 0,
                is_app_limited: false,
                in_probe_bw: true,
            };
            (p.now, p.delivered, p.lost) = (x.delivered_time, x.delivered, x.lost);
            assert_eq!(lt.on_sample(&x, MSS), LtOutcome::Unchanged);
        }
        assert_eq!(lt.bw(), None);
        // The policed path again, but every sample app-limited: sampling keeps resetting.
        let mut lt = LtBwSampler::default();
        let mut p = Policed::new();
        for i in 0..400 {
            assert_eq!(p.ack(&mut lt, i, true), LtOutcome::Unchanged);
        }
        assert_eq!(lt.bw(), None);
    }

    #[test]
    fn inconsistent_rates_start_over() {
        let mut lt = LtBwSampler::default();
        let x = |ms: u64, delivered: u64, lost: u64| LtInput {
            delivered_time: SimTime::from_ns(ms * 1_000_000),
            delivered,
            lost,
            losses: 1,
            round_start: true,
            is_app_limited: false,
            in_probe_bw: true,
        };
        // Interval 1: 0–200 ms, 25 kB delivered (1 Mb/s), 25 % lost.
        lt.on_sample(&x(0, 0, 0), MSS);
        for r in 1..4 {
            lt.on_sample(&x(50 * r, 0, 0), MSS);
        }
        assert_eq!(lt.on_sample(&x(200, 25_000, 7), MSS), LtOutcome::Unchanged);
        assert_eq!(lt.bw, 1_000_000);
        // Interval 2 at 2 Mb/s: more than 1/8 and 4 kbit/s apart, so it becomes the reference.
        for r in 1..4 {
            lt.on_sample(&x(200 + 50 * r, 25_000, 7), MSS);
        }
        assert_eq!(lt.on_sample(&x(400, 75_000, 21), MSS), LtOutcome::Unchanged);
        assert_eq!(lt.bw, 2_000_000);
        // Interval 3 at 1.9 Mb/s: within 1/8 of 2 Mb/s: policed at the average.
        for r in 1..4 {
            lt.on_sample(&x(400 + 50 * r, 75_000, 21), MSS);
        }
        assert_eq!(
            lt.on_sample(&x(600, 122_500, 35), MSS),
            LtOutcome::StartedUsing
        );
        assert_eq!(lt.bw(), Some(1_950_000));
    }
}
