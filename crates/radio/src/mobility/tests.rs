//! Tests of trajectories and layouts, grouped by model.

use celltcp_engine::{RngStream, SimDuration, SimTime};

use super::*;
use crate::channel::Position;

fn ms(v: u64) -> SimTime {
    SimTime::from_ns(v * 1_000_000)
}

fn secs(v: u64) -> SimTime {
    ms(v * 1000)
}

fn stream(path: &str) -> RngStream {
    RngStream::new(1, 0, path)
}

fn close(a: Position, b: Position) -> bool {
    a.distance_m(b) < 1e-9
}

fn message(r: Result<impl std::fmt::Debug, MobilityError>) -> String {
    r.expect_err("the parameter must be rejected").to_string()
}

mod fixed_and_linear {
    use super::*;

    #[test]
    fn fixed_stands_still() {
        let p = Position::new(3.0, -4.0);
        let mut m = Mobility::new(MobilityModel::Fixed { position: p }, stream("f")).unwrap();
        assert!(!m.is_mobile());
        for t in [SimTime::ZERO, secs(5), secs(3600)] {
            assert_eq!(m.position_at(t), p);
            assert_eq!(m.speed_mps_at(t), 0.0);
        }
    }

    #[test]
    fn linear_position_at_t() {
        let model = MobilityModel::Linear {
            start: Position::new(100.0, 50.0),
            velocity_mps: (10.0, -2.0),
            depart: secs(1),
        };
        let mut m = Mobility::new(model, stream("l")).unwrap();
        assert!(m.is_mobile());
        // Before departure the UE stands at the start.
        assert_eq!(m.position_at(SimTime::ZERO), Position::new(100.0, 50.0));
        assert_eq!(m.speed_mps_at(ms(999)), 0.0);
        assert_eq!(m.position_at(secs(1)), Position::new(100.0, 50.0));
        assert!(close(m.position_at(ms(3500)), Position::new(125.0, 45.0)));
        assert!((m.speed_mps_at(ms(3500)) - 104f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn linear_at_120_kmh() {
        // 120 km/h = 33.33 m/s along +x: 300 m after 9 s, ~1 km after 30 s.
        let v = 120.0 / 3.6;
        let model = MobilityModel::Linear {
            start: Position::new(0.0, 0.0),
            velocity_mps: (v, 0.0),
            depart: SimTime::ZERO,
        };
        let mut m = Mobility::new(model, stream("l")).unwrap();
        assert!((m.speed_mps_at(secs(1)) - 33.333_333).abs() < 1e-6);
        assert!(close(m.position_at(secs(9)), Position::new(300.0, 0.0)));
        assert!((m.position_at(secs(30)).x_m - 1000.0).abs() < 1e-9);
    }

    #[test]
    fn zero_velocity_is_not_mobile() {
        let model = MobilityModel::Linear {
            start: Position::new(1.0, 1.0),
            velocity_mps: (0.0, 0.0),
            depart: SimTime::ZERO,
        };
        assert!(!Mobility::new(model, stream("l")).unwrap().is_mobile());
    }

    #[test]
    fn speeds_beyond_500_kmh_are_rejected() {
        let linear = |v: f64| MobilityModel::Linear {
            start: Position::default(),
            velocity_mps: (v, 0.0),
            depart: SimTime::ZERO,
        };
        assert!(Mobility::new(linear(MAX_SPEED_MPS), stream("l")).is_ok());
        let e = message(Mobility::new(linear(150.0), stream("l")));
        assert_eq!(
            e,
            "velocity_mps: 150 m/s (540 km/h) is not allowed; expected ≤ 138.889 m/s \
             (500 km/h; a faster speed is likely a unit error)"
        );
        let e = message(Mobility::new(linear(f64::NAN), stream("l")));
        assert!(
            e.starts_with("velocity_mps: (NaN, 0) m/s is not allowed"),
            "{e}"
        );
        // A negative component is a direction, not a negative speed.
        assert!(Mobility::new(linear(-30.0), stream("l")).is_ok());
    }

    #[test]
    fn non_finite_positions_are_rejected() {
        let e = message(Mobility::new(
            MobilityModel::Fixed {
                position: Position::new(f64::INFINITY, 0.0),
            },
            stream("f"),
        ));
        assert!(e.starts_with("position: (inf, 0) m is not allowed"), "{e}");
    }
}

mod waypoints {
    use super::*;

    fn path() -> MobilityModel {
        MobilityModel::Waypoints {
            points: vec![
                (secs(1), Position::new(0.0, 0.0)),
                (secs(3), Position::new(20.0, 0.0)),
                (secs(4), Position::new(20.0, 10.0)),
            ],
        }
    }

    #[test]
    fn interpolates_between_points() {
        let mut m = Mobility::new(path(), stream("w")).unwrap();
        assert!(m.is_mobile());
        assert!(close(m.position_at(secs(2)), Position::new(10.0, 0.0)));
        assert!((m.speed_mps_at(secs(2)) - 10.0).abs() < 1e-12);
        assert!(close(m.position_at(secs(3)), Position::new(20.0, 0.0)));
        assert!(close(m.position_at(ms(3500)), Position::new(20.0, 5.0)));
        assert!((m.speed_mps_at(ms(3500)) - 10.0).abs() < 1e-12);
    }

    #[test]
    fn clamps_before_the_first_and_after_the_last_point() {
        let mut m = Mobility::new(path(), stream("w")).unwrap();
        assert_eq!(m.position_at(SimTime::ZERO), Position::new(0.0, 0.0));
        assert_eq!(m.speed_mps_at(ms(500)), 0.0);
        assert_eq!(m.position_at(secs(4)), Position::new(20.0, 10.0));
        assert_eq!(m.position_at(secs(100)), Position::new(20.0, 10.0));
        assert_eq!(m.speed_mps_at(secs(100)), 0.0);
    }

    #[test]
    fn a_single_point_stands_still() {
        let model = MobilityModel::Waypoints {
            points: vec![(secs(5), Position::new(7.0, 8.0))],
        };
        let mut m = Mobility::new(model, stream("w")).unwrap();
        assert!(!m.is_mobile());
        assert_eq!(m.position_at(secs(10)), Position::new(7.0, 8.0));
    }

    #[test]
    fn times_must_strictly_increase() {
        let model = MobilityModel::Waypoints {
            points: vec![
                (secs(1), Position::new(0.0, 0.0)),
                (secs(1), Position::new(1.0, 0.0)),
            ],
        };
        let e = message(Mobility::new(model, stream("w")));
        assert_eq!(
            e,
            "points[1].time: 1.000000000s is not allowed; expected later than \
             points[0].time (1.000000000s)"
        );
        let e = message(Mobility::new(
            MobilityModel::Waypoints { points: vec![] },
            stream("w"),
        ));
        assert!(e.starts_with("points: an empty list is not allowed"), "{e}");
    }

    #[test]
    fn implied_speed_is_checked() {
        // 1 km in 1 s = 3600 km/h: most likely a unit slip.
        let model = MobilityModel::Waypoints {
            points: vec![
                (secs(0), Position::new(0.0, 0.0)),
                (secs(1), Position::new(1000.0, 0.0)),
            ],
        };
        let e = message(Mobility::new(model, stream("w")));
        assert!(
            e.starts_with("points[1]: reached from points[0] at 1000 m/s"),
            "{e}"
        );
    }
}

mod random_waypoint {
    use super::*;

    fn model(pause_ms: u64) -> MobilityModel {
        MobilityModel::RandomWaypoint {
            start: Position::new(100.0, 100.0),
            area: (Position::new(500.0, 300.0), Position::new(0.0, 0.0)),
            speed_mps: (5.0, 20.0),
            pause: SimDuration::from_ms(pause_ms),
        }
    }

    fn sample(m: &mut Mobility, step_ms: u64, until_ms: u64) -> Vec<(u64, Position, f64)> {
        (0..=until_ms / step_ms)
            .map(|i| {
                let t = ms(i * step_ms);
                (i * step_ms, m.position_at(t), m.speed_mps_at(t))
            })
            .collect()
    }

    #[test]
    fn stays_in_the_area_and_respects_the_speed_range() {
        let mut m = Mobility::new(model(1000), stream("ran/ue/1/mobility")).unwrap();
        assert_eq!(m.position_at(SimTime::ZERO), Position::new(100.0, 100.0));
        let samples = sample(&mut m, 50, 2_000_000);
        let (mut moving, mut paused) = (0, 0);
        for w in samples.windows(2) {
            let (t0, p0, v0) = w[0];
            let (_, p1, _) = w[1];
            assert!(
                (-1e-9..=500.0 + 1e-9).contains(&p1.x_m),
                "x {} at {t0} ms",
                p1.x_m
            );
            assert!(
                (-1e-9..=300.0 + 1e-9).contains(&p1.y_m),
                "y {} at {t0} ms",
                p1.y_m
            );
            if v0 == 0.0 {
                paused += 1;
            } else {
                moving += 1;
                assert!((5.0..=20.0).contains(&v0), "speed {v0} at {t0} ms");
            }
            // The distance covered in 50 ms never exceeds the top speed.
            assert!(p0.distance_m(p1) <= 20.0 * 0.05 + 1e-9, "jump at {t0} ms");
        }
        assert!(moving > 0 && paused > 0, "moving {moving}, paused {paused}");
    }

    #[test]
    fn pauses_at_each_destination() {
        let mut m = Mobility::new(model(2000), stream("ran/ue/2/mobility")).unwrap();
        let samples = sample(&mut m, 100, 600_000);
        // Every run of zero-speed samples stands at one point and lasts about the pause
        // (within the 100 ms sampling grid).
        let mut run: Vec<(u64, Position)> = Vec::new();
        let mut runs = 0;
        for &(t, p, v) in &samples {
            if v == 0.0 {
                run.push((t, p));
                continue;
            }
            if let (Some(&(t0, p0)), Some(&(t1, _))) = (run.first(), run.last()) {
                assert!(run.iter().all(|&(_, q)| q == p0), "moved while paused");
                assert!((1900..=2000).contains(&(t1 - t0)), "pause {} ms", t1 - t0);
                runs += 1;
            }
            run.clear();
        }
        assert!(runs > 10, "{runs} pauses seen");
    }

    #[test]
    fn destinations_and_speeds_are_uniform() {
        use crate::mobility::random_waypoint::RandomWaypoint;
        let (lo, hi) = (Position::new(0.0, 0.0), Position::new(100.0, 40.0));
        let pause = SimDuration::from_ms(10);
        let mut rwp = RandomWaypoint::new(lo, lo, hi, (2.0, 10.0), pause, stream("u"));
        let n = 20_000;
        let (mut sx, mut sy, mut sv) = (0.0, 0.0, 0.0);
        let mut t = SimTime::ZERO;
        for _ in 0..n {
            let leg = rwp.leg_at(t).clone();
            assert_eq!(leg.depart, t, "legs follow each other without gaps");
            assert_eq!(leg.resume, leg.arrive + pause);
            // The travel time matches the drawn speed (rounded up to whole nanoseconds).
            let travel_s = (leg.arrive - leg.depart).as_secs_f64();
            assert!((leg.from.distance_m(leg.to) / leg.speed_mps - travel_s).abs() < 2e-9);
            sx += leg.to.x_m;
            sy += leg.to.y_m;
            sv += leg.speed_mps;
            t = leg.resume;
        }
        assert_eq!(rwp.legs_drawn(), n);
        let n = n as f64;
        // Standard errors of the means: 100/√12/√n ≈ 0.2 m, 0.08 m, 8/√12/√n ≈ 0.016 m/s.
        let (mx, my, mv) = (sx / n, sy / n, sv / n);
        assert!(
            (mx - 50.0).abs() < 1.0 && (my - 20.0).abs() < 0.4,
            "mean ({mx}, {my})"
        );
        assert!((mv - 6.0).abs() < 0.08, "mean speed {mv}");
    }

    #[test]
    fn is_deterministic_per_stream() {
        let run = |path: &str| {
            let mut m = Mobility::new(model(500), stream(path)).unwrap();
            sample(&mut m, 250, 300_000)
        };
        assert_eq!(run("ran/ue/1/mobility"), run("ran/ue/1/mobility"));
        assert_ne!(run("ran/ue/1/mobility"), run("ran/ue/2/mobility"));
    }

    #[test]
    fn is_independent_of_the_query_pattern() {
        let mut fine = Mobility::new(model(300), stream("q")).unwrap();
        let mut coarse = Mobility::new(model(300), stream("q")).unwrap();
        let mut once = Mobility::new(model(300), stream("q")).unwrap();
        let fine = sample(&mut fine, 1, 200_000);
        let coarse = sample(&mut coarse, 100, 200_000);
        for &(t, p, v) in &coarse {
            let (tf, pf, vf) = fine[t as usize];
            assert_eq!((tf, pf, vf), (t, p, v), "differs at {t} ms");
        }
        // A single far query lands on the same point too.
        let last = coarse.last().unwrap();
        assert_eq!(once.position_at(ms(last.0)), last.1);
    }

    #[test]
    fn rejects_bad_parameters() {
        let with = |start: Position, area: (Position, Position), speed: (f64, f64)| {
            Mobility::new(
                MobilityModel::RandomWaypoint {
                    start,
                    area,
                    speed_mps: speed,
                    pause: SimDuration::ZERO,
                },
                stream("r"),
            )
        };
        let o = Position::new(0.0, 0.0);
        let c = Position::new(100.0, 100.0);
        assert!(with(o, (o, c), (1.0, 1.0)).is_ok());
        assert_eq!(
            message(with(o, (o, c), (-3.0 / 3.6, 10.0))),
            "speed_mps.min: -0.833 m/s (-3 km/h) is not allowed; expected > 0 (a zero \
             minimum speed makes the mean speed decay over time)"
        );
        assert!(message(with(o, (o, c), (0.0, 10.0))).starts_with("speed_mps.min: 0 m/s"));
        assert!(message(with(o, (o, c), (5.0, 2.0))).starts_with("speed_mps.max: 2 m/s"));
        assert!(message(with(o, (o, c), (5.0, 200.0))).starts_with("speed_mps.max: 200 m/s"));
        let flat = Position::new(100.0, 0.0);
        assert!(message(with(o, (o, flat), (1.0, 2.0))).starts_with("area: [(0, 0) m, (100, 0) m]"));
        let e = message(with(Position::new(-1.0, 5.0), (o, c), (1.0, 2.0)));
        assert!(
            e.starts_with("start: (-1, 5) m is not allowed; expected a point inside"),
            "{e}"
        );
    }
}

mod layouts {
    use super::*;

    fn min_distance_to_others(sites: &[Position], i: usize) -> f64 {
        sites
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, &q)| sites[i].distance_m(q))
            .fold(f64::INFINITY, f64::min)
    }

    #[test]
    fn line_layout_spaces_sites_along_the_heading() {
        // Seed 003 Exp. 5-3: five eNBs 250 m apart along the x axis.
        let sites = line_layout(5, 250.0, Position::new(0.0, 0.0), 0.0).unwrap();
        let xs: Vec<f64> = sites.iter().map(|p| p.x_m).collect();
        assert_eq!(xs, vec![0.0, 250.0, 500.0, 750.0, 1000.0]);
        assert!(sites.iter().all(|p| p.y_m == 0.0));
        let up = line_layout(
            3,
            100.0,
            Position::new(10.0, 20.0),
            std::f64::consts::FRAC_PI_2,
        )
        .unwrap();
        assert!(close(up[2], Position::new(10.0, 220.0)));
        assert_eq!(
            line_layout(1, 5.0, Position::new(1.0, 2.0), 0.0)
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn line_layout_rejects_bad_input() {
        let o = Position::default();
        assert_eq!(
            message(line_layout(0, 250.0, o, 0.0)),
            "n: 0 is not allowed; expected a number of sites in 1..=100000"
        );
        assert_eq!(
            message(line_layout(3, 0.0, o, 0.0)),
            "spacing_m: 0 m is not allowed; expected a finite distance > 0 m"
        );
        assert!(message(line_layout(3, 10.0, o, f64::NAN)).starts_with("heading_rad: NaN"));
    }

    #[test]
    fn hex_ring_one_is_six_neighbours_at_isd() {
        let c = Position::new(1000.0, -500.0);
        let sites = hex_layout(7, 500.0, c).unwrap();
        assert_eq!(sites[0], c);
        for (i, &p) in sites.iter().enumerate().skip(1) {
            assert!((p.distance_m(c) - 500.0).abs() < 1e-9, "site {i}");
            // Each ring-1 site has its two ring-1 neighbours and the centre at one isd.
            assert!((min_distance_to_others(&sites, i) - 500.0).abs() < 1e-9);
        }
        // Ring 1 starts east of the centre and turns counter-clockwise by 60°.
        assert!(close(sites[1], Position::new(1500.0, -500.0)));
        let a2 = (sites[2].y_m - c.y_m).atan2(sites[2].x_m - c.x_m);
        assert!((a2 - std::f64::consts::FRAC_PI_3).abs() < 1e-12);
    }

    #[test]
    fn hex_ring_two_distances() {
        let isd = 500.0;
        let c = Position::default();
        let sites = hex_layout(19, isd, c).unwrap();
        let ring2: Vec<f64> = sites[7..].iter().map(|p| p.distance_m(c) / isd).collect();
        let corners = ring2.iter().filter(|d| (*d - 2.0).abs() < 1e-9).count();
        let edges = ring2
            .iter()
            .filter(|d| (*d - 3f64.sqrt()).abs() < 1e-9)
            .count();
        assert_eq!((corners, edges), (6, 6), "{ring2:?}");
        // A proper grid: no two sites closer than the isd, every site has a neighbour at isd.
        for i in 0..sites.len() {
            assert!(
                (min_distance_to_others(&sites, i) - isd).abs() < 1e-9,
                "site {i}"
            );
        }
        // Complete rings: the centre has exactly 6 neighbours at isd; 19 sites fill two rings,
        // so ring 3 starts at index 19 and ring 4 at index 37, each east of the centre.
        let at_isd = sites[1..]
            .iter()
            .filter(|p| (p.distance_m(c) - isd).abs() < 1e-9)
            .count();
        assert_eq!(at_isd, 6);
        let three = hex_layout(38, isd, c).unwrap();
        assert!(close(three[19], Position::new(3.0 * isd, 0.0)));
        assert!(close(three[37], Position::new(4.0 * isd, 0.0)));
        assert!(
            (three[36].distance_m(three[19]) - isd).abs() < 1e-9,
            "ring 3 closes"
        );
    }

    #[test]
    fn hex_layout_truncates_in_spiral_order() {
        let full = hex_layout(19, 300.0, Position::default()).unwrap();
        for n in 1..=19 {
            assert_eq!(
                hex_layout(n, 300.0, Position::default()).unwrap(),
                full[..n]
            );
        }
        assert!(message(hex_layout(7, -1.0, Position::default())).starts_with("isd_m: -1 m"));
        assert!(message(hex_layout(0, 1.0, Position::default())).starts_with("n: 0"));
    }
}
