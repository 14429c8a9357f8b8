//! The labels of the outputs: every name a categorical value of the summary or of a series can
//! take (handover causes and results, TCP outcome classes, drop causes and places, stop
//! reasons, link directions, trace variables).
//!
//! Each set is taken from the Rust type that produces the value (`HandoverResult::ALL`,
//! `TcpOutcome::ALL`, …), so a label exists in one place. The output schema lists each set as a
//! string `enum` under its [`LabelSet::NAME`] in `$defs`, and [`output_labels`] hands them to
//! Python by [`LabelSet::KEY`] (`celltcp._core.output_labels()`), which uses them instead of
//! copies of its own. A set's order is the order of the outputs' category lists.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use celltcp_net::handover::{HandoverCause, HandoverPolicy, HandoverResult};
use celltcp_net::queue::DropCause;
use celltcp_net::trace::TraceVar;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Serialize, Serializer};

use crate::analytics::{HandoverDrops, TcpOutcome};
use crate::RunStopReason;

/// A named set of labels.
pub trait LabelSet: 'static {
    /// Its name in the output schema's `$defs`.
    const NAME: &'static str;
    /// Its key in [`output_labels`].
    const KEY: &'static str;
    /// What the labels name.
    const DESCRIPTION: &'static str;
    /// The labels, in the order of the outputs' category lists.
    fn labels() -> Vec<&'static str>;
}

/// One label of set `S`: serialised as its string, described in the schema by the set.
pub struct Label<S>(&'static str, PhantomData<S>);

impl<S: LabelSet> Label<S> {
    /// `label`, which must be one of the set (checked in debug builds).
    pub fn new(label: &'static str) -> Self {
        debug_assert!(
            S::labels().contains(&label),
            "{label:?} is not a label of {}",
            S::NAME
        );
        Label(label, PhantomData)
    }

    pub fn as_str(&self) -> &'static str {
        self.0
    }
}

impl<S> Clone for Label<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for Label<S> {}

impl<S> PartialEq for Label<S> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl<S> fmt::Debug for Label<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.0, f)
    }
}

impl<S> Serialize for Label<S> {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serializer.serialize_str(self.0)
    }
}

impl<S: LabelSet> JsonSchema for Label<S> {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed(S::NAME)
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let set = LabelSetInfo::of::<S>();
        json_schema!({
            "type": "string",
            "description": set.description,
            "enum": set.labels,
        })
    }
}

/// A label set as data: what [`label_sets`] lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelSetInfo {
    pub key: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    pub labels: Vec<&'static str>,
}

impl LabelSetInfo {
    fn of<S: LabelSet>() -> Self {
        LabelSetInfo {
            key: S::KEY,
            name: S::NAME,
            description: S::DESCRIPTION,
            labels: S::labels(),
        }
    }

    /// Its JSON Schema: a string of the set.
    pub fn schema(&self) -> serde_json::Value {
        serde_json::json!({
            "type": "string",
            "description": self.description,
            "enum": self.labels,
        })
    }
}

/// Declares a label set: a marker type and its [`LabelSet`] implementation.
macro_rules! label_set {
    ($(#[$doc:meta])* $marker:ident, $name:literal, $key:literal, $description:literal, $labels:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub enum $marker {}

        impl LabelSet for $marker {
            const NAME: &'static str = $name;
            const KEY: &'static str = $key;
            const DESCRIPTION: &'static str = $description;
            fn labels() -> Vec<&'static str> {
                $labels
            }
        }
    };
}

label_set!(
    /// Why a handover started ([`HandoverCause`]).
    HandoverCauses,
    "HandoverCause",
    "handover_cause",
    "Why a handover started: an A3 measurement report, a scheduled handover, re-establishment after a radio link failure, or a link handover.",
    HandoverCause::ALL.iter().map(|c| c.as_str()).collect()
);

label_set!(
    /// How a handover ended ([`HandoverResult`]).
    HandoverResults,
    "HandoverResult",
    "handover_result",
    "How a handover ended.",
    HandoverResult::ALL.iter().map(|r| r.as_str()).collect()
);

