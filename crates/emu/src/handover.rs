//! Per-handover analytics of the real TCP connections: every handover of the run × every
//! direction of data of every real connection with the handing-over UE at either end gets the
//! row a simulated TCP flow gets (`celltcp_outputs::analytics`), computed from the packets
//! seen on the path instead of the flow's trace.
//!
//! The [`History`] rebuilds, per direction of data, the trace variables the scenario's
//! analytics reads, and [`analyse_real`] hands them to the same function
//! ([`celltcp_outputs::analytics::analyse`]), so that every definition — the observation
//! window, the loss episode, the recovery scan, the delivered data — is the one documented
//! there. What the packets give in place of the sender's own account:
//!
//! | trace variable | from the packets |
//! |---|---|
//! | `RetxRto` | a retransmission classified [`RetransmissionKind::Timeout`]: of the first unacknowledged data, which had waited at least the RFC 6298 RTO estimate since it was last sent, while no ACK had arrived for half of it; and the retransmissions repairing the rest of that flight |
//! | `RetxFast` | a retransmission classified [`RetransmissionKind::Fast`]: after duplicate ACKs |
//! | `RttSample`, `Srtt` | RTT at the path (entry of a first transmission to its ACK leaving), RFC 6298 smoothing |
//! | `Delivered` | the receiver's cumulative ACK entering the path |
//! | `SeqSent`, `AckReceived` | new data entering, ACKs of new data leaving towards the sender |
//! | `Dropped` | a datagram that never left the path while a later one of its stream did (cause `handover` inside a handover's interruption, which its record counts, else `queue_full`) |
//! | `CcState`, `SpuriousUndo` | not observable: no rows |
//!
//! So the outcome is `timeout` when a timeout retransmission falls in the window, else
//! `halving` when a fast retransmission does, else `none`; an entry into fast recovery
//! without a retransmission (`CcState`) cannot be seen. `spurious_rto` reduces to its second
//! half: a timeout although nothing of the connection was lost at the handover or before the
//! timeout (an F-RTO or Eifel undo is the sender's secret). The packet counts of the record:
//! `dropped` is the connection's datagrams (both directions) lost on the path ([`Lost`]) that
//! entered it before the interruption ended and would have left it after the interruption
//! began: on a path that keeps each direction's order, before the next datagram that did
//! leave, so that next departure comes after the command. That takes in what a discarding
//! handover flushes (entered before, next departure after the attach), what it drops meanwhile,
//! and what a forwarding one's full queue refuses during the interruption (its departure would
//! have come after the attach, behind the held queue), and leaves out losses that were over
//! before the handover; `forwarded`, `duplicated` and `reordered` happen inside the path and
//! are not reported. The congestion window is the sender's and is absent too.
//!
//! Handovers that start after the end of the run get no row.

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use celltcp_engine::SimTime;
use celltcp_net::handover::{HandoverFlowCounts, HandoverRecord};
use celltcp_net::packet::{FlowId, NodeId};
use celltcp_net::queue::DropCause;
use celltcp_net::trace::{TraceVar, VarColumns};
use celltcp_outputs::analytics::{analyse, AnalyticsConfig, AnalyticsError, HandoverOutcome};
use serde_json::{json, Value};

use crate::history::{History, Lost, RetransmissionKind, Rows};
use crate::observe::Observer;

/// One row: a handover × a direction of data of a real connection.
#[derive(Clone, Debug, PartialEq)]
pub struct RealHandoverRow {
    /// The scenario's analytics of the row. Its `flow` is the stream id
    /// ([`History::stream_id`]); `forwarded`, `duplicated` and `reordered` are not observed
    /// (0 here, left out of every output).
    pub outcome: HandoverOutcome,
    /// The connection's index in the `connections` report.
    pub connection: u32,
    /// 0: data from the connection's initiator (`forward`), 1: to it (`reverse`).
    pub direction: usize,
    /// The data's sender and receiver (address, port).
    pub sender: (Ipv4Addr, u16),
    pub receiver: (Ipv4Addr, u16),
    /// For the first timeout retransmission in the window: how long the data it repeats had
    /// waited since it was last sent (its silence), and the RTO estimate that was compared
    /// with, s.
    pub silence_s: Option<f64>,
    pub rto_estimate_s: Option<f64>,
}

impl RealHandoverRow {
    /// `SENDER:PORT>RECEIVER:PORT`, the name of the row's data in the tables.
    pub fn label(&self) -> String {
        format!(
            "{}:{}>{}:{}",
            self.sender.0, self.sender.1, self.receiver.0, self.receiver.1
        )
    }
}

