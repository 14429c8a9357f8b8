//! UDP over a WCDMA dedicated channel in a network: the saturated rate at BLER 0 and with
//! block errors, MaxDAT discards, determinism.

#[path = "support/mod.rs"]
mod support;

use celltcp_scenario::{load_str, run, RunOptions, RunOutput};
use serde_json::Value;

/// The DCH network of the tests' support with a saturating CBR to the UE.
fn scenario(dch_extra: &str, secs: u64) -> String {
    support::dch_network(secs, dch_extra, support::DCH_SATURATING_CBR)
}

fn run_text(text: &str) -> RunOutput {
    let sc = load_str(text, &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
    run(&sc, &RunOptions::default()).unwrap()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// IP bytes delivered to the UE per second over the whole run, bit/s.
fn delivered_rate(out: &RunOutput, secs: f64) -> f64 {
    f(&out.summary["dch"]["radio"]["sdu_bytes_delivered"]) * 8.0 / secs
}

#[test]
fn at_bler_zero_the_dch_delivers_its_payload_rate_less_one_li_per_packet() {
    // The RLC buffer must hold the excess offered over 20 s (116 kbit/s × 20 s ≈ 290 kB).
    let out = run_text(&scenario("rlc = { buffer = \"1MB\" }", 20));
    let dch = &out.summary["dch"]["radio"];
    // R · S / (S + 1) with S = 1028: every packet costs its bytes and one 1-byte LI in the
    // 40-byte data fields of 12 blocks per 10 ms TTI. The first packet reaches the RNC at
    // 10.08 ms and the last blocks take 30 ms to arrive: the channel runs for 19.96 s.
    let formula = 384_000.0 * 1028.0 / 1029.0;
    let rate = f(&dch["sdu_bytes_delivered"]) * 8.0 / 19.96;
    eprintln!("BLER 0: {rate:.0} bit/s delivered, formula {formula:.0}");
    assert!((rate / formula - 1.0).abs() < 0.002, "{rate} vs {formula}");
    assert_eq!(f(&dch["pdus_retransmitted"]), 0.0);
    assert_eq!(f(&dch["tbs_lost"]), 0.0);
    // UDP sends no uplink data: no STATUS PDUs share the downlink.
    assert_eq!(f(&dch["status_pdus"]), 0.0);
}

#[test]
fn with_bler_and_unlimited_max_dat_the_rate_is_r_times_one_minus_bler() {
    for bler in [0.1, 0.2] {
        let extra = format!("bler = {bler}\nrlc = {{ buffer = \"1MB\", max_dat = \"unlimited\" }}");
        let out = run_text(&scenario(&extra, 20));
        let dch = &out.summary["dch"]["radio"];
        let rate = delivered_rate(&out, 20.0);
        let expected = 384_000.0 * (1.0 - bler) * 1028.0 / 1029.0;
        eprintln!(
            "BLER {bler}: {rate:.0} bit/s vs {expected:.0} ({:.4}); measured BLER {}, {} \
             retransmissions, {} uplink STATUS blocks, {} lost packets",
            rate / expected,
            dch["bler_measured"],
            dch["pdus_retransmitted"],
            dch["uplink"]["status_pdus"],
            out.summary["flows"]["cbr"]["drops"]
        );
        // Within 4 %: over 20 s, in-order delivery still lags the recovery of the latest
        // losses at the end (up to a few hundred ms).
        assert!(
            (rate / expected - 1.0).abs() < 0.04,
            "BLER {bler}: {rate} vs {expected}"
        );
        assert_eq!(f(&dch["max_dat_discards"]), 0.0);
    }
}

#[test]
fn max_dat_discards_sdus_and_the_rest_arrive() {
    // 10 datagrams per second of 11 bytes (39-byte IP packets, one 40-byte data field each),
    // BLER 0.5 on the downlink, MaxDAT 2: each is discarded with probability 0.5² = 0.25.
    let text = scenario("bler = 0.5\nuplink_bler = 0.0\nrlc = { max_dat = 2 }", 400).replace(
        "rate = \"500kbps\"\npacket_size = \"1000B\"",
        "rate = \"880bps\"\npacket_size = \"11B\"",
    );
    let out = run_text(&text);
    let dch = &out.summary["dch"]["radio"];
    let sent = f(&out.summary["flows"]["cbr"]["packets_sent"]);
    let discarded = f(&dch["max_dat_discards"]);
    let delivered = f(&dch["sdus_delivered"]);
    eprintln!(
        "MaxDAT 2, BLER 0.5: {discarded} of {sent} discarded ({} expected)",
        sent * 0.25
    );
    // σ = sqrt(4000 × 0.25 × 0.75) ≈ 27. A PDU waiting for its retransmission also goes when
    // a higher one is discarded (the MRW moves the receiver's whole window, 25.322 §11.6), which
    // only adds: about −4σ / +8σ.
    let expected = sent * 0.25;
    assert!(
        discarded > expected - 110.0 && discarded < expected + 220.0,
        "{discarded} of {sent}"
    );
    // Every datagram is delivered or discarded, but for those still in the RLC at the end (10
    // per second are sent; a recovery takes a few hundred ms).
    assert!(
        delivered + discarded >= sent - 10.0,
        "{delivered} + {discarded} of {sent}"
    );
    assert!(
        delivered + discarded <= sent,
        "{delivered} + {discarded} of {sent}"
    );
}

#[test]
fn the_same_seed_gives_the_same_summary() {
    let text = scenario("bler = 0.1", 5);
    let a = serde_json::to_string(&run_text(&text).summary).unwrap();
    let b = serde_json::to_string(&run_text(&text).summary).unwrap();
    assert_eq!(a, b);
    let c = run(
        &load_str(&text, &[]).unwrap(),
        &RunOptions {
            seed: Some(9),
            ..Default::default()
        },
    )
    .unwrap();
    assert_ne!(a, serde_json::to_string(&c.summary).unwrap());
}
