//! Receiver ACK control of the seed `004_…` (Miyoshi, Sugano and Murata, "Performance
//! Improvement of TCP in Wireless Cellular Network Based on Acknowledgement Control"): the
//! wireless receiver estimates the radio loss probability and, when it reaches a threshold,
//! sends each ACK several times so that losing one ACK on the radio link no longer stalls the
//! sender; the sender is unmodified.
//!
//! Estimator (the seed's "Estimation on packet loss rate" slides):
//! * observation: within each *update window* of `window_segments` expected segments, the
//!   observed loss ratio is p_new = missing / (missing + received), where `received` counts
//!   segments that advanced the highest sequence seen on their connection and `missing` counts
//!   the full-sized segments skipped by a sequence gap (retransmissions filling a gap are
//!   neither);
//! * smoothing, per update window, like SRTT in TCP: p ← 7/8·p + 1/8·p_new, p starting at 0;
//! * radio part, assuming buffer and radio losses independent with
//!   p = 1 − (1 − p_buff)(1 − p_err)² (one radio crossing for a segment, one for its ACK: the
//!   seed's formula): p_err = 1 − sqrt((1 − p)/(1 − p_buff)), clamped to [0, 1];
//! * decision: each ACK is sent `copies` times while p_err ≥ `threshold` (so a threshold of 0
//!   sends every ACK `copies` times, the seed's fixed n-ACK simulations).
//!
//! Where the estimate lives. The seed monitors p "at the wireless terminal" and shows the
//! moving average following the loss rate "when the number of TCP connections are changed"
//! (1, 2, … 5, … 1 connections): the estimate belongs to the terminal's radio link, not to one
//! connection. [`TerminalLossEstimate`] is that estimate: the connections attached to it
//! ([`AckLossEstimator::at_terminal`]) feed one update window and read one p_err, so a new
//! connection starts from what the terminal has learnt instead of from p = 0. Gap detection
//! stays per connection (each has its own sequence space). An estimator built with
//! [`AckLossEstimator::new`] owns a private estimate: the per-connection variant.
//!
//! The receiver sees the losses of data segments only (a lost ACK leaves no gap), so what it
//! measures is p ≈ 1 − (1 − p_buff)(1 − p_err): one radio crossing, where the formula assumes
//! two. Fed that p, the formula returns about half the radio loss probability
//! (1 − sqrt(1 − p_err) for p_buff = 0). The estimator implements the seed's formula as
//! published; [`expected_estimate`] gives the value it converges to on a path whose losses are
//! known, and docs/seed-004.md the measured consequence.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::config::AckControlConfig;

/// The smoothed loss figures of one update history.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Estimate {
    /// Segments of the current update window that advanced their connection's highest sequence.
    received: u64,
    /// Full-sized segments of the current update window skipped by sequence gaps.
    missing: u64,
    /// Smoothed observed loss ratio p.
    p: f64,
    /// Estimated radio loss probability p_err.
    p_err: f64,
    /// Update windows completed.
    updates: u64,
}

/// The radio loss estimate of one wireless terminal, shared by the connections it receives
/// (seed `004_…`). Cloning gives another handle to the same estimate; the connections of one
/// terminal should share one [`AckControlConfig`] (the update window and p_buff used are those
/// of the connection whose segment completes the window).
///
/// Handles are `Send` (a mutex, never contended: the simulation is single-threaded and the
/// updates happen in event order, so the shared estimate is deterministic).
#[derive(Clone, Debug, Default)]
pub struct TerminalLossEstimate {
    inner: Arc<Mutex<Estimate>>,
}

impl TerminalLossEstimate {
    /// A fresh estimate: p = p_err = 0, no update window completed.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Estimate> {
        // A panic elsewhere while the lock was held cannot leave the plain numbers half
        // written in a way that matters here; carry on with them rather than panic again.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Smoothed observed loss ratio p, in [0, 1].
    pub fn p(&self) -> f64 {
        self.lock().p
    }

    /// Estimated radio loss probability p_err, in [0, 1].
    pub fn p_err(&self) -> f64 {
        self.lock().p_err
    }

