//! Shared transmission media: an LTE cell and the UEs it serves, a WCDMA dedicated channel.
//!
//! A medium joins several nodes (a base station and its terminals). The topology sees one edge
//! per (base station, terminal) pair so that routes are computed as for links; packets routed
//! onto such an edge are handed to the medium, which queues, schedules and delivers them in its
//! own way. Like every component, a medium is sans-IO.
//!
//! Call contract, driven by the world:
//! * `send` when a node routes a packet onto an edge of the medium (`from` → `to`);
//! * `on_timer` when the deadline last returned by `poll_timeout` is reached (a medium that has
//!   nothing to do returns `None`, so idle TTIs cost nothing);
//! * after each `send` and `on_timer`, `drain` hands over the packets that reached a node at
//!   `now` and the packets the medium dropped.

use celltcp_engine::{RngStream, SimTime};

use crate::packet::{NodeId, Packet};
use crate::queue::DropCause;
use crate::trace::Traces;

/// What a medium did in one call.
#[derive(Default)]
pub struct MediumOutput {
    /// Packets that reached `node` now.
    pub delivered: Vec<(NodeId, Packet)>,
    /// Packets the medium dropped (buffer overflow, residual errors after retransmissions).
    pub dropped: Vec<(Packet, DropCause)>,
}

impl MediumOutput {
    pub fn clear(&mut self) {
        self.delivered.clear();
        self.dropped.clear();
    }
}

/// A named figure of a medium for the run summary, e.g. `("ue1.rlc_retx", 3.0)`.
pub type MediumFigure = (String, f64);

pub trait Medium {
    /// Name used in summaries (the cell's name in the scenario).
    fn name(&self) -> &str;
    /// The edges (base station, terminal) this medium provides, both directions usable.
    fn edges(&self) -> Vec<(NodeId, NodeId)>;
    /// `from` hands `pkt` to the medium for `to`.
    fn send(&mut self, now: SimTime, from: NodeId, to: NodeId, pkt: Packet, out: &mut MediumOutput);
    /// The deadline of the medium's next internal event, if it has work.
    fn poll_timeout(&self) -> Option<SimTime>;
    /// Runs the medium's work due at `now` (a TTI, a timer).
    fn on_timer(&mut self, now: SimTime, rng: &mut RngStream, traces: &mut Traces, out: &mut MediumOutput);
    /// Figures for the run summary, in a fixed order.
    fn report(&self, now: SimTime) -> Vec<MediumFigure>;
    /// The medium's state for a sampled time series (`[trace] cells`), appended to `out` in a
    /// fixed order: gauges at `now` and cumulative counters (whose differences between samples
    /// give per-interval rates). Keys follow `report`'s naming.
    fn sample(&self, _now: SimTime, _out: &mut Vec<MediumFigure>) {}
}
