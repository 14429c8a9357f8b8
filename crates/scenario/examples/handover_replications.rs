//! Replications of a handover scenario, summarised as mean and 95 % interval (Student's t over
//! the runs) of what a handover does to one TCP flow: the mean interruption of the run's
//! handovers, the flow's timeouts, retransmissions and goodput, and the RAN's radio link
//! failures and re-establishments. Prints one Markdown table row.
//!
//! ```text
//! cargo run -p celltcp-scenario --example handover_replications -- \
//!     FILE RUNS LABEL [--flow NAME] [--set KEY=VALUE]...
//! ```
//!
//! Runs 0 to RUNS − 1 of FILE with the overrides (as `celltcp run FILE --run K --set …`). The
//! docs/handover.md tables were made with docs/data/handover_tables.sh, which calls it.

use celltcp_scenario::{load_path, run, RunOptions};
use serde_json::Value;

/// Student's t quantile 0.975 for 1..=30 degrees of freedom.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// Mean and half-width of the 95 % interval of `xs` (NaN values, runs without the quantity,
/// left out).
fn interval(xs: &[f64]) -> (f64, f64, usize) {
    let v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    let n = v.len();
    if n == 0 {
        return (f64::NAN, f64::NAN, 0);
    }
    let mean = v.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return (mean, f64::NAN, 1);
    }
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let t = T975.get(n - 2).copied().unwrap_or(1.96);
    (mean, t * (var / n as f64).sqrt(), n)
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

fn usage() -> ! {
    eprintln!("usage: handover_replications FILE RUNS LABEL [--flow NAME] [--set KEY=VALUE]...");
    std::process::exit(2)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(file), Some(runs), Some(label)) = (args.next(), args.next(), args.next()) else {
        usage()
    };
    let Ok(runs) = runs.parse::<u64>() else {
        usage()
    };
    let mut flow = "download".to_string();
    let mut sets = Vec::new();
    while let Some(a) = args.next() {
        match (a.as_str(), args.next()) {
            ("--flow", Some(f)) => flow = f,
            ("--set", Some(kv)) => match kv.split_once('=') {
                Some((k, v)) => sets.push((k.to_string(), v.to_string())),
                None => usage(),
            },
            _ => usage(),
        }
    }
    let scenario = load_path(std::path::Path::new(&file), &sets).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let mut cols: [Vec<f64>; 6] = Default::default();
    for k in 0..runs {
        let options = RunOptions {
            run: k,
            ..RunOptions::default()
        };
        let out = run(&scenario, &options).unwrap_or_else(|e| {
            eprintln!("run {k}: {e}");
            std::process::exit(1)
        });
        let s = &out.summary;
        let num = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
        let f = &s["flows"][&flow];
        let ran = find_with(s, "radio_link_failures");
        let reestablished = s["handovers"]["list"]
            .as_array()
            .map_or(0, |l| l.iter().filter(|r| r["cause"] == "rlf").count());
        let row = [
            num(&s["handovers"]["interruption_mean_s"]) * 1e3,
            num(&f["sender"]["timeouts"]),
            num(&f["sender"]["retransmissions"]),
            num(&f["goodput_bps"]) / 1e6,
            ran.map_or(0.0, |r| num(&r["radio_link_failures"])),
            reestablished as f64,
        ];
        for (c, v) in cols.iter_mut().zip(row) {
            c.push(v);
        }
    }
    let cell = |xs: &[f64], digits: usize| {
        let (m, h, _) = interval(xs);
        if h.is_finite() {
            format!("{m:.digits$} ± {h:.digits$}")
        } else {
            format!("{m:.digits$}")
        }
    };
    println!(
        "| {label} | {} | {} | {} | {} | {} | {} |",
        cell(&cols[0], 1),
        cell(&cols[1], 2),
        cell(&cols[2], 1),
        cell(&cols[3], 2),
        cell(&cols[4], 2),
        cell(&cols[5], 2),
    );
}
