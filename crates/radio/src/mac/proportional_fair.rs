//! Proportional fair (Jalali, Padovani & Pankaj, "Data throughput of CDMA-HDR", VTC 2000-Spring;
//! analysed by Holtzman, PIMRC 2001, and Kushner & Whiting 2004).
//!
//! Rule. Each TTI the UEs eligible for new data are ranked by the metric r_i(t) / R_i(t):
//! * r_i(t), bits per TTI: the transport block size UE i would receive at its MCS if given all
//!   the PRBs left after the HARQ retransmissions (its achievable rate now);
//! * R_i(t), bits per TTI: an exponential moving average of the bits delivered to UE i,
//!   `R_i(t+1) = (1 − 1/t_c)·R_i(t) + (1/t_c)·d_i(t)`, with d_i(t) the bits reported by
//!   `on_tti_end` (0 when not served), updated for every UE the scheduler knows in every TTI,
//!   including TTIs the cell skipped (each counts as d = 0). A UE seen for the first time
//!   starts at R = 0, and R is floored at [`R_FLOOR_BITS_PER_TTI`] in the metric so that the
//!   ratio stays finite.
//!
//! Allocation is whole-band: the UE with the highest metric takes all free PRBs, or the fewest
//! that carry its buffer, and the remainder goes to the next UE in metric order. Ties go to the
//! lower UE identifier. With equal channels every UE gets the same long-run share; with
//! unequal (static) channels each gets the same share of TTIs, so throughput is proportional to
//! its rate: better channels get more, but not all of it.
//!
//! Parameter: t_c, default [`DEFAULT_TIME_CONSTANT_TTI`] = 1000 TTIs (1 s at 1 ms per TTI),
//! the value t_c = 1000 slots used for the HDR scheduler by Jalali et al.

use std::collections::{BTreeMap, BinaryHeap};

use super::alloc::{begin_tti, fill_by_rank, ue_tbs_bytes, Ranked, TtiScratch};
use super::{Allocation, MacError, MacScheduler, TbsLookup, UeState};

/// Default time constant of the throughput average, TTIs.
pub const DEFAULT_TIME_CONSTANT_TTI: f64 = 1000.0;

/// Lower bound of R_i in the metric, bits per TTI (1 bit/TTI = 1 kbit/s at 1 ms TTIs).
pub const R_FLOOR_BITS_PER_TTI: f64 = 1.0;

/// Averages below this, bits per TTI, are forgotten: they weigh the same as a new UE's in the
/// metric (both are floored), and dropping them bounds the state kept for departed UEs.
const FORGET_BELOW_BITS_PER_TTI: f64 = 1e-9;

/// Proportional-fair scheduler.
#[derive(Clone, Debug)]
pub struct ProportionalFair {
    /// t_c, TTIs.
    time_constant_tti: f64,
    /// R_i per UE, bits per TTI.
    average: BTreeMap<u32, f64>,
    /// Last TTI whose deliveries were averaged.
    last_tti: Option<u64>,
    /// Per-TTI working lists, reused.
    scratch: TtiScratch,
    ranked: BinaryHeap<Ranked>,
}

impl ProportionalFair {
    /// A scheduler with time constant `time_constant_tti` (TTIs; finite and ≥ 1, since the
    /// average's weight of a new sample is 1/t_c).
    pub fn new(time_constant_tti: f64) -> Result<Self, MacError> {
        if !(time_constant_tti.is_finite() && time_constant_tti >= 1.0) {
            return Err(MacError::InvalidParameter {
                key: "pf_time_constant_tti",
                value: time_constant_tti,
                expected: "a finite number of TTIs ≥ 1",
            });
        }
        Ok(ProportionalFair {
            time_constant_tti,
            average: BTreeMap::new(),
            last_tti: None,
            scratch: TtiScratch::default(),
            ranked: BinaryHeap::new(),
        })
    }

    /// t_c, TTIs.
    pub fn time_constant_tti(&self) -> f64 {
        self.time_constant_tti
    }

    /// R_i of `ue`, bits per TTI, if the scheduler keeps one.
    pub fn average_bits_per_tti(&self, ue: u32) -> Option<f64> {
        self.average.get(&ue).copied()
    }
}

/// r/R of `ue` with the averages `average` (bits per TTI) and its achievable rate now.
fn metric(average: &BTreeMap<u32, f64>, ue: u32, rate_bits_per_tti: f64) -> f64 {
    let r = average.get(&ue).copied().unwrap_or(0.0);
    rate_bits_per_tti / r.max(R_FLOOR_BITS_PER_TTI)
}

impl Default for ProportionalFair {
    fn default() -> Self {
        ProportionalFair {
            time_constant_tti: DEFAULT_TIME_CONSTANT_TTI,
            average: BTreeMap::new(),
            last_tti: None,
            scratch: TtiScratch::default(),
            ranked: BinaryHeap::new(),
        }
    }
}

