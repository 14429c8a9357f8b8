//! The source eNB's X2-U forwarding from scenario files (`ran.handover.forwarding_rate`,
//! `forwarding_buffer`; docs/handover.md) and the handover row's drops by place.
//!
//! The two-cell network of `tests/data/handover-ran.toml` with a 15 Mb/s UDP stream beside the
//! TCP download, above the cell's rate, so that the 200-packet RLC buffer is full at the
//! handover, and a 20-packet queue on enb1's S1-U uplink: forwarded through the gateway, the
//! source's buffer crosses enb1 → pgw (its transport egress) and pgw → enb2.

use celltcp_scenario::{load_str, run, Column, RunOptions, RunOutput};

#[path = "support/mod.rs"]
mod support;
use support::{column, series};

const RAN: &str = include_str!("../../../tests/data/handover-ran.toml");

fn run_with(extra: &[(&str, &str)]) -> RunOutput {
    let mut owned: Vec<(String, String)> = [
        ("links.s1u1.b_to_a.queue", "{ kind = \"droptail\", limit = \"20p\" }"),
        (
            "flows.cbr",
            "{ kind = \"udp\", src = \"server\", dst = \"ue\", rate = \"15Mbps\", packet_size = \"1400B\" }",
        ),
    ]
    .iter()
    .chain(extra)
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    owned.push(("ran.handover.policy".into(), "forward".into()));
    let scenario = load_str(RAN, &owned).unwrap_or_else(|e| panic!("{e}"));
    run(&scenario, &RunOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn u64_col(out: &RunOutput, name: &str) -> u64 {
    match column(series(out, "handovers"), name) {
        Column::U64(v) => v[0],
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn the_whole_source_buffer_crosses_a_short_egress_queue_without_a_loss() {
    let out = run_with(&[]);
    let f = &out.summary["forwarding"]["enb1"];
    let released = f["released"].as_u64().unwrap();
    assert!(released > 150, "{f}: the RLC buffer was full");
    // Written into enb1's 20-packet egress queue at once, most would have been dropped there.
    assert_eq!(f["dropped"], 0, "{f}");
    assert_eq!(
        out.summary["links"]["s1u1"]["b_to_a"]["drops"]["queue_full"],
        0
    );
    assert_eq!(u64_col(&out, "dropped_source_egress"), 0);
}

#[test]
fn a_small_forwarding_buffer_drops_at_the_source_and_the_row_says_where() {
    let out = run_with(&[("ran.handover.forwarding_buffer", "30p")]);
    let f = &out.summary["forwarding"]["enb1"];
    assert!(f["dropped"].as_u64().unwrap() > 100, "{f}");
    // The TCP flow's share of those losses is in its row, at the source's egress.
    let egress = u64_col(&out, "dropped_source_egress");
    assert!(
        egress > 0 && egress <= f["dropped"].as_u64().unwrap(),
        "{egress} {f}"
    );
    let places: u64 = ["source", "source_egress", "transport", "target", "radio"]
        .iter()
        .map(|p| u64_col(&out, &format!("dropped_{p}")))
        .sum();
    let causes: u64 = [
        "queue_full",
        "aqm",
        "link_loss",
        "outage",
        "no_route",
        "handover",
    ]
    .iter()
    .map(|c| u64_col(&out, &format!("dropped_{c}")))
    .sum();
    assert_eq!((places, causes), (u64_col(&out, "dropped"), places));
    // Without the small buffer the TCP flow lost none of its forwarded packets there.
    assert_eq!(u64_col(&run_with(&[]), "dropped_source_egress"), 0);
}

#[test]
fn a_forwarding_rate_slows_the_forwarding_down() {
    let line = run_with(&[]);
    let slow = run_with(&[("ran.handover.forwarding_rate", "5Mbps")]);
    let wait = |o: &RunOutput| {
        o.summary["forwarding"]["enb1"]["max_wait_s"]
            .as_f64()
            .unwrap()
    };
    // ~200 packets of ~1.5 kB: 24 ms at the 100 Mb/s line rate, 0.48 s at 5 Mb/s.
    assert!(wait(&line) < 0.05, "{}", wait(&line));
    assert!(wait(&slow) > 0.3, "{}", wait(&slow));
}

#[test]
fn the_forwarding_keys_are_checked() {
    for (key, value, expected) in [
        (
            "ran.handover.forwarding_rate",
            "0Mbps",
            "ran.handover.forwarding_rate: '0Mbps' must be > 0",
        ),
        (
            "ran.handover.forwarding_buffer",
            "0p",
            "ran.handover.forwarding_buffer: '0p' must be > 0",
        ),
        (
            "ran.handover.forwarding_rate",
            "fast",
            "ran.handover.forwarding_rate",
        ),
    ] {
        let err = load_str(RAN, &[(key.to_string(), value.to_string())]).unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with(expected), "{key}={value}: {text}");
    }
}
