//! Helpers shared by the scenario tests: running TOML text, reading summary figures and traced
//! TCP series and other output series, and the small statistics the tests compare with.
#![allow(dead_code)]

use celltcp_scenario::{load_str, run, Column, RunOptions, RunOutput, Series};
use serde_json::Value;

/// Loads `text` and runs it with master seed `seed` (replication 0); panics with the text on a
/// scenario error.
pub fn run_text(text: &str, seed: u64) -> RunOutput {
    let sc = load_str(text, &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
    run(
        &sc,
        &RunOptions {
            seed: Some(seed),
            ..Default::default()
        },
    )
    .unwrap()
}

/// `v[path[0]][path[1]]...` as a number; panics with the path if absent.
pub fn num(v: &Value, path: &[&str]) -> f64 {
    let mut cur = v;
    for k in path {
        cur = &cur[*k];
    }
    cur.as_f64()
        .unwrap_or_else(|| panic!("no number at {path:?}: {cur}"))
}

/// Rows `(time_ns, value)` of the traced TCP variable `var` of flow `flow`, in time order.
pub fn tcp_series(out: &RunOutput, flow: &str, var: &str) -> Vec<(u64, f64)> {
    let Some(s) = out.series.iter().find(|s| s.name == "tcp") else {
        return Vec::new();
    };
    let times = u64_column(s, "time_ns");
    let (flow_codes, flow_names) = cat_column(s, "flow");
    let (var_codes, var_names) = cat_column(s, "var");
    let values = f64_column(s, "value");
    let fc = flow_names.iter().position(|n| n == flow).map(|i| i as u32);
    let vc = var_names.iter().position(|n| n == var).map(|i| i as u32);
    (0..times.len())
        .filter(|&i| Some(flow_codes[i]) == fc && Some(var_codes[i]) == vc)
        .map(|i| (times[i], values[i]))
        .collect()
}

/// The column called `name` of a series.
pub fn column<'a>(s: &'a Series, name: &str) -> &'a Column {
    &s.columns
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no column {name}"))
        .1
}

fn u64_column<'a>(s: &'a Series, name: &str) -> &'a [u64] {
    match column(s, name) {
        Column::U64(v) => v,
        _ => panic!("column {name} is not u64"),
    }
}

fn f64_column<'a>(s: &'a Series, name: &str) -> &'a [f64] {
    match column(s, name) {
        Column::F64(v) => v,
        _ => panic!("column {name} is not f64"),
    }
}

fn cat_column<'a>(s: &'a Series, name: &str) -> (&'a [u32], &'a [String]) {
    match column(s, name) {
        Column::Cat { codes, names } => (codes, names),
        _ => panic!("column {name} is not categorical"),
    }
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

/// Jain's fairness index `(Σx)² / (n Σx²)` (Jain, Chiu & Hawe, DEC-TR-301, 1984; also
/// `jain_fairness` in `python/celltcp/models/throughput.py`): 1 when all are equal, 1/n when one
/// value holds everything.
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}

/// The output series called `name`.
pub fn series<'a>(out: &'a RunOutput, name: &str) -> &'a Series {
    out.series
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no series {name}"))
}

/// Every row of a categorical column, as names.
pub fn cats(s: &Series, name: &str) -> Vec<String> {
    match column(s, name) {
        Column::Cat { codes, names } => codes.iter().map(|c| names[*c as usize].clone()).collect(),
        other => panic!("{name} is not categorical: {other:?}"),
    }
}

/// Every row of an f64 column.
pub fn f64s(s: &Series, name: &str) -> Vec<f64> {
    match column(s, name) {
        Column::F64(v) => v.clone(),
        other => panic!("{name} is not f64: {other:?}"),
    }
}

/// A server, a 100 Mbit/s, 10 ms wired core and an RNC with one 384 kbit/s DCH `radio` (10 ms
/// TTIs) to the UE, simulated for `secs`; `dch_extra` completes the channel's table and `rest`
/// (flows, trace) follows it.
pub fn dch_network(secs: u64, dch_extra: &str, rest: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{secs}s"

[nodes]
server = {{ kind = "host" }}
rnc = {{ kind = "router" }}
ue = {{ kind = "host" }}

[links.core]
a = "server"
b = "rnc"
rate = "100Mbps"
delay = "10ms"

[dch.radio]
rnc = "rnc"
ue = "ue"
rate = "384kbps"
tti = "10ms"
{dch_extra}

{rest}
"#
    )
}

/// A 500 kbit/s CBR of 1000-byte datagrams (1028-byte IP packets) from the server to the UE:
/// more than a 384 kbit/s DCH carries, so every downlink TTI is used.
pub const DCH_SATURATING_CBR: &str = r#"[flows.cbr]
kind = "udp"
src = "server"
dst = "ue"
rate = "500kbps"
packet_size = "1000B"
"#;
