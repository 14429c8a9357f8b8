//! RSRQ (TS 36.214 §5.1.3) as the network measures it, and Event A3 on RSRQ.

use celltcp_engine::SimDuration;
use celltcp_net::handover::{HandoverCause, HandoverResult};
use celltcp_net::medium::Medium;

use super::harness::*;
use crate::channel::Position;
use crate::measurement::A3Config;
use crate::mobility::MobilityModel;
use crate::ran::{HandoverConfig, MeasurementConfig, RanUe, TriggerQuantity};

/// 80 Mbit/s of 1500-byte packets: more than a 50-PRB cell carries, so every PRB of every TTI
/// is used.
fn saturating_interval() -> SimDuration {
    SimDuration::from_secs_f64(1500.0 * 8.0 / 80e6)
}

/// One cell at 0, UE 1 at 50 m (free space: −26 dBm received, 69 dB above the noise over
/// 50 PRBs), idle or `saturated` with downlink for 2 s. Returns the filtered RSRQ at 2 s, dB.
fn lone_cell_rsrq(saturated: bool) -> f64 {
    let cfg = ran_config(
        vec![cell(0, 0.0)],
        vec![fixed_ue(1, 0, 50.0)],
        HandoverConfig::default(),
    );
    let mut h = Harness::build(cfg);
    if saturated {
        h.cbr(1, 0, 1500, saturating_interval(), ms(0), ms(2000));
    }
    h.run_until(ms(2000));
    assert!(h.ran.errors().is_empty(), "{:?}", h.ran.errors());
    let rsrq = h.ran.filtered_rsrq_db(1, 0).expect("measured");
    // The sampled figure is the filtered value.
    let mut figures = Vec::new();
    h.ran.sample(h.now, &mut figures);
    let sampled = figures
        .iter()
        .find(|(k, _)| k == "ue.1.rsrq.c0")
        .map(|&(_, v)| v);
    assert_eq!(sampled, Some(rsrq));
    assert!(h.ran.filtered_rsrq_db(1, 1).is_none());
    assert!(h.ran.filtered_rsrq_db(2, 0).is_none());
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

/// Equal cells at 0 and 500 m; UE 1 at 200 m served by cell 0 without traffic, UE 2 at 480 m
/// in cell 1 with `rate_bps` of downlink. Returns the filtered RSRQ of cell 0 at UE 1 at 2 s.
fn rsrq_beside_a_loaded_neighbour(rate_bps: f64, coupled: bool) -> f64 {
    let mut cfg = ran_config(
        vec![cell(0, 0.0), cell(1, 500.0)],
        vec![fixed_ue(1, 0, 200.0), fixed_ue(2, 1, 480.0)],
        HandoverConfig::default(),
    );
    cfg.coupled_interference = coupled;
    let mut h = Harness::build(cfg);
    if rate_bps > 0.0 {
        let interval = SimDuration::from_secs_f64(1500.0 * 8.0 / rate_bps);
        h.cbr(2, 0, 1500, interval, ms(0), ms(2000));
    }
    h.run_until(ms(2000));
    assert!(h.ran.errors().is_empty(), "{:?}", h.ran.errors());
    h.ran.filtered_rsrq_db(1, 0).expect("measured")
}

#[test]
fn rsrq_falls_as_the_neighbours_load_rises() {
    let rates = [0.0, 5e6, 20e6, 80e6];
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

const SPEED_MPS: f64 = 120.0 / 3.6;

/// Cells at 0 and 1000 m; UE 1 drives from 100 m to 900 m at 120 km/h with a light downlink,
/// A3 with offset 0, hysteresis 1 dB and 256 ms to trigger on `quantity`.
fn drive(quantity: TriggerQuantity) -> Harness {
    let ue = RanUe {
        node: 1,
        serving: 0,
        mobility: MobilityModel::Linear {
            start: Position::new(100.0, 0.0),
            velocity_mps: (SPEED_MPS, 0.0),
            depart: ms(0),
        },
    };
    let a3 = A3Config {
        offset_db: 0.0,
        hysteresis_db: 1.0,
        time_to_trigger: SimDuration::from_ms(256),
    };
    let mut cfg = ran_config(
        vec![cell(0, 0.0), cell(1, 1000.0)],
        vec![ue],
        HandoverConfig {
            a3: Some(a3),
            ..HandoverConfig::default()
        },
    );
    cfg.measurement = MeasurementConfig {
        trigger_quantity: quantity,
        ..MeasurementConfig::default()
    };
    let mut h = Harness::build(cfg);
    h.cbr(1, 0, 1500, SimDuration::from_ms(20), ms(0), ms(24_000));
    h.run_until(ms(24_000));
    assert!(h.ran.errors().is_empty(), "{:?}", h.ran.errors());
    h
}

#[test]
fn a3_on_rsrq_hands_over_past_the_midpoint() {
    let h = drive(TriggerQuantity::Rsrq);
    let r = h.records();
    assert_eq!(r.len(), 1, "{r:?}");
    let r = &r[0];
    assert_eq!(r.cause, HandoverCause::A3);
    assert_eq!(r.result, HandoverResult::Completed);
    assert_eq!((r.source, r.target), (ENB0, ENB0 + 1));
    assert_eq!(h.ran.serving_cell(1), Some(1));
    // Mn − Hys > Ms: cell 1 is 1 dB better at x = 1000 / (1 + 10^(−1/20)) = 528.8 m; the
    // decision follows by the time to trigger, the filter's lag and a tick (as with RSRP).
    let threshold = 1000.0 / (1.0 + 10f64.powf(-1.0 / 20.0));
    let x_decision = 100.0 + SPEED_MPS * r.decision.as_secs_f64();
    eprintln!("A3 on RSRQ: threshold {threshold:.1} m, decision at x = {x_decision:.1} m");
    assert!(x_decision > threshold + 8.0, "{x_decision}");
    assert!(x_decision < threshold + 25.0, "{x_decision}");
    // Same carrier, same noise: both cells' RSRQ share the RSSI, so their difference is the
    // RSRP difference, and so is that of the (linear) layer-3 filter's outputs.
    let on_rsrp = drive(TriggerQuantity::Rsrp);
    assert_eq!(on_rsrp.records()[0].decision, r.decision);
}
