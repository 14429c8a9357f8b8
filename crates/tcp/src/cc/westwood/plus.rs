//! TCP Westwood+ (Mascolo, Casetti, Gerla, Sanadidi, Wang 2001 "TCP Westwood: bandwidth
//! estimation for enhanced transport over wireless links"; Grieco & Mascolo 2004 "Performance
//! evaluation and comparison of Westwood+, New Reno, and Vegas TCP congestion control"),
//! registered as `westwood`: the body of the family ([`super::Westwood`]) with the per-RTT
//! estimator below, NewReno's recovery and RFC 5681's ssthresh held on a repeated timeout.
//!
//! Bandwidth estimation as implemented here:
//! * every ACK is credited with the bytes it acknowledges; a duplicate ACK (no new data, no new
//!   SACK information) is credited with one MSS, because it reports a segment that left the
//!   network, and the later cumulative ACK is debited by what was credited in advance (the
//!   "AckedCount" procedure of Mascolo et al. 2001, in bytes: [`AckedCount`]);
//! * the credited bytes d_k are summed over an interval Δ_k of one smoothed RTT (Westwood+
//!   samples once per RTT rather than per ACK, which removes the aliasing that ACK compression
//!   causes), giving the sample b_k = d_k / Δ_k;
//! * the samples are smoothed by the discrete low-pass filter BWE_k = 7/8·BWE_{k−1} + 1/8·b_k
//!   (an EWMA with gain 1/8 per RTT, i.e. a time constant of about 8 RTTs); the first sample
//!   initialises the filter, so that a loss in the first RTTs does not see an estimate still
//!   rising from zero.

use super::{AckedCount, BandwidthEstimate, PipeRounding, RepeatedRto, Westwood, WestwoodRules};
use crate::cc::reno::RenoRecovery;
use crate::cc::{AckEvent, CcConfig};
use celltcp_engine::{SimDuration, SimTime};

/// Weight of the previous estimate in the low-pass filter BWE ← 7/8·BWE + 1/8·sample.
pub const BWE_FILTER_GAIN: f64 = 7.0 / 8.0;

/// Shortest sampling interval. An interval is one smoothed RTT, but on sub-10 ms paths an RTT
/// spans only a few ACKs and samples would mostly measure ACK spacing; Linux's Westwood+
/// uses a 50 ms floor for the same reason, a cellular path never has an RTT this short.
pub const MIN_SAMPLE_INTERVAL: SimDuration = SimDuration::from_ms(10);

/// Westwood+'s rules: without SACK, NewReno's fast recovery (the endpoint's default, RFC 6582);
/// at a repeated timeout ssthresh is held as in RFC 5681 §3.1.
pub const RULES: WestwoodRules = WestwoodRules {
    name: "westwood",
    recovery: RenoRecovery::NewReno,
    repeated_rto: RepeatedRto::HoldsSsthresh,
};

/// Westwood+ congestion control; windows in bytes.
pub type WestwoodPlus = Westwood<BandwidthEstimator>;

impl WestwoodPlus {
    pub fn new(cfg: &CcConfig) -> Self {
        Self::with_estimator(cfg, RULES, BandwidthEstimator::new)
    }
}

/// The Westwood+ bandwidth estimator (shared with PETRA).
#[derive(Clone, Debug, PartialEq)]
pub struct BandwidthEstimator {
    /// Filtered estimate BWE, bytes per second; meaningful once `samples > 0`.
    bwe_bytes_per_sec: f64,
    /// The last raw sample b_k, bytes per second.
    last_sample: f64,
    /// Samples taken so far.
    samples: u64,
    /// Start of the current sampling interval (the arrival of the ACK that closed the last).
    interval_start: Option<SimTime>,
    /// Bytes credited since `interval_start` (d_k).
    credited: u64,
    /// What each ACK is credited with.
    acked_count: AckedCount,
}

impl BandwidthEstimator {
    pub fn new(mss: u64) -> Self {
        BandwidthEstimator {
            bwe_bytes_per_sec: 0.0,
            last_sample: 0.0,
            samples: 0,
            interval_start: None,
            credited: 0,
            acked_count: AckedCount::new(mss),
        }
    }

    /// The last raw sample b_k in bytes per second, `None` before the first sample.
    pub fn last_sample(&self) -> Option<f64> {
        (self.samples > 0).then_some(self.last_sample)
    }
}

impl BandwidthEstimate for BandwidthEstimator {
    const PIPE_ROUNDING: PipeRounding = PipeRounding::Nearest;

    /// Feeds one ACK. Returns the raw sample b_k (bytes per second) when this ACK closed a
    /// sampling interval and the filter was updated.
    ///
    /// The first ACK only opens the first interval (its bytes were delivered before it); no
    /// interval closes before the first RTT measurement, since its length is one srtt.
    fn on_ack(&mut self, ack: &AckEvent) -> Option<f64> {
        let credited = self.acked_count.credit(ack);
        let Some(start) = self.interval_start else {
            self.interval_start = Some(ack.now);
            return None;
        };
        self.credited = self.credited.saturating_add(credited);
        if ack.srtt == SimDuration::ZERO {
            return None;
        }
        let elapsed = ack.now.saturating_since(start);
        if elapsed < ack.srtt.max(MIN_SAMPLE_INTERVAL) {
            return None;
        }
        let sample = self.credited as f64 / elapsed.as_secs_f64();
        self.bwe_bytes_per_sec = if self.samples == 0 {
            sample
        } else {
            BWE_FILTER_GAIN * self.bwe_bytes_per_sec + (1.0 - BWE_FILTER_GAIN) * sample
        };
        self.last_sample = sample;
        self.samples += 1;
        self.interval_start = Some(ack.now);
        self.credited = 0;
        Some(sample)
    }

