//! Unit tests of the AM entity, grouped by 36.322 clause.

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::packet::Packet;

use super::testkit::sdu;
use super::*;

fn ms(x: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_ms(x)
}

/// LTE defaults without a retransmission limit.
fn cfg() -> RlcAmConfig {
    RlcAmConfig {
        max_retx_threshold: None,
        ..RlcAmConfig::lte_default()
    }
}

fn pair(c: RlcAmConfig) -> (RlcAmTx, RlcAmRx) {
    (RlcAmTx::new(c).unwrap(), RlcAmRx::new(c).unwrap())
}

fn data(p: RlcPdu) -> AmdPdu {
    match p {
        RlcPdu::Data(d) => d,
        other => panic!("expected an AMD PDU, got {other:?}"),
    }
}

/// Every PDU the transmitter gives for repeated opportunities of `grant` bytes.
fn drain(tx: &mut RlcAmTx, now: SimTime, grant: u32) -> Vec<AmdPdu> {
    std::iter::from_fn(|| tx.pull_pdu(now, grant))
        .map(data)
        .collect()
}

fn uids(rx: &mut RlcAmRx) -> Vec<u64> {
    std::iter::from_fn(|| rx.take_sdu())
        .map(|p: Packet| p.uid)
        .collect()
}

mod segmentation_5_1_3_1_1 {
    use super::*;

    #[test]
    fn a_1500_byte_sdu_through_100_byte_grants_costs_the_modelled_header_bytes() {
        let (mut tx, mut rx) = pair(cfg());
        tx.write_sdu(ms(0), sdu(7, 1500)).unwrap();
        let pdus = drain(&mut tx, ms(0), 100);
        // 98 data bytes per PDU behind the 2-byte fixed header: ceil(1500 / 98) = 16 PDUs.
        let h = HeaderModel::lte_am(10);
        let n = 1500u32.div_ceil(100 - h.fixed_bytes);
        assert_eq!(pdus.len() as u32, n);
        let total: u32 = pdus.iter().map(|p| p.size_bytes()).sum();
        assert_eq!(total, 1500 + n * h.fixed_bytes);
        assert!(pdus[..15]
            .iter()
            .all(|p| p.size_bytes() == 100 && p.header_bytes() == 2));
        assert_eq!(pdus[15].size_bytes(), 1500 - 15 * 98 + 2);
        assert_eq!(pdus[0].framing_info(), (true, false));
        assert_eq!(pdus[7].framing_info(), (false, false));
        assert_eq!(pdus[15].framing_info(), (false, true));
        for p in pdus {
            rx.on_pdu(ms(1), RlcPdu::Data(p));
        }
        assert_eq!(uids(&mut rx), vec![7]);
        assert_eq!(rx.stats().bytes_received, total as u64);
    }

    #[test]
    fn concatenation_pays_one_and_a_half_bytes_per_extra_sdu() {
        let (mut tx, mut rx) = pair(cfg());
        for uid in 0..4 {
            tx.write_sdu(ms(0), sdu(uid, 100)).unwrap();
        }
        let pdus = drain(&mut tx, ms(0), 3000);
        assert_eq!(pdus.len(), 1);
        // 2 + ceil(3 * 12 / 8) = 7 header bytes.
        assert_eq!((pdus[0].header_bytes(), pdus[0].size_bytes()), (7, 407));
        assert_eq!(pdus[0].data.len(), 4);
        rx.on_pdu(ms(1), RlcPdu::Data(pdus[0].clone()));
        assert_eq!(uids(&mut rx), vec![0, 1, 2, 3]);
    }

    #[test]
    fn fixed_40_byte_pdus_carry_40_minus_header_bytes() {
        let c = RlcAmConfig {
            max_retx_threshold: None,
            ..RlcAmConfig::wcdma(40, 4)
        };
        let (mut tx, mut rx) = pair(c);
        tx.write_sdu(ms(0), sdu(1, 1500)).unwrap();
        let pdus = drain(&mut tx, ms(0), 40);
        // 38 bytes behind the 2-byte header; the last PDU ends the SDU with a 1-byte LI.
        assert_eq!(pdus.len(), 40);
        assert!(pdus.iter().all(|p| p.size_bytes() == 40));
        assert!(pdus[..39]
            .iter()
            .all(|p| p.data.bytes() == 38 && p.header_bytes() == 2));
        let last = &pdus[39];
        assert_eq!(
            (last.data.bytes(), last.header_bytes(), last.padding_bytes()),
            (18, 3, 19)
        );
        // A grant below the fixed size carries nothing.
        tx.write_sdu(ms(0), sdu(2, 100)).unwrap();
        assert!(tx.pull_pdu(ms(0), 39).is_none());
        for p in pdus {
            rx.on_pdu(ms(1), RlcPdu::Data(p));
        }
        assert_eq!(uids(&mut rx), vec![1]);
    }
}

mod polling_5_2_2 {
    use super::*;

