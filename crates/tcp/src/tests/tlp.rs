//! RFC 8985 §7: a loss at the tail of a flight is repaired after a probe two SRTTs on, not
//! after a retransmission timeout.

use celltcp_engine::SimDuration;

use super::*;

/// RFC 6298's 1 s floor keeps the RTO well above the PTO (2·SRTT = 200 ms on the harness's
/// 100 ms path), so that the two repairs are told apart.
fn tail_cfg(tlp: bool) -> TcpConfig {
    TcpConfig {
        min_rto: SimDuration::from_secs(1),
        tlp,
        ..cfg()
    }
}

/// Ten segments, the last three dropped at their first transmission: nothing follows them
/// to draw duplicate ACKs. Returns the harness after the transfer, the time the last original
/// segment left and the first retransmission after it.
fn tail_loss(tlp: bool) -> (Harness, SimTime, (SimTime, u64)) {
    let c = tail_cfg(tlp);
    let mut h = Harness::new(c, c);
    h.handshake();
    // A first transfer gives RTT samples; the tail loss is in the second.
    assert!(h.transfer(4_000, secs(5)));
    let base = h.delivered;
    let first = base + 1;
    h.rule = drop_first((7..10).map(|k| first + k * MSS).collect::<Vec<_>>(), c.isn);
    assert!(h.transfer(10_000, secs(30)));
    let sent = h.data_sent();
    let last_original = sent
        .iter()
        .filter(|(_, off, retx)| !retx && *off == first + 9 * MSS)
        .map(|(t, _, _)| *t)
        .next()
        .expect("the last segment was sent");
    let first_retx = sent
        .iter()
        .find(|(t, _, retx)| *retx && *t > last_original)
        .map(|(t, off, _)| (*t, *off))
        .expect("the tail was retransmitted");
    (h, last_original, first_retx)
}

#[test]
fn a_tail_loss_is_repaired_after_a_probe_at_two_srtt_instead_of_a_timeout() {
    let (h, last, (probe_at, probe_off)) = tail_loss(true);
    let srtt = h.a.srtt();
    assert_eq!(h.a.stats().timeouts, 0);
    // §7.2: the PTO is 2·SRTT after the last transmission (several segments in flight);
    // §7.3: with no new data the probe is the highest-sequence segment.
    assert_eq!(probe_at - last, SimDuration(2 * srtt.0), "srtt {srtt}");
    assert_eq!(probe_off, 4_001 + 9 * MSS);
    // §7.4.1: its SACK marks the two segments below it lost, and fast recovery sends them.
    assert_eq!(h.a.stats().fast_recoveries, 1);
    assert_eq!(h.a.stats().retx_total, 3);
}

#[test]
fn without_tlp_the_same_tail_waits_for_the_retransmission_timer() {
    let (h, last, (retx_at, retx_off)) = tail_loss(false);
    assert_eq!(h.a.stats().timeouts, 1);
    assert!(
        retx_at - last >= SimDuration::from_secs(1),
        "{}",
        retx_at - last
    );
    // The timeout resends from SND.UNA, the first lost segment.
    assert_eq!(retx_off, 4_001 + 7 * MSS);
}

#[test]
fn the_last_segment_alone_lost_is_probed_with_the_delayed_ack_allowance() {
    let c = tail_cfg(true);
    let mut h = Harness::new(c, c);
    h.handshake();
    assert!(h.transfer(4_000, secs(5)));
    // One segment in flight: PTO = 2·SRTT + 200 ms (TLP.max_ack_delay).
    h.rule = drop_first(vec![4_001], c.isn);
    let start = h.now;
    assert!(h.transfer(1_000, secs(30)));
    let sent = h.data_sent();
    let original = sent.iter().find(|(t, _, _)| *t >= start).expect("sent").0;
    let probe = sent.iter().find(|(_, _, retx)| *retx).expect("probed").0;
    assert_eq!(
        probe - original,
        SimDuration(2 * h.a.srtt().0) + crate::tlp::MAX_ACK_DELAY
    );
    assert_eq!(h.a.stats().timeouts, 0);
}

#[test]
fn no_probe_is_sent_when_tlp_is_off_or_nothing_is_lost() {
    // Off: the transfer with its tail lost above has no retransmission before the RTO.
    let (_, last, (retx_at, _)) = tail_loss(false);
    assert!(retx_at - last > SimDuration::from_ms(900));
    // On, with nothing lost: every ACK arrives within the PTO and no probe goes out.
    let c = tail_cfg(true);
    let mut h = Harness::new(c, c);
    h.handshake();
    assert!(h.transfer(50_000, secs(30)));
    h.run_until(secs(40), |h| h.a.all_acked());
    assert_eq!(h.a.stats().retx_total, 0);
}
