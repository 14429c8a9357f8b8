//! `[cells.NAME.rlc]`, `[cells.NAME.pdcp]` and `[cells.NAME.uplink]`: the downlink data radio
//! bearer of every UE of a cell (RLC of TS 36.322, PDCP of TS 36.323) and its abstracted uplink,
//! as written and as checked (see docs/lte-model.md, "Bearer" and "Uplink abstraction").
//!
//! `[cells.NAME.rlc]` and `[cells.NAME.pdcp]` are the radio crate's [`CellRlcConfig`] and
//! [`PdcpConfig`] themselves, kept as written (`config/kept.rs`); this module adds the checks
//! that concern the scenario (PDCP reordering and the RLC mode, `[ran]`, one SN length and
//! t-Reordering across a radio access network). The uplink table reads into the radio crate's
//! own configuration with one conversion ([`UplinkFile::config`]), and its defaults are the
//! radio crate's (`UplinkConfig::default`), which cite the clauses they come from.

use std::collections::BTreeMap;

use celltcp_radio::cell::{
    CellRlcConfig, ConfiguredGrantConfig, RlcModeConfig, SrBsrConfig, UplinkConfig,
    UplinkScheduling,
};
use celltcp_radio::pdcp::PdcpConfig;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use std::sync::LazyLock;

use super::CellSpec;
use crate::config::kept::{Kept, KeptTable};
use crate::config::quantity::{Quantity, Rate, Size, Time};
use crate::config::unit_keys::{unit_keys, Unit};
use crate::config::KindTagged;
use crate::error::join_key;
use crate::units;
use crate::ScenarioError;

/// PDCP SN lengths of TS 36.323 §6.3.2 for data radio bearers, bits.
pub const PDCP_SN_BITS: [u8; 4] = [7, 12, 15, 18];

/// The keys of [`CellRlcConfig`] with a unit.
static RLC_UNIT_KEYS: LazyLock<Vec<(String, Unit)>> = LazyLock::new(unit_keys::<CellRlcConfig>);

/// `[cells.NAME.rlc]` is the radio's [`CellRlcConfig`]: its keys, defaults
/// ([`default_rlc_am`](celltcp_radio::cell::default_rlc_am): 36.331 §9.2.1.1 with pollPDU p32, pollByte kB25 and a 1 MB buffer), descriptions and checks.
impl KeptTable for CellRlcConfig {
    const SCHEMA_NAME: &'static str = "CellRlc";

    fn units() -> &'static [(String, Unit)] {
        &RLC_UNIT_KEYS
    }

    fn check(&self, shown: &dyn Fn(&'static str) -> String) -> Result<(), (&'static str, String)> {
        self.validate_showing(shown).map_err(|e| (e.key, e.message))
    }
}

/// `[cells.NAME.rlc]` at `key` (`cells.macro.rlc`) as the entity's configuration: the table
/// read and checked ([`Kept::resolve`]), then its one conversion.
pub(super) fn rlc_config(
    rlc: &Kept<CellRlcConfig>,
    key: &str,
) -> Result<RlcModeConfig, ScenarioError> {
    let table = rlc.resolve(key)?;
    RlcModeConfig::try_from(table).map_err(|e| ScenarioError::new(join_key(key, e.key), e.message))
}

/// The keys of [`PdcpConfig`] with a unit.
static PDCP_UNIT_KEYS: LazyLock<Vec<(String, Unit)>> = LazyLock::new(unit_keys::<PdcpConfig>);

/// `[cells.NAME.pdcp]` is the radio's [`PdcpConfig`]: its keys, defaults
/// ([`PdcpConfig::default`]: 12-bit SN, no reordering, t-Reordering 50 ms) and descriptions.
impl KeptTable for PdcpConfig {
    const SCHEMA_NAME: &'static str = "CellPdcp";

    fn units() -> &'static [(String, Unit)] {
        &PDCP_UNIT_KEYS
    }
}

/// `[cells.NAME.uplink]` as written: the abstracted uplink of each UE.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct UplinkFile {
    /// Service rate of one UE's uplink (a rate, > 0): its share of the uplink carrier.
    pub rate: Quantity<Rate>,
    /// With scheduling kind "fixed": scheduling request to transmission (a time).
    pub grant_delay: Quantity<Time>,
    /// Loss probability per uplink packet, 0 to 1.
    pub loss: f64,
    /// How the UE obtains its grants: "fixed" (the default: every item waits grant_delay),
    /// "sr_bsr" (scheduling request and buffer status report, TS 36.321 / TS 38.321 §5.4.4–5.4.5)
    /// or "configured" (configured grants, TS 38.321 §5.8.2; LTE's uplink SPS).
    #[serde(skip_serializing_if = "UplinkSchedulingFile::is_fixed")]
    pub scheduling: UplinkSchedulingFile,
}

