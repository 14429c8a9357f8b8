//! A radio access network: several LTE cells ([`LteCell`]) with X2 handover between them
//! (TS 36.300 §10.1.2.1), as one [`Medium`] of the network — or several NR cells (the same
//! [`LteCell`] on an NR air interface) with Xn handover, standalone NR (TS 38.300 §9.2.3.2,
//! the same procedure and messages with Xn naming: Xn-C for X2-C, Xn-U for X2-U, the AMF and
//! UPF for the MME and S-GW). Nothing here depends on the RAT: each cell owns its slot grid,
//! HARQ processes and N_RB, and what the network reads of a cell (RSRP, SINR, PRB use) it
//! reads through the cell. The scenario refuses a network of LTE and NR cells (inter-RAT).
//!
//! Every UE of the network has a context in every cell (each cell measures it and can take it
//! over) and is served by one cell at a time. Above the cells the network keeps, per UE, its
//! mobility and measurements, its PDCP receiver (persisting across cells, so that the COUNT
//! continues and forwarded duplicates are discarded, 36.323 §5.1.2.1.2) and at most one
//! handover in progress. The PDCP receiver delivers as RLC delivers while the UE stays in a
//! cell (as a plain cell does) and, with `handover.reordering`, reorders by COUNT from the
//! moment the UE leaves a cell until its handover is over and nothing is held back (36.323
//! §5.1.2.1.2, PDUs received because of a re-establishment of the lower layers; t-Reordering of
//! §5.1.2.1.4 bounds the wait). Pieces, one per file:
//! * the handover state machine and its message chart (`procedure.rs`, timed by `steps.rs`),
//!   radio link failure and re-establishment (`reestablishment.rs`), the DAPS handover
//!   (`daps.rs`) and the conditional handover (`conditional.rs`);
//! * the user plane — forwarding, the target's buffer, end markers, per policy (`data_path.rs`);
//! * the measurement tick — mobility, RSRP and RSRQ, layer-3 filtering, A3, radio link monitoring,
//!   interference coupling (`measure.rs`);
//! * the UE's state and its PDCP receiver (`ue.rs`); the records (`timeline.rs`);
//! * construction and validation (`build.rs`, `error.rs`).
//!
//! Routing (the world's view): the edges are every (eNB, UE) pair. Downlink packets reach the
//! UE through whichever eNB the S-GW tunnelled them to; what happens there depends on that
//! eNB's role (`data_path.rs`). Uplink packets from a UE go through its serving cell whatever
//! edge they were routed onto, or wait at the UE while it is not served.
//!
//! Timing: `on_timer(now)` runs, in this order, the procedure steps due (by time, then
//! scheduling order), the measurement tick if due, the T310 expiries due, every cell whose
//! deadline has come, then hands the SDUs the cells' RLC reassembled to the UEs' PDCP receivers
//! and runs their t-Reordering. Requests to the network (forwarding, end markers, path switches)
//! are appended to `MediumOutput::requests` in the order they arise.
//!
//! Randomness: every cell keeps the streams of a plain cell (`cell/NAME/ue/NODE/…`), so a
//! one-cell network without handover reproduces the plain cell exactly; the network adds
//! `ran/ue/NODE/mobility`, `ran/ue/NODE/measurement`, `ran/ue/NODE/measurement/rsrq`,
//! `ran/prediction`, and `ran/ue/NODE/downlink_loss` for a UE with receive errors (the UE's
//! own model, applied above the cells, so it follows the UE through handovers).

mod build;
mod conditional;
pub mod config;
mod daps;
mod data_path;
pub mod dual_connectivity;
mod error;
mod measure;
mod procedure;
mod reestablishment;
mod steps;
mod timeline;
mod ue;

#[cfg(test)]
mod tests;

use celltcp_engine::{RngStream, SimTime};
use celltcp_net::handover::{HandoverCause, HandoverEvent, HandoverRecord, HandoverResult};
use celltcp_net::medium::{Medium, MediumFigure, MediumOutput, TunnelArrival};
use celltcp_net::packet::{NodeId, Packet};
use celltcp_net::queue::DropCause;
use celltcp_net::trace::Traces;

use crate::cell::bearer::BearerSdu;
use crate::cell::LteCell;
use crate::pdcp::PdcpConfig;

pub use config::{
    ConditionalConfig, DapsLatencies, HandoverConfig, HandoverLatencies, HandoverProcedure,
    ManualHandover, MeasurementConfig, PathSwitchPrediction, RanConfig, RanUe, TriggerQuantity,
    DEFAULT_PREDICTION_STEP, DEFAULT_Q_RXLEVMIN_DBM,
};
pub use dual_connectivity::{DualConnectivityConfig, SplitPolicy};
pub use error::RanError;
pub use timeline::HandoverMessage;
pub use ue::UPLINK_HOLD_PACKETS;

