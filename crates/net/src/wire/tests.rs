//! Datagram-level tests: hand-checked renderings, round trips and corrupt input.

use std::net::Ipv4Addr;

use crate::packet::FlowId;
use celltcp_engine::SimTime;
use proptest::prelude::*;

use super::*;
use crate::packet::{
    Ecn, GtpInterface, GtpMessage, GtpTunnel, IpHeader, Packet, SackBlock, TcpFlags, TcpHeader,
    TcpOptions, Transport, UdpHeader, MAX_SACK_BLOCKS,
};

fn ip(src: [u8; 4], dst: [u8; 4], ecn: Ecn, dscp: u8, id: u16) -> IpHeader {
    IpHeader {
        src: Ipv4Addr::from(src),
        dst: Ipv4Addr::from(dst),
        ecn,
        dscp,
        ttl: 64,
        id,
    }
}

fn packet(ip: IpHeader, transport: Transport, payload_len: u32, app_seq: u64) -> Packet {
    Packet {
        uid: 0,
        flow: FlowId(0),
        ip,
        transport,
        payload_len,
        app_seq,
        created_at: SimTime::ZERO,
        tunnel: None,
    }
}

/// What parsing the rendering of `pkt` gives back: the wire does not tell S1-U from X2-U, holds
/// 15 (X2-U) or 16 bits of a PDCP count, and carries no inner header in an end marker (whose inner fields
/// then read as the outer IPv4 and UDP headers, Not-ECT).
fn as_read(pkt: &Packet) -> Packet {
    let mut p = *pkt;
    (p.uid, p.flow, p.created_at) = (0, FlowId(0), SimTime::ZERO);
    let Some(t) = p.tunnel.as_mut() else {
        return p;
    };
    t.pdcp_count = t
        .pdcp_count
        .map(|c| u32::from(pdcp_pdu_number(c, t.interface)));
    t.interface = GtpInterface::S1u;
    if t.message == GtpMessage::EndMarker {
        p.ip = IpHeader {
            src: t.outer_src,
            dst: t.outer_dst,
            ecn: Ecn::NotEct,
            ttl: 64,
            ..p.ip
        };
        p.transport = Transport::Udp(UdpHeader {
            src_port: GTPU_PORT,
            dst_port: GTPU_PORT,
        });
        (p.payload_len, p.app_seq) = (0, 0);
    }
    p
}

fn render(pkt: &Packet) -> Vec<u8> {
    let mut out = Vec::new();
    write_datagram(pkt, &mut out).expect("encodable packet");
    out
}

fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

fn udp_example() -> Packet {
    let h = UdpHeader {
        src_port: 5000,
        dst_port: 6000,
    };
    packet(
        ip([10, 0, 0, 1], [10, 0, 0, 2], Ecn::Ect0, 46, 0x1234),
        Transport::Udp(h),
        12,
        0x0102_0304_0506_0708,
    )
}

fn tcp_syn_ack_example() -> Packet {
    let h = TcpHeader {
        src_port: 443,
        dst_port: 50000,
        seq: 0x0102_0304,
        ack: 0x0a0b_0c0d,
        flags: TcpFlags::SYN | TcpFlags::ACK | TcpFlags::ECE,
        window: 65535,
        options: TcpOptions {
            mss: Some(1460),
            window_scale: Some(7),
            sack_permitted: true,
            timestamps: Some((0x1122_3344, 0x5566_7788)),
            ..Default::default()
        },
        eln: false,
    };
    packet(
        ip([192, 168, 1, 10], [192, 168, 1, 20], Ecn::NotEct, 0, 0xbeef),
        Transport::Tcp(h),
        0,
        0,
    )
}

