//! TCP Westwood, the original algorithm (Mascolo, Casetti, Gerla, Sanadidi, Wang, "TCP
//! Westwood: bandwidth estimation for enhanced transport over wireless links", ACM MobiCom
//! 2001), as ns-3's `TcpWestwood` runs it with its default attributes (`ProtocolType =
//! Westwood`, `FilterType = Tustin`) — the "TCPW" of the PETRA thesis, which used ns-3.19.
//! Registered as `westwood-original`: the body of the family ([`super::Westwood`]) with the
//! per-ACK estimator and the rules below.
//!
//! It differs from Westwood+ ([`super::plus`]) in how the bandwidth is estimated:
//! * **one sample per ACK** (MobiCom 2001 §2.2, eq. 1): an ACK arriving at t_k that reports d_k
//!   bytes delivered gives b_k = d_k / (t_k − t_{k−1}), t_{k−1} being the arrival of the
//!   previous ACK. Westwood+ sums over one RTT instead; per-ACK samples over-estimate when ACKs
//!   arrive compressed, the flaw Westwood+ was made to remove (Grieco & Mascolo 2004);
//! * **the discrete Tustin low-pass filter** (MobiCom 2001 §2.2, eq. 2):
//!   b̂_k = α_k·b̂_{k−1} + (1 − α_k)·(b_k + b_{k−1})/2,
//!   the bilinear (Tustin) discretisation of a first-order filter of time constant τ (cut-off
//!   frequency 1/τ), for which α_k = (2τ − Δt_k)/(2τ + Δt_k) with Δt_k = t_k − t_{k−1}.
//!   ns-3's `TcpWestwood` (3.19 and since) uses a **constant α = 0.9** instead
//!   ([`NS3_TUSTIN_ALPHA`], [`TustinGain::Fixed`]), which is the paper's α_k with τ ≈ 9.5·Δt_k:
//!   a time constant of about ten inter-ACK intervals, whatever their length. That is what the
//!   seed ran and what the registered controller `westwood-original` uses; the paper's
//!   time-varying gain is [`TustinGain::TimeConstant`] (see [`WestwoodOriginal::with_filter`]).
//!   Both start from b̂_0 = b_0 = 0, as ns-3 does.
//!
//! What each ACK reports (d_k) is the paper's "AckedCount" (§2.3), shared with Westwood+
//! ([`AckedCount`]): a duplicate ACK reports one segment, a cumulative ACK is debited by what its
//! duplicates reported in advance.
//!
//! Reactions (MobiCom 2001 §2.3, ns-3.19 `TcpWestwood::DupAck` and `Retransmit`; [`RULES`]):
//! * after n (= 3) duplicate ACKs: ssthresh = BWE·RTTmin; cwnd = min(cwnd, ssthresh);
//! * after a coarse timeout: ssthresh = max(BWE·RTTmin, 2 segments); cwnd = 1 segment;
//! * growth is Reno's; without SACK fast recovery ends on the first ACK of new data (ns-3.19's
//!   `TcpWestwood::NewAck` sets cwnd = ssthresh and leaves recovery on any new ACK — Reno's
//!   recovery, RFC 5681 §3.2 step 6, not NewReno's), so a second loss in the same window
//!   needs three more duplicate ACKs or a timeout.
//!
//! Deviations, all at the edges: an ACK that reports nothing (a window update) or arrives at
//! the same instant as the previous sample gives no sample (its bytes count in the next one;
//! ns-3 would divide by zero); the first ACK only starts the clock (ns-3 measures its interval
//! from time zero); before any sample the loss reactions fall back to Reno's FlightSize/2, and
//! ssthresh is floored at 2 segments after duplicate ACKs too (RFC 5681 eq. 4; ns-3.19 has no
//! floor there). The paper's "virtual null samples" (§2.2, inserted when no ACK arrives for
//! τ/m) are not modelled: with [`TustinGain::TimeConstant`] a gap longer than 2τ sets α_k = 0.

