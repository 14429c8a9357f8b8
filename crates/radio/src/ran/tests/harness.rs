//! A tiny stand-in for the world around an [`LteRan`]: a gateway that tunnels downlink
//! packets to the eNB of each UE's current path after a fixed S1 delay, an X2 network that
//! delivers forwarded data and end markers after a fixed delay (FIFO), and the medium's timer.
//! A path switch sends the end marker to the old eNB behind the packets already on the old
//! path (same delay, scheduled later), as an S-GW does.

use std::collections::{BTreeMap, HashMap};
use std::net::Ipv4Addr;

use celltcp_engine::{RngStream, SimDuration, SimTime};
use celltcp_net::handover::{HandoverEvent, HandoverRecord};
use celltcp_net::medium::{Medium, MediumOutput, MediumRequest, TunnelArrival};
use celltcp_net::packet::{
    Ecn, FlowId, IpHeader, NodeId, Packet, Transport, UdpHeader, IPV4_HEADER_BYTES,
    UDP_HEADER_BYTES,
};
use celltcp_net::queue::DropCause;
use celltcp_net::trace::Traces;

use crate::cell::LteCellConfig;
use crate::channel::Position;
use crate::mobility::MobilityModel;
use crate::ran::{HandoverConfig, LteRan, MeasurementConfig, RanConfig, RanUe};

pub const GATEWAY: NodeId = NodeId(100);
/// eNB of cell i is node ENB0 + i.
pub const ENB0: NodeId = NodeId(10);

pub fn ms(x: u64) -> SimTime {
    SimTime::from_ns(x * 1_000_000)
}

/// A UDP packet of `size` bytes for UE `ue` (its node number is the last octet of ip.dst).
pub fn packet(uid: u64, ue: NodeId, flow: FlowId, size: u32) -> Packet {
    Packet {
        uid,
        flow,
        ip: IpHeader {
            src: Ipv4Addr::new(10, 0, 0, 1),
            dst: Ipv4Addr::new(10, 0, 1, ue.0 as u8),
            ecn: Ecn::NotEct,
            dscp: 0,
            ttl: 64,
            id: 0,
        },
        transport: Transport::Udp(UdpHeader {
            src_port: 5000,
            dst_port: 5001,
        }),
        payload_len: size - IPV4_HEADER_BYTES - UDP_HEADER_BYTES,
        app_seq: uid,
        created_at: SimTime::ZERO,
        tunnel: None,
    }
}

/// A default cell named `c{i}` at (x, 0) with eNB node ENB0 + i.
pub fn cell(i: usize, x_m: f64) -> LteCellConfig {
    LteCellConfig {
        position: Position::new(x_m, 0.0),
        ..LteCellConfig::lte_default(&format!("c{i}"), NodeId(ENB0.0 + i as u32))
    }
}

pub fn fixed_ue(node: NodeId, serving: usize, x_m: f64) -> RanUe {
    RanUe {
        node,
        serving,
        downlink_loss: None,
        mobility: MobilityModel::Fixed {
            position: Position::new(x_m, 0.0),
        },
    }
}

pub fn ran_config(
    cells: Vec<LteCellConfig>,
    ues: Vec<RanUe>,
    handover: HandoverConfig,
) -> RanConfig {
    RanConfig {
        name: "ran".into(),
        cells,
        ues,
        gateway: GATEWAY,
        handover,
        measurement: MeasurementConfig::default(),
        coupled_interference: false,
        dual_connectivity: None,
    }
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    /// The gateway sends a downlink packet of `size` bytes to `ue` on flow `flow`.
    GatewaySend { ue: NodeId, flow: FlowId, size: u32 },
    /// A tunnelled downlink packet reaches eNB `enb`.
    AtEnb {
        enb: NodeId,
        ue: NodeId,
        pkt: Packet,
    },
    /// X2-U data or an end marker reaches eNB `at`.
    Tunnel {
        at: NodeId,
        ue: NodeId,
        arrival: TunnelArrival,
    },
    /// UE `ue` sends an uplink packet.
    UeSend { ue: NodeId, size: u32 },
}

