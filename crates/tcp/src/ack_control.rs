//! Receiver ACK control of the seed `004_…` (Miyoshi, Sugano and Murata, "Performance
//! Improvement of TCP in Wireless Cellular Network Based on Acknowledgement Control"): the
//! wireless receiver estimates the radio loss probability and, when it exceeds a threshold,
//! sends each ACK several times so that losing one ACK on the radio link no longer stalls the
//! sender; the sender is unmodified.
//!
//! Estimator (the seed's "Estimation on packet loss rate" slides):
//! * observation: within each *update window* of `window_segments` expected segments, the
//!   observed loss ratio is p_new = missing / (missing + received), where `received` counts
//!   segments that advanced the highest sequence seen and `missing` counts the full-sized
//!   segments skipped by a sequence gap (retransmissions filling a gap are neither);
//! * smoothing, per update window, like SRTT in TCP: p ← 7/8·p + 1/8·p_new, p starting at 0;
//! * radio part, assuming buffer and radio losses independent with p = 1 − (1 − p_buff)(1 − p_err)
//!   for each of a segment and its ACK (the seed's formula): p_err = 1 − sqrt((1 − p)/(1 − p_buff)),
//!   clamped to [0, 1];
//! * decision: each ACK is sent `copies` times while p_err > `threshold`.

use crate::config::AckControlConfig;

/// The receiver's loss estimator and copy decision.
#[derive(Clone, Debug)]
pub struct AckLossEstimator {
    cfg: AckControlConfig,
    /// Highest offset + 1 of data seen so far.
    highest: u64,
    received: u32,
    missing: u64,
    /// Smoothed observed loss ratio p.
    p: f64,
    /// Estimated radio loss probability p_err.
    p_err: f64,
}

impl AckLossEstimator {
    pub fn new(cfg: AckControlConfig) -> Self {
        AckLossEstimator {
            cfg,
            highest: 1,
            received: 0,
            missing: 0,
            p: 0.0,
            p_err: 0.0,
        }
    }

    /// Feeds one arriving data segment [start, end) (offsets); `mss` sizes the gaps. Returns
    /// the new p_err when this arrival completed an update window.
    pub fn on_data(&mut self, start: u64, end: u64, mss: u32) -> Option<f64> {
        if !self.cfg.enabled || end <= self.highest {
            return None;
        }
        if start > self.highest {
            self.missing += (start - self.highest).div_ceil(mss.max(1) as u64);
        }
        self.highest = end;
        self.received += 1;
        let total = self.received as u64 + self.missing;
        if total < self.cfg.window_segments as u64 {
            return None;
        }
        let p_new = self.missing as f64 / total as f64;
        self.p = 7.0 / 8.0 * self.p + 1.0 / 8.0 * p_new;
        self.p_err = radio_loss(self.p, self.cfg.p_buff);
        self.received = 0;
        self.missing = 0;
        Some(self.p_err)
    }

    /// How many times the next ACK is sent.
    pub fn copies(&self) -> u32 {
        if self.cfg.enabled && self.p_err > self.cfg.threshold {
            self.cfg.copies.max(1)
        } else {
            1
        }
    }

    /// Smoothed observed loss ratio p.
    pub fn p(&self) -> f64 {
        self.p
    }

    /// Estimated radio loss probability p_err.
    pub fn p_err(&self) -> f64 {
        self.p_err
    }
}

/// p_err = 1 − sqrt((1 − p)/(1 − p_buff)), clamped to [0, 1] (seed `004_…`).
pub fn radio_loss(p: f64, p_buff: f64) -> f64 {
    let ratio = (1.0 - p) / (1.0 - p_buff);
    (1.0 - ratio.max(0.0).sqrt()).clamp(0.0, 1.0)
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

    #[test]
    fn formula_of_the_seed() {
        assert_eq!(radio_loss(0.01, 0.01), 0.0);
        // p = 0.3, p_buff = 0.01: 1 − sqrt(0.7/0.99).
        assert!((radio_loss(0.3, 0.01) - (1.0 - (0.7f64 / 0.99).sqrt())).abs() < 1e-12);
        assert_eq!(radio_loss(0.0, 0.01), 0.0);
        assert_eq!(radio_loss(1.0, 0.01), 1.0);
    }

    #[test]
    fn no_loss_keeps_one_copy() {
        let mut e = AckLossEstimator::new(cfg());
        for k in 0..100u64 {
            e.on_data(1 + k * 100, 1 + (k + 1) * 100, 100);
        }
        assert_eq!(e.p(), 0.0);
        assert_eq!(e.copies(), 1);
    }

    #[test]
    fn copies_switch_on_above_the_threshold() {
        let mut e = AckLossEstimator::new(cfg());
        // Every second segment lost: p_new = 0.5 per window.
        let mut updates = vec![];
        for k in 0..200u64 {
            if k % 2 == 1 {
                if let Some(pe) = e.on_data(1 + k * 100, 1 + (k + 1) * 100, 100) {
                    updates.push(pe);
                }
            }
        }
        // First update: p = 1/8·0.5 = 0.0625 → p_err = 1 − sqrt(0.9375/0.99) ≈ 0.027.
        assert!((e_first(&updates) - radio_loss(0.0625, 0.01)).abs() < 1e-12);
        assert!(updates.windows(2).all(|w| w[1] >= w[0]));
        assert!(e.p_err() > 0.1);
        assert_eq!(e.copies(), 2);
        // Retransmissions below the highest sequence are not counted.
        assert_eq!(e.on_data(1, 101, 100), None);
    }

    fn e_first(v: &[f64]) -> f64 {
        v[0]
    }

    #[test]
    fn disabled_does_nothing() {
        let mut e = AckLossEstimator::new(AckControlConfig {
            enabled: false,
            ..cfg()
        });
        assert_eq!(e.on_data(1001, 1101, 100), None);
        assert_eq!(e.copies(), 1);
    }
}
