//! Tunnel endpoints and what media ask of the network: GTP-U decapsulation at the end of S1-U
//! and X2-U tunnels, and the user-plane side of an LTE handover (TS 36.300 §10.1.2.1) — the S1
//! path switch with its end marker, data forwarding over X2-U and the source's end marker.
//!
//! Call-order contract (determinism): [`World::after_medium`] first counts the medium's drops,
//! then carries out its requests in the order given, then re-arms its timer, then routes the
//! packets it delivered. A request's packets are routed at once, so they queue behind whatever
//! already waits on their first link: an end marker follows every G-PDU already in the old
//! tunnel (TS 29.281 §7.3.2; TS 36.300 §10.1.2.2).

use std::net::Ipv4Addr;

use celltcp_engine::{Scheduler, SimTime};

use super::{count_drop, DropSite, Event, World};
use crate::gtp::{self, CeFate, Decapsulated, Epc, EpcError, Ingress};
use crate::medium::{MediumOutput, MediumRequest, TunnelArrival};
use crate::packet::{GtpInterface, GtpMessage, GtpTunnel, NodeId, Packet};
use crate::queue::DropCause;

/// Why the network could not carry out a medium's request.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RequestFailure {
    #[error("the network has no EPC")]
    NoEpc,
    #[error(transparent)]
    Epc(#[from] EpcError),
    #[error("packet {uid} is for {addr}, which is no node's address")]
    UnknownUe { uid: u64, addr: Ipv4Addr },
    #[error("packet {uid} is already in a GTP-U tunnel")]
    AlreadyTunnelled { uid: u64 },
}

/// A medium's request that the network could not carry out. The run goes on without it; a
/// forwarded packet it carried counts as dropped ([`DropCause::NoRoute`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at {time}: {request} requested by medium '{medium}': {reason}")]
pub struct RequestError {
    pub time: SimTime,
    /// The medium's name.
    pub medium: String,
    /// `path_switch`, `forward` or `forward_end_marker`.
    pub request: &'static str,
    pub reason: RequestFailure,
}

/// The snake-case name of a request, for error messages.
fn request_name(request: &MediumRequest) -> &'static str {
    match request {
        MediumRequest::PathSwitch { .. } => "path_switch",
        MediumRequest::Forward { .. } => "forward",
        MediumRequest::ForwardEndMarker { .. } => "forward_end_marker",
    }
}

impl World {
    /// Routes a tunnelled packet on its outer destination, and hands it to the endpoint at the
    /// end of the tunnel. Inside the tunnel the inner TTL is not touched (the routers see the
    /// outer header only).
    pub(super) fn route_tunnelled(
        &mut self,
        node: NodeId,
        pkt: Packet,
        t: GtpTunnel,
        sched: &mut Scheduler<Event>,
    ) {
        let Some(end) = self.topo.node_by_addr(t.outer_dst) else {
            return self.count_drop(pkt.flow, DropCause::NoRoute, DropSite::Node(node));
        };
        if end != node {
            match self.topo.next_hop(node, end) {
                Some(dir) => self.enqueue(dir, pkt, sched),
                None => self.count_drop(pkt.flow, DropCause::NoRoute, DropSite::Node(node)),
            }
            return;
        }
        match (t.message, t.interface) {
            (GtpMessage::GPdu, GtpInterface::S1u) => {
                let mut pkt = pkt;
                if self.decapsulate_at(node, &mut pkt) {
                    self.route(node, pkt, Ingress::Tunnel, sched);
                }
            }
            _ => self.hand_to_base_station(node, pkt, t, sched),
        }
    }

    /// Takes G-PDU `pkt` out of its tunnel at `node` per the EPC's ECN mode (RFC 6040 by
    /// default), counting at the endpoint and, when RFC 6040 §4.2 drops it, for its flow.
    /// Returns whether the inner packet goes on.
    fn decapsulate_at(&mut self, node: NodeId, pkt: &mut Packet) -> bool {
        let mode = self
            .epc
            .as_ref()
            .map_or(gtp::EcnDecap::default(), Epc::ecn_decap);
        let outcome = gtp::decapsulate(pkt, mode);
        if let Some(stats) = self.endpoint_stats_mut(node) {
            match outcome {
                Decapsulated::Dropped => stats.drops_ecn_decap += 1,
                Decapsulated::Forward { ce } => {
                    stats.decapsulated += 1;
                    match ce {
                        CeFate::Propagated => stats.ce_propagated += 1,
                        CeFate::Lost => stats.ce_lost += 1,
                        CeFate::Unmarked => {}
                    }
                }
            }
        }
        match outcome {
            Decapsulated::Dropped => {
                if let Some(c) = super::flow_mut(&mut self.flow_counters, pkt.flow) {
                    c.drops_ecn_decap += 1;
                }
                false
            }
            Decapsulated::Forward { .. } => true,
        }
    }

