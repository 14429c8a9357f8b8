//! `[middleboxes.NAME]`: packet processing on a router (docs/middleboxes.md) — a Snoop agent,
//! an Explicit Loss Notification marker, or a split-TCP proxy — a table tagged by `kind`.
//!
//! `mobile` names the hosts on the wireless side of the node: a list of host names, or
//! `"wireless"` (the default), every host one radio hop from the node — the UEs its cells (and
//! dedicated channels) list, and the far end of each of its links whose direction from the node
//! stands for a radio hop (it has a loss model or is trace-driven). A node has at most one
//! middlebox.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use celltcp_engine::SimDuration;
use celltcp_tcp::snoop::MAX_LOCAL_RTO;
use celltcp_tcp::TcpConfig;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::links::Link;
use super::nodes::{Node, NodeKind};
use super::quantity::{Quantity, Size, Time};
use super::tcp::{CcAlgorithm, TcpFile};
use super::KindTagged;
use crate::error::join_key;
use crate::validate::{check_name, node_ref, positive_time};
use crate::ScenarioError;

/// `[middleboxes.NAME]`: a table tagged by `kind` (snoop, eln, split_tcp).
// Parsed once per file; boxing the larger variant would only complicate the code.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(tag = "kind")]
pub enum MiddleboxFile {
    /// Snoop (Balakrishnan et al. 1995): caches data towards the mobile hosts, repairs radio
    /// losses locally and hides their duplicate ACKs from the sender.
    Snoop(SnoopFile),
    /// Explicit Loss Notification (Balakrishnan & Katz 1998): marks the ACKs that ask for a
    /// segment the node's radio link lost.
    Eln(ElnFile),
    /// A split-TCP proxy (RFC 3135 §2.3): terminates the connections of the mobile hosts and
    /// relays their data over a second connection.
    SplitTcp(SplitTcpFile),
}

impl Serialize for MiddleboxFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            MiddleboxFile::Snoop(body) => KindTagged {
                kind: "snoop",
                body,
            }
            .serialize(s),
            MiddleboxFile::Eln(body) => KindTagged { kind: "eln", body }.serialize(s),
            MiddleboxFile::SplitTcp(body) => KindTagged {
                kind: "split_tcp",
                body,
            }
            .serialize(s),
        }
    }
}

impl MiddleboxFile {
    /// The router the middlebox runs on.
    pub fn node(&self) -> &str {
        match self {
            MiddleboxFile::Snoop(f) => &f.node,
            MiddleboxFile::Eln(f) => &f.node,
            MiddleboxFile::SplitTcp(f) => &f.node,
        }
    }
}

/// `kind = "snoop"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SnoopFile {
    /// The base station: a router.
    pub node: String,
    /// The mobile hosts: a list of host names, or "wireless" (every host one radio hop away).
    #[serde(default)]
    pub mobile: MobileFile,
    /// Data segments cached per connection (≥ 1).
    #[serde(default = "default_cache")]
    #[schemars(range(min = 1))]
    pub cache: u32,
    /// Lower bound of the local retransmission timer (a time, > 0, at most 1s).
    #[serde(default = "default_min_rto")]
    pub min_rto: Quantity<Time>,
}

fn default_cache() -> u32 {
    100
}
fn default_min_rto() -> Quantity<Time> {
    Quantity::default_of("50ms")
}

/// `kind = "eln"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ElnFile {
    /// The base station: a router whose point-to-point links have loss models.
    pub node: String,
    /// Holes (lost segments) remembered per connection (≥ 1).
    #[serde(default = "default_holes")]
    #[schemars(range(min = 1))]
    pub holes: u32,
}

fn default_holes() -> u32 {
    64
}

/// `kind = "split_tcp"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SplitTcpFile {
    /// The router the proxy runs on.
    pub node: String,
    /// The mobile hosts whose connections are split: a list of host names, or "wireless".
    #[serde(default)]
    pub mobile: MobileFile,
    /// Congestion controller of the proxy's connections towards the mobile hosts.
    #[serde(default = "default_cc")]
    pub cc: CcAlgorithm,
    /// Relay buffer per direction of a split connection (a size, at least to_mobile.mss).
    #[serde(default = "default_relay")]
    pub relay_buffer: Quantity<Size>,
    /// Endpoint settings of the proxy's connections towards the mobile hosts (the keys of
    /// `[flows.NAME.tcp]`).
    #[serde(default)]
    pub to_mobile: TcpFile,
    /// Endpoint settings of the proxy's connections towards the servers.
    #[serde(default)]
    pub to_server: TcpFile,
}

