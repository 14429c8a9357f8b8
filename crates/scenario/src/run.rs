//! Running a validated scenario: build the world, drive the engine, collect the summary and the
//! series.

use std::path::PathBuf;

use celltcp_engine::{SimTime, Simulator, StopCondition};

use crate::build::{build, CaptureRequest};
use crate::error::ScenarioError;
use crate::series::{self, Series};
use crate::summary;
use crate::Scenario;

/// How to run a scenario; the scenario file itself says what to simulate.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Master seed; `None` uses `simulation.seed` of the scenario.
    pub seed: Option<u64>,
    /// Replication number: selects independent random streams for the same seed.
    pub run: u64,
    /// Directory for `LINK.pcap` captures (must exist).
    pub capture_dir: Option<PathBuf>,
    /// Links to capture in addition to the scenario's `capture.links`.
    pub capture_links: Vec<String>,
}

/// Everything a run produces. The summary and the series are a deterministic function of the
/// scenario, the seed and the run number.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub summary: serde_json::Value,
    pub series: Vec<Series>,
    pub events: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{0}")]
    Internal(String),
}

/// Runs one replication of `scenario`.
pub fn run(scenario: &Scenario, opts: &RunOptions) -> Result<RunOutput, RunError> {
    let seed = opts.seed.unwrap_or(scenario.simulation.seed);
    let captures = CaptureRequest::resolve(scenario, opts)?;
    let built = build(scenario, seed, opts.run, &captures)?;
    let mut sim = Simulator::new(built.world);
    sim.model.schedule_initial(&mut sim.sched);
    let end = SimTime::ZERO + scenario.simulation.duration;
    let stop = StopCondition { until: Some(end), max_events: scenario.simulation.max_events };
    let outcome = sim.run(stop).map_err(|p| RunError::Internal(p.to_string()))?;
    let mut world = sim.model;
    world.finish().map_err(|source| RunError::Io { path: captures.dir_display(), source })?;
    let summary = summary::make(scenario, seed, opts.run, &outcome, &world, &built.flows);
    let series = series::collect(&mut world, &built.link_names, &built.flow_names);
    Ok(RunOutput { summary, series, events: outcome.events })
}
