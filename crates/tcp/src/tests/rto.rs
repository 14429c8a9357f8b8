//! RFC 6298: backoff during an outage, Karn's rule, go-back-N after an expiry.

use celltcp_engine::SimDuration;

use super::*;

#[test]
fn backoff_sequence_during_an_outage_rfc6298_5_5() {
    let mut c = cfg();
    c.max_rto = SimDuration::from_secs(8);
    let mut h = Harness::new(c, c);
    h.handshake();
    assert!(h.transfer(20_000, secs(5)));
    let outage_start = h.now;
    let end = outage_start + SimDuration::from_secs(40);
    h.rule = Box::new(move |t, _, _| if t < end { Fate::Drop } else { Fate::Deliver });
    let rto0 = h.a.rto();
    assert!(h.transfer(5_000, secs(200)));
    let retx: Vec<SimTime> = h
        .data_sent()
        .iter()
        .filter(|(t, _, r)| *r && *t >= outage_start)
        .map(|(t, _, _)| *t)
        .collect();
    let gaps: Vec<u64> = retx.windows(2).map(|w| (w[1] - w[0]).as_ns()).collect();
    // 1st expiry after RTO, then 2, 4, 8... × RTO, capped at max_rto (8 s).
    let r = rto0.as_ns();
    let expected: Vec<u64> = [2 * r, 4 * r, 8 * r, 16 * r, 32 * r]
        .iter()
        .map(|&g| g.min(8_000_000_000))
        .collect();
    assert!(gaps.len() >= 5, "{gaps:?}");
    assert_eq!(&gaps[..5], &expected[..], "rto0 {rto0}");
    assert!(
        gaps[5..].iter().all(|&g| g == 8_000_000_000 || g < r),
        "{gaps:?}"
    );
    assert!(h.a.stats().timeouts >= 6);
    assert_eq!(h.delivered, 25_000);
}

#[test]
fn karn_no_sample_from_a_retransmitted_segment_rfc6298_3() {
    let mut c = cfg();
    c.timestamps = false;
    let mut h = Harness::new(c, c);
    h.handshake();
    let samples = h.a.stats().rtt_samples;
    let rto0 = h.a.rto();
    h.rule = drop_first(vec![seg(0)], c.isn);
    assert!(h.transfer(1_000, secs(10)));
    h.run_until(secs(11), |h| h.a.all_acked());
    assert_eq!(h.a.stats().timeouts, 1);
    // The ACK of the retransmission gave no sample and the backoff stays.
    assert_eq!(h.a.stats().rtt_samples, samples);
    assert_eq!(h.a.rto(), SimDuration(rto0.0 * 2));
    // A segment sent once gives a sample, and the RTO is recomputed from SRTT.
    assert!(h.transfer(1_000, secs(20)));
    h.run_until(secs(21), |h| h.a.all_acked());
    assert_eq!(h.a.stats().rtt_samples, samples + 1);
    assert!(h.a.rto() <= rto0);
}

#[test]
fn no_sample_from_an_ack_that_covers_a_retransmission_and_older_originals() {
    // Three segments, the first lost: two duplicate ACKs do not trigger fast retransmit, the
    // RTO does. The ACK of the retransmission also covers segments 1 and 2, sent once but an
    // RTO earlier; timing them would count the timeout as path delay.
    let c = TcpConfig {
        timestamps: false,
        sack: false,
        ..cfg()
    };
    let mut h = Harness::new(c, c);
    h.handshake();
    let samples = h.a.stats().rtt_samples;
    let srtt = h.a.srtt();
    h.rule = drop_first(vec![seg(0)], c.isn);
    assert!(h.transfer(3 * MSS, secs(10)));
    h.run_until(secs(11), |h| h.a.all_acked());
    assert_eq!((h.a.stats().timeouts, h.a.stats().retx_fast), (1, 0));
    assert_eq!(h.a.stats().rtt_samples, samples);
    assert_eq!(h.a.srtt(), srtt);
}

