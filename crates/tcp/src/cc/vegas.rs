//! TCP Vegas (Brakmo, O'Malley, Peterson, SIGCOMM 1994; Brakmo & Peterson, IEEE JSAC 13(8),
//! 1995 "TCP Vegas: end to end congestion avoidance on a global Internet").
//!
//! Once per round trip Vegas compares the rate it expects, cwnd/BaseRTT, with the rate it
//! achieves, cwnd/RTT, and keeps the difference — the number of its own segments queued in
//! the network — between α and β:
//!
//! ```text
//! Diff = (cwnd/BaseRTT − cwnd/RTT)·BaseRTT      (segments)
//! Diff < α → cwnd += 1 MSS;   Diff > β → cwnd −= 1 MSS;   otherwise cwnd unchanged.
//! ```
//!
//! BaseRTT is the smallest RTT ever measured; RTT is the smallest sample of the round that
//! just ended (the minimum filters out delayed-ACK inflation, as Linux's Vegas does). In slow
//! start the window grows exponentially only every other round, so that the comparison is made
//! with a window that was constant for a whole RTT; slow start ends when Diff exceeds γ, with
//! the window cut to the target cwnd·BaseRTT/RTT + 1 MSS. Losses and timeouts are handled as
//! in Reno (RFC 5681).
//!
//! Rounds are delimited with the delivery-rate samples (a round ends when a segment sent after
//! the previous round's end is acknowledged, as in BBR); ACKs without a sample fall back to
//! one srtt of elapsed time.

use super::reno_common::RenoCore;
use super::{
    AckEvent, CcConfig, CcSnapshot, CongestionControl, CongestionEvent, CongestionKind, RtoEvent,
};
use celltcp_engine::{SimDuration, SimTime};

/// Lower bound on Diff, segments queued (Brakmo & Peterson 1995: α = 1..2; 2 here, as in
/// Linux's default).
pub const ALPHA: f64 = 2.0;
/// Upper bound on Diff, segments queued (β = 4 in Linux's default; the paper uses 3).
pub const BETA: f64 = 4.0;
/// Slow-start exit threshold on Diff, segments (γ = 1).
pub const GAMMA: f64 = 1.0;

/// Vegas congestion control; windows in bytes.
#[derive(Clone, Debug)]
pub struct Vegas {
    core: RenoCore,
    /// Smallest RTT measured on the connection.
    base_rtt: Option<SimDuration>,
    /// Smallest RTT sample of the current round.
    round_min_rtt: Option<SimDuration>,
    /// Bytes delivered on the connection (from rate samples).
    delivered: u64,
    /// A round ends when a segment sent after this many bytes were delivered is acknowledged.
    next_round_delivered: u64,
    /// Start of the current round, for ACKs without a rate sample.
    round_started_at: Option<SimTime>,
    /// Slow start grows in this round (it alternates with rounds at a fixed window).
    slow_start_growth_round: bool,
    /// Diff computed at the last round end, segments (for traces and tests).
    last_diff: Option<f64>,
}

impl Vegas {
    pub fn new(cfg: &CcConfig) -> Self {
        Vegas {
            core: RenoCore::new(cfg),
            base_rtt: None,
            round_min_rtt: None,
            delivered: 0,
            next_round_delivered: 0,
            round_started_at: None,
            slow_start_growth_round: true,
            last_diff: None,
        }
    }

    /// Diff at the last round end, segments.
    pub fn last_diff(&self) -> Option<f64> {
        self.last_diff
    }

    /// BaseRTT, if measured.
    pub fn base_rtt(&self) -> Option<SimDuration> {
        self.base_rtt
    }

    /// Whether this ACK ends the current round.
    fn round_ends(&mut self, ack: &AckEvent) -> bool {
        if let Some(rs) = ack.rate_sample.filter(|_| ack.acked_bytes > 0) {
            self.delivered = self
                .delivered
                .max(rs.prior_delivered.saturating_add(rs.delivered));
            if self.round_started_at.is_none() {
                // The first ACK opens the first round; nothing before it was a round.
                self.next_round_delivered = self.delivered;
                self.round_started_at = Some(ack.now);
                return false;
            }
            if rs.prior_delivered >= self.next_round_delivered {
                self.next_round_delivered = self.delivered;
                self.round_started_at = Some(ack.now);
                return true;
            }
            return false;
        }
        match self.round_started_at {
            None => {
                self.round_started_at = Some(ack.now);
                false
            }
            Some(start) if ack.srtt > SimDuration::ZERO => {
                if ack.now.saturating_since(start) >= ack.srtt {
                    self.round_started_at = Some(ack.now);
                    true
                } else {
                    false
                }
            }
            Some(_) => false,
        }
    }

