//! Scenario files of celltcp: units, typed configuration, validation, overrides, JSON Schema.
//!
//! Loading runs in four steps, each reporting errors by dotted key ([`ScenarioError`]):
//! 1. parse the TOML text into a value tree;
//! 2. apply command-line overrides to the tree ([`overrides`]);
//! 3. deserialize the raw section structs (`config::*File`, unknown keys rejected, units parsed);
//! 4. convert and cross-check them into the typed [`Scenario`].
//!
//! The format is documented in `docs/scenarios.md`; [`json_schema`] describes it for editors.
//! The outputs of a run — the [`summary::Summary`], the series' column sets
//! ([`series_columns`]) and their labels ([`labels`]) — are typed too, and
//! [`output_json_schema`] describes them (`docs/outputs.md`).

pub mod analytics;
mod build;
pub mod config;
mod de;
pub mod error;
mod handovers;
mod input_file;
pub mod intervals;
pub mod labels;
pub mod overrides;
pub mod run;
pub mod schema;
pub mod series;
pub mod series_columns;
mod series_dch;
pub mod summary;
pub mod units;
mod validate;

#[cfg(test)]
mod tests;

use std::path::Path;

pub use celltcp_tcp::app::FileSize;
pub use celltcp_tcp::{AckControlConfig, TcpConfig};
pub use config::apps::AppSpec;
pub use config::capture::CaptureSpec;
pub use config::flows::{Arrival, Flow, FlowKind, UdpFlow};
pub use config::links::{Link, LinkDirection};
pub use config::loss::LossSpec;
pub use config::nodes::{Node, NodeKind};
pub use config::queue::QueueSpec;
pub use config::simulation::Simulation;
pub use config::tcp::{CcAlgorithm, TcpFlow};
pub use config::trace::TraceSpec;
pub use config::{Scenario, ScenarioFile};
pub use error::{ScenarioError, ScenarioWarning};
pub use run::{
    check, run, run_interruptible, run_interruptible_watched, Poll, RunError, RunOptions,
    RunOutput, RunProgress, RunStopReason, Watch,
};
pub use schema::{json_schema, output_json_schema};
pub use series::{Column, Series};

/// Loads a scenario from TOML text, applying `overrides` (dotted key, value) in order. Relative
/// file paths in it (links' `trace` files, cells' `bler_table` files) are relative to the
/// current directory.
pub fn load_str(text: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    load_str_in(text, overrides, Path::new(""))
}

/// [`load_str`] with relative file paths (links' `trace` files, cells' `bler_table` files)
/// taken relative to `base_dir`, the directory of the scenario file the text came from. The
/// resolved paths are what the scenario echoes.
pub fn load_str_in(
    text: &str,
    overrides: &[(String, String)],
    base_dir: &Path,
) -> Result<Scenario, ScenarioError> {
    let mut root: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| syntax_error(text, &e))?;
    overrides::apply(&mut root, overrides)?;
    let mut file: ScenarioFile = de::from_table(&root)?;
    for link in file.links.values_mut() {
        link.anchor_trace_paths(base_dir);
    }
    for cell in file.cells.values_mut() {
        cell.anchor_bler_table_path(base_dir);
    }
    file.resolve()
}

/// Loads a scenario file from disk; relative `trace` and `bler_table` paths in it are relative
/// to the file's directory. See [`load_str`].
pub fn load_path(path: &Path, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    // A regular file of bounded size only: a FIFO or a device would hang or never end.
    let text = input_file::read_text(path, "scenario file", |e| {
        format!("cannot read '{}': {e}", path.display())
    })
    .map_err(|m| ScenarioError::new(ScenarioError::FILE_KEY, m))?;
    load_str_in(&text, overrides, path.parent().unwrap_or(Path::new("")))
}

/// "TOML syntax error at line 3, column 7: …", positions 1-based, columns in characters.
fn syntax_error(text: &str, err: &toml::de::Error) -> ScenarioError {
    let detail = err.message().trim_end();
    let message = match err.span() {
        Some(span) => {
            let mut offset = span.start.min(text.len());
            while !text.is_char_boundary(offset) {
                offset -= 1;
            }
            let before = &text[..offset];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("TOML syntax error at line {line}, column {column}: {detail}")
        }
        None => format!("TOML syntax error: {detail}"),
    };
    ScenarioError::new(ScenarioError::FILE_KEY, message)
}
