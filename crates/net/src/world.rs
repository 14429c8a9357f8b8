//! The network as one engine [`Model`]: nodes forward packets along static routes, link
//! directions queue, serialise, lose and propagate them, and agents on hosts send and receive.
//!
//! With an EPC ([`crate::gtp`]) the world also steers the UEs' packets through the S-GW/P-GW
//! and carries them in GTP-U tunnels on S1-U: [`WorldBuilder::epc`] sets it up,
//! [`World::switch_path`] moves a UE's downlink tunnel at run time.
//!
//! Same-time events run in the order they were scheduled (the engine's FIFO rule), so a run is a
//! pure function of its inputs. Per-packet work allocates nothing: packets are values, pipes and
//! queues reuse their buffers, and the agents' output buffer is recycled.

use std::io;
use std::net::Ipv4Addr;

use celltcp_engine::{Model, RngStream, Scheduler, SimDuration, SimTime};

use crate::agent::{Agent, AgentCtx};
use crate::gtp::{self, CeFate, Decapsulated, Epc, EpcConfig, EpcError, Ingress, Steer};
use crate::link::{LinkDir, LinkDirConfig};
use crate::medium::{Medium, MediumOutput};
use crate::packet::{FlowId, NodeId, Packet, Transport};
use crate::queue::{DropCause, Verdict};
use crate::stats::Histogram;
use crate::topology::{DirId, LinkEnds, Node, NodeKind, Topology};
use crate::trace::Traces;

/// IP protocol numbers used for demultiplexing.
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;

/// Index of an agent in the world.
pub type AgentId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The transmitter of a direction finished serialising its packet.
    TxDone(DirId),
    /// The oldest packet in a direction's pipe reaches the far end.
    Arrive(DirId),
    AgentStart(AgentId),
    /// An agent's timer; stale if the generation no longer matches.
    AgentTimer(AgentId, u32),
    /// Periodic sampling of the opt-in time series.
    Sample,
    /// A scheduled change of a link direction (index into the world's change list).
    LinkChange(u32),
    /// A medium's internal deadline; stale if the generation no longer matches.
    MediumTimer(u32, u32),
}

/// A change to one link direction at a scheduled time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkChange {
    /// New propagation delay, for packets that finish serialisation from now on.
    pub delay: Option<SimDuration>,
    /// New rate in bits per second, from the next packet serialised.
    pub rate_bps: Option<u64>,
    /// Start (true) or end (false) an outage.
    pub down: Option<bool>,
}

/// Where captured packets go (a pcap writer).
pub trait CaptureSink {
    fn capture(&mut self, t: SimTime, pkt: &Packet) -> io::Result<()>;
    fn finish(&mut self) -> io::Result<()>;
}

/// Per-flow counters kept by the network itself (independent of the transport).
#[derive(Clone, Debug, Default)]
pub struct FlowCounters {
    /// Packets and IP bytes the flow's agents handed to the network, both directions.
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Packets and IP bytes delivered to the flow's destination host.
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    /// Packets of the flow dropped, by cause (both directions).
    pub drops_queue_full: u64,
    pub drops_aqm: u64,
    pub drops_link_loss: u64,
    pub drops_no_route: u64,
    pub drops_outage: u64,
    /// Packets dropped when leaving a GTP-U tunnel: outer CE over a Not-ECT inner packet
    /// (RFC 6040 §4.2).
    pub drops_ecn_decap: u64,
    /// One-way delay of the packets delivered to the destination, nanoseconds.
    pub delay_ns: Histogram,
    /// RFC 3550 §6.4.1 interarrival jitter of those packets, nanoseconds.
    pub jitter_ns: f64,
    last_transit_ns: Option<u64>,
    bytes_at_last_sample: u64,
}

impl FlowCounters {
    pub fn drops(&self) -> u64 {
        self.drops_queue_full
            + self.drops_aqm
            + self.drops_link_loss
            + self.drops_no_route
            + self.drops_outage
            + self.drops_ecn_decap
    }

