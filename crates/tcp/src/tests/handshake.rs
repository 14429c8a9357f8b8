//! RFC 9293 §3.5 (handshake), §3.6 (close), RFC 6298 §5.7 (lost SYN), sequence wrap.

use celltcp_engine::SimDuration;
use celltcp_net::packet::TcpFlags;

use super::*;
use crate::negotiated::NegotiatedOptions;

#[test]
fn syn_options_are_negotiated() {
    let mut h = Harness::new(cfg(), cfg());
    h.handshake();
    let syn = h.sent[0].2;
    let t = syn.tcp().unwrap();
    assert!(t.flags.contains(TcpFlags::SYN) && !t.flags.contains(TcpFlags::ACK));
    assert_eq!(t.options.mss, Some(1000));
    assert!(t.options.sack_permitted);
    // The default 4 MB receive buffer needs a shift of 6 (4 000 000 >> 6 = 62 500).
    assert_eq!(t.options.window_scale, Some(6));
    assert!(t.options.timestamps.is_some());
    let synack = h.sent[1].2;
    assert!(synack
        .tcp()
        .unwrap()
        .flags
        .contains(TcpFlags::SYN | TcpFlags::ACK));
    let both = NegotiatedOptions {
        sack: true,
        timestamps: true,
        ecn: false,
        window_scale: true,
        mss: 1000,
        snd_wscale: 6,
        rcv_wscale: 6,
    };
    assert_eq!(h.a.negotiated(), both);
    assert_eq!(h.b.negotiated(), both);
    // The handshake gave an RTT sample of 100 ms.
    assert_eq!(h.a.srtt(), SimDuration::from_ms(100));
}

#[test]
fn options_off_on_one_side_are_off_on_both() {
    let mut ca = cfg();
    ca.sack = false;
    ca.window_scale = false;
    let mut cb = cfg();
    cb.timestamps = false;
    cb.mss = 500;
    let mut h = Harness::new(ca, cb);
    h.handshake();
    assert_eq!(
        h.a.negotiated(),
        NegotiatedOptions {
            mss: 500,
            ..Default::default()
        }
    );
    let synack = h.sent[1].2.tcp().unwrap().options;
    assert!(!synack.sack_permitted && synack.window_scale.is_none() && synack.timestamps.is_none());
}

#[test]
fn transfer_and_close_visit_the_rfc9293_states() {
    let mut h = Harness::new(cfg(), cfg());
    h.handshake();
    assert!(h.transfer(100_000, secs(30)));
    assert_eq!(h.delivered, 100_000);
    h.a.close();
    assert_eq!(h.a.state(), TcpState::FinWait1);
    // A's FIN reaches B → CLOSE-WAIT; the harness closes B at once → LAST-ACK.
    let mut seen_b = vec![];
    let mut seen_a = vec![];
    h.run_until(secs(60), |h| {
        h.b.state() == TcpState::Closed && h.a.state() == TcpState::Closed
    });
    for (_, d, p) in &h.sent {
        let f = p.tcp().unwrap().flags;
        if f.contains(TcpFlags::FIN) {
            if *d == Dir::AtoB {
                seen_a.push(f)
            } else {
                seen_b.push(f)
            }
        }
    }
    assert_eq!(seen_a.len(), 1);
    assert_eq!(seen_b.len(), 1);
    assert_eq!(h.a.state(), TcpState::Closed);
    assert_eq!(h.b.state(), TcpState::Closed);
    assert!(h.a.all_acked());
    assert_eq!(h.a.stats().bytes_acked, 100_000);
}

#[test]
fn close_states_step_by_step() {
    let mut h = Harness::new(cfg(), cfg());
    h.handshake();
    h.a.close();
    // Run until B has the FIN but before A sees B's FIN.
    let mut saw_fw2 = false;
    let mut saw_tw = false;
    let mut saw_cw_or_la = false;
    h.run_until(secs(10), |h| {
        saw_fw2 |= h.a.state() == TcpState::FinWait2;
        saw_tw |= h.a.state() == TcpState::TimeWait;
        saw_cw_or_la |= h.b.state() == TcpState::LastAck;
        h.a.state() == TcpState::Closed
    });
    assert!(saw_fw2 && saw_tw && saw_cw_or_la);
    // TIME-WAIT lasts the configured time (1 s by default).
    let tw_start = h.a.stats().closed_at.unwrap();
    assert!(h.now >= tw_start + SimDuration::from_secs(1));
}

#[test]
fn simultaneous_close_goes_through_closing() {
    let mut h = Harness::new(cfg(), cfg());
    h.handshake();
    h.a.close();
    h.b.close();
    let mut saw_closing = false;
    h.run_until(secs(10), |h| {
        saw_closing |= h.a.state() == TcpState::Closing;
        h.a.state() == TcpState::Closed && h.b.state() == TcpState::Closed
    });
    assert!(saw_closing);
}

