//! TCP flows (`kind = "tcp"`): congestion controller, application and endpoint settings.

use std::borrow::Cow;
use std::fmt;

use celltcp_engine::SimDuration;
use celltcp_tcp::config::{MAX_ACK_COPIES, MAX_ACK_WINDOW_SEGMENTS};
use celltcp_tcp::AckControlConfig;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::apps::{AppFile, AppSpec};
use super::flows::zero_start;
use super::quantity::{Quantity, Size, Time};
use crate::error::join_key;
use crate::validate::{positive_time, unit_interval};
use crate::ScenarioError;

/// A TCP flow (`kind = "tcp"`): data flows from `src` (the TCP sender) to `dst`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpFlowFile {
    /// Sending host (TCP active opener and data sender).
    pub src: String,
    /// Receiving host.
    pub dst: String,
    /// When the sender connects (a time, before the end of the run).
    #[serde(default = "zero_start")]
    pub start: Quantity<Time>,
    /// When the application stops sending (a time, after start, at most the run's duration);
    /// end of run by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Quantity<Time>>,
    /// Congestion controller.
    pub cc: CcAlgorithm,
    /// Application at the sender.
    pub app: AppFile,
    /// Endpoint settings; every key is optional.
    #[serde(default)]
    pub tcp: TcpFile,
    /// Source port; 49152 + i for the i-th flow in name order by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub src_port: Option<u16>,
    /// Destination port; 5001 + i for the i-th flow in name order by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub dst_port: Option<u16>,
}

/// Congestion control algorithms, by the name `celltcp_tcp::cc::build` takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CcAlgorithm {
    /// Reno (RFC 5681) without NewReno's partial-ACK handling.
    Reno,
    /// NewReno (RFC 6582).
    #[serde(rename = "newreno")]
    NewReno,
    /// CUBIC (RFC 9438).
    Cubic,
    /// CUBIC as Linux's `tcp_cubic.c` runs it (Reno-friendly increase, target horizon).
    #[serde(rename = "cubic-linux")]
    CubicLinux,
    /// BBR (v1, draft-cardwell-iccrg-bbr-congestion-control).
    Bbr,
    /// Vegas (Brakmo & Peterson 1995).
    Vegas,
    /// Westwood+ (Mascolo et al.; Grieco & Mascolo 2004): one bandwidth sample per RTT.
    Westwood,
    /// The original Westwood (Mascolo et al., MobiCom 2001) as ns-3's `TcpWestwood` runs it:
    /// per-ACK samples, Tustin filter, Reno recovery.
    #[serde(rename = "westwood-original")]
    WestwoodOriginal,
    /// PETRA, the loss-differentiating controller for LTE described in docs/petra.md.
    Petra,
}

impl CcAlgorithm {
    /// The name in scenario files and in `celltcp_tcp::cc::build`.
    pub fn name(self) -> &'static str {
        match self {
            CcAlgorithm::Reno => "reno",
            CcAlgorithm::NewReno => "newreno",
            CcAlgorithm::Cubic => "cubic",
            CcAlgorithm::CubicLinux => "cubic-linux",
            CcAlgorithm::Bbr => "bbr",
            CcAlgorithm::Vegas => "vegas",
            CcAlgorithm::Westwood => "westwood",
            CcAlgorithm::WestwoodOriginal => "westwood-original",
            CcAlgorithm::Petra => "petra",
        }
    }
}

