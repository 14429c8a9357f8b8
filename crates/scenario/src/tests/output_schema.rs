//! The output schema: a valid draft 2020-12 schema whose references resolve, that a run's summary
//! validates against, and whose series are the column sets the builders use.

use serde_json::Value;

use celltcp_outputs::series_columns;

use crate::{load_path, output_json_schema, run, RunOptions};

/// The summary's schema on its own: its `$ref` with the definitions beside it.
fn summary_validator(schema: &Value) -> jsonschema::Validator {
    let summary = serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": "#/$defs/Summary",
        "$defs": schema["$defs"],
    });
    jsonschema::validator_for(&summary).expect("the summary schema compiles")
}

#[test]
fn the_output_schema_is_valid_and_every_reference_resolves() {
    let schema = output_json_schema();
    assert!(jsonschema::meta::is_valid(&schema), "fails its meta-schema");
    let text = serde_json::to_string(&schema).unwrap();
    for reference in text.split("\"$ref\":\"#/$defs/").skip(1) {
        let name = &reference[..reference.find('"').unwrap()];
        assert!(schema["$defs"].get(name).is_some(), "no $defs/{name}");
    }
    // Every label set is defined, also those only series columns use.
    for set in celltcp_outputs::labels::label_sets() {
        assert_eq!(
            schema["$defs"][set.name]["enum"],
            serde_json::json!(set.labels)
        );
    }
}

#[test]
fn a_summary_validates_and_its_series_are_their_column_sets() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples/wired-chain-tcp.toml");
    let short = [("simulation.duration".to_string(), "\"2s\"".to_string())];
    let scenario = load_path(&path, &short).expect("the example loads");
    let out = run(&scenario, &RunOptions::default()).expect("runs");
    let schema = output_json_schema();
    let validator = summary_validator(&schema);
    let errors: Vec<String> = validator
        .iter_errors(&out.summary)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // Optional sections are absent, not null.
    assert!(out.summary.get("handovers").is_none());
    assert_eq!(out.summary["stop_reason"], "duration");
    let specs = series_columns::all();
    for s in &out.series {
        let spec = specs
            .iter()
            .find(|c| c.name == s.name)
            .expect("a column set");
        let names: Vec<&str> = s.columns.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, spec.names().collect::<Vec<_>>(), "{}", s.name);
    }
}
