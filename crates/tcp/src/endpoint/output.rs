//! Segment output: which segment goes next (SYN, ACK copies, retransmissions by NextSeg, new
//! data within cwnd and the receive window, zero-window probes, pure ACKs) and how its header
//! is filled.

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::packet::{Ecn, IpHeader, Packet, TcpFlags, TcpHeader, TcpOptions, Transport};
use celltcp_net::trace::{TraceVar, Traces};

use super::{TcpEndpoint, TcpState};
use crate::recovery::RecoveryPhase;
use crate::rtt::ts_val;
use crate::scoreboard::NextSegRule;
use crate::send_buffer::Segment;
use crate::seq::SeqNum;
use crate::spurious::FrtoStep;

/// IP time-to-live of segments sent.
const TTL: u8 = 64;

impl TcpEndpoint {
    /// The next segment to send, if any; call until `None` after every input.
    pub fn poll_transmit(&mut self, now: SimTime, traces: &mut Traces) -> Option<Packet> {
        match self.state {
            TcpState::Closed => return self.rst_pending.take().map(|r| self.send_reset(now, r)),
            TcpState::Listen => return None,
            TcpState::SynSent | TcpState::SynReceived => {
                return if self.syn_pending {
                    Some(self.send_syn(now))
                } else {
                    None
                };
            }
            _ => {}
        }
        if self.ack_copies_left > 0 {
            if let Some(p) = self.last_ack {
                self.ack_copies_left -= 1;
                self.stats.segments_sent += 1;
                self.stats.acks_sent += 1;
                self.stats.ack_copies_sent += 1;
                return Some(p);
            }
        }
        if matches!(
            self.state,
            TcpState::Established
                | TcpState::CloseWait
                | TcpState::FinWait1
                | TcpState::Closing
                | TcpState::LastAck
        ) {
            if self.tlp.take_probe_due() {
                if let Some(p) = self.send_loss_probe(now, traces) {
                    return Some(p);
                }
            }
            if let Some(p) = self.send_data(now, traces) {
                return Some(p);
            }
        }
        if self.persist.take_probe() {
            return Some(self.send_probe(now));
        }
        if self.rcv.ack_now() {
            return Some(self.send_pure_ack(now));
        }
        None
    }

    /// SYN (active open) or SYN-ACK (passive open) with the options of RFC 9293 §3.7.1,
    /// RFC 2018 §2, RFC 7323 §2–3 and the ECN setup of RFC 3168 §6.1.1.
    fn send_syn(&mut self, now: SimTime) -> Packet {
        let passive = self.state == TcpState::SynReceived;
        let mut flags = TcpFlags::SYN;
        let mut opts = TcpOptions {
            mss: Some(self.cfg.mss.min(u16::MAX as u32) as u16),
            ..Default::default()
        };
        if passive {
            flags.insert(TcpFlags::ACK);
            if self.opts.ecn {
                flags.insert(TcpFlags::ECE);
            }
            opts.sack_permitted = self.opts.sack;
            opts.window_scale = self.opts.window_scale.then_some(self.opts.rcv_wscale);
            opts.timestamps = self
                .opts
                .timestamps
                .then(|| (ts_val(now, self.cfg.ts_tick), self.rcv.ts_recent()));
        } else {
            if self.cfg.ecn {
                flags.insert(TcpFlags::ECE);
                flags.insert(TcpFlags::CWR);
            }
            opts.sack_permitted = self.cfg.sack;
            opts.window_scale = self.cfg.window_scale.then(|| self.cfg.rcv_wscale());
            opts.timestamps = self
                .cfg
                .timestamps
                .then(|| (ts_val(now, self.cfg.ts_tick), 0));
        }
        self.syn_tx_count += 1;
        if self.syn_tx_count == 1 {
            self.syn_sent_at = Some(now);
        } else {
            self.stats.syn_retx += 1;
        }
        self.syn_pending = false;
        self.rtt.restart_timer(now);
        let hdr = TcpHeader {
            src_port: self.local.1,
            dst_port: self.remote.1,
            seq: self.iss,
            ack: if passive {
                SeqNum::from_offset(self.irs, 1).0
            } else {
                0
            },
            flags,
            // RFC 7323 §2.2: the window of a SYN is never scaled.
            window: self.cfg.rcv_buf_bytes.min(65_535) as u16,
            options: opts,
            eln: false,
        };
        // The SYN's window is a promise like any other (RFC 9293 §3.8.6.2.2): later windows
        // must not end left of it, so the receive side records its right edge.
        self.rcv.on_syn_window_sent(hdr.window as u64);
        self.stats.segments_sent += 1;
        self.packet(now, hdr, 0, Ecn::NotEct)
    }

