//! The window after a retransmission timeout: ssthresh from the data really in flight, and
//! held for the whole RTO recovery episode (RFC 5681 §3.1, RFC 6675 §5.1).

use celltcp_net::packet::Packet;

use super::*;

/// Drops the first `times` transmissions of the data segment starting at `offset`.
fn drop_transmissions(offset: u64, times: u32, iss: u32) -> Rule {
    let mut seen = 0u32;
    Box::new(move |_, dir, p: &Packet| {
        if dir == Dir::AtoB
            && p.payload_len > 0
            && p.tcp().unwrap().seq.wrapping_sub(iss) as u64 == offset
        {
            seen += 1;
            if seen <= times {
                return Fate::Drop;
            }
        }
        Fate::Deliver
    })
}

/// Steps the harness until A's `timeouts` counter reaches `n`; returns A's pipe just before
/// the expiry that made it so.
fn run_to_timeout(h: &mut Harness, n: u64, limit: SimTime) -> u64 {
    loop {
        let pipe = h.a.bytes_in_flight();
        assert!(h.step(limit), "no timeout number {n} before {limit}");
        if h.a.stats().timeouts >= n {
            return pipe;
        }
    }
}

/// A fast retransmission that is itself lost ends in a timeout while most of the window above
/// the hole is SACKed. The reduction halves the RFC 6675 pipe, not SND.NXT − SND.UNA: the
/// latter also counts the SACKed data and the new data sent during recovery, and halving it
/// would set ssthresh above the window recovery had settled on.
#[test]
fn timeout_after_lost_fast_retransmit_halves_pipe_not_sequence_span_rfc5681_3_1() {
    // Without RACK's rule (RFC 8985 §6.2) the lost fast retransmission waits for the timer.
    let c = TcpConfig {
        detect_lost_retransmissions: false,
        ..cfg()
    };
    let mut h = Harness::new(c, c);
    h.rule = drop_transmissions(seg(40), 2, c.isn);
    h.handshake();
    h.to_write = 200_000;
    let pipe = run_to_timeout(&mut h, 1, secs(30));
    let span = h.a.send_window().nxt() - h.a.send_window().una();
    assert_eq!(h.a.stats().fast_recoveries, 1);
    assert!(span > 2 * pipe, "span {span} pipe {pipe}");
    assert_eq!(h.a.cc().ssthresh(), (pipe / 2).max(2 * MSS));
    assert_eq!(h.a.cc().cwnd(), MSS);
    assert!(h.run_until(secs(60), |h| h.delivered >= 200_000));
}

/// A second expiry before the first one's recovery point is acknowledged finds SND.UNA at a
/// segment the timer already resent: RFC 5681 §3.1 holds ssthresh, even though ACKs advanced
/// SND.UNA in between (which ends the RFC 6298 backoff, not the RTO recovery episode).
#[test]
fn second_timeout_in_one_rto_recovery_holds_ssthresh_rfc5681_3_1() {
    let mut c = cfg();
    c.sack = false;
    let mut h = Harness::new(c, c);
    h.handshake();
    // Grow the window to 16 segments, then lose a whole flight of it, so that only the timer
    // can recover; segment 22 of that flight is lost again when the timer resends it.
    assert!(h.transfer(12 * MSS, secs(5)));
    let first = h.a.send_window().nxt();
    let k = (first - 1) / MSS;
    let mut lost: std::collections::HashMap<u64, u32> = (k..k + 16).map(|i| (seg(i), 1)).collect();
    lost.insert(seg(k + 6), 2);
    let iss = c.isn;
    h.rule = Box::new(move |_, dir, p| {
        if dir == Dir::AtoB && p.payload_len > 0 {
            let off = p.tcp().unwrap().seq.wrapping_sub(iss) as u64;
            if let Some(n) = lost.get_mut(&off) {
                if *n > 0 {
                    *n -= 1;
                    return Fate::Drop;
                }
            }
        }
        Fate::Deliver
    });
    h.to_write = 16 * MSS;
    run_to_timeout(&mut h, 1, secs(20));
    let held = h.a.cc().ssthresh();
    assert_eq!(held, 8 * MSS, "half of the 16 lost segments");
    let una_at_first = h.a.send_window().una();
    run_to_timeout(&mut h, 2, secs(20));
    // The episode advanced SND.UNA (segments k..k+5 were recovered) before the second expiry.
    assert_eq!(h.a.send_window().una(), seg(k + 6));
    assert!(h.a.send_window().una() > una_at_first);
    assert_eq!(h.a.cc().ssthresh(), held);
    assert_eq!(h.a.cc().cwnd(), MSS);
    assert!(h.run_until(secs(60), |h| h.delivered >= 28 * MSS));
}

/// `rto_keeps_recovery_ssthresh`, as Linux's `tcp_enter_loss` ("Reduce ssthresh if it has not
/// yet been made inside this window"): the timeout that ends a fast recovery of the same
/// window leaves ssthresh where the recovery set it; cwnd still falls to one segment. Without
/// the option RFC 5681 §3.1 halves the pipe again (the test above).
#[test]
fn timeout_in_fast_recovery_keeps_its_ssthresh_as_linux_tcp_enter_loss() {
    let c = TcpConfig {
        rto_keeps_recovery_ssthresh: true,
        detect_lost_retransmissions: false,
        ..cfg()
    };
    let mut h = Harness::new(c, c);
    h.rule = drop_transmissions(seg(40), 2, c.isn);
    h.handshake();
    h.to_write = 200_000;
    let mut in_recovery = None;
    while h.a.stats().timeouts == 0 {
        if h.a.recovery_phase() == crate::RecoveryPhase::FastRecovery {
            in_recovery = Some(h.a.cc().ssthresh());
        }
        assert!(h.step(secs(30)), "no timeout");
    }
    let recovery_ssthresh = in_recovery.expect("a fast recovery before the timeout");
    assert_eq!(h.a.stats().fast_recoveries, 1);
    assert_eq!(h.a.cc().ssthresh(), recovery_ssthresh);
    assert_eq!(h.a.cc().cwnd(), MSS);
    assert!(h.run_until(secs(60), |h| h.delivered >= 200_000));
}
