//! The per-UE state of a radio access network: where the UE is served, how it moves and
//! measures, its PDCP receiver (which persists across cells, TS 36.323 §5.1.2.1.2), its uplink
//! packets held during an interruption, and its handover in progress.
//!
//! Also the last hop to the UE node: every downlink PDCP PDU a cell's RLC reassembled, or the
//! source handed over at detach, goes through [`LteRan::pdcp_receive`], which counts duplicates
//! and reordering against the UE's latest handover; what the receiver releases meets the UE's
//! receive errors, if it has a model, on its way to the UE node.

use std::collections::{BTreeMap, VecDeque};

use celltcp_engine::{RngStream, SimTime};
use celltcp_net::medium::{Medium, MediumOutput};
use celltcp_net::packet::{FlowId, NodeId, Packet};
use celltcp_net::queue::DropCause;

use crate::cell::bearer::BearerSdu;
use crate::cell::downlink_loss::DownlinkLoss;
use crate::cell::StampedPacket;
use crate::channel::Position;
use crate::measurement::{A3Monitor, L3Filter, RlfMonitor};
use crate::mobility::Mobility;
use crate::pdcp::{PdcpConfig, PdcpRx};

use super::conditional::Conditional;
use super::config::TriggerQuantity;
use super::procedure::Handover;
use super::timeline::{DropPlace, PacketFate};
use super::LteRan;

/// Uplink packets a UE keeps while it is not served (between the handover command and the
/// attach, or during re-establishment); beyond this the oldest stay and new ones are dropped.
pub const UPLINK_HOLD_PACKETS: usize = 1000;

/// One UE of the network.
#[derive(Debug)]
pub(super) struct UeRan {
    pub node: NodeId,
    /// Index of the cell that serves the UE, or served it last while it is detached.
    pub serving: usize,
    /// Served by `serving` now (false from the handover command or the radio link failure to
    /// the attach).
    pub attached: bool,
    /// Index of the cell the S-GW tunnels the UE's downlink to (changes at each path switch).
    pub sgw_cell: usize,
    /// The COUNT the serving cell's PDCP transmitter gives the next fresh downlink SDU: set at
    /// each attach, one more per SDU sent through [`LteRan::send_fresh`], checked against the
    /// cell's at each detach (DAPS needs it before the source lets the UE go).
    pub next_dl_count: u32,
    /// Per cell: it served the UE at some time (late packets there are handover losses, not
    /// routing errors).
    pub ever_served: Vec<bool>,
    pub mobility: Mobility,
    pub position: Position,
    /// m/s.
    pub speed_mps: f64,
    /// `ran/ue/NODE/measurement`: layer-1 measurement errors.
    pub measurement_rng: RngStream,
    /// Layer-3 filtered RSRP per cell, dBm.
    pub l3: Vec<L3Filter>,
    /// `ran/ue/NODE/measurement/rsrq`: the layer-1 error of RSRQ, apart from RSRP's so that
    /// adding RSRQ left the RSRP samples unchanged.
    pub rsrq_rng: RngStream,
    /// Layer-3 filtered RSRQ per cell, dB (same filterCoefficient as RSRP).
    pub l3_rsrq: Vec<L3Filter>,
    pub a3: Option<A3Monitor>,
    /// With the conditional handover procedure: its conditions and candidates.
    pub cho: Option<Conditional>,
    /// CHO: candidates that admitted the UE and whose HANDOVER CANCEL is on its way (they hold
    /// the UE's place until it arrives), one entry per cancel.
    pub cancels_in_flight: Vec<usize>,
    pub rlf: Option<RlfMonitor>,
    pub pdcp: PdcpRx<StampedPacket>,
    /// The PDCP receiver reorders by COUNT (from a detach until the handover is over and
    /// nothing is held back); otherwise it delivers as RLC delivers, as in a plain cell.
    pub pdcp_reordering: bool,
    /// COUNTs the PDCP receiver got, to tell a duplicate from a PDU that came too late.
    pub received: ReceivedCounts,
    pub uplink_hold: VecDeque<Packet>,
    /// The handover in progress, at most one (36.300 §10.1.2.1: one procedure per UE).
    pub ho: Option<Handover>,
    /// The UE's latest handover record, and the latest whose command has passed (duplicates
    /// and reordering are blamed on it).
    pub latest_record: Option<u32>,
    pub last_commanded: Option<u32>,
    /// Per flow, the largest packet uid delivered to the UE node.
    pub max_uid: BTreeMap<FlowId, u64>,
    /// `ran/ue/NODE/downlink_loss`: the UE receiver's errors on the IP packets its PDCP
    /// receiver releases, whichever cell served them (`cell::downlink_loss`).
    pub downlink_loss: Option<DownlinkLoss>,
}

impl UeRan {
    /// Filtered RSRP of every cell that has one, (cell index, dBm).
    pub fn filtered(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.filtered_of(TriggerQuantity::Rsrp)
    }

