//! `celltcp._core.Document`: the scenario document (`celltcp_scenario::document`) that Python's
//! `Scenario` wraps, and the conversions between Python values and TOML values.
//!
//! Python → TOML takes what `tomllib` gives and nothing else: `str`, `bool`, `int` (64-bit),
//! `float`, `datetime`/`date`/`time`, mappings with `str` keys, lists and tuples, at most
//! `MAX_DEPTH` levels deep. TOML → Python gives what `tomllib` gives (dicts, lists, and
//! `datetime` values with `timezone.utc` for `Z`). Errors name the dotted key of the innermost
//! value, as a `ScenarioError`.

use std::path::{Path, PathBuf};

use celltcp_scenario::document::{self, ReadError, MAX_DEPTH};
use celltcp_scenario::{Document, DottedKey, Scenario, ScenarioError as RustScenarioError};
use pyo3::exceptions::{PyIsADirectoryError, PyOSError};
use pyo3::prelude::*;
use pyo3::types::{
    IntoPyDict, PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple, PyType,
};
use toml::value::{Datetime, Offset};
use toml::{Table, Value};

use crate::errors::scenario_to_py_err;

fn scenario_err(key: &str, message: impl Into<String>) -> PyErr {
    scenario_to_py_err(RustScenarioError::new(key, message))
}

/// A parsed scenario (or sweep) file: its TOML tree, edited by dotted key.
#[pyclass(name = "Document", module = "celltcp._core", eq)]
#[derive(Clone, PartialEq)]
pub struct PyDocument {
    pub(crate) inner: Document,
}

#[pymethods]
impl PyDocument {
    /// A document of the tables `data` (a mapping; empty when None).
    #[new]
    #[pyo3(signature = (data = None))]
    fn new(data: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let Some(data) = data else {
            return Ok(PyDocument {
                inner: Document::default(),
            });
        };
        if !is_mapping(data)? {
            return Err(scenario_err(
                "",
                format!("a scenario is a table, not a {}", type_name(data)?),
            ));
        }
        let Value::Table(root) = to_toml(data, "", 0)? else {
            unreachable!("a mapping converts to a table")
        };
        Ok(PyDocument {
            inner: Document::from_table(root).map_err(scenario_to_py_err)?,
        })
    }

    /// Parses TOML text; errors about the text as a whole are keyed `name`.
    #[staticmethod]
    fn parse(text: &str, name: &str) -> PyResult<Self> {
        Document::parse(text, name)
            .map(|inner| PyDocument { inner })
            .map_err(scenario_to_py_err)
    }

    /// Reads the regular file at `path`; a missing or unreadable file raises OSError (a
    /// directory IsADirectoryError), any other refusal a ScenarioError keyed by the path.
    #[staticmethod]
    fn read(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let read = py.allow_threads(|| Document::read(&path));
        let name = path.display().to_string();
        match read {
            Ok(inner) => Ok(PyDocument { inner }),
            Err(ReadError::Refused(e)) => Err(scenario_to_py_err(e)),
            Err(ReadError::Directory) => {
                let errno: i32 = py.import("errno")?.getattr("EISDIR")?.extract()?;
                Err(PyIsADirectoryError::new_err((
                    errno,
                    "Is a directory",
                    name,
                )))
            }
            Err(ReadError::Io(e)) => Err(os_error(py, &e, name)?),
        }
    }

    /// The value at the dotted key `path`, as a Python value (tables are new dicts). A missing
    /// key returns `default` when given, else raises ScenarioError naming the key.
    #[pyo3(signature = (path, *default))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        path: &Bound<'py, PyAny>,
        default: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let text = key_text(path)?;
        let key = DottedKey::parse(&text).map_err(scenario_to_py_err)?;
        match self.inner.get(&key) {
            Ok(value) => to_py(py, value),
            Err(e) => match default.len() {
                0 => Err(scenario_to_py_err(e)),
                _ => default.get_item(0),
            },
        }
    }

    /// Stores the Python value `value` at the dotted key `path`, as `--set` stores a value.
    fn set(&mut self, path: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let text = key_text(path)?;
        let key = DottedKey::parse(&text).map_err(scenario_to_py_err)?;
        let value = to_toml(value, &text, key.parts().len())?;
        self.inner.set(&key, value).map_err(scenario_to_py_err)
    }

    /// The document as TOML text.
    fn to_toml(&self) -> String {
        self.inner.to_toml()
    }

    /// The tables as nested dicts.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        table_to_py(py, self.inner.root())
    }

    /// An independent copy.
    fn copy(&self) -> Self {
        self.clone()
    }
}

