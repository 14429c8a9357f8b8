//! Weighted fair queueing across UEs: the eNodeB scheduler of Pacifico et al., "Improving TCP
//! performance during the intra LTE handover" (GLOBECOM 2009), whose paper names WFQ without
//! further detail. The rule below is packet-by-packet WFQ (Demers, Keshav & Shenker, SIGCOMM
//! 1989; Parekh & Gallager, IEEE/ACM ToN 1993) with one PRB's worth of bytes as the "packet",
//! and the system virtual time taken from the backlogged UEs' tags as in self-clocked and
//! start-time fair queueing (Golestani, INFOCOM 1994; Goyal, Vin & Cheng, SIGCOMM 1996).
//!
//! Exact rule. Each UE i has a virtual finish tag F_i in bytes per unit weight; the scheduler a
//! virtual time V (same unit). A UE is *backlogged* in a TTI when its `buffer_bytes > 0`.
//! In every call of `schedule`:
//! 1. V ← max(V, min F_j over the UEs backlogged both in this call and in the previous one)
//!    (V unchanged if there are none).
//! 2. A UE backlogged now but not in the previous call (new, or back from an empty buffer)
//!    restarts at F_i ← max(F_i, V), F_i = 0 for a UE never seen: idle time earns no credit.
//! 3. After the HARQ retransmissions, the free PRBs are dealt one at a time. With n_i PRBs
//!    already dealt to UE i in this TTI and b_i(n) = min(TBS_bytes(mcs_i, n), buffer_i), the
//!    next PRB goes to the eligible UE with the smallest prospective finish tag
//!    F_i + b_i(n_i + 1) / w_i, ties to the lower UE identifier, among the UEs that do not yet
//!    hold the fewest PRBs carrying their buffer. The deal stops when no PRB or no such UE is
//!    left.
//! 4. F_i ← F_i + b_i(n_i) / w_i for every UE served.
//!
//! Bytes are counted when scheduled as new data (they leave the RLC queue then); HARQ
//! retransmissions are not counted again, and `on_tti_end` is not used. A weight is finite
//! and > 0 by its type ([`Weight`](super::Weight)), so every tag is finite. Over a busy
//! period the bytes served to two continuously backlogged UEs i and j satisfy
//! |S_i/w_i − S_j/w_j| ≤ L_max/w_i + L_max/w_j, with L_max the largest per-PRB increment, so
//! long-run byte shares follow the weights whatever the channels (a poor channel gets more
//! PRBs).

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BinaryHeap};

use super::alloc::{begin_tti, prbs_for_bytes, push_new_data, ue_tbs_bytes, TtiScratch};
use super::{Allocation, MacScheduler, TbsLookup, UeState};

/// Weighted-fair-queueing scheduler.
#[derive(Clone, Debug, Default)]
pub struct Wfq {
    /// F_i per UE, bytes per unit weight.
    finish: BTreeMap<u32, f64>,
    /// UEs backlogged in the previous call of `schedule`, by increasing identifier.
    backlogged: Vec<u32>,
    /// V, bytes per unit weight.
    virtual_time: f64,
    /// Per-TTI working lists, reused (see [`Work`]).
    work: Work,
}

/// The lists one call of `schedule` works in, kept so that a TTI does not allocate.
#[derive(Clone, Debug, Default)]
struct Work {
    scratch: TtiScratch,
    /// UEs backlogged in this call, by increasing identifier.
    backlogged_now: Vec<u32>,
    /// Candidates by increasing identifier (indices into `ues`).
    order: Vec<usize>,
    /// Per entry of `order`: F_i before this TTI, PRBs that carry the buffer, PRBs dealt.
    base: Vec<f64>,
    need: Vec<u32>,
    given: Vec<u32>,
    heap: BinaryHeap<Reverse<Deal>>,
}

impl Wfq {
    pub fn new() -> Self {
        Self::default()
    }

    /// F_i of `ue`, bytes per unit weight, if the scheduler keeps one.
    pub fn finish_tag(&self, ue: u32) -> Option<f64> {
        self.finish.get(&ue).copied()
    }

    /// V, bytes per unit weight.
    pub fn virtual_time(&self) -> f64 {
        self.virtual_time
    }

