//! What the network counts and samples per flow, link and medium: [`FlowCounters`] and the
//! opt-in series.

use celltcp_engine::{SimDuration, SimTime};

use crate::packet::{FlowId, NodeId};
use crate::queue::DropCause;
use crate::stats::Histogram;
use crate::trace::{TraceVar, Traces};

/// Per-flow counters kept by the network itself (independent of the transport).
#[derive(Clone, Debug, Default)]
pub struct FlowCounters {
    /// Packets and IP bytes handed to the network, both directions: by the flow's agents and
    /// by middleboxes (every packet a middlebox emits is a new transmission, a Snoop local
    /// retransmission included).
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Of those, the packets and IP bytes middleboxes emitted.
    pub middlebox_packets_sent: u64,
    pub middlebox_bytes_sent: u64,
    /// Packets of the flow a middlebox absorbed (not drops: a suppressed duplicate ACK, a
    /// segment a proxy terminated).
    pub middlebox_absorbed: u64,
    /// Packets and IP bytes delivered to the flow's destination host.
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    /// Packets of the flow dropped, by cause (both directions).
    pub drops_queue_full: u64,
    pub drops_aqm: u64,
    pub drops_link_loss: u64,
    pub drops_no_route: u64,
    pub drops_outage: u64,
    /// Packets dropped when leaving a GTP-U tunnel: outer CE over a Not-ECT inner packet
    /// (RFC 6040 §4.2).
    pub drops_ecn_decap: u64,
    /// Packets discarded by a handover: by a link standing for a radio hop (flushed or refused)
    /// or by a medium's handover procedure.
    pub drops_handover: u64,
    /// One-way delay of the packets delivered to the destination, nanoseconds.
    pub delay_ns: Histogram,
    /// RFC 3550 §6.4.1 interarrival jitter of those packets, nanoseconds.
    pub jitter_ns: f64,
    last_transit_ns: Option<u64>,
    bytes_at_last_sample: u64,
}

impl FlowCounters {
    pub fn drops(&self) -> u64 {
        self.drops_queue_full
            + self.drops_aqm
            + self.drops_link_loss
            + self.drops_no_route
            + self.drops_outage
            + self.drops_ecn_decap
            + self.drops_handover
    }

    /// A packet of the flow reached its destination after `transit_ns`.
    pub(super) fn delivered(&mut self, size_bytes: u32, transit_ns: u64) {
        self.packets_delivered += 1;
        self.bytes_delivered += size_bytes as u64;
        self.delay_ns.record(transit_ns);
        // RFC 3550 §6.4.1: D = transit_j − transit_i; J += (|D| − J)/16.
        if let Some(prev) = self.last_transit_ns {
            let d = transit_ns.abs_diff(prev) as f64;
            self.jitter_ns += (d - self.jitter_ns) / 16.0;
        }
        self.last_transit_ns = Some(transit_ns);
    }

    fn count_drop(&mut self, cause: DropCause) {
        match cause {
            DropCause::QueueFull => self.drops_queue_full += 1,
            DropCause::Aqm => self.drops_aqm += 1,
            DropCause::LinkLoss => self.drops_link_loss += 1,
            DropCause::NoRoute => self.drops_no_route += 1,
            DropCause::Outage => self.drops_outage += 1,
            DropCause::Handover => self.drops_handover += 1,
        }
    }

    /// Bytes delivered since the previous call (for the sampled delivery rate).
    pub(super) fn take_bytes_since_sample(&mut self) -> u64 {
        let bytes = self.bytes_delivered - self.bytes_at_last_sample;
        self.bytes_at_last_sample = self.bytes_delivered;
        bytes
    }
}

/// The counters of `flow`, or `None` for a packet of no known flow ([`crate::packet::NO_FLOW`],
/// end markers): every per-flow count goes through here, so no packet can index past the table.
#[inline]
pub(super) fn flow_mut(counters: &mut [FlowCounters], flow: FlowId) -> Option<&mut FlowCounters> {
    counters.get_mut(flow.index())
}

