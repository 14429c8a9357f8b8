//! Congestion controllers: one trait, one file per algorithm.
//!
//! Division of labour with the endpoint (as in Linux and ns-3): the endpoint owns loss
//! *detection* and *recovery mechanics* (duplicate-ACK counting, SACK scoreboard, RFC 6675 pipe,
//! NewReno window inflation, RTO backoff, F-RTO/Eifel detection) and tells the controller what
//! happened; the controller owns its *window*: `cwnd` and `ssthresh` in bytes, plus any model it
//! keeps (bandwidth estimate, CUBIC's W_max, BBR's BtlBw/RTprop).
//!
//! Call order per incoming ACK: the endpoint updates RTT estimators, then calls [`on_ack`]
//! exactly once; if that ACK also signals congestion (third duplicate ACK, ECE, partial/full ACK
//! in recovery) it then calls [`on_congestion_event`] or [`on_recovery_exit`]. [`on_rto`] is
//! called when the retransmission timer expires, before the retransmission is sent.
//!
//! Invariants checked by the property tests: `cwnd() >= mss` at all times; `ssthresh() >= 2·mss`
//! after any congestion event; no method panics for any sequence of calls.
//!
//! [`on_ack`]: CongestionControl::on_ack
//! [`on_congestion_event`]: CongestionControl::on_congestion_event
//! [`on_recovery_exit`]: CongestionControl::on_recovery_exit
//! [`on_rto`]: CongestionControl::on_rto

use celltcp_engine::{SimDuration, SimTime};

/// Parameters common to all controllers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcConfig {
    /// Sender maximum segment size, bytes.
    pub mss: u32,
    /// Initial window in segments (RFC 6928 allows up to 10).
    pub initial_window: u32,
    /// Initial ssthresh in bytes (RFC 5681 §3.1: "arbitrarily high"; u64::MAX by default).
    pub initial_ssthresh: u64,
    /// Appropriate Byte Counting limit L in segments (RFC 3465 §2.2); 0 disables ABC, which
    /// then counts one MSS per ACK in slow start as classic Reno does.
    pub abc_limit: u32,
}

impl Default for CcConfig {
    fn default() -> Self {
        CcConfig { mss: 1448, initial_window: 10, initial_ssthresh: u64::MAX, abc_limit: 2 }
    }
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation §3), produced by the
/// endpoint for each ACK that newly delivers data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateSample {
    /// Bits per second delivered over `interval`.
    pub delivery_rate_bps: u64,
    pub interval: SimDuration,
    /// Bytes delivered over `interval`.
    pub delivered: u64,
    /// Total bytes delivered on the connection when the acked packet was sent.
    pub prior_delivered: u64,
    /// The sample was taken while the application did not fill the window.
    pub is_app_limited: bool,
}

/// What one ACK told the sender.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckEvent {
    pub now: SimTime,
    /// Bytes newly acknowledged by this ACK: cumulative advance plus newly SACKed bytes.
    pub acked_bytes: u64,
    /// The ACK acknowledged no new data and carried no new SACK information (RFC 5681 §2).
    pub duplicate: bool,
    /// RTT measured by this ACK (Karn's rule already applied), if any.
    pub rtt_sample: Option<SimDuration>,
    /// Smoothed RTT after this ACK (RFC 6298); zero before the first sample.
    pub srtt: SimDuration,
    /// Minimum RTT seen on the connection; zero before the first sample.
    pub min_rtt: SimDuration,
    /// Bytes in flight before and after this ACK.
    pub prior_in_flight: u64,
    pub bytes_in_flight: u64,
    /// The endpoint is in fast recovery or RTO loss recovery.
    pub in_recovery: bool,
    pub rate_sample: Option<RateSample>,
    /// The sender had less data than the window allowed when the acked data was sent.
    pub app_limited: bool,
}

/// Why the window must shrink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionKind {
    /// Fast retransmit: duplicate-ACK threshold or RFC 6675 loss detection; entering recovery.
    FastRetransmit,
    /// ECN-Echo received (RFC 3168 §6.1.2): reduce as for a loss, at most once per window.
    EcnEcho,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CongestionEvent {
    pub now: SimTime,
    pub kind: CongestionKind,
    /// Bytes in flight when the event was detected (FlightSize of RFC 5681 eq. 4).
    pub bytes_in_flight: u64,
    pub srtt: SimDuration,
    pub min_rtt: SimDuration,
}

/// A retransmission-timer expiry (RFC 6298 §5.5–5.7).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RtoEvent {
    pub now: SimTime,
    pub bytes_in_flight: u64,
    /// 1 for the first expiry of a backoff series, 2 for the next, ...
    pub consecutive: u32,
    pub srtt: SimDuration,
    pub min_rtt: SimDuration,
    /// The RTT samples of the last few ACKs before the expiry, most recent last (PETRA's RTO
    /// procedure tells congestion from wireless loss with them).
    pub recent_rtts: [SimDuration; 4],
}

/// Window state saved before a reduction so that a spurious-retransmission detector (Eifel,
/// RFC 3522; F-RTO, RFC 5682) can undo it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CcSnapshot {
    pub cwnd: u64,
    pub ssthresh: u64,
    /// Controller-specific state (e.g. CUBIC's W_max in bytes); meaning is the controller's own.
    pub extra: u64,
}

pub trait CongestionControl: Send {
    /// Name used in scenario files and traces, e.g. "newreno", "cubic", "petra".
    fn name(&self) -> &'static str;
    /// Congestion window, bytes.
    fn cwnd(&self) -> u64;
    /// Slow-start threshold, bytes.
    fn ssthresh(&self) -> u64;

    /// Every ACK, including duplicates (see the module's call order).
    fn on_ack(&mut self, ack: &AckEvent);
    /// Entering fast recovery or reacting to ECE: set ssthresh and cwnd.
    fn on_congestion_event(&mut self, ev: &CongestionEvent);
    /// Recovery ended with a full ACK (RFC 6582 §3.2 step 3).
    fn on_recovery_exit(&mut self, now: SimTime);
    /// The retransmission timer expired.
    fn on_rto(&mut self, ev: &RtoEvent);

    /// State to restore if the reduction about to happen proves spurious.
    fn snapshot(&self) -> CcSnapshot;
    /// Undo a spurious reduction (Eifel response, RFC 4015 §4; F-RTO, RFC 5682 §3.1).
    fn restore(&mut self, snapshot: &CcSnapshot);

    /// Duplicate ACKs that trigger fast retransmit now (RFC 5681: 3). PETRA lowers it when the
    /// RTT is long.
    fn dupack_threshold(&self, _srtt: SimDuration, _min_rtt: SimDuration) -> u32 {
        3
    }
    /// Pacing rate in bits per second, for controllers that pace (BBR).
    fn pacing_rate_bps(&self) -> Option<u64> {
        None
    }
    /// The controller's bandwidth estimate in bits per second (Westwood+, PETRA, BBR).
    fn bandwidth_estimate_bps(&self) -> Option<u64> {
        None
    }
    /// Controller-specific mode for traces (e.g. BBR "startup"); `None` lets the endpoint
    /// report slow start / congestion avoidance from cwnd and ssthresh.
    fn mode(&self) -> Option<&'static str> {
        None
    }
}
