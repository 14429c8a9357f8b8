//! Segment arrival (RFC 9293 §3.10.7): the handshake, ACK processing for the send side, data
//! and FIN processing for the receive side, and the state transitions they cause.

use celltcp_engine::SimTime;
use celltcp_net::packet::{Ecn, Packet, TcpFlags, TcpHeader};
use celltcp_net::trace::{TraceVar, Traces};

use super::{TcpEndpoint, TcpState, DEFAULT_PEER_MSS, RTO_AFTER_LOST_SYN};
use crate::cc::{AckEvent, CongestionEvent, CongestionKind};
use crate::receiver::Receiver;
use crate::recovery::{AckInfo, RecoveryEvent, RecoveryPhase};
use crate::rtt::ts_rtt;
use crate::seq::SeqNum;
use crate::spurious::SpuriousEvidence;
use crate::tlp::EpisodeEnd;

impl TcpEndpoint {
    /// Processes one arriving segment. Segments not addressed to this connection are ignored.
    pub fn on_segment(&mut self, now: SimTime, pkt: &Packet, traces: &mut Traces) {
        let Some(hdr) = pkt.tcp() else { return };
        if hdr.dst_port != self.local.1 {
            return;
        }
        let from = (pkt.ip.src, hdr.src_port);
        if self.state != TcpState::Listen && from != self.remote {
            return;
        }
        if hdr.flags.contains(TcpFlags::RST) {
            // RFC 9293 §3.10.7.4: a reset closes the connection (no data is owed).
            if self.state != TcpState::Listen {
                self.enter_closed(now);
            }
            return;
        }
        match self.state {
            TcpState::Closed => self.reset_in_closed(pkt, hdr),
            TcpState::Listen => self.on_listen(now, pkt, hdr),
            TcpState::SynSent => self.on_syn_sent(now, hdr, traces),
            _ => self.on_synchronized(now, pkt, hdr, traces),
        }
    }

    /// LISTEN: the first SYN creates the connection (RFC 9293 §3.10.7.2).
    fn on_listen(&mut self, now: SimTime, pkt: &Packet, hdr: &TcpHeader) {
        if !hdr.flags.contains(TcpFlags::SYN) || hdr.flags.contains(TcpFlags::ACK) {
            return;
        }
        self.remote = (pkt.ip.src, hdr.src_port);
        self.irs = hdr.seq;
        self.negotiate(hdr);
        // RFC 3168 §6.1.1: an ECN-setup SYN carries ECE and CWR.
        self.ecn_ok =
            self.cfg.ecn && hdr.flags.contains(TcpFlags::ECE) && hdr.flags.contains(TcpFlags::CWR);
        if let Some((tsval, _)) = hdr.options.timestamps {
            self.rcv.ts_recent = tsval;
        }
        // The SYN's window is never scaled (RFC 7323 §2.2).
        self.snd_wnd = hdr.window as u64;
        self.max_snd_wnd = self.snd_wnd;
        self.state = TcpState::SynReceived;
        self.syn_pending = true;
        let _ = now;
    }

    /// SYN-SENT: a SYN-ACK acknowledging our SYN completes the handshake.
    fn on_syn_sent(&mut self, now: SimTime, hdr: &TcpHeader, traces: &mut Traces) {
        if !(hdr.flags.contains(TcpFlags::SYN) && hdr.flags.contains(TcpFlags::ACK)) {
            return;
        }
        if SeqNum(hdr.ack) != SeqNum::from_offset(self.iss, 1) {
            return;
        }
        self.irs = hdr.seq;
        self.negotiate(hdr);
        // RFC 3168 §6.1.1: an ECN-setup SYN-ACK has ECE set and CWR clear.
        self.ecn_ok =
            self.cfg.ecn && hdr.flags.contains(TcpFlags::ECE) && !hdr.flags.contains(TcpFlags::CWR);
        if let Some((tsval, _)) = hdr.options.timestamps {
            self.rcv.ts_recent = tsval;
        }
        self.snd_una = 1;
        self.snd_wnd = hdr.window as u64;
        self.max_snd_wnd = self.snd_wnd;
        self.snd_wl1 = 0;
        self.snd_wl2 = 1;
        self.handshake_rtt(now, traces);
        self.rcv.ack_now = true;
        self.establish(now, traces);
    }

