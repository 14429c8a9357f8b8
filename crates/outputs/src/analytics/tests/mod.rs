//! Tests of the handover analytics on synthetic records and traces.
//!
//! The common fixture is one handover of UE 10 with the command at 2.000 s, the attach at
//! 2.050 s and the completion at 2.100 s; with an srtt of 50 ms and `k_rtt` = 2 its window is
//! [2.000 s, 2.200 s] unless the flow's loss episode lasts longer (`episode`).

mod classify;
mod episode;
mod measures;
mod records;
mod recovery;

use std::collections::BTreeMap;

use celltcp_engine::SimTime;
use celltcp_net::handover::{
    HandoverCause, HandoverFlowCounts, HandoverPolicy, HandoverRecord, HandoverResult,
};
use celltcp_net::packet::{FlowId, NodeId};
use celltcp_net::trace::{TraceVar, VarColumns};

use super::{analyse, AnalyticsConfig, HandoverOutcome};

pub(super) const MS: u64 = 1_000_000;
pub(super) const S: u64 = 1_000_000_000;
/// The UE of the fixture record.
pub(super) const UE: NodeId = NodeId(10);
/// The fixture's TCP flow.
pub(super) const FLOW: FlowId = FlowId(1);
/// The fixture run's end, ns.
pub(super) const RUN_END: u64 = 5 * S;

/// Builds trace rows; `Delivered` is kept cumulative per flow.
#[derive(Default)]
pub(super) struct Trace {
    pub vars: VarColumns,
    delivered: BTreeMap<FlowId, f64>,
}

impl Trace {
    pub fn row(&mut self, t_ns: u64, flow: FlowId, var: TraceVar, value: f64) -> &mut Self {
        self.vars.time_ns.push(t_ns);
        self.vars.flow.push(flow);
        self.vars.var.push(var as u8);
        self.vars.value.push(value);
        self
    }

    /// A `var` event (retransmission, undo) of the fixture flow at `t_ns`.
    pub fn event(&mut self, t_ns: u64, var: TraceVar) -> &mut Self {
        self.row(t_ns, FLOW, var, 0.0)
    }

    /// The fixture flow's sender sent a new segment starting at relative sequence number `seq`.
    pub fn seq_sent(&mut self, t_ns: u64, seq: f64) -> &mut Self {
        self.row(t_ns, FLOW, TraceVar::SeqSent, seq)
    }

    /// The fixture flow's sender received the cumulative ACK number `ack` (relative).
    pub fn ack(&mut self, t_ns: u64, ack: f64) -> &mut Self {
        self.row(t_ns, FLOW, TraceVar::AckReceived, ack)
    }

    /// `bytes` more delivered in order to `flow` at `t_ns` (calls in time order per flow).
    pub fn deliver(&mut self, t_ns: u64, flow: FlowId, bytes: f64) -> &mut Self {
        let total = self.delivered.entry(flow).or_insert(0.0);
        *total += bytes;
        let total = *total;
        self.row(t_ns, flow, TraceVar::Delivered, total)
    }

    /// `bytes` delivered to `flow` every millisecond at `from_ms + 1, …, to_ms` (ms).
    pub fn deliver_every_ms(
        &mut self,
        flow: FlowId,
        from_ms: u64,
        to_ms: u64,
        bytes: f64,
    ) -> &mut Self {
        for i in from_ms + 1..=to_ms {
            self.deliver(i * MS, flow, bytes);
        }
        self
    }
}

/// Packet counts with `dropped` lost packets.
pub(super) fn counts(dropped: u64) -> HandoverFlowCounts {
    HandoverFlowCounts {
        forwarded: 12,
        dropped,
        dropped_at_target: 0,
        duplicated: 2,
        reordered: 5,
    }
}

/// The fixture handover of [`UE`]: command 2.000 s, attach 2.050 s, completion 2.100 s; the
/// record lists [`FLOW`] with `dropped` lost packets.
pub(super) fn record(id: u32, dropped: u64) -> HandoverRecord {
    HandoverRecord {
        id,
        ue: UE,
        source: NodeId(100),
        target: NodeId(101),
        cause: HandoverCause::A3,
        policy: HandoverPolicy::Forward,
        decision: SimTime(1_950 * MS),
        command: Some(SimTime(2_000 * MS)),
        execution: None,
        attach: Some(SimTime(2_050 * MS)),
        path_switch: Some(SimTime(2_070 * MS)),
        completion: Some(SimTime(2_100 * MS)),
        result: HandoverResult::Completed,
        flows: vec![(FLOW, counts(dropped))],
    }
}

/// A trace with the fixture flow's srtt at 50 ms since 1 s.
pub(super) fn trace_srtt_50ms() -> Trace {
    let mut t = Trace::default();
    t.row(S, FLOW, TraceVar::Srtt, 0.05);
    t
}

/// Analyses `records` for UE [`UE`] having the TCP flow [`FLOW`] only.
pub(super) fn run(
    records: &[HandoverRecord],
    trace: &Trace,
    run_end_ns: u64,
    cfg: AnalyticsConfig,
) -> Vec<HandoverOutcome> {
    analyse(
        records,
        |_| vec![FLOW],
        &trace.vars,
        SimTime(run_end_ns),
        cfg,
    )
    .expect("valid inputs")
}

/// The single row of the fixture record for `trace` with the default configuration.
pub(super) fn one(dropped: u64, trace: &Trace) -> HandoverOutcome {
    let rows = run(
        &[record(0, dropped)],
        trace,
        RUN_END,
        AnalyticsConfig::default(),
    );
    assert_eq!(rows.len(), 1);
    rows.into_iter().next().expect("one row")
}

/// Asserts `a ≈ b` to 1 ns.
#[track_caller]
pub(super) fn assert_secs(a: Option<f64>, b: f64) {
    let a = a.expect("a value");
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}
