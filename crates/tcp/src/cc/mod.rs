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
//! Controllers ([`NAMES`], built by [`build`]): `reno` and `newreno` (RFC 5681/6582, with ABC
//! of RFC 3465), `westwood` (Westwood+), `westwood-original` (the original Westwood of
//! MobiCom 2001 as ns-3's `TcpWestwood` runs it), `cubic` (RFC 9438, with HyStart++ of RFC 9406),
//! `cubic-linux` (CUBIC as Linux's `tcp_cubic.c` runs it, with its HyStart), `bbr` (BBR v1), `vegas`
//! and `petra` (Westwood+ with the modifications of the PETRA thesis). `docs/congestion-control.md`
//! describes each, with its parameters and what is not modelled; `docs/petra.md` the PETRA
//! design choices.
//!
//! Invariants checked by the property tests: `cwnd() >= mss` at all times; `ssthresh() >= 2·mss`
//! after any congestion event; no method panics for any sequence of calls.
//!
//! [`on_ack`]: CongestionControl::on_ack
//! [`on_congestion_event`]: CongestionControl::on_congestion_event
//! [`on_recovery_exit`]: CongestionControl::on_recovery_exit
//! [`on_rto`]: CongestionControl::on_rto

use celltcp_engine::{SimDuration, SimTime};

pub mod bbr;
pub mod cubic;
pub mod hystart;
pub mod newreno;
pub mod petra;
pub mod reno;
pub mod reno_common;
#[cfg(test)]
mod testkit;
pub mod vegas;
pub mod westwood;

pub use bbr::Bbr;
pub use cubic::{Cubic, CubicReading};
pub use newreno::new_reno;
pub use petra::Petra;
pub use reno::{Reno, RenoRecovery};
pub use vegas::Vegas;
pub use westwood::{WestwoodOriginal, WestwoodPlus};

/// Names accepted by [`build`], in the order they are documented in
/// `docs/congestion-control.md`.
pub const NAMES: &[&str] = &[
    "reno",
    "newreno",
    "westwood",
    "westwood-original",
    "cubic",
    "cubic-linux",
    "bbr",
    "vegas",
    "petra",
];

/// Why a controller could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CcError {
    #[error("congestion control '{name}' is unknown; expected one of {expected}")]
    UnknownName { name: String, expected: String },
    #[error("{key}: {value} is invalid; expected {expected}")]
    InvalidConfig {
        key: &'static str,
        value: u64,
        expected: &'static str,
    },
}

impl CcConfig {
    /// Checks the values a controller needs: MSS ≥ 1 byte, initial window ≥ 1 segment,
    /// initial ssthresh ≥ 2·MSS (the floor of RFC 5681 eq. 4). The error names the key.
    pub fn validate(&self) -> Result<(), CcError> {
        if self.mss == 0 {
            return Err(CcError::InvalidConfig {
                key: "mss",
                value: 0,
                expected: "at least 1 byte",
            });
        }
        if self.initial_window == 0 {
            return Err(CcError::InvalidConfig {
                key: "initial_window",
                value: 0,
                expected: "at least 1 segment",
            });
        }
        if self.initial_ssthresh < 2 * u64::from(self.mss) {
            return Err(CcError::InvalidConfig {
                key: "initial_ssthresh",
                value: self.initial_ssthresh,
                expected: "at least 2·mss bytes",
            });
        }
        Ok(())
    }
}

/// The controller called `name` (one of [`NAMES`]) with configuration `cfg`; `None` for an
/// unknown name. Out-of-range configuration values are clamped by the controllers; use
/// [`try_build`] to have them rejected with a message instead. BBR's ProbeBW start phase is
/// drawn from [`bbr::DEFAULT_SEED`]; see [`build_with_seed`].
pub fn build(name: &str, cfg: &CcConfig) -> Option<Box<dyn CongestionControl>> {
    build_with_seed(name, cfg, bbr::DEFAULT_SEED)
}

/// As [`build`], with `seed` for the controllers that draw random numbers (BBR's ProbeBW
/// start phase). The endpoint passes a value drawn from the flow's own `RngStream`, so that
/// flows do not probe in lock-step and adding a flow does not change another's draws.
pub fn build_with_seed(
    name: &str,
    cfg: &CcConfig,
    seed: u64,
) -> Option<Box<dyn CongestionControl>> {
    let cc: Box<dyn CongestionControl> = match name {
        "reno" => Box::new(Reno::new(cfg)),
        "newreno" => Box::new(new_reno(cfg)),
        "westwood" => Box::new(WestwoodPlus::new(cfg)),
        "westwood-original" => Box::new(WestwoodOriginal::new(cfg)),
        "cubic" => Box::new(Cubic::new(cfg)),
        "cubic-linux" => Box::new(Cubic::with_reading(cfg, CubicReading::Linux)),
        "bbr" => Box::new(Bbr::new(cfg, seed)),
        "vegas" => Box::new(Vegas::new(cfg)),
        "petra" => Box::new(Petra::new(cfg)),
        _ => return None,
    };
    Some(cc)
}

