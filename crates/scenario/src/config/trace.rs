//! `[trace]`: opt-in time series.

use std::collections::{BTreeMap, BTreeSet};

use celltcp_engine::SimDuration;
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
                    format!("cell '{name}' does not exist (cells: {})", list_or_none(&known)),
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
        })
    }
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}
