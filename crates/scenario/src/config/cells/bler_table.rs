//! `[cells.NAME] bler_table = "curves.csv"`: the cell's BLER curves from a file of link-level
//! points (`celltcp_radio::phy::BlerTable`, format in docs/lte-phy.md) instead of the default
//! logistic curves.
//!
//! An NR cell's table is of the MCSs of its `nr.mcs_table` (TS 38.214 Table 5.1.3.1-1, -2 or
//! -3: 0..=28, 0..=27, 0..=28), read by the same reader (`NrBlerModel::from_reader`); it lands
//! in the cell's `nr` configuration, whose curves it replaces.
//!
//! The path is relative to the scenario file's directory, as a link's `trace` is; the file is
//! read and validated when the scenario is resolved, so a bad table is a scenario error naming
//! the key, the file and the line (`cells.c.bler_table: curves.csv:5: …`) before anything runs.

use std::io::BufRead;
use std::path::Path;
use std::sync::Arc;

use celltcp_radio::cell::CellRadioConfig;
use celltcp_radio::nr::NrBlerModel;
use celltcp_radio::phy::{BlerTable, BlerTableError};

use super::CellFile;
use crate::ScenarioError;

impl CellFile {
    /// Makes a relative `bler_table` path relative to `base_dir` (the scenario file's
    /// directory) instead; an absolute path is kept. Call before resolving, as
    /// `LinkFile::anchor_trace_paths`; the echo then shows the path that was read.
    pub fn anchor_bler_table_path(&mut self, base_dir: &Path) {
        if let Some(path) = &mut self.bler_table {
            if Path::new(path.as_str()).is_relative() {
                *path = base_dir.join(path.as_str()).to_string_lossy().into_owned();
            }
        }
    }
}

/// Reads and validates the table of cell `name`, if it has one: for an LTE cell, of the MCSs of
/// its `cqi_table`, returned; for an NR cell (`c.nr` set by the caller), of the MCSs of its
/// `nr.mcs_table`, set as `c.nr.bler_curves` (and `None` returned). The table's curves carry
/// their own slopes, so a `bler_decade_db` other than the default 1 dB with it is an error
/// naming both keys (rather than a setting silently ignored).
pub(super) fn read(
    name: &str,
    c: &mut CellFile,
    radio: &CellRadioConfig,
) -> Result<Option<Arc<BlerTable>>, ScenarioError> {
    let Some(path) = c.bler_table.as_deref() else {
        return Ok(None);
    };
    if radio.bler_decade_db != CellRadioConfig::default().bler_decade_db {
        return Err(ScenarioError::new(
            format!("cells.{name}.bler_decade_db"),
            format!(
                "{} is given with cells.{name}.bler_table; the table's curves have their own \
                 slopes, so give one of the two keys",
                radio.bler_decade_db
            ),
        ));
    }
    let key = format!("cells.{name}.bler_table");
    match c.nr.as_mut() {
        None => parse(&key, path, |r| {
            BlerTable::from_reader_for(radio.cqi_table, r)
        })
        .map(|t| Some(Arc::new(t))),
        Some(nr) => {
            let mcs_table = nr.mcs_table;
            let curves = parse(&key, path, |r| NrBlerModel::from_reader(mcs_table, r))?;
            nr.bler_curves = Some(Arc::new(curves));
            Ok(None)
        }
    }
}

/// Reads the table at `path` with `read`, as a stream and within the bounds of a link's trace;
/// errors name `key`, the file and the line.
fn parse<T>(
    key: &str,
    path: &str,
    read: impl FnOnce(&mut dyn BufRead) -> Result<T, BlerTableError>,
) -> Result<T, ScenarioError> {
    let in_file = |e: BlerTableError| BlerTableError::InFile {
        path: path.to_owned(),
        source: Box::new(e),
    };
    crate::input_file::parse_file(
        Path::new(path),
        "BLER table",
        |e| format!("{path}: cannot read the BLER table: {e}"),
        read,
        |e| describe(path, &in_file(e)),
    )
    .map_err(|m| ScenarioError::new(key, m))
}

/// `<path>:<line>: <message>` for an error on one line of the file, `<path>: <message>`
/// otherwise (a file that cannot be read, a table without points, missing MCSs).
fn describe(path: &str, e: &BlerTableError) -> String {
    match e {
        BlerTableError::InFile { source, .. } => {
            let message = source.to_string();
            match source.line() {
                Some(line) => {
                    // The table's messages start with "line N: "; the file's name takes its
                    // place in the compiler-style "file:line: message".
                    let prefix = format!("line {line}: ");
                    let text = message.strip_prefix(&prefix).unwrap_or(&message);
                    format!("{path}:{line}: {text}")
                }
                None => format!("{path}: {message}"),
            }
        }
        // `Io` names the path itself; the other kinds come only from `parse`, wrapped above.
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_on_a_line_read_as_file_colon_line() {
        let inner = BlerTableError::NotANumber {
            line: 5,
            column: "sinr_db",
            value: "x".into(),
            expected: "a SINR in dB",
        };
        let e = BlerTableError::InFile {
            path: "d/t.csv".into(),
            source: Box::new(inner),
        };
        assert_eq!(
            describe("d/t.csv", &e),
            "d/t.csv:5: sinr_db `x` is not a number; expected a SINR in dB"
        );
        let whole = BlerTableError::InFile {
            path: "t.csv".into(),
            source: Box::new(BlerTableError::MissingMcs {
                mcs: vec![3],
                max: 28,
            }),
        };
        assert!(describe("t.csv", &whole).starts_with("t.csv: no curve for MCS 3"));
    }

    #[test]
    fn relative_paths_are_anchored_and_absolute_ones_kept() {
        let text = "enb = \"e\"\nbler_table = \"curves.csv\"";
        let mut c: CellFile = toml::from_str(text).unwrap();
        c.anchor_bler_table_path(Path::new("studies/x"));
        let anchored = Path::new("studies/x").join("curves.csv");
        assert_eq!(c.bler_table.as_deref(), anchored.to_str());
        let absolute = std::env::temp_dir().join("curves.csv");
        c.bler_table = Some(absolute.to_string_lossy().into_owned());
        c.anchor_bler_table_path(Path::new("studies/x"));
        assert_eq!(c.bler_table.as_deref(), absolute.to_str());
    }
}
