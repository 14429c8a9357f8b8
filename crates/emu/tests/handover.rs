//! Real datagrams through an LTE handover (tests/data/handover-ran.toml: two cells, the UE
//! handed over from cell a to cell b at 0.8 s), under each data-path policy: the radio
//! interruption shows in the real stream, forwarding policies lose nothing, `discard` may.

mod support;

use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

use celltcp_emu::EmulateOptions;
use support::*;

/// The scenario with its TCP flow removed: the real stream is the only traffic.
fn scenario(policy: &str) -> String {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/handover-ran.toml"
    ))
    .expect("the scenario exists");
    let cut = text.find("[flows.bulk]").expect("the flow table");
    format!("{}\n[ran.handover]\npolicy = \"{policy}\"\n", &text[..cut])
}

/// Default addresses, 10.0.0.N in name order: enb1, enb2, pgw, server, ue.
const SERVER: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 4);
const UE: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 5);

struct Stream {
    sent: usize,
    /// Sequence numbers in the order received, with the wall-clock time.
    got: Vec<(u64, Instant)>,
    out: celltcp_emu::EmulateOutput,
}

/// 1000-byte datagrams from the server to the UE every 5 ms for 1.2 s.
fn stream(policy: &str) -> Stream {
    let (server_app, server_emu) = device();
    let (ue_app, ue_emu) = device();
    let opts = EmulateOptions::default();
    let run = spawn(
        &scenario(policy),
        &[("server", server_emu), ("ue", ue_emu)],
        None,
        opts,
    );
    settle();
    let count = 240;
    let receiver = std::thread::spawn(move || {
        let mut got = Vec::new();
        while let Some((bytes, at)) = recv(ue_app, Duration::from_millis(600)) {
            got.push((u64::from_be_bytes(bytes[28..36].try_into().unwrap()), at));
        }
        got
    });
    let start = Instant::now();
    for k in 0..count {
        let due = start + Duration::from_millis(5 * k as u64);
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
        send(server_app, &udp(SERVER, UE, k as u64, 1000));
    }
    let got = receiver.join().unwrap();
    let out = run.join().unwrap().expect("the run succeeds");
    for fd in [server_app, server_emu, ue_app, ue_emu] {
        close(fd);
    }
    Stream {
        sent: count,
        got,
        out,
    }
}

fn check(policy: &str) -> Stream {
    let s = stream(policy);
    let h = &s.out.run.summary["handovers"];
    assert_eq!(h["count"], 1, "{policy}: {h}");
    assert_eq!(h["list"][0]["policy"], policy);
    assert_eq!(h["list"][0]["result"], "completed", "{policy}: {h}");
    // The radio interruption (detach to random access, 40 ms) holds the stream back.
    let gap = s
        .got
        .windows(2)
        .map(|w| w[1].1.duration_since(w[0].1).as_secs_f64())
        .fold(0.0, f64::max);
    let e = &s.out.emulation;
    eprintln!(
        "{policy}: {}/{} received, longest gap {:.1} ms; {}",
        s.got.len(),
        s.sent,
        gap * 1e3,
        timing_line(&s.out)
    );
    assert!(gap > 0.035, "{policy}: longest gap {gap}");
    assert_eq!(e["packets_out"], s.got.len() as u64);
    assert_eq!(e["packets_injected"], s.sent as u64);
    // Timing is tests/timing.rs's business: in a debug build one measurement step of the two
    // cells can take tens of milliseconds, and the two tests here run side by side.
    s
}

#[test]
fn forwarding_policies_deliver_every_real_datagram_in_order() {
    for policy in ["forward", "fast_path_switch"] {
        let s = check(policy);
        assert_eq!(s.got.len(), s.sent, "{policy}");
        let seqs: Vec<u64> = s.got.iter().map(|(k, _)| *k).collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{policy}: {seqs:?}");
    }
}

#[test]
fn discard_loses_what_the_source_held_and_prediction_forwards() {
    // The source's buffer at the command and what reaches it until the path switch are lost.
    let discard = check("discard");
    assert!(
        discard.got.len() < discard.sent,
        "nothing lost with discard"
    );
    let lost = discard.sent - discard.got.len();
    assert_eq!(discard.out.emulation["not_delivered"], lost as u64);
    let predicted = check("predicted");
    assert_eq!(predicted.got.len(), predicted.sent);
}
