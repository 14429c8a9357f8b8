//! The EPC user plane in a world without radio: UEs hang off their eNBs by point-to-point access
//! links, so that every delay and size is exact.
//!
//! ```text
//!                                   ,-- s1u_a 10 Mb/s, 5 ms -- enb1 --access1 20 Mb/s, 1 ms--.
//! server --wan 100 Mb/s, 10 ms-- gw                                                           ue
//!                                   `-- s1u_b 10 Mb/s, 5 ms -- enb2 --access2 20 Mb/s, 1 ms--'
//! ```
//! `gw` is the combined S-GW/P-GW; the UE starts served by enb1.

use std::cell::RefCell;
use std::net::Ipv4Addr;
use std::rc::Rc;

use celltcp_engine::{SimDuration, SimTime, Simulator, StopCondition};
use celltcp_net::agent::{Agent, AgentCtx, ReportEntry};
use celltcp_net::app::udp::{Arrival, UdpSink, UdpSource, UdpSourceConfig};
use celltcp_net::gtp::{EcnDecap, EpcConfig, TunnelEndpointStats};
use celltcp_net::link::LinkDirConfig;
use celltcp_net::packet::FlowId;
use celltcp_net::packet::{
    Ecn, GtpInterface, GtpMessage, GtpTunnel, IpHeader, NodeId, Packet, Transport, UdpHeader,
};
use celltcp_net::queue::{DropTail, QueueDisc, QueueLimit, Red, RedConfig};
use celltcp_net::topology::NodeKind;
use celltcp_net::world::{CaptureSink, World, WorldBuilder, PROTO_UDP};

const SERVER: NodeId = NodeId(0);
const GW: NodeId = NodeId(1);
const ENB1: NodeId = NodeId(2);
const ENB2: NodeId = NodeId(3);
const UE: NodeId = NodeId(4);
/// Link indices in the order they are added.
const S1U_A: usize = 1;
const S1U_B: usize = 2;

fn addr(node: NodeId) -> Ipv4Addr {
    Ipv4Addr::new(10, 0, 0, node.0 as u8 + 1)
}

fn droptail() -> Box<dyn QueueDisc> {
    Box::new(DropTail::new(QueueLimit::Packets(1000)).unwrap())
}

fn dir(rate_bps: u64, delay_ms: u64, queue: Box<dyn QueueDisc>) -> LinkDirConfig {
    LinkDirConfig {
        rate_bps,
        delay: SimDuration::from_ms(delay_ms),
        queue,
        loss: None,
    }
}

/// Packets seen on a captured link: (outer destination, TEID), or `None` when not tunnelled.
type Seen = Rc<RefCell<Vec<Option<(Ipv4Addr, u32)>>>>;

struct Recorder(Seen);

