//! RLC unacknowledged mode (36.322 §4.2.1.2, §5.1.2): segmentation and concatenation at the
//! transmitting side; reordering with t-Reordering, duplicate detection, reassembly and discard
//! of SDUs with lost segments at the receiving side. No retransmission.
//!
//! Receiving state variables (§7.1), compared modulo 2^sn_bits relative to VR(UH) −
//! UM_Window_Size:
//! * VR(UR) — the earliest SN still considered for reordering;
//! * VR(UX) — the SN following the UMD PDU that triggered t-Reordering;
//! * VR(UH) — the SN following the highest received SN, the upper edge of the reordering
//!   window [VR(UH) − UM_Window_Size, VR(UH)).

use std::collections::VecDeque;

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::packet::Packet;

use super::data_field::DataField;
use super::header::HeaderModel;
use super::reassembly::Reassembler;
use super::sdu_buffer::SduBuffer;
use super::sn::SnSpace;
use super::{BufferLimit, BufferStatus, PduMode, RlcConfigError, RlcSdu, RlcSduRefused};

/// Configuration of a UM entity (36.331 RLC-Config UM).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RlcUmConfig {
    pub pdu_mode: PduMode,
    /// sn-FieldLength: 5 or 10 bits (UM_Window_Size 16 or 512, 36.322 §7.2).
    pub sn_bits: u8,
    pub header: HeaderModel,
    /// t-Reordering.
    pub t_reordering: SimDuration,
    /// Limit on SDUs waiting for transmission.
    pub tx_buffer: BufferLimit,
}

impl RlcUmConfig {
    /// LTE UM with a `sn_bits` SN (5 or 10) and t-Reordering 35 ms.
    pub fn lte(sn_bits: u8) -> Self {
        RlcUmConfig {
            pdu_mode: PduMode::Flexible,
            sn_bits,
            header: HeaderModel::lte_um(sn_bits),
            t_reordering: SimDuration::from_ms(35),
            tx_buffer: BufferLimit::Unlimited,
        }
    }

    pub fn validate(&self) -> Result<(), RlcConfigError> {
        if !matches!(self.sn_bits, 5 | 10) {
            return Err(RlcConfigError::invalid(
                "um.sn_bits",
                self.sn_bits,
                "5 or 10",
            ));
        }
        self.header.validate()?;
        if let BufferLimit::Bytes(0) | BufferLimit::Sdus(0) = self.tx_buffer {
            return Err(RlcConfigError::invalid(
                "um.tx_buffer",
                0,
                "a positive limit",
            ));
        }
        if let PduMode::Fixed { bytes } = self.pdu_mode {
            if bytes < self.header.fixed_bytes + self.header.fixed_li_bytes() + 1 {
                return Err(RlcConfigError::invalid(
                    "um.pdu_mode.bytes",
                    bytes,
                    "room for the header, one LI and a data byte",
                ));
            }
        }
        Ok(())
    }
}

/// A UMD PDU (36.322 §6.2.1.3).
#[derive(Clone, Debug)]
pub struct UmdPdu<S = Packet> {
    pub sn: u32,
    pub data: DataField<S>,
    pub(crate) header_bytes: u32,
    pub(crate) size_bytes: u32,
}

