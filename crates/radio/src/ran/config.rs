//! Configuration of an [`LteRan`](super::LteRan): its cells, its UEs with their mobility, the
//! measurements and triggers, the handover procedure's latencies and the data-path policy.

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::handover::HandoverPolicy;
use celltcp_net::loss::AnyLossModel;
use celltcp_net::packet::NodeId;

use crate::cell::LteCellConfig;
use crate::measurement::{A3Config, RlfConfig};
use crate::mobility::MobilityModel;
use crate::rlc::BufferLimit;

/// The predictor of the `predicted` policy ([`HandoverPolicy::Predicted`], seed 000 §V-A.2):
/// it sends the path switch request a prediction step before the handover command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathSwitchPrediction {
    /// How long before the handover command the path switch is requested.
    pub step: SimDuration,
    /// Standard deviation of the predictor's Gaussian timing error (0 = exact).
    pub error_std: SimDuration,
}

/// Default prediction step (seed 000 Table II: 130 ms).
pub const DEFAULT_PREDICTION_STEP: SimDuration = SimDuration::from_ms(130);

impl Default for PathSwitchPrediction {
    /// Seed 000 Table II's step and an exact predictor.
    fn default() -> Self {
        PathSwitchPrediction {
            step: DEFAULT_PREDICTION_STEP,
            error_std: SimDuration::ZERO,
        }
    }
}

/// One-way latencies of the procedure's messages and steps (TS 36.300 Fig. 10.1.2.1.1-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandoverLatencies {
    /// UE → source: the measurement report on the uplink (RRC).
    pub measurement_report: SimDuration,
    /// Source: handover decision after the report.
    pub decision: SimDuration,
    /// eNB ↔ eNB over X2-C: handover request, request ack, SN status transfer, UE context
    /// release (each one way).
    pub x2: SimDuration,
    /// Target: admission control before the request ack.
    pub admission: SimDuration,
    /// Source → UE: the RRC handover command (RRCConnectionReconfiguration with
    /// mobilityControlInfo).
    pub rrc: SimDuration,
    /// UE: detach from the source and synchronise to the target (the bulk of the
    /// interruption: 30 ms in seed 000, 40–300 ms in seed 002).
    pub detach_sync: SimDuration,
    /// UE: random access in the target up to the handover confirm (RRCConnectionReconfiguration
    /// Complete).
    pub random_access: SimDuration,
    /// Target ↔ MME over S1-C: path switch request and its ack (each one way).
    pub s1: SimDuration,
    /// MME ↔ S-GW over S11: modify bearer request and response (each one way).
    pub s11: SimDuration,
}

impl Default for HandoverLatencies {
    fn default() -> Self {
        let ms = SimDuration::from_ms;
        HandoverLatencies {
            measurement_report: ms(5),
            decision: ms(2),
            x2: ms(5),
            admission: ms(2),
            rrc: ms(5),
            detach_sync: ms(30),
            random_access: ms(10),
            s1: ms(5),
            s11: ms(2),
        }
    }
}

/// A handover at a given time, whatever the measurements say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ManualHandover {
    /// The source's handover decision.
    pub at: SimTime,
    pub ue: NodeId,
    /// Index of the target cell in [`RanConfig::cells`].
    pub target: usize,
}

/// Default q-RxLevMin, dBm: a common operator setting within the −140…−44 dBm range of
/// TS 36.331 (Q-RxLevMin, in 2 dB steps).
pub const DEFAULT_Q_RXLEVMIN_DBM: f64 = -124.0;

/// Latencies of the DAPS handover's own steps (the Rel-16 DAPS variant of the X2/Xn handover,
/// TS 36.300 §10.1.2.1, TS 38.300 §9.2.3.2), counted from the UE's access to the target (its RRC
/// reconfiguration complete there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DapsLatencies {
    /// Target → source over X2-C: the Rel-16 X2AP/XnAP HANDOVER SUCCESS;
    /// the source stops transmitting downlink to the UE and sends the SN STATUS TRANSFER on
    /// its arrival. Default 5 ms: the one-way X2-C latency of [`HandoverLatencies::x2`].
    pub handover_success: SimDuration,
    /// Target → UE: the RRC reconfiguration that releases the source leg (daps-SourceRelease,
    /// TS 36.331 §5.3.5.4 Rel-16). Default 5 ms: the RRC latency of [`HandoverLatencies::rrc`].
    pub source_release: SimDuration,
}

