//! Time-correlated Rayleigh fast fading, one flat (wideband) gain per sample.
//!
//! Clarke's model of a terminal moving through isotropic scattering (the model behind Jakes'
//! simulator) gives a complex Gaussian channel coefficient h(t) with E|h|² = 1 and
//! autocorrelation `E[h(t) h*(t+τ)] = J0(2π f_d τ)`, where `f_d = v·f_c / c` is the maximum
//! Doppler shift. Sampled every Δt (one TTI), it is approximated by the first-order
//! autoregressive process of Baddour and Beaulieu (IEEE Trans. Wireless Commun. 4(4), 2005):
//!
//! ```text
//! ρ = J0(2π f_d Δt),    h_k = ρ·h_(k−1) + sqrt(1 − ρ²)·w_k,    w_k ~ CN(0, 1),    h_0 ~ CN(0, 1)
//! ```
//!
//! which keeps the Rayleigh marginal (|h|² exponential with mean 1, i.e. 0 dB) and matches the
//! Clarke correlation at lag one exactly; at longer lags it decays as ρ^k instead of following
//! J0's oscillations. Skipped samples (idle TTIs) are jumped over in one step with
//! `ρ = J0(2π f_d k Δt)`, the exact correlation across the gap.
//!
//! Simplifications: one coefficient per TTI for the whole band (no frequency selectivity), a
//! single antenna pair, no LOS (Rician) component. Each sample draws exactly two normal
//! deviates (four uniforms) from the link's `RngStream`.

use celltcp_engine::RngStream;

use super::{ChannelError, SPEED_OF_LIGHT_MPS};

/// Smallest linear power gain returned, so that dB values stay finite (−150 dB).
const MIN_POWER_GAIN: f64 = 1e-15;

/// Bessel function of the first kind of order 0.
///
/// For |x| ≤ 100, Bessel's integral `J0(x) = (1/π)∫₀^π cos(x·sin θ) dθ` (DLMF 10.9.1) by the
/// trapezoidal rule, which converges geometrically for this smooth periodic integrand once the
/// number of nodes exceeds |x|/2 (64 + ⌈|x|⌉ nodes are used; error < 2e-15 on [0, 100]). Beyond,
/// Hankel's asymptotic expansion (DLMF 10.17.3) to second order:
/// `sqrt(2/(πx))·[cos ω·(1 − 9/(128x²)) + sin ω/(8x)]`, ω = x − π/4 (error < 1e-8).
pub fn bessel_j0(x: f64) -> f64 {
    let x = x.abs();
    if !x.is_finite() {
        return if x.is_nan() { f64::NAN } else { 0.0 };
    }
    if x <= 100.0 {
        let n = 64 + x.ceil() as u32;
        let h = std::f64::consts::PI / f64::from(n);
        // The integrand is 1 at both ends; trapezoid: half of each end plus the interior nodes.
        let interior: f64 = (1..n).map(|k| (x * (f64::from(k) * h).sin()).cos()).sum();
        (1.0 + interior) / f64::from(n)
    } else {
        let w = x - std::f64::consts::FRAC_PI_4;
        (2.0 / (std::f64::consts::PI * x)).sqrt()
            * (w.cos() * (1.0 - 9.0 / (128.0 * x * x)) + w.sin() / (8.0 * x))
    }
}

/// Maximum Doppler shift `f_d = v·f_c / c` of a terminal moving at `speed_mps` (m/s) on carrier
/// `carrier_hz` (Hz), hertz.
pub fn doppler_hz(speed_mps: f64, carrier_hz: f64) -> f64 {
    speed_mps * carrier_hz / SPEED_OF_LIGHT_MPS
}

/// Rayleigh fading process of one link, sampled at a fixed interval.
#[derive(Clone, Debug, PartialEq)]
pub struct RayleighFading {
    carrier_hz: f64,
    /// Sample interval Δt, seconds.
    interval_s: f64,
    doppler_hz: f64,
    /// J0(2π f_d Δt), cached for the common one-sample step.
    rho: f64,
    /// Current coefficient (real, imaginary); `None` before the first sample.
    h: Option<(f64, f64)>,
}