/// IPv4 checksum: 45ba+0028+1234+4000+4011+0a00+0001+0a00+0002 = 0xec2a, complement 0x13d5.
/// UDP checksum: pseudo-header 0x1428 + header 0x2b0c + payload 0x1014 = 0x4f48 → 0xb0b7.
#[test]
fn hand_checked_udp_datagram() {
    let want = hex(
        "45 ba 00 28 12 34 40 00 40 11 13 d5 0a 00 00 01 0a 00 00 02 \
         13 88 17 70 00 14 b0 b7 01 02 03 04 05 06 07 08 00 00 00 00",
    );
    let pkt = udp_example();
    assert_eq!(render(&pkt), want);
    assert_eq!(want.len(), pkt.size_bytes() as usize);
    assert_eq!(parse_datagram(&want).unwrap().to_packet(), pkt);
}

/// A SYN-ACK with ECE (RFC 3168 §6.1.1) and all SYN options in the documented layout.
/// IPv4 checksum: 4500+0040+beef+4000+4006+c0a8+010a+c0a8+0114 folds to 0x07a6 → 0xf859.
#[test]
fn hand_checked_tcp_datagram_with_options() {
    let want = hex(
        "45 00 00 40 be ef 40 00 40 06 f8 59 c0 a8 01 0a c0 a8 01 14 \
         01 bb c3 50 01 02 03 04 0a 0b 0c 0d b0 52 ff ff c1 bc 00 00 \
         02 04 05 b4 01 01 04 02 01 03 03 07 01 01 08 0a 11 22 33 44 55 66 77 88",
    );
    let pkt = tcp_syn_ack_example();
    assert_eq!(render(&pkt), want);
    let parsed = parse_datagram(&want).unwrap();
    assert!(parsed.dont_fragment);
    assert_eq!(parsed.total_len, 64);
    assert_eq!(parsed.to_packet(), pkt);
}

fn tunnelled(mut pkt: Packet, teid: u32, outer_ecn: Ecn) -> Packet {
    pkt.tunnel = Some(GtpTunnel {
        outer_src: Ipv4Addr::new(10, 1, 0, 1),
        outer_dst: Ipv4Addr::new(10, 1, 0, 2),
        teid,
        outer_ecn,
        message: GtpMessage::GPdu,
        interface: GtpInterface::S1u,
        pdcp_count: None,
    });
    pkt
}

/// The UDP example in a GTP-U tunnel (3GPP TS 29.281), outer ECN CE.
/// Outer IPv4: TOS 46<<2 | CE = 0xbb, total length 40 + 36 = 76, the inner identification,
/// TTL 64, UDP; checksum 45bb+004c+1234+4000+4011+0a01+0001+0a01+0002 = 0xec51 → 0x13ae.
/// UDP 2152 → 2152, length 56; checksum pseudo-header 0x144e + header and GTP-U 0x4236 +
/// inner datagram 0xebd7 = 0x425c → 0xbda3. GTP-U: version 1, PT 1 (0x30), G-PDU (0xff),
/// length 40, TEID 7.
#[test]
fn hand_checked_gtpu_datagram() {
    let want = hex(
        "45 bb 00 4c 12 34 40 00 40 11 13 ae 0a 01 00 01 0a 01 00 02 \
         08 68 08 68 00 38 bd a3 30 ff 00 28 00 00 00 07 \
         45 ba 00 28 12 34 40 00 40 11 13 d5 0a 00 00 01 0a 00 00 02 \
         13 88 17 70 00 14 b0 b7 01 02 03 04 05 06 07 08 00 00 00 00",
    );
    let pkt = tunnelled(udp_example(), 7, Ecn::Ce);
    assert_eq!(render(&pkt), want);
    assert_eq!(want.len(), pkt.size_bytes() as usize);
    let parsed = parse_datagram(&want).unwrap();
    assert_eq!(parsed.total_len, 40);
    assert_eq!(parsed.to_packet(), pkt);
}

