//! The event queue: a hierarchical timing wheel over the bytes of a 64-bit nanosecond key.
//!
//! Discrete-event time never goes backwards, so every key pushed is at least the key last popped.
//! The queue keeps a `base` (a lower bound of every pending key) and files an event with key `k`
//! by the highest byte in which `k` differs from `base`: that byte's index is the event's *level*
//! (0..8) and the value of `k` in that byte its *digit* (0..256). Bucket (level, digit) therefore
//! holds the events of one aligned window of `256^level` ns. This is a hierarchical timing wheel
//! (Varghese & Lauck, SOSP 1987) with one wheel per byte, and equally a radix heap with 256-way
//! digits (Ahuja, Mehlhorn, Orlin & Tarjan, JACM 1990).
//!
//! When the events at `base` run out, the lowest occupied bucket is emptied: `base` moves to the
//! start of its window (or to its exact minimum when it holds a handful of events) and its events
//! are filed again, which puts each of them at a lower level. An event is thus moved at most
//! 8 times over its life, and at most 3 times when pushed less than `2^24` ns (16.8 ms) ahead of
//! `base`; buckets are appended and emptied sequentially, and occupancy bitmaps make empty
//! buckets free. The cost per event is therefore nearly independent of the number pending
//! (10^3 to 10^6 and beyond), unlike a binary heap, whose `log n` cache misses per operation grow
//! with the population. Byte-wide digits measured faster than 6-, 7-, 10- or 11-bit ones: fewer
//! bits mean more moves, more bits mean more sparse buckets to skip and scatter into.
//!
//! # Order contract
//! Events pop by time; events with equal times pop in insertion order (FIFO), the tie-break the
//! simulator's determinism relies on. It holds because events with equal keys always share one
//! bucket, every bucket is a vector in arrival order, and a bucket is re-filed (in order) only
//! into lower buckets, which are empty at that moment.
//!
//! # Call-order contract
//! A push before the time of the last *popped* event is refused with [`ScheduleError::InPast`].
//! [`EventQueue::peek_time`] may advance `base` past the last popped time; a later push between
//! the two is accepted and handled by lowering `base` again (a rare, linear-cost repair).

mod occupancy;
#[cfg(test)]
mod tests;

use occupancy::{Occupancy, DIGITS, DIGIT_BITS, LEVELS};

use crate::time::SimTime;

/// A bucket holding at most this many events is scanned for its minimum key before it is
/// re-filed, so that a few far-future events (timers, a stop event) reach the front in one step
/// rather than descending one level at a time.
const MIN_SCAN: usize = 8;

/// Returned when an event is scheduled before the current time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    #[error("cannot schedule an event at {at} before the current time {now}")]
    InPast { at: SimTime, now: SimTime },
}

/// Pending events ordered by (time, insertion order).
pub struct EventQueue<E> {
    /// Nanoseconds. A lower bound of every pending key, and the key of every event in `current`.
    base: u64,
    /// Nanoseconds. Time of the last popped event (0 before the first pop); the floor for pushes.
    popped: u64,
    /// Events at time `base`, newest first, so that `Vec::pop` yields the oldest. Events pushed at
    /// `base` while this batch drains go to bucket (0, low byte of `base`) and pop after it.
    current: Vec<E>,
    /// `LEVELS × DIGITS` buckets of (key in ns, event), index `level * DIGITS + digit`; each in
    /// arrival order. An empty bucket holds an unallocated vector; its buffer lives in `spare`.
    buckets: Box<[Vec<(u64, E)>]>,
    occupancy: Occupancy,
    /// Emptied bucket buffers, per level, handed to the next bucket of that level that fills. The
    /// queue's windows slide forward through ever new buckets, so keeping buffers in the buckets
    /// themselves would retain the capacity of every window ever used.
    spare: [Vec<Vec<(u64, E)>>; LEVELS],
    len: usize,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

/// Index of the highest non-zero byte of `x` (0 when `x < 256`, including `x == 0`).
#[inline]
fn level_of(x: u64) -> usize {
    ((63 - (x | 1).leading_zeros()) / DIGIT_BITS) as usize
}

/// Byte `level` of `key`.
#[inline]
fn digit_of(key: u64, level: usize) -> usize {
    ((key >> (DIGIT_BITS as usize * level)) as usize) & (DIGITS - 1)
}

/// The first key of the window of bucket (level, digit) among keys that agree with `base` above
/// byte `level`.
#[inline]
fn window_start(base: u64, level: usize, digit: usize) -> u64 {
    let shift = DIGIT_BITS as usize * level;
    let above = shift + DIGIT_BITS as usize;
    let high = if above >= 64 {
        0
    } else {
        base >> above << above
    };
    high | ((digit as u64) << shift)
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            base: 0,
            popped: 0,
            current: Vec::new(),
            buckets: (0..LEVELS * DIGITS).map(|_| Vec::new()).collect(),
            occupancy: Occupancy::default(),
            spare: std::array::from_fn(|_| Vec::new()),
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The time of the last popped event (zero before the first pop); pushes before it are refused.
    pub fn now(&self) -> SimTime {
        SimTime(self.popped)
    }

    /// Adds an event; an event before the last popped time is refused.
    #[inline]
    pub fn push(&mut self, at: SimTime, event: E) -> Result<(), ScheduleError> {
        if at.0 < self.base {
            return self.push_below_base(at, event);
        }
        self.file(at.0, event);
        self.len += 1;
        Ok(())
    }

    /// Removes and returns the earliest event (FIFO among equal times).
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        if self.current.is_empty() && !self.refill() {
            return None;
        }
        let event = self.current.pop()?;
        self.len -= 1;
        self.popped = self.base;
        Some((SimTime(self.base), event))
    }

