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

use crate::scoreboard::NextSegRule;
use crate::send_buffer::SendBuffer;
use crate::send_window::SendWindow;

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
/// The methods name the events of the RFCs; the per-ACK state machine is `Recovery::on_ack`.
/// What they need of the rest of the sender comes in as arguments, mostly a `RecoveryCtx`.
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

/// What the recovery machinery reads, and changes, of the rest of the sender: the sequence
/// variables, the scoreboard, and the constants of the ACK being processed.
pub(crate) struct RecoveryCtx<'a> {
    /// SND.UNA, SND.NXT (RFC 9293 §3.3.1).
    pub snd: &'a SendWindow,
    /// The scoreboard (RFC 6675 §3): its lost marks are what the retransmissions follow.
    pub buf: &'a mut SendBuffer,
    /// SACK is in use on the connection (RFC 2018).
    pub sack: bool,
    /// SMSS, bytes.
    pub smss: u64,
    /// DupThresh in force (RFC 6675 §2).
    pub dupthresh: u32,
    /// The controller follows Reno (RFC 5681 §3.2 step 6), not NewReno, on a partial ACK.
    pub exits_on_partial_ack: bool,
    /// ELN is enabled (`TcpConfig::eln`).
    pub eln: bool,
}

impl Recovery {
    /// Updates DupAcks and the recovery phase for one ACK, after SACK processing and before
    /// the controller hears of it.
    pub(crate) fn on_ack(&mut self, info: &AckInfo, ctx: &mut RecoveryCtx<'_>) -> RecoveryEvent {
        self.newly_lost = false;
        if ctx.sack && info.newly_sacked > 0 {
            self.newly_lost = ctx.buf.update_lost(ctx.dupthresh, ctx.smss);
        }
        if info.advanced {
            // RFC 6675 §5 (1) / RFC 5681: a cumulative ACK resets DupAcks.
            self.dupacks = 0;
            self.high_rxt = self.high_rxt.max(ctx.snd.una());
        }
        if info.is_dup {
            self.dupacks += 1;
        }
        match self.phase {
            RecoveryPhase::FastRecovery => self.fast_recovery_on_ack(info, ctx),
            RecoveryPhase::Loss => {
                if ctx.snd.una() >= self.recover {
                    self.phase = RecoveryPhase::Open;
                }
                RecoveryEvent::None
            }
            RecoveryPhase::Open => self.maybe_enter_fast_recovery(info, ctx),
        }
    }

    /// An ACK in fast recovery: a full ACK ends it (RFC 6582 §3.2 step 3 / RFC 6675 §5), as
    /// Reno's partial ACK does; without SACK, NewReno's partial ACK retransmits and deflates
    /// (step 4) and a further duplicate inflates by one SMSS (step 3).
    fn fast_recovery_on_ack(&mut self, info: &AckInfo, ctx: &mut RecoveryCtx<'_>) -> RecoveryEvent {
        let una = ctx.snd.una();
        if una >= self.recover {
            self.leave_fast_recovery();
            return self.exit_event();
        }
        if !ctx.sack && info.advanced && ctx.exits_on_partial_ack {
            // RFC 5681 §3.2 step 6 (Reno): new data acknowledged ends recovery; a further
            // loss in the same window starts a new recovery with a new reduction.
            self.leave_fast_recovery();
            self.recover = una;
            return self.exit_event();
        }
        if !ctx.sack {
            if info.advanced {
                ctx.buf.mark_lost_at(una);
                self.on_partial_ack(una, info.cum_acked, ctx.smss);
            } else if info.is_dup {
                self.inflation += ctx.smss as i64;
            }
        }
        RecoveryEvent::None
    }

    /// An ACK outside recovery: DupThresh duplicates, or RFC 6675 §5 (3)'s IsLost(HighACK + 1),
    /// start fast recovery — only if the ACK covers the previous recovery point, so that one
    /// window's losses cause one reduction, also after an RTO (RFC 6582 §3.2 steps 1–2).
    fn maybe_enter_fast_recovery(
        &mut self,
        info: &AckInfo,
        ctx: &mut RecoveryCtx<'_>,
    ) -> RecoveryEvent {
        let lost_head = ctx.sack && info.is_dup && ctx.buf.first_is_lost();
        let trigger = self.dupacks >= ctx.dupthresh || lost_head;
        if !(trigger && ctx.snd.una() >= self.recover && ctx.snd.has_outstanding()) {
            return RecoveryEvent::None;
        }
        self.enter_fast_recovery(ctx);
        if self.eln_marks_head(ctx.eln, ctx.snd) {
            self.eln = true;
            return RecoveryEvent::EnterEln;
        }
        RecoveryEvent::Enter
    }

