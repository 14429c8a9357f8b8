//! Hold-model benchmark of the event queue (not a test; prints figures).
//!
//! With N events pending, each step pops the earliest and pushes it again at `now + X`, X drawn
//! uniformly from [0, 2·mean) ns with mean = 1 ms; the classic hold model of priority-queue
//! literature. The timed loop includes the random draw, the pop and the push. Each figure is the
//! median of 5 runs of 10^7 steps, in millions of steps (events) per second.
//!
//! Two payloads: `u64` (8 bytes) and `[u64; 3]` (24 bytes, the size of the simulator's events).
//! The reference is `std::collections::BinaryHeap<Reverse<(time, insertion counter, event)>>`,
//! which gives the same order contract (time, then FIFO); the ratio is EventQueue / BinaryHeap.
//! Run: `cargo bench -p celltcp-engine --bench event_queue`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

use celltcp_engine::{EventQueue, RngStream, SimTime};

const RUNS: usize = 5;
const STEPS: u64 = 10_000_000;
/// Mean increment of the hold model, ns.
const MEAN_NS: u64 = 1_000_000;

/// The operations the hold model needs from a queue.
trait HoldQueue<E> {
    fn new() -> Self;
    fn push(&mut self, at: SimTime, event: E);
    fn pop(&mut self) -> Option<(SimTime, E)>;
}

impl<E> HoldQueue<E> for EventQueue<E> {
    fn new() -> Self {
        EventQueue::new()
    }
    #[inline]
    fn push(&mut self, at: SimTime, event: E) {
        EventQueue::push(self, at, event).expect("the hold model never pushes into the past");
    }
    #[inline]
    fn pop(&mut self) -> Option<(SimTime, E)> {
        EventQueue::pop(self)
    }
}

/// The reference: a binary heap with an insertion counter for FIFO ties.
struct ReferenceHeap<E> {
    heap: BinaryHeap<Reverse<(u64, u64, E)>>,
    seq: u64,
}

impl<E: Ord> HoldQueue<E> for ReferenceHeap<E> {
    fn new() -> Self {
        ReferenceHeap {
            heap: BinaryHeap::new(),
            seq: 0,
        }
    }
    #[inline]
    fn push(&mut self, at: SimTime, event: E) {
        self.heap.push(Reverse((at.0, self.seq, event)));
        self.seq += 1;
    }
    #[inline]
    fn pop(&mut self) -> Option<(SimTime, E)> {
        self.heap
            .pop()
            .map(|Reverse((t, _, event))| (SimTime(t), event))
    }
}

/// An event payload that the loop can build and fold into a checksum.
trait Payload: Copy {
    const NAME: &'static str;
    fn make(i: u64) -> Self;
    fn fold(&self) -> u64;
}

impl Payload for u64 {
    const NAME: &'static str = "u64 (8 B)";
    fn make(i: u64) -> Self {
        i
    }
    #[inline]
    fn fold(&self) -> u64 {
        *self
    }
}

impl Payload for [u64; 3] {
    const NAME: &'static str = "[u64; 3] (24 B)";
    fn make(i: u64) -> Self {
        [i, !i, i.rotate_left(17)]
    }
    #[inline]
    fn fold(&self) -> u64 {
        self[0] ^ self[1] ^ self[2]
    }
}

/// Steps per second of one hold-model run with `pending` events.
fn hold<P: Payload, Q: HoldQueue<P>>(pending: usize) -> f64 {
    let mut rng = RngStream::new(1, 0, "bench/hold");
    let mut q = Q::new();
    for i in 0..pending {
        q.push(SimTime(rng.below(2 * MEAN_NS)), P::make(i as u64));
    }
    let start = Instant::now();
    let mut checksum = 0u64;
    for _ in 0..STEPS {
        let (t, v) = q.pop().expect("the hold model keeps `pending` events");
        checksum = checksum.wrapping_add(v.fold());
        q.push(SimTime(t.0 + rng.below(2 * MEAN_NS)), v);
    }
    let secs = start.elapsed().as_secs_f64();
    std::hint::black_box(checksum);
    STEPS as f64 / secs
}

fn median(mut rates: Vec<f64>) -> f64 {
    rates.sort_by(f64::total_cmp);
    rates[rates.len() / 2]
}

/// The median rate, M events/s, of queue `Q` with payload `P` for each size.
fn figures<P: Payload, Q: HoldQueue<P>>(sizes: &[usize]) -> Vec<f64> {
    sizes
        .iter()
        .map(|&n| median((0..RUNS).map(|_| hold::<P, Q>(n)).collect()) / 1e6)
        .collect()
}

fn main() {
    let sizes = [1_000usize, 100_000, 1_000_000];
    println!(
        "event-queue hold model: M events/s, median of {RUNS} runs of {STEPS} steps, \
         increments U[0, {} ms)",
        2 * MEAN_NS / 1_000_000
    );
    let ours = [
        figures::<u64, EventQueue<u64>>(&sizes),
        figures::<[u64; 3], EventQueue<[u64; 3]>>(&sizes),
    ];
    println!("\nEventQueue");
    println!("{:<16} {:>9}  {:>8}", "payload", "pending", "M/s");
    for (name, rates) in [<u64 as Payload>::NAME, <[u64; 3] as Payload>::NAME]
        .iter()
        .zip(&ours)
    {
        for (n, r) in sizes.iter().zip(rates) {
            println!("{name:<16} {n:>9}  {r:>8.2}");
        }
    }
    let reference = [
        figures::<u64, ReferenceHeap<u64>>(&sizes),
        figures::<[u64; 3], ReferenceHeap<[u64; 3]>>(&sizes),
    ];
    println!("\nReference: BinaryHeap<Reverse<(time, insertion counter, event)>>");
    println!(
        "{:<16} {:>9}  {:>8}  {:>14}",
        "payload", "pending", "M/s", "EventQueue / it"
    );
    for ((name, rates), ours) in [<u64 as Payload>::NAME, <[u64; 3] as Payload>::NAME]
        .iter()
        .zip(&reference)
        .zip(&ours)
    {
        for ((n, r), o) in sizes.iter().zip(rates).zip(ours) {
            println!("{name:<16} {n:>9}  {r:>8.2}  {:>14.2}", o / r);
        }
    }
}
