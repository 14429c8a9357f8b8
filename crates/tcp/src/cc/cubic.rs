//! CUBIC (RFC 9438).
//!
//! Congestion avoidance follows the cubic W_cubic(t) = C·(t − K)³ + W_max (§4.2) from the start
//! of each congestion-avoidance stage, bounded below by the Reno-friendly estimate W_est
//! (§4.3); the window moves towards W_cubic(t + RTT) per ACK (§4.4 concave region, §4.5
//! convex region); reductions use β_cubic = 0.7 (§4.6) with fast convergence (§4.7); a timeout
//! follows §4.8. Slow start is RFC 5681's with ABC (RFC 3465), ended before the first loss by
//! a rising RTT ([`super::hystart`]): RFC 9438 §4.10 says CUBIC "SHOULD use the HyStart++
//! slow start algorithm \[RFC9406\]", so `cubic` runs HyStart++; `cubic-linux` runs the HyStart
//! of `tcp_cubic.c` (on by default there: `hystart = 1`, both detectors). `CcConfig::hystart =
//! Some(false)` turns either off (slow start then ends only at ssthresh or on a congestion
//! event).
//!
//! Window quantities of the RFC are in segments; this file keeps W_max, cwnd_prior and W_est
//! in segments (f64) and converts at the boundary, where cwnd and ssthresh are bytes.
//!
//! Two readings ([`CubicReading`]), `cubic` (RFC 9438) and `cubic-linux` (Linux's
//! `tcp_cubic.c`, `bictcp_update`), which differ in two places:
//! * the Reno-friendly region: RFC 9438 §4.3 raises W_est's additive increase from α_cubic to 1
//!   once W_est reaches cwnd_prior; Linux's "TCP friendliness" step (one segment per
//!   `cwnd · beta_scale / 8` ACKs, `beta_scale = 8·(1024 + 717)/3/(1024 − 717)`) keeps α_cubic
//!   for good. With frequent losses W_est soon passes cwnd_prior, and RFC 9438's CUBIC becomes
//!   AIMD(1, 0.7), whose mean window is √(1.7/0.6)/√1.5 = 1.37 times Reno's;
//! * the target's horizon: RFC 9438 §4.4 aims at W_cubic(t + RTT) with the smoothed RTT, Linux
//!   at W_cubic(t + delay_min), the connection's minimum RTT (a queue does not speed it up).
//!
//! docs/congestion-control.md, "CUBIC against the kernel's", gives the measured effect.

use super::hystart::{Hystart, HystartKind, SlowStartAction};
use super::reno_common::RenoCore;
use super::{
    AckEvent, CcConfig, CcSnapshot, CongestionControl, CongestionEvent, CongestionKind, RtoEvent,
};
use celltcp_engine::{SimDuration, SimTime};

/// RFC 9438 §5.1: C = 0.4, segments per second³.
pub const C: f64 = 0.4;
/// RFC 9438 §4.6: multiplicative decrease factor β_cubic = 0.7.
pub const BETA_CUBIC: f64 = 0.7;
/// RFC 9438 §4.3: α_cubic = 3·(1 − β_cubic)/(1 + β_cubic), the additive increase that gives
/// the same average window as Reno (AIMD(1, 0.5)) for the same loss rate.
pub const ALPHA_CUBIC: f64 = 3.0 * (1.0 - BETA_CUBIC) / (1.0 + BETA_CUBIC);
/// RFC 9438 §4.4: the target is at most 1.5·cwnd, bounding growth per RTT.
const MAX_TARGET_RATIO: f64 = 1.5;

/// One congestion-avoidance stage (the "epoch" of RFC 9438 §4.2).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Epoch {
    /// When the stage began (first ACK in congestion avoidance).
    start: SimTime,
    /// K, seconds: time for W_cubic to return to `origin`.
    k: f64,
    /// The plateau of the cubic, segments: W_max, or cwnd_epoch if cwnd already exceeds it.
    origin: f64,
    /// W_est of §4.3, segments.
    w_est: f64,
}

