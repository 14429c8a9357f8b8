//! The TCP header (RFC 9293 §3.1).
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! |          Source Port          |       Destination Port        |
//! |                        Sequence Number                        |
//! |                    Acknowledgment Number                      |
//! |  Data |       |C|E|U|A|P|R|S|F|                               |
//! | Offset| Rsrvd |W|C|R|C|S|S|Y|I|            Window             |
//! |           Checksum            |         Urgent Pointer        |
//! |                           [Options]                           |
//! ```
//! The control bits byte (offset 13) has the same layout as [`TcpFlags`]; CWR and ECE are from
//! RFC 3168 §6.1.

use std::net::Ipv4Addr;

use super::checksum::{verify, Checksum};
use super::ipv4::PROTOCOL_TCP;
use super::{be16, be32, options, WireError};
use crate::packet::{TcpFlags, TcpHeader, TCP_ELN_BIT, TCP_HEADER_BYTES};

pub(super) const HEADER_LEN: usize = TCP_HEADER_BYTES as usize;
const CHECKSUM_OFFSET: usize = 16;

/// Writes header, options and checksum into `out`: the whole TCP segment, payload included,
/// zero-filled. Call [`options::check`] on `h.options` first.
pub(super) fn write(src: Ipv4Addr, dst: Ipv4Addr, h: &TcpHeader, out: &mut [u8]) {
    let header_len = h.wire_len() as usize;
    out[0..2].copy_from_slice(&h.src_port.to_be_bytes());
    out[2..4].copy_from_slice(&h.dst_port.to_be_bytes());
    out[4..8].copy_from_slice(&h.seq.to_be_bytes());
    out[8..12].copy_from_slice(&h.ack.to_be_bytes());
    // Data offset in 32-bit words; the reserved bits are zero in generated segments except the
    // ELN bit ([`TCP_ELN_BIT`]), which celltcp's base stations set.
    out[12] = ((header_len / 4) as u8) << 4 | if h.eln { TCP_ELN_BIT } else { 0 };
    out[13] = h.flags.0;
    out[14..16].copy_from_slice(&h.window.to_be_bytes());
    out[16..18].fill(0);
    // Urgent pointer: celltcp sends no urgent data.
    out[18..20].fill(0);
    options::write(&h.options, &mut out[HEADER_LEN..header_len]);
    let mut sum = Checksum::new();
    // A segment fits in a 65535-byte datagram, so its length fits the 16-bit pseudo-header field.
    sum.add_pseudo_header(src, dst, PROTOCOL_TCP, out.len() as u16);
    sum.add_bytes(out);
    let sum = sum.finish();
    out[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 2].copy_from_slice(&sum.to_be_bytes());
}

/// A parsed TCP segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TcpFields {
    pub header: TcpHeader,
    pub urgent_pointer: u16,
    /// Payload bytes after the header and options.
    pub payload_len: u32,
}

/// Parses the segment `seg` (the IPv4 payload, starting at datagram offset `base`).
pub(super) fn parse(
    src: Ipv4Addr,
    dst: Ipv4Addr,
    seg: &[u8],
    base: usize,
) -> Result<TcpFields, WireError> {
    if seg.len() < HEADER_LEN {
        return Err(WireError::Truncated {
            what: "TCP header",
            offset: base,
            needed: HEADER_LEN,
            available: seg.len(),
        });
    }
    let data_offset = seg[12] >> 4;
    let header_len = usize::from(data_offset) * 4;
    if header_len < HEADER_LEN || header_len > seg.len() {
        return Err(WireError::BadDataOffset {
            offset: base + 12,
            data_offset,
            segment_len: seg.len(),
        });
    }
    let mut pseudo = Checksum::new();
    pseudo.add_pseudo_header(src, dst, PROTOCOL_TCP, seg.len() as u16);
    verify(seg, "TCP", CHECKSUM_OFFSET, pseudo).map_err(|e| match e {
        WireError::BadChecksum {
            layer,
            offset,
            found,
            expected,
        } => WireError::BadChecksum {
            layer,
            offset: base + offset,
            found,
            expected,
        },
        other => other,
    })?;
    // RFC 9293 §3.1: the reserved bits of offset 12 are ignored on receipt, except ELN.
    let options = options::parse(&seg[HEADER_LEN..header_len], base + HEADER_LEN)?;
    Ok(TcpFields {
        header: TcpHeader {
            src_port: be16(seg, 0),
            dst_port: be16(seg, 2),
            seq: be32(seg, 4),
            ack: be32(seg, 8),
            flags: TcpFlags(seg[13]),
            window: be16(seg, 14),
            options,
            eln: seg[12] & TCP_ELN_BIT != 0,
        },
        urgent_pointer: be16(seg, 18),
        payload_len: (seg.len() - header_len) as u32,
    })
}
