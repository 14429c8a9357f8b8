//! The TCP Westwood family (Mascolo, Casetti, Gerla, Sanadidi, Wang, "TCP Westwood: bandwidth
//! estimation for enhanced transport over wireless links", ACM MobiCom 2001): the sender
//! estimates the bandwidth it obtains from the stream of ACKs and, after a loss, sets ssthresh
//! to the pipe that estimate can fill, BWE·RTTmin, instead of halving blindly; random
//! (wireless) losses therefore cost far less window than in Reno. Growth is Reno's.
//!
//! One controller body, [`Westwood`], serves every variant: it is generic over the bandwidth
//! estimator ([`BandwidthEstimate`]) and takes a small rule set ([`WestwoodRules`]) for what
//! else differs. Each variant is a file with its citation, estimator and rules:
//! * `plus` — Westwood+ (Grieco & Mascolo 2004), registered as `westwood`: one sample per RTT,
//!   a 7/8 EWMA, NewReno's recovery, ssthresh held on a repeated timeout;
//! * `original` — the original Westwood as ns-3's `TcpWestwood` runs it, registered as
//!   `westwood-original`: one sample per ACK, the Tustin filter, Reno's recovery, ssthresh set
//!   again at every timeout.
//!
//! PETRA ([`super::petra`]) is Westwood+ with modifications; it shares the pieces here, the
//! AckedCount procedure ([`AckedCount`]) and the estimate of the pipe and the reduction it
//! sets ([`PipeEstimate`]), not the controller body.

pub mod original;
pub mod plus;

pub use original::{TustinEstimator, TustinGain, WestwoodOriginal, NS3_TUSTIN_ALPHA};
pub use plus::{BandwidthEstimator, WestwoodPlus, BWE_FILTER_GAIN, MIN_SAMPLE_INTERVAL};

use super::reno::RenoRecovery;
use super::reno_common::RenoCore;
use super::{
    AckEvent, CcConfig, CcSnapshot, CongestionControl, CongestionEvent, CongestionKind, RtoEvent,
};
use celltcp_engine::{SimDuration, SimTime};

/// A bandwidth estimator of the Westwood family, fed every ACK; rates in bytes per second.
/// `Send`, as the controllers it serves are ([`CongestionControl`]).
pub trait BandwidthEstimate: Send {
    /// How BWE·RTTmin becomes whole bytes.
    const PIPE_ROUNDING: PipeRounding;

    /// Feeds one ACK; returns the raw sample b_k (bytes per second) when the ACK gave one.
    fn on_ack(&mut self, ack: &AckEvent) -> Option<f64>;

    /// The filtered estimate BWE in bytes per second, `None` before the first sample.
    fn bytes_per_sec(&self) -> Option<f64>;

    /// BWE in bits per second, `None` before the first sample.
    fn bps(&self) -> Option<u64> {
        self.bytes_per_sec().map(|b| (b * 8.0).round() as u64)
    }

    /// Bytes that BWE delivers in `duration` (e.g. BWE·RTTmin, the pipe size), made whole by
    /// [`Self::PIPE_ROUNDING`]; `None` before the first sample or for a zero duration.
    fn bytes_in(&self, duration: SimDuration) -> Option<u64> {
        if duration == SimDuration::ZERO {
            return None;
        }
        // `as` saturates on overflow, so an absurd estimate cannot wrap.
        self.bytes_per_sec().map(|b| {
            let bytes = b * duration.as_secs_f64();
            match Self::PIPE_ROUNDING {
                PipeRounding::Nearest => bytes.round() as u64,
                PipeRounding::Down => bytes.floor() as u64,
            }
        })
    }
}

/// How an estimator turns a pipe of fractional bytes into whole bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PipeRounding {
    /// To the nearest byte.
    Nearest,
    /// Down, as ns-3's `uint32_t` conversion of BWE·RTTmin does.
    Down,
}