/// What `validate` and `run` take: a document, or TOML text (a sweep's resolved scenario).
#[derive(FromPyObject)]
pub enum ScenarioInput<'py> {
    Document(PyRef<'py, PyDocument>),
    Text(String),
}

impl ScenarioInput<'_> {
    /// The input, owned, for use without the GIL.
    pub fn into_owned(self) -> OwnedInput {
        match self {
            ScenarioInput::Document(d) => OwnedInput::Document(d.inner.clone()),
            ScenarioInput::Text(t) => OwnedInput::Text(t),
        }
    }
}

/// [`ScenarioInput`] without its borrow of the Python object.
pub enum OwnedInput {
    Document(Document),
    Text(String),
}

impl OwnedInput {
    /// The typed scenario with `overrides` applied; relative file references resolve against
    /// `base_dir` (the scenario file's directory), or the current directory without one.
    pub fn load(
        &self,
        overrides: &[(String, String)],
        base_dir: Option<&Path>,
    ) -> Result<Scenario, RustScenarioError> {
        let base_dir = base_dir.unwrap_or(Path::new(""));
        match self {
            OwnedInput::Document(d) => d.load(overrides, base_dir),
            OwnedInput::Text(t) => {
                Document::parse(t, RustScenarioError::FILE_KEY)?.load(overrides, base_dir)
            }
        }
    }
}

/// `value` as inline TOML, the text `--set key=VALUE` reads back as that value (`{ kind =
/// "codel" }` for a dict); `key` names the value in errors (a value TOML cannot hold).
#[pyfunction]
#[pyo3(signature = (value, key = ""))]
pub fn toml_value(value: &Bound<'_, PyAny>, key: &str) -> PyResult<String> {
    let level = if key.is_empty() {
        0
    } else {
        key.split('.').count()
    };
    Ok(document::inline(&to_toml(value, key, level)?))
}

fn key_text(path: &Bound<'_, PyAny>) -> PyResult<String> {
    match path.downcast::<PyString>() {
        Ok(s) => Ok(s.to_str()?.to_owned()),
        Err(_) => Err(scenario_err(
            &path.str()?.to_string_lossy(),
            "is not a dotted key; use e.g. 'links.access.rate' (a string)",
        )),
    }
}

/// OSError(errno, strerror, filename): Python picks the subclass (FileNotFoundError, …).
fn os_error(py: Python<'_>, e: &std::io::Error, name: String) -> PyResult<PyErr> {
    Ok(match e.raw_os_error() {
        Some(errno) => {
            let strerror: String = py
                .import("os")?
                .call_method1("strerror", (errno,))?
                .extract()?;
            PyOSError::new_err((errno, strerror, name))
        }
        None => PyOSError::new_err((0, e.to_string(), name)),
    })
}

fn type_name(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(obj.get_type().name()?.to_string())
}

fn is_mapping(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(obj.is_instance_of::<PyDict>() || obj.downcast::<PyMapping>().is_ok())
}

