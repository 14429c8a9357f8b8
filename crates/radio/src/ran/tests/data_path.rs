//! What a handover does to the downlink packets under each policy, and to the uplink.

use std::collections::HashSet;

use celltcp_engine::SimDuration;
use celltcp_net::handover::HandoverRecord;
use celltcp_net::medium::MediumRequest;
use celltcp_net::packet::{FlowId, NodeId};
use celltcp_net::queue::DropCause;

use super::harness::*;
use crate::ran::{HandoverConfig, ManualHandover, PathSwitchPrediction};
use crate::rlc::BufferLimit;
use celltcp_net::handover::HandoverPolicy;

const UE: NodeId = NodeId(1);

/// A 5 Mbit/s downlink (1500-byte packets every 2.4 ms) from 0 to 2 s and an uplink packet
/// every 5 ms; a manual handover from cell 0 to cell 1 at 1 s; the run drains until 3 s.
fn run(handover: HandoverConfig) -> Harness {
    run_with_report(handover, true)
}

/// [`run`] with the cells' `pdcp.status_report_required` as given.
fn run_with_report(handover: HandoverConfig, status_report_required: bool) -> Harness {
    let handover = HandoverConfig {
        manual: vec![ManualHandover {
            at: ms(1000),
            ue: UE,
            target: 1,
        }],
        ..handover
    };
    let mut cells = vec![cell(0, 0.0), cell(1, 500.0)];
    for c in &mut cells {
        c.pdcp.status_report_required = status_report_required;
    }
    let cfg = ran_config(cells, vec![fixed_ue(UE, 0, 250.0)], handover);
    let mut h = Harness::build(cfg);
    h.cbr(
        UE,
        FlowId(7),
        1500,
        SimDuration::from_us(2400),
        ms(0),
        ms(2000),
    );
    h.uplink(UE, 60, SimDuration::from_ms(5), ms(0), ms(2000));
    h.run_until(ms(3000));
    assert!(h.ran.errors().is_empty(), "{:?}", h.ran.errors());
    h
}

fn flow7(r: &HandoverRecord) -> celltcp_net::handover::HandoverFlowCounts {
    r.flows
        .iter()
        .find(|f| f.0 == FlowId(7))
        .map(|f| f.1)
        .expect("flow 7 listed")
}

/// Forward requests with a PDCP COUNT (the source's unconfirmed PDUs) and without (fresh data).
fn forwards(h: &Harness) -> (usize, usize) {
    let mut n = (0, 0);
    for (_, r) in &h.requests {
        match r {
            MediumRequest::Forward {
                pdcp_count: Some(_),
                ..
            } => n.0 += 1,
            MediumRequest::Forward { .. } => n.1 += 1,
            _ => {}
        }
    }
    n
}

#[test]
fn forward_delivers_every_packet_once_and_in_order() {
    let h = run(HandoverConfig {
        policy: HandoverPolicy::Forward,
        ..HandoverConfig::default()
    });
    let sent = h.sent_to(UE);
    let got = h.delivered_to(UE);
    assert_eq!(got, sent, "every packet exactly once, in sending order");
    let r = &h.records()[0];
    let c = flow7(r);
    let (with_count, fresh) = forwards(&h);
    eprintln!(
        "forward: {} sent, {} forwarded ({with_count} with a COUNT), {} duplicates discarded \
         by PDCP",
        sent.len(),
        c.forwarded,
        c.duplicated
    );
    // Data reached the source from the command (1017 ms) until the end marker (the switch at
    // 1064 ms plus the 10 ms S1 delay): 57 ms / 2.4 ms ≈ 24 fresh packets were forwarded.
    assert!(
        (22..=25).contains(&fresh),
        "{fresh} fresh packets forwarded"
    );
    assert_eq!(c.forwarded as usize, with_count + fresh);
    // Every PDU the source had not seen acknowledged was forwarded; the UE's PDCP status report
    // told the target which of them the UE already had, so none reached it twice.
    assert_eq!(c.duplicated, 0, "{c:?}");
    assert_eq!((c.dropped, c.reordered), (0, 0), "{c:?}");
    assert!(h.dropped.is_empty(), "{:?}", h.dropped);
    // The source forwarded its end marker after its data.
    let last = h.requests.iter().rev().find(|(_, r)| {
        matches!(
            r,
            MediumRequest::Forward { .. } | MediumRequest::ForwardEndMarker { .. }
        )
    });
    assert!(matches!(
        last,
        Some((_, MediumRequest::ForwardEndMarker { .. }))
    ));
}

/// Measured: the source forwards 4 PDUs with a COUNT at the command (1017 ms), every one of
/// which the UE had already received — only their RLC STATUS was missing. Without the UE's
/// PDCP status report (TS 36.323 §5.4) the target sends all 4 again and the UE's PDCP discards
/// them as duplicates; with it the target discards them and sends none.
#[test]
fn the_pdcp_status_report_keeps_the_target_from_sending_what_the_ue_has() {
    let forward = HandoverConfig {
        policy: HandoverPolicy::Forward,
        ..HandoverConfig::default()
    };
    let duplicated = |report: bool| {
        let h = run_with_report(forward.clone(), report);
        assert_eq!(h.delivered_to(UE), h.sent_to(UE), "exactly once, in order");
        assert_eq!(forwards(&h).0, 4, "PDUs forwarded with a COUNT");
        flow7(&h.records()[0]).duplicated
    };
    assert_eq!(duplicated(false), 4);
    assert_eq!(duplicated(true), 0);
}
#[test]
fn uplink_packets_wait_at_the_ue_during_the_interruption() {
    let h = run(HandoverConfig::default());
    let r = &h.records()[0];
    let (command, attach) = (r.command.unwrap(), r.attach.unwrap());
    let up: Vec<_> = h.delivered.iter().filter(|d| d.node >= ENB0).collect();
    assert_eq!(up.len(), h.sent_up.len(), "no uplink packet lost");
    for d in &up {
        let sent_at = h.sent_up.iter().find(|s| s.0 == d.uid).unwrap().1;
        if sent_at >= command && sent_at < attach {
            assert_eq!(
                d.node,
                NodeId(ENB0.0 + 1),
                "sent during the interruption: via the target"
            );
            assert!(d.time > attach);
        }
        if sent_at >= attach {
            assert_eq!(d.node, NodeId(ENB0.0 + 1));
        }
    }
    let held = h
        .sent_up
        .iter()
        .filter(|s| s.1 >= command && s.1 < attach)
        .count();
    assert_eq!(held, 8, "40 ms of 5 ms uplink packets");
}

