//! PHY abstraction of 5G NR (Release 15 onwards): the numbers a system-level simulator needs
//! to turn a carrier, an allocation and an SINR into a transport block that is or is not
//! decoded. As for LTE ([`crate::phy`]), no signal processing.
//!
//! * [`carrier`]: numerologies μ = 0..=4 (TS 38.211 §4.2, §4.3.2) and the transmission
//!   bandwidth N_RB of TS 38.101-1 Table 5.3.2-1 (FR1) and TS 38.101-2 Table 5.3.2-1 (FR2).
//! * [`slot_pattern`]: FDD and TDD slot patterns (TS 38.213 §11.1, TS 38.331
//!   `TDD-UL-DL-ConfigCommon`): which slots and symbols are downlink or uplink.
//! * [`mcs`]: the PDSCH MCS tables of TS 38.214 Tables 5.1.3.1-1/-2/-3 and the CQI tables of
//!   TS 38.214 Tables 5.2.2.1-2/-3/-4, and CQI → MCS.
//! * [`dmrs`]: PDSCH time-domain allocation (TS 38.214 §5.1.2.1) and DM-RS overhead (TS 38.211
//!   §7.4.1.1.2), xOverhead (TS 38.331 `PDSCH-ServingCellConfig`).
//! * [`tbs`]: the transport block size of TS 38.214 §5.1.3.2 and [`ldpc`]: the LDPC base graph
//!   (TS 38.212 §7.2.2) and code-block segmentation (TS 38.212 §5.2.2) of a transport block.
//! * [`peak_rate`]: the approximate peak data rate of TS 38.306 §4.1.2.
//! * [`link`]: MIMO rank from SINR and BLER per MCS as a function of SINR.
//! * [`harq`]: 16 HARQ processes, K1 and retransmission timing (TS 38.213 §9.2.3, TS 38.214
//!   §5.3).
//! * The mmWave channel: [`mmwave`] composes the TR 38.901 §7.4 path loss of
//!   [`crate::channel::tr38901`], dynamic blockage — [`blockage`] (TR 38.901 §7.6.4.2 model B)
//!   or [`blockage_markov`] (two-state) —, [`beam`] recovery after each blockage transition,
//!   or a measured [`sinr_trace`] instead.
//! * Layer 2: [`rlc`], NR RLC AM and UM (TS 38.322), and [`pdcp`], NR PDCP (TS 38.323) with
//!   reordering by COUNT, since NR RLC delivers out of order.
//!
//! Units as in [`crate::phy`]: SINR in dB (`_db`), sizes in bits (`_bits`), durations in
//! integer nanoseconds (`_ns`), rates in bits per second (`_bps`). `docs/nr.md` states what is
//! simplified and where every number comes from.

pub mod beam;
pub mod blockage;
pub mod blockage_markov;
pub mod carrier;
pub mod dmrs;
pub mod harq;
pub mod ldpc;
pub mod link;
pub mod mcs;
pub mod mmwave;
pub mod pdcp;
pub mod peak_rate;
pub mod rlc;
pub mod sinr_trace;
pub mod slot_pattern;
pub mod tbs;

#[cfg(test)]
mod l2_tests;

