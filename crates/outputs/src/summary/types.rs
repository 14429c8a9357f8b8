//! The run summary's types: what `summary.json` holds, section by section.
//!
//! These are the output contract: [`Summary`] serialises to the summary (through
//! [`Summary::to_json`], whose objects are ordered by key), and its JSON Schema is the
//! `summary` of `celltcp schema --output` ([`crate::schema::output_json_schema`]). Figures
//! without a sample (a NaN) are `null`; a section that does not apply to the run (`ran`, `dch`,
//! `middleboxes`, `handovers`, `forwarding`) is absent rather than empty.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::figures::{
    CellFigures, DchFigures, DchUplinkFigures, Figures, MiddleboxFigures, ReceiverFigures,
    SenderFigures, UeFigures,
};
use crate::labels::{HandoverCauses, HandoverPolicies, HandoverResults, Label, StopReasons};

/// `summary.json`: a run's figures per flow, link, cell and handover, and its identity.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Summary {
    /// The celltcp version that ran it.
    pub celltcp_version: &'static str,
    /// The master seed.
    pub seed: u64,
    /// The replication number.
    pub run: u64,
    /// Simulated time at the end of the run, seconds.
    pub simulated_time_s: f64,
    /// Events handled.
    pub events: u64,
    /// Why the run ended.
    pub stop_reason: Label<StopReasons>,
    /// The scenario as run: the scenario file with every default filled in, in the form of
    /// the input schema (`celltcp schema`); an optional key not given is `null`.
    #[schemars(with = "BTreeMap<String, Value>")]
    pub scenario: Value,
    /// Per flow, by name.
    pub flows: BTreeMap<String, FlowSummary>,
    /// Per point-to-point link, by name.
    pub links: BTreeMap<String, LinkSummary>,
    /// Per cell (plain cells and a radio access network's cells), by name.
    pub cells: BTreeMap<String, CellSummary>,
    /// Per GTP-U tunnel endpoint of the EPC (the gateway, the eNBs), by node name; empty
    /// without an EPC.
    pub epc: BTreeMap<String, EpcEndpointSummary>,
    /// The radio access network's own figures: the network's itself when there is one, else
    /// per network by name. Absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ran: Option<RanSection>,
    /// Per dedicated channel, by name; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dch: Option<BTreeMap<String, DchSummary>>,
    /// Per middlebox, by name; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub middleboxes: Option<BTreeMap<String, MiddleboxSummary>>,
    /// The run's handovers; absent when none could happen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handovers: Option<HandoverSummary>,
    /// Per X2-U forwarding buffer, by the node of its eNB; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forwarding: Option<BTreeMap<String, ForwardingSummary>>,
    /// `celltcp emulate` only: the emulation's own record (pacing, attached hosts, observed
    /// handovers; docs/emulation.md). A simulation has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<BTreeMap<String, Value>>")]
    pub emulation: Option<Value>,
}

impl Summary {
    /// The summary as JSON, its objects ordered by key (serde_json's map), as `summary.json`
    /// has always been written.
    pub fn to_json(&self) -> Value {
        // Serialising these types cannot fail: every map key is a string and serde_json
        // writes a non-finite float as null.
        serde_json::to_value(self).expect("a summary is always serialisable")
    }
}

