//! Timers: retransmission (RFC 6298 §5), tail loss probe (RFC 8985 §7.2), delayed ACK (RFC
//! 5681 §4.2), persist (RFC 9293 §3.8.6.1), TIME-WAIT (RFC 9293 §3.10.7.4) and the pacer's
//! release time.

use celltcp_engine::SimTime;
use celltcp_net::trace::Traces;

use super::{TcpEndpoint, TcpState};
use crate::cc::RtoEvent;
use crate::recovery::RecoveryPhase;
use crate::tlp;

impl TcpEndpoint {
    /// The earliest instant at which [`TcpEndpoint::on_timeout`] must be called.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        let mut t: Option<SimTime> = None;
        let mut consider = |d: Option<SimTime>| {
            if let Some(d) = d {
                t = Some(t.map_or(d, |x| x.min(d)));
            }
        };
        consider(self.rtt.timer_deadline());
        consider(self.tlp.deadline());
        consider(self.persist.deadline());
        consider(self.time_wait_deadline);
        if self.state.is_synchronized() {
            consider(self.rcv.delack_deadline());
        }
        if self.pacing_blocked {
            consider(Some(self.pacing_next));
        }
        t
    }

    /// Handles every timer due at `now`.
    pub fn on_timeout(&mut self, now: SimTime, traces: &mut Traces) {
        if self.time_wait_deadline.is_some_and(|d| d <= now) {
            self.enter_closed(now);
            return;
        }
        if self.state.is_synchronized() {
            self.rcv.on_delack_timer(now);
        }
        // A PTO capped at the RTO's expiry (RFC 8985 §7.2) meets it: the timeout wins.
        let rto_due = self.rtt.timer_expired(now);
        self.tlp
            .on_timer(now, !rto_due && self.rec.phase() == RecoveryPhase::Open);
        if rto_due {
            self.on_rto(now, traces);
        }
        self.persist.on_timer(now, self.rtt.rto(), self.cfg.max_rto);
        if self.pacing_blocked && self.pacing_next <= now {
            self.pacing_blocked = false;
        }
    }

    /// RFC 6298 §5.4–5.6: retransmit the earliest unacknowledged segment, back off the timer;
    /// the controller sets the window (RFC 5681 §3.1) and every outstanding segment is deemed
    /// lost (go-back-N, modelled by the scoreboard's marks).
    fn on_rto(&mut self, now: SimTime, traces: &mut Traces) {
        self.rtt.stop_timer();
        match self.state {
            TcpState::SynSent | TcpState::SynReceived => {
                self.rtt.back_off();
                self.syn_pending = true;
            }
            TcpState::Closed | TcpState::Listen | TcpState::TimeWait => {}
            _ => {
                if self.buf.segs.is_empty() {
                    return;
                }
                self.stats.timeouts += 1;
                if self.eln_marks_head() {
                    self.rtt.back_off();
                    self.stats.eln_timeouts += 1;
                    let (rec, mut ctx) = self.recovery_and_ctx();
                    if rec.on_eln_timeout(&mut ctx) {
                        self.on_fast_recovery_entered(true);
                    }
                    self.trace_cc(now, traces);
                    return;
                }
                let consecutive = self.rtt.on_episode_expiry();
                // RFC 8985 §7.1: RTO recovery resets the TLP state.
                self.tlp.reset();
                // Linux's `tcp_enter_loss` reduces ssthresh only if that "has not yet been made
                // inside this window": a fast recovery in progress made it.
                let reduced_in_recovery = self.cfg.rto_keeps_recovery_ssthresh
                    && self.rec.phase() == RecoveryPhase::FastRecovery
                    && !self.rec.is_eln();
                self.spur.on_rto(
                    consecutive == 1,
                    &self.snd,
                    self.rec.phase(),
                    &self.cfg,
                    self.opts.timestamps,
                    self.cc.as_ref(),
                );
                self.cc.on_rto(&RtoEvent {
                    now,
                    // FlightSize of RFC 5681 eq. 4, taken before the go-back-N marks as the
                    // RFC 6675 pipe: SACKed bytes and segments already deemed lost have left
                    // the network. Without SACK information it equals SND.NXT − SND.UNA; with
                    // it, SND.NXT − SND.UNA can be several times the data really in flight
                    // (new data sent during fast recovery above a hole), and halving that
                    // would leave ssthresh above the path's capacity. RFC 5681 §3.1 asks for
                    // "no more than" eq. 4, so the smaller estimate conforms.
                    bytes_in_flight: self.buf.pipe(),
                    consecutive: consecutive.max(1 + u32::from(reduced_in_recovery)),
                    srtt: self.rtt.srtt(),
                    min_rtt: self.rtt.min_rtt(),
                    recent_rtts: self.rtt.recent(),
                });
                self.rtt.back_off();
                // RFC 6298 (5.6): the timer restarts at expiry with the backed-off RTO, not
                // when the retransmission leaves: the pacer may hold it back, and F-RTO
                // (RFC 5682 §2.1 step 2b) may then wait for new data that the receive window
                // does not admit, with nothing in flight — a timer that only a transmission
                // could start would never run again.
                self.rtt.restart_timer(now);
                self.buf.mark_all_lost();
                // An application-limited mark (a send buffer full of unacknowledged data leaves
                // the window unfilled) waits until the flight it saw is delivered. After the
                // expiry that flight is resent one segment at first, and the mark would make
                // every go-back-N ACK application-limited, which RFC 7661 forbids growing on:
                // cwnd would stay at 1 MSS, a segment per round trip, until the whole flight
                // was delivered again. The retransmissions are window-limited (RFC 5681 §3.1
                // slow start), as Linux's `tcp_rate_check_app_limited` also holds while lost
                // segments wait for their retransmission.
                self.rate.clear_app_limited();
                // RFC 6582 §3.2 step 1 / RFC 6675: recover is set on a timeout too.
                self.rec.enter_rto_recovery(self.snd.una(), self.snd.nxt());
                self.ecn.hold_until(self.snd.nxt());
                self.trace_cc(now, traces);
            }
        }
    }

    /// RFC 8985 §7.2: start or restart the PTO timer, after new data that was not a probe and
    /// after an ACK that advances SND.UNA, when SACK is in use, no segment is SACKed, the
    /// sender is not recovering and no probe is outstanding; otherwise the timer stops.
    pub(crate) fn schedule_loss_probe(&mut self, now: SimTime) {
        self.tlp.stop_timer();
        let armable = self.cfg.tlp
            && self.opts.sack
            && self.rec.phase() == RecoveryPhase::Open
            && !self.tlp.in_episode()
            && self.snd.una() < self.snd.nxt()
            && !self.buf.segs.iter().any(|s| s.sacked);
        if armable {
            let srtt = self.rtt.has_sample().then(|| self.rtt.srtt());
            let one_segment = self.snd.nxt() - self.snd.una() <= self.opts.mss as u64;
            let pto = tlp::probe_timeout(now, srtt, one_segment, self.rtt.timer_deadline());
            self.tlp.arm(now + pto);
        }
    }
}
