//! Per-flow index of the trace rows the handover analytics reads.
//!
//! The trace ([`VarColumns`]) is one long table of every flow's variables in event order. The
//! index splits the rows of the flows of interest into one time-sorted series per (flow,
//! variable) in a single pass, so that every later question ("last srtt at or before t", "RTO
//! retransmissions in [a, b]") is a binary search instead of a scan of the whole trace.

use std::ops::Range;

use celltcp_net::packet::FlowId;
use celltcp_net::trace::{TraceVar, VarColumns};

use super::episode::SendProgress;

/// One variable of one flow: event times (ns) and values, sorted by time (ties keep the order in
/// which the rows were recorded).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct VarSeries {
    /// Simulation time of each row, nanoseconds.
    pub time_ns: Vec<u64>,
    /// The recorded value, in the unit of its [`TraceVar`].
    pub value: Vec<f64>,
}

impl VarSeries {
    /// No rows.
    pub const EMPTY: VarSeries = VarSeries {
        time_ns: Vec::new(),
        value: Vec::new(),
    };

    fn push(&mut self, time_ns: u64, value: f64) {
        self.time_ns.push(time_ns);
        self.value.push(value);
    }

    /// Sorts by time, keeping the recorded order of rows with equal times. The trace is written
    /// in event order, so this is a check that finds nothing to do in practice.
    fn sort_by_time(&mut self) {
        if self.time_ns.windows(2).all(|w| w[0] <= w[1]) {
            return;
        }
        let mut rows: Vec<(u64, f64)> = self
            .time_ns
            .iter()
            .copied()
            .zip(self.value.iter().copied())
            .collect();
        rows.sort_by_key(|r| r.0);
        (self.time_ns, self.value) = rows.into_iter().unzip();
    }

    /// Index of the first row later than `t_ns` (the number of rows at or before it).
    pub fn upper_bound(&self, t_ns: u64) -> usize {
        self.time_ns.partition_point(|&t| t <= t_ns)
    }

    /// Indices of the rows with `from_ns <= time <= to_ns` (both ends included); empty when
    /// `from_ns > to_ns`.
    pub fn range(&self, from_ns: u64, to_ns: u64) -> Range<usize> {
        let lo = self.time_ns.partition_point(|&t| t < from_ns);
        let hi = self.upper_bound(to_ns).max(lo);
        lo..hi
    }

    /// Number of rows in `[from_ns, to_ns]`.
    pub fn count_in(&self, from_ns: u64, to_ns: u64) -> usize {
        self.range(from_ns, to_ns).len()
    }

    /// Time of the first row in `[from_ns, to_ns]`, ns.
    pub fn first_in(&self, from_ns: u64, to_ns: u64) -> Option<u64> {
        let r = self.range(from_ns, to_ns);
        (!r.is_empty()).then(|| self.time_ns[r.start])
    }

    /// Time of the first row strictly after `t_ns`, ns.
    pub fn first_after(&self, t_ns: u64) -> Option<u64> {
        self.time_ns.get(self.upper_bound(t_ns)).copied()
    }

    /// Largest value in `[from_ns, to_ns]`.
    pub fn max_in(&self, from_ns: u64, to_ns: u64) -> Option<f64> {
        self.value[self.range(from_ns, to_ns)]
            .iter()
            .copied()
            .reduce(f64::max)
    }

    /// Value of the last row at or before `t_ns`.
    pub fn last_at_or_before(&self, t_ns: u64) -> Option<f64> {
        self.upper_bound(t_ns).checked_sub(1).map(|i| self.value[i])
    }

    /// The series read as a step function of time: the last value at or before `t_ns`, 0 before
    /// the first row. Used for the cumulative `Delivered` bytes.
    pub fn step_at(&self, t_ns: u64) -> f64 {
        self.last_at_or_before(t_ns).unwrap_or(0.0)
    }

    /// True when some row in `[from_ns, to_ns]` has the value `state` while the row before it
    /// (if any) had another value: the flow entered `state` inside the interval. Only the rows
    /// of the interval are visited.
    pub fn enters_in(&self, from_ns: u64, to_ns: u64, state: f64) -> bool {
        self.range(from_ns, to_ns)
            .any(|i| self.value[i] == state && (i == 0 || self.value[i - 1] != state))
    }
}

/// The eleven variables the analytics reads ([`REQUIRED_TRACE_VARS`](super::REQUIRED_TRACE_VARS)),
/// for one flow.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct FlowTrace {
    /// Smoothed RTT, seconds.
    pub srtt: VarSeries,
    /// RTT samples, seconds.
    pub rtt_sample: VarSeries,
    /// Controller state codes (2 = fast recovery).
    pub cc_state: VarSeries,
    /// Fast retransmissions (value: relative sequence number, unused here).
    pub retx_fast: VarSeries,
    /// RTO retransmissions (value: relative sequence number, unused here).
    pub retx_rto: VarSeries,
    /// Reductions undone as spurious (value: restored cwnd, unused here).
    pub spurious_undo: VarSeries,
    /// Cumulative in-order bytes at the receiver.
    pub delivered: VarSeries,
    /// The flow's packets dropped in the network (value: the cause's code).
    pub dropped: VarSeries,
    /// Where each of those was dropped, row for row (value: the node, −1 in a medium). Empty
    /// for a trace recorded without it.
    pub drop_site: VarSeries,
    /// The sender's `SeqSent` and `AckReceived` rows, split into connections.
    pub send: SendProgress,
}