    #[test]
    fn poll_on_empty_buffer_and_t_poll_retransmit_timing() {
        let (mut tx, mut rx) = pair(cfg());
        tx.write_sdu(ms(5), sdu(1, 500)).unwrap();
        tx.write_sdu(ms(5), sdu(2, 500)).unwrap();
        let first = data(tx.pull_pdu(ms(5), 600).unwrap());
        assert!(
            !first.poll,
            "more data waiting, pollPDU and pollByte infinite"
        );
        assert_eq!(tx.poll_timeout(), None);
        let second = data(tx.pull_pdu(ms(6), 600).unwrap());
        assert!(second.poll, "the transmission buffer became empty");
        assert_eq!(
            tx.poll_timeout(),
            Some(ms(51)),
            "t-PollRetransmit = 45 ms from 6 ms"
        );
        rx.on_pdu(ms(8), RlcPdu::Data(first));
        rx.on_pdu(ms(8), RlcPdu::Data(second));
        let status = rx
            .pull_status(ms(8), 100)
            .expect("poll triggers a STATUS report");
        assert_eq!((status.ack_sn, status.nacks.len()), (2, 0));
        tx.on_status(ms(10), &status);
        assert_eq!(
            tx.poll_timeout(),
            None,
            "POLL_SN acknowledged: t-PollRetransmit stopped"
        );
        assert_eq!(tx.vt_a(), 2);
        assert_eq!(tx.stats().sdus_acked, 2);
    }

    #[test]
    fn poll_pdu_and_poll_byte_counters() {
        let c = RlcAmConfig {
            poll_pdu: Some(4),
            poll_byte: Some(1000),
            ..cfg()
        };
        let (mut tx, _) = pair(c);
        for uid in 0..20 {
            tx.write_sdu(ms(0), sdu(uid, 100)).unwrap();
        }
        // 100-byte SDUs in 102-byte PDUs: pollPDU = 4 fires first.
        let polls: Vec<bool> = (0..8)
            .map(|_| data(tx.pull_pdu(ms(0), 102).unwrap()).poll)
            .collect();
        assert_eq!(
            polls,
            vec![false, false, false, true, false, false, false, true]
        );
        // 400-byte PDUs (4 SDUs each would be 405; 3 SDUs + part): pollByte = 1000 after 3.
        let polls: Vec<bool> = (0..3)
            .map(|_| data(tx.pull_pdu(ms(0), 400).unwrap()).poll)
            .collect();
        assert_eq!(polls, vec![false, false, true]);
    }

    #[test]
    fn expiry_retransmits_the_last_pdu_with_a_poll() {
        let (mut tx, _) = pair(cfg());
        tx.write_sdu(ms(0), sdu(1, 200)).unwrap();
        let p = data(tx.pull_pdu(ms(0), 1000).unwrap());
        assert!(p.poll);
        assert_eq!(tx.poll_timeout(), Some(ms(45)));
        assert!(tx.pull_pdu(ms(44), 1000).is_none());
        tx.on_timeout(ms(45));
        assert_eq!(tx.retx_count(0), Some(0));
        assert_eq!(
            tx.buffer_status().retx_bytes,
            202 + 2,
            "200 data + segment header estimate"
        );
        let r = data(tx.pull_pdu(ms(45), 1000).unwrap());
        assert_eq!(
            (r.sn, r.poll, r.segment, r.size_bytes()),
            (0, true, None, 202)
        );
        assert_eq!(tx.poll_timeout(), Some(ms(90)));
        assert_eq!(tx.stats().t_poll_retransmit_expiries, 1);
    }
}

mod status_5_2_3 {
    use super::*;

    #[test]
    fn t_reordering_triggers_a_status_with_the_nack() {
        let (mut tx, mut rx) = pair(cfg());
        for uid in 0..3 {
            tx.write_sdu(ms(0), sdu(uid, 100)).unwrap();
        }
        let pdus = drain(&mut tx, ms(0), 102);
        assert_eq!(pdus.len(), 3);
        rx.on_pdu(ms(10), RlcPdu::Data(pdus[1].clone()));
        assert_eq!(
            rx.poll_timeout(),
            Some(ms(45)),
            "t-Reordering = 35 ms from 10 ms"
        );
        assert!(!rx.status_triggered());
        rx.on_pdu(ms(20), RlcPdu::Data(pdus[2].clone()));
        assert!(
            !rx.status_triggered(),
            "poll on SN 2 >= VR(MS) = 0: the trigger waits"
        );
        assert!(rx.pull_status(ms(44), 100).is_none());
        rx.on_timeout(ms(45));
        assert_eq!(rx.vr_ms(), 3);
        let s = rx.pull_status(ms(45), 100).unwrap();
        assert_eq!(s.ack_sn, 3);
        assert_eq!(s.nacks, vec![Nack { sn: 0, so: None }]);
        assert_eq!(s.size_bytes(), 4, "15 + 12 bits");
        assert_eq!(rx.poll_timeout(), None);
        tx.on_status(ms(46), &s);
        assert_eq!(tx.vt_a(), 0);
        assert_eq!(tx.retx_count(0), Some(0));
        let r = data(tx.pull_pdu(ms(46), 500).unwrap());
        assert_eq!(r.sn, 0);
        rx.on_pdu(ms(47), RlcPdu::Data(r));
        assert_eq!(uids(&mut rx), vec![0, 1, 2]);
        assert_eq!(rx.vr_r(), 3);
    }

