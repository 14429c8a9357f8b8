//! Snoop at the base station (Balakrishnan, Seshan, Amir & Katz, MobiCom 1995) against plain
//! end-to-end NewReno on a lossy last hop (`middlebox_common`: 100 Mb/s, 20 ms wired, then
//! 10 Mb/s, 1 ms radio losing each packet towards the UE with probability PER).
//!
//! The receiver's buffer is 128 KB (a window of 88 segments, 2.4 bandwidth-delay products), so
//! that the base station's 100-packet queue never overflows: every loss is a radio loss, and
//! every fast retransmit the sender makes is one Snoop failed to hide. Runs last 20 s; figures
//! are medians (goodput) or sums (counts) over master seeds 1–3, and a seed's loss stream is
//! the same with and without Snoop (the link's own random stream).
//!
//! Measured (NewReno without SACK, RFC 6582; goodput in Mb/s of payload, capacity 9.65;
//! counts summed over the three seeds):
//!
//! | PER | without Snoop | with Snoop | ratio | sender fast retransmits / radio losses, without → with |
//! |---|---|---|---|---|
//! | 1 % | 3.40 | 9.49 | 2.79 | 167/167 → 0/495 |
//! | 5 % | 1.30 | 8.66 | 6.66 | 295/332 → 0/2317 |
//! | 10 % | 0.74 | 6.19 | 8.40 | 316/424 → 82/3390 |
//! | 5 %, SACK | 1.64 | 8.64 | 5.26 | 390/416 → 0/2308 |
//!
//! With Snoop the radio hop carries about four times as many packets, so it also loses more.
//! At 10 % the few fast retransmits left follow sender timeouts (a tail segment and its local
//! retransmissions all lost), whose go-back-N refills the cache with sender retransmissions.

mod middlebox_common;
use middlebox_common::*;

const SEEDS: std::ops::RangeInclusive<u64> = 1..=3;

/// Median goodput, and sums of sender fast retransmits, radio losses, Snoop local
/// retransmissions and suppressed duplicate ACKs over [`SEEDS`].
#[derive(Debug)]
struct Figures {
    goodput_bps: f64,
    retx_fast: f64,
    radio_losses: f64,
    local_retx: f64,
    suppressed: f64,
}

fn figures(per: f64, sack: bool, snoop: bool) -> Figures {
    let mut goodputs = Vec::new();
    let mut f = Figures {
        goodput_bps: 0.0,
        retx_fast: 0.0,
        radio_losses: 0.0,
        local_retx: 0.0,
        suppressed: 0.0,
    };
    for seed in SEEDS {
        let mut c = LastHop::new("20s", Some(per));
        c.tcp = format!("rcv_buf = \"128KB\"\nsack = {sack}");
        if snoop {
            c.middleboxes = SNOOP.into();
        }
        let out = c.run(seed);
        goodputs.push(bulk(&out, &["goodput_bps"]));
        f.retx_fast += bulk(&out, &["sender", "retx_fast"]);
        f.radio_losses += radio_losses(&out);
        assert_eq!(queue_drops(&out), 0.0, "no congestion loss by design");
        if snoop {
            f.local_retx += middlebox(&out, "snoop", &["local_retransmissions"]);
            f.suppressed += middlebox(&out, "snoop", &["dupacks_suppressed"]);
        }
    }
    f.goodput_bps = median(goodputs);
    f
}

/// Snoop raises goodput by at least `min_ratio` and hides (almost) every radio loss from the
/// sender; returns the ratio.
fn snoop_beats_newreno(per: f64, sack: bool, min_ratio: f64) -> f64 {
    let plain = figures(per, sack, false);
    let snoop = figures(per, sack, true);
    let ratio = snoop.goodput_bps / plain.goodput_bps;
    println!(
        "PER {per} SACK {sack}: {:.2} -> {:.2} Mb/s (x{ratio:.2}); sender fast retransmits / radio losses {:.0}/{:.0} -> {:.0}/{:.0}; local retransmissions {:.0}, duplicate ACKs suppressed {:.0}",
        plain.goodput_bps / 1e6,
        snoop.goodput_bps / 1e6,
        plain.retx_fast,
        plain.radio_losses,
        snoop.retx_fast,
        snoop.radio_losses,
        snoop.local_retx,
        snoop.suppressed,
    );
    assert!(ratio >= min_ratio, "PER {per}: ratio {ratio}");
    // Without Snoop most radio losses cost the sender a fast retransmit (the rest a timeout).
    assert!(plain.retx_fast >= 0.5 * plain.radio_losses, "{plain:?}");
    // With Snoop the sender sees almost none of them: at most 5 % of the losses.
    assert!(snoop.retx_fast <= 0.05 * snoop.radio_losses, "{snoop:?}");
    // The base station repaired them: about one local retransmission per loss.
    assert!(snoop.local_retx >= 0.9 * snoop.radio_losses, "{snoop:?}");
    assert!(snoop.local_retx <= 1.1 * snoop.radio_losses, "{snoop:?}");
    assert!(snoop.suppressed > snoop.radio_losses, "{snoop:?}");
    ratio
}

