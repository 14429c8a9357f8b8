//! The world's middlebox plumbing, driven by a toy middlebox: which packets it sees, what
//! absorbing, changing and emitting packets does to the counters, its timers, link-loss
//! notifications, expedited packets, placement errors and determinism.
//!
//! Topology: `src` –100 Mb/s, 1 ms– `r` (router, the middlebox) –`rate`, 1 ms– `dst`; a UDP
//! flow `src` → `dst` of 1000-byte datagrams (1028 IP bytes).

mod common;

use std::cell::RefCell;
use std::collections::VecDeque;
use std::net::Ipv4Addr;
use std::rc::Rc;

use celltcp_engine::{SimDuration, SimTime, Simulator, StopCondition};
use celltcp_net::agent::{Agent, AgentCtx, ReportEntry};
use celltcp_net::link::LinkDirConfig;
use celltcp_net::loss::{Bernoulli, LossModel};
use celltcp_net::middlebox::{Middlebox, MiddleboxCtx, MiddleboxFigure};
use celltcp_net::packet::{FlowId, NodeId, Packet};
use celltcp_net::queue::{DropTail, QueueLimit};
use celltcp_net::topology::NodeKind;
use celltcp_net::world::{MiddleboxError, World, WorldBuilder, PROTO_UDP};
use common::{udp, Bursts};

const SRC: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
const R: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);
const DST: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 3);

/// What the toy middlebox does with each packet it is handed.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    /// Forwards everything unchanged.
    Pass,
    /// Absorbs datagrams with an odd `app_seq`.
    AbsorbOdd,
    /// Sets DSCP 46 (EF) on every packet.
    MarkDscp,
    /// Forwards every packet and emits a copy of it.
    Duplicate,
    /// Absorbs every packet and emits it again after this long.
    Hold(SimDuration),
    /// Absorbs each packet with this probability, drawn from the middlebox's stream.
    DropRandom(f64),
}

/// What the toy saw, shared with the test.
#[derive(Debug, Default)]
struct Log {
    /// `(time, uid, app_seq)` of each packet handed to `on_forward`.
    seen: Vec<(SimTime, u64, u64)>,
    /// uids of the packets reported lost.
    link_losses: Vec<u64>,
    timer_calls: u32,
}

struct Toy {
    mode: Mode,
    log: Rc<RefCell<Log>>,
    held: VecDeque<(SimTime, Packet)>,
}

impl Middlebox for Toy {
    fn name(&self) -> &str {
        "toy"
    }

    fn on_forward(&mut self, mut pkt: Packet, ctx: &mut MiddleboxCtx<'_>) -> Option<Packet> {
        self.log
            .borrow_mut()
            .seen
            .push((ctx.now, pkt.uid, pkt.app_seq));
        match self.mode {
            Mode::Pass => Some(pkt),
            Mode::AbsorbOdd => pkt.app_seq.is_multiple_of(2).then_some(pkt),
            Mode::MarkDscp => {
                pkt.ip.dscp = 46;
                Some(pkt)
            }
            Mode::Duplicate => {
                ctx.out.push(pkt);
                Some(pkt)
            }
            Mode::Hold(d) => {
                self.held.push_back((ctx.now + d, pkt));
                None
            }
            Mode::DropRandom(p) => (!ctx.rng.bernoulli(p)).then_some(pkt),
        }
    }

    fn on_link_loss(&mut self, pkt: &Packet, _ctx: &mut MiddleboxCtx<'_>) {
        self.log.borrow_mut().link_losses.push(pkt.uid);
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        self.held.front().map(|(t, _)| *t)
    }

    fn on_timer(&mut self, ctx: &mut MiddleboxCtx<'_>) {
        self.log.borrow_mut().timer_calls += 1;
        while self.held.front().is_some_and(|(t, _)| *t <= ctx.now) {
            let (_, p) = self.held.pop_front().expect("front exists");
            ctx.out.push(p);
        }
    }

    fn report(&self, _now: SimTime) -> Vec<MiddleboxFigure> {
        vec![("held".to_string(), self.held.len() as f64)]
    }
}

/// `(time, uid, app_seq, dscp, ttl)` of every datagram a [`Recorder`] received.
type Received = Rc<RefCell<Vec<(SimTime, u64, u64, u8, u8)>>>;

/// A UDP sink that records every datagram.
struct Recorder(Received);

