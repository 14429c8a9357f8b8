//! The network adapter: [`TcpSenderAgent`] (an application and the connections it opens) and
//! [`TcpReceiverAgent`] (accepts connections on a port, one at a time) implement
//! [`celltcp_net::agent::Agent`].
//!
//! Each call runs to quiescence: the input goes to its endpoint, the application is polled,
//! every endpoint is drained with `poll_transmit`, and the single agent timer is set to the
//! earliest of the endpoints' `poll_timeout` and the application's own timer.

use std::net::Ipv4Addr;

use celltcp_engine::{RngStream, SimTime};
use celltcp_net::agent::{Agent, AgentCtx, ReportEntry};
use celltcp_net::packet::{FlowId, Packet, TcpFlags};
use thiserror::Error;

use crate::ack_control::TerminalLossEstimate;
use crate::app::{AppRequest, Connection, FileReceipts, TcpApplication};
use crate::cc::{self, CongestionControl};
use crate::config::{TcpConfig, TcpConfigError};
use crate::endpoint::{TcpEndpoint, TcpState};
use crate::stats::TcpStats;

/// Builds one controller per connection.
pub type CcFactory = Box<dyn FnMut() -> Box<dyn CongestionControl> + Send>;

/// Why an agent could not be built.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum AgentError {
    #[error("cc: '{name}' is not a congestion controller; expected one of {expected}")]
    UnknownCc { name: String, expected: String },
    #[error(transparent)]
    Config(#[from] TcpConfigError),
}

/// The factory of the controller called `name` (see [`cc::NAMES`]). Each controller it makes
/// gets its own seed, drawn from a stream seeded with `seed`, for the controllers that draw
/// random numbers (BBR's ProbeBW start phase, as Linux's `bbr_reset_probe_bw_mode` draws it
/// per connection): connections and flows then do not probe in lock-step, and replications
/// (a different run, hence a different `seed`) draw different phases.
pub fn cc_factory(name: &str, cfg: &TcpConfig, seed: u64) -> Result<CcFactory, AgentError> {
    let cc_cfg = cfg.cc_config();
    if cc::build(name, &cc_cfg).is_none() {
        return Err(AgentError::UnknownCc {
            name: name.to_owned(),
            expected: cc::NAMES.join(", "),
        });
    }
    let name = name.to_owned();
    let mut seeds = RngStream::from_seed(seed);
    Ok(Box::new(move || {
        cc::build_with_seed(&name, &cc_cfg, seeds.next_u64())
            .expect("name checked when the factory was made")
    }))
}

fn figures(s: &TcpStats, out: &mut Vec<ReportEntry>) {
    out.push(("segments_sent", s.segments_sent as f64));
    out.push(("bytes_sent", s.bytes_sent as f64));
    out.push(("retransmissions", s.retx_total as f64));
    out.push(("retx_fast", s.retx_fast as f64));
    out.push(("retx_rto", s.retx_rto as f64));
    out.push(("timeouts", s.timeouts as f64));
    out.push(("lost_retransmissions", s.lost_retransmissions as f64));
    out.push(("spurious_undos", s.spurious_undos as f64));
    out.push(("fast_recoveries", s.fast_recoveries as f64));
    out.push(("ecn_reductions", s.ecn_reductions as f64));
    out.push(("eln_acks_received", s.eln_acks_received as f64));
    out.push(("eln_recoveries", s.eln_recoveries as f64));
    out.push(("eln_timeouts", s.eln_timeouts as f64));
    out.push(("dupacks_received", s.dupacks_received as f64));
    out.push(("acks_received", s.acks_received as f64));
    out.push(("acks_sent", s.acks_sent as f64));
}

