//! Test harness of the split-TCP proxy: a chain server ⇄ proxy node ⇄ UE of four one-way
//! hops, each with a propagation delay, an optional serialisation rate (infinite FIFO) and
//! Bernoulli loss after transmission. The proxy node hands every packet to the middlebox (when
//! there is one) and routes what it returns or emits. Shared by the `proxy*` test files, each
//! of which uses a part of it.

#![allow(dead_code)]

use celltcp_net::packet::FlowId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
pub use std::net::Ipv4Addr;

pub use celltcp_engine::{RngStream, SimDuration, SimTime};
pub use celltcp_net::agent::{Agent, AgentCtx};
pub use celltcp_net::middlebox::{Middlebox, MiddleboxCtx};
pub use celltcp_net::packet::{IpHeader, Packet, TcpFlags, Transport, UdpHeader};
pub use celltcp_net::trace::Traces;
pub use celltcp_tcp::agent::{TcpReceiverAgent, TcpSenderAgent};
pub use celltcp_tcp::app::Bulk;
pub use celltcp_tcp::proxy::{SplitTcpConfig, SplitTcpProxy};
pub use celltcp_tcp::{TcpConfig, TcpState};

pub const SERVER: (Ipv4Addr, u16) = (Ipv4Addr::new(10, 0, 0, 1), 40_000);
pub const UE: (Ipv4Addr, u16) = (Ipv4Addr::new(10, 1, 0, 2), 5_001);
pub const FLOW: FlowId = FlowId(7);

pub fn ms(v: u64) -> SimDuration {
    SimDuration::from_ms(v)
}

pub fn secs(v: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_secs(v)
}

/// One direction of one link.
#[derive(Clone, Copy, Debug)]
pub struct Hop {
    pub delay: SimDuration,
    /// Serialisation rate, bits per second; 0 = none.
    pub rate_bps: u64,
    /// Probability that a packet is lost after its transmission.
    pub loss: f64,
}

impl Hop {
    pub fn new(delay_ms: u64, rate_bps: u64) -> Self {
        Hop {
            delay: ms(delay_ms),
            rate_bps,
            loss: 0.0,
        }
    }
}

/// The four hops, indexed by `Dir`.
#[derive(Clone, Copy, Debug)]
pub struct PathSpec {
    pub hops: [Hop; 4],
}

impl PathSpec {
    /// Symmetric links: server–proxy and proxy–UE.
    pub fn new(core: Hop, radio: Hop) -> Self {
        PathSpec {
            hops: [core, radio, radio, core],
        }
    }

    pub fn lossy(mut self, core: f64, radio: f64) -> Self {
        self.hops[Dir::ServerToProxy as usize].loss = core;
        self.hops[Dir::ProxyToServer as usize].loss = core;
        self.hops[Dir::ProxyToUe as usize].loss = radio;
        self.hops[Dir::UeToProxy as usize].loss = radio;
        self
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    ServerToProxy = 0,
    ProxyToUe = 1,
    UeToProxy = 2,
    ProxyToServer = 3,
}

/// Where a packet in flight arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Node {
    Server,
    Ue,
    /// The proxy node, coming from the server (false) or the UE (true) side.
    Router(bool),
}

pub fn dir_to(node: Node) -> Dir {
    match node {
        Node::Server => Dir::ProxyToServer,
        Node::Ue => Dir::ProxyToUe,
        Node::Router(false) => Dir::ServerToProxy,
        Node::Router(true) => Dir::UeToProxy,
    }
}

pub struct Net<S: Agent, U: Agent> {
    pub server: S,
    pub ue: U,
    pub proxy: Option<SplitTcpProxy>,
    pub spec: PathSpec,
    pub free_at: [SimTime; 4],
    pub loss_rng: Vec<RngStream>,
    pub now: SimTime,
    pub heap: BinaryHeap<Reverse<(SimTime, u64, Node)>>,
    pub pkts: Vec<Packet>,
    pub timers: [Option<SimTime>; 2],
    pub rng: Vec<RngStream>,
    pub traces: Traces,
    /// Every packet that reached the UE / the server, with its arrival time.
    pub at_ue: Vec<(SimTime, Packet)>,
    pub at_server: Vec<(SimTime, Packet)>,
    pub dropped: [u64; 4],
}

