//! A two-cell radio access network with one scheduled handover: for every data-path policy
//! the run yields the handover's record, the analytics rows of the UE's TCP flow and the
//! message timeline, the cells are reported as plain cells are, and two runs are identical.

use celltcp_scenario::{load_str, run, Column, RunOptions, RunOutput};

#[path = "support/mod.rs"]
mod support;
use serde_json::Value;
use support::{cats, column, series};

/// server – pgw – {enb1, enb2}; the UE, 150 m from enb1 and 350 m from enb2, downloads with
/// NewReno and is handed over from cell `a` to cell `b` at 0.8 s. The file (shared with the
/// Python tests) says why whatever happens to TCP is the handover's doing.
const RAN: &str = include_str!("../../../tests/data/handover-ran.toml");

/// Cell `b`'s series, every 100 ms.
const TRACE: &str = r#"
[trace]
cells = ["b"]
interval = "100ms"
"#;

fn run_with(overrides: &[(&str, &str)]) -> RunOutput {
    let owned: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let text = format!("{RAN}{TRACE}");
    let scenario = load_str(&text, &owned).unwrap_or_else(|e| panic!("{e}"));
    run(&scenario, &RunOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// The message timeline as (time in ms, from, to, message).
fn timeline(out: &RunOutput) -> Vec<(f64, String, String, String)> {
    let ev = series(out, "handover_events");
    let Column::U64(t) = column(ev, "time_ns") else {
        panic!("time_ns")
    };
    let (from, to, msg) = (cats(ev, "from"), cats(ev, "to"), cats(ev, "message"));
    (0..t.len())
        .map(|i| {
            (
                t[i] as f64 / 1e6,
                from[i].clone(),
                to[i].clone(),
                msg[i].clone(),
            )
        })
        .collect()
}

fn check_policy(policy: &str) -> RunOutput {
    let out = run_with(&[("ran.handover.policy", policy)]);
    let h = &out.summary["handovers"];
    assert_eq!(h["count"], 1, "{policy}: {h}");
    let rec = &h["list"][0];
    assert_eq!(rec["policy"], policy);
    assert_eq!(
        (
            rec["ue"].as_str(),
            rec["source"].as_str(),
            rec["target"].as_str()
        ),
        (Some("ue"), Some("enb1"), Some("enb2"))
    );
    assert_eq!(rec["cause"], "manual");
    assert_eq!(rec["result"], "completed", "{policy}: {rec}");
    assert_eq!(rec["decision_s"], 0.8);
    // Interruption = detach_sync + random_access = 30 + 10 ms (the defaults).
    assert!(
        (rec["interruption_s"].as_f64().unwrap() - 0.040).abs() < 1e-9,
        "{policy}: {rec}"
    );
    assert!(rec["path_switch_s"].as_f64().is_some() && rec["completion_s"].as_f64().is_some());

    // One analytics row, for the UE's TCP flow.
    let rows = series(&out, "handovers");
    assert_eq!(cats(rows, "flow"), vec!["bulk"]);
    assert_eq!(cats(rows, "policy"), vec![policy]);
    let outcome = &cats(rows, "outcome")[0];
    assert!(["timeout", "halving", "none"].contains(&outcome.as_str()));
    let counts = &h["outcomes"];
    assert_eq!(counts[outcome.as_str()], 1);

    // The timeline has the X2 procedure's messages in time order.
    let tl = timeline(&out);
    let messages: Vec<&str> = tl.iter().map(|(_, _, _, m)| m.as_str()).collect();
    for m in [
        "handover_request",
        "handover_request_ack",
        "handover_command",
        "sn_status_transfer",
        "handover_confirm",
        "path_switch_request",
        "ue_context_release",
    ] {
        assert!(
            messages.contains(&m),
            "{policy}: {m} missing from {messages:?}"
        );
    }
    assert!(
        tl.windows(2).all(|w| w[0].0 <= w[1].0),
        "{policy}: time order"
    );
    let request = tl.iter().find(|e| e.3 == "handover_request").unwrap();
    assert_eq!((request.1.as_str(), request.2.as_str()), ("enb1", "enb2"));

    // The RAN's cells are reported as cells; the network's own figures under `ran`.
    let cells = out.summary["cells"].as_object().unwrap();
    assert_eq!(cells.keys().collect::<Vec<_>>(), vec!["a", "b"]);
    assert!(out.summary["ran"].is_object(), "{}", out.summary["ran"]);
    // The flow got data through both cells.
    assert!(
        out.summary["flows"]["bulk"]["goodput_bps"]
            .as_f64()
            .unwrap()
            > 1e6
    );
    out
}

#[test]
fn discard_loses_the_source_buffer() {
    let out = check_policy("discard");
    let rows = series(&out, "handovers");
    let Column::U64(forwarded) = column(rows, "forwarded") else {
        panic!()
    };
    assert_eq!(forwarded[0], 0, "nothing is forwarded");
    assert!(
        out.summary["flows"]["bulk"]["drops"]["handover"]
            .as_u64()
            .unwrap()
            > 0
    );
}

#[test]
fn forward_carries_the_source_buffer_over_x2() {
    let out = check_policy("forward");
    let rows = series(&out, "handovers");
    let Column::U64(forwarded) = column(rows, "forwarded") else {
        panic!()
    };
    assert!(forwarded[0] > 0, "the source buffer is forwarded");
    // Nothing the flow sent was lost: TCP neither timed out nor retransmitted.
    assert_eq!(cats(rows, "outcome"), vec!["none"]);
    let Column::U32(rto) = column(rows, "rto_retransmissions") else {
        panic!()
    };
    let Column::U32(fast) = column(rows, "fast_retransmissions") else {
        panic!()
    };
    assert_eq!((rto[0], fast[0]), (0, 0));
    // The end marker follows the path switch.
    let tl = timeline(&out);
    let switch = tl
        .iter()
        .position(|e| e.3 == "path_switch_request")
        .unwrap();
    assert!(
        tl.iter().skip(switch).any(|e| e.3 == "end_marker"),
        "{tl:?}"
    );
}

#[test]
fn fast_path_switch_requests_the_switch_with_the_command() {
    let out = check_policy("fast_path_switch");
    let tl = timeline(&out);
    let command = tl.iter().find(|e| e.3 == "handover_command").unwrap().0;
    let request = tl.iter().find(|e| e.3 == "path_switch_request").unwrap().0;
    let confirm = tl.iter().find(|e| e.3 == "handover_confirm").unwrap().0;
    assert!(request <= command + 1e-9 && request < confirm, "{tl:?}");
}

#[test]
fn predicted_switches_the_path_a_prediction_step_before_the_command() {
    let out = check_policy("predicted");
    let tl = timeline(&out);
    let request = tl.iter().find(|e| e.3 == "path_switch_request").unwrap().0;
    let command = tl.iter().find(|e| e.3 == "handover_command").unwrap().0;
    assert!(
        command - request >= 129.0,
        "the command waits the 130 ms step: {tl:?}"
    );
}

#[test]
fn cell_series_keep_the_listed_cells_of_the_network() {
    let out = run_with(&[]);
    let s = series(&out, "cells");
    let cells = cats(s, "cell");
    assert!(cells.iter().any(|c| c == "b"), "cell b is traced");
    assert!(
        cells.iter().all(|c| c == "b" || c == "ran"),
        "cell a is not listed: {:?}",
        cells.iter().collect::<std::collections::BTreeSet<_>>()
    );
    let figures = cats(s, "figure");
    assert!(figures.iter().any(|f| f == "prbs_used"));
}

#[test]
fn a_network_run_is_deterministic() {
    let a = run_with(&[]);
    let b = run_with(&[]);
    assert_eq!(
        serde_json::to_string(&a.summary).unwrap(),
        serde_json::to_string(&b.summary).unwrap()
    );
    assert_eq!(format!("{:?}", a.series), format!("{:?}", b.series));
    assert!(matches!(a.summary["handovers"]["list"], Value::Array(ref l) if l.len() == 1));
}

#[test]
fn admission_control_refuses_and_the_record_says_so() {
    // Cell b already serves a UE and admits one at most: the preparation fails.
    let out = run_with(&[
        ("nodes.ue2", "{ kind = 'host' }"),
        ("cells.b.ues", "{ ue2 = { position = [450.0, 0.0] } }"),
        ("ran.handover.max_ues_per_cell", "1"),
    ]);
    let h = &out.summary["handovers"];
    assert_eq!(h["by_result"]["preparation_failed"], 1, "{h}");
    let rec = &h["list"][0];
    assert_eq!(
        (rec["command_s"].clone(), rec["interruption_s"].clone()),
        (Value::Null, Value::Null)
    );
    assert_eq!(h["interruption_mean_s"], Value::Null);
    let messages: Vec<String> = timeline(&out).into_iter().map(|e| e.3).collect();
    assert!(
        messages.contains(&"handover_preparation_failure".to_string()),
        "{messages:?}"
    );
    assert!(!messages.contains(&"handover_command".to_string()));
    // The analytics row starts at the decision, as the UE never left the source.
    let rows = series(&out, "handovers");
    let Column::F64(start) = column(rows, "start_s") else {
        panic!()
    };
    assert_eq!(start, &vec![0.8]);
    assert_eq!(cats(rows, "outcome"), vec!["none"]);
}
