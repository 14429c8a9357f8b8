//! Conditional handover (CHO) of Rel-16 (TS 36.300 §10.1.2.1a, TS 38.300 §9.2.3.4; the UE's
//! side TS 36.331 §5.3.5.13 conditional reconfiguration): the source prepares candidate
//! targets early and the UE executes on its own, without a handover command.
//!
//! * **Preparation** (per neighbour, at the measurement tick): when the *preparation* A3
//!   (`ConditionalConfig::preparation`) has the neighbour in its triggered list, the UE's
//!   measurement report reaches the source, which decides, sends HANDOVER REQUEST over X2
//!   (with the conditional HO information), and the candidate runs admission control and
//!   acknowledges (or refuses: HANDOVER PREPARATION FAILURE). The source then sends the UE the
//!   conditional reconfiguration with that candidate (the RRC latency): from then on the UE
//!   evaluates the candidate's execution condition. Every latency is the classic one
//!   ([`HandoverLatencies`](super::HandoverLatencies)). At most `max_candidates` are prepared
//!   or in preparation at once; when more neighbours are triggered the strongest (highest
//!   filtered value, then lowest index) go first.
//! * **Cancellation**: a candidate whose neighbour has left the preparation A3's triggered list
//!   (its leaving condition Mn + Hys < Ms + Off held for the time to trigger, 36.331
//!   §5.5.4.4) is cancelled: HANDOVER CANCEL to the candidate (TS 36.423 §8.2.7) and the
//!   UE stops evaluating it (the source's RRC reconfiguration removing it; the UE is taken to
//!   drop it at the source's decision, the RRC latency earlier than its arrival).
//! * **Execution**: the *execution* A3 runs at the UE on its configured candidates only; when
//!   it triggers for one the UE leaves the source at once — no command to wait for — and
//!   synchronises and accesses the candidate (`detach_sync` + `random_access`). The source
//!   does not know: it keeps what it has for the UE (its unconfirmed PDCP PDUs and the fresh
//!   data that still reach it) until the target's HANDOVER SUCCESS (Rel-16, `x2` after the
//!   access), then forwards them (policy `forward`: the PDUs with their COUNT, the fresh data
//!   without) or discards them (`discard`), sends the SN STATUS TRANSFER and cancels the
//!   other candidates. The target serves the UE once both the access and the SN status are
//!   in; the path switch and the UE context release follow as in the classic procedure.
//! * **Reservation**: a candidate that admits the UE reserves it a place (TS 38.300 §9.2.3.4.2
//!   step 4, "the target gNB(s) … reserve resources for the CHO"): with
//!   `max_ues_per_cell` it counts the UE among its load for other UEs' admission from its
//!   admission control until the HANDOVER CANCEL reaches it, or until the UE executes towards
//!   it (then the handover's own admission holds the place). Candidates dropped without a
//!   cancel (a radio link failure with no suitable candidate, a failed execution) hold no
//!   place: the reservation is read from the UE's state, not kept beside it.
//! * **Radio link failure** (Rel-16 attemptCondReconfig, TS 38.331 §5.3.7.3): when T310
//!   expires and a configured candidate is suitable (filtered RSRP above q-RxLevMin, the S
//!   criterion of TS 36.304 §5.2.3.2), the UE executes towards the best such candidate instead
//!   of re-establishing: the same execution as above, from the failure. Without one, the
//!   classic re-establishment follows and the conditional handover in preparation fails.
//!
//! The record of a UE's conditional handover opens at its first preparation and is kept while
//! candidates come and go (their requests, acknowledgements and cancellations are messages of
//! its chart). At the execution it takes the executed candidate as target, that candidate's
//! preparation decision as `decision`, the arrival of its conditional reconfiguration as
//! `command`, and the execution as `execution`; the interruption runs from the execution to the
//! attach. Cause `a3` (the preparation is an A3 report); a recovery from a radio link failure
//! shows a `radio_link_failure` message in the chart and counts in
//! `conditional_rlf_recoveries`.

use celltcp_engine::SimTime;
use celltcp_net::handover::{HandoverCause, HandoverPolicy, HandoverResult};
use celltcp_net::medium::{MediumFigure, MediumOutput, MediumRequest};
use celltcp_net::packet::{NodeId, Packet};
use celltcp_net::queue::DropCause;

use crate::cell::bearer::BearerSdu;
use crate::measurement::{A3Monitor, MeasurementError};

