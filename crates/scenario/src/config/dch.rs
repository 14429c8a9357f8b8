//! `[dch.NAME]`: a WCDMA/UMTS dedicated channel with RLC acknowledged mode between an RNC
//! router and one UE host (see docs/wcdma.md for the model).
//!
//! The file gives rates, TTIs and times with units and the BLERs as plain probabilities; the
//! typed form keeps them resolved for the world builder, which maps them onto the radio crate's
//! `DchConfig`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use celltcp_engine::SimDuration;
use celltcp_net::queue::QueueLimit;
use celltcp_radio::dch::{
    BlockErrorModel, DchDirectionConfig, DchRlcConfig, GilbertElliottConfig, TransportFormat,
    AMD_HEADER_BYTES, DCH_TTIS_MS, MAX_PDU_BYTES,
};
use celltcp_radio::rlc::BufferLimit;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::cells::CellSpec;
use super::nodes::{Node, NodeKind};
use super::quantity::{Limit, Quantity, Rate, Size, Time};
use crate::validate::{check_name, node_ref, positive_time};
use crate::ScenarioError;

/// Largest MaxDAT of 25.331's "Transmission RLC discard" IE.
pub const MAX_DAT_MAX: u32 = 40;
/// The values MaxDAT may take: TS 25.331 §10.3.4.25 "Transmission RLC Discard", IE MaxDAT,
/// Integer(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 35, 40). RRC cannot signal any
/// other, so a scenario may not ask for one.
pub const MAX_DAT_VALUES: [u32; 16] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 35, 40];
/// Largest AMD PDU payload, bytes: a PDU of at most 5000 bits (25.331 RLC PDU size).
pub const PDU_SIZE_MAX_BYTES: u64 = (MAX_PDU_BYTES - AMD_HEADER_BYTES) as u64;

/// `rlc.max_dat`: a number of transmissions, or `"unlimited"` (no SDU discard).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaxDatFile {
    Transmissions(u32),
    Unlimited,
}

impl Serialize for MaxDatFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            MaxDatFile::Transmissions(n) => s.serialize_u32(*n),
            MaxDatFile::Unlimited => s.serialize_str("unlimited"),
        }
    }
}

impl<'de> Deserialize<'de> for MaxDatFile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MaxDatVisitor)
    }
}

struct MaxDatVisitor;

impl Visitor<'_> for MaxDatVisitor {
    type Value = MaxDatFile;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "one of 1 to 10, 15, 20, 25, 30, 35, 40 (TS 25.331 §10.3.4.25 MaxDAT), or 'unlimited'"
        )
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<MaxDatFile, E> {
        match u32::try_from(v) {
            Ok(n) if MAX_DAT_VALUES.contains(&n) => Ok(MaxDatFile::Transmissions(n)),
            _ => Err(E::invalid_value(de::Unexpected::Signed(v), &self)),
        }
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<MaxDatFile, E> {
        self.visit_i64(i64::try_from(v).unwrap_or(-1))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<MaxDatFile, E> {
        if v == "unlimited" {
            Ok(MaxDatFile::Unlimited)
        } else {
            Err(E::invalid_value(de::Unexpected::Str(v), &self))
        }
    }
}

impl JsonSchema for MaxDatFile {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("MaxDat")
    }

    fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "MaxDAT (25.322 §11.6): transmissions of a PDU before its SDUs are discarded, one of the values of TS 25.331 §10.3.4.25, or 'unlimited'.",
            "anyOf": [
                { "type": "integer", "enum": MAX_DAT_VALUES },
                { "const": "unlimited" }
            ],
        })
    }
}

/// `errors.model`: how the transport blocks of a direction are lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorModelName {
    /// Each block lost with probability `bler`, independently of the others.
    Independent,
    /// A two-state Gilbert–Elliott channel stepping once per TTI, long-run BLER `bler`.
    GilbertElliott,
}