    /// Options of the peer's SYN or SYN-ACK (RFC 9293 §3.7.1, RFC 2018 §2, RFC 7323 §2–3).
    fn negotiate(&mut self, hdr: &TcpHeader) {
        let o = &hdr.options;
        let peer_mss = o.mss.map_or(DEFAULT_PEER_MSS, |m| m as u32).max(64);
        self.smss = self.cfg.mss.min(peer_mss);
        self.sack_ok = self.cfg.sack && o.sack_permitted;
        self.ts_ok = self.cfg.timestamps && o.timestamps.is_some();
        let ws = self.cfg.window_scale && o.window_scale.is_some();
        self.ws_ok = ws;
        self.snd_wscale = if ws {
            o.window_scale.unwrap_or(0).min(14)
        } else {
            0
        };
        let rcv_ws = if ws { self.cfg.rcv_wscale() } else { 0 };
        let mut rcv = Receiver::new(self.cfg.rcv_buf_bytes, self.cfg.mss);
        rcv.wscale = rcv_ws;
        self.rcv = rcv;
    }

    /// RTT of the handshake, unless the SYN was retransmitted (Karn, RFC 6298 §3); after a
    /// retransmitted SYN the RTO becomes at least 3 s (RFC 6298 §5.7).
    fn handshake_rtt(&mut self, now: SimTime, traces: &mut Traces) {
        if self.syn_tx_count == 1 {
            if let Some(t) = self.syn_sent_at {
                let r = now.saturating_since(t);
                self.rtt.on_sample(r);
                self.trace_rtt(now, r, traces);
            }
        } else {
            self.rtt.raise_initial_rto(RTO_AFTER_LOST_SYN);
        }
        self.rto_deadline = None;
        self.rto_consecutive = 0;
    }

    fn establish(&mut self, now: SimTime, traces: &mut Traces) {
        // A close requested in SYN-SENT takes effect now (RFC 9293 §3.10.4).
        self.state = if self.buf.fin_queued {
            TcpState::FinWait1
        } else {
            TcpState::Established
        };
        self.snd_nxt = 1;
        self.rec.recover = 1;
        self.rec.high_rxt = 1;
        self.ecn_recover = 1;
        self.stats.established_at = Some(now);
        self.trace_cc(now, traces);
    }

    /// RFC 9293 §3.10.7.1: in CLOSED, a segment that is not a reset is answered with one —
    /// `<SEQ=SEG.ACK><CTL=RST>` when it carries an ACK, else
    /// `<SEQ=0><ACK=SEG.SEQ+SEG.LEN><CTL=RST,ACK>`. Without it a peer whose last ACK of our FIN
    /// was lost after our TIME-WAIT ended (short in simulations, and 2·MSL is no bound on the
    /// peer's backed-off RTO) retransmits its FIN for ever in LAST-ACK. Only a connection that
    /// had a peer answers (a listener closed before any SYN has none).
    fn reset_in_closed(&mut self, pkt: &Packet, hdr: &TcpHeader) {
        if self.remote.1 == 0 {
            return;
        }
        let seg_len = pkt.payload_len
            + hdr.flags.contains(TcpFlags::SYN) as u32
            + hdr.flags.contains(TcpFlags::FIN) as u32;
        self.rst_pending = Some(if hdr.flags.contains(TcpFlags::ACK) {
            (hdr.ack, 0, false)
        } else {
            (0, hdr.seq.wrapping_add(seg_len), true)
        });
    }

    pub(crate) fn enter_closed(&mut self, now: SimTime) {
        self.state = TcpState::Closed;
        self.rto_deadline = None;
        self.persist_deadline = None;
        self.time_wait_deadline = None;
        self.stats.closed_at.get_or_insert(now);
    }

    pub(crate) fn enter_time_wait(&mut self, now: SimTime) {
        self.state = TcpState::TimeWait;
        self.rto_deadline = None;
        self.persist_deadline = None;
        self.time_wait_deadline = Some(now + self.cfg.time_wait);
        self.stats.closed_at.get_or_insert(now);
    }

