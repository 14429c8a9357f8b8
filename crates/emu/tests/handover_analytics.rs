//! Per-handover analytics of real connections, from crafted TCP exchanges across a link
//! handover: a scripted sender on the server's descriptor and a scripted receiver on the UE's
//! (descriptor pairs stand for the TUN devices), one exchange per outcome class.
//!
//! The path: server (10.0.0.1) --10 Mbps, 20 ms-- ue (10.0.0.4), a link handover of 100 ms at
//! 0.5 s on the server → ue direction. The sender sends a 1000-byte segment every 10 ms; the
//! receiver acknowledges every segment at once with its cumulative ACK (an out-of-order
//! segment gives a duplicate ACK). RTT 40 ms, so the RTO estimate is the 200 ms floor.

mod support;

use std::collections::BTreeMap;
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

use celltcp_emu::ipv4;
use celltcp_emu::{EmulateOptions, EmulateOutput};
use celltcp_engine::SimDuration;
use celltcp_net::packet::TcpFlags;
use celltcp_outputs::Column;
use serde_json::Value;
use support::*;

const MSS: u32 = 1000;
const PACE: Duration = Duration::from_millis(10);
/// How long the run lasts, s.
const RUN_S: f64 = 2.0;
/// The handover of the scenario, s.
const HANDOVER_AT_S: f64 = 0.5;
const INTERRUPTION_S: f64 = 0.1;

fn scenario(policy: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{RUN_S}s"
seed = 1

[nodes]
server = {{ kind = "host", address = "10.0.0.1" }}
ue = {{ kind = "host", address = "10.0.0.4" }}

[links.path]
a = "server"
b = "ue"
rate = "10Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = "1000p" }}

[[events]]
at = "{HANDOVER_AT_S}s"
link = "path"
direction = "a_to_b"
handover = {{ interruption = "{INTERRUPTION_S}s", policy = "{policy}" }}
"#
    )
}

/// How the scripted sender repairs losses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sender {
    /// New data only before 0.55 s and once everything is acknowledged; a retransmission of
    /// the first unacknowledged segment after 350 ms without an ACK of new data, then one per
    /// ACK until the repair is done: a timeout and slow start.
    AppLimitedWithTimer,
    /// New data every 10 ms throughout; the first unacknowledged segment again on the third
    /// duplicate ACK, and on each partial ACK after (RFC 6582 §3.2): fast retransmit.
    FastRetransmit,
}

/// The scripted peers; returns the run's output once it ends.
fn exchange(policy: &str, sender: Sender) -> EmulateOutput {
    let (server_app, server_emu) = device();
    let (ue_app, ue_emu) = device();
    let run = spawn(
        &scenario(policy),
        &[("server", server_emu), ("ue", ue_emu)],
        None,
        EmulateOptions {
            duration: Some(SimDuration::from_secs_f64(RUN_S)),
            ..EmulateOptions::default()
        },
    );
    // The emulator's clock starts when it has built the world; the script's times are
    // counted from here, within a few milliseconds of it.
    std::thread::sleep(Duration::from_millis(20));
    script(server_app, ue_app, sender);
    let out = run.join().unwrap().expect("the run succeeds");
    for fd in [server_app, server_emu, ue_app, ue_emu] {
        close(fd);
    }
    out
}

fn data(seq: u32) -> Vec<u8> {
    tcp((SERVER, 5201), (UE, 40000), seq, 1, TcpFlags::ACK, MSS)
}

fn ack(ack: u32) -> Vec<u8> {
    tcp((UE, 40000), (SERVER, 5201), 1, ack, TcpFlags::ACK, 0)
}

/// Reads every datagram waiting on `fd` (non-blocking).
fn drain(fd: RawFd) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    while let Some((bytes, _)) = recv(fd, Duration::ZERO) {
        out.push(bytes);
    }
    out
}

