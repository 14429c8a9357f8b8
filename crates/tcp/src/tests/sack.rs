//! RFC 2018 SACK blocks and RFC 6675 loss recovery.

use celltcp_net::packet::FlowId;
use celltcp_net::packet::TcpFlags;

use super::*;

#[test]
fn many_losses_in_one_window_without_timeout_rfc6675() {
    let losses: Vec<u64> = vec![30, 32, 34, 36, 38, 40, 41, 42, 50, 55];
    let c = cfg();
    let mut h = Harness::new(c, c);
    h.rule = drop_first(losses.iter().map(|&k| seg(k)).collect(), c.isn);
    h.handshake();
    assert!(h.transfer(200_000, secs(60)));
    let s = h.a.stats();
    assert_eq!(s.timeouts, 0);
    assert_eq!(s.fast_recoveries, 1);
    assert_eq!(s.retx_fast, losses.len() as u64);
    // Every lost segment retransmitted exactly once, and nothing else.
    let mut retx: Vec<u64> = h
        .data_sent()
        .into_iter()
        .filter(|x| x.2)
        .map(|x| x.1)
        .collect();
    retx.sort();
    assert_eq!(retx, losses.iter().map(|&k| seg(k)).collect::<Vec<_>>());
    assert_eq!(h.delivered, 200_000);
}

#[test]
fn newreno_needs_a_round_trip_per_loss_sack_does_not() {
    let losses: Vec<u64> = vec![30, 33, 36, 39, 42];
    let mut durations = vec![];
    for sack in [false, true] {
        let c = TcpConfig { sack, ..cfg() };
        let mut h = Harness::new(c, c);
        h.rule = drop_first(losses.iter().map(|&k| seg(k)).collect(), c.isn);
        h.handshake();
        assert!(h.transfer(100_000, secs(60)));
        // Without SACK the five holes need five round trips of partial ACKs, longer than the
        // RTO that the first partial ACK started (RFC 6582 §3.2 step 5), so the timer ends
        // the recovery; SACK repairs them all within the first round trip.
        let timeouts = if sack { 0 } else { 1 };
        assert_eq!(h.a.stats().timeouts, timeouts, "sack {sack}");
        durations.push(h.now);
    }
    assert!(durations[1] < durations[0], "{durations:?}");
}

#[test]
fn ack_carries_at_most_three_blocks_with_timestamps_four_without_rfc2018_3() {
    for (ts, max) in [(true, 3usize), (false, 4)] {
        let c = TcpConfig {
            timestamps: ts,
            ..cfg()
        };
        let mut h = Harness::new(c, c);
        h.rule = drop_first(
            [20u64, 22, 24, 26, 28, 30]
                .iter()
                .map(|&k| seg(k))
                .collect(),
            c.isn,
        );
        h.handshake();
        assert!(h.transfer(100_000, secs(60)));
        let most = h
            .sent
            .iter()
            .filter(|(_, d, _)| *d == Dir::BtoA)
            .map(|(_, _, p)| p.tcp().unwrap().options.sack_len as usize)
            .max()
            .unwrap();
        assert_eq!(most, max, "timestamps {ts}");
        assert!(h
            .sent
            .iter()
            .all(|(_, _, p)| p.size_bytes() <= 20 + 60 + p.payload_len));
        let _ = TcpFlags::ACK;
    }
}

#[test]
fn rescue_retransmission_recovers_a_lost_tail_rfc6675_4_rule_4() {
    // The last segments of the transfer are lost with too few segments after them for three
    // duplicate ACKs above each: recovery still completes without a timeout only if the
    // scoreboard rules fire; at minimum all data is delivered.
    let c = cfg();
    let total = 40_000u64;
    let mut h = Harness::new(c, c);
    h.rule = drop_first(vec![seg(33), seg(38)], c.isn);
    h.handshake();
    assert!(h.transfer(total, secs(60)));
    assert_eq!(h.delivered, total);
    assert_eq!(h.a.stats().fast_recoveries, 1);
}