    /// The reset of RFC 9293 §3.10.7.1 (see `reset_in_closed`): no options, no window.
    fn send_reset(&mut self, now: SimTime, (seq, ack, with_ack): (u32, u32, bool)) -> Packet {
        let mut flags = TcpFlags::RST;
        if with_ack {
            flags.insert(TcpFlags::ACK);
        }
        let hdr = TcpHeader {
            src_port: self.local.1,
            dst_port: self.remote.1,
            seq,
            ack,
            flags,
            window: 0,
            options: TcpOptions::default(),
            eln: false,
        };
        self.stats.segments_sent += 1;
        self.packet(now, hdr, 0, Ecn::NotEct)
    }

    fn packet(&self, now: SimTime, hdr: TcpHeader, payload_len: u32, ecn: Ecn) -> Packet {
        Packet {
            uid: 0,
            flow: self.flow,
            ip: IpHeader {
                src: self.local.0,
                dst: self.remote.0,
                ecn,
                dscp: 0,
                ttl: TTL,
                id: 0,
            },
            transport: Transport::Tcp(hdr),
            payload_len,
            app_seq: 0,
            created_at: now,
            tunnel: None,
        }
    }

    /// A segment of the synchronised states, acknowledging RCV.NXT with the current window,
    /// timestamps, SACK blocks and ECE as due.
    fn segment(
        &mut self,
        now: SimTime,
        seq: u64,
        mut flags: TcpFlags,
        payload: u32,
        ecn: Ecn,
    ) -> Packet {
        flags.insert(TcpFlags::ACK);
        if self.opts.ecn && self.rcv.ece() {
            flags.insert(TcpFlags::ECE);
        }
        let mut opts = TcpOptions::default();
        if self.opts.timestamps {
            opts.timestamps = Some((ts_val(now, self.cfg.ts_tick), self.rcv.ts_recent()));
        }
        if self.opts.sack {
            // RFC 2018 §3: at most 3 blocks beside timestamps, 4 without.
            let max = if self.opts.timestamps { 3 } else { 4 };
            for (l, r) in self.rcv.sack_blocks(max) {
                opts.push_sack(celltcp_net::packet::SackBlock {
                    left: SeqNum::from_offset(self.irs, l).0,
                    right: SeqNum::from_offset(self.irs, r).0,
                });
            }
        }
        let hdr = TcpHeader {
            src_port: self.local.1,
            dst_port: self.remote.1,
            seq: SeqNum::from_offset(self.iss, seq).0,
            ack: SeqNum::from_offset(self.irs, self.rcv.rcv_nxt()).0,
            flags,
            window: self.rcv.window_field(),
            options: opts,
            eln: false,
        };
        self.rcv.on_ack_sent();
        self.stats.segments_sent += 1;
        self.packet(now, hdr, payload, ecn)
    }

    /// A pure ACK, repeated `copies` times by receiver ACK control (seed `004_…`).
    fn send_pure_ack(&mut self, now: SimTime) -> Packet {
        let p = self.segment(now, self.snd.nxt(), TcpFlags::default(), 0, Ecn::NotEct);
        self.stats.acks_sent += 1;
        self.ack_copies_left = self.ack_est.copies() - 1;
        self.last_ack = Some(p);
        p
    }

    /// Zero-window probe (RFC 9293 §3.8.6.1): an ACK carrying the already acknowledged
    /// sequence number SND.UNA − 1, which the receiver must answer with its current window.
    fn send_probe(&mut self, now: SimTime) -> Packet {
        self.stats.window_probes += 1;
        self.stats.acks_sent += 1;
        self.segment(
            now,
            self.snd.una().saturating_sub(1),
            TcpFlags::default(),
            0,
            Ecn::NotEct,
        )
    }

    /// RFC 3042 limited transmit, when enabled: see
    /// [`crate::recovery::Recovery::limited_transmit_allowance`].
    pub(crate) fn limited_transmit_allowance(&self) -> u64 {
        if !self.cfg.limited_transmit {
            return 0;
        }
        self.rec
            .limited_transmit_allowance(self.dupthresh(), self.opts.mss as u64)
    }

