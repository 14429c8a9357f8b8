//! X2-U data forwarding and the S1 path switch of an LTE handover (TS 36.300 §10.1.2.1.1–2) on
//! the toy radio access network of [`x2_toy`]: a forwarded G-PDU keeps its PDCP count across
//! the router; the end marker of the old S1 tunnel (TS 29.281 §7.3.2) follows every packet
//! still in it while new data takes the target's tunnel; forwarding then switching delivers
//! every datagram once; and the same inputs give the same timeline.

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::medium::{MediumRequest, TunnelArrival};
use celltcp_net::packet::FlowId;
use celltcp_net::packet::{GtpMessage, NodeId, NO_FLOW};

mod common;
mod x2_toy;
use x2_toy::*;

/// One forwarded packet and the end marker after it cross enb1 → router → enb2 on an idle path.
/// The G-PDU is 1028 + 44 bytes (outer IPv4, UDP, GTP-U with the PDCP PDU Number extension):
/// 857.6 µs at 10 Mb/s on each of two links, plus 3 + 4 ms. The 36-byte end marker waits
/// behind it on both links.
#[test]
fn forwarded_data_reaches_the_target_with_its_pdcp_count_after_crossing_the_router_twice() {
    let pkt = datagram(0);
    let script = vec![
        (
            ms(100),
            Action::Request(MediumRequest::Forward {
                from: ENB1,
                to: ENB2,
                pkt,
                pdcp_count: Some(7),
            }),
        ),
        (
            ms(100),
            Action::Request(MediumRequest::ForwardEndMarker {
                from: ENB1,
                to: ENB2,
                ue: UE,
            }),
        ),
    ];
    let mut run = build(Setup {
        script,
        ..Default::default()
    });
    run_until(&mut run.sim, ms(200));
    let arrivals = tunnel_arrivals(&run.log);
    let g_pdu = 1028 + 44;
    let t_data = ms(100) + SimDuration::from_ns(2 * tx_10m(g_pdu) + 7_000_000);
    assert_eq!(
        arrivals[0],
        (
            t_data,
            ENB2,
            UE,
            TunnelArrival::Forwarded {
                pkt,
                pdcp_count: Some(7)
            }
        ),
        "the inner packet as it was handed over"
    );
    // The end marker leaves enb1 when the G-PDU has, and router → enb2 likewise.
    let t_marker = t_data + SimDuration::from_ns(tx_10m(36));
    assert_eq!(
        arrivals[1],
        (
            t_marker,
            ENB2,
            UE,
            TunnelArrival::EndMarker {
                from_gateway: false
            }
        )
    );
    assert_eq!(arrivals.len(), 2);
    let dirs = &run.sim.model.dirs;
    for d in [ENB1_TO_ROUTER, ROUTER_TO_ENB2] {
        assert_eq!(
            (dirs[d].stats.packets_sent, dirs[d].stats.bytes_sent),
            (2, g_pdu + 36)
        );
    }
    // The target's first TEID (it serves no UE yet), for both the G-PDU and the end marker.
    let x_b = run.x_b.borrow();
    let want_tunnel = |m| (addr(ENB2), 1, m);
    let seen: Vec<_> = x_b.iter().map(|c| (c.1, c.2, c.3)).collect();
    assert_eq!(
        seen,
        vec![
            want_tunnel(GtpMessage::GPdu),
            want_tunnel(GtpMessage::EndMarker)
        ]
    );
    assert_eq!((x_b[0].4, x_b[1].4), (FlowId(0), NO_FLOW));
    let epc = run.sim.model.epc().unwrap();
    let (enb1, enb2) = (epc.endpoint_stats(ENB1), epc.endpoint_stats(ENB2));
    assert_eq!((enb1.encapsulated, enb1.end_markers), (1, 1));
    assert_eq!((enb2.decapsulated, enb2.end_markers), (1, 1));
    // The medium delivered the forwarded packet to the UE: it counts for its flow.
    let f = &run.sim.model.flow_counters[0];
    assert_eq!(
        (f.packets_delivered, f.bytes_delivered, f.drops()),
        (1, 1028, 0)
    );
    assert!(run.sim.model.errors().is_empty());
}

