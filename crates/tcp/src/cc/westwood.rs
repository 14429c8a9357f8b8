//! TCP Westwood+ (Mascolo, Casetti, Gerla, Sanadidi, Wang 2001 "TCP Westwood: bandwidth
//! estimation for enhanced transport over wireless links"; Grieco & Mascolo 2004 "Performance
//! evaluation and comparison of Westwood+, New Reno, and Vegas TCP congestion control").
//!
//! The sender estimates the bandwidth it obtains from the stream of ACKs and, after a loss,
//! sets ssthresh to the pipe that estimate can fill, BWE·RTTmin, instead of halving blindly;
//! random (wireless) losses therefore cost far less window than in Reno. Growth is Reno's.
//!
//! Bandwidth estimation as implemented here:
//! * every ACK is credited with the bytes it acknowledges; a duplicate ACK (no new data, no new
//!   SACK information) is credited with one MSS, because it reports a segment that left the
//!   network, and the later cumulative ACK is debited by what was credited in advance (the
//!   "AckedCount" procedure of Mascolo et al. 2001, in bytes);
//! * the credited bytes d_k are summed over an interval Δ_k of one smoothed RTT (Westwood+
//!   samples once per RTT rather than per ACK, which removes the aliasing that ACK compression
//!   causes), giving the sample b_k = d_k / Δ_k;
//! * the samples are smoothed by the discrete low-pass filter BWE_k = 7/8·BWE_{k−1} + 1/8·b_k
//!   (an EWMA with gain 1/8 per RTT, i.e. a time constant of about 8 RTTs); the first sample
//!   initialises the filter, so that a loss in the first RTTs does not see an estimate still
//!   rising from zero.

use super::reno_common::RenoCore;
use super::{
    AckEvent, CcConfig, CcSnapshot, CongestionControl, CongestionEvent, CongestionKind, RtoEvent,
};
use celltcp_engine::{SimDuration, SimTime};

/// Weight of the previous estimate in the low-pass filter BWE ← 7/8·BWE + 1/8·sample.
pub const BWE_FILTER_GAIN: f64 = 7.0 / 8.0;

/// Shortest sampling interval. An interval is one smoothed RTT, but on sub-10 ms paths an RTT
/// spans only a few ACKs and samples would mostly measure ACK spacing; Linux's Westwood+
/// uses a 50 ms floor for the same reason, a cellular path never has an RTT this short.
pub const MIN_SAMPLE_INTERVAL: SimDuration = SimDuration::from_ms(10);

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

/// The "AckedCount" procedure of Mascolo et al. 2001 (§2.3), in bytes: how many bytes an ACK
/// reports as having left the network. Shared by Westwood+ and the original Westwood
/// ([`super::westwood_original`]); ns-3's `TcpWestwood::CountAck` counts the same in segments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AckedCount {
    /// Bytes credited to a duplicate ACK.
    mss: u64,
    /// Bytes credited to duplicate ACKs and not yet matched by a cumulative ACK.
    accounted: u64,
}

impl AckedCount {
    pub fn new(mss: u64) -> Self {
        AckedCount {
            mss: mss.max(1),
            accounted: 0,
        }
    }

    /// Bytes this ACK is credited with:
    /// * a duplicate ACK (no new data, no new SACK information) is credited with one MSS,
    ///   because it reports a segment that left the network;
    /// * a cumulative ACK larger than one segment may cover segments already credited to
    ///   duplicate ACKs; only the remainder is new (a delayed ACK counts at least one MSS);
    /// * any other ACK of no new data (e.g. a pure window update) is worth nothing.
    pub fn credit(&mut self, ack: &AckEvent) -> u64 {
        if ack.acked_bytes == 0 {
            if ack.duplicate {
                self.accounted = self.accounted.saturating_add(self.mss);
                return self.mss;
            }
            return 0; // e.g. a pure window update: nothing left the network
        }
        let mut cumulative = ack.acked_bytes;
        if cumulative > self.mss {
            if self.accounted >= cumulative {
                self.accounted -= cumulative;
                cumulative = self.mss;
            } else {
                cumulative -= self.accounted;
                self.accounted = 0;
            }
        }
        cumulative
    }

    /// Bytes credited to duplicate ACKs and not yet matched by a cumulative ACK.
    pub fn accounted(&self) -> u64 {
        self.accounted
    }
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

    /// Feeds one ACK. Returns the raw sample b_k (bytes per second) when this ACK closed a
    /// sampling interval and the filter was updated.
    ///
    /// The first ACK only opens the first interval (its bytes were delivered before it); no
    /// interval closes before the first RTT measurement, since its length is one srtt.
    pub fn on_ack(&mut self, ack: &AckEvent) -> Option<f64> {
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

    /// BWE in bytes per second, `None` before the first sample.
    pub fn bytes_per_sec(&self) -> Option<f64> {
        (self.samples > 0).then_some(self.bwe_bytes_per_sec)
    }

    /// The last raw sample b_k in bytes per second, `None` before the first sample.
    pub fn last_sample(&self) -> Option<f64> {
        (self.samples > 0).then_some(self.last_sample)
    }

    /// BWE in bits per second, `None` before the first sample.
    pub fn bps(&self) -> Option<u64> {
        self.bytes_per_sec().map(|b| (b * 8.0).round() as u64)
    }

    /// Bytes that BWE delivers in `duration` (e.g. BWE·RTTmin, the pipe size), rounded to
    /// the nearest byte; `None` before the first sample or for a zero duration.
    pub fn bytes_in(&self, duration: SimDuration) -> Option<u64> {
        if duration == SimDuration::ZERO {
            return None;
        }
        // `as` saturates on overflow, so an absurd estimate cannot wrap.
        self.bytes_per_sec()
            .map(|b| (b * duration.as_secs_f64()).round() as u64)
    }
}

/// RTTmin of the Westwood family (Westwood+, the original Westwood, PETRA): the endpoint's
/// minimum RTT, or, while an event carries none, the smallest RTT sample the controller saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct RttMin(Option<SimDuration>);

impl RttMin {
    /// Takes the ACK's RTT sample, if any.
    pub fn on_ack(&mut self, ack: &AckEvent) {
        if let Some(r) = ack.rtt_sample.filter(|r| *r > SimDuration::ZERO) {
            self.0 = Some(self.0.map_or(r, |m| m.min(r)));
        }
    }

