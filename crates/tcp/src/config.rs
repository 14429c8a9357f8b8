//! Configuration of one TCP endpoint.
//!
//! Defaults follow the RFCs where they prescribe a value and current Linux practice where they
//! leave a choice open (both are stated per field). [`TcpConfig::validate`] is called by the
//! endpoint constructors' callers at the boundary; the endpoint itself clamps nothing silently.

use std::fmt;

use celltcp_engine::SimDuration;
use thiserror::Error;

use crate::cc::CcConfig;

/// Most copies of one ACK that receiver ACK control may send. The seed `004_…` studies one to
/// three; the bound keeps a mistyped value from turning every ACK into a burst on the uplink.
/// Scenario files are checked against the same constant.
pub const MAX_ACK_COPIES: u32 = 16;

/// Largest update window of the ACK-control estimator, segments. The seed `004_…` gives the
/// smoothing gain (1/8) but no averaging period; beyond this a window would span minutes of the
/// seed's 384 kbit/s bearer. Scenario files are checked against the same constant.
pub const MAX_ACK_WINDOW_SEGMENTS: u32 = 65_536;

/// Receiver ACK control of the seed `004_…` (Miyoshi, Sugano & Murata, "Performance
/// improvement of TCP in wireless cellular network based on acknowledgement control"): while the
/// receiver's estimate of the radio loss rate, p_err = 1 − sqrt((1 − p)/(1 − p_buff)), is at or
/// above `threshold`, each ACK is sent `copies` times (so `threshold = 0` sends every ACK
/// `copies` times). The estimate is kept per receiving host: the flows to one host that enable
/// this share it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(default, deny_unknown_fields)
)]
pub struct AckControlConfig {
    /// Switch the mechanism on; when false every ACK is sent once.
    pub enabled: bool,
    /// Copies of each ACK while the estimate is at or above `threshold` (1 to 16,
    /// `MAX_ACK_COPIES`).
    #[cfg_attr(feature = "serde", schemars(range(min = 1, max = MAX_ACK_COPIES)))]
    pub copies: u32,
    /// Estimated radio loss rate p_err at or above which copies are sent, in [0, 1].
    #[cfg_attr(feature = "serde", schemars(range(min = 0.0, max = 1.0)))]
    pub threshold: f64,
    /// Assumed loss rate in the wired buffer, p_buff, in [0, 1) (a given parameter of the seed).
    #[cfg_attr(feature = "serde", schemars(range(min = 0.0, max = 1.0)))]
    pub p_buff: f64,
    /// Update window of the estimator, in expected segments (received plus detected missing):
    /// the loss ratio of each window is smoothed with gain 1/8. 1 to 65 536
    /// (`MAX_ACK_WINDOW_SEGMENTS`); the seed gives the gain but no period, 32 is this model's
    /// choice (about a tenth of a second of the seed's 384 kbit/s bearer with 100-byte
    /// segments).
    #[cfg_attr(
        feature = "serde",
        schemars(range(min = 1, max = MAX_ACK_WINDOW_SEGMENTS))
    )]
    pub window_segments: u32,
}

impl Default for AckControlConfig {
    fn default() -> Self {
        AckControlConfig {
            enabled: false,
            copies: 2,
            threshold: 0.1,
            p_buff: 0.01,
            window_segments: 32,
        }
    }
}

