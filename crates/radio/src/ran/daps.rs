//! The dual active protocol stack (DAPS) handover of Rel-16 (TS 36.300 §10.1.2.1 and TS 38.300
//! §9.2.3.2, the DAPS variant of the X2/Xn handover): make before break.
//!
//! Preparation is the classic one (measurement report, decision, HANDOVER REQUEST, admission,
//! REQUEST ACKNOWLEDGE). Then:
//! * **command** (the RRC reconfiguration for DAPS): the UE does not leave the source; it keeps
//!   receiving and acknowledging there while it synchronises to the target. The source sends
//!   the EARLY STATUS TRANSFER and starts early data forwarding: every fresh downlink SDU it
//!   numbers it still transmits itself and also forwards, with its COUNT, to the target, which
//!   holds it. The UE's PDCP receiver reorders from now on: two legs feed it (TS 38.300
//!   §9.2.3.2: one PDCP entity with common reordering and duplicate discarding).
//! * **access** (`detach_sync` + `random_access` after the command; the UE's RRC
//!   reconfiguration complete at the target): the target serves the UE — uplink included,
//!   which DAPS moves at the random access — and sends what it holds that the UE has not
//!   received (the UE's PDCP status report tells it). It continues the COUNT at the source's
//!   next one: the source numbers no fresh SDU afterwards, it forwards them without a COUNT,
//!   while it keeps transmitting what it had numbered. (The standard lets the source number
//!   until its SN STATUS TRANSFER; the cell model's PDCP transmitter takes its first COUNT at
//!   the attach, so the hand-over of the numbering happens at the access. Either way no COUNT
//!   is given twice and the UE gets every SDU from one leg or the other.) The target sends
//!   HANDOVER SUCCESS to the source and the RRC reconfiguration releasing the source to the
//!   UE; the path switch starts as in the classic procedure.
//! * **source release** (the earlier of HANDOVER SUCCESS at the source and the release at the
//!   UE): the source stops transmitting, its unconfirmed PDCP PDUs go to the target with their
//!   COUNT (those the UE already has are not sent again over the air) and the SN STATUS
//!   TRANSFER follows. The UE's record has `command` = this instant — the UE leaves the
//!   source — and `attach` = the access before it, so the interruption is 0.
//!
//! A radio link failure while the source leg is up fails the handover as in the classic
//! procedure and releases both legs (the Rel-16 fallback to the source is not modelled).

use celltcp_engine::SimTime;
use celltcp_net::medium::{MediumOutput, MediumRequest};
use celltcp_net::packet::Packet;

use super::config::HandoverProcedure;
use super::procedure::Ids;
use super::steps::Step;
use super::timeline::{HandoverMessage as Msg, PacketFate};
use super::LteRan;

impl LteRan {
    /// The DAPS latencies (the defaults when the procedure is not DAPS).
    fn daps_latencies(&self) -> super::DapsLatencies {
        match self.ho_cfg.procedure {
            HandoverProcedure::Daps(l) => l,
            _ => super::DapsLatencies::default(),
        }
    }

    /// Whether UE `u`'s handover in progress is a DAPS one.
    pub(super) fn is_daps(&self, u: usize) -> bool {
        self.ues[u].ho.as_ref().is_some_and(|h| h.daps)
    }

    /// The DAPS command reaches the UE: it keeps the source and starts accessing the target.
    pub(super) fn daps_command(
        &mut self,
        now: SimTime,
        u: usize,
        ids: Ids,
        out: &mut MediumOutput,
    ) {
        self.timeline.event(
            now,
            ids.id,
            ids.node,
            ids.src_enb,
            ids.node,
            Msg::HandoverCommand,
        );
        let ue = &mut self.ues[u];
        ue.last_commanded = Some(ids.id);
        // 36.331 §5.3.5.4: T310 stops at a reconfiguration with mobilityControlInfo.
        if let Some(rlf) = ue.rlf.as_mut() {
            rlf.reset();
        }
        // Two legs feed the UE's PDCP receiver from now on.
        self.reorder_pdcp(now, u);
        if let Some(h) = self.ues[u].ho.as_mut() {
            h.source_leg = true;
        }
        self.early_forward_buffer(now, u, ids, out);
        let l = self.ho_cfg.latencies;
        self.steps
            .schedule(now + l.x2, u, Some(ids.id), Step::EarlyStatusTransfer);
        let access = now + l.detach_sync + l.random_access;
        self.steps
            .schedule(access, u, Some(ids.id), Step::HandoverConfirm);
    }

