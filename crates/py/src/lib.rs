//! `celltcp._core`: the private compiled module behind the `celltcp` Python package.
//!
//! The public API is written in Python (`python/celltcp/`); this module only moves scenario
//! documents, overrides and options into the Rust crates and results back out. A scenario is
//! parsed, edited by dotted key and written back by `celltcp_scenario::Document` alone
//! (`document::PyDocument`, which Python's `Scenario` wraps), and validated by
//! `celltcp_scenario` alone, so the CLI, the Python API and sweeps all reject the same inputs
//! with the same messages. Errors are mapped in one place, `errors::to_py_err`.

mod bench;
mod document;
mod emulate;
mod errors;
mod models;
mod series;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use celltcp_scenario::{Poll, RunError, RunOptions, RunOutput, RunProgress, RunStopReason};
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use document::ScenarioInput;
use errors::{panic_to_py_err, to_py_err, ScenarioError, SimulationError};

/// The JSON Schema of the scenario format, as JSON text.
#[pyfunction]
fn schema() -> PyResult<String> {
    serde_json::to_string_pretty(&celltcp_scenario::json_schema()).map_err(|e| {
        to_py_err(RunError::Internal(format!(
            "schema is not serialisable: {e}"
        )))
    })
}

/// The JSON Schema of a run's outputs (the summary with its records and figure tables, the
/// series' column sets, the label sets), as JSON text; with the series `celltcp emulate` adds.
#[pyfunction]
fn output_schema() -> PyResult<String> {
    let series = celltcp_emu::series_columns(celltcp_outputs::series_columns::all());
    let schema = celltcp_outputs::schema::output_json_schema_with(&series);
    serde_json::to_string_pretty(&schema).map_err(|e| {
        to_py_err(RunError::Internal(format!(
            "output schema is not serialisable: {e}"
        )))
    })
}

/// The label sets of the outputs (handover causes, results and policies, TCP outcome classes,
/// drop causes and places, stop reasons, link directions, trace variables), by key.
#[pyfunction]
fn output_labels() -> std::collections::BTreeMap<&'static str, Vec<&'static str>> {
    celltcp_outputs::labels::output_labels()
}

/// Loads and validates a scenario (a `Document`, or TOML text), building its world without
/// simulating (every check `run` makes before its first event); returns the resolved scenario
/// (every default filled in) as JSON text, and the warnings as `(key, message)` pairs. Raises
/// `ScenarioError(message, key)` on bad input.
#[pyfunction]
#[pyo3(signature = (scenario, overrides = Vec::new(), base_dir = None))]
fn validate(
    scenario: ScenarioInput<'_>,
    overrides: Vec<(String, String)>,
    base_dir: Option<PathBuf>,
) -> PyResult<(String, Vec<(String, String)>)> {
    let input = scenario.into_owned();
    // As in `run`: loading and building happen inside one panic guard.
    let (scenario, warnings) = catch_unwind(AssertUnwindSafe(|| -> Result<_, RunError> {
        let scenario = input
            .load(&overrides, base_dir.as_deref())
            .map_err(RunError::Scenario)?;
        // Every check `run` makes before its first event, so that what validates also starts.
        let warnings = celltcp_scenario::check(&scenario)?;
        Ok((scenario, warnings))
    }))
    .map_err(panic_to_py_err)?
    .map_err(to_py_err)?;
    let echo = serde_json::to_string(&scenario.echo())
        .map_err(|e| to_py_err(RunError::Internal(format!("echo is not serialisable: {e}"))))?;
    Ok((
        echo,
        warnings.into_iter().map(|w| (w.key, w.message)).collect(),
    ))
}