use super::config::{ConditionalConfig, HandoverProcedure};
use super::procedure::{Handover, Ids};
use super::steps::Step;
use super::timeline::{DropPlace, HandoverMessage as Msg, PacketFate};
use super::LteRan;

/// Where a candidate's preparation stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stage {
    /// The measurement report is on its way, or HANDOVER REQUEST / admission / ACK.
    Preparing,
    /// The UE has the conditional reconfiguration and evaluates the execution condition.
    Configured,
    /// The candidate refused (admission control): not prepared again until its neighbour
    /// leaves the preparation list and enters it anew; it takes no room among the
    /// `max_candidates`.
    Refused,
}

/// A candidate target of a conditional handover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Candidate {
    pub cell: usize,
    /// Tells this preparation's steps from those of an earlier, cancelled one of the cell.
    pub token: u32,
    pub stage: Stage,
    /// The source's decision to prepare it.
    pub decision: SimTime,
    /// The conditional reconfiguration with it reached the UE.
    pub configured_at: Option<SimTime>,
    /// It admitted the UE: it holds a place for it (module documentation, "Reservation").
    pub admitted: bool,
}

/// The steps of a candidate's preparation (each at the entity that receives the message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ChoStep {
    /// The measurement report reaches the source.
    MeasurementReport,
    /// The source decides to prepare the candidate.
    Decision,
    /// HANDOVER REQUEST reaches the candidate.
    Request,
    /// The candidate has run admission control.
    Admission,
    /// HANDOVER REQUEST ACKNOWLEDGE reaches the source.
    RequestAck,
    /// HANDOVER PREPARATION FAILURE reaches the source.
    PreparationFailure,
    /// The conditional reconfiguration reaches the UE.
    Reconfiguration,
    /// HANDOVER CANCEL reaches the candidate (the step only records the message).
    Cancel,
}

/// A UE's conditional handover state: the two conditions and the candidates.
#[derive(Clone, Debug)]
pub(super) struct Conditional {
    /// The source's preparation condition (evaluated on the UE's reports).
    preparation: A3Monitor,
    /// The UE's execution condition, on its configured candidates only.
    execution: A3Monitor,
    max_candidates: usize,
    /// In preparation order.
    pub candidates: Vec<Candidate>,
    /// The record of the conditional handover being prepared, from the first preparation to
    /// the execution.
    pub record: Option<u32>,
    next_token: u32,
    /// Scratch: the configured candidates' measurements.
    configured: Vec<(usize, f64)>,
}

impl Conditional {
    pub fn new(cfg: &ConditionalConfig) -> Result<Self, (&'static str, MeasurementError)> {
        Ok(Conditional {
            preparation: A3Monitor::new(cfg.preparation)
                .map_err(|e| ("handover.conditional.preparation", e))?,
            execution: A3Monitor::new(cfg.execution)
                .map_err(|e| ("handover.conditional.execution", e))?,
            max_candidates: cfg.max_candidates as usize,
            candidates: Vec::new(),
            record: None,
            next_token: 0,
            configured: Vec::new(),
        })
    }

    fn candidate(&self, cell: usize, token: u32) -> Option<&Candidate> {
        self.candidates
            .iter()
            .find(|c| c.cell == cell && c.token == token)
    }

    fn candidate_mut(&mut self, cell: usize, token: u32) -> Option<&mut Candidate> {
        self.candidates
            .iter_mut()
            .find(|c| c.cell == cell && c.token == token)
    }

    /// Whether an admitted candidate of cell `cell` is among the UE's.
    pub fn holds_place_at(&self, cell: usize) -> bool {
        self.candidates.iter().any(|c| c.cell == cell && c.admitted)
    }

    fn remove(&mut self, cell: usize) -> Option<Candidate> {
        let i = self.candidates.iter().position(|c| c.cell == cell)?;
        Some(self.candidates.remove(i))
    }

    /// A new serving cell (or none): the conditions were about the old one, and its
    /// candidates go with it.
    pub fn reset(&mut self) {
        self.preparation.reset();
        self.execution.reset();
        self.candidates.clear();
    }
}

/// Counts of the conditional handovers of a network, for the report.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ConditionalTotals {
    pub prepared: u64,
    pub cancelled: u64,
    pub executed: u64,
    pub rlf_recoveries: u64,
}

