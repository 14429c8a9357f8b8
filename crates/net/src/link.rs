//! One direction of a point-to-point link: a queue discipline feeding a transmitter, a loss
//! model applied as each packet finishes serialisation, and a propagation pipe.
//!
//! The transmitter serves the head-of-line packet in one of two ways:
//! * at a fixed rate (`rate_bps`): serialisation takes size · 8 / rate;
//! * at the delivery opportunities of a Mahimahi trace ([`TraceService`], set with
//!   [`LinkDir::serve_by_trace`]): the packet leaves at the opportunity that completes it.
//!   Mahimahi's byte accounting needs to know whether the packet reached the link at the
//!   instant it is taken, so arrivals go through [`LinkDir::enqueue`].
//!
//! Either way packets leave the pipe in the order they entered it: the pipe is a FIFO and the
//! arrival event carries no packet, which keeps events small.
//!
//! A direction can also stand for a radio hop that hands over, as in the emulator testbed of the
//! 3GPP contribution on TCP and handover interruption (answering LS S1-060371/RP-060208; seed
//! `002_…`): while *held* the base station's buffer is not served (the
//! transmitter takes nothing from the queue; arrivals queue up to the limit, beyond which they
//! are tail-dropped: buffer transfer, "buffer overrun"); a *flush* discards what is buffered and
//! *refusing* discards every arrival (no buffer transfer). Packets lost these ways are counted
//! with [`DropCause::Handover`].

use std::collections::VecDeque;
use std::sync::Arc;

use celltcp_engine::{RngStream, SimDuration, SimTime};

use crate::loss::LossModel;
use crate::packet::Packet;
use crate::queue::{DropCause, QueueDisc, Verdict};
use crate::stats::TimeWeighted;
use crate::trace_file::DeliveryTrace;
use crate::trace_service::{TraceAccounting, TraceService};

/// Static settings of a link direction.
pub struct LinkDirConfig {
    /// Transmission rate, bits per second (> 0). A trace-driven direction (see
    /// [`LinkDir::serve_by_trace`]) gives the trace's mean rate here.
    pub rate_bps: u64,
    /// Propagation delay.
    pub delay: SimDuration,
    pub queue: Box<dyn QueueDisc>,
    pub loss: Option<Box<dyn LossModel>>,
}

/// Counters reported per link direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkDirStats {
    /// Packets and bytes that started transmission.
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Packets and bytes delivered to the far end.
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    /// Packets lost by the loss model (queue drops and marks are in the queue's own stats).
    pub drops_link_loss: u64,
    /// Packets lost while the link was down.
    pub drops_outage: u64,
    /// Packets discarded by a link handover: flushed from the queue or refused on arrival.
    pub drops_handover: u64,
    /// Nanoseconds the transmitter was busy. For a trace-driven direction: the time its used
    /// opportunities stand for ([`TraceService::busy_ns`]).
    pub busy_ns: u64,
}

pub struct LinkDir {
    /// Bits per second; for a trace-driven direction, the trace's mean rate (reported only).
    pub rate_bps: u64,
    pub delay: SimDuration,
    pub queue: Box<dyn QueueDisc>,
    pub loss: Option<Box<dyn LossModel>>,
    /// The loss model's own random stream.
    pub loss_rng: RngStream,
    /// The queue discipline's own random stream (RED).
    pub queue_rng: RngStream,
    /// The packet being serialised, if any.
    pub transmitting: Option<Packet>,
    /// During an outage every packet that finishes serialisation is lost.
    pub down: bool,
    /// While held the transmitter takes nothing from the queue (a handover interruption); the
    /// packet being serialised finishes.
    pub held: bool,
    /// While refusing every arriving packet is dropped ([`DropCause::Handover`]).
    pub refusing: bool,
    /// Packets propagating towards the far end, with their arrival times.
    pub pipe: VecDeque<(SimTime, Packet)>,
    pub stats: LinkDirStats,
    pub occupancy_packets: TimeWeighted,
    pub occupancy_bytes: TimeWeighted,
    /// Set when the direction serves packets at a trace's delivery opportunities instead of at
    /// `rate_bps`.
    pub trace: Option<TraceService>,
    /// The instant of the latest arrival through [`LinkDir::enqueue`] and the uids of the
    /// packets queued at that instant (kept only for a trace-driven direction): a packet taken
    /// by the transmitter at the instant it arrived may not use an opportunity of that instant.
    queued_at: SimTime,
    queued_now: Vec<u64>,
}