/// Runs a scenario (a `Document`, or TOML text) to completion with the GIL released.
///
/// `seed` overrides `simulation.seed`; `run` selects the replication (each run number draws
/// independent random streams); captures of `capture_links` (plus the scenario's own
/// `capture.links` and `capture.cells`) are written to `capture_dir`: `<link>.pcap` for a link,
/// `<cell>.pcapng` and `<cell>.mac-lte.pcap` for a cell, `<dch>.pcapng` for a DCH.
///
/// About every 50 ms of wall time the run takes the GIL back for a moment to let Python handle
/// signals (`PyErr_CheckSignals`): Ctrl-C raises KeyboardInterrupt within about 0.1 s or, with
/// `keep_partial`, ends the run there and returns what was simulated, with `stop_reason`
/// `"interrupted"`. A process that ignores SIGINT (a sweep's worker) is not interrupted.
///
/// `progress`, when given, is called at the same moments with `(simulated_s, end_s, events)`;
/// returning `False` ends the run there with `stop_reason` `"stopped"` and what was simulated.
///
/// `on_interval`, when given with `interval` (a time such as `"100ms"`), is called at every
/// multiple of `interval` of simulated time with the figures of the interval that ends there,
/// as JSON text (`celltcp_outputs::intervals`); returning `False` ends the run there as
/// `progress` does, an exception ends it with that exception.
#[pyfunction]
#[pyo3(signature = (scenario, overrides = Vec::new(), seed = None, run = 0, capture_dir = None, capture_links = Vec::new(), base_dir = None, keep_partial = false, progress = None, on_interval = None, interval = None))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    scenario: ScenarioInput<'_>,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
    run: u64,
    capture_dir: Option<PathBuf>,
    capture_links: Vec<String>,
    base_dir: Option<PathBuf>,
    keep_partial: bool,
    progress: Option<PyObject>,
    on_interval: Option<PyObject>,
    interval: Option<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let input = scenario.into_owned();
    let interval = match (&on_interval, interval.as_deref()) {
        (None, _) => None,
        (Some(_), None) => {
            return Err(to_py_err(RunError::Scenario(
                celltcp_scenario::ScenarioError::new(
                    "interval",
                    "on_interval needs an interval, e.g. '100ms'",
                ),
            )))
        }
        (Some(_), Some(text)) => Some(celltcp_scenario::units::parse_time(text).map_err(|e| {
            to_py_err(RunError::Scenario(celltcp_scenario::ScenarioError::new(
                "interval",
                e.to_string(),
            )))
        })?),
    };
    // The exception `on_interval` raised, passed on as is.
    let mut raised_by_watch: Option<PyErr> = None;
    let mut on_figures = |figures: serde_json::Value| -> bool {
        let Some(callback) = &on_interval else {
            return true;
        };
        Python::with_gil(|py| match callback.call1(py, (figures.to_string(),)) {
            // Only an explicit False stops: None (no return value) goes on.
            Ok(answer) => !matches!(answer.extract::<bool>(py), Ok(false)),
            Err(e) => {
                raised_by_watch = Some(e);
                false
            }
        })
    };
    let opts = RunOptions {
        seed,
        run,
        capture_dir,
        capture_links,
    };
    // The exception a signal handler raised (KeyboardInterrupt for Ctrl-C), passed on as is.
    let mut raised: Option<PyErr> = None;
    let poll = |at: RunProgress| {
        Python::with_gil(|py| match py.check_signals() {
            Ok(()) => match &progress {
                None => Poll::Continue,
                Some(callback) => {
                    let args = (at.simulated.as_secs_f64(), at.end.as_secs_f64(), at.events);
                    match callback.call1(py, args) {
                        // Only an explicit False stops: None (no return value) goes on.
                        Ok(answer) => match answer.extract::<bool>(py) {
                            Ok(false) => Poll::Stop(RunStopReason::Stopped),
                            _ => Poll::Continue,
                        },
                        Err(e) => {
                            raised = Some(e);
                            Poll::Abort
                        }
                    }
                }
            },
            Err(e) => {
                // Only Ctrl-C keeps what was simulated; any other exception a handler raised
                // (e.g. SystemExit from a SIGTERM handler) ends the run with that exception.
                let keep = keep_partial && e.is_instance_of::<PyKeyboardInterrupt>(py);
                raised = Some(e);
                if keep {
                    Poll::Stop(RunStopReason::Interrupted)
                } else {
                    Poll::Abort
                }
            }
        })
    };
    // Loading and running both happen without the GIL and inside one panic guard: a panic in
    // either is a bug and surfaces as SimulationError rather than aborting the interpreter.
    let outcome = py.allow_threads(|| {
        catch_unwind(AssertUnwindSafe(|| -> Result<RunOutput, RunError> {
            let scenario = input
                .load(&overrides, base_dir.as_deref())
                .map_err(RunError::Scenario)?;
            let watch = interval.map(|interval| celltcp_scenario::Watch {
                interval,
                on_interval: &mut on_figures,
            });
            celltcp_scenario::run_interruptible_watched(&scenario, &opts, poll, watch)
        }))
    });
    if let Some(e) = raised_by_watch {
        return Err(e);
    }
    let output = match outcome.map_err(panic_to_py_err)? {
        Ok(output) => output,
        Err(RunError::Interrupted) => {
            return Err(raised.unwrap_or_else(|| to_py_err(RunError::Interrupted)))
        }
        Err(e) => return Err(to_py_err(e)),
    };
    series::run_output_to_py(py, &output)
}