    /// 36.322 §5.2.3: a poll in SN x waits "until x < VR(MS) or x >= VR(MR)", each poll on
    /// its own. Five 100-byte SDUs in SNs 0..=4, polls in SNs 2 and 4, SNs 0 and 3 held back
    /// by HARQ: both polls wait (VR(MS) = 0). SN 0 arriving moves VR(MS) to 3 > 2: STATUS
    /// (ACK_SN 3; a receiver keeping only the highest delayed poll would stay silent). SN 3
    /// moves VR(MS) to 5 > 4: STATUS again (ACK_SN 5; keeping only the lowest would have
    /// forgotten the poll in SN 4).
    #[test]
    fn each_delayed_poll_triggers_when_vr_ms_passes_it() {
        let (mut tx, mut rx) = pair(cfg());
        for uid in 0..5 {
            tx.write_sdu(ms(0), sdu(uid, 100)).unwrap();
        }
        let mut pdus = drain(&mut tx, ms(0), 102);
        pdus[2].poll = true;
        assert_eq!(
            pdus.iter().map(|p| p.poll).collect::<Vec<_>>(),
            [false, false, true, false, true]
        );
        for i in [1, 2, 4] {
            rx.on_pdu(ms(1), RlcPdu::Data(pdus[i].clone()));
        }
        assert!(!rx.status_triggered(), "x >= VR(MS) = 0: both polls wait");
        rx.on_pdu(ms(2), RlcPdu::Data(pdus[0].clone()));
        assert_eq!(rx.vr_ms(), 3);
        assert!(rx.status_triggered(), "the poll in SN 2 < VR(MS) = 3");
        assert_eq!(rx.pull_status(ms(2), 100).unwrap().ack_sn, 3);
        rx.on_pdu(ms(3), RlcPdu::Data(pdus[3].clone()));
        assert_eq!(rx.vr_ms(), 5);
        assert!(rx.status_triggered(), "the poll in SN 4 < VR(MS) = 5");
        assert_eq!(rx.pull_status(ms(3), 100).unwrap().ack_sn, 5);
    }

    #[test]
    fn t_status_prohibit_holds_the_next_report() {
        let c = RlcAmConfig {
            t_status_prohibit: SimDuration::from_ms(20),
            ..cfg()
        };
        let (mut tx, mut rx) = pair(c);
        tx.write_sdu(ms(0), sdu(1, 100)).unwrap();
        rx.on_pdu(ms(3), tx.pull_pdu(ms(0), 500).unwrap());
        assert!(rx.pull_status(ms(3), 100).is_some());
        tx.write_sdu(ms(4), sdu(2, 100)).unwrap();
        rx.on_pdu(ms(5), tx.pull_pdu(ms(4), 500).unwrap());
        assert!(rx.status_triggered());
        assert_eq!(
            rx.poll_timeout(),
            Some(ms(23)),
            "t-StatusProhibit runs until 3 + 20 ms"
        );
        assert_eq!(rx.status_bytes(ms(22)), 0);
        assert!(rx.pull_status(ms(22), 100).is_none());
        assert_eq!(rx.status_bytes(ms(23)), 2);
        let s = rx.pull_status(ms(23), 100).unwrap();
        assert_eq!(s.ack_sn, 2);
        assert_eq!(rx.stats().status_sent, 2);
    }

    #[test]
    fn a_small_grant_truncates_the_nack_list_and_lowers_ack_sn() {
        let (mut tx, mut rx) = pair(cfg());
        for uid in 0..8 {
            tx.write_sdu(ms(0), sdu(uid, 100)).unwrap();
        }
        let pdus = drain(&mut tx, ms(0), 102);
        for p in pdus.iter().filter(|p| p.sn % 2 == 1) {
            rx.on_pdu(ms(1), RlcPdu::Data(p.clone()));
        }
        // t-Reordering started at 1 ms with VR(X) = 2; at its expiry VR(MS) = 2 and it restarts
        // with VR(X) = VR(H) = 8; at the second expiry VR(MS) = 8.
        rx.on_timeout(ms(36));
        assert_eq!((rx.vr_ms(), rx.poll_timeout()), (2, Some(ms(71))));
        rx.on_timeout(ms(71));
        assert_eq!(rx.vr_ms(), 8);
        // 15 + 12 k bits <= 6 bytes = 48 bits allows k = 2 NACKs (0 and 2); ACK_SN = 4.
        let s = rx.pull_status(ms(71), 6).unwrap();
        assert_eq!(s.nacks.iter().map(|n| n.sn).collect::<Vec<_>>(), vec![0, 2]);
        assert_eq!((s.ack_sn, s.size_bytes()), (4, 5));
        tx.on_status(ms(72), &s);
        // SNs 1 and 3 are acknowledged; 5 and 7 are not covered by this report. SN 7 (the
        // polled PDU) is pending already since t-PollRetransmit expired at 45 ms.
        assert_eq!(tx.vt_a(), 0);
        assert_eq!(tx.retx_count(7), Some(0));
        assert_eq!(
            (tx.retx_count(0), tx.retx_count(2), tx.retx_count(4)),
            (Some(0), Some(0), None)
        );
        assert_eq!(tx.buffer_status().retx_bytes, 3 * (100 + 4));
    }
}

