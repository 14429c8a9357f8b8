//! Fixtures of the `003_…` reproduction tests (`seed003_exp5_1.rs`, `seed003_exp5_2.rs`): running
//! the scenario files of `python/celltcp/examples/003/` with overrides, and the per-flow figures of the seed's
//! tables computed the way ns-3's FlowMonitor computes them.
//!
//! Units follow the names: `_bps` bits per second, `_s` seconds, `_ns` nanoseconds; ratios are
//! fractions in [0, 1].

#![allow(dead_code)] // each test file uses a different subset

use std::path::PathBuf;

use celltcp_scenario::{load_path, run, Column, RunOptions, RunOutput, Series};

/// Path of a scenario file in `python/celltcp/examples/003/`.
pub fn example(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples/003")
        .join(file)
}

/// An override `key=value` as the loader takes it.
pub fn set(key: impl Into<String>, value: impl Into<String>) -> (String, String) {
    (key.into(), value.into())
}

/// Loads `python/celltcp/examples/003/<file>` with `overrides` and runs it with master seed `seed`.
pub fn run_example(file: &str, overrides: &[(String, String)], seed: u64) -> RunOutput {
    let path = example(file);
    let sc = load_path(&path, overrides)
        .unwrap_or_else(|e| panic!("{}: {e} (overrides {overrides:?})", path.display()));
    run(
        &sc,
        &RunOptions {
            seed: Some(seed),
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{file}, seed {seed}: {e}"))
}

/// The per-bit error rate of celltcp's `ber` loss model that loses a packet with the same
/// probability as ns-3's `RateErrorModel` with its default unit (per byte) and rate
/// `byte_rate`: 1 − (1 − ber)^(8L) = 1 − (1 − r)^L for every size L, so
/// ber = 1 − (1 − r)^(1/8).
pub fn ber_for_byte_error_rate(byte_rate: f64) -> f64 {
    1.0 - (1.0 - byte_rate).powf(1.0 / 8.0)
}

/// Probability that a packet of `bytes` bytes is lost at per-byte error rate `byte_rate`.
pub fn packet_error_rate(byte_rate: f64, bytes: u32) -> f64 {
    1.0 - (1.0 - byte_rate).powi(bytes as i32)
}

/// Figures of one flow in one run, as in the seed's Tables 5.4, 5.5 and 5.7.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowFigures {
    /// IP bytes delivered to the destination over the flow's active period, bits per second.
    pub throughput_bps: f64,
    /// Mean one-way delay of the data packets delivered, seconds.
    pub delay_mean_s: f64,
    /// Mean absolute difference of the one-way delays of consecutive data packets delivered,
    /// seconds (FlowMonitor's jitterSum / (rxPackets − 1)).
    pub jitter_mean_s: f64,
    /// Packets dropped / (packets delivered + dropped).
    pub loss_ratio: f64,
}

/// The figures of flow `flow`; its packets must be traced (`trace.packets`), for the jitter.
pub fn flow_figures(out: &RunOutput, flow: &str) -> FlowFigures {
    let s = &out.summary["flows"][flow];
    let get = |k: &str| {
        s[k].as_f64()
            .unwrap_or_else(|| panic!("flows.{flow}.{k} missing in the summary"))
    };
    FlowFigures {
        throughput_bps: get("throughput_bps"),
        delay_mean_s: get("delay_mean_s"),
        jitter_mean_s: mean_jitter_s(&packet_delays_ns(out, flow)),
        loss_ratio: get("loss_ratio"),
    }
}

/// One-way delays (ns) of the data packets of `flow` delivered to its destination, in arrival
/// order, from the `packets` series.
pub fn packet_delays_ns(out: &RunOutput, flow: &str) -> Vec<u64> {
    let s = out
        .series
        .iter()
        .find(|s| s.name == "packets")
        .unwrap_or_else(|| panic!("no packet series; trace.packets must list {flow}"));
    let (codes, names) = match column(s, "flow") {
        Column::Cat { codes, names } => (codes, names),
        _ => panic!("column flow is not categorical"),
    };
    let delays = match column(s, "delay_ns") {
        Column::U64(v) => v,
        _ => panic!("column delay_ns is not u64"),
    };
    let code = names
        .iter()
        .position(|n| n == flow)
        .unwrap_or_else(|| panic!("flow {flow} not in the packet series")) as u32;
    codes
        .iter()
        .zip(delays)
        .filter(|(c, _)| **c == code)
        .map(|(_, d)| *d)
        .collect()
}

fn column<'a>(s: &'a Series, name: &str) -> &'a Column {
    &s.columns
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("series {} has no column {name}", s.name))
        .1
}

/// Mean |D_i − D_{i−1}| over consecutive delays (ns), in seconds; NaN for fewer than two.
pub fn mean_jitter_s(delays_ns: &[u64]) -> f64 {
    if delays_ns.len() < 2 {
        return f64::NAN;
    }
    let sum: u64 = delays_ns.windows(2).map(|w| w[0].abs_diff(w[1])).sum();
    sum as f64 * 1e-9 / (delays_ns.len() - 1) as f64
}

/// Jain's fairness index (Σx)² / (n·Σx²) (Jain, Chiu & Hawe, DEC-TR-301, 1984; the seed's
/// equation 5.1); 1 when all are equal, 1/n when one value holds everything.
pub fn jain_index(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    let sum_sq: f64 = x.iter().map(|v| v * v).sum();
    sum * sum / (x.len() as f64 * sum_sq)
}

/// Median of `v` (the mean of the two middle values for an even count).
pub fn median(mut v: Vec<f64>) -> f64 {
    assert!(!v.is_empty(), "median of nothing");
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Field-wise medians of figures taken over several runs.
pub fn median_figures(runs: &[FlowFigures]) -> FlowFigures {
    let m = |f: fn(&FlowFigures) -> f64| median(runs.iter().map(f).collect());
    FlowFigures {
        throughput_bps: m(|r| r.throughput_bps),
        delay_mean_s: m(|r| r.delay_mean_s),
        jitter_mean_s: m(|r| r.jitter_mean_s),
        loss_ratio: m(|r| r.loss_ratio),
    }
}

/// One line of a table: figures in Mb/s, ms, ms and %.
pub fn describe(f: &FlowFigures) -> String {
    format!(
        "{:8.3} Mb/s  delay {:7.2} ms  jitter {:6.3} ms  loss {:6.2} %",
        f.throughput_bps / 1e6,
        f.delay_mean_s * 1e3,
        f.jitter_mean_s * 1e3,
        f.loss_ratio * 100.0
    )
}

/// A figure of the sender's report (`summary.flows.<flow>.sender.<key>`), e.g. `timeouts`.
pub fn sender_figure(out: &RunOutput, flow: &str, key: &str) -> f64 {
    out.summary["flows"][flow]["sender"][key]
        .as_f64()
        .unwrap_or_else(|| panic!("flows.{flow}.sender.{key} missing in the summary"))
}

/// Packets of `flow` whose fate is known: delivered to the destination or dropped.
pub fn known_packets(out: &RunOutput, flow: &str) -> f64 {
    let s = &out.summary["flows"][flow];
    let delivered = s["packets_delivered"]
        .as_f64()
        .unwrap_or_else(|| panic!("flows.{flow}.packets_delivered missing"));
    let drops: f64 = s["drops"]
        .as_object()
        .unwrap_or_else(|| panic!("flows.{flow}.drops missing"))
        .values()
        .filter_map(|v| v.as_f64())
        .sum();
    delivered + drops
}
