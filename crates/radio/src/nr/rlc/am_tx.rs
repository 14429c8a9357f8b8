//! The transmitting side of an NR AM RLC entity (TS 38.322 §5.2.3.1, §5.3.3, §5.4).
//!
//! State variables (§7.1), compared modulo 2^sn with TX_Next_Ack as the modulus base:
//! * TX_Next_Ack — the SN of the next RLC SDU for which a positive acknowledgement is to be
//!   received in sequence, the lower edge of the window [TX_Next_Ack, TX_Next_Ack +
//!   AM_Window_Size);
//! * TX_Next — the SN assigned to the next new RLC SDU; it moves on once the PDU with an SDU's
//!   last byte has been built, so every segment of an SDU carries the SDU's SN;
//! * POLL_SN — the highest SN submitted to the lower layer when the last poll was sent;
//! * PDU_WITHOUT_POLL, BYTE_WITHOUT_POLL — counters for pollPDU and pollByte (§7.1);
//! * RETX_COUNT — per RLC SDU.
//!
//! Every SDU in [TX_Next_Ack, TX_Next] that has been (partly) submitted keeps its value until
//! positively acknowledged. Byte ranges a NACK (or t-PollRetransmit) asks for are "pending for
//! retransmission"; a transmission opportunity sends them whole if they fit, else as a segment
//! cut to the grant with SO (§5.3.2 re-segmentation). Without concatenation one PDU carries
//! bytes of one SDU only. The pending ranges, RETX_COUNT and the order of retransmissions are
//! LTE's ([`RetxQueue`]), and so is polling ([`Poller`]).

use std::collections::VecDeque;

use celltcp_engine::SimTime;
use celltcp_net::packet::Packet;

use super::am::{NrRlcAmConfig, NrRlcAmTxEvent, NrRlcAmTxStats};
use super::pdu::{amd_header_bytes, NrAmdPdu, NrStatusPdu, SO_BYTES};
use crate::rlc::poll::Poller;
use crate::rlc::retx::{RetxQueue, RetxState};
use crate::rlc::sdu_buffer::SduBuffer;
use crate::rlc::sn::SnSpace;
use crate::rlc::{BufferStatus, DataElement, RlcConfigError, RlcSdu, RlcSduRefused};

/// NACKed byte ranges `[a, b)` by index from TX_Next_Ack, in SN order.
type NackedRanges = Vec<(usize, (u32, u32))>;

/// One submitted RLC SDU awaiting acknowledgement.
#[derive(Debug)]
struct TxSdu<S> {
    sdu: S,
    /// Bytes submitted so far: less than the SDU while its first transmission is segmented.
    submitted: u32,
    acked: bool,
    /// RETX_COUNT and the byte ranges pending retransmission (§5.3.2).
    retx: RetxState,
}

/// Transmitting side of an NR AM entity. See the module documentation for the state it keeps.
#[derive(Debug)]
pub struct NrRlcAmTx<S: RlcSdu = Packet> {
    cfg: NrRlcAmConfig,
    sn: SnSpace,
    /// The transmission buffer: SDUs no PDU has carried yet, and the unsent rest of the one
    /// being segmented.
    buf: SduBuffer<S>,
    tx_next_ack: u32,
    tx_next: u32,
    /// POLL_SN, PDU_WITHOUT_POLL, BYTE_WITHOUT_POLL and t-PollRetransmit (§5.3.3).
    poller: Poller,
    /// Submitted SDUs from TX_Next_Ack on; index = SN − TX_Next_Ack.
    sdus: VecDeque<TxSdu<S>>,
    /// SDUs with bytes pending retransmission, in the order they became pending.
    retx: RetxQueue,
    events: VecDeque<NrRlcAmTxEvent>,
    /// An SDU reached maxRetxThreshold since the last re-establishment (the indication of
    /// §5.3.2, latched for RRC's radio link failure, TS 38.331 §5.3.10.3).
    max_retx_reached: bool,
    stats: NrRlcAmTxStats,
}

