//! The user plane of a handover (TS 36.300 §10.1.2.1.2 data forwarding, §10.1.2.2 path switch
//! and end marker): where a downlink packet goes depending on the role of the eNB it reached,
//! what the source does with its buffer at the handover command, and the target's buffer.
//!
//! Downlink packets reaching eNB `c` for a UE:
//! * `c` is the source and the UE has left it: `Discard` drops them; the other policies
//!   forward them over X2-U as fresh data (no PDCP COUNT: the target numbers them); after the
//!   UE CONTEXT RELEASE or after the forwarded end marker they are dropped;
//! * `c` is the target: held while the UE is not attached, or, with reordering, until the
//!   forwarded end marker arrives (or its timeout expires) so that forwarded data go first;
//! * `c` serves the UE: the cell's PDCP numbers and queues them;
//! * otherwise dropped: `Handover` if `c` served the UE before (late packets of an old path),
//!   `NoRoute` if it never did.
//!
//! The target's buffer is per UE, limited by `target_buffer`; what does not fit is dropped
//! (seed 002's buffer overrun). Forwarded data leave it before held data of the new path,
//! which keep their arrival order. Once the UE is attached, forwarded data go straight to the
//! cell: PDCP PDUs with their COUNT — except those the UE's PDCP status report confirms
//! (36.323 §5.4, `pdcp.status_report_required`) — and fresh data numbered by the target. A
//! forwarded packet the target's full RLC buffer refuses is a loss of the handover, with or
//! without a COUNT. Without reordering the
//! new path's data are not held back, so a forwarded PDU may reach the UE after PDUs with
//! higher COUNTs; its PDCP receiver then discards it (a loss, counted `dropped`).

use std::collections::VecDeque;

use celltcp_engine::SimTime;
use celltcp_net::handover::HandoverPolicy;
use celltcp_net::medium::{MediumOutput, MediumRequest};
use celltcp_net::packet::Packet;
use celltcp_net::queue::DropCause;

use crate::cell::bearer::BearerSdu;
use crate::cell::StampedPacket;
use crate::pdcp::PdcpPdu;
use crate::rlc::BufferLimit;

use super::procedure::Ids;
use super::timeline::{DropPlace, PacketFate};
use super::LteRan;

/// Data a target eNB holds for a UE during a handover.
#[derive(Clone, Debug, Default)]
pub(super) struct TargetBuffer {
    /// From the source over X2-U, with the PDCP COUNT it gave them (if any), in arrival order.
    forwarded: VecDeque<(Packet, Option<u32>)>,
    /// From the S-GW on the new path, in arrival order.
    direct: VecDeque<Packet>,
    /// Bytes of both queues (IP datagram sizes).
    bytes: u64,
}

impl TargetBuffer {
    pub fn is_empty(&self) -> bool {
        self.forwarded.is_empty() && self.direct.is_empty()
    }

    fn len(&self) -> usize {
        self.forwarded.len() + self.direct.len()
    }

    /// Whether one more packet of `size` bytes fits under `limit`.
    fn fits(&self, limit: BufferLimit, size: u32) -> bool {
        match limit {
            BufferLimit::Unlimited => true,
            BufferLimit::Bytes(max) => self.bytes + u64::from(size) <= max,
            BufferLimit::Sdus(max) => self.len() < max,
        }
    }
}

