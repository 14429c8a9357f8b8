//! Why an emulation run failed.

use std::io;
use std::path::PathBuf;

use celltcp_scenario::{RunError, ScenarioError};

/// An emulation failure. Bad input (the scenario, the attachments, the options) is a
/// [`ScenarioError`] naming the key at fault; the rest are failures of the run.
#[derive(Debug, thiserror::Error)]
pub enum EmuError {
    /// The scenario, an override, an attachment or an option is invalid.
    #[error(transparent)]
    Input(#[from] ScenarioError),
    /// The simulation itself failed (a network request refused, a model's panic, a capture of
    /// the scenario's links that could not be written).
    #[error(transparent)]
    Run(RunError),
    /// The engine stayed further behind the wall clock than `max_lag` for more than a second.
    #[error(
        "the path's rate cannot be emulated in real time on this machine: the engine fell \
         {behind_s:.3} s behind real time (max_lag {max_lag_s} s) and stayed more than \
         max_lag behind for {over_for_s:.2} s, at simulated time {at_s:.3} s; lower the \
         rates or the number of flows and cells, or raise max_lag"
    )]
    TooSlow {
        behind_s: f64,
        max_lag_s: f64,
        over_for_s: f64,
        at_s: f64,
    },
    /// Reading or writing the descriptor of an attached host failed.
    #[error("{op} on the descriptor {fd} of attached host '{host}': {source}")]
    Device {
        host: String,
        fd: i32,
        op: &'static str,
        source: io::Error,
    },
    /// The real-time priority asked for could not be had.
    #[error("SCHED_FIFO priority {priority}: {source}")]
    Priority { priority: u8, source: io::Error },
    /// Waiting for the descriptors failed.
    #[error("poll: {0}")]
    Poll(io::Error),
    /// The capture file could not be written.
    #[error("{}: {source}", path.display())]
    Capture { path: PathBuf, source: io::Error },
}

impl From<RunError> for EmuError {
    fn from(e: RunError) -> Self {
        match e {
            RunError::Scenario(s) => EmuError::Input(s),
            other => EmuError::Run(other),
        }
    }
}
