//! Snoop driven packet by packet: each rule of `snoop_data`, `snoop_ack` and the local timer
//! (Balakrishnan et al. 1995) on crafted segments between a fixed host and a mobile one.

use std::net::Ipv4Addr;

use celltcp_engine::{RngStream, SimDuration, SimTime};
use celltcp_net::middlebox::{Middlebox, MiddleboxCtx};
use celltcp_net::packet::FlowId;
use celltcp_net::packet::{
    Ecn, IpHeader, Packet, TcpFlags, TcpHeader, TcpOptions, Transport, UdpHeader,
};
use celltcp_net::trace::Traces;

use super::*;

const FIXED: (Ipv4Addr, u16) = (Ipv4Addr::new(10, 0, 0, 1), 80);
const MOBILE: (Ipv4Addr, u16) = (Ipv4Addr::new(10, 0, 0, 3), 40_000);
const MSS: u32 = 1000;

/// A Snoop agent with a clock, its context and the packets it emitted.
struct Bench {
    snoop: Snoop,
    now: SimTime,
    rng: RngStream,
    traces: Traces,
    /// Initial sequence numbers: data from the fixed host, ACKs from the mobile.
    iss: u32,
}

fn cfg() -> SnoopConfig {
    SnoopConfig {
        mobile: vec![MOBILE.0],
        ..SnoopConfig::default()
    }
}

impl Bench {
    fn new(cfg: SnoopConfig, iss: u32) -> Self {
        Bench {
            snoop: Snoop::new("snoop", cfg).unwrap(),
            now: SimTime::ZERO,
            rng: RngStream::new(1, 0, "snoop"),
            traces: Traces::new(&[]),
            iss,
        }
    }

    fn at_ms(&mut self, ms: u64) -> &mut Self {
        self.now = SimTime::ZERO + SimDuration::from_ms(ms);
        self
    }

    /// Hands `pkt` to the agent: what it forwards and what it emitted.
    fn pass(&mut self, pkt: Packet) -> (Option<Packet>, Vec<Packet>) {
        let mut out = Vec::new();
        let mut ctx = MiddleboxCtx {
            now: self.now,
            out: &mut out,
            rng: &mut self.rng,
            traces: &mut self.traces,
        };
        let kept = self.snoop.on_forward(pkt, &mut ctx);
        (kept, out)
    }

    /// Runs the timers due now; returns what they emitted.
    fn fire(&mut self) -> Vec<Packet> {
        let mut out = Vec::new();
        let mut ctx = MiddleboxCtx {
            now: self.now,
            out: &mut out,
            rng: &mut self.rng,
            traces: &mut self.traces,
        };
        self.snoop.on_timer(&mut ctx);
        out
    }

    /// Segment `k` (MSS bytes at offset 1 + k·MSS) from the fixed host.
    fn seg(&self, k: u32) -> Packet {
        tcp(
            FIXED,
            MOBILE,
            self.iss.wrapping_add(1 + k * MSS),
            1,
            MSS,
            TcpFlags::ACK,
        )
    }

    /// The mobile's ACK asking for segment `k`, with window field 500.
    fn ack(&self, k: u32) -> Packet {
        tcp(
            MOBILE,
            FIXED,
            1,
            self.iss.wrapping_add(1 + k * MSS),
            0,
            TcpFlags::ACK,
        )
    }

    /// Forwards segments `from..to` and checks each passes unchanged.
    fn send(&mut self, from: u32, to: u32) {
        for k in from..to {
            let p = self.seg(k);
            assert_eq!(self.pass(p), (Some(p), vec![]), "segment {k}");
        }
    }
}

fn tcp(
    src: (Ipv4Addr, u16),
    dst: (Ipv4Addr, u16),
    seq: u32,
    ack: u32,
    payload_len: u32,
    flags: TcpFlags,
) -> Packet {
    Packet {
        uid: 0,
        flow: FlowId(0),
        ip: IpHeader {
            src: src.0,
            dst: dst.0,
            ecn: Ecn::NotEct,
            dscp: 0,
            ttl: 63,
            id: 0,
        },
        transport: Transport::Tcp(TcpHeader {
            src_port: src.1,
            dst_port: dst.1,
            seq,
            ack,
            flags,
            window: 500,
            options: TcpOptions::default(),
            eln: false,
        }),
        payload_len,
        app_seq: 0,
        created_at: SimTime::ZERO,
        tunnel: None,
    }
}

