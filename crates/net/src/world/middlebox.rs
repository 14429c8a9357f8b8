//! Middleboxes in the world: the plumbing that drives a [`Middlebox`] on a router.
//!
//! Call contract (the one of [`crate::middlebox`], carried out here):
//! * `on_forward` for every packet the node is about to forward that arrived over a link, over
//!   the radio or out of a GTP-U tunnel (not one sent by an agent on the node), is not addressed
//!   to the node, is not tunnelled and was not emitted by the middlebox. It runs after the
//!   router's TTL check and decrement (RFC 791), so a packet the middlebox keeps and sends again
//!   later carries the TTL it was forwarded with. The forwarded packet (if any) is routed first,
//!   then the emitted ones in order;
//! * `on_link_loss` when the loss model of a point-to-point link direction leaving the node
//!   loses a packet ([`DropCause::LinkLoss`]; outages and queue drops are not reported), after
//!   the drop has been counted and before the direction starts on its next packet;
//! * `on_timer` at the deadline `poll_timeout` returned, re-read after every call (a
//!   superseded timer event is recognised by its generation, as for media).
//!
//! Emitted packets (`ctx.out`) get a fresh uid, the node's address when their source is
//! unspecified, and are routed from the node without passing through its middlebox again and
//! without a TTL decrement (the middlebox wrote the header). Every emitted packet is a new
//! transmission into the network — a Snoop local retransmission as much as a proxy's own
//! segment — so it counts in its flow's `packets_sent`/`bytes_sent`, and also in
//! `middlebox_packets_sent`/`middlebox_bytes_sent`, which tell it apart from what the flow's
//! agents sent. A packet the middlebox absorbs is no drop: it counts in the flow's
//! `middlebox_absorbed`. A packet a middlebox asks to [`Middlebox::expedite`] skips the queue
//! of the point-to-point link it leaves on: it waits only for the packet being serialised and
//! for earlier expedited packets, and it is not counted in the queue's statistics or occupancy
//! (it never entered the queue); a flush of the direction's buffer discards it too.
//!
//! With an EPC an emitted packet continues the forwarding path it stands in: from a UE with a
//! bearer it is routed as if it came over the radio (an eNB puts it in the UE's S1-U bearer),
//! anything else as if just out of its tunnel (an eNB sends it on to its UE, not back to the
//! gateway). A middlebox emits plain IP packets: a tunnelled one is dropped
//! ([`DropCause::NoRoute`]).

use std::net::Ipv4Addr;

use celltcp_engine::{RngStream, Scheduler, SimTime};

use super::counters::{count_drop, flow_mut, DropSite};
use super::{Event, World, WorldBuilder};
use crate::gtp::Ingress;
use crate::middlebox::{Middlebox, MiddleboxCtx};
use crate::packet::{NodeId, Packet};
use crate::queue::DropCause;
use crate::topology::{DirId, NodeKind};

/// Why a middlebox could not be placed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MiddleboxError {
    #[error("middlebox '{name}': node {node} does not exist")]
    UnknownNode { name: String, node: NodeId },
    #[error("middlebox '{name}': node '{node}' is a host; only routers forward packets")]
    NotARouter { name: String, node: String },
    #[error("middlebox '{name}': node '{node}' already has middlebox '{existing}' (at most one per node)")]
    Occupied {
        name: String,
        node: String,
        existing: String,
    },
}

/// What the world counts for each middlebox, whatever it is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MiddleboxStats {
    /// Packets handed to `on_forward`.
    pub packets_seen: u64,
    /// Of those, packets the middlebox absorbed.
    pub packets_absorbed: u64,
    /// Packets the middlebox emitted, and their IP bytes.
    pub packets_emitted: u64,
    pub bytes_emitted: u64,
    /// Of those, packets sent ahead of a link's queue.
    pub packets_expedited: u64,
    /// Link losses reported through `on_link_loss`.
    pub link_losses: u64,
    /// Timer calls (`on_timer`).
    pub timer_calls: u64,
}

/// A middlebox with its node, random stream, pending timer and counters.
pub(super) struct MiddleboxSlot {
    node: NodeId,
    middlebox: Box<dyn Middlebox>,
    rng: RngStream,
    /// Deadline of the pending timer event, if any.
    timer: Option<SimTime>,
    generation: u32,
    stats: MiddleboxStats,
}

/// One middlebox of the world, for summaries.
pub struct MiddleboxInfo<'a> {
    pub node: NodeId,
    pub middlebox: &'a dyn Middlebox,
    pub stats: &'a MiddleboxStats,
}

/// How a packet reached the routing step of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Via {
    /// From a link, the radio, a tunnel or a local agent: the router's own forwarding applies.
    Network,
    /// Emitted by the node's middlebox: no TTL step, no middlebox, possibly ahead of the queue.
    Middlebox { expedite: bool },
}

