//! `[simulation]`: run length, master seed and event budget.

use celltcp_engine::SimDuration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::quantity::{Quantity, Time};
use crate::validate::positive_time;
use crate::ScenarioError;

/// `[simulation]`: run length, master seed and event budget.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SimulationFile {
    /// Simulated time to run (a time, > 0).
    pub duration: Quantity<Time>,
    /// Master seed of every random stream (the CLI's `--seed` overrides it).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Stop after this many events, a safety budget (integer > 0); none by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_events: Option<u64>,
}

fn default_seed() -> u64 {
    1
}

/// Run-wide settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Simulation {
    /// Simulated time to run, nanoseconds (> 0).
    pub duration: SimDuration,
    /// Master seed; each component's stream derives from (seed, run, component path).
    pub seed: u64,
    /// Event budget: the run stops after this many events.
    pub max_events: Option<u64>,
}

impl SimulationFile {
    pub(crate) fn convert(&self) -> Result<Simulation, ScenarioError> {
        positive_time("simulation.duration", &self.duration)?;
        if self.max_events == Some(0) {
            return Err(ScenarioError::new(
                "simulation.max_events",
                "0 is not allowed; expected an integer > 0",
            ));
        }
        Ok(Simulation {
            duration: self.duration.value,
            seed: self.seed,
            max_events: self.max_events,
        })
    }
}
