//! UE trajectories and eNB layouts.
//!
//! * [`model`]: the [`MobilityModel`] description (fixed, linear, waypoints, random waypoint)
//!   and its validation, done once when a scenario is built.
//! * [`trajectory`]: [`Mobility`], the runtime state of one UE, answering "where is the UE at
//!   `t`" and "how fast does it move at `t`".
//! * [`random_waypoint`]: the random waypoint legs, drawn lazily from the UE's own stream.
//! * [`layout`]: eNB positions on a line or on a hexagonal grid.
//!
//! Sans-IO: time is [`SimTime`](celltcp_engine::SimTime) (ns), positions are metres on the
//! ground plane ([`Position`]), speeds are m/s, and randomness comes only from the
//! [`RngStream`](celltcp_engine::RngStream) handed to [`Mobility::new`] (for example
//! `ran/ue/7/mobility`).

pub mod layout;
pub mod model;
pub mod random_waypoint;
pub mod trajectory;

#[cfg(test)]
mod tests;

pub use layout::{hex_layout, line_layout, MAX_LAYOUT_SITES};
pub use model::{MobilityModel, MAX_SPEED_MPS};
pub use trajectory::Mobility;

use crate::channel::Position;

/// Bad mobility or layout parameter. The message names the key, the value (with its unit) and
/// the expected form, e.g. `speed_mps.min: -0.833 m/s (-3 km/h) is not allowed; expected ≥ 0`.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MobilityError {
    #[error("{key}: {value} is not allowed; expected {expected}")]
    Invalid {
        key: String,
        value: String,
        expected: String,
    },
}

impl MobilityError {
    pub(crate) fn invalid(
        key: impl Into<String>,
        value: impl Into<String>,
        expected: impl Into<String>,
    ) -> Self {
        MobilityError::Invalid {
            key: key.into(),
            value: value.into(),
            expected: expected.into(),
        }
    }
}

/// A number rounded to three decimals for messages (`-3`, `33.333`, `NaN`).
pub(crate) fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{}", (x * 1000.0).round() / 1000.0)
    } else {
        format!("{x}")
    }
}

/// `(x, y)` in metres for messages.
pub(crate) fn fmt_position(p: Position) -> String {
    format!("({}, {}) m", num(p.x_m), num(p.y_m))
}

/// A speed in m/s with its km/h equivalent for messages, since unit slips between the two are
/// the likeliest configuration error.
pub(crate) fn fmt_speed(mps: f64) -> String {
    format!("{} m/s ({} km/h)", num(mps), num(mps * 3.6))
}

/// Accepts a position whose coordinates are both finite.
pub(crate) fn check_position(key: &str, p: Position) -> Result<Position, MobilityError> {
    if p.x_m.is_finite() && p.y_m.is_finite() {
        Ok(p)
    } else {
        Err(MobilityError::invalid(
            key,
            fmt_position(p),
            "finite coordinates in metres",
        ))
    }
}
