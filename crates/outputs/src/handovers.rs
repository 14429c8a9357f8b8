//! The handovers of a run: the media's records and message timelines plus the link handovers,
//! the per-handover TCP analytics, and their outputs — the `handovers` and `handover_events`
//! series and the `handovers` section of the summary.
//!
//! Record ids are made unique over the run: each medium numbers its handovers from 0, so the
//! records of the media are renumbered in media order (a medium's records keep their order and
//! its timeline follows its records), and the link handovers come last, in time order.
//!
//! A medium counts what its handover procedure did to each flow as it happens. A link
//! handover is only two changes of the link's directions, so its drops are attributed
//! afterwards: the world records each drop of a traced flow's packet with its time, cause and
//! site as it happens (the `dropped` and `drop_site` trace rows, recorded for every TCP flow of
//! a terminal that can hand over: [`crate::analytics::REQUIRED_TRACE_VARS`]), and a link
//! handover's `dropped` count of a flow is its drops of cause `handover` from the start of the
//! interruption to its end, both included.

use std::collections::BTreeMap;

use celltcp_engine::SimTime;
use celltcp_net::handover::{
    HandoverCause, HandoverEvent, HandoverFlowCounts, HandoverPolicy, HandoverRecord,
    HandoverResult,
};
use celltcp_net::packet::{FlowId, NodeId};
use celltcp_net::queue::DropCause;
use celltcp_net::trace::{TraceVar, VarColumns};
use celltcp_net::world::World;

use crate::analytics::{
    analyse, outcome_counts, AnalyticsConfig, AnalyticsError, HandoverColumns, HandoverDrops,
    HandoverOutcome,
};
use crate::labels::{
    HandoverCauses, HandoverPolicies, HandoverResults, Label, LabelSet, TcpOutcomes,
};
use crate::series::{Column, Series};
use crate::series_columns;
use crate::summary::{HandoverEntry, HandoverResultCounts, HandoverSummary, TcpOutcomeCounts};

/// Timeline messages of a link handover: the interruption's start and end.
pub const LINK_INTERRUPTION_START: &str = "interruption_start";
pub const LINK_INTERRUPTION_END: &str = "interruption_end";

/// A link handover (seed 002 §2: a handover event of a link whose `a` end is the base station
/// and `b` end the terminal): the link's directions are interrupted from `at` to `end`.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkHandover {
    /// Start of the interruption (the handover decision and command).
    pub at: SimTime,
    /// End of the interruption (attach and completion).
    pub end: SimTime,
    pub base_station: NodeId,
    pub ue: NodeId,
    /// Its data-path policy: one of [`HandoverPolicy::LINK`].
    pub policy: HandoverPolicy,
}

/// Everything known about the run's handovers.
#[derive(Clone, Debug, Default)]
pub struct HandoverOutputs {
    pub records: Vec<HandoverRecord>,
    pub events: Vec<HandoverEvent>,
    pub outcomes: Vec<HandoverOutcome>,
}

/// Per flow, the times of its drops of cause handover, in time order (the trace's rows are).
fn handover_drop_times(vars: &VarColumns) -> BTreeMap<FlowId, Vec<u64>> {
    let (dropped, handover) = (
        TraceVar::Dropped as u8,
        f64::from(DropCause::Handover.code()),
    );
    let mut out: BTreeMap<FlowId, Vec<u64>> = BTreeMap::new();
    for i in 0..vars.var.len() {
        if vars.var[i] == dropped && vars.value[i] == handover {
            out.entry(vars.flow[i]).or_default().push(vars.time_ns[i]);
        }
    }
    out
}

/// Number of `times` (sorted) in `[from, to]`.
fn count_between(times: &[u64], from: SimTime, to: SimTime) -> u64 {
    let lo = times.partition_point(|&t| t < from.as_ns());
    let hi = times.partition_point(|&t| t <= to.as_ns());
    hi.saturating_sub(lo) as u64
}

