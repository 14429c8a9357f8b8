//! The UDP header (RFC 768): source port, destination port, length (header and data, bytes) and
//! a checksum over the IPv4 pseudo-header, the header and the data.

use std::net::Ipv4Addr;

use super::checksum::{verify, Checksum};
use super::ipv4::PROTOCOL_UDP;
use super::{be16, WireError};
use crate::packet::{UdpHeader, UDP_HEADER_BYTES};

pub(super) const HEADER_LEN: usize = UDP_HEADER_BYTES as usize;
const CHECKSUM_OFFSET: usize = 6;
/// Bytes of the application sequence number placed at the start of the payload.
pub(super) const APP_SEQ_LEN: usize = 8;

/// Writes header and payload into `out`, which must be exactly the (zeroed) UDP datagram:
/// `out.len()` is the UDP length. The first eight payload bytes carry `app_seq` big-endian when
/// the payload has room for them, so that captures show which datagram was lost or reordered.
pub(super) fn write(src: Ipv4Addr, dst: Ipv4Addr, h: &UdpHeader, app_seq: u64, out: &mut [u8]) {
    if out.len() >= HEADER_LEN + APP_SEQ_LEN {
        out[HEADER_LEN..HEADER_LEN + APP_SEQ_LEN].copy_from_slice(&app_seq.to_be_bytes());
    }
    write_header(src, dst, h, out, &[]);
}

/// Writes the header of the UDP datagram `head ++ tail` into `head[..8]` around a payload
/// already in place, with the checksum over the pseudo-header, the header and that payload.
/// The split lets a tunnel header in `head` precede an inner datagram written elsewhere.
pub(super) fn write_header(
    src: Ipv4Addr,
    dst: Ipv4Addr,
    h: &UdpHeader,
    head: &mut [u8],
    tail: &[u8],
) {
    let len = (head.len() + tail.len()) as u16;
    head[0..2].copy_from_slice(&h.src_port.to_be_bytes());
    head[2..4].copy_from_slice(&h.dst_port.to_be_bytes());
    head[4..6].copy_from_slice(&len.to_be_bytes());
    head[6..8].fill(0);
    let mut sum = Checksum::new();
    sum.add_pseudo_header(src, dst, PROTOCOL_UDP, len);
    sum.add_bytes(head);
    sum.add_bytes(tail);
    let sum = transmitted(sum.finish());
    head[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 2].copy_from_slice(&sum.to_be_bytes());
}

/// RFC 768: a computed checksum of zero is transmitted as all ones, since an all-zero field
/// means "no checksum".
fn transmitted(sum: u16) -> u16 {
    if sum == 0 {
        0xFFFF
    } else {
        sum
    }
}

/// A parsed UDP datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct UdpFields {
    pub header: UdpHeader,
    pub payload_len: u32,
    /// The first eight payload bytes as a big-endian integer, 0 when the payload is shorter.
    pub app_seq: u64,
}

/// Parses the UDP datagram `seg` (the IPv4 payload, starting at datagram offset `base`).
pub(super) fn parse(
    src: Ipv4Addr,
    dst: Ipv4Addr,
    seg: &[u8],
    base: usize,
) -> Result<UdpFields, WireError> {
    if seg.len() < HEADER_LEN {
        return Err(WireError::Truncated {
            what: "UDP header",
            offset: base,
            needed: HEADER_LEN,
            available: seg.len(),
        });
    }
    let udp_len = be16(seg, 4);
    // The UDP length must agree with the IPv4 payload length: celltcp writes no trailing bytes
    // after UDP data, and a disagreement means one of the two lengths is corrupt.
    if usize::from(udp_len) != seg.len() {
        return Err(WireError::BadUdpLength {
            offset: base + 4,
            udp_len,
            expected: seg.len(),
        });
    }
    // RFC 768: an all-zero checksum field means the sender computed none.
    if be16(seg, CHECKSUM_OFFSET) != 0 {
        let mut pseudo = Checksum::new();
        pseudo.add_pseudo_header(src, dst, PROTOCOL_UDP, udp_len);
        verify(seg, "UDP", CHECKSUM_OFFSET, pseudo).map_err(|e| match e {
            WireError::BadChecksum {
                layer,
                offset,
                found,
                expected,
            } => WireError::BadChecksum {
                layer,
                offset: base + offset,
                found,
                expected: transmitted(expected),
            },
            other => other,
        })?;
    }
    let payload = &seg[HEADER_LEN..];
    let app_seq = match payload.get(..APP_SEQ_LEN) {
        Some(b) => u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
        None => 0,
    };
    Ok(UdpFields {
        header: UdpHeader {
            src_port: be16(seg, 0),
            dst_port: be16(seg, 2),
        },
        payload_len: payload.len() as u32,
        app_seq,
    })
}