    /// Time of the earliest pending event, if any.
    pub fn peek_time(&mut self) -> Option<SimTime> {
        if self.current.is_empty() && !self.refill() {
            return None;
        }
        Some(SimTime(self.base))
    }

    /// Files an event with `key >= base` in its bucket relative to `base`.
    #[inline]
    fn file(&mut self, key: u64, event: E) {
        let level = level_of(key ^ self.base);
        let digit = digit_of(key, level);
        let index = level * DIGITS + digit;
        if self.occupancy.insert(level, digit) {
            if let Some(buffer) = self.spare[level].pop() {
                self.buckets[index] = buffer;
            }
        }
        self.buckets[index].push((key, event));
    }

    /// Empties bucket (level, digit), recycling its buffer; the caller re-files the events.
    #[inline]
    fn take_bucket(&mut self, level: usize, digit: usize) -> Vec<(u64, E)> {
        self.occupancy.remove(level, digit);
        std::mem::take(&mut self.buckets[level * DIGITS + digit])
    }

    /// Moves the next events into `current`. Returns false when the queue is empty.
    ///
    /// Precondition: `current` is empty. Each round empties the lowest occupied bucket; a bucket
    /// of level 0 or with a single event holds one key only and becomes the current batch,
    /// any other is re-filed relative to a new `base` inside its window, landing strictly lower.
    fn refill(&mut self) -> bool {
        loop {
            let Some(level) = self.occupancy.lowest_level() else {
                return false;
            };
            let Some(digit) = self.occupancy.lowest_digit(level) else {
                return false; // unreachable: the level summary said the level is occupied
            };
            let mut bucket = self.take_bucket(level, digit);
            let Some(&(first, _)) = bucket.first() else {
                continue; // unreachable: occupied buckets are non-empty
            };
            if level == 0 || bucket.len() == 1 {
                self.base = first;
                // Last event first: `current` is popped from its back. A plain loop rather
                // than `extend(drain(..).rev())`, whose fold LLVM may leave out of line here,
                // on the path of every event.
                self.current.reserve(bucket.len());
                while let Some((_, event)) = bucket.pop() {
                    self.current.push(event);
                }
                self.spare[level].push(bucket);
                return true;
            }
            self.base = if bucket.len() <= MIN_SCAN {
                bucket.iter().map(|&(key, _)| key).min().unwrap_or(first)
            } else {
                window_start(self.base, level, digit)
            };
            // Every key here agrees with the new base above byte `level` and in it, so each
            // lands below `level`, in buckets that are empty now: arrival order is kept.
            for (key, event) in bucket.drain(..) {
                self.file(key, event);
            }
            self.spare[level].push(bucket);
        }
    }

    /// A push below `base` but not before the last pop: possible only after `peek_time` advanced
    /// `base` without popping.
    #[cold]
    fn push_below_base(&mut self, at: SimTime, event: E) -> Result<(), ScheduleError> {
        if at.0 < self.popped {
            return Err(ScheduleError::InPast {
                at,
                now: SimTime(self.popped),
            });
        }
        self.lower_base(at.0);
        self.file(at.0, event);
        self.len += 1;
        Ok(())
    }

    /// Moves `base` down to `key` (`popped <= key < base`) and re-files what that changes.
    ///
    /// Let `h` be the level of `key` relative to the old base. Buckets above level `h`, and those
    /// of level `h` past the old base's digit, keep their place. Everything else (the current
    /// batch, all buckets below `h`, bucket (h, old digit)) agrees with `key` above byte `h` and
    /// has the old base's digit there, so it all merges into bucket (h, old digit). Equal keys
    /// come from one source each, except the old base's own key, whose events sit in the current
    /// batch (older) and in bucket (0, old low byte) (newer) and are appended in that order: FIFO
    /// order survives.
    fn lower_base(&mut self, key: u64) {
        let old = self.base;
        let h = level_of(key ^ old);
        let target = digit_of(old, h);
        let mut merged: Vec<(u64, E)> = self.spare[h].pop().unwrap_or_default();
        merged.extend(self.current.drain(..).rev().map(|event| (old, event)));
        for level in 0..h {
            let digits: Vec<usize> = self.occupancy.digits(level).collect();
            for digit in digits {
                let mut bucket = self.take_bucket(level, digit);
                merged.append(&mut bucket);
                self.spare[level].push(bucket);
            }
        }
        if self.occupancy.contains(h, target) {
            let mut bucket = self.take_bucket(h, target);
            merged.append(&mut bucket);
            self.spare[h].push(bucket);
        }
        self.base = key;
        if merged.is_empty() {
            self.spare[h].push(merged);
        } else {
            self.occupancy.insert(h, target);
            self.buckets[h * DIGITS + target] = merged;
        }
    }
}
