//! Leaving slow start before the first loss: HyStart as Linux's `tcp_cubic.c` runs it, and
//! HyStart++ (RFC 9406).
//!
//! Slow start doubles the window every round trip until a loss; on a path whose buffer holds
//! about a bandwidth-delay product, the round that overflows it loses up to half a window at
//! once. Both detectors end slow start earlier, from the RTT samples of the ACKs, by setting
//! ssthresh to the current window (the caller does that when [`Hystart::on_ack`] says so).
//!
//! * [`HystartKind::Linux`] — Ha & Rhee's HyStart as `tcp_cubic.c` (`hystart_update`) runs it,
//!   both detectors on (`hystart_detect = 3`), only once cwnd ≥ `hystart_low_window` = 16
//!   segments:
//!   - *ACK train*: ACKs that follow each other within `hystart_ack_delta_us` = 2 ms form a
//!     train from the start of the round; when the train has lasted more than half of
//!     (delay_min + `hystart_ack_delay`) the window is a BDP (the ACKs of one window take a
//!     round trip's worth of time to come back). `hystart_ack_delay` is a cushion for
//!     TSO/GRO aggregation, min(1 ms, 4·GSO_MAX_SIZE / pacing rate), with Linux's pacing rate in
//!     slow start of 2·cwnd/srtt; the halving applies to a socket that is not paced
//!     (`sk_pacing_status == SK_PACING_NONE`: CUBIC without the `fq` queueing discipline), the
//!     default here; [`Hystart::paced`] drops it, as Linux does for a paced socket (the
//!     kernel's CUBIC in docs/validation.md's suite is one: BBR, the host's default,
//!     initialised it);
//!   - *delay increase*: after `HYSTART_MIN_SAMPLES` = 8 RTT samples in the round, if the
//!     smallest of the round's samples exceeds delay_min + clamp(delay_min/8, 4 ms, 16 ms).
//!
//!   delay_min is the smallest RTT sample since the connection began or the last timeout;
//!   once slow start has been ended (`found`), the detector stays off until a timeout (Linux's
//!   `bictcp_reset` and `bictcp_hystart_reset` on entering the Loss state).
//! * [`HystartKind::Rfc9406`] — HyStart++: the delay-increase test only, between the minimum
//!   RTTs of the last and the current round (N_RTT_SAMPLE = 8 samples, RttThresh =
//!   clamp(lastRoundMinRTT/8, 4 ms, 16 ms)); instead of ending slow start at once it enters
//!   Conservative Slow Start (CSS), growing by a quarter (CSS_GROWTH_DIVISOR = 4) of slow
//!   start's increase for CSS_ROUNDS = 5 rounds, after which ssthresh = cwnd; CSS returns to slow
//!   start if a round's minimum RTT drops below the one that started it (§4.2: the increase
//!   was spurious). As §4.2 recommends, it runs only in the initial slow start (while ssthresh
//!   is still at its initial value); a congestion event or a timeout ends it for good.
//!
//! Rounds are counted as BBR counts them (draft-cheng-iccrg-delivery-rate-estimation): a round
//! ends when a packet sent after the previous round ended is acknowledged, i.e. when a rate
//! sample's `prior_delivered` reaches the delivered count at the round's start. ACKs without a
//! rate sample leave the round as it is.

use super::AckEvent;
use celltcp_engine::{SimDuration, SimTime};

/// `tcp_cubic.c` `hystart_low_window`: HyStart acts only from this window, segments.
pub const LINUX_LOW_WINDOW_SEGMENTS: u64 = 16;
/// `tcp_cubic.c` `hystart_ack_delta_us`: largest gap between two ACKs of a train.
pub const LINUX_ACK_DELTA: SimDuration = SimDuration::from_ms(2);
/// `tcp_cubic.c` `HYSTART_MIN_SAMPLES`: RTT samples of a round before the delay test.
pub const LINUX_MIN_SAMPLES: u32 = 8;
/// `tcp_cubic.c` `HYSTART_DELAY_MIN` / `HYSTART_DELAY_MAX`: bounds of the delay threshold
/// delay_min/8. RFC 9406 §4.3 MIN_RTT_THRESH / MAX_RTT_THRESH have the same values.
pub const DELAY_THRESH_MIN: SimDuration = SimDuration::from_ms(4);
pub const DELAY_THRESH_MAX: SimDuration = SimDuration::from_ms(16);
/// `tcp_cubic.c` `hystart_ack_delay`: GSO_MAX_SIZE, bytes, times 4, over the pacing rate,
/// at most 1 ms.
const LINUX_GSO_MAX_SIZE: u64 = 65_536;
const LINUX_ACK_DELAY_MAX: SimDuration = SimDuration::from_ms(1);
/// RFC 9406 §4.3: N_RTT_SAMPLE, MIN_RTT_DIVISOR, CSS_GROWTH_DIVISOR, CSS_ROUNDS.
pub const N_RTT_SAMPLE: u32 = 8;
pub const MIN_RTT_DIVISOR: u64 = 8;
pub const CSS_GROWTH_DIVISOR: u64 = 4;
pub const CSS_ROUNDS: u32 = 5;

