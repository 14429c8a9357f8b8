//! RSRQ (TS 36.214 §5.1.3) as the network measures it, and Event A3 on RSRQ.

use celltcp_engine::SimDuration;
use celltcp_net::medium::Medium;
use celltcp_net::packet::{FlowId, NodeId};

use super::harness::*;
use super::support::*;
use crate::measurement::A3Config;
use crate::ran::{HandoverConfig, MeasurementConfig, TriggerQuantity};

/// One cell at 0, UE 1 at 50 m (free space: −26 dBm received, 69 dB above the noise over
/// 50 PRBs), idle or `saturated` with downlink for 2 s. Returns the filtered RSRQ at 2 s, dB.
fn lone_cell_rsrq(saturated: bool) -> f64 {
    let cfg = ran_config(
        vec![cell(0, 0.0)],
        vec![fixed_ue(NodeId(1), 0, 50.0)],
        HandoverConfig::default(),
    );
    let mut h = Harness::build(cfg);
    if saturated {
        let interval = interval_at(SATURATING_BPS);
        h.cbr(
            NodeId(1),
            FlowId(0),
            PACKET_BYTES,
            interval,
            ms(0),
            ms(2000),
        );
    }
    h.run_until(ms(2000));
    assert!(h.ran.errors().is_empty(), "{:?}", h.ran.errors());
    let rsrq = h.ran.filtered_rsrq_db(NodeId(1), 0).expect("measured");
    // The sampled figure is the filtered value.
    let mut figures = Vec::new();
    h.ran.sample(h.now, &mut figures);
    let sampled = figures
        .iter()
        .find(|(k, _)| k == "ue.1.rsrq.c0")
        .map(|&(_, v)| v);
    assert_eq!(sampled, Some(rsrq));
    assert!(h.ran.filtered_rsrq_db(NodeId(1), 1).is_none());
    assert!(h.ran.filtered_rsrq_db(NodeId(2), 0).is_none());
    rsrq
}

#[test]
fn a_lone_cell_spans_the_rsrq_bounds_with_its_load() {
    let idle = lone_cell_rsrq(false);
    let full = lone_cell_rsrq(true);
    eprintln!("lone cell RSRQ: {idle:.3} dB unloaded, {full:.3} dB saturated");
    // Unloaded: only the 2 reference-signal REs of 12 carry power, RSRQ = 1/2.
    assert!((idle - 10.0 * 0.5f64.log10()).abs() < 1e-3, "{idle}");
    assert!((idle + 3.01).abs() < 0.01);
    // Fully loaded: all 12 REs, RSRQ = 1/12; the filter still remembers the first, unloaded
    // tick by a factor (1 − a')^49 ≈ 1e-3.
    assert!(
        (full - 10.0 * (1.0f64 / 12.0).log10()).abs() < 0.1,
        "{full}"
    );
    assert!((full + 10.79).abs() < 0.1);
}

/// The filtered RSRQ of cell 0 at UE 1 (200 m) after 2 s of [`loaded_neighbour`] with
/// `rate_bps` of downlink in cell 1, dB.
fn rsrq_beside_a_loaded_neighbour(rate_bps: f64, coupled: bool) -> f64 {
    let h = loaded_neighbour(rate_bps, coupled, ms(2000));
    h.ran.filtered_rsrq_db(NodeId(1), 0).expect("measured")
}

#[test]
fn rsrq_falls_as_the_neighbours_load_rises() {
    let rates = [0.0, 5e6, 20e6, SATURATING_BPS];
    let rsrq: Vec<f64> = rates
        .iter()
        .map(|&r| rsrq_beside_a_loaded_neighbour(r, false))
        .collect();
    eprintln!("RSRQ of cell 0 at 200 m vs cell 1's rate {rates:?}: {rsrq:.3?} dB");
    // Both idle: RSRQ = P0 / (2·(P0 + P1)), P1/P0 = (200/300)² in free space.
    let ratio = (200.0f64 / 300.0).powi(2);
    let idle = 10.0 * (1.0 / (2.0 * (1.0 + ratio))).log10();
    assert!((rsrq[0] - idle).abs() < 1e-3, "{} vs {idle}", rsrq[0]);
    assert!(rsrq.windows(2).all(|w| w[1] < w[0] - 0.1), "{rsrq:?}");
    // Neighbour saturated: RSRQ = P0 / (2·P0 + 12·P1).
    let full = 10.0 * (1.0 / (2.0 + 12.0 * ratio)).log10();
    assert!((rsrq[3] - full).abs() < 0.1, "{} vs {full}", rsrq[3]);
    // The loads are the cells' own PRB use with or without interference coupling.
    let coupled = rsrq_beside_a_loaded_neighbour(20e6, true);
    assert!((coupled - rsrq[2]).abs() < 1e-9, "{coupled} vs {}", rsrq[2]);
}