/// A fast retransmission that is lost again ends in a timeout while the data sent during
/// recovery is still queued at the bottleneck. The ACKs that then arrive SACK that data but
/// leave SND.UNA at the hole: RFC 5681 §3.1 grows cwnd only on ACKs that cumulatively
/// acknowledge new data, so the window stays at one segment and the timer's retransmission is
/// the only segment sent until it is acknowledged. (Growing on the SACKed bytes instead would
/// rebuild the old window within that round trip and resend, go-back-N, the queued flight.)
#[test]
fn sack_only_acks_after_a_timeout_do_not_grow_cwnd_rfc5681_3_1() {
    for name in ["newreno", "westwood", "westwood-original", "petra", "cubic"] {
        let c = cfg();
        let cc = |c: &TcpConfig| crate::cc::build(name, &c.cc_config()).unwrap();
        let a = TcpEndpoint::connect(c, cc(&c), A, B, FlowId(1), SimTime::ZERO);
        let b = TcpEndpoint::listen(c, cc(&c), B, FlowId(1));
        let mut h = Harness::with(a, b);
        // 8 Mb/s: one 1000-byte segment per millisecond, so a window above the 100-segment
        // BDP queues at the bottleneck.
        h.rate_bps = Some(8_000_000);
        let iss = c.isn;
        let mut seen = 0u32;
        h.rule = Box::new(move |_, dir, p| {
            if dir == Dir::AtoB
                && p.payload_len > 0
                && p.tcp().unwrap().seq.wrapping_sub(iss) as u64 == seg(400)
            {
                seen += 1;
                if seen <= 2 {
                    return Fate::Drop;
                }
            }
            Fate::Deliver
        });
        h.handshake();
        h.to_write = 2_000_000;
        while h.a.stats().timeouts == 0 {
            assert!(h.step(secs(30)), "{name}: no timeout");
        }
        let una = h.a.send_window().una();
        let sacked_at_rto = h.a.stats().acks_received;
        let sent_at_rto = h.data_sent().len();
        let mut max_cwnd = h.a.cc().cwnd();
        // Segments sent before the step whose ACK finally advances SND.UNA.
        let mut sent_before_advance = sent_at_rto;
        while h.a.send_window().una() == una {
            sent_before_advance = h.data_sent().len();
            assert!(
                h.step(secs(30)),
                "{name}: retransmission never acknowledged"
            );
            if h.a.send_window().una() == una {
                max_cwnd = max_cwnd.max(h.a.cc().cwnd());
            }
        }
        // ACKs did arrive for the queued flight while SND.UNA stood still.
        assert!(h.a.stats().acks_received > sacked_at_rto + 10, "{name}");
        assert_eq!(max_cwnd, MSS, "{name}");
        assert_eq!(
            sent_before_advance, sent_at_rto,
            "{name}: only the RTO retransmission"
        );
        assert!(
            h.run_until(secs(60), |h| h.delivered >= 2_000_000),
            "{name} completes"
        );
    }
}

/// One loss in a large window over a 8 Mbit/s bottleneck (an ACK per millisecond), with and
/// without PRR. Returns the new segments sent in the first 25 ms after the fast retransmission
/// and the harness.
fn prr_run(prr: bool) -> (usize, Harness) {
    let c = TcpConfig { prr, ..cfg() };
    let mut h = Harness::new(c, c);
    h.rate_bps = Some(8_000_000);
    h.rule = drop_first(vec![seg(150)], c.isn);
    h.handshake();
    assert!(h.transfer(400_000, secs(60)));
    let sent = h.data_sent();
    let (t_retx, _, _) = *sent.iter().find(|x| x.2).expect("a retransmission");
    let early = sent
        .iter()
        .filter(|(t, _, retx)| !retx && *t > t_retx && *t < t_retx + SimDuration::from_ms(25))
        .count();
    (early, h)
}

