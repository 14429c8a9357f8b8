//! Configuration of an [`LteCell`](super::LteCell) and its UEs, with validation and the error
//! type of the cell.

use std::collections::BTreeMap;

use celltcp_net::loss::AnyLossModel;
use celltcp_net::packet::NodeId;

use crate::channel::{ChannelError, FreeSpace, PathLossKind, PathLossModel, Position};
use crate::mac::{HarqConfig, HarqError, MacError, Weight};
use crate::nr::rlc::{NrRlcAmConfig, NrRlcUmConfig};
use crate::pdcp::{PdcpConfig, PdcpConfigError};
use crate::phy::{prbs_for_bandwidth, BlerModel, Mcs, PhyError, DEFAULT_BANDWIDTH_MHZ, N_PRB_MAX};
use crate::rlc::{BufferLimit, RlcAmConfig, RlcConfigError, RlcSduRefused, RlcUmConfig};

mod keys;
mod rlc;
mod uplink;

pub use keys::{CellKeyError, CellRadioConfig, LosSetting};
pub use rlc::{CellRlcConfig, PollPdu, RlcMode, MAX_RETX_THRESHOLD};
pub use uplink::{
    ConfiguredGrantConfig, Rat, SrBsrConfig, UplinkConfig, UplinkScheduling, MAX_K2_SLOTS,
};

/// Another cell on the same carrier, seen by every UE of this cell as interference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interferer {
    pub position: Position,
    /// Total transmit power over the carrier, dBm.
    pub tx_power_dbm: f64,
    /// Fraction of its PRBs the interferer transmits on, 0..=1 (constant over the run).
    pub load: f64,
}

/// RLC mode of the downlink data radio bearer of every UE (one bearer per UE), LTE's in an
/// LTE cell, NR's in an NR cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RlcModeConfig {
    /// Acknowledged mode (TS 36.322 §5.1.3): ARQ with STATUS PDUs on the uplink.
    Am(RlcAmConfig),
    /// Unacknowledged mode (TS 36.322 §5.1.2): no retransmission at RLC.
    Um(RlcUmConfig),
    /// NR acknowledged mode (TS 38.322 §5.2.3): no concatenation, SDUs delivered once
    /// complete, out of SN order.
    NrAm(NrRlcAmConfig),
    /// NR unacknowledged mode (TS 38.322 §5.2.2).
    NrUm(NrRlcUmConfig),
}

impl RlcModeConfig {
    /// Limit on SDUs waiting for their first transmission (the eNB's per-UE queue).
    pub fn tx_buffer(&self) -> BufferLimit {
        match self {
            RlcModeConfig::Am(c) => c.tx_buffer,
            RlcModeConfig::Um(c) => c.tx_buffer,
            RlcModeConfig::NrAm(c) => c.tx_buffer,
            RlcModeConfig::NrUm(c) => c.tx_buffer,
        }
    }

    /// The default `[cells.NAME.rlc]` of a cell of `rat` ([`CellRlcConfig::default`]): LTE's
    /// [`default_rlc_am`], or NR AM with an 18-bit SN and the same polling, threshold, timers
    /// and buffer.
    pub fn cell_default(rat: Rat) -> Self {
        CellRlcConfig::default()
            .entity_config(rat)
            .expect("the default RLC table is valid for either RAT")
    }

    /// Acknowledged mode, of either RAT.
    pub fn is_am(&self) -> bool {
        matches!(self, RlcModeConfig::Am(_) | RlcModeConfig::NrAm(_))
    }

    /// NR's RLC (TS 38.322).
    pub fn is_nr(&self) -> bool {
        matches!(self, RlcModeConfig::NrAm(_) | RlcModeConfig::NrUm(_))
    }

    /// Header bytes of a data PDU that carries one whole SDU: LTE's fixed header (36.322
    /// §6.2.1.3/§6.2.1.4), NR's AMD header (38.322 §6.2.2.4: 2 bytes with a 12-bit SN, 3 with
    /// 18) or the UMD header of a complete SDU (§6.2.2.3: 1 byte, no SN).
    pub fn data_header_bytes(&self) -> u32 {
        match self {
            RlcModeConfig::Am(c) => c.header.fixed_bytes,
            RlcModeConfig::Um(c) => c.header.fixed_bytes,
            RlcModeConfig::NrAm(c) => c.sn_length.amd_header_bytes(),
            RlcModeConfig::NrUm(_) => crate::nr::rlc::UMD_COMPLETE_HEADER_BYTES,
        }
    }

