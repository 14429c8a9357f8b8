//! Independent (Bernoulli) packet loss: every packet is lost with the same probability,
//! whatever its size and whatever happened to the packets before it.

use celltcp_engine::{RngStream, SimTime};

use super::{LossModel, ParamError};

/// Loses each packet independently with probability `p`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bernoulli {
    p: f64,
}

impl Bernoulli {
    /// `p`: loss probability per packet, in [0, 1].
    pub fn new(p: f64) -> Result<Self, ParamError> {
        Ok(Bernoulli {
            p: ParamError::check_probability("bernoulli.p", p)?,
        })
    }

    /// Loss probability per packet.
    pub fn p(&self) -> f64 {
        self.p
    }
}

impl LossModel for Bernoulli {
    fn is_lost(&mut self, _size_bytes: u32, _now: SimTime, rng: &mut RngStream) -> bool {
        rng.bernoulli(self.p)
    }

    fn kind(&self) -> &'static str {
        "bernoulli"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empirical_rate_matches_p() {
        let mut rng = RngStream::new(1, 0, "test/loss/bernoulli");
        let n = 200_000;
        for p in [0.01, 0.1, 0.5] {
            let mut m = Bernoulli::new(p).unwrap();
            let lost = (0..n)
                .filter(|_| m.is_lost(1500, SimTime::ZERO, &mut rng))
                .count();
            let rate = lost as f64 / n as f64;
            // Binomial standard error √(p(1 − p)/n); allow five of them.
            let se = (p * (1.0 - p) / n as f64).sqrt();
            assert!((rate - p).abs() < 5.0 * se, "p {p}: measured {rate}");
        }
    }

    #[test]
    fn extremes_are_exact() {
        let mut rng = RngStream::new(1, 0, "test/loss/bernoulli");
        let mut never = Bernoulli::new(0.0).unwrap();
        let mut always = Bernoulli::new(1.0).unwrap();
        assert!((0..10_000).all(|_| !never.is_lost(1500, SimTime::ZERO, &mut rng)));
        assert!((0..10_000).all(|_| always.is_lost(40, SimTime::ZERO, &mut rng)));
        assert_eq!(always.kind(), "bernoulli");
    }

    #[test]
    fn out_of_range_probabilities_are_rejected() {
        for p in [-0.1, 1.000_001, f64::NAN, f64::INFINITY] {
            assert!(
                matches!(
                    Bernoulli::new(p),
                    Err(ParamError::NotProbability {
                        param: "bernoulli.p",
                        ..
                    })
                ),
                "{p}"
            );
        }
    }
}