use super::{AckedCount, BandwidthEstimate, PipeRounding, RepeatedRto, Westwood, WestwoodRules};
use crate::cc::reno::RenoRecovery;
use crate::cc::{AckEvent, CcConfig};
use celltcp_engine::{SimDuration, SimTime};

/// The constant Tustin gain of ns-3's `TcpWestwood::EstimateBW` / `Filtering` (3.19 and since):
/// b̂_k = 0.9·b̂_{k−1} + 0.1·(b_k + b_{k−1})/2.
pub const NS3_TUSTIN_ALPHA: f64 = 0.9;

/// How the gain α_k of the Tustin filter is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TustinGain {
    /// A constant α (ns-3: [`NS3_TUSTIN_ALPHA`]), in [0, 1].
    Fixed(f64),
    /// The paper's α_k = (2τ − Δt_k)/(2τ + Δt_k) for the time constant τ (MobiCom 2001 eq. 2),
    /// clamped at 0 when Δt_k > 2τ.
    TimeConstant(SimDuration),
}

impl TustinGain {
    /// α_k for a sample that came `dt` after the previous one.
    pub fn alpha(self, dt: SimDuration) -> f64 {
        match self {
            TustinGain::Fixed(a) => a.clamp(0.0, 1.0),
            TustinGain::TimeConstant(tau) => {
                let two_tau = 2.0 * tau.as_secs_f64();
                let dt = dt.as_secs_f64();
                ((two_tau - dt) / (two_tau + dt)).max(0.0)
            }
        }
    }
}

/// The per-ACK bandwidth estimator of the original Westwood, bytes per second.
#[derive(Clone, Debug, PartialEq)]
pub struct TustinEstimator {
    gain: TustinGain,
    acked_count: AckedCount,
    /// b̂_{k−1}, bytes per second (0 before the first sample, as in ns-3).
    bwe: f64,
    /// b_{k−1}, bytes per second (0 before the first sample).
    last_sample: f64,
    /// Samples taken so far.
    samples: u64,
    /// t_{k−1}: arrival of the ACK of the last sample (or the first ACK).
    last_time: Option<SimTime>,
    /// Bytes reported by ACKs that gave no sample yet (same-instant ACKs).
    pending: u64,
}

impl TustinEstimator {
    pub fn new(mss: u64, gain: TustinGain) -> Self {
        TustinEstimator {
            gain,
            acked_count: AckedCount::new(mss),
            bwe: 0.0,
            last_sample: 0.0,
            samples: 0,
            last_time: None,
            pending: 0,
        }
    }

    /// Applies the filter to the raw sample `b` (bytes per second) taken `dt` after the last.
    fn sample(&mut self, b: f64, dt: SimDuration, now: SimTime) -> f64 {
        let alpha = self.gain.alpha(dt);
        self.bwe = alpha * self.bwe + (1.0 - alpha) * (b + self.last_sample) / 2.0;
        self.last_sample = b;
        self.samples += 1;
        self.last_time = Some(now);
        self.pending = 0;
        b
    }
}

impl BandwidthEstimate for TustinEstimator {
    /// Rounded down to a byte, as ns-3's `uint32_t` conversion does.
    const PIPE_ROUNDING: PipeRounding = PipeRounding::Down;

    /// Feeds one ACK; returns the raw sample b_k (bytes per second) when it gave one.
    fn on_ack(&mut self, ack: &AckEvent) -> Option<f64> {
        let d = self.acked_count.credit(ack);
        let Some(prev) = self.last_time else {
            // The first ACK starts the clock; the bytes it reports were delivered before it.
            self.last_time = Some(ack.now);
            return None;
        };
        self.pending = self.pending.saturating_add(d);
        let dt = ack.now.saturating_since(prev);
        if self.pending == 0 || dt == SimDuration::ZERO {
            return None;
        }
        Some(self.sample(self.pending as f64 / dt.as_secs_f64(), dt, ack.now))
    }

