//! `[ran.handover]`: the X2 handover procedure of a radio access network (TS 36.300
//! §10.1.2.1) — its triggers (A3 measurement reports, scheduled handovers, radio link failure),
//! the latencies of its messages and the policy of its data path.

use std::collections::BTreeMap;

use celltcp_engine::SimDuration;
use celltcp_net::handover::HandoverPolicy;
use celltcp_net::queue::QueueLimit;
use celltcp_radio::measurement::A3Config;
use celltcp_radio::ran::{
    ConditionalConfig, DapsLatencies, HandoverProcedure, PathSwitchPrediction,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::cells::CellSpec;
use super::quantity::{Limit, Quantity, Rate, Time};
use crate::validate::positive_time;
use crate::ScenarioError;

/// Event A3 (TS 36.331 §5.5.4.4): a neighbour becomes `offset_db` better than the serving
/// cell, for `time_to_trigger`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct A3File {
    /// a3-Offset, dB.
    pub offset_db: f64,
    /// hysteresis, dB (≥ 0).
    pub hysteresis_db: f64,
    /// timeToTrigger: one of 0, 40, 64, 80, 100, 128, 160, 256, 320, 480, 512, 640, 1024,
    /// 1280, 2560, 5120 ms (TS 36.331 §6.3.5).
    pub time_to_trigger: Quantity<Time>,
}

impl Default for A3File {
    /// ns-3 LENA's A3-RSRP handover algorithm: hysteresis 3 dB, time-to-trigger 256 ms, and
    /// no offset (the hysteresis alone separates the cells).
    fn default() -> Self {
        A3File {
            offset_db: 0.0,
            hysteresis_db: 3.0,
            time_to_trigger: Quantity::default_of("256ms"),
        }
    }
}

/// Radio link monitoring (TS 36.331 §5.3.10, §7.3; TS 36.133 §7.6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RlfFile {
    /// Out-of-sync threshold Qout: wideband SINR, dB.
    pub q_out_db: f64,
    /// In-sync threshold Qin: wideband SINR, dB (> q_out_db).
    pub q_in_db: f64,
    /// Consecutive out-of-sync indications that start T310 (≥ 1).
    pub n310: u32,
    /// Consecutive in-sync indications that stop T310 (≥ 1).
    pub n311: u32,
    /// T310: a radio link failure when it expires (a time, > 0).
    pub t310: Quantity<Time>,
}

impl Default for RlfFile {
    /// TS 36.331 defaults (N310 n1, N311 n1, T310 ms1000) and the Qout/Qin SINRs of 10 % and
    /// 2 % hypothetical PDCCH BLER.
    fn default() -> Self {
        RlfFile {
            q_out_db: -8.0,
            q_in_db: -6.0,
            n310: 1,
            n311: 1,
            t310: Quantity::default_of("1s"),
        }
    }
}

/// `[ran.handover.latencies]`: one-way latencies of the procedure's messages and steps
/// (TS 36.300 Fig. 10.1.2.1.1-1); each a time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LatenciesFile {
    /// UE → source: the measurement report.
    pub measurement_report: Quantity<Time>,
    /// Source: handover decision after the report.
    pub decision: Quantity<Time>,
    /// eNB ↔ eNB over X2-C, each message one way.
    pub x2: Quantity<Time>,
    /// Target: admission control.
    pub admission: Quantity<Time>,
    /// Source → UE: the RRC handover command.
    pub rrc: Quantity<Time>,
    /// UE: detach from the source and synchronise to the target.
    pub detach_sync: Quantity<Time>,
    /// UE: random access in the target up to the handover confirm.
    pub random_access: Quantity<Time>,
    /// Target ↔ MME over S1-C, each message one way.
    pub s1: Quantity<Time>,
    /// MME ↔ S-GW over S11, each message one way.
    pub s11: Quantity<Time>,
}

