//! The eNB's per-UE RLC buffer under a sender faster than the cell: an oversized buffer lets
//! the queueing delay grow for as long as the overload lasts (bufferbloat); a right-sized one
//! caps it at about buffer / service rate and drops the excess.

mod common;

use celltcp_engine::SimDuration;
use celltcp_net::packet::NodeId;
use celltcp_net::queue::DropCause;
use celltcp_radio::cell::{LteCell, LteCellConfig};
use celltcp_radio::phy::Mcs;
use celltcp_radio::rlc::BufferLimit;
use common::*;

/// MCS 16 on 50 PRBs: 15.264 Mbit/s at the PHY; the source sends 20 Mbit/s for 4 s.
fn run(limit: BufferLimit) -> Harness {
    let base = LteCellConfig {
        fixed_mcs: Some(Mcs::new(16).unwrap()),
        ..LteCellConfig::lte_default("c", ENB)
    };
    let cfg = LteCellConfig {
        rlc: base.rlc.with_tx_buffer(limit),
        ..base
    };
    let mut h = Harness::new(LteCell::new(cfg, vec![ue_at(NodeId(1), 100.0, 0.0)], 1, 0).unwrap());
    h.drive(&[Cbr::new(NodeId(1), 20e6, 1500, secs(4.0))], secs(4.0));
    h
}

fn mean_delay_s(delays: &[(celltcp_engine::SimTime, SimDuration)], from: f64, to: f64) -> f64 {
    let sel: Vec<f64> = delays
        .iter()
        .filter(|(t, _)| t.as_secs_f64() >= from && t.as_secs_f64() < to)
        .map(|(_, d)| d.as_secs_f64())
        .collect();
    sel.iter().sum::<f64>() / sel.len() as f64
}

#[test]
fn an_oversized_buffer_lets_the_delay_grow_a_right_sized_one_caps_it() {
    let bloated = run(BufferLimit::Unlimited);
    let d = bloated.delays(NodeId(1));
    let (first, last) = (mean_delay_s(&d, 0.0, 1.0), mean_delay_s(&d, 3.0, 4.0));
    let r = bloated.cell.ue_report(NodeId(1), secs(4.0)).unwrap();
    eprintln!(
        "unlimited buffer: mean delay {:.0} ms in the first second, {:.0} ms in the fourth; \
         report mean {:.0} ms max {:.0} ms, buffer mean {:.0} max {} bytes",
        first * 1e3,
        last * 1e3,
        r.queueing_delay_mean_s * 1e3,
        r.queueing_delay_max_s * 1e3,
        r.buffer_mean_bytes,
        r.buffer_max_bytes
    );
    // The queue grows at 20 − 15.2 Mbit/s: a packet sent at s waits about s·4.8/20 seconds
    // (0.96 s for the last), so packets delivered in the fourth second waited ≈ 0.84 s.
    assert!(last > 0.75 && last > 4.0 * first, "{first} {last}");
    assert!(r.queueing_delay_max_s > 0.9);
    assert!(bloated.dropped.is_empty());

    // 60 kB ≈ 32 ms at the RLC rate.
    let capped = run(BufferLimit::Bytes(60_000));
    let d = capped.delays(NodeId(1));
    let r = capped.cell.ue_report(NodeId(1), secs(4.0)).unwrap();
    let worst = d.iter().map(|x| x.1.as_secs_f64()).fold(0.0, f64::max);
    eprintln!(
        "60 kB buffer: mean delay {:.1} ms, max {:.1} ms (report {:.1} ms), {} packets refused, \
         RLC throughput {:.0} bit/s",
        mean_delay_s(&d, 0.0, 4.1) * 1e3,
        worst * 1e3,
        r.queueing_delay_max_s * 1e3,
        r.sdus_refused,
        r.rlc_throughput_bps
    );
    assert!(worst < 0.045, "{worst}");
    assert!((r.queueing_delay_max_s - worst).abs() < 1e-9);
    assert!(r.sdus_refused > 0);
    assert!(capped.dropped.iter().all(|d| d.2 == DropCause::QueueFull));
    assert_eq!(capped.dropped.len() as u64, r.sdus_refused);
    // The cell stays busy: the small buffer costs no throughput.
    assert!(r.rlc_throughput_bps > 0.99 * 15.2e6 * 3.9 / 4.0);
}
