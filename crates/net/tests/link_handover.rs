//! A point-to-point access link standing for a radio hop that hands over, as in the emulator
//! testbed of seed `002_…`: during the interruption the base station's buffer is not served;
//! with buffer transfer it keeps its packets and accepts arrivals up to its limit (overrun =
//! tail drops); without, what is buffered at the start and what arrives during the
//! interruption is discarded.
//!
//! ```text
//! server --wan 100 Mb/s, 5 ms-- bs --access 20 Mb/s, 5 ms, 50 packets-- ue
//! ```
//! A scripted sender sends bursts of 1000-byte UDP payloads (1028-byte datagrams): 82.24 µs
//! apart on the wan, 411.2 µs each on the access link.

use std::cell::RefCell;
use std::net::Ipv4Addr;
use std::rc::Rc;

use celltcp_engine::{SimDuration, SimTime, Simulator, StopCondition};
use celltcp_net::app::udp::UdpSink;
use celltcp_net::link::LinkDirConfig;
use celltcp_net::packet::Packet;
use celltcp_net::queue::{DropTail, QueueLimit};
use celltcp_net::topology::{DirId, NodeKind};
use celltcp_net::world::{CaptureSink, LinkChange, World, WorldBuilder, PROTO_UDP};

mod common;
use common::Bursts;

const SERVER: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
const UE: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 3);
/// The access link's downlink direction (link 1, a → b).
const ACCESS_DOWN: DirId = DirId(2);
const QUEUE_LIMIT: u32 = 50;

fn ms(ms: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_ms(ms)
}

/// One nanosecond before `t`.
fn just_before(t: SimTime) -> SimTime {
    SimTime::from_ns(t.as_ns() - 1)
}

fn us(us: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_us(us)
}

/// Times at which packets start transmission on the captured link.
struct TxStarts(Rc<RefCell<Vec<SimTime>>>);

