//! TCP NewReno (RFC 6582). The controller is Reno's ([`super::reno_common::RenoCore`]): the
//! NewReno modification lives in the endpoint, which keeps fast recovery going across partial
//! ACKs (retransmitting the next hole and deflating the window, RFC 6582 §3.2 step 5) and
//! calls `CongestionControl::on_recovery_exit` only on the full ACK that covers the
//! `recover` point (step 3), where this controller sets cwnd = ssthresh.

use super::reno::{Reno, RenoRecovery};
use super::CcConfig;

/// NewReno: Reno's window arithmetic with the endpoint's RFC 6582 recovery.
pub fn new_reno(cfg: &CcConfig) -> Reno {
    Reno::with_recovery(cfg, RenoRecovery::NewReno)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{ack, ack_at, loss, run_trace};
    use crate::cc::{CongestionControl, CongestionKind};
    use celltcp_engine::SimDuration;
    use celltcp_engine::SimTime;

    const RTT: SimDuration = SimDuration::from_ms(20);

    #[test]
    fn partial_acks_do_not_grow_and_full_ack_deflates() {
        let mut n = new_reno(&CcConfig {
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
        let mut n = new_reno(&CcConfig {
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
        let got = run_trace(&mut new_reno(&CcConfig::default()));
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
