//! Loss recovery: duplicate-ACK counting, fast retransmit and NewReno fast recovery (RFC 5681
//! §3.2, RFC 6582), SACK-based recovery (RFC 6675 §5), limited transmit (RFC 3042) and the
//! go-back-N phase after a retransmission timeout (RFC 5681 §3.1, RFC 6298 §5).
//!
//! The controller owns cwnd and ssthresh; this module owns the mechanics and NewReno's window
//! inflation, which is added to the controller's cwnd only while in fast recovery without SACK.
//!
//! Explicit Loss Notification (Balakrishnan & Katz, "Explicit Loss Notification and Wireless Web
//! Performance", GLOBECOM 1998), when `TcpConfig::eln` is set: an ACK carrying the ELN mark says
//! that the base station's radio link lost the segment the ACK asks for. A fast retransmit (or a
//! timeout) for that segment retransmits it without a congestion response — neither cwnd nor
//! ssthresh is reduced, and the recovery it starts ends without `on_recovery_exit`.

use celltcp_engine::SimTime;
use celltcp_net::trace::{TraceVar, Traces};

use crate::endpoint::TcpEndpoint;
use crate::scoreboard::NextSegRule;

/// Where the sender is in loss recovery; traced as cc_state 2 (fast) and 3 (RTO).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RecoveryPhase {
    /// No recovery in progress.
    #[default]
    Open,
    /// Fast recovery after fast retransmit (RFC 6582 or RFC 6675).
    FastRecovery,
    /// Retransmission of the outstanding window after a timeout.
    Loss,
}

/// Recovery variables (names from RFC 6582 and RFC 6675 §2), PRR's (RFC 6937 §3) and ELN's.
/// Other modules read them and change them through the methods below, which name the
/// events of the RFCs; the per-ACK state machine is `TcpEndpoint::update_recovery`.
#[derive(Clone, Debug, Default)]
pub struct Recovery {
    phase: RecoveryPhase,
    /// DupAcks: duplicate ACKs since the last cumulative ACK.
    dupacks: u32,
    /// RFC 6582 "recover" = RFC 6675 RecoveryPoint, as the offset one past the highest byte
    /// sent when recovery began (so a *full* ACK is one with SND.UNA ≥ recover).
    recover: u64,
    /// NewReno inflation added to cwnd, bytes; negative after deflation (RFC 6582 §3.2).
    inflation: i64,
    /// HighRxt: one past the highest byte retransmitted by NextSeg rules 1 and 3.
    high_rxt: u64,
    /// RescueRxt (RFC 6675 §4 rule 4): one past the end of the last rescue retransmission.
    rescue_rxt: Option<u64>,
    /// The next lost segment goes out regardless of cwnd: the fast retransmission itself
    /// (RFC 5681 §3.2 step 2, RFC 6675 §5 (4.3)) and NewReno's partial-ACK retransmission
    /// (RFC 6582 §3.2 step 4).
    retransmit_now: bool,
    /// Partial ACKs received in the current NewReno fast recovery (RFC 6582 §3.2 step 5).
    partial_acks: u32,
    /// ELN: SND.UNA when the last ACK carrying the ELN mark arrived, the hole a radio link
    /// caused. It applies while SND.UNA stays there.
    eln_hole: Option<u64>,
    /// The current fast recovery repairs a radio loss (ELN): it began without a congestion
    /// response, so it ends without one.
    eln: bool,
    /// PRR (RFC 6937 §3): data delivered to the receiver since recovery started, bytes.
    prr_delivered: u64,
    /// PRR: data sent since recovery started, bytes.
    prr_out: u64,
    /// PRR's RecoverFS: Linux's `prior_cwnd`, the window before the reduction, bytes.
    recover_fs: u64,
    /// PRR: the window this ACK allows (pipe + sndcnt), bytes; used in fast recovery only.
    prr_cwnd: Option<u64>,
    /// The last ACK marked segments lost by RFC 6675's IsLost (PRR's `newly_lost`).
    newly_lost: bool,
}

impl Recovery {
    /// The recovery phase.
    #[inline]
    pub fn phase(&self) -> RecoveryPhase {
        self.phase
    }

    /// RFC 6582 "recover" = RFC 6675 RecoveryPoint.
    pub fn recover(&self) -> u64 {
        self.recover
    }

