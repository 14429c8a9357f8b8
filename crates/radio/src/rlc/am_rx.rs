//! The receiving side of an AM RLC entity (36.322 §5.1.3.2, §5.2.3).
//!
//! State variables (§7.1), with SN comparisons modulo 2^sn_bits relative to VR(R), kept by the
//! receiving window NR shares ([`AmRxWindow`], where each has its 38.322 name beside it):
//! * VR(R) — the SN following the last in-sequence completely received AMD PDU, the lower edge
//!   of the receiving window;
//! * VR(MR) = VR(R) + AM_Window_Size — the first SN outside the window;
//! * VR(X) — the SN following the AMD PDU that triggered t-Reordering;
//! * VR(MS) — the highest value ACK_SN may take in a STATUS PDU;
//! * VR(H) — the SN following the highest SN among received AMD PDUs.
//!
//! Reception buffer: one entry per SN in [VR(R), VR(H)), holding nothing, the received byte
//! segments, or the complete data field. What is LTE's own: reassembly in SN order as VR(R)
//! passes (in-sequence byte segments early), t-Reordering, and the MRW of WCDMA's SDU discard.

use celltcp_engine::SimTime;
use celltcp_net::packet::Packet;

use super::am::{RlcAmConfig, RlcAmRxStats};
use super::am_pdu::{AmdPdu, ControlBits, Nack, RlcPdu, SoRange, StatusPdu};
use super::am_rx_window::{AmRxWindow, RxEntry};
use super::data_field::DataField;
use super::reassembly::Reassembler;
use super::status_report::StatusReporting;
use super::{earliest, RlcConfigError, RlcSdu};

/// What has been received of one AMD PDU.
#[derive(Debug)]
enum RxPdu<S> {
    Missing,
    /// Received byte segments `(so, bytes)`, sorted and disjoint; `total` is the data field
    /// length once the segment with LSF = 1 has arrived.
    Partial {
        segs: Vec<(u32, DataField<S>)>,
        total: Option<u32>,
    },
    Complete(DataField<S>),
}

impl<S: RlcSdu> RxEntry for RxPdu<S> {
    fn missing() -> Self {
        RxPdu::Missing
    }
    #[inline]
    fn is_complete(&self) -> bool {
        matches!(self, RxPdu::Complete(_))
    }
}

impl<S: RlcSdu> RxPdu<S> {
    /// Byte ranges not yet received, as NACK SO ranges (36.322 §5.2.3).
    fn missing(&self, out: &mut Vec<SoRange>) {
        out.clear();
        if let RxPdu::Partial { segs, total } = self {
            let mut pos = 0;
            for (so, d) in segs {
                if *so > pos {
                    out.push(SoRange {
                        start: pos,
                        end: Some(*so),
                    });
                }
                pos = so + d.bytes();
            }
            match total {
                Some(t) if pos < *t => out.push(SoRange {
                    start: pos,
                    end: Some(*t),
                }),
                Some(_) => {}
                None => out.push(SoRange {
                    start: pos,
                    end: None,
                }),
            }
        }
    }

    /// Feeds received bytes at and after `from` to reassembly, with a gap wherever bytes are
    /// missing (including after the last received byte of an incomplete PDU).
    fn feed_from(&self, from: u32, r: &mut Reassembler<S>) {
        match self {
            RxPdu::Missing => r.gap(),
            RxPdu::Complete(d) => d.slice(from, d.bytes()).iter().for_each(|e| r.push(e)),
            RxPdu::Partial { segs, .. } => {
                let mut pos = from;
                for (so, d) in segs {
                    let end = so + d.bytes();
                    if end <= pos {
                        continue;
                    }
                    if *so > pos {
                        r.gap();
                    }
                    let start = pos.max(*so);
                    d.slice(start - so, d.bytes())
                        .iter()
                        .for_each(|e| r.push(e));
                    pos = end;
                }
                r.gap();
            }
        }
    }
}

/// Bytes contiguous from byte 0 in sorted, disjoint byte segments.
fn contiguous_len<S: RlcSdu>(segs: &[(u32, DataField<S>)]) -> u32 {
    let mut end = 0;
    for (so, d) in segs {
        if *so > end {
            break;
        }
        end = end.max(so + d.bytes());
    }
    end
}

