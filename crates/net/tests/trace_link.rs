//! Trace-driven link directions (Mahimahi's delivery-opportunity model): a UDP flow crosses one
//! link whose a→b direction is served by a trace, and the delivery times at the far host are
//! compared with the trace's opportunity times plus the propagation delay.

use std::net::Ipv4Addr;
use std::sync::Arc;

use celltcp_engine::{SimDuration, SimTime, Simulator, StopCondition};
use celltcp_net::app::udp::{Arrival, UdpSink, UdpSource, UdpSourceConfig};
use celltcp_net::link::LinkDirConfig;
use celltcp_net::loss::{Bernoulli, LossModel};
use celltcp_net::queue::{DropTail, QueueLimit};
use celltcp_net::topology::NodeKind;
use celltcp_net::trace_file::DeliveryTrace;
use celltcp_net::trace_service::TraceAccounting;
use celltcp_net::world::{SeriesConfig, World, WorldBuilder, PROTO_UDP};

const MS: u64 = 1_000_000;
/// Propagation delay of the trace-driven direction.
const DELAY_MS: u64 = 10;

fn dir(rate_bps: u64, limit: u32, loss: Option<Box<dyn LossModel>>) -> LinkDirConfig {
    LinkDirConfig {
        rate_bps,
        delay: SimDuration::from_ms(DELAY_MS),
        queue: Box::new(DropTail::new(QueueLimit::Packets(limit)).unwrap()),
        loss,
    }
}

/// The UDP source: payload rate, datagram payload, start and stop.
struct Source {
    rate_bps: u64,
    payload_bytes: u32,
    start_ms: u64,
    stop_ms: u64,
}

struct Setup {
    trace: DeliveryTrace,
    source: Source,
    end_ms: u64,
    queue_limit: u32,
    loss: Option<Box<dyn LossModel>>,
    accounting: TraceAccounting,
}

impl Setup {
    fn new(trace: DeliveryTrace, source: Source, end_ms: u64) -> Self {
        Setup {
            trace,
            source,
            end_ms,
            queue_limit: 1000,
            loss: None,
            accounting: TraceAccounting::Bytes,
        }
    }
}

/// a –trace, 10 ms– b (b→a at 1 Gb/s), one UDP flow a → b; returns the finished simulation.
fn run(setup: Setup) -> Simulator<World> {
    let mut b = WorldBuilder::new(1, 0);
    let a_node = b.add_node("a", NodeKind::Host, Ipv4Addr::new(10, 0, 0, 1));
    let b_node = b.add_node("b", NodeKind::Host, Ipv4Addr::new(10, 0, 0, 2));
    let mean = setup.trace.mean_rate_bps();
    b.add_link(
        "radio",
        a_node,
        b_node,
        1,
        dir(mean, setup.queue_limit, setup.loss),
        dir(1_000_000_000, 1000, None),
    );
    let flow = b.add_flow(b_node);
    let s = &setup.source;
    let src = UdpSource::new(UdpSourceConfig {
        flow,
        src: (Ipv4Addr::new(10, 0, 0, 1), 49152),
        dst: (Ipv4Addr::new(10, 0, 0, 2), 5001),
        rate_bps: s.rate_bps,
        payload_bytes: s.payload_bytes,
        arrival: Arrival::Cbr,
        stop: SimTime::from_ns(s.stop_ms * MS),
    });
    b.add_agent(
        a_node,
        flow,
        PROTO_UDP,
        49152,
        SimTime::from_ns(s.start_ms * MS),
        "flow/f/src",
        Box::new(src),
    );
    b.add_agent(
        b_node,
        flow,
        PROTO_UDP,
        5001,
        SimTime::ZERO,
        "flow/f/dst",
        Box::new(UdpSink::new()),
    );
    b.series(SeriesConfig {
        packet_flows: vec![flow],
        ..SeriesConfig::default()
    });
    let mut world = b.build();
    world.dirs[0].serve_by_trace(Arc::new(setup.trace), setup.accounting);
    let mut sim = Simulator::new(world);
    sim.model.schedule_initial(&mut sim.sched);
    sim.run(StopCondition {
        until: Some(SimTime::from_ns(setup.end_ms * MS)),
        max_events: None,
    })
    .unwrap();
    sim
}

/// Delivery times at b, nanoseconds.
fn deliveries(sim: &Simulator<World>) -> &[u64] {
    &sim.model.packet_series.time_ns
}

