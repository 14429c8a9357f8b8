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
