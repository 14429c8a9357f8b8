//! `[ran.dual_connectivity]`: E-UTRA–NR dual connectivity (EN-DC, TS 37.340) with a split
//! bearer — an LTE master eNB and an NR secondary gNB serve every UE of the network at once,
//! the master's PDCP splitting the downlink between them (docs/dual-connectivity.md; the
//! model is `celltcp_radio::ran::dual_connectivity`).

use std::collections::BTreeMap;

use celltcp_engine::SimDuration;
use celltcp_radio::ran::dual_connectivity::{
    DEFAULT_NR_Q_IN_DB, DEFAULT_NR_Q_OUT_DB, MAX_REPORT_PERIOD, MIN_REPORT_PERIOD,
    REPORT_PERIOD_RANGE,
};
use celltcp_radio::ran::{DualConnectivityConfig, SplitPolicy};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::cells::{CellFile, Rat};
use super::handover::HandoverSpec;
use super::quantity::{Quantity, Time};
use crate::ScenarioError;

/// Which leg the master's PDCP gives each downlink PDU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SplitPolicyKind {
    /// Every PDU over NR while the NR leg is up; over LTE during an NR outage.
    #[default]
    NrOnly,
    /// The fraction `ratio` of the PDUs over NR, the rest over LTE.
    SplitRatio,
    /// Each PDU over the leg of the smaller estimated queueing delay (RLC buffer over the
    /// leg's recent rate, plus X2-U for the NR leg).
    SplitDelay,
}

/// `[ran.dual_connectivity]` as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DualConnectivityFile {
    /// The master cell: an LTE cell (`rat = "lte"`) that lists every UE of the network.
    pub master: String,
    /// The secondary cell: an NR cell (`rat = "nr"`) that lists no UE.
    pub secondary: String,
    /// "nr_only" (default), "split_ratio" or "split_delay".
    #[serde(default)]
    pub policy: SplitPolicyKind,
    /// With policy "split_ratio": the fraction of the PDUs sent over NR, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
    /// Q_out of the NR leg: its SINR below this for `switch_detection` is an outage, dB
    /// (default −5 dB, ns3-mmwave's outage threshold).
    #[serde(default = "default_q_out_db")]
    pub q_out_db: f64,
    /// Q_in of the NR leg (≥ q_out_db): its SINR above this for `switch_back_after` ends the
    /// outage, dB (default −3 dB).
    #[serde(default = "default_q_in_db")]
    pub q_in_db: f64,
    /// How long the NR SINR stays below Q_out before the outage is detected (a time; default
    /// "0ms": at the first measurement below, ns3-mmwave's immediate switch). Evaluated every
    /// ran.measurement.period.
    #[serde(default = "zero_time")]
    pub switch_detection: Quantity<Time>,
    /// How long the NR SINR stays above Q_in before the NR leg is used again (a time; default
    /// "100ms").
    #[serde(default = "default_switch_back_after")]
    pub switch_back_after: Quantity<Time>,
    /// From a detection to the master's switch: the UE's report over LTE and the X2-C message
    /// to the secondary (a time; default "10ms", the 5 ms measurement report and 5 ms X2-C of
    /// [ran.handover.latencies]).
    #[serde(default = "default_switch_delay")]
    pub switch_delay: Quantity<Time>,
    /// X2-U flow control: how the master learns the room of the secondary's RLC buffer.
    /// Echoed only when it differs from the default, so that files without it echo as before.
    #[serde(default, skip_serializing_if = "FlowControlFile::is_default")]
    pub flow_control: FlowControlFile,
}

/// `[ran.dual_connectivity.flow_control]`: X2-U flow control by DL DATA DELIVERY STATUS
/// reports (TS 38.425 §5.4.2.1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowControlFile {
    /// How often the secondary sends the master a DL DATA DELIVERY STATUS (its RLC buffer
    /// room as the desired buffer size, the highest PDCP COUNT delivered), which reaches the
    /// master after the X2-U latency; the master sends no more than the last reported room
    /// less what it sent since (a time: "0ms", the default, the room known at once; else
    /// 1ms to 1s, e.g. "10ms").
    #[serde(default = "zero_time")]
    pub report_period: Quantity<Time>,
}

impl Default for FlowControlFile {
    fn default() -> Self {
        FlowControlFile {
            report_period: zero_time(),
        }
    }
}

impl FlowControlFile {
    fn is_default(&self) -> bool {
        *self == FlowControlFile::default()
    }
}

fn default_q_out_db() -> f64 {
    DEFAULT_NR_Q_OUT_DB
}
fn default_q_in_db() -> f64 {
    DEFAULT_NR_Q_IN_DB
}
fn zero_time() -> Quantity<Time> {
    Quantity::default_of("0ms")
}
fn default_switch_back_after() -> Quantity<Time> {
    Quantity::default_of("100ms")
}
fn default_switch_delay() -> Quantity<Time> {
    Quantity::default_of("10ms")
}

const KEY: &str = "ran.dual_connectivity";

