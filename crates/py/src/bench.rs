//! Event-queue throughput under the classic hold model, for `celltcp bench`.
//!
//! With `pending` events in the queue, each operation pops the earliest event and pushes one at
//! `now + X`, X uniform on [0, 2 ms): the queue size stays constant, which isolates the cost of
//! one pop plus one push at that size. Benchmarks report figures; they never assert on timings.

use std::time::Instant;

use celltcp_engine::{EventQueue, RngStream, SimTime};

/// Upper bound (exclusive) of the hold increment, in nanoseconds: a 1 ms mean.
const HOLD_SPAN_NS: u64 = 2_000_000;

/// Runs `ops` hold operations on a queue holding `pending` events and returns operations (one pop
/// and one push each) per wall-clock second. Filling the queue is not timed.
pub fn hold_model(pending: u64, ops: u64, seed: u64) -> Result<f64, String> {
    if pending == 0 || ops == 0 {
        return Err("pending and ops must both be at least 1".to_string());
    }
    let mut rng = RngStream::new(seed, 0, "bench/event_queue/hold");
    let mut queue: EventQueue<u64> = EventQueue::new();
    for i in 0..pending {
        queue
            .push(SimTime(rng.below(HOLD_SPAN_NS)), i)
            .map_err(|e| e.to_string())?;
    }
    let start = Instant::now();
    let mut checksum = 0u64;
    for _ in 0..ops {
        let (now, id) = queue.pop().ok_or("queue ran empty during the hold model")?;
        checksum = checksum.wrapping_add(id);
        queue
            .push(SimTime(now.0 + rng.below(HOLD_SPAN_NS)), id)
            .map_err(|e| e.to_string())?;
    }
    let secs = start.elapsed().as_secs_f64();
    // Keeps the loop's work observable so the optimiser cannot drop it.
    std::hint::black_box(checksum);
    Ok(ops as f64 / secs.max(f64::MIN_POSITIVE))
}
