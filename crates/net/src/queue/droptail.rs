//! Drop-tail FIFO: the default router queue. An arrival that would exceed the limit is
//! discarded; everything else leaves in arrival order.

use celltcp_engine::{RngStream, SimTime};

use super::fifo::Fifo;
use super::{DropCause, ParamError, QueueDisc, QueueLimit, QueueStats, Verdict};
use crate::packet::Packet;

/// First-in first-out queue with a hard limit in packets or bytes.
#[derive(Debug)]
pub struct DropTail {
    limit: QueueLimit,
    fifo: Fifo,
    stats: QueueStats,
}

impl DropTail {
    /// A drop-tail queue holding at most `limit`; a zero limit is rejected.
    pub fn new(limit: QueueLimit) -> Result<Self, ParamError> {
        Ok(DropTail {
            limit: limit.validate("droptail.limit")?,
            fifo: Fifo::new(),
            stats: QueueStats::default(),
        })
    }

    pub fn limit(&self) -> QueueLimit {
        self.limit
    }
}

impl QueueDisc for DropTail {
    fn enqueue(&mut self, pkt: Packet, now: SimTime, _rng: &mut RngStream) -> Verdict {
        if !self
            .limit
            .admits(self.fifo.len(), self.fifo.bytes(), pkt.size_bytes())
        {
            self.stats.dropped_full += 1;
            return Verdict::Dropped(DropCause::QueueFull);
        }
        self.fifo.push(pkt, now);
        self.stats.enqueued += 1;
        Verdict::Enqueued { ce_marked: false }
    }

    fn dequeue(
        &mut self,
        _now: SimTime,
        _on_drop: &mut dyn FnMut(Packet, DropCause),
    ) -> Option<Packet> {
        let (pkt, _) = self.fifo.pop()?;
        self.stats.dequeued += 1;
        Some(pkt)
    }

    fn len_packets(&self) -> usize {
        self.fifo.len()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.bytes()
    }

    fn stats(&self) -> &QueueStats {
        &self.stats
    }

    fn kind(&self) -> &'static str {
        "droptail"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::queue::testkit::{check_conservation, ops, udp_packet};
    use proptest::prelude::*;

    fn rng() -> RngStream {
        RngStream::new(1, 0, "test/queue/droptail")
    }

    fn no_drop(_: Packet, _: DropCause) {
        panic!("drop-tail never drops at dequeue");
    }

    #[test]
    fn packet_limit_drops_the_arrival_beyond_it() {
        let mut q = DropTail::new(QueueLimit::Packets(3)).unwrap();
        let mut r = rng();
        let t = SimTime::ZERO;
        for uid in 0..3 {
            assert_eq!(
                q.enqueue(udp_packet(uid, 1000, Ecn::NotEct), t, &mut r),
                Verdict::Enqueued { ce_marked: false }
            );
        }
        // A tiny packet is refused too: the limit counts packets, not bytes.
        assert_eq!(
            q.enqueue(udp_packet(3, 0, Ecn::NotEct), t, &mut r),
            Verdict::Dropped(DropCause::QueueFull)
        );
        assert_eq!(q.len_packets(), 3);
        assert_eq!(q.dequeue(t, &mut no_drop).map(|p| p.uid), Some(0));
        assert!(matches!(
            q.enqueue(udp_packet(4, 0, Ecn::NotEct), t, &mut r),
            Verdict::Enqueued { .. }
        ));
        let order: Vec<u64> = std::iter::from_fn(|| q.dequeue(t, &mut no_drop))
            .map(|p| p.uid)
            .collect();
        assert_eq!(order, vec![1, 2, 4]);
        assert_eq!(
            q.stats(),
            &QueueStats {
                enqueued: 4,
                dequeued: 4,
                dropped_full: 1,
                ..Default::default()
            }
        );
    }

    #[test]
    fn byte_limit_counts_whole_datagrams() {
        // 1000-byte payload + 28 header bytes = 1028 bytes per packet.
        let mut q = DropTail::new(QueueLimit::Bytes(2 * 1028 + 100)).unwrap();
        let mut r = rng();
        let t = SimTime::ZERO;
        assert!(matches!(
            q.enqueue(udp_packet(0, 1000, Ecn::NotEct), t, &mut r),
            Verdict::Enqueued { .. }
        ));
        assert!(matches!(
            q.enqueue(udp_packet(1, 1000, Ecn::NotEct), t, &mut r),
            Verdict::Enqueued { .. }
        ));
        assert_eq!(q.len_bytes(), 2056);
        // 2056 + 1028 > 2156: refused; 2056 + 100 (72 payload + 28) = 2156 fits exactly.
        assert_eq!(
            q.enqueue(udp_packet(2, 1000, Ecn::NotEct), t, &mut r),
            Verdict::Dropped(DropCause::QueueFull)
        );
        assert!(matches!(
            q.enqueue(udp_packet(3, 72, Ecn::NotEct), t, &mut r),
            Verdict::Enqueued { .. }
        ));
        assert_eq!(q.len_bytes(), 2156);
        assert_eq!(
            q.enqueue(udp_packet(4, 0, Ecn::NotEct), t, &mut r),
            Verdict::Dropped(DropCause::QueueFull)
        );
        assert_eq!(q.len_packets(), 3);
    }

    #[test]
    fn empty_queue_yields_none_and_zero_limit_is_rejected() {
        let mut q = DropTail::new(QueueLimit::Packets(1)).unwrap();
        assert!(q.dequeue(SimTime::ZERO, &mut no_drop).is_none());
        assert_eq!(q.kind(), "droptail");
        assert_eq!(
            DropTail::new(QueueLimit::Packets(0)).unwrap_err(),
            ParamError::Zero {
                param: "droptail.limit"
            }
        );
        assert!(DropTail::new(QueueLimit::Bytes(0)).is_err());
    }

    proptest! {
        #[test]
        fn conservation_packets(limit in 1u32..20, ops in ops(1_000_000, 300)) {
            check_conservation(&mut DropTail::new(QueueLimit::Packets(limit)).unwrap(), &ops)?;
        }

        #[test]
        fn conservation_bytes(limit in 1u64..30_000, ops in ops(1_000_000, 300)) {
            check_conservation(&mut DropTail::new(QueueLimit::Bytes(limit)).unwrap(), &ops)?;
        }
    }
}
