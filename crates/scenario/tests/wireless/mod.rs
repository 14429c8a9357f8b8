//! Fixtures of the wireless-path TCP tests: the wired chain of `python/celltcp/examples/wired-chain-tcp.toml`
//! (the LTE experiment 5-1 topology of `003_…`, Table 5.2) written as scenario text, with knobs
//! for the access link's loss models and scheduled events, and access to the summary and to
//! the traced TCP series.
//!
//! Units follow the names: `_bps` bits per second, `_s` seconds, `_ns` nanoseconds, `_bytes`
//! bytes; trace rows are `(time_ns, value)`.

#![allow(dead_code)] // each test file uses a different subset

use celltcp_scenario::RunOutput;

#[path = "../support/mod.rs"]
mod support;
#[allow(unused_imports)] // each test file uses a different subset
pub use support::{median, num, run_text, tcp_series};

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
        run_text(&self.toml(), seed)
    }
}

/// `summary["flows"]["bulk"]` followed by `path`, as a number.
pub fn bulk(out: &RunOutput, path: &[&str]) -> f64 {
    num(&out.summary["flows"]["bulk"], path)
}

/// The last value of `rows` at or before `t_ns`, if any.
pub fn value_at(rows: &[(u64, f64)], t_ns: u64) -> Option<f64> {
    rows.iter().take_while(|r| r.0 <= t_ns).last().map(|r| r.1)
}