    /// The same mode with another transmission buffer limit.
    pub fn with_tx_buffer(self, limit: BufferLimit) -> Self {
        match self {
            RlcModeConfig::Am(c) => RlcModeConfig::Am(RlcAmConfig {
                tx_buffer: limit,
                ..c
            }),
            RlcModeConfig::Um(c) => RlcModeConfig::Um(RlcUmConfig {
                tx_buffer: limit,
                ..c
            }),
            RlcModeConfig::NrAm(c) => RlcModeConfig::NrAm(NrRlcAmConfig {
                tx_buffer: limit,
                ..c
            }),
            RlcModeConfig::NrUm(c) => RlcModeConfig::NrUm(NrRlcUmConfig {
                tx_buffer: limit,
                ..c
            }),
        }
    }
}

/// Combining of HARQ retransmissions at the UE; chase combining by default. A scenario file
/// writes it as `"chase"` or `"none"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "snake_case")
)]
pub enum HarqCombining {
    /// Chase combining: the block is decoded on the sum of the linear SINRs of all its
    /// transmissions (maximum-ratio combining of identical copies).
    #[default]
    Chase,
    /// No soft combining: every transmission is decoded on its own SINR, so a block fails after
    /// k transmissions with probability Π BLER_i (BLER^k at a fixed SINR).
    None,
}

/// Default decorrelation distance of the log-normal shadowing, m: the shadow-fading
/// correlation distance of urban macro NLOS, 50 m (TR 38.901 Table 7.5-6 Part-1),
/// the default path-loss model (`uma`) in the condition
/// of most of a cell's area.
pub const DEFAULT_SHADOWING_DECORRELATION_M: f64 = 50.0;