impl<S: Agent, U: Agent> Net<S, U> {
    pub fn new(server: S, ue: U, proxy: Option<SplitTcpProxy>, spec: PathSpec, seed: u64) -> Self {
        let names = ["s2p", "p2u", "u2p", "p2s"];
        Net {
            server,
            ue,
            proxy,
            spec,
            free_at: [SimTime::ZERO; 4],
            loss_rng: names
                .iter()
                .map(|n| RngStream::new(seed, 0, &format!("hop/{n}/loss")))
                .collect(),
            now: SimTime::ZERO,
            heap: BinaryHeap::new(),
            pkts: Vec::new(),
            timers: [None, None],
            rng: ["server", "ue", "proxy"]
                .iter()
                .map(|n| RngStream::new(seed, 0, n))
                .collect(),
            traces: Traces::new(&[]),
            at_ue: Vec::new(),
            at_server: Vec::new(),
            dropped: [0; 4],
        }
    }

    /// Puts `p` on the hop towards `to`; it is lost after its transmission with the hop's
    /// loss probability.
    fn send(&mut self, to: Node, p: Packet) {
        let d = dir_to(to) as usize;
        let hop = self.spec.hops[d];
        let tx = if hop.rate_bps > 0 {
            SimDuration::transmission(p.size_bytes() as u64, hop.rate_bps)
        } else {
            SimDuration::ZERO
        };
        self.free_at[d] = self.free_at[d].max(self.now) + tx;
        if self.loss_rng[d].bernoulli(hop.loss) {
            self.dropped[d] += 1;
            return;
        }
        let at = self.free_at[d] + hop.delay;
        self.heap.push(Reverse((at, self.pkts.len() as u64, to)));
        self.pkts.push(p);
    }

    /// Routes a packet leaving the proxy node by its destination address.
    fn route(&mut self, p: Packet) {
        let to = if p.ip.dst == UE.0 {
            Node::Ue
        } else {
            Node::Server
        };
        self.send(to, p);
    }

