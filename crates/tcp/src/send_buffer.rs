//! The send side's record of the byte stream: what the application wrote, which segments are
//! outstanding and what is known about each (the per-segment state RFC 6675 calls the
//! scoreboard; its algorithms live in [`crate::scoreboard`]).
//!
//! Positions are 64-bit offsets from the ISS (see [`crate::seq`]): the SYN is offset 0,
//! application byte i (0-based) is offset 1 + i, the FIN follows the last byte.

use std::collections::VecDeque;

use celltcp_engine::SimTime;

use crate::rate::TxRecord;

/// One transmitted segment, kept until cumulatively acknowledged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// First offset covered.
    pub start: u64,
    /// One past the last offset covered (the FIN counts one).
    pub end: u64,
    /// The segment carries the FIN.
    pub fin: bool,
    /// Last transmission time.
    pub sent_time: SimTime,
    /// Transmissions so far (1 = never retransmitted).
    pub tx_count: u32,
    /// Covered by a SACK block (RFC 2018).
    pub sacked: bool,
    /// Deemed lost (RFC 6675 IsLost, fast retransmit, or RTO); stays set after the
    /// retransmission, which `retx_in_flight` records.
    pub lost: bool,
    /// A retransmission of it is in the network (counts in pipe, RFC 6675 §4 SetPipe (b)).
    pub retx_in_flight: bool,
    /// TSval of the last transmission, for Eifel detection.
    pub ts_val: u32,
    /// Delivery-rate state at the last transmission.
    pub tx: TxRecord,
}

impl Segment {
    /// Sequence space covered, bytes (payload plus one for a FIN).
    #[inline]
    pub fn len(&self) -> u64 {
        self.end - self.start
    }

    /// A segment always covers at least one offset; provided for symmetry with `len`.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }

    /// Application payload carried, bytes.
    #[inline]
    pub fn payload(&self) -> u64 {
        self.len() - self.fin as u64
    }

    /// Bytes this segment contributes to RFC 6675 pipe: once if not lost, once more for a
    /// retransmission in flight; nothing once SACKed.
    #[inline]
    pub fn in_pipe(&self) -> u64 {
        if self.sacked {
            0
        } else {
            self.len() * ((!self.lost) as u64 + self.retx_in_flight as u64)
        }
    }
}

/// Written data and outstanding segments.
#[derive(Clone, Debug)]
pub struct SendBuffer {
    /// Outstanding segments in sequence order, contiguous from SND.UNA to SND.NXT. Read
    /// freely; change only through [`SendBuffer::push`], [`SendBuffer::update`] and the
    /// scoreboard methods, which keep the pipe total exact.
    pub segs: VecDeque<Segment>,
    /// Sum of `in_pipe` over `segs`, kept incrementally so that SetPipe is O(1).
    pub(crate) pipe_bytes: u64,
    /// Bytes written by the application so far.
    written: u64,
    /// Capacity, bytes of written but unacknowledged data.
    capacity: u64,
    /// The application asked to close: a FIN follows the written data.
    pub fin_queued: bool,
    /// Highest offset covered by any SACK block (RFC 6675 HighSACK, exclusive end).
    pub high_sacked: u64,
    /// Highest end of any segment marked lost, bounding the scans of NextSeg.
    pub high_lost: u64,
    /// Times a segment's latest transmission was deemed lost, cumulative: a retransmission
    /// deemed lost again counts again (Linux's `tp->lost`, `tcp_sum_lost`).
    pub(crate) lost_marks: u64,
}

impl SendBuffer {
    pub fn new(capacity: u64) -> Self {
        SendBuffer {
            segs: VecDeque::new(),
            pipe_bytes: 0,
            written: 0,
            capacity,
            fin_queued: false,
            high_sacked: 0,
            high_lost: 0,
            lost_marks: 0,
        }
    }

    /// Offset one past the last written byte (where the FIN goes).
    #[inline]
    pub fn data_end(&self) -> u64 {
        1 + self.written
    }

    /// One past the last offset the sender may ever send: data plus a queued FIN.
    #[inline]
    pub fn stream_end(&self) -> u64 {
        self.data_end() + self.fin_queued as u64
    }

    /// Accepts up to `bytes` while written-but-unacknowledged data stays within the capacity;
    /// returns the bytes accepted. Nothing is accepted after close.
    pub fn write(&mut self, bytes: u64, snd_una: u64) -> u64 {
        if self.fin_queued {
            return 0;
        }
        let acked = snd_una.saturating_sub(1).min(self.written);
        let buffered = self.written - acked;
        let n = bytes.min(self.capacity.saturating_sub(buffered));
        self.written += n;
        n
    }

