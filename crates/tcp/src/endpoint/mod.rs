//! The sans-IO TCP endpoint: the RFC 9293 state machine with the loss recovery, RTO,
//! spurious-timeout, ECN and receive-side machinery of the sibling modules.
//!
//! Call contract (as quinn-proto's `Connection`): the owner feeds segments with
//! [`TcpEndpoint::on_segment`], calls [`TcpEndpoint::on_timeout`] once the time returned by
//! [`TcpEndpoint::poll_timeout`] is reached, and after either (and after `write`/`close`) calls
//! [`TcpEndpoint::poll_transmit`] until it returns `None`. The endpoint never reads a clock.
//!
//! The code is split by concern: `input` (segment arrival, handshake, ACK processing),
//! `output` (segment selection and construction), `timers` (RTO, delayed ACK, persist,
//! TIME-WAIT); loss recovery, spurious-timeout detection and ACK control live in
//! [`crate::recovery`], [`crate::spurious`] and [`crate::ack_control`].

mod ack;
mod input;
mod output;
mod timers;

use std::net::Ipv4Addr;

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::packet::FlowId;
use celltcp_net::trace::{TraceVar, Traces};

use crate::ack_control::{AckLossEstimator, TerminalLossEstimate};
use crate::cc::CongestionControl;
use crate::config::TcpConfig;
use crate::ecn_sender::EcnSender;
use crate::negotiated::NegotiatedOptions;
use crate::persist::PersistTimer;
use crate::rack::Rack;
use crate::rate::RateEstimator;
use crate::receiver::Receiver;
use crate::recovery::{Recovery, RecoveryCtx, RecoveryPhase};
use crate::rtt::RttEstimator;
use crate::send_buffer::SendBuffer;
use crate::send_window::SendWindow;
use crate::spurious::Spurious;
use crate::stats::TcpStats;
use crate::tlp::Tlp;

/// Connection states, named as in RFC 9293 §3.3.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TcpState {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    FinWait1,
    FinWait2,
    CloseWait,
    Closing,
    LastAck,
    TimeWait,
}

impl TcpState {
    /// States in which the connection is synchronised (RFC 9293 §3.5).
    pub fn is_synchronized(self) -> bool {
        !matches!(
            self,
            TcpState::Closed | TcpState::Listen | TcpState::SynSent | TcpState::SynReceived
        )
    }
}

/// RFC 6298 §5.7: the RTO after a retransmitted SYN.
const RTO_AFTER_LOST_SYN: SimDuration = SimDuration::from_secs(3);
/// Default MSS assumed when the peer sends no MSS option (RFC 9293 §3.7.1).
const DEFAULT_PEER_MSS: u32 = 536;

/// Values last written to the traces, so that cwnd/ssthresh/cc_state are recorded on change.
#[derive(Clone, Copy, Debug, Default)]
struct Traced {
    cwnd: u64,
    ssthresh: u64,
    cc_state: u8,
    bandwidth: u64,
}

/// One end of a TCP connection.
pub struct TcpEndpoint {
    cfg: TcpConfig,
    cc: Box<dyn CongestionControl>,
    local: (Ipv4Addr, u16),
    remote: (Ipv4Addr, u16),
    flow: FlowId,
    state: TcpState,
    /// Initial send sequence number.
    iss: u32,
    /// Initial receive sequence number.
    irs: u32,
    /// SACK, timestamps, ECN, window scaling and the send MSS agreed in the handshake.
    opts: NegotiatedOptions,
    /// SND.UNA, SND.NXT, SND.WND (RFC 9293 §3.3.1).
    snd: SendWindow,
    buf: SendBuffer,
    /// A SYN (or SYN-ACK) is due.
    syn_pending: bool,
    syn_sent_at: Option<SimTime>,
    syn_tx_count: u32,
    rtt: RttEstimator,
    persist: PersistTimer,
    time_wait_deadline: Option<SimTime>,
    rec: Recovery,
    /// RACK's record of the latest delivered transmission (lost retransmissions, RFC 8985).
    rack: Rack,
    /// Tail Loss Probe: the PTO timer and the episode of an outstanding probe (RFC 8985 §7).
    tlp: Tlp,
    spur: Spurious,
    rcv: Receiver,
    ack_est: AckLossEstimator,
    /// Copies of the last pure ACK still to send (receiver ACK control).
    ack_copies_left: u32,
    last_ack: Option<celltcp_net::packet::Packet>,
    rate: RateEstimator,
    /// Earliest time the pacer releases the next data segment.
    pacing_next: SimTime,
    /// The last data transmission attempt was held back by the pacer.
    pacing_blocked: bool,
    /// One ECN reduction per window and the CWR it owes (RFC 3168 §6.1.2).
    ecn: EcnSender,
    stats: TcpStats,
    /// A reset owed in CLOSED to a segment of this connection (RFC 9293 §3.10.7.1): its
    /// sequence number, acknowledgment number and whether it carries ACK.
    rst_pending: Option<(u32, u32, bool)>,
    traced: Traced,
}