impl WorldBuilder {
    /// Places `middlebox` on router `node`, drawing from the random stream `rng_path` (e.g.
    /// `middlebox/snoop`). A node has at most one middlebox; hosts have none (they forward
    /// nothing). Returns the middlebox's index, in the order added.
    pub fn add_middlebox(
        &mut self,
        node: NodeId,
        rng_path: &str,
        middlebox: Box<dyn Middlebox>,
    ) -> Result<u32, MiddleboxError> {
        let name = middlebox.name().to_string();
        let Some(n) = self.nodes.get(node.index()) else {
            return Err(MiddleboxError::UnknownNode { name, node });
        };
        if n.kind == NodeKind::Host {
            return Err(MiddleboxError::NotARouter {
                name,
                node: n.name.clone(),
            });
        }
        if let Some(other) = self.middleboxes.iter().find(|s| s.node == node) {
            return Err(MiddleboxError::Occupied {
                name,
                node: n.name.clone(),
                existing: other.middlebox.name().to_string(),
            });
        }
        self.middleboxes.push(MiddleboxSlot {
            node,
            middlebox,
            rng: RngStream::new(self.seed, self.run, rng_path),
            timer: None,
            generation: 0,
            stats: MiddleboxStats::default(),
        });
        Ok((self.middleboxes.len() - 1) as u32)
    }
}

/// The middlebox of each node, by node index.
pub(super) fn middlebox_of_node(slots: &[MiddleboxSlot], nodes: usize) -> Vec<Option<u32>> {
    let mut of_node = vec![None; nodes];
    for (m, s) in slots.iter().enumerate() {
        if let Some(e) = of_node.get_mut(s.node.index()) {
            *e = Some(m as u32);
        }
    }
    of_node
}