#[test]
fn snoop_beats_newreno_at_per_1_percent() {
    snoop_beats_newreno(0.01, false, 1.5);
}

#[test]
fn snoop_beats_newreno_at_per_5_percent() {
    snoop_beats_newreno(0.05, false, 1.5);
}

#[test]
fn snoop_beats_newreno_at_per_10_percent() {
    snoop_beats_newreno(0.1, false, 1.5);
}

/// With SACK (the endpoint's default) Snoop also removes the SACK blocks that report the holes
/// it repairs, so the sender's RFC 6675 recovery does not start either.
#[test]
fn snoop_beats_newreno_with_sack_at_per_5_percent() {
    snoop_beats_newreno(0.05, true, 1.5);
}

/// Losses before the base station (on the wired link) never reach its cache: their duplicate
/// ACKs go on to the sender, which repairs them by fast retransmit as without Snoop.
#[test]
fn losses_before_the_base_station_are_left_to_the_sender() {
    let run = |snoop: bool| {
        let mut c = LastHop::new("20s", None);
        c.wired_per = Some(0.01);
        c.tcp = "rcv_buf = \"128KB\"\nsack = false".into();
        if snoop {
            // The radio hop has no loss model here: the mobile host is named.
            c.middleboxes = format!("{SNOOP}mobile = [\"ue\"]\n");
        }
        c.run(1)
    };
    let (plain, snoop) = (run(false), run(true));
    let s = |path: &str| middlebox(&snoop, "snoop", &[path]);
    assert_eq!(s("local_retransmissions"), 0.0);
    assert!(s("cache_misses") > 0.0 && s("dupacks_passed") > 0.0);
    let retx = |o| bulk(o, &["sender", "retx_fast"]);
    assert!(retx(&snoop) > 0.0);
    let (g0, g1) = (
        bulk(&plain, &["goodput_bps"]),
        bulk(&snoop, &["goodput_bps"]),
    );
    println!(
        "wired losses: goodput {:.2} vs {:.2} Mb/s, fast retransmits {} vs {}",
        g0 / 1e6,
        g1 / 1e6,
        retx(&plain),
        retx(&snoop)
    );
    assert!((g1 / g0 - 1.0).abs() < 0.1, "{g0} vs {g1}");
}

#[test]
fn the_summary_reports_what_snoop_did() {
    let mut c = LastHop::new("5s", Some(0.05));
    c.middleboxes = SNOOP.into();
    let out = c.run(1);
    let m = &out.summary["middleboxes"]["snoop"];
    assert_eq!(
        (m["kind"].as_str(), m["node"].as_str()),
        (Some("snoop"), Some("bs"))
    );
    for key in [
        "local_retransmissions",
        "local_timeouts",
        "dupacks_suppressed",
        "dupacks_passed",
        "cache_hits",
        "cache_misses",
        "packets_seen",
        "packets_absorbed",
        "packets_emitted",
    ] {
        assert!(m[key].is_number(), "{key}: {m}");
    }
    // Every packet Snoop emitted is a local retransmission or an ACK sent for the mobile,
    // and counts as sent in the flow's network counters.
    let emitted = middlebox(&out, "snoop", &["packets_emitted"]);
    let retx = middlebox(&out, "snoop", &["local_retransmissions"]);
    let acks = middlebox(&out, "snoop", &["acks_generated"]);
    assert_eq!(emitted, retx + acks);
    assert_eq!(bulk(&out, &["middlebox_packets_sent"]), emitted);
    assert_eq!(
        bulk(&out, &["middlebox_absorbed"]),
        middlebox(&out, "snoop", &["packets_absorbed"])
    );
}

#[test]
fn same_inputs_same_summary() {
    let mut c = LastHop::new("5s", Some(0.05));
    c.middleboxes = SNOOP.into();
    let a = c.run(7).summary.to_string();
    let b = c.run(7).summary.to_string();
    assert_eq!(a, b);
}