mod retransmission_5_2_1 {
    use super::*;

    #[test]
    fn re_segmentation_to_a_smaller_grant_and_so_based_nacks() {
        let (mut tx, mut rx) = pair(cfg());
        tx.write_sdu(ms(0), sdu(1, 1000)).unwrap();
        let original = data(tx.pull_pdu(ms(0), 2000).unwrap());
        assert_eq!(original.size_bytes(), 1002);
        tx.on_timeout(ms(45)); // lost: t-PollRetransmit considers it for retransmission
        let segs = drain(&mut tx, ms(45), 304);
        let shape: Vec<_> = segs
            .iter()
            .map(|s| (s.segment.unwrap().so, s.data.bytes()))
            .collect();
        assert_eq!(shape, vec![(0, 300), (300, 300), (600, 300), (900, 100)]);
        assert!(segs.iter().all(|s| s.header_bytes() == 4));
        assert_eq!(
            segs.iter()
                .map(|s| s.segment.unwrap().lsf)
                .collect::<Vec<_>>(),
            [false, false, false, true]
        );
        // Segment 1 is lost; the receiver NACKs bytes 300..600.
        rx.on_pdu(ms(50), RlcPdu::Data(segs[0].clone()));
        rx.on_pdu(ms(50), RlcPdu::Data(segs[2].clone()));
        rx.on_pdu(ms(50), RlcPdu::Data(segs[3].clone()));
        // The polls (first and last segment) have SN 0 >= VR(MS) = 0: the STATUS report waits
        // for t-Reordering, started at 50 ms.
        assert!(rx.pull_status(ms(50), 100).is_none());
        assert_eq!(rx.poll_timeout(), Some(ms(85)));
        let s = rx
            .pull_status(ms(85), 100)
            .expect("t-Reordering expiry triggers a report");
        assert_eq!(
            s.nacks,
            vec![Nack {
                sn: 0,
                so: Some(SoRange {
                    start: 300,
                    end: Some(600)
                })
            }]
        );
        assert_eq!(s.size_bytes(), 8, "15 + 12 + 30 bits");
        tx.on_status(ms(86), &s);
        assert_eq!(tx.retx_count(0), Some(1));
        let r = data(tx.pull_pdu(ms(86), 2000).unwrap());
        assert_eq!(
            (
                r.segment.unwrap().so,
                r.data.bytes(),
                r.segment.unwrap().lsf
            ),
            (300, 300, false)
        );
        rx.on_pdu(ms(87), RlcPdu::Data(r));
        assert_eq!(uids(&mut rx), vec![1]);
    }

    #[test]
    fn in_sequence_byte_segments_deliver_complete_sdus_early() {
        let (mut tx, mut rx) = pair(cfg());
        for uid in 0..3 {
            tx.write_sdu(ms(0), sdu(uid, 200)).unwrap();
        }
        let p = data(tx.pull_pdu(ms(0), 2000).unwrap());
        assert_eq!(p.data.len(), 3);
        tx.on_timeout(ms(45));
        let segs = drain(&mut tx, ms(45), 250);
        // The first segment ends inside SDU 1: SDU 0 is delivered from it alone.
        rx.on_pdu(ms(46), RlcPdu::Data(segs[0].clone()));
        assert_eq!(uids(&mut rx), vec![0]);
        rx.on_pdu(ms(46), RlcPdu::Data(segs[2].clone()));
        assert_eq!(uids(&mut rx), Vec::<u64>::new());
        rx.on_pdu(ms(46), RlcPdu::Data(segs[1].clone()));
        assert_eq!(uids(&mut rx), vec![1, 2]);
    }

    /// Drives SN 0 through repeated losses: each t-PollRetransmit expiry considers it again.
    fn lose_everything(c: RlcAmConfig) -> (RlcAmTx, Vec<u32>) {
        let (mut tx, _) = pair(c);
        tx.write_sdu(ms(0), sdu(1, 100)).unwrap();
        let mut sent = vec![data(tx.pull_pdu(ms(0), 500).unwrap()).sn];
        for _ in 0..10 {
            let Some(now) = tx.poll_timeout() else { break };
            tx.on_timeout(now);
            match tx.pull_pdu(now, 500) {
                Some(RlcPdu::Data(p)) => sent.push(p.sn),
                Some(RlcPdu::Mrw(_)) => break,
                _ => {}
            }
        }
        (tx, sent)
    }

