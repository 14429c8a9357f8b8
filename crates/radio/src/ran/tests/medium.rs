//! The network as the world sees it: edges, routing errors, report, sample and parts.

use celltcp_engine::SimDuration;
use celltcp_net::medium::{Medium, MediumOutput, TunnelArrival};
use celltcp_net::packet::{FlowId, NodeId};
use celltcp_net::queue::DropCause;

use super::harness::*;
use crate::ran::{HandoverConfig, ManualHandover};

fn handed_over() -> Harness {
    let handover = HandoverConfig {
        manual: vec![ManualHandover {
            at: ms(500),
            ue: NodeId(1),
            target: 1,
        }],
        ..HandoverConfig::default()
    };
    let cfg = ran_config(
        vec![cell(0, 0.0), cell(1, 500.0)],
        vec![fixed_ue(NodeId(1), 0, 250.0), fixed_ue(NodeId(2), 1, 400.0)],
        handover,
    );
    let mut h = Harness::build(cfg);
    h.cbr(
        NodeId(1),
        FlowId(0),
        1500,
        SimDuration::from_us(2400),
        ms(0),
        ms(900),
    );
    h.run_until(ms(1000));
    h
}

#[test]
fn edges_are_every_enb_with_every_ue() {
    let h = handed_over();
    assert_eq!(
        h.ran.edges(),
        [(10, 1), (10, 2), (11, 1), (11, 2)].map(|(e, u)| (NodeId(e), NodeId(u)))
    );
    let parts = h.ran.parts();
    assert_eq!(parts.len(), 2);
    assert_eq!((parts[0].name(), parts[1].name()), ("c0", "c1"));
}

#[test]
fn strangers_are_not_routed() {
    let mut h = handed_over();
    let mut out = MediumOutput::default();
    let now = ms(1000);
    // An eNB that is not in the network, a UE that is not in it, a never-related eNB.
    h.ran.send(
        now,
        NodeId(99),
        NodeId(1),
        packet(9_001, NodeId(1), FlowId(0), 100),
        &mut out,
    );
    h.ran.send(
        now,
        NodeId(10),
        NodeId(42),
        packet(9_002, NodeId(42), FlowId(0), 100),
        &mut out,
    );
    let arrival = TunnelArrival::Forwarded {
        pkt: packet(9_003, NodeId(1), FlowId(0), 100),
        pdcp_count: Some(3),
    };
    h.ran
        .tunnel_receive(now, NodeId(99), NodeId(1), arrival, &mut out);
    let causes: Vec<_> = out.dropped.iter().map(|d| (d.0.uid, d.1)).collect();
    assert_eq!(
        causes,
        [
            (9_001, DropCause::NoRoute),
            (9_002, DropCause::NoRoute),
            (9_003, DropCause::NoRoute)
        ]
    );
    // Cell 0 served UE 1 before the handover: a late packet there is a handover loss.
    out.dropped.clear();
    h.ran.send(
        now,
        NodeId(10),
        NodeId(1),
        packet(9_004, NodeId(1), FlowId(0), 100),
        &mut out,
    );
    assert_eq!(out.dropped[0].1, DropCause::Handover);
    // Cell 0 never served UE 2: no route.
    h.ran.send(
        now,
        NodeId(10),
        NodeId(2),
        packet(9_005, NodeId(2), FlowId(0), 100),
        &mut out,
    );
    assert_eq!(out.dropped[1].1, DropCause::NoRoute);
    assert!(out.delivered.is_empty() && out.requests.is_empty());
}

#[test]
fn report_and_sample_describe_the_network() {
    let h = handed_over();
    let report = h.ran.report(ms(1000));
    let get = |k: &str| report.iter().find(|f| f.0 == k).map(|f| f.1);
    let r = &h.records()[0];
    let forwarded: u64 = r.flows.iter().map(|f| f.1.forwarded).sum();
    assert_eq!(get("handovers"), Some(1.0));
    assert_eq!(get("handovers_completed"), Some(1.0));
    assert_eq!(get("handovers_preparation_failed"), Some(0.0));
    assert_eq!(get("radio_link_failures"), Some(0.0));
    assert_eq!(get("packets_forwarded"), Some(forwarded as f64));
    assert!(forwarded > 0);

    let mut sample = Vec::new();
    h.ran.sample(ms(1000), &mut sample);
    let get = |k: &str| sample.iter().find(|f| f.0 == k).map(|f| f.1);
    assert_eq!(get("ue.1.serving"), Some(1.0));
    assert_eq!(get("ue.2.serving"), Some(1.0));
    // 250 m from both cells: the same RSRP from each.
    let (a, b) = (get("ue.1.rsrp.c0").unwrap(), get("ue.1.rsrp.c1").unwrap());
    assert!((a - b).abs() < 1e-9, "{a} {b}");
    assert_eq!(Some(a), h.ran.filtered_rsrp_dbm(NodeId(1), 0));
    // The cells' own figures follow, prefixed with their names.
    assert!(get("c0/prbs_used").is_some() && get("c1/prbs_used").is_some());
    assert!(sample.iter().any(|f| f.0 == "c1/ue.1.sdus_delivered"));
}
