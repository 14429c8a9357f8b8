//! Unit tests of the NR AM entity, one per TS 38.322 clause, with small fixtures that put a
//! transmitting and a receiving side into the state the clause is about.

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::packet::Packet;

use super::*;
use crate::rlc::testkit::sdu;

fn ms(x: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_ms(x)
}

fn pair(cfg: NrRlcAmConfig) -> (NrRlcAmTx, NrRlcAmRx) {
    (NrRlcAmTx::new(cfg).unwrap(), NrRlcAmRx::new(cfg).unwrap())
}

fn uids(rx: &mut NrRlcAmRx) -> Vec<u64> {
    std::iter::from_fn(|| rx.take_sdu())
        .map(|p| p.uid)
        .collect()
}

fn events(tx: &mut NrRlcAmTx) -> Vec<NrRlcAmTxEvent> {
    std::iter::from_fn(|| tx.pop_event()).collect()
}

/// Writes SDUs `uids` of `bytes` each and pulls one PDU per SDU (grants large enough).
fn send_whole(
    tx: &mut NrRlcAmTx,
    now: SimTime,
    uids: std::ops::Range<u64>,
    bytes: u32,
) -> Vec<NrAmdPdu> {
    for uid in uids.clone() {
        tx.write_sdu(now, sdu(uid, bytes)).unwrap();
    }
    uids.map(|_| tx.pull_pdu(now, bytes + 10).unwrap())
        .collect()
}

fn with_segments(sn: u32, uid: u64, total: u32, parts: &[(u32, u32)]) -> Vec<NrAmdPdu> {
    parts
        .iter()
        .map(|&(offset, len)| NrAmdPdu {
            sn,
            poll: false,
            data: crate::rlc::DataElement {
                sdu: sdu(uid, total),
                offset,
                len,
            },
            sn_length: AmSnLength::Bits12,
        })
        .collect()
}

/// §5.2.3.2.3: each SDU is delivered as soon as all its bytes are there, whatever is missing
/// below it — RX_Next stays at the hole. (LTE's 36.322 §5.1.3.2.3 would hold SDUs 1 and 2.)
#[test]
fn rx_delivers_complete_sdus_out_of_order_5_2_3_2_3() {
    let (mut tx, mut rx) = pair(NrRlcAmConfig::default());
    let p = send_whole(&mut tx, ms(0), 0..3, 100);
    rx.on_pdu(ms(1), p[2]);
    rx.on_pdu(ms(1), p[1]);
    assert_eq!(uids(&mut rx), vec![2, 1]);
    assert_eq!((rx.rx_next(), rx.rx_next_highest()), (0, 3));
    rx.on_pdu(ms(2), p[0]);
    assert_eq!(uids(&mut rx), vec![0]);
    // x = RX_Highest_Status (0) completed: it moves to the first SN above not received.
    assert_eq!((rx.rx_next(), rx.rx_highest_status()), (3, 3));
    rx.on_pdu(ms(3), p[1]);
    assert_eq!(rx.stats().pdus_outside_window, 1, "below RX_Next now");
    assert!(uids(&mut rx).is_empty());
}

