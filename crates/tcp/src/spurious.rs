//! Detection of spurious retransmission timeouts and the undo response.
//!
//! * F-RTO (RFC 5682 §2, basic): after the RTO retransmission, the first ACK that advances
//!   SND.UNA (below `recover`) lets the sender transmit two *new* segments instead of more
//!   retransmissions; if the next ACK advances SND.UNA again, data never retransmitted was
//!   delivered and the timeout was spurious. A duplicate ACK at either step reverts to the
//!   conventional go-back-N recovery. The SACK-enhanced variant (RFC 5682 §3, following the
//!   rule of RFC 4138 App. B) accepts SACK information in step 2 and declares the timeout
//!   spurious in step 3 only if the ACK (cumulative or SACK) covers a segment below `recover`
//!   that was never retransmitted.
//! * Eifel detection (RFC 3522 §3.2): with timestamps, the first ACK acknowledging the
//!   retransmitted segment echoes a TSval older than that of the retransmission if the
//!   original transmission, not the retransmission, was acknowledged.
//!
//! Response (RFC 4015 §4, reduced to what a window-owning controller allows): restore the
//! controller's state saved at the timeout (`snapshot`/`restore`), forget the go-back-N marks of
//! segments not yet retransmitted so that transmission resumes with new data, clear the RTO
//! backoff and re-seed the estimator from the revealing sample (RFC 4015 §4 RTO adaptation).

use celltcp_engine::SimTime;

use crate::cc::{CcSnapshot, CongestionControl};
use crate::config::TcpConfig;
use crate::recovery::RecoveryPhase;
use crate::send_buffer::SendBuffer;
use crate::send_window::SendWindow;
use crate::seq::SeqNum;

/// Progress of F-RTO after a first timeout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FrtoStep {
    #[default]
    Inactive,
    /// RFC 5682 §2.1 step 2: the RTO retransmission was sent; waiting for the first ACK.
    AwaitFirstAck,
    /// Step 3: up to two new segments were (or may be) sent; waiting for the second ACK.
    AwaitSecondAck,
}

/// Which detector found a timeout spurious.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpuriousDetector {
    Frto,
    Eifel,
}

/// The state of both detectors and of the undo; the per-ACK decision is `Spurious::on_ack`,
/// the sender's response to a spurious timeout (window, scoreboard, estimator) the endpoint's.
#[derive(Clone, Debug, Default)]
pub struct Spurious {
    frto: FrtoStep,
    /// RFC 5682 "recover": SND.NXT when the timeout occurred.
    frto_recover: u64,
    /// New segments F-RTO may still send regardless of cwnd (step 2b: "up to two").
    frto_new_segments: u32,
    /// Eifel: waiting for the first ACK of the retransmission.
    eifel_armed: bool,
    /// RFC 3522 RetransmitTS: TSval of the first RTO retransmission.
    retransmit_ts: Option<u32>,
    /// Controller state saved at the first timeout of the series.
    snapshot: Option<CcSnapshot>,
    /// SND.UNA at the last timeout: a further timeout at the same SND.UNA is Linux's
    /// "recurring timeout" (`icsk_retransmits` non-zero).
    last_rto_una: u64,
    /// The undos performed and by which detector (most recent last), for tests and reports.
    undos: Vec<(SimTime, SpuriousDetector)>,
}

impl Spurious {
    /// Where F-RTO is.
    #[inline]
    pub fn frto_step(&self) -> FrtoStep {
        self.frto
    }

    /// RFC 5682 "recover": SND.NXT when the timeout occurred.
    #[inline]
    pub fn frto_recover(&self) -> u64 {
        self.frto_recover
    }

    /// RFC 5682 §2.1 step 2b: one of the (up to two) new segments F-RTO sends regardless of
    /// cwnd; false once both have gone.
    pub fn take_frto_new_segment(&mut self) -> bool {
        if self.frto_new_segments == 0 {
            return false;
        }
        self.frto_new_segments -= 1;
        true
    }