/// `[flows.NAME.tcp]`: TCP endpoint settings; every key has a default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TcpFile {
    /// Sender maximum segment size (a size, 88B to 65495B).
    pub mss: Quantity<Size>,
    /// Initial window in segments (RFC 6928 allows up to 10; 1 to 100 accepted).
    #[schemars(range(min = 1, max = 100))]
    pub initial_window: u32,
    /// RTO before the first RTT sample (RFC 6298 §2.1: 1 s); between min_rto and max_rto.
    pub initial_rto: Quantity<Time>,
    /// Lower bound of the RTO (RFC 6298 §2.4: 1 s; Linux: 200 ms); > 0.
    pub min_rto: Quantity<Time>,
    /// Upper bound of the RTO (RFC 6298 §2.5: at least 60 s).
    pub max_rto: Quantity<Time>,
    /// min_rto bounds the variance term, RTO = SRTT + max(min_rto, 4·RTTVAR), as Linux
    /// (`tcp_set_rto`), instead of the whole RTO (RFC 6298 §2.4).
    pub min_rto_bounds_variance: bool,
    /// Delayed-ACK timer (a time from 1ms to below 500ms, RFC 5681 §4.2), or false for an ACK
    /// per segment.
    pub delayed_ack: DelayedAckFile,
    /// Full-sized segments per delayed ACK (RFC 5681 §4.2: 2); 1 to 16.
    #[schemars(range(min = 1, max = 16))]
    pub delack_segments: u32,
    /// Appropriate Byte Counting limit L in segments (RFC 3465): 0 (off), 1 or 2.
    #[schemars(range(min = 0, max = 2))]
    pub abc: u32,
    /// Leave slow start on a rising RTT before the first loss: HyStart++ (RFC 9406) for
    /// `cubic`, Linux's HyStart for `cubic-linux`; on by default for both. Other controllers
    /// have none and ignore it. Omitted: the controller's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hystart: Option<bool>,
    /// Selective acknowledgements (RFC 2018) and SACK-based recovery (RFC 6675).
    pub sack: bool,
    /// Timestamps option (RFC 7323 §3).
    pub timestamps: bool,
    /// Window scale option (RFC 7323 §2).
    pub window_scale: bool,
    /// Limited transmit (RFC 3042).
    pub limited_transmit: bool,
    /// Explicit Congestion Notification (RFC 3168).
    pub ecn: bool,
    /// F-RTO spurious timeout detection (RFC 5682).
    pub frto: bool,
    /// F-RTO also after a repeated timeout of one episode, as Linux's `tcp_enter_loss` (RFC
    /// 5682 §2.1 enters it at the first timeout only); needs `frto`.
    pub frto_after_repeated_rto: bool,
    /// A timeout during fast recovery keeps the ssthresh that recovery set, as Linux's
    /// `tcp_enter_loss` (RFC 5681 §3.1 halves the flight again); cwnd still falls to 1 MSS.
    pub rto_keeps_recovery_ssthresh: bool,
    /// Proportional Rate Reduction (RFC 6937) in SACK fast recovery, with Linux's bound; needs
    /// `sack`. BBR keeps its own recovery window.
    pub prr: bool,
    /// Eifel detection (RFC 3522) with the Eifel response (RFC 4015); needs timestamps.
    pub eifel: bool,
    /// During fast recovery and RTO recovery with SACK, resend a retransmission that later
    /// transmissions overtook (RACK's rule, RFC 8985 §6.2, as Linux) instead of waiting for a
    /// timeout.
    pub detect_lost_retransmissions: bool,
    /// React to Explicit Loss Notification (docs/middleboxes.md): a fast retransmit or timeout
    /// for a hole an ELN-marked ACK reports retransmits without reducing the window.
    pub eln: bool,
    /// Receive buffer (a size, at least mss, at most 1GiB, the largest window of RFC 7323 §2.3).
    pub rcv_buf: Quantity<Size>,
    /// Send buffer (a size, at least mss).
    pub snd_buf: Quantity<Size>,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681 §3.2: 3); ≥ 1.
    #[schemars(range(min = 1))]
    pub dupack_threshold: u32,
    /// Receiver ACK copies: each ACK is sent `copies` times while the estimated radio loss rate
    /// is at or above `threshold`.
    pub ack_copies: AckCopiesFile,
}

impl Default for TcpFile {
    fn default() -> Self {
        TcpFile {
            mss: Quantity::default_of("1448B"),
            initial_window: 10,
            initial_rto: Quantity::default_of("1s"),
            min_rto: Quantity::default_of("200ms"),
            max_rto: Quantity::default_of("60s"),
            min_rto_bounds_variance: false,
            delayed_ack: DelayedAckFile::After(Quantity::default_of("40ms")),
            delack_segments: 2,
            abc: 2,
            hystart: None,
            sack: true,
            timestamps: true,
            window_scale: true,
            limited_transmit: true,
            ecn: false,
            frto: false,
            frto_after_repeated_rto: false,
            rto_keeps_recovery_ssthresh: false,
            prr: false,
            eifel: false,
            detect_lost_retransmissions: true,
            eln: false,
            rcv_buf: Quantity::default_of("4MB"),
            snd_buf: Quantity::default_of("4MB"),
            dupack_threshold: 3,
            ack_copies: AckCopiesFile::default(),
        }
    }
}