impl Default for UplinkFile {
    /// [`UplinkConfig::default`]: 5 Mbit/s after 8 ms (TS 36.213 §8.0 FDD timing), no loss.
    fn default() -> Self {
        let d = UplinkConfig::default();
        UplinkFile {
            rate: Quantity::default_of_text(units::format_rate(d.rate_bps)),
            grant_delay: Quantity::default_ms(d.grant_delay),
            loss: d.loss,
            scheduling: UplinkSchedulingFile::Fixed,
        }
    }
}

/// `[cells.NAME.uplink.scheduling]` as written, a table tagged by `kind`: the scenario's
/// deserializer maps the tag onto the variant (`crate::de::TABLE_ENUMS`), so that a nested
/// error names its key and a kind without keys refuses any.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(tag = "kind")]
pub enum UplinkSchedulingFile {
    /// Every item waits uplink.grant_delay, then a FIFO at uplink.rate.
    #[default]
    Fixed,
    /// Grants on request: SR occasions, the grant, its PUSCH, then grants by the BSR.
    SrBsr(SrBsrFile),
    /// A grant every period without requests.
    Configured(ConfiguredGrantFile),
}

impl Serialize for UplinkSchedulingFile {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            UplinkSchedulingFile::Fixed => {
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry("kind", "fixed")?;
                map.end()
            }
            UplinkSchedulingFile::SrBsr(body) => KindTagged {
                kind: "sr_bsr",
                body,
            }
            .serialize(s),
            UplinkSchedulingFile::Configured(body) => KindTagged {
                kind: "configured",
                body,
            }
            .serialize(s),
        }
    }
}

impl UplinkSchedulingFile {
    fn is_fixed(&self) -> bool {
        *self == UplinkSchedulingFile::Fixed
    }
}

/// The keys of scheduling kind "sr_bsr" ([`SrBsrConfig`]'s defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SrBsrFile {
    /// SR periodicity (LTE: 1, 2, 5, 10, 20, 40 or 80 ms, TS 36.213 Table 10.1.5-1; NR: 1, 2,
    /// 4, 5, 8, 10, 16, 20, 40, 80, 160, 320 or 640 slots, TS 38.331
    /// SchedulingRequestResourceConfig).
    pub sr_period: Quantity<Time>,
    /// From the SR, or the PUSCH carrying a BSR, to the grant (a whole number of slots; the
    /// base station's processing, left to the implementation).
    pub sr_to_grant: Quantity<Time>,
    /// From the grant to its PUSCH (a whole number of slots, at most 32: 4 subframes in LTE
    /// FDD, TS 36.213 §8.0; K2 in NR, TS 38.214 §6.1.2.1).
    pub grant_to_pusch: Quantity<Time>,
    /// Size of the first grant after an SR (a size > 0); absent: one slot's share of
    /// uplink.rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_grant: Option<Quantity<Size>>,
}

impl Default for SrBsrFile {
    fn default() -> Self {
        let d = SrBsrConfig::default();
        SrBsrFile {
            sr_period: Quantity::default_ms(d.sr_period),
            sr_to_grant: Quantity::default_ms(d.sr_to_grant),
            grant_to_pusch: Quantity::default_ms(d.grant_to_pusch),
            first_grant: None,
        }
    }
}

/// The keys of scheduling kind "configured" ([`ConfiguredGrantConfig`]'s defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ConfiguredGrantFile {
    /// Periodicity of the occasions (NR: 1, 2, 4, 5, 8, 10, 16, 20, 32, 40, 64, 80, 128, 160,
    /// 320 or 640 slots, TS 38.331 ConfiguredGrantConfig; LTE: 1 to 5, 10, 20, 32, 40, 64, 80,
    /// 128, 160, 320 or 640 subframes, TS 36.331 SPS-ConfigUL).
    pub period: Quantity<Time>,
    /// Bytes of each occasion (a size > 0); absent: the period's share of uplink.rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grant: Option<Quantity<Size>>,
}

impl Default for ConfiguredGrantFile {
    fn default() -> Self {
        let d = ConfiguredGrantConfig::default();
        ConfiguredGrantFile {
            period: Quantity::default_ms(d.period),
            grant: None,
        }
    }
}

