//! `[trace]`: opt-in time series.

use std::collections::{BTreeMap, BTreeSet};

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::trace::TraceVar;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

use super::cells::CellSpec;
use super::dch::DchSpec;
use super::flows::{Flow, FlowKind};
use super::links::Link;
use super::quantity::{Quantity, Time};
use crate::validate::{flow_ref, link_ref, positive_time};
use crate::ScenarioError;

/// `[trace]`: opt-in time series; every key has a default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TraceFile {
    /// Sampling period of sampled series (a time, > 0).
    pub interval: Quantity<Time>,
    /// Links whose queue length (packets, bytes) is sampled in both directions.
    pub queues: Vec<String>,
    /// Flows whose received rate is sampled.
    pub flows: Vec<String>,
    /// Flows with one row per received packet (time, one-way delay, size).
    pub packets: Vec<String>,
    /// TCP variables recorded on every change or event.
    #[schemars(schema_with = "tcp_vars_schema")]
    pub tcp: Vec<String>,
    /// TCP flows whose variables are recorded; all TCP flows by default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp_flows: Option<Vec<String>>,
    /// Cells whose per-UE state (buffer, CQI, cumulative bits, SDUs, delays, retransmissions)
    /// and PRB use are sampled.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<String>,
    /// Dedicated channels (`[dch.NAME]`) whose per-interval RLC and transport-channel figures
    /// are sampled (the `dch` series).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dch: Vec<String>,
    /// Most rows of `packets` and `tcp` a run may keep, together (they stay in memory until
    /// the run ends; a run that reaches the bound is refused when it does): 10,000,000 by
    /// default, about 0.6 GB. Omitted: the default.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_event_rows: Option<u64>,
}

impl Default for TraceFile {
    fn default() -> Self {
        TraceFile {
            interval: Quantity::default_of("10ms"),
            queues: Vec::new(),
            flows: Vec::new(),
            packets: Vec::new(),
            tcp: Vec::new(),
            tcp_flows: None,
            cells: Vec::new(),
            dch: Vec::new(),
            max_event_rows: None,
        }
    }
}

fn tcp_vars_schema(_generator: &mut SchemaGenerator) -> Schema {
    let names: Vec<&str> = TraceVar::ALL.iter().map(|v| v.name()).collect();
    json_schema!({
        "type": "array",
        "items": { "type": "string", "enum": names },
        "uniqueItems": true,
    })
}

/// What to trace, names resolved and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSpec {
    /// Sampling period, nanoseconds (> 0).
    pub interval: SimDuration,
    /// Links whose queues are sampled (both directions).
    pub queues: Vec<String>,
    /// Flows whose received rate is sampled.
    pub flows: Vec<String>,
    /// Flows with a per-packet record.
    pub packets: Vec<String>,
    /// TCP variables to record.
    pub tcp: Vec<TraceVar>,
    /// TCP flows whose variables are recorded.
    pub tcp_flows: Vec<String>,
    /// Cells whose state is sampled.
    pub cells: Vec<String>,
    /// Dedicated channels whose state is sampled.
    pub dch: Vec<String>,
    /// Most rows of the event-driven series (`trace.max_event_rows`, [`MAX_EVENT_ROWS`] by
    /// default).
    pub max_event_rows: u64,
}

/// Rejects a name listed twice.
fn unique(key: &str, names: &[String]) -> Result<(), ScenarioError> {
    let mut seen = BTreeSet::new();
    for name in names {
        if !seen.insert(name) {
            return Err(ScenarioError::new(key, format!("'{name}' is listed twice")));
        }
    }
    Ok(())
}

