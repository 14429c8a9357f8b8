//! The discrete-event core of celltcp.
//!
//! * [`SimTime`] / [`SimDuration`]: integer nanoseconds; floats never enter event keys.
//! * [`EventQueue`]: a hierarchical timing wheel over the bytes of the time key; events at equal
//!   times pop in insertion order (FIFO).
//! * [`RngStream`]: one reproducible random stream per component, derived from
//!   (seed, run, component path) so that adding a component never perturbs another's numbers.
//! * [`Simulator`]: the loop that feeds events to a [`Model`] until a stop condition.

mod queue;
mod rng;
mod sim;
mod time;

#[cfg(feature = "serde")]
pub mod serde_nanos;

pub use queue::{EventQueue, ScheduleError};
pub use rng::{stream_seed, RngStream};
pub use sim::{Model, ModelPanic, RunOutcome, Scheduler, Simulator, StopCondition, StopReason};
pub use time::{SimDuration, SimTime};