impl Default for LatenciesFile {
    fn default() -> Self {
        let t = Quantity::default_of;
        LatenciesFile {
            measurement_report: t("5ms"),
            decision: t("2ms"),
            x2: t("5ms"),
            admission: t("2ms"),
            rrc: t("5ms"),
            detach_sync: t("30ms"),
            random_access: t("10ms"),
            s1: t("5ms"),
            s11: t("2ms"),
        }
    }
}

/// `procedure` of `[ran.handover]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProcedureKind {
    /// The break-before-make X2 handover of TS 36.300 §10.1.2.1.1.
    #[default]
    Classic,
    /// Rel-16 dual active protocol stack handover: make before break.
    Daps,
    /// Rel-16 conditional handover: prepared early, executed by the UE.
    Conditional,
}

impl ProcedureKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProcedureKind::Classic => "classic",
            ProcedureKind::Daps => "daps",
            ProcedureKind::Conditional => "conditional",
        }
    }

    fn is_classic(&self) -> bool {
        *self == ProcedureKind::Classic
    }
}

/// `[ran.handover.daps]`: the DAPS handover's own latencies, from the UE's access to the
/// target; each a time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DapsFile {
    /// Target → source over X2-C: HANDOVER SUCCESS; the source stops serving the UE on its
    /// arrival (default 5ms, the X2-C one-way default of `latencies.x2`).
    pub handover_success: Quantity<Time>,
    /// Target → UE: the RRC reconfiguration releasing the source (default 5ms, the RRC
    /// default of `latencies.rrc`).
    pub source_release: Quantity<Time>,
}

impl Default for DapsFile {
    fn default() -> Self {
        DapsFile {
            handover_success: Quantity::default_of("5ms"),
            source_release: Quantity::default_of("5ms"),
        }
    }
}

/// `[ran.handover.conditional]`: conditional handover (TS 36.300 §10.1.2.1a, TS 38.300
/// §9.2.3.4): the source prepares candidates on `preparation`, the UE executes on
/// `execution`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ConditionalFile {
    /// Event A3 on which the source prepares a candidate (default: offset 0 dB, hysteresis
    /// 1 dB, time to trigger 80 ms — earlier than the execution's by 2 dB and 176 ms).
    pub preparation: A3File,
    /// Event A3 on which the UE executes towards a prepared candidate (default: the `a3`
    /// defaults, hysteresis 3 dB, time to trigger 256 ms).
    pub execution: A3File,
    /// The most candidates prepared at once (1 to 8, maxNrofCondCells; default 2).
    pub max_candidates: u32,
}

impl Default for ConditionalFile {
    fn default() -> Self {
        ConditionalFile {
            preparation: A3File {
                offset_db: 0.0,
                hysteresis_db: 1.0,
                time_to_trigger: Quantity::default_of("80ms"),
            },
            execution: A3File::default(),
            max_candidates: 2,
        }
    }
}

/// `[[ran.handover.manual]]`: a handover decided at a given time, whatever the measurements say.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManualFile {
    /// The source's handover decision (a time; one at or after the end of the run does not
    /// happen, so a shortened run keeps its schedule).
    pub at: Quantity<Time>,
    /// The UE (a UE node of a cell).
    pub ue: String,
    /// The target cell (a cell name).
    pub target: String,
}