    /// The layer-3 filters of quantity `q`, one per cell.
    pub fn filters_of(&self, q: TriggerQuantity) -> &[L3Filter] {
        match q {
            TriggerQuantity::Rsrp => &self.l3,
            TriggerQuantity::Rsrq => &self.l3_rsrq,
        }
    }

    /// Filtered value of quantity `q` of every cell that has one, (cell index, dBm or dB).
    pub fn filtered_of(&self, q: TriggerQuantity) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.filters_of(q)
            .iter()
            .enumerate()
            .filter_map(|(c, f)| f.value().map(|v| (c, v)))
    }

    /// The cell with the best filtered RSRP (lowest index on a tie), if any was measured.
    pub fn best_cell(&self) -> Option<usize> {
        self.filtered()
            .fold(None, |best: Option<(usize, f64)>, (c, v)| match best {
                Some((_, b)) if b >= v => best,
                _ => Some((c, v)),
            })
            .map(|(c, _)| c)
    }
}

/// The set of PDCP COUNTs a receiver got within the last `2^bits` below the highest, as a ring
/// bitmap. A PDU the receiver discards is a duplicate if its COUNT is in the set, else it came
/// after the receiver had moved past it (a loss).
#[derive(Clone, Debug)]
pub(super) struct ReceivedCounts {
    bits: Vec<u64>,
    /// Ring size, a power of two.
    size: u32,
    max: Option<u32>,
}

impl ReceivedCounts {
    /// A window of `2^sn_bits` COUNTs (twice the PDCP reordering window, 36.323 §7.2).
    pub fn new(sn_bits: u8) -> Self {
        let size = 1u32 << sn_bits.clamp(6, 24);
        ReceivedCounts {
            bits: vec![0; (size / 64) as usize],
            size,
            max: None,
        }
    }

    fn slot(&self, count: u32) -> (usize, u64) {
        let i = count & (self.size - 1);
        ((i / 64) as usize, 1u64 << (i % 64))
    }

    pub fn insert(&mut self, count: u32) {
        match self.max {
            Some(max) if count <= max => {
                if max - count < self.size {
                    let (w, b) = self.slot(count);
                    self.bits[w] |= b;
                }
                return;
            }
            Some(max) if count - max < self.size => {
                // Forget what falls out of the window as it slides up to `count`.
                for c in max + 1..count {
                    let (w, b) = self.slot(c);
                    self.bits[w] &= !b;
                }
            }
            _ => self.bits.fill(0),
        }
        let (w, b) = self.slot(count);
        self.bits[w] |= b;
        self.max = Some(count);
    }

    /// Whether the UE's PDCP status report confirms `count` (36.323 §6.2.6): a COUNT it has,
    /// or one older than the window, which lies below the first missing COUNT (FMS) the
    /// report carries.
    pub fn reported(&self, count: u32) -> bool {
        match self.max {
            Some(max) if count <= max && max - count >= self.size => true,
            _ => self.contains(count),
        }
    }

    pub fn contains(&self, count: u32) -> bool {
        match self.max {
            Some(max) if count <= max && max - count < self.size => {
                let (w, b) = self.slot(count);
                self.bits[w] & b != 0
            }
            _ => false,
        }
    }
}

impl LteRan {
    /// Hands a downlink PDCP PDU to UE `u`'s PDCP receiver and delivers what it releases. A PDU
    /// the receiver discards is counted against the UE's latest commanded handover: as a
    /// duplicate if the UE already had its COUNT, else as a loss (it arrived after the receiver
    /// moved past it: reordering off, or t-Reordering expired) and reported dropped.
    pub(super) fn pdcp_receive(
        &mut self,
        now: SimTime,
        u: usize,
        pdu: BearerSdu,
        out: &mut MediumOutput,
    ) {
        let ue = &mut self.ues[u];
        let count = pdu.count;
        let packet = pdu.sdu.packet;
        let discarded_before = ue.pdcp.stats().pdus_discarded;
        ue.pdcp.on_pdu(now, pdu);
        if ue.pdcp.stats().pdus_discarded > discarded_before {
            let blame = ue.last_commanded;
            let duplicate = ue.received.contains(count);
            self.dc_note_discard(duplicate);
            if duplicate {
                self.timeline
                    .count(blame, packet.flow, PacketFate::Duplicated);
            } else {
                self.timeline
                    .count(blame, packet.flow, PacketFate::Dropped(DropPlace::Target));
                out.dropped.push((packet, DropCause::Handover));
            }
        } else {
            ue.received.insert(count);
        }
        self.deliver_ready(now, u, out);
    }

