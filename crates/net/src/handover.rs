//! What a medium reports about the handovers it carried out: one [`HandoverRecord`] per
//! handover (its timeline and what happened to each flow's packets) and the procedure's
//! message timeline as [`HandoverEvent`]s.
//!
//! The records are the raw material of the per-handover TCP analytics (the scenario crate
//! joins them with the flows' traces); the events are the message chart of TS 36.300
//! §10.1.2.1.1 Fig. 10.1.2.1.1-1 as the simulation played it, one row per message.

use celltcp_engine::SimTime;

use crate::packet::{FlowId, NodeId};

/// Why a handover started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandoverCause {
    /// An A3 measurement report (TS 36.331 §5.5.4.4).
    A3,
    /// A handover scheduled at a given time.
    Manual,
    /// RRC connection re-establishment after a radio link failure (TS 36.331 §5.3.7).
    RadioLinkFailure,
    /// An interruption of a point-to-point access link standing for a handover.
    Link,
}

impl HandoverCause {
    /// Every cause, in the order of the outputs' category lists.
    pub const ALL: [HandoverCause; 4] = [
        HandoverCause::A3,
        HandoverCause::Manual,
        HandoverCause::RadioLinkFailure,
        HandoverCause::Link,
    ];

    /// The name in the outputs (summary, `handovers` series).
    pub fn as_str(self) -> &'static str {
        match self {
            HandoverCause::A3 => "a3",
            HandoverCause::Manual => "manual",
            HandoverCause::RadioLinkFailure => "rlf",
            HandoverCause::Link => "link",
        }
    }
}

/// How a handover ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandoverResult {
    /// The UE attached to the target and the source released its context.
    Completed,
    /// The UE attached to the target; the procedure had not finished when the run ended.
    InProgress,
    /// The target refused the request (admission control) or preparation timed out.
    PreparationFailed,
    /// The radio link failed before the handover completed; the UE re-established.
    RadioLinkFailure,
}

impl HandoverResult {
    /// Every result, in the order of the outputs' category lists.
    pub const ALL: [HandoverResult; 4] = [
        HandoverResult::Completed,
        HandoverResult::InProgress,
        HandoverResult::PreparationFailed,
        HandoverResult::RadioLinkFailure,
    ];

    /// The name in the outputs (summary, `handovers` series).
    pub fn as_str(self) -> &'static str {
        match self {
            HandoverResult::Completed => "completed",
            HandoverResult::InProgress => "in_progress",
            HandoverResult::PreparationFailed => "preparation_failed",
            HandoverResult::RadioLinkFailure => "radio_link_failure",
        }
    }
}

/// What happens to the downlink data buffered at the source when a UE hands over: the
/// data-path policy of a handover. A scenario file writes the snake-case name
/// (`policy = "fast_path_switch"`), and the outputs label each handover with it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "snake_case")
)]
pub enum HandoverPolicy {
    /// The source's buffered and in-transit data are lost (seed 002 "without buffer
    /// transfer"); for a link handover, so is every downlink arrival during the interruption.
    Discard,
    /// Buffered and in-transit data are forwarded to the target over X2-U (TS 36.300
    /// §10.1.2.1.2) and the path switch follows the handover confirm: the standard procedure
    /// (TS 36.300 Fig. 10.1.2.1.1-1). For a link handover, the base station keeps its buffer
    /// (seed 002 "with buffer transfer").
    #[default]
    Forward,
    /// As forward, with the path switch request sent right after the handover command
    /// (seed 000 §V-A.1, Fig. 5).
    FastPathSwitch,
    /// As forward, with the path switch anticipated by a prediction step before the handover
    /// command so that the source drains its buffer (seed 000 §V-A.2, Fig. 6).
    Predicted,
}

impl HandoverPolicy {
    /// Every policy, in the order of the outputs' category lists.
    pub const ALL: [HandoverPolicy; 4] = [
        HandoverPolicy::Discard,
        HandoverPolicy::Forward,
        HandoverPolicy::FastPathSwitch,
        HandoverPolicy::Predicted,
    ];

    /// The policies a link handover (an interruption of a point-to-point access link) can
    /// play: it has no X2 and no path switch, so only whether the buffer survives.
    pub const LINK: [HandoverPolicy; 2] = [HandoverPolicy::Discard, HandoverPolicy::Forward];

    /// The name in the scenario file and in the outputs.
    pub const fn as_str(self) -> &'static str {
        match self {
            HandoverPolicy::Discard => "discard",
            HandoverPolicy::Forward => "forward",
            HandoverPolicy::FastPathSwitch => "fast_path_switch",
            HandoverPolicy::Predicted => "predicted",
        }
    }

    /// Whether the source forwards its data to the target (all but `Discard`).
    pub const fn forwards(self) -> bool {
        !matches!(self, HandoverPolicy::Discard)
    }

    /// Whether the path switch request is sent from the source before the UE attaches (seed
    /// 000 Fig. 5 and 6) rather than by the target after the handover confirm.
    pub const fn early_path_switch(self) -> bool {
        matches!(
            self,
            HandoverPolicy::FastPathSwitch | HandoverPolicy::Predicted
        )
    }
}

