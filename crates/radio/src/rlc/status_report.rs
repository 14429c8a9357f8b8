//! When an AM receiving side may send a STATUS PDU, common to LTE and NR: the trigger and
//! t-StatusProhibit (TS 36.322 §5.2.3, TS 38.322 §5.3.4, which read the same).
//!
//! A STATUS report is triggered by a poll or by the detection of a reception failure (LTE's
//! t-Reordering, NR's t-Reassembly expiry); it is sent at the first transmission opportunity
//! when t-StatusProhibit is not running, and sending it starts t-StatusProhibit. What the report
//! lists (36.322 NACK_SN with SOstart/SOend; 38.322 also NACK range) and when a poll triggers it
//! stay with each entity.

use celltcp_engine::{SimDuration, SimTime};

/// The STATUS trigger and t-StatusProhibit of one receiving side.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StatusReporting {
    t_status_prohibit_duration: SimDuration,
    triggered: bool,
    /// t-StatusProhibit deadline while running.
    t_status_prohibit: Option<SimTime>,
}

impl StatusReporting {
    pub(crate) fn new(t_status_prohibit: SimDuration) -> Self {
        StatusReporting {
            t_status_prohibit_duration: t_status_prohibit,
            triggered: false,
            t_status_prohibit: None,
        }
    }

    /// Triggers a STATUS report.
    #[inline]
    pub(crate) fn trigger(&mut self) {
        self.triggered = true;
    }

    /// Whether a STATUS report has been triggered and not yet sent.
    #[inline]
    pub(crate) fn is_triggered(&self) -> bool {
        self.triggered
    }

    /// Whether a STATUS PDU may be sent at `now`: triggered, and t-StatusProhibit not running.
    #[inline]
    pub(crate) fn is_due(&self, now: SimTime) -> bool {
        self.triggered && self.t_status_prohibit.is_none_or(|t| t <= now)
    }

    /// A STATUS PDU was delivered to the lower layer at `now`: the trigger is served and
    /// t-StatusProhibit starts (a 0 ms timer is never run).
    pub(crate) fn sent(&mut self, now: SimTime) {
        self.triggered = false;
        if self.t_status_prohibit_duration.as_ns() > 0 {
            self.t_status_prohibit = Some(now + self.t_status_prohibit_duration);
        }
    }

    /// t-StatusProhibit's deadline while a triggered report waits for it (a caller need not
    /// wake up for a prohibit timer with nothing to send).
    #[inline]
    pub(crate) fn deadline(&self) -> Option<SimTime> {
        self.t_status_prohibit.filter(|_| self.triggered)
    }

    /// Stops t-StatusProhibit if it expired at or before `now`.
    #[inline]
    pub(crate) fn on_timeout(&mut self, now: SimTime) {
        if self.t_status_prohibit.is_some_and(|t| t <= now) {
            self.t_status_prohibit = None;
        }
    }

    /// RLC re-establishment: nothing triggered, the timer stopped.
    pub(crate) fn reset(&mut self) {
        *self = StatusReporting::new(self.t_status_prohibit_duration);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prohibit_holds_a_triggered_report_until_expiry() {
        let at = |ms| SimTime::ZERO + SimDuration::from_ms(ms);
        let mut s = StatusReporting::new(SimDuration::from_ms(10));
        assert!(!s.is_due(at(0)));
        s.trigger();
        assert!(s.is_due(at(0)));
        s.sent(at(0));
        assert_eq!(s.deadline(), None, "nothing triggered: no wake-up needed");
        s.trigger();
        assert!(!s.is_due(at(9)) && s.is_due(at(10)));
        assert_eq!(s.deadline(), Some(at(10)));
        s.on_timeout(at(10));
        assert_eq!(s.deadline(), None);
        let mut zero = StatusReporting::new(SimDuration::ZERO);
        zero.trigger();
        zero.sent(at(0));
        zero.trigger();
        assert!(zero.is_due(at(0)), "t-StatusProhibit 0 ms never runs");
    }
}
