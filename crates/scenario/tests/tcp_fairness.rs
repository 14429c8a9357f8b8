//! Ten NewReno flows sharing one bottleneck converge to a fair share: Jain's fairness index
//! (Jain, Chiu & Hawe, DEC-TR-301, 1984; `python/celltcp/models/throughput.py`,
//! `jain_fairness`) of their goodputs is at least 0.95.
//!
//! Path: `src --1 Gb/s-- router --10 Mb/s, 20 ms--> dst`, drop-tail 100 packets (3 BDP of the
//! 40 ms propagation RTT). Flow i starts at i·Δ, so all have started within the first second;
//! each runs to the end of the 60 s simulation. Each flow's goodput is taken over its own
//! active period (summary `goodput_bps`, payload bytes over end − start), so a late start is no
//! handicap. Nothing in this scenario is random (no loss model; drop-tail drops are
//! deterministic), so instead of seeds two staggerings are run, Δ = 100 ms and Δ = 73 ms, and
//! each must pass.

mod tcp_model;

use tcp_model::*;

const FLOWS: usize = 10;

/// Tolerance: Jain's index ≥ 0.95 and aggregate goodput ≥ 95 % of the payload capacity
/// (10 Mb/s · 1448/1500 = 9.653 Mb/s). Measured: Δ = 100 ms: J = 0.982, per-flow goodputs
/// 0.78–1.19 Mb/s, aggregate 0.988 of capacity; Δ = 73 ms: J = 0.988,
/// 0.80–1.18 Mb/s, 0.990.
#[test]
fn ten_staggered_newreno_flows_share_fairly() {
    let capacity = payload_capacity_bps(10e6, MSS, HEADER_BYTES_TS);
    for stagger_ms in [100, 73] {
        let mut d = Dumbbell::new(
            "60s",
            "10Mbps",
            "20ms",
            "{ kind = \"droptail\", limit = \"100p\" }",
        );
        for i in 0..FLOWS {
            d.tcp_flow(
                &format!("f{i}"),
                "newreno",
                &format!("{}ms", i * stagger_ms),
                "",
            );
        }
        let out = d.run(1);
        let goodputs: Vec<f64> = (0..FLOWS)
            .map(|i| num(&out.summary, &["flows", &format!("f{i}"), "goodput_bps"]))
            .collect();
        let jain = jain_fairness(&goodputs);
        let total: f64 = goodputs.iter().sum();
        let (lo, hi) = goodputs
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), &g| {
                (lo.min(g), hi.max(g))
            });
        println!(
            "stagger {stagger_ms} ms: Jain {jain:.4}, goodput {:.2}–{:.2} Mb/s, aggregate {:.3} of capacity",
            lo / 1e6,
            hi / 1e6,
            total / capacity
        );
        assert!(
            jain >= 0.95,
            "stagger {stagger_ms} ms: Jain's index {jain:.4} of {goodputs:?}"
        );
        assert!(
            total >= 0.95 * capacity,
            "stagger {stagger_ms} ms: aggregate goodput {total}"
        );
    }
}

/// The index itself: 1 for equal shares, 1/n when one flow takes everything, and the value of
/// `python3 -c "from celltcp.models.throughput import jain_fairness as j; print(j([1,2,3,4]))"`
/// (0.8333…) for an uneven split.
#[test]
fn jain_index_reference_values() {
    assert!((jain_fairness(&[3.0; 10]) - 1.0).abs() < 1e-12);
    let mut one = [0.0; 10];
    one[3] = 5e6;
    assert!((jain_fairness(&one) - 0.1).abs() < 1e-12);
    assert!((jain_fairness(&[1.0, 2.0, 3.0, 4.0]) - 100.0 / 120.0).abs() < 1e-12);
}