/// The streams with data of each UE's real connections: UE → stream ids.
fn streams_of_ues(
    records: &[HandoverRecord],
    address_of: &impl Fn(NodeId) -> Option<Ipv4Addr>,
    observer: &Observer,
    history: &History,
) -> BTreeMap<NodeId, Vec<FlowId>> {
    let mut out = BTreeMap::new();
    for r in records {
        out.entry(r.ue).or_insert_with(|| {
            let Some(addr) = address_of(r.ue) else {
                return Vec::new();
            };
            let mut streams = Vec::new();
            for c in 0..observer.connections() as u32 {
                let Some(ends) = observer.endpoints(c) else {
                    continue;
                };
                if ends[0].0 != addr && ends[1].0 != addr {
                    continue;
                }
                for dir in 0..2 {
                    let id = History::stream_id(c, dir);
                    if history.stream(id).is_some_and(|s| s.data_segments > 0) {
                        streams.push(FlowId(id));
                    }
                }
            }
            streams
        });
    }
    out
}

/// Whether a lost datagram counts for the interruption `[command, attach]`: it entered the
/// path by the attach, and the next datagram of its direction left after the command.
fn lost_in(l: &Lost, command_ns: u64, attach_ns: u64) -> bool {
    l.entered_ns <= attach_ns && l.before_ns >= command_ns
}

fn push_rows(cols: &mut VarColumns, flow: FlowId, var: TraceVar, rows: &Rows) {
    for (&t, &v) in rows.time_ns.iter().zip(&rows.value) {
        cols.time_ns.push(t);
        cols.flow.push(flow);
        cols.var.push(var as u8);
        cols.value.push(v);
    }
}

/// The trace rows of `streams` rebuilt from the history (see the module documentation).
fn trace_of(
    streams: &[FlowId],
    history: &History,
    lost: &[Lost],
    records: &[HandoverRecord],
) -> VarColumns {
    // A loss inside a handover's interruption is the one its record counts (cause handover);
    // of any other the emulator sees that the datagram never left the path, not why.
    let counted = |l: &Lost| {
        records.iter().any(|r| match (r.command, r.attach) {
            (Some(c), Some(a)) => lost_in(l, c.as_ns(), a.as_ns()),
            _ => false,
        })
    };
    let mut cols = VarColumns::default();
    for &id in streams {
        let Some(s) = history.stream(id.0) else {
            continue;
        };
        push_rows(&mut cols, id, TraceVar::SeqSent, &s.seq_sent);
        push_rows(&mut cols, id, TraceVar::AckReceived, &s.ack_received);
        push_rows(&mut cols, id, TraceVar::Delivered, &s.delivered);
        push_rows(&mut cols, id, TraceVar::RttSample, &s.rtt_sample);
        push_rows(&mut cols, id, TraceVar::Srtt, &s.srtt);
        for r in &s.retransmissions {
            let var = match r.kind {
                RetransmissionKind::Timeout => TraceVar::RetxRto,
                RetransmissionKind::Fast => TraceVar::RetxFast,
                RetransmissionKind::Other => continue,
            };
            cols.time_ns.push(r.time_ns);
            cols.flow.push(id);
            cols.var.push(var as u8);
            cols.value.push(1.0);
        }
        // A loss of either direction of the connection, at the earliest it could have been
        // dropped once its predecessor had left.
        let connection = id.0 / 2;
        for l in lost.iter().filter(|l| l.stream / 2 == connection) {
            let cause = if counted(l) {
                DropCause::Handover
            } else {
                DropCause::QueueFull
            };
            cols.time_ns.push(l.after_ns.max(l.entered_ns));
            cols.flow.push(id);
            cols.var.push(TraceVar::Dropped as u8);
            cols.value.push(f64::from(cause.code()));
        }
    }
    cols
}

