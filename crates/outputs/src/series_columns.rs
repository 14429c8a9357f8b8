//! The column sets of the series: for each table a run can write (`queue`, `flow_rate`,
//! `packets`, `cells`, `tcp`, `dch`, `handovers`, `handover_events`), its columns in order,
//! each with its type, meaning and, for a categorical column with fixed categories, the label
//! set they come from.
//!
//! The builders of the series take their column names from here ([`Series::from_columns`]
//! checks the types), so a column set exists in one place; `celltcp schema --output` describes
//! them ([`crate::schema::output_json_schema`]), which is where Python reads them
//! (`celltcp.outputs.series_columns`).

use schemars::JsonSchema;
use serde::Serialize;

use celltcp_net::queue::DropCause;
use celltcp_radio::dch::SERIES_COLUMNS as DCH_COLUMNS;

use crate::analytics::HandoverDrops;
use crate::labels::{
    HandoverCauses, HandoverPolicies, HandoverResults, LabelSet, LinkDirections, TcpOutcomes,
    TraceVars,
};
use crate::series::{Column, Series};

/// The type of a column as the core hands it over: `f64`, `u64`, `u32` and `bool` values, or
/// `cat` (codes into a list of names; a Parquet dictionary column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    F64,
    U64,
    U32,
    Bool,
    Cat,
}

impl Column {
    /// The column's [`Dtype`].
    pub fn dtype(&self) -> Dtype {
        match self {
            Column::F64(_) => Dtype::F64,
            Column::U64(_) => Dtype::U64,
            Column::U32(_) => Dtype::U32,
            Column::Bool(_) => Dtype::Bool,
            Column::Cat { .. } => Dtype::Cat,
        }
    }
}

/// One column of a series.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct ColumnSpec {
    pub name: String,
    pub dtype: Dtype,
    /// Meaning and unit; NaN stands for an undefined value in an `f64` column.
    pub description: &'static str,
    /// For a categorical column whose categories are fixed: the label set
    /// (`celltcp._core.output_labels()` key) they are, in order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub labels: Option<&'static str>,
    /// When the column is written only under a condition, the condition; `None`: always.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub only: Option<&'static str>,
}

/// The columns of one series, in order.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct SeriesColumns {
    /// The series' name (its Parquet file is `<name>.parquet`).
    pub name: &'static str,
    /// What a row is, and what records it.
    pub description: &'static str,
    pub columns: Vec<ColumnSpec>,
}

impl SeriesColumns {
    /// A column set without columns yet; [`col`](Self::col) and
    /// [`labelled`](Self::labelled) add them in order.
    pub fn new(name: &'static str, description: &'static str) -> Self {
        SeriesColumns {
            name,
            description,
            columns: Vec::new(),
        }
    }

    /// Adds a column.
    pub fn col(mut self, name: impl Into<String>, dtype: Dtype, description: &'static str) -> Self {
        self.columns.push(ColumnSpec {
            name: name.into(),
            dtype,
            description,
            labels: None,
            only: None,
        });
        self
    }

    /// Adds a column written only when `condition` holds (after the columns always written).
    pub fn col_only(
        mut self,
        name: impl Into<String>,
        dtype: Dtype,
        description: &'static str,
        condition: &'static str,
    ) -> Self {
        self = self.col(name, dtype, description);
        if let Some(c) = self.columns.last_mut() {
            c.only = Some(condition);
        }
        self
    }

    /// Adds a categorical column whose categories are the labels of `S`.
    pub fn labelled<S: LabelSet>(mut self, name: &'static str, description: &'static str) -> Self {
        self.columns.push(ColumnSpec {
            name: name.into(),
            dtype: Dtype::Cat,
            description,
            labels: Some(S::KEY),
            only: None,
        });
        self
    }

    /// The column names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.columns.iter().map(|c| c.name.as_str())
    }
}

impl Series {
    /// The series `spec` describes, with `columns` in its order.
    ///
    /// # Panics
    ///
    /// When the columns are not those of the spec (their number or a type): a bug of the
    /// builder, caught by every run that writes the series.
    pub fn from_columns(spec: &SeriesColumns, columns: Vec<Column>) -> Series {
        assert_eq!(
            columns.len(),
            spec.columns.len(),
            "series {}: {} columns for {} in its column set",
            spec.name,
            columns.len(),
            spec.columns.len()
        );
        let columns = spec
            .columns
            .iter()
            .zip(columns)
            .map(|(s, c)| {
                assert_eq!(
                    c.dtype(),
                    s.dtype,
                    "series {}: column {} is not of its type",
                    spec.name,
                    s.name
                );
                (s.name.clone(), c)
            })
            .collect();
        Series {
            name: spec.name.into(),
            columns,
        }
    }
}

const TIME_NS: &str = "simulated time of the row, nanoseconds (Python adds time_s, seconds)";

