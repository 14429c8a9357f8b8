//! Validation of the WCDMA dedicated channel in a network, beyond `dch_udp.rs`: the downlink
//! rate with STATUS reports sharing it, MaxDAT 3 discards, the split-TCP proxy's two round
//! trips against the end-to-end one, and the `[trace] dch` series.

mod support;

use celltcp_scenario::{load_path, load_str, run, Column, RunOptions, RunOutput};
use support::{column, num};

/// The DCH network of the tests' support (64 kbit/s uplink by default); `flows` and
/// `dch_extra` complete it.
fn scenario(dch_extra: &str, flows: &str, secs: u64) -> String {
    support::dch_network(secs, dch_extra, flows)
}

fn run_text(text: &str) -> RunOutput {
    let sc = load_str(text, &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
    run(&sc, &RunOptions::default()).unwrap()
}

/// 500 kbit/s of 1028-byte IP packets to the UE (more than the DCH carries) and `up` of
/// 128-byte packets from the UE.
fn both_ways(up: &str) -> String {
    format!(
        r#"
[flows.down]
kind = "udp"
src = "server"
dst = "ue"
rate = "500kbps"
packet_size = "1000B"

[flows.up]
kind = "udp"
src = "ue"
dst = "server"
rate = "{up}"
packet_size = "100B"
"#
    )
}

#[test]
fn with_uplink_data_the_downlink_carries_r_times_one_minus_bler_less_its_status_blocks() {
    // BLER b both ways, MaxDAT unlimited, 40 s. The uplink's data is acknowledged by STATUS
    // PDUs on the downlink, each a whole 42-byte block taken from the data: the downlink data
    // rate is R·(1 − b)·S/(S + 1) times the share of downlink blocks that carry data.
    for bler in [0.0, 0.1, 0.2] {
        let extra = format!("bler = {bler}\nrlc = {{ buffer = \"2MB\", max_dat = \"unlimited\" }}");
        let flows = format!(
            "{}\n[trace]\ndch = [\"radio\"]\ninterval = \"1s\"\n",
            both_ways("32kbps")
        );
        let out = run_text(&scenario(&extra, &flows, 40));
        let dch = &out.summary["dch"]["radio"];
        let blocks = num(dch, &["tbs_sent"]);
        let status = num(dch, &["status_pdus"]);
        let data_share = (blocks - status - num(dch, &["mrw_pdus"])) / blocks;
        // In steady state: the series' intervals (5 s, 35 s], clear of the start and of the
        // in-order lag of the latest recoveries at the end.
        let s = out
            .series
            .iter()
            .find(|s| s.name == "dch")
            .expect("a dch series");
        let (Column::U64(t), Column::F64(r)) =
            (column(s, "time_ns"), column(s, "rlc_throughput_bps"))
        else {
            panic!("columns")
        };
        let steady: Vec<f64> = t
            .iter()
            .zip(r)
            .filter(|(t, _)| **t > 5_000_000_000 && **t <= 35_000_000_000)
            .map(|(_, r)| *r)
            .collect();
        assert_eq!(steady.len(), 30);
        let rate = steady.iter().sum::<f64>() / 30.0;
        let expected = 384_000.0 * (1.0 - bler) * 1028.0 / 1029.0 * data_share;
        eprintln!(
            "BLER {bler}: {rate:.0} bit/s vs {expected:.0} ({:.4}); {status} STATUS blocks of \
             {blocks} on the downlink ({:.2} %), uplink {} packets delivered",
            rate / expected,
            100.0 * status / blocks,
            num(&out.summary, &["flows", "up", "packets_delivered"])
        );
        let tolerance = if bler == 0.0 { 0.002 } else { 0.02 };
        assert!(
            (rate / expected - 1.0).abs() < tolerance,
            "BLER {bler}: {rate} vs {expected}"
        );
        assert!(
            status > 0.0,
            "the uplink data is acknowledged on the downlink"
        );
        // One 128-byte packet every 32 ms needs 4 uplink PDUs; reports come on polls and gaps,
        // at most one per Timer_Status_Prohibit (150 ms) and each in one 42-byte block: the
        // 25.322 SUFIs hold the few NACKs of 150 ms of a 64 kbit/s uplink in one STATUS PDU.
        assert!(
            status <= 40.0 / 0.150 + 5.0,
            "{status} STATUS blocks in 40 s"
        );
    }
}

#[test]
fn max_dat_3_discards_the_sdus_whose_pdu_failed_three_times() {
    // One 39-byte IP packet (11 bytes of payload at 4.4 kbit/s: one 40-byte data field) every
    // 20 ms for 200 s, BLER 0.5 on the downlink, a
    // clean uplink, MaxDAT 3: a PDU is discarded when its three transmissions are lost, with
    // probability 0.5³ = 0.125.
    let flows = r#"
[flows.cbr]
kind = "udp"
src = "server"
dst = "ue"
rate = "4400bps"
packet_size = "11B"
"#;
    let out = run_text(&scenario(
        "bler = 0.5\nuplink_bler = 0.0\nrlc = { max_dat = 3 }",
        flows,
        200,
    ));
    let dch = &out.summary["dch"]["radio"];
    let sent = num(&out.summary, &["flows", "cbr", "packets_sent"]);
    let discarded = num(dch, &["max_dat_discards"]);
    let delivered = num(dch, &["sdus_delivered"]);
    let expected = sent * 0.125;
    let sigma = (sent * 0.125 * 0.875).sqrt();
    eprintln!(
        "MaxDAT 3, BLER 0.5: {discarded} of {sent} discarded ({expected:.0} expected, σ \
         {sigma:.0}), {} MRW blocks",
        dch["mrw_pdus"]
    );
    // A PDU waiting for its retransmission also goes when a higher one is discarded (the MRW
    // moves the receiver's window, 25.322 §11.6), which only adds.
    assert!(
        discarded > expected - 4.0 * sigma && discarded < expected + 10.0 * sigma,
        "{discarded} of {sent}"
    );
    assert!(
        delivered + discarded <= sent && delivered + discarded >= sent - 50.0,
        "{delivered} delivered + {discarded} discarded of {sent}"
    );
    // No PDU is sent more than 3 times: retransmissions ≤ 2 per new PDU and, for the PDUs
    // discarded, exactly 2.
    let new = num(dch, &["pdus_sent"]);
    let retx = num(dch, &["pdus_retransmitted"]);
    assert!(retx <= 2.0 * new, "{retx} retransmissions of {new} PDUs");
}

fn example(file: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples/001")
        .join(file)
}

fn run_example(file: &str, overrides: &[(&str, &str)]) -> RunOutput {
    let over: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let sc = load_path(&example(file), &over).unwrap_or_else(|e| panic!("{file}: {e}"));
    run(&sc, &RunOptions::default()).unwrap()
}

#[test]
fn the_proxy_splits_the_round_trip_into_two_that_add_up_to_the_end_to_end_one() {
    // The bulk download over a clean 384 kbit/s DCH, with a receive window small enough (8 kB,
    // under the path's BDP) that no queue builds: minimum RTTs are the path's fixed delays.
    // The proxy at the GGSN splits the path into server–GGSN (the 20 ms Internet link both
    // ways) and GGSN–UE (core and DCH).
    let common = [
        ("simulation.duration", "30s"),
        ("flows.bulk.tcp.rcv_buf", "8KB"),
    ];
    let plain = run_example("bulk-dch384.toml", &common);
    let end_to_end = num(&plain.summary, &["flows", "bulk", "sender", "min_rtt_s"]);
    let mut with_proxy: Vec<(&str, &str)> = common.to_vec();
    with_proxy.extend([
        ("middleboxes.pep.kind", "split_tcp"),
        ("middleboxes.pep.node", "ggsn"),
        ("middleboxes.pep.mobile", "[\"ue\"]"),
        ("middleboxes.pep.to_mobile.rcv_buf", "8KB"),
        ("middleboxes.pep.to_server.rcv_buf", "8KB"),
    ]);
    let split = run_example("bulk-dch384.toml", &with_proxy);
    let pep = &split.summary["middleboxes"]["pep"];
    let (to_server, to_mobile) = (
        num(pep, &["min_rtt_to_server_s"]),
        num(pep, &["min_rtt_to_mobile_s"]),
    );
    let sum = to_server + to_mobile;
    eprintln!(
        "end to end {end_to_end:.4} s; proxy: to server {to_server:.4} s + to mobile \
         {to_mobile:.4} s = {sum:.4} s; goodput {:.0} → {:.0} bit/s",
        num(&plain.summary, &["flows", "bulk", "goodput_bps"]),
        num(&split.summary, &["flows", "bulk", "goodput_bps"]),
    );
    assert_eq!(num(pep, &["connections_split"]), 1.0);
    // The server side is the wired round trip: 2 × 20 ms and the serialisation of a segment
    // and an ACK at 10 Mbit/s (1.2 + 0.04 ms).
    assert!((to_server - 0.0412).abs() < 0.002, "{to_server}");
    // The two add up to the end-to-end minimum within one uplink TTI (20 ms): a segment's
    // blocks and its ACK's catch TTI boundaries at different phases in the two runs.
    assert!((sum - end_to_end).abs() <= 0.020, "{sum} vs {end_to_end}");
}

#[test]
fn the_dch_series_has_one_row_per_interval_whose_increments_add_up_to_the_summary() {
    let out = run_example(
        "ftp-dch.toml",
        &[
            ("simulation.duration", "120s"),
            ("trace.dch", "[\"radio\"]"),
            ("trace.interval", "500ms"),
        ],
    );
    let dch = &out.summary["dch"]["radio"];
    let s = out
        .series
        .iter()
        .find(|s| s.name == "dch")
        .expect("a dch series");
    assert!(
        out.series.iter().all(|s| s.name != "cells"),
        "the channel is not a cell"
    );
    let f64s = |name: &str| match column(s, name) {
        Column::F64(v) => v.clone(),
        _ => panic!("{name} is not f64"),
    };
    let Column::U64(times) = column(s, "time_ns") else {
        panic!("time_ns")
    };
    // Samples at 0.5, 1.0, …, 120 s.
    assert_eq!(times.len(), 240);
    assert_eq!((times[0], times[239]), (500_000_000, 120_000_000_000));
    let Column::Cat { names, .. } = column(s, "dch") else {
        panic!("dch")
    };
    assert_eq!(names, &vec!["radio".to_string()]);
    // Increments over the intervals add up to the run's counters exactly: the last sample is
    // taken at the end of the run after every event of that instant, the TTI starting there
    // included, as the summary is.
    let bits: f64 = f64s("rlc_throughput_bps").iter().map(|r| r * 0.5).sum();
    assert_eq!(bits, 8.0 * num(dch, &["sdu_bytes_delivered"]));
    for (column_name, figure) in [
        ("tbs_sent", &["tbs_sent"][..]),
        ("tbs_lost", &["tbs_lost"]),
        ("pdus_retransmitted", &["pdus_retransmitted"]),
        ("pdus_sent", &["pdus_sent"]),
        ("sdus_delivered", &["sdus_delivered"]),
        ("uplink_tbs_sent", &["uplink", "tbs_sent"]),
        ("uplink_status_pdus", &["uplink", "status_pdus"]),
    ] {
        let total: f64 = f64s(column_name).iter().sum();
        assert_eq!(total, num(dch, figure), "{column_name}");
    }
    let busy: f64 = f64s("busy_fraction").iter().map(|b| b * 0.5).sum();
    assert!((busy - num(dch, &["rlc_busy_s"])).abs() < 1e-6, "{busy}");
    // The per-interval BLER averages to the run's.
    let (sent, lost) = (f64s("tbs_sent"), f64s("tbs_lost"));
    let bler = f64s("bler_measured");
    for i in 0..bler.len() {
        if sent[i] > 0.0 {
            assert_eq!(bler[i], lost[i] / sent[i]);
        } else {
            assert!(bler[i].is_nan());
        }
    }
    // FTP with think times: the channel is idle in some intervals and busy in others.
    let rates = f64s("rlc_throughput_bps");
    assert!(rates.contains(&0.0) && rates.iter().any(|&r| r > 100_000.0));
    assert!(f64s("buffer_bytes").iter().all(|&b| b >= 0.0));
}

#[test]
fn tracing_an_unknown_channel_is_refused_by_key() {
    let text =
        scenario("", "", 1).replace("[dch.radio]", "[trace]\ndch = [\"nope\"]\n\n[dch.radio]");
    let err = load_str(&text, &[]).unwrap_err().to_string();
    assert_eq!(err, "trace.dch: channel 'nope' does not exist (dch: radio)");
}
