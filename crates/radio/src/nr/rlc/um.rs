//! NR RLC unacknowledged mode (TS 38.322 §4.2.1.2, §5.2.2): segmentation with SO at the
//! transmitting side — a complete SDU travels without SN, only segments carry one —, and at
//! the receiving side reassembly with t-Reassembly and discard of SDUs whose segments do not
//! all arrive. No retransmission, no reordering: a complete SDU is delivered on arrival.
//!
//! Receiving state variables (§7.1), compared modulo 2^sn with RX_Next_Highest −
//! UM_Window_Size as the modulus base:
//! * RX_Next_Reassembly — the earliest SN still considered for reassembly;
//! * RX_Timer_Trigger — the SN following the one that triggered t-Reassembly;
//! * RX_Next_Highest — the SN following the highest SN among received UMD PDUs, the upper edge
//!   of the reassembly window [RX_Next_Highest − UM_Window_Size, RX_Next_Highest).

use std::collections::VecDeque;

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::packet::Packet;

use super::pdu::{umd_header_bytes, NrUmdPdu, SegmentationInfo, UmSnLength, SO_BYTES};
use super::segments::SduSegments;
use crate::rlc::sdu_buffer::SduBuffer;
use crate::rlc::sn::SnSpace;
use crate::rlc::{BufferLimit, BufferStatus, DataElement, RlcConfigError, RlcSdu, RlcSduRefused};

/// Configuration of an NR UM entity (TS 38.331 `RLC-Config` `um-Bi-Directional`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NrRlcUmConfig {
    /// sn-FieldLength (`SN-FieldLengthUM`): 6 or 12 bits.
    pub sn_length: UmSnLength,
    /// t-Reassembly (§7.3).
    pub t_reassembly: SimDuration,
    /// Limit on SDUs waiting for transmission.
    pub tx_buffer: BufferLimit,
}

impl Default for NrRlcUmConfig {
    /// size12 and t-Reassembly ms35, the value of 38.331's default RLC configuration
    /// (§9.2.1); 38.331 has no UM default, the network configures it.
    fn default() -> Self {
        NrRlcUmConfig {
            sn_length: UmSnLength::Bits12,
            t_reassembly: SimDuration::from_ms(35),
            tx_buffer: BufferLimit::Unlimited,
        }
    }
}