/// The [`drive`] with A3 at offset 0, hysteresis 1 dB and 256 ms to trigger on `quantity`.
fn drive_on(quantity: TriggerQuantity) -> Harness {
    let a3 = A3Config {
        offset_db: 0.0,
        hysteresis_db: 1.0,
        time_to_trigger: SimDuration::from_ms(256),
    };
    let measurement = MeasurementConfig {
        trigger_quantity: quantity,
        ..MeasurementConfig::default()
    };
    drive(a3, measurement)
}

#[test]
fn a3_on_rsrq_hands_over_past_the_midpoint() {
    let h = drive_on(TriggerQuantity::Rsrq);
    let r = the_one_a3_handover(&h);
    assert_eq!(h.ran.serving_cell(DRIVER), Some(1));
    // Mn − Hys > Ms: cell 1 is 1 dB better at x = 1000 / (1 + 10^(−1/20)) = 528.8 m; the
    // decision follows by the time to trigger, the filter's lag and a tick (as with RSRP).
    let threshold = 1000.0 / (1.0 + 10f64.powf(-1.0 / 20.0));
    let x_decision = x_at(r.decision);
    eprintln!("A3 on RSRQ: threshold {threshold:.1} m, decision at x = {x_decision:.1} m");
    assert!(x_decision > threshold + 8.0, "{x_decision}");
    assert!(x_decision < threshold + 25.0, "{x_decision}");
    // Same carrier, same noise: both cells' RSRQ share the RSSI, so their difference is the
    // RSRP difference, and so is that of the (linear) layer-3 filter's outputs.
    let on_rsrp = drive_on(TriggerQuantity::Rsrp);
    assert_eq!(on_rsrp.records()[0].decision, r.decision);
}

/// The filtered SS-RSRQ (TS 38.215 §5.1.3) of NR cell 0 at UE 1 (200 m) after 2 s of
/// [`loaded_neighbour_between`] two [`nr_cell`]s with `rate_bps` of downlink in cell 1, dB,
/// with cell 1's PRB load of the last period and the filtered SS-RSRPs of both cells at UE 1.
fn nr_rsrq_beside_a_loaded_neighbour(rate_bps: f64) -> (f64, f64, [f64; 2]) {
    let cells = vec![nr_cell(0, 0.0), nr_cell(1, 500.0)];
    let h = loaded_neighbour_between(cells, rate_bps, false, ms(2000));
    let rsrq = h.ran.filtered_rsrq_db(NodeId(1), 0).expect("measured");
    let rsrp = [0, 1].map(|c| h.ran.filtered_rsrp_dbm(NodeId(1), c).expect("measured"));
    (rsrq, h.ran.cell_loads[1], rsrp)
}

