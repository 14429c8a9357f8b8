//! One row per (handover, TCP flow of the UE): how the flow's TCP reacted to the handover.
//!
//! The definitions of every field are in the [module documentation](super); this file applies
//! them to one record and one flow at a time, reading the flow's series from a
//! [`TraceIndex`] built once for the whole run.

use std::collections::BTreeMap;

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::handover::{
    HandoverCause, HandoverFlowCounts, HandoverPolicy, HandoverRecord, HandoverResult,
};
use celltcp_net::packet::{FlowId, NodeId};
use celltcp_net::queue::DropCause;
use celltcp_net::trace::VarColumns;

use super::config::{AnalyticsConfig, AnalyticsError};
use super::episode::EpisodeEnd;
use super::index::{FlowTrace, TraceIndex};
use super::recovery::{goodput_before_bps, recovered_at_ns, RecoveryGrid};

/// `CcState` code of fast recovery (see [`celltcp_net::trace::TraceVar::CcState`]).
const CC_STATE_FAST_RECOVERY: f64 = 2.0;
/// `CcState` code of the loss recovery that follows a retransmission timeout.
const CC_STATE_RTO_RECOVERY: f64 = 3.0;

/// How a flow's TCP reacted to a handover: the three classes of 000 §VI-B (Fig. 8: "slow
/// start", "window halving", "nothing").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TcpOutcome {
    /// A retransmission timeout fired in the window: cwnd fell to the loss window and the flow
    /// restarted in slow start (RFC 5681 §3.1).
    Timeout,
    /// No timeout, but a fast retransmission or an entry into fast recovery: cwnd was halved
    /// (RFC 5681 §3.2, RFC 6582).
    Halving,
    /// Neither: the handover was transparent to the congestion controller.
    Unaffected,
}

impl TcpOutcome {
    /// Every class, in the order of the outputs' category lists.
    pub const ALL: [TcpOutcome; 3] = [
        TcpOutcome::Timeout,
        TcpOutcome::Halving,
        TcpOutcome::Unaffected,
    ];

    /// `timeout`, `halving` or `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            TcpOutcome::Timeout => "timeout",
            TcpOutcome::Halving => "halving",
            TcpOutcome::Unaffected => "none",
        }
    }
}

/// A flow's packets lost during one handover (module documentation, **drops**): by place, and
/// the same packets by cause. Both partitions add up to [`total`](Self::total).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HandoverDrops {
    /// Lost by the procedure at the source: its buffer discarded, data reaching it after the
    /// forwarding ended (or a link handover's flushed and refused packets).
    pub source: u64,
    /// Lost at the source eNB's transport side: its X2-U forwarding buffer, its egress queues
    /// and links.
    pub source_egress: u64,
    /// Lost further on in the transport network: routers' queues, links, routing.
    pub transport: u64,
    /// Lost by the procedure at the target: its buffer, a forwarding tunnel leading nowhere,
    /// forwarded data reaching the UE's PDCP too late.
    pub target: u64,
    /// Lost in the cells: RLC buffers, the radio link, receive errors at the UE.
    pub radio: u64,
    /// By cause ([`DropCause`] order: queue full, AQM, link loss, outage, no route,
    /// handover).
    pub by_cause: [u64; 6],
}

impl HandoverDrops {
    /// The causes in the order of [`by_cause`](Self::by_cause).
    pub const CAUSES: [DropCause; 6] = DropCause::ALL;

