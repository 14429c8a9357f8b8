//! Dynamic blockage through the NR cell (`NrCellConfig::channel`): the blocked-time fraction and
//! blockage durations the cell's UE links measure over a long full-buffer run, against the
//! configured Markov means and against model B's standalone field. Run with `--nocapture` for
//! the numbers docs/nr.md quotes.

mod common;

use celltcp_engine::RngStream;
use celltcp_net::packet::NodeId;
use celltcp_radio::cell::{
    LteCell, LteCellConfig, NrBlockageConfig, NrBlockageKind, NrCellConfig, NrChannelConfig,
    NrChannelScenario, NrLos, RlcModeConfig,
};
use celltcp_radio::channel::Position;
use celltcp_radio::nr::blockage::{BlockageModelBConfig, BlockerField, BlockerKind, LinkEnd};
use celltcp_radio::nr::rlc::NrRlcUmConfig;
use common::*;

/// An NR cell of 1 ms slots (μ = 0, 5 MHz FDD at 3.5 GHz: 25 PRBs, a small carrier so that a
/// modest CBR source keeps the UE's buffer from emptying, and so the channel is queried in
/// every slot) with the mmWave channel `channel`.
fn cell(channel: NrChannelConfig) -> LteCellConfig {
    let nr = NrCellConfig {
        numerology: 0,
        bandwidth_mhz: 5,
        channel: Some(channel),
        ..NrCellConfig::default()
    };
    LteCellConfig {
        carrier_hz: 3.5e9,
        rlc: RlcModeConfig::NrUm(NrRlcUmConfig::default()),
        nr: Some(nr),
        ..LteCellConfig::lte_default("g", ENB)
    }
}

/// Runs a 30 Mbit/s CBR download (above the carrier's ≈ 18 Mbit/s) for `seconds` to a UE at
/// `ue`, returning the blockage its link recorded.
fn run(
    channel: NrChannelConfig,
    ue: (f64, f64),
    seconds: f64,
) -> celltcp_radio::cell::BlockageRecord {
    let cell = LteCell::new(cell(channel), vec![ue_at(NodeId(1), ue.0, ue.1)], 7, 0).unwrap();
    let mut h = Harness::new(cell);
    let end = secs(seconds);
    h.drive(&[Cbr::new(NodeId(1), 30e6, 1500, end)], end);
    h.cell.ue_blockage(NodeId(1)).unwrap().unwrap()
}

#[test]
fn markov_blockage_through_the_cell_has_the_configured_means() {
    // Means of 200 ms clear and 50 ms blocked: p = 0.05/0.25 = 0.2, one cycle per 0.25 s.
    let (a, b): (f64, f64) = (0.2, 0.05);
    let channel = NrChannelConfig {
        los: NrLos::Los,
        shadowing: false,
        blockage: NrBlockageConfig {
            kind: NrBlockageKind::Markov,
            mean_los: celltcp_engine::SimDuration(200_000_000),
            mean_blocked: celltcp_engine::SimDuration(50_000_000),
            ..NrBlockageConfig::default()
        },
        ..NrChannelConfig::default()
    };
    let r = run(channel, (50.0, 0.0), 250.0);
    let n = r.events as f64;
    let observed_s = r.observed_ns as f64 * 1e-9;
    let fraction = r.blocked_fraction().unwrap();
    let mean_blocked = r.blocked_ns as f64 * 1e-9 / n;
    // The UE was queried in every 1 ms slot of the run.
    assert!((observed_s - 250.0).abs() < 0.01, "{observed_s}");
    // Over n cycles of exponential sojourns X (clear, mean a) and Y (blocked, mean b), the
    // fraction ΣY/Σ(X + Y) has standard deviation sqrt(((1 − p)²b² + p²a²)/n)/(a + b) (delta
    // method), and the mean blocked sojourn b/sqrt(n). Tolerance: 3σ of the n measured.
    let p = b / (a + b);
    let sd_fraction = (((1.0 - p) * b).powi(2) + (p * a).powi(2)).sqrt() / n.sqrt() / (a + b);
    let sd_mean = b / n.sqrt();
    eprintln!(
        "Markov through the cell, 250 s of 1 ms slots: {} blockage events, blocked fraction \
         {fraction:.4} (expected {p:.4} ± {:.4}), mean blocked {mean_blocked:.4} s (expected \
         {b} ± {:.4})",
        r.events,
        3.0 * sd_fraction,
        3.0 * sd_mean
    );
    // About 250 / 0.25 = 1000 cycles.
    assert!((850.0..1150.0).contains(&n), "{n}");
    assert!(
        (fraction - p).abs() < 3.0 * sd_fraction,
        "{fraction} vs {p}"
    );
    assert!(
        (mean_blocked - b).abs() < 3.0 * sd_mean,
        "{mean_blocked} vs {b}"
    );
}

