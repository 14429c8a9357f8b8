//! A run cut short — by its event budget (`simulation.max_events`) or by a stop request — reports
//! the time it actually simulated: `simulated_time_s`, every flow's `end_s`, and rates averaged
//! over that time, with a `stop_reason` saying why it ended.

use celltcp_scenario::run::{
    run_interruptible, Poll, RunProgress, RunStopReason, STOP_REASON_INTERRUPTED,
    STOP_REASON_STOPPED,
};
use celltcp_scenario::{load_path, run, RunOptions};
use serde_json::Value;

fn example(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples")
        .join(name)
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// The wired chain (a 20 Mb/s UDP flow from t = 0) over a long duration.
fn chain(extra: &[(&str, &str)]) -> celltcp_scenario::Scenario {
    let mut over = vec![("simulation.duration".to_string(), "3600s".to_string())];
    over.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    load_path(&example("wired-chain.toml"), &over).unwrap()
}

/// Checks that the flow's figures are over the time simulated, `simulated`: its goodput is the
/// payload received over its active period, which ends there, and within `tolerance` of the
/// 20 Mb/s sent (less the path's 28 ms delay, which weighs on a short run).
fn assert_rates_over_simulated_time(s: &Value, flow: &str, simulated: f64, tolerance: f64) {
    let v = &s["flows"][flow];
    assert_eq!(f(&v["end_s"]), simulated, "end_s of {flow}");
    let active = f(&v["end_s"]) - f(&v["start_s"]);
    let received = f(&v["receiver"]["payload_bytes_received"]);
    let goodput = f(&v["goodput_bps"]);
    assert!(
        (goodput - received * 8.0 / active).abs() <= 1e-6 * goodput,
        "goodput {goodput}"
    );
    // 20 Mb/s of payload, as in a run that reaches its duration (wired_chain.rs).
    assert!(
        (goodput - 20e6).abs() / 20e6 < tolerance,
        "goodput {goodput} is not ~20 Mb/s"
    );
}

#[test]
fn an_exhausted_event_budget_reports_rates_over_the_time_simulated() {
    let out = run(
        &chain(&[("simulation.max_events", "200000")]),
        &RunOptions::default(),
    )
    .unwrap();
    let s = &out.summary;
    assert_eq!(out.events, 200_000);
    assert_eq!(s["stop_reason"], "eventbudget");
    let simulated = f(&s["simulated_time_s"]);
    assert!(
        simulated > 0.1 && simulated < 3600.0,
        "simulated {simulated}"
    );
    // Before the fix, end_s was the scenario's 3600 s and goodput was divided by it.
    assert_rates_over_simulated_time(s, "video", simulated, 0.02);
    // Link figures are over the same time.
    let util = f(&s["links"]["access"]["a_to_b"]["utilization"]);
    assert!(util > 0.5 && util <= 1.0, "access utilization {util}");
}

#[test]
fn a_run_that_reaches_its_duration_keeps_end_s_at_the_duration() {
    let sc = chain(&[("simulation.duration", "2s")]);
    let out = run(&sc, &RunOptions::default()).unwrap();
    assert_eq!(out.summary["stop_reason"], "duration");
    assert_eq!(f(&out.summary["simulated_time_s"]), 2.0);
    assert_eq!(f(&out.summary["flows"]["video"]["end_s"]), 2.0);
}

#[test]
fn a_stop_request_ends_the_run_with_stop_reason_interrupted() {
    let sc = chain(&[]);
    let mut polls = 0;
    let out = run_interruptible(&sc, &RunOptions::default(), |_| {
        polls += 1;
        if polls >= 3 {
            Poll::Stop(RunStopReason::Interrupted)
        } else {
            Poll::Continue
        }
    })
    .unwrap();
    assert_eq!(polls, 3);
    let s = &out.summary;
    assert_eq!(s["stop_reason"], STOP_REASON_INTERRUPTED);
    let simulated = f(&s["simulated_time_s"]);
    assert!(
        simulated > 0.0 && simulated < 3600.0,
        "simulated {simulated}"
    );
    // Three polls 50 ms apart: a fraction of a second or more simulated, depending on speed.
    assert_rates_over_simulated_time(s, "video", simulated, 0.1 + 0.03 / simulated);
}

#[test]
fn polls_see_the_run_advance_and_a_caller_may_stop_it() {
    // Each poll reports where the run stands; a caller's own stop request ends the run there
    // with stop_reason "stopped", its rates over the time simulated.
    let sc = chain(&[]);
    let mut seen: Vec<RunProgress> = Vec::new();
    let out = run_interruptible(&sc, &RunOptions::default(), |p| {
        seen.push(p);
        if seen.len() >= 4 {
            Poll::Stop(RunStopReason::Stopped)
        } else {
            Poll::Continue
        }
    })
    .unwrap();
    assert_eq!(seen.len(), 4);
    assert!(seen.iter().all(|p| p.end.as_secs_f64() == 3600.0));
    assert!(seen
        .windows(2)
        .all(|w| w[0].simulated < w[1].simulated && w[0].events < w[1].events));
    let s = &out.summary;
    assert_eq!(s["stop_reason"], STOP_REASON_STOPPED);
    assert_eq!(out.events, seen[3].events);
    assert_eq!(f(&s["simulated_time_s"]), seen[3].simulated.as_secs_f64());
}

#[test]
fn an_abort_request_ends_the_run_without_results() {
    let sc = chain(&[]);
    let err = run_interruptible(&sc, &RunOptions::default(), |_| Poll::Abort).unwrap_err();
    assert!(
        matches!(err, celltcp_scenario::RunError::Interrupted),
        "{err:?}"
    );
}

#[test]
fn polling_changes_nothing_in_the_outputs() {
    // The chunked, polled loop handles exactly the events of one uninterrupted run.
    let sc = chain(&[
        ("simulation.duration", "3s"),
        ("links.access.loss", "{ kind = \"bernoulli\", p = 0.01 }"),
        ("flows.video.arrival", "poisson"),
    ]);
    let plain = run(&sc, &RunOptions::default()).unwrap();
    let polled = run_interruptible(&sc, &RunOptions::default(), |_| Poll::Continue).unwrap();
    assert_eq!(plain.events, polled.events);
    assert_eq!(
        serde_json::to_string(&plain.summary).unwrap(),
        serde_json::to_string(&polled.summary).unwrap()
    );
    assert_eq!(plain.series, polled.series);
}

#[test]
fn polled_run_respects_the_event_budget_exactly() {
    let sc = chain(&[("simulation.max_events", "10001")]);
    let plain = run(&sc, &RunOptions::default()).unwrap();
    let polled = run_interruptible(&sc, &RunOptions::default(), |_| Poll::Continue).unwrap();
    assert_eq!(polled.events, 10_001);
    assert_eq!(
        serde_json::to_string(&plain.summary).unwrap(),
        serde_json::to_string(&polled.summary).unwrap()
    );
}
