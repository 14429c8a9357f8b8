//! The split-TCP proxy on a router of a world: server –core– router (proxy) –radio– UE, a
//! download driven by the engine, with and without the proxy.
//!
//! Run with `--nocapture` to see the measured figures.

use std::net::Ipv4Addr;

use celltcp_engine::{SimDuration, SimTime, Simulator, StopCondition};
use celltcp_net::link::LinkDirConfig;
use celltcp_net::loss::{Bernoulli, LossModel};
use celltcp_net::middlebox::MiddleboxFigure;
use celltcp_net::queue::{DropTail, QueueLimit};
use celltcp_net::topology::NodeKind;
use celltcp_net::trace::{TraceVar, Traces};
use celltcp_net::world::{AgentId, World, WorldBuilder, PROTO_TCP};
use celltcp_tcp::agent::{TcpReceiverAgent, TcpSenderAgent};
use celltcp_tcp::app::Bulk;
use celltcp_tcp::proxy::{SplitTcpConfig, SplitTcpProxy};
use celltcp_tcp::TcpConfig;

const SERVER: (Ipv4Addr, u16) = (Ipv4Addr::new(10, 0, 0, 1), 40_000);
const ROUTER: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 254);
const UE: (Ipv4Addr, u16) = (Ipv4Addr::new(10, 1, 0, 2), 5_001);
const FILE: u64 = 200_000;

fn dir(rate_bps: u64, delay_ms: u64, loss: f64) -> LinkDirConfig {
    let loss: Option<Box<dyn LossModel>> =
        (loss > 0.0).then(|| Box::new(Bernoulli::new(loss).unwrap()) as Box<dyn LossModel>);
    LinkDirConfig {
        rate_bps,
        delay: SimDuration::from_ms(delay_ms),
        queue: Box::new(DropTail::new(QueueLimit::Packets(1_000)).unwrap()),
        loss,
    }
}

struct Outcome {
    sim: Simulator<World>,
    /// Time of the UE's last in-order delivery, s.
    done_s: f64,
    ue_delivered: f64,
    server_retx: f64,
    proxy: Option<Vec<MiddleboxFigure>>,
}

/// A 200 kB download with the server's initial window 2 over core 2 × 40 ms at 10 Mb/s and
/// radio 2 × 150 ms at 384 kb/s with `radio_loss` on the downlink; the router splits the
/// connection when `proxy` is set.
fn download(proxy: bool, radio_loss: f64, seed: u64) -> Outcome {
    let mut b = WorldBuilder::new(seed, 0);
    let server = b.add_node("server", NodeKind::Host, SERVER.0);
    let router = b.add_node("rnc", NodeKind::Router, ROUTER);
    let ue = b.add_node("ue", NodeKind::Host, UE.0);
    b.add_link(
        "core",
        server,
        router,
        1,
        dir(10_000_000, 40, 0.0),
        dir(10_000_000, 40, 0.0),
    );
    b.add_link(
        "radio",
        router,
        ue,
        1,
        dir(384_000, 150, radio_loss),
        dir(384_000, 150, 0.0),
    );
    let flow = b.add_flow(ue);
    let tcp = TcpConfig {
        initial_window: 2,
        ..TcpConfig::default()
    };
    let app = Box::new(Bulk::new(Some(FILE)));
    let s = TcpSenderAgent::with_cc_name(tcp, flow, SERVER, UE, "newreno", 0, app).unwrap();
    let r = TcpReceiverAgent::with_cc_name(tcp, flow, UE, "newreno", 0).unwrap();
    b.add_agent(
        server,
        flow,
        PROTO_TCP,
        SERVER.1,
        SimTime::ZERO,
        "flow/0/src",
        Box::new(s),
    );
    b.add_agent(
        ue,
        flow,
        PROTO_TCP,
        UE.1,
        SimTime::ZERO,
        "flow/0/dst",
        Box::new(r),
    );
    if proxy {
        let cfg = SplitTcpConfig {
            mobile_side: vec![UE.0],
            ..Default::default()
        };
        let pep = SplitTcpProxy::new("pep", cfg).unwrap();
        b.add_middlebox(router, "middlebox/pep", Box::new(pep))
            .unwrap();
    }
    b.traces(Traces::new(&[TraceVar::Delivered]));
    let mut sim = Simulator::new(b.build());
    sim.model.schedule_initial(&mut sim.sched);
    let until = SimTime::ZERO + SimDuration::from_secs(60);
    sim.run(StopCondition {
        until: Some(until),
        max_events: None,
    })
    .unwrap();
    let now = sim.sched.now();
    let get = |agent: u32, key: &str| {
        sim.model
            .agent_report(AgentId(agent), now)
            .into_iter()
            .find(|(k, _)| *k == key)
            .map_or(f64::NAN, |e| e.1)
    };
    let ue_delivered = get(1, "bytes_delivered");
    let server_retx = get(0, "retransmissions");
    // Only the UE's connection writes `Delivered` rows: the proxy's endpoints keep out of the
    // per-flow traces.
    let v = &sim.model.traces.vars;
    let done_s = v
        .time_ns
        .iter()
        .zip(&v.var)
        .zip(&v.value)
        .filter(|((_, var), _)| **var == TraceVar::Delivered as u8)
        .map(|((t, _), value)| {
            assert!(*value <= FILE as f64, "no byte delivered twice");
            *t as f64 * 1e-9
        })
        .fold(0.0, f64::max);
    let proxy = sim
        .model
        .middleboxes()
        .next()
        .map(|m| m.middlebox.report(now));
    Outcome {
        sim,
        done_s,
        ue_delivered,
        server_retx,
        proxy,
    }
}

