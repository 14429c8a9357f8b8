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
        // A window of 20 segments, all in flight at the loss.
        let mut n = new_reno(&CcConfig {
            mss: 1000,
            initial_window: 20,
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
            initial_window: 30,
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

    /// RFC 5681 §3.2 step 2: ssthresh = max(FlightSize / 2, 2·SMSS), with the data sent by
    /// limited transmit "MUST NOT be included". SND.NXT − SND.UNA beyond cwnd (those two
    /// segments, or SACKed data left above a hole by a previous recovery) is not halved: the
    /// reduction never leaves ssthresh above half the window.
    #[test]
    fn loss_halves_at_most_the_window_rfc5681_3_2_step2() {
        let mut n = new_reno(&CcConfig {
            mss: 1000,
            initial_window: 10,
            ..CcConfig::default()
        });
        // 10 segments of window, 12 between SND.UNA and SND.NXT (limited transmit's two).
        n.on_congestion_event(&loss(SimTime::ZERO, 12_000, RTT, RTT));
        assert_eq!((n.cwnd(), n.ssthresh()), (5_000, 5_000));
        // The next recovery, entered at once with 296 segments above SND.UNA of which the
        // window sent 5: half of 5 (the floor of 2 segments), not 148.
        n.on_recovery_exit(SimTime::ZERO);
        n.on_congestion_event(&loss(SimTime::ZERO, 296_000, RTT, RTT));
        assert_eq!((n.cwnd(), n.ssthresh()), (2_500, 2_500));
        // Less in flight than the window (application-limited): FlightSize decides.
        let mut m = new_reno(&CcConfig {
            mss: 1000,
            initial_window: 40,
            ..CcConfig::default()
        });
        m.on_congestion_event(&loss(SimTime::ZERO, 8_000, RTT, RTT));
        assert_eq!(m.ssthresh(), 4_000);
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
