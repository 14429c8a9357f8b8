//! The cell's per-TTI path has no error branch to turn into a plausible value (`tti.rs`): what
//! its types cannot rule out fails loudly, with a panic naming the cell, the TTI and the
//! invariant (the engine reports a model's panic with that message), instead of the run going
//! on with made-up losses.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use celltcp_net::packet::NodeId;
use celltcp_radio::cell::{LteCell, LteCellConfig};
use celltcp_radio::channel::{FreeSpace, PathLossModel};
use common::*;

#[test]
fn an_sinr_without_a_finite_linear_value_fails_naming_the_cell_and_the_invariant() {
    // Free space at a carrier of 1e-200 Hz: a path loss of about −4100 dB at 100 m, so an SINR
    // of some 4250 dB, beyond the largest f64 in linear terms. Every other key is valid; the
    // block used to be skipped in silence, with the grant wasted and nothing counted.
    let cfg = LteCellConfig {
        pathloss: PathLossModel::FreeSpace(FreeSpace::new(1e-200).unwrap()),
        ..LteCellConfig::lte_default("c7", ENB)
    };
    let cell = LteCell::new(cfg, vec![ue_at(NodeId(1), 100.0, 0.0)], 1, 0).unwrap();
    let mut h = Harness::new(cell);
    let until = secs(0.05);
    let panic = catch_unwind(AssertUnwindSafe(|| {
        h.drive(&[Cbr::new(NodeId(1), 1e6, 1500, until)], until)
    }))
    .expect_err("the first transmission fails loudly");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.starts_with("cell c7, TTI ")
            && message.contains(": broken invariant: UE 1: SINR ")
            && message.contains("dB has no finite linear value"),
        "{message}"
    );
}
