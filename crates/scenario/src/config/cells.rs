//! `[cells.NAME]`: LTE cells — an eNB node serving UE nodes over the radio (see docs/lte-model.md).
//!
//! The radio keys of a cell (bandwidth, carrier, power, path loss, shadowing, fading, the
//! scheduler, HARQ, the BLER curves, the CQI timing and table, a fixed MCS) are the radio
//! crate's [`CellRadioConfig`]: its serde form names them, its doc comments are the JSON
//! Schema's descriptions, its `Default` gives their defaults with their citations and its
//! `validate_showing` their checks. The table is kept as written ([`RadioKeys`]) and read into
//! that type when the scenario is resolved, so that every message names the dotted key; this
//! module adds only the units of its times (`unit_keys`). What is not a radio parameter stays
//! here: the eNB and UE nodes, placement, the interferers, the UEs' receive errors
//! (`cells/downlink_loss.rs`), the bearer's tables (`rlc`, `pdcp`, `uplink`, in
//! `cells/bearer.rs`, each read into the radio's configuration with one conversion) and the
//! reading of a BLER table file (`cells/bler_table.rs`).

use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock};

use celltcp_radio::cell::{CellRadioConfig, CellRlcConfig, RlcModeConfig, UplinkConfig};
use celltcp_radio::pdcp::PdcpConfig;
use celltcp_radio::phy::BlerTable;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::kept::{Kept, KeptTable};
use super::links::Link;
use super::loss::{LossFile, LossSpec};
use super::nodes::{Node, NodeKind};
use super::unit_keys::{unit_keys, UnitKeys};
use crate::validate::{check_name, node_ref};
use crate::ScenarioError;

mod bearer;
mod bler_table;
mod downlink_loss;
mod nr;

pub use bearer::PDCP_SN_BITS;
use bearer::{check_pdcp, same_pdcp_in_ran};
pub use nr::Rat;
pub(crate) use nr::{nr_config, read_channel_units};

/// `[cells.NAME.ues.UE]`: a UE node served by the cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UeFile {
    /// [x, y] in metres.
    pub position: [f64; 2],
    /// Speed for the fast-fading Doppler, km/h (≥ 0).
    #[serde(default)]
    pub speed_kmh: f64,
    /// Weighted-fair-queueing weight (> 0); other than 1 only with scheduler = "wfq".
    #[serde(default = "one")]
    pub weight: f64,
    /// Receive errors of this UE on the downlink (replaces the cell's downlink_loss).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downlink_loss: Option<LossFile>,
}

/// An interfering cell on the same carrier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InterfererFile {
    /// [x, y] in metres.
    pub position: [f64; 2],
    /// Transmit power, dBm.
    #[serde(default = "tx_power")]
    pub tx_power_dbm: f64,
    /// Fraction of PRBs in use, 0 to 1.
    #[serde(default = "one")]
    pub load: f64,
}

fn tx_power() -> f64 {
    CellRadioConfig::default().tx_power_dbm
}
fn one() -> f64 {
    1.0
}

/// The keys of `[cells.NAME]` that the file layer reads itself; every other key is a radio
/// key ([`RadioKeys`]). Kept in the order of [`CellFile`]'s fields (a test compares them).
const FILE_KEYS: [&str; 11] = [
    "rat",
    "nr",
    "enb",
    "position",
    "interferers",
    "bler_table",
    "rlc",
    "pdcp",
    "uplink",
    "downlink_loss",
    "ues",
];

