//! Tail Loss Probe (RFC 8985 §7): when the ACKs of a flight stop coming, send one probe two
//! SRTTs after the last transmission instead of waiting for the retransmission timer, so that
//! the probe's ACK shows what the tail lost and fast recovery repairs it.
//!
//! The probe timeout (§7.2) is PTO = 2·SRTT, plus the receiver's worst-case delayed-ACK time
//! when FlightSize is one segment (a lone segment may wait for the delayed-ACK timer), 1 s
//! before any RTT sample, and never later than the retransmission timer. It is armed after new
//! data is sent (not a probe) and after an ACK that advances SND.UNA, when SACK is in use, no
//! segment is SACKed, the sender is not recovering and no probe is outstanding.
//!
//! At the PTO (§7.3) the probe is a new segment if the application and the receive window
//! allow one (regardless of cwnd), else a retransmission of the highest-sequence segment sent;
//! TLP.end_seq = SND.NXT marks the episode, which allows no further probe, and the RTO is
//! restarted. The probe's ACK (§7.4.1) lets RACK (§6.2) mark as lost the segments sent before
//! the probe whose RACK.rtt + reo_wnd has passed, and fast recovery starts; here that RACK
//! rule runs only in a TLP episode (the endpoint otherwise leaves first transmissions to
//! RFC 6675's duplicate-ACK count, see [`crate::rack`]). The episode ends (§7.4.2) when an ACK
//! reaches TLP.end_seq: a probe of new data needs nothing more; a retransmitted probe that the
//! ACK passes repaired a loss the congestion controller must hear of; a duplicate ACK without
//! SACK says the probe was not needed. RFC 8985's first case, a DSACK of the probe, does not
//! arise: the receiver model sends no DSACK (RFC 2883). Fast recovery and RTO recovery end an
//! episode as well (§7.1: the TLP state is reset when either starts).

use celltcp_engine::{SimDuration, SimTime};

/// TLP.max_ack_delay (WCDelAckT, the worst-case delayed-ACK time, in the drafts), added to the
/// PTO when one segment is in flight: RFC 8985 §7.2 recommends 200 ms; Linux's
/// `TCP_DELACK_MAX` is also 200 ms.
pub const MAX_ACK_DELAY: SimDuration = SimDuration::from_ms(200);

/// The PTO before any RTT sample (RFC 8985 §7.2: 1 s, as RFC 6298's initial RTO).
pub const PTO_WITHOUT_SRTT: SimDuration = SimDuration::from_secs(1);

/// RFC 8985 §7.2 `TLP_calc_PTO`: the probe timeout from `now`, given the smoothed RTT (`None`
/// before a sample), whether FlightSize is one segment, and when the retransmission timer
/// expires (the PTO never goes past it).
pub fn probe_timeout(
    now: SimTime,
    srtt: Option<SimDuration>,
    one_segment_in_flight: bool,
    rto_expiry: Option<SimTime>,
) -> SimDuration {
    let pto = match srtt {
        Some(srtt) if one_segment_in_flight => SimDuration(2 * srtt.0) + MAX_ACK_DELAY,
        Some(srtt) => SimDuration(2 * srtt.0),
        None => PTO_WITHOUT_SRTT,
    };
    match rto_expiry {
        Some(rto) if now + pto > rto => rto.saturating_since(now),
        _ => pto,
    }
}

/// The TLP state of a sender (RFC 8985 §7.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tlp {
    /// When the PTO timer expires, if armed.
    deadline: Option<SimTime>,
    /// The PTO expired: the next transmission opportunity sends the probe.
    probe_due: bool,
    /// TLP.end_seq: SND.NXT when the probe was sent; `None` outside an episode.
    end_seq: Option<u64>,
    /// TLP.is_retrans: the probe was a retransmission (not new data).
    is_retrans: bool,
}

/// What the ACK that ends an episode says (RFC 8985 §7.4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EpisodeEnd {
    /// The episode goes on (the ACK is below TLP.end_seq, or it is ambiguous).
    Continues,
    /// Over without a loss: a probe of new data was delivered, or a duplicate ACK without SACK
    /// said the retransmitted probe was not needed.
    NoLoss,
    /// Over: the retransmitted probe repaired a loss, which the controller must hear of.
    RepairedLoss,
}

impl Tlp {
    /// When the PTO timer expires, if armed.
    pub fn deadline(&self) -> Option<SimTime> {
        self.deadline
    }