/// The sending side of a TCP flow: an application plus the connections it opens.
pub struct TcpSenderAgent {
    cfg: TcpConfig,
    flow: FlowId,
    local_addr: Ipv4Addr,
    /// Local port of the next connection; each new connection takes the next port.
    next_port: u16,
    remote: (Ipv4Addr, u16),
    factory: CcFactory,
    app: Box<dyn TcpApplication>,
    /// Open connections; the last one is the application's current connection.
    conns: Vec<TcpEndpoint>,
    has_current: bool,
    /// Counters of connections already closed and dropped.
    finished: TcpStats,
    opened: u32,
    /// The application stops at this time: it writes nothing more and its connection closes
    /// once the data already written is sent (as a socket closed by its application).
    stop: Option<SimTime>,
    stopped: bool,
}

impl TcpSenderAgent {
    /// `local` gives the address and the first local port; `remote` the receiver's.
    pub fn new(
        cfg: TcpConfig,
        flow: FlowId,
        local: (Ipv4Addr, u16),
        remote: (Ipv4Addr, u16),
        factory: CcFactory,
        app: Box<dyn TcpApplication>,
    ) -> Result<Self, AgentError> {
        cfg.validate()?;
        Ok(TcpSenderAgent {
            cfg,
            flow,
            local_addr: local.0,
            next_port: local.1,
            remote,
            factory,
            app,
            conns: Vec::new(),
            has_current: false,
            finished: TcpStats::default(),
            opened: 0,
            stop: None,
            stopped: false,
        })
    }

    /// Stops the application at `stop` (see the field's contract).
    pub fn with_stop(mut self, stop: SimTime) -> Self {
        self.stop = Some(stop);
        self
    }

    /// As [`TcpSenderAgent::new`] with the controller named `cc_name`, its random draws
    /// seeded with `cc_seed` (see [`cc_factory`]).
    pub fn with_cc_name(
        cfg: TcpConfig,
        flow: FlowId,
        local: (Ipv4Addr, u16),
        remote: (Ipv4Addr, u16),
        cc_name: &str,
        cc_seed: u64,
        app: Box<dyn TcpApplication>,
    ) -> Result<Self, AgentError> {
        let factory = cc_factory(cc_name, &cfg, cc_seed)?;
        TcpSenderAgent::new(cfg, flow, local, remote, factory, app)
    }

    /// Counters over all connections, open and closed.
    pub fn stats(&self) -> TcpStats {
        let mut s = self.finished.clone();
        for c in &self.conns {
            s.accumulate(c.stats());
        }
        s
    }

    /// The application's current connection.
    pub fn connection(&self) -> Option<&TcpEndpoint> {
        self.has_current.then(|| self.conns.last()).flatten()
    }

    fn drive(&mut self, ctx: &mut AgentCtx<'_>) {
        let now = ctx.now();
        if !self.stopped && self.stop.is_some_and(|s| now >= s) {
            self.stopped = true;
            if self.has_current {
                if let Some(c) = self.conns.last_mut() {
                    c.close();
                }
            }
        }
        for _ in 0..(if self.stopped { 0 } else { 4 }) {
            let conn = if self.has_current {
                self.conns.last_mut().map(|c| c as &mut dyn Connection)
            } else {
                None
            };
            match self.app.poll(now, conn, ctx.rng) {
                AppRequest::None => break,
                AppRequest::Connect => {
                    let port = self.next_port;
                    self.next_port = self.next_port.wrapping_add(1).max(1);
                    let cc = (self.factory)();
                    let cfg = TcpConfig {
                        isn: self
                            .cfg
                            .isn
                            .wrapping_add(self.opened.wrapping_mul(0x1000_0000)),
                        ..self.cfg
                    };
                    self.conns.push(TcpEndpoint::connect(
                        cfg,
                        cc,
                        (self.local_addr, port),
                        self.remote,
                        self.flow,
                        now,
                    ));
                    self.has_current = true;
                    self.opened += 1;
                }
            }
        }
        for c in &mut self.conns {
            while let Some(p) = c.poll_transmit(now, ctx.traces) {
                ctx.send(p);
            }
        }
        // Forget connections that are closed, except the application's current one.
        let last = self.conns.len().saturating_sub(1);
        let mut i = 0;
        let finished = &mut self.finished;
        self.conns.retain(|c| {
            let keep = (i == last) || c.state() != TcpState::Closed;
            if !keep {
                finished.accumulate(c.stats());
            }
            i += 1;
            keep
        });
        let app_t = if self.stopped {
            None
        } else {
            self.app.next_timer().into_iter().chain(self.stop).min()
        };
        let t = self
            .conns
            .iter()
            .filter_map(|c| c.poll_timeout())
            .chain(app_t)
            .min();
        ctx.set_timer(t);
    }
}