/// `[dch.NAME] errors` (and `uplink_errors`) as written: the block-error process of a
/// direction (docs/wcdma.md, "Block errors").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DchErrorsFile {
    /// "independent" (the default) or "gilbert_elliott" (bursts).
    pub model: ErrorModelName,
    /// gilbert_elliott: mean duration of a burst, the bad state's mean stay (a time, at least
    /// one TTI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_burst: Option<Quantity<Time>>,
    /// gilbert_elliott: block error rate in the bad state, above `bler` and at most 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bad_bler: Option<f64>,
    /// gilbert_elliott: long-run share of TTIs in the bad state, in (0, bler / bad_bler];
    /// bler / bad_bler by default (an error-free good state).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bad_share: Option<f64>,
}

impl Default for DchErrorsFile {
    fn default() -> Self {
        DchErrorsFile {
            model: ErrorModelName::Independent,
            mean_burst: None,
            bad_bler: None,
            bad_share: None,
        }
    }
}

/// `[dch.NAME.rlc]` as written: RLC AM of both directions (25.322, 25.331 names).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DchRlcFile {
    /// Data field of an AMD PDU (a size, 4B to 623B); the PDU and transport block are 2 bytes
    /// more (40B: the 336-bit blocks of TS 34.108).
    pub pdu_size: Quantity<Size>,
    /// MaxDAT: transmissions of a PDU before its SDUs are discarded (1 to 40), or "unlimited".
    pub max_dat: MaxDatFile,
    /// Each end's buffer of SDUs not yet sent: packets ("100p") or bytes ("32KB").
    pub buffer: Quantity<Limit>,
    /// Timer_Poll: an unanswered poll is repeated after this (a time, > 0).
    pub timer_poll: Quantity<Time>,
    /// Timer_Status_Prohibit: least time between two STATUS reports (a time).
    pub timer_status_prohibit: Quantity<Time>,
    /// Poll_PDU: a poll every this many new PDUs (1 to 4096).
    pub poll_pdu: u32,
}

impl Default for DchRlcFile {
    /// The radio's [`DchRlcConfig::default`] (40-byte payload, MaxDAT 10, Timer_Poll 300 ms,
    /// Timer_Status_Prohibit 150 ms, Poll_PDU 32, 32 kB buffer), written as the file writes it.
    fn default() -> Self {
        let d = DchRlcConfig::default();
        let buffer = match d.tx_buffer {
            BufferLimit::Sdus(n) => QueueLimit::Packets(n as u32),
            BufferLimit::Bytes(b) => QueueLimit::Bytes(b),
            BufferLimit::Unlimited => unreachable!("the DCH's default buffer is limited"),
        };
        DchRlcFile {
            pdu_size: Quantity::default_of_text(format!("{}B", d.pdu_payload_bytes)),
            max_dat: d
                .max_dat
                .map_or(MaxDatFile::Unlimited, MaxDatFile::Transmissions),
            buffer: Quantity::default_of_text(crate::units::format_queue_limit(buffer)),
            timer_poll: Quantity::default_ms(d.timer_poll),
            timer_status_prohibit: Quantity::default_ms(d.timer_status_prohibit),
            poll_pdu: d.poll_pdu.unwrap_or(u32::MAX),
        }
    }
}

impl From<&DchRlcFile> for DchRlcConfig {
    /// The radio's configuration of a checked `[dch.NAME.rlc]`.
    fn from(r: &DchRlcFile) -> Self {
        DchRlcConfig {
            pdu_payload_bytes: r.pdu_size.value as u32,
            max_dat: match r.max_dat {
                MaxDatFile::Transmissions(n) => Some(n),
                MaxDatFile::Unlimited => None,
            },
            timer_poll: r.timer_poll.value,
            timer_status_prohibit: r.timer_status_prohibit.value,
            poll_pdu: Some(r.poll_pdu),
            tx_buffer: match r.buffer.value {
                QueueLimit::Packets(n) => BufferLimit::Sdus(n as usize),
                QueueLimit::Bytes(b) => BufferLimit::Bytes(b),
            },
        }
    }
}