    /// Free space for the application, bytes.
    pub fn space(&self, snd_una: u64) -> u64 {
        if self.fin_queued {
            return 0;
        }
        let acked = snd_una.saturating_sub(1).min(self.written);
        self.capacity.saturating_sub(self.written - acked)
    }

    /// Bytes written.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Appends a newly sent segment.
    pub fn push(&mut self, seg: Segment) {
        self.pipe_bytes += seg.in_pipe();
        self.segs.push_back(seg);
    }

    /// Changes segment `i` through `f`, keeping the pipe total exact.
    pub fn update(&mut self, i: usize, f: impl FnOnce(&mut Segment)) {
        let s = &mut self.segs[i];
        let before = s.in_pipe();
        let was_lost = s.lost && !s.retx_in_flight;
        f(s);
        self.lost_marks += u64::from(!was_lost && s.lost && !s.retx_in_flight);
        self.pipe_bytes = self.pipe_bytes - before + s.in_pipe();
    }

    /// Segments deemed lost so far, cumulative; the difference across one
    /// ACK is what that ACK marked (Linux's `rs->losses`).
    pub fn lost_marks(&self) -> u64 {
        self.lost_marks
    }

    /// Recomputes the pipe total after a bulk change.
    pub(crate) fn recount_pipe(&mut self) {
        self.pipe_bytes = self.segs.iter().map(Segment::in_pipe).sum();
    }

    /// Removes segments entirely below `ack`, calling `f` on each, and trims a segment that
    /// `ack` splits (possible only if the receiver accepted part of it).
    pub fn ack_through(&mut self, ack: u64, mut f: impl FnMut(&Segment)) {
        while let Some(front) = self.segs.front_mut() {
            if front.end <= ack {
                let seg = self.segs.pop_front().expect("front exists");
                self.pipe_bytes -= seg.in_pipe();
                f(&seg);
            } else {
                if front.start < ack {
                    let before = front.in_pipe();
                    front.start = ack;
                    self.pipe_bytes = self.pipe_bytes - before + front.in_pipe();
                }
                break;
            }
        }
    }

    /// Index of the first segment whose start is at or beyond `offset`.
    #[inline]
    pub fn index_from(&self, offset: u64) -> usize {
        self.segs.partition_point(|s| s.start < offset)
    }

    /// Index of the segment containing `offset`.
    pub fn index_of(&self, offset: u64) -> Option<usize> {
        let i = self.segs.partition_point(|s| s.end <= offset);
        (i < self.segs.len() && self.segs[i].start <= offset).then_some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(start: u64, end: u64) -> Segment {
        Segment {
            start,
            end,
            fin: false,
            sent_time: SimTime::ZERO,
            tx_count: 1,
            sacked: false,
            lost: false,
            retx_in_flight: false,
            ts_val: 0,
            tx: TxRecord::default(),
        }
    }

    #[test]
    fn write_respects_capacity_and_acks_free_space() {
        let mut b = SendBuffer::new(1000);
        assert_eq!(b.write(600, 1), 600);
        assert_eq!(b.write(600, 1), 400);
        assert_eq!(b.space(1), 0);
        // 500 bytes acknowledged (SND.UNA = 501) free 500 bytes.
        assert_eq!(b.space(501), 500);
        assert_eq!(b.write(10_000, 501), 500);
        b.fin_queued = true;
        assert_eq!(b.write(1, 1001), 0);
        assert_eq!(b.stream_end(), 1502);
    }

    #[test]
    fn cumulative_ack_removes_and_trims() {
        let mut b = SendBuffer::new(10_000);
        for s in [seg(1, 101), seg(101, 201), seg(201, 301)] {
            b.push(s);
        }
        let mut seen = vec![];
        b.ack_through(150, |s| seen.push(s.start));
        assert_eq!(seen, vec![1]);
        assert_eq!(b.segs[0].start, 150);
        assert_eq!(b.index_of(250), Some(1));
        assert_eq!(b.index_of(301), None);
        assert_eq!(b.index_from(201), 1);
    }

    #[test]
    fn pipe_contribution_rfc6675_setpipe() {
        let mut s = seg(1, 101);
        assert_eq!(s.in_pipe(), 100);
        s.lost = true;
        assert_eq!(s.in_pipe(), 0);
        s.retx_in_flight = true;
        assert_eq!(s.in_pipe(), 100);
        s.lost = false;
        assert_eq!(s.in_pipe(), 200);
        s.sacked = true;
        assert_eq!(s.in_pipe(), 0);
    }
}