/// The "AckedCount" procedure of Mascolo et al. 2001 (§2.3), in bytes: how many bytes an ACK
/// reports as having left the network. Shared by every estimator of the family; ns-3's
/// `TcpWestwood::CountAck` counts the same in segments.
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

/// RTTmin of the Westwood family: the endpoint's minimum RTT, or, while an event carries none,
/// the smallest RTT sample the controller saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct RttMin(Option<SimDuration>);

impl RttMin {
    /// Takes the ACK's RTT sample, if any.
    fn on_ack(&mut self, ack: &AckEvent) {
        if let Some(r) = ack.rtt_sample.filter(|r| *r > SimDuration::ZERO) {
            self.0 = Some(self.0.map_or(r, |m| m.min(r)));
        }
    }

    /// `min_rtt` from the endpoint when it has one, else the smallest sample seen.
    fn or_endpoint(&self, min_rtt: SimDuration) -> Option<SimDuration> {
        if min_rtt > SimDuration::ZERO {
            Some(min_rtt)
        } else {
            self.0
        }
    }
}

/// What the Westwood family measures from the ACKs, the bandwidth estimate BWE (estimator `E`)
/// and RTTmin, and what it sets after a loss: ssthresh = BWE·RTTmin, the pipe the estimate can
/// fill (Mascolo et al. 2001 §2.3).
#[derive(Clone, Debug)]
pub struct PipeEstimate<E> {
    bw: E,
    rtt_min: RttMin,
}

impl<E: BandwidthEstimate> PipeEstimate<E> {
    pub fn new(bw: E) -> Self {
        PipeEstimate {
            bw,
            rtt_min: RttMin::default(),
        }
    }

    /// The bandwidth estimator.
    pub fn estimator(&self) -> &E {
        &self.bw
    }

    /// Feeds one ACK, duplicates included, to RTTmin and the estimator; returns the raw
    /// bandwidth sample (bytes per second) when the ACK gave one.
    pub fn on_ack(&mut self, ack: &AckEvent) -> Option<f64> {
        self.rtt_min.on_ack(ack);
        self.bw.on_ack(ack)
    }

    /// BWE in bytes per second, `None` before the first sample.
    pub fn bytes_per_sec(&self) -> Option<f64> {
        self.bw.bytes_per_sec()
    }

    /// Bytes BWE delivers in `duration` ([`BandwidthEstimate::bytes_in`]).
    pub fn bytes_in(&self, duration: SimDuration) -> Option<u64> {
        self.bw.bytes_in(duration)
    }

    /// RTTmin: the endpoint's `min_rtt` when it has one, else the smallest RTT sample seen.
    pub fn rtt_min(&self, min_rtt: SimDuration) -> Option<SimDuration> {
        self.rtt_min.or_endpoint(min_rtt)
    }

    /// ssthresh after a loss (Mascolo et al. 2001 §2.3): max(BWE·RTTmin, 2·MSS); without an
    /// estimate or an RTTmin yet, Reno's max(FlightSize/2, 2·MSS) (RFC 5681 eq. 4).
    pub fn loss_ssthresh(&self, core: &RenoCore, min_rtt: SimDuration, flight: u64) -> u64 {
        match self.rtt_min(min_rtt).and_then(|r| self.bw.bytes_in(r)) {
            Some(pipe) => pipe.max(2 * core.mss),
            None => core.half_flight(flight),
        }
    }

    /// Mascolo et al. 2001 §2.3, n duplicate ACKs: ssthresh = BWE·RTTmin ([`Self::loss_ssthresh`]);
    /// cwnd = min(cwnd, ssthresh), so a window already below the pipe is not raised. ECE is
    /// treated the same way (an explicit congestion signal), without fast recovery.
    pub fn reduce(&self, core: &mut RenoCore, ev: &CongestionEvent) {
        let ssthresh = self.loss_ssthresh(core, ev.min_rtt, ev.bytes_in_flight);
        let cwnd = core.cwnd.min(ssthresh);
        core.reduce_to(ssthresh, cwnd, ev.kind == CongestionKind::FastRetransmit);
    }
}