/// As [`build`], but validates `cfg` and reports an unknown name with the list of known ones.
pub fn try_build(name: &str, cfg: &CcConfig) -> Result<Box<dyn CongestionControl>, CcError> {
    cfg.validate()?;
    build(name, cfg).ok_or_else(|| CcError::UnknownName {
        name: name.to_owned(),
        expected: NAMES.join(", "),
    })
}

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
    /// then counts one MSS per ACK as classic Reno does, in slow start (RFC 5681 eq. 2) and in
    /// the Reno-family congestion avoidance (eq. 3, instead of RFC 3465 §2.1 byte counting).
    pub abc_limit: u32,
    /// Leave slow start on a rising RTT before the first loss (CUBIC's HyStart, see
    /// [`hystart`]); `None` takes the controller's default (on for `cubic` and `cubic-linux`),
    /// controllers without one ignore it.
    pub hystart: Option<bool>,
    /// Linux's HyStart as for a paced socket (`cubic-linux` only): the ACK train must last
    /// delay_min + `hystart_ack_delay` rather than half of it ([`hystart`]).
    pub hystart_paced: bool,
}

impl Default for CcConfig {
    fn default() -> Self {
        CcConfig {
            mss: 1448,
            initial_window: 10,
            initial_ssthresh: u64::MAX,
            abc_limit: 2,
            hystart: None,
            hystart_paced: false,
        }
    }
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation §3), produced by the
/// endpoint for each ACK that newly delivers data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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

