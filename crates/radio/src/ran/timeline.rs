//! Bookkeeping of the handovers of a radio access network: one [`HandoverRecord`] per handover
//! (its timeline and what happened to each flow's downlink packets) and the message chart as
//! [`HandoverEvent`]s.
//!
//! An event is recorded when its message reaches the receiving entity (or when a step at one
//! entity happens, `from` = `to`), which is when it takes effect: the `handover_command` event
//! is the instant the UE detaches (`HandoverRecord::command`), the `handover_confirm` event the
//! instant the UE has synchronised to the target. Events are appended as the procedure runs,
//! which the medium does in time order, so the list is in time order; equal times keep the
//! order in which the steps ran.

use std::collections::BTreeMap;

use celltcp_engine::SimTime;
use celltcp_net::handover::{
    HandoverCause, HandoverEvent, HandoverFlowCounts, HandoverPolicy, HandoverRecord,
    HandoverResult,
};
use celltcp_net::packet::{FlowId, NodeId};

/// The messages and steps of the procedure, named as in TS 36.300 Fig. 10.1.2.1.1-1, TS 23.401
/// §5.5.1.1.2 (S11) and TS 36.331 §5.3.7 (re-establishment).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandoverMessage {
    /// UE → source: the A3 measurement report (step 2).
    MeasurementReport,
    /// At the source (step 3).
    HandoverDecision,
    /// Source → target over X2-C (step 4).
    HandoverRequest,
    /// At the target (step 5).
    AdmissionControl,
    /// Target → source: admission refused (TS 36.423 §8.2.1.3).
    HandoverPreparationFailure,
    /// Target → source (step 6).
    HandoverRequestAck,
    /// Source → UE: RRCConnectionReconfiguration with mobilityControlInfo (step 7).
    HandoverCommand,
    /// Source → target (step 8).
    SnStatusTransfer,
    /// UE → target: RRCConnectionReconfigurationComplete (step 11).
    HandoverConfirm,
    /// eNB → MME over S1-C (step 12).
    PathSwitchRequest,
    /// MME → S-GW over S11 (step 13).
    ModifyBearerRequest,
    /// S-GW → old eNB: the GTP-U end marker on the old path (step 14, TS 29.281 §7.3.2).
    EndMarker,
    /// S-GW → MME (step 15).
    ModifyBearerResponse,
    /// MME → target (step 16).
    PathSwitchRequestAck,
    /// Target → source (step 17).
    UeContextRelease,
    /// At the UE: T310 expired (TS 36.331 §5.3.11.3).
    RadioLinkFailure,
    /// UE → the cell it re-established with (RRCConnectionReestablishment, §5.3.7).
    RrcConnectionReestablishment,
    /// Source → target, DAPS: the COUNT of the first SDU forwarded early (Rel-16 X2AP EARLY
    /// STATUS TRANSFER).
    EarlyStatusTransfer,
    /// Target → source, DAPS and CHO: the UE accessed the target (Rel-16 HANDOVER SUCCESS).
    HandoverSuccess,
    /// Target → UE, DAPS: the RRC reconfiguration releasing the source leg
    /// (daps-SourceRelease).
    SourceRelease,
    /// Source → UE, CHO: the conditional reconfiguration with the prepared candidates
    /// (TS 36.331 §5.3.5.13, conditionalReconfiguration).
    ConditionalReconfiguration,
    /// At the UE, CHO: the execution condition of a candidate holds; the UE leaves the source.
    ConditionalExecution,
    /// Source → a candidate the UE did not pick, CHO: HANDOVER CANCEL (TS 36.423 §8.2.7).
    HandoverCancel,
}

impl HandoverMessage {
    /// The snake-case name of [`HandoverEvent::message`].
    pub fn as_str(self) -> &'static str {
        match self {
            HandoverMessage::MeasurementReport => "measurement_report",
            HandoverMessage::HandoverDecision => "handover_decision",
            HandoverMessage::HandoverRequest => "handover_request",
            HandoverMessage::AdmissionControl => "admission_control",
            HandoverMessage::HandoverPreparationFailure => "handover_preparation_failure",
            HandoverMessage::HandoverRequestAck => "handover_request_ack",
            HandoverMessage::HandoverCommand => "handover_command",
            HandoverMessage::SnStatusTransfer => "sn_status_transfer",
            HandoverMessage::HandoverConfirm => "handover_confirm",
            HandoverMessage::PathSwitchRequest => "path_switch_request",
            HandoverMessage::ModifyBearerRequest => "modify_bearer_request",
            HandoverMessage::EndMarker => "end_marker",
            HandoverMessage::ModifyBearerResponse => "modify_bearer_response",
            HandoverMessage::PathSwitchRequestAck => "path_switch_request_ack",
            HandoverMessage::UeContextRelease => "ue_context_release",
            HandoverMessage::RadioLinkFailure => "radio_link_failure",
            HandoverMessage::RrcConnectionReestablishment => "rrc_connection_reestablishment",
            HandoverMessage::EarlyStatusTransfer => "early_status_transfer",
            HandoverMessage::HandoverSuccess => "handover_success",
            HandoverMessage::SourceRelease => "source_release",
            HandoverMessage::ConditionalReconfiguration => "conditional_reconfiguration",
            HandoverMessage::ConditionalExecution => "conditional_execution",
            HandoverMessage::HandoverCancel => "handover_cancel",
        }
    }
}

/// What happened to one downlink packet because of a handover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PacketFate {
    Forwarded,
    Dropped(DropPlace),
    Duplicated,
    Reordered,
}

/// Which side of the handover's data path lost a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DropPlace {
    /// The source: its buffer discarded, data reaching it after the forwarding ended.
    Source,
    /// The target: its buffer, a forwarding tunnel leading nowhere, the UE's PDCP receiver.
    Target,
}

