//! TCP flows (`kind = "tcp"`): congestion controller, application and endpoint settings.
//!
//! The endpoint's keys are [`TcpConfig`]'s own: its serde form and JSON Schema name them, give
//! their defaults and their ranges ([`TcpConfig::validate_showing`]). This module adds only the
//! units of the keys the schema marks with `"x-unit"`: it reads `"200ms"` and `"4MB"` where the
//! domain type reads integer nanoseconds and bytes, and writes the echo and the schema with
//! units, keeping the text the file gave.

use std::borrow::Cow;
use std::fmt;
use std::sync::LazyLock;

use celltcp_tcp::TcpConfig;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use toml::{Table, Value};

use super::apps::{AppFile, AppSpec};
use super::flows::zero_start;
use super::quantity::{Quantity, Time};
use super::unit_keys::{self, unit_keys, UnitKeys};
use crate::de::from_table_at;
use crate::error::join_key;
use crate::ScenarioError;

/// A TCP flow (`kind = "tcp"`): data flows from `src` (the TCP sender) to `dst`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpFlowFile {
    /// Sending host (TCP active opener and data sender).
    pub src: String,
    /// Receiving host.
    pub dst: String,
    /// When the sender connects (a time, before the end of the run).
    #[serde(default = "zero_start")]
    pub start: Quantity<Time>,
    /// When the application stops sending (a time, after start, at most the run's duration);
    /// end of run by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Quantity<Time>>,
    /// Congestion controller.
    pub cc: CcAlgorithm,
    /// Application at the sender.
    pub app: AppFile,
    /// Endpoint settings; every key is optional.
    #[serde(default)]
    pub tcp: TcpFile,
    /// Source port; 49152 + i for the i-th flow in name order by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub src_port: Option<u16>,
    /// Destination port; 5001 + i for the i-th flow in name order by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub dst_port: Option<u16>,
}

/// Congestion control algorithms, by the name `celltcp_tcp::cc::build` takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CcAlgorithm {
    /// Reno (RFC 5681) without NewReno's partial-ACK handling.
    Reno,
    /// NewReno (RFC 6582).
    #[serde(rename = "newreno")]
    NewReno,
    /// CUBIC (RFC 9438).
    Cubic,
    /// CUBIC as Linux's `tcp_cubic.c` runs it (Reno-friendly increase, target horizon).
    #[serde(rename = "cubic-linux")]
    CubicLinux,
    /// BBR (v1, draft-cardwell-iccrg-bbr-congestion-control).
    Bbr,
    /// Vegas (Brakmo & Peterson 1995).
    Vegas,
    /// Westwood+ (Mascolo et al.; Grieco & Mascolo 2004): one bandwidth sample per RTT.
    Westwood,
    /// The original Westwood (Mascolo et al., MobiCom 2001) as ns-3's `TcpWestwood` runs it:
    /// per-ACK samples, Tustin filter, Reno recovery.
    #[serde(rename = "westwood-original")]
    WestwoodOriginal,
    /// PETRA, the loss-differentiating controller for LTE described in docs/petra.md.
    Petra,
}

impl CcAlgorithm {
    /// The name in scenario files and in `celltcp_tcp::cc::build`.
    pub fn name(self) -> &'static str {
        match self {
            CcAlgorithm::Reno => "reno",
            CcAlgorithm::NewReno => "newreno",
            CcAlgorithm::Cubic => "cubic",
            CcAlgorithm::CubicLinux => "cubic-linux",
            CcAlgorithm::Bbr => "bbr",
            CcAlgorithm::Vegas => "vegas",
            CcAlgorithm::Westwood => "westwood",
            CcAlgorithm::WestwoodOriginal => "westwood-original",
            CcAlgorithm::Petra => "petra",
        }
    }
}