/// What differs between the Westwood variants besides their bandwidth estimator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WestwoodRules {
    /// The registered name ([`super::NAMES`]).
    pub name: &'static str,
    /// How fast recovery ends without SACK.
    pub recovery: RenoRecovery,
    /// What a repeated expiry of the retransmission timer does to ssthresh.
    pub repeated_rto: RepeatedRto,
}

/// ssthresh at the second and later expiries of one backoff series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepeatedRto {
    /// Held, as RFC 5681 §3.1 holds it ("the value of ssthresh is held constant").
    HoldsSsthresh,
    /// Set to BWE·RTTmin again at every expiry.
    SetsSsthresh,
}

impl RepeatedRto {
    /// The expiry count [`RenoCore::on_rto`] is given for the `consecutive`-th expiry.
    fn expiry(self, consecutive: u32) -> u32 {
        match self {
            RepeatedRto::HoldsSsthresh => consecutive,
            RepeatedRto::SetsSsthresh => 1,
        }
    }
}

/// A Westwood controller with estimator `E`; windows in bytes.
#[derive(Clone, Debug)]
pub struct Westwood<E> {
    rules: WestwoodRules,
    core: RenoCore,
    /// BWE and RTTmin.
    bw: PipeEstimate<E>,
}

impl<E: BandwidthEstimate> Westwood<E> {
    /// The variant of `rules` with the estimator `estimator` makes for the sender's MSS.
    pub fn with_estimator(
        cfg: &CcConfig,
        rules: WestwoodRules,
        estimator: impl FnOnce(u64) -> E,
    ) -> Self {
        let core = RenoCore::new(cfg);
        Westwood {
            rules,
            bw: PipeEstimate::new(estimator(core.mss)),
            core,
        }
    }
}

impl<E: BandwidthEstimate> CongestionControl for Westwood<E> {
    fn name(&self) -> &'static str {
        self.rules.name
    }
    fn cwnd(&self) -> u64 {
        self.core.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.core.ssthresh
    }
    /// Every ACK, duplicates included, feeds the estimator; growth is Reno's.
    fn on_ack(&mut self, ack: &AckEvent) {
        self.bw.on_ack(ack);
        self.core.on_ack(ack);
    }
    /// The variant's [`WestwoodRules::recovery`].
    fn exits_recovery_on_partial_ack(&self) -> bool {
        self.rules.recovery == RenoRecovery::Reno
    }
    /// Mascolo et al. 2001 §2.3, n duplicate ACKs ([`PipeEstimate::reduce`]).
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        self.bw.reduce(&mut self.core, ev);
    }
    /// End of fast recovery: cwnd = ssthresh (= BWE·RTTmin).
    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.core.exit_recovery();
    }
    /// Mascolo et al. 2001 §2.3, coarse timeout: ssthresh = max(BWE·RTTmin, 2 segments),
    /// cwnd = 1 segment; on a repeated expiry as the variant's [`WestwoodRules::repeated_rto`].
    fn on_rto(&mut self, ev: &RtoEvent) {
        let ssthresh = self
            .bw
            .loss_ssthresh(&self.core, ev.min_rtt, ev.bytes_in_flight);
        self.core
            .on_rto(self.rules.repeated_rto.expiry(ev.consecutive), ssthresh);
    }
    /// `extra` is unused: the estimate is a measurement, not part of the reduction.
    fn snapshot(&self) -> CcSnapshot {
        self.core.snapshot(0)
    }
    fn restore(&mut self, snapshot: &CcSnapshot) {
        self.core.restore(snapshot);
    }
    fn bandwidth_estimate_bps(&self) -> Option<u64> {
        self.bw.estimator().bps()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::ack;

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
}