impl DualConnectivityFile {
    /// The radio crate's configuration, the cells by their rank in name order (the network's
    /// cell order); every error names its dotted key.
    pub(crate) fn convert(
        &self,
        cells: &BTreeMap<String, CellFile>,
        handover: &HandoverSpec,
        coupled_interference: bool,
    ) -> Result<DualConnectivityConfig, ScenarioError> {
        let key = |k: &str| format!("{KEY}.{k}");
        let cell = |k: &str, name: &str, rat: Rat, what: &str| {
            let Some(index) = cells.keys().position(|n| n == name) else {
                let known: Vec<&str> = cells.keys().map(String::as_str).collect();
                return Err(ScenarioError::new(
                    key(k),
                    format!("cell '{name}' does not exist (cells: {})", known.join(", ")),
                ));
            };
            if cells[name].rat != rat {
                return Err(ScenarioError::new(
                    key(k),
                    format!(
                        "cell '{name}' is not {what}; expected a cell with rat = \"{}\"",
                        match rat {
                            Rat::Lte => "lte",
                            Rat::Nr => "nr",
                        }
                    ),
                ));
            }
            Ok(index)
        };
        let master = cell(
            "master",
            &self.master,
            Rat::Lte,
            "an LTE cell (the EN-DC master is an eNB)",
        )?;
        let secondary = cell(
            "secondary",
            &self.secondary,
            Rat::Nr,
            "an NR cell (the EN-DC secondary is a gNB)",
        )?;
        let policy = match (self.policy, self.ratio) {
            (SplitPolicyKind::SplitRatio, Some(r)) if (0.0..=1.0).contains(&r) => {
                SplitPolicy::SplitRatio { nr_share: r }
            }
            (SplitPolicyKind::SplitRatio, Some(r)) => {
                return Err(ScenarioError::new(
                    key("ratio"),
                    format!("{r} is out of range; expected the fraction sent over NR, 0 to 1"),
                ))
            }
            (SplitPolicyKind::SplitRatio, None) => {
                return Err(ScenarioError::new(
                    key("ratio"),
                    "missing; policy \"split_ratio\" needs the fraction sent over NR, 0 to 1",
                ))
            }
            (_, Some(r)) => {
                return Err(ScenarioError::new(
                    key("ratio"),
                    format!("{r} is given but policy is not \"split_ratio\"; remove it"),
                ))
            }
            (SplitPolicyKind::NrOnly, None) => SplitPolicy::NrOnly,
            (SplitPolicyKind::SplitDelay, None) => SplitPolicy::SplitDelay,
        };
        if !(self.q_out_db.is_finite() && self.q_in_db.is_finite() && self.q_out_db <= self.q_in_db)
        {
            return Err(ScenarioError::new(
                key("q_in_db"),
                format!(
                    "{} with q_out_db = {}; expected finite thresholds with q_out_db ≤ q_in_db",
                    self.q_in_db, self.q_out_db
                ),
            ));
        }
        let period = &self.flow_control.report_period;
        if period.value != SimDuration::ZERO
            && !(MIN_REPORT_PERIOD..=MAX_REPORT_PERIOD).contains(&period.value)
        {
            return Err(ScenarioError::new(
                key("flow_control.report_period"),
                format!("'{period}' is not allowed; expected {REPORT_PERIOD_RANGE}"),
            ));
        }
        if let Some((ue, _)) = cells[&self.secondary].ues.iter().next() {
            return Err(ScenarioError::new(
                format!("cells.{}.ues.{ue}", self.secondary),
                format!(
                    "listed under the EN-DC secondary; list every UE under the master cell '{}' \
                     (it serves the UE, the secondary adds its NR leg)",
                    self.master
                ),
            ));
        }
        if let Some((name, c)) = cells
            .iter()
            .find(|(n, c)| *n != &self.master && *n != &self.secondary && !c.ues.is_empty())
        {
            let ue = c.ues.keys().next().map(String::as_str).unwrap_or_default();
            return Err(ScenarioError::new(
                format!("cells.{name}.ues.{ue}"),
                format!(
                    "with [ran.dual_connectivity] every UE is listed under the master cell '{}'",
                    self.master
                ),
            ));
        }
        if coupled_interference {
            return Err(ScenarioError::new(
                "ran.coupled_interference",
                "true with [ran.dual_connectivity]; set it to false (the LTE and NR carriers of \
                 the two legs do not interfere with one another)",
            ));
        }
        let refused = [
            ("ran.handover.a3", handover.a3.is_some()),
            ("ran.handover.manual", !handover.manual.is_empty()),
            ("ran.handover.rlf", handover.rlf.is_some()),
            (
                "ran.handover.procedure",
                handover.procedure != celltcp_radio::ran::HandoverProcedure::Classic,
            ),
        ];
        if let Some((k, _)) = refused.iter().find(|(_, given)| *given) {
            return Err(ScenarioError::new(
                *k,
                "is given with [ran.dual_connectivity]; remove it (no handover of either EN-DC leg \
                 is modelled: the split bearer and a handover's data path are not combined)",
            ));
        }
        Ok(DualConnectivityConfig {
            master,
            secondary,
            policy,
            q_out_db: self.q_out_db,
            q_in_db: self.q_in_db,
            switch_detection: self.switch_detection.value,
            switch_back_after: self.switch_back_after.value,
            switch_delay: self.switch_delay.value,
            report_period: period.value,
        })
    }
}
