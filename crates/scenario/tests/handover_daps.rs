//! The DAPS handover on a drive (python/celltcp/examples/handover/daps-drive.toml): against
//! the classic procedure on the same drive and seed, the interruption is 0, TCP does not time
//! out where the classic handover with `discard` makes it, and the download gets every byte
//! exactly once, in order.

use celltcp_scenario::{load_str, run, RunOptions, RunOutput};
use serde_json::Value;

const DRIVE: &str = include_str!("../../../python/celltcp/examples/handover/daps-drive.toml");

fn run_with(overrides: &[(&str, &str)]) -> RunOutput {
    let owned: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let scenario = load_str(DRIVE, &owned).unwrap_or_else(|e| panic!("{e}"));
    run(&scenario, &RunOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// The first object in `v` (depth first) that has key `key`.
fn find_with<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    match v {
        Value::Object(m) if m.contains_key(key) => Some(v),
        Value::Object(m) => m.values().find_map(|x| find_with(x, key)),
        Value::Array(a) => a.iter().find_map(|x| find_with(x, key)),
        _ => None,
    }
}

/// What one run shows.
#[derive(Debug)]
struct Figures {
    /// Per handover, s.
    interruptions: Vec<f64>,
    timeouts: f64,
    retransmissions: f64,
    dupacks: f64,
    goodput_bps: f64,
    /// The RAN's report: packets lost to the handover, packets delivered to the UE out of
    /// order or twice.
    dropped: f64,
    reordered: f64,
}

fn figures(label: &str, out: &RunOutput) -> Figures {
    let list = out.summary["handovers"]["list"]
        .as_array()
        .expect("handover list");
    let num = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
    let flow = &out.summary["flows"]["download"];
    let ran = find_with(&out.summary, "packets_reordered").expect("the RAN's report");
    let f = Figures {
        interruptions: list.iter().map(|r| num(&r["interruption_s"])).collect(),
        timeouts: num(&flow["sender"]["timeouts"]),
        retransmissions: num(&flow["sender"]["retransmissions"]),
        dupacks: num(&flow["sender"]["dupacks_received"]),
        goodput_bps: num(&flow["goodput_bps"]),
        dropped: num(&ran["packets_dropped_handover"]),
        reordered: num(&ran["packets_reordered"]),
    };
    eprintln!("{label}: {f:?}");
    f
}

/// Measured (seed 1, debug or release alike):
/// * DAPS: interruptions [0, 0] s, 0 timeouts, 0 retransmissions, 0 duplicate ACKs, goodput
///   17.37 Mb/s, 0 packets lost or delivered out of order;
/// * classic, discard: interruptions [0.21, 0.21] s, 2 timeouts (174 segments resent), goodput
///   16.37 Mb/s, 147 packets lost;
/// * classic, forward: interruptions [0.21, 0.21] s, 2 timeouts (the interruption outlasts
///   the 200 ms minimum RTO; 174 segments resent), goodput 16.50 Mb/s, nothing lost.
#[test]
fn daps_has_no_interruption_and_no_timeout_where_classic_discard_times_out() {
    let daps = figures("daps", &run_with(&[]));
    let discard = figures(
        "classic discard",
        &run_with(&[
            ("ran.handover.procedure", "classic"),
            ("ran.handover.policy", "discard"),
        ]),
    );
    let forward = figures(
        "classic forward",
        &run_with(&[("ran.handover.procedure", "classic")]),
    );
    assert_eq!(daps.interruptions, vec![0.0, 0.0]);
    for c in [&discard, &forward] {
        assert_eq!(c.interruptions.len(), 2);
        assert!(
            c.interruptions.iter().all(|&i| (i - 0.210).abs() < 1e-9),
            "{c:?}"
        );
    }
    assert_eq!(daps.timeouts, 0.0);
    assert!(discard.timeouts >= 1.0, "{discard:?}");
    // Exactly once, in order: the RAN delivered nothing twice or out of order and lost
    // nothing, and TCP saw no hole (no duplicate ACK, no retransmission).
    assert_eq!((daps.dropped, daps.reordered), (0.0, 0.0), "{daps:?}");
    assert_eq!((daps.dupacks, daps.retransmissions), (0.0, 0.0), "{daps:?}");
    assert!(discard.dropped > 0.0);
    assert!(daps.goodput_bps > discard.goodput_bps && daps.goodput_bps > forward.goodput_bps);
}

fn load_err(overrides: &[(&str, &str)]) -> String {
    let owned: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    match load_str(DRIVE, &owned) {
        Ok(_) => panic!("{overrides:?} loaded"),
        Err(e) => e.to_string(),
    }
}

/// DAPS goes only with policy "forward" and reordering on: "discard" would lose what the
/// source has not delivered, "fast_path_switch" and "predicted" move the path before the UE
/// can be served at the target, and two legs feed one PDCP receiver, which must reorder.
#[test]
fn procedure_errors_name_the_key() {
    assert_eq!(
        load_err(&[("ran.handover.procedure", "dapz")]),
        "ran.handover.procedure: 'dapz' is not one of: classic, daps, conditional"
    );
    for policy in ["discard", "fast_path_switch", "predicted"] {
        let e = load_err(&[("ran.handover.policy", policy)]);
        assert!(
            e.starts_with(&format!(
                "ran.handover.policy: '{policy}' does not go with procedure = \"daps\"; expected \"forward\""
            )),
            "{e}"
        );
    }
    let e = load_err(&[("ran.handover.reordering", "false")]);
    assert!(
        e.starts_with("ran.handover.reordering: false does not go with procedure = \"daps\""),
        "{e}"
    );
    let e = load_err(&[
        ("ran.handover.procedure", "classic"),
        ("ran.handover.daps.handover_success", "5ms"),
    ]);
    assert_eq!(
        e,
        "ran.handover.daps: is given but procedure is \"classic\"; it applies only with procedure = \"daps\""
    );
    let e = load_err(&[("ran.handover.daps.source_release", "0ms")]);
    assert!(e.starts_with("ran.handover.daps.source_release:"), "{e}");
}
