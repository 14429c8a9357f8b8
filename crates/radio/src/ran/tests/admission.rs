//! Admission control at the target (TS 36.300 §10.1.2.1.1 step 5): a full cell refuses, the
//! source hears HANDOVER PREPARATION FAILURE, and A3 tries again after a new time to trigger.

use celltcp_engine::SimDuration;
use celltcp_net::handover::{HandoverCause, HandoverResult};
use celltcp_net::packet::NodeId;

use super::harness::*;
use crate::measurement::A3Config;
use crate::ran::{HandoverConfig, ManualHandover};

#[test]
fn a_full_target_refuses_and_a3_retries_until_it_has_room() {
    // Cells at 0 and 500 m, at most 2 UEs each. UE 1 (x = 450) is served by cell 0 but cell 1
    // is much stronger; cell 1 serves UEs 2 (x = 480) and 3 (x = 250, midway, never
    // triggering A3 either way). UE 3 is handed over to cell 0 at 1 s, which makes room.
    let ttt = SimDuration::from_ms(100);
    let handover = HandoverConfig {
        a3: Some(A3Config {
            offset_db: 3.0,
            hysteresis_db: 1.0,
            time_to_trigger: ttt,
        }),
        max_ues_per_cell: Some(2),
        manual: vec![ManualHandover {
            at: ms(1000),
            ue: NodeId(3),
            target: 0,
        }],
        ..HandoverConfig::default()
    };
    let cfg = ran_config(
        vec![cell(0, 0.0), cell(1, 500.0)],
        vec![
            fixed_ue(NodeId(1), 0, 450.0),
            fixed_ue(NodeId(2), 1, 480.0),
            fixed_ue(NodeId(3), 1, 250.0),
        ],
        handover,
    );
    let mut h = Harness::build(cfg);
    h.run_until(ms(2000));
    assert!(h.ran.errors().is_empty(), "{:?}", h.ran.errors());
    let ue1: Vec<_> = h
        .records()
        .into_iter()
        .filter(|r| r.ue == NodeId(1))
        .collect();
    let failed: Vec<_> = ue1
        .iter()
        .filter(|r| r.result == HandoverResult::PreparationFailed)
        .collect();
    let done: Vec<_> = ue1
        .iter()
        .filter(|r| r.result == HandoverResult::Completed)
        .collect();
    eprintln!(
        "UE 1: {} refused, then completed at decision {:?}",
        failed.len(),
        done.first().map(|r| r.decision)
    );
    assert!(failed.len() >= 3, "{ue1:?}");
    assert_eq!(done.len(), 1, "{ue1:?}");
    assert!(ue1.iter().all(|r| r.cause == HandoverCause::A3));
    for r in &failed {
        assert_eq!(r.command, None);
        assert_eq!(r.attach, None);
    }
    // Each retry needs a new time to trigger after the failure reached the source: the
    // failure arrives decision + x2 + admission + x2 = 12 ms after the decision, and the next
    // report can leave no earlier than one TTT later (plus the 7 ms of report and decision).
    for w in ue1.windows(2) {
        let gap = w[1].decision.saturating_since(w[0].decision);
        assert!(gap >= SimDuration::from_ms(12 + 100 + 7), "{gap}");
    }
    // The successful one was decided once UE 3 had left cell 1 (command at 1017 ms).
    assert!(done[0].decision > ms(1017));
    // The refusals are in the chart.
    let refusals = h
        .events()
        .iter()
        .filter(|e| e.message == "handover_preparation_failure")
        .count();
    assert_eq!(refusals, failed.len());
    assert_eq!(h.ran.serving_cell(NodeId(1)), Some(1));
    assert_eq!(h.ran.serving_cell(NodeId(3)), Some(0));
}
