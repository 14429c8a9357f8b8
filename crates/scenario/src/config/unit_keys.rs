//! The keys of a domain configuration that carry a unit, as its JSON Schema marks them
//! (`"x-unit"`): read from the file's text (`"200ms"`, `"4MB"`) into the integer form the
//! domain type deserialises (nanoseconds, bytes), and written back with units for the echo and
//! the schema.
//!
//! A domain type read this way (`celltcp_tcp::TcpConfig` for `[flows.NAME.tcp]`,
//! `celltcp_radio::cell::CellRadioConfig` for the radio keys of `[cells.NAME]`,
//! `CellRlcConfig` and `PdcpConfig` for the bearer's tables) keeps its keys, defaults and
//! checks; this module is all the file layer adds to it. The units are the marks' kinds: a
//! time, a time or `false`, a size, a size or `"infinity"`, a queue limit in packets or bytes,
//! a rate. A key whose value is a table tagged by `kind` (the schema's `oneOf` of objects with
//! a `const` tag, as `[cells.NAME.uplink.scheduling]`) has the units of each variant's keys:
//! they are read, echoed and described in the variant the table names.

use std::fmt;

use celltcp_engine::SimDuration;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use toml::{Table, Value};

use celltcp_net::queue::QueueLimit;

use super::quantity::{Limit, Quantity, Rate, Size, Time};
use crate::de::from_value_at;
use crate::error::join_key;
use crate::units::{format_queue_limit, format_rate, format_size, format_time_secs};
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
    /// A rate (`"5Mbps"`); the domain type takes integer bits per second.
    Rate,
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
            "rate" => Unit::Rate,
            _ => return None,
        })
    }
}

/// The keys of a table that carry a unit, and its tables tagged by `kind` whose variants have
/// such keys.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnitKeys {
    /// This table's keys with a unit, in the order of the schema's properties.
    keys: Vec<(String, Unit)>,
    /// Its tagged tables: the key, the tag's key (`kind`) and each variant's name and keys.
    tagged: Vec<Tagged>,
}

/// A key whose value is a table tagged by `tag`, with the units of each variant's keys.
#[derive(Clone, Debug, PartialEq)]
struct Tagged {
    key: String,
    tag: String,
    variants: Vec<(String, UnitKeys)>,
}

impl Tagged {
    /// The unit keys of the variant `table` names, if it names one.
    fn of<'a>(
        &'a self,
        table: &serde_json::Map<String, serde_json::Value>,
    ) -> Option<&'a UnitKeys> {
        let name = table.get(&self.tag)?.as_str()?;
        self.variant(name)
    }

    fn variant(&self, name: &str) -> Option<&UnitKeys> {
        self.variants
            .iter()
            .find(|(v, _)| v == name)
            .map(|(_, units)| units)
    }
}

impl UnitKeys {
    /// The keys of the object schema `properties`, following `$ref`s into `defs`.
    fn of_properties(
        properties: &serde_json::Map<String, serde_json::Value>,
        defs: Option<&serde_json::Value>,
    ) -> UnitKeys {
        let mut units = UnitKeys::default();
        for (key, property) in properties {
            if let Some(unit) = property
                .get("x-unit")
                .and_then(serde_json::Value::as_str)
                .and_then(Unit::of_mark)
            {
                units.keys.push((key.clone(), unit));
                continue;
            }
            let target = match property.get("$ref").and_then(serde_json::Value::as_str) {
                Some(r) => r.strip_prefix("#/$defs/").and_then(|name| defs?.get(name)),
                None => Some(property),
            };
            if let Some(tagged) = target.and_then(|t| Tagged::of_schema(key, t, defs)) {
                units.tagged.push(tagged);
            }
        }
        units
    }

    fn is_empty(&self) -> bool {
        self.keys.is_empty() && self.tagged.is_empty()
    }
}

impl Tagged {
    /// The tagged table of `schema`, a `oneOf` of objects each with a `const` string tag,
    /// when a variant has keys with a unit.
    fn of_schema(
        key: &str,
        schema: &serde_json::Value,
        defs: Option<&serde_json::Value>,
    ) -> Option<Tagged> {
        let mut tag = None;
        let mut variants = Vec::new();
        for variant in schema.get("oneOf")?.as_array()? {
            let properties = variant.get("properties")?.as_object()?;
            let (tag_key, name) = properties
                .iter()
                .find_map(|(k, p)| Some((k.clone(), p.get("const")?.as_str()?.to_owned())))?;
            if tag.get_or_insert_with(|| tag_key.clone()) != &tag_key {
                return None;
            }
            variants.push((name, UnitKeys::of_properties(properties, defs)));
        }
        let tag = tag?;
        variants
            .iter()
            .any(|(_, units)| !units.is_empty())
            .then(|| Tagged {
                key: key.to_owned(),
                tag,
                variants,
            })
    }
}

