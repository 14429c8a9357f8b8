//! Radio link monitoring and radio link failure detection (TS 36.331 §5.3.10.x "Radio link
//! failure related actions", §7.3 timers and constants; TS 36.133 §7.6).
//!
//! Every evaluation period the physical layer compares the serving cell's link quality with two
//! thresholds (36.133 §7.6.1): below Q_out (the SINR at which a hypothetical PDCCH would see
//! 10 % block errors, about −8 dB) it indicates out-of-sync, above Q_in (2 % block errors,
//! about −6 dB) in-sync, and in between nothing. RRC counts consecutive indications:
//!
//! * N310 consecutive out-of-sync while T310 is not running start T310;
//! * N311 consecutive in-sync while T310 is running stop it (the link recovered);
//! * T310 expiring is a radio link failure; the UE then starts RRC connection re-establishment
//!   (§5.3.7), which is the caller's business.
//!
//! An indication of one kind breaks the other kind's run; a period with no indication breaks
//! neither.

use celltcp_engine::{SimDuration, SimTime};

use super::{num, MeasurementError};

/// Radio link monitoring parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RlfConfig {
    /// Q_out as a serving-cell SINR, dB: below it the UE is out of sync.
    pub q_out_db: f64,
    /// Q_in as a serving-cell SINR, dB (≥ q_out_db): above it the UE is in sync.
    pub q_in_db: f64,
    /// Consecutive out-of-sync indications that start T310 (≥ 1; the spec lists 1, 2, 3, 4,
    /// 6, 8, 10, 20).
    pub n310: u32,
    /// Consecutive in-sync indications that stop T310 (≥ 1; the spec lists 1, 2, 3, 4, 5, 6,
    /// 8, 10).
    pub n311: u32,
    /// T310 (the spec lists 0, 50, 100, 200, 500, 1000, 2000 ms, later also 4000 and 6000).
    pub t310: SimDuration,
}

impl Default for RlfConfig {
    /// Q_out −8 dB and Q_in −6 dB (the SINRs of 10 % and 2 % PDCCH BLER usually assumed for
    /// 36.133 §7.6); N310 1, N311 1, T310 1000 ms (the defaults of TS 36.331 §9.2.5).
    fn default() -> Self {
        RlfConfig {
            q_out_db: -8.0,
            q_in_db: -6.0,
            n310: 1,
            n311: 1,
            t310: SimDuration::from_ms(1000),
        }
    }
}

impl RlfConfig {
    /// Checks finite thresholds with q_out_db ≤ q_in_db and counters ≥ 1. Values outside the
    /// spec's lists are accepted for studies.
    pub fn validate(&self) -> Result<(), MeasurementError> {
        for (key, q) in [("q_out_db", self.q_out_db), ("q_in_db", self.q_in_db)] {
            if !q.is_finite() {
                return Err(MeasurementError::invalid(
                    key,
                    format!("{} dB", num(q)),
                    "a finite SINR in dB",
                ));
            }
        }
        if self.q_in_db < self.q_out_db {
            return Err(MeasurementError::invalid(
                "q_in_db",
                format!("{} dB", num(self.q_in_db)),
                format!(
                    "≥ q_out_db ({} dB): in-sync needs a better link than out-of-sync",
                    num(self.q_out_db)
                ),
            ));
        }
        for (key, n) in [("n310", self.n310), ("n311", self.n311)] {
            if n == 0 {
                return Err(MeasurementError::invalid(
                    key,
                    "0",
                    "a count ≥ 1 of consecutive indications",
                ));
            }
        }
        Ok(())
    }
}

/// Radio link monitoring of one UE.
#[derive(Clone, Debug, PartialEq)]
pub struct RlfMonitor {
    cfg: RlfConfig,
    /// Consecutive out-of-sync indications so far.
    out_of_sync: u32,
    /// Consecutive in-sync indications so far.
    in_sync: u32,
    /// When T310 was started, if running.
    t310_started: Option<SimTime>,
    /// The radio link failed (until reset).
    failed: bool,
}

impl RlfMonitor {
    pub fn new(cfg: RlfConfig) -> Result<Self, MeasurementError> {
        cfg.validate()?;
        Ok(RlfMonitor {
            cfg,
            out_of_sync: 0,
            in_sync: 0,
            t310_started: None,
            failed: false,
        })
    }

