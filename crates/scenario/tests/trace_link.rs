//! Trace-driven links in scenario files: `trace = "file"` on a link direction, the path rules,
//! every corrupt-file error, and the figures of runs over the shipped traces.

use std::path::{Path, PathBuf};

use celltcp_net::trace_service::TraceAccounting;
use celltcp_scenario::{load_path, load_str, run, Column, RunOptions, RunOutput};
use serde_json::Value;

fn traces_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/celltcp/examples/traces")
}

fn example() -> PathBuf {
    traces_dir().join("trace-link.toml")
}

fn set(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A UDP flow replacing the example's TCP flow: `rate` of payload in 1472-byte datagrams
/// (1500-byte IP packets, one delivery opportunity each).
const UDP: &str =
    "{ kind = \"udp\", src = \"server\", dst = \"ue\", rate = \"RATE\", packet_size = \"1472B\" }";

fn udp(rate: &str) -> String {
    UDP.replace("RATE", rate)
}

fn run_example(overrides: &[(&str, &str)]) -> RunOutput {
    let sc = load_path(&example(), &set(overrides)).unwrap();
    run(&sc, &RunOptions::default()).unwrap()
}

fn f64_at(v: &Value, path: &[&str]) -> f64 {
    let mut v = v;
    for k in path {
        v = &v[*k];
    }
    v.as_f64()
        .unwrap_or_else(|| panic!("{path:?} is not a number: {v}"))
}

/// Delivery times (ns) of the flow's packets at the destination, from the `packets` series.
fn delivery_times(out: &RunOutput) -> Vec<u64> {
    let packets = out
        .series
        .iter()
        .find(|s| s.name == "packets")
        .expect("packets series");
    match &packets
        .columns
        .iter()
        .find(|(n, _)| n == "time_ns")
        .expect("time_ns")
        .1
    {
        Column::U64(v) => v.clone(),
        other => panic!("time_ns is {other:?}"),
    }
}

#[test]
fn trace_paths_are_relative_to_the_scenario_file() {
    let sc = load_path(&example(), &[]).unwrap();
    let access = &sc.links["access"];
    let trace = access
        .a_to_b
        .trace
        .as_ref()
        .expect("a_to_b is trace-driven");
    assert_eq!(Path::new(&trace.path), traces_dir().join("drive.trace"));
    assert!(access.b_to_a.trace.is_none());
    assert_eq!(access.b_to_a.rate_bps, 5_000_000);
    // drive.trace: 12,605 opportunities in 10 s.
    assert_eq!(trace.trace.opportunities_per_period(), 12_605);
    assert_eq!(access.a_to_b.rate_bps, 15_126_000);
    // The echo carries the resolved path, so it loads again from the same directory.
    assert_eq!(
        sc.echo()["links"]["access"]["a_to_b"]["trace"],
        Value::String(trace.path.clone())
    );
    // An override is resolved like a written value: relative to the scenario file.
    let sc = load_path(
        &example(),
        &set(&[("links.access.a_to_b.trace", "const-12mbps.trace")]),
    )
    .unwrap();
    assert_eq!(sc.links["access"].a_to_b.rate_bps, 12_000_000);
}

#[test]
fn load_str_resolves_trace_paths_against_the_current_directory() {
    // Tests run in the package directory (crates/scenario).
    let text = std::fs::read_to_string(example()).unwrap();
    let from_cwd = text.replace(
        "\"drive.trace\"",
        "\"../../python/celltcp/examples/traces/drive.trace\"",
    );
    let sc = load_str(&from_cwd, &[]).unwrap();
    assert_eq!(sc.links["access"].a_to_b.rate_bps, 15_126_000);
    let err = load_str(&text, &[]).unwrap_err().to_string();
    assert!(
        err.starts_with("links.access.a_to_b.trace: cannot read 'drive.trace': "),
        "{err}"
    );
}

/// A scratch directory holding a copy of the example scenario and the trace files of a test.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("celltcp-trace-link-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(example(), dir.join("trace-link.toml")).unwrap();
        Scratch(dir)
    }

    /// Loads the scenario with its a→b trace replaced by a file holding `contents`.
    fn load_with_trace(&self, contents: &str) -> String {
        std::fs::write(self.0.join("t.trace"), contents).unwrap();
        let over = set(&[("links.access.a_to_b.trace", "t.trace")]);
        load_path(&self.0.join("trace-link.toml"), &over)
            .unwrap_err()
            .to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn corrupt_trace_files_are_scenario_errors_naming_key_and_line() {
    let s = Scratch::new("corrupt");
    let numbers: String = (1..=16).map(|i| format!("{i}\n")).collect();
    assert_eq!(
        s.load_with_trace(&format!("{numbers}abc\n17\n")),
        "links.access.a_to_b.trace: line 17: 'abc' is not a millisecond timestamp"
    );
    assert_eq!(
        s.load_with_trace("1\n2\n2.5\n"),
        "links.access.a_to_b.trace: line 3: '2.5' is not a millisecond timestamp"
    );
    assert_eq!(
        s.load_with_trace("5\n10\n7\n12\n"),
        "links.access.a_to_b.trace: line 3: 7 ms is earlier than the 10 ms of the line before; timestamps must not decrease"
    );
    assert_eq!(
        s.load_with_trace(""),
        "links.access.a_to_b.trace: the trace has no delivery opportunities (the file is empty)"
    );
    assert_eq!(
        s.load_with_trace("0\n0\n0\n"),
        "links.access.a_to_b.trace: line 3: the trace ends at 0 ms; its last timestamp must be > 0 for the trace to repeat"
    );
    let missing = load_path(
        &s.0.join("trace-link.toml"),
        &set(&[("links.access.a_to_b.trace", "nope.trace")]),
    )
    .unwrap_err()
    .to_string();
    let expected = format!(
        "links.access.a_to_b.trace: cannot read '{}': ",
        s.0.join("nope.trace").display()
    );
    assert!(missing.starts_with(&expected), "{missing}");
}

#[test]
fn a_direction_has_either_a_rate_or_a_trace() {
    let both = load_path(&example(), &set(&[("links.access.a_to_b.rate", "10Mbps")])).unwrap_err();
    assert_eq!(
        both.to_string(),
        "links.access.a_to_b.trace: a_to_b gives both a rate and a trace; give one"
    );
    // The uplink loses its rate: nothing serves it.
    let neither = load_path(
        &example(),
        &set(&[("links.access.b_to_a", "{ delay = \"5ms\" }")]),
    )
    .unwrap_err();
    assert_eq!(
        neither.to_string(),
        "links.access.rate: required key is missing (a_to_b has a trace but b_to_a has neither a rate nor a trace)"
    );
    // A link-level rate serves the direction without a trace; the trace replaces it for a_to_b.
    let sc = load_path(
        &example(),
        &set(&[
            ("links.access.rate", "50Mbps"),
            ("links.access.b_to_a", "{}"),
        ]),
    )
    .unwrap();
    assert_eq!(sc.links["access"].b_to_a.rate_bps, 50_000_000);
    assert_eq!(sc.links["access"].a_to_b.rate_bps, 15_126_000);
}

#[test]
fn constant_12mbps_trace_gives_udp_its_rate() {
    let flow = udp("20Mbps");
    let out = run_example(&[
        ("links.access.a_to_b.trace", "const-12mbps.trace"),
        ("flows.bulk", &flow),
        ("simulation.duration", "10s"),
    ]);
    let f = &out.summary["flows"]["bulk"];
    let throughput = f64_at(f, &["throughput_bps"]);
    let goodput = f64_at(f, &["goodput_bps"]);
    eprintln!(
        "UDP over the 12 Mb/s trace: throughput {throughput:.0} b/s, goodput {goodput:.0} b/s"
    );
    // IP bytes: the first delivery is at 25 ms (the trace's 1 ms opportunity waits for the
    // datagram's arrival at 20.12 ms), then one 1500-byte packet per millisecond: 9,975 packets.
    assert_eq!(throughput, 9_975.0 * 1500.0 * 8.0 / 10.0);
    assert!((throughput - 12e6).abs() / 12e6 < 0.02);
    // Payload: 1472 of every 1500 bytes, so the goodput is measured against 11.776 Mb/s.
    let payload_rate = 12e6 * 1472.0 / 1500.0;
    assert!(
        (goodput - payload_rate).abs() / payload_rate < 0.02,
        "goodput {goodput}"
    );
    let link = &out.summary["links"]["access"]["a_to_b"];
    assert_eq!(f64_at(link, &["rate_bps"]), 12e6);
    // Saturated from 20.12 ms on: the opportunities at 1 … 20 ms passed unused.
    let utilization = f64_at(link, &["utilization"]);
    assert!(
        (utilization - 9_980.0 / 10_000.0).abs() < 1e-3,
        "utilization {utilization}"
    );
}

#[test]
fn constant_12mbps_trace_gives_tcp_its_rate() {
    let out = run_example(&[
        ("links.access.a_to_b.trace", "const-12mbps.trace"),
        ("simulation.duration", "30s"),
    ]);
    let f = &out.summary["flows"]["bulk"];
    let goodput = f64_at(f, &["goodput_bps"]);
    let throughput = f64_at(f, &["throughput_bps"]);
    // 1448-byte segments with timestamps fill the 1500-byte opportunities: the payload share of
    // 12 Mb/s is 11.584 Mb/s.
    let payload_rate = 12e6 * 1448.0 / 1500.0;
    eprintln!(
        "TCP (cubic) over the 12 Mb/s trace: throughput {throughput:.0} b/s, goodput {goodput:.0} b/s ({:.2} % of {payload_rate:.0})",
        100.0 * goodput / payload_rate
    );
    assert!(
        (goodput - payload_rate).abs() / payload_rate < 0.02,
        "goodput {goodput}"
    );
    assert!(goodput <= payload_rate);
}

#[test]
fn drive_trace_gaps_stall_delivery_for_exactly_200_ms() {
    // 40 Mb/s of payload keeps every stretch of the drive (at most 36 Mb/s) saturated.
    let flow = udp("40Mbps");
    let out = run_example(&[
        ("flows.bulk", &flow),
        ("trace.packets", "[\"bulk\"]"),
        ("simulation.duration", "20s"),
    ]);
    let times = delivery_times(&out);
    let ms = 1_000_000;
    let stalls: Vec<(u64, u64)> = times
        .windows(2)
        .filter(|w| w[1] - w[0] > 4 * ms)
        .map(|w| (w[0], w[1] - w[0]))
        .collect();
    // Gaps between opportunities at 2000→2200, 5000→5200 and 9000→9200 ms of each 10 s
    // repetition, seen 5 ms later (the access link's propagation delay), exactly 200 ms each.
    let starts: Vec<u64> = stalls.iter().map(|&(t, _)| t).collect();
    let expected: Vec<u64> = [2_005, 5_005, 9_005, 12_005, 15_005, 19_005]
        .iter()
        .map(|t| t * ms)
        .collect();
    assert_eq!(starts, expected);
    assert!(stalls.iter().all(|&(_, gap)| gap == 200 * ms), "{stalls:?}");
    // Every delivery is on a whole millisecond: an opportunity plus 5 ms.
    assert!(times.iter().all(|t| t % ms == 0));
    let link = &out.summary["links"]["access"]["a_to_b"];
    let utilization = f64_at(link, &["utilization"]);
    eprintln!(
        "UDP at 40 Mb/s over the drive trace: {} packets delivered, utilization {utilization}",
        times.len()
    );
    // Two repetitions of 12,605 opportunities, less the 40 of 1…20 ms (24 Mb/s) that pass before
    // the first datagram arrives at 20.12 ms, less the 5 at 19.996…20 s whose deliveries fall
    // after the end.
    assert_eq!(times.len() as u64, 2 * 12_605 - 40 - 5);
    // Unused only in those first 20 ms: busy time 1 − 0.020/20 = 0.999 of the run (in
    // opportunities, 1 − 40/25,210 = 0.9984).
    assert!(
        (0.998..=0.9991).contains(&utilization),
        "utilization {utilization}"
    );
}

#[test]
fn utilization_of_a_half_loaded_constant_trace() {
    // 6 Mb/s of 1472-byte payloads: one datagram every 1.962667 ms, each using one of the 1000
    // opportunities per second. Those sent from 20.12 ms before the end have not reached the
    // access link: (10 s − 20.12 ms) / 1.962667 ms → 5085 datagrams.
    let flow = udp("6Mbps");
    let out = run_example(&[
        ("links.access.a_to_b.trace", "const-12mbps.trace"),
        ("flows.bulk", &flow),
        ("simulation.duration", "10s"),
    ]);
    let link = &out.summary["links"]["access"]["a_to_b"];
    let sent = f64_at(link, &["packets_sent"]);
    let utilization = f64_at(link, &["utilization"]);
    eprintln!("UDP at 6 Mb/s over the 12 Mb/s trace: {sent} packets, utilization {utilization}");
    assert_eq!(utilization, sent / 10_000.0);
    assert_eq!(sent, 5085.0);
    assert_eq!(f64_at(&out.summary["flows"]["bulk"], &["loss_ratio"]), 0.0);
}

#[test]
fn tcp_over_the_drive_trace_runs_and_repeats_identically() {
    let over = [("links.access.loss", "{ kind = \"bernoulli\", p = 0.001 }")];
    let a = run_example(&over);
    let b = run_example(&over);
    assert_eq!(
        serde_json::to_string(&a.summary).unwrap(),
        serde_json::to_string(&b.summary).unwrap()
    );
    let goodput = f64_at(&a.summary["flows"]["bulk"], &["goodput_bps"]);
    let link = &a.summary["links"]["access"]["a_to_b"];
    eprintln!(
        "TCP (cubic) over the drive trace, 20 s, 0.1 % loss: goodput {goodput:.0} b/s, utilization {}",
        f64_at(link, &["utilization"])
    );
    // The trace's mean rate is 15.126 Mb/s; its payload share 14.60 Mb/s bounds the goodput.
    assert!(goodput < 15.126e6 * 1448.0 / 1500.0);
    assert!(
        goodput > 0.5 * 15.126e6 * 1448.0 / 1500.0,
        "goodput {goodput}"
    );
    assert!(f64_at(link, &["drops", "link_loss"]) > 0.0);
}

#[test]
fn accounting_is_validated_echoed_and_defaults_to_bytes() {
    let sc = load_path(&example(), &[]).unwrap();
    let access = &sc.links["access"];
    let trace = access.a_to_b.trace.as_ref().unwrap();
    assert_eq!(trace.accounting, TraceAccounting::Bytes);
    // The echo shows the default on the trace-driven direction only.
    let echo = sc.echo();
    assert_eq!(echo["links"]["access"]["a_to_b"]["accounting"], "bytes");
    assert!(echo["links"]["access"]["b_to_a"]
        .get("accounting")
        .is_none());
    let sc = load_path(
        &example(),
        &set(&[("links.access.a_to_b.accounting", "packets")]),
    )
    .unwrap();
    let trace = sc.links["access"].a_to_b.trace.as_ref().unwrap();
    assert_eq!(trace.accounting, TraceAccounting::Packets);
    assert_eq!(
        sc.echo()["links"]["access"]["a_to_b"]["accounting"],
        "packets"
    );
    let err = |key: &str, value: &str| {
        load_path(&example(), &set(&[(key, value)]))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err("links.access.a_to_b.accounting", "bits"),
        "links.access.a_to_b.accounting: 'bits' is not a trace accounting; expected one of: bytes, packets"
    );
    assert_eq!(
        err("links.access.b_to_a.accounting", "bytes"),
        "links.access.b_to_a.accounting: applies only to a trace-driven direction; b_to_a has no trace"
    );
}

/// The access link with both directions on the 12 Mb/s constant trace, uplink accounting
/// `accounting`, for `duration`, with `flow` as the flow `bulk` (the example's TCP flow if
/// `None`).
fn run_constant_both_ways(accounting: &str, duration: &str, flow: Option<&str>) -> RunOutput {
    let mut over = vec![
        ("links.access.a_to_b.trace", "const-12mbps.trace"),
        ("links.access.a_to_b.accounting", accounting),
        ("links.access.b_to_a", "{ trace = \"const-12mbps.trace\" }"),
        ("links.access.b_to_a.accounting", accounting),
        ("simulation.duration", duration),
    ];
    if let Some(f) = flow {
        over.push(("flows.bulk", f));
    }
    run_example(&over)
}

#[test]
fn small_udp_datagrams_share_opportunities() {
    // 200-byte IP datagrams (172 bytes of payload) at 8 Mb/s of payload: 5,814 per second,
    // 29,070 in 5 s, over 1,000 opportunities per second.
    let flow =
        "{ kind = \"udp\", src = \"server\", dst = \"ue\", rate = \"8Mbps\", packet_size = \"172B\" }";
    let figures = |accounting: &str| {
        let out = run_constant_both_ways(accounting, "5s", Some(flow));
        let link = &out.summary["links"]["access"]["a_to_b"];
        (
            f64_at(link, &["packets_sent"]),
            f64_at(link, &["packets_delivered"]),
            f64_at(link, &["drops", "queue_full"]),
            f64_at(link, &["utilization"]),
        )
    };
    let (sent, delivered, dropped, utilization) = figures("bytes");
    eprintln!("200-byte UDP at 8 Mb/s, bytes: {sent} sent, {delivered} delivered, {dropped} dropped, utilization {utilization}");
    // Mahimahi's accounting: 204 of an opportunity's 1504 bytes each; none waits for more than
    // the next opportunity, none is dropped, and every datagram that left the link is delivered
    // but those still propagating at the end (5 ms × 5,814/s = 29).
    assert_eq!(dropped, 0.0);
    assert!(
        sent - delivered <= 30.0,
        "{sent} sent, {delivered} delivered"
    );
    // 29,070 datagrams sent, less those sent in the last 25.1 ms (wired hop and propagation).
    assert!((delivered - 29_070.0 + 146.0).abs() <= 2.0, "{delivered}");
    assert!((utilization - sent * 204.0 / (5_000.0 * 1504.0)).abs() < 1e-4);
    let (p_sent, p_delivered, p_dropped, p_utilization) = figures("packets");
    eprintln!("200-byte UDP at 8 Mb/s, packets: {p_sent} sent, {p_delivered} delivered, {p_dropped} dropped, utilization {p_utilization}");
    // One whole opportunity each: at most 1,000 a second, the rest dropped at the queue.
    assert!(p_delivered < 5_000.0 && p_dropped > 23_000.0);
    assert!(p_utilization > 0.99);
}

#[test]
fn acks_over_a_trace_uplink_use_only_their_bytes() {
    let figures = |accounting: &str| {
        let out = run_constant_both_ways(accounting, "10s", None);
        let up = &out.summary["links"]["access"]["b_to_a"];
        (
            f64_at(up, &["packets_sent"]),
            f64_at(up, &["bytes_sent"]),
            f64_at(up, &["utilization"]),
            f64_at(&out.summary["flows"]["bulk"], &["goodput_bps"]),
        )
    };
    let (acks, ack_bytes, utilization, goodput) = figures("bytes");
    eprintln!("TCP over the 12 Mb/s trace, ACKs on a 12 Mb/s trace uplink, bytes: {acks} ACKs, uplink utilization {utilization}, goodput {goodput:.0} b/s");
    // Each ACK takes its IP bytes plus 4 of the 10,000 opportunities' 1504 bytes (give or take
    // the ACK in service at the end).
    let expected = (ack_bytes + 4.0 * acks) / (10_000.0 * 1504.0);
    assert!(
        (utilization - expected).abs() < 1e-4,
        "{utilization} vs {expected}"
    );
    assert!(utilization < 0.05);
    let (p_acks, _, p_utilization, p_goodput) = figures("packets");
    eprintln!("same, packets: {p_acks} ACKs, uplink utilization {p_utilization}, goodput {p_goodput:.0} b/s");
    // One whole opportunity per ACK.
    assert!((p_utilization - p_acks / 10_000.0).abs() < 2e-4);
    assert!(p_utilization > 10.0 * utilization);
}

#[test]
fn a_slow_trace_uplink_is_saturated_by_acks_only_under_packet_accounting() {
    // Uplink: one opportunity every 4 ms (3 Mb/s); downlink: the 12 Mb/s constant trace. The
    // ACKs of a 12 Mb/s download (about 500 a second with delayed ACKs) would need half the
    // uplink's opportunities if each took a whole one.
    let s = Scratch::new("slow-uplink");
    let every_4ms: String = (1..=250).map(|i| format!("{}\n", 4 * i)).collect();
    std::fs::write(s.0.join("every-4ms.trace"), every_4ms).unwrap();
    std::fs::copy(
        traces_dir().join("const-12mbps.trace"),
        s.0.join("const-12mbps.trace"),
    )
    .unwrap();
    let figures = |accounting: &str| {
        let over = set(&[
            ("links.access.a_to_b.trace", "const-12mbps.trace"),
            ("links.access.b_to_a", "{ trace = \"every-4ms.trace\" }"),
            ("links.access.b_to_a.accounting", accounting),
            ("simulation.duration", "10s"),
        ]);
        let sc = load_path(&s.0.join("trace-link.toml"), &over).unwrap();
        let out = run(&sc, &RunOptions::default()).unwrap();
        let up = &out.summary["links"]["access"]["b_to_a"];
        (
            f64_at(up, &["utilization"]),
            f64_at(up, &["queue_mean_packets"]),
            f64_at(&out.summary["flows"]["bulk"], &["goodput_bps"]),
        )
    };
    let (utilization, queue, goodput) = figures("bytes");
    eprintln!("ACKs on a 3 Mb/s trace uplink, bytes: uplink utilization {utilization:.4}, ACK queue {queue:.2} packets, goodput {goodput:.0} b/s");
    let (p_utilization, p_queue, p_goodput) = figures("packets");
    eprintln!("same, packets: uplink utilization {p_utilization:.4}, ACK queue {p_queue:.2} packets, goodput {p_goodput:.0} b/s");
    assert!(utilization < 0.15 && queue < 3.0, "{utilization} {queue}");
    assert!(
        p_utilization > 0.9 && p_queue > 50.0,
        "{p_utilization} {p_queue}"
    );
    assert!(goodput > p_goodput);
}