/// One delivery seen by the harness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub time: SimTime,
    /// The node the packet reached (a UE for downlink, an eNB for uplink).
    pub node: NodeId,
    pub uid: u64,
    pub flow: FlowId,
}

pub struct Harness {
    pub ran: LteRan,
    pub now: SimTime,
    pub s1_delay: SimDuration,
    pub x2_delay: SimDuration,
    /// Per UE, the eNB its downlink is tunnelled to.
    pub path: HashMap<NodeId, NodeId>,
    events: BTreeMap<(SimTime, u64), Ev>,
    seq: u64,
    next_uid: u64,
    rng: RngStream,
    traces: Traces,
    out: MediumOutput,
    pub delivered: Vec<Delivery>,
    pub dropped: Vec<(SimTime, u64, DropCause)>,
    pub requests: Vec<(SimTime, MediumRequest)>,
    /// Downlink packets the gateway sent: (uid, time, UE).
    pub sent_down: Vec<(u64, SimTime, NodeId)>,
    /// Uplink packets UEs sent: (uid, time, UE).
    pub sent_up: Vec<(u64, SimTime, NodeId)>,
}

impl Harness {
    pub fn new(ran: LteRan, cfg_ues: &[RanUe], cells: &[LteCellConfig]) -> Self {
        let path = cfg_ues
            .iter()
            .map(|u| (u.node, cells[u.serving].enb))
            .collect();
        Harness {
            ran,
            now: SimTime::ZERO,
            s1_delay: SimDuration::from_ms(10),
            x2_delay: SimDuration::from_ms(8),
            path,
            events: BTreeMap::new(),
            seq: 0,
            next_uid: 1,
            rng: RngStream::new(0, 0, "unused"),
            traces: Traces::default(),
            out: MediumOutput::default(),
            delivered: Vec::new(),
            dropped: Vec::new(),
            requests: Vec::new(),
            sent_down: Vec::new(),
            sent_up: Vec::new(),
        }
    }

    /// Builds the network of `cfg` (seed 1, run 0) and its harness.
    pub fn build(cfg: RanConfig) -> Self {
        let (ues, cells) = (cfg.ues.clone(), cfg.cells.clone());
        Harness::new(
            LteRan::new(cfg, 1, 0).expect("valid configuration"),
            &ues,
            &cells,
        )
    }

    fn push(&mut self, at: SimTime, ev: Ev) {
        self.events.insert((at, self.seq), ev);
        self.seq += 1;
    }

    /// Constant-bit-rate downlink to `ue`: `size`-byte packets every `interval` in [start, stop).
    pub fn cbr(
        &mut self,
        ue: NodeId,
        flow: FlowId,
        size: u32,
        interval: SimDuration,
        start: SimTime,
        stop: SimTime,
    ) {
        let mut t = start;
        while t < stop {
            self.push(t, Ev::GatewaySend { ue, flow, size });
            t += interval;
        }
    }

    /// Uplink packets from `ue` every `interval` in [start, stop).
    pub fn uplink(
        &mut self,
        ue: NodeId,
        size: u32,
        interval: SimDuration,
        start: SimTime,
        stop: SimTime,
    ) {
        let mut t = start;
        while t < stop {
            self.push(t, Ev::UeSend { ue, size });
            t += interval;
        }
    }

