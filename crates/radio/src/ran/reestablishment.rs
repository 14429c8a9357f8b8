//! Radio link failure and RRC connection re-establishment (TS 36.331 §5.3.11.3, §5.3.7).
//!
//! When T310 expires the UE has lost its serving cell: a handover in progress fails (its record
//! says so and the data its target held are lost), the UE leaves the cell with `Discard`
//! semantics (nothing is forwarded: without a prepared target there is no X2-U tunnel), and a
//! new record (cause `RadioLinkFailure`, policy `discard`) follows the recovery. After
//! `reestablishment` (cell search, random access, re-establishment with T311 running) the UE is
//! served by the cell with the best filtered RSRP, provided that cell is suitable — its RSRP
//! above `q_rxlevmin_dbm` (the S criterion of TS 36.304 §5.2.3.2); otherwise the UE stays out of
//! service and searches again every measurement period, so a UE that drove out of coverage is
//! not attached to a cell it cannot hear. Admission control is not applied (the
//! re-establishment is not an X2 request). If the S-GW's path does not lead to the chosen cell
//! the path switch of 36.300 §10.1.2.1.1 steps 12–17 follows.

use celltcp_engine::SimTime;
use celltcp_net::handover::{HandoverCause, HandoverPolicy, HandoverResult};
use celltcp_net::medium::MediumOutput;

use super::procedure::{Handover, Ids};
use super::steps::Step;
use super::timeline::HandoverMessage as Msg;
use super::LteRan;

impl LteRan {
    /// T310 expired for UE `u` at `now`.
    pub(super) fn radio_link_failure(&mut self, now: SimTime, u: usize, out: &mut MediumOutput) {
        if self.cho_radio_link_failure(now, u, out) {
            // Rel-16 attemptCondReconfig: a prepared candidate instead of re-establishment.
            return;
        }
        if let Some(old) = self.ues[u].ho.take() {
            if old.source_leg && old.source != self.ues[u].serving {
                // DAPS after the access: the source leg goes with the target's.
                self.drop_source_leg(now, u, old.source, old.id, out);
            }
            if !old.released {
                if let Some(r) = self.timeline.record_mut(old.id) {
                    r.result = HandoverResult::RadioLinkFailure;
                }
            }
            self.drop_held(old.held, old.id, out);
        }
        let serving = self.ues[u].serving;
        let node = self.ues[u].node;
        let enb = self.enbs[serving];
        let policy = HandoverPolicy::Discard;
        let id = self
            .timeline
            .open(node, enb, enb, HandoverCause::RadioLinkFailure, policy, now);
        if let Some(r) = self.timeline.record_mut(id) {
            r.command = Some(now);
        }
        let mut ho = Handover::new(
            id,
            HandoverCause::RadioLinkFailure,
            serving,
            serving,
            policy,
            false,
        );
        ho.detached = true;
        ho.sn_status_received = true;
        let ue = &mut self.ues[u];
        ue.ho = Some(ho);
        ue.latest_record = Some(id);
        ue.last_commanded = Some(id);
        for m in ue.rlf.iter_mut() {
            m.reset();
        }
        for m in ue.a3.iter_mut() {
            m.reset();
        }
        self.radio_link_failures += 1;
        let ids = Ids {
            id,
            node,
            source: serving,
            target: serving,
            src_enb: enb,
            tgt_enb: enb,
        };
        self.timeline
            .event(now, id, node, enb, node, Msg::RadioLinkFailure);
        if let Some(d) = self.detach(now, u, ids, out) {
            if let Some(h) = self.ues[u].ho.as_mut() {
                h.dl_count = Some(d.next_dl_count);
            }
            self.discard_unconfirmed(u, id, d.unconfirmed, out);
        }
        let at = now + self.ho_cfg.reestablishment;
        self.steps.schedule(at, u, Some(id), Step::Reestablishment);
    }

    /// Re-establishment is over: the UE is served by the best cell it measures.
    pub(super) fn reestablishment(
        &mut self,
        now: SimTime,
        u: usize,
        ids: Ids,
        out: &mut MediumOutput,
    ) {
        let ue = &self.ues[u];
        let best = ue.best_cell().unwrap_or(ue.serving);
        let Some(count) = ue.ho.as_ref().and_then(|h| h.dl_count) else {
            return;
        };
        // 36.304 §5.2.3.2: Srxlev = Qrxlevmeas − Qrxlevmin must be > 0.
        let suitable = ue
            .filtered()
            .any(|(c, rsrp)| c == best && rsrp > self.ho_cfg.q_rxlevmin_dbm);
        if !suitable {
            let at = now + self.meas_cfg.period;
            self.steps
                .schedule(at, u, Some(ids.id), Step::Reestablishment);
            return;
        }
        let ids = Ids {
            target: best,
            tgt_enb: self.enbs[best],
            ..ids
        };
        if let Some(h) = self.ues[u].ho.as_mut() {
            h.target = best;
        }
        if let Some(r) = self.timeline.record_mut(ids.id) {
            r.target = ids.tgt_enb;
        }
        self.timeline.event(
            now,
            ids.id,
            ids.node,
            ids.node,
            ids.tgt_enb,
            Msg::RrcConnectionReestablishment,
        );
        self.attach(now, u, ids, best, count);
        self.flush_uplink_hold(now, u, out);
        if self.ues[u].sgw_cell != best {
            let s1 = self.ho_cfg.latencies.s1;
            let step = Step::PathSwitchRequest { from: best };
            self.steps.schedule(now + s1, u, Some(ids.id), step);
        } else {
            self.complete(now, u, ids);
        }
    }
}
