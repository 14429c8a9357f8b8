//! Beam management, abstracted: when the direct path becomes blocked or clear again, the
//! serving beam pair no longer points at the strongest path, and the UE and gNB need a beam
//! failure detection and recovery (TS 38.321 §5.17, TS 38.213 §6) or a beam switch (P-2/P-3
//! beam refinement, TR 38.802 §6.1.6.1) before the link regains its gain. No beam is
//! modelled; for `recovery_ns` after each transition the link is either in outage or loses
//! `misalignment_loss_db`.
//!
//! Call-order contract: transitions are reported in time order ([`BeamTracker::transition`]);
//! queries ([`BeamTracker::state_at`]) take any time at or after the last transition.

use super::NrError;

/// What the link suffers while the beam is being recovered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BeamRecovery {
    /// No link at all (beam failure until a new beam pair is found).
    Outage,
    /// The link survives on a misaligned beam that loses this much gain, dB.
    ReducedGain { loss_db: f64 },
}

/// Parameters of [`BeamTracker`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BeamConfig {
    /// Time from a blockage transition to a realigned beam, nanoseconds; 0 disables the model.
    pub recovery_ns: u64,
    pub during_recovery: BeamRecovery,
}

impl Default for BeamConfig {
    /// Disabled (recovery 0 ns): beam management is ideal unless a study sets a delay.
    fn default() -> Self {
        BeamConfig {
            recovery_ns: 0,
            during_recovery: BeamRecovery::Outage,
        }
    }
}

impl BeamConfig {
    pub(crate) fn validate(&self) -> Result<(), NrError> {
        if let BeamRecovery::ReducedGain { loss_db } = self.during_recovery {
            if !(loss_db.is_finite() && (0.0..=100.0).contains(&loss_db)) {
                return Err(NrError::Param {
                    param: "beam.during_recovery.loss_db",
                    value: loss_db,
                    expected: "a loss in [0, 100] dB",
                });
            }
        }
        Ok(())
    }
}

/// The beam's state at one time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BeamState {
    Aligned,
    /// Recovering until `until_ns`.
    Recovering {
        until_ns: u64,
    },
}

/// The last blockage transition and the recovery it started.
#[derive(Clone, Debug, PartialEq)]
pub struct BeamTracker {
    config: BeamConfig,
    recovering_until_ns: Option<u64>,
}

impl BeamTracker {
    pub fn new(config: BeamConfig) -> Result<Self, NrError> {
        config.validate()?;
        Ok(BeamTracker {
            config,
            recovering_until_ns: None,
        })
    }

    /// A blockage onset or end at `at_ns` starts a recovery (a transition during one restarts
    /// it: the beam being acquired is again the wrong one).
    pub fn transition(&mut self, at_ns: u64) {
        if self.config.recovery_ns > 0 {
            self.recovering_until_ns = Some(at_ns + self.config.recovery_ns);
        }
    }

    pub fn state_at(&self, now_ns: u64) -> BeamState {
        match self.recovering_until_ns {
            Some(until_ns) if now_ns < until_ns => BeamState::Recovering { until_ns },
            _ => BeamState::Aligned,
        }
    }

    /// The beam's loss at `now_ns`, dB: 0 when aligned, infinite in outage.
    pub fn loss_db(&self, now_ns: u64) -> f64 {
        match (self.state_at(now_ns), self.config.during_recovery) {
            (BeamState::Aligned, _) => 0.0,
            (BeamState::Recovering { .. }, BeamRecovery::Outage) => f64::INFINITY,
            (BeamState::Recovering { .. }, BeamRecovery::ReducedGain { loss_db }) => loss_db,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovery_window_after_each_transition() {
        let mut t = BeamTracker::new(BeamConfig {
            recovery_ns: 20_000_000,
            during_recovery: BeamRecovery::ReducedGain { loss_db: 12.0 },
        })
        .unwrap();
        assert_eq!(t.loss_db(0), 0.0);
        t.transition(100);
        assert_eq!(
            t.state_at(100),
            BeamState::Recovering {
                until_ns: 20_000_100
            }
        );
        assert_eq!(t.loss_db(20_000_099), 12.0);
        assert_eq!(t.loss_db(20_000_100), 0.0);
        t.transition(10_000_000);
        assert_eq!(t.loss_db(20_000_100), 12.0);
    }

    #[test]
    fn outage_is_infinite_loss_and_zero_delay_is_ideal() {
        let mut t = BeamTracker::new(BeamConfig {
            recovery_ns: 5,
            during_recovery: BeamRecovery::Outage,
        })
        .unwrap();
        t.transition(0);
        assert_eq!(t.loss_db(4), f64::INFINITY);
        let mut ideal = BeamTracker::new(BeamConfig::default()).unwrap();
        ideal.transition(0);
        assert_eq!(ideal.state_at(0), BeamState::Aligned);
        assert!(BeamTracker::new(BeamConfig {
            recovery_ns: 1,
            during_recovery: BeamRecovery::ReducedGain { loss_db: -1.0 },
        })
        .is_err());
    }
}