/// The keys of `T` with a unit, in the order of the schema's properties, with those of its
/// tagged tables.
pub(crate) fn unit_keys<T: JsonSchema>() -> UnitKeys {
    let schema = schemars::schema_for!(T);
    let Some(properties) = schema
        .get("properties")
        .and_then(serde_json::Value::as_object)
    else {
        return UnitKeys::default();
    };
    UnitKeys::of_properties(properties, schema.get("$defs"))
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
/// their text into the domain type's integers, in a tagged table those of the variant it
/// names; errors name the dotted key.
pub(crate) fn resolve(
    written: &Table,
    key: &str,
    units: &UnitKeys,
) -> Result<Table, ScenarioError> {
    let mut table = written.clone();
    for (field, unit) in &units.keys {
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
            Unit::Rate => {
                let q: Quantity<Rate> = from_value_at(value, &k)?;
                integer(&k, &q.text, q.value)?
            }
        };
    }
    for tagged in &units.tagged {
        let Some(Value::Table(inner)) = table.get_mut(&tagged.key) else {
            continue;
        };
        // A table without a known tag is left to the deserializer, which says what it expects.
        let Some(variant) = inner
            .get(&tagged.tag)
            .and_then(Value::as_str)
            .and_then(|name| tagged.variant(name))
        else {
            continue;
        };
        *inner = resolve(inner, &join_key(key, &tagged.key), variant)?;
    }
    Ok(table)
}

/// A value of the domain type's form (nanoseconds, bytes, bits per second, a queue limit) as
/// the text of `unit` (`"200ms"`, `"4MB"`, `"5Mbps"`, `"500p"`); `None` for another form
/// (`false`, `"infinity"`).
fn text_of(unit: Unit, value: &serde_json::Value) -> Option<String> {
    match unit {
        Unit::Time | Unit::TimeOrFalse => value.as_u64().map(|n| format_time_secs(SimDuration(n))),
        Unit::Size | Unit::SizeOrInfinity => value.as_u64().map(format_size),
        Unit::QueueLimit => serde_json::from_value::<QueueLimit>(value.clone())
            .ok()
            .map(format_queue_limit),
        Unit::Rate => value.as_u64().map(format_rate),
    }
}

/// `config` in the file's form: the keys of `units` as text (`"200ms"`, `"4MB"`), in a tagged
/// table those of its variant, the others as the domain type serialises them.
pub(crate) fn file_form<T: Serialize>(
    config: &T,
    units: &UnitKeys,
) -> serde_json::Map<String, serde_json::Value> {
    let mut map = match serde_json::to_value(config) {
        Ok(serde_json::Value::Object(map)) => map,
        // A struct of plain fields serialises to an object.
        _ => serde_json::Map::new(),
    };
    with_text(&mut map, units);
    map
}

/// The keys of `units` in `map` (the domain type's form) as text.
fn with_text(map: &mut serde_json::Map<String, serde_json::Value>, units: &UnitKeys) {
    for (key, unit) in &units.keys {
        if let Some(value) = map.get_mut(key) {
            if let Some(text) = text_of(*unit, value) {
                *value = serde_json::Value::String(text);
            }
        }
    }
    for tagged in &units.tagged {
        if let Some(serde_json::Value::Object(inner)) = map.get_mut(&tagged.key) {
            if let Some(variant) = tagged.of(inner) {
                with_text(inner, variant);
            }
        }
    }
}

/// `echo`, a table in the file's form, with the values of the keys of `units` that `written`
/// gives replaced by their text as written (`"1000ms"` stays `"1000ms"`), in a tagged table
/// those of the variant it names.
pub(crate) fn as_written(
    echo: &mut serde_json::Map<String, serde_json::Value>,
    written: &Table,
    units: &UnitKeys,
) {
    for (key, _) in &units.keys {
        if let Some(value) = written.get(key) {
            let value = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
            echo.insert(key.clone(), value);
        }
    }
    for tagged in &units.tagged {
        if let (Some(Value::Table(inner)), Some(serde_json::Value::Object(shown))) =
            (written.get(&tagged.key), echo.get_mut(&tagged.key))
        {
            if let Some(variant) = tagged.of(shown) {
                as_written(shown, inner, variant);
            }
        }
    }
}

