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
    /// A packet of the flow was dropped in the network; value = the cause's code
    /// ([`crate::queue::DropCause::code`]). Recorded by the world, not by the transports.
    Dropped = 17,
    /// Where the packet of the `Dropped` row just before was dropped
    /// ([`crate::world::DropSite::code`]): the node whose egress (queue, link, X2-U forwarding
    /// buffer) or routing lost it, or −1 inside a shared medium (a cell's buffers and radio
    /// link). Recorded with every `Dropped` row, at the same time, when traced.
    DropSite = 18,
}

impl TraceVar {
    pub const ALL: [TraceVar; 19] = [
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
        TraceVar::Dropped,
        TraceVar::DropSite,
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
            TraceVar::Dropped => "dropped",
            TraceVar::DropSite => "drop_site",
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
///
/// What is recorded is the union of two selections: the user's (variables × the flows of
/// [`Traces::only_flows`], all flows by default) and the additions of [`Traces::also_record`]
/// (variables per flow). `enabled` tests the union of all variables in one mask; `record`
/// decides per flow, and writes one row whichever selections ask for it.
#[derive(Clone, Debug, Default)]
pub struct Traces {
    /// Union of every selection's variables: what [`Traces::enabled`] tests.
    enabled_vars: u64,
    /// The user's variables.
    user_vars: u64,
    /// Flows whose user variables are recorded (indexed by flow id); all flows when empty.
    flows: Vec<bool>,
    /// Variables recorded in addition for some flows: (flow, mask), sorted by flow.
    extra: Vec<(FlowId, u64)>,
    pub vars: VarColumns,
}

fn mask(vars: &[TraceVar]) -> u64 {
    vars.iter().fold(0u64, |m, v| m | 1 << (*v as u8))
}

impl Traces {
    pub fn new(enabled: &[TraceVar]) -> Self {
        let user_vars = mask(enabled);
        Traces {
            enabled_vars: user_vars,
            user_vars,
            flows: Vec::new(),
            extra: Vec::new(),
            vars: VarColumns::default(),
        }
    }

    /// Records the user's variables for these flows only (all flows until called). Variables
    /// added with [`Traces::also_record`] are kept.
    pub fn only_flows(mut self, flows: &[FlowId]) -> Self {
        let n = flows.iter().map(|f| f.index() + 1).max().unwrap_or(0);
        self.flows = vec![false; n.max(1)];
        for f in flows {
            self.flows[f.index()] = true;
        }
        self
    }

    /// Records `vars` for `flows` as well, whatever was enabled before (the per-handover
    /// analytics need the loss-recovery variables of the flows of handing-over UEs even when
    /// the user asked for nothing). Calls accumulate; a row asked for by several selections is
    /// written once.
    pub fn also_record(&mut self, vars: &[TraceVar], flows: &[FlowId]) {
        let add = mask(vars);
        if add == 0 {
            return;
        }
        self.enabled_vars |= add;
        for &flow in flows {
            match self.extra.binary_search_by_key(&flow, |(f, _)| *f) {
                Ok(i) => self.extra[i].1 |= add,
                Err(i) => self.extra.insert(i, (flow, add)),
            }
        }
    }

    #[inline]
    pub fn enabled(&self, var: TraceVar) -> bool {
        self.enabled_vars & (1 << (var as u8)) != 0
    }

    #[inline]
    pub fn any_enabled(&self) -> bool {
        self.enabled_vars != 0
    }

    /// Whether `var` of `flow` is recorded: by the user's selection or by an addition.
    fn wanted(&self, flow: FlowId, bit: u64) -> bool {
        let user = self.user_vars & bit != 0
            && (self.flows.is_empty() || self.flows.get(flow.index()).copied().unwrap_or(false));
        user || self
            .extra
            .binary_search_by_key(&flow, |(f, _)| *f)
            .is_ok_and(|i| self.extra[i].1 & bit != 0)
    }

    /// Records `value` for `flow` if `var` is selected for that flow.
    #[inline]
    pub fn record(&mut self, now: SimTime, flow: FlowId, var: TraceVar, value: f64) {
        if self.enabled(var) && self.wanted(flow, 1 << (var as u8)) {
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
        t.record(SimTime(1), FlowId(0), TraceVar::Srtt, 0.1);
        t.record(SimTime(2), FlowId(0), TraceVar::Cwnd, 1448.0);
        assert_eq!(t.vars.time_ns, vec![2]);
        assert!(TraceVar::ALL
            .iter()
            .all(|v| TraceVar::from_name(v.name()) == Some(*v)));
        let mut only = Traces::new(&[TraceVar::Cwnd]).only_flows(&[FlowId(1)]);
        only.record(SimTime(3), FlowId(0), TraceVar::Cwnd, 1.0);
        only.record(SimTime(4), FlowId(1), TraceVar::Cwnd, 2.0);
        assert_eq!(only.vars.flow, vec![FlowId(1)]);
    }

    /// Records (time, flow, var) of every (flow, var) pair offered at time `t`, in that order.
    fn offer_all(t: &mut Traces, at: u64, flows: &[FlowId]) -> Vec<(u64, u32, u8)> {
        for &f in flows {
            for v in TraceVar::ALL {
                t.record(SimTime(at), f, v, f64::from(f.0));
            }
        }
        let c = &t.vars;
        (0..c.time_ns.len())
            .map(|i| (c.time_ns[i], c.flow[i].0, c.var[i]))
            .collect()
    }

    #[test]
    fn also_record_adds_variables_for_chosen_flows_only() {
        use TraceVar::*;
        // Nothing asked for by the user: only the additions are recorded.
        let mut t = Traces::new(&[]);
        assert!(!t.any_enabled());
        t.also_record(&[RetxRto, Srtt], &[FlowId(2)]);
        assert!(t.enabled(RetxRto) && t.enabled(Srtt) && !t.enabled(Cwnd));
        let rows = offer_all(&mut t, 1, &[FlowId(0), FlowId(1), FlowId(2), FlowId(3)]);
        assert_eq!(rows, vec![(1, 2, Srtt as u8), (1, 2, RetxRto as u8)]);

        // Additions accumulate per flow and leave the user's selection as it was.
        let mut t = Traces::new(&[Cwnd]).only_flows(&[FlowId(0)]);
        t.also_record(&[Srtt], &[FlowId(5), FlowId(1)]);
        t.also_record(&[Delivered, Cwnd], &[FlowId(1), FlowId(0)]);
        t.also_record(&[], &[FlowId(3)]);
        let rows = offer_all(&mut t, 7, &[FlowId(0), FlowId(1), FlowId(3), FlowId(5)]);
        // Flow 0's cwnd is asked for by both selections: one row.
        let want = vec![
            (7, 0, Cwnd as u8),
            (7, 0, Delivered as u8),
            (7, 1, Cwnd as u8),
            (7, 1, Srtt as u8),
            (7, 1, Delivered as u8),
            (7, 5, Srtt as u8),
        ];
        assert_eq!(rows, want);
        assert_eq!(t.vars.value[2], 1.0, "values are as recorded");
        // A flow id far beyond the others (the no-flow id) costs no table of that size.
        t.also_record(&[Rto], &[FlowId(u32::MAX)]);
        t.record(SimTime(8), FlowId(u32::MAX), Rto, 3.0);
        assert_eq!(t.vars.flow.last(), Some(&FlowId(u32::MAX)));
    }

    #[test]
    fn the_same_calls_give_byte_identical_columns() {
        let run = || {
            let mut t = Traces::new(&[TraceVar::Cwnd]).only_flows(&[FlowId(1)]);
            t.also_record(
                &[TraceVar::CcState, TraceVar::RttSample],
                &[FlowId(0), FlowId(2)],
            );
            for at in 0..5 {
                offer_all(&mut t, at, &[FlowId(2), FlowId(0), FlowId(1)]);
            }
            t.vars
        };
        let (a, b) = (run(), run());
        assert_eq!(a, b);
        assert_eq!(
            a.time_ns.len(),
            5 * 5,
            "flows 0 and 2: two variables; flow 1: one"
        );
        let bits: Vec<u64> = a.value.iter().map(|v| v.to_bits()).collect();
        assert_eq!(
            bits,
            b.value.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
    }
}
