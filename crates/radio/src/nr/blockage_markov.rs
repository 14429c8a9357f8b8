//! Two-state (clear/blocked) continuous-time Markov blockage: the direct path is clear for an
//! exponential time of mean `mean_clear`, then blocked for an exponential time of mean
//! `mean_blocked`, and so on — the on-off model of measured human blockage at mmWave
//! (MacCartney, Rappaport & Rangan, "Rapid fading due to human blockage in pedestrian
//! crowds at 5G millimeter-wave frequencies", IEEE Globecom 2017; ns-3 mmWave's blockage
//! states). In the blocked state the link loses `blocked_loss_db`.
//!
//! The stationary blocked fraction is `mean_blocked / (mean_blocked + mean_clear)`; the first
//! state is drawn from it, so the fraction holds from time 0.
//!
//! Call-order contract: [`MarkovBlockage::state_at`] takes non-decreasing times (the cell's
//! slots); sojourns are drawn lazily from the stream as time passes them, one exponential per
//! sojourn, so the states of a run depend only on the stream and not on how often it is
//! queried.

use celltcp_engine::RngStream;

use super::NrError;

/// Parameters of [`MarkovBlockage`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MarkovBlockageConfig {
    /// Mean sojourn in the clear state, nanoseconds.
    pub mean_clear_ns: u64,
    /// Mean sojourn in the blocked state, nanoseconds.
    pub mean_blocked_ns: u64,
    /// Extra loss of the direct path while blocked, dB. 30 dB is the attenuation TR 38.901
    /// Table 7.6.4.1-1 gives a blocking region of model A.
    pub blocked_loss_db: f64,
}

impl MarkovBlockageConfig {
    /// `mean_blocked / (mean_blocked + mean_clear)`.
    pub fn blocked_fraction(&self) -> f64 {
        let b = self.mean_blocked_ns as f64;
        b / (b + self.mean_clear_ns as f64)
    }
}

/// The current sojourn of a [`MarkovBlockage`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockageState {
    pub blocked: bool,
    /// When the current sojourn began, ns (0 for the first).
    pub since_ns: u64,
    /// When it ends, ns.
    pub until_ns: u64,
}

/// A two-state blockage process (module documentation).
#[derive(Clone, Debug)]
pub struct MarkovBlockage {
    config: MarkovBlockageConfig,
    rng: RngStream,
    state: BlockageState,
    last_query_ns: u64,
}

impl MarkovBlockage {
    /// A process drawing from `rng` (for example `cell/NAME/ue/NODE/blockage`).
    pub fn new(config: MarkovBlockageConfig, mut rng: RngStream) -> Result<Self, NrError> {
        for (param, v) in [
            ("mean_clear_ns", config.mean_clear_ns),
            ("mean_blocked_ns", config.mean_blocked_ns),
        ] {
            if v == 0 {
                return Err(NrError::Param {
                    param,
                    value: 0.0,
                    expected: "a positive mean sojourn",
                });
            }
        }
        if !(config.blocked_loss_db.is_finite() && (0.0..=200.0).contains(&config.blocked_loss_db))
        {
            return Err(NrError::Param {
                param: "blocked_loss_db",
                value: config.blocked_loss_db,
                expected: "a loss in [0, 200] dB",
            });
        }
        let blocked = rng.bernoulli(config.blocked_fraction());
        let until_ns = Self::sojourn_ns(&config, blocked, &mut rng);
        Ok(MarkovBlockage {
            config,
            rng,
            state: BlockageState {
                blocked,
                since_ns: 0,
                until_ns,
            },
            last_query_ns: 0,
        })
    }

    pub fn config(&self) -> &MarkovBlockageConfig {
        &self.config
    }

    fn sojourn_ns(config: &MarkovBlockageConfig, blocked: bool, rng: &mut RngStream) -> u64 {
        let mean = if blocked {
            config.mean_blocked_ns
        } else {
            config.mean_clear_ns
        };
        // At least 1 ns, so that time always advances.
        (rng.exponential(mean as f64).round() as u64).max(1)
    }

    /// The sojourn that holds at `now_ns`.
    ///
    /// # Panics
    /// If `now_ns` is earlier than a previous query (the call-order contract).
    pub fn state_at(&mut self, now_ns: u64) -> BlockageState {
        assert!(
            now_ns >= self.last_query_ns,
            "MarkovBlockage queried at {now_ns} ns after {} ns",
            self.last_query_ns
        );
        self.last_query_ns = now_ns;
        while now_ns >= self.state.until_ns {
            let blocked = !self.state.blocked;
            let since_ns = self.state.until_ns;
            let until_ns = since_ns + Self::sojourn_ns(&self.config, blocked, &mut self.rng);
            self.state = BlockageState {
                blocked,
                since_ns,
                until_ns,
            };
        }
        self.state
    }

    /// The extra loss at `now_ns`, dB.
    pub fn loss_db(&mut self, now_ns: u64) -> f64 {
        if self.state_at(now_ns).blocked {
            self.config.blocked_loss_db
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: MarkovBlockageConfig = MarkovBlockageConfig {
        mean_clear_ns: 2_000_000_000,
        mean_blocked_ns: 500_000_000,
        blocked_loss_db: 30.0,
    };

    #[test]
    fn states_do_not_depend_on_the_query_rate() {
        let rng = || RngStream::new(7, 0, "cell/0/ue/1/blockage");
        let mut coarse = MarkovBlockage::new(CONFIG, rng()).unwrap();
        let mut fine = MarkovBlockage::new(CONFIG, rng()).unwrap();
        for t in (0..20_000u64).map(|k| k * 1_000_000) {
            let f = fine.state_at(t);
            if t % 100_000_000 == 0 {
                assert_eq!(coarse.state_at(t), f);
            }
        }
    }

    #[test]
    fn rejects_bad_parameters_and_backward_time() {
        let e = MarkovBlockage::new(
            MarkovBlockageConfig {
                mean_clear_ns: 0,
                ..CONFIG
            },
            RngStream::new(1, 0, "x"),
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("mean_clear_ns: 0 is out of range"),
            "{e}"
        );
        let mut m = MarkovBlockage::new(CONFIG, RngStream::new(1, 0, "x")).unwrap();
        m.state_at(10);
        let backward = std::panic::catch_unwind(move || m.state_at(5));
        assert!(backward.is_err());
    }
}
