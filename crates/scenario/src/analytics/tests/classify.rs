//! Outcome classes, the window's edges and the spurious-timeout rule.

use celltcp_net::trace::TraceVar;

use super::*;
use crate::analytics::TcpOutcome;

#[test]
fn rto_in_window_is_a_timeout() {
    let mut t = trace_srtt_50ms();
    t.event(2_120 * MS, TraceVar::RetxFast);
    t.event(2_150 * MS, TraceVar::RetxRto);
    t.event(2_160 * MS, TraceVar::RetxRto);
    let row = one(3, &t);
    assert_eq!(row.outcome, TcpOutcome::Timeout);
    assert_eq!((row.rto_retransmissions, row.fast_retransmissions), (2, 1));
    assert_secs(row.first_rto_s, 2.15);
    assert_secs(Some(row.start_s), 2.0);
    assert_secs(Some(row.window_end_s), 2.2);
    assert_eq!(row.rtt_before_s, Some(0.05));
}

#[test]
fn fast_retransmit_in_window_is_a_halving() {
    let mut t = trace_srtt_50ms();
    t.event(2_120 * MS, TraceVar::RetxFast);
    let row = one(3, &t);
    assert_eq!(row.outcome, TcpOutcome::Halving);
    assert_eq!((row.rto_retransmissions, row.fast_retransmissions), (0, 1));
    assert_eq!(row.first_rto_s, None);
}

#[test]
fn entering_fast_recovery_is_a_halving() {
    let mut t = trace_srtt_50ms();
    t.row(S, FLOW, TraceVar::CcState, 1.0);
    t.row(2_080 * MS, FLOW, TraceVar::CcState, 2.0);
    let row = one(3, &t);
    assert_eq!(row.outcome, TcpOutcome::Halving);
    assert_eq!(row.fast_retransmissions, 0);
}

#[test]
fn staying_in_fast_recovery_is_not_an_entry() {
    // Fast recovery entered before the handover; the row in the window repeats the state.
    let mut t = trace_srtt_50ms();
    t.row(1_500 * MS, FLOW, TraceVar::CcState, 2.0);
    t.row(2_100 * MS, FLOW, TraceVar::CcState, 2.0);
    // Leaving for congestion avoidance is not an entry either.
    t.row(2_150 * MS, FLOW, TraceVar::CcState, 1.0);
    assert_eq!(one(3, &t).outcome, TcpOutcome::Unaffected);
}

#[test]
fn events_outside_the_window_are_none() {
    let mut t = trace_srtt_50ms();
    t.event(1_990 * MS, TraceVar::RetxFast);
    t.event(2_000 * MS - 1, TraceVar::RetxRto);
    t.event(2_200 * MS + 1, TraceVar::RetxRto);
    t.event(2_300 * MS, TraceVar::RetxFast);
    t.row(2_400 * MS, FLOW, TraceVar::CcState, 2.0);
    let row = one(3, &t);
    assert_eq!(row.outcome, TcpOutcome::Unaffected);
    assert_eq!(row.outcome.as_str(), "none");
    assert_eq!((row.rto_retransmissions, row.fast_retransmissions), (0, 0));
    assert!(!row.spurious_rto);
}

#[test]
fn window_includes_both_edges() {
    for (t_ns, counted) in [
        (2_000 * MS, true),
        (2_000 * MS - 1, false),
        (2_200 * MS, true),
        (2_200 * MS + 1, false),
    ] {
        let mut t = trace_srtt_50ms();
        t.event(t_ns, TraceVar::RetxRto);
        let row = one(3, &t);
        assert_eq!(
            row.outcome == TcpOutcome::Timeout,
            counted,
            "RTO at {t_ns} ns"
        );
    }
}

#[test]
fn window_tail_scales_with_k_rtt_and_srtt() {
    let mut t = trace_srtt_50ms();
    t.event(2_150 * MS, TraceVar::RetxRto);
    let k0 = AnalyticsConfig {
        k_rtt: 0.0,
        ..AnalyticsConfig::default()
    };
    let row = &run(&[record(0, 3)], &t, RUN_END, k0)[0];
    assert_secs(Some(row.window_end_s), 2.1);
    assert_eq!(row.outcome, TcpOutcome::Unaffected);
    // k = 4: the window ends at 2.1 + 4 × 0.05 = 2.3 s.
    let k4 = AnalyticsConfig {
        k_rtt: 4.0,
        ..AnalyticsConfig::default()
    };
    let row = &run(&[record(0, 3)], &t, RUN_END, k4)[0];
    assert_secs(Some(row.window_end_s), 2.3);
    assert_eq!(row.outcome, TcpOutcome::Timeout);
}

