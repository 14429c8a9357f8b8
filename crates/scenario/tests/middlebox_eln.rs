//! Explicit Loss Notification (Balakrishnan & Katz, GLOBECOM 1998): the base station marks the
//! ACKs that ask for a segment its radio link lost, and a sender with `tcp.eln` retransmits it
//! without halving its window. On the lossy last hop of `middlebox_common` (100 Mb/s, 20 ms
//! wired, then 10 Mb/s, 1 ms radio), NewReno with SACK (the endpoint's default).
//!
//! With the receiver's buffer at 128 KB the base station's queue never overflows, so every
//! loss is a radio loss: ELN should leave no window reduction at all. With a short queue and a
//! large buffer, losses are congestion: ELN must change nothing.
//!
//! Measured (20 s, medians of goodput and sums of counts over seeds 1–3; Mb/s of payload):
//!
//! | PER | NewReno | NewReno + ELN | ratio | window reductions, without → with ELN | ELN fast retransmits / timeouts |
//! |---|---|---|---|---|---|
//! | 1 % | 3.66 | 7.95 | 2.17 | 152 → 0 | 222 / 3 |
//! | 5 % | 1.64 | 5.26 | 3.20 | 260 → 0 | 239 / 73 |
//! | 10 % | 1.06 | 3.12 | 2.94 | 298 → 1 | 191 / 145 |
//!
//! ELN keeps the window but, unlike Snoop, still repairs each loss end to end: at 10 % the
//! sender spends its time in recovery and retransmission timeouts (answered without a
//! reduction), so goodput stays well below Snoop's. With 1 % radio loss and a 20-packet queue
//! (`congestion_still_halves_the_window_with_eln`, seed 1): 158 queue drops, 158 radio
//! losses, 11 window reductions and 98 ELN fast retransmits.

mod middlebox_common;
use middlebox_common::*;

const SEEDS: std::ops::RangeInclusive<u64> = 1..=3;

/// Median goodput, and sums of the sender's window reductions (fast recoveries and timeouts
/// not answered as ELN), ELN recoveries and timeouts, radio losses and marked ACKs.
#[derive(Debug, Default)]
struct Figures {
    goodput_bps: f64,
    reductions: f64,
    eln_recoveries: f64,
    eln_timeouts: f64,
    radio_losses: f64,
    acks_marked: f64,
}

fn reductions(out: &celltcp_scenario::RunOutput) -> f64 {
    let s = |k: &str| bulk(out, &["sender", k]);
    s("fast_recoveries") - s("eln_recoveries") + s("timeouts") - s("eln_timeouts")
}

fn figures(per: f64, eln: bool) -> Figures {
    let mut goodputs = Vec::new();
    let mut f = Figures::default();
    for seed in SEEDS {
        let mut c = LastHop::new("20s", Some(per));
        c.tcp = format!("rcv_buf = \"128KB\"\neln = {eln}");
        if eln {
            c.middleboxes = ELN.into();
        }
        let out = c.run(seed);
        assert_eq!(queue_drops(&out), 0.0, "no congestion loss by design");
        goodputs.push(bulk(&out, &["goodput_bps"]));
        f.reductions += reductions(&out);
        f.eln_recoveries += bulk(&out, &["sender", "eln_recoveries"]);
        f.eln_timeouts += bulk(&out, &["sender", "eln_timeouts"]);
        f.radio_losses += radio_losses(&out);
        if eln {
            f.acks_marked += middlebox(&out, "eln", &["acks_marked"]);
            // The marker hears of every radio loss of a data segment (not of a lost SYN-ACK).
            let recorded = middlebox(&out, "eln", &["losses_recorded"]);
            assert!(recorded <= radio_losses(&out) && recorded >= radio_losses(&out) - 3.0);
        }
    }
    f.goodput_bps = median(goodputs);
    f
}