/// `[cells.NAME]` as written: the keys of the file layer, and the radio keys kept as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct CellFile {
    /// Radio access technology: "lte" (default) or "nr" (the air interface of `nr`).
    #[serde(default, skip_serializing_if = "Rat::is_lte")]
    pub rat: Rat,
    /// The NR air interface of a cell with rat = "nr" (docs/nr.md); every key is optional.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "nr::serialize_nr"
    )]
    #[schemars(schema_with = "nr::nr_schema")]
    pub nr: Option<celltcp_radio::cell::NrCellConfig>,
    /// The eNB (an existing router).
    pub enb: String,
    /// [x, y] of the eNB antenna, metres; [0, 0] by default, or placed by `ran.layout`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<[f64; 2]>,
    /// Other cells on the carrier seen as interference.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interferers: Vec<InterfererFile>,
    /// BLER curves from a CSV file of link-level points (mcs,sinr_db,bler) instead of the
    /// default curves: a path, relative to the scenario file (to the current directory for
    /// scenarios loaded from text). Not with a bler_decade_db other than 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bler_table: Option<String>,
    #[serde(default)]
    pub rlc: Kept<CellRlcConfig>,
    /// PDCP of every UE's bearer.
    #[serde(default)]
    pub pdcp: Kept<PdcpConfig>,
    /// The abstracted uplink of every UE.
    #[serde(default)]
    pub uplink: Kept<UplinkConfig>,
    /// Receive errors of the UEs on the downlink: each IP packet the radio delivered is lost
    /// at the UE with this loss model (the table of a link's loss); the default of the UEs
    /// listed here, which may give their own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downlink_loss: Option<LossFile>,
    /// The UEs served at the start, by node name (at least one, except in a radio access
    /// network, whose UEs move between its cells).
    #[serde(default)]
    pub ues: BTreeMap<String, UeFile>,
    /// The radio keys.
    #[serde(flatten)]
    pub radio: RadioKeys,
}

/// The radio keys of `[cells.NAME]` as written: every key of the table that is not one of
/// `FILE_KEYS`, read into [`CellRadioConfig`] when the scenario is resolved.
pub type RadioKeys = Kept<CellRadioConfig>;

/// The keys of [`CellRadioConfig`] with a unit.
static UNIT_KEYS: LazyLock<UnitKeys> = LazyLock::new(unit_keys::<CellRadioConfig>);

impl KeptTable for CellRadioConfig {
    const SCHEMA_NAME: &'static str = "CellRadioKeys";
    const BESIDE: &'static [&'static str] = &FILE_KEYS;

    fn units() -> &'static UnitKeys {
        &UNIT_KEYS
    }

    fn check(&self, shown: &dyn Fn(&'static str) -> String) -> Result<(), (&'static str, String)> {
        self.validate_showing(shown).map_err(|e| (e.key, e.message))
    }
}

/// A validated cell: the file's values after range checks, the radio keys read.
#[derive(Clone, Debug, PartialEq)]
pub struct CellSpec {
    pub file: CellFile,
    /// The radio keys, checked.
    pub radio: CellRadioConfig,
    /// [x, y] of the eNB antenna, metres: as written, from `ran.layout`, or [0, 0].
    pub position: [f64; 2],
    /// `rlc` as the radio's configuration of the bearer's RLC.
    pub rlc: RlcModeConfig,
    /// `pdcp` as the radio's PDCP configuration.
    pub pdcp: PdcpConfig,
    /// `uplink` as the radio's uplink configuration.
    pub uplink: UplinkConfig,
    /// The BLER curves read from `bler_table`, if given: a curve for every MCS, each with a
    /// 10 % point, so that every CQI maps to an SINR threshold.
    pub bler_table: Option<Arc<BlerTable>>,
    /// Receive-error model of each UE listed that has one (its own or the cell's), by UE name.
    pub downlink_loss: BTreeMap<String, LossSpec>,
}

fn range(key: String, v: f64, lo: f64, hi: f64, what: &str) -> Result<(), ScenarioError> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(ScenarioError::new(
            key,
            format!("{v} is out of range; expected {what}"),
        ))
    }
}