impl HandoverOutputs {
    /// Gathers the records — the media's, then the link handovers `links` (in time order)
    /// with their flows' drops attributed from the trace rows — and analyses them against the
    /// world's trace rows. `tcp_flows_of` gives the TCP flows with a terminal at either end
    /// (those whose loss variables are traced); the run ended at `run_end`.
    pub fn collect(
        world: &World,
        links: &[LinkHandover],
        tcp_flows_of: impl Fn(NodeId) -> Vec<FlowId>,
        run_end: SimTime,
    ) -> Result<Self, AnalyticsError> {
        let mut records = Vec::new();
        let mut events = Vec::new();
        for medium in world.media() {
            let offset = records.len() as u32;
            records.extend(medium.handovers().into_iter().map(|mut r| {
                r.id += offset;
                r
            }));
            events.extend(medium.handover_events().iter().cloned().map(|mut e| {
                e.handover += offset;
                e
            }));
        }
        let drop_times = if links.is_empty() {
            BTreeMap::new()
        } else {
            handover_drop_times(&world.traces.vars)
        };
        for link in links {
            let id = records.len() as u32;
            let flows = tcp_flows_of(link.ue)
                .into_iter()
                .map(|f| {
                    let times = drop_times.get(&f).map_or(&[][..], Vec::as_slice);
                    let counts = HandoverFlowCounts {
                        dropped: count_between(times, link.at, link.end),
                        ..HandoverFlowCounts::default()
                    };
                    (f, counts)
                })
                .collect();
            records.push(HandoverRecord {
                id,
                ue: link.ue,
                source: link.base_station,
                target: link.base_station,
                cause: HandoverCause::Link,
                policy: link.policy,
                decision: link.at,
                command: Some(link.at),
                execution: None,
                attach: Some(link.end),
                path_switch: None,
                completion: Some(link.end),
                result: HandoverResult::Completed,
                flows,
            });
            let event = |time, from, to, message| HandoverEvent {
                time,
                handover: id,
                ue: link.ue,
                from,
                to,
                message,
            };
            events.push(event(
                link.at,
                link.base_station,
                link.ue,
                LINK_INTERRUPTION_START,
            ));
            events.push(event(
                link.end,
                link.ue,
                link.base_station,
                LINK_INTERRUPTION_END,
            ));
        }
        // One timeline in time order; equal times keep the order above (stable sort).
        events.sort_by_key(|e| e.time);
        let outcomes = analyse(
            &records,
            &tcp_flows_of,
            &world.traces.vars,
            run_end,
            AnalyticsConfig::default(),
        )?;
        Ok(HandoverOutputs {
            records,
            events,
            outcomes,
        })
    }
}

fn node_names(world: &World) -> Vec<String> {
    world.topo.nodes.iter().map(|n| n.name.clone()).collect()
}

/// Codes into a fixed list of names (a label set, so that every run's tables share their
/// categories); a name not in it is appended (never expected).
fn categorical(values: &[String], fixed: Vec<String>) -> Column {
    let mut names = fixed;
    let codes = values
        .iter()
        .map(|v| match names.iter().position(|n| n == v) {
            Some(i) => i as u32,
            None => {
                names.push(v.clone());
                (names.len() - 1) as u32
            }
        })
        .collect();
    Column::Cat { codes, names }
}

fn opt(values: Vec<Option<f64>>) -> Column {
    Column::F64(values.into_iter().map(|v| v.unwrap_or(f64::NAN)).collect())
}

