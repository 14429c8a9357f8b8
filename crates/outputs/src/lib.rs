//! The outputs of a celltcp run, read from a simulated world (`celltcp_net::world::World`)
//! once it has run: the run [`summary`] (`summary.json`), the [`series`] and their column sets
//! ([`series_columns`], the `dch` table of [`series_dch`]), the [`labels`] of their categorical
//! values, the per-handover records and TCP [`analytics`] ([`handovers`]), the figures of a
//! watched run's intervals ([`intervals`]) and the JSON Schema of all of it ([`schema`],
//! `docs/outputs.md`).
//!
//! Nothing here knows the scenario file: a scenario's run (`celltcp_scenario::run`) and the
//! real-time emulator (`celltcp_emu`) hand in what only the scenario knows (the scenario as
//! run, which media are dedicated channels, the link handovers, the user's trace selection),
//! so that both produce the same outputs from the same code.

pub mod analytics;
pub mod handovers;
pub mod intervals;
pub mod labels;
pub mod schema;
pub mod series;
pub mod series_columns;
pub mod series_dch;
mod stop_reason;
pub mod summary;
pub mod trace_selection;

pub use series::{Column, Series};
pub use stop_reason::RunStopReason;
pub use trace_selection::TraceSelection;