    /// Update windows completed so far (over every attached connection).
    pub fn updates(&self) -> u64 {
        self.lock().updates
    }

    /// Whether `self` and `other` are handles to the same estimate.
    pub fn shares_with(&self, other: &TerminalLossEstimate) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Counts one arrival (`received` new segments, `missing` skipped ones); returns the new
    /// p_err when the update window of `window_segments` expected segments is complete.
    fn observe(
        &self,
        received: u64,
        missing: u64,
        window_segments: u32,
        p_buff: f64,
    ) -> Option<f64> {
        let mut e = self.lock();
        e.received += received;
        e.missing += missing;
        let total = e.received + e.missing;
        if total < u64::from(window_segments) {
            return None;
        }
        let p_new = e.missing as f64 / total as f64;
        // RFC 6298 (2.3)-style smoothing with the SRTT gain 1/8, as the seed prescribes.
        e.p = 7.0 / 8.0 * e.p + 1.0 / 8.0 * p_new;
        e.p_err = radio_loss(e.p, p_buff);
        e.received = 0;
        e.missing = 0;
        e.updates += 1;
        Some(e.p_err)
    }
}

/// One connection's view of the loss estimate: its own gap detection, and the estimate it
/// feeds and reads (private, or its terminal's).
#[derive(Clone, Debug)]
pub struct AckLossEstimator {
    cfg: AckControlConfig,
    /// Highest offset + 1 of data seen so far on this connection (offset 1 follows the SYN).
    highest: u64,
    estimate: TerminalLossEstimate,
}

impl AckLossEstimator {
    /// An estimator with a private estimate (per connection).
    pub fn new(cfg: AckControlConfig) -> Self {
        Self::at_terminal(cfg, TerminalLossEstimate::new())
    }

    /// An estimator feeding and reading the estimate of its terminal, shared with the
    /// terminal's other connections.
    pub fn at_terminal(cfg: AckControlConfig, terminal: TerminalLossEstimate) -> Self {
        AckLossEstimator {
            cfg,
            highest: 1,
            estimate: terminal,
        }
    }

    /// Moves this connection onto `terminal`'s estimate. Call before the first data segment:
    /// the arrivals already counted in a private update window are not carried over.
    pub fn attach(&mut self, terminal: TerminalLossEstimate) {
        self.estimate = terminal;
    }

    /// The estimate this connection feeds and reads.
    pub fn terminal(&self) -> &TerminalLossEstimate {
        &self.estimate
    }

    /// Feeds one arriving data segment [start, end) (offsets); `mss` (bytes) sizes the gaps.
    /// Returns the new p_err when this arrival completed an update window.
    pub fn on_data(&mut self, start: u64, end: u64, mss: u32) -> Option<f64> {
        if !self.cfg.enabled || end <= self.highest {
            return None;
        }
        let missing = if start > self.highest {
            (start - self.highest).div_ceil(u64::from(mss.max(1)))
        } else {
            0
        };
        self.highest = end;
        self.estimate
            .observe(1, missing, self.cfg.window_segments, self.cfg.p_buff)
    }

    /// How many times the next ACK is sent.
    pub fn copies(&self) -> u32 {
        if self.cfg.enabled && self.p_err() >= self.cfg.threshold {
            self.cfg.copies.max(1)
        } else {
            1
        }
    }

    /// Smoothed observed loss ratio p.
    pub fn p(&self) -> f64 {
        self.estimate.p()
    }

    /// Estimated radio loss probability p_err.
    pub fn p_err(&self) -> f64 {
        self.estimate.p_err()
    }
}

/// p_err = 1 − sqrt((1 − p)/(1 − p_buff)), clamped to [0, 1] (seed `004_…`).
pub fn radio_loss(p: f64, p_buff: f64) -> f64 {
    let ratio = (1.0 - p) / (1.0 - p_buff);
    (1.0 - ratio.max(0.0).sqrt()).clamp(0.0, 1.0)
}

