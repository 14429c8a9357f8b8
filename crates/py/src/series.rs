//! Conversion of a run's columnar output into Python objects without per-element objects.
//!
//! Each column becomes `(dtype, payload)`: dtype `"f64"`, `"u64"` or `"u32"` with the values as
//! little-endian bytes (read with `numpy.frombuffer(payload, "<f8" | "<u8" | "<u4")`), `"bool"`
//! with one byte per value, 0 or 1 (`numpy.frombuffer(payload, "?")`), or `"cat"` with payload
//! `(codes, names)` where `codes` are little-endian u32 indices into `names`.

use celltcp_scenario::{Column, RunOutput, Series};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

/// Copies fixed-width values into a new `bytes` object in little-endian order.
fn le_bytes<'py, T: Copy, const W: usize>(
    py: Python<'py>,
    values: &[T],
    to_le: fn(T) -> [u8; W],
) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, values.len() * W, |buf| {
        for (chunk, &v) in buf.chunks_exact_mut(W).zip(values) {
            chunk.copy_from_slice(&to_le(v));
        }
        Ok(())
    })
}

fn column_to_py<'py>(py: Python<'py>, column: &Column) -> PyResult<Bound<'py, PyAny>> {
    let pair = match column {
        Column::F64(v) => {
            ("f64", le_bytes(py, v, f64::to_le_bytes)?.into_any()).into_pyobject(py)?
        }
        Column::U64(v) => {
            ("u64", le_bytes(py, v, u64::to_le_bytes)?.into_any()).into_pyobject(py)?
        }
        Column::U32(v) => {
            ("u32", le_bytes(py, v, u32::to_le_bytes)?.into_any()).into_pyobject(py)?
        }
        Column::Bool(v) => {
            ("bool", le_bytes(py, v, |b: bool| [u8::from(b)])?.into_any()).into_pyobject(py)?
        }
        Column::Cat { codes, names } => {
            let codes = le_bytes(py, codes, u32::to_le_bytes)?;
            let names = PyList::new(py, names)?;
            ("cat", (codes, names).into_pyobject(py)?.into_any()).into_pyobject(py)?
        }
    };
    Ok(pair.into_any())
}

fn series_to_py<'py>(py: Python<'py>, series: &Series) -> PyResult<Bound<'py, PyDict>> {
    let columns = PyDict::new(py);
    for (name, column) in &series.columns {
        columns.set_item(name, column_to_py(py, column)?)?;
    }
    Ok(columns)
}

/// `{"summary": <JSON text>, "events": int, "series": {name: {column: (dtype, payload)}}}`.
pub fn run_output_to_py<'py>(py: Python<'py>, out: &RunOutput) -> PyResult<Bound<'py, PyDict>> {
    let result = PyDict::new(py);
    // serde_json's default map is ordered by key, so this text is byte-identical across runs.
    let summary = serde_json::to_string(&out.summary).map_err(|e| {
        crate::errors::to_py_err(celltcp_scenario::RunError::Internal(format!(
            "summary is not serialisable: {e}"
        )))
    })?;
    result.set_item("summary", summary)?;
    result.set_item("events", out.events)?;
    let series = PyDict::new(py);
    for s in &out.series {
        series.set_item(&s.name, series_to_py(py, s)?)?;
    }
    result.set_item("series", series)?;
    Ok(result)
}
