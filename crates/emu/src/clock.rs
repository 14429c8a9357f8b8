//! Wall-clock pacing: simulated nanoseconds mapped onto `CLOCK_MONOTONIC`, waiting for the next
//! step with ppoll(2), and the lag monitor.
//!
//! Simulated time `t` is due at the monotonic instant `origin + t`. The loop handles every
//! event due by now, then waits on the TUN devices and the stop descriptor until the engine's
//! next event falls due (`Scheduler::next_event_time`), or until a descriptor is ready when no
//! event is pending. The thread's timer slack is lowered for the run (prctl(2)
//! `PR_SET_TIMERSLACK`) so that a wait is not stretched by the default 50 µs slack.

use std::io;
use std::os::fd::RawFd;

use celltcp_engine::{SimDuration, SimTime};

/// Timer slack during the run, nanoseconds.
const TIMER_SLACK_NS: libc::c_ulong = 1_000;

/// How long the engine may stay further behind than the limit before the run stops, ns.
pub const LAG_GRACE_NS: u64 = 1_000_000_000;

fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clocks used exist on every Linux.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    debug_assert_eq!(rc, 0, "clock_gettime");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// `CLOCK_MONOTONIC` now, nanoseconds.
pub fn monotonic_ns() -> u64 {
    clock_ns(libc::CLOCK_MONOTONIC)
}

/// The mapping between simulated time and the wall clock.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    /// Monotonic instant of simulated time 0, ns.
    origin_ns: u64,
    /// `CLOCK_REALTIME` minus `CLOCK_MONOTONIC` when the clock started, ns (for capture
    /// timestamps in Unix time).
    realtime_offset_ns: i128,
}

impl Clock {
    /// A clock on which simulated time `now` is due at this instant.
    pub fn start(now: SimTime) -> Clock {
        let mono = monotonic_ns();
        let real = clock_ns(libc::CLOCK_REALTIME);
        Clock {
            origin_ns: mono.saturating_sub(now.as_ns()),
            realtime_offset_ns: i128::from(real) - i128::from(mono),
        }
    }

    /// The simulated time due at monotonic instant `mono_ns`.
    pub fn sim_at(&self, mono_ns: u64) -> SimTime {
        SimTime(mono_ns.saturating_sub(self.origin_ns))
    }

    /// The simulated time due now.
    pub fn sim_now(&self) -> SimTime {
        self.sim_at(monotonic_ns())
    }

    /// The monotonic instant at which simulated time `t` is due, ns.
    pub fn due_ns(&self, t: SimTime) -> u64 {
        self.origin_ns + t.as_ns()
    }

    /// Unix time of monotonic instant `mono_ns`, ns.
    pub fn unix_ns(&self, mono_ns: u64) -> u64 {
        (i128::from(mono_ns) + self.realtime_offset_ns).max(0) as u64
    }
}

/// Waits until one of `fds` is ready or `timeout` has passed (`None`: no limit). EINTR counts
/// as a wake-up (the caller checks its descriptors again).
pub fn wait(fds: &mut [libc::pollfd], timeout: Option<SimDuration>) -> io::Result<()> {
    let ts = timeout.map(|d| libc::timespec {
        tv_sec: (d.as_ns() / 1_000_000_000) as libc::time_t,
        tv_nsec: (d.as_ns() % 1_000_000_000) as libc::c_long,
    });
    let ts_ptr = ts
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `fds` is a valid slice of pollfd; `ts_ptr` is null or points at `ts`, alive for
    // the call; a null signal mask leaves the mask unchanged.
    let rc = unsafe {
        libc::ppoll(
            fds.as_mut_ptr(),
            fds.len() as libc::nfds_t,
            ts_ptr,
            std::ptr::null(),
        )
    };
    if rc < 0 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    Ok(())
}

/// A `pollfd` for `fd` with the events asked for.
pub fn poll_entry(fd: RawFd, events: libc::c_short) -> libc::pollfd {
    libc::pollfd {
        fd,
        events,
        revents: 0,
    }
}

/// Lowers the calling thread's timer slack for as long as it lives and restores it after.
pub struct TimerSlack {
    previous: Option<libc::c_ulong>,
}

impl TimerSlack {
    pub fn lower() -> TimerSlack {
        // SAFETY: PR_GET_TIMERSLACK takes no pointer and returns the slack or -1.
        let previous = unsafe { libc::prctl(libc::PR_GET_TIMERSLACK) };
        if previous <= 0 {
            return TimerSlack { previous: None };
        }
        // SAFETY: PR_SET_TIMERSLACK takes the slack in nanoseconds by value.
        let rc = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, TIMER_SLACK_NS) };
        TimerSlack {
            previous: (rc == 0).then_some(previous as libc::c_ulong),
        }
    }
}

impl Drop for TimerSlack {
    fn drop(&mut self) {
        if let Some(previous) = self.previous {
            // SAFETY: as in `lower`.
            unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, previous) };
        }
    }
}

/// Runs the calling thread under `SCHED_FIFO` (sched(7)) for as long as it lives, so that
/// other processes do not delay the loop's wake-ups; restores the thread's policy after. The
/// loop sleeps between steps, and a run that cannot keep up stops after `max_lag` plus a
/// second, so the thread does not hold a core for longer; the kernel's real-time throttling
/// (`sched_rt_runtime_us`) bounds it in any case.
pub struct RealtimePriority {
    priority: u8,
    policy: libc::c_int,
    param: libc::sched_param,
}

