//! The two indices the per-TTI path passes around, as types that hold only valid values: a
//! [`Cqi`] of TS 36.213 Table 7.2.3-1 (0..=15) and an [`Mcs`] of Table 7.1.7.1-1 with its own
//! transport block size (0..=28).
//!
//! Why types and not `u8`: every table and curve of the cell is built for exactly these ranges
//! (the TBS table, both forms of [`BlerModel`](super::BlerModel), the CQI → MCS rule), so once an
//! index is one of these a lookup cannot fail, and the per-TTI code has no error branch to turn
//! into a plausible value (an MCS 0, a block "not decoded"). The range is checked once, where a
//! number enters: a scenario key, a table file, a test.

use super::tables::{CQI_MAX, MCS_MAX};
use super::PhyError;

/// A wideband CQI index, 0..=15 (TS 36.213 Table 7.2.3-1); 0 is "out of range": the UE can
/// take no transport block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cqi(u8);

impl Cqi {
    /// CQI 0, "out of range".
    pub const OUT_OF_RANGE: Cqi = Cqi(0);
    /// CQI 1, the lowest that carries data.
    pub const MIN_IN_RANGE: Cqi = Cqi(1);
    /// CQI 15.
    pub const MAX: Cqi = Cqi(CQI_MAX);

    /// CQI `index`, or [`PhyError::Cqi`] outside 0..=15.
    pub const fn new(index: u8) -> Result<Cqi, PhyError> {
        if index <= CQI_MAX {
            Ok(Cqi(index))
        } else {
            Err(PhyError::Cqi { cqi: index })
        }
    }

    /// The index, 0..=15.
    #[inline]
    pub const fn get(self) -> u8 {
        self.0
    }

    /// CQI 0: no transport block can be received.
    #[inline]
    pub const fn is_out_of_range(self) -> bool {
        self.0 == 0
    }

    /// CQI 0 to 15, in increasing order.
    pub fn all() -> impl DoubleEndedIterator<Item = Cqi> {
        (0..=CQI_MAX).map(Cqi)
    }

    /// CQI 1 to 15 (those that map to an MCS), in increasing order.
    pub fn in_range() -> impl DoubleEndedIterator<Item = Cqi> {
        (1..=CQI_MAX).map(Cqi)
    }
}

impl TryFrom<u8> for Cqi {
    type Error = PhyError;
    fn try_from(index: u8) -> Result<Self, PhyError> {
        Cqi::new(index)
    }
}

impl From<Cqi> for u8 {
    fn from(cqi: Cqi) -> u8 {
        cqi.0
    }
}

impl std::fmt::Display for Cqi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// A PDSCH MCS index with its own transport block size, 0..=28 (TS 36.213 Table 7.1.7.1-1;
/// 29..=31 only signal the modulation of a retransmission and are not MCSs a block is built
/// at).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Mcs(u8);

impl Mcs {
    /// MCS 0 (QPSK, I_TBS 0).
    pub const MIN: Mcs = Mcs(0);
    /// MCS 28 (64QAM, I_TBS 26).
    pub const MAX: Mcs = Mcs(MCS_MAX);

    /// MCS `index`, or [`PhyError::Mcs`] outside 0..=28.
    pub const fn new(index: u8) -> Result<Mcs, PhyError> {
        if index <= MCS_MAX {
            Ok(Mcs(index))
        } else {
            Err(PhyError::Mcs { mcs: index })
        }
    }

    /// The index, 0..=28.
    #[inline]
    pub const fn get(self) -> u8 {
        self.0
    }

    /// The index as a position in the per-MCS tables ([`MCS_COUNT`](super::tables::MCS_COUNT)
    /// entries).
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// MCS 0 to 28, in increasing order.
    pub fn all() -> impl DoubleEndedIterator<Item = Mcs> + ExactSizeIterator {
        (0..=MCS_MAX).map(Mcs)
    }
}

impl TryFrom<u8> for Mcs {
    type Error = PhyError;
    fn try_from(index: u8) -> Result<Self, PhyError> {
        Mcs::new(index)
    }
}

impl From<Mcs> for u8 {
    fn from(mcs: Mcs) -> u8 {
        mcs.0
    }
}

impl std::fmt::Display for Mcs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_table_ranges_are_indices() {
        assert_eq!(Cqi::new(15).map(Cqi::get), Ok(15));
        assert_eq!(Cqi::new(16), Err(PhyError::Cqi { cqi: 16 }));
        assert_eq!(Mcs::new(28).map(Mcs::get), Ok(28));
        assert_eq!(Mcs::new(29), Err(PhyError::Mcs { mcs: 29 }));
        assert_eq!(Cqi::all().count(), 16);
        assert_eq!(Cqi::in_range().next(), Some(Cqi::MIN_IN_RANGE));
        assert_eq!(Mcs::all().len(), 29);
        assert_eq!(Mcs::all().last(), Some(Mcs::MAX));
        assert!(Cqi::OUT_OF_RANGE.is_out_of_range() && !Cqi::MAX.is_out_of_range());
    }
}