/// Parameters of one cell: the radio keys as a user states them ([`CellRadioConfig`],
/// `keys`), the models built from them once ([`CellRadioConfig::cell_config`]), and what a
/// scenario places around them (nodes, position, interferers, per-UE maps, the bearer).
///
/// The cell reads a plain key — one it uses as given, such as `keys.fading`, `keys.scheduler`,
/// `keys.cqi_table`, `keys.ue_category`, `keys.tx_power_dbm` — from `keys`, so that a new such
/// key is a [`CellRadioConfig`] field and nothing here. A key the cell needs in another form is
/// built once into a field of its own and read only there: `bandwidth_mhz` as `n_prb`,
/// `carrier_ghz` as `carrier_hz`, the path-loss keys as `pathloss` and `probabilistic_los`,
/// the shadowing keys as `shadowing`, `pf_time_constant`, `cqi_period` and `cqi_delay` in
/// TTIs, `harq_max_transmissions` in `harq`, `bler_decade_db` as `bler`, and `fixed_mcs` as
/// an [`Mcs`]; those keys of `keys` are what the user gave and nothing reads them after
/// `cell_config`.
#[derive(Clone, Debug, PartialEq)]
pub struct LteCellConfig {
    /// The radio keys; the cell reads the plain ones (see above) from here.
    pub keys: CellRadioConfig,
    /// Name in summaries and in random stream paths (`cell/NAME/ue/NODE/...`).
    pub name: String,
    /// The eNB node.
    pub enb: NodeId,
    pub position: Position,
    /// Downlink PRBs, N_RB^DL (e.g. `phy::prbs_for_bandwidth(10.0)` = 50), 1..=110.
    pub n_prb: u32,
    /// Carrier frequency, Hz (Doppler of the fading; path-loss models carry their own).
    pub carrier_hz: f64,
    /// Transmit plus receive antenna gain, dB (−100..=100).
    pub antenna_gain_db: f64,
    pub pathloss: PathLossModel,
    /// Draw the LOS condition of every link to a UE — from the serving eNB and from each
    /// interferer — from the path-loss model's LOS probability at the UE's first position
    /// (TR 38.901 §7.4.2, Table 7.4.2-1), and keep it for the link's life, as ns-3's
    /// `ThreeGppChannelConditionModel` does with its default update period of 0. The condition
    /// of `pathloss` is then only the starting point. UMa and UMi only (the other models have
    /// no LOS condition).
    pub probabilistic_los: bool,
    /// Log-normal shadowing (standard deviation, dB; decorrelation distance, m), or none.
    pub shadowing: Option<(f64, f64)>,
    pub interferers: Vec<Interferer>,
    /// Weighted-fair-queueing weight of each UE, by node (dimensionless, finite and > 0); a
    /// UE not listed weighs 1. Only `wfq` reads weights (the other schedulers ignore them).
    /// Every node listed must be a UE of the cell.
    pub ue_weights: BTreeMap<NodeId, f64>,
    /// Receive errors of each UE on the downlink, by node: every IP packet the UE's RLC and
    /// PDCP deliver is lost at the UE with the model's probability (`downlink_loss.rs`); a UE
    /// not listed loses nothing there. Every node listed must be a UE of the cell. In a radio
    /// access network the model is the UE's (`RanUe::downlink_loss`) and this map stays empty.
    pub downlink_loss: BTreeMap<NodeId, AnyLossModel>,
    /// Proportional-fair time constant, TTIs (ms; an NR cell's scheduler counts it in slots).
    pub pf_time_constant_tti: f64,
    pub harq: HarqConfig,
    /// BLER curves used both for the CQI (link adaptation) and for decoding; of the MCSs of
    /// `keys.cqi_table`'s MCS table.
    pub bler: BlerModel,
    /// RLC of the downlink bearer of every UE (the eNB's transmitting side, the UE's receiving
    /// side); its buffer limit is the eNB's per-UE queue.
    pub rlc: RlcModeConfig,
    /// PDCP of the bearer. The SN length gives the header size, on the downlink and on the
    /// uplink's overhead. In a cell on its own, `reordering` instantiates the UE's receiving
    /// entity with reordering (36.323 §5.1.2.1.4, for RLC AM bearers only), which holds the
    /// SDUs after a gap in COUNT until the gap fills or `t_reordering` expires; without it the
    /// UE's receiver delivers as RLC delivers (see `bearer.rs`). In a radio access network the
    /// UE's receiver sits above the cells and the network decides when it reorders; the cell
    /// ignores `reordering` there.
    pub pdcp: PdcpConfig,
    /// Period of the wideband CQI reports, TTIs (≥ 1): milliseconds, also for an NR cell,
    /// whose reports count it in slots.
    pub cqi_period_tti: u32,
    /// TTIs (ms) from the measurement of a CQI to its use by the scheduler.
    pub cqi_delay_tti: u32,
    /// Bypass link adaptation: every new transport block uses this MCS.
    pub fixed_mcs: Option<Mcs>,
    pub uplink: UplinkConfig,
    /// Keep the per-TTI series (see [`CellTrace`](super::CellTrace)); per slot in NR.
    pub trace_series: bool,
    /// The NR air interface (`nr_config.rs`): `Some` makes the cell a gNB whose carrier,
    /// slots, PRBs, MCS/CQI tables, transport block sizes, BLER curves, layers and HARQ
    /// processes and timing are NR's (`air.rs`); `n_prb`, `keys.cqi_table` and `bler` are then
    /// LTE's and unused. `None` (the default): an LTE eNB.
    pub nr: Option<super::nr_config::NrCellConfig>,
}

