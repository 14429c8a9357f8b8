//! The X2-U forwarding of each base station: the G-PDUs and end markers a medium asks it to
//! forward wait in the station's [`ForwardingBuffer`] and enter its transport interface one at
//! a time (see [`crate::forwarding`] for the model and its parameters).
//!
//! Back-pressure rule: the head packet enters the egress direction towards its tunnel end only
//! when that direction has nothing queued and its transmitter is idle (and, with a rate, not
//! before the pace allows). The forwarding therefore uses the interface at its line rate at
//! most, yields to any other traffic the station sends on it, and never overflows the
//! station's own egress queue; what the routers further on do with the burst is theirs (seed
//! 000's double queueing). On a medium edge there is no queue to watch and only the pace
//! applies.
//!
//! Call-order contract: a packet is handed to the buffer when the medium's request is carried
//! out; the buffer is then pumped at once, again after every transmission of the egress
//! direction it waits on (`TxDone`, after the transmitter took its next queued packet), when
//! that direction is released from a hold, and at the pacing deadline (`Event::Forwarding`).
//! An end marker follows every G-PDU handed over before it (TS 29.281 §7.3.2).

use celltcp_engine::{Scheduler, SimTime};

use super::{DropSite, Event, World};
use crate::forwarding::{ForwardingBuffer, ForwardingConfig, Offer};
use crate::gtp::Ingress;
use crate::packet::{NodeId, Packet};
use crate::queue::DropCause;
use crate::topology::DirId;

/// Why the head of a forwarding buffer cannot leave now.
enum Blocked {
    /// The egress direction is busy: wait for its `TxDone`.
    Egress,
    /// The pace allows it at this time.
    Until(SimTime),
}

impl World {
    /// The forwarding buffer of base station `node`, created with the default configuration
    /// (line rate, unlimited) if the builder gave it none.
    fn forwarder(&mut self, node: NodeId) -> &mut ForwardingBuffer {
        self.forwarders[node.index()]
            .get_or_insert_with(|| ForwardingBuffer::new(ForwardingConfig::default()))
    }

    /// The forwarding buffer of `node`, if it ever forwarded or was configured.
    pub fn forwarding_buffer(&self, node: NodeId) -> Option<&ForwardingBuffer> {
        self.forwarders.get(node.index()).and_then(Option::as_ref)
    }

    /// Every base station's forwarding buffer, in node order.
    pub fn forwarding_buffers(&self) -> impl Iterator<Item = (NodeId, &ForwardingBuffer)> {
        self.forwarders
            .iter()
            .enumerate()
            .filter_map(|(n, f)| f.as_ref().map(|f| (NodeId::from_index(n), f)))
    }

    /// Hands an encapsulated X2-U packet of base station `node` to its forwarding buffer.
    pub(super) fn forward_from(&mut self, node: NodeId, pkt: Packet, sched: &mut Scheduler<Event>) {
        let now = sched.now();
        if let Offer::Full(lost) = self.forwarder(node).offer(pkt, now) {
            self.count_drop(lost.flow, DropCause::QueueFull, DropSite::Node(node));
        }
        self.pump_forwarder(node, sched);
    }

    /// Moves what may leave `node`'s forwarding buffer now into the network.
    pub(super) fn pump_forwarder(&mut self, node: NodeId, sched: &mut Scheduler<Event>) {
        let now = sched.now();
        loop {
            let Some(f) = self.forwarders[node.index()].as_ref() else {
                return;
            };
            let Some(head) = f.head() else {
                return;
            };
            let Some(egress) = self.egress_towards(node, head) else {
                let lost = self.forwarder(node).release(now).expect("head exists");
                self.count_drop(lost.flow, DropCause::NoRoute, DropSite::Node(node));
                continue;
            };
            match self.blocked(node, egress, now) {
                None => {
                    let pkt = self.forwarder(node).release(now).expect("head exists");
                    self.route(node, pkt, Ingress::Local, sched);
                }
                Some(Blocked::Egress) => return,
                Some(Blocked::Until(at)) => {
                    let f = self.forwarder(node);
                    if f.timer != Some(at) {
                        f.timer = Some(at);
                        sched
                            .schedule_at(at, Event::Forwarding(node))
                            .expect("pace deadline is in the future");
                    }
                    return;
                }
            }
        }
    }

    /// The pacing deadline of `node`'s forwarding buffer: stale unless it is the pending one.
    pub(super) fn forwarding_timer(&mut self, node: NodeId, sched: &mut Scheduler<Event>) {
        let Some(f) = self.forwarders[node.index()].as_mut() else {
            return;
        };
        if f.timer != Some(sched.now()) {
            return;
        }
        f.timer = None;
        self.pump_forwarder(node, sched);
    }

    /// After point-to-point direction `dir` took its next packet (or was released from a
    /// hold): the forwarding of its sending node may go on.
    pub(super) fn egress_idle(&mut self, dir: DirId, sched: &mut Scheduler<Event>) {
        let node = self.topo.dir_from(dir);
        if self.forwarders[node.index()]
            .as_ref()
            .is_some_and(|f| !f.is_empty())
        {
            self.pump_forwarder(node, sched);
        }
    }

    /// The first direction out of `node` towards the end of `pkt`'s tunnel.
    fn egress_towards(&self, node: NodeId, pkt: &Packet) -> Option<DirId> {
        let end = self.topo.node_by_addr(pkt.tunnel?.outer_dst)?;
        self.topo.next_hop(node, end)
    }

    /// Whether the head of `node`'s buffer must wait (module documentation).
    fn blocked(&self, node: NodeId, egress: DirId, now: SimTime) -> Option<Blocked> {
        let f = self.forwarders[node.index()].as_ref()?;
        if (egress.link()) < self.p2p_links {
            let d = &self.dirs[egress.index()];
            let busy = !d.can_start()
                || d.queue.len_packets() > 0
                || !self.expedited[egress.index()].is_empty();
            if busy {
                return Some(Blocked::Egress);
            }
        }
        match f.ready_at(now) {
            Some(at) if at > now => Some(Blocked::Until(at)),
            _ => None,
        }
    }
}