/// Which reading of CUBIC (module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CubicReading {
    /// RFC 9438: α_cubic until W_est reaches cwnd_prior, 1 after; the target one smoothed RTT
    /// ahead.
    #[default]
    Rfc9438,
    /// Linux `tcp_cubic.c`: α_cubic always; the target one minimum RTT ahead.
    Linux,
}

/// CUBIC congestion control; cwnd and ssthresh in bytes.
#[derive(Clone, Debug)]
pub struct Cubic {
    core: RenoCore,
    reading: CubicReading,
    /// W_max, segments: the window just before the last reduction (after fast convergence).
    w_max: f64,
    /// cwnd_prior, segments: cwnd before the last reduction (§4.6); W_est switches to an
    /// additive increase of 1 once it reaches this value (§4.3).
    cwnd_prior: f64,
    epoch: Option<Epoch>,
    /// Set by a timeout: the next stage uses K = 0 and W_max = cwnd_epoch (§4.8).
    after_timeout: bool,
    /// Fractional window growth not yet added to cwnd, bytes (growth per ACK is often below
    /// one byte on large windows).
    growth_credit: f64,
    /// The slow-start exit; `None` when turned off.
    hystart: Option<Hystart>,
    /// ssthresh at the start, bytes: HyStart++ runs while ssthresh still has this value.
    initial_ssthresh: u64,
}

impl Cubic {
    /// RFC 9438's CUBIC.
    pub fn new(cfg: &CcConfig) -> Self {
        Self::with_reading(cfg, CubicReading::Rfc9438)
    }

    /// CUBIC as the given reading runs it.
    pub fn with_reading(cfg: &CcConfig, reading: CubicReading) -> Self {
        let core = RenoCore::new(cfg);
        let kind = match reading {
            CubicReading::Rfc9438 => HystartKind::Rfc9406,
            CubicReading::Linux => HystartKind::Linux,
        };
        Cubic {
            hystart: cfg
                .hystart
                .unwrap_or(true)
                .then(|| Hystart::new(kind).paced(cfg.hystart_paced)),
            initial_ssthresh: core.ssthresh,
            core,
            reading,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            after_timeout: false,
            growth_credit: 0.0,
        }
    }

    /// The slow-start exit, if on.
    pub fn hystart(&self) -> Option<&Hystart> {
        self.hystart.as_ref()
    }

    /// W_max in segments.
    pub fn w_max_segments(&self) -> f64 {
        self.w_max
    }

    /// K of the current congestion-avoidance stage in seconds, if one has started.
    pub fn k_secs(&self) -> Option<f64> {
        self.epoch.map(|e| e.k)
    }

    /// W_est of the current stage in segments, if one has started.
    pub fn w_est_segments(&self) -> Option<f64> {
        self.epoch.map(|e| e.w_est)
    }

    fn mss_f(&self) -> f64 {
        self.core.mss as f64
    }

    /// cwnd including the fractional growth credit, segments.
    fn cwnd_segments(&self) -> f64 {
        (self.core.cwnd as f64 + self.growth_credit) / self.mss_f()
    }

    /// RFC 9438 §4.2, eq. 2: K = ∛((W_max − cwnd_epoch)/C), seconds.
    pub fn k_for(w_max: f64, cwnd_epoch: f64) -> f64 {
        ((w_max - cwnd_epoch).max(0.0) / C).cbrt()
    }

    /// RFC 9438 §4.2, eq. 1: W_cubic(t) = C·(t − K)³ + W_max, segments.
    pub fn w_cubic(t: f64, k: f64, w_max: f64) -> f64 {
        C * (t - k).powi(3) + w_max
    }

    /// Starts a congestion-avoidance stage at `now` with cwnd_epoch = cwnd.
    fn start_epoch(&mut self, now: SimTime) -> Epoch {
        let cwnd_epoch = self.cwnd_segments();
        if self.after_timeout {
            // §4.8: K = 0 and W_max = cwnd at the beginning of this stage.
            self.after_timeout = false;
            self.w_max = cwnd_epoch;
        }
        let origin = self.w_max.max(cwnd_epoch);
        Epoch {
            start: now,
            k: Self::k_for(origin, cwnd_epoch),
            origin,
            w_est: cwnd_epoch,
        }
    }

