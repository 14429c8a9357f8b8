//! The send side of an arriving segment: its acknowledgment, in the order of RFC 9293
//! §3.10.7.4 ("fifth, check the ACK field": acceptability, SND.UNA, the window update), with
//! SACK (RFC 2018, RFC 6675 §5), the RTT sample (RFC 6298 §3, RFC 7323 §4.1), spurious-timeout
//! detection (RFC 5682, RFC 3522), loss detection and recovery (RFC 6675 §5, RFC 8985 §6.2),
//! the controller's callbacks, the ECN echo (RFC 3168 §6.1.2), the retransmission timer
//! (RFC 6298 §5.2–5.3) and the tail loss probe (RFC 8985 §7.4).

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::packet::{TcpFlags, TcpHeader};
use celltcp_net::trace::{TraceVar, Traces};

use super::{TcpEndpoint, TcpState};
use crate::cc::{AckEvent, CongestionEvent, CongestionKind};
use crate::recovery::{AckInfo, RecoveryEvent, RecoveryPhase};
use crate::rtt::ts_rtt;
use crate::seq::SeqNum;
use crate::spurious::{SenderAtAck, SpuriousEvidence, UndoTimeout};
use crate::tlp::EpisodeEnd;

/// The sender's state as the ACK found it.
#[derive(Clone, Copy, Debug)]
struct BeforeAck {
    /// SND.UNA before the ACK.
    una: u64,
    /// The RFC 6675 pipe before the ACK.
    in_flight: u64,
    /// FlightSize of RFC 5681 eq. (4) before the ACK.
    flight_size: u64,
    /// Data was outstanding.
    outstanding: bool,
    /// Segments marked lost so far (the scoreboard's count; Linux's `tp->lost`).
    lost_marks: u64,
}

/// What one acceptable ACK acknowledged, gathered by the first steps of
/// [`TcpEndpoint::process_ack`] for the later ones.
#[derive(Clone, Copy, Debug)]
struct AckedData {
    /// SND.UNA advanced.
    advanced: bool,
    /// Bytes cumulatively acknowledged (SEG.ACK − the prior SND.UNA).
    cum_acked: u64,
    /// Bytes newly SACKed.
    newly_sacked: u64,
    /// Bytes this ACK delivered for the first time: RFC 6937 §3's DeliveredData, the change
    /// in SND.UNA plus the change in SACKed bytes, which falls by what the cumulative ACK
    /// covered that was SACKed before (Linux's `tp->delivered`, counted once per segment).
    delivered: u64,
    /// Send-time RTT of the newest segment sent once that the ACK covers (Karn's rule).
    karn_sample: Option<SimDuration>,
    /// The sample fed to the estimator: timestamps if in use, else `karn_sample`.
    rtt_sample: Option<SimDuration>,
    /// A duplicate ACK by RFC 5681 §2 (a)–(e).
    dup_5681: bool,
    /// A duplicate ACK by the definition in force (RFC 6675 §2 with SACK, else RFC 5681).
    is_dup: bool,
}

