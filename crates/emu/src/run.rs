//! The real-time loop: a [`Driver`] of a scenario run that paces the engine against the wall
//! clock and moves datagrams between the attached hosts' descriptors and the world.
//!
//! One step of the loop, in this order:
//! 1. wait with ppoll(2) for a descriptor (an attached host's, or the stop descriptor) or for
//!    the wait's end: no wait when work is left over, else until the engine's next event or
//!    the next stop of the run, whichever comes first;
//! 2. stop if the stop descriptor is readable; write out what waits for a writable descriptor;
//! 3. read what the hosts sent (at most [`READ_BATCH`] datagrams per host), each stamped with
//!    the simulated time due when it was read;
//! 4. handle every event due by now, one at a time, injecting each datagram read at its own
//!    time among them, at most [`SLICE_EVENTS`] events per step so that I/O is never starved;
//!    after each event, sample the lag (how late it was handled: the wall-clock time minus its
//!    due time) and write out the datagrams it delivered to attached hosts, measuring how late
//!    each one is.
//!
//! Datagrams enter the world in the order read and at the time read, so their simulated
//! arrival never precedes their real one. An event is handled when the wall clock has passed
//! its time, never before: a datagram leaves the path at or after its simulated departure, and
//! how much after is its timing error.

use std::collections::VecDeque;
use std::net::Ipv4Addr;
use std::os::fd::RawFd;

use celltcp_engine::{RunOutcome, SimDuration, SimTime, Simulator, StopCondition, StopReason};
use celltcp_net::packet::{Ecn, NodeId, Packet};
use celltcp_net::stats::Histogram;
use celltcp_net::world::{ExternalDelivery, World};
use celltcp_scenario::run::Driver;
use celltcp_scenario::{RunError, ScenarioError};
use serde_json::{json, Map, Value};

use crate::capture::Capture;
use crate::clock::{self, Clock, LagMonitor, TimerSlack};
use crate::error::EmuError;
use crate::history::History;
use crate::ipv4;
use crate::observe::Observer;
use crate::payload::PayloadTable;
use crate::tun::{Pending, Port, Read, Written, BACKLOG_LIMIT, MAX_DATAGRAM, READ_BATCH};

/// Most events handled in one step before the loop turns to I/O again.
pub const SLICE_EVENTS: u64 = 4_096;

/// A datagram written out later than this after its simulated departure is late, ns.
pub const LATE_NS: u64 = 1_000_000;

/// Per attached host: what crossed its descriptor.
#[derive(Clone, Copy, Debug, Default)]
struct HostCounters {
    packets_in: u64,
    bytes_in: u64,
    packets_out: u64,
    bytes_out: u64,
}

/// What the loop counts (see [`Emulator::report`] for the meaning of each).
#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    packets_in: u64,
    bytes_in: u64,
    injected: u64,
    packets_out: u64,
    bytes_out: u64,
    dropped_non_ipv4: u64,
    dropped_unroutable: u64,
    dropped_foreign_source: u64,
    dropped_expired: u64,
    dropped_backlog: u64,
    write_refused: u64,
    reached_hosts: u64,
    late: u64,
    ce_marked: u64,
}

/// A datagram read and waiting for simulated time to reach its arrival.
struct Inbound {
    arrival: SimTime,
    node: NodeId,
    pkt: Packet,
}

/// How a step of event handling ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Every event and datagram due by the target was handled.
    Reached,
    /// The step's share of events ran out first.
    Behind,
    /// The run's event budget (`simulation.max_events`) ran out.
    Budget,
    /// The world halted the run (`Scheduler::halt`: a bound it keeps was reached).
    Halted,
}