impl NrRlcUmConfig {
    pub fn validate(&self) -> Result<(), RlcConfigError> {
        if let BufferLimit::Bytes(0) | BufferLimit::Sdus(0) = self.tx_buffer {
            return Err(RlcConfigError::invalid(
                "nr_um.tx_buffer",
                0,
                "a positive limit",
            ));
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NrRlcUmTxStats {
    pub sdus_written: u64,
    pub sdus_refused: u64,
    pub sdus_discarded: u64,
    pub pdus: u64,
    pub bytes: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NrRlcUmRxStats {
    pub pdus_received: u64,
    /// Discarded: SN below RX_Next_Reassembly, or every byte seen before.
    pub pdus_discarded: u64,
    pub sdus_delivered: u64,
    /// SDUs with some segments received but given up (window moved, t-Reassembly expired).
    pub sdus_dropped: u64,
    pub t_reassembly_expiries: u64,
}

/// Transmitting UM entity (§5.2.2.1). TX_Next is the SN of the next SDU to be segmented.
#[derive(Debug)]
pub struct NrRlcUmTx<S: RlcSdu = Packet> {
    cfg: NrRlcUmConfig,
    sn: SnSpace,
    buf: SduBuffer<S>,
    tx_next: u32,
    stats: NrRlcUmTxStats,
}

impl<S: RlcSdu> NrRlcUmTx<S> {
    pub fn new(config: NrRlcUmConfig) -> Result<Self, RlcConfigError> {
        config.validate()?;
        Ok(NrRlcUmTx {
            cfg: config,
            sn: SnSpace::new(config.sn_length.bits()),
            buf: SduBuffer::new(config.tx_buffer),
            tx_next: 0,
            stats: NrRlcUmTxStats::default(),
        })
    }

    /// TX_Next.
    pub fn tx_next(&self) -> u32 {
        self.tx_next
    }
    pub fn stats(&self) -> NrRlcUmTxStats {
        self.stats
    }

    pub fn write_sdu(&mut self, _now: SimTime, sdu: S) -> Result<(), RlcSduRefused> {
        let r = self.buf.push(sdu);
        match r {
            Ok(()) => self.stats.sdus_written += 1,
            Err(_) => self.stats.sdus_refused += 1,
        }
        r
    }

    /// Whether the transmission buffer would take an SDU of `size` bytes after `ahead_sdus`
    /// more of `ahead_bytes` in all.
    pub fn admits_after(&self, ahead_sdus: usize, ahead_bytes: u64, size: u32) -> bool {
        self.buf.admits_after(ahead_sdus, ahead_bytes, size)
    }

    /// Handover: the SDUs not yet entirely transmitted, the one being segmented whole (TS
    /// 38.323 §5.1.2 for UM DRBs: the PDCP SDUs "which have not yet been transmitted" by the
    /// lower layers are handled as new), after which the entity is re-established.
    pub fn take_untransmitted(&mut self) -> Vec<S> {
        let mut out = Vec::with_capacity(self.buf.len());
        self.buf.drain_sdus(&mut out);
        self.reestablish();
        out
    }

    /// RLC re-establishment (§5.1.2): discard every SDU and reset TX_Next to 0. Statistics
    /// are kept.
    pub fn reestablish(&mut self) {
        self.buf.clear();
        self.tx_next = 0;
    }

    /// The upper layer's discard (§5.4), done if no segment of the SDU was submitted.
    pub fn discard_sdu(&mut self, sdu_id: u64) -> bool {
        let discarded = self.buf.discard_waiting(sdu_id);
        self.stats.sdus_discarded += u64::from(discarded);
        discarded
    }

    /// Data waiting with a complete-SDU header each (and SN + SO for a partly sent head).
    pub fn buffer_status(&self) -> BufferStatus {
        let mut new_tx = self.buf.bytes() + self.buf.len() as u64;
        if self.buf.head_sent_bytes() > 0 {
            new_tx += (self.cfg.sn_length.segment_header_bytes() + SO_BYTES - 1) as u64;
        }
        BufferStatus {
            new_tx_bytes: new_tx,
            ..BufferStatus::default()
        }
    }

    /// The next UMD PDU for a grant (§5.2.2.1): the head SDU whole without SN if it fits, else
    /// a segment with SN = TX_Next (and SO unless it is the first); TX_Next moves on with the
    /// SDU's last segment.
    pub fn pull_pdu(&mut self, _now: SimTime, grant_bytes: u32) -> Option<NrUmdPdu<S>> {
        let remaining = self.buf.head_remaining()?;
        let offset = self.buf.head_sent_bytes();
        let whole = offset == 0 && remaining + super::pdu::UMD_COMPLETE_HEADER_BYTES <= grant_bytes;
        let header = if whole {
            super::pdu::UMD_COMPLETE_HEADER_BYTES
        } else {
            let si = if offset == 0 {
                SegmentationInfo::First
            } else {
                SegmentationInfo::Middle
            };
            umd_header_bytes(self.cfg.sn_length, si)
        };
        if grant_bytes <= header {
            return None;
        }
        let e = self.buf.take_from_head(remaining.min(grant_bytes - header));
        let sn = (!whole).then_some(self.tx_next);
        if !whole && e.is_sdu_end() {
            self.tx_next = self.sn.add(self.tx_next, 1);
        }
        let pdu = NrUmdPdu {
            sn,
            data: e,
            sn_length: self.cfg.sn_length,
        };
        self.stats.pdus += 1;
        self.stats.bytes += pdu.size_bytes() as u64;
        Some(pdu)
    }
}

#[derive(Debug)]
enum UmSlot {
    Missing,
    Partial(SduSegments),
    Delivered,
}

/// Receiving UM entity (§5.2.2.2). See the module documentation for the state it keeps.
#[derive(Debug)]
pub struct NrRlcUmRx<S: RlcSdu = Packet> {
    cfg: NrRlcUmConfig,
    sn: SnSpace,
    rx_next_reassembly: u32,
    rx_timer_trigger: u32,
    rx_next_highest: u32,
    /// SNs [RX_Next_Reassembly, RX_Next_Highest); index = SN − RX_Next_Reassembly.
    buf: VecDeque<UmSlot>,
    ready: VecDeque<S>,
    t_reassembly: Option<SimTime>,
    stats: NrRlcUmRxStats,
}

impl<S: RlcSdu> NrRlcUmRx<S> {
    pub fn new(config: NrRlcUmConfig) -> Result<Self, RlcConfigError> {
        config.validate()?;
        Ok(NrRlcUmRx {
            cfg: config,
            sn: SnSpace::new(config.sn_length.bits()),
            rx_next_reassembly: 0,
            rx_timer_trigger: 0,
            rx_next_highest: 0,
            buf: VecDeque::new(),
            ready: VecDeque::new(),
            t_reassembly: None,
            stats: NrRlcUmRxStats::default(),
        })
    }

    /// RX_Next_Reassembly.
    pub fn rx_next_reassembly(&self) -> u32 {
        self.rx_next_reassembly
    }
    /// RX_Next_Highest.
    pub fn rx_next_highest(&self) -> u32 {
        self.rx_next_highest
    }
    pub fn stats(&self) -> NrRlcUmRxStats {
        self.stats
    }
    pub fn take_sdu(&mut self) -> Option<S> {
        self.ready.pop_front()
    }
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.t_reassembly
    }

    /// RLC re-establishment (§5.1.2): the partly received SDUs are discarded (counted in
    /// `sdus_dropped`), t-Reassembly stopped, the state variables reset. SDUs delivered and
    /// not yet taken stay available.
    pub fn reestablish(&mut self) {
        let n = self.buf.len();
        self.drop_front(n);
        self.t_reassembly = None;
        (
            self.rx_next_reassembly,
            self.rx_timer_trigger,
            self.rx_next_highest,
        ) = (0, 0, 0);
    }

    pub fn on_timeout(&mut self, now: SimTime) {
        if let Some(t) = self.t_reassembly.filter(|&t| t <= now) {
            self.t_reassembly = None;
            self.t_reassembly_expired(t);
        }
    }

    /// A UMD PDU (§5.2.2.2.2): a complete SDU (no SN) is delivered at once; a segment is
    /// discarded if its SN is in [RX_Next_Highest − UM_Window_Size, RX_Next_Reassembly), else
    /// placed in the reception buffer.
    pub fn on_pdu(&mut self, now: SimTime, pdu: NrUmdPdu<S>) {
        self.on_timeout(now);
        self.stats.pdus_received += 1;
        let Some(x) = pdu.sn else {
            if pdu.si() == SegmentationInfo::Complete {
                self.deliver(pdu.data.sdu);
            } else {
                self.stats.pdus_discarded += 1; // a segment without SN is malformed
            }
            return;
        };
        if !self.sn.contains(x) || self.below_reassembly(x) {
            self.stats.pdus_discarded += 1;
            return;
        }
        if self.base_off(x) >= self.sn.window() {
            self.move_window(x);
        }
        if self.place(x, &pdu.data) && x == self.rx_next_reassembly {
            self.skip_delivered();
        }
        self.update_t_reassembly(now);
    }

    /// The modulus base RX_Next_Highest − UM_Window_Size.
    fn base(&self) -> u32 {
        self.sn.sub(self.rx_next_highest, self.sn.window())
    }

    fn base_off(&self, sn: u32) -> u32 {
        self.sn.offset(sn, self.base())
    }

    fn below_reassembly(&self, x: u32) -> bool {
        self.base_off(x) < self.base_off(self.rx_next_reassembly)
    }

    fn deliver(&mut self, sdu: S) {
        self.ready.push_back(sdu);
        self.stats.sdus_delivered += 1;
    }

    /// Stores `e` under SN `x`; true when this completed (and delivered) the SDU (§5.2.2.2.3).
    fn place(&mut self, x: u32, e: &DataElement<S>) -> bool {
        let i = self.sn.offset(x, self.rx_next_reassembly) as usize;
        if self.buf.len() <= i {
            self.buf.resize_with(i + 1, || UmSlot::Missing);
        }
        let slot = &mut self.buf[i];
        let (complete, duplicate) = match slot {
            UmSlot::Delivered => (false, true),
            UmSlot::Missing => {
                *slot = UmSlot::Partial(SduSegments::new(e));
                (false, false)
            }
            UmSlot::Partial(s) => {
                let new = s.insert(e);
                (new && s.is_complete(), !new)
            }
        };
        if complete {
            *slot = UmSlot::Delivered;
            self.deliver(e.sdu);
        }
        self.stats.pdus_discarded += u64::from(duplicate);
        complete
    }

    /// §5.2.2.2.3 "else if x falls outside of the reassembly window": RX_Next_Highest = x + 1,
    /// segments now outside the window are discarded, and RX_Next_Reassembly moves to the first
    /// SN ≥ RX_Next_Highest − UM_Window_Size not delivered.
    fn move_window(&mut self, x: u32) {
        self.rx_next_highest = self.sn.add(x, 1);
        let base = self.base();
        let behind = self.sn.offset(base, self.rx_next_reassembly);
        // A negative distance (RX_Next_Reassembly already inside) shows as an offset above the
        // window.
        if behind > 0 && behind <= self.sn.window() {
            self.drop_front(behind as usize);
            self.rx_next_reassembly = base;
            self.skip_delivered();
        }
    }

    /// Removes the first `n` SNs of the buffer, counting partly received SDUs as dropped.
    fn drop_front(&mut self, n: usize) {
        for slot in self.buf.drain(..n.min(self.buf.len())) {
            if matches!(slot, UmSlot::Partial(_)) {
                self.stats.sdus_dropped += 1;
            }
        }
    }

    /// RX_Next_Reassembly moves over delivered SNs.
    fn skip_delivered(&mut self) {
        while matches!(self.buf.front(), Some(UmSlot::Delivered)) {
            self.buf.pop_front();
            self.rx_next_reassembly = self.sn.add(self.rx_next_reassembly, 1);
        }
    }

    /// "RX_Next_Highest > RX_Next_Reassembly + 1; or RX_Next_Highest = RX_Next_Reassembly + 1
    /// and there is at least one missing byte segment of the SDU with SN = RX_Next_Reassembly
    /// before the last byte of all received segments" (§5.2.2.2.3, §5.2.2.2.4).
    fn reassembly_pending(&self) -> bool {
        let d = self
            .sn
            .offset(self.rx_next_highest, self.rx_next_reassembly);
        let gap =
            matches!(self.buf.front(), Some(UmSlot::Partial(s)) if s.has_gap_before_last_byte());
        (d > 1 && d <= self.sn.window()) || (d == 1 && gap)
    }

    fn update_t_reassembly(&mut self, now: SimTime) {
        if self.t_reassembly.is_some() {
            let trig = self.base_off(self.rx_timer_trigger);
            let resolved = trig <= self.base_off(self.rx_next_reassembly)
                || trig > self.sn.window()
                || (self
                    .sn
                    .offset(self.rx_next_highest, self.rx_next_reassembly)
                    == 1
                    && !self.reassembly_pending());
            if resolved {
                self.t_reassembly = None;
            }
        }
        if self.t_reassembly.is_none() && self.reassembly_pending() {
            self.t_reassembly = Some(now + self.cfg.t_reassembly);
            self.rx_timer_trigger = self.rx_next_highest;
        }
    }

    /// §5.2.2.2.4 at the expiry instant `at`: RX_Next_Reassembly moves to the first SN ≥
    /// RX_Timer_Trigger not reassembled, discarding every segment below it.
    fn t_reassembly_expired(&mut self, at: SimTime) {
        self.stats.t_reassembly_expiries += 1;
        let skip = self
            .sn
            .offset(self.rx_timer_trigger, self.rx_next_reassembly);
        self.drop_front(skip as usize);
        self.rx_next_reassembly = self.rx_timer_trigger;
        self.skip_delivered();
        if self.reassembly_pending() {
            self.t_reassembly = Some(at + self.cfg.t_reassembly);
            self.rx_timer_trigger = self.rx_next_highest;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rlc::testkit::sdu;

    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_ms(x)
    }

    fn uids(rx: &mut NrRlcUmRx) -> Vec<u64> {
        std::iter::from_fn(|| rx.take_sdu())
            .map(|p| p.uid)
            .collect()
    }

    /// §5.2.2.1 and §6.2.2.3: a complete SDU without SN (1-byte header); segments with
    /// SN = TX_Next, SO from the second on; TX_Next moves on with the last segment.
    #[test]
    fn tx_sends_whole_sdus_without_sn_and_numbers_only_segments_5_2_2_1() {
        let mut tx: NrRlcUmTx = NrRlcUmTx::new(NrRlcUmConfig::default()).unwrap();
        tx.write_sdu(ms(0), sdu(1, 100)).unwrap();
        tx.write_sdu(ms(0), sdu(2, 100)).unwrap();
        let a = tx.pull_pdu(ms(0), 101).unwrap();
        assert_eq!(
            (a.sn, a.si(), a.size_bytes()),
            (None, SegmentationInfo::Complete, 101)
        );
        assert_eq!(tx.buffer_status().new_tx_bytes, 101);
        let b = tx.pull_pdu(ms(0), 42).unwrap();
        assert_eq!(
            (b.sn, b.si(), b.so(), b.data.len, b.header_bytes()),
            (Some(0), SegmentationInfo::First, None, 40, 2)
        );
        let c = tx.pull_pdu(ms(0), 44).unwrap();
        assert_eq!(
            (c.sn, c.si(), c.so(), c.data.len, c.header_bytes()),
            (Some(0), SegmentationInfo::Middle, Some(40), 40, 4)
        );
        assert_eq!(tx.tx_next(), 0);
        let d = tx.pull_pdu(ms(0), 1000).unwrap();
        assert_eq!(
            (d.sn, d.si(), d.so(), d.data.len),
            (Some(0), SegmentationInfo::Last, Some(80), 20)
        );
        assert_eq!(tx.tx_next(), 1);
        assert!(tx.pull_pdu(ms(0), 1000).is_none());
    }

    fn segments(tx: &mut NrRlcUmTx, uid: u64, grant: u32) -> Vec<NrUmdPdu> {
        tx.write_sdu(ms(0), sdu(uid, 100)).unwrap();
        std::iter::from_fn(|| tx.pull_pdu(ms(0), grant)).collect()
    }

    /// §5.2.2.2.3: segments reassemble in any order and deliver at once; a lost segment
    /// starts t-Reassembly, whose expiry (§5.2.2.2.4) discards the incomplete SDU.
    #[test]
    fn rx_reassembles_out_of_order_and_t_reassembly_discards_5_2_2_2() {
        let cfg = NrRlcUmConfig::default();
        let mut tx: NrRlcUmTx = NrRlcUmTx::new(cfg).unwrap();
        let mut rx: NrRlcUmRx = NrRlcUmRx::new(cfg).unwrap();
        let s0 = segments(&mut tx, 0, 50); // SN 0: 48 + 46 + 6 bytes
        let s1 = segments(&mut tx, 1, 50); // SN 1
        let s2 = segments(&mut tx, 2, 50); // SN 2
        assert_eq!(s0.len(), 3);
        rx.on_pdu(ms(0), s0[2]);
        rx.on_pdu(ms(0), s0[0]);
        assert_eq!(
            rx.poll_timeout(),
            Some(ms(35)),
            "a byte of SN 0 missing before its last"
        );
        rx.on_pdu(ms(1), s0[1]);
        assert_eq!(uids(&mut rx), vec![0]);
        assert_eq!((rx.rx_next_reassembly(), rx.poll_timeout()), (1, None));
        // SN 1 loses its middle segment; SN 2 arrives complete and is delivered at once.
        rx.on_pdu(ms(2), s1[0]);
        rx.on_pdu(ms(2), s1[2]);
        for p in &s2 {
            rx.on_pdu(ms(3), *p);
        }
        assert_eq!(uids(&mut rx), vec![2]);
        assert_eq!(rx.poll_timeout(), Some(ms(37)));
        rx.on_timeout(ms(37));
        assert_eq!((rx.rx_next_reassembly(), rx.stats().sdus_dropped), (3, 1));
        rx.on_pdu(ms(40), s1[1]);
        assert_eq!(
            uids(&mut rx),
            Vec::<u64>::new(),
            "below RX_Next_Reassembly: discarded"
        );
        assert_eq!(rx.poll_timeout(), None);
    }

    /// §5.2.2.2.3: a segment beyond the reassembly window moves it and discards what falls
    /// out (6-bit SN, UM_Window_Size 32), and SNs wrap.
    #[test]
    fn a_segment_beyond_the_window_moves_it_6_bit_sn_5_2_2_2_3() {
        let cfg = NrRlcUmConfig {
            sn_length: UmSnLength::Bits6,
            ..NrRlcUmConfig::default()
        };
        let mut tx: NrRlcUmTx = NrRlcUmTx::new(cfg).unwrap();
        let mut rx: NrRlcUmRx = NrRlcUmRx::new(cfg).unwrap();
        let all: Vec<Vec<NrUmdPdu>> = (0..100).map(|uid| segments(&mut tx, uid, 60)).collect();
        rx.on_pdu(ms(0), all[0][0]); // SN 0 first half
        for pdus in &all[1..] {
            rx.on_pdu(ms(0), pdus[1]);
            rx.on_pdu(ms(0), pdus[0]);
        }
        assert_eq!(uids(&mut rx), (1..100).collect::<Vec<_>>());
        assert_eq!(rx.stats().sdus_dropped, 1, "SN 0 fell out of the window");
        assert_eq!(rx.rx_next_highest(), 100 % 64);
    }
}
