//! A toy radio access network for the network side of an LTE handover (TS 36.300 §10.1.2.1):
//! a medium of two eNBs and one UE that delivers at once and asks the network, on a script, to
//! forward data over X2-U, send end markers and switch the S1 path. Used by `x2_forwarding` and
//! `x2_requests`.
//!
//! ```text
//!                                                            ,-- x_a 10 Mb/s, 3 ms -- enb1 --.
//! server --wan 100 Mb/s, 10 ms-- gw --core 100 Mb/s, 2 ms-- router -- x_b 10 Mb/s, 4 ms -- enb2 -- (toy medium) -- ue
//!                                                            `-- x_c 10 Mb/s, 1 ms -- enb3 (no medium)
//! ```
//! `gw` is the combined S-GW/P-GW. S1-U and X2-U share the router, so a forwarded packet crosses
//! it twice (enb1 → router → enb2).

// Each test file uses its own part of the fixture.
#![allow(dead_code)]

use std::cell::RefCell;
use std::collections::VecDeque;
use std::net::Ipv4Addr;
use std::rc::Rc;

use celltcp_engine::{RngStream, SimDuration, SimTime, Simulator, StopCondition};
use celltcp_net::agent::Agent;
use celltcp_net::app::udp::UdpSink;
use celltcp_net::forwarding::ForwardingConfig;
use celltcp_net::gtp::{EcnDecap, EpcConfig};
use celltcp_net::link::LinkDirConfig;
use celltcp_net::medium::{Medium, MediumFigure, MediumOutput, MediumRequest, TunnelArrival};
use celltcp_net::packet::{FlowId, GtpMessage, NodeId, Packet};
use celltcp_net::queue::{DropTail, QueueLimit};
use celltcp_net::topology::NodeKind;
use celltcp_net::trace::Traces;
use celltcp_net::world::{CaptureSink, World, WorldBuilder, PROTO_UDP};

use crate::common::{udp, Bursts};

pub const SERVER: NodeId = NodeId(0);
pub const GW: NodeId = NodeId(1);
pub const ROUTER: NodeId = NodeId(2);
pub const ENB1: NodeId = NodeId(3);
pub const ENB2: NodeId = NodeId(4);
pub const ENB3: NodeId = NodeId(5);
pub const UE: NodeId = NodeId(6);
/// Link directions (2·link a→b, 2·link + 1 b→a) in the order the links are added.
pub const ROUTER_TO_ENB1: usize = 4;
pub const ENB1_TO_ROUTER: usize = 5;
pub const ROUTER_TO_ENB2: usize = 6;
pub const X_A: u32 = 2;
pub const X_B: u32 = 3;

pub fn addr(node: NodeId) -> Ipv4Addr {
    Ipv4Addr::new(10, 0, 0, node.0 as u8 + 1)
}

pub fn ms(ms: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_ms(ms)
}

/// Serialisation time of `bytes` at 10 Mb/s, nanoseconds.
pub fn tx_10m(bytes: u64) -> u64 {
    bytes * 8 * 100
}

/// What the toy medium saw, in the order it saw it.
#[derive(Clone, Debug, PartialEq)]
pub enum Seen {
    /// Downlink data handed to the medium at an eNB.
    Send {
        t: SimTime,
        enb: NodeId,
        app_seq: u64,
    },
    /// A GTP-U arrival at an eNB for a UE.
    Tunnel {
        t: SimTime,
        at: NodeId,
        ue: NodeId,
        arrival: TunnelArrival,
    },
}

pub type Log = Rc<RefCell<Vec<Seen>>>;

/// What the toy medium does at a scripted time.
pub enum Action {
    Request(MediumRequest),
    /// Keep downlink packets arriving at this eNB instead of delivering them.
    Buffer(NodeId),
    /// Forward the kept packets from `from` to `to` with PDCP counts 100, 101, … and close
    /// the forwarding with an end marker.
    ForwardBuffered {
        from: NodeId,
        to: NodeId,
    },
}

pub struct ToyRan {
    script: VecDeque<(SimTime, Action)>,
    buffering: Option<NodeId>,
    buffer: Vec<Packet>,
    log: Log,
}

impl ToyRan {
    pub fn new(script: Vec<(SimTime, Action)>, log: Log) -> ToyRan {
        ToyRan {
            script: script.into(),
            buffering: None,
            buffer: Vec::new(),
            log,
        }
    }
}