impl<S: RlcSdu> UmdPdu<S> {
    /// Size on the air: header, data and (fixed mode) padding, bytes.
    pub fn size_bytes(&self) -> u32 {
        self.size_bytes
    }
    /// Header bytes by the byte model.
    pub fn header_bytes(&self) -> u32 {
        self.header_bytes
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RlcUmTxStats {
    pub sdus_written: u64,
    pub sdus_refused: u64,
    pub pdus: u64,
    /// Bytes on the air.
    pub bytes: u64,
}

/// Transmitting side of a UM entity: VT(US) numbers the UMD PDUs.
#[derive(Debug)]
pub struct RlcUmTx<S: RlcSdu = Packet> {
    cfg: RlcUmConfig,
    sn: SnSpace,
    buf: SduBuffer<S>,
    vt_us: u32,
    stats: RlcUmTxStats,
}

impl<S: RlcSdu> RlcUmTx<S> {
    pub fn new(config: RlcUmConfig) -> Result<Self, RlcConfigError> {
        config.validate()?;
        Ok(RlcUmTx {
            cfg: config,
            sn: SnSpace::new(config.sn_bits),
            buf: SduBuffer::new(config.tx_buffer),
            vt_us: 0,
            stats: RlcUmTxStats::default(),
        })
    }

    /// Whether the transmission buffer would take an SDU of `size` bytes after `ahead_sdus`
    /// more of `ahead_bytes` in all.
    pub fn admits_after(&self, ahead_sdus: usize, ahead_bytes: u64, size: u32) -> bool {
        self.buf.admits_after(ahead_sdus, ahead_bytes, size)
    }

    pub fn write_sdu(&mut self, _now: SimTime, sdu: S) -> Result<(), RlcSduRefused> {
        let r = self.buf.push(sdu);
        match r {
            Ok(()) => self.stats.sdus_written += 1,
            Err(_) => self.stats.sdus_refused += 1,
        }
        r
    }

    pub fn buffer_status(&self) -> BufferStatus {
        BufferStatus {
            new_tx_bytes: self
                .buf
                .estimated_pdu_bytes(self.cfg.pdu_mode, &self.cfg.header),
            ..BufferStatus::default()
        }
    }

    /// A UMD PDU for a transmission opportunity of `grant_bytes` (36.322 §5.1.2.1.1).
    pub fn pull_pdu(&mut self, _now: SimTime, grant_bytes: u32) -> Option<UmdPdu<S>> {
        let new = self
            .buf
            .build(self.cfg.pdu_mode, grant_bytes, &self.cfg.header)?;
        let sn = self.vt_us;
        self.vt_us = self.sn.add(sn, 1);
        self.stats.pdus += 1;
        self.stats.bytes += new.size_bytes as u64;
        Some(UmdPdu {
            sn,
            data: new.data,
            header_bytes: new.header_bytes,
            size_bytes: new.size_bytes,
        })
    }

    pub fn stats(&self) -> RlcUmTxStats {
        self.stats
    }

    /// Handover over RLC UM (36.300 §10.1.2.1.2: the source forwards the PDCP SDUs not yet
    /// transmitted): every SDU with bytes no UMD PDU has carried yet, whole and in order — a
    /// partly sent SDU is sent again whole, since its receiver discards the incomplete
    /// copy — after which the entity is re-established ([`reestablish`](Self::reestablish)).
    pub fn take_untransmitted(&mut self) -> Vec<S> {
        let mut out = Vec::with_capacity(self.buf.len());
        self.buf.drain_sdus(&mut out);
        self.reestablish();
        out
    }

    /// RLC re-establishment of a transmitting UM entity (36.322 §5.4): discard every SDU and
    /// reset VT(US) to 0. Statistics are kept.
    pub fn reestablish(&mut self) {
        self.buf.clear();
        self.vt_us = 0;
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RlcUmRxStats {
    pub pdus_received: u64,
    pub bytes_received: u64,
    /// Duplicates and PDUs below VR(UR) (36.322 §5.1.2.2.2).
    pub pdus_discarded: u64,
    pub sdus_delivered: u64,
    /// SDUs discarded because a segment was lost.
    pub sdus_dropped: u64,
    pub t_reordering_expiries: u64,
}

/// Receiving side of a UM entity. See the module documentation.
#[derive(Debug)]
pub struct RlcUmRx<S: RlcSdu = Packet> {
    cfg: RlcUmConfig,
    sn: SnSpace,
    vr_ur: u32,
    vr_ux: u32,
    vr_uh: u32,
    /// Received UMD PDUs for SNs from VR(UR); index = SN − VR(UR).
    buf: VecDeque<Option<DataField<S>>>,
    reasm: Reassembler<S>,
    t_reordering: Option<SimTime>,
    stats: RlcUmRxStats,
}

impl<S: RlcSdu> RlcUmRx<S> {
    pub fn new(config: RlcUmConfig) -> Result<Self, RlcConfigError> {
        config.validate()?;
        Ok(RlcUmRx {
            cfg: config,
            sn: SnSpace::new(config.sn_bits),
            vr_ur: 0,
            vr_ux: 0,
            vr_uh: 0,
            buf: VecDeque::new(),
            reasm: Reassembler::new(),
            t_reordering: None,
            stats: RlcUmRxStats::default(),
        })
    }

    pub fn stats(&self) -> RlcUmRxStats {
        let mut s = self.stats;
        s.sdus_delivered = self.reasm.delivered();
        s.sdus_dropped = self.reasm.dropped();
        s
    }

    pub fn take_sdu(&mut self) -> Option<S> {
        self.reasm.pop()
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.t_reordering
    }

    pub fn on_timeout(&mut self, now: SimTime) {
        if let Some(t) = self.t_reordering.filter(|&t| t <= now) {
            self.t_reordering = None;
            self.t_reordering_expired(t);
        }
    }

    /// RLC re-establishment of a receiving UM entity (36.322 §5.4): reassemble SDUs from the
    /// UMD PDUs received with SN < VR(UH) and deliver them in ascending SN order (missing PDUs
    /// are gaps: SDUs with a lost piece are discarded), discard the rest, stop t-Reordering
    /// and reset the state variables to 0. Reassembled SDUs wait for
    /// [`take_sdu`](Self::take_sdu); statistics are kept.
    pub fn reestablish(&mut self) {
        // The buffer holds SNs [VR(UR), VR(UH)) only: everything in it is below VR(UH).
        while let Some(slot) = self.buf.pop_front() {
            match slot {
                Some(d) => d.iter().for_each(|e| self.reasm.push(e)),
                None => self.reasm.gap(),
            }
        }
        // The SDU under reassembly cannot be completed by a later PDU.
        self.reasm.gap();
        (self.vr_ur, self.vr_ux, self.vr_uh) = (0, 0, 0);
        self.t_reordering = None;
    }

    /// Offset of `sn` from the modulus base VR(UH) − UM_Window_Size.
    fn off(&self, sn: u32) -> u32 {
        self.sn
            .offset(sn, self.sn.sub(self.vr_uh, self.sn.window()))
    }

    fn received(&self, sn: u32) -> bool {
        let i = self.sn.offset(sn, self.vr_ur) as usize;
        self.buf.get(i).is_some_and(|p| p.is_some())
    }

    /// 36.322 §5.1.2.2.2 and §5.1.2.2.3.
    pub fn on_pdu(&mut self, now: SimTime, pdu: UmdPdu<S>) {
        self.on_timeout(now);
        self.stats.pdus_received += 1;
        self.stats.bytes_received += pdu.size_bytes() as u64;
        let x = pdu.sn;
        let w = self.sn.window();
        // Discard: VR(UH) − W <= x < VR(UR), or VR(UR) < x < VR(UH) received before.
        if !self.sn.contains(x) || self.off(x) < self.off(self.vr_ur) || self.received(x) {
            self.stats.pdus_discarded += 1;
            return;
        }
        if self.off(x) >= w {
            // x outside the reordering window: it becomes the new upper edge; PDUs below the
            // new lower edge are reassembled and delivered.
            self.vr_uh = self.sn.add(x, 1);
            let lower = self.sn.sub(self.vr_uh, w);
            if self.off(self.vr_ur) >= w {
                self.deliver_until(lower);
            }
        }
        let i = self.sn.offset(x, self.vr_ur) as usize;
        if self.buf.len() <= i {
            self.buf.resize_with(i + 1, || None);
        }
        self.buf[i] = Some(pdu.data);
        if self.received(self.vr_ur) {
            self.skip_received();
        }
        if self.t_reordering.is_some() {
            let ux = self.off(self.vr_ux);
            // VR(UX) <= VR(UR), or VR(UX) outside the window and not VR(UH).
            if ux <= self.off(self.vr_ur) || ux > w {
                self.t_reordering = None;
            }
        }
        if self.t_reordering.is_none() && self.off(self.vr_uh) > self.off(self.vr_ur) {
            self.t_reordering = Some(now + self.cfg.t_reordering);
            self.vr_ux = self.vr_uh;
        }
    }

    /// Reassembles the PDUs with SN in [VR(UR), `end`) — gaps where missing — and sets VR(UR)
    /// to `end`.
    fn deliver_until(&mut self, end: u32) {
        while self.vr_ur != end {
            match self.buf.pop_front().flatten() {
                Some(d) => d.iter().for_each(|e| self.reasm.push(e)),
                None => self.reasm.gap(),
            }
            self.vr_ur = self.sn.add(self.vr_ur, 1);
        }
    }

    /// Moves VR(UR) over received PDUs, reassembling them.
    fn skip_received(&mut self) {
        while let Some(Some(_)) = self.buf.front() {
            if let Some(Some(d)) = self.buf.pop_front() {
                d.iter().for_each(|e| self.reasm.push(e));
            }
            self.vr_ur = self.sn.add(self.vr_ur, 1);
        }
    }

    /// 36.322 §5.1.2.2.4, run at the expiry instant `at`.
    fn t_reordering_expired(&mut self, at: SimTime) {
        self.stats.t_reordering_expiries += 1;
        if self.off(self.vr_ux) > self.off(self.vr_ur) {
            self.deliver_until(self.vr_ux);
        }
        self.skip_received();
        if self.off(self.vr_uh) > self.off(self.vr_ur) {
            self.t_reordering = Some(at + self.cfg.t_reordering);
            self.vr_ux = self.vr_uh;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::sdu;
    use super::*;

    fn pair() -> (RlcUmTx, RlcUmRx) {
        let cfg = RlcUmConfig::lte(10);
        (RlcUmTx::new(cfg).unwrap(), RlcUmRx::new(cfg).unwrap())
    }

    fn t(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_ms(ms)
    }

    fn uids(rx: &mut RlcUmRx) -> Vec<u64> {
        std::iter::from_fn(|| rx.take_sdu())
            .map(|p| p.uid)
            .collect()
    }

    #[test]
    fn in_order_delivery_across_segments_and_reordering() {
        let (mut tx, mut rx) = pair();
        for uid in 1..=3 {
            tx.write_sdu(t(0), sdu(uid, 300)).unwrap();
        }
        // 200-byte grants: header 2 (+2 for one LI).
        let pdus: Vec<_> = std::iter::from_fn(|| tx.pull_pdu(t(0), 200)).collect();
        assert_eq!(pdus.len(), 5);
        assert_eq!(
            pdus.iter().map(|p| p.size_bytes()).sum::<u32>(),
            900 + 2 * 5 + 2 * 2
        );
        // Deliver 0, 2, 1, 4, 3: reordering restores SN order.
        for k in [0usize, 2, 1, 4, 3] {
            rx.on_pdu(t(1), pdus[k].clone());
        }
        assert_eq!(uids(&mut rx), vec![1, 2, 3]);
        assert_eq!(rx.poll_timeout(), None);
        assert_eq!(rx.stats().sdus_dropped, 0);
        // A duplicate is discarded.
        rx.on_pdu(t(2), pdus[3].clone());
        assert_eq!(rx.stats().pdus_discarded, 1);
    }

    #[test]
    fn sdus_with_a_lost_segment_are_discarded_at_t_reordering_expiry() {
        let (mut tx, mut rx) = pair();
        for uid in 1..=3 {
            tx.write_sdu(t(0), sdu(uid, 300)).unwrap();
        }
        let pdus: Vec<_> = std::iter::from_fn(|| tx.pull_pdu(t(0), 200)).collect();
        // PDU 1 carries the end of SDU 1 and the start of SDU 2: both are lost with it.
        rx.on_pdu(t(10), pdus[0].clone());
        rx.on_pdu(t(10), pdus[2].clone());
        assert_eq!(uids(&mut rx), Vec::<u64>::new());
        assert_eq!(
            rx.poll_timeout(),
            Some(t(45)),
            "t-Reordering started at 10 ms"
        );
        rx.on_pdu(t(11), pdus[3].clone());
        rx.on_pdu(t(11), pdus[4].clone());
        rx.on_timeout(t(45));
        assert_eq!(uids(&mut rx), vec![3]);
        assert_eq!(rx.stats().sdus_dropped, 2);
        assert_eq!(rx.poll_timeout(), None);
        // The late PDU 1 is below VR(UR) now and discarded.
        rx.on_pdu(t(50), pdus[1].clone());
        assert_eq!(rx.stats().pdus_discarded, 1);
        assert_eq!(uids(&mut rx), Vec::<u64>::new());
    }

    #[test]
    fn a_pdu_beyond_the_window_pushes_old_pdus_out() {
        let cfg = RlcUmConfig::lte(5); // UM_Window_Size 16
        let mut tx: RlcUmTx = RlcUmTx::new(cfg).unwrap();
        let mut rx: RlcUmRx = RlcUmRx::new(cfg).unwrap();
        for uid in 0..40 {
            tx.write_sdu(t(0), sdu(uid, 100)).unwrap();
        }
        let pdus: Vec<_> = std::iter::from_fn(|| tx.pull_pdu(t(0), 101)).collect();
        assert_eq!(pdus.len(), 40);
        rx.on_pdu(t(0), pdus[1].clone()); // SN 0 lost: SDU 1 waits
        assert_eq!(uids(&mut rx), Vec::<u64>::new());
        // SN 17 moves VR(UH) to 18 and the window's lower edge to 2: SN 1 is delivered.
        rx.on_pdu(t(1), pdus[17].clone());
        assert_eq!(uids(&mut rx), vec![1]);
        assert!(rx.poll_timeout().is_some());
    }

    #[test]
    fn sn_wraps_around() {
        let cfg = RlcUmConfig::lte(5);
        let mut tx: RlcUmTx = RlcUmTx::new(cfg).unwrap();
        let mut rx: RlcUmRx = RlcUmRx::new(cfg).unwrap();
        for uid in 0..100 {
            tx.write_sdu(t(0), sdu(uid, 60)).unwrap();
            let p = tx.pull_pdu(t(0), 500).unwrap();
            rx.on_pdu(t(0), p);
        }
        assert_eq!(uids(&mut rx), (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn take_untransmitted_returns_partly_sent_sdus_whole_and_resets() {
        let (mut tx, mut rx) = pair();
        for uid in 1..=3 {
            tx.write_sdu(t(0), sdu(uid, 300)).unwrap();
        }
        // 402 bytes: SDU 1 whole and the start of SDU 2.
        let p = tx.pull_pdu(t(0), 402).unwrap();
        assert_eq!(
            p.data.iter().map(|e| e.sdu.uid).collect::<Vec<_>>(),
            vec![1, 2]
        );
        let left: Vec<u64> = tx.take_untransmitted().iter().map(|s| s.uid).collect();
        assert_eq!(left, vec![2, 3]);
        assert!(tx.buffer_status().is_empty());
        assert!(tx.take_untransmitted().is_empty());
        // VT(US) is back to 0: the next PDU has SN 0 again.
        tx.write_sdu(t(1), sdu(4, 100)).unwrap();
        assert_eq!(tx.pull_pdu(t(1), 500).unwrap().sn, 0);
        assert_eq!(tx.stats().sdus_written, 4);
        rx.on_pdu(t(1), p);
        assert_eq!(uids(&mut rx), vec![1]);
    }

    #[test]
    fn reestablishment_delivers_what_is_complete_below_vr_uh_and_resets() {
        let (mut tx, mut rx) = pair();
        for uid in 1..=4 {
            tx.write_sdu(t(0), sdu(uid, 100)).unwrap();
        }
        // One SDU per PDU, SDU 4 cut in two.
        let mut pdus: Vec<_> = (0..3).filter_map(|_| tx.pull_pdu(t(0), 102)).collect();
        pdus.push(tx.pull_pdu(t(0), 52).unwrap());
        // SN 0 lost; SN 1, 2 and the first half of SDU 4 wait for reordering.
        for p in &pdus[1..] {
            rx.on_pdu(t(1), p.clone());
        }
        assert_eq!(uids(&mut rx), Vec::<u64>::new());
        assert!(rx.poll_timeout().is_some());
        rx.reestablish();
        assert_eq!(uids(&mut rx), vec![2, 3]);
        assert_eq!(rx.poll_timeout(), None);
        // The incomplete SDU 4 is discarded (nothing of SDU 1 was received).
        assert_eq!(rx.stats().sdus_dropped, 1);
        // The state variables restart at 0: SN 0 of a fresh transmitter is accepted.
        let mut tx2: RlcUmTx = RlcUmTx::new(RlcUmConfig::lte(10)).unwrap();
        tx2.write_sdu(t(2), sdu(9, 100)).unwrap();
        rx.on_pdu(t(2), tx2.pull_pdu(t(2), 500).unwrap());
        assert_eq!(uids(&mut rx), vec![9]);
    }

    #[test]
    fn bad_configuration_is_an_error() {
        let mut cfg = RlcUmConfig::lte(10);
        cfg.sn_bits = 7;
        assert!(RlcUmTx::<Packet>::new(cfg)
            .unwrap_err()
            .to_string()
            .contains("um.sn_bits"));
    }
}