/// `queue`: one row per link direction and sampling instant.
pub fn queue() -> SeriesColumns {
    SeriesColumns::new(
        "queue",
        "One row per traced link direction and sampling instant ([trace] queue): the queue then, and the direction's cumulative counters.",
    )
    .col("time_ns", Dtype::U64, TIME_NS)
    .col("link", Dtype::Cat, "link name")
    .labelled::<LinkDirections>("direction", "the link direction")
    .col("packets", Dtype::U32, "packets queued")
    .col("bytes", Dtype::U64, "bytes queued")
    .col("bytes_delivered", Dtype::U64, "bytes delivered to the far end so far")
    .col("drops_queue_full", Dtype::U64, "packets dropped so far: the queue at its limit")
    .col("drops_aqm", Dtype::U64, "packets dropped so far: an AQM decision")
    .col("drops_link_loss", Dtype::U64, "packets dropped so far: the loss model")
    .col("drops_outage", Dtype::U64, "packets dropped so far: the link down")
    .col("drops_handover", Dtype::U64, "packets dropped so far: a link handover")
    .col("ecn_marks", Dtype::U64, "packets marked CE so far")
}

/// `flow_rate`: one row per flow and sampling interval.
pub fn flow_rate() -> SeriesColumns {
    SeriesColumns::new(
        "flow_rate",
        "One row per traced flow and sampling interval ([trace] flow_rate): the rate the destination received over the interval ending at time_ns.",
    )
    .col("time_ns", Dtype::U64, TIME_NS)
    .col("flow", Dtype::Cat, "flow name")
    .col("rate_bps", Dtype::F64, "IP bits received per second over the interval")
}

/// `packets`: one row per packet delivered to its destination.
pub fn packets() -> SeriesColumns {
    SeriesColumns::new(
        "packets",
        "One row per packet of a traced flow delivered to its destination host ([trace] packets).",
    )
    .col(
        "time_ns",
        Dtype::U64,
        "arrival time, nanoseconds (Python adds time_s, seconds)",
    )
    .col("flow", Dtype::Cat, "flow name")
    .col("delay_ns", Dtype::U64, "one-way delay, nanoseconds")
    .col("size_bytes", Dtype::U32, "IP size, bytes")
    .col(
        "app_seq",
        Dtype::U64,
        "the application's sequence number (UDP) or 0",
    )
}

/// `cells`: one row per cell (or UE), figure and sampling instant.
pub fn cells() -> SeriesColumns {
    SeriesColumns::new(
        "cells",
        "One row per traced cell, figure and sampling instant ([trace] cells), in long form: a cell's own figures with an empty ue, a UE's with its name. Figures are named as in the summary's cells tables; counters are cumulative.",
    )
    .col("time_ns", Dtype::U64, TIME_NS)
    .col("cell", Dtype::Cat, "cell name")
    .col("ue", Dtype::Cat, "UE node name, empty for a cell-level figure")
    .col("figure", Dtype::Cat, "figure name")
    .col("value", Dtype::F64, "the figure's value")
}

/// `tcp`: one row per traced change of a TCP variable.
pub fn tcp() -> SeriesColumns {
    SeriesColumns::new(
        "tcp",
        "One row per recorded value of a traced TCP variable ([trace] tcp, and what the handover analytics need).",
    )
    .col("time_ns", Dtype::U64, TIME_NS)
    .col("flow", Dtype::Cat, "flow name")
    .labelled::<TraceVars>("var", "the variable")
    .col("value", Dtype::F64, "its value (units as in docs/outputs.md)")
}

/// `dch`: one row per traced dedicated channel and sampling interval.
pub fn dch() -> SeriesColumns {
    let mut spec = SeriesColumns::new(
        "dch",
        "One row per traced dedicated channel and sampling interval after time zero ([trace] dch): increments over the interval, rates, gauges at its end (celltcp-radio dch::series).",
    )
    .col("time_ns", Dtype::U64, "end of the interval, nanoseconds (Python adds time_s, seconds)")
    .col("dch", Dtype::Cat, "channel name");
    for name in DCH_COLUMNS {
        spec = spec.col(name, Dtype::F64, "see celltcp-radio dch::SERIES_COLUMNS");
    }
    spec
}

