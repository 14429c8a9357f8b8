//! Configuration of one TCP endpoint.
//!
//! Defaults follow the RFCs where they prescribe a value and current Linux practice where they
//! leave a choice open (both are stated per field). [`TcpConfig::validate`] is called by the
//! endpoint constructors' callers at the boundary; the endpoint itself clamps nothing silently.

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

/// Receiver ACK control of the seed `004_…` (Miyoshi, Sugano, Murata): the receiver estimates
/// the radio loss rate and sends every ACK several times when it is high.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckControlConfig {
    /// Enables the estimator and the copies; when false every ACK is sent once.
    pub enabled: bool,
    /// Number of times each ACK is sent while the estimate is at or above `threshold`
    /// (1 to [`MAX_ACK_COPIES`]).
    pub copies: u32,
    /// Threshold on the estimated radio loss probability p_err, in [0, 1].
    pub threshold: f64,
    /// Loss probability at the bottleneck buffer, p_buff in [0, 1), a given parameter.
    pub p_buff: f64,
    /// Update period of the estimator: the observed loss ratio is computed over each window of
    /// this many expected segments (received plus detected missing) and then smoothed with gain
    /// 1/8 (1 to [`MAX_ACK_WINDOW_SEGMENTS`]). The seed gives the gain but no period; 32 is
    /// this model's choice (about a tenth of a second of the seed's 384 kbit/s bearer with
    /// 100-byte segments).
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

/// Everything that parameterises a [`TcpEndpoint`](crate::TcpEndpoint).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcpConfig {
    /// Maximum segment size this endpoint announces and sends, payload bytes (RFC 9293 §3.7.1).
    pub mss: u32,
    /// Initial window, segments (RFC 6928 allows up to 10); passed to the controller.
    pub initial_window: u32,
    /// Initial retransmission timeout before any RTT sample (RFC 6298 §2.1: 1 s).
    pub initial_rto: SimDuration,
    /// Lower bound of the RTO (RFC 6298 §2.4: 1 s; Linux: 200 ms).
    pub min_rto: SimDuration,
    /// Upper bound of the RTO, also the cap of the exponential backoff (RFC 6298 §2.5: ≥ 60 s).
    pub max_rto: SimDuration,
    /// `min_rto` bounds the variance term instead of the whole RTO, as Linux: RTO = SRTT +
    /// max(min_rto, K·RTTVAR) (`tcp_set_rto`; `rttvar_us` is at least `tcp_rto_min`), not RFC
    /// 6298 (2.4)'s max(min_rto, SRTT + K·RTTVAR). Off by default.
    pub min_rto_bounds_variance: bool,
    /// Clock granularity G of the RTO computation (RFC 6298 §2): RTO = SRTT + max(G, K·RTTVAR).
    pub clock_granularity: SimDuration,
    /// Delayed-ACK timer (RFC 5681 §4.2: at most 500 ms); `None` acknowledges every segment.
    pub delayed_ack: Option<SimDuration>,
    /// Full-sized segments received before an ACK is due (RFC 5681 §4.2: at least every 2nd).
    pub delack_segments: u32,
    /// Appropriate Byte Counting limit L, segments (RFC 3465 §2.2); passed to the controller.
    pub abc_limit: u32,
    /// HyStart of the CUBIC controllers on or off; `None` takes the controller's default
    /// (`cc::CcConfig::hystart`).
    pub hystart: Option<bool>,
    /// Offer and use selective acknowledgements (RFC 2018) and RFC 6675 loss recovery.
    pub sack: bool,
    /// Offer and use the timestamps option (RFC 7323 §3–4).
    pub timestamps: bool,
    /// Tick of the timestamp clock (RFC 7323 §5.4: 1 ms to 1 s per tick).
    pub ts_tick: SimDuration,
    /// Offer window scaling (RFC 7323 §2); the shift is derived from `rcv_buf_bytes`.
    pub window_scale: bool,
    /// Limited transmit (RFC 3042) on the first two duplicate ACKs.
    pub limited_transmit: bool,
    /// Offer Explicit Congestion Notification (RFC 3168).
    pub ecn: bool,
    /// F-RTO detection of spurious timeouts (RFC 5682); the SACK-enhanced variant when SACK is
    /// negotiated.
    pub frto: bool,
    /// F-RTO also at a repeated timeout of the same segment, as Linux since its RFC 5682
    /// implementation (3.10): `tcp_enter_loss` sets `tp->frto` when `new_recovery ||
    /// icsk_retransmits`, "except recurring timeout(s) on the same SND.UNA". RFC 5682 §2.1 step
    /// 1 continues a timeout that hits an RTO recovery in progress conventionally, so a delay
    /// longer than RTO + 2·RTO (an outage) ends in go-back-N. Off by default; needs `frto`.
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
    /// advanced SND.UNA and marked nothing newly lost). Off by default: the sender then sends
    /// when the pipe falls below the controller's reduced cwnd (RFC 6675 §5).
    pub prr: bool,
    /// Eifel detection of spurious timeouts with timestamps (RFC 3522).
    pub eifel: bool,
    /// During fast recovery and RTO recovery with SACK, a retransmission that later
    /// transmissions overtook is lost and sent again (RACK's rule, RFC 8985 §6.2; see
    /// [`crate::rack`]). On by default, as Linux; off, such a retransmission waits for a
    /// timeout.
    pub detect_lost_retransmissions: bool,
    /// React to Explicit Loss Notification (Balakrishnan & Katz 1998): a fast retransmit or
    /// timeout for a hole an ELN-marked ACK reports retransmits without reducing cwnd or
    /// ssthresh. Off by default (the mark is not standardised).
    pub eln: bool,
    /// Receive buffer, bytes: bounds the advertised window.
    pub rcv_buf_bytes: u64,
    /// Send buffer, bytes: bounds written but unacknowledged data.
    pub snd_buf_bytes: u64,
    /// Duplicate-ACK threshold DupThresh (RFC 5681 §3.2: 3); the controller's
    /// `dupack_threshold` is used instead when it returns a different value.
    pub dupack_threshold: u32,
    /// Receiver ACK control of the seed `004_…`.
    pub ack_copies: AckControlConfig,
    /// Initial send sequence number (RFC 9293 §3.4.1 picks it from a clock; fixed here so that
    /// runs are reproducible and wrap-around can be tested).
    pub isn: u32,
    /// Duration of TIME-WAIT (RFC 9293: 2·MSL = 4 min; short by default in simulations).
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
            abc_limit: 2,
            hystart: None,
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
            eln: false,
            rcv_buf_bytes: 4 << 20,
            snd_buf_bytes: 4 << 20,
            dupack_threshold: 3,
            ack_copies: AckControlConfig::default(),
            isn: 0,
            time_wait: SimDuration::from_secs(1),
        }
    }
}

