//! Round-trip time estimation, the retransmission timeout and its timer (RFC 6298), with the
//! timestamp clock of RFC 7323 §4–5.
//!
//! Karn's rule (RFC 6298 §3) is applied by the caller, which offers samples only from segments
//! sent once or from timestamp echoes; the estimator keeps the backed-off RTO until the next
//! valid sample, as §5.5–5.7 require.

use celltcp_engine::{SimDuration, SimTime};

/// RFC 6298 §2: alpha = 1/8, beta = 1/4 and K = 4, as shifts and a factor.
const ALPHA_SHIFT: u32 = 3;
const BETA_SHIFT: u32 = 2;
const K: u64 = 4;

/// SRTT, RTTVAR and RTO of one connection (all durations in nanoseconds), and the
/// retransmission timer they set (RFC 6298 §5): its deadline, its backoff and the expiries of
/// the current RTO recovery episode.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<SimDuration>,
    rttvar: SimDuration,
    /// RTO before backoff.
    base_rto: SimDuration,
    /// Number of doublings applied by consecutive expiries (RFC 6298 §5.5).
    backoff: u32,
    min_rto: SimDuration,
    max_rto: SimDuration,
    granularity: SimDuration,
    /// Linux's floor: `min_rto` bounds the variance term, not the whole RTO
    /// ([`Self::floor_variance_term`]).
    floor_on_variance: bool,
    min_rtt: Option<SimDuration>,
    latest: Option<SimDuration>,
    /// The last four samples, oldest first.
    recent: [SimDuration; 4],
    /// When the retransmission timer expires; `None` while it is stopped.
    deadline: Option<SimTime>,
    /// Expiries in the current RTO recovery episode, reset once the episode's recovery point
    /// is acknowledged (see `RtoEvent::consecutive`).
    episode_expiries: u32,
}