impl TcpEndpoint {
    /// Send side of a segment, step by step: acceptability, window update, SACK, cumulative
    /// ACK, RTT, duplicate-ACK classification, spurious-timeout detection, loss detection and
    /// recovery, the controller, ECN echo, the RTO timer, the TLP episode and the FIN.
    pub(super) fn process_ack(
        &mut self,
        now: SimTime,
        hdr: &TcpHeader,
        seq: Option<u64>,
        payload: u32,
        traces: &mut Traces,
    ) {
        let Some(ack) = self.acceptable_ack(hdr) else {
            return;
        };
        self.stats.acks_received += 1;
        let trace = self.traces_send_side(traces);
        if trace {
            traces.record(now, self.flow, TraceVar::AckReceived, ack as f64);
        }
        let before = BeforeAck {
            una: self.snd.una(),
            in_flight: self.buf.pipe(),
            flight_size: self.snd.flight_size(),
            outstanding: self.snd.has_outstanding(),
            lost_marks: self.buf.lost_marks(),
        };
        let window_changed = self.update_send_window(hdr, seq, ack);
        let mut ev = SpuriousEvidence {
            tsecr: hdr.options.timestamps.map(|t| t.1),
            ..Default::default()
        };
        let newly_sacked = self.process_sack_blocks(now, hdr, ack, before.una, &mut ev);
        let (karn_sample, sacked_before) =
            self.process_cumulative_ack(now, ack, before.una, &mut ev);
        if hdr.eln {
            self.stats.eln_acks_received += 1;
            if self.cfg.eln {
                self.rec.on_eln_ack(&self.snd);
            }
        }
        let advanced = ack > before.una;
        let rtt_sample = self.take_rtt_sample(now, hdr, advanced, karn_sample, traces);
        // Duplicate ACK definitions: RFC 5681 §2 (a)–(e), RFC 6675 §2 with SACK.
        let dup_5681 = !advanced
            && before.outstanding
            && payload == 0
            && !hdr.flags.contains(TcpFlags::FIN)
            && !window_changed;
        let acked = AckedData {
            advanced,
            cum_acked: ack - before.una,
            newly_sacked,
            delivered: ack - before.una - sacked_before + newly_sacked,
            karn_sample,
            rtt_sample,
            dup_5681,
            is_dup: if self.opts.sack {
                newly_sacked > 0
            } else {
                dup_5681
            },
        };
        ev.advanced = acked.advanced;
        ev.is_dup = acked.is_dup;
        self.detect_spurious_timeout(now, &ev, traces);
        // Read before recovery changes phase: the controller hears of the phase the ACK found.
        let in_recovery = self.rec.phase() == RecoveryPhase::FastRecovery;
        let event = self.detect_loss_and_recover(now, &acked, traces);
        let bytes_in_flight = self.notify_controller(now, &acked, &before, in_recovery, event);
        self.on_ecn_echo(now, hdr, &before, event);
        self.restart_rto_timer(now, acked.advanced);
        let dup_without_sack = acked.dup_5681 && hdr.options.sack_len == 0;
        self.tail_loss_probe_on_ack(now, ack, advanced, dup_without_sack, before.flight_size);
        if advanced && self.fin_acked() {
            self.on_fin_acked(now);
        }
        self.trace_cc(now, traces);
        if trace && traces.enabled(TraceVar::BytesInFlight) {
            let v = bytes_in_flight as f64;
            traces.record(now, self.flow, TraceVar::BytesInFlight, v);
        }
    }

    /// RFC 9293 §3.10.7.4: SEG.ACK as an offset if SND.UNA ≤ SEG.ACK ≤ SND.NXT. An ACK for
    /// data not yet sent is answered with an ACK; an old (reordered) ACK below SND.UNA is
    /// ignored.
    fn acceptable_ack(&mut self, hdr: &TcpHeader) -> Option<u64> {
        let ack = SeqNum(hdr.ack).to_offset(self.iss, self.snd.una())?;
        if ack > self.snd.nxt() {
            self.rcv.ack_immediately();
            return None;
        }
        (ack >= self.snd.una()).then_some(ack)
    }

    /// The window update of RFC 9293 §3.10.7.4 (SND.WL1/SND.WL2 rule); an open window stops
    /// the persist timer. Returns whether the advertised window differs from SND.WND (such an
    /// ACK is no duplicate, RFC 5681 §2 (e)).
    fn update_send_window(&mut self, hdr: &TcpHeader, seq: Option<u64>, ack: u64) -> bool {
        let window = (hdr.window as u64) << self.opts.snd_wscale;
        let window_changed = window != self.snd.wnd();
        self.snd.update_window(seq, ack, window);
        if self.snd.wnd() > 0 {
            self.persist.stop();
        }
        window_changed
    }

    /// SACK (RFC 2018, RFC 6675 §5 "update the scoreboard"): marks the blocks' segments and
    /// returns the bytes newly SACKed, which also feed the delivery-rate estimator and RACK.
    fn process_sack_blocks(
        &mut self,
        now: SimTime,
        hdr: &TcpHeader,
        ack: u64,
        prior_una: u64,
        ev: &mut SpuriousEvidence,
    ) -> u64 {
        if !self.opts.sack || hdr.options.sack_len == 0 {
            return 0;
        }
        let mut blocks = [(0u64, 0u64); 4];
        let mut n = 0;
        for b in hdr.options.sack() {
            if let (Some(l), Some(r)) = (
                SeqNum(b.left).to_offset(self.iss, self.snd.una()),
                SeqNum(b.right).to_offset(self.iss, self.snd.una()),
            ) {
                blocks[n] = (l, r);
                n += 1;
            }
        }
        let recover = self.spur.frto_recover();
        let rate = &mut self.rate;
        let rack = &mut self.rack;
        let min_rtt = self.rtt.min_rtt();
        let high = ack.max(prior_una);
        self.buf
            .apply_sack(&blocks[..n], high, self.snd.nxt(), |s| {
                rate.on_delivered(now, &s.tx, s.len());
                rack.on_delivered(s.sent_time, s.end, s.tx_count > 1, now, min_rtt);
                if s.end <= recover {
                    ev.sacked_below_recover = true;
                    if s.tx_count == 1 {
                        ev.acked_original_below_recover = true;
                    }
                }
            })
    }

