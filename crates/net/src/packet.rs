//! Packets as plain values.
//!
//! A [`Packet`] is `Copy`: no heap allocation on the per-packet path. It carries the header fields
//! that protocols and queues act on (addresses, the ECN field of RFC 3168, ports, TCP sequence
//! space and options) and the payload's length, not its bytes; the wire module renders real
//! headers from these fields when a capture is written.

use std::net::Ipv4Addr;

use celltcp_engine::SimTime;

/// UDP port of GTP-U (TS 29.281 §4.4.2.3).
pub const GTPU_PORT: u16 = 2152;

/// The ids a packet carries, defined with the others in [`crate::id`].
pub use crate::id::{FlowId, NodeId};

/// The flow of packets that belong to no application flow: GTP-U end markers. The network's
/// per-flow counters ignore them.
pub const NO_FLOW: FlowId = FlowId(u32::MAX);

/// IPv4 header without options (RFC 791).
pub const IPV4_HEADER_BYTES: u32 = 20;
/// UDP header (RFC 768).
pub const UDP_HEADER_BYTES: u32 = 8;
/// TCP header without options (RFC 9293).
pub const TCP_HEADER_BYTES: u32 = 20;
/// GTP-U header without optional fields or extension headers (3GPP TS 29.281 §5.1).
pub const GTPU_HEADER_BYTES: u32 = 8;
/// What a GTP-U tunnel adds on S1-U: outer IPv4 20 + UDP 8 + GTP-U 8 bytes (TS 29.281 §4, §5.1).
pub const GTPU_TUNNEL_OVERHEAD_BYTES: u32 =
    IPV4_HEADER_BYTES + UDP_HEADER_BYTES + GTPU_HEADER_BYTES;
/// What the PDCP PDU Number extension adds to the GTP-U header: the optional fields (sequence
/// number 2, N-PDU number 1, next extension header type 1; present whenever E is set, TS 29.281
/// §5.1) and the four-byte extension header itself (§5.2.2.2), bytes.
pub const GTPU_PDCP_EXTENSION_BYTES: u32 = 8;

/// The two-bit ECN field of the IP header (RFC 3168 §5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Ecn {
    #[default]
    NotEct = 0b00,
    Ect1 = 0b01,
    Ect0 = 0b10,
    Ce = 0b11,
}

impl Ecn {
    pub fn is_ect(self) -> bool {
        matches!(self, Ecn::Ect0 | Ecn::Ect1)
    }
}

/// The IPv4 header fields celltcp models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpHeader {
    pub src: Ipv4Addr,
    pub dst: Ipv4Addr,
    pub ecn: Ecn,
    /// DSCP (upper six bits of the former TOS byte).
    pub dscp: u8,
    pub ttl: u8,
    /// Identification field; set from the packet uid when written to a capture.
    pub id: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UdpHeader {
    pub src_port: u16,
    pub dst_port: u16,
}

/// TCP control bits (RFC 9293 §3.1, RFC 3168 §6.1 for ECE/CWR).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    pub const FIN: TcpFlags = TcpFlags(0x01);
    pub const SYN: TcpFlags = TcpFlags(0x02);
    pub const RST: TcpFlags = TcpFlags(0x04);
    pub const PSH: TcpFlags = TcpFlags(0x08);
    pub const ACK: TcpFlags = TcpFlags(0x10);
    pub const URG: TcpFlags = TcpFlags(0x20);
    pub const ECE: TcpFlags = TcpFlags(0x40);
    pub const CWR: TcpFlags = TcpFlags(0x80);

    pub const fn contains(self, other: TcpFlags) -> bool {
        self.0 & other.0 == other.0
    }
    pub fn insert(&mut self, other: TcpFlags) {
        self.0 |= other.0;
    }
    pub fn remove(&mut self, other: TcpFlags) {
        self.0 &= !other.0;
    }
}

impl std::ops::BitOr for TcpFlags {
    type Output = TcpFlags;
    fn bitor(self, rhs: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 | rhs.0)
    }
}

/// A SACK block: the half-open sequence range [left, right) (RFC 2018 §3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub left: u32,
    pub right: u32,
}

/// At most four SACK blocks fit in the 40 option bytes, three beside timestamps (RFC 2018 §3).
pub const MAX_SACK_BLOCKS: usize = 4;

/// TCP options celltcp models; lengths follow the RFCs so that header sizes are exact.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpOptions {
    /// Maximum segment size (RFC 9293 §3.7.1), SYN only.
    pub mss: Option<u16>,
    /// Window scale shift (RFC 7323 §2), SYN only.
    pub window_scale: Option<u8>,
    /// SACK-permitted (RFC 2018 §2), SYN only.
    pub sack_permitted: bool,
    /// Timestamps (TSval, TSecr) (RFC 7323 §3).
    pub timestamps: Option<(u32, u32)>,
    pub sack_blocks: [SackBlock; MAX_SACK_BLOCKS],
    pub sack_len: u8,
}