#[test]
fn go_back_n_in_slow_start_after_an_expiry_rfc5681_3_1() {
    let mut c = cfg();
    c.sack = false;
    let mut h = Harness::new(c, c);
    h.handshake();
    // Lose the whole second flight (segments 4..11) once.
    h.rule = drop_first((4..12).map(seg).collect(), c.isn);
    assert!(h.transfer(30_000, secs(30)));
    let s = h.a.stats();
    assert_eq!(s.timeouts, 1);
    assert_eq!(s.retx_rto, 8);
    assert_eq!(s.retx_fast, 0);
    let retx: Vec<(SimTime, u64)> = h
        .data_sent()
        .into_iter()
        .filter(|x| x.2)
        .map(|x| (x.0, x.1))
        .collect();
    // In order, from SND.UNA: one segment, then two, then four... (slow start from 1 MSS).
    let offs: Vec<u64> = retx.iter().map(|x| x.1).collect();
    assert_eq!(offs, (4..12).map(seg).collect::<Vec<_>>());
    let mut bursts: Vec<usize> = vec![];
    let mut last = None;
    for (t, _) in &retx {
        if Some(*t) == last {
            *bursts.last_mut().unwrap() += 1;
        } else {
            bursts.push(1);
        }
        last = Some(*t);
    }
    assert_eq!(bursts[0], 1);
    assert_eq!(bursts[1], 2);
    assert_eq!(h.delivered, 30_000);
}

#[test]
fn timer_stops_when_all_is_acknowledged_rfc6298_5_2() {
    let mut h = Harness::new(cfg(), cfg());
    h.handshake();
    assert!(h.transfer(10_000, secs(5)));
    h.run_until(secs(6), |h| h.a.all_acked());
    assert_eq!(h.a.poll_timeout(), None);
}

/// RFC 6582 §3.2 step 5: during NewReno fast recovery only the first partial ACK restarts the
/// retransmission timer. Twelve holes in one 32-segment flight need twelve round trips of
/// partial ACKs; the timer set at the first one expires after one RTO (≥ 200 ms, two round
/// trips of 100 ms here), while holes are still open, and go-back-N repairs the rest.
#[test]
fn newreno_partial_acks_restart_the_timer_once_rfc6582() {
    let c = TcpConfig {
        sack: false,
        ..cfg()
    };
    let mut h = Harness::new(c, c);
    let holes: Vec<u64> = (0..12).map(|i| seg(30 + 2 * i)).collect();
    h.rule = drop_first(holes, c.isn);
    h.handshake();
    h.to_write = 200_000;
    let mut deadline_after_first = None;
    while h.a.stats().timeouts == 0 {
        assert!(h.step(secs(30)), "no timeout");
        let partial = h.a.recovery().partial_acks();
        if h.a.recovery_phase() == crate::RecoveryPhase::FastRecovery && partial >= 1 {
            // Later partial ACKs leave the deadline where the first one put it.
            let d = *deadline_after_first.get_or_insert(h.a.rtt_estimator().timer_deadline());
            if h.a.stats().timeouts == 0 {
                assert_eq!(
                    h.a.rtt_estimator().timer_deadline(),
                    d,
                    "after {partial} partial ACKs"
                );
            }
        }
    }
    let s = h.a.stats();
    assert_eq!(s.fast_recoveries, 1);
    assert!(
        h.a.recovery().partial_acks() < 12,
        "{} partial ACKs",
        h.a.recovery().partial_acks()
    );
    assert!(h.run_until(secs(60), |h| h.delivered >= 200_000));
}