    /// The EPC's counters of `node`, when the world has an EPC and the node exists.
    fn endpoint_stats_mut(&mut self, node: NodeId) -> Option<&mut gtp::TunnelEndpointStats> {
        let nodes = self.topo.nodes.len();
        self.epc
            .as_mut()
            .filter(|_| node.index() < nodes)
            .map(|e| e.stats_mut(node))
    }

    /// An X2-U G-PDU or an end marker reached base station `node`: its medium takes it, for the
    /// UE the inner header names. Without such a medium or UE, forwarded data is dropped
    /// ([`DropCause::NoRoute`]) and an end marker discarded.
    fn hand_to_base_station(
        &mut self,
        node: NodeId,
        mut pkt: Packet,
        t: GtpTunnel,
        sched: &mut Scheduler<Event>,
    ) {
        let end_marker = t.message == GtpMessage::EndMarker;
        if end_marker {
            if let Some(stats) = self.endpoint_stats_mut(node) {
                stats.end_markers += 1;
            }
        }
        let medium = self.medium_of_enb(node);
        let ue = self.topo.node_by_addr(pkt.ip.dst);
        let (Some(m), Some(ue)) = (medium, ue) else {
            if !end_marker {
                self.count_drop(pkt.flow, DropCause::NoRoute, DropSite::Node(node));
            }
            return;
        };
        let arrival = if end_marker {
            TunnelArrival::EndMarker {
                from_gateway: t.interface == GtpInterface::S1u,
            }
        } else {
            // Forwarded data leaves its tunnel under the same ECN rules as on S1-U.
            if !self.decapsulate_at(node, &mut pkt) {
                return;
            }
            TunnelArrival::Forwarded {
                pkt,
                pdcp_count: t.pdcp_count,
            }
        };
        let now = sched.now();
        let mut out = std::mem::take(&mut self.medium_out);
        self.media[m as usize]
            .medium
            .tunnel_receive(now, node, ue, arrival, &mut out);
        self.after_medium(m, out, sched);
    }

    /// Applies a medium's output — drops, then requests in order, then a re-armed timer, then
    /// deliveries — and keeps its buffers for the next call.
    pub(super) fn after_medium(
        &mut self,
        m: u32,
        mut out: MediumOutput,
        sched: &mut Scheduler<Event>,
    ) {
        for (pkt, cause) in out.dropped.drain(..) {
            let (counters, traces, now) = (&mut self.flow_counters, &mut self.traces, self.now);
            count_drop(counters, traces, now, pkt.flow, cause, DropSite::Medium);
        }
        for request in out.requests.drain(..) {
            if let Err(reason) = self.carry_out(request, sched) {
                self.errors.push(RequestError {
                    time: sched.now(),
                    medium: self.media[m as usize].medium.name().to_string(),
                    request: request_name(&request),
                    reason,
                });
                if let MediumRequest::Forward { from, pkt, .. } = request {
                    self.count_drop(pkt.flow, DropCause::NoRoute, DropSite::Node(from));
                }
            }
        }
        self.rearm_medium(m, sched);
        for (node, pkt) in out.delivered.drain(..) {
            self.route(node, pkt, Ingress::Radio, sched);
        }
        self.medium_out = out;
    }

    /// Carries out one request of a medium; nothing happens when it fails.
    fn carry_out(
        &mut self,
        request: MediumRequest,
        sched: &mut Scheduler<Event>,
    ) -> Result<(), RequestFailure> {
        match request {
            MediumRequest::PathSwitch { ue, enb } => {
                self.path_switch_with_end_marker(ue, enb, sched)
            }
            MediumRequest::Forward {
                from,
                to,
                pkt,
                pdcp_count,
            } => self.forward(from, to, pkt, pdcp_count, sched),
            MediumRequest::ForwardEndMarker { from, to, ue } => {
                self.forward_end_marker(from, to, ue, sched)
            }
        }
    }

