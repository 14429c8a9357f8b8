//! Records without a command, flow selection, row order, columns, counts and bad inputs.

use std::cell::Cell;

use celltcp_engine::SimTime;
use celltcp_net::trace::TraceVar;

use super::*;
use crate::analytics::{outcome_counts, AnalyticsError, HandoverColumns, TcpOutcome};

/// A handover whose preparation failed at 2.0 s: no command, attach or completion.
fn failed_preparation(id: u32) -> HandoverRecord {
    HandoverRecord {
        decision: SimTime(2_000 * MS),
        command: None,
        execution: None,
        attach: None,
        path_switch: None,
        completion: None,
        result: HandoverResult::PreparationFailed,
        flows: Vec::new(),
        ..record(id, 0)
    }
}

#[test]
fn failed_preparation_starts_at_the_decision() {
    let mut t = trace_srtt_50ms();
    t.deliver_every_ms(FLOW, 0, 4_000, 1_000.0);
    t.event(1_999 * MS, TraceVar::RetxFast);
    t.event(4_500 * MS, TraceVar::RetxFast);
    let row = &run(
        &[failed_preparation(0)],
        &t,
        RUN_END,
        AnalyticsConfig::default(),
    )[0];
    assert_secs(Some(row.start_s), 2.0);
    assert_eq!(
        (row.command_s, row.attach_s, row.completion_s),
        (None, None, None)
    );
    assert_eq!(row.interruption_s, None);
    // No attach or completion: the window runs to the end of the run (k srtt past it clipped).
    assert_secs(Some(row.window_end_s), 5.0);
    assert_eq!(row.outcome, TcpOutcome::Halving);
    assert_eq!(row.fast_retransmissions, 1);
    assert_eq!(row.delivered_bytes, None);
    // The flow never slowed down: recovered at the start, nothing to ramp.
    assert_secs(row.recovered_at_s, 2.0);
    assert_secs(row.recovery_time_s, 0.0);
    assert_secs(row.ramp_time_s, 0.0);
}

#[test]
fn only_tcp_flows_of_the_ue_get_rows_in_order() {
    let mut t = trace_srtt_50ms();
    t.event(2_150 * MS, TraceVar::RetxRto);
    // Record 5 lists the UDP flow 7 and TCP flow 1; record 2 lists nothing.
    let mut r5 = record(5, 3);
    r5.flows = vec![(FlowId(7), counts(9)), (FLOW, counts(3))];
    let r2 = failed_preparation(2);
    // UE 11 has no TCP flow.
    let mut other_ue = record(3, 0);
    other_ue.ue = NodeId(11);
    let calls = Cell::new(0);
    let flows_of = |ue: NodeId| {
        calls.set(calls.get() + 1);
        if ue == UE {
            vec![FlowId(3), FLOW, FLOW]
        } else {
            Vec::new()
        }
    };
    let rows = analyse(
        &[r5, other_ue, r2],
        flows_of,
        &t.vars,
        SimTime(RUN_END),
        AnalyticsConfig::default(),
    )
    .expect("valid inputs");
    let keys: Vec<(u32, u32)> = rows.iter().map(|r| (r.handover, r.flow.0)).collect();
    assert_eq!(keys, vec![(2, 1), (2, 3), (5, 1), (5, 3)]);
    assert_eq!(calls.get(), 2, "flows_of is asked once per UE");
    // Flow 3 is TCP but not in the record: zero counts.
    assert_eq!((rows[3].forwarded, rows[3].dropped), (0, 0));
    assert_eq!((rows[2].forwarded, rows[2].dropped), (12, 3));
    assert_eq!(rows[2].outcome, TcpOutcome::Timeout);
    // Flow 3 has no trace rows at all.
    assert_eq!(rows[3].outcome, TcpOutcome::Unaffected);
    assert_eq!(rows[3].rtt_before_s, None);
    assert_eq!(rows[3].goodput_before_bps, Some(0.0));
}

