//! The X2 handover procedure of TS 36.300 §10.1.2.1.1 (Fig. 10.1.2.1.1-1) as a state machine
//! driven by timed steps ([`super::steps`]), with the two path-switch variants of seed 000
//! §V-A (fast path switch, Fig. 5; handover prediction, Fig. 6).
//!
//! Preparation: measurement report → decision at the source → HANDOVER REQUEST → admission
//! control at the target → REQUEST ACKNOWLEDGE (or PREPARATION FAILURE). Execution: RRC
//! handover command → the UE detaches, the source forwards (or discards) its data and sends
//! the SN STATUS TRANSFER → the UE synchronises and confirms at the target, which attaches it.
//! Completion: PATH SWITCH REQUEST → MODIFY BEARER REQUEST (the S-GW switches the downlink and
//! sends an end marker on the old path) → MODIFY BEARER RESPONSE → PATH SWITCH REQUEST ACK →
//! UE CONTEXT RELEASE. Every latency comes from [`HandoverLatencies`](super::HandoverLatencies).
//!
//! With `FastPathSwitch` the source sends the path switch request when it sends the handover
//! command; with `Predicted` it sends it when the request ack arrives (plus the predictor's
//! error) and holds the command back by the prediction step, so that the new path is in use
//! and the source's buffer drains before the UE leaves. In both the target releases the
//! source's context once the UE is attached and the path switch is acknowledged. The MME
//! acknowledges the path switch to the target, the eNB that holds the bearer afterwards.
//!
//! The DAPS handover (`daps.rs`) and the conditional handover (`conditional.rs`) reuse these
//! steps where the standard does and add their own.

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::handover::{HandoverCause, HandoverPolicy, HandoverResult};
use celltcp_net::medium::{MediumOutput, MediumRequest};
use celltcp_net::packet::NodeId;

use super::config::{HandoverProcedure, PathSwitchPrediction};
use super::data_path::TargetBuffer;
use super::steps::{Scheduled, Step};
use super::timeline::HandoverMessage as Msg;
use super::LteRan;

/// One handover of one UE, from its start (A3 trigger, manual decision or radio link failure)
/// until the source has released the UE and the target delivers data of the new path.
#[derive(Debug)]
pub(super) struct Handover {
    /// The handover's record id.
    pub id: u32,
    pub cause: HandoverCause,
    /// Cell indices. For a re-establishment the target is the source until the UE has
    /// selected a cell.
    pub source: usize,
    pub target: usize,
    pub policy: HandoverPolicy,
    /// Admission control accepted the UE: it counts against the target's limit until attached.
    pub admitted: bool,
    /// The UE left the source (handover command or radio link failure).
    pub detached: bool,
    /// The UE is served by the target.
    pub attached: bool,
    /// DL COUNT of the SN STATUS TRANSFER (36.423 §9.1.4.4), known from the detach on.
    pub dl_count: Option<u32>,
    /// The SN STATUS TRANSFER reached the target.
    pub sn_status_received: bool,
    /// The UE confirmed before the SN STATUS TRANSFER arrived: attach at its arrival.
    pub confirm_waiting: bool,
    /// The target got the PATH SWITCH REQUEST ACKNOWLEDGE.
    pub path_switch_acked: bool,
    /// The source got the UE CONTEXT RELEASE: later data there are dropped.
    pub released: bool,
    /// The S-GW's end marker reached the source before the UE detached: forward it right
    /// after the buffer at detach.
    pub end_marker_pending: bool,
    /// The source sent its end marker over X2-U (nothing may follow it).
    pub end_marker_forwarded: bool,
    /// The source's forwarding is over for the target: the forwarded end marker arrived, its
    /// timeout expired, or nothing is forwarded. Until then the target keeps the UE's
    /// handover state to receive forwarded data, even after the context release (36.300
    /// §10.1.2.1.1 step 18: ongoing data forwarding may continue).
    pub forwarding_done: bool,
    /// The target may deliver data that came straight from the S-GW: forwarding is done, or
    /// the target does not reorder (then both paths are delivered as they arrive).
    pub new_path_open: bool,
    /// Data the target holds for the UE.
    pub held: TargetBuffer,
    /// A DAPS handover (`daps.rs`): the UE keeps its source leg from the command until the
    /// source release.
    pub daps: bool,
    /// DAPS: the source cell still serves the UE's downlink (from the command to the source
    /// release).
    pub source_leg: bool,
    /// DAPS: the COUNTs of the source's PDUs the target holds or has queued (early data
    /// forwarding); the source forwards at its release only the others.
    pub at_target: std::collections::BTreeSet<u32>,
    /// A conditional handover (`conditional.rs`): the UE executed on its own.
    pub conditional: bool,
    /// CHO: HANDOVER SUCCESS reached the source, which knows the UE has gone.
    pub success_received: bool,
    /// CHO: the source's unconfirmed PDCP PDUs at the execution, kept until HANDOVER SUCCESS.
    pub source_pending: Vec<crate::cell::bearer::BearerSdu>,
    /// CHO: fresh data that reached the source after the execution, before HANDOVER SUCCESS.
    pub source_fresh: Vec<celltcp_net::packet::Packet>,
    /// CHO: the other candidates, cancelled at HANDOVER SUCCESS.
    pub cancel_after_success: Vec<usize>,
    /// CHO: those of them that admitted the UE, which hold its place until their cancel.
    pub reserved_until_success: Vec<usize>,
}