/// §5.2.3.1.1 and §6.2.2.4: without concatenation a grant smaller than the SDU carries a
/// segment; every segment has the SDU's SN, SO from the second one on, and TX_Next moves on
/// with the last segment.
#[test]
fn tx_segments_a_new_sdu_with_one_sn_5_2_3_1_1() {
    let (mut tx, mut rx) = pair(NrRlcAmConfig::default());
    tx.write_sdu(ms(0), sdu(7, 100)).unwrap();
    tx.write_sdu(ms(0), sdu(8, 30)).unwrap();
    assert_eq!(tx.buffer_status().new_tx_bytes, 130 + 2 * 2);
    let a = tx.pull_pdu(ms(0), 42).unwrap();
    assert_eq!(
        (a.sn, a.si(), a.so(), a.data.len, a.size_bytes()),
        (0, SegmentationInfo::First, None, 40, 42)
    );
    assert_eq!(tx.tx_next(), 0);
    assert_eq!(tx.buffer_status().new_tx_bytes, 60 + 2 + 2 + 30 + 2);
    let b = tx.pull_pdu(ms(0), 1000).unwrap();
    assert_eq!(
        (b.sn, b.si(), b.so(), b.data.len, b.header_bytes()),
        (0, SegmentationInfo::Last, Some(40), 60, 4)
    );
    assert_eq!(tx.tx_next(), 1);
    let c = tx.pull_pdu(ms(0), 1000).unwrap();
    assert_eq!(
        (c.sn, c.si(), c.size_bytes()),
        (1, SegmentationInfo::Complete, 32)
    );
    assert!(c.poll, "both buffers empty after it: poll (§5.3.3.2)");
    assert!(
        tx.pull_pdu(ms(0), 3).is_none(),
        "a 3-byte grant holds no data byte"
    );
    for p in [b, a, c] {
        rx.on_pdu(ms(1), p);
    }
    assert_eq!(uids(&mut rx), vec![7, 8]);
}

/// §5.3.2: a NACKed SDU is re-segmented to fit the grant, with SI and SO set; the receiver
/// reassembles it from segments of different sizes than the first transmission's.
#[test]
fn retransmission_is_resegmented_to_fit_the_grant_5_3_2() {
    let (mut tx, mut rx) = pair(NrRlcAmConfig::default());
    let p = send_whole(&mut tx, ms(0), 0..2, 300);
    rx.on_pdu(ms(1), p[1]); // SN 0 lost
    assert_eq!(uids(&mut rx), vec![1]);
    rx.on_timeout(ms(36)); // t-Reassembly (started at 1 ms) → STATUS
    let status = rx.pull_status(ms(36), 100).unwrap();
    assert_eq!((status.ack_sn, status.nacks.len()), (2, 1));
    assert_eq!(
        status.nacks[0],
        NrNack {
            sn: 0,
            so: None,
            range: None
        }
    );
    tx.on_status(ms(37), &status);
    assert_eq!(
        events(&mut tx),
        vec![NrRlcAmTxEvent::Delivered { sn: 1, sdu_id: 1 }]
    );
    assert_eq!(tx.tx_next_ack(), 0);
    let mut parts = Vec::new();
    for grant in [102, 150, 1000] {
        parts.push(tx.pull_pdu(ms(38), grant).unwrap());
    }
    let shape: Vec<_> = parts
        .iter()
        .map(|q| (q.sn, q.si(), q.so(), q.data.len))
        .collect();
    assert_eq!(
        shape,
        vec![
            (0, SegmentationInfo::First, None, 100),
            (0, SegmentationInfo::Middle, Some(100), 146),
            (0, SegmentationInfo::Last, Some(246), 54),
        ]
    );
    assert_eq!(tx.stats().pdus_retx, 3);
    for q in parts.into_iter().rev() {
        rx.on_pdu(ms(39), q);
    }
    assert_eq!(uids(&mut rx), vec![0]);
    assert_eq!(rx.rx_next(), 2);
}

/// Puts a receiver (12-bit SN) in the state: SN 0 received, 1..=3 missing, 4 has bytes
/// [0, 50), 5 missing, 6 has bytes [30, 100), 7 received; t-Reassembly expired twice: at
/// 35 ms (started by SN 4 with RX_Next_Status_Trigger = 5, so RX_Highest_Status = 5 and the
/// timer restarts for what lies above) and at 70 ms (RX_Highest_Status = 8).
fn holes() -> NrRlcAmRx {
    let mut rx: NrRlcAmRx = NrRlcAmRx::new(NrRlcAmConfig::default()).unwrap();
    let mut pdus = with_segments(0, 0, 100, &[(0, 100)]);
    pdus.extend(with_segments(4, 4, 100, &[(0, 50)]));
    pdus.extend(with_segments(6, 6, 100, &[(30, 70)]));
    pdus.extend(with_segments(7, 7, 100, &[(0, 100)]));
    for p in pdus {
        rx.on_pdu(ms(0), p);
    }
    rx.on_timeout(ms(35));
    assert_eq!(
        (rx.rx_highest_status(), rx.poll_timeout()),
        (5, Some(ms(70)))
    );
    rx.on_timeout(ms(70));
    rx
}

