//! `[cells.NAME.rlc]`, `[cells.NAME.pdcp]` and `[cells.NAME.uplink]`: the downlink data radio
//! bearer of every UE of a cell (RLC of TS 36.322 or, in an NR cell, TS 38.322; PDCP of TS
//! 36.323) and its abstracted uplink, as written and as checked (see docs/lte-model.md,
//! "Bearer" and "Uplink abstraction").
//!
//! `[cells.NAME.rlc]` and `[cells.NAME.pdcp]` are the radio crate's [`CellRlcConfig`] and
//! [`PdcpConfig`] themselves, kept as written (`config/kept.rs`); this module adds the checks
//! that concern the scenario (PDCP reordering and the RLC mode, `[ran]`, one SN length and
//! t-Reordering across a radio access network). `[cells.NAME.uplink]` is the radio's
//! [`UplinkConfig`] likewise, its scheduling table tagged by `kind`, checked against the cell's
//! slot once the cell's numerology is known ([`check_uplink_slots`]).

use std::collections::BTreeMap;

use celltcp_radio::cell::{CellRlcConfig, Rat, RlcModeConfig, UplinkConfig};
use celltcp_radio::pdcp::PdcpConfig;
use std::sync::LazyLock;

use super::CellSpec;
use crate::config::kept::{Kept, KeptTable};
use crate::config::unit_keys::{unit_keys, UnitKeys};
use crate::error::join_key;
use crate::ScenarioError;

/// PDCP SN lengths of TS 36.323 §6.3.2 for data radio bearers, bits.
pub const PDCP_SN_BITS: [u8; 4] = [7, 12, 15, 18];

/// The keys of [`CellRlcConfig`] with a unit.
static RLC_UNIT_KEYS: LazyLock<UnitKeys> = LazyLock::new(unit_keys::<CellRlcConfig>);

/// `[cells.NAME.rlc]` is the radio's [`CellRlcConfig`]: its keys, defaults
/// ([`default_rlc_am`](celltcp_radio::cell::default_rlc_am): 36.331 §9.2.1.1 with pollPDU p32, pollByte kB25 and a 1 MB buffer), descriptions and checks.
impl KeptTable for CellRlcConfig {
    const SCHEMA_NAME: &'static str = "CellRlc";

    fn units() -> &'static UnitKeys {
        &RLC_UNIT_KEYS
    }

    fn check(&self, shown: &dyn Fn(&'static str) -> String) -> Result<(), (&'static str, String)> {
        self.validate_showing(shown).map_err(|e| (e.key, e.message))
    }
}

/// `[cells.NAME.rlc]` at `key` (`cells.macro.rlc`) as the entity's configuration for a cell
/// of `rat`: the table read and checked ([`Kept::resolve`]), then its one conversion
/// ([`CellRlcConfig::entity_config`]).
pub(super) fn rlc_config(
    rlc: &Kept<CellRlcConfig>,
    key: &str,
    rat: Rat,
) -> Result<RlcModeConfig, ScenarioError> {
    let table = rlc.resolve(key)?;
    table
        .entity_config(rat)
        .map_err(|e| ScenarioError::new(join_key(key, e.key), e.message))
}

/// The keys of [`PdcpConfig`] with a unit.
static PDCP_UNIT_KEYS: LazyLock<UnitKeys> = LazyLock::new(unit_keys::<PdcpConfig>);

/// `[cells.NAME.pdcp]` is the radio's [`PdcpConfig`]: its keys, defaults
/// ([`PdcpConfig::default`]: 12-bit SN, no reordering, t-Reordering 50 ms) and descriptions.
impl KeptTable for PdcpConfig {
    const SCHEMA_NAME: &'static str = "CellPdcp";

    fn units() -> &'static UnitKeys {
        &PDCP_UNIT_KEYS
    }
}

/// The keys of [`UplinkConfig`] with a unit, with those of its scheduling table's kinds.
static UPLINK_UNIT_KEYS: LazyLock<UnitKeys> = LazyLock::new(unit_keys::<UplinkConfig>);

/// `[cells.NAME.uplink]` is the radio's [`UplinkConfig`]: its keys, defaults
/// ([`UplinkConfig::default`]: 5 Mbit/s after 8 ms, TS 36.213 §8.0 FDD timing, no loss),
/// descriptions and the checks that need no cell; `scheduling` is its table tagged by `kind`.
impl KeptTable for UplinkConfig {
    const SCHEMA_NAME: &'static str = "CellUplink";