impl TcpEndpoint {
    fn new(
        cfg: TcpConfig,
        cc: Box<dyn CongestionControl>,
        local: (Ipv4Addr, u16),
        remote: (Ipv4Addr, u16),
        flow: FlowId,
        state: TcpState,
    ) -> Self {
        TcpEndpoint {
            cc,
            local,
            remote,
            flow,
            state,
            iss: cfg.isn,
            irs: 0,
            opts: NegotiatedOptions::before_handshake(cfg.mss),
            snd: SendWindow::default(),
            buf: SendBuffer::new(cfg.snd_buf_bytes),
            syn_pending: false,
            syn_sent_at: None,
            syn_tx_count: 0,
            rtt: RttEstimator::new(
                cfg.initial_rto,
                cfg.min_rto,
                cfg.max_rto,
                cfg.clock_granularity,
            )
            .floor_variance_term(cfg.min_rto_bounds_variance),
            persist: PersistTimer::default(),
            time_wait_deadline: None,
            rec: Recovery::default(),
            rack: Rack::default(),
            tlp: Tlp::default(),
            spur: Spurious::default(),
            rcv: Receiver::new(cfg.rcv_buf_bytes, cfg.mss).with_quick_acks(cfg.quick_acks),
            ack_est: AckLossEstimator::new(cfg.ack_copies),
            ack_copies_left: 0,
            last_ack: None,
            rate: RateEstimator::default(),
            pacing_next: SimTime::ZERO,
            pacing_blocked: false,
            ecn: EcnSender::default(),
            stats: TcpStats::default(),
            rst_pending: None,
            traced: Traced::default(),
            cfg,
        }
    }

    /// Active open (RFC 9293 §3.10.1): the SYN is produced by the next `poll_transmit`.
    pub fn connect(
        cfg: TcpConfig,
        cc: Box<dyn CongestionControl>,
        local: (Ipv4Addr, u16),
        remote: (Ipv4Addr, u16),
        flow: FlowId,
        _now: SimTime,
    ) -> Self {
        let mut ep = TcpEndpoint::new(cfg, cc, local, remote, flow, TcpState::SynSent);
        ep.syn_pending = true;
        ep
    }

    /// Passive open: the endpoint accepts the first SYN addressed to `local`.
    pub fn listen(
        cfg: TcpConfig,
        cc: Box<dyn CongestionControl>,
        local: (Ipv4Addr, u16),
        flow: FlowId,
    ) -> Self {
        TcpEndpoint::new(
            cfg,
            cc,
            local,
            (Ipv4Addr::UNSPECIFIED, 0),
            flow,
            TcpState::Listen,
        )
    }

    /// Queues `bytes` of application data; returns the bytes accepted by the send buffer.
    pub fn write(&mut self, bytes: u64) -> u64 {
        match self.state {
            TcpState::SynSent
            | TcpState::SynReceived
            | TcpState::Established
            | TcpState::CloseWait => self.buf.write(bytes, self.snd.una().max(1)),
            _ => 0,
        }
    }

    /// Send-buffer space available to the application, bytes.
    pub fn send_space(&self) -> u64 {
        match self.state {
            TcpState::SynSent
            | TcpState::SynReceived
            | TcpState::Established
            | TcpState::CloseWait => self.buf.space(self.snd.una().max(1)),
            _ => 0,
        }
    }

    /// The application will write no more: a FIN follows the queued data (RFC 9293 §3.10.4).
    pub fn close(&mut self) {
        match self.state {
            TcpState::Listen => self.state = TcpState::Closed,
            // RFC 9293 §3.10.4: before ESTABLISHED the close is queued until the handshake
            // completes.
            TcpState::SynSent | TcpState::SynReceived => self.buf.fin_queued = true,
            TcpState::Established => {
                self.buf.fin_queued = true;
                self.state = TcpState::FinWait1;
            }
            TcpState::CloseWait => {
                self.buf.fin_queued = true;
                self.state = TcpState::LastAck;
            }
            _ => {}
        }
    }

    /// In-order bytes delivered to the application since the last call; frees receive buffer.
    pub fn take_delivered(&mut self) -> u64 {
        if self.state == TcpState::Listen || self.state == TcpState::SynSent {
            return 0;
        }
        self.rcv.take_delivered()
    }

    pub fn state(&self) -> TcpState {
        self.state
    }

