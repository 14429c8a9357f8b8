//! The window extended to the end of the loss episode: H, the ACK that passes it, undefined H,
//! several connections of one flow.
//!
//! Fixture [`reno_pattern`], after the seed-000 run (python/celltcp/examples/000/forwarding.toml): the sender
//! sends a 1000-byte segment every ms from 1.000 s, each acknowledged 50 ms later, until the
//! interruption at 2.000 s; it sends three more segments at 2.060, 2.080 and 2.100 s (the
//! completion), so H = 1 + 1000 × 1002 = 1 002 001. Duplicate ACKs of 950 001 arrive at
//! 2.110–2.130 s, the fast retransmission goes out at 2.140 s, a partial ACK of 960 001 arrives
//! at 2.200 s — the end of the procedure window — and the next hole waits for the
//! retransmission timer.

use proptest::prelude::*;

use celltcp_net::trace::TraceVar;

use super::*;
use crate::analytics::episode::{EpisodeEnd, SendProgress};
use crate::analytics::index::VarSeries;
use crate::analytics::{HandoverColumns, TcpOutcome};

/// Segment size of the fixtures, bytes.
const SEG: f64 = 1000.0;
/// H of [`reno_pattern`]: the first byte of the segment sent at the completion.
const H: f64 = 1.0 + SEG * 1002.0;

/// The fixture above; the RTO retransmission at `rto_ms` and the ACK of H + 1000 (every byte
/// sent before the completion) at `pass_h_ms` when given. `with_seq_sent = false` leaves out
/// the `SeqSent` rows (a trace recorded without them).
fn reno_pattern(rto_ms: Option<u64>, pass_h_ms: Option<u64>, with_seq_sent: bool) -> Trace {
    let mut t = trace_srtt_50ms();
    for i in 0..1_000u64 {
        let sent = (1_000 + i) * MS;
        if with_seq_sent {
            t.seq_sent(sent, 1.0 + SEG * i as f64);
        }
        if sent + 50 * MS < 2_000 * MS {
            t.ack(sent + 50 * MS, 1.0 + SEG * (i + 1) as f64);
        }
    }
    if with_seq_sent {
        for (ms, i) in [(2_060, 1_000u64), (2_080, 1_001), (2_100, 1_002)] {
            t.seq_sent(ms * MS, 1.0 + SEG * i as f64);
        }
    }
    for ms in [2_110, 2_120, 2_130] {
        t.ack(ms * MS, 950_001.0);
    }
    t.event(2_140 * MS, TraceVar::RetxFast);
    t.ack(2_200 * MS, 960_001.0);
    if let Some(ms) = rto_ms {
        t.event(ms * MS, TraceVar::RetxRto);
    }
    if let Some(ms) = pass_h_ms {
        t.ack(ms * MS, H + SEG);
    }
    t
}

#[test]
fn late_rto_before_the_ack_passes_h_is_a_timeout() {
    // The seed-000 pattern: RTO 0.6 s after the completion, ACK passing H 50 ms later.
    let row = one(3, &reno_pattern(Some(2_700), Some(2_750), true));
    assert_eq!(row.outcome, TcpOutcome::Timeout);
    assert_eq!((row.rto_retransmissions, row.fast_retransmissions), (1, 1));
    assert_secs(row.first_rto_s, 2.7);
    assert_secs(row.episode_end_s, 2.75);
    assert_secs(Some(row.window_end_s), 2.75);
    assert!(!row.spurious_rto, "three packets were lost");
}

#[test]
fn without_seq_sent_rows_the_window_is_the_procedures() {
    // H undefined: the window ends at completion + 2 srtt, as before the episode existed, and
    // the same run is only a halving.
    let row = one(3, &reno_pattern(Some(2_700), Some(2_750), false));
    assert_eq!(row.episode_end_s, None);
    assert_secs(Some(row.window_end_s), 2.2);
    assert_eq!(row.outcome, TcpOutcome::Halving);
    assert_eq!(row.rto_retransmissions, 0);

    // Segments sent only after the procedure end leave H undefined too.
    let mut t = trace_srtt_50ms();
    t.seq_sent(2_300 * MS, 1.0).ack(2_350 * MS, 1_001.0);
    t.event(2_400 * MS, TraceVar::RetxRto);
    let row = one(3, &t);
    assert_eq!(row.episode_end_s, None);
    assert_secs(Some(row.window_end_s), 2.2);
    assert_eq!(row.outcome, TcpOutcome::Unaffected);
}

#[test]
fn rto_after_the_episode_end_is_not_counted() {
    let row = one(3, &reno_pattern(Some(2_700), Some(2_650), true));
    assert_secs(row.episode_end_s, 2.65);
    assert_secs(Some(row.window_end_s), 2.65);
    assert_eq!(row.outcome, TcpOutcome::Halving);
    assert_eq!(row.rto_retransmissions, 0);
    assert_eq!(row.first_rto_s, None);
    // The window includes its end: an RTO at the episode end counts.
    let row = one(3, &reno_pattern(Some(2_700), Some(2_700), true));
    assert_eq!(row.outcome, TcpOutcome::Timeout);
}

