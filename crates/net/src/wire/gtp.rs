//! The GTP-U header (3GPP TS 29.281 §5.1) of the two user-plane messages celltcp carries: the
//! G-PDU (a tunnelled user packet, message type 255) and the End Marker (type 254, §7.3.2),
//! optionally with the PDCP PDU Number extension header (§5.2.2.2).
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! |Ver=1|PT=1|*|E|S|PN| Message Type  |            Length             |
//! |                Tunnel Endpoint Identifier (TEID)                  |
//! |        Sequence Number        | N-PDU Number  | Next Ext. Type  |   (E, S or PN set)
//! | Ext. Length=1 |       PDCP PDU Number         | Next Ext. Type=0|   (PDCP PDU Number)
//! ```
//! Without a PDCP count celltcp writes the mandatory eight bytes only (E = S = PN = 0). With
//! one it sets E alone: the four bytes of optional fields follow, whose Sequence Number and
//! N-PDU Number are then "set to 0 and ignored by the receiver" (§5.1), and whose Next Extension
//! Header Type is 1100 0000, PDCP PDU Number (§5.2.1, Figure 5.2.1-3); the extension header is
//! one 4-octet unit (Length 1), the 16-bit PDCP PDU number and a Next Extension Header Type of
//! 0, "no more extension headers". Length counts every byte after the mandatory header:
//! optional fields, extension headers and the T-PDU (§5.1); an end marker has no T-PDU.
//! The header travels in a UDP datagram to port 2152 (§4.4.2.3).
//!
//! The PDCP PDU Number field holds 16 bits; between two eNBs on X2-U its most significant bit
//! is spare and set to zero (§5.2.2.2), leaving the 15 bits of the longest LTE PDCP SN that
//! this extension carries (TS 36.323 §6.2.3, §6.2.4; X2 forwarding, TS 36.300 §10.1.2.3). The
//! simulation keeps a 32-bit PDCP COUNT; the wire carries its 15 (X2-U) or 16 (S1-U) least
//! significant bits ([`pdcp_pdu_number`]).

use super::{be16, be32, WireError};
use crate::packet::{GtpInterface, GtpMessage, GTPU_HEADER_BYTES, GTPU_PDCP_EXTENSION_BYTES};

pub use crate::packet::GTPU_PORT;

/// Mandatory GTP-U header length, bytes.
pub(super) const HEADER_LEN: usize = GTPU_HEADER_BYTES as usize;
/// Optional fields and PDCP PDU Number extension header, bytes.
pub(super) const PDCP_EXTENSION_LEN: usize = GTPU_PDCP_EXTENSION_BYTES as usize;
/// GTP version 1 in the three top bits, Protocol Type 1 (GTP, not GTP') in bit 4.
const VERSION_1_PT_GTP: u8 = 0b0011_0000;
/// Flag E: an extension header follows the optional fields.
const FLAG_E: u8 = 0b0000_0100;
/// Flags E, S and PN: extension header, sequence number and N-PDU number present.
const OPTIONAL_FIELDS: u8 = 0b0000_0111;
/// Message type of a G-PDU: a tunnelled user packet (TS 29.281 §6.1, Table 6.1-1).
pub const MESSAGE_TYPE_G_PDU: u8 = GtpMessage::GPdu.message_type();
/// Message type of an End Marker (TS 29.281 §6.1, Table 6.1-1; §7.3.2).
pub const MESSAGE_TYPE_END_MARKER: u8 = GtpMessage::EndMarker.message_type();
/// Next Extension Header Type of the PDCP PDU Number extension (TS 29.281 §5.2.1,
/// Figure 5.2.1-3).
pub const EXTENSION_PDCP_PDU_NUMBER: u8 = 0b1100_0000;
/// Next Extension Header Type: no more extension headers.
const EXTENSION_NONE: u8 = 0;
/// Length of the PDCP PDU Number extension header in 4-octet units (§5.2.2.2).
const PDCP_EXTENSION_UNITS: u8 = 1;

/// The PDCP PDU Number field written for PDCP `count` on `interface`: the count's 15 least
/// significant bits on X2-U, where the field's top bit is spare (TS 29.281 §5.2.2.2), its 16
/// least significant bits elsewhere.
pub fn pdcp_pdu_number(count: u32, interface: GtpInterface) -> u16 {
    match interface {
        GtpInterface::X2u => (count & 0x7FFF) as u16,
        GtpInterface::S1u => count as u16,
    }
}