impl Agent for TcpSenderAgent {
    fn start(&mut self, ctx: &mut AgentCtx<'_>) {
        self.drive(ctx);
    }

    fn on_packet(&mut self, pkt: Packet, ctx: &mut AgentCtx<'_>) {
        if let Some(h) = pkt.tcp() {
            let now = ctx.now();
            if let Some(c) = self.conns.iter_mut().find(|c| c.local().1 == h.dst_port) {
                c.on_segment(now, &pkt, ctx.traces);
            }
        }
        self.drive(ctx);
    }

    fn on_timer(&mut self, ctx: &mut AgentCtx<'_>) {
        let now = ctx.now();
        for c in &mut self.conns {
            if c.poll_timeout().is_some_and(|t| t <= now) {
                c.on_timeout(now, ctx.traces);
            }
        }
        self.drive(ctx);
    }

    fn report(&self, now: SimTime) -> Vec<ReportEntry> {
        let s = self.stats();
        let mut out = vec![
            ("connections", self.opened as f64),
            ("bytes_acked", s.bytes_acked as f64),
        ];
        figures(&s, &mut out);
        out.push(("max_cwnd_bytes", s.max_cwnd as f64));
        out.push(("srtt_s", s.srtt.as_secs_f64()));
        out.push(("min_rtt_s", s.min_rtt.as_secs_f64()));
        self.app.report(now, &mut out);
        out
    }
}

/// The receiving side: accepts connections on its port, one at a time; a SYN arriving after
/// the current connection was closed by its peer starts a fresh endpoint. Its application
/// reads everything at once and closes when the peer has closed.
pub struct TcpReceiverAgent {
    cfg: TcpConfig,
    flow: FlowId,
    local: (Ipv4Addr, u16),
    factory: CcFactory,
    ep: Option<TcpEndpoint>,
    finished: TcpStats,
    connections: u32,
    delivered: u64,
    first_syn: Option<SimTime>,
    last_delivery: Option<SimTime>,
    /// The receiving terminal's radio loss estimate, shared by the connections it accepts
    /// (receiver ACK control of the seed `004_…`); `None`: each connection keeps its own.
    terminal: Option<TerminalLossEstimate>,
    /// Where each connection's file is recorded once received in full (its FIN in order), for
    /// the sending application; `None`: not recorded.
    receipts: Option<FileReceipts>,
    /// Bytes delivered in order on the current connection.
    conn_delivered: u64,
}

impl TcpReceiverAgent {
    pub fn new(
        cfg: TcpConfig,
        flow: FlowId,
        local: (Ipv4Addr, u16),
        factory: CcFactory,
    ) -> Result<Self, AgentError> {
        cfg.validate()?;
        Ok(TcpReceiverAgent {
            cfg,
            flow,
            local,
            factory,
            ep: None,
            finished: TcpStats::default(),
            connections: 0,
            delivered: 0,
            first_syn: None,
            last_delivery: None,
            terminal: None,
            receipts: None,
            conn_delivered: 0,
        })
    }

    /// Records in `receipts` every file this agent receives in full: when a connection's FIN
    /// arrives in order, after its last byte (see [`FileReceipts`]).
    pub fn with_receipts(mut self, receipts: FileReceipts) -> Self {
        self.receipts = Some(receipts);
        self
    }

