//! Real IPv4 datagrams as read from a TUN device: validation of the IPv4 header (RFC 791 §3.1)
//! and the header fields the simulated path acts on.
//!
//! The bytes are forwarded as they were read (the CE mark of an AQM excepted, see
//! [`mark_ce`]), so checksums stay the sending kernel's business and are not checked. What
//! must be right is the structure the path relies on: version 4, a header length of at least
//! five words inside the datagram, a total length no larger than what was read. A TCP or UDP
//! header is read from a first fragment that holds it; anything else (ICMP, other protocols,
//! later fragments, a transport header cut short) crosses the path as an opaque datagram.

use std::net::Ipv4Addr;

use celltcp_engine::SimTime;
use celltcp_net::packet::FlowId;
use celltcp_net::packet::{
    Ecn, IpHeader, Packet, SackBlock, TcpFlags, TcpHeader, TcpOptions, Transport, UdpHeader,
    IPV4_HEADER_BYTES, MAX_SACK_BLOCKS,
};

/// IP protocol numbers (IANA "Assigned Internet Protocol Numbers").
pub const PROTOCOL_TCP: u8 = 6;
pub const PROTOCOL_UDP: u8 = 17;

/// Why bytes read from a TUN device are not an IPv4 datagram the path can carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Ipv4Error {
    #[error("{len} bytes are too short for an IPv4 header")]
    Truncated { len: usize },
    #[error("IP version {version}, not 4")]
    NotIpv4 { version: u8 },
    #[error("IHL {ihl} words is below the minimum of 5 or runs past the {len} bytes read")]
    BadHeaderLength { ihl: u8, len: usize },
    #[error(
        "total length {total} is below the header length {header} or above the {len} bytes read"
    )]
    BadTotalLength {
        total: u16,
        header: usize,
        len: usize,
    },
}

/// What the observer needs of a TCP segment, in the sender's sequence space (RFC 9293 §3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpSegment {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: TcpFlags,
    /// Data bytes after the real TCP header (data offset), bytes.
    pub payload_len: u32,
}

impl TcpSegment {
    /// Sequence numbers the segment occupies: its data, plus one each for SYN and FIN
    /// (RFC 9293 §3.4).
    pub fn seq_len(&self) -> u32 {
        self.payload_len
            + u32::from(self.flags.contains(TcpFlags::SYN))
            + u32::from(self.flags.contains(TcpFlags::FIN))
    }
}

/// The header fields of one real IPv4 datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Datagram {
    pub ip: IpHeader,
    pub protocol: u8,
    /// IPv4 total length: the datagram's bytes (anything read past it is padding), bytes.
    pub total_len: u16,
    /// The transport header as the path sees it: TCP and UDP as read; anything else as UDP
    /// with ports 0, an opaque datagram nothing on the path inspects.
    pub transport: Transport,
    /// The TCP segment, when the datagram carries a readable TCP header.
    pub tcp: Option<TcpSegment>,
}

