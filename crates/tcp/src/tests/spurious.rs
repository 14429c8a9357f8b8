//! Spurious timeouts: F-RTO (RFC 5682) and Eifel detection (RFC 3522) undo after a delay
//! spike, and no undo after a real loss.

use celltcp_engine::SimDuration;

use super::*;
use crate::spurious::SpuriousDetector;

/// A 350 ms stall from `start`: everything sent in [start, start + 350 ms) in either direction
/// is held and released in order at the end (a cellular handover without loss). With
/// RTO = 200 ms it causes exactly one timeout.
fn stall(start: SimTime) -> Rule {
    let end = start + SimDuration::from_ms(350);
    Box::new(move |t, _, _| {
        if t >= start && t < end {
            Fate::Delay(end - t)
        } else {
            Fate::Deliver
        }
    })
}

fn run(frto: bool, eifel: bool, sack: bool, spike: bool) -> Harness {
    let c = TcpConfig {
        frto,
        eifel,
        sack,
        ..cfg()
    };
    let mut h = Harness::new(c, c);
    h.handshake();
    assert!(h.transfer(30_000, secs(10)));
    h.run_until(secs(11), |h| h.a.all_acked());
    if spike {
        h.rule = stall(h.now);
    } else {
        // A real loss of a whole flight.
        let start = h.now;
        let end = start + SimDuration::from_ms(10);
        h.rule = Box::new(move |t, d, _| {
            if d == Dir::AtoB && t >= start && t < end {
                Fate::Drop
            } else {
                Fate::Deliver
            }
        });
    }
    assert!(h.transfer(200_000, secs(60)));
    h
}

#[test]
fn delay_spike_causes_a_timeout_without_detection() {
    let h = run(false, false, true, true);
    assert!(h.a.stats().timeouts >= 1);
    assert_eq!(h.a.stats().spurious_undos, 0);
}

#[test]
fn frto_undoes_a_spurious_timeout_rfc5682() {
    for sack in [false, true] {
        let h = run(true, false, sack, true);
        let s = h.a.stats();
        assert!(s.timeouts >= 1);
        assert_eq!(s.spurious_undos, 1, "sack {sack}");
        assert_eq!(h.a.spurious().undos()[0].1, SpuriousDetector::Frto);
        // Only the one RTO retransmission; the rest went out as new data.
        assert_eq!(s.retx_rto, 1, "sack {sack}");
    }
}

#[test]
fn eifel_undoes_a_spurious_timeout_rfc3522() {
    let h = run(false, true, true, true);
    let s = h.a.stats();
    assert_eq!(s.spurious_undos, 1);
    assert_eq!(h.a.spurious().undos()[0].1, SpuriousDetector::Eifel);
    // The window before the timeout is restored: ssthresh is not the halved value.
    let v = &h.traces.vars;
    let undo = (0..v.var.len())
        .find(|&i| v.var[i] == TraceVar::SpuriousUndo as u8)
        .unwrap();
    assert!(v.value[undo] > 2.0 * MSS as f64);
}

#[test]
fn eifel_needs_timestamps() {
    let c = TcpConfig {
        eifel: true,
        timestamps: false,
        ..cfg()
    };
    let mut h = Harness::new(c, c);
    h.handshake();
    assert!(h.transfer(30_000, secs(10)));
    h.run_until(secs(11), |h| h.a.all_acked());
    h.rule = stall(h.now);
    assert!(h.transfer(100_000, secs(60)));
    assert_eq!(h.a.stats().spurious_undos, 0);
}

#[test]
fn no_undo_after_a_real_loss() {
    for (frto, eifel, sack) in [
        (true, true, true),
        (true, false, false),
        (false, true, true),
    ] {
        let h = run(frto, eifel, sack, false);
        let s = h.a.stats();
        assert!(s.timeouts >= 1, "{frto} {eifel} {sack}");
        assert_eq!(s.spurious_undos, 0, "{frto} {eifel} {sack}");
        assert_eq!(h.delivered, 230_000);
    }
}

/// Runs a 30 kB warm-up, then `rule_at(now)` and a 200 kB transfer with detection as given.
fn run_with(frto: bool, eifel: bool, rule_at: impl FnOnce(SimTime) -> Rule) -> Harness {
    let c = TcpConfig {
        frto,
        eifel,
        ..cfg()
    };
    let mut h = Harness::new(c, c);
    h.handshake();
    assert!(h.transfer(30_000, secs(10)));
    h.run_until(secs(11), |h| h.a.all_acked());
    h.rule = rule_at(h.now);
    assert!(h.transfer(200_000, secs(60)));
    h
}

/// A 1 s stall with RTO = 200 ms: the timer expires twice (after RTO and 2·RTO more) before the
/// first ACK of the original flight arrives. RFC 3522 §3.2 decides on that ACK against the
/// TSval of the first retransmission, so Eifel still finds the timeout spurious.
#[test]
fn eifel_undoes_a_backed_off_spurious_timeout_rfc3522() {
    let stall_1s = |start: SimTime| -> Rule {
        let end = start + SimDuration::from_secs(1);
        Box::new(move |t, _, _| {
            if t >= start && t < end {
                Fate::Delay(end - t)
            } else {
                Fate::Deliver
            }
        })
    };
    let h = run_with(false, true, stall_1s);
    let s = h.a.stats();
    assert!(s.timeouts >= 2, "timeouts {}", s.timeouts);
    assert_eq!(s.spurious_undos, 1);
    assert_eq!(h.a.spurious().undos()[0].1, SpuriousDetector::Eifel);
    // RFC 5682 §2.1 step 1: F-RTO gives up at the second expiry, so alone it cannot tell.
    let h = run_with(true, false, stall_1s);
    assert!(h.a.stats().timeouts >= 2);
    assert_eq!(h.a.stats().spurious_undos, 0);
}

