//! Queue disciplines of a link direction (`queue = { kind = …, … }`).

use celltcp_engine::SimDuration;
use celltcp_net::queue::QueueLimit;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize, Serializer};

use super::quantity::{Limit, Quantity, Size, Time};
use super::KindTagged;
use crate::error::join_key;
use crate::validate::{positive_time, unit_interval};
use crate::ScenarioError;

/// A queue discipline: a table tagged by `kind` (droptail, red, codel).
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[schemars(tag = "kind")]
pub enum QueueFile {
    /// First-in first-out with tail drop.
    #[serde(rename = "droptail")]
    DropTail(DropTailFile),
    /// Random Early Detection (Floyd & Jacobson 1993).
    #[serde(rename = "red")]
    Red(RedFile),
    /// Controlled Delay (RFC 8289).
    #[serde(rename = "codel")]
    CoDel(CoDelFile),
}

impl Serialize for QueueFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            QueueFile::DropTail(body) => KindTagged {
                kind: "droptail",
                body,
            }
            .serialize(s),
            QueueFile::Red(body) => KindTagged { kind: "red", body }.serialize(s),
            QueueFile::CoDel(body) => KindTagged {
                kind: "codel",
                body,
            }
            .serialize(s),
        }
    }
}

/// The default queue of a link: `{ kind = "droptail", limit = "100p" }`.
pub(crate) fn default_queue() -> QueueFile {
    QueueFile::DropTail(DropTailFile {
        limit: Quantity::default_of("100p"),
    })
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropTailFile {
    /// Queue limit: packets ('200p') or bytes ('64KB'); > 0.
    pub limit: Quantity<Limit>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedFile {
    /// Hard queue limit: packets or bytes; > 0.
    pub limit: Quantity<Limit>,
    /// Lower threshold of the average queue: packets ('5p'), or a size for byte mode.
    pub min_th: Quantity<Limit>,
    /// Upper threshold of the average queue, same unit kind as min_th; > min_th.
    pub max_th: Quantity<Limit>,
    /// Drop probability at max_th, in (0, 1].
    #[serde(default = "default_max_p")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub max_p: f64,
    /// Weight of the average-queue EWMA, in (0, 1].
    #[serde(default = "default_w_q")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub w_q: f64,
    /// Gentle mode (Floyd 2000): probability rises from max_p to 1 between max_th and 2·max_th.
    #[serde(default = "yes")]
    pub gentle: bool,
    /// Mark ECN-capable packets (RFC 3168) instead of dropping them early.
    #[serde(default)]
    pub ecn: bool,
    /// Packet size assumed for the idle-period decay of the average (a size).
    #[serde(default = "default_mean_packet_size")]
    pub mean_packet_size: Quantity<Size>,
}

fn default_max_p() -> f64 {
    0.1
}
fn default_w_q() -> f64 {
    0.002
}
fn yes() -> bool {
    true
}
fn default_mean_packet_size() -> Quantity<Size> {
    Quantity::default_of("1000B")
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CoDelFile {
    /// Queue limit: packets or bytes; > 0.
    pub limit: Quantity<Limit>,
    /// Acceptable standing queue delay (RFC 8289 §4.3); > 0.
    pub target: Quantity<Time>,
    /// Window over which the minimum sojourn time is tracked (RFC 8289 §4.2); > 0.
    pub interval: Quantity<Time>,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
}

impl Default for CoDelFile {
    fn default() -> Self {
        CoDelFile {
            limit: Quantity::default_of("1000p"),
            target: Quantity::default_of("5ms"),
            interval: Quantity::default_of("100ms"),
            ecn: false,
        }
    }
}

/// A queue discipline, units resolved.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueSpec {
    DropTail {
        limit: QueueLimit,
    },
    /// Random Early Detection; thresholds in packets, or in bytes when `byte_mode`.
    Red {
        limit: QueueLimit,
        /// Lower threshold of the average queue (packets, or bytes in byte mode).
        min_th: f64,
        /// Upper threshold of the average queue (packets, or bytes in byte mode).
        max_th: f64,
        max_p: f64,
        w_q: f64,
        gentle: bool,
        ecn: bool,
        /// The thresholds were given as sizes.
        byte_mode: bool,
        /// Bytes; used for the idle-period decay of the average.
        mean_packet_size: u32,
    },
    /// CoDel (RFC 8289).
    CoDel {
        limit: QueueLimit,
        /// Target sojourn time, nanoseconds.
        target: SimDuration,
        /// Control interval, nanoseconds.
        interval: SimDuration,
        ecn: bool,
    },
}

impl QueueSpec {
    /// Short name as in the file: "droptail", "red", "codel".
    pub fn kind(&self) -> &'static str {
        match self {
            QueueSpec::DropTail { .. } => "droptail",
            QueueSpec::Red { .. } => "red",
            QueueSpec::CoDel { .. } => "codel",
        }
    }
}

fn positive_limit(key: &str, limit: &Quantity<Limit>) -> Result<QueueLimit, ScenarioError> {
    match limit.value {
        QueueLimit::Packets(0) | QueueLimit::Bytes(0) => {
            Err(ScenarioError::new(key, format!("'{limit}' must be > 0")))
        }
        value => Ok(value),
    }
}

fn threshold(limit: QueueLimit) -> (f64, bool) {
    match limit {
        QueueLimit::Packets(p) => (p as f64, false),
        QueueLimit::Bytes(b) => (b as f64, true),
    }
}

impl QueueFile {
    /// Converts the queue at dotted key `key` (`links.access.queue`).
    pub(crate) fn convert(&self, key: &str) -> Result<QueueSpec, ScenarioError> {
        let k = |field: &str| join_key(key, field);
        match self {
            QueueFile::DropTail(q) => Ok(QueueSpec::DropTail {
                limit: positive_limit(&k("limit"), &q.limit)?,
            }),
            QueueFile::Red(q) => {
                let limit = positive_limit(&k("limit"), &q.limit)?;
                let (min_th, min_bytes) = threshold(q.min_th.value);
                let (max_th, max_bytes) = threshold(q.max_th.value);
                if min_bytes != max_bytes {
                    return Err(ScenarioError::new(
                        k("max_th"),
                        format!(
                            "'{}' and min_th '{}' must both be packets or both be sizes",
                            q.max_th, q.min_th
                        ),
                    ));
                }
                if min_th >= max_th {
                    return Err(ScenarioError::new(
                        k("min_th"),
                        format!("'{}' must be below max_th ('{}')", q.min_th, q.max_th),
                    ));
                }
                positive_fraction(&k("max_p"), q.max_p)?;
                positive_fraction(&k("w_q"), q.w_q)?;
                let mean_packet_size = match u32::try_from(q.mean_packet_size.value) {
                    Ok(0) | Err(_) => {
                        return Err(ScenarioError::new(
                            k("mean_packet_size"),
                            format!(
                                "'{}' is out of range; expected 1B to 4294967295B",
                                q.mean_packet_size
                            ),
                        ))
                    }
                    Ok(v) => v,
                };
                Ok(QueueSpec::Red {
                    limit,
                    min_th,
                    max_th,
                    max_p: q.max_p,
                    w_q: q.w_q,
                    gentle: q.gentle,
                    ecn: q.ecn,
                    byte_mode: min_bytes,
                    mean_packet_size,
                })
            }
            QueueFile::CoDel(q) => {
                let limit = positive_limit(&k("limit"), &q.limit)?;
                positive_time(&k("target"), &q.target)?;
                positive_time(&k("interval"), &q.interval)?;
                Ok(QueueSpec::CoDel {
                    limit,
                    target: q.target.value,
                    interval: q.interval.value,
                    ecn: q.ecn,
                })
            }
        }
    }
}

/// A probability that must be > 0 (a RED parameter of 0 would disable it silently).
fn positive_fraction(key: &str, p: f64) -> Result<(), ScenarioError> {
    unit_interval(key, p)?;
    if p == 0.0 {
        return Err(ScenarioError::new(
            key,
            "0 is not allowed; expected a number in (0, 1]",
        ));
    }
    Ok(())
}
