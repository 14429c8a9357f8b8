//! The receiving side of an NR AM RLC entity (TS 38.322 §5.2.3.2, §5.3.4).
//!
//! State variables (§7.1), compared modulo 2^sn with RX_Next as the modulus base, kept by the
//! receiving window LTE shares ([`AmRxWindow`], where each has its 36.322 name beside it):
//! * RX_Next — the SN following the last in-sequence completely received RLC SDU, the lower
//!   edge of the receiving window [RX_Next, RX_Next + AM_Window_Size);
//! * RX_Next_Status_Trigger — the SN following the RLC SDU which triggered t-Reassembly;
//! * RX_Highest_Status — the highest SN that can be indicated by ACK_SN in a STATUS PDU;
//! * RX_Next_Highest — the SN following the highest SN among received RLC SDUs.
//!
//! The NR difference from LTE: an RLC SDU is delivered to the upper layer as soon as all its
//! bytes are there (§5.2.3.2.3 "reassemble the RLC SDU ... deliver the reassembled RLC SDU to
//! upper layer"), whatever is missing below it. Reordering is PDCP's job (TS 38.323 §5.2.2.2).
//! t-Reassembly only drives status reporting.

use std::collections::VecDeque;

use celltcp_engine::SimTime;
use celltcp_net::packet::Packet;

use super::am::{NrRlcAmConfig, NrRlcAmRxStats};
use super::pdu::{NackSo, NrAmdPdu, NrNack, NrStatusPdu, MAX_NACK_RANGE, STATUS_BASE_BITS};
use super::segments::SduSegments;
use crate::rlc::am_rx_window::{AmRxWindow, RxEntry};
use crate::rlc::status_report::StatusReporting;
use crate::rlc::{earliest, DataElement, RlcConfigError, RlcSdu};

/// What has been received of one RLC SDU.
#[derive(Debug)]
enum RxSdu {
    Missing,
    Partial(SduSegments),
    /// Reassembled and delivered; later copies are duplicates.
    Delivered,
}

impl RxEntry for RxSdu {
    fn missing() -> Self {
        RxSdu::Missing
    }
    /// Complete SDUs are delivered at once (§5.2.3.2.3), so complete means delivered.
    #[inline]
    fn is_complete(&self) -> bool {
        matches!(self, RxSdu::Delivered)
    }
}

/// What placing a PDU did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Placed {
    Duplicate,
    Stored,
    /// The SDU is complete and was delivered.
    Completed,
}

/// A run of missing bytes across consecutive SDUs, the material of one NACK (§5.3.4).
#[derive(Clone, Copy, Debug)]
struct MissingRun {
    /// Offsets from RX_Next of the first and last SDU.
    first: u32,
    last: u32,
    so_start: u32,
    /// End in the last SDU, exclusive; `None`: to its last byte.
    end: Option<u32>,
}

/// Receiving side of an NR AM entity. See the module documentation for the state it keeps.
#[derive(Debug)]
pub struct NrRlcAmRx<S: RlcSdu = Packet> {
    cfg: NrRlcAmConfig,
    /// RX_Next, RX_Next_Status_Trigger, RX_Highest_Status, RX_Next_Highest, the reception
    /// buffer for SNs [RX_Next, RX_Next_Highest) and the delayed polls (§5.3.4).
    win: AmRxWindow<RxSdu>,
    ready: VecDeque<S>,
    t_reassembly: Option<SimTime>,
    /// The STATUS trigger and t-StatusProhibit (§5.3.4).
    status: StatusReporting,
    scratch: Vec<(u32, Option<u32>)>,
    stats: NrRlcAmRxStats,
}

impl<S: RlcSdu> NrRlcAmRx<S> {
    pub fn new(config: NrRlcAmConfig) -> Result<Self, RlcConfigError> {
        config.validate()?;
        Ok(NrRlcAmRx {
            cfg: config,
            win: AmRxWindow::new(config.sn_length.bits()),
            ready: VecDeque::new(),
            t_reassembly: None,
            status: StatusReporting::new(config.t_status_prohibit),
            scratch: Vec::new(),
            stats: NrRlcAmRxStats::default(),
        })
    }