#[test]
fn counts_and_columns() {
    let mut t = trace_srtt_50ms();
    t.event(2_150 * MS, TraceVar::RetxRto);
    t.row(2_080 * MS, FlowId(2), TraceVar::RetxFast, 0.0);
    let mut r1 = record(1, 3);
    r1.cause = HandoverCause::RadioLinkFailure;
    let records = [record(0, 3), r1, failed_preparation(2)];
    let rows = analyse(
        &records,
        |_| vec![FLOW, FlowId(2), FlowId(4)],
        &t.vars,
        SimTime(RUN_END),
        AnalyticsConfig::default(),
    )
    .expect("valid inputs");
    assert_eq!(rows.len(), 9);
    // Flow 1: timeout in all three (the failed preparation's window runs to the end of the
    // run); flow 2 (no srtt, so its windows end at the completion): halving in all three;
    // flow 4: none.
    assert_eq!(outcome_counts(&rows), (3, 3, 3));
    assert_eq!(outcome_counts(&[]), (0, 0, 0));

    let cols = HandoverColumns::from(rows.as_slice());
    assert_eq!(cols.len(), 9);
    assert_eq!(cols.handover, vec![0, 0, 0, 1, 1, 1, 2, 2, 2]);
    assert_eq!(cols.flow, [1, 2, 4, 1, 2, 4, 1, 2, 4].map(FlowId));
    assert_eq!(cols.outcome[..3], ["timeout", "halving", "none"]);
    assert_eq!(cols.cause[3], "rlf");
    assert_eq!(cols.result[6], "preparation_failed");
    assert_eq!(cols.policy[0], "forward");
    assert_eq!(cols.command_s[6], None);
    assert_eq!(cols.rtt_before_s[0], Some(0.05));
    assert_eq!(cols.spurious_rto[..3], [false, false, false]);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(cols.window_end_s[i], row.window_end_s);
        assert_eq!(cols.delivered_bytes[i], row.delivered_bytes);
        assert_eq!(cols.recovery_time_s[i], row.recovery_time_s);
    }
    assert!(HandoverColumns::from(&[] as &[HandoverOutcome]).is_empty());
}

#[test]
fn bad_config_is_an_error_naming_the_key() {
    let t = trace_srtt_50ms();
    let rec = [record(0, 3)];
    for (cfg, key) in [
        (
            AnalyticsConfig {
                k_rtt: -1.0,
                ..AnalyticsConfig::default()
            },
            "k_rtt",
        ),
        (
            AnalyticsConfig {
                k_rtt: f64::NAN,
                ..AnalyticsConfig::default()
            },
            "k_rtt",
        ),
        (
            AnalyticsConfig {
                k_rtt: f64::INFINITY,
                ..AnalyticsConfig::default()
            },
            "k_rtt",
        ),
        (
            AnalyticsConfig {
                recovery_fraction: 0.0,
                ..AnalyticsConfig::default()
            },
            "recovery_fraction",
        ),
        (
            AnalyticsConfig {
                recovery_fraction: 1.5,
                ..AnalyticsConfig::default()
            },
            "recovery_fraction",
        ),
        (
            AnalyticsConfig {
                recovery_fraction: f64::NAN,
                ..AnalyticsConfig::default()
            },
            "recovery_fraction",
        ),
    ] {
        let err = analyse(&rec, |_| vec![FLOW], &t.vars, SimTime(RUN_END), cfg).unwrap_err();
        assert!(
            matches!(err, AnalyticsError::Config { key: k, .. } if k == key),
            "{err}"
        );
        assert!(
            err.to_string().starts_with(&format!("analytics.{key}: ")),
            "{err}"
        );
    }
    assert_eq!(
        AnalyticsConfig::default(),
        AnalyticsConfig {
            k_rtt: 2.0,
            recovery_fraction: 0.9
        }
    );
}

#[test]
fn ragged_trace_columns_are_an_error() {
    let mut t = trace_srtt_50ms();
    t.vars.value.pop();
    let err = analyse(
        &[record(0, 3)],
        |_| vec![FLOW],
        &t.vars,
        SimTime(RUN_END),
        AnalyticsConfig::default(),
    )
    .unwrap_err();
    assert_eq!(
        err,
        AnalyticsError::ColumnLengths {
            time_ns: 1,
            flow: 1,
            var: 1,
            value: 0
        }
    );
}

