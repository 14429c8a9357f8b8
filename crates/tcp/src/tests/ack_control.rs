//! Receiver ACK control of the seed `004_…`: copies switch on above the threshold.

use super::*;
use crate::AckControlConfig;

fn lossy(every: u64, enabled: bool) -> Harness {
    let mut cb = cfg();
    cb.ack_copies = AckControlConfig {
        enabled,
        copies: 2,
        threshold: 0.1,
        p_buff: 0.01,
        window_segments: 16,
    };
    let c = cfg();
    let mut h = Harness::new(c, cb);
    let mut n = 0u64;
    h.rule = Box::new(move |_, d, p| {
        if d == Dir::AtoB && p.payload_len > 0 {
            n += 1;
            if every > 0 && n.is_multiple_of(every) {
                return Fate::Drop;
            }
        }
        Fate::Deliver
    });
    h.handshake();
    assert!(h.transfer(300_000, secs(300)));
    h
}

#[test]
fn copies_switch_on_above_the_threshold() {
    let h = lossy(4, true);
    let s = h.b.stats();
    assert!(s.ack_copies_sent > 0);
    assert!(h.b.ack_est.p_err() > 0.1, "{}", h.b.ack_est.p_err());
    // Every copy is an identical pure ACK following its original.
    let acks: Vec<_> = h.sent.iter().filter(|(_, d, _)| *d == Dir::BtoA).collect();
    assert!(acks
        .windows(2)
        .any(|w| w[0].2 == w[1].2 && w[0].0 == w[1].0));
    let v = &h.traces.vars;
    assert!(v.var.contains(&(TraceVar::LossEstimate as u8)));
}

#[test]
fn no_copies_below_the_threshold_or_when_disabled() {
    let h = lossy(0, true);
    assert_eq!(h.b.stats().ack_copies_sent, 0);
    assert_eq!(h.b.ack_est.p_err(), 0.0);
    let h = lossy(4, false);
    assert_eq!(h.b.stats().ack_copies_sent, 0);
}

#[test]
fn the_unmodified_sender_counts_copies_as_duplicates() {
    let h = lossy(4, true);
    let without = lossy(4, false);
    assert!(h.a.stats().acks_received > without.a.stats().acks_received);
}
