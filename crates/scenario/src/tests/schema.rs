//! The JSON Schema validates the example files and the fixtures, rejects unknown keys and
//! malformed units, and its unit patterns agree with the parser. Checked with the `jsonschema`
//! crate (draft 2020-12).

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{load, BASE, MINIMAL};
use crate::json_schema;
use crate::overrides;

/// `*.toml` files directly in `dir`, sorted; none if the directory does not exist.
pub(crate) fn example_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn validator() -> jsonschema::Validator {
    jsonschema::validator_for(&json_schema()).expect("the schema compiles")
}

fn as_json(text: &str) -> Value {
    let table: toml::Table = text.parse().expect("valid TOML");
    serde_json::to_value(table).expect("TOML converts to JSON")
}

/// `text` with one override applied, as JSON.
fn json_with(text: &str, key: &str, value: &str) -> Value {
    let mut table: toml::Table = text.parse().expect("valid TOML");
    overrides::apply(&mut table, &[(key.to_owned(), value.to_owned())]).expect("override applies");
    serde_json::to_value(table).expect("TOML converts to JSON")
}

fn errors(v: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    v.iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn schema_is_valid_draft_2020_12() {
    let schema = json_schema();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert!(
        jsonschema::meta::is_valid(&schema),
        "schema fails its meta-schema"
    );
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["required"], json!(["simulation"]));
    let text = serde_json::to_string(&schema).expect("serializes");
    assert!(
        !text.contains("\"null\""),
        "TOML has no null; the schema must not offer it"
    );
}

#[test]
fn fixtures_examples_and_echoes_validate() {
    let v = validator();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/celltcp/examples");
    let mut instances: Vec<(String, Value)> = vec![
        ("BASE".into(), as_json(BASE)),
        ("MINIMAL".into(), as_json(MINIMAL)),
    ];
    for path in example_files(&dir) {
        let text = std::fs::read_to_string(&path).expect("readable example");
        instances.push((path.display().to_string(), as_json(&text)));
    }
    instances.push(("echo(BASE)".into(), load(BASE).echo()));
    instances.push(("echo(MINIMAL)".into(), load(MINIMAL).echo()));
    for (name, instance) in &instances {
        let errs = errors(&v, instance);
        assert!(errs.is_empty(), "{name} does not validate: {errs:?}");
    }
}

#[test]
fn schema_rejects_unknown_keys_and_malformed_values() {
    let v = validator();
    let bad = [
        ("nodes.server.colour", "'red'"),
        ("colour", "1"),
        ("links.access.a_to_b.rte", "'1Mbps'"),
        ("links.access.queue.max_p", "0.1"),
        ("links.access.queue.kind", "'fq'"),
        (
            "links.access.loss",
            "{ kind = 'bernoulli', p = 0.1, q = 2 }",
        ),
        ("flows.video.cc", "'cubic'"),
        ("flows.bulk.tcp.nagle", "true"),
        ("flows.bulk.tcp.ack_copies.enable", "true"),
        ("flows.web.app.file_size.value", "'1KB'"),
        ("links.access.rate", "'25 Mbit'"),
        ("links.access.rate", "25"),
        ("links.access.delay", "'20 msec'"),
        ("flows.video.packet_size", "'1.5kb'"),
        ("links.access.queue.limit", "'200 pkts'"),
        ("flows.bulk.tcp.delayed_ack", "true"),
        ("flows.bulk.cc", "'renoo'"),
        ("trace.tcp", "['cwin']"),
        ("nodes.ue.kind", "'switch'"),
        ("links.access.a_to_b.loss.p", "1.5"),
        ("simulation.seed", "-1"),
    ];
    for (key, value) in bad {
        let instance = json_with(BASE, key, value);
        assert!(
            !v.is_valid(&instance),
            "{key} = {value} should be rejected by the schema"
        );
    }
    let mut unnamed = as_json(MINIMAL);
    unnamed["nodes"]["a b"] = json!({ "kind": "host" });
    assert!(!v.is_valid(&unnamed), "node names follow the name pattern");
}

#[test]
fn unit_patterns_agree_with_the_parser() {
    let schema = json_schema();
    let defs = &schema["$defs"];
    type Case = (&'static str, fn(&str) -> bool, &'static [&'static str]);
    let cases: [Case; 4] = [
        (
            "Rate",
            |s| crate::units::parse_rate(s).is_ok(),
            &[
                "25Mbps", "1.5Mbps", "25 Mbps", "8Bps", "1GBps", "25 Mbit", "25mbps", "25",
                " 25Mbps", "25  Mbps", "-1Mbps", "1.Mbps", "Mbps",
            ],
        ),
        (
            "Time",
            |s| crate::units::parse_time(s).is_ok(),
            &[
                "20ms", "1.5s", "250 us", "2min", "100ns", "20 msec", "1.5", "1e3ms", "-1s",
            ],
        ),
        (
            "Size",
            |s| crate::units::parse_size(s).is_ok(),
            &[
                "1500B", "64KiB", "1 MB", "1.5KB", "1GiB", "64kb", "1500", "1.5 B ",
            ],
        ),
        (
            "QueueLimit",
            |s| crate::units::parse_queue_limit(s).is_ok(),
            &[
                "200p", "200 p", "64KB", "64 KiB", "1.5p", "200", "200 pkts", "p",
            ],
        ),
    ];
    for (name, parses, samples) in cases {
        let pattern_validator =
            jsonschema::validator_for(&defs[name]).expect("unit schema compiles");
        for sample in samples {
            assert_eq!(
                pattern_validator.is_valid(&json!(sample)),
                parses(sample),
                "{name} pattern and parser disagree on {sample:?}"
            );
        }
    }
}

#[test]
fn keys_have_descriptions_and_defaults() {
    let schema = json_schema();
    let tcp = &schema["$defs"]["TcpFile"]["properties"];
    assert_eq!(tcp["mss"]["default"], "1448B");
    assert_eq!(tcp["delayed_ack"]["default"], "40ms");
    assert_eq!(tcp["min_rto"]["$ref"], "#/$defs/Time");
    assert_eq!(tcp["tlp"]["default"], false);
    assert!(tcp["tlp"]["description"]
        .as_str()
        .is_some_and(|d| d.contains("RFC 8985")));
    assert_eq!(
        tcp["ack_copies"]["default"],
        json!({ "enabled": false, "copies": 2, "threshold": 0.1, "p_buff": 0.01, "window_segments": 32 })
    );
    assert!(tcp["initial_window"]["description"]
        .as_str()
        .is_some_and(|d| d.contains("RFC 6928")));
    let link = &schema["$defs"]["LinkFile"]["properties"];
    assert_eq!(
        link["queue"]["default"],
        json!({ "kind": "droptail", "limit": "100p" })
    );
    assert!(schema["$defs"]["Rate"]["pattern"].is_string());
}