/// `handovers`: one row per handover and TCP flow of the UE.
pub fn handovers() -> SeriesColumns {
    let spec = SeriesColumns::new(
        "handovers",
        "One row per handover and TCP flow with the handing-over UE at either end: the handover's identity and timeline, the flow's packet counts and the TCP analytics (docs/handover.md); NaN where undefined.",
    )
    .col("handover", Dtype::U32, "handover id, as in the summary's handovers.list")
    .col("flow", Dtype::Cat, "flow name")
    .col("ue", Dtype::Cat, "UE node name")
    .col("source", Dtype::Cat, "source base station node name")
    .col("target", Dtype::Cat, "target base station node name")
    .labelled::<HandoverCauses>("cause", "why the handover started")
    .labelled::<HandoverPolicies>("policy", "its data-path policy")
    .labelled::<HandoverResults>("result", "how it ended")
    .col("decision_s", Dtype::F64, "the decision, seconds")
    .col("command_s", Dtype::F64, "the handover command, seconds")
    .col("attach_s", Dtype::F64, "the UE's attach to the target, seconds")
    .col("path_switch_s", Dtype::F64, "the path switch, seconds")
    .col("completion_s", Dtype::F64, "the completion, seconds")
    .col("interruption_s", Dtype::F64, "command to attach, seconds")
    .col("forwarded", Dtype::U64, "the flow's packets forwarded over X2-U (Xn-U between gNBs)")
    .col("dropped", Dtype::U64, "the flow's packets lost during the handover (the sum of the places below)");
    let mut spec = spec;
    for place in HandoverDrops::PLACES {
        spec = spec.col(
            format!("dropped_{place}"),
            Dtype::U64,
            "of dropped, those lost at this place (handover_drop_place labels)",
        );
    }
    for cause in DropCause::ALL {
        spec = spec.col(
            format!("dropped_{}", cause.as_str()),
            Dtype::U64,
            "of dropped, those of this cause (drop_cause labels)",
        );
    }
    spec.col(
        "duplicated",
        Dtype::U64,
        "the flow's packets the UE received twice",
    )
    .col(
        "reordered",
        Dtype::U64,
        "the flow's packets delivered after one sent later",
    )
    .col(
        "start_s",
        Dtype::F64,
        "start of the analysis: the earlier of the command (else the decision) and the path switch, seconds",
    )
    .col(
        "window_end_s",
        Dtype::F64,
        "end of the analysis window, seconds",
    )
    .labelled::<TcpOutcomes>("outcome", "the TCP outcome class")
    .col(
        "rto_retransmissions",
        Dtype::U32,
        "RTO retransmissions in the window",
    )
    .col(
        "fast_retransmissions",
        Dtype::U32,
        "fast retransmissions in the window",
    )
    .col("spurious_rto", Dtype::Bool, "the timeout was spurious")
    .col(
        "first_rto_s",
        Dtype::F64,
        "the first RTO retransmission in the window, seconds",
    )
    .col(
        "rtt_before_s",
        Dtype::F64,
        "the flow's smoothed RTT at the start, seconds",
    )
    .col(
        "rtt_peak_s",
        Dtype::F64,
        "the largest RTT sample in the window, seconds",
    )
    .col(
        "goodput_before_bps",
        Dtype::F64,
        "goodput over the second before the start, bits per second",
    )
    .col(
        "recovered_at_s",
        Dtype::F64,
        "when the goodput recovered, seconds",
    )
    .col(
        "recovery_time_s",
        Dtype::F64,
        "recovered_at - start, seconds",
    )
    .col(
        "ramp_time_s",
        Dtype::F64,
        "recovered_at - the ramp's start, seconds",
    )
    .col(
        "episode_end_s",
        Dtype::F64,
        "when the data sent before the procedure ended was acknowledged, seconds",
    )
    .col(
        "delivered_bytes",
        Dtype::F64,
        "bytes delivered from the command until one RTT after the attach",
    )
}

/// `handover_events`: the handovers' message timeline.
pub fn handover_events() -> SeriesColumns {
    SeriesColumns::new(
        "handover_events",
        "One row per message of the handovers' timeline (TS 36.300 Fig. 10.1.2.1.1-1 as the run played it; a link handover's interruption_start and interruption_end), in time order.",
    )
    .col("time_ns", Dtype::U64, TIME_NS)
    .col("handover", Dtype::U32, "handover id")
    .col("ue", Dtype::Cat, "UE node name")
    .col("from", Dtype::Cat, "the sending node's name")
    .col("to", Dtype::Cat, "the receiving node's name")
    .col("message", Dtype::Cat, "the message (snake case)")
}

/// Every series a simulation can write, in the order of this module.
pub fn all() -> Vec<SeriesColumns> {
    vec![
        queue(),
        flow_rate(),
        packets(),
        cells(),
        tcp(),
        dch(),
        handovers(),
        handover_events(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handover_drop_columns_are_those_of_handover_drops() {
        let spec = handovers();
        let names: Vec<&str> = spec.names().collect();
        let at = names.iter().position(|n| *n == "dropped").unwrap() + 1;
        let drops: Vec<&str> = HandoverDrops::default()
            .columns()
            .iter()
            .map(|c| c.0)
            .collect();
        assert_eq!(names[at..at + drops.len()], drops[..]);
    }

    #[test]
    fn names_are_unique_in_every_series() {
        for spec in all() {
            let unique: std::collections::BTreeSet<&str> = spec.names().collect();
            assert_eq!(unique.len(), spec.columns.len(), "{}", spec.name);
        }
    }
}