    #[test]
    fn discard_after_max_retx_threshold_plus_one_transmissions() {
        for max_retx in [0u32, 1, 2, 4] {
            let c = RlcAmConfig {
                max_retx_threshold: Some(max_retx),
                on_max_retx: MaxRetxAction::Discard,
                ..cfg()
            };
            let (tx, sent) = lose_everything(c);
            // 36.322 §5.2.1: RETX_COUNT = 0 at the first consideration, +1 at each later one;
            // it reaches maxRetxThreshold after maxRetxThreshold + 1 transmissions.
            assert_eq!(sent.len() as u32, max_retx + 1, "maxRetx {max_retx}");
            let s = tx.stats();
            assert_eq!(
                (s.pdus_new + s.pdus_retx, s.pdus_discarded, s.sdus_discarded),
                (sent.len() as u64, 1, 1)
            );
            assert_eq!(s.mrw_sent, 1);
            assert_eq!((tx.vt_a(), tx.vt_s()), (1, 1));
            // The threshold was reached and counted, but Discard replaces the indication of
            // §5.2.1: no radio link failure is signalled.
            assert_eq!(s.max_retx_reached, 1);
            assert!(!tx.max_retx_reached(), "maxRetx {max_retx}");
        }
    }

    #[test]
    fn radio_link_failure_mode_indicates_and_keeps_retransmitting() {
        let c = RlcAmConfig {
            max_retx_threshold: Some(2),
            on_max_retx: MaxRetxAction::RadioLinkFailure,
            ..cfg()
        };
        let (tx, sent) = lose_everything(c);
        assert!(tx.max_retx_reached());
        assert_eq!(tx.stats().max_retx_reached, 1);
        assert_eq!(tx.stats().sdus_discarded, 0);
        assert_eq!(sent.len(), 11, "still retransmitting after the indication");
    }

    #[test]
    fn repeated_nacks_of_a_pending_pdu_count_once() {
        let (mut tx, mut rx) = pair(cfg());
        for uid in 0..2 {
            tx.write_sdu(ms(0), sdu(uid, 100)).unwrap();
        }
        let pdus = drain(&mut tx, ms(0), 102);
        rx.on_pdu(ms(1), RlcPdu::Data(pdus[1].clone()));
        rx.on_timeout(ms(36));
        let s = rx.pull_status(ms(36), 100).unwrap();
        tx.on_status(ms(37), &s);
        tx.on_status(ms(38), &s);
        assert_eq!(
            tx.retx_count(0),
            Some(0),
            "the second NACK finds SN 0 pending already"
        );
        assert_eq!(tx.buffer_status().retx_bytes, 104);
    }
}

mod discard_and_mrw {
    use super::*;

    #[test]
    fn the_receiver_skips_the_discarded_hole_and_acknowledges_the_mrw() {
        let c = RlcAmConfig {
            max_retx_threshold: Some(1),
            on_max_retx: MaxRetxAction::Discard,
            ..cfg()
        };
        let (mut tx, mut rx) = pair(c);
        for uid in 0..3 {
            tx.write_sdu(ms(0), sdu(uid, 150)).unwrap();
        }
        // SDU 1 straddles SN 1 and SN 2 in 102-byte PDUs (100 data bytes each).
        let pdus = drain(&mut tx, ms(0), 102);
        assert_eq!(pdus.len(), 5);
        let lost = 1;
        for p in pdus.iter().filter(|p| p.sn != lost) {
            rx.on_pdu(ms(1), RlcPdu::Data(p.clone()));
        }
        assert_eq!(uids(&mut rx), Vec::<u64>::new());
        // t-Reordering (started at 1 ms) expires: NACK 1.
        rx.on_timeout(ms(36));
        let s = rx.pull_status(ms(36), 100).unwrap();
        assert_eq!(s.nacks, vec![Nack { sn: 1, so: None }]);
        tx.on_status(ms(36), &s);
        assert_eq!(tx.retx_count(1), Some(0));
        let r = data(tx.pull_pdu(ms(36), 500).unwrap());
        assert_eq!((r.sn, r.poll), (1, true)); // lost again
                                               // t-PollRetransmit expiry considers SN 1 once more: RETX_COUNT 1 = maxRetxThreshold.
        let now = tx.poll_timeout().unwrap();
        assert_eq!(now, ms(81));
        tx.on_timeout(now);
        assert_eq!(tx.stats().pdus_discarded, 1);
        assert_eq!(tx.vt_a(), 5, "SNs 2..4 were acknowledged");
        let RlcPdu::Mrw(m) = tx.pull_pdu(now, 500).unwrap() else {
            panic!("MRW first")
        };
        assert_eq!(m.sn_mrw, 5);
        assert_eq!(
            tx.poll_timeout(),
            Some(now + SimDuration::from_ms(45)),
            "Timer_MRW"
        );
        rx.on_pdu(now, RlcPdu::Mrw(m));
        // SDU 0 (SN 0 and the head of SN 1) and SDU 1 (SN 1 and SN 2) are lost; SDU 2 survives.
        assert_eq!(uids(&mut rx), vec![2]);
        assert_eq!(rx.vr_r(), 5);
        let s = rx.pull_status(now, 100).unwrap();
        assert_eq!((s.mrw_ack, s.ack_sn), (Some(5), 5));
        tx.on_status(now, &s);
        assert_eq!(tx.poll_timeout(), None, "MRW acknowledged");
        tx.write_sdu(now, sdu(9, 100)).unwrap();
        rx.on_pdu(now, tx.pull_pdu(now, 500).unwrap());
        assert_eq!(uids(&mut rx), vec![9]);
        assert_eq!(rx.stats().sdus_dropped, 2);
    }