    /// Attaches every connection this agent accepts to `terminal`'s radio loss estimate
    /// (seed `004_…`: the terminal keeps the estimate across its connections). Give the
    /// agents of one receiving host the same handle.
    pub fn with_terminal_estimate(mut self, terminal: TerminalLossEstimate) -> Self {
        self.terminal = Some(terminal);
        self
    }

    /// As [`TcpReceiverAgent::new`] with the controller named `cc_name` (used only for data the
    /// receiver would send), its random draws seeded with `cc_seed` (see [`cc_factory`]).
    pub fn with_cc_name(
        cfg: TcpConfig,
        flow: FlowId,
        local: (Ipv4Addr, u16),
        cc_name: &str,
        cc_seed: u64,
    ) -> Result<Self, AgentError> {
        let factory = cc_factory(cc_name, &cfg, cc_seed)?;
        TcpReceiverAgent::new(cfg, flow, local, factory)
    }

    /// Application bytes received in order, over all connections.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Bytes delivered over the active time (first SYN to last delivery), bits per second.
    pub fn goodput_bps(&self) -> f64 {
        match (self.first_syn, self.last_delivery) {
            (Some(a), Some(b)) if b > a => self.delivered as f64 * 8.0 / (b - a).as_secs_f64(),
            _ => 0.0,
        }
    }

    pub fn stats(&self) -> TcpStats {
        let mut s = self.finished.clone();
        if let Some(ep) = &self.ep {
            s.accumulate(ep.stats());
        }
        s
    }

    /// A new SYN may replace the current endpoint once it can no longer carry data to us.
    fn accepts_new_connection(&self) -> bool {
        self.ep.as_ref().is_none_or(|ep| {
            matches!(
                ep.state(),
                TcpState::Closed
                    | TcpState::TimeWait
                    | TcpState::CloseWait
                    | TcpState::LastAck
                    | TcpState::Closing
            )
        })
    }

    fn drive(&mut self, ctx: &mut AgentCtx<'_>) {
        let now = ctx.now();
        if let Some(ep) = &mut self.ep {
            let n = ep.take_delivered();
            if n > 0 {
                self.delivered += n;
                self.conn_delivered += n;
                self.last_delivery = Some(now);
            }
            if ep.state() == TcpState::CloseWait {
                // The peer's FIN arrived in order: everything it sent is delivered.
                if let Some(r) = &self.receipts {
                    r.record(now, self.conn_delivered);
                }
                ep.close();
            }
            while let Some(p) = ep.poll_transmit(now, ctx.traces) {
                ctx.send(p);
            }
        }
        ctx.set_timer(self.ep.as_ref().and_then(|e| e.poll_timeout()));
    }
}

impl Agent for TcpReceiverAgent {
    fn start(&mut self, ctx: &mut AgentCtx<'_>) {
        self.drive(ctx);
    }

    fn on_packet(&mut self, pkt: Packet, ctx: &mut AgentCtx<'_>) {
        let Some(h) = pkt.tcp() else { return };
        if h.dst_port != self.local.1 {
            return;
        }
        let now = ctx.now();
        let is_syn = h.flags.contains(TcpFlags::SYN) && !h.flags.contains(TcpFlags::ACK);
        let same_peer = self
            .ep
            .as_ref()
            .is_some_and(|e| e.remote() == (pkt.ip.src, h.src_port));
        if is_syn && !same_peer && self.accepts_new_connection() {
            if let Some(old) = self.ep.take() {
                self.finished.accumulate(old.stats());
            }
            let cc = (self.factory)();
            let mut ep = TcpEndpoint::listen(self.cfg, cc, self.local, self.flow);
            if let Some(t) = &self.terminal {
                // Before the SYN is processed, so no data has been counted privately.
                ep.attach_terminal_estimate(t.clone());
            }
            self.ep = Some(ep);
            self.conn_delivered = 0;
            self.connections += 1;
            self.first_syn.get_or_insert(now);
        }
        if let Some(ep) = &mut self.ep {
            ep.on_segment(now, &pkt, ctx.traces);
        }
        self.drive(ctx);
    }