    /// The S-GW switches `ue`'s downlink to `enb` (TS 23.401 §5.5.1.1.2) and, when the eNB
    /// changes, sends an end marker to the old eNB on the old path under the old TEID
    /// (TS 29.281 §7.3.2: "after sending the last G-PDU"), routed at once so that it follows
    /// every G-PDU already queued on that path.
    fn path_switch_with_end_marker(
        &mut self,
        ue: NodeId,
        enb: NodeId,
        sched: &mut Scheduler<Event>,
    ) -> Result<(), RequestFailure> {
        let epc = self.epc.as_mut().ok_or(RequestFailure::NoEpc)?;
        let old = *epc.bearer(ue).ok_or(EpcError::NoBearer { ue })?;
        epc.switch_path(ue, enb)?;
        if old.enb == enb {
            return Ok(());
        }
        let gateway = epc.gateway();
        epc.stats_mut(gateway).end_markers += 1;
        let uid = self.next_uid();
        let addr = |n: NodeId| self.topo.nodes[n.index()].addr;
        let marker = Packet::end_marker(
            uid,
            addr(ue),
            addr(gateway),
            addr(old.enb),
            old.dl_teid,
            GtpInterface::S1u,
            sched.now(),
        );
        self.route(gateway, marker, Ingress::Local, sched);
        Ok(())
    }

    /// Forwards `pkt` from eNB `from` to eNB `to` in an X2-U G-PDU with its PDCP count
    /// (TS 36.300 §10.1.2.1.2), under the TEID `to` allocated for the UE the packet is for.
    fn forward(
        &mut self,
        from: NodeId,
        to: NodeId,
        mut pkt: Packet,
        pdcp_count: Option<u32>,
        sched: &mut Scheduler<Event>,
    ) -> Result<(), RequestFailure> {
        if pkt.tunnel.is_some() {
            return Err(RequestFailure::AlreadyTunnelled { uid: pkt.uid });
        }
        let ue = self
            .topo
            .node_by_addr(pkt.ip.dst)
            .ok_or(RequestFailure::UnknownUe {
                uid: pkt.uid,
                addr: pkt.ip.dst,
            })?;
        let (teid, mode) = self.x2_tunnel(from, to, ue)?;
        let addr = |n: NodeId| self.topo.nodes[n.index()].addr;
        gtp::encapsulate_forwarded(&mut pkt, addr(from), addr(to), teid, mode, pdcp_count);
        if let Some(stats) = self.endpoint_stats_mut(from) {
            stats.encapsulated += 1;
        }
        self.forward_from(from, pkt, sched);
        Ok(())
    }

    /// Sends an end marker for `ue` from eNB `from` to eNB `to` over X2-U, after the last
    /// forwarded packet (TS 36.300 §10.1.2.2).
    fn forward_end_marker(
        &mut self,
        from: NodeId,
        to: NodeId,
        ue: NodeId,
        sched: &mut Scheduler<Event>,
    ) -> Result<(), RequestFailure> {
        let (teid, _) = self.x2_tunnel(from, to, ue)?;
        if let Some(stats) = self.endpoint_stats_mut(from) {
            stats.end_markers += 1;
        }
        let uid = self.next_uid();
        let addr = |n: NodeId| self.topo.nodes[n.index()].addr;
        let marker = Packet::end_marker(
            uid,
            addr(ue),
            addr(from),
            addr(to),
            teid,
            GtpInterface::X2u,
            sched.now(),
        );
        self.forward_from(from, marker, sched);
        Ok(())
    }

    /// The X2-U forwarding tunnel from eNB `from` to eNB `to` for `ue`: the target's TEID and
    /// the EPC's ECN mode. Both ends must be eNBs of the EPC and `ue` one of its UEs.
    fn x2_tunnel(
        &mut self,
        from: NodeId,
        to: NodeId,
        ue: NodeId,
    ) -> Result<(u32, gtp::EcnDecap), RequestFailure> {
        let epc = self.epc.as_mut().ok_or(RequestFailure::NoEpc)?;
        if !epc.is_enb(from) {
            return Err(EpcError::NotAnEnb { node: from }.into());
        }
        let teid = epc.allocate_forwarding_teid(to, ue)?;
        Ok((teid, epc.ecn_decap()))
    }
}
