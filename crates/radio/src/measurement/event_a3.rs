//! Event A3, "neighbour becomes offset better than serving" (TS 36.331 §5.5.4.4), with the
//! time-to-trigger and reporting rules of §5.5.4.1.
//!
//! With cell-specific offsets (Ocn, Ocp) and frequency offsets (Ofn, Ofp) all 0, Mn and Ms the
//! layer-3 filtered neighbour and serving measurements (dBm), Hys the hysteresis and Off the
//! a3-Offset (dB):
//!
//! ```text
//! entering (A3-1):  Mn − Hys > Ms + Off
//! leaving  (A3-2):  Mn + Hys < Ms + Off
//! ```
//!
//! A neighbour enters the `cellsTriggeredList` once the entering condition holds at every
//! evaluation during timeToTrigger, and a report is sent then; with reportAmount = 1 it is not
//! reported again while it stays in the list. It leaves the list once the leaving condition
//! holds at every evaluation during timeToTrigger, after which it may trigger again. Between
//! the two thresholds (a band 2·Hys wide) nothing changes, which is what keeps a UE at a cell
//! border from ping-ponging.

use std::collections::BTreeMap;

use celltcp_engine::{SimDuration, SimTime};

use super::{check_range, MeasurementError};

/// The TimeToTrigger values of TS 36.331 §6.3.5, ms.
pub const TIME_TO_TRIGGER_MS: [u64; 16] = [
    0, 40, 64, 80, 100, 128, 160, 256, 320, 480, 512, 640, 1024, 1280, 2560, 5120,
];

/// Parameters of Event A3 (ReportConfigEUTRA, TS 36.331 §6.3.5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct A3Config {
    /// a3-Offset, dB, in [−15, 15] (signalled in 0.5 dB steps; finer values are accepted).
    pub offset_db: f64,
    /// hysteresis, dB, in [0, 15] (signalled in 0.5 dB steps; finer values are accepted).
    pub hysteresis_db: f64,
    /// timeToTrigger, one of [`TIME_TO_TRIGGER_MS`].
    pub time_to_trigger: SimDuration,
}

impl Default for A3Config {
    /// The defaults of ns-3's `A3RsrpHandoverAlgorithm` (the strongest-cell handover of the
    /// LTE module, Herman 2013): a3-Offset 0 dB, hysteresis 3 dB, timeToTrigger 256 ms (the
    /// median of the TimeToTrigger list). These make results comparable with the large body
    /// of ns-3 LTE handover studies.
    fn default() -> Self {
        A3Config {
            offset_db: 0.0,
            hysteresis_db: 3.0,
            time_to_trigger: SimDuration::from_ms(256),
        }
    }
}

impl A3Config {
    /// A validated configuration.
    pub fn new(
        offset_db: f64,
        hysteresis_db: f64,
        time_to_trigger: SimDuration,
    ) -> Result<Self, MeasurementError> {
        let cfg = A3Config {
            offset_db,
            hysteresis_db,
            time_to_trigger,
        };
        cfg.validate()?;
        Ok(cfg)
    }

    /// Checks the ranges of TS 36.331 §6.3.5: a3-Offset INTEGER (−30..30) and Hysteresis
    /// INTEGER (0..30), both in 0.5 dB units, and timeToTrigger from its list.
    pub fn validate(&self) -> Result<(), MeasurementError> {
        check_range(
            "offset_db",
            self.offset_db,
            -15.0,
            15.0,
            "dB",
            " (TS 36.331 a3-Offset)",
        )?;
        check_range(
            "hysteresis_db",
            self.hysteresis_db,
            0.0,
            15.0,
            "dB",
            " (TS 36.331 Hysteresis)",
        )?;
        let listed = TIME_TO_TRIGGER_MS
            .iter()
            .any(|&ms| SimDuration::from_ms(ms) == self.time_to_trigger);
        if !listed {
            let list = TIME_TO_TRIGGER_MS.map(|v| v.to_string()).join(", ");
            return Err(MeasurementError::invalid(
                "time_to_trigger",
                format!("{} ms", self.time_to_trigger.as_ns() as f64 / 1e6),
                format!("one of {list} ms (TS 36.331 TimeToTrigger)"),
            ));
        }
        Ok(())
    }
}

