//! Window arithmetic shared by the Reno family (Reno, NewReno, Westwood+, Vegas, PETRA and the
//! slow start of CUBIC): slow start with Appropriate Byte Counting, byte-counted congestion
//! avoidance, the RFC 5681 reductions and the Eifel/F-RTO undo.
//!
//! All quantities are bytes. The core never reads a clock; the caller passes what an ACK said.

use super::{AckEvent, CcConfig, CcSnapshot};

/// Reno-style window state: `cwnd`, `ssthresh` and the byte counter of congestion avoidance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenoCore {
    /// Sender maximum segment size, bytes (at least 1 so that no division can fault).
    pub mss: u64,
    /// Congestion window, bytes; never below `mss`.
    pub cwnd: u64,
    /// Slow-start threshold, bytes.
    pub ssthresh: u64,
    /// Appropriate Byte Counting limit L in segments (RFC 3465 §2.2); 0 = one MSS per ACK.
    pub abc_limit: u32,
    /// Bytes acknowledged in congestion avoidance and not yet turned into window growth
    /// (the `bytes_acked` variable of RFC 3465 §2.1), bytes.
    pub bytes_acked: u64,
    /// Set when a fast-retransmit congestion event starts fast recovery and cleared when it
    /// ends (full ACK or RTO); `on_recovery_exit` deflates the window only while it is set, so
    /// an exit reported after RTO recovery cannot jump cwnd from slow start up to ssthresh.
    pub in_fast_recovery: bool,
}

impl RenoCore {
    /// Initial state: cwnd = IW·MSS (RFC 5681 §3.1, RFC 6928), ssthresh from the configuration.
    ///
    /// Out-of-range values are clamped rather than rejected (the factory validates first, see
    /// [`CcConfig::validate`]): MSS ≥ 1 byte, IW ≥ 1 segment, ssthresh ≥ 2·MSS.
    pub fn new(cfg: &CcConfig) -> Self {
        let mss = u64::from(cfg.mss.max(1));
        RenoCore {
            mss,
            cwnd: u64::from(cfg.initial_window.max(1)).saturating_mul(mss),
            ssthresh: cfg.initial_ssthresh.max(2 * mss),
            abc_limit: cfg.abc_limit,
            bytes_acked: 0,
            in_fast_recovery: false,
        }
    }

    /// True while cwnd < ssthresh (RFC 5681 §3.1: slow start is used when cwnd < ssthresh).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Whether this ACK may grow the window: it must cumulatively acknowledge new data
    /// (RFC 5681 §3.1; an ACK that only SACKs data above a hole does not count — after a
    /// timeout, such ACKs for the flight sent before it would otherwise regrow cwnd from one
    /// segment to the old window within a round trip while SND.UNA stands still), arrive
    /// outside recovery (RFC 6582 §3.2 steps 4–5: during fast recovery the window is governed
    /// by the recovery procedure, not by growth), and cover data sent while the sender was
    /// cwnd-limited (RFC 7661: growth on an application-limited window would validate a window
    /// the network never carried).
    pub fn ack_may_grow(ack: &AckEvent) -> bool {
        ack.acked_bytes > 0
            && ack.snd_una_advanced
            && !ack.duplicate
            && !ack.in_recovery
            && !ack.app_limited
    }

    /// Slow-start increase for `acked` newly acknowledged bytes, bytes.
    ///
    /// RFC 3465 §2.2: cwnd += min(N, L·SMSS); with ABC disabled (L = 0) classic packet counting,
    /// one SMSS per ACK.
    pub fn slow_start_increase(&self, acked: u64) -> u64 {
        if acked == 0 {
            0
        } else if self.abc_limit == 0 {
            self.mss
        } else {
            acked.min(u64::from(self.abc_limit).saturating_mul(self.mss))
        }
    }