    fn agent_call(&mut self, which: usize, f: impl FnOnce(&mut dyn Agent, &mut AgentCtx<'_>)) {
        let mut out = Vec::new();
        {
            let mut ctx = AgentCtx::new(
                self.now,
                &mut out,
                &mut self.timers[which],
                &mut self.rng[which],
                &mut self.traces,
            );
            if which == 0 {
                f(&mut self.server, &mut ctx);
            } else {
                f(&mut self.ue, &mut ctx);
            }
        }
        let to = Node::Router(which == 1);
        for p in out {
            self.send(to, p);
        }
    }

    fn proxy_call(&mut self, f: impl FnOnce(&mut SplitTcpProxy, &mut MiddleboxCtx<'_>)) {
        let Some(proxy) = self.proxy.as_mut() else {
            return;
        };
        let mut out = Vec::new();
        {
            let mut ctx = MiddleboxCtx {
                now: self.now,
                out: &mut out,
                rng: &mut self.rng[2],
                traces: &mut self.traces,
            };
            f(proxy, &mut ctx);
        }
        for p in out {
            self.route(p);
        }
    }

    fn at_router(&mut self, p: Packet) {
        let mut forwarded = Some(p);
        self.proxy_call(|m, ctx| forwarded = m.on_forward(p, ctx));
        if let Some(p) = forwarded {
            self.route(p);
        }
    }

    pub fn start(&mut self) {
        self.agent_call(1, |a, ctx| a.start(ctx));
        self.agent_call(0, |a, ctx| a.start(ctx));
    }

    /// Runs until `end` or until `done` holds after an event.
    pub fn run(&mut self, end: SimTime, mut done: impl FnMut(&Self) -> bool) {
        loop {
            let next_pkt = self.heap.peek().map(|r| r.0 .0);
            let t_proxy = self.proxy.as_ref().and_then(|m| m.poll_timeout());
            let candidates = [next_pkt, self.timers[0], self.timers[1], t_proxy];
            let Some(t) = candidates.into_iter().flatten().min() else {
                return;
            };
            if t > end {
                return;
            }
            assert!(t >= self.now, "time went backwards");
            self.now = t;
            if next_pkt == Some(t) {
                let Reverse((_, id, node)) = self.heap.pop().expect("peeked");
                let p = self.pkts[id as usize];
                match node {
                    Node::Server => {
                        self.at_server.push((t, p));
                        self.agent_call(0, |a, ctx| a.on_packet(p, ctx));
                    }
                    Node::Ue => {
                        self.at_ue.push((t, p));
                        self.agent_call(1, |a, ctx| a.on_packet(p, ctx));
                    }
                    Node::Router(_) => self.at_router(p),
                }
            } else if self.timers[0] == Some(t) {
                self.timers[0] = None;
                self.agent_call(0, |a, ctx| a.on_timer(ctx));
            } else if self.timers[1] == Some(t) {
                self.timers[1] = None;
                self.agent_call(1, |a, ctx| a.on_timer(ctx));
            } else {
                self.proxy_call(|m, ctx| m.on_timer(ctx));
            }
            if done(self) {
                return;
            }
        }
    }
}

/// Checks, from the segments that reached the UE, that the byte stream it was sent is exactly
/// `n` bytes followed by a FIN: the union of the data ranges is [1, n+1) relative to the ISN of
/// the SYN the UE received, and no segment carries a byte beyond it.
pub fn assert_stream_is_exactly(at_ue: &[(SimTime, Packet)], n: u64) {
    let syn = at_ue
        .iter()
        .find_map(|(_, p)| {
            let h = p.tcp()?;
            (h.flags.contains(TcpFlags::SYN) && p.ip.dst == UE.0).then_some(h.seq)
        })
        .expect("the UE received a SYN");
    let mut ranges: Vec<(u64, u64)> = Vec::new();
    let mut fin_at = None;
    for (_, p) in at_ue {
        let h = p.tcp().expect("TCP only");
        if h.flags.contains(TcpFlags::SYN) {
            continue;
        }
        let off = h.seq.wrapping_sub(syn) as u64;
        if p.payload_len > 0 {
            ranges.push((off, off + p.payload_len as u64));
        }
        if h.flags.contains(TcpFlags::FIN) {
            let f = off + p.payload_len as u64;
            assert!(fin_at.is_none_or(|x| x == f), "FIN moved: {fin_at:?} → {f}");
            fin_at = Some(f);
        }
    }
    ranges.sort_unstable();
    let mut covered = 1u64;
    for (a, b) in ranges {
        assert!(a <= covered, "bytes {covered}..{a} never reached the UE");
        covered = covered.max(b);
    }
    assert_eq!(covered, n + 1, "stream end");
    assert_eq!(fin_at, Some(n + 1), "FIN right after the last byte");
}

pub fn proxy_cfg(iw_to_mobile: u32) -> SplitTcpConfig {
    SplitTcpConfig {
        mobile_side: vec![UE.0],
        to_mobile: TcpConfig {
            initial_window: iw_to_mobile,
            ..TcpConfig::default()
        },
        ..Default::default()
    }
}

pub fn downlink(
    tcp: TcpConfig,
    app: Bulk,
    proxy: Option<SplitTcpConfig>,
    spec: PathSpec,
    seed: u64,
) -> Net<TcpSenderAgent, TcpReceiverAgent> {
    let s =
        TcpSenderAgent::with_cc_name(tcp, FLOW, SERVER, UE, "newreno", 0, Box::new(app)).unwrap();
    let r = TcpReceiverAgent::with_cc_name(tcp, FLOW, UE, "newreno", 0).unwrap();
    let proxy = proxy.map(|c| SplitTcpProxy::new("pep", c).unwrap());
    Net::new(s, r, proxy, spec, seed)
}

/// Time at which the UE's application had all `n` bytes, if it did by `end`.
pub fn completion(
    net: &mut Net<TcpSenderAgent, TcpReceiverAgent>,
    n: u64,
    end: SimTime,
) -> Option<f64> {
    net.start();
    net.run(end, |net| net.ue.delivered() >= n);
    (net.ue.delivered() == n).then(|| net.now.as_secs_f64())
}

pub fn udp_packet(src: Ipv4Addr, dst: Ipv4Addr) -> Packet {
    Packet {
        uid: 0,
        flow: FlowId(1),
        ip: IpHeader {
            src,
            dst,
            ecn: Default::default(),
            dscp: 0,
            ttl: 64,
            id: 0,
        },
        transport: Transport::Udp(UdpHeader {
            src_port: 9,
            dst_port: 9,
        }),
        payload_len: 100,
        app_seq: 3,
        created_at: SimTime::ZERO,
        tunnel: None,
    }
}

/// The server's SYN towards the UE, as a TCP endpoint makes it.
pub fn server_syn() -> Packet {
    let cc = celltcp_tcp::cc::build("newreno", &TcpConfig::default().cc_config()).unwrap();
    let mut ep = celltcp_tcp::TcpEndpoint::connect(
        TcpConfig::default(),
        cc,
        SERVER,
        UE,
        FLOW,
        SimTime::ZERO,
    );
    ep.poll_transmit(SimTime::ZERO, &mut Traces::new(&[]))
        .unwrap()
}
