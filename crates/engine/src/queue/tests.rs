//! Tests of the event queue: unit cases per contract clause, then model-based property tests
//! against a reference binary heap keyed by (time, insertion counter).

use super::*;
use proptest::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::rc::Rc;

#[test]
fn fifo_among_equal_times() {
    let mut q = EventQueue::new();
    for i in 0..10 {
        q.push(SimTime(5), i).unwrap();
    }
    q.push(SimTime(3), 100).unwrap();
    assert_eq!(q.pop(), Some((SimTime(3), 100)));
    for i in 0..10 {
        assert_eq!(q.pop(), Some((SimTime(5), i)));
    }
    assert_eq!(q.pop(), None);
}

#[test]
fn fifo_holds_for_pushes_at_now_while_a_batch_drains() {
    // 1000 events at t=7 exceed any bucket scan; each pop pushes another at t=7, which must wait
    // behind every older event at t=7.
    let mut q = EventQueue::new();
    for i in 0..1000 {
        q.push(SimTime(7), i).unwrap();
    }
    for i in 0..1000 {
        assert_eq!(q.pop(), Some((SimTime(7), i)));
        q.push(SimTime(7), 1000 + i).unwrap();
    }
    for i in 1000..2000 {
        assert_eq!(q.pop(), Some((SimTime(7), i)));
    }
    assert!(q.is_empty());
}

#[test]
fn scheduling_in_the_past_is_an_error() {
    let mut q = EventQueue::new();
    q.push(SimTime(10), ()).unwrap();
    q.pop();
    assert_eq!(
        q.push(SimTime(9), ()),
        Err(ScheduleError::InPast {
            at: SimTime(9),
            now: SimTime(10)
        })
    );
    assert!(q.push(SimTime(10), ()).is_ok());
    assert_eq!(q.len(), 1);
}

#[test]
fn peek_does_not_move_the_floor_for_pushes() {
    // peek_time looks ahead to t=1000, yet t=500 is after the last pop (t=10) and must be accepted
    // and popped first; that is how a simulation resumes after stopping at a time limit.
    let mut q = EventQueue::new();
    q.push(SimTime(10), "a").unwrap();
    q.push(SimTime(1000), "c").unwrap();
    q.push(SimTime(1000), "d").unwrap();
    assert_eq!(q.pop(), Some((SimTime(10), "a")));
    assert_eq!(q.peek_time(), Some(SimTime(1000)));
    assert_eq!(q.now(), SimTime(10));
    q.push(SimTime(500), "b").unwrap();
    q.push(SimTime(1000), "e").unwrap();
    assert_eq!(q.peek_time(), Some(SimTime(500)));
    let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
    assert_eq!(
        order,
        vec![
            (SimTime(500), "b"),
            (SimTime(1000), "c"),
            (SimTime(1000), "d"),
            (SimTime(1000), "e")
        ]
    );
    assert_eq!(
        q.push(SimTime(999), "late"),
        Err(ScheduleError::InPast {
            at: SimTime(999),
            now: SimTime(1000)
        })
    );
}

#[test]
fn extreme_times_and_jumps() {
    let mut q = EventQueue::new();
    let times = [
        u64::MAX,
        0,
        u64::MAX - 1,
        1 << 63,
        u64::MAX,
        255,
        256,
        (1 << 56) - 1,
        1 << 56,
    ];
    for (i, &t) in times.iter().enumerate() {
        q.push(SimTime(t), i).unwrap();
    }
    let mut want: Vec<(u64, usize)> = times.iter().copied().zip(0..).collect();
    want.sort(); // by time, then index = insertion order
    for (t, i) in want {
        assert_eq!(q.pop(), Some((SimTime(t), i)));
    }
    assert_eq!(q.now(), SimTime::MAX);
    q.push(SimTime::MAX, 99).unwrap();
    assert_eq!(q.pop(), Some((SimTime::MAX, 99)));
    assert_eq!(q.pop(), None);
}

#[test]
fn events_are_dropped_exactly_once() {
    let token = Rc::new(());
    {
        let mut q = EventQueue::new();
        for i in 0..5000u64 {
            q.push(SimTime(i * 7919 % 100_003), Rc::clone(&token))
                .unwrap();
        }
        for _ in 0..2500 {
            q.pop();
        }
        assert_eq!(Rc::strong_count(&token), 2501);
    }
    assert_eq!(Rc::strong_count(&token), 1);
}

/// A step of a model-based test.
#[derive(Clone, Debug)]
enum Op {
    Push(When),
    Pop,
    Peek,
}

