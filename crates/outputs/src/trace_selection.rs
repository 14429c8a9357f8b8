//! The TCP trace rows a run's outputs keep: those `[trace]` asked for.
//!
//! The per-handover analytics and a watched run record trace variables the user may not have
//! asked for (the analytics' loss-recovery variables, a watch's `cwnd` and `srtt`). Once they
//! have read them, the rows outside the user's selection are removed, so that the `tcp`
//! series is exactly what `[trace]` requested whatever else read the trace.

use std::collections::BTreeSet;

use celltcp_net::packet::FlowId;
use celltcp_net::trace::{TraceVar, VarColumns};

/// The user's selection of TCP trace rows: its variables × its flows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceSelection {
    vars: BTreeSet<u8>,
    flows: BTreeSet<FlowId>,
}

impl TraceSelection {
    /// The rows of `vars` of `flows`.
    pub fn new(
        vars: impl IntoIterator<Item = TraceVar>,
        flows: impl IntoIterator<Item = FlowId>,
    ) -> Self {
        TraceSelection {
            vars: vars.into_iter().map(|v| v as u8).collect(),
            flows: flows.into_iter().collect(),
        }
    }

    /// Whether the row of variable `var` (its code) of `flow` is selected.
    pub fn keeps(&self, var: u8, flow: FlowId) -> bool {
        self.vars.contains(&var) && self.flows.contains(&flow)
    }

    /// Removes the rows not selected, keeping the order of the others.
    pub fn strip(&self, vars: &mut VarColumns) {
        let keep: Vec<bool> = vars
            .var
            .iter()
            .zip(&vars.flow)
            .map(|(v, f)| self.keeps(*v, *f))
            .collect();
        retain_by(&mut vars.time_ns, &keep);
        retain_by(&mut vars.flow, &keep);
        retain_by(&mut vars.var, &keep);
        retain_by(&mut vars.value, &keep);
    }
}

/// Keeps the elements whose `keep` entry is true (`Vec::retain` visits in order).
fn retain_by<T>(v: &mut Vec<T>, keep: &[bool]) {
    let mut k = keep.iter();
    v.retain(|_| k.next().copied().unwrap_or(false));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_selected_variables_of_the_selected_flows_remain() {
        let mut rows = VarColumns::default();
        for (t, flow, var) in [
            (1, 0, TraceVar::Cwnd),
            (2, 1, TraceVar::Cwnd),
            (3, 0, TraceVar::Srtt),
            (4, 0, TraceVar::Cwnd),
        ] {
            rows.time_ns.push(t);
            rows.flow.push(FlowId(flow));
            rows.var.push(var as u8);
            rows.value.push(t as f64);
        }
        TraceSelection::new([TraceVar::Cwnd], [FlowId(0)]).strip(&mut rows);
        assert_eq!(rows.time_ns, vec![1, 4]);
        assert_eq!(rows.flow, vec![FlowId(0); 2]);
        assert_eq!(rows.value, vec![1.0, 4.0]);
        TraceSelection::default().strip(&mut rows);
        assert!(rows.time_ns.is_empty() && rows.var.is_empty());
    }
}
