//! Goodput before a handover and the time the flow takes to get back to it.
//!
//! Both read the receiver's cumulative in-order byte count `D(t)` (the `Delivered` trace, a
//! step function of time, 0 before its first row). The recovery test follows the definitions of
//! the [module documentation](super): a windowed goodput on a grid, held for a while, so that
//! the instant jump of `D` when a retransmission fills a hole (the receiver held the later
//! segments for later processing, RFC 9293 §3.10.7.4, and releases them all at once) does not
//! pass for recovery.

use super::index::VarSeries;

/// One second, ns: the span of the pre-handover goodput.
const GOODPUT_SPAN_NS: u64 = 1_000_000_000;
/// Floor of the goodput averaging window w, ns (10 ms): keeps the window above the spacing of
/// a few segments even when the RTT is tiny or unknown.
pub(crate) const MIN_WINDOW_NS: u64 = 10_000_000;
/// Floor of the hold time, ns (100 ms).
const MIN_HOLD_NS: u64 = 100_000_000;

/// Goodput in `[start − 1 s, start]` (or `[0, start]` when the handover starts in the first
/// second), bits per second; `None` when `start` is 0 (no span to average over).
pub(crate) fn goodput_before_bps(delivered: &VarSeries, start_ns: u64) -> Option<f64> {
    if start_ns == 0 {
        return None;
    }
    let (bytes, span_ns) = if start_ns < GOODPUT_SPAN_NS {
        (delivered.step_at(start_ns), start_ns)
    } else {
        let from = start_ns - GOODPUT_SPAN_NS;
        (
            delivered.step_at(start_ns) - delivered.step_at(from),
            GOODPUT_SPAN_NS,
        )
    };
    Some(bytes * 8.0 / (span_ns as f64 * 1e-9))
}

/// The grid of the recovery test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RecoveryGrid {
    /// Goodput averaging window w, ns.
    pub window_ns: u64,
    /// Grid step w/4, ns (at least 1).
    pub step_ns: u64,
    /// How long the goodput must stay above the threshold, ns: max(2w, 100 ms).
    pub hold_ns: u64,
}

impl RecoveryGrid {
    /// The grid for a flow whose smoothed RTT before the handover was `srtt_ns` (0 if unknown).
    pub fn for_srtt(srtt_ns: u64) -> RecoveryGrid {
        let window_ns = srtt_ns.max(MIN_WINDOW_NS);
        RecoveryGrid {
            window_ns,
            step_ns: (window_ns / 4).max(1),
            hold_ns: window_ns.saturating_mul(2).max(MIN_HOLD_NS),
        }
    }
}

/// Reads a step function at non-decreasing times in amortised constant time.
struct StepCursor<'a> {
    series: &'a VarSeries,
    /// Number of rows at or before the last time read.
    next: usize,
}

impl<'a> StepCursor<'a> {
    fn new(series: &'a VarSeries, t_ns: u64) -> Self {
        StepCursor {
            series,
            next: series.upper_bound(t_ns),
        }
    }

    /// D(t_ns); `t_ns` must not be earlier than the previous call's.
    fn at(&mut self, t_ns: u64) -> f64 {
        let times = &self.series.time_ns;
        while self.next < times.len() && times[self.next] <= t_ns {
            self.next += 1;
        }
        self.next
            .checked_sub(1)
            .map_or(0.0, |i| self.series.value[i])
    }

    /// Time of the first row after the last time read, ns.
    fn next_row_ns(&self) -> Option<u64> {
        self.series.time_ns.get(self.next).copied()
    }
}

