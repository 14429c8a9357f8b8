//! Radio link failure (T310) and RRC connection re-establishment.

use celltcp_engine::SimDuration;
use celltcp_net::handover::{HandoverCause, HandoverPolicy, HandoverResult};
use celltcp_net::medium::MediumRequest;
use celltcp_net::packet::{FlowId, NodeId};
use celltcp_net::queue::DropCause;

use super::harness::*;
use crate::cell::LteCellConfig;
use crate::channel::{LogDistance, PathLossModel, Position};
use crate::measurement::RlfConfig;
use crate::mobility::MobilityModel;
use crate::ran::{HandoverConfig, RanUe};

const UE: NodeId = NodeId(1);

/// A cell with a steep log-distance law, PL = 60 + 35·log10(d) dB: with 46 dBm and the
/// −95.458 dBm noise of 50 PRBs and a 9 dB noise figure, the SINR is 81.458 − 35·log10(d) dB:
/// below Q_out = −8 dB beyond 10^(89.458/35) = 359.7 m, above Q_in = −6 dB within 315.4 m.
fn steep(i: usize, x_m: f64) -> LteCellConfig {
    LteCellConfig {
        pathloss: PathLossModel::LogDistance(LogDistance::new(60.0, 1.0, 3.5).unwrap()),
        ..cell(i, x_m)
    }
}

fn sinr_db(d_m: f64) -> f64 {
    46.0 - crate::channel::noise_power_dbm(50, 9.0).unwrap() - (60.0 + 35.0 * d_m.log10())
}

#[test]
fn a_ue_out_of_coverage_fails_after_t310_and_reestablishes_at_the_best_cell() {
    // Cell 0 at x = 0, cell 1 at x = 650 m. The UE drives from x = 250 m at 130 m/s and stops
    // at x = 380 m (t = 1 s): 380 m from cell 0, 270 m from cell 1. No A3.
    let ue = RanUe {
        node: UE,
        serving: 0,
        downlink_loss: None,
        mobility: MobilityModel::Waypoints {
            points: vec![
                (ms(0), Position::new(250.0, 0.0)),
                (ms(1000), Position::new(380.0, 0.0)),
            ],
        },
    };
    // Cell 1's RSRP at 270 m is 18.2 − 60 − 85.1 = −126.9 dBm per RE: below the default
    // q-RxLevMin; a permissive −140 dBm lets the UE select it.
    let handover = HandoverConfig {
        rlf: Some(RlfConfig::default()),
        reestablishment: SimDuration::from_ms(200),
        q_rxlevmin_dbm: -140.0,
        ..HandoverConfig::default()
    };
    let mut h = Harness::build(ran_config(
        vec![steep(0, 0.0), steep(1, 650.0)],
        vec![ue],
        handover,
    ));
    h.cbr(
        UE,
        FlowId(3),
        1000,
        SimDuration::from_ms(5),
        ms(0),
        ms(3500),
    );
    h.run_until(ms(4000));
    assert!(h.ran.errors().is_empty(), "{:?}", h.ran.errors());

    // Out of sync from x = 359.7 m, i.e. t = 0.8436 s: the first tick below Q_out is 0.88 s,
    // T310 (1 s) starts there and expires at 1.88 s.
    assert!(sinr_db(359.6) > -8.0 && sinr_db(359.8) < -8.0);
    let r = h.records();
    assert_eq!(r.len(), 1, "{r:?}");
    let r = &r[0];
    assert_eq!(r.cause, HandoverCause::RadioLinkFailure);
    assert_eq!(r.policy, HandoverPolicy::Discard);
    assert_eq!(r.decision, ms(1880));
    assert_eq!(r.command, Some(ms(1880)));
    // Re-established after 200 ms at cell 1 (270 m: −3.6 dB, better than cell 0's −8.8 dB).
    assert_eq!(r.attach, Some(ms(2080)));
    assert_eq!((r.source, r.target), (ENB0, NodeId(ENB0.0 + 1)));
    // Then the path switch: request at +5 ms, S-GW switch at +7 ms, release at +19 ms.
    assert_eq!(r.path_switch, Some(ms(2087)));
    assert_eq!(r.completion, Some(ms(2099)));
    assert_eq!(r.result, HandoverResult::Completed);
    assert!(h.requests.iter().any(|(t, q)| *t == ms(2087)
        && *q
            == MediumRequest::PathSwitch {
                ue: UE,
                enb: NodeId(ENB0.0 + 1)
            }));
    let chart: Vec<&str> = h.events().iter().map(|e| e.message).collect();
    assert_eq!(
        chart,
        [
            "radio_link_failure",
            "rrc_connection_reestablishment",
            "path_switch_request",
            "modify_bearer_request",
            "end_marker",
            "modify_bearer_response",
            "path_switch_request_ack",
            "ue_context_release"
        ]
    );
    // Packets that reached cell 0 while the UE was away are lost to the handover; the
    // downlink resumes through cell 1.
    let lost = h.dropped_with(DropCause::Handover).len() as u64;
    let counted: u64 = r.flows.iter().map(|f| f.1.dropped).sum();
    assert!(lost > 30, "{lost}");
    assert_eq!(counted, lost);
    let after: Vec<_> = h
        .delivered
        .iter()
        .filter(|d| d.node == UE && d.time > ms(2150))
        .collect();
    assert!(after.len() > 100, "{}", after.len());
    assert_eq!(h.ran.serving_cell(UE), Some(1));
    assert_eq!(h.ran.is_attached(UE), Some(true));
}