    /// A packet of the flow reached its destination after `transit_ns`.
    fn delivered(&mut self, size_bytes: u32, transit_ns: u64) {
        self.packets_delivered += 1;
        self.bytes_delivered += size_bytes as u64;
        self.delay_ns.record(transit_ns);
        // RFC 3550 §6.4.1: D = transit_j − transit_i; J += (|D| − J)/16.
        if let Some(prev) = self.last_transit_ns {
            let d = transit_ns.abs_diff(prev) as f64;
            self.jitter_ns += (d - self.jitter_ns) / 16.0;
        }
        self.last_transit_ns = Some(transit_ns);
    }

    fn count_drop(&mut self, cause: DropCause) {
        match cause {
            DropCause::QueueFull => self.drops_queue_full += 1,
            DropCause::Aqm => self.drops_aqm += 1,
            DropCause::LinkLoss => self.drops_link_loss += 1,
            DropCause::NoRoute => self.drops_no_route += 1,
            DropCause::Outage => self.drops_outage += 1,
        }
    }
}

/// Sampled queue lengths: one row per traced direction per sampling instant.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueSeries {
    pub time_ns: Vec<u64>,
    pub link: Vec<u32>,
    /// 0 = a→b, 1 = b→a.
    pub direction: Vec<u32>,
    pub packets: Vec<u32>,
    pub bytes: Vec<u64>,
}

/// Sampled per-flow delivery rate at the destination host (IP bytes, bits per second).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowRateSeries {
    pub time_ns: Vec<u64>,
    pub flow: Vec<u32>,
    pub rate_bps: Vec<f64>,
}

/// One row per packet delivered to a traced flow's destination.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PacketSeries {
    pub time_ns: Vec<u64>,
    pub flow: Vec<u32>,
    pub delay_ns: Vec<u64>,
    pub size_bytes: Vec<u32>,
    pub app_seq: Vec<u64>,
}

/// Sampled state of traced media (cells): one row per medium, figure and sampling instant.
/// `figure` indexes `keys`, the figure names in the order first seen (`ue.<node>.<name>` or a
/// medium-level name).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MediumSeries {
    pub time_ns: Vec<u64>,
    pub medium: Vec<u32>,
    pub figure: Vec<u32>,
    pub value: Vec<f64>,
    pub keys: Vec<String>,
}

/// Which opt-in series to collect.
#[derive(Clone, Debug, Default)]
pub struct SeriesConfig {
    pub interval: SimDuration,
    pub queue_links: Vec<u32>,
    pub rate_flows: Vec<FlowId>,
    pub packet_flows: Vec<FlowId>,
    /// Media (by index in the order added) whose state is sampled.
    pub media: Vec<u32>,
}

struct AgentSlot {
    node: NodeId,
    flow: FlowId,
    proto: u8,
    port: u16,
    start: SimTime,
    agent: Box<dyn Agent>,
    rng: RngStream,
    /// Deadline of the pending timer event, if any.
    timer: Option<SimTime>,
    generation: u32,
}

/// An agent bound to a host: its protocol, port and flow.
#[derive(Clone, Copy, Debug)]
struct Binding {
    proto: u8,
    port: u16,
    flow: FlowId,
    agent: AgentId,
}

struct FlowEnds {
    dst: NodeId,
}

/// Collects the parts of a world; [`WorldBuilder::build`] computes routes.
pub struct WorldBuilder {
    seed: u64,
    run: u64,
    nodes: Vec<Node>,
    links: Vec<LinkEnds>,
    dirs: Vec<LinkDir>,
    agents: Vec<AgentSlot>,
    flows: Vec<FlowEnds>,
    series: SeriesConfig,
    traces: Traces,
    captures: Vec<(u32, Box<dyn CaptureSink>)>,
    changes: Vec<(SimTime, DirId, LinkChange)>,
    media: Vec<MediumSlot>,
    epc: Option<Epc>,
}

/// A medium with its random stream and its pending timer.
struct MediumSlot {
    medium: Box<dyn Medium>,
    rng: RngStream,
    timer: Option<SimTime>,
    generation: u32,
}

