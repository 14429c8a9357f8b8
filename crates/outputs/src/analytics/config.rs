//! Parameters of the handover analytics and the errors of bad inputs.

use thiserror::Error;

/// Parameters of [`analyse`](super::analyse).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnalyticsConfig {
    /// How many smoothed RTTs (measured before the handover) the observation window extends past
    /// the end of the procedure, so that a retransmission timer armed during the interruption
    /// and firing shortly after it is attributed to the handover. Dimensionless, ≥ 0.
    pub k_rtt: f64,
    /// Fraction of the pre-handover goodput that counts as recovered. Dimensionless, in (0, 1].
    pub recovery_fraction: f64,
}

impl Default for AnalyticsConfig {
    fn default() -> Self {
        AnalyticsConfig {
            k_rtt: 2.0,
            recovery_fraction: 0.9,
        }
    }
}

impl AnalyticsConfig {
    /// Checks the fields; the error names the offending key.
    pub fn validate(&self) -> Result<(), AnalyticsError> {
        if !(self.k_rtt.is_finite() && self.k_rtt >= 0.0) {
            return Err(AnalyticsError::Config {
                key: "k_rtt",
                value: self.k_rtt,
                expected: "a finite number of RTTs >= 0",
            });
        }
        if !(self.recovery_fraction > 0.0 && self.recovery_fraction <= 1.0) {
            return Err(AnalyticsError::Config {
                key: "recovery_fraction",
                value: self.recovery_fraction,
                expected: "a fraction in (0, 1]",
            });
        }
        Ok(())
    }
}

/// Why the analytics could not run.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum AnalyticsError {
    #[error("analytics.{key}: {value} is not valid; expected {expected}")]
    Config {
        key: &'static str,
        value: f64,
        expected: &'static str,
    },
    #[error(
        "trace columns differ in length (time_ns {time_ns}, flow {flow}, var {var}, value {value}); \
         expected one entry per row in each"
    )]
    ColumnLengths {
        time_ns: usize,
        flow: usize,
        var: usize,
        value: usize,
    },
}