    #[test]
    fn a_lost_mrw_is_sent_again_when_timer_mrw_expires() {
        let c = RlcAmConfig {
            max_retx_threshold: Some(0),
            on_max_retx: MaxRetxAction::Discard,
            ..cfg()
        };
        let (mut tx, _) = pair(c);
        tx.write_sdu(ms(0), sdu(1, 100)).unwrap();
        let _ = tx.pull_pdu(ms(0), 500);
        tx.on_timeout(ms(45));
        assert!(matches!(tx.pull_pdu(ms(45), 500), Some(RlcPdu::Mrw(_))));
        assert!(tx.pull_pdu(ms(46), 500).is_none());
        assert_eq!(tx.poll_timeout(), Some(ms(90)));
        assert!(matches!(tx.pull_pdu(ms(90), 500), Some(RlcPdu::Mrw(_))));
        assert_eq!(tx.stats().mrw_sent, 2);
    }
}

mod reception_5_1_3_2 {
    use super::*;

    #[test]
    fn duplicates_are_discarded_and_delivery_is_in_order() {
        let (mut tx, mut rx) = pair(cfg());
        for uid in 0..4 {
            tx.write_sdu(ms(0), sdu(uid, 100)).unwrap();
        }
        let pdus = drain(&mut tx, ms(0), 102);
        for k in [3usize, 1, 1, 0, 2, 3] {
            rx.on_pdu(ms(1), RlcPdu::Data(pdus[k].clone()));
        }
        assert_eq!(uids(&mut rx), vec![0, 1, 2, 3]);
        // The second SN 1 is a duplicate; the second SN 3 comes after VR(R) passed it, so it
        // falls outside the receiving window.
        assert_eq!(
            (rx.stats().pdus_duplicate, rx.stats().pdus_outside_window),
            (1, 1)
        );
        assert_eq!(rx.stats().sdus_delivered, 4);
    }

    #[test]
    fn the_window_stalls_at_am_window_size() {
        let (mut tx, _) = pair(cfg());
        for uid in 0..600 {
            tx.write_sdu(ms(0), sdu(uid, 40)).unwrap();
        }
        let pdus = drain(&mut tx, ms(0), 42);
        assert_eq!(pdus.len(), 512, "AM_Window_Size for a 10-bit SN");
        assert!(pdus[511].poll, "no new PDU can be sent: poll");
        assert_eq!(tx.buffer_status().new_tx_bytes, 0);
        assert_eq!(tx.tx_buffer_len().0, 88);
    }

    #[test]
    fn pdus_outside_the_receiving_window_are_discarded() {
        let (mut tx, mut rx) = pair(cfg());
        tx.write_sdu(ms(0), sdu(1, 100)).unwrap();
        let mut p = data(tx.pull_pdu(ms(0), 500).unwrap());
        p.sn = 600; // beyond VR(MR) = 512
        rx.on_pdu(ms(1), RlcPdu::Data(p.clone()));
        p.sn = 5000; // not a 10-bit SN
        rx.on_pdu(ms(1), RlcPdu::Data(p));
        assert_eq!(rx.stats().pdus_outside_window, 2);
        assert_eq!(rx.vr_h(), 0);
    }

    #[test]
    fn reestablishment_delivers_what_is_complete_and_resets() {
        let (mut tx, mut rx) = pair(cfg());
        for uid in 0..3 {
            tx.write_sdu(ms(0), sdu(uid, 100)).unwrap();
        }
        let pdus = drain(&mut tx, ms(0), 102);
        rx.on_pdu(ms(1), RlcPdu::Data(pdus[2].clone()));
        rx.reestablish();
        assert_eq!(uids(&mut rx), vec![2]);
        assert_eq!((rx.vr_r(), rx.vr_h(), rx.poll_timeout()), (0, 0, None));
        tx.reestablish();
        assert_eq!(
            (tx.vt_s(), tx.buffer_status()),
            (0, BufferStatus::default())
        );
    }
}

mod entity_and_config {
    use super::*;

