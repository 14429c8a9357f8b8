//! Gilbert–Elliott bursty loss: a two-state Markov chain (Good, Bad) with a loss probability
//! per state (E. N. Gilbert, "Capacity of a burst-noise channel", 1960; E. O. Elliott,
//! "Estimates of error rates for codes on burst-noise channels", 1963).
//!
//! The chain advances once per packet, not per unit of time, so burst lengths are counted in
//! packets. Order per packet: first the state transition, then the loss draw with the loss
//! probability of the new state. The chain starts in Good.

use celltcp_engine::{RngStream, SimTime};

use super::{LossModel, ParamError};

/// Parameters of the two-state chain; all are probabilities in [0, 1].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeConfig {
    /// Probability of moving from Good to Bad at a packet.
    pub p_good_to_bad: f64,
    /// Probability of moving from Bad to Good at a packet.
    pub p_bad_to_good: f64,
    /// Loss probability of a packet in Good.
    pub loss_good: f64,
    /// Loss probability of a packet in Bad.
    pub loss_bad: f64,
}

impl GeConfig {
    /// Checks every field; called by [`GilbertElliott::new`].
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check_probability("gilbert_elliott.p_good_to_bad", self.p_good_to_bad)?;
        ParamError::check_probability("gilbert_elliott.p_bad_to_good", self.p_bad_to_good)?;
        ParamError::check_probability("gilbert_elliott.loss_good", self.loss_good)?;
        ParamError::check_probability("gilbert_elliott.loss_bad", self.loss_bad)?;
        Ok(())
    }

    /// Long-run fraction of packets seen in Bad: p_gb/(p_gb + p_bg). A chain that never moves
    /// (both probabilities zero) stays in its initial state, Good, so the fraction is 0.
    pub fn stationary_bad(&self) -> f64 {
        let moves = self.p_good_to_bad + self.p_bad_to_good;
        if moves == 0.0 {
            0.0
        } else {
            self.p_good_to_bad / moves
        }
    }

    /// Long-run loss rate: (p_gb·loss_bad + p_bg·loss_good)/(p_gb + p_bg).
    pub fn stationary_loss(&self) -> f64 {
        let bad = self.stationary_bad();
        bad * self.loss_bad + (1.0 - bad) * self.loss_good
    }

    /// Mean number of consecutive packets spent in Bad once entered: 1/p_bg (geometric sojourn);
    /// infinite when p_bg = 0.
    pub fn mean_bad_burst_packets(&self) -> f64 {
        1.0 / self.p_bad_to_good
    }
}

/// State of the chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeState {
    Good,
    Bad,
}

/// Gilbert–Elliott loss model.
#[derive(Clone, Debug, PartialEq)]
pub struct GilbertElliott {
    cfg: GeConfig,
    state: GeState,
}

impl GilbertElliott {
    pub fn new(cfg: GeConfig) -> Result<Self, ParamError> {
        cfg.validate()?;
        Ok(GilbertElliott {
            cfg,
            state: GeState::Good,
        })
    }

    pub fn config(&self) -> &GeConfig {
        &self.cfg
    }

    /// The state the last packet was judged in (Good before the first packet).
    pub fn state(&self) -> GeState {
        self.state
    }
}

impl LossModel for GilbertElliott {
    fn is_lost(&mut self, _size_bytes: u32, _now: SimTime, rng: &mut RngStream) -> bool {
        // Transition first, then the loss draw in the new state.
        self.state = match self.state {
            GeState::Good if rng.bernoulli(self.cfg.p_good_to_bad) => GeState::Bad,
            GeState::Bad if rng.bernoulli(self.cfg.p_bad_to_good) => GeState::Good,
            s => s,
        };
        let loss = match self.state {
            GeState::Good => self.cfg.loss_good,
            GeState::Bad => self.cfg.loss_bad,
        };
        rng.bernoulli(loss)
    }

    fn kind(&self) -> &'static str {
        "gilbert_elliott"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> GeConfig {
        GeConfig {
            p_good_to_bad: 0.01,
            p_bad_to_good: 0.1,
            loss_good: 0.001,
            loss_bad: 0.5,
        }
    }

    /// Lengths of the maximal runs of `true` in `xs`, ignoring a run cut off at the end.
    fn run_lengths(xs: &[bool]) -> Vec<usize> {
        let mut runs = Vec::new();
        let mut current = 0;
        for &x in xs {
            if x {
                current += 1;
            } else if current > 0 {
                runs.push(current);
                current = 0;
            }
        }
        runs
    }

    #[test]
    fn closed_forms() {
        let c = cfg();
        assert!((c.stationary_bad() - 0.01 / 0.11).abs() < 1e-15);
        assert!((c.stationary_loss() - (0.01 * 0.5 + 0.1 * 0.001) / 0.11).abs() < 1e-15);
        assert!((c.mean_bad_burst_packets() - 10.0).abs() < 1e-12);
        let frozen = GeConfig {
            p_good_to_bad: 0.0,
            p_bad_to_good: 0.0,
            ..c
        };
        assert_eq!(frozen.stationary_loss(), 0.001);
    }