    fn units() -> &'static UnitKeys {
        &UPLINK_UNIT_KEYS
    }

    fn check(&self, shown: &dyn Fn(&'static str) -> String) -> Result<(), (&'static str, String)> {
        UplinkConfig::check(self, shown).map_err(|e| (e.key, e.message))
    }
}

/// `[cells.NAME.uplink]` at `key` (`cells.macro.uplink`), read (`config`, [`Kept::resolve`]),
/// checked against the cell's slot of `slot_ns` and the tables of its `rat`
/// ([`UplinkConfig::check_slots`]); values shown as written.
pub(super) fn check_uplink_slots(
    uplink: &Kept<UplinkConfig>,
    config: &UplinkConfig,
    key: &str,
    slot_ns: u64,
    rat: Rat,
) -> Result<(), ScenarioError> {
    config
        .check_slots(slot_ns, rat, &|field| uplink.shown(field, config))
        .map_err(|e| ScenarioError::new(join_key(key, e.key), e.message))
}

/// `[cells.NAME.pdcp]`, read (`pdcp`): an SN length of 36.323 §6.3.2 (of 38.323 §6.3.2 in
/// an NR cell: 12 or 18); reordering only over LTE's RLC AM (36.323 §5.1.2.1.4; NR PDCP
/// always reorders, TS 38.323 §5.2.2.2) and only in a cell on its own — in a radio access network the
/// UE's receiver sits above the cells and `ran.handover.reordering` decides when it reorders.
pub(super) fn check_pdcp(
    key: &impl Fn(&str) -> String,
    rlc: &RlcModeConfig,
    pdcp: &PdcpConfig,
    in_ran: bool,
) -> Result<(), ScenarioError> {
    if !PDCP_SN_BITS.contains(&pdcp.sn_bits) {
        return Err(ScenarioError::new(
            key("pdcp.sn_bits"),
            format!(
                "{} is not a PDCP SN length; expected 7, 12, 15 or 18 (bits)",
                pdcp.sn_bits
            ),
        ));
    }
    if pdcp.reordering && in_ran {
        return Err(ScenarioError::new(
            key("pdcp.reordering"),
            "true is not allowed with [ran]: the UE's PDCP receiver sits above the cells there and \
             reorders around handovers as ran.handover.reordering says",
        ));
    }
    if rlc.is_nr() && !matches!(pdcp.sn_bits, 12 | 18) {
        return Err(ScenarioError::new(
            key("pdcp.sn_bits"),
            format!(
                "{} is not an NR PDCP SN length; expected 12 or 18 (bits, TS 38.323 §6.3.2)",
                pdcp.sn_bits
            ),
        ));
    }
    if pdcp.reordering && !rlc.is_am() && !rlc.is_nr() {
        return Err(ScenarioError::new(
            key("pdcp.reordering"),
            "true is not allowed with rlc.mode = \"um\"; PDCP reordering is for RLC AM bearers \
             (TS 36.323 §5.1.2.1.4)",
        ));
    }
    Ok(())
}

/// In a radio access network the UE's PDCP receiver and its COUNT persist across cells: every
/// cell numbers with one SN length and bounds reordering with one t-Reordering.
pub(super) fn same_pdcp_in_ran(cells: &BTreeMap<String, CellSpec>) -> Result<(), ScenarioError> {
    let mut cells = cells.iter();
    let Some((first, f)) = cells.next() else {
        return Ok(());
    };
    let shown = |c: &CellSpec| c.file.pdcp.shown("t_reordering", &c.pdcp);
    for (name, c) in cells {
        if c.pdcp.sn_bits != f.pdcp.sn_bits {
            return Err(ScenarioError::new(
                format!("cells.{name}.pdcp.sn_bits"),
                format!(
                    "{} differs from cells.{first}.pdcp.sn_bits ({}); a radio access network uses one PDCP SN length",
                    c.pdcp.sn_bits, f.pdcp.sn_bits
                ),
            ));
        }
        if c.pdcp.t_reordering != f.pdcp.t_reordering {
            return Err(ScenarioError::new(
                format!("cells.{name}.pdcp.t_reordering"),
                format!(
                    "'{}' differs from cells.{first}.pdcp.t_reordering ('{}'); a radio access network uses one t-Reordering",
                    shown(c),
                    shown(f)
                ),
            ));
        }
    }
    Ok(())
}