/// `[ran.handover]` as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct HandoverFile {
    /// The procedure: "classic" (default), "daps" or "conditional".
    #[serde(skip_serializing_if = "ProcedureKind::is_classic")]
    pub procedure: ProcedureKind,
    /// DAPS latencies; only with procedure = "daps".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub daps: Option<DapsFile>,
    /// CHO conditions; only with procedure = "conditional".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditional: Option<ConditionalFile>,
    /// The data-path policy: "discard", "forward" (default), "fast_path_switch" or
    /// "predicted".
    pub policy: HandoverPolicy,
    /// Predicted: how long before the handover command the path switch is sent (a time;
    /// default 130ms). Only with policy = "predicted".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prediction_step: Option<Quantity<Time>>,
    /// Predicted: standard deviation of the predictor's Gaussian timing error (a time; default
    /// 0 = exact). Only with policy = "predicted".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prediction_error: Option<Quantity<Time>>,
    /// The target delivers forwarded data before data of the new path until the end marker,
    /// and the UE's PDCP reorders by COUNT.
    pub reordering: bool,
    /// The target's per-UE buffer for data held until the UE attaches or the end marker
    /// arrives: packets ("200p") or a size ("1MB"); overflow is dropped.
    pub target_buffer: Quantity<Limit>,
    /// The target stops waiting for the end marker this long after the path switch (a time).
    pub end_marker_timeout: Quantity<Time>,
    /// The most a source eNB forwards over X2-U per second (a rate); absent = as fast as its
    /// transport interface takes the data (its line rate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forwarding_rate: Option<Quantity<Rate>>,
    /// Each eNB's buffer of data waiting to be forwarded over X2-U: packets ("2000p") or a
    /// size ("4MB"); what does not fit is dropped at the source.
    pub forwarding_buffer: Quantity<Limit>,
    /// Admission control: the most UEs one cell serves (≥ 1); no limit by default.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_ues_per_cell: Option<u32>,
    /// After a radio link failure, the time until the UE is served again (a time).
    pub reestablishment: Quantity<Time>,
    /// Cell selection after a radio link failure (TS 36.304 §5.2.3.2): only a cell measured
    /// above this RSRP, dBm (−140 to −44), is suitable.
    pub q_rxlevmin_dbm: f64,
    /// A3-triggered handover; absent = only scheduled handovers (and re-establishment).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub a3: Option<A3File>,
    /// Message latencies.
    pub latencies: LatenciesFile,
    /// Radio link monitoring; absent = the radio link never fails.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rlf: Option<RlfFile>,
    /// Handovers at given times.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub manual: Vec<ManualFile>,
}

impl Default for HandoverFile {
    fn default() -> Self {
        HandoverFile {
            procedure: ProcedureKind::Classic,
            daps: None,
            conditional: None,
            policy: HandoverPolicy::Forward,
            prediction_step: None,
            prediction_error: None,
            reordering: true,
            target_buffer: Quantity::default_of("1MB"),
            end_marker_timeout: Quantity::default_of("200ms"),
            forwarding_rate: None,
            forwarding_buffer: Quantity::default_of(DEFAULT_FORWARDING_BUFFER),
            max_ues_per_cell: None,
            reestablishment: Quantity::default_of("200ms"),
            q_rxlevmin_dbm: celltcp_radio::ran::DEFAULT_Q_RXLEVMIN_DBM,
            a3: None,
            latencies: LatenciesFile::default(),
            rlf: None,
            manual: Vec::new(),
        }
    }
}

/// Default X2-U forwarding buffer of an eNB. TS 36.300 §10.1.2.1.2 leaves its size to the
/// implementation; 4 MB holds the whole default RLC buffer of a UE (1 MiB) three times over
/// with room for the fresh data that reaches the source during the interruption, so that with
/// default settings forwarding is limited by the transport network, not by the eNB's memory.
pub const DEFAULT_FORWARDING_BUFFER: &str = "4MB";

/// Validated A3 parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct A3Spec {
    pub offset_db: f64,
    pub hysteresis_db: f64,
    pub time_to_trigger: SimDuration,
}

/// Validated radio link monitoring parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RlfSpec {
    pub q_out_db: f64,
    pub q_in_db: f64,
    pub n310: u32,
    pub n311: u32,
    pub t310: SimDuration,
}

/// The procedure's latencies, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LatenciesSpec {
    pub measurement_report: SimDuration,
    pub decision: SimDuration,
    pub x2: SimDuration,
    pub admission: SimDuration,
    pub rrc: SimDuration,
    pub detach_sync: SimDuration,
    pub random_access: SimDuration,
    pub s1: SimDuration,
    pub s11: SimDuration,
}

/// A validated scheduled handover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManualSpec {
    pub at: SimDuration,
    pub ue: String,
    /// Target cell name.
    pub target: String,
}