impl WorldBuilder {
    pub fn new(seed: u64, run: u64) -> Self {
        WorldBuilder {
            seed,
            run,
            nodes: Vec::new(),
            links: Vec::new(),
            dirs: Vec::new(),
            agents: Vec::new(),
            flows: Vec::new(),
            series: SeriesConfig::default(),
            traces: Traces::default(),
            captures: Vec::new(),
            changes: Vec::new(),
            media: Vec::new(),
            epc: None,
        }
    }

    /// Attaches a shared medium (a cell); its edges become routable after every link added
    /// with [`WorldBuilder::add_link`]. It draws from the stream `rng_path` (e.g. `cell/enb1`).
    pub fn add_medium(&mut self, rng_path: &str, medium: Box<dyn Medium>) -> u32 {
        self.media.push(MediumSlot {
            rng: RngStream::new(self.seed, self.run, rng_path),
            medium,
            timer: None,
            generation: 0,
        });
        (self.media.len() - 1) as u32
    }

    /// Schedules `change` of direction `dir` at `at`; changes at equal times apply in the
    /// order they were added.
    pub fn link_change(&mut self, at: SimTime, dir: DirId, change: LinkChange) {
        self.changes.push((at, dir, change));
    }

    pub fn add_node(&mut self, name: &str, kind: NodeKind, addr: Ipv4Addr) -> NodeId {
        self.nodes.push(Node { name: name.to_string(), kind, addr });
        (self.nodes.len() - 1) as NodeId
    }

    /// Adds a full-duplex link; each direction draws its loss and queue randomness from the
    /// streams `link/NAME/a_to_b/loss`, `link/NAME/a_to_b/queue` (and `b_to_a`).
    pub fn add_link(
        &mut self,
        name: &str,
        a: NodeId,
        b: NodeId,
        metric: u32,
        a_to_b: LinkDirConfig,
        b_to_a: LinkDirConfig,
    ) -> u32 {
        for (dir_name, cfg) in [("a_to_b", a_to_b), ("b_to_a", b_to_a)] {
            let path = format!("link/{name}/{dir_name}");
            let loss_rng = RngStream::new(self.seed, self.run, &format!("{path}/loss"));
            let queue_rng = RngStream::new(self.seed, self.run, &format!("{path}/queue"));
            self.dirs.push(LinkDir::new(cfg, loss_rng, queue_rng));
        }
        self.links.push(LinkEnds { name: name.to_string(), a, b, metric });
        (self.links.len() - 1) as u32
    }

    /// Declares a flow whose data is delivered to `dst` (for the network's own counters).
    pub fn add_flow(&mut self, dst: NodeId) -> FlowId {
        self.flows.push(FlowEnds { dst });
        (self.flows.len() - 1) as FlowId
    }

    /// Places an agent of `flow` on `node`, receiving `proto` packets for `port`, started at
    /// `start`, with the random stream named `rng_path` (e.g. `flow/video/src`).
    pub fn add_agent(
        &mut self,
        node: NodeId,
        flow: FlowId,
        proto: u8,
        port: u16,
        start: SimTime,
        rng_path: &str,
        agent: Box<dyn Agent>,
    ) -> AgentId {
        self.agents.push(AgentSlot {
            node,
            flow,
            proto,
            port,
            start,
            agent,
            rng: RngStream::new(self.seed, self.run, rng_path),
            timer: None,
            generation: 0,
        });
        (self.agents.len() - 1) as AgentId
    }

    pub fn series(&mut self, cfg: SeriesConfig) {
        self.series = cfg;
    }

    pub fn traces(&mut self, traces: Traces) {
        self.traces = traces;
    }

    /// Captures every packet that starts transmission on `link`, both directions.
    pub fn capture(&mut self, link: u32, sink: Box<dyn CaptureSink>) {
        self.captures.push((link, sink));
    }

    pub fn node_addr(&self, node: NodeId) -> Ipv4Addr {
        self.nodes[node as usize].addr
    }