impl LinkDir {
    pub fn new(cfg: LinkDirConfig, loss_rng: RngStream, queue_rng: RngStream) -> Self {
        LinkDir {
            rate_bps: cfg.rate_bps,
            delay: cfg.delay,
            queue: cfg.queue,
            loss: cfg.loss,
            loss_rng,
            queue_rng,
            transmitting: None,
            down: false,
            held: false,
            refusing: false,
            pipe: VecDeque::new(),
            stats: LinkDirStats::default(),
            occupancy_packets: TimeWeighted::default(),
            occupancy_bytes: TimeWeighted::default(),
            trace: None,
            queued_at: SimTime::ZERO,
            queued_now: Vec::new(),
        }
    }

    /// Serves this direction at the delivery opportunities of `trace` (Mahimahi's `mm-link`)
    /// instead of at a fixed rate, charging packets as `accounting` says; `rate_bps` becomes the
    /// trace's mean rate. Call before the run starts: the trace's time zero is the run's. The
    /// queue discipline, the loss model, outages and the propagation delay apply as on a
    /// fixed-rate direction; a later change of `rate_bps` changes only the reported rate.
    pub fn serve_by_trace(&mut self, trace: Arc<DeliveryTrace>, accounting: TraceAccounting) {
        self.rate_bps = trace.mean_rate_bps();
        self.trace = Some(TraceService::new(trace, accounting));
    }

    /// Queues a packet arriving at `now` (its ECN layers already arranged for the queue).
    /// Every arrival to the queue goes through here, so that a trace-driven direction knows
    /// which packets reached it at the current instant.
    #[inline]
    pub fn enqueue(&mut self, pkt: Packet, now: SimTime) -> Verdict {
        if self.trace.is_some() {
            if self.queued_at != now {
                self.queued_at = now;
                self.queued_now.clear();
            }
            self.queued_now.push(pkt.uid);
        }
        self.queue.enqueue(pkt, now, &mut self.queue_rng)
    }

    /// Whether `pkt` reached this direction's queue at `now` (see [`LinkDir::enqueue`]). A
    /// packet that did not come through the queue (an expedited one) counts as waiting.
    fn arrived_at(&self, pkt: &Packet, now: SimTime) -> bool {
        self.queued_at == now && self.queued_now.contains(&pkt.uid)
    }

    /// Serialisation time of `pkt` at `rate_bps` (a fixed-rate direction; a trace-driven one
    /// serves at its opportunities, see [`LinkDir::start_transmission`]).
    #[inline]
    pub fn tx_time(&self, pkt: &Packet) -> SimDuration {
        SimDuration::transmission(pkt.size_bytes() as u64, self.rate_bps)
    }

    /// Share of the transmitter's capacity used from the start of the run to `end`: busy time
    /// over `end` at a fixed rate, used over offered delivery opportunities for a trace. NaN when
    /// there was no capacity (`end` = 0, or no opportunity yet).
    pub fn utilization(&self, end: SimTime) -> f64 {
        match &self.trace {
            Some(t) => t.utilization(end),
            None if end == SimTime::ZERO => f64::NAN,
            None => self.stats.busy_ns.min(end.as_ns()) as f64 / end.as_ns() as f64,
        }
    }

    #[inline]
    pub fn record_occupancy(&mut self, now: SimTime) {
        self.occupancy_packets
            .set(now, self.queue.len_packets() as u64);
        self.occupancy_bytes.set(now, self.queue.len_bytes());
    }

    /// Starts serialising `pkt` at `now`; returns when it finishes (≥ `now`; equal when a
    /// trace offers an opportunity at `now`).
    #[inline]
    pub fn start_transmission(&mut self, pkt: Packet, now: SimTime) -> SimTime {
        debug_assert!(self.transmitting.is_none());
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += pkt.size_bytes() as u64;
        let arrived_now = self.trace.is_some() && self.arrived_at(&pkt, now);
        let done = match self.trace.as_mut() {
            Some(t) => {
                let done = t.reserve(pkt.size_bytes(), now, arrived_now);
                self.stats.busy_ns = t.busy_ns();
                done
            }
            None => {
                let tx = SimDuration::transmission(pkt.size_bytes() as u64, self.rate_bps);
                self.stats.busy_ns += tx.as_ns();
                now + tx
            }
        };
        self.transmitting = Some(pkt);
        done
    }

