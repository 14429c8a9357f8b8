//! `[middleboxes.NAME]` into the world — each middlebox on its router, named after the
//! scenario's name for it, drawing from the random stream `middlebox/NAME` — and out of it: the
//! summary's `middleboxes` section.

use std::collections::BTreeMap;

use celltcp_engine::SimTime;
use celltcp_net::middlebox::Middlebox;
use celltcp_net::packet::NodeId;
use celltcp_net::world::{World, WorldBuilder};
use celltcp_tcp::eln::{ElnConfig, ElnMarker};
use celltcp_tcp::proxy::{SplitTcpConfig, SplitTcpProxy};
use celltcp_tcp::snoop::{Snoop, SnoopConfig};

use crate::config::middleboxes::MiddleboxKind;
use crate::error::ScenarioError;
use crate::summary::MiddleboxSummary;
use crate::Scenario;

/// Adds every middlebox of the scenario; call after the nodes.
pub(crate) fn add_middleboxes(
    b: &mut WorldBuilder,
    scenario: &Scenario,
    node: &dyn Fn(&str) -> NodeId,
) -> Result<(), ScenarioError> {
    for (name, spec) in &scenario.middleboxes {
        let key = format!("middleboxes.{name}");
        let err = |e: &dyn std::fmt::Display| ScenarioError::new(&key, e.to_string());
        let addrs = |hosts: &[String]| hosts.iter().map(|h| b.node_addr(node(h))).collect();
        let middlebox: Box<dyn Middlebox> = match &spec.kind {
            MiddleboxKind::Snoop {
                mobile,
                cache_packets,
                min_rto,
            } => {
                let cfg = SnoopConfig {
                    mobile: addrs(mobile),
                    cache_packets: *cache_packets,
                    min_rto: *min_rto,
                };
                Box::new(Snoop::new(name, cfg).map_err(|e| err(&e))?)
            }
            MiddleboxKind::Eln { holes } => {
                let cfg = ElnConfig {
                    holes_per_connection: *holes,
                };
                Box::new(ElnMarker::new(name, cfg).map_err(|e| err(&e))?)
            }
            MiddleboxKind::SplitTcp {
                mobile,
                cc,
                relay_buffer_bytes,
                to_mobile,
                to_server,
            } => {
                let cfg = SplitTcpConfig {
                    mobile_side: addrs(mobile),
                    to_mobile: *to_mobile,
                    cc_to_mobile: cc.name().to_string(),
                    to_server: *to_server,
                    relay_buffer_bytes: *relay_buffer_bytes,
                };
                Box::new(SplitTcpProxy::new(name, cfg).map_err(|e| err(&e))?)
            }
        };
        b.add_middlebox(node(&spec.node), &format!("middlebox/{name}"), middlebox)
            .map_err(|e| err(&e))?;
    }
    Ok(())
}

/// The summary's `middleboxes` section, `None` without middleboxes: per middlebox its kind,
/// node, what the network counted (`packets_seen`, `packets_absorbed`, `packets_emitted`,
/// `bytes_emitted`, `packets_expedited`, `link_losses`, `timer_calls`) and the middlebox's own
/// figures (Snoop: local retransmissions, duplicate ACKs suppressed, cache hits and misses, …;
/// ELN: losses recorded, ACKs marked, …).
pub(crate) fn summary(
    scenario: &Scenario,
    world: &World,
    end: SimTime,
) -> Option<BTreeMap<String, MiddleboxSummary>> {
    let mut out = BTreeMap::new();
    for info in world.middleboxes() {
        let name = info.middlebox.name();
        let kind = scenario
            .middleboxes
            .get(name)
            .map_or("", |s| s.kind.as_str());
        let s = info.stats;
        let summary = MiddleboxSummary {
            kind,
            node: world.topo.nodes[info.node.index()].name.clone(),
            packets_seen: s.packets_seen,
            packets_absorbed: s.packets_absorbed,
            packets_emitted: s.packets_emitted,
            bytes_emitted: s.bytes_emitted,
            packets_expedited: s.packets_expedited,
            link_losses: s.link_losses,
            timer_calls: s.timer_calls,
            figures: info.middlebox.report(end).into_iter().collect(),
        };
        out.insert(name.to_string(), summary);
    }
    (!out.is_empty()).then_some(out)
}
