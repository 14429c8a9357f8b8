//! Real-time emulation: a scenario's engine paced against the wall clock, with chosen hosts
//! attached to real programs through TUN devices.
//!
//! Packets a real program sends are read from its host's descriptor and injected at that host
//! at the current simulated time; they cross the simulated path (links, queues and AQM, GTP-U
//! tunnels, cells with HARQ and RLC, handovers) and, on reaching another attached host, are
//! written to its descriptor at their simulated departure time. The scenario's own flows run
//! alongside as cross traffic. [`emulate`] returns the run's usual output with an `emulation`
//! section: how well real time was kept (lag, timing error of the output) and what the real
//! TCP connections did on the path.
//!
//! When a handover can happen (a `[ran]`, a link handover event), every handover × every
//! real TCP connection with the UE at either end gets the per-handover analytics of simulated
//! flows, computed from the packets ([`handover`]): rows of the run's `handovers` table and
//! the `handovers` list of the `emulation` section.
//!
//! Files: [`clock`] (pacing and lag), [`tun`] (descriptor I/O), [`ipv4`] (real headers),
//! [`payload`] (the real bytes beside the simulated packets), [`observe`] (passive TCP
//! analysis), [`history`] (what the handover analytics needs of each connection),
//! [`handover`] (the analytics), [`table`] (their rows in the run's table), [`capture`] (the
//! pcap of the real traffic), [`run`] (the loop), [`error`].

pub mod capture;
pub mod clock;
pub mod error;
pub mod handover;
pub mod history;
pub mod ipv4;
pub mod observe;
pub mod payload;
pub mod run;
pub mod table;
pub mod tun;

use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;
use std::os::fd::RawFd;
use std::path::{Path, PathBuf};

use celltcp_engine::SimDuration;
use celltcp_net::packet::NodeId;
use celltcp_outputs::{Column, Series};
use celltcp_scenario::{Document, NodeKind, RunError, RunOptions, RunOutput, ScenarioError};
use serde_json::Value;

pub use capture::CapturePoints;
pub use error::EmuError;
pub use history::HistoryConfig;
pub use table::series_columns;

use crate::tun::Port;

/// Default of [`EmulateOptions::max_lag`]: 100 ms.
pub const DEFAULT_MAX_LAG: SimDuration = SimDuration::from_ms(100);

/// A host of the scenario and the descriptor of its TUN device (`IFF_TUN | IFF_NO_PI`,
/// non-blocking: one IPv4 datagram per read and write).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    pub host: String,
    pub fd: RawFd,
}

/// How to emulate; the scenario says what.
#[derive(Clone, Debug, PartialEq)]
pub struct EmulateOptions {
    /// Simulated (and so real) time to run; `None` = the scenario's `simulation.duration`.
    pub duration: Option<SimDuration>,
    /// Where to write the capture of the real datagrams; `None` = no capture.
    pub pcap: Option<PathBuf>,
    /// Which points of the path the capture records.
    pub pcap_points: CapturePoints,
    /// How far the engine may fall behind the wall clock, for at most a second, before the run
    /// fails.
    pub max_lag: SimDuration,
    /// Master seed; `None` = `simulation.seed`.
    pub seed: Option<u64>,
    /// Replication number.
    pub run: u64,
    /// Directory that relative file references of the scenario (trace files) are relative to.
    pub base_dir: Option<PathBuf>,
    /// The scheduling of the loop's thread (see [`Priority`]).
    pub priority: Priority,
    /// The RTO estimate of the per-handover analytics ([`history`]).
    pub analytics: HistoryConfig,
}

impl Default for EmulateOptions {
    fn default() -> Self {
        EmulateOptions {
            duration: None,
            pcap: None,
            pcap_points: CapturePoints::Both,
            max_lag: DEFAULT_MAX_LAG,
            seed: None,
            run: 0,
            base_dir: None,
            priority: Priority::Auto,
            analytics: HistoryConfig::default(),
        }
    }
}

/// Priority of the loop's default `SCHED_FIFO` scheduling.
pub const DEFAULT_PRIORITY: u8 = 10;

/// How the loop's thread is scheduled. Under the default scheduler its wake-ups wait for
/// whatever else the machine runs (on a busy 2-core machine the 99th percentile of the output
/// timing error reaches several milliseconds); under `SCHED_FIFO` (sched(7)) they do not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Priority {
    /// `SCHED_FIFO` at [`DEFAULT_PRIORITY`] when the process may use it (`CAP_SYS_NICE` or an
    /// `RLIMIT_RTPRIO` allowance), else the thread's own scheduling.
    #[default]
    Auto,
    /// `SCHED_FIFO` at this priority (1–99); the run fails if it may not be had.
    Fifo(u8),
    /// The thread's own scheduling.
    Inherit,
}