    /// Partial ACKs received in the current NewReno fast recovery (RFC 6582 §3.2 step 5).
    pub fn partial_acks(&self) -> u32 {
        self.partial_acks
    }

    /// NewReno's window inflation, bytes (RFC 6582 §3.2).
    pub fn inflation(&self) -> i64 {
        self.inflation
    }

    /// PRR's window for this ACK, if PRR set one (RFC 6937 §3).
    pub fn prr_cwnd(&self) -> Option<u64> {
        self.prr_cwnd
    }

    /// The current fast recovery repairs a radio loss (ELN).
    pub fn is_eln(&self) -> bool {
        self.eln
    }

    /// The next lost segment goes out regardless of cwnd.
    pub fn retransmit_now(&self) -> bool {
        self.retransmit_now
    }

    /// The retransmission that `retransmit_now` allowed has been sent.
    pub fn clear_retransmit_now(&mut self) {
        self.retransmit_now = false;
    }

    /// The handshake is complete: data starts at offset 1, and so do the recovery point and
    /// HighRxt.
    pub fn on_handshake_complete(&mut self) {
        self.recover = 1;
        self.high_rxt = 1;
    }

    /// `payload` bytes were sent; in fast recovery they count as PRR's prr_out (RFC 6937 §3).
    pub fn on_data_sent(&mut self, payload: u64) {
        if self.phase == RecoveryPhase::FastRecovery {
            self.prr_out += payload;
        }
    }

    /// RACK found the retransmission starting at `start` lost (RFC 8985 §6.2): NextSeg must
    /// be allowed to send it again, so HighRxt moves back to it.
    pub fn on_lost_retransmission(&mut self, start: u64) {
        self.high_rxt = self.high_rxt.min(start);
    }

    /// A retransmission timeout (RFC 5681 §3.1, RFC 6298 §5): go-back-N from SND.UNA; the
    /// recovery point is SND.NXT (RFC 6582 §3.2 step 1, RFC 6675), DupAcks and NewReno's
    /// inflation end.
    pub fn enter_rto_recovery(&mut self, snd_una: u64, snd_nxt: u64) {
        self.phase = RecoveryPhase::Loss;
        self.recover = snd_nxt;
        self.high_rxt = snd_una;
        self.dupacks = 0;
        self.inflation = 0;
        self.rescue_rxt = None;
        self.retransmit_now = false;
    }

    /// A timeout found spurious (RFC 4015 §4): recovery ends, and the window that timed out
    /// owes no congestion response (the recovery point is SND.UNA).
    pub fn undo_timeout(&mut self, snd_una: u64) {
        self.phase = RecoveryPhase::Open;
        self.dupacks = 0;
        self.recover = snd_una;
    }

    /// RFC 6582 §3.2 step 3 / RFC 6675 §5: a full ACK ends fast recovery (as does Reno's
    /// partial ACK, RFC 5681 §3.2 step 6).
    fn leave_fast_recovery(&mut self) {
        self.phase = RecoveryPhase::Open;
        self.inflation = 0;
        self.dupacks = 0;
        self.retransmit_now = false;
    }

    /// The controller call that ends the current fast recovery: none after an ELN entry.
    fn exit_event(&mut self) -> RecoveryEvent {
        if std::mem::take(&mut self.eln) {
            RecoveryEvent::ExitEln
        } else {
            RecoveryEvent::Exit
        }
    }

    /// RFC 6582 §3.2 step 4, NewReno's partial ACK of `cum_acked` bytes with SND.UNA at
    /// `snd_una`: retransmit the first unacknowledged segment, deflate by the amount
    /// acknowledged, add back one SMSS if at least one SMSS was acknowledged.
    fn on_partial_ack(&mut self, snd_una: u64, cum_acked: u64, smss: u64) {
        self.high_rxt = snd_una;
        self.retransmit_now = true;
        self.partial_acks += 1;
        self.inflation -= cum_acked as i64;
        if cum_acked >= smss {
            self.inflation += smss as i64;
        }
    }
}

/// What one ACK told the recovery machinery.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AckInfo {
    /// SND.UNA advanced.
    pub advanced: bool,
    /// Bytes cumulatively acknowledged.
    pub cum_acked: u64,
    /// Bytes newly SACKed.
    pub newly_sacked: u64,
    /// A duplicate ACK by the definition in force: RFC 6675 §2 with SACK (it reports new
    /// SACKed data), RFC 5681 §2 without.
    pub is_dup: bool,
}