label_set!(
    /// The data-path policy of a handover ([`HandoverPolicy`]; a link handover's is one of
    /// [`HandoverPolicy::LINK`]).
    HandoverPolicies,
    "HandoverPolicy",
    "handover_policy",
    "The data-path policy of a handover (a link handover's is discard or forward).",
    HandoverPolicy::ALL.iter().map(|p| p.as_str()).collect()
);

label_set!(
    /// The TCP outcome class of a flow across a handover ([`TcpOutcome`]).
    TcpOutcomes,
    "TcpOutcome",
    "tcp_outcome",
    "The TCP outcome class of a flow across a handover: a retransmission timeout, a window halving, or neither.",
    TcpOutcome::ALL.iter().map(|o| o.as_str()).collect()
);

label_set!(
    /// Why the network dropped a packet ([`DropCause`]).
    DropCauses,
    "DropCause",
    "drop_cause",
    "Why the network dropped a packet.",
    DropCause::ALL.iter().map(|c| c.as_str()).collect()
);

label_set!(
    /// Where a flow's packets were lost during a handover ([`HandoverDrops`]).
    HandoverDropPlaces,
    "HandoverDropPlace",
    "handover_drop_place",
    "Where a flow's packets were lost during a handover (the handovers series has a dropped_<place> column for each).",
    HandoverDrops::PLACES.to_vec()
);

label_set!(
    /// Why a run ended ([`RunStopReason`]).
    StopReasons,
    "StopReason",
    "stop_reason",
    "Why the run ended: its duration reached, the event budget spent, no event left, the model halted it (a trace limit), a caller's stop or an interruption (Ctrl-C).",
    RunStopReason::ALL.iter().map(|r| r.as_str()).collect()
);

label_set!(
    /// The two directions of a point-to-point link.
    LinkDirections,
    "LinkDirection",
    "link_direction",
    "A direction of a point-to-point link, from end a to end b or back.",
    LINK_DIRECTIONS.to_vec()
);

label_set!(
    /// The variables of the `tcp` series ([`TraceVar`]).
    TraceVars,
    "TraceVar",
    "trace_var",
    "A traced TCP variable (the var column of the tcp series).",
    TraceVar::ALL.iter().map(|v| v.name()).collect()
);

/// The two directions of a point-to-point link, as the summary and the `queue` series name
/// them (index 0 is a→b).
pub const LINK_DIRECTIONS: [&str; 2] = ["a_to_b", "b_to_a"];

/// Every label set of the outputs, in a fixed order.
pub fn label_sets() -> Vec<LabelSetInfo> {
    vec![
        LabelSetInfo::of::<HandoverCauses>(),
        LabelSetInfo::of::<HandoverResults>(),
        LabelSetInfo::of::<HandoverPolicies>(),
        LabelSetInfo::of::<TcpOutcomes>(),
        LabelSetInfo::of::<DropCauses>(),
        LabelSetInfo::of::<HandoverDropPlaces>(),
        LabelSetInfo::of::<StopReasons>(),
        LabelSetInfo::of::<LinkDirections>(),
        LabelSetInfo::of::<TraceVars>(),
    ]
}

/// Every label set by [`LabelSet::KEY`]: `celltcp._core.output_labels()`.
pub fn output_labels() -> BTreeMap<&'static str, Vec<&'static str>> {
    label_sets()
        .into_iter()
        .map(|s| (s.key, s.labels))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_set_is_listed_with_unique_labels() {
        let labels = output_labels();
        assert_eq!(labels.len(), 9);
        for (key, set) in &labels {
            let unique: std::collections::BTreeSet<_> = set.iter().collect();
            assert_eq!(unique.len(), set.len(), "{key} repeats a label");
            assert!(!set.is_empty(), "{key} is empty");
        }
        assert_eq!(labels["tcp_outcome"], ["timeout", "halving", "none"]);
        assert_eq!(
            labels["stop_reason"],
            [
                "duration",
                "eventbudget",
                "exhausted",
                "halted",
                "stopped",
                "interrupted"
            ]
        );
    }

    #[test]
    fn a_label_serialises_as_its_string() {
        let label = Label::<TcpOutcomes>::new(TcpOutcome::Halving.as_str());
        assert_eq!(serde_json::to_string(&label).unwrap(), "\"halving\"");
    }
}