use config::HandoverConfig as HoCfg;
use measure::Coupling;
use steps::StepQueue;
use timeline::Timeline;
use ue::UeRan;

/// A radio access network of LTE cells with X2 handover, or of NR cells with Xn handover, as a
/// medium (module documentation).
pub struct LteRan {
    name: String,
    cells: Vec<LteCell>,
    /// The eNB node of each cell.
    enbs: Vec<NodeId>,
    ues: Vec<UeRan>,
    /// (UE node, index into `ues`), sorted by node.
    ue_index: Vec<(NodeId, usize)>,
    /// The MME and S-GW.
    gateway: NodeId,
    ho_cfg: HoCfg,
    meas_cfg: MeasurementConfig,
    coupling: Option<Coupling>,
    /// Per cell: `prbs_used` at the previous measurement tick.
    prbs_at_last_tick: Vec<u64>,
    /// Per cell: its PRB utilisation over the last measurement period, 0..=1 (the load its
    /// data REs put into the other cells' RSRQ and, when coupled, SINR).
    cell_loads: Vec<f64>,
    steps: StepQueue,
    next_tick: SimTime,
    timeline: Timeline,
    /// The UEs' PDCP receivers: as they run in a cell, and while a handover may reorder
    /// (`None` when `handover.reordering` is off).
    pdcp_cfg: PdcpConfig,
    pdcp_reordering_cfg: Option<PdcpConfig>,
    /// Every UE's PDCP receiver reorders from the start and never stops: with dual
    /// connectivity, and over NR's RLC (TS 38.323 §5.2.2.2).
    pdcp_always_reorders: bool,
    /// `ran/prediction`: the handover predictor's error.
    prediction_rng: RngStream,
    radio_link_failures: u64,
    /// Conditional handover counts (reported only with that procedure).
    totals_cho: conditional::ConditionalTotals,
    /// EN-DC with a split bearer (`dual_connectivity.rs`), if configured.
    dc: Option<dual_connectivity::DualConnectivity>,
    /// Scratch buffers, reused.
    sdus: Vec<(NodeId, BearerSdu)>,
    neighbours: Vec<(usize, f64)>,
    signals: Vec<crate::channel::CellSignal>,
    rssi_terms: Vec<crate::channel::CellSignal>,
    /// Inconsistencies met at run time (a cell refusing a call the network believed valid).
    /// Empty in a correct run; kept instead of panicking.
    errors: Vec<String>,
}

impl std::fmt::Debug for LteRan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LteRan")
            .field("name", &self.name)
            .field("cells", &self.cells.len())
            .field("ues", &self.ues.len())
            .field("policy", &self.ho_cfg.policy)
            .finish_non_exhaustive()
    }
}

impl LteRan {
    /// The network's cells, in configuration order.
    /// Captures cell `cell`'s radio side from now on (`LteCell::set_capture`); its UEs are the
    /// network's, in the network's order.
    pub fn set_cell_capture(&mut self, cell: usize, capture: crate::cell::CellCapture) {
        if let Some(c) = self.cells.get_mut(cell) {
            c.set_capture(capture);
        }
    }

    pub fn cells(&self) -> &[LteCell] {
        &self.cells
    }

    fn ue_by_node(&self, node: NodeId) -> Option<usize> {
        self.ue_index
            .binary_search_by_key(&node, |&(n, _)| n)
            .ok()
            .map(|i| self.ue_index[i].1)
    }

    fn cell_by_enb(&self, node: NodeId) -> Option<usize> {
        self.enbs.iter().position(|&e| e == node)
    }

    /// Index of the cell serving UE `node` (the one it left, while it is detached).
    pub fn serving_cell(&self, node: NodeId) -> Option<usize> {
        self.ue_by_node(node).map(|u| self.ues[u].serving)
    }

    /// Whether UE `node` is served now (false during a handover interruption or a
    /// re-establishment).
    pub fn is_attached(&self, node: NodeId) -> Option<bool> {
        self.ue_by_node(node).map(|u| self.ues[u].attached)
    }

    /// The layer-3 filtered RSRP of cell `cell` at UE `node`, dBm, once measured.
    pub fn filtered_rsrp_dbm(&self, node: NodeId, cell: usize) -> Option<f64> {
        let u = self.ue_by_node(node)?;
        self.ues[u].l3.get(cell)?.value()
    }

    /// The layer-3 filtered RSRQ of cell `cell` at UE `node`, dB, once measured.
    pub fn filtered_rsrq_db(&self, node: NodeId, cell: usize) -> Option<f64> {
        let u = self.ue_by_node(node)?;
        self.ues[u].l3_rsrq.get(cell)?.value()
    }

