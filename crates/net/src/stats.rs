//! Streaming statistics with bounded memory: a log-linear histogram for delay percentiles and a
//! time-weighted average for queue occupancy.

use celltcp_engine::SimTime;

/// Sub-bucket bits of [`Histogram`]: values are kept with a relative error below 2^-8 ≈ 0.4 %.
const SUB_BITS: u32 = 8;
const SUB: u64 = 1 << SUB_BITS;
/// Buckets needed for the whole u64 range.
const BUCKETS: usize = ((64 - SUB_BITS + 1) as usize) * SUB as usize;

/// A log-linear histogram of u64 values (HdrHistogram-style): exact below 256, then 256
/// sub-buckets per power of two. Memory is allocated on the first record.
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
    sum: u128,
    min: u64,
    max: u64,
}

#[inline]
fn bucket_index(v: u64) -> usize {
    if v < SUB {
        v as usize
    } else {
        let e = 63 - v.leading_zeros(); // floor(log2 v) >= SUB_BITS
        let shift = e - SUB_BITS;
        let mant = (v >> shift) - SUB;
        ((e - SUB_BITS + 1) as u64 * SUB + mant) as usize
    }
}

/// Midpoint of the values that map to bucket `i`.
fn bucket_value(i: usize) -> u64 {
    let i = i as u64;
    if i < SUB {
        i
    } else {
        let group = i / SUB; // = e - SUB_BITS + 1
        let mant = i % SUB;
        let shift = group - 1;
        let low = (SUB + mant) << shift;
        low + ((1u64 << shift) >> 1)
    }
}

impl Histogram {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn record(&mut self, v: u64) {
        if self.counts.is_empty() {
            self.counts = vec![0; BUCKETS];
            self.min = u64::MAX;
        }
        self.counts[bucket_index(v)] += 1;
        self.total += 1;
        self.sum += v as u128;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    /// Exact mean of the recorded values.
    pub fn mean(&self) -> Option<f64> {
        (self.total > 0).then(|| self.sum as f64 / self.total as f64)
    }

    pub fn min(&self) -> Option<u64> {
        (self.total > 0).then_some(self.min)
    }

    pub fn max(&self) -> Option<u64> {
        (self.total > 0).then_some(self.max)
    }

    /// The value at quantile `q` in [0, 1] (nearest rank), within 0.4 %; clamped to [min, max].
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.total == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(bucket_value(i).clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }
}

/// Time-weighted mean and maximum of a piecewise-constant quantity (a queue length).
#[derive(Clone, Copy, Debug, Default)]
pub struct TimeWeighted {
    value: u64,
    since: SimTime,
    area: u128,
    max: u64,
}

impl TimeWeighted {
    /// The quantity changes to `value` at `now`.
    #[inline]
    pub fn set(&mut self, now: SimTime, value: u64) {
        self.area += self.value as u128 * now.saturating_since(self.since).as_ns() as u128;
        self.since = now;
        self.value = value;
        self.max = self.max.max(value);
    }

    pub fn current(&self) -> u64 {
        self.value
    }

    pub fn max(&self) -> u64 {
        self.max
    }

    /// Mean over [0, end].
    pub fn mean(&self, end: SimTime) -> f64 {
        if end.as_ns() == 0 {
            return self.value as f64;
        }
        let area =
            self.area + self.value as u128 * end.saturating_since(self.since).as_ns() as u128;
        area as f64 / end.as_ns() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn exact_below_256_and_quantiles() {
        let mut h = Histogram::new();
        for v in 1..=100 {
            h.record(v);
        }
        assert_eq!(h.quantile(0.5), Some(50));
        assert_eq!(h.quantile(0.95), Some(95));
        assert_eq!(h.mean(), Some(50.5));
        assert_eq!((h.min(), h.max()), (Some(1), Some(100)));
        assert_eq!(Histogram::new().quantile(0.5), None);
    }

    proptest! {
        #[test]
        fn relative_error_is_bounded(v in 0u64..u64::MAX / 2) {
            let r = bucket_value(bucket_index(v));
            let err = (r as f64 - v as f64).abs() / (v.max(1) as f64);
            prop_assert!(err <= 1.0 / SUB as f64, "v={} r={}", v, r);
            prop_assert!(bucket_index(v) < BUCKETS);
        }
    }

    #[test]
    fn time_weighted_mean() {
        let mut q = TimeWeighted::default();
        q.set(SimTime(0), 2);
        q.set(SimTime(10), 4);
        // 2 for 10 ns, 4 for 10 ns.
        assert_eq!(q.mean(SimTime(20)), 3.0);
        assert_eq!(q.max(), 4);
    }
}
