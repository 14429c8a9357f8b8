//! The retransmission buffer of an AM transmitting side, common to LTE and NR: which bytes of
//! each unit awaiting acknowledgement are pending for retransmission, its RETX_COUNT, and the
//! order in which units are served.
//!
//! The unit is what an SN numbers: an AMD PDU in LTE (TS 36.322 §5.2.1), an RLC SDU in NR
//! (TS 38.322 §5.3.2). Both clauses read the same: when a unit (or a portion of it) is first
//! considered for retransmission RETX_COUNT is set to 0; otherwise, if it (or the portion) is
//! not already pending for retransmission, RETX_COUNT is incremented — once per STATUS PDU;
//! when RETX_COUNT = maxRetxThreshold the upper layers are told (what follows differs: LTE's
//! radio link failure or WCDMA's discard here, an event in NR). What differs in building the
//! retransmitted PDU (LTE re-segmentation with LSF, NR segments located by SO) stays with each
//! entity; this module only keeps the byte ranges and the counts.

use std::collections::VecDeque;

/// What one unit awaiting acknowledgement has pending for retransmission.
#[derive(Debug, Default)]
pub(crate) struct RetxState {
    /// RETX_COUNT; `None` until first considered for retransmission.
    retx_count: Option<u32>,
    /// Sorted, disjoint byte ranges `[a, b)` of the unit pending retransmission.
    pending: Vec<(u32, u32)>,
}

impl RetxState {
    /// RETX_COUNT, `None` until the unit was first considered for retransmission.
    #[inline]
    pub(crate) fn retx_count(&self) -> Option<u32> {
        self.retx_count
    }

    /// Whether some byte is pending retransmission.
    #[inline]
    pub(crate) fn is_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The first pending range `[a, b)`, the one a transmission opportunity serves next.
    #[inline]
    pub(crate) fn first_pending(&self) -> Option<(u32, u32)> {
        self.pending.first().copied()
    }

    fn pending_bytes(&self) -> u64 {
        self.pending.iter().map(|&(a, b)| (b - a) as u64).sum()
    }

    /// Whether `[a, b)` is entirely pending already.
    fn covers(&self, a: u32, b: u32) -> bool {
        self.pending.iter().any(|&(x, y)| x <= a && b <= y)
    }

    /// Adds `[a, b)` to the pending set, merging overlaps; returns the bytes newly pending.
    fn add_pending(&mut self, a: u32, b: u32) -> u64 {
        let before = self.pending_bytes();
        let (mut lo, mut hi) = (a, b);
        self.pending.retain(|&(x, y)| {
            let apart = y < lo || x > hi;
            if !apart {
                lo = lo.min(x);
                hi = hi.max(y);
            }
            apart
        });
        let at = self.pending.partition_point(|&(x, _)| x < lo);
        self.pending.insert(at, (lo, hi));
        self.pending_bytes() - before
    }
}

/// The units with bytes pending retransmission, in the order they became pending, with the
/// totals a buffer status report needs (36.322 §4.5 and 38.322 §4.5 count "RLC data PDUs ...
/// pending for retransmission" as data available for transmission).
#[derive(Debug, Default)]
pub(crate) struct RetxQueue {
    /// SNs in the order they became pending. Entries whose unit was acknowledged, discarded or
    /// fully resent meanwhile are skipped by the caller when reached ([`Self::skip_front`]).
    order: VecDeque<u32>,
    /// Bytes pending retransmission.
    bytes: u64,
    /// Units with at least one byte pending.
    units: u64,
}

impl RetxQueue {
    /// Bytes pending retransmission, over every unit.
    #[inline]
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Units (LTE AMD PDUs, NR SDUs) with bytes pending.
    #[inline]
    pub(crate) fn units(&self) -> u64 {
        self.units
    }

    /// The SN served next, if any (it may be stale: see [`Self::skip_front`]).
    #[inline]
    pub(crate) fn front(&self) -> Option<u32> {
        self.order.front().copied()
    }

    /// Drops the front SN, whose unit has nothing pending any more.
    #[inline]
    pub(crate) fn skip_front(&mut self) {
        self.order.pop_front();
    }