impl FlowTrace {
    /// No rows at all: the trace of a flow that was not asked for.
    const EMPTY: FlowTrace = FlowTrace {
        srtt: VarSeries::EMPTY,
        rtt_sample: VarSeries::EMPTY,
        cc_state: VarSeries::EMPTY,
        retx_fast: VarSeries::EMPTY,
        retx_rto: VarSeries::EMPTY,
        spurious_undo: VarSeries::EMPTY,
        delivered: VarSeries::EMPTY,
        dropped: VarSeries::EMPTY,
        drop_site: VarSeries::EMPTY,
        send: SendProgress::EMPTY,
    };

    fn series_mut(&mut self, var: u8) -> Option<&mut VarSeries> {
        const SRTT: u8 = TraceVar::Srtt as u8;
        const RTT_SAMPLE: u8 = TraceVar::RttSample as u8;
        const CC_STATE: u8 = TraceVar::CcState as u8;
        const RETX_FAST: u8 = TraceVar::RetxFast as u8;
        const RETX_RTO: u8 = TraceVar::RetxRto as u8;
        const SPURIOUS_UNDO: u8 = TraceVar::SpuriousUndo as u8;
        const DELIVERED: u8 = TraceVar::Delivered as u8;
        const SEQ_SENT: u8 = TraceVar::SeqSent as u8;
        const ACK_RECEIVED: u8 = TraceVar::AckReceived as u8;
        const DROPPED: u8 = TraceVar::Dropped as u8;
        const DROP_SITE: u8 = TraceVar::DropSite as u8;
        match var {
            SRTT => Some(&mut self.srtt),
            RTT_SAMPLE => Some(&mut self.rtt_sample),
            CC_STATE => Some(&mut self.cc_state),
            RETX_FAST => Some(&mut self.retx_fast),
            RETX_RTO => Some(&mut self.retx_rto),
            SPURIOUS_UNDO => Some(&mut self.spurious_undo),
            DELIVERED => Some(&mut self.delivered),
            SEQ_SENT => Some(&mut self.send.seq_sent),
            ACK_RECEIVED => Some(&mut self.send.ack_received),
            DROPPED => Some(&mut self.dropped),
            DROP_SITE => Some(&mut self.drop_site),
            _ => None,
        }
    }

    /// Whether a row of `var` with this value is kept: the analytics takes maxima, differences
    /// and durations of the measured quantities and compares sequence numbers, so a non-finite
    /// RTT, srtt, byte count or sequence number is dropped rather than allowed to turn a result
    /// into NaN or split a connection. Event rows (retransmissions, undos, states) are kept
    /// whatever their value.
    fn keeps(var: u8, value: f64) -> bool {
        let measured = var == TraceVar::Srtt as u8
            || var == TraceVar::RttSample as u8
            || var == TraceVar::Delivered as u8
            || var == TraceVar::SeqSent as u8
            || var == TraceVar::AckReceived as u8;
        !measured || value.is_finite()
    }
}

/// The wanted flows' series, indexed by flow id.
#[derive(Clone, Debug, Default)]
pub(crate) struct TraceIndex {
    flows: Vec<Option<FlowTrace>>,
}

impl TraceIndex {
    /// Splits the rows of `wanted` flows out of `vars` in one pass. The four columns must have
    /// the same length (checked by the caller).
    pub fn build(vars: &VarColumns, wanted: &[FlowId]) -> TraceIndex {
        let slots = wanted.iter().map(|&f| f.index() + 1).max().unwrap_or(0);
        let mut flows: Vec<Option<FlowTrace>> = vec![None; slots];
        for &f in wanted {
            flows[f.index()] = Some(FlowTrace::default());
        }
        let rows = vars
            .time_ns
            .iter()
            .zip(&vars.flow)
            .zip(&vars.var)
            .zip(&vars.value);
        for (((&t, &flow), &var), &value) in rows {
            let Some(Some(trace)) = flows.get_mut(flow.index()) else {
                continue;
            };
            if !FlowTrace::keeps(var, value) {
                continue;
            }
            if let Some(series) = trace.series_mut(var) {
                series.push(t, value);
            }
        }
        for trace in flows.iter_mut().flatten() {
            for s in [
                &mut trace.srtt,
                &mut trace.rtt_sample,
                &mut trace.cc_state,
                &mut trace.retx_fast,
                &mut trace.retx_rto,
                &mut trace.spurious_undo,
                &mut trace.delivered,
                &mut trace.dropped,
                &mut trace.drop_site,
                &mut trace.send.seq_sent,
                &mut trace.send.ack_received,
            ] {
                s.sort_by_time();
            }
            trace.send.index_connections();
        }
        TraceIndex { flows }
    }

