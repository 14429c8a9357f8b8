//! The keys of a domain configuration that carry a unit, as its JSON Schema marks them
//! (`"x-unit"`): read from the file's text (`"200ms"`, `"4MB"`) into the integer form the
//! domain type deserialises (nanoseconds, bytes), and written back with units for the echo and
//! the schema.
//!
//! A domain type read this way (`celltcp_tcp::TcpConfig` for `[flows.NAME.tcp]`,
//! `celltcp_radio::cell::CellRadioConfig` for the radio keys of `[cells.NAME]`,
//! `CellRlcConfig` and `PdcpConfig` for the bearer's tables) keeps its keys, defaults and
//! checks; this module is all the file layer adds to it. The units are the marks' kinds: a
//! time, a time or `false`, a size, a size or `"infinity"`, a queue limit in packets or bytes.

use std::fmt;

use celltcp_engine::SimDuration;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use toml::{Table, Value};

use celltcp_net::queue::QueueLimit;

use super::quantity::{Limit, Quantity, Size, Time};
use crate::de::from_value_at;
use crate::error::join_key;
use crate::units::{format_queue_limit, format_size, format_time_secs};
use crate::ScenarioError;

/// The unit of a key, as the schema of its domain type marks it (`"x-unit"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A time; the domain type takes integer nanoseconds.
    Time,
    /// A time, or `false` to switch the timer off.
    TimeOrFalse,
    /// A size; the domain type takes integer bytes.
    Size,
    /// A size, or `"infinity"` for none (RLC's pollByte); the domain type takes integer bytes
    /// or the text `"infinity"`.
    SizeOrInfinity,
    /// A queue limit in packets (`"500p"`) or bytes (`"1MB"`); the domain type takes
    /// `celltcp_net::queue::QueueLimit`'s form, `{packets = n}` or `{bytes = n}`.
    QueueLimit,
}

impl Unit {
    /// The unit a schema marks with `"x-unit" = name`.
    fn of_mark(name: &str) -> Option<Unit> {
        Some(match name {
            "time" => Unit::Time,
            "time-or-false" => Unit::TimeOrFalse,
            "size" => Unit::Size,
            "size-or-infinity" => Unit::SizeOrInfinity,
            "queue-limit" => Unit::QueueLimit,
            _ => return None,
        })
    }
}

/// The keys of `T` with a unit, in the order of the schema's properties.
pub(crate) fn unit_keys<T: JsonSchema>() -> Vec<(String, Unit)> {
    let schema = schemars::schema_for!(T);
    let Some(properties) = schema
        .get("properties")
        .and_then(serde_json::Value::as_object)
    else {
        return Vec::new();
    };
    properties
        .iter()
        .filter_map(|(key, property)| {
            let unit = Unit::of_mark(property.get("x-unit")?.as_str()?)?;
            Some((key.clone(), unit))
        })
        .collect()
}

/// A timer as written: a time, or `false`.
pub(crate) enum TimerFile {
    Off,
    After(Quantity<Time>),
}

impl<'de> Deserialize<'de> for TimerFile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TimerVisitor)
    }
}

struct TimerVisitor;

impl Visitor<'_> for TimerVisitor {
    type Value = TimerFile;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a time like '40ms', or false")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<TimerFile, E> {
        if v {
            Err(E::custom(
                "true is not allowed; use a time like '40ms', or false",
            ))
        } else {
            Ok(TimerFile::Off)
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<TimerFile, E> {
        Quantity::parse(v).map(TimerFile::After).map_err(E::custom)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<TimerFile, E> {
        Err(E::custom(crate::units::time_missing_unit(&v.to_string())))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<TimerFile, E> {
        Err(E::custom(crate::units::time_missing_unit(&v.to_string())))
    }
}

impl JsonSchema for TimerFile {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed("DelayedAck")
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let time = generator.subschema_for::<Quantity<Time>>();
        json_schema!({
            "description": "A timer (a time), or false to switch it off.",
            "anyOf": [time, { "const": false }],
        })
    }
}

/// A size as written, or `"infinity"`.
pub(crate) enum SizeOrInfinityFile {
    Infinity,
    Size(Quantity<Size>),
}

const INFINITY: &str = "infinity";

impl<'de> Deserialize<'de> for SizeOrInfinityFile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SizeOrInfinityVisitor)
    }
}

struct SizeOrInfinityVisitor;

impl Visitor<'_> for SizeOrInfinityVisitor {
    type Value = SizeOrInfinityFile;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a size like '25KB', or \"infinity\"")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<SizeOrInfinityFile, E> {
        if v == INFINITY {
            return Ok(SizeOrInfinityFile::Infinity);
        }
        Quantity::parse(v)
            .map(SizeOrInfinityFile::Size)
            .map_err(E::custom)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<SizeOrInfinityFile, E> {
        Err(E::custom(crate::units::size_missing_unit(&v.to_string())))
    }
}