    pub fn config(&self) -> &RlfConfig {
        &self.cfg
    }

    /// One evaluation at `now` with the serving cell's SINR (dB); returns true exactly once
    /// when the radio link fails. A T310 that expired at or before `now` fails the link before
    /// this evaluation's indication is counted; a NaN SINR gives no indication.
    ///
    /// Call-order contract: `now` is non-decreasing. After the failure every call returns
    /// false until [`reset`](Self::reset).
    pub fn evaluate(&mut self, now: SimTime, sinr_db: f64) -> bool {
        if self.failed {
            return false;
        }
        if self.expire(now) {
            return true;
        }
        if sinr_db < self.cfg.q_out_db {
            self.in_sync = 0;
            self.out_of_sync = self.out_of_sync.saturating_add(1);
            if self.t310_started.is_none() && self.out_of_sync >= self.cfg.n310 {
                self.t310_started = Some(now);
                self.out_of_sync = 0;
            }
        } else if sinr_db > self.cfg.q_in_db {
            self.out_of_sync = 0;
            self.in_sync = self.in_sync.saturating_add(1);
            if self.t310_started.is_some() && self.in_sync >= self.cfg.n311 {
                self.t310_started = None;
                self.in_sync = 0;
            }
        }
        // T310 = 0 ms expires at the instant it starts.
        self.expire(now)
    }

    /// The instant T310 expires, if it is running, so that a caller can check the failure
    /// exactly then with [`handle_timeout`](Self::handle_timeout) instead of at the next
    /// evaluation.
    pub fn t310_deadline(&self) -> Option<SimTime> {
        self.t310_started.map(|start| start + self.cfg.t310)
    }

    /// Declares the failure if T310 has expired at `now` (returns true then, once). Counts no
    /// indication.
    pub fn handle_timeout(&mut self, now: SimTime) -> bool {
        !self.failed && self.expire(now)
    }

    fn expire(&mut self, now: SimTime) -> bool {
        match self.t310_deadline() {
            Some(deadline) if now >= deadline => {
                self.t310_started = None;
                self.failed = true;
                true
            }
            _ => false,
        }
    }

    /// Back to the initial state (counters zero, T310 stopped, no failure), e.g. after
    /// re-establishment or a handover (T310 is stopped on handover, 36.331 §5.3.5.4).
    pub fn reset(&mut self) {
        self.out_of_sync = 0;
        self.in_sync = 0;
        self.t310_started = None;
        self.failed = false;
    }

    pub fn t310_running(&self) -> bool {
        self.t310_started.is_some()
    }

    /// Whether the radio link has failed since construction or the last reset.
    pub fn has_failed(&self) -> bool {
        self.failed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::from_ns(v * 1_000_000)
    }

    /// Evaluates every 10 ms over [from, to) with `sinr(t_ms)`; returns the failure instants.
    fn run(m: &mut RlfMonitor, from: u64, to: u64, sinr: impl Fn(u64) -> f64) -> Vec<u64> {
        (from..to)
            .step_by(10)
            .filter(|&t| m.evaluate(ms(t), sinr(t)))
            .collect()
    }

    #[test]
    fn fails_after_t310_of_bad_sinr() {
        let mut m = RlfMonitor::new(RlfConfig::default()).unwrap();
        // N310 = 1: the first out-of-sync (t = 0) starts T310; it expires at 1000 ms.
        assert_eq!(run(&mut m, 0, 990, |_| -10.0), Vec::<u64>::new());
        assert!(m.t310_running());
        assert_eq!(m.t310_deadline(), Some(ms(1000)));
        assert_eq!(run(&mut m, 990, 3000, |_| -10.0), vec![1000]);
        assert!(m.has_failed() && !m.t310_running());
        // Exactly once, whatever follows.
        assert_eq!(run(&mut m, 3000, 4000, |_| 20.0), Vec::<u64>::new());
    }

    #[test]
    fn n310_consecutive_out_of_sync_start_t310() {
        let cfg = RlfConfig {
            n310: 3,
            ..RlfConfig::default()
        };
        let mut m = RlfMonitor::new(cfg).unwrap();
        assert_eq!(run(&mut m, 0, 5000, |_| -9.0), vec![1020]);
        // An in-sync indication in the run of out-of-sync restarts the count.
        let mut m = RlfMonitor::new(cfg).unwrap();
        let sinr = |t: u64| if t % 30 == 20 { 0.0 } else { -9.0 };
        assert_eq!(run(&mut m, 0, 5000, sinr), Vec::<u64>::new());
        assert!(!m.t310_running());
    }

