//! `[cells.NAME]`: LTE cells — an eNB node serving UE nodes over the radio (see docs/lte-model.md).
//!
//! The file gives the radio parameters with units and plain numbers for dB quantities; the typed
//! form keeps them resolved for the world builder, which maps them onto the radio crate's
//! `LteCellConfig`; enums of the radio (`harq_combining`, `rlc.on_max_retx`) are the radio
//! crate's own types, and the bearer's tables convert into its configurations here. The bearer's tables (`rlc`, `pdcp`, `uplink`) are in `cells/bearer.rs`, the
//! BLER curves read from a file (`bler_table`) in `cells/bler_table.rs`, the UEs' receive errors
//! (`downlink_loss`) in `cells/downlink_loss.rs`.

use std::collections::BTreeMap;
use std::sync::Arc;

use celltcp_engine::SimDuration;
use celltcp_net::packet::NodeId;
use celltcp_radio::cell::{
    HarqCombining, LteCellConfig, RlcModeConfig, UplinkConfig, DEFAULT_SHADOWING_DECORRELATION_M,
};
pub use celltcp_radio::channel::PathLossKind;
use celltcp_radio::pdcp::PdcpConfig;
use celltcp_radio::phy::{BlerTable, CqiTable, Mcs, CHANNEL_BANDWIDTHS, DEFAULT_BANDWIDTH_MHZ};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::links::Link;
use super::loss::{LossFile, LossSpec};
use super::nodes::{Node, NodeKind};
use super::quantity::{Quantity, Time};
use crate::units;
use crate::validate::{check_name, node_ref};
use crate::ScenarioError;

mod bearer;
mod bler_table;
mod downlink_loss;
mod los;
mod nr;

use bearer::{check_pdcp, same_pdcp_in_ran};
pub use bearer::{PdcpFile, PollByteFile, PollPduFile, RlcFile, RlcMode, UplinkFile, PDCP_SN_BITS};
pub use los::LosFile;
pub(crate) use nr::nr_config;
pub use nr::Rat;

/// MAC schedulers by name.
pub const SCHEDULERS: [&str; 4] = ["round_robin", "proportional_fair", "max_ci", "wfq"];
/// Default `bler_decade_db`: the logistic curves' 1 dB from BLER 10 % to 1 %.
pub const DEFAULT_BLER_DECADE_DB: f64 = celltcp_radio::phy::bler::DEFAULT_DECADE_DB;

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
    radio().tx_power_dbm
}
fn one() -> f64 {
    1.0
}
fn is_default_cqi_table(t: &CqiTable) -> bool {
    *t == CqiTable::default()
}
fn bler_decade_db() -> f64 {
    DEFAULT_BLER_DECADE_DB
}