impl ConditionalTotals {
    pub fn figures(&self, out: &mut Vec<MediumFigure>) {
        out.push(("conditional_preparations".into(), self.prepared as f64));
        out.push(("conditional_cancellations".into(), self.cancelled as f64));
        out.push(("conditional_executions".into(), self.executed as f64));
        out.push((
            "conditional_rlf_recoveries".into(),
            self.rlf_recoveries as f64,
        ));
    }
}

impl LteRan {
    /// Whether UE `u`'s handover in progress is a conditional one.
    pub(super) fn is_conditional(&self, u: usize) -> bool {
        self.ues[u].ho.as_ref().is_some_and(|h| h.conditional)
    }

    fn cho_event(&mut self, now: SimTime, u: usize, record: u32, from: NodeId, to: NodeId, m: Msg) {
        let node = self.ues[u].node;
        self.timeline.event(now, record, node, from, to, m);
    }

    /// The measurement tick's CHO part for served UE `u` without a handover in progress, on
    /// the filtered values of the trigger quantity: serving `ms`, the others in
    /// `self.neighbours`. Cancels the candidates whose neighbour left the preparation list,
    /// starts the preparation of newly listed ones (strongest first, up to the maximum), then
    /// evaluates the execution condition on the configured candidates.
    pub(super) fn cho_tick(&mut self, now: SimTime, u: usize, ms: f64, out: &mut MediumOutput) {
        let Some(cho) = self.ues[u].cho.as_mut() else {
            return;
        };
        cho.preparation.evaluate(now, ms, &self.neighbours);
        // Cancellation: the leaving condition held for the time to trigger.
        let gone: Vec<Candidate> = cho
            .candidates
            .iter()
            .filter(|c| !cho.preparation.is_triggered(c.cell))
            .copied()
            .collect();
        for c in &gone {
            cho.remove(c.cell);
        }
        // A refused candidate that left the list needs no cancellation.
        let gone = gone.into_iter().filter(|c| c.stage != Stage::Refused);
        // Preparation of the listed neighbours not yet candidates, strongest first.
        let mut listed: Vec<(usize, f64)> = self
            .neighbours
            .iter()
            .copied()
            .filter(|&(c, _)| {
                cho.preparation.is_triggered(c) && !cho.candidates.iter().any(|k| k.cell == c)
            })
            .collect();
        listed.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let held = cho
            .candidates
            .iter()
            .filter(|c| c.stage != Stage::Refused)
            .count();
        let room = cho.max_candidates.saturating_sub(held);
        listed.truncate(room);
        // Execution, on the candidates the UE has.
        cho.configured.clear();
        for &(c, v) in &self.neighbours {
            if cho
                .candidates
                .iter()
                .any(|k| k.cell == c && k.stage == Stage::Configured)
            {
                cho.configured.push((c, v));
            }
        }
        let execute = cho.execution.evaluate(now, ms, &cho.configured);
        let gone: Vec<usize> = gone.map(|c| c.cell).collect();
        for cell in gone {
            self.cho_cancel(now, u, cell);
        }
        for (cell, _) in listed {
            self.cho_prepare(now, u, cell);
        }
        if let Some(cell) = execute {
            self.cho_execute(now, u, cell, out);
        }
    }

    /// Starts the preparation of candidate `cell`: the UE's report is on its way.
    fn cho_prepare(&mut self, now: SimTime, u: usize, cell: usize) {
        let l = self.ho_cfg.latencies;
        let decision = now + l.measurement_report + l.decision;
        let record = match self.ues[u].cho.as_ref().and_then(|c| c.record) {
            Some(id) => {
                // Kept while candidates came and went: it is about the latest preparation, and
                // once every earlier candidate has gone, about this one.
                let source = self.enbs[self.ues[u].serving];
                let alone = self.ues[u]
                    .cho
                    .as_ref()
                    .is_some_and(|c| c.candidates.iter().all(|k| k.stage == Stage::Refused));
                let target = self.enbs[cell];
                if let Some(r) = self.timeline.record_mut(id) {
                    r.source = source;
                    r.decision = decision;
                    if alone {
                        r.target = target;
                    }
                }
                id
            }
            None => {
                let ue = &self.ues[u];
                let id = self.timeline.open(
                    ue.node,
                    self.enbs[ue.serving],
                    self.enbs[cell],
                    HandoverCause::A3,
                    self.ho_cfg.policy,
                    decision,
                );
                self.ues[u].latest_record = Some(id);
                id
            }
        };
        let Some(cho) = self.ues[u].cho.as_mut() else {
            return;
        };
        cho.record = Some(record);
        let token = cho.next_token;
        cho.next_token = cho.next_token.wrapping_add(1);
        cho.candidates.push(Candidate {
            cell,
            token,
            stage: Stage::Preparing,
            decision,
            configured_at: None,
            admitted: false,
        });
        self.totals_cho.prepared += 1;
        let step = Step::Conditional {
            cell,
            token,
            stage: ChoStep::MeasurementReport,
        };
        self.steps
            .schedule(now + l.measurement_report, u, Some(record), step);
    }