fn seq_of(p: &Packet) -> u32 {
    p.tcp().unwrap().seq
}

#[test]
fn new_segments_are_cached_and_new_acks_free_them() {
    let mut b = Bench::new(cfg(), 0);
    b.send(0, 4);
    assert_eq!(
        (b.snoop.stats().segments_cached, b.snoop.open_connections()),
        (4, 1)
    );
    // The mobile acknowledges two segments 12 ms later: the ACK goes on, the sample is 12 ms.
    b.at_ms(12);
    let a = b.ack(2);
    assert_eq!(b.pass(a), (Some(a), vec![]));
    assert_eq!(
        b.snoop.wireless_srtt(FIXED, MOBILE),
        Some(SimDuration::from_ms(12))
    );
    // The timer runs while segments 2 and 3 are cached: RTO = 12 + 4·6 = 36 ms, floored at
    // min_rto = 50 ms, from this ACK on.
    assert_eq!(
        b.snoop.poll_timeout(),
        Some(b.now + SimDuration::from_ms(50))
    );
    let a = b.ack(4);
    assert_eq!(b.pass(a).0, Some(a));
    assert_eq!(b.snoop.poll_timeout(), None, "nothing cached, no timer");
}

#[test]
fn the_first_duplicate_ack_retransmits_locally_and_all_are_suppressed() {
    let mut b = Bench::new(cfg(), 0);
    b.send(0, 6);
    b.at_ms(5);
    let a = b.ack(1);
    b.pass(a);
    // Segment 1 was lost on the radio hop: the mobile repeats its ACK for each later segment.
    b.at_ms(6);
    let (kept, out) = b.pass(b.ack(1));
    assert_eq!(kept, None, "the first duplicate ACK is absorbed");
    assert_eq!(out.len(), 1);
    assert_eq!(seq_of(&out[0]), 1 + MSS);
    assert_eq!(out[0].payload_len, MSS);
    assert!(
        b.snoop.expedite(&out[0]),
        "local retransmissions go ahead of the queue"
    );
    for _ in 0..3 {
        assert_eq!(b.pass(b.ack(1)), (None, vec![]), "once per loss");
    }
    let s = *b.snoop.stats();
    assert_eq!(
        (s.local_retransmissions, s.cache_hits, s.dupacks_suppressed),
        (1, 1, 4)
    );
    assert_eq!(s.dupacks_passed, 0);
    // The repair arrives: the ACK jumps and is forwarded; a later loss is repaired again.
    b.at_ms(9);
    let a = b.ack(6);
    assert_eq!(b.pass(a).0, Some(a));
    b.send(6, 9);
    let a = b.ack(7);
    b.pass(a);
    let (kept, out) = b.pass(b.ack(7));
    assert_eq!((kept, out.len()), (None, 1));
    assert_eq!(seq_of(&out[0]), 1 + 7 * MSS);
}

#[test]
fn more_duplicates_than_expected_mean_the_local_retransmission_was_lost() {
    let mut b = Bench::new(cfg(), 0);
    b.send(0, 6);
    let a = b.ack(1);
    b.pass(a);
    // Segments 2..5 were in flight beyond the hole: four duplicate ACKs are expected.
    let (_, out) = b.pass(b.ack(1));
    assert_eq!(out.len(), 1);
    for _ in 0..3 {
        assert_eq!(b.pass(b.ack(1)), (None, vec![]));
    }
    // Segment 6 was sent after the retransmission; its duplicate ACK shows that the
    // retransmission did not arrive: segment 1 goes again. Every segment sent before this
    // second retransmission (2..6) has now answered.
    b.send(6, 7);
    let (kept, out) = b.pass(b.ack(1));
    assert_eq!((kept, out.len()), (None, 1));
    assert_eq!(seq_of(&out[0]), 1 + MSS);
    // Segment 7, sent after the second retransmission, arrives first: lost again.
    b.send(7, 8);
    assert_eq!(b.pass(b.ack(1)).1.len(), 1);
    assert_eq!(b.snoop.stats().local_retransmissions, 3);
    assert_eq!(b.snoop.stats().dupacks_suppressed, 6);
}

