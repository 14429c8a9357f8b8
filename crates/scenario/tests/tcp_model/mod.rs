//! Shared fixtures of the TCP validation tests: a single-bottleneck topology written as scenario
//! text, access to the summary and to the traced TCP series, and the few analytic formulas the
//! tests compare with, ported from `python/celltcp/models/`.
//!
//! Units follow the names: `_bps` bits per second, `_s` seconds, `_ns` nanoseconds, `_bytes`
//! bytes, `_segments` segments.

#![allow(dead_code)] // each test file uses a different subset

use celltcp_scenario::RunOutput;

#[path = "../support/mod.rs"]
mod support;
#[allow(unused_imports)] // each test file uses a different subset
pub use support::{jain as jain_fairness, median, num, run_text, tcp_series};

/// IPv4 header (20 B) plus TCP header with the timestamps option (20 + 12 B), bytes: the
/// overhead of every full-sized data segment with the default endpoint settings.
pub const HEADER_BYTES_TS: f64 = 52.0;
/// Default sender MSS of scenario files, bytes.
pub const MSS: f64 = 1448.0;

/// One bottleneck between two hosts:
///
/// ```text
///   src --1Gbps, 0 ms, ACCESS_QUEUE-- router --RATE, DELAY, QUEUE-- dst
/// ```
///
/// When RATE is below 1 Gb/s the queue in the data direction of `bottleneck` is the only one
/// that can build up (the access queue, 1000 packets by default, only absorbs bursts). Flows are
/// appended with [`Dumbbell::tcp_flow`]; `extra` is pasted verbatim at the end (e.g. a
/// `[trace]` table).
#[derive(Clone, Debug)]
pub struct Dumbbell {
    pub duration: &'static str,
    pub rate: &'static str,
    pub delay: &'static str,
    /// The queue of the access link (both directions), as an inline TOML table.
    pub access_queue: String,
    /// The data-direction queue of the bottleneck, as an inline TOML table.
    pub queue: String,
    pub flows: String,
    pub extra: String,
}

impl Dumbbell {
    pub fn new(
        duration: &'static str,
        rate: &'static str,
        delay: &'static str,
        queue: &str,
    ) -> Self {
        Dumbbell {
            duration,
            rate,
            delay,
            access_queue: "{ kind = \"droptail\", limit = \"1000p\" }".to_string(),
            queue: queue.to_string(),
            flows: String::new(),
            extra: String::new(),
        }
    }

    /// Adds a bulk TCP flow `name` from `src` to `dst` with controller `cc`, starting at
    /// `start`; `tcp` is the body of its `[flows.NAME.tcp]` table (TOML lines).
    pub fn tcp_flow(&mut self, name: &str, cc: &str, start: &str, tcp: &str) -> &mut Self {
        self.flows.push_str(&format!(
            "[flows.{name}]\nkind = \"tcp\"\nsrc = \"src\"\ndst = \"dst\"\nstart = \"{start}\"\n\
             cc = \"{cc}\"\napp = {{ kind = \"bulk\" }}\n\n[flows.{name}.tcp]\n{tcp}\n\n"
        ));
        self
    }

    pub fn toml(&self) -> String {
        format!(
            "[simulation]\nduration = \"{d}\"\n\n\
             [nodes]\nsrc = {{ kind = \"host\" }}\nrouter = {{ kind = \"router\" }}\n\
             dst = {{ kind = \"host\" }}\n\n\
             [links.access]\na = \"src\"\nb = \"router\"\nrate = \"1Gbps\"\nqueue = {aq}\n\n\
             [links.bottleneck]\na = \"router\"\nb = \"dst\"\nrate = \"{r}\"\ndelay = \"{dl}\"\n\
             queue = {{ kind = \"droptail\", limit = \"1000p\" }}\n\n\
             [links.bottleneck.a_to_b]\nqueue = {q}\n\n{flows}{extra}",
            d = self.duration,
            r = self.rate,
            dl = self.delay,
            aq = self.access_queue,
            q = self.queue,
            flows = self.flows,
            extra = self.extra,
        )
    }

    /// Loads and runs the scenario with `seed` (replication 0).
    pub fn run(&self, seed: u64) -> RunOutput {
        run_text(&self.toml(), seed)
    }
}

/// Value of a cumulative series at `t_ns`: the last row at or before it (0 before the first).
pub fn value_at(rows: &[(u64, f64)], t_ns: u64) -> f64 {
    let i = rows.partition_point(|r| r.0 <= t_ns);
    if i == 0 {
        0.0
    } else {
        rows[i - 1].1
    }
}

/// Mean of the values of a series (NaN if empty).
pub fn mean(rows: &[(u64, f64)]) -> f64 {
    rows.iter().map(|r| r.1).sum::<f64>() / rows.len() as f64
}

/// Application payload rate a link of `rate_bps` carries when every packet is a full-sized
/// segment of `mss` payload bytes plus `header_bytes`, bits per second.
pub fn payload_capacity_bps(rate_bps: f64, mss: f64, header_bytes: f64) -> f64 {
    rate_bps * mss / (mss + header_bytes)
}

/// PFTK full model, eq. (31), without the receiver-window limit, bits per second: the model
/// Python's `celltcp.models.pftk_throughput_bps` computes too (`celltcp_tcp::models`).
pub fn pftk_throughput_bps(mss_bytes: f64, rtt_s: f64, p: f64, t0_s: f64, b: f64) -> f64 {
    celltcp_tcp::models::pftk_throughput_bps(mss_bytes, rtt_s, p, t0_s, b, None)
}

/// Slow-start rounds from `iw` to `w` segments when every round multiplies cwnd by `g`
/// (`celltcp_tcp::models::slow_start_rounds`, also Python's `slow_start_rounds`).
pub fn slow_start_rounds(w: f64, iw: f64, g: f64) -> f64 {
    celltcp_tcp::models::slow_start_rounds(w, iw, g)
}
