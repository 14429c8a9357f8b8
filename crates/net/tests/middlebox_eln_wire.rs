//! The ELN bit on the wire: the most significant of the four reserved bits of the TCP header
//! (RFC 9293 §3.1, byte 12 low nibble), written and read back; the other reserved bits stay
//! zero and the checksum covers it.

use std::net::Ipv4Addr;

use celltcp_engine::SimTime;
use celltcp_net::packet::FlowId;
use celltcp_net::packet::{
    Ecn, IpHeader, Packet, TcpFlags, TcpHeader, TcpOptions, Transport, TCP_ELN_BIT,
};
use celltcp_net::wire::{parse_datagram, write_datagram};

fn ack(eln: bool) -> Packet {
    Packet {
        uid: 0,
        flow: FlowId(0),
        ip: IpHeader {
            src: Ipv4Addr::new(10, 0, 0, 3),
            dst: Ipv4Addr::new(10, 0, 0, 1),
            ecn: Ecn::NotEct,
            dscp: 0,
            ttl: 64,
            id: 7,
        },
        transport: Transport::Tcp(TcpHeader {
            src_port: 5001,
            dst_port: 49152,
            seq: 1,
            ack: 123_457,
            flags: TcpFlags::ACK,
            window: 512,
            options: TcpOptions {
                timestamps: Some((10, 20)),
                ..Default::default()
            },
            eln,
        }),
        payload_len: 0,
        app_seq: 0,
        created_at: SimTime::ZERO,
        tunnel: None,
    }
}

#[test]
fn the_eln_bit_is_a_reserved_bit_of_byte_12() {
    let (mut plain, mut marked) = (Vec::new(), Vec::new());
    write_datagram(&ack(false), &mut plain).unwrap();
    write_datagram(&ack(true), &mut marked).unwrap();
    // IPv4 header 20 bytes, then TCP: byte 12 is data offset (8 words: 20 + 12 option bytes)
    // and the reserved bits.
    assert_eq!(plain[20 + 12], 8 << 4);
    assert_eq!(marked[20 + 12], (8 << 4) | TCP_ELN_BIT);
    assert_eq!(TCP_ELN_BIT, 0x08);
    // Only byte 12 and the TCP checksum (bytes 16–17) differ.
    let differ: Vec<usize> = (0..plain.len())
        .filter(|&i| plain[i] != marked[i])
        .collect();
    assert_eq!(differ[0], 32);
    assert!(
        differ.iter().all(|&i| i == 32 || i == 36 || i == 37),
        "{differ:?}"
    );
    for (bytes, eln) in [(&plain, false), (&marked, true)] {
        let back = parse_datagram(bytes).unwrap().to_packet();
        assert_eq!(back.tcp().unwrap().eln, eln);
        assert_eq!(back.transport, ack(eln).transport);
    }
}
