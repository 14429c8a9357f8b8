//! Reassembly of RLC SDUs from data field elements handed over in sequence-number order
//! (36.322 §5.1.2.2.3 and §5.1.3.2.3 "reassemble RLC SDUs ... and deliver the reassembled RLC
//! SDUs to upper layer in ascending order of the RLC SN").
//!
//! The caller feeds the elements of consecutive PDUs, and a [`Reassembler::gap`] wherever data
//! is known to be missing (a UMD PDU that never arrived, an AMD PDU given up after an MRW). A
//! partly reassembled SDU that meets a gap, or a piece whose predecessor is missing, is
//! discarded: 36.322 §5.1.2.2.3 "discard any UMD PDUs that cannot be reassembled into an RLC SDU".

use std::collections::VecDeque;

use super::data_field::DataElement;
use super::RlcSdu;

#[derive(Debug)]
pub(crate) struct Reassembler<S> {
    /// The SDU being rebuilt and the next byte offset it expects.
    current: Option<(S, u32)>,
    ready: VecDeque<S>,
    delivered: u64,
    dropped: u64,
    /// Identity of the last SDU counted as dropped, so that its later orphan pieces are not
    /// counted again.
    last_dropped: Option<u64>,
}

impl<S: RlcSdu> Reassembler<S> {
    pub(crate) fn new() -> Self {
        Reassembler {
            current: None,
            ready: VecDeque::new(),
            delivered: 0,
            dropped: 0,
            last_dropped: None,
        }
    }

    /// Feeds the next element in sequence.
    pub(crate) fn push(&mut self, e: &DataElement<S>) {
        let next = if e.is_sdu_start() {
            if let Some((s, _)) = self.current.take() {
                self.drop_sdu(s.sdu_id());
            }
            e.len
        } else {
            match self.current.take() {
                Some((s, next)) if s.sdu_id() == e.sdu.sdu_id() && next == e.offset => next + e.len,
                other => {
                    if let Some((s, _)) = other {
                        self.drop_sdu(s.sdu_id());
                    }
                    self.drop_sdu(e.sdu.sdu_id());
                    return;
                }
            }
        };
        if next >= e.sdu.size_bytes() {
            self.ready.push_back(e.sdu);
            self.delivered += 1;
        } else {
            self.current = Some((e.sdu, next));
        }
    }

    /// Data is missing at this point of the sequence.
    pub(crate) fn gap(&mut self) {
        if let Some((s, _)) = self.current.take() {
            self.drop_sdu(s.sdu_id());
        }
    }

    fn drop_sdu(&mut self, id: u64) {
        if self.last_dropped != Some(id) {
            self.dropped += 1;
            self.last_dropped = Some(id);
        }
    }

    /// The next reassembled SDU, in order.
    pub(crate) fn pop(&mut self) -> Option<S> {
        self.ready.pop_front()
    }

    /// SDUs reassembled so far.
    pub(crate) fn delivered(&self) -> u64 {
        self.delivered
    }

    /// SDUs discarded because a piece was missing.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::sdu;
    use super::*;

    #[test]
    fn rebuilds_across_pieces_and_discards_at_gaps() {
        let mut r = Reassembler::new();
        let a = sdu(1, 100);
        let b = sdu(2, 100);
        let c = sdu(3, 100);
        r.push(&DataElement {
            sdu: a,
            offset: 0,
            len: 60,
        });
        r.push(&DataElement {
            sdu: a,
            offset: 60,
            len: 40,
        });
        r.push(&DataElement {
            sdu: b,
            offset: 0,
            len: 30,
        });
        r.gap();
        r.push(&DataElement {
            sdu: b,
            offset: 70,
            len: 30,
        }); // orphan tail of b: not re-counted
        r.push(&DataElement {
            sdu: c,
            offset: 10,
            len: 90,
        }); // head of c missing
        assert_eq!(r.pop().map(|s| s.uid), Some(1));
        assert_eq!(r.pop(), None);
        assert_eq!((r.delivered(), r.dropped()), (1, 2));
    }
}