/// The UDP example forwarded over X2-U with PDCP SN 0x0abc (TS 29.281 §5.1, §5.2.2.2).
/// Outer IPv4: total length 40 + 44 = 84; checksum 45bb+0054+1234+4000+4011+0a01+0001+0a01+0002
/// = 0xec59 → 0x13a6. UDP length 64; checksum pseudo-header 0x1456 + header 0x10f0 + GTP-U
/// 0x4eaa (3430+ff00+0030+0000+0007+0000+00c0+010a+bc00, folded) + inner datagram 0xebd7
/// folds to 0x043f → 0xfbc0. GTP-U: flags 0x34 (version 1, PT 1, E), G-PDU, length 8 + 40 = 48,
/// TEID 7; sequence number 0, N-PDU number 0, next type 0xc0; extension length 1, PDCP PDU
/// number 0x0abc, next type 0.
#[test]
fn hand_checked_gtpu_datagram_with_the_pdcp_pdu_number() {
    let want = hex(
        "45 bb 00 54 12 34 40 00 40 11 13 a6 0a 01 00 01 0a 01 00 02 \
         08 68 08 68 00 40 fb c0 34 ff 00 30 00 00 00 07 00 00 00 c0 01 0a bc 00 \
         45 ba 00 28 12 34 40 00 40 11 13 d5 0a 00 00 01 0a 00 00 02 \
         13 88 17 70 00 14 b0 b7 01 02 03 04 05 06 07 08 00 00 00 00",
    );
    let mut pkt = tunnelled(udp_example(), 7, Ecn::Ce);
    if let Some(t) = pkt.tunnel.as_mut() {
        t.interface = GtpInterface::X2u;
        t.pdcp_count = Some(0x0abc);
    }
    assert_eq!(render(&pkt), want);
    assert_eq!(want.len(), pkt.size_bytes() as usize);
    let parsed = parse_datagram(&want).unwrap();
    assert_eq!(parsed.total_len, 40);
    // X2-U and S1-U datagrams look alike: the interface reads back as S1-U.
    assert_eq!(parsed.to_packet(), as_read(&pkt));
    assert_eq!(parsed.tunnel.unwrap().pdcp_count, Some(0x0abc));
    // The field holds the COUNT's low bits, where the PDCP SN lies; on X2-U its top bit is
    // spare and zero (§5.2.2.2).
    for count in [0x0003_0abc, 0x8abc] {
        if let Some(t) = pkt.tunnel.as_mut() {
            t.pdcp_count = Some(count);
        }
        assert_eq!(render(&pkt), want, "{count:#x}");
    }
    assert_eq!(pdcp_pdu_number(0x8abc, GtpInterface::S1u), 0x8abc);
}

/// An end marker on S1-U (TS 29.281 §7.3.2): outer headers only. IPv4 total length 36,
/// checksum 4500+0024+0001+4000+4011+0a01+0001+0a01+0002 = 0xd93b → 0x26c4. UDP length 16,
/// checksum pseudo-header 0x1426 + header 0x10e0 + GTP-U 0x3105 = 0x560b → 0xa9f4. GTP-U:
/// version 1, PT 1, type 254, length 0, TEID 7.
#[test]
fn hand_checked_end_marker() {
    let want = hex(
        "45 00 00 24 00 01 40 00 40 11 26 c4 0a 01 00 01 0a 01 00 02 \
         08 68 08 68 00 10 a9 f4 30 fe 00 00 00 00 00 07",
    );
    let marker = Packet::end_marker(
        1,
        Ipv4Addr::new(10, 0, 0, 9),
        Ipv4Addr::new(10, 1, 0, 1),
        Ipv4Addr::new(10, 1, 0, 2),
        7,
        GtpInterface::S1u,
        SimTime::ZERO,
    );
    assert_eq!(render(&marker), want);
    assert_eq!(want.len(), marker.size_bytes() as usize);
    let parsed = parse_datagram(&want).unwrap();
    assert_eq!((parsed.total_len, parsed.payload_len), (0, 0));
    let t = parsed.tunnel.unwrap();
    assert_eq!(
        (t.message, t.teid, t.outer_dst),
        (GtpMessage::EndMarker, 7, Ipv4Addr::new(10, 1, 0, 2))
    );
    let mut read = parsed.to_packet();
    assert!(read.is_end_marker());
    assert_eq!(read.size_bytes(), 36);
    // Only the UE's address, which is not transmitted, differs.
    read.ip.dst = marker.ip.dst;
    read.uid = marker.uid;
    read.flow = marker.flow;
    assert_eq!(read, marker);
}

