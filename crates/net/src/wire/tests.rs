//! Datagram-level tests: hand-checked renderings, round trips and corrupt input.

use std::net::Ipv4Addr;

use celltcp_engine::SimTime;
use proptest::prelude::*;

use super::*;
use crate::packet::{
    Ecn, GtpTunnel, IpHeader, Packet, SackBlock, TcpFlags, TcpHeader, TcpOptions, Transport,
    UdpHeader, MAX_SACK_BLOCKS,
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
        flow: 0,
        ip,
        transport,
        payload_len,
        app_seq,
        created_at: SimTime::ZERO,
        tunnel: None,
    }
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
    )
        .prop_map(|(src_port, dst_port, seq, ack, flags, window, options)| {
            Transport::Tcp(TcpHeader {
                src_port,
                dst_port,
                seq,
                ack,
                flags: TcpFlags(flags),
                window,
                options,
            })
        });
    let udp = (any::<u16>(), any::<u16>())
        .prop_map(|(src_port, dst_port)| Transport::Udp(UdpHeader { src_port, dst_port }));
    let tunnel = proptest::option::of((any::<u32>(), any::<u32>(), any::<u32>(), arb_ecn()))
        .prop_map(|t| {
            t.map(|(src, dst, teid, outer_ecn)| GtpTunnel {
                outer_src: Ipv4Addr::from(src),
                outer_dst: Ipv4Addr::from(dst),
                teid,
                outer_ecn,
            })
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
        prop_assert_eq!(parsed.to_packet(), pkt);
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