impl Handover {
    pub fn new(
        id: u32,
        cause: HandoverCause,
        source: usize,
        target: usize,
        policy: HandoverPolicy,
        reordering: bool,
    ) -> Self {
        Handover {
            id,
            cause,
            source,
            target,
            policy,
            admitted: false,
            detached: false,
            attached: false,
            dl_count: None,
            sn_status_received: false,
            confirm_waiting: false,
            path_switch_acked: false,
            released: false,
            end_marker_pending: false,
            end_marker_forwarded: false,
            forwarding_done: !policy.forwards(),
            // 36.300 §10.1.2.2: with forwarding, the target delivers the forwarded data before
            // the new path's until the end marker; without reordering (seed 000 Table I) or
            // without forwarding there is nothing to wait for.
            new_path_open: !(reordering && policy.forwards()),
            held: TargetBuffer::default(),
            daps: false,
            source_leg: false,
            at_target: Default::default(),
            conditional: false,
            success_received: false,
            source_pending: Vec::new(),
            source_fresh: Vec::new(),
            cancel_after_success: Vec::new(),
            reserved_until_success: Vec::new(),
        }
    }

    /// The source forwards data to the target over X2-U.
    pub fn forwards(&self) -> bool {
        self.cause != HandoverCause::RadioLinkFailure && self.policy.forwards()
    }
}

/// Identifiers of a UE's handover, copied out so that handlers can borrow the network freely.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ids {
    pub id: u32,
    pub node: NodeId,
    pub source: usize,
    pub target: usize,
    pub src_enb: NodeId,
    pub tgt_enb: NodeId,
}

impl LteRan {
    pub(super) fn ids(&self, u: usize) -> Option<Ids> {
        let ue = &self.ues[u];
        let h = ue.ho.as_ref()?;
        Some(Ids {
            id: h.id,
            node: ue.node,
            source: h.source,
            target: h.target,
            src_enb: self.enbs[h.source],
            tgt_enb: self.enbs[h.target],
        })
    }

    fn ho_mut(&mut self, u: usize) -> Option<&mut Handover> {
        self.ues[u].ho.as_mut()
    }

    fn schedule(&mut self, at: SimTime, u: usize, id: u32, step: Step) {
        self.steps.schedule(at, u, Some(id), step);
    }

    fn event(&mut self, now: SimTime, ids: Ids, from: NodeId, to: NodeId, msg: Msg) {
        self.timeline.event(now, ids.id, ids.node, from, to, msg);
    }

    /// Opens a handover of UE `u` to cell `target` whose decision is at `decision`.
    pub(super) fn start_handover(
        &mut self,
        u: usize,
        target: usize,
        cause: HandoverCause,
        decision: SimTime,
    ) -> u32 {
        let ue = &self.ues[u];
        let source = ue.serving;
        let policy = self.ho_cfg.policy;
        let id = self.timeline.open(
            ue.node,
            self.enbs[source],
            self.enbs[target],
            cause,
            policy,
            decision,
        );
        let mut ho = Handover::new(id, cause, source, target, policy, self.ho_cfg.reordering);
        ho.daps = matches!(self.ho_cfg.procedure, HandoverProcedure::Daps(_));
        let ue = &mut self.ues[u];
        ue.ho = Some(ho);
        ue.latest_record = Some(id);
        id
    }

