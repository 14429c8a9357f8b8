//! Timing fidelity: 10 Mbit/s of 1500-byte datagrams pushed for 2 s through a 10 Mbit/s, 20 ms
//! path leave it within 1 ms of their simulated departure (99th percentile). Its own test
//! binary, so that no other test competes for the cores while it measures.
//!
//! The loop runs under `SCHED_FIFO` when the process may use it (the default,
//! `Priority::Auto`): under the default scheduler the tail follows the machine's load (on a
//! busy 2-core machine p99 reaches several milliseconds; on a quiet one it stays near 0.12 ms).
//!
//! `SCHED_FIFO` does not protect the loop from the machine itself: on a virtual machine the
//! hypervisor can take the vCPU away (seen in CI: one stall of 20 ms made 29 of 1,667 datagrams
//! late; on another run a busy host made 5 % of them late in every window while p50 stayed at
//! 60 µs). No scheduling policy inside the guest removes that, so each window also measures
//! what the platform did to timers meanwhile: a thread at the loop's priority and timer slack
//! wakes at the datagram interval beside the emulation (cyclictest(8)'s measure), and the
//! window holds if the emulator's p99 is within 1 ms of that thread's p99 wake-up lateness, and
//! its median within [`MEDIAN_ALLOWANCE_S`] of the thread's median. On
//! an idle machine the platform's p99 is tens of microseconds, so this is the 1 ms claim
//! itself; on a busy host the emulator may be late by what the host made every timer late,
//! and by no more. The claim is measured over up to three 2-second windows and holds if one of
//! them meets it: an emulator whose timing is wrong (a late loop, a slow path, a lost wake-up)
//! fails every window, while a stall of the host that one thread sees and the other does not
//! spoils only the window it falls in. Every window's figures are printed.

mod support;

use celltcp_emu::Priority;
use std::time::Duration;

use support::*;

const WINDOWS: usize = 3;

/// How much later than the platform's median wake-up the emulator's median datagram may leave:
/// the loop's own work per datagram in a debug build (on the 2-core reference machine, idle and
/// with the host stealing time: p50 46–154 µs against the platform's 25–75 µs, at most 79 µs
/// above it). A host's noise moves tails far more than medians, so a loop that sleeps too long
/// shows here even where its tail is excused: one oversleeping by 1.5 ms (a build for this
/// check only) left its median datagram 243–737 µs after the platform's.
const MEDIAN_ALLOWANCE_S: f64 = 150e-6;

#[test]
fn ten_mbps_leave_the_path_within_a_millisecond() {
    let mut lines = Vec::new();
    for window in 1..=WINDOWS {
        let interval = Duration::from_micros(1_200);
        let platform = platform_wake_ups(Duration::from_millis(2_200), interval);
        let push = paced_push(10, 2.0, Priority::Auto);
        let mut late = platform.join().expect("the wake-up thread ran");
        let platform_p50 = quantile(&mut late, 0.5);
        let platform_p99 = quantile(&mut late, 0.99);
        let line = format!(
            "{}; the platform's own wake-up lateness (µs): p50 {}, p99 {}, max {} over {}",
            timing_line(&push.out),
            platform_p50 / 1_000,
            platform_p99 / 1_000,
            late[late.len() - 1] / 1_000,
            late.len()
        );
        eprintln!("10 Mbit/s, debug build, window {window}: {line}");
        let mut d = push.delays_s.clone();
        d.sort_by(f64::total_cmp);
        eprintln!(
            "wall-clock one-way delay (ms): min {:.3}, p50 {:.3}, max {:.3}",
            d[0] * 1e3,
            d[d.len() / 2] * 1e3,
            d[d.len() - 1] * 1e3
        );
        // What must hold in every window, stall or not.
        assert_eq!(push.received, push.sent, "every datagram came out");
        assert_eq!(push.out.emulation["packets_out"], push.sent as u64);
        // 20 ms of propagation and 1.2 ms of serialisation at least.
        assert!(d[0] >= 0.0212 - 1e-4, "{}", d[0]);
        let error = &push.out.emulation["timing_error_s"];
        let typical = f(&error["p50"]) <= MEDIAN_ALLOWANCE_S + platform_p50 as f64 * 1e-9;
        let tail = f(&error["p99"]) < 1e-3 + platform_p99 as f64 * 1e-9;
        if typical && tail {
            return;
        }
        lines.push(line);
    }
    panic!(
        "timing error above the platform's own wake-up lateness by 1 ms or more at p99, or by \
         more than {:.0} µs at p50, in all {WINDOWS} windows:\n{}",
        MEDIAN_ALLOWANCE_S * 1e6,
        lines.join("\n")
    );
}
