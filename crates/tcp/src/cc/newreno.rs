//! TCP NewReno (RFC 6582). The controller is Reno's ([`super::reno_common::RenoCore`]): the
//! NewReno modification lives in the endpoint, which keeps fast recovery going across partial
//! ACKs (retransmitting the next hole and deflating the window, RFC 6582 §3.2 step 5) and
//! calls [`CongestionControl::on_recovery_exit`] only on the full ACK that covers the
//! `recover` point (step 3), where this controller sets cwnd = ssthresh.

use super::reno_common::RenoCore;
use super::{
    AckEvent, CcConfig, CcSnapshot, CongestionControl, CongestionEvent, CongestionKind, RtoEvent,
};
use celltcp_engine::SimTime;

/// NewReno congestion control; all windows in bytes.
#[derive(Clone, Debug)]
pub struct NewReno {
    core: RenoCore,
}

impl NewReno {
    pub fn new(cfg: &CcConfig) -> Self {
        NewReno {
            core: RenoCore::new(cfg),
        }
    }
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }
    fn cwnd(&self) -> u64 {
        self.core.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.core.ssthresh
    }
    /// Growth outside recovery only: RFC 6582 §3.2 steps 4–5 govern cwnd during recovery.
    fn on_ack(&mut self, ack: &AckEvent) {
        self.core.on_ack(ack);
    }
    /// RFC 6582 §3.2 step 2 refers to RFC 5681 §3.2 step 2: ssthresh = max(FlightSize/2,
    /// 2·SMSS) (eq. 4); cwnd = ssthresh, the endpoint adds the 3·SMSS inflation. ECE
    /// (RFC 3168 §6.1.2) reduces the same way without starting fast recovery.
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        let ssthresh = self.core.half_flight(ev.bytes_in_flight);
        self.core
            .reduce(ssthresh, ev.kind == CongestionKind::FastRetransmit);
    }
    /// RFC 6582 §3.2 step 3, full ACK: cwnd = ssthresh (the "deflate the window" option).
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
    use crate::cc::testkit::{ack, ack_at, loss, run_trace};
    use celltcp_engine::SimDuration;

    const RTT: SimDuration = SimDuration::from_ms(20);

    #[test]
    fn partial_acks_do_not_grow_and_full_ack_deflates() {
        let mut n = NewReno::new(&CcConfig {
            mss: 1000,
            ..CcConfig::default()
        });
        n.on_congestion_event(&loss(SimTime::ZERO, 20_000, RTT, RTT));
        assert_eq!((n.cwnd(), n.ssthresh()), (10_000, 10_000));
        for _ in 0..5 {
            let mut a = ack_at(SimTime::ZERO, 1_000, RTT);
            a.in_recovery = true;
            n.on_ack(&a);
        }
        assert_eq!(n.cwnd(), 10_000);
        n.on_recovery_exit(SimTime::ZERO);
        assert_eq!(n.cwnd(), 10_000);
        // Back in congestion avoidance: one MSS per window of ACKs.
        for _ in 0..10 {
            n.on_ack(&ack(1_000));
        }
        assert_eq!(n.cwnd(), 11_000);
    }

    #[test]
    fn ecn_echo_reduces_without_recovery() {
        let mut n = NewReno::new(&CcConfig {
            mss: 1000,
            ..CcConfig::default()
        });
        let mut ev = loss(SimTime::ZERO, 30_000, RTT, RTT);
        ev.kind = CongestionKind::EcnEcho;
        n.on_congestion_event(&ev);
        assert_eq!((n.cwnd(), n.ssthresh()), (15_000, 15_000));
        // No fast recovery was started, so a stray exit does not change the window.
        n.on_ack(&ack(15_000));
        n.on_recovery_exit(SimTime::ZERO);
        assert_eq!(n.cwnd(), 16_000);
    }

    /// Same arithmetic as Reno on this trace (the difference is in the endpoint); see
    /// `reno::tests::scripted_trace_snapshot` for the hand check.
    #[test]
    fn scripted_trace_snapshot() {
        let got = run_trace(&mut NewReno::new(&CcConfig::default()));
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