impl World {
    /// The middleboxes, in the order added, with their nodes and the world's counters.
    pub fn middleboxes(&self) -> impl Iterator<Item = MiddleboxInfo<'_>> {
        self.middleboxes.iter().map(|s| MiddleboxInfo {
            node: s.node,
            middlebox: s.middlebox.as_ref(),
            stats: &s.stats,
        })
    }

    /// The middlebox on `node`, if any.
    #[inline]
    pub(super) fn middlebox_at(&self, node: NodeId) -> Option<u32> {
        self.middlebox_of_node.get(node.index()).copied().flatten()
    }

    /// Runs one middlebox callback, re-arms its timer, and returns what the callback returned
    /// with the packets it emitted (to be routed with [`World::emit`]).
    fn call_middlebox<R>(
        &mut self,
        m: u32,
        sched: &mut Scheduler<Event>,
        f: impl FnOnce(&mut dyn Middlebox, &mut MiddleboxCtx<'_>) -> R,
    ) -> (R, Vec<Packet>) {
        let mut out = std::mem::take(&mut self.middlebox_out);
        let slot = &mut self.middleboxes[m as usize];
        let r = {
            let mut ctx = MiddleboxCtx {
                now: sched.now(),
                out: &mut out,
                rng: &mut slot.rng,
                traces: &mut self.traces,
            };
            f(slot.middlebox.as_mut(), &mut ctx)
        };
        self.rearm_middlebox(m, sched);
        (r, out)
    }

    /// Hands a packet the node is forwarding to middlebox `m`; returns the packet to forward
    /// (`None`: absorbed) and the packets emitted meanwhile.
    pub(super) fn middlebox_forward(
        &mut self,
        m: u32,
        pkt: Packet,
        sched: &mut Scheduler<Event>,
    ) -> (Option<Packet>, Vec<Packet>) {
        let flow = pkt.flow;
        self.middleboxes[m as usize].stats.packets_seen += 1;
        let (kept, out) = self.call_middlebox(m, sched, |mb, ctx| mb.on_forward(pkt, ctx));
        if kept.is_none() {
            self.middleboxes[m as usize].stats.packets_absorbed += 1;
            if let Some(c) = flow_mut(&mut self.flow_counters, flow) {
                c.middlebox_absorbed += 1;
            }
        }
        (kept, out)
    }

    /// Forwards the packet `on_forward` returned, re-reading its addresses (the middlebox may
    /// have rewritten them): to a local agent when it is now addressed to the node.
    pub(super) fn forward_kept(
        &mut self,
        node: NodeId,
        pkt: Packet,
        ingress: Ingress,
        sched: &mut Scheduler<Event>,
    ) {
        let src = self.topo.node_by_addr(pkt.ip.src);
        match self.topo.node_by_addr(pkt.ip.dst) {
            Some(dst) if dst == node => self.deliver_local(node, pkt, sched),
            Some(dst) => self.send_on(node, pkt, src, dst, ingress, Via::Network, sched),
            None => self.count_drop(pkt.flow, DropCause::NoRoute, DropSite::Node(node)),
        }
    }

    /// The loss model of direction `dir` lost `pkt`: tells the middlebox of the sending node.
    pub(super) fn middlebox_link_loss(
        &mut self,
        dir: DirId,
        pkt: &Packet,
        sched: &mut Scheduler<Event>,
    ) {
        let Some(m) = self.middlebox_at(self.topo.dir_from(dir)) else {
            return;
        };
        self.middleboxes[m as usize].stats.link_losses += 1;
        let ((), out) = self.call_middlebox(m, sched, |mb, ctx| mb.on_link_loss(pkt, ctx));
        self.emit(m, out, sched);
    }

    /// A middlebox timer event; stale if the generation no longer matches.
    pub(super) fn middlebox_timer(
        &mut self,
        m: u32,
        generation: u32,
        sched: &mut Scheduler<Event>,
    ) {
        let slot = &mut self.middleboxes[m as usize];
        if slot.generation != generation {
            return; // superseded
        }
        slot.timer = None;
        slot.stats.timer_calls += 1;
        let ((), out) = self.call_middlebox(m, sched, |mb, ctx| mb.on_timer(ctx));
        self.emit(m, out, sched);
    }

    /// Schedules middlebox `m`'s timer at its deadline when the deadline changed.
    pub(super) fn rearm_middlebox(&mut self, m: u32, sched: &mut Scheduler<Event>) {
        let slot = &mut self.middleboxes[m as usize];
        let deadline = slot.middlebox.poll_timeout();
        if deadline != slot.timer {
            slot.generation = slot.generation.wrapping_add(1);
            slot.timer = deadline;
            if let Some(at) = deadline {
                let at = at.max(sched.now());
                sched
                    .schedule_at(at, Event::MiddleboxTimer(m, slot.generation))
                    .expect("clamped to now");
            }
        }
    }

    /// Routes the packets middlebox `m` emitted, in order, from its node; keeps the buffer.
    pub(super) fn emit(&mut self, m: u32, mut out: Vec<Packet>, sched: &mut Scheduler<Event>) {
        let node = self.middleboxes[m as usize].node;
        let src_addr = self.topo.nodes[node.index()].addr;
        for mut pkt in out.drain(..) {
            if pkt.tunnel.is_some() {
                self.count_drop(pkt.flow, DropCause::NoRoute, DropSite::Node(node));
                continue;
            }
            pkt.uid = self.next_uid();
            pkt.ip.id = pkt.uid as u16;
            if pkt.ip.src == Ipv4Addr::UNSPECIFIED {
                pkt.ip.src = src_addr;
            }
            let size = pkt.size_bytes() as u64;
            if let Some(c) = flow_mut(&mut self.flow_counters, pkt.flow) {
                c.packets_sent += 1;
                c.bytes_sent += size;
                c.middlebox_packets_sent += 1;
                c.middlebox_bytes_sent += size;
            }
            let slot = &mut self.middleboxes[m as usize];
            let expedite = slot.middlebox.expedite(&pkt);
            slot.stats.packets_emitted += 1;
            slot.stats.bytes_emitted += size;
            let ingress = self.emitted_ingress(&pkt);
            self.route_from(node, pkt, ingress, Via::Middlebox { expedite }, sched);
        }
        // Keep the larger buffer; a nested call may have left its own (empty) one.
        if self.middlebox_out.capacity() < out.capacity() {
            self.middlebox_out = out;
        }
    }

    /// The ingress an emitted packet is routed under (see the module documentation).
    fn emitted_ingress(&self, pkt: &Packet) -> Ingress {
        let from_ue = self.epc.as_ref().is_some_and(|e| {
            self.topo
                .node_by_addr(pkt.ip.src)
                .is_some_and(|src| e.bearer(src).is_some())
        });
        if from_ue {
            Ingress::Radio
        } else {
            Ingress::Tunnel
        }
    }

    /// Puts an emitted packet ahead of the queue of point-to-point direction `dir`; on a medium
    /// edge it is sent as any other packet.
    pub(super) fn enqueue_expedited(
        &mut self,
        dir: DirId,
        pkt: Packet,
        sched: &mut Scheduler<Event>,
    ) {
        if dir.link() >= self.p2p_links {
            return self.enqueue(dir, pkt, sched);
        }
        let node = self.topo.dir_from(dir);
        if let Some(m) = self.middlebox_at(node) {
            self.middleboxes[m as usize].stats.packets_expedited += 1;
        }
        let d = &mut self.dirs[dir.index()];
        if d.refuses_arrival() {
            let site = DropSite::Node(node);
            return self.count_drop(pkt.flow, DropCause::Handover, site);
        }
        self.expedited[dir.index()].push_back(pkt);
        if self.dirs[dir.index()].can_start() {
            self.start_next(dir, sched);
        }
    }

    /// Discards the expedited packets waiting on `dir` (a flush of its buffer), counting each
    /// as a handover drop of the direction and of its flow.
    pub(super) fn flush_expedited(&mut self, dir: DirId) {
        let site = DropSite::Node(self.topo.dir_from(dir));
        let lane = &mut self.expedited[dir.index()];
        let n = lane.len() as u64;
        for p in lane.drain(..) {
            let (counters, traces) = (&mut self.flow_counters, &mut self.traces);
            count_drop(
                counters,
                traces,
                self.now,
                p.flow,
                DropCause::Handover,
                site,
            );
        }
        self.dirs[dir.index()].stats.drops_handover += n;
    }
}