    #[test]
    fn the_entity_sends_status_before_data_and_routes_by_kind() {
        let c = cfg();
        let mut ue: RlcAmEntity = RlcAmEntity::new(c).unwrap();
        let mut enb: RlcAmEntity = RlcAmEntity::new(c).unwrap();
        enb.write_sdu(ms(0), sdu(1, 100)).unwrap();
        ue.write_sdu(ms(0), sdu(2, 100)).unwrap();
        let dl = enb.pull_pdu(ms(0), 500).unwrap();
        ue.on_pdu(ms(1), dl);
        assert!(ue.buffer_status(ms(1)).status_bytes > 0);
        let first = ue.pull_pdu(ms(1), 500).unwrap();
        assert!(matches!(first, RlcPdu::Status(_)));
        let second = ue.pull_pdu(ms(1), 500).unwrap();
        assert!(matches!(second, RlcPdu::Data(_)));
        enb.on_pdu(ms(2), first);
        enb.on_pdu(ms(2), second);
        assert_eq!(enb.tx.vt_a(), 1);
        assert_eq!(enb.take_sdu().map(|p| p.uid), Some(2));
        assert_eq!(ue.take_sdu().map(|p| p.uid), Some(1));
    }

    #[test]
    fn buffer_limits_refuse_and_count() {
        let c = RlcAmConfig {
            tx_buffer: BufferLimit::Sdus(2),
            ..cfg()
        };
        let (mut tx, _) = pair(c);
        tx.write_sdu(ms(0), sdu(1, 100)).unwrap();
        tx.write_sdu(ms(0), sdu(2, 100)).unwrap();
        assert!(matches!(
            tx.write_sdu(ms(0), sdu(3, 100)),
            Err(RlcSduRefused::BufferFull { .. })
        ));
        assert_eq!((tx.stats().sdus_written, tx.stats().sdus_refused), (2, 1));
        assert_eq!(tx.buffer_status().new_tx_bytes, 204);
    }

    #[test]
    fn invalid_configurations_name_the_field() {
        let bad = |c: RlcAmConfig| RlcAmTx::<Packet>::new(c).unwrap_err().to_string();
        assert!(bad(RlcAmConfig {
            sn_bits: 11,
            ..cfg()
        })
        .contains("am.sn_bits"));
        assert!(bad(RlcAmConfig {
            poll_pdu: Some(0),
            ..cfg()
        })
        .contains("am.poll_pdu"));
        assert!(bad(RlcAmConfig {
            pdu_mode: PduMode::Fixed { bytes: 3 },
            ..cfg()
        })
        .contains("am.pdu_mode.bytes"));
        assert!(bad(RlcAmConfig {
            tx_buffer: BufferLimit::Bytes(0),
            ..cfg()
        })
        .contains("am.tx_buffer"));
    }
}

/// Handover with data forwarding: what the transmitting side hands back (36.300 §10.1.2.1.2,
/// 36.323 §5.2.1.1) and the re-establishment that follows (36.322 §5.4).
mod take_unconfirmed_handover {
    use super::*;
    use celltcp_engine::RngStream;
    use proptest::prelude::*;

    fn ids(sdus: &[Packet]) -> Vec<u64> {
        sdus.iter().map(|p| p.uid).collect()
    }

    #[test]
    fn starts_at_the_sdu_touching_vt_a_and_lists_each_sdu_once() {
        let (mut tx, mut rx) = pair(cfg());
        for uid in 1..=8 {
            tx.write_sdu(ms(0), sdu(uid, 100)).unwrap();
        }
        // 50 data bytes per PDU: SDU k is in SN 2k − 2 and 2k − 1; SN 10 carries the first
        // half of SDU 6, which stays at the head of the buffer with SDUs 7 and 8.
        let pdus: Vec<AmdPdu> = (0..11)
            .map(|_| data(tx.pull_pdu(ms(0), 52).unwrap()))
            .collect();
        assert_eq!(
            pdus[10].data.first().map(|e| (e.sdu.uid, e.offset)),
            Some((6, 0))
        );
        // SN 3 (the end of SDU 2) is lost, SN 9 and 10 are still in flight.
        for p in pdus[..9].iter().filter(|p| p.sn != 3) {
            rx.on_pdu(ms(1), RlcPdu::Data(p.clone()));
        }
        rx.on_timeout(ms(36)); // t-Reordering expiry reports the hole
        let status = rx.pull_status(ms(36), 100).unwrap();
        assert_eq!((status.ack_sn, status.nacks.len()), (9, 1));
        tx.on_status(ms(37), &status);
        assert_eq!((tx.vt_a(), tx.vt_s()), (3, 11));
        // Half of the NACKed SN 3 is retransmitted and in flight too.
        let retx = data(tx.pull_pdu(ms(37), 29).unwrap());
        assert_eq!((retx.sn, retx.segment.map(|s| s.so)), (3, Some(0)));
        assert_eq!(uids(&mut rx), vec![1]);
        let unconfirmed = tx.take_unconfirmed();
        // SDU 2 touches VT(A); SDUs 3 and 4 are acknowledged above the hole and still listed;
        // SDU 5 is half acknowledged, half in flight; SDU 6 half sent, half waiting.
        assert_eq!(ids(&unconfirmed), vec![2, 3, 4, 5, 6, 7, 8]);
        assert!(
            unconfirmed.iter().all(|p| p.size_bytes() == 100),
            "whole SDUs"
        );
        // Re-established: empty, state variables at 0, no timer, counters kept.
        assert!(tx.is_idle());
        assert_eq!((tx.vt_a(), tx.vt_s(), tx.poll_timeout()), (0, 0, None));
        assert_eq!(tx.buffer_status(), BufferStatus::default());
        assert_eq!(tx.stats().sdus_written, 8);
        assert!(tx.take_unconfirmed().is_empty());
    }

