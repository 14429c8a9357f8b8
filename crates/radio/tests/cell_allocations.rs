//! Heap allocations in the steady state of a busy cell, counted by a wrapping global
//! allocator (this test binary only). The cell's per-TTI code and the MAC schedulers reuse
//! their buffers; what remains is occasional (STATUS PDUs, amortised queue growth).

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use celltcp_net::packet::NodeId;
use celltcp_radio::cell::{CellRadioConfig, LteCell, LteCellConfig, MonotoneTbs};
use celltcp_radio::mac::{build, Allocation, Layers, MacSchedulerConfig, UeState, Weight};
use celltcp_radio::phy::{Cqi, Mcs};
use common::*;

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is passed on unchanged to the system allocator, which upholds
// `GlobalAlloc`'s contract; the wrapper only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's guarantees for this call are the system allocator's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's guarantees for this call are the system allocator's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's guarantees for this call are the system allocator's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations per processed TTI over [1 s, 3 s) with `n_ues` full-buffer UEs.
fn allocations_per_tti(n_ues: u32, scheduler: &str) -> f64 {
    let cfg = LteCellConfig {
        keys: CellRadioConfig {
            scheduler: scheduler.to_string(),
            ..LteCellConfig::lte_default("c", ENB).keys
        },
        ..LteCellConfig::lte_default("c", ENB)
    };
    let ues = (1..=n_ues)
        .map(|n| ue_at(NodeId(n), 100.0 + 50.0 * f64::from(n), 0.0))
        .collect();
    let mut h = Harness::new(LteCell::new(cfg, ues, 1, 0).unwrap());
    let sources: Vec<Cbr> = (1..=n_ues)
        .map(|n| Cbr::new(NodeId(n), 60e6 / f64::from(n_ues), 1500, secs(3.0)))
        .collect();
    // Pre-build the sends so that the harness itself allocates little while counting.
    let mut events = Vec::new();
    for s in &sources {
        let mut t = s.start;
        while t < s.stop {
            events.push(Send {
                at: t,
                from: ENB,
                to: s.ue,
                size_bytes: s.size_bytes,
            });
            t += s.interval;
        }
    }
    events.sort_by_key(|e| e.at);
    h.delivered.reserve(events.len());
    h.sent_at.reserve(events.len());
    let split = events.partition_point(|e| e.at < secs(1.0));
    let later = events.split_off(split);
    h.send_all(events, secs(1.0));
    let (a0, t0) = (ALLOCATIONS.load(Ordering::Relaxed), h.cell.ttis_processed());
    h.send_all(later, secs(3.0));
    let (a1, t1) = (ALLOCATIONS.load(Ordering::Relaxed), h.cell.ttis_processed());
    (a1 - a0) as f64 / (t1 - t0) as f64
}

/// Allocations of one `schedule` call of `scheduler` for `n_ues` backlogged UEs, measured
/// outside the cell.
fn scheduler_allocations_per_call(n_ues: u32, scheduler: &str) -> f64 {
    let mut mac = build(scheduler, &MacSchedulerConfig::default()).unwrap();
    let tbs = MonotoneTbs::new(50).unwrap();
    let ues: Vec<UeState<'static>> = (0..n_ues)
        .map(|ue| UeState {
            ue,
            buffer_bytes: 1_000_000,
            wideband_cqi: Cqi::MAX,
            subband_cqi: None,
            mcs: Mcs::MAX,
            layers: Layers::ONE,
            weight: Weight::ONE,
            harq_retx: None,
        })
        .collect();
    let mut out: Vec<Allocation> = Vec::with_capacity(64);
    let mut served = Vec::with_capacity(64);
    let calls = 1000u64;
    let a0 = ALLOCATIONS.load(Ordering::Relaxed);
    for tti in 0..calls {
        mac.schedule(tti, 50, &ues, &tbs, &mut out);
        served.clear();
        served.extend(out.iter().map(|a| (a.ue, a.tbs_bytes * 8)));
        mac.on_tti_end(tti, &served);
    }
    (ALLOCATIONS.load(Ordering::Relaxed) - a0) as f64 / calls as f64
}

#[test]
fn steady_state_allocations_per_tti_come_from_the_scheduler() {
    for scheduler in ["round_robin", "proportional_fair"] {
        for n in [1u32, 10] {
            let cell = allocations_per_tti(n, scheduler);
            let mac = scheduler_allocations_per_call(n, scheduler);
            eprintln!(
                "{scheduler}, {n} UEs: {cell:.2} allocations per TTI, of which the scheduler \
                 call {mac:.2}; the rest {:.2}",
                cell - mac
            );
            // Whatever the load, the cell, its RLC and HARQ add less than one allocation per
            // TTI on average (occasional STATUS PDUs with NACK lists, amortised queue growth).
            assert!(cell - mac < 1.0, "{scheduler}, {n} UEs: {cell} vs {mac}");
        }
    }
}