impl LteCellConfig {
    /// A 10 MHz (50 PRB) cell at 2 GHz and 46 dBm, noise figure 9 dB, free-space path loss, no shadowing, no fading, no interferers, proportional fair
    /// (t_c = 1000 TTIs), every UE of weight 1 and without downlink receive errors, HARQ 8 processes / maxTx 4 with chase combining, RLC AM
    /// ([`default_rlc_am`]), PDCP 12-bit SN, CQI every 5 TTIs used 4 TTIs later, AMC, no UE
    /// category bound, the default uplink, no traces. Every field may be overridden.
    pub fn lte_default(name: &str, enb: NodeId) -> Self {
        LteCellConfig {
            name: name.to_string(),
            enb,
            position: Position::new(0.0, 0.0),
            keys: CellRadioConfig {
                pathloss: PathLossKind::FreeSpace,
                ..CellRadioConfig::default()
            },
            n_prb: prbs_for_bandwidth(DEFAULT_BANDWIDTH_MHZ).expect("a bandwidth of the table"),
            carrier_hz: 2.0e9,
            antenna_gain_db: 0.0,
            pathloss: PathLossModel::FreeSpace(
                FreeSpace::new(2.0e9).expect("2 GHz is a valid carrier"),
            ),
            probabilistic_los: false,
            shadowing: None,
            interferers: Vec::new(),
            ue_weights: BTreeMap::new(),
            downlink_loss: BTreeMap::new(),
            pf_time_constant_tti: crate::mac::proportional_fair::DEFAULT_TIME_CONSTANT_TTI,
            harq: HarqConfig::default(),
            bler: BlerModel::default(),
            rlc: RlcModeConfig::Am(default_rlc_am()),
            pdcp: PdcpConfig::default(),
            cqi_period_tti: 5,
            cqi_delay_tti: 4,
            fixed_mcs: None,
            uplink: UplinkConfig::default(),
            trace_series: false,
            nr: None,
        }
    }

    /// Downlink resource blocks of the carrier: `n_prb` (N_RB^DL) for LTE, for NR the N_RB of
    /// its numerology and bandwidth (TS 38.101-1 Table 5.3.2-1), whose subcarriers an RSRP
    /// spreads the transmit power over.
    pub fn carrier_n_rb(&self) -> Result<u32, CellError> {
        match &self.nr {
            None => Ok(self.n_prb),
            Some(nr) => Ok(u32::from(
                nr.validate("cell", self.carrier_hz)?.carrier.n_rb(),
            )),
        }
    }

    /// The checks of an NR cell's own keys: its configuration and a `fixed_mcs` of its MCS
    /// table.
    fn validate_nr(&self, nr: &super::nr_config::NrCellConfig) -> Result<(), CellError> {
        let air = nr.validate("cell", self.carrier_hz)?;
        if let Some(channel) = &nr.channel {
            if !self.interferers.is_empty() {
                return Err(CellError::InvalidConfig {
                    key: "nr.channel",
                    value: format!("{} interferers", self.interferers.len()),
                    expected: "no interferers: the mmWave channel models noise only",
                });
            }
            channel.resolve("cell", self.carrier_hz, self.position, &[])?;
        }
        if let Some(mcs) = self.fixed_mcs {
            if mcs.get() > air.mcs_table.max_index() {
                return Err(CellError::InvalidConfig {
                    key: "fixed_mcs",
                    value: mcs.to_string(),
                    expected: "a data MCS of the NR MCS table (TS 38.214 §5.1.3.1)",
                });
            }
        }
        Ok(())
    }