    /// The once-per-RTT Vegas decision, at the end of a round whose minimum RTT was `rtt`.
    fn adjust(&mut self, rtt: SimDuration, base: SimDuration) {
        let mss = self.core.mss;
        let cwnd = self.core.cwnd as f64;
        let (rtt_s, base_s) = (rtt.as_secs_f64(), base.as_secs_f64());
        if rtt_s <= 0.0 {
            return;
        }
        // Diff = (Expected − Actual)·BaseRTT = cwnd·(1 − BaseRTT/RTT), in segments.
        let diff = cwnd * (1.0 - base_s / rtt_s) / mss as f64;
        self.last_diff = Some(diff);
        if self.core.in_slow_start() {
            if diff > GAMMA {
                // Leave slow start: the window that keeps the queue empty is cwnd·BaseRTT/RTT;
                // keep one segment more and make ssthresh lower than cwnd.
                let target = (cwnd * base_s / rtt_s) as u64;
                self.core.cwnd = self.core.cwnd.min(target.saturating_add(mss)).max(2 * mss);
                self.core.ssthresh = self
                    .core
                    .ssthresh
                    .min(self.core.cwnd.saturating_sub(mss))
                    .max(2 * mss);
                self.core.bytes_acked = 0;
            }
        } else if diff < ALPHA {
            self.core.cwnd = self.core.cwnd.saturating_add(mss);
        } else if diff > BETA {
            self.core.cwnd = self.core.cwnd.saturating_sub(mss).max(2 * mss);
        }
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }
    fn cwnd(&self) -> u64 {
        self.core.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.core.ssthresh
    }
    fn on_ack(&mut self, ack: &AckEvent) {
        let sample = ack.rtt_sample.filter(|r| *r > SimDuration::ZERO);
        if let Some(r) = sample {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
        }
        if self.round_ends(ack) {
            let round_rtt = self.round_min_rtt.take();
            if let (Some(rtt), Some(base)) = (round_rtt, self.base_rtt) {
                if !ack.in_recovery {
                    self.adjust(rtt, base);
                }
            }
            self.slow_start_growth_round = !self.slow_start_growth_round;
        }
        // The ACK that ends a round acknowledges a segment sent in the new one: its RTT
        // belongs to the new round.
        if let Some(r) = sample {
            self.round_min_rtt = Some(self.round_min_rtt.map_or(r, |m| m.min(r)));
        }
        if !RenoCore::ack_may_grow(ack) {
            return;
        }
        // Congestion avoidance moves only at round ends (above); slow start grows per ACK in
        // every other round.
        if self.core.in_slow_start() && self.slow_start_growth_round {
            let inc = self.core.slow_start_increase(ack.acked_bytes);
            self.core.grow_slow_start(ack.acked_bytes, inc);
        }
    }
    /// Reno's reduction: ssthresh = max(FlightSize/2, 2·MSS) with FlightSize at most cwnd
    /// ([`RenoCore::half_window`]), cwnd = ssthresh.
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        let ssthresh = self.core.half_window(ev.bytes_in_flight);
        self.core
            .reduce(ssthresh, ev.kind == CongestionKind::FastRetransmit);
    }
    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.core.exit_recovery();
    }
    /// Reno's timeout: ssthresh per RFC 5681 eq. 4, cwnd = 1 MSS, slow start again.
    fn on_rto(&mut self, ev: &RtoEvent) {
        let ssthresh = self.core.half_flight(ev.bytes_in_flight);
        self.core.on_rto(ev.consecutive, ssthresh);
        self.slow_start_growth_round = true;
    }
    fn snapshot(&self) -> CcSnapshot {
        self.core.snapshot(0)
    }
    fn restore(&mut self, snapshot: &CcSnapshot) {
        self.core.restore(snapshot);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{loss, run_trace};
    use crate::cc::RateSample;

    const MSS: u64 = 1_000;
    const BASE: SimDuration = SimDuration::from_ms(100);

    /// Drives rounds of `per_round` one-segment ACKs, each with RTT sample `rtt`.
    struct Rounds {
        now: SimTime,
        delivered: u64,
    }

    impl Rounds {
        fn new() -> Self {
            Rounds {
                now: SimTime::ZERO,
                delivered: 0,
            }
        }
        fn round(&mut self, v: &mut Vegas, per_round: u64, rtt: SimDuration) {
            let round_start = self.delivered;
            for _ in 0..per_round {
                self.now += SimDuration::from_ms(1);
                self.delivered += MSS;
                let ev = AckEvent {
                    now: self.now,
                    acked_bytes: MSS,
                    duplicate: false,
                    snd_una_advanced: true,
                    rtt_sample: Some(rtt),
                    ca_rtt: Some(rtt),
                    srtt: rtt,
                    min_rtt: BASE,
                    prior_in_flight: v.cwnd(),
                    bytes_in_flight: v.cwnd() - MSS,
                    in_recovery: false,
                    rate_sample: Some(RateSample {
                        delivery_rate_bps: 1_000_000,
                        interval: rtt,
                        delivered: self.delivered - round_start,
                        prior_delivered: round_start,
                        is_app_limited: false,
                    }),
                    app_limited: false,
                    ..AckEvent::default()
                };
                v.on_ack(&ev);
            }
        }
    }

    /// A Vegas in congestion avoidance at `segments` with BaseRTT known, and its first round
    /// (at `rtt`) under way: each later `round` call ends the previous round at its first ACK.
    fn in_ca(segments: u64, rtt: SimDuration) -> (Vegas, Rounds) {
        let mut v = Vegas::new(&CcConfig {
            mss: MSS as u32,
            ..CcConfig::default()
        });
        v.core.cwnd = segments * MSS;
        v.core.ssthresh = 2 * MSS;
        v.base_rtt = Some(BASE);
        let mut r = Rounds::new();
        r.round(&mut v, segments, rtt);
        assert_eq!(v.cwnd(), segments * MSS);
        (v, r)
    }

    #[test]
    fn diff_below_alpha_adds_one_segment_per_round() {
        let (mut v, mut r) = in_ca(20, BASE);
        for k in 1..=3 {
            r.round(&mut v, 20, BASE);
            // Each round end at RTT = BaseRTT: Diff = 0 < α.
            assert_eq!(v.cwnd(), (20 + k) * MSS);
            assert_eq!(v.last_diff(), Some(0.0));
        }
    }

    #[test]
    fn diff_between_alpha_and_beta_holds_the_window() {
        // RTT = BaseRTT·20/17: Diff = 20·(1 − 17/20) = 3 segments, between α = 2 and β = 4.
        let rtt = SimDuration::from_ns(BASE.as_ns() * 20 / 17);
        let (mut v, mut r) = in_ca(20, rtt);
        for _ in 0..5 {
            r.round(&mut v, 20, rtt);
            assert_eq!(v.cwnd(), 20 * MSS);
        }
        let d = v.last_diff().unwrap();
        assert!((d - 3.0).abs() < 1e-6, "{d}");
    }

    #[test]
    fn diff_above_beta_removes_one_segment_per_round() {
        // RTT = 1.5·BaseRTT: Diff = 20/3 = 6.67 > β.
        let rtt = SimDuration::from_ms(150);
        let (mut v, mut r) = in_ca(20, rtt);
        r.round(&mut v, 20, rtt);
        assert_eq!(v.cwnd(), 19 * MSS);
        r.round(&mut v, 19, rtt);
        assert_eq!(v.cwnd(), 18 * MSS);
    }

    #[test]
    fn slow_start_grows_every_other_round_and_exits_on_gamma() {
        let mut v = Vegas::new(&CcConfig {
            mss: MSS as u32,
            abc_limit: 0,
            ..CcConfig::default()
        });
        let mut r = Rounds::new();
        // Round 1 (opened by the first ACK) grows: 10 ACKs double the window.
        r.round(&mut v, 10, BASE);
        assert_eq!(v.cwnd(), 20 * MSS);
        // Round 2 keeps the window fixed so that it can be measured.
        r.round(&mut v, 20, BASE);
        assert_eq!(v.cwnd(), 20 * MSS);
        assert_eq!(v.last_diff(), Some(0.0));
        // Round 3 grows again.
        r.round(&mut v, 20, BASE);
        assert_eq!(v.cwnd(), 40 * MSS);
        // Round 4 sees a queue: RTT = 1.25·BaseRTT. At its end Diff = 40·(1 − 0.8) = 8 > γ:
        // the window becomes the target 40·0.8 = 32 segments + 1 and slow start ends.
        r.round(&mut v, 40, SimDuration::from_ms(125));
        assert_eq!(v.cwnd(), 40 * MSS);
        r.round(&mut v, 1, SimDuration::from_ms(125));
        let d = v.last_diff().unwrap();
        assert!((d - 8.0).abs() < 1e-9, "{d}");
        assert_eq!((v.cwnd(), v.ssthresh()), (33_000, 32_000));
    }

    #[test]
    fn loss_is_reno() {
        let (mut v, _) = in_ca(20, BASE);
        v.on_congestion_event(&loss(SimTime::ZERO, 20 * MSS, BASE, BASE));
        assert_eq!((v.cwnd(), v.ssthresh()), (10_000, 10_000));
    }

    /// Pins Vegas's reaction to the scripted trace. Rounds end every 20 ACKs (slots 20, 40,
    /// ...); the trace's RTT never exceeds BaseRTT, so Diff stays 0. Slow start grows one MSS
    /// per ACK only in every other round: slots 0–19 (to 30 segments) and 40–59 (40 segments
    /// = 57_920 at slot 49), 80–97 (68 segments = 98_464 at slot 99). The loss halves
    /// FlightSize (49_232); congestion avoidance adds one MSS at the round ends of slots 120
    /// and 140 (52_128). The RTO halves again (26_064) and slow start reaches ssthresh.
    #[test]
    fn scripted_trace_snapshot() {
        let got = run_trace(&mut Vegas::new(&CcConfig::default()));
        let expected = vec![
            (49, 57_920, u64::MAX),
            (99, 98_464, u64::MAX),
            (100, 49_232, 49_232),
            (109, 49_232, 49_232),
            (110, 49_232, 49_232),
            (149, 52_128, 49_232),
            (150, 1_448, 26_064),
            (160, 2_896, 26_064),
            (199, 26_064, 26_064),
        ];
        assert_eq!(got, expected);
    }
}