/// A flow's figures.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FlowSummary {
    /// `tcp` or `udp`.
    pub kind: &'static str,
    /// The source and destination hosts.
    pub src: String,
    pub dst: String,
    /// The flow's active period: its start and its stop (or the end of the run), seconds.
    pub start_s: f64,
    pub end_s: f64,
    /// IP bytes delivered to the destination over the active period, bits per second.
    pub throughput_bps: Option<f64>,
    /// Application bytes delivered over the active period, bits per second.
    pub goodput_bps: Option<f64>,
    /// Drops over the packets (both directions) whose fate is known: delivered or dropped.
    pub loss_ratio: Option<f64>,
    /// Packets of the flow sent (both directions), and those delivered.
    pub packets_sent: u64,
    pub packets_delivered: u64,
    /// With middleboxes: of `packets_sent`, those middleboxes emitted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub middlebox_packets_sent: Option<u64>,
    /// With middleboxes: the packets they absorbed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub middlebox_absorbed: Option<u64>,
    /// The flow's packets dropped, by cause.
    pub drops: FlowDrops,
    /// One-way delay of the packets delivered to the destination host: mean, median, 95th
    /// percentile and largest, seconds.
    pub delay_mean_s: Option<f64>,
    pub delay_p50_s: Option<f64>,
    pub delay_p95_s: Option<f64>,
    pub delay_max_s: Option<f64>,
    /// RFC 3550 interarrival jitter of those packets, seconds.
    pub jitter_s: Option<f64>,
    /// The sending agent's own figures.
    pub sender: Figures<SenderFigures>,
    /// The receiving agent's own figures.
    pub receiver: Figures<ReceiverFigures>,
}

/// A flow's drops by cause (the network's causes and the EPC's decapsulation drop).
#[derive(Clone, Copy, Debug, Default, Serialize, JsonSchema)]
pub struct FlowDrops {
    /// A queue at its limit.
    pub queue_full: u64,
    /// An active queue management decision.
    pub aqm: u64,
    /// A link's loss model.
    pub link_loss: u64,
    /// No route, or TTL expired.
    pub no_route: u64,
    /// A link down.
    pub outage: u64,
    /// GTP-U decapsulation of outer CE over a Not-ECT inner packet (RFC 6040).
    pub ecn_decap: u64,
    /// A handover.
    pub handover: u64,
}

/// A point-to-point link: its ends and each direction's figures.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct LinkSummary {
    /// The nodes at ends a and b.
    pub a: String,
    pub b: String,
    /// From a to b.
    pub a_to_b: LinkDirectionSummary,
    /// From b to a.
    pub b_to_a: LinkDirectionSummary,
}

/// One direction of a link.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct LinkDirectionSummary {
    /// Bits per second (a trace-driven direction: the trace's mean rate).
    pub rate_bps: u64,
    /// Propagation delay, seconds.
    pub delay_s: f64,
    /// The queue discipline.
    pub queue: &'static str,
    /// Packets and bytes that started transmission.
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Packets and bytes delivered to the far end.
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    /// Packets dropped, by cause.
    pub drops: LinkDrops,
    /// Packets the queue marked CE instead of dropping them.
    pub ecn_marks: u64,
    /// Time-weighted mean and largest queue, packets and bytes.
    pub queue_mean_packets: Option<f64>,
    pub queue_max_packets: u64,
    pub queue_mean_bytes: Option<f64>,
    pub queue_max_bytes: u64,
    /// Share of the run the transmitter was busy.
    pub utilization: Option<f64>,
}

/// A link direction's drops by cause.
#[derive(Clone, Copy, Debug, Default, Serialize, JsonSchema)]
pub struct LinkDrops {
    /// The queue at its limit.
    pub queue_full: u64,
    /// An active queue management decision.
    pub aqm: u64,
    /// The loss model.
    pub link_loss: u64,
    /// The link down.
    pub outage: u64,
    /// A link handover: flushed from the queue or refused on arrival.
    pub handover: u64,
}

/// A cell's figures, with its UEs'.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct CellSummary {
    /// The cell's own figures.
    #[serde(flatten)]
    pub figures: Figures<CellFigures>,
    /// Per UE, by node name.
    pub ues: BTreeMap<String, Figures<UeFigures>>,
}

/// The `ran` section: with one radio access network its figures, with several per network.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum RanSection {
    /// The network's figures (the usual case).
    One(CellSummary),
    /// Per network, by name.
    Many(BTreeMap<String, CellSummary>),
}

/// A GTP-U tunnel endpoint's counters.
#[derive(Clone, Copy, Debug, Serialize, JsonSchema)]
pub struct EpcEndpointSummary {
    /// Packets put into a tunnel here.
    pub encapsulated: u64,
    /// Packets taken out of a tunnel here and forwarded.
    pub decapsulated: u64,
    /// Outer CE marks copied into the inner header.
    pub ce_propagated: u64,
    /// Outer CE marks discarded with the outer header.
    pub ce_lost: u64,
    /// Packets dropped at decapsulation: outer CE over a Not-ECT inner packet.
    pub drops_ecn_decap: u64,
}