impl Agent for Recorder {
    fn start(&mut self, _: &mut AgentCtx<'_>) {}
    fn on_packet(&mut self, p: Packet, ctx: &mut AgentCtx<'_>) {
        self.0
            .borrow_mut()
            .push((ctx.now(), p.uid, p.app_seq, p.ip.dscp, p.ip.ttl));
    }
    fn on_timer(&mut self, _: &mut AgentCtx<'_>) {}
    fn report(&self, _: SimTime) -> Vec<ReportEntry> {
        Vec::new()
    }
}

fn dir(rate_bps: u64, loss: Option<f64>) -> LinkDirConfig {
    LinkDirConfig {
        rate_bps,
        delay: SimDuration::from_ms(1),
        queue: Box::new(DropTail::new(QueueLimit::Packets(1000)).unwrap()),
        loss: loss.map(|p| Box::new(Bernoulli::new(p).unwrap()) as Box<dyn LossModel>),
    }
}

/// Knobs of one run.
#[derive(Clone, Copy)]
struct Setup {
    mode: Mode,
    /// Rate of r → dst, bits per second.
    rate_bps: u64,
    /// Bernoulli loss on src → r and on r → dst.
    loss_in: Option<f64>,
    loss_out: Option<f64>,
    /// Datagrams per burst, one burst per millisecond, for `bursts` ms.
    burst: u32,
    bursts: u64,
    /// An agent on the router itself also sends to dst (its packets are local, not forwarded).
    router_agent: bool,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            mode: Mode::Pass,
            rate_bps: 100_000_000,
            loss_in: None,
            loss_out: None,
            burst: 1,
            bursts: 100,
            router_agent: false,
        }
    }
}

struct Outcome {
    sim: Simulator<World>,
    log: Rc<RefCell<Log>>,
    received: Received,
}

fn run(s: Setup) -> Outcome {
    let mut b = WorldBuilder::new(7, 0);
    let src = b.add_node("src", NodeKind::Host, SRC);
    let r = b.add_node("r", NodeKind::Router, R);
    let dst = b.add_node("dst", NodeKind::Host, DST);
    b.add_link(
        "in",
        src,
        r,
        1,
        dir(100_000_000, s.loss_in),
        dir(100_000_000, None),
    );
    b.add_link(
        "out",
        r,
        dst,
        1,
        dir(s.rate_bps, s.loss_out),
        dir(s.rate_bps, None),
    );
    let flow = b.add_flow(dst);
    let stop = SimTime::ZERO + SimDuration::from_ms(s.bursts);
    let bursts = |from: Ipv4Addr| Bursts {
        flow,
        src: from,
        dst: DST,
        burst: s.burst,
        period: SimDuration::from_ms(1),
        stop,
        seq: 0,
    };
    b.add_agent(
        src,
        flow,
        PROTO_UDP,
        49152,
        SimTime::ZERO,
        "flow/f/src",
        Box::new(bursts(SRC)),
    );
    if s.router_agent {
        b.add_agent(
            r,
            flow,
            PROTO_UDP,
            49152,
            SimTime::ZERO,
            "flow/f/r",
            Box::new(bursts(R)),
        );
    }
    let received = Rc::new(RefCell::new(Vec::new()));
    b.add_agent(
        dst,
        flow,
        PROTO_UDP,
        5001,
        SimTime::ZERO,
        "flow/f/dst",
        Box::new(Recorder(received.clone())),
    );
    let log = Rc::new(RefCell::new(Log::default()));
    let toy = Toy {
        mode: s.mode,
        log: log.clone(),
        held: VecDeque::new(),
    };
    assert_eq!(b.add_middlebox(r, "middlebox/toy", Box::new(toy)), Ok(0));
    let mut sim = Simulator::new(b.build());
    sim.model.schedule_initial(&mut sim.sched);
    sim.run(StopCondition {
        until: Some(stop + SimDuration::from_secs(1)),
        max_events: None,
    })
    .unwrap();
    Outcome { sim, log, received }
}

#[test]
fn the_middlebox_sees_each_forwarded_packet_once() {
    let o = run(Setup {
        router_agent: true,
        ..Setup::default()
    });
    // The router's own agent sends 100 datagrams too: local packets are not forwarded ones.
    let log = o.log.borrow();
    assert_eq!(log.seen.len(), 100);
    let seqs: Vec<u64> = log.seen.iter().map(|s| s.2).collect();
    assert_eq!(seqs, (0..100).collect::<Vec<_>>());
    assert_eq!(o.received.borrow().len(), 200);
    let info = o.sim.model.middleboxes().next().unwrap();
    assert_eq!((info.node, info.middlebox.name()), (NodeId(1), "toy"));
    assert_eq!(info.stats.packets_seen, 100);
    assert_eq!(
        info.middlebox.report(o.sim.sched.now()),
        vec![("held".to_string(), 0.0)]
    );
}