impl TraceFile {
    /// Converts the section, writing the resolved default `tcp_flows` back.
    pub(crate) fn convert(
        &mut self,
        links: &BTreeMap<String, Link>,
        flows: &BTreeMap<String, Flow>,
        cells: &BTreeMap<String, CellSpec>,
        dch: &BTreeMap<String, DchSpec>,
    ) -> Result<TraceSpec, ScenarioError> {
        unique("trace.dch", &self.dch)?;
        for name in &self.dch {
            if !dch.contains_key(name) {
                let known: Vec<String> = dch.keys().cloned().collect();
                return Err(ScenarioError::new(
                    "trace.dch",
                    format!(
                        "channel '{name}' does not exist (dch: {})",
                        list_or_none(&known)
                    ),
                ));
            }
        }
        unique("trace.cells", &self.cells)?;
        for name in &self.cells {
            if !cells.contains_key(name) {
                let known: Vec<String> = cells.keys().cloned().collect();
                return Err(ScenarioError::new(
                    "trace.cells",
                    format!(
                        "cell '{name}' does not exist (cells: {})",
                        list_or_none(&known)
                    ),
                ));
            }
        }
        positive_time("trace.interval", &self.interval)?;
        unique("trace.queues", &self.queues)?;
        for name in &self.queues {
            link_ref("trace.queues", name, links)?;
        }
        for (key, list) in [
            ("trace.flows", &self.flows),
            ("trace.packets", &self.packets),
        ] {
            unique(key, list)?;
            for name in list {
                flow_ref(key, name, flows)?;
            }
        }
        unique("trace.tcp", &self.tcp)?;
        let mut vars = Vec::with_capacity(self.tcp.len());
        for name in &self.tcp {
            let var = TraceVar::from_name(name).ok_or_else(|| {
                let names: Vec<&str> = TraceVar::ALL.iter().map(|v| v.name()).collect();
                ScenarioError::new(
                    "trace.tcp",
                    format!(
                        "'{name}' is not a TCP trace variable; expected one of: {}",
                        names.join(", ")
                    ),
                )
            })?;
            vars.push(var);
        }
        let tcp_names: Vec<String> = flows
            .iter()
            .filter(|(_, f)| matches!(f.kind, FlowKind::Tcp(_)))
            .map(|(name, _)| name.clone())
            .collect();
        let tcp_flows = match &self.tcp_flows {
            Some(list) => {
                unique("trace.tcp_flows", list)?;
                for name in list {
                    flow_ref("trace.tcp_flows", name, flows)?;
                    if !tcp_names.contains(name) {
                        return Err(ScenarioError::new(
                            "trace.tcp_flows",
                            format!(
                                "flow '{name}' is not a TCP flow (TCP flows: {})",
                                list_or_none(&tcp_names)
                            ),
                        ));
                    }
                }
                list.clone()
            }
            None => tcp_names,
        };
        self.tcp_flows = Some(tcp_flows.clone());
        Ok(TraceSpec {
            interval: self.interval.value,
            queues: self.queues.clone(),
            flows: self.flows.clone(),
            packets: self.packets.clone(),
            tcp: vars,
            tcp_flows,
            cells: self.cells.clone(),
            dch: self.dch.clone(),
            max_event_rows: match self.max_event_rows {
                Some(0) => {
                    return Err(ScenarioError::new(
                        "trace.max_event_rows",
                        "must be at least 1 (a number of rows, e.g. 10000000)",
                    ))
                }
                Some(n) => n,
                None => MAX_EVENT_ROWS,
            },
        })
    }
}

/// At most this many rows of sampled series a run may keep: every `trace.interval` each
/// sampled series adds a row (see `sampled_series`), and the rows stay in memory until the
/// run ends. 5,000,000 rows is about 1 GB at the widest rows (a cell's UE); a 1-hour run
/// sampled every 10 ms keeps 360,001 rows per series.
pub const MAX_TRACE_ROWS: u64 = 5_000_000;