impl Datagram {
    /// The packet the simulated path carries for this datagram. Its size
    /// ([`Packet::size_bytes`]) is the real total length: the payload length is what is left
    /// of it after the modelled headers. When the modelled TCP options take more room than the
    /// real ones (a SYN whose options Linux packs into 20 bytes, celltcp's layout into 24), the
    /// payload is 0 and the size exceeds the real length by that difference.
    /// `uid`, `flow` and `created_at` are set when the packet is injected.
    pub fn to_packet(&self, payload_key: u64) -> Packet {
        let modelled_headers = IPV4_HEADER_BYTES + self.transport.header_len();
        Packet {
            uid: 0,
            flow: FlowId(0),
            ip: self.ip,
            transport: self.transport,
            payload_len: u32::from(self.total_len).saturating_sub(modelled_headers),
            app_seq: payload_key,
            created_at: SimTime::ZERO,
            tunnel: None,
        }
    }
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Parses the datagram at the start of `bytes`. Never panics.
///
/// # Errors
/// The bytes are not an IPv4 datagram (see [`Ipv4Error`]).
pub fn parse(bytes: &[u8]) -> Result<Datagram, Ipv4Error> {
    let len = bytes.len();
    if len < IPV4_HEADER_BYTES as usize {
        return Err(Ipv4Error::Truncated { len });
    }
    let version = bytes[0] >> 4;
    if version != 4 {
        return Err(Ipv4Error::NotIpv4 { version });
    }
    let ihl = bytes[0] & 0x0f;
    let header = usize::from(ihl) * 4;
    if ihl < 5 || header > len {
        return Err(Ipv4Error::BadHeaderLength { ihl, len });
    }
    let total = be16(bytes, 2);
    if usize::from(total) < header || usize::from(total) > len {
        return Err(Ipv4Error::BadTotalLength { total, header, len });
    }
    let tos = bytes[1];
    let ip = IpHeader {
        src: Ipv4Addr::new(bytes[12], bytes[13], bytes[14], bytes[15]),
        dst: Ipv4Addr::new(bytes[16], bytes[17], bytes[18], bytes[19]),
        ecn: ecn_of(tos),
        dscp: tos >> 2,
        ttl: bytes[8],
        id: be16(bytes, 4),
    };
    let protocol = bytes[9];
    // RFC 791 §3.1: the fragment offset is the low 13 bits of bytes 6-7; only the first
    // fragment (offset 0) carries the transport header.
    let first_fragment = be16(bytes, 6) & 0x1fff == 0;
    let segment = &bytes[header..usize::from(total)];
    let opaque = Transport::Udp(UdpHeader {
        src_port: 0,
        dst_port: 0,
    });
    let (transport, tcp) = match protocol {
        PROTOCOL_TCP if first_fragment => match parse_tcp(segment) {
            Some((h, payload_len)) => {
                let seg = TcpSegment {
                    src_port: h.src_port,
                    dst_port: h.dst_port,
                    seq: h.seq,
                    ack: h.ack,
                    flags: h.flags,
                    payload_len,
                };
                (Transport::Tcp(h), Some(seg))
            }
            None => (opaque, None),
        },
        PROTOCOL_UDP if first_fragment && segment.len() >= 8 => (
            Transport::Udp(UdpHeader {
                src_port: be16(segment, 0),
                dst_port: be16(segment, 2),
            }),
            None,
        ),
        _ => (opaque, None),
    };
    Ok(Datagram {
        ip,
        protocol,
        total_len: total,
        transport,
        tcp,
    })
}

fn ecn_of(tos: u8) -> Ecn {
    match tos & 0b11 {
        0b00 => Ecn::NotEct,
        0b01 => Ecn::Ect1,
        0b10 => Ecn::Ect0,
        _ => Ecn::Ce,
    }
}

/// The TCP header at the start of `segment` (RFC 9293 §3.1) and the data length after it;
/// `None` when the header is cut short or its data offset is below 5 words or past the end.
fn parse_tcp(segment: &[u8]) -> Option<(TcpHeader, u32)> {
    if segment.len() < 20 {
        return None;
    }
    let offset = usize::from(segment[12] >> 4) * 4;
    if offset < 20 || offset > segment.len() {
        return None;
    }
    let header = TcpHeader {
        src_port: be16(segment, 0),
        dst_port: be16(segment, 2),
        seq: be32(segment, 4),
        ack: be32(segment, 8),
        flags: TcpFlags(segment[13]),
        window: be16(segment, 14),
        options: parse_options(&segment[20..offset]),
        eln: segment[12] & celltcp_net::packet::TCP_ELN_BIT != 0,
    };
    Some((header, (segment.len() - offset) as u32))
}

/// The options celltcp models (MSS, window scale, SACK-permitted, SACK, timestamps), read as
/// far as they are well formed. Unknown options are skipped by their length (RFC 9293 §3.1,
/// MUST-6); a malformed length ends the reading, keeping what was read: the segment still goes
/// to its destination, whose stack judges it.
fn parse_options(opts: &[u8]) -> TcpOptions {
    let mut o = TcpOptions::default();
    let mut i = 0;
    while i < opts.len() {
        let kind = opts[i];
        match kind {
            0 => break,
            1 => {
                i += 1;
                continue;
            }
            _ => {}
        }
        let Some(&len) = opts.get(i + 1) else { break };
        let len = usize::from(len);
        if len < 2 || i + len > opts.len() {
            break;
        }
        let body = &opts[i + 2..i + len];
        match (kind, len) {
            // RFC 9293 §3.2 (MSS), RFC 7323 §2.2 (window scale), RFC 2018 §2-3 (SACK),
            // RFC 7323 §3.2 (timestamps).
            (2, 4) => o.mss = Some(be16(body, 0)),
            (3, 3) => o.window_scale = Some(body[0]),
            (4, 2) => o.sack_permitted = true,
            (5, _) if (len - 2) % 8 == 0 => {
                o.sack_len = 0;
                for block in body.chunks_exact(8).take(MAX_SACK_BLOCKS) {
                    o.push_sack(SackBlock {
                        left: be32(block, 0),
                        right: be32(block, 4),
                    });
                }
            }
            (8, 10) => o.timestamps = Some((be32(body, 0), be32(body, 4))),
            _ => {}
        }
        i += len;
    }
    o
}

/// Sets the ECN field of the IPv4 header at the start of `bytes` to CE, as a router whose AQM
/// marks the packet does (RFC 3168 §5), updating the header checksum incrementally
/// (RFC 1624 §3, eqn. 3: HC' = ~(~HC + ~m + m')). Returns whether the field changed: only an
/// ECN-capable datagram (ECT(0) or ECT(1)) not yet marked is changed.
pub fn mark_ce(bytes: &mut [u8]) -> bool {
    if bytes.len() < IPV4_HEADER_BYTES as usize || !ecn_of(bytes[1]).is_ect() {
        return false;
    }
    let old_word = be16(bytes, 0);
    bytes[1] |= 0b11;
    let new_word = be16(bytes, 0);
    let checksum = be16(bytes, 10);
    let mut sum = u32::from(!checksum) + u32::from(!old_word) + u32::from(new_word);
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    bytes[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use celltcp_net::wire::{internet_checksum, write_datagram};

    fn tcp_packet(payload: u32, options: TcpOptions, ecn: Ecn) -> Packet {
        Packet {
            uid: 7,
            flow: FlowId(0),
            ip: IpHeader {
                src: Ipv4Addr::new(10, 0, 0, 1),
                dst: Ipv4Addr::new(10, 0, 0, 4),
                ecn,
                dscp: 10,
                ttl: 61,
                id: 4242,
            },
            transport: Transport::Tcp(TcpHeader {
                src_port: 40000,
                dst_port: 5201,
                seq: 0xfffffff0,
                ack: 99,
                flags: TcpFlags::ACK | TcpFlags::PSH,
                window: 512,
                options,
                eln: false,
            }),
            payload_len: payload,
            app_seq: 0,
            created_at: SimTime::ZERO,
            tunnel: None,
        }
    }

    fn render(p: &Packet) -> Vec<u8> {
        let mut out = Vec::new();
        write_datagram(p, &mut out).unwrap();
        out
    }

    #[test]
    fn a_tcp_segment_reads_back_with_its_size() {
        let opts = TcpOptions {
            timestamps: Some((1, 2)),
            ..Default::default()
        };
        let p = tcp_packet(1448, opts, Ecn::Ect0);
        let bytes = render(&p);
        let d = parse(&bytes).unwrap();
        assert_eq!(d.ip, p.ip);
        assert_eq!(d.transport, p.transport);
        assert_eq!(usize::from(d.total_len), bytes.len());
        let seg = d.tcp.unwrap();
        assert_eq!((seg.seq, seg.ack, seg.payload_len), (0xfffffff0, 99, 1448));
        let q = d.to_packet(5);
        assert_eq!(q.size_bytes() as usize, bytes.len());
        assert_eq!((q.payload_len, q.app_seq), (1448, 5));
    }

    #[test]
    fn linux_syn_options_are_read_and_the_size_is_bounded() {
        // A Linux SYN: MSS, SACK-permitted, timestamps, NOP, window scale: 20 option bytes.
        let mut bytes = render(&tcp_packet(0, TcpOptions::default(), Ecn::NotEct));
        let opts = [
            2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7,
        ];
        bytes.splice(40..40, opts);
        bytes[32] = (10 << 4) | (bytes[32] & 0x0f);
        let total = bytes.len() as u16;
        bytes[2..4].copy_from_slice(&total.to_be_bytes());
        let d = parse(&bytes).unwrap();
        let h = match d.transport {
            Transport::Tcp(h) => h,
            Transport::Udp(_) => panic!("not read as TCP"),
        };
        assert_eq!(h.options.mss, Some(1460));
        assert_eq!(h.options.window_scale, Some(7));
        assert!(h.options.sack_permitted);
        assert_eq!(h.options.timestamps, Some((1, 0)));
        assert_eq!(d.tcp.unwrap().payload_len, 0);
        // celltcp lays these options out in 24 bytes: 4 more than Linux.
        assert_eq!(d.to_packet(1).size_bytes(), u32::from(total) + 4);
    }

    #[test]
    fn malformed_options_keep_what_was_read() {
        let o = parse_options(&[1, 1, 8, 10, 0, 0, 0, 9, 0, 0, 0, 3, 2, 9]);
        assert_eq!(o.timestamps, Some((9, 3)));
        assert_eq!(o.mss, None);
    }

    #[test]
    fn non_ipv4_and_broken_headers_are_refused() {
        let six = [0x60u8; 40];
        assert_eq!(parse(&six), Err(Ipv4Error::NotIpv4 { version: 6 }));
        assert_eq!(parse(&[0x45, 0]), Err(Ipv4Error::Truncated { len: 2 }));
        let mut bytes = render(&tcp_packet(10, TcpOptions::default(), Ecn::NotEct));
        bytes[0] = 0x44;
        assert!(matches!(
            parse(&bytes),
            Err(Ipv4Error::BadHeaderLength { ihl: 4, .. })
        ));
        bytes[0] = 0x45;
        bytes[2..4].copy_from_slice(&1000u16.to_be_bytes());
        assert!(matches!(
            parse(&bytes),
            Err(Ipv4Error::BadTotalLength { total: 1000, .. })
        ));
    }

    #[test]
    fn icmp_and_later_fragments_are_opaque() {
        let mut bytes = render(&tcp_packet(100, TcpOptions::default(), Ecn::NotEct));
        bytes[9] = 1; // ICMP
        let d = parse(&bytes).unwrap();
        assert_eq!(
            d.transport,
            Transport::Udp(UdpHeader {
                src_port: 0,
                dst_port: 0
            })
        );
        assert!(d.tcp.is_none());
        assert_eq!(d.to_packet(0).size_bytes() as usize, bytes.len());
        bytes[9] = PROTOCOL_TCP;
        bytes[7] = 0x10; // fragment offset 16 × 8 bytes
        assert!(parse(&bytes).unwrap().tcp.is_none());
    }

    #[test]
    fn padding_after_the_total_length_is_ignored() {
        let mut bytes = render(&tcp_packet(3, TcpOptions::default(), Ecn::NotEct));
        let total = bytes.len();
        bytes.extend_from_slice(&[0xee; 6]);
        let d = parse(&bytes).unwrap();
        assert_eq!(usize::from(d.total_len), total);
        assert_eq!(d.tcp.unwrap().payload_len, 3);
    }

    #[test]
    fn ce_marking_keeps_the_header_checksum_valid() {
        for ecn in [Ecn::Ect0, Ecn::Ect1] {
            let mut bytes = render(&tcp_packet(20, TcpOptions::default(), ecn));
            assert!(mark_ce(&mut bytes));
            assert_eq!(parse(&bytes).unwrap().ip.ecn, Ecn::Ce);
            assert_eq!(internet_checksum(&bytes[..20]), 0, "{ecn:?}");
            assert!(!mark_ce(&mut bytes), "already CE");
        }
        let mut plain = render(&tcp_packet(20, TcpOptions::default(), Ecn::NotEct));
        assert!(!mark_ce(&mut plain));
    }
}
