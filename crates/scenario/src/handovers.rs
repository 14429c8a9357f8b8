//! The handovers of a run: the media's records and message timelines plus the link handovers,
//! the per-handover TCP analytics, and their outputs — the `handovers` and `handover_events`
//! series and the `handovers` section of the summary.
//!
//! Record ids are made unique over the run: each medium numbers its handovers from 0, so the
//! records of the media are renumbered in media order (a medium's records keep their order and
//! its timeline follows its records), and the link handovers come last, in time order.

use celltcp_engine::SimTime;
use celltcp_net::handover::{
    HandoverCause, HandoverEvent, HandoverFlowCounts, HandoverRecord, HandoverResult,
};
use celltcp_net::packet::{FlowId, NodeId};
use celltcp_net::world::World;
use serde_json::{json, Map, Value};

use crate::analytics::{
    analyse, outcome_counts, AnalyticsConfig, HandoverColumns, HandoverDrops, HandoverOutcome,
};
use crate::build::HandoverSetup;
use crate::run::RunError;
use crate::series::{Column, Series};

/// Category names of the string columns, fixed so that every run's tables share them.
const CAUSES: [&str; 4] = ["a3", "manual", "rlf", "link"];
const POLICIES: [&str; 4] = ["discard", "forward", "fast_path_switch", "predicted"];
const RESULTS: [HandoverResult; 4] = [
    HandoverResult::Completed,
    HandoverResult::InProgress,
    HandoverResult::PreparationFailed,
    HandoverResult::RadioLinkFailure,
];
const OUTCOMES: [&str; 3] = ["timeout", "halving", "none"];

/// Timeline messages of a link handover: the interruption's start and end.
pub const LINK_INTERRUPTION_START: &str = "interruption_start";
pub const LINK_INTERRUPTION_END: &str = "interruption_end";

/// Everything known about the run's handovers.
#[derive(Clone, Debug, Default)]
pub(crate) struct HandoverOutputs {
    pub records: Vec<HandoverRecord>,
    pub events: Vec<HandoverEvent>,
    pub outcomes: Vec<HandoverOutcome>,
}

/// Gathers the records (media first, then link handovers with their flows' drop counts) and
/// analyses them against the world's trace rows.
pub(crate) fn collect(
    world: &World,
    setup: &HandoverSetup,
    link_drops: &[Vec<(FlowId, HandoverFlowCounts)>],
    run_end: SimTime,
) -> Result<HandoverOutputs, RunError> {
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
    for (plan, flows) in setup.link_plans.iter().zip(link_drops) {
        let id = records.len() as u32;
        records.push(HandoverRecord {
            id,
            ue: plan.ue,
            source: plan.base_station,
            target: plan.base_station,
            cause: HandoverCause::Link,
            policy: plan.policy.as_str(),
            decision: plan.at,
            command: Some(plan.at),
            attach: Some(plan.end),
            path_switch: None,
            completion: Some(plan.end),
            result: HandoverResult::Completed,
            flows: flows.clone(),
        });
        let event = |time, from, to, message| HandoverEvent {
            time,
            handover: id,
            ue: plan.ue,
            from,
            to,
            message,
        };
        events.push(event(
            plan.at,
            plan.base_station,
            plan.ue,
            LINK_INTERRUPTION_START,
        ));
        events.push(event(
            plan.end,
            plan.ue,
            plan.base_station,
            LINK_INTERRUPTION_END,
        ));
    }
    // One timeline in time order; equal times keep the order above (stable sort).
    events.sort_by_key(|e| e.time);
    let outcomes = analyse(
        &records,
        |ue| setup.tcp_flows_of(ue),
        &world.traces.vars,
        run_end,
        AnalyticsConfig::default(),
    )
    .map_err(|e| RunError::Internal(format!("handover analytics: {e}")))?;
    Ok(HandoverOutputs {
        records,
        events,
        outcomes,
    })
}

fn node_names(world: &World) -> Vec<String> {
    world.topo.nodes.iter().map(|n| n.name.clone()).collect()
}

fn secs(t: Option<SimTime>) -> Value {
    t.map_or(Value::Null, |t| json!(t.as_secs_f64()))
}