impl TcpOptions {
    pub fn sack(&self) -> &[SackBlock] {
        &self.sack_blocks[..self.sack_len as usize]
    }

    /// Appends a SACK block if room remains; returns false when full.
    pub fn push_sack(&mut self, block: SackBlock) -> bool {
        if (self.sack_len as usize) < MAX_SACK_BLOCKS {
            self.sack_blocks[self.sack_len as usize] = block;
            self.sack_len += 1;
            true
        } else {
            false
        }
    }

    /// Option bytes on the wire, padded to a multiple of four, in the layout the wire module
    /// writes: MSS 4, SACK-permitted 2 (+2 NOP), window scale 3 (+1 NOP), timestamps 10 (+2 NOP),
    /// SACK 2 + 8n (+2 NOP).
    pub fn wire_len(&self) -> u32 {
        let mut n = 0;
        if self.mss.is_some() {
            n += 4;
        }
        if self.sack_permitted {
            n += 4;
        }
        if self.window_scale.is_some() {
            n += 4;
        }
        if self.timestamps.is_some() {
            n += 12;
        }
        if self.sack_len > 0 {
            n += 4 + 8 * self.sack_len as u32;
        }
        n
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpHeader {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: TcpFlags,
    /// Advertised window field as sent (already right-shifted by the window scale).
    pub window: u16,
    pub options: TcpOptions,
    /// Explicit Loss Notification (Balakrishnan & Katz, GLOBECOM 1998): set by a base station
    /// on an ACK for a hole its radio link caused, so that the sender retransmits without a
    /// congestion response. It has no option of its own: on the wire it is [`TCP_ELN_BIT`], one
    /// of the four reserved bits of RFC 9293 §3.1.
    pub eln: bool,
}

/// The ELN bit in byte 12 of the TCP header (data offset in the high nibble, the four "Rsrvd"
/// bits of RFC 9293 §3.1 in the low one): the most significant reserved bit, bit 100 of the
/// header counted from 0. The least significant one (0x01) is left alone: it was the ECN nonce
/// bit of RFC 3540 and is the AE bit of Accurate ECN.
pub const TCP_ELN_BIT: u8 = 0x08;

impl TcpHeader {
    pub fn wire_len(&self) -> u32 {
        TCP_HEADER_BYTES + self.options.wire_len()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Udp(UdpHeader),
    Tcp(TcpHeader),
}

impl Transport {
    pub fn header_len(&self) -> u32 {
        match self {
            Transport::Udp(_) => UDP_HEADER_BYTES,
            Transport::Tcp(h) => h.wire_len(),
        }
    }
}

/// The GTP-U message a tunnelled packet is (TS 29.281 §6.1, Table 6.1-1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GtpMessage {
    /// A G-PDU (message type 255): a user packet (T-PDU) in the tunnel (§4.1).
    #[default]
    GPdu,
    /// An End Marker (message type 254, §7.3.2): the last packet on a path, sent after the last
    /// G-PDU when the path of a bearer is switched. It carries no T-PDU.
    EndMarker,
}

impl GtpMessage {
    /// The Message Type field of the GTP-U header.
    pub const fn message_type(self) -> u8 {
        match self {
            GtpMessage::GPdu => 255,
            GtpMessage::EndMarker => 254,
        }
    }
}

/// The interface a GTP-U tunnel runs on (TS 36.300 §4, §10.1.2.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GtpInterface {
    /// S1-U, between an eNB and the S-GW: a UE's EPS bearer.
    #[default]
    S1u,
    /// X2-U, between two eNBs: data forwarding during a handover (TS 36.300 §10.1.2.1.2).
    X2u,
}

impl GtpInterface {
    pub fn as_str(self) -> &'static str {
        match self {
            GtpInterface::S1u => "s1u",
            GtpInterface::X2u => "x2u",
        }
    }
}

/// The outer headers of a packet carried in a GTP-U tunnel (a G-PDU, 3GPP TS 29.281 §4.1, or an
/// end marker, §7.3.2): outer IPv4 from one tunnel endpoint to the other, UDP port 2152, and the
/// GTP-U header with the tunnel endpoint identifier of the receiving end. The inner packet keeps
/// its own header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GtpTunnel {
    /// Address of the encapsulating endpoint (S-GW/P-GW downlink, eNB uplink, the source eNB
    /// on X2-U).
    pub outer_src: Ipv4Addr,
    /// Address of the decapsulating endpoint; a tunnelled packet is routed on this address.
    pub outer_dst: Ipv4Addr,
    /// Tunnel endpoint identifier allocated by the receiving endpoint (TS 29.281 §5.1).
    pub teid: u32,
    /// ECN field of the outer IPv4 header: the one routers on the path read and mark
    /// (RFC 6040 §4).
    pub outer_ecn: Ecn,
    /// G-PDU or end marker.
    pub message: GtpMessage,
    pub interface: GtpInterface,
    /// The PDCP COUNT the source eNB gave a forwarded packet, carried in the PDCP PDU Number
    /// extension header (TS 29.281 §5.2.2.2; TS 36.300 §10.1.2.3: forwarded PDCP SDUs keep
    /// their SN). `None` = no extension header.
    pub pdcp_count: Option<u32>,
}

