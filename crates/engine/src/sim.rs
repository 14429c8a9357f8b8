//! The simulation loop: pops events in order and hands them to one [`Model`].
//!
//! A model is sans-IO with respect to time: it never reads a clock, it receives `now` with each
//! event and asks the [`Scheduler`] for future events. The loop is the only owner of time.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::queue::{EventQueue, ScheduleError};
use crate::time::{SimDuration, SimTime};

/// What a simulated world implements.
pub trait Model {
    type Event;
    /// Handles one event at time `now` (== `sched.now()`).
    fn handle(&mut self, event: Self::Event, sched: &mut Scheduler<Self::Event>);
    /// A name used when reporting a panic inside the model.
    fn name(&self) -> &str {
        "model"
    }
}

/// The model's view of the event queue during `handle`.
pub struct Scheduler<E> {
    now: SimTime,
    queue: EventQueue<E>,
    /// Set by [`Scheduler::halt`]; the loop stops after the event being handled.
    halted: bool,
}

impl<E> Default for Scheduler<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> Scheduler<E> {
    pub fn new() -> Self {
        Scheduler {
            now: SimTime::ZERO,
            queue: EventQueue::new(),
            halted: false,
        }
    }

    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedules `event` at absolute time `at`; an instant before `now` is an error.
    #[inline]
    pub fn schedule_at(&mut self, at: SimTime, event: E) -> Result<(), ScheduleError> {
        if at < self.now {
            return Err(ScheduleError::InPast { at, now: self.now });
        }
        self.queue.push(at, event)
    }

    /// Schedules `event` after `delay` (never in the past, so it cannot fail).
    #[inline]
    pub fn schedule_in(&mut self, delay: SimDuration, event: E) {
        let at = self.now + delay;
        self.queue
            .push(at, event)
            .expect("now + delay is never in the past");
    }

    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    /// Ends the current [`Simulator::run`] once the event being handled is done: it returns
    /// [`StopReason::Halted`], with the pending events kept. For a model that cannot go on
    /// (a bound it keeps was reached); the model says why, the loop only stops.
    pub fn halt(&mut self) {
        self.halted = true;
    }

    /// Time of the earliest pending event, if any: how long a real-time driver may sleep.
    /// Takes `&mut` because the queue may move its next bucket forward to find it; events
    /// scheduled afterwards, even before that time, are still ordered correctly.
    pub fn next_event_time(&mut self) -> Option<SimTime> {
        self.queue.peek_time()
    }
}

/// When [`Simulator::run`] stops. Events at exactly `until` are processed.
#[derive(Clone, Copy, Debug, Default)]
pub struct StopCondition {
    pub until: Option<SimTime>,
    pub max_events: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The next event lies after `until`; simulated time is set to `until`.
    Duration,
    /// `max_events` events were processed.
    EventBudget,
    /// No event remains.
    Exhausted,
    /// The model asked to stop ([`Scheduler::halt`]) while handling the last event.
    Halted,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOutcome {
    pub reason: StopReason,
    pub events: u64,
    pub end_time: SimTime,
}

/// A panic inside a model, reported with the model's name and the time it happened.
#[derive(Debug, Clone, thiserror::Error)]
#[error("internal error in {model} at t={time} (event #{event}): {message}")]
pub struct ModelPanic {
    pub model: String,
    pub time: SimTime,
    pub event: u64,
    pub message: String,
}

pub struct Simulator<M: Model> {
    pub model: M,
    pub sched: Scheduler<M::Event>,
    events: u64,
}

impl<M: Model> Simulator<M> {
    pub fn new(model: M) -> Self {
        Simulator {
            model,
            sched: Scheduler::new(),
            events: 0,
        }
    }

