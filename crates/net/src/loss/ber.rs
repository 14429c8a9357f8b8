//! Loss from independent bit errors: a packet is lost when any of its bits is corrupted (the
//! receiver's checksum then discards it), so longer packets are lost more often.

use celltcp_engine::{RngStream, SimTime};

use super::{LossModel, ParamError};

/// Independent bit errors at rate `ber`: a packet of L bytes is lost with probability
/// 1 − (1 − ber)^(8L).
#[derive(Clone, Debug, PartialEq)]
pub struct BitErrorRate {
    ber: f64,
    /// ln(1 − ber), computed once with `ln_1p` so that tiny rates keep their precision.
    ln_survival_per_bit: f64,
    /// The last (size in bytes, loss probability) computed: a link direction mostly carries
    /// packets of one or two sizes, so this saves the `exp_m1` on most packets.
    last: Option<(u32, f64)>,
}

impl BitErrorRate {
    /// `ber`: probability that a bit is corrupted, in [0, 1].
    pub fn new(ber: f64) -> Result<Self, ParamError> {
        let ber = ParamError::check_probability("ber.ber", ber)?;
        Ok(BitErrorRate {
            ber,
            ln_survival_per_bit: (-ber).ln_1p(),
            last: None,
        })
    }

    /// Bit error rate.
    pub fn ber(&self) -> f64 {
        self.ber
    }

    /// Probability that a packet of `size_bytes` bytes is lost: 1 − (1 − ber)^(8·size), computed
    /// as −expm1(8·size·ln1p(−ber)), which keeps full relative precision when ber·8·size is tiny
    /// (the direct form would round 1 − ber to 1 for ber below 1e-16).
    pub fn packet_loss_probability(&self, size_bytes: u32) -> f64 {
        let bits = 8.0 * size_bytes as f64;
        if bits == 0.0 {
            // No bit can be corrupted (and 0·ln(0) would be NaN when ber = 1).
            return 0.0;
        }
        -(bits * self.ln_survival_per_bit).exp_m1()
    }
}

impl LossModel for BitErrorRate {
    fn is_lost(&mut self, size_bytes: u32, _now: SimTime, rng: &mut RngStream) -> bool {
        let p = match self.last {
            Some((size, p)) if size == size_bytes => p,
            _ => {
                let p = self.packet_loss_probability(size_bytes);
                self.last = Some((size_bytes, p));
                p
            }
        };
        rng.bernoulli(p)
    }

    fn kind(&self) -> &'static str {
        "ber"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probability_follows_the_formula() {
        let m = BitErrorRate::new(1e-4).unwrap();
        for size in [1u32, 40, 576, 1500, 9000] {
            let direct = 1.0 - (1.0 - 1e-4f64).powf(8.0 * size as f64);
            let p = m.packet_loss_probability(size);
            assert!(
                (p - direct).abs() < 1e-12 * direct.max(1e-300),
                "{size}: {p} vs {direct}"
            );
        }
        assert_eq!(m.packet_loss_probability(0), 0.0);
        assert_eq!(
            BitErrorRate::new(0.0)
                .unwrap()
                .packet_loss_probability(1500),
            0.0
        );
        assert_eq!(
            BitErrorRate::new(1.0).unwrap().packet_loss_probability(1),
            1.0
        );
        assert_eq!(
            BitErrorRate::new(1.0).unwrap().packet_loss_probability(0),
            0.0
        );
    }

    #[test]
    fn tiny_rates_keep_their_precision() {
        // 12000 bits: p = 8L·ber − (8L·ber)²/2 + …. The direct form is off by 0.08% at
        // ber 1e-15 and 11% at 1e-16 (1 − ber rounds to a multiple of 2^-53), and gives 0 for
        // ber below about 5.5e-17.
        for ber in [1e-15, 1e-18, 1e-300] {
            let n = 12_000.0 * ber;
            let series = n - n * n / 2.0;
            let p = BitErrorRate::new(ber)
                .unwrap()
                .packet_loss_probability(1500);
            assert!(
                ((p - series) / series).abs() < 1e-12,
                "ber {ber}: {p} vs {series}"
            );
        }
    }

    #[test]
    fn empirical_rate_matches_the_formula_per_size() {
        let mut rng = RngStream::new(1, 0, "test/loss/ber");
        let mut m = BitErrorRate::new(1e-5).unwrap();
        let n = 200_000;
        // Alternate sizes, so that the per-size cache is refreshed on every packet.
        let (mut lost_big, mut lost_small) = (0usize, 0usize);
        for _ in 0..n {
            lost_big += m.is_lost(1500, SimTime::ZERO, &mut rng) as usize;
            lost_small += m.is_lost(40, SimTime::ZERO, &mut rng) as usize;
        }
        for (size, lost) in [(1500u32, lost_big), (40, lost_small)] {
            let p = 1.0 - (1.0 - 1e-5f64).powf(8.0 * size as f64);
            let rate = lost as f64 / n as f64;
            // Five binomial standard errors.
            let se = (p * (1.0 - p) / n as f64).sqrt();
            assert!(
                (rate - p).abs() < 5.0 * se,
                "{size} B: measured {rate}, expected {p}"
            );
        }
        assert_eq!(m.kind(), "ber");
    }

    #[test]
    fn out_of_range_rates_are_rejected() {
        for ber in [-1e-9, 1.5, f64::NAN] {
            assert!(
                matches!(
                    BitErrorRate::new(ber),
                    Err(ParamError::NotProbability {
                        param: "ber.ber",
                        ..
                    })
                ),
                "{ber}"
            );
        }
    }
}
