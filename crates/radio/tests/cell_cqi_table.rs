//! The CQI table of a cell: with TS 36.213 Table 7.2.3-2 (and MCS Table 7.1.7.1-1A) a UE in an
//! excellent channel reports CQI 15, is served at 256QAM and receives the largest single-layer
//! block of a 20 MHz carrier, 97 896 bits per TTI, where Table 7.2.3-1 stops at 64QAM and
//! 75 376 bits.

mod common;

use celltcp_net::packet::NodeId;
use celltcp_radio::cell::{CellRadioConfig, LteCell, LteCellConfig};
use celltcp_radio::phy::{BlerModel, CqiTable, Mcs};
use common::*;

/// IP packet size of the source, bytes.
const SDU: u32 = 1500;

fn cell_config(table: CqiTable) -> LteCellConfig {
    LteCellConfig {
        n_prb: 100,
        bler: BlerModel::from_shannon_bound_for(
            table,
            celltcp_radio::phy::bler::DEFAULT_SHANNON_ETA,
            celltcp_radio::phy::bler::DEFAULT_SNR_EFFICIENCY_DB,
            1.0,
        )
        .unwrap(),
        keys: CellRadioConfig {
            cqi_table: table,
            ..LteCellConfig::lte_default("c", ENB).keys
        },
        ..LteCellConfig::lte_default("c", ENB)
    }
}

/// PHY throughput of one UE with a full buffer 100 m from the eNB (free space: SINR ≈ 60 dB,
/// above every MCS's threshold), bits per second.
fn peak_phy_rate_bps(table: CqiTable) -> f64 {
    let duration = secs(2.0);
    let cell = LteCell::new(cell_config(table), vec![ue_at(NodeId(1), 100.0, 0.0)], 1, 0).unwrap();
    let mut h = Harness::new(cell);
    h.drive(&[Cbr::new(NodeId(1), 130e6, SDU, duration)], duration);
    let r = h.cell.ue_report(NodeId(1), duration).unwrap();
    assert_eq!(r.harq_retransmissions, 0, "{table:?}");
    r.phy_throughput_bps
}

#[test]
fn the_256qam_table_reaches_the_256qam_peak_rate() {
    let table1 = peak_phy_rate_bps(CqiTable::Table1);
    let table2 = peak_phy_rate_bps(CqiTable::Table2);
    eprintln!("peak PHY rate, 100 PRB: Table 7.2.3-1 {table1:.0} bit/s, 7.2.3-2 {table2:.0} bit/s");
    // One block of I_TBS 26 (MCS 28) or I_TBS 33 (MCS 27 of 7.1.7.1-1A) every 1 ms TTI, less
    // the TTIs before the first CQI report arrives.
    for (rate, tbs) in [(table1, 75_376.0), (table2, 97_896.0)] {
        let table_rate = tbs * 1000.0;
        assert!(
            (rate - table_rate).abs() / table_rate < 0.02,
            "{rate} vs {table_rate}"
        );
    }
}

#[test]
fn curves_of_another_table_and_a_missing_mcs_are_refused() {
    let mismatched = LteCellConfig {
        bler: BlerModel::default(),
        ..cell_config(CqiTable::Table2)
    };
    let e = mismatched.validate().unwrap_err().to_string();
    assert!(
        e.starts_with("cell.bler: curves of CQI table 7.2.3-1 is invalid"),
        "{e}"
    );
    let mcs28 = LteCellConfig {
        fixed_mcs: Some(Mcs::new(28).unwrap()),
        ..cell_config(CqiTable::Table2)
    };
    let e = mcs28.validate().unwrap_err().to_string();
    assert!(e.starts_with("cell.fixed_mcs: 28 is invalid"), "{e}");
    assert_eq!(cell_config(CqiTable::Table1).validate(), Ok(()));
}