#[test]
fn absorbed_packets_are_counted_apart_from_drops() {
    let o = run(Setup {
        mode: Mode::AbsorbOdd,
        ..Setup::default()
    });
    let got: Vec<u64> = o.received.borrow().iter().map(|r| r.2).collect();
    assert_eq!(got, (0..100).step_by(2).collect::<Vec<_>>());
    let c = &o.sim.model.flow_counters[0];
    assert_eq!((c.packets_sent, c.packets_delivered), (100, 50));
    assert_eq!((c.middlebox_absorbed, c.drops()), (50, 0));
    let info = o.sim.model.middleboxes().next().unwrap();
    assert_eq!(
        (info.stats.packets_seen, info.stats.packets_absorbed),
        (100, 50)
    );
}

#[test]
fn a_forwarded_packet_may_be_changed() {
    let o = run(Setup {
        mode: Mode::MarkDscp,
        ..Setup::default()
    });
    let rx = o.received.borrow();
    assert_eq!(rx.len(), 100);
    // The router decremented the TTL once (RFC 791) before its middlebox saw the packet.
    assert!(rx.iter().all(|r| r.3 == 46 && r.4 == 63), "{:?}", rx[0]);
}

#[test]
fn emitted_packets_are_new_transmissions() {
    let o = run(Setup {
        mode: Mode::Duplicate,
        ..Setup::default()
    });
    let rx = o.received.borrow();
    assert_eq!(rx.len(), 200);
    let mut uids: Vec<u64> = rx.iter().map(|r| r.1).collect();
    uids.sort_unstable();
    uids.dedup();
    assert_eq!(uids.len(), 200, "every copy has its own uid");
    // The forwarded original arrives first, its copy right behind it (same TTL: no second
    // decrement for an emitted packet).
    for pair in rx.chunks(2) {
        assert_eq!(pair[0].2, pair[1].2);
        assert!(pair[0].1 < pair[1].1);
        assert_eq!((pair[0].4, pair[1].4), (63, 63));
    }
    let c = &o.sim.model.flow_counters[0];
    assert_eq!((c.packets_sent, c.middlebox_packets_sent), (200, 100));
    assert_eq!(
        (c.bytes_sent, c.middlebox_bytes_sent),
        (200 * 1028, 100 * 1028)
    );
    assert_eq!(c.packets_delivered, 200);
    let info = o.sim.model.middleboxes().next().unwrap();
    assert_eq!(
        (info.stats.packets_emitted, info.stats.bytes_emitted),
        (100, 100 * 1028)
    );
}

#[test]
fn timers_release_what_the_middlebox_holds() {
    let hold = SimDuration::from_ms(5);
    let o = run(Setup {
        mode: Mode::Hold(hold),
        ..Setup::default()
    });
    let log = o.log.borrow();
    let rx = o.received.borrow();
    assert_eq!(rx.len(), 100);
    // Seen at r at t; leaves r at t + 5 ms; 1028 B at 100 Mb/s plus 1 ms to dst.
    let hop = SimDuration::from_ns(82_240) + SimDuration::from_ms(1);
    for (seen, got) in log.seen.iter().zip(rx.iter()) {
        assert_eq!(got.0, seen.0 + hold + hop, "datagram {}", seen.2);
    }
    assert_eq!(log.timer_calls, 100);
    let info = o.sim.model.middleboxes().next().unwrap();
    assert_eq!(info.stats.timer_calls, 100);
    let c = &o.sim.model.flow_counters[0];
    assert_eq!((c.middlebox_absorbed, c.middlebox_packets_sent), (100, 100));
}

#[test]
fn link_losses_are_reported_to_the_sending_node_only() {
    let o = run(Setup {
        loss_in: Some(0.2),
        loss_out: Some(0.3),
        bursts: 1000,
        ..Setup::default()
    });
    let log = o.log.borrow();
    let w = &o.sim.model;
    // Direction 2 is r → dst; direction 0 (src → r) belongs to the host src.
    let out_losses = w.dirs[2].stats.drops_link_loss;
    assert!(w.dirs[0].stats.drops_link_loss > 100 && out_losses > 100);
    assert_eq!(log.link_losses.len() as u64, out_losses);
    assert_eq!(
        w.middleboxes().next().unwrap().stats.link_losses,
        out_losses
    );
    // The reported packets are ones the middlebox forwarded and the sink never got.
    let seen: std::collections::BTreeSet<u64> = log.seen.iter().map(|s| s.1).collect();
    let got: std::collections::BTreeSet<u64> = o.received.borrow().iter().map(|r| r.1).collect();
    assert!(log
        .link_losses
        .iter()
        .all(|u| seen.contains(u) && !got.contains(u)));
}

