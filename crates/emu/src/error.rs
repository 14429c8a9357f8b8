//! Why an emulation run failed.

use std::io;
use std::path::PathBuf;

use celltcp_scenario::{RunError, ScenarioError};

/// How the message of [`EmuError::TooSlow`] begins.
pub const TOO_SLOW_MARKER: &str = "cannot keep up with real time";

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
    /// The message begins with [`TOO_SLOW_MARKER`], by which the Python layer tells this
    /// failure (the machine's, not a bug) from the others.
    #[error(
        "cannot keep up with real time: the engine fell {} behind the wall clock (max_lag {}) \
         and stayed more than max_lag behind for {over_for_s:.2} s, at simulated time \
         {at_s:.3} s; this machine cannot emulate the path's rate: lower the rates or the \
         number of flows and cells, stop other work on the machine, or raise max_lag",
        readable(*behind_s),
        readable(*max_lag_s)
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

/// Seconds in the unit that reads best: `1.25 s`, `12.3 ms`, `40 µs`, `100 ns`.
fn readable(s: f64) -> String {
    let (value, unit) = if s >= 1.0 {
        (s, "s")
    } else if s >= 1e-3 {
        (s * 1e3, "ms")
    } else if s >= 1e-6 {
        (s * 1e6, "µs")
    } else {
        (s * 1e9, "ns")
    };
    let text = format!("{value:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} {unit}")
}

impl From<RunError> for EmuError {
    fn from(e: RunError) -> Self {
        match e {
            RunError::Scenario(s) => EmuError::Input(s),
            other => EmuError::Run(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn falling_behind_reads_in_sensible_units() {
        let e = EmuError::TooSlow {
            behind_s: 0.012345,
            max_lag_s: 1e-7,
            over_for_s: 1.004,
            at_s: 3.5,
        };
        let text = e.to_string();
        assert!(text.starts_with(TOO_SLOW_MARKER), "{text}");
        assert!(
            text.contains("fell 12.345 ms behind the wall clock (max_lag 100 ns)"),
            "{text}"
        );
        assert_eq!(readable(0.1), "100 ms");
        assert_eq!(readable(2.5), "2.5 s");
        assert_eq!(readable(4e-5), "40 µs");
    }
}