    /// Event A3 reported neighbour `target` at tick `now` (step 1–2).
    pub(super) fn a3_triggered(&mut self, now: SimTime, u: usize, target: usize) {
        let l = self.ho_cfg.latencies;
        let decision = now + l.measurement_report + l.decision;
        let id = self.start_handover(u, target, HandoverCause::A3, decision);
        self.schedule(now + l.measurement_report, u, id, Step::MeasurementReport);
    }

    /// Runs one due step. Steps of a handover that is no longer the UE's current one are
    /// ignored.
    pub(super) fn run_step(&mut self, now: SimTime, s: Scheduled, out: &mut MediumOutput) {
        let u = s.ue;
        if let Step::ManualDecision { target } = s.step {
            let ue = &self.ues[u];
            // Only one handover at a time; a UE not served cannot be handed over; a handover
            // to the serving cell is not one.
            if ue.ho.is_none() && ue.attached && target != ue.serving {
                self.start_handover(u, target, HandoverCause::Manual, now);
                self.handover_decision(now, u);
            }
            return;
        }
        match s.step {
            Step::DualConnectivitySwitch => return self.dc_switch(now, u, out),
            Step::DualConnectivityStatus => return self.dc_delivery_status(now, u),
            Step::DualConnectivityStatusArrival => return self.dc_delivery_status_arrival(u),
            _ => {}
        }
        if let Step::Conditional { cell, token, stage } = s.step {
            self.cho_step(now, u, s.handover, cell, token, stage);
            return;
        }
        let Some(ids) = self.ids(u).filter(|i| Some(i.id) == s.handover) else {
            return;
        };
        let l = self.ho_cfg.latencies;
        match s.step {
            Step::ManualDecision { .. } => {}
            Step::MeasurementReport => {
                self.event(now, ids, ids.node, ids.src_enb, Msg::MeasurementReport);
                self.schedule(now + l.decision, u, ids.id, Step::HandoverDecision);
            }
            Step::HandoverDecision => self.handover_decision(now, u),
            Step::HandoverRequest => {
                self.event(now, ids, ids.src_enb, ids.tgt_enb, Msg::HandoverRequest);
                self.schedule(now + l.admission, u, ids.id, Step::AdmissionControl);
            }
            Step::AdmissionControl => self.admission_control(now, u, ids),
            Step::HandoverPreparationFailure => self.preparation_failure(now, u, ids),
            Step::HandoverRequestAck => self.request_ack(now, u, ids),
            Step::HandoverCommand => self.handover_command(now, u, ids, out),
            Step::SnStatusTransfer => self.sn_status_transfer(now, u, ids, out),
            Step::HandoverConfirm if self.is_daps(u) => self.daps_access(now, u, ids, out),
            Step::HandoverConfirm => self.handover_confirm(now, u, ids, out),
            Step::PathSwitchRequest { from } => {
                let from_enb = self.enbs[from];
                self.event(now, ids, from_enb, self.gateway, Msg::PathSwitchRequest);
                self.schedule(now + l.s11, u, ids.id, Step::ModifyBearerRequest);
            }
            Step::ModifyBearerRequest => self.modify_bearer_request(now, u, ids, out),
            Step::ModifyBearerResponse => {
                let gw = self.gateway;
                self.event(now, ids, gw, gw, Msg::ModifyBearerResponse);
                self.schedule(now + l.s1, u, ids.id, Step::PathSwitchRequestAck);
            }
            Step::PathSwitchRequestAck => self.path_switch_request_ack(now, u, ids),
            Step::UeContextRelease => {
                self.event(now, ids, ids.tgt_enb, ids.src_enb, Msg::UeContextRelease);
                // DAPS: the release of the source context ends its leg if nothing else did.
                self.release_source_leg(now, u, ids, out);
                self.complete(now, u, ids);
            }
            Step::EndMarkerTimeout => self.end_of_forwarding(now, u, out),
            Step::Reestablishment => self.reestablishment(now, u, ids, out),
            Step::EarlyStatusTransfer => {
                self.event(now, ids, ids.src_enb, ids.tgt_enb, Msg::EarlyStatusTransfer);
            }
            Step::HandoverSuccess if self.is_conditional(u) => {
                self.cho_handover_success(now, u, ids, out)
            }
            Step::HandoverSuccess | Step::SourceRelease => {
                self.daps_release_step(now, u, ids, s.step, out)
            }
            Step::Conditional { .. }
            | Step::DualConnectivitySwitch
            | Step::DualConnectivityStatus
            | Step::DualConnectivityStatusArrival => {}
        }
    }

