//! RFC 5681 §4.2 / RFC 9293 §3.8.6.3 delayed ACKs.

use celltcp_engine::SimDuration;
use celltcp_net::packet::TcpFlags;

use super::*;

fn delack_cfg() -> TcpConfig {
    TcpConfig {
        delayed_ack: Some(SimDuration::from_ms(40)),
        delack_segments: 2,
        ..cfg()
    }
}

#[test]
fn one_ack_per_two_full_segments() {
    let c = delack_cfg();
    let mut h = Harness::new(c, c);
    h.handshake();
    let before = h.acks_from_b();
    assert!(h.transfer(200_000, secs(30)));
    h.run_until(secs(31), |h| h.a.all_acked());
    let acks = h.acks_from_b() - before;
    // 200 segments → about 100 ACKs (a few more when a flight ends on an odd segment).
    assert!((100..=115).contains(&acks), "{acks}");
}

#[test]
fn ack_every_segment_with_delack_segments_one_or_no_delay() {
    for c in [
        TcpConfig {
            delack_segments: 1,
            ..delack_cfg()
        },
        cfg(),
    ] {
        let mut h = Harness::new(c, c);
        h.handshake();
        let before = h.acks_from_b();
        assert!(h.transfer(50_000, secs(30)));
        h.run_until(secs(31), |h| h.a.all_acked());
        assert_eq!(h.acks_from_b() - before, 50);
    }
}

#[test]
fn lone_segment_is_acked_when_the_timer_fires() {
    let c = delack_cfg();
    let mut h = Harness::new(c, c);
    h.handshake();
    h.to_write = 500;
    h.run_until(secs(5), |h| h.a.bytes_acked() == 500);
    let data_at = h
        .sent
        .iter()
        .find(|(_, d, p)| *d == Dir::AtoB && p.payload_len > 0)
        .unwrap()
        .0;
    let ack_at = h
        .sent
        .iter()
        .filter(|(t, d, _)| *d == Dir::BtoA && *t > data_at)
        .map(|x| x.0)
        .next()
        .unwrap();
    // Arrival after the 50 ms path, ACK 40 ms later.
    assert_eq!(ack_at - data_at, SimDuration::from_ms(90));
}

#[test]
fn out_of_order_and_hole_filling_segments_are_acked_at_once() {
    let c = delack_cfg();
    let mut h = Harness::new(c, c);
    h.rule = drop_first(vec![seg(4)], c.isn);
    h.handshake();
    assert!(h.transfer(30_000, secs(30)));
    // Every segment above the hole produced its own duplicate ACK immediately on arrival.
    let arrivals_above: Vec<SimTime> = h
        .sent
        .iter()
        .filter(|(_, d, p)| *d == Dir::AtoB && p.payload_len > 0)
        .filter(|(_, _, p)| {
            let off = p.tcp().unwrap().seq.wrapping_sub(c.isn) as u64;
            off > seg(4) && off < seg(12)
        })
        .map(|(t, _, _)| *t + h.delay)
        .collect();
    for t in arrivals_above.iter().take(4) {
        assert!(h
            .sent
            .iter()
            .any(|(ts, d, p)| *d == Dir::BtoA && ts == t && p.tcp().unwrap().options.sack_len > 0));
    }
    assert_eq!(h.a.stats().timeouts, 0);
}

#[test]
fn fin_is_acked_immediately() {
    let c = delack_cfg();
    let mut h = Harness::new(c, c);
    h.handshake();
    h.b.close();
    h.run_until(secs(5), |h| h.b.state() == TcpState::FinWait2);
    let fin_at = h
        .sent
        .iter()
        .find(|(_, d, p)| *d == Dir::BtoA && p.tcp().unwrap().flags.contains(TcpFlags::FIN))
        .unwrap()
        .0;
    let ack_at = h
        .sent
        .iter()
        .find(|(t, d, _)| *d == Dir::AtoB && *t > fin_at)
        .unwrap()
        .0;
    assert_eq!(ack_at - fin_at, SimDuration::from_ms(50));
}
