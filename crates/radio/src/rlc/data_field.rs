//! The data field of an RLC data PDU as a list of data field elements (36.322 §6.2.2.6 FI,
//! §6.2.2.7 LI): each element is an SDU or a byte segment of one, in SDU order.
//!
//! Elements hold a copy of the SDU value (cheap: SDUs are `Copy`), the byte offset of the
//! segment within the SDU and its length. Up to [`INLINE_ELEMENTS`] elements live inline, so the
//! usual PDU (one to four IP packets or pieces) needs no heap allocation.

use super::RlcSdu;

/// Elements stored without allocation; further elements spill to a vector.
pub const INLINE_ELEMENTS: usize = 4;

/// One data field element: bytes `[offset, offset + len)` of `sdu`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataElement<S> {
    pub sdu: S,
    /// Byte offset of the element within the SDU.
    pub offset: u32,
    /// Length of the element, bytes (never zero).
    pub len: u32,
}

impl<S: RlcSdu> DataElement<S> {
    /// The element starts the SDU (36.322 §6.2.2.6: FI bit "first byte of the data field
    /// corresponds to the first byte of an RLC SDU" when this is the first element).
    #[inline]
    pub fn is_sdu_start(&self) -> bool {
        self.offset == 0
    }
    /// The element ends the SDU.
    #[inline]
    pub fn is_sdu_end(&self) -> bool {
        self.offset + self.len == self.sdu.size_bytes()
    }
}

/// The ordered elements of one PDU's data field, or of a byte range of one for an AMD PDU
/// segment.
#[derive(Clone, Debug)]
pub struct DataField<S> {
    inline: [Option<DataElement<S>>; INLINE_ELEMENTS],
    inline_len: usize,
    spill: Vec<DataElement<S>>,
    bytes: u32,
}

impl<S: RlcSdu> Default for DataField<S> {
    fn default() -> Self {
        DataField {
            inline: [None; INLINE_ELEMENTS],
            inline_len: 0,
            spill: Vec::new(),
            bytes: 0,
        }
    }
}

impl<S: RlcSdu> DataField<S> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends an element; zero-length elements are ignored.
    pub fn push(&mut self, e: DataElement<S>) {
        if e.len == 0 {
            return;
        }
        self.bytes += e.len;
        if self.inline_len < INLINE_ELEMENTS {
            self.inline[self.inline_len] = Some(e);
            self.inline_len += 1;
        } else {
            self.spill.push(e);
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.inline_len + self.spill.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// Total length of the data field, bytes.
    pub fn bytes(&self) -> u32 {
        self.bytes
    }

    pub fn iter(&self) -> impl Iterator<Item = &DataElement<S>> + '_ {
        self.inline.iter().flatten().chain(self.spill.iter())
    }

    pub fn first(&self) -> Option<&DataElement<S>> {
        self.inline[0].as_ref()
    }

    pub fn last(&self) -> Option<&DataElement<S>> {
        self.spill.last().or_else(|| {
            self.inline_len
                .checked_sub(1)
                .and_then(|i| self.inline[i].as_ref())
        })
    }

    /// The FI field of a PDU carrying exactly this field (36.322 §6.2.2.6): whether the first
    /// byte starts an SDU and whether the last byte ends one.
    pub fn framing_info(&self) -> (bool, bool) {
        (
            self.first().is_some_and(|e| e.is_sdu_start()),
            self.last().is_some_and(|e| e.is_sdu_end()),
        )
    }

    /// The bytes `[from, to)` of this field (offsets within the field) as a new field, cutting
    /// elements at the edges. Used for AMD PDU segments (36.322 §5.1.3.1.1 re-segmentation) and
    /// for discarding duplicate byte segments at the receiver (§5.1.3.2.2).
    pub fn slice(&self, from: u32, to: u32) -> DataField<S> {
        let mut out = DataField::new();
        let mut pos = 0u32;
        for e in self.iter() {
            let start = pos;
            let end = pos + e.len;
            pos = end;
            if end <= from {
                continue;
            }
            if start >= to {
                break;
            }
            let a = from.max(start);
            let b = to.min(end);
            out.push(DataElement {
                sdu: e.sdu,
                offset: e.offset + (a - start),
                len: b - a,
            });
        }
        out
    }

    /// Appends all elements of `other`.
    pub fn extend_from(&mut self, other: &DataField<S>) {
        for e in other.iter() {
            self.push(*e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::sdu;
    use super::*;

    #[test]
    fn spills_past_the_inline_capacity_and_slices_by_byte() {
        let mut f = DataField::new();
        for uid in 0..6u64 {
            f.push(DataElement {
                sdu: sdu(uid, 100),
                offset: 0,
                len: 100,
            });
        }
        assert_eq!(f.len(), 6);
        assert_eq!(f.bytes(), 600);
        assert_eq!(
            f.iter().map(|e| e.sdu.uid).collect::<Vec<_>>(),
            vec![0, 1, 2, 3, 4, 5]
        );
        assert_eq!(f.last().map(|e| e.sdu.uid), Some(5));
        let s = f.slice(150, 420);
        let parts: Vec<_> = s.iter().map(|e| (e.sdu.uid, e.offset, e.len)).collect();
        assert_eq!(
            parts,
            vec![(1, 50, 50), (2, 0, 100), (3, 0, 100), (4, 0, 20)]
        );
        assert_eq!(s.bytes(), 270);
        assert_eq!(s.framing_info(), (false, false));
        assert_eq!(f.framing_info(), (true, true));
    }

    #[test]
    fn zero_length_elements_are_ignored() {
        let mut f = DataField::new();
        f.push(DataElement {
            sdu: sdu(1, 10),
            offset: 0,
            len: 0,
        });
        assert!(f.is_empty());
        assert_eq!(f.len(), 0);
        assert!(f.first().is_none() && f.last().is_none());
    }
}