impl GtpTunnel {
    /// The GTP-U header, bytes: 8, or 16 with the PDCP PDU Number extension
    /// (TS 29.281 §5.1, §5.2).
    #[inline]
    pub fn gtp_header_bytes(&self) -> u32 {
        match self.pdcp_count {
            Some(_) => GTPU_HEADER_BYTES + GTPU_PDCP_EXTENSION_BYTES,
            None => GTPU_HEADER_BYTES,
        }
    }

    /// Outer IPv4, UDP and GTP-U headers, bytes: 36, or 44 with the PDCP PDU Number extension.
    #[inline]
    pub fn overhead_bytes(&self) -> u32 {
        IPV4_HEADER_BYTES + UDP_HEADER_BYTES + self.gtp_header_bytes()
    }
}

/// One IP packet in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Unique within a run; assigned by the network when the packet is first sent.
    pub uid: u64,
    pub flow: FlowId,
    pub ip: IpHeader,
    pub transport: Transport,
    /// Application bytes carried (not rendered; captures fill them with zeros).
    pub payload_len: u32,
    /// Application-level sequence number (UDP datagram counter); 0 for TCP. For a packet a
    /// real program sent (flow [`crate::world::EXTERNAL_FLOW`]): the key under which the
    /// emulator keeps its real bytes.
    pub app_seq: u64,
    /// When the sending transport created this packet, for one-way delay.
    pub created_at: SimTime,
    /// The GTP-U tunnel carrying the packet between an eNB and the S-GW/P-GW (S1-U) or between
    /// two eNBs (X2-U), if any. An end marker is a packet whose tunnel is all there is: its
    /// inner header only names the UE whose bearer it ends (`ip.dst`) and is not transmitted.
    pub tunnel: Option<GtpTunnel>,
}

impl Packet {
    /// Total IP datagram length in bytes: what a link serialises and a byte queue counts.
    /// A tunnelled packet also carries the outer IPv4, UDP and GTP-U headers
    /// ([`GtpTunnel::overhead_bytes`]: 36 bytes, 44 with the PDCP PDU Number extension); an
    /// end marker is those headers only.
    #[inline]
    pub fn size_bytes(&self) -> u32 {
        match self.tunnel {
            Some(t) => t.overhead_bytes() + self.inner_size_bytes(),
            None => IPV4_HEADER_BYTES + self.transport.header_len() + self.payload_len,
        }
    }

    /// Length of the inner IP datagram in bytes, without any tunnel headers; 0 for an end
    /// marker, which carries no T-PDU (TS 29.281 §7.3.2).
    #[inline]
    pub fn inner_size_bytes(&self) -> u32 {
        match self.tunnel {
            Some(GtpTunnel {
                message: GtpMessage::EndMarker,
                ..
            }) => 0,
            _ => IPV4_HEADER_BYTES + self.transport.header_len() + self.payload_len,
        }
    }

    /// True for a GTP-U end marker.
    #[inline]
    pub fn is_end_marker(&self) -> bool {
        matches!(self.tunnel, Some(t) if t.message == GtpMessage::EndMarker)
    }

    /// A GTP-U end marker (TS 29.281 §7.3.2) for the bearer of the UE at `ue_addr`, sent at
    /// `now` from `outer_src` to `outer_dst` on `interface` under `teid`. It belongs to no flow
    /// ([`NO_FLOW`]); its outer ECN field is Not-ECT, as it carries no ECN-capable transport;
    /// the inner header, which is not transmitted, runs from `outer_src` to `ue_addr` so that
    /// the receiving eNB can tell which UE's path ended.
    pub fn end_marker(
        uid: u64,
        ue_addr: Ipv4Addr,
        outer_src: Ipv4Addr,
        outer_dst: Ipv4Addr,
        teid: u32,
        interface: GtpInterface,
        now: SimTime,
    ) -> Packet {
        Packet {
            uid,
            flow: NO_FLOW,
            ip: IpHeader {
                src: outer_src,
                dst: ue_addr,
                ecn: Ecn::NotEct,
                dscp: 0,
                ttl: 64,
                id: uid as u16,
            },
            transport: Transport::Udp(UdpHeader {
                src_port: GTPU_PORT,
                dst_port: GTPU_PORT,
            }),
            payload_len: 0,
            app_seq: 0,
            created_at: now,
            tunnel: Some(GtpTunnel {
                outer_src,
                outer_dst,
                teid,
                outer_ecn: Ecn::NotEct,
                message: GtpMessage::EndMarker,
                interface,
                pdcp_count: None,
            }),
        }
    }

