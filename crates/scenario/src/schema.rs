//! The JSON Schemas (draft 2020-12) of the scenario file format, for editors and validators
//! ([`json_schema`]), and of a run's outputs ([`output_json_schema`], made by
//! `celltcp_outputs::schema`).
//!
//! Generated from the raw section structs, so it cannot drift from what the loader accepts:
//! unknown keys are rejected (`additionalProperties: false`), values with units carry the
//! parser's grammar as a `pattern`, and every key has a description and its default. The schema
//! checks form only; cross-references (a link's ends exist, a flow has a path) are checked by
//! [`crate::load_str`].

use celltcp_outputs::schema::drop_null_alternative;
pub use celltcp_outputs::schema::{output_json_schema, output_json_schema_with};
use schemars::generate::SchemaSettings;
use serde_json::Value;

use crate::config::ScenarioFile;

/// The JSON Schema of a scenario file (TOML converted to JSON).
pub fn json_schema() -> Value {
    let generator = SchemaSettings::draft2020_12().into_generator();
    let mut schema = generator.into_root_schema_for::<ScenarioFile>().to_value();
    strip_null(&mut schema);
    schema
}

/// TOML has no null: optional keys are simply absent. Removes the `null` alternatives and
/// `default: null` that the generator adds for `Option` fields.
fn strip_null(value: &mut Value) {
    if let Value::Object(map) = value {
        if map.get("default") == Some(&Value::Null) {
            map.remove("default");
        }
    }
    drop_null_alternative(value);
    match value {
        Value::Object(map) => map.values_mut().for_each(strip_null),
        Value::Array(items) => items.iter_mut().for_each(strip_null),
        _ => {}
    }
}
