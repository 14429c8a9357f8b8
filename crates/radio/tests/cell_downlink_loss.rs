//! Receive errors at the UE (`LteCellConfig::downlink_loss`): a loss model applied to every IP
//! packet the cell hands to a UE node, after RLC and PDCP. The radio below does not see it —
//! the same transport blocks, HARQ and RLC retransmissions with or without the model — and a
//! UE without a model is untouched.

mod common;

use std::collections::BTreeMap;

use celltcp_net::loss::AnyLossModel;
use celltcp_net::medium::Medium;
use celltcp_net::packet::NodeId;
use celltcp_net::queue::DropCause;
use celltcp_radio::cell::{CellRadioConfig, HarqCombining, LteCell, LteCellConfig};
use celltcp_radio::mac::HarqConfig;
use celltcp_radio::pdcp::PdcpConfig;
use celltcp_radio::phy::Mcs;
use common::*;

/// Two UEs at a SINR where HARQ fails often enough for RLC AM to retransmit: MCS 16 at BLER
/// 0.3 per transmission, no soft combining, 2 transmissions (9 % residual failures).
fn cell(losses: &[(NodeId, AnyLossModel)], pdcp_reordering: bool) -> LteCellConfig {
    LteCellConfig {
        fixed_mcs: Some(Mcs::new(16).unwrap()),
        harq: HarqConfig {
            max_transmissions: 2,
            ..HarqConfig::default()
        },
        downlink_loss: losses.iter().cloned().collect(),
        pdcp: PdcpConfig {
            reordering: pdcp_reordering,
            ..PdcpConfig::default()
        },
        keys: CellRadioConfig {
            harq_combining: HarqCombining::None,
            ..fixed_sinr_cell(sinr_for_bler(16, 0.3)).keys
        },
        ..fixed_sinr_cell(sinr_for_bler(16, 0.3))
    }
}

/// 2 Mbit/s of 1000-byte packets to each of UEs 1 and 2 for 5 s, then 2 s to drain.
fn run(cfg: LteCellConfig) -> Harness {
    let ues = vec![ue_at(NodeId(1), 0.5, 0.0), ue_at(NodeId(2), 0.0, 0.5)];
    let mut h = Harness::new(LteCell::new(cfg, ues, 11, 0).unwrap());
    let stop = secs(5.0);
    h.drive(
        &[
            Cbr::new(NodeId(1), 2e6, 1000, stop),
            Cbr::new(NodeId(2), 2e6, 1000, stop),
        ],
        secs(7.0),
    );
    h
}

/// Uids of the packets dropped for `cause`.
fn dropped(h: &Harness, cause: DropCause) -> Vec<u64> {
    h.dropped
        .iter()
        .filter(|(_, _, c)| *c == cause)
        .map(|&(_, uid, _)| uid)
        .collect()
}

/// Compares a run with a Bernoulli `p` model on UE 1 against the same run without it.
fn compare_with_and_without(p: f64, pdcp_reordering: bool) {
    let model = AnyLossModel::bernoulli(p).unwrap();
    let without = run(cell(&[], pdcp_reordering));
    let with = run(cell(&[(NodeId(1), model)], pdcp_reordering));
    let lost = dropped(&with, DropCause::LinkLoss);
    let (r0, r1) = (
        without.cell.ue_report(NodeId(1), without.now).unwrap(),
        with.cell.ue_report(NodeId(1), with.now).unwrap(),
    );
    let n = without.delivered_to(NodeId(1)).len() as f64;
    let ratio = lost.len() as f64 / n;
    let sigma = (p * (1.0 - p) / n).sqrt();
    eprintln!(
        "UE 1, p {p}, PDCP reordering {pdcp_reordering}: {} of {n} delivered packets lost \
         ({ratio:.4}, 4σ = {:.4}); HARQ retransmissions {}, RLC retransmissions {}",
        lost.len(),
        4.0 * sigma,
        r1.harq_retransmissions,
        r1.rlc_retransmissions
    );
    assert!(r0.rlc_retransmissions > 0, "the radio must be lossy too");
    assert!((ratio - p).abs() < 4.0 * sigma, "{ratio}");
    // The radio did exactly the same: the model's stream is the UE's own, and RLC delivered
    // the SDUs it lost (they are not retransmitted).
    let radio = |r: &celltcp_radio::cell::UeReport| {
        (
            r.harq_transmissions,
            r.harq_retransmissions,
            r.rlc_retransmissions,
            r.sdus_delivered,
            r.tb_bits_decoded,
        )
    };
    assert_eq!(radio(&r1), radio(&r0));
    // What UE 1 received plus what its receiver lost is what it received without the model;
    // UE 2 has no model and received the same packets.
    let mut got = with.delivered_to(NodeId(1));
    got.extend(&lost);
    got.sort_unstable();
    let mut expected = without.delivered_to(NodeId(1));
    expected.sort_unstable();
    assert_eq!(got, expected);
    assert_eq!(
        with.delivered_to(NodeId(2)),
        without.delivered_to(NodeId(2))
    );
    // Counted once each, in the UE's figure; no other drop is a link loss.
    assert_eq!(r1.downlink_lost, Some(lost.len() as u64));
    assert_eq!(r0.downlink_lost, None);
    assert_eq!(
        with.cell
            .ue_report(NodeId(2), with.now)
            .unwrap()
            .downlink_lost,
        None
    );
    assert!(dropped(&without, DropCause::LinkLoss).is_empty());
}

#[test]
fn lost_packets_are_the_models_share_of_what_rlc_delivered() {
    compare_with_and_without(0.05, false);
}

#[test]
fn with_pdcp_reordering_the_loss_is_applied_to_what_pdcp_releases() {
    compare_with_and_without(0.2, true);
}

#[test]
fn the_figure_is_reported_and_sampled_for_ues_with_a_model_only() {
    let model = AnyLossModel::bernoulli(0.1).unwrap();
    let h = run(cell(&[(NodeId(1), model)], false));
    let lost = dropped(&h, DropCause::LinkLoss).len() as f64;
    let figure = |figures: &[(String, f64)], key: &str| {
        figures.iter().find(|(k, _)| k == key).map(|&(_, v)| v)
    };
    let report = h.cell.report(h.now);
    assert_eq!(figure(&report, "ue.1.downlink_lost"), Some(lost));
    assert_eq!(figure(&report, "ue.2.downlink_lost"), None);
    let mut sample = Vec::new();
    h.cell.sample(h.now, &mut sample);
    assert_eq!(figure(&sample, "ue.1.downlink_lost"), Some(lost));
    assert_eq!(figure(&sample, "ue.2.downlink_lost"), None);
    assert!(lost > 0.0);
}

#[test]
fn a_model_for_a_node_that_is_not_a_ue_is_refused() {
    let cfg = LteCellConfig {
        downlink_loss: BTreeMap::from([(NodeId(9), AnyLossModel::ber(1e-6).unwrap())]),
        ..fixed_sinr_cell(20.0)
    };
    let e = LteCell::new(cfg, vec![ue_at(NodeId(1), 0.5, 0.0)], 1, 0).unwrap_err();
    assert_eq!(e.to_string(), "cell: node 9 is not a UE of this cell");
}
