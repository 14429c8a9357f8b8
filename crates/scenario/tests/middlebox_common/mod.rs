//! Fixture of the middlebox scenario tests: a fixed server behind a wired link and a mobile
//! host behind a lossy last hop, with a base station `bs` between them that may run
//! middleboxes.
//!
//! ```text
//!   server --wired 100 Mbps, 20 ms-- bs --radio 10 Mbps, 1 ms-- ue
//! ```
//!
//! The radio hop's bs → ue direction loses each packet independently with probability `per`
//! (Bernoulli, the stream of `links.radio.a_to_b.loss`, the same for every variant of a seed).
//! One bulk TCP flow `bulk` runs from `server` to `ue`. Units follow the names: `_bps` bits per
//! second, `_s` seconds.

#![allow(dead_code)] // each test file uses a different subset

use celltcp_scenario::RunOutput;

#[path = "../support/mod.rs"]
mod support;
#[allow(unused_imports)]
pub use support::{median, num, run_text, tcp_series};

/// The payload capacity of the radio hop for 1448-byte segments with timestamps: 10 Mb/s ×
/// 1448 / (1448 + 52) bytes.
pub const RADIO_PAYLOAD_BPS: f64 = 10e6 * 1448.0 / 1500.0;

#[derive(Clone, Debug)]
pub struct LastHop {
    pub duration: String,
    /// Loss probability of each packet bs → ue; `None` for a loss-free hop.
    pub per: Option<f64>,
    /// Loss probability of each packet server → bs (before the base station); `None` for none.
    pub wired_per: Option<f64>,
    /// Drop-tail limit of the base station's queue towards the UE (e.g. "100p").
    pub bs_queue: String,
    pub cc: String,
    /// Body of `[flows.bulk.tcp]`.
    pub tcp: String,
    /// Middlebox sections, pasted verbatim (e.g. `[middleboxes.snoop]` and its keys).
    pub middleboxes: String,
}

impl LastHop {
    pub fn new(duration: &str, per: Option<f64>) -> Self {
        LastHop {
            duration: duration.into(),
            per,
            wired_per: None,
            bs_queue: "100p".into(),
            cc: "newreno".into(),
            tcp: String::new(),
            middleboxes: String::new(),
        }
    }

    pub fn toml(&self) -> String {
        let loss = |p: Option<f64>| {
            p.map_or(String::new(), |p| {
                format!("loss = {{ kind = \"bernoulli\", p = {p} }}")
            })
        };
        format!(
            "[simulation]\nduration = \"{dur}\"\n\n\
             [nodes]\nserver = {{ kind = \"host\" }}\nbs = {{ kind = \"router\" }}\nue = {{ kind = \"host\" }}\n\n\
             [links.wired]\na = \"server\"\nb = \"bs\"\nrate = \"100Mbps\"\ndelay = \"20ms\"\n\
             queue = {{ kind = \"droptail\", limit = \"1000p\" }}\n\n\
             [links.wired.a_to_b]\n{wired_loss}\n\n\
             [links.radio]\na = \"bs\"\nb = \"ue\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
             queue = {{ kind = \"droptail\", limit = \"{q}\" }}\n\n\
             [links.radio.a_to_b]\n{loss}\n\n\
             [flows.bulk]\nkind = \"tcp\"\nsrc = \"server\"\ndst = \"ue\"\ncc = \"{cc}\"\n\
             app = {{ kind = \"bulk\" }}\n\n[flows.bulk.tcp]\n{tcp}\n\n{mb}\n",
            dur = self.duration,
            q = self.bs_queue,
            cc = self.cc,
            tcp = self.tcp,
            mb = self.middleboxes,
            loss = loss(self.per),
            wired_loss = loss(self.wired_per),
        )
    }

    pub fn run(&self, seed: u64) -> RunOutput {
        run_text(&self.toml(), seed)
    }
}

/// `summary["flows"]["bulk"]` followed by `path`, as a number.
pub fn bulk(out: &RunOutput, path: &[&str]) -> f64 {
    num(&out.summary["flows"]["bulk"], path)
}

/// `summary["middleboxes"][name]` followed by `path`, as a number.
pub fn middlebox(out: &RunOutput, name: &str, path: &[&str]) -> f64 {
    num(&out.summary["middleboxes"][name], path)
}

/// Packets the radio hop's loss model dropped towards the UE.
pub fn radio_losses(out: &RunOutput) -> f64 {
    num(
        &out.summary["links"]["radio"]["a_to_b"],
        &["drops", "link_loss"],
    )
}

/// Packets the base station's queue towards the UE dropped (congestion).
pub fn queue_drops(out: &RunOutput) -> f64 {
    num(
        &out.summary["links"]["radio"]["a_to_b"],
        &["drops", "queue_full"],
    )
}

pub const SNOOP: &str = "[middleboxes.snoop]\nkind = \"snoop\"\nnode = \"bs\"\n";
pub const ELN: &str = "[middleboxes.eln]\nkind = \"eln\"\nnode = \"bs\"\n";
