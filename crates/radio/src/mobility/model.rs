//! How a UE moves: the [`MobilityModel`] description and its validation.
//!
//! A model is plain data (it comes from a scenario file); [`MobilityModel::validate`] checks it
//! once at that boundary and [`Mobility::new`](super::Mobility::new) refuses an invalid one, so
//! the runtime never meets a NaN speed or a time going backwards.

use celltcp_engine::{SimDuration, SimTime};

use super::{check_position, fmt_position, fmt_speed, num, MobilityError};
use crate::channel::Position;

/// The highest accepted speed, m/s: 500 km/h. LTE's high-speed-train conditions assume up to
/// 350 km/h (TS 36.104 Annex B.3) and NR's up to 500 km/h; anything faster is far likelier a
/// unit slip (km/h given as m/s) than an intended experiment.
pub const MAX_SPEED_MPS: f64 = 500.0 / 3.6;

const SPEED_EXPECTED: &str = "≤ 138.889 m/s (500 km/h; a faster speed is likely a unit error)";

/// A UE's movement on the ground plane. Positions are metres, speeds m/s, times ns.
#[derive(Clone, Debug, PartialEq)]
pub enum MobilityModel {
    /// Stands still.
    Fixed { position: Position },
    /// Constant velocity from `start` at time `depart` (before it the UE stands at `start`).
    Linear {
        start: Position,
        /// (v_x, v_y), m/s.
        velocity_mps: (f64, f64),
        depart: SimTime,
    },
    /// Piecewise-linear path through (time, position) points, strictly increasing times;
    /// before the first point the UE stands at it, after the last it stays at the last.
    Waypoints { points: Vec<(SimTime, Position)> },
    /// Random waypoint (Johnson & Maltz 1996; Bettstetter, Hartenstein & Pérez-Costa 2004):
    /// pick a uniform destination in the rectangle, a uniform speed in [min, max] (min > 0),
    /// go there in a straight line, pause, repeat. Starts at `start` (inside `area`), moving
    /// from t = 0.
    RandomWaypoint {
        start: Position,
        /// Two opposite corners of the rectangle, metres.
        area: (Position, Position),
        /// (min, max), m/s; min > 0 because with min = 0 the average speed decays towards zero
        /// over the run (Yoon, Liu & Noble, "Random waypoint considered harmful", 2003).
        speed_mps: (f64, f64),
        /// Stay at each destination this long before the next leg.
        pause: SimDuration,
    },
}