fn figure(rep: &[MiddleboxFigure], key: &str) -> f64 {
    rep.iter().find(|(k, _)| k == key).map(|e| e.1).unwrap()
}

#[test]
fn the_proxy_on_a_router_splits_the_download_and_speeds_it_up() {
    let e2e = download(false, 0.0, 1);
    let split = download(true, 0.0, 1);
    println!(
        "200 kB, server IW 2, core RTT 80 ms, radio RTT 300 ms at 384 kb/s: end to end {:.3} s, \
         split (IW 10 to the UE) {:.3} s; events {} vs {}",
        e2e.done_s,
        split.done_s,
        e2e.sim.events(),
        split.sim.events()
    );
    assert_eq!(e2e.ue_delivered, FILE as f64);
    assert_eq!(split.ue_delivered, FILE as f64);
    assert!(split.done_s < e2e.done_s);
    let rep = split.proxy.as_ref().unwrap();
    assert_eq!(figure(rep, "connections_split"), 1.0);
    assert_eq!(figure(rep, "connections_active"), 0.0);
    assert_eq!(figure(rep, "bytes_relayed_to_mobile"), FILE as f64);
    // Radio RTT 300 ms plus a segment's serialisation at 384 kb/s (31 ms); the SRTT is larger
    // (the radio queue fills as the window grows).
    let min_rtt_ue = figure(rep, "min_rtt_to_mobile_s");
    assert!(min_rtt_ue > 0.3 && min_rtt_ue < 0.34, "{min_rtt_ue}");
    let min_rtt_server = figure(rep, "min_rtt_to_server_s");
    assert!((0.08..0.09).contains(&min_rtt_server), "{min_rtt_server}");
    // The world counts the proxy's segments in the intercepted flow.
    let c = &split.sim.model.flow_counters[0];
    assert!(
        c.middlebox_absorbed > 0 && c.middlebox_packets_sent > 0,
        "{c:?}"
    );
    let info = split.sim.model.middleboxes().next().unwrap();
    assert_eq!(info.stats.packets_absorbed, info.stats.packets_seen);
}

#[test]
fn proxy_repairs_radio_losses_and_every_byte_arrives_once() {
    for seed in 1..=3 {
        let split = download(true, 0.04, seed);
        assert_eq!(split.ue_delivered, FILE as f64, "seed {seed}");
        assert!(split.sim.model.flow_counters[0].drops_link_loss > 0);
        let rep = split.proxy.as_ref().unwrap();
        assert!(figure(rep, "retransmissions_to_mobile") > 0.0);
        assert_eq!(split.server_retx, 0.0, "the server sees no radio loss");
        assert_eq!(figure(rep, "bytes_relayed_to_mobile"), FILE as f64);
    }
}

#[test]
fn proxy_world_same_seed_same_run() {
    let run = || {
        let o = download(true, 0.04, 5);
        (
            o.sim.events(),
            o.done_s,
            format!("{:?}", o.proxy),
            format!("{:?}", o.sim.model.flow_counters[0]),
        )
    };
    assert_eq!(run(), run());
}
