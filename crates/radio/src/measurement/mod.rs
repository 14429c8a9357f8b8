//! UE measurements and the RRC procedures that act on them (TS 36.331 §5.5, §5.3.10):
//!
//! * [`l3_filter`]: the layer-3 filter every RSRP sample goes through (§5.5.3.2).
//! * [`event_a3`]: Event A3, "neighbour becomes offset better than serving" (§5.5.4.4), with
//!   hysteresis and time-to-trigger (§5.5.4.1), the usual handover trigger.
//! * [`radio_link`]: radio link monitoring with N310/N311/T310 (§5.3.10.x, TS 36.133 §7.6)
//!   declaring radio link failure.
//! * [`measurement_error_db`]: the layer-1 measurement error.
//!
//! Sans-IO: callers pass `now` ([`SimTime`](celltcp_engine::SimTime), ns) and measured values
//! (RSRP in dBm, SINR in dB); nothing reads a clock, and randomness comes only from the
//! [`RngStream`] handed in.

pub mod event_a3;
pub mod l3_filter;
pub mod radio_link;

pub use event_a3::{A3Config, A3Monitor, TIME_TO_TRIGGER_MS};
pub use l3_filter::{L3Filter, L3_FILTER_SAMPLE_PERIOD};
pub use radio_link::{RlfConfig, RlfMonitor};

use celltcp_engine::RngStream;

/// Bad measurement parameter. The message names the key, the value (with its unit) and the
/// expected form, e.g. `time_to_trigger: 250 ms is not allowed; expected one of …`.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MeasurementError {
    #[error("{key}: {value} is not allowed; expected {expected}")]
    Invalid {
        key: &'static str,
        value: String,
        expected: String,
    },
}

impl MeasurementError {
    pub(crate) fn invalid(
        key: &'static str,
        value: impl Into<String>,
        expected: impl Into<String>,
    ) -> Self {
        MeasurementError::Invalid {
            key,
            value: value.into(),
            expected: expected.into(),
        }
    }
}

/// A number rounded to three decimals for messages.
pub(crate) fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{}", (x * 1000.0).round() / 1000.0)
    } else {
        format!("{x}")
    }
}

/// Accepts a finite value in `[lo, hi]`, in `unit`.
pub(crate) fn check_range(
    key: &'static str,
    value: f64,
    lo: f64,
    hi: f64,
    unit: &str,
    why: &str,
) -> Result<f64, MeasurementError> {
    if value.is_finite() && (lo..=hi).contains(&value) {
        Ok(value)
    } else {
        Err(MeasurementError::invalid(
            key,
            format!("{} {unit}", num(value)),
            format!("{} to {} {unit}{why}", num(lo), num(hi)),
        ))
    }
}

/// A layer-1 measurement error, dB: Gaussian with standard deviation `std_db` drawn from `rng`
/// (the engine's Box–Muller normal, two uniforms per call). `std_db` = 0 means exact
/// measurements and draws nothing; a negative or non-finite `std_db` is treated as 0 (reject
/// it at the configuration boundary with [`check_error_std_db`]).
pub fn measurement_error_db(std_db: f64, rng: &mut RngStream) -> f64 {
    if std_db.is_finite() && std_db > 0.0 {
        rng.normal(0.0, std_db)
    } else {
        0.0
    }
}

/// Accepts a measurement-error standard deviation: finite, in [0, 20] dB (TS 36.133 §9.1.2
/// bounds the absolute RSRP accuracy at ±6…±9 dB; 20 dB leaves room for studies).
pub fn check_error_std_db(std_db: f64) -> Result<f64, MeasurementError> {
    check_range("error_std_db", std_db, 0.0, 20.0, "dB", "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measurement_error_zero_draws_nothing() {
        let mut rng = RngStream::new(3, 0, "ran/ue/1/measurement");
        let untouched = rng.clone();
        assert_eq!(measurement_error_db(0.0, &mut rng), 0.0);
        assert_eq!(measurement_error_db(-1.0, &mut rng), 0.0);
        assert_eq!(measurement_error_db(f64::NAN, &mut rng), 0.0);
        assert_eq!(rng.next_u64(), untouched.clone().next_u64());
    }

    #[test]
    fn measurement_error_has_the_given_spread() {
        let mut rng = RngStream::new(3, 0, "ran/ue/1/measurement");
        let n = 100_000;
        let xs: Vec<f64> = (0..n)
            .map(|_| measurement_error_db(2.0, &mut rng))
            .collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let std = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
        assert!(mean.abs() < 0.03, "mean {mean}");
        assert!((std - 2.0).abs() < 0.03, "std {std}");
        // Deterministic per stream.
        let mut again = RngStream::new(3, 0, "ran/ue/1/measurement");
        assert_eq!(measurement_error_db(2.0, &mut again), xs[0]);
    }

    #[test]
    fn error_std_is_checked() {
        assert_eq!(check_error_std_db(1.5), Ok(1.5));
        assert_eq!(
            check_error_std_db(-1.0).unwrap_err().to_string(),
            "error_std_db: -1 dB is not allowed; expected 0 to 20 dB"
        );
    }
}