/// Validates the cells against the nodes; every UE is served by one cell only. Outside a radio
/// access network (`in_ran` false) every cell serves at least one UE. A network's cells share
/// their RAT unless `mixed_rats` (EN-DC, `[ran.dual_connectivity]`).
pub(crate) fn convert(
    file: &BTreeMap<String, CellFile>,
    nodes: &BTreeMap<String, Node>,
    in_ran: bool,
    mixed_rats: bool,
) -> Result<BTreeMap<String, CellSpec>, ScenarioError> {
    if in_ran && !mixed_rats {
        nr::same_rat_in_ran(file)?;
    }
    let mut served: BTreeMap<&str, &str> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for (name, c) in file {
        check_name("cells", name)?;
        let key = |k: &str| format!("cells.{name}.{k}");
        node_ref(&key("enb"), &c.enb, nodes)?;
        if nodes[&c.enb].kind != NodeKind::Router {
            return Err(ScenarioError::new(
                key("enb"),
                format!("node '{}' is a host; an eNB is a router", c.enb),
            ));
        }
        let radio = c.radio.resolve(&format!("cells.{name}"))?;
        let rlc = bearer::rlc_config(&c.rlc, &key("rlc"), c.rat)?;
        let pdcp = c.pdcp.resolve(&key("pdcp"))?;
        check_pdcp(&key, &rlc, &pdcp, in_ran)?;
        let uplink = c.uplink.resolve(&key("uplink"))?;
        for (i, it) in c.interferers.iter().enumerate() {
            range(
                format!("cells.{name}.interferers[{i}].load"),
                it.load,
                0.0,
                1.0,
                "0 to 1",
            )?;
        }
        if c.ues.is_empty() && !in_ran {
            return Err(ScenarioError::new(
                key("ues"),
                "a cell serves at least one UE",
            ));
        }
        check_ues(name, c, &radio, nodes, &mut served)?;
        nr::check(name, c, &radio, in_ran)?;
        // The uplink's grants come per slot: LTE's TTI, or the numerology's slot (1 ms / 2^μ,
        // TS 38.211 §4.3.2), μ checked above.
        let nr = nr_config(c);
        let slot_ns = nr
            .as_ref()
            .map_or(1_000_000, |n| 1_000_000 >> n.numerology.min(4));
        bearer::check_uplink_slots(&c.uplink, &uplink, &key("uplink"), slot_ns, c.rat)?;
        let mut cell_file = nr::resolve_channel(name, c, &radio)?;
        if c.rat == Rat::Nr && c.bler_table.is_some() {
            // An NR cell's curves land in its `nr` table, written or not.
            cell_file.nr.get_or_insert_with(Default::default);
        }
        let bler_table = bler_table::read(name, &mut cell_file, &radio)?;
        let downlink_loss = downlink_loss::resolve(name, c)?;
        out.insert(
            name.clone(),
            CellSpec {
                file: cell_file,
                radio,
                position: c.position.unwrap_or_default(),
                rlc,
                pdcp,
                uplink,
                bler_table,
                downlink_loss,
            },
        );
    }
    if in_ran {
        same_pdcp_in_ran(&out)?;
    }
    Ok(out)
}

/// The radio keys echo every key of [`CellRadioConfig`] with its default; an NR cell refuses
/// LTE's own keys ([`nr::LTE_ONLY`]), so its echo leaves them out, and loads again.
pub(super) fn leave_out_keys_the_rat_refuses(
    cells: &BTreeMap<String, CellFile>,
    echo: &mut serde_json::Value,
) {
    for (name, _) in cells.iter().filter(|(_, c)| c.rat == Rat::Nr) {
        if let Some(cell) = echo
            .get_mut("cells")
            .and_then(|v| v.get_mut(name))
            .and_then(|v| v.as_object_mut())
        {
            for (key, _) in nr::LTE_ONLY {
                cell.remove(key);
            }
        }
    }
}

/// The UEs of cell `name`: hosts, each served by one cell only (`served`: UE → cell so far),
/// with a speed in range and a weight its scheduler reads.
fn check_ues<'a>(
    name: &'a str,
    c: &'a CellFile,
    radio: &CellRadioConfig,
    nodes: &BTreeMap<String, Node>,
    served: &mut BTreeMap<&'a str, &'a str>,
) -> Result<(), ScenarioError> {
    for (ue, u) in &c.ues {
        let ukey = format!("cells.{name}.ues.{ue}");
        node_ref(&ukey, ue, nodes)?;
        if nodes[ue].kind != NodeKind::Host {
            return Err(ScenarioError::new(
                ukey,
                format!("node '{ue}' is a router; a UE is a host"),
            ));
        }
        if let Some(other) = served.insert(ue, name) {
            return Err(ScenarioError::new(
                ukey,
                format!("UE '{ue}' is already served by cell '{other}'"),
            ));
        }
        range(
            format!("{ukey}.speed_kmh"),
            u.speed_kmh,
            0.0,
            500.0,
            "0 to 500 (km/h)",
        )?;
        check_weight(&format!("{ukey}.weight"), u.weight, &radio.scheduler)?;
    }
    Ok(())
}