impl RayleighFading {
    /// Fading of a UE moving at `speed_mps` (m/s, 0..=200) on `carrier_hz` (Hz, > 0), sampled
    /// every `interval_ns` nanoseconds (normally one TTI, 1 ms).
    pub fn new(speed_mps: f64, carrier_hz: f64, interval_ns: u64) -> Result<Self, ChannelError> {
        let carrier_hz =
            ChannelError::check_positive("carrier_hz", carrier_hz, "a positive frequency in Hz")?;
        if interval_ns == 0 {
            return Err(ChannelError::OutOfRange {
                param: "interval_ns",
                value: 0.0,
                expected: "a positive sample interval in ns",
            });
        }
        let mut f = RayleighFading {
            carrier_hz,
            interval_s: interval_ns as f64 * 1e-9,
            doppler_hz: 0.0,
            rho: 1.0,
            h: None,
        };
        f.set_speed(speed_mps)?;
        Ok(f)
    }

    /// Changes the UE speed (m/s, 0..=200); the coefficient carries over.
    pub fn set_speed(&mut self, speed_mps: f64) -> Result<(), ChannelError> {
        let speed_mps = ChannelError::check(
            "speed_mps",
            speed_mps,
            0.0,
            200.0,
            "a speed in [0, 200] m/s",
        )?;
        self.doppler_hz = doppler_hz(speed_mps, self.carrier_hz);
        self.rho = self.correlation_after(1);
        Ok(())
    }

    /// Maximum Doppler shift, hertz.
    pub fn doppler_hz(&self) -> f64 {
        self.doppler_hz
    }

    /// Correlation of successive samples, J0(2π f_d Δt).
    pub fn correlation(&self) -> f64 {
        self.rho
    }

    fn correlation_after(&self, samples: u64) -> f64 {
        bessel_j0(std::f64::consts::TAU * self.doppler_hz * self.interval_s * samples as f64)
    }

    /// Advances one interval and returns the power gain |h|² (linear, mean 1).
    pub fn next_power_gain(&mut self, rng: &mut RngStream) -> f64 {
        let rho = self.rho;
        self.step(rho, rng)
    }

    /// Advances one interval and returns the power gain in dB (mean of the linear gain: 0 dB).
    pub fn next_gain_db(&mut self, rng: &mut RngStream) -> f64 {
        10.0 * self.next_power_gain(rng).log10()
    }

    /// Advances `samples` intervals at once (for example over idle TTIs) with the exact
    /// correlation J0(2π f_d·samples·Δt) across the gap, and returns the new power gain
    /// (linear). `samples` = 0 returns the current gain without drawing.
    pub fn advance(&mut self, samples: u64, rng: &mut RngStream) -> f64 {
        match (samples, self.h) {
            (0, Some((re, im))) => (re * re + im * im).max(MIN_POWER_GAIN),
            (1, _) => self.next_power_gain(rng),
            _ => {
                let rho = self.correlation_after(samples.max(1));
                self.step(rho, rng)
            }
        }
    }

    fn step(&mut self, rho: f64, rng: &mut RngStream) -> f64 {
        // CN(0, 1): real and imaginary parts each N(0, 1/2).
        let s = std::f64::consts::FRAC_1_SQRT_2;
        let (w_re, w_im) = (rng.normal(0.0, s), rng.normal(0.0, s));
        let (re, im) = match self.h {
            None => (w_re, w_im),
            Some((re, im)) => {
                let innovation = (1.0 - rho * rho).max(0.0).sqrt();
                (rho * re + innovation * w_re, rho * im + innovation * w_im)
            }
        };
        self.h = Some((re, im));
        (re * re + im * im).max(MIN_POWER_GAIN)
    }