    /// TS 36.423 §8.2.1.3: the target refused; the handover is over and the source may try
    /// again once A3 triggers anew (after a fresh time to trigger).
    fn preparation_failure(&mut self, now: SimTime, u: usize, ids: Ids) {
        self.event(
            now,
            ids,
            ids.tgt_enb,
            ids.src_enb,
            Msg::HandoverPreparationFailure,
        );
        if let Some(r) = self.timeline.record_mut(ids.id) {
            r.result = HandoverResult::PreparationFailed;
        }
        let ue = &mut self.ues[u];
        ue.ho = None;
        if let Some(a3) = ue.a3.as_mut() {
            a3.reset();
        }
    }

    /// TS 36.300 §10.1.2.1.1 step 8: the source's PDCP SN status reaches the target, which
    /// attaches the UE if its confirmation came first.
    fn sn_status_transfer(&mut self, now: SimTime, u: usize, ids: Ids, out: &mut MediumOutput) {
        self.event(now, ids, ids.src_enb, ids.tgt_enb, Msg::SnStatusTransfer);
        let Some(h) = self.ho_mut(u) else { return };
        h.sn_status_received = true;
        if h.confirm_waiting {
            self.attach_target(now, u, ids, out);
        }
    }

    /// Step 11: the UE's RRC reconfiguration complete at the target, which attaches it once the
    /// SN status is known (else it waits for the SN STATUS TRANSFER).
    fn handover_confirm(&mut self, now: SimTime, u: usize, ids: Ids, out: &mut MediumOutput) {
        self.event(now, ids, ids.node, ids.tgt_enb, Msg::HandoverConfirm);
        let x2 = self.ho_cfg.latencies.x2;
        let Some(h) = self.ho_mut(u) else { return };
        if h.conditional {
            // CHO: the source learns of the UE's access only now (Rel-16 HANDOVER SUCCESS).
            self.schedule(now + x2, u, ids.id, Step::HandoverSuccess);
            let Some(h) = self.ho_mut(u) else { return };
            h.confirm_waiting = true;
            return;
        }
        if h.sn_status_received {
            self.attach_target(now, u, ids, out);
        } else {
            h.confirm_waiting = true;
        }
    }

    /// Step 17: the MME's PATH SWITCH REQUEST ACKNOWLEDGE; the source is released once the UE
    /// is attached at the target.
    fn path_switch_request_ack(&mut self, now: SimTime, u: usize, ids: Ids) {
        self.event(
            now,
            ids,
            self.gateway,
            ids.tgt_enb,
            Msg::PathSwitchRequestAck,
        );
        let Some(h) = self.ho_mut(u) else { return };
        h.path_switch_acked = true;
        if h.attached {
            self.release_source(now, u, ids);
        }
    }

    /// Step 3 at the source, then HANDOVER REQUEST over X2.
    fn handover_decision(&mut self, now: SimTime, u: usize) {
        let Some(ids) = self.ids(u) else { return };
        self.event(now, ids, ids.src_enb, ids.src_enb, Msg::HandoverDecision);
        let x2 = self.ho_cfg.latencies.x2;
        self.schedule(now + x2, u, ids.id, Step::HandoverRequest);
    }

    /// Step 5: the target admits the UE unless it already serves, or has admitted,
    /// `max_ues_per_cell` UEs.
    fn admission_control(&mut self, now: SimTime, u: usize, ids: Ids) {
        self.event(now, ids, ids.tgt_enb, ids.tgt_enb, Msg::AdmissionControl);
        let x2 = self.ho_cfg.latencies.x2;
        let admitted = self
            .ho_cfg
            .max_ues_per_cell
            .is_none_or(|max| self.cell_load(ids.target, u) < max);
        if admitted {
            if let Some(h) = self.ho_mut(u) {
                h.admitted = true;
            }
            self.schedule(now + x2, u, ids.id, Step::HandoverRequestAck);
        } else {
            self.schedule(now + x2, u, ids.id, Step::HandoverPreparationFailure);
        }
    }

