//! ECN with RED marking (RFC 3168): the bottleneck marks instead of dropping, the sender
//! reduces its window on ECN-Echo at most once per window of data (§6.1.2), and nothing is
//! lost or retransmitted.
//!
//! Path: `src --1 Gb/s-- router --10 Mb/s, 20 ms--> dst`; the bottleneck's data direction runs
//! gentle RED with ECN, min_th 20 p, max_th 60 p, max_p 0.1, w_q 0.02, a 1000-packet hard
//! limit. The weight w_q is ten times RED's default 0.002 on purpose: with 0.002 the average
//! lags slow start by about 500 arrivals, the instantaneous queue overshoots, the average
//! passes 2·max_th and RED drops every arrival, ECN-capable or not (RFC 3168 §7 keeps drops
//! for that region; measured with min_th 5 p, max_th 15 p, w_q 0.002: about a hundred drops
//! and two retransmission timeouts). 20 s per controller, NewReno and CUBIC, `tcp.ecn = true`.

mod tcp_model;

use tcp_model::*;

const RED: &str = "{ kind = \"red\", limit = \"1000p\", min_th = \"20p\", max_th = \"60p\", \
                   max_p = 0.1, w_q = 0.02, ecn = true }";

/// Checks (no tolerance: these are protocol rules):
/// * no drop at the bottleneck (`drops.aqm == 0`, `drops.queue_full == 0`) and no
///   retransmission;
/// * CE marks > 0, the receiver saw every mark (`ce_received == ecn_marks`), and the sender's
///   `ecn_reductions` is ≥ 1 and ≤ the marks;
/// * every decrease of the traced cwnd is an ECN reduction (their count equals
///   `ecn_reductions`); each reduction comes with an ACK that covers the whole window sent
///   before the previous one (at most one reduction per window of data), and successive
///   reductions are therefore at least one RTT apart, checked against the path's minimum RTT
///   (40 ms propagation, the lower bound of any RTT).
///
/// Measured: NewReno 129 marks, 14 reductions, closest two 0.096 s apart; CUBIC 229 marks, 14
/// reductions, closest 0.074 s apart; utilisation 0.975 and 0.993.
#[test]
fn red_marks_and_the_sender_reduces_once_per_rtt() {
    for cc in ["newreno", "cubic"] {
        let mut d = Dumbbell::new("20s", "10Mbps", "20ms", RED);
        d.tcp_flow("bulk", cc, "0s", "ecn = true");
        d.extra = "[trace]\ntcp = [\"cwnd\", \"seq_sent\", \"ack_received\"]\n".into();
        let out = d.run(1);
        let s = &out.summary;
        let link = |k: &[&str]| num(&s["links"]["bottleneck"]["a_to_b"], k);
        let flow = |k: &[&str]| num(&s["flows"]["bulk"], k);
        let marks = link(&["ecn_marks"]);
        let reductions = flow(&["sender", "ecn_reductions"]);
        let min_rtt = flow(&["sender", "min_rtt_s"]);

        let cwnd = tcp_series(&out, "bulk", "cwnd");
        let cuts: Vec<u64> = cwnd
            .windows(2)
            .filter(|w| w[1].1 < w[0].1)
            .map(|w| w[1].0)
            .collect();
        let gaps: Vec<f64> = cuts
            .windows(2)
            .map(|w| (w[1] - w[0]) as f64 * 1e-9)
            .collect();
        let closest = gaps.iter().copied().fold(f64::INFINITY, f64::min);
        // RFC 3168 §6.1.2, "once per window of data": the ACK that brings the next reduction
        // acknowledges the whole window that was outstanding at the previous one, i.e. at
        // least up to the end of the last segment sent before it.
        let sent = tcp_series(&out, "bulk", "seq_sent");
        let acked = tcp_series(&out, "bulk", "ack_received");
        for w in cuts.windows(2) {
            let last_sent = sent[..sent.partition_point(|r| r.0 < w[0])]
                .last()
                .expect("data sent")
                .1;
            let ack = value_at(&acked, w[1]);
            assert!(
                ack >= last_sent + MSS,
                "{cc}: reduction at {} ns with ACK {ack}; the window at the reduction at {} ns \
                 reached {}",
                w[1],
                w[0],
                last_sent + MSS
            );
        }
        println!(
            "{cc}: {marks} marks, {reductions} reductions, closest {closest:.3} s apart \
             (min RTT {min_rtt:.3} s), utilisation {:.3}",
            link(&["utilization"])
        );

        assert_eq!(link(&["drops", "aqm"]), 0.0, "{cc}");
        assert_eq!(link(&["drops", "queue_full"]), 0.0, "{cc}");
        assert_eq!(flow(&["sender", "retransmissions"]), 0.0, "{cc}");
        assert!(marks > 0.0, "{cc}: no CE marks");
        assert_eq!(flow(&["receiver", "ce_received"]), marks, "{cc}");
        assert!(
            reductions >= 1.0 && reductions <= marks,
            "{cc}: {reductions} reductions"
        );
        assert_eq!(
            cuts.len() as f64,
            reductions,
            "{cc}: cwnd decreases {cuts:?}"
        );
        assert!(
            closest >= min_rtt,
            "{cc}: reductions {closest:.3} s apart, RTT ≥ {min_rtt:.3} s"
        );
    }
}