    /// Current complex coefficient (real, imaginary); `None` before the first sample.
    pub fn coefficient(&self) -> Option<(f64, f64)> {
        self.h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::TTI_NS;

    #[test]
    fn bessel_j0_reference_values() {
        // Values from tables of J0 (DLMF / Abramowitz & Stegun Table 9.1).
        assert_eq!(bessel_j0(0.0), 1.0);
        assert!((bessel_j0(1.0) - 0.765_197_686_557_966_6).abs() < 1e-14);
        assert!((bessel_j0(-1.0) - 0.765_197_686_557_966_6).abs() < 1e-14);
        assert!((bessel_j0(5.0) - (-0.177_596_771_314_338_3)).abs() < 1e-14);
        assert!(bessel_j0(2.404_825_557_695_773).abs() < 1e-14, "first zero");
        assert!((bessel_j0(100.0) - 0.019_985_850_304_223_12).abs() < 1e-12);
        // Asymptotic branch against the same value computed by the integral just below it.
        assert!((bessel_j0(100.000_001) - bessel_j0(100.0)).abs() < 1e-7);
        assert!((bessel_j0(1000.0) - 0.024_786_686_152_420_17).abs() < 1e-9);
        assert_eq!(bessel_j0(f64::INFINITY), 0.0);
    }

    #[test]
    fn doppler_from_speed_and_carrier() {
        // 30 km/h at 2 GHz: (30/3.6)·2e9/299792458 = 55.594 Hz.
        assert!((doppler_hz(30.0 / 3.6, 2e9) - 55.594_015_866).abs() < 1e-6);
        let f = RayleighFading::new(30.0 / 3.6, 2e9, TTI_NS).unwrap();
        // J0(2π·55.594·0.001) = 0.969728.
        assert!((f.correlation() - 0.969_727_902_5).abs() < 1e-9);
    }

    #[test]
    fn mean_power_is_one_and_lag_one_correlation_is_j0() {
        let mut f = RayleighFading::new(30.0 / 3.6, 2e9, TTI_NS).unwrap();
        let mut rng = RngStream::new(21, 0, "cell/0/ue/0/fading");
        let n = 400_000;
        let mut sum_p = 0.0;
        let mut sum_db = 0.0;
        let mut corr = 0.0;
        let mut prev: Option<(f64, f64)> = None;
        for _ in 0..n {
            let p = f.next_power_gain(&mut rng);
            sum_p += p;
            sum_db += 10.0 * p.log10();
            let h = f.coefficient().unwrap();
            if let Some(q) = prev {
                corr += q.0 * h.0 + q.1 * h.1; // Re(h_(k−1) · conj(h_k))
            }
            prev = Some(h);
        }
        let mean_p = sum_p / n as f64;
        assert!((mean_p - 1.0).abs() < 0.03, "mean power {mean_p}");
        // The dB mean of an exponential variable is −10·γ/ln 10 = −2.507 dB.
        let mean_db = sum_db / n as f64;
        assert!((mean_db - (-2.507)).abs() < 0.15, "mean dB {mean_db}");
        let r1 = corr / (n - 1) as f64;
        assert!(
            (r1 - f.correlation()).abs() < 0.02,
            "lag-1 {r1} vs J0 {}",
            f.correlation()
        );
    }

    #[test]
    fn power_is_exponentially_distributed() {
        // Rayleigh amplitude: P(|h|² > x) = e^−x.
        let mut f = RayleighFading::new(120.0 / 3.6, 2e9, TTI_NS).unwrap();
        let mut rng = RngStream::new(22, 0, "fading/marginal");
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| f.next_power_gain(&mut rng)).collect();
        for x in [0.1, 1.0, 3.0] {
            let tail = xs.iter().filter(|&&p| p > x).count() as f64 / n as f64;
            assert!((tail - (-x).exp()).abs() < 0.01, "P(>{x}) = {tail}");
        }
    }

    #[test]
    fn gaps_use_the_correlation_across_the_gap() {
        let mut rng = RngStream::new(23, 0, "fading/gap");
        let n = 100_000;
        let mut corr = 0.0;
        let mut f = RayleighFading::new(3.0, 2e9, TTI_NS).unwrap();
        for _ in 0..n {
            f.next_power_gain(&mut rng);
            let a = f.coefficient().unwrap();
            f.advance(10, &mut rng);
            let b = f.coefficient().unwrap();
            corr += a.0 * b.0 + a.1 * b.1;
        }
        let expected = bessel_j0(std::f64::consts::TAU * f.doppler_hz() * 0.010);
        assert!(
            (corr / n as f64 - expected).abs() < 0.02,
            "{} vs {expected}",
            corr / n as f64
        );
        let before = f.coefficient();
        let g = f.advance(0, &mut rng);
        assert_eq!(f.coefficient(), before);
        let (re, im) = before.unwrap();
        assert_eq!(g, (re * re + im * im).max(MIN_POWER_GAIN));
    }

    #[test]
    fn static_ue_keeps_its_first_draw_and_parameters_are_checked() {
        let mut f = RayleighFading::new(0.0, 2e9, TTI_NS).unwrap();
        let mut rng = RngStream::new(24, 0, "fading/static");
        let first = f.next_power_gain(&mut rng);
        assert_eq!(f.correlation(), 1.0);
        assert_eq!(f.next_power_gain(&mut rng), first);
        assert!(RayleighFading::new(-1.0, 2e9, TTI_NS).is_err());
        assert!(RayleighFading::new(10.0, 0.0, TTI_NS).is_err());
        assert!(RayleighFading::new(10.0, 2e9, 0).is_err());
        assert!(f.set_speed(f64::NAN).is_err());
        assert!(f.set_speed(20.0).is_ok() && f.correlation() < 1.0);
    }
}