    /// UEs cell `c` serves, has admitted as a handover's target or holds a place for as a
    /// conditional handover's candidate, other than UE `except`.
    pub(super) fn cell_load(&self, c: usize, except: usize) -> u32 {
        self.ues
            .iter()
            .enumerate()
            .filter(|&(i, v)| {
                i != except
                    && ((v.attached && v.serving == c)
                        || v.ho
                            .as_ref()
                            .is_some_and(|h| h.target == c && h.admitted && !h.attached)
                        || self.cho_reserves(c, i))
            })
            .count() as u32
    }

    /// Step 6 at the source: send the handover command, and per policy the path switch
    /// request.
    fn request_ack(&mut self, now: SimTime, u: usize, ids: Ids) {
        self.event(now, ids, ids.tgt_enb, ids.src_enb, Msg::HandoverRequestAck);
        let l = self.ho_cfg.latencies;
        let switch_from_source = Step::PathSwitchRequest { from: ids.source };
        match self.ho_cfg.policy {
            HandoverPolicy::Discard | HandoverPolicy::Forward => {
                self.schedule(now + l.rrc, u, ids.id, Step::HandoverCommand);
            }
            HandoverPolicy::FastPathSwitch => {
                // Seed 000 Fig. 5: the path switch request leaves with the handover command.
                self.schedule(now + l.rrc, u, ids.id, Step::HandoverCommand);
                self.schedule(now + l.s1, u, ids.id, switch_from_source);
            }
            HandoverPolicy::Predicted => {
                let PathSwitchPrediction { step, error_std } = self.ho_cfg.prediction;
                // Seed 000 Fig. 6: the predictor switches the path now, up to its error
                // (Gaussian, clamped at 0: the switch cannot precede the ack), and the
                // command follows one prediction step later.
                let e = self.prediction_rng.normal(0.0, error_std.as_secs_f64());
                let e = SimDuration::from_secs_f64(e);
                self.schedule(now + e + l.s1, u, ids.id, switch_from_source);
                self.schedule(now + step + l.rrc, u, ids.id, Step::HandoverCommand);
            }
        }
    }

    /// Step 7 at the UE: it leaves the source.
    fn handover_command(&mut self, now: SimTime, u: usize, ids: Ids, out: &mut MediumOutput) {
        if self.is_daps(u) {
            self.daps_command(now, u, ids, out);
            return;
        }
        self.event(now, ids, ids.src_enb, ids.node, Msg::HandoverCommand);
        if let Some(r) = self.timeline.record_mut(ids.id) {
            r.command = Some(now);
        }
        let ue = &mut self.ues[u];
        ue.last_commanded = Some(ids.id);
        // 36.331 §5.3.5.4: T310 stops at a reconfiguration with mobilityControlInfo.
        if let Some(rlf) = ue.rlf.as_mut() {
            rlf.reset();
        }
        self.detach_at_command(now, u, ids, out);
        let l = self.ho_cfg.latencies;
        self.schedule(now + l.x2, u, ids.id, Step::SnStatusTransfer);
        self.schedule(
            now + l.detach_sync + l.random_access,
            u,
            ids.id,
            Step::HandoverConfirm,
        );
    }

    /// Step 11 at the target, once the SN status is known: the UE is served by the target.
    fn attach_target(&mut self, now: SimTime, u: usize, ids: Ids, out: &mut MediumOutput) {
        let Some(count) = self.ues[u].ho.as_ref().and_then(|h| h.dl_count) else {
            return;
        };
        self.attach(now, u, ids, ids.target, count);
        self.release_held(now, u, out);
        self.flush_uplink_hold(now, u, out);
        let l = self.ho_cfg.latencies;
        if !self.ho_cfg.policy.early_path_switch() {
            // Step 12: the standard procedure switches the path after the confirm.
            let step = Step::PathSwitchRequest { from: ids.target };
            self.schedule(now + l.s1, u, ids.id, step);
        } else if self.ues[u].ho.as_ref().is_some_and(|h| h.path_switch_acked) {
            self.release_source(now, u, ids);
        }
    }