#[test]
fn gtpu_defects_are_reported_and_other_port_2152_payloads_are_udp() {
    let pkt = tunnelled(udp_example(), 7, Ecn::Ect0);
    let good = render(&pkt);
    // A sequence number flag (S) is an optional field celltcp does not read.
    let mut b = good.clone();
    b[28] |= 0x02;
    fix_checksums(&mut b);
    assert_eq!(
        parse_datagram(&b),
        Err(WireError::UnsupportedGtpFields {
            offset: 28,
            flags: 0x02
        })
    );
    // The GTP-U length must count the inner datagram exactly.
    let mut b = good.clone();
    b[31] = 39;
    fix_checksums(&mut b);
    assert_eq!(
        parse_datagram(&b),
        Err(WireError::BadGtpLength {
            offset: 30,
            length: 39,
            expected: 40
        })
    );
    // A corrupt inner datagram is reported with the inner offset.
    let mut b = good.clone();
    b[36] = 0x65;
    fix_checksums(&mut b);
    assert_eq!(
        parse_datagram(&b),
        Err(WireError::InTunnel {
            offset: 36,
            source: Box::new(WireError::BadVersion { version: 6 })
        })
    );
    // Not a G-PDU (an echo request, type 1): plain UDP application data.
    let mut b = good.clone();
    b[29] = 1;
    fix_checksums(&mut b);
    let parsed = parse_datagram(&b).unwrap();
    assert_eq!(parsed.tunnel, None);
    assert_eq!(
        parsed.transport,
        Transport::Udp(UdpHeader {
            src_port: 2152,
            dst_port: 2152
        })
    );
    assert_eq!(parsed.payload_len, 48);
}

/// Sets the IPv4 total length, UDP length and GTP-U length of a tunnelled datagram after its
/// size changed, and fixes the checksums.
fn fix_gtp_lengths(b: &mut [u8]) {
    let total = b.len() as u16;
    b[2..4].copy_from_slice(&total.to_be_bytes());
    b[24..26].copy_from_slice(&(total - 20).to_be_bytes());
    b[30..32].copy_from_slice(&(total - 36).to_be_bytes());
    fix_checksums(b);
}

#[test]
fn gtpu_extension_and_end_marker_defects_are_reported() {
    let mut pkt = tunnelled(udp_example(), 7, Ecn::Ect0);
    if let Some(t) = pkt.tunnel.as_mut() {
        t.pdcp_count = Some(5);
    }
    let good = render(&pkt);
    assert_eq!(
        parse_datagram(&good).unwrap().tunnel.unwrap().pdcp_count,
        Some(5)
    );
    // The extension header is one 4-byte unit.
    let mut b = good.clone();
    b[40] = 2;
    fix_checksums(&mut b);
    assert_eq!(
        parse_datagram(&b),
        Err(WireError::BadGtpExtensionLength {
            offset: 40,
            units: 2
        })
    );
    // A second extension header (a PDU session container) is not read.
    let mut b = good.clone();
    b[43] = 0x85;
    fix_checksums(&mut b);
    assert_eq!(
        parse_datagram(&b),
        Err(WireError::UnsupportedGtpExtension {
            offset: 43,
            extension_type: 0x85
        })
    );
    // E set on a G-PDU written without optional fields: the inner header's bytes are read as
    // optional fields, whose next extension type (the inner total length's low byte, 0x28)
    // names no extension celltcp reads.
    let mut b = render(&tunnelled(udp_example(), 7, Ecn::Ect0));
    b[28] |= 0x04;
    fix_checksums(&mut b);
    assert_eq!(
        parse_datagram(&b),
        Err(WireError::UnsupportedGtpExtension {
            offset: 39,
            extension_type: 0x28
        })
    );
    let marker = Packet::end_marker(
        1,
        Ipv4Addr::new(10, 0, 0, 9),
        Ipv4Addr::new(10, 1, 0, 1),
        Ipv4Addr::new(10, 1, 0, 2),
        7,
        GtpInterface::X2u,
        SimTime::ZERO,
    );
    // E set on an end marker with nothing after its mandatory header.
    let mut b = render(&marker);
    b[28] |= 0x04;
    fix_checksums(&mut b);
    assert_eq!(
        parse_datagram(&b),
        Err(WireError::Truncated {
            what: "GTP-U extension header",
            offset: 36,
            needed: 8,
            available: 0
        })
    );
    // An end marker carries no T-PDU.
    let mut b = render(&marker);
    b.extend_from_slice(&[0x45, 0, 0, 0]);
    fix_gtp_lengths(&mut b);
    assert_eq!(
        parse_datagram(&b),
        Err(WireError::EndMarkerWithPayload { offset: 36, len: 4 })
    );
}

