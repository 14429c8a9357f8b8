//! The transmitting side of an AM RLC entity (36.322 §5.1.3.1, §5.2.1, §5.2.2).
//!
//! State variables (§7.1), with SN comparisons modulo 2^sn_bits relative to VT(A):
//! * VT(A) — the SN of the next AMD PDU whose positive acknowledgement is awaited in sequence,
//!   the lower edge of the transmitting window;
//! * VT(MS) = VT(A) + AM_Window_Size — the first SN outside the window;
//! * VT(S) — the SN the next new AMD PDU gets;
//! * POLL_SN — VT(S) − 1 when the last poll was sent;
//! * PDU_WITHOUT_POLL, BYTE_WITHOUT_POLL — counters for pollPDU and pollByte (§7.4);
//! * RETX_COUNT per AMD PDU.
//!
//! Every AMD PDU in [VT(A), VT(S)) keeps its data field until positively acknowledged. The
//! byte ranges of a PDU that a NACK (or t-PollRetransmit) asks for are "pending for
//! retransmission"; a later transmission opportunity serves them whole if they fit, else as AMD
//! PDU segments (§5.1.3.1.1 re-segmentation). The pending ranges, RETX_COUNT and the order of
//! retransmissions are NR's too ([`RetxQueue`]), and so is polling ([`Poller`]).

use std::collections::VecDeque;

use celltcp_engine::SimTime;
use celltcp_net::packet::Packet;

use super::am::{MaxRetxAction, RlcAmConfig, RlcAmTxStats};
use super::am_pdu::{AmdPdu, ControlBits, MrwPdu, Nack, RlcPdu, SegmentHeader, StatusPdu};
use super::data_field::DataField;
use super::poll::Poller;
use super::retx::{RetxQueue, RetxState};
use super::sdu_buffer::SduBuffer;
use super::sn::SnSpace;
use super::{earliest, BufferStatus, PduMode, RlcConfigError, RlcSdu, RlcSduRefused};

/// One AMD PDU awaiting acknowledgement.
#[derive(Debug)]
struct TxPdu<S> {
    /// The data field as first sent.
    data: DataField<S>,
    /// Header bytes of the PDU as first sent.
    header_bytes: u32,
    acked: bool,
    /// RETX_COUNT and the byte ranges of the data field pending retransmission.
    retx: RetxState,
}

/// An SDU discard being signalled to the receiver (25.322 §11.6).
#[derive(Clone, Copy, Debug)]
struct MrwState {
    /// SN_MRW: every AMD PDU below it was acknowledged or discarded.
    sn_mrw: u32,
    /// VT(A) before the first unconfirmed discard: the receiver's VR(R) is only known to be at
    /// least this, so the transmitting window stays anchored here until MRW_ACK.
    window_anchor: u32,
    /// An MRW is waiting for a transmission opportunity.
    send: bool,
    /// Timer_MRW deadline while an MRW is unanswered.
    timer: Option<SimTime>,
}

/// Transmitting side of an AM entity. See the module documentation for the state it keeps.
#[derive(Debug)]
pub struct RlcAmTx<S: RlcSdu = Packet> {
    cfg: RlcAmConfig,
    sn: SnSpace,
    control: ControlBits,
    buf: SduBuffer<S>,
    vt_a: u32,
    vt_s: u32,
    /// POLL_SN, PDU_WITHOUT_POLL, BYTE_WITHOUT_POLL and t-PollRetransmit (36.322 §5.2.2).
    poller: Poller,
    /// AMD PDUs with SN in [VT(A), VT(S)); index = SN − VT(A).
    pdus: VecDeque<TxPdu<S>>,
    /// AMD PDUs with byte ranges pending retransmission, in the order they became pending.
    retx: RetxQueue,
    mrw: Option<MrwState>,
    max_retx_reached: bool,
    /// Identity of the last SDU counted in `sdus_discarded`.
    last_discarded_sdu: Option<u64>,
    stats: RlcAmTxStats,
}