/// Everything that parameterises a [`TcpEndpoint`](crate::TcpEndpoint), and the keys of a TCP
/// endpoint in scenario files (`[flows.NAME.tcp]`), where every key is optional.
///
/// With the `serde` feature the type (de)serialises in the file's form: times as integer
/// nanoseconds and sizes as integer bytes, each such key marked in the JSON Schema with
/// `"x-unit"` (`"time"`, `"size"`, or `"time-or-false"` for a timer that `false` switches off),
/// so that a file layer can read and write them with units (`"200ms"`, `"4MB"`). Fields that
/// are not keys (the clock granularity, the timestamp tick, the ISN, TIME-WAIT) are skipped.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(default, deny_unknown_fields)
)]
pub struct TcpConfig {
    /// Sender maximum segment size, payload bytes (RFC 9293 §3.7.1): a size, 88B (Linux's
    /// `TCP_MIN_MSS`) to 65495B (65535 less the IPv4 and TCP headers).
    #[cfg_attr(feature = "serde", schemars(extend("x-unit" = "size")))]
    pub mss: u32,
    /// Initial window in segments (RFC 6928 allows up to 10; 1 to 100 accepted); passed to the
    /// controller.
    #[cfg_attr(feature = "serde", schemars(range(min = 1, max = MAX_INITIAL_WINDOW)))]
    pub initial_window: u32,
    /// RTO before the first RTT sample (RFC 6298 §2.1: 1 s); between min_rto and max_rto.
    #[cfg_attr(
        feature = "serde",
        serde(with = "nanos"),
        schemars(with = "u64", extend("x-unit" = "time"))
    )]
    pub initial_rto: SimDuration,
    /// Lower bound of the RTO (RFC 6298 §2.4: 1 s; Linux: 200 ms); > 0.
    #[cfg_attr(
        feature = "serde",
        serde(with = "nanos"),
        schemars(with = "u64", extend("x-unit" = "time"))
    )]
    pub min_rto: SimDuration,
    /// Upper bound of the RTO, also the cap of the exponential backoff (RFC 6298 §2.5: at least
    /// 60 s); ≥ min_rto.
    #[cfg_attr(
        feature = "serde",
        serde(with = "nanos"),
        schemars(with = "u64", extend("x-unit" = "time"))
    )]
    pub max_rto: SimDuration,
    /// min_rto bounds the variance term instead of the whole RTO, as Linux: RTO = SRTT +
    /// max(min_rto, 4·RTTVAR) (`tcp_set_rto`; `rttvar_us` is at least `tcp_rto_min`), not RFC
    /// 6298 (2.4)'s max(min_rto, SRTT + 4·RTTVAR). Off by default.
    pub min_rto_bounds_variance: bool,
    /// Clock granularity G of the RTO computation (RFC 6298 §2): RTO = SRTT + max(G, K·RTTVAR).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub clock_granularity: SimDuration,
    /// Delayed-ACK timer (RFC 5681 §4.2: at least 1 ms here, and below 500 ms), or false for an
    /// ACK per segment (`None`). Linux's `TCP_DELACK_MIN`: 40 ms.
    #[cfg_attr(
        feature = "serde",
        serde(with = "nanos_or_false"),
        schemars(with = "Option<u64>", extend("x-unit" = "time-or-false"))
    )]
    pub delayed_ack: Option<SimDuration>,
    /// Full-sized segments received before an ACK is due (RFC 5681 §4.2: at least every 2nd);
    /// 1 to 16.
    #[cfg_attr(feature = "serde", schemars(range(min = 1, max = MAX_DELACK_SEGMENTS)))]
    pub delack_segments: u32,
    /// Quick ACKs at the start: each of the first `quick_acks` in-order data segments is
    /// acknowledged at once, whatever `delayed_ack` and `delack_segments` say; 0 (the default,
    /// RFC 5681 §4.2's delayed ACK from the first segment) turns it off. Linux's receiver
    /// starts in quick-ACK mode (`tcp_event_data_recv`: `tcp_incr_quickack` at the first data
    /// segment, up to `TCP_MAX_QUICKACKS` = 16 ACKs) and keeps earning one more for every
    /// segment that still opens its receive window (`tcp_grow_window`: `icsk_ack.quick |= 1`
    /// while `rcv_ssthresh` is below the window clamp), so with a large receive buffer it
    /// acknowledges every segment of the initial slow start. At most 2^20.
    #[cfg_attr(feature = "serde", schemars(range(min = 0, max = MAX_QUICK_ACKS)))]
    pub quick_acks: u32,
    /// Appropriate Byte Counting limit L in segments (RFC 3465 §2.2): 0 (off), 1 or 2; passed
    /// to the controller.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "abc"),
        schemars(range(min = 0, max = 2))
    )]
    pub abc_limit: u32,
    /// Leave slow start on a rising RTT before the first loss: HyStart++ (RFC 9406) for
    /// `cubic`, Linux's HyStart for `cubic-linux`; on by default for both. Other controllers
    /// have none and ignore it. Omitted (`None`): the controller's default
    /// (`cc::CcConfig::hystart`).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub hystart: Option<bool>,
    /// `cubic-linux`'s HyStart as Linux runs it for a paced socket: the ACK-train test waits
    /// for a train of delay_min + `hystart_ack_delay` instead of half of it (`tcp_cubic.c`
    /// `hystart_update` halves the threshold only when `sk_pacing_status` is `SK_PACING_NONE`).
    /// Linux paces a socket for the `fq` queueing discipline, for BBR, and for a socket that
    /// BBR initialised before `TCP_CONGESTION` switched it to CUBIC (`bbr_init` sets
    /// `SK_PACING_NEEDED`, which nothing clears), as on a host whose default controller is
    /// BBR. celltcp does not pace CUBIC; only the threshold changes. Off by default.
    pub hystart_paced: bool,
    /// Selective acknowledgements (RFC 2018) and SACK-based loss recovery (RFC 6675).
    pub sack: bool,
    /// Timestamps option (RFC 7323 §3–4).
    pub timestamps: bool,
    /// Tick of the timestamp clock (RFC 7323 §5.4: 1 ms to 1 s per tick).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub ts_tick: SimDuration,
    /// Window scale option (RFC 7323 §2); the shift is derived from rcv_buf.
    pub window_scale: bool,
    /// Limited transmit (RFC 3042) on the first two duplicate ACKs.
    pub limited_transmit: bool,
    /// Explicit Congestion Notification (RFC 3168).
    pub ecn: bool,
    /// F-RTO detection of spurious timeouts (RFC 5682); the SACK-enhanced variant when SACK is
    /// negotiated.
    pub frto: bool,
    /// F-RTO also at a repeated timeout of the same segment, as Linux since its RFC 5682
    /// implementation (3.10): `tcp_enter_loss` sets `tp->frto` when `new_recovery ||
    /// icsk_retransmits`, "except recurring timeout(s) on the same SND.UNA". RFC 5682 §2.1 step
    /// 1 continues a timeout that hits an RTO recovery in progress conventionally, so a delay
    /// longer than RTO + 2·RTO (an outage) ends in go-back-N. Off by default; needs frto.
    pub frto_after_repeated_rto: bool,
    /// A timeout during fast recovery leaves ssthresh as that recovery set it, as Linux's
    /// `tcp_enter_loss` ("Reduce ssthresh if it has not yet been made inside this window":
    /// not in Recovery while SND.UNA is below its recovery point); cwnd still falls to the loss
    /// window. RFC 5681 §3.1 halves the FlightSize again. The controller hears the expiry as
    /// a repeated one (`RtoEvent::consecutive` ≥ 2), the case in which RFC 5681 §3.1 holds
    /// ssthresh. Off by default.
    pub rto_keeps_recovery_ssthresh: bool,
    /// Proportional Rate Reduction (RFC 6937) in SACK-based fast recovery, with Linux's bound
    /// (`tcp_cwnd_reduction`: the slow-start reduction bound, plus one segment only when the ACK
    /// advanced SND.UNA and marked nothing newly lost); needs sack. Off by default: the sender
    /// then sends when the pipe falls below the controller's reduced cwnd (RFC 6675 §5). BBR
    /// keeps its own recovery window.
    pub prr: bool,
    /// Eifel detection of spurious timeouts (RFC 3522) with the Eifel response (RFC 4015);
    /// needs timestamps.
    pub eifel: bool,
    /// During fast recovery and RTO recovery with SACK, a retransmission that later
    /// transmissions overtook is lost and sent again (RACK's rule, RFC 8985 §6.2, see
    /// `crate::rack`). On by default, as Linux; off, such a retransmission waits for a timeout.
    pub detect_lost_retransmissions: bool,
    /// Tail Loss Probe (RFC 8985 §7, see `crate::tlp`): when no ACK has come 2·SRTT after the
    /// last transmission (plus 200 ms with one segment in flight, at most the RTO), send one
    /// probe, new data or the last segment again, so that a loss at the tail of a flight is
    /// repaired by fast recovery instead of a timeout; needs SACK negotiated. Off by default:
    /// the studies' set-ups come from ns-2 and ns-3 TCPs, which have no TLP; Linux enables it
    /// (`net.ipv4.tcp_early_retrans` = 3).
    // Written only when on, so that the echo of a scenario (and the outputs it is part of)
    // reads as before the option existed; the schema still states the default.
    #[cfg_attr(
        feature = "serde",
        serde(skip_serializing_if = "is_false"),
        schemars(extend("default" = false))
    )]
    pub tlp: bool,
    /// React to Explicit Loss Notification (Balakrishnan & Katz 1998; docs/middleboxes.md): a
    /// fast retransmit or timeout for a hole an ELN-marked ACK reports retransmits without
    /// reducing cwnd or ssthresh. Off by default (the mark is not standardised).
    pub eln: bool,
    /// Receive buffer, bytes: bounds the advertised window. A size, at least mss, at most 1GiB
    /// (the largest window of RFC 7323 §2.3). 4MB by default, this model's choice: above the
    /// bandwidth-delay product of every link the studies use.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "rcv_buf"),
        schemars(extend("x-unit" = "size"))
    )]
    pub rcv_buf_bytes: u64,
    /// Send buffer, bytes: bounds written but unacknowledged data. A size, at least mss; 4MB
    /// by default, as rcv_buf.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "snd_buf"),
        schemars(extend("x-unit" = "size"))
    )]
    pub snd_buf_bytes: u64,
    /// Duplicate ACKs that trigger fast retransmit, DupThresh (RFC 5681 §3.2: 3); ≥ 1. The
    /// controller's `dupack_threshold` is used instead when it returns a different value.
    #[cfg_attr(feature = "serde", schemars(range(min = 1)))]
    pub dupack_threshold: u32,
    /// Receiver ACK copies: each ACK is sent `copies` times while the estimated radio loss rate
    /// is at or above `threshold`.
    pub ack_copies: AckControlConfig,
    /// Initial send sequence number (RFC 9293 §3.4.1 picks it from a clock; fixed here so that
    /// runs are reproducible and wrap-around can be tested).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub isn: u32,
    /// Duration of TIME-WAIT (RFC 9293: 2·MSL = 4 min; short by default in simulations).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub time_wait: SimDuration,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1448,
            initial_window: 10,
            initial_rto: SimDuration::from_secs(1),
            min_rto: SimDuration::from_ms(200),
            max_rto: SimDuration::from_secs(60),
            min_rto_bounds_variance: false,
            clock_granularity: SimDuration::from_ms(1),
            delayed_ack: Some(SimDuration::from_ms(40)),
            delack_segments: 2,
            quick_acks: 0,
            abc_limit: 2,
            hystart: None,
            hystart_paced: false,
            sack: true,
            timestamps: true,
            ts_tick: SimDuration::from_ms(1),
            window_scale: true,
            limited_transmit: true,
            ecn: false,
            frto: false,
            frto_after_repeated_rto: false,
            rto_keeps_recovery_ssthresh: false,
            prr: false,
            eifel: false,
            detect_lost_retransmissions: true,
            tlp: false,
            eln: false,
            rcv_buf_bytes: 4_000_000,
            snd_buf_bytes: 4_000_000,
            dupack_threshold: 3,
            ack_copies: AckControlConfig::default(),
            isn: 0,
            time_wait: SimDuration::from_secs(1),
        }
    }
}

