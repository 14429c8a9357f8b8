//! Byte-exact rendering (and parsing, for tests, trace files and emulation) of IPv4/UDP/TCP
//! headers with correct checksums, from the plain-value [`crate::packet::Packet`].
//!
//! One file per layer: [`checksum`] (RFC 1071), `ipv4` (RFC 791), `udp` (RFC 768), `tcp`
//! (RFC 9293), `options` (TCP options of RFC 9293, RFC 7323 and RFC 2018) and `gtp` (the GTP-U
//! header of 3GPP TS 29.281, for tunnelled packets and end markers on S1-U and X2-U);
//! `datagram` puts them together in [`write_datagram`] and [`parse_datagram`].
//!
//! Writing is allocation-free apart from growing the caller's buffer; parsing borrows the input
//! and reports every defect as a [`WireError`] naming the byte offset, never a panic.

pub mod checksum;
mod datagram;
mod error;
mod gtp;
mod ipv4;
mod options;
mod tcp;
mod udp;

pub use checksum::{internet_checksum, Checksum};
pub use datagram::{parse_datagram, write_datagram, ParsedDatagram, MAX_DATAGRAM_BYTES};
pub use error::WireError;
pub use gtp::{
    pdcp_pdu_number, EXTENSION_PDCP_PDU_NUMBER, GTPU_PORT, MESSAGE_TYPE_END_MARKER,
    MESSAGE_TYPE_G_PDU,
};
pub use ipv4::{PROTOCOL_TCP, PROTOCOL_UDP};
pub use options::{
    KIND_EOL, KIND_MSS, KIND_NOP, KIND_SACK, KIND_SACK_PERMITTED, KIND_TIMESTAMPS,
    KIND_WINDOW_SCALE, MAX_OPTIONS_LEN,
};

/// The big-endian 16-bit field at byte `at`; callers have checked the length.
fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// The big-endian 32-bit field at byte `at`; callers have checked the length.
fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

#[cfg(test)]
mod tests;