/// A configuration value out of its allowed range; the field is named as in scenario files.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum TcpConfigError {
    #[error("{field}: {value} is out of range; expected {expected}")]
    OutOfRange {
        field: &'static str,
        value: String,
        expected: &'static str,
    },
}

/// What `ack_copies.copies` must be; states [`MAX_ACK_COPIES`] (a test pins the two together).
const ACK_COPIES_EXPECTED: &str = "1 to 16";

fn check(
    ok: bool,
    field: &'static str,
    value: String,
    expected: &'static str,
) -> Result<(), TcpConfigError> {
    if ok {
        Ok(())
    } else {
        Err(TcpConfigError::OutOfRange {
            field,
            value,
            expected,
        })
    }
}

impl TcpConfig {
    /// Checks every field against the range the RFCs and this model allow.
    pub fn validate(&self) -> Result<(), TcpConfigError> {
        check(
            (64..=65_495).contains(&self.mss),
            "mss",
            self.mss.to_string(),
            "64..=65495 bytes",
        )?;
        check(
            (1..=100).contains(&self.initial_window),
            "initial_window",
            self.initial_window.to_string(),
            "1..=100 segments",
        )?;
        check(
            self.initial_rto.0 > 0,
            "initial_rto",
            self.initial_rto.to_string(),
            "> 0",
        )?;
        check(
            self.min_rto.0 > 0,
            "min_rto",
            self.min_rto.to_string(),
            "> 0",
        )?;
        check(
            self.max_rto >= self.min_rto,
            "max_rto",
            self.max_rto.to_string(),
            ">= min_rto",
        )?;
        check(
            self.ts_tick.0 > 0,
            "ts_tick",
            self.ts_tick.to_string(),
            "> 0",
        )?;
        if let Some(d) = self.delayed_ack {
            // RFC 5681 §4.2: the delay MUST be less than 0.5 s.
            check(
                d >= SimDuration::from_ms(1) && d <= SimDuration::from_ms(500),
                "delayed_ack",
                d.to_string(),
                "1ms..=500ms",
            )?;
        }
        check(
            (1..=64).contains(&self.delack_segments),
            "delack_segments",
            self.delack_segments.to_string(),
            "1..=64",
        )?;
        check(
            self.abc_limit <= 2,
            "abc",
            self.abc_limit.to_string(),
            "0, 1 or 2 (RFC 3465)",
        )?;
        check(
            self.rcv_buf_bytes >= self.mss as u64,
            "rcv_buf",
            self.rcv_buf_bytes.to_string(),
            ">= mss",
        )?;
        check(
            self.rcv_buf_bytes <= (65_535u64 << 14),
            "rcv_buf",
            self.rcv_buf_bytes.to_string(),
            "<= 1 GiB (65535 << 14, RFC 7323 §2.3)",
        )?;
        check(
            self.snd_buf_bytes >= self.mss as u64,
            "snd_buf",
            self.snd_buf_bytes.to_string(),
            ">= mss",
        )?;
        check(
            (1..=64).contains(&self.dupack_threshold),
            "dupack_threshold",
            self.dupack_threshold.to_string(),
            "1..=64",
        )?;
        let a = &self.ack_copies;
        check(
            (1..=MAX_ACK_COPIES).contains(&a.copies),
            "ack_copies.copies",
            a.copies.to_string(),
            ACK_COPIES_EXPECTED,
        )?;
        check(
            (0.0..=1.0).contains(&a.threshold),
            "ack_copies.threshold",
            a.threshold.to_string(),
            "a probability in [0, 1]",
        )?;
        check(
            (0.0..1.0).contains(&a.p_buff),
            "ack_copies.p_buff",
            a.p_buff.to_string(),
            "a probability in [0, 1)",
        )?;
        check(
            (1..=MAX_ACK_WINDOW_SEGMENTS).contains(&a.window_segments),
            "ack_copies.window_segments",
            a.window_segments.to_string(),
            "1 to 65536 segments",
        )?;
        Ok(())
    }

    /// The controller's parameters implied by this configuration.
    pub fn cc_config(&self) -> CcConfig {
        CcConfig {
            mss: self.mss,
            initial_window: self.initial_window,
            initial_ssthresh: u64::MAX,
            abc_limit: self.abc_limit,
            hystart: self.hystart,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        TcpConfig::default().validate().unwrap();
        assert_eq!(TcpConfig::default().rcv_wscale(), 7); // 4 MiB >> 7 = 32768
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
