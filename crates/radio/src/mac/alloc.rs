//! The per-TTI steps every scheduler shares: HARQ retransmissions first, the list of UEs
//! eligible for new data, the buffer cap (fewest PRBs whose transport block carries the
//! buffer) and whole-band service in rank order. The rules are those listed in the module
//! documentation of [`crate::mac`].
//!
//! A scheduler runs once per TTI, so these steps work in buffers the scheduler keeps between
//! calls ([`TtiScratch`], the heap of [`fill_by_rank`]): once they have grown to the number of
//! UEs, scheduling a TTI does not touch the heap allocator.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::{Allocation, Layers, TbsLookup, UeState};
use crate::phy::Mcs;

/// Bytes carried by a transport block of `n_prb` PRBs at `mcs` on `layers` layers (0 for
/// `n_prb` = 0). TS 36.213 and TS 38.214 transport block sizes are whole bytes; a size that
/// is not is rounded down.
pub fn tbs_bytes(tbs: &dyn TbsLookup, mcs: Mcs, layers: Layers, n_prb: u32) -> u32 {
    if n_prb == 0 {
        0
    } else {
        tbs.tbs_bits(mcs, layers, n_prb) / 8
    }
}

/// Bytes `ue`'s new data would carry on `n_prb` PRBs, at its MCS and layers.
pub fn ue_tbs_bytes(tbs: &dyn TbsLookup, ue: &UeState<'_>, n_prb: u32) -> u32 {
    tbs_bytes(tbs, ue.mcs, ue.layers, n_prb)
}