/// Where a neighbour stands with respect to the event.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct NeighbourState {
    /// In the cellsTriggeredList (reported, not yet left).
    triggered: bool,
    /// First evaluation of the current unbroken run in which the condition that changes the
    /// state holds (entering when not triggered, leaving when triggered).
    condition_since: Option<SimTime>,
    /// Present in the current evaluation.
    seen: bool,
}

/// Event A3 evaluation for one UE over its neighbours.
#[derive(Clone, Debug, PartialEq)]
pub struct A3Monitor {
    cfg: A3Config,
    /// Per neighbour index; ordered so that iteration (and tie-breaking) is deterministic.
    neighbours: BTreeMap<usize, NeighbourState>,
}

impl A3Monitor {
    pub fn new(cfg: A3Config) -> Result<Self, MeasurementError> {
        cfg.validate()?;
        Ok(A3Monitor {
            cfg,
            neighbours: BTreeMap::new(),
        })
    }

    pub fn config(&self) -> &A3Config {
        &self.cfg
    }

    /// Evaluates at `now` with the filtered serving and neighbour measurements (neighbour
    /// index, dBm). Returns the neighbour to report, if one triggers now: every neighbour whose
    /// entering condition has held at each evaluation for time_to_trigger joins the triggered
    /// list now, and the best of them (highest Mn, then lowest index) is returned.
    ///
    /// Call-order contract: `now` is non-decreasing. A neighbour missing from `neighbours` was
    /// not measured: its running time-to-trigger restarts, and a triggered one stays
    /// triggered. A repeated index counts once (its first entry). Non-finite values never
    /// satisfy a condition.
    pub fn evaluate(
        &mut self,
        now: SimTime,
        serving: f64,
        neighbours: &[(usize, f64)],
    ) -> Option<usize> {
        let ttt = self.cfg.time_to_trigger;
        let threshold = serving + self.cfg.offset_db;
        let hys = self.cfg.hysteresis_db;
        for state in self.neighbours.values_mut() {
            state.seen = false;
        }
        let mut report: Option<(usize, f64)> = None;
        for &(index, mn) in neighbours {
            let state = self.neighbours.entry(index).or_default();
            if state.seen {
                continue;
            }
            state.seen = true;
            let condition = if state.triggered {
                mn + hys < threshold // A3-2, leaving
            } else {
                mn - hys > threshold // A3-1, entering
            };
            if !condition {
                state.condition_since = None;
                continue;
            }
            let since = *state.condition_since.get_or_insert(now);
            if now.saturating_since(since) < ttt {
                continue;
            }
            state.condition_since = None;
            state.triggered = !state.triggered;
            if state.triggered {
                let better = match report {
                    None => true,
                    // Neighbours are visited in input order, so break ties on the index.
                    Some((best, best_mn)) => mn > best_mn || (mn == best_mn && index < best),
                };
                if better {
                    report = Some((index, mn));
                }
            }
        }
        self.neighbours.retain(|_, s| {
            if !s.seen {
                s.condition_since = None;
            }
            s.triggered || s.condition_since.is_some()
        });
        report.map(|(index, _)| index)
    }

    /// Whether `neighbour` is in the triggered list (reported and not yet left).
    pub fn is_triggered(&self, neighbour: usize) -> bool {
        self.neighbours.get(&neighbour).is_some_and(|s| s.triggered)
    }

    /// Forget every pending condition (after a handover the serving cell changes).
    pub fn reset(&mut self) {
        self.neighbours.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::from_ns(v * 1_000_000)
    }