/// Analyses every record that started by `run_end` for each direction of data of each real
/// connection with its UE at either end. `address_of(node)` is the address of an attached
/// host (`None` for any other node: no real connection ends there).
///
/// # Errors
/// Never in practice: the scenario's analytics refuses only inconsistent trace columns.
pub fn analyse_real(
    records: &[HandoverRecord],
    address_of: impl Fn(NodeId) -> Option<Ipv4Addr>,
    observer: &Observer,
    history: &History,
    run_end: SimTime,
) -> Result<Vec<RealHandoverRow>, AnalyticsError> {
    let started: Vec<&HandoverRecord> = records
        .iter()
        .filter(|r| r.command.unwrap_or(r.decision) <= run_end)
        .collect();
    let owned: Vec<HandoverRecord> = started.iter().map(|r| (*r).clone()).collect();
    let by_ue = streams_of_ues(&owned, &address_of, observer, history);
    let lost = history.lost();
    let records: Vec<HandoverRecord> = owned
        .into_iter()
        .map(|mut r| {
            let streams = &by_ue[&r.ue];
            // The simulation's counts are of its own flows; a real connection's are counted
            // from its packets, over the interruption (none without one).
            r.flows = Vec::new();
            if let (Some(command), Some(attach)) = (r.command, r.attach) {
                r.flows = streams
                    .iter()
                    .map(|&id| {
                        let dropped = lost
                            .iter()
                            .filter(|l| l.stream / 2 == id.0 / 2)
                            .filter(|l| lost_in(l, command.as_ns(), attach.as_ns()))
                            .count() as u64;
                        (
                            id,
                            HandoverFlowCounts {
                                dropped,
                                ..HandoverFlowCounts::default()
                            },
                        )
                    })
                    .collect();
            }
            r
        })
        .collect();
    let mut wanted: Vec<FlowId> = by_ue.values().flatten().copied().collect();
    wanted.sort_unstable();
    wanted.dedup();
    let traces = trace_of(&wanted, history, &lost, &records);
    let outcomes = analyse(
        &records,
        |ue| by_ue.get(&ue).cloned().unwrap_or_default(),
        &traces,
        run_end,
        AnalyticsConfig::default(),
    )?;
    Ok(outcomes
        .into_iter()
        .filter_map(|o| {
            let connection = o.flow.0 / 2;
            let direction = (o.flow.0 % 2) as usize;
            let ends = observer.endpoints(connection)?;
            let first_timeout = o.first_rto_s.and_then(|t| {
                let t_ns = (t * 1e9).round() as u64;
                history
                    .stream(o.flow.0)?
                    .retransmissions
                    .iter()
                    .find(|r| r.kind == RetransmissionKind::Timeout && r.time_ns == t_ns)
                    .copied()
            });
            Some(RealHandoverRow {
                connection,
                direction,
                sender: ends[direction],
                receiver: ends[1 - direction],
                silence_s: first_timeout.map(|r| r.silence_ns as f64 * 1e-9),
                rto_estimate_s: first_timeout.map(|r| r.rto_ns as f64 * 1e-9),
                outcome: o,
            })
        })
        .collect())
}

/// A row as JSON for the `emulation` report: the fields of the scenario's `handovers` table
/// that packets can give (node names by `name`), plus `connection`, `direction`, `sender`,
/// `receiver`, `silence_s` and `rto_estimate_s`.
pub fn row_json(r: &RealHandoverRow, name: impl Fn(NodeId) -> String) -> Value {
    let o = &r.outcome;
    json!({
        "handover": o.handover,
        "connection": r.connection,
        "direction": if r.direction == 0 { "forward" } else { "reverse" },
        "sender": format!("{}:{}", r.sender.0, r.sender.1),
        "receiver": format!("{}:{}", r.receiver.0, r.receiver.1),
        "ue": name(o.ue),
        "source": name(o.source),
        "target": name(o.target),
        "cause": o.cause.as_str(),
        "policy": o.policy.as_str(),
        "result": o.result.as_str(),
        "decision_s": o.decision_s,
        "command_s": o.command_s,
        "attach_s": o.attach_s,
        "path_switch_s": o.path_switch_s,
        "completion_s": o.completion_s,
        "interruption_s": o.interruption_s,
        "dropped": o.dropped,
        "start_s": o.start_s,
        "window_end_s": o.window_end_s,
        "episode_end_s": o.episode_end_s,
        "outcome": o.outcome.as_str(),
        "rto_retransmissions": o.rto_retransmissions,
        "fast_retransmissions": o.fast_retransmissions,
        "spurious_rto": o.spurious_rto,
        "first_rto_s": o.first_rto_s,
        "silence_s": r.silence_s,
        "rto_estimate_s": r.rto_estimate_s,
        "rtt_before_s": o.rtt_before_s,
        "rtt_peak_s": o.rtt_peak_s,
        "goodput_before_bps": o.goodput_before_bps,
        "recovered_at_s": o.recovered_at_s,
        "recovery_time_s": o.recovery_time_s,
        "ramp_time_s": o.ramp_time_s,
        "delivered_bytes": o.delivered_bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loss_counts_for_the_interruption_it_overlaps() {
        let l = |entered, after, before| Lost {
            stream: 0,
            entered_ns: entered,
            after_ns: after,
            before_ns: before,
        };
        // Interruption [100, 200]: a queue flushed at the command, an arrival dropped
        // meanwhile, an arrival refused by a held queue (its successor leaves after the
        // queue drains).
        assert!(lost_in(&l(60, 90, 250), 100, 200), "flushed");
        assert!(lost_in(&l(150, 150, 230), 100, 200), "dropped meanwhile");
        assert!(
            lost_in(&l(150, 260, 280), 100, 200),
            "refused by a held queue"
        );
        assert!(
            !lost_in(&l(5, 10, 20), 100, 200),
            "a queue drop over before"
        );
        assert!(!lost_in(&l(201, 210, 260), 100, 200), "entered after");
    }
}
