//! Log-normal shadowing correlated along the UE's path.
//!
//! Gudmundson ("Correlation model for shadow fading in mobile radio systems", Electronics
//! Letters 27(23), 1991) measured that the shadowing (in dB) seen by a moving terminal has the
//! autocorrelation `σ²·exp(−Δd / d_corr)` in the distance Δd moved. That is a Gauss–Markov
//! process in distance, so it can be generated exactly as an AR(1) recursion on the distance
//! between successive updates, however irregular:
//!
//! ```text
//! ρ = exp(−Δd / d_corr),    S_k = ρ·S_(k−1) + σ·sqrt(1 − ρ²)·N(0, 1),    S_0 = σ·N(0, 1)
//! ```
//!
//! `S` is in dB and counts as extra loss (it is subtracted from the received power). Typical
//! values: σ = 4/6 dB and d_corr = 37/50 m for TR 38.901 UMa LOS/NLOS, 4/7.82 dB and 10/13 m
//! for UMi (see [`super::UrbanMacro::shadow_fading_std_db`] and friends).
//!
//! One process per (cell, UE) link, fed with the link's own `RngStream`. Each update draws
//! exactly one normal deviate (two uniforms) even when the UE has not moved, so the stream
//! consumption does not depend on mobility.

use celltcp_engine::RngStream;

use super::{ChannelError, Position};

/// Spatially correlated log-normal shadowing of one link.
#[derive(Clone, Debug, PartialEq)]
pub struct Shadowing {
    sigma_db: f64,
    decorrelation_m: f64,
    /// Position and value of the last update.
    last: Option<(Position, f64)>,
}

impl Shadowing {
    /// Shadowing with standard deviation `sigma_db` (dB, in [0, 30]) and decorrelation distance
    /// `decorrelation_m` (metres, > 0): the correlation falls to e^−1 over that distance.
    pub fn new(sigma_db: f64, decorrelation_m: f64) -> Result<Self, ChannelError> {
        let sigma_db = ChannelError::check(
            "sigma_db",
            sigma_db,
            0.0,
            30.0,
            "a standard deviation in [0, 30] dB",
        )?;
        let decorrelation_m = ChannelError::check_positive(
            "decorrelation_m",
            decorrelation_m,
            "a positive decorrelation distance in metres",
        )?;
        Ok(Shadowing {
            sigma_db,
            decorrelation_m,
            last: None,
        })
    }

    /// Standard deviation, dB.
    pub fn sigma_db(&self) -> f64 {
        self.sigma_db
    }

    /// Decorrelation distance, metres.
    pub fn decorrelation_m(&self) -> f64 {
        self.decorrelation_m
    }

    /// Moves the UE to `position` and returns the shadowing there, dB. The first call draws from
    /// the stationary distribution N(0, σ²).
    pub fn update(&mut self, position: Position, rng: &mut RngStream) -> f64 {
        let z = rng.normal(0.0, 1.0);
        let value = match self.last {
            None => self.sigma_db * z,
            Some((previous, s)) => {
                let rho = (-previous.distance_m(position) / self.decorrelation_m).exp();
                rho * s + self.sigma_db * (1.0 - rho * rho).sqrt() * z
            }
        };
        self.last = Some((position, value));
        value
    }

    /// The value returned by the last [`update`](Self::update), dB; `None` before the first.
    pub fn current_db(&self) -> Option<f64> {
        self.last.map(|(_, s)| s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(xs: &[f64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let m = xs.iter().sum::<f64>() / n;
        let v = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n;
        (m, v.sqrt())
    }

    fn autocorrelation(xs: &[f64], lag: usize) -> f64 {
        let (m, s) = stats(xs);
        let n = xs.len() - lag;
        (0..n).map(|i| (xs[i] - m) * (xs[i + lag] - m)).sum::<f64>() / n as f64 / (s * s)
    }

    #[test]
    fn sigma_and_autocorrelation_at_the_decorrelation_distance() {
        // A UE walking 1 m per update; d_corr = 20 m, so lag 20 should correlate at e^−1.
        let mut sh = Shadowing::new(8.0, 20.0).unwrap();
        let mut rng = RngStream::new(11, 0, "cell/0/ue/0/shadowing");
        let xs: Vec<f64> = (0..400_000)
            .map(|i| sh.update(Position::new(f64::from(i), 0.0), &mut rng))
            .collect();
        let (m, s) = stats(&xs);
        assert!(m.abs() < 0.3, "mean {m}");
        assert!((s - 8.0).abs() < 0.25, "sigma {s}");
        let r = autocorrelation(&xs, 20);
        assert!((r - (-1f64).exp()).abs() < 0.03, "rho(d_corr) = {r}");
        let r1 = autocorrelation(&xs, 1);
        assert!(
            (r1 - (-1.0f64 / 20.0).exp()).abs() < 0.01,
            "rho(1 m) = {r1}"
        );
    }

    #[test]
    fn irregular_steps_keep_the_exponential_correlation() {
        // Pairs of updates 20 m apart, each pair from a fresh process: correlation e^−1.
        let mut rng = RngStream::new(12, 0, "shadowing/pairs");
        let n = 100_000;
        let mut sum_xy = 0.0;
        let mut sum_xx = 0.0;
        for _ in 0..n {
            let mut sh = Shadowing::new(6.0, 20.0).unwrap();
            let a = sh.update(Position::new(0.0, 0.0), &mut rng);
            let b = sh.update(Position::new(12.0, 16.0), &mut rng); // 20 m away
            sum_xy += a * b;
            sum_xx += a * a;
        }
        let r = sum_xy / sum_xx;
        assert!((r - (-1f64).exp()).abs() < 0.02, "{r}");
    }

    #[test]
    fn standing_still_keeps_the_value_and_far_moves_forget_it() {
        let mut sh = Shadowing::new(8.0, 50.0).unwrap();
        let mut rng = RngStream::new(13, 0, "shadowing/still");
        assert_eq!(sh.current_db(), None);
        let p = Position::new(5.0, 5.0);
        let a = sh.update(p, &mut rng);
        assert_eq!(sh.update(p, &mut rng), a);
        assert_eq!(sh.current_db(), Some(a));
        // Determinism: the same stream gives the same path.
        let mut again = Shadowing::new(8.0, 50.0).unwrap();
        let mut rng2 = RngStream::new(13, 0, "shadowing/still");
        assert_eq!(again.update(p, &mut rng2), a);
    }

    #[test]
    fn zero_sigma_is_no_shadowing_and_bad_parameters_are_rejected() {
        let mut sh = Shadowing::new(0.0, 50.0).unwrap();
        let mut rng = RngStream::new(14, 0, "shadowing/zero");
        assert_eq!(sh.update(Position::default(), &mut rng), 0.0);
        assert!(Shadowing::new(-1.0, 50.0).is_err());
        assert!(Shadowing::new(8.0, 0.0).is_err());
        assert!(Shadowing::new(f64::NAN, 50.0).is_err());
    }
}