pub use beam::{BeamConfig, BeamRecovery, BeamState, BeamTracker};
pub use blockage::{BlockageLoss, BlockageModelBConfig, BlockerField, BlockerKind, LinkEnd};
pub use blockage_markov::{BlockageState, MarkovBlockage, MarkovBlockageConfig};
pub use carrier::{n_rb, Carrier, FrequencyRange, Numerology};
pub use dmrs::{
    DmrsConfig, DmrsConfigType, DmrsMaxLength, PdschMappingType, PdschTimeAllocation, XOverhead,
};
pub use harq::{HarqTiming, PdschProcessingCapability, NR_HARQ_PROCESSES};
pub use ldpc::{BaseGraph, CodeBlockSegmentation};
pub use link::{per_layer_sinr_db, rank_for_sinr, NrBlerModel};
pub use mcs::{mcs_for_cqi, CqiRow, CqiTable, McsRow, McsTable, Modulation};
pub use mmwave::{
    BlockageConfig, LosMode, MmWaveChannel, MmWaveChannelConfig, MmWaveLink, MmWaveSample,
};
pub use peak_rate::{approx_peak_rate_bps, PeakRateCarrier};
pub use sinr_trace::{SinrInterpolation, SinrTrace, SinrTraceError, SINR_TRACE_HEADER};
pub use slot_pattern::{SlotPattern, SpecialSlot};
pub use tbs::{tbs_bits, TbsInput, TransportBlock};

/// Subcarriers per resource block, N_sc^RB (TS 38.211 §4.4.4.1), for every numerology.
pub const SUBCARRIERS_PER_RB: u32 = 12;

/// OFDM symbols per slot with the normal cyclic prefix (TS 38.211 Table 4.3.2-1).
pub const SYMBOLS_PER_SLOT: u8 = 14;

/// Largest number of PRBs of a carrier, `maxNrofPhysicalResourceBlocks` (TS 38.331).
pub const MAX_PRBS: u16 = 275;

/// Largest number of layers of one codeword (TS 38.211 Table 7.3.1.3-1); 5..=8 layers need
/// a second codeword, which this abstraction does not model.
pub const MAX_LAYERS: u8 = 4;

/// Bad input to an NR table or model. Messages name the parameter, the value and what was
/// expected, with the clause that says so.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NrError {
    #[error("numerology: mu = {mu} is not supported; expected 0..=4 (TS 38.211 Table 4.2-1)")]
    Numerology { mu: u8 },
    #[error(
        "subcarrier spacing: {scs_khz} kHz is not an NR spacing; expected 15, 30, 60, 120 or \
         240 kHz (TS 38.211 Table 4.2-1)"
    )]
    SubcarrierSpacing { scs_khz: u32 },
    #[error(
        "bandwidth: {bandwidth_mhz} MHz with {scs_khz} kHz subcarriers is not a channel \
         bandwidth of {fr} (TS 38.101-{part} Table 5.3.2-1)",
        part = if *fr == FrequencyRange::Fr1 { 1 } else { 2 }
    )]
    Bandwidth {
        fr: FrequencyRange,
        scs_khz: u32,
        bandwidth_mhz: u32,
    },
    #[error(
        "mcs: {index} is not a data MCS of {table}; expected 0..={max} (TS 38.214 §5.1.3.1; \
         higher indices are reserved for retransmissions)",
        max = table.max_index()
    )]
    Mcs { table: McsTable, index: u8 },
    #[error("cqi: {cqi} is out of range; expected 0..=15 (TS 38.214 §5.2.2.1)")]
    Cqi { cqi: u8 },
    #[error("{param}: {value} is out of range; expected {expected}")]
    Range {
        param: &'static str,
        value: u32,
        expected: &'static str,
    },
    #[error(
        "PDSCH time allocation: mapping {mapping:?} with start symbol {start} and {length} \
         symbols is not valid; expected {expected} (TS 38.214 Table 5.1.2.1-1)"
    )]
    TimeAllocation {
        mapping: PdschMappingType,
        start: u8,
        length: u8,
        expected: &'static str,
    },
    #[error(
        "the allocation leaves {n_re_prime} resource elements per PRB for data \
         (12·N_symb − N_DMRS − N_oh, TS 38.214 §5.1.3.2); expected at least 1"
    )]
    NoDataRe { n_re_prime: i64 },
    #[error("slot pattern {pattern:?}: {reason}")]
    SlotPattern { pattern: String, reason: String },
    #[error("{param}: {value} is out of range; expected {expected}")]
    Param {
        param: &'static str,
        value: f64,
        expected: &'static str,
    },
}