    /// Data output: NextSeg rule 1, new data (rule 2), rules 3–4, within cwnd and pacing.
    fn send_data(&mut self, now: SimTime, traces: &mut Traces) -> Option<Packet> {
        if let Some(rate) = self.cc.pacing_rate_bps() {
            if rate > 0 && now < self.pacing_next {
                self.pacing_blocked = self.has_sendable();
                return None;
            }
        }
        let cwnd = self.effective_cwnd();
        let pipe = self.buf.pipe();
        let frto_hold = self.spur.frto_holds_retransmissions(&self.buf);
        if !frto_hold {
            if let Some((i, rule)) = self.rec.next_lost_retransmission(&self.buf) {
                if pipe + self.buf.segs[i].len() <= cwnd || pipe == 0 || self.rec.retransmit_now() {
                    self.rec.clear_retransmit_now();
                    return Some(self.retransmit(now, i, rule, traces));
                }
                return None;
            }
        }
        if let Some(p) = self.send_new(now, cwnd + self.limited_transmit_allowance(), pipe, traces)
        {
            self.schedule_loss_probe(now);
            return Some(p);
        }
        if !frto_hold {
            let fallback =
                self.rec
                    .sack_fallback_retransmission(self.opts.sack, &self.snd, &self.buf);
            if let Some((i, rule)) = fallback {
                if pipe + self.buf.segs[i].len() <= cwnd {
                    return Some(self.retransmit(now, i, rule, traces));
                }
            }
        }
        None
    }

    /// RFC 8985 §7.3 `TLP_send_probe`: one new segment if the application and the receive
    /// window allow it (cwnd does not apply), else the highest-sequence segment again; the
    /// episode starts at SND.NXT and the retransmission timer restarts.
    fn send_loss_probe(&mut self, now: SimTime, traces: &mut Traces) -> Option<Packet> {
        let pipe = self.buf.pipe();
        let (probe, is_retrans) = match self.send_new(now, u64::MAX, pipe, traces) {
            Some(p) => (p, false),
            None => {
                let last = self.buf.segs.len().checked_sub(1)?;
                (
                    self.retransmit(now, last, NextSegRule::Unsacked, traces),
                    true,
                )
            }
        };
        self.tlp.on_probe_sent(self.snd.nxt(), is_retrans);
        self.rtt.restart_timer(now);
        Some(probe)
    }

    /// Something is waiting that only the window or the pacer holds back.
    fn has_sendable(&self) -> bool {
        self.snd.nxt() < self.buf.stream_end()
            || self.rec.next_lost_retransmission(&self.buf).is_some()
    }

    /// New data (NextSeg rule 2): up to one SMSS within the receive window and `window`.
    fn send_new(
        &mut self,
        now: SimTime,
        window: u64,
        pipe: u64,
        traces: &mut Traces,
    ) -> Option<Packet> {
        let (len, fin) = self.new_segment_size(now, window, pipe)?;
        let seg_len = len + fin as u64;
        let start = self.snd.nxt();
        let tx = self.rate.on_send(now, pipe);
        let tsv = ts_val(now, self.cfg.ts_tick);
        self.buf.push(Segment {
            start,
            end: start + seg_len,
            fin,
            sent_time: now,
            tx_count: 1,
            sacked: false,
            lost: false,
            retx_in_flight: false,
            ts_val: tsv,
            tx,
        });
        self.snd.on_new_data_sent(seg_len);
        let mut flags = TcpFlags::default();
        if fin {
            flags.insert(TcpFlags::FIN);
        }
        if len > 0 && start + len == self.buf.data_end() {
            flags.insert(TcpFlags::PSH);
        }
        // RFC 3168 §6.1.2: CWR on the first new data segment after the reduction.
        if len > 0 && self.ecn.take_cwr() {
            flags.insert(TcpFlags::CWR);
        }
        // RFC 3168 §6.1.5: new data is ECT(0); retransmissions, ACKs and probes are not ECT.
        let ecn = if self.opts.ecn && len > 0 {
            Ecn::Ect0
        } else {
            Ecn::NotEct
        };
        self.stats.data_segments_sent += 1;
        self.stats.bytes_sent += len;
        traces.record(now, self.flow, TraceVar::SeqSent, start as f64);
        self.after_data_sent(now, len as u32);
        Some(self.segment(now, start, flags, len as u32, ecn))
    }

