//! The cell as a medium of the network's world: its eNB–UE edges are routable, the world
//! drives its timer, and a UDP flow from a server through the eNB reaches the UE.

use std::net::Ipv4Addr;

use celltcp_engine::{SimDuration, SimTime, Simulator, StopCondition};
use celltcp_net::app::udp::{Arrival, UdpSink, UdpSource, UdpSourceConfig};
use celltcp_net::link::LinkDirConfig;
use celltcp_net::queue::{DropTail, QueueLimit};
use celltcp_net::topology::NodeKind;
use celltcp_net::world::{WorldBuilder, PROTO_UDP};
use celltcp_radio::cell::{LteCell, LteCellConfig, UeConfig};
use celltcp_radio::channel::Position;
use celltcp_radio::phy::Mcs;

fn wan() -> LinkDirConfig {
    LinkDirConfig {
        rate_bps: 1_000_000_000,
        delay: SimDuration::from_ms(10),
        queue: Box::new(DropTail::new(QueueLimit::Packets(1000)).unwrap()),
        loss: None,
    }
}

#[test]
fn a_udp_flow_crosses_the_cell() {
    let mut b = WorldBuilder::new(1, 0);
    let server = b.add_node("server", NodeKind::Host, Ipv4Addr::new(10, 0, 0, 1));
    let enb = b.add_node("enb", NodeKind::Router, Ipv4Addr::new(10, 0, 0, 2));
    let ue = b.add_node("ue", NodeKind::Host, Ipv4Addr::new(10, 0, 1, 1));
    b.add_link("wan", server, enb, 1, wan(), wan());
    let cfg = LteCellConfig {
        fixed_mcs: Some(Mcs::new(16).unwrap()),
        ..LteCellConfig::lte_default("cell1", enb)
    };
    let cell = LteCell::new(
        cfg,
        vec![UeConfig {
            node: ue,
            position: Position::new(100.0, 0.0),
            speed_mps: 0.0,
        }],
        1,
        0,
    )
    .unwrap();
    b.add_medium("cell/cell1", Box::new(cell));
    let flow = b.add_flow(ue);
    // 5 Mbit/s of 1000-byte datagrams for 2 s, well below the 15.26 Mbit/s of MCS 16.
    let src = UdpSource::new(UdpSourceConfig {
        flow,
        src: (Ipv4Addr::new(10, 0, 0, 1), 49152),
        dst: (Ipv4Addr::new(10, 0, 1, 1), 5001),
        rate_bps: 5_000_000,
        payload_bytes: 1000,
        arrival: Arrival::Cbr,
        stop: SimTime::ZERO + SimDuration::from_secs(2),
    });
    b.add_agent(
        server,
        flow,
        PROTO_UDP,
        49152,
        SimTime::ZERO,
        "flow/f/src",
        Box::new(src),
    );
    b.add_agent(
        ue,
        flow,
        PROTO_UDP,
        5001,
        SimTime::ZERO,
        "flow/f/dst",
        Box::new(UdpSink::new()),
    );
    let mut sim = Simulator::new(b.build());
    sim.model.schedule_initial(&mut sim.sched);
    sim.run(StopCondition {
        until: Some(SimTime::ZERO + SimDuration::from_secs(5)),
        max_events: None,
    })
    .unwrap();

    let f = &sim.model.flow_counters[0];
    assert_eq!(f.packets_sent, 1250);
    assert_eq!(f.packets_delivered, 1250);
    assert_eq!(f.drops(), 0);
    // 10 ms WAN + up to one TTI of waiting + one TTI on the air (+ serialisation on the WAN).
    let mean_ms = f.delay_ns.mean().unwrap() * 1e-6;
    eprintln!("UDP over the cell: mean one-way delay {mean_ms:.3} ms");
    assert!(mean_ms > 11.0 && mean_ms < 12.1, "{mean_ms}");
    let cell = sim.model.media().next().unwrap();
    let figures = cell.report(SimTime::ZERO + SimDuration::from_secs(5));
    let get = |k: &str| figures.iter().find(|(n, _)| n == k).unwrap().1;
    assert_eq!(get(&format!("ue.{ue}.sdus_delivered")), 1250.0);
    // About 2 s of activity out of 5: the idle TTIs were skipped.
    assert!(get("ttis_processed") < 2100.0);
}
