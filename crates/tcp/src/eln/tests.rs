//! ELN at both ends: the base station's marker on crafted segments, and the sender's reaction
//! (no reduction on a fast retransmit or timeout for a marked hole) on an endpoint fed crafted
//! ACKs through the test harness.

use std::net::Ipv4Addr;

use celltcp_engine::{RngStream, SimTime};
use celltcp_net::middlebox::{Middlebox, MiddleboxCtx};
use celltcp_net::packet::FlowId;
use celltcp_net::packet::{Ecn, IpHeader, Packet, TcpFlags, TcpHeader, TcpOptions, Transport};
use celltcp_net::trace::Traces;

use super::*;
use crate::recovery::RecoveryPhase;
use crate::seq::SeqNum;
use crate::tests::{cfg, secs, Dir, Fate, Harness, MSS};
use crate::TcpConfig;

const SERVER: (Ipv4Addr, u16) = (Ipv4Addr::new(10, 0, 0, 1), 80);
const UE: (Ipv4Addr, u16) = (Ipv4Addr::new(10, 0, 0, 3), 40_000);

fn tcp(src: (Ipv4Addr, u16), dst: (Ipv4Addr, u16), seq: u32, ack: u32, len: u32) -> Packet {
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
            flags: TcpFlags::ACK,
            window: 100,
            options: TcpOptions::default(),
            eln: false,
        }),
        payload_len: len,
        app_seq: 0,
        created_at: SimTime::ZERO,
        tunnel: None,
    }
}

/// Data segment `k` of 1000 bytes from the server, and the UE's ACK asking for segment `k`.
fn data(k: u32) -> Packet {
    tcp(SERVER, UE, 1 + 1000 * k, 1, 1000)
}
fn ack(k: u32) -> Packet {
    tcp(UE, SERVER, 1, 1 + 1000 * k, 0)
}

struct Bench {
    marker: ElnMarker,
    rng: RngStream,
    traces: Traces,
}

impl Bench {
    fn new(holes: u32) -> Self {
        Bench {
            marker: ElnMarker::new(
                "eln",
                ElnConfig {
                    holes_per_connection: holes,
                },
            )
            .unwrap(),
            rng: RngStream::new(1, 0, "eln"),
            traces: Traces::new(&[]),
        }
    }

    fn ctx<'a>(
        out: &'a mut Vec<Packet>,
        rng: &'a mut RngStream,
        traces: &'a mut Traces,
    ) -> MiddleboxCtx<'a> {
        MiddleboxCtx {
            now: SimTime::ZERO,
            out,
            rng,
            traces,
        }
    }

    /// Forwards `p`; returns whether it carries the ELN mark (the marker never absorbs).
    fn marked(&mut self, p: Packet) -> bool {
        let mut out = Vec::new();
        let mut ctx = Self::ctx(&mut out, &mut self.rng, &mut self.traces);
        let kept = self.marker.on_forward(p, &mut ctx).expect("never absorbed");
        assert!(out.is_empty());
        kept.tcp().unwrap().eln
    }

    fn lose(&mut self, p: Packet) {
        let mut out = Vec::new();
        let mut ctx = Self::ctx(&mut out, &mut self.rng, &mut self.traces);
        self.marker.on_link_loss(&p, &mut ctx);
    }
}

#[test]
fn acks_asking_for_a_radio_loss_are_marked_until_it_is_repaired() {
    let mut b = Bench::new(64);
    for k in 0..6 {
        assert!(!b.marked(data(k)));
    }
    b.lose(data(2));
    b.lose(data(2)); // reported twice: one hole
    assert!(!b.marked(ack(1)), "an ACK below the hole");
    assert!(b.marked(ack(2)), "the first ACK reaching the hole");
    assert!(b.marked(ack(2)) && b.marked(ack(2)), "its duplicates");
    assert!(!b.marked(ack(6)), "the repaired hole");
    assert!(!b.marked(ack(2)), "forgotten once passed");
    assert_eq!(b.marker.holes(), 0);
    let s = *b.marker.stats();
    assert_eq!((s.losses_recorded, s.acks_marked), (1, 3));
}

#[test]
fn a_retransmission_passing_the_station_clears_the_hole() {
    let mut b = Bench::new(64);
    b.lose(data(3));
    assert!(b.marked(ack(3)));
    // The sender's retransmission goes towards the UE: if it is dropped in the station's queue
    // (congestion), the ACKs asking for it again must not be marked.
    assert!(!b.marked(data(3)));
    assert!(!b.marked(ack(3)));
    assert_eq!(b.marker.stats().holes_retransmitted, 1);
    // Lost on the radio again: marked again.
    b.lose(data(3));
    assert!(b.marked(ack(3)));
}

#[test]
fn only_the_connection_of_the_loss_is_marked() {
    let mut b = Bench::new(2);
    b.lose(data(1));
    let other = tcp(UE, (SERVER.0, 81), 1, 1 + 1000, 0);
    assert!(!b.marked(other));
    // A data segment towards the server is not an ACK of this connection's data.
    let upload = tcp(UE, SERVER, 1, 1, 500);
    let mut pure = upload;
    pure.tcp_mut().unwrap().flags = TcpFlags::default();
    assert!(!b.marked(pure));
    // Eviction: three holes, room for two; the oldest goes.
    b.lose(data(5));
    b.lose(data(7));
    assert_eq!(b.marker.stats().holes_evicted, 1);
    assert!(!b.marked(ack(1)));
    assert!(b.marked(ack(5)));
    assert!(ElnMarker::new(
        "e",
        ElnConfig {
            holes_per_connection: 0
        }
    )
    .is_err());
}