    /// UE `u` leaves a cell: if the network reorders, its PDCP receiver reorders by COUNT
    /// until the handover is over (36.323 §5.1.2.1.2: PDUs received because of the
    /// re-establishment of the lower layers are delivered in COUNT order; §5.1.2.1.4
    /// t-Reordering bounds the wait for a missing one).
    pub(super) fn reorder_pdcp(&mut self, now: SimTime, u: usize) {
        if let Some(cfg) = self.pdcp_reordering_cfg {
            if !self.ues[u].pdcp_reordering {
                self.swap_pdcp(now, u, cfg);
                self.ues[u].pdcp_reordering = true;
            }
        }
    }

    /// Once UE `u` has no handover in progress and its PDCP receiver holds nothing back, the
    /// receiver delivers as RLC delivers again (in a cell, RLC AM delivers in sequence).
    pub(super) fn settle_pdcp(&mut self, now: SimTime, u: usize) {
        let ue = &self.ues[u];
        if self.pdcp_always_reorders {
            return;
        }
        if ue.pdcp_reordering && ue.ho.is_none() && ue.pdcp.poll_timeout().is_none() {
            self.swap_pdcp(now, u, self.pdcp_cfg);
            self.ues[u].pdcp_reordering = false;
        }
    }

    /// Rebuilds UE `u`'s PDCP receiver with `cfg`, continuing at its next COUNT. Called only
    /// when the receiver holds nothing (no reordering yet, or t-Reordering not running), so
    /// nothing is delivered here.
    fn swap_pdcp(&mut self, now: SimTime, u: usize, cfg: PdcpConfig) {
        let ue = &mut self.ues[u];
        let (next, stored) = ue.pdcp.forward();
        debug_assert!(stored.is_empty());
        match PdcpRx::resume(cfg, now, next, stored) {
            Ok(rx) => ue.pdcp = rx,
            Err(e) => {
                let node = ue.node;
                self.internal_error(format!("PDCP receiver of UE {node}: {e}"));
            }
        }
    }

    /// Delivers to the UE node every SDU its PDCP receiver has released at `now`, noting
    /// reordering. With a downlink loss model each packet may be lost at the UE's receiver
    /// first (dropped as a link loss); a lost packet does not count for reordering, since the
    /// UE node never sees it.
    pub(super) fn deliver_ready(&mut self, now: SimTime, u: usize, out: &mut MediumOutput) {
        let ue = &mut self.ues[u];
        while let Some(sdu) = ue.pdcp.take_sdu() {
            let p = sdu.packet;
            if let Some(loss) = ue.downlink_loss.as_mut() {
                if loss.is_lost(now, &p) {
                    out.dropped.push((p, DropCause::LinkLoss));
                    continue;
                }
            }
            let max = ue.max_uid.entry(p.flow).or_insert(p.uid);
            if p.uid < *max {
                self.timeline
                    .count(ue.last_commanded, p.flow, PacketFate::Reordered);
            } else {
                *max = p.uid;
            }
            out.delivered.push((ue.node, p));
        }
    }

    /// UE `u` sends an uplink packet: through its serving cell, or into its hold while it is
    /// not served.
    pub(super) fn uplink(&mut self, now: SimTime, u: usize, pkt: Packet, out: &mut MediumOutput) {
        let ue = &mut self.ues[u];
        if ue.attached {
            let c = ue.serving;
            let (node, enb) = (ue.node, self.enbs[c]);
            self.cells[c].send(now, node, enb, pkt, out);
        } else if ue.uplink_hold.len() < UPLINK_HOLD_PACKETS {
            ue.uplink_hold.push_back(pkt);
        } else {
            out.dropped.push((pkt, DropCause::Handover));
        }
    }

    /// After an attach: the uplink packets held at the UE go to its new serving cell, oldest
    /// first (36.300 §10.1.2.1.2: the UE sends them to the target).
    pub(super) fn flush_uplink_hold(&mut self, now: SimTime, u: usize, out: &mut MediumOutput) {
        let ue = &mut self.ues[u];
        let c = ue.serving;
        let (node, enb) = (ue.node, self.enbs[c]);
        while let Some(p) = ue.uplink_hold.pop_front() {
            self.cells[c].send(now, node, enb, p, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn received_counts_slide_with_the_highest_count() {
        let mut r = ReceivedCounts::new(7); // 128 COUNTs
        assert!(!r.contains(0));
        for c in 0..10 {
            r.insert(c);
        }
        assert!(r.contains(9) && r.contains(0) && !r.contains(10));
        r.insert(12);
        assert!(!r.contains(10) && !r.contains(11) && r.contains(12));
        r.insert(11);
        assert!(r.contains(11));
        // Sliding past 0 forgets it; its ring slot is reused by 128 without aliasing.
        r.insert(127);
        assert!(r.contains(0));
        r.insert(128);
        assert!(!r.contains(0), "0 fell out of the window");
        assert!(r.contains(128) && r.contains(12));
        // A jump beyond the window forgets everything.
        r.insert(10_000);
        assert!(!r.contains(128) && r.contains(10_000));
    }
}