    fn collect(&mut self) {
        let now = self.now;
        for (node, p) in self.out.delivered.drain(..) {
            self.delivered.push(Delivery {
                time: now,
                node,
                uid: p.uid,
                flow: p.flow,
            });
        }
        for (p, cause) in self.out.dropped.drain(..) {
            self.dropped.push((now, p.uid, cause));
        }
        let requests: Vec<MediumRequest> = self.out.requests.drain(..).collect();
        for r in requests {
            self.requests.push((now, r));
            match r {
                MediumRequest::Forward {
                    to,
                    pkt,
                    pdcp_count,
                    ..
                } => {
                    let ue = NodeId(u32::from(pkt.ip.dst.octets()[3]));
                    let arrival = TunnelArrival::Forwarded { pkt, pdcp_count };
                    self.push(
                        now + self.x2_delay,
                        Ev::Tunnel {
                            at: to,
                            ue,
                            arrival,
                        },
                    );
                }
                MediumRequest::ForwardEndMarker { to, ue, .. } => {
                    let arrival = TunnelArrival::EndMarker {
                        from_gateway: false,
                    };
                    self.push(
                        now + self.x2_delay,
                        Ev::Tunnel {
                            at: to,
                            ue,
                            arrival,
                        },
                    );
                }
                MediumRequest::PathSwitch { ue, enb } => {
                    let old = self.path.insert(ue, enb).unwrap_or(enb);
                    if old != enb {
                        let arrival = TunnelArrival::EndMarker { from_gateway: true };
                        self.push(
                            now + self.s1_delay,
                            Ev::Tunnel {
                                at: old,
                                ue,
                                arrival,
                            },
                        );
                    }
                }
            }
        }
    }

    fn handle(&mut self, ev: Ev) {
        let now = self.now;
        match ev {
            Ev::GatewaySend { ue, flow, size } => {
                let uid = self.next_uid;
                self.next_uid += 1;
                self.sent_down.push((uid, now, ue));
                let enb = self.path[&ue];
                let pkt = packet(uid, ue, flow, size);
                self.push(now + self.s1_delay, Ev::AtEnb { enb, ue, pkt });
            }
            Ev::AtEnb { enb, ue, pkt } => self.ran.send(now, enb, ue, pkt, &mut self.out),
            Ev::Tunnel { at, ue, arrival } => {
                self.ran.tunnel_receive(now, at, ue, arrival, &mut self.out)
            }
            Ev::UeSend { ue, size } => {
                let uid = self.next_uid;
                self.next_uid += 1;
                self.sent_up.push((uid, now, ue));
                // Routed onto an arbitrary edge: the first eNB.
                let pkt = packet(uid, ue, FlowId(1_000), size);
                self.ran.send(now, ue, ENB0, pkt, &mut self.out);
            }
        }
        self.collect();
    }

    /// Runs everything due up to and including `t` (harness events before the medium's
    /// timer at equal times).
    pub fn run_until(&mut self, t: SimTime) {
        loop {
            let ev_at = self.events.keys().next().map(|k| k.0);
            let timer = self.ran.poll_timeout();
            let next = [ev_at, timer].into_iter().flatten().min();
            let Some(next) = next.filter(|&n| n <= t) else {
                break;
            };
            assert!(next >= self.now, "deadline {next} before now {}", self.now);
            self.now = next;
            if ev_at == Some(next) {
                let (_, ev) = self.events.pop_first().expect("peeked");
                self.handle(ev);
            } else {
                self.ran
                    .on_timer(next, &mut self.rng, &mut self.traces, &mut self.out);
                self.collect();
            }
        }
        self.now = self.now.max(t);
    }

    /// Downlink uids delivered to `ue`, in delivery order.
    pub fn delivered_to(&self, ue: NodeId) -> Vec<u64> {
        self.delivered
            .iter()
            .filter(|d| d.node == ue)
            .map(|d| d.uid)
            .collect()
    }

    /// Downlink uids the gateway sent to `ue`, in sending order.
    pub fn sent_to(&self, ue: NodeId) -> Vec<u64> {
        self.sent_down
            .iter()
            .filter(|s| s.2 == ue)
            .map(|s| s.0)
            .collect()
    }

    pub fn dropped_with(&self, cause: DropCause) -> Vec<u64> {
        self.dropped
            .iter()
            .filter(|d| d.2 == cause)
            .map(|d| d.1)
            .collect()
    }

    pub fn records(&self) -> Vec<HandoverRecord> {
        self.ran.handovers()
    }

    pub fn events(&self) -> Vec<HandoverEvent> {
        self.ran.handover_events().to_vec()
    }
}