/// What one ACK told the sender. `Default` is an empty ACK at time zero, for building test
/// events with `..AckEvent::default()`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AckEvent {
    pub now: SimTime,
    /// Bytes newly acknowledged by this ACK: cumulative advance plus newly SACKed bytes.
    pub acked_bytes: u64,
    /// The ACK acknowledged no new data and carried no new SACK information (RFC 5681 §2).
    pub duplicate: bool,
    /// The ACK advanced SND.UNA. RFC 5681 §3.1 grows cwnd only for an ACK that "cumulatively
    /// acknowledges new data": an ACK that only SACKs data above a hole reports delivery (to
    /// bandwidth and rate estimators) but does not open the window.
    pub snd_una_advanced: bool,
    /// RTT measured by this ACK (Karn's rule already applied), if any: from the timestamps
    /// option when in use (RFC 7323 §4, at the timestamp clock's granularity), else from the
    /// send time of the segment.
    pub rtt_sample: Option<SimDuration>,
    /// The RTT of the most recently sent segment this ACK cumulatively acknowledged, from its
    /// send time (exact; `None` if that ACK covered a retransmission): Linux's `ca_rtt_us`, the
    /// sample its congestion controls see (`pkts_acked`), which HyStart's delay tests use.
    pub ca_rtt: Option<SimDuration>,
    /// Smoothed RTT after this ACK (RFC 6298); zero before the first sample.
    pub srtt: SimDuration,
    /// Minimum RTT seen on the connection; zero before the first sample.
    pub min_rtt: SimDuration,
    /// Bytes in flight before and after this ACK.
    pub prior_in_flight: u64,
    pub bytes_in_flight: u64,
    /// The endpoint was in fast recovery when this ACK arrived (an ACK that starts a fast
    /// recovery reports false and is followed by `on_congestion_event`; one that ends it
    /// reports true and is followed by `on_recovery_exit`).
    pub in_recovery: bool,
    /// The endpoint is still in RTO recovery after this ACK (Linux's `TCP_CA_Loss`): true from
    /// the first ACK after `on_rto` until the ACK that covers the data outstanding at the
    /// expiry, which reports false.
    pub in_rto_recovery: bool,
    /// Segments newly deemed lost while this ACK was processed (RFC 6675 IsLost, RACK, the
    /// fast retransmission's head, NewReno's partial-ACK hole, a retransmission deemed lost
    /// again): Linux's `rs->losses`, `tp->lost` after the ACK less before it.
    pub losses: u64,
    /// How long until the pacer lets the next segment leave, zero when it may leave now:
    /// Linux's `tcp_wstamp_ns` − now, the earliest departure time (EDT) of the next packet.
    pub pacing_delay: SimDuration,
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
    /// FlightSize of RFC 5681 eq. 4 as the RFC 6675 pipe before the go-back-N marks, bytes:
    /// SND.NXT − SND.UNA less SACKed bytes and segments already deemed lost.
    pub bytes_in_flight: u64,
    /// 1 for the first expiry of an RTO recovery episode, 2 for the next, ...: an episode
    /// lasts until the data outstanding at its first expiry is acknowledged, so a later
    /// expiry finds SND.UNA at a segment the timer has already resent (RFC 5681 §3.1: hold
    /// ssthresh then). With `TcpConfig::rto_keeps_recovery_ssthresh` a first expiry during
    /// fast recovery counts as 2: that recovery's reduction already covered the window.
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
    /// Without SACK, whether the first ACK of new data ends fast recovery even when it does not
    /// cover the recovery point: true for Reno (RFC 5681 §3.2 step 6), false for NewReno, whose
    /// partial ACKs retransmit the next hole and stay in recovery (RFC 6582 §3.2 step 4).
    fn exits_recovery_on_partial_ack(&self) -> bool {
        false
    }
    /// Whether, with `tcp.prr`, Proportional Rate Reduction (RFC 6937) sets the sending window
    /// during fast recovery. True for the window-based controllers; false for a controller
    /// that sets its own window in recovery (BBR: Linux's `tcp_cong_control` calls a module's
    /// `cong_control` instead of `tcp_cwnd_reduction`).
    fn reduces_by_prr(&self) -> bool {
        true
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn factory_builds_every_name() {
        for name in NAMES {
            let cc = build(name, &CcConfig::default()).expect(name);
            assert_eq!(cc.name(), *name);
            assert_eq!(cc.cwnd(), 10 * 1448);
        }
        assert!(build("tahoe", &CcConfig::default()).is_none());
        for name in NAMES {
            assert_eq!(
                build_with_seed(name, &CcConfig::default(), 9)
                    .unwrap()
                    .name(),
                *name
            );
        }
    }

    #[test]
    fn try_build_names_the_problem() {
        let err = try_build("tahoe", &CcConfig::default()).err().unwrap();
        assert_eq!(
            err.to_string(),
            "congestion control 'tahoe' is unknown; expected one of \
             reno, newreno, westwood, westwood-original, cubic, cubic-linux, bbr, vegas, petra"
        );
        let cfg = CcConfig {
            mss: 0,
            ..CcConfig::default()
        };
        let err = try_build("reno", &cfg).err().unwrap();
        assert_eq!(
            err.to_string(),
            "mss: 0 is invalid; expected at least 1 byte"
        );
        let cfg = CcConfig {
            initial_ssthresh: 1000,
            ..CcConfig::default()
        };
        assert!(matches!(
            try_build("cubic", &cfg),
            Err(CcError::InvalidConfig {
                key: "initial_ssthresh",
                ..
            })
        ));
        assert!(try_build("petra", &CcConfig::default()).is_ok());
    }

    /// One step of the property test.
    #[derive(Clone, Debug)]
    enum Op {
        Ack {
            gap_us: u32,
            segments: u8,
            duplicate: bool,
            rtt_us: Option<u32>,
            in_recovery: bool,
            app_limited: bool,
            rate_sample: bool,
        },
        Congestion {
            ecn: bool,
            flight_segments: u32,
        },
        RecoveryExit,
        Rto {
            consecutive: u8,
            flight_segments: u32,
            rtts_us: [u32; 4],
        },
        SnapshotRestore {
            rto_in_between: bool,
        },
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            8 => (
                0u32..200_000,
                0u8..=64,
                any::<bool>(),
                proptest::option::of(1u32..3_000_000),
                any::<bool>(),
                prop::bool::weighted(0.1),
                prop::bool::weighted(0.8),
            )
                .prop_map(|(gap_us, segments, duplicate, rtt_us, in_recovery, app_limited, rate_sample)| {
                    Op::Ack { gap_us, segments, duplicate, rtt_us, in_recovery, app_limited, rate_sample }
                }),
            1 => (any::<bool>(), 0u32..100_000)
                .prop_map(|(ecn, flight_segments)| Op::Congestion { ecn, flight_segments }),
            1 => Just(Op::RecoveryExit),
            1 => (1u8..=8, 0u32..100_000, prop::array::uniform4(0u32..3_000_000))
                .prop_map(|(consecutive, flight_segments, rtts_us)| Op::Rto {
                    consecutive,
                    flight_segments,
                    rtts_us,
                }),
            1 => any::<bool>().prop_map(|rto_in_between| Op::SnapshotRestore { rto_in_between }),
        ]
    }

    fn config() -> impl Strategy<Value = CcConfig> {
        (
            prop::sample::select(vec![1u32, 536, 1448, 9000]),
            1u32..=10,
            0u32..=4,
        )
            .prop_map(|(mss, initial_window, abc_limit)| CcConfig {
                mss,
                initial_window,
                initial_ssthresh: u64::MAX,
                abc_limit,
                hystart: None,
                hystart_paced: false,
            })
    }

    /// Replays `ops` on the controller `name`; checks the module's invariants after each.
    fn replay(name: &str, cfg: &CcConfig, ops: &[Op]) -> Result<(), TestCaseError> {
        let mut cc = build(name, cfg).unwrap();
        let mss = u64::from(cfg.mss);
        let mut now = SimTime::ZERO;
        let mut delivered = 0u64;
        let mut min_rtt = SimDuration::ZERO;
        let mut srtt = SimDuration::ZERO;
        for op in ops {
            let mut reduced = false;
            match *op {
                Op::Ack {
                    gap_us,
                    segments,
                    duplicate,
                    rtt_us,
                    in_recovery,
                    app_limited,
                    rate_sample,
                } => {
                    now += SimDuration::from_us(u64::from(gap_us));
                    let acked = if duplicate {
                        0
                    } else {
                        u64::from(segments) * mss
                    };
                    let rtt = rtt_us.map(|us| SimDuration::from_us(u64::from(us)));
                    if let Some(r) = rtt {
                        min_rtt = if min_rtt == SimDuration::ZERO {
                            r
                        } else {
                            min_rtt.min(r)
                        };
                        srtt = if srtt == SimDuration::ZERO {
                            r
                        } else {
                            SimDuration::from_ns((srtt.as_ns() / 8) * 7 + r.as_ns() / 8)
                        };
                    }
                    let prior_delivered = delivered;
                    delivered += acked;
                    let interval = rtt.unwrap_or(SimDuration::from_ms(10));
                    let in_flight = cc.cwnd();
                    let ev = AckEvent {
                        now,
                        acked_bytes: acked,
                        duplicate,
                        snd_una_advanced: !duplicate && acked > 0,
                        rtt_sample: rtt,
                        ca_rtt: rtt,
                        srtt,
                        min_rtt,
                        prior_in_flight: in_flight,
                        bytes_in_flight: in_flight.saturating_sub(acked),
                        in_recovery,
                        rate_sample: (rate_sample && acked > 0).then(|| RateSample {
                            delivery_rate_bps: acked * 8 * 1_000_000_000 / interval.as_ns().max(1),
                            interval,
                            delivered: acked,
                            prior_delivered,
                            is_app_limited: app_limited,
                        }),
                        app_limited,
                        ..AckEvent::default()
                    };
                    cc.on_ack(&ev);
                }
                Op::Congestion {
                    ecn,
                    flight_segments,
                } => {
                    let kind = if ecn {
                        CongestionKind::EcnEcho
                    } else {
                        CongestionKind::FastRetransmit
                    };
                    let flight = u64::from(flight_segments) * mss;
                    cc.on_congestion_event(&CongestionEvent {
                        now,
                        kind,
                        bytes_in_flight: flight,
                        srtt,
                        min_rtt,
                    });
                    reduced = true;
                }
                Op::RecoveryExit => cc.on_recovery_exit(now),
                Op::Rto {
                    consecutive,
                    flight_segments,
                    rtts_us,
                } => {
                    cc.on_rto(&RtoEvent {
                        now,
                        bytes_in_flight: u64::from(flight_segments) * mss,
                        consecutive: u32::from(consecutive),
                        srtt,
                        min_rtt,
                        recent_rtts: rtts_us.map(|us| SimDuration::from_us(u64::from(us))),
                    });
                    reduced = true;
                }
                Op::SnapshotRestore { rto_in_between } => {
                    let s = cc.snapshot();
                    if rto_in_between {
                        cc.on_rto(&RtoEvent {
                            now,
                            bytes_in_flight: cc.cwnd(),
                            consecutive: 1,
                            srtt,
                            min_rtt,
                            recent_rtts: [srtt; 4],
                        });
                    }
                    cc.restore(&s);
                    prop_assert_eq!(cc.cwnd(), s.cwnd.max(mss), "{}: restore", name);
                }
            }
            prop_assert!(
                cc.cwnd() >= mss,
                "{}: cwnd {} < mss after {:?}",
                name,
                cc.cwnd(),
                op
            );
            if reduced {
                prop_assert!(
                    cc.ssthresh() >= 2 * mss,
                    "{}: ssthresh {} after {:?}",
                    name,
                    cc.ssthresh(),
                    op
                );
            }
            prop_assert!(cc.dupack_threshold(srtt, min_rtt) >= 1);
            if let Some(rate) = cc.pacing_rate_bps() {
                prop_assert!(rate > 0);
            }
            let _ = (cc.bandwidth_estimate_bps(), cc.mode());
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        #[test]
        fn invariants_hold_for_every_controller(
            cfg in config(),
            ops in prop::collection::vec(op(), 1..200),
        ) {
            for name in NAMES {
                replay(name, &cfg, &ops)?;
            }
        }
    }
}