impl<S: RlcSdu> RlcAmTx<S> {
    pub fn new(config: RlcAmConfig) -> Result<Self, RlcConfigError> {
        config.validate()?;
        Ok(RlcAmTx {
            cfg: config,
            sn: SnSpace::new(config.sn_bits),
            control: ControlBits::new(config.sn_bits),
            buf: SduBuffer::new(config.tx_buffer),
            vt_a: 0,
            vt_s: 0,
            poller: Poller::new(config.poll_pdu, config.poll_byte, config.t_poll_retransmit),
            pdus: VecDeque::new(),
            retx: RetxQueue::default(),
            mrw: None,
            max_retx_reached: false,
            last_discarded_sdu: None,
            stats: RlcAmTxStats::default(),
        })
    }

    pub fn config(&self) -> &RlcAmConfig {
        &self.cfg
    }

    /// Whether the transmission buffer would take an SDU of `size` bytes after `ahead_sdus`
    /// more of `ahead_bytes` in all.
    pub fn admits_after(&self, ahead_sdus: usize, ahead_bytes: u64, size: u32) -> bool {
        self.buf.admits_after(ahead_sdus, ahead_bytes, size)
    }

    /// Queues an SDU from the upper layer (36.322 §5.1.3.1.1).
    pub fn write_sdu(&mut self, now: SimTime, sdu: S) -> Result<(), RlcSduRefused> {
        self.on_timeout(now);
        match self.buf.push(sdu) {
            Ok(()) => {
                self.stats.sdus_written += 1;
                Ok(())
            }
            Err(e) => {
                self.stats.sdus_refused += 1;
                Err(e)
            }
        }
    }

    /// Data waiting for transmission opportunities (36.322 §4.5).
    pub fn buffer_status(&self) -> BufferStatus {
        let h = &self.cfg.header;
        let retx_header = match self.cfg.pdu_mode {
            PduMode::Flexible => (h.fixed_bytes + h.segment_bytes) as u64,
            PduMode::Fixed { .. } => 0,
        };
        let retx_bytes = match self.cfg.pdu_mode {
            PduMode::Flexible => self.retx.bytes() + self.retx.units() * retx_header,
            PduMode::Fixed { bytes } => self.retx.units() * bytes as u64,
        };
        let status_bytes = match self.mrw {
            Some(m) if m.send => ControlBits::bytes(self.cfg.pdu_mode, self.control.mrw()) as u64,
            _ => 0,
        };
        BufferStatus {
            new_tx_bytes: if self.can_send_new() {
                self.buf.estimated_pdu_bytes(self.cfg.pdu_mode, h)
            } else {
                0
            },
            retx_bytes,
            status_bytes,
        }
    }

    /// SDUs waiting for their first transmission and their bytes.
    pub fn tx_buffer_len(&self) -> (usize, u64) {
        (self.buf.len(), self.buf.bytes())
    }

    /// AMD PDUs sent and not yet acknowledged or discarded: VT(S) − VT(A).
    pub fn unacked_pdus(&self) -> u32 {
        self.sn.offset(self.vt_s, self.vt_a)
    }

    /// Nothing waiting, nothing awaiting acknowledgement and no MRW outstanding: the entity
    /// needs no transmission opportunity and has no timer running.
    pub fn is_idle(&self) -> bool {
        self.buf.is_empty()
            && self.pdus.is_empty()
            && self.mrw.is_none()
            && self.poller.deadline().is_none()
    }

    /// VT(A).
    pub fn vt_a(&self) -> u32 {
        self.vt_a
    }

    /// VT(S).
    pub fn vt_s(&self) -> u32 {
        self.vt_s
    }

    /// RETX_COUNT of the AMD PDU `sn` if it is awaiting acknowledgement and has been considered
    /// for retransmission.
    pub fn retx_count(&self, sn: u32) -> Option<u32> {
        self.index(sn).and_then(|i| self.pdus[i].retx.retx_count())
    }

    /// Latched once an AMD PDU reached maxRetxThreshold in
    /// [`MaxRetxAction::RadioLinkFailure`] mode (the indication of 36.322 §5.2.1). Never set in
    /// [`MaxRetxAction::Discard`] mode, which discards instead; both modes count the PDUs that
    /// reached the threshold in [`RlcAmTxStats::max_retx_reached`].
    pub fn max_retx_reached(&self) -> bool {
        self.max_retx_reached
    }

    pub fn stats(&self) -> RlcAmTxStats {
        self.stats
    }

