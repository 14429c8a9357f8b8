//! Loss models for one direction of a link, one file each.
//!
//! Call contract: the link asks once per packet, when the packet finishes serialisation, whether
//! it is lost. Models draw only from the `RngStream` they are handed (the link direction's own
//! loss stream), so their decisions are reproducible and independent of other components.

use celltcp_engine::{RngStream, SimTime};

// Implementations (added by their own files):
// mod bernoulli; mod ber; mod gilbert_elliott;

pub trait LossModel {
    /// True when a packet of `size_bytes` (whole IP datagram) is lost.
    fn is_lost(&mut self, size_bytes: u32, now: SimTime, rng: &mut RngStream) -> bool;
    /// Short name for summaries: "bernoulli", "ber", "gilbert_elliott".
    fn kind(&self) -> &'static str;
}
