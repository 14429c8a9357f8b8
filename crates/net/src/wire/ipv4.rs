//! The IPv4 header without options (RFC 791 §3.1).
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! |Version|  IHL  |   DSCP    |ECN|          Total Length         |
//! |         Identification        |Flags|      Fragment Offset    |
//! |  Time to Live |    Protocol   |         Header Checksum       |
//! |                       Source Address                          |
//! |                    Destination Address                        |
//! ```
//! The former TOS byte holds DSCP (RFC 2474 §3) in its upper six bits and ECN (RFC 3168 §5) in
//! its lower two.

use std::net::Ipv4Addr;

use super::checksum::{internet_checksum, verify, Checksum};
use super::{be16, WireError};
use crate::packet::{Ecn, IpHeader, IPV4_HEADER_BYTES};

/// Header length in bytes (IHL 5, no options).
pub(super) const HEADER_LEN: usize = IPV4_HEADER_BYTES as usize;
/// Protocol number of TCP (IANA "Assigned Internet Protocol Numbers").
pub const PROTOCOL_TCP: u8 = 6;
/// Protocol number of UDP.
pub const PROTOCOL_UDP: u8 = 17;

/// Flags field bits, in byte 6.
const FLAG_RESERVED: u8 = 0x80;
const FLAG_DF: u8 = 0x40;
const FLAG_MF: u8 = 0x20;
/// Byte offset of the header checksum.
const CHECKSUM_OFFSET: usize = 10;

/// Header fields read from the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ipv4Fields {
    pub header: IpHeader,
    pub dont_fragment: bool,
    /// Total length in bytes (header and payload).
    pub total_len: u16,
    pub protocol: u8,
}

/// Writes the 20-byte header into `out[..20]`. DF is always set: celltcp never fragments and
/// sizes segments to the path MTU, as hosts doing path MTU discovery do (RFC 1191 §3).
pub(super) fn write_header(ip: &IpHeader, total_len: u16, protocol: u8, out: &mut [u8]) {
    let out = &mut out[..HEADER_LEN];
    out[0] = (4 << 4) | 5;
    out[1] = (ip.dscp << 2) | ip.ecn as u8;
    out[2..4].copy_from_slice(&total_len.to_be_bytes());
    out[4..6].copy_from_slice(&ip.id.to_be_bytes());
    out[6] = FLAG_DF;
    out[7] = 0;
    out[8] = ip.ttl;
    out[9] = protocol;
    out[10..12].fill(0);
    out[12..16].copy_from_slice(&ip.src.octets());
    out[16..20].copy_from_slice(&ip.dst.octets());
    let sum = internet_checksum(out);
    out[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 2].copy_from_slice(&sum.to_be_bytes());
}

/// Parses and validates the header at the start of `bytes`; `bytes` may extend past the
/// datagram (link-layer padding), the total length says where it ends.
pub(super) fn parse_header(bytes: &[u8]) -> Result<Ipv4Fields, WireError> {
    if bytes.len() < HEADER_LEN {
        return Err(WireError::Truncated {
            what: "IPv4 header",
            offset: 0,
            needed: HEADER_LEN,
            available: bytes.len(),
        });
    }
    let version = bytes[0] >> 4;
    if version != 4 {
        return Err(WireError::BadVersion { version });
    }
    let ihl = bytes[0] & 0x0F;
    if ihl < 5 {
        return Err(WireError::BadIhl { ihl });
    }
    if ihl > 5 {
        return Err(WireError::UnsupportedIpOptions { ihl });
    }
    let header = &bytes[..HEADER_LEN];
    verify(header, "IPv4 header", CHECKSUM_OFFSET, Checksum::new())?;

    let total_len = be16(bytes, 2);
    if usize::from(total_len) < HEADER_LEN {
        return Err(WireError::BadTotalLength {
            total_len,
            min: HEADER_LEN,
        });
    }
    if usize::from(total_len) > bytes.len() {
        return Err(WireError::Truncated {
            what: "IPv4 datagram",
            offset: 0,
            needed: usize::from(total_len),
            available: bytes.len(),
        });
    }
    let flags = bytes[6];
    if flags & FLAG_RESERVED != 0 {
        return Err(WireError::ReservedFlag);
    }
    let fragment_offset = be16(bytes, 6) & 0x1FFF;
    if flags & FLAG_MF != 0 || fragment_offset != 0 {
        return Err(WireError::Fragment {
            more_fragments: flags & FLAG_MF != 0,
            fragment_offset,
        });
    }
    let ecn = match bytes[1] & 0b11 {
        0b00 => Ecn::NotEct,
        0b01 => Ecn::Ect1,
        0b10 => Ecn::Ect0,
        _ => Ecn::Ce,
    };
    Ok(Ipv4Fields {
        header: IpHeader {
            src: addr(bytes, 12),
            dst: addr(bytes, 16),
            ecn,
            dscp: bytes[1] >> 2,
            ttl: bytes[8],
            id: be16(bytes, 4),
        },
        dont_fragment: flags & FLAG_DF != 0,
        total_len,
        protocol: bytes[9],
    })
}

fn addr(b: &[u8], at: usize) -> Ipv4Addr {
    Ipv4Addr::new(b[at], b[at + 1], b[at + 2], b[at + 3])
}
