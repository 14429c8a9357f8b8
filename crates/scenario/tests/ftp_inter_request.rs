//! FTP with `inter_request` (seed 001_…: "File Inter-Request time: exponential with mean = 30s"):
//! requests follow a schedule with exponential times between them; a request due before the
//! receiving host has the previous file starts when it has. A split-TCP proxy does not change
//! the requests. Also the config errors of the two exclusive keys.

use celltcp_engine::SimDuration;
use celltcp_scenario::{load_path, load_str, run, AppSpec, FileSize, RunOptions};
use serde_json::Value;

/// Two hosts on one `rate` link with a 5 ms one-way delay, an FTP flow with `app`.
fn scenario(duration: &str, rate: &str, app: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
seed = 1

[nodes.server]
kind = "host"

[nodes.client]
kind = "host"

[links.l]
a = "server"
b = "client"
rate = "{rate}"
delay = "5ms"

[flows.ftp]
kind = "tcp"
src = "server"
dst = "client"
cc = "newreno"
app = {app}
"#
    )
}

fn sender(text: &str) -> Value {
    let sc = load_str(text, &[]).unwrap_or_else(|e| panic!("scenario should load: {e}"));
    let out = run(&sc, &RunOptions::default()).expect("runs");
    out.summary["flows"]["ftp"]["sender"].clone()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn load_err(app: &str) -> String {
    match load_str(&scenario("10s", "10Mbps", app), &[]) {
        Ok(_) => panic!("{app} should be rejected"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn short_transfers_start_one_mean_inter_request_time_apart() {
    // A 2 kB file takes a handshake and one round trip (≈ 25 ms) against a 2 s mean: about 1 %
    // of the requests fall due during the previous transfer.
    let s = sender(&scenario(
        "4000s",
        "10Mbps",
        "{ kind = 'ftp', file_size = '2KB', inter_request = '2s' }",
    ));
    let requests = f(&s["ftp_requests"]);
    let mean = f(&s["ftp_mean_inter_request_s"]);
    let delayed = f(&s["ftp_requests_delayed"]);
    let transfer = f(&s["ftp_mean_transfer_time_s"]);
    eprintln!(
        "{requests} requests, mean gap {mean:.4} s, {delayed} delayed, transfer {transfer:.4} s"
    );
    assert!(requests > 1_800.0 && requests < 2_200.0, "{requests}");
    assert!(transfer < 0.1, "{transfer}");
    // About 2000 gaps: standard error of the mean 2 s/√2000 ≈ 0.045 s. Had the spacing been
    // counted from the end of each transfer, the mean would be 2 s + the transfer time.
    assert!((mean - 2.0).abs() < 0.15, "{mean}");
    assert!(delayed < 0.05 * requests, "{delayed}");
}

#[test]
fn transfers_longer_than_the_draws_run_back_to_back() {
    // 1 MB at 2 Mbit/s takes > 4 s; draws average 0.5 s, so nearly every request waits for the
    // previous transfer and starts the instant it ends (one file at a time on the flow).
    let s = sender(&scenario(
        "300s",
        "2Mbps",
        "{ kind = 'ftp', file_size = '1MB', inter_request = '500ms' }",
    ));
    let requests = f(&s["ftp_requests"]);
    let transfers = f(&s["ftp_transfers"]);
    let mean = f(&s["ftp_mean_inter_request_s"]);
    let delayed = f(&s["ftp_requests_delayed"]);
    let transfer = f(&s["ftp_mean_transfer_time_s"]);
    eprintln!("{requests} requests, {transfers} transfers, mean gap {mean:.4} s, {delayed} delayed, transfer {transfer:.4} s");
    assert!(transfer > 4.0, "{transfer}");
    assert!(requests >= 40.0, "{requests}");
    // Request k + 1 started when transfer k ended: every started request but the running one
    // finished, and all but the first were late.
    assert_eq!(transfers, requests - 1.0);
    assert!(
        delayed >= 0.95 * (requests - 1.0),
        "{delayed} of {requests}"
    );
    // Back to back, the gap between starts is the transfer time.
    assert!(
        (mean - transfer).abs() < 0.02 * transfer,
        "{mean} vs {transfer}"
    );
}

#[test]
fn think_time_summaries_are_unchanged() {
    let s = sender(&scenario(
        "60s",
        "10Mbps",
        "{ kind = 'ftp', file_size = '2KB', think_time = '2s' }",
    ));
    assert!(f(&s["ftp_transfers"]) > 10.0);
    assert!(s.get("ftp_requests").is_none());
    assert!(s.get("ftp_requests_delayed").is_none());
    assert!(s.get("ftp_mean_inter_request_s").is_none());
}

#[test]
fn inter_request_loads_into_its_own_spec() {
    let sc = load_str(
        &scenario(
            "10s",
            "10Mbps",
            "{ kind = 'ftp', file_size = '100KB', inter_request = '30s' }",
        ),
        &[],
    )
    .expect("loads");
    let flow = sc.flows.get("ftp").expect("the flow");
    let app = match &flow.kind {
        celltcp_scenario::FlowKind::Tcp(t) => t.app.clone(),
        other => panic!("not a TCP flow: {other:?}"),
    };
    assert_eq!(
        app,
        AppSpec::FtpInterRequest {
            file_size: FileSize::Fixed(100_000),
            inter_request_mean: SimDuration::from_secs(30),
        }
    );
}

#[test]
fn think_time_and_inter_request_are_exclusive_and_one_is_required() {
    assert_eq!(
        load_err("{ kind = 'ftp', file_size = '100KB', think_time = '1s', inter_request = '30s' }"),
        "flows.ftp.app.inter_request: not allowed together with think_time; give exactly one of the two"
    );
    assert_eq!(
        load_err("{ kind = 'ftp', file_size = '100KB' }"),
        "flows.ftp.app.think_time: required key is missing (give think_time or inter_request)"
    );
    assert_eq!(
        load_err("{ kind = 'ftp', file_size = '100KB', inter_request = '0s' }"),
        "flows.ftp.app.inter_request: '0s' must be > 0"
    );
    assert_eq!(
        load_err("{ kind = 'ftp', file_size = '100KB', inter_request = '30' }"),
        "flows.ftp.app.inter_request: 30 has no unit; a time needs one of ns, us, ms, s, min (e.g. '30ms')"
    );
}

/// The sender's and the DCH's figures of seed 001's example at `overrides`.
fn example_001(overrides: &[(&str, &str)]) -> (Value, Value) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples/001/ftp-dch.toml");
    let over: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let sc = load_path(&path, &over).unwrap_or_else(|e| panic!("{e}"));
    let out = run(&sc, &RunOptions::default()).expect("runs");
    (
        out.summary["flows"]["ftp"]["sender"].clone(),
        out.summary["dch"]["radio"].clone(),
    )
}

#[test]
fn a_split_tcp_proxy_is_offered_the_same_files_at_the_same_times() {
    // Seed 001's path at 384 kbit/s with 30 kB files for 300 s: the same schedule in both arms;
    // a request whose due time comes before the UE has the previous file waits for it, in
    // either arm (with this seed, two end to end and one through the proxy, which delivers
    // sooner).
    let base = [
        ("simulation.duration", "300s"),
        ("dch.radio.rate", "384kbps"),
        ("dch.radio.tti", "10ms"),
        ("flows.ftp.app.file_size", "30KB"),
    ];
    let proxy = [
        ("middleboxes.pep.kind", "split_tcp"),
        ("middleboxes.pep.node", "ggsn"),
        ("middleboxes.pep.mobile", "[\"ue\"]"),
        ("middleboxes.pep.to_mobile.initial_window", "10"),
    ];
    let (e2e, _) = example_001(&base);
    let (split, _) = example_001(&[&base[..], &proxy[..]].concat());
    eprintln!("end to end {e2e}\nwith the proxy {split}");
    for key in ["ftp_requests", "ftp_requested_bytes", "ftp_due_times_sum_s"] {
        assert_eq!(
            e2e[key], split[key],
            "{key}: {} vs {}",
            e2e[key], split[key]
        );
    }
    assert!(f(&e2e["ftp_requests"]) >= 5.0, "{}", e2e["ftp_requests"]);
    for s in [&e2e, &split] {
        // Each request starts on its due time or after it, by the hold.
        let (due, start, hold) = (
            f(&s["ftp_due_times_sum_s"]),
            f(&s["ftp_request_times_sum_s"]),
            f(&s["ftp_hold_s"]),
        );
        assert!(
            (start - due - hold).abs() < 1e-6,
            "{start} = {due} + {hold}"
        );
        assert!(hold >= 0.0);
    }
    // (The holds themselves may differ either way: a request is held while the previous file
    // is still on its way, and which transfers overlap their successor's due time depends on
    // each file's own transfer, not on the mean.)
    // Every file was received by the UE in both arms, and the time per file is the UE's: more
    // than the 0.5 s round trip of a handshake in either.
    assert_eq!(e2e["ftp_transfers"], split["ftp_transfers"]);
    let (t_e2e, t_split) = (
        f(&e2e["ftp_mean_transfer_time_s"]),
        f(&split["ftp_mean_transfer_time_s"]),
    );
    eprintln!("per-file time: end to end {t_e2e:.3} s, with the proxy {t_split:.3} s");
    assert!(t_e2e > 0.5 && t_split > 0.5, "{t_e2e} {t_split}");
}
