//! Packet processing inside the network: a middlebox on a router sees the packets the router
//! forwards and may change, absorb or answer them — a Snoop agent at a base station
//! (Balakrishnan et al. 1995), explicit loss notification, a split-TCP performance-enhancing
//! proxy (RFC 3135).
//!
//! Call contract, driven by the world (like agents and media, a middlebox is sans-IO):
//! * `on_forward` for every packet the node forwards that is not addressed to the node itself,
//!   not tunnelled (a middlebox at an eNB sees the downlink after decapsulation and the uplink
//!   before encapsulation), and not emitted by the middlebox itself. Returning the packet
//!   forwards it (possibly changed); `None` absorbs it. Packets the middlebox wants to send
//!   from the node go into `ctx.out` and are routed from the node without passing through the
//!   middlebox again;
//! * `on_link_loss` when a packet the node sent on one of its point-to-point links was lost by
//!   that link's loss model — what a base station's link layer knows about its radio hop;
//! * `on_timer` at the deadline last returned by `poll_timeout`.

use celltcp_engine::{RngStream, SimTime};

use crate::packet::Packet;
use crate::trace::Traces;

/// The middlebox's view of the world during one call.
pub struct MiddleboxCtx<'a> {
    pub now: SimTime,
    /// Packets to route from the node now, in order. The world assigns `uid` and, when left
    /// unspecified, the source address (the node's).
    pub out: &'a mut Vec<Packet>,
    pub rng: &'a mut RngStream,
    pub traces: &'a mut Traces,
}

/// A named figure of a middlebox for the run summary.
pub type MiddleboxFigure = (String, f64);

pub trait Middlebox {
    /// Name in summaries (the scenario's name for it).
    fn name(&self) -> &str;
    /// A packet the node forwards: return it to forward it, `None` to absorb it.
    fn on_forward(&mut self, pkt: Packet, ctx: &mut MiddleboxCtx<'_>) -> Option<Packet>;
    /// A packet the node sent on a point-to-point link was lost by the link's loss model.
    fn on_link_loss(&mut self, _pkt: &Packet, _ctx: &mut MiddleboxCtx<'_>) {}
    /// The deadline of the middlebox's next timer, if any.
    fn poll_timeout(&self) -> Option<SimTime> {
        None
    }
    /// Runs the timers due at `ctx.now`.
    fn on_timer(&mut self, _ctx: &mut MiddleboxCtx<'_>) {}
    /// Whether `pkt`, just emitted through `ctx.out`, goes ahead of the packets waiting in the
    /// queue of the point-to-point link it leaves on (Snoop sends its local retransmissions "at
    /// a higher priority", Balakrishnan et al. 1995). Asked once per emitted packet, after the
    /// call that emitted it; a packet leaving on a medium (a cell) is handed to it as any other.
    fn expedite(&self, _pkt: &Packet) -> bool {
        false
    }
    /// Figures for the run summary, in a fixed order.
    fn report(&self, _now: SimTime) -> Vec<MiddleboxFigure> {
        Vec::new()
    }
}
