//! Transport agents: what runs on a host above IP (a UDP source, a TCP endpoint with its
//! application, a traffic sink).
//!
//! Agents are sans-IO: the world hands them packets and timer expiries with the current time
//! through an [`AgentCtx`], and collects the packets they send and the one timer they want.
//! Call contract: `start` once at the agent's start time; `on_packet` for every packet addressed
//! to the agent's host and port; `on_timer` when the deadline last passed to
//! [`AgentCtx::set_timer`] is reached (a later `set_timer` replaces an earlier one).

use celltcp_engine::{RngStream, SimTime};

use crate::packet::Packet;
use crate::trace::Traces;

/// A named figure an agent reports for the run summary (e.g. `("retransmissions", 12.0)`).
pub type ReportEntry = (&'static str, f64);

pub trait Agent {
    fn start(&mut self, ctx: &mut AgentCtx<'_>);
    fn on_packet(&mut self, pkt: Packet, ctx: &mut AgentCtx<'_>);
    fn on_timer(&mut self, ctx: &mut AgentCtx<'_>);
    /// Figures for the summary, in a fixed order.
    fn report(&self, now: SimTime) -> Vec<ReportEntry>;
}

/// The agent's view of the world during one call.
pub struct AgentCtx<'a> {
    now: SimTime,
    out: &'a mut Vec<Packet>,
    timer: &'a mut Option<SimTime>,
    pub rng: &'a mut RngStream,
    pub traces: &'a mut Traces,
}

impl<'a> AgentCtx<'a> {
    pub fn new(
        now: SimTime,
        out: &'a mut Vec<Packet>,
        timer: &'a mut Option<SimTime>,
        rng: &'a mut RngStream,
        traces: &'a mut Traces,
    ) -> Self {
        AgentCtx {
            now,
            out,
            timer,
            rng,
            traces,
        }
    }

    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Hands a packet to the host's IP layer; it leaves at the current time. The world assigns
    /// `uid` and fills in the source address if left unspecified.
    #[inline]
    pub fn send(&mut self, pkt: Packet) {
        self.out.push(pkt);
    }

    /// Requests `on_timer` at `at` (clamped to now), replacing any earlier request; `None`
    /// cancels.
    #[inline]
    pub fn set_timer(&mut self, at: Option<SimTime>) {
        *self.timer = at.map(|t| t.max(self.now));
    }

    /// The deadline currently requested.
    pub fn timer(&self) -> Option<SimTime> {
        *self.timer
    }
}
