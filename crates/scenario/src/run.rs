//! Running a validated scenario: build the world, drive the engine (as fast as possible, or
//! through a [`Driver`] such as a real-time emulator), collect the summary, the series and, when
//! a handover can happen, the per-handover records and analytics.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use celltcp_engine::{RunOutcome, SimDuration, SimTime, Simulator, StopCondition, StopReason};
use celltcp_net::medium::Medium;
use celltcp_net::world::World;
use celltcp_outputs::handovers::HandoverOutputs;
use celltcp_outputs::intervals::IntervalWatch;
use celltcp_outputs::labels::Label;
pub use celltcp_outputs::RunStopReason;
use celltcp_outputs::{series, series_dch, Series};

use crate::assemble::{build, dch, user_trace, CaptureRequest};
use crate::error::{ScenarioError, ScenarioWarning};
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
    /// The [`Summary`](crate::summary::Summary) in its JSON form (objects ordered by key).
    pub summary: serde_json::Value,
    pub series: Vec<Series>,
    pub events: u64,
    /// Where simulated time stopped: the duration, or earlier for a run that ended before it
    /// (the summary's `simulated_time_s`).
    pub simulated: SimTime,
    /// The handover records, timelines and analytics, when a handover could happen (the
    /// `handovers` section of the summary and the `handovers` series are made from them).
    pub handovers: Option<HandoverOutputs>,
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The network could not carry out what a medium asked of it (e.g. a path switch for a
    /// UE the EPC has no bearer for): the run's results would be wrong, so it fails.
    #[error("{0}")]
    Network(String),
    #[error("{0}")]
    Internal(String),
    /// A stop request (Ctrl-C) ended the run, and what was simulated is not wanted.
    #[error("interrupted")]
    Interrupted,
}

/// What moves a run's simulated time forward. [`run`] handles events as fast as it can; a
/// real-time emulator paces them against a clock and exchanges packets with real programs
/// between them.
///
/// Call order: `prepare` once, with the world built and before its initial events are
/// scheduled; then `advance` for each stop of the run, in time order (the end of the run and,
/// for a watched run, the end of every interval), until `stopped` is true or the run is over.
pub trait Driver {
    /// Adjusts the built world before it runs (e.g. attaches external hosts).
    fn prepare(&mut self, _world: &mut World) -> Result<(), RunError> {
        Ok(())
    }

    /// Handles the events up to `stop.until` (at most `stop.max_events` of them) and leaves
    /// simulated time there, as [`Simulator::run`] does, unless `stopped` becomes true first.
    fn advance(
        &mut self,
        sim: &mut Simulator<World>,
        stop: StopCondition,
    ) -> Result<RunOutcome, RunError>;

    /// True when the run must end where the last `advance` left it, before its duration.
    fn stopped(&self) -> bool {
        false
    }

    /// The summary's `stop_reason` when [`Driver::stopped`] is true.
    fn stop_reason(&self) -> RunStopReason {
        RunStopReason::Stopped
    }
}

/// The summary's `stop_reason` when the driver stopped the run before its duration
/// ([`Driver::stopped`]); `simulated_time_s` is then where it stopped.
pub const STOP_REASON_STOPPED: &str = RunStopReason::Stopped.as_str();

/// The summary's `stop_reason` when a stop request (Ctrl-C) ended the run ([`Interruptible`]).
pub const STOP_REASON_INTERRUPTED: &str = RunStopReason::Interrupted.as_str();

/// What the poll of an [`Interruptible`] run answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Poll {
    /// Go on.
    Continue,
    /// End the run here and report what was simulated, with this `stop_reason`
    /// ([`RunStopReason::Interrupted`] for Ctrl-C, [`RunStopReason::Stopped`] for a caller's
    /// request).
    Stop(RunStopReason),
    /// End the run here without results ([`RunError::Interrupted`]).
    Abort,
}

/// Where a run stands when it is polled: for progress displays (simulated time, events/s, time
/// left) and callers that end a run early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunProgress {
    /// Simulated time reached.
    pub simulated: SimTime,
    /// The run's end (`simulation.duration`).
    pub end: SimTime,
    /// Events handled so far.
    pub events: u64,
}