#[test]
fn an_ack_equal_to_h_does_not_end_the_episode() {
    // ACK number H acknowledges the bytes before H only, not the segment starting at H.
    let mut t = reno_pattern(Some(2_700), Some(2_750), true);
    t.ack(2_600 * MS, H);
    let row = one(3, &t);
    assert_secs(row.episode_end_s, 2.75);
    assert_eq!(row.outcome, TcpOutcome::Timeout);
}

#[test]
fn an_early_episode_end_keeps_the_procedure_window() {
    // No loss: everything sent by the completion is acknowledged at 2.150 s, inside the
    // procedure window [2.0 s, 2.2 s], which stays.
    let mut t = trace_srtt_50ms();
    for i in 0..1_101u64 {
        t.seq_sent((1_000 + i) * MS, 1.0 + SEG * i as f64);
    }
    t.ack(2_150 * MS, 1.0 + SEG * 1_101.0);
    t.event(2_200 * MS, TraceVar::RetxRto);
    t.event(2_200 * MS + 1, TraceVar::RetxRto);
    let row = one(0, &t);
    assert_secs(row.episode_end_s, 2.15);
    assert_secs(Some(row.window_end_s), 2.2);
    assert_eq!(row.rto_retransmissions, 1);
}

#[test]
fn an_episode_never_acknowledged_runs_to_the_end_of_the_run() {
    let mut t = reno_pattern(Some(2_700), None, true);
    t.event(4_000 * MS, TraceVar::RetxRto);
    let row = one(3, &t);
    assert_eq!(row.episode_end_s, None);
    assert_secs(Some(row.window_end_s), 5.0);
    assert_eq!(row.rto_retransmissions, 2);
    // The ACK passing H after the end of the run is not seen.
    let t = reno_pattern(Some(2_700), Some(2_750), true);
    let row = &run(&[record(0, 3)], &t, 2_720 * MS, AnalyticsConfig::default())[0];
    assert_eq!(row.episode_end_s, None);
    assert_secs(Some(row.window_end_s), 2.72);
    assert_eq!(row.outcome, TcpOutcome::Timeout);
}

#[test]
fn an_idle_sender_ends_its_episode_at_the_start() {
    // Everything sent (up to 1.5 s) was acknowledged at 1.55 s, before the handover.
    let mut t = trace_srtt_50ms();
    for i in 0..500u64 {
        t.seq_sent((1_000 + i) * MS, 1.0 + SEG * i as f64);
    }
    t.ack(1_550 * MS, 1.0 + SEG * 500.0);
    t.event(2_190 * MS, TraceVar::RetxRto);
    t.event(2_300 * MS, TraceVar::RetxRto);
    let row = one(0, &t);
    assert_secs(row.episode_end_s, 2.0);
    assert_secs(Some(row.window_end_s), 2.2);
    assert_eq!(row.rto_retransmissions, 1);
}

/// Connection 1 of the fixture flow sends 500 segments from 1.0 s (relative numbers 1 to
/// 499 001), all acknowledged (501 001) at 1.55 s. Connection 2 starts at 1.8 s with relative
/// numbers from 1 again and sends a segment every ms to 2.1 s: H = 1 + 1000 × 300 = 300 001;
/// its ACKs follow 50 ms behind up to the interruption.
fn two_connections() -> Trace {
    let mut t = trace_srtt_50ms();
    for i in 0..500u64 {
        t.seq_sent((1_000 + i) * MS, 1.0 + SEG * i as f64);
    }
    t.ack(1_550 * MS, 1.0 + SEG * 500.0);
    for i in 0..=300u64 {
        let sent = (1_800 + i) * MS;
        t.seq_sent(sent, 1.0 + SEG * i as f64);
        if sent + 50 * MS < 2_000 * MS {
            t.ack(sent + 50 * MS, 1.0 + SEG * (i + 1) as f64);
        }
    }
    t.event(2_600 * MS, TraceVar::RetxRto);
    t
}

#[test]
fn h_and_acks_come_from_the_current_connection() {
    // Taking H over both connections (499 001) would never see it acknowledged and count the
    // RTO at 4 s; keeping connection 1's ACK high (501 001) would end the episode at the start
    // and miss the RTO at 2.6 s.
    let mut t = two_connections();
    t.ack(2_700 * MS, 1.0 + SEG * 301.0);
    t.event(4_000 * MS, TraceVar::RetxRto);
    let row = one(3, &t);
    assert_secs(row.episode_end_s, 2.7);
    assert_secs(Some(row.window_end_s), 2.7);
    assert_eq!(row.outcome, TcpOutcome::Timeout);
    assert_eq!(row.rto_retransmissions, 1);
}

