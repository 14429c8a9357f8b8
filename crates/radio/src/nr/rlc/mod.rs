//! NR Radio Link Control (TS 38.322), acknowledged and unacknowledged mode.
//!
//! * [`am`]: the AM entity — [`NrRlcAmTx`] and [`NrRlcAmRx`] as separate sans-IO objects that
//!   exchange [`NrRlcPdu`]s through the MAC, and [`NrRlcAmEntity`] pairing one of each
//!   (§4.2.1.3).
//! * [`um`]: the UM entity — [`NrRlcUmTx`] and [`NrRlcUmRx`] (§4.2.1.2).
//! * [`pdu`]: AMD, UMD and STATUS PDUs with their exact sizes (§6.2.2).
//!
//! What differs from LTE's RLC ([`crate::rlc`], TS 36.322), and why NR has its own types:
//! no concatenation (one SDU or SDU segment per PDU, concatenation moved to the MAC's
//! multiplexing of PDUs); SNs number SDUs, not PDUs, and segments are located by SO (§6.2.3.5);
//! the receiving side delivers each SDU as soon as it is complete, out of SN order, and has no
//! reordering — t-Reassembly replaces t-Reordering; a STATUS PDU can NACK a range of SDUs.
//! What is the same is shared: the transmission buffer of SDUs waiting for their first
//! transmission ([`crate::rlc`]'s `SduBuffer`, with its limit and the upper layer's discard),
//! SN arithmetic modulo 2^bits (`SnSpace`), the SDU trait [`RlcSdu`](crate::rlc::RlcSdu),
//! [`DataElement`](crate::rlc::DataElement) as a PDU's data field, [`BufferStatus`] and the
//! errors; at the AM entity, the retransmission queue with RETX_COUNT (`RetxQueue`, §5.3.2 =
//! 36.322 §5.2.1), polling (`Poller`, §5.3.3 = 36.322 §5.2.2) and the STATUS trigger with
//! t-StatusProhibit (`StatusReporting`, §5.3.4 = 36.322 §5.2.3).
//!
//! The call contract is LTE's: every method takes `now` and first runs the timers due at or
//! before `now`; a caller should call `on_timeout(t)` at every `t = poll_timeout()` so that
//! actions happen at the exact expiry instant.
//!
//! [`BufferStatus`]: crate::rlc::BufferStatus

pub mod am;
mod am_rx;
mod am_tx;
pub mod pdu;
mod segments;
pub mod um;

#[cfg(test)]
mod am_tests;

pub use am::{
    NrRlcAmConfig, NrRlcAmEntity, NrRlcAmRxStats, NrRlcAmTxEvent, NrRlcAmTxStats,
    MAX_RETX_THRESHOLDS,
};
pub use am_rx::NrRlcAmRx;
pub use am_tx::NrRlcAmTx;
pub use pdu::{
    AmSnLength, NackSo, NrAmdPdu, NrNack, NrRlcPdu, NrStatusPdu, NrUmdPdu, SegmentationInfo,
    UmSnLength, UMD_COMPLETE_HEADER_BYTES,
};
pub use um::{NrRlcUmConfig, NrRlcUmRx, NrRlcUmRxStats, NrRlcUmTx, NrRlcUmTxStats};
