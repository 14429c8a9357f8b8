//! Whole IPv4 datagrams: rendering a [`Packet`] to bytes and reading bytes back, including
//! packets in a GTP-U tunnel (outer IPv4, UDP, GTP-U, inner datagram) and GTP-U end markers
//! (outer IPv4, UDP, GTP-U only).

use crate::packet::FlowId;
use celltcp_engine::SimTime;

use super::gtp::GtpHeader;
use super::{gtp, ipv4, options, tcp, udp, WireError};
use crate::packet::{
    Ecn, GtpInterface, GtpMessage, GtpTunnel, IpHeader, Packet, Transport, UdpHeader,
    IPV4_HEADER_BYTES,
};

/// Largest IPv4 datagram: the 16-bit total length field (RFC 791 §3.1), bytes.
pub const MAX_DATAGRAM_BYTES: u32 = u16::MAX as u32;

/// Appends the IPv4 datagram of `pkt` to `out`: exactly `pkt.size_bytes()` bytes with correct
/// IPv4, UDP and TCP checksums. Payload bytes are zeros, except that a UDP payload of at least
/// eight bytes starts with `pkt.app_seq` big-endian. DF is set and the identification field is
/// `pkt.ip.id`.
///
/// A packet in a GTP-U tunnel is written as the G-PDU seen on S1-U or X2-U (3GPP TS 29.281): an
/// outer IPv4 header from `outer_src` to `outer_dst` carrying `outer_ecn`, the inner packet's
/// DSCP and identification and a TTL of 64; a UDP header from and to port 2152 with its
/// checksum; the GTP-U header with the TEID, and the PDCP PDU Number extension when the tunnel
/// carries a PDCP count (see the `gtp` module); then the inner datagram as above. An end marker
/// is the same outer headers with message type 254 and nothing after them: its inner header is
/// not transmitted.
///
/// `out` only grows (by one `resize`), so a caller that clears and reuses it allocates nothing
/// once it has reached the largest datagram size. On error nothing is appended.
///
/// # Errors
/// A packet the header formats cannot express: DSCP above 63, more than four SACK blocks, more
/// than 40 option bytes, or a datagram (outer, when tunnelled) above 65,535 bytes.
pub fn write_datagram(pkt: &Packet, out: &mut Vec<u8>) -> Result<(), WireError> {
    if pkt.ip.dscp > 0x3F {
        return Err(WireError::DscpOutOfRange { dscp: pkt.ip.dscp });
    }
    let end_marker = pkt.is_end_marker();
    if let (Transport::Tcp(h), false) = (&pkt.transport, end_marker) {
        // Before anything calls `TcpOptions::sack`, which slices by `sack_len`.
        options::check(&h.options)?;
    }
    // Computed in u64: `Packet::size_bytes` would overflow u32 for a huge payload_len.
    let inner_size = if end_marker {
        0
    } else {
        u64::from(IPV4_HEADER_BYTES)
            + u64::from(pkt.transport.header_len())
            + u64::from(pkt.payload_len)
    };
    let overhead = pkt.tunnel.map_or(0, |t| t.overhead_bytes());
    let size = inner_size + u64::from(overhead);
    if size > u64::from(MAX_DATAGRAM_BYTES) {
        return Err(WireError::DatagramTooLong { size_bytes: size });
    }
    let start = out.len();
    out.resize(start + size as usize, 0);
    let datagram = &mut out[start..];
    let (outer, inner) = datagram.split_at_mut(overhead as usize);
    if !end_marker {
        write_inner(pkt, inner);
    }
    if let Some(t) = &pkt.tunnel {
        write_tunnel_headers(t, &pkt.ip, outer, inner);
    }
    Ok(())
}

/// Writes the (zeroed) datagram `out` of exactly the packet's inner size.
fn write_inner(pkt: &Packet, out: &mut [u8]) {
    let size = out.len();
    let (header, segment) = out.split_at_mut(ipv4::HEADER_LEN);
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
}

/// Time to live of the outer header, as an endpoint originating the G-PDU sets it.
const OUTER_TTL: u8 = 64;

/// Writes the outer IPv4, UDP and GTP-U headers (`outer`: 36 bytes, 44 with the PDCP PDU
/// Number extension) in front of the inner datagram already written in `inner` (empty for an
/// end marker).
fn write_tunnel_headers(t: &GtpTunnel, inner_ip: &IpHeader, outer: &mut [u8], inner: &[u8]) {
    let total = outer.len() + inner.len();
    let (ip_header, udp_and_gtp) = outer.split_at_mut(ipv4::HEADER_LEN);
    let header = GtpHeader {
        message: t.message,
        teid: t.teid,
        // The field holds the COUNT's low bits, where the PDCP SN lies (see `gtp`).
        pdcp_pdu_number: t.pdcp_count.map(|c| gtp::pdcp_pdu_number(c, t.interface)),
    };
    gtp::write_header(&header, inner.len(), &mut udp_and_gtp[udp::HEADER_LEN..]);
    let ports = UdpHeader {
        src_port: gtp::GTPU_PORT,
        dst_port: gtp::GTPU_PORT,
    };
    udp::write_header(t.outer_src, t.outer_dst, &ports, udp_and_gtp, inner);
    let outer_ip = IpHeader {
        src: t.outer_src,
        dst: t.outer_dst,
        ecn: t.outer_ecn,
        dscp: inner_ip.dscp,
        ttl: OUTER_TTL,
        id: inner_ip.id,
    };
    ipv4::write_header(&outer_ip, total as u16, ipv4::PROTOCOL_UDP, ip_header);
}