    /// Adds `delta` bytes (possibly fractional) of growth to cwnd.
    fn add_growth(&mut self, delta: f64) {
        if delta.is_nan() || delta <= 0.0 {
            return;
        }
        self.growth_credit += delta;
        let whole = self.growth_credit.floor();
        self.growth_credit -= whole;
        // `as` saturates: no wrap on absurd values.
        self.core.cwnd = self.core.cwnd.saturating_add(whole as u64);
    }

    /// Congestion avoidance for `acked` bytes on an ACK at `now` (§4.2–4.5).
    fn congestion_avoidance(&mut self, now: SimTime, acked: u64, rtt: SimDuration) {
        let mut epoch = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(now),
        };
        let mss = self.mss_f();
        let cwnd = self.cwnd_segments();
        let acked_segments = acked as f64 / mss;
        let t = now.saturating_since(epoch.start).as_secs_f64();

        // §4.3: W_est grows by α_cubic per window of ACKs, by 1 once it reaches cwnd_prior
        // (Linux: α_cubic always).
        let alpha = match self.reading {
            CubicReading::Rfc9438 if epoch.w_est >= self.cwnd_prior => 1.0,
            _ => ALPHA_CUBIC,
        };
        epoch.w_est += alpha * acked_segments / cwnd;

        if Self::w_cubic(t, epoch.k, epoch.origin) < epoch.w_est {
            // Reno-friendly region: cwnd = W_est (never below the current window).
            self.add_growth((epoch.w_est - cwnd) * mss);
        } else {
            // §4.4/§4.5: target = W_cubic(t + RTT) clamped to [cwnd, 1.5·cwnd]; cwnd grows by
            // (target − cwnd)/cwnd per acknowledged segment.
            let w = Self::w_cubic(t + rtt.as_secs_f64(), epoch.k, epoch.origin);
            let target = w.clamp(cwnd, MAX_TARGET_RATIO * cwnd);
            self.add_growth((target - cwnd) / cwnd * acked_segments * mss);
        }
        self.epoch = Some(epoch);
    }

    /// §4.6 and §4.7: W_max with fast convergence, cwnd_prior, ssthresh = flight_size·β_cubic.
    /// Returns (ssthresh before flooring, bytes).
    ///
    /// flight_size is at most cwnd: SND.NXT − SND.UNA also counts what the window did not
    /// send — limited transmit's segments, which RFC 5681 §3.2 step 2 excludes, and the SACKed
    /// data above a hole that outlived the previous recovery — and a reduction computed from it
    /// could leave ssthresh above cwnd, so that back-to-back recoveries raised the window
    /// (101 → 167 → 258 → 274 segments at 1 % loss). Linux's reading takes cwnd itself
    /// (`bictcp_recalc_ssthresh`: `cwnd · beta / BICTCP_BETA_SCALE`).
    fn multiplicative_decrease(&mut self, flight: u64) -> u64 {
        let cwnd = self.cwnd_segments();
        self.w_max = if cwnd < self.w_max {
            cwnd * (1.0 + BETA_CUBIC) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        self.epoch = None;
        self.growth_credit = 0.0;
        let flight_size = match self.reading {
            CubicReading::Rfc9438 => flight.min(self.core.cwnd),
            CubicReading::Linux => self.core.cwnd,
        };
        (flight_size as f64 * BETA_CUBIC) as u64
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        match self.reading {
            CubicReading::Rfc9438 => "cubic",
            CubicReading::Linux => "cubic-linux",
        }
    }
    fn cwnd(&self) -> u64 {
        self.core.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.core.ssthresh
    }
    fn on_ack(&mut self, ack: &AckEvent) {
        // The slow-start exit sees every ACK of new data outside recovery (Linux calls
        // `hystart_update` from `pkts_acked`, before the window grows in `cong_avoid`).
        let mut action = SlowStartAction::Grow;
        if let Some(h) = self.hystart.as_mut() {
            if self.core.in_slow_start() && ack.acked_bytes > 0 && !ack.in_recovery {
                let initial = self.core.ssthresh == self.initial_ssthresh;
                action = h.on_ack(ack, self.core.cwnd, self.core.mss, initial);
            }
        }
        if action == SlowStartAction::Exit {
            // RFC 9406 §4.2 / `tcp_cubic.c`: ssthresh = cwnd; this ACK already counts in
            // congestion avoidance.
            self.core.ssthresh = self.core.cwnd.max(2 * self.core.mss);
        }
        if !RenoCore::ack_may_grow(ack) {
            return;
        }
        let mut acked = ack.acked_bytes;
        if self.core.in_slow_start() {
            let mut inc = self.core.slow_start_increase(acked);
            if action == SlowStartAction::GrowConservatively {
                // RFC 9406 §4.2: Conservative Slow Start grows by a CSS_GROWTH_DIVISOR-th.
                inc /= super::hystart::CSS_GROWTH_DIVISOR;
            }
            acked = self.core.grow_slow_start(acked, inc);
        }
        if acked > 0 {
            let horizon = match self.reading {
                CubicReading::Rfc9438 => ack.srtt,
                CubicReading::Linux => ack.min_rtt,
            };
            let rtt = if horizon > SimDuration::ZERO {
                horizon
            } else {
                ack.rtt_sample.unwrap_or(SimDuration::ZERO)
            };
            self.congestion_avoidance(ack.now, acked, rtt);
        }
    }
    /// §4.6: loss → cwnd = max(ssthresh, 2 MSS); ECE → cwnd = max(ssthresh, 1 MSS);
    /// ssthresh = max(FlightSize·β_cubic, 2 MSS).
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        if let Some(h) = self.hystart.as_mut() {
            h.on_congestion();
        }
        let raw = self.multiplicative_decrease(ev.bytes_in_flight);
        let mss = self.core.mss;
        let (cwnd, fast) = match ev.kind {
            CongestionKind::FastRetransmit => (raw.max(2 * mss), true),
            CongestionKind::EcnEcho => (raw.max(mss), false),
        };
        self.core.reduce_to(raw, cwnd, fast);
    }
    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.core.exit_recovery();
    }
    /// §4.8: Reno's reduction (cwnd = 1 MSS) with ssthresh = FlightSize·β_cubic (held on a
    /// repeated expiry, RFC 5681 §3.1); the next stage starts with K = 0.
    fn on_rto(&mut self, ev: &RtoEvent) {
        if let Some(h) = self.hystart.as_mut() {
            h.on_rto(ev.now);
        }
        let raw = (ev.bytes_in_flight as f64 * BETA_CUBIC) as u64;
        self.cwnd_prior = self.cwnd_segments();
        self.epoch = None;
        self.growth_credit = 0.0;
        self.after_timeout = true;
        self.core.on_rto(ev.consecutive, raw);
    }
    /// `extra` = W_max in bytes.
    fn snapshot(&self) -> CcSnapshot {
        self.core
            .snapshot((self.w_max * self.mss_f()).round() as u64)
    }
    /// §4.9: restore cwnd, ssthresh and W_max; the next ACK starts a new stage.
    fn restore(&mut self, snapshot: &CcSnapshot) {
        self.core.restore(snapshot);
        self.w_max = snapshot.extra as f64 / self.mss_f();
        self.epoch = None;
        self.after_timeout = false;
        self.growth_credit = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{ack_at, loss, rto, run_trace};

    const MSS: u64 = 1_000;
    const RTT: SimDuration = SimDuration::from_ms(100);

    fn cubic_at(cwnd_segments: u64) -> Cubic {
        let mut c = Cubic::new(&CcConfig {
            mss: MSS as u32,
            ..CcConfig::default()
        });
        c.core.cwnd = cwnd_segments * MSS;
        c
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn constants_match_rfc() {
        // α_cubic = 3·0.3/1.7 = 0.529411...
        assert!(close(ALPHA_CUBIC, 0.9 / 1.7, 1e-15));
        assert_eq!((C, BETA_CUBIC), (0.4, 0.7));
    }

    #[test]
    fn k_and_w_cubic_match_hand_values() {
        // W_max = 100, cwnd_epoch = 70: K = ∛(30/0.4) = ∛75 = 4.217163326508746 s.
        let k = Cubic::k_for(100.0, 70.0);
        assert!(close(k, 4.217_163_326_508_746, 1e-12));
        assert!(close(Cubic::w_cubic(0.0, k, 100.0), 70.0, 1e-9));
        assert!(close(Cubic::w_cubic(k, k, 100.0), 100.0, 1e-12));
        // t = 1.1 s: 100 − 0.4·(4.2171633 − 1.1)³ = 100 − 0.4·30.288... = 87.884574...
        let w = Cubic::w_cubic(1.1, k, 100.0);
        assert!(close(w, 87.884_574_659_5, 1e-9));
    }

    #[test]
    fn loss_applies_beta_and_sets_w_max() {
        let mut c = cubic_at(100);
        c.on_congestion_event(&loss(SimTime::ZERO, 100 * MSS, RTT, RTT));
        assert_eq!((c.cwnd(), c.ssthresh()), (70_000, 70_000));
        assert_eq!(c.w_max_segments(), 100.0);
        assert_eq!(c.snapshot().extra, 100_000);
    }

    /// RFC 9438 §4.6: ssthresh = flight_size·β_cubic, with flight_size at most cwnd (RFC 5681
    /// §3.2 step 2: limited transmit's segments are not counted; nor is SACKed data a previous
    /// recovery left above a hole); Linux's reading reduces cwnd itself
    /// (`bictcp_recalc_ssthresh`), whatever is in flight.
    #[test]
    fn reduction_takes_at_most_the_window_rfc9438_4_6() {
        for reading in [CubicReading::Rfc9438, CubicReading::Linux] {
            let mut c = Cubic::with_reading(
                &CcConfig {
                    mss: MSS as u32,
                    ..CcConfig::default()
                },
                reading,
            );
            c.core.cwnd = 100 * MSS;
            // 296 segments between SND.UNA and SND.NXT, a window of 100.
            c.on_congestion_event(&loss(SimTime::ZERO, 296 * MSS, RTT, RTT));
            assert_eq!((c.cwnd(), c.ssthresh()), (70_000, 70_000), "{reading:?}");
            // Less in flight than the window: RFC 9438 takes the flight, Linux the window.
            c.on_recovery_exit(SimTime::ZERO);
            c.core.cwnd = 100 * MSS;
            c.on_congestion_event(&loss(SimTime::ZERO, 50 * MSS, RTT, RTT));
            let want = match reading {
                CubicReading::Rfc9438 => 35_000,
                CubicReading::Linux => 70_000,
            };
            assert_eq!(c.ssthresh(), want, "{reading:?}");
        }
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut c = cubic_at(100);
        c.on_congestion_event(&loss(SimTime::ZERO, 100 * MSS, RTT, RTT));
        c.on_recovery_exit(SimTime::ZERO);
        // A second loss at 80 segments, below W_max = 100: W_max = 80·(1 + 0.7)/2 = 68.
        c.core.cwnd = 80 * MSS;
        c.on_congestion_event(&loss(SimTime::ZERO, 80 * MSS, RTT, RTT));
        assert!(close(c.w_max_segments(), 68.0, 1e-12));
        assert_eq!(c.cwnd(), 56_000);
    }

    #[test]
    fn concave_growth_follows_target_per_ack() {
        let mut c = cubic_at(100);
        c.on_congestion_event(&loss(SimTime::ZERO, 100 * MSS, RTT, RTT));
        c.on_recovery_exit(SimTime::ZERO);
        let t0 = SimTime::from_ns(1_000_000_000);
        // The first CA ACK starts the stage: at t = 0, W_cubic(0) = cwnd_epoch = 70 is below
        // W_est = 70 + α_cubic/70, so the ACK is in the Reno-friendly region: cwnd = W_est.
        c.on_ack(&ack_at(t0, MSS, RTT));
        let k = c.k_secs().unwrap();
        assert!(close(k, 75f64.cbrt(), 1e-12));
        let w_est = 70.0 + ALPHA_CUBIC / 70.0;
        assert!(close(c.w_est_segments().unwrap(), w_est, 1e-12));
        assert_eq!(c.cwnd(), 70_007);
        // One second later W_cubic(1) = 86.7 > W_est: concave region. The target is
        // W_cubic(1 + RTT) and cwnd grows by (target − cwnd)/cwnd segments per segment acked.
        c.on_ack(&ack_at(t0 + SimDuration::from_secs(1), MSS, RTT));
        let target = 87.884_574_659_5;
        let after = w_est * 1_000.0 + (target - w_est) / w_est * 1_000.0;
        assert_eq!(c.cwnd(), after.floor() as u64);
        assert_eq!(c.cwnd(), 70_262);
    }

    #[test]
    fn convex_growth_is_capped_at_one_and_a_half_cwnd() {
        let mut c = cubic_at(100);
        c.on_congestion_event(&loss(SimTime::ZERO, 100 * MSS, RTT, RTT));
        c.on_recovery_exit(SimTime::ZERO);
        c.on_ack(&ack_at(SimTime::ZERO, MSS, RTT));
        // 20 s later W(t) ≈ 0.4·(15.9)³ + 100 ≈ 1700 segments ≫ 1.5·cwnd: the target is
        // 1.5·cwnd, so one ACK of one segment adds (1.5·cwnd − cwnd)/cwnd = 0.5 segment.
        let before = c.cwnd();
        c.on_ack(&ack_at(SimTime::from_ns(20_000_000_000), MSS, RTT));
        assert_eq!(c.cwnd() - before, 500);
    }

    #[test]
    fn reading_region_tracks_w_est() {
        // Small window, short RTT: Reno's additive increase outpaces the cubic.
        let mut c = cubic_at(10);
        c.on_congestion_event(&loss(SimTime::ZERO, 10 * MSS, RTT, RTT));
        c.on_recovery_exit(SimTime::ZERO);
        assert_eq!(c.cwnd(), 7_000);
        let rtt = SimDuration::from_ms(10);
        let mut t = SimTime::ZERO;
        for _ in 0..200 {
            c.on_ack(&ack_at(t, MSS, rtt));
            t += SimDuration::from_ms(1);
        }
        let w_est = c.w_est_segments().unwrap();
        let k = c.k_secs().unwrap();
        assert!(Cubic::w_cubic(0.199, k, 10.0) < w_est);
        assert_eq!(c.cwnd(), (w_est * 1_000.0).floor() as u64);
        // W_est passed cwnd_prior = 10 and then grew by 1 segment per window: far above the
        // 7 + 0.53·(200/≈9) ≈ 18 of a constant α_cubic, below Reno's 7 + 200/≈9.
        assert!(w_est > 10.0 && w_est < 7.0 + 200.0 / 7.0);
    }

    #[test]
    fn linux_keeps_alpha_cubic_past_cwnd_prior() {
        // The scenario above, with Linux's reading: W_est grows by α_cubic per window for good.
        // Returns W_est and cwnd (segments) at every ACK.
        let run = |reading: CubicReading| {
            let mut c = cubic_at(10);
            c.reading = reading;
            c.on_congestion_event(&loss(SimTime::ZERO, 10 * MSS, RTT, RTT));
            c.on_recovery_exit(SimTime::ZERO);
            let rtt = SimDuration::from_ms(10);
            let mut t = SimTime::ZERO;
            let mut rows = Vec::new();
            for _ in 0..400 {
                let cwnd = c.cwnd_segments();
                c.on_ack(&ack_at(t, MSS, rtt));
                rows.push((c.w_est_segments().unwrap(), cwnd));
                t += SimDuration::from_ms(1);
            }
            rows
        };
        let (rfc, linux) = (run(CubicReading::Rfc9438), run(CubicReading::Linux));
        // The same up to the ACK on which W_est reaches cwnd_prior = 10 segments...
        let cross = rfc.iter().position(|r| r.0 >= 10.0).unwrap();
        assert_eq!(rfc[..=cross], linux[..=cross]);
        // ...then RFC 9438 adds 1/cwnd per acknowledged segment, Linux α_cubic/cwnd.
        let step = |rows: &[(f64, f64)]| rows[cross + 1].0 - rows[cross].0;
        let cwnd = rfc[cross + 1].1;
        assert!(close(step(&rfc), 1.0 / cwnd, 1e-12));
        assert!(close(step(&linux), ALPHA_CUBIC / cwnd, 1e-12));
        // 400 ACKs later Linux's window is the smaller.
        assert!(
            linux[399].0 < rfc[399].0 - 1.0,
            "{:?} {:?}",
            linux[399],
            rfc[399]
        );
    }

    #[test]
    fn ecn_reduction_may_go_to_one_segment() {
        let mut c = cubic_at(10);
        let mut ev = loss(SimTime::ZERO, 1_200, RTT, RTT);
        ev.kind = CongestionKind::EcnEcho;
        c.on_congestion_event(&ev);
        // ssthresh = 0.7·1200 = 840 → floored at 2 MSS; cwnd = max(840, 1 MSS).
        assert_eq!((c.cwnd(), c.ssthresh()), (1_000, 2_000));
    }

    #[test]
    fn timeout_restarts_with_k_zero() {
        let mut c = cubic_at(100);
        c.on_rto(&rto(SimTime::ZERO, 100 * MSS, RTT));
        assert_eq!((c.cwnd(), c.ssthresh()), (1_000, 70_000));
        // Jump the window to ssthresh to reach congestion avoidance.
        c.core.cwnd = 70_000;
        c.on_ack(&ack_at(SimTime::ZERO, MSS, RTT));
        assert_eq!(c.k_secs(), Some(0.0));
        assert_eq!(c.w_max_segments(), 70.0);
    }

    #[test]
    fn restore_brings_back_w_max() {
        let mut c = cubic_at(100);
        c.on_congestion_event(&loss(SimTime::ZERO, 100 * MSS, RTT, RTT));
        let s = c.snapshot();
        c.on_rto(&rto(SimTime::ZERO, 70 * MSS, RTT));
        c.restore(&s);
        assert_eq!(
            (c.cwnd(), c.ssthresh(), c.w_max_segments()),
            (70_000, 70_000, 100.0)
        );
    }

    /// Pins CUBIC's reaction to the scripted trace. Slow start is Reno's (156_384 at slot 99);
    /// the loss sets ssthresh = 0.7·156_384 = 109_468 and W_max = 108 segments of 1448 B.
    /// After the exit at slot 110 the stage starts 30 % below W_max (K = ∛81 = 4.33 s) and
    /// climbs by about 0.37 segment in the 39 ACKs up to slot 149 (W_cubic's slope at t = 0 is
    /// 3·C·K² ≈ 22.5 segments/s). The RTO sets ssthresh = 0.7·109_998 = 76_998 and cwnd =
    /// 1 MSS; slow start then adds one MSS per ACK (41 segments at slot 199).
    #[test]
    fn scripted_trace_snapshot() {
        let mut c = Cubic::new(&CcConfig::default());
        let got = run_trace(&mut c);
        let expected = vec![
            (49, 86_880, u64::MAX),
            (99, 156_384, u64::MAX),
            (100, 109_468, 109_468),
            (109, 109_468, 109_468),
            (110, 109_468, 109_468),
            (149, 109_998, 109_468),
            (150, 1_448, 76_998),
            (160, 2_896, 76_998),
            (199, 59_368, 76_998),
        ];
        assert_eq!(got, expected);
    }
}
