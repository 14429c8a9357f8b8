//! The network as one engine [`Model`]: nodes forward packets along static routes, link
//! directions queue, serialise, lose and propagate them, and agents on hosts send and receive.
//!
//! With an EPC ([`crate::gtp`]) the world also steers the UEs' packets through the S-GW/P-GW
//! and carries them in GTP-U tunnels on S1-U: [`WorldBuilder::epc`] sets it up,
//! [`World::switch_path`] moves a UE's downlink tunnel at run time. A medium with handover asks
//! for path switches, X2-U forwarding and end markers; the `tunnel` module carries them out.
//!
//! Files: this one (building, agents, link changes, sampling, the event loop), `forward`
//! (routing at a node and the transmitters of the links), `counters` (per-flow counters and
//! sampled series), `tunnel` (tunnel endpoints and what media ask of the network),
//! `middlebox` (packet processing on routers: Snoop, ELN, split-TCP proxies) and `external`
//! (hosts whose packets come from and go to real programs, for real-time emulation).
//!
//! Same-time events run in the order they were scheduled (the engine's FIFO rule), so a run is a
//! pure function of its inputs. A sample of the sampled series is the state once every event of
//! its instant has been handled (see [`World::finish`] for the last one). Per-packet work allocates nothing: packets are values, pipes and
//! queues reuse their buffers, and the agents' output buffer is recycled.

use std::collections::VecDeque;
use std::io;
use std::net::Ipv4Addr;

use celltcp_engine::{Model, RngStream, Scheduler, SimDuration, SimTime};

use crate::agent::{Agent, AgentCtx};
use crate::forwarding::{ForwardingBuffer, ForwardingConfig};
use crate::gtp::{Epc, EpcConfig, EpcError, Ingress};
use crate::link::{LinkDir, LinkDirConfig};
use crate::medium::{Medium, MediumOutput};
use crate::packet::{FlowId, NodeId, Packet, Transport};
use crate::queue::DropCause;
use crate::topology::{DirId, LinkEnds, Node, NodeKind, Topology};
use crate::trace::Traces;

mod counters;
mod external;
mod forward;
mod middlebox;
mod tunnel;
mod x2u;

pub use counters::DropSite;
use counters::{count_drop, flow_mut};
pub use counters::{
    FlowCounters, FlowRateSeries, MediumSeries, PacketSeries, QueueSeries, SeriesConfig,
};
pub use external::{ExternalDelivery, ExternalError, EXTERNAL_FLOW};
use middlebox::{middlebox_of_node, MiddleboxSlot};
pub use middlebox::{MiddleboxError, MiddleboxInfo, MiddleboxStats};
pub use tunnel::{RequestError, RequestFailure};

/// IP protocol numbers used for demultiplexing.
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;

/// Index of an agent in the world.
pub use crate::id::AgentId;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The transmitter of a direction finished serialising its packet.
    TxDone(DirId),
    /// The oldest packet in a direction's pipe reaches the far end.
    Arrive(DirId),
    AgentStart(AgentId),
    /// An agent's timer; stale if the generation no longer matches.
    AgentTimer(AgentId, u32),
    /// Periodic sampling of the opt-in time series: makes its instant's sample due, to be
    /// taken once every event of the instant has been handled.
    Sample,
    /// A scheduled change of a link direction (index into the world's change list).
    LinkChange(u32),
    /// A medium's internal deadline; stale if the generation no longer matches.
    MediumTimer(u32, u32),
    /// A middlebox's deadline; stale if the generation no longer matches.
    MiddleboxTimer(u32, u32),
    /// The pacing deadline of a base station's X2-U forwarding buffer; stale unless pending.
    Forwarding(NodeId),
}

/// A change to one link direction at a scheduled time.
///
/// A handover of a radio hop that a point-to-point link stands for is a pair of changes: at the
/// start `hold` (with buffer transfer: the buffer waits, arrivals queue up to its limit), or
/// `hold`, `flush` and `refuse` (without: what is buffered and what arrives is lost); at the
/// end `hold` and `refuse` released. Fields apply in the order `delay`, `rate_bps`, `down`,
/// `flush`, `refuse`, `hold`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkChange {
    /// New propagation delay, for packets that finish serialisation from now on.
    pub delay: Option<SimDuration>,
    /// New rate in bits per second, from the next packet serialised.
    pub rate_bps: Option<u64>,
    /// Start (true) or end (false) an outage.
    pub down: Option<bool>,
    /// Stop (true) or resume (false) serving the queue. While held the transmitter takes
    /// nothing from the queue (the packet being serialised finishes) and arrivals are queued
    /// per the queue discipline; resuming starts the transmitter at once.
    pub hold: Option<bool>,
    /// Drop every queued packet now ([`DropCause::Handover`]).
    pub flush: bool,
    /// Start (true) or stop (false) dropping every arriving packet ([`DropCause::Handover`]).
    pub refuse: Option<bool>,
}