/// `[flows.NAME.tcp]`: TCP endpoint settings as written; every key is optional and is a key of
/// [`TcpConfig`] (the type's defaults fill the others).
///
/// The keys are checked when the flow is resolved (`TcpFile::resolve`), with the dotted key
/// of the file in every message. Serialised (the run's echo of the scenario), every key is
/// present: the values given as written, the others the defaults with their units.
#[derive(Clone, Debug, Default)]
pub struct TcpFile {
    written: Table,
}

/// The keys of [`TcpConfig`] with a unit, in the order of the type's fields.
static UNIT_KEYS: LazyLock<UnitKeys> = LazyLock::new(unit_keys::<TcpConfig>);

/// `config` in the file's form: the keys with a unit as text (`"200ms"`, `"4MB"`).
fn file_form(config: &TcpConfig) -> serde_json::Map<String, serde_json::Value> {
    unit_keys::file_form(config, &UNIT_KEYS)
}

/// `over` laid over `base`, tables key by key.
fn overlay(base: &mut serde_json::Map<String, serde_json::Value>, over: &Table) {
    for (key, value) in over {
        let value = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
        match (base.get_mut(key), value) {
            (Some(serde_json::Value::Object(inner)), serde_json::Value::Object(given)) => {
                for (k, v) in given {
                    inner.insert(k, v);
                }
            }
            (_, value) => {
                base.insert(key.clone(), value);
            }
        }
    }
}

impl TcpFile {
    /// The settings at dotted key `key` (`flows.bulk.tcp`), checked: the units resolved, every
    /// key known and of its type, every value in range.
    pub(crate) fn resolve(&self, key: &str) -> Result<TcpConfig, ScenarioError> {
        let table = unit_keys::resolve(&self.written, key, &UNIT_KEYS)?;
        let config: TcpConfig = from_table_at(&table, key)?;
        config
            .validate_showing(&|field| self.shown(field, &config))
            .map_err(|e| ScenarioError::new(join_key(key, e.field), e.message))?;
        Ok(config)
    }

    /// The value of `field` in messages: as written, else the default with its unit.
    fn shown(&self, field: &str, config: &TcpConfig) -> String {
        match self.written.get(field) {
            Some(Value::String(text)) => text.clone(),
            _ => match file_form(config).get(field) {
                Some(serde_json::Value::String(text)) => text.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            },
        }
    }

    /// Every key: the values as written over the defaults.
    fn echo(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut map = file_form(&TcpConfig::default());
        overlay(&mut map, &self.written);
        map
    }
}

/// Two sections are equal when they give every key the same value (`"1000ms"` and `"1s"` are
/// two values, as the echo shows them).
impl PartialEq for TcpFile {
    fn eq(&self, other: &Self) -> bool {
        self.echo() == other.echo()
    }
}

impl Serialize for TcpFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.echo().serialize(s)
    }
}

/// Keeps the table as written; `TcpFile::resolve` reads it.
impl<'de> Deserialize<'de> for TcpFile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(TableVisitor)
    }
}

struct TableVisitor;

impl<'de> Visitor<'de> for TableVisitor {
    type Value = TcpFile;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a table")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TcpFile, A::Error> {
        let mut written = Table::new();
        while let Some((key, value)) = map.next_entry::<String, Value>()? {
            written.insert(key, value);
        }
        Ok(TcpFile { written })
    }
}

/// [`TcpConfig`]'s schema, with the units of the keys it marks and their defaults as text.
impl JsonSchema for TcpFile {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("TcpFile")
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        unit_keys::schema_with_units::<TcpConfig>(generator, &file_form(&TcpConfig::default()))
    }
}

/// A TCP flow: controller, application and endpoint settings.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpFlow {
    pub cc: CcAlgorithm,
    pub app: AppSpec,
    pub settings: TcpConfig,
}

impl TcpFlowFile {
    pub(crate) fn convert(&self, key: &str) -> Result<TcpFlow, ScenarioError> {
        let app = self.app.convert(&join_key(key, "app"))?;
        let settings = self.tcp.resolve(&join_key(key, "tcp"))?;
        Ok(TcpFlow {
            cc: self.cc,
            app,
            settings,
        })
    }
}