/// A positive, finite number of seconds as a duration; `key` names the option in the error.
///
/// # Errors
/// The value is not positive and finite, or rounds to 0 ns.
pub fn seconds(key: &str, value: f64) -> Result<SimDuration, ScenarioError> {
    let d = SimDuration::from_secs_f64(value);
    if !value.is_finite() || value <= 0.0 || d == SimDuration::ZERO || value > 1e9 {
        return Err(ScenarioError::new(
            key,
            format!("{value} is not a positive number of seconds"),
        ));
    }
    Ok(d)
}

/// A run's usual output (its summary holds the `emulation` section too; the series include
/// `emulation_rtt` when RTT samples were taken, and the `handovers` table the real
/// connections' rows) and the `emulation` section itself (its keys are described at
/// [`run::Emulator::report`], plus `priority`: the `SCHED_FIFO` priority the loop ran at, or
/// null; and when a handover could happen, `handovers`: one object per handover × direction of
/// data of a real connection ([`handover::row_json`]), and `handover_history_truncated`).
#[derive(Clone, Debug)]
pub struct EmulateOutput {
    pub run: RunOutput,
    pub emulation: Value,
}

/// Checks the attachments against the scenario and opens their descriptors.
fn ports(
    scenario: &celltcp_scenario::Scenario,
    attachments: &[Attachment],
) -> Result<Vec<Port>, ScenarioError> {
    let key = "attachments";
    let mut hosts = BTreeSet::new();
    let mut fds = BTreeMap::new();
    let mut ports = Vec::with_capacity(attachments.len());
    for a in attachments {
        let Some(node) = scenario.nodes.get(&a.host) else {
            let known: Vec<&str> = scenario.nodes.keys().map(String::as_str).collect();
            return Err(ScenarioError::new(
                key,
                format!(
                    "'{}' is not a node of the scenario (nodes: {})",
                    a.host,
                    known.join(", ")
                ),
            ));
        };
        if node.kind != NodeKind::Host {
            return Err(ScenarioError::new(
                key,
                format!(
                    "'{}' is a {}; only hosts can be attached",
                    a.host,
                    node.kind.as_str()
                ),
            ));
        }
        if !hosts.insert(a.host.as_str()) {
            return Err(ScenarioError::new(
                key,
                format!("host '{}' is attached twice", a.host),
            ));
        }
        if let Some(other) = fds.insert(a.fd, a.host.as_str()) {
            return Err(ScenarioError::new(
                key,
                format!(
                    "descriptor {} is given for both '{other}' and '{}'",
                    a.fd, a.host
                ),
            ));
        }
        let port = Port::open(&a.host, a.fd).map_err(|e| {
            ScenarioError::new(
                key,
                format!(
                    "descriptor {} of host '{}' cannot be used: {e}",
                    a.fd, a.host
                ),
            )
        })?;
        ports.push(port);
    }
    Ok(ports)
}

/// The per-handover rows of the real connections (see [`handover`]): the run's handover
/// records analysed against the packets of the connections.
fn real_handovers(
    scenario: &celltcp_scenario::Scenario,
    attachments: &[Attachment],
    output: &RunOutput,
    emulator: &run::Emulator,
    history: &history::History,
) -> Result<Vec<handover::RealHandoverRow>, EmuError> {
    let records = output
        .handovers
        .as_ref()
        .map_or(&[][..], |h| h.records.as_slice());
    let attached: BTreeMap<NodeId, Ipv4Addr> = attachments
        .iter()
        .filter_map(|a| {
            let id = scenario.node_id(&a.host)?;
            Some((id, scenario.nodes.get(&a.host)?.address?))
        })
        .collect();
    handover::analyse_real(
        records,
        |id| attached.get(&id).copied(),
        emulator.observer(),
        history,
        output.simulated,
    )
    .map_err(|e| EmuError::Run(RunError::Internal(format!("handover analytics: {e}"))))
}

/// Middleboxes (Snoop, ELN, split TCP) act on the simulated TCP header and build segments of
/// their own; a real packet's bytes would not follow what they decide (a Snoop retransmission
/// or a proxy's segment has no real bytes to write, an ELN mark none to set), so a scenario
/// with one is refused rather than emulated wrongly.
fn refuse_middleboxes(scenario: &celltcp_scenario::Scenario) -> Result<(), ScenarioError> {
    match scenario.middleboxes.keys().next() {
        Some(name) => Err(ScenarioError::new(
            format!("middleboxes.{name}"),
            "middleboxes cannot carry real packets in an emulation (they build segments \
             without the real bytes); remove it, or study it with `celltcp run`",
        )),
        None => Ok(()),
    }
}

