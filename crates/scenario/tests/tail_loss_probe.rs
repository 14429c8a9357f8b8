//! `tcp.tlp` (RFC 8985 §7) in a run: transfers of one segment over a lossy link lose their
//! whole flight, with no later segment to draw a duplicate ACK; with tail loss probes the
//! segment is sent again 2·SRTT + 200 ms after it, not after a retransmission timeout.

use celltcp_scenario::{load_str, run, RunOptions};
use serde_json::Value;

/// 1 kB files, one every half second, over a 10 Mbit/s link with 20 ms one-way delay and 10 %
/// loss in the data direction; the RTO floor of RFC 6298 (1 s) as in the ns-2 and ns-3 set-ups.
fn sender(tlp: bool) -> Value {
    let text = format!(
        r#"
[simulation]
duration = "120s"
seed = 7

[nodes.server]
kind = "host"

[nodes.client]
kind = "host"

[links.l]
a = "server"
b = "client"
rate = "10Mbps"
delay = "20ms"
a_to_b = {{ loss = {{ kind = "bernoulli", p = 0.1 }} }}

[flows.ftp]
kind = "tcp"
src = "server"
dst = "client"
cc = "newreno"
app = {{ kind = "ftp", file_size = "1KB", think_time = "500ms" }}
tcp = {{ min_rto = "1s", tlp = {tlp} }}
"#
    );
    let sc = load_str(&text, &[]).unwrap_or_else(|e| panic!("scenario should load: {e}"));
    let out = run(&sc, &RunOptions::default()).expect("runs");
    // The echo writes the switch only when it is on.
    let echoed = &out.summary["scenario"]["flows"]["ftp"]["tcp"]["tlp"];
    assert_eq!(echoed.as_bool().unwrap_or(false), tlp, "{echoed}");
    out.summary["flows"]["ftp"]["sender"].clone()
}

fn figure(v: &Value, name: &str) -> f64 {
    v[name]
        .as_f64()
        .unwrap_or_else(|| panic!("{name} is not a number: {v}"))
}

#[test]
fn probes_repair_lost_single_segment_transfers_without_a_timeout() {
    let (off, on) = (sender(false), sender(true));
    let (t_off, t_on) = (figure(&off, "timeouts"), figure(&on, "timeouts"));
    assert!(t_off >= 10.0, "the set-up should lose tails: {off}");
    // A timeout remains only where the probe is lost as well (about one in ten).
    assert!(
        t_on <= 0.3 * t_off,
        "timeouts {t_on} with TLP, {t_off} without"
    );
    // The repairs come sooner: more files in the same time.
    assert!(
        figure(&on, "ftp_transfers") > figure(&off, "ftp_transfers"),
        "{on} vs {off}"
    );
}