#[test]
fn discard_loses_the_source_buffer_and_the_packets_in_transit() {
    let h = run(HandoverConfig {
        policy: HandoverPolicy::Discard,
        ..HandoverConfig::default()
    });
    let sent = h.sent_to(UE);
    let got = h.delivered_to(UE);
    let lost = h.dropped_with(DropCause::Handover);
    let c = flow7(&h.records()[0]);
    // Every packet is delivered once or lost, never both; the lost are counted.
    let got_set: HashSet<u64> = got.iter().copied().collect();
    assert_eq!(got_set.len(), got.len(), "no duplicate delivery");
    assert!(lost.iter().all(|u| !got_set.contains(u)));
    assert_eq!(got.len() + lost.len(), sent.len());
    assert_eq!(c.dropped, lost.len() as u64);
    assert_eq!(c.forwarded, 0);
    assert!(h
        .requests
        .iter()
        .all(|(_, r)| matches!(r, MediumRequest::PathSwitch { .. })));
    // From the command (1017 ms) to the last packet of the old path (sent just before the
    // switch at 1064 ms, arriving 10 ms later) at 2.4 ms per packet: about 20 packets.
    assert!((18..=30).contains(&lost.len()), "{} lost", lost.len());
    assert!(got.windows(2).all(|w| w[0] < w[1]), "in order");
}

#[test]
fn a_tiny_target_buffer_overruns() {
    let h = run(HandoverConfig {
        policy: HandoverPolicy::Forward,
        target_buffer: BufferLimit::Sdus(4),
        ..HandoverConfig::default()
    });
    let sent = h.sent_to(UE);
    let got = h.delivered_to(UE);
    let lost = h.dropped_with(DropCause::Handover);
    let c = flow7(&h.records()[0]);
    // Forwarded packets arrive from 1025 ms; the UE attaches at 1057 ms: a dozen arrive
    // while only 4 fit.
    assert!(lost.len() >= 5, "{} lost", lost.len());
    assert_eq!(c.dropped, lost.len() as u64);
    assert_eq!(got.len() + lost.len(), sent.len());
    let got_set: HashSet<u64> = got.iter().copied().collect();
    assert!(lost.iter().all(|u| !got_set.contains(u)));
}

#[test]
fn without_reordering_new_path_data_overtake_forwarded_data() {
    let h = run(HandoverConfig {
        policy: HandoverPolicy::Forward,
        reordering: false,
        ..HandoverConfig::default()
    });
    let sent = h.sent_to(UE);
    let got = h.delivered_to(UE);
    let c = flow7(&h.records()[0]);
    let overtaken = got.windows(2).filter(|w| w[1] < w[0]).count();
    eprintln!(
        "no reordering: {} delivered of {}, {} reordered, {} lost",
        got.len(),
        sent.len(),
        c.reordered,
        c.dropped
    );
    assert!(overtaken > 0);
    assert!(c.reordered > 0);
    let mut sorted = got.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), got.len(), "never delivered twice");
    assert_eq!(got.len() as u64 + c.dropped, sent.len() as u64);
}

#[test]
fn prediction_lets_the_source_drain_before_the_command() {
    let forward = run(HandoverConfig {
        policy: HandoverPolicy::Forward,
        ..HandoverConfig::default()
    });
    let predicted = run(HandoverConfig {
        policy: HandoverPolicy::Predicted,
        prediction: PathSwitchPrediction {
            step: SimDuration::from_ms(130),
            error_std: SimDuration::ZERO,
        },
        ..HandoverConfig::default()
    });
    let fwd = flow7(&forward.records()[0]).forwarded;
    let pred = flow7(&predicted.records()[0]).forwarded;
    eprintln!("forwarded: standard {fwd}, predicted {pred}");
    // The path switched 128 ms before the command: the source emptied its buffer (the cell
    // serves 5 Mbit/s with room to spare), nothing is left to forward.
    assert_eq!(pred, 0);
    assert!(fwd > 10);
    assert_eq!(predicted.delivered_to(UE), predicted.sent_to(UE));
}

#[test]
fn fast_path_switch_forwards_less_than_the_standard_procedure() {
    let forward = run(HandoverConfig::default());
    let fast = run(HandoverConfig {
        policy: HandoverPolicy::FastPathSwitch,
        ..HandoverConfig::default()
    });
    let fwd = flow7(&forward.records()[0]).forwarded;
    let fps = flow7(&fast.records()[0]).forwarded;
    eprintln!("forwarded: standard {fwd}, fast path switch {fps}");
    assert!(fps < fwd);
    assert_eq!(fast.delivered_to(UE), fast.sent_to(UE));
}