/// `[ran.handover]`, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct HandoverSpec {
    /// Classic, DAPS (with its latencies) or conditional (with its conditions).
    pub procedure: HandoverProcedure,
    pub policy: HandoverPolicy,
    /// The predictor (its defaults unless the policy is predicted).
    pub prediction: PathSwitchPrediction,
    pub reordering: bool,
    pub target_buffer: QueueLimit,
    pub end_marker_timeout: SimDuration,
    /// Bits per second; `None` = line rate.
    pub forwarding_rate: Option<u64>,
    pub forwarding_buffer: QueueLimit,
    pub max_ues_per_cell: Option<u32>,
    pub reestablishment: SimDuration,
    pub q_rxlevmin_dbm: f64,
    pub a3: Option<A3Spec>,
    pub latencies: LatenciesSpec,
    pub rlf: Option<RlfSpec>,
    pub manual: Vec<ManualSpec>,
}

/// The timeToTrigger values of TS 36.331 §6.3.5 (ReportConfigEUTRA), ms.
pub const TIME_TO_TRIGGER_MS: [u64; 16] = [
    0, 40, 64, 80, 100, 128, 160, 256, 320, 480, 512, 640, 1024, 1280, 2560, 5120,
];

fn finite(key: &str, v: f64, what: &str) -> Result<(), ScenarioError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(ScenarioError::new(
            key,
            format!("{v} is not allowed; expected {what}"),
        ))
    }
}