    /// RFC 3522 §3.2 (2): a retransmission in RTO recovery with TSval `ts_val`; the first one
    /// after Eifel was armed sets RetransmitTS.
    pub fn on_rto_retransmission(&mut self, ts_val: u32) {
        if self.eifel_armed && self.retransmit_ts.is_none() {
            self.retransmit_ts = Some(ts_val);
        }
    }

    /// The undos performed and by which detector (most recent last).
    pub fn undos(&self) -> &[(SimTime, SpuriousDetector)] {
        &self.undos
    }
}

/// What the ACK being processed revealed to the detectors.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SpuriousEvidence {
    pub advanced: bool,
    pub is_dup: bool,
    /// The ACK (cumulative or SACK) covers a segment below F-RTO's `recover` that was sent only
    /// once.
    pub acked_original_below_recover: bool,
    /// The ACK newly SACKed data below `recover`.
    pub sacked_below_recover: bool,
    /// TSecr of the ACK, when timestamps are in use.
    pub tsecr: Option<u32>,
}

/// What the ACK's sender found when the detectors ran: the phase it was in, whether SACK is
/// in use, the sequence variables and the end of the data written.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SenderAtAck<'a> {
    pub phase: RecoveryPhase,
    pub sack: bool,
    pub snd: &'a SendWindow,
    /// One past the last byte (or the FIN) the application has written.
    pub stream_end: u64,
}

/// A timeout found spurious: the controller state saved when it occurred, to restore.
#[derive(Debug)]
pub(crate) struct UndoTimeout {
    pub snapshot: Option<CcSnapshot>,
}

impl Spurious {
    /// Arms the detectors at an expiry of the retransmission timer, before the controller's
    /// `on_rto`; `first_in_series` for the first expiry of a backoff series, `phase` the
    /// recovery phase the timeout hit, `timestamps` whether RFC 7323 timestamps are in use.
    pub(crate) fn on_rto(
        &mut self,
        first_in_series: bool,
        snd: &SendWindow,
        phase: RecoveryPhase,
        cfg: &TcpConfig,
        timestamps: bool,
        cc: &dyn CongestionControl,
    ) {
        let recurring = std::mem::replace(&mut self.last_rto_una, snd.una()) == snd.una();
        if !first_in_series {
            // RFC 5682 §2.1 step 1: a further timeout during F-RTO means conventional recovery.
            // Linux instead arms F-RTO again at a recurring timeout of the same SND.UNA
            // (`tcp_enter_loss`: `tp->frto = sysctl_tcp_frto && (new_recovery ||
            // icsk->icsk_retransmits)`), with its recovery point (`high_seq`) moved to the
            // current SND.NXT and the undo state of the first timeout kept: a path silent for
            // longer than RTO + 2·RTO still gets its timeout undone when the delayed originals
            // are acknowledged.
            self.frto = if cfg.frto && cfg.frto_after_repeated_rto && recurring {
                self.frto_recover = snd.nxt();
                self.frto_new_segments = 0;
                FrtoStep::AwaitFirstAck
            } else {
                FrtoStep::Inactive
            };
            // Eifel stays armed: RFC 3522 §3.2 keys the decision to RetransmitTS, the TSval of
            // the retransmission that initiated the recovery, and to the first acceptable ACK
            // after it, however often the timer expired in between. An ACK of the original
            // transmission after a backed-off series (a delay spike longer than RTO + 2·RTO)
            // still echoes a TSval older than RetransmitTS.
            return;
        }
        self.snapshot = Some(cc.snapshot());
        self.frto_recover = snd.nxt();
        self.frto_new_segments = 0;
        // RFC 5682 §2.1 step 1: not when the timeout hits an ongoing fast recovery.
        self.frto = if cfg.frto && phase != RecoveryPhase::FastRecovery {
            FrtoStep::AwaitFirstAck
        } else {
            FrtoStep::Inactive
        };
        // RFC 3522 §3.2 step (1) keys the test to the first retransmission of the loss
        // recovery. A timeout that hits a fast recovery did not begin it: the fast
        // retransmission did, and data of that recovery — lost at a queue that overflowed — is
        // what was retransmitted first. Linux tests the same (`tcp_packet_delayed` compares
        // TSecr with `retrans_stamp`, the time of the episode's first retransmission, which a
        // timeout in Recovery keeps). Testing the timeout's own retransmission instead takes
        // an ACK of a segment that was only queued behind the repairs for proof that the whole
        // recovery was spurious, and restores the window the loss had just reduced.
        self.eifel_armed = cfg.eifel && timestamps && phase != RecoveryPhase::FastRecovery;
        self.retransmit_ts = None;
    }

