//! Timing fidelity: 10 Mbit/s of 1500-byte datagrams pushed for 2 s through a 10 Mbit/s, 20 ms
//! path leave it within 1 ms of their simulated departure (99th percentile). Its own test
//! binary, so that no other test competes for the cores while it measures.
//!
//! The loop runs under `SCHED_FIFO` when the process may use it (the default,
//! `Priority::Auto`): under the default scheduler the tail follows the machine's load (on a
//! busy 2-core machine p99 reaches several milliseconds; on a quiet one it stays near 0.12 ms).
//!
//! `SCHED_FIFO` does not protect the loop from the machine itself: on a virtual machine the
//! hypervisor can take the vCPU away for tens of milliseconds (seen once in CI: one stall of
//! 20 ms made 29 of 1,667 datagrams late, p99 4.4 ms, while p90 stayed at 79 µs). Such a
//! stall is the machine's, not the emulator's, and no scheduling policy inside the guest
//! removes it. So the claim is measured over up to three 2-second windows and holds if one
//! of them meets it: an emulator whose timing is wrong (a late loop, a slow path, a lost
//! wake-up) fails every window, while a single stall of the host spoils only the window it
//! falls in. Every window's figures are printed.

mod support;

use celltcp_emu::Priority;
use support::*;

const WINDOWS: usize = 3;

#[test]
fn ten_mbps_leave_the_path_within_a_millisecond() {
    let mut lines = Vec::new();
    for window in 1..=WINDOWS {
        let push = paced_push(10, 2.0, Priority::Auto);
        let line = timing_line(&push.out);
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
        let p99 = f(&push.out.emulation["timing_error_s"]["p99"]);
        if p99 < 1e-3 {
            return;
        }
        lines.push(line);
    }
    panic!(
        "p99 timing error above 1 ms in all {WINDOWS} windows:\n{}",
        lines.join("\n")
    );
}