impl Medium for ToyRan {
    fn name(&self) -> &str {
        "toy"
    }
    fn edges(&self) -> Vec<(NodeId, NodeId)> {
        vec![(ENB1, UE), (ENB2, UE)]
    }
    fn send(
        &mut self,
        now: SimTime,
        from: NodeId,
        to: NodeId,
        pkt: Packet,
        out: &mut MediumOutput,
    ) {
        self.log.borrow_mut().push(Seen::Send {
            t: now,
            enb: from,
            app_seq: pkt.app_seq,
        });
        if self.buffering == Some(from) {
            self.buffer.push(pkt);
        } else {
            out.delivered.push((to, pkt));
        }
    }
    fn poll_timeout(&self) -> Option<SimTime> {
        self.script.front().map(|(t, _)| *t)
    }
    fn on_timer(
        &mut self,
        now: SimTime,
        _: &mut RngStream,
        _: &mut Traces,
        out: &mut MediumOutput,
    ) {
        while self.script.front().is_some_and(|(t, _)| *t <= now) {
            let Some((_, action)) = self.script.pop_front() else {
                break;
            };
            match action {
                Action::Request(r) => out.requests.push(r),
                Action::Buffer(enb) => self.buffering = Some(enb),
                Action::ForwardBuffered { from, to } => {
                    self.buffering = None;
                    for (i, pkt) in self.buffer.drain(..).enumerate() {
                        out.requests.push(MediumRequest::Forward {
                            from,
                            to,
                            pkt,
                            pdcp_count: Some(100 + i as u32),
                        });
                    }
                    out.requests
                        .push(MediumRequest::ForwardEndMarker { from, to, ue: UE });
                }
            }
        }
    }
    fn report(&self, _: SimTime) -> Vec<MediumFigure> {
        Vec::new()
    }
    fn tunnel_receive(
        &mut self,
        now: SimTime,
        at: NodeId,
        ue: NodeId,
        arrival: TunnelArrival,
        out: &mut MediumOutput,
    ) {
        self.log.borrow_mut().push(Seen::Tunnel {
            t: now,
            at,
            ue,
            arrival,
        });
        if let TunnelArrival::Forwarded { pkt, .. } = arrival {
            out.delivered.push((ue, pkt));
        }
    }
}

/// Packets seen on a captured link: (time, outer destination, TEID, message, flow).
pub type Captured = Rc<RefCell<Vec<(SimTime, Ipv4Addr, u32, GtpMessage, FlowId)>>>;

pub struct Recorder(pub Captured);

impl CaptureSink for Recorder {
    fn capture(&mut self, t: SimTime, pkt: &Packet) -> std::io::Result<()> {
        if let Some(tun) = pkt.tunnel {
            self.0
                .borrow_mut()
                .push((t, tun.outer_dst, tun.teid, tun.message, pkt.flow));
        }
        Ok(())
    }
    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub struct Setup {
    pub script: Vec<(SimTime, Action)>,
    /// Limit of the router → enb1 queue, packets.
    pub x_a_limit: u32,
    /// Limit of the enb1 → router queue (enb1's transport egress), packets.
    pub enb1_egress_limit: u32,
    /// How enb1 forwards over X2-U (`None`: the world's default).
    pub forwarding: Option<ForwardingConfig>,
    /// The run's trace selection (`None`: nothing traced).
    pub traces: Option<Traces>,
    pub epc: bool,
    /// Bursts of this many datagrams every 20 ms from the server to the UE, for 1 s.
    pub burst: u32,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            script: Vec::new(),
            x_a_limit: 1000,
            enb1_egress_limit: 1000,
            forwarding: None,
            traces: None,
            epc: true,
            burst: 0,
        }
    }
}

pub struct Run {
    pub sim: Simulator<World>,
    pub log: Log,
    pub x_a: Captured,
    pub x_b: Captured,
}

/// One link direction: `rate_bps` bits per second, `delay_ms` milliseconds of propagation and a
/// drop-tail queue of `limit` packets.
pub fn dir(rate_bps: u64, delay_ms: u64, limit: u32) -> LinkDirConfig {
    LinkDirConfig {
        rate_bps,
        delay: SimDuration::from_ms(delay_ms),
        queue: Box::new(DropTail::new(QueueLimit::Packets(limit)).unwrap()),
        loss: None,
    }
}

/// The seven nodes of the diagram, numbered `SERVER` to `UE`.
pub fn add_nodes(b: &mut WorldBuilder) {
    for (i, (name, kind)) in [
        ("server", NodeKind::Host),
        ("gw", NodeKind::Router),
        ("router", NodeKind::Router),
        ("enb1", NodeKind::Router),
        ("enb2", NodeKind::Router),
        ("enb3", NodeKind::Router),
        ("ue", NodeKind::Host),
    ]
    .into_iter()
    .enumerate()
    {
        assert_eq!(
            b.add_node(name, kind, addr(NodeId::from_index(i))),
            NodeId::from_index(i)
        );
    }
}