/// `[cells.NAME]` as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CellFile {
    /// Radio access technology: "lte" (default) or "nr" (the air interface of `nr`).
    #[serde(default, skip_serializing_if = "Rat::is_lte")]
    pub rat: Rat,
    /// The NR air interface of a cell with rat = "nr" (docs/nr.md); every key is optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nr: Option<celltcp_radio::cell::NrCellConfig>,
    /// The eNB (an existing router).
    pub enb: String,
    /// Downlink bandwidth, MHz: 1.4, 3, 5, 10, 15 or 20.
    #[serde(default = "bandwidth_mhz")]
    pub bandwidth_mhz: f64,
    /// [x, y] of the eNB antenna, metres; [0, 0] by default, or placed by `ran.layout`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<[f64; 2]>,
    /// Carrier frequency, GHz (0.5 to 100).
    #[serde(default = "two")]
    pub carrier_ghz: f64,
    /// Total transmit power, dBm.
    #[serde(default = "tx_power")]
    pub tx_power_dbm: f64,
    /// UE noise figure, dB.
    #[serde(default = "nine")]
    pub noise_figure_db: f64,
    /// "uma" (default), "umi", "free_space" or "log_distance".
    #[serde(default)]
    pub pathloss: PathLossKind,
    /// Line of sight for "uma" and "umi": true, false, or "probabilistic" (drawn per link).
    #[serde(default)]
    pub los: LosFile,
    /// Log-distance: loss at d0_m, dB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pl0_db: Option<f64>,
    /// Log-distance: reference distance, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d0_m: Option<f64>,
    /// Log-distance: path-loss exponent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exponent: Option<f64>,
    /// Log-normal shadowing standard deviation, dB (0 = none).
    #[serde(default)]
    pub shadowing_db: f64,
    /// Shadowing decorrelation distance, m.
    #[serde(default = "shadowing_decorrelation_m")]
    pub shadowing_decorrelation_m: f64,
    /// Time-correlated Rayleigh fading (Doppler from each UE's speed).
    #[serde(default)]
    pub fading: bool,
    /// Other cells on the carrier seen as interference.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interferers: Vec<InterfererFile>,
    /// "proportional_fair" (default), "round_robin", "max_ci" or "wfq".
    #[serde(default = "pf")]
    pub scheduler: String,
    /// Proportional fair: time constant of the throughput average (a time ≥ 1ms; one TTI is
    /// 1ms). Other than the default only with scheduler = "proportional_fair".
    #[serde(default = "pf_time_constant")]
    pub pf_time_constant: Quantity<Time>,
    /// HARQ maximum transmissions per transport block (1 to 8).
    #[serde(default = "four")]
    pub harq_max_transmissions: u8,
    /// "chase" (default) or "none".
    #[serde(default)]
    pub harq_combining: HarqCombining,
    /// BLER curves: SINR step from BLER 10 % to 1 %, dB (0.1 to 10).
    #[serde(default = "bler_decade_db")]
    pub bler_decade_db: f64,
    /// BLER curves from a CSV file of link-level points (mcs,sinr_db,bler) instead of the
    /// default curves: a path, relative to the scenario file (to the current directory for
    /// scenarios loaded from text). Not with a bler_decade_db other than 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bler_table: Option<String>,
    /// Period of the CQI reports (a time, whole milliseconds).
    #[serde(default = "cqi_period")]
    pub cqi_period: Quantity<Time>,
    /// Delay from a CQI measurement to its use (a time, whole milliseconds).
    #[serde(default = "cqi_delay")]
    pub cqi_delay: Quantity<Time>,
    /// CQI table of the UEs' reports, with its MCS table (TS 36.213 §7.2.3, §7.1.7.1):
    /// "7.2.3-1" (default; QPSK to 64QAM, MCS 0 to 28) or "7.2.3-2" (256QAM, MCS 0 to 27).
    // Echoed only when not the default, so that the outputs of every scenario written before
    // the key existed stay as they were.
    #[serde(default, skip_serializing_if = "is_default_cqi_table")]
    pub cqi_table: CqiTable,
    /// Use this MCS (0 to 28; 0 to 27 with cqi_table = "7.2.3-2") of the cell's MCS table for
    /// every transport block instead of link adaptation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed_mcs: Option<u8>,
    #[serde(default)]
    pub rlc: RlcFile,
    /// PDCP of every UE's bearer.
    #[serde(default)]
    pub pdcp: PdcpFile,
    #[serde(default)]
    pub uplink: UplinkFile,
    /// Receive errors of the UEs on the downlink: each IP packet the radio delivered is lost
    /// at the UE with this loss model (the table of a link's loss); the default of the UEs
    /// listed here, which may give their own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downlink_loss: Option<LossFile>,
    /// The UEs served at the start, by node name (at least one, except in a radio access
    /// network, whose UEs move between its cells).
    #[serde(default)]
    pub ues: BTreeMap<String, UeFile>,
}

// The defaults of the radio's cell ([`LteCellConfig::lte_default`]) and constants, where they
// are explained and cited.
fn radio() -> LteCellConfig {
    LteCellConfig::lte_default("", NodeId(0))
}
fn bandwidth_mhz() -> f64 {
    DEFAULT_BANDWIDTH_MHZ
}
fn two() -> f64 {
    radio().carrier_hz / 1e9
}
fn nine() -> f64 {
    radio().noise_figure_db
}
fn shadowing_decorrelation_m() -> f64 {
    DEFAULT_SHADOWING_DECORRELATION_M
}
fn four() -> u8 {
    radio().harq.max_transmissions
}
fn pf() -> String {
    radio().scheduler
}
fn pf_time_constant() -> Quantity<Time> {
    let tti_ms = radio().pf_time_constant_tti;
    Quantity::default_of_text(units::format_time(SimDuration::from_ms(tti_ms as u64)))
}
fn cqi_period() -> Quantity<Time> {
    Quantity::default_ms(SimDuration::from_ms(u64::from(radio().cqi_period_tti)))
}
fn cqi_delay() -> Quantity<Time> {
    Quantity::default_ms(SimDuration::from_ms(u64::from(radio().cqi_delay_tti)))
}

