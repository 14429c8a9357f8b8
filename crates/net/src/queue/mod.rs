//! Queue disciplines, one file each.
//!
//! Call contract (the link drives it): `enqueue` when a packet arrives at the link's sender;
//! `dequeue` when the transmitter goes idle. Both receive `now`; neither schedules events.
//! Conservation holds at every instant: `stats.enqueued == stats.dequeued + dropped-after-enqueue
//! + backlog`, and every offered packet is either enqueued or dropped at enqueue.
//!
//! Disciplines: [`DropTail`] (FIFO with a hard limit), [`Red`] (Floyd & Jacobson 1993, with the
//! gentle variant) and [`CoDel`] (RFC 8289). Their constructors validate the configuration and
//! return [`ParamError`] for out-of-range values; the loss models share the same error type.

use celltcp_engine::{RngStream, SimTime};
use thiserror::Error;

use crate::packet::{Ecn, Packet};

mod codel;
mod droptail;
mod fifo;
mod red;
#[cfg(test)]
pub(crate) mod testkit;

pub use codel::{CoDel, CoDelConfig};
pub use droptail::DropTail;
pub use red::{red_probability, Red, RedConfig};

/// An out-of-range configuration value. Each message names the parameter (`"red.max_p"`), the
/// value given and what was expected.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum ParamError {
    #[error("{param}: {value} is not a probability; expected a value in [0, 1]")]
    NotProbability { param: &'static str, value: f64 },
    #[error("{param}: {value} is out of range; expected {expected}")]
    OutOfRange {
        param: &'static str,
        value: f64,
        expected: &'static str,
    },
    #[error("{param}: must be greater than zero")]
    Zero { param: &'static str },
    #[error("red.min_th ({min_th}) must be below red.max_th ({max_th})")]
    ThresholdOrder { min_th: f64, max_th: f64 },
}

impl ParamError {
    /// Checks that `value` is a probability (finite, within [0, 1]).
    pub fn check_probability(param: &'static str, value: f64) -> Result<f64, ParamError> {
        if (0.0..=1.0).contains(&value) {
            Ok(value)
        } else {
            Err(ParamError::NotProbability { param, value })
        }
    }
}

/// Why a packet was dropped. Reported per link direction in the run summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropCause {
    /// The queue was at its limit (tail drop, also RED's forced drop above its limit).
    QueueFull,
    /// An active queue management decision (RED early drop, CoDel drop).
    Aqm,
    /// Lost on the link by its loss model.
    LinkLoss,
    /// Lost because the link was down (a scheduled outage).
    Outage,
    /// No route to the destination, or TTL expired.
    NoRoute,
    /// Discarded by a handover: a base station's buffer flushed, or arrivals refused, while a
    /// link standing for a radio hop hands over without buffer transfer (TS 36.300
    /// §10.1.2.1: data the source does not forward is lost); also a medium's own handover
    /// losses.
    Handover,
}

impl DropCause {
    /// Every cause, in the order of [`DropCause::code`].
    pub const ALL: [DropCause; 6] = [
        DropCause::QueueFull,
        DropCause::Aqm,
        DropCause::LinkLoss,
        DropCause::Outage,
        DropCause::NoRoute,
        DropCause::Handover,
    ];

    /// A small stable number for the cause (the value of [`crate::trace::TraceVar::Dropped`]):
    /// 0 queue full, 1 AQM, 2 link loss, 3 outage, 4 no route, 5 handover.
    pub fn code(self) -> u8 {
        match self {
            DropCause::QueueFull => 0,
            DropCause::Aqm => 1,
            DropCause::LinkLoss => 2,
            DropCause::Outage => 3,
            DropCause::NoRoute => 4,
            DropCause::Handover => 5,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DropCause::QueueFull => "queue_full",
            DropCause::Aqm => "aqm",
            DropCause::LinkLoss => "link_loss",
            DropCause::Outage => "outage",
            DropCause::NoRoute => "no_route",
            DropCause::Handover => "handover",
        }
    }
}

/// Outcome of offering a packet to a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Accepted; `ce_marked` when the discipline set CE instead of dropping (RFC 3168 §5).
    Enqueued {
        ce_marked: bool,
    },
    Dropped(DropCause),
}

/// A queue's size limit.
///
/// With the `serde` feature it (de)serialises as `{"packets": n}` or `{"bytes": n}`, the form a
/// file layer reads its text (`"500p"`, `"1MB"`) into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum QueueLimit {
    /// At most this many packets.
    Packets(u32),
    /// At most this many bytes, counting whole IP datagrams ([`Packet::size_bytes`]).
    Bytes(u64),
}

impl QueueLimit {
    /// Rejects a zero limit, which would drop every packet.
    pub fn validate(self, param: &'static str) -> Result<QueueLimit, ParamError> {
        match self {
            QueueLimit::Packets(0) | QueueLimit::Bytes(0) => Err(ParamError::Zero { param }),
            _ => Ok(self),
        }
    }

    /// True when a packet of `size_bytes` fits beside a backlog of `len_packets` packets and
    /// `len_bytes` bytes.
    #[inline]
    pub fn admits(self, len_packets: usize, len_bytes: u64, size_bytes: u32) -> bool {
        match self {
            QueueLimit::Packets(n) => len_packets < n as usize,
            QueueLimit::Bytes(n) => len_bytes + size_bytes as u64 <= n,
        }
    }
}

/// True when an AQM may signal congestion by setting CE instead of dropping: the packet carries
/// ECT(0) or ECT(1), or already carries CE (only ever set on packets of ECN-capable transports,
/// and never reset by a router; RFC 3168 §5). Not-ECT packets must be dropped.
#[inline]
pub(crate) fn ecn_capable(ecn: Ecn) -> bool {
    ecn != Ecn::NotEct
}

/// Sets CE on an ECN-capable packet (RFC 3168 §5); the caller has checked [`ecn_capable`].
#[inline]
pub(crate) fn mark_ce(pkt: &mut Packet) {
    pkt.ip.ecn = Ecn::Ce;
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
    fn dequeue(
        &mut self,
        now: SimTime,
        on_drop: &mut dyn FnMut(Packet, DropCause),
    ) -> Option<Packet>;
    fn len_packets(&self) -> usize;
    fn len_bytes(&self) -> u64;
    fn stats(&self) -> &QueueStats;
    /// Short name for summaries: "droptail", "red", "codel".
    fn kind(&self) -> &'static str;
}

#[cfg(test)]
mod tests {
    use super::DropCause;

    #[test]
    fn all_lists_every_cause_at_its_code() {
        for (i, c) in DropCause::ALL.into_iter().enumerate() {
            // Fails to compile when a cause is added: add it to ALL too.
            match c {
                DropCause::QueueFull
                | DropCause::Aqm
                | DropCause::LinkLoss
                | DropCause::Outage
                | DropCause::NoRoute
                | DropCause::Handover => {}
            }
            assert_eq!(usize::from(c.code()), i);
        }
    }
}