    pub fn stats(&self) -> &TcpStats {
        &self.stats
    }

    /// The congestion controller.
    pub fn cc(&self) -> &dyn CongestionControl {
        self.cc.as_ref()
    }

    /// Bytes presumed in the network (RFC 6675 pipe; without SACK information it equals
    /// SND.NXT − SND.UNA less segments deemed lost).
    pub fn bytes_in_flight(&self) -> u64 {
        self.buf.pipe()
    }

    /// Window the sender may fill now, bytes: cwnd plus NewReno's inflation (RFC 6582 §3.2).
    /// With PRR (RFC 6937) in SACK fast recovery the window is PRR's: pipe + sndcnt.
    pub fn effective_cwnd(&self) -> u64 {
        if self.prr_active() {
            if let Some(w) = self.rec.prr_cwnd() {
                return w.max(self.opts.mss as u64);
            }
        }
        let w = self.cc.cwnd() as i128 + self.rec.inflation() as i128;
        w.max(self.opts.mss as i128) as u64
    }

    pub fn srtt(&self) -> SimDuration {
        self.rtt.srtt()
    }

    pub fn rto(&self) -> SimDuration {
        self.rtt.rto()
    }

    /// Loss-recovery phase.
    pub fn recovery_phase(&self) -> RecoveryPhase {
        self.rec.phase()
    }

