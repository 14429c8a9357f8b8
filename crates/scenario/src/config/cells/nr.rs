//! `[cells.NAME] rat = "nr"` and `[cells.NAME.nr]`: an NR cell (gNB) on the cell's machinery.
//!
//! The `[cells.NAME.nr]` table is the radio crate's own [`NrCellConfig`] (its doc comments are
//! the schema's descriptions, its defaults cite TS 38.331 and TS 38.214), validated by its one
//! [`NrCellConfig::validate`], whose errors name `cells.NAME.nr.KEY`. This file adds what only
//! the file layer can check: which top-level keys of `[cells.NAME]` are LTE's and make no sense
//! for an NR cell, and what is not supported with NR yet.

use celltcp_radio::cell::{CellRadioConfig, NrCellConfig};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::CellFile;
use crate::ScenarioError;

/// The radio access technology of a cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Rat {
    /// An LTE eNB (TS 36.300): the keys of `[cells.NAME]`.
    #[default]
    Lte,
    /// An NR gNB (TS 38.300): the keys of `[cells.NAME.nr]` for its air interface.
    Nr,
}

impl Rat {
    /// Whether this is the default, LTE (which the echo leaves out).
    pub fn is_lte(&self) -> bool {
        *self == Rat::Lte
    }
}

/// Checks the NR keys of cell `name` and the LTE keys an NR cell refuses; `in_ran` for a cell
/// of a radio access network.
pub(super) fn check(
    name: &str,
    c: &CellFile,
    radio: &CellRadioConfig,
    in_ran: bool,
) -> Result<(), ScenarioError> {
    let key = |k: &str| format!("cells.{name}.{k}");
    match (c.rat, &c.nr) {
        (Rat::Lte, Some(_)) => {
            return Err(ScenarioError::new(
                key("nr"),
                "is given but rat is \"lte\"; set rat = \"nr\" for an NR cell",
            ))
        }
        (Rat::Lte, None) => return Ok(()),
        (Rat::Nr, _) => {}
    }
    let refuse = |k: &str, why: &str| Err(ScenarioError::new(key(k), why.to_string()));
    // LTE's keys of [cells.NAME] that an NR cell has in [cells.NAME.nr] or not at all: refused
    // when written, whatever the value (a written default is as much a mistake).
    let lte_only: [(&str, &str); 4] = [
        (
            "bandwidth_mhz",
            "is the LTE channel bandwidth (TS 36.101); an NR cell's is nr.bandwidth_mhz",
        ),
        (
            "cqi_table",
            "is an LTE CQI table (TS 36.213 Table 7.2.3-x); an NR cell's is nr.cqi_table",
        ),
        (
            "bler_decade_db",
            "is not supported for an NR cell yet (its BLER curves are those of nr.mcs_table)",
        ),
        (
            "ue_category",
            "is an LTE UE category (TS 36.306 Table 4.1-1); an NR cell does not bound its \
             transport blocks by it",
        ),
    ];
    if let Some((k, why)) = lte_only.into_iter().find(|(k, _)| c.radio.is_written(k)) {
        return refuse(k, why);
    }
    if c.bler_table.is_some() {
        return refuse(
            "bler_table",
            "is not supported for an NR cell yet (its BLER curves are those of nr.mcs_table)",
        );
    }
    if in_ran {
        return refuse(
            "rat",
            "\"nr\" is not supported in a radio access network ([ran]) yet; an NR cell stands \
             on its own",
        );
    }
    let nr = c.nr.clone().unwrap_or_default();
    let air = nr
        .validate(&format!("cells.{name}"), radio.carrier_ghz * 1e9)
        .map_err(|e| ScenarioError::new(e.key, e.message))?;
    if let Some(m) = radio.fixed_mcs.filter(|m| *m > air.mcs_table.max_index()) {
        return Err(ScenarioError::new(
            key("fixed_mcs"),
            format!(
                "{m} is out of range for an NR cell; expected an MCS index 0 to {} of {} (TS \
                 38.214 §5.1.3.1)",
                air.mcs_table.max_index(),
                air.mcs_table
            ),
        ));
    }
    Ok(())
}

/// The NR air interface of a validated cell: `Some` for `rat = "nr"` (its table, or every
/// default), `None` for LTE.
pub(crate) fn nr_config(c: &CellFile) -> Option<NrCellConfig> {
    (c.rat == Rat::Nr).then(|| c.nr.clone().unwrap_or_default())
}