/// Bursts of 20 datagrams every 20 ms: the 10 Mb/s router → enb1 link needs 17 ms per burst,
/// so at the path switch at 520 ms (the burst sent at 500 ms reached the router from 512.2 ms)
/// the old tunnel still holds about half of that burst. The end marker the gateway sends then
/// queues behind it; datagrams tunnelled after the switch go to enb2.
#[test]
fn the_end_marker_follows_every_packet_of_the_old_tunnel_and_new_data_goes_to_the_target() {
    let mut run = build(Setup {
        script: switch_script(ms(520)),
        burst: 20,
        ..Default::default()
    });
    run_until(&mut run.sim, ms(2_000));
    let log = run.log.borrow();
    let marker_at = log
        .iter()
        .position(|s| {
            matches!(
                s,
                Seen::Tunnel {
                    arrival: TunnelArrival::EndMarker { .. },
                    ..
                }
            )
        })
        .expect("an end marker reached enb1");
    let Seen::Tunnel {
        t: marker_t,
        at,
        ue,
        arrival,
    } = log[marker_at].clone()
    else {
        unreachable!()
    };
    assert_eq!(
        (at, ue, arrival),
        (ENB1, UE, TunnelArrival::EndMarker { from_gateway: true })
    );
    let sends = |enb: NodeId| -> Vec<(SimTime, u64)> {
        log.iter()
            .filter_map(|s| match s {
                Seen::Send { t, enb: e, app_seq } if *e == enb => Some((*t, *app_seq)),
                _ => None,
            })
            .collect()
    };
    let (at_enb1, at_enb2) = (sends(ENB1), sends(ENB2));
    // Every packet enb1 received came before the end marker, and some of them after the switch:
    // they were in the old tunnel when it was switched.
    assert!(log[marker_at + 1..]
        .iter()
        .all(|s| !matches!(s, Seen::Send { enb: ENB1, .. })));
    let in_old_tunnel = at_enb1.iter().filter(|(t, _)| *t > ms(520)).count();
    assert!(
        in_old_tunnel >= 10,
        "{in_old_tunnel} packets were in the old tunnel"
    );
    assert!(marker_t > at_enb1.last().unwrap().0);
    // After the switch new downlink packets go to enb2, and the two sets make up the flow in
    // order, each datagram once.
    assert!(at_enb2.iter().all(|(t, _)| *t > ms(520)));
    assert!(!at_enb2.is_empty());
    let seqs: Vec<u64> = at_enb1.iter().chain(&at_enb2).map(|(_, s)| *s).collect();
    assert_eq!(seqs, (0..1_000).collect::<Vec<u64>>());
    // On the wire: everything to enb1 under its TEID 1 and the end marker last, under the same
    // TEID; to enb2 under the TEID it allocated at the switch (its first).
    let x_a = run.x_a.borrow();
    let (last, data) = x_a.split_last().unwrap();
    assert_eq!(
        (last.1, last.2, last.3, last.4),
        (addr(ENB1), 1, GtpMessage::EndMarker, NO_FLOW)
    );
    assert!(data
        .iter()
        .all(|c| (c.1, c.2, c.3) == (addr(ENB1), 1, GtpMessage::GPdu)));
    assert!(run
        .x_b
        .borrow()
        .iter()
        .all(|c| (c.1, c.2, c.3) == (addr(ENB2), 1, GtpMessage::GPdu)));
    let bearer = *run.sim.model.epc().unwrap().bearer(UE).unwrap();
    assert_eq!((bearer.enb, bearer.dl_teid), (ENB2, 1));
    let epc = run.sim.model.epc().unwrap();
    assert_eq!(epc.endpoint_stats(GW).end_markers, 1);
    assert_eq!(epc.endpoint_stats(ENB1).end_markers, 1);
    assert_eq!(
        epc.endpoint_stats(ENB1).decapsulated + epc.endpoint_stats(ENB2).decapsulated,
        1_000
    );
    let f = &run.sim.model.flow_counters[0];
    assert_eq!(
        (f.packets_sent, f.packets_delivered, f.drops()),
        (1_000, 1_000, 0)
    );
    println!(
        "path switch at 520 ms: {in_old_tunnel} packets still in the old tunnel, end marker at enb1 at {marker_t}"
    );
}