    /// RFC 8985 §7.2: the PTO timer runs until `at`.
    pub fn arm(&mut self, at: SimTime) {
        self.deadline = Some(at);
    }

    /// The PTO timer stops.
    pub fn stop_timer(&mut self) {
        self.deadline = None;
    }

    /// At `now`: if the PTO expired, the timer stops and the probe is due when `may_probe`
    /// (RFC 8985 §7.3: not when the RTO expires at the same instant, nor in recovery).
    pub fn on_timer(&mut self, now: SimTime, may_probe: bool) {
        if self.deadline.is_some_and(|d| d <= now) {
            self.deadline = None;
            self.probe_due = may_probe;
        }
    }

    /// Whether the probe is due; it is then taken.
    pub fn take_probe_due(&mut self) -> bool {
        std::mem::take(&mut self.probe_due)
    }

    /// RFC 8985 §7.1: no episode, no timer (at a connection's start, and when fast recovery or
    /// RTO recovery starts).
    pub fn reset(&mut self) {
        *self = Tlp::default();
    }

    /// A TLP episode is in progress: no further probe until it ends.
    pub fn in_episode(&self) -> bool {
        self.end_seq.is_some()
    }

    /// RFC 8985 §7.3: the probe has been sent; SND.NXT is now `snd_nxt`.
    pub fn on_probe_sent(&mut self, snd_nxt: u64, is_retrans: bool) {
        self.probe_due = false;
        self.deadline = None;
        self.end_seq = Some(snd_nxt);
        self.is_retrans = is_retrans;
    }

    /// RFC 8985 §7.4.2 `TLP_process_ack` for an ACK of `ack`; `dup_without_sack` is an RFC 5681
    /// duplicate ACK carrying no SACK option.
    pub fn on_ack(&mut self, ack: u64, dup_without_sack: bool) -> EpisodeEnd {
        let Some(end) = self.end_seq else {
            return EpisodeEnd::Continues;
        };
        if ack < end {
            return EpisodeEnd::Continues;
        }
        let outcome = if !self.is_retrans {
            EpisodeEnd::NoLoss
        } else if ack > end {
            EpisodeEnd::RepairedLoss
        } else if dup_without_sack {
            EpisodeEnd::NoLoss
        } else {
            return EpisodeEnd::Continues;
        };
        self.end_seq = None;
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_ms(ms)
    }

    /// RFC 8985 §7.2: 2·SRTT; + max_ack_delay with one segment in flight; 1 s without a
    /// sample; capped at the RTO's expiry.
    #[test]
    fn the_probe_timeout_is_two_srtt_plus_the_delayed_ack_allowance_at_most_the_rto() {
        let srtt = Some(SimDuration::from_ms(100));
        let rto = Some(at(10_000));
        assert_eq!(
            probe_timeout(at(0), srtt, false, rto),
            SimDuration::from_ms(200)
        );
        assert_eq!(
            probe_timeout(at(0), srtt, true, rto),
            SimDuration::from_ms(400)
        );
        assert_eq!(probe_timeout(at(0), None, false, rto), PTO_WITHOUT_SRTT);
        // The retransmission timer 150 ms away bounds the PTO.
        assert_eq!(
            probe_timeout(at(0), srtt, true, Some(at(150))),
            SimDuration::from_ms(150)
        );
        assert_eq!(
            probe_timeout(at(200), srtt, false, Some(at(150))),
            SimDuration::ZERO
        );
    }

    /// RFC 8985 §7.4.2: the four outcomes of the ACK at or beyond TLP.end_seq.
    #[test]
    fn an_episode_ends_by_the_rules_of_tlp_process_ack() {
        let mut t = Tlp::default();
        t.on_probe_sent(5_000, false);
        assert_eq!(t.on_ack(4_000, false), EpisodeEnd::Continues);
        assert_eq!(t.on_ack(5_000, false), EpisodeEnd::NoLoss);
        assert!(!t.in_episode());

        t.on_probe_sent(5_000, true);
        // Reaching TLP.end_seq exactly, with SACK or an advance, is ambiguous: the episode
        // waits for an ACK beyond it.
        assert_eq!(t.on_ack(5_000, false), EpisodeEnd::Continues);
        assert_eq!(t.on_ack(6_000, false), EpisodeEnd::RepairedLoss);
        assert!(!t.in_episode());

        t.on_probe_sent(5_000, true);
        assert_eq!(t.on_ack(5_000, true), EpisodeEnd::NoLoss);
        assert_eq!(t.on_ack(9_000, false), EpisodeEnd::Continues);
    }
}
