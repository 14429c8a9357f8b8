//! Receiver ACK control of the seed `004_…`: copies switch on at the threshold, and the
//! terminal's estimate is kept across the connections it receives.

use super::*;
use crate::ack_control::TerminalLossEstimate;
use crate::AckControlConfig;

fn ack_cfg(enabled: bool) -> AckControlConfig {
    AckControlConfig {
        enabled,
        copies: 2,
        threshold: 0.1,
        p_buff: 0.01,
        window_segments: 16,
    }
}

/// A connected pair whose A → B path drops every `every`-th data segment (0: none), B's
/// estimator on `terminal` when one is given.
fn pair(every: u64, enabled: bool, terminal: Option<&TerminalLossEstimate>) -> Harness {
    pair_with(every, ack_cfg(enabled), terminal)
}

fn pair_with(
    every: u64,
    ack: AckControlConfig,
    terminal: Option<&TerminalLossEstimate>,
) -> Harness {
    let mut cb = cfg();
    cb.ack_copies = ack;
    let mut h = Harness::new(cfg(), cb);
    if let Some(t) = terminal {
        h.b.attach_terminal_estimate(t.clone());
    }
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
    h
}

fn lossy(every: u64, enabled: bool) -> Harness {
    let mut h = pair(every, enabled, None);
    assert!(h.transfer(300_000, secs(300)));
    h
}

/// B's pure ACKs (SYN-ACK excluded) in order, each with whether it repeats the ACK just before
/// it (a copy).
fn b_acks(h: &Harness) -> Vec<(Packet, bool)> {
    let acks: Vec<Packet> = h
        .sent
        .iter()
        .filter(|(_, d, p)| {
            *d == Dir::BtoA && p.payload_len == 0 && p.tcp().unwrap().flags == TcpFlags::ACK
        })
        .map(|(_, _, p)| *p)
        .collect();
    acks.iter()
        .enumerate()
        .map(|(i, p)| (*p, i > 0 && acks[i - 1] == *p))
        .collect()
}

#[test]
fn copies_switch_on_above_the_threshold() {
    let h = lossy(4, true);
    let s = h.b.stats();
    assert!(s.ack_copies_sent > 0);
    assert!(
        h.b.ack_loss_estimator().p_err() > 0.1,
        "{}",
        h.b.ack_loss_estimator().p_err()
    );
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
    assert_eq!(h.b.ack_loss_estimator().p_err(), 0.0);
    let h = lossy(4, false);
    assert_eq!(h.b.stats().ack_copies_sent, 0);
}

#[test]
fn the_unmodified_sender_counts_copies_as_duplicates() {
    let h = lossy(4, true);
    let without = lossy(4, false);
    assert!(h.a.stats().acks_received > without.a.stats().acks_received);
}

#[test]
fn threshold_zero_copies_every_ack_of_a_lossless_connection() {
    let mut cb = cfg();
    cb.ack_copies = AckControlConfig {
        threshold: 0.0,
        ..ack_cfg(true)
    };
    let mut h = Harness::new(cfg(), cb);
    h.handshake();
    assert!(h.transfer(50_000, secs(60)));
    let acks = b_acks(&h);
    let originals = acks.iter().filter(|(_, copy)| !copy).count() as u64;
    assert_eq!(h.b.stats().ack_copies_sent, originals);
    assert_eq!(h.b.ack_loss_estimator().p_err(), 0.0);
}

#[test]
fn a_new_connection_starts_from_the_terminal_estimate() {
    let terminal = TerminalLossEstimate::new();
    let mut first = pair(4, true, Some(&terminal));
    assert!(first.transfer(300_000, secs(300)));
    let learnt = terminal.p_err();
    assert!(learnt > 0.1, "{learnt}");

    // The next connection of the terminal has a loss-free path: its first ACK is already
    // repeated, and the copies stop once its loss-free windows have pulled the estimate down.
    let mut next = pair(0, true, Some(&terminal));
    assert!(next.transfer(300_000, secs(300)));
    let acks = b_acks(&next);
    let first_data_ack = acks
        .iter()
        .position(|(p, _)| p.tcp().unwrap().ack != acks[0].0.tcp().unwrap().ack)
        .expect("data was acknowledged");
    assert!(
        acks[first_data_ack + 1].1,
        "the first data ACK is sent twice"
    );
    assert!(!acks.last().unwrap().1, "no copies once the estimate fell");
    assert!(next.b.stats().ack_copies_sent > 0);
    assert!(terminal.p_err() < 0.1);

    // The same connection on a private estimate starts from p = 0 and never repeats an ACK.
    let mut alone = pair(0, true, None);
    assert!(alone.transfer(300_000, secs(300)));
    assert_eq!(alone.b.stats().ack_copies_sent, 0);
}

#[test]
fn concurrent_connections_feed_one_terminal_estimate() {
    // A lossy and a loss-free connection received at once, stepped in time order. With one
    // terminal estimate the loss-free connection repeats its ACKs too, and both record the
    // estimate in their traces; with private estimates it never does. The lossy connection
    // loses one segment in four but carries fewer segments than the clean one, so the
    // terminal's observed loss ratio falls well below 1/4 while both run: a threshold of 0.03.
    let ack = AckControlConfig {
        threshold: 0.03,
        ..ack_cfg(true)
    };
    let run = |shared: bool| {
        let terminal = TerminalLossEstimate::new();
        let t = shared.then_some(&terminal);
        let mut lossy = pair_with(4, ack, t);
        let mut clean = pair_with(0, ack, t);
        // The clean connection starts writing 2 s after the lossy one, once the terminal's
        // estimate has risen.
        lossy.to_write = 300_000;
        let mut limit = lossy.now.max(clean.now);
        let mut clean_started = false;
        while limit < secs(300) && (lossy.delivered < 300_000 || clean.delivered < 300_000) {
            limit += SimDuration::from_ms(1);
            if !clean_started && limit >= secs(2) {
                clean.to_write = 300_000;
                clean_started = true;
            }
            while lossy.step(limit) {}
            while clean.step(limit) {}
        }
        assert_eq!((lossy.delivered, clean.delivered), (300_000, 300_000));
        (terminal, lossy, clean)
    };
    let (terminal, lossy, clean) = run(true);
    let loss_estimate = TraceVar::LossEstimate as u8;
    assert!(lossy.traces.vars.var.contains(&loss_estimate));
    assert!(clean.traces.vars.var.contains(&loss_estimate));
    assert!(clean.b.stats().ack_copies_sent > 0);
    assert_eq!(clean.b.ack_loss_estimator().p_err(), terminal.p_err());
    assert_eq!(lossy.b.ack_loss_estimator().p_err(), terminal.p_err());

    let (_, _, clean_alone) = run(false);
    assert_eq!(clean_alone.b.stats().ack_copies_sent, 0);
    assert_eq!(clean_alone.b.ack_loss_estimator().p_err(), 0.0);
}