/// Codes into a fixed list of names; a name not in it is appended (never expected).
fn categorical(values: &[String], fixed: &[&str]) -> Column {
    let mut names: Vec<String> = fixed.iter().map(|s| s.to_string()).collect();
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
    pub(crate) fn series(&self, world: &World, flow_names: &[String]) -> Vec<Series> {
        let nodes = node_names(world);
        let node_col = |ids: Vec<NodeId>| Column::Cat {
            codes: ids,
            names: nodes.clone(),
        };
        let c = HandoverColumns::from(self.outcomes.as_slice());
        let results: Vec<&str> = RESULTS.iter().map(|r| r.as_str()).collect();
        // One column per place and cause of the losses, after `dropped`.
        let drop_columns: Vec<(&'static str, Column)> = HandoverDrops::default()
            .columns()
            .iter()
            .enumerate()
            .map(|(k, (name, _))| {
                let values = c.drops.iter().map(|d| d.columns()[k].1).collect();
                (*name, Column::U64(values))
            })
            .collect();
        let mut columns = vec![
            ("handover", Column::U32(c.handover)),
            (
                "flow",
                Column::Cat {
                    codes: c.flow,
                    names: flow_names.to_vec(),
                },
            ),
            ("ue", node_col(c.ue)),
            ("source", node_col(c.source)),
            ("target", node_col(c.target)),
            ("cause", categorical(&c.cause, &CAUSES)),
            ("policy", categorical(&c.policy, &POLICIES)),
            ("result", categorical(&c.result, &results)),
            ("decision_s", Column::F64(c.decision_s)),
            ("command_s", opt(c.command_s)),
            ("attach_s", opt(c.attach_s)),
            ("path_switch_s", opt(c.path_switch_s)),
            ("completion_s", opt(c.completion_s)),
            ("interruption_s", opt(c.interruption_s)),
            ("forwarded", Column::U64(c.forwarded)),
            ("dropped", Column::U64(c.dropped)),
            ("duplicated", Column::U64(c.duplicated)),
            ("reordered", Column::U64(c.reordered)),
            ("start_s", Column::F64(c.start_s)),
            ("window_end_s", Column::F64(c.window_end_s)),
            ("outcome", categorical(&c.outcome, &OUTCOMES)),
            ("rto_retransmissions", Column::U32(c.rto_retransmissions)),
            ("fast_retransmissions", Column::U32(c.fast_retransmissions)),
            ("spurious_rto", Column::Bool(c.spurious_rto)),
            ("first_rto_s", opt(c.first_rto_s)),
            ("rtt_before_s", opt(c.rtt_before_s)),
            ("rtt_peak_s", opt(c.rtt_peak_s)),
            ("goodput_before_bps", opt(c.goodput_before_bps)),
            ("recovered_at_s", opt(c.recovered_at_s)),
            ("recovery_time_s", opt(c.recovery_time_s)),
            ("ramp_time_s", opt(c.ramp_time_s)),
            ("episode_end_s", opt(c.episode_end_s)),
            (
                "delivered_bytes",
                opt(c
                    .delivered_bytes
                    .into_iter()
                    .map(|b| b.map(|b| b as f64))
                    .collect()),
            ),
        ];
        let after_dropped = columns
            .iter()
            .position(|(n, _)| *n == "dropped")
            .map_or(0, |i| i + 1);
        columns.splice(after_dropped..after_dropped, drop_columns);
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
            (
                "time_ns",
                Column::U64(self.events.iter().map(|e| e.time.as_ns()).collect()),
            ),
            (
                "handover",
                Column::U32(self.events.iter().map(|e| e.handover).collect()),
            ),
            ("ue", node_col(self.events.iter().map(|e| e.ue).collect())),
            (
                "from",
                node_col(self.events.iter().map(|e| e.from).collect()),
            ),
            ("to", node_col(self.events.iter().map(|e| e.to).collect())),
            (
                "message",
                Column::Cat {
                    codes: message_codes,
                    names: messages,
                },
            ),
        ];
        let named =
            |cols: Vec<(&str, Column)>| cols.into_iter().map(|(n, c)| (n.to_string(), c)).collect();
        vec![
            Series {
                name: "handovers".into(),
                columns: named(columns),
            },
            Series {
                name: "handover_events".into(),
                columns: named(events),
            },
        ]
    }

    /// The summary's `handovers` section: counts by result and by TCP outcome, the mean
    /// interruption, and one compact object per handover in id order.
    pub(crate) fn summary(&self, world: &World) -> Value {
        let nodes = node_names(world);
        let name = |id: NodeId| {
            nodes
                .get(id as usize)
                .cloned()
                .unwrap_or_else(|| id.to_string())
        };
        let mut by_result = Map::new();
        for r in RESULTS {
            by_result.insert(
                r.as_str().into(),
                json!(self.records.iter().filter(|x| x.result == r).count()),
            );
        }
        let (timeout, halving, none) = outcome_counts(&self.outcomes);
        let interruptions: Vec<f64> = self
            .records
            .iter()
            .filter_map(|r| r.interruption())
            .map(|d| d.as_secs_f64())
            .collect();
        let mean = if interruptions.is_empty() {
            Value::Null
        } else {
            json!(interruptions.iter().sum::<f64>() / interruptions.len() as f64)
        };
        let list: Vec<Value> = self
            .records
            .iter()
            .map(|r| {
                json!({
                    "id": r.id,
                    "ue": name(r.ue),
                    "source": name(r.source),
                    "target": name(r.target),
                    "cause": r.cause.as_str(),
                    "policy": r.policy,
                    "result": r.result.as_str(),
                    "decision_s": r.decision.as_secs_f64(),
                    "command_s": secs(r.command),
                    "attach_s": secs(r.attach),
                    "path_switch_s": secs(r.path_switch),
                    "completion_s": secs(r.completion),
                    "interruption_s": r.interruption().map_or(Value::Null, |d| json!(d.as_secs_f64())),
                })
            })
            .collect();
        json!({
            "count": self.records.len(),
            "by_result": by_result,
            "outcomes": { "timeout": timeout, "halving": halving, "none": none },
            "interruption_mean_s": mean,
            "list": list,
        })
    }
}