    /// Adds `increase` bytes of slow-start growth, stopping at ssthresh. Returns the part of
    /// `acked` that was not needed to reach ssthresh, which the caller may count in congestion
    /// avoidance (so an ACK that crosses ssthresh is not half lost).
    pub fn grow_slow_start(&mut self, acked: u64, increase: u64) -> u64 {
        let room = self.ssthresh.saturating_sub(self.cwnd);
        if increase <= room {
            self.cwnd = self.cwnd.saturating_add(increase);
            0
        } else {
            self.cwnd = self.ssthresh;
            acked.saturating_sub(room)
        }
    }

    /// Congestion avoidance for one ACK that acknowledged `acked` new bytes.
    ///
    /// With ABC (L ≥ 1), byte counting (RFC 3465 §2.1, RFC 5681 §3.1 eq. 3 discussion):
    /// bytes_acked accumulates acknowledged bytes; when it reaches cwnd, cwnd grows by one SMSS
    /// and bytes_acked drops by the old cwnd. The window thus grows by exactly one MSS per
    /// window of acknowledged data, i.e. one MSS per RTT, independent of ACK size or delayed
    /// ACKs. At most one MSS is added per ACK, as RFC 5681 requires.
    ///
    /// With ABC off (L = 0), the per-ACK rule of RFC 5681 eq. 3, cwnd += SMSS·SMSS/cwnd: each
    /// ACK is credited with one SMSS whatever it acknowledges, and cwnd grows by one SMSS once
    /// a window's worth of credit has accumulated (the same sum as eq. 3, without its rounding).
    /// With delayed ACKs (one ACK per two segments) the window then grows by half an MSS per
    /// RTT, the growth the PFTK and Mathis models write with b = 2.
    pub fn congestion_avoidance(&mut self, acked: u64) {
        let credit = if self.abc_limit == 0 {
            if acked == 0 {
                0
            } else {
                self.mss
            }
        } else {
            acked
        };
        self.bytes_acked = self.bytes_acked.saturating_add(credit);
        if self.bytes_acked >= self.cwnd {
            self.bytes_acked -= self.cwnd;
            self.cwnd = self.cwnd.saturating_add(self.mss);
            // A window reduction may leave bytes_acked above the new cwnd; bound it so that a
            // single ACK never yields more than one MSS of growth later on.
            self.bytes_acked = self.bytes_acked.min(self.cwnd);
        }
    }

    /// Standard Reno growth for one ACK: slow start below ssthresh, byte-counted congestion
    /// avoidance above it. No growth when [`Self::ack_may_grow`] is false.
    pub fn on_ack(&mut self, ack: &AckEvent) {
        if !Self::ack_may_grow(ack) {
            return;
        }
        self.grow(ack.acked_bytes);
    }

    /// The growth step of [`Self::on_ack`] for `acked` bytes, without the ACK checks.
    pub fn grow(&mut self, acked: u64) {
        if self.in_slow_start() {
            let inc = self.slow_start_increase(acked);
            let rest = self.grow_slow_start(acked, inc);
            if rest > 0 {
                self.congestion_avoidance(rest);
            }
        } else {
            self.congestion_avoidance(acked);
        }
    }

    /// RFC 5681 §3.1 eq. 4: ssthresh = max(FlightSize / 2, 2·SMSS), bytes.
    pub fn half_flight(&self, flight_size: u64) -> u64 {
        (flight_size / 2).max(2 * self.mss)
    }

    /// Eq. 4 at the third duplicate ACK (RFC 5681 §3.2 step 2), with FlightSize at most cwnd:
    /// SND.NXT − SND.UNA counts data the window did not send — the segments of limited
    /// transmit, which step 2 says "MUST NOT be included", and the SACKed data above a hole
    /// that outlived the previous recovery or a timeout that was undone. Halving that could
    /// set ssthresh above the window in force, so that a loss *raised* the window (a recovery
    /// entered at once after the previous one ended, with cwnd 146 segments and 296 between
    /// SND.UNA and SND.NXT, left ssthresh at 148). Linux's Reno halves cwnd
    /// (`tcp_reno_ssthresh`); the cap is that, except where less than cwnd is in flight.
    pub fn half_window(&self, flight_size: u64) -> u64 {
        self.half_flight(flight_size.min(self.cwnd))
    }