#[test]
fn a_link_that_recovers_before_t310_does_not_fail() {
    // Out of sync from the tick at 0.88 s (x > 359.7 m); back in sync (x < 315.4 m) from
    // t = 1.665 s, i.e. at the tick at 1.68 s, before T310 (1 s) would expire at 1.88 s.
    let ue = RanUe {
        node: UE,
        serving: 0,
        downlink_loss: None,
        mobility: MobilityModel::Waypoints {
            points: vec![
                (ms(0), Position::new(250.0, 0.0)),
                (ms(1000), Position::new(380.0, 0.0)),
                (ms(1100), Position::new(380.0, 0.0)),
                (ms(1800), Position::new(300.0, 0.0)),
            ],
        },
    };
    let handover = HandoverConfig {
        rlf: Some(RlfConfig::default()),
        ..HandoverConfig::default()
    };
    let mut h = Harness::build(ran_config(vec![steep(0, 0.0)], vec![ue], handover));
    h.run_until(ms(4000));
    assert!(h.records().is_empty(), "{:?}", h.records());
}

/// RSRP per resource element of a `steep` cell at `d_m`: 46 dBm over 600 REs, PL = 60 + 35·log10(d).
fn rsrp_dbm(d_m: f64) -> f64 {
    46.0 - 10.0 * 600f64.log10() - (60.0 + 35.0 * d_m.log10())
}

#[test]
fn without_a_suitable_cell_the_ue_stays_out_of_service_until_one_appears() {
    // As above, but with the default q-RxLevMin (−124 dBm): at x = 380 m neither cell is
    // suitable (cell 1: −126.9 dBm, cell 0: −128.3 dBm), so the UE searches; from t = 3 s it
    // drives on at 110 m/s to x = 600 m (50 m from cell 1: −101.5 dBm) by t = 5 s and
    // re-establishes there once its filtered RSRP crosses −124 dBm: beyond x = 427 m (223 m
    // from cell 1), reached at t = 3.43 s, plus the layer-3 filter's lag.
    assert!(rsrp_dbm(270.0) < -124.0 && rsrp_dbm(380.0) < -124.0 && rsrp_dbm(50.0) > -124.0);
    let ue = RanUe {
        node: UE,
        serving: 0,
        downlink_loss: None,
        mobility: MobilityModel::Waypoints {
            points: vec![
                (ms(0), Position::new(250.0, 0.0)),
                (ms(1000), Position::new(380.0, 0.0)),
                (ms(3000), Position::new(380.0, 0.0)),
                (ms(5000), Position::new(600.0, 0.0)),
            ],
        },
    };
    let handover = HandoverConfig {
        rlf: Some(RlfConfig::default()),
        reestablishment: SimDuration::from_ms(200),
        ..HandoverConfig::default()
    };
    let mut h = Harness::build(ran_config(
        vec![steep(0, 0.0), steep(1, 650.0)],
        vec![ue],
        handover,
    ));
    h.cbr(
        UE,
        FlowId(3),
        1000,
        SimDuration::from_ms(5),
        ms(0),
        ms(5000),
    );
    h.run_until(ms(5500));
    assert!(h.ran.errors().is_empty(), "{:?}", h.ran.errors());
    let r = h.records();
    assert_eq!(r.len(), 1, "{r:?}");
    let r = &r[0];
    assert_eq!(r.cause, HandoverCause::RadioLinkFailure);
    assert_eq!(r.command, Some(ms(1880)));
    // Nothing between the failure and the UE's return to coverage: no data, no attach.
    let attach = r.attach.expect("re-established once in coverage");
    assert!(attach > ms(3430) && attach < ms(4000), "{attach:?}");
    assert_eq!(r.target, NodeId(ENB0.0 + 1));
    assert!(!h
        .delivered
        .iter()
        .any(|d| d.node == UE && d.time > ms(1900) && d.time < ms(3000)));
    assert_eq!(h.ran.serving_cell(UE), Some(1));
    assert_eq!(h.ran.is_attached(UE), Some(true));
}
