//! A table of a scenario file whose one typed form is a domain configuration (the radio keys of
//! `[cells.NAME]` as `CellRadioConfig`, `[cells.NAME.rlc]` as `CellRlcConfig`,
//! `[cells.NAME.pdcp]` as `PdcpConfig`): kept as written,
//! read into the domain type when the scenario is resolved, so that every message names the
//! dotted key and shows a value with a unit as it was written, and echoed as the resolved
//! configuration in the file's form.
//!
//! The domain type owns the keys, their defaults, their doc comments (the JSON Schema's
//! descriptions) and its own checks; the file layer adds only the units of the keys its schema
//! marks (`unit_keys`).

use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use toml::Table;

use super::unit_keys::{self, UnitKeys};
use crate::de::from_table_at_beside;
use crate::error::join_key;
use crate::ScenarioError;

/// A domain configuration read from a kept table.
pub trait KeptTable: Serialize + DeserializeOwned + JsonSchema + Default {
    /// The name of the table's schema.
    const SCHEMA_NAME: &'static str;
    /// The keys of the same table that the file layer reads itself (a flattened table): an
    /// unknown key lists them among the expected ones, and they are not the domain type's.
    const BESIDE: &'static [&'static str] = &[];

    /// The keys with a unit, as `unit_keys::unit_keys` finds them (computed once).
    fn units() -> &'static UnitKeys;

    /// The domain type's own checks: the key (as in the table, dotted in a nested table:
    /// `scheduling.grant`) and the message of the first failure; `shown(key)` is a key's value
    /// in messages, as written.
    fn check(&self, _shown: &dyn Fn(&'static str) -> String) -> Result<(), (&'static str, String)> {
        Ok(())
    }
}

/// A table as written, read into `T` by `Kept::resolve`; serialised (the echo of the
/// scenario) as the resolved configuration in the file's form, keys with a unit as written or,
/// when not written, as the default's text.
pub struct Kept<T> {
    written: Table,
    of: PhantomData<fn() -> T>,
}

impl<T> Clone for Kept<T> {
    fn clone(&self) -> Self {
        Kept {
            written: self.written.clone(),
            of: PhantomData,
        }
    }
}

impl<T> Default for Kept<T> {
    fn default() -> Self {
        Kept {
            written: Table::new(),
            of: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for Kept<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kept")
            .field("written", &self.written)
            .finish()
    }
}

impl<T: KeptTable> Kept<T> {
    /// Whether the table gives key `key` (a default written out counts).
    pub(crate) fn is_written(&self, key: &str) -> bool {
        self.written.contains_key(key)
    }

    /// The table at dotted key `key` (`cells.macro`, `cells.macro.pdcp`), checked: the units
    /// read, every key known and of its type, the domain type's checks; errors name the dotted
    /// key.
    pub(crate) fn resolve(&self, key: &str) -> Result<T, ScenarioError> {
        let table = unit_keys::resolve(&self.written, key, T::units())?;
        let config: T = from_table_at_beside(&table, key, T::BESIDE)?;
        config
            .check(&|field| self.shown(field, &config))
            .map_err(|(field, message)| ScenarioError::new(join_key(key, field), message))?;
        Ok(config)
    }

    /// The value of `field` in messages (dotted in a nested table: `scheduling.sr_period`): as
    /// written, else the value in the file's form.
    pub(crate) fn shown(&self, field: &str, config: &T) -> String {
        unit_keys::shown_at(
            &self.written,
            &unit_keys::file_form(config, T::units()),
            field,
        )
    }

    /// Every key that is echoed: the resolved values in the file's form, the keys with a unit
    /// as written. A table that does not resolve (the echo of a file not yet checked) shows
    /// the values as written over the defaults.
    fn echo(&self) -> serde_json::Map<String, serde_json::Value> {
        let units = T::units();
        let resolved = unit_keys::resolve(&self.written, "", units)
            .ok()
            .and_then(|t| from_table_at_beside::<T>(&t, "", T::BESIDE).ok());
        let Some(resolved) = resolved else {
            let mut map = unit_keys::file_form(&T::default(), units);
            for (key, value) in &self.written {
                let value = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
                map.insert(key.clone(), value);
            }
            return map;
        };
        let mut map = unit_keys::file_form(&resolved, units);
        unit_keys::as_written(&mut map, &self.written, units);
        map
    }
}

/// Two tables are equal when they echo the same values (`"1000ms"` and `"1s"` are two values,
/// as the echo shows them).
impl<T: KeptTable> PartialEq for Kept<T> {
    fn eq(&self, other: &Self) -> bool {
        self.echo() == other.echo()
    }
}

impl<T: KeptTable> Serialize for Kept<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.echo().serialize(s)
    }
}

/// Keeps the keys as written; `Kept::resolve` reads them.
impl<'de, T> Deserialize<'de> for Kept<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Table::deserialize(deserializer).map(|written| Kept {
            written,
            of: PhantomData,
        })
    }
}

/// `T`'s schema, with the units of the keys it marks and their defaults as text.
impl<T: KeptTable> JsonSchema for Kept<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed(T::SCHEMA_NAME)
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let defaults = unit_keys::file_form(&T::default(), T::units());
        unit_keys::schema_with_units::<T>(generator, &defaults)
    }
}
