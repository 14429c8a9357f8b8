//! `[epc]`: the evolved packet core's user plane — a combined S-GW/P-GW that tunnels the UEs'
//! traffic to and from their eNBs in GTP-U over S1-U (docs/epc.md).
//!
//! Which eNB serves which UE comes from `[cells]`; this section names the gateway and chooses
//! what the tunnel ends do with ECN.

use std::collections::BTreeMap;

use celltcp_net::gtp::EcnDecap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::cells::CellSpec;
use super::flows::Flow;
use super::links::Link;
use super::nodes::{Node, NodeKind};
use crate::validate::{connected, node_ref};
use crate::ScenarioError;

/// ECN at the tunnel ends, as written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EcnDecapKind {
    /// Outer ECN copied from the inner header; a CE mark set on S1-U is lost at decapsulation
    /// (today's networks).
    Ignore,
    /// RFC 6040: copy at encapsulation; at decapsulation CE goes into an ECN-capable inner
    /// header and a Not-ECT packet carrying outer CE is dropped.
    #[default]
    Rfc6040,
    /// The tunnel is ECT(0) whatever it carries; CE goes into an ECN-capable inner header, a
    /// Not-ECT packet marked CE is dropped at the eNB (Pacifico et al. 2009, Fig. 7).
    DropNotEct,
}

impl EcnDecapKind {
    /// The network crate's mode.
    pub fn mode(self) -> EcnDecap {
        match self {
            EcnDecapKind::Ignore => EcnDecap::Ignore,
            EcnDecapKind::Rfc6040 => EcnDecap::Rfc6040,
            EcnDecapKind::DropNotEct => EcnDecap::DropNotEct,
        }
    }
}

/// `[epc]` as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EpcFile {
    /// The combined S-GW/P-GW: an existing router that is not an eNB.
    pub gateway: String,
    /// "rfc6040" (default), "ignore" or "drop_not_ect".
    #[serde(default)]
    pub ecn_decap: EcnDecapKind,
}

/// A validated EPC: the gateway exists, is a router, is no eNB, and reaches every eNB.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpcSpec {
    pub gateway: String,
    pub ecn_decap: EcnDecapKind,
}

/// Validates `[epc]` against the nodes, links and cells.
pub(crate) fn convert(
    file: Option<&EpcFile>,
    nodes: &BTreeMap<String, Node>,
    links: &BTreeMap<String, Link>,
    cells: &BTreeMap<String, CellSpec>,
) -> Result<Option<EpcSpec>, ScenarioError> {
    let Some(f) = file else { return Ok(None) };
    let key = "epc.gateway";
    node_ref(key, &f.gateway, nodes)?;
    if nodes[&f.gateway].kind != NodeKind::Router {
        return Err(ScenarioError::new(
            key,
            format!("node '{}' is a host; the S-GW/P-GW is a router", f.gateway),
        ));
    }
    if cells.is_empty() {
        return Err(ScenarioError::new(
            "epc",
            "an EPC serves the UEs of [cells]; no cell is defined",
        ));
    }
    for (name, cell) in cells {
        let enb = &cell.file.enb;
        if *enb == f.gateway {
            return Err(ScenarioError::new(
                key,
                format!("node '{enb}' is the eNB of cell '{name}'; the S-GW/P-GW must be another router"),
            ));
        }
        // S1-U runs over the links: the radio edges play no part in it.
        if !connected(links, &[], nodes, &f.gateway, enb) {
            return Err(ScenarioError::new(
                key,
                format!(
                    "no path over the links from '{}' to '{enb}', the eNB of cell '{name}'",
                    f.gateway
                ),
            ));
        }
    }
    Ok(Some(EpcSpec {
        gateway: f.gateway.clone(),
        ecn_decap: f.ecn_decap,
    }))
}

/// With an EPC every packet to or from a UE passes the gateway: the far end of each flow that
/// has a UE end must reach the gateway (over the links and the cells' radio edges).
pub(crate) fn check_flows(
    epc: Option<&EpcSpec>,
    flows: &BTreeMap<String, Flow>,
    nodes: &BTreeMap<String, Node>,
    links: &BTreeMap<String, Link>,
    cells: &BTreeMap<String, CellSpec>,
) -> Result<(), ScenarioError> {
    let Some(epc) = epc else { return Ok(()) };
    let radio_edges = super::cells::radio_edges(cells);
    let is_ue = |n: &str| cells.values().any(|c| c.file.ues.contains_key(n));
    for (name, flow) in flows {
        for (ue, other) in [(&flow.dst, &flow.src), (&flow.src, &flow.dst)] {
            if is_ue(ue) && !connected(links, &radio_edges, nodes, other, &epc.gateway) {
                return Err(ScenarioError::new(
                    format!("flows.{name}"),
                    format!(
                        "no path from '{other}' to the S-GW/P-GW '{}', which carries every packet of UE '{ue}'",
                        epc.gateway
                    ),
                ));
            }
        }
    }
    Ok(())
}