impl<S: RlcSdu> NrRlcAmTx<S> {
    pub fn new(config: NrRlcAmConfig) -> Result<Self, RlcConfigError> {
        config.validate()?;
        Ok(NrRlcAmTx {
            cfg: config,
            sn: SnSpace::new(config.sn_length.bits()),
            buf: SduBuffer::new(config.tx_buffer),
            tx_next_ack: 0,
            tx_next: 0,
            poller: Poller::new(config.poll_pdu, config.poll_byte, config.t_poll_retransmit),
            sdus: VecDeque::new(),
            retx: RetxQueue::default(),
            events: VecDeque::new(),
            max_retx_reached: false,
            stats: NrRlcAmTxStats::default(),
        })
    }

    /// A transmitting side whose state variables start at `sn` instead of 0, to test the SN
    /// wrap without sending 2^sn SDUs first.
    #[cfg(test)]
    pub(crate) fn starting_at(config: NrRlcAmConfig, sn: u32) -> Self {
        let mut tx = Self::new(config).expect("valid test configuration");
        (tx.tx_next_ack, tx.tx_next) = (sn, sn);
        tx.poller.set_poll_sn(sn);
        tx
    }

    /// TX_Next_Ack.
    pub fn tx_next_ack(&self) -> u32 {
        self.tx_next_ack
    }
    /// TX_Next.
    pub fn tx_next(&self) -> u32 {
        self.tx_next
    }
    /// POLL_SN.
    pub fn poll_sn(&self) -> u32 {
        self.poller.poll_sn()
    }
    pub fn stats(&self) -> NrRlcAmTxStats {
        self.stats
    }

    /// The next indication to the upper layer, oldest first.
    pub fn pop_event(&mut self) -> Option<NrRlcAmTxEvent> {
        self.events.pop_front()
    }

    /// Forgets the indications not taken with [`pop_event`](Self::pop_event), for an upper
    /// layer that reads the delivery from the STATUS PDUs' effect instead (the cell's bearer)
    /// and the failure from [`max_retx_reached`](Self::max_retx_reached).
    pub fn clear_events(&mut self) {
        self.events.clear();
    }

    /// Nothing waits for transmission or acknowledgement.
    pub fn is_idle(&self) -> bool {
        self.buf.is_empty() && self.sdus.is_empty()
    }

    /// Latched once an SDU reached maxRetxThreshold (§5.3.2 "indicate to upper layers that
    /// max retransmission has been reached"), until [`reestablish`](Self::reestablish). NR
    /// has no discard at the threshold: the entity keeps retransmitting and RRC declares
    /// radio link failure.
    pub fn max_retx_reached(&self) -> bool {
        self.max_retx_reached
    }

    /// Whether the transmission buffer would take an SDU of `size` bytes after `ahead_sdus`
    /// more of `ahead_bytes` in all.
    pub fn admits_after(&self, ahead_sdus: usize, ahead_bytes: u64, size: u32) -> bool {
        self.buf.admits_after(ahead_sdus, ahead_bytes, size)
    }

    /// SDUs waiting for their first transmission and their bytes.
    pub fn tx_buffer_len(&self) -> (usize, u64) {
        (self.buf.len(), self.buf.bytes())
    }

    /// RLC re-establishment (§5.1.2: "discard all RLC SDUs, RLC SDU segments, and RLC PDUs,
    /// if any; stop and reset all timers; reset all state variables to their initial
    /// values"). Statistics are kept.
    pub fn reestablish(&mut self) {
        self.buf.clear();
        self.sdus.clear();
        self.retx.clear();
        (self.tx_next_ack, self.tx_next) = (0, 0);
        self.poller.reset();
        self.events.clear();
        self.max_retx_reached = false;
    }