/// §5.3.4 and §6.2.2.5: whole missing SDUs in a row are one NACK with a NACK range; missing
/// bytes that run from inside one SDU through whole SDUs into another are one NACK with
/// SOstart (of the first), SOend (of the last) and a range; ACK_SN = RX_Highest_Status.
#[test]
fn status_reports_nack_ranges_and_so_5_3_4() {
    let mut rx = holes();
    assert_eq!((rx.rx_next(), rx.rx_highest_status()), (1, 8));
    let expected = vec![
        NrNack {
            sn: 1,
            so: None,
            range: Some(3),
        },
        NrNack {
            sn: 4,
            so: Some(NackSo {
                start: 50,
                end: Some(30),
            }),
            range: Some(3),
        },
    ];
    // 3 + (2 + 1) + (2 + 4 + 1) bytes with a 12-bit SN.
    assert_eq!(rx.status_bytes(ms(70)), 13);
    let s = rx.pull_status(ms(70), 13).unwrap();
    assert_eq!((s.ack_sn, &s.nacks, s.size_bytes()), (8, &expected, 13));
    assert!(
        rx.pull_status(ms(70), 100).is_none(),
        "sent: no longer triggered"
    );
}

/// §5.3.4: NACKs that do not fit the grant are left out, and ACK_SN becomes the SN of the
/// first one left out.
#[test]
fn a_status_cut_to_the_grant_acks_up_to_the_first_nack_left_out_5_3_4() {
    let mut rx = holes();
    assert!(
        rx.pull_status(ms(70), 2).is_none(),
        "3 bytes needed for ACK_SN alone"
    );
    let s = rx.pull_status(ms(70), 12).unwrap();
    assert_eq!(s.ack_sn, 4);
    assert_eq!(
        s.nacks,
        vec![NrNack {
            sn: 1,
            so: None,
            range: Some(3)
        }]
    );
    assert_eq!(s.size_bytes(), 6);
}

/// §5.3.4 with §6.2.3.10: a STATUS PDU is not cut between two NACKs of one SDU — below ACK_SN
/// every byte no NACK names counts as received, so ACK_SN stops before the SDU and its NACKs
/// are left out together.
#[test]
fn a_status_is_not_cut_inside_one_sdus_nacks_5_3_4() {
    let mut rx: NrRlcAmRx = NrRlcAmRx::new(NrRlcAmConfig::default()).unwrap();
    let mut pdus = with_segments(0, 0, 100, &[(10, 10), (30, 70)]);
    pdus.extend(with_segments(1, 1, 100, &[(0, 100)]));
    for p in pdus {
        rx.on_pdu(ms(0), p);
    }
    rx.on_timeout(ms(35));
    let so = |start, end| {
        Some(NackSo {
            start,
            end: Some(end),
        })
    };
    assert_eq!(rx.status_bytes(ms(35)), 3 + 6 + 6);
    let full = rx.pull_status(ms(35), 15).unwrap();
    assert_eq!(
        (full.ack_sn, full.nacks),
        (
            2,
            vec![
                NrNack {
                    sn: 0,
                    so: so(0, 10),
                    range: None
                },
                NrNack {
                    sn: 0,
                    so: so(20, 30),
                    range: None
                }
            ]
        )
    );
    let mut rx2: NrRlcAmRx = NrRlcAmRx::new(NrRlcAmConfig::default()).unwrap();
    let mut pdus = with_segments(0, 0, 100, &[(10, 10), (30, 70)]);
    pdus.extend(with_segments(1, 1, 100, &[(0, 100)]));
    for p in pdus {
        rx2.on_pdu(ms(0), p);
    }
    rx2.on_timeout(ms(35));
    let cut = rx2.pull_status(ms(35), 14).unwrap();
    assert_eq!((cut.ack_sn, cut.nacks.len(), cut.size_bytes()), (0, 0, 3));
}

