//! The event-driven series — a row per delivered packet (`trace.packets`) and per change of a
//! TCP variable (`trace.tcp`) — are bounded by `trace.max_event_rows`: a run that reaches the
//! bound is halted there and refused, naming the keys, instead of filling the memory.

use celltcp_scenario::run::{run_interruptible, Poll, RunProgress};
use celltcp_scenario::{load_path, run, RunError, RunOptions};

fn example(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples")
        .join(name)
}

fn scenario(name: &str, over: &[(&str, &str)]) -> celltcp_scenario::Scenario {
    let over: Vec<(String, String)> = over
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    load_path(&example(name), &over).unwrap()
}

fn refused(result: Result<celltcp_scenario::RunOutput, RunError>) -> (String, String) {
    match result {
        Err(RunError::Scenario(e)) => (e.key, e.message),
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("the run was not refused"),
    }
}

/// Simulated seconds in a refusal's message ("... at 1.234 s of simulated time ...").
fn halted_at(message: &str) -> f64 {
    let before = message.split(" s of simulated time").next().unwrap();
    before.rsplit(' ').next().unwrap().parse().unwrap()
}

#[test]
fn packet_rows_past_the_bound_halt_the_run_and_name_trace_packets() {
    // 20 Mb/s of 1400-byte datagrams: about 1786 rows per simulated second.
    let s = scenario(
        "wired-chain.toml",
        &[
            ("simulation.duration", "3600s"),
            ("trace.packets", "[\"video\"]"),
            ("trace.max_event_rows", "5000"),
        ],
    );
    let (key, message) = refused(run(&s, &RunOptions::default()));
    assert_eq!(key, "trace.packets");
    assert!(message.contains("reached 5000 rows"), "{message}");
    assert!(message.contains("trace.max_event_rows"), "{message}");
    // Halted as soon as the bound was reached: under 3 s of the hour.
    let at = halted_at(&message);
    assert!(at > 2.0 && at < 3.5, "{message}");
    // Ctrl-C's driver halts it the same way.
    let mut poll = |_: RunProgress| Poll::Continue;
    let (key, _) = refused(run_interruptible(&s, &RunOptions::default(), &mut poll));
    assert_eq!(key, "trace.packets");
}

#[test]
fn tcp_variable_rows_past_the_bound_name_trace_tcp_and_within_it_change_nothing() {
    let bounded = scenario("wired-chain-tcp.toml", &[("trace.max_event_rows", "2000")]);
    let (key, message) = refused(run(&bounded, &RunOptions::default()));
    assert_eq!(key, "trace.tcp");
    assert!(
        message.contains("the TCP variables of trace.tcp reached 2000 rows"),
        "{message}"
    );
    // The default bound leaves the example's run as it was.
    let plain = scenario("wired-chain-tcp.toml", &[]);
    let wide = scenario(
        "wired-chain-tcp.toml",
        &[("trace.max_event_rows", "100000000")],
    );
    let a = run(&plain, &RunOptions::default()).unwrap();
    let b = run(&wide, &RunOptions::default()).unwrap();
    assert_eq!(a.events, b.events);
}

#[test]
fn a_bound_of_zero_is_refused_by_name() {
    let over = [("trace.max_event_rows".to_string(), "0".to_string())];
    let e = load_path(&example("wired-chain.toml"), &over).unwrap_err();
    assert_eq!(e.key, "trace.max_event_rows");
}