/// The fields of a GTP-U header celltcp models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct GtpHeader {
    pub message: GtpMessage,
    pub teid: u32,
    /// The PDCP PDU Number extension's 16 bits, when present.
    pub pdcp_pdu_number: Option<u16>,
}

impl GtpHeader {
    /// Header bytes: 8, or 16 with the PDCP PDU Number extension.
    pub fn len(&self) -> usize {
        HEADER_LEN + self.pdcp_pdu_number.map_or(0, |_| PDCP_EXTENSION_LEN)
    }
}

/// Writes `h` into `out[..h.len()]`, for a message carrying a T-PDU of `tpdu_len` bytes (0 for
/// an end marker). The caller has checked that the Length field cannot overflow.
pub(super) fn write_header(h: &GtpHeader, tpdu_len: usize, out: &mut [u8]) {
    let after_mandatory = h.len() - HEADER_LEN + tpdu_len;
    out[0] = VERSION_1_PT_GTP
        | if h.pdcp_pdu_number.is_some() {
            FLAG_E
        } else {
            0
        };
    out[1] = h.message.message_type();
    out[2..4].copy_from_slice(&(after_mandatory as u16).to_be_bytes());
    out[4..8].copy_from_slice(&h.teid.to_be_bytes());
    if let Some(sn) = h.pdcp_pdu_number {
        // Sequence Number and N-PDU Number: present because E is set, zero because S and PN
        // are not (§5.1).
        out[8..11].fill(0);
        out[11] = EXTENSION_PDCP_PDU_NUMBER;
        out[12] = PDCP_EXTENSION_UNITS;
        out[13..15].copy_from_slice(&sn.to_be_bytes());
        out[15] = EXTENSION_NONE;
    }
}

/// The GTP-U message a UDP payload to port 2152 starts with, when it is a GTPv1-U G-PDU or End
/// Marker (version 1, PT 1, message type 255 or 254). Other payloads on port 2152 (echo
/// requests, or an application that happens to use the port) are left to be read as plain UDP.
pub(super) fn message_of(payload: &[u8]) -> Option<GtpMessage> {
    if payload.len() < HEADER_LEN || payload[0] & 0b1111_0000 != VERSION_1_PT_GTP {
        return None;
    }
    match payload[1] {
        MESSAGE_TYPE_G_PDU => Some(GtpMessage::GPdu),
        MESSAGE_TYPE_END_MARKER => Some(GtpMessage::EndMarker),
        _ => None,
    }
}

/// Reads the header of a message found at datagram offset `base` (`message_of` returned
/// `message`); returns it with its length in bytes. The Length must equal the bytes that follow
/// the mandatory header; S and PN must be clear; E may announce exactly one PDCP PDU Number
/// extension header.
pub(super) fn parse_header(
    payload: &[u8],
    base: usize,
    message: GtpMessage,
) -> Result<GtpHeader, WireError> {
    let flags = payload[0] & OPTIONAL_FIELDS;
    if flags & !FLAG_E != 0 {
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
    let teid = be32(payload, 4);
    if flags & FLAG_E == 0 {
        return Ok(GtpHeader {
            message,
            teid,
            pdcp_pdu_number: None,
        });
    }
    if payload.len() < HEADER_LEN + PDCP_EXTENSION_LEN {
        return Err(WireError::Truncated {
            what: "GTP-U extension header",
            offset: base + HEADER_LEN,
            needed: PDCP_EXTENSION_LEN,
            available: payload.len() - HEADER_LEN,
        });
    }
    let ext = &payload[HEADER_LEN..HEADER_LEN + PDCP_EXTENSION_LEN];
    let at = |i: usize| base + HEADER_LEN + i;
    if ext[3] != EXTENSION_PDCP_PDU_NUMBER {
        return Err(WireError::UnsupportedGtpExtension {
            offset: at(3),
            extension_type: ext[3],
        });
    }
    if ext[4] != PDCP_EXTENSION_UNITS {
        return Err(WireError::BadGtpExtensionLength {
            offset: at(4),
            units: ext[4],
        });
    }
    if ext[7] != EXTENSION_NONE {
        return Err(WireError::UnsupportedGtpExtension {
            offset: at(7),
            extension_type: ext[7],
        });
    }
    Ok(GtpHeader {
        message,
        teid,
        pdcp_pdu_number: Some(be16(ext, 5)),
    })
}
