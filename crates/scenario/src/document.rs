//! The scenario document: the user's TOML, parsed once, edited by dotted key, written back.
//!
//! Every way into a scenario goes through a [`Document`]: a file read from disk
//! ([`Document::read`]), text ([`Document::parse`]) or a tree built elsewhere (Python's
//! `Scenario.from_dict`, [`Document::from_table`]). The guards against hostile input live here
//! once: the file is a regular file of bounded size (`input_file`), nesting is at most
//! [`MAX_DEPTH`] tables or arrays deep, integers fit in 64 bits (TOML 1.0, "Integer"). Edits
//! are [`overrides::set`], the implementation of `--set`; [`Document::load`] applies the
//! command line's overrides to a copy and builds the typed [`Scenario`] from the tree, so
//! `validate` and `run` read the text no second time, and any position an error gives is in
//! the user's own text. [`Document::to_toml`] writes the tree back (`Scenario.save`, the
//! resolved scenario a sweep's workers run).

use std::path::Path;

use toml::{Table, Value};

use crate::error::join_key;
use crate::input_file::{self, InputError};
use crate::overrides::{self, DottedKey};
use crate::{de, Scenario, ScenarioError, ScenarioFile};

/// Deepest nesting of tables and arrays a document may have (a table inside a table is one
/// level, an array one more). The deepest key of the format is 6 levels down
/// (`cells.c.ues.u.downlink_loss.kind`); TOML's parser stops at 80.
pub const MAX_DEPTH: usize = 32;

/// Why a file could not be read as a document.
#[derive(Debug)]
pub enum ReadError {
    /// The system's error: no such file, no permission.
    Io(std::io::Error),
    /// The path is a directory.
    Directory,
    /// Not a document: not a regular file, too large, not UTF-8, not TOML, too deep. The key
    /// is the path as given.
    Refused(ScenarioError),
}

/// A parsed TOML document whose every table and array is at most [`MAX_DEPTH`] deep.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Document {
    root: Table,
}

impl Document {
    /// Parses TOML text. A syntax error is "TOML syntax error at line 3, column 7: …"
    /// (positions 1-based, columns in characters); every error about the text is keyed `name`
    /// (the file's path, or [`ScenarioError::FILE_KEY`]).
    pub fn parse(text: &str, name: &str) -> Result<Self, ScenarioError> {
        let root: Table = text
            .parse()
            .map_err(|e: toml::de::Error| ScenarioError::new(name, syntax_message(text, &e)))?;
        Document::from_table(root)
            .map_err(|e| ScenarioError::new(name, format!("{}: {}", e.key, e.message)))
    }

    /// Reads and parses the regular file at `path` (at most 64 MiB of UTF-8 text); errors
    /// about the file's content are keyed by the path as given.
    pub fn read(path: &Path) -> Result<Self, ReadError> {
        let name = path.display().to_string();
        if path.as_os_str().as_encoded_bytes().contains(&0) {
            // No file has such a name; the system would refuse it as invalid input.
            return Err(ReadError::Refused(ScenarioError::new(
                name,
                "a file name cannot contain a NUL character",
            )));
        }
        let text = input_file::read_text_of(path, "file").map_err(|e| match e {
            InputError::Io(e) => ReadError::Io(e),
            InputError::Directory => ReadError::Directory,
            InputError::Refused(m) => ReadError::Refused(ScenarioError::new(&name, m)),
        })?;
        Document::parse(&text, &name).map_err(ReadError::Refused)
    }

    /// A document of `root`, which is checked to be at most [`MAX_DEPTH`] deep.
    pub fn from_table(root: Table) -> Result<Self, ScenarioError> {
        for (key, value) in &root {
            check_depth(key, value, 1)?;
        }
        Ok(Document { root })
    }

    /// The resolved scenario (its echo: every default filled in, units normalised) as a
    /// document, which [`Document::to_toml`] writes as the scenario file it is.
    pub fn from_echo(scenario: &Scenario) -> Result<Self, ScenarioError> {
        let root: Table = serde_json::from_value(scenario.echo()).map_err(|e| {
            ScenarioError::new(
                ScenarioError::FILE_KEY,
                format!("the resolved scenario is not a TOML document: {e}"),
            )
        })?;
        Document::from_table(root)
    }

    /// The root table.
    pub fn root(&self) -> &Table {
        &self.root
    }

