//! Modular 32-bit sequence numbers (RFC 9293 §3.4, serial-number arithmetic of RFC 1982).
//!
//! Inside the endpoint every sequence position is a 64-bit *offset* from the initial sequence
//! number of its direction (offset 0 is the SYN, data starts at 1), so that no comparison in the
//! loss-recovery code can be fooled by wrap-around. The 32-bit wire value is produced and read
//! back only at the header boundary, with [`SeqNum::from_offset`] and [`SeqNum::to_offset`].

/// A sequence number as carried in the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SeqNum(pub u32);

impl SeqNum {
    /// `self + n` modulo 2^32.
    #[inline]
    pub fn wrapping_add(self, n: u32) -> SeqNum {
        SeqNum(self.0.wrapping_add(n))
    }

    /// Signed distance `self − other` interpreted in (−2^31, 2^31] (RFC 1982 §3.2).
    #[inline]
    pub fn distance(self, other: SeqNum) -> i32 {
        self.0.wrapping_sub(other.0) as i32
    }

    /// RFC 1982 "less than": `other` is ahead of `self` by less than 2^31.
    #[inline]
    pub fn lt(self, other: SeqNum) -> bool {
        self.distance(other) < 0
    }

    #[inline]
    pub fn le(self, other: SeqNum) -> bool {
        self.distance(other) <= 0
    }

    #[inline]
    pub fn gt(self, other: SeqNum) -> bool {
        self.distance(other) > 0
    }

    #[inline]
    pub fn ge(self, other: SeqNum) -> bool {
        self.distance(other) >= 0
    }

    /// The wire value of `offset` bytes after the initial sequence number `isn`.
    #[inline]
    pub fn from_offset(isn: u32, offset: u64) -> SeqNum {
        SeqNum(isn.wrapping_add(offset as u32))
    }

    /// The 64-bit offset of this wire value, chosen as the one nearest to `reference` (an offset
    /// known to be within 2^31 of the true value, such as SND.UNA or RCV.NXT). Returns `None`
    /// when the nearest candidate would lie before the initial sequence number.
    #[inline]
    pub fn to_offset(self, isn: u32, reference: u64) -> Option<u64> {
        let ref_wire = SeqNum::from_offset(isn, reference);
        let d = self.distance(ref_wire) as i64;
        let off = reference as i64 + d;
        (off >= 0).then_some(off as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_wrap() {
        let a = SeqNum(u32::MAX - 10);
        let b = a.wrapping_add(20);
        assert_eq!(b.0, 9);
        assert!(a.lt(b) && b.gt(a) && a.le(a) && a.ge(a));
        assert_eq!(b.distance(a), 20);
        assert_eq!(a.distance(b), -20);
    }

    #[test]
    fn offsets_round_trip_across_the_wrap() {
        let isn = u32::MAX - 100;
        for off in [0u64, 1, 100, 101, 102, 5_000, (1u64 << 32) + 7, 3 << 32] {
            let wire = SeqNum::from_offset(isn, off);
            // Any reference within 2^31 recovers the offset.
            let reference = off.saturating_sub(1_000_000);
            assert_eq!(wire.to_offset(isn, reference), Some(off));
            assert_eq!(wire.to_offset(isn, off + 1_000_000), Some(off));
        }
        // Before the ISN there is no offset.
        assert_eq!(SeqNum(isn).wrapping_add(u32::MAX).to_offset(isn, 0), None);
    }
}