impl Default for DapsLatencies {
    fn default() -> Self {
        DapsLatencies {
            handover_success: SimDuration::from_ms(5),
            source_release: SimDuration::from_ms(5),
        }
    }
}

/// Conditional handover (TS 36.300 §10.1.2.1a, TS 38.300 §9.2.3.4, Rel-16): the source
/// prepares candidate targets on the preparation condition and the UE executes on its own
/// execution condition, without a handover command.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConditionalConfig {
    /// Event A3 that makes the source prepare a candidate (earlier than the execution: a
    /// smaller offset or time to trigger).
    pub preparation: A3Config,
    /// Event A3 of the conditional reconfiguration (condExecutionCond, TS 36.331 §5.3.5.13
    /// Rel-16) the UE evaluates on the prepared candidates.
    pub execution: A3Config,
    /// The most candidate targets prepared at once (≥ 1; TS 36.331 allows up to 8,
    /// maxNrofCondCells).
    pub max_candidates: u32,
}

/// The handover procedure of a network.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum HandoverProcedure {
    /// The break-before-make X2 handover of TS 36.300 §10.1.2.1.1.
    #[default]
    Classic,
    /// Dual active protocol stack handover: make before break (`daps.rs`).
    Daps(DapsLatencies),
    /// Conditional handover: prepared by the source, executed by the UE (`conditional.rs`).
    Conditional(ConditionalConfig),
}

impl HandoverProcedure {
    /// The scenario-file spelling.
    pub fn as_str(&self) -> &'static str {
        match self {
            HandoverProcedure::Classic => "classic",
            HandoverProcedure::Daps(_) => "daps",
            HandoverProcedure::Conditional(_) => "conditional",
        }
    }
}

/// The handover procedure and its data path.
#[derive(Clone, Debug, PartialEq)]
pub struct HandoverConfig {
    /// Classic, DAPS or conditional handover.
    pub procedure: HandoverProcedure,
    /// The data-path policy (the "one switch" of the handover configuration).
    pub policy: HandoverPolicy,
    /// The predictor; used only with [`HandoverPolicy::Predicted`].
    pub prediction: PathSwitchPrediction,
    pub latencies: HandoverLatencies,
    /// Measurement-triggered handovers; `None` = only manual ones (and RLF re-establishment).
    pub a3: Option<A3Config>,
    pub manual: Vec<ManualHandover>,
    /// The target delivers forwarded data before data of the new path until the end marker
    /// (36.300 §10.1.2.2) and the UE's PDCP reorders by COUNT; off = everything is delivered
    /// as it arrives (seed 000 Table I "Reordering").
    pub reordering: bool,
    /// The target's per-UE buffer for data held while the UE is not yet attached or before
    /// the end marker (seed 002's buffer overrun).
    pub target_buffer: BufferLimit,
    /// The target stops waiting for the end marker this long after the path switch.
    pub end_marker_timeout: SimDuration,
    /// Admission control: the most UEs a cell serves at once (`None` = no limit).
    pub max_ues_per_cell: Option<u32>,
    /// Radio link monitoring; `None` = the radio link never fails.
    pub rlf: Option<RlfConfig>,
    /// After a radio link failure: cell search, random access and RRC connection
    /// re-establishment until the UE is served again (TS 36.331 §5.3.7, T311 running).
    pub reestablishment: SimDuration,
    /// The cell selection criterion S of TS 36.304 §5.2.3.2, Srxlev = RSRP − q_rxlevmin > 0
    /// (no offsets or power compensation): after a radio link failure the UE re-establishes
    /// only in a cell it measures above this level, dBm; until one is, it stays out of service
    /// and keeps searching every measurement period.
    pub q_rxlevmin_dbm: f64,
}

