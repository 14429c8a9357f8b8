//! Test fixtures shared by the controller tests: ACK builders and the scripted trace whose
//! (cwnd, ssthresh) sequence each controller pins in its snapshot test.

use super::{
    AckEvent, CcConfig, CongestionControl, CongestionEvent, CongestionKind, RateSample, RtoEvent,
};
use celltcp_engine::{SimDuration, SimTime};

/// A plain new-data ACK of `bytes` at time zero, outside recovery, with no RTT sample.
pub fn ack(bytes: u64) -> AckEvent {
    AckEvent {
        now: SimTime::ZERO,
        acked_bytes: bytes,
        duplicate: false,
        snd_una_advanced: true,
        rtt_sample: None,
        ca_rtt: None,
        srtt: SimDuration::ZERO,
        min_rtt: SimDuration::ZERO,
        prior_in_flight: 0,
        bytes_in_flight: 0,
        in_recovery: false,
        rate_sample: None,
        app_limited: false,
        ..AckEvent::default()
    }
}

/// A new-data ACK at `now` carrying an RTT sample `rtt` (also used as srtt and min_rtt).
pub fn ack_at(now: SimTime, bytes: u64, rtt: SimDuration) -> AckEvent {
    AckEvent {
        now,
        rtt_sample: Some(rtt),
        ca_rtt: Some(rtt),
        srtt: rtt,
        min_rtt: rtt,
        ..ack(bytes)
    }
}

/// A fast-retransmit congestion event.
pub fn loss(now: SimTime, flight: u64, srtt: SimDuration, min_rtt: SimDuration) -> CongestionEvent {
    CongestionEvent {
        now,
        kind: CongestionKind::FastRetransmit,
        bytes_in_flight: flight,
        srtt,
        min_rtt,
    }
}

/// A first retransmission-timer expiry whose recent RTTs all equal `rtt`.
pub fn rto(now: SimTime, flight: u64, rtt: SimDuration) -> RtoEvent {
    RtoEvent {
        now,
        bytes_in_flight: flight,
        consecutive: 1,
        srtt: rtt,
        min_rtt: rtt,
        recent_rtts: [rtt; 4],
    }
}

/// RTT of the scripted trace.
pub const TRACE_RTT: SimDuration = SimDuration::from_ms(20);
/// ACK spacing of the scripted trace: one MSS per millisecond (11.584 Mb/s at MSS 1448).
pub const TRACE_ACK_GAP: SimDuration = SimDuration::from_ms(1);
/// ACK indices after which the scripted trace records (cwnd, ssthresh).
pub const TRACE_POINTS: [usize; 9] = [49, 99, 100, 109, 110, 149, 150, 160, 199];

/// The scripted trace of the snapshot tests, with the default [`CcConfig`] (MSS 1448, IW 10,
/// ABC L = 2).
///
/// 200 ACK slots, one every [`TRACE_ACK_GAP`] starting at one [`TRACE_RTT`], each normally
/// acknowledging one MSS with an RTT sample of [`TRACE_RTT`] and a delivery-rate sample of a
/// constant-rate path (20 MSS per RTT, i.e. 11.584 Mb/s; the first round ramps up). Events:
/// * slots 98–100 are duplicate ACKs; after slot 100 (the third) a fast-retransmit congestion
///   event with FlightSize = cwnd;
/// * slots 101–109 are partial ACKs in recovery; slot 110 is the full ACK (4 MSS) followed by
///   `on_recovery_exit`;
/// * slot 150 carries no ACK: the retransmission timer expires instead (first expiry);
/// * slots 151–159 are ACKs during RTO loss recovery; 160–199 ordinary ACKs.
///
/// Bytes in flight are taken as the window (a cwnd-limited bulk sender). Returns the
/// (slot, cwnd, ssthresh) triples at [`TRACE_POINTS`].
pub fn run_trace(cc: &mut dyn CongestionControl) -> Vec<(usize, u64, u64)> {
    let mss = u64::from(CcConfig::default().mss);
    let mut out = Vec::new();
    let mut delivered = 0u64;
    for i in 0..200usize {
        let now = SimTime::ZERO + TRACE_RTT + TRACE_ACK_GAP.saturating_mul(i as u64);
        let cwnd = cc.cwnd();
        if i == 150 {
            cc.on_rto(&rto(now, cwnd, TRACE_RTT));
        } else {
            let duplicate = (98..=100).contains(&i);
            let acked = if duplicate {
                0
            } else if i == 110 {
                4 * mss
            } else {
                mss
            };
            delivered += acked;
            let in_round = delivered.min(20 * mss);
            let rate_sample = (acked > 0).then(|| RateSample {
                delivery_rate_bps: in_round * 8 * 1_000_000_000 / TRACE_RTT.as_ns(),
                interval: TRACE_RTT,
                delivered: in_round,
                prior_delivered: delivered - in_round,
                is_app_limited: false,
            });
            let ev = AckEvent {
                now,
                acked_bytes: acked,
                duplicate,
                snd_una_advanced: !duplicate && acked > 0,
                rtt_sample: (!duplicate).then_some(TRACE_RTT),
                ca_rtt: (!duplicate).then_some(TRACE_RTT),
                srtt: TRACE_RTT,
                min_rtt: TRACE_RTT,
                prior_in_flight: cwnd,
                bytes_in_flight: cwnd.saturating_sub(acked),
                in_recovery: (101..=110).contains(&i) || (151..=159).contains(&i),
                in_rto_recovery: (151..=159).contains(&i),
                rate_sample,
                app_limited: false,
                ..AckEvent::default()
            };
            cc.on_ack(&ev);
            if i == 100 {
                cc.on_congestion_event(&loss(now, cwnd, TRACE_RTT, TRACE_RTT));
            }
            if i == 110 {
                cc.on_recovery_exit(now);
            }
        }
        if TRACE_POINTS.contains(&i) {
            out.push((i, cc.cwnd(), cc.ssthresh()));
        }
    }
    out
}
