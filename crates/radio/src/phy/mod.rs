//! PHY abstraction of the LTE downlink: no signal processing, only the tables and curves a
//! system-level simulator needs to turn an SINR into a transport block that is or is not
//! decoded.
//!
//! * [`tables`]: TS 36.213 Table 7.2.3-1 (4-bit CQI), Table 7.1.7.1-1 (MCS → modulation order
//!   and TBS index, PDSCH) and Table 7.1.7.2.1-1 (transport block sizes for 1..110 PRBs), plus
//!   the per-MCS spectral efficiencies of 3GPP R1-081483; the 256QAM pair of Table 7.2.3-2 and
//!   Table 7.1.7.1-1A, which [`CqiTable`] chooses.
//! * [`bler`]: block error rate per MCS as a function of SINR (a logistic curve around a
//!   per-MCS 10 % threshold calibrated on an attenuated Shannon bound), and HARQ chase
//!   combining.
//! * [`bler_table`]: link-level BLER curves supplied as a table of (SINR, BLER) points per MCS,
//!   parsed from CSV and interpolated; a [`BlerModel`] can be built on one.
//! * [`amc`]: adaptive modulation and coding: SINR → CQI → MCS, channel bandwidth → PRBs.
//! * [`index`]: the CQI and MCS indices as types holding only the tables' ranges, so that the
//!   lookups of the per-TTI path cannot fail.
//! * [`ue_category`]: the downlink UE categories of TS 36.306 Table 4.1-1, which bound the
//!   transport block a UE receives in a TTI.
//!
//! Units: SINR in dB (`_db`), spectral efficiency in information bits per resource element,
//! sizes in bits (`_bits`), rates in bits per second (`_bps`). One TTI is one 1 ms subframe
//! (TS 36.211 §4.1, frame structure type 1). `docs/lte-phy.md` states what is simplified and
//! where every number comes from.

pub mod amc;
pub mod bler;
pub mod bler_table;
pub mod index;
pub mod tables;
pub mod ue_category;

pub use amc::{
    mcs_for_cqi, prbs_for_bandwidth, transport_rate_bps, Amc, CHANNEL_BANDWIDTHS,
    DEFAULT_BANDWIDTH_MHZ,
};
pub use bler::{BlerModel, ChaseCombining, BLER_TARGET};
pub use bler_table::{BlerTable, BlerTableError, BLER_TABLE_HEADER};
pub use index::{Cqi, Mcs};
pub use tables::{
    cqi_efficiency, cqi_entry, mcs_spectral_efficiency, mcs_to_itbs, tbs_bits, tbs_bits_for_mcs,
    CqiEntry, CqiTable, McsEntry, Modulation, CQI_MAX, MCS_MAX, N_PRB_MAX,
};
pub use ue_category::{UeCategory, UeCategoryError};

/// Duration of one TTI (one subframe, TS 36.211 §4.1), nanoseconds.
pub const TTI_NS: u64 = 1_000_000;

/// TTIs per second.
pub const TTIS_PER_SECOND: u64 = 1_000_000_000 / TTI_NS;

/// Subcarriers per resource block, N_sc^RB (TS 36.211 Table 6.2.3-1, 15 kHz spacing).
pub const SUBCARRIERS_PER_PRB: u32 = 12;

/// Bandwidth of one resource block: 12 subcarriers × 15 kHz, hertz.
pub const PRB_BANDWIDTH_HZ: f64 = 180_000.0;

/// Bad input to a PHY table or model. Messages name the parameter, the value and what was
/// expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PhyError {
    #[error(
        "mcs: {mcs} is out of range; expected an MCS index in 0..=28 \
         (TS 36.213 Table 7.1.7.1-1; 29..=31 are reserved for retransmissions)"
    )]
    Mcs { mcs: u8 },
    #[error(
        "i_tbs: {i_tbs} is out of range; expected a TBS index in 0..=33 \
         (TS 36.213 Table 7.1.7.2.1-1)"
    )]
    Itbs { i_tbs: u8 },
    #[error(
        "mcs: {mcs} is out of range; expected an MCS index in 0..={max} of the MCS table of CQI \
         table {name} (TS 36.213 §7.1.7.1)",
        max = table.mcs_max(),
        name = table.name()
    )]
    McsOfTable { mcs: u8, table: CqiTable },
    #[error("n_prb: {n_prb} is out of range; expected 1..=110 PRBs (TS 36.213 Table 7.1.7.2.1-1)")]
    PrbCount { n_prb: u32 },
    #[error(
        "cqi: {cqi} is out of range; expected a CQI index in 0..=15 (TS 36.213 Table 7.2.3-1)"
    )]
    Cqi { cqi: u8 },
    #[error(
        "bandwidth_mhz: {mhz} is not an LTE channel bandwidth; \
         expected 1.4, 3, 5, 10, 15 or 20 (TS 36.101 Table 5.6-1)"
    )]
    Bandwidth { mhz: f64 },
    #[error("{param}: {value} is out of range; expected {expected}")]
    Param {
        param: &'static str,
        value: f64,
        expected: &'static str,
    },
}