impl HandoverFile {
    /// Validates the section against the cells (UE and target names).
    pub(crate) fn convert(
        &self,
        cells: &BTreeMap<String, CellSpec>,
    ) -> Result<HandoverSpec, ScenarioError> {
        let key = |k: &str| format!("ran.handover.{k}");
        if self.policy != HandoverPolicy::Predicted {
            for (k, v) in [
                ("prediction_step", &self.prediction_step),
                ("prediction_error", &self.prediction_error),
            ] {
                if let Some(v) = v {
                    return Err(ScenarioError::new(
                        key(k),
                        format!(
                            "'{v}' is given but policy is \"{}\"; it applies only with policy = \"predicted\"",
                            self.policy.as_str()
                        ),
                    ));
                }
            }
        }
        let default = PathSwitchPrediction::default();
        let prediction = PathSwitchPrediction {
            step: self
                .prediction_step
                .as_ref()
                .map_or(default.step, |q| q.value),
            error_std: self
                .prediction_error
                .as_ref()
                .map_or(default.error_std, |q| q.value),
        };
        let target_buffer = self.target_buffer.value;
        if matches!(target_buffer, QueueLimit::Packets(0) | QueueLimit::Bytes(0)) {
            return Err(ScenarioError::new(
                key("target_buffer"),
                format!(
                    "'{}' must be > 0; use e.g. '200p' or '1MB'",
                    self.target_buffer
                ),
            ));
        }
        positive_time(&key("end_marker_timeout"), &self.end_marker_timeout)?;
        if let Some(rate) = self.forwarding_rate.as_ref().filter(|r| r.value == 0) {
            return Err(ScenarioError::new(
                key("forwarding_rate"),
                format!(
                    "'{rate}' must be > 0; use e.g. '100Mbps', or leave it out for the line rate"
                ),
            ));
        }
        let forwarding_buffer = self.forwarding_buffer.value;
        if matches!(
            forwarding_buffer,
            QueueLimit::Packets(0) | QueueLimit::Bytes(0)
        ) {
            return Err(ScenarioError::new(
                key("forwarding_buffer"),
                format!(
                    "'{}' must be > 0; use e.g. '2000p' or '4MB'",
                    self.forwarding_buffer
                ),
            ));
        }
        if self.max_ues_per_cell == Some(0) {
            return Err(ScenarioError::new(
                key("max_ues_per_cell"),
                "0 is not allowed; expected an integer ≥ 1",
            ));
        }
        let a3 = self.a3.as_ref().map(a3_spec).transpose()?;
        let rlf = self.rlf.as_ref().map(rlf_spec).transpose()?;
        let l = &self.latencies;
        let latencies = LatenciesSpec {
            measurement_report: l.measurement_report.value,
            decision: l.decision.value,
            x2: l.x2.value,
            admission: l.admission.value,
            rrc: l.rrc.value,
            detach_sync: l.detach_sync.value,
            random_access: l.random_access.value,
            s1: l.s1.value,
            s11: l.s11.value,
        };
        if !(-140.0..=-44.0).contains(&self.q_rxlevmin_dbm) {
            return Err(ScenarioError::new(
                "ran.handover.q_rxlevmin_dbm",
                format!(
                    "{} dBm is not allowed; expected a number from -140 to -44 (dBm)",
                    self.q_rxlevmin_dbm
                ),
            ));
        }
        let measured =
            self.a3.is_some() || self.rlf.is_some() || self.procedure == ProcedureKind::Conditional;
        check_manual_targets(&self.manual, cells, measured)?;
        let mut manual = Vec::with_capacity(self.manual.len());
        for (i, m) in self.manual.iter().enumerate() {
            let mkey = |k: &str| format!("ran.handover.manual[{i}].{k}");
            if !cells.values().any(|c| c.file.ues.contains_key(&m.ue)) {
                let ues: Vec<&str> = cells
                    .values()
                    .flat_map(|c| c.file.ues.keys().map(String::as_str))
                    .collect();
                return Err(ScenarioError::new(
                    mkey("ue"),
                    format!(
                        "'{}' is not a UE of the cells (UEs: {})",
                        m.ue,
                        ues.join(", ")
                    ),
                ));
            }
            if !cells.contains_key(&m.target) {
                let names: Vec<&str> = cells.keys().map(String::as_str).collect();
                return Err(ScenarioError::new(
                    mkey("target"),
                    format!("'{}' is not a cell (cells: {})", m.target, names.join(", ")),
                ));
            }
            manual.push(ManualSpec {
                at: m.at.value,
                ue: m.ue.clone(),
                target: m.target.clone(),
            });
        }
        let procedure = self.procedure_spec()?;
        Ok(HandoverSpec {
            procedure,
            policy: self.policy,
            prediction,
            reordering: self.reordering,
            target_buffer,
            end_marker_timeout: self.end_marker_timeout.value,
            forwarding_rate: self.forwarding_rate.as_ref().map(|r| r.value),
            forwarding_buffer,
            max_ues_per_cell: self.max_ues_per_cell,
            reestablishment: self.reestablishment.value,
            q_rxlevmin_dbm: self.q_rxlevmin_dbm,
            a3,
            latencies,
            rlf,
            manual,
        })
    }
}

impl HandoverFile {
    /// `procedure` with its section, checked against the other keys: a section only with its
    /// procedure; DAPS only with policy "forward" and reordering (it forwards the source's
    /// data and switches the path after the UE's access: "discard" would lose what the source
    /// has not delivered, "fast_path_switch" and "predicted" move the path before the UE can
    /// be served at the target; two legs feed one PDCP receiver, which must reorder); CHO
    /// with policy "forward" or "discard" (the early path switches need a handover command),
    /// without `a3` (its own conditions trigger it) and with a preparation no later than its
    /// execution.
    fn procedure_spec(&self) -> Result<HandoverProcedure, ScenarioError> {
        let kind = self.procedure;
        let only = |k: &str, with: &str| {
            ScenarioError::new(
                format!("ran.handover.{k}"),
                format!(
                    "is given but procedure is \"{}\"; it applies only with procedure = \"{with}\"",
                    kind.as_str()
                ),
            )
        };
        if self.daps.is_some() && kind != ProcedureKind::Daps {
            return Err(only("daps", "daps"));
        }
        if self.conditional.is_some() && kind != ProcedureKind::Conditional {
            return Err(only("conditional", "conditional"));
        }
        match kind {
            ProcedureKind::Classic => Ok(HandoverProcedure::Classic),
            ProcedureKind::Daps => self.daps_spec(),
            ProcedureKind::Conditional => self.conditional_spec(),
        }
    }

