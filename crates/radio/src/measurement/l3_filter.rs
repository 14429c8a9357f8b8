//! Layer-3 filtering of measurements, TS 36.331 §5.5.3.2:
//!
//! ```text
//! F_n = (1 − a)·F_(n−1) + a·M_n,    a = 1/2^(k/4),    F_1 = M_1 (the first result)
//! ```
//!
//! applied in the logarithmic domain (RSRP in dBm, RSRQ in dB). k is the filterCoefficient
//! (`quantityConfig`, default fc4, i.e. a = 1/2). The clause notes that k assumes one sample
//! every 200 ms and that the UE adapts the filter to keep its time characteristics at other
//! input rates; [`L3Filter::with_sample_period`] does that adaptation.

use celltcp_engine::SimDuration;

use super::MeasurementError;

/// The input sample period the filterCoefficient is specified for (36.331 §5.5.3.2 NOTE 2).
pub const L3_FILTER_SAMPLE_PERIOD: SimDuration = SimDuration::from_ms(200);

/// First-order IIR filter of one measured quantity (dB or dBm).
#[derive(Clone, Debug, PartialEq)]
pub struct L3Filter {
    k: u8,
    /// Weight of the newest sample, in (0, 1].
    a: f64,
    value: Option<f64>,
}

impl L3Filter {
    /// The filter with filterCoefficient `k` ∈ 0..=19 (k = 0: no filtering), for one sample
    /// per 200 ms. The ASN.1 FilterCoefficient lists fc0–fc9, fc11, fc13, fc15, fc17, fc19;
    /// the even values above 9 are accepted too since the formula is defined for them.
    pub fn new(k: u8) -> Result<Self, MeasurementError> {
        if k > 19 {
            return Err(MeasurementError::invalid(
                "filter_k",
                k.to_string(),
                "a filterCoefficient in 0..=19 (TS 36.331 FilterCoefficient, default 4)",
            ));
        }
        Ok(L3Filter {
            k,
            a: 0.5f64.powf(k as f64 / 4.0),
            value: None,
        })
    }

    /// The filter with coefficient `k` adapted to one sample per `sample_period` so that its
    /// time constant is that of `k` at 200 ms: a' = 1 − (1 − a)^(period / 200 ms)
    /// (36.331 §5.5.3.2 NOTE 2). A zero period is rejected.
    pub fn with_sample_period(k: u8, sample_period: SimDuration) -> Result<Self, MeasurementError> {
        let mut filter = L3Filter::new(k)?;
        if sample_period == SimDuration::ZERO {
            return Err(MeasurementError::invalid(
                "period",
                "0 ms",
                "a measurement period > 0",
            ));
        }
        let ratio = sample_period.as_ns() as f64 / L3_FILTER_SAMPLE_PERIOD.as_ns() as f64;
        filter.a = 1.0 - (1.0 - filter.a).powf(ratio);
        Ok(filter)
    }

    /// The filterCoefficient k.
    pub fn k(&self) -> u8 {
        self.k
    }

    /// The weight a of the newest sample.
    pub fn a(&self) -> f64 {
        self.a
    }

    /// Filters measurement `m` (dB or dBm) and returns the new filtered value. The first sample
    /// after construction or [`reset`](Self::reset) is taken as is (F_1 = M_1). A non-finite
    /// sample (no measurement) leaves the filter unchanged and returns its current value, NaN
    /// if it has none yet.
    pub fn update(&mut self, m: f64) -> f64 {
        if !m.is_finite() {
            return self.value.unwrap_or(f64::NAN);
        }
        let f = match self.value {
            None => m,
            Some(previous) => (1.0 - self.a) * previous + self.a * m,
        };
        self.value = Some(f);
        f
    }

    /// The filtered value, `None` before the first sample.
    pub fn value(&self) -> Option<f64> {
        self.value
    }

    /// Forgets the history: the next sample restarts the filter.
    pub fn reset(&mut self) {
        self.value = None;
    }
}

impl Default for L3Filter {
    /// fc4 (a = 1/2), the default of quantityConfig in TS 36.331 §6.3.5.
    fn default() -> Self {
        L3Filter {
            k: 4,
            a: 0.5,
            value: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_is_two_to_the_minus_k_over_four() {
        assert_eq!(L3Filter::new(0).unwrap().a(), 1.0);
        assert_eq!(L3Filter::new(4).unwrap().a(), 0.5);
        assert_eq!(L3Filter::new(8).unwrap().a(), 0.25);
        assert!((L3Filter::new(19).unwrap().a() - 2f64.powf(-4.75)).abs() < 1e-15);
        assert_eq!(L3Filter::default(), L3Filter::new(4).unwrap());
    }

    #[test]
    fn step_response_with_k4() {
        // F_1 = M_1, then each sample halves the remaining distance to the step.
        let mut f = L3Filter::new(4).unwrap();
        assert_eq!(f.value(), None);
        assert_eq!(f.update(-100.0), -100.0);
        for n in 1..=10 {
            let expected = -80.0 - 20.0 * 0.5f64.powi(n);
            assert!((f.update(-80.0) - expected).abs() < 1e-12, "sample {n}");
        }
        assert!((f.value().unwrap() + 80.0).abs() < 0.02);
    }

    #[test]
    fn k0_follows_the_input() {
        let mut f = L3Filter::new(0).unwrap();
        f.update(-90.0);
        assert_eq!(f.update(-70.0), -70.0);
    }

    #[test]
    fn non_finite_samples_are_skipped_and_reset_restarts() {
        let mut f = L3Filter::new(4).unwrap();
        assert!(f.update(f64::NEG_INFINITY).is_nan());
        assert_eq!(f.value(), None);
        f.update(-90.0);
        assert_eq!(f.update(f64::NAN), -90.0);
        f.reset();
        assert_eq!(f.value(), None);
        assert_eq!(f.update(-60.0), -60.0);
    }

    #[test]
    fn rejects_k_above_19() {
        assert_eq!(
            L3Filter::new(20).unwrap_err().to_string(),
            "filter_k: 20 is not allowed; expected a filterCoefficient in 0..=19 \
             (TS 36.331 FilterCoefficient, default 4)"
        );
    }

    #[test]
    fn adapted_filter_keeps_the_time_constant() {
        // Five 40 ms samples of the adapted fc4 filter move as far as one 200 ms sample of fc4.
        let mut fast = L3Filter::with_sample_period(4, SimDuration::from_ms(40)).unwrap();
        assert!((fast.a() - (1.0 - 0.5f64.powf(0.2))).abs() < 1e-15);
        fast.update(-100.0);
        let mut v = 0.0;
        for _ in 0..5 {
            v = fast.update(-80.0);
        }
        assert!((v + 90.0).abs() < 1e-9, "{v}");
        let same = L3Filter::with_sample_period(4, L3_FILTER_SAMPLE_PERIOD).unwrap();
        assert!((same.a() - 0.5).abs() < 1e-15);
        assert!(L3Filter::with_sample_period(4, SimDuration::ZERO).is_err());
    }
}