/// Which slow-start exit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HystartKind {
    /// `tcp_cubic.c`'s HyStart: ACK train and delay increase.
    Linux,
    /// RFC 9406 HyStart++: delay increase, then Conservative Slow Start.
    Rfc9406,
}

/// What the caller does with this ACK's slow-start growth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowStartAction {
    /// Ordinary slow start.
    Grow,
    /// Conservative Slow Start: grow by 1/[`CSS_GROWTH_DIVISOR`] of slow start's increase.
    GrowConservatively,
    /// Slow start is over: set ssthresh = cwnd (before this ACK's growth) and continue in
    /// congestion avoidance.
    Exit,
}

/// The state of one detector.
#[derive(Clone, Debug, PartialEq)]
pub struct Hystart {
    kind: HystartKind,
    /// Linux: the socket counts as paced, so the ACK train is not halved.
    paced: bool,
    /// Off for good (HyStart++ after its initial slow start).
    done: bool,
    /// Linux's `found`: slow start has been ended; no detection until a timeout.
    found: bool,
    // Rounds.
    delivered: u64,
    next_round_delivered: u64,
    round_start: SimTime,
    // Linux.
    last_ack: SimTime,
    delay_min: Option<SimDuration>,
    curr_rtt: Option<SimDuration>,
    sample_cnt: u32,
    // RFC 9406.
    last_round_min_rtt: Option<SimDuration>,
    css_baseline_min_rtt: Option<SimDuration>,
    css_rounds: u32,
}

impl Hystart {
    pub fn new(kind: HystartKind) -> Self {
        Hystart {
            kind,
            paced: false,
            done: false,
            found: false,
            delivered: 0,
            next_round_delivered: 0,
            round_start: SimTime::ZERO,
            last_ack: SimTime::ZERO,
            delay_min: None,
            curr_rtt: None,
            sample_cnt: 0,
            last_round_min_rtt: None,
            css_baseline_min_rtt: None,
            css_rounds: 0,
        }
    }

    /// Linux's detector as for a paced socket (`CcConfig::hystart_paced`): the ACK train must
    /// last delay_min + `hystart_ack_delay`, not half of it.
    pub fn paced(mut self, paced: bool) -> Self {
        self.paced = paced;
        self
    }

    pub fn kind(&self) -> HystartKind {
        self.kind
    }

    /// In Conservative Slow Start (HyStart++).
    pub fn in_css(&self) -> bool {
        self.css_baseline_min_rtt.is_some()
    }

    /// Whether the detector ended slow start and has not been re-armed since.
    pub fn found(&self) -> bool {
        self.found
    }

    /// Linux's `hystart_ack_delay` for a window of `cwnd` bytes and the smoothed RTT `srtt`:
    /// min(1 ms, 4·GSO_MAX_SIZE / rate) with the slow-start pacing rate 2·cwnd/srtt.
    pub fn linux_ack_delay(cwnd: u64, srtt: SimDuration) -> SimDuration {
        if cwnd == 0 || srtt == SimDuration::ZERO {
            return SimDuration::ZERO;
        }
        // 4·GSO / (2·cwnd/srtt) = 2·GSO·srtt/cwnd.
        let ns = u128::from(2 * LINUX_GSO_MAX_SIZE) * u128::from(srtt.as_ns()) / u128::from(cwnd);
        SimDuration::from_ns(u64::try_from(ns).unwrap_or(u64::MAX)).min(LINUX_ACK_DELAY_MAX)
    }

    /// Starts a round at `now` (Linux's `bictcp_hystart_reset`; RFC 9406's round end).
    fn start_round(&mut self, now: SimTime) {
        self.round_start = now;
        self.last_ack = now;
        self.last_round_min_rtt = self.curr_rtt.or(self.last_round_min_rtt);
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }

    /// Advances the round count from the ACK's rate sample; true when a round ended.
    fn update_round(&mut self, ack: &AckEvent) -> bool {
        let Some(rs) = ack.rate_sample.filter(|_| ack.acked_bytes > 0) else {
            return false;
        };
        self.delivered = self
            .delivered
            .max(rs.prior_delivered.saturating_add(rs.delivered));
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = self.delivered;
            return true;
        }
        false
    }

    /// One ACK in slow start (cwnd < ssthresh), before its growth is applied: `cwnd` and `mss`
    /// in bytes; `initial_slow_start` is true while ssthresh still has its initial value.
    /// Call order: the controller calls this for every ACK that may grow the window while in
    /// slow start, and applies the returned action to that ACK's growth.
    pub fn on_ack(
        &mut self,
        ack: &AckEvent,
        cwnd: u64,
        mss: u64,
        initial_slow_start: bool,
    ) -> SlowStartAction {
        let round_ended = self.update_round(ack);
        // Linux's `cubictcp_acked` takes `ca_rtt_us`, the exact RTT of the newest segment
        // acknowledged, and ignores an ACK without one.
        let rtt = ack.ca_rtt.filter(|r| *r > SimDuration::ZERO);
        match self.kind {
            HystartKind::Linux => self.linux(ack, rtt, round_ended, cwnd, mss),
            HystartKind::Rfc9406 => self.rfc9406(ack.now, rtt, round_ended, initial_slow_start),
        }
    }

    /// `tcp_cubic.c` `cubictcp_acked` + `hystart_update`.
    fn linux(
        &mut self,
        ack: &AckEvent,
        rtt: Option<SimDuration>,
        round_ended: bool,
        cwnd: u64,
        mss: u64,
    ) -> SlowStartAction {
        if round_ended {
            self.start_round(ack.now);
        }
        let Some(delay) = rtt else {
            return SlowStartAction::Grow;
        };
        let delay_min = self.delay_min.map_or(delay, |d| d.min(delay));
        self.delay_min = Some(delay_min);
        if self.found || cwnd < LINUX_LOW_WINDOW_SEGMENTS * mss.max(1) {
            return SlowStartAction::Grow;
        }
        // ACK train.
        if ack.now.saturating_since(self.last_ack) <= LINUX_ACK_DELTA {
            self.last_ack = ack.now;
            // `hystart_update`: "threshold >>= 1" only for a socket that is not paced.
            let train = delay_min + Self::linux_ack_delay(cwnd, ack.srtt);
            let threshold = if self.paced {
                train
            } else {
                SimDuration::from_ns(train.as_ns() / 2)
            };
            if ack.now.saturating_since(self.round_start) > threshold {
                self.found = true;
                return SlowStartAction::Exit;
            }
        }
        // Delay increase.
        let curr = self.curr_rtt.map_or(delay, |c| c.min(delay));
        self.curr_rtt = Some(curr);
        if self.sample_cnt < LINUX_MIN_SAMPLES {
            self.sample_cnt += 1;
        } else {
            let thresh = SimDuration::from_ns(delay_min.as_ns() / 8)
                .clamp(DELAY_THRESH_MIN, DELAY_THRESH_MAX);
            if curr > delay_min + thresh {
                self.found = true;
                return SlowStartAction::Exit;
            }
        }
        SlowStartAction::Grow
    }

    /// RFC 9406 §4.2.
    fn rfc9406(
        &mut self,
        now: SimTime,
        rtt: Option<SimDuration>,
        round_ended: bool,
        initial_slow_start: bool,
    ) -> SlowStartAction {
        if self.done || !initial_slow_start {
            self.done = true;
            return SlowStartAction::Grow;
        }
        if round_ended {
            // "lastRoundMinRTT = currentRoundMinRTT; currentRoundMinRTT = infinity;
            // rttSampleCount = 0".
            self.start_round(now);
            if self.in_css() {
                self.css_rounds += 1;
                if self.css_rounds >= CSS_ROUNDS {
                    // "If CSS_ROUNDS rounds are complete, enter congestion avoidance by
                    // setting the ssthresh to the current cwnd."
                    self.done = true;
                    self.css_baseline_min_rtt = None;
                    return SlowStartAction::Exit;
                }
            }
        }
        if let Some(r) = rtt {
            self.curr_rtt = Some(self.curr_rtt.map_or(r, |c| c.min(r)));
            self.sample_cnt = self.sample_cnt.saturating_add(1);
        }
        if self.sample_cnt >= N_RTT_SAMPLE {
            if let (Some(curr), Some(last)) = (self.curr_rtt, self.last_round_min_rtt) {
                match self.css_baseline_min_rtt {
                    None => {
                        let thresh = SimDuration::from_ns(last.as_ns() / MIN_RTT_DIVISOR)
                            .clamp(DELAY_THRESH_MIN, DELAY_THRESH_MAX);
                        if curr >= last + thresh {
                            self.css_baseline_min_rtt = Some(curr);
                            self.css_rounds = 0;
                        }
                    }
                    Some(baseline) if curr < baseline => {
                        // "the slow start exit point was spurious": back to slow start.
                        self.css_baseline_min_rtt = None;
                        self.css_rounds = 0;
                    }
                    Some(_) => {}
                }
            }
        }
        if self.in_css() {
            SlowStartAction::GrowConservatively
        } else {
            SlowStartAction::Grow
        }
    }

    /// A congestion event (fast retransmit or ECE): slow start is over. HyStart++ is done for
    /// good (§4.2: "a loss or ECN-marking ... exit CSS/slow start and enter congestion
    /// avoidance"; it runs only in the initial slow start); Linux's detector keeps `found` as
    /// it is (its state is reset only on a timeout).
    pub fn on_congestion(&mut self) {
        if self.kind == HystartKind::Rfc9406 {
            self.done = true;
            self.css_baseline_min_rtt = None;
        }
    }

    /// A timeout. Linux re-arms HyStart for the slow start that follows, with a fresh
    /// delay_min (`cubictcp_state(TCP_CA_Loss)`: `bictcp_reset`, `bictcp_hystart_reset`);
    /// HyStart++ stays off (§4.2: only the initial slow start).
    pub fn on_rto(&mut self, now: SimTime) {
        match self.kind {
            HystartKind::Linux => {
                self.found = false;
                self.delay_min = None;
                self.start_round(now);
                // The next ACK carrying a rate sample starts a round.
                self.next_round_delivered = self.delivered;
            }
            HystartKind::Rfc9406 => {
                self.done = true;
                self.css_baseline_min_rtt = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{CcConfig, CongestionControl, Cubic, CubicReading, RateSample};

    const MSS: u64 = 1_448;

    /// ACKs of one segment each, `gap` apart, in rounds: round r has `rounds[r].0` ACKs with
    /// an RTT sample of `rounds[r].1` ms; every ACK of round r acknowledges data sent when the
    /// previous round had just been delivered (so the first ACK of each round starts it).
    fn acks(rounds: &[(u64, u64)], gap: SimDuration) -> Vec<AckEvent> {
        let mut out = Vec::new();
        let (mut delivered, mut now) = (0u64, SimTime::from_ns(1_000_000_000));
        for &(n, rtt_ms) in rounds {
            let prior = delivered;
            for _ in 0..n {
                delivered += MSS;
                let rtt = SimDuration::from_ms(rtt_ms);
                out.push(AckEvent {
                    now,
                    acked_bytes: MSS,
                    duplicate: false,
                    snd_una_advanced: true,
                    rtt_sample: Some(rtt),
                    ca_rtt: Some(rtt),
                    srtt: rtt,
                    min_rtt: rtt,
                    prior_in_flight: 0,
                    bytes_in_flight: 0,
                    in_recovery: false,
                    rate_sample: Some(RateSample {
                        delivery_rate_bps: 10_000_000,
                        interval: rtt,
                        delivered: delivered - prior,
                        prior_delivered: prior,
                        is_app_limited: false,
                    }),
                    app_limited: false,
                    ..AckEvent::default()
                });
                now += gap;
            }
        }
        out
    }

    /// Feeds `acks` to a detector with a fixed window of `cwnd_segments`; the index of the ACK
    /// that ended slow start, and every action.
    fn run(
        kind: HystartKind,
        cwnd_segments: u64,
        acks: &[AckEvent],
    ) -> (Option<usize>, Vec<SlowStartAction>) {
        let mut h = Hystart::new(kind);
        let actions: Vec<_> = acks
            .iter()
            .map(|a| h.on_ack(a, cwnd_segments * MSS, MSS, true))
            .collect();
        (
            actions.iter().position(|a| *a == SlowStartAction::Exit),
            actions,
        )
    }

    const SPACED: SimDuration = SimDuration::from_ms(3);

    #[test]
    fn linux_delay_increase_ends_slow_start_after_eight_samples() {
        // delay_min = 20 ms: threshold 20 + clamp(2.5 ms, 4, 16) = 24 ms. ACKs 3 ms apart form
        // no train. The round at 25 ms exits on its ninth sample (the eighth fills the count).
        let (exit, _) = run(HystartKind::Linux, 20, &acks(&[(20, 20), (20, 25)], SPACED));
        assert_eq!(exit, Some(20 + 8));
        // At 24 ms (not above the threshold) nothing happens.
        let (exit, _) = run(HystartKind::Linux, 20, &acks(&[(20, 20), (20, 24)], SPACED));
        assert_eq!(exit, None);
        // Below hystart_low_window = 16 segments HyStart does nothing.
        let (exit, _) = run(HystartKind::Linux, 15, &acks(&[(20, 20), (20, 40)], SPACED));
        assert_eq!(exit, None);
    }

    #[test]
    fn linux_delay_threshold_is_clamped_to_16_ms() {
        // delay_min = 200 ms: 200/8 = 25 ms, clamped to 16 ms.
        let (exit, _) = run(
            HystartKind::Linux,
            20,
            &acks(&[(20, 200), (20, 217)], SPACED),
        );
        assert_eq!(exit, Some(28));
        let (exit, _) = run(
            HystartKind::Linux,
            20,
            &acks(&[(20, 200), (20, 216)], SPACED),
        );
        assert_eq!(exit, None);
    }

    #[test]
    fn linux_ack_train_ends_slow_start_at_half_the_min_rtt() {
        // ACKs 1 ms apart at a constant 20 ms RTT: the train passes (20 + 1)/2 = 10.5 ms (the
        // ack-delay cushion is 1 ms at this rate) on the ACK 11 ms after the round began.
        assert_eq!(
            Hystart::linux_ack_delay(20 * MSS, SimDuration::from_ms(20)),
            SimDuration::from_ms(1)
        );
        let one = SimDuration::from_ms(1);
        let (exit, _) = run(HystartKind::Linux, 20, &acks(&[(30, 20)], one));
        assert_eq!(exit, Some(11));
        // A paced socket (`hystart_paced`) waits for the whole delay_min + cushion, 21 ms.
        let mut h = Hystart::new(HystartKind::Linux).paced(true);
        let exit = acks(&[(30, 20)], one)
            .iter()
            .position(|a| h.on_ack(a, 20 * MSS, MSS, true) == SlowStartAction::Exit);
        assert_eq!(exit, Some(22));
        // A gap above 2 ms breaks the train for the rest of the round.
        let (exit, _) = run(HystartKind::Linux, 20, &acks(&[(30, 20)], SPACED));
        assert_eq!(exit, None);
        // RFC 9406 has no ACK-train test.
        let (exit, _) = run(HystartKind::Rfc9406, 20, &acks(&[(30, 20)], one));
        assert_eq!(exit, None);
    }

    #[test]
    fn rfc9406_enters_css_then_congestion_avoidance_after_five_rounds() {
        // Round 0 at 20 ms; round 1 at 25 ms ≥ 20 + 4: CSS from its eighth sample; five more
        // round ends and CSS is over.
        let (exit, actions) = run(
            HystartKind::Rfc9406,
            20,
            &acks(
                &[
                    (10, 20),
                    (10, 25),
                    (10, 25),
                    (10, 25),
                    (10, 25),
                    (10, 25),
                    (10, 25),
                ],
                SPACED,
            ),
        );
        assert!(
            actions[..17].iter().all(|a| *a == SlowStartAction::Grow),
            "{actions:?}"
        );
        assert!(actions[17..60]
            .iter()
            .all(|a| *a == SlowStartAction::GrowConservatively));
        assert_eq!(exit, Some(60));
        // 24 ms < 20 + 4: no CSS.
        let (_, actions) = run(
            HystartKind::Rfc9406,
            20,
            &acks(&[(10, 20), (10, 23)], SPACED),
        );
        assert!(actions.iter().all(|a| *a == SlowStartAction::Grow));
    }

    #[test]
    fn rfc9406_returns_to_slow_start_when_the_rtt_falls_back() {
        // CSS entered at 25 ms; the next round's minimum, 21 ms, is below that baseline.
        let (exit, actions) = run(
            HystartKind::Rfc9406,
            20,
            &acks(&[(10, 20), (10, 25), (10, 21)], SPACED),
        );
        assert_eq!(exit, None);
        assert_eq!(actions[19], SlowStartAction::GrowConservatively);
        assert_eq!(actions[27], SlowStartAction::Grow);
    }

    #[test]
    fn rfc9406_runs_only_in_the_initial_slow_start() {
        let mut h = Hystart::new(HystartKind::Rfc9406);
        let a = acks(&[(10, 20), (10, 30)], SPACED);
        assert!(a
            .iter()
            .all(|a| h.on_ack(a, 20 * MSS, MSS, false) == SlowStartAction::Grow));
    }

    /// A window-limited sender over a path of one segment per millisecond and a 20 ms base RTT:
    /// each ACK's RTT grows by the queue the window builds (one ms per segment beyond the BDP
    /// of 20 segments). Returns ssthresh (segments) after `ms` milliseconds, or None while it
    /// is still the initial one.
    fn queue_building(cc: &mut Cubic, ms: u64) -> Option<u64> {
        let mut delivered = 0u64;
        // prior_delivered of the segments sent in the current round.
        let (mut round_prior, mut round_end) = (0u64, 0u64);
        for i in 0..ms {
            let queue = (cc.cwnd() / MSS).saturating_sub(20);
            let rtt = SimDuration::from_ms(20 + queue);
            if delivered >= round_end {
                round_prior = delivered;
                round_end = delivered + cc.cwnd();
            }
            delivered += MSS;
            let ev = AckEvent {
                now: SimTime::from_ns(1_000_000_000 + i * 1_000_000),
                acked_bytes: MSS,
                duplicate: false,
                snd_una_advanced: true,
                rtt_sample: Some(rtt),
                ca_rtt: Some(rtt),
                srtt: rtt,
                min_rtt: SimDuration::from_ms(20),
                prior_in_flight: cc.cwnd(),
                bytes_in_flight: cc.cwnd() - MSS,
                in_recovery: false,
                rate_sample: Some(RateSample {
                    delivery_rate_bps: 11_584_000,
                    interval: rtt,
                    delivered: delivered - round_prior,
                    prior_delivered: round_prior,
                    is_app_limited: false,
                }),
                app_limited: false,
                ..AckEvent::default()
            };
            cc.on_ack(&ev);
        }
        (cc.ssthresh() != u64::MAX).then(|| cc.ssthresh() / MSS)
    }

    #[test]
    fn cubic_leaves_slow_start_before_a_loss_only_with_hystart() {
        for reading in [CubicReading::Linux, CubicReading::Rfc9438] {
            let cfg = |hystart| CcConfig {
                hystart,
                ..CcConfig::default()
            };
            let mut on = Cubic::with_reading(&cfg(None), reading);
            let mut off = Cubic::with_reading(&cfg(Some(false)), reading);
            assert!(on.hystart().is_some() && off.hystart().is_none());
            // 1 s: without HyStart the window has grown far past the 20-segment BDP.
            let exit = queue_building(&mut on, 1_000);
            assert_eq!(queue_building(&mut off, 1_000), None, "{reading:?}");
            assert!(off.cwnd() / MSS > 100, "{reading:?}: {}", off.cwnd());
            let exit = exit.unwrap_or_else(|| panic!("{reading:?}: no exit"));
            // Linux's ACK train ends slow start at once, about a BDP and a queue of a few
            // segments (31 segments here); HyStart++ enters CSS at a similar window and grows
            // by a quarter per round for five rounds, ×1.25⁵ ≈ 3 (135 here), against the
            // 1010 segments of plain slow start.
            let limit = match reading {
                CubicReading::Linux => 20..=60,
                CubicReading::Rfc9438 => 60..=200,
            };
            assert!(
                limit.contains(&exit),
                "{reading:?}: ssthresh {exit} segments"
            );
            assert!(on.cwnd() < off.cwnd() / 2, "{reading:?}");
        }
    }

    #[test]
    fn a_timeout_rearms_linux_hystart_but_ends_hystart_plus_plus() {
        let mut linux = Hystart::new(HystartKind::Linux);
        let one = SimDuration::from_ms(1);
        let a = acks(&[(30, 20)], one);
        assert!(a
            .iter()
            .any(|a| linux.on_ack(a, 20 * MSS, MSS, true) == SlowStartAction::Exit));
        assert!(linux.found());
        linux.on_rto(a[29].now);
        assert!(!linux.found());
        let mut hpp = Hystart::new(HystartKind::Rfc9406);
        hpp.on_rto(SimTime::ZERO);
        let a = acks(&[(10, 20), (10, 40)], SPACED);
        assert!(a
            .iter()
            .all(|a| hpp.on_ack(a, 20 * MSS, MSS, true) == SlowStartAction::Grow));
    }
}
