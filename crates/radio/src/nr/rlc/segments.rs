//! What a receiving NR RLC entity holds of one RLC SDU: the byte segments received so far
//! (TS 38.322 §5.2.2.2.2 and §5.2.3.2.2 "place the received ... PDU in the reception buffer",
//! discarding duplicate bytes).
//!
//! Since a PDU carries one SDU or one segment, the segments of one SN are byte ranges of one
//! SDU; the SDU value itself travels in every piece, so only the ranges are kept and
//! reassembly (§5.2.2.2.3, §5.2.3.2.3) is the moment every byte is there. The SDU's length is known only once its last segment (SI = 00
//! or 10) has arrived, as on the air.

use crate::rlc::{DataElement, RlcSdu};

#[derive(Clone, Debug)]
pub(crate) struct SduSegments {
    /// Received byte ranges `[start, end)`, sorted and disjoint (adjacent ranges merged).
    ranges: Vec<(u32, u32)>,
    /// The SDU's length, once the segment with its last byte has arrived.
    total: Option<u32>,
}

impl SduSegments {
    pub(crate) fn new<S: RlcSdu>(e: &DataElement<S>) -> Self {
        SduSegments {
            ranges: vec![(e.offset, e.offset + e.len)],
            total: e.is_sdu_end().then(|| e.offset + e.len),
        }
    }

    /// Adds the bytes of `e`; returns whether any of them had not been received before.
    pub(crate) fn insert<S: RlcSdu>(&mut self, e: &DataElement<S>) -> bool {
        if e.is_sdu_end() {
            self.total = Some(e.offset + e.len);
        }
        let (a, b) = (e.offset, e.offset + e.len);
        if self.ranges.iter().any(|&(x, y)| x <= a && b <= y) {
            return false;
        }
        let (mut lo, mut hi) = (a, b);
        self.ranges.retain(|&(x, y)| {
            let apart = y < lo || x > hi;
            if !apart {
                lo = lo.min(x);
                hi = hi.max(y);
            }
            apart
        });
        let at = self.ranges.partition_point(|&(x, _)| x < lo);
        self.ranges.insert(at, (lo, hi));
        true
    }

    /// All bytes received.
    pub(crate) fn is_complete(&self) -> bool {
        matches!((self.ranges.as_slice(), self.total), ([(0, end)], Some(t)) if *end == t)
    }

    /// At least one byte missing before the last byte received (the t-Reassembly condition of
    /// §5.2.2.2.3 and §5.2.3.2.3: "at least one missing byte segment of the SDU ... before the
    /// last byte of all received segments of this SDU").
    pub(crate) fn has_gap_before_last_byte(&self) -> bool {
        self.ranges.len() > 1 || self.ranges.first().is_some_and(|r| r.0 > 0)
    }

    /// The missing portions `[start, end)` in byte order; the last one, when the SDU's tail is
    /// missing, has `end = None` ("up to the last byte of the RLC SDU", the SOend value 0xFFFF
    /// of §6.2.3.15), whether or not the SDU's length is known.
    pub(crate) fn missing(&self, out: &mut Vec<(u32, Option<u32>)>) {
        out.clear();
        let mut pos = 0;
        for &(a, b) in &self.ranges {
            if a > pos {
                out.push((pos, Some(a)));
            }
            pos = b;
        }
        if self.total.is_none_or(|t| pos < t) {
            out.push((pos, None));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rlc::testkit::sdu;

    fn piece(offset: u32, len: u32) -> DataElement<celltcp_net::packet::Packet> {
        DataElement {
            sdu: sdu(1, 100),
            offset,
            len,
        }
    }

    #[test]
    fn merges_ranges_drops_duplicates_and_learns_the_length_from_the_last_segment() {
        let mut s = SduSegments::new(&piece(20, 10));
        let mut m = Vec::new();
        s.missing(&mut m);
        assert_eq!(m, vec![(0, Some(20)), (30, None)]);
        assert!(s.has_gap_before_last_byte());
        assert!(!s.insert(&piece(22, 5)), "every byte seen before");
        assert!(s.insert(&piece(0, 20)));
        assert!(!s.has_gap_before_last_byte());
        assert!(s.insert(&piece(60, 40)));
        s.missing(&mut m);
        assert_eq!(m, vec![(30, Some(60))]);
        assert!(!s.is_complete());
        assert!(s.insert(&piece(25, 40)));
        assert!(s.is_complete());
        s.missing(&mut m);
        assert!(m.is_empty());
    }
}