    /// Gives the world an EPC: a combined S-GW/P-GW, eNBs and the UEs they serve, with GTP-U
    /// tunnels on S1-U (see [`crate::gtp`]). Call after adding the nodes it names.
    pub fn epc(&mut self, cfg: &EpcConfig) -> Result<(), EpcError> {
        self.epc = Some(Epc::new(cfg, self.nodes.len())?);
        Ok(())
    }

    pub fn build(self) -> World {
        let p2p_links = self.links.len();
        let mut links = self.links;
        let mut edge_medium = Vec::new();
        for (m, slot) in self.media.iter().enumerate() {
            for (a, b) in slot.medium.edges() {
                let name = format!("{}:{}-{}", slot.medium.name(), self.nodes[a as usize].name, self.nodes[b as usize].name);
                links.push(LinkEnds { name, a, b, metric: 1 });
                edge_medium.push(m as u32);
            }
        }
        let topo = Topology::new(self.nodes, links);
        let mut demux: Vec<Vec<Binding>> = vec![Vec::new(); topo.nodes.len()];
        for (i, a) in self.agents.iter().enumerate() {
            demux[a.node as usize].push(Binding { proto: a.proto, port: a.port, flow: a.flow, agent: i as AgentId });
        }
        let mut capture_of_dir = vec![None; self.dirs.len()];
        let mut captures = Vec::new();
        for (link, sink) in self.captures {
            capture_of_dir[2 * link as usize] = Some(captures.len() as u32);
            capture_of_dir[2 * link as usize + 1] = Some(captures.len() as u32);
            captures.push(sink);
        }
        let mut queue_traced = vec![false; p2p_links];
        for &l in &self.series.queue_links {
            queue_traced[l as usize] = true;
        }
        let mut packet_traced = vec![false; self.flows.len()];
        for &f in &self.series.packet_flows {
            packet_traced[f as usize] = true;
        }
        World {
            flow_counters: vec![FlowCounters::default(); self.flows.len()],
            flows: self.flows,
            topo,
            dirs: self.dirs,
            agents: self.agents,
            demux,
            traces: self.traces,
            series_cfg: self.series,
            queue_traced,
            packet_traced,
            queue_series: QueueSeries::default(),
            rate_series: FlowRateSeries::default(),
            packet_series: PacketSeries::default(),
            medium_series: MediumSeries::default(),
            medium_keys: std::collections::HashMap::new(),
            medium_sample: Vec::new(),
            captures,
            capture_of_dir,
            capture_error: None,
            next_uid: 1,
            out_buf: Vec::new(),
            changes: self.changes,
            p2p_links,
            edge_medium,
            media: self.media,
            medium_out: MediumOutput::default(),
            epc: self.epc,
        }
    }
}

pub struct World {
    pub topo: Topology,
    pub dirs: Vec<LinkDir>,
    agents: Vec<AgentSlot>,
    /// Per node: the agents bound to it.
    demux: Vec<Vec<Binding>>,
    flows: Vec<FlowEnds>,
    pub flow_counters: Vec<FlowCounters>,
    pub traces: Traces,
    series_cfg: SeriesConfig,
    queue_traced: Vec<bool>,
    packet_traced: Vec<bool>,
    pub queue_series: QueueSeries,
    pub rate_series: FlowRateSeries,
    pub packet_series: PacketSeries,
    pub medium_series: MediumSeries,
    /// Figure name → index in `medium_series.keys`.
    medium_keys: std::collections::HashMap<String, u32>,
    /// Reused buffer for media samples.
    medium_sample: Vec<crate::medium::MediumFigure>,
    captures: Vec<Box<dyn CaptureSink>>,
    capture_of_dir: Vec<Option<u32>>,
    capture_error: Option<io::Error>,
    next_uid: u64,
    out_buf: Vec<Packet>,
    changes: Vec<(SimTime, DirId, LinkChange)>,
    /// Links `0..p2p_links` of the topology are point-to-point; the rest are medium edges.
    p2p_links: usize,
    /// The medium of each medium edge (index `link - p2p_links`).
    edge_medium: Vec<u32>,
    media: Vec<MediumSlot>,
    medium_out: MediumOutput,
    /// The EPC's bearer table and tunnel endpoints, when the world has one.
    epc: Option<Epc>,
}

