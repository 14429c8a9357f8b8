//! [`Mobility`]: the runtime state of one UE's trajectory.

use celltcp_engine::{RngStream, SimTime};

use super::model::rectangle;
use super::random_waypoint::RandomWaypoint;
use super::{MobilityError, MobilityModel};
use crate::channel::Position;

/// Runtime state of one UE's movement, built from a validated [`MobilityModel`].
#[derive(Clone, Debug)]
pub struct Mobility {
    model: MobilityModel,
    /// Only the random waypoint model keeps state (its current leg and its stream); the other
    /// models are pure functions of time.
    random_waypoint: Option<RandomWaypoint>,
}

impl Mobility {
    /// Validates `model` and builds its runtime state. `rng` is the UE's own mobility stream
    /// (e.g. `ran/ue/7/mobility`); only the random waypoint model draws from it.
    pub fn new(model: MobilityModel, rng: RngStream) -> Result<Mobility, MobilityError> {
        model.validate()?;
        let random_waypoint = match &model {
            MobilityModel::RandomWaypoint {
                start,
                area,
                speed_mps,
                pause,
            } => {
                let (lo, hi) = rectangle(*area)?;
                Some(RandomWaypoint::new(*start, lo, hi, *speed_mps, *pause, rng))
            }
            _ => None,
        };
        Ok(Mobility {
            model,
            random_waypoint,
        })
    }

    /// The model this trajectory follows.
    pub fn model(&self) -> &MobilityModel {
        &self.model
    }

    /// Position at `t`, metres. Calls come with non-decreasing `t` (the random waypoint draws
    /// its legs lazily, so the trajectory is a pure function of the stream whatever the query
    /// times; a query earlier than the current leg is answered with that leg's start point).
    pub fn position_at(&mut self, t: SimTime) -> Position {
        match &self.model {
            MobilityModel::Fixed { position } => *position,
            MobilityModel::Linear {
                start,
                velocity_mps: (vx, vy),
                depart,
            } => {
                let dt_s = t.saturating_since(*depart).as_secs_f64();
                Position::new(start.x_m + vx * dt_s, start.y_m + vy * dt_s)
            }
            MobilityModel::Waypoints { points } => match waypoint_segment(points, t) {
                Segment::Before => points[0].1,
                Segment::After => points[points.len() - 1].1,
                Segment::Between(i) => {
                    let ((t0, p0), (t1, p1)) = (points[i], points[i + 1]);
                    let f = (t - t0).as_ns() as f64 / (t1 - t0).as_ns() as f64;
                    Position::new(
                        p0.x_m + (p1.x_m - p0.x_m) * f,
                        p0.y_m + (p1.y_m - p0.y_m) * f,
                    )
                }
            },
            MobilityModel::RandomWaypoint { start, .. } => match &mut self.random_waypoint {
                Some(rwp) => rwp.leg_at(t).position_at(t),
                None => *start,
            },
        }
    }

    /// Scalar speed at `t`, m/s (0 while pausing or standing). At a waypoint or a departure
    /// instant the speed of the segment that starts there is given.
    pub fn speed_mps_at(&mut self, t: SimTime) -> f64 {
        match &self.model {
            MobilityModel::Fixed { .. } => 0.0,
            MobilityModel::Linear {
                velocity_mps: (vx, vy),
                depart,
                ..
            } => {
                if t >= *depart {
                    vx.hypot(*vy)
                } else {
                    0.0
                }
            }
            MobilityModel::Waypoints { points } => match waypoint_segment(points, t) {
                Segment::Before | Segment::After => 0.0,
                Segment::Between(i) => {
                    let ((t0, p0), (t1, p1)) = (points[i], points[i + 1]);
                    p0.distance_m(p1) / (t1 - t0).as_secs_f64()
                }
            },
            MobilityModel::RandomWaypoint { .. } => match &mut self.random_waypoint {
                Some(rwp) => rwp.leg_at(t).speed_mps_at(t),
                None => 0.0,
            },
        }
    }

    /// Whether the UE can move at all (Fixed → false), so a caller can skip updates.
    pub fn is_mobile(&self) -> bool {
        self.model.is_mobile()
    }
}

/// Where `t` falls in a waypoint list (non-empty, strictly increasing times).
enum Segment {
    Before,
    /// Between points `i` and `i + 1`, `t_i ≤ t < t_(i+1)`.
    Between(usize),
    /// At or after the last point.
    After,
}

fn waypoint_segment(points: &[(SimTime, Position)], t: SimTime) -> Segment {
    // Number of points at or before `t`.
    let reached = points.partition_point(|&(ti, _)| ti <= t);
    if reached == 0 {
        Segment::Before
    } else if reached >= points.len() {
        Segment::After
    } else {
        Segment::Between(reached - 1)
    }
}
