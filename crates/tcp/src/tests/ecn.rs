//! RFC 3168: ECN setup, ECT marking, ECE/CWR and one reduction per window.

use celltcp_net::packet::{Ecn, TcpFlags};

use super::*;

fn ecn_cfg() -> TcpConfig {
    TcpConfig { ecn: true, ..cfg() }
}

fn mark_ce(offsets: Vec<u64>, iss: u32) -> Rule {
    Box::new(move |_, d, p| {
        if d == Dir::AtoB
            && p.payload_len > 0
            && offsets.contains(&(p.tcp().unwrap().seq.wrapping_sub(iss) as u64))
        {
            Fate::MarkCe
        } else {
            Fate::Deliver
        }
    })
}

#[test]
fn ecn_setup_and_ect_marking_rfc3168_6_1_1() {
    let c = ecn_cfg();
    let mut h = Harness::new(c, c);
    h.handshake();
    assert!(h.transfer(20_000, secs(10)));
    let syn = h.sent[0].2.tcp().unwrap().flags;
    assert!(syn.contains(TcpFlags::ECE | TcpFlags::CWR));
    let synack = h.sent[1].2.tcp().unwrap().flags;
    assert!(synack.contains(TcpFlags::ECE) && !synack.contains(TcpFlags::CWR));
    assert!(h.a.negotiated().ecn && h.b.negotiated().ecn);
    for (_, d, p) in &h.sent[2..] {
        let want = if *d == Dir::AtoB && p.payload_len > 0 {
            Ecn::Ect0
        } else {
            Ecn::NotEct
        };
        assert_eq!(p.ip.ecn, want);
    }
    // A peer without ECN: no ECT anywhere.
    let mut h = Harness::new(c, cfg());
    h.handshake();
    assert!(h.transfer(5_000, secs(10)));
    assert!(!h.a.negotiated().ecn);
    assert!(h.sent.iter().all(|(_, _, p)| p.ip.ecn == Ecn::NotEct));
}

#[test]
fn one_reduction_per_window_and_cwr_rfc3168_6_1_2() {
    let c = ecn_cfg();
    let mut h = Harness::new(c, c);
    h.rule = mark_ce((30..36).map(seg).collect(), c.isn);
    h.handshake();
    assert!(h.transfer(150_000, secs(30)));
    let s = h.a.stats();
    assert_eq!(s.ecn_reductions, 1);
    assert_eq!(s.timeouts + s.retx_total, 0);
    assert_eq!(h.b.stats().ce_received, 6);
    // Exactly one CWR, on new data; ECE stops once the CWR arrived.
    let cwr: Vec<_> = h.sent[1..]
        .iter()
        .filter(|(_, d, p)| *d == Dir::AtoB && p.tcp().unwrap().flags.contains(TcpFlags::CWR))
        .collect();
    assert_eq!(cwr.len(), 1);
    assert!(cwr[0].2.payload_len > 0);
    let cwr_arrival = cwr[0].0 + h.delay;
    assert!(h
        .sent
        .iter()
        .filter(|(t, d, _)| *d == Dir::BtoA && *t > cwr_arrival)
        .all(|(_, _, p)| !p.tcp().unwrap().flags.contains(TcpFlags::ECE)));
    let ece_count = h
        .sent
        .iter()
        .filter(|(_, d, p)| *d == Dir::BtoA && p.tcp().unwrap().flags.contains(TcpFlags::ECE))
        .count();
    assert!(ece_count > 1, "ECE is repeated until CWR");
}

#[test]
fn marks_in_a_later_window_reduce_again() {
    let c = ecn_cfg();
    let mut h = Harness::new(c, c);
    h.rule = mark_ce(vec![seg(30), seg(120)], c.isn);
    h.handshake();
    assert!(h.transfer(200_000, secs(30)));
    assert_eq!(h.a.stats().ecn_reductions, 2);
}

#[test]
fn retransmissions_are_not_ect_rfc3168_6_1_5() {
    let c = ecn_cfg();
    let mut h = Harness::new(c, c);
    h.rule = drop_first(vec![seg(20)], c.isn);
    h.handshake();
    assert!(h.transfer(60_000, secs(30)));
    let iss = c.isn;
    let copies: Vec<Ecn> = h
        .sent
        .iter()
        .filter(|(_, d, p)| {
            *d == Dir::AtoB
                && p.payload_len > 0
                && p.tcp().unwrap().seq.wrapping_sub(iss) as u64 == seg(20)
        })
        .map(|(_, _, p)| p.ip.ecn)
        .collect();
    assert_eq!(copies, vec![Ecn::Ect0, Ecn::NotEct]);
}
