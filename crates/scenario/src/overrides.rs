//! Dotted keys: reading and setting one value of a parsed document by its path
//! (`links.access.rate`), the one implementation behind `--set links.access.rate=10Mbps`,
//! `celltcp.run(set=...)`, `Scenario.get`/`Scenario.set` and the keys of a sweep.
//!
//! An override sets one dotted key in the parsed document before it is checked, so an
//! overridden value is validated exactly like a written one. The value of `--set` is read as a
//! TOML value when it parses as one (a number, a boolean, an array, an inline table, a quoted
//! string), and as a bare string otherwise (`10Mbps`, `ue`); a value given from Python is
//! stored as the TOML value it is. Missing intermediate tables are created, except a node, link
//! or flow of a name that does not exist; a path that goes through an array or through a value
//! that is not a table is an error.

use toml::{Table, Value};

use crate::de::describe;
use crate::document::MAX_DEPTH;
use crate::ScenarioError;

/// A dotted key such as `links.access.rate`: non-empty parts without spaces around them, at
/// most [`MAX_DEPTH`] of them (the format's deepest key has 6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DottedKey<'a> {
    text: &'a str,
    parts: Vec<&'a str>,
}

impl<'a> DottedKey<'a> {
    /// Splits `text` at its dots; a key with an empty part, a part with spaces around it or
    /// more than [`MAX_DEPTH`] parts is an error naming the key.
    pub fn parse(text: &'a str) -> Result<Self, ScenarioError> {
        let parts: Vec<&str> = text.split('.').collect();
        if parts.iter().any(|p| p.is_empty() || p.trim() != *p) {
            return Err(ScenarioError::new(
                text,
                "is not a dotted key; use e.g. 'links.access.rate' (no empty parts or spaces)",
            ));
        }
        if parts.len() > MAX_DEPTH {
            return Err(ScenarioError::new(
                text,
                format!(
                    "a key of {} parts is nested more than {MAX_DEPTH} tables deep; the format \
                     needs at most 6",
                    parts.len()
                ),
            ));
        }
        Ok(DottedKey { text, parts })
    }

    /// The key as written.
    pub fn as_str(&self) -> &'a str {
        self.text
    }

    /// Its parts, outermost first; never empty.
    pub fn parts(&self) -> &[&'a str] {
        &self.parts
    }

    /// The key of its first `n` parts (`links.access` for `n = 2`).
    fn prefix(&self, n: usize) -> String {
        self.parts[..n].join(".")
    }
}

/// Reads an override's value: TOML if it parses as a single value, else the text itself.
pub fn parse_value(text: &str) -> Value {
    // A newline would let one override smuggle in more keys; such text is taken literally.
    if text.contains('\n') {
        return Value::String(text.to_owned());
    }
    text.parse::<Value>()
        .unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// Applies `overrides` in order (a later one wins) to the document's root table.
pub fn apply(root: &mut Table, overrides: &[(String, String)]) -> Result<(), ScenarioError> {
    for (path, value) in overrides {
        set(root, &DottedKey::parse(path)?, parse_value(value))?;
    }
    Ok(())
}

/// The element kind of a section whose keys are user-chosen names.
fn named_section(section: &str) -> Option<&'static str> {
    match section {
        "nodes" => Some("node"),
        "links" => Some("link"),
        "flows" => Some("flow"),
        _ => None,
    }
}

/// "cannot set: trace.queues is an array; …": why a path cannot go through `value`, the value
/// at `prefix`.
fn not_a_table(prefix: &str, value: &Value) -> String {
    match value {
        Value::Array(_) => {
            format!("{prefix} is an array; values inside arrays cannot be set by key")
        }
        v => format!("{prefix} is a value ({}), not a table", describe(v)),
    }
}