    /// Early data forwarding of what the source holds at the command: a copy of every PDCP PDU
    /// not confirmed delivered goes to the target with its COUNT, in COUNT order, so that the
    /// target can send the oldest first. The cell model hands its buffer over only at a
    /// detach, so the source's RLC entity is re-established here and the UE re-attached at
    /// once (from the next TTI) with the same COUNT, the PDUs queued again: what the UE's RLC
    /// had partly received is sent again (its PDCP discards the duplicates) and HARQ restarts
    /// — a cost of at most a TTI or two that the standard's source does not pay.
    fn early_forward_buffer(&mut self, now: SimTime, u: usize, ids: Ids, out: &mut MediumOutput) {
        let mut d = match self.cells[ids.source].detach_ue(now, ids.node) {
            Ok(d) => d,
            Err(e) => {
                self.internal_error(format!("DAPS command of UE {}: {e}", ids.node));
                return;
            }
        };
        for pdu in std::mem::take(&mut d.delivered) {
            self.pdcp_receive(now, u, pdu, out);
        }
        if let Err(e) = self.cells[ids.source].attach_ue(now, ids.node, d.next_dl_count) {
            self.internal_error(format!("DAPS command of UE {}: {e}", ids.node));
            return;
        }
        for pkt in std::mem::take(&mut d.uplink) {
            self.uplink(now, u, pkt, out);
        }
        for pdu in d.unconfirmed {
            let pkt = pdu.sdu.packet;
            if self.ues[u].received.contains(pdu.count) {
                continue;
            }
            // Back into the source's bearer (refused only if it no longer fits: the copy
            // still reaches the target).
            let _ = self.cells[ids.source].write_forwarded(now, ids.node, pdu);
            self.timeline
                .count(Some(ids.id), pkt.flow, PacketFate::Forwarded);
            out.requests.push(MediumRequest::Forward {
                from: ids.src_enb,
                to: ids.tgt_enb,
                pkt,
                pdcp_count: Some(pdu.count),
            });
        }
    }

    /// A downlink packet reached the source while it still serves UE `u` in a DAPS handover:
    /// before the UE's access the source numbers it, transmits it and forwards a copy with its
    /// COUNT (early data forwarding); afterwards the target numbers fresh data, so the source
    /// forwards it without a COUNT.
    pub(super) fn daps_source_downlink(
        &mut self,
        now: SimTime,
        u: usize,
        pkt: Packet,
        out: &mut MediumOutput,
    ) {
        let Some(ids) = self.ids(u) else { return };
        let Some(h) = self.ues[u].ho.as_ref() else {
            return;
        };
        self.timeline.touch_flow(ids.id, pkt.flow);
        // The source numbers the SDU, sends it and forwards the copy with its COUNT; one its
        // full RLC refuses takes no COUNT and goes to the target only, which numbers it.
        let pdcp_count = if h.attached {
            None
        } else {
            let count = self.ues[u].next_dl_count;
            self.write_fresh(now, ids.source, u, pkt)
                .ok()
                .map(|()| count)
        };
        self.timeline
            .count(Some(ids.id), pkt.flow, PacketFate::Forwarded);
        out.requests.push(MediumRequest::Forward {
            from: ids.src_enb,
            to: ids.tgt_enb,
            pkt,
            pdcp_count,
        });
    }

    /// The UE accessed the target (RRC reconfiguration complete there): the target serves it,
    /// continuing the source's COUNT, and tells the source and the UE.
    pub(super) fn daps_access(&mut self, now: SimTime, u: usize, ids: Ids, out: &mut MediumOutput) {
        self.timeline.event(
            now,
            ids.id,
            ids.node,
            ids.node,
            ids.tgt_enb,
            Msg::HandoverConfirm,
        );
        let count = self.ues[u].next_dl_count;
        if let Some(h) = self.ues[u].ho.as_mut() {
            h.dl_count = Some(count);
        }
        self.attach(now, u, ids, ids.target, count);
        self.release_held(now, u, out);
        self.flush_uplink_hold(now, u, out);
        let l = self.ho_cfg.latencies;
        let d = self.daps_latencies();
        let id = Some(ids.id);
        let switch = Step::PathSwitchRequest { from: ids.target };
        self.steps.schedule(now + l.s1, u, id, switch);
        self.steps
            .schedule(now + d.handover_success, u, id, Step::HandoverSuccess);
        self.steps
            .schedule(now + d.source_release, u, id, Step::SourceRelease);
    }