    fn on_timer(&mut self, ctx: &mut AgentCtx<'_>) {
        let now = ctx.now();
        if let Some(ep) = &mut self.ep {
            if ep.poll_timeout().is_some_and(|t| t <= now) {
                ep.on_timeout(now, ctx.traces);
            }
        }
        self.drive(ctx);
    }

    fn report(&self, _now: SimTime) -> Vec<ReportEntry> {
        let s = self.stats();
        vec![
            ("connections", self.connections as f64),
            ("bytes_delivered", self.delivered as f64),
            ("goodput_bps", self.goodput_bps()),
            ("acks_sent", s.acks_sent as f64),
            ("ack_copies_sent", s.ack_copies_sent as f64),
            ("ce_received", s.ce_received as f64),
        ]
    }
}

#[cfg(test)]
mod tests {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    use celltcp_engine::{RngStream, SimDuration};
    use celltcp_net::trace::{TraceVar, Traces};

    use super::*;
    use crate::app::{Bulk, FileSize, Ftp, OnOff};

    const S: (Ipv4Addr, u16) = (Ipv4Addr::new(10, 0, 0, 1), 40_000);
    const R: (Ipv4Addr, u16) = (Ipv4Addr::new(10, 0, 0, 2), 5_001);

    /// Two agents on a 10 Mb/s, 20 ms path (A→B serialised), run until `end`.
    fn run(sender: &mut TcpSenderAgent, receiver: &mut TcpReceiverAgent, end: SimTime) -> Traces {
        let mut traces = Traces::new(&[TraceVar::Cwnd, TraceVar::Delivered]);
        let mut rng_s = RngStream::new(1, 0, "sender");
        let mut rng_r = RngStream::new(1, 0, "receiver");
        let mut timers: [Option<SimTime>; 2] = [None, None];
        let mut heap: BinaryHeap<Reverse<(SimTime, u64, usize)>> = BinaryHeap::new();
        let mut pkts: Vec<Packet> = vec![];
        let mut link_free = SimTime::ZERO;
        let delay = SimDuration::from_ms(20);
        let mut now = SimTime::ZERO;
        let mut out = vec![];
        {
            let mut ctx = AgentCtx::new(now, &mut out, &mut timers[1], &mut rng_r, &mut traces);
            receiver.start(&mut ctx);
        }
        {
            let mut ctx = AgentCtx::new(now, &mut out, &mut timers[0], &mut rng_s, &mut traces);
            sender.start(&mut ctx);
        }
        loop {
            for p in out.drain(..) {
                let to = if p.ip.dst == R.0 { 1 } else { 0 };
                let at = if to == 1 {
                    link_free = link_free.max(now)
                        + SimDuration::transmission(p.size_bytes() as u64, 10_000_000);
                    link_free + delay
                } else {
                    now + delay
                };
                heap.push(Reverse((at, pkts.len() as u64, to)));
                pkts.push(p);
            }
            let next_pkt = heap.peek().map(|r| r.0 .0);
            let next = [next_pkt, timers[0], timers[1]].into_iter().flatten().min();
            let Some(t) = next else { break };
            if t > end {
                break;
            }
            now = t;
            if next_pkt == Some(t) {
                let Reverse((_, id, to)) = heap.pop().unwrap();
                let p = pkts[id as usize];
                if to == 1 {
                    let mut ctx =
                        AgentCtx::new(now, &mut out, &mut timers[1], &mut rng_r, &mut traces);
                    receiver.on_packet(p, &mut ctx);
                } else {
                    let mut ctx =
                        AgentCtx::new(now, &mut out, &mut timers[0], &mut rng_s, &mut traces);
                    sender.on_packet(p, &mut ctx);
                }
            } else if timers[0] == Some(t) {
                timers[0] = None;
                let mut ctx = AgentCtx::new(now, &mut out, &mut timers[0], &mut rng_s, &mut traces);
                sender.on_timer(&mut ctx);
            } else {
                timers[1] = None;
                let mut ctx = AgentCtx::new(now, &mut out, &mut timers[1], &mut rng_r, &mut traces);
                receiver.on_timer(&mut ctx);
            }
        }
        traces
    }