/// Fewest PRBs in `1..=max_prb` whose transport block at `ue`'s MCS and layers carries
/// `bytes`; `max_prb` if none does (the buffer exceeds what the UE can receive in this TTI).
/// Binary search, relying on the [`TbsLookup`] contract that sizes do not decrease with the
/// PRB count.
pub fn prbs_for_bytes(tbs: &dyn TbsLookup, ue: &UeState<'_>, bytes: u64, max_prb: u32) -> u32 {
    if max_prb == 0 {
        return 0;
    }
    if u64::from(ue_tbs_bytes(tbs, ue, max_prb)) < bytes {
        return max_prb;
    }
    // Invariant: the answer is in (lo, hi]; tbs(hi) carries the bytes.
    let (mut lo, mut hi) = (0u32, max_prb);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if u64::from(ue_tbs_bytes(tbs, ue, mid)) >= bytes {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// Working lists of [`begin_tti`], kept by a scheduler from one TTI to the next.
#[derive(Clone, Debug, Default)]
pub struct TtiScratch {
    /// Output of [`begin_tti`]: indices into `ues` of the UEs eligible for new data, in input
    /// order: first entry of its UE identifier, `buffer_bytes > 0`, wideband CQI ≠ 0, no
    /// pending HARQ retransmission, and a non-empty transport block at its MCS on all free
    /// PRBs (an MCS the table does not know would otherwise absorb PRBs it cannot use).
    pub candidates: Vec<usize>,
    /// Per entry of `ues`: whether it is the first entry of its UE identifier.
    first: Vec<bool>,
    /// (UE identifier, index) pairs, sorted to find repeated identifiers.
    by_ue: Vec<(u32, usize)>,
}

impl TtiScratch {
    /// Whether entry `i` of the `ues` of the last [`begin_tti`] is the first entry of its UE
    /// identifier (false for an index out of range).
    pub fn is_first(&self, i: usize) -> bool {
        self.first.get(i).copied().unwrap_or(false)
    }

    /// Marks the first entry of each UE identifier. The cell lists UEs by increasing
    /// identifier, so the common case is a single pass; otherwise the (identifier, index)
    /// pairs are sorted and every entry but the first of a run of equal identifiers is
    /// marked as a repeat.
    fn mark_first_entries(&mut self, ues: &[UeState<'_>]) {
        self.first.clear();
        self.first.resize(ues.len(), true);
        if ues.windows(2).all(|w| w[0].ue < w[1].ue) {
            return;
        }
        self.by_ue.clear();
        self.by_ue
            .extend(ues.iter().enumerate().map(|(i, u)| (u.ue, i)));
        self.by_ue.sort_unstable();
        for w in self.by_ue.windows(2) {
            if w[0].0 == w[1].0 {
                self.first[w[1].1] = false;
            }
        }
    }
}

/// Clears `out`, places the HARQ retransmissions (input order, first fit: a retransmission that
/// does not fit in the PRBs left waits, TS 36.321 §5.3.2 asynchronous DL HARQ), fills
/// `scratch.candidates` with the UEs eligible for new data and returns the PRBs left for it.
pub fn begin_tti(
    n_prb: u32,
    ues: &[UeState<'_>],
    tbs: &dyn TbsLookup,
    out: &mut Vec<Allocation>,
    scratch: &mut TtiScratch,
) -> u32 {
    out.clear();
    scratch.mark_first_entries(ues);
    let mut free = n_prb;
    for (u, _) in ues.iter().zip(&scratch.first).filter(|(_, &f)| f) {
        let Some(retx) = u.harq_retx else { continue };
        if retx.n_prb == 0 || retx.n_prb > free {
            continue;
        }
        let bytes = tbs_bytes(tbs, retx.mcs, retx.layers, retx.n_prb);
        if bytes == 0 {
            continue;
        }
        out.push(Allocation {
            ue: u.ue,
            n_prb: retx.n_prb,
            mcs: retx.mcs,
            layers: retx.layers,
            tbs_bytes: bytes,
            harq_retx: true,
        });
        free -= retx.n_prb;
    }
    scratch.candidates.clear();
    let first = &scratch.first;
    scratch
        .candidates
        .extend(ues.iter().enumerate().filter_map(|(i, u)| {
            let eligible = first[i]
                && u.harq_retx.is_none()
                && u.buffer_bytes > 0
                && !u.wideband_cqi.is_out_of_range()
                && ue_tbs_bytes(tbs, u, free) > 0;
            eligible.then_some(i)
        }));
    free
}

/// Appends a new-data allocation of `n_prb` PRBs to `ue` at its MCS, unless the transport
/// block would be empty. Returns the PRBs actually used (0 or `n_prb`).
pub fn push_new_data(
    ue: &UeState<'_>,
    n_prb: u32,
    tbs: &dyn TbsLookup,
    out: &mut Vec<Allocation>,
) -> u32 {
    let bytes = ue_tbs_bytes(tbs, ue, n_prb);
    if bytes == 0 {
        return 0;
    }
    out.push(Allocation {
        ue: ue.ue,
        n_prb,
        mcs: ue.mcs,
        layers: ue.layers,
        tbs_bytes: bytes,
        harq_retx: false,
    });
    n_prb
}

/// Serves `order` (indices into `ues`) one after the other: each UE gets the fewest PRBs that
/// carry its buffer, or all PRBs left, until none are left. This is the whole-band allocation
/// of the channel-aware schedulers: the first UE takes the band unless its buffer is small,
/// and the remainder spills to the next. Returns the PRBs still free.
pub fn fill_in_order(
    order: &[usize],
    mut free: u32,
    ues: &[UeState<'_>],
    tbs: &dyn TbsLookup,
    out: &mut Vec<Allocation>,
) -> u32 {
    for &i in order {
        if free == 0 {
            break;
        }
        let u = &ues[i];
        let n = prbs_for_bytes(tbs, u, u.buffer_bytes, free);
        free -= push_new_data(u, n, tbs, out);
    }
    free
}

/// A candidate's rank for [`fill_by_rank`]: a higher `metric` ranks first, ties go to the
/// lower UE identifier. The order is total (`f64::total_cmp`), and strict among candidates,
/// whose identifiers are distinct.
#[derive(Clone, Copy, Debug)]
pub struct Ranked {
    /// The scheduler's metric, e.g. r/R for proportional fair (higher is served first).
    pub metric: f64,
    /// UE identifier.
    pub ue: u32,
    /// Index into `ues`.
    pub index: usize,
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        self.metric
            .total_cmp(&other.metric)
            .then(other.ue.cmp(&self.ue))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ranked {}

/// [`fill_in_order`] over the candidates in `ranked`, best first, without sorting them all:
/// a whole-band allocation usually serves one or two UEs per TTI, so the heap (built in
/// O(n)) is popped only until the PRBs run out, O(n + served · log n) instead of a sort's
/// O(n log n). Serves the same UEs in the same order as `fill_in_order` on the sorted list.
/// `ranked` is cleared. Returns the PRBs still free.
pub fn fill_by_rank(
    ranked: &mut BinaryHeap<Ranked>,
    mut free: u32,
    ues: &[UeState<'_>],
    tbs: &dyn TbsLookup,
    out: &mut Vec<Allocation>,
) -> u32 {
    while free > 0 {
        let Some(best) = ranked.pop() else { break };
        let u = &ues[best.index];
        let n = prbs_for_bytes(tbs, u, u.buffer_bytes, free);
        free -= push_new_data(u, n, tbs, out);
    }
    ranked.clear();
    free
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mac::testkit::{linear_tbs, mcs, ue, with_retx};
    use crate::phy::Cqi;

    #[test]
    fn prbs_for_bytes_is_the_fewest_that_carry_the_buffer() {
        let tbs = linear_tbs;
        let u = ue(1, 0, 10);
        let per_prb = tbs_bytes(&tbs, mcs(10), Layers::ONE, 1) as u64;
        assert_eq!(prbs_for_bytes(&tbs, &u, 1, 50), 1);
        assert_eq!(prbs_for_bytes(&tbs, &u, per_prb, 50), 1);
        assert_eq!(prbs_for_bytes(&tbs, &u, per_prb + 1, 50), 2);
        assert_eq!(prbs_for_bytes(&tbs, &u, 7 * per_prb, 50), 7);
        assert_eq!(prbs_for_bytes(&tbs, &u, u64::MAX, 50), 50);
        assert_eq!(prbs_for_bytes(&tbs, &u, 5, 0), 0);
        // A single-layer lookup has no size on two layers: no PRB count carries anything.
        let two = UeState {
            layers: Layers::new(2).unwrap(),
            ..u
        };
        assert_eq!(ue_tbs_bytes(&tbs, &two, 50), 0);
    }

    #[test]
    fn retransmissions_first_and_first_fit() {
        let tbs = linear_tbs;
        let ues = [
            with_retx(ue(1, 1000, 10), 6, 4, 0),
            with_retx(ue(2, 1000, 10), 7, 4, 1), // does not fit after UE 1: waits
            with_retx(ue(3, 0, 10), 4, 4, 2),    // fits; buffer empty does not matter
            ue(4, 1000, 10),
            ue(5, 0, 10), // nothing to send
            UeState {
                wideband_cqi: Cqi::OUT_OF_RANGE,
                ..ue(6, 100, 5)
            },
            ue(4, 500, 12), // duplicate identifier: ignored
        ];
        let mut out = Vec::new();
        let mut scratch = TtiScratch::default();
        let free = begin_tti(12, &ues, &tbs, &mut out, &mut scratch);
        assert_eq!(out.len(), 2);
        assert!(out.iter().all(|a| a.harq_retx));
        assert_eq!((out[0].ue, out[0].n_prb), (1, 6));
        assert_eq!((out[1].ue, out[1].n_prb), (3, 4));
        assert_eq!(free, 2);
        assert_eq!(scratch.candidates, vec![3]);
        assert!(scratch.is_first(3) && !scratch.is_first(6) && !scratch.is_first(7));
        // With no PRB left, nobody is eligible for new data.
        assert_eq!(begin_tti(10, &ues, &tbs, &mut out, &mut scratch), 0);
        assert!(scratch.candidates.is_empty());
    }

    #[test]
    fn first_entries_in_any_order() {
        // Identifiers out of order and repeated: the first entry of each counts, whatever
        // its position, and a later call with increasing identifiers resets the marks.
        let ids = [7u32, 3, 7, 9, 3, 3, 1, 9];
        let ues: Vec<_> = ids.iter().map(|&id| ue(id, 100, 10)).collect();
        let mut scratch = TtiScratch::default();
        let mut out = Vec::new();
        begin_tti(50, &ues, &linear_tbs, &mut out, &mut scratch);
        let first: Vec<bool> = (0..ids.len()).map(|i| scratch.is_first(i)).collect();
        assert_eq!(first, [true, true, false, true, false, false, true, false]);
        assert_eq!(scratch.candidates, vec![0, 1, 3, 6]);
        let sorted: Vec<_> = [1u32, 2, 5].iter().map(|&id| ue(id, 100, 10)).collect();
        begin_tti(50, &sorted, &linear_tbs, &mut out, &mut scratch);
        assert_eq!(scratch.candidates, vec![0, 1, 2]);
        assert!(!scratch.is_first(3));
    }

    #[test]
    fn fill_by_rank_serves_as_the_sorted_order_does() {
        let tbs = linear_tbs;
        // Small buffers so that several UEs are served; equal metrics tie on the identifier.
        let ues: Vec<_> = (0..12u32)
            .map(|id| ue(20 - id, 30 + 25 * u64::from(id % 4), 4 + (id % 5) as u8))
            .collect();
        let metric = |i: usize| f64::from((i % 3) as u32);
        let mut sorted: Vec<usize> = (0..ues.len()).collect();
        sorted.sort_by(|&a, &b| {
            metric(b)
                .total_cmp(&metric(a))
                .then(ues[a].ue.cmp(&ues[b].ue))
        });
        for free in [0, 1, 5, 17, 40, 110] {
            let mut want = Vec::new();
            let left_sorted = fill_in_order(&sorted, free, &ues, &tbs, &mut want);
            let mut heap = BinaryHeap::new();
            heap.extend((0..ues.len()).map(|i| Ranked {
                metric: metric(i),
                ue: ues[i].ue,
                index: i,
            }));
            let mut got = Vec::new();
            let left = fill_by_rank(&mut heap, free, &ues, &tbs, &mut got);
            assert_eq!(got, want, "{free} PRBs");
            assert_eq!(left, left_sorted);
            assert!(heap.is_empty());
        }
    }
}