/// A dedicated channel's figures, the uplink's apart.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct DchSummary {
    /// The channel's and its downlink's figures.
    #[serde(flatten)]
    pub figures: Figures<DchFigures>,
    /// The uplink's figures.
    pub uplink: Figures<DchUplinkFigures>,
}

/// A middlebox: what the network counted, and its own figures.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct MiddleboxSummary {
    /// The middlebox's `kind` (`snoop`, `eln`, `split_tcp`).
    pub kind: &'static str,
    /// The node it runs on.
    pub node: String,
    /// Packets handed to it, and those it absorbed.
    pub packets_seen: u64,
    pub packets_absorbed: u64,
    /// Packets it emitted, and their IP bytes.
    pub packets_emitted: u64,
    pub bytes_emitted: u64,
    /// Of those, packets sent ahead of a link's queue.
    pub packets_expedited: u64,
    /// Link losses reported to it.
    pub link_losses: u64,
    /// Its timer calls.
    pub timer_calls: u64,
    /// Its own figures.
    #[serde(flatten)]
    pub figures: Figures<MiddleboxFigures>,
}

/// An X2-U forwarding buffer's counters.
#[derive(Clone, Copy, Debug, Serialize, JsonSchema)]
pub struct ForwardingSummary {
    /// Packets released into the tunnel, and those dropped.
    pub released: u64,
    pub dropped: u64,
    /// Largest content, bytes.
    pub peak_bytes: u64,
    /// Longest wait of a packet, seconds.
    pub max_wait_s: f64,
}

/// The `handovers` section: counts by result and by TCP outcome, the mean interruption, and one
/// record per handover.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct HandoverSummary {
    /// Handovers of the run (media's and link handovers).
    pub count: u64,
    /// Handovers by result.
    pub by_result: HandoverResultCounts,
    /// (handover, TCP flow) pairs by TCP outcome class.
    pub outcomes: TcpOutcomeCounts,
    /// Mean interruption (command to attach) of the handovers that had one, seconds.
    pub interruption_mean_s: Option<f64>,
    /// One record per handover, in id order.
    pub list: Vec<HandoverEntry>,
}

/// Handovers by result; the fields are the labels of `HandoverResult`.
#[derive(Clone, Copy, Debug, Default, Serialize, JsonSchema)]
pub struct HandoverResultCounts {
    pub completed: u64,
    pub in_progress: u64,
    pub preparation_failed: u64,
    pub radio_link_failure: u64,
}

/// (handover, TCP flow) pairs by outcome; the fields are the labels of `TcpOutcome`.
#[derive(Clone, Copy, Debug, Default, Serialize, JsonSchema)]
pub struct TcpOutcomeCounts {
    pub timeout: u64,
    pub halving: u64,
    pub none: u64,
}

/// One handover: who, why, how it ended, and its timeline (seconds since the start of the run,
/// `null` for a step not reached).
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct HandoverEntry {
    /// Unique over the run.
    pub id: u32,
    /// The UE, and the source and target base stations (node names).
    pub ue: String,
    pub source: String,
    pub target: String,
    pub cause: Label<HandoverCauses>,
    pub policy: Label<HandoverPolicies>,
    pub result: Label<HandoverResults>,
    pub decision_s: f64,
    /// The handover command; for a conditional handover, the conditional reconfiguration
    /// with the target (TS 36.331 §5.3.5.13).
    pub command_s: Option<f64>,
    /// Conditional handover only (absent otherwise): the UE's execution, when it left the
    /// source on its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution_s: Option<f64>,
    pub attach_s: Option<f64>,
    pub path_switch_s: Option<f64>,
    pub completion_s: Option<f64>,
    /// Command (conditional handover: execution) to attach.
    pub interruption_s: Option<f64>,
}