#[test]
fn sack_blocks_follow_two_nops() {
    let mut pkt = tcp_syn_ack_example();
    let h = pkt.tcp_mut().unwrap();
    h.options = TcpOptions::default();
    h.options.push_sack(SackBlock {
        left: 0x1000,
        right: 0x2000,
    });
    h.options.push_sack(SackBlock {
        left: 0x3000,
        right: 0x4000,
    });
    let bytes = render(&pkt);
    assert_eq!(bytes[32] >> 4, 10, "data offset: 20 + 20 option bytes");
    assert_eq!(
        bytes[40..60],
        hex("01 01 05 12 00 00 10 00 00 00 20 00 00 00 30 00 00 00 40 00")[..]
    );
    assert_eq!(parse_datagram(&bytes).unwrap().to_packet(), pkt);
}

#[test]
fn write_appends_and_reuses_the_buffer() {
    let (a, b) = (udp_example(), tcp_syn_ack_example());
    let mut out = vec![0xEE];
    write_datagram(&a, &mut out).unwrap();
    write_datagram(&b, &mut out).unwrap();
    assert_eq!(out[0], 0xEE);
    assert_eq!(out[1..41], render(&a)[..]);
    assert_eq!(out[41..], render(&b)[..]);
    let cap = out.capacity();
    out.clear();
    write_datagram(&b, &mut out).unwrap();
    assert_eq!(
        out.capacity(),
        cap,
        "no reallocation when the buffer is large enough"
    );
}

#[test]
fn unencodable_packets_are_errors_and_append_nothing() {
    let mut out = Vec::new();
    let mut pkt = udp_example();
    pkt.payload_len = 65_535 - 28 + 1;
    assert_eq!(
        write_datagram(&pkt, &mut out),
        Err(WireError::DatagramTooLong { size_bytes: 65_536 })
    );
    pkt.payload_len = u32::MAX;
    assert!(matches!(
        write_datagram(&pkt, &mut out),
        Err(WireError::DatagramTooLong { .. })
    ));
    let mut pkt = udp_example();
    pkt.ip.dscp = 64;
    assert_eq!(
        write_datagram(&pkt, &mut out),
        Err(WireError::DscpOutOfRange { dscp: 64 })
    );
    let mut pkt = tcp_syn_ack_example();
    pkt.tcp_mut().unwrap().options.sack_len = 9;
    assert_eq!(
        write_datagram(&pkt, &mut out),
        Err(WireError::TooManySackBlocks { sack_len: 9 })
    );
    assert!(out.is_empty());
    // The largest datagram is fine.
    let mut pkt = udp_example();
    pkt.payload_len = 65_535 - 28;
    write_datagram(&pkt, &mut out).unwrap();
    assert_eq!(out.len(), 65_535);
    assert_eq!(parse_datagram(&out).unwrap().payload_len, 65_535 - 28);
}

