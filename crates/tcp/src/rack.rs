//! Detection of lost retransmissions by RACK's time-based rule (RFC 8985 §6.2), in both
//! recovery states, as Linux applies it (`tcp_fastretrans_alert`: RACK's
//! `tcp_identify_packet_loss` runs on every ACK in Recovery and in Loss, and a lost
//! retransmission, FLAG_LOST_RETRANS, is sent again at once).
//!
//! Without it a retransmission lost again (at a queue that the retransmissions themselves
//! overflow, typically) is repaired only by the next retransmission timeout. After a long
//! stall the RTO can be many seconds — the RTT samples of packets that waited out the stall in
//! a queue are genuine, and RFC 6298 takes them in — so the flow stands still for that long
//! while SACKs show that everything sent after the lost retransmission arrives. In fast
//! recovery the timeout comes sooner but costs more: on a slow path with a full queue it finds
//! the other repairs still queued, and go-back-N sends them again.
//!
//! The rule (RFC 8985 §6.2 steps 2, 4 and 5): RACK.xmit_ts is the latest transmission time of
//! a segment delivered (cumulatively acknowledged or SACKed), RACK.rtt the RTT it measured. A
//! retransmission still in flight that was sent before RACK.xmit_ts is lost once
//! `now ≥ its transmission time + RACK.rtt + RACK.reo_wnd`, with RACK.reo_wnd = min_RTT / 4
//! (at most SRTT). Here it applies only to retransmissions, in fast recovery and in RTO
//! recovery, with SACK: the first transmissions are left to duplicate-ACK loss detection
//! (RFC 6675). The check runs on ACK arrival only; RACK's reordering timer, which would fire
//! when no further ACK comes, is not modelled (the retransmission timer remains the fallback).

use celltcp_engine::{SimDuration, SimTime};

use crate::send_buffer::SendBuffer;

/// RACK's record of the most recently sent segment that was delivered (RFC 8985 §6.1).
#[derive(Clone, Copy, Debug, Default)]
pub struct Rack {
    /// RACK.xmit_ts: the latest transmission time of a delivered segment.
    xmit_ts: Option<SimTime>,
    /// RACK.end_seq: the end of that segment, which breaks ties of transmission time.
    end: u64,
    /// RACK.rtt: the RTT measured by that segment.
    rtt: SimDuration,
}

impl Rack {
    /// RFC 8985 §6.2 step 2: a segment last sent at `sent` and ending at `end` was delivered
    /// (cumulatively acknowledged or SACKed) at `now`. A retransmitted segment delivered less
    /// than `min_rtt` after its retransmission is skipped: the original may have been what
    /// arrived, and the RTT would be too short.
    pub fn on_delivered(
        &mut self,
        sent: SimTime,
        end: u64,
        retransmitted: bool,
        now: SimTime,
        min_rtt: SimDuration,
    ) {
        let rtt = now.saturating_since(sent);
        if retransmitted && rtt < min_rtt {
            return;
        }
        if self
            .xmit_ts
            .is_none_or(|t| sent > t || (sent == t && end > self.end))
        {
            self.xmit_ts = Some(sent);
            self.end = end;
            self.rtt = rtt;
        }
    }

    /// RFC 8985 §6.2 step 5 for first transmissions, as the ACK of a tail loss probe applies it
    /// (§7.4.1, see [`crate::tlp`]): marks lost every segment not SACKed, not already lost,
    /// sent before RACK.xmit_ts and whose `RACK.rtt + reo_wnd` has passed. Returns whether
    /// any was marked.
    pub fn detect_lost(
        &self,
        buf: &mut SendBuffer,
        now: SimTime,
        min_rtt: SimDuration,
        srtt: SimDuration,
    ) -> bool {
        let Some(xmit_ts) = self.xmit_ts else {
            return false;
        };
        let reo_wnd = SimDuration(min_rtt.0 / 4).min(srtt);
        let mut marked = false;
        for i in 0..buf.segs.len() {
            let s = &buf.segs[i];
            if s.lost || s.sacked {
                continue;
            }
            let sent_before = s.sent_time < xmit_ts || (s.sent_time == xmit_ts && s.end < self.end);
            if sent_before && now >= s.sent_time + self.rtt + reo_wnd {
                buf.update(i, |s| {
                    s.lost = true;
                    s.retx_in_flight = false;
                });
                marked = true;
            }
        }
        marked
    }