#[test]
fn model_b_through_the_cell_matches_the_standalone_field() {
    // InH-Office (h_BS 3 m, h_UT 1 m), a 30 m link, 0.2 people per m² in 40 × 20 m.
    let (area_min, area_max) = (Position::new(-5.0, -10.0), Position::new(35.0, 10.0));
    let channel = NrChannelConfig {
        scenario: NrChannelScenario::InhOffice,
        los: NrLos::Los,
        shadowing: false,
        blockage: NrBlockageConfig {
            kind: NrBlockageKind::ModelB,
            density_per_m2: 0.2,
            area: Some([[area_min.x_m, area_min.y_m], [area_max.x_m, area_max.y_m]]),
            ..NrBlockageConfig::default()
        },
        ..NrChannelConfig::default()
    };
    let seconds = 300.0;
    let r = run(channel, (30.0, 0.0), seconds);
    let fraction = r.blocked_fraction().unwrap();

    // The library on its own: the same field (the UE's `/blockers` stream), sampled at the
    // same 1 ms slots, each interval counted in the state at its start.
    let config = BlockageModelBConfig {
        blocker: BlockerKind::HUMAN,
        density_per_m2: 0.2,
        area_min,
        area_max,
    };
    let field = BlockerField::new(
        config,
        3.5e9,
        &mut RngStream::new(7, 0, "cell/g/ue/1/blockers"),
    )
    .unwrap();
    let bs = LinkEnd {
        position: Position::new(0.0, 0.0),
        height_m: 3.0,
    };
    let ue = LinkEnd {
        position: Position::new(30.0, 0.0),
        height_m: 1.0,
    };
    let slots = (seconds * 1000.0) as u64;
    let (mut blocked_slots, mut onsets, mut prev) = (0u64, 0u64, false);
    for k in 0..slots {
        let b = field.is_blocked(k * 1_000_000, bs, ue);
        blocked_slots += u64::from(b);
        onsets += u64::from(b && (k == 0 || !prev));
        prev = b;
    }
    let standalone = blocked_slots as f64 / slots as f64;
    let geometric = field.expected_blocked_fraction(bs, ue);
    eprintln!(
        "model B through the cell, {seconds} s: blocked fraction {fraction:.4}, {} events; \
         standalone {standalone:.4}, {onsets} events; geometric expectation {geometric:.4}",
        r.events
    );
    // The cell's UE link queries the same field at the same times: the same figures, to the
    // last slot (the cell's last query is in the final slot, counted up to it).
    assert!(
        (fraction - standalone).abs() < 2e-5,
        "{fraction} vs {standalone}"
    );
    assert!(r.events.abs_diff(onsets) <= 1, "{} vs {onsets}", r.events);
    // And both near the geometric law (docs/nr.md: 10 % over 3000 s standalone).
    assert!(
        (fraction / geometric - 1.0).abs() < 0.25,
        "{fraction} vs {geometric}"
    );
}