    /// Checks every field, naming the offending one.
    pub fn validate(&self) -> Result<(), CellError> {
        let bad = |key: &'static str, value: String, expected: &'static str| {
            Err(CellError::InvalidConfig {
                key,
                value,
                expected,
            })
        };
        if let Some(nr) = &self.nr {
            self.validate_nr(nr)?;
        } else if !(1..=N_PRB_MAX).contains(&self.n_prb) {
            return bad("n_prb", self.n_prb.to_string(), "1..=110 PRBs");
        }
        if !(self.carrier_hz.is_finite() && self.carrier_hz > 0.0) {
            return bad(
                "carrier_hz",
                self.carrier_hz.to_string(),
                "a positive frequency in Hz",
            );
        }
        // Bounded, not only finite, so that the SINR of every TTI has a finite linear value
        // (HARQ adds linear SINRs): with these, the noise floor and the path-loss models'
        // minimum distances, the SINR stays within some hundreds of dB.
        if !(-100.0..=100.0).contains(&self.keys.tx_power_dbm) {
            return bad(
                "tx_power_dbm",
                self.keys.tx_power_dbm.to_string(),
                "a power in [-100, 100] dBm",
            );
        }
        if !(-100.0..=100.0).contains(&self.antenna_gain_db) {
            return bad(
                "antenna_gain_db",
                self.antenna_gain_db.to_string(),
                "a gain in [-100, 100] dB",
            );
        }
        if !(self.position.x_m.is_finite() && self.position.y_m.is_finite()) {
            return bad(
                "position",
                format!("{:?}", self.position),
                "finite coordinates in metres",
            );
        }
        for i in &self.interferers {
            if !(i.load.is_finite() && (0.0..=1.0).contains(&i.load)) {
                return bad(
                    "interferers.load",
                    i.load.to_string(),
                    "a PRB utilisation in [0, 1]",
                );
            }
            if !i.tx_power_dbm.is_finite() {
                return bad(
                    "interferers.tx_power_dbm",
                    i.tx_power_dbm.to_string(),
                    "a finite power in dBm",
                );
            }
            if !(i.position.x_m.is_finite() && i.position.y_m.is_finite()) {
                return bad(
                    "interferers.position",
                    format!("{:?}", i.position),
                    "finite coordinates in metres",
                );
            }
        }
        for w in self.ue_weights.values() {
            if Weight::new(*w).is_err() {
                return bad("ue_weights", w.to_string(), "a finite weight > 0");
            }
        }
        if self.probabilistic_los && self.pathloss.los_probability(0.0).is_none() {
            return bad(
                "probabilistic_los",
                "true".into(),
                "false with a path-loss model without a LOS condition (free space, log-distance)",
            );
        }
        if self.bler.cqi_table() != self.keys.cqi_table {
            return bad(
                "bler",
                format!("curves of CQI table {}", self.bler.cqi_table().name()),
                "curves of the MCSs of cqi_table",
            );
        }
        if let Some(mcs) = self.fixed_mcs.filter(|_| self.nr.is_none()) {
            if !self.keys.cqi_table.has_mcs(mcs.get()) {
                return bad(
                    "fixed_mcs",
                    mcs.to_string(),
                    "an MCS of cqi_table's MCS table (0..=27 with Table 7.2.3-2)",
                );
            }
        }
        if self.cqi_period_tti == 0 {
            return bad("cqi_period_tti", "0".into(), "at least 1 TTI");
        }
        // The uplink table's own checks, in its own words (the file layer's too).
        self.uplink
            .check(&|_| String::new())
            .map_err(CellError::Uplink)?;
        self.harq.validate()?;
        match &self.rlc {
            RlcModeConfig::Am(c) => c.validate()?,
            RlcModeConfig::Um(c) => c.validate()?,
            RlcModeConfig::NrAm(c) => c.validate()?,
            RlcModeConfig::NrUm(c) => c.validate()?,
        }
        if self.rlc.is_nr() != self.nr.is_some() {
            return bad(
                "rlc",
                if self.rlc.is_nr() {
                    "NR RLC"
                } else {
                    "LTE RLC"
                }
                .into(),
                "the RLC of the cell's RAT (TS 36.322 in an LTE cell, TS 38.322 in an NR cell)",
            );
        }
        self.pdcp.validate()?;
        // NR PDCP reorders over either mode (TS 38.323 §5.2.2.2); LTE's only over AM.
        if self.pdcp.reordering && !self.rlc.is_am() && !self.rlc.is_nr() {
            return bad(
                "pdcp.reordering",
                "true".into(),
                "false with RLC UM (PDCP reordering is defined for RLC AM bearers, 36.323 \
                 §5.1.2.1.4)",
            );
        }
        crate::channel::noise_power_dbm(self.n_prb, self.keys.noise_figure_db)?;
        if let Some((sigma, d)) = self.shadowing {
            crate::channel::Shadowing::new(sigma, d)?;
        }
        crate::channel::RayleighFading::new(0.0, self.carrier_hz, crate::phy::TTI_NS)?;
        Ok(())
    }
}

