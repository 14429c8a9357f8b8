//! Replications of an EN-DC (or NR-only) scenario: per run the flow's goodput, the NR cell's
//! measured blocked fraction and the network's EN-DC figures, then the goodput's mean, 95 %
//! interval (Student's t over the runs) and standard deviation. Prints Markdown.
//!
//! ```text
//! cargo run --release -p celltcp-scenario --example endc_replications -- \
//!     FILE RUNS LABEL [--set KEY=VALUE]...
//! ```
//!
//! Runs 0 to RUNS − 1 of FILE with the overrides (as `celltcp run FILE --run K --set …`);
//! docs/dual-connectivity.md's table was made with it.

use celltcp_scenario::{load_path, run, RunOptions};
use serde_json::Value;

/// Student's t quantile 0.975 for 1..=10 degrees of freedom.
const T975: [f64; 10] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
];

/// Mean, half-width of the 95 % interval and sample standard deviation of `xs`.
fn interval(xs: &[f64]) -> (f64, f64, f64) {
    let n = xs.len();
    let mean = xs.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return (mean, f64::NAN, f64::NAN);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let t = T975.get(n - 2).copied().unwrap_or(1.96);
    (mean, t * (var / n as f64).sqrt(), var.sqrt())
}

/// Every `blocked_fraction` of a UE of an NR cell, depth first.
fn blocked_fractions(v: &Value, out: &mut Vec<f64>) {
    match v {
        Value::Object(m) => {
            if let Some(f) = m.get("blocked_fraction").and_then(Value::as_f64) {
                out.push(f);
            }
            m.values().for_each(|x| blocked_fractions(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| blocked_fractions(x, out)),
        _ => {}
    }
}

fn main() {
    let usage = || {
        eprintln!("usage: endc_replications FILE RUNS LABEL [--set KEY=VALUE]...");
        std::process::exit(2)
    };
    let mut args = std::env::args().skip(1);
    let (Some(file), Some(runs), Some(label)) = (args.next(), args.next(), args.next()) else {
        usage()
    };
    let runs: u64 = runs.parse().unwrap_or_else(|_| usage());
    let mut overrides = Vec::new();
    while let Some(a) = args.next() {
        match (a.as_str(), args.next()) {
            ("--set", Some(kv)) => match kv.split_once('=') {
                Some((k, v)) => overrides.push((k.to_string(), v.to_string())),
                None => usage(),
            },
            _ => usage(),
        }
    }
    let scenario = load_path(std::path::Path::new(&file), &overrides).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let figures = [
        "endc_pdus_lte",
        "endc_pdus_nr",
        "endc_pdus_recovered",
        "endc_switches_to_lte",
        "endc_switches_to_nr",
        "endc_pdcp_duplicates",
        "endc_pdcp_late",
        "endc_t_reordering_expiries",
        "endc_refused_nr",
    ];
    let mut goodputs = Vec::new();
    for k in 0..runs {
        let opts = RunOptions {
            run: k,
            ..Default::default()
        };
        let out = run(&scenario, &opts).unwrap_or_else(|e| {
            eprintln!("run {k}: {e}");
            std::process::exit(1)
        });
        let s = &out.summary;
        let goodput = s["flows"]
            .as_object()
            .and_then(|f| f.values().next())
            .and_then(|f| f["receiver"]["goodput_bps"].as_f64())
            .unwrap_or(f64::NAN);
        goodputs.push(goodput / 1e6);
        let mut blocked = Vec::new();
        blocked_fractions(&s["cells"], &mut blocked);
        let ran = &s["ran"];
        let endc: Vec<String> = figures
            .iter()
            .filter_map(|f| ran[*f].as_f64().map(|v| format!("{}={v}", &f[5..])))
            .collect();
        println!(
            "{label} run {k}: goodput {:.2} Mb/s, blocked fraction {:?}, {}",
            goodput / 1e6,
            blocked,
            endc.join(" ")
        );
    }
    let (m, h, sd) = interval(&goodputs);
    println!("| {label} | {runs} | {m:.2} ± {h:.2} (95 %) | sd {sd:.2} |");
}