#[test]
fn a_new_ack_short_of_segments_that_arrived_reveals_a_second_hole() {
    let mut b = Bench::new(cfg(), 0);
    b.send(0, 8);
    let a = b.ack(1);
    b.pass(a);
    // Segments 1 and 4 were lost: 2, 3, 5, 6, 7 arrive, each with a duplicate ACK for 1.
    for _ in 0..5 {
        b.pass(b.ack(1));
    }
    assert_eq!(b.snoop.stats().local_retransmissions, 1);
    // The repair of 1 makes the mobile ask for 4. Two of the five duplicates came from 2
    // and 3; the other three from segments beyond 4: segment 4 is missing too.
    let a = b.ack(4);
    let (kept, out) = b.pass(a);
    assert_eq!(kept, Some(a), "the new ACK itself goes on");
    assert_eq!(out.len(), 1);
    assert_eq!(seq_of(&out[0]), 1 + 4 * MSS);
    assert_eq!(b.snoop.stats().partial_ack_retransmissions, 1);
    // Those three are the duplicates segment 4's retransmission expects (from 5, 6 and 7):
    // one caused by segment 8, sent after it, shows that the retransmission was lost.
    b.send(8, 9);
    let (kept, out) = b.pass(b.ack(4));
    assert_eq!((kept, out.len()), (None, 1));
    assert_eq!(seq_of(&out[0]), 1 + 4 * MSS);
    // Without surplus duplicates a new ACK retransmits nothing: 4 repaired, the mobile asks
    // for 9, which was never sent.
    let a = b.ack(9);
    assert_eq!(b.pass(a), (Some(a), vec![]));
    assert_eq!(b.snoop.stats().partial_ack_retransmissions, 1);
}

#[test]
fn sack_blocks_of_a_hole_repaired_locally_are_removed() {
    use celltcp_net::packet::SackBlock;
    let mut b = Bench::new(cfg(), 0);
    b.send(0, 6);
    // The mobile got 0, lost 1, got 2..5: with SACK its new ACK for 1 reports 2..6.
    let mut a = b.ack(1);
    a.tcp_mut().unwrap().options.push_sack(SackBlock {
        left: 1 + 2 * MSS,
        right: 1 + 6 * MSS,
    });
    let (kept, out) = b.pass(a);
    let kept = kept.unwrap();
    assert_eq!(
        kept.tcp().unwrap().options.sack_len,
        0,
        "the sender must not see the hole"
    );
    assert_eq!(kept.tcp().unwrap().ack, 1 + MSS);
    assert_eq!(out.len(), 1);
    assert_eq!(seq_of(&out[0]), 1 + MSS);
    assert_eq!(b.snoop.stats().sack_blocks_removed, 1);
    // SACK blocks of a hole the agent cannot fill (segment 7 never reached it) stay.
    b.send(8, 9);
    let a = b.ack(6);
    b.pass(a);
    let mut a = b.ack(7);
    a.tcp_mut().unwrap().options.push_sack(SackBlock {
        left: 1 + 8 * MSS,
        right: 1 + 9 * MSS,
    });
    let (kept, out) = b.pass(a);
    assert_eq!(kept, Some(a));
    assert!(out.is_empty());
}

#[test]
fn a_duplicate_ack_for_a_segment_lost_upstream_goes_to_the_sender() {
    let mut b = Bench::new(cfg(), 0);
    // Segment 1 never reached the base station (congestion upstream).
    b.send(0, 1);
    b.send(2, 5);
    let a = b.ack(1);
    b.pass(a);
    let d = b.ack(1);
    assert_eq!(b.pass(d), (Some(d), vec![]));
    let s = *b.snoop.stats();
    assert_eq!(
        (s.cache_misses, s.dupacks_passed, s.local_retransmissions),
        (1, 1, 0)
    );
    // The sender's fast retransmission fills the gap; it is cached as retransmitted by the
    // sender, so the duplicate ACKs still in flight go on to the sender too.
    let r = b.seg(1);
    assert_eq!(b.pass(r), (Some(r), vec![]));
    assert_eq!(b.pass(d), (Some(d), vec![]));
    assert_eq!(b.snoop.stats().sender_retransmissions, 1);
    assert_eq!(b.snoop.stats().cache_misses, 1);
}