    /// RFC 6675 §5 (4) / RFC 6582 §3.2 step 2: RecoveryPoint = HighData, retransmit the first
    /// segment, inflate by DupThresh·SMSS without SACK.
    fn enter_fast_recovery(&mut self, ctx: &mut RecoveryCtx<'_>) {
        self.phase = RecoveryPhase::FastRecovery;
        self.eln = false;
        self.partial_acks = 0;
        self.recover = ctx.snd.nxt();
        ctx.buf.mark_lost_at(ctx.snd.una());
        self.high_rxt = ctx.snd.una();
        self.retransmit_now = true;
        // RFC 6675 §5 (4.3): no rescue before the cumulative ACK passes the first retransmission.
        self.rescue_rxt = ctx.buf.segs.front().map(|s| s.end);
        self.inflation = if ctx.sack {
            0
        } else {
            (ctx.dupthresh as i64) * ctx.smss as i64
        };
    }

    /// Whether PRR (RFC 6937) sets the sending window of this fast recovery, given that the
    /// option is on (`enabled`) and SACK is in use (the RFC's DeliveredData needs it; without
    /// SACK NewReno's inflation stays): the recovery is a congestion response (not ELN) and
    /// the controller leaves its window to the loss-recovery machinery during recovery
    /// (`cc_reduces_by_prr`; not BBR: Linux's `tcp_cong_control` skips `tcp_cwnd_reduction`
    /// for a `cong_control` module).
    pub(crate) fn prr_governs(&self, enabled: bool, sack: bool, cc_reduces_by_prr: bool) -> bool {
        enabled
            && sack
            && self.phase == RecoveryPhase::FastRecovery
            && !self.eln
            && cc_reduces_by_prr
    }

    /// RFC 6937 §3 at the start of a fast recovery, after the controller set ssthresh:
    /// prr_delivered = prr_out = 0, RecoverFS = the window before the reduction (Linux's
    /// `tcp_init_cwnd_reduction` takes `prior_cwnd`; the RFC's FlightSize is the same in an
    /// ACK-clocked steady state).
    pub(crate) fn prr_start(&mut self, prior_cwnd: u64) {
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.recover_fs = prior_cwnd.max(1);
        self.prr_cwnd = None;
    }