impl std::fmt::Display for HandoverPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a handover did to one flow's packets (downlink data of the bearer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HandoverFlowCounts {
    /// Packets sent from the source to the target over X2-U.
    pub forwarded: u64,
    /// Packets the handover procedure itself lost (every one also a drop of cause
    /// [`crate::queue::DropCause::Handover`]): discarded at the source, refused by a full
    /// target buffer, or lost at the UE because forwarded data came too late.
    pub dropped: u64,
    /// Of `dropped`, those lost on the target's side of the data path: the target's buffer,
    /// a forwarding tunnel that led nowhere, the UE's PDCP receiver. The rest were lost at the
    /// source (its buffer discarded, data reaching it after the forwarding ended).
    pub dropped_at_target: u64,
    /// Packets the UE received twice (its PDCP receiver discarded the copy).
    pub duplicated: u64,
    /// Packets delivered to the UE after a packet of the same flow that was sent later.
    pub reordered: u64,
}

/// One handover of one UE.
#[derive(Clone, Debug, PartialEq)]
pub struct HandoverRecord {
    /// 0, 1, … in the order the handovers started (per medium).
    pub id: u32,
    pub ue: NodeId,
    /// Source and target base stations (for a link handover: the link's two ends).
    pub source: NodeId,
    pub target: NodeId,
    pub cause: HandoverCause,
    /// The data-path policy.
    pub policy: HandoverPolicy,
    /// The handover decision at the source (for a link handover: the interruption start).
    pub decision: SimTime,
    /// The RRC handover command: the UE detaches, the interruption starts. For a conditional
    /// handover, the conditional reconfiguration with the target that reached the UE (it
    /// leaves the source later, at `execution`).
    pub command: Option<SimTime>,
    /// Conditional handover (TS 36.300 §10.1.2.1a): the UE's execution condition held, or
    /// its radio link failed with the target prepared, and it left the source on its own;
    /// the interruption starts here. `None` for the other procedures, whose UE leaves at
    /// `command`.
    pub execution: Option<SimTime>,
    /// The UE is synchronised to the target and has sent the handover confirm.
    pub attach: Option<SimTime>,
    /// The S-GW switched the downlink path to the target.
    pub path_switch: Option<SimTime>,
    /// The source released the UE context (end of the procedure).
    pub completion: Option<SimTime>,
    pub result: HandoverResult,
    /// Per flow with downlink packets in the bearer during the handover, by flow id.
    pub flows: Vec<(FlowId, HandoverFlowCounts)>,
}

impl HandoverRecord {
    /// When the UE left the source: the execution of a conditional handover, else the
    /// handover command.
    pub fn departure(&self) -> Option<SimTime> {
        self.execution.or(self.command)
    }

    /// Interruption of the user plane: from the UE's departure from the source
    /// ([`departure`](Self::departure)) to the attach.
    pub fn interruption(&self) -> Option<celltcp_engine::SimDuration> {
        Some(self.attach?.saturating_since(self.departure()?))
    }
}

/// One message or step of a handover procedure, for the timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandoverEvent {
    pub time: SimTime,
    /// The handover's record id.
    pub handover: u32,
    pub ue: NodeId,
    /// Sending and receiving entities (nodes; the MME and S-GW are the EPC gateway node).
    pub from: NodeId,
    pub to: NodeId,
    /// The message, named as in TS 36.300 Fig. 10.1.2.1.1-1 in snake case
    /// (`measurement_report`, `handover_request`, `handover_request_ack`,
    /// `handover_command`, `sn_status_transfer`, `handover_confirm`, `path_switch_request`,
    /// `modify_bearer_request`, `end_marker`, `path_switch_request_ack`, `ue_context_release`,
    /// …).
    pub message: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_lists_every_cause_and_result_once() {
        // The matches fail to compile when a variant is added: add it to ALL too.
        for c in HandoverCause::ALL {
            match c {
                HandoverCause::A3
                | HandoverCause::Manual
                | HandoverCause::RadioLinkFailure
                | HandoverCause::Link => {}
            }
        }
        for r in HandoverResult::ALL {
            match r {
                HandoverResult::Completed
                | HandoverResult::InProgress
                | HandoverResult::PreparationFailed
                | HandoverResult::RadioLinkFailure => {}
            }
        }
        let causes: std::collections::BTreeSet<_> =
            HandoverCause::ALL.iter().map(|c| c.as_str()).collect();
        let results: std::collections::BTreeSet<_> =
            HandoverResult::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!((causes.len(), results.len()), (4, 4));
    }
}
