//! ECN through the GTP-U tunnel: RED with ECN on the S1-U link marks the outer header, and the
//! configured decapsulation decides whether the mark reaches the TCP receiver.
//!
//! ```text
//!   server --1 Gbps, 1 ms-- pgw --S1-U 10 Mb/s, 10 ms, RED+ECN-- enb ))) ue (10 MHz cell, 50 m)
//! ```
//! One NewReno bulk download for 10 s. The cell (about 30 Mb/s at 50 m) is faster than S1-U, so
//! the RED queue of S1-U is the bottleneck: gentle RED with ECN, min_th 20 p, max_th 60 p, max_p
//! 0.1, w_q 0.02, limit 1000 p (the settings of `tcp_ecn.rs`).
//!
//! * `ignore` (today's networks): RED marks the outer header, the eNB drops the mark with it, so
//!   the sender never reduces on ECN; its window grows until RED's average passes 2·max_th and
//!   every arrival is dropped — the flow sees drops later instead of marks.
//! * `rfc6040`: the mark is copied into the inner header; the receiver sees every mark, the
//!   sender reduces, and nothing is dropped or retransmitted.
//! * `drop_not_ect` with an ECN-incapable flow: the tunnel is ECT(0) outside, RED marks rather
//!   than drops, and the eNB drops the marked packets (Pacifico et al. 2009, Fig. 7): the
//!   sender retransmits although the S1-U queue dropped nothing.
//! * `rfc6040` with the same ECN-incapable flow: the outer header copies Not-ECT, so RED drops
//!   and never marks.

use celltcp_scenario::{load_str, run, RunOptions};
use serde_json::Value;

const RED: &str = "{ kind = \"red\", limit = \"1000p\", min_th = \"20p\", max_th = \"60p\", \
                   max_p = 0.1, w_q = 0.02, ecn = true }";

fn scenario(mode: &str, ecn: bool) -> String {
    format!(
        r#"
[simulation]
duration = "10s"

[nodes]
server = {{ kind = "host" }}
pgw = {{ kind = "router" }}
enb = {{ kind = "router" }}
ue = {{ kind = "host" }}

[links.sgi]
a = "server"
b = "pgw"
rate = "1Gbps"
delay = "1ms"
queue = {{ kind = "droptail", limit = "1000p" }}

[links.s1u]
a = "pgw"
b = "enb"
rate = "10Mbps"
delay = "10ms"
queue = {{ kind = "droptail", limit = "1000p" }}

[links.s1u.a_to_b]
queue = {RED}

[cells.cell]
enb = "enb"
bandwidth_mhz = 10
rlc = {{ mode = "am", buffer = "1000p" }}

[cells.cell.ues]
ue = {{ position = [50.0, 0.0] }}

[epc]
gateway = "pgw"
ecn_decap = "{mode}"

[flows.bulk]
kind = "tcp"
src = "server"
dst = "ue"
cc = "newreno"
app = {{ kind = "bulk" }}

[flows.bulk.tcp]
ecn = {ecn}
"#
    )
}

/// The figures each check reads.
#[derive(Debug)]
struct Outcome {
    marks: f64,
    s1u_drops: f64,
    s1u_utilization: f64,
    ce_received: f64,
    ecn_reductions: f64,
    retransmissions: f64,
    loss_ratio: f64,
    goodput_bps: f64,
}

fn run_mode(mode: &str, ecn: bool) -> Outcome {
    let text = scenario(mode, ecn);
    let sc = load_str(&text, &[]).unwrap_or_else(|e| panic!("{e}"));
    let out = run(&sc, &RunOptions::default()).unwrap();
    let s = &out.summary;
    let n = |v: &Value, path: &[&str]| {
        let mut cur = v;
        for k in path {
            cur = &cur[*k];
        }
        cur.as_f64()
            .unwrap_or_else(|| panic!("no number at {path:?}"))
    };
    let s1u = &s["links"]["s1u"]["a_to_b"];
    let flow = &s["flows"]["bulk"];
    let o = Outcome {
        marks: n(s1u, &["ecn_marks"]),
        s1u_drops: n(s1u, &["drops", "aqm"]) + n(s1u, &["drops", "queue_full"]),
        s1u_utilization: n(s1u, &["utilization"]),
        ce_received: n(flow, &["receiver", "ce_received"]),
        ecn_reductions: n(flow, &["sender", "ecn_reductions"]),
        retransmissions: n(flow, &["sender", "retransmissions"]),
        loss_ratio: n(flow, &["loss_ratio"]),
        goodput_bps: n(flow, &["goodput_bps"]),
    };
    println!("{mode} (tcp.ecn = {ecn}): {o:?}");
    o
}

#[test]
fn ignore_loses_the_marks_and_the_flow_meets_drops_instead() {
    let o = run_mode("ignore", true);
    assert!(o.marks > 0.0, "RED marked the outer header");
    assert_eq!(o.ce_received, 0.0, "no mark crosses the eNB");
    assert_eq!(o.ecn_reductions, 0.0);
    assert!(o.s1u_drops > 0.0, "the queue had to drop");
    assert!(o.retransmissions > 0.0);
    assert!(
        o.s1u_utilization > 0.9,
        "S1-U is the bottleneck: {}",
        o.s1u_utilization
    );
}

