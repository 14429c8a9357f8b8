//! Transport block sizes as the cell's MAC uses them: TS 36.213 Table 7.1.7.2.1-1 through the
//! MCS table, made non-decreasing in the PRB count.
//!
//! The specification's table has one entry that decreases with the PRB count: I_TBS 6 on one
//! PRB is 328 bits, more than the 176 bits of two PRBs (docs/lte-phy.md). The MAC schedulers
//! assume sizes that never decrease with the PRB count ([`TbsLookup`]'s contract; they search
//! for the fewest PRBs carrying a buffer). The cell therefore uses, for n PRBs,
//! `min over m in n..=N_RB of TBS(I_TBS, m)`: the size of n PRBs unless a larger allocation
//! carries less. This changes exactly one entry, I_TBS 6 (MCS 6) on 1 PRB: 328 → 176 bits;
//! every other entry is the specified one. The choice is conservative: the transport block
//! sent is never larger than the specification allows on those PRBs.
//!
//! A UE category (TS 36.306 Table 4.1-1) bounds the block a UE receives in a TTI
//! ([`MonotoneTbs::capped_at`]): a size above the bound is replaced by the largest size of
//! fewer PRBs within it, so the sizes stay non-decreasing and a scheduler looking for the
//! fewest PRBs that carry a buffer stops at the first allocation that reaches the bound.

use crate::mac::{Layers, TbsLookup};
use crate::phy::{CqiTable, Mcs, PhyError};

/// Precomputed sizes for the MCSs of one MCS table and 1..=N_RB PRBs, bits. An MCS beyond the
/// table (28 of Table 7.1.7.1-1A) has 0 bits: no block can be built at it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MonotoneTbs {
    n_prb: u32,
    /// `bits[mcs * n_prb + (n − 1)]`.
    bits: Vec<u32>,
    /// Per MCS, the largest block when a cap ([`MonotoneTbs::capped_at`]) made a size of the
    /// row smaller; empty without a cap.
    bounded: Vec<Option<u32>>,
}

impl MonotoneTbs {
    /// The table for a carrier of `n_prb` PRBs (1..=110) with Table 7.1.7.1-1.
    pub fn new(n_prb: u32) -> Result<Self, PhyError> {
        Self::for_table(CqiTable::Table1, n_prb)
    }

    /// The table for a carrier of `n_prb` PRBs (1..=110) with the MCS table of `table`.
    pub fn for_table(table: CqiTable, n_prb: u32) -> Result<Self, PhyError> {
        let per_mcs = n_prb as usize;
        let mut bits = vec![0u32; Mcs::all().len() * per_mcs];
        for mcs in Mcs::all().filter(|m| table.has_mcs(m.get())) {
            let row = &mut bits[mcs.index() * per_mcs..][..per_mcs];
            let mut running_min = u32::MAX;
            for n in (1..=n_prb).rev() {
                running_min = running_min.min(table.tbs_bits(mcs.get(), n)?);
                row[n as usize - 1] = running_min;
            }
        }
        Ok(MonotoneTbs {
            n_prb,
            bits,
            bounded: Vec::new(),
        })
    }

    /// The same table with no block above `max_bits`: for n PRBs, the largest size of at most
    /// n PRBs that is within the bound (0 if even one PRB carries more).
    pub fn capped_at(mut self, max_bits: u32) -> Self {
        self.bounded.clear();
        for row in self.bits.chunks_mut(self.n_prb as usize) {
            let mut allowed = 0;
            let mut reduced = false;
            for size in row.iter_mut() {
                if *size <= max_bits {
                    allowed = *size;
                } else {
                    reduced = true;
                }
                *size = allowed;
            }
            self.bounded.push(reduced.then_some(allowed));
        }
        self
    }

    /// The largest block at `mcs`, bits, when a cap bounds it below the size of all PRBs;
    /// `None` when nothing bounds it (no cap, or one above every size of the MCS).
    #[inline]
    pub fn bound_bits(&self, mcs: Mcs) -> Option<u32> {
        self.bounded.get(mcs.index()).copied().flatten()
    }
}

