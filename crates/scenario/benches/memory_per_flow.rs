//! Memory per TCP flow (not a test; prints figures).
//!
//! Runs a dumbbell with N bulk NewReno flows (N = 10 and 1010) for 2 simulated seconds and
//! reports the growth of the peak resident set size (VmHWM of /proc/self/status) per added flow.
//! Each N runs in its own child process so that the peaks do not mix.
//! Run: `cargo bench -p celltcp-scenario --bench memory_per_flow`.

use std::fmt::Write as _;
use std::process::Command;

use celltcp_scenario::{load_str, run, RunOptions};

fn scenario(flows: usize) -> String {
    let mut s = String::from(
        "[simulation]\nduration = \"2s\"\n[nodes]\nsrv = { kind = \"host\" }\nr1 = { kind = \"router\" }\n\
         r2 = { kind = \"router\" }\nue = { kind = \"host\" }\n\
         [links.a]\na = \"srv\"\nb = \"r1\"\nrate = \"10Gbps\"\ndelay = \"5ms\"\nqueue = { kind = \"droptail\", limit = \"100000p\" }\n\
         [links.b]\na = \"r1\"\nb = \"r2\"\nrate = \"1Gbps\"\ndelay = \"10ms\"\nqueue = { kind = \"droptail\", limit = \"5000p\" }\n\
         [links.c]\na = \"r2\"\nb = \"ue\"\nrate = \"10Gbps\"\ndelay = \"1ms\"\nqueue = { kind = \"droptail\", limit = \"100000p\" }\n",
    );
    for i in 0..flows {
        let _ = write!(
            s,
            "[flows.f{i}]\nkind = \"tcp\"\nsrc = \"srv\"\ndst = \"ue\"\ncc = \"newreno\"\napp = {{ kind = \"bulk\" }}\n\
             src_port = {}\ndst_port = {}\n",
            10000 + i,
            10000 + i
        );
    }
    s
}

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn child(flows: usize) {
    let sc = load_str(&scenario(flows), &[]).expect("scenario loads");
    let out = run(&sc, &RunOptions::default()).expect("runs");
    std::hint::black_box(out.events);
    println!("{}", peak_rss_kib());
}

fn measure(flows: usize) -> u64 {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args(["--child", &flows.to_string()])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        child(args[i + 1].parse().unwrap());
        return;
    }
    let (small, large) = (10, 1010);
    let a = measure(small);
    let b = measure(large);
    println!(
        "peak RSS: {small} flows {a} KiB, {large} flows {b} KiB -> {:.1} KiB per TCP flow (both endpoints, \
         2 s of 1 Gb/s shared, windows and buffers included)",
        (b - a) as f64 / (large - small) as f64
    );
}