    /// RFC 6937 §3, per ACK in fast recovery (Linux's `tcp_cwnd_reduction`) that `delivered`
    /// bytes, with the controller's `ssthresh` and the `pipe` after the ACK: the window that
    /// lets `sndcnt` more bytes out beyond the pipe. While the pipe is above ssthresh the sender
    /// sends prr_delivered·ssthresh/RecoverFS in all (proportional part); below it, it grows
    /// the pipe back towards ssthresh by at most what was delivered (the slow-start reduction
    /// bound, with Linux's one extra segment only for an ACK that advanced SND.UNA and marked
    /// nothing lost). The first ACK always lets the fast retransmission out. An ACK that
    /// delivered nothing leaves the window as it was.
    pub(crate) fn prr_on_ack(
        &mut self,
        delivered: u64,
        advanced: bool,
        ssthresh: u64,
        pipe: u64,
        smss: u64,
    ) {
        if delivered == 0 {
            return;
        }
        self.prr_delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            // sndcnt = CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out.
            let due =
                (self.prr_delivered as u128 * ssthresh as u128).div_ceil(self.recover_fs as u128);
            (due.min(u64::MAX as u128) as u64).saturating_sub(self.prr_out)
        } else {
            let extra = if advanced && !self.newly_lost {
                smss
            } else {
                0
            };
            let limit = self
                .prr_delivered
                .saturating_sub(self.prr_out)
                .max(delivered)
                + extra;
            (ssthresh - pipe).min(limit)
        };
        // Linux: `sndcnt = max(sndcnt, prr_out ? 0 : 1)`, the fast retransmission itself.
        let sndcnt = if self.prr_out == 0 {
            sndcnt.max(smss)
        } else {
            sndcnt
        };
        self.prr_cwnd = Some(pipe + sndcnt);
    }

    /// ELN is `enabled` and the last ELN-marked ACK asked for the segment at SND.UNA.
    pub(crate) fn eln_marks_head(&self, enabled: bool, snd: &SendWindow) -> bool {
        enabled && self.eln_hole == Some(snd.una()) && snd.una() < snd.nxt()
    }

    /// An ACK carrying the ELN mark, processed up to the cumulative ACK: remembers the hole it
    /// reports (SND.UNA, the segment the ACK asks for).
    pub(crate) fn on_eln_ack(&mut self, snd: &SendWindow) {
        if snd.una() < snd.nxt() {
            self.eln_hole = Some(snd.una());
        }
    }

    /// A retransmission timeout for a hole ELN marked: the segment at SND.UNA is retransmitted
    /// at once without a congestion response, as a fast retransmission would. Returns whether
    /// that starts a fast recovery (one that ends without a controller call).
    pub(crate) fn on_eln_timeout(&mut self, ctx: &mut RecoveryCtx<'_>) -> bool {
        if self.phase == RecoveryPhase::Open {
            self.enter_fast_recovery(ctx);
            self.eln = true;
            true
        } else {
            ctx.buf.mark_lost_at(ctx.snd.una());
            self.high_rxt = ctx.snd.una();
            self.retransmit_now = true;
            false
        }
    }

    /// Whether an ACK that advanced SND.UNA restarts the retransmission timer (RFC 6298 §5.3).
    /// RFC 6582 §3.2 step 5: in NewReno fast recovery (no `sack`) only the *first* partial ACK
    /// does (the "Impatient" variant of its §4). NewReno repairs one hole per round trip, so a
    /// window with dozens of losses (a slow-start overshoot into a drop-tail queue) would
    /// otherwise spend dozens of round trips in recovery; the timer ends that after one RTO
    /// and the go-back-N retransmission repairs the rest. SACK recovery (RFC 6675) keeps the
    /// RFC 6298 rule.
    pub(crate) fn advance_restarts_rto_timer(&self, sack: bool) -> bool {
        sack || self.phase != RecoveryPhase::FastRecovery || self.partial_acks <= 1
    }

    /// RFC 3042: on the first two duplicate ACKs new segments may be sent as long as the
    /// outstanding data stays within cwnd + 2·SMSS.
    pub(crate) fn limited_transmit_allowance(&self, dupthresh: u32, smss: u64) -> u64 {
        if self.phase == RecoveryPhase::Open && self.dupacks > 0 && self.dupacks < dupthresh {
            self.dupacks.min(2) as u64 * smss
        } else {
            0
        }
    }

    /// NextSeg rule 1 (and the retransmissions of NewReno and of RTO recovery): the next
    /// segment deemed lost that has no retransmission in flight.
    pub(crate) fn next_lost_retransmission(
        &self,
        buf: &SendBuffer,
    ) -> Option<(usize, NextSegRule)> {
        match self.phase {
            RecoveryPhase::Open => None,
            _ => buf.next_lost(self.high_rxt).map(|i| (i, NextSegRule::Lost)),
        }
    }

    /// NextSeg rules 3 and 4 (RFC 6675 §4), consulted when neither a lost segment nor new
    /// data can be sent during SACK-based fast recovery (`sack`).
    pub(crate) fn sack_fallback_retransmission(
        &self,
        sack: bool,
        snd: &SendWindow,
        buf: &SendBuffer,
    ) -> Option<(usize, NextSegRule)> {
        if !sack || self.phase != RecoveryPhase::FastRecovery {
            return None;
        }
        if let Some(i) = buf.next_unsacked(self.high_rxt) {
            return Some((i, NextSegRule::Unsacked));
        }
        // Rule 4: once per cumulative-ACK advance beyond RescueRxt.
        if self.rescue_rxt.is_none_or(|r| snd.una() >= r) {
            return buf.rescue_candidate().map(|i| (i, NextSegRule::Rescue));
        }
        None
    }

    /// Book-keeping after NextSeg's choice, ending at `end`, was sent.
    pub(crate) fn on_retransmitted(&mut self, end: u64, rule: NextSegRule) {
        match rule {
            NextSegRule::Lost | NextSegRule::Unsacked => self.high_rxt = self.high_rxt.max(end),
            // RFC 6675 §4 rule 4: RescueRxt = RecoveryPoint; HighRxt unchanged.
            NextSegRule::Rescue => self.rescue_rxt = Some(self.recover),
        }
    }
}