/// A sender whose segments after the first are all lost; the first has been acknowledged.
/// Returns the harness and the receiver's ACK of segment 0 (a template for crafted ACKs).
fn stalled(eln: bool) -> (Harness, Packet) {
    let c = TcpConfig {
        sack: false,
        timestamps: false,
        limited_transmit: false,
        eln,
        ..cfg()
    };
    let mut h = Harness::new(c, c);
    let iss = c.isn;
    h.rule = Box::new(move |_, dir, p: &Packet| {
        let first = p.tcp().unwrap().seq.wrapping_sub(iss) == 1;
        if dir == Dir::AtoB && p.payload_len > 0 && !first {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    h.handshake();
    h.to_write = 40 * MSS;
    assert!(h.run_until(secs(5), |h| h.a.bytes_acked() >= MSS));
    let template = h
        .sent
        .iter()
        .rev()
        .find(|(_, d, p)| *d == Dir::BtoA && p.payload_len == 0)
        .unwrap()
        .2;
    (h, template)
}

/// Feeds A an ACK of `ack_offset` (relative to A's ISN), marked or not; returns what A sends.
fn feed(h: &mut Harness, template: Packet, ack_offset: u64, eln: bool) -> Vec<Packet> {
    let mut p = template;
    let t = p.tcp_mut().unwrap();
    t.ack = SeqNum::from_offset(h.a.iss(), ack_offset).0;
    t.eln = eln;
    h.a.on_segment(h.now, &p, &mut h.traces);
    let mut out = Vec::new();
    while let Some(x) = h.a.poll_transmit(h.now, &mut h.traces) {
        out.push(x);
    }
    out
}

fn offset(h: &Harness, p: &Packet) -> u64 {
    p.tcp().unwrap().seq.wrapping_sub(h.a.iss()) as u64
}

/// Three duplicate ACKs for segment 1 (marked or not), then a full ACK. Returns cwnd and
/// ssthresh before, right after the fast retransmit, and after the full ACK.
fn fast_retransmit(eln_cfg: bool, marked: bool) -> [(u64, u64); 3] {
    let (mut h, template) = stalled(eln_cfg);
    let hole = 1 + MSS;
    let before = (h.a.cc().cwnd(), h.a.cc().ssthresh());
    let mut sent = Vec::new();
    for _ in 0..3 {
        sent = feed(&mut h, template, hole, marked);
    }
    // The third duplicate retransmits the hole at once.
    assert_eq!(offset(&h, &sent[0]), hole);
    assert_eq!(h.a.recovery_phase(), RecoveryPhase::FastRecovery);
    let during = (h.a.cc().cwnd(), h.a.cc().ssthresh());
    let all = h.a.send_window().nxt();
    feed(&mut h, template, all, false);
    assert_eq!(h.a.recovery_phase(), RecoveryPhase::Open);
    let s = h.a.stats();
    assert_eq!(s.fast_recoveries, 1);
    assert_eq!(s.eln_recoveries, (eln_cfg && marked) as u64);
    assert_eq!(s.eln_acks_received, if marked { 3 } else { 0 });
    [before, during, (h.a.cc().cwnd(), h.a.cc().ssthresh())]
}

#[test]
fn a_marked_fast_retransmit_keeps_cwnd_and_ssthresh() {
    let [before, during, after] = fast_retransmit(true, true);
    assert_eq!(before.1, u64::MAX, "still in slow start");
    assert_eq!(during, before);
    // No reduction, so no recovery exit either (the test controller would set cwnd to
    // ssthresh there).
    assert_eq!(after, before);
}

#[test]
fn without_the_mark_or_the_setting_the_window_is_halved() {
    for (eln_cfg, marked) in [(true, false), (false, true)] {
        let [before, during, after] = fast_retransmit(eln_cfg, marked);
        assert!(
            during.1 < before.0,
            "{eln_cfg} {marked}: {during:?} vs {before:?}"
        );
        assert_eq!(after.0, during.1, "cwnd = ssthresh at the exit");
    }
}

#[test]
fn a_timeout_for_a_marked_hole_retransmits_without_collapsing_the_window() {
    for marked in [true, false] {
        let (mut h, template) = stalled(true);
        let hole = 1 + MSS;
        feed(&mut h, template, hole, marked);
        let (cwnd, rto) = (h.a.cc().cwnd(), h.a.rto());
        h.now = h.a.poll_timeout().unwrap();
        h.a.on_timeout(h.now, &mut h.traces);
        let mut out = Vec::new();
        while let Some(x) = h.a.poll_transmit(h.now, &mut h.traces) {
            out.push(x);
        }
        assert_eq!(offset(&h, &out[0]), hole);
        assert_eq!(h.a.rto().0, rto.0 * 2, "RFC 6298 §5.5 backoff either way");
        let s = h.a.stats();
        assert_eq!(s.timeouts, 1);
        if marked {
            assert_eq!((h.a.cc().cwnd(), h.a.cc().ssthresh()), (cwnd, u64::MAX));
            assert_eq!((s.eln_timeouts, s.eln_recoveries), (1, 1));
            assert_eq!(h.a.recovery_phase(), RecoveryPhase::FastRecovery);
        } else {
            assert_eq!(
                h.a.cc().cwnd(),
                MSS,
                "RFC 5681 §3.1: loss window of one segment"
            );
            assert_eq!(s.eln_timeouts, 0);
        }
    }
}
