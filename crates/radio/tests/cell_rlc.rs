//! RLC over the lossy HARQ channel: AM delivers every SDU exactly once and in order; at
//! maxRetxThreshold AM declares radio link failure or discards, as configured; UM loses
//! what HARQ loses but never reorders or duplicates.

mod common;

use celltcp_net::packet::NodeId;
use celltcp_radio::cell::{
    default_rlc_am, CellRadioConfig, HarqCombining, LteCell, LteCellConfig, RlcModeConfig,
};
use celltcp_radio::mac::HarqConfig;
use celltcp_radio::phy::Mcs;
use celltcp_radio::rlc::{BufferLimit, MaxRetxAction, RlcAmConfig, RlcUmConfig};
use common::*;

const MCS: u8 = 16;

fn lossy_cell(bler: f64, max_tx: u8, rlc: RlcModeConfig) -> LteCellConfig {
    LteCellConfig {
        fixed_mcs: Some(Mcs::new(MCS).unwrap()),
        harq: HarqConfig {
            max_transmissions: max_tx,
            ..HarqConfig::default()
        },
        rlc,
        keys: CellRadioConfig {
            harq_combining: HarqCombining::None,
            ..fixed_sinr_cell(sinr_for_bler(MCS, bler)).keys
        },
        ..fixed_sinr_cell(sinr_for_bler(MCS, bler))
    }
}

/// Sends 5 Mbit/s of 1200-byte packets for `seconds`, then lets the cell drain for 2 s.
fn run(cfg: LteCellConfig, seconds: f64, seed: u64) -> Harness {
    let cell = LteCell::new(cfg, vec![ue_at(NodeId(1), 0.5, 0.0)], seed, 0).unwrap();
    let mut h = Harness::new(cell);
    let stop = secs(seconds);
    h.drive(&[Cbr::new(NodeId(1), 5e6, 1200, stop)], secs(seconds + 2.0));
    h
}

fn am(max_retx: Option<u32>, action: MaxRetxAction) -> RlcModeConfig {
    RlcModeConfig::Am(RlcAmConfig {
        max_retx_threshold: max_retx,
        on_max_retx: action,
        tx_buffer: BufferLimit::Unlimited,
        ..default_rlc_am()
    })
}

#[test]
fn am_delivers_every_sdu_exactly_once_in_order_at_30_percent_bler() {
    for (max_tx, seed) in [(1u8, 1u64), (4, 2)] {
        let h = run(
            lossy_cell(0.3, max_tx, am(None, MaxRetxAction::RadioLinkFailure)),
            5.0,
            seed,
        );
        let sent: Vec<u64> = h.sent_at.iter().map(|&(uid, _)| uid).collect();
        let got = h.delivered_to(NodeId(1));
        let r = h.cell.ue_report(NodeId(1), h.now).unwrap();
        eprintln!(
            "BLER 0.3, maxTx {max_tx}: {} SDUs sent, {} delivered, HARQ residual failures {}, \
             RLC retransmissions {}, mean queueing delay {:.1} ms",
            sent.len(),
            got.len(),
            r.harq_residual_failures,
            r.rlc_retransmissions,
            r.queueing_delay_mean_s * 1e3
        );
        assert!(
            r.harq_residual_failures > 0,
            "the test must exercise RLC ARQ"
        );
        assert!(r.rlc_retransmissions > 0);
        assert_eq!(got, sent, "maxTx {max_tx}");
        assert!(!r.radio_link_failure);
        assert!(h.dropped.is_empty());
    }
}

#[test]
fn radio_link_failure_at_max_retx_threshold() {
    // Nothing is ever decoded: every AMD PDU is retransmitted on t-PollRetransmit expiry until
    // its RETX_COUNT reaches the threshold.
    let failing = |threshold| {
        let cfg = lossy_cell(0.999_999, 1, am(threshold, MaxRetxAction::RadioLinkFailure));
        run(cfg, 0.3, 3)
    };
    let h = failing(Some(2));
    let r = h.cell.ue_report(NodeId(1), h.now).unwrap();
    assert!(r.radio_link_failure);
    assert!(r.rlc_max_retx_reached >= 1);
    assert!(h.delivered_to(NodeId(1)).is_empty());
    let h = failing(None);
    assert!(
        !h.cell
            .ue_report(NodeId(1), h.now)
            .unwrap()
            .radio_link_failure
    );
}

#[test]
fn discard_at_max_retx_threshold_keeps_order_without_duplicates() {
    let cfg = lossy_cell(0.8, 1, am(Some(1), MaxRetxAction::Discard));
    let h = run(cfg, 3.0, 4);
    let r = h.cell.ue_report(NodeId(1), h.now).unwrap();
    let got = h.delivered_to(NodeId(1));
    eprintln!(
        "BLER 0.8, maxTx 1, maxRetxThreshold 1 (discard): {} sent, {} delivered, {} discarded",
        h.sent_at.len(),
        got.len(),
        r.rlc_discards
    );
    assert!(r.rlc_discards > 0);
    assert!(!got.is_empty());
    // Nothing is lost silently: every SDU not delivered was counted as discarded (an SDU may
    // be counted and still delivered when only its acknowledgement was lost).
    assert!(got.len() as u64 + r.rlc_discards >= h.sent_at.len() as u64);
    assert!(
        got.windows(2).all(|w| w[0] < w[1]),
        "in order, no duplicates"
    );
    assert!(got.len() < h.sent_at.len());
}

#[test]
fn um_loses_what_harq_loses_in_order() {
    let um = RlcModeConfig::Um(RlcUmConfig {
        tx_buffer: BufferLimit::Unlimited,
        ..RlcUmConfig::lte(10)
    });
    let h = run(lossy_cell(0.1, 1, um), 3.0, 5);
    let got = h.delivered_to(NodeId(1));
    let r = h.cell.ue_report(NodeId(1), h.now).unwrap();
    let delivered = got.len() as f64 / h.sent_at.len() as f64;
    eprintln!("UM, BLER 0.1, maxTx 1: delivered fraction {delivered:.4}");
    assert!(got.windows(2).all(|w| w[0] < w[1]));
    assert!(r.harq_residual_failures > 0);
    // A lost block takes the SDUs it carried (whole or in part) with it: 1 to 3 of them.
    assert!(delivered < 0.97 && delivered > 0.75, "{delivered}");
    assert_eq!(r.rlc_retransmissions, 0);
}
