//! One of the loss models of this module as a plain value, for configurations that hold a loss
//! model and must stay `Clone` and comparable (an LTE cell's per-UE downlink errors, for
//! example), where a `Box<dyn LossModel>` would be neither.

use celltcp_engine::{RngStream, SimTime};

use super::{Bernoulli, BitErrorRate, GeConfig, GilbertElliott, LossModel, ParamError};

/// Any loss model of this module. It behaves exactly as the model it holds: [`LossModel`] is
/// implemented by dispatch, so the draws per packet are those of the model itself.
#[derive(Clone, Debug, PartialEq)]
pub enum AnyLossModel {
    Bernoulli(Bernoulli),
    Ber(BitErrorRate),
    GilbertElliott(GilbertElliott),
}

impl AnyLossModel {
    /// Independent losses with probability `p` per packet, in [0, 1].
    pub fn bernoulli(p: f64) -> Result<Self, ParamError> {
        Bernoulli::new(p).map(AnyLossModel::Bernoulli)
    }

    /// Independent bit errors at rate `ber` (a packet of L bytes lost with probability
    /// 1 − (1 − ber)^(8L)), `ber` in [0, 1].
    pub fn ber(ber: f64) -> Result<Self, ParamError> {
        BitErrorRate::new(ber).map(AnyLossModel::Ber)
    }

    /// The Gilbert–Elliott chain of `cfg`, starting in Good.
    pub fn gilbert_elliott(cfg: GeConfig) -> Result<Self, ParamError> {
        GilbertElliott::new(cfg).map(AnyLossModel::GilbertElliott)
    }

    /// The model held, as the trait object the links use.
    pub fn as_model_mut(&mut self) -> &mut dyn LossModel {
        match self {
            AnyLossModel::Bernoulli(m) => m,
            AnyLossModel::Ber(m) => m,
            AnyLossModel::GilbertElliott(m) => m,
        }
    }
}

impl From<Bernoulli> for AnyLossModel {
    fn from(m: Bernoulli) -> Self {
        AnyLossModel::Bernoulli(m)
    }
}

impl From<BitErrorRate> for AnyLossModel {
    fn from(m: BitErrorRate) -> Self {
        AnyLossModel::Ber(m)
    }
}

impl From<GilbertElliott> for AnyLossModel {
    fn from(m: GilbertElliott) -> Self {
        AnyLossModel::GilbertElliott(m)
    }
}

impl LossModel for AnyLossModel {
    fn is_lost(&mut self, size_bytes: u32, now: SimTime, rng: &mut RngStream) -> bool {
        self.as_model_mut().is_lost(size_bytes, now, rng)
    }

    fn kind(&self) -> &'static str {
        match self {
            AnyLossModel::Bernoulli(m) => m.kind(),
            AnyLossModel::Ber(m) => m.kind(),
            AnyLossModel::GilbertElliott(m) => m.kind(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decisions of `a` and `b` on the same sizes from two copies of one stream.
    fn same_decisions(mut a: impl LossModel, mut b: impl LossModel) {
        let mut ra = RngStream::new(7, 0, "test/loss/any");
        let mut rb = RngStream::new(7, 0, "test/loss/any");
        for i in 0..20_000u32 {
            let size = if i % 3 == 0 { 40 } else { 1500 };
            assert_eq!(
                a.is_lost(size, SimTime::ZERO, &mut ra),
                b.is_lost(size, SimTime::ZERO, &mut rb),
                "packet {i}"
            );
        }
        // Both consumed the same number of draws.
        assert_eq!(ra.next_u64(), rb.next_u64());
    }

    #[test]
    fn dispatch_draws_exactly_as_the_model_held() {
        same_decisions(
            AnyLossModel::bernoulli(0.1).unwrap(),
            Bernoulli::new(0.1).unwrap(),
        );
        same_decisions(
            AnyLossModel::ber(2e-5).unwrap(),
            BitErrorRate::new(2e-5).unwrap(),
        );
        let ge = GeConfig {
            p_good_to_bad: 0.02,
            p_bad_to_good: 0.2,
            loss_good: 0.001,
            loss_bad: 0.6,
        };
        same_decisions(
            AnyLossModel::gilbert_elliott(ge).unwrap(),
            GilbertElliott::new(ge).unwrap(),
        );
    }

    #[test]
    fn kinds_clones_and_errors() {
        let ge = GeConfig {
            p_good_to_bad: 0.5,
            p_bad_to_good: 0.5,
            loss_good: 0.0,
            loss_bad: 1.0,
        };
        let models = [
            AnyLossModel::bernoulli(0.5).unwrap(),
            AnyLossModel::ber(1e-6).unwrap(),
            AnyLossModel::gilbert_elliott(ge).unwrap(),
        ];
        let kinds: Vec<&str> = models.iter().map(LossModel::kind).collect();
        assert_eq!(kinds, ["bernoulli", "ber", "gilbert_elliott"]);
        // A clone compares equal, and advancing one (the chain's state) makes them differ.
        let mut moved = models[2].clone();
        assert_eq!(moved, models[2]);
        let mut rng = RngStream::new(1, 0, "test/loss/any");
        while !moved.is_lost(100, SimTime::ZERO, &mut rng) {}
        assert_ne!(moved, models[2]);
        assert_eq!(
            AnyLossModel::bernoulli(1.5),
            Err(ParamError::NotProbability {
                param: "bernoulli.p",
                value: 1.5
            })
        );
        assert!(AnyLossModel::ber(f64::NAN).is_err());
        assert_eq!(AnyLossModel::from(Bernoulli::new(0.5).unwrap()), models[0]);
    }
}