impl Default for HandoverConfig {
    fn default() -> Self {
        HandoverConfig {
            procedure: HandoverProcedure::Classic,
            policy: HandoverPolicy::Forward,
            prediction: PathSwitchPrediction::default(),
            latencies: HandoverLatencies::default(),
            a3: None,
            manual: Vec::new(),
            reordering: true,
            target_buffer: BufferLimit::Bytes(1_000_000),
            end_marker_timeout: SimDuration::from_ms(200),
            max_ues_per_cell: None,
            rlf: None,
            reestablishment: SimDuration::from_ms(200),
            q_rxlevmin_dbm: DEFAULT_Q_RXLEVMIN_DBM,
        }
    }
}

/// UE measurements (TS 36.331 §5.5.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeasurementConfig {
    /// Layer-1 measurement period: positions are updated, RSRP and RSRQ measured, filtered
    /// and evaluated this often.
    pub period: SimDuration,
    /// filterCoefficient k of the layer-3 filter (36.331 §5.5.3.2).
    pub filter_k: u8,
    /// Standard deviation of the layer-1 measurement error, dB (0 = exact), of RSRP and,
    /// drawn independently, of RSRQ.
    pub error_std_db: f64,
    /// The quantity Event A3 compares (36.331 ReportConfigEUTRA triggerQuantity).
    pub trigger_quantity: TriggerQuantity,
}

/// The measured quantity a UE's Event A3 evaluates (TS 36.331 §6.3.5 ReportConfigEUTRA,
/// triggerQuantity). The offset and hysteresis are in dB for either.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TriggerQuantity {
    /// Reference signal received power, dBm (TS 36.214 §5.1.1).
    #[default]
    Rsrp,
    /// Reference signal received quality, dB (TS 36.214 §5.1.3): falls with the neighbours'
    /// load as well as with the serving cell's path loss.
    Rsrq,
}

impl TriggerQuantity {
    /// The scenario-file spelling.
    pub fn as_str(&self) -> &'static str {
        match self {
            TriggerQuantity::Rsrp => "rsrp",
            TriggerQuantity::Rsrq => "rsrq",
        }
    }
}

impl Default for MeasurementConfig {
    fn default() -> Self {
        MeasurementConfig {
            period: SimDuration::from_ms(40),
            filter_k: 4,
            error_std_db: 0.0,
            trigger_quantity: TriggerQuantity::Rsrp,
        }
    }
}

/// A UE of the network: where it starts being served, how it moves, and the receive errors
/// of its downlink.
#[derive(Clone, Debug, PartialEq)]
pub struct RanUe {
    pub node: NodeId,
    /// Index of its serving cell at the start in [`RanConfig::cells`].
    pub serving: usize,
    pub mobility: MobilityModel,
    /// Receive errors at the UE (`cell::downlink_loss`): every IP packet its PDCP receiver
    /// delivers is lost with the model's probability, whichever cell served it; the model
    /// belongs to the UE's receiver and keeps its state across handovers. `None`: no losses
    /// there and no draws.
    pub downlink_loss: Option<AnyLossModel>,
}

/// A radio access network: LTE cells (X2 handover) or NR cells (Xn handover), their UEs.
#[derive(Clone, Debug, PartialEq)]
pub struct RanConfig {
    /// Name in summaries.
    pub name: String,
    /// The cells, each with its own eNB node. Their `interferers` lists are kept; with
    /// `coupled_interference` the other cells of the network are added to them. Their
    /// `downlink_loss` maps must be empty: a UE's receive errors are its own
    /// ([`RanUe::downlink_loss`]).
    pub cells: Vec<LteCellConfig>,
    pub ues: Vec<RanUe>,
    /// The MME and S-GW (the EPC gateway node), for the message timeline.
    pub gateway: NodeId,
    pub handover: HandoverConfig,
    pub measurement: MeasurementConfig,
    /// Every cell sees the others as interferers with the PRB load they had over the last
    /// measurement period (instead of only the configured constant-load interferers).
    pub coupled_interference: bool,
    /// EN-DC with a split bearer for every UE (`None` = each UE in one cell at a time).
    pub dual_connectivity: Option<super::DualConnectivityConfig>,
}
