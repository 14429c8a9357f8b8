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
//!   `now` and the packets the medium dropped;
//! * `tunnel_receive` when a GTP-U packet that is not S1-U downlink data reaches one of the
//!   medium's base stations: X2-U forwarded data or an end marker (a radio access network with
//!   handover, TS 36.300 §10.1.2.1). A medium asks the network for what only the network can
//!   do — tunnel a packet to another base station, switch a UE's S1 path — through
//!   [`MediumOutput::requests`].

use celltcp_engine::{RngStream, SimTime};

use crate::handover::{HandoverEvent, HandoverRecord};
use crate::packet::{NodeId, Packet};
use crate::queue::DropCause;
use crate::trace::Traces;

/// What a medium asks the network to do (the user plane of the EPC and of X2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MediumRequest {
    /// The S-GW switches `ue`'s downlink to `enb` now (TS 36.300 §10.1.2.1.1 step 14, TS 23.401
    /// §5.5.1.1.2 Modify Bearer) and sends an end marker on the old path to the old eNB
    /// (TS 29.281 §7.3.2; 36.300 §10.1.2.2).
    PathSwitch { ue: NodeId, enb: NodeId },
    /// Data forwarding over X2-U (36.300 §10.1.2.1.2): tunnel `pkt` from eNB `from` to eNB `to`
    /// in a G-PDU that carries the PDCP COUNT the source gave it, if any (the PDCP PDU number
    /// extension header, TS 29.281 §5.2.2.2). The packet is routed like any other: over a
    /// direct X2 link or through the core routers, whichever the topology offers.
    Forward {
        from: NodeId,
        to: NodeId,
        pkt: Packet,
        pdcp_count: Option<u32>,
    },
    /// An end marker for `ue`'s bearer from eNB `from` to eNB `to` over X2-U, sent after the
    /// last forwarded packet (36.300 §10.1.2.2).
    ForwardEndMarker {
        from: NodeId,
        to: NodeId,
        ue: NodeId,
    },
}

/// A GTP-U packet for a UE that reached one of the medium's base stations and is not S1-U
/// downlink data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TunnelArrival {
    /// Forwarded data out of its X2-U tunnel, with the PDCP COUNT the source gave it.
    Forwarded {
        pkt: Packet,
        pdcp_count: Option<u32>,
    },
    /// An end marker: on S1-U from the S-GW (`from_gateway`), or forwarded over X2-U.
    EndMarker { from_gateway: bool },
}

/// What a medium did in one call.
#[derive(Default)]
pub struct MediumOutput {
    /// Packets that reached `node` now.
    pub delivered: Vec<(NodeId, Packet)>,
    /// Packets the medium dropped (buffer overflow, residual errors after retransmissions).
    pub dropped: Vec<(Packet, DropCause)>,
    /// What the network must do now, in order.
    pub requests: Vec<MediumRequest>,
}

impl MediumOutput {
    pub fn clear(&mut self) {
        self.delivered.clear();
        self.dropped.clear();
        self.requests.clear();
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
    fn on_timer(
        &mut self,
        now: SimTime,
        rng: &mut RngStream,
        traces: &mut Traces,
        out: &mut MediumOutput,
    );
    /// Figures for the run summary, in a fixed order.
    fn report(&self, now: SimTime) -> Vec<MediumFigure>;
    /// The medium's state for a sampled time series (`[trace] cells`), appended to `out` in a
    /// fixed order: gauges at `now` and cumulative counters (whose differences between samples
    /// give per-interval rates). Keys follow `report`'s naming.
    fn sample(&self, _now: SimTime, _out: &mut Vec<MediumFigure>) {}
    /// A GTP-U packet for `ue` (X2-U data or an end marker) reached base station `at` of this
    /// medium. A medium without handover drops forwarded data.
    fn tunnel_receive(
        &mut self,
        _now: SimTime,
        _at: NodeId,
        _ue: NodeId,
        arrival: TunnelArrival,
        out: &mut MediumOutput,
    ) {
        if let TunnelArrival::Forwarded { pkt, .. } = arrival {
            out.dropped.push((pkt, DropCause::NoRoute));
        }
    }
    /// The media this one is made of, for per-part summaries and series (a radio access
    /// network returns its cells); empty = the medium reports as one.
    fn parts(&self) -> Vec<&dyn Medium> {
        Vec::new()
    }
    /// The handovers carried out so far, in the order they started.
    fn handovers(&self) -> Vec<HandoverRecord> {
        Vec::new()
    }
    /// The message timeline of those handovers, in time order.
    fn handover_events(&self) -> &[HandoverEvent] {
        &[]
    }
    /// At the end of a run: flushes the medium's own captures (a cell's radio-side pcap files)
    /// and reports the first error any of their writes met. A medium without captures has
    /// nothing to do.
    fn finish_captures(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
