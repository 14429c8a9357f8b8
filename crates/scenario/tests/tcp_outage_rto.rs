//! TCP after a near-outage of a trace-driven link (`docs/tcp-validation.md`, "Recovery after a
//! near-outage"): the downlink trace offers 12 Mb/s for 10 s, one delivery opportunity every
//! 500 ms for the next 10 s, then 12 Mb/s again. The trace is generated here.
//!
//! The packets that wait out the near-outage in the 150-packet queue give genuine RTT samples
//! of up to 10 s, and RFC 6298 takes them in: when capacity returns, the RTO is many seconds.
//! The go-back-N retransmissions then overflow the queue; one of them is lost, and before RACK's
//! detection of lost retransmissions (RFC 8985 §6.2, `crates/tcp/src/rack.rs`) only that RTO
//! could repair it: nothing new is acknowledged from 20.288 s to the end of the run at 30 s (RTO
//! 18.851 s). The queue held 100 packets until 2026-12-02; since a loss halves at most cwnd
//! (RFC 5681 §3.2 step 2) the window that meets the near-outage is smaller, and the go-back-N
//! no longer overflowed that queue (no lost retransmission either way).

mod support;
use support::*;

const S: u64 = 1_000_000_000;

/// 1 … 10,000 ms, then every 500 ms up to 19,500 ms, then 20,000 … 30,000 ms.
fn near_outage_trace() -> String {
    let mut lines: Vec<u64> = (1..=10_000).collect();
    lines.extend((1..20).map(|k| 10_000 + 500 * k));
    lines.extend(20_000..=30_000);
    lines.iter().map(|t| format!("{t}\n")).collect()
}

fn scenario(trace: &std::path::Path, tcp: &str) -> String {
    format!(
        r#"
[simulation]
duration = "30s"
seed = 1

[nodes]
server = {{ kind = "host" }}
gw = {{ kind = "router" }}
ue = {{ kind = "host" }}

[links.wan]
a = "server"
b = "gw"
rate = "100Mbps"
delay = "20ms"

[links.access]
a = "gw"
b = "ue"
delay = "5ms"
queue = {{ kind = "droptail", limit = "150p" }}
a_to_b = {{ trace = "{}" }}
b_to_a = {{ rate = "5Mbps" }}

[flows.bulk]
kind = "tcp"
src = "server"
dst = "ue"
cc = "newreno"
tcp = {{ {tcp} }}
app = {{ kind = "bulk" }}

[trace]
tcp = ["rto", "rtt", "ack_received", "seq_sent"]
"#,
        trace.display()
    )
}

/// Times (ns) of the ACKs that advanced SND.UNA.
fn advancing_acks(out: &celltcp_scenario::RunOutput) -> Vec<u64> {
    let mut highest = f64::MIN;
    let mut times = Vec::new();
    for (t, ack) in tcp_series(out, "bulk", "ack_received") {
        if ack > highest {
            highest = ack;
            times.push(t);
        }
    }
    times
}

/// The longest interval without a new cumulative ACK after `from`, with the RTO at its start;
/// the last ACK's interval runs to the end of the run (30 s).
fn longest_stall(out: &celltcp_scenario::RunOutput, from: u64) -> (u64, u64, f64) {
    let rto = tcp_series(out, "bulk", "rto");
    let mut acks = advancing_acks(out);
    acks.push(30 * S);
    let (start, gap) = acks
        .windows(2)
        .filter(|w| w[0] >= from)
        .map(|w| (w[0], w[1] - w[0]))
        .max_by_key(|&(_, g)| g)
        .expect("ACKs after the outage");
    let rto_then = rto
        .iter()
        .take_while(|r| r.0 <= start)
        .last()
        .map_or(f64::NAN, |r| r.1);
    (start, gap, rto_then)
}

/// What one run shows after capacity returns at 20 s.
struct AfterReturn {
    /// First ACK advancing SND.UNA at or after 20 s, ns.
    first_ack: u64,
    /// Longest interval without a new cumulative ACK after 20 s: start and length, ns, and
    /// the RTO (s) at its start.
    stall_start: u64,
    stall: u64,
    stall_rto: f64,
    /// Largest RTO (s) within 300 ms of the return.
    rto_after_return: f64,
    timeouts: f64,
    lost_retransmissions: f64,
    goodput_bps: f64,
}

