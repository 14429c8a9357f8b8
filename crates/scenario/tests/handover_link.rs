//! Link handovers (seed 002's emulated radio hop): a bulk NewReno download through an access
//! link whose base station stops serving its downlink for 100 or 200 ms. Without buffer transfer
//! (`discard`) the window in flight is lost and the sender waits for its retransmission timer
//! (seed 002 §1: "in all investigated cases TCP entered slow-start"); with buffer transfer
//! (`forward`) the data only wait, and TCP sees a delay, not a loss (§2).

use celltcp_scenario::{load_str, run, Column, RunOptions, RunOutput};

#[path = "support/mod.rs"]
mod support;
use serde_json::Value;
use support::{cats, column, f64s, series};

/// server –core– bs –radio– ue, a 200 ms `discard` handover of the downlink at 2 s; the file
/// (shared with the Python tests) says why the flow alone loses nothing.
const LINK: &str = include_str!("../../../tests/data/handover-link.toml");

fn run_with(overrides: &[(&str, &str)]) -> RunOutput {
    let owned: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let scenario = load_str(LINK, &owned).unwrap_or_else(|e| panic!("{e}"));
    run(&scenario, &RunOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn discard_loses_the_window_and_the_sender_times_out() {
    let out = run_with(&[]);
    let h = &out.summary["handovers"];
    assert_eq!(h["count"], 1);
    assert_eq!(h["by_result"]["completed"], 1);
    assert_eq!(h["outcomes"]["timeout"], 1, "{h}");
    assert!((h["interruption_mean_s"].as_f64().unwrap() - 0.2).abs() < 1e-12);
    let rec = &h["list"][0];
    assert_eq!(
        (
            rec["ue"].as_str(),
            rec["source"].as_str(),
            rec["cause"].as_str()
        ),
        (Some("ue"), Some("bs"), Some("link"))
    );
    assert_eq!(
        (
            rec["policy"].as_str(),
            rec["decision_s"].as_f64(),
            rec["attach_s"].as_f64()
        ),
        (Some("discard"), Some(2.0), Some(2.2))
    );
    assert_eq!(rec["path_switch_s"], Value::Null);

    // Everything queued or arriving at the base station during the interruption was dropped
    // with the handover cause, on the link and for the flow.
    let flow_drops = out.summary["flows"]["bulk"]["drops"]["handover"]
        .as_u64()
        .unwrap();
    let link_drops = out.summary["links"]["radio"]["a_to_b"]["drops"]["handover"]
        .as_u64()
        .unwrap();
    assert!(flow_drops > 10, "a window's worth is lost: {flow_drops}");
    assert_eq!(flow_drops, link_drops);

    let rows = series(&out, "handovers");
    assert_eq!(column(rows, "handover").len(), 1);
    assert_eq!(cats(rows, "outcome")[0], "timeout");
    assert_eq!(cats(rows, "flow")[0], "bulk");
    assert_eq!(cats(rows, "cause")[0], "link");
    match column(rows, "dropped") {
        Column::U64(d) => assert_eq!(
            d[0], flow_drops,
            "the record counts the flow's drops in the interruption"
        ),
        other => panic!("{other:?}"),
    }
    match column(rows, "spurious_rto") {
        Column::Bool(v) => assert!(!v[0], "packets were lost: the timeout is genuine"),
        other => panic!("{other:?}"),
    }
    // The ACK clock stopped with the last data delivered before the interruption and nothing
    // in flight survived to restart it, so the timer armed by the last ACK (200 ms minimum)
    // fires soon after the interruption ends.
    let first_rto = f64s(rows, "first_rto_s")[0];
    assert!(
        first_rto > 2.2 && first_rto < 2.3,
        "the first RTO follows the interruption: {first_rto}"
    );

    let events = series(&out, "handover_events");
    assert_eq!(
        column(events, "time_ns"),
        &Column::U64(vec![2_000_000_000, 2_200_000_000])
    );
    assert_eq!(
        (
            cats(events, "message")[0].clone(),
            cats(events, "from")[0].clone(),
            cats(events, "to")[0].clone()
        ),
        ("interruption_start".into(), "bs".into(), "ue".into())
    );
    assert_eq!(cats(events, "message")[1], "interruption_end");
}

#[test]
fn forward_keeps_the_buffer_and_tcp_sees_only_a_delay() {
    let out = run_with(&[("events", "[{ at = '2s', link = 'radio', direction = 'a_to_b', handover = { interruption = '100ms', policy = 'forward' } }]")]);
    let h = &out.summary["handovers"];
    assert_eq!(h["outcomes"]["none"], 1, "{h}");
    assert_eq!(out.summary["flows"]["bulk"]["drops"]["handover"], 0);
    assert_eq!(out.summary["flows"]["bulk"]["drops"]["queue_full"], 0);
    let rows = series(&out, "handovers");
    assert_eq!(cats(rows, "outcome")[0], "none");
    // The RTT samples of the data held in the queue include the interruption.
    let peak = f64s(rows, "rtt_peak_s")[0];
    let before = f64s(rows, "rtt_before_s")[0];
    assert!(peak > before + 0.08, "peak {peak} vs before {before}");
    // Goodput recovers.
    assert!(f64s(rows, "recovery_time_s")[0].is_finite());
}

#[test]
fn holding_the_uplink_too_returns_its_acks_and_sack_recovers_by_fast_retransmit() {
    // Both directions held: the ACKs of the data that reached the terminal as the
    // interruption began wait at the terminal and leave when it ends; they clock out new
    // segments, whose SACKs reveal the lost run, and recovery (RFC 6675) needs no timeout.
    let out = run_with(&[("events", "[{ at = '2s', link = 'radio', handover = { interruption = '100ms', policy = 'discard' } }]")]);
    let rows = series(&out, "handovers");
    assert_eq!(cats(rows, "outcome")[0], "halving");
    match column(rows, "fast_retransmissions") {
        Column::U32(n) => assert!(
            n[0] > 10,
            "every lost segment is retransmitted fast: {}",
            n[0]
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        out.summary["links"]["radio"]["b_to_a"]["drops"]["handover"], 0,
        "the uplink is held, not flushed"
    );
}

#[test]
fn the_tcp_series_keeps_only_what_trace_asked_for() {
    // Nothing asked for: the analytics' variables are recorded for them, then left out.
    let out = run_with(&[]);
    assert!(out.series.iter().all(|s| s.name != "tcp"));
    // cwnd asked for: only cwnd rows come out, though srtt, delivered etc. were recorded too.
    let out = run_with(&[("trace.tcp", "['cwnd']")]);
    let tcp = series(&out, "tcp");
    match column(tcp, "var") {
        Column::Cat { codes, names } => {
            assert!(!codes.is_empty());
            assert!(codes.iter().all(|c| names[*c as usize] == "cwnd"));
        }
        other => panic!("{other:?}"),
    }
    // The analytics are the same whatever the trace selection.
    assert_eq!(out.summary["handovers"], run_with(&[]).summary["handovers"]);
}

#[test]
fn two_runs_give_identical_summaries_and_series() {
    let a = run_with(&[]);
    let b = run_with(&[]);
    assert_eq!(
        serde_json::to_string(&a.summary).unwrap(),
        serde_json::to_string(&b.summary).unwrap()
    );
    // Debug text compares NaN (an undefined time) equal to itself.
    assert_eq!(format!("{:?}", a.series), format!("{:?}", b.series));
    assert_eq!(a.events, b.events);
}

#[test]
fn the_event_budget_still_stops_a_run_with_link_handovers() {
    let full = run_with(&[]);
    let cut = run_with(&[("simulation.max_events", "5000")]);
    assert_eq!(cut.events, 5000);
    assert_eq!(cut.summary["stop_reason"], "eventbudget");
    assert!(full.events > 5000);
}
