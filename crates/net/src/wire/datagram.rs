//! Whole IPv4 datagrams: rendering a [`Packet`] to bytes and reading bytes back.

use celltcp_engine::SimTime;

use super::{ipv4, options, tcp, udp, WireError};
use crate::packet::{IpHeader, Packet, Transport, IPV4_HEADER_BYTES};

/// Largest IPv4 datagram: the 16-bit total length field (RFC 791 §3.1), bytes.
pub const MAX_DATAGRAM_BYTES: u32 = u16::MAX as u32;

/// Appends the IPv4 datagram of `pkt` to `out`: exactly `pkt.size_bytes()` bytes with correct
/// IPv4, UDP and TCP checksums. Payload bytes are zeros, except that a UDP payload of at least
/// eight bytes starts with `pkt.app_seq` big-endian. DF is set and the identification field is
/// `pkt.ip.id`.
///
/// `out` only grows (by one `resize`), so a caller that clears and reuses it allocates nothing
/// once it has reached the largest datagram size. On error nothing is appended.
///
/// # Errors
/// A packet the header formats cannot express: DSCP above 63, more than four SACK blocks, more
/// than 40 option bytes, or a datagram above 65,535 bytes.
pub fn write_datagram(pkt: &Packet, out: &mut Vec<u8>) -> Result<(), WireError> {
    if pkt.ip.dscp > 0x3F {
        return Err(WireError::DscpOutOfRange { dscp: pkt.ip.dscp });
    }
    if let Transport::Tcp(h) = &pkt.transport {
        // Before anything calls `TcpOptions::sack`, which slices by `sack_len`.
        options::check(&h.options)?;
    }
    // Computed in u64: `Packet::size_bytes` would overflow u32 for a huge payload_len.
    let size = u64::from(IPV4_HEADER_BYTES)
        + u64::from(pkt.transport.header_len())
        + u64::from(pkt.payload_len);
    if size > u64::from(MAX_DATAGRAM_BYTES) {
        return Err(WireError::DatagramTooLong { size_bytes: size });
    }
    let size = size as usize;
    let start = out.len();
    out.resize(start + size, 0);
    let datagram = &mut out[start..];
    let (header, segment) = datagram.split_at_mut(ipv4::HEADER_LEN);
    let (src, dst) = (pkt.ip.src, pkt.ip.dst);
    let protocol = match &pkt.transport {
        Transport::Udp(h) => {
            udp::write(src, dst, h, pkt.app_seq, segment);
            ipv4::PROTOCOL_UDP
        }
        Transport::Tcp(h) => {
            tcp::write(src, dst, h, segment);
            ipv4::PROTOCOL_TCP
        }
    };
    ipv4::write_header(&pkt.ip, size as u16, protocol, header);
    Ok(())
}

/// Header fields of a datagram read from bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedDatagram {
    pub ip: IpHeader,
    /// The IPv4 DF flag (RFC 791 §3.1); always set in datagrams celltcp writes.
    pub dont_fragment: bool,
    /// IPv4 total length, bytes. Equals `to_packet().size_bytes()` for datagrams written by
    /// [`write_datagram`]; other stacks may lay out TCP options more tightly, or carry options
    /// celltcp does not model.
    pub total_len: u16,
    pub transport: Transport,
    /// TCP urgent pointer (0 for UDP).
    pub urgent_pointer: u16,
    /// Application bytes after the transport header.
    pub payload_len: u32,
    /// UDP: the first eight payload bytes big-endian, 0 when the payload is shorter. TCP: 0.
    pub app_seq: u64,
}

impl ParsedDatagram {
    /// The equivalent packet, with `uid`, `flow` and `created_at` zero.
    pub fn to_packet(&self) -> Packet {
        Packet {
            uid: 0,
            flow: 0,
            ip: self.ip,
            transport: self.transport,
            payload_len: self.payload_len,
            app_seq: self.app_seq,
            created_at: SimTime::ZERO,
        }
    }
}

/// Parses one IPv4 datagram carrying UDP or TCP, validating lengths, version, IHL, flags,
/// the IPv4, UDP and TCP checksums and the TCP option encodings. Bytes after the IPv4 total
/// length are ignored, as link-layer padding. Never panics.
///
/// # Errors
/// The first defect found, with the byte offset where it lies. IPv4 options and fragments are
/// reported as unsupported.
pub fn parse_datagram(bytes: &[u8]) -> Result<ParsedDatagram, WireError> {
    let ip = ipv4::parse_header(bytes)?;
    let (src, dst) = (ip.header.src, ip.header.dst);
    let segment = &bytes[ipv4::HEADER_LEN..usize::from(ip.total_len)];
    let (transport, urgent_pointer, payload_len, app_seq) = match ip.protocol {
        ipv4::PROTOCOL_UDP => {
            let u = udp::parse(src, dst, segment, ipv4::HEADER_LEN)?;
            (Transport::Udp(u.header), 0, u.payload_len, u.app_seq)
        }
        ipv4::PROTOCOL_TCP => {
            let t = tcp::parse(src, dst, segment, ipv4::HEADER_LEN)?;
            (Transport::Tcp(t.header), t.urgent_pointer, t.payload_len, 0)
        }
        protocol => return Err(WireError::UnsupportedProtocol { protocol }),
    };
    Ok(ParsedDatagram {
        ip: ip.header,
        dont_fragment: ip.dont_fragment,
        total_len: ip.total_len,
        transport,
        urgent_pointer,
        payload_len,
        app_seq,
    })
}