impl LteRan {
    /// A downlink packet for UE `u` reached the eNB of cell `c` (module documentation).
    pub(super) fn downlink(
        &mut self,
        now: SimTime,
        c: usize,
        u: usize,
        pkt: Packet,
        out: &mut MediumOutput,
    ) {
        if self.dc.is_some() {
            // EN-DC: the S-GW tunnels to the MN, whose PDCP numbers and splits
            // (`dual_connectivity.rs`).
            if c == self.ues[u].serving {
                self.dc_downlink(now, u, pkt, out);
            } else {
                out.dropped.push((pkt, DropCause::NoRoute));
            }
            return;
        }
        let ue = &mut self.ues[u];
        let served_here = ue.attached && ue.serving == c;
        if ue
            .ho
            .as_ref()
            .is_some_and(|h| h.source_leg && c == h.source)
        {
            self.daps_source_downlink(now, u, pkt, out);
            return;
        }
        if ue
            .ho
            .as_ref()
            .is_some_and(|h| h.conditional && !h.success_received && c == h.source)
        {
            // CHO: the UE left without a word; the source keeps its data until HANDOVER
            // SUCCESS.
            self.cho_source_keeps(u, pkt);
            return;
        }
        if let Some(h) = ue.ho.as_mut() {
            self.timeline.touch_flow(h.id, pkt.flow);
            if c == h.source && h.detached && !served_here {
                let id = Some(h.id);
                if !h.forwards() || h.released || h.end_marker_forwarded {
                    self.timeline
                        .count(id, pkt.flow, PacketFate::Dropped(DropPlace::Source));
                    out.dropped.push((pkt, DropCause::Handover));
                } else {
                    // 36.300 §10.1.2.1.2: fresh data reaching the source are forwarded
                    // without a PDCP SN.
                    let (from, to) = (self.enbs[h.source], self.enbs[h.target]);
                    self.timeline.count(id, pkt.flow, PacketFate::Forwarded);
                    out.requests.push(MediumRequest::Forward {
                        from,
                        to,
                        pkt,
                        pdcp_count: None,
                    });
                }
                return;
            }
            if c == h.target && (!h.attached || !h.new_path_open) {
                self.hold(u, pkt, None, out);
                return;
            }
        }
        let ue = &self.ues[u];
        if served_here {
            self.send_fresh(now, c, u, pkt, out);
        } else if ue.ever_served[c] {
            self.timeline.count(
                ue.latest_record,
                pkt.flow,
                PacketFate::Dropped(DropPlace::Source),
            );
            out.dropped.push((pkt, DropCause::Handover));
        } else {
            out.dropped.push((pkt, DropCause::NoRoute));
        }
    }

    /// Forwarded data (`Some(pdcp_count)` = a forwarded PDCP PDU; `None` inside = fresh data)
    /// or new-path data (`forwarded = None`) into the target's buffer, if it fits.
    fn hold(
        &mut self,
        u: usize,
        pkt: Packet,
        forwarded: Option<Option<u32>>,
        out: &mut MediumOutput,
    ) {
        let limit = self.ho_cfg.target_buffer;
        let Some(h) = self.ues[u].ho.as_mut() else {
            out.dropped.push((pkt, DropCause::Handover));
            return;
        };
        let copy = h.daps && matches!(forwarded, Some(Some(_)));
        if !h.held.fits(limit, pkt.size_bytes()) {
            if copy {
                // DAPS: an early copy; the source still has the SDU and forwards it at its
                // release since the target does not hold it. Not a loss.
                return;
            }
            self.timeline
                .count(Some(h.id), pkt.flow, PacketFate::Dropped(DropPlace::Target));
            out.dropped.push((pkt, DropCause::Handover));
            return;
        }
        h.held.bytes += u64::from(pkt.size_bytes());
        if let (true, Some(Some(count))) = (copy, forwarded) {
            h.at_target.insert(count);
        }
        match forwarded {
            Some(count) => h.held.forwarded.push_back((pkt, count)),
            None => h.held.direct.push_back(pkt),
        }
    }

    /// X2-U data from a source reached the eNB of cell `c` for UE `u`.
    pub(super) fn tunnel_forwarded(
        &mut self,
        now: SimTime,
        c: usize,
        u: usize,
        pkt: Packet,
        pdcp_count: Option<u32>,
        out: &mut MediumOutput,
    ) {
        let ue = &self.ues[u];
        match ue.ho.as_ref() {
            Some(h) if h.forwards() && c == h.target => {
                self.timeline.touch_flow(h.id, pkt.flow);
                if h.attached {
                    // Attached: forwarded data go straight to the cell, ahead of any held
                    // new-path data (which wait for the end marker).
                    self.forwarded_to_cell(now, c, u, pkt, pdcp_count, out);
                } else {
                    self.hold(u, pkt, Some(pdcp_count), out);
                }
            }
            _ => {
                // No handover to this eNB any more (it failed, or the UE re-established
                // elsewhere): the forwarding tunnel leads nowhere.
                self.timeline.count(
                    ue.latest_record,
                    pkt.flow,
                    PacketFate::Dropped(DropPlace::Target),
                );
                out.dropped.push((pkt, DropCause::Handover));
            }
        }
    }