/// Where captured packets go (a pcap writer).
pub trait CaptureSink {
    fn capture(&mut self, t: SimTime, pkt: &Packet) -> io::Result<()>;
    fn finish(&mut self) -> io::Result<()>;
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
    middleboxes: Vec<MiddleboxSlot>,
    forwarding: Vec<(NodeId, ForwardingConfig)>,
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
            middleboxes: Vec::new(),
            forwarding: Vec::new(),
        }
    }

    /// How base station `node` forwards over X2-U during handovers (its rate and buffer; see
    /// [`crate::forwarding`]). A station without a configuration forwards at its line rate
    /// from an unlimited buffer.
    pub fn forwarding(&mut self, node: NodeId, cfg: ForwardingConfig) {
        self.forwarding.push((node, cfg));
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
        self.nodes.push(Node {
            name: name.to_string(),
            kind,
            addr,
        });
        NodeId::from_index(self.nodes.len() - 1)
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
        self.links.push(LinkEnds {
            name: name.to_string(),
            a,
            b,
            metric,
        });
        (self.links.len() - 1) as u32
    }

    /// Declares a flow whose data is delivered to `dst` (for the network's own counters).
    pub fn add_flow(&mut self, dst: NodeId) -> FlowId {
        self.flows.push(FlowEnds { dst });
        FlowId::from_index(self.flows.len() - 1)
    }

    /// Places an agent of `flow` on `node`, receiving `proto` packets for `port`, started at
    /// `start`, with the random stream named `rng_path` (e.g. `flow/video/src`).
    #[allow(clippy::too_many_arguments)] // the agent's slot, field by field
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
        AgentId::from_index(self.agents.len() - 1)
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
        self.nodes[node.index()].addr
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
                let name = format!(
                    "{}:{}-{}",
                    slot.medium.name(),
                    self.nodes[a.index()].name,
                    self.nodes[b.index()].name
                );
                links.push(LinkEnds {
                    name,
                    a,
                    b,
                    metric: 1,
                });
                edge_medium.push(m as u32);
            }
        }
        let topo = Topology::new(self.nodes, links);
        let mut demux: Vec<Vec<Binding>> = vec![Vec::new(); topo.nodes.len()];
        for (i, a) in self.agents.iter().enumerate() {
            demux[a.node.index()].push(Binding {
                proto: a.proto,
                port: a.port,
                flow: a.flow,
                agent: AgentId::from_index(i),
            });
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
            if let Some(t) = queue_traced.get_mut(l as usize) {
                *t = true;
            }
        }
        let mut packet_traced = vec![false; self.flows.len()];
        for &f in &self.series.packet_flows {
            if let Some(t) = packet_traced.get_mut(f.index()) {
                *t = true;
            }
        }
        // The base station of each medium edge is its first node; a base station listed by
        // several media belongs to the first.
        let mut enb_medium = vec![None; topo.nodes.len()];
        for (m, slot) in self.media.iter().enumerate() {
            for (enb, _) in slot.medium.edges() {
                if let Some(e @ None) = enb_medium.get_mut(enb.index()) {
                    *e = Some(m as u32);
                }
            }
        }
        let middlebox_of_node = middlebox_of_node(&self.middleboxes, topo.nodes.len());
        let mut forwarders = vec![None; topo.nodes.len()];
        for (node, cfg) in self.forwarding {
            if let Some(f) = forwarders.get_mut(node.index()) {
                *f = Some(ForwardingBuffer::new(cfg));
            }
        }
        World {
            now: SimTime::ZERO,
            expedited: vec![VecDeque::new(); self.dirs.len()],
            middlebox_of_node,
            middleboxes: self.middleboxes,
            middlebox_out: Vec::new(),
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
            sample_due: None,
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
            enb_medium,
            epc: self.epc,
            errors: Vec::new(),
            external: external::ExternalHosts::default(),
            forwarders,
        }
    }
}