    /// HANDOVER SUCCESS reached the source, or the release of the source reached the UE: the
    /// message is recorded and the source leg ends if it has not yet.
    pub(super) fn daps_release_step(
        &mut self,
        now: SimTime,
        u: usize,
        ids: Ids,
        step: Step,
        out: &mut MediumOutput,
    ) {
        let (from, to, msg) = match step {
            Step::HandoverSuccess => (ids.tgt_enb, ids.src_enb, Msg::HandoverSuccess),
            _ => (ids.tgt_enb, ids.node, Msg::SourceRelease),
        };
        self.timeline.event(now, ids.id, ids.node, from, to, msg);
        self.release_source_leg(now, u, ids, out);
    }

    /// The source stops serving UE `u`: what its RLC reassembled goes to the UE's PDCP, its
    /// unconfirmed PDCP PDUs to the target with their COUNT (then a pending end marker), and
    /// the SN STATUS TRANSFER follows.
    pub(super) fn release_source_leg(
        &mut self,
        now: SimTime,
        u: usize,
        ids: Ids,
        out: &mut MediumOutput,
    ) {
        if !self.ues[u].ho.as_ref().is_some_and(|h| h.source_leg) {
            return;
        }
        let mut d = match self.cells[ids.source].detach_ue(now, ids.node) {
            Ok(d) => d,
            Err(e) => {
                let msg = format!(
                    "DAPS release of UE {} at cell {}: {e}",
                    ids.node, ids.source
                );
                self.internal_error(msg);
                return;
            }
        };
        if let Some(r) = self.timeline.record_mut(ids.id) {
            // The UE leaves the source now; it has been served by the target since the access.
            r.command = Some(now);
        }
        for pdu in std::mem::take(&mut d.delivered) {
            self.pdcp_receive(now, u, pdu, out);
        }
        for pkt in std::mem::take(&mut d.uplink) {
            self.uplink(now, u, pkt, out);
        }
        let switched = self.ues[u].sgw_cell == ids.target;
        let Some(h) = self.ues[u].ho.as_mut() else {
            return;
        };
        if h.dl_count != Some(d.next_dl_count) {
            let msg = format!(
                "DAPS: the source numbered up to COUNT {} after the target took over at {:?}",
                d.next_dl_count, h.dl_count
            );
            self.internal_error(msg);
            return;
        }
        h.source_leg = false;
        h.detached = true;
        if switched && !h.forwarding_done {
            self.start_end_marker_timer(now, u, ids.id);
        }
        // What the early forwarding got to the target, and what the UE has, is not sent again.
        let ue = &self.ues[u];
        let missing: Vec<_> = d
            .unconfirmed
            .into_iter()
            .filter(|p| {
                !ue.received.contains(p.count)
                    && !ue
                        .ho
                        .as_ref()
                        .is_some_and(|h| h.at_target.contains(&p.count))
            })
            .collect();
        self.forward_unconfirmed(u, ids, missing, out);
        let x2 = self.ho_cfg.latencies.x2;
        self.steps
            .schedule(now + x2, u, Some(ids.id), Step::SnStatusTransfer);
    }

    /// A radio link failure during DAPS after the UE's access: the source leg goes too, its
    /// unconfirmed PDUs lost (the handover fails; no target keeps them).
    pub(super) fn drop_source_leg(
        &mut self,
        now: SimTime,
        u: usize,
        source: usize,
        id: u32,
        out: &mut MediumOutput,
    ) {
        let node = self.ues[u].node;
        match self.cells[source].detach_ue(now, node) {
            Ok(mut d) => {
                for pdu in std::mem::take(&mut d.delivered) {
                    self.pdcp_receive(now, u, pdu, out);
                }
                self.discard_unconfirmed(u, id, d.unconfirmed, out);
                for pkt in d.uplink {
                    self.uplink(now, u, pkt, out);
                }
            }
            Err(e) => self.internal_error(format!("DAPS source leg of UE {node}: {e}")),
        }
    }
}