/// Events handled between two looks at the wall clock. Reading the clock once per this many
/// events costs nothing measurable, and even slow events (a busy cell's TTI) handle this many
/// in well under [`POLL_INTERVAL`].
const EVENTS_PER_CLOCK_READ: u64 = 4096;
/// The least wall time between two polls: often enough that Ctrl-C is answered within about
/// 0.1 s, rarely enough that polling (taking Python's lock) costs nothing.
const POLL_INTERVAL: Duration = Duration::from_millis(50);

/// A run as fast as possible that asks `poll` every `POLL_INTERVAL` of wall time whether to
/// go on. The wall clock decides only *when* to ask; the events handled, and so the results up
/// to where the run ends, are those of an uninterrupted run.
///
/// Not generic over the poll on purpose: the event loop it drives is then compiled once, in
/// this crate, as [`run`]'s is, whatever crate calls it (a generic driver would be compiled,
/// and optimised, in the caller's crate).
pub struct Interruptible<'a> {
    poll: &'a mut dyn FnMut(RunProgress) -> Poll,
    end: SimTime,
    last_poll: Instant,
    /// The `stop_reason` of a poll that ended the run.
    stopped: Option<RunStopReason>,
}

impl<'a> Interruptible<'a> {
    /// A driver for a run that ends at `end`.
    pub fn new(end: SimTime, poll: &'a mut dyn FnMut(RunProgress) -> Poll) -> Self {
        Interruptible {
            poll,
            end,
            last_poll: Instant::now(),
            stopped: None,
        }
    }
}

impl Driver for Interruptible<'_> {
    fn advance(
        &mut self,
        sim: &mut Simulator<World>,
        stop: StopCondition,
    ) -> Result<RunOutcome, RunError> {
        let first = sim.events();
        loop {
            let done = sim.events() - first;
            let chunk = match stop.max_events {
                Some(m) => m.saturating_sub(done).min(EVENTS_PER_CLOCK_READ),
                None => EVENTS_PER_CLOCK_READ,
            };
            // Stopping and resuming handles exactly the events of one call, in the same order.
            let o = sim
                .run(StopCondition {
                    until: stop.until,
                    max_events: Some(chunk),
                })
                .map_err(|p| RunError::Internal(p.to_string()))?;
            let budget_spent = stop.max_events.is_some_and(|m| sim.events() - first >= m);
            if o.reason != StopReason::EventBudget || budget_spent {
                return Ok(o);
            }
            if self.last_poll.elapsed() >= POLL_INTERVAL {
                self.last_poll = Instant::now();
                let progress = RunProgress {
                    simulated: o.end_time,
                    end: self.end,
                    events: sim.events(),
                };
                match (self.poll)(progress) {
                    Poll::Continue => {}
                    Poll::Stop(reason) => {
                        self.stopped = Some(reason);
                        return Ok(o);
                    }
                    Poll::Abort => return Err(RunError::Interrupted),
                }
            }
        }
    }

    fn stopped(&self) -> bool {
        self.stopped.is_some()
    }

    fn stop_reason(&self) -> RunStopReason {
        self.stopped.unwrap_or(RunStopReason::Stopped)
    }
}

/// Runs one replication of `scenario` as [`run`] does, asking `poll` about every 50 ms of wall
/// time, with where the run stands, whether to go on ([`Interruptible`]): the Python binding
/// looks for Ctrl-C there and calls a progress callback.
pub fn run_interruptible(
    scenario: &Scenario,
    opts: &RunOptions,
    mut poll: impl FnMut(RunProgress) -> Poll,
) -> Result<RunOutput, RunError> {
    let end = SimTime::ZERO + scenario.simulation.duration;
    run_with(scenario, opts, &mut Interruptible::new(end, &mut poll))
}

/// An ordinary run: events are handled as fast as possible.
struct AsFastAsPossible;

impl Driver for AsFastAsPossible {
    fn advance(
        &mut self,
        sim: &mut Simulator<World>,
        stop: StopCondition,
    ) -> Result<RunOutcome, RunError> {
        sim.run(stop).map_err(|p| RunError::Internal(p.to_string()))
    }
}

/// Makes every check a run makes before its first event, without simulating: builds the
/// world (models' parameters, the radio set-up, the event schedule) and drops it. `celltcp
/// validate` calls this, so a scenario it accepts does not fail when it starts. Captures are
/// left out: they need an output directory and only write files.
/// Returns the warnings about what the scenario allows but probably does not mean.
pub fn check(scenario: &Scenario) -> Result<Vec<ScenarioWarning>, RunError> {
    let captures = CaptureRequest::none();
    build(scenario, scenario.simulation.seed, 0, &captures)?;
    Ok(crate::assemble::warnings(scenario)?)
}

