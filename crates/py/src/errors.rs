//! The one mapping from the simulator's errors to Python exceptions.
//!
//! Every error that crosses into Python goes through [`to_py_err`], so each Rust error kind has
//! exactly one Python class:
//!
//! | Rust                                  | Python                                    |
//! |---------------------------------------|-------------------------------------------|
//! | `ScenarioError` / `RunError::Scenario`| `celltcp.ScenarioError(message, key)`     |
//! | `RunError::Io`                        | `OSError(errno, strerror, filename)`      |
//! | `RunError::Network`, `RunError::Internal`, a model's panic | `celltcp.SimulationError(message)` |
//! | an emulation that fell behind real time (`EmuError::TooSlow`) | `RealTimeError(message)`, a `SimulationError` |
//! | `RunError::Interrupted` (Ctrl-C)      | `KeyboardInterrupt` (the run passes on the one Python raised) |

use celltcp_scenario::RunError;
use celltcp_scenario::ScenarioError as RustScenarioError;
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyValueError};
use pyo3::{create_exception, PyErr};

create_exception!(
    celltcp._core,
    ScenarioError,
    PyValueError,
    "Bad user input: a scenario value, key or override that does not validate. \
     args are (message, key); key is the dotted path of the offending value."
);
create_exception!(
    celltcp._core,
    SimulationError,
    PyRuntimeError,
    "A failure inside the simulator itself (an internal invariant or a model's panic): a bug."
);

create_exception!(
    celltcp._core,
    RealTimeError,
    SimulationError,
    "An emulation whose engine fell further behind the wall clock than its max_lag: the \
     machine cannot run this path in real time. Not a bug; the message says by how much."
);

/// Converts any run or scenario error into the Python exception of its kind.
pub fn to_py_err(err: RunError) -> PyErr {
    match err {
        RunError::Scenario(e) => ScenarioError::new_err((e.message, e.key)),
        RunError::Io { path, source } => {
            // OSError(errno, strerror, filename) picks the matching subclass (PEP 3151), e.g.
            // PermissionError, so Python callers can catch the usual classes.
            let errno = source.raw_os_error().unwrap_or(0);
            // Python appends the file name itself; drop Rust's " (os error N)" suffix so the
            // text reads like any other OSError.
            let text = source.to_string();
            let strerror = text
                .trim_end_matches(&format!(" (os error {errno})"))
                .to_string();
            PyOSError::new_err((errno, strerror, path.display().to_string()))
        }
        // A request the network refused (e.g. a path switch for a UE without a bearer) means
        // the run's results would be wrong: a failure of the simulation, not of the input.
        RunError::Network(message) | RunError::Internal(message) => {
            SimulationError::new_err(message)
        }
        RunError::Interrupted => PyKeyboardInterrupt::new_err(()),
    }
}

/// A scenario error on its own (from loading or validating) is a run error of that kind.
pub fn scenario_to_py_err(err: RustScenarioError) -> PyErr {
    to_py_err(RunError::Scenario(err))
}

/// A panic caught at the boundary is reported as an internal error, never as a crash of the
/// interpreter; the payload is the panic message when it is a string.
pub fn panic_to_py_err(payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".to_string());
    to_py_err(RunError::Internal(format!("simulator panicked: {what}")))
}