    /// SYN-RECEIVED and every synchronised state (RFC 9293 §3.10.7.4).
    fn on_synchronized(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        hdr: &TcpHeader,
        traces: &mut Traces,
    ) {
        let seq = SeqNum(hdr.seq).to_offset(self.irs, self.rcv.rcv_nxt);
        if hdr.flags.contains(TcpFlags::SYN) {
            if self.state == TcpState::SynReceived && !hdr.flags.contains(TcpFlags::ACK) {
                // The peer retransmitted its SYN: our SYN-ACK was lost or is late.
                self.syn_pending = true;
            } else {
                // A retransmitted SYN-ACK: our ACK was lost; acknowledge again.
                self.rcv.ack_now = true;
            }
            return;
        }
        if !hdr.flags.contains(TcpFlags::ACK) {
            return;
        }
        if self.state == TcpState::SynReceived {
            // Only an ACK of our SYN-ACK (offset 1) completes the handshake.
            if SeqNum(hdr.ack) != SeqNum::from_offset(self.iss, 1) {
                return;
            }
            self.snd_una = 1;
            self.snd_wl1 = seq.unwrap_or(1);
            self.snd_wl2 = 1;
            self.handshake_rtt(now, traces);
            self.syn_pending = false;
            self.establish(now, traces);
        }
        if self.state == TcpState::TimeWait {
            if hdr.flags.contains(TcpFlags::FIN) {
                // RFC 9293: acknowledge a retransmitted FIN and restart the 2·MSL timer.
                self.rcv.ack_now = true;
                self.time_wait_deadline = Some(now + self.cfg.time_wait);
            }
            return;
        }
        // RFC 7323 §4.3: TS.Recent from segments at or before Last.ACK.sent.
        if self.ts_ok {
            if let (Some((tsval, _)), Some(s)) = (hdr.options.timestamps, seq) {
                if s <= self.rcv.last_ack_sent && SeqNum(tsval).ge(SeqNum(self.rcv.ts_recent)) {
                    self.rcv.ts_recent = tsval;
                }
            }
        }
        self.process_ack(now, hdr, seq, pkt.payload_len, traces);
        if self.state == TcpState::Closed {
            return;
        }
        self.process_data(now, pkt, hdr, seq, traces);
    }

    /// Receive side of a segment: data, CE/CWR, ACK-control estimator and FIN.
    fn process_data(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        hdr: &TcpHeader,
        seq: Option<u64>,
        traces: &mut Traces,
    ) {
        let Some(seq) = seq else {
            self.rcv.ack_now = true;
            return;
        };
        if !matches!(
            self.state,
            TcpState::Established | TcpState::FinWait1 | TcpState::FinWait2 | TcpState::SynReceived
        ) {
            // After the peer's FIN no new data is accepted, but a retransmission is re-ACKed.
            if pkt.payload_len > 0 || hdr.flags.contains(TcpFlags::FIN) {
                self.rcv.ack_now = true;
            }
            return;
        }
        let len = pkt.payload_len as u64;
        let fin = hdr.flags.contains(TcpFlags::FIN);
        if self.ecn_ok && hdr.flags.contains(TcpFlags::CWR) {
            // RFC 3168 §6.1.3: CWR ends the echo (a CE on this very packet sets it again).
            self.rcv.ece = false;
        }
        // What this receiver had acknowledged before the segment: a segment wholly below it is
        // a repeat whose ACK the sender never got, which the ACK-control estimator counts.
        let acked = self.rcv.last_ack_sent;
        let out = self.rcv.on_segment(
            now,
            seq,
            len,
            fin,
            self.cfg.delayed_ack,
            self.cfg.delack_segments,
        );
        if len > 0 && (!out.unacceptable || seq + len <= acked) {
            if let Some(p_err) = self.ack_est.on_data(seq, seq + len, self.cfg.mss, acked) {
                traces.record(now, self.flow, TraceVar::LossEstimate, p_err);
            }
        }
        if out.unacceptable {
            return;
        }
        if len > 0 && self.ecn_ok && pkt.ip.ecn == Ecn::Ce {
            self.rcv.ece = true;
            self.stats.ce_received += 1;
        }
        if out.delivered > 0 {
            self.stats.bytes_delivered += out.delivered;
            traces.record(
                now,
                self.flow,
                TraceVar::Delivered,
                self.stats.bytes_delivered as f64,
            );
        }
        if out.fin {
            match self.state {
                TcpState::Established | TcpState::SynReceived => self.state = TcpState::CloseWait,
                TcpState::FinWait1 => {
                    if self.fin_acked() {
                        self.enter_time_wait(now);
                    } else {
                        self.state = TcpState::Closing;
                    }
                }
                TcpState::FinWait2 => self.enter_time_wait(now),
                _ => {}
            }
        }
    }