/// At most this many rows of the event-driven series a run may keep: a row for each delivered
/// packet of a flow in `trace.packets` (32 bytes) and for each change of a variable in
/// `trace.tcp` (21 bytes), kept in memory until the run ends. Their number follows the traffic
/// and cannot be known before the run, so the world halts a run that reaches it and the run
/// is refused then, naming the keys ([`event_rows_error`]): 10,000,000 rows are at most about
/// 0.6 GB with the columns' growth, and a 1 Gb/s flow of 1500-byte packets traced for 100 s
/// has 8.3 million. `trace.max_event_rows` sets another bound.
pub const MAX_EVENT_ROWS: u64 = 10_000_000;

/// The error of a run halted at [`MAX_EVENT_ROWS`] at simulated time `at`.
pub fn event_rows_error(spec: &TraceSpec, at: SimTime) -> ScenarioError {
    let (key, what) = match (spec.packets.is_empty(), spec.tcp.is_empty()) {
        (false, true) => ("trace.packets", "the packets of the flows in trace.packets"),
        (true, false) => ("trace.tcp", "the TCP variables of trace.tcp"),
        _ => ("trace", "trace.packets and trace.tcp"),
    };
    ScenarioError::new(
        key,
        format!(
            "{what} reached {} rows at {:.3} s of simulated time, the most a run may keep \
             (trace.max_event_rows); trace fewer flows or variables, a shorter \
             simulation.duration, or raise trace.max_event_rows",
            spec.max_event_rows,
            at.as_secs_f64()
        ),
    )
}

/// The number of series sampled every `trace.interval`: both directions of each queue link,
/// each rate flow, each UE and the cell itself of each traced cell (with a radio access
/// network, which is sampled whole, every UE and every cell), each traced dedicated channel.
/// Per-packet rows (`packets`) and TCP variables (`tcp`) come with events, not with time, and
/// are not counted.
fn sampled_series(spec: &TraceSpec, cells: &BTreeMap<String, CellSpec>, in_ran: bool) -> u64 {
    let cell_rows = |c: &CellSpec| c.file.ues.len() as u64 + 1;
    let traced_cells: u64 = if in_ran && !spec.cells.is_empty() {
        cells.values().map(cell_rows).sum()
    } else {
        spec.cells
            .iter()
            .filter_map(|n| cells.get(n))
            .map(cell_rows)
            .sum()
    };
    2 * spec.queues.len() as u64 + spec.flows.len() as u64 + traced_cells + spec.dch.len() as u64
}

/// Refuses a `[trace]` whose sampled series would add more than [`MAX_TRACE_ROWS`] rows over
/// the run (duration / interval + 1 samples of each series), before anything runs: such a run
/// would otherwise fill the memory and abort.
pub(crate) fn check_rows(
    spec: &TraceSpec,
    interval_text: &str,
    duration: SimDuration,
    cells: &BTreeMap<String, CellSpec>,
    in_ran: bool,
) -> Result<(), ScenarioError> {
    let series = sampled_series(spec, cells, in_ran);
    let interval_ns = spec.interval.as_ns().max(1);
    let samples = duration.as_ns() / interval_ns + 1;
    let rows = u128::from(samples) * u128::from(series);
    if rows <= u128::from(MAX_TRACE_ROWS) {
        return Ok(());
    }
    // The shortest interval that keeps the rows within the bound, in whole units.
    let min_ns = (u128::from(duration.as_ns()) * u128::from(series))
        .div_ceil(u128::from(MAX_TRACE_ROWS.saturating_sub(series)).max(1))
        .max(1);
    let suggestion = [(1_000_000_000u128, "s"), (1_000_000, "ms"), (1_000, "us")]
        .iter()
        .find(|(unit, _)| min_ns >= *unit)
        .map_or(format!("{min_ns}ns"), |(unit, name)| {
            format!("{}{name}", min_ns.div_ceil(*unit))
        });
    Err(ScenarioError::new(
        "trace.interval",
        format!(
            "'{interval_text}' samples {series} series {samples} times over the run: {rows} rows, \
             more than the {MAX_TRACE_ROWS} a run may keep; use a longer trace.interval \
             (at least '{suggestion}'), fewer traced series or a shorter simulation.duration"
        ),
    ))
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}