    /// The source cancels candidate `cell`: HANDOVER CANCEL reaches it `x2` later.
    fn cho_cancel(&mut self, now: SimTime, u: usize, cell: usize) {
        let Some(record) = self.ues[u].cho.as_ref().and_then(|c| c.record) else {
            return;
        };
        self.totals_cho.cancelled += 1;
        self.schedule_cancel(now, u, record, cell);
    }

    /// HANDOVER CANCEL to candidate `cell`, which reaches it `x2` later; until then the
    /// candidate keeps the place it reserved (if it admitted the UE).
    fn schedule_cancel(&mut self, now: SimTime, u: usize, record: u32, cell: usize) {
        let admitted = self.ues[u]
            .cho
            .as_ref()
            .is_some_and(|c| c.holds_place_at(cell));
        if admitted {
            self.ues[u].cancels_in_flight.push(cell);
        }
        let step = Step::Conditional {
            cell,
            token: u32::MAX,
            stage: ChoStep::Cancel,
        };
        let x2 = self.ho_cfg.latencies.x2;
        self.steps.schedule(now + x2, u, Some(record), step);
    }

    /// Whether candidate `cell` of UE `u`'s executed conditional handover is one the source
    /// cancels at HANDOVER SUCCESS (it admitted the UE and holds its place until then).
    fn reserved_for_success(&self, u: usize, cell: usize) -> bool {
        self.ues[u]
            .ho
            .as_ref()
            .is_some_and(|h| h.reserved_until_success.contains(&cell))
    }

    /// Whether candidate cell `c` holds a place for UE `u` (module documentation,
    /// "Reservation"): it admitted the UE as a candidate, and neither has its cancel reached
    /// it nor has the UE executed towards it.
    pub(super) fn cho_reserves(&self, c: usize, u: usize) -> bool {
        let ue = &self.ues[u];
        ue.cho.as_ref().is_some_and(|k| k.holds_place_at(c))
            || ue.cancels_in_flight.contains(&c)
            || self.reserved_for_success(u, c)
    }

    /// Runs one step of a candidate's preparation. A step of a candidate that was cancelled,
    /// or of a UE that has executed or lost its link since, is ignored.
    pub(super) fn cho_step(
        &mut self,
        now: SimTime,
        u: usize,
        record: Option<u32>,
        cell: usize,
        token: u32,
        stage: ChoStep,
    ) {
        let Some(record) = record else { return };
        let (node, cand) = (self.ues[u].node, self.enbs[cell]);
        if stage == ChoStep::Cancel {
            // Its sender: the record's source (the UE may have left it since).
            let Some(from) = self.timeline.record_mut(record).map(|r| r.source) else {
                return;
            };
            self.cho_event(now, u, record, from, cand, Msg::HandoverCancel);
            let pending = &mut self.ues[u].cancels_in_flight;
            if let Some(i) = pending.iter().position(|&k| k == cell) {
                pending.remove(i);
            }
            return;
        }
        let live = self.ues[u].ho.is_none()
            && self.ues[u]
                .cho
                .as_ref()
                .is_some_and(|c| c.record == Some(record) && c.candidate(cell, token).is_some());
        if !live {
            return;
        }
        let src = self.enbs[self.ues[u].serving];
        let l = self.ho_cfg.latencies;
        let next = |this: &mut Self, after, stage| {
            let s = Step::Conditional { cell, token, stage };
            this.steps.schedule(now + after, u, Some(record), s);
        };
        match stage {
            ChoStep::MeasurementReport => {
                self.cho_event(now, u, record, node, src, Msg::MeasurementReport);
                next(self, l.decision, ChoStep::Decision);
            }
            ChoStep::Decision => {
                self.cho_event(now, u, record, src, src, Msg::HandoverDecision);
                next(self, l.x2, ChoStep::Request);
            }
            ChoStep::Request => {
                self.cho_event(now, u, record, src, cand, Msg::HandoverRequest);
                next(self, l.admission, ChoStep::Admission);
            }
            ChoStep::Admission => {
                self.cho_event(now, u, record, cand, cand, Msg::AdmissionControl);
                let admitted = self
                    .ho_cfg
                    .max_ues_per_cell
                    .is_none_or(|max| self.cell_load(cell, u) < max);
                let answer = if admitted {
                    if let Some(c) = self.cho_candidate_mut(u, cell, token) {
                        c.admitted = true;
                    }
                    ChoStep::RequestAck
                } else {
                    ChoStep::PreparationFailure
                };
                next(self, l.x2, answer);
            }
            ChoStep::RequestAck => {
                self.cho_event(now, u, record, cand, src, Msg::HandoverRequestAck);
                next(self, l.rrc, ChoStep::Reconfiguration);
            }
            ChoStep::PreparationFailure => {
                let m = Msg::HandoverPreparationFailure;
                self.cho_event(now, u, record, cand, src, m);
                if let Some(c) = self.cho_candidate_mut(u, cell, token) {
                    c.stage = Stage::Refused;
                }
            }
            ChoStep::Reconfiguration => {
                let m = Msg::ConditionalReconfiguration;
                self.cho_event(now, u, record, src, node, m);
                if let Some(c) = self.cho_candidate_mut(u, cell, token) {
                    c.stage = Stage::Configured;
                    c.configured_at = Some(now);
                }
            }
            ChoStep::Cancel => {}
        }
    }

