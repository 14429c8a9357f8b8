//! Loss models of a link direction (`loss = { kind = …, … }`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize, Serializer};

use super::KindTagged;
use crate::error::join_key;
use crate::validate::unit_interval;
use crate::ScenarioError;

/// A loss model: a table tagged by `kind` (bernoulli, ber, gilbert_elliott).
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(tag = "kind")]
pub enum LossFile {
    /// Independent loss with a fixed probability per packet.
    Bernoulli(BernoulliFile),
    /// Independent bit errors: a packet of L bytes is lost with probability 1 − (1 − ber)^(8L).
    Ber(BerFile),
    /// Two-state Markov chain (Gilbert–Elliott), advanced once per packet.
    GilbertElliott(GilbertElliottFile),
}

impl Serialize for LossFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            LossFile::Bernoulli(body) => KindTagged {
                kind: "bernoulli",
                body,
            }
            .serialize(s),
            LossFile::Ber(body) => KindTagged { kind: "ber", body }.serialize(s),
            LossFile::GilbertElliott(body) => KindTagged {
                kind: "gilbert_elliott",
                body,
            }
            .serialize(s),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BernoulliFile {
    /// Loss probability per packet, in [0, 1].
    #[schemars(range(min = 0.0, max = 1.0))]
    pub p: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BerFile {
    /// Bit error rate, in [0, 1].
    #[schemars(range(min = 0.0, max = 1.0))]
    pub ber: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GilbertElliottFile {
    /// Per-packet probability of moving from the good to the bad state, in [0, 1].
    #[schemars(range(min = 0.0, max = 1.0))]
    pub p_good_to_bad: f64,
    /// Per-packet probability of moving from the bad to the good state, in [0, 1].
    #[schemars(range(min = 0.0, max = 1.0))]
    pub p_bad_to_good: f64,
    /// Loss probability in the good state, in [0, 1].
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub loss_good: f64,
    /// Loss probability in the bad state, in [0, 1].
    #[serde(default = "one")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub loss_bad: f64,
}

fn one() -> f64 {
    1.0
}

/// A loss model, validated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LossSpec {
    /// Loss probability `p` per packet.
    Bernoulli { p: f64 },
    /// Bit error rate `ber`.
    Ber { ber: f64 },
    /// Per-packet transition probabilities and per-state loss probabilities.
    GilbertElliott {
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        loss_good: f64,
        loss_bad: f64,
    },
}

impl LossSpec {
    /// Short name as in the file: "bernoulli", "ber", "gilbert_elliott".
    pub fn kind(&self) -> &'static str {
        match self {
            LossSpec::Bernoulli { .. } => "bernoulli",
            LossSpec::Ber { .. } => "ber",
            LossSpec::GilbertElliott { .. } => "gilbert_elliott",
        }
    }
}

impl LossFile {
    /// Converts the loss model at dotted key `key` (`links.access.loss`).
    pub(crate) fn convert(&self, key: &str) -> Result<LossSpec, ScenarioError> {
        let k = |field: &str| join_key(key, field);
        Ok(match self {
            LossFile::Bernoulli(l) => {
                unit_interval(&k("p"), l.p)?;
                LossSpec::Bernoulli { p: l.p }
            }
            LossFile::Ber(l) => {
                unit_interval(&k("ber"), l.ber)?;
                LossSpec::Ber { ber: l.ber }
            }
            LossFile::GilbertElliott(l) => {
                unit_interval(&k("p_good_to_bad"), l.p_good_to_bad)?;
                unit_interval(&k("p_bad_to_good"), l.p_bad_to_good)?;
                unit_interval(&k("loss_good"), l.loss_good)?;
                unit_interval(&k("loss_bad"), l.loss_bad)?;
                LossSpec::GilbertElliott {
                    p_good_to_bad: l.p_good_to_bad,
                    p_bad_to_good: l.p_bad_to_good,
                    loss_good: l.loss_good,
                    loss_bad: l.loss_bad,
                }
            }
        })
    }
}