    /// Steps 1 and 2 of the rule. Needs the first-entry marks of `begin_tti` for `ues`.
    fn update_backlog(&mut self, ues: &[UeState<'_>]) {
        let now = &mut self.work.backlogged_now;
        now.clear();
        now.extend(
            ues.iter()
                .enumerate()
                .filter(|&(i, u)| self.work.scratch.is_first(i) && u.buffer_bytes > 0)
                .map(|(_, u)| u.ue),
        );
        now.sort_unstable();
        // Both lists are sorted without repeats: a merge walk finds the UEs in both (steps 1)
        // and those new to the backlog (step 2).
        let (mut continuing_min, mut k) = (None::<f64>, 0);
        for &ue in now.iter() {
            while k < self.backlogged.len() && self.backlogged[k] < ue {
                k += 1;
            }
            if k < self.backlogged.len() && self.backlogged[k] == ue {
                if let Some(&f) = self.finish.get(&ue) {
                    continuing_min = Some(match continuing_min {
                        Some(m) if m.total_cmp(&f).is_le() => m,
                        _ => f,
                    });
                }
            }
        }
        if let Some(m) = continuing_min {
            self.virtual_time = self.virtual_time.max(m);
        }
        let mut k = 0;
        for &ue in now.iter() {
            while k < self.backlogged.len() && self.backlogged[k] < ue {
                k += 1;
            }
            if k < self.backlogged.len() && self.backlogged[k] == ue {
                continue;
            }
            let f = self.finish.entry(ue).or_insert(0.0);
            *f = f.max(self.virtual_time);
        }
        std::mem::swap(&mut self.backlogged, now);
    }
}

/// A UE's claim on the next PRB, ordered by prospective finish tag, then UE identifier.
#[derive(Clone, Copy, Debug)]
struct Deal {
    /// Prospective finish tag, bytes per unit weight.
    tag: f64,
    ue: u32,
    /// Index into the sorted candidate list.
    k: usize,
}

impl Ord for Deal {
    fn cmp(&self, other: &Self) -> Ordering {
        self.tag.total_cmp(&other.tag).then(self.ue.cmp(&other.ue))
    }
}

impl PartialOrd for Deal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Deal {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Deal {}

/// Bytes UE `u` would take from its buffer with `n_prb` PRBs.
fn served_bytes(u: &UeState<'_>, n_prb: u32, tbs: &dyn TbsLookup) -> f64 {
    u64::from(ue_tbs_bytes(tbs, u, n_prb)).min(u.buffer_bytes) as f64
}

impl MacScheduler for Wfq {
    fn name(&self) -> &'static str {
        "wfq"
    }

