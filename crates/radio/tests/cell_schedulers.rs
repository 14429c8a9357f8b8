//! The MAC schedulers inside the cell, with link adaptation from the CQI reports:
//! proportional fair is fair between equal channels and gives better channels more without
//! starving the others; round robin shares PRBs equally whatever the channels; max C/I serves
//! the best channel.

mod common;

use celltcp_net::packet::NodeId;
use celltcp_radio::cell::{CellRadioConfig, LteCell, LteCellConfig, UeConfig};
use celltcp_radio::channel::{LogDistance, PathLossModel};
use common::*;

/// Log-distance path loss, 40 dB at 1 m, exponent 3.5: SINR ≈ 21 dB at 200 m (CQI 14) and
/// ≈ 7 dB at 500 m (CQI 8) with the default 46 dBm, 50 PRBs and 9 dB noise figure.
fn cell(scheduler: &str) -> LteCellConfig {
    LteCellConfig {
        pathloss: PathLossModel::LogDistance(LogDistance::new(40.0, 1.0, 3.5).unwrap()),
        keys: CellRadioConfig {
            scheduler: scheduler.to_string(),
            ..LteCellConfig::lte_default("c", ENB).keys
        },
        ..LteCellConfig::lte_default("c", ENB)
    }
}

/// Full buffers (50 Mbit/s offered to each UE, more than the cell carries) for `seconds`.
fn run(cfg: LteCellConfig, ues: Vec<UeConfig>, seconds: f64) -> (Harness, Vec<(f64, u64)>) {
    let nodes: Vec<NodeId> = ues.iter().map(|u| u.node).collect();
    let mut h = Harness::new(LteCell::new(cfg, ues, 7, 0).unwrap());
    let end = secs(seconds);
    let sources: Vec<Cbr> = nodes
        .iter()
        .map(|&n| Cbr::new(n, 50e6, 1500, end))
        .collect();
    h.drive(&sources, end);
    let figures = nodes
        .iter()
        .map(|&n| {
            let r = h.cell.ue_report(n, end).unwrap();
            (r.rlc_throughput_bps, r.prbs)
        })
        .collect();
    (h, figures)
}

#[test]
fn proportional_fair_is_fair_between_equal_channels() {
    // Five UEs on a circle of 300 m: the same SINR.
    let ues: Vec<UeConfig> = (0..5)
        .map(|i| {
            let a = f64::from(i) * std::f64::consts::TAU / 5.0;
            ue_at(NodeId(1 + i), 300.0 * a.cos(), 300.0 * a.sin())
        })
        .collect();
    let (h, figures) = run(cell("proportional_fair"), ues, 3.0);
    let tput: Vec<f64> = figures.iter().map(|f| f.0).collect();
    let j = jain(&tput);
    eprintln!("PF, 5 equal UEs: throughputs {tput:.0?}, Jain {j:.6}");
    assert!(j >= 0.99, "{j}");
    assert!(h.cell.prb_utilization(secs(3.0)) > 0.99);
}

#[test]
fn proportional_fair_gives_better_channels_more_without_starving() {
    let ues = vec![ue_at(NodeId(1), 200.0, 0.0), ue_at(NodeId(2), -500.0, 0.0)];
    let (h, pf) = run(cell("proportional_fair"), ues.clone(), 3.0);
    let near = h.cell.ue_report(NodeId(1), secs(3.0)).unwrap();
    let far = h.cell.ue_report(NodeId(2), secs(3.0)).unwrap();
    eprintln!(
        "PF: near {:.0} bit/s (CQI {:.1}, MCS {:.1}, {} PRB-TTIs), far {:.0} bit/s (CQI {:.1}, \
         MCS {:.1}, {} PRB-TTIs)",
        near.rlc_throughput_bps,
        near.cqi_mean,
        near.mcs_mean,
        near.prbs,
        far.rlc_throughput_bps,
        far.cqi_mean,
        far.mcs_mean,
        far.prbs
    );
    assert!(near.cqi_mean > far.cqi_mean + 3.0);
    assert!(pf[0].0 > 1.5 * pf[1].0);
    // Equal shares of time (whole-band allocation): PRB-TTIs within 5 %.
    let share = pf[0].1 as f64 / (pf[0].1 + pf[1].1) as f64;
    assert!((share - 0.5).abs() < 0.025, "{share}");

    let (_, max_ci) = run(cell("max_ci"), ues, 3.0);
    eprintln!(
        "max C/I: near {:.0} bit/s, far {:.0} bit/s",
        max_ci[0].0, max_ci[1].0
    );
    assert!(
        max_ci[1].0 < 0.01 * max_ci[0].0,
        "max C/I starves the far UE"
    );
    assert!(pf[1].0 > 0.2 * pf[0].0, "PF does not");
}

#[test]
fn round_robin_is_channel_blind() {
    let ues = vec![ue_at(NodeId(1), 200.0, 0.0), ue_at(NodeId(2), -500.0, 0.0)];
    let (_, rr) = run(cell("round_robin"), ues, 3.0);
    let share = rr[0].1 as f64 / (rr[0].1 + rr[1].1) as f64;
    eprintln!(
        "RR: PRB share of the near UE {share:.4}; throughputs {:.0} / {:.0} bit/s",
        rr[0].0, rr[1].0
    );
    assert!((share - 0.5).abs() < 0.005, "{share}");
    assert!(rr[0].0 > 1.5 * rr[1].0, "bytes follow each UE's MCS");
}