    /// Our FIN has been sent and acknowledged.
    fn fin_acked(&self) -> bool {
        self.buf.fin_queued && self.snd_una >= self.buf.stream_end()
    }

    /// Send side of a segment: window update, SACK, cumulative ACK, RTT, spurious-timeout
    /// detection, recovery, controller callbacks, ECN echo and the RTO timer.
    fn process_ack(
        &mut self,
        now: SimTime,
        hdr: &TcpHeader,
        seq: Option<u64>,
        payload: u32,
        traces: &mut Traces,
    ) {
        let Some(ack) = SeqNum(hdr.ack).to_offset(self.iss, self.snd_una) else {
            return;
        };
        if ack > self.snd_nxt {
            // RFC 9293 §3.10.7.4: an ACK for data not yet sent is answered with an ACK.
            self.rcv.ack_now = true;
            return;
        }
        if ack < self.snd_una {
            // RFC 9293 §3.10.7.4: an old (reordered) ACK below SND.UNA is ignored.
            return;
        }
        self.stats.acks_received += 1;
        let trace = self.traces_send_side(traces);
        if trace {
            traces.record(now, self.flow, TraceVar::AckReceived, ack as f64);
        }
        let prior_una = self.snd_una;
        let prior_in_flight = self.buf.pipe();
        let prior_lost = self.buf.lost_marks();
        // FlightSize of RFC 5681 eq. (4): data sent but not cumulatively acknowledged.
        let flight_size = self.snd_nxt - prior_una;
        let outstanding = prior_una < self.snd_nxt;

        // Window update (RFC 9293 §3.10.7.4, SND.WL1/SND.WL2 rule).
        let window = (hdr.window as u64) << self.snd_wscale;
        let window_changed = window != self.snd_wnd;
        let seq_off = seq.unwrap_or(self.snd_wl1);
        if ack >= prior_una
            && (self.snd_wl1 < seq_off || (self.snd_wl1 == seq_off && self.snd_wl2 <= ack))
        {
            self.snd_wnd = window;
            self.snd_wl1 = seq_off;
            self.snd_wl2 = ack;
            self.max_snd_wnd = self.max_snd_wnd.max(window);
        }
        if self.snd_wnd > 0 {
            self.persist_deadline = None;
            self.persist_backoff = 0;
        }

        let recover = self.spur.frto_recover;
        let mut ev = SpuriousEvidence {
            tsecr: hdr.options.timestamps.map(|t| t.1),
            ..Default::default()
        };

        // SACK (RFC 2018): newly SACKed segments also feed the delivery-rate estimator.
        let mut newly_sacked = 0;
        if self.sack_ok && hdr.options.sack_len > 0 {
            let mut blocks = [(0u64, 0u64); 4];
            let mut n = 0;
            for b in hdr.options.sack() {
                if let (Some(l), Some(r)) = (
                    SeqNum(b.left).to_offset(self.iss, self.snd_una),
                    SeqNum(b.right).to_offset(self.iss, self.snd_una),
                ) {
                    blocks[n] = (l, r);
                    n += 1;
                }
            }
            let rate = &mut self.rate;
            let rack = &mut self.rack;
            let min_rtt = self.rtt.min_rtt();
            newly_sacked =
                self.buf
                    .apply_sack(&blocks[..n], ack.max(prior_una), self.snd_nxt, |s| {
                        rate.on_delivered(now, &s.tx, s.len());
                        rack.on_delivered(s.sent_time, s.end, s.tx_count > 1, now, min_rtt);
                        if s.end <= recover {
                            ev.sacked_below_recover = true;
                            if s.tx_count == 1 {
                                ev.acked_original_below_recover = true;
                            }
                        }
                    });
        }

        // Cumulative ACK.
        let mut karn_sample = None;
        let mut acked_retransmission = false;
        if ack > prior_una {
            let rate = &mut self.rate;
            let rack = &mut self.rack;
            let min_rtt = self.rtt.min_rtt();
            self.buf.ack_through(ack, |s| {
                if !s.sacked {
                    rate.on_delivered(now, &s.tx, s.len());
                    rack.on_delivered(s.sent_time, s.end, s.tx_count > 1, now, min_rtt);
                }
                if s.tx_count == 1 {
                    // Karn's rule (RFC 6298 §3): only segments sent once give samples, and
                    // not one that was SACKed before (its ACK is this one only by delay).
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
            // An ACK that also covers a retransmission was held back until the repair arrived:
            // timing a newer segment by it would count the repair as path delay (the sample
            // Linux also refuses, FLAG_RETRANS_DATA_ACKED), and after a long outage drive the
            // RTO towards its ceiling.
            if acked_retransmission {
                karn_sample = None;
            }
            self.snd_una = ack;
            self.buf.on_cumulative_ack(ack);
            self.stats.bytes_acked = self.bytes_acked();
        }
        let advanced = ack > prior_una;
        let cum_acked = ack - prior_una;
        if hdr.eln {
            self.on_eln_ack();
        }

        // RTT: timestamps on every ACK that advances SND.UNA (RFC 7323 §4.1), else Karn.
        let mut rtt_sample = None;
        if advanced {
            rtt_sample = match (self.ts_ok, hdr.options.timestamps) {
                (true, Some((_, tsecr))) => Some(ts_rtt(now, tsecr, self.cfg.ts_tick)),
                _ => karn_sample,
            };
        }
        if let Some(r) = rtt_sample {
            self.rtt.on_sample(r);
            self.trace_rtt(now, r, traces);
        }

        // Duplicate ACK definitions: RFC 5681 §2 (a)–(e), RFC 6675 §2 with SACK.
        let dup_5681 = !advanced
            && outstanding
            && payload == 0
            && !hdr.flags.contains(TcpFlags::FIN)
            && !window_changed;
        let is_dup = if self.sack_ok {
            newly_sacked > 0
        } else {
            dup_5681
        };
        ev.advanced = advanced;
        ev.is_dup = is_dup;

        self.detect_spurious(now, &ev, traces);
        let info = AckInfo {
            advanced,
            cum_acked,
            newly_sacked,
            is_dup,
        };
        let in_recovery = self.rec.phase == RecoveryPhase::FastRecovery;
        if self.tlp.in_episode() && newly_sacked > 0 {
            // RFC 8985 §7.4.1: the probe's ACK lets RACK mark the tail the probe overtook.
            let (min_rtt, srtt) = (self.rtt.min_rtt(), self.rtt.srtt());
            self.rack.detect_lost(&mut self.buf, now, min_rtt, srtt);
        }
        let event = self.update_recovery(now, &info, traces);
        // RFC 8985 §6.2: a retransmission that later transmissions overtook is lost; send it
        // again now rather than after another RTO. Linux runs RACK on every ACK in both
        // recovery states (`tcp_identify_packet_loss` in `tcp_fastretrans_alert`), so a fast
        // retransmission dropped at a full queue is repaired within fast recovery as well as a
        // go-back-N one in RTO recovery.
        if self.cfg.detect_lost_retransmissions
            && self.sack_ok
            && self.rec.phase != RecoveryPhase::Open
        {
            let (min_rtt, srtt) = (self.rtt.min_rtt(), self.rtt.srtt());
            if let Some(start) =
                self.rack
                    .detect_lost_retransmissions(&mut self.buf, now, min_rtt, srtt)
            {
                self.rec.high_rxt = self.rec.high_rxt.min(start);
                self.stats.lost_retransmissions += 1;
            }
        }
        // An RTO recovery episode lasts until its recovery point is acknowledged: an expiry
        // before then finds SND.UNA at a segment the timer has already resent, so it is not a
        // first expiry (RFC 5681 §3.1: ssthresh is then held constant; RFC 5682 §2.1: F-RTO
        // is not entered again). Only leaving the episode starts a new series.
        if advanced && self.rec.phase != RecoveryPhase::Loss {
            self.rto_consecutive = 0;
        }

        let rate_sample = if advanced || newly_sacked > 0 {
            self.rate.take_sample(self.rtt.min_rtt())
        } else {
            None
        };
        let bytes_in_flight = self.buf.pipe();
        // `in_recovery` is set only in fast recovery: after a timeout the window grows by slow
        // start while the go-back-N retransmissions proceed (RFC 5681 §3.1).
        let ack_ev = AckEvent {
            now,
            acked_bytes: cum_acked + newly_sacked,
            duplicate: dup_5681 && newly_sacked == 0,
            snd_una_advanced: advanced,
            rtt_sample,
            ca_rtt: if advanced { karn_sample } else { None },
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            prior_in_flight,
            bytes_in_flight,
            in_recovery,
            in_rto_recovery: self.rec.phase == RecoveryPhase::Loss,
            losses: self.buf.lost_marks() - prior_lost,
            pacing_delay: self.pacing_next.saturating_since(now),
            rate_sample,
            app_limited: rate_sample.map_or(self.rate.is_app_limited(), |r| r.is_app_limited),
        };
        if outstanding || advanced {
            self.cc.on_ack(&ack_ev);
        }
        let prior_cwnd = self.cc.cwnd();
        match event {
            RecoveryEvent::Enter => {
                self.prr_start(prior_cwnd);
                self.cc.on_congestion_event(&CongestionEvent {
                    now,
                    kind: CongestionKind::FastRetransmit,
                    bytes_in_flight: flight_size,
                    srtt: self.rtt.srtt(),
                    min_rtt: self.rtt.min_rtt(),
                });
            }
            RecoveryEvent::Exit => self.cc.on_recovery_exit(now),
            // ELN: a radio loss, not congestion: no reduction and so nothing to end.
            RecoveryEvent::EnterEln | RecoveryEvent::ExitEln | RecoveryEvent::None => {}
        }
        if self.prr_active() {
            // RFC 6937 §3: DeliveredData = change in SND.UNA + newly SACKed bytes.
            self.prr_on_ack(cum_acked + newly_sacked, advanced);
        }

        // ECN-Echo (RFC 3168 §6.1.2): at most one reduction per window of data, none while
        // already recovering from a loss in this window.
        if self.ecn_ok
            && hdr.flags.contains(TcpFlags::ECE)
            && self.rec.phase == RecoveryPhase::Open
            // Strictly beyond: some data sent after the last reduction has been acknowledged.
            && self.snd_una > self.ecn_recover
            && event == RecoveryEvent::None
            && outstanding
        {
            self.cc.on_congestion_event(&CongestionEvent {
                now,
                kind: CongestionKind::EcnEcho,
                bytes_in_flight: flight_size,
                srtt: self.rtt.srtt(),
                min_rtt: self.rtt.min_rtt(),
            });
            self.ecn_recover = self.snd_nxt;
            self.ecn_cwr_pending = true;
            self.stats.ecn_reductions += 1;
        }

        // RFC 6298 §5.2–5.3: stop the timer when all is acknowledged, restart it on new ACKs
        // (in NewReno recovery, on the first partial ACK only: RFC 6582 §3.2 step 5).
        if self.snd_una >= self.snd_nxt {
            self.rto_deadline = None;
        } else if advanced && self.advance_restarts_rto_timer() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }

        let dup_without_sack = dup_5681 && hdr.options.sack_len == 0;
        self.tail_loss_probe_on_ack(now, ack, advanced, dup_without_sack, flight_size);
        if advanced && self.fin_acked() {
            match self.state {
                TcpState::FinWait1 => self.state = TcpState::FinWait2,
                TcpState::Closing => self.enter_time_wait(now),
                TcpState::LastAck => self.enter_closed(now),
                _ => {}
            }
        }
        self.trace_cc(now, traces);
        if trace && traces.enabled(TraceVar::BytesInFlight) {
            traces.record(
                now,
                self.flow,
                TraceVar::BytesInFlight,
                bytes_in_flight as f64,
            );
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
            self.cc.on_congestion_event(&CongestionEvent {
                now,
                kind: CongestionKind::FastRetransmit,
                bytes_in_flight: flight_size,
                srtt: self.rtt.srtt(),
                min_rtt: self.rtt.min_rtt(),
            });
            self.cc.on_recovery_exit(now);
        }
        if self.rec.phase != RecoveryPhase::Open {
            self.tlp.reset();
        } else if advanced {
            self.schedule_loss_probe(now);
        }
    }
}