/// Smallest MSS accepted, bytes (Linux's `TCP_MIN_MSS`).
pub const MIN_MSS: u32 = 88;
/// Largest MSS accepted, bytes: 65535 − 20 (IPv4 header) − 20 (TCP header).
pub const MAX_MSS: u32 = 65_495;
/// Largest initial window accepted, segments. RFC 6928 allows 10; more is for experiments.
pub const MAX_INITIAL_WINDOW: u32 = 100;
/// Most full-sized segments per delayed ACK accepted (RFC 5681 §4.2 says every second one).
pub const MAX_DELACK_SEGMENTS: u32 = 16;
/// Most quick ACKs accepted (`TcpConfig::quick_acks`): a million segments, more than any
/// slow start here; the bound only catches a mistyped value.
pub const MAX_QUICK_ACKS: u32 = 1 << 20;
/// Largest receive buffer, bytes: the largest window with scaling (RFC 7323 §2.3), 2^30.
pub const MAX_RCV_BUF: u64 = 1 << 30;
/// Shortest delayed-ACK timer accepted.
pub const DELAYED_ACK_MIN: SimDuration = SimDuration::from_ms(1);
/// The delayed-ACK timer must be below this (RFC 5681 §4.2: "MUST be less than 0.5 seconds").
pub const DELAYED_ACK_LIMIT: SimDuration = SimDuration::from_ms(500);