    /// Handover with data forwarding (TS 38.300 §9.2.3.2.2 data forwarding; TS 38.323
    /// §5.1.2 for AM DRBs: the PDCP SDUs "from the first PDCP SDU for which the successful
    /// delivery of the corresponding PDCP Data PDU has not been confirmed by lower layers"):
    /// every SDU from TX_Next_Ack on, acknowledged or not, each once, whole, in SN order, then
    /// every SDU no PDU has carried yet — after which the entity is re-established.
    /// Statistics are kept.
    pub fn take_unconfirmed(&mut self) -> Vec<S> {
        let mut out = Vec::with_capacity(self.sdus.len() + self.buf.len());
        out.extend(self.sdus.iter().map(|p| p.sdu));
        // The head SDU being segmented has its entry in `sdus` already.
        let skip = usize::from(self.segmenting());
        let mut waiting = Vec::with_capacity(self.buf.len());
        self.buf.drain_sdus(&mut waiting);
        out.extend(waiting.into_iter().skip(skip));
        self.reestablish();
        out
    }

    /// An SDU from the upper layer (PDCP), queued for its first transmission.
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

    /// The upper layer's discard of an SDU (§5.4): done only "if neither the RLC SDU nor a
    /// segment thereof has been submitted to the lower layers"; returns whether it was.
    pub fn discard_sdu(&mut self, sdu_id: u64) -> bool {
        let discarded = self.buf.discard_waiting(sdu_id);
        self.stats.sdus_discarded += u64::from(discarded);
        discarded
    }

    /// Data waiting, with the AMD header of each SDU or pending retransmission (the
    /// retransmissions' SO counted, as a segment is what a NACK usually asks for).
    pub fn buffer_status(&self) -> BufferStatus {
        let base = self.cfg.sn_length.amd_header_bytes() as u64;
        let mut new_tx = self.buf.bytes() + self.buf.len() as u64 * base;
        if self.buf.head_sent_bytes() > 0 {
            new_tx += SO_BYTES as u64;
        }
        BufferStatus {
            new_tx_bytes: new_tx,
            retx_bytes: self.retx.bytes() + self.retx.units() * (base + SO_BYTES as u64),
            status_bytes: 0,
        }
    }

    /// The next AMD PDU for a transmission opportunity of `grant_bytes`: a retransmission
    /// first (§5.2.3.1.1), else new data; `None` if the grant leaves no room for a data
    /// byte or nothing may be sent.
    pub fn pull_pdu(&mut self, now: SimTime, grant_bytes: u32) -> Option<NrAmdPdu<S>> {
        self.on_timeout(now);
        if let Some(pdu) = self.build_retx(grant_bytes) {
            self.stats.pdus_retx += 1;
            self.stats.bytes_retx += pdu.size_bytes() as u64;
            return Some(self.set_poll(now, pdu, false));
        }
        let pdu = self.build_new(grant_bytes)?;
        self.stats.pdus_new += 1;
        self.stats.bytes_new += pdu.size_bytes() as u64;
        Some(self.set_poll(now, pdu, true))
    }

    /// A STATUS PDU from the peer receiving side (§5.2.3.1.1, §5.3.2, §5.3.3.3). A STATUS
    /// whose ACK_SN lies outside [TX_Next_Ack, highest SN submitted + 1] — one overtaken by a
    /// newer STATUS, or a malformed one — or with a NACK_SN at or above ACK_SN is ignored
    /// (counted in `status_invalid`); NACKs of SDUs below TX_Next_Ack are skipped.
    pub fn on_status(&mut self, now: SimTime, status: &NrStatusPdu) {
        self.on_timeout(now);
        self.stats.status_received += 1;
        let Some((ack_off, nacked)) = self.read_status(status) else {
            self.stats.status_invalid += 1;
            return;
        };
        // §5.3.3.3: a positive or negative acknowledgement for POLL_SN stops t-PollRetransmit.
        if self.off(self.poller.poll_sn()) < ack_off {
            self.poller.stop_timer();
        }
        let mut k = 0;
        for i in 0..ack_off as usize {
            let start = k;
            while nacked.get(k).is_some_and(|n| n.0 == i) {
                k += 1;
            }
            if k > start {
                let ranges: Vec<(u32, u32)> = nacked[start..k].iter().map(|n| n.1).collect();
                self.consider_for_retx(i, &ranges);
            } else {
                self.ack(i);
            }
        }
        self.advance_tx_next_ack();
    }