    fn daps_spec(&self) -> Result<HandoverProcedure, ScenarioError> {
        if self.policy != HandoverPolicy::Forward {
            return Err(ScenarioError::new(
                "ran.handover.policy",
                format!(
                    "'{}' does not go with procedure = \"daps\"; expected \"forward\" (DAPS \
                     forwards the source's data and switches the path after the UE's access)",
                    self.policy.as_str()
                ),
            ));
        }
        if !self.reordering {
            return Err(ScenarioError::new(
                "ran.handover.reordering",
                "false does not go with procedure = \"daps\"; expected true (the UE's PDCP \
                 reorders what the source and target legs deliver)",
            ));
        }
        let d = self.daps.clone().unwrap_or_default();
        for (k, q) in [
            ("handover_success", &d.handover_success),
            ("source_release", &d.source_release),
        ] {
            positive_time(&format!("ran.handover.daps.{k}"), q)?;
        }
        Ok(HandoverProcedure::Daps(DapsLatencies {
            handover_success: d.handover_success.value,
            source_release: d.source_release.value,
        }))
    }

    fn conditional_spec(&self) -> Result<HandoverProcedure, ScenarioError> {
        if self.policy.early_path_switch() {
            return Err(ScenarioError::new(
                "ran.handover.policy",
                format!(
                    "'{}' does not go with procedure = \"conditional\"; expected \"forward\" \
                     or \"discard\" (the source does not know when, or towards which \
                     candidate, the UE executes: there is no handover command to switch the \
                     path with or before)",
                    self.policy.as_str()
                ),
            ));
        }
        if self.a3.is_some() {
            return Err(ScenarioError::new(
                "ran.handover.a3",
                "is given but procedure is \"conditional\"; expected \
                 ran.handover.conditional.preparation and .execution instead",
            ));
        }
        let c = self.conditional.clone().unwrap_or_default();
        let k = |s: &str| format!("ran.handover.conditional.{s}");
        let p = a3_spec_at(&k("preparation"), &c.preparation)?;
        let e = a3_spec_at(&k("execution"), &c.execution)?;
        if p.offset_db + p.hysteresis_db > e.offset_db + e.hysteresis_db {
            return Err(ScenarioError::new(
                k("preparation.offset_db"),
                format!(
                    "offset + hysteresis {} dB is above the execution's {} dB; expected the \
                     preparation to hold no later than the execution",
                    p.offset_db + p.hysteresis_db,
                    e.offset_db + e.hysteresis_db
                ),
            ));
        }
        if p.time_to_trigger > e.time_to_trigger {
            return Err(ScenarioError::new(
                k("preparation.time_to_trigger"),
                format!(
                    "'{}' is longer than the execution's '{}'; expected the preparation to \
                     hold no later than the execution",
                    c.preparation.time_to_trigger, c.execution.time_to_trigger
                ),
            ));
        }
        if !(1..=8).contains(&c.max_candidates) {
            return Err(ScenarioError::new(
                k("max_candidates"),
                format!(
                    "{} is not allowed; expected an integer from 1 to 8 (maxNrofCondCells)",
                    c.max_candidates
                ),
            ));
        }
        let a3 = |s: A3Spec| A3Config {
            offset_db: s.offset_db,
            hysteresis_db: s.hysteresis_db,
            time_to_trigger: s.time_to_trigger,
        };
        Ok(HandoverProcedure::Conditional(ConditionalConfig {
            preparation: a3(p),
            execution: a3(e),
            max_candidates: c.max_candidates,
        }))
    }
}

