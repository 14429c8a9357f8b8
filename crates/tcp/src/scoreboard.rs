//! The SACK scoreboard algorithms of RFC 6675 §4 over the [`SendBuffer`]'s segments: SACK
//! processing (RFC 2018 §4–5), IsLost, SetPipe and the retransmission rules of NextSeg.
//!
//! Deviation, stated once: RFC 6675 counts an octet in pipe twice when it lies below the
//! pointer HighRxt; here each segment remembers whether a retransmission of it is in flight,
//! which is what the pointer approximates, so segments skipped by NextSeg are not counted twice.

use crate::send_buffer::{Segment, SendBuffer};

/// Which NextSeg rule chose a retransmission (RFC 6675 §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSegRule {
    /// Rule 1: a segment deemed lost above HighRxt (also used for every lost segment during
    /// RTO recovery and for NewReno's marked holes).
    Lost,
    /// Rule 3: an unSACKed segment above HighRxt below HighSACK, not yet deemed lost.
    Unsacked,
    /// Rule 4: the rescue retransmission of the highest unSACKed segment.
    Rescue,
}

impl SendBuffer {
    /// Marks the segments covered by `blocks` (offsets, half-open) as SACKed, calling `f` on
    /// each newly SACKed segment; returns the newly SACKed bytes. Blocks outside
    /// (SND.UNA, SND.NXT] are ignored as RFC 2018 §5 and RFC 2883 (D-SACK) allow.
    pub fn apply_sack(
        &mut self,
        blocks: &[(u64, u64)],
        snd_una: u64,
        snd_nxt: u64,
        mut f: impl FnMut(&Segment),
    ) -> u64 {
        let mut newly = 0;
        for &(left, right) in blocks {
            if left >= right || left < snd_una || right > snd_nxt {
                continue;
            }
            let mut i = self.index_from(left);
            while i < self.segs.len() && self.segs[i].end <= right {
                let s = &mut self.segs[i];
                if !s.sacked {
                    self.pipe_bytes -= s.in_pipe();
                    s.sacked = true;
                    s.retx_in_flight = false;
                    newly += s.len();
                    f(s);
                }
                i += 1;
            }
            self.high_sacked = self.high_sacked.max(right);
        }
        newly
    }

    /// RFC 6675 §4 IsLost, applied to every unSACKed segment below HighSACK: a segment is lost
    /// when `dupthresh` SACKed segments, or more than (DupThresh − 1)·SMSS SACKed bytes, lie
    /// above it. Marks are sticky. Returns true if any segment became lost.
    pub fn update_lost(&mut self, dupthresh: u32, smss: u64) -> bool {
        if self.high_sacked == 0 {
            return false;
        }
        let byte_limit = (dupthresh.saturating_sub(1) as u64).saturating_mul(smss);
        let mut sacked_segs = 0u32;
        let mut sacked_bytes = 0u64;
        let mut any = false;
        let top = self.index_from(self.high_sacked);
        for i in (0..top).rev() {
            let s = &mut self.segs[i];
            if s.sacked {
                sacked_segs += 1;
                sacked_bytes += s.len();
            } else if sacked_segs >= dupthresh || sacked_bytes > byte_limit {
                if s.lost {
                    // Everything below an already-lost segment was marked by an earlier pass.
                    break;
                }
                let before = s.in_pipe();
                s.lost = true;
                self.lost_marks += 1;
                self.pipe_bytes = self.pipe_bytes - before + s.in_pipe();
                self.high_lost = self.high_lost.max(s.end);
                any = true;
            }
        }
        any
    }

    /// Marks the segment starting at or containing `offset` lost (fast retransmit of the first
    /// hole, RFC 6582 partial ACKs); returns whether a segment was found.
    pub fn mark_lost_at(&mut self, offset: u64) -> bool {
        if let Some(i) = self.index_of(offset) {
            if !self.segs[i].sacked {
                self.update(i, |s| {
                    s.lost = true;
                    s.retx_in_flight = false;
                });
                let s = &self.segs[i];
                self.high_lost = self.high_lost.max(s.end);
                return true;
            }
        }
        false
    }