/// SS-RSRQ at 200 m from NR cell 0 and 300 m from NR cell 1 (free space at 3.5 GHz, 46 dBm,
/// 51 RBs: SS-RSRP −71.23 and −74.75 dBm per RE), hand-computed: RSSI over the SS/PBCH block's
/// 20 RBs and 4 symbols = 207.5 × (P0 + P1) + 240 × N_RE, N_RE the noise per RE (−120.23 dBm
/// at NF 9 dB over 30 kHz), so SS-RSRQ = 20 P0 / RSSI = −11.757 dB at both loads of cell 1
/// (the noise moves it by 6e-5 dB). The LTE form, (2 + 10·load)/12 of each cell's REs, gives
/// these cells P0 / (2·(P0 + P1)) = −4.61 dB idle and P0 / (2·P0 + 12·P1) = −8.65 dB with the
/// neighbour saturated.
#[test]
fn an_nr_cells_ss_rsrq_is_the_ssb_formula_at_any_neighbour_load() {
    let (idle, idle_load, rsrp) = nr_rsrq_beside_a_loaded_neighbour(0.0);
    let (full, full_load, rsrp_full) = nr_rsrq_beside_a_loaded_neighbour(200e6);
    eprintln!(
        "NR SS-RSRQ of cell 0 at 200 m: {idle:.4} dB with cell 1 at load {idle_load:.3}, \
         {full:.4} dB at load {full_load:.3}; SS-RSRP {rsrp:.3?} dBm"
    );
    assert_eq!(idle_load, 0.0);
    assert!(full_load > 0.95, "{full_load}");
    assert_eq!(rsrp, rsrp_full);
    // Free space: 46 − 10·log10(12 × 51) − (20·log10(200) + 20·log10(3.5e9) − 147.55).
    let fspl = |d: f64| 20.0 * d.log10() + 20.0 * 3.5e9f64.log10() - 147.55;
    let p0 = 46.0 - 10.0 * 612.0f64.log10() - fspl(200.0);
    assert!((rsrp[0] - p0).abs() < 0.01, "{} vs {p0}", rsrp[0]);
    assert!((rsrp[0] - rsrp[1] - 20.0 * 1.5f64.log10()).abs() < 1e-9);
    let mw = |dbm: f64| 10f64.powf(dbm / 10.0);
    let n_re = -174.0 + 10.0 * 30e3f64.log10() + 9.0;
    let rssi = 207.5 * (mw(rsrp[0]) + mw(rsrp[1])) + 240.0 * mw(n_re);
    let expected = 10.0 * (20.0 * mw(rsrp[0]) / rssi).log10();
    assert!((expected + 11.757).abs() < 1e-3, "{expected}");
    assert!((idle - expected).abs() < 1e-9, "{idle} vs {expected}");
    assert!((full - expected).abs() < 1e-9, "{full} vs {expected}");
}

/// The [`drive_on`] between two [`nr_cell`]s.
fn nr_drive_on(quantity: TriggerQuantity) -> Harness {
    let a3 = A3Config {
        offset_db: 0.0,
        hysteresis_db: 1.0,
        time_to_trigger: SimDuration::from_ms(256),
    };
    let measurement = MeasurementConfig {
        trigger_quantity: quantity,
        ..MeasurementConfig::default()
    };
    drive_between(vec![nr_cell(0, 0.0), nr_cell(1, 1000.0)], a3, measurement)
}

/// A3 on SS-RSRQ between NR cells: both cells' SS-RSRQ divide by the same RSSI (their blocks
/// share the 20 RBs and 4 symbols), so Mn − Ms is the SS-RSRP difference and the UE is handed
/// over where SS-RSRP hands it over — 1 dB past the midpoint at x = 528.8 m, then the time to
/// trigger, the filter's lag and a tick — with cell 1's SS-RSRQ above cell 0's by that
/// difference at the decision.
#[test]
fn a3_on_ss_rsrq_hands_over_where_the_ssb_formula_says() {
    let h = nr_drive_on(TriggerQuantity::Rsrq);
    let r = the_one_a3_handover(&h);
    assert_eq!(h.ran.serving_cell(DRIVER), Some(1));
    let threshold = 1000.0 / (1.0 + 10f64.powf(-1.0 / 20.0));
    let x_decision = x_at(r.decision);
    eprintln!("A3 on NR SS-RSRQ: threshold {threshold:.1} m, decision at x = {x_decision:.1} m");
    assert!(x_decision > threshold + 8.0, "{x_decision}");
    assert!(x_decision < threshold + 25.0, "{x_decision}");
    let on_rsrp = nr_drive_on(TriggerQuantity::Rsrp);
    assert_eq!(on_rsrp.records()[0].decision, r.decision);
    // At the end of the drive (x = 900 m) the filtered figures keep the relation: the
    // SS-RSRQ difference is the SS-RSRP difference, each SS-RSRQ 20 / 207.5 of its share.
    let rsrq = [0, 1].map(|c| h.ran.filtered_rsrq_db(DRIVER, c).expect("measured"));
    let rsrp = [0, 1].map(|c| h.ran.filtered_rsrp_dbm(DRIVER, c).expect("measured"));
    eprintln!("at x = 900 m: SS-RSRQ {rsrq:.3?} dB, SS-RSRP {rsrp:.3?} dBm");
    assert!(((rsrq[1] - rsrq[0]) - (rsrp[1] - rsrp[0])).abs() < 1e-9);
    assert!(rsrq[1] < 10.0 * (20.0f64 / 207.5).log10());
    assert!(
        rsrq[1] > 10.0 * (20.0f64 / 207.5).log10() - 0.1,
        "{}",
        rsrq[1]
    );
}
