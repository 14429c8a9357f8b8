//! Fixtures shared by the RLC tests.

use std::net::Ipv4Addr;

use celltcp_engine::SimTime;
use celltcp_net::packet::FlowId;
use celltcp_net::packet::{
    Ecn, IpHeader, Packet, Transport, UdpHeader, IPV4_HEADER_BYTES, UDP_HEADER_BYTES,
};

/// A UDP packet of `size_bytes` on the wire (at least the 28 bytes of IP and UDP headers).
pub(crate) fn sdu(uid: u64, size_bytes: u32) -> Packet {
    let headers = IPV4_HEADER_BYTES + UDP_HEADER_BYTES;
    Packet {
        uid,
        flow: FlowId(0),
        ip: IpHeader {
            src: Ipv4Addr::new(10, 0, 0, 1),
            dst: Ipv4Addr::new(10, 0, 0, 2),
            ecn: Ecn::NotEct,
            dscp: 0,
            ttl: 64,
            id: 0,
        },
        transport: Transport::Udp(UdpHeader {
            src_port: 5000,
            dst_port: 5001,
        }),
        payload_len: size_bytes.saturating_sub(headers),
        app_seq: uid,
        created_at: SimTime::ZERO,
        tunnel: None,
    }
}