/// A validated cell: the file's values after range checks, times resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct CellSpec {
    pub file: CellFile,
    /// [x, y] of the eNB antenna, metres: as written, from `ran.layout`, or [0, 0].
    pub position: [f64; 2],
    pub cqi_period_tti: u32,
    pub cqi_delay_tti: u32,
    /// `rlc` as the radio's configuration of the bearer's RLC.
    pub rlc: RlcModeConfig,
    /// `pdcp` as the radio's PDCP configuration.
    pub pdcp: PdcpConfig,
    /// Proportional-fair time constant, TTIs (1 ms each).
    pub pf_time_constant_tti: f64,
    /// `uplink` as the radio's uplink configuration.
    pub uplink: UplinkConfig,
    /// The BLER curves read from `bler_table`, if given: a curve for every MCS, each with a
    /// 10 % point, so that every CQI maps to an SINR threshold.
    pub bler_table: Option<Arc<BlerTable>>,
    /// `fixed_mcs` as the cell's MCS type (checked against the MCS table here, so the cell
    /// is built with an MCS every table and BLER curve of it covers).
    pub fixed_mcs: Option<Mcs>,
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

// `%` rather than `is_multiple_of`, which is newer than the workspace's rust-version (1.80).
#[allow(clippy::manual_is_multiple_of)]
fn whole_ms(key: String, q: &Quantity<Time>, min_ms: u64) -> Result<u32, ScenarioError> {
    let ns = q.value.as_ns();
    if ns % 1_000_000 != 0 || ns / 1_000_000 < min_ms {
        return Err(ScenarioError::new(
            key,
            format!("'{q}' is not a whole number of TTIs; expected a multiple of 1ms, at least {min_ms}ms"),
        ));
    }
    Ok((ns / 1_000_000) as u32)
}

/// Validates the cells against the nodes; every UE is served by one cell only. Outside a radio
/// access network (`in_ran` false) every cell serves at least one UE.
pub(crate) fn convert(
    file: &BTreeMap<String, CellFile>,
    nodes: &BTreeMap<String, Node>,
    in_ran: bool,
) -> Result<BTreeMap<String, CellSpec>, ScenarioError> {
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
        if !CHANNEL_BANDWIDTHS
            .iter()
            .any(|(b, _)| (b - c.bandwidth_mhz).abs() < 1e-9)
        {
            return Err(ScenarioError::new(
                key("bandwidth_mhz"),
                format!(
                    "{} is not an LTE bandwidth; expected one of 1.4, 3, 5, 10, 15, 20",
                    c.bandwidth_mhz
                ),
            ));
        }
        let radio = [
            ("carrier_ghz", c.carrier_ghz, 0.5, 100.0, "0.5 to 100 (GHz)"),
            (
                "tx_power_dbm",
                c.tx_power_dbm,
                -30.0,
                80.0,
                "-30 to 80 (dBm)",
            ),
            (
                "noise_figure_db",
                c.noise_figure_db,
                0.0,
                30.0,
                "0 to 30 (dB)",
            ),
            ("shadowing_db", c.shadowing_db, 0.0, 30.0, "0 to 30 (dB)"),
            (
                "shadowing_decorrelation_m",
                c.shadowing_decorrelation_m,
                0.1,
                1e4,
                "0.1 to 10000 (m)",
            ),
        ];
        for (k, v, lo, hi, what) in radio {
            range(key(k), v, lo, hi, what)?;
        }
        if c.los.is_probabilistic()
            && matches!(
                c.pathloss,
                PathLossKind::FreeSpace | PathLossKind::LogDistance
            )
        {
            return Err(ScenarioError::new(
                key("los"),
                "\"probabilistic\" needs a path-loss model with a LOS condition: pathloss = \"uma\" or \"umi\"",
            ));
        }
        if c.pathloss == PathLossKind::LogDistance {
            for (k, v) in [
                ("pl0_db", c.pl0_db),
                ("d0_m", c.d0_m),
                ("exponent", c.exponent),
            ] {
                if v.is_none() {
                    return Err(ScenarioError::new(
                        key(k),
                        "required by pathloss = \"log_distance\"",
                    ));
                }
            }
        }
        if !SCHEDULERS.contains(&c.scheduler.as_str()) {
            return Err(ScenarioError::new(
                key("scheduler"),
                format!(
                    "'{}' is not a MAC scheduler; expected one of: {}",
                    c.scheduler,
                    SCHEDULERS.join(", ")
                ),
            ));
        }
        let pf_time_constant_tti = pf_time_constant_tti(&key("pf_time_constant"), c)?;
        let link = [
            (
                "harq_max_transmissions",
                f64::from(c.harq_max_transmissions),
                1.0,
                8.0,
                "1 to 8",
            ),
            (
                "bler_decade_db",
                c.bler_decade_db,
                0.1,
                10.0,
                "0.1 to 10 (dB from BLER 10 % to 1 %)",
            ),
        ];
        for (k, v, lo, hi, what) in link {
            range(key(k), v, lo, hi, what)?;
        }
        let fixed_mcs = fixed_mcs(key("fixed_mcs"), c.fixed_mcs, c.cqi_table)?;
        let link = [
            (
                "rlc.max_retx",
                f64::from(c.rlc.max_retx),
                1.0,
                32.0,
                "1 to 32",
            ),
            (
                "uplink.loss",
                c.uplink.loss,
                0.0,
                1.0,
                "a probability in [0, 1]",
            ),
        ];
        for (k, v, lo, hi, what) in link {
            range(key(k), v, lo, hi, what)?;
        }
        let rlc = c.rlc.config(&key)?;
        check_pdcp(&key, c, in_ran)?;
        if c.uplink.rate.value == 0 {
            return Err(ScenarioError::new(
                key("uplink.rate"),
                "must be a positive rate, e.g. '5Mbps'",
            ));
        }
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
            check_weight(&format!("{ukey}.weight"), u.weight, &c.scheduler)?;
        }
        nr::check(name, c, in_ran)?;
        let bler_table = bler_table::read(name, c)?;
        let downlink_loss = downlink_loss::resolve(name, c)?;
        let cqi_period_tti = whole_ms(key("cqi_period"), &c.cqi_period, 1)?;
        let cqi_delay_tti = whole_ms(key("cqi_delay"), &c.cqi_delay, 0)?;
        out.insert(
            name.clone(),
            CellSpec {
                file: c.clone(),
                position: c.position.unwrap_or_default(),
                cqi_period_tti,
                cqi_delay_tti,
                rlc,
                pdcp: PdcpConfig::from(&c.pdcp),
                pf_time_constant_tti,
                uplink: UplinkConfig::from(&c.uplink),
                bler_table,
                fixed_mcs,
                downlink_loss,
            },
        );
    }
    if in_ran {
        same_pdcp_in_ran(file)?;
    }
    Ok(out)
}