/// The RLC AM configuration of [`LteCellConfig::lte_default`]: the LTE defaults of
/// [`RlcAmConfig::lte_default`] (t-PollRetransmit 45 ms, t-Reordering 35 ms, t-StatusProhibit
/// 0, maxRetxThreshold 4, radio link failure at maxRetx) with pollPDU 32 and pollByte 25 000
/// bytes (values of the 36.331 RLC-Config ranges p32 and kB25), so that a long transfer is
/// polled regularly instead of only when the window stalls, and a 1 MB buffer limit.
pub fn default_rlc_am() -> RlcAmConfig {
    RlcAmConfig {
        poll_pdu: Some(32),
        poll_byte: Some(25_000),
        tx_buffer: BufferLimit::Bytes(1_000_000),
        ..RlcAmConfig::lte_default()
    }
}

/// One UE attached to the cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UeConfig {
    pub node: NodeId,
    pub position: Position,
    /// Speed, m/s (0..=200): sets the Doppler of the fading; positions do not change by
    /// themselves (see [`LteCell::set_ue_position`](super::LteCell::set_ue_position)).
    pub speed_mps: f64,
}

/// Why a cell could not be built or a call was refused. Messages name the key and the value.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CellError {
    #[error("cell.{key}: {value} is invalid; expected {expected}")]
    InvalidConfig {
        key: &'static str,
        value: String,
        expected: &'static str,
    },
    #[error("cell.ues: node {node} appears twice or is the eNB node")]
    DuplicateUe { node: NodeId },
    #[error("cell: node {node} is not a UE of this cell")]
    UnknownUe { node: NodeId },
    #[error("cell: UE {node} is not connected to this cell")]
    NotConnected { node: NodeId },
    #[error("cell: UE {node} is already connected to this cell")]
    AlreadyConnected { node: NodeId },
    #[error("cell: UE {node}: {source}")]
    SduRefused {
        node: NodeId,
        #[source]
        source: RlcSduRefused,
    },
    #[error("cell.uplink.{}: {}", .0.key, .0.message)]
    Uplink(CellKeyError),
    #[error(transparent)]
    Channel(#[from] ChannelError),
    #[error(transparent)]
    Phy(#[from] PhyError),
    #[error(transparent)]
    Mac(#[from] MacError),
    #[error(transparent)]
    Harq(#[from] HarqError),
    #[error(transparent)]
    Rlc(#[from] RlcConfigError),
    #[error(transparent)]
    Pdcp(#[from] PdcpConfigError),
    #[error(transparent)]
    Nr(#[from] super::nr_config::NrConfigError),
    #[error(transparent)]
    NrPhy(#[from] crate::nr::NrError),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::LteCell;

    fn ue(node: NodeId) -> UeConfig {
        UeConfig {
            node,
            position: Position::new(100.0, 0.0),
            speed_mps: 0.0,
        }
    }

    #[test]
    fn the_default_is_valid() {
        assert_eq!(
            LteCellConfig::lte_default("c", NodeId(0)).validate(),
            Ok(())
        );
    }

    #[test]
    fn errors_name_the_key_and_the_value() {
        let base = LteCellConfig::lte_default("c", NodeId(0));
        let msg = |cfg: LteCellConfig| cfg.validate().unwrap_err().to_string();
        let ul = UplinkConfig {
            loss: 1.5,
            ..UplinkConfig::default()
        };
        assert_eq!(
            msg(LteCellConfig {
                uplink: ul,
                ..base.clone()
            }),
            "cell.uplink.loss: 1.5 is out of range; expected a probability in [0, 1]"
        );
        let silent = UplinkConfig {
            rate_bps: 0,
            ..UplinkConfig::default()
        };
        assert_eq!(
            msg(LteCellConfig {
                uplink: silent,
                ..base.clone()
            }),
            "cell.uplink.rate: must be a positive rate, e.g. '5Mbps'"
        );
        assert_eq!(
            msg(LteCellConfig {
                n_prb: 0,
                ..base.clone()
            }),
            "cell.n_prb: 0 is invalid; expected 1..=110 PRBs"
        );
        for p in [f64::NAN, 101.0, 1e6] {
            assert_eq!(
                msg(LteCellConfig {
                    keys: CellRadioConfig {
                        tx_power_dbm: p,
                        ..base.keys.clone()
                    },
                    ..base.clone()
                }),
                format!("cell.tx_power_dbm: {p} is invalid; expected a power in [-100, 100] dBm")
            );
        }
        assert!(msg(LteCellConfig {
            antenna_gain_db: 1e6,
            ..base.clone()
        })
        .starts_with("cell.antenna_gain_db: 1000000 is invalid"));
        assert!(msg(LteCellConfig {
            cqi_period_tti: 0,
            ..base.clone()
        })
        .contains("cqi_period_tti"));
        let harq = HarqConfig {
            max_transmissions: 0,
            ..HarqConfig::default()
        };
        assert!(msg(LteCellConfig {
            harq,
            ..base.clone()
        })
        .contains("max_transmissions"));
        let bad_scheduler = LteCellConfig {
            keys: CellRadioConfig {
                scheduler: "fifo".into(),
                ..base.keys.clone()
            },
            ..base.clone()
        };
        let e = LteCell::new(bad_scheduler, vec![ue(NodeId(1))], 1, 0).unwrap_err();
        assert!(e.to_string().contains("fifo"), "{e}");
    }

    #[test]
    fn per_ue_maps_and_pdcp_reordering_are_checked() {
        let base = LteCellConfig::lte_default("c", NodeId(0));
        for w in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let cfg = LteCellConfig {
                ue_weights: BTreeMap::from([(NodeId(1), w)]),
                ..base.clone()
            };
            let e = cfg.validate().unwrap_err().to_string();
            assert!(e.starts_with("cell.ue_weights: "), "{e}");
        }
        // A weight for a node that is not a UE of the cell.
        let stray = LteCellConfig {
            ue_weights: BTreeMap::from([(NodeId(7), 2.0)]),
            ..base.clone()
        };
        assert_eq!(
            LteCell::new(stray, vec![ue(NodeId(1))], 1, 0).unwrap_err(),
            CellError::UnknownUe { node: NodeId(7) }
        );
        // A downlink loss model likewise.
        let stray_loss = LteCellConfig {
            downlink_loss: BTreeMap::from([(NodeId(8), AnyLossModel::bernoulli(0.1).unwrap())]),
            ..base.clone()
        };
        assert_eq!(
            LteCell::new(stray_loss, vec![ue(NodeId(1))], 1, 0).unwrap_err(),
            CellError::UnknownUe { node: NodeId(8) }
        );
        let um_reordering = LteCellConfig {
            rlc: RlcModeConfig::Um(RlcUmConfig::lte(10)),
            pdcp: PdcpConfig {
                reordering: true,
                ..PdcpConfig::default()
            },
            ..base.clone()
        };
        let e = um_reordering.validate().unwrap_err().to_string();
        assert!(
            e.starts_with("cell.pdcp.reordering: true is invalid"),
            "{e}"
        );
        let weighted = LteCellConfig {
            ue_weights: BTreeMap::from([(NodeId(1), 3.0)]),
            ..base
        };
        assert!(LteCell::new(weighted, vec![ue(NodeId(1)), ue(NodeId(2))], 1, 0).is_ok());
    }

    #[test]
    fn ues_must_be_distinct_and_not_the_enb() {
        let cfg = LteCellConfig::lte_default("c", NodeId(0));
        let dup = LteCell::new(cfg.clone(), vec![ue(NodeId(1)), ue(NodeId(1))], 1, 0).unwrap_err();
        assert_eq!(dup, CellError::DuplicateUe { node: NodeId(1) });
        let enb = LteCell::new(cfg.clone(), vec![ue(NodeId(0))], 1, 0).unwrap_err();
        assert_eq!(enb, CellError::DuplicateUe { node: NodeId(0) });
        let fast = UeConfig {
            speed_mps: 500.0,
            ..ue(NodeId(2))
        };
        assert!(LteCell::new(cfg.clone(), vec![fast], 1, 0).is_err());
        let mut cell = LteCell::new(cfg, vec![ue(NodeId(1))], 1, 0).unwrap();
        assert_eq!(
            cell.set_ue_position(NodeId(7), Position::new(0.0, 0.0)),
            Err(CellError::UnknownUe { node: NodeId(7) })
        );
        assert!(cell
            .set_ue_position(NodeId(1), Position::new(f64::NAN, 0.0))
            .is_err());
    }
}