impl World {
    /// Number of point-to-point links (the first links of the topology).
    pub fn p2p_links(&self) -> usize {
        self.p2p_links
    }

    /// The media (cells) of the world.
    pub fn media(&self) -> impl Iterator<Item = &dyn Medium> {
        self.media.iter().map(|m| m.medium.as_ref())
    }

    /// The EPC (bearer table, tunnel endpoint counters), if the world has one.
    pub fn epc(&self) -> Option<&Epc> {
        self.epc.as_ref()
    }

    /// S1 path switch: from now on the gateway tunnels `ue`'s downlink to `enb`, under a TEID
    /// `enb` allocates (returned). Packets already in flight keep their tunnel.
    pub fn switch_path(&mut self, ue: NodeId, enb: NodeId) -> Result<u32, EpcError> {
        match self.epc.as_mut() {
            Some(epc) => epc.switch_path(ue, enb),
            None => Err(EpcError::NoBearer { ue }),
        }
    }

    /// Schedules the agents' start events and the first sample; call once before running.
    pub fn schedule_initial(&self, sched: &mut Scheduler<Event>) {
        for (i, a) in self.agents.iter().enumerate() {
            sched.schedule_at(a.start, Event::AgentStart(i as AgentId)).expect("start times are >= 0");
        }
        for (i, (at, _, _)) in self.changes.iter().enumerate() {
            sched.schedule_at(*at, Event::LinkChange(i as u32)).expect("change times are >= 0");
        }
        let s = &self.series_cfg;
        if s.interval > SimDuration::ZERO
            && !(s.queue_links.is_empty() && s.rate_flows.is_empty() && s.media.is_empty())
        {
            sched.schedule_at(SimTime::ZERO, Event::Sample).expect("time zero");
        }
    }

    /// The agent's figures for the summary.
    pub fn agent_report(&self, agent: AgentId, now: SimTime) -> Vec<crate::agent::ReportEntry> {
        self.agents[agent as usize].agent.report(now)
    }

    /// Flushes captures; reports the first capture write error of the run, if any.
    pub fn finish(&mut self) -> io::Result<()> {
        if let Some(e) = self.capture_error.take() {
            return Err(e);
        }
        for c in &mut self.captures {
            c.finish()?;
        }
        Ok(())
    }

    fn capture(&mut self, dir: DirId, now: SimTime, pkt: &Packet) {
        if let Some(c) = self.capture_of_dir[dir as usize] {
            if let Err(e) = self.captures[c as usize].capture(now, pkt) {
                self.capture_error.get_or_insert(e);
            }
        }
    }

    /// Routes a packet that is at `node`, having come from `ingress`.
    fn route(
        &mut self,
        node: NodeId,
        mut pkt: Packet,
        ingress: Ingress,
        sched: &mut Scheduler<Event>,
    ) {
        if let Some(t) = pkt.tunnel {
            self.route_tunnelled(node, pkt, t.outer_dst, sched);
            return;
        }
        let Some(dst) = self.topo.node_by_addr(pkt.ip.dst) else {
            self.flow_counters[pkt.flow as usize].count_drop(DropCause::NoRoute);
            return;
        };
        if dst == node {
            self.deliver_local(node, pkt, sched);
            return;
        }
        let src = self.topo.node_by_addr(pkt.ip.src);
        if src != Some(node) {
            // RFC 791: a router decrements TTL and discards the datagram when it reaches zero.
            if self.topo.nodes[node as usize].kind == NodeKind::Host || pkt.ip.ttl <= 1 {
                self.flow_counters[pkt.flow as usize].count_drop(DropCause::NoRoute);
                return;
            }
            pkt.ip.ttl -= 1;
        }
        let towards = match self.epc.as_mut().map(|e| (e.steer(node, src, dst, ingress), e)) {
            None | Some((Steer::Ip, _)) => dst,
            Some((Steer::ToGateway, e)) => e.gateway(),
            Some((Steer::Encapsulate { end, teid }, e)) => {
                e.stats_mut(node).encapsulated += 1;
                let nodes = &self.topo.nodes;
                let (here, there) = (nodes[node as usize].addr, nodes[end as usize].addr);
                gtp::encapsulate(&mut pkt, here, there, teid, e.ecn_decap());
                end
            }
        };
        match self.topo.next_hop(node, towards) {
            Some(dir) => self.enqueue(dir, pkt, sched),
            None => self.flow_counters[pkt.flow as usize].count_drop(DropCause::NoRoute),
        }
    }