    /// `min_rtt` from the endpoint when it has one, else the smallest sample seen.
    pub fn or_endpoint(&self, min_rtt: SimDuration) -> Option<SimDuration> {
        if min_rtt > SimDuration::ZERO {
            Some(min_rtt)
        } else {
            self.0
        }
    }
}

/// The Westwood family's ssthresh after a loss (Mascolo et al. 2001 §2.3): max(BWE·RTTmin,
/// 2·MSS) from the bytes the estimate carries in RTTmin (`pipe`); without an estimate yet,
/// Reno's max(FlightSize/2, 2·MSS) (RFC 5681 eq. 4).
pub(super) fn bandwidth_ssthresh(core: &RenoCore, pipe: Option<u64>, flight: u64) -> u64 {
    match pipe {
        Some(pipe) => pipe.max(2 * core.mss),
        None => core.half_flight(flight),
    }
}

/// Westwood+ congestion control; windows in bytes.
#[derive(Clone, Debug)]
pub struct WestwoodPlus {
    core: RenoCore,
    bw: BandwidthEstimator,
    rtt_min: RttMin,
}

impl WestwoodPlus {
    pub fn new(cfg: &CcConfig) -> Self {
        let core = RenoCore::new(cfg);
        WestwoodPlus {
            bw: BandwidthEstimator::new(core.mss),
            core,
            rtt_min: RttMin::default(),
        }
    }

    /// ssthresh after a loss ([`bandwidth_ssthresh`]).
    fn bandwidth_ssthresh(&self, min_rtt: SimDuration, flight: u64) -> u64 {
        let pipe = self
            .rtt_min
            .or_endpoint(min_rtt)
            .and_then(|r| self.bw.bytes_in(r));
        bandwidth_ssthresh(&self.core, pipe, flight)
    }
}

impl CongestionControl for WestwoodPlus {
    fn name(&self) -> &'static str {
        "westwood"
    }
    fn cwnd(&self) -> u64 {
        self.core.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.core.ssthresh
    }
    /// Every ACK, duplicates included, feeds the estimator; growth is Reno's.
    fn on_ack(&mut self, ack: &AckEvent) {
        self.rtt_min.on_ack(ack);
        self.bw.on_ack(ack);
        self.core.on_ack(ack);
    }
    /// Mascolo et al. 2001, n duplicate ACKs: ssthresh = BWE·RTTmin; cwnd = min(cwnd,
    /// ssthresh). ECE is treated the same way (an explicit congestion signal).
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        let ssthresh = self.bandwidth_ssthresh(ev.min_rtt, ev.bytes_in_flight);
        let cwnd = self.core.cwnd.min(ssthresh.max(2 * self.core.mss));
        self.core
            .reduce_to(ssthresh, cwnd, ev.kind == CongestionKind::FastRetransmit);
    }
    /// End of fast recovery: cwnd = ssthresh (= BWE·RTTmin).
    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.core.exit_recovery();
    }
    /// Mascolo et al. 2001, coarse timeout: ssthresh = BWE·RTTmin, cwnd = 1 segment;
    /// ssthresh is held on a repeated expiry as in RFC 5681 §3.1.
    fn on_rto(&mut self, ev: &RtoEvent) {
        let ssthresh = self.bandwidth_ssthresh(ev.min_rtt, ev.bytes_in_flight);
        self.core.on_rto(ev.consecutive, ssthresh);
    }
    /// `extra` is unused: the estimate is a measurement, not part of the reduction.
    fn snapshot(&self) -> CcSnapshot {
        self.core.snapshot(0)
    }
    fn restore(&mut self, snapshot: &CcSnapshot) {
        self.core.restore(snapshot);
    }
    fn bandwidth_estimate_bps(&self) -> Option<u64> {
        self.bw.bps()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{ack, ack_at, loss, rto, run_trace};

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
    fn duplicate_acks_are_credited_and_debited_later() {
        let mut b = AckedCount::new(1_000);
        let mut dup = ack(0);
        dup.duplicate = true;
        assert_eq!(b.credit(&dup), 1_000);
        assert_eq!(b.credit(&dup), 1_000);
        assert_eq!(b.credit(&dup), 1_000);
        // A window update (not a duplicate) is worth nothing.
        assert_eq!(b.credit(&ack(0)), 0);
        // The cumulative ACK of 5 segments had 3 credited in advance.
        assert_eq!(b.credit(&ack(5_000)), 2_000);
        assert_eq!(b.accounted(), 0);
        // If more was credited than the ACK covers, it still counts one segment.
        for _ in 0..4 {
            b.credit(&dup);
        }
        assert_eq!(b.credit(&ack(2_000)), 1_000);
        assert_eq!(b.accounted(), 2_000);
        // A one-segment (partial) ACK is never debited.
        assert_eq!(b.credit(&ack(1_000)), 1_000);
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