#[test]
fn an_expedited_packet_passes_a_full_queue() {
    /// Forwards everything; when datagram 10 passes, emits datagram 1000, expedited or not.
    struct Late(bool, bool);
    impl Middlebox for Late {
        fn name(&self) -> &str {
            "late"
        }
        fn on_forward(&mut self, pkt: Packet, ctx: &mut MiddleboxCtx<'_>) -> Option<Packet> {
            if pkt.app_seq == 10 && !self.1 {
                self.1 = true;
                ctx.out.push(udp(FlowId(0), SRC, DST, 1000, 1000, ctx.now));
            }
            Some(pkt)
        }
        fn expedite(&self, _: &Packet) -> bool {
            self.0
        }
    }
    let position = |expedite: bool| {
        let mut b = WorldBuilder::new(7, 0);
        let src = b.add_node("src", NodeKind::Host, SRC);
        let r = b.add_node("r", NodeKind::Router, R);
        let dst = b.add_node("dst", NodeKind::Host, DST);
        b.add_link(
            "in",
            src,
            r,
            1,
            dir(1_000_000_000, None),
            dir(1_000_000_000, None),
        );
        b.add_link("out", r, dst, 1, dir(1_000_000, None), dir(1_000_000, None));
        let flow = b.add_flow(dst);
        let burst = Bursts {
            flow,
            src: SRC,
            dst: DST,
            burst: 30,
            period: SimDuration::from_secs(10),
            stop: SimTime::ZERO + SimDuration::from_ms(1),
            seq: 0,
        };
        b.add_agent(
            src,
            flow,
            PROTO_UDP,
            49152,
            SimTime::ZERO,
            "f/src",
            Box::new(burst),
        );
        let rx = Rc::new(RefCell::new(Vec::new()));
        b.add_agent(
            dst,
            flow,
            PROTO_UDP,
            5001,
            SimTime::ZERO,
            "f/dst",
            Box::new(Recorder(rx.clone())),
        );
        b.add_middlebox(r, "mb", Box::new(Late(expedite, false)))
            .unwrap();
        let mut sim = Simulator::new(b.build());
        sim.model.schedule_initial(&mut sim.sched);
        sim.run(StopCondition {
            until: Some(SimTime::ZERO + SimDuration::from_secs(2)),
            max_events: None,
        })
        .unwrap();
        let seqs: Vec<u64> = rx.borrow().iter().map(|r| r.2).collect();
        seqs.iter().position(|&s| s == 1000).unwrap()
    };
    // At 1 Mb/s datagram 0 is on the wire while 1..9 wait when 10 arrives.
    assert_eq!(position(false), 11);
    assert_eq!(position(true), 1);
}

#[test]
fn placement_errors_are_values() {
    let mut b = WorldBuilder::new(1, 0);
    let h = b.add_node("h", NodeKind::Host, SRC);
    let r = b.add_node("r", NodeKind::Router, R);
    let toy = || {
        Box::new(Toy {
            mode: Mode::Pass,
            log: Rc::default(),
            held: VecDeque::new(),
        })
    };
    assert_eq!(
        b.add_middlebox(h, "a", toy()),
        Err(MiddleboxError::NotARouter {
            name: "toy".into(),
            node: "h".into()
        })
    );
    assert_eq!(b.add_middlebox(r, "a", toy()), Ok(0));
    let e = b.add_middlebox(r, "b", toy()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "middlebox 'toy': node 'r' already has middlebox 'toy' (at most one per node)"
    );
    assert!(matches!(
        b.add_middlebox(NodeId(9), "c", toy()),
        Err(MiddleboxError::UnknownNode {
            node: NodeId(9),
            ..
        })
    ));
}

#[test]
fn same_inputs_same_outputs() {
    let once = || {
        let o = run(Setup {
            mode: Mode::DropRandom(0.3),
            loss_out: Some(0.1),
            bursts: 500,
            ..Setup::default()
        });
        let log = o.log.borrow();
        let rx = o.received.borrow();
        (
            o.sim.events(),
            format!("{:?}", log.seen),
            format!("{:?}", log.link_losses),
            format!("{:?}", *rx),
            format!("{:?}", o.sim.model.flow_counters[0]),
        )
    };
    let (a, b) = (once(), once());
    assert_eq!(a, b);
    // The middlebox drew from its own stream: about 30 % absorbed.
    let o = run(Setup {
        mode: Mode::DropRandom(0.3),
        bursts: 500,
        ..Setup::default()
    });
    let absorbed = o.sim.model.flow_counters[0].middlebox_absorbed;
    assert!((110..=190).contains(&absorbed), "{absorbed}");
}