/// Receiving side of an AM entity. See the module documentation for the state it keeps.
#[derive(Debug)]
pub struct RlcAmRx<S: RlcSdu = Packet> {
    cfg: RlcAmConfig,
    control: ControlBits,
    /// VR(R), VR(X), VR(MS), VR(H), the reception buffer for SNs [VR(R), VR(H)) and the
    /// delayed polls (§5.2.3).
    win: AmRxWindow<RxPdu<S>>,
    /// Bytes of the AMD PDU VR(R) already handed to reassembly (in-sequence byte segments are
    /// reassembled early, §5.1.3.2.3).
    vr_r_fed: u32,
    reasm: Reassembler<S>,
    t_reordering: Option<SimTime>,
    /// The STATUS trigger and t-StatusProhibit (§5.2.3).
    status: StatusReporting,
    /// SN_MRW to acknowledge in the next STATUS PDU.
    mrw_ack: Option<u32>,
    missing_scratch: Vec<SoRange>,
    stats: RlcAmRxStats,
}

impl<S: RlcSdu> RlcAmRx<S> {
    pub fn new(config: RlcAmConfig) -> Result<Self, RlcConfigError> {
        config.validate()?;
        Ok(RlcAmRx {
            cfg: config,
            control: ControlBits::new(config.sn_bits),
            win: AmRxWindow::new(config.sn_bits),
            vr_r_fed: 0,
            reasm: Reassembler::new(),
            t_reordering: None,
            status: StatusReporting::new(config.t_status_prohibit),
            mrw_ack: None,
            missing_scratch: Vec::new(),
            stats: RlcAmRxStats::default(),
        })
    }

    /// VR(R).
    pub fn vr_r(&self) -> u32 {
        self.win.next()
    }
    /// VR(MS).
    pub fn vr_ms(&self) -> u32 {
        self.win.highest_status()
    }
    /// VR(H).
    pub fn vr_h(&self) -> u32 {
        self.win.next_highest()
    }

    pub fn stats(&self) -> RlcAmRxStats {
        let mut s = self.stats;
        s.sdus_delivered = self.reasm.delivered();
        s.sdus_dropped = self.reasm.dropped();
        s
    }

    /// Whether a STATUS report has been triggered and not yet sent.
    pub fn status_triggered(&self) -> bool {
        self.status.is_triggered()
    }

    /// A PDU from the peer transmitting side: an AMD PDU (segment) or an MRW. A STATUS PDU
    /// belongs to a transmitting side and is ignored here.
    pub fn on_pdu(&mut self, now: SimTime, pdu: RlcPdu<S>) {
        self.on_timeout(now);
        match pdu {
            RlcPdu::Data(d) => self.on_amd(now, d),
            RlcPdu::Mrw(m) => self.on_mrw(now, m.sn_mrw),
            RlcPdu::Status(_) => {}
        }
    }

    /// The next SDU delivered in order to the upper layer.
    pub fn take_sdu(&mut self) -> Option<S> {
        self.reasm.pop()
    }

    /// Bytes of the STATUS PDU this side would send at `now`, 0 if none is due (for buffer
    /// status reports).
    pub fn status_bytes(&self, now: SimTime) -> u32 {
        if !self.status.is_due(now) {
            return 0;
        }
        let mut scratch = Vec::new();
        let mut bits = self.control.status_base(self.mrw_ack.is_some());
        for i in 0..self.off(self.win.highest_status()) as usize {
            bits += self.nack_bits(i, &mut scratch);
        }
        ControlBits::bytes(self.cfg.pdu_mode, bits)
    }

    /// The STATUS PDU for a transmission opportunity of `grant_bytes`, if one is triggered and
    /// t-StatusProhibit is not running (36.322 §5.2.3). NACKs that do not fit are left out and
    /// ACK_SN is set to the first SN not reported (36.322 §5.2.3 "set ACK_SN to the SN of the
    /// next not received RLC Data PDU which is not indicated as missing").
    pub fn pull_status(&mut self, now: SimTime, grant_bytes: u32) -> Option<StatusPdu> {
        self.on_timeout(now);
        if !self.status.is_due(now) {
            return None;
        }
        let budget = ControlBits::budget(self.cfg.pdu_mode, grant_bytes)?;
        let mut bits = self.control.status_base(self.mrw_ack.is_some());
        if bits > budget {
            return None;
        }
        let mut scratch = std::mem::take(&mut self.missing_scratch);
        let mut nacks = Vec::new();
        let mut ack_sn = self.win.highest_status();
        for i in 0..self.off(ack_sn) as usize {
            let need = self.nack_bits(i, &mut scratch);
            if need == 0 {
                continue;
            }
            let sn = self.win.sn().add(self.win.next(), i as u32);
            if bits + need > budget {
                ack_sn = sn;
                break;
            }
            bits += need;
            match self.win.get(i) {
                Some(RxPdu::Partial { .. }) => {
                    nacks.extend(scratch.iter().map(|&so| Nack { sn, so: Some(so) }));
                }
                _ => nacks.push(Nack { sn, so: None }),
            }
        }
        self.missing_scratch = scratch;
        let status = StatusPdu {
            ack_sn,
            nacks,
            mrw_ack: self.mrw_ack.take(),
            size_bytes: ControlBits::bytes(self.cfg.pdu_mode, bits),
        };
        self.status.sent(now);
        self.stats.status_sent += 1;
        Some(status)
    }

