//! The network side of an LTE handover (TS 36.300 §10.1.2.1) with a toy radio access network:
//! a medium of two eNBs and one UE that delivers at once and asks the network, on a script, to
//! forward data over X2-U, send end markers and switch the S1 path.
//!
//! ```text
//!                                                            ,-- x_a 10 Mb/s, 3 ms -- enb1 --.
//! server --wan 100 Mb/s, 10 ms-- gw --core 100 Mb/s, 2 ms-- router -- x_b 10 Mb/s, 4 ms -- enb2 -- (toy medium) -- ue
//!                                                            `-- x_c 10 Mb/s, 1 ms -- enb3 (no medium)
//! ```
//! `gw` is the combined S-GW/P-GW. S1-U and X2-U share the router, so a forwarded packet crosses
//! it twice (enb1 → router → enb2).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::net::Ipv4Addr;
use std::rc::Rc;

use celltcp_engine::{RngStream, SimDuration, SimTime, Simulator, StopCondition};
use celltcp_net::agent::{Agent, AgentCtx, ReportEntry};
use celltcp_net::app::udp::UdpSink;
use celltcp_net::gtp::{EcnDecap, EpcConfig};
use celltcp_net::link::LinkDirConfig;
use celltcp_net::medium::{Medium, MediumFigure, MediumOutput, MediumRequest, TunnelArrival};
use celltcp_net::packet::{Ecn, GtpInterface, GtpMessage, GtpTunnel, NodeId, Packet, NO_FLOW};
use celltcp_net::queue::{DropTail, QueueLimit};
use celltcp_net::topology::NodeKind;
use celltcp_net::trace::Traces;
use celltcp_net::world::{CaptureSink, RequestFailure, World, WorldBuilder, PROTO_UDP};

mod common;
use common::{udp, Bursts};

const SERVER: NodeId = 0;
const GW: NodeId = 1;
const ROUTER: NodeId = 2;
const ENB1: NodeId = 3;
const ENB2: NodeId = 4;
const ENB3: NodeId = 5;
const UE: NodeId = 6;
/// Link directions (2·link a→b, 2·link + 1 b→a) in the order the links are added.
const ROUTER_TO_ENB1: usize = 4;
const ENB1_TO_ROUTER: usize = 5;
const ROUTER_TO_ENB2: usize = 6;
const X_A: u32 = 2;
const X_B: u32 = 3;

fn addr(node: NodeId) -> Ipv4Addr {
    Ipv4Addr::new(10, 0, 0, node as u8 + 1)
}

fn ms(ms: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_ms(ms)
}

/// Serialisation time of `bytes` at 10 Mb/s, nanoseconds.
fn tx_10m(bytes: u64) -> u64 {
    bytes * 8 * 100
}

