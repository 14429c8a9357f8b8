//! The receiving side of an AM RLC entity (36.322 §5.1.3.2, §5.2.3).
//!
//! State variables (§7.1), with SN comparisons modulo 2^sn_bits relative to VR(R):
//! * VR(R) — the SN following the last in-sequence completely received AMD PDU, the lower edge
//!   of the receiving window;
//! * VR(MR) = VR(R) + AM_Window_Size — the first SN outside the window;
//! * VR(X) — the SN following the AMD PDU that triggered t-Reordering;
//! * VR(MS) — the highest value ACK_SN may take in a STATUS PDU;
//! * VR(H) — the SN following the highest SN among received AMD PDUs.
//!
//! Reception buffer: one entry per SN in [VR(R), VR(H)), holding nothing, the received byte
//! segments, or the complete data field.

use std::collections::VecDeque;

use celltcp_engine::SimTime;
use celltcp_net::packet::Packet;

use super::am::{RlcAmConfig, RlcAmRxStats};
use super::am_pdu::{AmdPdu, ControlBits, Nack, RlcPdu, SoRange, StatusPdu};
use super::data_field::DataField;
use super::reassembly::Reassembler;
use super::sn::SnSpace;
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

impl<S: RlcSdu> RxPdu<S> {
    fn is_complete(&self) -> bool {
        matches!(self, RxPdu::Complete(_))
    }

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
    sn: SnSpace,
    control: ControlBits,
    vr_r: u32,
    vr_x: u32,
    vr_ms: u32,
    vr_h: u32,
    /// Reception buffer for SNs [VR(R), VR(H)); index = SN − VR(R).
    buf: VecDeque<RxPdu<S>>,
    /// Bytes of the AMD PDU VR(R) already handed to reassembly (in-sequence byte segments are
    /// reassembled early, §5.1.3.2.3).
    vr_r_fed: u32,
    reasm: Reassembler<S>,
    t_reordering: Option<SimTime>,
    /// The STATUS trigger and t-StatusProhibit (§5.2.3).
    status: StatusReporting,
    /// SN of a received poll whose STATUS trigger is delayed until SN < VR(MS) (§5.2.3).
    delayed_poll: Option<u32>,
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
            sn: SnSpace::new(config.sn_bits),
            control: ControlBits::new(config.sn_bits),
            vr_r: 0,
            vr_x: 0,
            vr_ms: 0,
            vr_h: 0,
            buf: VecDeque::new(),
            vr_r_fed: 0,
            reasm: Reassembler::new(),
            t_reordering: None,
            status: StatusReporting::new(config.t_status_prohibit),
            delayed_poll: None,
            mrw_ack: None,
            missing_scratch: Vec::new(),
            stats: RlcAmRxStats::default(),
        })
    }

    /// VR(R).
    pub fn vr_r(&self) -> u32 {
        self.vr_r
    }
    /// VR(MS).
    pub fn vr_ms(&self) -> u32 {
        self.vr_ms
    }
    /// VR(H).
    pub fn vr_h(&self) -> u32 {
        self.vr_h
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
        for i in 0..self.sn.offset(self.vr_ms, self.vr_r) as usize {
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
        let mut ack_sn = self.vr_ms;
        for i in 0..self.sn.offset(self.vr_ms, self.vr_r) as usize {
            let need = self.nack_bits(i, &mut scratch);
            if need == 0 {
                continue;
            }
            let sn = self.sn.add(self.vr_r, i as u32);
            if bits + need > budget {
                ack_sn = sn;
                break;
            }
            bits += need;
            match self.buf.get(i) {
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
        for p in self.buf.drain(..) {
            p.feed_from(from, &mut self.reasm);
            from = 0;
        }
        self.reasm.gap();
        (self.vr_r, self.vr_x, self.vr_ms, self.vr_h, self.vr_r_fed) = (0, 0, 0, 0, 0);
        self.t_reordering = None;
        self.status.reset();
        self.delayed_poll = None;
        self.mrw_ack = None;
    }

    /// Offset of `sn` from VR(R).
    #[inline]
    fn off(&self, sn: u32) -> u32 {
        self.sn.offset(sn, self.vr_r)
    }

    fn is_complete(&self, i: usize) -> bool {
        self.buf.get(i).is_some_and(|p| p.is_complete())
    }

    /// Bits of the NACKs for the PDU at index `i`, 0 if it is complete.
    fn nack_bits(&self, i: usize, scratch: &mut Vec<SoRange>) -> u32 {
        match self.buf.get(i) {
            Some(RxPdu::Complete(_)) => 0,
            Some(p @ RxPdu::Partial { .. }) => {
                p.missing(scratch);
                scratch.len() as u32 * self.control.nack(true)
            }
            _ => self.control.nack(false),
        }
    }

    fn trigger_status(&mut self) {
        self.status.trigger();
    }

    /// 36.322 §5.1.3.2.2 and §5.2.3 (polling).
    fn on_amd(&mut self, now: SimTime, pdu: AmdPdu<S>) {
        self.stats.pdus_received += 1;
        self.stats.bytes_received += pdu.size_bytes() as u64;
        let x = pdu.sn;
        let in_window = self.sn.contains(x) && self.off(x) < self.sn.window();
        let placed = if in_window {
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
        if pdu.poll && self.sn.contains(x) {
            // Trigger now if the PDU was discarded, or x < VR(MS), or x >= VR(MR); otherwise
            // wait until one of those holds.
            if !placed || self.off(x) < self.off(self.vr_ms) || self.off(x) >= self.sn.window() {
                self.trigger_status();
            } else {
                let keep = self.delayed_poll.is_some_and(|p| self.off(p) < self.off(x));
                if !keep {
                    self.delayed_poll = Some(x);
                }
            }
        }
        self.check_delayed_poll();
    }

    fn check_delayed_poll(&mut self) {
        if let Some(p) = self.delayed_poll {
            if self.off(p) < self.off(self.vr_ms) || self.off(p) >= self.sn.window() {
                self.delayed_poll = None;
                self.trigger_status();
            }
        }
    }

    /// Stores the new bytes of `pdu` (duplicate byte segments are dropped); false if every byte
    /// had been received before.
    fn place(&mut self, x: u32, pdu: &AmdPdu<S>) -> bool {
        let i = self.off(x) as usize;
        if self.buf.len() <= i {
            self.buf.resize_with(i + 1, || RxPdu::Missing);
        }
        let (so, lsf) = pdu.segment.map_or((0, true), |s| (s.so, s.lsf));
        let len = pdu.data.bytes();
        if len == 0 || so.checked_add(len).is_none() {
            return false; // empty or malformed
        }
        let slot = &mut self.buf[i];
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

    /// 36.322 §5.1.3.2.3: actions when an AMD PDU is placed in the reception buffer.
    fn after_placement(&mut self, now: SimTime, x: u32) {
        if self.off(x) >= self.off(self.vr_h) {
            self.vr_h = self.sn.add(x, 1);
        }
        if self.is_complete(self.off(self.vr_ms) as usize) {
            self.vr_ms = self.first_incomplete_from(self.vr_ms);
        }
        if x == self.vr_r {
            self.advance_vr_r();
        }
        self.update_t_reordering(now);
    }

    /// The first SN at or after `sn` whose AMD PDU is not completely received.
    fn first_incomplete_from(&self, sn: u32) -> u32 {
        let mut i = self.off(sn) as usize;
        while self.is_complete(i) {
            i += 1;
        }
        self.sn.add(self.vr_r, i as u32)
    }

    /// Moves VR(R) over completely received PDUs, reassembling them, and reassembles the
    /// in-sequence byte segments of the new VR(R).
    fn advance_vr_r(&mut self) {
        while self.buf.front().is_some_and(|p| p.is_complete()) {
            if let Some(p) = self.buf.pop_front() {
                p.feed_from(self.vr_r_fed, &mut self.reasm);
            }
            self.vr_r_fed = 0;
            self.vr_r = self.sn.add(self.vr_r, 1);
        }
        if let Some(RxPdu::Partial { segs, .. }) = self.buf.front() {
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
            let x_off = self.off(self.vr_x);
            // VR(X) = VR(R), or VR(X) outside the window and not VR(MR).
            if x_off == 0 || x_off > self.sn.window() {
                self.t_reordering = None;
            }
        }
        if self.t_reordering.is_none() && self.off(self.vr_h) > 0 {
            self.t_reordering = Some(now + self.cfg.t_reordering);
            self.vr_x = self.vr_h;
        }
    }

    /// 36.322 §5.1.3.2.4, run at the expiry instant `at`.
    fn t_reordering_expired(&mut self, at: SimTime) {
        self.stats.t_reordering_expiries += 1;
        let from = if self.off(self.vr_x) >= self.off(self.vr_ms) {
            self.vr_x
        } else {
            self.vr_ms
        };
        self.vr_ms = self.first_incomplete_from(from);
        if self.off(self.vr_h) > self.off(self.vr_ms) {
            self.t_reordering = Some(at + self.cfg.t_reordering);
            self.vr_x = self.vr_h;
        }
        self.trigger_status();
        self.check_delayed_poll();
    }

    /// An MRW from the transmitter: every AMD PDU below `sn_mrw` was acknowledged or
    /// discarded there. Reassemble what was received below it (with gaps for what was not),
    /// move VR(R) to `sn_mrw` and acknowledge (25.322 §11.6.3).
    fn on_mrw(&mut self, now: SimTime, sn_mrw: u32) {
        self.stats.mrw_received += 1;
        if !self.sn.contains(sn_mrw) {
            return;
        }
        let d = self.off(sn_mrw);
        if d > 0 && d <= self.sn.window() {
            let (h_off, ms_off) = (self.off(self.vr_h), self.off(self.vr_ms));
            for _ in 0..d {
                match self.buf.pop_front() {
                    Some(p) => p.feed_from(self.vr_r_fed, &mut self.reasm),
                    None => self.reasm.gap(),
                }
                self.vr_r_fed = 0;
            }
            self.vr_r = sn_mrw;
            if h_off < d {
                self.vr_h = sn_mrw;
            }
            if ms_off < d {
                self.vr_ms = sn_mrw;
            }
            self.advance_vr_r();
            if self.is_complete(self.off(self.vr_ms) as usize) {
                self.vr_ms = self.first_incomplete_from(self.vr_ms);
            }
            self.update_t_reordering(now);
        }
        self.mrw_ack = Some(sn_mrw);
        self.trigger_status();
        self.check_delayed_poll();
    }
}