/// Receiver ACK copies (Miyoshi, Sugano & Murata, "Performance improvement of TCP in wireless
/// cellular network based on acknowledgement control"): while the receiver's estimate of the
/// radio loss rate, p_err = 1 − sqrt((1 − p)/(1 − p_buff)), is at or above `threshold`, each ACK
/// is sent `copies` times (so `threshold = 0` sends every ACK `copies` times). The estimate is
/// kept per receiving host: the flows to one host that enable this share it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct AckCopiesFile {
    /// Switch the mechanism on.
    pub enabled: bool,
    /// Copies of each ACK while active (1 to 16, `celltcp_tcp::config::MAX_ACK_COPIES`).
    #[schemars(range(min = 1, max = MAX_ACK_COPIES))]
    pub copies: u32,
    /// Estimated radio loss rate p_err at or above which copies are sent, in [0, 1].
    #[schemars(range(min = 0.0, max = 1.0))]
    pub threshold: f64,
    /// Assumed loss rate in the wired buffer, p_buff, in [0, 1).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub p_buff: f64,
    /// Update window of the estimator, in expected segments (received + missing): the loss
    /// ratio of each window is smoothed with gain 1/8. 1 to 65 536; the seed gives the gain
    /// but no period, 32 is this model's choice.
    #[schemars(range(min = 1, max = MAX_ACK_WINDOW_SEGMENTS))]
    pub window_segments: u32,
}

impl Default for AckCopiesFile {
    fn default() -> Self {
        AckCopiesFile {
            enabled: false,
            copies: 2,
            threshold: 0.1,
            p_buff: 0.01,
            window_segments: AckControlConfig::default().window_segments,
        }
    }
}

/// `delayed_ack`: a time, or `false`.
#[derive(Clone, Debug, PartialEq)]
pub enum DelayedAckFile {
    Off,
    After(Quantity<Time>),
}

impl Serialize for DelayedAckFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            DelayedAckFile::Off => s.serialize_bool(false),
            DelayedAckFile::After(q) => q.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for DelayedAckFile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(DelayedAckVisitor)
    }
}

struct DelayedAckVisitor;

impl Visitor<'_> for DelayedAckVisitor {
    type Value = DelayedAckFile;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a time like '40ms', or false")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<DelayedAckFile, E> {
        if v {
            Err(E::custom(
                "true is not allowed; use a time like '40ms', or false",
            ))
        } else {
            Ok(DelayedAckFile::Off)
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<DelayedAckFile, E> {
        Quantity::parse(v)
            .map(DelayedAckFile::After)
            .map_err(E::custom)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<DelayedAckFile, E> {
        Err(E::custom(crate::units::time_missing_unit(&v.to_string())))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<DelayedAckFile, E> {
        Err(E::custom(crate::units::time_missing_unit(&v.to_string())))
    }
}

impl JsonSchema for DelayedAckFile {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("DelayedAck")
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let time = generator.subschema_for::<Quantity<Time>>();
        json_schema!({
            "description": "Delayed-ACK timer (a time), or false to acknowledge every segment.",
            "anyOf": [time, { "const": false }],
        })
    }
}

/// A TCP flow: controller, application and endpoint settings.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpFlow {
    pub cc: CcAlgorithm,
    pub app: AppSpec,
    pub settings: TcpSettings,
}

/// Endpoint settings of a TCP flow, units resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpSettings {
    /// Sender maximum segment size, bytes.
    pub mss: u32,
    /// Initial window, segments.
    pub initial_window: u32,
    pub initial_rto: SimDuration,
    pub min_rto: SimDuration,
    pub max_rto: SimDuration,
    /// min_rto bounds the variance term (Linux).
    pub min_rto_bounds_variance: bool,
    /// Delayed-ACK timer; `None` acknowledges every segment.
    pub delayed_ack: Option<SimDuration>,
    /// Full-sized segments per delayed ACK.
    pub delack_segments: u32,
    /// RFC 3465 limit L in segments; 0 disables ABC.
    pub abc_limit: u32,
    /// HyStart on or off; `None`: the controller's default.
    pub hystart: Option<bool>,
    pub sack: bool,
    pub timestamps: bool,
    pub window_scale: bool,
    pub limited_transmit: bool,
    pub ecn: bool,
    pub frto: bool,
    /// F-RTO after repeated timeouts too (Linux).
    pub frto_after_repeated_rto: bool,
    /// A timeout in fast recovery keeps that recovery's ssthresh (Linux).
    pub rto_keeps_recovery_ssthresh: bool,
    /// Proportional Rate Reduction (RFC 6937) in SACK fast recovery.
    pub prr: bool,
    pub eifel: bool,
    pub detect_lost_retransmissions: bool,
    /// Explicit Loss Notification reaction at the sender.
    pub eln: bool,
    /// Receive buffer, bytes.
    pub rcv_buf_bytes: u64,
    /// Send buffer, bytes.
    pub snd_buf_bytes: u64,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupack_threshold: u32,
    pub ack_copies: AckCopies,
}