/// What the toy medium saw, in the order it saw it.
#[derive(Clone, Debug, PartialEq)]
enum Seen {
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

type Log = Rc<RefCell<Vec<Seen>>>;

/// What the toy medium does at a scripted time.
enum Action {
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

struct ToyRan {
    script: VecDeque<(SimTime, Action)>,
    buffering: Option<NodeId>,
    buffer: Vec<Packet>,
    log: Log,
}

impl ToyRan {
    fn new(script: Vec<(SimTime, Action)>, log: Log) -> ToyRan {
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
type Captured = Rc<RefCell<Vec<(SimTime, Ipv4Addr, u32, GtpMessage, u32)>>>;

struct Recorder(Captured);

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

struct Setup {
    script: Vec<(SimTime, Action)>,
    /// Limit of the router → enb1 queue, packets.
    x_a_limit: u32,
    epc: bool,
    /// Bursts of this many datagrams every 20 ms from the server to the UE, for 1 s.
    burst: u32,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            script: Vec::new(),
            x_a_limit: 1000,
            epc: true,
            burst: 0,
        }
    }
}

struct Run {
    sim: Simulator<World>,
    log: Log,
    x_a: Captured,
    x_b: Captured,
}

fn dir(rate_bps: u64, delay_ms: u64, limit: u32) -> LinkDirConfig {
    LinkDirConfig {
        rate_bps,
        delay: SimDuration::from_ms(delay_ms),
        queue: Box::new(DropTail::new(QueueLimit::Packets(limit)).unwrap()),
        loss: None,
    }
}

fn build(setup: Setup) -> Run {
    let mut b = WorldBuilder::new(1, 0);
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
        assert_eq!(b.add_node(name, kind, addr(i as NodeId)), i as NodeId);
    }
    let m = 100_000_000;
    b.add_link("wan", SERVER, GW, 1, dir(m, 10, 1000), dir(m, 10, 1000));
    b.add_link("core", GW, ROUTER, 1, dir(m, 2, 1000), dir(m, 2, 1000));
    let x_a = b.add_link(
        "x_a",
        ROUTER,
        ENB1,
        1,
        dir(m / 10, 3, setup.x_a_limit),
        dir(m / 10, 3, 1000),
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
        b.add_agent(
            SERVER,
            flow,
            PROTO_UDP,
            49152,
            SimTime::ZERO,
            "src",
            Box::new(sender),
        );
    }
    b.add_agent(
        UE,
        flow,
        PROTO_UDP,
        5001,
        SimTime::ZERO,
        "dst",
        Box::new(UdpSink::new()),
    );
    let mut sim = Simulator::new(b.build());
    sim.model.schedule_initial(&mut sim.sched);
    Run {
        sim,
        log,
        x_a: cap_a,
        x_b: cap_b,
    }
}

fn run_until(run: &mut Run, t: SimTime) {
    run.sim
        .run(StopCondition {
            until: Some(t),
            max_events: None,
        })
        .unwrap();
}

fn tunnel_arrivals(log: &Log) -> Vec<(SimTime, NodeId, NodeId, TunnelArrival)> {
    log.borrow()
        .iter()
        .filter_map(|s| match s {
            Seen::Tunnel { t, at, ue, arrival } => Some((*t, *at, *ue, *arrival)),
            Seen::Send { .. } => None,
        })
        .collect()
}

/// A datagram for the UE, as the source eNB would forward it.
fn datagram(app_seq: u64) -> Packet {
    let mut p = udp(0, addr(SERVER), addr(UE), 1000, app_seq, SimTime::ZERO);
    p.uid = 42 + app_seq;
    p
}

/// One forwarded packet and the end marker after it cross enb1 → router → enb2 on an idle path.
/// The G-PDU is 1028 + 44 bytes (outer IPv4, UDP, GTP-U with the PDCP PDU Number extension):
/// 857.6 µs at 10 Mb/s on each of two links, plus 3 + 4 ms. The 36-byte end marker waits
/// behind it on both links.
#[test]
fn forwarded_data_reaches_the_target_with_its_pdcp_count_after_crossing_the_router_twice() {
    let pkt = datagram(0);
    let script = vec![
        (
            ms(100),
            Action::Request(MediumRequest::Forward {
                from: ENB1,
                to: ENB2,
                pkt,
                pdcp_count: Some(7),
            }),
        ),
        (
            ms(100),
            Action::Request(MediumRequest::ForwardEndMarker {
                from: ENB1,
                to: ENB2,
                ue: UE,
            }),
        ),
    ];
    let mut run = build(Setup {
        script,
        ..Default::default()
    });
    run_until(&mut run, ms(200));
    let arrivals = tunnel_arrivals(&run.log);
    let g_pdu = 1028 + 44;
    let t_data = ms(100) + SimDuration::from_ns(2 * tx_10m(g_pdu) + 7_000_000);
    assert_eq!(
        arrivals[0],
        (
            t_data,
            ENB2,
            UE,
            TunnelArrival::Forwarded {
                pkt,
                pdcp_count: Some(7)
            }
        ),
        "the inner packet as it was handed over"
    );
    // The end marker leaves enb1 when the G-PDU has, and router → enb2 likewise.
    let t_marker = t_data + SimDuration::from_ns(tx_10m(36));
    assert_eq!(
        arrivals[1],
        (
            t_marker,
            ENB2,
            UE,
            TunnelArrival::EndMarker {
                from_gateway: false
            }
        )
    );
    assert_eq!(arrivals.len(), 2);
    let dirs = &run.sim.model.dirs;
    for d in [ENB1_TO_ROUTER, ROUTER_TO_ENB2] {
        assert_eq!(
            (dirs[d].stats.packets_sent, dirs[d].stats.bytes_sent),
            (2, g_pdu + 36)
        );
    }
    // The target's first TEID (it serves no UE yet), for both the G-PDU and the end marker.
    let x_b = run.x_b.borrow();
    let want_tunnel = |m| (addr(ENB2), 1, m);
    let seen: Vec<_> = x_b.iter().map(|c| (c.1, c.2, c.3)).collect();
    assert_eq!(
        seen,
        vec![
            want_tunnel(GtpMessage::GPdu),
            want_tunnel(GtpMessage::EndMarker)
        ]
    );
    assert_eq!((x_b[0].4, x_b[1].4), (0, NO_FLOW));
    let epc = run.sim.model.epc().unwrap();
    let (enb1, enb2) = (epc.endpoint_stats(ENB1), epc.endpoint_stats(ENB2));
    assert_eq!((enb1.encapsulated, enb1.end_markers), (1, 1));
    assert_eq!((enb2.decapsulated, enb2.end_markers), (1, 1));
    // The medium delivered the forwarded packet to the UE: it counts for its flow.
    let f = &run.sim.model.flow_counters[0];
    assert_eq!(
        (f.packets_delivered, f.bytes_delivered, f.drops()),
        (1, 1028, 0)
    );
    assert!(run.sim.model.errors().is_empty());
}

/// The toy medium asks for the S1 path of the UE to be switched to enb2 at `at`.
fn switch_script(at: SimTime) -> Vec<(SimTime, Action)> {
    vec![(
        at,
        Action::Request(MediumRequest::PathSwitch { ue: UE, enb: ENB2 }),
    )]
}

/// Bursts of 20 datagrams every 20 ms: the 10 Mb/s router → enb1 link needs 17 ms per burst,
/// so at the path switch at 520 ms (the burst sent at 500 ms reached the router from 512.2 ms)
/// the old tunnel still holds about half of that burst. The end marker the gateway sends then
/// queues behind it; datagrams tunnelled after the switch go to enb2.
#[test]
fn the_end_marker_follows_every_packet_of_the_old_tunnel_and_new_data_goes_to_the_target() {
    let mut run = build(Setup {
        script: switch_script(ms(520)),
        burst: 20,
        ..Default::default()
    });
    run_until(&mut run, ms(2_000));
    let log = run.log.borrow();
    let marker_at = log
        .iter()
        .position(|s| {
            matches!(
                s,
                Seen::Tunnel {
                    arrival: TunnelArrival::EndMarker { .. },
                    ..
                }
            )
        })
        .expect("an end marker reached enb1");
    let Seen::Tunnel {
        t: marker_t,
        at,
        ue,
        arrival,
    } = log[marker_at].clone()
    else {
        unreachable!()
    };
    assert_eq!(
        (at, ue, arrival),
        (ENB1, UE, TunnelArrival::EndMarker { from_gateway: true })
    );
    let sends = |enb: NodeId| -> Vec<(SimTime, u64)> {
        log.iter()
            .filter_map(|s| match s {
                Seen::Send { t, enb: e, app_seq } if *e == enb => Some((*t, *app_seq)),
                _ => None,
            })
            .collect()
    };
    let (at_enb1, at_enb2) = (sends(ENB1), sends(ENB2));
    // Every packet enb1 received came before the end marker, and some of them after the switch:
    // they were in the old tunnel when it was switched.
    assert!(log[marker_at + 1..]
        .iter()
        .all(|s| !matches!(s, Seen::Send { enb: ENB1, .. })));
    let in_old_tunnel = at_enb1.iter().filter(|(t, _)| *t > ms(520)).count();
    assert!(
        in_old_tunnel >= 10,
        "{in_old_tunnel} packets were in the old tunnel"
    );
    assert!(marker_t > at_enb1.last().unwrap().0);
    // After the switch new downlink packets go to enb2, and the two sets make up the flow in
    // order, each datagram once.
    assert!(at_enb2.iter().all(|(t, _)| *t > ms(520)));
    assert!(!at_enb2.is_empty());
    let seqs: Vec<u64> = at_enb1.iter().chain(&at_enb2).map(|(_, s)| *s).collect();
    assert_eq!(seqs, (0..1_000).collect::<Vec<u64>>());
    // On the wire: everything to enb1 under its TEID 1 and the end marker last, under the same
    // TEID; to enb2 under the TEID it allocated at the switch (its first).
    let x_a = run.x_a.borrow();
    let (last, data) = x_a.split_last().unwrap();
    assert_eq!(
        (last.1, last.2, last.3, last.4),
        (addr(ENB1), 1, GtpMessage::EndMarker, NO_FLOW)
    );
    assert!(data
        .iter()
        .all(|c| (c.1, c.2, c.3) == (addr(ENB1), 1, GtpMessage::GPdu)));
    assert!(run
        .x_b
        .borrow()
        .iter()
        .all(|c| (c.1, c.2, c.3) == (addr(ENB2), 1, GtpMessage::GPdu)));
    let bearer = *run.sim.model.epc().unwrap().bearer(UE).unwrap();
    assert_eq!((bearer.enb, bearer.dl_teid), (ENB2, 1));
    let epc = run.sim.model.epc().unwrap();
    assert_eq!(epc.endpoint_stats(GW).end_markers, 1);
    assert_eq!(epc.endpoint_stats(ENB1).end_markers, 1);
    assert_eq!(
        epc.endpoint_stats(ENB1).decapsulated + epc.endpoint_stats(ENB2).decapsulated,
        1_000
    );
    let f = &run.sim.model.flow_counters[0];
    assert_eq!(
        (f.packets_sent, f.packets_delivered, f.drops()),
        (1_000, 1_000, 0)
    );
    println!(
        "path switch at 520 ms: {in_old_tunnel} packets still in the old tunnel, end marker at enb1 at {marker_t}"
    );
}

/// Handover with forwarding: enb1 keeps what reaches it from 500 ms, forwards it to enb2 at
/// 530 ms with PDCP counts, then the path switches. Bursts of five every 20 ms: the one sent at
/// 480 ms has reached the UE by 499.5 ms, the one sent at 500 ms reaches enb1 from 515 ms and is
/// kept, the one sent at 520 ms reaches the gateway after the switch and takes the new path.
/// Every datagram reaches the UE once.
#[test]
fn forwarding_then_switching_delivers_every_packet_once() {
    let script = vec![
        (ms(500), Action::Buffer(ENB1)),
        (
            ms(530),
            Action::ForwardBuffered {
                from: ENB1,
                to: ENB2,
            },
        ),
        (
            ms(530),
            Action::Request(MediumRequest::PathSwitch { ue: UE, enb: ENB2 }),
        ),
    ];
    let mut run = build(Setup {
        script,
        burst: 5,
        ..Default::default()
    });
    run_until(&mut run, ms(2_000));
    let arrivals = tunnel_arrivals(&run.log);
    let forwarded: Vec<(u64, Option<u32>)> = arrivals
        .iter()
        .filter_map(|(_, at, _, a)| match a {
            TunnelArrival::Forwarded { pkt, pdcp_count } if *at == ENB2 => {
                Some((pkt.app_seq, *pdcp_count))
            }
            _ => None,
        })
        .collect();
    // The burst sent at 500 ms (datagrams 125 to 129), with PDCP counts 100 to 104.
    let want: Vec<(u64, Option<u32>)> = (0..5).map(|i| (125 + i, Some(100 + i as u32))).collect();
    assert_eq!(forwarded, want);
    let markers: Vec<(NodeId, bool)> = arrivals
        .iter()
        .filter_map(|(_, at, _, a)| match a {
            TunnelArrival::EndMarker { from_gateway } => Some((*at, *from_gateway)),
            _ => None,
        })
        .collect();
    // The X2 end marker reaches enb2 after the forwarded data; the S1 one reaches enb1.
    assert!(markers.contains(&(ENB2, false)) && markers.contains(&(ENB1, true)));
    let x2_marker = arrivals
        .iter()
        .position(|(_, at, _, a)| *at == ENB2 && matches!(a, TunnelArrival::EndMarker { .. }))
        .unwrap();
    let last_forwarded = arrivals
        .iter()
        .rposition(|(_, _, _, a)| matches!(a, TunnelArrival::Forwarded { .. }))
        .unwrap();
    assert!(x2_marker > last_forwarded);
    let f = &run.sim.model.flow_counters[0];
    assert_eq!(
        (f.packets_sent, f.packets_delivered, f.drops()),
        (250, 250, 0)
    );
    let epc = run.sim.model.epc().unwrap();
    assert_eq!(epc.endpoint_stats(ENB1).encapsulated, 5);
    let sends_at_enb2 = run
        .log
        .borrow()
        .iter()
        .filter(|s| matches!(s, Seen::Send { enb: ENB2, .. }))
        .count();
    assert_eq!(
        sends_at_enb2,
        250 - 130,
        "the new path carries every datagram from the 520 ms burst on"
    );
    // The forwarding tunnel's TEID was enb2's first; the S1 path then took its second.
    assert_eq!(epc.bearer(UE).unwrap().dl_teid, 2);
    assert!(
        run.sim.model.errors().is_empty(),
        "{:?}",
        run.sim.model.errors()
    );
}

/// The same inputs give the same timeline, event for event.
#[test]
fn handover_plumbing_is_deterministic() {
    let timeline = || {
        let mut run = build(Setup {
            script: vec![
                (ms(300), Action::Buffer(ENB1)),
                (
                    ms(330),
                    Action::ForwardBuffered {
                        from: ENB1,
                        to: ENB2,
                    },
                ),
                (
                    ms(330),
                    Action::Request(MediumRequest::PathSwitch { ue: UE, enb: ENB2 }),
                ),
            ],
            burst: 20,
            ..Default::default()
        });
        run_until(&mut run, ms(1_500));
        let log = run.log.borrow().clone();
        let caps = (run.x_a.borrow().clone(), run.x_b.borrow().clone());
        (log, caps)
    };
    let (a, b) = (timeline(), timeline());
    assert!(a.0.len() > 1_000);
    assert_eq!(a, b);
}

/// An end marker is a packet of no flow: dropped at a full queue it counts nowhere but in the
/// queue's own statistics, and nothing panics. Here the router → enb1 queue holds 4 packets.
/// The switch comes at 511 ms, while the burst sent at 500 ms is entering the gateway: about
/// eleven of its datagrams took the old tunnel and reach the router within a millisecond, so
/// the end marker right behind them finds the queue full and never reaches enb1.
#[test]
fn an_end_marker_dropped_at_a_full_queue_counts_for_no_flow() {
    let mut run = build(Setup {
        script: switch_script(ms(511)),
        burst: 20,
        x_a_limit: 4,
        ..Default::default()
    });
    run_until(&mut run, ms(2_000));
    let q = *run.sim.model.dirs[ROUTER_TO_ENB1].queue.stats();
    let f = &run.sim.model.flow_counters[0];
    assert!(f.drops_queue_full > 0);
    assert_eq!(
        q.dropped_full,
        f.drops_queue_full + 1,
        "the end marker's drop is the queue's only"
    );
    assert_eq!(f.packets_delivered + f.drops(), f.packets_sent);
    assert!(
        tunnel_arrivals(&run.log).is_empty(),
        "no end marker arrived"
    );
    let epc = run.sim.model.epc().unwrap();
    assert_eq!(
        (
            epc.endpoint_stats(GW).end_markers,
            epc.endpoint_stats(ENB1).end_markers
        ),
        (1, 0)
    );
}

/// Requests the network cannot carry out are recorded, not panicked on; a forwarded packet
/// that cannot be forwarded counts as dropped for its flow.
#[test]
fn impossible_requests_are_errors_and_packets_to_enbs_without_a_medium_are_dropped() {
    let req = |r| (ms(10), Action::Request(r));
    let script = vec![
        req(MediumRequest::PathSwitch {
            ue: SERVER,
            enb: ENB2,
        }),
        req(MediumRequest::PathSwitch {
            ue: UE,
            enb: ROUTER,
        }),
        req(MediumRequest::PathSwitch { ue: UE, enb: 99 }),
        req(MediumRequest::Forward {
            from: ROUTER,
            to: ENB2,
            pkt: datagram(1),
            pdcp_count: None,
        }),
        req(MediumRequest::Forward {
            from: ENB1,
            to: 1_000,
            pkt: datagram(2),
            pdcp_count: None,
        }),
        req(MediumRequest::ForwardEndMarker {
            from: ENB1,
            to: ENB2,
            ue: u32::MAX,
        }),
        // enb3 is an eNB of the EPC but no medium's: the data is dropped there, the end marker
        // discarded.
        req(MediumRequest::Forward {
            from: ENB1,
            to: ENB3,
            pkt: datagram(3),
            pdcp_count: Some(1),
        }),
        req(MediumRequest::ForwardEndMarker {
            from: ENB1,
            to: ENB3,
            ue: UE,
        }),
        // A switch to the serving eNB changes the TEID and sends no end marker.
        req(MediumRequest::PathSwitch { ue: UE, enb: ENB1 }),
    ];
    let mut stray = datagram(4);
    stray.ip.dst = Ipv4Addr::new(192, 0, 2, 1);
    let mut script = script;
    script.insert(
        4,
        req(MediumRequest::Forward {
            from: ENB1,
            to: ENB2,
            pkt: stray,
            pdcp_count: None,
        }),
    );
    let mut run = build(Setup {
        script,
        ..Default::default()
    });
    run_until(&mut run, ms(200));
    let errors = run.sim.model.errors();
    let reasons: Vec<(&str, String)> = errors
        .iter()
        .map(|e| (e.request, e.reason.to_string()))
        .collect();
    let want = [
        (
            "path_switch",
            "epc: node 0 has no bearer (not a UE of the EPC)",
        ),
        ("path_switch", "epc: node 2 is not an eNB of the EPC"),
        ("path_switch", "epc: node 99 is not an eNB of the EPC"),
        ("forward", "epc: node 2 is not an eNB of the EPC"),
        (
            "forward",
            "packet 46 is for 192.0.2.1, which is no node's address",
        ),
        ("forward", "epc: node 1000 is not an eNB of the EPC"),
        (
            "forward_end_marker",
            "epc: node 4294967295 has no bearer (not a UE of the EPC)",
        ),
    ];
    let want: Vec<(&str, String)> = want.iter().map(|(r, m)| (*r, m.to_string())).collect();
    assert_eq!(reasons, want);
    assert_eq!(
        errors[0].to_string(),
        "at 0.010000000s: path_switch requested by medium 'toy': epc: node 0 has no bearer (not a UE of the EPC)"
    );
    let f = &run.sim.model.flow_counters[0];
    // Three forwards refused, one dropped at enb3 for want of a medium.
    assert_eq!((f.drops_no_route, f.packets_delivered), (4, 0));
    assert!(tunnel_arrivals(&run.log).is_empty());
    let epc = run.sim.model.epc().unwrap();
    assert_eq!(
        epc.endpoint_stats(ENB3).end_markers,
        1,
        "received, then discarded"
    );
    assert_eq!(epc.endpoint_stats(GW).end_markers, 0);
    assert_eq!(epc.bearer(UE).unwrap().enb, ENB1);
    assert_eq!(epc.bearer(UE).unwrap().dl_teid, 2);
    assert!(matches!(errors[0].reason, RequestFailure::Epc(_)));

    // Without an EPC nothing can be tunnelled.
    let mut bare = build(Setup {
        script: vec![
            req(MediumRequest::PathSwitch { ue: UE, enb: ENB2 }),
            req(MediumRequest::Forward {
                from: ENB1,
                to: ENB2,
                pkt: datagram(5),
                pdcp_count: None,
            }),
        ],
        epc: false,
        ..Default::default()
    });
    run_until(&mut bare, ms(200));
    let reasons: Vec<&RequestFailure> = bare.sim.model.errors().iter().map(|e| &e.reason).collect();
    assert_eq!(
        reasons,
        vec![&RequestFailure::NoEpc, &RequestFailure::NoEpc]
    );
    assert_eq!(bare.sim.model.flow_counters[0].drops_no_route, 1);
}

/// Sends crafted X2-U G-PDUs to enb2 at its start: (inner ECN, outer ECN, PDCP count).
struct X2Injector(Vec<(Ecn, Ecn, u32)>);

impl Agent for X2Injector {
    fn start(&mut self, ctx: &mut AgentCtx<'_>) {
        for (i, &(inner, outer, count)) in self.0.iter().enumerate() {
            let mut p = udp(0, addr(SERVER), addr(UE), 100, i as u64, ctx.now());
            p.ip.ecn = inner;
            p.tunnel = Some(GtpTunnel {
                outer_src: addr(ENB1),
                outer_dst: addr(ENB2),
                teid: 1,
                outer_ecn: outer,
                message: GtpMessage::GPdu,
                interface: GtpInterface::X2u,
                pdcp_count: Some(count),
            });
            ctx.send(p);
        }
    }
    fn on_packet(&mut self, _: Packet, _: &mut AgentCtx<'_>) {}
    fn on_timer(&mut self, _: &mut AgentCtx<'_>) {}
    fn report(&self, _: SimTime) -> Vec<ReportEntry> {
        Vec::new()
    }
}

/// Forwarded data leaves its X2-U tunnel under the RFC 6040 rules, like S1-U data: an outer CE
/// over a Not-ECT packet is dropped at the target, over an ECN-capable one it is kept.
#[test]
fn x2u_decapsulation_follows_rfc6040() {
    let mut b = WorldBuilder::new(1, 0);
    let nodes = [
        ("server", NodeKind::Host),
        ("gw", NodeKind::Router),
        ("router", NodeKind::Router),
    ];
    for (i, (name, kind)) in nodes.into_iter().enumerate() {
        b.add_node(name, kind, addr(i as NodeId));
    }
    b.add_node("enb1", NodeKind::Router, addr(ENB1));
    b.add_node("enb2", NodeKind::Router, addr(ENB2));
    b.add_node("enb3", NodeKind::Router, addr(ENB3));
    b.add_node("ue", NodeKind::Host, addr(UE));
    b.add_link(
        "lan",
        SERVER,
        ENB2,
        1,
        dir(100_000_000, 1, 100),
        dir(100_000_000, 1, 100),
    );
    let log: Log = Default::default();
    b.add_medium("cell/toy", Box::new(ToyRan::new(Vec::new(), log.clone())));
    b.epc(&EpcConfig {
        gateway: GW,
        ecn_decap: EcnDecap::Rfc6040,
        enbs: vec![ENB2],
        attachments: vec![(UE, ENB1)],
    })
    .unwrap();
    let flow = b.add_flow(UE);
    let sent = vec![
        (Ecn::NotEct, Ecn::Ce, 1),
        (Ecn::Ect0, Ecn::Ce, 2),
        (Ecn::Ect1, Ecn::Ect1, 3),
    ];
    b.add_agent(
        SERVER,
        flow,
        PROTO_UDP,
        49152,
        SimTime::ZERO,
        "inject",
        Box::new(X2Injector(sent)),
    );
    b.add_agent(
        UE,
        flow,
        PROTO_UDP,
        5001,
        SimTime::ZERO,
        "dst",
        Box::new(UdpSink::new()),
    );
    let mut sim = Simulator::new(b.build());
    sim.model.schedule_initial(&mut sim.sched);
    sim.run(StopCondition {
        until: Some(ms(100)),
        max_events: None,
    })
    .unwrap();
    let got: Vec<(Ecn, Option<u32>)> = tunnel_arrivals(&log)
        .into_iter()
        .filter_map(|(_, at, _, a)| match a {
            TunnelArrival::Forwarded { pkt, pdcp_count } if at == ENB2 => {
                Some((pkt.ip.ecn, pdcp_count))
            }
            _ => None,
        })
        .collect();
    assert_eq!(got, vec![(Ecn::Ce, Some(2)), (Ecn::Ect1, Some(3))]);
    let enb2 = sim.model.epc().unwrap().endpoint_stats(ENB2);
    assert_eq!(
        (enb2.decapsulated, enb2.drops_ecn_decap, enb2.ce_propagated),
        (2, 1, 1)
    );
    let f = &sim.model.flow_counters[0];
    assert_eq!((f.drops_ecn_decap, f.packets_delivered), (1, 2));
}

/// The interface and message names used in summaries.
#[test]
fn gtp_names() {
    assert_eq!(
        (GtpInterface::S1u.as_str(), GtpInterface::X2u.as_str()),
        ("s1u", "x2u")
    );
}