    /// A UE's position as of the last measurement tick.
    pub fn ue_position(&self, node: NodeId) -> Option<crate::channel::Position> {
        self.ue_by_node(node).map(|u| self.ues[u].position)
    }

    /// Inconsistencies met at run time; empty in a correct run.
    pub fn errors(&self) -> &[String] {
        &self.errors
    }

    fn internal_error(&mut self, msg: String) {
        debug_assert!(false, "{msg}");
        self.errors.push(msg);
    }

    /// Hands every SDU the cells' RLC reassembled to the UEs' PDCP receivers.
    fn collect_sdus(&mut self, now: SimTime, out: &mut MediumOutput) {
        // Cell by cell, in cell order (the order of collecting them all first): with dual
        // connectivity each leg's deliveries count for its rate.
        let mut sdus = std::mem::take(&mut self.sdus);
        for c in 0..self.cells.len() {
            self.cells[c].take_delivered_sdus(&mut sdus);
            for (node, pdu) in sdus.drain(..) {
                match self.ue_by_node(node) {
                    Some(u) => {
                        if let Some(dc) = self.dc.as_mut() {
                            let bytes = u64::from(pdu.sdu.packet.size_bytes());
                            dc.note_delivered(u, c, pdu.count, bytes);
                        }
                        self.pdcp_receive(now, u, pdu, out)
                    }
                    None => out.dropped.push((pdu.sdu.packet, DropCause::NoRoute)),
                }
            }
        }
        self.sdus = sdus;
    }

    /// `ue.NODE.downlink_lost` of every UE with a downlink loss model, in UE order.
    fn downlink_lost(&self, out: &mut Vec<MediumFigure>) {
        for ue in &self.ues {
            if let Some(l) = &ue.downlink_loss {
                let figure = crate::cell::downlink_loss::DOWNLINK_LOST;
                out.push((format!("ue.{}.{figure}", ue.node), l.lost() as f64));
            }
        }
    }

    /// The earliest T310 expiry of a served UE.
    fn next_t310(&self) -> Option<SimTime> {
        self.ues
            .iter()
            .filter(|u| u.attached)
            .filter_map(|u| u.rlf.as_ref()?.t310_deadline())
            .min()
    }
}

impl Medium for LteRan {
    fn name(&self) -> &str {
        &self.name
    }

    /// Every (eNB, UE) pair: cells in order, then UEs in order.
    fn edges(&self) -> Vec<(NodeId, NodeId)> {
        let mut edges = Vec::with_capacity(self.enbs.len() * self.ues.len());
        for &enb in &self.enbs {
            edges.extend(self.ues.iter().map(|u| (enb, u.node)));
        }
        edges
    }

