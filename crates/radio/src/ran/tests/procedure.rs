//! The message chart of a manual handover under each data-path policy, against golden lists
//! computed by hand from the default latencies (TS 36.300 Fig. 10.1.2.1.1-1; seed 000 Fig. 5
//! and 6): measurement report 5 ms, decision 2, X2 5, admission 2, RRC 5, detach and
//! synchronisation 30, random access 10, S1 5, S11 2.

use celltcp_engine::SimDuration;
use celltcp_net::handover::{HandoverCause, HandoverResult};
use celltcp_net::medium::MediumRequest;
use celltcp_net::packet::{FlowId, NodeId};

use super::harness::*;
use crate::ran::{HandoverConfig, ManualHandover, PathSwitchPrediction};
use celltcp_net::handover::HandoverPolicy;

const UE: NodeId = NodeId(1);
const SRC: NodeId = ENB0;
const TGT: NodeId = NodeId(ENB0.0 + 1);
const GW: NodeId = GATEWAY;

/// UE 1 midway between two cells, handed over from cell 0 to cell 1 at 1 s while a 5 Mbit/s
/// downlink flows.
fn run(policy: HandoverPolicy) -> Harness {
    run_predicted(policy, PathSwitchPrediction::default())
}

/// As [`run`], with the predictor of the predicted policy.
fn run_predicted(policy: HandoverPolicy, prediction: PathSwitchPrediction) -> Harness {
    let handover = HandoverConfig {
        policy,
        prediction,
        manual: vec![ManualHandover {
            at: ms(1000),
            ue: UE,
            target: 1,
        }],
        ..HandoverConfig::default()
    };
    let cfg = ran_config(
        vec![cell(0, 0.0), cell(1, 500.0)],
        vec![fixed_ue(UE, 0, 250.0)],
        handover,
    );
    let mut h = Harness::build(cfg);
    h.cbr(
        UE,
        FlowId(0),
        1500,
        SimDuration::from_us(2400),
        ms(0),
        ms(1400),
    );
    h.run_until(ms(1500));
    assert!(h.ran.errors().is_empty(), "{:?}", h.ran.errors());
    h
}

/// The chart as (time µs, message, from, to).
fn chart(h: &Harness) -> Vec<(u64, &'static str, NodeId, NodeId)> {
    h.events()
        .iter()
        .map(|e| (e.time.as_ns() / 1000, e.message, e.from, e.to))
        .collect()
}

fn at(ms: u64) -> u64 {
    ms * 1000
}

/// The preparation phase, common to every policy.
fn preparation() -> Vec<(u64, &'static str, NodeId, NodeId)> {
    vec![
        (at(1000), "handover_decision", SRC, SRC),
        (at(1005), "handover_request", SRC, TGT),
        (at(1007), "admission_control", TGT, TGT),
        (at(1012), "handover_request_ack", TGT, SRC),
    ]
}

fn standard_golden() -> Vec<(u64, &'static str, NodeId, NodeId)> {
    let mut g = preparation();
    g.extend([
        (at(1017), "handover_command", SRC, UE),
        (at(1022), "sn_status_transfer", SRC, TGT),
        (at(1057), "handover_confirm", UE, TGT),
        (at(1062), "path_switch_request", TGT, GW),
        (at(1064), "modify_bearer_request", GW, GW),
        (at(1064), "end_marker", GW, SRC),
        (at(1066), "modify_bearer_response", GW, GW),
        (at(1071), "path_switch_request_ack", GW, TGT),
        (at(1076), "ue_context_release", TGT, SRC),
    ]);
    g
}

fn check_record(
    h: &Harness,
    policy: HandoverPolicy,
    command: u64,
    path_switch: u64,
    completion: u64,
) {
    let records = h.records();
    assert_eq!(records.len(), 1);
    let r = &records[0];
    assert_eq!((r.id, r.ue, r.source, r.target), (0, UE, SRC, TGT));
    assert_eq!(r.cause, HandoverCause::Manual);
    assert_eq!(r.policy, policy);
    assert_eq!(r.result, HandoverResult::Completed);
    assert_eq!(r.decision, ms(1000));
    assert_eq!(r.command, Some(ms(command)));
    assert_eq!(r.path_switch, Some(ms(path_switch)));
    assert_eq!(r.completion, Some(ms(completion)));
    // Interruption: the command reached the UE → attach = detach_sync + random_access.
    assert_eq!(r.interruption(), Some(SimDuration::from_ms(40)));
    // The S-GW was asked to switch exactly once, when the modify bearer request arrived.
    let switches: Vec<_> = h
        .requests
        .iter()
        .filter(|(_, r)| matches!(r, MediumRequest::PathSwitch { .. }))
        .collect();
    assert_eq!(switches.len(), 1);
    assert_eq!(switches[0].0, ms(path_switch));
    assert_eq!(
        switches[0].1,
        MediumRequest::PathSwitch { ue: UE, enb: TGT }
    );
    assert_eq!(h.ran.serving_cell(UE), Some(1));
    assert_eq!(h.ran.is_attached(UE), Some(true));
}

#[test]
fn forward_follows_the_standard_chart() {
    let h = run(HandoverPolicy::Forward);
    assert_eq!(chart(&h), standard_golden());
    check_record(&h, HandoverPolicy::Forward, 1017, 1064, 1076);
}

