//! Wall-clock speed and memory of the LTE benchmark scenarios (not a test; prints figures).
//!
//! Run: `cargo bench -p celltcp-scenario --bench lte` (optionally followed by `-- --runs N`).
//! The three LTE benchmark scenarios of the project, written as example files and mirroring
//! `benches/ns3/lte_bulk.py` (ns-3.44 LENA):
//! 1. `python/celltcp/examples/lte-bench-1ue.toml`: 1 UE, 10 MHz, RLC AM, proportional fair, bulk TCP from a
//!    remote host, 100 s simulated;
//! 2. `python/celltcp/examples/lte-bench-3cells.toml`: 3 cells × 5 UEs, one bulk TCP download per UE, 5 s;
//! 3. `python/celltcp/examples/lte-bench-50ue.toml`: 50 UEs in one cell, one bulk TCP download each, 5 s;
//! 4. `python/celltcp/examples/lte-bench-3cells-ran.toml`: scenario 2 with the three cells in one radio access
//!    network, each interfering with the PRB load it actually carries (as LENA's cells do)
//!    instead of as a constant fully loaded interferer.
//!
//! Each scenario runs in its own child process (so that the peak resident set size, VmHWM of
//! /proc/self/status, is that scenario's alone), `--runs` times (default 5) back to back; the
//! parent prints the median wall time, the wall time per simulated second, the speed-up over the
//! ns-3 reference figure, the peak RSS, the events and the TCP goodput that the runs produced
//! (identical in every run: the simulation is deterministic).

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use celltcp_scenario::{load_path, run, RunOptions};

/// A benchmark scenario and the ns-3.44 LENA figure it is compared with.
struct Case {
    file: &'static str,
    /// ns-3 wall time for the whole run, seconds.
    ns3_wall_s: f64,
    /// ns-3 peak memory, MB, where known.
    ns3_rss_mb: Option<f64>,
    /// The target for celltcp, wall seconds for the whole run.
    target_wall_s: f64,
    /// The memory target for celltcp, MB.
    target_rss_mb: Option<f64>,
}

const CASES: [Case; 4] = [
    Case {
        file: "lte-bench-1ue.toml",
        ns3_wall_s: 100.0,
        ns3_rss_mb: None,
        target_wall_s: 2.0,
        target_rss_mb: None,
    },
    Case {
        file: "lte-bench-3cells.toml",
        ns3_wall_s: 14.0,
        ns3_rss_mb: None,
        target_wall_s: 0.14,
        target_rss_mb: None,
    },
    Case {
        file: "lte-bench-50ue.toml",
        // 4.4 s per simulated second over 5 s.
        ns3_wall_s: 22.0,
        ns3_rss_mb: Some(181.0),
        target_wall_s: 0.5,
        target_rss_mb: Some(50.0),
    },
    Case {
        file: "lte-bench-3cells-ran.toml",
        ns3_wall_s: 14.0,
        ns3_rss_mb: None,
        target_wall_s: 0.14,
        target_rss_mb: None,
    },
];

fn example(file: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples")
        .join(file)
}

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// In the child: runs `file` `runs` times and prints one line of figures, space separated:
/// `wall_s...` then `events goodput_bps sim_s prb_utilization_mean peak_rss_kib`.
fn child(file: &str, runs: usize) {
    let sc = load_path(&example(file), &[]).expect("example loads");
    let mut walls = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let out = run(&sc, &RunOptions::default()).expect("example runs");
        walls.push(t.elapsed().as_secs_f64());
        last = Some(out);
    }
    let out = last.expect("at least one run");
    let goodput: f64 = out.summary["flows"]
        .as_object()
        .expect("flows")
        .values()
        .filter_map(|f| f["goodput_bps"].as_f64())
        .sum();
    let cells = out.summary["cells"].as_object().expect("cells");
    let prb = cells
        .values()
        .filter_map(|c| c["prb_utilization"].as_f64())
        .sum::<f64>()
        / cells.len().max(1) as f64;
    let sim_s = out.summary["simulated_time_s"].as_f64().unwrap_or(f64::NAN);
    let walls: Vec<String> = walls.iter().map(|w| format!("{w}")).collect();
    println!(
        "{} | {} {goodput} {sim_s} {prb} {}",
        walls.join(" "),
        out.events,
        peak_rss_kib()
    );
}

struct Measured {
    wall_median_s: f64,
    wall_min_s: f64,
    wall_max_s: f64,
    events: u64,
    goodput_bps: f64,
    sim_s: f64,
    prb_utilization: f64,
    peak_rss_kib: u64,
}

fn measure(file: &str, runs: usize) -> Measured {
    let exe = std::env::current_exe().expect("own executable");
    let out = Command::new(exe)
        .args(["--child", file, "--runs", &runs.to_string()])
        .output()
        .expect("child runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().unwrap_or_else(|| {
        panic!(
            "{file}: no figures from the child: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let (walls, rest) = line.split_once('|').expect("figures");
    let mut walls: Vec<f64> = walls
        .split_whitespace()
        .map(|w| w.parse().expect("wall time"))
        .collect();
    walls.sort_by(f64::total_cmp);
    let f: Vec<&str> = rest.split_whitespace().collect();
    Measured {
        wall_median_s: walls[walls.len() / 2],
        wall_min_s: walls[0],
        wall_max_s: walls[walls.len() - 1],
        events: f[0].parse().expect("events"),
        goodput_bps: f[1].parse().expect("goodput"),
        sim_s: f[2].parse().expect("simulated time"),
        prb_utilization: f[3].parse().expect("PRB utilisation"),
        peak_rss_kib: f[4].parse().expect("peak RSS"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .filter(|&n: &usize| n >= 1)
        .unwrap_or(5);
    if let Some(i) = args.iter().position(|a| a == "--child") {
        child(&args[i + 1], runs);
        return;
    }
    println!("LTE benchmarks (release), median of {runs} runs, each scenario in its own process");
    for case in &CASES {
        let m = measure(case.file, runs);
        let per_sim_s = m.wall_median_s / m.sim_s;
        let rss_mb = m.peak_rss_kib as f64 * 1024.0 / 1e6;
        println!(
            "{:<26} sim {:>5.0} s  wall {:>7.1} ms (min {:.1}, max {:.1})  {:.4} s per sim s  \
             {:>8} events  {:.2} M events/s  goodput {:.2} Mb/s  PRB use {:.3}  peak RSS {:.1} MB",
            case.file,
            m.sim_s,
            m.wall_median_s * 1e3,
            m.wall_min_s * 1e3,
            m.wall_max_s * 1e3,
            per_sim_s,
            m.events,
            m.events as f64 / m.wall_median_s / 1e6,
            m.goodput_bps / 1e6,
            m.prb_utilization,
            rss_mb,
        );
        println!(
            "{:<26} ns-3 {:.1} s -> {:.0}x faster; target wall <= {:.2} s: {}{}",
            "",
            case.ns3_wall_s,
            case.ns3_wall_s / m.wall_median_s,
            case.target_wall_s,
            if m.wall_median_s <= case.target_wall_s {
                "met"
            } else {
                "MISSED"
            },
            match (case.ns3_rss_mb, case.target_rss_mb) {
                (Some(n), Some(t)) => format!(
                    "; ns-3 {n:.0} MB, target <= {t:.0} MB: {}",
                    if rss_mb <= t { "met" } else { "MISSED" }
                ),
                _ => String::new(),
            }
        );
    }
}