/// Emulates `toml` (with `overrides` applied in order) in real time with `attachments`
/// connected, until its duration has passed or `stop_fd` (the read end of a pipe) becomes
/// readable. Blocks the calling thread for the run.
///
/// # Errors
/// [`EmuError::Input`] for an invalid scenario, override, attachment (key `attachments`) or
/// stop descriptor (key `stop_fd`), or a scenario with middleboxes (key `middleboxes.NAME`);
/// [`EmuError::TooSlow`] when the engine cannot keep up with
/// the wall clock; I/O errors of the descriptors or the capture; failures of the simulation.
/// On any error no capture file is left behind.
pub fn emulate(
    document: &Document,
    overrides: &[(String, String)],
    attachments: &[Attachment],
    stop_fd: Option<RawFd>,
    opts: &EmulateOptions,
) -> Result<EmulateOutput, EmuError> {
    let mut overrides = overrides.to_vec();
    if let Some(d) = opts.duration {
        overrides.push(("simulation.duration".into(), format!("{}ns", d.as_ns())));
    }
    let base_dir = opts.base_dir.as_deref().unwrap_or(Path::new(""));
    let scenario = document.load(&overrides, base_dir)?;
    refuse_middleboxes(&scenario)?;
    let ports = ports(&scenario, attachments)?;
    if let Some(fd) = stop_fd {
        // SAFETY: F_GETFL takes no argument; an invalid descriptor gives -1 and EBADF.
        if unsafe { libc::fcntl(fd, libc::F_GETFL) } < 0 {
            let e = std::io::Error::last_os_error();
            return Err(ScenarioError::new(
                "stop_fd",
                format!("descriptor {fd} cannot be used: {e}"),
            )
            .into());
        }
    }
    // Held until the run is over (the loop runs on this thread); restored when dropped.
    let priority_guard = match opts.priority {
        Priority::Fifo(p) if !(1..=99).contains(&p) => {
            let msg = format!("{p} is not a priority from 1 to 99");
            return Err(ScenarioError::new("options.priority", msg).into());
        }
        Priority::Fifo(p) => {
            Some(
                clock::RealtimePriority::enter(p).map_err(|source| EmuError::Priority {
                    priority: p,
                    source,
                })?,
            )
        }
        Priority::Auto => clock::RealtimePriority::enter(DEFAULT_PRIORITY).ok(),
        Priority::Inherit => None,
    };
    let fifo_priority = priority_guard.as_ref().map(|p| p.priority());
    let capture =
        match &opts.pcap {
            Some(path) => Some(capture::Capture::create(path, opts.pcap_points).map_err(
                |source| EmuError::Capture {
                    path: path.clone(),
                    source,
                },
            )?),
            None => None,
        };
    let run_opts = RunOptions {
        seed: opts.seed,
        run: opts.run,
        ..RunOptions::default()
    };
    let can_hand_over =
        scenario.ran.is_some() || scenario.events.iter().any(|e| e.handover.is_some());
    let history = can_hand_over.then(|| history::History::new(opts.analytics));
    let mut emulator = run::Emulator::new(ports, stop_fd, opts.max_lag, capture, history);
    let result = celltcp_scenario::run::run_with(&scenario, &run_opts, &mut emulator);
    let mut output = match result {
        Ok(o) => o,
        Err(e) => return Err(emulator.failure.take().unwrap_or_else(|| e.into())),
    };
    let mut emulation = emulator.report();
    if let Value::Object(e) = &mut emulation {
        e.insert("priority".into(), fifo_priority.into());
    }
    if let Some(history) = emulator.history() {
        let rows = real_handovers(&scenario, attachments, &output, &emulator, history)?;
        let names: Vec<String> = scenario.nodes.keys().cloned().collect();
        let name = |id: NodeId| names.get(id.index()).cloned().unwrap_or_default();
        if let Value::Object(e) = &mut emulation {
            let list = rows.iter().map(|r| handover::row_json(r, name)).collect();
            e.insert("handovers".into(), Value::Array(list));
            e.insert(
                "handover_history_truncated".into(),
                history.truncated().into(),
            );
        }
        table::add_real_rows(&mut output.series, &rows, &names);
    }
    if let Some(c) = emulator.take_capture() {
        let path = c.path().to_path_buf();
        c.commit()
            .map_err(|source| EmuError::Capture { path, source })?;
    }
    if let Value::Object(summary) = &mut output.summary {
        summary.insert("emulation".into(), emulation.clone());
    }
    let rtt = &emulator.observer().rtt;
    if !rtt.time_ns.is_empty() {
        output.series.push(Series::from_columns(
            &table::emulation_rtt(),
            vec![
                Column::U64(rtt.time_ns.clone()),
                Column::U32(rtt.connection.clone()),
                Column::Cat {
                    codes: rtt.direction.clone(),
                    names: table::RTT_DIRECTIONS.map(String::from).to_vec(),
                },
                Column::U64(rtt.rtt_ns.clone()),
            ],
        ));
    }
    Ok(EmulateOutput {
        run: output,
        emulation,
    })
}