#[test]
fn discard_follows_the_standard_chart() {
    let h = run(HandoverPolicy::Discard);
    assert_eq!(chart(&h), standard_golden());
    check_record(&h, HandoverPolicy::Discard, 1017, 1064, 1076);
}

#[test]
fn fast_path_switch_sends_the_path_switch_with_the_command() {
    let h = run(HandoverPolicy::FastPathSwitch);
    let mut g = preparation();
    g.extend([
        (at(1017), "handover_command", SRC, UE),
        (at(1017), "path_switch_request", SRC, GW),
        (at(1019), "modify_bearer_request", GW, GW),
        (at(1019), "end_marker", GW, SRC),
        (at(1021), "modify_bearer_response", GW, GW),
        (at(1022), "sn_status_transfer", SRC, TGT),
        (at(1026), "path_switch_request_ack", GW, TGT),
        (at(1057), "handover_confirm", UE, TGT),
        (at(1062), "ue_context_release", TGT, SRC),
    ]);
    assert_eq!(chart(&h), g);
    check_record(&h, HandoverPolicy::FastPathSwitch, 1017, 1019, 1062);
}

#[test]
fn prediction_switches_the_path_one_step_before_the_command() {
    let h = run_predicted(
        HandoverPolicy::Predicted,
        PathSwitchPrediction {
            step: SimDuration::from_ms(130),
            error_std: SimDuration::ZERO,
        },
    );
    let mut g = preparation();
    g.extend([
        (at(1017), "path_switch_request", SRC, GW),
        (at(1019), "modify_bearer_request", GW, GW),
        (at(1019), "end_marker", GW, SRC),
        (at(1021), "modify_bearer_response", GW, GW),
        (at(1026), "path_switch_request_ack", GW, TGT),
        (at(1147), "handover_command", SRC, UE),
        (at(1152), "sn_status_transfer", SRC, TGT),
        (at(1187), "handover_confirm", UE, TGT),
        (at(1192), "ue_context_release", TGT, SRC),
    ]);
    assert_eq!(chart(&h), g);
    check_record(&h, HandoverPolicy::Predicted, 1147, 1019, 1192);
}

#[test]
fn a_prediction_error_delays_the_path_switch_only() {
    let prediction = PathSwitchPrediction {
        step: SimDuration::from_ms(130),
        error_std: SimDuration::from_ms(20),
    };
    let h = run_predicted(HandoverPolicy::Predicted, prediction);
    let r = &h.records()[0];
    // The command still follows the ack by step + rrc; the switch by s1 + s11 + e, e ≥ 0.
    assert_eq!(r.command, Some(ms(1147)));
    let switch = r.path_switch.expect("switched");
    assert!(switch >= ms(1019), "{switch}");
    assert_ne!(switch, ms(1019), "a 20 ms error is never exactly zero");
    // Same seed, same error.
    let again = run_predicted(HandoverPolicy::Predicted, prediction);
    assert_eq!(again.records()[0].path_switch, Some(switch));
}

#[test]
fn a_late_sn_status_transfer_delays_the_attach() {
    // X2 slower than detach + synchronisation: the UE confirms at 40 ms after the command,
    // the SN status arrives at 50 ms, and the attach waits for it.
    let lat = crate::ran::HandoverLatencies {
        x2: SimDuration::from_ms(50),
        ..Default::default()
    };
    let handover = HandoverConfig {
        latencies: lat,
        manual: vec![ManualHandover {
            at: ms(1000),
            ue: UE,
            target: 1,
        }],
        ..HandoverConfig::default()
    };
    let cfg = ran_config(
        vec![cell(0, 0.0), cell(1, 500.0)],
        vec![fixed_ue(UE, 0, 250.0)],
        handover,
    );
    let mut h = Harness::build(cfg);
    h.run_until(ms(1500));
    let r = &h.records()[0];
    // Ack at 1000 + 50 + 2 + 50 = 1102, command 1107, confirm 1147, SN status 1157.
    assert_eq!(r.command, Some(ms(1107)));
    assert_eq!(r.attach, Some(ms(1157)));
    let confirm = h
        .events()
        .into_iter()
        .find(|e| e.message == "handover_confirm")
        .unwrap();
    assert_eq!(confirm.time, ms(1147));
}

#[test]
fn manual_handovers_to_the_serving_cell_or_during_another_are_ignored() {
    let handover = HandoverConfig {
        manual: vec![
            ManualHandover {
                at: ms(500),
                ue: UE,
                target: 0,
            },
            ManualHandover {
                at: ms(1000),
                ue: UE,
                target: 1,
            },
            ManualHandover {
                at: ms(1020),
                ue: UE,
                target: 0,
            },
            ManualHandover {
                at: ms(2000),
                ue: UE,
                target: 0,
            },
        ],
        ..HandoverConfig::default()
    };
    let cfg = ran_config(
        vec![cell(0, 0.0), cell(1, 500.0)],
        vec![fixed_ue(UE, 0, 250.0)],
        handover,
    );
    let mut h = Harness::build(cfg);
    h.run_until(ms(2500));
    let r = h.records();
    assert_eq!(r.len(), 2, "{r:?}");
    assert_eq!((r[0].source, r[0].target), (SRC, TGT));
    assert_eq!((r[1].source, r[1].target), (TGT, SRC));
    assert_eq!(r[1].decision, ms(2000));
    assert!(r.iter().all(|r| r.result == HandoverResult::Completed));
    assert_eq!(h.ran.serving_cell(UE), Some(0));
}