    /// Considers the byte `ranges` of unit `sn` (state `st`) for retransmission, as one STATUS
    /// PDU (or one t-PollRetransmit expiry) asks: 36.322 §5.2.1 / 38.322 §5.3.2 RETX_COUNT
    /// counting (see the module documentation). Returns the new RETX_COUNT, or `None` when the
    /// unit was not counted again because every range was pending already (or none was given).
    /// The caller compares the count with maxRetxThreshold.
    pub(crate) fn consider(
        &mut self,
        st: &mut RetxState,
        sn: u32,
        ranges: &[(u32, u32)],
    ) -> Option<u32> {
        if ranges.is_empty() {
            return None;
        }
        let fresh = ranges.iter().any(|&(a, b)| !st.covers(a, b));
        let count = match st.retx_count {
            None => 0,
            Some(c) if fresh => c + 1,
            Some(_) => return None,
        };
        st.retx_count = Some(count);
        let was_pending = st.is_pending();
        for &(a, b) in ranges {
            self.bytes += st.add_pending(a, b);
        }
        if !was_pending {
            self.units += 1;
            self.order.push_back(sn);
        }
        Some(count)
    }

    /// `n` bytes from the start of the unit's first pending range went into a PDU (`n` at most
    /// that range's length). When nothing is left pending the unit leaves the queue, which it
    /// must head.
    pub(crate) fn sent(&mut self, st: &mut RetxState, n: u32) {
        let (a, b) = st.pending[0];
        if a + n >= b {
            st.pending.remove(0);
        } else {
            st.pending[0].0 = a + n;
        }
        self.bytes -= (n as u64).min(self.bytes);
        if st.pending.is_empty() {
            self.units -= 1;
            self.order.pop_front();
        }
    }

    /// The unit was positively acknowledged or discarded: nothing of it is pending any more.
    /// Its SN stays in the queue order until reached, then skipped.
    pub(crate) fn withdraw(&mut self, st: &mut RetxState) {
        if st.is_pending() {
            self.bytes -= st.pending_bytes().min(self.bytes);
            self.units -= 1;
            st.pending.clear();
        }
    }

    /// Empties the queue (RLC re-establishment); the units' states go with their units.
    pub(crate) fn clear(&mut self) {
        *self = RetxQueue::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retx_count_starts_at_zero_and_counts_only_fresh_portions() {
        let (mut q, mut st) = (RetxQueue::default(), RetxState::default());
        assert_eq!(q.consider(&mut st, 7, &[(0, 100)]), Some(0));
        assert_eq!((q.bytes(), q.units(), q.front()), (100, 1, Some(7)));
        // The same portion again, still pending: not counted (36.322 §5.2.1, 38.322 §5.3.2).
        assert_eq!(q.consider(&mut st, 7, &[(10, 20)]), None);
        // Part of it resent, then NACKed again: the portion is no longer all pending.
        q.sent(&mut st, 40);
        assert_eq!((q.bytes(), st.first_pending()), (60, Some((40, 100))));
        assert_eq!(q.consider(&mut st, 7, &[(0, 50)]), Some(1));
        assert_eq!((q.bytes(), st.first_pending()), (100, Some((0, 100))));
        assert_eq!(st.retx_count(), Some(1));
    }

    #[test]
    fn ranges_merge_and_leave_the_queue_when_sent_or_withdrawn() {
        let (mut q, mut a, mut b) = (
            RetxQueue::default(),
            RetxState::default(),
            RetxState::default(),
        );
        assert_eq!(
            q.consider(&mut a, 1, &[(0, 10), (20, 30), (10, 20)]),
            Some(0)
        );
        assert_eq!((q.bytes(), a.first_pending()), (30, Some((0, 30))));
        assert_eq!(q.consider(&mut b, 2, &[(5, 8)]), Some(0));
        assert_eq!((q.bytes(), q.units()), (33, 2));
        q.sent(&mut a, 30);
        assert!(!a.is_pending());
        assert_eq!((q.bytes(), q.units(), q.front()), (3, 1, Some(2)));
        q.withdraw(&mut b);
        assert_eq!((q.bytes(), q.units(), q.front()), (0, 0, Some(2)));
        q.skip_front();
        assert_eq!(q.front(), None);
    }
}
