//! The GTP-U header of a G-PDU (3GPP TS 29.281 §5.1), the user-plane tunnel header of S1-U.
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! |Ver=1|PT=1|*|E|S|PN| Message Type  |            Length             |
//! |                Tunnel Endpoint Identifier (TEID)                  |
//! ```
//! celltcp writes the mandatory eight bytes only: no sequence number, N-PDU number or extension
//! header (E = S = PN = 0), message type 255 (G-PDU, TS 29.281 §6.1) and a Length that counts
//! the bytes after the mandatory header, i.e. the inner IP datagram (§5.1). The header travels
//! in a UDP datagram to port 2152 (§4.4.2.3).

use super::{be16, be32, WireError};
use crate::packet::GTPU_HEADER_BYTES;

/// Mandatory GTP-U header length, bytes.
pub(super) const HEADER_LEN: usize = GTPU_HEADER_BYTES as usize;
/// UDP port of GTP-U (TS 29.281 §4.4.2.3); also used as the source port, as deployed S-GWs do.
pub const GTPU_PORT: u16 = 2152;
/// GTP version 1 in the three top bits, Protocol Type 1 (GTP, not GTP') in bit 4.
const VERSION_1_PT_GTP: u8 = 0b0011_0000;
/// Flags E, S and PN: extension header, sequence number and N-PDU number present.
const OPTIONAL_FIELDS: u8 = 0b0000_0111;
/// Message type of a G-PDU: a tunnelled user packet (TS 29.281 §6.1, Table 6.1-1).
pub const MESSAGE_TYPE_G_PDU: u8 = 255;

/// Writes the header of a G-PDU carrying `inner_len` bytes with `teid` into `out[..8]`.
pub(super) fn write_header(teid: u32, inner_len: u16, out: &mut [u8]) {
    out[0] = VERSION_1_PT_GTP;
    out[1] = MESSAGE_TYPE_G_PDU;
    out[2..4].copy_from_slice(&inner_len.to_be_bytes());
    out[4..8].copy_from_slice(&teid.to_be_bytes());
}

/// True when the UDP payload `payload` starts like a GTPv1-U G-PDU (version 1, PT 1, message
/// type 255). Other payloads on port 2152 (echo requests, or an application that happens to use
/// the port) are left to be read as plain UDP.
pub(super) fn is_g_pdu(payload: &[u8]) -> bool {
    payload.len() >= HEADER_LEN
        && payload[0] & 0b1111_0000 == VERSION_1_PT_GTP
        && payload[1] == MESSAGE_TYPE_G_PDU
}

/// Reads the header of a G-PDU (`is_g_pdu` holds) found at datagram offset `base`; returns the
/// TEID. The Length must equal the bytes that follow the header.
pub(super) fn parse_header(payload: &[u8], base: usize) -> Result<u32, WireError> {
    let flags = payload[0] & OPTIONAL_FIELDS;
    if flags != 0 {
        return Err(WireError::UnsupportedGtpFields {
            offset: base,
            flags,
        });
    }
    let length = be16(payload, 2);
    let expected = payload.len() - HEADER_LEN;
    if usize::from(length) != expected {
        return Err(WireError::BadGtpLength {
            offset: base + 2,
            length,
            expected,
        });
    }
    Ok(be32(payload, 4))
}