    /// Routes a tunnelled packet on its outer destination `outer_dst`, decapsulating it at the
    /// endpoint. Inside the tunnel the inner TTL is not touched (the routers see the outer
    /// header only).
    fn route_tunnelled(
        &mut self,
        node: NodeId,
        mut pkt: Packet,
        outer_dst: Ipv4Addr,
        sched: &mut Scheduler<Event>,
    ) {
        let flow = pkt.flow as usize;
        let Some(end) = self.topo.node_by_addr(outer_dst) else {
            self.flow_counters[flow].count_drop(DropCause::NoRoute);
            return;
        };
        if end != node {
            match self.topo.next_hop(node, end) {
                Some(dir) => self.enqueue(dir, pkt, sched),
                None => self.flow_counters[flow].count_drop(DropCause::NoRoute),
            }
            return;
        }
        let mode = self.epc.as_ref().map_or(gtp::EcnDecap::default(), Epc::ecn_decap);
        let outcome = gtp::decapsulate(&mut pkt, mode);
        if let Some(epc) = self.epc.as_mut() {
            let stats = epc.stats_mut(node);
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
            Decapsulated::Dropped => self.flow_counters[flow].drops_ecn_decap += 1,
            Decapsulated::Forward { .. } => self.route(node, pkt, Ingress::Tunnel, sched),
        }
    }

    fn enqueue(&mut self, dir: DirId, mut pkt: Packet, sched: &mut Scheduler<Event>) {
        let now = sched.now();
        if (dir / 2) as usize >= self.p2p_links {
            let m = self.edge_medium[(dir / 2) as usize - self.p2p_links];
            let (from, to) = (self.topo.dir_from(dir), self.topo.dir_to(dir));
            let mut out = std::mem::take(&mut self.medium_out);
            self.media[m as usize].medium.send(now, from, to, pkt, &mut out);
            self.after_medium(m, out, sched);
            return;
        }
        let flow = pkt.flow as usize;
        let d = &mut self.dirs[dir as usize];
        // The queue reads and marks the outermost ECN field (RFC 6040 §4); `start_next` swaps
        // the layers back when the packet leaves the queue.
        gtp::swap_ecn_layers(&mut pkt);
        if let Verdict::Dropped(cause) = d.queue.enqueue(pkt, now, &mut d.queue_rng) {
            self.flow_counters[flow].count_drop(cause);
        }
        if d.transmitting.is_none() {
            // An idle transmitter takes the packet at once; occupancy is recorded after that, so
            // a packet that never waits does not count as queued.
            self.start_next(dir, sched);
        } else {
            d.record_occupancy(now);
        }
    }

    /// Starts serialising the next queued packet of an idle direction.
    fn start_next(&mut self, dir: DirId, sched: &mut Scheduler<Event>) {
        let now = sched.now();
        let d = &mut self.dirs[dir as usize];
        let counters = &mut self.flow_counters;
        let next = d.queue.dequeue(now, &mut |p, cause| counters[p.flow as usize].count_drop(cause));
        d.record_occupancy(now);
        if let Some(mut pkt) = next {
            gtp::swap_ecn_layers(&mut pkt);
            let done = d.start_transmission(pkt, now);
            sched.schedule_at(done, Event::TxDone(dir)).expect("transmission ends in the future");
            self.capture(dir, now, &pkt);
        }
    }