    /// RFC 8985 §6.2 steps 4–5, for retransmissions in flight: marks every retransmission sent
    /// before RACK.xmit_ts whose `RACK.rtt + reo_wnd` has passed as no longer in flight (its
    /// segment stays lost, so NextSeg rule 1 sends it again). Returns the start of the lowest
    /// such segment, if any.
    pub fn detect_lost_retransmissions(
        &self,
        buf: &mut SendBuffer,
        now: SimTime,
        min_rtt: SimDuration,
        srtt: SimDuration,
    ) -> Option<u64> {
        let xmit_ts = self.xmit_ts?;
        // RFC 8985 §6.2 step 4: RACK.reo_wnd = min(RACK.min_RTT / 4, SRTT).
        let reo_wnd = SimDuration(min_rtt.0 / 4).min(srtt);
        let mut lowest = None;
        for i in 0..buf.segs.len() {
            let s = &buf.segs[i];
            if !(s.lost && s.retx_in_flight && !s.sacked) {
                continue;
            }
            let sent_before = s.sent_time < xmit_ts || (s.sent_time == xmit_ts && s.end < self.end);
            let deadline = s.sent_time + self.rtt + reo_wnd;
            if sent_before && now >= deadline {
                let start = s.start;
                buf.update(i, |s| s.retx_in_flight = false);
                lowest.get_or_insert(start);
            }
        }
        lowest
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rate::TxRecord;
    use crate::send_buffer::Segment;

    const MS: u64 = 1_000_000;

    fn at(ms: u64) -> SimTime {
        SimTime::from_ns(ms * MS)
    }

    /// Three 100-byte segments: 0 a retransmission in flight sent at 10 ms, 1 and 2 sent at
    /// 10 ms and 20 ms.
    fn board() -> SendBuffer {
        let mut b = SendBuffer::new(1 << 20);
        b.write(300, 1);
        for k in 0..3u64 {
            b.push(Segment {
                start: 1 + k * 100,
                end: 1 + (k + 1) * 100,
                fin: false,
                sent_time: at(if k == 2 { 20 } else { 10 }),
                tx_count: if k == 0 { 2 } else { 1 },
                sacked: false,
                lost: k == 0,
                retx_in_flight: k == 0,
                ts_val: 0,
                tx: TxRecord::default(),
            });
        }
        b.recount_pipe();
        b
    }

    /// RFC 8985 §6.2 step 5: lost once a later transmission is delivered and
    /// RACK.rtt + reo_wnd has passed since the retransmission; not before.
    #[test]
    fn a_retransmission_overtaken_by_a_later_transmission_is_lost_after_rtt_plus_reo_wnd() {
        let (min_rtt, srtt) = (SimDuration::from_ms(40), SimDuration::from_ms(50));
        let mut b = board();
        let mut rack = Rack::default();
        // Segment 2 (sent at 20 ms) delivered at 70 ms: RACK.rtt = 50 ms, reo_wnd = 10 ms, so
        // segment 0 (sent at 10 ms) is lost from 70 ms on.
        rack.on_delivered(at(20), 301, false, at(70), min_rtt);
        assert_eq!(
            rack.detect_lost_retransmissions(&mut b, at(69), min_rtt, srtt),
            None
        );
        assert!(b.segs[0].retx_in_flight);
        assert_eq!(
            rack.detect_lost_retransmissions(&mut b, at(70), min_rtt, srtt),
            Some(1)
        );
        assert!(b.segs[0].lost && !b.segs[0].retx_in_flight);
        // No longer in pipe: only segments 1 and 2 remain.
        assert_eq!(b.pipe(), 200);
    }

    /// Segments sent at the same instant are ordered by sequence (RACK.end_seq); a later
    /// segment of the same instant delivered counts, an earlier one does not.
    #[test]
    fn same_instant_transmissions_are_ordered_by_sequence() {
        let (min_rtt, srtt) = (SimDuration::from_ms(40), SimDuration::from_ms(50));
        let mut b = board();
        let mut rack = Rack::default();
        rack.on_delivered(at(10), 201, false, at(60), min_rtt);
        assert_eq!(
            rack.detect_lost_retransmissions(&mut b, at(70), min_rtt, srtt),
            Some(1)
        );
        // A retransmission delivered sooner than min_RTT after it was sent is not used: the
        // original may be what arrived.
        let mut b = board();
        let mut rack = Rack::default();
        rack.on_delivered(at(20), 301, true, at(50), min_rtt);
        assert_eq!(
            rack.detect_lost_retransmissions(&mut b, at(100), min_rtt, srtt),
            None
        );
    }
}