    /// After a retransmission timeout every unSACKed outstanding segment is deemed lost and
    /// no earlier retransmission is assumed to survive (RFC 6675 §5.1, RFC 5681 §3.1 go-back-N).
    pub fn mark_all_lost(&mut self) {
        for s in self.segs.iter_mut().filter(|s| !s.sacked) {
            self.lost_marks += u64::from(!s.lost || s.retx_in_flight);
            s.lost = true;
            s.retx_in_flight = false;
        }
        self.high_lost = self.segs.back().map_or(0, |s| s.end);
        self.recount_pipe();
    }

    /// Undoes the marks of a timeout found spurious: segments not retransmitted since are
    /// assumed still in flight (RFC 4015 §4: resume with new data).
    pub fn unmark_unretransmitted(&mut self) {
        for s in self.segs.iter_mut() {
            if s.lost && !s.retx_in_flight {
                s.lost = false;
            }
        }
        self.recount_pipe();
    }

    /// RFC 6675 §4 SetPipe: bytes presumed in the network (kept incrementally).
    pub fn pipe(&self) -> u64 {
        #[cfg(test)]
        debug_assert_eq!(
            self.pipe_bytes,
            self.segs.iter().map(Segment::in_pipe).sum::<u64>()
        );
        self.pipe_bytes
    }

    /// Whether the segment starting at SND.UNA is deemed lost (IsLost(HighACK + 1)).
    pub fn first_is_lost(&self) -> bool {
        self.segs.front().is_some_and(|s| s.lost && !s.sacked)
    }

    /// NextSeg rule 1: the first lost, unSACKed segment at or above `high_rxt` without a
    /// retransmission in flight.
    pub fn next_lost(&self, high_rxt: u64) -> Option<usize> {
        let start = self.index_from(high_rxt);
        (start..self.segs.len())
            .take_while(|&i| self.segs[i].start < self.high_lost)
            .find(|&i| {
                let s = &self.segs[i];
                s.lost && !s.sacked && !s.retx_in_flight
            })
    }

    /// NextSeg rule 3: the first unSACKed segment at or above `high_rxt` below HighSACK
    /// without a retransmission in flight.
    pub fn next_unsacked(&self, high_rxt: u64) -> Option<usize> {
        let start = self.index_from(high_rxt);
        (start..self.segs.len())
            .take_while(|&i| self.segs[i].end <= self.high_sacked)
            .find(|&i| !self.segs[i].sacked && !self.segs[i].retx_in_flight)
    }

    /// NextSeg rule 4: the highest unSACKed outstanding segment.
    pub fn rescue_candidate(&self) -> Option<usize> {
        (0..self.segs.len())
            .rev()
            .find(|&i| !self.segs[i].sacked && !self.segs[i].retx_in_flight)
    }