    /// The payload and FIN of the next new segment, if one may go: data or a FIN is queued
    /// (else the application left the window unfilled), the receive window admits it, F-RTO
    /// allows it (RFC 5682 §2.1 step 2b: up to two new segments regardless of cwnd) and it
    /// fits in `window` beside `pipe`.
    fn new_segment_size(&mut self, now: SimTime, window: u64, pipe: u64) -> Option<(u64, bool)> {
        let frto = self.spur.frto_step();
        if frto == FrtoStep::AwaitFirstAck && self.rec.phase() == RecoveryPhase::Loss {
            return None;
        }
        let data_end = self.buf.data_end();
        let avail = data_end.saturating_sub(self.snd.nxt());
        let fin_due = self.buf.fin_queued && self.snd.nxt() <= data_end;
        if avail == 0 && !fin_due {
            if pipe < window {
                // Draft delivery-rate §3.4: the application left the window unfilled.
                self.rate.mark_app_limited(pipe);
            }
            return None;
        }
        let len = self.receive_window_limit(now, avail.min(self.opts.mss as u64))?;
        let fin = fin_due && self.snd.nxt() + len == data_end;
        let seg_len = len + fin as u64;
        if seg_len == 0 {
            return None;
        }
        if frto == FrtoStep::AwaitSecondAck {
            if !self.spur.take_frto_new_segment() {
                return None;
            }
        } else if pipe > 0 && pipe + seg_len > window {
            return None;
        }
        Some((len, fin))
    }

    /// `len` bytes cut to the receive window. Sender SWS avoidance (RFC 9293 §3.8.6.2.1): a
    /// partial segment only if it is at least half the largest window the peer offered; a
    /// closed window with nothing in flight starts the persist timer (RFC 9293 §3.8.6.1).
    fn receive_window_limit(&mut self, now: SimTime, len: u64) -> Option<u64> {
        let room = self.snd.room();
        if len <= room {
            return Some(len);
        }
        if room > 0 && room >= self.snd.max_wnd() / 2 {
            return Some(room);
        }
        if self.buf.segs.is_empty() {
            self.persist.start(now, self.rtt.rto(), self.cfg.max_rto);
        }
        None
    }

    /// Retransmits segment `i` chosen by NextSeg `rule`.
    fn retransmit(
        &mut self,
        now: SimTime,
        i: usize,
        rule: NextSegRule,
        traces: &mut Traces,
    ) -> Packet {
        let tsv = ts_val(now, self.cfg.ts_tick);
        let tx = self.rate.on_send(now, self.buf.pipe());
        // The segment at SND.UNA sent once more after a retransmission of it was lost (RACK,
        // RFC 8985 §6.2): the timer restarts, as Linux re-arms it whenever it retransmits the
        // head of its retransmission queue (`tcp_xmit_retransmit_queue`). Otherwise the
        // timer set at the last advance of SND.UNA can expire just before this repair is
        // acknowledged, and go-back-N resends every segment still queued above it.
        if i == 0 && self.buf.segs[0].tx_count >= 2 && self.rec.phase() != RecoveryPhase::Open {
            self.rtt.restart_timer(now);
        }
        self.buf.update(i, |seg| {
            seg.tx_count += 1;
            seg.retx_in_flight = true;
            seg.sent_time = now;
            seg.ts_val = tsv;
            seg.tx = tx;
        });
        let seg = &self.buf.segs[i];
        let (start, end, fin, payload) = (seg.start, seg.end, seg.fin, seg.payload());
        self.rec.on_retransmitted(end, rule);
        self.stats.retx_total += 1;
        self.stats.retx_bytes += payload;
        self.stats.data_segments_sent += 1;
        self.stats.bytes_sent += payload;
        if self.rec.phase() == RecoveryPhase::Loss {
            self.stats.retx_rto += 1;
            traces.record(now, self.flow, TraceVar::RetxRto, start as f64);
            // RFC 3522 §3.2 (2): RetransmitTS of the first retransmission.
            self.spur.on_rto_retransmission(tsv);
        } else {
            self.stats.retx_fast += 1;
            traces.record(now, self.flow, TraceVar::RetxFast, start as f64);
        }
        let mut flags = TcpFlags::default();
        if fin {
            flags.insert(TcpFlags::FIN);
        }
        self.after_data_sent(now, payload as u32);
        self.segment(now, start, flags, payload as u32, Ecn::NotEct)
    }

    /// Timer and pacer book-keeping common to every data transmission.
    fn after_data_sent(&mut self, now: SimTime, payload: u32) {
        // RFC 6937 §3: prr_out counts every byte sent during recovery.
        self.rec.on_data_sent(payload as u64);
        // RFC 6298 §5.1: start the timer if it is not running.
        self.rtt.start_timer_if_stopped(now);
        self.persist.stop();
        self.pacing_blocked = false;
        if let Some(rate) = self.cc.pacing_rate_bps() {
            if rate > 0 {
                // Wire size: payload plus IP and TCP headers (options approximated by 12 B of
                // timestamps when in use).
                let hdr = 40 + if self.opts.timestamps { 12 } else { 0 };
                let gap = SimDuration::transmission(payload as u64 + hdr, rate);
                self.pacing_next = self.pacing_next.max(now) + gap;
            }
        }
    }
}