/// The p_err the estimator converges to when the receiver observes the loss ratio
/// `1 − (1 − p_before)(1 − p_err_downlink)` of new segments: `p_before` lost before the radio
/// hop (the buffers), `p_err_downlink` on it; `p_buff` is the configured parameter. ACK losses
/// leave no trace at the receiver, so they do not enter (module documentation).
pub fn expected_estimate(p_err_downlink: f64, p_before: f64, p_buff: f64) -> f64 {
    let observed = 1.0 - (1.0 - p_before) * (1.0 - p_err_downlink);
    radio_loss(observed, p_buff)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> AckControlConfig {
        AckControlConfig {
            enabled: true,
            copies: 2,
            threshold: 0.1,
            p_buff: 0.01,
            window_segments: 10,
        }
    }

    /// Feeds segment `k` (100-byte segments from offset 1) to `e`.
    fn seg(e: &mut AckLossEstimator, k: u64) -> Option<f64> {
        e.on_data(1 + k * 100, 1 + (k + 1) * 100, 100)
    }

    #[test]
    fn formula_of_the_seed() {
        assert_eq!(radio_loss(0.01, 0.01), 0.0);
        // p = 0.3, p_buff = 0.01: 1 − sqrt(0.7/0.99).
        assert!((radio_loss(0.3, 0.01) - (1.0 - (0.7f64 / 0.99).sqrt())).abs() < 1e-12);
        assert_eq!(radio_loss(0.0, 0.01), 0.0);
        assert_eq!(radio_loss(1.0, 0.01), 1.0);
        // Inverse of p = 1 − (1 − p_buff)(1 − p_err)²: two crossings give p_err back.
        let p = 1.0 - 0.99 * 0.8 * 0.8;
        assert!((radio_loss(p, 0.01) - 0.2).abs() < 1e-12);
    }

    #[test]
    fn expected_estimate_is_about_half_the_radio_loss() {
        // Downlink losses only: p = p_err, so the estimate is 1 − sqrt((1 − p_err)/(1 − p_buff)).
        let e = expected_estimate(0.1, 0.0, 0.01);
        assert!((e - (1.0 - (0.9f64 / 0.99).sqrt())).abs() < 1e-12);
        assert!((0.04..0.05).contains(&e), "{e}");
        assert_eq!(expected_estimate(0.0, 0.0, 0.01), 0.0);
        // The threshold 0.1 is reached at p_err = 1 − 0.99·0.81 ≈ 0.198.
        assert!(expected_estimate(0.197, 0.0, 0.01) < 0.1);
        assert!(expected_estimate(0.199, 0.0, 0.01) > 0.1);
    }

    #[test]
    fn no_loss_keeps_one_copy() {
        let mut e = AckLossEstimator::new(cfg());
        for k in 0..100u64 {
            seg(&mut e, k);
        }
        assert_eq!(e.p(), 0.0);
        assert_eq!(e.copies(), 1);
        assert_eq!(e.terminal().updates(), 10);
    }

    #[test]
    fn copies_switch_on_at_the_threshold() {
        let mut e = AckLossEstimator::new(cfg());
        // Every second segment lost: p_new = 0.5 per window.
        let mut updates = vec![];
        for k in (1..200u64).step_by(2) {
            if let Some(pe) = seg(&mut e, k) {
                updates.push(pe);
            }
        }
        // First update: p = 1/8·0.5 = 0.0625 → p_err = 1 − sqrt(0.9375/0.99) ≈ 0.027.
        assert!((updates[0] - radio_loss(0.0625, 0.01)).abs() < 1e-12);
        assert!(updates.windows(2).all(|w| w[1] >= w[0]));
        assert!(e.p_err() > 0.1);
        assert_eq!(e.copies(), 2);
        // Retransmissions below the highest sequence are not counted.
        assert_eq!(e.on_data(1, 101, 100), None);
    }

    #[test]
    fn threshold_zero_sends_copies_from_the_start() {
        let e = AckLossEstimator::new(AckControlConfig {
            threshold: 0.0,
            ..cfg()
        });
        assert_eq!(e.p_err(), 0.0);
        assert_eq!(e.copies(), 2);
    }

    #[test]
    fn a_gap_counts_the_full_sized_segments_it_skips() {
        let mut e = AckLossEstimator::new(AckControlConfig {
            window_segments: 4,
            ..cfg()
        });
        // Segment 0, then segment 3: a gap of 200 bytes = 2 segments; 2 received + 2 missing.
        assert_eq!(seg(&mut e, 0), None);
        let p_err = seg(&mut e, 3).expect("window of 4 complete");
        assert!((e.p() - 0.5 / 8.0).abs() < 1e-12);
        assert_eq!(p_err, radio_loss(0.5 / 8.0, 0.01));
        // A partial gap (150 bytes with a 100-byte MSS) rounds up to 2 segments.
        let mut f = AckLossEstimator::new(AckControlConfig {
            window_segments: 3,
            ..cfg()
        });
        assert_eq!(
            f.on_data(151, 251, 100),
            Some(radio_loss(2.0 / 3.0 / 8.0, 0.01))
        );
    }

    #[test]
    fn disabled_does_nothing() {
        let mut e = AckLossEstimator::new(AckControlConfig {
            enabled: false,
            threshold: 0.0,
            ..cfg()
        });
        assert_eq!(e.on_data(1001, 1101, 100), None);
        assert_eq!(e.copies(), 1);
        assert_eq!(e.terminal().updates(), 0);
    }

    #[test]
    fn connections_of_one_terminal_fill_one_update_window() {
        let terminal = TerminalLossEstimate::new();
        let mut a = AckLossEstimator::at_terminal(cfg(), terminal.clone());
        let mut b = AckLossEstimator::at_terminal(cfg(), terminal.clone());
        assert!(a.terminal().shares_with(b.terminal()));
        // Five segments each, interleaved: the window of 10 closes on b's fifth.
        for k in 0..4u64 {
            assert_eq!(seg(&mut a, k), None);
            assert_eq!(seg(&mut b, k), None);
        }
        assert_eq!(seg(&mut a, 4), None);
        assert_eq!(seg(&mut b, 4), Some(0.0));
        assert_eq!(terminal.updates(), 1);
        // Each connection detects its own gaps: b's sequence space is not a's.
        assert_eq!(seg(&mut a, 7), None); // two missing, one received
        for k in 5..12u64 {
            let _ = seg(&mut b, k);
        }
        assert!((terminal.p() - 0.2 / 8.0).abs() < 1e-12, "{}", terminal.p());
        assert_eq!(a.p(), b.p());
    }

    #[test]
    fn a_new_connection_inherits_the_terminal_estimate() {
        let terminal = TerminalLossEstimate::new();
        let mut first = AckLossEstimator::at_terminal(cfg(), terminal.clone());
        for k in (1..400u64).step_by(2) {
            seg(&mut first, k);
        }
        assert!(first.p_err() > 0.1);
        let mut second = AckLossEstimator::new(cfg());
        assert_eq!(second.copies(), 1, "a private estimate starts at 0");
        second.attach(terminal.clone());
        assert_eq!(second.p_err(), first.p_err());
        assert_eq!(
            second.copies(),
            2,
            "the terminal's estimate is kept across connections"
        );
        let private = AckLossEstimator::new(cfg());
        assert!(!private.terminal().shares_with(&terminal));
    }

    #[test]
    fn the_estimate_tracks_a_steady_loss_rate() {
        // Deterministic pattern losing one segment in ten: observed p = 0.1, reached within
        // 1e-3 after enough windows: (7/8)^k · 0.1 < 1e-3 for k ≥ 35.
        let mut e = AckLossEstimator::new(cfg());
        for k in (0..5000u64).filter(|k| k % 10 != 9) {
            seg(&mut e, k);
        }
        assert!((e.p() - 0.1).abs() < 1e-3, "{}", e.p());
        assert!((e.p_err() - expected_estimate(0.1, 0.0, 0.01)).abs() < 1e-3);
    }
}