/// The value at dotted `path` (`rate`, `scheduling.sr_period`) of `written` if it is text, else
/// of `form` (the file's form of the resolved table) shown as a string.
pub(crate) fn shown_at(
    written: &Table,
    form: &serde_json::Map<String, serde_json::Value>,
    path: &str,
) -> String {
    let (head, rest) = path.split_once('.').unwrap_or((path, ""));
    let written_here = written.get(head);
    if rest.is_empty() {
        if let Some(Value::String(text)) = written_here {
            return text.clone();
        }
        return match form.get(head) {
            Some(serde_json::Value::String(text)) => text.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
    }
    let empty = Table::new();
    let written_inner = match written_here {
        Some(Value::Table(t)) => t,
        _ => &empty,
    };
    match form.get(head) {
        Some(serde_json::Value::Object(inner)) => shown_at(written_inner, inner, rest),
        _ => shown_at(written_inner, &serde_json::Map::new(), rest),
    }
}

/// `T`'s schema with the keys it marks given their unit's schema, their description and their
/// default (`defaults`, the file form of the default value) as text; in a tagged table each
/// variant's keys likewise, with the text of the default the domain type's schema gives.
pub(crate) fn schema_with_units<T: JsonSchema>(
    generator: &mut SchemaGenerator,
    defaults: &serde_json::Map<String, serde_json::Value>,
) -> Schema {
    let mut schema = T::json_schema(generator);
    let forms = UnitForms::new(generator);
    let units = unit_keys::<T>();
    if let Some(properties) = schema
        .get_mut("properties")
        .and_then(serde_json::Value::as_object_mut)
    {
        forms.patch(properties, Some(defaults));
        for tagged in &units.tagged {
            let Some(property) = properties.get_mut(&tagged.key) else {
                continue;
            };
            match property.get("$ref").and_then(serde_json::Value::as_str) {
                Some(r) => {
                    let name = r.rsplit('/').next().unwrap_or(r).to_owned();
                    if let Some(def) = generator.definitions_mut().get_mut(&name) {
                        forms.patch_variants(def);
                    }
                }
                None => forms.patch_variants(property),
            }
        }
    }
    schema
}

/// The schemas of the units, from one generator.
struct UnitForms {
    time: Schema,
    size: Schema,
    timer: Schema,
    size_or_infinity: Schema,
    limit: Schema,
    rate: Schema,
}

impl UnitForms {
    fn new(generator: &mut SchemaGenerator) -> UnitForms {
        UnitForms {
            time: generator.subschema_for::<Quantity<Time>>(),
            size: generator.subschema_for::<Quantity<Size>>(),
            timer: generator.subschema_for::<TimerFile>(),
            size_or_infinity: generator.subschema_for::<SizeOrInfinityFile>(),
            limit: generator.subschema_for::<Quantity<Limit>>(),
            rate: generator.subschema_for::<Quantity<Rate>>(),
        }
    }

    /// The properties marked with a unit given its schema, their description and default:
    /// from `defaults` when given, else the text of the schema's own default.
    fn patch(
        &self,
        properties: &mut serde_json::Map<String, serde_json::Value>,
        defaults: Option<&serde_json::Map<String, serde_json::Value>>,
    ) {
        for (key, property) in properties.iter_mut() {
            let Some(mark) = property.as_object_mut().and_then(|p| p.remove("x-unit")) else {
                continue;
            };
            let unit = mark.as_str().and_then(Unit::of_mark).unwrap_or(Unit::Size);
            let mut with_unit = match unit {
                Unit::Time => self.time.clone(),
                Unit::TimeOrFalse => self.timer.clone(),
                Unit::SizeOrInfinity => self.size_or_infinity.clone(),
                Unit::QueueLimit => self.limit.clone(),
                Unit::Rate => self.rate.clone(),
                Unit::Size => self.size.clone(),
            };
            if let Some(description) = property.get("description") {
                with_unit.insert("description".into(), description.clone());
            }
            let default = match defaults {
                Some(defaults) => defaults.get(key).cloned(),
                None => property
                    .get("default")
                    .and_then(|d| text_of(unit, d))
                    .map(serde_json::Value::String),
            };
            if let Some(default) = default {
                with_unit.insert("default".into(), default);
            }
            *property = with_unit.to_value();
        }
    }

    /// Each variant of a tagged table's schema (`oneOf`), its keys with their units.
    fn patch_variants(&self, schema: &mut serde_json::Value) {
        let variants = schema
            .get_mut("oneOf")
            .and_then(serde_json::Value::as_array_mut);
        for variant in variants.into_iter().flatten() {
            if let Some(properties) = variant
                .get_mut("properties")
                .and_then(serde_json::Value::as_object_mut)
            {
                self.patch(properties, None);
            }
        }
    }
}