impl JsonSchema for SizeOrInfinityFile {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed("SizeOrInfinity")
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let size = generator.subschema_for::<Quantity<Size>>();
        json_schema!({
            "description": "A size, or \"infinity\" for none.",
            "anyOf": [size, { "const": INFINITY }],
        })
    }
}

/// An integer of the domain type's form, from a value with a unit.
fn integer(key: &str, text: &str, value: u64) -> Result<Value, ScenarioError> {
    i64::try_from(value)
        .map(Value::Integer)
        .map_err(|_| ScenarioError::new(key, format!("'{text}' is too large")))
}

/// `written`, the table at dotted key `key`, with the values of the keys of `units` read from
/// their text into the domain type's integers; errors name the dotted key.
pub(crate) fn resolve(
    written: &Table,
    key: &str,
    units: &[(String, Unit)],
) -> Result<Table, ScenarioError> {
    let mut table = written.clone();
    for (field, unit) in units {
        let Some(value) = table.get_mut(field) else {
            continue;
        };
        let k = join_key(key, field);
        *value = match unit {
            Unit::Time => {
                let q: Quantity<Time> = from_value_at(value, &k)?;
                integer(&k, &q.text, q.value.as_ns())?
            }
            Unit::TimeOrFalse => match from_value_at(value, &k)? {
                TimerFile::Off => Value::Boolean(false),
                TimerFile::After(q) => integer(&k, &q.text, q.value.as_ns())?,
            },
            Unit::Size => {
                let q: Quantity<Size> = from_value_at(value, &k)?;
                integer(&k, &q.text, q.value)?
            }
            Unit::SizeOrInfinity => match from_value_at(value, &k)? {
                SizeOrInfinityFile::Infinity => Value::String(INFINITY.into()),
                SizeOrInfinityFile::Size(q) => integer(&k, &q.text, q.value)?,
            },
            Unit::QueueLimit => {
                let q: Quantity<Limit> = from_value_at(value, &k)?;
                Value::try_from(q.value)
                    .map_err(|_| ScenarioError::new(&k, format!("'{}' is too large", q.text)))?
            }
        };
    }
    Ok(table)
}

/// `config` in the file's form: the keys of `units` as text (`"200ms"`, `"4MB"`), the others
/// as the domain type serialises them.
pub(crate) fn file_form<T: Serialize>(
    config: &T,
    units: &[(String, Unit)],
) -> serde_json::Map<String, serde_json::Value> {
    let mut map = match serde_json::to_value(config) {
        Ok(serde_json::Value::Object(map)) => map,
        // A struct of plain fields serialises to an object.
        _ => serde_json::Map::new(),
    };
    for (key, unit) in units {
        if let Some(value) = map.get_mut(key) {
            let text = match unit {
                Unit::Time | Unit::TimeOrFalse => {
                    value.as_u64().map(|n| format_time_secs(SimDuration(n)))
                }
                Unit::Size | Unit::SizeOrInfinity => value.as_u64().map(format_size),
                Unit::QueueLimit => serde_json::from_value::<QueueLimit>(value.clone())
                    .ok()
                    .map(format_queue_limit),
            };
            if let Some(text) = text {
                *value = serde_json::Value::String(text);
            }
        }
    }
    map
}

/// `T`'s schema with the keys it marks given their unit's schema, their description and their
/// default (`defaults`, the file form of the default value) as text.
pub(crate) fn schema_with_units<T: JsonSchema>(
    generator: &mut SchemaGenerator,
    defaults: &serde_json::Map<String, serde_json::Value>,
) -> Schema {
    let mut schema = T::json_schema(generator);
    let time = generator.subschema_for::<Quantity<Time>>();
    let size = generator.subschema_for::<Quantity<Size>>();
    let timer = generator.subschema_for::<TimerFile>();
    let size_or_infinity = generator.subschema_for::<SizeOrInfinityFile>();
    let limit = generator.subschema_for::<Quantity<Limit>>();
    let properties = schema
        .get_mut("properties")
        .and_then(serde_json::Value::as_object_mut);
    for (key, property) in properties.into_iter().flatten() {
        let Some(unit) = property.as_object_mut().and_then(|p| p.remove("x-unit")) else {
            continue;
        };
        let mut with_unit = match unit.as_str().and_then(Unit::of_mark) {
            Some(Unit::Time) => time.clone(),
            Some(Unit::TimeOrFalse) => timer.clone(),
            Some(Unit::SizeOrInfinity) => size_or_infinity.clone(),
            Some(Unit::QueueLimit) => limit.clone(),
            Some(Unit::Size) | None => size.clone(),
        };
        if let Some(description) = property.get("description") {
            with_unit.insert("description".into(), description.clone());
        }
        if let Some(default) = defaults.get(key) {
            with_unit.insert("default".into(), default.clone());
        }
        *property = with_unit.to_value();
    }
    schema
}