    /// Forgets SACK state below SND.UNA after a cumulative ACK.
    pub fn on_cumulative_ack(&mut self, snd_una: u64) {
        if self.high_sacked <= snd_una {
            self.high_sacked = 0;
        }
        if self.high_lost <= snd_una {
            self.high_lost = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use celltcp_engine::SimTime;

    use super::*;
    use crate::rate::TxRecord;

    const MSS: u64 = 100;

    /// Ten outstanding segments of 100 bytes: offsets 1..1001.
    fn board() -> SendBuffer {
        let mut b = SendBuffer::new(1 << 20);
        b.write(1000, 1);
        for k in 0..10 {
            b.push(Segment {
                start: 1 + k * MSS,
                end: 1 + (k + 1) * MSS,
                fin: false,
                sent_time: SimTime::ZERO,
                tx_count: 1,
                sacked: false,
                lost: false,
                retx_in_flight: false,
                ts_val: 0,
                tx: TxRecord::default(),
            });
        }
        b
    }

    #[test]
    fn sack_blocks_mark_whole_segments_only() {
        let mut b = board();
        let n = b.apply_sack(&[(201, 401), (450, 601)], 1, 1001, |_| {});
        // (201,401) covers segments 3 and 4; (450,601) covers only segment 6 (501..601).
        assert_eq!(n, 300);
        assert!(b.segs[2].sacked && b.segs[3].sacked && !b.segs[4].sacked && b.segs[5].sacked);
        assert_eq!(b.high_sacked, 601);
        // Repeated blocks add nothing; blocks beyond SND.NXT are ignored.
        assert_eq!(
            b.apply_sack(&[(201, 401), (1001, 1101)], 1, 1001, |_| {}),
            0
        );
    }

    #[test]
    fn is_lost_needs_dupthresh_segments_or_bytes_above() {
        let mut b = board();
        // Two SACKed segments above segment 0: 200 bytes = (3-1)·SMSS, not more → not lost.
        b.apply_sack(&[(101, 301)], 1, 1001, |_| {});
        assert!(!b.update_lost(3, MSS));
        assert!(!b.first_is_lost());
        // A third SACKed segment: lost.
        b.apply_sack(&[(301, 401)], 1, 1001, |_| {});
        assert!(b.update_lost(3, MSS));
        assert!(b.first_is_lost());
        // Discontiguous: segments 6 and 8 SACKed above hole 4/5/7: 5 has 2 above → not lost.
        let mut b = board();
        b.apply_sack(&[(601, 701), (801, 901)], 1, 1001, |_| {});
        b.update_lost(3, MSS);
        assert!(!b.segs[5].lost && !b.segs[4].lost);
    }

    #[test]
    fn pipe_and_nextseg_rules() {
        let mut b = board();
        assert_eq!(b.pipe(), 1000);
        b.apply_sack(&[(201, 501)], 1, 1001, |_| {});
        b.update_lost(3, MSS);
        // Segments 0 and 1 lost, 2..4 SACKed, 5..9 in flight.
        assert_eq!(b.pipe(), 500);
        assert_eq!(b.next_lost(1), Some(0));
        b.update(0, |s| s.retx_in_flight = true);
        assert_eq!(b.pipe(), 600);
        assert_eq!(b.next_lost(101), Some(1));
        b.update(1, |s| s.retx_in_flight = true);
        assert_eq!(b.next_lost(201), None);
        // Rule 3 finds nothing below HighSACK = 501; rule 4 rescues the highest unSACKed.
        assert_eq!(b.next_unsacked(201), None);
        assert_eq!(b.rescue_candidate(), Some(9));
    }

    #[test]
    fn lost_marks_count_each_segment_deemed_lost_and_each_lost_retransmission() {
        let mut b = board();
        b.apply_sack(&[(201, 501)], 1, 1001, |_| {});
        b.update_lost(3, MSS);
        assert_eq!(b.lost_marks(), 2, "segments 0 and 1");
        b.update_lost(3, MSS);
        assert_eq!(b.lost_marks(), 2, "marks are not counted twice");
        // Segment 0 retransmitted, and that retransmission deemed lost too (RACK): 3.
        b.update(0, |s| s.retx_in_flight = true);
        b.update(0, |s| s.retx_in_flight = false);
        assert_eq!(b.lost_marks(), 3);
        // An RTO deems lost the five still in flight (5..9); 0 and 1 are already lost.
        b.mark_all_lost();
        assert_eq!(b.lost_marks(), 8);
    }

    #[test]
    fn rto_marks_everything_and_spurious_undo_unmarks() {
        let mut b = board();
        b.update(0, |s| s.retx_in_flight = true);
        b.mark_all_lost();
        assert_eq!(b.pipe(), 0);
        assert_eq!(b.next_lost(1), Some(0));
        b.update(0, |s| s.retx_in_flight = true);
        b.unmark_unretransmitted();
        assert_eq!(b.pipe(), 1000);
    }
}