    /// The next PDU for a transmission opportunity of `grant_bytes`: an MRW, a retransmission,
    /// or a new AMD PDU, in that order of priority (36.322 §5.1.3.1.1). `None` if nothing fits.
    pub fn pull_pdu(&mut self, now: SimTime, grant_bytes: u32) -> Option<RlcPdu<S>> {
        self.on_timeout(now);
        if let Some(m) = self.mrw.as_mut().filter(|m| m.send) {
            let size = ControlBits::bytes(self.cfg.pdu_mode, self.control.mrw());
            if ControlBits::budget(self.cfg.pdu_mode, grant_bytes).is_some_and(|b| b >= size * 8) {
                m.send = false;
                m.timer = Some(now + self.cfg.t_poll_retransmit);
                self.stats.mrw_sent += 1;
                return Some(RlcPdu::Mrw(MrwPdu {
                    sn_mrw: m.sn_mrw,
                    size_bytes: size,
                }));
            }
        }
        if let Some(pdu) = self.build_retx(grant_bytes) {
            self.stats.pdus_retx += 1;
            self.stats.bytes_retx += pdu.size_bytes as u64;
            return Some(RlcPdu::Data(self.set_poll(now, pdu, false)));
        }
        if !self.can_send_new() {
            return None;
        }
        let new = self
            .buf
            .build(self.cfg.pdu_mode, grant_bytes, &self.cfg.header)?;
        let sn = self.vt_s;
        self.vt_s = self.sn.add(self.vt_s, 1);
        self.pdus.push_back(TxPdu {
            data: new.data.clone(),
            header_bytes: new.header_bytes,
            acked: false,
            retx: RetxState::default(),
        });
        self.stats.pdus_new += 1;
        self.stats.bytes_new += new.size_bytes as u64;
        let pdu = AmdPdu {
            sn,
            poll: false,
            segment: None,
            data: new.data,
            header_bytes: new.header_bytes,
            size_bytes: new.size_bytes,
        };
        Some(RlcPdu::Data(self.set_poll(now, pdu, true)))
    }

    /// A STATUS PDU from the peer receiving side (36.322 §5.2.1, §5.2.2.2).
    pub fn on_status(&mut self, now: SimTime, status: &StatusPdu) {
        self.on_timeout(now);
        self.stats.status_received += 1;
        if let (Some(m), Some(ack)) = (self.mrw, status.mrw_ack) {
            if ack == m.sn_mrw {
                self.mrw = None; // 25.322 §11.6.4: MRW_ACK ends the discard signalling.
            }
        }
        let span = self.unacked_pdus();
        if !self.sn.contains(status.ack_sn) || self.sn.offset(status.ack_sn, self.vt_a) > span {
            return; // stale or malformed: ACK_SN outside [VT(A), VT(S)]
        }
        let ack_off = self.sn.offset(status.ack_sn, self.vt_a);
        // §5.2.2.2: a STATUS report that acknowledges POLL_SN positively or negatively stops
        // t-PollRetransmit. POLL_SN below VT(A) was acknowledged or discarded already.
        let poll_off = self.sn.offset(self.poller.poll_sn(), self.vt_a);
        if poll_off < ack_off || poll_off >= self.sn.window() {
            self.poller.stop_timer();
        }
        // Positive acknowledgements for every SN in [VT(A), ACK_SN) not NACKed; NACKed portions
        // are considered for retransmission, once per SN and STATUS PDU.
        let (space, vt_a) = (self.sn, self.vt_a);
        let mut nacks = status
            .nacks
            .iter()
            .filter(|n| space.offset(n.sn, vt_a) < ack_off)
            .peekable();
        let mut discard_through: Option<u32> = None;
        let mut ranges: Vec<&Nack> = Vec::new();
        for i in 0..ack_off {
            let sn = space.add(vt_a, i);
            ranges.clear();
            // NACKs out of SN order (malformed) are skipped.
            while let Some(n) = nacks.next_if(|n| space.offset(n.sn, vt_a) <= i) {
                if n.sn == sn {
                    ranges.push(n);
                }
            }
            if ranges.is_empty() {
                self.ack(i as usize);
            } else if self.consider_nacked(i as usize, &ranges) {
                discard_through = Some(i);
            }
        }
        match discard_through {
            Some(off) => self.discard_through(off),
            None => self.advance_vt_a(),
        }
    }