    /// Serialisation of the current packet ended at `now`: applies the outage state and the
    /// loss model and, if the packet survives, puts it in the pipe. Returns the packet's arrival
    /// time, or the lost packet with the cause.
    // The lost packet goes back by value to be counted and traced where it was dropped; the
    // large `Err` costs a copy on the rare drop, where boxing would allocate on it.
    #[allow(clippy::result_large_err)]
    #[inline]
    pub fn finish_transmission(&mut self, now: SimTime) -> Result<SimTime, (Packet, DropCause)> {
        let pkt = self
            .transmitting
            .take()
            .expect("a packet was being transmitted");
        if self.down {
            self.stats.drops_outage += 1;
            return Err((pkt, DropCause::Outage));
        }
        if let Some(loss) = self.loss.as_mut() {
            if loss.is_lost(pkt.size_bytes(), now, &mut self.loss_rng) {
                self.stats.drops_link_loss += 1;
                return Err((pkt, DropCause::LinkLoss));
            }
        }
        // A link never reorders: after the delay was shortened, a packet waits for those
        // already propagating.
        let at = (now + self.delay).max(self.pipe.back().map_or(SimTime::ZERO, |(t, _)| *t));
        self.pipe.push_back((at, pkt));
        Ok(at)
    }

    /// True when the transmitter is idle and may start on the next queued packet.
    #[inline]
    pub fn can_start(&self) -> bool {
        self.transmitting.is_none() && !self.held
    }

    /// Discards every queued packet at `now`, handing each to `on_drop` with
    /// [`DropCause::Handover`]; returns how many. The packet being serialised, if any, is not
    /// queued and finishes. The queue gives up its packets through its ordinary dequeue, so a
    /// discipline that drops at dequeue (CoDel) may hand some over itself first: those are
    /// discarded by the flush as well and count the same way.
    pub fn flush(&mut self, now: SimTime, on_drop: &mut dyn FnMut(Packet, DropCause)) -> u64 {
        let mut n = 0;
        let mut discard = |p: Packet, _: DropCause| {
            n += 1;
            on_drop(p, DropCause::Handover);
        };
        while let Some(p) = self.queue.dequeue(now, &mut discard) {
            discard(p, DropCause::Handover);
        }
        self.stats.drops_handover += n;
        self.record_occupancy(now);
        n
    }

    /// Whether a packet arriving now must be dropped because the direction is refusing
    /// ([`DropCause::Handover`]); counts the drop.
    #[inline]
    pub fn refuses_arrival(&mut self) -> bool {
        if self.refusing {
            self.stats.drops_handover += 1;
        }
        self.refusing
    }