/// Handover with forwarding: enb1 keeps what reaches it from 500 ms, forwards it to enb2 at
/// 530 ms with PDCP counts, then the path switches. Bursts of five every 20 ms: the one sent at
/// 480 ms has reached the UE by 499.5 ms, the one sent at 500 ms reaches enb1 from 515 ms and is
/// kept, the one sent at 520 ms reaches the gateway after the switch and takes the new path.
/// Every datagram reaches the UE once.
#[test]
fn forwarding_then_switching_delivers_every_packet_once() {
    let script = vec![
        (ms(500), Action::Buffer(ENB1)),
        (
            ms(530),
            Action::ForwardBuffered {
                from: ENB1,
                to: ENB2,
            },
        ),
        (
            ms(530),
            Action::Request(MediumRequest::PathSwitch { ue: UE, enb: ENB2 }),
        ),
    ];
    let mut run = build(Setup {
        script,
        burst: 5,
        ..Default::default()
    });
    run_until(&mut run.sim, ms(2_000));
    let arrivals = tunnel_arrivals(&run.log);
    let forwarded: Vec<(u64, Option<u32>)> = arrivals
        .iter()
        .filter_map(|(_, at, _, a)| match a {
            TunnelArrival::Forwarded { pkt, pdcp_count } if *at == ENB2 => {
                Some((pkt.app_seq, *pdcp_count))
            }
            _ => None,
        })
        .collect();
    // The burst sent at 500 ms (datagrams 125 to 129), with PDCP counts 100 to 104.
    let want: Vec<(u64, Option<u32>)> = (0..5).map(|i| (125 + i, Some(100 + i as u32))).collect();
    assert_eq!(forwarded, want);
    let markers: Vec<(NodeId, bool)> = arrivals
        .iter()
        .filter_map(|(_, at, _, a)| match a {
            TunnelArrival::EndMarker { from_gateway } => Some((*at, *from_gateway)),
            _ => None,
        })
        .collect();
    // The X2 end marker reaches enb2 after the forwarded data; the S1 one reaches enb1.
    assert!(markers.contains(&(ENB2, false)) && markers.contains(&(ENB1, true)));
    let x2_marker = arrivals
        .iter()
        .position(|(_, at, _, a)| *at == ENB2 && matches!(a, TunnelArrival::EndMarker { .. }))
        .unwrap();
    let last_forwarded = arrivals
        .iter()
        .rposition(|(_, _, _, a)| matches!(a, TunnelArrival::Forwarded { .. }))
        .unwrap();
    assert!(x2_marker > last_forwarded);
    let f = &run.sim.model.flow_counters[0];
    assert_eq!(
        (f.packets_sent, f.packets_delivered, f.drops()),
        (250, 250, 0)
    );
    let epc = run.sim.model.epc().unwrap();
    assert_eq!(epc.endpoint_stats(ENB1).encapsulated, 5);
    let sends_at_enb2 = run
        .log
        .borrow()
        .iter()
        .filter(|s| matches!(s, Seen::Send { enb: ENB2, .. }))
        .count();
    assert_eq!(
        sends_at_enb2,
        250 - 130,
        "the new path carries every datagram from the 520 ms burst on"
    );
    // The forwarding tunnel's TEID was enb2's first; the S1 path then took its second.
    assert_eq!(epc.bearer(UE).unwrap().dl_teid, 2);
    assert!(
        run.sim.model.errors().is_empty(),
        "{:?}",
        run.sim.model.errors()
    );
}

/// The same inputs give the same timeline, event for event.
#[test]
fn handover_plumbing_is_deterministic() {
    let timeline = || {
        let mut run = build(Setup {
            script: vec![
                (ms(300), Action::Buffer(ENB1)),
                (
                    ms(330),
                    Action::ForwardBuffered {
                        from: ENB1,
                        to: ENB2,
                    },
                ),
                (
                    ms(330),
                    Action::Request(MediumRequest::PathSwitch { ue: UE, enb: ENB2 }),
                ),
            ],
            burst: 20,
            ..Default::default()
        });
        run_until(&mut run.sim, ms(1_500));
        let log = run.log.borrow().clone();
        let caps = (run.x_a.borrow().clone(), run.x_b.borrow().clone());
        (log, caps)
    };
    let (a, b) = (timeline(), timeline());
    assert!(a.0.len() > 1_000);
    assert_eq!(a, b);
}