#[test]
fn a_retransmission_of_acknowledged_data_is_answered_with_the_last_ack() {
    let mut b = Bench::new(cfg(), 0);
    b.send(0, 3);
    let a = b.ack(3);
    b.pass(a);
    // The sender's timer fired (the ACK was lost upstream): the mobile has segment 1 already.
    b.at_ms(300);
    let (kept, out) = b.pass(b.seg(1));
    assert_eq!(kept, None);
    assert_eq!(out.len(), 1);
    let h = out[0].tcp().unwrap();
    assert_eq!(
        (out[0].ip.src, h.src_port, h.ack),
        (MOBILE.0, MOBILE.1, 1 + 3 * MSS)
    );
    assert!(!b.snoop.expedite(&out[0]));
    assert_eq!(b.snoop.stats().acks_generated, 1);
}

#[test]
fn old_acks_are_dropped_and_window_updates_pass() {
    let mut b = Bench::new(cfg(), 0);
    b.send(0, 4);
    let a = b.ack(3);
    b.pass(a);
    assert_eq!(b.pass(b.ack(2)), (None, vec![]));
    assert_eq!(b.snoop.stats().old_acks_dropped, 1);
    // Same ACK number with another window: a window update, not a duplicate.
    let mut w = b.ack(3);
    w.tcp_mut().unwrap().window = 800;
    assert_eq!(b.pass(w), (Some(w), vec![]));
    // An ACK carrying data from the mobile is never absorbed.
    let mut d = b.ack(3);
    d.tcp_mut().unwrap().window = 800;
    d.payload_len = 100;
    assert_eq!(b.pass(d), (Some(d), vec![]));
    assert_eq!(b.snoop.stats().dupacks_suppressed, 0);
}

#[test]
fn the_local_timer_retransmits_the_oldest_segment_with_backoff() {
    let mut b = Bench::new(cfg(), 0);
    b.send(0, 2);
    // No sample yet: the initial local RTO (200 ms) from the first segment.
    assert_eq!(
        b.snoop.poll_timeout(),
        Some(SimTime::ZERO + INITIAL_LOCAL_RTO)
    );
    b.at_ms(200);
    let out = b.fire();
    assert_eq!(out.len(), 1);
    assert_eq!(seq_of(&out[0]), 1);
    assert_eq!(
        b.snoop.poll_timeout(),
        Some(b.now + SimDuration::from_ms(400))
    );
    b.at_ms(600);
    assert_eq!(b.fire().len(), 1);
    assert_eq!(
        b.snoop.poll_timeout(),
        Some(b.now + SimDuration::from_ms(800))
    );
    b.at_ms(1400);
    b.fire();
    // Capped at MAX_LOCAL_RTO.
    assert_eq!(b.snoop.poll_timeout(), Some(b.now + MAX_LOCAL_RTO));
    let s = *b.snoop.stats();
    assert_eq!((s.local_timeouts, s.local_retransmissions), (3, 3));
    // Duplicate ACKs for the segment the timer resent are absorbed without another copy.
    let a = b.ack(0);
    b.pass(a);
    assert_eq!(b.pass(b.ack(0)), (None, vec![]));
    // A new ACK clears the backoff; segment 0 was resent, so no sample (Karn).
    b.at_ms(1500);
    let a = b.ack(1);
    b.pass(a);
    assert_eq!(b.snoop.wireless_srtt(FIXED, MOBILE), None);
    assert_eq!(b.snoop.poll_timeout(), Some(b.now + INITIAL_LOCAL_RTO));
}

#[test]
fn the_timer_does_not_resend_past_a_hole_it_cannot_fill() {
    let mut b = Bench::new(cfg(), 0);
    b.send(0, 1);
    b.send(2, 4);
    let a = b.ack(1);
    b.pass(a);
    b.at_ms(400);
    assert!(b.fire().is_empty(), "segment 1 is not cached");
    assert_eq!(b.snoop.poll_timeout(), None);
}

