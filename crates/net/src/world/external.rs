//! External hosts: hosts of the scenario whose traffic comes from and goes to real programs,
//! which a real-time emulator connects to the world (through TUN devices).
//!
//! A packet a real program sends is handed to [`World::inject_external`] at the current
//! simulated time, already parsed into a [`Packet`] whose size is the real datagram's length.
//! It is then routed like any packet an agent of that host sends: by destination address,
//! through the EPC's tunnels, links, queues and media. A real packet that reaches an external
//! host is not given to the host's agents but queued for the emulator, which takes it with
//! [`World::drain_external`] and writes the real bytes out.
//!
//! Real packets belong to the flow [`EXTERNAL_FLOW`], which has no per-flow counters or traces
//! (its drops count nowhere in the world; the emulator counts what went in and came out). The
//! world never sees their bytes: the emulator keeps them and puts the key under which it keeps
//! them in the packet's `app_seq` field, which only UDP agents otherwise use. Packets of the
//! scenario's own flows to and from an external host keep reaching its agents, so scenario
//! flows run alongside real traffic as cross traffic.

use celltcp_engine::{Scheduler, SimTime};

use super::{Event, World};
use crate::gtp::Ingress;
use crate::packet::{FlowId, NodeId, Packet};
use crate::topology::NodeKind;

/// The flow of every packet a real program sent (see the module documentation). It lies past
/// any scenario flow and below [`crate::packet::NO_FLOW`].
pub const EXTERNAL_FLOW: FlowId = FlowId(u32::MAX - 1);

/// A real packet that reached an external host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExternalDelivery {
    /// Simulated time at which it reached the host (left the emulated path).
    pub time: SimTime,
    pub node: NodeId,
    /// The packet as the path left it: its `app_seq` is the emulator's key for the real bytes,
    /// its `ip.ecn` may have been set to CE by an AQM on the way.
    pub pkt: Packet,
}

/// Why a node cannot be made external.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExternalError {
    #[error("node {node} does not exist")]
    UnknownNode { node: NodeId },
    #[error("node '{name}' is a router; only hosts can be attached")]
    NotAHost { name: String },
    #[error("host '{name}' is attached twice")]
    AlreadyAttached { name: String },
}

/// The world's side of external hosts.
#[derive(Debug, Default)]
pub(super) struct ExternalHosts {
    /// Per node: whether it is external (empty when no node is).
    attached: Vec<bool>,
    /// Real packets that reached an external host, in the order they did.
    outbox: Vec<ExternalDelivery>,
    /// Real packets that reached a node that is not external (only a middlebox could send one
    /// there; the emulator injects packets for external hosts only).
    stray: u64,
}

impl World {
    /// Makes host `node` external: from now on real packets reaching it are queued for
    /// [`World::drain_external`] instead of being given to its agents.
    ///
    /// # Errors
    /// The node does not exist, is a router, or is external already.
    pub fn attach_external(&mut self, node: NodeId) -> Result<(), ExternalError> {
        let n = self.topo.nodes.len();
        let Some(info) = self.topo.nodes.get(node.index()) else {
            return Err(ExternalError::UnknownNode { node });
        };
        if info.kind != NodeKind::Host {
            return Err(ExternalError::NotAHost {
                name: info.name.clone(),
            });
        }
        let ext = &mut self.external;
        ext.attached.resize(n, false);
        if std::mem::replace(&mut ext.attached[node.index()], true) {
            return Err(ExternalError::AlreadyAttached {
                name: info.name.clone(),
            });
        }
        Ok(())
    }

    /// Whether `node` is external.
    pub fn is_external(&self, node: NodeId) -> bool {
        self.external
            .attached
            .get(node.index())
            .copied()
            .unwrap_or(false)
    }

    /// Sends `pkt`, which a real program on external host `node` wrote, into the network at
    /// the current simulated time, as if an agent of the host had sent it: it gets a fresh
    /// `uid`, the flow [`EXTERNAL_FLOW`] and `created_at = now`; its IP header (identification
    /// included) and transport header are kept as the program wrote them.
    ///
    /// Call between events (the scheduler's `now` is the injection time). Packets reaching an
    /// external host meanwhile (a path without delay) are queued for [`World::drain_external`].
    pub fn inject_external(&mut self, node: NodeId, mut pkt: Packet, sched: &mut Scheduler<Event>) {
        self.close_sampled_instant(sched.now());
        self.now = sched.now();
        pkt.uid = self.next_uid();
        pkt.flow = EXTERNAL_FLOW;
        pkt.created_at = sched.now();
        self.route(node, pkt, Ingress::Local, sched);
    }

    /// Moves the real packets that reached external hosts since the last call into `out`
    /// (appended in the order they arrived, which is time order).
    pub fn drain_external(&mut self, out: &mut Vec<ExternalDelivery>) {
        out.append(&mut self.external.outbox);
    }

    /// Real packets that reached a node that is not external (and went no further).
    pub fn external_strays(&self) -> u64 {
        self.external.stray
    }

