//! The random waypoint model (Johnson & Maltz 1996, as described by Bettstetter, Hartenstein &
//! Pérez-Costa 2004): from its current point the UE draws a destination uniformly in the
//! rectangle and a speed uniformly in [v_min, v_max], travels there in a straight line at that
//! speed, pauses, and repeats.
//!
//! Legs are drawn lazily, only when a query reaches the end of the current one, and each leg
//! draws exactly three uniforms in a fixed order (x, y, speed). Leg boundaries are integer
//! nanoseconds computed from the drawn values alone, so the trajectory is a pure function of
//! the stream: querying every millisecond or every second gives the same position at the
//! common instants, bit for bit.

use celltcp_engine::{RngStream, SimDuration, SimTime};

use crate::channel::Position;

/// One leg: travel from `from` (at `depart`) to `to` (at `arrive`) in a straight line at
/// constant speed, then stand at `to` until `resume`.
#[derive(Clone, Debug, PartialEq)]
pub struct Leg {
    pub depart: SimTime,
    pub arrive: SimTime,
    pub resume: SimTime,
    pub from: Position,
    pub to: Position,
    /// The drawn speed, m/s (the leg's duration is rounded up to whole nanoseconds, so the
    /// effective speed is at most this).
    pub speed_mps: f64,
}

impl Leg {
    /// Position at `t`, clamped to the leg's ends.
    pub fn position_at(&self, t: SimTime) -> Position {
        if t <= self.depart {
            self.from
        } else if t >= self.arrive {
            self.to
        } else {
            let f = (t - self.depart).as_ns() as f64 / (self.arrive - self.depart).as_ns() as f64;
            Position::new(
                self.from.x_m + (self.to.x_m - self.from.x_m) * f,
                self.from.y_m + (self.to.y_m - self.from.y_m) * f,
            )
        }
    }

    /// Speed at `t`, m/s: the leg's speed while travelling, 0 while pausing.
    pub fn speed_mps_at(&self, t: SimTime) -> f64 {
        if t >= self.depart && t < self.arrive {
            self.speed_mps
        } else {
            0.0
        }
    }
}

/// Runtime state of a random waypoint trajectory: the current leg and the stream the next
/// legs come from.
#[derive(Clone, Debug)]
pub struct RandomWaypoint {
    /// Lower-left and upper-right corners, metres.
    lo: Position,
    hi: Position,
    /// (min, max), m/s, 0 < min ≤ max.
    speed_mps: (f64, f64),
    pause: SimDuration,
    leg: Leg,
    legs_drawn: u64,
    rng: RngStream,
}

impl RandomWaypoint {
    /// The trajectory starting at `start` at t = 0. The parameters must have been validated
    /// ([`MobilityModel::validate`](super::MobilityModel::validate)): `lo`/`hi` ordered corners,
    /// 0 < min ≤ max speeds.
    pub(crate) fn new(
        start: Position,
        lo: Position,
        hi: Position,
        speed_mps: (f64, f64),
        pause: SimDuration,
        rng: RngStream,
    ) -> Self {
        let mut rwp = RandomWaypoint {
            lo,
            hi,
            speed_mps,
            pause,
            leg: Leg {
                depart: SimTime::ZERO,
                arrive: SimTime::ZERO,
                resume: SimTime::ZERO,
                from: start,
                to: start,
                speed_mps: 0.0,
            },
            legs_drawn: 0,
            rng,
        };
        rwp.leg = rwp.draw_leg(start, SimTime::ZERO);
        rwp
    }

    /// The leg that contains `t` (drawing legs up to it). Queries must come with
    /// non-decreasing `t`: earlier legs are not kept, so a query before the current leg is
    /// answered from the current leg (its start point, speed 0).
    pub fn leg_at(&mut self, t: SimTime) -> &Leg {
        while t >= self.leg.resume {
            let (from, depart) = (self.leg.to, self.leg.resume);
            self.leg = self.draw_leg(from, depart);
        }
        &self.leg
    }

    /// How many legs have been drawn so far.
    pub fn legs_drawn(&self) -> u64 {
        self.legs_drawn
    }

    fn draw_leg(&mut self, from: Position, depart: SimTime) -> Leg {
        // Fixed draw order per leg: x, y, speed.
        let to = Position::new(
            self.rng.uniform(self.lo.x_m, self.hi.x_m),
            self.rng.uniform(self.lo.y_m, self.hi.y_m),
        );
        let (v_min, v_max) = self.speed_mps;
        let speed_mps = self.rng.uniform(v_min, v_max);
        // Round the travel time up so the effective speed never exceeds the drawn one, and
        // make every leg last at least 1 ns so that the loop in `leg_at` always advances.
        let travel_ns = (from.distance_m(to) / speed_mps * 1e9).ceil();
        let travel = SimDuration::from_ns((travel_ns.min(u64::MAX as f64) as u64).max(1));
        let arrive = depart + travel;
        self.legs_drawn += 1;
        Leg {
            depart,
            arrive,
            resume: arrive + self.pause,
            from,
            to,
            speed_mps,
        }
    }
}
