//! Maximum carrier-to-interference (max C/I, "maximum rate") scheduling.
//!
//! Rule. The UEs eligible for new data are ranked by their achievable rate: the transport block
//! size each would receive at its MCS on all the PRBs left after the HARQ retransmissions
//! (bits per TTI). The best UE takes all free PRBs, or the fewest that carry its buffer, and the
//! remainder goes to the next best. Ties go to the lower UE identifier. It maximises cell
//! throughput and starves UEs whose channel is never the best (Dahlman, Parkvall, Sköld &
//! Beming, "3G Evolution: HSPA and LTE for Mobile Broadband", 2nd ed. 2008, §7.1,
//! channel-dependent scheduling).
//!
//! No parameters, and no state carried from one TTI to the next (only reused working lists).

use std::collections::BinaryHeap;

use super::alloc::{begin_tti, fill_by_rank, ue_tbs_bytes, Ranked, TtiScratch};
use super::{Allocation, MacScheduler, TbsLookup, UeState};

/// Max C/I scheduler.
#[derive(Clone, Debug, Default)]
pub struct MaxCi {
    /// Per-TTI working lists, reused.
    scratch: TtiScratch,
    ranked: BinaryHeap<Ranked>,
}

impl MaxCi {
    pub fn new() -> Self {
        Self::default()
    }
}

impl MacScheduler for MaxCi {
    fn name(&self) -> &'static str {
        "max_ci"
    }

    fn schedule(
        &mut self,
        _tti: u64,
        n_prb: u32,
        ues: &[UeState<'_>],
        tbs: &dyn TbsLookup,
        out: &mut Vec<Allocation>,
    ) {
        let free = begin_tti(n_prb, ues, tbs, out, &mut self.scratch);
        if free == 0 || self.scratch.candidates.is_empty() {
            return;
        }
        self.ranked.clear();
        self.ranked
            .extend(self.scratch.candidates.iter().map(|&i| Ranked {
                // Bytes are whole numbers below 2^32: exact as f64, so the order is that of
                // the sizes.
                metric: f64::from(ue_tbs_bytes(tbs, &ues[i], free)),
                ue: ues[i].ue,
                index: i,
            }));
        fill_by_rank(&mut self.ranked, free, ues, tbs, out);
    }

    fn on_tti_end(&mut self, _tti: u64, _served: &[(u32, u32)]) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mac::testkit::{linear_tbs, run, ue};

    #[test]
    fn the_best_channel_takes_the_band() {
        let tbs = linear_tbs;
        let ues = [ue(1, u64::MAX, 5), ue(2, u64::MAX, 15), ue(3, u64::MAX, 10)];
        let totals = run(&mut MaxCi::new(), &ues, 50, 100, &tbs);
        assert_eq!(totals.prbs_of(2), 5000);
        assert_eq!(totals.prbs_of(1) + totals.prbs_of(3), 0);
    }

    #[test]
    fn remainder_spills_to_the_next_best() {
        let tbs = linear_tbs;
        // MCS 15: 376 bits = 47 bytes per PRB; 100 bytes need 3 PRBs.
        let ues = [ue(1, u64::MAX, 5), ue(2, 100, 15), ue(3, u64::MAX, 10)];
        let mut out = Vec::new();
        MaxCi::new().schedule(0, 20, &ues, &tbs, &mut out);
        let got: Vec<(u32, u32)> = out.iter().map(|a| (a.ue, a.n_prb)).collect();
        assert_eq!(got, vec![(2, 3), (3, 17)]);
    }
}
