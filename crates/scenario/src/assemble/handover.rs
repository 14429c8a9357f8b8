//! What the per-handover analytics need from the world: the TCP flows of each terminal that
//! can hand over, and the loss-recovery variables of those flows recorded whatever `[trace]`
//! asked for — their drops among them, from which a link handover's are counted
//! (`celltcp_outputs::handovers`). The rows the user did not ask for are removed again after
//! the analytics read them, so the `tcp` series stays exactly what `[trace]` requested.

use std::collections::{BTreeMap, BTreeSet};

use celltcp_net::packet::{FlowId, NodeId};
use celltcp_net::trace::{Traces, VarColumns};
use celltcp_outputs::handovers::LinkHandover;
use celltcp_outputs::TraceSelection;

use crate::config::flows::FlowKind;
use crate::Scenario;

/// The rows of the TCP trace `[trace]` asked for: its variables (`trace.tcp`) of its flows
/// (`trace.tcp_flows`), which the outputs keep whatever else recorded the trace.
pub(crate) fn user_trace(scenario: &Scenario) -> TraceSelection {
    let flow_id = |name: &String| {
        FlowId::from_index(
            scenario
                .flows
                .keys()
                .position(|k| k == name)
                .expect("validated"),
        )
    };
    TraceSelection::new(
        scenario.trace.tcp.iter().copied(),
        scenario.trace.tcp_flows.iter().map(flow_id),
    )
}

/// Handover bookkeeping of a built world.
#[derive(Clone, Debug, Default)]
pub(crate) struct HandoverSetup {
    /// A handover can happen: the scenario has `[ran]` or a link handover event.
    pub active: bool,
    /// The link handovers, in time order.
    pub link_handovers: Vec<LinkHandover>,
    /// TCP flows by terminal (either end), for every terminal that can hand over.
    tcp_flows: BTreeMap<NodeId, Vec<FlowId>>,
    /// The user's `[trace]` selection.
    user_trace: TraceSelection,
}

impl HandoverSetup {
    /// The terminals that can hand over are every UE of the radio access network and the `b`
    /// end of every link with a handover event.
    pub(crate) fn new(
        scenario: &Scenario,
        link_handovers: Vec<LinkHandover>,
        node: &impl Fn(&str) -> NodeId,
    ) -> Self {
        let mut terminals: BTreeSet<NodeId> = link_handovers.iter().map(|l| l.ue).collect();
        if scenario.ran.is_some() {
            terminals.extend(
                scenario
                    .cells
                    .values()
                    .flat_map(|c| c.file.ues.keys().map(|ue| node(ue))),
            );
        }
        let mut tcp_flows: BTreeMap<NodeId, Vec<FlowId>> = BTreeMap::new();
        for (i, flow) in scenario.flows.values().enumerate() {
            if !matches!(flow.kind, FlowKind::Tcp(_)) {
                continue;
            }
            let id = FlowId::from_index(i);
            for end in [node(&flow.src), node(&flow.dst)] {
                if terminals.contains(&end) {
                    let list = tcp_flows.entry(end).or_default();
                    if !list.contains(&id) {
                        list.push(id);
                    }
                }
            }
        }
        HandoverSetup {
            active: scenario.ran.is_some() || !link_handovers.is_empty(),
            link_handovers,
            tcp_flows,
            user_trace: user_trace(scenario),
        }
    }

    /// The TCP flows with `ue` at either end, by id (empty for a terminal that cannot hand over).
    pub(crate) fn tcp_flows_of(&self, ue: NodeId) -> Vec<FlowId> {
        self.tcp_flows.get(&ue).cloned().unwrap_or_default()
    }

    /// Every flow whose analytics variables are recorded in addition.
    fn analysed_flows(&self) -> Vec<FlowId> {
        let set: BTreeSet<FlowId> = self.tcp_flows.values().flatten().copied().collect();
        set.into_iter().collect()
    }

    /// Asks `traces` for the analytics' variables of the analysed flows.
    pub(crate) fn enable_traces(&self, traces: &mut Traces) {
        let flows = self.analysed_flows();
        if self.active && !flows.is_empty() {
            traces.also_record(&celltcp_outputs::analytics::REQUIRED_TRACE_VARS, &flows);
        }
    }

    /// Keeps only the rows `[trace]` asked for (the user's variables of the user's flows).
    pub(crate) fn strip_traces(&self, vars: &mut VarColumns) {
        if self.active && !self.analysed_flows().is_empty() {
            self.user_trace.strip(vars);
        }
    }
}