/// SR periodicities in slots: NR's (TS 38.331 SchedulingRequestResourceConfig, the
/// slot-based ones) and LTE's in subframes (TS 36.213 Table 10.1.5-1).
const NR_SR_PERIOD_SLOTS: [u64; 13] = [1, 2, 4, 5, 8, 10, 16, 20, 40, 80, 160, 320, 640];
const LTE_SR_PERIOD_MS: [u64; 7] = [1, 2, 5, 10, 20, 40, 80];
/// Configured-grant periodicities: NR's in slots (TS 38.331 ConfiguredGrantConfig, n × 14
/// symbols), LTE's uplink SPS intervals in subframes (TS 36.331 SPS-ConfigUL, with Rel-14's
/// sf1–sf5).
const NR_CG_PERIOD_SLOTS: [u64; 16] = [
    1, 2, 4, 5, 8, 10, 16, 20, 32, 40, 64, 80, 128, 160, 320, 640,
];
const LTE_CG_PERIOD_MS: [u64; 15] = [1, 2, 3, 4, 5, 10, 20, 32, 40, 64, 80, 128, 160, 320, 640];
/// K2's largest value, slots (TS 38.331 PUSCH-TimeDomainResourceAllocation k2: 0..32).
const MAX_K2_SLOTS: u64 = 32;

impl UplinkFile {
    /// The radio's uplink configuration, checked against the cell's slot of `slot_ns` (1 ms
    /// for LTE, whose tables are in subframes; the numerology's for NR).
    pub(crate) fn config(
        &self,
        key: &impl Fn(&str) -> String,
        slot_ns: u64,
        nr: bool,
    ) -> Result<UplinkConfig, ScenarioError> {
        let slots = |k: &str, q: &Quantity<Time>| -> Result<u64, ScenarioError> {
            if !q.value.as_ns().is_multiple_of(slot_ns) {
                return Err(ScenarioError::new(
                    key(&format!("uplink.scheduling.{k}")),
                    format!(
                        "'{q}' is not a whole number of the cell's {} µs slots",
                        slot_ns / 1_000
                    ),
                ));
            }
            Ok(q.value.as_ns() / slot_ns)
        };
        let one_of = |k: &str, q: &Quantity<Time>, allowed: &[u64]| -> Result<(), ScenarioError> {
            let n = slots(k, q)?;
            if allowed.contains(&n) {
                return Ok(());
            }
            let unit = if nr { "slots" } else { "ms" };
            let list: Vec<String> = allowed.iter().map(u64::to_string).collect();
            Err(ScenarioError::new(
                key(&format!("uplink.scheduling.{k}")),
                format!("'{q}' is not allowed; expected {} {unit}", list.join(", ")),
            ))
        };
        let size = |k: &str, q: &Option<Quantity<Size>>| -> Result<Option<u32>, ScenarioError> {
            match q {
                None => Ok(None),
                Some(q) if q.value == 0 || q.value > u64::from(u32::MAX) => {
                    Err(ScenarioError::new(
                        key(&format!("uplink.scheduling.{k}")),
                        format!("'{q}' must be a size from 1B to 4GB, e.g. '200B'"),
                    ))
                }
                Some(q) => Ok(Some(q.value as u32)),
            }
        };
        let scheduling = match &self.scheduling {
            UplinkSchedulingFile::Fixed => UplinkScheduling::Fixed,
            UplinkSchedulingFile::SrBsr(f) => {
                one_of(
                    "sr_period",
                    &f.sr_period,
                    if nr {
                        &NR_SR_PERIOD_SLOTS
                    } else {
                        &LTE_SR_PERIOD_MS
                    },
                )?;
                slots("sr_to_grant", &f.sr_to_grant)?;
                if slots("grant_to_pusch", &f.grant_to_pusch)? > MAX_K2_SLOTS {
                    return Err(ScenarioError::new(
                        key("uplink.scheduling.grant_to_pusch"),
                        format!("'{}' is more than {MAX_K2_SLOTS} slots", f.grant_to_pusch),
                    ));
                }
                UplinkScheduling::SrBsr(SrBsrConfig {
                    sr_period: f.sr_period.value,
                    sr_to_grant: f.sr_to_grant.value,
                    grant_to_pusch: f.grant_to_pusch.value,
                    first_grant_bytes: size("first_grant", &f.first_grant)?,
                })
            }
            UplinkSchedulingFile::Configured(f) => {
                one_of(
                    "period",
                    &f.period,
                    if nr {
                        &NR_CG_PERIOD_SLOTS
                    } else {
                        &LTE_CG_PERIOD_MS
                    },
                )?;
                UplinkScheduling::Configured(ConfiguredGrantConfig {
                    period: f.period.value,
                    grant_bytes: size("grant", &f.grant)?,
                })
            }
        };
        Ok(UplinkConfig {
            rate_bps: self.rate.value,
            grant_delay: self.grant_delay.value,
            loss: self.loss,
            scheduling,
        })
    }
}

/// `[cells.NAME.pdcp]`, read (`pdcp`): an SN length of 36.323 §6.3.2; reordering only over
/// RLC AM (36.323 §5.1.2.1.4) and only in a cell on its own — in a radio access network the
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
    if pdcp.reordering && matches!(rlc, RlcModeConfig::Um(_)) {
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