    fn bytes_per_sec(&self) -> Option<f64> {
        (self.samples > 0).then_some(self.bwe_bytes_per_sec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{ack_at, loss, rto, run_trace};
    use crate::cc::CongestionControl;

    const RTT: SimDuration = SimDuration::from_ms(20);

    /// Feeds `n` ACKs of `bytes` every `gap`, starting at `t0`; returns the time after.
    fn stream(cc: &mut WestwoodPlus, t0: SimTime, n: u64, bytes: u64, gap: SimDuration) -> SimTime {
        let mut t = t0;
        for _ in 0..n {
            cc.on_ack(&ack_at(t, bytes, RTT));
            t += gap;
        }
        t
    }

    #[test]
    fn constant_rate_stream_gives_exact_estimate_and_ssthresh() {
        let mut w = WestwoodPlus::new(&CcConfig::default());
        // One MSS every millisecond: 1_448_000 B/s = 11.584 Mb/s. 101 ACKs = 5 intervals.
        stream(&mut w, SimTime::ZERO, 101, 1_448, SimDuration::from_ms(1));
        assert_eq!(w.bandwidth_estimate_bps(), Some(11_584_000));
        w.on_congestion_event(&loss(SimTime::from_ns(200_000_000), 150_000, RTT, RTT));
        // BWE·RTTmin = 1_448_000 B/s · 20 ms = 28_960 B = 20 segments.
        assert_eq!(w.ssthresh(), 28_960);
        assert_eq!(w.cwnd(), 28_960);
        w.on_recovery_exit(SimTime::ZERO);
        assert_eq!(w.cwnd(), 28_960);
    }

    #[test]
    fn filter_is_seven_eighths_ewma_initialised_by_first_sample() {
        let mut b = BandwidthEstimator::new(1_000);
        let mut t = SimTime::ZERO;
        b.on_ack(&ack_at(t, 1_000, RTT));
        // Interval 1: 20 kB in 20 ms = 1e6 B/s.
        for _ in 0..20 {
            t += SimDuration::from_ms(1);
            b.on_ack(&ack_at(t, 1_000, RTT));
        }
        assert_eq!(b.bytes_per_sec(), Some(1e6));
        // Interval 2: 40 kB in 20 ms = 2e6 B/s -> 7/8·1e6 + 1/8·2e6 = 1.125e6.
        for _ in 0..20 {
            t += SimDuration::from_ms(1);
            b.on_ack(&ack_at(t, 2_000, RTT));
        }
        assert_eq!(b.last_sample(), Some(2e6));
        assert_eq!(b.bytes_per_sec(), Some(1.125e6));
    }

    #[test]
    fn rto_uses_estimate_and_loss_window() {
        let mut w = WestwoodPlus::new(&CcConfig::default());
        stream(&mut w, SimTime::ZERO, 41, 1_448, SimDuration::from_ms(1));
        w.on_rto(&rto(SimTime::from_ns(50_000_000), 80_000, RTT));
        assert_eq!((w.cwnd(), w.ssthresh()), (1_448, 28_960));
    }

    #[test]
    fn without_estimate_falls_back_to_reno() {
        let mut w = WestwoodPlus::new(&CcConfig::default());
        assert_eq!(w.bandwidth_estimate_bps(), None);
        w.on_congestion_event(&loss(SimTime::ZERO, 10_000, RTT, RTT));
        assert_eq!((w.cwnd(), w.ssthresh()), (5_000, 5_000));
    }

    #[test]
    fn reduction_keeps_a_smaller_window() {
        // The 3-dupack rule is cwnd = min(cwnd, ssthresh): a window already below the pipe
        // estimate (e.g. after an RTO) is not raised by a loss.
        let mut w = WestwoodPlus::new(&CcConfig::default());
        stream(&mut w, SimTime::ZERO, 41, 1_448, SimDuration::from_ms(1));
        w.on_rto(&rto(SimTime::ZERO, 80_000, RTT));
        w.on_congestion_event(&loss(SimTime::ZERO, 1_448, RTT, RTT));
        assert_eq!((w.cwnd(), w.ssthresh()), (1_448, 28_960));
    }

    /// Pins Westwood+'s reaction to the scripted trace. The trace's path delivers 20 MSS per
    /// 20 ms RTT (11.584 Mb/s), so BWE·RTTmin is 28_960 B in the steady state; the duplicate
    /// ACKs around the loss are credited one MSS each, so the estimate stays close to it.
    /// Before the loss the window grows exactly as Reno's (slot 99: 156_384); the loss sets
    /// ssthresh = cwnd = BWE·RTTmin instead of half the flight; congestion avoidance adds one
    /// MSS 20 ACKs later (slot 149). The RTO keeps ssthresh = BWE·RTTmin; slow start from
    /// slot 160 reaches it after 18 ACKs and congestion avoidance adds one MSS by slot 199.
    #[test]
    fn scripted_trace_snapshot() {
        let got = run_trace(&mut WestwoodPlus::new(&CcConfig::default()));
        let expected = vec![
            (49, 86_880, u64::MAX),
            (99, 156_384, u64::MAX),
            (100, 28_960, 28_960),
            (109, 28_960, 28_960),
            (110, 28_960, 28_960),
            (149, 30_408, 28_960),
            (150, 1_448, 28_960),
            (160, 2_896, 28_960),
            (199, 30_408, 28_960),
        ];
        assert_eq!(got, expected);
    }
}