    /// Events processed so far over all calls to `run`.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Runs until the stop condition; can be called again to continue.
    pub fn run(&mut self, stop: StopCondition) -> Result<RunOutcome, ModelPanic> {
        let budget_end = stop.max_events.map(|m| self.events.saturating_add(m));
        let result = catch_unwind(AssertUnwindSafe(|| loop {
            if budget_end.is_some_and(|end| self.events >= end) {
                return StopReason::EventBudget;
            }
            let Some(t) = self.sched.queue.peek_time() else {
                return StopReason::Exhausted;
            };
            if stop.until.is_some_and(|until| t > until) {
                self.sched.now = stop.until.unwrap();
                return StopReason::Duration;
            }
            let (t, ev) = self.sched.queue.pop().expect("peeked");
            debug_assert!(t >= self.sched.now, "event queue went backwards");
            self.sched.now = t;
            self.events += 1;
            self.model.handle(ev, &mut self.sched);
            if self.sched.halted {
                self.sched.halted = false;
                return StopReason::Halted;
            }
        }));
        match result {
            Ok(reason) => {
                if reason == StopReason::Exhausted {
                    if let Some(until) = stop.until {
                        self.sched.now = self.sched.now.max(until);
                    }
                }
                Ok(RunOutcome {
                    reason,
                    events: self.events,
                    end_time: self.sched.now,
                })
            }
            Err(payload) => {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "panic".into());
                Err(ModelPanic {
                    model: self.model.name().to_string(),
                    time: self.sched.now,
                    event: self.events,
                    message,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_event_time_then_an_earlier_event_keeps_the_order() {
        let mut s: Scheduler<u32> = Scheduler::new();
        assert_eq!(s.next_event_time(), None);
        s.schedule_at(SimTime(1_000_000), 1).unwrap();
        assert_eq!(s.next_event_time(), Some(SimTime(1_000_000)));
        // Scheduled after the peek, before the event peeked at: it still comes first.
        s.schedule_at(SimTime(5), 2).unwrap();
        assert_eq!(s.next_event_time(), Some(SimTime(5)));
        assert_eq!(s.queue.pop(), Some((SimTime(5), 2)));
        assert_eq!(s.queue.pop(), Some((SimTime(1_000_000), 1)));
    }

    /// Re-arms itself every 10 ns and records when it ran.
    struct Ticker(Vec<SimTime>);
    impl Model for Ticker {
        type Event = ();
        fn handle(&mut self, _: (), s: &mut Scheduler<()>) {
            self.0.push(s.now());
            s.schedule_in(SimDuration(10), ());
        }
    }

    #[test]
    fn stops_at_duration_inclusive() {
        let mut sim = Simulator::new(Ticker(vec![]));
        sim.sched.schedule_at(SimTime(0), ()).unwrap();
        let out = sim
            .run(StopCondition {
                until: Some(SimTime(50)),
                max_events: None,
            })
            .unwrap();
        assert_eq!(out.reason, StopReason::Duration);
        assert_eq!(sim.model.0.len(), 6); // 0,10,...,50
        assert_eq!(out.end_time, SimTime(50));
    }

    /// A ticker that halts the run at its fourth event.
    struct HaltsAtFour(Vec<SimTime>);
    impl Model for HaltsAtFour {
        type Event = ();
        fn handle(&mut self, _: (), s: &mut Scheduler<()>) {
            self.0.push(s.now());
            s.schedule_in(SimDuration(10), ());
            if self.0.len() == 4 {
                s.halt();
            }
        }
    }

    #[test]
    fn a_halt_stops_after_the_event_and_keeps_what_is_pending() {
        let mut sim = Simulator::new(HaltsAtFour(vec![]));
        sim.sched.schedule_at(SimTime(0), ()).unwrap();
        let until = StopCondition {
            until: Some(SimTime(100)),
            max_events: None,
        };
        let out = sim.run(until).unwrap();
        assert_eq!(out.reason, StopReason::Halted);
        assert_eq!((out.events, out.end_time), (4, SimTime(30)));
        assert_eq!(sim.sched.pending(), 1);
        // The halt is spent: a further run goes on to its end.
        let out = sim.run(until).unwrap();
        assert_eq!(out.reason, StopReason::Duration);
        assert_eq!(sim.model.0.len(), 11);
    }

    #[test]
    fn stops_at_event_budget_and_resumes() {
        let mut sim = Simulator::new(Ticker(vec![]));
        sim.sched.schedule_at(SimTime(0), ()).unwrap();
        let out = sim
            .run(StopCondition {
                until: None,
                max_events: Some(3),
            })
            .unwrap();
        assert_eq!((out.reason, out.events), (StopReason::EventBudget, 3));
        let out = sim
            .run(StopCondition {
                until: None,
                max_events: Some(2),
            })
            .unwrap();
        assert_eq!(out.events, 5);
        assert_eq!(sim.model.0.last(), Some(&SimTime(40)));
    }

    #[test]
    fn resumes_after_a_duration_stop_with_events_before_the_next_pending_one() {
        // The stop at t=55 looked ahead to the event at t=60; scheduling at t=57 afterwards is
        // legal (57 >= now) and must run before it.
        let mut sim = Simulator::new(Ticker(vec![]));
        sim.sched.schedule_at(SimTime(0), ()).unwrap();
        let out = sim
            .run(StopCondition {
                until: Some(SimTime(55)),
                max_events: None,
            })
            .unwrap();
        assert_eq!(out.end_time, SimTime(55));
        sim.sched.schedule_in(SimDuration(2), ());
        sim.run(StopCondition {
            until: Some(SimTime(60)),
            max_events: None,
        })
        .unwrap();
        assert_eq!(sim.model.0[5..], [SimTime(50), SimTime(57), SimTime(60)]);
    }

    struct Bomb;
    impl Model for Bomb {
        type Event = ();
        fn handle(&mut self, _: (), _: &mut Scheduler<()>) {
            panic!("boom");
        }
        fn name(&self) -> &str {
            "bomb"
        }
    }

    #[test]
    fn panic_is_reported_with_model_name() {
        let mut sim = Simulator::new(Bomb);
        sim.sched.schedule_at(SimTime(7), ()).unwrap();
        let err = sim.run(StopCondition::default()).unwrap_err();
        assert_eq!(
            (err.model.as_str(), err.time, err.message.as_str()),
            ("bomb", SimTime(7), "boom")
        );
    }

    #[test]
    fn past_scheduling_is_an_error_value() {
        let mut s: Scheduler<()> = Scheduler::new();
        s.now = SimTime(5);
        assert!(s.schedule_at(SimTime(4), ()).is_err());
    }
}