#[test]
fn errors_name_the_defect_and_its_offset() {
    let good = render(&tcp_syn_ack_example());

    let mut b = good.clone();
    b[36] ^= 0x01; // TCP checksum 0xc1bc → 0xc0bc.
    let e = parse_datagram(&b).unwrap_err();
    assert_eq!(
        e,
        WireError::BadChecksum {
            layer: "TCP",
            offset: 36,
            found: 0xc0bc,
            expected: 0xc1bc
        }
    );
    assert_eq!(
        e.to_string(),
        "TCP checksum at offset 36 is 0xc0bc, expected 0xc1bc"
    );

    let mut b = good.clone();
    b[8] = 1; // TTL changed without fixing the header checksum.
    let e = parse_datagram(&b).unwrap_err();
    assert!(
        matches!(
            e,
            WireError::BadChecksum {
                layer: "IPv4 header",
                offset: 10,
                found: 0xf859,
                ..
            }
        ),
        "{e}"
    );

    let e = parse_datagram(&good[..50]).unwrap_err();
    assert_eq!(
        e,
        WireError::Truncated {
            what: "IPv4 datagram",
            offset: 0,
            needed: 64,
            available: 50
        }
    );
    assert_eq!(
        e.to_string(),
        "truncated IPv4 datagram: needs 64 bytes from offset 0, only 50 present"
    );

    let mut b = good.clone();
    b[0] = 0x65;
    assert_eq!(
        parse_datagram(&b),
        Err(WireError::BadVersion { version: 6 })
    );
    b[0] = 0x44;
    assert_eq!(parse_datagram(&b), Err(WireError::BadIhl { ihl: 4 }));

    // Data offset 4 words, with both checksums made right so that the field itself is blamed.
    let mut b = good.clone();
    b[32] = 0x40;
    fix_checksums(&mut b);
    assert!(matches!(
        parse_datagram(&b),
        Err(WireError::BadDataOffset {
            offset: 32,
            data_offset: 4,
            ..
        })
    ));

    // A window-scale option (at offset 49) claiming length 4.
    let mut b = good.clone();
    b[50] = 4;
    fix_checksums(&mut b);
    let e = parse_datagram(&b).unwrap_err();
    assert!(
        matches!(
            e,
            WireError::BadOption {
                offset: 49,
                kind: 3,
                ..
            }
        ),
        "{e}"
    );

    let mut b = render(&udp_example());
    b[25] = 0x13; // UDP length 0x0013 instead of 0x0014.
    assert_eq!(
        parse_datagram(&b),
        Err(WireError::BadUdpLength {
            offset: 24,
            udp_len: 0x13,
            expected: 20
        })
    );

    let mut b = good.clone();
    b[9] = 1; // ICMP
    fix_checksums(&mut b);
    assert_eq!(
        parse_datagram(&b),
        Err(WireError::UnsupportedProtocol { protocol: 1 })
    );

    let mut b = good;
    b[6] = 0x20; // MF
    fix_checksums(&mut b);
    assert_eq!(
        parse_datagram(&b),
        Err(WireError::Fragment {
            more_fragments: true,
            fragment_offset: 0
        })
    );
}

#[test]
fn udp_zero_checksum_means_none_and_trailing_bytes_are_padding() {
    let mut b = render(&udp_example());
    b[26..28].fill(0);
    b.extend_from_slice(&[0xAB; 6]);
    assert_eq!(parse_datagram(&b).unwrap().to_packet(), udp_example());
}

