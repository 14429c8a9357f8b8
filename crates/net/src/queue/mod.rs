//! Queue disciplines, one file each.
//!
//! Call contract (the link drives it): `enqueue` when a packet arrives at the link's sender;
//! `dequeue` when the transmitter goes idle. Both receive `now`; neither schedules events.
//! Conservation holds at every instant: `stats.enqueued == stats.dequeued + dropped-after-enqueue
//! + backlog`, and every offered packet is either enqueued or dropped at enqueue.

use celltcp_engine::{RngStream, SimTime};

use crate::packet::Packet;

// Implementations (added by their own files):
// mod droptail; mod red; mod codel;

/// Why a packet was dropped. Reported per link direction in the run summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropCause {
    /// The queue was at its limit (tail drop, also RED's forced drop above its limit).
    QueueFull,
    /// An active queue management decision (RED early drop, CoDel drop).
    Aqm,
    /// Lost on the link by its loss model.
    LinkLoss,
    /// No route to the destination, or TTL expired.
    NoRoute,
}

impl DropCause {
    pub fn as_str(self) -> &'static str {
        match self {
            DropCause::QueueFull => "queue_full",
            DropCause::Aqm => "aqm",
            DropCause::LinkLoss => "link_loss",
            DropCause::NoRoute => "no_route",
        }
    }
}

/// Outcome of offering a packet to a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Accepted; `ce_marked` when the discipline set CE instead of dropping (RFC 3168 §5).
    Enqueued { ce_marked: bool },
    Dropped(DropCause),
}

/// A queue's size limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

/// Counters every discipline keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueStats {
    pub enqueued: u64,
    pub dequeued: u64,
    pub dropped_full: u64,
    pub dropped_aqm: u64,
    pub ce_marked: u64,
}

pub trait QueueDisc {
    /// Offers `pkt`. A discipline that marks instead of dropping sets `pkt.ip.ecn = Ecn::Ce`.
    fn enqueue(&mut self, pkt: Packet, now: SimTime, rng: &mut RngStream) -> Verdict;
    /// The next packet to transmit, or `None` when empty. A discipline that drops at dequeue
    /// (CoDel) hands every dropped packet to `on_drop` before returning.
    fn dequeue(&mut self, now: SimTime, on_drop: &mut dyn FnMut(Packet, DropCause)) -> Option<Packet>;
    fn len_packets(&self) -> usize;
    fn len_bytes(&self) -> u64;
    fn stats(&self) -> &QueueStats;
    /// Short name for summaries: "droptail", "red", "codel".
    fn kind(&self) -> &'static str;
}