    /// The value at the dotted key `path` (see [`overrides::get`]).
    pub fn get(&self, path: &DottedKey<'_>) -> Result<&Value, ScenarioError> {
        overrides::get(&self.root, path)
    }

    /// Sets the dotted key `path` to `value`, as `--set` does (see [`overrides::set`]).
    pub fn set(&mut self, path: &DottedKey<'_>, value: Value) -> Result<(), ScenarioError> {
        overrides::set(&mut self.root, path, value)
    }

    /// Applies `overrides` (dotted key, value as after `--set key=`) in order.
    pub fn apply(&mut self, overrides: &[(String, String)]) -> Result<(), ScenarioError> {
        overrides::apply(&mut self.root, overrides)
    }

    /// The document as TOML text: plain values first, then each table under its header.
    pub fn to_toml(&self) -> String {
        // Serialising a tree of TOML values fails only for a value TOML has no form for,
        // which a parsed or checked tree cannot hold.
        toml::to_string(&self.root).unwrap_or_else(|e| unreachable!("a TOML tree is TOML: {e}"))
    }

    /// The typed scenario of this document with `overrides` applied (to a copy: the document
    /// itself is unchanged). Relative file paths in it (links' `trace` files, cells'
    /// `bler_table` files) are taken relative to `base_dir`, the directory of the scenario
    /// file; the resolved paths are what the scenario echoes.
    pub fn load(
        &self,
        overrides: &[(String, String)],
        base_dir: &Path,
    ) -> Result<Scenario, ScenarioError> {
        let mut edited = self.clone();
        edited.apply(overrides)?;
        crate::config::cells::read_channel_units(&mut edited.root)?;
        let mut file: ScenarioFile = de::from_table(&edited.root)?;
        for link in file.links.values_mut() {
            link.anchor_trace_paths(base_dir);
        }
        for cell in file.cells.values_mut() {
            cell.anchor_bler_table_path(base_dir);
            cell.anchor_nr_trace_path(base_dir);
        }
        file.resolve()
    }
}