/// The first grid time `t = from + j·step` at which the windowed goodput
/// `g(t) = (D(t) − D(t − w))/w` is at least `threshold_bps` at every grid point of
/// `[t, t + hold]`, with `t + hold <= run_end`; `None` if there is none.
///
/// Cost: the scan reads `D` through two cursors that only move forward, so each row after `from`
/// is crossed at most twice. Grid points are visited one by one while `g` stays above the
/// threshold; below it the scan jumps to the grid point at or after the next `Delivered` row,
/// since `D(t)` is constant up to that row and `D(t − w)` can only grow (a cumulative count
/// never decreases), so `g` cannot rise in between. A scan therefore costs at most
/// min(grid points, rows) steps plus the rows crossed, from `from` to the recovery, or to the
/// end of the run for a flow that never recovers.
pub(crate) fn recovered_at_ns(
    delivered: &VarSeries,
    grid: RecoveryGrid,
    from_ns: u64,
    threshold_bps: f64,
    run_end_ns: u64,
) -> Option<u64> {
    let RecoveryGrid {
        window_ns: w,
        step_ns: step,
        hold_ns: hold,
    } = grid;
    let last_start = run_end_ns.checked_sub(hold)?;
    // g(t) >= threshold  <=>  D(t) − D(t − w) >= threshold · w / 8 (bytes).
    let threshold_bytes = threshold_bps * (w as f64 * 1e-9) / 8.0;
    let points_in_hold = hold / step;
    let mut now = StepCursor::new(delivered, from_ns);
    let mut lagged = StepCursor::new(delivered, from_ns.saturating_sub(w));
    let mut j: u64 = 0;
    let mut run_start: Option<u64> = None;
    loop {
        let t = from_ns.checked_add(j.checked_mul(step)?)?;
        if run_start.is_none() && t > last_start {
            return None;
        }
        let d_now = now.at(t);
        // D before time 0 is 0: nothing was delivered before the run.
        let d_lagged = t.checked_sub(w).map_or(0.0, |tl| lagged.at(tl));
        if d_now - d_lagged >= threshold_bytes {
            let first = *run_start.get_or_insert(j);
            if j - first == points_in_hold {
                return Some(from_ns + first * step);
            }
            j += 1;
        } else {
            run_start = None;
            let next_row = now.next_row_ns()?;
            let to_next_row = (next_row - from_ns).div_ceil(step);
            j = to_next_row.max(j + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn series(rows: &[(u64, f64)]) -> VarSeries {
        VarSeries {
            time_ns: rows.iter().map(|r| r.0).collect(),
            value: rows.iter().map(|r| r.1).collect(),
        }
    }

    #[test]
    fn grid_floors() {
        assert_eq!(
            RecoveryGrid::for_srtt(0),
            RecoveryGrid {
                window_ns: 10 * MS,
                step_ns: 2_500_000,
                hold_ns: 100 * MS
            }
        );
        assert_eq!(
            RecoveryGrid::for_srtt(80 * MS),
            RecoveryGrid {
                window_ns: 80 * MS,
                step_ns: 20 * MS,
                hold_ns: 160 * MS
            }
        );
    }

    #[test]
    fn goodput_over_the_last_second() {
        // 1250 B every 10 ms from 0 to 3 s: 125 kB/s = 1 Mb/s.
        let rows: Vec<(u64, f64)> = (0..=300)
            .map(|i| (i * 10 * MS, 1250.0 * i as f64))
            .collect();
        let d = series(&rows);
        let g = goodput_before_bps(&d, 2_000 * MS).unwrap();
        assert!((g - 1e6).abs() < 1e-6, "{g}");
        // Half a second in: D(0.5 s) = 62.5 kB over 0.5 s.
        let g = goodput_before_bps(&d, 500 * MS).unwrap();
        assert!((g - 1e6).abs() < 1e-6, "{g}");
        assert_eq!(goodput_before_bps(&d, 0), None);
    }

    #[test]
    fn empty_trace_never_recovers() {
        let grid = RecoveryGrid::for_srtt(40 * MS);
        assert_eq!(
            recovered_at_ns(&VarSeries::default(), grid, 0, 1.0, 10_000 * MS),
            None
        );
        // Run too short for one hold period.
        let d = series(&[(0, 1e9)]);
        assert_eq!(recovered_at_ns(&d, grid, 0, 1.0, 50 * MS), None);
    }
}