    fn schedule(
        &mut self,
        _tti: u64,
        n_prb: u32,
        ues: &[UeState<'_>],
        tbs: &dyn TbsLookup,
        out: &mut Vec<Allocation>,
    ) {
        let mut free = begin_tti(n_prb, ues, tbs, out, &mut self.work.scratch);
        self.update_backlog(ues);
        let Work {
            scratch,
            order,
            base,
            need,
            given,
            heap,
            ..
        } = &mut self.work;
        order.clear();
        order.extend_from_slice(&scratch.candidates);
        if free == 0 || order.is_empty() {
            return;
        }
        order.sort_unstable_by_key(|&i| ues[i].ue);
        base.clear();
        base.extend(
            order
                .iter()
                .map(|&i| self.finish.get(&ues[i].ue).copied().unwrap_or(0.0)),
        );
        need.clear();
        need.extend(
            order
                .iter()
                .map(|&i| prbs_for_bytes(tbs, &ues[i], ues[i].buffer_bytes, free)),
        );
        given.clear();
        given.resize(order.len(), 0);
        // Min-heap of prospective finish tags; a UE is in it while it wants more PRBs.
        let prospective = |k: usize, n: u32| {
            let u = &ues[order[k]];
            Deal {
                tag: base[k] + served_bytes(u, n, tbs) / u.weight.get(),
                ue: u.ue,
                k,
            }
        };
        heap.clear();
        heap.extend(
            (0..order.len())
                .filter(|&k| need[k] > 0)
                .map(|k| Reverse(prospective(k, 1))),
        );
        while free > 0 {
            let Some(Reverse(Deal { k, .. })) = heap.pop() else {
                break;
            };
            given[k] += 1;
            free -= 1;
            if given[k] < need[k] {
                heap.push(Reverse(prospective(k, given[k] + 1)));
            }
        }
        heap.clear();
        for (k, &i) in order.iter().enumerate() {
            let u = &ues[i];
            if given[k] > 0 && push_new_data(u, given[k], tbs, out) > 0 {
                let f = self.finish.entry(u.ue).or_insert(0.0);
                *f += served_bytes(u, given[k], tbs) / u.weight.get();
            }
        }
    }

    fn on_tti_end(&mut self, _tti: u64, _served: &[(u32, u32)]) {}

    fn on_ue_removed(&mut self, ue: u32) {
        self.finish.remove(&ue);
        self.backlogged.retain(|&b| b != ue);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mac::testkit::{linear_tbs, run, ue};
    use crate::mac::Weight;

    fn weighted(id: u32, mcs: u8, weight: f64) -> UeState<'static> {
        UeState {
            weight: Weight::new(weight).unwrap(),
            ..ue(id, u64::MAX, mcs)
        }
    }

    fn assert_byte_shares_follow_weights(ues: &[UeState<'_>], n_prb: u32) {
        let totals = run(&mut Wfq::new(), ues, n_prb, 10_000, &linear_tbs);
        let total: f64 = ues.iter().map(|u| totals.bytes_of(u.ue) as f64).sum();
        let wsum: f64 = ues.iter().map(|u| u.weight.get()).sum();
        for u in ues {
            let share = totals.bytes_of(u.ue) as f64 / total;
            let target = u.weight.get() / wsum;
            eprintln!(
                "WFQ UE {} (MCS {}, w {}): byte share {share:.5}, target {target:.5}, PRBs {}",
                u.ue,
                u.mcs,
                u.weight.get(),
                totals.prbs_of(u.ue)
            );
            assert!(
                (share / target - 1.0).abs() < 0.01,
                "UE {}: {share} vs {target}",
                u.ue
            );
        }
    }

    #[test]
    fn bytes_in_proportion_to_weights_equal_channels() {
        assert_byte_shares_follow_weights(
            &[
                weighted(1, 10, 1.0),
                weighted(2, 10, 2.0),
                weighted(3, 10, 3.0),
            ],
            50,
        );
    }

    #[test]
    fn bytes_in_proportion_to_weights_unequal_channels() {
        // Byte shares, not PRB shares: the MCS-2 UE needs many more PRBs for its bytes.
        assert_byte_shares_follow_weights(
            &[
                weighted(1, 2, 1.0),
                weighted(2, 20, 1.0),
                weighted(3, 27, 0.5),
            ],
            25,
        );
    }

    #[test]
    fn fewer_prbs_than_ues_still_shares_by_weight() {
        assert_byte_shares_follow_weights(
            &[
                weighted(1, 10, 1.0),
                weighted(2, 10, 4.0),
                weighted(3, 10, 1.0),
                weighted(4, 10, 2.0),
            ],
            3,
        );
    }

    #[test]
    fn idle_time_earns_no_credit() {
        let tbs = linear_tbs;
        let mut wfq = Wfq::new();
        run(&mut wfq, &[weighted(1, 10, 1.0)], 10, 1000, &tbs);
        let f1 = wfq.finish_tag(1).unwrap();
        // UE 2 arrives: it starts at V (UE 1's tag), not at 0.
        let mut out = Vec::new();
        wfq.schedule(
            1000,
            10,
            &[weighted(1, 10, 1.0), weighted(2, 10, 1.0)],
            &tbs,
            &mut out,
        );
        assert!((wfq.virtual_time() - f1).abs() < 1e-9);
        assert!(wfq.finish_tag(2).unwrap() >= f1);
        // Both got half the band: neither was owed the other's past service.
        let prbs = |id| out.iter().find(|a| a.ue == id).unwrap().n_prb;
        assert_eq!((prbs(1), prbs(2)), (5, 5));
    }

    #[test]
    fn a_weight_is_finite_and_positive_or_is_refused() {
        for w in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = Weight::new(w).unwrap_err().to_string();
            assert!(e.starts_with("weight: ") && e.ends_with("expected a finite number > 0"));
        }
        assert_eq!(Weight::new(2.5).map(Weight::get), Ok(2.5));
    }
}
