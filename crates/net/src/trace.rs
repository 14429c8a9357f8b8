//! Opt-in trace series, stored column by column.
//!
//! Each [`TraceVar`] is enabled or not for the whole run; a disabled kind costs one branch on a
//! bitmask and no allocation. Rows are appended in event order, which is deterministic, so the
//! columns are byte-identical across runs with the same inputs.

use celltcp_engine::SimTime;

use crate::packet::FlowId;

/// A per-flow variable that transports and applications may record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum TraceVar {
    /// Congestion window, bytes.
    Cwnd = 0,
    /// Slow-start threshold, bytes (u64::MAX is reported as +inf).
    Ssthresh = 1,
    /// Smoothed RTT, seconds (RFC 6298).
    Srtt = 2,
    /// RTT variation, seconds (RFC 6298).
    Rttvar = 3,
    /// Retransmission timeout, seconds.
    Rto = 4,
    /// One RTT measurement, seconds.
    RttSample = 5,
    /// Bytes in flight (RFC 6675 pipe or snd.nxt − snd.una).
    BytesInFlight = 6,
    /// Controller state: 0 slow start, 1 congestion avoidance, 2 fast recovery, 3 loss (RTO)
    /// recovery, 10+ controller-specific modes (BBR: 10 startup, 11 drain, 12 probe_bw,
    /// 13 probe_rtt).
    CcState = 7,
    /// Bandwidth estimate, bits per second.
    BandwidthEstimate = 8,
    /// A fast retransmission; value = sequence number (relative to the ISN).
    RetxFast = 9,
    /// A timeout retransmission; value = sequence number (relative).
    RetxRto = 10,
    /// A reduction undone as spurious (F-RTO/Eifel); value = restored cwnd, bytes.
    SpuriousUndo = 11,
    /// A duplicate ACK received; value = its ACK number (relative).
    DupAck = 12,
    /// A data segment sent; value = its first sequence number (relative).
    SeqSent = 13,
    /// An ACK received; value = its ACK number (relative).
    AckReceived = 14,
    /// Bytes delivered in order to the receiving application (cumulative).
    Delivered = 15,
    /// Receiver's estimate of the radio loss rate (ACK control of `004_…`).
    LossEstimate = 16,
}

impl TraceVar {
    pub const ALL: [TraceVar; 17] = [
        TraceVar::Cwnd,
        TraceVar::Ssthresh,
        TraceVar::Srtt,
        TraceVar::Rttvar,
        TraceVar::Rto,
        TraceVar::RttSample,
        TraceVar::BytesInFlight,
        TraceVar::CcState,
        TraceVar::BandwidthEstimate,
        TraceVar::RetxFast,
        TraceVar::RetxRto,
        TraceVar::SpuriousUndo,
        TraceVar::DupAck,
        TraceVar::SeqSent,
        TraceVar::AckReceived,
        TraceVar::Delivered,
        TraceVar::LossEstimate,
    ];

    /// Name used in scenario files and output columns.
    pub fn name(self) -> &'static str {
        match self {
            TraceVar::Cwnd => "cwnd",
            TraceVar::Ssthresh => "ssthresh",
            TraceVar::Srtt => "srtt",
            TraceVar::Rttvar => "rttvar",
            TraceVar::Rto => "rto",
            TraceVar::RttSample => "rtt",
            TraceVar::BytesInFlight => "bytes_in_flight",
            TraceVar::CcState => "cc_state",
            TraceVar::BandwidthEstimate => "bandwidth_estimate",
            TraceVar::RetxFast => "retx_fast",
            TraceVar::RetxRto => "retx_rto",
            TraceVar::SpuriousUndo => "spurious_undo",
            TraceVar::DupAck => "dupack",
            TraceVar::SeqSent => "seq_sent",
            TraceVar::AckReceived => "ack_received",
            TraceVar::Delivered => "delivered",
            TraceVar::LossEstimate => "loss_estimate",
        }
    }

    pub fn from_name(name: &str) -> Option<TraceVar> {
        TraceVar::ALL.into_iter().find(|v| v.name() == name)
    }
}

/// Columns of the per-flow variable series: one row per recorded change or event.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VarColumns {
    pub time_ns: Vec<u64>,
    pub flow: Vec<FlowId>,
    pub var: Vec<u8>,
    pub value: Vec<f64>,
}

/// The run's trace sink. Components check [`Traces::enabled`] before computing a value.
#[derive(Clone, Debug, Default)]
pub struct Traces {
    enabled_vars: u64,
    /// Flows whose variables are recorded (indexed by flow id); all flows when empty.
    flows: Vec<bool>,
    pub vars: VarColumns,
}

impl Traces {
    pub fn new(enabled: &[TraceVar]) -> Self {
        let enabled_vars = enabled.iter().fold(0u64, |m, v| m | 1 << (*v as u8));
        Traces { enabled_vars, flows: Vec::new(), vars: VarColumns::default() }
    }

    /// Records variables of these flows only (all flows until called).
    pub fn only_flows(mut self, flows: &[FlowId]) -> Self {
        let n = flows.iter().map(|f| *f as usize + 1).max().unwrap_or(0);
        self.flows = vec![false; n.max(1)];
        for f in flows {
            self.flows[*f as usize] = true;
        }
        self
    }

    #[inline]
    pub fn enabled(&self, var: TraceVar) -> bool {
        self.enabled_vars & (1 << (var as u8)) != 0
    }

    #[inline]
    pub fn any_enabled(&self) -> bool {
        self.enabled_vars != 0
    }

    /// Records `value` for `flow` if `var` is enabled.
    #[inline]
    pub fn record(&mut self, now: SimTime, flow: FlowId, var: TraceVar, value: f64) {
        let flow_on = self.flows.is_empty() || self.flows.get(flow as usize).copied().unwrap_or(false);
        if self.enabled(var) && flow_on {
            self.vars.time_ns.push(now.as_ns());
            self.vars.flow.push(flow);
            self.vars.var.push(var as u8);
            self.vars.value.push(value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disabled_kinds_record_nothing() {
        let mut t = Traces::new(&[TraceVar::Cwnd]);
        t.record(SimTime(1), 0, TraceVar::Srtt, 0.1);
        t.record(SimTime(2), 0, TraceVar::Cwnd, 1448.0);
        assert_eq!(t.vars.time_ns, vec![2]);
        assert!(TraceVar::ALL.iter().all(|v| TraceVar::from_name(v.name()) == Some(*v)));
        let mut only = Traces::new(&[TraceVar::Cwnd]).only_flows(&[1]);
        only.record(SimTime(3), 0, TraceVar::Cwnd, 1.0);
        only.record(SimTime(4), 1, TraceVar::Cwnd, 2.0);
        assert_eq!(only.vars.flow, vec![1]);
    }
}