    /// A forwarded packet into cell `c`'s bearer of UE `u`: with its COUNT (36.300
    /// §10.1.2.1.2), or numbered by the target's PDCP when it has none.
    fn forwarded_to_cell(
        &mut self,
        now: SimTime,
        c: usize,
        u: usize,
        pkt: Packet,
        pdcp_count: Option<u32>,
        out: &mut MediumOutput,
    ) {
        let node = self.ues[u].node;
        let Some(count) = pdcp_count else {
            self.send_forwarded_fresh(now, c, u, pkt, out);
            return;
        };
        if self.status_report_confirms(c, u, count) {
            // The UE has it: it got it from the source before the detach (its RLC STATUS had
            // not reached the source) or, with DAPS, over the source leg.
            return;
        }
        let pdcp = self.cells[c].config().pdcp;
        let pdu: BearerSdu = PdcpPdu {
            count,
            sdu: StampedPacket {
                packet: pkt,
                arrived: now,
            },
            header_bytes: pdcp.header_bytes(),
            sn_bits: pdcp.sn_bits,
        };
        let written = self.cells[c].write_forwarded(now, node, pdu);
        if let Some(h) = self.ues[u]
            .ho
            .as_mut()
            .filter(|h| h.daps && written.is_ok())
        {
            h.at_target.insert(count);
        }
        let early_copy = self.ues[u].ho.as_ref().is_some_and(|h| h.source_leg);
        if written.is_err() && !early_copy {
            // The target's RLC buffer is full: a forwarded packet lost to the handover (a DAPS
            // copy while the source serves is not: the source still has it).
            let blame = self.ues[u].ho.as_ref().map(|h| h.id);
            self.timeline
                .count(blame, pkt.flow, PacketFate::Dropped(DropPlace::Target));
            out.dropped.push((pkt, DropCause::Handover));
        }
    }

    /// An end marker reached the eNB of cell `c` for UE `u`: from the S-GW at the source
    /// (forward it after the forwarded data), or from the source at the target (the new
    /// path's data may follow the forwarded ones).
    pub(super) fn tunnel_end_marker(
        &mut self,
        now: SimTime,
        c: usize,
        u: usize,
        from_gateway: bool,
        out: &mut MediumOutput,
    ) {
        let node = self.ues[u].node;
        let Some(h) = self.ues[u].ho.as_mut() else {
            return;
        };
        if from_gateway {
            if c == h.source && h.forwards() && !h.end_marker_forwarded {
                if h.detached {
                    h.end_marker_forwarded = true;
                    out.requests.push(MediumRequest::ForwardEndMarker {
                        from: self.enbs[h.source],
                        to: self.enbs[h.target],
                        ue: node,
                    });
                } else {
                    // The path switched before the handover command (fast path switch,
                    // prediction): the end marker follows the buffer forwarded at detach.
                    h.end_marker_pending = true;
                }
            }
        } else if c == h.target && h.forwards() {
            self.end_of_forwarding(now, u, out);
        }
    }

    /// The forwarded end marker reached the target, or the target stopped waiting for it:
    /// held new-path data follow the forwarded ones into the cell once the UE is attached.
    pub(super) fn end_of_forwarding(&mut self, now: SimTime, u: usize, out: &mut MediumOutput) {
        let Some(h) = self.ues[u].ho.as_mut() else {
            return;
        };
        h.forwarding_done = true;
        if !h.new_path_open {
            h.new_path_open = true;
            if h.attached {
                self.release_held(now, u, out);
            }
        }
        self.maybe_finish(now, u);
    }

    /// Moves the target's held data into its cell, forwarded first, then (if the new path is
    /// open) the new path's in arrival order. Call with the UE attached to the target.
    pub(super) fn release_held(&mut self, now: SimTime, u: usize, out: &mut MediumOutput) {
        let Some(h) = self.ues[u].ho.as_mut() else {
            return;
        };
        let c = h.target;
        let forwarded = std::mem::take(&mut h.held.forwarded);
        let direct = if h.new_path_open {
            std::mem::take(&mut h.held.direct)
        } else {
            VecDeque::new()
        };
        h.held.bytes = h
            .held
            .direct
            .iter()
            .map(|p| u64::from(p.size_bytes()))
            .sum();
        for (pkt, count) in forwarded {
            self.forwarded_to_cell(now, c, u, pkt, count, out);
        }
        for pkt in direct {
            self.send_fresh(now, c, u, pkt, out);
        }
    }