impl RealtimePriority {
    /// Switches to `SCHED_FIFO` at `priority` (1–99).
    ///
    /// # Errors
    /// The priority is out of range, or the process may not use real-time scheduling
    /// (`EPERM` without `CAP_SYS_NICE` or an `RLIMIT_RTPRIO` allowance).
    pub fn enter(priority: u8) -> io::Result<RealtimePriority> {
        // SAFETY: pid 0 is the calling thread; `param` is a valid, writable sched_param.
        let (policy, param) = unsafe {
            let policy = libc::sched_getscheduler(0);
            let mut param: libc::sched_param = std::mem::zeroed();
            if policy < 0 || libc::sched_getparam(0, &mut param) < 0 {
                return Err(io::Error::last_os_error());
            }
            (policy, param)
        };
        let fifo = libc::sched_param {
            sched_priority: libc::c_int::from(priority),
        };
        // SAFETY: as above; `fifo` is a valid sched_param.
        if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &fifo) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(RealtimePriority {
            priority,
            policy,
            param,
        })
    }

    /// The `SCHED_FIFO` priority in force.
    pub fn priority(&self) -> u8 {
        self.priority
    }
}

impl Drop for RealtimePriority {
    fn drop(&mut self) {
        // SAFETY: restores what `enter` read for the calling thread.
        unsafe { libc::sched_setscheduler(0, self.policy, &self.param) };
    }
}

/// How far the engine trails the wall clock: for each event, the wall-clock time at which it is
/// handled minus the time it was due.
#[derive(Clone, Debug)]
pub struct LagMonitor {
    /// The limit, ns.
    max_lag_ns: u64,
    /// Monotonic instant since which every sample has exceeded the limit, ns.
    over_since: Option<u64>,
    samples: u64,
    sum_ns: u128,
    max_ns: u64,
}

/// The engine stayed further behind than the limit for longer than [`LAG_GRACE_NS`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LagExceeded {
    /// The lag when the run stopped, ns.
    pub lag_ns: u64,
    /// How long it had been over the limit, ns.
    pub over_for_ns: u64,
}

impl LagMonitor {
    pub fn new(max_lag_ns: u64) -> Self {
        LagMonitor {
            max_lag_ns,
            over_since: None,
            samples: 0,
            sum_ns: 0,
            max_ns: 0,
        }
    }

    /// Records the lag `lag_ns` measured at monotonic instant `now_ns`.
    ///
    /// # Errors
    /// Every sample since more than [`LAG_GRACE_NS`] ago exceeded the limit.
    pub fn record(&mut self, lag_ns: u64, now_ns: u64) -> Result<(), LagExceeded> {
        self.samples += 1;
        self.sum_ns += u128::from(lag_ns);
        self.max_ns = self.max_ns.max(lag_ns);
        if lag_ns <= self.max_lag_ns {
            self.over_since = None;
            return Ok(());
        }
        let since = *self.over_since.get_or_insert(now_ns);
        let over_for_ns = now_ns.saturating_sub(since);
        if over_for_ns > LAG_GRACE_NS {
            return Err(LagExceeded {
                lag_ns,
                over_for_ns,
            });
        }
        Ok(())
    }

    /// Mean lag over the samples, seconds (0 without samples).
    pub fn mean_s(&self) -> f64 {
        if self.samples == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.samples as f64 / 1e9
        }
    }

    /// Largest lag sampled, seconds.
    pub fn max_s(&self) -> f64 {
        self.max_ns as f64 / 1e9
    }

    pub fn samples(&self) -> u64 {
        self.samples
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simulated_time_follows_the_monotonic_clock() {
        let c = Clock::start(SimTime::from_ns(5_000_000));
        let due = c.due_ns(SimTime::from_ns(5_000_000));
        assert_eq!(c.sim_at(due), SimTime::from_ns(5_000_000));
        assert_eq!(c.sim_at(due + 1_000), SimTime::from_ns(5_001_000));
        let now = c.sim_now();
        assert!(now >= SimTime::from_ns(5_000_000));
        assert!(now < SimTime::from_ns(5_000_000 + 1_000_000_000));
        assert!(c.unix_ns(monotonic_ns()) > 1_600_000_000 * 1_000_000_000);
    }

    #[test]
    fn lag_stops_the_run_only_after_a_second_over_the_limit() {
        let mut m = LagMonitor::new(1_000_000);
        let s = 1_000_000_000;
        assert!(m.record(5_000_000, 10 * s).is_ok());
        assert!(m.record(5_000_000, 10 * s + s / 2).is_ok());
        // Back under the limit: the grace period starts again.
        assert!(m.record(100, 10 * s + s / 2 + 1).is_ok());
        assert!(m.record(5_000_000, 11 * s).is_ok());
        assert!(
            m.record(6_000_000, 12 * s).is_ok(),
            "exactly one second is allowed"
        );
        let e = m.record(7_000_000, 12 * s + 1).unwrap_err();
        assert_eq!(
            e,
            LagExceeded {
                lag_ns: 7_000_000,
                over_for_ns: s + 1
            }
        );
        assert_eq!(m.max_s(), 0.007);
        assert_eq!(m.samples(), 6);
    }

    #[test]
    fn a_wait_ends_at_its_timeout() {
        let t0 = monotonic_ns();
        wait(&mut [], Some(SimDuration::from_ns(2_000_000))).unwrap();
        let waited = monotonic_ns() - t0;
        assert!(waited >= 2_000_000, "{waited}");
    }
}