impl TbsLookup for MonotoneTbs {
    /// Bits of `n_prb` PRBs at `mcs`; 0 outside 1..=N_RB and on more than one layer (LTE
    /// transmission mode 1). Every MCS has a row.
    #[inline]
    fn tbs_bits(&self, mcs: Mcs, layers: Layers, n_prb: u32) -> u32 {
        if n_prb == 0 || n_prb > self.n_prb || layers != Layers::ONE {
            return 0;
        }
        self.bits[mcs.index() * self.n_prb as usize + n_prb as usize - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::tbs_bits_for_mcs;

    #[test]
    fn more_than_one_layer_is_no_lte_size() {
        let t = MonotoneTbs::new(50).unwrap();
        assert_eq!(t.tbs_bits(Mcs::MAX, Layers::new(2).unwrap(), 50), 0);
        assert!(t.tbs_bits(Mcs::MAX, Layers::ONE, 50) > 0);
    }

    #[test]
    fn only_the_anomaly_changes_and_sizes_never_decrease() {
        let t = MonotoneTbs::new(110).unwrap();
        let mut changed = Vec::new();
        for mcs in Mcs::all() {
            for n in 1..=110 {
                let spec = tbs_bits_for_mcs(mcs.get(), n).unwrap();
                let used = t.tbs_bits(mcs, Layers::ONE, n);
                if used != spec {
                    changed.push((mcs.get(), n, spec, used));
                }
                if n > 1 {
                    assert!(
                        used >= t.tbs_bits(mcs, Layers::ONE, n - 1),
                        "MCS {mcs}, {n} PRBs"
                    );
                }
            }
        }
        assert_eq!(changed, vec![(6, 1, 328, 176)]);
        assert_eq!(t.tbs_bits(Mcs::MIN, Layers::ONE, 0), 0);
        assert_eq!(t.tbs_bits(Mcs::MIN, Layers::ONE, 111), 0);
    }

    #[test]
    fn a_cap_keeps_sizes_within_it_and_non_decreasing() {
        let full = MonotoneTbs::new(100).unwrap();
        let cap = 10_296; // UE category 1 (TS 36.306 Table 4.1-1)
        let capped = full.clone().capped_at(cap);
        let mcs28 = Mcs::new(28).unwrap();
        // MCS 28 reaches 10296 bits at 14 PRBs (I_TBS 26: 10296 exactly); 15 PRBs would
        // carry 11064.
        assert_eq!(full.tbs_bits(mcs28, Layers::ONE, 14), 10_296);
        assert_eq!(full.tbs_bits(mcs28, Layers::ONE, 15), 11_064);
        assert_eq!(capped.tbs_bits(mcs28, Layers::ONE, 15), 10_296);
        assert_eq!(capped.tbs_bits(mcs28, Layers::ONE, 100), 10_296);
        assert_eq!(capped.bound_bits(mcs28), Some(10_296));
        assert_eq!(full.bound_bits(mcs28), None);
        // MCS 0 carries at most 2792 bits on 100 PRBs: the cap does not bound it.
        assert_eq!(capped.bound_bits(Mcs::MIN), None);
        for mcs in Mcs::all() {
            for n in 1..=100 {
                let (f, c) = (
                    full.tbs_bits(mcs, Layers::ONE, n),
                    capped.tbs_bits(mcs, Layers::ONE, n),
                );
                assert!(c <= cap && c <= f, "MCS {mcs}, {n} PRBs");
                if f <= cap {
                    assert_eq!(c, f, "a size within the cap is kept");
                }
                if n > 1 {
                    assert!(c >= capped.tbs_bits(mcs, Layers::ONE, n - 1));
                }
            }
        }
    }

    #[test]
    fn a_one_prb_carrier_keeps_the_specified_entry() {
        // With one PRB there is no larger allocation to compare with.
        let t = MonotoneTbs::new(1).unwrap();
        let mcs6 = Mcs::new(6).unwrap();
        assert_eq!(t.tbs_bits(mcs6, Layers::ONE, 1), 328);
        assert_eq!(t.tbs_bits(mcs6, Layers::ONE, 2), 0);
    }
}