/// Runs the scenario with `tcp` as the flow's endpoint settings.
fn near_outage_output(tcp: &str) -> celltcp_scenario::RunOutput {
    let dir = std::env::temp_dir().join(format!(
        "celltcp-near-outage-{}-{}",
        std::process::id(),
        tcp.len()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("near-outage.trace");
    std::fs::write(&trace, near_outage_trace()).unwrap();
    let out = run_text(&scenario(&trace, tcp), 1);
    let _ = std::fs::remove_dir_all(&dir);
    out
}

fn run_near_outage(tcp: &str) -> AfterReturn {
    let out = near_outage_output(tcp);
    let first_ack = advancing_acks(&out)
        .into_iter()
        .find(|&t| t >= 20 * S)
        .expect("an ACK after the return");
    let (stall_start, stall, stall_rto) = longest_stall(&out, 20 * S);
    let rto_after_return = tcp_series(&out, "bulk", "rto")
        .into_iter()
        .filter(|r| (20 * S..20 * S + 300_000_000).contains(&r.0))
        .map(|r| r.1)
        .fold(0.0, f64::max);
    let sender = &out.summary["flows"]["bulk"]["sender"];
    let r = AfterReturn {
        first_ack,
        stall_start,
        stall,
        stall_rto,
        rto_after_return,
        timeouts: num(sender, &["timeouts"]),
        lost_retransmissions: num(sender, &["lost_retransmissions"]),
        goodput_bps: num(&out.summary["flows"]["bulk"], &["goodput_bps"]),
    };
    eprintln!(
        "tcp = {{ {tcp} }}: first new ACK after the return at {:.3} s; longest stall after it {:.3} s from {:.3} s \
         (RTO {:.3} s); largest RTO within 300 ms of the return {:.3} s; timeouts {}, ACKs finding lost \
         retransmissions {}; goodput {:.0} b/s",
        r.first_ack as f64 / 1e9,
        r.stall as f64 / 1e9,
        r.stall_start as f64 / 1e9,
        r.stall_rto,
        r.rto_after_return,
        r.timeouts,
        r.lost_retransmissions,
        r.goodput_bps,
    );
    r
}

/// Measured (seed 1): the first ACK after the return comes at 20.031 s either way (the queue
/// still holds data sent before the near-outage), and the RTO reaches 21.1 s within 300 ms of
/// the return. Without the detection of lost retransmissions nothing new is acknowledged from
/// 20.288 s to the end at 30 s (RTO 18.851 s; 1 timeout, 3.86 Mb/s); with it the longest stall
/// after the return is 0.127 s (1 timeout, 3 lost retransmissions found, 7.62 Mb/s).
#[test]
fn a_lost_retransmission_after_a_near_outage_does_not_wait_for_the_inflated_rto() {
    let before = run_near_outage("detect_lost_retransmissions = false");
    let after = run_near_outage("");
    for r in [&before, &after] {
        // The queue still holds data sent before the near-outage: it is acknowledged at once.
        assert!(
            r.first_ack < 20 * S + 50_000_000,
            "first ACK at {}",
            r.first_ack
        );
        // The RTO is inflated by the 10 s samples of the packets that waited out the outage.
        assert!(r.rto_after_return > 5.0, "RTO {}", r.rto_after_return);
    }
    // Before: the lost go-back-N retransmission waits for that RTO.
    assert!(before.stall > 5 * S && before.stall_rto > 5.0);
    assert_eq!(before.lost_retransmissions, 0.0);
    // After: it is sent again within round trips.
    assert!(
        after.stall < S / 2,
        "stall of {} ns from {}",
        after.stall,
        after.stall_start
    );
    assert!(after.lost_retransmissions >= 1.0);
    assert!(after.timeouts <= before.timeouts);
    assert!(after.goodput_bps > before.goodput_bps);
}

/// With F-RTO (RFC 5682; on by default in Linux, `tcp_frto`) the sender answers the
/// near-outage's timeout with new data instead of going back N, and no retransmission is lost
/// after the return: no stall with or without the detection (measured: 0.155 s at 20.161 s,
/// 1 timeout, 7.67 Mb/s, both ways).
#[test]
fn with_frto_there_is_no_stall_either_way() {
    for tcp in [
        "frto = true, detect_lost_retransmissions = false",
        "frto = true",
    ] {
        let r = run_near_outage(tcp);
        assert!(
            r.stall < S / 2,
            "{tcp}: stall of {} ns from {}",
            r.stall,
            r.stall_start
        );
    }
}

/// Linux's RTO arithmetic (`tcp_rtt_estimator` and `__tcp_set_rto` in the kernel's
/// `net/ipv4/tcp_input.c` and `include/net/tcp.h`), restated here to compare it with
/// celltcp's RFC 6298 estimator on the same samples. Times in nanoseconds. `srtt8` is 8·SRTT;
/// `mdev` is the mean deviation scaled as 4·RTTVAR; `rttvar` is the largest `mdev` of the
/// current round, at least `rto_min`, decayed by a quarter towards the round's maximum when
/// SND.UNA passes `rtt_seq` (SND.NXT when the round began).
struct LinuxRto {
    srtt8: i64,
    mdev: i64,
    mdev_max: i64,
    rttvar: i64,
    rtt_seq: u64,
    rto_min: i64,
}

impl LinuxRto {
    fn new(rto_min: i64) -> Self {
        LinuxRto {
            srtt8: 0,
            mdev: 0,
            mdev_max: 0,
            rttvar: 0,
            rtt_seq: 0,
            rto_min,
        }
    }

    fn on_sample(&mut self, r: i64, snd_una: u64, snd_nxt: u64) {
        if self.srtt8 == 0 {
            self.srtt8 = r << 3;
            self.mdev = r << 1;
            self.rttvar = self.mdev.max(self.rto_min);
            self.mdev_max = self.rttvar;
            self.rtt_seq = snd_nxt;
            return;
        }
        let mut m = r - (self.srtt8 >> 3);
        self.srtt8 += m;
        if m < 0 {
            // A sample below SRTT feeds the deviation with gain 1/32 instead of 1/4.
            m = -m - (self.mdev >> 2);
            if m > 0 {
                m >>= 3;
            }
        } else {
            m -= self.mdev >> 2;
        }
        self.mdev += m;
        if self.mdev > self.mdev_max {
            self.mdev_max = self.mdev;
            self.rttvar = self.rttvar.max(self.mdev_max);
        }
        if snd_una > self.rtt_seq {
            if self.mdev_max < self.rttvar {
                self.rttvar -= (self.rttvar - self.mdev_max) >> 2;
            }
            self.rtt_seq = snd_nxt;
            self.mdev_max = self.rto_min;
        }
    }

    /// SRTT + rttvar, at most TCP_RTO_MAX (120 s).
    fn rto_s(&self) -> f64 {
        ((self.srtt8 >> 3) + self.rttvar).min(120 * S as i64) as f64 / 1e9
    }
}

/// Fed the RTT samples of this run (with SND.UNA and SND.NXT from the traced ACKs and new
/// data), Linux's arithmetic gives a longer RTO than celltcp's RFC 6298 estimator when the lost
/// retransmission is reached: the estimator is not why Linux recovers sooner.
///
/// Measured at 20.288 s: celltcp 18.851 s, Linux's arithmetic 22.953 s (the round that began in
/// the near-outage has not ended, and its largest deviation, 14.051 s, stands).
#[test]
fn linux_rto_arithmetic_on_the_same_samples_is_no_shorter() {
    let out = near_outage_output("detect_lost_retransmissions = false");
    let samples = tcp_series(&out, "bulk", "rtt");
    let acks = tcp_series(&out, "bulk", "ack_received");
    let sent = tcp_series(&out, "bulk", "seq_sent");
    let rto = tcp_series(&out, "bulk", "rto");
    let last_at = |rows: &[(u64, f64)], t: u64| {
        rows.iter()
            .take_while(|r| r.0 <= t)
            .last()
            .map_or(0.0, |r| r.1)
    };
    let mss = 1448.0;
    // The ACK that brought SND.UNA to the lost retransmission, at 20.232 s.
    let (at, _, _) = longest_stall(&out, 20 * S);
    let mut linux = LinuxRto::new(200_000_000);
    for &(t, r) in samples.iter().take_while(|s| s.0 <= at) {
        let snd_una = last_at(&acks, t) as u64;
        let snd_nxt = (last_at(&sent, t) + mss) as u64;
        linux.on_sample((r * 1e9).round() as i64, snd_una, snd_nxt);
    }
    let celltcp = last_at(&rto, at);
    eprintln!(
        "RTO at {:.3} s: celltcp (RFC 6298) {celltcp:.3} s, Linux's arithmetic {:.3} s (rttvar {:.3} s)",
        at as f64 / 1e9,
        linux.rto_s(),
        linux.rttvar as f64 / 1e9
    );
    assert!((celltcp - 18.851).abs() < 0.01, "celltcp RTO {celltcp}");
    assert!(
        linux.rto_s() > celltcp,
        "Linux {} vs celltcp {celltcp}",
        linux.rto_s()
    );
}