/// The real-time driver of one run, made and used by [`crate::emulate`].
pub struct Emulator {
    ports: Vec<Port>,
    /// Per port: its host's node and address (filled in by `prepare`).
    nodes: Vec<NodeId>,
    addrs: Vec<Ipv4Addr>,
    /// Per node: its port, if attached.
    port_of_node: Vec<Option<usize>>,
    hosts: Vec<HostCounters>,
    stop_fd: Option<RawFd>,
    max_lag_ns: u64,
    clock: Option<Clock>,
    slack: Option<TimerSlack>,
    lag: LagMonitor,
    payloads: PayloadTable,
    observer: Observer,
    /// What the per-handover analytics reads, kept when a handover can happen.
    history: Option<History>,
    capture: Option<Capture>,
    counters: Counters,
    /// Output timing error of every datagram written, ns.
    timing_ns: Histogram,
    read_buf: Vec<u8>,
    inbound: VecDeque<Inbound>,
    deliveries: Vec<ExternalDelivery>,
    pollfds: Vec<libc::pollfd>,
    /// Wait before the next step.
    next_wait: Option<SimDuration>,
    stopped: bool,
    /// The world's count of real packets that reached a node that is not attached.
    strays: u64,
    started_ns: u64,
    ended_ns: u64,
    /// Why the run failed, when the loop made it fail.
    pub(crate) failure: Option<EmuError>,
}

impl Emulator {
    /// A driver for `ports` (the attached hosts, validated), stopping when `stop_fd` becomes
    /// readable, failing when the engine stays more than `max_lag` behind for over a second;
    /// `history` records the real connections for the per-handover analytics.
    pub(crate) fn new(
        ports: Vec<Port>,
        stop_fd: Option<RawFd>,
        max_lag: SimDuration,
        capture: Option<Capture>,
        history: Option<History>,
    ) -> Emulator {
        let n = ports.len();
        Emulator {
            ports,
            nodes: Vec::new(),
            addrs: Vec::new(),
            port_of_node: Vec::new(),
            hosts: vec![HostCounters::default(); n],
            stop_fd,
            max_lag_ns: max_lag.as_ns(),
            clock: None,
            slack: None,
            lag: LagMonitor::new(max_lag.as_ns()),
            payloads: PayloadTable::new(),
            observer: Observer::default(),
            history,
            capture,
            counters: Counters::default(),
            timing_ns: Histogram::new(),
            read_buf: vec![0; MAX_DATAGRAM],
            inbound: VecDeque::new(),
            deliveries: Vec::new(),
            pollfds: Vec::with_capacity(n + 1),
            next_wait: Some(SimDuration::ZERO),
            stopped: false,
            strays: 0,
            started_ns: 0,
            ended_ns: 0,
            failure: None,
        }
    }

    /// Records `e` as the run's failure and returns the run error that ends the run.
    fn fail(&mut self, e: EmuError) -> RunError {
        let message = e.to_string();
        self.failure = Some(e);
        RunError::Internal(message)
    }

    /// Waits for the next step (see the module documentation); the poll results are left in
    /// `pollfds`.
    fn wait(&mut self) -> Result<(), EmuError> {
        self.pollfds.clear();
        self.pollfds
            .push(clock::poll_entry(self.stop_fd.unwrap_or(-1), libc::POLLIN));
        for p in &self.ports {
            let mut events = 0;
            if !p.closed {
                events |= libc::POLLIN;
            }
            if !p.backlog.is_empty() {
                events |= libc::POLLOUT;
            }
            let fd = if events == 0 { -1 } else { p.fd };
            self.pollfds.push(clock::poll_entry(fd, events));
        }
        clock::wait(&mut self.pollfds, self.next_wait).map_err(EmuError::Poll)
    }

    /// Whether the stop descriptor is readable, its writing end is gone, or it was closed.
    fn stop_requested(&self) -> bool {
        self.stop_fd.is_some()
            && self.pollfds[0].revents
                & (libc::POLLIN | libc::POLLHUP | libc::POLLERR | libc::POLLNVAL)
                != 0
    }