impl MacScheduler for ProportionalFair {
    fn name(&self) -> &'static str {
        "proportional_fair"
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
        let (average, ranked) = (&self.average, &mut self.ranked);
        ranked.clear();
        ranked.extend(self.scratch.candidates.iter().map(|&i| {
            let rate = 8.0 * f64::from(ue_tbs_bytes(tbs, &ues[i], free));
            Ranked {
                metric: metric(average, ues[i].ue, rate),
                ue: ues[i].ue,
                index: i,
            }
        }));
        fill_by_rank(ranked, free, ues, tbs, out);
    }

    fn on_tti_end(&mut self, tti: u64, served: &[(u32, u32)]) {
        let beta = 1.0 / self.time_constant_tti;
        // TTIs skipped since the last update delivered nothing: (1 − β)^gap. A repeated or
        // earlier `tti` is averaged as the next TTI (no extra decay).
        let skipped = match self.last_tti {
            Some(last) if tti > last => tti - last - 1,
            _ => 0,
        };
        let decay = (1.0 - beta).powf(skipped as f64 + 1.0);
        for r in self.average.values_mut() {
            *r *= decay;
        }
        for &(ue, bits) in served {
            *self.average.entry(ue).or_insert(0.0) += beta * f64::from(bits);
        }
        self.average.retain(|_, r| *r >= FORGET_BELOW_BITS_PER_TTI);
        self.last_tti = Some(self.last_tti.map_or(tti, |l| l.max(tti)));
    }

    fn on_ue_removed(&mut self, ue: u32) {
        self.average.remove(&ue);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mac::max_ci::MaxCi;
    use crate::mac::testkit::{jain, linear_tbs, run, ue};

    #[test]
    fn equal_channels_share_equally() {
        let tbs = linear_tbs;
        let ues: Vec<_> = (1..=5).map(|id| ue(id, u64::MAX, 12)).collect();
        let totals = run(&mut ProportionalFair::default(), &ues, 50, 10_000, &tbs);
        let bytes: Vec<f64> = (1..=5).map(|id| totals.bytes_of(id) as f64).collect();
        let j = jain(&bytes);
        eprintln!("PF, 5 equal UEs, 10 000 TTIs: Jain index {j:.6}, bytes {bytes:?}");
        assert!(j >= 0.99, "Jain {j}");
    }

    #[test]
    fn better_channels_get_more_but_not_all() {
        let tbs = linear_tbs;
        // MCS 20: 496 bits/PRB; MCS 5: 136 bits/PRB.
        let ues = [ue(1, u64::MAX, 20), ue(2, u64::MAX, 5)];
        let pf = run(&mut ProportionalFair::default(), &ues, 50, 10_000, &tbs);
        let mci = run(&mut MaxCi::new(), &ues, 50, 10_000, &tbs);
        let (good, poor) = (pf.bytes_of(1) as f64, pf.bytes_of(2) as f64);
        let time_share_poor = pf.ttis_of(2) as f64 / 10_000.0;
        eprintln!(
            "PF, MCS 20 vs 5: bytes {good} vs {poor} (poor share {:.3}), poor UE's TTI share \
             {time_share_poor:.3}; max C/I gives the poor UE {} bytes",
            poor / (good + poor),
            mci.bytes_of(2)
        );
        assert!(good > 2.0 * poor);
        // Equal time shares, so throughput in proportion to the rates 496 : 136.
        assert!((time_share_poor - 0.5).abs() < 0.01, "{time_share_poor}");
        assert!(((good / poor) - 496.0 / 136.0).abs() < 0.1);
        // Max C/I starves the poor UE; PF does not.
        assert_eq!(mci.bytes_of(2), 0);
        assert!(pf.bytes_of(1) < mci.bytes_of(1));
    }

    #[test]
    fn average_follows_the_ema_with_skipped_ttis_as_zero() {
        let mut pf = ProportionalFair::new(100.0).unwrap();
        pf.on_tti_end(0, &[(7, 1000)]);
        assert!((pf.average_bits_per_tti(7).unwrap() - 10.0).abs() < 1e-12);
        for t in 1..2000 {
            pf.on_tti_end(t, &[(7, 1000)]);
        }
        let r = pf.average_bits_per_tti(7).unwrap();
        assert!((r - 1000.0).abs() < 1e-3, "{r}");
        // 100 TTIs skipped (1999 → 2100): 101 decays of 0.99 including TTI 2100 itself.
        pf.on_tti_end(2100, &[]);
        let expected = r * 0.99f64.powi(101);
        assert!((pf.average_bits_per_tti(7).unwrap() - expected).abs() < 1e-9);
        pf.on_ue_removed(7);
        assert_eq!(pf.average_bits_per_tti(7), None);
    }

    #[test]
    fn a_newcomer_is_served_first_then_shares() {
        let tbs = linear_tbs;
        let mut pf = ProportionalFair::default();
        let old = [ue(1, u64::MAX, 10)];
        run(&mut pf, &old, 25, 3000, &tbs);
        let both = [ue(1, u64::MAX, 10), ue(2, u64::MAX, 10)];
        let mut out = Vec::new();
        pf.schedule(3000, 25, &both, &tbs, &mut out);
        assert_eq!(out[0].ue, 2);
        assert_eq!(out[0].n_prb, 25);
    }

    #[test]
    fn rejects_a_bad_time_constant() {
        for bad in [0.0, 0.5, -3.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                ProportionalFair::new(bad),
                Err(MacError::InvalidParameter {
                    key: "pf_time_constant_tti",
                    ..
                })
            ));
        }
    }
}
