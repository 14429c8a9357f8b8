//! Wall-clock speed of the WCDMA benchmark scenario — a measurement, not a test: it is ignored
//! by default and never fails on a timing.
//!
//! Run (release): `cargo test --release -p celltcp-scenario --test dch_bench -- --ignored
//! --nocapture` (set `DCH_BENCH_RUNS` for the number of runs, default 7).
//!
//! `python/celltcp/examples/001/bulk-dch384.toml`: one 384 kbit/s DCH (10 ms TTI, 64 kbit/s uplink with a
//! 20 ms TTI), bulk TCP NewReno, 100 s simulated; the target is at most 0.05 s of wall time.
//! Prints the median, minimum and maximum wall time, events, events per second, goodput and the
//! DCH's transport blocks.

use std::time::Instant;

use celltcp_scenario::{load_path, run, RunOptions};

const TARGET_WALL_S: f64 = 0.05;

#[test]
#[ignore = "a benchmark: run with --release -- --ignored --nocapture"]
fn dch_384_kbps_bulk_tcp_100_s() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples/001/bulk-dch384.toml");
    let runs: usize = std::env::var("DCH_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n >= 1)
        .unwrap_or(7);
    let sc = load_path(&path, &[]).expect("the example loads");
    let mut walls = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let out = run(&sc, &RunOptions::default()).expect("the example runs");
        walls.push(t.elapsed().as_secs_f64());
        last = Some(out);
    }
    let out = last.expect("one run at least");
    walls.sort_by(f64::total_cmp);
    let median = walls[walls.len() / 2];
    let dch = &out.summary["dch"]["radio"];
    println!(
        "WCDMA DCH 384 kbit/s, bulk TCP, 100 s simulated ({} build), {runs} runs: wall median \
         {:.2} ms (min {:.2}, max {:.2}), {:.5} s per simulated s, {} events, {:.2} M events/s, \
         goodput {:.1} kbit/s, {} downlink + {} uplink transport blocks; target <= {TARGET_WALL_S} s: {}",
        if cfg!(debug_assertions) { "debug" } else { "release" },
        median * 1e3,
        walls[0] * 1e3,
        walls[walls.len() - 1] * 1e3,
        median / 100.0,
        out.events,
        out.events as f64 / median / 1e6,
        out.summary["flows"]["bulk"]["goodput_bps"].as_f64().unwrap_or(f64::NAN) / 1e3,
        dch["tbs_sent"],
        dch["uplink"]["tbs_sent"],
        if median <= TARGET_WALL_S { "met" } else { "missed" },
    );
}