    /// b̂_k in bytes per second, `None` before the first sample.
    fn bytes_per_sec(&self) -> Option<f64> {
        (self.samples > 0).then_some(self.bwe)
    }
}

/// The original Westwood's rules (ns-3.19's `TcpWestwood`): without SACK, Reno's fast recovery
/// (`TcpWestwood::NewAck` sets cwnd = ssthresh and leaves recovery on any new ACK, RFC 5681
/// §3.2 step 6); every timeout sets ssthresh = max(BWE·RTTmin, 2 segments) again
/// (`TcpWestwood::Retransmit`; RFC 5681's holding of ssthresh on a repeated expiry is not
/// applied).
pub const RULES: WestwoodRules = WestwoodRules {
    name: "westwood-original",
    recovery: RenoRecovery::Reno,
    repeated_rto: RepeatedRto::SetsSsthresh,
};

/// The original TCP Westwood; windows in bytes.
pub type WestwoodOriginal = Westwood<TustinEstimator>;

impl WestwoodOriginal {
    /// With ns-3's constant filter gain (α = 0.9), as the seed ran it.
    pub fn new(cfg: &CcConfig) -> Self {
        Self::with_filter(cfg, TustinGain::Fixed(NS3_TUSTIN_ALPHA))
    }

    /// With the Tustin filter gain `gain` (e.g. the paper's time constant).
    pub fn with_filter(cfg: &CcConfig, gain: TustinGain) -> Self {
        Self::with_estimator(cfg, RULES, |mss| TustinEstimator::new(mss, gain))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{ack_at, loss, rto, run_trace};
    use crate::cc::{CongestionControl, RtoEvent};

    const RTT: SimDuration = SimDuration::from_ms(20);

    fn t(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_ms(ms)
    }

    fn dup_at(now: SimTime) -> AckEvent {
        AckEvent {
            duplicate: true,
            rtt_sample: None,
            ca_rtt: None,
            ..ack_at(now, 0, RTT)
        }
    }

    /// Hand-computed: ACKs of 1000 B at 0, 1, 2, 4 ms with α = 0.9.
    /// b_1 = 1000 B / 1 ms = 1e6 B/s: b̂_1 = 0.9·0 + 0.1·(1e6 + 0)/2 = 5e4;
    /// b_2 = 1e6: b̂_2 = 0.9·5e4 + 0.1·(1e6 + 1e6)/2 = 1.45e5;
    /// b_3 = 1000 B / 2 ms = 5e5: b̂_3 = 0.9·1.45e5 + 0.1·(5e5 + 1e6)/2 = 2.055e5.
    #[test]
    fn ns3_filter_matches_hand_computed_values() {
        let mut e = TustinEstimator::new(1_000, TustinGain::Fixed(NS3_TUSTIN_ALPHA));
        assert_eq!(e.on_ack(&ack_at(t(0), 1_000, RTT)), None);
        assert_eq!(e.bytes_per_sec(), None);
        let expected = [(1, 1e6, 5e4), (2, 1e6, 1.45e5), (4, 5e5, 2.055e5)];
        for (ms, sample, bwe) in expected {
            assert_eq!(e.on_ack(&ack_at(t(ms), 1_000, RTT)), Some(sample));
            let got = e.bytes_per_sec().unwrap();
            assert!((got - bwe).abs() < 1e-6, "{ms} ms: {got} vs {bwe}");
        }
    }

    /// Hand-computed with the paper's gain, τ = 4 ms: ACKs of 1000 B at 0, 4, 12 ms.
    /// Δ = 4 ms: α = (8 − 4)/(8 + 4) = 1/3; b = 2.5e5: b̂ = 0 + 2/3·(2.5e5 + 0)/2 = 83_333.3;
    /// Δ = 8 ms: α = 0 (clamped from 0); b = 1.25e5: b̂ = (1.25e5 + 2.5e5)/2 = 187_500.
    #[test]
    fn paper_filter_gain_depends_on_the_interval() {
        let tau = SimDuration::from_ms(4);
        let g = TustinGain::TimeConstant(tau);
        assert!((g.alpha(SimDuration::from_ms(4)) - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(g.alpha(SimDuration::from_ms(8)), 0.0);
        assert_eq!(g.alpha(SimDuration::from_ms(20)), 0.0);
        // α = 0.9 is the paper's gain for Δ = 2τ·0.1/1.9.
        let dt = SimDuration::from_ns(2 * tau.as_ns() / 19);
        assert!((g.alpha(dt) - 0.9).abs() < 1e-6);
        let mut e = TustinEstimator::new(1_000, g);
        e.on_ack(&ack_at(t(0), 1_000, RTT));
        e.on_ack(&ack_at(t(4), 1_000, RTT));
        assert!((e.bytes_per_sec().unwrap() - 2.5e5 / 3.0).abs() < 1e-6);
        e.on_ack(&ack_at(t(12), 1_000, RTT));
        assert!((e.bytes_per_sec().unwrap() - 187_500.0).abs() < 1e-6);
    }

    /// The filter converges to a constant rate: after n samples b̂ = r·(1 − 0.9^n·0.95…);
    /// within 0.1 % after 80 ACKs.
    #[test]
    fn constant_rate_converges() {
        let mut e = TustinEstimator::new(1_448, TustinGain::Fixed(NS3_TUSTIN_ALPHA));
        for i in 0..81 {
            e.on_ack(&ack_at(t(i), 1_448, RTT));
        }
        let bwe = e.bytes_per_sec().unwrap();
        assert!((bwe / 1_448_000.0 - 1.0).abs() < 1e-3, "{bwe}");
    }

    /// Duplicate ACKs are samples of one MSS each; same-instant ACKs and window updates give
    /// no sample, their bytes count in the next.
    #[test]
    fn dupacks_window_updates_and_same_instant_acks() {
        let mut e = TustinEstimator::new(1_000, TustinGain::Fixed(0.0));
        e.on_ack(&ack_at(t(0), 1_000, RTT));
        // α = 0: b̂ = (b_k + b_{k−1})/2.
        assert_eq!(e.on_ack(&dup_at(t(1))), Some(1e6));
        assert_eq!(e.bytes_per_sec(), Some(5e5));
        // A window update at 2 ms: nothing left the network, no sample.
        let update = AckEvent {
            rtt_sample: None,
            ca_rtt: None,
            ..ack_at(t(2), 0, RTT)
        };
        assert_eq!(e.on_ack(&update), None);
        // Two ACKs at 3 ms: the first counts, the second at the same instant waits.
        assert_eq!(e.on_ack(&ack_at(t(3), 1_000, RTT)), Some(5e5));
        assert_eq!(e.on_ack(&ack_at(t(3), 1_000, RTT)), None);
        // The cumulative ACK of 3 segments at 4 ms had one credited in advance (the dupack):
        // 2000 B new plus the 1000 B held back = 3000 B in 1 ms.
        assert_eq!(e.on_ack(&ack_at(t(4), 3_000, RTT)), Some(3e6));
    }

    /// A stream of one MSS per millisecond (1_448_000 B/s); ssthresh after 3 dupacks is
    /// BWE·RTTmin rounded down, cwnd = min(cwnd, ssthresh).
    #[test]
    fn three_dupacks_set_ssthresh_to_the_pipe() {
        let mut w = WestwoodOriginal::new(&CcConfig::default());
        for i in 0..201 {
            w.on_ack(&ack_at(t(i), 1_448, RTT));
        }
        let bwe = w.bw.bytes_per_sec().unwrap();
        assert!((bwe - 1_448_000.0).abs() < 1.0, "{bwe}");
        let pipe = (bwe * 0.020).floor() as u64;
        assert!((28_959..=28_960).contains(&pipe));
        let cwnd_before = w.cwnd();
        assert!(cwnd_before > pipe);
        w.on_congestion_event(&loss(t(201), cwnd_before, RTT, RTT));
        assert_eq!((w.cwnd(), w.ssthresh()), (pipe, pipe));
        // Reno's recovery: the first new ACK ends it.
        assert!(w.exits_recovery_on_partial_ack());
        w.on_recovery_exit(t(202));
        assert_eq!(w.cwnd(), pipe);
    }

    /// A window below the pipe estimate is not raised by a loss; a timeout sets cwnd to one
    /// segment and ssthresh to the pipe at every expiry.
    #[test]
    fn timeout_and_small_window() {
        let mut w = WestwoodOriginal::new(&CcConfig::default());
        for i in 0..201 {
            w.on_ack(&ack_at(t(i), 1_448, RTT));
        }
        let pipe = w.bw.bytes_in(RTT).unwrap();
        w.on_rto(&rto(t(201), 80_000, RTT));
        assert_eq!((w.cwnd(), w.ssthresh()), (1_448, pipe));
        w.on_congestion_event(&loss(t(202), 1_448, RTT, RTT));
        assert_eq!((w.cwnd(), w.ssthresh()), (1_448, pipe));
        let again = RtoEvent {
            consecutive: 2,
            ..rto(t(203), 1_448, RTT)
        };
        w.on_rto(&again);
        assert_eq!((w.cwnd(), w.ssthresh()), (1_448, pipe));
    }

    /// Before any sample, Reno's FlightSize/2; a tiny estimate is floored at 2 segments.
    #[test]
    fn fallbacks_and_floor() {
        let mut w = WestwoodOriginal::new(&CcConfig::default());
        w.on_congestion_event(&loss(t(0), 20_000, RTT, RTT));
        assert_eq!((w.cwnd(), w.ssthresh()), (10_000, 10_000));
        let mut w = WestwoodOriginal::new(&CcConfig::default());
        w.on_ack(&ack_at(t(0), 1_448, RTT));
        w.on_ack(&ack_at(t(1_000), 1_448, RTT)); // b̂ = 0.1·1448/2 = 72.4 B/s
        w.on_rto(&rto(t(1_001), 20_000, RTT));
        assert_eq!((w.cwnd(), w.ssthresh()), (1_448, 2 * 1_448));
    }

    /// Pins the original Westwood's reaction to the scripted trace (testkit): one MSS per
    /// millisecond, 20 ms RTT. Growth is Reno's up to the loss (slot 99: 156_384, as
    /// Westwood+). The per-ACK filter reads the three duplicate ACKs (one MSS per ms each) as
    /// the same rate, so BWE ≈ 1_448_000 B/s and ssthresh = cwnd = ⌊BWE·20 ms⌋ at slot 100,
    /// one byte short of Westwood+'s 28_960 because ns-3 rounds down and the filter is still
    /// converging. The 4-MSS full ACK at slot 110 is debited by what the three duplicate ACKs
    /// reported in advance (AckedCount), so it counts one MSS and the estimate, hence the
    /// ssthresh of the RTO at slot 150, stays at the path's rate.
    #[test]
    fn scripted_trace_snapshot() {
        let got = run_trace(&mut WestwoodOriginal::new(&CcConfig::default()));
        let expected = vec![
            (49, 86_880, u64::MAX),
            (99, 156_384, u64::MAX),
            (100, 28_959, 28_959),
            (109, 28_959, 28_959),
            (110, 28_959, 28_959),
            (149, 30_407, 28_959),
            (150, 1_448, 28_959),
            (160, 2_896, 28_959),
            (199, 30_407, 28_959),
        ];
        assert_eq!(got, expected);
    }
}
