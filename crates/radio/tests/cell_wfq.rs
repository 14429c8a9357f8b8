//! The `wfq` scheduler inside the cell, with per-UE weights (`LteCellConfig::ue_weights`) and
//! link adaptation from the CQI reports.
//!
//! What WFQ equalises here (`mac/wfq.rs`): the bytes of new data each UE is scheduled, divided
//! by its weight. A UE is charged min(TBS, its buffer) bytes when its transport block is
//! scheduled as new data; HARQ retransmissions are not charged again. With full buffers every
//! block is full, and with chase combining every block is eventually decoded, so the decoded
//! transport-block bits (`tb_bits_decoded`) are the charged bytes × 8: those follow the
//! weights whatever the channels, and PRBs follow the inverse of each UE's bits per PRB.

mod common;

use std::collections::BTreeMap;

use celltcp_net::packet::NodeId;
use celltcp_radio::cell::{CellRadioConfig, LteCell, LteCellConfig, UeConfig};
use celltcp_radio::channel::{LogDistance, PathLossModel};
use common::*;

/// Log-distance path loss, 40 dB at 1 m, exponent 3.5 (as in `cell_schedulers.rs`): SINR
/// ≈ 21 dB at 200 m and ≈ 7 dB at 500 m with 46 dBm, 50 PRBs and a 9 dB noise figure.
fn wfq_cell(weights: &[(NodeId, f64)]) -> LteCellConfig {
    LteCellConfig {
        ue_weights: weights.iter().copied().collect::<BTreeMap<_, _>>(),
        pathloss: PathLossModel::LogDistance(LogDistance::new(40.0, 1.0, 3.5).unwrap()),
        keys: CellRadioConfig {
            scheduler: "wfq".to_string(),
            ..LteCellConfig::lte_default("c", ENB).keys
        },
        ..LteCellConfig::lte_default("c", ENB)
    }
}

/// Per UE after `seconds` of full buffers (50 Mbit/s offered to each, more than the cell
/// carries): (decoded transport-block bits, PRB-TTIs).
fn run(cfg: LteCellConfig, ues: Vec<UeConfig>, seconds: f64) -> Vec<(f64, f64)> {
    let nodes: Vec<NodeId> = ues.iter().map(|u| u.node).collect();
    let mut h = Harness::new(LteCell::new(cfg, ues, 11, 0).unwrap());
    let end = secs(seconds);
    let sources: Vec<Cbr> = nodes
        .iter()
        .map(|&n| Cbr::new(n, 50e6, 1500, end))
        .collect();
    h.drive(&sources, end);
    assert!(h.cell.prb_utilization(end) > 0.99);
    nodes
        .iter()
        .map(|&n| {
            let r = h.cell.ue_report(n, end).unwrap();
            // Every block scheduled was decoded: the decoded bits are the charged bytes.
            assert_eq!(r.harq_residual_failures, 0, "UE {n}");
            (r.tb_bits_decoded as f64, r.prbs as f64)
        })
        .collect()
}

fn shares(xs: &[f64]) -> Vec<f64> {
    let total: f64 = xs.iter().sum();
    xs.iter().map(|x| x / total).collect()
}

#[test]
fn weights_one_to_three_give_one_to_three_shares() {
    // Two UEs at 300 m on opposite sides: the same SINR, CQI and MCS.
    let ues = vec![ue_at(NodeId(1), 300.0, 0.0), ue_at(NodeId(2), -300.0, 0.0)];
    let figures = run(wfq_cell(&[(NodeId(1), 1.0), (NodeId(2), 3.0)]), ues, 3.0);
    let bytes = shares(&figures.iter().map(|f| f.0).collect::<Vec<_>>());
    let prbs = shares(&figures.iter().map(|f| f.1).collect::<Vec<_>>());
    eprintln!("WFQ 1:3, equal channels: byte shares {bytes:.4?}, PRB shares {prbs:.4?}");
    for (got, want) in [
        (bytes[0], 0.25),
        (bytes[1], 0.75),
        (prbs[0], 0.25),
        (prbs[1], 0.75),
    ] {
        assert!((got / want - 1.0).abs() < 0.02, "{got} vs {want}");
    }
}

#[test]
fn equal_weights_and_channels_are_fair() {
    // Five UEs on a circle of 300 m, no weights given (each weighs 1).
    let ues: Vec<UeConfig> = (0..5)
        .map(|i| {
            let a = f64::from(i) * std::f64::consts::TAU / 5.0;
            ue_at(NodeId(1 + i), 300.0 * a.cos(), 300.0 * a.sin())
        })
        .collect();
    let figures = run(wfq_cell(&[]), ues, 2.0);
    let bits: Vec<f64> = figures.iter().map(|f| f.0).collect();
    let j = jain(&bits);
    eprintln!("WFQ, 5 equal UEs: decoded bits {bits:.0?}, Jain {j:.6}");
    assert!(j >= 0.99, "{j}");
}

#[test]
fn unequal_channels_get_equal_bytes_and_unequal_prbs() {
    // 200 m (CQI ≈ 13) and 500 m (CQI ≈ 7), equal weights: equal new-data bytes, so the far
    // UE needs more PRBs, in the ratio of the two UEs' bits per PRB.
    let ues = vec![ue_at(NodeId(1), 200.0, 0.0), ue_at(NodeId(2), -500.0, 0.0)];
    let figures = run(wfq_cell(&[(NodeId(1), 1.0), (NodeId(2), 1.0)]), ues, 3.0);
    let (near, far) = (figures[0], figures[1]);
    let bits_per_prb = (near.0 / near.1, far.0 / far.1);
    eprintln!(
        "WFQ, unequal channels: decoded bits {:.0} / {:.0}, PRB-TTIs {:.0} / {:.0}, bits per \
         PRB {:.1} / {:.1}",
        near.0, far.0, near.1, far.1, bits_per_prb.0, bits_per_prb.1
    );
    assert!(
        (near.0 / far.0 - 1.0).abs() < 0.01,
        "bytes {near:?} {far:?}"
    );
    assert!(bits_per_prb.0 > 2.0 * bits_per_prb.1);
    // PRBs in inverse proportion to bits per PRB (equal bytes); not equal PRBs.
    let prb_ratio = far.1 / near.1;
    let expected = bits_per_prb.0 / bits_per_prb.1;
    assert!(
        (prb_ratio / expected - 1.0).abs() < 0.01,
        "{prb_ratio} vs {expected}"
    );
}