    /// Whether F-RTO currently forbids further retransmissions.
    pub(crate) fn frto_holds_retransmissions(&self, buf: &SendBuffer) -> bool {
        match self.frto {
            FrtoStep::Inactive => false,
            // Only the first retransmission is allowed before the first ACK.
            FrtoStep::AwaitFirstAck => buf.segs.front().is_some_and(|s| s.retx_in_flight),
            FrtoStep::AwaitSecondAck => true,
        }
    }

    /// Runs both detectors on an ACK at `now`; if the timeout was spurious, records the undo
    /// and returns what the sender's response restores.
    pub(crate) fn on_ack(
        &mut self,
        now: SimTime,
        ev: &SpuriousEvidence,
        at: SenderAtAck<'_>,
    ) -> Option<UndoTimeout> {
        if at.phase != RecoveryPhase::Loss {
            self.frto = FrtoStep::Inactive;
            self.eifel_armed = false;
            return None;
        }
        // Eifel (RFC 3522 §3.2): decided by the first ACK that acknowledges the retransmission.
        if self.eifel_armed && ev.advanced {
            self.eifel_armed = false;
            if let (Some(tsecr), Some(rts)) = (ev.tsecr, self.retransmit_ts) {
                if SeqNum(tsecr).lt(SeqNum(rts)) {
                    return Some(self.undo(now, SpuriousDetector::Eifel));
                }
            }
        }
        match self.frto {
            FrtoStep::Inactive => None,
            FrtoStep::AwaitFirstAck => {
                let progress = ev.advanced || (at.sack && ev.sacked_below_recover);
                let covers_all = at.snd.una() >= self.frto_recover;
                let new_data_possible = at.snd.nxt() < at.stream_end && at.snd.room() > 0;
                // A duplicate ACK without SACK progress is `!progress` too.
                if !progress || covers_all || !new_data_possible {
                    // Step 2a: conventional recovery.
                    self.frto = FrtoStep::Inactive;
                } else {
                    // Step 2b: send up to two new segments, then step 3.
                    self.frto = FrtoStep::AwaitSecondAck;
                    self.frto_new_segments = 2;
                }
                None
            }
            FrtoStep::AwaitSecondAck => {
                let spurious = if at.sack {
                    ev.acked_original_below_recover
                } else {
                    ev.advanced && !ev.is_dup
                };
                self.frto = FrtoStep::Inactive;
                self.frto_new_segments = 0;
                // Step 3a otherwise: conventional recovery continues with the retransmissions.
                spurious.then(|| self.undo(now, SpuriousDetector::Frto))
            }
        }
    }

    /// The detectors' part of the response: both stand down, the undo is recorded, and the
    /// controller state saved at the timeout is handed back.
    fn undo(&mut self, now: SimTime, by: SpuriousDetector) -> UndoTimeout {
        self.frto = FrtoStep::Inactive;
        self.eifel_armed = false;
        self.undos.push((now, by));
        UndoTimeout {
            snapshot: self.snapshot.take(),
        }
    }
}
