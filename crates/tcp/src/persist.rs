//! The persist timer (RFC 9293 §3.8.6.1): while the peer's window is closed and nothing is in
//! flight, zero-window probes are sent at the RTO backed off per probe, so that a lost window
//! update cannot deadlock the connection.

use celltcp_engine::{SimDuration, SimTime};

/// The persist timer and the probe it makes due.
#[derive(Clone, Copy, Debug, Default)]
pub struct PersistTimer {
    deadline: Option<SimTime>,
    /// Probes sent since the window closed: each doubles the interval.
    backoff: u32,
    /// The timer expired: the next transmission opportunity sends a zero-window probe.
    probe_pending: bool,
}

impl PersistTimer {
    /// When the timer expires, if it runs.
    pub fn deadline(&self) -> Option<SimTime> {
        self.deadline
    }

    /// The interval: `rto` doubled per probe sent, at most `max_rto`.
    fn interval(&self, rto: SimDuration, max_rto: SimDuration) -> SimDuration {
        let f = 1u64 << self.backoff.min(16);
        SimDuration(rto.0.saturating_mul(f)).min(max_rto)
    }

    /// The window is closed with nothing in flight: start the timer unless it runs.
    pub fn start(&mut self, now: SimTime, rto: SimDuration, max_rto: SimDuration) {
        if self.deadline.is_none() {
            self.deadline = Some(now + self.interval(rto, max_rto));
        }
    }

    /// The window opened or data left: the timer stops and the backoff ends.
    pub fn stop(&mut self) {
        self.deadline = None;
        self.backoff = 0;
    }

    /// The connection closed: no timer, whatever the backoff was.
    pub fn cancel(&mut self) {
        self.deadline = None;
    }

    /// At `now`: if the timer expired, a probe is due and the timer restarts, backed off.
    pub fn on_timer(&mut self, now: SimTime, rto: SimDuration, max_rto: SimDuration) {
        if self.deadline.is_some_and(|d| d <= now) {
            self.probe_pending = true;
            self.backoff += 1;
            self.deadline = Some(now + self.interval(rto, max_rto));
        }
    }

    /// Whether a probe is due; it is then taken.
    pub fn take_probe(&mut self) -> bool {
        std::mem::take(&mut self.probe_pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 9293 §3.8.6.1: the interval doubles per probe, up to the RTO ceiling, and resets
    /// once the window opens.
    #[test]
    fn the_probe_interval_backs_off_and_resets() {
        let (rto, max) = (SimDuration::from_secs(1), SimDuration::from_secs(3));
        let mut p = PersistTimer::default();
        p.start(SimTime::ZERO, rto, max);
        assert_eq!(p.deadline(), Some(SimTime::ZERO + rto));
        let t1 = SimTime::ZERO + rto;
        p.on_timer(t1, rto, max);
        assert!(p.take_probe() && !p.take_probe());
        assert_eq!(p.deadline(), Some(t1 + SimDuration::from_secs(2)));
        let t2 = t1 + SimDuration::from_secs(2);
        p.on_timer(t2, rto, max);
        assert_eq!(p.deadline(), Some(t2 + max));
        p.stop();
        p.start(t2, rto, max);
        assert_eq!(p.deadline(), Some(t2 + rto));
    }
}