    #[test]
    fn in_sync_before_expiry_prevents_the_failure() {
        let mut m = RlfMonitor::new(RlfConfig::default()).unwrap();
        let sinr = |t: u64| if t < 900 { -10.0 } else { -5.0 };
        assert_eq!(run(&mut m, 0, 5000, sinr), Vec::<u64>::new());
        assert!(!m.t310_running() && !m.has_failed());
    }

    #[test]
    fn n311_in_sync_must_be_consecutive() {
        let cfg = RlfConfig {
            n311: 2,
            ..RlfConfig::default()
        };
        // Single in-sync indications between out-of-sync ones never reach N311 = 2.
        let mut m = RlfMonitor::new(cfg).unwrap();
        let sinr = |t: u64| if t % 20 == 10 { -5.0 } else { -10.0 };
        assert_eq!(run(&mut m, 0, 2000, sinr), vec![1000]);
        // Two in a row do, even with a no-indication period (−7 dB) between them.
        let mut m = RlfMonitor::new(cfg).unwrap();
        let sinr = |t: u64| match t {
            0..=490 => -10.0,
            500 | 520 => -5.0,
            _ if t < 600 => -7.0,
            _ => 0.0,
        };
        assert_eq!(run(&mut m, 0, 3000, sinr), Vec::<u64>::new());
        assert!(!m.t310_running());
    }

    #[test]
    fn sinr_between_the_thresholds_leaves_t310_running() {
        let mut m = RlfMonitor::new(RlfConfig::default()).unwrap();
        let sinr = |t: u64| if t == 0 { -10.0 } else { -7.0 };
        assert_eq!(run(&mut m, 0, 2000, sinr), vec![1000]);
        let mut nan = RlfMonitor::new(RlfConfig::default()).unwrap();
        assert_eq!(run(&mut nan, 0, 2000, |_| f64::NAN), Vec::<u64>::new());
    }

    #[test]
    fn timeout_can_be_handled_exactly_and_reset_restarts() {
        let mut m = RlfMonitor::new(RlfConfig::default()).unwrap();
        assert!(!m.evaluate(ms(40), -12.0));
        let deadline = m.t310_deadline().unwrap();
        assert_eq!(deadline, ms(1040));
        assert!(!m.handle_timeout(ms(1039)));
        assert!(m.handle_timeout(deadline));
        assert!(!m.handle_timeout(ms(2000)));
        assert!(!m.evaluate(ms(2000), -12.0));
        m.reset();
        assert!(!m.has_failed());
        assert!(!m.evaluate(ms(3000), -12.0));
        assert!(m.evaluate(ms(4000), -12.0));
    }

    #[test]
    fn t310_zero_fails_at_once() {
        let cfg = RlfConfig {
            t310: SimDuration::ZERO,
            n310: 2,
            ..RlfConfig::default()
        };
        let mut m = RlfMonitor::new(cfg).unwrap();
        assert!(!m.evaluate(ms(0), -9.0));
        assert!(m.evaluate(ms(10), -9.0));
    }

    #[test]
    fn configuration_is_checked() {
        let bad = |cfg: RlfConfig| RlfMonitor::new(cfg).unwrap_err().to_string();
        let d = RlfConfig::default();
        assert_eq!(
            bad(RlfConfig { q_in_db: -9.0, ..d }),
            "q_in_db: -9 dB is not allowed; expected ≥ q_out_db (-8 dB): in-sync needs a \
             better link than out-of-sync"
        );
        assert!(bad(RlfConfig {
            q_out_db: f64::NAN,
            ..d
        })
        .starts_with("q_out_db: NaN dB"));
        assert!(bad(RlfConfig { n310: 0, ..d }).starts_with("n310: 0 is not allowed"));
        assert!(bad(RlfConfig { n311: 0, ..d }).starts_with("n311: 0 is not allowed"));
        assert!(RlfMonitor::new(RlfConfig { q_in_db: -8.0, ..d }).is_ok());
    }
}
