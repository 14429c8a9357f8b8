//! The forwarding plane: routing a packet at a node (TTL, the node's middlebox, the EPC's
//! steering, the next hop) and the transmitter of each point-to-point direction (queue, expedited
//! packets, serialisation, the loss model).
//!
//! Call-order contract: a packet the node forwards passes its middlebox after the TTL step
//! (RFC 791); the forwarded packet is routed before the packets the middlebox emitted. A
//! direction's transmitter takes expedited packets before its queue. When a loss model drops a
//! packet, the drop is counted, then the sending node's middlebox is told, then the direction
//! starts on its next packet.

use celltcp_engine::Scheduler;

use super::counters::count_drop;
use super::middlebox::Via;
use super::{DropSite, Event, World};
use crate::gtp::{self, Ingress, Steer};
use crate::packet::{NodeId, Packet};
use crate::queue::{DropCause, Verdict};
use crate::topology::{DirId, NodeKind};

impl World {
    /// Routes a packet that is at `node`, having come from `ingress`.
    pub(super) fn route(
        &mut self,
        node: NodeId,
        pkt: Packet,
        ingress: Ingress,
        sched: &mut Scheduler<Event>,
    ) {
        self.route_from(node, pkt, ingress, Via::Network, sched);
    }

    /// Routes a packet that is at `node`, having come from `ingress` or from the node's
    /// middlebox (`via`). A forwarded packet passes the node's middlebox after the TTL step;
    /// the packets the middlebox emits meanwhile are routed after it (see `middlebox`).
    pub(super) fn route_from(
        &mut self,
        node: NodeId,
        mut pkt: Packet,
        ingress: Ingress,
        via: Via,
        sched: &mut Scheduler<Event>,
    ) {
        if let Some(t) = pkt.tunnel {
            self.route_tunnelled(node, pkt, t, sched);
            return;
        }
        let Some(dst) = self.topo.node_by_addr(pkt.ip.dst) else {
            self.count_drop(pkt.flow, DropCause::NoRoute, DropSite::Node(node));
            return;
        };
        if dst == node {
            self.deliver_local(node, pkt, sched);
            return;
        }
        let src = self.topo.node_by_addr(pkt.ip.src);
        if via == Via::Network && src != Some(node) {
            // RFC 791: a router decrements TTL and discards the datagram when it reaches zero.
            if self.topo.nodes[node.index()].kind == NodeKind::Host || pkt.ip.ttl <= 1 {
                self.count_drop(pkt.flow, DropCause::NoRoute, DropSite::Node(node));
                return;
            }
            pkt.ip.ttl -= 1;
        }
        if via == Via::Network && ingress != Ingress::Local {
            if let Some(m) = self.middlebox_at(node) {
                let (kept, out) = self.middlebox_forward(m, pkt, sched);
                if let Some(kept) = kept {
                    self.forward_kept(node, kept, ingress, sched);
                }
                return self.emit(m, out, sched);
            }
        }
        self.send_on(node, pkt, src, dst, ingress, via, sched);
    }

