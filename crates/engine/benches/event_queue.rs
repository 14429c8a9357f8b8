//! Hold-model benchmark of the event queue (not a test; prints figures).
//!
//! With N events pending, each step pops the earliest and pushes one at `now + X`, X drawn
//! uniformly from [0, 2·mean); the classic hold model of priority-queue literature.
//! Run: `cargo bench -p celltcp-engine --bench event_queue`.

use std::time::Instant;

use celltcp_engine::{EventQueue, RngStream, SimTime};

fn hold(pending: usize, ops: u64) -> f64 {
    let mut rng = RngStream::new(1, 0, "bench/hold");
    let mut q: EventQueue<u64> = EventQueue::new();
    let mean = 1_000_000u64; // 1 ms mean increment
    for i in 0..pending {
        q.push(SimTime(rng.below(2 * mean)), i as u64).unwrap();
    }
    let start = Instant::now();
    let mut checksum = 0u64;
    for _ in 0..ops {
        let (t, v) = q.pop().unwrap();
        checksum = checksum.wrapping_add(v);
        q.push(SimTime(t.0 + rng.below(2 * mean)), v).unwrap();
    }
    let secs = start.elapsed().as_secs_f64();
    std::hint::black_box(checksum);
    ops as f64 / secs
}

fn main() {
    let runs = 5;
    println!("event-queue hold model, median of {runs} runs");
    for &n in &[1_000usize, 100_000, 1_000_000] {
        let ops = 10_000_000u64;
        let mut rates: Vec<f64> = (0..runs).map(|_| hold(n, ops)).collect();
        rates.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!("pending={n:>9}  {:.2} M events/s", rates[runs / 2] / 1e6);
    }
}
