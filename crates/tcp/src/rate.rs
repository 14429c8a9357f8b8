//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-02).
//!
//! Each transmitted segment remembers the connection's delivery state when it left
//! ([`TxRecord`]); each ACK that newly delivers segments produces one [`RateSample`] from the
//! most recently sent of them: delivered bytes over max(send interval, ACK interval).

use celltcp_engine::{SimDuration, SimTime};

use crate::cc::RateSample;

/// Delivery state captured per transmission (the draft's P.delivered, P.delivered_time,
/// P.first_sent_time, P.is_app_limited and P.sent_time).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxRecord {
    /// Bytes delivered on the connection when the segment was sent.
    pub delivered: u64,
    pub delivered_time: SimTime,
    pub first_sent_time: SimTime,
    pub sent_time: SimTime,
    pub is_app_limited: bool,
}

/// The sample being assembled from the segments one ACK delivers.
#[derive(Clone, Copy, Debug)]
struct Pending {
    prior_delivered: u64,
    prior_time: SimTime,
    send_elapsed: SimDuration,
    ack_elapsed: SimDuration,
    is_app_limited: bool,
}

/// Connection-level state (the draft's C.delivered, C.delivered_time, C.first_sent_time,
/// C.app_limited).
#[derive(Clone, Debug, Default)]
pub struct RateEstimator {
    delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    /// 0 when not application-limited; otherwise the `delivered` value after which the
    /// limitation has left the network (draft §3.4).
    app_limited: u64,
    pending: Option<Pending>,
}

impl RateEstimator {
    /// Total bytes delivered (cumulatively or selectively acknowledged).
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Draft §3.2 "Transmitting a data packet": snapshot the delivery state; when nothing is
    /// in flight the send and ACK clocks restart now.
    pub fn on_send(&mut self, now: SimTime, bytes_in_flight: u64) -> TxRecord {
        if bytes_in_flight == 0 {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        TxRecord {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            sent_time: now,
            is_app_limited: self.app_limited != 0,
        }
    }

    /// Draft §3.3 "Upon receiving ACK", per newly delivered segment of `bytes`.
    pub fn on_delivered(&mut self, now: SimTime, tx: &TxRecord, bytes: u64) {
        self.delivered += bytes;
        self.delivered_time = now;
        let newer = self
            .pending
            .is_none_or(|p| tx.delivered >= p.prior_delivered);
        if newer {
            self.pending = Some(Pending {
                prior_delivered: tx.delivered,
                prior_time: tx.delivered_time,
                send_elapsed: tx.sent_time.saturating_since(tx.first_sent_time),
                ack_elapsed: now.saturating_since(tx.delivered_time),
                is_app_limited: tx.is_app_limited,
            });
            // Restart the send interval at this segment's transmission.
            self.first_sent_time = tx.sent_time;
        }
    }

    /// Draft §3.3 end of ACK processing: the sample, or `None` when nothing was delivered or
    /// the interval is shorter than `min_rtt` (such samples over-estimate, draft §3.3).
    pub fn take_sample(&mut self, min_rtt: SimDuration) -> Option<RateSample> {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let p = self.pending.take()?;
        let delivered = self.delivered - p.prior_delivered;
        let interval = p.send_elapsed.max(p.ack_elapsed);
        if delivered == 0 || interval.0 == 0 || interval < min_rtt {
            return None;
        }
        let _ = p.prior_time;
        let rate = (delivered as u128 * 8 * 1_000_000_000 / interval.0 as u128) as u64;
        Some(RateSample {
            delivery_rate_bps: rate,
            interval,
            delivered,
            prior_delivered: p.prior_delivered,
            is_app_limited: p.is_app_limited,
        })
    }

    /// Draft §3.4: the sender had nothing to send although the window allowed it; samples of
    /// data sent from now until this flight is delivered are marked application-limited.
    pub fn mark_app_limited(&mut self, bytes_in_flight: u64) {
        self.app_limited = (self.delivered + bytes_in_flight).max(1);
    }

    /// The flight an application-limited mark waits for is gone: after a retransmission
    /// timeout every outstanding segment is deemed lost (RFC 6675 §5.1) and is sent again under
    /// a one-segment window, so the sender is window-limited from now on.
    pub fn clear_app_limited(&mut self) {
        self.app_limited = 0;
    }

    pub fn is_app_limited(&self) -> bool {
        self.app_limited != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn steady_flow_measures_its_rate() {
        // 10 segments of 1000 B sent 1 ms apart, each acked 50 ms after sending.
        let mut r = RateEstimator::default();
        let mut txs = vec![];
        for i in 0..10u64 {
            let in_flight = if i == 0 { 0 } else { 1000 * i };
            txs.push(r.on_send(SimTime(i * MS), in_flight));
        }
        let mut last = None;
        for (i, tx) in txs.iter().enumerate() {
            r.on_delivered(SimTime((50 + i as u64) * MS), tx, 1000);
            last = r.take_sample(SimDuration::from_ms(1));
        }
        // Every segment left before the first delivery (prior_delivered = 0), so the last ACK
        // yields 10 000 B over the ACK interval of 59 ms, the larger of the two intervals.
        let s = last.unwrap();
        assert_eq!(s.delivered, 10_000);
        assert_eq!(s.interval, SimDuration::from_ms(59));
        assert_eq!(s.delivery_rate_bps, 10_000 * 8 * 1000 / 59);
    }

    #[test]
    fn short_intervals_are_discarded_and_app_limited_is_marked() {
        let mut r = RateEstimator::default();
        r.mark_app_limited(0);
        let tx = r.on_send(SimTime(0), 0);
        assert!(tx.is_app_limited);
        r.on_delivered(SimTime(MS), &tx, 1000);
        assert!(r.take_sample(SimDuration::from_ms(10)).is_none());
        assert!(!r.is_app_limited());
        let tx = r.on_send(SimTime(2 * MS), 0);
        r.on_delivered(SimTime(22 * MS), &tx, 1000);
        let s = r.take_sample(SimDuration::from_ms(10)).unwrap();
        assert_eq!(s.delivery_rate_bps, 1000 * 8 * 50);
        assert!(!s.is_app_limited);
    }
}
