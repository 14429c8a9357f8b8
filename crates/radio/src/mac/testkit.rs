//! Fixtures shared by the scheduler tests: stand-in transport block sizes, UE builders, a
//! full-buffer driver that runs a scheduler for many TTIs, and Jain's fairness index.

use std::collections::BTreeMap;

use super::{Allocation, HarqRetx, Layers, MacScheduler, TbsLookup, UeState, Weight};
use crate::phy::{Cqi, Mcs};

/// MCS `index` (0..=28).
pub fn mcs(index: u8) -> Mcs {
    Mcs::new(index).unwrap()
}

/// CQI `index` (0..=15).
pub fn cqi(index: u8) -> Cqi {
    Cqi::new(index).unwrap()
}

/// Stand-in TBS, bits: linear in PRBs (1..=110), increasing in MCS, 0 otherwise.
/// 16 + 24·mcs bits per PRB spans 2 to 86 bytes per PRB, the order of TS 36.213 Table 7.1.7.2.1-1.
pub fn linear_tbs(mcs: Mcs, n_prb: u32) -> u32 {
    if n_prb == 0 || n_prb > 110 {
        0
    } else {
        n_prb * (16 + 24 * u32::from(mcs.get()))
    }
}

/// Stand-in TBS, bits: non-decreasing and concave in PRBs with plateaus (multiples of 24
/// bits, at least 24), to exercise the buffer cap on a table that is not linear.
pub fn staircase_tbs(mcs: Mcs, n_prb: u32) -> u32 {
    if n_prb == 0 || n_prb > 110 {
        0
    } else {
        let raw = f64::from(n_prb * (20 + 22 * u32::from(mcs.get())));
        ((raw.powf(0.95) / 24.0).floor() as u32).max(1) * 24
    }
}

/// A UE with `buffer_bytes` of data at MCS `mcs_index`, a matching CQI, weight 1, no
/// retransmission.
pub fn ue(id: u32, buffer_bytes: u64, mcs_index: u8) -> UeState<'static> {
    UeState {
        ue: id,
        buffer_bytes,
        wideband_cqi: cqi((1 + mcs_index / 2).min(15)),
        subband_cqi: None,
        mcs: mcs(mcs_index),
        layers: Layers::ONE,
        weight: Weight::ONE,
        harq_retx: None,
    }
}

/// `u` with a pending HARQ retransmission of `n_prb` PRBs at MCS `mcs_index` on `process`.
pub fn with_retx(u: UeState<'static>, n_prb: u32, mcs_index: u8, process: u8) -> UeState<'static> {
    UeState {
        harq_retx: Some(HarqRetx {
            n_prb,
            mcs: mcs(mcs_index),
            layers: Layers::ONE,
            process,
        }),
        ..u
    }
}

/// Per-UE totals of a run.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    /// PRBs assigned, summed over TTIs.
    pub prbs: BTreeMap<u32, u64>,
    /// Transport block bytes assigned (all decoded), summed over TTIs.
    pub bytes: BTreeMap<u32, u64>,
    /// TTIs in which the UE got an allocation.
    pub ttis: BTreeMap<u32, u64>,
}

impl Totals {
    pub fn bytes_of(&self, ue: u32) -> u64 {
        self.bytes.get(&ue).copied().unwrap_or(0)
    }
    pub fn prbs_of(&self, ue: u32) -> u64 {
        self.prbs.get(&ue).copied().unwrap_or(0)
    }
    pub fn ttis_of(&self, ue: u32) -> u64 {
        self.ttis.get(&ue).copied().unwrap_or(0)
    }
}

/// Runs `sched` for `ttis` TTIs of `n_prb` PRBs with the fixed UE set `ues` (buffers are not
/// drained: give large buffers for full-buffer traffic); every transport block is decoded.
pub fn run(
    sched: &mut dyn MacScheduler,
    ues: &[UeState<'_>],
    n_prb: u32,
    ttis: u64,
    tbs: &dyn TbsLookup,
) -> Totals {
    let mut totals = Totals::default();
    let mut out: Vec<Allocation> = Vec::new();
    let mut served = Vec::new();
    for tti in 0..ttis {
        sched.schedule(tti, n_prb, ues, tbs, &mut out);
        served.clear();
        for a in &out {
            *totals.prbs.entry(a.ue).or_default() += u64::from(a.n_prb);
            *totals.bytes.entry(a.ue).or_default() += u64::from(a.tbs_bytes);
            *totals.ttis.entry(a.ue).or_default() += 1;
            served.push((a.ue, a.tbs_bytes * 8));
        }
        sched.on_tti_end(tti, &served);
    }
    totals
}

/// Jain's fairness index (Σx)² / (n·Σx²), in (0, 1]; 1 for equal shares.
pub fn jain(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if s2 == 0.0 {
        1.0
    } else {
        s * s / (n * s2)
    }
}

/// Counts heap allocations of the current thread, for the tests that check a scheduler's
/// steady state does not allocate. It is the global allocator of this crate's unit-test
/// binary only; the count is per thread because tests run in parallel.
struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

// SAFETY: every call is passed on unchanged to the system allocator, which upholds
// `GlobalAlloc`'s contract; the wrapper only counts.
unsafe impl std::alloc::GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's guarantees for this call are the system allocator's.
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: the caller's guarantees for this call are the system allocator's.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's guarantees for this call are the system allocator's.
        unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Heap allocations (and reallocations) made by the current thread so far.
pub fn allocations() -> u64 {
    ALLOCATIONS.with(|c| c.get())
}