pub struct World {
    /// Time of the event being handled (drops are recorded at it).
    now: SimTime,
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
    /// The sampling instant whose `Sample` event has run and whose sample is not taken yet:
    /// it is taken when the instant is over, i.e. before the world handles anything of a later
    /// instant (an event, an injected packet) or when the run ends ([`World::finish`]). A
    /// sample taken by the event itself would miss the events of its instant scheduled after
    /// it, such as a TTI starting there, which the summary counts at the run's end.
    sample_due: Option<SimTime>,
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
    /// Per node: the medium whose base station it is, if any (where X2-U data and end markers
    /// for it are delivered).
    enb_medium: Vec<Option<u32>>,
    /// The EPC's bearer table and tunnel endpoints, when the world has one.
    epc: Option<Epc>,
    /// Requests of media that could not be carried out, in the order they were made.
    errors: Vec<RequestError>,
    /// The middleboxes, in the order added, and the one of each node.
    middleboxes: Vec<MiddleboxSlot>,
    middlebox_of_node: Vec<Option<u32>>,
    /// Recycled buffer for the packets middleboxes emit.
    middlebox_out: Vec<Packet>,
    /// Per point-to-point direction: emitted packets waiting ahead of the queue
    /// ([`crate::middlebox::Middlebox::expedite`]).
    expedited: Vec<VecDeque<Packet>>,
    /// Hosts whose traffic is real (see `external`).
    external: external::ExternalHosts,
    /// Per node: the X2-U forwarding buffer of a base station that forwards (module `x2u`).
    forwarders: Vec<Option<ForwardingBuffer>>,
}

impl World {
    /// Rows of the event-driven series so far: per-packet rows and TCP variables.
    pub fn event_rows(&self) -> u64 {
        (self.packet_series.time_ns.len() + self.traces.vars.time_ns.len()) as u64
    }

    /// True once [`World::event_rows`] has reached `SeriesConfig::event_rows_limit`: the world
    /// then halts the run at its next event.
    #[inline]
    pub fn event_rows_full(&self) -> bool {
        self.series_cfg
            .event_rows_limit
            .is_some_and(|limit| self.event_rows() >= limit)
    }

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

    /// Requests of media the network could not carry out (a path switch without an EPC, a
    /// forward to a node that is no eNB, …), in the order they were made. The run goes on
    /// without them; the scenario reports them.
    pub fn errors(&self) -> &[RequestError] {
        &self.errors
    }

    /// The medium whose base station `node` is, by index in the order media were added.
    pub fn medium_of_enb(&self, node: NodeId) -> Option<u32> {
        self.enb_medium.get(node.index()).copied().flatten()
    }

    /// S1 path switch: from now on the gateway tunnels `ue`'s downlink to `enb`, under a TEID
    /// `enb` allocates (returned). Packets already in flight keep their tunnel. No end marker is
    /// sent (a medium's [`crate::medium::MediumRequest::PathSwitch`] sends one).
    pub fn switch_path(&mut self, ue: NodeId, enb: NodeId) -> Result<u32, EpcError> {
        match self.epc.as_mut() {
            Some(epc) => epc.switch_path(ue, enb),
            None => Err(EpcError::NoBearer { ue }),
        }
    }

    /// Schedules the agents' start events, the link changes, the first sample and the media's
    /// first deadlines (a medium may have work before any packet reaches it: a mobility step, a
    /// scheduled handover); call once before running.
    pub fn schedule_initial(&mut self, sched: &mut Scheduler<Event>) {
        for (i, a) in self.agents.iter().enumerate() {
            sched
                .schedule_at(a.start, Event::AgentStart(AgentId::from_index(i)))
                .expect("start times are >= 0");
        }
        for (i, (at, _, _)) in self.changes.iter().enumerate() {
            sched
                .schedule_at(*at, Event::LinkChange(i as u32))
                .expect("change times are >= 0");
        }
        let s = &self.series_cfg;
        if s.interval > SimDuration::ZERO
            && !(s.queue_links.is_empty() && s.rate_flows.is_empty() && s.media.is_empty())
        {
            sched
                .schedule_at(SimTime::ZERO, Event::Sample)
                .expect("time zero");
        }
        for m in 0..self.media.len() {
            self.rearm_medium(m as u32, sched);
        }
        for m in 0..self.middleboxes.len() {
            self.rearm_middlebox(m as u32, sched);
        }
    }

    /// Schedules medium `m`'s timer at its deadline when the deadline changed (a superseded
    /// timer event is recognised by its generation).
    fn rearm_medium(&mut self, m: u32, sched: &mut Scheduler<Event>) {
        let slot = &mut self.media[m as usize];
        let deadline = slot.medium.poll_timeout();
        if deadline != slot.timer {
            slot.generation = slot.generation.wrapping_add(1);
            slot.timer = deadline;
            if let Some(at) = deadline {
                let at = at.max(sched.now());
                sched
                    .schedule_at(at, Event::MediumTimer(m, slot.generation))
                    .expect("clamped to now");
            }
        }
    }