    fn tx_done(&mut self, dir: DirId, sched: &mut Scheduler<Event>) {
        let now = sched.now();
        match self.dirs[dir as usize].finish_transmission(now) {
            Ok(arrival) => sched.schedule_at(arrival, Event::Arrive(dir)).expect("arrival is in the future"),
            Err((lost, cause)) => self.flow_counters[lost.flow as usize].count_drop(cause),
        }
        self.start_next(dir, sched);
    }

    fn deliver_local(&mut self, node: NodeId, pkt: Packet, sched: &mut Scheduler<Event>) {
        let now = sched.now();
        let flow = pkt.flow as usize;
        if let Some(ends) = self.flows.get(flow) {
            if ends.dst == node {
                let transit = now.saturating_since(pkt.created_at).as_ns();
                self.flow_counters[flow].delivered(pkt.size_bytes(), transit);
                if self.packet_traced[flow] {
                    let s = &mut self.packet_series;
                    s.time_ns.push(now.as_ns());
                    s.flow.push(flow as u32);
                    s.delay_ns.push(now.saturating_since(pkt.created_at).as_ns());
                    s.size_bytes.push(pkt.size_bytes());
                    s.app_seq.push(pkt.app_seq);
                }
            }
        }
        let (proto, port) = match pkt.transport {
            Transport::Udp(h) => (PROTO_UDP, h.dst_port),
            Transport::Tcp(h) => (PROTO_TCP, h.dst_port),
        };
        // A socket bound to the port takes the packet; otherwise the agent of the packet's flow on
        // this host does (an application's successive connections use new ephemeral ports).
        let bindings = &self.demux[node as usize];
        let agent = bindings
            .iter()
            .find(|b| b.proto == proto && b.port == port)
            .or_else(|| bindings.iter().find(|b| b.proto == proto && b.flow == pkt.flow))
            .map(|b| b.agent);
        match agent {
            Some(a) => self.call_agent(a, sched, |agent, ctx| agent.on_packet(pkt, ctx)),
            None => self.flow_counters[flow].count_drop(DropCause::NoRoute),
        }
    }

