//! A run that its driver stops before the scenario's duration reports where it stopped: the
//! summary's `stop_reason` is `stopped`, the flows' active periods end there and their rates are
//! averaged over the time actually run. Driven by a stand-in for the real-time emulator that
//! stops at a fixed simulated time, so the figures are exact.

use celltcp_engine::{RunOutcome, SimTime, Simulator, StopCondition};
use celltcp_net::world::World;
use celltcp_scenario::run::{run_with, Driver, STOP_REASON_STOPPED};
use celltcp_scenario::{RunError, RunOptions};

/// Runs as fast as possible, but only up to `stop_at`, and then says it stopped.
struct StopsAt {
    stop_at: SimTime,
    stopped: bool,
}

impl Driver for StopsAt {
    fn advance(
        &mut self,
        sim: &mut Simulator<World>,
        stop: StopCondition,
    ) -> Result<RunOutcome, RunError> {
        let until = stop.until.unwrap_or(SimTime::MAX);
        let o = sim
            .run(StopCondition {
                until: Some(until.min(self.stop_at)),
                ..stop
            })
            .map_err(|p| RunError::Internal(p.to_string()))?;
        self.stopped = until > self.stop_at;
        Ok(o)
    }

    fn stopped(&self) -> bool {
        self.stopped
    }
}

const SCENARIO: &str = r#"
[simulation]
duration = "4s"
seed = 1

[nodes]
server = { kind = "host" }
ue = { kind = "host" }

[links.path]
a = "server"
b = "ue"
rate = "10Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = "100p" }

[flows.cbr]
kind = "udp"
src = "server"
dst = "ue"
rate = "1Mbps"
packet_size = "1000B"
arrival = "cbr"
"#;

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn a_run_stopped_early_reports_where_and_averages_over_the_time_run() {
    let scenario = celltcp_scenario::load_str(SCENARIO, &[]).unwrap();
    let mut driver = StopsAt {
        stop_at: SimTime::from_ns(1_000_000_000),
        stopped: false,
    };
    let out = run_with(&scenario, &RunOptions::default(), &mut driver).unwrap();
    let s = &out.summary;
    assert_eq!(s["stop_reason"], STOP_REASON_STOPPED);
    assert_eq!(f(&s["simulated_time_s"]), 1.0);
    let flow = &s["flows"]["cbr"];
    assert_eq!(
        f(&flow["end_s"]),
        1.0,
        "the flow's active period ends at the stop"
    );
    // The same scenario run to its end says so.
    let full = celltcp_scenario::run(&scenario, &RunOptions::default()).unwrap();
    assert_eq!(full.summary["stop_reason"], "duration");
    let full_flow = &full.summary["flows"]["cbr"];
    assert_eq!(f(&full_flow["end_s"]), 4.0);
    // The stream's rate over the second run, not a quarter of it (the first packet's 10.8 ms
    // trip weighs four times more in one second than in four).
    let (part, whole) = (f(&flow["throughput_bps"]), f(&full_flow["throughput_bps"]));
    assert!(
        (part / whole - 1.0).abs() < 0.015,
        "stopped {part}, full run {whole}"
    );
}