/// When a pushed event is due, relative to the last popped time `last`.
#[derive(Clone, Debug)]
enum When {
    /// Exactly `last`.
    Now,
    /// `last + d`.
    After(u64),
    /// `last + (x >> s)` saturating: jumps of any magnitude up to 2^64.
    Jump(u64, u32),
    /// `u64::MAX - d` (or `last` if later).
    NearMax(u64),
    /// `last - 1 - d`; must be refused when `last > d`.
    Before(u64),
}

fn when(max_after: u64) -> impl Strategy<Value = When> {
    prop_oneof![
        3 => Just(When::Now),
        4 => (0..max_after).prop_map(When::After),
        2 => (any::<u64>(), 0u32..64).prop_map(|(x, s)| When::Jump(x, s)),
        1 => (0u64..600).prop_map(When::NearMax),
        1 => (0u64..1000).prop_map(When::Before),
    ]
}

fn ops(max_after: u64, max_len: usize) -> impl Strategy<Value = Vec<Op>> {
    let op = prop_oneof![
        5 => when(max_after).prop_map(Op::Push),
        4 => Just(Op::Pop),
        1 => Just(Op::Peek),
    ];
    proptest::collection::vec(op, 1..max_len)
}

/// Runs `ops` on the queue and on a binary heap keyed by (time, insertion counter) and requires
/// identical results at every step, including the final drain.
fn check_against_reference(ops: &[Op]) -> Result<(), TestCaseError> {
    let mut q = EventQueue::new();
    let mut reference = BinaryHeap::new();
    let mut seq = 0u64;
    let mut last = 0u64;
    for op in ops {
        match op {
            Op::Push(when) => {
                let t = match *when {
                    When::Now => last,
                    When::After(d) => last.saturating_add(d),
                    When::Jump(x, s) => last.saturating_add(x >> s),
                    When::NearMax(d) => (u64::MAX - d).max(last),
                    When::Before(d) => {
                        if last > d {
                            let t = SimTime(last - 1 - d);
                            let refused = q.push(t, u64::MAX);
                            prop_assert_eq!(
                                refused,
                                Err(ScheduleError::InPast {
                                    at: t,
                                    now: SimTime(last)
                                })
                            );
                            continue;
                        }
                        last
                    }
                };
                prop_assert!(q.push(SimTime(t), seq).is_ok());
                reference.push(Reverse((t, seq)));
                seq += 1;
            }
            Op::Pop => {
                let got = q.pop();
                let want = reference.pop().map(|Reverse((t, s))| (SimTime(t), s));
                prop_assert_eq!(got, want);
                if let Some((t, _)) = got {
                    prop_assert!(t.0 >= last, "time went backwards");
                    last = t.0;
                }
            }
            Op::Peek => {
                let want = reference.peek().map(|Reverse((t, _))| SimTime(*t));
                prop_assert_eq!(q.peek_time(), want);
            }
        }
        prop_assert_eq!(q.len(), reference.len());
        prop_assert_eq!(q.is_empty(), reference.is_empty());
        prop_assert_eq!(q.now(), SimTime(last));
    }
    while let Some(Reverse((t, s))) = reference.pop() {
        prop_assert_eq!(q.pop(), Some((SimTime(t), s)));
    }
    prop_assert!(q.pop().is_none());
    Ok(())
}

proptest! {
    /// Times spread over every level: same-time, nearby, huge jumps, near u64::MAX, refused.
    #[test]
    fn matches_reference_heap(ops in ops(5_000_000, 800)) {
        check_against_reference(&ops)?;
    }
}

proptest! {
    // Long sequences are costly to generate; fewer cases still cover buckets of every size.
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Few distinct times, long runs: buckets far larger than the minimum scan, with FIFO ties.
    #[test]
    fn matches_reference_heap_with_many_equal_times(ops in ops(3, 3000)) {
        check_against_reference(&ops)?;
    }
}

#[test]
fn matches_reference_heap_in_a_long_hold_model() {
    // 2·10^5 steps of the hold model with 5000 pending, times drawn from the engine's own stream,
    // peeks and same-time pushes mixed in.
    let mut rng = crate::RngStream::new(3, 0, "test/queue/hold");
    let mut ops = Vec::new();
    for _ in 0..5000 {
        ops.push(Op::Push(When::After(rng.below(2_000_000))));
    }
    for _ in 0..200_000 {
        ops.push(Op::Pop);
        match rng.below(10) {
            0 => ops.push(Op::Peek),
            1 => ops.push(Op::Push(When::Now)),
            _ => {}
        }
        ops.push(Op::Push(When::After(rng.below(2_000_000))));
    }
    check_against_reference(&ops).unwrap();
}