    /// Enters fast recovery (or reacts to ECE) with the given ssthresh: cwnd = ssthresh
    /// (RFC 5681 §3.2 step 2 without the 3·SMSS inflation, which the endpoint adds), and
    /// congestion-avoidance credit is discarded (RFC 3465 §2.1: bytes_acked is reset on loss).
    pub fn reduce(&mut self, ssthresh: u64, fast_recovery: bool) {
        self.reduce_to(ssthresh, ssthresh, fast_recovery);
    }

    /// As [`Self::reduce`] with an explicit new cwnd (Westwood's cwnd = min(cwnd, ssthresh)).
    /// ssthresh is floored at 2·SMSS (RFC 5681 eq. 4) and cwnd at 1 SMSS.
    pub fn reduce_to(&mut self, ssthresh: u64, cwnd: u64, fast_recovery: bool) {
        self.ssthresh = ssthresh.max(2 * self.mss);
        self.cwnd = cwnd.max(self.mss);
        self.bytes_acked = 0;
        if fast_recovery {
            self.in_fast_recovery = true;
        }
    }

    /// Retransmission timeout (RFC 5681 §3.1): ssthresh as given unless this is a repeated
    /// expiry of the same segment ("the value of ssthresh is held constant"), cwnd = loss
    /// window = 1 SMSS.
    pub fn on_rto(&mut self, consecutive: u32, ssthresh: u64) {
        if consecutive <= 1 {
            self.ssthresh = ssthresh.max(2 * self.mss);
        }
        self.cwnd = self.mss;
        self.bytes_acked = 0;
        self.in_fast_recovery = false;
    }

    /// Fast recovery ended with a full ACK: deflate to ssthresh (RFC 6582 §3.2 step 3, option
    /// (2) "Set cwnd to ssthresh"). Does nothing outside fast recovery.
    pub fn exit_recovery(&mut self) {
        if self.in_fast_recovery {
            self.cwnd = self.ssthresh.max(self.mss);
            self.bytes_acked = 0;
            self.in_fast_recovery = false;
        }
    }

    /// The window part of a snapshot; `extra` is the caller's.
    pub fn snapshot(&self, extra: u64) -> CcSnapshot {
        CcSnapshot {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            extra,
        }
    }