impl RttEstimator {
    /// Before any sample the RTO is `initial_rto` (RFC 6298 §2.1), clamped to the bounds.
    pub fn new(
        initial_rto: SimDuration,
        min_rto: SimDuration,
        max_rto: SimDuration,
        granularity: SimDuration,
    ) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: SimDuration::ZERO,
            base_rto: initial_rto.min(max_rto),
            backoff: 0,
            min_rto,
            max_rto,
            granularity,
            floor_on_variance: false,
            min_rtt: None,
            latest: None,
            recent: [SimDuration::ZERO; 4],
            deadline: None,
            episode_expiries: 0,
        }
    }

    /// RFC 6298 (5.1), (5.3): (re)starts the retransmission timer so that it expires after
    /// the current RTO from `now`.
    #[inline]
    pub fn restart_timer(&mut self, now: SimTime) {
        self.deadline = Some(now + self.rto());
    }

    /// RFC 6298 (5.1): starts the timer at `now` unless it is running.
    #[inline]
    pub fn start_timer_if_stopped(&mut self, now: SimTime) {
        if self.deadline.is_none() {
            self.restart_timer(now);
        }
    }

    /// RFC 6298 (5.2): stops the timer (all data acknowledged, or the connection closed).
    #[inline]
    pub fn stop_timer(&mut self) {
        self.deadline = None;
    }

    /// When the timer expires, if it is running.
    #[inline]
    pub fn timer_deadline(&self) -> Option<SimTime> {
        self.deadline
    }

    /// The timer is running and has expired by `now`.
    #[inline]
    pub fn timer_expired(&self, now: SimTime) -> bool {
        self.deadline.is_some_and(|d| d <= now)
    }

    /// An expiry that belongs to the current RTO recovery episode; returns how many the
    /// episode has seen, this one included.
    pub fn on_episode_expiry(&mut self) -> u32 {
        self.episode_expiries += 1;
        self.episode_expiries
    }

    /// The RTO recovery episode is over (its recovery point acknowledged, the timeout undone
    /// or the handshake complete): the next expiry starts a new series.
    pub fn end_episode(&mut self) {
        self.episode_expiries = 0;
    }

    /// Feeds one measurement R and recomputes the RTO; ends any backoff (RFC 6298 §5.7 last
    /// paragraph: the backed-off value is kept only until a valid sample arrives).
    pub fn on_sample(&mut self, r: SimDuration) {
        match self.srtt {
            None => {
                // RFC 6298 §2.2: SRTT <- R, RTTVAR <- R/2.
                self.srtt = Some(r);
                self.rttvar = SimDuration(r.0 / 2);
            }
            Some(srtt) => {
                // RFC 6298 §2.3: RTTVAR first, with the old SRTT.
                let err = srtt.0.abs_diff(r.0);
                self.rttvar = SimDuration(
                    self.rttvar.0 - (self.rttvar.0 >> BETA_SHIFT) + (err >> BETA_SHIFT),
                );
                self.srtt = Some(SimDuration(
                    srtt.0 - (srtt.0 >> ALPHA_SHIFT) + (r.0 >> ALPHA_SHIFT),
                ));
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        self.base_rto = self.rto_from(srtt);
        self.backoff = 0;
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.latest = Some(r);
        self.recent.rotate_left(1);
        self.recent[3] = r;
    }

    /// The current retransmission timeout, backoff included (RFC 6298 §5.5), capped at max_rto.
    pub fn rto(&self) -> SimDuration {
        let factor = 1u64.checked_shl(self.backoff.min(63)).unwrap_or(u64::MAX);
        SimDuration(self.base_rto.0.saturating_mul(factor)).min(self.max_rto)
    }

    /// RFC 6298 §5.5: RTO <- RTO · 2 after an expiry.
    pub fn back_off(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff += 1;
        }
    }

    /// Consecutive doublings currently applied.
    pub fn backoff_count(&self) -> u32 {
        self.backoff
    }

    /// Clears the backoff without a new sample (a spurious timeout undone, RFC 4015 §4).
    pub fn clear_backoff(&mut self) {
        self.backoff = 0;
    }

    /// RFC 6298 §5.7: after the SYN (or SYN-ACK) was retransmitted, the RTO used when data
    /// transmission begins is at least 3 s unless a sample has been taken since.
    pub fn raise_initial_rto(&mut self, floor: SimDuration) {
        if self.srtt.is_none() {
            self.base_rto = self.base_rto.max(floor).min(self.max_rto);
        }
        self.backoff = 0;
    }

    /// RFC 4015 §4 step (RTO adaptation) after a spurious timeout: the estimator is seeded
    /// again from the sample that revealed it, SRTT <- max(SRTT, R), RTTVAR <- max(RTTVAR, R/2),
    /// so that the next timer is not as premature as the last.
    pub fn adapt_after_spurious_timeout(&mut self, r: SimDuration) {
        let srtt = self.srtt.map_or(r, |s| s.max(r));
        self.srtt = Some(srtt);
        self.rttvar = self.rttvar.max(SimDuration(r.0 / 2));
        self.base_rto = self.rto_from(srtt);
        self.backoff = 0;
    }

    /// Applies `min_rto` to the variance term instead of the whole RTO, as Linux does:
    /// RTO = SRTT + max(min_rto, G, K·RTTVAR) (`tcp_set_rto`: `srtt + rttvar`, where
    /// `tcp_rtt_estimator` keeps `rttvar_us` at least `tcp_rto_min`), against RFC 6298's
    /// max(min_rto, SRTT + max(G, K·RTTVAR)) (2.4). With a 200 ms floor and a steady 100 ms
    /// RTT, Linux's RTO is 300 ms where RFC 6298's is 200 ms. Takes effect from the next sample.
    pub fn floor_variance_term(mut self, on: bool) -> Self {
        self.floor_on_variance = on;
        self
    }

    /// RFC 6298 §2.2–2.5: RTO = SRTT + max(G, K·RTTVAR), within [min_rto, max_rto]; with
    /// [`Self::floor_variance_term`], SRTT + max(min_rto, G, K·RTTVAR), at most max_rto.
    fn rto_from(&self, srtt: SimDuration) -> SimDuration {
        let mut var_term = self.granularity.0.max(K.saturating_mul(self.rttvar.0));
        if self.floor_on_variance {
            var_term = var_term.max(self.min_rto.0);
        }
        SimDuration(srtt.0.saturating_add(var_term))
            .max(self.min_rto)
            .min(self.max_rto)
    }

    /// Smoothed RTT; zero before the first sample.
    pub fn srtt(&self) -> SimDuration {
        self.srtt.unwrap_or(SimDuration::ZERO)
    }

    pub fn has_sample(&self) -> bool {
        self.srtt.is_some()
    }

    pub fn rttvar(&self) -> SimDuration {
        self.rttvar
    }

    /// Minimum RTT over the connection; zero before the first sample.
    pub fn min_rtt(&self) -> SimDuration {
        self.min_rtt.unwrap_or(SimDuration::ZERO)
    }

    pub fn latest(&self) -> Option<SimDuration> {
        self.latest
    }

    /// The last four samples, most recent last (zeros before enough samples).
    pub fn recent(&self) -> [SimDuration; 4] {
        self.recent
    }
}