fn default_cc() -> CcAlgorithm {
    CcAlgorithm::NewReno
}
fn default_relay() -> Quantity<Size> {
    Quantity::default_of("1MB")
}

/// The keyword of `mobile` for every host one radio hop from the node.
pub const WIRELESS: &str = "wireless";

/// `mobile`: `"wireless"` or a list of host names.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum MobileFile {
    #[default]
    Wireless,
    Hosts(Vec<String>),
}

impl Serialize for MobileFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            MobileFile::Wireless => s.serialize_str(WIRELESS),
            MobileFile::Hosts(h) => h.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for MobileFile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MobileVisitor)
    }
}

struct MobileVisitor;

impl<'de> Visitor<'de> for MobileVisitor {
    type Value = MobileFile;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of host names, or 'wireless'")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<MobileFile, E> {
        if v == WIRELESS {
            Ok(MobileFile::Wireless)
        } else {
            Err(E::custom(format!(
                "'{v}' is not 'wireless'; list host names as an array, e.g. ['{v}']"
            )))
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<MobileFile, A::Error> {
        let mut hosts = Vec::new();
        while let Some(h) = seq.next_element::<String>()? {
            hosts.push(h);
        }
        Ok(MobileFile::Hosts(hosts))
    }
}

impl JsonSchema for MobileFile {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("MobileHosts")
    }

    fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "The mobile hosts: a list of host names, or 'wireless' (every host one radio hop from the node).",
            "anyOf": [
                { "const": WIRELESS },
                { "type": "array", "items": { "type": "string" }, "minItems": 1 },
            ],
        })
    }
}

/// A validated middlebox: its router and what it does.
#[derive(Clone, Debug, PartialEq)]
pub struct MiddleboxSpec {
    pub node: String,
    pub kind: MiddleboxKind,
}

/// What a middlebox does, with its validated settings.
// Built once per run; boxing the larger variant would only complicate the code.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum MiddleboxKind {
    Snoop {
        /// Mobile host names, sorted.
        mobile: Vec<String>,
        /// Segments cached per connection.
        cache_packets: u32,
        min_rto: SimDuration,
    },
    Eln {
        holes: u32,
    },
    SplitTcp {
        /// Mobile host names, sorted.
        mobile: Vec<String>,
        cc: CcAlgorithm,
        relay_buffer_bytes: u64,
        to_mobile: TcpConfig,
        to_server: TcpConfig,
    },
}

impl MiddleboxKind {
    /// The `kind` as written.
    pub fn as_str(&self) -> &'static str {
        match self {
            MiddleboxKind::Snoop { .. } => "snoop",
            MiddleboxKind::Eln { .. } => "eln",
            MiddleboxKind::SplitTcp { .. } => "split_tcp",
        }
    }
}

