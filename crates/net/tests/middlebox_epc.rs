//! A middlebox at an eNB of an EPC: it sees the downlink after decapsulation and the uplink
//! before encapsulation, and what it emits continues the path it stands in — downlink copies go
//! to the UE (not back to the gateway), uplink copies into the UE's S1-U bearer.
//!
//! ```text
//! server --wan 100 Mb/s, 10 ms-- gw --s1u 100 Mb/s, 5 ms-- enb --access 100 Mb/s, 1 ms-- ue
//! ```

mod common;

use std::cell::RefCell;
use std::net::Ipv4Addr;
use std::rc::Rc;

use celltcp_engine::{SimDuration, SimTime, Simulator, StopCondition};
use celltcp_net::gtp::{EcnDecap, EpcConfig};
use celltcp_net::link::LinkDirConfig;
use celltcp_net::middlebox::{Middlebox, MiddleboxCtx};
use celltcp_net::packet::{NodeId, Packet};
use celltcp_net::queue::{DropTail, QueueLimit};
use celltcp_net::topology::NodeKind;
use celltcp_net::world::{CaptureSink, WorldBuilder, PROTO_UDP};
use common::Bursts;

const SERVER: NodeId = NodeId(0);
const GW: NodeId = NodeId(1);
const ENB: NodeId = NodeId(2);
const UE: NodeId = NodeId(3);

fn addr(node: NodeId) -> Ipv4Addr {
    Ipv4Addr::new(10, 0, 0, node.0 as u8 + 1)
}

fn dir(delay_ms: u64) -> LinkDirConfig {
    LinkDirConfig {
        rate_bps: 100_000_000,
        delay: SimDuration::from_ms(delay_ms),
        queue: Box::new(DropTail::new(QueueLimit::Packets(1000)).unwrap()),
        loss: None,
    }
}

/// Forwards every packet and emits a copy; records whether any packet it saw was tunnelled.
struct Copier {
    saw_tunnelled: Rc<RefCell<bool>>,
}

impl Middlebox for Copier {
    fn name(&self) -> &str {
        "copier"
    }
    fn on_forward(&mut self, pkt: Packet, ctx: &mut MiddleboxCtx<'_>) -> Option<Packet> {
        *self.saw_tunnelled.borrow_mut() |= pkt.tunnel.is_some();
        ctx.out.push(pkt);
        Some(pkt)
    }
}

/// Counts captured packets of S1-U: (uplink tunnelled to the gateway, downlink tunnelled to the
/// eNB, untunnelled).
type Counts = Rc<RefCell<(u64, u64, u64)>>;

struct S1uCounter(Counts);

impl CaptureSink for S1uCounter {
    fn capture(&mut self, _: SimTime, pkt: &Packet) -> std::io::Result<()> {
        let mut c = self.0.borrow_mut();
        match pkt.tunnel {
            Some(t) if t.outer_dst == addr(GW) => c.0 += 1,
            Some(_) => c.1 += 1,
            None => c.2 += 1,
        }
        Ok(())
    }
    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn emitted_packets_continue_the_tunnelled_path() {
    let mut b = WorldBuilder::new(3, 0);
    for (i, (name, kind)) in [
        ("server", NodeKind::Host),
        ("gw", NodeKind::Router),
        ("enb", NodeKind::Router),
        ("ue", NodeKind::Host),
    ]
    .into_iter()
    .enumerate()
    {
        b.add_node(name, kind, addr(NodeId::from_index(i)));
    }
    b.add_link("wan", SERVER, GW, 1, dir(10), dir(10));
    let s1u = b.add_link("s1u", GW, ENB, 1, dir(5), dir(5));
    b.add_link("access", ENB, UE, 1, dir(1), dir(1));
    b.epc(&EpcConfig {
        gateway: GW,
        ecn_decap: EcnDecap::Rfc6040,
        enbs: vec![ENB],
        attachments: vec![(UE, ENB)],
    })
    .unwrap();
    let bursts = |flow, from, to| Bursts {
        flow,
        src: addr(from),
        dst: addr(to),
        burst: 1,
        period: SimDuration::from_ms(1),
        stop: SimTime::ZERO + SimDuration::from_ms(50),
        seq: 0,
    };
    let down = b.add_flow(UE);
    let up = b.add_flow(SERVER);
    b.add_agent(
        SERVER,
        down,
        PROTO_UDP,
        49152,
        SimTime::ZERO,
        "down/src",
        Box::new(bursts(down, SERVER, UE)),
    );
    b.add_agent(
        UE,
        down,
        PROTO_UDP,
        5001,
        SimTime::ZERO,
        "down/dst",
        Box::new(celltcp_net::app::udp::UdpSink::new()),
    );
    b.add_agent(
        UE,
        up,
        PROTO_UDP,
        49153,
        SimTime::ZERO,
        "up/src",
        Box::new(bursts(up, UE, SERVER)),
    );
    b.add_agent(
        SERVER,
        up,
        PROTO_UDP,
        5001,
        SimTime::ZERO,
        "up/dst",
        Box::new(celltcp_net::app::udp::UdpSink::new()),
    );
    let saw_tunnelled = Rc::new(RefCell::new(false));
    b.add_middlebox(
        ENB,
        "middlebox/copier",
        Box::new(Copier {
            saw_tunnelled: saw_tunnelled.clone(),
        }),
    )
    .unwrap();
    let counts: Counts = Rc::default();
    b.capture(s1u, Box::new(S1uCounter(counts.clone())));
    let mut sim = Simulator::new(b.build());
    sim.model.schedule_initial(&mut sim.sched);
    sim.run(StopCondition {
        until: Some(SimTime::ZERO + SimDuration::from_secs(1)),
        max_events: None,
    })
    .unwrap();
    let w = &sim.model;
    assert!(
        !*saw_tunnelled.borrow(),
        "the middlebox sees inner packets only"
    );
    let (d, u) = (&w.flow_counters[down.index()], &w.flow_counters[up.index()]);
    // 50 datagrams each way, each forwarded and copied once at the eNB, all delivered.
    assert_eq!((d.packets_delivered, d.drops()), (100, 0));
    assert_eq!((u.packets_delivered, u.drops()), (100, 0));
    assert_eq!(
        (d.middlebox_packets_sent, u.middlebox_packets_sent),
        (50, 50)
    );
    // S1-U carried the 50 downlink originals and all 100 uplink packets, every one tunnelled.
    assert_eq!(*counts.borrow(), (100, 50, 0));
    let epc = w.epc().unwrap();
    assert_eq!(epc.endpoint_stats(ENB).encapsulated, 100);
    assert_eq!(epc.endpoint_stats(ENB).decapsulated, 50);
    assert!(w.errors().is_empty());
}