/// The controller callback that follows `on_ack` for this ACK (call order of `cc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RecoveryEvent {
    None,
    /// Entering fast recovery: `on_congestion_event(FastRetransmit)`.
    Enter,
    /// Full ACK: `on_recovery_exit`.
    Exit,
    /// Entering fast recovery for a hole marked by ELN: no controller call (no reduction).
    EnterEln,
    /// End of a recovery entered with `EnterEln`: no controller call either.
    ExitEln,
}

impl TcpEndpoint {
    /// Updates DupAcks and the recovery phase for one ACK, after SACK processing and before
    /// the controller hears of it.
    pub(crate) fn update_recovery(
        &mut self,
        now: SimTime,
        info: &AckInfo,
        traces: &mut Traces,
    ) -> RecoveryEvent {
        let thresh = self.dupthresh();
        self.rec.newly_lost = false;
        if self.opts.sack && info.newly_sacked > 0 {
            self.rec.newly_lost = self.buf.update_lost(thresh, self.opts.mss as u64);
        }
        if info.advanced {
            // RFC 6675 §5 (1) / RFC 5681: a cumulative ACK resets DupAcks.
            self.rec.dupacks = 0;
            self.rec.high_rxt = self.rec.high_rxt.max(self.snd.una());
        }
        if info.is_dup {
            self.rec.dupacks += 1;
            self.stats.dupacks_received += 1;
            if self.traces_send_side(traces) {
                traces.record(now, self.flow, TraceVar::DupAck, self.snd.una() as f64);
            }
        }
        match self.rec.phase {
            RecoveryPhase::FastRecovery => self.fast_recovery_on_ack(info),
            RecoveryPhase::Loss => {
                if self.snd.una() >= self.rec.recover {
                    self.rec.phase = RecoveryPhase::Open;
                }
                RecoveryEvent::None
            }
            RecoveryPhase::Open => self.maybe_enter_fast_recovery(info, thresh),
        }
    }

    /// An ACK in fast recovery: a full ACK ends it (RFC 6582 §3.2 step 3 / RFC 6675 §5), as
    /// Reno's partial ACK does; without SACK, NewReno's partial ACK retransmits and deflates
    /// (step 4) and a further duplicate inflates by one SMSS (step 3).
    fn fast_recovery_on_ack(&mut self, info: &AckInfo) -> RecoveryEvent {
        if self.snd.una() >= self.rec.recover {
            self.rec.leave_fast_recovery();
            return self.rec.exit_event();
        }
        if !self.opts.sack && info.advanced && self.cc.exits_recovery_on_partial_ack() {
            // RFC 5681 §3.2 step 6 (Reno): new data acknowledged ends recovery; a further
            // loss in the same window starts a new recovery with a new reduction.
            self.rec.leave_fast_recovery();
            self.rec.recover = self.snd.una();
            return self.rec.exit_event();
        }
        if !self.opts.sack {
            if info.advanced {
                self.buf.mark_lost_at(self.snd.una());
                self.rec
                    .on_partial_ack(self.snd.una(), info.cum_acked, self.opts.mss as u64);
            } else if info.is_dup {
                self.rec.inflation += self.opts.mss as i64;
            }
        }
        RecoveryEvent::None
    }

    /// An ACK outside recovery: DupThresh duplicates, or RFC 6675 §5 (3)'s IsLost(HighACK + 1),
    /// start fast recovery — only if the ACK covers the previous recovery point, so that one
    /// window's losses cause one reduction, also after an RTO (RFC 6582 §3.2 steps 1–2).
    fn maybe_enter_fast_recovery(&mut self, info: &AckInfo, thresh: u32) -> RecoveryEvent {
        let lost_head = self.opts.sack && info.is_dup && self.buf.first_is_lost();
        let trigger = self.rec.dupacks >= thresh || lost_head;
        if !(trigger && self.snd.una() >= self.rec.recover && self.snd.has_outstanding()) {
            return RecoveryEvent::None;
        }
        self.enter_fast_recovery(thresh);
        if self.eln_marks_head() {
            self.rec.eln = true;
            self.stats.eln_recoveries += 1;
            return RecoveryEvent::EnterEln;
        }
        RecoveryEvent::Enter
    }

