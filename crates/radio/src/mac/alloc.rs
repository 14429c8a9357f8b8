//! The per-TTI steps every scheduler shares: HARQ retransmissions first, the list of UEs
//! eligible for new data, and the buffer cap (fewest PRBs whose transport block carries the
//! buffer). The rules are those listed in the module documentation of [`crate::mac`].

use std::collections::BTreeSet;

use super::{Allocation, TbsLookup, UeState};

/// Bytes carried by a transport block of `n_prb` PRBs at `mcs` (0 for `n_prb` = 0).
/// TS 36.213 transport block sizes are whole bytes; a size that is not is rounded down.
pub fn tbs_bytes(tbs: &dyn TbsLookup, mcs: u8, n_prb: u32) -> u32 {
    if n_prb == 0 {
        0
    } else {
        tbs.tbs_bits(mcs, n_prb) / 8
    }
}

/// Fewest PRBs in `1..=max_prb` whose transport block at `mcs` carries `bytes`; `max_prb` if
/// none does (the buffer exceeds what the UE can receive in this TTI). Binary search, relying
/// on the [`TbsLookup`] contract that sizes do not decrease with the PRB count.
pub fn prbs_for_bytes(tbs: &dyn TbsLookup, mcs: u8, bytes: u64, max_prb: u32) -> u32 {
    if max_prb == 0 {
        return 0;
    }
    if u64::from(tbs_bytes(tbs, mcs, max_prb)) < bytes {
        return max_prb;
    }
    // Invariant: the answer is in (lo, hi]; tbs(hi) carries the bytes.
    let (mut lo, mut hi) = (0u32, max_prb);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if u64::from(tbs_bytes(tbs, mcs, mid)) >= bytes {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// What is left for new data once the HARQ retransmissions of a TTI have been placed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TtiStart {
    /// PRBs not used by retransmissions.
    pub free_prb: u32,
    /// Indices into `ues` of the UEs eligible for new data, in input order: first entry of its
    /// UE identifier, `buffer_bytes > 0`, wideband CQI ≠ 0, no pending HARQ retransmission,
    /// and a non-empty transport block at its MCS on all free PRBs (an MCS the table does not
    /// know would otherwise absorb PRBs it cannot use).
    pub candidates: Vec<usize>,
}

/// Clears `out`, places the HARQ retransmissions (input order, first fit: a retransmission that
/// does not fit in the PRBs left waits, TS 36.321 §5.3.2 asynchronous DL HARQ) and returns the
/// PRBs and UEs left for new data.
pub fn begin_tti(
    n_prb: u32,
    ues: &[UeState<'_>],
    tbs: &dyn TbsLookup,
    out: &mut Vec<Allocation>,
) -> TtiStart {
    out.clear();
    let mut seen = BTreeSet::new();
    let first: Vec<bool> = ues.iter().map(|u| seen.insert(u.ue)).collect();
    let mut free = n_prb;
    for (u, _) in ues.iter().zip(&first).filter(|(_, &f)| f) {
        let Some(retx) = u.harq_retx else { continue };
        if retx.n_prb == 0 || retx.n_prb > free {
            continue;
        }
        let bytes = tbs_bytes(tbs, retx.mcs, retx.n_prb);
        if bytes == 0 {
            continue;
        }
        out.push(Allocation {
            ue: u.ue,
            n_prb: retx.n_prb,
            mcs: retx.mcs,
            tbs_bytes: bytes,
            harq_retx: true,
        });
        free -= retx.n_prb;
    }
    let candidates = ues
        .iter()
        .enumerate()
        .filter(|&(i, u)| {
            first[i]
                && u.harq_retx.is_none()
                && u.buffer_bytes > 0
                && u.wideband_cqi != 0
                && tbs_bytes(tbs, u.mcs, free) > 0
        })
        .map(|(i, _)| i)
        .collect();
    TtiStart {
        free_prb: free,
        candidates,
    }
}

/// Appends a new-data allocation of `n_prb` PRBs to `ue` at its MCS, unless the transport
/// block would be empty. Returns the PRBs actually used (0 or `n_prb`).
pub fn push_new_data(
    ue: &UeState<'_>,
    n_prb: u32,
    tbs: &dyn TbsLookup,
    out: &mut Vec<Allocation>,
) -> u32 {
    let bytes = tbs_bytes(tbs, ue.mcs, n_prb);
    if bytes == 0 {
        return 0;
    }
    out.push(Allocation {
        ue: ue.ue,
        n_prb,
        mcs: ue.mcs,
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
        let n = prbs_for_bytes(tbs, u.mcs, u.buffer_bytes, free);
        free -= push_new_data(u, n, tbs, out);
    }
    free
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mac::testkit::{linear_tbs, ue, with_retx};

    #[test]
    fn prbs_for_bytes_is_the_fewest_that_carry_the_buffer() {
        let tbs = linear_tbs;
        let per_prb = tbs_bytes(&tbs, 10, 1) as u64;
        assert_eq!(prbs_for_bytes(&tbs, 10, 1, 50), 1);
        assert_eq!(prbs_for_bytes(&tbs, 10, per_prb, 50), 1);
        assert_eq!(prbs_for_bytes(&tbs, 10, per_prb + 1, 50), 2);
        assert_eq!(prbs_for_bytes(&tbs, 10, 7 * per_prb, 50), 7);
        assert_eq!(prbs_for_bytes(&tbs, 10, u64::MAX, 50), 50);
        assert_eq!(prbs_for_bytes(&tbs, 10, 5, 0), 0);
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
                wideband_cqi: 0, // CQI out of range
                ..ue(6, 100, 5)
            },
            ue(4, 500, 12), // duplicate identifier: ignored
        ];
        let mut out = Vec::new();
        let start = begin_tti(12, &ues, &tbs, &mut out);
        assert_eq!(out.len(), 2);
        assert!(out.iter().all(|a| a.harq_retx));
        assert_eq!((out[0].ue, out[0].n_prb), (1, 6));
        assert_eq!((out[1].ue, out[1].n_prb), (3, 4));
        assert_eq!(start.free_prb, 2);
        assert_eq!(start.candidates, vec![3]);
        // With no PRB left, nobody is eligible for new data.
        assert!(begin_tti(10, &ues, &tbs, &mut out).candidates.is_empty());
    }
}