    /// Serves UE `u` from cell `c` now, continuing its downlink COUNT at `count`.
    pub(super) fn attach(&mut self, now: SimTime, u: usize, ids: Ids, c: usize, count: u32) {
        if let Err(e) = self.cells[c].attach_ue(now, ids.node, count) {
            self.internal_error(format!("attach of UE {} to cell {c}: {e}", ids.node));
        }
        let ue = &mut self.ues[u];
        ue.serving = c;
        ue.attached = true;
        ue.next_dl_count = count;
        ue.ever_served[c] = true;
        if let Some(a3) = ue.a3.as_mut() {
            // A new serving cell: the pending conditions were about the old one. The L3
            // filters are kept (they measure cells, not the serving relation).
            a3.reset();
        }
        if let Some(cho) = ue.cho.as_mut() {
            cho.reset();
        }
        if let Some(rlf) = ue.rlf.as_mut() {
            rlf.reset();
        }
        if let Some(h) = ue.ho.as_mut() {
            h.attached = true;
        }
        if let Some(r) = self.timeline.record_mut(ids.id) {
            r.attach = Some(now);
        }
    }

    /// Steps 13–14 at the S-GW: the downlink goes to the target from now on, and an end marker
    /// follows the last packet of the old path.
    fn modify_bearer_request(&mut self, now: SimTime, u: usize, ids: Ids, out: &mut MediumOutput) {
        let gw = self.gateway;
        self.event(now, ids, gw, gw, Msg::ModifyBearerRequest);
        out.requests.push(MediumRequest::PathSwitch {
            ue: ids.node,
            enb: ids.tgt_enb,
        });
        if let Some(r) = self.timeline.record_mut(ids.id) {
            r.path_switch = Some(now);
        }
        let old = std::mem::replace(&mut self.ues[u].sgw_cell, ids.target);
        if old != ids.target {
            let old_enb = self.enbs[old];
            self.event(now, ids, gw, old_enb, Msg::EndMarker);
        }
        let l = self.ho_cfg.latencies;
        if self.ues[u]
            .ho
            .as_ref()
            .is_some_and(|h| h.detached && !h.forwarding_done)
        {
            self.start_end_marker_timer(now, u, ids.id);
        }
        self.schedule(now + l.s11, u, ids.id, Step::ModifyBearerResponse);
    }

    /// The target stops waiting for the forwarded end marker `end_marker_timeout` after the
    /// later of the path switch and the handover command: with the fast path switch or the
    /// prediction the source serves the UE until the command and forwards only from then on.
    pub(super) fn start_end_marker_timer(&mut self, now: SimTime, u: usize, id: u32) {
        let at = now + self.ho_cfg.end_marker_timeout;
        self.schedule(at, u, id, Step::EndMarkerTimeout);
    }

    /// Step 17 once the UE is attached and the path switch acknowledged: the target releases
    /// the source (a re-establishment in the cell that failed has no other eNB to release).
    fn release_source(&mut self, now: SimTime, u: usize, ids: Ids) {
        if ids.source == ids.target {
            self.complete(now, u, ids);
        } else {
            let x2 = self.ho_cfg.latencies.x2;
            self.schedule(now + x2, u, ids.id, Step::UeContextRelease);
        }
    }

    /// The procedure is over at the source; the UE's handover ends once the target no longer
    /// waits for the end marker.
    pub(super) fn complete(&mut self, now: SimTime, u: usize, ids: Ids) {
        if let Some(r) = self.timeline.record_mut(ids.id) {
            r.completion = Some(now);
            r.result = HandoverResult::Completed;
        }
        if let Some(h) = self.ho_mut(u) {
            h.released = true;
        }
        self.maybe_finish(now, u);
    }

    /// Forgets the UE's handover once nothing of it remains to be done, and lets its PDCP
    /// receiver deliver on arrival again once it holds nothing back.
    pub(super) fn maybe_finish(&mut self, now: SimTime, u: usize) {
        let ue = &mut self.ues[u];
        if ue.ho.as_ref().is_some_and(|h| {
            h.released && h.forwarding_done && h.new_path_open && h.held.is_empty()
        }) {
            ue.ho = None;
            self.settle_pdcp(now, u);
        }
    }
}