    /// A real packet reached `node`, its destination, at `now`.
    pub(super) fn deliver_external(&mut self, node: NodeId, pkt: Packet, now: SimTime) {
        if self.is_external(node) {
            self.external.outbox.push(ExternalDelivery {
                time: now,
                node,
                pkt,
            });
        } else {
            self.external.stray += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use celltcp_engine::{SimDuration, SimTime, Simulator, StopCondition};

    use super::*;
    use crate::link::LinkDirConfig;
    use crate::packet::{Ecn, IpHeader, Transport, UdpHeader};
    use crate::queue::{DropTail, QueueLimit};
    use crate::world::WorldBuilder;

    /// h1 (10.0.0.1) --8 Mbit/s, 5 ms-- r (10.0.0.2) --8 Mbit/s, 5 ms-- h2 (10.0.0.3).
    fn chain() -> World {
        let mut b = WorldBuilder::new(1, 0);
        let h1 = b.add_node("h1", NodeKind::Host, Ipv4Addr::new(10, 0, 0, 1));
        let r = b.add_node("r", NodeKind::Router, Ipv4Addr::new(10, 0, 0, 2));
        let h2 = b.add_node("h2", NodeKind::Host, Ipv4Addr::new(10, 0, 0, 3));
        let dir = || LinkDirConfig {
            rate_bps: 8_000_000,
            delay: SimDuration::from_ms(5),
            queue: Box::new(DropTail::new(QueueLimit::Packets(10)).unwrap()),
            loss: None,
        };
        b.add_link("a", h1, r, 1, dir(), dir());
        b.add_link("b", r, h2, 1, dir(), dir());
        b.build()
    }

    fn datagram(dst: Ipv4Addr, key: u64) -> Packet {
        Packet {
            uid: 0,
            flow: FlowId(0),
            ip: IpHeader {
                src: Ipv4Addr::new(10, 0, 0, 1),
                dst,
                ecn: Ecn::NotEct,
                dscp: 0,
                ttl: 64,
                id: 777,
            },
            transport: Transport::Udp(UdpHeader {
                src_port: 1,
                dst_port: 2,
            }),
            payload_len: 972,
            app_seq: key,
            created_at: SimTime::ZERO,
            tunnel: None,
        }
    }

    #[test]
    fn a_real_packet_crosses_to_an_external_host_and_waits_to_be_drained() {
        let mut w = chain();
        w.attach_external(NodeId(0)).unwrap();
        w.attach_external(NodeId(2)).unwrap();
        assert!(w.is_external(NodeId(2)) && !w.is_external(NodeId(1)));
        let mut sim = Simulator::new(w);
        sim.model.schedule_initial(&mut sim.sched);
        sim.run(StopCondition {
            until: Some(SimTime::from_ns(1_000_000)),
            max_events: None,
        })
        .unwrap();
        sim.model.inject_external(
            NodeId(0),
            datagram(Ipv4Addr::new(10, 0, 0, 3), 42),
            &mut sim.sched,
        );
        sim.run(StopCondition::default()).unwrap();
        let mut out = Vec::new();
        sim.model.drain_external(&mut out);
        assert_eq!(out.len(), 1);
        let d = out[0];
        // 1000 bytes at 8 Mbit/s take 1 ms per hop, plus 5 ms of propagation per hop.
        assert_eq!(d.time, SimTime::from_ns(1_000_000 + 2 * 6_000_000));
        assert_eq!(d.node, NodeId(2));
        assert_eq!(
            (d.pkt.flow, d.pkt.app_seq, d.pkt.ip.id),
            (EXTERNAL_FLOW, 42, 777)
        );
        assert_eq!(d.pkt.created_at, SimTime::from_ns(1_000_000));
        assert_eq!(d.pkt.ip.ttl, 63, "the router decremented the modelled TTL");
        sim.model.drain_external(&mut out);
        assert_eq!(out.len(), 1, "drained once");
        assert!(
            sim.model.flow_counters.is_empty(),
            "real packets count in no flow"
        );
    }

    #[test]
    fn a_real_packet_for_a_node_that_is_not_external_goes_no_further() {
        let mut w = chain();
        w.attach_external(NodeId(0)).unwrap();
        let mut sim = Simulator::new(w);
        sim.model.schedule_initial(&mut sim.sched);
        sim.model.inject_external(
            NodeId(0),
            datagram(Ipv4Addr::new(10, 0, 0, 3), 1),
            &mut sim.sched,
        );
        sim.run(StopCondition::default()).unwrap();
        let mut out = Vec::new();
        sim.model.drain_external(&mut out);
        assert!(out.is_empty());
        assert_eq!(sim.model.external_strays(), 1);
    }

    #[test]
    fn only_hosts_can_be_attached_and_only_once() {
        let mut w = chain();
        assert_eq!(
            w.attach_external(NodeId(1)),
            Err(ExternalError::NotAHost { name: "r".into() })
        );
        assert_eq!(
            w.attach_external(NodeId(9)),
            Err(ExternalError::UnknownNode { node: NodeId(9) })
        );
        w.attach_external(NodeId(2)).unwrap();
        assert_eq!(
            w.attach_external(NodeId(2)),
            Err(ExternalError::AlreadyAttached { name: "h2".into() })
        );
    }
}