    fn pair(app: Box<dyn TcpApplication>) -> (TcpSenderAgent, TcpReceiverAgent) {
        let cfg = TcpConfig::default();
        let s = TcpSenderAgent::with_cc_name(cfg, FlowId(3), S, R, "newreno", 0, app).unwrap();
        let r = TcpReceiverAgent::with_cc_name(cfg, FlowId(3), R, "newreno", 0).unwrap();
        (s, r)
    }

    fn entry(rep: &[ReportEntry], key: &str) -> f64 {
        rep.iter()
            .find(|e| e.0 == key)
            .unwrap_or_else(|| panic!("no {key}"))
            .1
    }

    #[test]
    fn bulk_transfer_completes_and_reports_goodput() {
        let (mut s, mut r) = pair(Box::new(Bulk::new(Some(2_000_000))));
        let traces = run(&mut s, &mut r, SimTime::ZERO + SimDuration::from_secs(20));
        assert_eq!(r.delivered(), 2_000_000);
        let g = r.goodput_bps();
        // Bounded by the 10 Mb/s bottleneck (payload share ≈ 0.96) and well above half of it.
        assert!(g > 5e6 && g < 10e6, "{g}");
        let rep = s.report(SimTime::ZERO);
        assert!(entry(&rep, "transfer_time_s") > 1.6);
        assert_eq!(entry(&rep, "connections"), 1.0);
        assert_eq!(
            entry(&r.report(SimTime::ZERO), "bytes_delivered"),
            2_000_000.0
        );
        assert!(traces.vars.var.contains(&(TraceVar::Cwnd as u8)));
        assert_eq!(s.connection().unwrap().state(), TcpState::Closed);
    }

    #[test]
    fn ftp_opens_a_new_connection_per_file() {
        let ftp = Ftp::new(FileSize::Fixed(100_000), SimDuration::from_secs(1));
        let (mut s, mut r) = pair(Box::new(ftp));
        run(&mut s, &mut r, SimTime::ZERO + SimDuration::from_secs(30));
        let rep = s.report(SimTime::ZERO);
        let n = entry(&rep, "ftp_transfers");
        assert!(n >= 10.0, "{n}");
        assert!(entry(&rep, "connections") >= n);
        assert!(entry(&r.report(SimTime::ZERO), "connections") >= n);
        let mean = entry(&rep, "ftp_mean_transfer_time_s");
        // Handshake + slow start from 10 segments over 100 kB at a 40 ms RTT: a few RTTs.
        assert!(mean > 0.1 && mean < 0.5, "{mean}");
        assert_eq!(r.delivered() % 100_000, 0);
    }

    #[test]
    fn onoff_source_delivers_what_it_generates() {
        let app = OnOff::new(
            SimDuration::from_secs(1),
            SimDuration::from_secs(1),
            2_000_000,
        );
        let (mut s, mut r) = pair(Box::new(app));
        run(&mut s, &mut r, SimTime::ZERO + SimDuration::from_secs(40));
        let rep = s.report(SimTime::ZERO);
        let gen = entry(&rep, "app_bytes_generated");
        // About half the time on at 2 Mb/s: 40 s → ≈ 5 MB, with exponential periods.
        assert!(gen > 2.0e6 && gen < 8.0e6, "{gen}");
        let lag = gen - r.delivered() as f64;
        assert!((0.0..300_000.0).contains(&lag), "{lag}");
    }

    #[test]
    fn unknown_controller_is_an_error() {
        let e = TcpSenderAgent::with_cc_name(
            TcpConfig::default(),
            FlowId(1),
            S,
            R,
            "fast",
            0,
            Box::new(Bulk::new(None)),
        );
        let msg = e.err().unwrap().to_string();
        assert!(
            msg.starts_with("cc: 'fast' is not a congestion controller"),
            "{msg}"
        );
    }
}
