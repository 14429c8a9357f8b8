//! Fixtures shared by the disciplines' tests: a packet builder and the conservation property
//! harness that every discipline must pass.

use std::collections::VecDeque;
use std::net::Ipv4Addr;

use crate::packet::FlowId;
use celltcp_engine::{RngStream, SimDuration, SimTime};
use proptest::prelude::*;

use super::{DropCause, QueueDisc, Verdict};
use crate::packet::{Ecn, IpHeader, Packet, Transport, UdpHeader};

/// A UDP packet of `payload_len` application bytes (`size_bytes() = payload_len + 28`).
pub(crate) fn udp_packet(uid: u64, payload_len: u32, ecn: Ecn) -> Packet {
    Packet {
        uid,
        flow: FlowId(0),
        ip: IpHeader {
            src: Ipv4Addr::new(10, 0, 0, 1),
            dst: Ipv4Addr::new(10, 0, 0, 2),
            ecn,
            dscp: 0,
            ttl: 64,
            id: 0,
        },
        transport: Transport::Udp(UdpHeader {
            src_port: 5000,
            dst_port: 5001,
        }),
        payload_len,
        app_seq: uid,
        created_at: SimTime::ZERO,
        tunnel: None,
    }
}

/// One step of a random workload.
#[derive(Clone, Debug)]
pub(crate) enum Op {
    /// Offer a packet with this payload (bytes) and ECN field.
    Enqueue {
        payload: u32,
        ecn: Ecn,
    },
    Dequeue,
    /// Let simulated time pass, nanoseconds.
    Advance(u64),
}

/// Random workloads: arrivals somewhat more frequent than departures so that queues build, and
/// time steps up to `max_step_ns`.
pub(crate) fn ops(max_step_ns: u64, max_len: usize) -> impl Strategy<Value = Vec<Op>> {
    let ecn = prop_oneof![
        Just(Ecn::NotEct),
        Just(Ecn::Ect0),
        Just(Ecn::Ect1),
        Just(Ecn::Ce)
    ];
    let op = prop_oneof![
        5 => (0u32..1473, ecn).prop_map(|(payload, ecn)| Op::Enqueue { payload, ecn }),
        3 => Just(Op::Dequeue),
        2 => (0..=max_step_ns).prop_map(Op::Advance),
    ];
    proptest::collection::vec(op, 0..max_len)
}

/// Applies `ops` to `q` and checks, after every step:
/// * offered = enqueued + dropped at enqueue, with the stats agreeing with the verdicts;
/// * enqueued = dequeued + dropped at dequeue + backlog;
/// * `len_packets`/`len_bytes` equal the count and byte sum of the packets the harness knows
///   are queued;
/// * every packet that leaves (sent or dropped at dequeue) is the oldest one queued (FIFO);
/// * CE appears only on ECN-capable packets, and `ce_marked` counts the marks: every verdict
///   with `ce_marked`, every ECT packet that leaves as CE, and at most the packets that were
///   queued as CE already (a mark leaves their field unchanged, RFC 3168 §5).
pub(crate) fn check_conservation(q: &mut dyn QueueDisc, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut rng = RngStream::new(1, 0, "test/queue/conservation");
    let mut now = SimTime::ZERO;
    let mut next_uid = 0u64;
    // (uid, size_bytes, ecn as queued, i.e. after any mark at enqueue) of the packets believed
    // queued, oldest first.
    let mut shadow: VecDeque<(u64, u32, Ecn)> = VecDeque::new();
    let (mut offered, mut enq, mut drop_at_enq) = (0u64, 0u64, 0u64);
    let (mut full_drops, mut aqm_drops, mut ce_marks) = (0u64, 0u64, 0u64);
    let (mut deq, mut drop_at_deq) = (0u64, 0u64);
    // Packets sent that were queued as CE: a re-mark of one is counted but not visible.
    let mut ce_sent = 0u64;
    for op in ops {
        match *op {
            Op::Enqueue { payload, ecn } => {
                let pkt = udp_packet(next_uid, payload, ecn);
                next_uid += 1;
                offered += 1;
                match q.enqueue(pkt, now, &mut rng) {
                    Verdict::Enqueued { ce_marked } => {
                        enq += 1;
                        if ce_marked {
                            prop_assert!(ecn != Ecn::NotEct, "CE set on a Not-ECT packet");
                            ce_marks += 1;
                        }
                        let queued_ecn = if ce_marked { Ecn::Ce } else { ecn };
                        shadow.push_back((pkt.uid, pkt.size_bytes(), queued_ecn));
                    }
                    Verdict::Dropped(cause) => {
                        drop_at_enq += 1;
                        match cause {
                            DropCause::QueueFull => full_drops += 1,
                            DropCause::Aqm => aqm_drops += 1,
                            other => prop_assert!(false, "queue reported {other:?}"),
                        }
                    }
                }
            }
            Op::Dequeue => {
                let mut dropped: Vec<(Packet, DropCause)> = Vec::new();
                let out = q.dequeue(now, &mut |p, c| dropped.push((p, c)));
                for (p, cause) in dropped {
                    prop_assert_eq!(cause, DropCause::Aqm);
                    let head = shadow.pop_front();
                    prop_assert_eq!(head.map(|h| h.0), Some(p.uid), "drop not at the head");
                    drop_at_deq += 1;
                    aqm_drops += 1;
                }
                if let Some(p) = out {
                    let head = shadow.pop_front();
                    prop_assert_eq!(head.map(|h| h.0), Some(p.uid), "FIFO order broken");
                    let (_, _, queued_ecn) = head.unwrap();
                    if queued_ecn == Ecn::Ce {
                        prop_assert_eq!(p.ip.ecn, Ecn::Ce, "CE reset by the queue");
                        ce_sent += 1;
                    } else if p.ip.ecn != queued_ecn {
                        // Only a mark at dequeue may change the field, and only to CE.
                        prop_assert_eq!(p.ip.ecn, Ecn::Ce);
                        prop_assert!(queued_ecn.is_ect(), "CE set on {queued_ecn:?}");
                        ce_marks += 1;
                    }
                    deq += 1;
                } else {
                    prop_assert!(shadow.is_empty(), "None returned with a backlog");
                }
            }
            Op::Advance(dt) => now += SimDuration::from_ns(dt),
        }
        let s = *q.stats();
        prop_assert_eq!(offered, s.enqueued + drop_at_enq);
        prop_assert_eq!(s.enqueued, enq);
        prop_assert_eq!(
            s.enqueued,
            s.dequeued + drop_at_deq + q.len_packets() as u64
        );
        prop_assert_eq!(s.dequeued, deq);
        prop_assert_eq!(s.dropped_full, full_drops);
        prop_assert_eq!(s.dropped_aqm, aqm_drops);
        prop_assert!(s.ce_marked >= ce_marks && s.ce_marked <= ce_marks + ce_sent);
        prop_assert_eq!(q.len_packets(), shadow.len());
        prop_assert_eq!(
            q.len_bytes(),
            shadow.iter().map(|e| e.1 as u64).sum::<u64>()
        );
    }
    Ok(())
}
