//! Loss models for one direction of a link, one file each.
//!
//! Call contract: the link asks once per packet, when the packet finishes serialisation, whether
//! it is lost. Models draw only from the `RngStream` they are handed (the link direction's own
//! loss stream), so their decisions are reproducible and independent of other components.
//!
//! Models: [`Bernoulli`] (independent losses), [`BitErrorRate`] (independent bit errors, so
//! longer packets are lost more often) and [`GilbertElliott`] (a two-state Markov chain for
//! bursty losses). Constructors reject out-of-range parameters with [`ParamError`], the error
//! type shared with the queue disciplines. [`AnyLossModel`] holds any of them as a plain value
//! (`Clone`, `PartialEq`) for configurations that carry a loss model.

use celltcp_engine::{RngStream, SimTime};

mod any;
mod ber;
mod bernoulli;
mod gilbert_elliott;

pub use crate::queue::ParamError;
pub use any::AnyLossModel;
pub use ber::BitErrorRate;
pub use bernoulli::Bernoulli;
pub use gilbert_elliott::{GeConfig, GeState, GilbertElliott};

pub trait LossModel {
    /// True when a packet of `size_bytes` (whole IP datagram) is lost.
    fn is_lost(&mut self, size_bytes: u32, now: SimTime, rng: &mut RngStream) -> bool;
    /// Short name for summaries: "bernoulli", "ber", "gilbert_elliott".
    fn kind(&self) -> &'static str;
}