impl MobilityModel {
    /// Checks every parameter: finite positions, speeds finite, ≥ 0 and ≤ [`MAX_SPEED_MPS`]
    /// (also the speed implied by consecutive waypoints), strictly increasing waypoint times,
    /// a rectangle with non-zero width and height that contains the random waypoint's start,
    /// 0 < min speed ≤ max speed.
    pub fn validate(&self) -> Result<(), MobilityError> {
        match self {
            MobilityModel::Fixed { position } => {
                check_position("position", *position)?;
            }
            MobilityModel::Linear {
                start,
                velocity_mps: (vx, vy),
                ..
            } => {
                check_position("start", *start)?;
                if !vx.is_finite() || !vy.is_finite() {
                    return Err(MobilityError::invalid(
                        "velocity_mps",
                        format!("({}, {}) m/s", num(*vx), num(*vy)),
                        "finite components in m/s",
                    ));
                }
                check_speed("velocity_mps", vx.hypot(*vy))?;
            }
            MobilityModel::Waypoints { points } => validate_waypoints(points)?,
            MobilityModel::RandomWaypoint {
                start,
                area,
                speed_mps: (min, max),
                ..
            } => {
                check_position("start", *start)?;
                let (lo, hi) = rectangle(*area)?;
                let inside = (lo.x_m..=hi.x_m).contains(&start.x_m)
                    && (lo.y_m..=hi.y_m).contains(&start.y_m);
                if !inside {
                    return Err(MobilityError::invalid(
                        "start",
                        fmt_position(*start),
                        format!(
                            "a point inside area [{}, {}]",
                            fmt_position(lo),
                            fmt_position(hi)
                        ),
                    ));
                }
                if !(min.is_finite() && *min > 0.0) {
                    return Err(MobilityError::invalid(
                        "speed_mps.min",
                        fmt_speed(*min),
                        "> 0 (a zero minimum speed makes the mean speed decay over time)",
                    ));
                }
                check_speed("speed_mps.max", *max)?;
                if max < min {
                    return Err(MobilityError::invalid(
                        "speed_mps.max",
                        fmt_speed(*max),
                        format!("≥ speed_mps.min ({})", fmt_speed(*min)),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Whether the UE can move at all: false for `Fixed`, a zero velocity, or waypoints that
    /// all lie at one place.
    pub fn is_mobile(&self) -> bool {
        match self {
            MobilityModel::Fixed { .. } => false,
            MobilityModel::Linear {
                velocity_mps: (vx, vy),
                ..
            } => *vx != 0.0 || *vy != 0.0,
            MobilityModel::Waypoints { points } => points.windows(2).any(|w| w[0].1 != w[1].1),
            MobilityModel::RandomWaypoint { .. } => true,
        }
    }

    /// The position at t = 0.
    pub fn initial_position(&self) -> Position {
        match self {
            MobilityModel::Fixed { position } => *position,
            MobilityModel::Linear { start, .. } | MobilityModel::RandomWaypoint { start, .. } => {
                *start
            }
            // Validation guarantees at least one point; the default only guards an unvalidated
            // model.
            MobilityModel::Waypoints { points } => {
                points.first().map(|&(_, p)| p).unwrap_or_default()
            }
        }
    }
}

/// Accepts a scalar speed that is finite, ≥ 0 and ≤ [`MAX_SPEED_MPS`].
pub(crate) fn check_speed(key: &str, mps: f64) -> Result<f64, MobilityError> {
    if !(mps.is_finite() && mps >= 0.0) {
        return Err(MobilityError::invalid(key, fmt_speed(mps), "≥ 0"));
    }
    if mps > MAX_SPEED_MPS {
        return Err(MobilityError::invalid(key, fmt_speed(mps), SPEED_EXPECTED));
    }
    Ok(mps)
}

/// The rectangle spanned by two opposite corners as (lower-left, upper-right); its width and
/// height must both be non-zero.
pub(crate) fn rectangle(
    (a, b): (Position, Position),
) -> Result<(Position, Position), MobilityError> {
    check_position("area", a)?;
    check_position("area", b)?;
    let lo = Position::new(a.x_m.min(b.x_m), a.y_m.min(b.y_m));
    let hi = Position::new(a.x_m.max(b.x_m), a.y_m.max(b.y_m));
    if hi.x_m > lo.x_m && hi.y_m > lo.y_m {
        Ok((lo, hi))
    } else {
        Err(MobilityError::invalid(
            "area",
            format!("[{}, {}]", fmt_position(a), fmt_position(b)),
            "two opposite corners of a rectangle with non-zero width and height",
        ))
    }
}

fn validate_waypoints(points: &[(SimTime, Position)]) -> Result<(), MobilityError> {
    if points.is_empty() {
        return Err(MobilityError::invalid(
            "points",
            "an empty list",
            "at least one (time, position) point",
        ));
    }
    for (i, &(t, p)) in points.iter().enumerate() {
        check_position(&format!("points[{i}].position"), p)?;
        if i == 0 {
            continue;
        }
        let (t0, p0) = points[i - 1];
        if t <= t0 {
            return Err(MobilityError::invalid(
                format!("points[{i}].time"),
                format!("{t}"),
                format!("later than points[{}].time ({t0})", i - 1),
            ));
        }
        let speed = p0.distance_m(p) / (t - t0).as_secs_f64();
        if speed > MAX_SPEED_MPS || !speed.is_finite() {
            return Err(MobilityError::invalid(
                format!("points[{i}]"),
                format!("reached from points[{}] at {}", i - 1, fmt_speed(speed)),
                SPEED_EXPECTED,
            ));
        }
    }
    Ok(())
}
