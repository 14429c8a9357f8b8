//! A single long-lived flow fills a loss-free bottleneck whose buffer holds at least one
//! bandwidth-delay product: the classic condition under which Reno-style AIMD keeps the link
//! busy through its sawtooth (the queue absorbs the halving), and BBR keeps it busy by design.
//!
//! Path: `src --1 Gb/s-- router --10 Mb/s, 20 ms--> dst`, drop-tail 50 packets in the data
//! direction. Propagation RTT 40 ms, so BDP = 10 Mb/s · 40 ms = 50 000 B ≈ 33 packets of
//! 1500 B: the buffer is 1.5 BDP. 30 s of simulated time per controller.
//!
//! Capacity for payload: every data packet is 1448 B of payload in 1500 B of IP (20 B IP,
//! 20 B TCP, 12 B timestamps option), so the link carries at most 10 Mb/s · 1448/1500 =
//! 9.653 Mb/s of goodput.

mod tcp_model;

use tcp_model::*;

const DURATION_S: f64 = 30.0;
/// Steady-state window: slow start and its overshoot recovery are over by then.
const STEADY_FROM_S: f64 = 5.0;

struct Utilisation {
    /// Goodput over [STEADY_FROM_S, DURATION_S] / payload capacity.
    steady: f64,
    /// Goodput over the whole run (summary `goodput_bps`) / payload capacity.
    whole: f64,
    /// Retransmitted segments / data segments that entered the bottleneck.
    retx_ratio: f64,
}

fn run_one(cc: &str) -> Utilisation {
    let mut d = Dumbbell::new(
        "30s",
        "10Mbps",
        "20ms",
        "{ kind = \"droptail\", limit = \"50p\" }",
    );
    d.tcp_flow("bulk", cc, "0s", "");
    d.extra = "[trace]\ntcp = [\"delivered\"]\n".into();
    let out = d.run(1);
    let s = &out.summary;
    let capacity = payload_capacity_bps(10e6, MSS, HEADER_BYTES_TS);
    let delivered = tcp_series(&out, "bulk", "delivered");
    assert!(!delivered.is_empty(), "{cc}: no delivered series");
    let from_ns = (STEADY_FROM_S * 1e9) as u64;
    let to_ns = (DURATION_S * 1e9) as u64;
    let bytes = value_at(&delivered, to_ns) - value_at(&delivered, from_ns);
    let steady = bytes * 8.0 / (DURATION_S - STEADY_FROM_S) / capacity;
    let whole = num(s, &["flows", "bulk", "goodput_bps"]) / capacity;
    let retx = num(s, &["flows", "bulk", "sender", "retransmissions"]);
    let entered = num(s, &["links", "bottleneck", "a_to_b", "packets_sent"])
        + num(s, &["links", "bottleneck", "a_to_b", "drops", "queue_full"]);
    let u = Utilisation {
        steady,
        whole,
        retx_ratio: retx / entered,
    };
    println!(
        "{cc}: steady {:.4}, whole run {:.4}, retransmitted {:.4} of data packets",
        u.steady, u.whole, u.retx_ratio
    );
    u
}

/// Tolerance: ≥ 95 % of the payload capacity, both after the first 5 s (the steady state, the
/// figure the requirement is about) and over the whole run including slow start. Measured
/// (seed 1): NewReno 1.000 / 0.996, CUBIC 1.000 / 0.992, BBR 0.980 / 0.977 (BBR gives up
/// about 2 % to ProbeRTT, 200 ms at a 4-packet window every 10 s).
///
/// The retransmission ratio pins a defect found by this test: the ssthresh chosen at a timeout
/// during SACK recovery was half of SND.NXT − SND.UNA (several times the data in flight) and
/// was recomputed at each further timeout of the same episode, so the sender overshot the
/// 83-packet pipe (33 in flight + 50 queued) again and again: NewReno retransmitted 20 178
/// of about 44 000 segments (46 %) and reached a goodput of 0.93.
/// Measured now: NewReno 0.005, CUBIC 0.008, BBR 0.004; bound 0.03.
#[test]
fn newreno_cubic_and_bbr_fill_a_bdp_buffered_bottleneck() {
    for cc in ["newreno", "cubic", "bbr"] {
        let u = run_one(cc);
        assert!(
            u.steady >= 0.95,
            "{cc}: steady-state goodput {:.4} of capacity",
            u.steady
        );
        assert!(
            u.steady <= 1.005,
            "{cc}: goodput {:.4} above the link's capacity",
            u.steady
        );
        assert!(
            u.whole >= 0.95,
            "{cc}: whole-run goodput {:.4} of capacity",
            u.whole
        );
        assert!(
            u.retx_ratio < 0.03,
            "{cc}: retransmitted {:.4} of data packets",
            u.retx_ratio
        );
    }
}