/// The value at `key`. A missing key is an error naming the key down to its first missing
/// part (`links.nowhere` for `links.nowhere.rate`), a path through a value one naming that
/// value.
pub fn get<'t>(root: &'t Table, key: &DottedKey<'_>) -> Result<&'t Value, ScenarioError> {
    let (last, parents) = key
        .parts
        .split_last()
        .expect("a dotted key has at least one part");
    let mut table = root;
    for (depth, part) in parents.iter().enumerate() {
        table = match table.get(*part) {
            Some(Value::Table(t)) => t,
            Some(other) => {
                return Err(ScenarioError::new(
                    key.prefix(depth + 2),
                    not_a_table(&key.prefix(depth + 1), other),
                ))
            }
            None => {
                return Err(ScenarioError::new(
                    key.prefix(depth + 1),
                    "no such key in the scenario",
                ))
            }
        };
    }
    table
        .get(*last)
        .ok_or_else(|| ScenarioError::new(key.as_str(), "no such key in the scenario"))
}

/// Sets `key` to `value`, creating missing tables on the way; `value` may be nested at most as
/// deep as the document may be ([`MAX_DEPTH`] levels in all).
pub fn set(root: &mut Table, key: &DottedKey<'_>, value: Value) -> Result<(), ScenarioError> {
    crate::document::check_depth(key.as_str(), &value, key.parts.len())?;
    let (last, parents) = key
        .parts
        .split_last()
        .expect("a dotted key has at least one part");
    let mut table = root;
    for (depth, part) in parents.iter().enumerate() {
        // Inside a named node, link or flow, a misspelt name would silently create a new,
        // incomplete element; name the existing ones instead.
        if depth == 1 && !table.contains_key(*part) {
            if let Some(kind) = named_section(key.parts[0]) {
                let names: Vec<&str> = table.keys().map(String::as_str).collect();
                return Err(ScenarioError::new(
                    key.as_str(),
                    format!(
                        "there is no {kind} '{part}' ({}s: {}); a new {kind} is set as a whole table",
                        kind,
                        if names.is_empty() { "none".to_owned() } else { names.join(", ") }
                    ),
                ));
            }
        }
        let entry = table
            .entry(part.to_string())
            .or_insert_with(|| Value::Table(Table::new()));
        table = match entry {
            Value::Table(t) => t,
            other => {
                return Err(ScenarioError::new(
                    key.as_str(),
                    format!("cannot set: {}", not_a_table(&key.prefix(depth + 1), other)),
                ));
            }
        };
    }
    table.insert(last.to_string(), value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str) -> DottedKey<'_> {
        DottedKey::parse(text).expect("a valid key")
    }

    fn doc(text: &str) -> Table {
        text.parse().expect("valid TOML in test")
    }

    #[test]
    fn a_misspelt_element_name_lists_the_existing_ones() {
        let mut root = doc("[links.access]\na = 'x'\n[links.core]\na = 'y'\n");
        let e = set(&mut root, &key("links.acces.rate"), "1Mbps".into()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "links.acces.rate: there is no link 'acces' (links: access, core); a new link is set as a whole table"
        );
        // A whole new element is still possible.
        set(&mut root, &key("links.new"), doc("a = 'x'").into()).unwrap();
        assert!(root["links"].as_table().unwrap().contains_key("new"));
    }

    #[test]
    fn values_are_toml_when_they_parse_else_strings() {
        assert_eq!(parse_value("10Mbps"), Value::String("10Mbps".into()));
        assert_eq!(parse_value("ue"), Value::String("ue".into()));
        assert_eq!(parse_value("42"), Value::Integer(42));
        assert_eq!(parse_value("0.5"), Value::Float(0.5));
        assert_eq!(parse_value("false"), Value::Boolean(false));
        assert_eq!(parse_value("\"quoted\""), Value::String("quoted".into()));
        assert_eq!(
            parse_value("['cwnd', 'srtt']"),
            Value::Array(vec![
                Value::String("cwnd".into()),
                Value::String("srtt".into())
            ])
        );
        let table = parse_value("{ kind = 'red', max_p = 0.2 }");
        assert_eq!(table.get("kind").and_then(Value::as_str), Some("red"));
        assert_eq!(parse_value("1\nx = 2"), Value::String("1\nx = 2".into()));
    }

    #[test]
    fn set_replaces_and_creates_tables() {
        let mut d = doc("[links.access]\nrate = '25Mbps'");
        apply(
            &mut d,
            &[
                ("links.access.rate".into(), "10Mbps".into()),
                ("links.access.a_to_b.delay".into(), "5ms".into()),
                ("simulation.seed".into(), "7".into()),
            ],
        )
        .expect("valid overrides");
        assert_eq!(d["links"]["access"]["rate"].as_str(), Some("10Mbps"));
        assert_eq!(
            d["links"]["access"]["a_to_b"]["delay"].as_str(),
            Some("5ms")
        );
        assert_eq!(d["simulation"]["seed"].as_integer(), Some(7));
    }

    #[test]
    fn later_overrides_win() {
        let mut d = doc("");
        apply(
            &mut d,
            &[("a.b".into(), "1".into()), ("a.b".into(), "2".into())],
        )
        .expect("valid");
        assert_eq!(d["a"]["b"].as_integer(), Some(2));
    }

    #[test]
    fn paths_through_arrays_or_scalars_are_errors() {
        let mut d = doc("[trace]\nqueues = ['access']\n[links.access]\nrate = '25Mbps'");
        let err = set(&mut d, &key("trace.queues.0"), Value::Integer(1)).expect_err("array");
        assert_eq!(
            err.to_string(),
            "trace.queues.0: cannot set: trace.queues is an array; values inside arrays cannot be set by key"
        );
        let err = set(&mut d, &key("links.access.rate.x"), Value::Integer(1)).expect_err("value");
        assert_eq!(
            err.to_string(),
            "links.access.rate.x: cannot set: links.access.rate is a value ('25Mbps'), not a table"
        );
    }

    #[test]
    fn keys_with_empty_parts_spaces_or_too_many_parts_are_errors() {
        for bad in ["", ".a", "a..b", "a.", " a.b", "a .b"] {
            assert_eq!(
                DottedKey::parse(bad).expect_err(bad).to_string(),
                format!(
                    "{bad}: is not a dotted key; use e.g. 'links.access.rate' (no empty parts or spaces)"
                )
            );
        }
        let deep = vec!["a"; MAX_DEPTH + 1].join(".");
        let e = DottedKey::parse(&deep).expect_err("too deep");
        assert!(e
            .message
            .starts_with("a key of 33 parts is nested more than 32 tables deep"));
        assert_eq!(
            key("links.access.rate").parts(),
            ["links", "access", "rate"]
        );
    }

    #[test]
    fn get_names_the_first_missing_part_or_the_value_in_the_way() {
        let d = doc("[links.access]\nrate = '25Mbps'\n[trace]\nqueues = ['a']");
        assert_eq!(
            get(&d, &key("links.access.rate")).unwrap().as_str(),
            Some("25Mbps")
        );
        let e = get(&d, &key("links.nowhere.rate")).expect_err("missing");
        assert_eq!(e.to_string(), "links.nowhere: no such key in the scenario");
        let e = get(&d, &key("links.access.mtu")).expect_err("missing");
        assert_eq!(
            e.to_string(),
            "links.access.mtu: no such key in the scenario"
        );
        let e = get(&d, &key("links.access.rate.value")).expect_err("through a value");
        assert_eq!(
            e.to_string(),
            "links.access.rate.value: links.access.rate is a value ('25Mbps'), not a table"
        );
        let e = get(&d, &key("trace.queues.0")).expect_err("through an array");
        assert!(e.message.starts_with("trace.queues is an array"), "{e}");
    }

    #[test]
    fn a_value_nested_too_deep_for_its_key_is_refused() {
        let mut d = doc("");
        let mut deep = Value::Integer(1);
        for _ in 0..MAX_DEPTH {
            deep = Value::Array(vec![deep]);
        }
        let e = set(&mut d, &key("trace.queues"), deep).expect_err("too deep");
        assert!(e.key.starts_with("trace.queues["), "{e}");
        assert!(e.message.contains("nested more than 32"), "{e}");
        assert!(d.is_empty());
    }
}