    /// The agent's figures for the summary.
    pub fn agent_report(&self, agent: AgentId, now: SimTime) -> Vec<crate::agent::ReportEntry> {
        self.agents[agent.index()].agent.report(now)
    }

    /// Ends the run where it stopped: takes the sample still due at its last instant (call
    /// once every event the run handles at that instant has been handled, and before reading
    /// the series), then flushes captures; reports the first capture write error of the run,
    /// if any.
    pub fn finish(&mut self) -> io::Result<()> {
        if let Some(t) = self.sample_due.take() {
            self.sample(t);
        }
        if let Some(e) = self.capture_error.take() {
            return Err(e);
        }
        for c in &mut self.captures {
            c.finish()?;
        }
        for m in &mut self.media {
            m.medium.finish_captures()?;
        }
        Ok(())
    }

    fn capture(&mut self, dir: DirId, now: SimTime, pkt: &Packet) {
        if let Some(c) = self.capture_of_dir[dir.index()] {
            if let Err(e) = self.captures[c as usize].capture(now, pkt) {
                self.capture_error.get_or_insert(e);
            }
        }
    }

    /// Counts a drop at `site` for the packet's flow; packets of no flow (end markers) count
    /// nowhere.
    #[inline]
    fn count_drop(&mut self, flow: FlowId, cause: DropCause, site: DropSite) {
        count_drop(
            &mut self.flow_counters,
            &mut self.traces,
            self.now,
            flow,
            cause,
            site,
        );
    }

    /// A fresh packet uid (and the IPv4 identification derived from it).
    fn next_uid(&mut self) -> u64 {
        let uid = self.next_uid;
        self.next_uid += 1;
        uid
    }