/// A configuration value out of its allowed range, or two settings that do not go together.
/// `field` is the key as in scenario files (`min_rto`, `ack_copies.copies`); `message` names
/// the value and what is expected, so that `"{field}: {message}"` reads as one sentence.
#[derive(Clone, Debug, Error, PartialEq)]
#[error("{field}: {message}")]
pub struct TcpConfigError {
    pub field: &'static str,
    pub message: String,
}

fn check(
    ok: bool,
    field: &'static str,
    message: impl FnOnce() -> String,
) -> Result<(), TcpConfigError> {
    if ok {
        Ok(())
    } else {
        Err(TcpConfigError {
            field,
            message: message(),
        })
    }
}

fn out_of_range(value: impl fmt::Display, expected: &str) -> String {
    format!("{value} is out of range; expected {expected}")
}

/// A probability: a number in [0, 1] (NaN is not).
fn probability(p: f64, field: &'static str) -> Result<(), TcpConfigError> {
    check((0.0..=1.0).contains(&p), field, || {
        format!("{p} is not a probability; expected a number in [0, 1]")
    })
}

impl AckControlConfig {
    /// Checks every field; the keys are named as in scenario files (`ack_copies.copies`).
    pub fn validate(&self) -> Result<(), TcpConfigError> {
        check(
            (1..=MAX_ACK_COPIES).contains(&self.copies),
            "ack_copies.copies",
            || out_of_range(self.copies, ACK_COPIES_EXPECTED),
        )?;
        probability(self.threshold, "ack_copies.threshold")?;
        probability(self.p_buff, "ack_copies.p_buff")?;
        // p_err = 1 − sqrt((1 − p)/(1 − p_buff)) divides by 1 − p_buff.
        check(self.p_buff < 1.0, "ack_copies.p_buff", || {
            out_of_range(self.p_buff, "a number in [0, 1)")
        })?;
        check(
            (1..=MAX_ACK_WINDOW_SEGMENTS).contains(&self.window_segments),
            "ack_copies.window_segments",
            || out_of_range(self.window_segments, "1 to 65536 segments"),
        )
    }
}