    /// Reads what the ready hosts sent and queues it for injection.
    fn read_ports(&mut self, world: &World, now: SimTime) -> Result<(), EmuError> {
        let clock = self.clock.expect("started");
        for i in 0..self.ports.len() {
            let ready = self.pollfds[i + 1].revents;
            if ready & libc::POLLNVAL != 0 {
                // The descriptor was closed under the run: it would be reported ready forever.
                return Err(EmuError::Device {
                    host: self.ports[i].host.clone(),
                    fd: self.ports[i].fd,
                    op: "poll",
                    source: std::io::Error::from_raw_os_error(libc::EBADF),
                });
            }
            if ready & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) == 0 {
                continue;
            }
            for _ in 0..READ_BATCH {
                let n = match self.ports[i].read(&mut self.read_buf) {
                    Ok(Read::Datagram(n)) => n,
                    Ok(Read::Empty) | Ok(Read::Closed) => break,
                    Err(source) => {
                        return Err(EmuError::Device {
                            host: self.ports[i].host.clone(),
                            fd: self.ports[i].fd,
                            op: "read",
                            source,
                        })
                    }
                };
                let mono = clock::monotonic_ns();
                let arrival = clock.sim_at(mono).max(now);
                self.accept(world, i, n, arrival, clock.unix_ns(mono))?;
            }
        }
        Ok(())
    }

    /// Checks the datagram of `n` bytes just read from port `i` and queues it.
    fn accept(
        &mut self,
        world: &World,
        i: usize,
        n: usize,
        arrival: SimTime,
        unix_ns: u64,
    ) -> Result<(), EmuError> {
        let c = &mut self.counters;
        c.packets_in += 1;
        c.bytes_in += n as u64;
        self.hosts[i].packets_in += 1;
        self.hosts[i].bytes_in += n as u64;
        let Ok(d) = ipv4::parse(&self.read_buf[..n]) else {
            c.dropped_non_ipv4 += 1;
            return Ok(());
        };
        if d.ip.src != self.addrs[i] {
            c.dropped_foreign_source += 1;
            return Ok(());
        }
        // Only an attached host has a real program to take the datagram.
        let dst = world.topo.node_by_addr(d.ip.dst);
        if !dst.is_some_and(|node| world.is_external(node)) {
            c.dropped_unroutable += 1;
            return Ok(());
        }
        c.injected += 1;
        let bytes = &self.read_buf[..usize::from(d.total_len)];
        let key = self.payloads.insert(bytes);
        let seen = self.observer.ingress(arrival, &d);
        if let Some(h) = self.history.as_mut() {
            h.entered(key, arrival, seen.as_ref());
        }
        if let Some(cap) = self.capture.as_mut().filter(|c| c.points.ingress()) {
            cap.record(unix_ns, bytes)
                .map_err(|source| EmuError::Capture {
                    path: cap.path().to_path_buf(),
                    source,
                })?;
        }
        self.inbound.push_back(Inbound {
            arrival,
            node: self.nodes[i],
            pkt: d.to_packet(key),
        });
        Ok(())
    }

    /// Handles events up to `target`, injecting the datagrams read at their arrival times.
    ///
    /// Events are handled one at a time, so that each one's lateness (the wall-clock time at
    /// which it is handled minus its due time) is known: that is the lag the run reports and
    /// checks against `max_lag`, and a datagram an event delivers is written at once.
    fn step(
        &mut self,
        sim: &mut Simulator<World>,
        target: SimTime,
        budget_end: Option<u64>,
    ) -> Result<Step, RunError> {
        let clock = self.clock.expect("started");
        let slice_end = sim.events() + SLICE_EVENTS;
        let end = budget_end.map_or(slice_end, |b| b.min(slice_end));
        loop {
            let now = sim.sched.now();
            let to = match self.inbound.front() {
                Some(p) if p.arrival <= target => p.arrival,
                _ => target,
            }
            .max(now);
            if sim.events() >= end {
                return Ok(if budget_end.is_some_and(|b| sim.events() >= b) {
                    Step::Budget
                } else {
                    Step::Behind
                });
            }
            let o = sim
                .run(StopCondition {
                    until: Some(to),
                    max_events: Some(1),
                })
                .map_err(|p| RunError::Internal(p.to_string()))?;
            if o.reason == StopReason::Halted {
                return Ok(Step::Halted);
            }
            if o.reason == StopReason::EventBudget {
                // One event was handled, at `sched.now()`.
                let mono = clock::monotonic_ns();
                let late_ns = mono.saturating_sub(clock.due_ns(sim.sched.now()));
                if let Err(e) = self.lag.record(late_ns, mono) {
                    return Err(self.fail(EmuError::TooSlow {
                        behind_s: e.lag_ns as f64 * 1e-9,
                        max_lag_s: self.max_lag_ns as f64 * 1e-9,
                        over_for_s: e.over_for_ns as f64 * 1e-9,
                        at_s: sim.sched.now().as_secs_f64(),
                    }));
                }
                self.flush(&mut sim.model).map_err(|e| self.fail(e))?;
                continue;
            }
            // Nothing is left before `to`: inject the datagram due there, or the step is done.
            match self.inbound.front() {
                Some(p) if p.arrival <= target => {
                    let p = self.inbound.pop_front().expect("front");
                    sim.model.inject_external(p.node, p.pkt, &mut sim.sched);
                    self.flush(&mut sim.model).map_err(|e| self.fail(e))?;
                }
                _ => return Ok(Step::Reached),
            }
        }
    }

    /// Writes out the datagrams that reached attached hosts.
    fn flush(&mut self, world: &mut World) -> Result<(), EmuError> {
        world.drain_external(&mut self.deliveries);
        if self.deliveries.is_empty() {
            return Ok(());
        }
        let mut deliveries = std::mem::take(&mut self.deliveries);
        for d in deliveries.drain(..) {
            self.counters.reached_hosts += 1;
            if let Some(h) = self.history.as_mut() {
                h.left(d.pkt.app_seq, d.time);
            }
            let Some(mut bytes) = self.payloads.take(d.pkt.app_seq) else {
                self.counters.dropped_expired += 1;
                continue;
            };
            // An AQM on the path marked the packet: so is the real datagram (RFC 3168 §5).
            if d.pkt.ip.ecn == Ecn::Ce && ipv4::mark_ce(&mut bytes) {
                self.counters.ce_marked += 1;
            }
            let Some(i) = self.port_of_node.get(d.node.index()).copied().flatten() else {
                self.counters.write_refused += 1;
                continue;
            };
            if !self.ports[i].backlog.is_empty() {
                self.push_backlog(i, bytes, d.time);
                continue;
            }
            self.write_out(i, bytes, d.time)?;
        }
        self.deliveries = deliveries;
        Ok(())
    }

    fn push_backlog(&mut self, i: usize, bytes: Vec<u8>, time: SimTime) {
        if self.ports[i].backlog.len() >= BACKLOG_LIMIT {
            self.counters.dropped_backlog += 1;
            self.payloads.recycle(bytes);
        } else {
            self.ports[i].backlog.push_back(Pending { bytes, time });
        }
    }

    /// Writes one datagram that left the path at `time` to port `i`; returns whether the
    /// descriptor took it or refused it (false: it would block, and the datagram is back in
    /// the backlog's front).
    fn write_out(&mut self, i: usize, bytes: Vec<u8>, time: SimTime) -> Result<bool, EmuError> {
        let port = &mut self.ports[i];
        let written = port.write(&bytes).map_err(|source| EmuError::Device {
            host: port.host.clone(),
            fd: port.fd,
            op: "write",
            source,
        })?;
        match written {
            Written::Sent => {
                let clock = self.clock.expect("started");
                let mono = clock::monotonic_ns();
                let error = mono.saturating_sub(clock.due_ns(time));
                self.timing_ns.record(error);
                let c = &mut self.counters;
                c.late += u64::from(error > LATE_NS);
                c.packets_out += 1;
                c.bytes_out += bytes.len() as u64;
                self.hosts[i].packets_out += 1;
                self.hosts[i].bytes_out += bytes.len() as u64;
                if let Ok(d) = ipv4::parse(&bytes) {
                    let seen = self.observer.egress(time, &d);
                    if let (Some(h), Some(seen)) = (self.history.as_mut(), seen) {
                        h.written(time, &seen);
                    }
                }
                if let Some(cap) = self.capture.as_mut().filter(|c| c.points.egress()) {
                    cap.record(clock.unix_ns(mono), &bytes).map_err(|source| {
                        EmuError::Capture {
                            path: cap.path().to_path_buf(),
                            source,
                        }
                    })?;
                }
                self.payloads.recycle(bytes);
                Ok(true)
            }
            Written::WouldBlock => {
                self.ports[i].backlog.push_front(Pending { bytes, time });
                Ok(false)
            }
            Written::Refused => {
                self.counters.write_refused += 1;
                self.payloads.recycle(bytes);
                Ok(true)
            }
        }
    }

    /// Writes what waits in the backlogs of writable descriptors, in order.
    fn drain_backlogs(&mut self) -> Result<(), EmuError> {
        for i in 0..self.ports.len() {
            if self.pollfds[i + 1].revents & (libc::POLLOUT | libc::POLLERR) == 0 {
                continue;
            }
            while let Some(p) = self.ports[i].backlog.pop_front() {
                if !self.write_out(i, p.bytes, p.time)? {
                    break;
                }
            }
        }
        Ok(())
    }

    /// The figures of the run, for the summary's `emulation` section.
    ///
    /// * `lag_mean_s`, `lag_max_s`: how late the engine handled its events (for each event,
    ///   the wall-clock time when it was handled minus its due time); `lag_samples`: events
    ///   handled; `max_lag_s`: the limit.
    /// * `late_packets`: datagrams written more than 1 ms (`late_threshold_s`) after their
    ///   simulated departure; `timing_error_s`: the distribution of that delay over every
    ///   datagram written (`samples`, `mean`, `p50`, `p90`, `p99`, `max`; within 0.4 %).
    /// * `packets_in`/`bytes_in`: datagrams read from the hosts; `packets_injected`: those that
    ///   entered the path; the others were `dropped_non_ipv4` (not a valid IPv4 datagram),
    ///   `dropped_foreign_source` (a source address other than the host's) or
    ///   `dropped_unroutable` (a destination that is no attached host's address).
    /// * `packets_out`/`bytes_out`: datagrams written to the hosts. Of the datagrams that
    ///   reached a host (`packets_reached_hosts`), the others were `dropped_expired` (their bytes
    ///   were overwritten while they queued), `dropped_backlog` (the descriptor stayed full) or
    ///   `write_refused` (the descriptor refused them).
    /// * `not_delivered`: injected datagrams that reached no host: dropped on the path (queue,
    ///   loss, handover) or still on it when the run ended.
    /// * `ce_marked`: datagrams whose CE mark from the path was written into the real header;
    ///   `packets_strayed`: real datagrams that reached a node that is not attached (only a
    ///   middlebox on the path could send one there).
    /// * `hosts`: per attached host its descriptor, address and datagrams in and out;
    ///   `connections`: the TCP observer's report ([`Observer::report`]).
    pub fn report(&self) -> Value {
        let c = &self.counters;
        let h = &self.timing_ns;
        let secs = |ns: Option<u64>| ns.map(|v| v as f64 * 1e-9);
        let hosts: Map<String, Value> = self
            .ports
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let hc = &self.hosts[i];
                (
                    p.host.clone(),
                    json!({
                        "fd": p.fd,
                        "address": self.addrs.get(i).map(|a| a.to_string()),
                        "packets_in": hc.packets_in,
                        "bytes_in": hc.bytes_in,
                        "packets_out": hc.packets_out,
                        "bytes_out": hc.bytes_out,
                    }),
                )
            })
            .collect();
        json!({
            "wall_time_s": self.ended_ns.saturating_sub(self.started_ns) as f64 * 1e-9,
            "stopped_early": self.stopped,
            "max_lag_s": self.max_lag_ns as f64 * 1e-9,
            "lag_mean_s": self.lag.mean_s(),
            "lag_max_s": self.lag.max_s(),
            "lag_samples": self.lag.samples(),
            "late_packets": c.late,
            "late_threshold_s": LATE_NS as f64 * 1e-9,
            "timing_error_s": {
                "samples": h.count(),
                "mean": h.mean().map(|m| m * 1e-9),
                "p50": secs(h.quantile(0.5)),
                "p90": secs(h.quantile(0.9)),
                "p99": secs(h.quantile(0.99)),
                "max": secs(h.max()),
            },
            "packets_in": c.packets_in,
            "bytes_in": c.bytes_in,
            "packets_injected": c.injected,
            "packets_out": c.packets_out,
            "bytes_out": c.bytes_out,
            "packets_reached_hosts": c.reached_hosts,
            "dropped_non_ipv4": c.dropped_non_ipv4,
            "dropped_foreign_source": c.dropped_foreign_source,
            "dropped_unroutable": c.dropped_unroutable,
            "dropped_expired": c.dropped_expired,
            "dropped_backlog": c.dropped_backlog,
            "write_refused": c.write_refused,
            "not_delivered": c.injected.saturating_sub(c.reached_hosts),
            "packets_strayed": self.strays,
            "ce_marked": c.ce_marked,
            "hosts": hosts,
            "connections": self.observer.report(),
            "connections_untracked": self.observer.untracked(),
            "rtt_rows_omitted": self.observer.rtt.omitted,
        })
    }

    /// The TCP observer (its RTT samples, its connections).
    pub(crate) fn observer(&self) -> &Observer {
        &self.observer
    }

    /// The history of the real connections, when kept.
    pub(crate) fn history(&self) -> Option<&History> {
        self.history.as_ref()
    }

    /// Takes the capture out, to commit it once the run has succeeded.
    pub(crate) fn take_capture(&mut self) -> Option<Capture> {
        self.capture.take()
    }
}