    #[test]
    fn empirical_loss_rate_matches_the_stationary_rate() {
        let c = cfg();
        let mut m = GilbertElliott::new(c).unwrap();
        let mut rng = RngStream::new(1, 0, "test/loss/gilbert_elliott");
        let n = 1_000_000;
        let mut lost = 0usize;
        let mut bad = Vec::with_capacity(n);
        for _ in 0..n {
            lost += m.is_lost(1500, SimTime::ZERO, &mut rng) as usize;
            bad.push(m.state() == GeState::Bad);
        }
        let rate = lost as f64 / n as f64;
        let expected = c.stationary_loss();
        // Standard error of a Markov-modulated mean: the per-packet loss noise,
        // π_B·l_B(1 − l_B) + π_G·l_G(1 − l_G), plus the state's variance (l_B − l_G)²·π_B·π_G
        // inflated by its correlation time, (1 + ρ)/(1 − ρ) with ρ = 1 − p_gb − p_bg.
        let (pi_b, rho) = (c.stationary_bad(), 1.0 - c.p_good_to_bad - c.p_bad_to_good);
        let white = pi_b * c.loss_bad * (1.0 - c.loss_bad)
            + (1.0 - pi_b) * c.loss_good * (1.0 - c.loss_good);
        let state =
            (c.loss_bad - c.loss_good).powi(2) * pi_b * (1.0 - pi_b) * (1.0 + rho) / (1.0 - rho);
        let se = ((white + state) / n as f64).sqrt();
        assert!(
            (rate - expected).abs() < 5.0 * se,
            "measured {rate}, expected {expected} ± {se}"
        );
        // The time in Bad: fraction π_B (standard error √(π_B·π_G·(1 + ρ)/(1 − ρ)/n) ≈ 0.0012, so
        // 0.005 is about four of them), runs of mean 1/p_bg (about 9100 runs of standard
        // deviation 9.5: standard error 0.1, so 0.5 is five).
        let frac_bad = bad.iter().filter(|&&b| b).count() as f64 / n as f64;
        assert!((frac_bad - pi_b).abs() < 0.005, "{frac_bad}");
        let runs = run_lengths(&bad);
        let mean = runs.iter().sum::<usize>() as f64 / runs.len() as f64;
        assert!(
            (mean - c.mean_bad_burst_packets()).abs() < 0.5,
            "mean Bad run {mean}"
        );
    }

    #[test]
    fn loss_bursts_have_mean_length_one_over_p_bg() {
        // Loss exactly in Bad: loss bursts are the Bad sojourns, geometric with mean 1/p_bg = 10.
        let c = GeConfig {
            p_good_to_bad: 0.01,
            p_bad_to_good: 0.1,
            loss_good: 0.0,
            loss_bad: 1.0,
        };
        let mut m = GilbertElliott::new(c).unwrap();
        let mut rng = RngStream::new(2, 0, "test/loss/gilbert_elliott");
        let n = 1_000_000;
        let lost: Vec<bool> = (0..n)
            .map(|_| m.is_lost(1500, SimTime::ZERO, &mut rng))
            .collect();
        let runs = run_lengths(&lost);
        let mean = runs.iter().sum::<usize>() as f64 / runs.len() as f64;
        // About n·π_B·p_bg ≈ 9100 bursts with standard deviation √(1 − p_bg)/p_bg ≈ 9.5 each:
        // standard error ≈ 0.1; allow five.
        let sd = (1.0 - c.p_bad_to_good).sqrt() / c.p_bad_to_good;
        let se = sd / (runs.len() as f64).sqrt();
        assert!(
            (mean - 10.0).abs() < 5.0 * se,
            "mean burst {mean} over {} bursts",
            runs.len()
        );
        // Here the loss indicator is the Bad indicator: standard error ≈ 0.0012 as above.
        let rate = lost.iter().filter(|&&l| l).count() as f64 / n as f64;
        assert!((rate - c.stationary_loss()).abs() < 0.005, "{rate}");
    }

    #[test]
    fn transition_comes_before_the_loss_draw() {
        // Always switching, lossless in Good, lossy in Bad: from Good the first packet is judged
        // in Bad (lost), the second in Good, and so on.
        let c = GeConfig {
            p_good_to_bad: 1.0,
            p_bad_to_good: 1.0,
            loss_good: 0.0,
            loss_bad: 1.0,
        };
        let mut m = GilbertElliott::new(c).unwrap();
        assert_eq!(m.state(), GeState::Good);
        let mut rng = RngStream::new(1, 0, "test/loss/gilbert_elliott");
        let pattern: Vec<bool> = (0..6)
            .map(|_| m.is_lost(100, SimTime::ZERO, &mut rng))
            .collect();
        assert_eq!(pattern, [true, false, true, false, true, false]);
        assert_eq!(m.kind(), "gilbert_elliott");
    }

    #[test]
    fn out_of_range_parameters_are_rejected() {
        let bad = |c: GeConfig| GilbertElliott::new(c).unwrap_err();
        assert_eq!(
            bad(GeConfig {
                p_good_to_bad: 1.5,
                ..cfg()
            }),
            ParamError::NotProbability {
                param: "gilbert_elliott.p_good_to_bad",
                value: 1.5
            }
        );
        assert!(matches!(
            bad(GeConfig {
                p_bad_to_good: -0.5,
                ..cfg()
            }),
            ParamError::NotProbability {
                param: "gilbert_elliott.p_bad_to_good",
                ..
            }
        ));
        assert!(matches!(
            bad(GeConfig {
                loss_good: f64::NAN,
                ..cfg()
            }),
            ParamError::NotProbability {
                param: "gilbert_elliott.loss_good",
                ..
            }
        ));
        assert!(matches!(
            bad(GeConfig {
                loss_bad: 2.0,
                ..cfg()
            }),
            ParamError::NotProbability {
                param: "gilbert_elliott.loss_bad",
                ..
            }
        ));
    }
}