    /// The cumulative ACK: SND.UNA ← SEG.ACK and the acknowledged segments leave the
    /// scoreboard. Returns Karn's sample (RFC 6298 §3): the newest segment sent once, not
    /// SACKed before, and none if the ACK also covers a retransmission; and the bytes it
    /// covered that had been SACKed before (delivered already, by that SACK).
    fn process_cumulative_ack(
        &mut self,
        now: SimTime,
        ack: u64,
        prior_una: u64,
        ev: &mut SpuriousEvidence,
    ) -> (Option<SimDuration>, u64) {
        if ack <= prior_una {
            return (None, 0);
        }
        let mut karn_sample = None;
        let mut sacked_before = 0;
        let mut acked_retransmission = false;
        let recover = self.spur.frto_recover();
        let rate = &mut self.rate;
        let rack = &mut self.rack;
        let min_rtt = self.rtt.min_rtt();
        self.buf.ack_through(ack, |s| {
            if s.sacked {
                sacked_before += s.len();
            } else {
                rate.on_delivered(now, &s.tx, s.len());
                rack.on_delivered(s.sent_time, s.end, s.tx_count > 1, now, min_rtt);
            }
            if s.tx_count == 1 {
                // Karn's rule (RFC 6298 §3): only segments sent once give samples, and not
                // one that was SACKed before (its ACK is this one only by delay).
                if !s.sacked {
                    karn_sample = Some(now.saturating_since(s.sent_time));
                }
                if s.end <= recover {
                    ev.acked_original_below_recover = true;
                }
            } else {
                acked_retransmission = true;
            }
        });
        self.snd.on_cumulative_ack(ack);
        self.buf.on_cumulative_ack(ack);
        self.stats.bytes_acked = self.bytes_acked();
        // An ACK that also covers a retransmission was held back until the repair arrived:
        // timing a newer segment by it would count the repair as path delay (the sample Linux
        // also refuses, FLAG_RETRANS_DATA_ACKED), and after a long outage drive the RTO
        // towards its ceiling.
        let karn_sample = if acked_retransmission {
            None
        } else {
            karn_sample
        };
        (karn_sample, sacked_before)
    }

    /// RTT: timestamps on every ACK that advances SND.UNA (RFC 7323 §4.1), else Karn's sample;
    /// fed to the estimator and traced.
    fn take_rtt_sample(
        &mut self,
        now: SimTime,
        hdr: &TcpHeader,
        advanced: bool,
        karn_sample: Option<SimDuration>,
        traces: &mut Traces,
    ) -> Option<SimDuration> {
        if !advanced {
            return None;
        }
        let sample = match (self.opts.timestamps, hdr.options.timestamps) {
            (true, Some((_, tsecr))) => Some(ts_rtt(now, tsecr, self.cfg.ts_tick)),
            _ => karn_sample,
        };
        if let Some(r) = sample {
            self.rtt.on_sample(r);
            self.trace_rtt(now, r, traces);
        }
        sample
    }

    /// F-RTO and Eifel (RFC 5682, RFC 3522) on the ACK's evidence, and the undo if they find
    /// the timeout spurious.
    fn detect_spurious_timeout(
        &mut self,
        now: SimTime,
        ev: &SpuriousEvidence,
        traces: &mut Traces,
    ) {
        let at = SenderAtAck {
            phase: self.rec.phase(),
            sack: self.opts.sack,
            snd: &self.snd,
            stream_end: self.buf.stream_end(),
        };
        if let Some(undo) = self.spur.on_ack(now, ev, at) {
            self.undo_spurious_timeout(now, undo, traces);
        }
    }

    /// The response to a spurious timeout (RFC 4015 §4): restore the window, resume with new
    /// data, forget the backoff and re-seed the estimator from the revealing sample.
    fn undo_spurious_timeout(&mut self, now: SimTime, undo: UndoTimeout, traces: &mut Traces) {
        if let Some(snap) = undo.snapshot {
            self.cc.restore(&snap);
        }
        self.buf.unmark_unretransmitted();
        // The window that timed out was not lost: no congestion response is owed for it.
        self.rec.undo_timeout(self.snd.una());
        self.ecn.hold_until(self.snd.una());
        self.rtt.end_episode();
        match self.rtt.latest() {
            Some(r) => self.rtt.adapt_after_spurious_timeout(r),
            None => self.rtt.clear_backoff(),
        }
        self.stats.spurious_undos += 1;
        traces.record(
            now,
            self.flow,
            TraceVar::SpuriousUndo,
            self.cc.cwnd() as f64,
        );
    }