/// `[dch.NAME]` as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DchFile {
    /// The RNC (an existing router).
    pub rnc: String,
    /// The UE (an existing host, served by no cell and no other DCH).
    pub ue: String,
    /// Downlink rate: RLC payload bits per second of the largest transport format (a rate;
    /// 64, 128, 256 and 384 kbps are the standard ones).
    pub rate: Quantity<Rate>,
    /// Downlink TTI: 10ms, 20ms, 40ms or 80ms.
    #[serde(default = "tti_10ms")]
    pub tti: Quantity<Time>,
    /// Downlink block error rate per transport block, in [0, 1).
    #[serde(default)]
    pub bler: f64,
    /// Uplink rate (a rate).
    #[serde(default = "rate_64kbps")]
    pub uplink_rate: Quantity<Rate>,
    /// Uplink TTI: 10ms, 20ms, 40ms or 80ms.
    #[serde(default = "tti_20ms")]
    pub uplink_tti: Quantity<Time>,
    /// Uplink block error rate, in [0, 1); the downlink's by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplink_bler: Option<f64>,
    /// How the downlink's block errors fall: `{ model = "independent" }` (the default) or
    /// `{ model = "gilbert_elliott", mean_burst, bad_bler, bad_share }` (bursts with long-run
    /// BLER `bler`).
    #[serde(default)]
    pub errors: DchErrorsFile,
    /// The uplink's: the downlink's `errors` by default, independent when the uplink BLER is 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplink_errors: Option<DchErrorsFile>,
    /// From the end of a TTI to delivery at the other end: Iub transport and Node B/RNC
    /// processing (a time, both directions).
    #[serde(default = "delay_20ms")]
    pub delay: Quantity<Time>,
    /// Idle gaps of the downlink RLC shorter than this count in the RLC throughput's active
    /// time; longer ones end a session (a time, > 0).
    #[serde(default = "gap_2s")]
    pub session_gap: Quantity<Time>,
    #[serde(default)]
    pub rlc: DchRlcFile,
}

fn tti_10ms() -> Quantity<Time> {
    Quantity::default_of("10ms")
}
fn tti_20ms() -> Quantity<Time> {
    Quantity::default_of("20ms")
}
fn rate_64kbps() -> Quantity<Rate> {
    Quantity::default_of("64kbps")
}
fn delay_20ms() -> Quantity<Time> {
    Quantity::default_of("20ms")
}
fn gap_2s() -> Quantity<Time> {
    Quantity::default_of("2s")
}

/// A validated `[dch.NAME]`, units resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct DchSpec {
    pub file: DchFile,
    pub downlink: DchDirectionConfig,
    pub uplink: DchDirectionConfig,
    pub delay: SimDuration,
    pub session_gap: SimDuration,
    /// `rlc` as the radio's RLC configuration of the channel.
    pub rlc: DchRlcConfig,
}

fn tti(key: String, q: &Quantity<Time>) -> Result<SimDuration, ScenarioError> {
    if DCH_TTIS_MS
        .iter()
        .any(|&ms| SimDuration::from_ms(ms) == q.value)
    {
        Ok(q.value)
    } else {
        Err(ScenarioError::new(
            key,
            format!("'{q}' is not a DCH TTI; expected 10ms, 20ms, 40ms or 80ms"),
        ))
    }
}

fn bler(key: String, b: f64) -> Result<f64, ScenarioError> {
    if (0.0..1.0).contains(&b) {
        Ok(b)
    } else {
        Err(ScenarioError::new(
            key,
            format!("{b} is not a block error rate; expected a number in [0, 1)"),
        ))
    }
}

/// The keys of one direction in `[dch.NAME]`.
struct DirectionKeys {
    rate: &'static str,
    tti: &'static str,
    bler: &'static str,
    errors: &'static str,
}