impl Driver for Emulator {
    /// Attaches each port's host: its node becomes external.
    fn prepare(&mut self, world: &mut World) -> Result<(), RunError> {
        self.port_of_node = vec![None; world.topo.nodes.len()];
        for (i, port) in self.ports.iter().enumerate() {
            let node = world
                .topo
                .nodes
                .iter()
                .position(|n| n.name == port.host)
                .ok_or_else(|| {
                    ScenarioError::new(
                        "attachments",
                        format!("'{}' is not a node of the scenario", port.host),
                    )
                })
                .map(NodeId::from_index)?;
            world
                .attach_external(node)
                .map_err(|e| ScenarioError::new("attachments", e.to_string()))?;
            self.nodes.push(node);
            self.addrs.push(world.topo.nodes[node.index()].addr);
            self.port_of_node[node.index()] = Some(i);
        }
        Ok(())
    }

    fn advance(
        &mut self,
        sim: &mut Simulator<World>,
        stop: StopCondition,
    ) -> Result<RunOutcome, RunError> {
        if self.clock.is_none() {
            self.clock = Some(Clock::start(sim.sched.now()));
            self.slack = Some(TimerSlack::lower());
            self.started_ns = clock::monotonic_ns();
        }
        let clock = self.clock.expect("started");
        let until = stop.until.unwrap_or(SimTime::MAX);
        let budget_end = stop.max_events.map(|m| sim.events().saturating_add(m));
        let outcome = |sim: &Simulator<World>, reason| RunOutcome {
            reason,
            events: sim.events(),
            end_time: sim.sched.now(),
        };
        loop {
            self.wait().map_err(|e| self.fail(e))?;
            if self.stop_requested() {
                // The run ends now: simulated time catches up with the wall clock first (an
                // idle world has no events to move it), so the summary covers the real time.
                self.stopped = true;
                let target = clock.sim_now().min(until).max(sim.sched.now());
                let step = self.step(sim, target, budget_end)?;
                self.strays = sim.model.external_strays();
                self.ended_ns = clock::monotonic_ns();
                let reason = match step {
                    Step::Budget => StopReason::EventBudget,
                    Step::Halted => StopReason::Halted,
                    Step::Reached | Step::Behind => StopReason::Duration,
                };
                return Ok(outcome(sim, reason));
            }
            self.drain_backlogs().map_err(|e| self.fail(e))?;
            self.read_ports(&sim.model, sim.sched.now())
                .map_err(|e| self.fail(e))?;
            let target = clock.sim_now().min(until).max(sim.sched.now());
            let step = self.step(sim, target, budget_end)?;
            self.strays = sim.model.external_strays();
            self.ended_ns = clock::monotonic_ns();
            match step {
                Step::Budget => return Ok(outcome(sim, StopReason::EventBudget)),
                Step::Halted => return Ok(outcome(sim, StopReason::Halted)),
                Step::Behind => {
                    self.next_wait = Some(SimDuration::ZERO);
                    continue;
                }
                Step::Reached => {}
            }
            if sim.sched.now() >= until {
                return Ok(outcome(sim, StopReason::Duration));
            }
            // Sleep until the next event falls due (or the end, or a descriptor is ready): the
            // scheduler knows when that is, so nothing needs to poll in between.
            let now = clock.sim_now().as_ns();
            let left = SimDuration(until.as_ns().saturating_sub(now));
            self.next_wait = match sim.sched.next_event_time() {
                Some(t) => Some(left.min(SimDuration(t.as_ns().saturating_sub(now)))),
                None if until == SimTime::MAX => None,
                None => Some(left),
            };
        }
    }

    fn stopped(&self) -> bool {
        self.stopped
    }
}