/// The transmitting side reads NACK ranges and SO back into byte ranges per SDU
/// (§5.3.2) and retransmits exactly the missing bytes.
#[test]
fn tx_retransmits_the_bytes_a_nack_range_with_so_names_5_3_2() {
    let (mut tx, _) = pair(NrRlcAmConfig::default());
    send_whole(&mut tx, ms(0), 0..8, 100);
    let status = holes().pull_status(ms(70), 100).unwrap();
    tx.on_status(ms(71), &status);
    let delivered: Vec<u32> = events(&mut tx)
        .into_iter()
        .map(|e| match e {
            NrRlcAmTxEvent::Delivered { sn, .. } => sn,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(delivered, vec![0, 7]);
    assert_eq!(tx.tx_next_ack(), 1);
    let retx: Vec<_> = std::iter::from_fn(|| tx.pull_pdu(ms(72), 1000))
        .map(|p| (p.sn, p.data.offset, p.data.len))
        .collect();
    assert_eq!(
        retx,
        vec![
            (1, 0, 100),
            (2, 0, 100),
            (3, 0, 100),
            (4, 50, 50),
            (5, 0, 100),
            (6, 0, 30)
        ]
    );
}

/// §5.3.2: RETX_COUNT is 0 at the first consideration and counts each further one; at
/// maxRetxThreshold the upper layer is told, and retransmission goes on.
#[test]
fn max_retx_threshold_is_reported_5_3_2() {
    let cfg = NrRlcAmConfig {
        max_retx_threshold: Some(2),
        ..NrRlcAmConfig::default()
    };
    let (mut tx, _) = pair(cfg);
    send_whole(&mut tx, ms(0), 0..1, 100);
    let nack = NrStatusPdu {
        ack_sn: 1,
        nacks: vec![NrNack {
            sn: 0,
            so: None,
            range: None,
        }],
        sn_length: AmSnLength::Bits12,
    };
    for round in 0..3u64 {
        assert!(events(&mut tx).is_empty(), "round {round}");
        tx.on_status(ms(10 * round), &nack);
        // The same NACK again before the retransmission: already pending, not counted.
        tx.on_status(ms(10 * round), &nack);
        tx.pull_pdu(ms(10 * round), 1000).unwrap();
    }
    assert_eq!(
        events(&mut tx),
        vec![NrRlcAmTxEvent::MaxRetxReached {
            sn: 0,
            sdu_id: 0,
            retx_count: 2
        }]
    );
    assert_eq!(tx.stats().max_retx_reached, 1);
    tx.on_status(ms(40), &nack);
    assert!(
        tx.pull_pdu(ms(40), 1000).is_some(),
        "retransmissions continue"
    );
}

/// §5.3.3.2/§5.3.3.4: the last PDU before an empty buffer polls, POLL_SN is the highest SN
/// submitted; on t-PollRetransmit expiry with nothing new to send the highest SN is resent
/// with a poll; a STATUS acknowledging POLL_SN stops the timer (§5.3.3.3).
#[test]
fn t_poll_retransmit_resends_the_highest_sn_with_a_poll_5_3_3_4() {
    let (mut tx, mut rx) = pair(NrRlcAmConfig::default());
    let p = send_whole(&mut tx, ms(0), 0..3, 100);
    assert_eq!(
        p.iter().map(|q| q.poll).collect::<Vec<_>>(),
        vec![false, false, true]
    );
    assert_eq!((tx.poll_sn(), tx.poll_timeout()), (2, Some(ms(45))));
    rx.on_pdu(ms(1), p[0]);
    rx.on_pdu(ms(1), p[1]); // SN 2 with the poll is lost
    assert!(tx.pull_pdu(ms(44), 1000).is_none());
    let again = tx.pull_pdu(ms(45), 1000).unwrap();
    assert_eq!((again.sn, again.poll), (2, true));
    assert_eq!(tx.stats().t_poll_retransmit_expiries, 1);
    rx.on_pdu(ms(46), again);
    let s = rx.pull_status(ms(46), 100).unwrap();
    assert_eq!((s.ack_sn, s.nacks.len()), (3, 0));
    tx.on_status(ms(47), &s);
    assert_eq!((tx.tx_next_ack(), tx.poll_timeout()), (3, None));
    assert!(tx.is_idle());
}

/// §5.3.3.2: pollPDU and pollByte count new PDUs and bytes since the last poll.
#[test]
fn poll_pdu_and_poll_byte_set_the_p_field_5_3_3_2() {
    let cfg = NrRlcAmConfig {
        poll_pdu: Some(4),
        poll_byte: Some(250),
        ..NrRlcAmConfig::default()
    };
    let (mut tx, _) = pair(cfg);
    for uid in 0..20 {
        tx.write_sdu(ms(0), sdu(uid, 100)).unwrap();
    }
    let polls: Vec<bool> = (0..8)
        .map(|_| tx.pull_pdu(ms(0), 102).unwrap().poll)
        .collect();
    // pollByte fires at 300 bytes (third PDU) before pollPDU's fourth.
    assert_eq!(
        polls,
        vec![false, false, true, false, false, true, false, false]
    );
    let cfg = NrRlcAmConfig {
        poll_pdu: Some(2),
        ..NrRlcAmConfig::default()
    };
    let (mut tx, _) = pair(cfg);
    for uid in 0..20 {
        tx.write_sdu(ms(0), sdu(uid, 100)).unwrap();
    }
    let polls: Vec<bool> = (0..4)
        .map(|_| tx.pull_pdu(ms(0), 102).unwrap().poll)
        .collect();
    assert_eq!(polls, vec![false, true, false, true]);
}

/// §5.2.3.1.1 and §5.3.3.2: TX_Next stops at TX_Next_Ack + AM_Window_Size (2048 with a
/// 12-bit SN); the PDU that fills the window polls.
#[test]
fn the_window_stalls_at_am_window_size_and_polls_5_2_3_1_1() {
    let (mut tx, _) = pair(NrRlcAmConfig::default());
    for uid in 0..2100 {
        tx.write_sdu(ms(0), sdu(uid, 50)).unwrap();
    }
    let sent: Vec<NrAmdPdu> = std::iter::from_fn(|| tx.pull_pdu(ms(0), 100)).collect();
    assert_eq!(sent.len(), 2048);
    assert!(sent[2047].poll && !sent[2046].poll);
    assert_eq!(tx.tx_next(), 2048);
    let ack = NrStatusPdu {
        ack_sn: 10,
        nacks: vec![],
        sn_length: AmSnLength::Bits12,
    };
    tx.on_status(ms(1), &ack);
    assert_eq!(std::iter::from_fn(|| tx.pull_pdu(ms(1), 100)).count(), 10);
}

/// §5.3.4: a poll is answered at once when x < RX_Highest_Status, else the trigger waits
/// until it is; t-StatusProhibit delays the STATUS PDU.
#[test]
fn polls_trigger_status_and_t_status_prohibit_delays_it_5_3_4() {
    let cfg = NrRlcAmConfig {
        t_status_prohibit: SimDuration::from_ms(10),
        ..NrRlcAmConfig::default()
    };
    let (mut tx, mut rx) = pair(cfg);
    let p = send_whole(&mut tx, ms(0), 0..2, 100);
    assert!(p[1].poll);
    rx.on_pdu(ms(1), p[1]); // SN 1 polls but SN 0 is missing: trigger waits
    assert!(!rx.status_triggered());
    rx.on_pdu(ms(2), p[0]); // x = 0 completed: RX_Highest_Status moves to 2 > 1
                            // RX_Highest_Status moves only when x equals it: SN 0 = RX_Highest_Status.
    assert_eq!(rx.rx_highest_status(), 2);
    assert!(rx.status_triggered());
    let s = rx.pull_status(ms(2), 100).unwrap();
    assert_eq!(s.ack_sn, 2);
    // A further poll within t-StatusProhibit waits for its expiry.
    let q = send_whole(&mut tx, ms(3), 2..3, 100);
    rx.on_pdu(ms(3), q[0]);
    assert!(rx.status_triggered());
    assert_eq!(
        (rx.status_bytes(ms(3)), rx.poll_timeout()),
        (0, Some(ms(12)))
    );
    assert!(rx.pull_status(ms(11), 100).is_none());
    assert_eq!(rx.pull_status(ms(12), 100).unwrap().ack_sn, 3);
}

/// §5.3.4: a poll in SN x waits "until x < RX_Highest_Status or x >= RX_Next +
/// AM_Window_Size", each poll on its own. Five 100-byte SDUs in SNs 0..=4, polls in SNs 2 and
/// 4, SNs 0 and 3 held back by HARQ: both polls wait (RX_Highest_Status = 0). SN 0 arriving
/// moves RX_Highest_Status to 3 > 2: STATUS (ACK_SN 3; a receiver keeping only the highest
/// delayed poll would stay silent). SN 3 moves it to 5 > 4: STATUS again (ACK_SN 5; keeping
/// only the lowest would have forgotten the poll in SN 4).
#[test]
fn each_delayed_poll_triggers_when_rx_highest_status_passes_it_5_3_4() {
    let (mut tx, mut rx) = pair(NrRlcAmConfig::default());
    let mut p = send_whole(&mut tx, ms(0), 0..5, 100);
    p[2].poll = true;
    assert_eq!(
        p.iter().map(|q| q.poll).collect::<Vec<_>>(),
        [false, false, true, false, true]
    );
    for i in [1, 2, 4] {
        rx.on_pdu(ms(1), p[i]);
    }
    assert!(
        !rx.status_triggered(),
        "x >= RX_Highest_Status = 0: both polls wait"
    );
    rx.on_pdu(ms(2), p[0]);
    assert_eq!(rx.rx_highest_status(), 3);
    assert!(
        rx.status_triggered(),
        "the poll in SN 2 < RX_Highest_Status = 3"
    );
    assert_eq!(rx.pull_status(ms(2), 100).unwrap().ack_sn, 3);
    rx.on_pdu(ms(3), p[3]);
    assert_eq!(rx.rx_highest_status(), 5);
    assert!(
        rx.status_triggered(),
        "the poll in SN 4 < RX_Highest_Status = 5"
    );
    assert_eq!(rx.pull_status(ms(3), 100).unwrap().ack_sn, 5);
}

/// §5.2.3.2.3/§5.2.3.2.4 with an 18-bit SN: t-Reassembly starts on a hole, stops when the
/// hole fills, and on expiry moves RX_Highest_Status past the received SDUs and restarts for
/// what is missing above.
#[test]
fn t_reassembly_starts_stops_and_restarts_18_bit_5_2_3_2_4() {
    let cfg = NrRlcAmConfig {
        sn_length: AmSnLength::Bits18,
        ..NrRlcAmConfig::default()
    };
    let (mut tx, mut rx) = pair(cfg);
    let p = send_whole(&mut tx, ms(0), 0..6, 100);
    assert_eq!(p[0].header_bytes(), 3);
    rx.on_pdu(ms(0), p[1]);
    assert_eq!(rx.poll_timeout(), Some(ms(35)));
    rx.on_pdu(ms(1), p[0]);
    assert_eq!(rx.poll_timeout(), None, "RX_Next_Status_Trigger = RX_Next");
    rx.on_pdu(ms(2), p[3]);
    assert_eq!(rx.poll_timeout(), Some(ms(37)));
    rx.on_pdu(ms(3), p[5]);
    rx.on_timeout(ms(37));
    // Trigger was 4: RX_Highest_Status = 4 (first SN ≥ 4 not received); 5 above → restart.
    assert_eq!(
        (rx.rx_highest_status(), rx.poll_timeout()),
        (4, Some(ms(72)))
    );
    let s = rx.pull_status(ms(37), 100).unwrap();
    assert_eq!(s.ack_sn, 4);
    assert_eq!(
        s.nacks,
        vec![NrNack {
            sn: 2,
            so: None,
            range: None
        }]
    );
    assert_eq!(s.size_bytes(), 3 + 3);
}

/// §5.4: the upper layer's discard removes an SDU no segment of which was submitted; a
/// partly sent one stays, and SNs stay gap-free.
#[test]
fn discard_applies_only_to_sdus_not_yet_submitted_5_4() {
    let (mut tx, _) = pair(NrRlcAmConfig::default());
    for uid in 0..3 {
        tx.write_sdu(ms(0), sdu(uid, 100)).unwrap();
    }
    tx.pull_pdu(ms(0), 52).unwrap();
    assert!(!tx.discard_sdu(0));
    assert!(tx.discard_sdu(1));
    let rest: Vec<(u32, u64)> = std::iter::from_fn(|| tx.pull_pdu(ms(0), 1000))
        .map(|p| (p.sn, p.data.sdu.uid))
        .collect();
    assert_eq!(rest, vec![(0, 0), (1, 2)]);
    assert_eq!(tx.stats().sdus_discarded, 1);
}

/// A STATUS whose ACK_SN lies beyond what was sent is ignored.
#[test]
fn an_impossible_status_is_ignored() {
    let (mut tx, _) = pair(NrRlcAmConfig::default());
    send_whole(&mut tx, ms(0), 0..2, 100);
    let bad = NrStatusPdu {
        ack_sn: 5,
        nacks: vec![],
        sn_length: AmSnLength::Bits12,
    };
    tx.on_status(ms(1), &bad);
    assert_eq!((tx.tx_next_ack(), tx.stats().status_invalid), (0, 1));
}

#[test]
fn invalid_configuration_names_the_field() {
    let cfg = NrRlcAmConfig {
        max_retx_threshold: Some(5),
        ..NrRlcAmConfig::default()
    };
    let err = NrRlcAmTx::<Packet>::new(cfg).unwrap_err().to_string();
    assert!(
        err.starts_with("rlc.nr_am.max_retx_threshold: 5 is not allowed"),
        "{err}"
    );
}

/// Two entities through their combined interface: a STATUS goes first in a grant
/// (§5.2.3.1.1), data and STATUS reach the right side of the peer.
#[test]
fn entities_exchange_data_and_status_through_one_interface() {
    let mut a: NrRlcAmEntity = NrRlcAmEntity::new(NrRlcAmConfig::default()).unwrap();
    let mut b: NrRlcAmEntity = NrRlcAmEntity::new(NrRlcAmConfig::default()).unwrap();
    for uid in 0..2 {
        a.write_sdu(ms(0), sdu(uid, 100)).unwrap();
    }
    b.write_sdu(ms(0), sdu(9, 100)).unwrap();
    assert_eq!(a.buffer_status(ms(0)).new_tx_bytes, 204);
    let d0 = a.pull_pdu(ms(0), 102).unwrap();
    let d1 = a.pull_pdu(ms(0), 102).unwrap(); // polls: buffer empty
    b.on_pdu(ms(1), d1);
    b.on_pdu(ms(1), d0);
    assert_eq!(
        std::iter::from_fn(|| b.take_sdu())
            .map(|p| p.uid)
            .collect::<Vec<_>>(),
        vec![1, 0]
    );
    assert_eq!(b.buffer_status(ms(1)).status_bytes, 3);
    let first = b.pull_pdu(ms(1), 1000).unwrap();
    assert!(matches!(first, NrRlcPdu::Status(ref s) if s.ack_sn == 2 && s.nacks.is_empty()));
    assert!(matches!(b.pull_pdu(ms(1), 1000), Some(NrRlcPdu::Data(_))));
    a.on_pdu(ms(2), first);
    assert!(a.tx.is_idle());
    assert_eq!(a.poll_timeout(), None);
}

/// Byte ranges `[a, b)` of `0..total` not covered by `got`.
fn complement(total: u32, got: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut sorted = got.to_vec();
    sorted.sort_unstable();
    let (mut out, mut pos) = (Vec::new(), 0);
    for (a, b) in sorted {
        if a > pos {
            out.push((pos, a));
        }
        pos = pos.max(b);
    }
    if pos < total {
        out.push((pos, total));
    }
    out
}

/// Merges touching ranges of a sorted list.
fn merged(mut r: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    r.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::new();
    for (a, b) in r {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 200, ..Default::default() })]

    /// §5.3.4 and §5.3.2 as a round trip: whatever segments of whatever SDUs arrive, the
    /// STATUS PDU fits the grant, every SDU below ACK_SN that it does not NACK was received
    /// whole (and is reported delivered to the transmitter's upper layer), and the NACKs — with
    /// ranges and SO — make the transmitter resend exactly the bytes that did not arrive.
    #[test]
    fn status_nacks_exactly_the_missing_bytes(
        sizes in proptest::collection::vec(28u32..400, 1..40),
        segment_grant in 20u32..200,
        kept in proptest::collection::vec(proptest::prelude::any::<bool>(), 400),
        grant in 3u32..200,
        sn18 in proptest::prelude::any::<bool>(),
        before_wrap in 1u32..60,
    ) {
        let sn_length = if sn18 { AmSnLength::Bits18 } else { AmSnLength::Bits12 };
        let cfg = NrRlcAmConfig { sn_length, ..NrRlcAmConfig::default() };
        let first_sn = (1u32 << sn_length.bits()) - before_wrap;
        let mut tx: NrRlcAmTx = NrRlcAmTx::starting_at(cfg, first_sn);
        let mut rx: NrRlcAmRx = NrRlcAmRx::starting_at(cfg, first_sn);
        for (uid, &size) in sizes.iter().enumerate() {
            tx.write_sdu(ms(0), sdu(uid as u64, size)).unwrap();
        }
        let pdus: Vec<NrAmdPdu> = std::iter::from_fn(|| tx.pull_pdu(ms(0), segment_grant)).collect();
        let mut received = vec![Vec::new(); sizes.len()];
        for (p, keep) in pdus.iter().zip(kept.iter().cycle()) {
            if *keep {
                received[p.data.sdu.uid as usize].push((p.data.offset, p.data.offset + p.data.len));
                rx.on_pdu(ms(0), *p);
            }
        }
        while let Some(t) = rx.poll_timeout() {
            rx.on_timeout(t);
        }
        let Some(status) = rx.pull_status(SimTime::from_ns(u64::MAX / 2), grant) else {
            return Ok(());
        };
        proptest::prop_assert!(status.size_bytes() <= grant);
        tx.on_status(ms(1), &status);
        let acked = (status.ack_sn.wrapping_sub(first_sn) & ((1 << sn_length.bits()) - 1)) as usize;
        let delivered: Vec<u64> = events(&mut tx)
            .into_iter()
            .filter_map(|e| match e {
                NrRlcAmTxEvent::Delivered { sdu_id, .. } => Some(sdu_id),
                _ => None,
            })
            .collect();
        let mut resent = vec![Vec::new(); sizes.len()];
        while let Some(p) = tx.pull_pdu(ms(2), 100_000) {
            resent[p.data.sdu.uid as usize].push((p.data.offset, p.data.offset + p.data.len));
        }
        for k in 0..sizes.len() {
            let missing = complement(sizes[k], &received[k]);
            if k < acked {
                proptest::prop_assert_eq!(merged(resent[k].clone()), missing.clone(), "SDU {}", k);
                proptest::prop_assert_eq!(delivered.contains(&(k as u64)), missing.is_empty());
            } else {
                proptest::prop_assert!(resent[k].is_empty() && !delivered.contains(&(k as u64)));
            }
        }
    }
}
