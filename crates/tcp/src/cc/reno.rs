//! TCP Reno (RFC 5681 §3.1–3.2): slow start with Appropriate Byte Counting (RFC 3465),
//! byte-counted congestion avoidance, ssthresh = max(FlightSize/2, 2·SMSS) on a congestion
//! event and a one-segment loss window on RTO.
//!
//! Reno and NewReno ([`super::newreno`]) are one type with a [`RenoRecovery`] variant: they share
//! their window arithmetic ([`super::reno_common::RenoCore`]) and differ only in what the
//! endpoint does during fast recovery (Reno leaves it on the first new ACK, NewReno on the full
//! ACK of RFC 6582), which the endpoint asks through `exits_recovery_on_partial_ack`.

use super::reno_common::RenoCore;
use super::{AckEvent, CcConfig, CcSnapshot, CongestionControl, CongestionEvent, RtoEvent};
use celltcp_engine::SimTime;

/// How fast recovery ends without SACK; the only difference between Reno and NewReno.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenoRecovery {
    /// RFC 5681 §3.2 step 6: the first ACK of new data ends recovery.
    Reno,
    /// RFC 6582: partial ACKs retransmit the next hole; the full ACK ends recovery.
    NewReno,
}

/// Reno-family congestion control (Reno or NewReno); all windows in bytes.
#[derive(Clone, Debug)]
pub struct Reno {
    core: RenoCore,
    recovery: RenoRecovery,
}

impl Reno {
    /// Classic Reno.
    pub fn new(cfg: &CcConfig) -> Self {
        Self::with_recovery(cfg, RenoRecovery::Reno)
    }

    pub fn with_recovery(cfg: &CcConfig, recovery: RenoRecovery) -> Self {
        Reno {
            core: RenoCore::new(cfg),
            recovery,
        }
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        match self.recovery {
            RenoRecovery::Reno => "reno",
            RenoRecovery::NewReno => "newreno",
        }
    }
    fn cwnd(&self) -> u64 {
        self.core.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.core.ssthresh
    }
    fn on_ack(&mut self, ack: &AckEvent) {
        self.core.on_ack(ack);
    }
    /// Without SACK, Reno leaves recovery on the first ACK of new data (RFC 5681 §3.2 step 6);
    /// NewReno stays until the full ACK (RFC 6582 §3.2 steps 3–5).
    fn exits_recovery_on_partial_ack(&self) -> bool {
        self.recovery == RenoRecovery::Reno
    }
    /// RFC 5681 §3.2 step 2 (eq. 4) for a loss (RFC 6582 §3.2 step 2 refers to it); cwnd =
    /// ssthresh, the endpoint adds the 3·SMSS inflation. RFC 3168 §6.1.2 for ECE: the same
    /// reduction without fast recovery.
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        let ssthresh = self.core.half_window(ev.bytes_in_flight);
        self.core
            .reduce(ssthresh, ev.kind == super::CongestionKind::FastRetransmit);
    }
    /// RFC 6582 §3.2 step 3 (full ACK) or RFC 5681 §3.2 step 6: cwnd = ssthresh.
    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.core.exit_recovery();
    }
    /// RFC 5681 §3.1: ssthresh per eq. 4 (held on a repeated expiry), cwnd = 1 SMSS.
    fn on_rto(&mut self, ev: &RtoEvent) {
        let ssthresh = self.core.half_flight(ev.bytes_in_flight);
        self.core.on_rto(ev.consecutive, ssthresh);
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
    use crate::cc::testkit::{ack, loss, rto, run_trace};
    use celltcp_engine::SimDuration;

    const RTT: SimDuration = SimDuration::from_ms(20);

    #[test]
    fn loss_halves_flight_size_not_cwnd() {
        let mut r = Reno::new(&CcConfig::default());
        // RFC 5681 eq. 4 uses FlightSize: 10 segments in flight -> 5 segments.
        r.on_congestion_event(&loss(SimTime::ZERO, 14_480, RTT, RTT));
        assert_eq!((r.cwnd(), r.ssthresh()), (7_240, 7_240));
        // A tiny flight still leaves ssthresh at 2 segments.
        r.on_congestion_event(&loss(SimTime::ZERO, 1_000, RTT, RTT));
        assert_eq!(r.ssthresh(), 2_896);
    }

    #[test]
    fn rto_sets_loss_window() {
        let mut r = Reno::new(&CcConfig::default());
        r.on_ack(&ack(1_448));
        r.on_rto(&rto(SimTime::ZERO, 20_000, RTT));
        assert_eq!((r.cwnd(), r.ssthresh()), (1_448, 10_000));
    }

    #[test]
    fn snapshot_restore_round_trip() {
        let mut r = Reno::new(&CcConfig::default());
        let s = r.snapshot();
        r.on_rto(&rto(SimTime::ZERO, 14_480, RTT));
        r.restore(&s);
        assert_eq!((r.cwnd(), r.ssthresh()), (14_480, u64::MAX));
    }

    /// Pins Reno's reaction to the scripted trace (see `testkit::run_trace`). Hand check:
    /// slow start with L = 2 and one MSS per ACK adds one MSS per ACK: cwnd = (10 + 50)·MSS =
    /// 86_880 after slot 49 and (10 + 98)·MSS = 156_384 after slot 99 (slots 98 and 99 are
    /// duplicates). The loss at slot 100 halves FlightSize = 156_384 -> 78_192. Partial ACKs
    /// do not grow; the exit sets cwnd = ssthresh. Congestion avoidance then needs 78_192
    /// bytes for one MSS, more than the 39 ACKs of slots 111–149 bring. RTO: ssthresh =
    /// 78_192 / 2 = 39_096, cwnd = 1 MSS; the 9 ACKs of RTO recovery do not grow; slot 160
    /// adds one MSS; slow start reaches ssthresh exactly at slot 185 (2 + 25 segments =
    /// 39_096) and the 14 remaining ACKs are short of one congestion-avoidance step.
    #[test]
    fn scripted_trace_snapshot() {
        let got = run_trace(&mut Reno::new(&CcConfig::default()));
        let expected = vec![
            (49, 86_880, u64::MAX),
            (99, 156_384, u64::MAX),
            (100, 78_192, 78_192),
            (109, 78_192, 78_192),
            (110, 78_192, 78_192),
            (149, 78_192, 78_192),
            (150, 1_448, 39_096),
            (160, 2_896, 39_096),
            (199, 39_096, 39_096),
        ];
        assert_eq!(got, expected);
    }
}