    fn deliver_local(&mut self, node: NodeId, pkt: Packet, sched: &mut Scheduler<Event>) {
        let now = sched.now();
        if pkt.flow == EXTERNAL_FLOW {
            return self.deliver_external(node, pkt, now);
        }
        let flow = pkt.flow.index();
        if let Some(ends) = self.flows.get(flow) {
            if ends.dst == node {
                let transit = now.saturating_since(pkt.created_at).as_ns();
                if let Some(c) = flow_mut(&mut self.flow_counters, pkt.flow) {
                    c.delivered(pkt.size_bytes(), transit);
                }
                if self.packet_traced.get(flow).copied().unwrap_or(false) {
                    let s = &mut self.packet_series;
                    s.time_ns.push(now.as_ns());
                    s.flow.push(flow as u32);
                    s.delay_ns
                        .push(now.saturating_since(pkt.created_at).as_ns());
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
        let bindings = &self.demux[node.index()];
        let agent = bindings
            .iter()
            .find(|b| b.proto == proto && b.port == port)
            .or_else(|| {
                bindings
                    .iter()
                    .find(|b| b.proto == proto && b.flow == pkt.flow)
            })
            .map(|b| b.agent);
        match agent {
            Some(a) => self.call_agent(a, sched, |agent, ctx| agent.on_packet(pkt, ctx)),
            None => self.count_drop(pkt.flow, DropCause::NoRoute, DropSite::Node(node)),
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
        let slot = &mut self.agents[id.index()];
        let mut timer = slot.timer;
        {
            let mut ctx = AgentCtx::new(now, &mut out, &mut timer, &mut slot.rng, &mut self.traces);
            f(slot.agent.as_mut(), &mut ctx);
        }
        if timer != slot.timer {
            slot.generation = slot.generation.wrapping_add(1);
            slot.timer = timer;
            if let Some(at) = timer {
                sched
                    .schedule_at(at, Event::AgentTimer(id, slot.generation))
                    .expect("timer clamped to now");
            }
        }
        let node = slot.node;
        let src_addr = self.topo.nodes[node.index()].addr;
        for mut pkt in out.drain(..) {
            pkt.uid = self.next_uid();
            pkt.ip.id = pkt.uid as u16;
            if pkt.ip.src == Ipv4Addr::UNSPECIFIED {
                pkt.ip.src = src_addr;
            }
            if let Some(c) = flow_mut(&mut self.flow_counters, pkt.flow) {
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

    /// Applies `change` to direction `dir` now, in the order documented on [`LinkChange`].
    fn apply_link_change(&mut self, dir: DirId, change: LinkChange, sched: &mut Scheduler<Event>) {
        let now = sched.now();
        if change.flush && dir.index() < self.expedited.len() {
            self.flush_expedited(dir);
        }
        let Some(d) = self.dirs.get_mut(dir.index()) else {
            return;
        };
        if let Some(delay) = change.delay {
            d.delay = delay;
        }
        if let Some(rate) = change.rate_bps {
            d.rate_bps = rate;
        }
        if let Some(down) = change.down {
            d.down = down;
        }
        if change.flush {
            let (counters, traces) = (&mut self.flow_counters, &mut self.traces);
            let site = DropSite::Node(self.topo.dir_from(dir));
            d.flush(now, &mut |p, cause| {
                count_drop(counters, traces, now, p.flow, cause, site)
            });
        }
        if let Some(refuse) = change.refuse {
            d.refusing = refuse;
        }
        if let Some(hold) = change.hold {
            d.held = hold;
            if !hold && d.can_start() {
                self.start_next(dir, sched);
                self.egress_idle(dir, sched);
            }
        }
    }

    /// Takes the sample due at an instant before `now`, which is over: the world is about to
    /// handle something of instant `now`.
    #[inline]
    fn close_sampled_instant(&mut self, now: SimTime) {
        if let Some(t) = self.sample_due.filter(|t| *t < now) {
            self.sample_due = None;
            self.sample(t);
        }
    }

    /// A `Sample` event: its instant's sample becomes due, and the next instant's event is
    /// scheduled.
    fn sample_event(&mut self, sched: &mut Scheduler<Event>) {
        self.sample_due = Some(sched.now());
        sched.schedule_in(self.series_cfg.interval, Event::Sample);
    }

    /// Appends the sampled series' rows of instant `now`, once every event of it has run.
    fn sample(&mut self, now: SimTime) {
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
                let q = d.queue.stats();
                s.bytes_delivered.push(d.stats.bytes_delivered);
                s.drops_queue_full.push(q.dropped_full);
                s.drops_aqm.push(q.dropped_aqm);
                s.drops_link_loss.push(d.stats.drops_link_loss);
                s.drops_outage.push(d.stats.drops_outage);
                s.drops_handover.push(d.stats.drops_handover);
                s.ecn_marks.push(q.ce_marked);
            }
        }
        let interval = self.series_cfg.interval;
        for &f in &self.series_cfg.rate_flows {
            let Some(c) = flow_mut(&mut self.flow_counters, f) else {
                continue;
            };
            let bytes = c.take_bytes_since_sample();
            if now > SimTime::ZERO {
                let s = &mut self.rate_series;
                s.time_ns.push(now.as_ns());
                s.flow.push(f.0);
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
    }
}

impl Model for World {
    type Event = Event;

    fn handle(&mut self, event: Event, sched: &mut Scheduler<Event>) {
        if self.event_rows_full() {
            // The run ends after this event; the caller reports the bound (`event_rows_full`).
            sched.halt();
        }
        self.close_sampled_instant(sched.now());
        self.now = sched.now();
        match event {
            Event::TxDone(dir) => self.tx_done(dir, sched),
            Event::Arrive(dir) => {
                let pkt = self.dirs[dir.index()].arrive();
                let node = self.topo.dir_to(dir);
                self.route(node, pkt, Ingress::Wire, sched);
            }
            Event::AgentStart(id) => self.call_agent(id, sched, |a, ctx| a.start(ctx)),
            Event::AgentTimer(id, generation) => {
                let slot = &mut self.agents[id.index()];
                if slot.generation != generation || slot.timer != Some(sched.now()) {
                    return; // superseded
                }
                slot.timer = None;
                self.call_agent(id, sched, |a, ctx| a.on_timer(ctx));
            }
            Event::Sample => self.sample_event(sched),
            Event::MediumTimer(m, generation) => {
                let slot = &mut self.media[m as usize];
                if slot.generation != generation {
                    return; // superseded
                }
                slot.timer = None;
                let mut out = std::mem::take(&mut self.medium_out);
                slot.medium
                    .on_timer(sched.now(), &mut slot.rng, &mut self.traces, &mut out);
                self.after_medium(m, out, sched);
            }
            Event::MiddleboxTimer(m, generation) => self.middlebox_timer(m, generation, sched),
            Event::Forwarding(node) => self.forwarding_timer(node, sched),
            Event::LinkChange(i) => {
                let (_, dir, change) = self.changes[i as usize];
                self.apply_link_change(dir, change, sched);
            }
        }
    }

    fn name(&self) -> &str {
        "network"
    }
}