    /// Loss detection and the recovery state machine for one ACK: RACK after a tail loss
    /// probe (RFC 8985 §7.4.1), DupAcks and the recovery phase (RFC 6675 §5, RFC 6582), lost
    /// retransmissions (RFC 8985 §6.2), and the end of an RTO recovery episode.
    fn detect_loss_and_recover(
        &mut self,
        now: SimTime,
        acked: &AckedData,
        traces: &mut Traces,
    ) -> RecoveryEvent {
        if self.tlp.in_episode() && acked.newly_sacked > 0 {
            // RFC 8985 §7.4.1: the probe's ACK lets RACK mark the tail the probe overtook.
            let (min_rtt, srtt) = (self.rtt.min_rtt(), self.rtt.srtt());
            self.rack.detect_lost(&mut self.buf, now, min_rtt, srtt);
        }
        let info = AckInfo {
            advanced: acked.advanced,
            cum_acked: acked.cum_acked,
            newly_sacked: acked.newly_sacked,
            is_dup: acked.is_dup,
        };
        let event = self.update_recovery(now, &info, traces);
        // RFC 8985 §6.2: a retransmission that later transmissions overtook is lost; send it
        // again now rather than after another RTO. Linux runs RACK on every ACK in both
        // recovery states (`tcp_identify_packet_loss` in `tcp_fastretrans_alert`), so a fast
        // retransmission dropped at a full queue is repaired within fast recovery as well as a
        // go-back-N one in RTO recovery.
        if self.cfg.detect_lost_retransmissions
            && self.opts.sack
            && self.rec.phase() != RecoveryPhase::Open
        {
            let (min_rtt, srtt) = (self.rtt.min_rtt(), self.rtt.srtt());
            if let Some(start) =
                self.rack
                    .detect_lost_retransmissions(&mut self.buf, now, min_rtt, srtt)
            {
                self.rec.on_lost_retransmission(start);
                self.stats.lost_retransmissions += 1;
            }
        }
        // An RTO recovery episode lasts until its recovery point is acknowledged: an expiry
        // before then finds SND.UNA at a segment the timer has already resent, so it is not a
        // first expiry (RFC 5681 §3.1: ssthresh is then held constant; RFC 5682 §2.1: F-RTO
        // is not entered again). Only leaving the episode starts a new series.
        if acked.advanced && self.rec.phase() != RecoveryPhase::Loss {
            self.rtt.end_episode();
        }
        event
    }

    /// DupAcks and the recovery phase for one ACK ([`crate::recovery::Recovery::on_ack`]), with
    /// the duplicate counted and traced.
    fn update_recovery(
        &mut self,
        now: SimTime,
        info: &AckInfo,
        traces: &mut Traces,
    ) -> RecoveryEvent {
        if info.is_dup {
            self.stats.dupacks_received += 1;
            if self.traces_send_side(traces) {
                traces.record(now, self.flow, TraceVar::DupAck, self.snd.una() as f64);
            }
        }
        let (rec, mut ctx) = self.recovery_and_ctx();
        let event = rec.on_ack(info, &mut ctx);
        match event {
            RecoveryEvent::Enter => self.on_fast_recovery_entered(false),
            RecoveryEvent::EnterEln => self.on_fast_recovery_entered(true),
            RecoveryEvent::Exit | RecoveryEvent::ExitEln | RecoveryEvent::None => {}
        }
        event
    }