#[test]
fn srtt_is_taken_at_or_before_start() {
    let mut t = Trace::default();
    // Without an srtt yet the window ends at the completion.
    t.event(2_150 * MS, TraceVar::RetxRto);
    let row = one(3, &t);
    assert_eq!(row.rtt_before_s, None);
    assert_secs(Some(row.window_end_s), 2.1);
    assert_eq!(row.outcome, TcpOutcome::Unaffected);
    // A sample exactly at the start counts; a later one does not.
    t.row(2_000 * MS, FLOW, TraceVar::Srtt, 0.04);
    t.row(2_001 * MS, FLOW, TraceVar::Srtt, 1.0);
    let row = one(3, &t);
    assert_eq!(row.rtt_before_s, Some(0.04));
    assert_secs(Some(row.window_end_s), 2.18);
    assert_eq!(row.outcome, TcpOutcome::Timeout);
}

#[test]
fn window_is_clipped_to_the_end_of_the_run() {
    let mut t = trace_srtt_50ms();
    t.event(2_150 * MS, TraceVar::RetxRto);
    let row = &run(&[record(0, 3)], &t, 2_120 * MS, AnalyticsConfig::default())[0];
    assert_secs(Some(row.window_end_s), 2.12);
    assert_eq!(row.outcome, TcpOutcome::Unaffected);
}

#[test]
fn timeout_with_losses_and_no_undo_is_not_spurious() {
    let mut t = trace_srtt_50ms();
    t.event(2_150 * MS, TraceVar::RetxRto);
    // An undo after the window does not count.
    t.event(2_500 * MS, TraceVar::SpuriousUndo);
    let row = one(3, &t);
    assert_eq!(row.outcome, TcpOutcome::Timeout);
    assert!(!row.spurious_rto);
}

#[test]
fn timeout_undone_by_the_sender_is_spurious() {
    let mut t = trace_srtt_50ms();
    t.event(2_150 * MS, TraceVar::RetxRto);
    t.event(2_190 * MS, TraceVar::SpuriousUndo);
    let row = one(3, &t);
    assert_eq!(row.dropped, 3);
    assert!(row.spurious_rto);
}

#[test]
fn timeout_without_handover_losses_is_spurious() {
    let mut t = trace_srtt_50ms();
    t.event(2_150 * MS, TraceVar::RetxRto);
    assert!(one(0, &t).spurious_rto);
    // A flow the record does not list lost nothing in the record's view.
    let mut rec = record(0, 3);
    rec.flows.clear();
    let row = &run(&[rec], &t, RUN_END, AnalyticsConfig::default())[0];
    assert_eq!(
        (row.forwarded, row.dropped, row.duplicated, row.reordered),
        (0, 0, 0, 0)
    );
    assert!(row.spurious_rto);
}

#[test]
fn timeout_after_a_network_drop_is_not_spurious() {
    // The handover lost nothing (dropped = 0) but a router queue dropped a packet of the flow
    // at 2.12 s, before the RTO at 2.15 s: the timeout repaired a real loss.
    let mut t = trace_srtt_50ms();
    t.row(2_120 * MS, FLOW, TraceVar::Dropped, 0.0);
    t.event(2_150 * MS, TraceVar::RetxRto);
    assert!(!one(0, &t).spurious_rto);
    // So does a drop between the decision (1.95 s) and the command: the procedure had begun.
    let mut t = trace_srtt_50ms();
    t.row(1_990 * MS, FLOW, TraceVar::Dropped, 0.0);
    t.event(2_150 * MS, TraceVar::RetxRto);
    assert!(!one(0, &t).spurious_rto);
    // A drop after the first RTO (or before the decision) does not count.
    let mut t = trace_srtt_50ms();
    t.row(1_940 * MS, FLOW, TraceVar::Dropped, 0.0);
    t.event(2_150 * MS, TraceVar::RetxRto);
    t.row(2_160 * MS, FLOW, TraceVar::Dropped, 0.0);
    assert!(one(0, &t).spurious_rto);
    // Another flow's drop does not count either.
    let mut t = trace_srtt_50ms();
    t.row(2_120 * MS, FLOW + 1, TraceVar::Dropped, 0.0);
    t.event(2_150 * MS, TraceVar::RetxRto);
    assert!(one(0, &t).spurious_rto);
}

#[test]
fn halving_is_never_a_spurious_timeout() {
    let mut t = trace_srtt_50ms();
    t.event(2_120 * MS, TraceVar::RetxFast);
    t.event(2_130 * MS, TraceVar::SpuriousUndo);
    let row = one(0, &t);
    assert_eq!(row.outcome, TcpOutcome::Halving);
    assert!(!row.spurious_rto);
}