    #[test]
    fn concatenated_sdus_and_an_idle_window() {
        let (mut tx, mut rx) = pair(cfg());
        for uid in 1..=5 {
            tx.write_sdu(ms(0), sdu(uid, 60)).unwrap();
        }
        // One PDU: SDU 1, SDU 2 and the start of SDU 3 (concatenation, 36.322 §6.2.1.4).
        let first = data(tx.pull_pdu(ms(0), 150).unwrap());
        assert_eq!(
            first.data.iter().map(|e| e.sdu.uid).collect::<Vec<_>>(),
            vec![1, 2, 3]
        );
        assert_eq!(ids(&tx.take_unconfirmed()), vec![1, 2, 3, 4, 5]);
        // All sent and acknowledged: nothing is unconfirmed.
        for uid in 6..=7 {
            tx.write_sdu(ms(1), sdu(uid, 60)).unwrap();
        }
        for p in drain(&mut tx, ms(1), 1000) {
            rx.on_pdu(ms(2), RlcPdu::Data(p));
        }
        tx.on_status(ms(3), &rx.pull_status(ms(2), 100).unwrap());
        assert_eq!(tx.vt_a(), tx.vt_s());
        assert!(tx.take_unconfirmed().is_empty());
        assert_eq!(uids(&mut rx), vec![6, 7]);
    }

    proptest! {
        /// Through random losses, grants and STATUS reports, the unconfirmed SDUs are exactly
        /// the SDUs written from the one holding the first byte of AMD PDU VT(A) on (or from
        /// the head of the buffer when every PDU is acknowledged): a suffix of what was
        /// written, so together with what the receiver delivered it covers every SDU.
        #[test]
        fn unconfirmed_is_the_suffix_from_vt_a(seed in 0u64..10_000, steps in 1u64..120) {
            let mut rng = RngStream::new(seed, 0, "rlc/take_unconfirmed");
            let (mut tx, mut rx) = pair(cfg());
            let mut written: Vec<u64> = Vec::new();
            // SN → SDU of the first byte of the AMD PDU first sent with it.
            let mut first_sdu: std::collections::HashMap<u32, u64> = Default::default();
            let mut delivered: Vec<u64> = Vec::new();
            let mut uid = 0;
            for step in 0..steps {
                let now = ms(step);
                tx.on_timeout(now);
                rx.on_timeout(now);
                for _ in 0..rng.below(3) {
                    uid += 1;
                    tx.write_sdu(now, sdu(uid, 28 + rng.below(400) as u32)).unwrap();
                    written.push(uid);
                }
                for _ in 0..rng.below(4) {
                    let vt_s = tx.vt_s();
                    let Some(p) = tx.pull_pdu(now, 3 + rng.below(500) as u32) else { break };
                    let p = data(p);
                    if tx.vt_s() != vt_s {
                        first_sdu.insert(p.sn, p.data.first().unwrap().sdu.uid);
                    }
                    if !rng.bernoulli(0.3) {
                        rx.on_pdu(now, RlcPdu::Data(p));
                    }
                }
                if let Some(s) = rx.pull_status(now, 200) {
                    if !rng.bernoulli(0.2) {
                        tx.on_status(now, &s);
                    }
                }
                delivered.extend(uids(&mut rx));
            }
            let expected_first = if tx.vt_a() != tx.vt_s() {
                Some(first_sdu[&tx.vt_a()])
            } else {
                // The head SDU, whose start (if any) is in an acknowledged PDU.
                let (waiting, _) = tx.tx_buffer_len();
                (waiting > 0).then(|| written[written.len() - waiting])
            };
            let got = ids(&tx.take_unconfirmed());
            let k = expected_first.map_or(written.len(), |f| {
                written.iter().position(|&w| w == f).unwrap()
            });
            prop_assert_eq!(&got[..], &written[k..]);
            prop_assert_eq!(&delivered[..], &written[..delivered.len()]);
            prop_assert!(k <= delivered.len(), "an undelivered SDU is missing");
            prop_assert!(tx.is_idle());
        }
    }
}
