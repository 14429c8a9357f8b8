//! Allocation invariants of every scheduler, as property tests over random UE sets, PRB
//! counts, TBS tables and TTI sequences (with skipped TTIs).

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::alloc::{prbs_for_bytes, tbs_bytes};
use super::testkit::{linear_tbs, staircase_tbs};
use super::Weight;
use super::{build, Allocation, HarqRetx, Layers, MacSchedulerConfig, TbsLookup, UeState, NAMES};
use crate::phy::{Cqi, Mcs};

#[derive(Clone, Debug)]
struct Tti {
    gap: u64,
    n_prb: u32,
    ues: Vec<UeState<'static>>,
}

fn ue_state() -> impl Strategy<Value = UeState<'static>> {
    let buffer = prop_oneof![Just(0u64), 1..200u64, 200..100_000u64, Just(u64::MAX)];
    let retx = proptest::option::weighted(0.3, (0..=40u32, 0..=28u8, 0..8u8));
    (0..24u32, buffer, 0..=28u8, 0..=15u8, 0.1..10.0f64, retx).prop_map(
        |(ue, buffer_bytes, mcs, wideband_cqi, weight, retx)| UeState {
            ue,
            buffer_bytes,
            wideband_cqi: Cqi::new(wideband_cqi).unwrap(),
            subband_cqi: None,
            mcs: Mcs::new(mcs).unwrap(),
            layers: Layers::ONE,
            weight: Weight::new(weight).unwrap(),
            harq_retx: retx.map(|(n_prb, mcs, process)| HarqRetx {
                n_prb,
                mcs: Mcs::new(mcs).unwrap(),
                layers: Layers::ONE,
                process,
            }),
        },
    )
}

fn tti() -> impl Strategy<Value = Tti> {
    (
        1..4u64,
        0..=110u32,
        proptest::collection::vec(ue_state(), 0..14),
    )
        .prop_map(|(gap, n_prb, ues)| Tti { gap, n_prb, ues })
}