    fn cho_candidate_mut(&mut self, u: usize, cell: usize, token: u32) -> Option<&mut Candidate> {
        self.ues[u].cho.as_mut()?.candidate_mut(cell, token)
    }

    /// The UE executes the conditional handover to candidate `cell` now (its execution
    /// condition held, or its radio link failed): it leaves the source without telling it and
    /// accesses the candidate.
    fn cho_execute(&mut self, now: SimTime, u: usize, cell: usize, out: &mut MediumOutput) {
        let Some(cho) = self.ues[u].cho.as_mut() else {
            return;
        };
        let (Some(record), Some(chosen)) = (cho.record.take(), cho.remove(cell)) else {
            return;
        };
        let others: Vec<usize> = cho.candidates.iter().map(|c| c.cell).collect();
        // Of those, the ones that admitted the UE keep its place until their cancel.
        let reserving: Vec<usize> = cho
            .candidates
            .iter()
            .filter(|c| c.admitted)
            .map(|c| c.cell)
            .collect();
        // 36.331 §5.3.5.13: the UE releases its other conditional reconfigurations at the
        // execution; the conditions are about the old serving cell.
        cho.reset();
        self.totals_cho.executed += 1;
        let source = self.ues[u].serving;
        let (node, src_enb, tgt_enb) = (self.ues[u].node, self.enbs[source], self.enbs[cell]);
        if let Some(r) = self.timeline.record_mut(record) {
            r.target = tgt_enb;
            r.decision = chosen.decision;
            r.command = chosen.configured_at;
            r.execution = Some(now);
        }
        let mut ho = Handover::new(
            record,
            HandoverCause::A3,
            source,
            cell,
            self.ho_cfg.policy,
            self.ho_cfg.reordering,
        );
        ho.conditional = true;
        ho.admitted = true;
        ho.cancel_after_success = others;
        ho.reserved_until_success = reserving;
        let ue = &mut self.ues[u];
        ue.ho = Some(ho);
        ue.latest_record = Some(record);
        ue.last_commanded = Some(record);
        // 36.331 §5.3.5.4 (applied at the execution, §5.3.5.13): T310 stops.
        if let Some(rlf) = ue.rlf.as_mut() {
            rlf.reset();
        }
        let ids = Ids {
            id: record,
            node,
            source,
            target: cell,
            src_enb,
            tgt_enb,
        };
        self.timeline
            .event(now, record, node, node, node, Msg::ConditionalExecution);
        let Some(d) = self.detach(now, u, ids, out) else {
            return;
        };
        let Some(h) = self.ues[u].ho.as_mut() else {
            return;
        };
        h.detached = true;
        h.dl_count = Some(d.next_dl_count);
        // The source keeps them until HANDOVER SUCCESS tells it the UE has gone.
        h.source_pending = d.unconfirmed;
        let l = self.ho_cfg.latencies;
        let confirm = now + l.detach_sync + l.random_access;
        self.steps
            .schedule(confirm, u, Some(record), Step::HandoverConfirm);
    }

