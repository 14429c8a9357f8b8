//! A monotone radix heap of events keyed by [`SimTime`].
//!
//! Discrete-event time never goes backwards, so every key pushed is at least the key last popped.
//! A radix heap exploits that: an event lives in bucket `b = bit length of (key XOR last)`; only
//! when bucket 0 (keys equal to `last`) runs dry is the lowest non-empty bucket re-spread below
//! a new `last`. Each event moves at most 64 times over its life, independent of how many are
//! pending, which keeps the queue's speed flat from 10^3 to 10^6 pending events.
//!
//! Order contract: events pop by time; events with equal times pop in insertion order (FIFO).
//! This holds because every bucket is an order-preserving deque: an item enters a bucket either by
//! a push (in insertion order) or by the re-spread of a higher bucket, which happens only while all
//! lower buckets are empty and preserves the higher bucket's order.

use std::collections::VecDeque;

use crate::time::SimTime;

const BUCKETS: usize = 65;

/// Returned when an event is scheduled before the current time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    #[error("cannot schedule an event at {at} before the current time {now}")]
    InPast { at: SimTime, now: SimTime },
}

/// Pending events ordered by (time, insertion order).
pub struct EventQueue<E> {
    /// Key of the last popped event: a lower bound of every pending key.
    last: u64,
    buckets: Vec<VecDeque<(u64, E)>>,
    len: usize,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

#[inline]
fn bucket_of(key: u64, last: u64) -> usize {
    (64 - (key ^ last).leading_zeros()) as usize
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { last: 0, buckets: (0..BUCKETS).map(|_| VecDeque::new()).collect(), len: 0 }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The lower bound on pending times: the time of the last popped event.
    pub fn now(&self) -> SimTime {
        SimTime(self.last)
    }

    /// Adds an event; an event before the last popped time is refused.
    #[inline]
    pub fn push(&mut self, at: SimTime, event: E) -> Result<(), ScheduleError> {
        if at.0 < self.last {
            return Err(ScheduleError::InPast { at, now: SimTime(self.last) });
        }
        self.buckets[bucket_of(at.0, self.last)].push_back((at.0, event));
        self.len += 1;
        Ok(())
    }

    /// Removes and returns the earliest event (FIFO among equal times).
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        if self.buckets[0].is_empty() && !self.refill() {
            return None;
        }
        let (key, event) = self.buckets[0].pop_front()?;
        self.len -= 1;
        Some((SimTime(key), event))
    }

    /// Time of the earliest pending event, if any.
    pub fn peek_time(&mut self) -> Option<SimTime> {
        if self.buckets[0].is_empty() && !self.refill() {
            return None;
        }
        Some(SimTime(self.last))
    }

    /// Re-spreads the lowest non-empty bucket so that bucket 0 holds the new minimum.
    /// Returns false when the queue is empty.
    fn refill(&mut self) -> bool {
        let Some(i) = (1..BUCKETS).find(|&i| !self.buckets[i].is_empty()) else {
            return false;
        };
        let mut src = std::mem::take(&mut self.buckets[i]);
        let min = src.iter().map(|(k, _)| *k).min().expect("bucket is non-empty");
        self.last = min;
        for (key, event) in src.drain(..) {
            // Every key here lands in a bucket below i (they share the bits above bit i-1).
            self.buckets[bucket_of(key, min)].push_back((key, event));
        }
        // Keep the allocation for reuse.
        self.buckets[i] = src;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BinaryHeap;
    use std::cmp::Reverse;

    #[test]
    fn fifo_among_equal_times() {
        let mut q = EventQueue::new();
        for i in 0..10 {
            q.push(SimTime(5), i).unwrap();
        }
        q.push(SimTime(3), 100).unwrap();
        assert_eq!(q.pop(), Some((SimTime(3), 100)));
        for i in 0..10 {
            assert_eq!(q.pop(), Some((SimTime(5), i)));
        }
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn scheduling_in_the_past_is_an_error() {
        let mut q = EventQueue::new();
        q.push(SimTime(10), ()).unwrap();
        q.pop();
        assert_eq!(
            q.push(SimTime(9), ()),
            Err(ScheduleError::InPast { at: SimTime(9), now: SimTime(10) })
        );
        assert!(q.push(SimTime(10), ()).is_ok());
    }

    proptest! {
        /// Against a binary heap keyed by (time, insertion counter): identical pop sequences for
        /// any interleaving of pushes (never before the last pop) and pops.
        #[test]
        fn matches_reference_heap(ops in proptest::collection::vec((any::<bool>(), 0u64..1_000, 0u8..4), 1..600)) {
            let mut q = EventQueue::new();
            let mut reference = BinaryHeap::new();
            let mut seq = 0u64;
            let mut last = 0u64;
            for (is_push, delta, scale) in ops {
                if is_push {
                    // Mix tiny and huge offsets to exercise every bucket.
                    let t = last + delta * 10u64.pow(scale as u32 * 3);
                    q.push(SimTime(t), seq).unwrap();
                    reference.push(Reverse((t, seq)));
                    seq += 1;
                } else {
                    let got = q.pop();
                    let want = reference.pop().map(|Reverse((t, s))| (SimTime(t), s));
                    prop_assert_eq!(got, want);
                    if let Some((t, _)) = got {
                        prop_assert!(t.0 >= last, "time went backwards");
                        last = t.0;
                    }
                }
                prop_assert_eq!(q.len(), reference.len());
            }
            while let Some(Reverse((t, s))) = reference.pop() {
                prop_assert_eq!(q.pop(), Some((SimTime(t), s)));
            }
            prop_assert!(q.pop().is_none());
        }
    }
}