    /// A receiving side whose state variables start at `sn` instead of 0 (see
    /// [`NrRlcAmTx::starting_at`](super::NrRlcAmTx)).
    #[cfg(test)]
    pub(crate) fn starting_at(config: NrRlcAmConfig, sn: u32) -> Self {
        let mut rx = Self::new(config).expect("valid test configuration");
        rx.win = AmRxWindow::starting_at(config.sn_length.bits(), sn);
        rx
    }

    /// RX_Next.
    pub fn rx_next(&self) -> u32 {
        self.win.next()
    }
    /// RX_Highest_Status.
    pub fn rx_highest_status(&self) -> u32 {
        self.win.highest_status()
    }
    /// RX_Next_Highest.
    pub fn rx_next_highest(&self) -> u32 {
        self.win.next_highest()
    }
    pub fn stats(&self) -> NrRlcAmRxStats {
        self.stats
    }
    /// Whether a STATUS report has been triggered and not yet sent.
    pub fn status_triggered(&self) -> bool {
        self.status.is_triggered()
    }

    /// The next reassembled SDU, in the order reassembly completed.
    pub fn take_sdu(&mut self) -> Option<S> {
        self.ready.pop_front()
    }

    /// RLC re-establishment (§5.1.2: "discard all RLC SDUs, RLC SDU segments, and RLC PDUs,
    /// if any; stop and reset all timers; reset all state variables to their initial
    /// values"). Unlike LTE's (36.322 §5.4) nothing is reassembled and delivered: a complete
    /// SDU has been delivered already (§5.2.3.2.3), so only partly received ones are lost,
    /// counted in `sdus_dropped`. SDUs delivered and not yet taken stay available.
    pub fn reestablish(&mut self) {
        let mut dropped = 0;
        self.win
            .reset(|e| dropped += u64::from(matches!(e, RxSdu::Partial(_))));
        self.stats.sdus_dropped += dropped;
        self.t_reassembly = None;
        self.status.reset();
    }

    /// An AMD PDU from the peer (§5.2.3.2.2, §5.2.3.2.3, polling §5.3.4).
    pub fn on_pdu(&mut self, now: SimTime, pdu: NrAmdPdu<S>) {
        self.on_timeout(now);
        self.stats.pdus_received += 1;
        self.stats.bytes_received += pdu.size_bytes() as u64;
        let x = pdu.sn;
        let in_window = self.win.contains(x);
        let placed = if in_window {
            self.place(x, &pdu.data)
        } else {
            self.stats.pdus_outside_window += 1;
            Placed::Duplicate
        };
        match placed {
            Placed::Duplicate if in_window => self.stats.pdus_duplicate += 1,
            Placed::Duplicate => {}
            Placed::Stored | Placed::Completed => {
                self.after_placement(now, x, placed == Placed::Completed)
            }
        }
        // §5.3.4 polling, the rule LTE shares (`AmRxWindow::on_poll`).
        let discarded = placed == Placed::Duplicate;
        if pdu.poll && self.win.sn().contains(x) && self.win.on_poll(x, discarded) {
            self.status.trigger();
        }
        self.check_delayed_poll();
    }

    /// Bytes of the STATUS PDU this side would send at `now`, 0 if none is due.
    pub fn status_bytes(&self, now: SimTime) -> u32 {
        if !self.status.is_due(now) {
            return 0;
        }
        let mut scratch = Vec::new();
        let bits: u32 = self
            .missing_runs(&mut scratch)
            .iter()
            .map(|r| self.nack(r).bits(self.cfg.sn_length))
            .sum();
        (STATUS_BASE_BITS + bits).div_ceil(8)
    }