/// Runs one replication of `scenario`.
pub fn run(scenario: &Scenario, opts: &RunOptions) -> Result<RunOutput, RunError> {
    run_with(scenario, opts, &mut AsFastAsPossible)
}

/// Runs one replication of `scenario`, with `driver` moving simulated time forward. The
/// summary and series are made as in [`run`], up to the time where the driver stopped.
pub fn run_with(
    scenario: &Scenario,
    opts: &RunOptions,
    driver: &mut dyn Driver,
) -> Result<RunOutput, RunError> {
    run_watched(scenario, opts, driver, None)
}

/// A caller watching a run: called at every multiple of `interval` of simulated time with the
/// figures of the interval that ends there ([`celltcp_outputs::intervals`]); returning false
/// ends the run there, with `stop_reason` [`STOP_REASON_STOPPED`].
pub struct Watch<'a> {
    pub interval: SimDuration,
    pub on_interval: &'a mut dyn FnMut(serde_json::Value) -> bool,
}

/// Runs one replication as [`run_interruptible`] does, calling `watch` at every interval. The
/// summary, series and captures are those of the same run without a watch, up to where it
/// stopped.
pub fn run_interruptible_watched(
    scenario: &Scenario,
    opts: &RunOptions,
    mut poll: impl FnMut(RunProgress) -> Poll,
    watch: Option<Watch<'_>>,
) -> Result<RunOutput, RunError> {
    let end = SimTime::ZERO + scenario.simulation.duration;
    run_watched(
        scenario,
        opts,
        &mut Interruptible::new(end, &mut poll),
        watch,
    )
}

fn run_watched(
    scenario: &Scenario,
    opts: &RunOptions,
    driver: &mut dyn Driver,
    mut watch: Option<Watch<'_>>,
) -> Result<RunOutput, RunError> {
    // Checked before anything is built, so that no capture file is created for a bad call.
    if watch.as_ref().is_some_and(|w| w.interval.as_ns() == 0) {
        return Err(RunError::Scenario(ScenarioError::new(
            "interval",
            "the interval must be longer than 0; use e.g. '100ms'",
        )));
    }
    let seed = opts.seed.unwrap_or(scenario.simulation.seed);
    let captures = CaptureRequest::resolve(scenario, opts)?;
    let mut built = build(scenario, seed, opts.run, &captures)?;
    let mut watcher = watch.as_ref().map(|w| {
        IntervalWatch::enable_traces(&mut built.world.traces, &built.flows);
        IntervalWatch::new(
            w.interval,
            &built.flows,
            user_trace(scenario),
            cell_prbs(scenario),
        )
    });
    driver.prepare(&mut built.world)?;
    let mut sim = Simulator::new(built.world);
    sim.model.schedule_initial(&mut sim.sched);
    let end = SimTime::ZERO + scenario.simulation.duration;
    let mut watched_stop = false;
    let interval = watcher.as_ref().map(IntervalWatch::interval);
    let is_dch = |w: &World, m: &dyn Medium| dch::is_dch(scenario, w, m);
    let mut observe = |world: &World, t: SimTime| -> bool {
        let (Some(w), Some(iw)) = (watch.as_mut(), watcher.as_mut()) else {
            return true;
        };
        let figures = iw.figures(world, &built.flows, &built.link_names, t, &is_dch);
        let go_on = (w.on_interval)(figures);
        watched_stop |= !go_on;
        go_on
    };
    let outcome = drive(
        &mut sim,
        driver,
        end,
        scenario.simulation.max_events,
        interval,
        &mut observe,
    )?;
    // The world halts a run whose event-driven series reached their bound (before it fills
    // the memory); nothing is written.
    if outcome.reason == StopReason::Halted && sim.model.event_rows_full() {
        return Err(RunError::Scenario(crate::config::trace::event_rows_error(
            &scenario.trace,
            outcome.end_time,
        )));
    }
    // A run that ended before its duration — a driver that stopped early (an emulation whose
    // programs are done, a stop signal), a watch that asked to stop, or an exhausted event
    // budget (`simulation.max_events`) — ran to `outcome.end_time` only: the flows' active
    // periods, and every rate averaged over them, end there. (Otherwise `outcome.end_time` is
    // the duration and this changes nothing.)
    let stopped_early = driver.stopped() || watched_stop;
    for f in &mut built.flows {
        f.end = f.end.min(outcome.end_time);
    }
    let mut world = sim.model;
    world.finish().map_err(|source| RunError::Io {
        path: captures.dir_display(),
        source,
    })?;
    network_errors(&world)?;
    let handovers = if built.handover.active {
        let setup = &built.handover;
        let outputs = HandoverOutputs::collect(
            &world,
            &setup.link_handovers,
            |ue| setup.tcp_flows_of(ue),
            outcome.end_time,
        )
        .map_err(|e| RunError::Internal(format!("handover analytics: {e}")))?;
        Some(outputs)
    } else {
        None
    };
    // The analytics have read the rows they asked for; the output keeps what [trace] asked.
    built.handover.strip_traces(&mut world.traces.vars);
    if let Some(w) = &watcher {
        w.strip_traces(&mut world.traces.vars);
    }
    let mut summary = summary::for_run(
        scenario,
        (seed, opts.run),
        &outcome,
        &world,
        &built.flows,
        handovers.as_ref(),
    );
    if stopped_early {
        summary.stop_reason = Label::new(if driver.stopped() {
            driver.stop_reason().as_str()
        } else {
            STOP_REASON_STOPPED
        });
    }
    // The traced channels' rows leave the medium series before the cells' table is built.
    let dch_series = series_dch::take(&mut world, &scenario.trace.dch, is_dch);
    let mut series = series::collect(
        &mut world,
        &built.link_names,
        &built.flow_names,
        &scenario.trace.cells,
    );
    series.extend(dch_series);
    if let Some(h) = &handovers {
        series.extend(h.series(&world, &built.flow_names));
    }
    Ok(RunOutput {
        summary: summary.to_json(),
        series,
        events: outcome.events,
        simulated: outcome.end_time,
        handovers,
    })
}

