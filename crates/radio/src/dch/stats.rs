//! What a DCH measures: per-direction delivery counters, the activity of the downlink RLC (for
//! the seed's RLC throughput) and the summary ([`DchReport`]).
//!
//! RLC throughput, as `001_…` uses it. The seed plots "RLC throughput" of FTP downloads with
//! exponential think times (mean 30 s) between files, and finds that it falls steeply ("200%")
//! when the file size drops from 200 kB to 50 kB, because "the larger file size, the less slow
//! start phases". The figure therefore counts the time TCP spends waiting within a transfer
//! (slow start, recovery) but not the think time between transfers: a run-wide rate, which
//! counts think time, would be several times below the plotted values (a 200 kB file every
//! 30 s + transfer is under 50 kbit/s), and a rate over the instants the RLC holds data (busy
//! time only) would barely depend on the file size. Here:
//!
//! * the downlink RLC is **busy** while its transmitting side at the RNC holds data: an SDU
//!   waiting for its first transmission or an AMD PDU not yet acknowledged or discarded;
//! * a **session** is a run of busy periods separated by idle gaps shorter than `session_gap`
//!   (TCP waiting for ACKs inside a transfer); a longer gap (a think time) ends it;
//! * **active time** = the busy periods plus the short gaps between them;
//! * `rlc_throughput_bps` = 8 × (RLC SDU bytes delivered in order to the UE) / active time,
//!   where an SDU is an IP packet and its bytes are the IP datagram's.
//!
//! The plain per-run rate, 8 × the same bytes / run time, is `run_throughput_bps`; the rate
//! over busy time only is `busy_throughput_bps`.

use celltcp_engine::{SimDuration, SimTime};

/// Busy periods and sessions of the downlink RLC (module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Activity {
    session_gap: SimDuration,
    /// Start of the busy period in progress.
    busy_since: Option<SimTime>,
    /// End of the last busy period.
    idle_since: Option<SimTime>,
    busy_ns: u64,
    /// Idle gaps shorter than `session_gap` between busy periods.
    gap_ns: u64,
    sessions: u64,
}

impl Activity {
    pub fn new(session_gap: SimDuration) -> Self {
        Activity {
            session_gap,
            busy_since: None,
            idle_since: None,
            busy_ns: 0,
            gap_ns: 0,
            sessions: 0,
        }
    }

    /// The RLC is busy (or not) from `now` on; times must not decrease.
    pub fn set(&mut self, now: SimTime, busy: bool) {
        match (self.busy_since, busy) {
            (None, true) => {
                match self.idle_since {
                    Some(idle) if now.saturating_since(idle) < self.session_gap => {
                        self.gap_ns += now.saturating_since(idle).as_ns();
                    }
                    _ => self.sessions += 1,
                }
                self.busy_since = Some(now);
            }
            (Some(start), false) => {
                self.busy_ns += now.saturating_since(start).as_ns();
                self.busy_since = None;
                self.idle_since = Some(now);
            }
            _ => {}
        }
    }

    pub fn is_busy(&self) -> bool {
        self.busy_since.is_some()
    }

    /// Busy time over [0, now].
    pub fn busy(&self, now: SimTime) -> SimDuration {
        let current = self
            .busy_since
            .map_or(0, |s| now.saturating_since(s).as_ns());
        SimDuration::from_ns(self.busy_ns + current)
    }

    /// Active time over [0, now]: busy time and the short gaps between busy periods.
    pub fn active(&self, now: SimTime) -> SimDuration {
        self.busy(now) + SimDuration::from_ns(self.gap_ns)
    }

    /// Sessions begun by `now`.
    pub fn sessions(&self) -> u64 {
        self.sessions
    }
}

/// SDUs delivered by one direction, at the receiving end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeliveryCounters {
    pub sdus: u64,
    /// IP bytes of the delivered SDUs.
    pub bytes: u64,
    /// Sum and maximum of the delay from `send` at the transmitting end to delivery, ns.
    pub delay_sum_ns: u128,
    pub delay_max_ns: u64,
    /// SDUs refused by the transmitting end's full buffer.
    pub refused: u64,
}

impl DeliveryCounters {
    pub(crate) fn record(&mut self, bytes: u32, delay: SimDuration) {
        self.sdus += 1;
        self.bytes += u64::from(bytes);
        self.delay_sum_ns += u128::from(delay.as_ns());
        self.delay_max_ns = self.delay_max_ns.max(delay.as_ns());
    }
}

