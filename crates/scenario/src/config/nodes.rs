//! `[nodes.NAME]`: hosts and routers, and their IPv4 addresses.

use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::join_key;
use crate::validate::check_name;
use crate::ScenarioError;

/// What a node does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// Runs applications (flow ends).
    Host,
    /// Forwards packets only.
    Router,
}

impl NodeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Host => "host",
            NodeKind::Router => "router",
        }
    }
}

/// `[nodes.NAME]`: a host or a router.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeFile {
    /// "host" (runs applications) or "router" (forwards).
    pub kind: NodeKind,
    /// IPv4 address used in captures; default 10.0.0.N, N = 1, 2, … in name order, skipping
    /// addresses given explicitly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "ipv4"))]
    pub address: Option<String>,
}

/// A node of the topology.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub kind: NodeKind,
    /// The node's IPv4 address; always `Some` in a loaded scenario (defaults are resolved).
    pub address: Option<Ipv4Addr>,
}

/// First address of the default range; node N (1-based) gets `DEFAULT_BASE + N`.
const DEFAULT_BASE: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 0);

/// Converts the nodes and writes the resolved default addresses back into `file`.
pub(crate) fn convert(
    file: &mut BTreeMap<String, NodeFile>,
) -> Result<BTreeMap<String, Node>, ScenarioError> {
    let mut used: BTreeMap<Ipv4Addr, &str> = BTreeMap::new();
    let mut explicit = BTreeMap::new();
    for (name, node) in file.iter() {
        check_name("nodes", name)?;
        let Some(text) = &node.address else { continue };
        let key = join_key(&join_key("nodes", name), "address");
        let addr: Ipv4Addr = text.parse().map_err(|_| {
            ScenarioError::new(
                &key,
                format!("'{text}' is not an IPv4 address; use e.g. '10.0.0.1'"),
            )
        })?;
        if addr.is_unspecified() || addr.is_broadcast() || addr.is_multicast() {
            return Err(ScenarioError::new(
                &key,
                format!("'{text}' is not a unicast address"),
            ));
        }
        if let Some(other) = used.insert(addr, name) {
            return Err(ScenarioError::new(
                &key,
                format!("{addr} is already the address of node '{other}'"),
            ));
        }
        explicit.insert(name.clone(), addr);
    }
    let taken: BTreeSet<Ipv4Addr> = used.keys().copied().collect();
    let mut next = u32::from(DEFAULT_BASE);
    let mut nodes = BTreeMap::new();
    for (name, node) in file.iter_mut() {
        let addr = match explicit.get(name) {
            Some(addr) => *addr,
            None => {
                next += 1;
                while taken.contains(&Ipv4Addr::from(next)) {
                    next += 1;
                }
                let addr = Ipv4Addr::from(next);
                node.address = Some(addr.to_string());
                addr
            }
        };
        nodes.insert(
            name.clone(),
            Node {
                kind: node.kind,
                address: Some(addr),
            },
        );
    }
    Ok(nodes)
}