/// RFC 8985 §6.2, as Linux applies it in its Loss state: during go-back-N after an expiry, a
/// retransmission that segments sent after it overtake (they are SACKed) is lost once RACK.rtt
/// plus min_RTT/4 has passed since it was sent, and goes out again at once. Without the rule
/// the lost retransmission waited for a second, backed-off expiry (RFC 6298 §5.5).
#[test]
fn a_lost_go_back_n_retransmission_is_resent_without_a_second_timeout_rfc8985() {
    // RFC 6298's 1 s minimum RTO: the second expiry would come well after the detection.
    let c = TcpConfig {
        min_rto: SimDuration::from_secs(1),
        ..cfg()
    };
    assert!(c.sack);
    let mut h = Harness::new(c, c);
    h.handshake();
    // The whole second flight (segments 4..11) is lost once, and segment 5's first
    // retransmission too.
    let iss = c.isn;
    let mut sends: std::collections::HashMap<u64, u32> = std::collections::HashMap::new();
    h.rule = Box::new(move |_, dir, p| {
        if dir == Dir::AtoB && p.payload_len > 0 {
            let off = p.tcp().unwrap().seq.wrapping_sub(iss) as u64;
            let n = sends.entry(off).or_insert(0);
            *n += 1;
            let lost = (seg(4)..seg(12)).contains(&off) && *n == 1 || off == seg(5) && *n == 2;
            if lost {
                return Fate::Drop;
            }
        }
        Fate::Deliver
    });
    assert!(h.transfer(30 * MSS, secs(30)));
    let s = h.a.stats();
    assert_eq!(s.timeouts, 1, "{s:?}");
    assert!(s.lost_retransmissions >= 1, "{s:?}");
    let seg5: Vec<SimTime> = h
        .data_sent()
        .iter()
        .filter(|x| x.1 == seg(5))
        .map(|x| x.0)
        .collect();
    assert_eq!(seg5.len(), 3, "{seg5:?}");
    // Resent two round trips (100 ms each) after the lost retransmission: the SACK of the
    // segment sent one round later is the first to come after RACK.rtt + min_RTT/4.
    assert_eq!(seg5[2] - seg5[1], SimDuration::from_ms(200), "{seg5:?}");
}

/// A bulk sender whose send buffer (16 segments) limits its flight is application-limited in
/// the delivery-rate sense (its window grows past the 16 segments the buffer fills). When
/// the whole flight is lost, go-back-N after the expiry is still slow start from one segment
/// (RFC 5681 §3.1): bursts of 1, 2, 4 and 8 retransmissions. With the application-limited mark
/// of the lost flight left in place, every retransmission's ACK counted as application-limited
/// and the window stayed at one segment: 16 bursts of 1, one per round trip.
#[test]
fn go_back_n_grows_after_an_expiry_of_a_send_buffer_limited_flight_rfc5681_3_1() {
    let mut c = cfg();
    c.sack = false;
    c.snd_buf_bytes = 16 * MSS;
    // NewReno itself: the harness's own controller does not apply RFC 7661's rule.
    let reno = || crate::cc::build("newreno", &c.cc_config()).unwrap();
    let a = TcpEndpoint::connect(c, reno(), A, B, FlowId(1), SimTime::ZERO);
    let b = TcpEndpoint::listen(c, reno(), B, FlowId(1));
    let mut h = Harness::with(a, b);
    h.handshake();
    h.rule = drop_first((150..166).map(seg).collect(), c.isn);
    assert!(h.transfer(300 * MSS, secs(60)));
    assert_eq!(h.a.stats().timeouts, 1);
    let retx: Vec<SimTime> = h
        .data_sent()
        .into_iter()
        .filter(|x| x.2)
        .map(|x| x.0)
        .collect();
    let mut bursts: Vec<usize> = vec![];
    let mut last = None;
    for t in &retx {
        if Some(*t) == last {
            *bursts.last_mut().unwrap() += 1;
        } else {
            bursts.push(1);
        }
        last = Some(*t);
    }
    assert_eq!(retx.len(), 16, "{bursts:?}");
    assert_eq!(&bursts[..4], &[1, 2, 4, 8], "{bursts:?}");
}