/// What `ack_copies.copies` must be; states [`MAX_ACK_COPIES`] (a test pins the two together).
const ACK_COPIES_EXPECTED: &str = "1 to 16";

impl TcpConfig {
    /// Checks every field against the range the RFCs and this model allow; values with a unit
    /// are shown in the engine's form (`0.200000000s`, `1448B`).
    pub fn validate(&self) -> Result<(), TcpConfigError> {
        self.validate_showing(&|field| self.shown(field))
    }

    /// [`TcpConfig::validate`], with the values of the keys that carry a unit (`mss`, the RTO
    /// bounds, `delayed_ack`, the buffers) shown by `shown(key)`: a file layer passes the text
    /// as written (`'0.2s' is below min_rto ('200ms')`).
    pub fn validate_showing(
        &self,
        shown: &dyn Fn(&'static str) -> String,
    ) -> Result<(), TcpConfigError> {
        check((MIN_MSS..=MAX_MSS).contains(&self.mss), "mss", || {
            out_of_range(
                format!("'{}'", shown("mss")),
                &format!("{MIN_MSS}B to {MAX_MSS}B"),
            )
        })?;
        check(
            (1..=MAX_INITIAL_WINDOW).contains(&self.initial_window),
            "initial_window",
            || {
                out_of_range(
                    self.initial_window,
                    &format!("1 to {MAX_INITIAL_WINDOW} segments (RFC 6928 allows up to 10)"),
                )
            },
        )?;
        check(self.min_rto.0 > 0, "min_rto", || {
            format!("'{}' must be > 0", shown("min_rto"))
        })?;
        check(self.max_rto >= self.min_rto, "max_rto", || {
            format!(
                "'{}' is below min_rto ('{}')",
                shown("max_rto"),
                shown("min_rto")
            )
        })?;
        check(
            self.min_rto <= self.initial_rto && self.initial_rto <= self.max_rto,
            "initial_rto",
            || {
                format!(
                    "'{}' is outside [min_rto, max_rto] = ['{}', '{}']",
                    shown("initial_rto"),
                    shown("min_rto"),
                    shown("max_rto")
                )
            },
        )?;
        check(self.ts_tick.0 > 0, "ts_tick", || {
            format!("{} must be > 0", self.ts_tick)
        })?;
        if let Some(d) = self.delayed_ack {
            check(
                DELAYED_ACK_MIN <= d && d < DELAYED_ACK_LIMIT,
                "delayed_ack",
                || {
                    out_of_range(
                        format!("'{}'", shown("delayed_ack")),
                        "at least 1ms and below 500ms (RFC 5681 §4.2), or false",
                    )
                },
            )?;
        }
        check(
            (1..=MAX_DELACK_SEGMENTS).contains(&self.delack_segments),
            "delack_segments",
            || out_of_range(self.delack_segments, "1 to 16 segments"),
        )?;
        check(self.quick_acks <= MAX_QUICK_ACKS, "quick_acks", || {
            out_of_range(self.quick_acks, "0 to 1048576 segments")
        })?;
        check(self.abc_limit <= 2, "abc", || {
            out_of_range(self.abc_limit, "0 (off), 1 or 2 (RFC 3465 §2.2)")
        })?;
        let mss = self.mss;
        check(
            self.rcv_buf_bytes >= mss as u64 && self.rcv_buf_bytes <= MAX_RCV_BUF,
            "rcv_buf",
            || {
                out_of_range(
                    format!("'{}'", shown("rcv_buf")),
                    &format!("at least mss ({mss}B) and at most 1GiB (RFC 7323 §2.3)"),
                )
            },
        )?;
        check(self.snd_buf_bytes >= mss as u64, "snd_buf", || {
            out_of_range(
                format!("'{}'", shown("snd_buf")),
                &format!("at least mss ({mss}B)"),
            )
        })?;
        check(self.dupack_threshold >= 1, "dupack_threshold", || {
            out_of_range(self.dupack_threshold, "an integer ≥ 1 (RFC 5681: 3)")
        })?;
        check(
            self.frto || !self.frto_after_repeated_rto,
            "frto_after_repeated_rto",
            || "true needs F-RTO; set frto = true".to_owned(),
        )?;
        check(self.sack || !self.prr, "prr", || {
            "true needs SACK (RFC 6937 counts SACKed data as delivered); set sack = true".to_owned()
        })?;
        check(self.timestamps || !self.eifel, "eifel", || {
            "Eifel detection needs timestamps (RFC 3522 §2); set timestamps = true".to_owned()
        })?;
        self.ack_copies.validate()
    }

    /// The value of a key with a unit in the engine's form, for [`TcpConfig::validate`].
    fn shown(&self, field: &'static str) -> String {
        match field {
            "mss" => format!("{}B", self.mss),
            "rcv_buf" => format!("{}B", self.rcv_buf_bytes),
            "snd_buf" => format!("{}B", self.snd_buf_bytes),
            "initial_rto" => self.initial_rto.to_string(),
            "min_rto" => self.min_rto.to_string(),
            "max_rto" => self.max_rto.to_string(),
            "delayed_ack" => self
                .delayed_ack
                .map_or("false".to_owned(), |d| d.to_string()),
            other => other.to_owned(),
        }
    }

    /// The controller's parameters implied by this configuration.
    pub fn cc_config(&self) -> CcConfig {
        CcConfig {
            mss: self.mss,
            initial_window: self.initial_window,
            initial_ssthresh: u64::MAX,
            abc_limit: self.abc_limit,
            hystart: self.hystart,
            hystart_paced: self.hystart_paced,
        }
    }

    /// Window-scale shift announced for `rcv_buf_bytes`: the smallest shift such that the
    /// buffer fits the 16-bit window field, at most 14 (RFC 7323 §2.3).
    pub fn rcv_wscale(&self) -> u8 {
        let mut shift = 0u8;
        while shift < 14 && (self.rcv_buf_bytes >> shift) > 65_535 {
            shift += 1;
        }
        shift
    }
}

/// A switch that the serialised form omits while off.
#[cfg(feature = "serde")]
fn is_false(on: &bool) -> bool {
    !*on
}

#[cfg(feature = "serde")]
use celltcp_engine::serde_nanos as nanos;

/// A timer that `false` switches off: `false`, or integer nanoseconds.
#[cfg(feature = "serde")]
mod nanos_or_false {
    use std::fmt;