#[test]
fn a_full_cache_forwards_without_caching() {
    let mut b = Bench::new(
        SnoopConfig {
            cache_packets: 2,
            ..cfg()
        },
        0,
    );
    b.send(0, 4);
    let s = *b.snoop.stats();
    assert_eq!((s.segments_cached, s.cache_full), (2, 2));
    let a = b.ack(2);
    b.pass(a);
    let d = b.ack(2);
    assert_eq!(b.pass(d), (Some(d), vec![]), "segment 2 was not cached");
    assert_eq!(b.snoop.stats().cache_misses, 1);
}

#[test]
fn state_ends_with_the_acknowledged_fin_or_a_reset() {
    let mut b = Bench::new(cfg(), 0);
    b.send(0, 2);
    let fin = tcp(
        FIXED,
        MOBILE,
        1 + 2 * MSS,
        1,
        0,
        TcpFlags::FIN | TcpFlags::ACK,
    );
    assert_eq!(b.pass(fin).0, Some(fin));
    let a = tcp(MOBILE, FIXED, 1, 2 + 2 * MSS, 0, TcpFlags::ACK);
    b.pass(a);
    assert_eq!(b.snoop.open_connections(), 0);
    b.send(0, 2);
    assert_eq!(b.snoop.open_connections(), 1);
    let rst = tcp(MOBILE, FIXED, 1, 0, 0, TcpFlags::RST);
    assert_eq!(b.pass(rst).0, Some(rst));
    assert_eq!(b.snoop.open_connections(), 0);
    assert_eq!(b.snoop.stats().connections, 2);
}

#[test]
fn other_traffic_passes_untouched() {
    let mut b = Bench::new(cfg(), 0);
    let other = (Ipv4Addr::new(10, 0, 0, 9), 80);
    let fixed_to_fixed = tcp(FIXED, other, 1, 1, MSS, TcpFlags::ACK);
    let mut udp = fixed_to_fixed;
    udp.ip.dst = MOBILE.0;
    udp.transport = Transport::Udp(UdpHeader {
        src_port: 1,
        dst_port: 2,
    });
    let syn = tcp(FIXED, MOBILE, 0, 0, 0, TcpFlags::SYN);
    let upload = tcp(MOBILE, FIXED, 1, 1, MSS, TcpFlags::ACK);
    for p in [fixed_to_fixed, udp, syn, upload] {
        assert_eq!(b.pass(p), (Some(p), vec![]));
    }
    assert_eq!(b.snoop.open_connections(), 0);
}

#[test]
fn sequence_numbers_wrap() {
    // The data of the connection crosses 2^32 at segment 2.
    let mut b = Bench::new(cfg(), u32::MAX - 2 * MSS);
    b.send(0, 5);
    let a = b.ack(2);
    b.pass(a);
    let (kept, out) = b.pass(b.ack(2));
    assert_eq!((kept, out.len()), (None, 1));
    assert_eq!(seq_of(&out[0]), b.iss.wrapping_add(1 + 2 * MSS));
    let a = b.ack(5);
    assert_eq!(b.pass(a).0, Some(a));
    assert_eq!(b.snoop.poll_timeout(), None);
}

#[test]
fn bad_configurations_name_the_key() {
    let e = Snoop::new("s", SnoopConfig::default()).err().unwrap();
    assert!(e.to_string().starts_with("mobile:"), "{e}");
    let e = Snoop::new(
        "s",
        SnoopConfig {
            cache_packets: 0,
            ..cfg()
        },
    )
    .err()
    .unwrap();
    assert!(e.to_string().starts_with("cache:"), "{e}");
    let e = Snoop::new(
        "s",
        SnoopConfig {
            min_rto: SimDuration::from_secs(2),
            ..cfg()
        },
    )
    .err()
    .unwrap();
    assert!(e.to_string().starts_with("min_rto:"), "{e}");
}

#[test]
fn the_report_names_every_figure() {
    let b = Bench::new(cfg(), 0);
    let names: Vec<String> = b
        .snoop
        .report(SimTime::ZERO)
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert!(names.contains(&"local_retransmissions".to_string()));
    assert!(names.contains(&"dupacks_suppressed".to_string()));
    assert!(
        names.contains(&"cache_hits".to_string()) && names.contains(&"cache_misses".to_string())
    );
    assert_eq!(b.snoop.name(), "snoop");
}
