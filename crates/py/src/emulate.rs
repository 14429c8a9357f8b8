//! `_core.emulate`: a scenario run in real time with hosts attached to TUN devices
//! (crate `celltcp-emu`). Arguments are checked here only for their Python types; their values
//! are validated by the Rust crates, which name the offending key.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use celltcp_emu::{seconds, Attachment, CapturePoints, EmuError, EmulateOptions, Priority};
use celltcp_scenario::ScenarioError as RustScenarioError;
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;

use crate::document::PyDocument;
use crate::errors::{panic_to_py_err, scenario_to_py_err, to_py_err, RealTimeError};
use crate::series::run_output_to_py;

/// An override as `(key, value)` or as `"key=value"`.
#[derive(FromPyObject)]
pub enum Override {
    Pair((String, String)),
    Text(String),
}

fn input(key: &str, message: impl Into<String>) -> PyErr {
    scenario_to_py_err(RustScenarioError::new(key, message))
}

fn overrides(list: Vec<Override>) -> PyResult<Vec<(String, String)>> {
    list.into_iter()
        .map(|o| match o {
            Override::Pair(p) => Ok(p),
            Override::Text(t) => match t.split_once('=') {
                Some((k, v)) if !k.trim().is_empty() => {
                    Ok((k.trim().to_string(), v.trim().to_string()))
                }
                _ => Err(input(
                    "overrides",
                    format!("'{t}' is not KEY=VALUE, e.g. links.access.rate=10Mbps"),
                )),
            },
        })
        .collect()
}

const OPTION_KEYS: &str = "duration, pcap, pcap_points, max_lag, seed, run, base_dir, priority";

/// Reads `options` (see the `.pyi` entry); unknown keys and ill-typed values are
/// ScenarioErrors of key `options.<name>`.
fn options(dict: Option<&Bound<'_, PyDict>>) -> PyResult<EmulateOptions> {
    let mut o = EmulateOptions::default();
    let Some(dict) = dict else { return Ok(o) };
    for (k, v) in dict.iter() {
        let name: String = k
            .extract()
            .map_err(|_| input("options", "option names are strings"))?;
        let key = format!("options.{name}");
        let typed = |what: &str| input(&key, format!("expected {what}, not {}", type_name(&v)));
        if v.is_none() {
            match name.as_str() {
                "duration" | "pcap" | "max_lag" | "seed" | "base_dir" | "priority" => continue,
                _ => {}
            }
        }
        match name.as_str() {
            "duration" | "max_lag" => {
                let secs: f64 = v
                    .extract()
                    .map_err(|_| typed("a number of seconds or None"))?;
                let d = seconds(&key, secs).map_err(scenario_to_py_err)?;
                if name == "duration" {
                    o.duration = Some(d);
                } else {
                    o.max_lag = d;
                }
            }
            "pcap" => {
                o.pcap = Some(
                    v.extract::<PathBuf>()
                        .map_err(|_| typed("a path or None"))?,
                )
            }
            "base_dir" => {
                o.base_dir = Some(
                    v.extract::<PathBuf>()
                        .map_err(|_| typed("a path or None"))?,
                )
            }
            "pcap_points" => {
                let text: String = v.extract().map_err(|_| typed("a string"))?;
                o.pcap_points = CapturePoints::parse(&text).ok_or_else(|| {
                    input(
                        &key,
                        format!("'{text}' is not one of both, ingress, egress"),
                    )
                })?;
            }
            "seed" => o.seed = Some(v.extract().map_err(|_| typed("a non-negative integer"))?),
            "run" => o.run = v.extract().map_err(|_| typed("a non-negative integer"))?,
            "priority" => {
                let what = "\"auto\", 0 (the thread's own scheduling) or 1 to 99 (SCHED_FIFO)";
                o.priority = match v.extract::<String>() {
                    Ok(text) if text == "auto" => Priority::Auto,
                    Ok(text) => return Err(input(&key, format!("'{text}' is not {what}"))),
                    Err(_) => match v.extract::<u8>().map_err(|_| typed(what))? {
                        0 => Priority::Inherit,
                        p => Priority::Fifo(p),
                    },
                };
            }
            _ => {
                return Err(input(
                    &key,
                    format!("unknown option; expected one of {OPTION_KEYS}"),
                ))
            }
        }
    }
    Ok(o)
}

fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// The one mapping of emulation errors to Python exceptions: bad input is `ScenarioError`, a
/// run that cannot keep up or fails inside is `SimulationError`, descriptor and capture
/// failures are `OSError` naming the host or the file.
fn emu_to_py_err(e: EmuError) -> PyErr {
    let os = |source: &std::io::Error, filename: String| {
        let errno = source.raw_os_error().unwrap_or(0);
        let text = source.to_string();
        let strerror = text
            .trim_end_matches(&format!(" (os error {errno})"))
            .to_string();
        PyOSError::new_err((errno, strerror, filename))
    };
    match e {
        EmuError::Input(s) => scenario_to_py_err(s),
        EmuError::Run(r) => to_py_err(r),
        e @ EmuError::TooSlow { .. } => RealTimeError::new_err(e.to_string()),
        EmuError::Device {
            host,
            fd,
            op,
            source,
        } => os(&source, format!("{op} on attached host '{host}' (fd {fd})")),
        EmuError::Poll(source) => os(&source, "poll".into()),
        EmuError::Priority { priority, source } => {
            os(&source, format!("SCHED_FIFO priority {priority}"))
        }
        EmuError::Capture { path, source } => os(&source, path.display().to_string()),
    }
}

/// A JSON value as Python objects (dict, list, str, int, float, bool, None).
fn json_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_pyobject(py)?.into_any(),
            (None, Some(i)) => i.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, item) in map {
                dict.set_item(k, json_to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

/// Runs a scenario in real time with the GIL released, hosts attached to TUN descriptors.
///
/// `attachments` are `(host, fd)`; `stop_fd` is the read end of a pipe whose readability ends
/// the run cleanly (-1: none); `options` holds `duration`, `pcap`, `pcap_points`, `max_lag`,
/// `seed`, `run`, `base_dir`, `priority`. Returns the dict of `run` plus `"emulation"`.
#[pyfunction]
#[pyo3(signature = (scenario, overrides = Vec::new(), attachments = Vec::new(), stop_fd = -1, options = None))]
pub fn emulate<'py>(
    py: Python<'py>,
    scenario: PyRef<'py, PyDocument>,
    overrides: Vec<Override>,
    attachments: Vec<(String, i32)>,
    stop_fd: i32,
    options: Option<Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let overrides = self::overrides(overrides)?;
    let opts = self::options(options.as_ref())?;
    let attachments: Vec<Attachment> = attachments
        .into_iter()
        .map(|(host, fd)| Attachment { host, fd })
        .collect();
    let stop_fd = (stop_fd != -1).then_some(stop_fd);
    let document = scenario.inner.clone();
    drop(scenario);
    let outcome = py.allow_threads(|| {
        catch_unwind(AssertUnwindSafe(|| {
            celltcp_emu::emulate(&document, &overrides, &attachments, stop_fd, &opts)
        }))
    });
    let output = outcome.map_err(panic_to_py_err)?.map_err(emu_to_py_err)?;
    let result = run_output_to_py(py, &output.run)?;
    result.set_item("emulation", json_to_py(py, &output.emulation)?)?;
    Ok(result)
}
