//! `[mobility.UE]`: how a UE of a radio access network moves. A UE without an entry stands
//! still at its `cells.NAME.ues.UE.position`, which is also where every model starts.

use std::collections::BTreeMap;

use celltcp_engine::{SimDuration, SimTime};
use celltcp_radio::channel::Position;
use celltcp_radio::mobility::MobilityModel;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize, Serializer};

use super::cells::CellSpec;
use super::quantity::{Quantity, Speed, Time};
use super::KindTagged;
use crate::ScenarioError;

/// Fastest speed accepted, km/h: faster is most likely a unit mistake (m/s for km/h).
pub const MAX_SPEED_KMH: f64 = 500.0;

/// A UE's motion: a table tagged by `kind` (fixed, linear, waypoints, random_waypoint).
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(tag = "kind")]
pub enum MobilityFile {
    /// Stands still at its start position.
    Fixed(FixedFile),
    /// Constant velocity from the start position, departing at `depart`.
    Linear(LinearFile),
    /// Piecewise-linear path through timed points; before the first it stands at the first,
    /// after the last it stays at the last.
    Waypoints(WaypointsFile),
    /// Random waypoint (Johnson & Maltz; Bettstetter's description): a uniform destination in
    /// `area`, a uniform speed in [speed_min, speed_max], a straight leg, a pause, repeat.
    RandomWaypoint(RandomWaypointFile),
}

impl Serialize for MobilityFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            MobilityFile::Fixed(body) => KindTagged {
                kind: "fixed",
                body,
            }
            .serialize(s),
            MobilityFile::Linear(body) => KindTagged {
                kind: "linear",
                body,
            }
            .serialize(s),
            MobilityFile::Waypoints(body) => KindTagged {
                kind: "waypoints",
                body,
            }
            .serialize(s),
            MobilityFile::RandomWaypoint(body) => KindTagged {
                kind: "random_waypoint",
                body,
            }
            .serialize(s),
        }
    }
}

/// `{ kind = "fixed" }`: no further keys.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FixedFile {}

/// `{ kind = "linear", speed, heading_deg, depart }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinearFile {
    /// A speed ("100km/h", "27.8m/s"; at most 500km/h).
    pub speed: Quantity<Speed>,
    /// Direction, degrees counter-clockwise from the x axis.
    #[serde(default)]
    pub heading_deg: f64,
    /// When the UE starts moving (a time); it stands at its start position before.
    #[serde(default = "zero_time")]
    pub depart: Quantity<Time>,
}

fn zero_time() -> Quantity<Time> {
    Quantity::default_of("0s")
}

/// One point of a waypoint path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaypointFile {
    /// When the UE is at `position` (a time).
    pub at: Quantity<Time>,
    /// [x, y], metres.
    pub position: [f64; 2],
}

/// `{ kind = "waypoints", points = [...] }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaypointsFile {
    /// At least one point, times strictly increasing.
    pub points: Vec<WaypointFile>,
}

/// `{ kind = "random_waypoint", area, speed_min, speed_max, pause }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RandomWaypointFile {
    /// [[x0, y0], [x1, y1]]: the rectangle destinations are drawn from (x0 < x1, y0 < y1).
    pub area: [[f64; 2]; 2],
    /// Lowest speed of a leg (a speed, > 0).
    pub speed_min: Quantity<Speed>,
    /// Highest speed of a leg (a speed, ≥ speed_min, at most 500km/h).
    pub speed_max: Quantity<Speed>,
    /// Pause at each destination (a time).
    #[serde(default = "zero_time")]
    pub pause: Quantity<Time>,
}

/// A validated motion; positions in metres, speeds in m/s. The start position is the UE's
/// cell position and is filled in by the world builder.
#[derive(Clone, Debug, PartialEq)]
pub enum MobilitySpec {
    Fixed,
    Linear {
        speed_mps: f64,
        heading_deg: f64,
        depart: SimDuration,
    },
    Waypoints {
        points: Vec<(SimDuration, [f64; 2])>,
    },
    RandomWaypoint {
        area: [[f64; 2]; 2],
        speed_mps: (f64, f64),
        pause: SimDuration,
    },
}

impl MobilitySpec {
    /// The radio crate's model, starting at `start` ([x, y] metres: the UE's cell position).
    pub fn model(&self, start: [f64; 2]) -> MobilityModel {
        let start = Position::new(start[0], start[1]);
        let at = |d: SimDuration| SimTime::ZERO + d;
        match self {
            MobilitySpec::Fixed => MobilityModel::Fixed { position: start },
            MobilitySpec::Linear {
                speed_mps,
                heading_deg,
                depart,
            } => {
                let (sin, cos) = heading_deg.to_radians().sin_cos();
                MobilityModel::Linear {
                    start,
                    velocity_mps: (speed_mps * cos, speed_mps * sin),
                    depart: at(*depart),
                }
            }
            MobilitySpec::Waypoints { points } => MobilityModel::Waypoints {
                points: points
                    .iter()
                    .map(|(t, p)| (at(*t), Position::new(p[0], p[1])))
                    .collect(),
            },
            MobilitySpec::RandomWaypoint {
                area,
                speed_mps,
                pause,
            } => MobilityModel::RandomWaypoint {
                start,
                area: (
                    Position::new(area[0][0], area[0][1]),
                    Position::new(area[1][0], area[1][1]),
                ),
                speed_mps: *speed_mps,
                pause: *pause,
            },
        }
    }
}