    /// Whether the UE's PDCP status report to the target cell `c` confirms COUNT `count`
    /// (36.323/38.323 §5.4.2: confirmed SDUs are discarded, not sent again). The UE sends it
    /// as its first PDCP PDU after the RRC reconfiguration complete, so the target has it from
    /// the attach on, which is when forwarded PDUs start to enter its cell; only over RLC AM
    /// and with `pdcp.status_report_required`. The report (FMS and bitmap, §6.2.6) is the
    /// UE's receive state: COUNTs it has, and everything older than its window, which lies
    /// below the first missing COUNT. Reading that state when each PDU arrives rather than
    /// at the report changes nothing: between the two the UE receives only from the target,
    /// which never sends a forwarded COUNT before it arrives.
    fn status_report_confirms(&self, c: usize, u: usize, count: u32) -> bool {
        let cfg = self.cells[c].config();
        cfg.pdcp.status_report_required && cfg.rlc.is_am() && self.ues[u].received.reported(count)
    }

    /// A packet the source forwarded without a COUNT (fresh data after the UE left it) into
    /// the target cell `c` now serving UE `u`: numbered as any fresh SDU; refused by a full
    /// RLC buffer, it is a loss of the handover that sent it there, at the target, as a
    /// forwarded PDU with a COUNT is.
    fn send_forwarded_fresh(
        &mut self,
        now: SimTime,
        c: usize,
        u: usize,
        pkt: Packet,
        out: &mut MediumOutput,
    ) {
        if let Err(cause) = self.write_fresh(now, c, u, pkt) {
            let cause = if cause == DropCause::QueueFull {
                let blame = self.ues[u].ho.as_ref().map(|h| h.id);
                self.timeline
                    .count(blame, pkt.flow, PacketFate::Dropped(DropPlace::Target));
                DropCause::Handover
            } else {
                cause
            };
            out.dropped.push((pkt, cause));
        }
    }

    /// A fresh downlink SDU into the bearer of UE `u` at cell `c`, which serves it: the cell's
    /// PDCP gives it the next COUNT unless its RLC refuses it (`LteCell::write_downlink`), which
    /// the network follows in `next_dl_count`.
    pub(super) fn send_fresh(
        &mut self,
        now: SimTime,
        c: usize,
        u: usize,
        pkt: Packet,
        out: &mut MediumOutput,
    ) {
        if let Err(cause) = self.write_fresh(now, c, u, pkt) {
            out.dropped.push((pkt, cause));
        }
    }

    /// [`LteRan::send_fresh`] without the output: the drop cause if the cell refused it.
    pub(super) fn write_fresh(
        &mut self,
        now: SimTime,
        c: usize,
        u: usize,
        pkt: Packet,
    ) -> Result<(), DropCause> {
        let ue = &self.ues[u];
        let numbered_here = ue.attached && ue.serving == c;
        let node = ue.node;
        self.cells[c].write_downlink(now, node, pkt)?;
        if numbered_here {
            let ue = &mut self.ues[u];
            ue.next_dl_count = ue.next_dl_count.wrapping_add(1);
        }
        Ok(())
    }

    /// Drops what the target held for handover `id` (its radio link failed).
    pub(super) fn drop_held(&mut self, held: TargetBuffer, id: u32, out: &mut MediumOutput) {
        let forwarded = held.forwarded.into_iter().map(|(p, _)| p);
        for pkt in forwarded.chain(held.direct) {
            self.timeline
                .count(Some(id), pkt.flow, PacketFate::Dropped(DropPlace::Target));
            out.dropped.push((pkt, DropCause::Handover));
        }
    }