    /// t-PollRetransmit deadline while running.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.poller.deadline()
    }

    /// Runs t-PollRetransmit if due at or before `now`.
    pub fn on_timeout(&mut self, now: SimTime) {
        if self.poller.expired(now) {
            self.poll_retransmit_expired();
        }
    }

    /// Offset of `sn` from TX_Next_Ack, the modulus base.
    #[inline]
    fn off(&self, sn: u32) -> u32 {
        self.sn.offset(sn, self.tx_next_ack)
    }

    fn index(&self, sn: u32) -> Option<usize> {
        let off = self.off(sn) as usize;
        (self.sn.contains(sn) && off < self.sdus.len()).then_some(off)
    }

    /// A new SDU may get an SN: TX_Next inside the transmitting window.
    fn can_send_new(&self) -> bool {
        self.off(self.tx_next) < self.sn.window()
    }

    /// The SDU at TX_Next is being segmented for its first transmission.
    fn segmenting(&self) -> bool {
        self.buf.head_sent_bytes() > 0
    }

    /// ACK_SN's offset and the NACKed byte ranges `(index, [a, b))` in SN order, clipped to the
    /// submitted bytes, or `None` if the STATUS does not fit what was sent.
    fn read_status(&self, status: &NrStatusPdu) -> Option<(u32, NackedRanges)> {
        let ack_off = self.off(status.ack_sn);
        if !self.sn.contains(status.ack_sn) || ack_off as usize > self.sdus.len() {
            return None;
        }
        let mut nacked = Vec::new();
        for n in &status.nacks {
            let count = n.sdus();
            for j in 0..count {
                let off = self.off(self.sn.add(n.sn, j));
                if off >= self.sn.window() {
                    continue; // below TX_Next_Ack: acknowledged already
                }
                if off >= ack_off {
                    return None;
                }
                let p = &self.sdus[off as usize];
                let a = if j == 0 {
                    n.so.map_or(0, |s| s.start)
                } else {
                    0
                };
                let end = if j + 1 == count {
                    n.so.and_then(|s| s.end)
                } else {
                    None
                };
                let b = end.unwrap_or(p.submitted).min(p.submitted);
                if a < b {
                    nacked.push((off as usize, (a, b)));
                }
            }
        }
        Some((ack_off, nacked))
    }

    /// Bytes of a new SDU (or of the rest of the one being segmented) for a grant (§5.2.3.1.1).
    fn build_new(&mut self, grant_bytes: u32) -> Option<NrAmdPdu<S>> {
        if !self.segmenting() && !self.can_send_new() {
            return None;
        }
        let remaining = self.buf.head_remaining()?;
        let offset = self.buf.head_sent_bytes();
        let header = amd_header_bytes(self.cfg.sn_length, offset);
        if grant_bytes <= header {
            return None;
        }
        let e = self.buf.take_from_head(remaining.min(grant_bytes - header));
        if offset == 0 {
            self.sdus.push_back(TxSdu {
                sdu: e.sdu,
                submitted: 0,
                acked: false,
                retx: RetxState::default(),
            });
        }
        if let Some(last) = self.sdus.back_mut() {
            last.submitted += e.len;
        }
        let sn = self.tx_next;
        if e.is_sdu_end() {
            self.tx_next = self.sn.add(self.tx_next, 1);
        }
        Some(self.amd(sn, e))
    }

    fn amd(&self, sn: u32, data: DataElement<S>) -> NrAmdPdu<S> {
        NrAmdPdu {
            sn,
            poll: false,
            data,
            sn_length: self.cfg.sn_length,
        }
    }

    /// The first pending retransmission, whole or re-segmented to fit the grant (§5.3.2:
    /// "if needed, segment the RLC SDU or the RLC SDU segment", setting SI and SO).
    fn build_retx(&mut self, grant_bytes: u32) -> Option<NrAmdPdu<S>> {
        while let Some(sn) = self.retx.front() {
            let Some(i) = self.index(sn).filter(|&i| self.sdus[i].retx.is_pending()) else {
                self.retx.skip_front();
                continue;
            };
            let (a, b) = self.sdus[i].retx.first_pending()?;
            let header = amd_header_bytes(self.cfg.sn_length, a);
            if grant_bytes <= header {
                return None;
            }
            let n = (b - a).min(grant_bytes - header);
            let p = &mut self.sdus[i];
            let e = DataElement {
                sdu: p.sdu,
                offset: a,
                len: n,
            };
            self.retx.sent(&mut p.retx, n);
            return Some(self.amd(sn, e));
        }
        None
    }

    /// §5.3.3.2: the P field of a PDU about to be submitted, and the poll's side effects.
    fn set_poll(&mut self, now: SimTime, mut pdu: NrAmdPdu<S>, is_new: bool) -> NrAmdPdu<S> {
        // Both buffers empty after this PDU (excluding SDUs awaiting acknowledgement), or no
        // new SDU can be transmitted (window stalling).
        let empty = self.buf.is_empty() && self.retx.units() == 0;
        let stalled = !self.can_send_new();
        // POLL_SN: "the highest SN of the AMD PDU among the AMD PDUs submitted to lower layer"
        // (the PDU being submitted holds an SDU in `sdus`, so it is not empty).
        let poll_sn = self.sn.add(self.tx_next_ack, self.sdus.len() as u32 - 1);
        let bytes = pdu.data.len as u64;
        if self
            .poller
            .on_submit(now, is_new, bytes, empty, stalled, poll_sn)
        {
            pdu.poll = true;
            self.stats.polls += 1;
        }
        pdu
    }

    /// A positive acknowledgement of the SDU at index `i` (§5.2.3.1.1): the upper layer is
    /// told of its delivery. An SDU still being segmented cannot have been received whole and
    /// is left alone.
    fn ack(&mut self, i: usize) {
        let sn = self.sn.add(self.tx_next_ack, i as u32);
        let p = &mut self.sdus[i];
        if p.acked || p.submitted < p.sdu.size_bytes() {
            return;
        }
        p.acked = true;
        self.retx.withdraw(&mut p.retx);
        self.stats.sdus_delivered += 1;
        self.events.push_back(NrRlcAmTxEvent::Delivered {
            sn,
            sdu_id: p.sdu.sdu_id(),
        });
    }

    /// §5.3.2: the NACKed `ranges` of one SDU in one STATUS PDU are considered for
    /// retransmission, RETX_COUNT counted by [`RetxQueue::consider`]; reaching
    /// maxRetxThreshold is indicated to the upper layer.
    fn consider_for_retx(&mut self, i: usize, ranges: &[(u32, u32)]) {
        let sn = self.sn.add(self.tx_next_ack, i as u32);
        let p = &mut self.sdus[i];
        if p.acked {
            return;
        }
        let Some(count) = self.retx.consider(&mut p.retx, sn, ranges) else {
            return;
        };
        let sdu_id = p.sdu.sdu_id();
        if self.cfg.max_retx_threshold == Some(count) {
            self.stats.max_retx_reached += 1;
            self.max_retx_reached = true;
            self.events.push_back(NrRlcAmTxEvent::MaxRetxReached {
                sn,
                sdu_id,
                retx_count: count,
            });
        }
    }

    /// TX_Next_Ack becomes the smallest SN not positively acknowledged (§5.2.3.1.1).
    fn advance_tx_next_ack(&mut self) {
        while self.sdus.front().is_some_and(|p| p.acked) {
            self.sdus.pop_front();
            self.tx_next_ack = self.sn.add(self.tx_next_ack, 1);
        }
    }

    /// §5.3.3.4: with both buffers empty or the window stalled, the SDU with the highest SN
    /// submitted (or, if that one is acknowledged, the first not acknowledged) is considered
    /// for retransmission; in any case the next AMD PDU carries a poll.
    fn poll_retransmit_expired(&mut self) {
        self.stats.t_poll_retransmit_expiries += 1;
        let idle = self.buf.is_empty() && self.retx.units() == 0;
        if idle || !self.can_send_new() {
            if let Some(last) = self.sdus.len().checked_sub(1) {
                let i = if self.sdus[last].acked { 0 } else { last };
                let submitted = self.sdus[i].submitted;
                self.consider_for_retx(i, &[(0, submitted)]);
            }
        }
    }
}
