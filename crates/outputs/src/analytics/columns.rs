//! Column-oriented form of the handover analytics, one `Vec` per field, for columnar output
//! (Parquet). Units and meaning as in [`HandoverOutcome`]; `None` becomes a null.

use celltcp_net::packet::{FlowId, NodeId};

use super::handover::{HandoverDrops, HandoverOutcome};

/// The rows of [`HandoverOutcome`] transposed: entry `i` of every field is row `i`.
/// Enumerations and names are strings (`cause`: `a3`/`manual`/`rlf`/`link`, `result`:
/// `completed`/…, `outcome`: `timeout`/`halving`/`none`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HandoverColumns {
    pub handover: Vec<u32>,
    pub flow: Vec<FlowId>,
    pub ue: Vec<NodeId>,
    pub source: Vec<NodeId>,
    pub target: Vec<NodeId>,
    pub cause: Vec<String>,
    pub policy: Vec<String>,
    pub result: Vec<String>,
    pub decision_s: Vec<f64>,
    pub command_s: Vec<Option<f64>>,
    pub attach_s: Vec<Option<f64>>,
    pub path_switch_s: Vec<Option<f64>>,
    pub completion_s: Vec<Option<f64>>,
    pub interruption_s: Vec<Option<f64>>,
    pub forwarded: Vec<u64>,
    pub dropped: Vec<u64>,
    /// The losses by place and cause, one column each ([`HandoverDrops::columns`]).
    pub drops: Vec<HandoverDrops>,
    pub duplicated: Vec<u64>,
    pub reordered: Vec<u64>,
    pub start_s: Vec<f64>,
    pub window_end_s: Vec<f64>,
    pub episode_end_s: Vec<Option<f64>>,
    pub outcome: Vec<String>,
    pub rto_retransmissions: Vec<u32>,
    pub fast_retransmissions: Vec<u32>,
    pub spurious_rto: Vec<bool>,
    pub first_rto_s: Vec<Option<f64>>,
    pub rtt_before_s: Vec<Option<f64>>,
    pub rtt_peak_s: Vec<Option<f64>>,
    pub goodput_before_bps: Vec<Option<f64>>,
    pub recovered_at_s: Vec<Option<f64>>,
    pub recovery_time_s: Vec<Option<f64>>,
    pub ramp_time_s: Vec<Option<f64>>,
    pub delivered_bytes: Vec<Option<u64>>,
}

impl HandoverColumns {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.handover.len()
    }

    pub fn is_empty(&self) -> bool {
        self.handover.is_empty()
    }

    fn push(&mut self, r: &HandoverOutcome) {
        self.handover.push(r.handover);
        self.flow.push(r.flow);
        self.ue.push(r.ue);
        self.source.push(r.source);
        self.target.push(r.target);
        self.cause.push(r.cause.as_str().to_string());
        self.policy.push(r.policy.as_str().to_string());
        self.result.push(r.result.as_str().to_string());
        self.decision_s.push(r.decision_s);
        self.command_s.push(r.command_s);
        self.attach_s.push(r.attach_s);
        self.path_switch_s.push(r.path_switch_s);
        self.completion_s.push(r.completion_s);
        self.interruption_s.push(r.interruption_s);
        self.forwarded.push(r.forwarded);
        self.dropped.push(r.dropped);
        self.drops.push(r.drops);
        self.duplicated.push(r.duplicated);
        self.reordered.push(r.reordered);
        self.start_s.push(r.start_s);
        self.window_end_s.push(r.window_end_s);
        self.episode_end_s.push(r.episode_end_s);
        self.outcome.push(r.outcome.as_str().to_string());
        self.rto_retransmissions.push(r.rto_retransmissions);
        self.fast_retransmissions.push(r.fast_retransmissions);
        self.spurious_rto.push(r.spurious_rto);
        self.first_rto_s.push(r.first_rto_s);
        self.rtt_before_s.push(r.rtt_before_s);
        self.rtt_peak_s.push(r.rtt_peak_s);
        self.goodput_before_bps.push(r.goodput_before_bps);
        self.recovered_at_s.push(r.recovered_at_s);
        self.recovery_time_s.push(r.recovery_time_s);
        self.ramp_time_s.push(r.ramp_time_s);
        self.delivered_bytes.push(r.delivered_bytes);
    }
}

impl From<&[HandoverOutcome]> for HandoverColumns {
    fn from(rows: &[HandoverOutcome]) -> Self {
        let mut cols = HandoverColumns::default();
        for r in rows {
            cols.push(r);
        }
        cols
    }
}