    /// Step 7 at the source: the UE leaves. What its RLC reassembled goes to its PDCP, its
    /// uplink queue goes with it, and the PDCP PDUs not confirmed delivered are forwarded in
    /// COUNT order with their COUNT (or discarded), followed by a pending end marker.
    pub(super) fn detach_at_command(
        &mut self,
        now: SimTime,
        u: usize,
        ids: Ids,
        out: &mut MediumOutput,
    ) {
        let Some(d) = self.detach(now, u, ids, out) else {
            return;
        };
        let switched = self.ues[u].sgw_cell == ids.target;
        let Some(h) = self.ues[u].ho.as_mut() else {
            return;
        };
        h.detached = true;
        h.dl_count = Some(d.next_dl_count);
        if switched && !h.forwarding_done {
            // The path switched before the command (fast path switch, prediction).
            self.start_end_marker_timer(now, u, ids.id);
        }
        if self.ues[u].ho.is_none() {
            return;
        }
        if self.ho_cfg.policy == HandoverPolicy::Discard {
            self.discard_unconfirmed(u, ids.id, d.unconfirmed, out);
            return;
        }
        self.forward_unconfirmed(u, ids, d.unconfirmed, out);
    }

    /// The source's unconfirmed PDCP PDUs go to the target with their COUNT, in COUNT order,
    /// followed by the S-GW's end marker if it came before.
    pub(super) fn forward_unconfirmed(
        &mut self,
        u: usize,
        ids: Ids,
        unconfirmed: Vec<BearerSdu>,
        out: &mut MediumOutput,
    ) {
        for pdu in unconfirmed {
            let pkt = pdu.sdu.packet;
            self.timeline
                .count(Some(ids.id), pkt.flow, PacketFate::Forwarded);
            out.requests.push(MediumRequest::Forward {
                from: ids.src_enb,
                to: ids.tgt_enb,
                pkt,
                pdcp_count: Some(pdu.count),
            });
        }
        let Some(h) = self.ues[u].ho.as_mut() else {
            return;
        };
        if h.end_marker_pending {
            h.end_marker_pending = false;
            h.end_marker_forwarded = true;
            out.requests.push(MediumRequest::ForwardEndMarker {
                from: ids.src_enb,
                to: ids.tgt_enb,
                ue: ids.node,
            });
        }
    }

    /// UE `u` leaves its serving cell now: its RLC's reassembled SDUs go to its PDCP and its
    /// uplink packets into its hold. Returns what the cell handed back.
    pub(super) fn detach(
        &mut self,
        now: SimTime,
        u: usize,
        ids: Ids,
        out: &mut MediumOutput,
    ) -> Option<crate::cell::DetachedUe> {
        let c = self.ues[u].serving;
        self.ues[u].attached = false;
        // From now until the handover is over the UE's PDCP may receive out of order.
        self.reorder_pdcp(now, u);
        let mut d = match self.cells[c].detach_ue(now, ids.node) {
            Ok(d) => d,
            Err(e) => {
                self.internal_error(format!("detach of UE {} from cell {c}: {e}", ids.node));
                return None;
            }
        };
        if d.next_dl_count != self.ues[u].next_dl_count {
            let msg = format!(
                "UE {}: cell {c} numbered up to COUNT {}, the network counted {}",
                ids.node, d.next_dl_count, self.ues[u].next_dl_count
            );
            self.internal_error(msg);
        }
        for pdu in std::mem::take(&mut d.delivered) {
            self.pdcp_receive(now, u, pdu, out);
        }
        for pkt in std::mem::take(&mut d.uplink) {
            self.uplink(now, u, pkt, out);
        }
        Some(d)
    }

    /// The source's unconfirmed PDCP PDUs are lost, except those the UE already has (it got
    /// them before the detach; only the acknowledgement was missing).
    pub(super) fn discard_unconfirmed(
        &mut self,
        u: usize,
        id: u32,
        unconfirmed: Vec<BearerSdu>,
        out: &mut MediumOutput,
    ) {
        for pdu in unconfirmed {
            if !self.ues[u].received.contains(pdu.count) {
                let pkt = pdu.sdu.packet;
                self.timeline
                    .count(Some(id), pkt.flow, PacketFate::Dropped(DropPlace::Source));
                out.dropped.push((pkt, DropCause::Handover));
            }
        }
    }
}