    /// The packet whose propagation ends now.
    #[inline]
    pub fn arrive(&mut self) -> Packet {
        let (_, pkt) = self.pipe.pop_front().expect("an arrival was scheduled");
        self.stats.packets_delivered += 1;
        self.stats.bytes_delivered += pkt.size_bytes() as u64;
        pkt
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::queue::testkit::udp_packet;
    use crate::queue::{CoDel, CoDelConfig, DropTail, QueueLimit};

    fn dir(queue: Box<dyn QueueDisc>) -> LinkDir {
        let cfg = LinkDirConfig {
            rate_bps: 8_000_000,
            delay: SimDuration::from_ms(1),
            queue,
            loss: None,
        };
        LinkDir::new(
            cfg,
            RngStream::new(1, 0, "loss"),
            RngStream::new(1, 0, "queue"),
        )
    }

    fn fill(d: &mut LinkDir, n: u64) {
        for uid in 0..n {
            let v = d.queue.enqueue(
                udp_packet(uid, 972, Ecn::NotEct),
                SimTime::ZERO,
                &mut d.queue_rng,
            );
            assert!(matches!(v, Verdict::Enqueued { .. }));
        }
    }

    #[test]
    fn a_held_or_busy_transmitter_cannot_start() {
        let mut d = dir(Box::new(DropTail::new(QueueLimit::Packets(10)).unwrap()));
        assert!(d.can_start());
        d.held = true;
        assert!(!d.can_start());
        d.held = false;
        d.start_transmission(udp_packet(1, 972, Ecn::NotEct), SimTime::ZERO);
        assert!(!d.can_start());
    }

    #[test]
    fn flush_discards_every_queued_packet_as_a_handover_drop() {
        let mut d = dir(Box::new(DropTail::new(QueueLimit::Packets(10)).unwrap()));
        fill(&mut d, 6);
        // The packet being serialised is not queued: it is not flushed.
        let head = d
            .queue
            .dequeue(SimTime::ZERO, &mut |_, _| unreachable!())
            .unwrap();
        d.start_transmission(head, SimTime::ZERO);
        let mut dropped = Vec::new();
        let n = d.flush(SimTime::from_ns(5), &mut |p, cause| {
            dropped.push((p.uid, cause))
        });
        assert_eq!(n, 5);
        let want: Vec<(u64, DropCause)> = (1..6).map(|u| (u, DropCause::Handover)).collect();
        assert_eq!(dropped, want);
        assert_eq!((d.queue.len_packets(), d.stats.drops_handover), (0, 5));
        assert_eq!(d.transmitting.map(|p| p.uid), Some(0));
        assert_eq!(d.occupancy_packets.current(), 0);
        assert_eq!(d.flush(SimTime::from_ns(6), &mut |_, _| unreachable!()), 0);
    }

    /// CoDel may drop at dequeue; during a flush those drops are the flush's too.
    #[test]
    fn flush_counts_a_dequeue_dropping_discipline_once_per_packet() {
        let cfg = CoDelConfig::rfc8289(QueueLimit::Packets(100));
        let mut d = dir(Box::new(CoDel::new(cfg).unwrap()));
        fill(&mut d, 40);
        // Long after the arrivals every sojourn time is far above target.
        let late = SimTime::ZERO + SimDuration::from_secs(2);
        let _ = d.queue.dequeue(late, &mut |_, _| {});
        let before = d.queue.len_packets() as u64;
        let mut causes = Vec::new();
        let n = d.flush(late + SimDuration::from_secs(1), &mut |_, c| causes.push(c));
        assert_eq!((n, causes.len() as u64), (before, before));
        assert!(causes.iter().all(|c| *c == DropCause::Handover));
        assert_eq!(d.queue.len_packets(), 0);
    }

    #[test]
    fn a_refusing_direction_drops_every_arrival() {
        let mut d = dir(Box::new(DropTail::new(QueueLimit::Packets(10)).unwrap()));
        assert!(!d.refuses_arrival());
        d.refusing = true;
        assert!(d.refuses_arrival());
        assert_eq!(d.stats.drops_handover, 1);
    }

    /// A packet taken at the instant it reached the queue may not use an opportunity of that
    /// instant; one queued earlier may use what the previous packet left of it.
    #[test]
    fn a_trace_direction_knows_which_packets_arrived_at_this_instant() {
        let ms = |v: u64| SimTime::from_ns(v * 1_000_000);
        let mut d = dir(Box::new(DropTail::new(QueueLimit::Packets(10)).unwrap()));
        let trace = DeliveryTrace::parse("1\n2\n3\n4\n").unwrap();
        d.serve_by_trace(Arc::new(trace), TraceAccounting::Bytes);
        let take = |d: &mut LinkDir, now: SimTime| {
            let p = d.queue.dequeue(now, &mut |_, _| unreachable!()).unwrap();
            d.start_transmission(p, now)
        };
        // p0 arrives at 0.5 ms: the opportunity at 1 ms, 104 of its 1504 bytes.
        d.enqueue(udp_packet(0, 72, Ecn::NotEct), SimTime::from_ns(500_000));
        assert_eq!(take(&mut d, SimTime::from_ns(500_000)), ms(1));
        // p1 arrives at 1 ms, just before p0 leaves: it waits for 2 ms.
        d.enqueue(udp_packet(1, 72, Ecn::NotEct), ms(1));
        assert!(d.finish_transmission(ms(1)).is_ok());
        assert_eq!(take(&mut d, ms(1)), ms(2));
        // p2 arrives at 1.5 ms and is taken when p1 leaves at 2 ms: it shares that opportunity.
        d.enqueue(udp_packet(2, 72, Ecn::NotEct), SimTime::from_ns(1_500_000));
        assert!(d.finish_transmission(ms(2)).is_ok());
        assert_eq!(take(&mut d, ms(2)), ms(2));
    }
}