    /// RFC 6675 §5 (4) / RFC 6582 §3.2 step 2: RecoveryPoint = HighData, retransmit the first
    /// segment, inflate by DupThresh·SMSS without SACK.
    fn enter_fast_recovery(&mut self, thresh: u32) {
        self.rec.phase = RecoveryPhase::FastRecovery;
        self.rec.eln = false;
        self.rec.partial_acks = 0;
        self.rec.recover = self.snd.nxt();
        self.buf.mark_lost_at(self.snd.una());
        self.rec.high_rxt = self.snd.una();
        self.rec.retransmit_now = true;
        // RFC 6675 §5 (4.3): no rescue before the cumulative ACK passes the first retransmission.
        self.rec.rescue_rxt = self.buf.segs.front().map(|s| s.end);
        self.rec.inflation = if self.opts.sack {
            0
        } else {
            (thresh as i64) * self.opts.mss as i64
        };
        // RFC 3168 §6.1.2: no ECN reduction again in this window.
        self.ecn.hold_until(self.snd.nxt());
        self.stats.fast_recoveries += 1;
    }

    /// Whether PRR (RFC 6937) sets the sending window of this fast recovery: the option is on,
    /// SACK is in use (the RFC's DeliveredData needs it; without SACK NewReno's inflation
    /// stays), the recovery is a congestion response (not ELN) and the controller leaves its
    /// window to the loss-recovery machinery during recovery (not BBR: Linux's
    /// `tcp_cong_control` skips `tcp_cwnd_reduction` for a `cong_control` module).
    pub(crate) fn prr_active(&self) -> bool {
        self.cfg.prr
            && self.opts.sack
            && self.rec.phase == RecoveryPhase::FastRecovery
            && !self.rec.eln
            && self.cc.reduces_by_prr()
    }

    /// RFC 6937 §3 at the start of a fast recovery, after the controller set ssthresh:
    /// prr_delivered = prr_out = 0, RecoverFS = the window before the reduction (Linux's
    /// `tcp_init_cwnd_reduction` takes `prior_cwnd`; the RFC's FlightSize is the same in an
    /// ACK-clocked steady state).
    pub(crate) fn prr_start(&mut self, prior_cwnd: u64) {
        self.rec.prr_delivered = 0;
        self.rec.prr_out = 0;
        self.rec.recover_fs = prior_cwnd.max(1);
        self.rec.prr_cwnd = None;
    }

    /// RFC 6937 §3, per ACK in fast recovery (Linux's `tcp_cwnd_reduction`): the window that
    /// lets `sndcnt` more bytes out beyond the pipe. While the pipe is above ssthresh the sender
    /// sends prr_delivered·ssthresh/RecoverFS in all (proportional part); below it, it grows
    /// the pipe back towards ssthresh by at most what was delivered (the slow-start reduction
    /// bound, with Linux's one extra segment only for an ACK that advanced SND.UNA and marked
    /// nothing lost). The first ACK always lets the fast retransmission out. An ACK that
    /// delivered nothing leaves the window as it was.
    pub(crate) fn prr_on_ack(&mut self, delivered: u64, advanced: bool) {
        if delivered == 0 {
            return;
        }
        let r = &mut self.rec;
        r.prr_delivered += delivered;
        let ssthresh = self.cc.ssthresh();
        let pipe = self.buf.pipe();
        let mss = self.opts.mss as u64;
        let sndcnt = if pipe > ssthresh {
            // sndcnt = CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out.
            let due = (r.prr_delivered as u128 * ssthresh as u128).div_ceil(r.recover_fs as u128);
            (due.min(u64::MAX as u128) as u64).saturating_sub(r.prr_out)
        } else {
            let extra = if advanced && !r.newly_lost { mss } else { 0 };
            let limit = r.prr_delivered.saturating_sub(r.prr_out).max(delivered) + extra;
            (ssthresh - pipe).min(limit)
        };
        // Linux: `sndcnt = max(sndcnt, prr_out ? 0 : 1)`, the fast retransmission itself.
        let sndcnt = if r.prr_out == 0 {
            sndcnt.max(mss)
        } else {
            sndcnt
        };
        r.prr_cwnd = Some(pipe + sndcnt);
    }

    /// ELN is enabled and the last ELN-marked ACK asked for the segment at SND.UNA.
    pub(crate) fn eln_marks_head(&self) -> bool {
        self.cfg.eln && self.rec.eln_hole == Some(self.snd.una()) && self.snd.una() < self.snd.nxt()
    }