/// Recomputes the IPv4 header checksum and, when the lengths allow, the transport checksum, so
/// that tests reach the checks behind them.
fn fix_checksums(b: &mut [u8]) {
    if b.len() < 20 {
        return;
    }
    b[10..12].fill(0);
    let c = internet_checksum(&b[..20]);
    b[10..12].copy_from_slice(&c.to_be_bytes());
    let total = usize::from(u16::from_be_bytes([b[2], b[3]])).min(b.len());
    if total < 20 {
        return;
    }
    let field = match b[9] {
        PROTOCOL_TCP if total >= 40 => 36,
        PROTOCOL_UDP if total >= 28 => 26,
        _ => return,
    };
    b[field..field + 2].fill(0);
    let mut sum = Checksum::new();
    let src = Ipv4Addr::new(b[12], b[13], b[14], b[15]);
    let dst = Ipv4Addr::new(b[16], b[17], b[18], b[19]);
    sum.add_pseudo_header(src, dst, b[9], (total - 20) as u16);
    sum.add_bytes(&b[20..total]);
    b[field..field + 2].copy_from_slice(&sum.finish().to_be_bytes());
}

// ---------------------------------------------------------------- property tests

fn arb_ecn() -> impl Strategy<Value = Ecn> {
    prop_oneof![
        Just(Ecn::NotEct),
        Just(Ecn::Ect1),
        Just(Ecn::Ect0),
        Just(Ecn::Ce)
    ]
}

fn arb_ip() -> impl Strategy<Value = IpHeader> {
    (
        any::<u32>(),
        any::<u32>(),
        arb_ecn(),
        0u8..64,
        any::<u8>(),
        any::<u16>(),
    )
        .prop_map(|(src, dst, ecn, dscp, ttl, id)| IpHeader {
            src: Ipv4Addr::from(src),
            dst: Ipv4Addr::from(dst),
            ecn,
            dscp,
            ttl,
            id,
        })
}

/// Every combination of options that fits in 40 bytes, with 0 to 4 SACK blocks.
fn arb_options() -> impl Strategy<Value = TcpOptions> {
    (
        proptest::option::of(any::<u16>()),
        proptest::option::of(any::<u8>()),
        any::<bool>(),
        proptest::option::of(any::<(u32, u32)>()),
        proptest::collection::vec(any::<(u32, u32)>(), 0..=MAX_SACK_BLOCKS),
    )
        .prop_map(|(mss, window_scale, sack_permitted, timestamps, blocks)| {
            let mut o = TcpOptions {
                mss,
                window_scale,
                sack_permitted,
                timestamps,
                ..Default::default()
            };
            for (left, right) in blocks {
                o.push_sack(SackBlock { left, right });
            }
            o
        })
        .prop_filter("options must fit in 40 bytes", |o| {
            o.wire_len() as usize <= MAX_OPTIONS_LEN
        })
}

fn arb_packet() -> impl Strategy<Value = Packet> {
    let tcp = (
        any::<u16>(),
        any::<u16>(),
        any::<u32>(),
        any::<u32>(),
        any::<u8>(),
        any::<u16>(),
        arb_options(),
        any::<bool>(),
    )
        .prop_map(
            |(src_port, dst_port, seq, ack, flags, window, options, eln)| {
                Transport::Tcp(TcpHeader {
                    src_port,
                    dst_port,
                    seq,
                    ack,
                    flags: TcpFlags(flags),
                    window,
                    options,
                    eln,
                })
            },
        );
    let udp = (any::<u16>(), any::<u16>())
        .prop_map(|(src_port, dst_port)| Transport::Udp(UdpHeader { src_port, dst_port }));
    let message = prop_oneof![Just(GtpMessage::GPdu), Just(GtpMessage::EndMarker)];
    let interface = prop_oneof![Just(GtpInterface::S1u), Just(GtpInterface::X2u)];
    let tunnel = proptest::option::of((
        (any::<u32>(), any::<u32>(), any::<u32>(), arb_ecn()),
        message,
        interface,
        proptest::option::of(any::<u32>()),
    ))
    .prop_map(|t| {
        t.map(
            |((src, dst, teid, outer_ecn), message, interface, pdcp_count)| GtpTunnel {
                outer_src: Ipv4Addr::from(src),
                outer_dst: Ipv4Addr::from(dst),
                teid,
                outer_ecn,
                message,
                interface,
                pdcp_count,
            },
        )
    });
    (
        arb_ip(),
        prop_oneof![tcp, udp],
        0u32..=1500,
        any::<u64>(),
        tunnel,
    )
        .prop_map(|(ip, transport, payload_len, app_seq, tunnel)| {
            // Only a UDP payload of 8 bytes or more carries the application sequence number.
            let app_seq = match transport {
                Transport::Udp(_) if payload_len >= 8 => app_seq,
                _ => 0,
            };
            Packet {
                tunnel,
                ..packet(ip, transport, payload_len, app_seq)
            }
        })
}