    /// Earliest timer deadline: t-PollRetransmit or Timer_MRW.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        earliest(self.poller.deadline(), self.mrw.and_then(|m| m.timer))
    }

    /// Runs the timers due at or before `now`, each at its own deadline.
    pub fn on_timeout(&mut self, now: SimTime) {
        if let Some(m) = self.mrw.as_mut() {
            if m.timer.is_some_and(|t| t <= now) {
                m.timer = None;
                m.send = true; // 25.322 §11.6.5: Timer_MRW expiry retransmits the MRW.
            }
        }
        if self.poller.expired(now) {
            self.poll_retransmit_expired();
        }
    }

    /// RLC re-establishment (36.322 §5.4): discard every SDU and AMD PDU, reset the state
    /// variables and stop the timers. Statistics are kept.
    pub fn reestablish(&mut self) {
        self.buf.clear();
        self.pdus.clear();
        self.retx.clear();
        (self.vt_a, self.vt_s) = (0, 0);
        self.poller.reset();
        self.mrw = None;
        self.max_retx_reached = false;
    }

    /// Handover with data forwarding (36.300 §10.1.2.1.2; 36.323 §5.2.1.1 for RLC AM): the SDUs
    /// whose delivery RLC has not confirmed, each once, whole, in the order they were written —
    /// first every SDU with a byte in an AMD PDU in [VT(A), VT(S)), acknowledged or not (PDCP
    /// retransmits from the first SDU not confirmed on, so an SDU acknowledged above a hole is
    /// listed too), then every SDU no PDU has carried yet — after which the entity is
    /// re-established ([`reestablish`](Self::reestablish)). Statistics are kept.
    pub fn take_unconfirmed(&mut self) -> Vec<S> {
        let mut out = Vec::with_capacity(self.pdus.len() + self.buf.len());
        let mut last: Option<u64> = None;
        for e in self.pdus.iter().flat_map(|p| p.data.iter()) {
            let id = e.sdu.sdu_id();
            // New PDUs are cut from the SDUs in order, so the pieces of one SDU follow each other:
            // a piece starts a new entry when it starts its SDU (offset 0) or when it is the
            // first piece seen of an SDU begun below VT(A).
            if e.offset == 0 || last != Some(id) {
                out.push(e.sdu);
            }
            last = Some(id);
        }
        // A head SDU that the last PDU began is listed already.
        let head = self.buf.head().map(|s| s.sdu_id());
        let skip = usize::from(self.buf.head_sent_bytes() > 0 && last.is_some() && last == head);
        let mut waiting = Vec::with_capacity(self.buf.len());
        self.buf.drain_sdus(&mut waiting);
        out.extend(waiting.into_iter().skip(skip));
        self.reestablish();
        out
    }

    fn index(&self, sn: u32) -> Option<usize> {
        let off = self.sn.offset(sn, self.vt_a);
        (self.sn.contains(sn) && (off as usize) < self.pdus.len()).then_some(off as usize)
    }

    /// Whether a new AMD PDU may be sent: VT(S) < VT(MS), with the window anchored at the
    /// receiver's last confirmed lower edge while an MRW is unanswered.
    fn can_send_new(&self) -> bool {
        let base = self.mrw.map_or(self.vt_a, |m| m.window_anchor);
        self.sn.offset(self.vt_s, base) < self.sn.window()
    }

    /// 36.322 §5.2.2.1: decides the poll bit of a PDU about to be delivered to the MAC.
    fn set_poll(&mut self, now: SimTime, mut pdu: AmdPdu<S>, is_new: bool) -> AmdPdu<S> {
        // Both buffers empty (excluding PDUs awaiting acknowledgement), or window stalling;
        // a poll sets POLL_SN = VT(S) − 1.
        let empty = self.buf.is_empty() && self.retx.units() == 0;
        let stalled = !self.can_send_new();
        let poll_sn = self.sn.sub(self.vt_s, 1);
        let bytes = pdu.data.bytes() as u64;
        if self
            .poller
            .on_submit(now, is_new, bytes, empty, stalled, poll_sn)
        {
            pdu.poll = true;
            self.stats.polls += 1;
        }
        pdu
    }

    /// The first pending retransmission that fits `grant_bytes`, whole or as a segment.
    fn build_retx(&mut self, grant_bytes: u32) -> Option<AmdPdu<S>> {
        while let Some(sn) = self.retx.front() {
            let Some(i) = self.index(sn).filter(|&i| self.pdus[i].retx.is_pending()) else {
                self.retx.skip_front();
                continue;
            };
            let h = self.cfg.header;
            let p = &mut self.pdus[i];
            let total = p.data.bytes();
            let (a, b) = p.retx.first_pending()?;
            let pdu = match self.cfg.pdu_mode {
                // Fixed-size PDUs are resent unchanged (no re-segmentation in 25.322); their
                // only pending range is the whole PDU.
                PduMode::Fixed { bytes } => {
                    if grant_bytes < bytes {
                        return None;
                    }
                    AmdPdu {
                        sn,
                        poll: false,
                        segment: None,
                        data: p.data.clone(),
                        header_bytes: p.header_bytes,
                        size_bytes: bytes,
                    }
                }
                PduMode::Flexible => {
                    let whole = p.header_bytes + total;
                    if (a, b) == (0, total) && whole <= grant_bytes {
                        AmdPdu {
                            sn,
                            poll: false,
                            segment: None,
                            data: p.data.clone(),
                            header_bytes: p.header_bytes,
                            size_bytes: whole,
                        }
                    } else {
                        let n = segment_len(&p.data, a, b, grant_bytes, &h);
                        if n == 0 {
                            return None;
                        }
                        let data = p.data.slice(a, a + n);
                        let header_bytes = h.flexible_header_bytes(data.len(), true);
                        let segment = Some(SegmentHeader {
                            so: a,
                            lsf: a + n == total,
                        });
                        AmdPdu {
                            sn,
                            poll: false,
                            segment,
                            data,
                            header_bytes,
                            size_bytes: header_bytes + n,
                        }
                    }
                }
            };
            let sent = match pdu.segment {
                Some(_) => pdu.data.bytes(),
                None => b - a,
            };
            self.retx.sent(&mut self.pdus[i].retx, sent);
            return Some(pdu);
        }
        None
    }

    /// Marks the PDU at index `i` positively acknowledged.
    fn ack(&mut self, i: usize) {
        let p = &mut self.pdus[i];
        if p.acked {
            return;
        }
        p.acked = true;
        self.retx.withdraw(&mut p.retx);
    }

    /// 36.322 §5.2.1 for the NACKs of one SN in one STATUS PDU: considers the NACKed portions
    /// for retransmission, incrementing RETX_COUNT at most once. Returns true when the PDU
    /// must be discarded (maxRetxThreshold reached in Discard mode).
    fn consider_nacked(&mut self, i: usize, nacks: &[&Nack]) -> bool {
        let fixed = matches!(self.cfg.pdu_mode, PduMode::Fixed { .. });
        let total = self.pdus[i].data.bytes();
        let mut ranges: Vec<(u32, u32)> = Vec::with_capacity(nacks.len());
        for n in nacks {
            let (a, b) = match n.so {
                Some(so) if !fixed => (so.start.min(total), so.end.unwrap_or(total).min(total)),
                _ => (0, total),
            };
            if a < b {
                ranges.push((a, b));
            }
        }
        self.consider_for_retx(i, &ranges)
    }

    /// 36.322 §5.2.1 retransmission counting ([`RetxQueue::consider`]); when RETX_COUNT
    /// equals maxRetxThreshold the PDU has been sent maxRetxThreshold + 1 times and needs yet
    /// another transmission.
    fn consider_for_retx(&mut self, i: usize, ranges: &[(u32, u32)]) -> bool {
        let sn = self.sn.add(self.vt_a, i as u32);
        let p = &mut self.pdus[i];
        if p.acked {
            return false;
        }
        let Some(count) = self.retx.consider(&mut p.retx, sn, ranges) else {
            return false;
        };
        if self.cfg.max_retx_threshold == Some(count) {
            self.stats.max_retx_reached += 1;
            return match self.cfg.on_max_retx {
                // The SDU discard of 25.322 §11.6 replaces the indication: the transfer goes
                // on past the discarded data, so upper layers are not told of a failure.
                MaxRetxAction::Discard => true,
                // 36.322 §5.2.1: indicate to upper layers that max retransmission has been
                // reached (RRC declares radio link failure, 36.331 §5.3.11.3).
                MaxRetxAction::RadioLinkFailure => {
                    self.max_retx_reached = true;
                    false
                }
            };
        }
        false
    }

    /// Pops acknowledged PDUs from the front: VT(A) becomes the first SN in [VT(A), VT(S)] not
    /// positively acknowledged (36.322 §5.1.3.1.1).
    fn advance_vt_a(&mut self) {
        while self.pdus.front().is_some_and(|p| p.acked) {
            if let Some(p) = self.pdus.pop_front() {
                self.stats.sdus_acked += p.data.iter().filter(|e| e.is_sdu_end()).count() as u64;
            }
            self.vt_a = self.sn.add(self.vt_a, 1);
        }
    }

    /// Discard mode: give up every unacknowledged AMD PDU up to index `off` and the SDUs they
    /// carry, then signal the receiver with an MRW (25.322 §11.6 SDU discard with explicit
    /// signalling; the discard reaches back to VT(A) because the MRW moves the whole window).
    fn discard_through(&mut self, off: u32) {
        let anchor = self.mrw.map_or(self.vt_a, |m| m.window_anchor);
        for _ in 0..=off {
            let Some(mut p) = self.pdus.pop_front() else {
                break;
            };
            self.vt_a = self.sn.add(self.vt_a, 1);
            if p.acked {
                continue;
            }
            self.stats.pdus_discarded += 1;
            self.retx.withdraw(&mut p.retx);
            for e in p.data.iter() {
                let id = e.sdu.sdu_id();
                if self.last_discarded_sdu != Some(id) {
                    self.stats.sdus_discarded += 1;
                    self.last_discarded_sdu = Some(id);
                }
            }
        }
        self.advance_vt_a();
        self.mrw = Some(MrwState {
            sn_mrw: self.vt_a,
            window_anchor: anchor,
            send: true,
            timer: None,
        });
    }

    /// 36.322 §5.2.2.3: on t-PollRetransmit expiry with nothing new to send (or a stalled
    /// window), VT(S) − 1 (or, if that one is acknowledged, VT(A)) is considered for
    /// retransmission; in any case the next data PDU carries a poll.
    ///
    /// The poll needs a data PDU to travel in: when the PDU considered reaches
    /// maxRetxThreshold in discard mode and is discarded, the next unacknowledged one is
    /// considered instead (§5.2.2.3 allows any not positively acknowledged), until one is
    /// pending or none is left — otherwise the poll would wait for data that never comes
    /// and, with t-PollRetransmit stopped, the transfer would stall.
    fn poll_retransmit_expired(&mut self) {
        self.stats.t_poll_retransmit_expiries += 1;
        let idle = self.buf.is_empty() && self.retx.units() == 0;
        if idle || !self.can_send_new() {
            while let Some(last) = self.pdus.len().checked_sub(1) {
                let i = if self.pdus[last].acked { 0 } else { last };
                let total = self.pdus[i].data.bytes();
                if !self.consider_for_retx(i, &[(0, total)]) {
                    break;
                }
                self.discard_through(i as u32);
                if self.retx.units() > 0 || (!self.buf.is_empty() && self.can_send_new()) {
                    break;
                }
            }
        }
    }
}

/// Bytes of the pending range `[a, b)` of `data` that fit in an AMD PDU segment of at most
/// `grant_bytes`, counting the segment header and one LI per extra element.
fn segment_len<S: RlcSdu>(
    data: &DataField<S>,
    a: u32,
    b: u32,
    grant_bytes: u32,
    h: &super::header::HeaderModel,
) -> u32 {
    let mut taken = 0u32;
    let mut elements = 0usize;
    let mut last_len = 0u32;
    let mut pos = 0u32;
    for e in data.iter() {
        let (start, end) = (pos, pos + e.len);
        pos = end;
        if end <= a {
            continue;
        }
        if start >= b {
            break;
        }
        let piece = end.min(b) - start.max(a);
        if elements > 0 && last_len > h.li_max {
            break;
        }
        let used = h.flexible_header_bytes(elements + 1, true) + taken;
        if used >= grant_bytes {
            break;
        }
        let take = (grant_bytes - used).min(piece);
        taken += take;
        elements += 1;
        last_len = take;
        if take < piece {
            break;
        }
    }
    taken
}
