//! Measurement-triggered handovers (Event A3) of a UE driving between two cells.

use celltcp_engine::SimDuration;
use celltcp_net::handover::HandoverResult;

use super::harness::*;
use super::support::*;
use crate::measurement::A3Config;
use crate::ran::MeasurementConfig;

/// The [`drive`] with A3 as `a3` and `error_std_db` of measurement error, dB.
fn drive_with(a3: A3Config, error_std_db: f64) -> Harness {
    let measurement = MeasurementConfig {
        error_std_db,
        ..MeasurementConfig::default()
    };
    drive(a3, measurement)
}

#[test]
fn one_handover_past_the_midpoint_by_offset_and_hysteresis() {
    let a3 = A3Config {
        offset_db: 3.0,
        hysteresis_db: 1.0,
        time_to_trigger: SimDuration::from_ms(256),
    };
    let h = drive_with(a3, 0.0);
    let r = the_one_a3_handover(&h);
    // Entering condition Mn − Hys > Ms + Off: in free space Ms − Mn = 20·log10(dn/ds), so the
    // neighbour is 4 dB better at x = 1000 / (1 + 10^(−4/20)) = 613.2 m. The report comes one
    // time to trigger later (8.5 m at 33.3 m/s), behind the layer-3 filter's lag (a' = 0.129
    // per 40 ms tick: about (1 − a')/a' = 6.7 ticks ≈ 9 m) and a tick's quantisation.
    let threshold = 1000.0 / (1.0 + 10f64.powf(-4.0 / 20.0));
    let x_decision = x_at(r.decision);
    eprintln!("A3 threshold {threshold:.1} m, decision at x = {x_decision:.1} m");
    assert!(x_decision > threshold + 8.0, "{x_decision}");
    assert!(x_decision < threshold + 25.0, "{x_decision}");
    // The report left at a tick: decision = tick + measurement report + decision latency.
    let tick = r.decision.as_ns() - 7_000_000;
    assert_eq!(tick % 40_000_000, 0);
    let chart: Vec<&str> = h.events().iter().map(|e| e.message).collect();
    assert_eq!(chart[0], "measurement_report");
    assert_eq!(chart[1], "handover_decision");
    assert_eq!(h.ran.serving_cell(DRIVER), Some(1));
}

#[test]
fn hysteresis_prevents_ping_pong_under_measurement_noise() {
    // Without offset, hysteresis or time to trigger, 2 dB of measurement noise around the
    // midpoint makes the UE bounce between the cells.
    let bare = A3Config {
        offset_db: 0.0,
        hysteresis_db: 0.0,
        time_to_trigger: SimDuration::ZERO,
    };
    let bouncing = drive_with(bare, 2.0);
    let n_bare = bouncing.records().len();
    // With 3 dB of hysteresis and 256 ms to trigger (ns-3's A3 defaults), one handover.
    let steady = drive_with(A3Config::default(), 2.0);
    let r = steady.records();
    eprintln!("handovers: {n_bare} without hysteresis, {} with", r.len());
    assert!(n_bare >= 3, "{n_bare}");
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0].result, HandoverResult::Completed);
    // Every handover, bouncing or not, completed and left the UE attached.
    assert!(bouncing
        .records()
        .iter()
        .all(|r| r.result == HandoverResult::Completed));
}

#[test]
fn the_same_seed_gives_the_same_handovers() {
    let a = drive_with(A3Config::default(), 2.0);
    let b = drive_with(A3Config::default(), 2.0);
    assert_eq!(a.records(), b.records());
    assert_eq!(a.events(), b.events());
    assert_eq!(a.delivered, b.delivered);
}
