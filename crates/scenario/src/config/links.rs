//! `[links.NAME]`: full-duplex point-to-point links and their per-direction settings.

use std::collections::BTreeMap;

use celltcp_engine::SimDuration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::loss::{LossFile, LossSpec};
use super::nodes::Node;
use super::quantity::{Quantity, Rate, Time};
use super::queue::{default_queue, QueueFile, QueueSpec};
use crate::error::join_key;
use crate::validate::{check_name, node_ref};
use crate::ScenarioError;

/// `[links.NAME]`: a full-duplex point-to-point link. Link-level `rate`, `delay`, `queue` and `loss` apply to both
/// directions unless `a_to_b` or `b_to_a` override them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkFile {
    /// One end (an existing node).
    pub a: String,
    /// The other end (an existing node other than a).
    pub b: String,
    /// Transmission rate of both directions (a rate, > 0); required unless both a_to_b and
    /// b_to_a give one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Quantity<Rate>>,
    /// Propagation delay (a time, ≥ 0).
    #[serde(default = "zero_delay")]
    pub delay: Quantity<Time>,
    /// Routing cost; routes minimise the sum of metrics (integer ≥ 1).
    #[serde(default = "one")]
    #[schemars(range(min = 1))]
    pub metric: u32,
    /// Queue discipline at the sender of each direction.
    #[serde(default = "default_queue")]
    pub queue: QueueFile,
    /// Loss model of each direction; none by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossFile>,
    /// Overrides for the direction from a to b.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a_to_b: Option<DirectionFile>,
    /// Overrides for the direction from b to a.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b_to_a: Option<DirectionFile>,
}

fn zero_delay() -> Quantity<Time> {
    Quantity::default_of("0ms")
}
fn one() -> u32 {
    1
}

/// `a_to_b` / `b_to_a`: settings of one direction; each key given replaces the link-level one.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DirectionFile {
    /// Transmission rate of this direction (a rate, > 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Quantity<Rate>>,
    /// Propagation delay of this direction (a time, ≥ 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Quantity<Time>>,
    /// Queue discipline of this direction (replaces the link-level queue as a whole).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueFile>,
    /// Loss model of this direction (replaces the link-level loss model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossFile>,
}

/// A full-duplex link between nodes `a` and `b`.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub a: String,
    pub b: String,
    /// Routing cost (≥ 1).
    pub metric: u32,
    pub a_to_b: LinkDirection,
    pub b_to_a: LinkDirection,
}

impl Link {
    /// The node at the other end from `node`, if `node` is an end of this link.
    pub fn other_end(&self, node: &str) -> Option<&str> {
        if self.a == node {
            Some(&self.b)
        } else if self.b == node {
            Some(&self.a)
        } else {
            None
        }
    }
}

/// One direction of a link.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkDirection {
    /// Transmission rate, bits per second (> 0).
    pub rate_bps: u64,
    /// Propagation delay, nanoseconds.
    pub delay: SimDuration,
    /// Queue discipline at the sending end.
    pub queue: QueueSpec,
    pub loss: Option<LossSpec>,
}

impl LinkFile {
    /// Converts link `name`; its ends must be nodes of `nodes`.
    pub(crate) fn convert(
        &self,
        name: &str,
        nodes: &BTreeMap<String, Node>,
    ) -> Result<Link, ScenarioError> {
        check_name("links", name)?;
        let key = join_key("links", name);
        node_ref(&join_key(&key, "a"), &self.a, nodes)?;
        node_ref(&join_key(&key, "b"), &self.b, nodes)?;
        if self.a == self.b {
            return Err(ScenarioError::new(
                join_key(&key, "b"),
                format!(
                    "both ends are '{}'; a link joins two different nodes",
                    self.b
                ),
            ));
        }
        if self.metric == 0 {
            return Err(ScenarioError::new(
                join_key(&key, "metric"),
                "0 is not allowed; expected an integer ≥ 1",
            ));
        }
        let a_to_b = self.direction(
            &key,
            "a_to_b",
            "b_to_a",
            self.a_to_b.as_ref(),
            self.b_to_a.as_ref(),
        )?;
        let b_to_a = self.direction(
            &key,
            "b_to_a",
            "a_to_b",
            self.b_to_a.as_ref(),
            self.a_to_b.as_ref(),
        )?;
        Ok(Link {
            a: self.a.clone(),
            b: self.b.clone(),
            metric: self.metric,
            a_to_b,
            b_to_a,
        })
    }

    /// Resolves one direction: its own settings first, then the link's.
    fn direction(
        &self,
        key: &str,
        dir: &str,
        other: &str,
        own: Option<&DirectionFile>,
        reverse: Option<&DirectionFile>,
    ) -> Result<LinkDirection, ScenarioError> {
        let dir_key = join_key(key, dir);
        let own_rate = own.and_then(|d| d.rate.as_ref());
        let (rate, rate_key) = match (own_rate, &self.rate) {
            (Some(r), _) => (r, join_key(&dir_key, "rate")),
            (None, Some(r)) => (r, join_key(key, "rate")),
            (None, None) => {
                let reverse_has_rate = reverse.is_some_and(|d| d.rate.is_some());
                let message = if reverse_has_rate {
                    format!("required key is missing ({other} has a rate but {dir} does not)")
                } else {
                    "required key is missing".to_owned()
                };
                return Err(ScenarioError::new(join_key(key, "rate"), message));
            }
        };
        if rate.value == 0 {
            return Err(ScenarioError::new(
                rate_key,
                format!("'{rate}' must be > 0"),
            ));
        }
        let delay = own.and_then(|d| d.delay.as_ref()).unwrap_or(&self.delay);
        let queue = match own.and_then(|d| d.queue.as_ref()) {
            Some(q) => q.convert(&join_key(&dir_key, "queue"))?,
            None => self.queue.convert(&join_key(key, "queue"))?,
        };
        let loss = match (own.and_then(|d| d.loss.as_ref()), &self.loss) {
            (Some(l), _) => Some(l.convert(&join_key(&dir_key, "loss"))?),
            (None, Some(l)) => Some(l.convert(&join_key(key, "loss"))?),
            (None, None) => None,
        };
        Ok(LinkDirection {
            rate_bps: rate.value,
            delay: delay.value,
            queue,
            loss,
        })
    }
}