/// Totals over every handover, for the medium's report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Totals {
    pub forwarded: u64,
    pub dropped: u64,
    pub duplicated: u64,
    pub reordered: u64,
}

/// One record being written: the record without its flows, and the flows by id.
#[derive(Clone, Debug)]
struct Entry {
    record: HandoverRecord,
    flows: BTreeMap<FlowId, HandoverFlowCounts>,
}

/// The records and events of one radio access network.
#[derive(Clone, Debug, Default)]
pub(super) struct Timeline {
    entries: Vec<Entry>,
    events: Vec<HandoverEvent>,
    totals: Totals,
}

impl Timeline {
    /// Opens the record of a new handover and returns its id (0, 1, … in opening order). The
    /// result is `InProgress` until the procedure says otherwise.
    pub fn open(
        &mut self,
        ue: NodeId,
        source: NodeId,
        target: NodeId,
        cause: HandoverCause,
        policy: HandoverPolicy,
        decision: SimTime,
    ) -> u32 {
        let id = self.entries.len() as u32;
        self.entries.push(Entry {
            record: HandoverRecord {
                id,
                ue,
                source,
                target,
                cause,
                policy,
                decision,
                command: None,
                execution: None,
                attach: None,
                path_switch: None,
                completion: None,
                result: HandoverResult::InProgress,
                flows: Vec::new(),
            },
            flows: BTreeMap::new(),
        });
        id
    }

    /// Appends one message of handover `id` to the chart.
    pub fn event(
        &mut self,
        time: SimTime,
        id: u32,
        ue: NodeId,
        from: NodeId,
        to: NodeId,
        message: HandoverMessage,
    ) {
        debug_assert!(
            self.events.last().is_none_or(|e| e.time <= time),
            "handover events out of time order"
        );
        self.events.push(HandoverEvent {
            time,
            handover: id,
            ue,
            from,
            to,
            message: message.as_str(),
        });
    }

    /// The record of handover `id` (its flows are filled in by [`records`](Self::records)).
    pub fn record_mut(&mut self, id: u32) -> Option<&mut HandoverRecord> {
        self.entries.get_mut(id as usize).map(|e| &mut e.record)
    }

    /// Notes that `flow` had downlink packets in the bearer during handover `id`, so that it
    /// is listed even if nothing happened to them.
    pub fn touch_flow(&mut self, id: u32, flow: FlowId) {
        if let Some(e) = self.entries.get_mut(id as usize) {
            e.flows.entry(flow).or_default();
        }
    }

    /// Counts a packet of `flow` under handover `id` (and in the totals). Without a handover
    /// to blame, only the totals count it.
    pub fn count(&mut self, id: Option<u32>, flow: FlowId, fate: PacketFate) {
        let bump = |c: &mut u64| *c += 1;
        match fate {
            PacketFate::Forwarded => bump(&mut self.totals.forwarded),
            PacketFate::Dropped(_) => bump(&mut self.totals.dropped),
            PacketFate::Duplicated => bump(&mut self.totals.duplicated),
            PacketFate::Reordered => bump(&mut self.totals.reordered),
        }
        let Some(e) = id.and_then(|id| self.entries.get_mut(id as usize)) else {
            return;
        };
        let c = e.flows.entry(flow).or_default();
        match fate {
            PacketFate::Forwarded => bump(&mut c.forwarded),
            PacketFate::Dropped(place) => {
                bump(&mut c.dropped);
                if place == DropPlace::Target {
                    bump(&mut c.dropped_at_target);
                }
            }
            PacketFate::Duplicated => bump(&mut c.duplicated),
            PacketFate::Reordered => bump(&mut c.reordered),
        }
    }

    /// Every record, in opening order, with its flows by flow id.
    pub fn records(&self) -> Vec<HandoverRecord> {
        self.entries
            .iter()
            .map(|e| HandoverRecord {
                flows: e.flows.iter().map(|(&f, &c)| (f, c)).collect(),
                ..e.record.clone()
            })
            .collect()
    }

    pub fn events(&self) -> &[HandoverEvent] {
        &self.events
    }

    pub fn totals(&self) -> Totals {
        self.totals
    }

    /// How many records satisfy `pred`, for the report.
    pub fn count_where(&self, pred: impl Fn(&HandoverRecord) -> bool) -> u64 {
        self.entries.iter().filter(|e| pred(&e.record)).count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_go_to_the_record_and_the_totals() {
        let mut t = Timeline::default();
        let id = t.open(
            NodeId(7),
            NodeId(1),
            NodeId(2),
            HandoverCause::Manual,
            HandoverPolicy::Forward,
            SimTime::from_ns(5),
        );
        assert_eq!(id, 0);
        t.touch_flow(id, FlowId(4));
        t.count(Some(id), FlowId(3), PacketFate::Forwarded);
        t.count(Some(id), FlowId(3), PacketFate::Forwarded);
        t.count(Some(id), FlowId(3), PacketFate::Dropped(DropPlace::Target));
        t.count(None, FlowId(3), PacketFate::Dropped(DropPlace::Source));
        let r = &t.records()[0];
        assert_eq!(r.flows.len(), 2);
        assert_eq!(r.flows[0].0, FlowId(3));
        assert_eq!(r.flows[0].1.forwarded, 2);
        assert_eq!(r.flows[0].1.dropped, 1);
        assert_eq!(r.flows[0].1.dropped_at_target, 1);
        assert_eq!(r.flows[1], (FlowId(4), HandoverFlowCounts::default()));
        assert_eq!(t.totals().dropped, 2);
        assert_eq!(r.result, HandoverResult::InProgress);
    }
}
