//! Wall-clock speed of the wired-chain examples (not a test; prints figures).
//!
//! Run: `cargo bench -p celltcp-scenario --bench wired_chain`. Reports the median of 5 runs of
//! 30 simulated seconds: wall time, packets carried per wall second (packet transmissions on all
//! links), TCP data segments per wall second and events per packet.

use std::path::Path;
use std::time::Instant;

use celltcp_scenario::{load_path, run, RunOptions};

/// CPU time of this thread in nanoseconds (Linux schedstat), so that figures taken on a loaded
/// machine are still comparable; `None` where unavailable.
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn measure(file: &str, runs: usize) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples")
        .join(file);
    let sc = load_path(
        &path,
        &[
            ("trace.queues".into(), "[]".into()),
            ("trace.flows".into(), "[]".into()),
            ("trace.tcp".into(), "[]".into()),
        ],
    )
    .expect("example loads");
    let mut walls = Vec::new();
    let mut cpus = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let c0 = thread_cpu_ns();
        let out = run(&sc, &RunOptions::default()).expect("example runs");
        walls.push(t.elapsed().as_secs_f64());
        if let (Some(a), Some(b)) = (c0, thread_cpu_ns()) {
            cpus.push((b - a) as f64 * 1e-9);
        }
        last = Some(out);
    }
    walls.sort_by(|a, b| a.partial_cmp(b).unwrap());
    cpus.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let wall = walls[runs / 2];
    let cpu = cpus.get(cpus.len() / 2).copied().unwrap_or(f64::NAN);
    let out = last.unwrap();
    let links = out.summary["links"].as_object().unwrap();
    let tx: f64 = links
        .values()
        .flat_map(|l| ["a_to_b", "b_to_a"].map(|d| l[d]["packets_sent"].as_f64().unwrap()))
        .sum();
    let flows = out.summary["flows"].as_object().unwrap();
    let data_segments: f64 = flows
        .values()
        .filter_map(|f| f["sender"].get("segments_sent").and_then(|v| v.as_f64()))
        .sum();
    println!(
        "{file:<24} wall {:>8.1} ms  cpu {:>8.1} ms  events {:>9}  link transmissions/s {:>6.2} M  events/transmission {:.2}{}",
        wall * 1e3,
        cpu * 1e3,
        out.events,
        tx / wall / 1e6,
        out.events as f64 / tx,
        if data_segments > 0.0 {
            format!("  TCP segments sent/s {:.2} M", data_segments / wall / 1e6)
        } else {
            String::new()
        }
    );
}

fn main() {
    println!("wired chain, 30 s simulated, median of 5 runs (release)");
    measure("wired-chain.toml", 5);
    measure("wired-chain-tcp.toml", 5);
}
