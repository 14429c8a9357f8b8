//! What looking for Ctrl-C costs: `run` against `run_interruptible` (the loop the Python
//! binding uses, which handles events in chunks of 4096 and polls every 50 ms of wall time),
//! interleaved in one binary, in thread CPU time (robust on a shared machine), median of N.
//!
//!     cargo bench -p celltcp-scenario --bench poll_overhead [-- N [SCENARIO...]]
//!
//! Prints figures and ratios; never fails on a timing.

use celltcp_scenario::run::{run_interruptible, Poll};
use celltcp_scenario::{load_path, run, RunOptions};
use std::path::PathBuf;

extern "C" {
    fn clock_gettime(clock: i32, ts: *mut [i64; 2]) -> i32;
}

/// CPU time of the calling thread, ns (`CLOCK_THREAD_CPUTIME_ID`, Linux).
fn thread_cpu_ns() -> u128 {
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = [0i64; 2];
    // SAFETY: `ts` is a valid timespec (two 64-bit fields on 64-bit Linux).
    unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts[0] as u128 * 1_000_000_000 + ts[1] as u128
}

fn median_ms(mut v: Vec<u128>) -> f64 {
    v.sort_unstable();
    v[v.len() / 2] as f64 / 1e6
}

fn main() {
    // `cargo bench` passes `--bench`; everything else is N and scenario files.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let reps: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(21);
    let examples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../python/celltcp/examples");
    let files: Vec<PathBuf> = if args.len() > 1 {
        args[1..].iter().map(PathBuf::from).collect()
    } else {
        [
            "wired-chain.toml",
            "wired-chain-tcp.toml",
            "lte-bench-3cells.toml",
        ]
        .iter()
        .map(|f| examples.join(f))
        .collect()
    };
    for file in files {
        let sc = load_path(&file, &[]).expect("scenario");
        let (mut plain, mut polled) = (Vec::new(), Vec::new());
        for i in 0..reps {
            // Alternate which goes first, so neither always runs on a warm heap.
            for first in [i % 2 == 0, i % 2 != 0] {
                let t = thread_cpu_ns();
                if first {
                    run(&sc, &RunOptions::default()).expect("run");
                    plain.push(thread_cpu_ns() - t);
                } else {
                    run_interruptible(&sc, &RunOptions::default(), |_| Poll::Continue)
                        .expect("run");
                    polled.push(thread_cpu_ns() - t);
                }
            }
        }
        let (a, b) = (median_ms(plain), median_ms(polled));
        println!(
            "{}: run {a:.1} ms, run_interruptible {b:.1} ms (thread CPU, median of {reps}); ratio {:.3}",
            file.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            b / a
        );
    }
}