/// A value written with a unit (`"20Mbps"`, `"50ms"`, `"200kB"`) as `(kind, SI base unit, value)`,
/// or None when the text is not a quantity of any kind: the scenario format's own unit parser
/// (`celltcp_scenario::units`), so that Python never restates its units.
#[pyfunction]
fn quantity(text: &str) -> Option<(&'static str, &'static str, f64)> {
    celltcp_scenario::units::parse_quantity(text).map(|q| (q.kind, q.unit, q.value))
}

/// N_RB of an LTE channel bandwidth in MHz (TS 36.101 Table 5.6-1), or None for a bandwidth
/// the table does not have: the radio model's own table.
#[pyfunction]
fn lte_prbs(bandwidth_mhz: f64) -> Option<u32> {
    celltcp_radio::phy::amc::prbs_for_bandwidth(bandwidth_mhz).ok()
}

/// A quantity of `kind` (rate, time, size, packets, speed, length) in its SI base unit —
/// `quantity_of("rate", "20Mbps") == 2e7` — parsed as a scenario key of that kind is; raises
/// ValueError with that key's message (units listed, an example) when `text` is not one.
#[pyfunction]
fn quantity_of(kind: &str, text: &str) -> PyResult<f64> {
    match celltcp_scenario::units::parse_quantity_of(kind, text) {
        Some(parsed) => parsed.map_err(|e| PyValueError::new_err(e.to_string())),
        None => Err(PyValueError::new_err(format!(
            "unknown kind of quantity {kind:?}; one of {}",
            celltcp_scenario::units::QUANTITY_KINDS.join(", ")
        ))),
    }
}

/// `(key, message)` bounded as the core bounds its own scenario errors (every echoed value cut
/// to 80 characters, control characters escaped, the whole kept short), so that the errors the
/// Python layer raises read the same.
#[pyfunction]
fn bound_error(key: &str, message: &str) -> (String, String) {
    let e = celltcp_scenario::ScenarioError::new(key, message);
    (e.key, e.message)
}

/// Events per wall-clock second of the event queue under the hold model with `pending` events.
#[pyfunction]
#[pyo3(signature = (pending, ops, seed = 1))]
fn bench_event_queue(py: Python<'_>, pending: u64, ops: u64, seed: u64) -> PyResult<f64> {
    py.allow_threads(|| bench::hold_model(pending, ops, seed))
        .map_err(PyValueError::new_err)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // Benchmarks warn when they measure an unoptimised build.
    m.add("DEBUG_BUILD", cfg!(debug_assertions))?;
    // The digest of the sources this module was compiled from (build.rs): results stores
    // record it with each run and never reuse a run another build made.
    m.add("BUILD_ID", env!("CELLTCP_BUILD_ID"))?;
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add("RealTimeError", py.get_type::<errors::RealTimeError>())?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(output_schema, m)?)?;
    m.add_function(wrap_pyfunction!(output_labels, m)?)?;
    m.add_function(wrap_pyfunction!(quantity_of, m)?)?;
    m.add_function(wrap_pyfunction!(lte_prbs, m)?)?;
    models::register(m)?;
    document::register(m)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(bound_error, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(emulate::emulate, m)?)?;
    m.add_function(wrap_pyfunction!(bench_event_queue, m)?)?;
    m.add_function(wrap_pyfunction!(quantity, m)?)?;
    Ok(())
}