/// `value` as inline TOML on one line, the form `--set key=VALUE` reads back as that value
/// (tables become inline tables, strings basic strings with `\n` escaped: a line break would
/// make `--set` take the text literally, see [`overrides::parse_value`]).
pub fn inline(value: &Value) -> String {
    use toml_writer::{ToTomlKey, ToTomlValue, TomlKeyBuilder, TomlStringBuilder};
    match value {
        Value::String(s) => TomlStringBuilder::new(s).as_basic().to_toml_value(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(inline).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Table(t) if t.is_empty() => "{}".to_owned(),
        Value::Table(t) => {
            let items: Vec<String> = t
                .iter()
                .map(|(k, v)| {
                    let key = TomlKeyBuilder::new(k).as_default().to_toml_key();
                    format!("{key} = {}", inline(v))
                })
                .collect();
            format!("{{ {} }}", items.join(", "))
        }
        // Numbers, booleans and date-times are one token, written by the TOML crate.
        other => other.to_string(),
    }
}

/// Refuses a table or array that sits at `level` ≥ [`MAX_DEPTH`] (a value of the root table
/// is at level 1) in `value`, the value at `key`; the error names the innermost key reached.
/// Walks without recursion.
pub(crate) fn check_depth(key: &str, value: &Value, level: usize) -> Result<(), ScenarioError> {
    let mut stack: Vec<(String, &Value, usize)> = vec![(key.to_owned(), value, level)];
    while let Some((at, node, level)) = stack.pop() {
        let nested = matches!(node, Value::Table(_) | Value::Array(_));
        if nested && level >= MAX_DEPTH {
            return Err(too_deep(&at));
        }
        match node {
            Value::Table(t) => {
                stack.extend(t.iter().map(|(k, v)| (join_key(&at, k), v, level + 1)));
            }
            Value::Array(a) => {
                stack.extend(
                    a.iter()
                        .enumerate()
                        .map(|(i, v)| (format!("{at}[{i}]"), v, level + 1)),
                );
            }
            _ => {}
        }
    }
    Ok(())
}

/// The error of a value nested deeper than [`MAX_DEPTH`], at `key`.
pub fn too_deep(key: &str) -> ScenarioError {
    ScenarioError::new(
        key,
        format!("nested more than {MAX_DEPTH} tables or arrays deep; the format needs at most 6"),
    )
}

/// "TOML syntax error at line 3, column 7: …", positions 1-based, columns in characters. Two
/// of the parser's errors are worded as the format's bounds: its nesting limit (80 levels of
/// arrays, inline tables or dotted keys) and an integer beyond 64 bits, which is named by its
/// key.
fn syntax_message(text: &str, err: &toml::de::Error) -> String {
    let detail = err.message().trim_end();
    let offset = err.span().map(|span| {
        let mut offset = span.start.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    });
    let detail = if detail == "recursion limit" || detail.starts_with("cannot recurse further") {
        format!("nested more than {MAX_DEPTH} tables or arrays deep; the format needs at most 6")
    } else if detail == "integer number overflowed"
        || (detail.starts_with("invalid type: integer") && detail.contains("as i128"))
    {
        let number = err.span().and_then(|s| text.get(s)).unwrap_or("").trim();
        let key = offset.and_then(|o| key_at(text, o));
        format!(
            "{}{number} is out of range; integers fit in 64 bits, from -2^63 to 2^63-1",
            key.map(|k| format!("{k}: ")).unwrap_or_default()
        )
    } else {
        detail.to_owned()
    };
    match offset {
        Some(offset) => {
            let before = &text[..offset];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("TOML syntax error at line {line}, column {column}: {detail}")
        }
        None => format!("TOML syntax error: {detail}"),
    }
}

/// The dotted key of the `key = value` line around `offset`, under the table header last
/// opened before it (`simulation.seed` for `seed = …` below `[simulation]`): what names a value
/// the parser could not hold, when no tree was built to name it from.
fn key_at(text: &str, offset: usize) -> Option<String> {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let (key, _) = text[line_start..offset].split_once('=')?;
    let dotted = |k: &str| k.split('.').map(str::trim).collect::<Vec<_>>().join(".");
    let header = text[..line_start].lines().rev().find_map(|line| {
        let line = line.trim_start();
        let inner = line.strip_prefix('[')?;
        let inner = inner.strip_prefix('[').unwrap_or(inner);
        Some(dotted(inner.split(']').next()?))
    });
    let key = dotted(key);
    Some(match header {
        Some(h) if !h.is_empty() => join_key(&h, &key),
        _ => key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_err(text: &str) -> String {
        Document::parse(text, "s.toml")
            .expect_err("refused")
            .to_string()
    }

    #[test]
    fn integers_beyond_64_bits_are_named_by_their_key_and_line() {
        assert_eq!(
            parse_err("[simulation]\nduration = '1s'\nseed = 99999999999999999999\n"),
            "s.toml: TOML syntax error at line 3, column 8: simulation.seed: \
             99999999999999999999 is out of range; integers fit in 64 bits, from -2^63 to 2^63-1"
        );
        let e = parse_err(&format!("[a]\n[b.c]\nx = -{}\n", "9".repeat(5000)));
        assert!(
            e.starts_with("s.toml: TOML syntax error at line 3, column 5: b.c.x: "),
            "{e}"
        );
        assert!(e.ends_with("is out of range; integers fit in 64 bits, from -2^63 to 2^63-1"));
        assert!(e.len() < 300, "the number is cut: {e}");
        assert_eq!(
            parse_err("x = 1e999\n"),
            "s.toml: TOML syntax error at line 1, column 5: floating-point number overflowed"
        );
    }

    #[test]
    fn nesting_beyond_the_bound_is_refused_in_every_form() {
        let deep = "nested more than 32 tables or arrays deep; the format needs at most 6";
        // Beyond the parser's own limit of 80: arrays, inline tables, dotted keys, headers.
        for text in [
            format!("x = {}{}\n", "[".repeat(1000), "]".repeat(1000)),
            format!("x = {}1{}\n", "{a = ".repeat(1000), "}".repeat(1000)),
            format!("{} = 1\n", vec!["a"; 50_000].join(".")),
            format!("[{}]\n", vec!["t"; 5000].join(".")),
        ] {
            let e = parse_err(&text);
            assert!(e.starts_with("s.toml: TOML syntax error"), "{e}");
            assert!(e.ends_with(deep), "{e}");
        }
        // Within the parser's limit, beyond the format's bound: the innermost key is named.
        let e = parse_err(&format!("x = {}{}\n", "[".repeat(40), "]".repeat(40)));
        assert!(e.starts_with("s.toml: x[0][0]"), "{e}");
        assert!(e.ends_with(deep), "{e}");
        let at_bound = format!("x = {}{}\n", "[".repeat(31), "]".repeat(31));
        assert!(Document::parse(&at_bound, "s.toml").is_ok());
        let beyond = format!("x = {}{}\n", "[".repeat(32), "]".repeat(32));
        assert!(Document::parse(&beyond, "s.toml").is_err());
    }

    #[test]
    fn syntax_errors_are_keyed_by_the_name_with_the_users_line() {
        let e = Document::parse("# one\n# two\n[simulation]\nseed = = 3\n", "my.toml")
            .expect_err("bad TOML");
        assert_eq!(e.key, "my.toml");
        assert_eq!(
            e.message,
            "TOML syntax error at line 4, column 8: extra `=`, expected nothing"
        );
    }

    #[test]
    fn a_document_is_edited_by_key_and_written_back() {
        let mut d = Document::parse("[links.access]\nrate = '10Mbps'\n", "s.toml").unwrap();
        let key = DottedKey::parse("links.access.rate").unwrap();
        assert_eq!(d.get(&key).unwrap().as_str(), Some("10Mbps"));
        d.set(&key, Value::String("20Mbps".into())).unwrap();
        d.apply(&[("simulation.seed".into(), "7".into())]).unwrap();
        let again = Document::parse(&d.to_toml(), "again").unwrap();
        assert_eq!(again, d);
        assert_eq!(again.root()["simulation"]["seed"].as_integer(), Some(7));
    }

    #[test]
    fn inline_values_read_back_through_set_as_written() {
        let values = [
            "1",
            "-2.5",
            "1e-05",
            "true",
            "'10Mbps'",
            r#"'a "quoted" \ '"#,
            "\"line\\nbreak\\u0000\"",
            "['cwnd', 'srtt']",
            "{ kind = 'codel', 'odd key' = 1, nested = { x = [1, 2] } }",
            "{}",
            "1979-05-27T07:32:00Z",
            "nan",
            "-inf",
        ];
        for text in values {
            let value: Value = text.parse().expect(text);
            let written = inline(&value);
            assert!(!written.contains('\n'), "{written}");
            let back = overrides::parse_value(&written);
            match (&value, &back) {
                (Value::Float(a), Value::Float(b)) if a.is_nan() => assert!(b.is_nan()),
                _ => assert_eq!(back, value, "{text} written as {written}"),
            }
        }
        assert_eq!(
            inline(&"{ kind = 'codel', target = '5ms' }".parse().unwrap()),
            r#"{ kind = "codel", target = "5ms" }"#
        );
    }

    #[test]
    fn load_applies_overrides_to_a_copy() {
        let text = crate::tests::MINIMAL;
        let d = Document::parse(text, ScenarioError::FILE_KEY).unwrap();
        let base = d.load(&[], Path::new("")).unwrap();
        let seeded = d
            .load(&[("simulation.seed".into(), "99".into())], Path::new(""))
            .unwrap();
        assert_eq!(seeded.simulation.seed, 99);
        assert_ne!(base, seeded);
        assert_eq!(d, Document::parse(text, ScenarioError::FILE_KEY).unwrap());
        // The echo is a document that loads to the same scenario.
        let echo = Document::from_echo(&seeded).unwrap();
        let reloaded = Document::parse(&echo.to_toml(), "echo").unwrap();
        assert_eq!(reloaded.load(&[], Path::new("")).unwrap(), seeded);
    }

    #[test]
    fn files_are_read_only_when_regular_and_named() {
        let e = Document::read(Path::new("/dev/zero")).expect_err("a device");
        assert!(
            matches!(&e, ReadError::Refused(s) if s.key == "/dev/zero" && s.message.contains("not a regular file")),
            "{e:?}"
        );
        let dir = std::env::temp_dir();
        assert!(matches!(Document::read(&dir), Err(ReadError::Directory)));
        assert!(matches!(
            Document::read(Path::new("/nonexistent/x.toml")),
            Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound
        ));
        let e = Document::read(Path::new("a\0b.toml")).expect_err("NUL");
        assert!(matches!(e, ReadError::Refused(s) if s.message.contains("NUL")));
    }
}