    fn monitor(offset_db: f64, hysteresis_db: f64, ttt_ms: u64) -> A3Monitor {
        A3Monitor::new(
            A3Config::new(offset_db, hysteresis_db, SimDuration::from_ms(ttt_ms)).unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn not_triggered_before_time_to_trigger() {
        // Entering needs Mn − 1 > Ms + 3, i.e. Mn > Ms + 4; the neighbour is 5 dB better.
        let mut a3 = monitor(3.0, 1.0, 256);
        for t in (0..=240).step_by(40) {
            assert_eq!(a3.evaluate(ms(t), -90.0, &[(1, -85.0)]), None, "at {t} ms");
        }
        // 280 ms is the first evaluation at least 256 ms after the condition first held.
        assert_eq!(a3.evaluate(ms(280), -90.0, &[(1, -85.0)]), Some(1));
        assert!(a3.is_triggered(1));
    }

    #[test]
    fn triggered_at_the_first_evaluation_at_or_after_ttt() {
        let mut a3 = monitor(0.0, 0.0, 80);
        assert_eq!(a3.evaluate(ms(0), -90.0, &[(2, -89.0)]), None);
        assert_eq!(a3.evaluate(ms(40), -90.0, &[(2, -89.0)]), None);
        assert_eq!(a3.evaluate(ms(80), -90.0, &[(2, -89.0)]), Some(2));
        // TTT 0: at the first evaluation that satisfies the condition.
        let mut now = monitor(0.0, 0.0, 0);
        assert_eq!(now.evaluate(ms(7), -90.0, &[(2, -89.0)]), Some(2));
    }

    #[test]
    fn a_broken_condition_restarts_time_to_trigger() {
        let mut a3 = monitor(3.0, 1.0, 256);
        assert_eq!(a3.evaluate(ms(0), -90.0, &[(1, -85.0)]), None);
        assert_eq!(a3.evaluate(ms(200), -90.0, &[(1, -85.0)]), None);
        // One evaluation below the entering threshold (Mn = Ms + 4 is not > Ms + 4).
        assert_eq!(a3.evaluate(ms(240), -90.0, &[(1, -86.0)]), None);
        assert_eq!(a3.evaluate(ms(280), -90.0, &[(1, -85.0)]), None);
        assert_eq!(a3.evaluate(ms(520), -90.0, &[(1, -85.0)]), None);
        assert_eq!(a3.evaluate(ms(560), -90.0, &[(1, -85.0)]), Some(1));
        // A missing measurement breaks the run too.
        a3.reset();
        assert_eq!(a3.evaluate(ms(600), -90.0, &[(1, -85.0)]), None);
        assert_eq!(a3.evaluate(ms(700), -90.0, &[]), None);
        assert_eq!(a3.evaluate(ms(900), -90.0, &[(1, -85.0)]), None);
        assert_eq!(a3.evaluate(ms(1160), -90.0, &[(1, -85.0)]), Some(1));
    }

    #[test]
    fn reported_once_until_it_leaves() {
        let mut a3 = monitor(3.0, 1.0, 40);
        assert_eq!(a3.evaluate(ms(0), -90.0, &[(1, -80.0)]), None);
        assert_eq!(a3.evaluate(ms(40), -90.0, &[(1, -80.0)]), Some(1));
        for t in (80..2000).step_by(40) {
            assert_eq!(a3.evaluate(ms(t), -90.0, &[(1, -80.0)]), None, "at {t} ms");
        }
        // Inside the hysteresis band (Ms + 2 ≤ Mn ≤ Ms + 4) it neither leaves nor re-triggers.
        for t in (2000..3000).step_by(40) {
            assert_eq!(a3.evaluate(ms(t), -90.0, &[(1, -87.0)]), None);
            assert!(a3.is_triggered(1));
        }
        // Leaving (Mn + 1 < Ms + 3) must also hold for TTT.
        assert_eq!(a3.evaluate(ms(3000), -90.0, &[(1, -89.0)]), None);
        assert!(a3.is_triggered(1));
        assert_eq!(a3.evaluate(ms(3040), -90.0, &[(1, -89.0)]), None);
        assert!(!a3.is_triggered(1));
        // Once left, it can be reported again after a new TTT.
        assert_eq!(a3.evaluate(ms(3080), -90.0, &[(1, -80.0)]), None);
        assert_eq!(a3.evaluate(ms(3120), -90.0, &[(1, -80.0)]), Some(1));
    }

    #[test]
    fn reports_the_best_neighbour_whose_ttt_elapsed() {
        let mut a3 = monitor(0.0, 0.0, 80);
        assert_eq!(a3.evaluate(ms(0), -90.0, &[(1, -85.0)]), None);
        assert_eq!(a3.evaluate(ms(40), -90.0, &[(1, -85.0), (2, -70.0)]), None);
        // Neighbour 2 is stronger but its TTT has not elapsed: report 1.
        assert_eq!(
            a3.evaluate(ms(80), -90.0, &[(2, -70.0), (1, -85.0)]),
            Some(1)
        );
        assert_eq!(
            a3.evaluate(ms(120), -90.0, &[(2, -70.0), (1, -85.0)]),
            Some(2)
        );
        // Both elapse together: the strongest wins, ties go to the lower index, and both join
        // the triggered list.
        let mut a3 = monitor(0.0, 0.0, 40);
        let cells = [(5, -80.0), (3, -80.0), (4, -85.0)];
        assert_eq!(a3.evaluate(ms(0), -90.0, &cells), None);
        assert_eq!(a3.evaluate(ms(40), -90.0, &cells), Some(3));
        assert!(a3.is_triggered(4) && a3.is_triggered(5));
        assert_eq!(a3.evaluate(ms(80), -90.0, &cells), None);
    }

    /// Two cells at a border whose filtered RSRPs oscillate ±0.5 dB around each other; each
    /// report hands the UE over (the neighbour becomes serving and the monitor is reset).
    fn handovers_at_a_border(hysteresis_db: f64) -> usize {
        let mut a3 = monitor(0.0, hysteresis_db, 0);
        let mut serving = 0usize;
        let mut handovers = 0;
        for i in 0..100u64 {
            let s = if i % 2 == 0 { 0.5 } else { -0.5 };
            let rsrp = [-80.0 + s, -80.0 - s];
            let neighbour = 1 - serving;
            if a3
                .evaluate(ms(40 * i), rsrp[serving], &[(neighbour, rsrp[neighbour])])
                .is_some()
            {
                serving = neighbour;
                handovers += 1;
                a3.reset();
            }
        }
        handovers
    }

    #[test]
    fn hysteresis_prevents_ping_pong() {
        assert_eq!(handovers_at_a_border(1.0), 0);
        // Without hysteresis the same oscillation hands over at every evaluation but the first.
        assert_eq!(handovers_at_a_border(0.0), 99);
    }

    #[test]
    fn reset_forgets_pending_and_triggered_cells() {
        let mut a3 = monitor(0.0, 0.0, 40);
        a3.evaluate(ms(0), -90.0, &[(1, -80.0)]);
        assert_eq!(a3.evaluate(ms(40), -90.0, &[(1, -80.0)]), Some(1));
        a3.reset();
        assert!(!a3.is_triggered(1));
        assert_eq!(a3.evaluate(ms(80), -90.0, &[(1, -80.0)]), None);
        assert_eq!(a3.evaluate(ms(120), -90.0, &[(1, -80.0)]), Some(1));
    }

    #[test]
    fn non_finite_measurements_never_trigger() {
        let mut a3 = monitor(0.0, 0.0, 0);
        assert_eq!(a3.evaluate(ms(0), f64::NAN, &[(1, -80.0)]), None);
        assert_eq!(a3.evaluate(ms(40), -90.0, &[(1, f64::NAN)]), None);
    }

    #[test]
    fn configuration_is_checked() {
        for ttt in TIME_TO_TRIGGER_MS {
            assert!(
                A3Config::new(3.0, 1.0, SimDuration::from_ms(ttt)).is_ok(),
                "{ttt}"
            );
        }
        let e = A3Config::new(3.0, 1.0, SimDuration::from_ms(250)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "time_to_trigger: 250 ms is not allowed; expected one of 0, 40, 64, 80, 100, 128, \
             160, 256, 320, 480, 512, 640, 1024, 1280, 2560, 5120 ms (TS 36.331 TimeToTrigger)"
        );
        assert!(A3Config::new(3.0, 1.0, SimDuration::from_us(40_500)).is_err());
        assert_eq!(
            A3Config::new(3.0, -1.0, SimDuration::ZERO)
                .unwrap_err()
                .to_string(),
            "hysteresis_db: -1 dB is not allowed; expected 0 to 15 dB (TS 36.331 Hysteresis)"
        );
        assert!(A3Config::new(20.0, 1.0, SimDuration::ZERO).is_err());
        assert!(A3Config::new(f64::NAN, 1.0, SimDuration::ZERO).is_err());
        let bad = A3Config {
            time_to_trigger: SimDuration::from_ms(1),
            ..A3Config::default()
        };
        assert!(A3Monitor::new(bad).is_err());
        assert!(A3Config::default().validate().is_ok());
    }
}
