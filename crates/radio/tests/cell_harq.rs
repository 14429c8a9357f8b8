//! HARQ at a fixed SINR: residual block error rate after maxTx transmissions, without soft
//! combining (BLER^maxTx) and with chase combining (the product of the BLERs at the combined
//! SINRs), and the HARQ timing (feedback at +4, retransmission from +8).

mod common;

use celltcp_net::packet::NodeId;
use celltcp_radio::cell::{CellRadioConfig, HarqCombining, LteCell, LteCellConfig};
use celltcp_radio::mac::HarqConfig;
use celltcp_radio::phy::{BlerModel, Mcs};
use common::*;

const MCS: u8 = 16;

/// Runs a full-buffer UE for `seconds` at the SINR where the MCS has BLER `bler`; returns
/// (first transmissions, retransmissions, residual failures, the cell).
fn run(
    bler: f64,
    combining: HarqCombining,
    max_tx: u8,
    seconds: f64,
    seed: u64,
) -> (u64, u64, u64, LteCell) {
    let cfg = LteCellConfig {
        fixed_mcs: Some(Mcs::new(MCS).unwrap()),
        harq: HarqConfig {
            max_transmissions: max_tx,
            ..HarqConfig::default()
        },
        trace_series: true,
        keys: CellRadioConfig {
            harq_combining: combining,
            ..fixed_sinr_cell(sinr_for_bler(MCS, bler)).keys
        },
        ..fixed_sinr_cell(sinr_for_bler(MCS, bler))
    };
    let cell = LteCell::new(cfg, vec![ue_at(NodeId(1), 0.5, 0.0)], seed, 0).unwrap();
    let mut h = Harness::new(cell);
    let end = secs(seconds);
    h.drive(&[Cbr::new(NodeId(1), 20e6, 1500, end)], end);
    let r = h.cell.ue_report(NodeId(1), end).unwrap();
    let first = r.harq_transmissions - r.harq_retransmissions;
    (
        first,
        r.harq_retransmissions,
        r.harq_residual_failures,
        h.cell,
    )
}

/// Binomial check: `k` of `n` within 4 standard deviations of `n·p`.
fn within_4_sigma(k: u64, n: u64, p: f64) -> bool {
    let (k, n) = (k as f64, n as f64);
    (k - n * p).abs() <= 4.0 * (n * p * (1.0 - p)).sqrt()
}

#[test]
fn residual_bler_without_combining_is_bler_to_the_max_tx() {
    let (first, retx, residual, cell) = run(0.3, HarqCombining::None, 4, 20.0, 1);
    let expected = 0.3f64.powi(4);
    let measured = residual as f64 / first as f64;
    let tx_per_block = (first + retx) as f64 / first as f64;
    eprintln!(
        "BLER 0.3, maxTx 4, no combining: {first} blocks, residual {measured:.5} (0.3^4 = \
         {expected:.5}), {tx_per_block:.4} transmissions per block (1.417)"
    );
    assert!(
        within_4_sigma(residual, first, expected),
        "{residual} of {first}"
    );
    assert!((tx_per_block - 1.417).abs() < 0.02);
    // The SINR really is fixed: every traced TTI shows it.
    let t = cell.trace().unwrap();
    let s = sinr_for_bler(MCS, 0.3);
    assert!(t.sinr_db.iter().all(|x| (x - s).abs() < 1e-9));
}

#[test]
fn residual_bler_with_chase_combining_follows_the_combined_sinr() {
    // A first transmission that almost always fails (BLER 0.99); the second, combined with it,
    // is decoded at SINR + 3.01 dB.
    let bler = 0.99;
    let s = sinr_for_bler(MCS, bler);
    let m = BlerModel::default();
    // k equal transmissions combine to s + 10·log10(k) dB.
    let predicted: f64 = (1..=2)
        .map(|k| m.bler(Mcs::new(MCS).unwrap(), s + 10.0 * f64::from(k).log10()))
        .product();
    let (first, _, residual, _) = run(bler, HarqCombining::Chase, 2, 20.0, 2);
    let measured = residual as f64 / first as f64;
    eprintln!(
        "BLER 0.99, maxTx 2, chase combining: {first} blocks, residual {measured:.5} \
         (predicted {predicted:.5}; without combining 0.9801)"
    );
    assert!(
        within_4_sigma(residual, first, predicted),
        "{residual} of {first}"
    );
    let (first, _, residual, _) = run(bler, HarqCombining::None, 2, 5.0, 2);
    assert!(
        within_4_sigma(residual, first, bler * bler),
        "{residual} of {first}"
    );
}

#[test]
fn feedback_at_four_and_retransmission_from_eight() {
    // With BLER 1 every block fails; a block first sent in TTI t is retransmitted at
    // t + 8, t + 16, t + 24 and given up at its fourth NACK (t + 28).
    let (_, _, _, cell) = run(0.999_999, HarqCombining::None, 4, 0.2, 3);
    let t = cell.trace().unwrap();
    let first_tx: Vec<usize> = (0..t.len())
        .filter(|&i| t.harq_transmission[i] == 1)
        .collect();
    let i0 = first_tx[0];
    let t0 = t.time_ns[i0];
    for k in 2..=4u8 {
        let at = t0 + 8_000_000 * u64::from(k - 1);
        let row = (0..t.len())
            .find(|&i| t.time_ns[i] == at && t.n_prb[i] > 0)
            .unwrap();
        assert_eq!(t.harq_transmission[row], k);
    }
    // No process ever carries a fifth transmission.
    assert!(t.harq_transmission.iter().all(|&x| x <= 4));
    // Eight processes keep the UE busy in every TTI: TTI k carries transmission
    // (k div 8) mod 4 + 1 of the block on process k mod 8, and a process is free for a new
    // block 8 TTIs after its fourth transmission.
    let pattern: Vec<(u64, u8)> = (0..t.len())
        .filter(|&i| t.n_prb[i] > 0 && t.time_ns[i] < 64_000_000)
        .map(|i| (t.time_ns[i] / 1_000_000, t.harq_transmission[i]))
        .collect();
    let expected: Vec<(u64, u8)> = (0..64u64).map(|k| (k, ((k / 8) % 4 + 1) as u8)).collect();
    assert_eq!(pattern, expected);
    let r = cell.ue_report(NodeId(1), secs(0.2)).unwrap();
    assert!(r.harq_residual_failures > 0);
    assert_eq!(r.tb_bits_decoded, 0);
}