/// Opportunity times shifted by the propagation delay: when a saturated link delivers.
fn expected_deliveries(trace: &DeliveryTrace, count: usize) -> Vec<u64> {
    (0..count as u64)
        .map(|k| trace.opportunity_time(k).as_ns() + DELAY_MS * MS)
        .collect()
}

/// 1500-byte IP datagrams (1472 bytes of UDP payload) at `rate_bps` of payload from time 0.
fn full_sized(rate_bps: u64, stop_ms: u64) -> Source {
    Source {
        rate_bps,
        payload_bytes: 1472,
        start_ms: 0,
        stop_ms,
    }
}

fn constant_12mbps() -> DeliveryTrace {
    DeliveryTrace::from_opportunities_ms((1..=1000).collect()).unwrap()
}

#[test]
fn shipped_constant_trace_is_one_opportunity_per_millisecond() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples/traces/const-12mbps.trace");
    let shipped = DeliveryTrace::read(&path).unwrap();
    assert_eq!(shipped, constant_12mbps());
    assert_eq!(shipped.mean_rate_bps(), 12_000_000);
}

#[test]
fn constant_trace_delivers_its_rate() {
    // 20 Mb/s offered into a 12 Mb/s trace for 10 s: the link is saturated from the start.
    let sim = run(Setup::new(
        constant_12mbps(),
        full_sized(20_000_000, 10_000),
        10_000,
    ));
    let times = deliveries(&sim);
    // Every opportunity up to 9.99 s carried one packet, delivered 10 ms later.
    assert_eq!(
        times,
        expected_deliveries(&constant_12mbps(), 9_990).as_slice()
    );
    // Throughput of IP bytes in [1 s, 9 s): 8000 packets of 1500 bytes = 12 Mb/s exactly;
    // UDP goodput is 1472/1500 of it, 11.776 Mb/s (1.9 % below the trace's rate).
    let in_window = times
        .iter()
        .filter(|&&t| (1_000 * MS..9_000 * MS).contains(&t))
        .count() as f64;
    let throughput = in_window * 1500.0 * 8.0 / 8.0;
    assert_eq!(throughput, 12e6);
    let goodput = in_window * 1472.0 * 8.0 / 8.0;
    assert!((goodput - 12e6).abs() / 12e6 < 0.02, "goodput {goodput}");
    let d = &sim.model.dirs[0];
    assert_eq!(d.rate_bps, 12_000_000);
    assert_eq!(d.utilization(SimTime::from_ns(10_000 * MS)), 1.0);
    // busy_ns counts the mean opportunity spacing (1 ms) per opportunity used.
    assert_eq!(d.stats.busy_ns, d.stats.packets_sent * MS);
}

#[test]
fn unsaturated_packets_wait_for_the_next_opportunity_only() {
    // 6 Mb/s of 1472-byte payloads: one datagram every 1.962666… ms.
    let sim = run(Setup::new(
        constant_12mbps(),
        full_sized(6_000_000, 5_000),
        5_100,
    ));
    let f = &sim.model.flow_counters[0];
    assert_eq!(f.packets_delivered, f.packets_sent);
    let gap_ns = SimDuration::transmission(1472, 6_000_000).as_ns();
    for (i, &t) in deliveries(&sim).iter().enumerate() {
        let sent = i as u64 * gap_ns;
        // Served at the first whole millisecond after it arrives (Mahimahi serves the
        // opportunities up to an arrival's instant before it queues the packet).
        let opportunity = (sent / MS + 1) * MS;
        assert_eq!(t, opportunity + DELAY_MS * MS, "datagram {i}");
    }
    // Utilisation: opportunities used over offered up to the end.
    let d = &sim.model.dirs[0];
    let end = SimTime::from_ns(5_100 * MS);
    let expected = d.stats.packets_sent as f64 / 5_100.0;
    assert_eq!(d.utilization(end), expected);
    assert!(
        (d.utilization(end) - 0.499).abs() < 0.002,
        "utilization {}",
        d.utilization(end)
    );
}

