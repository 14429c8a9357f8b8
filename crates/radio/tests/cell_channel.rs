//! The channel seen through the cell: fading around the large-scale SINR, CQI reports that
//! the scheduler uses `cqi_delay_tti` after their measurement, and mobility.

mod common;

use celltcp_net::packet::NodeId;
use celltcp_radio::cell::{CellRadioConfig, LteCell, LteCellConfig, UeConfig};
use celltcp_radio::channel::{LogDistance, PathLossModel, Position};
use celltcp_radio::phy::Amc;
use common::*;

fn cell(fading: bool) -> LteCellConfig {
    LteCellConfig {
        pathloss: PathLossModel::LogDistance(LogDistance::new(40.0, 1.0, 3.5).unwrap()),
        trace_series: true,
        keys: CellRadioConfig {
            fading,
            ..LteCellConfig::lte_default("c", ENB).keys
        },
        ..LteCellConfig::lte_default("c", ENB)
    }
}

/// 30 km/h at 2 GHz: Doppler 55.6 Hz.
fn vehicle(node: NodeId, x_m: f64) -> UeConfig {
    UeConfig {
        node,
        position: Position::new(x_m, 0.0),
        speed_mps: 8.333,
    }
}

#[test]
fn fading_varies_the_sinr_around_the_large_scale_value_and_cqi_lags_by_the_delay() {
    let cfg = cell(true);
    let (period, delay) = (u64::from(cfg.cqi_period_tti), u64::from(cfg.cqi_delay_tti));
    let mut h = Harness::new(LteCell::new(cfg, vec![vehicle(NodeId(1), 300.0)], 3, 0).unwrap());
    let end = secs(20.0);
    h.drive(&[Cbr::new(NodeId(1), 40e6, 1500, end)], end);
    let large_scale = h.cell.ue_large_scale_sinr_db(NodeId(1)).unwrap();
    let t = h.cell.trace().unwrap();
    assert!(t.len() > 19_000, "active in every TTI");

    // Rayleigh power gain has mean 1 (0 dB) and a dB mean of −2.51 dB.
    let gains: Vec<f64> = t
        .sinr_db
        .iter()
        .map(|s| 10f64.powf((s - large_scale) / 10.0))
        .collect();
    let mean_gain = gains.iter().sum::<f64>() / gains.len() as f64;
    let mean_db = t.sinr_db.iter().map(|s| s - large_scale).sum::<f64>() / t.len() as f64;
    eprintln!("fading at 30 km/h: mean linear gain {mean_gain:.3}, mean {mean_db:.2} dB");
    assert!((mean_gain - 1.0).abs() < 0.1, "{mean_gain}");
    assert!((mean_db + 2.51).abs() < 0.5, "{mean_db}");

    // The CQI in use at TTI k is the report measured at the last report TTI m ≤ k − delay.
    let amc = Amc::default();
    let tti_row: std::collections::HashMap<u64, usize> = (0..t.len())
        .map(|i| (t.time_ns[i] / 1_000_000, i))
        .collect();
    let mut checked = 0;
    for i in 0..t.len() {
        let k = t.time_ns[i] / 1_000_000;
        if k < delay + period {
            continue;
        }
        let m = (k - delay) / period * period;
        if let Some(&j) = tti_row.get(&m) {
            assert_eq!(t.cqi[i], amc.cqi_for_sinr(t.sinr_db[j]).get(), "TTI {k}");
            checked += 1;
        }
    }
    assert!(checked > 19_000);
}

#[test]
fn without_fading_the_sinr_is_constant() {
    let mut h =
        Harness::new(LteCell::new(cell(false), vec![vehicle(NodeId(1), 300.0)], 3, 0).unwrap());
    h.drive(&[Cbr::new(NodeId(1), 40e6, 1500, secs(1.0))], secs(1.0));
    let large_scale = h.cell.ue_large_scale_sinr_db(NodeId(1)).unwrap();
    let t = h.cell.trace().unwrap();
    assert!(t.sinr_db.iter().all(|&s| s == large_scale));
}

#[test]
fn moving_away_lowers_the_cqi_after_the_report_delay() {
    let mut h =
        Harness::new(LteCell::new(cell(false), vec![ue_at(NodeId(1), 200.0, 0.0)], 3, 0).unwrap());
    h.drive(&[Cbr::new(NodeId(1), 40e6, 1500, secs(0.5))], secs(0.5));
    let near = h.cell.ue_cqi(NodeId(1)).unwrap().get();
    h.cell
        .set_ue_position(NodeId(1), Position::new(500.0, 0.0))
        .unwrap();
    assert_eq!(
        h.cell.ue_position(NodeId(1)).unwrap(),
        Position::new(500.0, 0.0)
    );
    assert_eq!(
        h.cell.ue_cqi(NodeId(1)).unwrap().get(),
        near,
        "nothing measured yet"
    );
    let sources = [Cbr {
        start: secs(0.5),
        ..Cbr::new(NodeId(1), 40e6, 1500, secs(1.0))
    }];
    h.drive(&sources, secs(1.0));
    let far = h.cell.ue_cqi(NodeId(1)).unwrap().get();
    eprintln!("CQI at 200 m: {near}, at 500 m: {far}");
    assert!(far + 3 <= near, "{near} → {far}");
}