    /// The controller hears of the ACK (`on_ack`, with the delivery-rate sample built here),
    /// then of the recovery event it caused; PRR (RFC 6937 §3) sets the window in fast
    /// recovery. Returns the pipe after the ACK.
    fn notify_controller(
        &mut self,
        now: SimTime,
        acked: &AckedData,
        before: &BeforeAck,
        in_recovery: bool,
        event: RecoveryEvent,
    ) -> u64 {
        let rate_sample = if acked.advanced || acked.newly_sacked > 0 {
            self.rate.take_sample(self.rtt.min_rtt())
        } else {
            None
        };
        let bytes_in_flight = self.buf.pipe();
        // `in_recovery` is set only in fast recovery: after a timeout the window grows by slow
        // start while the go-back-N retransmissions proceed (RFC 5681 §3.1).
        let ack_ev = AckEvent {
            now,
            acked_bytes: acked.cum_acked + acked.newly_sacked,
            duplicate: acked.dup_5681 && acked.newly_sacked == 0,
            snd_una_advanced: acked.advanced,
            rtt_sample: acked.rtt_sample,
            ca_rtt: if acked.advanced {
                acked.karn_sample
            } else {
                None
            },
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            prior_in_flight: before.in_flight,
            bytes_in_flight,
            in_recovery,
            in_rto_recovery: self.rec.phase() == RecoveryPhase::Loss,
            losses: self.buf.lost_marks() - before.lost_marks,
            pacing_delay: self.pacing_next.saturating_since(now),
            rate_sample,
            app_limited: rate_sample.map_or(self.rate.is_app_limited(), |r| r.is_app_limited),
        };
        if before.outstanding || acked.advanced {
            self.cc.on_ack(&ack_ev);
        }
        let prior_cwnd = self.cc.cwnd();
        match event {
            RecoveryEvent::Enter => {
                self.rec.prr_start(prior_cwnd);
                self.congestion_event(now, CongestionKind::FastRetransmit, before.flight_size);
            }
            RecoveryEvent::Exit => self.cc.on_recovery_exit(now),
            // ELN: a radio loss, not congestion: no reduction and so nothing to end.
            RecoveryEvent::EnterEln | RecoveryEvent::ExitEln | RecoveryEvent::None => {}
        }
        if self.prr_active() {
            let delivered = acked.delivered;
            let (ssthresh, pipe) = (self.cc.ssthresh(), self.buf.pipe());
            let smss = self.opts.mss as u64;
            self.rec
                .prr_on_ack(delivered, acked.advanced, ssthresh, pipe, smss);
        }
        bytes_in_flight
    }

    /// `on_congestion_event` of `kind` with the FlightSize the ACK found.
    fn congestion_event(&mut self, now: SimTime, kind: CongestionKind, flight_size: u64) {
        self.cc.on_congestion_event(&CongestionEvent {
            now,
            kind,
            bytes_in_flight: flight_size,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
        });
    }

    /// ECN-Echo (RFC 3168 §6.1.2): at most one reduction per window of data, none while
    /// already recovering from a loss in this window.
    fn on_ecn_echo(
        &mut self,
        now: SimTime,
        hdr: &TcpHeader,
        before: &BeforeAck,
        event: RecoveryEvent,
    ) {
        if self.opts.ecn
            && hdr.flags.contains(TcpFlags::ECE)
            && self.rec.phase() == RecoveryPhase::Open
            && self.ecn.may_reduce(self.snd.una())
            && event == RecoveryEvent::None
            && before.outstanding
        {
            self.congestion_event(now, CongestionKind::EcnEcho, before.flight_size);
            self.ecn.on_reduction(self.snd.nxt());
            self.stats.ecn_reductions += 1;
        }
    }

    /// RFC 6298 §5.2–5.3: stop the timer when all is acknowledged, restart it on new ACKs
    /// (in NewReno recovery, on the first partial ACK only: RFC 6582 §3.2 step 5).
    fn restart_rto_timer(&mut self, now: SimTime, advanced: bool) {
        if !self.snd.has_outstanding() {
            self.rtt.stop_timer();
        } else if advanced && self.rec.advance_restarts_rto_timer(self.opts.sack) {
            self.rtt.restart_timer(now);
        }
    }

    /// RFC 9293 §3.10.7.4: the ACK of our FIN moves FIN-WAIT-1 to FIN-WAIT-2, CLOSING to
    /// TIME-WAIT and LAST-ACK to CLOSED.
    fn on_fin_acked(&mut self, now: SimTime) {
        match self.state {
            TcpState::FinWait1 => self.state = TcpState::FinWait2,
            TcpState::Closing => self.enter_time_wait(now),
            TcpState::LastAck => self.enter_closed(now),
            _ => {}
        }
    }

    /// RFC 8985 §7.4.2 (the episode's end), §7.1 (recovery resets the TLP state) and §7.2 (an
    /// ACK that advances SND.UNA restarts the PTO).
    fn tail_loss_probe_on_ack(
        &mut self,
        now: SimTime,
        ack: u64,
        advanced: bool,
        dup_without_sack: bool,
        flight_size: u64,
    ) {
        if !self.cfg.tlp {
            return;
        }
        if self.tlp.on_ack(ack, dup_without_sack) == EpisodeEnd::RepairedLoss {
            // "Invoke congestion control to react to the loss event the probe has repaired":
            // one reduction, over at once (Linux: a CWR episode, `tcp_process_tlp_ack`).
            self.congestion_event(now, CongestionKind::FastRetransmit, flight_size);
            self.cc.on_recovery_exit(now);
        }
        if self.rec.phase() != RecoveryPhase::Open {
            self.tlp.reset();
        } else if advanced {
            self.schedule_loss_probe(now);
        }
    }
}