/// `fixed_mcs` as an [`Mcs`]: an index with its own transport block size in the MCS table of
/// `table`, 0 to 28 (TS 36.213 Table 7.1.7.1-1) or 0 to 27 (Table 7.1.7.1-1A).
fn fixed_mcs(
    key: String,
    index: Option<u8>,
    table: CqiTable,
) -> Result<Option<Mcs>, ScenarioError> {
    index
        .map(|m| match Mcs::new(m) {
            Ok(mcs) if table.has_mcs(m) => Ok(mcs),
            _ if m <= CqiTable::Table1.mcs_max() => Err(ScenarioError::new(
                key,
                format!(
                    "{m} is out of range with cqi_table = \"{}\"; expected an MCS index 0 to {} \
                     (TS 36.213 Table {})",
                    table.name(),
                    table.mcs_max(),
                    table.mcs_table_name()
                ),
            )),
            _ => Err(ScenarioError::new(
                key,
                format!(
                    "{m} is out of range; expected an MCS index 0 to {}",
                    table.mcs_max()
                ),
            )),
        })
        .transpose()
}

/// `pf_time_constant` in TTIs (1 ms each): at least one TTI, and other than the default only
/// with the proportional-fair scheduler (no other scheduler reads it).
fn pf_time_constant_tti(key: &str, c: &CellFile) -> Result<f64, ScenarioError> {
    let q = &c.pf_time_constant;
    let ns = q.value.as_ns();
    if ns < 1_000_000 {
        return Err(ScenarioError::new(
            key,
            format!("'{q}' is too short; expected a time ≥ 1ms (one TTI)"),
        ));
    }
    if c.scheduler != "proportional_fair" && q.value != pf_time_constant().value {
        return Err(ScenarioError::new(
            key,
            format!(
                "'{q}' is given but scheduler is \"{}\"; it applies to \"proportional_fair\" only",
                c.scheduler
            ),
        ));
    }
    Ok(ns as f64 / 1e6)
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