    /// The places, in field order: the `dropped_<place>` columns of the `handovers` series.
    pub const PLACES: [&'static str; 5] =
        ["source", "source_egress", "transport", "target", "radio"];

    pub fn total(&self) -> u64 {
        self.source + self.source_egress + self.transport + self.target + self.radio
    }

    /// Every count with its output column name: the places, then `dropped_<cause>`.
    pub fn columns(&self) -> [(&'static str, u64); 11] {
        let c = &self.by_cause;
        [
            ("dropped_source", self.source),
            ("dropped_source_egress", self.source_egress),
            ("dropped_transport", self.transport),
            ("dropped_target", self.target),
            ("dropped_radio", self.radio),
            ("dropped_queue_full", c[0]),
            ("dropped_aqm", c[1]),
            ("dropped_link_loss", c[2]),
            ("dropped_outage", c[3]),
            ("dropped_no_route", c[4]),
            ("dropped_handover", c[5]),
        ]
    }

    /// The procedure's own losses from its record, and the flow's other drops in
    /// `[from, to]` from the trace, placed by their site.
    fn count(
        counts: &HandoverFlowCounts,
        source: NodeId,
        trace: &FlowTrace,
        from: u64,
        to: u64,
    ) -> Self {
        let mut d = HandoverDrops {
            source: counts.dropped - counts.dropped_at_target.min(counts.dropped),
            target: counts.dropped_at_target.min(counts.dropped),
            ..HandoverDrops::default()
        };
        d.by_cause[5] = counts.dropped;
        let rows = trace.dropped.range(from, to);
        // The sites are recorded row for row with the drops; a trace without them places every
        // drop in the transport network.
        let sites = (trace.drop_site.time_ns.len() == trace.dropped.time_ns.len())
            .then_some(&trace.drop_site.value);
        for i in rows {
            let cause = trace.dropped.value[i];
            if cause == f64::from(DropCause::Handover.code()) {
                continue; // the procedure's own: counted from the record
            }
            if let Some(k) = Self::CAUSES
                .iter()
                .position(|c| f64::from(c.code()) == cause)
            {
                d.by_cause[k] += 1;
            }
            match sites.map(|s| s[i]) {
                Some(site) if site < 0.0 => d.radio += 1,
                Some(site) if site == f64::from(source.0) => d.source_egress += 1,
                _ => d.transport += 1,
            }
        }
        d
    }
}

/// The analytics of one TCP flow across one handover. Times are seconds since the start of
/// the run; `None` where undefined (see the [module documentation](super)).
#[derive(Clone, Debug, PartialEq)]
pub struct HandoverOutcome {
    /// The handover record's id.
    pub handover: u32,
    pub flow: FlowId,
    pub ue: NodeId,
    pub source: NodeId,
    pub target: NodeId,
    pub cause: HandoverCause,
    /// The data-path policy, as in the record.
    pub policy: HandoverPolicy,
    pub result: HandoverResult,
    /// Handover decision at the source, s.
    pub decision_s: f64,
    /// Handover command (the interruption starts), s; for a conditional handover, the
    /// conditional reconfiguration with the target.
    pub command_s: Option<f64>,
    /// Conditional handover: the UE's execution (it leaves the source, the interruption
    /// starts), s; `None` for the other procedures.
    pub execution_s: Option<f64>,
    /// UE attached to the target, s.
    pub attach_s: Option<f64>,
    /// Downlink path switched to the target, s.
    pub path_switch_s: Option<f64>,
    /// Source released the UE context, s.
    pub completion_s: Option<f64>,
    /// User-plane interruption (command, or execution, to attach), s.
    pub interruption_s: Option<f64>,
    /// The flow's packets forwarded over X2-U (0 when the record does not list the flow).
    pub forwarded: u64,
    /// The flow's packets lost during the handover: `drops.total()`.
    pub dropped: u64,
    /// Those losses by place and by cause.
    pub drops: HandoverDrops,
    /// The flow's packets the UE received twice.
    pub duplicated: u64,
    /// The flow's packets delivered out of order.
    pub reordered: u64,
    /// Start of the observation window: the command (the decision without one), or the path
    /// switch when it came first, s.
    pub start_s: f64,
    /// End of the observation window: the later of the procedure end plus `k_rtt` srtt and
    /// the episode end, clipped to the end of the run, s.
    pub window_end_s: f64,
    /// When the sender's cumulative ACK passed the last segment sent before the procedure
    /// ended (the loss episode was over), s; `None` without a segment sent by then or when it
    /// was never acknowledged.
    pub episode_end_s: Option<f64>,
    pub outcome: TcpOutcome,
    /// RTO retransmissions in the window.
    pub rto_retransmissions: u32,
    /// Fast retransmissions in the window.
    pub fast_retransmissions: u32,
    /// The timeout was spurious (see the module documentation for the rule).
    pub spurious_rto: bool,
    /// First RTO retransmission in the window, s.
    pub first_rto_s: Option<f64>,
    /// Smoothed RTT at the start, s.
    pub rtt_before_s: Option<f64>,
    /// Largest RTT sample in the window, s.
    pub rtt_peak_s: Option<f64>,
    /// Goodput in the second before the start, bits per second.
    pub goodput_before_bps: Option<f64>,
    /// Start of the first averaging window whose goodput got back to the recovery fraction of
    /// `goodput_before` and stayed there for the hold (not before the attach), s.
    pub recovered_at_s: Option<f64>,
    /// `recovered_at − start`, s.
    pub recovery_time_s: Option<f64>,
    /// `recovered_at −` (the first in-order delivery after the first RTO retransmission, else
    /// that retransmission, else attach, else start), s.
    pub ramp_time_s: Option<f64>,
    /// Bytes delivered in order from the start to one srtt after the attach, bytes.
    pub delivered_bytes: Option<u64>,
}

/// Analyses every handover in `records` for each TCP flow of its UE.
///
/// `flows_of(ue)` returns the TCP flows with `ue` at either end; it is called once per distinct
/// UE. `traces` holds the flows' variables (see the module documentation for the ones read);
/// `run_end` is the time the run stopped. Rows are ordered by handover id, then flow id; a flow
/// listed in a record but not returned by `flows_of` (not TCP) gets no row.
///
/// Cost: one pass over `traces` to index the rows of the flows of interest, then per row of the
/// output a few binary searches plus the recovery scan, which walks the flow's `Delivered` rows
/// and the recovery grid from the attach until the flow recovers (to the end of the run if it
/// never does).
pub fn analyse<F>(
    records: &[HandoverRecord],
    mut flows_of: F,
    traces: &VarColumns,
    run_end: SimTime,
    cfg: AnalyticsConfig,
) -> Result<Vec<HandoverOutcome>, AnalyticsError>
where
    F: FnMut(NodeId) -> Vec<FlowId>,
{
    cfg.validate()?;
    let lengths = [
        traces.time_ns.len(),
        traces.flow.len(),
        traces.var.len(),
        traces.value.len(),
    ];
    if lengths.iter().any(|&n| n != lengths[0]) {
        let [time_ns, flow, var, value] = lengths;
        return Err(AnalyticsError::ColumnLengths {
            time_ns,
            flow,
            var,
            value,
        });
    }
    let mut ue_flows: BTreeMap<NodeId, Vec<FlowId>> = BTreeMap::new();
    for r in records {
        ue_flows.entry(r.ue).or_insert_with(|| {
            let mut flows = flows_of(r.ue);
            flows.sort_unstable();
            flows.dedup();
            flows
        });
    }
    let mut wanted: Vec<FlowId> = ue_flows.values().flatten().copied().collect();
    wanted.sort_unstable();
    wanted.dedup();
    let index = TraceIndex::build(traces, &wanted);

    let mut order: Vec<&HandoverRecord> = records.iter().collect();
    order.sort_by_key(|r| r.id);
    let mut out = Vec::new();
    for r in order {
        for &flow in &ue_flows[&r.ue] {
            out.push(analyse_flow(r, flow, index.flow(flow), run_end, &cfg));
        }
    }
    Ok(out)
}

/// Counts of the three outcomes: `(timeout, halving, none)`.
pub fn outcome_counts(rows: &[HandoverOutcome]) -> (usize, usize, usize) {
    rows.iter()
        .fold((0, 0, 0), |(t, h, n), row| match row.outcome {
            TcpOutcome::Timeout => (t + 1, h, n),
            TcpOutcome::Halving => (t, h + 1, n),
            TcpOutcome::Unaffected => (t, h, n + 1),
        })
}

fn secs(ns: u64) -> f64 {
    SimTime(ns).as_secs_f64()
}

fn opt_secs(t: Option<SimTime>) -> Option<f64> {
    t.map(SimTime::as_secs_f64)
}

/// Where the window's own RTO retransmissions start: `from`, or, when the flow was already in
/// a timeout's loss recovery just before `from`, the first `CcState` row in `[from, end]` that
/// leaves it (`end + 1` if none does). A trace without `CcState` rows (the emulator's) keeps
/// `from`.
fn inherited_recovery_end(trace: &FlowTrace, from: u64, end: u64) -> u64 {
    let before = from
        .checked_sub(1)
        .and_then(|t| trace.cc_state.last_at_or_before(t));
    if before != Some(CC_STATE_RTO_RECOVERY) {
        return from;
    }
    let s = &trace.cc_state;
    s.range(from, end)
        .find(|&i| s.value[i] != CC_STATE_RTO_RECOVERY)
        .map_or(end.saturating_add(1), |i| s.time_ns[i])
}

/// Where the handover's window opens (module documentation, **start**): the command — the
/// decision without one — or the path switch when it came first. A predicted handover moves
/// the downlink to the target about a prediction step before the command (seed 000 §V-A.2),
/// and what that does to the flow is the handover's; starting the window there keeps every
/// time the window reports (the first RTO among them) at or after its start.
fn window_start(r: &HandoverRecord) -> u64 {
    // A conditional handover's UE leaves at its execution, not at the conditional
    // reconfiguration (its `command`), which may precede it by seconds.
    let command = r.departure().unwrap_or(r.decision).as_ns();
    r.path_switch.map_or(command, |p| p.as_ns().min(command))
}

fn analyse_flow(
    r: &HandoverRecord,
    flow: FlowId,
    trace: &FlowTrace,
    run_end: SimTime,
    cfg: &AnalyticsConfig,
) -> HandoverOutcome {
    let run_end_ns = run_end.as_ns();
    let start = window_start(r);
    // Its losses count from the earliest step of the procedure, the decision included.
    let lost_from = r.decision.as_ns().min(start);
    let srtt_before = trace.srtt.last_at_or_before(start);
    let srtt_s = srtt_before.unwrap_or(0.0);
    let srtt_ns = SimDuration::from_secs_f64(srtt_s).as_ns();

    // The window runs to the end of the procedure plus k srtt, or to the end of the loss
    // episode if later (module doc, "window").
    let procedure_end = r.completion.or(r.attach).unwrap_or(run_end).as_ns();
    let tail_ns = SimDuration::from_secs_f64(cfg.k_rtt * srtt_s).as_ns();
    let tail_end = procedure_end.saturating_add(tail_ns);
    let episode = trace.send.episode_end(start, procedure_end, run_end_ns);
    let end = match episode {
        EpisodeEnd::Undefined => tail_end,
        EpisodeEnd::Acknowledged(t) | EpisodeEnd::Replaced(t) => tail_end.max(t),
        EpisodeEnd::Open => run_end_ns,
    }
    .min(run_end_ns);
    let episode_end = match episode {
        EpisodeEnd::Acknowledged(t) => Some(t),
        _ => None,
    };

    // A timeout's loss recovery that began before the window goes on retransmitting into it:
    // those retransmissions are not the handover's (module documentation, **outcome**).
    let rto_from = inherited_recovery_end(trace, start, end);
    let rto_retransmissions = trace.retx_rto.count_in(rto_from, end);
    let fast_retransmissions = trace.retx_fast.count_in(start, end);
    let outcome = if rto_retransmissions > 0 {
        TcpOutcome::Timeout
    } else if fast_retransmissions > 0
        || trace.cc_state.enters_in(start, end, CC_STATE_FAST_RECOVERY)
    {
        TcpOutcome::Halving
    } else {
        TcpOutcome::Unaffected
    };
    let counts: HandoverFlowCounts = r
        .flows
        .iter()
        .find(|(f, _)| *f == flow)
        .map(|(_, c)| *c)
        .unwrap_or_default();
    let drops = HandoverDrops::count(&counts, r.source, trace, lost_from, end);
    // A timeout with nothing lost at the handover was waiting for delayed, not lost, data:
    // the spurious timeout of 000 §IV (RFC 3522 §1 and RFC 5682 §1 describe the same event).
    // Losses count from the earliest step, so that a drop after a predicted path switch and
    // before the command makes the timeout genuine.
    let first_rto = trace.retx_rto.first_in(rto_from, end);
    let lost_before_rto = first_rto.is_some_and(|rto| trace.dropped.count_in(lost_from, rto) > 0);
    let spurious_rto = outcome == TcpOutcome::Timeout
        && (trace.spurious_undo.count_in(start, end) > 0
            || (counts.dropped == 0 && !lost_before_rto));

    let goodput_before = goodput_before_bps(&trace.delivered, start);
    let grid = RecoveryGrid::for_srtt(srtt_ns);
    let scan_from = r.attach.map_or(start, |a| a.as_ns().max(start));
    // Goodput is back from the start of the first averaging window that reaches the threshold
    // and holds it: the window's end lags the rate it measures by w.
    let recovered_at = goodput_before.filter(|&g| g > 0.0).and_then(|g| {
        recovered_at_ns(
            &trace.delivered,
            grid,
            scan_from,
            cfg.recovery_fraction * g,
            run_end_ns,
        )
        .map(|t| t.saturating_sub(grid.window_ns).max(scan_from))
    });
    // The ramp starts when the retransmission of the timeout that caused it reaches the
    // receiver — the first in-order delivery after it — so that, like the 002 model, it leaves
    // out the interruption, the timeout wait and the one-way trip; a timeout after the recovery
    // did not cause it.
    let ramp_from = |rec: u64| match trace.retx_rto.first_in(rto_from, end.min(rec)) {
        Some(rto) => trace
            .delivered
            .first_after(rto)
            .filter(|&t| t <= rec)
            .unwrap_or(rto),
        None => r.attach.map_or(start, SimTime::as_ns),
    };
    // 000 Fig. 12 counts from the command, when the UE leaves the source cell, not from a
    // predicted path switch before it: what the source cell delivers meanwhile is not the
    // handover's doing, and counting it would credit prediction with a longer interval.
    let delivered_from = r.departure().map_or(start, SimTime::as_ns);
    let delivered_bytes = r.attach.map(|a| {
        let after = a.as_ns().saturating_add(srtt_ns);
        let bytes = trace.delivered.step_at(after) - trace.delivered.step_at(delivered_from);
        bytes.max(0.0).round() as u64
    });

    HandoverOutcome {
        handover: r.id,
        flow,
        ue: r.ue,
        source: r.source,
        target: r.target,
        cause: r.cause,
        policy: r.policy,
        result: r.result,
        decision_s: r.decision.as_secs_f64(),
        command_s: opt_secs(r.command),
        execution_s: opt_secs(r.execution),
        attach_s: opt_secs(r.attach),
        path_switch_s: opt_secs(r.path_switch),
        completion_s: opt_secs(r.completion),
        interruption_s: r.interruption().map(SimDuration::as_secs_f64),
        forwarded: counts.forwarded,
        dropped: drops.total(),
        drops,
        duplicated: counts.duplicated,
        reordered: counts.reordered,
        start_s: secs(start),
        window_end_s: secs(end),
        episode_end_s: episode_end.map(secs),
        outcome,
        rto_retransmissions: u32::try_from(rto_retransmissions).unwrap_or(u32::MAX),
        fast_retransmissions: u32::try_from(fast_retransmissions).unwrap_or(u32::MAX),
        spurious_rto,
        first_rto_s: first_rto.map(secs),
        rtt_before_s: srtt_before,
        rtt_peak_s: trace.rtt_sample.max_in(start, end),
        goodput_before_bps: goodput_before,
        recovered_at_s: recovered_at.map(secs),
        recovery_time_s: recovered_at.map(|rec| secs(rec - start)),
        ramp_time_s: recovered_at.map(|rec| secs(rec - ramp_from(rec))),
        delivered_bytes,
    }
}