/// A UE's WFQ weight: finite and > 0, and other than 1 only with the "wfq" scheduler (the
/// only one that reads weights).
fn check_weight(key: &str, w: f64, scheduler: &str) -> Result<(), ScenarioError> {
    if !(w.is_finite() && w > 0.0) {
        return Err(ScenarioError::new(
            key,
            format!("{w} is not a weight; expected a finite number > 0"),
        ));
    }
    if w != 1.0 && scheduler != "wfq" {
        return Err(ScenarioError::new(
            key,
            format!("{w} is given but scheduler is \"{scheduler}\"; weights apply to \"wfq\" only"),
        ));
    }
    Ok(())
}

/// A UE reaches the network over its radio bearer only: a UE that is also an end of a wired
/// link would be a host with two attachments, and the routes would silently bypass the radio.
pub(crate) fn check_unwired_ues(
    cells: &BTreeMap<String, CellSpec>,
    links: &BTreeMap<String, Link>,
) -> Result<(), ScenarioError> {
    for (name, c) in cells {
        for ue in c.file.ues.keys() {
            if let Some((link, _)) = links.iter().find(|(_, l)| &l.a == ue || &l.b == ue) {
                return Err(ScenarioError::new(
                    format!("cells.{name}.ues.{ue}"),
                    format!(
                        "node '{ue}' is an end of the wired link '{link}' and a UE of cell \
                         '{name}'; a UE is reached over the radio only (connect the link to \
                         another host, or drop the UE)"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The (eNB, UE) pairs of every cell, for reachability checks.
pub(crate) fn radio_edges(cells: &BTreeMap<String, CellSpec>) -> Vec<(String, String)> {
    cells
        .values()
        .flat_map(|c| {
            c.file
                .ues
                .keys()
                .map(move |ue| (c.file.enb.clone(), ue.clone()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CELL: &str = r#"
[simulation]
duration = "1s"
[nodes]
enb = { kind = "router" }
ue = { kind = "host" }
[cells.c]
enb = "enb"
bandwidth_mhz = 5
cqi_period = "0.01s"
[cells.c.ues.ue]
position = [100.0, 0.0]
"#;

    fn error(extra: &str) -> String {
        let text = CELL.replace(
            "bandwidth_mhz = 5\n",
            &format!("bandwidth_mhz = 5\n{extra}\n"),
        );
        crate::load_str(&text, &[]).unwrap_err().to_string()
    }

    #[test]
    fn the_file_keys_are_the_fields_of_the_file_struct_and_the_rest_are_radio_keys() {
        let schema = schemars::schema_for!(CellFile).to_value();
        let properties: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        let radio = schemars::schema_for!(CellRadioConfig).to_value();
        let radio: Vec<&String> = radio["properties"].as_object().unwrap().keys().collect();
        for key in &properties {
            assert!(
                FILE_KEYS.contains(&key.as_str()) != radio.contains(key),
                "{key} is read by exactly one of the file layer and CellRadioConfig"
            );
        }
        assert_eq!(properties.len(), FILE_KEYS.len() + radio.len());
        assert_eq!(schema["additionalProperties"], false);
        // In the order of the struct's fields (serde's own list for an unknown key).
        let text = "enb = \"e\"\ncolour = 1";
        let e = toml::from_str::<CellFile>(text)
            .unwrap()
            .radio
            .resolve("cells.c")
            .unwrap_err()
            .to_string();
        let listed = e.split("expected one of: ").nth(1).unwrap_or_default();
        let listed: Vec<&str> = listed.split(", ").collect();
        assert_eq!(&listed[..FILE_KEYS.len()], FILE_KEYS);
        assert_eq!(listed.len(), properties.len(), "{e}");
    }

    #[test]
    fn an_unknown_key_is_named_with_every_key_of_the_table() {
        let e = error("colour = \"red\"");
        assert!(
            e.starts_with(
                "cells.c.colour: unknown key; expected one of: rat, nr, enb, position, \
                 interferers, bler_table, rlc, pdcp, uplink, downlink_loss, ues, bandwidth_mhz, \
                 carrier_ghz,"
            ),
            "{e}"
        );
        // The list runs to the radio keys (the one-line message is cut at its bound after them).
        assert!(e.contains("cqi_table, fixed_mcs"), "{e}");
        // Keys of the file layer keep their own messages; radio keys name theirs.
        assert!(error("position = 3").starts_with("cells.c.position: "));
        assert_eq!(
            error("fading = \"yes\""),
            "cells.c.fading: expected a boolean, found 'yes'"
        );
        assert!(error("cqi_delay = 4").starts_with("cells.c.cqi_delay: "));
        assert_eq!(
            error("carrier_ghz = 200"),
            "cells.c.carrier_ghz: 200 is out of range; expected 0.5 to 100 (GHz)"
        );
    }

    #[test]
    fn the_echo_shows_typed_values_and_times_as_written() {
        let sc = crate::load_str(CELL, &[]).unwrap();
        let c = &sc.echo()["cells"]["c"];
        // Read as a number of MHz, echoed as one (the integer 5 of the file is 5.0).
        assert_eq!(c["bandwidth_mhz"], serde_json::json!(5.0));
        assert_eq!(c["cqi_period"], "0.01s");
        assert_eq!(c["cqi_delay"], "4ms");
        assert_eq!(c["pf_time_constant"], "1s");
        assert_eq!(c["los"], false);
        assert_eq!(c["scheduler"], "proportional_fair");
        for absent in ["cqi_table", "fixed_mcs", "ue_category", "pl0_db"] {
            assert!(c.get(absent).is_none(), "{absent}");
        }
        assert_eq!(sc.cells["c"].radio.cqi_period.as_ns(), 10_000_000);
        let again = crate::load_str(CELL, &[("cells.c.cqi_period".into(), "10ms".into())]);
        assert_ne!(again.unwrap().file.cells["c"], sc.file.cells["c"]);
    }

    #[test]
    fn the_pdcp_table_is_the_radio_configuration_kept_as_written() {
        let sc = crate::load_str(CELL, &[]).unwrap();
        // Every key echoed, the time as the default's text.
        assert_eq!(
            sc.echo()["cells"]["c"]["pdcp"],
            serde_json::json!({"sn_bits": 12, "reordering": false, "t_reordering": "50ms",
                "status_report_required": true})
        );
        assert_eq!(sc.cells["c"].pdcp, PdcpConfig::default());
        let over = [("cells.c.pdcp.t_reordering".into(), "0.08s".into())];
        let sc = crate::load_str(CELL, &over).unwrap();
        assert_eq!(sc.echo()["cells"]["c"]["pdcp"]["t_reordering"], "0.08s");
        assert_eq!(
            sc.cells["c"].pdcp.t_reordering,
            celltcp_engine::SimDuration::from_ms(80)
        );
        assert_eq!(
            error("pdcp = { colour = 1 }"),
            "cells.c.pdcp.colour: unknown key; expected one of: sn_bits, reordering, t_reordering, \
             status_report_required"
        );
        assert_eq!(
            error("pdcp = { t_reordering = 50 }"),
            "cells.c.pdcp.t_reordering: 50 has no unit; a time needs one of ns, us, ms, s, min (e.g. \
             '50ms')"
        );
    }

    #[test]
    fn the_uplink_table_is_the_radio_configuration_kept_as_written() {
        use celltcp_engine::SimDuration;
        use celltcp_radio::cell::{SrBsrConfig, UplinkScheduling};
        let sc = crate::load_str(CELL, &[]).unwrap();
        // Every key echoed, the rate and the time as the defaults' text; the default "fixed"
        // scheduling table left out.
        assert_eq!(
            sc.echo()["cells"]["c"]["uplink"],
            serde_json::json!({"rate": "5Mbps", "grant_delay": "8ms", "loss": 0.0})
        );
        assert_eq!(sc.cells["c"].uplink, UplinkConfig::default());
        let text = CELL.replace(
            "bandwidth_mhz = 5\n",
            "bandwidth_mhz = 5\nuplink = { rate = \"1000kbps\", scheduling = { kind = \"sr_bsr\", \
             sr_period = \"0.02s\", first_grant = \"1kB\" } }\n",
        );
        let sc = crate::load_str(&text, &[]).unwrap();
        // The nested table's times and size as written, its defaults as their text.
        assert_eq!(
            sc.echo()["cells"]["c"]["uplink"],
            serde_json::json!({"rate": "1000kbps", "grant_delay": "8ms", "loss": 0.0,
                "scheduling": {"kind": "sr_bsr", "sr_period": "0.02s", "sr_to_grant": "4ms",
                    "grant_to_pusch": "4ms", "first_grant": "1kB"}})
        );
        assert_eq!(sc.cells["c"].uplink.rate_bps, 1_000_000);
        assert_eq!(
            sc.cells["c"].uplink.scheduling,
            UplinkScheduling::SrBsr(SrBsrConfig {
                sr_period: SimDuration::from_ms(20),
                first_grant_bytes: Some(1_000),
                ..SrBsrConfig::default()
            })
        );
        // A written "fixed" table is the default, and the echo leaves it out.
        let fixed = CELL.replace(
            "bandwidth_mhz = 5\n",
            "bandwidth_mhz = 5\nuplink = { scheduling = { kind = \"fixed\" } }\n",
        );
        let echo = crate::load_str(&fixed, &[]).unwrap().echo();
        assert!(echo["cells"]["c"]["uplink"].get("scheduling").is_none());
    }

    #[test]
    fn uplink_errors_name_the_dotted_key_and_show_values_as_written() {
        assert_eq!(
            error("uplink = { rate = 5 }"),
            "cells.c.uplink.rate: 5 has no unit; a rate needs one of bps, kbps, Mbps, Gbps, Bps, \
             kBps, MBps, GBps (e.g. '5Mbps')"
        );
        assert_eq!(
            error("uplink = { rate = \"0Mbps\" }"),
            "cells.c.uplink.rate: must be a positive rate, e.g. '5Mbps'"
        );
        assert_eq!(
            error("uplink = { loss = 1.5 }"),
            "cells.c.uplink.loss: 1.5 is out of range; expected a probability in [0, 1]"
        );
        assert_eq!(
            error("uplink = { scheduling = { kind = \"configured\", grant = \"0kB\" } }"),
            "cells.c.uplink.scheduling.grant: '0kB' must be a size from 1B to 4GB, e.g. '200B'"
        );
        assert_eq!(
            error("uplink = { scheduling = { kind = \"sr_bsr\", sr_to_grant = \"0.0015s\" } }"),
            "cells.c.uplink.scheduling.sr_to_grant: '0.0015s' is not a whole number of the \
             cell's 1000 µs slots"
        );
        // The units of a kind's keys are read in that kind only: in another, the key is unknown.
        assert!(
            error("uplink = { scheduling = { kind = \"fixed\", sr_period = 3 } }")
                .starts_with("cells.c.uplink.scheduling.sr_period: unknown key"),
        );
        assert_eq!(
            error("uplink = { colour = 1 }"),
            "cells.c.uplink.colour: unknown key; expected one of: rate, grant_delay, loss, \
             scheduling"
        );
    }

    /// The schema describes the uplink's keys with their units and defaults as text, in the
    /// scheduling table's variants too (the radio type marks them in integers).
    #[test]
    fn the_uplink_schema_gives_units_and_defaults_as_text() {
        let schema = crate::schema::json_schema();
        let uplink = &schema["$defs"]["CellUplink"]["properties"];
        assert_eq!(uplink["rate"]["default"], "5Mbps");
        assert_eq!(uplink["grant_delay"]["default"], "8ms");
        let kinds = schema["$defs"]["UplinkScheduling"]["oneOf"]
            .as_array()
            .expect("the kinds");
        let sr_bsr = kinds
            .iter()
            .find(|k| k["properties"]["kind"]["const"] == "sr_bsr")
            .expect("sr_bsr");
        let sr_period = &sr_bsr["properties"]["sr_period"];
        assert_eq!(sr_period["default"], "10ms");
        assert!(sr_period.get("x-unit").is_none(), "{sr_period}");
        assert!(sr_period["description"]
            .as_str()
            .is_some_and(|d| d.starts_with("SR periodicity")));
    }
}