const DOWNLINK: DirectionKeys = DirectionKeys {
    rate: "rate",
    tti: "tti",
    bler: "bler",
    errors: "errors",
};
const UPLINK: DirectionKeys = DirectionKeys {
    rate: "uplink_rate",
    tti: "uplink_tti",
    bler: "uplink_bler",
    errors: "uplink_errors",
};

/// The error model of `e`, its keys checked against the model; the combination with the BLER
/// and TTI is checked by the caller.
fn error_model(
    key: &dyn Fn(&str) -> String,
    keys: &DirectionKeys,
    e: &DchErrorsFile,
) -> Result<BlockErrorModel, ScenarioError> {
    let sub = |k: &str| key(&format!("{}.{k}", keys.errors));
    match e.model {
        ErrorModelName::Independent => {
            let given = [
                ("mean_burst", e.mean_burst.is_some()),
                ("bad_bler", e.bad_bler.is_some()),
                ("bad_share", e.bad_share.is_some()),
            ];
            match given.iter().find(|g| g.1) {
                Some((k, _)) => Err(ScenarioError::new(
                    sub(k),
                    "applies to model = \"gilbert_elliott\" only; independent losses take \
                     only the BLER"
                        .to_string(),
                )),
                None => Ok(BlockErrorModel::Independent),
            }
        }
        ErrorModelName::GilbertElliott => {
            let missing = |k: &str, example: &str| {
                ScenarioError::new(
                    sub(k),
                    format!("is required with model = \"gilbert_elliott\" (e.g. {k} = {example})"),
                )
            };
            let mean_burst = e
                .mean_burst
                .as_ref()
                .ok_or_else(|| missing("mean_burst", "\"200ms\""))?;
            let bad_bler = e.bad_bler.ok_or_else(|| missing("bad_bler", "0.9"))?;
            Ok(BlockErrorModel::GilbertElliott(GilbertElliottConfig {
                mean_burst: mean_burst.value,
                bad_bler,
                bad_share: e.bad_share,
            }))
        }
    }
}

/// One direction, checked: the rate fills at least one transport block per TTI, and the error
/// model can give the BLER.
fn direction(
    key: &dyn Fn(&str) -> String,
    keys: &DirectionKeys,
    rate: &Quantity<Rate>,
    tti_q: &Quantity<Time>,
    b: f64,
    errors: &DchErrorsFile,
    payload: u32,
) -> Result<DchDirectionConfig, ScenarioError> {
    let d = DchDirectionConfig {
        rate_bps: rate.value,
        tti: tti(key(keys.tti), tti_q)?,
        bler: bler(key(keys.bler), b)?,
        errors: error_model(key, keys, errors)?,
    };
    if TransportFormat::new(&d, payload).is_err() {
        return Err(ScenarioError::new(
            key(keys.rate),
            format!("'{rate}' carries less than one {payload}-byte RLC payload per {tti_q} TTI; use a higher rate"),
        ));
    }
    if let BlockErrorModel::GilbertElliott(ge) = &d.errors {
        // The radio crate's keys are relative to the direction: `bler` or `errors.KEY`.
        ge.chain(d.bler, d.tti).map_err(|e| {
            let k = match e.key.strip_prefix("errors.") {
                Some(sub) => format!("{}.{sub}", keys.errors),
                None => keys.bler.to_string(),
            };
            let message = if k == keys.bler {
                format!(
                    "{} (with {} = {{ model = \"gilbert_elliott\" }})",
                    e.message, keys.errors
                )
            } else {
                e.message
            };
            ScenarioError::new(key(&k), message)
        })?;
    }
    Ok(d)
}