    /// The flow's series; an empty trace for a flow that was not asked for at build time.
    pub fn flow(&self, flow: FlowId) -> &FlowTrace {
        static EMPTY: FlowTrace = FlowTrace::EMPTY;
        self.flows
            .get(flow.index())
            .and_then(Option::as_ref)
            .unwrap_or(&EMPTY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analytics::REQUIRED_TRACE_VARS;

    fn series(rows: &[(u64, f64)]) -> VarSeries {
        let mut s = VarSeries::default();
        for &(t, v) in rows {
            s.push(t, v);
        }
        s.sort_by_time();
        s
    }

    #[test]
    fn ranges_include_both_ends() {
        let s = series(&[(10, 1.0), (20, 2.0), (20, 3.0), (30, 4.0)]);
        assert_eq!(s.range(10, 20), 0..3);
        assert_eq!(s.range(11, 29), 1..3);
        assert_eq!(s.range(31, 40), 4..4);
        assert_eq!(s.range(25, 15).len(), 0);
        assert_eq!(s.first_in(15, 40), Some(20));
        assert_eq!(s.max_in(0, 25), Some(3.0));
        assert_eq!(s.max_in(21, 29), None);
        assert_eq!(s.last_at_or_before(20), Some(3.0));
        assert_eq!(s.last_at_or_before(9), None);
        assert_eq!(s.step_at(9), 0.0);
        assert_eq!(s.step_at(1_000), 4.0);
    }

    #[test]
    fn entering_a_state_needs_a_change() {
        // Fast recovery (2) entered at 20, left at 30, entered again at 50.
        let s = series(&[
            (10, 1.0),
            (20, 2.0),
            (30, 1.0),
            (40, 1.0),
            (50, 2.0),
            (60, 2.0),
        ]);
        assert!(s.enters_in(15, 25, 2.0));
        assert!(!s.enters_in(21, 45, 2.0));
        assert!(s.enters_in(45, 55, 2.0));
        // Already in fast recovery before 55: the row at 60 repeats the state.
        assert!(!s.enters_in(55, 70, 2.0));
        // The first row of a flow counts as an entry.
        assert!(series(&[(5, 2.0)]).enters_in(0, 5, 2.0));
    }

    #[test]
    fn build_splits_wanted_flows_and_sorts() {
        let mut vars = VarColumns::default();
        let mut row = |t: u64, flow: FlowId, var: TraceVar, value: f64| {
            vars.time_ns.push(t);
            vars.flow.push(flow);
            vars.var.push(var as u8);
            vars.value.push(value);
        };
        row(30, FlowId(1), TraceVar::Srtt, 0.05);
        row(10, FlowId(1), TraceVar::Srtt, 0.04);
        row(20, FlowId(2), TraceVar::Srtt, 0.9);
        row(25, FlowId(1), TraceVar::Cwnd, 1448.0);
        row(26, FlowId(1), TraceVar::RttSample, f64::NAN);
        row(27, FlowId(1), TraceVar::RetxRto, 0.0);
        row(28, FlowId(1), TraceVar::SeqSent, 1.0);
        row(29, FlowId(1), TraceVar::AckReceived, 1461.0);
        row(29, FlowId(1), TraceVar::AckReceived, f64::INFINITY);
        let idx = TraceIndex::build(&vars, &[FlowId(1), FlowId(5)]);
        let f1 = idx.flow(FlowId(1));
        assert_eq!(f1.srtt.time_ns, vec![10, 30]);
        assert_eq!(f1.srtt.value, vec![0.04, 0.05]);
        assert_eq!(f1.rtt_sample.time_ns.len(), 0, "non-finite RTT dropped");
        assert_eq!(f1.retx_rto.time_ns, vec![27]);
        assert_eq!(f1.send.seq_sent.value, vec![1.0]);
        assert_eq!(
            f1.send.ack_received.value,
            vec![1461.0],
            "non-finite ACK dropped"
        );
        assert!(
            idx.flow(FlowId(2)).srtt.time_ns.is_empty(),
            "flow 2 was not asked for"
        );
        assert_eq!(idx.flow(FlowId(5)).srtt.time_ns.len(), 0);
        assert_eq!(idx.flow(FlowId(99)).delivered.time_ns.len(), 0);
    }

    #[test]
    fn required_vars_are_exactly_the_indexed_ones() {
        let mut trace = FlowTrace::default();
        for var in TraceVar::ALL {
            assert_eq!(
                trace.series_mut(var as u8).is_some(),
                REQUIRED_TRACE_VARS.contains(&var),
                "{var:?}"
            );
        }
    }
}
