//! Scenario-level tests: loading, every validation rule with its exact message, overrides,
//! echo round trips and the JSON Schema.

mod docs;
mod errors;
mod load;
mod output_schema;
mod overrides;
mod schema;
mod tcp;

use crate::{load_str, Scenario};

/// A cellular-like chain server – gw – enb – ue with one UDP and two TCP flows.
pub(crate) const BASE: &str = r#"
[simulation]
duration = "30s"
seed = 7

[nodes.server]
kind = "host"

[nodes.gw]
kind = "router"

[nodes.enb]
kind = "router"

[nodes.ue]
kind = "host"
address = "10.0.0.9"

[links.core]
a = "server"
b = "gw"
rate = "1Gbps"
delay = "10ms"

[links.backhaul]
a = "gw"
b = "enb"
rate = "100Mbps"
delay = "5ms"
metric = 2

[links.access]
a = "enb"
b = "ue"
rate = "25Mbps"
delay = "20ms"
queue = { kind = "droptail", limit = "200p" }
a_to_b = { loss = { kind = "bernoulli", p = 0.01 } }
b_to_a = { rate = "5Mbps", queue = { kind = "codel" } }

[flows.video]
kind = "udp"
src = "server"
dst = "ue"
rate = "2Mbps"
packet_size = "1200B"
arrival = "poisson"
start = "1s"
stop = "20s"

[flows.bulk]
kind = "tcp"
src = "server"
dst = "ue"
cc = "cubic"
app = { kind = "bulk", bytes = "10MB" }

[flows.bulk.tcp]
ecn = true
delayed_ack = false

[flows.web]
kind = "tcp"
src = "server"
dst = "ue"
cc = "newreno"
app = { kind = "ftp", file_size = { dist = "pareto", mean = "100KB", shape = 1.5 }, think_time = "30s" }

[trace]
interval = "100ms"
queues = ["access"]
flows = ["video"]
tcp = ["cwnd", "srtt"]

[capture]
links = ["access"]
snaplen = "128B"
"#;

/// The smallest useful file: two hosts, one link, nothing else set.
pub(crate) const MINIMAL: &str = r#"
[simulation]
duration = "10s"

[nodes.a]
kind = "host"

[nodes.b]
kind = "host"

[links.ab]
a = "a"
b = "b"
rate = "10Mbps"
"#;

pub(crate) fn load(text: &str) -> Scenario {
    load_str(text, &[]).unwrap_or_else(|e| panic!("scenario should load: {e}"))
}

/// Loads `text` with `overrides` and returns the error as "key: message".
pub(crate) fn err_with(text: &str, overrides: &[(&str, &str)]) -> String {
    let owned: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    match load_str(text, &owned) {
        Ok(_) => panic!("expected an error for {overrides:?}"),
        Err(e) => e.to_string(),
    }
}

/// BASE with one override, expected to fail.
pub(crate) fn base_err(key: &str, value: &str) -> String {
    err_with(BASE, &[(key, value)])
}