/// The bandwidth of each cell in PRBs, by name (NaN for a bandwidth TS 36.101 does not list).
fn cell_prbs(scenario: &Scenario) -> std::collections::BTreeMap<String, f64> {
    scenario
        .cells
        .iter()
        .map(|(name, c)| {
            let prbs = celltcp_radio::phy::prbs_for_bandwidth(c.radio.bandwidth_mhz)
                .map_or(f64::NAN, f64::from);
            (name.clone(), prbs)
        })
        .collect()
}

/// A request the network refused fails the run, naming the first and counting the others.
fn network_errors(world: &World) -> Result<(), RunError> {
    match world.errors() {
        [] => Ok(()),
        [only] => Err(RunError::Network(format!(
            "the network could not carry out a handover request {only}"
        ))),
        [first, rest @ ..] => Err(RunError::Network(format!(
            "the network could not carry out {} handover requests; the first {first}",
            rest.len() + 1
        ))),
    }
}

/// Runs to `end`. With an `interval`, the run also stops at every multiple of it and `observe`
/// reads the world there; `observe` returning false ends the run at that instant. Stopping
/// and resuming processes exactly the events of one uninterrupted run, in the same order.
fn drive(
    sim: &mut Simulator<World>,
    driver: &mut dyn Driver,
    end: SimTime,
    max_events: Option<u64>,
    interval: Option<SimDuration>,
    observe: &mut dyn FnMut(&World, SimTime) -> bool,
) -> Result<RunOutcome, RunError> {
    let mut stops = BTreeSet::new();
    if let Some(i) = interval {
        let mut t = i.as_ns();
        while t < end.as_ns() {
            stops.insert(SimTime::from_ns(t));
            t = t.saturating_add(i.as_ns());
        }
    }
    stops.insert(end);
    let mut outcome = None;
    for t in stops {
        let budget = max_events.map(|m| m.saturating_sub(sim.events()));
        let o = driver.advance(
            sim,
            StopCondition {
                until: Some(t),
                max_events: budget,
            },
        )?;
        outcome = Some(o);
        if matches!(o.reason, StopReason::EventBudget | StopReason::Halted) || driver.stopped() {
            break;
        }
        // The interval ending here, once the run has reached it (the end of the run is one
        // when it falls on a multiple of the interval).
        let boundary = interval.is_some_and(|i| t.as_ns().is_multiple_of(i.as_ns()));
        if boundary && o.end_time == t && !observe(&sim.model, t) {
            break;
        }
    }
    Ok(outcome.expect("the run has at least one stop: the end"))
}