impl CaptureSink for Recorder {
    fn capture(&mut self, _t: SimTime, pkt: &Packet) -> std::io::Result<()> {
        self.0
            .borrow_mut()
            .push(pkt.tunnel.map(|t| (t.outer_dst, t.teid)));
        Ok(())
    }
    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct Net {
    b: WorldBuilder,
    s1u_queue: Option<Box<dyn QueueDisc>>,
}

impl Net {
    fn new() -> Net {
        let mut b = WorldBuilder::new(1, 0);
        for (i, (name, kind)) in [
            ("server", NodeKind::Host),
            ("gw", NodeKind::Router),
            ("enb1", NodeKind::Router),
            ("enb2", NodeKind::Router),
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
        Net { b, s1u_queue: None }
    }

    /// Adds the links (the downlink direction of s1u_a gets `s1u_queue` if set) and the EPC.
    fn links_and_epc(&mut self, mode: EcnDecap) {
        let b = &mut self.b;
        b.add_link(
            "wan",
            SERVER,
            GW,
            1,
            dir(100_000_000, 10, droptail()),
            dir(100_000_000, 10, droptail()),
        );
        let s1u_down = self.s1u_queue.take().unwrap_or_else(droptail);
        b.add_link(
            "s1u_a",
            GW,
            ENB1,
            1,
            dir(10_000_000, 5, s1u_down),
            dir(10_000_000, 5, droptail()),
        );
        b.add_link(
            "s1u_b",
            GW,
            ENB2,
            1,
            dir(10_000_000, 5, droptail()),
            dir(10_000_000, 5, droptail()),
        );
        b.add_link(
            "access1",
            ENB1,
            UE,
            1,
            dir(20_000_000, 1, droptail()),
            dir(20_000_000, 1, droptail()),
        );
        b.add_link(
            "access2",
            ENB2,
            UE,
            1,
            dir(20_000_000, 1, droptail()),
            dir(20_000_000, 1, droptail()),
        );
        b.epc(&EpcConfig {
            gateway: GW,
            ecn_decap: mode,
            enbs: vec![ENB2],
            attachments: vec![(UE, ENB1)],
        })
        .unwrap();
    }

    fn udp(&mut self, from: NodeId, to: NodeId, rate_bps: u64, seconds: u64) {
        let flow = self.b.add_flow(to);
        let src = UdpSource::new(UdpSourceConfig {
            flow,
            src: (addr(from), 49152),
            dst: (addr(to), 5001),
            rate_bps,
            payload_bytes: 1000,
            arrival: Arrival::Cbr,
            stop: SimTime::ZERO + SimDuration::from_secs(seconds),
        });
        self.b.add_agent(
            from,
            flow,
            PROTO_UDP,
            49152,
            SimTime::ZERO,
            "flow/f/src",
            Box::new(src),
        );
        self.b.add_agent(
            to,
            flow,
            PROTO_UDP,
            5001,
            SimTime::ZERO,
            "flow/f/dst",
            Box::new(UdpSink::new()),
        );
    }

    fn start(self) -> Simulator<World> {
        let mut sim = Simulator::new(self.b.build());
        sim.model.schedule_initial(&mut sim.sched);
        sim
    }
}

fn run_until(sim: &mut Simulator<World>, ms: u64) {
    sim.run(StopCondition {
        until: Some(SimTime::ZERO + SimDuration::from_ms(ms)),
        max_events: None,
    })
    .unwrap();
}

fn endpoint(sim: &Simulator<World>, node: NodeId) -> TunnelEndpointStats {
    sim.model.epc().unwrap().endpoint_stats(node)
}

/// Serialisation time of `bytes` at `rate_bps`, seconds.
fn tx(bytes: f64, rate_bps: f64) -> f64 {
    bytes * 8.0 / rate_bps
}

#[test]
fn downlink_udp_crosses_s1u_in_a_tunnel_36_bytes_longer() {
    let mut net = Net::new();
    net.links_and_epc(EcnDecap::Rfc6040);
    net.udp(SERVER, UE, 5_000_000, 2);
    let mut sim = net.start();
    run_until(&mut sim, 3_000);
    let f = &sim.model.flow_counters[0];
    let n = 1250; // 5 Mb/s of 1000-byte payloads for 2 s
    assert_eq!((f.packets_sent, f.packets_delivered, f.drops()), (n, n, 0));
    // Delivered as the inner datagram: 1028 bytes (IPv4 20 + UDP 8 + 1000).
    assert_eq!(f.bytes_delivered, n * 1028);
    // Propagation 16 ms; serialisation of 1028 B at 100 Mb/s, 1064 B on S1-U at 10 Mb/s (the
    // 36 bytes of outer IPv4, UDP and GTP-U), 1028 B at 20 Mb/s. Nothing queues at 5 Mb/s.
    let expected = 0.016 + tx(1028.0, 100e6) + tx(1064.0, 10e6) + tx(1028.0, 20e6);
    let mean = f.delay_ns.mean().unwrap() * 1e-9;
    assert!(
        (mean - expected).abs() < 1e-9,
        "mean {mean} expected {expected}"
    );
    let s1u = &sim.model.dirs[2 * S1U_A].stats;
    assert_eq!((s1u.packets_sent, s1u.bytes_sent), (n, n * 1064));
    assert_eq!(sim.model.dirs[2 * S1U_B].stats.packets_sent, 0);
    assert_eq!(endpoint(&sim, GW).encapsulated, n);
    assert_eq!(endpoint(&sim, ENB1).decapsulated, n);
    assert_eq!(endpoint(&sim, ENB2), TunnelEndpointStats::default());
    println!(
        "downlink one-way delay {mean:.6} s (36-byte tunnel overhead: {:.1} us)",
        tx(36.0, 10e6) * 1e6
    );
}

#[test]
fn uplink_udp_is_tunnelled_from_the_enb_to_the_gateway() {
    let mut net = Net::new();
    net.links_and_epc(EcnDecap::Rfc6040);
    net.udp(UE, SERVER, 2_000_000, 1);
    let mut sim = net.start();
    run_until(&mut sim, 2_000);
    let f = &sim.model.flow_counters[0];
    let n = 250;
    assert_eq!((f.packets_delivered, f.bytes_delivered), (n, n * 1028));
    let expected = 0.016 + tx(1028.0, 20e6) + tx(1064.0, 10e6) + tx(1028.0, 100e6);
    let mean = f.delay_ns.mean().unwrap() * 1e-9;
    assert!(
        (mean - expected).abs() < 1e-9,
        "mean {mean} expected {expected}"
    );
    assert_eq!(sim.model.dirs[2 * S1U_A + 1].stats.bytes_sent, n * 1064);
    assert_eq!(endpoint(&sim, ENB1).encapsulated, n);
    assert_eq!(endpoint(&sim, GW).decapsulated, n);
}

#[test]
fn a_path_switch_moves_the_downlink_tunnel_to_the_target_enb() {
    let mut net = Net::new();
    net.links_and_epc(EcnDecap::Rfc6040);
    let (a, b): (Seen, Seen) = Default::default();
    net.b.capture(S1U_A as u32, Box::new(Recorder(a.clone())));
    net.b.capture(S1U_B as u32, Box::new(Recorder(b.clone())));
    net.udp(SERVER, UE, 5_000_000, 2);
    let mut sim = net.start();
    run_until(&mut sim, 1_000);
    let before = sim.model.epc().unwrap().bearer(UE).copied().unwrap();
    assert_eq!((before.enb, before.dl_teid, before.ul_teid), (ENB1, 1, 1));
    let teid = sim.model.switch_path(UE, ENB2).unwrap();
    assert_eq!(teid, 1, "enb2's first TEID");
    run_until(&mut sim, 3_000);
    let f = &sim.model.flow_counters[0];
    assert_eq!((f.packets_delivered, f.drops()), (1250, 0));
    let a = a.borrow();
    let b = b.borrow();
    // Everything on s1u_a before the switch went to enb1 under its TEID; afterwards only enb2.
    assert!(
        a.iter().all(|p| *p == Some((addr(ENB1), 1))),
        "{:?}",
        &a[..3]
    );
    assert!(b.iter().all(|p| *p == Some((addr(ENB2), 1))));
    assert_eq!(a.len() + b.len(), 1250);
    // Datagram k leaves the server at k·1.6 ms and reaches gw 10.08224 ms later; those there by
    // the switch at 1 s (k ≤ 618) took the old tunnel.
    assert_eq!(a.len(), 619);
    assert_eq!(endpoint(&sim, ENB2).decapsulated, b.len() as u64);
    assert!(sim.model.switch_path(SERVER, ENB2).is_err());
}

/// Sends one crafted, already tunnelled packet to enb1 per (inner, outer) ECN pair.
struct Injector(Vec<(Ecn, Ecn)>);

impl Agent for Injector {
    fn start(&mut self, ctx: &mut AgentCtx<'_>) {
        for (i, (inner, outer)) in self.0.iter().enumerate() {
            ctx.send(Packet {
                uid: 0,
                flow: FlowId(0),
                ip: IpHeader {
                    src: addr(SERVER),
                    dst: addr(UE),
                    ecn: *inner,
                    dscp: 0,
                    ttl: 64,
                    id: 0,
                },
                transport: Transport::Udp(UdpHeader {
                    src_port: 49152,
                    dst_port: 5001,
                }),
                payload_len: 100,
                app_seq: i as u64,
                created_at: ctx.now(),
                tunnel: Some(GtpTunnel {
                    outer_src: addr(GW),
                    outer_dst: addr(ENB1),
                    teid: 1,
                    outer_ecn: *outer,
                    message: GtpMessage::GPdu,
                    interface: GtpInterface::S1u,
                    pdcp_count: None,
                }),
            });
        }
    }
    fn on_packet(&mut self, _: Packet, _: &mut AgentCtx<'_>) {}
    fn on_timer(&mut self, _: &mut AgentCtx<'_>) {}
    fn report(&self, _: SimTime) -> Vec<ReportEntry> {
        Vec::new()
    }
}

/// Records the ECN field of what reaches the UE.
struct EcnSink(Rc<RefCell<Vec<Ecn>>>);

impl Agent for EcnSink {
    fn start(&mut self, _: &mut AgentCtx<'_>) {}
    fn on_packet(&mut self, pkt: Packet, _: &mut AgentCtx<'_>) {
        assert!(pkt.tunnel.is_none(), "the UE receives the inner packet");
        self.0.borrow_mut().push(pkt.ip.ecn);
    }
    fn on_timer(&mut self, _: &mut AgentCtx<'_>) {}
    fn report(&self, _: SimTime) -> Vec<ReportEntry> {
        Vec::new()
    }
}

#[test]
fn outer_ce_at_the_enb_per_decapsulation_mode() {
    use Ecn::*;
    let sent = vec![
        (Ect0, Ce),
        (NotEct, Ce),
        (Ect0, Ect1),
        (NotEct, NotEct),
        (Ect1, Ce),
        (NotEct, Ce),
    ];
    let cases = [
        (
            EcnDecap::Ignore,
            vec![Ect0, NotEct, Ect0, NotEct, Ect1, NotEct],
            (0, 0, 4),
        ),
        (EcnDecap::Rfc6040, vec![Ce, Ect1, NotEct, Ce], (2, 2, 0)),
        (EcnDecap::DropNotEct, vec![Ce, Ect0, NotEct, Ce], (2, 2, 0)),
    ];
    for (mode, want, (drops, propagated, lost)) in cases {
        let mut net = Net::new();
        net.links_and_epc(mode);
        let flow = net.b.add_flow(UE);
        let got: Rc<RefCell<Vec<Ecn>>> = Default::default();
        net.b.add_agent(
            SERVER,
            flow,
            PROTO_UDP,
            49152,
            SimTime::ZERO,
            "inject",
            Box::new(Injector(sent.clone())),
        );
        net.b.add_agent(
            UE,
            flow,
            PROTO_UDP,
            5001,
            SimTime::ZERO,
            "sink",
            Box::new(EcnSink(got.clone())),
        );
        let mut sim = net.start();
        run_until(&mut sim, 1_000);
        assert_eq!(*got.borrow(), want, "{mode:?}");
        let enb = endpoint(&sim, ENB1);
        assert_eq!(
            (enb.drops_ecn_decap, enb.ce_propagated, enb.ce_lost),
            (drops, propagated, lost),
            "{mode:?}"
        );
        assert_eq!(enb.decapsulated, 6 - drops);
        let f = &sim.model.flow_counters[0];
        assert_eq!((f.drops_ecn_decap, f.drops()), (drops, drops), "{mode:?}");
    }
}

fn red_ecn() -> Box<dyn QueueDisc> {
    Box::new(
        Red::new(RedConfig {
            limit: QueueLimit::Packets(100),
            min_th: 5.0,
            max_th: 30.0,
            max_p: 0.1,
            w_q: 0.02,
            gentle: true,
            ecn: true,
            byte_mode: false,
            mean_packet_size: 1064,
            link_rate_bps: 10_000_000,
        })
        .unwrap(),
    )
}

/// A Not-ECT UDP flow of 11 Mb/s (IP) into the 10 Mb/s S1-U with RED + ECN. RFC 6040 copies
/// Not-ECT outwards, so RED drops at the queue and no mark is made; the tunnel of Pacifico et
/// al. Fig. 7 is ECT(0) outside, so RED marks instead and the eNB drops the marked packets.
#[test]
fn red_on_s1u_marks_the_outer_header() {
    let mut results = Vec::new();
    for mode in [EcnDecap::Rfc6040, EcnDecap::DropNotEct] {
        let mut net = Net::new();
        net.s1u_queue = Some(red_ecn());
        net.links_and_epc(mode);
        net.udp(SERVER, UE, 10_700_000, 5);
        let mut sim = net.start();
        run_until(&mut sim, 6_000);
        let q = *sim.model.dirs[2 * S1U_A].queue.stats();
        let f = sim.model.flow_counters[0].clone();
        let enb = endpoint(&sim, ENB1);
        println!(
            "{mode:?}: marks {} aqm drops {} full drops {} decap drops {} delivered {}",
            q.ce_marked, q.dropped_aqm, q.dropped_full, enb.drops_ecn_decap, f.packets_delivered
        );
        assert_eq!(f.drops_ecn_decap, enb.drops_ecn_decap);
        assert_eq!(f.packets_delivered + f.drops(), f.packets_sent);
        results.push((q, enb));
    }
    let (rfc_q, rfc_enb) = results[0];
    let (fig7_q, fig7_enb) = results[1];
    assert_eq!(rfc_q.ce_marked, 0);
    assert!(rfc_q.dropped_aqm > 0);
    assert_eq!(rfc_enb.drops_ecn_decap, 0);
    assert!(fig7_q.ce_marked > 0);
    assert_eq!(
        fig7_enb.drops_ecn_decap, fig7_q.ce_marked,
        "every mark is dropped at the eNB"
    );
}