    /// All written data and the FIN (if any) have been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.snd.una() > 0 && self.snd.una() >= self.buf.stream_end()
    }

    /// Bytes written by the application and acknowledged by the peer.
    pub fn bytes_acked(&self) -> u64 {
        self.snd.una().saturating_sub(1).min(self.buf.written())
    }

    pub fn local(&self) -> (Ipv4Addr, u16) {
        self.local
    }

    pub fn remote(&self) -> (Ipv4Addr, u16) {
        self.remote
    }

    pub fn flow(&self) -> FlowId {
        self.flow
    }

    /// The options negotiated in the handshake.
    pub fn negotiated(&self) -> NegotiatedOptions {
        self.opts
    }

    /// The configuration the endpoint was created with.
    #[cfg(test)]
    pub(crate) fn config(&self) -> &TcpConfig {
        &self.cfg
    }

    /// Initial send sequence number (RFC 9293 §3.4.1).
    #[cfg(test)]
    pub(crate) fn iss(&self) -> u32 {
        self.iss
    }

    /// The receive side: RCV.NXT, the reassembly queue, delayed ACKs.
    pub(crate) fn receiver(&self) -> &Receiver {
        &self.rcv
    }

    /// The send buffer and its scoreboard.
    pub(crate) fn send_buffer(&self) -> &SendBuffer {
        &self.buf
    }

    /// The RTT estimator and retransmission timer (RFC 6298).
    #[cfg(test)]
    pub(crate) fn rtt_estimator(&self) -> &RttEstimator {
        &self.rtt
    }

    /// The loss-recovery variables.
    #[cfg(test)]
    pub(crate) fn recovery(&self) -> &Recovery {
        &self.rec
    }

    /// The spurious-timeout detectors and the undos they caused.
    #[cfg(test)]
    pub(crate) fn spurious(&self) -> &Spurious {
        &self.spur
    }

    /// The receiver's ACK-loss estimator (ACK control).
    #[cfg(test)]
    pub(crate) fn ack_loss_estimator(&self) -> &AckLossEstimator {
        &self.ack_est
    }

    /// Shares `terminal`'s ACK-loss estimate with this connection: see
    /// [`AckLossEstimator::attach`]. Call before the first data segment.
    pub(crate) fn attach_terminal_estimate(&mut self, terminal: TerminalLossEstimate) {
        self.ack_est.attach(terminal);
    }

    /// The last data transmission attempt was held back by the pacer.
    #[cfg(test)]
    pub(crate) fn pacing_blocked(&self) -> bool {
        self.pacing_blocked
    }

    /// SND.UNA, SND.NXT and SND.WND.
    pub fn send_window(&self) -> &SendWindow {
        &self.snd
    }

    /// Duplicate-ACK threshold in force: the controller's, else the configured one.
    pub(crate) fn dupthresh(&self) -> u32 {
        let c = self
            .cc
            .dupack_threshold(self.rtt.srtt(), self.rtt.min_rtt());
        if c != 3 {
            c.max(1)
        } else {
            self.cfg.dupack_threshold
        }
    }

    /// The recovery machinery and what it works on of the rest of the sender.
    pub(crate) fn recovery_and_ctx(&mut self) -> (&mut Recovery, RecoveryCtx<'_>) {
        let dupthresh = self.dupthresh();
        let ctx = RecoveryCtx {
            snd: &self.snd,
            buf: &mut self.buf,
            sack: self.opts.sack,
            smss: self.opts.mss as u64,
            dupthresh,
            exits_on_partial_ack: self.cc.exits_recovery_on_partial_ack(),
            eln: self.cfg.eln,
        };
        (&mut self.rec, ctx)
    }

    /// A fast recovery began (`eln`: for a radio loss): counted, and RFC 3168 §6.1.2 allows
    /// no ECN reduction again in this window.
    pub(crate) fn on_fast_recovery_entered(&mut self, eln: bool) {
        self.ecn.hold_until(self.snd.nxt());
        self.stats.fast_recoveries += 1;
        if eln {
            self.stats.eln_recoveries += 1;
        }
    }

    /// Whether PRR (RFC 6937) sets the sending window: see [`Recovery::prr_governs`].
    pub(crate) fn prr_active(&self) -> bool {
        self.rec
            .prr_governs(self.cfg.prr, self.opts.sack, self.cc.reduces_by_prr())
    }

    /// ELN is enabled and the last ELN-marked ACK asked for the segment at SND.UNA.
    pub(crate) fn eln_marks_head(&self) -> bool {
        self.rec.eln_marks_head(self.cfg.eln, &self.snd)
    }

    /// Send-side variables are traced only once the application has written data, so that a
    /// pure receiver sharing the flow id does not add rows for its idle controller.
    #[inline]
    pub(crate) fn traces_send_side(&self, traces: &Traces) -> bool {
        traces.any_enabled() && self.buf.written() > 0
    }

    /// Records the controller's variables that changed (cwnd, ssthresh, cc_state, bandwidth).
    pub(crate) fn trace_cc(&mut self, now: SimTime, traces: &mut Traces) {
        let cwnd = self.cc.cwnd();
        self.stats.max_cwnd = self.stats.max_cwnd.max(cwnd);
        if !self.traces_send_side(traces) {
            return;
        }
        let flow = self.flow;
        if traces.enabled(TraceVar::Cwnd) && cwnd != self.traced.cwnd {
            self.traced.cwnd = cwnd;
            traces.record(now, flow, TraceVar::Cwnd, cwnd as f64);
        }
        let ssthresh = self.cc.ssthresh();
        if traces.enabled(TraceVar::Ssthresh) && ssthresh != self.traced.ssthresh {
            self.traced.ssthresh = ssthresh;
            let v = if ssthresh == u64::MAX {
                f64::INFINITY
            } else {
                ssthresh as f64
            };
            traces.record(now, flow, TraceVar::Ssthresh, v);
        }
        if traces.enabled(TraceVar::CcState) {
            let s = self.cc_state_code();
            if s != self.traced.cc_state {
                self.traced.cc_state = s;
                traces.record(now, flow, TraceVar::CcState, s as f64);
            }
        }
        if traces.enabled(TraceVar::BandwidthEstimate) {
            if let Some(bw) = self.cc.bandwidth_estimate_bps() {
                if bw != self.traced.bandwidth {
                    self.traced.bandwidth = bw;
                    traces.record(now, flow, TraceVar::BandwidthEstimate, bw as f64);
                }
            }
        }
    }

    /// Trace code of [`TraceVar::CcState`]: 2 fast recovery, 3 RTO recovery, 10+ controller
    /// modes, else 0 slow start / 1 congestion avoidance.
    fn cc_state_code(&self) -> u8 {
        match self.rec.phase() {
            RecoveryPhase::FastRecovery => 2,
            RecoveryPhase::Loss => 3,
            RecoveryPhase::Open => match self.cc.mode() {
                Some("startup") => 10,
                Some("drain") => 11,
                Some("probe_bw") => 12,
                Some("probe_rtt") => 13,
                Some(_) => 14,
                None => (self.cc.cwnd() >= self.cc.ssthresh()) as u8,
            },
        }
    }

    pub(crate) fn trace_rtt(&mut self, now: SimTime, sample: SimDuration, traces: &mut Traces) {
        self.stats.srtt = self.rtt.srtt();
        self.stats.min_rtt = self.rtt.min_rtt();
        self.stats.rtt_samples += 1;
        if !self.traces_send_side(traces) {
            return;
        }
        let f = self.flow;
        traces.record(now, f, TraceVar::RttSample, sample.as_secs_f64());
        traces.record(now, f, TraceVar::Srtt, self.rtt.srtt().as_secs_f64());
        traces.record(now, f, TraceVar::Rttvar, self.rtt.rttvar().as_secs_f64());
        traces.record(now, f, TraceVar::Rto, self.rtt.rto().as_secs_f64());
    }
}
