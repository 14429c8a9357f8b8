//! Cross-check of celltcp's packet captures and retransmission counts with tshark (Wireshark's
//! dissector and TCP sequence analysis). Skipped, with a message, when `tshark` is not
//! installed.
//!
//! The scenario is `python/celltcp/examples/wired-chain-tcp.toml` (remote → gateway → enb → ue, NewReno with
//! SACK, 25 Mb/s access link with a 100-packet drop-tail queue at the enb) for 5 s, with a
//! capture of the `access` link. A capture records every packet that *starts transmission* on
//! the link, so it sits after the enb's queue and before the access link's loss model. The
//! upstream links lose nothing (asserted), hence:
//!
//! * a retransmission crosses the capture point unless the enb queue drops it;
//! * every data segment below the highest sequence already captured is a retransmission (the
//!   links are FIFO, nothing reorders). tshark flags those as `tcp.analysis.retransmission`
//!   or, when the segment follows the previous one within its out-of-order threshold (3 ms),
//!   as `tcp.analysis.out_of_order`; the count compared is therefore the data segments
//!   (`tcp.len > 0`) carrying either flag.
//!
//! Two runs:
//! 1. loss only after the capture point: the access link's loss raised to p = 0.01 and the run
//!    checked to have no queue drop (windows stay small), so every retransmission the sender
//!    made was captured after its original: tshark's count equals `sender.retransmissions`
//!    exactly;
//! 2. the example as shipped: slow start overflows the enb queue, and the retransmissions it
//!    drops never reach the capture, nor do some originals, whose later retransmission then
//!    may lie above everything captured so far. The count is bounded:
//!    `retransmissions − drops.queue_full ≤ tshark ≤ retransmissions`.
//!
//! Both captures must dissect without malformed packets or expert errors, with every IPv4 and
//! TCP checksum verified good (`-o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE`).

use std::path::{Path, PathBuf};
use std::process::Command;

use celltcp_scenario::{load_path, run, RunOptions};
use serde_json::Value;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/celltcp/examples/wired-chain-tcp.toml")
}

fn tshark_available() -> bool {
    Command::new("tshark")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// What tshark reports about one capture.
#[derive(Debug, Default)]
struct Dissection {
    frames: u64,
    /// Data segments flagged retransmission or out-of-order.
    retransmissions: u64,
    /// Of which flagged retransmission proper.
    flagged_retransmission: u64,
    malformed: u64,
    expert_errors: u64,
    ip_checksum_good: u64,
    tcp_checksum_good: u64,
}

/// Wireshark's expert severity code of an error (PI_ERROR, epan/proto.h).
const PI_ERROR: u64 = 0x0080_0000;

fn dissect(pcap: &Path) -> Dissection {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(pcap)
        .args([
            "-o",
            "ip.check_checksum:TRUE",
            "-o",
            "tcp.check_checksum:TRUE",
        ])
        .args([
            "-T",
            "fields",
            "-E",
            "separator=/t",
            "-E",
            "occurrence=a",
            "-E",
            "aggregator=,",
        ])
        .args([
            "-e",
            "tcp.len",
            "-e",
            "tcp.analysis.retransmission",
            "-e",
            "tcp.analysis.out_of_order",
        ])
        .args([
            "-e",
            "ip.checksum.status",
            "-e",
            "tcp.checksum.status",
            "-e",
            "_ws.malformed",
        ])
        .args(["-e", "_ws.expert.severity"])
        .output()
        .expect("tshark runs");
    assert!(
        out.status.success(),
        "tshark: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut d = Dissection::default();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 7, "unexpected tshark line {line:?}");
        d.frames += 1;
        let len: u64 = f[0].parse().unwrap_or(0);
        let retx = !f[1].is_empty();
        if len > 0 && (retx || !f[2].is_empty()) {
            d.retransmissions += 1;
            d.flagged_retransmission += retx as u64;
        }
        // Checksum status: 0 bad, 1 good, 2 unverified.
        d.ip_checksum_good += (f[3] == "1") as u64;
        d.tcp_checksum_good += (f[4] == "1") as u64;
        d.malformed += !f[5].is_empty() as u64;
        d.expert_errors += f[6]
            .split(',')
            .filter_map(|v| v.parse::<u64>().ok())
            .any(|v| v >= PI_ERROR) as u64;
    }
    d
}

/// Runs the example with `overrides` and an access-link capture in a fresh directory; returns
/// the summary and what tshark makes of the capture.
fn run_and_dissect(tag: &str, overrides: &[(&str, &str)]) -> (Value, Dissection) {
    let mut over: Vec<(String, String)> = vec![("simulation.duration".into(), "5s".into())];
    over.extend(
        overrides
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string())),
    );
    let sc = load_path(&example(), &over).unwrap();
    let dir = std::env::temp_dir().join(format!("celltcp-tshark-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let opts = RunOptions {
        capture_dir: Some(dir.clone()),
        capture_links: vec!["access".into()],
        ..Default::default()
    };
    let out = run(&sc, &opts).unwrap();
    let d = dissect(&dir.join("access.pcap"));
    std::fs::remove_dir_all(&dir).ok();
    let s = out.summary;
    for link in ["internet", "backhaul"] {
        let drops = &s["links"][link]["a_to_b"]["drops"];
        for kind in ["queue_full", "aqm", "link_loss"] {
            assert_eq!(drops[kind].as_u64(), Some(0), "{tag}: {link} {kind} drops");
        }
    }
    // Both directions of the access link start one frame per packet sent.
    let sent: u64 = ["a_to_b", "b_to_a"]
        .iter()
        .map(|d| s["links"]["access"][d]["packets_sent"].as_u64().unwrap())
        .sum();
    assert_eq!(d.frames, sent, "{tag}: frames in the capture");
    assert_eq!(d.malformed, 0, "{tag}: malformed packets");
    assert_eq!(d.expert_errors, 0, "{tag}: expert errors");
    assert_eq!(d.ip_checksum_good, d.frames, "{tag}: IPv4 checksums");
    assert_eq!(d.tcp_checksum_good, d.frames, "{tag}: TCP checksums");
    println!("{tag}: {d:?}; sender {}", s["flows"]["bulk"]["sender"]);
    (s, d)
}

