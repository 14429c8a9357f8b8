//! The analytic TCP models of `celltcp_tcp::models`, for `celltcp.models` (which checks the
//! arguments and words the errors; these take them as given).

use celltcp_tcp::models;
use pyo3::prelude::*;

#[pyfunction]
fn mathis_throughput_bps(mss_bytes: f64, rtt_s: f64, p: f64, c: f64) -> f64 {
    models::mathis_throughput_bps(mss_bytes, rtt_s, p, c)
}

#[pyfunction]
fn pftk_backoff_factor(p: f64) -> f64 {
    models::pftk_backoff_factor(p)
}

#[pyfunction]
fn pftk_timeout_probability(p: f64, window_segments: f64) -> f64 {
    models::pftk_timeout_probability(p, window_segments)
}

#[pyfunction]
fn pftk_expected_window_segments(p: f64, b: f64) -> f64 {
    models::pftk_expected_window_segments(p, b)
}

#[pyfunction]
#[pyo3(signature = (mss_bytes, rtt_s, p, t0_s, b, w_max_segments=None))]
fn pftk_throughput_bps(
    mss_bytes: f64,
    rtt_s: f64,
    p: f64,
    t0_s: f64,
    b: f64,
    w_max_segments: Option<f64>,
) -> f64 {
    models::pftk_throughput_bps(mss_bytes, rtt_s, p, t0_s, b, w_max_segments)
}

#[pyfunction]
#[pyo3(signature = (mss_bytes, rtt_s, p, t0_s, b, w_max_segments=None))]
fn pftk_approx_throughput_bps(
    mss_bytes: f64,
    rtt_s: f64,
    p: f64,
    t0_s: f64,
    b: f64,
    w_max_segments: Option<f64>,
) -> f64 {
    models::pftk_approx_throughput_bps(mss_bytes, rtt_s, p, t0_s, b, w_max_segments)
}

#[pyfunction]
fn slow_start_rounds(target_window: f64, initial_window: f64, growth: f64) -> f64 {
    models::slow_start_rounds(target_window, initial_window, growth)
}

/// Adds the models to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(mathis_throughput_bps, m)?)?;
    m.add_function(wrap_pyfunction!(pftk_backoff_factor, m)?)?;
    m.add_function(wrap_pyfunction!(pftk_timeout_probability, m)?)?;
    m.add_function(wrap_pyfunction!(pftk_expected_window_segments, m)?)?;
    m.add_function(wrap_pyfunction!(pftk_throughput_bps, m)?)?;
    m.add_function(wrap_pyfunction!(pftk_approx_throughput_bps, m)?)?;
    m.add_function(wrap_pyfunction!(slow_start_rounds, m)?)?;
    Ok(())
}