#[test]
fn a_gap_stalls_delivery_for_exactly_the_gap() {
    // 100 opportunities at 1…100 ms, none for 200 ms, then 300…400 ms; the trace repeats every
    // 400 ms.
    let trace = DeliveryTrace::from_opportunities_ms((1..=100).chain(300..=400).collect()).unwrap();
    let sim = run(Setup::new(
        trace.clone(),
        full_sized(20_000_000, 2_000),
        2_000,
    ));
    let times = deliveries(&sim);
    assert_eq!(times, expected_deliveries(&trace, times.len()).as_slice());
    // 5 repetitions of 201 opportunities, minus the ones whose delivery falls after 2 s
    // (opportunities at 1991…2000 ms).
    assert_eq!(times.len(), 5 * 201 - 10);
    let stalls: Vec<(u64, u64)> = times
        .windows(2)
        .filter(|w| w[1] - w[0] > MS)
        .map(|w| (w[0] / MS, (w[1] - w[0]) / MS))
        .collect();
    // One 200 ms stall per repetition, after the opportunity at 100 ms (+10 ms of propagation).
    assert_eq!(
        stalls,
        [(110, 200), (510, 200), (910, 200), (1310, 200), (1710, 200)]
    );
    // The saturated link is fully used through the gaps: every opportunity offered carried a
    // packet, and the busy time (each opportunity standing for the interval since the previous
    // one) covers the whole run.
    let d = &sim.model.dirs[0];
    assert_eq!(d.utilization(SimTime::from_ns(2_000 * MS)), 1.0);
    assert!(d.stats.busy_ns >= 2_000 * MS, "busy {} ns", d.stats.busy_ns);
}

#[test]
fn trace_loops_offset_by_its_last_timestamp() {
    // Two opportunities at 2 ms and one at 5 ms: 2, 2, 5, 7, 7, 10, 12, 12, 15, …
    let trace = DeliveryTrace::parse("2\n2\n5\n").unwrap();
    let sim = run(Setup::new(
        trace.clone(),
        full_sized(20_000_000, 1_000),
        1_000,
    ));
    let times = deliveries(&sim);
    let head: Vec<u64> = times.iter().take(9).map(|t| t / MS - DELAY_MS).collect();
    assert_eq!(head, [2, 2, 5, 7, 7, 10, 12, 12, 15]);
    // 3 opportunities per 5 ms for 1 s: 7.2 Mb/s.
    assert_eq!(trace.mean_rate_bps(), 7_200_000);
    assert_eq!(times, expected_deliveries(&trace, times.len()).as_slice());
    assert_eq!(times.len(), 594); // opportunities up to 990 ms: 198 repetitions × 3
}

#[test]
fn unused_opportunities_do_not_accumulate() {
    // The link idles for 500 ms (500 unused opportunities), then 17 datagrams arrive within 2 ms
    // (100 Mb/s): they leave one per opportunity, not at once.
    let burst = Source {
        rate_bps: 100_000_000,
        payload_bytes: 1472,
        start_ms: 500,
        stop_ms: 502,
    };
    let sim = run(Setup::new(constant_12mbps(), burst, 1_000));
    let times: Vec<u64> = deliveries(&sim).iter().map(|t| t / MS).collect();
    // The first datagram arrives exactly at the 500 ms opportunity, which is served before it
    // is queued: it leaves at 501 ms.
    assert_eq!(times, (511..528).collect::<Vec<_>>());
    assert!(deliveries(&sim).iter().all(|t| t % MS == 0));
    let d = &sim.model.dirs[0];
    assert_eq!(d.utilization(SimTime::from_ns(1_000 * MS)), 17.0 / 1000.0);
}

#[test]
fn large_packets_carry_their_bytes_into_the_next_opportunities() {
    // A 3000-byte datagram counts 3004 bytes: two opportunities less 4 bytes, which the next
    // datagram uses. Still 1504 bytes per millisecond, 12 Mb/s of IP bytes.
    let big = Source {
        rate_bps: 20_000_000,
        payload_bytes: 2972,
        start_ms: 0,
        stop_ms: 1_000,
    };
    let sim = run(Setup::new(constant_12mbps(), big, 1_000));
    let times: Vec<u64> = deliveries(&sim).iter().map(|t| t / MS).collect();
    // Datagram k (from 1) leaves at the opportunity that completes its 3004·k-th byte.
    let expected: Vec<u64> = (1..=times.len() as u64)
        .map(|k| (3004 * k).div_ceil(1504) + DELAY_MS)
        .collect();
    assert_eq!(times, expected);
    assert_eq!(times[..4], [12, 14, 16, 18]);
    // The 990 opportunities up to 990 ms hold 495.7 datagrams.
    assert_eq!(times.len(), 990 * 1504 / 3004);
    // Under packet accounting each takes two whole opportunities.
    let big = Source {
        rate_bps: 20_000_000,
        payload_bytes: 2972,
        start_ms: 0,
        stop_ms: 1_000,
    };
    let mut setup = Setup::new(constant_12mbps(), big, 1_000);
    setup.accounting = TraceAccounting::Packets;
    let sim = run(setup);
    let times: Vec<u64> = deliveries(&sim).iter().map(|t| t / MS).collect();
    assert_eq!(times, (0..495).map(|k| 12 + 2 * k).collect::<Vec<_>>());
}

