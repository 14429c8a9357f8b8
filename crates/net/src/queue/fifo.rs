//! The FIFO buffer shared by every discipline: packets with their enqueue times, and the byte
//! count kept in step with the contents.

use std::collections::VecDeque;

use celltcp_engine::SimTime;

use crate::packet::Packet;

/// First-in first-out packet store. `bytes` always equals the sum of `size_bytes()` of the
/// packets held.
#[derive(Debug, Default)]
pub(crate) struct Fifo {
    q: VecDeque<(Packet, SimTime)>,
    /// Bytes held (whole IP datagrams).
    bytes: u64,
}

impl Fifo {
    pub(crate) fn new() -> Self {
        Fifo::default()
    }

    #[inline]
    pub(crate) fn push(&mut self, pkt: Packet, now: SimTime) {
        self.bytes += pkt.size_bytes() as u64;
        self.q.push_back((pkt, now));
    }

    /// The head packet and the time it was enqueued.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<(Packet, SimTime)> {
        let (pkt, t) = self.q.pop_front()?;
        self.bytes -= pkt.size_bytes() as u64;
        Some((pkt, t))
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.q.len()
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// Bytes held.
    #[inline]
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }
}