    /// A downlink packet reached the source after the UE executed, before HANDOVER SUCCESS:
    /// the source, unaware, keeps it for the UE.
    pub(super) fn cho_source_keeps(&mut self, u: usize, pkt: Packet) {
        if let Some(h) = self.ues[u].ho.as_mut() {
            self.timeline.touch_flow(h.id, pkt.flow);
            h.source_fresh.push(pkt);
        }
    }

    /// HANDOVER SUCCESS reached the source: it stops serving the UE, forwards (or discards)
    /// what it kept, sends the SN STATUS TRANSFER and cancels the other candidates.
    pub(super) fn cho_handover_success(
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
            ids.tgt_enb,
            ids.src_enb,
            Msg::HandoverSuccess,
        );
        let Some(h) = self.ues[u].ho.as_mut() else {
            return;
        };
        h.success_received = true;
        let pending: Vec<BearerSdu> = std::mem::take(&mut h.source_pending);
        let fresh: Vec<Packet> = std::mem::take(&mut h.source_fresh);
        let others = std::mem::take(&mut h.cancel_after_success);
        let reserving = std::mem::take(&mut h.reserved_until_success);
        self.ues[u].cancels_in_flight.extend(reserving);
        if self.ho_cfg.policy == HandoverPolicy::Discard {
            self.discard_unconfirmed(u, ids.id, pending, out);
            for pkt in fresh {
                self.timeline.count(
                    Some(ids.id),
                    pkt.flow,
                    PacketFate::Dropped(DropPlace::Source),
                );
                out.dropped.push((pkt, DropCause::Handover));
            }
        } else {
            self.forward_unconfirmed(u, ids, pending, out);
            for pkt in fresh {
                self.timeline
                    .count(Some(ids.id), pkt.flow, PacketFate::Forwarded);
                out.requests.push(MediumRequest::Forward {
                    from: ids.src_enb,
                    to: ids.tgt_enb,
                    pkt,
                    pdcp_count: None,
                });
            }
        }
        let x2 = self.ho_cfg.latencies.x2;
        self.steps
            .schedule(now + x2, u, Some(ids.id), Step::SnStatusTransfer);
        for cell in others {
            let step = Step::Conditional {
                cell,
                token: u32::MAX,
                stage: ChoStep::Cancel,
            };
            self.totals_cho.cancelled += 1;
            self.steps.schedule(now + x2, u, Some(ids.id), step);
        }
    }

    /// T310 expired for UE `u`: if a configured candidate is suitable, the UE executes towards
    /// the best one (attemptCondReconfig) and `true` is returned; otherwise its conditional
    /// handover in preparation fails (its record says so) and `false` is returned for the
    /// re-establishment to follow.
    pub(super) fn cho_radio_link_failure(
        &mut self,
        now: SimTime,
        u: usize,
        out: &mut MediumOutput,
    ) -> bool {
        let q = self.ho_cfg.q_rxlevmin_dbm;
        let ue = &self.ues[u];
        let Some(cho) = ue.cho.as_ref() else {
            return false;
        };
        if ue.ho.is_some() {
            return false;
        }
        let best = ue
            .filtered()
            .filter(|&(c, rsrp)| {
                rsrp > q
                    && cho
                        .candidates
                        .iter()
                        .any(|k| k.cell == c && k.stage == Stage::Configured)
            })
            .fold(None, |best: Option<(usize, f64)>, (c, v)| match best {
                Some((_, b)) if b >= v => best,
                _ => Some((c, v)),
            });
        let record = cho.record;
        let Some((cell, _)) = best else {
            if let Some(id) = record {
                if let Some(r) = self.timeline.record_mut(id) {
                    r.result = HandoverResult::RadioLinkFailure;
                }
            }
            if let Some(cho) = self.ues[u].cho.as_mut() {
                cho.record = None;
                cho.reset();
            }
            return false;
        };
        let Some(record) = record else { return false };
        self.radio_link_failures += 1;
        self.totals_cho.rlf_recoveries += 1;
        let node = self.ues[u].node;
        let src_enb = self.enbs[self.ues[u].serving];
        self.timeline
            .event(now, record, node, src_enb, node, Msg::RadioLinkFailure);
        self.cho_execute(now, u, cell, out);
        true
    }

    /// Whether the network runs conditional handovers.
    pub(super) fn conditional_procedure(&self) -> bool {
        matches!(self.ho_cfg.procedure, HandoverProcedure::Conditional(_))
    }
}