fn field(s: &Value, path: &[&str]) -> u64 {
    let mut v = s;
    for k in path {
        v = &v[*k];
    }
    v.as_f64().unwrap_or_else(|| panic!("{path:?}")) as u64
}

/// Run 1. Measured: 14 losses on the access link, 14 retransmissions (all fast), tshark 14
/// (8 flagged retransmission, 6 out-of-order), 2 368 frames, no queue drop.
#[test]
fn tshark_counts_every_retransmission_when_losses_follow_the_capture_point() {
    if !tshark_available() {
        println!("tshark not found: skipping the tshark cross-check");
        return;
    }
    let (s, d) = run_and_dissect(
        "lossy",
        &[(
            "links.access.a_to_b.loss",
            "{ kind = \"bernoulli\", p = 0.01 }",
        )],
    );
    assert_eq!(field(&s, &["flows", "bulk", "drops", "queue_full"]), 0);
    let retx = field(&s, &["flows", "bulk", "sender", "retransmissions"]);
    assert!(retx >= 10, "too few retransmissions to compare: {retx}");
    assert_eq!(d.retransmissions, retx);
    assert!(d.flagged_retransmission > 0 && d.flagged_retransmission <= retx);
}

/// Run 2. Measured: 232 retransmissions (223 fast, 9 after one timeout), 231 queue drops at
/// the enb, tshark 223 (112 flagged retransmission, 111 out-of-order), 13 828 frames.
#[test]
fn tshark_retransmissions_are_bounded_by_the_senders_when_the_queue_drops() {
    if !tshark_available() {
        println!("tshark not found: skipping the tshark cross-check");
        return;
    }
    let (s, d) = run_and_dissect("example", &[]);
    let retx = field(&s, &["flows", "bulk", "sender", "retransmissions"]);
    let queue_drops = field(&s, &["flows", "bulk", "drops", "queue_full"]);
    assert!(
        queue_drops > 0,
        "the example no longer overflows the enb queue"
    );
    assert!(
        d.retransmissions <= retx,
        "tshark {} > sender {retx}",
        d.retransmissions
    );
    assert!(
        d.retransmissions + queue_drops >= retx,
        "tshark {} + queue drops {queue_drops} < sender {retx}",
        d.retransmissions
    );
}
