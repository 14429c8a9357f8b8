//! A capture of the S1-U link is GTP-U as Wireshark knows it: tshark's `gtp` dissector (UDP port
//! 2152) decodes every frame, finds the TEIDs of the bearer table and the inner IPv4/TCP/UDP
//! packets, and every IPv4, UDP and TCP checksum (outer and inner) verifies. Skipped, with a
//! message, when `tshark` is not installed.
//!
//! ```text
//!   server 10.0.0.1 --1 Gbps-- pgw 10.0.0.2 --S1-U 100 Mb/s, 2 ms-- enb 10.0.0.3 ))) ue1 10.0.0.11, ue2 10.0.0.12
//! ```
//! A TCP download server → ue1 for 2 s and a UDP upload ue2 → server for 1.5 s. Bearers are set up in UE
//! name order: the eNB allocates downlink TEIDs 1 (ue1) and 2 (ue2), the gateway uplink TEIDs
//! 1 (ue1) and 2 (ue2). Hence on S1-U:
//! * pgw → enb, TEID 1: the TCP data to ue1;
//! * enb → pgw, TEID 1: ue1's ACKs; TEID 2: ue2's datagrams.

use std::collections::BTreeMap;
use std::process::Command;

use celltcp_scenario::{load_str, run, RunOptions};

const SCENARIO: &str = r#"
[simulation]
duration = "2s"

[nodes]
server = { kind = "host", address = "10.0.0.1" }
pgw = { kind = "router", address = "10.0.0.2" }
enb = { kind = "router", address = "10.0.0.3" }
ue1 = { kind = "host", address = "10.0.0.11" }
ue2 = { kind = "host", address = "10.0.0.12" }

[links.sgi]
a = "server"
b = "pgw"
rate = "1Gbps"
delay = "1ms"
queue = { kind = "droptail", limit = "1000p" }

[links.s1u]
a = "pgw"
b = "enb"
rate = "100Mbps"
delay = "2ms"
queue = { kind = "droptail", limit = "1000p" }

[cells.cell]
enb = "enb"
bandwidth_mhz = 10

[cells.cell.ues]
ue1 = { position = [60.0, 0.0] }
ue2 = { position = [0.0, 80.0] }

[epc]
gateway = "pgw"

[flows.down]
kind = "tcp"
src = "server"
dst = "ue1"
cc = "cubic"
app = { kind = "bulk" }

[flows.up]
kind = "udp"
src = "ue2"
dst = "server"
stop = "1.5s"
rate = "1Mbps"
packet_size = "500B"
"#;

fn tshark_available() -> bool {
    Command::new("tshark")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Wireshark's expert severity code of an error (PI_ERROR, epan/proto.h).
const PI_ERROR: u64 = 0x0080_0000;

#[test]
fn tshark_decodes_s1u_as_gtp_with_the_bearer_teids() {
    if !tshark_available() {
        eprintln!("tshark not installed; skipping the S1-U capture check");
        return;
    }
    let sc = load_str(SCENARIO, &[]).unwrap();
    let dir = std::env::temp_dir().join(format!("celltcp-epc-tshark-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let opts = RunOptions {
        capture_dir: Some(dir.clone()),
        capture_links: vec!["s1u".into()],
        ..Default::default()
    };
    let out = run(&sc, &opts).unwrap();
    let pcap = dir.join("s1u.pcap");
    let dissected = Command::new("tshark")
        .arg("-r")
        .arg(&pcap)
        .args([
            "-o",
            "ip.check_checksum:TRUE",
            "-o",
            "udp.check_checksum:TRUE",
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
            "frame.protocols",
            "-e",
            "gtp.teid",
            "-e",
            "ip.src",
            "-e",
            "ip.dst",
        ])
        .args([
            "-e",
            "ip.checksum.status",
            "-e",
            "udp.checksum.status",
            "-e",
            "tcp.checksum.status",
        ])
        .args(["-e", "_ws.malformed", "-e", "_ws.expert.severity"])
        .output()
        .expect("tshark runs");
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        dissected.status.success(),
        "tshark: {}",
        String::from_utf8_lossy(&dissected.stderr)
    );

    // (outer src, outer dst, TEID, inner src, inner dst, inner protocol) → frames.
    let mut tunnels: BTreeMap<(String, String, String, String, String, String), u64> =
        BTreeMap::new();
    let mut frames = 0u64;
    for line in String::from_utf8(dissected.stdout).unwrap().lines() {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 9, "unexpected tshark line {line:?}");
        frames += 1;
        let inner = f[0]
            .rsplit(':')
            .find(|p| *p == "tcp" || *p == "udp")
            .unwrap_or("?");
        assert!(
            f[0].starts_with("raw:ip:udp:gtp:ip:"),
            "frame {frames} is not GTP-U: {}",
            f[0]
        );
        let src: Vec<&str> = f[2].split(',').collect();
        let dst: Vec<&str> = f[3].split(',').collect();
        assert_eq!(
            (src.len(), dst.len()),
            (2, 2),
            "outer and inner IPv4 in frame {frames}"
        );
        // Checksum status 1 = good: outer and inner IPv4, outer UDP, inner TCP or UDP.
        for (what, statuses, n) in [
            ("ip", f[4], 2),
            ("udp", f[5], if inner == "udp" { 2 } else { 1 }),
        ] {
            assert_eq!(
                statuses.split(',').filter(|s| *s == "1").count(),
                n,
                "{what} checksums of frame {frames}: {statuses}"
            );
        }
        if inner == "tcp" {
            assert_eq!(f[6], "1", "tcp checksum of frame {frames}");
        }
        assert!(f[7].is_empty(), "malformed frame {frames}");
        let errors = f[8]
            .split(',')
            .filter_map(|v| v.parse::<u64>().ok())
            .any(|v| v >= PI_ERROR);
        assert!(!errors, "expert error in frame {frames}: {line}");
        let teid = u32::from_str_radix(f[1].trim_start_matches("0x"), 16)
            .expect("a TEID")
            .to_string();
        let key = (
            src[0].into(),
            dst[0].into(),
            teid,
            src[1].into(),
            dst[1].into(),
            inner.into(),
        );
        *tunnels.entry(key).or_default() += 1;
    }
    let t = |a: &str, b: &str, teid: &str, c: &str, d: &str, p: &str| {
        (
            a.to_string(),
            b.to_string(),
            teid.to_string(),
            c.to_string(),
            d.to_string(),
            p.to_string(),
        )
    };
    let keys: Vec<_> = tunnels.keys().cloned().collect();
    assert_eq!(
        keys,
        vec![
            t("10.0.0.2", "10.0.0.3", "1", "10.0.0.1", "10.0.0.11", "tcp"),
            t("10.0.0.3", "10.0.0.2", "1", "10.0.0.11", "10.0.0.1", "tcp"),
            t("10.0.0.3", "10.0.0.2", "2", "10.0.0.12", "10.0.0.1", "udp"),
        ],
        "{tunnels:?}"
    );
    let s1u = &out.summary["links"]["s1u"];
    let sent = s1u["a_to_b"]["packets_sent"].as_u64().unwrap()
        + s1u["b_to_a"]["packets_sent"].as_u64().unwrap();
    assert_eq!(
        frames, sent,
        "one frame per packet that started transmission on S1-U"
    );
    // 1 Mb/s of 500-byte payloads for 1.5 s: 375 datagrams, all delivered through the tunnel.
    let up = &out.summary["flows"]["up"];
    assert_eq!(up["packets_delivered"].as_u64(), Some(375));
    println!("{frames} GTP-U frames on S1-U: {tunnels:?}");
}