#[test]
fn rfc6040_delivers_every_mark_and_the_sender_reduces_without_loss() {
    let o = run_mode("rfc6040", true);
    assert!(o.marks > 0.0);
    assert_eq!(
        o.ce_received, o.marks,
        "every outer CE reached the receiver"
    );
    assert!(o.ecn_reductions >= 1.0 && o.ecn_reductions <= o.marks);
    assert_eq!(o.s1u_drops, 0.0);
    assert_eq!(o.retransmissions, 0.0);
    assert_eq!(o.loss_ratio, 0.0);
    assert!(
        o.s1u_utilization > 0.9,
        "S1-U is the bottleneck: {}",
        o.s1u_utilization
    );
}

#[test]
fn not_ect_traffic_marked_in_the_tunnel_is_dropped_at_the_enb() {
    let fig7 = run_mode("drop_not_ect", false);
    assert!(fig7.marks > 0.0, "the ECT(0) tunnel is marked, not dropped");
    assert_eq!(fig7.s1u_drops, 0.0, "the S1-U queue itself dropped nothing");
    assert_eq!(fig7.ce_received, 0.0);
    assert!(
        fig7.retransmissions > 0.0,
        "the eNB dropped the marked Not-ECT packets"
    );
    assert!(fig7.loss_ratio > 0.0);

    let rfc = run_mode("rfc6040", false);
    assert_eq!(rfc.marks, 0.0, "a Not-ECT outer header is never marked");
    assert!(rfc.s1u_drops > 0.0);
    assert!(rfc.retransmissions > 0.0);
    println!(
        "goodput: drop_not_ect {:.2} Mb/s, rfc6040 (Not-ECT) {:.2} Mb/s",
        fig7.goodput_bps / 1e6,
        rfc.goodput_bps / 1e6
    );
}

#[test]
fn the_queue_series_counts_marks_and_drops_over_time_up_to_the_summary() {
    use celltcp_scenario::Column;
    let text = scenario("ignore", true) + "\n[trace]\nqueues = [\"s1u\"]\ninterval = \"1s\"\n";
    let sc = load_str(&text, &[]).unwrap_or_else(|e| panic!("{e}"));
    let out = run(&sc, &RunOptions::default()).unwrap();
    let series = out
        .series
        .iter()
        .find(|s| s.name == "queue")
        .expect("a queue series");
    let column = |name: &str| -> &Column {
        &series
            .columns
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{name}"))
            .1
    };
    let Column::Cat { codes: dirs, .. } = column("direction") else {
        panic!("direction")
    };
    let Column::U64(times) = column("time_ns") else {
        panic!("time_ns")
    };
    // The S1-U downlink's rows, one per second from 0 s to the end of the run.
    let rows: Vec<usize> = (0..dirs.len()).filter(|&i| dirs[i] == 0).collect();
    assert_eq!(rows.len(), 11);
    assert_eq!(times[rows[0]], 0);
    assert_eq!(times[*rows.last().unwrap()], 10_000_000_000);
    let s1u = &out.summary["links"]["s1u"]["a_to_b"];
    for (name, path) in [
        ("ecn_marks", &["ecn_marks"][..]),
        ("drops_aqm", &["drops", "aqm"]),
        ("drops_queue_full", &["drops", "queue_full"]),
        ("drops_link_loss", &["drops", "link_loss"]),
        ("bytes_delivered", &["bytes_delivered"]),
    ] {
        let Column::U64(v) = column(name) else {
            panic!("{name} is not u64")
        };
        let values: Vec<u64> = rows.iter().map(|&i| v[i]).collect();
        assert!(
            values.windows(2).all(|w| w[0] <= w[1]),
            "{name} is a counter: {values:?}"
        );
        let mut total = s1u;
        for k in path {
            total = &total[*k];
        }
        assert_eq!(*values.last().unwrap(), total.as_u64().unwrap(), "{name}");
    }
    // Drops in slow start's overshoot (the first second) and again later; marks all along, as
    // the sender never hears of them: both are spread over the run, not one step.
    let pick = |name: &str| -> Vec<u64> {
        let Column::U64(v) = column(name) else {
            unreachable!()
        };
        rows.iter().map(|&i| v[i]).collect()
    };
    let marks = pick("ecn_marks");
    let (full, aqm) = (pick("drops_queue_full"), pick("drops_aqm"));
    let drops: Vec<u64> = full.iter().zip(&aqm).map(|(f, a)| f + a).collect();
    println!("marks {marks:?}\ndrops {drops:?}");
    let rising = |v: &[u64]| v.windows(2).filter(|w| w[1] > w[0]).count();
    assert!(rising(&drops) >= 2, "{drops:?}");
    assert!(rising(&marks) >= 8, "{marks:?}");
}
