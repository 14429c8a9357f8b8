//! RTT peak, goodput before the handover and data delivered across it.

use celltcp_engine::SimTime;
use celltcp_net::trace::TraceVar;

use super::*;

#[test]
fn rtt_peak_is_the_largest_sample_in_the_window() {
    let mut t = trace_srtt_50ms();
    t.row(1_900 * MS, FLOW, TraceVar::RttSample, 0.9);
    t.row(2_050 * MS, FLOW, TraceVar::RttSample, 0.12);
    t.row(2_100 * MS, FLOW, TraceVar::RttSample, 0.2);
    t.row(2_190 * MS, FLOW, TraceVar::RttSample, 0.15);
    t.row(2_195 * MS, FLOW, TraceVar::RttSample, f64::NAN);
    t.row(2_250 * MS, FLOW, TraceVar::RttSample, 0.8);
    // Another flow's samples are not this flow's.
    t.row(2_100 * MS, FlowId(2), TraceVar::RttSample, 5.0);
    let row = one(3, &t);
    assert_eq!(row.rtt_peak_s, Some(0.2));
    assert_eq!(row.rtt_before_s, Some(0.05));
}

#[test]
fn no_rtt_sample_in_the_window_gives_none() {
    let mut t = trace_srtt_50ms();
    t.row(1_900 * MS, FLOW, TraceVar::RttSample, 0.9);
    assert_eq!(one(3, &t).rtt_peak_s, None);
}

#[test]
fn goodput_before_is_the_last_second() {
    let mut t = trace_srtt_50ms();
    // 500 B/ms up to 1 s, then 1000 B/ms (8 Mb/s) up to the start at 2 s.
    t.deliver_every_ms(FLOW, 0, 1_000, 500.0);
    t.deliver_every_ms(FLOW, 1_000, 2_000, 1_000.0);
    // Deliveries after the start do not count.
    t.deliver_every_ms(FLOW, 2_000, 2_010, 9_000.0);
    let g = one(3, &t).goodput_before_bps.expect("goodput");
    assert!((g - 8e6).abs() < 1e-6, "{g}");
}

#[test]
fn goodput_before_in_the_first_second_and_at_zero() {
    let mut t = trace_srtt_50ms();
    // 500 B/ms from 0: D(0.5 s) = 250 kB over 0.5 s = 4 Mb/s.
    t.deliver_every_ms(FLOW, 0, 600, 500.0);
    let mut rec = record(0, 3);
    rec.decision = SimTime(400 * MS);
    rec.command = Some(SimTime(500 * MS));
    rec.attach = Some(SimTime(550 * MS));
    rec.path_switch = None;
    rec.completion = None;
    let row = &run(&[rec.clone()], &t, RUN_END, AnalyticsConfig::default())[0];
    let g = row.goodput_before_bps.expect("goodput");
    assert!((g - 4e6).abs() < 1e-6, "{g}");

    rec.decision = SimTime::ZERO;
    rec.command = Some(SimTime::ZERO);
    let row = &run(&[rec], &t, RUN_END, AnalyticsConfig::default())[0];
    assert_eq!(row.goodput_before_bps, None);
    assert_eq!(row.recovered_at_s, None);
    assert_eq!(row.recovery_time_s, None);
}

#[test]
fn delivered_bytes_run_from_start_to_one_srtt_after_attach() {
    let mut t = trace_srtt_50ms();
    t.deliver(1_990 * MS, FLOW, 1_000_000.0);
    // Counted: (2.0 s, 2.1 s] with 2.1 s = attach 2.05 s + srtt 50 ms.
    t.deliver(2_000 * MS + 1, FLOW, 3_000.0);
    t.deliver(2_060 * MS, FLOW, 4_000.0);
    t.deliver(2_100 * MS, FLOW, 5_000.0);
    t.deliver(2_100 * MS + 1, FLOW, 70_000.0);
    let row = one(3, &t);
    assert_eq!(row.delivered_bytes, Some(12_000));

    let mut rec = record(0, 3);
    rec.attach = None;
    rec.path_switch = None;
    rec.completion = None;
    rec.result = HandoverResult::RadioLinkFailure;
    let row = &run(&[rec], &t, RUN_END, AnalyticsConfig::default())[0];
    assert_eq!(row.delivered_bytes, None);
    assert_eq!(row.interruption_s, None);
}

#[test]
fn delivered_bytes_count_from_the_command_when_a_predicted_path_switch_precedes_it() {
    let mut t = trace_srtt_50ms();
    // Delivered by the source cell after the path switch (1.9 s), before the command (2.0 s).
    t.deliver(1_950 * MS, FLOW, 9_000.0);
    t.deliver(2_060 * MS, FLOW, 4_000.0);
    let mut rec = record(0, 3);
    rec.policy = HandoverPolicy::Predicted;
    rec.path_switch = Some(SimTime(1_900 * MS));
    let row = &run(&[rec], &t, RUN_END, AnalyticsConfig::default())[0];
    // The window itself starts at the path switch (so do the drops and timeouts it counts).
    assert!((row.start_s - 1.9).abs() < 1e-9, "{}", row.start_s);
    assert_eq!(row.delivered_bytes, Some(4_000));
}

#[test]
fn record_fields_are_copied() {
    let row = one(3, &trace_srtt_50ms());
    assert_eq!(
        (row.handover, row.flow, row.ue, row.source, row.target),
        (0, FLOW, UE, NodeId(100), NodeId(101))
    );
    assert_eq!(
        (row.cause, row.policy, row.result),
        (
            HandoverCause::A3,
            HandoverPolicy::Forward,
            HandoverResult::Completed
        )
    );
    assert_secs(Some(row.decision_s), 1.95);
    assert_secs(row.command_s, 2.0);
    assert_secs(row.attach_s, 2.05);
    assert_secs(row.path_switch_s, 2.07);
    assert_secs(row.completion_s, 2.1);
    assert_secs(row.interruption_s, 0.05);
    assert_eq!(
        (row.forwarded, row.dropped, row.duplicated, row.reordered),
        (12, 3, 2, 5)
    );
}
