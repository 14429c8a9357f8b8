//! X2-U forwarding takes a direct X2 link between the eNBs when the topology has one, and goes
//! up to the core and back down when it does not (seed 000 Fig. 1): the data path of a
//! handover is the network's routing, not a shortcut of the radio model.

use celltcp_scenario::{load_str, run, Column, RunOptions, RunOutput};

#[path = "support/mod.rs"]
mod support;
use support::{column, series};

/// The two-cell network of the handover tests (server – pgw – {enb1, enb2}), optionally with a
/// direct enb1 – enb2 (X2) link; the UE is handed over from cell `a` to cell `b` at 0.8 s with
/// forwarding.
const RAN: &str = include_str!("../../../tests/data/handover-ran.toml");

/// 1 Gb/s, 1 ms each way.
const X2_LINK: &str = r#"
[links.x2]
a = "enb1"
b = "enb2"
rate = "1Gbps"
delay = "1ms"
"#;

fn run_it(x2_link: bool) -> RunOutput {
    let text = if x2_link {
        format!("{RAN}{X2_LINK}")
    } else {
        RAN.to_string()
    };
    let overrides = [("ran.handover.policy".to_string(), "forward".to_string())];
    let s = load_str(&text, &overrides).unwrap_or_else(|e| panic!("{e}"));
    run(&s, &RunOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn packets(out: &RunOutput, link: &str, dir: &str) -> u64 {
    out.summary["links"][link][dir]["packets_sent"]
        .as_u64()
        .unwrap_or_else(|| panic!("{link}.{dir}: {}", out.summary["links"][link]))
}

fn forwarded(out: &RunOutput) -> u64 {
    match column(series(out, "handovers"), "forwarded") {
        Column::U64(v) => v.iter().sum(),
        other => panic!("forwarded: {other:?}"),
    }
}

#[test]
fn forwarding_takes_the_x2_link_when_there_is_one() {
    let direct = run_it(true);
    let via_core = run_it(false);
    let (fw_direct, fw_core) = (forwarded(&direct), forwarded(&via_core));
    assert!(fw_direct > 10 && fw_core > 10, "{fw_direct} {fw_core}");
    // Every forwarded G-PDU and the forwarded end marker cross the X2 link, source → target.
    assert_eq!(packets(&direct, "x2", "a_to_b"), fw_direct + 1);
    assert_eq!(packets(&direct, "x2", "b_to_a"), 0);
    // Without it they go up the source's S1-U link to the gateway and down the target's: the
    // source's uplink carries them on top of the UE's ACKs.
    let up_direct = packets(&direct, "s1u1", "b_to_a");
    let up_core = packets(&via_core, "s1u1", "b_to_a");
    assert!(
        up_core >= up_direct + fw_core,
        "s1u1 uplink: {up_core} via the core vs {up_direct} with X2, {fw_core} forwarded"
    );
    // Nothing is lost either way.
    for out in [&direct, &via_core] {
        assert_eq!(out.summary["flows"]["bulk"]["drops"]["handover"], 0);
    }
}