#[test]
fn rows_out_of_time_order_are_sorted() {
    let mut t = Trace::default();
    t.event(2_150 * MS, TraceVar::RetxRto);
    t.row(1_500 * MS, FLOW, TraceVar::Srtt, 0.05);
    t.row(1_000 * MS, FLOW, TraceVar::Srtt, 0.5);
    let row = one(3, &t);
    assert_eq!(row.rtt_before_s, Some(0.05));
    assert_eq!(row.outcome, TcpOutcome::Timeout);
}

#[test]
fn many_handovers_over_a_long_trace() {
    // 100 handovers of one UE, one per second (command at +500 ms, attach at +530 ms,
    // completion at +560 ms), srtt 100 ms. Flow 1 delivers 2500 B every 20 ms except from
    // +500 ms to +700 ms; a second flow's rows are interleaved; every third handover has an
    // RTO at +600 ms.
    let mut t = Trace::default();
    t.row(0, FLOW, TraceVar::Srtt, 0.1);
    let mut records = Vec::new();
    for h in 0..100u64 {
        let base = h * S;
        for ms in (0..1_000).step_by(20) {
            if !(500..700).contains(&ms) {
                t.deliver(base + ms * MS + 1, FLOW, 2_500.0);
            }
            t.deliver(base + ms * MS + 2, FlowId(2), 1_000.0);
        }
        if h % 3 == 0 {
            t.event(base + 600 * MS, TraceVar::RetxRto);
        }
        let mut rec = record(h as u32, 1);
        rec.decision = SimTime(base + 400 * MS);
        rec.command = Some(SimTime(base + 500 * MS));
        rec.attach = Some(SimTime(base + 530 * MS));
        rec.path_switch = Some(SimTime(base + 540 * MS));
        rec.completion = Some(SimTime(base + 560 * MS));
        records.push(rec);
    }
    let rows = run(&records, &t, 100 * S, AnalyticsConfig::default());
    assert_eq!(rows.len(), 100);
    assert_eq!(outcome_counts(&rows), (34, 0, 66));
    // First second: D(0.5 s) / 0.5 s = 25 × 2500 B / 0.5 s = 1 Mb/s, so g must reach
    // 0.9 × 1 Mb/s × 100 ms = 11250 B, i.e. 5 rows in the 100 ms window: first window
    // (+705 ms, +805 ms] on the 25 ms grid from +530 ms, so recovered_at is +705 ms. The RTO at
    // +600 ms is repaired by the delivery at +700 ms + 1 ns, before it.
    assert_secs(rows[0].goodput_before_bps.map(|g| g / 1e6), 1.0);
    assert_secs(rows[0].recovered_at_s, 0.705);
    assert_secs(rows[0].ramp_time_s, 0.705 - 0.700_000_001);
    for (h, row) in rows.iter().enumerate().skip(1) {
        let base = h as f64;
        // (start − 1 s, start] holds 15 rows of the previous second and 25 of this one:
        // 100 kB/s = 0.8 Mb/s, so 4 rows (10 kB ≥ 9 kB) suffice: first window (+680 ms,
        // +780 ms], recovered_at +680 ms.
        assert_secs(row.goodput_before_bps.map(|g| g / 1e6), 0.8);
        assert_secs(row.recovered_at_s, base + 0.68);
        assert_secs(row.recovery_time_s, 0.18);
        // That window starts before the first delivery after the gap (+700 ms + 1 ns), so a
        // ramp after the RTO at +600 ms runs from the RTO; without one, from the attach.
        let ramp = if h % 3 == 0 { 0.08 } else { 0.15 };
        assert_secs(row.ramp_time_s, ramp);
        // Nothing arrives from the start to attach + srtt (+630 ms).
        assert_eq!(row.delivered_bytes, Some(0));
    }
}