#[test]
fn a_replaced_connection_ends_the_episode_at_the_next_ones_first_segment() {
    // Connection 2 is never acknowledged past H; connection 3 starts at 3.0 s and its ACKs,
    // numbered from 1 again, exceed 300 001 at 3.5 s: they say nothing of connection 2.
    let mut t = two_connections();
    for i in 0..=400u64 {
        t.seq_sent((3_000 + i) * MS, 1.0 + SEG * i as f64);
    }
    t.ack(3_500 * MS, 1.0 + SEG * 401.0);
    t.event(3_200 * MS, TraceVar::RetxRto);
    let row = one(3, &t);
    assert_eq!(row.episode_end_s, None);
    assert_secs(Some(row.window_end_s), 3.0);
    assert_eq!(row.rto_retransmissions, 1);
}

#[test]
fn episode_end_is_a_column() {
    let t = reno_pattern(Some(2_700), Some(2_750), true);
    let rows = run(
        &[record(0, 3), record(1, 3)],
        &t,
        RUN_END,
        AnalyticsConfig::default(),
    );
    let cols = HandoverColumns::from(rows.as_slice());
    assert_eq!(cols.episode_end_s, vec![Some(2.75), Some(2.75)]);
}

/// The episode end applied literally, with linear scans: the connection of the last `SeqSent`
/// row at or before the procedure end runs back and forward to the nearest decreases; H is
/// its largest value so far; its ACKs are those from its first segment to before the next
/// connection's.
fn episode_end_brute_force(
    seq: &[(u64, f64)],
    ack: &[(u64, f64)],
    start: u64,
    procedure_end: u64,
    run_end: u64,
) -> EpisodeEnd {
    let Some(last) = seq.iter().rposition(|r| r.0 <= procedure_end) else {
        return EpisodeEnd::Undefined;
    };
    let mut first = last;
    while first > 0 && seq[first].1 >= seq[first - 1].1 {
        first -= 1;
    }
    let next = (last + 1..seq.len())
        .find(|&i| seq[i].1 < seq[i - 1].1)
        .map(|i| seq[i].0);
    let h = seq[first..=last]
        .iter()
        .map(|r| r.1)
        .fold(f64::NEG_INFINITY, f64::max);
    let to = next.map_or(run_end, |n| (n - 1).min(run_end));
    let conn_acks = || ack.iter().filter(|r| r.0 >= seq[first].0 && r.0 <= to);
    if conn_acks().any(|r| r.0 < start && r.1 > h) {
        return EpisodeEnd::Acknowledged(start);
    }
    if let Some(r) = conn_acks().find(|r| r.0 >= start && r.1 > h) {
        return EpisodeEnd::Acknowledged(r.0);
    }
    match next {
        Some(n) if n <= run_end => EpisodeEnd::Replaced(n),
        _ => EpisodeEnd::Open,
    }
}

/// Rows at cumulative gaps (0 allowed: equal times).
fn rows_from(steps: &[(u64, f64)]) -> Vec<(u64, f64)> {
    let mut t = 0;
    steps
        .iter()
        .map(|&(gap, v)| {
            t += gap;
            (t, v)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// The index's binary searches on the per-connection ACK high give the literal answer.
    /// `SeqSent` values climb and sometimes restart (new connections); ACK values are drawn
    /// freely, out of order, so that the running high matters.
    #[test]
    fn episode_end_matches_the_definition(
        seq_steps in prop::collection::vec(
            (0u64..5, prop_oneof![4 => (0u32..3_000).prop_map(|s| (false, s)),
                                  1 => (0u32..500).prop_map(|s| (true, s))]),
            0..60,
        ),
        ack_steps in prop::collection::vec((0u64..5, 0u32..60_000), 0..60),
        start in 0u64..150,
        after_start in 0u64..100,
        run_end in 0u64..300,
    ) {
        let mut value = 0.0;
        let seq_raw: Vec<(u64, f64)> = seq_steps
            .iter()
            .map(|&(gap, (restart, step))| {
                value = if restart { f64::from(step) } else { value + f64::from(step) };
                (gap, value)
            })
            .collect();
        let seq = rows_from(&seq_raw);
        let ack_raw: Vec<(u64, f64)> =
            ack_steps.iter().map(|&(gap, v)| (gap, f64::from(v))).collect();
        let ack = rows_from(&ack_raw);
        let series = |rows: &[(u64, f64)]| VarSeries {
            time_ns: rows.iter().map(|r| r.0).collect(),
            value: rows.iter().map(|r| r.1).collect(),
        };
        let p = SendProgress::new(series(&seq), series(&ack));
        let procedure_end = start + after_start;
        prop_assert_eq!(
            p.episode_end(start, procedure_end, run_end),
            episode_end_brute_force(&seq, &ack, start, procedure_end, run_end)
        );
    }
}
