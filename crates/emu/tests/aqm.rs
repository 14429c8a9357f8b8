//! A RED queue with ECN on the path (RFC 3168): the marks it sets on real ECN-capable datagrams
//! reach the receiver in the real IPv4 header, with a valid header checksum.

mod support;

use std::time::{Duration, Instant};

use celltcp_emu::EmulateOptions;
use celltcp_engine::SimDuration;
use celltcp_net::wire::internet_checksum;
use support::*;

/// server --10 Mbit/s, 10 ms, RED with ECN-- ue, and 9 Mbit/s of scenario UDP cross traffic
/// (Not-ECT, so RED drops it where it marks the real datagrams).
const RED: &str = r#"
[simulation]
duration = "2s"
seed = 4

[nodes]
server = { kind = "host", address = "10.0.0.1" }
ue = { kind = "host", address = "10.0.0.4" }

[links.path]
a = "server"
b = "ue"
rate = "10Mbps"
delay = "10ms"
queue = { kind = "red", limit = "90p", min_th = "5p", max_th = "30p", max_p = 0.2, ecn = true }

[flows.cross]
kind = "udp"
src = "server"
dst = "ue"
rate = "9Mbps"
packet_size = "1000B"
arrival = "cbr"
"#;

#[test]
fn red_marks_reach_the_real_header() {
    let (server_app, server_emu) = device();
    let (ue_app, ue_emu) = device();
    let opts = EmulateOptions {
        duration: Some(SimDuration::from_ms(1800)),
        ..EmulateOptions::default()
    };
    let run = spawn(RED, &[("server", server_emu), ("ue", ue_emu)], None, opts);
    settle();
    // 2 Mbit/s of ECT(0) datagrams on top: 11 Mbit/s into 10 keeps RED's average queue up.
    let receiver = std::thread::spawn(move || {
        let mut got = Vec::new();
        while let Some((bytes, _)) = recv(ue_app, Duration::from_millis(500)) {
            got.push(bytes);
        }
        got
    });
    let start = Instant::now();
    let count = 350;
    for k in 0..count {
        let due = start + Duration::from_millis(4 * k as u64);
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
        send(server_app, &udp(SERVER, UE, k as u64, 1000));
    }
    let got = receiver.join().unwrap();
    let out = run.join().unwrap().expect("the run succeeds");
    let marked: Vec<&Vec<u8>> = got.iter().filter(|b| b[1] & 0b11 == 0b11).collect();
    eprintln!(
        "{} of {count} received, {} marked CE",
        got.len(),
        marked.len()
    );
    assert!(!marked.is_empty(), "no CE mark reached the receiver");
    assert_eq!(out.emulation["ce_marked"], marked.len() as u64);
    for b in &got {
        assert_eq!(internet_checksum(&b[..20]), 0, "header checksum");
    }
    // Unmarked datagrams are byte for byte what was sent.
    let unmarked = got
        .iter()
        .find(|b| b[1] & 0b11 == 0b10)
        .expect("some unmarked");
    let seq = u64::from_be_bytes(unmarked[28..36].try_into().unwrap());
    assert_eq!(*unmarked, udp(SERVER, UE, seq, 1000));
    for fd in [server_app, server_emu, ue_app, ue_emu] {
        close(fd);
    }
}
