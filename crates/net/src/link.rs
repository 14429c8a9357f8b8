//! One direction of a point-to-point link: a queue discipline feeding a transmitter of fixed
//! rate, a loss model applied as each packet finishes serialisation, and a propagation pipe.
//!
//! Because the rate and the delay of a direction are constant, packets leave the pipe in the
//! order they entered it: the pipe is a FIFO and the arrival event carries no packet, which keeps
//! events small.

use std::collections::VecDeque;

use celltcp_engine::{RngStream, SimDuration, SimTime};

use crate::loss::LossModel;
use crate::packet::Packet;
use crate::queue::{DropCause, QueueDisc};
use crate::stats::TimeWeighted;

/// Static settings of a link direction.
pub struct LinkDirConfig {
    /// Transmission rate, bits per second (> 0).
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
    /// Nanoseconds the transmitter was busy.
    pub busy_ns: u64,
}

pub struct LinkDir {
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
    /// Packets propagating towards the far end, with their arrival times.
    pub pipe: VecDeque<(SimTime, Packet)>,
    pub stats: LinkDirStats,
    pub occupancy_packets: TimeWeighted,
    pub occupancy_bytes: TimeWeighted,
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
            pipe: VecDeque::new(),
            stats: LinkDirStats::default(),
            occupancy_packets: TimeWeighted::default(),
            occupancy_bytes: TimeWeighted::default(),
        }
    }

    /// Serialisation time of `pkt` on this direction.
    #[inline]
    pub fn tx_time(&self, pkt: &Packet) -> SimDuration {
        SimDuration::transmission(pkt.size_bytes() as u64, self.rate_bps)
    }

    #[inline]
    pub fn record_occupancy(&mut self, now: SimTime) {
        self.occupancy_packets.set(now, self.queue.len_packets() as u64);
        self.occupancy_bytes.set(now, self.queue.len_bytes());
    }

    /// Starts serialising `pkt` at `now`; returns when it finishes.
    #[inline]
    pub fn start_transmission(&mut self, pkt: Packet, now: SimTime) -> SimTime {
        debug_assert!(self.transmitting.is_none());
        let tx = self.tx_time(&pkt);
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += pkt.size_bytes() as u64;
        self.stats.busy_ns += tx.as_ns();
        self.transmitting = Some(pkt);
        now + tx
    }

    /// Serialisation of the current packet ended at `now`: applies the outage state and the
    /// loss model and, if the packet survives, puts it in the pipe. Returns the packet's arrival
    /// time, or the lost packet with the cause.
    #[inline]
    pub fn finish_transmission(&mut self, now: SimTime) -> Result<SimTime, (Packet, DropCause)> {
        let pkt = self.transmitting.take().expect("a packet was being transmitted");
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

    /// The packet whose propagation ends now.
    #[inline]
    pub fn arrive(&mut self) -> Packet {
        let (_, pkt) = self.pipe.pop_front().expect("an arrival was scheduled");
        self.stats.packets_delivered += 1;
        self.stats.bytes_delivered += pkt.size_bytes() as u64;
        pkt
    }
}
