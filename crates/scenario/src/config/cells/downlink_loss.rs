//! `[cells.NAME] downlink_loss = { kind = … }` and `[cells.NAME.ues.UE] downlink_loss`: receive
//! errors of the UEs on the downlink, applied to every IP packet the radio delivered (after RLC
//! and PDCP), as ns-3's `RateErrorModel` on a UE's device does (seed study 003). The model is
//! the table of a link's `loss` (docs/scenarios.md, "Loss models"); the cell's is the default of
//! the UEs it lists, and a UE's own replaces it as a whole. With `[ran]` the model belongs to the
//! UE: the one it gets from the cell that lists it follows it through handovers.

use std::collections::BTreeMap;

use super::CellFile;
use crate::config::loss::LossSpec;
use crate::ScenarioError;

/// The validated model of every UE of cell `name` that has one, by UE name: the UE's own
/// `downlink_loss`, else the cell's. Errors name the key that gave the value.
pub(super) fn resolve(
    name: &str,
    c: &CellFile,
) -> Result<BTreeMap<String, LossSpec>, ScenarioError> {
    let cell_default = c
        .downlink_loss
        .as_ref()
        .map(|l| l.convert(&format!("cells.{name}.downlink_loss")))
        .transpose()?;
    let mut out = BTreeMap::new();
    for (ue, u) in &c.ues {
        let own = u
            .downlink_loss
            .as_ref()
            .map(|l| l.convert(&format!("cells.{name}.ues.{ue}.downlink_loss")))
            .transpose()?;
        if let Some(spec) = own.or(cell_default) {
            out.insert(ue.clone(), spec);
        }
    }
    Ok(out)
}
