//! Segment arrival (RFC 9293 §3.10.7): the handshake, ACK processing for the send side, data
//! and FIN processing for the receive side, and the state transitions they cause.

use celltcp_engine::SimTime;
use celltcp_net::packet::{Ecn, Packet, TcpFlags, TcpHeader};
use celltcp_net::trace::{TraceVar, Traces};

use super::{TcpEndpoint, TcpState, DEFAULT_PEER_MSS, RTO_AFTER_LOST_SYN};
use crate::negotiated::NegotiatedOptions;
use crate::receiver::Receiver;
use crate::seq::SeqNum;

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
        self.opts.ecn =
            self.cfg.ecn && hdr.flags.contains(TcpFlags::ECE) && hdr.flags.contains(TcpFlags::CWR);
        if let Some((tsval, _)) = hdr.options.timestamps {
            self.rcv.on_syn_timestamp(tsval);
        }
        // The SYN's window is never scaled (RFC 7323 §2.2).
        self.snd.on_syn(hdr.window as u64);
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
        self.opts.ecn =
            self.cfg.ecn && hdr.flags.contains(TcpFlags::ECE) && !hdr.flags.contains(TcpFlags::CWR);
        if let Some((tsval, _)) = hdr.options.timestamps {
            self.rcv.on_syn_timestamp(tsval);
        }
        self.snd.on_syn_ack(hdr.window as u64);
        self.handshake_rtt(now, traces);
        self.rcv.ack_immediately();
        self.establish(now, traces);
    }

    /// Options of the peer's SYN or SYN-ACK (RFC 9293 §3.7.1, RFC 2018 §2, RFC 7323 §2–3).
    fn negotiate(&mut self, hdr: &TcpHeader) {
        let o = &hdr.options;
        let peer_mss = o.mss.map_or(DEFAULT_PEER_MSS, |m| m as u32).max(64);
        let ws = self.cfg.window_scale && o.window_scale.is_some();
        self.opts = NegotiatedOptions {
            sack: self.cfg.sack && o.sack_permitted,
            timestamps: self.cfg.timestamps && o.timestamps.is_some(),
            // Set by the caller: the ECN setup differs between SYN and SYN-ACK.
            ecn: false,
            window_scale: ws,
            mss: self.cfg.mss.min(peer_mss),
            snd_wscale: if ws {
                o.window_scale.unwrap_or(0).min(14)
            } else {
                0
            },
            rcv_wscale: if ws { self.cfg.rcv_wscale() } else { 0 },
        };
        self.rcv = Receiver::new(self.cfg.rcv_buf_bytes, self.cfg.mss)
            .with_quick_acks(self.cfg.quick_acks)
            .with_window_scale(self.opts.rcv_wscale);
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
        self.rtt.stop_timer();
        self.rtt.end_episode();
    }

    fn establish(&mut self, now: SimTime, traces: &mut Traces) {
        // A close requested in SYN-SENT takes effect now (RFC 9293 §3.10.4).
        self.state = if self.buf.fin_queued {
            TcpState::FinWait1
        } else {
            TcpState::Established
        };
        self.snd.start_data();
        self.rec.on_handshake_complete();
        self.ecn.hold_until(1);
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
        self.rtt.stop_timer();
        self.persist.cancel();
        self.time_wait_deadline = None;
        self.stats.closed_at.get_or_insert(now);
    }

    pub(crate) fn enter_time_wait(&mut self, now: SimTime) {
        self.state = TcpState::TimeWait;
        self.rtt.stop_timer();
        self.persist.cancel();
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
        let seq = SeqNum(hdr.seq).to_offset(self.irs, self.rcv.rcv_nxt());
        if hdr.flags.contains(TcpFlags::SYN) {
            if self.state == TcpState::SynReceived && !hdr.flags.contains(TcpFlags::ACK) {
                // The peer retransmitted its SYN: our SYN-ACK was lost or is late.
                self.syn_pending = true;
            } else {
                // A retransmitted SYN-ACK: our ACK was lost; acknowledge again.
                self.rcv.ack_immediately();
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
            self.snd.on_syn_ack_acked(seq.unwrap_or(1));
            self.handshake_rtt(now, traces);
            self.syn_pending = false;
            self.establish(now, traces);
        }
        if self.state == TcpState::TimeWait {
            if hdr.flags.contains(TcpFlags::FIN) {
                // RFC 9293: acknowledge a retransmitted FIN and restart the 2·MSL timer.
                self.rcv.ack_immediately();
                self.time_wait_deadline = Some(now + self.cfg.time_wait);
            }
            return;
        }
        // RFC 7323 §4.3: TS.Recent from segments at or before Last.ACK.sent.
        if self.opts.timestamps {
            if let (Some((tsval, _)), Some(s)) = (hdr.options.timestamps, seq) {
                self.rcv.on_timestamp(s, tsval);
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
            self.rcv.ack_immediately();
            return;
        };
        if !matches!(
            self.state,
            TcpState::Established | TcpState::FinWait1 | TcpState::FinWait2 | TcpState::SynReceived
        ) {
            // After the peer's FIN no new data is accepted, but a retransmission is re-ACKed.
            if pkt.payload_len > 0 || hdr.flags.contains(TcpFlags::FIN) {
                self.rcv.ack_immediately();
            }
            return;
        }
        let len = pkt.payload_len as u64;
        let fin = hdr.flags.contains(TcpFlags::FIN);
        if self.opts.ecn && hdr.flags.contains(TcpFlags::CWR) {
            // RFC 3168 §6.1.3: CWR ends the echo (a CE on this very packet sets it again).
            self.rcv.on_cwr();
        }
        // What this receiver had acknowledged before the segment: a segment wholly below it is
        // a repeat whose ACK the sender never got, which the ACK-control estimator counts.
        let acked = self.rcv.last_ack_sent();
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
        if len > 0 && self.opts.ecn && pkt.ip.ecn == Ecn::Ce {
            self.rcv.on_ce();
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
    pub(super) fn fin_acked(&self) -> bool {
        self.buf.fin_queued && self.snd.una() >= self.buf.stream_end()
    }
}