fn is_udp_checksum_zeroed(bytes: &[u8]) -> bool {
    bytes[9] == PROTOCOL_UDP && bytes[26] == 0 && bytes[27] == 0
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn round_trip(pkt in arb_packet()) {
        let bytes = render(&pkt);
        prop_assert_eq!(bytes.len(), pkt.size_bytes() as usize);
        prop_assert_eq!(internet_checksum(&bytes[..20]), 0);
        let parsed = parse_datagram(&bytes).unwrap();
        prop_assert!(parsed.dont_fragment);
        prop_assert_eq!(u32::from(parsed.total_len), pkt.inner_size_bytes());
        prop_assert_eq!(parsed.to_packet(), as_read(&pkt));
        // What was read renders to the same bytes.
        prop_assert_eq!(render(&parsed.to_packet()), bytes);
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..120)) {
        let _ = parse_datagram(&bytes);
    }

    /// Random bytes behind a consistent IPv4 header and correct checksums reach the transport
    /// and option parsers; whatever parses must describe a datagram of the same length.
    #[test]
    fn random_segments_with_valid_checksums(
        tcp in any::<bool>(),
        mut bytes in proptest::collection::vec(any::<u8>(), 20..100),
    ) {
        let len = bytes.len() as u16;
        bytes[0] = 0x45;
        bytes[2..4].copy_from_slice(&len.to_be_bytes());
        bytes[6] &= 0x40;
        bytes[7] = 0;
        bytes[9] = if tcp { PROTOCOL_TCP } else { PROTOCOL_UDP };
        if !tcp && bytes.len() >= 28 {
            bytes[24..26].copy_from_slice(&(len - 20).to_be_bytes());
        }
        fix_checksums(&mut bytes);
        if let Ok(p) = parse_datagram(&bytes) {
            prop_assert_eq!(usize::from(p.total_len), bytes.len());
            let header = match p.transport { Transport::Tcp(_) => 20, Transport::Udp(_) => 8 };
            prop_assert!(p.payload_len as usize <= bytes.len() - 20 - header);
        }
    }

    #[test]
    fn truncations_are_errors(pkt in arb_packet(), cut in any::<prop::sample::Index>()) {
        let bytes = render(&pkt);
        let keep = cut.index(bytes.len());
        prop_assert!(parse_datagram(&bytes[..keep]).is_err());
    }

    /// The Internet checksum detects every single-bit error (a flip changes the ones'
    /// complement sum by ±2^k, never by a multiple of 0xffff), and every byte is covered by the
    /// IPv4 or the transport checksum. The one exception is a UDP checksum flipped to zero,
    /// which RFC 768 reads as "no checksum".
    #[test]
    fn single_bit_flips_are_detected(pkt in arb_packet(), at in any::<prop::sample::Index>(), bit in 0u8..8) {
        let mut bytes = render(&pkt);
        let i = at.index(bytes.len());
        bytes[i] ^= 1 << bit;
        let result = parse_datagram(&bytes);
        if !is_udp_checksum_zeroed(&bytes) {
            prop_assert!(result.is_err(), "flip of bit {} at {} went unnoticed", bit, i);
        }
    }

    #[test]
    fn many_bit_flips_never_panic(
        pkt in arb_packet(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        refix in any::<bool>(),
    ) {
        let mut bytes = render(&pkt);
        for (at, mask) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= mask;
        }
        if refix {
            fix_checksums(&mut bytes);
        }
        let _ = parse_datagram(&bytes);
    }
}
