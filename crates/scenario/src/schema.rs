//! The JSON Schema (draft 2020-12) of the scenario file format, for editors and validators.
//!
//! Generated from the raw section structs, so it cannot drift from what the loader accepts:
//! unknown keys are rejected (`additionalProperties: false`), values with units carry the
//! parser's grammar as a `pattern`, and every key has a description and its default. The schema
//! checks form only; cross-references (a link's ends exist, a flow has a path) are checked by
//! [`crate::load_str`].

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
    match value {
        Value::Object(map) => {
            if map.get("default") == Some(&Value::Null) {
                map.remove("default");
            }
            if let Some(Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    map.insert("type".into(), only);
                }
            }
            if let Some(Value::Array(alternatives)) = map.get_mut("anyOf") {
                alternatives.retain(|alt| alt.get("type") != Some(&Value::String("null".into())));
                if alternatives.len() == 1 {
                    let only = alternatives.remove(0);
                    map.remove("anyOf");
                    if let Value::Object(inner) = only {
                        for (k, v) in inner {
                            map.entry(k).or_insert(v);
                        }
                    }
                }
            }
            map.values_mut().for_each(strip_null);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_null),
        _ => {}
    }
}