#[test]
fn lost_syn_is_retransmitted_after_1s_and_rto_becomes_3s_rfc6298_5_7() {
    let mut c = cfg();
    c.timestamps = false;
    let mut h = Harness::new(c, c);
    let mut dropped = false;
    h.rule = Box::new(move |_, d, p| {
        if d == Dir::AtoB && p.tcp().unwrap().flags.contains(TcpFlags::SYN) && !dropped {
            dropped = true;
            return Fate::Drop;
        }
        Fate::Deliver
    });
    h.handshake();
    let syns: Vec<_> = h
        .sent
        .iter()
        .filter(|(_, d, p)| *d == Dir::AtoB && p.tcp().unwrap().flags.contains(TcpFlags::SYN))
        .map(|(t, _, _)| *t)
        .collect();
    assert_eq!(syns, vec![SimTime::ZERO, secs(1)]);
    assert_eq!(h.a.stats().syn_retx, 1);
    // No sample from the retransmitted SYN (Karn), RTO re-initialised to 3 s.
    assert_eq!(h.a.srtt(), SimDuration::ZERO);
    assert_eq!(h.a.rto(), SimDuration::from_secs(3));
}

#[test]
fn syn_backoff_doubles() {
    let mut h = Harness::new(cfg(), cfg());
    h.rule = Box::new(|_, d, _| {
        if d == Dir::AtoB {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    h.run_until(secs(40), |_| false);
    let syns: Vec<u64> = h
        .sent
        .iter()
        .filter(|(_, d, _)| *d == Dir::AtoB)
        .map(|(t, _, _)| t.as_ns() / 1_000_000_000)
        .collect();
    assert_eq!(syns, vec![0, 1, 3, 7, 15, 31]);
}

#[test]
fn lost_synack_is_retransmitted_by_the_listener() {
    let mut h = Harness::new(cfg(), cfg());
    let mut dropped = false;
    h.rule = Box::new(move |_, d, _| {
        if d == Dir::BtoA && !dropped {
            dropped = true;
            return Fate::Drop;
        }
        Fate::Deliver
    });
    h.handshake();
    assert_eq!(h.b.stats().syn_retx + h.a.stats().syn_retx, 2);
    assert!(h.transfer(10_000, secs(20)));
}

#[test]
fn sequence_numbers_wrap_rfc9293_3_4() {
    for isn in [u32::MAX - 5_000, u32::MAX, u32::MAX - 999] {
        let mut ca = cfg();
        ca.isn = isn;
        let mut cb = cfg();
        cb.isn = u32::MAX - 3;
        let mut h = Harness::new(ca, cb);
        h.rule = drop_first(vec![seg(3), seg(7)], isn);
        h.handshake();
        assert!(h.transfer(200_000, secs(60)), "isn {isn}");
        assert_eq!(h.delivered, 200_000);
        assert!(h.a.stats().retx_total >= 2);
        assert_eq!(h.a.stats().timeouts, 0);
        // The wire sequence numbers did wrap.
        assert!(h
            .sent
            .iter()
            .any(|(_, d, p)| *d == Dir::AtoB && p.tcp().unwrap().seq < 1_000_000));
    }
}

/// Found by the model-based fuzzing (fuzz.rs): the last ACK (of B's FIN) is lost and B's
/// retransmitted FIN arrives after A's TIME-WAIT ended. A CLOSED endpoint ignored it, so B
/// retransmitted its FIN for ever in LAST-ACK; RFC 9293 §3.10.7.1 answers it with a reset.
#[test]
fn a_fin_reaching_a_closed_endpoint_is_answered_with_a_reset_rfc9293_3_10_7_1() {
    let ca = TcpConfig {
        time_wait: SimDuration::from_ms(10),
        ..cfg()
    };
    let cb = TcpConfig {
        isn: 5_000,
        ..cfg()
    };
    let mut h = Harness::new(ca, cb);
    let mut dropped = false;
    h.rule = Box::new(move |_, d, p| {
        let t = p.tcp().unwrap();
        // A's ACK of B's FIN (B sent no data: its FIN is offset 1, so the ACK is ISN + 2).
        if d == Dir::AtoB && p.payload_len == 0 && t.ack == 5_002 && !dropped {
            dropped = true;
            return Fate::Drop;
        }
        Fate::Deliver
    });
    h.handshake();
    h.to_write = 3_000;
    h.close_after = true;
    assert!(h.run_until(secs(30), |h| h.a.state() == TcpState::Closed
        && h.b.state() == TcpState::Closed));
    let reset = h
        .sent
        .iter()
        .find(|(_, d, p)| *d == Dir::AtoB && p.tcp().unwrap().flags.contains(TcpFlags::RST))
        .expect("A answers the retransmitted FIN with a reset");
    let t = reset.2.tcp().unwrap();
    // <SEQ=SEG.ACK><CTL=RST>: the FIN acknowledged everything A sent (SYN, data and FIN).
    assert_eq!(t.seq, h.a.config().isn.wrapping_add(3_002));
    assert!(!t.flags.contains(TcpFlags::ACK));
    assert_eq!(h.b.stats().bytes_delivered, 3_000);
}
