//! What the network does with handover requests it cannot carry out, on the toy radio access
//! network of [`x2_toy`]: an end marker dropped at a full queue counts for no flow, impossible
//! requests are recorded as errors (and their packets as drops), X2-U decapsulation follows
//! RFC 6040 like S1-U, and the names GTP-U interfaces carry in summaries.

use std::net::Ipv4Addr;

use celltcp_engine::SimTime;
use celltcp_net::agent::{Agent, AgentCtx, ReportEntry};
use celltcp_net::gtp::{EcnDecap, EpcConfig};
use celltcp_net::medium::{MediumRequest, TunnelArrival};
use celltcp_net::packet::{Ecn, FlowId, GtpInterface, GtpMessage, GtpTunnel, NodeId, Packet};
use celltcp_net::world::{RequestFailure, WorldBuilder};

mod common;
use common::udp;
mod x2_toy;
use x2_toy::*;

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
    run_until(&mut run.sim, ms(2_000));
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
        req(MediumRequest::PathSwitch {
            ue: UE,
            enb: NodeId(99),
        }),
        req(MediumRequest::Forward {
            from: ROUTER,
            to: ENB2,
            pkt: datagram(1),
            pdcp_count: None,
        }),
        req(MediumRequest::Forward {
            from: ENB1,
            to: NodeId(1_000),
            pkt: datagram(2),
            pdcp_count: None,
        }),
        req(MediumRequest::ForwardEndMarker {
            from: ENB1,
            to: ENB2,
            ue: NodeId(u32::MAX),
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
    run_until(&mut run.sim, ms(200));
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
    run_until(&mut bare.sim, ms(200));
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
            let mut p = udp(FlowId(0), addr(SERVER), addr(UE), 100, i as u64, ctx.now());
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
    // The nodes of the toy network, but one link only: the server injects straight into enb2.
    add_nodes(&mut b);
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
    add_server_agent(&mut b, flow, "inject", Box::new(X2Injector(sent)));
    add_ue_sink(&mut b, flow);
    let mut sim = start(b);
    run_until(&mut sim, ms(100));
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
