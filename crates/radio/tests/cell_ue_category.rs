//! A UE category (TS 36.306 Table 4.1-1) bounds the transport block of every TTI: a category 1
//! UE receives at most 10296 bits per TTI whatever the cell could send, and the PRBs its block
//! cannot fill go to the other UEs.

mod common;

use celltcp_net::packet::NodeId;
use celltcp_radio::cell::{CellRadioConfig, LteCell, LteCellConfig};
use celltcp_radio::phy::{tbs_bits_for_mcs, Mcs, UeCategory};
use common::*;

const SDU: u32 = 1500;

/// PHY throughput of each UE and the PRB utilisation of a 10 MHz cell at MCS 28, every UE
/// 100 m from the eNB (no block errors) with a full buffer, scheduled by `scheduler`.
fn run(category: Option<u8>, ues: u32, scheduler: &str) -> (Vec<f64>, f64) {
    let duration = secs(2.0);
    let cfg = LteCellConfig {
        fixed_mcs: Some(Mcs::new(28).unwrap()),
        keys: CellRadioConfig {
            ue_category: category.map(|c| UeCategory::new(c).unwrap()),
            scheduler: scheduler.into(),
            ..LteCellConfig::lte_default("c", ENB).keys
        },
        ..LteCellConfig::lte_default("c", ENB)
    };
    let nodes: Vec<NodeId> = (1..=ues).map(NodeId).collect();
    let cell = LteCell::new(
        cfg,
        nodes.iter().map(|&n| ue_at(n, 100.0, 0.0)).collect(),
        1,
        0,
    )
    .unwrap();
    let mut h = Harness::new(cell);
    let sources: Vec<Cbr> = nodes
        .iter()
        .map(|&n| Cbr::new(n, 60e6, SDU, duration))
        .collect();
    h.drive(&sources, duration);
    let rates = nodes
        .iter()
        .map(|&n| h.cell.ue_report(n, duration).unwrap().phy_throughput_bps)
        .collect();
    (rates, h.cell.prb_utilization(duration))
}

fn close(measured: f64, expected: f64) -> bool {
    (measured - expected).abs() / expected < 0.02
}

#[test]
fn category_1_receives_at_most_10296_bits_per_tti_on_14_prbs() {
    let unbounded = f64::from(tbs_bits_for_mcs(28, 50).unwrap()) * 1000.0;
    let (free, free_util) = run(None, 1, "proportional_fair");
    assert!(close(free[0], unbounded), "{} vs {unbounded}", free[0]);
    assert!(free_util > 0.99);

    // 10296 bits is the block of 14 PRBs at MCS 28 (I_TBS 26); 15 PRBs would carry 11064.
    let (cat1, util) = run(Some(1), 1, "proportional_fair");
    assert!(close(cat1[0], 10_296_000.0), "{} bit/s", cat1[0]);
    assert!((util - 14.0 / 50.0).abs() < 0.01, "PRB utilisation {util}");
    eprintln!(
        "MCS 28, 50 PRBs: unbounded {:.2} Mbit/s, category 1 {:.2} Mbit/s on {:.0} % of the PRBs",
        free[0] / 1e6,
        cat1[0] / 1e6,
        util * 100.0
    );
}

#[test]
fn the_prbs_a_capped_block_cannot_fill_go_to_the_other_ues() {
    for scheduler in ["proportional_fair", "max_ci", "round_robin"] {
        let (rates, util) = run(Some(1), 3, scheduler);
        for r in &rates {
            assert!(close(*r, 10_296_000.0), "{scheduler}: {rates:?}");
        }
        assert!((util - 42.0 / 50.0).abs() < 0.01, "{scheduler}: {util}");
    }
}

#[test]
fn a_category_above_the_cells_largest_block_changes_nothing() {
    // Category 5 allows 149776 bits; 50 PRBs at MCS 28 carry 36696.
    assert_eq!(
        run(Some(5), 2, "proportional_fair"),
        run(None, 2, "proportional_fair")
    );
}
