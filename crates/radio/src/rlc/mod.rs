//! Radio Link Control (3GPP TS 36.322), acknowledged and unacknowledged mode.
//!
//! * [`am`]: the AM entity — [`RlcAmTx`] (transmitting side) and [`RlcAmRx`] (receiving side) as
//!   separate sans-IO objects that exchange [`RlcPdu`]s through the MAC, plus [`RlcAmEntity`]
//!   pairing one of each in a node (36.322 §4.2.1.3).
//! * [`um`]: the UM entity — [`RlcUmTx`] and [`RlcUmRx`] (36.322 §4.2.1.2).
//! * [`status_sufi`]: the size of a WCDMA status report written as 25.322 super-fields in
//!   fixed-size STATUS PDUs (used by the DCH; the entities themselves size 36.322 NACK lists).
//!
//! Shared with NR's RLC ([`crate::nr::rlc`], TS 38.322) where the two specifications agree: the
//! transmission buffer (`sdu_buffer`), SN arithmetic (`sn`), and at the AM entity the
//! retransmission queue with RETX_COUNT (`retx`), polling with t-PollRetransmit (`poll`) and the
//! STATUS trigger with t-StatusProhibit (`status_report`).
//!
//! PDUs do not carry bytes: a data PDU lists its data field elements (36.322 §6.2.2.x "Data
//! field"), each a copy of the SDU value with a byte offset and length, and its size on the air
//! follows the byte model of [`HeaderModel`] (see docs/rlc.md). Two PDU size regimes share the
//! same entity ([`PduMode`]): LTE's flexible PDUs that fill the MAC grant, and WCDMA's fixed-size
//! PDUs (e.g. 40 bytes, 3GPP TS 25.322) where a retransmission is never re-segmented.
//!
//! Contract common to every entity here: each method takes `now` and first runs the timers due at
//! or before `now`, so a caller that polls late still sees the timer effects in order; a caller
//! should nevertheless call `on_timeout(t)` at every `t = poll_timeout()` so that actions happen
//! at the exact expiry instant.

mod data_field;
mod header;
pub(crate) mod poll;
mod reassembly;
pub(crate) mod retx;
pub(crate) mod sdu_buffer;
pub(crate) mod sn;
pub(crate) mod status_report;

pub mod am;
pub mod am_entity;
mod am_pdu;
mod am_rx;
pub(crate) mod am_rx_window;
mod am_tx;
pub mod status_sufi;
pub mod um;

#[cfg(test)]
mod am_tests;
#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod proptests;
#[cfg(test)]
pub(crate) mod testkit;

use celltcp_engine::SimTime;
use celltcp_net::packet::Packet;

pub use am::{MaxRetxAction, RlcAmConfig, RlcAmEntity, RlcAmRxStats, RlcAmTxStats};
pub use am_entity::{AmEntity, AmPdu, AmRoute, AmRxSide, AmTxSide};
pub use am_pdu::{AmdPdu, MrwPdu, Nack, RlcPdu, SegmentHeader, SoRange, StatusPdu};
pub use am_rx::RlcAmRx;
pub use am_tx::RlcAmTx;
pub use data_field::{DataElement, DataField};
pub use header::HeaderModel;
pub use um::{RlcUmConfig, RlcUmRx, RlcUmRxStats, RlcUmTx, RlcUmTxStats, UmdPdu};

/// What an RLC entity carries as one SDU: an IP packet ([`Packet`]) or a PDCP PDU wrapping one.
/// Values are copied into every PDU that carries a piece of them, hence `Copy`.
pub trait RlcSdu: Copy + std::fmt::Debug {
    /// Bytes the SDU occupies in the data field of RLC PDUs.
    fn size_bytes(&self) -> u32;
    /// Identity of the SDU within a run. Reassembly uses it together with byte offsets to check
    /// that consecutive pieces belong to the same SDU, which 36.322 infers from the FI field and
    /// the order of the data field elements (§6.2.2.6).
    fn sdu_id(&self) -> u64;
}

impl RlcSdu for Packet {
    #[inline]
    fn size_bytes(&self) -> u32 {
        Packet::size_bytes(self)
    }
    #[inline]
    fn sdu_id(&self) -> u64 {
        self.uid
    }
}

/// How the transmitting side sizes its PDUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PduMode {
    /// LTE (36.322 §5.1.3.1.1): each new PDU fills the size the MAC grants, concatenating and
    /// segmenting SDUs; a retransmission that no longer fits is re-segmented.
    Flexible,
    /// WCDMA (25.322 §9.2.2): every PDU, data or control, is exactly `bytes` long, padded when the
    /// data runs short; retransmissions resend the PDU unchanged.
    Fixed {
        /// PDU size, bytes (e.g. 40 for the 336-bit PDUs of 25.322 with a 16-bit MAC header).
        bytes: u32,
    },
}

/// A limit on the transmission buffer of an entity, i.e. on SDUs (or their unsent remainder)
/// that no PDU has carried yet. Retransmission buffers are not limited: 36.322 keeps every
/// unacknowledged PDU until it is acknowledged or discarded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferLimit {
    Unlimited,
    /// At most this many bytes of SDUs waiting (counted by `size_bytes()` of the waiting part).
    Bytes(u64),
    /// At most this many SDUs waiting, including one partly sent.
    Sdus(usize),
}

/// Why [`RlcAmTx::write_sdu`] or [`RlcUmTx::write_sdu`] refused an SDU. The entity counts each
/// refusal in its stats (`sdus_refused`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RlcSduRefused {
    #[error(
        "RLC transmission buffer full: {sdu_bytes}-byte SDU refused with {buffered_sdus} SDUs \
         ({buffered_bytes} bytes) waiting and limit {limit:?}"
    )]
    BufferFull {
        sdu_bytes: u32,
        buffered_bytes: u64,
        buffered_sdus: usize,
        limit: BufferLimit,
    },
    #[error("an RLC SDU must be at least one byte long")]
    EmptySdu,
}

/// A configuration the RLC entities cannot run with; the message names the field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RlcConfigError {
    #[error("rlc.{field}: {value} is not allowed; expected {expected}")]
    Invalid {
        field: &'static str,
        value: String,
        expected: &'static str,
    },
}

impl RlcConfigError {
    pub(crate) fn invalid(
        field: &'static str,
        value: impl ToString,
        expected: &'static str,
    ) -> Self {
        RlcConfigError::Invalid {
            field,
            value: value.to_string(),
            expected,
        }
    }
}

/// Buffered data that the MAC should schedule, bytes on the air including the estimated RLC
/// headers (36.321 §5.4.5 counts RLC headers in the buffer size; 36.322 §4.5 lists what is
/// "data available for transmission").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferStatus {
    /// SDUs not yet carried by any PDU, with headers estimated as one fixed header per SDU
    /// (flexible mode) or whole PDUs (fixed mode).
    pub new_tx_bytes: u64,
    /// Data pending retransmission with the header of each pending PDU or segment.
    pub retx_bytes: u64,
    /// Control PDUs waiting: a STATUS PDU at a receiving side, an MRW at a transmitting side.
    pub status_bytes: u64,
}

impl BufferStatus {
    pub fn total_bytes(&self) -> u64 {
        self.new_tx_bytes + self.retx_bytes + self.status_bytes
    }
    pub fn is_empty(&self) -> bool {
        self.total_bytes() == 0
    }
}

/// The earlier of two optional deadlines (an entity's `poll_timeout` over its timers).
#[inline]
pub(crate) fn earliest(a: Option<SimTime>, b: Option<SimTime>) -> Option<SimTime> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}