    /// Sends a packet on from `node` towards `dst`, through the EPC's tunnels where it steers.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn send_on(
        &mut self,
        node: NodeId,
        mut pkt: Packet,
        src: Option<NodeId>,
        dst: NodeId,
        ingress: Ingress,
        via: Via,
        sched: &mut Scheduler<Event>,
    ) {
        let towards = match self
            .epc
            .as_mut()
            .map(|e| (e.steer(node, src, dst, ingress), e))
        {
            None | Some((Steer::Ip, _)) => dst,
            Some((Steer::ToGateway, e)) => e.gateway(),
            Some((Steer::Encapsulate { end, teid }, e)) => {
                e.stats_mut(node).encapsulated += 1;
                let nodes = &self.topo.nodes;
                let (here, there) = (nodes[node.index()].addr, nodes[end.index()].addr);
                gtp::encapsulate(&mut pkt, here, there, teid, e.ecn_decap());
                end
            }
        };
        match (self.topo.next_hop(node, towards), via) {
            (Some(dir), Via::Middlebox { expedite: true }) => {
                self.enqueue_expedited(dir, pkt, sched)
            }
            (Some(dir), _) => self.enqueue(dir, pkt, sched),
            (None, _) => self.count_drop(pkt.flow, DropCause::NoRoute, DropSite::Node(node)),
        }
    }

    pub(super) fn enqueue(&mut self, dir: DirId, pkt: Packet, sched: &mut Scheduler<Event>) {
        let now = sched.now();
        if dir.link() >= self.p2p_links {
            let m = self.edge_medium[dir.link() - self.p2p_links];
            let (from, to) = (self.topo.dir_from(dir), self.topo.dir_to(dir));
            let mut out = std::mem::take(&mut self.medium_out);
            self.media[m as usize]
                .medium
                .send(now, from, to, pkt, &mut out);
            self.after_medium(m, out, sched);
            return;
        }
        let flow = pkt.flow;
        let site = DropSite::Node(self.topo.dir_from(dir));
        let d = &mut self.dirs[dir.index()];
        // A base station handing over without buffer transfer discards what arrives.
        if d.refuses_arrival() {
            return self.count_drop(flow, DropCause::Handover, site);
        }
        let mut pkt = pkt;
        // The queue reads and marks the outermost ECN field (RFC 6040 §4); `start_next` swaps
        // the layers back when the packet leaves the queue.
        gtp::swap_ecn_layers(&mut pkt);
        if let Verdict::Dropped(cause) = d.enqueue(pkt, now) {
            self.count_drop(flow, cause, site);
        }
        let d = &mut self.dirs[dir.index()];
        if d.can_start() {
            // An idle transmitter takes the packet at once; occupancy is recorded after that, so
            // a packet that never waits does not count as queued.
            self.start_next(dir, sched);
        } else {
            d.record_occupancy(now);
        }
    }

    /// Starts serialising the next queued packet of an idle direction that is not held.
    pub(super) fn start_next(&mut self, dir: DirId, sched: &mut Scheduler<Event>) {
        let now = sched.now();
        let site = DropSite::Node(self.topo.dir_from(dir));
        let d = &mut self.dirs[dir.index()];
        if !d.can_start() {
            d.record_occupancy(now);
            return;
        }
        // Expedited packets never entered the queue (nor had their ECN layers swapped for it).
        let next = match self.expedited[dir.index()].pop_front() {
            Some(p) => Some(p),
            None => {
                let (counters, traces) = (&mut self.flow_counters, &mut self.traces);
                d.queue
                    .dequeue(now, &mut |p, cause| {
                        count_drop(counters, traces, now, p.flow, cause, site)
                    })
                    .map(|mut p| {
                        gtp::swap_ecn_layers(&mut p);
                        p
                    })
            }
        };
        d.record_occupancy(now);
        if let Some(pkt) = next {
            let done = d.start_transmission(pkt, now);
            sched
                .schedule_at(done, Event::TxDone(dir))
                .expect("transmission ends in the future");
            self.capture(dir, now, &pkt);
        }
    }

    pub(super) fn tx_done(&mut self, dir: DirId, sched: &mut Scheduler<Event>) {
        let now = sched.now();
        match self.dirs[dir.index()].finish_transmission(now) {
            Ok(arrival) => sched
                .schedule_at(arrival, Event::Arrive(dir))
                .expect("arrival is in the future"),
            Err((lost, cause)) => {
                self.count_drop(lost.flow, cause, DropSite::Node(self.topo.dir_from(dir)));
                if cause == DropCause::LinkLoss {
                    self.middlebox_link_loss(dir, &lost, sched);
                }
            }
        }
        self.start_next(dir, sched);
        self.egress_idle(dir, sched);
    }
}