    /// The STATUS PDU for a transmission opportunity of `grant_bytes`, if one is triggered and
    /// t-StatusProhibit is not running (§5.3.4). NACKs are listed "in increasing SN order ...
    /// up to the point where the resulting STATUS PDU still fits"; ACK_SN is then "the SN of the
    /// next not received RLC SDU which is not indicated as missing".
    pub fn pull_status(&mut self, now: SimTime, grant_bytes: u32) -> Option<NrStatusPdu> {
        self.on_timeout(now);
        let budget = grant_bytes.saturating_mul(8);
        if !self.status.is_due(now) || budget < STATUS_BASE_BITS {
            return None;
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        let runs = self.missing_runs(&mut scratch);
        self.scratch = scratch;
        let mut bits = STATUS_BASE_BITS;
        let mut nacks = Vec::with_capacity(runs.len());
        let mut ack_sn = self.win.highest_status();
        for r in &runs {
            let nack = self.nack(r);
            let need = nack.bits(self.cfg.sn_length);
            if bits + need > budget {
                ack_sn = self.cut_before(&mut nacks, nack.sn);
                break;
            }
            bits += need;
            nacks.push(nack);
        }
        self.status.sent(now);
        self.stats.status_sent += 1;
        Some(NrStatusPdu {
            ack_sn,
            nacks,
            sn_length: self.cfg.sn_length,
        })
    }

    /// ACK_SN for a STATUS PDU cut before a NACK of SDU `sn`: the NACKs already listed that
    /// reach SDU `sn` go too, so that ACK_SN never names an SDU the STATUS reports missing in
    /// part (§6.2.3.10: below ACK_SN, everything a NACK does not name was received).
    fn cut_before(&self, nacks: &mut Vec<NrNack>, sn: u32) -> u32 {
        let mut ack_sn = sn;
        while let Some(last) = nacks.last() {
            if self.off(last.sn) + last.sdus() <= self.off(ack_sn) {
                break;
            }
            ack_sn = last.sn;
            nacks.pop();
        }
        ack_sn
    }

    /// Earliest deadline: t-Reassembly, or t-StatusProhibit while a STATUS report waits.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        earliest(self.t_reassembly, self.status.deadline())
    }

    /// Runs the timers due at or before `now`, each at its own deadline.
    pub fn on_timeout(&mut self, now: SimTime) {
        self.status.on_timeout(now);
        if let Some(t) = self.t_reassembly.filter(|&t| t <= now) {
            self.t_reassembly = None;
            self.t_reassembly_expired(t);
        }
    }

    /// Offset of `sn` from RX_Next, the modulus base (§7.1).
    #[inline]
    fn off(&self, sn: u32) -> u32 {
        self.win.off(sn)
    }

    /// §5.2.3.2.2: stores the new bytes of SDU `x`, delivering it when complete.
    fn place(&mut self, x: u32, e: &DataElement<S>) -> Placed {
        let slot = self.win.entry_mut(x);
        let complete = match slot {
            RxSdu::Delivered => return Placed::Duplicate,
            RxSdu::Missing => {
                *slot = RxSdu::Partial(SduSegments::new(e));
                e.is_sdu_start() && e.is_sdu_end()
            }
            RxSdu::Partial(s) => {
                if !s.insert(e) {
                    return Placed::Duplicate;
                }
                s.is_complete()
            }
        };
        if !complete {
            return Placed::Stored;
        }
        // §5.2.3.2.3: deliver at once — out of SN order when SDUs below are missing.
        self.ready.push_back(e.sdu);
        self.stats.sdus_delivered += 1;
        *slot = RxSdu::Delivered;
        Placed::Completed
    }

    /// §5.2.3.2.3 after an AMD PDU with SN = x was placed (RX_Next_Highest and
    /// RX_Highest_Status in [`AmRxWindow::on_placed`]); "if x = RX_Next", RX_Next moves to the
    /// first SN above it whose SDU is not completely received.
    fn after_placement(&mut self, now: SimTime, x: u32, completed: bool) {
        self.win.on_placed(x);
        if completed && x == self.win.next() {
            self.win.advance_next(drop);
        }
        self.update_t_reassembly(now);
    }