    /// An ACK carrying the ELN mark, processed up to the cumulative ACK: remembers the hole it
    /// reports (SND.UNA, the segment the ACK asks for).
    pub(crate) fn on_eln_ack(&mut self) {
        self.stats.eln_acks_received += 1;
        if self.cfg.eln && self.snd.una() < self.snd.nxt() {
            self.rec.eln_hole = Some(self.snd.una());
        }
    }

    /// A retransmission timeout for a hole ELN marked: the segment at SND.UNA is retransmitted
    /// at once without a congestion response (no `on_rto`: cwnd and ssthresh stay), as a fast
    /// retransmission would; the timer has been backed off (RFC 6298 §5.5), so a path that lost
    /// its ACK clock is still probed ever more slowly.
    pub(crate) fn eln_timeout(&mut self) {
        self.stats.eln_timeouts += 1;
        if self.rec.phase == RecoveryPhase::Open {
            self.enter_fast_recovery(self.dupthresh());
            self.rec.eln = true;
            self.stats.eln_recoveries += 1;
        } else {
            self.buf.mark_lost_at(self.snd.una());
            self.rec.high_rxt = self.snd.una();
            self.rec.retransmit_now = true;
        }
    }

    /// Whether an ACK that advanced SND.UNA restarts the retransmission timer (RFC 6298 §5.3).
    /// RFC 6582 §3.2 step 5: in NewReno fast recovery only the *first* partial ACK does (the
    /// "Impatient" variant of its §4). NewReno repairs one hole per round trip, so a window
    /// with dozens of losses (a slow-start overshoot into a drop-tail queue) would otherwise
    /// spend dozens of round trips in recovery; the timer ends that after one RTO and the
    /// go-back-N retransmission repairs the rest. SACK recovery (RFC 6675) keeps the RFC 6298
    /// rule.
    pub(crate) fn advance_restarts_rto_timer(&self) -> bool {
        self.opts.sack
            || self.rec.phase != RecoveryPhase::FastRecovery
            || self.rec.partial_acks <= 1
    }

    /// RFC 3042: on the first two duplicate ACKs new segments may be sent as long as the
    /// outstanding data stays within cwnd + 2·SMSS.
    pub(crate) fn limited_transmit_allowance(&self) -> u64 {
        if self.cfg.limited_transmit
            && self.rec.phase == RecoveryPhase::Open
            && self.rec.dupacks > 0
            && self.rec.dupacks < self.dupthresh()
        {
            self.rec.dupacks.min(2) as u64 * self.opts.mss as u64
        } else {
            0
        }
    }

    /// NextSeg rule 1 (and the retransmissions of NewReno and of RTO recovery): the next
    /// segment deemed lost that has no retransmission in flight.
    pub(crate) fn next_lost_retransmission(&self) -> Option<(usize, NextSegRule)> {
        match self.rec.phase {
            RecoveryPhase::Open => None,
            _ => self
                .buf
                .next_lost(self.rec.high_rxt)
                .map(|i| (i, NextSegRule::Lost)),
        }
    }

    /// NextSeg rules 3 and 4 (RFC 6675 §4), consulted when neither a lost segment nor new
    /// data can be sent during SACK-based fast recovery.
    pub(crate) fn sack_fallback_retransmission(&self) -> Option<(usize, NextSegRule)> {
        if !self.opts.sack || self.rec.phase != RecoveryPhase::FastRecovery {
            return None;
        }
        if let Some(i) = self.buf.next_unsacked(self.rec.high_rxt) {
            return Some((i, NextSegRule::Unsacked));
        }
        // Rule 4: once per cumulative-ACK advance beyond RescueRxt.
        if self.rec.rescue_rxt.is_none_or(|r| self.snd.una() >= r) {
            return self
                .buf
                .rescue_candidate()
                .map(|i| (i, NextSegRule::Rescue));
        }
        None
    }

    /// Book-keeping after NextSeg's choice was sent.
    pub(crate) fn on_retransmitted(&mut self, end: u64, rule: NextSegRule) {
        match rule {
            NextSegRule::Lost | NextSegRule::Unsacked => {
                self.rec.high_rxt = self.rec.high_rxt.max(end)
            }
            // RFC 6675 §4 rule 4: RescueRxt = RecoveryPoint; HighRxt unchanged.
            NextSegRule::Rescue => self.rec.rescue_rxt = Some(self.rec.recover),
        }
    }
}