impl HandoverOutputs {
    /// `handovers` (one row per handover × TCP flow, every field of the analytics) and
    /// `handover_events` (the message timeline); node and flow columns are categorical by
    /// name, undefined times NaN.
    pub fn series(&self, world: &World, flow_names: &[String]) -> Vec<Series> {
        let nodes = node_names(world);
        let node_col = |ids: Vec<NodeId>| Column::Cat {
            codes: ids.into_iter().map(|n| n.0).collect(),
            names: nodes.clone(),
        };
        let c = HandoverColumns::from(self.outcomes.as_slice());
        let labels = |names: Vec<&str>| names.into_iter().map(String::from).collect::<Vec<_>>();
        // One column per place and cause of the losses, after `dropped`.
        let drop_columns = (0..HandoverDrops::default().columns().len())
            .map(|k| Column::U64(c.drops.iter().map(|d| d.columns()[k].1).collect()));
        let mut columns = vec![
            Column::U32(c.handover),
            Column::Cat {
                codes: c.flow.into_iter().map(|f| f.0).collect(),
                names: flow_names.to_vec(),
            },
            node_col(c.ue),
            node_col(c.source),
            node_col(c.target),
            categorical(&c.cause, labels(HandoverCauses::labels())),
            categorical(&c.policy, labels(HandoverPolicies::labels())),
            categorical(&c.result, labels(HandoverResults::labels())),
            Column::F64(c.decision_s),
            opt(c.command_s),
            opt(c.attach_s),
            opt(c.path_switch_s),
            opt(c.completion_s),
            opt(c.interruption_s),
            Column::U64(c.forwarded),
            Column::U64(c.dropped),
        ];
        columns.extend(drop_columns);
        columns.extend([
            Column::U64(c.duplicated),
            Column::U64(c.reordered),
            Column::F64(c.start_s),
            Column::F64(c.window_end_s),
            categorical(&c.outcome, labels(TcpOutcomes::labels())),
            Column::U32(c.rto_retransmissions),
            Column::U32(c.fast_retransmissions),
            Column::Bool(c.spurious_rto),
            opt(c.first_rto_s),
            opt(c.rtt_before_s),
            opt(c.rtt_peak_s),
            opt(c.goodput_before_bps),
            opt(c.recovered_at_s),
            opt(c.recovery_time_s),
            opt(c.ramp_time_s),
            opt(c.episode_end_s),
            opt(c
                .delivered_bytes
                .into_iter()
                .map(|b| b.map(|b| b as f64))
                .collect()),
        ]);
        let mut messages: Vec<String> = Vec::new();
        let message_codes = self
            .events
            .iter()
            .map(|e| match messages.iter().position(|m| m == e.message) {
                Some(i) => i as u32,
                None => {
                    messages.push(e.message.to_string());
                    (messages.len() - 1) as u32
                }
            })
            .collect();
        let events = vec![
            Column::U64(self.events.iter().map(|e| e.time.as_ns()).collect()),
            Column::U32(self.events.iter().map(|e| e.handover).collect()),
            node_col(self.events.iter().map(|e| e.ue).collect()),
            node_col(self.events.iter().map(|e| e.from).collect()),
            node_col(self.events.iter().map(|e| e.to).collect()),
            Column::Cat {
                codes: message_codes,
                names: messages,
            },
        ];
        vec![
            Series::from_columns(&series_columns::handovers(), columns),
            Series::from_columns(&series_columns::handover_events(), events),
        ]
    }

    /// The summary's `handovers` section: counts by result and by TCP outcome, the mean
    /// interruption, and one record per handover in id order.
    pub fn summary(&self, world: &World) -> HandoverSummary {
        let nodes = node_names(world);
        let name = |id: NodeId| {
            nodes
                .get(id.index())
                .cloned()
                .unwrap_or_else(|| id.to_string())
        };
        let mut by_result = HandoverResultCounts::default();
        for r in &self.records {
            *match r.result {
                HandoverResult::Completed => &mut by_result.completed,
                HandoverResult::InProgress => &mut by_result.in_progress,
                HandoverResult::PreparationFailed => &mut by_result.preparation_failed,
                HandoverResult::RadioLinkFailure => &mut by_result.radio_link_failure,
            } += 1;
        }
        let (timeout, halving, none) = outcome_counts(&self.outcomes);
        let interruptions: Vec<f64> = self
            .records
            .iter()
            .filter_map(|r| r.interruption())
            .map(|d| d.as_secs_f64())
            .collect();
        let interruption_mean_s = (!interruptions.is_empty())
            .then(|| interruptions.iter().sum::<f64>() / interruptions.len() as f64);
        let secs = |t: Option<SimTime>| t.map(SimTime::as_secs_f64);
        let list = self
            .records
            .iter()
            .map(|r| HandoverEntry {
                id: r.id,
                ue: name(r.ue),
                source: name(r.source),
                target: name(r.target),
                cause: Label::new(r.cause.as_str()),
                policy: Label::new(r.policy.as_str()),
                result: Label::new(r.result.as_str()),
                decision_s: r.decision.as_secs_f64(),
                command_s: secs(r.command),
                execution_s: secs(r.execution),
                attach_s: secs(r.attach),
                path_switch_s: secs(r.path_switch),
                completion_s: secs(r.completion),
                interruption_s: r.interruption().map(|d| d.as_secs_f64()),
            })
            .collect();
        HandoverSummary {
            count: self.records.len() as u64,
            by_result,
            outcomes: TcpOutcomeCounts {
                timeout: timeout as u64,
                halving: halving as u64,
                none: none as u64,
            },
            interruption_mean_s,
            list,
        }
    }
}