/// The TSval for `now` with a timestamp clock of period `tick` (RFC 7323 §5.4); the clock
/// starts at zero with the simulation and wraps modulo 2^32.
#[inline]
pub fn ts_val(now: SimTime, tick: SimDuration) -> u32 {
    (now.as_ns() / tick.as_ns().max(1)) as u32
}

/// RTT measured from an echoed TSecr (RFC 7323 §4.1): elapsed ticks since the echoed value,
/// converted back to time. The result is a multiple of `tick`.
#[inline]
pub fn ts_rtt(now: SimTime, tsecr: u32, tick: SimDuration) -> SimDuration {
    let elapsed = ts_val(now, tick).wrapping_sub(tsecr);
    SimDuration((elapsed as u64).saturating_mul(tick.as_ns()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(
            SimDuration::from_secs(1),
            SimDuration::from_ms(200),
            SimDuration::from_secs(60),
            SimDuration::from_ms(1),
        )
    }

    #[test]
    fn first_sample_rfc6298_2_2() {
        let mut e = est();
        assert_eq!(e.rto(), SimDuration::from_secs(1));
        e.on_sample(SimDuration::from_ms(100));
        assert_eq!(e.srtt(), SimDuration::from_ms(100));
        assert_eq!(e.rttvar(), SimDuration::from_ms(50));
        // 100 + 4·50 = 300 ms.
        assert_eq!(e.rto(), SimDuration::from_ms(300));
    }

    #[test]
    fn later_samples_rfc6298_2_3() {
        let mut e = est();
        e.on_sample(SimDuration::from_ms(100));
        e.on_sample(SimDuration::from_ms(200));
        // RTTVAR = 3/4·50 + 1/4·100 = 62.5 ms; SRTT = 7/8·100 + 1/8·200 = 112.5 ms.
        assert_eq!(e.rttvar(), SimDuration::from_us(62_500));
        assert_eq!(e.srtt(), SimDuration::from_us(112_500));
        assert_eq!(e.rto(), SimDuration::from_us(362_500));
        assert_eq!(e.recent()[3], SimDuration::from_ms(200));
        assert_eq!(e.min_rtt(), SimDuration::from_ms(100));
    }

    #[test]
    fn granularity_and_minimum_bound_rto() {
        let mut e = est();
        for _ in 0..200 {
            e.on_sample(SimDuration::from_ms(10));
        }
        // RTTVAR decays towards 0: RTO = SRTT + G = 11 ms, raised to min_rto.
        assert_eq!(e.rto(), SimDuration::from_ms(200));
    }

    /// Linux's floor (`tcp_set_rto`, `tcp_rtt_estimator`): min_rto bounds the variance term,
    /// so a steady 100 ms RTT gives SRTT + 200 ms, where RFC 6298 (2.4) gives max(200 ms, SRTT
    /// + 4·RTTVAR) = 200 ms; a variance term above the floor counts as in RFC 6298.
    #[test]
    fn min_rto_bounds_the_variance_term_as_linux() {
        let mut rfc = est();
        let mut linux = est().floor_variance_term(true);
        for _ in 0..200 {
            rfc.on_sample(SimDuration::from_ms(100));
            linux.on_sample(SimDuration::from_ms(100));
        }
        assert_eq!(rfc.rto(), SimDuration::from_ms(200));
        assert_eq!(linux.rto(), SimDuration::from_ms(300));
        let mut linux = est().floor_variance_term(true);
        linux.on_sample(SimDuration::from_ms(100));
        // 100 + 4·50 = 300 ms: the variance term (200 ms) is not below the floor.
        assert_eq!(linux.rto(), SimDuration::from_ms(300));
        linux.on_sample(SimDuration::from_ms(200));
        assert_eq!(linux.rto(), SimDuration::from_us(362_500));
    }

    #[test]
    fn backoff_doubles_and_caps_rfc6298_5_5() {
        let mut e = est();
        let mut seen = vec![];
        for _ in 0..10 {
            seen.push(e.rto().as_ns() / 1_000_000_000);
            e.back_off();
        }
        assert_eq!(seen, vec![1, 2, 4, 8, 16, 32, 60, 60, 60, 60]);
        e.on_sample(SimDuration::from_ms(100));
        assert_eq!(e.backoff_count(), 0);
    }

    #[test]
    fn timestamp_clock_wraps() {
        let tick = SimDuration::from_ms(1);
        let t = SimTime::from_ns(5_000_000);
        assert_eq!(ts_val(t, tick), 5);
        assert_eq!(ts_rtt(t, 3, tick), SimDuration::from_ms(2));
        assert_eq!(ts_rtt(t, u32::MAX, tick), SimDuration::from_ms(6));
    }
}