fn speed_limit(key: String, q: &Quantity<Speed>) -> Result<f64, ScenarioError> {
    if q.value * 3.6 > MAX_SPEED_KMH {
        return Err(ScenarioError::new(
            key,
            format!("'{q}' is faster than {MAX_SPEED_KMH} km/h, most likely a unit mistake; use e.g. '100km/h'"),
        ));
    }
    Ok(q.value)
}

fn finite(key: String, v: f64) -> Result<f64, ScenarioError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(ScenarioError::new(
            key,
            format!("{v} is not allowed; expected a finite number"),
        ))
    }
}

/// Validates `[mobility]`: it needs `ran` (a plain cell cannot hand its UEs over) and names
/// only UEs of the cells.
pub(crate) fn convert(
    file: &BTreeMap<String, MobilityFile>,
    has_ran: bool,
    cells: &BTreeMap<String, CellSpec>,
) -> Result<BTreeMap<String, MobilitySpec>, ScenarioError> {
    if file.is_empty() {
        return Ok(BTreeMap::new());
    }
    if !has_ran {
        return Err(ScenarioError::new(
            "mobility",
            "moving UEs need [ran]: without it a cell cannot hand a UE over to another cell",
        ));
    }
    let mut out = BTreeMap::new();
    for (ue, m) in file {
        let key = |k: &str| format!("mobility.{ue}.{k}");
        if !cells.values().any(|c| c.file.ues.contains_key(ue)) {
            let ues: Vec<&str> = cells
                .values()
                .flat_map(|c| c.file.ues.keys().map(String::as_str))
                .collect();
            return Err(ScenarioError::new(
                format!("mobility.{ue}"),
                format!("'{ue}' is not a UE of the cells (UEs: {})", ues.join(", ")),
            ));
        }
        let spec = match m {
            MobilityFile::Fixed(_) => MobilitySpec::Fixed,
            MobilityFile::Linear(l) => MobilitySpec::Linear {
                speed_mps: speed_limit(key("speed"), &l.speed)?,
                heading_deg: finite(key("heading_deg"), l.heading_deg)?,
                depart: l.depart.value,
            },
            MobilityFile::Waypoints(w) => {
                if w.points.is_empty() {
                    return Err(ScenarioError::new(
                        key("points"),
                        "a path needs at least one point",
                    ));
                }
                let mut points = Vec::with_capacity(w.points.len());
                for (i, p) in w.points.iter().enumerate() {
                    let pkey = |k: &str| format!("mobility.{ue}.points[{i}].{k}");
                    if let Some(&(prev, _)) = points.last() {
                        if p.at.value <= prev {
                            return Err(ScenarioError::new(
                                pkey("at"),
                                format!("'{}' is not after the previous point's time; times must increase strictly", p.at),
                            ));
                        }
                    }
                    let position = [
                        finite(pkey("position[0]"), p.position[0])?,
                        finite(pkey("position[1]"), p.position[1])?,
                    ];
                    points.push((p.at.value, position));
                }
                MobilitySpec::Waypoints { points }
            }
            MobilityFile::RandomWaypoint(r) => {
                let [[x0, y0], [x1, y1]] = r.area;
                for (i, v) in [x0, y0, x1, y1].into_iter().enumerate() {
                    finite(format!("mobility.{ue}.area[{}][{}]", i / 2, i % 2), v)?;
                }
                if !(x0 < x1 && y0 < y1) {
                    return Err(ScenarioError::new(
                        key("area"),
                        format!("[[{x0}, {y0}], [{x1}, {y1}]] is not a rectangle; expected [[x0, y0], [x1, y1]] with x0 < x1 and y0 < y1"),
                    ));
                }
                let min = r.speed_min.value;
                if min <= 0.0 {
                    return Err(ScenarioError::new(
                        key("speed_min"),
                        format!(
                            "'{}' must be > 0 (a random waypoint with speed 0 never arrives)",
                            r.speed_min
                        ),
                    ));
                }
                let max = speed_limit(key("speed_max"), &r.speed_max)?;
                if max < min {
                    return Err(ScenarioError::new(
                        key("speed_max"),
                        format!("'{}' is below speed_min '{}'", r.speed_max, r.speed_min),
                    ));
                }
                MobilitySpec::RandomWaypoint {
                    area: r.area,
                    speed_mps: (min, max),
                    pause: r.pause.value,
                }
            }
        };
        // The remaining rules (a random waypoint starts inside its area, waypoints imply no
        // speed over the limit) are the radio model's own.
        let start = cells
            .values()
            .find_map(|c| c.file.ues.get(ue))
            .map_or([0.0, 0.0], |u| u.position);
        if let MobilitySpec::RandomWaypoint {
            area: [[x0, y0], [x1, y1]],
            ..
        } = spec
        {
            if !(x0..=x1).contains(&start[0]) || !(y0..=y1).contains(&start[1]) {
                return Err(ScenarioError::new(
                    key("area"),
                    format!(
                        "does not contain the UE's start [{}, {}] (its cells.*.ues.{ue}.position)",
                        start[0], start[1]
                    ),
                ));
            }
        }
        spec.model(start)
            .validate()
            .map_err(|e| ScenarioError::new(format!("mobility.{ue}"), e.to_string()))?;
        out.insert(ue.clone(), spec);
    }
    Ok(out)
}