/// Receiver ACK copies (Miyoshi, Sugano & Murata), units resolved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckCopies {
    pub enabled: bool,
    /// Copies of each ACK while active.
    pub copies: u32,
    /// p_err threshold, in [0, 1].
    pub threshold: f64,
    /// Wired-buffer loss rate p_buff, in [0, 1).
    pub p_buff: f64,
    /// Estimator update window, expected segments.
    pub window_segments: u32,
}

/// Smallest MSS accepted, bytes (Linux's TCP_MIN_MSS).
pub const MIN_MSS: u64 = 88;
/// Largest MSS accepted, bytes: 65535 − 20 (IPv4 header) − 20 (TCP header).
pub const MAX_MSS: u64 = 65_495;
/// Largest initial window accepted, segments. RFC 6928 allows 10; more is for experiments.
pub const MAX_INITIAL_WINDOW: u32 = 100;
/// Largest receive buffer, bytes: the largest window with scaling (RFC 7323 §2.3), 2^30.
pub const MAX_RCV_BUF: u64 = 1 << 30;
/// Delayed-ACK timer range: at least 1 ms, below 500 ms (RFC 5681 §4.2).
pub const DELAYED_ACK_MIN: SimDuration = SimDuration::from_ms(1);
pub const DELAYED_ACK_LIMIT: SimDuration = SimDuration::from_ms(500);

fn out_of_range(key: String, value: impl fmt::Display, expected: &str) -> ScenarioError {
    ScenarioError::new(key, format!("{value} is out of range; expected {expected}"))
}

impl TcpFlowFile {
    pub(crate) fn convert(&self, key: &str) -> Result<TcpFlow, ScenarioError> {
        let app = self.app.convert(&join_key(key, "app"))?;
        let settings = self.tcp.convert(&join_key(key, "tcp"))?;
        Ok(TcpFlow {
            cc: self.cc,
            app,
            settings,
        })
    }
}