/// A UDP agent `name` of the server on port 49152 for `flow`, started at 0.
pub fn add_server_agent(b: &mut WorldBuilder, flow: FlowId, name: &str, agent: Box<dyn Agent>) {
    b.add_agent(SERVER, flow, PROTO_UDP, 49152, SimTime::ZERO, name, agent);
}

/// The UE's UDP sink on port 5001 for `flow`.
pub fn add_ue_sink(b: &mut WorldBuilder, flow: FlowId) {
    b.add_agent(
        UE,
        flow,
        PROTO_UDP,
        5001,
        SimTime::ZERO,
        "dst",
        Box::new(UdpSink::new()),
    );
}

pub fn build(setup: Setup) -> Run {
    let mut b = WorldBuilder::new(1, 0);
    add_nodes(&mut b);
    let m = 100_000_000;
    b.add_link("wan", SERVER, GW, 1, dir(m, 10, 1000), dir(m, 10, 1000));
    b.add_link("core", GW, ROUTER, 1, dir(m, 2, 1000), dir(m, 2, 1000));
    let x_a = b.add_link(
        "x_a",
        ROUTER,
        ENB1,
        1,
        dir(m / 10, 3, setup.x_a_limit),
        dir(m / 10, 3, setup.enb1_egress_limit),
    );
    let x_b = b.add_link(
        "x_b",
        ROUTER,
        ENB2,
        1,
        dir(m / 10, 4, 1000),
        dir(m / 10, 4, 1000),
    );
    b.add_link(
        "x_c",
        ROUTER,
        ENB3,
        1,
        dir(m / 10, 1, 1000),
        dir(m / 10, 1, 1000),
    );
    assert_eq!((x_a, x_b), (X_A, X_B));
    if let Some(cfg) = setup.forwarding {
        b.forwarding(ENB1, cfg);
    }
    if let Some(t) = setup.traces {
        b.traces(t);
    }
    let log: Log = Default::default();
    b.add_medium("cell/toy", Box::new(ToyRan::new(setup.script, log.clone())));
    if setup.epc {
        b.epc(&EpcConfig {
            gateway: GW,
            ecn_decap: EcnDecap::Rfc6040,
            enbs: vec![ENB2, ENB3],
            attachments: vec![(UE, ENB1)],
        })
        .unwrap();
    }
    let (cap_a, cap_b): (Captured, Captured) = Default::default();
    b.capture(X_A, Box::new(Recorder(cap_a.clone())));
    b.capture(X_B, Box::new(Recorder(cap_b.clone())));
    let flow = b.add_flow(UE);
    if setup.burst > 0 {
        let sender = Bursts {
            flow,
            src: addr(SERVER),
            dst: addr(UE),
            burst: setup.burst,
            period: SimDuration::from_ms(20),
            stop: ms(1_000),
            seq: 0,
        };
        add_server_agent(&mut b, flow, "src", Box::new(sender));
    }
    add_ue_sink(&mut b, flow);
    Run {
        sim: start(b),
        log,
        x_a: cap_a,
        x_b: cap_b,
    }
}

/// The simulator of the world `b` describes, its agents started.
pub fn start(b: WorldBuilder) -> Simulator<World> {
    let mut sim = Simulator::new(b.build());
    sim.model.schedule_initial(&mut sim.sched);
    sim
}

/// Runs `sim` until simulated time `t`.
pub fn run_until(sim: &mut Simulator<World>, t: SimTime) {
    sim.run(StopCondition {
        until: Some(t),
        max_events: None,
    })
    .unwrap();
}

pub fn tunnel_arrivals(log: &Log) -> Vec<(SimTime, NodeId, NodeId, TunnelArrival)> {
    log.borrow()
        .iter()
        .filter_map(|s| match s {
            Seen::Tunnel { t, at, ue, arrival } => Some((*t, *at, *ue, *arrival)),
            Seen::Send { .. } => None,
        })
        .collect()
}

/// A datagram for the UE, as the source eNB would forward it.
pub fn datagram(app_seq: u64) -> Packet {
    let mut p = udp(
        FlowId(0),
        addr(SERVER),
        addr(UE),
        1000,
        app_seq,
        SimTime::ZERO,
    );
    p.uid = 42 + app_seq;
    p
}

/// The toy medium asks for the S1 path of the UE to be switched to enb2 at `at`.
pub fn switch_script(at: SimTime) -> Vec<(SimTime, Action)> {
    vec![(
        at,
        Action::Request(MediumRequest::PathSwitch { ue: UE, enb: ENB2 }),
    )]
}