/// Where in the network a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropSite {
    /// At a node: its routing (no route, TTL), or one of its egress link directions (queue,
    /// loss model, outage, a held radio hop) or its X2-U forwarding buffer.
    Node(NodeId),
    /// Inside a shared medium: a cell's buffers, its radio link, a handover procedure.
    Medium,
}

impl DropSite {
    /// The value of a [`TraceVar::DropSite`] row: the node id, or −1 inside a medium.
    pub fn code(self) -> f64 {
        match self {
            DropSite::Node(n) => f64::from(n.0),
            DropSite::Medium => -1.0,
        }
    }
}

/// Counts a drop of a packet of `flow` at `now` and `site` (and records it when the flow's
/// `dropped` and `drop_site` variables are traced); packets of no known flow count nowhere.
#[inline]
pub(super) fn count_drop(
    counters: &mut [FlowCounters],
    traces: &mut Traces,
    now: SimTime,
    flow: FlowId,
    cause: DropCause,
    site: DropSite,
) {
    if let Some(c) = flow_mut(counters, flow) {
        c.count_drop(cause);
        traces.record(now, flow, TraceVar::Dropped, f64::from(cause.code()));
        traces.record(now, flow, TraceVar::DropSite, site.code());
    }
}

/// Sampled link directions: one row per traced direction per sampling instant. The queue
/// length is a gauge; the other columns are counters since the start of the run, so the
/// difference between two samples is the interval's figure (throughput, drops, marks).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueSeries {
    pub time_ns: Vec<u64>,
    pub link: Vec<u32>,
    /// 0 = a→b, 1 = b→a.
    pub direction: Vec<u32>,
    pub packets: Vec<u32>,
    pub bytes: Vec<u64>,
    /// Bytes delivered to the far end.
    pub bytes_delivered: Vec<u64>,
    /// Packets dropped, by cause: queue full (tail drops and forced drops of an AQM), AQM
    /// (early drops), the loss model, an outage, a link handover.
    pub drops_queue_full: Vec<u64>,
    pub drops_aqm: Vec<u64>,
    pub drops_link_loss: Vec<u64>,
    pub drops_outage: Vec<u64>,
    pub drops_handover: Vec<u64>,
    /// Packets the queue discipline marked CE instead of dropping (RFC 3168 §5).
    pub ecn_marks: Vec<u64>,
}

/// Sampled per-flow delivery rate at the destination host (IP bytes, bits per second).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowRateSeries {
    pub time_ns: Vec<u64>,
    pub flow: Vec<u32>,
    pub rate_bps: Vec<f64>,
}

/// One row per packet delivered to a traced flow's destination.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PacketSeries {
    pub time_ns: Vec<u64>,
    pub flow: Vec<u32>,
    pub delay_ns: Vec<u64>,
    pub size_bytes: Vec<u32>,
    pub app_seq: Vec<u64>,
}

/// Sampled state of traced media (cells): one row per medium, figure and sampling instant.
/// `figure` indexes `keys`, the figure names in the order first seen (`ue.<node>.<name>` or a
/// medium-level name).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MediumSeries {
    pub time_ns: Vec<u64>,
    pub medium: Vec<u32>,
    pub figure: Vec<u32>,
    pub value: Vec<f64>,
    pub keys: Vec<String>,
}

/// Which opt-in series to collect.
#[derive(Clone, Debug, Default)]
pub struct SeriesConfig {
    pub interval: SimDuration,
    pub queue_links: Vec<u32>,
    pub rate_flows: Vec<FlowId>,
    pub packet_flows: Vec<FlowId>,
    /// Media (by index in the order added) whose state is sampled.
    pub media: Vec<u32>,
    /// Most rows the event-driven series (per-packet rows and TCP variables) may hold: the
    /// world halts the run when they reach it ([`crate::world::World::event_rows_full`]), as
    /// they stay in memory until the run ends. None: no bound.
    pub event_rows_limit: Option<u64>,
}
