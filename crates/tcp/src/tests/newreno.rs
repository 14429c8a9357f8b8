//! RFC 5681 §3.2 fast retransmit, RFC 6582 NewReno fast recovery (SACK off), RFC 3042 limited
//! transmit.

use super::*;
use celltcp_net::packet::FlowId;

fn newreno_cfg() -> TcpConfig {
    TcpConfig {
        sack: false,
        ..cfg()
    }
}

/// Segments of the fourth flight (28..60) exist when cwnd is 32 segments.
fn recover(losses: &[u64]) -> Harness {
    let c = newreno_cfg();
    let mut h = Harness::new(c, c);
    h.rule = drop_first(losses.iter().map(|&k| seg(k)).collect(), c.isn);
    h.handshake();
    assert!(h.transfer(200_000, secs(60)));
    h
}

#[test]
fn one_loss_one_fast_retransmit() {
    let h = recover(&[30]);
    let s = h.a.stats();
    assert_eq!((s.timeouts, s.fast_recoveries, s.retx_fast), (0, 1, 1));
    assert_eq!(h.delivered, 200_000);
}

#[test]
fn two_and_three_losses_in_one_window_recover_by_partial_acks_rfc6582() {
    for losses in [&[30u64, 35][..], &[30, 33, 37][..]] {
        let h = recover(losses);
        let s = h.a.stats();
        assert_eq!(s.timeouts, 0, "{losses:?}");
        assert_eq!(s.fast_recoveries, 1, "{losses:?}");
        assert_eq!(s.retx_fast, losses.len() as u64, "{losses:?}");
        let retx: Vec<u64> = h
            .data_sent()
            .into_iter()
            .filter(|x| x.2)
            .map(|x| x.1)
            .collect();
        assert_eq!(retx, losses.iter().map(|&k| seg(k)).collect::<Vec<_>>());
    }
}

#[test]
fn fast_recovery_sets_ssthresh_to_half_the_flight_and_exits_at_ssthresh() {
    let h = recover(&[30]);
    let v = &h.traces.vars;
    let ss: Vec<f64> = (0..v.var.len())
        .filter(|&i| v.var[i] == TraceVar::Ssthresh as u8 && v.value[i].is_finite())
        .map(|i| v.value[i])
        .collect();
    // FlightSize at the third duplicate ACK: the 32-segment flight... halved.
    assert!(ss[0] >= 15_000.0 && ss[0] <= 20_000.0, "{ss:?}");
    let states: Vec<f64> = (0..v.var.len())
        .filter(|&i| v.var[i] == TraceVar::CcState as u8)
        .map(|i| v.value[i])
        .collect();
    assert!(states.contains(&2.0));
    assert_eq!(*states.last().unwrap(), 1.0);
}

#[test]
fn window_inflation_sends_new_data_during_recovery_rfc6582_3_2_step_3() {
    let h = recover(&[30]);
    // Segments sent after the fast retransmission and before the full ACK are new data.
    let sent = h.data_sent();
    let rx = sent.iter().position(|x| x.2).unwrap();
    let t_rx = sent[rx].0;
    let during: Vec<_> = sent[rx + 1..]
        .iter()
        .filter(|x| x.0 < t_rx + SimDuration::from_ms(100))
        .collect();
    // cwnd = ssthresh + 3·SMSS is below FlightSize; only the further duplicates (one per
    // segment above the hole) inflate it enough to release new segments.
    assert!(
        !during.is_empty() && during.iter().all(|x| !x.2),
        "{during:?}"
    );
    assert!(during.len() < 16, "{}", during.len());
}

#[test]
fn limited_transmit_avoids_a_timeout_rfc3042() {
    for (lt, timeouts) in [(true, 0), (false, 1)] {
        let c = TcpConfig {
            initial_window: 3,
            limited_transmit: lt,
            ..newreno_cfg()
        };
        let mut h = Harness::new(c, c);
        h.rule = drop_first(vec![seg(0)], c.isn);
        h.handshake();
        assert!(h.transfer(20_000, secs(30)));
        assert_eq!(h.a.stats().timeouts, timeouts, "limited transmit {lt}");
        if lt {
            // Two new segments went out on the two duplicate ACKs before the retransmission.
            let sent = h.data_sent();
            let first_retx = sent.iter().position(|x| x.2).unwrap();
            assert_eq!(
                sent[..first_retx].iter().map(|x| x.1).collect::<Vec<_>>(),
                (0..5).map(seg).collect::<Vec<_>>()
            );
        }
    }
}

#[test]
fn no_second_reduction_for_the_same_window_rfc6582_3_2_step_1() {
    // Lose a segment and its fast retransmission: the timeout recovers, and the duplicate ACKs
    // that follow do not start another fast recovery for the same window.
    let c = newreno_cfg();
    let mut h = Harness::new(c, c);
    let mut count = 0;
    let iss = c.isn;
    h.rule = Box::new(move |_, d, p| {
        if d == Dir::AtoB
            && p.payload_len > 0
            && p.tcp().unwrap().seq.wrapping_sub(iss) as u64 == seg(30)
        {
            count += 1;
            if count <= 2 {
                return Fate::Drop;
            }
        }
        Fate::Deliver
    });
    h.handshake();
    assert!(h.transfer(200_000, secs(60)));
    let s = h.a.stats();
    assert_eq!(s.timeouts, 1);
    assert_eq!(s.fast_recoveries, 1);
}

/// RFC 5681 §3.2 step 6 against RFC 6582: with three losses in one window and no SACK, Reno
/// leaves recovery at the first partial ACK and needs a new reduction (or a timeout) for each
/// further hole, while NewReno repairs all three in one recovery.
#[test]
fn reno_exits_recovery_on_a_partial_ack_newreno_does_not() {
    let run = |name: &str| {
        let c = newreno_cfg();
        let cc = |c: &TcpConfig| crate::cc::build(name, &c.cc_config()).unwrap();
        let a = TcpEndpoint::connect(c, cc(&c), A, B, FlowId(1), SimTime::ZERO);
        let b = TcpEndpoint::listen(c, cc(&c), B, FlowId(1));
        let mut h = Harness::with(a, b);
        h.rule = drop_first([30u64, 33, 37].iter().map(|&k| seg(k)).collect(), c.isn);
        h.handshake();
        assert!(h.transfer(200_000, secs(60)), "{name} completes");
        h.a.stats().clone()
    };
    let newreno = run("newreno");
    assert_eq!((newreno.fast_recoveries, newreno.timeouts), (1, 0));
    let reno = run("reno");
    assert!(reno.fast_recoveries + reno.timeouts >= 2, "reno: {reno:?}");
}
