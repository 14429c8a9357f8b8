//! Fixtures of the wireless-path TCP tests: the wired chain of `examples/wired-chain-tcp.toml`
//! (the LTE experiment 5-1 topology of `003_…`, Table 5.2) written as scenario text, with knobs
//! for the access link's loss models and scheduled events, and access to the summary and to
//! the traced TCP series.
//!
//! Units follow the names: `_bps` bits per second, `_s` seconds, `_ns` nanoseconds, `_bytes`
//! bytes; trace rows are `(time_ns, value)`.

#![allow(dead_code)] // each test file uses a different subset

use celltcp_scenario::{load_str, run, Column, RunOptions, RunOutput, Series};
use serde_json::Value;

/// The wired chain with one bulk TCP flow `bulk` from `remote` to `ue`:
///
/// ```text
///   remote --100 Mbps, 20 ms-- gateway --1 Gbps, 3 ms-- enb --ACCESS_RATE, 5 ms-- ue
/// ```
///
/// Every queue is drop-tail with 100 packets. `access_a_to_b` / `access_b_to_a` are the bodies
/// of the access link's per-direction tables (TOML lines, e.g. a `loss = {…}` line); `tcp` is the
/// body of `[flows.bulk.tcp]`; `extra` is pasted verbatim at the end (`[trace]`, `[[events]]`).
#[derive(Clone, Debug)]
pub struct Chain {
    pub duration: String,
    pub access_rate: String,
    pub cc: String,
    pub tcp: String,
    pub access_a_to_b: String,
    pub access_b_to_a: String,
    pub extra: String,
}

impl Chain {
    pub fn new(duration: &str, cc: &str) -> Self {
        Chain {
            duration: duration.into(),
            access_rate: "25Mbps".into(),
            cc: cc.into(),
            tcp: String::new(),
            access_a_to_b: String::new(),
            access_b_to_a: String::new(),
            extra: String::new(),
        }
    }

    pub fn toml(&self) -> String {
        format!(
            "[simulation]\nduration = \"{dur}\"\n\n\
             [nodes]\nremote = {{ kind = \"host\" }}\ngateway = {{ kind = \"router\" }}\n\
             enb = {{ kind = \"router\" }}\nue = {{ kind = \"host\" }}\n\n\
             [links.internet]\na = \"remote\"\nb = \"gateway\"\nrate = \"100Mbps\"\ndelay = \"20ms\"\n\
             queue = {{ kind = \"droptail\", limit = \"100p\" }}\n\n\
             [links.backhaul]\na = \"gateway\"\nb = \"enb\"\nrate = \"1Gbps\"\ndelay = \"3ms\"\n\
             queue = {{ kind = \"droptail\", limit = \"100p\" }}\n\n\
             [links.access]\na = \"enb\"\nb = \"ue\"\nrate = \"{rate}\"\ndelay = \"5ms\"\n\
             queue = {{ kind = \"droptail\", limit = \"100p\" }}\n\n\
             [links.access.a_to_b]\n{a2b}\n\n[links.access.b_to_a]\n{b2a}\n\n\
             [flows.bulk]\nkind = \"tcp\"\nsrc = \"remote\"\ndst = \"ue\"\ncc = \"{cc}\"\n\
             app = {{ kind = \"bulk\" }}\n\n[flows.bulk.tcp]\n{tcp}\n\n{extra}\n",
            dur = self.duration,
            rate = self.access_rate,
            a2b = self.access_a_to_b,
            b2a = self.access_b_to_a,
            cc = self.cc,
            tcp = self.tcp,
            extra = self.extra,
        )
    }

    /// Loads and runs the scenario with master seed `seed` (replication 0).
    pub fn run(&self, seed: u64) -> RunOutput {
        let text = self.toml();
        let sc = load_str(&text, &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
        run(
            &sc,
            &RunOptions {
                seed: Some(seed),
                ..Default::default()
            },
        )
        .unwrap()
    }
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

/// `summary["flows"]["bulk"]` followed by `path`, as a number.
pub fn bulk(out: &RunOutput, path: &[&str]) -> f64 {
    num(&out.summary["flows"]["bulk"], path)
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

fn column<'a>(s: &'a Series, name: &str) -> &'a Column {
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

/// The last value of `rows` at or before `t_ns`, if any.
pub fn value_at(rows: &[(u64, f64)], t_ns: u64) -> Option<f64> {
    rows.iter().take_while(|r| r.0 <= t_ns).last().map(|r| r.1)
}

/// Median of `v` (the mean of the two middle values for an even count).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}
