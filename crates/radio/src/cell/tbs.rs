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

use crate::mac::{Layers, TbsLookup};
use crate::phy::{CqiTable, Mcs, PhyError};

/// Precomputed sizes for the MCSs of one MCS table and 1..=N_RB PRBs, bits. An MCS beyond the
/// table (28 of Table 7.1.7.1-1A) has 0 bits: no block can be built at it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MonotoneTbs {
    n_prb: u32,
    /// `bits[mcs * n_prb + (n − 1)]`.
    bits: Vec<u32>,
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
        Ok(MonotoneTbs { n_prb, bits })
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
    fn a_one_prb_carrier_keeps_the_specified_entry() {
        // With one PRB there is no larger allocation to compare with.
        let t = MonotoneTbs::new(1).unwrap();
        let mcs6 = Mcs::new(6).unwrap();
        assert_eq!(t.tbs_bits(mcs6, Layers::ONE, 1), 328);
        assert_eq!(t.tbs_bits(mcs6, Layers::ONE, 2), 0);
    }
}
