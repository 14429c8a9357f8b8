//! Timing fidelity of the real-time loop: 1500-byte datagrams pushed at 10, 25 and 50 Mbit/s
//! through a path of the same rate and 20 ms, from one descriptor pair to another. Prints the
//! distribution of the output timing error (the time a datagram is written after its
//! simulated departure) and of the lag. A benchmark: it prints, it never fails on a figure.
//!
//! Then the same through the LTE cell of python/celltcp/examples/lte-single-cell.toml widened to 20 MHz, its
//! flows removed: server to ue_near, downlink, at 10 and 20 Mbit/s.
//!
//! `cargo bench -p celltcp-emu --bench timing [-- SECONDS]` (default 5 s per rate).

#[path = "../tests/support/mod.rs"]
mod support;

use celltcp_emu::Priority;

/// python/celltcp/examples/lte-single-cell.toml at 20 MHz with its `[flows.*]` tables removed.
fn lte_cell() -> String {
    let text = include_str!("../../../python/celltcp/examples/lte-single-cell.toml");
    let mut out = String::new();
    let mut in_flow = false;
    for line in text.lines() {
        if line.starts_with('[') {
            in_flow = line.starts_with("[flows.");
        }
        if !in_flow {
            out.push_str(&line.replace("bandwidth_mhz = 10", "bandwidth_mhz = 20"));
            out.push('\n');
        }
    }
    out
}

fn main() {
    let secs: f64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(5.0);
    println!("celltcp-emu timing, {secs} s per rate, 1500-byte datagrams, path of the same rate and 20 ms");
    // Under the default scheduler, then under SCHED_FIFO when the process may use it.
    for priority in [Priority::Inherit, Priority::Fifo(10)] {
        match priority {
            Priority::Fifo(p) => match celltcp_emu::clock::RealtimePriority::enter(p) {
                Ok(_) => println!("-- SCHED_FIFO priority {p}"),
                Err(e) => {
                    println!("-- SCHED_FIFO priority {p}: not permitted here ({e}), skipped");
                    continue;
                }
            },
            _ => println!("-- default scheduling"),
        }
        let lte = support::Path {
            toml: lte_cell(),
            from: ("server", "10.0.0.3".parse().unwrap()),
            to: ("ue_near", "10.0.0.5".parse().unwrap()),
        };
        let runs = [
            (10, None),
            (25, None),
            (50, None),
            (10, Some(&lte)),
            (20, Some(&lte)),
        ];
        for (rate, through) in runs {
            let push = match through {
                None => support::paced_push(rate, secs, priority),
                Some(path) => support::paced_push_through(path, rate, secs, priority),
            };
            let label = if through.is_some() {
                "LTE 20 MHz"
            } else {
                "wired"
            };
            let mut d = push.delays_s.clone();
            d.sort_by(f64::total_cmp);
            let q = |p: f64| {
                d.get(((d.len() as f64 - 1.0) * p).round() as usize)
                    .copied()
                    .unwrap_or(f64::NAN)
                    * 1e3
            };
            println!(
                "{label:>10} {rate:>3} Mbit/s: {}",
                support::timing_line(&push.out)
            );
            println!(
                "            {}/{} datagrams out; wall-clock one-way delay (ms) min {:.3} p50 {:.3} \
                 p99 {:.3} max {:.3}",
                push.received,
                push.sent,
                q(0.0),
                q(0.5),
                q(0.99),
                q(1.0)
            );
        }
    }
}