impl CaptureSink for TxStarts {
    fn capture(&mut self, t: SimTime, _: &Packet) -> std::io::Result<()> {
        self.0.borrow_mut().push(t);
        Ok(())
    }
    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn dir(rate_bps: u64, limit: u32) -> LinkDirConfig {
    LinkDirConfig {
        rate_bps,
        delay: SimDuration::from_ms(5),
        queue: Box::new(DropTail::new(QueueLimit::Packets(limit)).unwrap()),
        loss: None,
    }
}

/// The network with `burst` datagrams every `period_ms` for two seconds and the given access
/// link changes; returns the simulator and the access link's transmission start times.
fn network(
    burst: u32,
    period_ms: u64,
    changes: &[(SimTime, LinkChange)],
) -> (Simulator<World>, Rc<RefCell<Vec<SimTime>>>) {
    let mut b = WorldBuilder::new(1, 0);
    let server = b.add_node("server", NodeKind::Host, SERVER);
    let bs = b.add_node("bs", NodeKind::Router, Ipv4Addr::new(10, 0, 0, 2));
    let ue = b.add_node("ue", NodeKind::Host, UE);
    b.add_link(
        "wan",
        server,
        bs,
        1,
        dir(100_000_000, 1000),
        dir(100_000_000, 1000),
    );
    let access = b.add_link(
        "access",
        bs,
        ue,
        1,
        dir(20_000_000, QUEUE_LIMIT),
        dir(20_000_000, QUEUE_LIMIT),
    );
    assert_eq!(DirId(2 * access), ACCESS_DOWN);
    for &(at, change) in changes {
        b.link_change(at, ACCESS_DOWN, change);
    }
    let starts: Rc<RefCell<Vec<SimTime>>> = Default::default();
    b.capture(access, Box::new(TxStarts(starts.clone())));
    let flow = b.add_flow(ue);
    let sender = Bursts {
        flow,
        src: SERVER,
        dst: UE,
        burst,
        period: SimDuration::from_ms(period_ms),
        stop: ms(2_000),
        seq: 0,
    };
    b.add_agent(
        server,
        flow,
        PROTO_UDP,
        49152,
        SimTime::ZERO,
        "src",
        Box::new(sender),
    );
    b.add_agent(
        ue,
        flow,
        PROTO_UDP,
        5001,
        SimTime::ZERO,
        "dst",
        Box::new(UdpSink::new()),
    );
    let mut sim = Simulator::new(b.build());
    sim.model.schedule_initial(&mut sim.sched);
    (sim, starts)
}

fn run_until(sim: &mut Simulator<World>, t: SimTime) {
    sim.run(StopCondition {
        until: Some(t),
        max_events: None,
    })
    .unwrap();
}

fn hold(on: bool) -> LinkChange {
    LinkChange {
        hold: Some(on),
        ..Default::default()
    }
}

/// With buffer transfer: one datagram a millisecond (8.2 Mb/s of 20) never queues, until the
/// base station stops serving for 300 ms. Datagram k reaches it at k ms + 5.08224 ms, so those
/// of k = 995…1294 arrive during the hold: the first 50 fill the buffer, the other 250 are
/// tail-dropped. The transmitter resumes the instant the hold ends.
#[test]
fn a_held_link_serves_nothing_and_overruns_its_buffer() {
    let (mut sim, starts) = network(1, 1, &[(ms(1_000), hold(true)), (ms(1_300), hold(false))]);
    run_until(&mut sim, just_before(ms(1_300)));
    let d = &sim.model.dirs[ACCESS_DOWN.index()];
    assert_eq!(
        d.queue.len_packets(),
        QUEUE_LIMIT as usize,
        "the buffer filled up"
    );
    assert_eq!(d.occupancy_packets.max(), u64::from(QUEUE_LIMIT));
    assert!(
        d.transmitting.is_none(),
        "the packet being serialised at the hold finished"
    );
    run_until(&mut sim, ms(3_000));
    let starts = starts.borrow();
    // Datagram 994 started at 999.08224 ms, before the hold; the next start is the release.
    let during: Vec<&SimTime> = starts
        .iter()
        .filter(|t| **t > ms(1_000) && **t < ms(1_300))
        .collect();
    assert!(during.is_empty(), "no service during the hold: {during:?}");
    let before = starts.iter().filter(|t| **t <= ms(1_000)).count();
    assert_eq!(before, 995);
    assert_eq!(
        *starts[..].iter().find(|t| **t > ms(1_000)).unwrap(),
        ms(1_300)
    );
    // The backlog then leaves back to back, 411.2 µs apart.
    assert_eq!(
        starts[996].saturating_since(starts[995]),
        SimDuration::from_ns(411_200)
    );
    let f = &sim.model.flow_counters[0];
    assert_eq!(
        (f.packets_sent, f.drops_queue_full, f.drops_handover),
        (2_000, 250, 0)
    );
    assert_eq!((f.packets_delivered, f.drops()), (1_750, 250));
    let s = &sim.model.dirs[ACCESS_DOWN.index()].stats;
    assert_eq!((s.packets_sent, s.drops_handover), (1_750, 0));
    // The first datagram to arrive during the hold waited from 1000.08224 ms to 1300 ms.
    let max_delay = f.delay_ns.max().unwrap();
    let want = 1_300_000_000 - 995_000_000 + 411_200 + 5_000_000;
    assert!(
        max_delay.abs_diff(want) < want / 200,
        "max delay {max_delay} ns, expected ≈ {want}"
    );
}

/// Without buffer transfer. Bursts of ten datagrams every 10 ms queue up on the access link:
/// the burst sent at 1000 ms reaches the base station from 1005.08224 ms, 82.24 µs apart, and
/// datagram j of it starts at 1005.08224 + 0.4112·j ms. At 1007 ms five have started (the fifth
/// is being serialised) and five wait: the flush drops those five, and the 29 bursts that
/// arrive before 1300 ms are refused.
#[test]
fn flush_and_refuse_drop_exactly_what_was_queued_and_what_arrived() {
    let start = LinkChange {
        hold: Some(true),
        flush: true,
        refuse: Some(true),
        ..Default::default()
    };
    let end = LinkChange {
        hold: Some(false),
        refuse: Some(false),
        ..Default::default()
    };
    let (mut sim, starts) = network(10, 10, &[(ms(1_007), start), (ms(1_300), end)]);
    run_until(&mut sim, just_before(ms(1_007)));
    let d = &sim.model.dirs[ACCESS_DOWN.index()];
    let queued = d.queue.len_packets() as u64;
    assert_eq!(queued, 5);
    assert!(d.transmitting.is_some());
    // Delivered by the end of the interruption: what was delivered or propagating already,
    // and the packet being serialised.
    let in_pipe = d.pipe.len() as u64;
    let delivered_before = sim.model.flow_counters[0].packets_delivered;
    run_until(&mut sim, ms(1_007));
    let d = &sim.model.dirs[ACCESS_DOWN.index()];
    assert_eq!((d.queue.len_packets(), d.stats.drops_handover), (0, queued));
    run_until(&mut sim, just_before(ms(1_300)));
    let f = &sim.model.flow_counters[0];
    assert_eq!(
        f.drops_handover,
        queued + 290,
        "flushed plus 29 refused bursts"
    );
    // Only the packet being serialised at 1007 ms got through after the flush.
    assert_eq!(in_pipe, 4);
    assert_eq!(f.packets_delivered, delivered_before + in_pipe + 1);
    assert!(starts
        .borrow()
        .iter()
        .all(|t| *t <= us(1_006_728) || *t >= ms(1_300)));
    run_until(&mut sim, ms(3_000));
    let f = &sim.model.flow_counters[0];
    assert_eq!(
        (f.packets_sent, f.drops_handover, f.drops_queue_full),
        (2_000, 295, 0)
    );
    assert_eq!((f.packets_delivered, f.drops()), (2_000 - 295, 295));
    let s = &sim.model.dirs[ACCESS_DOWN.index()].stats;
    assert_eq!(s.drops_handover, 295);
    assert_eq!(s.packets_sent, 2_000 - 295);
}

/// A hold on an idle link and a release with nothing queued change nothing; a refusing link
/// that is not held still serves what it had queued.
#[test]
fn refusing_without_a_hold_drains_the_queue() {
    let refuse = |on| LinkChange {
        refuse: Some(on),
        ..Default::default()
    };
    let (mut sim, starts) = network(
        10,
        10,
        &[(ms(1_007), refuse(true)), (ms(1_300), refuse(false))],
    );
    run_until(&mut sim, ms(3_000));
    let f = &sim.model.flow_counters[0];
    // The five queued at 1007 ms are served; 290 arrivals are refused.
    assert_eq!((f.drops_handover, f.packets_delivered), (290, 2_000 - 290));
    let served_during = starts
        .borrow()
        .iter()
        .filter(|t| **t > ms(1_007) && **t < ms(1_300))
        .count();
    assert_eq!(served_during, 5);

    let (mut idle, _) = network(1, 1, &[(ms(2_500), hold(true)), (ms(2_600), hold(false))]);
    run_until(&mut idle, ms(3_000));
    let f = &idle.model.flow_counters[0];
    assert_eq!((f.packets_delivered, f.drops()), (2_000, 0));
}