/// 100-byte datagrams at 2 Mb/s of payload (3,472 per second, 0.35 Mb/s of opportunity bytes).
fn small_datagrams() -> Source {
    Source {
        rate_bps: 2_000_000,
        payload_bytes: 72,
        start_ms: 0,
        stop_ms: 1_000,
    }
}

#[test]
fn small_packets_share_an_opportunity() {
    // Mahimahi's byte accounting: each datagram takes 104 of an opportunity's 1504 bytes, so
    // every one leaves at the first opportunity after it arrives, without queueing.
    let sim = run(Setup::new(constant_12mbps(), small_datagrams(), 1_000));
    let f = &sim.model.flow_counters[0];
    let gap_ns = SimDuration::transmission(72, 2_000_000).as_ns();
    let times = deliveries(&sim);
    for (i, &t) in times.iter().enumerate() {
        let sent = i as u64 * gap_ns;
        assert_eq!(t, (sent / MS + 1 + DELAY_MS) * MS, "datagram {i}");
    }
    // Those sent from 990 ms on are delivered after the end.
    assert_eq!(times.len() as u64, (990 * MS).div_ceil(gap_ns));
    assert_eq!(f.packets_sent, 1_000 * MS / gap_ns + 1);
    // 104 bytes per datagram over 1504 per opportunity.
    let d = &sim.model.dirs[0];
    let u = d.utilization(SimTime::from_ns(1_000 * MS));
    assert_eq!(u, d.stats.packets_sent as f64 * 104.0 / (1000.0 * 1504.0));
}

#[test]
fn under_packet_accounting_a_small_packet_uses_a_whole_opportunity() {
    // One datagram per millisecond, 0.8 Mb/s of IP bytes, yet the link is fully used and the
    // queue grows.
    let mut setup = Setup::new(constant_12mbps(), small_datagrams(), 1_000);
    setup.accounting = TraceAccounting::Packets;
    let sim = run(setup);
    let times = deliveries(&sim);
    assert_eq!(
        times,
        expected_deliveries(&constant_12mbps(), 990).as_slice()
    );
    assert_eq!(
        sim.model.dirs[0].utilization(SimTime::from_ns(1_000 * MS)),
        1.0
    );
}

#[test]
fn queue_and_loss_model_still_apply() {
    let loss: Box<dyn LossModel> = Box::new(Bernoulli::new(0.1).unwrap());
    let mut setup = Setup::new(constant_12mbps(), full_sized(20_000_000, 10_000), 10_000);
    setup.queue_limit = 20;
    setup.loss = Some(loss);
    let sim = run(setup);
    let d = &sim.model.dirs[0];
    // Lost packets still used their opportunity: one packet per millisecond up to 10 s, plus the
    // one that started at 10 s for the opportunity at 10.001 s.
    assert_eq!(d.stats.packets_sent, 10_001);
    assert_eq!(d.utilization(SimTime::from_ns(10_000 * MS)), 1.0);
    let lost = d.stats.drops_link_loss as f64;
    // 10,000 Bernoulli trials at p = 0.1: standard deviation 30; allow 4.
    assert!((lost - 1000.0).abs() < 120.0, "lost {lost}");
    assert!(d.queue.stats().dropped_full > 0);
    assert_eq!(d.occupancy_packets.max(), 20);
    // Every delivery is still at an opportunity.
    assert!(deliveries(&sim).iter().all(|t| t % MS == 0));
}

#[test]
fn same_inputs_same_deliveries() {
    let trace = DeliveryTrace::from_opportunities_ms((1..=100).chain(300..=400).collect()).unwrap();
    let once = || {
        let loss: Box<dyn LossModel> = Box::new(Bernoulli::new(0.05).unwrap());
        let mut setup = Setup::new(trace.clone(), full_sized(9_000_000, 3_000), 3_000);
        setup.loss = Some(loss);
        let sim = run(setup);
        (
            sim.events(),
            deliveries(&sim).to_vec(),
            sim.model.dirs[0].stats,
        )
    };
    assert_eq!(once(), once());
}