fn script(server: RawFd, ue: RawFd, mode: Sender) {
    let start = Instant::now();
    let end = start + Duration::from_secs_f64(RUN_S - 0.2);
    // Sender: sequence numbers from 1.
    let mut next = 1u32;
    let mut una = 1u32;
    let mut last_new_ack = start;
    let mut dupacks = 0;
    let mut repairing = false;
    let mut next_send = start;
    // Receiver.
    let mut rcv_nxt = 1u32;
    let mut held: BTreeMap<u32, u32> = BTreeMap::new();
    while Instant::now() < end {
        let now = Instant::now();
        let t = now.duration_since(start).as_secs_f64();
        // The receiver acknowledges every segment.
        for bytes in drain(ue) {
            let Ok(d) = ipv4::parse(&bytes) else { continue };
            let Some(seg) = d.tcp else { continue };
            if seg.payload_len == 0 {
                continue;
            }
            held.insert(seg.seq, seg.seq + seg.payload_len);
            while let Some((&s, &e)) = held.first_key_value() {
                if s > rcv_nxt {
                    break;
                }
                rcv_nxt = rcv_nxt.max(e);
                held.remove(&s);
            }
            send(ue, &ack(rcv_nxt));
        }
        // The sender reads its ACKs.
        for bytes in drain(server) {
            let Ok(d) = ipv4::parse(&bytes) else { continue };
            let Some(seg) = d.tcp else { continue };
            if seg.ack > una {
                una = seg.ack;
                last_new_ack = now;
                dupacks = 0;
                if repairing && una < next {
                    // Partial ACK (or slow-start repair after the timeout): the next hole.
                    send(server, &data(una));
                } else {
                    repairing = false;
                }
            } else if seg.ack == una && una < next {
                dupacks += 1;
                if mode == Sender::FastRetransmit && dupacks == 3 && !repairing {
                    repairing = true;
                    send(server, &data(una));
                }
            }
        }
        if mode == Sender::AppLimitedWithTimer
            && una < next
            && now.duration_since(last_new_ack) >= Duration::from_millis(350)
        {
            repairing = true;
            last_new_ack = now;
            send(server, &data(una));
        }
        let may_send_new = match mode {
            Sender::AppLimitedWithTimer => t < 0.55 || una == next,
            Sender::FastRetransmit => true,
        };
        if now >= next_send {
            if may_send_new {
                if una == next {
                    last_new_ack = now;
                }
                send(server, &data(next));
                next += MSS;
            }
            next_send += PACE;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The real rows of the run: the `emulation.handovers` list.
fn rows(out: &EmulateOutput) -> &Vec<Value> {
    out.emulation["handovers"]
        .as_array()
        .expect("a handover list")
}

fn column<'a>(out: &'a EmulateOutput, name: &str) -> &'a Column {
    let table = out
        .run
        .series
        .iter()
        .find(|s| s.name == "handovers")
        .expect("the handovers table");
    &table
        .columns
        .iter()
        .find(|c| c.0 == name)
        .unwrap_or_else(|| panic!("no column {name}"))
        .1
}

fn cat(c: &Column, row: usize) -> &str {
    match c {
        Column::Cat { codes, names } => &names[codes[row] as usize],
        other => panic!("not categorical: {other:?}"),
    }
}

/// Checks what every row shares and returns the only one (the server's data).
fn the_row<'a>(out: &'a EmulateOutput, policy: &str) -> &'a Value {
    let rows = rows(out);
    assert_eq!(rows.len(), 1, "one direction carried data: {rows:?}");
    let r = &rows[0];
    eprintln!("{policy}: {r}");
    assert_eq!(r["sender"], "10.0.0.1:5201");
    assert_eq!(r["receiver"], "10.0.0.4:40000");
    assert_eq!(
        (r["cause"].as_str(), r["policy"].as_str()),
        (Some("link"), Some(policy))
    );
    assert!((f(&r["interruption_s"]) - INTERRUPTION_S).abs() < 1e-9);
    let rtt = f(&r["rtt_before_s"]);
    assert!((0.040..0.060).contains(&rtt), "rtt before {rtt}");
    let g = f(&r["goodput_before_bps"]);
    // 1000 bytes every 10 ms: 0.8 Mb/s of payload.
    assert!((0.6e6..0.9e6).contains(&g), "goodput before {g}");
    assert_eq!(out.emulation["handover_history_truncated"], false);
    // The same row in the run's table, beside no simulated flow's.
    assert_eq!(column(out, "handover").len(), 1);
    assert_eq!(cat(column(out, "observed_from"), 0), "packets");
    assert_eq!(cat(column(out, "flow"), 0), "10.0.0.1:5201>10.0.0.4:40000");
    assert_eq!(
        cat(column(out, "outcome"), 0),
        r["outcome"].as_str().unwrap()
    );
    r
}

#[test]
fn a_window_lost_at_a_discard_handover_times_out() {
    let out = exchange("discard", Sender::AppLimitedWithTimer);
    let r = the_row(&out, "discard");
    assert_eq!(r["outcome"], "timeout");
    assert!(r["rto_retransmissions"].as_u64().unwrap() >= 1);
    let (silence, rto) = (f(&r["silence_s"]), f(&r["rto_estimate_s"]));
    assert!(
        silence >= rto && silence > 0.3,
        "silence {silence}, rto {rto}"
    );
    assert!((0.2..0.25).contains(&rto), "rto estimate {rto}");
    // Segments sent in [0.48 s, 0.55 s] reach the link while it discards: about 5 to 8.
    let dropped = r["dropped"].as_u64().unwrap();
    assert!((3..=9).contains(&dropped), "dropped {dropped}");
    assert_eq!(r["spurious_rto"], false, "data was lost");
    // The first retransmission comes 350 ms after the last ACK of new data (about 0.54 s).
    let first = f(&r["first_rto_s"]);
    assert!(
        (0.85..1.0).contains(&first),
        "first timeout retransmission at {first}"
    );
}

#[test]
fn duplicate_acks_after_a_discard_handover_halve() {
    let out = exchange("discard", Sender::FastRetransmit);
    let r = the_row(&out, "discard");
    assert_eq!(r["outcome"], "halving");
    assert_eq!(r["rto_retransmissions"], 0);
    assert!(r["fast_retransmissions"].as_u64().unwrap() >= 1);
    // The segments sent during the interruption (about ten) are lost.
    let dropped = r["dropped"].as_u64().unwrap();
    assert!((7..=13).contains(&dropped), "dropped {dropped}");
    assert!(r["silence_s"].is_null());
}

#[test]
fn a_forwarding_handover_delays_and_loses_nothing() {
    let out = exchange("forward", Sender::FastRetransmit);
    let r = the_row(&out, "forward");
    assert_eq!(r["outcome"], "none");
    assert_eq!(r["dropped"], 0);
    assert_eq!(r["rto_retransmissions"], 0);
    assert_eq!(r["fast_retransmissions"], 0);
    // The segments held during the interruption come out late: the peak RTT exceeds it.
    let peak = f(&r["rtt_peak_s"]);
    assert!(peak > INTERRUPTION_S, "peak rtt {peak}");
    assert_eq!(out.emulation["not_delivered"], 0);
}
