//! Round robin: channel-blind, equal PRB shares among the backlogged UEs.
//!
//! Rule. After the HARQ retransmissions, the free PRBs are dealt one at a time, like cards, to
//! the UEs eligible for new data taken in cyclic order of UE identifier, starting where the
//! previous TTI's deal stopped. A UE drops out of the deal once it holds the fewest PRBs whose
//! transport block carries its whole buffer, so its surplus goes to the others. With K UEs of
//! equal (large) backlog and M PRBs each gets ⌊M/K⌋ or ⌈M/K⌉ PRBs, the extra ones rotating from
//! TTI to TTI; with K > M, M UEs get one PRB each and the next TTI starts with the first UE
//! left out. The deal ignores CQI and MCS entirely: the shares are of PRBs, not of bytes.
//!
//! Granularity: whole PRBs (no RBG rounding of resource allocation type 0).

use super::alloc::{begin_tti, prbs_for_bytes, push_new_data, TtiScratch};
use super::{Allocation, MacScheduler, TbsLookup, UeState};

/// Round-robin scheduler. State: where the next deal starts.
#[derive(Clone, Debug, Default)]
pub struct RoundRobin {
    /// UE identifier at which the next deal starts (the first eligible UE with an identifier
    /// ≥ this value, wrapping around).
    next_ue: u32,
    /// Per-TTI working lists, reused: candidates, then the deal's order (indices into `ues`),
    /// each one's PRB need and the PRBs dealt to it.
    scratch: TtiScratch,
    order: Vec<usize>,
    need: Vec<u32>,
    given: Vec<u32>,
}

impl RoundRobin {
    pub fn new() -> Self {
        Self::default()
    }
}

impl MacScheduler for RoundRobin {
    fn name(&self) -> &'static str {
        "round_robin"
    }

    fn schedule(
        &mut self,
        _tti: u64,
        n_prb: u32,
        ues: &[UeState<'_>],
        tbs: &dyn TbsLookup,
        out: &mut Vec<Allocation>,
    ) {
        let mut free = begin_tti(n_prb, ues, tbs, out, &mut self.scratch);
        if free == 0 || self.scratch.candidates.is_empty() {
            return;
        }
        // Cyclic order of identifiers, beginning at `next_ue` (identifiers of candidates are
        // distinct, so an unstable sort gives the one order).
        let order = &mut self.order;
        order.clear();
        order.extend_from_slice(&self.scratch.candidates);
        order.sort_unstable_by_key(|&i| ues[i].ue);
        let first = order.partition_point(|&i| ues[i].ue < self.next_ue);
        order.rotate_left(first);

        let (need, given) = (&mut self.need, &mut self.given);
        need.clear();
        need.extend(
            order
                .iter()
                .map(|&i| prbs_for_bytes(tbs, &ues[i], ues[i].buffer_bytes, free)),
        );
        given.clear();
        given.resize(order.len(), 0);
        let mut last = None;
        'deal: loop {
            let mut dealt = false;
            for k in 0..order.len() {
                if free == 0 {
                    break 'deal;
                }
                if given[k] < need[k] {
                    given[k] += 1;
                    free -= 1;
                    last = Some(k);
                    dealt = true;
                }
            }
            if !dealt {
                break;
            }
        }
        if let Some(k) = last {
            self.next_ue = ues[order[k]].ue.wrapping_add(1);
        }
        for (k, &i) in order.iter().enumerate() {
            if given[k] > 0 {
                push_new_data(&ues[i], given[k], tbs, out);
            }
        }
    }

    fn on_tti_end(&mut self, _tti: u64, _served: &[(u32, u32)]) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mac::testkit::{linear_tbs, run, ue};

    #[test]
    fn equal_backlogs_get_equal_prbs_whatever_the_channel() {
        let tbs = linear_tbs;
        let ues = [
            ue(1, u64::MAX, 1),
            ue(2, u64::MAX, 10),
            ue(3, u64::MAX, 20),
            ue(4, u64::MAX, 28),
        ];
        let mut rr = RoundRobin::new();
        let mut out = Vec::new();
        rr.schedule(0, 50, &ues, &tbs, &mut out);
        let mut shares: Vec<u32> = out.iter().map(|a| a.n_prb).collect();
        shares.sort_unstable();
        assert_eq!(shares, vec![12, 12, 13, 13]);
        // Over 1000 TTIs the extra PRBs have rotated: exactly 12.5 PRBs per TTI each.
        let totals = run(&mut RoundRobin::new(), &ues, 50, 1000, &tbs);
        for u in 1..=4 {
            assert_eq!(totals.prbs_of(u), 12_500, "UE {u}");
        }
        // Channel-blind: bytes follow the MCS, PRBs do not.
        assert!(totals.bytes_of(4) > 10 * totals.bytes_of(1));
    }

    #[test]
    fn more_ues_than_prbs_rotates_single_prbs() {
        let tbs = linear_tbs;
        let ues: Vec<_> = (10..15).map(|id| ue(id, u64::MAX, 5)).collect();
        let mut rr = RoundRobin::new();
        let mut out = Vec::new();
        let mut served_order = Vec::new();
        for tti in 0..5 {
            rr.schedule(tti, 3, &ues, &tbs, &mut out);
            assert_eq!(out.len(), 3);
            assert!(out.iter().all(|a| a.n_prb == 1));
            served_order.extend(out.iter().map(|a| a.ue));
        }
        // Strict rotation: 10 11 12 | 13 14 10 | 11 12 13 | 14 10 11 | 12 13 14.
        let expected: Vec<u32> = (0..15).map(|k| 10 + (k % 5)).collect();
        assert_eq!(served_order, expected);
        let totals = run(&mut RoundRobin::new(), &ues, 3, 5000, &tbs);
        for id in 10..15 {
            assert_eq!(totals.prbs_of(id), 3000);
        }
    }

    #[test]
    fn small_buffer_gets_the_fewest_prbs_and_the_rest_is_shared() {
        let tbs = linear_tbs;
        // MCS 4: 112 bits = 14 bytes per PRB. 30 bytes need 3 PRBs.
        let ues = [ue(1, 30, 4), ue(2, u64::MAX, 4), ue(3, u64::MAX, 4)];
        let mut out = Vec::new();
        RoundRobin::new().schedule(0, 25, &ues, &tbs, &mut out);
        let prbs = |id| out.iter().find(|a| a.ue == id).map(|a| a.n_prb);
        assert_eq!(prbs(1), Some(3));
        assert_eq!(prbs(2).unwrap() + prbs(3).unwrap(), 22);
        assert_eq!(prbs(2), Some(11));
    }

    #[test]
    fn joining_and_leaving_ues_keep_the_rotation_going() {
        let tbs = linear_tbs;
        let mut rr = RoundRobin::new();
        let mut out = Vec::new();
        rr.schedule(0, 1, &[ue(5, 100, 3), ue(9, 100, 3)], &tbs, &mut out);
        assert_eq!(out[0].ue, 5);
        // UE 9 leaves, UE 7 arrives: the deal continues after 5, so 7 is next.
        rr.schedule(1, 1, &[ue(5, 100, 3), ue(7, 100, 3)], &tbs, &mut out);
        assert_eq!(out[0].ue, 7);
        rr.schedule(2, 1, &[ue(5, 100, 3), ue(7, 100, 3)], &tbs, &mut out);
        assert_eq!(out[0].ue, 5);
    }
}
