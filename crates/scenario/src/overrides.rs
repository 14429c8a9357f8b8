//! Command-line overrides: `--set links.access.rate=10Mbps`.
//!
//! An override sets one dotted key in the parsed document before it is checked, so an
//! overridden value is validated exactly like a written one. The value is read as a TOML value
//! when it parses as one (a number, a boolean, an array, an inline table, a quoted string), and
//! as a bare string otherwise (`10Mbps`, `ue`). Missing intermediate tables are created; a
//! path that goes through an array or through a value that is not a table is an error.

use toml::{Table, Value};

use crate::de::describe;
use crate::ScenarioError;

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
        set(root, path, parse_value(value))?;
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

/// Sets the dotted key `path` to `value`.
pub fn set(root: &mut Table, path: &str, value: Value) -> Result<(), ScenarioError> {
    let segments: Vec<&str> = path.split('.').collect();
    if segments.iter().any(|s| s.is_empty() || s.trim() != *s) {
        return Err(ScenarioError::new(
            path,
            "is not a dotted key; use e.g. 'links.access.rate' (no empty parts or spaces)",
        ));
    }
    // `split` yields at least one segment, so this only guards against the impossible.
    let Some((last, parents)) = segments.split_last() else {
        return Err(ScenarioError::new(path, "is not a dotted key"));
    };
    let mut table = root;
    for (depth, segment) in parents.iter().enumerate() {
        // Inside a named node, link or flow, a misspelt name would silently create a new,
        // incomplete element; name the existing ones instead.
        if depth == 1 && !table.contains_key(*segment) {
            if let Some(kind) = named_section(segments[0]) {
                let names: Vec<&str> = table.keys().map(String::as_str).collect();
                return Err(ScenarioError::new(
                    path,
                    format!(
                        "there is no {kind} '{segment}' ({}s: {}); a new {kind} is set as a whole table",
                        kind,
                        if names.is_empty() { "none".to_owned() } else { names.join(", ") }
                    ),
                ));
            }
        }
        let entry = table
            .entry(segment.to_string())
            .or_insert_with(|| Value::Table(Table::new()));
        table = match entry {
            Value::Table(t) => t,
            other => {
                let prefix = segments[..=depth].join(".");
                let what = match other {
                    Value::Array(_) => {
                        "an array; values inside arrays cannot be overridden".to_owned()
                    }
                    v => format!("{}, not a table", describe(v)),
                };
                return Err(ScenarioError::new(
                    path,
                    format!("cannot set: '{prefix}' is {what}"),
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

    #[test]
    fn a_misspelt_element_name_lists_the_existing_ones() {
        let mut root = doc("[links.access]\na = 'x'\n[links.core]\na = 'y'\n");
        let e = set(&mut root, "links.acces.rate", Value::String("1Mbps".into())).unwrap_err();
        assert_eq!(
            e.to_string(),
            "links.acces.rate: there is no link 'acces' (links: access, core); a new link is set as a whole table"
        );
        // A whole new element is still possible.
        set(&mut root, "links.new", doc("a = 'x'").into()).unwrap();
        assert!(root["links"].as_table().unwrap().contains_key("new"));
    }

    fn doc(text: &str) -> Table {
        text.parse().expect("valid TOML in test")
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
        let err = set(&mut d, "trace.queues.0", Value::Integer(1)).expect_err("array");
        assert_eq!(
            err.to_string(),
            "trace.queues.0: cannot set: 'trace.queues' is an array; values inside arrays cannot be overridden"
        );
        let err = set(&mut d, "links.access.rate.x", Value::Integer(1)).expect_err("scalar");
        assert_eq!(
            err.to_string(),
            "links.access.rate.x: cannot set: 'links.access.rate' is '25Mbps', not a table"
        );
        let err = set(&mut d, "links..rate", Value::Integer(1)).expect_err("empty part");
        assert_eq!(
            err.to_string(),
            "links..rate: is not a dotted key; use e.g. 'links.access.rate' (no empty parts or spaces)"
        );
        assert!(set(&mut d, "", Value::Integer(1)).is_err());
    }
}
