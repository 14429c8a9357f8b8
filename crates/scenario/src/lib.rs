//! Scenario files of celltcp: units, typed configuration, validation, overrides, JSON Schema.
//!
//! Loading runs in four steps, each reporting errors by dotted key ([`ScenarioError`]):
//! 1. parse the TOML text once into a [`Document`], bounded against hostile input;
//! 2. apply command-line overrides to (a copy of) its tree ([`overrides`]);
//! 3. deserialize the raw section structs (`config::*File`, unknown keys rejected, units parsed);
//! 4. convert and cross-check them into the typed [`Scenario`].
//!
//! The format is documented in `docs/scenarios.md`; [`json_schema`] describes it for editors.
//!
//! A loaded scenario is built into a world and [`run()`]; what the run produces — the
//! [`summary::Summary`], the series, the per-handover analytics — is made by the
//! `celltcp_outputs` crate from the world, with what only the scenario knows handed in
//! ([`summary`]); [`output_json_schema`] describes it (`docs/outputs.md`).

mod assemble;
pub mod config;
mod de;
pub mod document;
pub mod error;
mod input_file;
pub mod overrides;
pub mod run;
pub mod schema;
pub mod summary;
pub mod units;
mod validate;

#[cfg(test)]
mod tests;

use std::path::Path;

pub use celltcp_outputs::{Column, Series};
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
pub use document::Document;
pub use error::{ScenarioError, ScenarioWarning};
pub use overrides::DottedKey;
pub use run::{
    check, run, run_interruptible, run_interruptible_watched, Poll, RunError, RunOptions,
    RunOutput, RunProgress, RunStopReason, Watch,
};
pub use schema::{json_schema, output_json_schema};

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
    Document::parse(text, ScenarioError::FILE_KEY)?.load(overrides, base_dir)
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