fn eln_keeps_the_window(per: f64, min_ratio: f64) {
    let plain = figures(per, false);
    let eln = figures(per, true);
    let ratio = eln.goodput_bps / plain.goodput_bps;
    println!(
        "PER {per}: {:.2} -> {:.2} Mb/s (x{ratio:.2}); window reductions {:.0} -> {:.0} (radio losses {:.0} -> {:.0}); ELN fast retransmits {:.0}, ELN timeouts {:.0}, ACKs marked {:.0}",
        plain.goodput_bps / 1e6,
        eln.goodput_bps / 1e6,
        plain.reductions,
        eln.reductions,
        plain.radio_losses,
        eln.radio_losses,
        eln.eln_recoveries,
        eln.eln_timeouts,
        eln.acks_marked,
    );
    assert!(ratio >= min_ratio, "PER {per}: ratio {ratio}");
    assert!(plain.reductions >= 0.4 * plain.radio_losses, "{plain:?}");
    // No halving for radio losses: at most 1 % of them end in a reduction (a hole whose
    // retransmission waited in the station's queue while its duplicate ACKs passed unmarked).
    assert!(eln.reductions <= 0.01 * eln.radio_losses, "{eln:?}");
    assert!(eln.eln_recoveries > 0.0 && eln.acks_marked > 0.0, "{eln:?}");
    assert_eq!((plain.eln_recoveries, plain.eln_timeouts), (0.0, 0.0));
}

#[test]
fn eln_keeps_the_window_at_per_1_percent() {
    eln_keeps_the_window(0.01, 1.5);
}

#[test]
fn eln_keeps_the_window_at_per_5_percent() {
    eln_keeps_the_window(0.05, 1.5);
}

#[test]
fn eln_keeps_the_window_at_per_10_percent() {
    eln_keeps_the_window(0.1, 1.5);
}

/// Congestion only: no radio loss, a 20-packet queue at the base station and a 4 MB receive
/// buffer. The marker hears of no loss and marks nothing, so the run is the plain one, packet
/// for packet.
#[test]
fn eln_changes_nothing_under_congestion_losses() {
    let run = |eln: bool| {
        let mut c = LastHop::new("20s", None);
        c.bs_queue = "20p".into();
        c.tcp = format!("eln = {eln}");
        if eln {
            c.middleboxes = format!("{ELN}\n");
        }
        c.run(1)
    };
    let (plain, eln) = (run(false), run(true));
    assert!(queue_drops(&plain) > 10.0, "the queue overflows");
    assert_eq!(middlebox(&eln, "eln", &["acks_marked"]), 0.0);
    for key in [
        "goodput_bps",
        "packets_sent",
        "packets_delivered",
        "loss_ratio",
        "delay_mean_s",
    ] {
        assert_eq!(bulk(&plain, &[key]), bulk(&eln, &[key]), "{key}");
    }
    assert_eq!(
        plain.summary["flows"]["bulk"]["sender"],
        eln.summary["flows"]["bulk"]["sender"]
    );
    assert!(reductions(&eln) > 0.0);
}

/// Radio and congestion losses together: ELN hides the radio ones only; the sender still
/// halves its window for the queue's drops.
#[test]
fn congestion_still_halves_the_window_with_eln() {
    let mut c = LastHop::new("20s", Some(0.01));
    c.bs_queue = "20p".into();
    c.tcp = "eln = true".into();
    c.middleboxes = ELN.into();
    let out = c.run(1);
    let drops = queue_drops(&out);
    let r = reductions(&out);
    println!(
        "1 % radio loss and a 20-packet queue: {} queue drops, {} radio losses, {r} reductions, {} ELN fast retransmits",
        drops,
        radio_losses(&out),
        bulk(&out, &["sender", "eln_recoveries"])
    );
    assert!(
        drops > 0.0 && r > 0.0 && r <= drops,
        "{drops} drops, {r} reductions"
    );
    assert!(bulk(&out, &["sender", "eln_recoveries"]) > 0.0);
}

/// The mark alone changes nothing: a sender without `tcp.eln` ignores it, so a run with the
/// marker is the plain run.
#[test]
fn a_sender_without_eln_ignores_the_mark() {
    let run = |marker: bool| {
        let mut c = LastHop::new("10s", Some(0.05));
        if marker {
            c.middleboxes = ELN.into();
        }
        c.run(2)
    };
    let (plain, marked) = (run(false), run(true));
    let acks_marked = middlebox(&marked, "eln", &["acks_marked"]);
    assert!(acks_marked > 0.0);
    // The sender counts the marks on the ACKs it processes (not those below SND.UNA), and
    // does nothing else with them.
    let received = bulk(&marked, &["sender", "eln_acks_received"]);
    assert!(
        received > 0.0 && received <= acks_marked,
        "{received} of {acks_marked}"
    );
    assert_eq!(
        bulk(&plain, &["goodput_bps"]),
        bulk(&marked, &["goodput_bps"])
    );
    let mut sender = marked.summary["flows"]["bulk"]["sender"].clone();
    sender["eln_acks_received"] = 0.0.into();
    assert_eq!(plain.summary["flows"]["bulk"]["sender"], sender);
}