    /// SDU RX_Next + `i` has a byte missing before the last byte received of it.
    fn gap_before_last_byte(&self, i: usize) -> bool {
        matches!(self.win.get(i), Some(RxSdu::Partial(s)) if s.has_gap_before_last_byte())
    }

    /// Whether t-Reassembly should run with RX_Next_Highest relative to `base` (§5.2.3.2.3 and
    /// §5.2.3.2.4: "RX_Next_Highest > base + 1; or RX_Next_Highest = base + 1 and there is at
    /// least one missing byte segment of the SDU with SN = base before the last byte").
    fn reassembly_pending_above(&self, base: u32) -> bool {
        let d = self.win.sn().offset(self.win.next_highest(), base);
        d > 1 && d <= self.win.sn().window()
            || d == 1 && self.gap_before_last_byte(self.off(base) as usize)
    }

    /// §5.2.3.2.3: stop t-Reassembly when what triggered it is resolved; start it when
    /// something is missing.
    fn update_t_reassembly(&mut self, now: SimTime) {
        if self.t_reassembly.is_some() {
            let trig = self.off(self.win.status_trigger());
            let resolved = trig == 0
                || (trig == 1 && !self.gap_before_last_byte(0))
                || trig > self.win.sn().window();
            if resolved {
                self.t_reassembly = None;
            }
        }
        if self.t_reassembly.is_none() && self.reassembly_pending_above(self.win.next()) {
            self.t_reassembly = Some(now + self.cfg.t_reassembly);
            self.win.mark_status_trigger();
        }
    }

    /// §5.2.3.2.4, run at the expiry instant `at`.
    fn t_reassembly_expired(&mut self, at: SimTime) {
        self.stats.t_reassembly_expiries += 1;
        self.win.set_highest_status_from(self.win.status_trigger());
        if self.reassembly_pending_above(self.win.highest_status()) {
            self.t_reassembly = Some(at + self.cfg.t_reassembly);
            self.win.mark_status_trigger();
        }
        // §5.3.4: t-Reassembly expiry is the "detection of reception failure" trigger.
        self.status.trigger();
        self.check_delayed_poll();
    }

    fn check_delayed_poll(&mut self) {
        if self.win.delayed_poll_due() {
            self.status.trigger();
        }
    }

    /// The missing bytes of SNs [RX_Next, RX_Highest_Status) as maximal runs (§5.3.4): a run
    /// continues into the next SDU when it reaches the last byte of one SDU and the next SDU's
    /// first byte is missing, up to NACK range's 255 SDUs.
    fn missing_runs(&self, scratch: &mut Vec<(u32, Option<u32>)>) -> Vec<MissingRun> {
        let mut runs: Vec<MissingRun> = Vec::new();
        for i in 0..self.off(self.win.highest_status()) {
            match self.win.get(i as usize) {
                Some(RxSdu::Delivered) => continue,
                Some(RxSdu::Partial(s)) => s.missing(scratch),
                Some(RxSdu::Missing) | None => {
                    scratch.clear();
                    scratch.push((0, None));
                }
            }
            for &(start, end) in scratch.iter() {
                match runs.last_mut() {
                    Some(r)
                        if r.end.is_none()
                            && r.last + 1 == i
                            && start == 0
                            && i - r.first < MAX_NACK_RANGE =>
                    {
                        r.last = i;
                        r.end = end;
                    }
                    _ => runs.push(MissingRun {
                        first: i,
                        last: i,
                        so_start: start,
                        end,
                    }),
                }
            }
        }
        runs
    }

    /// The NACK that reports `r` (§6.2.2.5): SOstart/SOend unless the run covers whole SDUs,
    /// NACK range when it spans more than one.
    fn nack(&self, r: &MissingRun) -> NrNack {
        let whole = r.so_start == 0 && r.end.is_none();
        NrNack {
            sn: self.win.sn().add(self.win.next(), r.first),
            so: (!whole).then_some(NackSo {
                start: r.so_start,
                end: r.end,
            }),
            range: (r.last > r.first).then(|| (r.last - r.first + 1) as u8),
        }
    }
}