/// Summary of one direction; rates are over [0, now].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DirectionReport {
    /// Nominal rate, bit/s, and the transport blocks per TTI it gives.
    pub rate_bps: u64,
    pub tbs_per_tti: u32,
    /// The rate the transport blocks carry, bit/s: whole RLC payloads per TTI, so below
    /// `rate_bps` when the nominal rate is not a whole number of payloads per TTI (100 kbit/s
    /// with 40-byte payloads and a 20 ms TTI carries 96 kbit/s; the standard DCH rates with
    /// 34.108's 320-bit payloads carry exactly their rate).
    pub payload_rate_bps: f64,
    pub tti_s: f64,
    /// SDUs (IP packets) delivered in order at the receiving end, and their bytes.
    pub sdus_delivered: u64,
    pub sdu_bytes_delivered: u64,
    /// 8 × delivered SDU bytes / run time, bit/s.
    pub run_throughput_bps: f64,
    /// SDUs refused by the transmitting end's full buffer.
    pub sdus_refused: u64,
    /// Mean and maximum delay from `send` at the transmitting end to delivery, s.
    pub delay_mean_s: f64,
    pub delay_max_s: f64,
    /// New AMD PDUs, and retransmitted ones.
    pub pdus_sent: u64,
    pub pdus_retransmitted: u64,
    /// Transport blocks sent and lost, and their ratio.
    pub tbs_sent: u64,
    pub tbs_lost: u64,
    pub bler_measured: f64,
    /// Blocks of this direction that carried STATUS PDUs (reports on the other direction's
    /// data) and MRWs.
    pub status_pdus: u64,
    pub mrw_pdus: u64,
    /// SDUs discarded after MaxDAT (25.322 §11.6), and the AMD PDUs discarded with them.
    pub max_dat_discards: u64,
    pub pdus_discarded: u64,
    /// SDUs the receiving end could not reassemble (a piece discarded).
    pub sdus_lost: u64,
    /// TTIs that carried at least one block.
    pub ttis: u64,
    /// Of those, TTIs in the bad state of a Gilbert–Elliott channel (0 with independent
    /// losses).
    pub ttis_bad: u64,
    /// SDU bytes waiting for their first transmission at the transmitting end: time-weighted
    /// mean over [0, now] and maximum.
    pub buffer_mean_bytes: f64,
    pub buffer_max_bytes: u64,
}

impl DirectionReport {
    /// Appends the figures as `(prefix + name, value)` in a fixed order.
    pub fn figures(&self, prefix: &str, out: &mut Vec<(String, f64)>) {
        let mut push = |k: &str, v: f64| out.push((format!("{prefix}{k}"), v));
        push("rate_bps", self.rate_bps as f64);
        push("tbs_per_tti", f64::from(self.tbs_per_tti));
        push("payload_rate_bps", self.payload_rate_bps);
        push("tti_s", self.tti_s);
        push("sdus_delivered", self.sdus_delivered as f64);
        push("sdu_bytes_delivered", self.sdu_bytes_delivered as f64);
        push("run_throughput_bps", self.run_throughput_bps);
        push("sdus_refused", self.sdus_refused as f64);
        push("delay_mean_s", self.delay_mean_s);
        push("delay_max_s", self.delay_max_s);
        push("pdus_sent", self.pdus_sent as f64);
        push("pdus_retransmitted", self.pdus_retransmitted as f64);
        push("tbs_sent", self.tbs_sent as f64);
        push("tbs_lost", self.tbs_lost as f64);
        push("bler_measured", self.bler_measured);
        push("status_pdus", self.status_pdus as f64);
        push("mrw_pdus", self.mrw_pdus as f64);
        push("max_dat_discards", self.max_dat_discards as f64);
        push("pdus_discarded", self.pdus_discarded as f64);
        push("sdus_lost", self.sdus_lost as f64);
        push("ttis", self.ttis as f64);
        push("ttis_bad", self.ttis_bad as f64);
        push("buffer_mean_bytes", self.buffer_mean_bytes);
        push("buffer_max_bytes", self.buffer_max_bytes as f64);
    }
}

/// Summary of a DCH at a given time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DchReport {
    /// The seed's RLC throughput of the downlink: 8 × SDU bytes delivered / active time, bit/s
    /// (module documentation); NaN before any activity.
    pub rlc_throughput_bps: f64,
    /// 8 × SDU bytes delivered / busy time, bit/s.
    pub busy_throughput_bps: f64,
    /// Active and busy time of the downlink RLC, s, and the sessions begun.
    pub rlc_active_s: f64,
    pub rlc_busy_s: f64,
    pub sessions: u64,
    pub downlink: DirectionReport,
    pub uplink: DirectionReport,
}

impl DchReport {
    /// The figures of [`Medium::report`](celltcp_net::medium::Medium::report): the downlink's
    /// under their own names, the uplink's prefixed `uplink.`.
    pub fn figures(&self, out: &mut Vec<(String, f64)>) {
        out.push(("rlc_throughput_bps".into(), self.rlc_throughput_bps));
        out.push(("busy_throughput_bps".into(), self.busy_throughput_bps));
        out.push(("rlc_active_s".into(), self.rlc_active_s));
        out.push(("rlc_busy_s".into(), self.rlc_busy_s));
        out.push(("sessions".into(), self.sessions as f64));
        self.downlink.figures("", out);
        self.uplink.figures("uplink.", out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> SimTime {
        SimTime::from_ns(ms * 1_000_000)
    }

    #[test]
    fn short_gaps_are_active_long_gaps_end_a_session() {
        let mut a = Activity::new(SimDuration::from_ms(1000));
        a.set(t(100), true);
        a.set(t(200), false);
        // 300 ms idle: inside the session.
        a.set(t(500), true);
        a.set(t(600), false);
        // 5 s idle: a new session.
        a.set(t(5600), true);
        a.set(t(5700), true); // no change
        assert!(a.is_busy());
        assert_eq!(a.busy(t(5800)), SimDuration::from_ms(400));
        assert_eq!(a.active(t(5800)), SimDuration::from_ms(700));
        assert_eq!(a.sessions(), 2);
        a.set(t(6000), false);
        a.set(t(6000), false);
        assert_eq!(a.active(t(9000)), SimDuration::from_ms(900));
    }
}