    /// Undo of a spurious reduction (RFC 4015 §4 / RFC 5682 §3.1): cwnd and ssthresh return to
    /// the saved values. Values from outside are clamped to the invariants (cwnd ≥ MSS,
    /// ssthresh ≥ 2·MSS). The undo ends any fast recovery the reduction started.
    pub fn restore(&mut self, s: &CcSnapshot) {
        self.cwnd = s.cwnd.max(self.mss);
        self.ssthresh = s.ssthresh.max(2 * self.mss);
        self.bytes_acked = 0;
        self.in_fast_recovery = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::ack;

    fn core(abc: u32) -> RenoCore {
        RenoCore::new(&CcConfig {
            mss: 1000,
            initial_window: 10,
            abc_limit: abc,
            ..CcConfig::default()
        })
    }

    #[test]
    fn initial_window_and_clamps() {
        let c = core(2);
        assert_eq!((c.cwnd, c.ssthresh), (10_000, u64::MAX));
        let z = RenoCore::new(&CcConfig {
            mss: 0,
            initial_window: 0,
            initial_ssthresh: 0,
            abc_limit: 2,
            hystart: None,
            hystart_paced: false,
        });
        assert_eq!((z.mss, z.cwnd, z.ssthresh), (1, 1, 2));
    }

    #[test]
    fn abc_limits_stretch_ack() {
        // RFC 3465 §2.2 with L = 2: a stretch ACK of 5 segments adds 2 segments.
        let mut c = core(2);
        c.on_ack(&ack(5_000));
        assert_eq!(c.cwnd, 12_000);
        // A 1.5-segment ACK adds exactly the acknowledged bytes.
        c.on_ack(&ack(1_500));
        assert_eq!(c.cwnd, 13_500);
    }

    #[test]
    fn abc_disabled_counts_one_mss_per_ack() {
        let mut c = core(0);
        c.on_ack(&ack(5_000));
        c.on_ack(&ack(100));
        assert_eq!(c.cwnd, 12_000);
    }

    #[test]
    fn slow_start_stops_at_ssthresh_and_carries_the_rest() {
        let mut c = core(4);
        c.ssthresh = 11_000;
        c.on_ack(&ack(3_000));
        // 1000 bytes reach ssthresh, the other 2000 count in congestion avoidance.
        assert_eq!((c.cwnd, c.bytes_acked), (11_000, 2_000));
    }

    #[test]
    fn congestion_avoidance_adds_one_mss_per_window() {
        let mut c = core(2);
        c.ssthresh = 10_000;
        for _ in 0..9 {
            c.on_ack(&ack(1_000));
        }
        assert_eq!(c.cwnd, 10_000);
        c.on_ack(&ack(1_000));
        assert_eq!((c.cwnd, c.bytes_acked), (11_000, 0));
        // The next window is 11 ACKs long.
        for _ in 0..10 {
            c.on_ack(&ack(1_000));
        }
        assert_eq!(c.cwnd, 11_000);
        c.on_ack(&ack(1_000));
        assert_eq!(c.cwnd, 12_000);
    }

    #[test]
    fn abc_off_congestion_avoidance_credits_one_mss_per_ack_rfc5681_eq3() {
        // cwnd = ssthresh = 10 segments: eq. 3 adds SMSS²/cwnd per ACK, one SMSS per 10 ACKs,
        // whether an ACK covers one segment or two (delayed ACK).
        let mut c = core(0);
        c.ssthresh = 10_000;
        for _ in 0..9 {
            c.on_ack(&ack(2_000));
        }
        assert_eq!(c.cwnd, 10_000);
        c.on_ack(&ack(2_000));
        assert_eq!((c.cwnd, c.bytes_acked), (11_000, 0));
        // With byte counting the same 2-segment ACKs grow the window twice as fast.
        let mut b = core(2);
        b.ssthresh = 10_000;
        for _ in 0..5 {
            b.on_ack(&ack(2_000));
        }
        assert_eq!(b.cwnd, 11_000);
    }

    #[test]
    fn no_growth_on_duplicate_recovery_or_app_limited_acks() {
        let mut c = core(2);
        let mut a = ack(1_000);
        a.in_recovery = true;
        c.on_ack(&a);
        let mut a = ack(1_000);
        a.app_limited = true;
        c.on_ack(&a);
        let mut a = ack(0);
        a.duplicate = true;
        c.on_ack(&a);
        assert_eq!(c.cwnd, 10_000);
    }

    #[test]
    fn reductions_follow_rfc5681() {
        let mut c = core(2);
        assert_eq!(c.half_flight(9_000), 4_500);
        assert_eq!(c.half_flight(3_000), 2_000);
        c.reduce(c.half_flight(20_000), true);
        assert_eq!(
            (c.cwnd, c.ssthresh, c.in_fast_recovery),
            (10_000, 10_000, true)
        );
        c.exit_recovery();
        assert_eq!((c.cwnd, c.in_fast_recovery), (10_000, false));
        c.on_rto(1, c.half_flight(8_000));
        assert_eq!((c.cwnd, c.ssthresh), (1_000, 4_000));
        // A second expiry of the same segment holds ssthresh.
        c.on_rto(2, c.half_flight(1_000));
        assert_eq!((c.cwnd, c.ssthresh), (1_000, 4_000));
        // Exit after RTO recovery is not a fast-recovery exit: nothing changes.
        c.exit_recovery();
        assert_eq!(c.cwnd, 1_000);
    }

    #[test]
    fn restore_clamps_foreign_snapshots() {
        let mut c = core(2);
        c.restore(&CcSnapshot {
            cwnd: 0,
            ssthresh: 1,
            extra: 0,
        });
        assert_eq!((c.cwnd, c.ssthresh), (1_000, 2_000));
    }
}
