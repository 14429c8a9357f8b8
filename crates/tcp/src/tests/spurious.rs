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
        assert_eq!(h.a.spur.undos[0].1, SpuriousDetector::Frto);
        // Only the one RTO retransmission; the rest went out as new data.
        assert_eq!(s.retx_rto, 1, "sack {sack}");
    }
}

#[test]
fn eifel_undoes_a_spurious_timeout_rfc3522() {
    let h = run(false, true, true, true);
    let s = h.a.stats();
    assert_eq!(s.spurious_undos, 1);
    assert_eq!(h.a.spur.undos[0].1, SpuriousDetector::Eifel);
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