/// `obj` as a TOML value. `key` names it in errors; `level` is the level it sits at (a value
/// of the root table is at level 1): a table or array at level `MAX_DEPTH` or deeper is
/// refused, so the conversion recurses at most that deep whatever `obj` holds (a list that
/// contains itself included).
pub fn to_toml(obj: &Bound<'_, PyAny>, key: &str, level: usize) -> PyResult<Value> {
    if let Ok(s) = obj.downcast::<PyString>() {
        let text = s.to_str().map_err(|_| {
            scenario_err(key, "a string that is not Unicode text (a lone surrogate) cannot be stored in a scenario")
        })?;
        return Ok(Value::String(text.to_owned()));
    }
    if let Ok(b) = obj.downcast::<PyBool>() {
        return Ok(Value::Boolean(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        return match obj.extract::<i64>() {
            Ok(i) => Ok(Value::Integer(i)),
            Err(_) => {
                let bits: u64 = obj.call_method0("bit_length")?.extract()?;
                // Not str(obj): Python refuses to write an int of more than 4300 digits.
                let shown = if bits <= 128 {
                    obj.str()?.to_string_lossy().into_owned()
                } else {
                    format!("an integer of {bits} bits")
                };
                Err(scenario_err(
                    key,
                    format!(
                        "{shown} is out of range; integers fit in 64 bits, from -2^63 to 2^63-1"
                    ),
                ))
            }
        };
    }
    if let Ok(f) = obj.downcast::<PyFloat>() {
        return Ok(Value::Float(f.value()));
    }
    let list = obj.downcast::<PyList>().ok();
    let tuple = obj.downcast::<PyTuple>().ok();
    let mapping = is_mapping(obj)?;
    if list.is_some() || tuple.is_some() || mapping {
        if level >= MAX_DEPTH {
            return Err(scenario_to_py_err(document::too_deep(key)));
        }
        let child = |i: usize| format!("{key}[{i}]");
        if let Some(list) = list {
            let items = list
                .iter()
                .enumerate()
                .map(|(i, v)| to_toml(&v, &child(i), level + 1));
            return Ok(Value::Array(items.collect::<PyResult<_>>()?));
        }
        if let Some(tuple) = tuple {
            let items = tuple
                .iter()
                .enumerate()
                .map(|(i, v)| to_toml(&v, &child(i), level + 1));
            return Ok(Value::Array(items.collect::<PyResult<_>>()?));
        }
        let items = match obj.downcast::<PyDict>() {
            Ok(dict) => dict.items(),
            Err(_) => obj.downcast::<PyMapping>()?.items()?,
        };
        let mut table = Table::new();
        for item in items.iter() {
            let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
            let Ok(k) = k.downcast::<PyString>() else {
                return Err(scenario_err(
                    key,
                    format!("table keys must be strings, not {}", type_name(&k)?),
                ));
            };
            let k = k.to_str()?;
            let at = if key.is_empty() {
                k.to_owned()
            } else {
                format!("{key}.{k}")
            };
            table.insert(k.to_owned(), to_toml(&v, &at, level + 1)?);
        }
        return Ok(Value::Table(table));
    }
    let datetime = obj.py().import("datetime")?;
    // datetime before date: a datetime is a date too.
    for class in ["datetime", "date", "time"] {
        let class = datetime.getattr(class)?;
        if obj.is_instance(class.downcast::<PyType>()?)? {
            let iso: String = obj.call_method0("isoformat")?.extract()?;
            return iso.parse::<Datetime>().map(Value::Datetime).map_err(|_| {
                scenario_err(
                    key,
                    format!(
                        "the {} {iso} has no TOML form (a time with a time zone)",
                        type_name(obj).unwrap_or_default()
                    ),
                )
            });
        }
    }
    Err(scenario_err(
        key,
        format!("a {} cannot be stored in a scenario", type_name(obj)?),
    ))
}

/// A TOML value as the Python value `tomllib` gives for it.
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Integer(i) => i.into_pyobject(py)?.into_any(),
        Value::Float(f) => PyFloat::new(py, *f).into_any(),
        Value::Boolean(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Datetime(d) => datetime_to_py(py, d)?,
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Table(t) => table_to_py(py, t)?.into_any(),
    })
}

fn table_to_py<'py>(py: Python<'py>, table: &Table) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (k, v) in table {
        dict.set_item(k, to_py(py, v)?)?;
    }
    Ok(dict)
}

/// TOML 1.0 "Offset Date-Time", "Local Date-Time", "Local Date", "Local Time" as `datetime`,
/// `date` and `time` (microseconds: Python's resolution).
fn datetime_to_py<'py>(py: Python<'py>, d: &Datetime) -> PyResult<Bound<'py, PyAny>> {
    let module = py.import("datetime")?;
    let tzinfo = match d.offset {
        None => py.None().into_bound(py),
        Some(Offset::Z) => module.getattr("timezone")?.getattr("utc")?,
        Some(Offset::Custom { minutes }) => {
            let delta = module
                .getattr("timedelta")?
                .call((), Some(&[("minutes", minutes)].into_py_dict(py)?))?;
            module.getattr("timezone")?.call1((delta,))?
        }
    };
    match (d.date, d.time) {
        (Some(date), Some(time)) => module.getattr("datetime")?.call(
            (
                date.year,
                date.month,
                date.day,
                time.hour,
                time.minute,
                time.second,
                time.nanosecond / 1000,
            ),
            Some(&[("tzinfo", tzinfo)].into_py_dict(py)?),
        ),
        (Some(date), None) => module
            .getattr("date")?
            .call1((date.year, date.month, date.day)),
        (None, Some(time)) => module.getattr("time")?.call1((
            time.hour,
            time.minute,
            time.second,
            time.nanosecond / 1000,
        )),
        (None, None) => unreachable!("a TOML date-time has a date or a time"),
    }
}

/// Used by `lib.rs` to register the class and functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDocument>()?;
    m.add_function(wrap_pyfunction!(toml_value, m)?)?;
    // The deepest nesting of tables and arrays a document may have.
    m.add("MAX_DEPTH", MAX_DEPTH)?;
    Ok(())
}