    /// Runs one agent callback and applies what it asked for: packets to send, a timer.
    fn call_agent(
        &mut self,
        id: AgentId,
        sched: &mut Scheduler<Event>,
        f: impl FnOnce(&mut dyn Agent, &mut AgentCtx<'_>),
    ) {
        let now = sched.now();
        let mut out = std::mem::take(&mut self.out_buf);
        let slot = &mut self.agents[id as usize];
        let mut timer = slot.timer;
        {
            let mut ctx = AgentCtx::new(now, &mut out, &mut timer, &mut slot.rng, &mut self.traces);
            f(slot.agent.as_mut(), &mut ctx);
        }
        if timer != slot.timer {
            slot.generation = slot.generation.wrapping_add(1);
            slot.timer = timer;
            if let Some(at) = timer {
                sched.schedule_at(at, Event::AgentTimer(id, slot.generation)).expect("timer clamped to now");
            }
        }
        let node = slot.node;
        let src_addr = self.topo.nodes[node as usize].addr;
        for mut pkt in out.drain(..) {
            pkt.uid = self.next_uid;
            pkt.ip.id = self.next_uid as u16;
            self.next_uid += 1;
            if pkt.ip.src == Ipv4Addr::UNSPECIFIED {
                pkt.ip.src = src_addr;
            }
            if let Some(c) = self.flow_counters.get_mut(pkt.flow as usize) {
                c.packets_sent += 1;
                c.bytes_sent += pkt.size_bytes() as u64;
            }
            self.route(node, pkt, Ingress::Local, sched);
        }
        // Keep the buffer's capacity; a nested call may have left its own (empty) one.
        if self.out_buf.capacity() < out.capacity() {
            self.out_buf = out;
        }
    }

    /// Applies a medium's output and re-arms its timer when its deadline changed.
    fn after_medium(&mut self, m: u32, mut out: MediumOutput, sched: &mut Scheduler<Event>) {
        for (pkt, cause) in out.dropped.drain(..) {
            self.flow_counters[pkt.flow as usize].count_drop(cause);
        }
        let delivered = std::mem::take(&mut out.delivered);
        let slot = &mut self.media[m as usize];
        let deadline = slot.medium.poll_timeout();
        if deadline != slot.timer {
            slot.generation = slot.generation.wrapping_add(1);
            slot.timer = deadline;
            if let Some(at) = deadline {
                let at = at.max(sched.now());
                sched.schedule_at(at, Event::MediumTimer(m, slot.generation)).expect("clamped to now");
            }
        }
        out.delivered = delivered;
        for (node, pkt) in out.delivered.drain(..) {
            self.route(node, pkt, Ingress::Radio, sched);
        }
        self.medium_out = out;
    }

    fn sample(&mut self, sched: &mut Scheduler<Event>) {
        let now = sched.now();
        for (link, traced) in self.queue_traced.iter().enumerate() {
            if !traced {
                continue;
            }
            for dir in 0..2 {
                let d = &self.dirs[2 * link + dir];
                let s = &mut self.queue_series;
                s.time_ns.push(now.as_ns());
                s.link.push(link as u32);
                s.direction.push(dir as u32);
                s.packets.push(d.queue.len_packets() as u32);
                s.bytes.push(d.queue.len_bytes());
            }
        }
        let interval = self.series_cfg.interval;
        for &f in &self.series_cfg.rate_flows {
            let c = &mut self.flow_counters[f as usize];
            let bytes = c.bytes_delivered - c.bytes_at_last_sample;
            c.bytes_at_last_sample = c.bytes_delivered;
            if now > SimTime::ZERO {
                let s = &mut self.rate_series;
                s.time_ns.push(now.as_ns());
                s.flow.push(f);
                s.rate_bps.push(bytes as f64 * 8.0 / interval.as_secs_f64());
            }
        }
        let mut sample = std::mem::take(&mut self.medium_sample);
        for &m in &self.series_cfg.media {
            sample.clear();
            self.media[m as usize].medium.sample(now, &mut sample);
            let s = &mut self.medium_series;
            for (key, value) in sample.drain(..) {
                let next = s.keys.len() as u32;
                let figure = *self.medium_keys.entry(key).or_insert_with_key(|k| {
                    s.keys.push(k.clone());
                    next
                });
                s.time_ns.push(now.as_ns());
                s.medium.push(m);
                s.figure.push(figure);
                s.value.push(value);
            }
        }
        self.medium_sample = sample;
        sched.schedule_in(interval, Event::Sample);
    }
}

impl Model for World {
    type Event = Event;

    fn handle(&mut self, event: Event, sched: &mut Scheduler<Event>) {
        match event {
            Event::TxDone(dir) => self.tx_done(dir, sched),
            Event::Arrive(dir) => {
                let pkt = self.dirs[dir as usize].arrive();
                let node = self.topo.dir_to(dir);
                self.route(node, pkt, Ingress::Wire, sched);
            }
            Event::AgentStart(id) => self.call_agent(id, sched, |a, ctx| a.start(ctx)),
            Event::AgentTimer(id, generation) => {
                let slot = &mut self.agents[id as usize];
                if slot.generation != generation || slot.timer != Some(sched.now()) {
                    return; // superseded
                }
                slot.timer = None;
                self.call_agent(id, sched, |a, ctx| a.on_timer(ctx));
            }
            Event::Sample => self.sample(sched),
            Event::MediumTimer(m, generation) => {
                let slot = &mut self.media[m as usize];
                if slot.generation != generation {
                    return; // superseded
                }
                slot.timer = None;
                let mut out = std::mem::take(&mut self.medium_out);
                slot.medium.on_timer(sched.now(), &mut slot.rng, &mut self.traces, &mut out);
                self.after_medium(m, out, sched);
            }
            Event::LinkChange(i) => {
                let (_, dir, change) = self.changes[i as usize];
                let d = &mut self.dirs[dir as usize];
                if let Some(delay) = change.delay {
                    d.delay = delay;
                }
                if let Some(rate) = change.rate_bps {
                    d.rate_bps = rate;
                }
                if let Some(down) = change.down {
                    d.down = down;
                }
            }
        }
    }

    fn name(&self) -> &str {
        "network"
    }
}