    /// Earliest deadline: t-Reordering, or t-StatusProhibit while a STATUS report waits for it.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        earliest(self.t_reordering, self.status.deadline())
    }

    /// Runs the timers due at or before `now`, each at its own deadline.
    pub fn on_timeout(&mut self, now: SimTime) {
        self.status.on_timeout(now);
        if let Some(t) = self.t_reordering.filter(|&t| t <= now) {
            self.t_reordering = None;
            self.t_reordering_expired(t);
        }
    }

    /// RLC re-establishment (36.322 §5.4): reassemble what can be reassembled from the
    /// reception buffer and deliver it in SN order, discard the rest, reset the state variables
    /// and stop the timers.
    pub fn reestablish(&mut self) {
        let mut from = self.vr_r_fed;
        let reasm = &mut self.reasm;
        self.win.reset(|p| {
            p.feed_from(from, reasm);
            from = 0;
        });
        self.reasm.gap();
        self.vr_r_fed = 0;
        self.t_reordering = None;
        self.status.reset();
        self.mrw_ack = None;
    }

    /// Offset of `sn` from VR(R).
    #[inline]
    fn off(&self, sn: u32) -> u32 {
        self.win.off(sn)
    }

    /// Bits of the NACKs for the PDU at index `i`, 0 if it is complete.
    fn nack_bits(&self, i: usize, scratch: &mut Vec<SoRange>) -> u32 {
        match self.win.get(i) {
            Some(RxPdu::Complete(_)) => 0,
            Some(p @ RxPdu::Partial { .. }) => {
                p.missing(scratch);
                scratch.len() as u32 * self.control.nack(true)
            }
            _ => self.control.nack(false),
        }
    }

    /// 36.322 §5.1.3.2.2 and §5.2.3 (polling).
    fn on_amd(&mut self, now: SimTime, pdu: AmdPdu<S>) {
        self.stats.pdus_received += 1;
        self.stats.bytes_received += pdu.size_bytes() as u64;
        let x = pdu.sn;
        let placed = if self.win.contains(x) {
            let placed = self.place(x, &pdu);
            if !placed {
                self.stats.pdus_duplicate += 1;
            }
            placed
        } else {
            self.stats.pdus_outside_window += 1;
            false
        };
        if placed {
            self.after_placement(now, x);
        }
        if pdu.poll && self.win.sn().contains(x) && self.win.on_poll(x, !placed) {
            self.status.trigger();
        }
        self.check_delayed_poll();
    }

    fn check_delayed_poll(&mut self) {
        if self.win.delayed_poll_due() {
            self.status.trigger();
        }
    }

    /// Stores the new bytes of `pdu` (duplicate byte segments are dropped); false if every byte
    /// had been received before.
    fn place(&mut self, x: u32, pdu: &AmdPdu<S>) -> bool {
        let (so, lsf) = pdu.segment.map_or((0, true), |s| (s.so, s.lsf));
        let len = pdu.data.bytes();
        if len == 0 || so.checked_add(len).is_none() {
            return false; // empty or malformed
        }
        let slot = self.win.entry_mut(x);
        match slot {
            RxPdu::Complete(_) => false,
            RxPdu::Missing if so == 0 && lsf => {
                *slot = RxPdu::Complete(pdu.data.clone());
                true
            }
            RxPdu::Missing => {
                let total = lsf.then_some(so + len);
                *slot = RxPdu::Partial {
                    segs: vec![(so, pdu.data.clone())],
                    total,
                };
                true
            }
            RxPdu::Partial { segs, total } => {
                let mut end = so + len;
                match *total {
                    Some(t) => end = end.min(t),
                    None if lsf => *total = Some(end),
                    None => {}
                }
                // Insert the parts of [so, end) not covered yet, keeping `segs` sorted.
                let mut added = false;
                let mut pos = so;
                let mut k = 0;
                while pos < end {
                    match segs.get(k).map(|(s, d)| (*s, s + d.bytes())) {
                        Some((_, e)) if e <= pos => k += 1,
                        Some((s, e)) if s <= pos => {
                            pos = e;
                            k += 1;
                        }
                        next => {
                            let piece_end = next.map_or(end, |(s, _)| end.min(s));
                            segs.insert(k, (pos, pdu.data.slice(pos - so, piece_end - so)));
                            added = true;
                            k += 1;
                            pos = piece_end;
                        }
                    }
                }
                if total.is_some_and(|t| contiguous_len(segs) >= t) {
                    let mut data = DataField::new();
                    segs.iter().for_each(|(_, d)| data.extend_from(d));
                    *slot = RxPdu::Complete(data);
                }
                added
            }
        }
    }

    /// 36.322 §5.1.3.2.3: actions when an AMD PDU is placed in the reception buffer (VR(H) and
    /// VR(MS) in [`AmRxWindow::on_placed`]).
    fn after_placement(&mut self, now: SimTime, x: u32) {
        self.win.on_placed(x);
        if x == self.win.next() {
            self.advance_vr_r();
        }
        self.update_t_reordering(now);
    }

    /// Moves VR(R) over completely received PDUs, reassembling them, and reassembles the
    /// in-sequence byte segments of the new VR(R).
    fn advance_vr_r(&mut self) {
        let (fed, reasm) = (&mut self.vr_r_fed, &mut self.reasm);
        self.win.advance_next(|p| {
            p.feed_from(*fed, reasm);
            *fed = 0;
        });
        if let Some(RxPdu::Partial { segs, .. }) = self.win.get(0) {
            let mut pos = self.vr_r_fed;
            for (so, d) in segs {
                if *so > pos {
                    break; // a hole: the in-sequence part ends here
                }
                let end = so + d.bytes();
                if end > pos {
                    d.slice(pos - so, d.bytes())
                        .iter()
                        .for_each(|e| self.reasm.push(e));
                    pos = end;
                }
            }
            self.vr_r_fed = pos;
        }
    }

    /// t-Reordering start/stop after VR(R) or VR(H) changed (§5.1.3.2.3).
    fn update_t_reordering(&mut self, now: SimTime) {
        if self.t_reordering.is_some() {
            let x_off = self.off(self.win.status_trigger());
            // VR(X) = VR(R), or VR(X) outside the window and not VR(MR).
            if x_off == 0 || x_off > self.win.sn().window() {
                self.t_reordering = None;
            }
        }
        if self.t_reordering.is_none() && self.off(self.win.next_highest()) > 0 {
            self.t_reordering = Some(now + self.cfg.t_reordering);
            self.win.mark_status_trigger();
        }
    }

    /// 36.322 §5.1.3.2.4, run at the expiry instant `at`.
    fn t_reordering_expired(&mut self, at: SimTime) {
        self.stats.t_reordering_expiries += 1;
        let (vr_x, vr_ms) = (self.win.status_trigger(), self.win.highest_status());
        let from = if self.off(vr_x) >= self.off(vr_ms) {
            vr_x
        } else {
            vr_ms
        };
        self.win.set_highest_status_from(from);
        if self.off(self.win.next_highest()) > self.off(self.win.highest_status()) {
            self.t_reordering = Some(at + self.cfg.t_reordering);
            self.win.mark_status_trigger();
        }
        self.status.trigger();
        self.check_delayed_poll();
    }

    /// An MRW from the transmitter: every AMD PDU below `sn_mrw` was acknowledged or
    /// discarded there. Reassemble what was received below it (with gaps for what was not),
    /// move VR(R) to `sn_mrw` and acknowledge (25.322 §11.6.3).
    fn on_mrw(&mut self, now: SimTime, sn_mrw: u32) {
        self.stats.mrw_received += 1;
        if !self.win.sn().contains(sn_mrw) {
            return;
        }
        let d = self.off(sn_mrw);
        if d > 0 && d <= self.win.sn().window() {
            let (fed, reasm) = (&mut self.vr_r_fed, &mut self.reasm);
            self.win.slide_to(sn_mrw, |p| {
                match p {
                    Some(p) => p.feed_from(*fed, reasm),
                    None => reasm.gap(),
                }
                *fed = 0;
            });
            self.advance_vr_r();
            if self
                .win
                .is_complete(self.off(self.win.highest_status()) as usize)
            {
                self.win.set_highest_status_from(self.win.highest_status());
            }
            self.update_t_reordering(now);
        }
        self.mrw_ack = Some(sn_mrw);
        self.status.trigger();
        self.check_delayed_poll();
    }
}