/// RFC 6937 §3: with PRR the sender keeps sending during the first half of the recovery, one
/// segment for every 1/(ssthresh/RecoverFS) = 2 delivered, instead of waiting silently until
/// the pipe has fallen below the halved cwnd (RFC 6675 §5) and then sending the rest at once.
#[test]
fn prr_spreads_the_reduction_over_the_recovery_rfc6937() {
    let (without, h0) = prr_run(false);
    let (with, h1) = prr_run(true);
    assert_eq!(without, 0, "RFC 6675 alone waits until pipe < cwnd");
    // 25 ms of ACKs at one per millisecond: about 12 new segments at the 1/2 proportion.
    assert!(
        (9..=14).contains(&with),
        "PRR sent {with} new segments in 25 ms"
    );
    for h in [&h0, &h1] {
        let s = h.a.stats();
        assert_eq!((s.timeouts, s.fast_recoveries, s.retx_fast), (0, 1, 1));
        assert_eq!(h.delivered, 400_000);
    }
}

/// RFC 8985 §6.2 applies to every segment in flight, retransmissions included, whatever the
/// recovery state (Linux runs it on every ACK of fast recovery too): a fast retransmission
/// lost again is overtaken by the new segments sent after it, and once RACK.rtt + min_RTT/4
/// has passed since it left it is sent a third time — within the fast recovery, not after a
/// retransmission timeout (RFC 6298 §5), which after a queue overflow on a slow path finds the
/// repairs still queued and resends the flight by go-back-N.
#[test]
fn a_lost_fast_retransmission_is_resent_within_fast_recovery_rfc8985_6_2() {
    // RFC 6298's 1 s minimum RTO: the expiry would come well after the detection.
    let c = TcpConfig {
        min_rto: SimDuration::from_secs(1),
        ..cfg()
    };
    assert!(c.sack && c.detect_lost_retransmissions);
    let mut h = Harness::new(c, c);
    h.handshake();
    // Segment 30 is lost, and so is its fast retransmission.
    let iss = c.isn;
    let mut sends = 0u32;
    h.rule = Box::new(move |_, dir, p| {
        if dir == Dir::AtoB && p.payload_len > 0 {
            let off = p.tcp().unwrap().seq.wrapping_sub(iss) as u64;
            if off == seg(30) {
                sends += 1;
                if sends <= 2 {
                    return Fate::Drop;
                }
            }
        }
        Fate::Deliver
    });
    assert!(h.transfer(200_000, secs(60)));
    let s = h.a.stats();
    assert_eq!(s.timeouts, 0, "{s:?}");
    assert_eq!(s.fast_recoveries, 1, "{s:?}");
    assert_eq!(s.lost_retransmissions, 1, "{s:?}");
    let seg30: Vec<SimTime> = h
        .data_sent()
        .iter()
        .filter(|x| x.1 == seg(30))
        .map(|x| x.0)
        .collect();
    assert_eq!(seg30.len(), 3, "{seg30:?}");
    // Resent about a round trip (100 ms) and reo_wnd after the lost retransmission.
    let gap = seg30[2] - seg30[1];
    assert!(
        gap >= SimDuration::from_ms(100) && gap < SimDuration::from_ms(250),
        "{seg30:?}"
    );
}

/// The resend of a lost retransmission of the segment at SND.UNA restarts the retransmission
/// timer, as Linux re-arms it whenever it retransmits the head of its retransmission queue
/// (`tcp_xmit_retransmit_queue`). With a 200 ms RTO on a 100 ms path, the timer started at the
/// last advance of SND.UNA would expire a few milliseconds before the ACK of the resend
/// (RACK finds the loss a round trip and reo_wnd after the lost retransmission), and go-back-N
/// would resend everything above it.
#[test]
fn resending_a_lost_retransmission_of_snd_una_restarts_the_timer() {
    let c = cfg();
    let mut h = Harness::new(c, c);
    h.handshake();
    let iss = c.isn;
    let mut sends = 0u32;
    h.rule = Box::new(move |_, dir, p| {
        if dir == Dir::AtoB && p.payload_len > 0 {
            let off = p.tcp().unwrap().seq.wrapping_sub(iss) as u64;
            if off == seg(30) {
                sends += 1;
                if sends <= 2 {
                    return Fate::Drop;
                }
            }
        }
        Fate::Deliver
    });
    assert!(h.transfer(200_000, secs(60)));
    let s = h.a.stats();
    assert_eq!(s.lost_retransmissions, 1, "{s:?}");
    assert_eq!(s.timeouts, 0, "{s:?}");
    assert_eq!(s.retx_total, 2, "{s:?}");
}
