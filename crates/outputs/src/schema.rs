//! The JSON Schema (draft 2020-12) of a run's outputs ([`output_json_schema`], `celltcp schema
//! --output`): the summary generated from its types, so that it cannot drift from what a run
//! writes, and the series from their column sets.

use schemars::generate::SchemaSettings;
use serde_json::{json, Map, Value};

use crate::labels::label_sets;
use crate::series_columns::{self, Dtype, SeriesColumns};
use crate::summary::Summary;

/// The JSON Schema of a run's outputs (`celltcp schema --output`): `summary` is
/// `summary.json` ([`Summary`], with the handover records and the figure tables), `series` the
/// column sets of the series a simulation writes ([`series_columns::all`]), each described as
/// an object of equal-length arrays, one per column (`x-columns` gives their order, `x-dtype`
/// the core's type, `x-only` the condition of a column not always written). Every label set is
/// in `$defs`, also those only series columns use.
pub fn output_json_schema() -> Value {
    output_json_schema_with(&series_columns::all())
}

/// [`output_json_schema`] with the series `series` (a caller that adds series of its own, such
/// as the emulator, passes them too).
pub fn output_json_schema_with(series: &[SeriesColumns]) -> Value {
    // Serialisation's contract: a field that is always written is required.
    let mut generator = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let summary = generator.subschema_for::<Summary>().to_value();
    let mut defs: Map<String, Value> = generator.take_definitions(true).into_iter().collect();
    defs.values_mut().for_each(absent_not_null);
    let sets = label_sets();
    for set in &sets {
        defs.insert(set.name.to_string(), set.schema());
    }
    let series: Map<String, Value> = series
        .iter()
        .map(|s| {
            let set_name = |key: &str| sets.iter().find(|set| set.key == key).map(|set| set.name);
            (s.name.to_string(), series_schema(s, set_name))
        })
        .collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "celltcp outputs",
        "description": "What a run writes: summary.json, and one Parquet file per series (<name>.parquet), described here as an object of equal-length column arrays. Objects of the summary are written with their keys sorted; a figure without a sample is null.",
        "type": "object",
        "properties": {
            "summary": summary,
            "series": {
                "type": "object",
                "description": "The series a run may write, by name; which it writes depends on the scenario's [trace] table and on whether handovers can happen.",
                "properties": series,
                "additionalProperties": false,
            },
        },
        "$defs": defs,
    })
}

/// An optional field of the outputs is left out (a section that does not apply), never null:
/// removes the `null` alternative the generator gives an `Option` that is not required.
/// Fields that are written as null (a figure without a sample) are required, and so are left
/// alone, as are the figures of the open figure tables (`additionalProperties`), none of which
/// is required.
fn absent_not_null(value: &mut Value) {
    match value {
        Value::Object(map) if map.contains_key("additionalProperties") => {
            map.values_mut().for_each(absent_not_null);
        }
        Value::Object(map) => {
            let required: Vec<String> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(|k| k.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            if let Some(Value::Object(properties)) = map.get_mut("properties") {
                for (key, property) in properties.iter_mut() {
                    if !required.contains(key) {
                        drop_null_alternative(property);
                    }
                }
            }
            map.values_mut().for_each(absent_not_null);
        }
        Value::Array(items) => items.iter_mut().for_each(absent_not_null),
        _ => {}
    }
}

/// `{"type": [T, "null"]}` → `{"type": T}`; `{"anyOf": [S, {"type": "null"}]}` → `S`. The
/// scenario file's schema drops them too (TOML has no null).
pub fn drop_null_alternative(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
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
}

/// One series as an object of columns, each an array of its values.
fn series_schema<'a>(s: &SeriesColumns, set_name: impl Fn(&str) -> Option<&'a str>) -> Value {
    let properties: Map<String, Value> = s
        .columns
        .iter()
        .map(|c| {
            let items = match (c.dtype, c.labels.and_then(&set_name)) {
                (Dtype::Cat, Some(name)) => json!({ "$ref": format!("#/$defs/{name}") }),
                (Dtype::Cat, None) => json!({ "type": "string" }),
                // NaN (Parquet: a null) where undefined.
                (Dtype::F64, _) => json!({ "type": ["number", "null"] }),
                (Dtype::U64, _) => json!({ "type": "integer", "minimum": 0 }),
                (Dtype::U32, _) => json!({ "type": "integer", "minimum": 0, "maximum": u32::MAX }),
                (Dtype::Bool, _) => json!({ "type": "boolean" }),
            };
            let mut column = json!({
                "type": "array",
                "description": c.description,
                "x-dtype": c.dtype,
                "items": items,
            });
            if let Some(condition) = c.only {
                column["x-only"] = condition.into();
            }
            (c.name.clone(), column)
        })
        .collect();
    let names: Vec<&str> = s.names().collect();
    let required: Vec<&str> = s
        .columns
        .iter()
        .filter(|c| c.only.is_none())
        .map(|c| c.name.as_str())
        .collect();
    json!({
        "type": "object",
        "description": s.description,
        "x-columns": names,
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}