    use celltcp_engine::SimDuration;
    use serde::de::{self, Visitor};
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Option<SimDuration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_u64(d.as_ns()),
            None => s.serialize_bool(false),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SimDuration>, D::Error> {
        d.deserialize_any(TimerVisitor)
    }

    struct TimerVisitor;

    impl Visitor<'_> for TimerVisitor {
        type Value = Option<SimDuration>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a time in nanoseconds, or false")
        }

        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            if v {
                Err(E::custom("true is not allowed; use a time, or false"))
            } else {
                Ok(None)
            }
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(SimDuration(v)))
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            u64::try_from(v)
                .map(|v| Some(SimDuration(v)))
                .map_err(|_| E::custom(format!("{v} is negative; a time must be ≥ 0")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        TcpConfig::default().validate().unwrap();
        assert_eq!(TcpConfig::default().rcv_wscale(), 6); // 4 MB >> 6 = 62500
    }

    #[test]
    fn out_of_range_values_name_the_field() {
        let cfg = TcpConfig {
            delayed_ack: Some(SimDuration::from_ms(600)),
            ..Default::default()
        };
        let e = cfg.validate().unwrap_err();
        assert!(e.to_string().starts_with("delayed_ack:"), "{e}");
        let cfg = TcpConfig {
            mss: 10,
            ..Default::default()
        };
        assert!(cfg.validate().unwrap_err().to_string().starts_with("mss:"));
        let mut cfg = TcpConfig::default();
        cfg.ack_copies.p_buff = 1.0;
        assert!(cfg.validate().is_err());
    }

    #[test]
    fn ack_copies_are_bounded_by_one_constant() {
        let with_copies = |copies| {
            let mut cfg = TcpConfig::default();
            cfg.ack_copies.copies = copies;
            cfg.validate()
        };
        with_copies(1).unwrap();
        with_copies(MAX_ACK_COPIES).unwrap();
        for bad in [0, MAX_ACK_COPIES + 1] {
            let e = with_copies(bad).unwrap_err().to_string();
            assert_eq!(
                e,
                format!("ack_copies.copies: {bad} is out of range; expected 1 to {MAX_ACK_COPIES}")
            );
        }
    }

    #[test]
    fn ack_window_is_bounded_by_one_constant() {
        let with_window = |w| {
            let mut cfg = TcpConfig::default();
            cfg.ack_copies.window_segments = w;
            cfg.validate()
        };
        with_window(1).unwrap();
        with_window(MAX_ACK_WINDOW_SEGMENTS).unwrap();
        for bad in [0, MAX_ACK_WINDOW_SEGMENTS + 1] {
            assert_eq!(
                with_window(bad).unwrap_err().to_string(),
                format!(
                    "ack_copies.window_segments: {bad} is out of range; expected 1 to {MAX_ACK_WINDOW_SEGMENTS} segments"
                )
            );
        }
    }

    #[test]
    fn small_buffers_need_no_scaling() {
        let cfg = TcpConfig {
            rcv_buf_bytes: 65_535,
            ..Default::default()
        };
        assert_eq!(cfg.rcv_wscale(), 0);
        let cfg = TcpConfig {
            rcv_buf_bytes: 65_536,
            ..Default::default()
        };
        assert_eq!(cfg.rcv_wscale(), 1);
    }
}
