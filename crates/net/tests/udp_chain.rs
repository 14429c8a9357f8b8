//! Scenario tests of the wired network: a UDP flow over a chain of links shows the throughput,
//! one-way delay (propagation + serialisation + queueing) and loss the configuration implies.

use std::net::Ipv4Addr;

use celltcp_engine::{SimDuration, SimTime, Simulator, StopCondition};
use celltcp_net::agent::Agent;
use celltcp_net::app::udp::{Arrival, UdpSink, UdpSource, UdpSourceConfig};
use celltcp_net::link::LinkDirConfig;
use celltcp_net::loss::{Bernoulli, LossModel};
use celltcp_net::queue::{DropTail, QueueLimit};
use celltcp_net::topology::NodeKind;
use celltcp_net::world::{AgentId, World, WorldBuilder, PROTO_UDP};

fn dir(
    rate_bps: u64,
    delay_ms: u64,
    limit: u32,
    loss: Option<Box<dyn LossModel>>,
) -> LinkDirConfig {
    LinkDirConfig {
        rate_bps,
        delay: SimDuration::from_ms(delay_ms),
        queue: Box::new(DropTail::new(QueueLimit::Packets(limit)).unwrap()),
        loss,
    }
}

struct Chain {
    sim: Simulator<World>,
}

/// server –100 Mb/s, 20 ms– gw –25 Mb/s, 5 ms– ue, a UDP flow server → ue.
fn chain(rate_bps: u64, arrival: Arrival, loss: Option<Box<dyn LossModel>>, seconds: u64) -> Chain {
    let mut b = WorldBuilder::new(1, 0);
    let server = b.add_node("server", NodeKind::Host, Ipv4Addr::new(10, 0, 0, 1));
    let gw = b.add_node("gw", NodeKind::Router, Ipv4Addr::new(10, 0, 0, 2));
    let ue = b.add_node("ue", NodeKind::Host, Ipv4Addr::new(10, 0, 0, 3));
    b.add_link(
        "wan",
        server,
        gw,
        1,
        dir(100_000_000, 20, 100, None),
        dir(100_000_000, 20, 100, None),
    );
    b.add_link(
        "access",
        gw,
        ue,
        1,
        dir(25_000_000, 5, 100, loss),
        dir(25_000_000, 5, 100, None),
    );
    let flow = b.add_flow(ue);
    let src = UdpSource::new(UdpSourceConfig {
        flow,
        src: (Ipv4Addr::new(10, 0, 0, 1), 49152),
        dst: (Ipv4Addr::new(10, 0, 0, 3), 5001),
        rate_bps,
        payload_bytes: 1000,
        arrival,
        stop: SimTime::ZERO + SimDuration::from_secs(seconds),
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
        until: Some(SimTime::ZERO + SimDuration::from_secs(seconds + 1)),
        max_events: None,
    })
    .unwrap();
    Chain { sim }
}

fn report(c: &Chain, agent: u32, key: &str) -> f64 {
    c.sim
        .model
        .agent_report(AgentId(agent), c.sim.sched.now())
        .into_iter()
        .find(|(k, _)| *k == key)
        .unwrap()
        .1
}

#[test]
fn underloaded_cbr_sees_pure_propagation_and_serialisation_delay() {
    let c = chain(10_000_000, Arrival::Cbr, None, 10);
    let sent = report(&c, 0, "packets_sent");
    assert_eq!(sent, 12_500.0); // 10 Mb/s / 8000 bit = 1250 datagrams per second
    assert_eq!(report(&c, 1, "packets_received"), sent);
    // 1028-byte datagrams: 82.24 us at 100 Mb/s + 328.96 us at 25 Mb/s + 25 ms propagation.
    let expected = 0.025 + 1028.0 * 8.0 / 100e6 + 1028.0 * 8.0 / 25e6;
    let f = &c.sim.model.flow_counters[0];
    let mean = f.delay_ns.mean().unwrap() * 1e-9;
    assert!(
        (mean - expected).abs() < 1e-9,
        "mean {mean} expected {expected}"
    );
    // CBR with no queueing: zero jitter (RFC 3550 estimator).
    assert!(f.jitter_ns < 1e-3);
    let d = &c.sim.model.dirs[2];
    assert_eq!(d.stats.packets_sent, 12_500);
    assert_eq!(d.occupancy_packets.max(), 0);
}

#[test]
fn overloaded_bottleneck_delivers_its_rate_and_drops_the_excess() {
    // 30 Mb/s of payload into a 25 Mb/s link for 10 s.
    let c = chain(30_000_000, Arrival::Cbr, None, 10);
    let received = report(&c, 1, "packets_received");
    let ip_bits = received * 1028.0 * 8.0;
    // The link is busy from ~20.08 ms to the end of the source plus queue drain.
    let rate = ip_bits / 10.0;
    assert!((rate - 25e6).abs() / 25e6 < 0.01, "delivered {rate} b/s");
    let c0 = &c.sim.model.flow_counters[0];
    assert_eq!(
        c0.packets_sent,
        c0.packets_delivered + c0.drops(),
        "conservation at the end"
    );
    assert!(c0.drops_queue_full > 0);
    // A full 100-packet queue adds 100 × 328.96 us ≈ 32.9 ms of queueing delay.
    let p95 = c.sim.model.flow_counters[0]
        .delay_ns
        .quantile(0.95)
        .unwrap() as f64
        * 1e-9;
    let full = 0.025 + 1028.0 * 8.0 / 100e6 + 101.0 * 1028.0 * 8.0 / 25e6;
    assert!((p95 - full).abs() < 0.001, "p95 {p95} vs {full}");
}

#[test]
fn bernoulli_loss_ratio_matches_the_model() {
    let loss: Box<dyn LossModel> = Box::new(Bernoulli::new(0.02).unwrap());
    let c = chain(10_000_000, Arrival::Poisson, Some(loss), 40);
    let c0 = &c.sim.model.flow_counters[0];
    let n = (c0.packets_delivered + c0.drops()) as f64;
    let ratio = c0.drops_link_loss as f64 / n;
    // 50,000 packets: standard error sqrt(0.02·0.98/50000) = 6.3e-4; allow 4 standard errors.
    assert!(
        (ratio - 0.02).abs() < 4.0 * (0.02f64 * 0.98 / n).sqrt(),
        "loss ratio {ratio} over {n}"
    );
    assert_eq!(
        report(&c, 1, "packets_received") as u64,
        c0.packets_delivered
    );
}

#[test]
fn same_inputs_same_outputs() {
    let run = || {
        let loss: Box<dyn LossModel> = Box::new(Bernoulli::new(0.05).unwrap());
        let c = chain(20_000_000, Arrival::Poisson, Some(loss), 3);
        let r: Vec<(&str, f64)> = c.sim.model.agent_report(AgentId(1), c.sim.sched.now());
        (
            c.sim.events(),
            format!("{r:?}"),
            format!("{:?}", c.sim.model.flow_counters[0]),
        )
    };
    assert_eq!(run(), run());
}

#[allow(dead_code)]
fn _agents_are_object_safe(_: &dyn Agent) {}