impl TcpFile {
    pub(crate) fn convert(&self, key: &str) -> Result<TcpSettings, ScenarioError> {
        let k = |field: &str| join_key(key, field);
        let mss = self.mss.value;
        if !(MIN_MSS..=MAX_MSS).contains(&mss) {
            return Err(out_of_range(
                k("mss"),
                format!("'{}'", self.mss),
                &format!("{MIN_MSS}B to {MAX_MSS}B"),
            ));
        }
        if !(1..=MAX_INITIAL_WINDOW).contains(&self.initial_window) {
            return Err(out_of_range(
                k("initial_window"),
                self.initial_window,
                &format!("1 to {MAX_INITIAL_WINDOW} segments (RFC 6928 allows up to 10)"),
            ));
        }
        positive_time(&k("min_rto"), &self.min_rto)?;
        if self.max_rto.value < self.min_rto.value {
            return Err(ScenarioError::new(
                k("max_rto"),
                format!("'{}' is below min_rto ('{}')", self.max_rto, self.min_rto),
            ));
        }
        if self.initial_rto.value < self.min_rto.value
            || self.initial_rto.value > self.max_rto.value
        {
            return Err(ScenarioError::new(
                k("initial_rto"),
                format!(
                    "'{}' is outside [min_rto, max_rto] = ['{}', '{}']",
                    self.initial_rto, self.min_rto, self.max_rto
                ),
            ));
        }
        let delayed_ack = match &self.delayed_ack {
            DelayedAckFile::Off => None,
            DelayedAckFile::After(t) => {
                if t.value < DELAYED_ACK_MIN || t.value >= DELAYED_ACK_LIMIT {
                    return Err(out_of_range(
                        k("delayed_ack"),
                        format!("'{t}'"),
                        "at least 1ms and below 500ms (RFC 5681 §4.2), or false",
                    ));
                }
                Some(t.value)
            }
        };
        if !(1..=16).contains(&self.delack_segments) {
            return Err(out_of_range(
                k("delack_segments"),
                self.delack_segments,
                "1 to 16 segments",
            ));
        }
        if self.abc > 2 {
            return Err(out_of_range(
                k("abc"),
                self.abc,
                "0 (off), 1 or 2 (RFC 3465 §2.2)",
            ));
        }
        if self.rcv_buf.value < mss || self.rcv_buf.value > MAX_RCV_BUF {
            return Err(out_of_range(
                k("rcv_buf"),
                format!("'{}'", self.rcv_buf),
                &format!("at least mss ({mss}B) and at most 1GiB (RFC 7323 §2.3)"),
            ));
        }
        if self.snd_buf.value < mss {
            return Err(out_of_range(
                k("snd_buf"),
                format!("'{}'", self.snd_buf),
                &format!("at least mss ({mss}B)"),
            ));
        }
        if self.dupack_threshold == 0 {
            return Err(out_of_range(
                k("dupack_threshold"),
                0,
                "an integer ≥ 1 (RFC 5681: 3)",
            ));
        }
        if self.frto_after_repeated_rto && !self.frto {
            return Err(ScenarioError::new(
                k("frto_after_repeated_rto"),
                "true needs F-RTO; set frto = true",
            ));
        }
        if self.prr && !self.sack {
            return Err(ScenarioError::new(
                k("prr"),
                "true needs SACK (RFC 6937 counts SACKed data as delivered); set sack = true",
            ));
        }
        if self.eifel && !self.timestamps {
            return Err(ScenarioError::new(
                k("eifel"),
                "Eifel detection needs timestamps (RFC 3522 §2); set timestamps = true",
            ));
        }
        let ack_copies = self.ack_copies.convert(&k("ack_copies"))?;
        Ok(TcpSettings {
            mss: mss as u32,
            initial_window: self.initial_window,
            initial_rto: self.initial_rto.value,
            min_rto: self.min_rto.value,
            max_rto: self.max_rto.value,
            min_rto_bounds_variance: self.min_rto_bounds_variance,
            delayed_ack,
            delack_segments: self.delack_segments,
            abc_limit: self.abc,
            hystart: self.hystart,
            sack: self.sack,
            timestamps: self.timestamps,
            window_scale: self.window_scale,
            limited_transmit: self.limited_transmit,
            ecn: self.ecn,
            frto: self.frto,
            frto_after_repeated_rto: self.frto_after_repeated_rto,
            rto_keeps_recovery_ssthresh: self.rto_keeps_recovery_ssthresh,
            prr: self.prr,
            eifel: self.eifel,
            detect_lost_retransmissions: self.detect_lost_retransmissions,
            eln: self.eln,
            rcv_buf_bytes: self.rcv_buf.value,
            snd_buf_bytes: self.snd_buf.value,
            dupack_threshold: self.dupack_threshold,
            ack_copies,
        })
    }
}

impl AckCopiesFile {
    fn convert(&self, key: &str) -> Result<AckCopies, ScenarioError> {
        let k = |field: &str| join_key(key, field);
        if !(1..=MAX_ACK_COPIES).contains(&self.copies) {
            return Err(out_of_range(
                k("copies"),
                self.copies,
                &format!("1 to {MAX_ACK_COPIES}"),
            ));
        }
        unit_interval(&k("threshold"), self.threshold)?;
        unit_interval(&k("p_buff"), self.p_buff)?;
        if self.p_buff == 1.0 {
            // p_err = 1 − sqrt((1 − p)/(1 − p_buff)) divides by 1 − p_buff.
            return Err(out_of_range(k("p_buff"), 1, "a number in [0, 1)"));
        }
        if !(1..=MAX_ACK_WINDOW_SEGMENTS).contains(&self.window_segments) {
            return Err(out_of_range(
                k("window_segments"),
                self.window_segments,
                &format!("1 to {MAX_ACK_WINDOW_SEGMENTS} segments"),
            ));
        }
        Ok(AckCopies {
            enabled: self.enabled,
            copies: self.copies,
            threshold: self.threshold,
            p_buff: self.p_buff,
            window_segments: self.window_segments,
        })
    }
}
