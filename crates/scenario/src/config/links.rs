//! `[links.NAME]`: full-duplex point-to-point links and their per-direction settings.
//!
//! A direction is served either at a fixed `rate` or at the delivery opportunities of a
//! Mahimahi trace file (`trace`, per direction only): see `docs/trace-links.md`. Trace files are
//! read and checked when the scenario is loaded, so a corrupt file is a scenario error naming
//! the key and the line, before anything runs.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use celltcp_engine::SimDuration;
use celltcp_net::trace_file::DeliveryTrace;
use celltcp_net::trace_service::TraceAccounting;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
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
    /// b_to_a give a rate or a trace.
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
    /// Mahimahi delivery trace serving this direction instead of a rate: a file path, relative
    /// to the scenario file (to the current directory for scenarios loaded from text). Each line
    /// is a millisecond timestamp at which an MTU-sized packet may leave; the trace repeats when
    /// it ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// How the trace charges packets (only with `trace`): "bytes" (default; Mahimahi's mm-link:
    /// 1504 bytes per opportunity, each packet counting its IP bytes plus 4, small packets
    /// sharing an opportunity) or "packets" (one whole opportunity per started 1500 bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "accounting_schema")]
    pub accounting: Option<String>,
}

fn accounting_schema(_generator: &mut SchemaGenerator) -> Schema {
    let names: Vec<&str> = TraceAccounting::ALL.iter().map(|a| a.as_str()).collect();
    json_schema!({ "type": "string", "enum": names })
}

impl DirectionFile {
    /// A trace-driven direction shows its accounting in the echo, also when left to the
    /// default.
    fn fill_accounting(&mut self) {
        if self.trace.is_some() && self.accounting.is_none() {
            self.accounting = Some(TraceAccounting::default().as_str().to_owned());
        }
    }

    /// Makes a relative `trace` path relative to `base_dir` instead (the scenario file's
    /// directory); an absolute path is kept.
    fn anchor_trace_path(&mut self, base_dir: &Path) {
        if let Some(path) = &mut self.trace {
            if Path::new(path.as_str()).is_relative() {
                *path = base_dir.join(path.as_str()).to_string_lossy().into_owned();
            }
        }
    }
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
    /// Transmission rate, bits per second (> 0); for a trace-driven direction, the trace's mean
    /// rate (opportunities × 1500 bytes × 8 over its period).
    pub rate_bps: u64,
    /// Propagation delay, nanoseconds.
    pub delay: SimDuration,
    /// Queue discipline at the sending end.
    pub queue: QueueSpec,
    pub loss: Option<LossSpec>,
    /// Set when the direction is served at a trace's delivery opportunities instead of at
    /// `rate_bps`.
    pub trace: Option<TraceLink>,
}

/// The delivery trace of a trace-driven direction.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceLink {
    /// The file read, as resolved (relative paths joined to the scenario file's directory).
    pub path: String,
    pub trace: Arc<DeliveryTrace>,
    /// How the trace charges packets (`accounting`).
    pub accounting: TraceAccounting,
}

impl LinkFile {
    /// Makes the relative `trace` paths of both directions relative to `base_dir`, the
    /// directory of the scenario file; call before `LinkFile::convert`.
    pub fn anchor_trace_paths(&mut self, base_dir: &Path) {
        for dir in [&mut self.a_to_b, &mut self.b_to_a].into_iter().flatten() {
            dir.anchor_trace_path(base_dir);
        }
    }

    /// Fills the defaults the echo shows: the `accounting` of each trace-driven direction.
    pub(crate) fn fill_defaults(&mut self) {
        for dir in [&mut self.a_to_b, &mut self.b_to_a].into_iter().flatten() {
            dir.fill_accounting();
        }
    }

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
        let own_trace = own.and_then(|d| d.trace.as_deref());
        let accounting = accounting(&dir_key, dir, own)?;
        let (rate_bps, trace) = match (own_trace, own_rate, &self.rate) {
            (Some(_), Some(_), _) => {
                return Err(ScenarioError::new(
                    join_key(&dir_key, "trace"),
                    format!("{dir} gives both a rate and a trace; give one"),
                ));
            }
            (Some(path), None, _) => {
                // A trace replaces a link-level rate for this direction.
                let trace_key = join_key(&dir_key, "trace");
                // Read as a stream: a long trace is never held as text beside its parsed form.
                let trace = crate::input_file::parse_file(
                    Path::new(path),
                    "trace file",
                    |e| format!("cannot read '{path}': {e}"),
                    |reader| DeliveryTrace::from_reader(reader),
                    |e| e.to_string(),
                )
                .map_err(|m| ScenarioError::new(trace_key, m))?;
                let link = TraceLink {
                    path: path.to_owned(),
                    trace: Arc::new(trace),
                    accounting,
                };
                (link.trace.mean_rate_bps(), Some(link))
            }
            (None, Some(r), _) => (positive(r, join_key(&dir_key, "rate"))?, None),
            (None, None, Some(r)) => (positive(r, join_key(key, "rate"))?, None),
            (None, None, None) => {
                let reverse_has = |has: fn(&DirectionFile) -> bool| reverse.is_some_and(has);
                let message = if reverse_has(|d| d.rate.is_some()) {
                    format!("required key is missing ({other} has a rate but {dir} does not)")
                } else if reverse_has(|d| d.trace.is_some()) {
                    format!("required key is missing ({other} has a trace but {dir} has neither a rate nor a trace)")
                } else {
                    "required key is missing".to_owned()
                };
                return Err(ScenarioError::new(join_key(key, "rate"), message));
            }
        };
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
            rate_bps,
            delay: delay.value,
            queue,
            loss,
            trace,
        })
    }
}

/// The `accounting` of direction `dir` (key `dir_key`): valid, and given only with a trace.
fn accounting(
    dir_key: &str,
    dir: &str,
    own: Option<&DirectionFile>,
) -> Result<TraceAccounting, ScenarioError> {
    let Some(text) = own.and_then(|d| d.accounting.as_deref()) else {
        return Ok(TraceAccounting::default());
    };
    let key = join_key(dir_key, "accounting");
    if own.is_some_and(|d| d.trace.is_none()) {
        return Err(ScenarioError::new(
            key,
            format!("applies only to a trace-driven direction; {dir} has no trace"),
        ));
    }
    TraceAccounting::parse(text).ok_or_else(|| {
        let names: Vec<&str> = TraceAccounting::ALL.iter().map(|a| a.as_str()).collect();
        ScenarioError::new(
            key,
            format!(
                "'{text}' is not a trace accounting; expected one of: {}",
                names.join(", ")
            ),
        )
    })
}

/// The rate in bits per second, which must be > 0 (`key` names where it was given).
fn positive(rate: &Quantity<Rate>, key: String) -> Result<u64, ScenarioError> {
    if rate.value == 0 {
        return Err(ScenarioError::new(key, format!("'{rate}' must be > 0")));
    }
    Ok(rate.value)
}