/// A 1 s outage of the data direction: every retransmission before its end is lost, the ACK
/// that finally arrives echoes the TSval of a later retransmission, and nothing is undone.
#[test]
fn eifel_keeps_a_backed_off_genuine_timeout_rfc3522() {
    let h = run_with(true, true, |start| {
        let end = start + SimDuration::from_secs(1);
        Box::new(move |t, d, _| {
            if d == Dir::AtoB && t >= start && t < end {
                Fate::Drop
            } else {
                Fate::Deliver
            }
        })
    });
    let s = h.a.stats();
    assert!(s.timeouts >= 2, "timeouts {}", s.timeouts);
    assert_eq!(s.spurious_undos, 0);
    assert_eq!(h.delivered, 230_000);
}

/// As Linux's `tcp_enter_loss`, `frto_after_repeated_rto` arms F-RTO again at the second and
/// third expiry of a 1 s stall: the delayed originals are acknowledged, the two new segments
/// too, and the timeout is undone where RFC 5682 alone (above) gives up. A real outage of the
/// same length is still repaired without an undo.
#[test]
fn frto_after_repeated_rto_undoes_a_backed_off_spurious_timeout() {
    let run_repeated = |rule_at: fn(SimTime) -> Rule| {
        let c = TcpConfig {
            frto: true,
            frto_after_repeated_rto: true,
            ..cfg()
        };
        let mut h = Harness::new(c, c);
        h.handshake();
        assert!(h.transfer(30_000, secs(10)));
        h.run_until(secs(11), |h| h.a.all_acked());
        h.rule = rule_at(h.now);
        assert!(h.transfer(200_000, secs(60)));
        h
    };
    fn stall_1s(start: SimTime) -> Rule {
        let end = start + SimDuration::from_secs(1);
        Box::new(move |t, _, _| {
            if t >= start && t < end {
                Fate::Delay(end - t)
            } else {
                Fate::Deliver
            }
        })
    }
    fn outage_1s(start: SimTime) -> Rule {
        let end = start + SimDuration::from_secs(1);
        Box::new(move |t, d, _| {
            if d == Dir::AtoB && t >= start && t < end {
                Fate::Drop
            } else {
                Fate::Deliver
            }
        })
    }
    let h = run_repeated(stall_1s);
    let s = h.a.stats();
    assert!(s.timeouts >= 2, "timeouts {}", s.timeouts);
    assert_eq!(s.spurious_undos, 1);
    assert_eq!(h.a.spurious().undos()[0].1, SpuriousDetector::Frto);
    // One retransmission per expiry, no go-back-N of the delayed flight.
    assert_eq!(s.retx_total, s.timeouts);
    let h = run_repeated(outage_1s);
    assert!(h.a.stats().timeouts >= 2);
    assert_eq!(h.a.stats().spurious_undos, 0);
    assert_eq!(h.delivered, 230_000);
}

/// RFC 3522 §3.2 step (1): RetransmitTS is the TSval of the loss recovery's *first*
/// retransmission. A timeout that hits a fast recovery is not where that recovery began: the
/// fast retransmission is. Here segment 10 of the transfer is lost, and from its fast
/// retransmission on the data direction stalls for 350 ms (released in order), so the timer
/// expires in fast recovery. The ACK of the fast retransmission echoes a TSval older than the
/// timeout's retransmission but not older than the first retransmission: no undo (Linux's
/// `tcp_packet_delayed` compares with `retrans_stamp`, the episode's first retransmission,
/// likewise). Keyed to the timeout's own retransmission, Eifel restored the window of the loss.
#[test]
fn eifel_does_not_undo_a_timeout_that_hit_a_fast_recovery_rfc3522_3_2() {
    let h = run_with(false, true, |start| {
        let mut stall: Option<SimTime> = None;
        let iss = cfg().isn;
        let lost = seg(40);
        let mut sends = 0;
        Box::new(move |t, d, p| {
            if d != Dir::AtoB {
                return Fate::Deliver;
            }
            if t >= start && p.payload_len > 0 {
                let off = p.tcp().unwrap().seq.wrapping_sub(iss) as u64;
                if off == lost {
                    sends += 1;
                    if sends == 1 {
                        return Fate::Drop;
                    }
                    stall.get_or_insert(t);
                }
            }
            match stall {
                Some(s) if t < s + SimDuration::from_ms(350) => {
                    Fate::Delay(s + SimDuration::from_ms(350) - t)
                }
                _ => Fate::Deliver,
            }
        })
    });
    let s = h.a.stats();
    assert_eq!(s.fast_recoveries, 1, "{s:?}");
    assert!(s.timeouts >= 1, "{s:?}");
    assert_eq!(s.spurious_undos, 0, "{s:?}");
    assert_eq!(h.delivered, 230_000);
}