/// Validates every middlebox against the nodes, links and radio edges ((eNB, UE) pairs).
pub(crate) fn convert(
    file: &BTreeMap<String, MiddleboxFile>,
    nodes: &BTreeMap<String, Node>,
    links: &BTreeMap<String, Link>,
    radio_edges: &[(String, String)],
) -> Result<BTreeMap<String, MiddleboxSpec>, ScenarioError> {
    let mut out = BTreeMap::new();
    let mut by_node: BTreeMap<&str, &str> = BTreeMap::new();
    for (name, mb) in file {
        check_name("middleboxes", name)?;
        let key = join_key("middleboxes", name);
        let k = |field: &str| join_key(&key, field);
        let node = mb.node();
        node_ref(&k("node"), node, nodes)?;
        if nodes[node].kind != NodeKind::Router {
            return Err(ScenarioError::new(
                k("node"),
                format!("node '{node}' is a host; a middlebox runs on a router"),
            ));
        }
        if let Some(other) = by_node.insert(node, name) {
            return Err(ScenarioError::new(
                k("node"),
                format!("node '{node}' already has middlebox '{other}'; at most one per node"),
            ));
        }
        let mobile =
            |m: &MobileFile| resolve_mobile(&k("mobile"), m, node, nodes, links, radio_edges);
        let kind = match mb {
            MiddleboxFile::Snoop(f) => {
                if f.cache == 0 {
                    return Err(ScenarioError::new(
                        k("cache"),
                        "0 is out of range; expected at least 1 segment",
                    ));
                }
                positive_time(&k("min_rto"), &f.min_rto)?;
                if f.min_rto.value > MAX_LOCAL_RTO {
                    return Err(ScenarioError::new(
                        k("min_rto"),
                        format!(
                            "'{}' is out of range; expected at most {}s (the local timer's bound)",
                            f.min_rto,
                            MAX_LOCAL_RTO.as_secs_f64()
                        ),
                    ));
                }
                MiddleboxKind::Snoop {
                    mobile: mobile(&f.mobile)?,
                    cache_packets: f.cache,
                    min_rto: f.min_rto.value,
                }
            }
            MiddleboxFile::Eln(f) => {
                if f.holes == 0 {
                    return Err(ScenarioError::new(
                        k("holes"),
                        "0 is out of range; expected at least 1",
                    ));
                }
                MiddleboxKind::Eln { holes: f.holes }
            }
            MiddleboxFile::SplitTcp(f) => {
                let to_mobile = f.to_mobile.resolve(&k("to_mobile"))?;
                let to_server = f.to_server.resolve(&k("to_server"))?;
                if f.relay_buffer.value < to_mobile.mss as u64 {
                    return Err(ScenarioError::new(
                        k("relay_buffer"),
                        format!(
                            "'{}' is out of range; expected at least to_mobile.mss ({}B)",
                            f.relay_buffer, to_mobile.mss
                        ),
                    ));
                }
                MiddleboxKind::SplitTcp {
                    mobile: mobile(&f.mobile)?,
                    cc: f.cc,
                    relay_buffer_bytes: f.relay_buffer.value,
                    to_mobile,
                    to_server,
                }
            }
        };
        out.insert(
            name.clone(),
            MiddleboxSpec {
                node: node.to_string(),
                kind,
            },
        );
    }
    Ok(out)
}

/// The mobile hosts of a middlebox on `node`, sorted: as listed (each a host, listed once) or
/// every host one radio hop away.
fn resolve_mobile(
    key: &str,
    mobile: &MobileFile,
    node: &str,
    nodes: &BTreeMap<String, Node>,
    links: &BTreeMap<String, Link>,
    radio_edges: &[(String, String)],
) -> Result<Vec<String>, ScenarioError> {
    let hosts: BTreeSet<String> = match mobile {
        MobileFile::Wireless => {
            // A link direction from the node with a loss model or a delivery trace stands for
            // a radio hop.
            let over_links = links.values().filter_map(|l| {
                let (dir, far) = if l.a == node {
                    (&l.a_to_b, &l.b)
                } else if l.b == node {
                    (&l.b_to_a, &l.a)
                } else {
                    return None;
                };
                (dir.loss.is_some() || dir.trace.is_some()).then_some(far.as_str())
            });
            let over_radio = radio_edges
                .iter()
                .filter_map(|(enb, ue)| (enb == node).then_some(ue.as_str()));
            let wireless: BTreeSet<String> = over_links
                .chain(over_radio)
                .filter(|n| nodes.get(*n).is_some_and(|n| n.kind == NodeKind::Host))
                .map(str::to_string)
                .collect();
            if wireless.is_empty() {
                return Err(ScenarioError::new(
                    key,
                    format!(
                        "no host is one radio hop from node '{node}' (a UE of its cells, or across a link with a loss model or a trace); list the mobile hosts"
                    ),
                ));
            }
            wireless
        }
        MobileFile::Hosts(list) => {
            if list.is_empty() {
                return Err(ScenarioError::new(
                    key,
                    "empty; list the mobile hosts, or write 'wireless'",
                ));
            }
            let mut set = BTreeSet::new();
            for h in list {
                node_ref(key, h, nodes)?;
                if nodes[h].kind != NodeKind::Host {
                    return Err(ScenarioError::new(
                        key,
                        format!("node '{h}' is a router; mobile hosts are hosts"),
                    ));
                }
                if !set.insert(h.clone()) {
                    return Err(ScenarioError::new(
                        key,
                        format!("host '{h}' is listed twice"),
                    ));
                }
            }
            set
        }
    };
    Ok(hosts.into_iter().collect())
}