    pub fn tcp(&self) -> Option<&TcpHeader> {
        match &self.transport {
            Transport::Tcp(h) => Some(h),
            Transport::Udp(_) => None,
        }
    }

    pub fn tcp_mut(&mut self) -> Option<&mut TcpHeader> {
        match &mut self.transport {
            Transport::Tcp(h) => Some(h),
            Transport::Udp(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_the_rfcs() {
        let mut opts = TcpOptions {
            timestamps: Some((1, 2)),
            ..Default::default()
        };
        assert_eq!(opts.wire_len(), 12);
        opts.push_sack(SackBlock { left: 1, right: 2 });
        opts.push_sack(SackBlock { left: 3, right: 4 });
        opts.push_sack(SackBlock { left: 5, right: 6 });
        assert_eq!(opts.wire_len(), 12 + 28);
        let syn = TcpOptions {
            mss: Some(1460),
            window_scale: Some(7),
            sack_permitted: true,
            timestamps: Some((0, 0)),
            ..Default::default()
        };
        assert_eq!(syn.wire_len(), 24);
        // A packet stays a small value: the GTP-U tunnel fields took it from 128 to 144 bytes.
        assert!(size_of::<Packet>() <= 144, "{}", size_of::<Packet>());
    }

    #[test]
    fn a_tunnel_adds_outer_ipv4_udp_and_gtpu_headers() {
        let mut pkt = Packet {
            uid: 1,
            flow: FlowId(0),
            ip: IpHeader {
                src: Ipv4Addr::new(10, 0, 0, 1),
                dst: Ipv4Addr::new(10, 0, 0, 9),
                ecn: Ecn::Ect0,
                dscp: 0,
                ttl: 64,
                id: 1,
            },
            transport: Transport::Udp(UdpHeader {
                src_port: 1,
                dst_port: 2,
            }),
            payload_len: 1000,
            app_seq: 0,
            created_at: SimTime::ZERO,
            tunnel: None,
        };
        assert_eq!(pkt.size_bytes(), 1028);
        pkt.tunnel = Some(GtpTunnel {
            outer_src: Ipv4Addr::new(10, 0, 0, 2),
            outer_dst: Ipv4Addr::new(10, 0, 0, 3),
            teid: 7,
            outer_ecn: Ecn::Ect0,
            message: GtpMessage::GPdu,
            interface: GtpInterface::S1u,
            pdcp_count: None,
        });
        // TS 29.281: 20 (outer IPv4) + 8 (UDP) + 8 (GTP-U) = 36 bytes on S1-U.
        assert_eq!(GTPU_TUNNEL_OVERHEAD_BYTES, 36);
        assert_eq!(pkt.size_bytes(), 1064);
        assert_eq!(pkt.inner_size_bytes(), 1028);
        assert!(!pkt.is_end_marker());
        // Forwarded on X2-U with its PDCP SN: the GTP-U header grows to 16 bytes (4 bytes of
        // optional fields, 4 of PDCP PDU Number extension; §5.1, §5.2.2.2).
        if let Some(t) = pkt.tunnel.as_mut() {
            t.interface = GtpInterface::X2u;
            t.pdcp_count = Some(4095);
        }
        assert_eq!(pkt.tunnel.unwrap().gtp_header_bytes(), 16);
        assert_eq!(pkt.size_bytes(), 1028 + 44);
        assert_eq!(pkt.inner_size_bytes(), 1028);
    }

    #[test]
    fn an_end_marker_is_outer_headers_only_and_of_no_flow() {
        let m = Packet::end_marker(
            70_000,
            Ipv4Addr::new(10, 0, 0, 9),
            Ipv4Addr::new(10, 0, 0, 2),
            Ipv4Addr::new(10, 0, 0, 3),
            5,
            GtpInterface::S1u,
            SimTime::from_ns(12),
        );
        assert_eq!((m.size_bytes(), m.inner_size_bytes()), (36, 0));
        assert!(m.is_end_marker());
        assert_eq!(m.flow, NO_FLOW);
        assert_eq!(
            (m.ip.src, m.ip.dst),
            (Ipv4Addr::new(10, 0, 0, 2), Ipv4Addr::new(10, 0, 0, 9))
        );
        assert_eq!(m.ip.id, 70_000u64 as u16);
        let t = m.tunnel.unwrap();
        assert_eq!(
            (t.message.message_type(), t.teid, t.outer_ecn),
            (254, 5, Ecn::NotEct)
        );
        assert_eq!(GtpMessage::GPdu.message_type(), 255);
    }
}
