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
    t.row(2_120 * MS, FlowId(FLOW.0 + 1), TraceVar::Dropped, 0.0);
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

#[test]
fn a_timeout_recovery_begun_before_the_handover_is_not_its_timeout() {
    // RTO at 1.90 s: the flow is in loss recovery (state 3) until 2.06 s and retransmits into
    // the window (command at 2.00 s). Those retransmissions are the earlier timeout's.
    let mut t = trace_srtt_50ms();
    t.row(1_900 * MS, FLOW, TraceVar::CcState, 3.0);
    t.event(1_900 * MS, TraceVar::RetxRto);
    t.event(2_010 * MS, TraceVar::RetxRto);
    t.event(2_040 * MS, TraceVar::RetxRto);
    t.row(2_060 * MS, FLOW, TraceVar::CcState, 1.0);
    let row = one(0, &t);
    assert_eq!(row.outcome, TcpOutcome::Unaffected);
    assert_eq!(row.rto_retransmissions, 0);
    // A new timeout after that recovery ended is the handover's.
    t.row(2_150 * MS, FLOW, TraceVar::CcState, 3.0);
    t.event(2_150 * MS, TraceVar::RetxRto);
    let row = one(0, &t);
    assert_eq!(row.outcome, TcpOutcome::Timeout);
    assert_eq!(row.rto_retransmissions, 1);
    assert!((row.first_rto_s.unwrap() - 2.15).abs() < 1e-9);
}

#[test]
fn a_predicted_handovers_window_opens_at_its_path_switch() {
    // Path switch at 1.97 s, 30 ms before the command: an RTO at 1.98 s is the handover's.
    let mut t = trace_srtt_50ms();
    t.event(1_980 * MS, TraceVar::RetxRto);
    let mut r = record(0, 0);
    r.path_switch = Some(SimTime(1_970 * MS));
    let rows = run(&[r], &t, 10 * S, AnalyticsConfig::default());
    assert_eq!(rows[0].outcome, TcpOutcome::Timeout);
    assert!((rows[0].first_rto_s.unwrap() - 1.98).abs() < 1e-9);
    // The window's start is the path switch, so the first RTO is 10 ms after it, not 20 ms
    // before the command.
    assert_secs(Some(rows[0].start_s), 1.97);
    assert!(rows[0].first_rto_s.unwrap() >= rows[0].start_s);
    // With the path switch after the command (forwarding), it is before the window.
    let row = one(0, &t);
    assert_eq!(row.outcome, TcpOutcome::Unaffected);
}

#[test]
fn every_drop_of_the_flow_is_placed_and_caused() {
    // The record lost 3 at the handover, 1 of them at the target; the network dropped the
    // flow's packets at the source eNB (node 100, a queue), a router (node 7, AQM), in a cell
    // (a link loss) — and one before the decision, which is not the handover's.
    let mut t = trace_srtt_50ms();
    let drop = |t: &mut Trace, at: u64, cause: f64, site: f64| {
        t.row(at, FLOW, TraceVar::Dropped, cause);
        t.row(at, FLOW, TraceVar::DropSite, site);
    };
    drop(&mut t, 1_900 * MS, 0.0, 7.0);
    drop(&mut t, 2_010 * MS, 0.0, 100.0);
    drop(&mut t, 2_020 * MS, 1.0, 7.0);
    drop(&mut t, 2_030 * MS, 2.0, -1.0);
    drop(&mut t, 2_040 * MS, 5.0, -1.0); // the procedure's own: counted from the record
    let mut r = record(0, 3);
    r.flows[0].1.dropped_at_target = 1;
    let row = &run(&[r], &t, 10 * S, AnalyticsConfig::default())[0];
    let d = row.drops;
    assert_eq!(
        (d.source, d.source_egress, d.transport, d.target, d.radio),
        (2, 1, 1, 1, 1)
    );
    assert_eq!(d.by_cause, [1, 1, 1, 0, 0, 3]);
    assert_eq!(row.dropped, 6);
    assert_eq!(d.columns().iter().take(5).map(|c| c.1).sum::<u64>(), 6);
}