/// Checks one TTI's allocations against the rules of the module documentation.
fn check(n_prb: u32, ues: &[UeState<'_>], tbs: &dyn TbsLookup, out: &[Allocation]) {
    let mut first: BTreeMap<u32, &UeState<'_>> = BTreeMap::new();
    for u in ues {
        first.entry(u.ue).or_insert(u);
    }
    let total: u32 = out.iter().map(|a| a.n_prb).sum();
    assert!(total <= n_prb, "{total} PRBs of {n_prb}");
    let mut got: BTreeMap<u32, &Allocation> = BTreeMap::new();
    let mut seen_new = false;
    for a in out {
        assert!(got.insert(a.ue, a).is_none(), "UE {} allocated twice", a.ue);
        let u = first
            .get(&a.ue)
            .unwrap_or_else(|| panic!("UE {} not offered", a.ue));
        assert!(a.n_prb >= 1);
        assert_eq!(a.tbs_bytes, tbs_bytes(tbs, a.mcs, a.layers, a.n_prb));
        assert!(a.tbs_bytes > 0);
        if a.harq_retx {
            assert!(!seen_new, "retransmission after new data");
            let r = u.harq_retx.expect("retransmission without a pending one");
            assert_eq!((a.n_prb, a.mcs), (r.n_prb, r.mcs));
        } else {
            seen_new = true;
            assert!(
                u.harq_retx.is_none(),
                "new data to a UE with a pending retransmission"
            );
            assert!(u.buffer_bytes > 0 && !u.wideband_cqi.is_out_of_range());
            assert_eq!(a.mcs, u.mcs);
            // Buffer cap: one PRB fewer would not carry the buffer.
            if a.n_prb > 1 {
                assert!(u64::from(tbs_bytes(tbs, a.mcs, a.layers, a.n_prb - 1)) < u.buffer_bytes);
            }
        }
    }
    // HARQ first, first fit in input order: a skipped retransmission did not fit.
    let mut free = n_prb;
    let mut done = std::collections::BTreeSet::new();
    for u in ues.iter().filter(|u| done.insert(u.ue)) {
        let Some(r) = u.harq_retx else { continue };
        match got.get(&u.ue) {
            Some(a) if a.harq_retx => free -= a.n_prb,
            _ => assert!(
                r.n_prb == 0 || r.n_prb > free || tbs_bytes(tbs, r.mcs, r.layers, r.n_prb) == 0,
                "retransmission of UE {} skipped with {free} PRBs free",
                u.ue
            ),
        }
    }
    // No PRB left idle while an eligible UE wanted more.
    let unmet = first.values().any(|u| {
        let eligible = u.harq_retx.is_none()
            && u.buffer_bytes > 0
            && !u.wideband_cqi.is_out_of_range()
            && tbs_bytes(tbs, u.mcs, u.layers, free) > 0;
        let given = got.get(&u.ue).map_or(0, |a| a.n_prb);
        eligible && given < prbs_for_bytes(tbs, u, u.buffer_bytes, free)
    });
    if unmet {
        assert_eq!(total, n_prb, "PRBs left idle while a UE wanted more");
    }
}

fn run_all(name: &str, ttis: &[Tti], staircase: bool) -> Vec<Vec<Allocation>> {
    let tbs: &dyn TbsLookup = if staircase {
        &staircase_tbs
    } else {
        &linear_tbs
    };
    let mut sched = build(name, &MacSchedulerConfig::default()).unwrap();
    assert_eq!(sched.name(), name);
    let mut t = 0u64;
    let mut out = Vec::new();
    let mut trace = Vec::new();
    for step in ttis {
        t += step.gap;
        sched.schedule(t, step.n_prb, &step.ues, tbs, &mut out);
        check(step.n_prb, &step.ues, tbs, &out);
        let served: Vec<(u32, u32)> = out
            .iter()
            .enumerate()
            .filter(|(k, _)| k % 3 != 2) // every third block fails to decode
            .map(|(_, a)| (a.ue, a.tbs_bytes * 8))
            .collect();
        sched.on_tti_end(t, &served);
        trace.push(out.clone());
    }
    trace
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn every_scheduler_keeps_the_allocation_invariants(
        ttis in proptest::collection::vec(tti(), 1..12),
        staircase in any::<bool>(),
    ) {
        for name in NAMES {
            let a = run_all(name, &ttis, staircase);
            // Deterministic: the same inputs give the same allocations.
            let b = run_all(name, &ttis, staircase);
            prop_assert_eq!(a, b);
        }
    }
}

#[test]
fn unknown_name_lists_the_known_ones() {
    let err = build("pf", &MacSchedulerConfig::default()).err().unwrap();
    assert_eq!(
        err.to_string(),
        "MAC scheduler 'pf' is unknown; expected one of round_robin, proportional_fair, max_ci, wfq"
    );
    let bad = MacSchedulerConfig {
        pf_time_constant_tti: 0.0,
    };
    assert!(build("proportional_fair", &bad).is_err());
    assert!(build("round_robin", &bad).is_ok());
}

/// UE lists that change from TTI to TTI (buffers that empty and refill, HARQ retransmissions
/// that come and go, a UE whose CQI drops to 0), optionally with identifiers out of order and
/// repeated, built before any allocation is counted.
fn varying_ue_sets(n_ues: u32, shuffled: bool) -> Vec<Vec<UeState<'static>>> {
    (0..16u32)
        .map(|t| {
            let mut ues: Vec<UeState<'static>> = (0..n_ues)
                .map(|id| {
                    let mut u = super::testkit::ue(id, 1_000_000, 10 + (id % 15) as u8);
                    match (id + t) % 7 {
                        0 => u.buffer_bytes = 0,
                        1 => u.buffer_bytes = 40,
                        2 => {
                            u.harq_retx = Some(HarqRetx {
                                n_prb: 3,
                                mcs: u.mcs,
                                layers: u.layers,
                                process: (t % 8) as u8,
                            })
                        }
                        3 if t % 2 == 0 => u.wideband_cqi = Cqi::OUT_OF_RANGE,
                        _ => {}
                    }
                    u
                })
                .collect();
            if shuffled {
                ues.reverse();
                let repeat = ues[0];
                ues.push(repeat);
            }
            ues
        })
        .collect()
}

#[test]
fn a_scheduler_in_its_steady_state_does_not_allocate() {
    let tbs = linear_tbs;
    for name in NAMES {
        for n_ues in [1u32, 10, 50] {
            for shuffled in [false, true] {
                let sets = varying_ue_sets(n_ues, shuffled);
                let mut mac = build(name, &MacSchedulerConfig::default()).unwrap();
                let mut out: Vec<Allocation> = Vec::with_capacity(64);
                let mut served: Vec<(u32, u32)> = Vec::with_capacity(64);
                let mut tti_of = |mac: &mut Box<dyn super::MacScheduler>, tti: u64| {
                    let ues = &sets[(tti % 16) as usize];
                    mac.schedule(tti, 50, ues, &tbs, &mut out);
                    served.clear();
                    served.extend(out.iter().map(|a| (a.ue, a.tbs_bytes * 8)));
                    mac.on_tti_end(tti, &served);
                };
                // Warm-up: the working lists grow, every UE gets its per-UE state.
                for tti in 0..500 {
                    tti_of(&mut mac, tti);
                }
                let before = super::testkit::allocations();
                for tti in 500..2500 {
                    tti_of(&mut mac, tti);
                }
                let allocations = super::testkit::allocations() - before;
                assert_eq!(
                    allocations, 0,
                    "{name}, {n_ues} UEs, shuffled {shuffled}: {allocations} allocations in \
                     2000 TTIs"
                );
            }
        }
    }
}
