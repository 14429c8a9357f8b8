//! Polling at an AM transmitting side, common to LTE and NR: the counters of pollPDU and
//! pollByte, POLL_SN and t-PollRetransmit (TS 36.322 §5.2.2, TS 38.322 §5.3.3, which read the
//! same).
//!
//! For each AMD PDU about to be submitted (36.322 §5.2.2.1, 38.322 §5.3.3.2): a new one adds 1
//! to PDU_WITHOUT_POLL and its data bytes to BYTE_WITHOUT_POLL, and polls when either reaches
//! pollPDU or pollByte; any PDU polls when both buffers are empty after it (excluding data
//! awaiting acknowledgement), when the window stalls, or after t-PollRetransmit expired. A poll
//! resets the counters, sets POLL_SN and (re)starts t-PollRetransmit. What differs is left to
//! the entities: which SN POLL_SN takes (LTE VT(S) − 1, NR the highest SN submitted), when a
//! STATUS PDU stops the timer, and what is considered for retransmission at expiry.

use celltcp_engine::{SimDuration, SimTime};

/// The polling state of one transmitting side (the variables of 36.322 §7.1 / 38.322 §7.1
/// that concern polling, with the parameters of §7.4 and the timer of §7.3).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Poller {
    /// pollPDU, PDUs; `None` = infinity.
    poll_pdu: Option<u32>,
    /// pollByte, bytes; `None` = infinity.
    poll_byte: Option<u64>,
    t_poll_retransmit_duration: SimDuration,
    pdu_without_poll: u32,
    byte_without_poll: u64,
    poll_sn: u32,
    /// t-PollRetransmit deadline while running.
    t_poll_retransmit: Option<SimTime>,
    /// t-PollRetransmit expired: the next AMD PDU carries a poll (36.322 §5.2.2.3,
    /// 38.322 §5.3.3.4).
    poll_pending: bool,
}

impl Poller {
    pub(crate) fn new(
        poll_pdu: Option<u32>,
        poll_byte: Option<u64>,
        t_poll_retransmit: SimDuration,
    ) -> Self {
        Poller {
            poll_pdu,
            poll_byte,
            t_poll_retransmit_duration: t_poll_retransmit,
            pdu_without_poll: 0,
            byte_without_poll: 0,
            poll_sn: 0,
            t_poll_retransmit: None,
            poll_pending: false,
        }
    }

    /// POLL_SN.
    #[inline]
    pub(crate) fn poll_sn(&self) -> u32 {
        self.poll_sn
    }

    /// POLL_SN starting at `sn` instead of 0 (tests of the SN wrap).
    #[cfg(test)]
    pub(crate) fn set_poll_sn(&mut self, sn: u32) {
        self.poll_sn = sn;
    }

    /// The t-PollRetransmit deadline while the timer runs.
    #[inline]
    pub(crate) fn deadline(&self) -> Option<SimTime> {
        self.t_poll_retransmit
    }

    /// Stops t-PollRetransmit (a STATUS PDU acknowledged POLL_SN positively or negatively).
    #[inline]
    pub(crate) fn stop_timer(&mut self) {
        self.t_poll_retransmit = None;
    }

    /// Whether t-PollRetransmit expired at or before `now`; if so the timer is stopped and the
    /// next AMD PDU will poll. The caller then considers what to retransmit.
    #[inline]
    pub(crate) fn expired(&mut self, now: SimTime) -> bool {
        if self.t_poll_retransmit.is_some_and(|t| t <= now) {
            self.t_poll_retransmit = None;
            self.poll_pending = true;
            return true;
        }
        false
    }

    /// Decides the poll bit of an AMD PDU about to be submitted at `now` carrying `data_bytes`
    /// (`is_new`: not a retransmission). `buffers_empty`: nothing left to send, new or
    /// retransmitted, after this PDU; `window_stalled`: no new unit may be sent. On a poll,
    /// POLL_SN becomes `poll_sn` and t-PollRetransmit (re)starts. Returns the poll bit.
    pub(crate) fn on_submit(
        &mut self,
        now: SimTime,
        is_new: bool,
        data_bytes: u64,
        buffers_empty: bool,
        window_stalled: bool,
        poll_sn: u32,
    ) -> bool {
        let mut poll = self.poll_pending;
        if is_new {
            self.pdu_without_poll += 1;
            self.byte_without_poll += data_bytes;
            poll |= self.poll_pdu.is_some_and(|p| self.pdu_without_poll >= p);
            poll |= self.poll_byte.is_some_and(|p| self.byte_without_poll >= p);
        }
        poll |= buffers_empty || window_stalled;
        if poll {
            self.pdu_without_poll = 0;
            self.byte_without_poll = 0;
            self.poll_pending = false;
            self.poll_sn = poll_sn;
            self.t_poll_retransmit = Some(now + self.t_poll_retransmit_duration);
        }
        poll
    }

    /// RLC re-establishment (36.322 §5.4, 38.322 §5.1.2): counters and POLL_SN back to 0, the
    /// timer stopped.
    pub(crate) fn reset(&mut self) {
        *self = Poller::new(
            self.poll_pdu,
            self.poll_byte,
            self.t_poll_retransmit_duration,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_ms(n)
    }

    #[test]
    fn poll_pdu_counts_new_pdus_only_and_a_poll_starts_the_timer() {
        let mut p = Poller::new(Some(2), None, SimDuration::from_ms(45));
        let t = ms(1);
        assert!(!p.on_submit(t, true, 100, false, false, 0));
        assert!(
            !p.on_submit(t, false, 100, false, false, 0),
            "a retx does not count"
        );
        assert!(p.on_submit(t, true, 100, false, false, 1));
        assert_eq!((p.poll_sn(), p.deadline()), (1, Some(ms(46))));
        assert!(!p.expired(ms(45)));
        assert!(p.expired(ms(46)));
        assert_eq!(p.deadline(), None);
        // After expiry the next PDU polls, retransmission or not.
        assert!(p.on_submit(ms(47), false, 10, false, false, 1));
    }

    #[test]
    fn poll_byte_and_empty_buffers_poll() {
        let mut p = Poller::new(None, Some(1000), SimDuration::from_ms(45));
        let t = SimTime::ZERO;
        assert!(!p.on_submit(t, true, 999, false, false, 0));
        assert!(p.on_submit(t, true, 1, false, false, 1));
        assert!(p.on_submit(t, true, 1, true, false, 2), "buffers empty");
        assert!(p.on_submit(t, false, 1, false, true, 3), "window stalled");
        p.reset();
        assert_eq!((p.poll_sn(), p.deadline()), (0, None));
    }
}
