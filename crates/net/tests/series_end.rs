//! When the sampled series are sampled: a row is the state once every event of its instant has
//! been handled, the events scheduled after the instant's `Sample` event included (same-time
//! events run in the order they were scheduled), and the last row, at the run's end, is taken
//! by `World::finish`. So the last rows hold what the run's counters hold.

use std::net::Ipv4Addr;

use celltcp_engine::{SimDuration, SimTime, Simulator, StopCondition};
use celltcp_net::app::udp::{Arrival, UdpSink, UdpSource, UdpSourceConfig};
use celltcp_net::link::LinkDirConfig;
use celltcp_net::queue::{DropTail, QueueLimit};
use celltcp_net::topology::NodeKind;
use celltcp_net::world::{SeriesConfig, World, WorldBuilder, PROTO_UDP};

/// 1/8 s: rates over it, and back to bytes, are exact in binary floating point.
const INTERVAL: SimDuration = SimDuration::from_ms(125);
const END: SimTime = SimTime::from_ns(1_000_000_000);
/// 1028-byte IP datagrams serialise in 82.24 µs at 100 Mb/s.
const SERIALISATION_NS: u64 = 82_240;

fn dir(delay: SimDuration) -> LinkDirConfig {
    LinkDirConfig {
        rate_bps: 100_000_000,
        delay,
        queue: Box::new(DropTail::new(QueueLimit::Packets(100)).unwrap()),
        loss: None,
    }
}

/// a –100 Mb/s– b, a UDP datagram of 1000 bytes from a every millisecond, each reaching b
/// exactly 5 ms after it was sent: the one sent at 120 ms arrives at the sampling instant
/// 125 ms by an event scheduled at 120.08 ms, after that instant's `Sample` event (scheduled
/// at 0 ms). The queue series samples the link and the rate series the flow. Runs to `until`
/// and ends the run there.
fn run(until: SimTime) -> Simulator<World> {
    let mut b = WorldBuilder::new(1, 0);
    let a = b.add_node("a", NodeKind::Host, Ipv4Addr::new(10, 0, 0, 1));
    let z = b.add_node("b", NodeKind::Host, Ipv4Addr::new(10, 0, 0, 2));
    let delay = SimDuration::from_ns(5_000_000 - SERIALISATION_NS);
    b.add_link("link", a, z, 1, dir(delay), dir(delay));
    let flow = b.add_flow(z);
    let src = UdpSource::new(UdpSourceConfig {
        flow,
        src: (Ipv4Addr::new(10, 0, 0, 1), 49152),
        dst: (Ipv4Addr::new(10, 0, 0, 2), 5001),
        rate_bps: 8_000_000,
        payload_bytes: 1000,
        arrival: Arrival::Cbr,
        stop: END,
    });
    b.add_agent(
        a,
        flow,
        PROTO_UDP,
        49152,
        SimTime::ZERO,
        "flow/f/src",
        Box::new(src),
    );
    b.add_agent(
        z,
        flow,
        PROTO_UDP,
        5001,
        SimTime::ZERO,
        "flow/f/dst",
        Box::new(UdpSink::new()),
    );
    b.series(SeriesConfig {
        interval: INTERVAL,
        queue_links: vec![0],
        rate_flows: vec![flow],
        ..SeriesConfig::default()
    });
    let mut sim = Simulator::new(b.build());
    sim.model.schedule_initial(&mut sim.sched);
    sim.run(StopCondition {
        until: Some(until),
        max_events: None,
    })
    .unwrap();
    sim.model.finish().unwrap();
    sim
}

/// The a→b direction's rows: (sampling instant in ns, `bytes_delivered`).
fn rows(sim: &Simulator<World>) -> Vec<(u64, u64)> {
    let s = &sim.model.queue_series;
    (0..s.time_ns.len())
        .filter(|&i| s.direction[i] == 0)
        .map(|i| (s.time_ns[i], s.bytes_delivered[i]))
        .collect()
}

fn times(rows: &[(u64, u64)]) -> Vec<u64> {
    rows.iter().map(|r| r.0).collect()
}

/// Bytes the rate series integrates to.
fn rate_bytes(sim: &Simulator<World>) -> f64 {
    let s = &sim.model.rate_series;
    s.rate_bps.iter().sum::<f64>() * INTERVAL.as_secs_f64() / 8.0
}

fn instants(from_ms: u64, to_ms: u64) -> Vec<u64> {
    (from_ms..=to_ms)
        .step_by(125)
        .map(|ms| ms * 1_000_000)
        .collect()
}

#[test]
fn a_row_counts_every_event_of_its_instant() {
    let sim = run(END);
    let rows = rows(&sim);
    assert_eq!(times(&rows), instants(0, 1_000));
    for &(t, delivered) in &rows {
        // The datagrams sent at 0, 1, …, t − 5 ms have arrived, the one arriving at t included.
        let arrived = (t / 1_000_000).saturating_sub(4);
        assert_eq!(delivered, arrived * 1028, "at {t} ns");
    }
}

#[test]
fn the_last_row_holds_the_run_s_counters() {
    let sim = run(END);
    let delivered = sim.model.dirs[0].stats.bytes_delivered;
    // 1000 datagrams sent from 0 to 999 ms, the last 4 still in flight at the end.
    assert_eq!(delivered, 996 * 1028);
    assert_eq!(rows(&sim).last(), Some(&(END.as_ns(), delivered)));
    assert_eq!(
        rate_bytes(&sim),
        sim.model.flow_counters[0].bytes_delivered as f64
    );
    assert_eq!(sim.model.rate_series.time_ns, instants(125, 1_000));
}

#[test]
fn a_run_that_ends_between_sampling_instants_has_no_extra_row() {
    let sim = run(SimTime::from_ns(990_000_000));
    assert_eq!(times(&rows(&sim)), instants(0, 875));
}