/// Validates the dedicated channels against the nodes and the cells; fills the uplink BLER and
/// error model in the file when left to their defaults, so that the echo shows them.
pub(crate) fn convert(
    file: &mut BTreeMap<String, DchFile>,
    nodes: &BTreeMap<String, Node>,
    cells: &BTreeMap<String, CellSpec>,
) -> Result<BTreeMap<String, DchSpec>, ScenarioError> {
    let mut out = BTreeMap::new();
    for (name, d) in file.iter_mut() {
        check_name("dch", name)?;
        let key = |k: &str| format!("dch.{name}.{k}");
        if cells.contains_key(name) {
            return Err(ScenarioError::new(
                format!("dch.{name}"),
                format!("'{name}' is also a cell's name; cells and dedicated channels need distinct names"),
            ));
        }
        node_ref(&key("rnc"), &d.rnc, nodes)?;
        if nodes[&d.rnc].kind != NodeKind::Router {
            return Err(ScenarioError::new(
                key("rnc"),
                format!("node '{}' is a host; an RNC is a router", d.rnc),
            ));
        }
        node_ref(&key("ue"), &d.ue, nodes)?;
        if nodes[&d.ue].kind != NodeKind::Host {
            return Err(ScenarioError::new(
                key("ue"),
                format!("node '{}' is a router; a UE is a host", d.ue),
            ));
        }
        if let Some((cell, _)) = cells.iter().find(|(_, c)| c.file.ues.contains_key(&d.ue)) {
            return Err(ScenarioError::new(
                key("ue"),
                format!("UE '{}' is already served by cell '{cell}'", d.ue),
            ));
        }
        let r = &d.rlc;
        if !(4..=PDU_SIZE_MAX_BYTES).contains(&r.pdu_size.value) {
            return Err(ScenarioError::new(
                key("rlc.pdu_size"),
                format!(
                    "'{}' is out of range; expected 4B to {PDU_SIZE_MAX_BYTES}B",
                    r.pdu_size
                ),
            ));
        }
        let payload = r.pdu_size.value as u32;
        let downlink = direction(&key, &DOWNLINK, &d.rate, &d.tti, d.bler, &d.errors, payload)?;
        let ul_bler = *d.uplink_bler.get_or_insert(d.bler);
        // The uplink's errors follow the downlink's, as its BLER does, unless it has no errors.
        let ul_errors = d
            .uplink_errors
            .get_or_insert_with(|| {
                if ul_bler > 0.0 {
                    d.errors.clone()
                } else {
                    DchErrorsFile::default()
                }
            })
            .clone();
        let uplink = direction(
            &key,
            &UPLINK,
            &d.uplink_rate,
            &d.uplink_tti,
            ul_bler,
            &ul_errors,
            payload,
        )?;
        positive_time(&key("session_gap"), &d.session_gap)?;
        positive_time(&key("rlc.timer_poll"), &r.timer_poll)?;
        if let QueueLimit::Packets(0) | QueueLimit::Bytes(0) = r.buffer.value {
            return Err(ScenarioError::new(
                key("rlc.buffer"),
                format!("'{}' must be > 0", r.buffer),
            ));
        }
        if !(1..=4096).contains(&r.poll_pdu) {
            return Err(ScenarioError::new(
                key("rlc.poll_pdu"),
                format!("{} is out of range; expected 1 to 4096 PDUs", r.poll_pdu),
            ));
        }
        out.insert(
            name.clone(),
            DchSpec {
                downlink,
                uplink,
                delay: d.delay.value,
                session_gap: d.session_gap.value,
                rlc: DchRlcConfig::from(r),
                file: d.clone(),
            },
        );
    }
    // One channel per UE (the later name in name order is reported).
    let mut served: BTreeMap<&str, &str> = BTreeMap::new();
    for (name, d) in file.iter() {
        if let Some(other) = served.insert(&d.ue, name) {
            return Err(ScenarioError::new(
                format!("dch.{name}.ue"),
                format!("UE '{}' already has the DCH '{other}'", d.ue),
            ));
        }
    }
    Ok(out)
}

/// The (RNC, UE) pair of every dedicated channel, for reachability checks.
pub(crate) fn radio_edges(dch: &BTreeMap<String, DchSpec>) -> Vec<(String, String)> {
    dch.values()
        .map(|d| (d.file.rnc.clone(), d.file.ue.clone()))
        .collect()
}
