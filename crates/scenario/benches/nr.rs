//! Wall-clock speed and memory of the NR FR2 benchmark (docs/benchmarks.md, "NR"; issue #17),
//! without and with the mmWave channel's blockage (not a test; prints figures).
//!
//! Run: `cargo bench -p celltcp-scenario --bench nr` (optionally `-- --runs N`, and
//! `-- --only NAME` for one channel: `lte-link-budget`, `markov`, `model-b`).
//! `python/celltcp/examples/nr-bench-fr2-10ue.toml` (28 GHz, 100 MHz at μ = 3, ten UEs with a
//! bulk CUBIC download each, 5 s) runs as written, then with `cells.fr2.nr.channel` set to the
//! mmWave channel in LOS without shadowing and Markov or model B blockage (0.1 people per m²
//! over the UEs' area), the `--set` values of docs/benchmarks.md. Each channel runs in its own
//! child process (its peak RSS, VmHWM of /proc/self/status, is that channel's alone) `--runs`
//! times (default 3) back to back; the parent prints the median engine wall time, the
//! simulated seconds per wall second, the events, the TCP goodput and the peak RSS.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use celltcp_scenario::{load_path, run, RunOptions};

const FILE: &str = "nr-bench-fr2-10ue.toml";

/// (name, value of `cells.fr2.nr.channel`, or none for the file as written).
const CHANNELS: [(&str, Option<&str>); 3] = [
    ("lte-link-budget", None),
    (
        "markov",
        Some(r#"{ los = "los", shadowing = false, blockage = { kind = "markov" } }"#),
    ),
    (
        "model-b",
        Some(
            r#"{ los = "los", shadowing = false, blockage = { kind = "model-b", density_per_m2 = 0.1, area = [[-10.0, -30.0], [210.0, 30.0]] } }"#,
        ),
    ),
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

/// In the child: runs the channel `name` `runs` times and prints one line of figures:
/// `wall_s... | events goodput_bps sim_s peak_rss_kib`.
fn child(name: &str, runs: usize) {
    let (_, value) = CHANNELS
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no channel {name}"));
    let overrides: Vec<(String, String)> = value
        .iter()
        .map(|v| ("cells.fr2.nr.channel".to_string(), v.to_string()))
        .collect();
    let sc = load_path(&example(FILE), &overrides).expect("example loads");
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
    let sim_s = out.summary["simulated_time_s"].as_f64().unwrap_or(f64::NAN);
    let walls: Vec<String> = walls.iter().map(|w| format!("{w}")).collect();
    println!(
        "{} | {} {goodput} {sim_s} {}",
        walls.join(" "),
        out.events,
        peak_rss_kib()
    );
}

fn measure(name: &str, runs: usize) {
    let exe = std::env::current_exe().expect("own executable");
    let out = Command::new(exe)
        .args(["--child", name, "--runs", &runs.to_string()])
        .output()
        .expect("child runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().unwrap_or_else(|| {
        panic!(
            "{name}: no figures from the child: {}",
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
    let events: u64 = f[0].parse().expect("events");
    let goodput_bps: f64 = f[1].parse().expect("goodput");
    let sim_s: f64 = f[2].parse().expect("simulated time");
    let rss_kib: u64 = f[3].parse().expect("peak RSS");
    let median = walls[walls.len() / 2];
    println!(
        "{name:<16} wall {:>7.3} s (min {:.3}, max {:.3})  {:>5.1} sim s per wall s  {events:>8} \
         events  goodput {:.1} Mb/s  peak RSS {:.1} MB",
        median,
        walls[0],
        walls[walls.len() - 1],
        sim_s / median,
        goodput_bps / 1e6,
        rss_kib as f64 * 1024.0 / 1e6,
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
    };
    let runs = value_of("--runs")
        .and_then(|v| v.parse().ok())
        .filter(|&n: &usize| n >= 1)
        .unwrap_or(3);
    if let Some(name) = value_of("--child") {
        child(name, runs);
        return;
    }
    let only = value_of("--only");
    println!("{FILE} (release), median of {runs} runs, each channel in its own process");
    for (name, _) in CHANNELS.iter().filter(|(n, _)| only.is_none_or(|o| o == n)) {
        measure(name, runs);
    }
}