/// A manual handover to the cell already serving the UE is a mistake (TS 36.300 §10.1.2.1:
/// a handover moves the UE from a source to another, target, cell). Without A3 and radio link
/// failure only the manual handovers move a UE, so its serving cell at each one is known: the
/// cell listing it, then the target of its previous manual handover (in time order, equal
/// times in the order written). With A3, RLF or conditional handover the serving cell depends on the measurements
/// and is not checked here.
fn check_manual_targets(
    manual: &[ManualFile],
    cells: &BTreeMap<String, CellSpec>,
    measured: bool,
) -> Result<(), ScenarioError> {
    if measured {
        return Ok(());
    }
    let mut order: Vec<usize> = (0..manual.len()).collect();
    order.sort_by_key(|&i| manual[i].at.value);
    let mut serving: BTreeMap<&str, &str> = cells
        .iter()
        .flat_map(|(name, c)| {
            c.file
                .ues
                .keys()
                .map(move |ue| (ue.as_str(), name.as_str()))
        })
        .collect();
    for i in order {
        let m = &manual[i];
        let Some(current) = serving.get_mut(m.ue.as_str()) else {
            continue; // not a UE of the cells: reported by the caller
        };
        if *current == m.target {
            return Err(ScenarioError::new(
                format!("ran.handover.manual[{i}].target"),
                format!(
                    "UE '{}' is served by cell '{}' at '{}' already; a handover needs another \
                     target cell",
                    m.ue, m.target, m.at
                ),
            ));
        }
        *current = m.target.as_str();
    }
    Ok(())
}

fn a3_spec(a: &A3File) -> Result<A3Spec, ScenarioError> {
    a3_spec_at("ran.handover.a3", a)
}

/// An Event A3 table at dotted key `at`.
fn a3_spec_at(at: &str, a: &A3File) -> Result<A3Spec, ScenarioError> {
    finite(
        &format!("{at}.offset_db"),
        a.offset_db,
        "a finite number of dB",
    )?;
    if !(a.hysteresis_db.is_finite() && a.hysteresis_db >= 0.0) {
        return Err(ScenarioError::new(
            format!("{at}.hysteresis_db"),
            format!(
                "{} is not allowed; expected a number of dB ≥ 0",
                a.hysteresis_db
            ),
        ));
    }
    let ttt = a.time_to_trigger.value;
    let ms = ttt.as_ns() / 1_000_000;
    if ms * 1_000_000 != ttt.as_ns() || !TIME_TO_TRIGGER_MS.contains(&ms) {
        let list: Vec<String> = TIME_TO_TRIGGER_MS
            .iter()
            .map(|v| format!("{v}ms"))
            .collect();
        return Err(ScenarioError::new(
            format!("{at}.time_to_trigger"),
            format!(
                "'{}' is not a timeToTrigger of TS 36.331; expected one of {}",
                a.time_to_trigger,
                list.join(", ")
            ),
        ));
    }
    Ok(A3Spec {
        offset_db: a.offset_db,
        hysteresis_db: a.hysteresis_db,
        time_to_trigger: ttt,
    })
}

fn rlf_spec(r: &RlfFile) -> Result<RlfSpec, ScenarioError> {
    finite(
        "ran.handover.rlf.q_out_db",
        r.q_out_db,
        "a finite SINR in dB",
    )?;
    finite("ran.handover.rlf.q_in_db", r.q_in_db, "a finite SINR in dB")?;
    if r.q_in_db <= r.q_out_db {
        return Err(ScenarioError::new(
            "ran.handover.rlf.q_in_db",
            format!(
                "{} dB is not above q_out_db ({} dB); in-sync needs a better SINR than out-of-sync",
                r.q_in_db, r.q_out_db
            ),
        ));
    }
    for (k, v) in [("n310", r.n310), ("n311", r.n311)] {
        if v == 0 {
            return Err(ScenarioError::new(
                format!("ran.handover.rlf.{k}"),
                "0 is not allowed; expected an integer ≥ 1",
            ));
        }
    }
    positive_time("ran.handover.rlf.t310", &r.t310)?;
    Ok(RlfSpec {
        q_out_db: r.q_out_db,
        q_in_db: r.q_in_db,
        n310: r.n310,
        n311: r.n311,
        t310: r.t310.value,
    })
}