    fn send(
        &mut self,
        now: SimTime,
        from: NodeId,
        to: NodeId,
        pkt: Packet,
        out: &mut MediumOutput,
    ) {
        if let Some(u) = self.ue_by_node(from) {
            // Uplink: the UE's serving cell, whichever eNB the packet was routed to.
            self.uplink(now, u, pkt, out);
        } else if let (Some(c), Some(u)) = (self.cell_by_enb(from), self.ue_by_node(to)) {
            self.downlink(now, c, u, pkt, out);
        } else {
            out.dropped.push((pkt, DropCause::NoRoute));
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        let cells = self.cells.iter().filter_map(|c| c.poll_timeout()).min();
        let pdcp = self.ues.iter().filter_map(|u| u.pdcp.poll_timeout()).min();
        [
            cells,
            pdcp,
            Some(self.next_tick),
            self.steps.next_at(),
            self.next_t310(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    fn on_timer(
        &mut self,
        now: SimTime,
        rng: &mut RngStream,
        traces: &mut Traces,
        out: &mut MediumOutput,
    ) {
        while let Some(s) = self.steps.pop_due(now) {
            self.run_step(now, s, out);
        }
        if self.next_tick <= now {
            self.next_tick = self.tick_after(now);
            self.tick(now, out);
            // Steps the tick scheduled for now (zero latencies).
            while let Some(s) = self.steps.pop_due(now) {
                self.run_step(now, s, out);
            }
        }
        for u in 0..self.ues.len() {
            let ue = &mut self.ues[u];
            if ue.attached && ue.rlf.as_mut().is_some_and(|m| m.handle_timeout(now)) {
                self.radio_link_failure(now, u, out);
            }
        }
        for cell in &mut self.cells {
            if cell.poll_timeout().is_some_and(|t| t <= now) {
                cell.on_timer(now, rng, traces, out);
            }
        }
        self.collect_sdus(now, out);
        for u in 0..self.ues.len() {
            if self.ues[u].pdcp.poll_timeout().is_some_and(|t| t <= now) {
                self.ues[u].pdcp.on_timeout(now);
                self.deliver_ready(now, u, out);
            }
            if self.ues[u].pdcp_reordering {
                self.settle_pdcp(now, u);
            }
        }
    }

    /// RAN-level figures (with the conditional handover procedure, also
    /// `conditional_preparations`, `conditional_cancellations`, `conditional_executions` and
    /// `conditional_rlf_recoveries`), then per UE with a downlink loss model the packets its receiver
    /// lost (`ue.NODE.downlink_lost`); the cells report as parts.
    fn report(&self, _now: SimTime) -> Vec<MediumFigure> {
        let t = self.timeline.totals();
        let x2 = |r: &HandoverRecord| r.cause != HandoverCause::RadioLinkFailure;
        let count = |pred: &dyn Fn(&HandoverRecord) -> bool| self.timeline.count_where(pred) as f64;
        let mut figures = vec![
            ("handovers".into(), count(&x2)),
            (
                "handovers_completed".into(),
                count(&|r| x2(r) && r.result == HandoverResult::Completed),
            ),
            (
                "handovers_preparation_failed".into(),
                count(&|r| r.result == HandoverResult::PreparationFailed),
            ),
            (
                "handovers_radio_link_failure".into(),
                count(&|r| x2(r) && r.result == HandoverResult::RadioLinkFailure),
            ),
            (
                "radio_link_failures".into(),
                self.radio_link_failures as f64,
            ),
            ("packets_forwarded".into(), t.forwarded as f64),
            ("packets_dropped_handover".into(), t.dropped as f64),
            ("packets_duplicated".into(), t.duplicated as f64),
            ("packets_reordered".into(), t.reordered as f64),
        ];
        if self.conditional_procedure() {
            self.totals_cho.figures(&mut figures);
        }
        self.dc_figures(&mut figures);
        self.downlink_lost(&mut figures);
        figures
    }

    /// Per UE its serving cell index, filtered RSRP per cell and filtered RSRQ per cell (NaN
    /// before the first measurement), then the packets lost by the receivers of the UEs with
    /// a downlink loss model (`ue.NODE.downlink_lost`, cumulative), then each cell's own
    /// figures prefixed with its name.
    fn sample(&self, now: SimTime, out: &mut Vec<MediumFigure>) {
        for ue in &self.ues {
            let n = ue.node;
            out.push((format!("ue.{n}.serving"), ue.serving as f64));
            for (cell, filter) in self.cells.iter().zip(&ue.l3) {
                let name = &cell.config().name;
                out.push((
                    format!("ue.{n}.rsrp.{name}"),
                    filter.value().unwrap_or(f64::NAN),
                ));
            }
            for (cell, filter) in self.cells.iter().zip(&ue.l3_rsrq) {
                let name = &cell.config().name;
                out.push((
                    format!("ue.{n}.rsrq.{name}"),
                    filter.value().unwrap_or(f64::NAN),
                ));
            }
        }
        self.downlink_lost(out);
        let mut part = Vec::new();
        for cell in &self.cells {
            part.clear();
            cell.sample(now, &mut part);
            let name = &cell.config().name;
            out.extend(part.drain(..).map(|(k, v)| (format!("{name}/{k}"), v)));
        }
    }

    fn tunnel_receive(
        &mut self,
        now: SimTime,
        at: NodeId,
        ue: NodeId,
        arrival: TunnelArrival,
        out: &mut MediumOutput,
    ) {
        let (Some(c), Some(u)) = (self.cell_by_enb(at), self.ue_by_node(ue)) else {
            if let TunnelArrival::Forwarded { pkt, .. } = arrival {
                out.dropped.push((pkt, DropCause::NoRoute));
            }
            return;
        };
        match arrival {
            TunnelArrival::Forwarded { pkt, pdcp_count } if self.dc.is_some() => {
                self.dc_tunnel_forwarded(now, c, u, pkt, pdcp_count, out)
            }
            TunnelArrival::Forwarded { pkt, pdcp_count } => {
                self.tunnel_forwarded(now, c, u, pkt, pdcp_count, out)
            }
            TunnelArrival::EndMarker { from_gateway } => {
                self.tunnel_end_marker(now, c, u, from_gateway, out)
            }
        }
    }

    fn finish_captures(&mut self) -> std::io::Result<()> {
        for c in &mut self.cells {
            c.finish_captures()?;
        }
        Ok(())
    }

    fn parts(&self) -> Vec<&dyn Medium> {
        self.cells.iter().map(|c| c as &dyn Medium).collect()
    }

    fn handovers(&self) -> Vec<HandoverRecord> {
        self.timeline.records()
    }

    fn handover_events(&self) -> &[HandoverEvent] {
        self.timeline.events()
    }
}