/// Header fields of a datagram read from bytes. For a G-PDU (a UDP datagram to port 2152
/// carrying a GTP-U header) these are the fields of the inner datagram, and `tunnel` holds the
/// outer addresses, ECN field, TEID and PDCP PDU number. For an end marker, which carries no
/// inner datagram, `ip` and `transport` are the outer IPv4 and UDP headers (the ECN field set
/// to Not-ECT, as in [`Packet::end_marker`]; the outer one is in `tunnel`), `total_len`,
/// `payload_len` and `app_seq` are 0, and `tunnel` says it is an end marker.
///
/// What the wire does not say is reported with its default: the tunnel's interface is
/// [`GtpInterface::S1u`] (S1-U and X2-U datagrams look alike; only the endpoints' roles tell
/// them apart), and the PDCP count is the value of the PDCP PDU Number field
/// ([`crate::wire::pdcp_pdu_number`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedDatagram {
    pub ip: IpHeader,
    /// The IPv4 DF flag (RFC 791 §3.1); always set in datagrams celltcp writes.
    pub dont_fragment: bool,
    /// IPv4 total length, bytes (of the inner datagram when tunnelled; 0 for an end marker).
    /// Equals `to_packet().inner_size_bytes()` for datagrams written by [`write_datagram`]; other
    /// stacks may lay out TCP options more tightly, or carry options celltcp does not model.
    pub total_len: u16,
    pub transport: Transport,
    /// TCP urgent pointer (0 for UDP).
    pub urgent_pointer: u16,
    /// Application bytes after the transport header.
    pub payload_len: u32,
    /// UDP: the first eight payload bytes big-endian, 0 when the payload is shorter. TCP: 0.
    pub app_seq: u64,
    /// The GTP-U tunnel the datagram arrived in, if any.
    pub tunnel: Option<GtpTunnel>,
}

impl ParsedDatagram {
    /// The equivalent packet, with `uid`, `flow` and `created_at` zero. For an end marker the
    /// inner header is the outer one: the UE it is for is known by its TEID only.
    pub fn to_packet(&self) -> Packet {
        Packet {
            uid: 0,
            flow: FlowId(0),
            ip: self.ip,
            transport: self.transport,
            payload_len: self.payload_len,
            app_seq: self.app_seq,
            created_at: SimTime::ZERO,
            tunnel: self.tunnel,
        }
    }
}

/// Parses one IPv4 datagram carrying UDP or TCP, validating lengths, version, IHL, flags,
/// the IPv4, UDP and TCP checksums and the TCP option encodings. Bytes after the IPv4 total
/// length are ignored, as link-layer padding. Never panics.
///
/// A UDP datagram to port 2152 whose payload starts with a GTPv1-U G-PDU or End Marker header
/// (version 1, protocol type 1, message type 255 or 254) is read as a tunnelled packet: the
/// inner datagram of a G-PDU is parsed and validated the same way, and the outer addresses, ECN
/// field, TEID and PDCP PDU number are returned in `tunnel`. Any other UDP payload, on that port
/// or not, is application data.
///
/// # Errors
/// The first defect found, with the byte offset where it lies. IPv4 options and fragments are
/// reported as unsupported, and so are GTP-U sequence numbers, N-PDU numbers and extension
/// headers other than one PDCP PDU Number. A defect inside a tunnelled datagram is wrapped in
/// [`WireError::InTunnel`] with the inner datagram's offset.
pub fn parse_datagram(bytes: &[u8]) -> Result<ParsedDatagram, WireError> {
    let outer = parse_plain(bytes)?;
    let ParsedDatagram {
        ip,
        transport: Transport::Udp(udp_header),
        ..
    } = outer
    else {
        return Ok(outer);
    };
    let gtp_at = ipv4::HEADER_LEN + udp::HEADER_LEN;
    let payload = &bytes[gtp_at..usize::from(outer.total_len)];
    let message = match gtp::message_of(payload) {
        Some(m) if udp_header.dst_port == gtp::GTPU_PORT => m,
        _ => return Ok(outer),
    };
    let header = gtp::parse_header(payload, gtp_at, message)?;
    let tpdu = &payload[header.len()..];
    let inner_at = gtp_at + header.len();
    let tunnel = GtpTunnel {
        outer_src: ip.src,
        outer_dst: ip.dst,
        teid: header.teid,
        outer_ecn: ip.ecn,
        message,
        interface: GtpInterface::S1u,
        pdcp_count: header.pdcp_pdu_number.map(u32::from),
    };
    if message == GtpMessage::EndMarker {
        if !tpdu.is_empty() {
            return Err(WireError::EndMarkerWithPayload {
                offset: inner_at,
                len: tpdu.len(),
            });
        }
        return Ok(ParsedDatagram {
            ip: IpHeader {
                ecn: Ecn::NotEct,
                ..ip
            },
            total_len: 0,
            payload_len: 0,
            app_seq: 0,
            tunnel: Some(tunnel),
            ..outer
        });
    }
    let mut inner = parse_plain(tpdu).map_err(|e| WireError::InTunnel {
        offset: inner_at,
        source: Box::new(e),
    })?;
    inner.tunnel = Some(tunnel);
    Ok(inner)
}

/// Parses one datagram without looking into UDP payloads.
fn parse_plain(bytes: &[u8]) -> Result<ParsedDatagram, WireError> {
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
        tunnel: None,
    })
}
