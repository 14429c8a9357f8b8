//! Goodput under random loss against the PFTK model (Padhye, Firoiu, Towsley & Kurose,
//! "Modeling TCP Throughput", SIGCOMM 1998), full model eq. (31) without a receiver-window
//! limit: `celltcp_tcp::models::pftk_throughput_bps`, with which
//! `python/celltcp/models/throughput.py` computes too.
//!
//! Set-up, chosen so that the model's assumptions hold:
//! * one 100 Mb/s, 20 ms link `src -> dst` with Bernoulli loss `p` on the data direction only
//!   (ACKs are never lost) and a 10 000-packet drop-tail buffer: the windows PFTK predicts
//!   (E[W] ≈ 12 segments at p = 1e-2, 36 at 1e-3, 115 at 1e-4) stay far below the 345-packet
//!   BDP, so every loss is a random one; each run asserts `drops.queue_full == 0`;
//! * Reno and NewReno without SACK and without limited transmit: PFTK models the Reno of its
//!   time, whose loss indications are triple duplicate ACKs (one halving each) and timeouts,
//!   with the timeout probability Q-hat of eq. (24) for a window that cannot produce three
//!   duplicate ACKs. Limited transmit (RFC 3042, default on) avoids most of those timeouts
//!   (measured: Reno 1.23× PFTK at p = 1e-2 with it), and SACK repairs several losses of a
//!   window within one reduction (measured, limited transmit off: NewReno with SACK 1.27×
//!   at p = 1e-2, 1.11× at 1e-3); the model describes neither;
//! * delayed ACKs (40 ms, one ACK per two segments) with `abc = 0`, i.e. RFC 5681 eq. (3)
//!   congestion avoidance: the window grows by 1/b = 1/2 segment per RTT, PFTK's b = 2.
//!   (With byte counting, `abc = 2`, the window grows one segment per RTT whatever the ACK
//!   ratio, and b = 1 is the right model; b = 2 would then be 1.6× too low.)
//!
//! Model inputs, measured per run: RTT = mean of the traced RTT samples; T0 = mean of the
//! traced RTO values (one per RTT sample), which is the 200 ms floor here since
//! SRTT + 4·RTTVAR ≈ 45 ms; p = the configured Bernoulli probability.
//!
//! Tolerance: the median over 5 seeds of goodput / PFTK lies within ±25 %. Each run carries at
//! least 200 loss events (`drops.link_loss` on the data direction).

mod tcp_model;

use celltcp_scenario::{load_str, run, RunOptions};
use tcp_model::*;

const SEEDS: [u64; 5] = [1, 2, 3, 4, 5];

fn scenario(p: f64, cc: &str, duration: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"

[nodes]
src = {{ kind = "host" }}
dst = {{ kind = "host" }}

[links.path]
a = "src"
b = "dst"
rate = "100Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = "10000p" }}

[links.path.a_to_b]
loss = {{ kind = "bernoulli", p = {p} }}

[flows.bulk]
kind = "tcp"
src = "src"
dst = "dst"
cc = "{cc}"
app = {{ kind = "bulk" }}

[flows.bulk.tcp]
sack = false
delayed_ack = "40ms"
abc = 0
limited_transmit = false

[trace]
tcp = ["rtt", "rto"]
"#
    )
}

/// goodput / PFTK(b = 2) of one run, after checking that its losses were random ones and
/// numerous enough.
fn ratio(p: f64, cc: &str, duration: &str, seed: u64) -> f64 {
    let text = scenario(p, cc, duration);
    let sc = load_str(&text, &[]).unwrap();
    let out = run(
        &sc,
        &RunOptions {
            seed: Some(seed),
            ..Default::default()
        },
    )
    .unwrap();
    let s = &out.summary;
    let queue_full = num(s, &["links", "path", "a_to_b", "drops", "queue_full"]);
    let losses = num(s, &["links", "path", "a_to_b", "drops", "link_loss"]);
    assert_eq!(queue_full, 0.0, "{cc} p={p} seed {seed}: buffer overflowed");
    assert!(
        losses >= 200.0,
        "{cc} p={p} seed {seed}: only {losses} loss events"
    );
    let rtt = mean(&tcp_series(&out, "bulk", "rtt"));
    let t0 = mean(&tcp_series(&out, "bulk", "rto"));
    let goodput = num(s, &["flows", "bulk", "goodput_bps"]);
    let model = pftk_throughput_bps(MSS, rtt, p, t0, 2.0);
    println!(
        "{cc} p={p} seed {seed}: goodput {:.3} Mb/s, PFTK {:.3} Mb/s (RTT {:.1} ms, T0 {:.0} ms), \
         ratio {:.3}, {losses} losses, {} timeouts",
        goodput / 1e6,
        model / 1e6,
        rtt * 1e3,
        t0 * 1e3,
        goodput / model,
        num(s, &["flows", "bulk", "sender", "timeouts"]),
    );
    goodput / model
}

/// Median over [`SEEDS`] of goodput/PFTK, checked against the ±25 % tolerance. The seeds run
/// on their own threads (each run is deterministic, so the result does not depend on it).
fn check(p: f64, cc: &str, duration: &str) -> f64 {
    let ratios = std::thread::scope(|scope| {
        let runs: Vec<_> = SEEDS
            .iter()
            .map(|&seed| scope.spawn(move || ratio(p, cc, duration, seed)))
            .collect();
        runs.into_iter()
            .map(|h| h.join().expect("run panicked"))
            .collect()
    });
    let m = median(ratios);
    println!("{cc} p={p}: median goodput/PFTK {m:.3}");
    assert!(
        (0.75..=1.25).contains(&m),
        "{cc} p={p}: median goodput/PFTK {m:.3}"
    );
    m
}

/// The Rust port agrees with the Python model. Expected values from
/// `python3 -c "from celltcp.models.throughput import pftk_throughput_bps as f;
/// print(f(1448,0.0452,0.01,0.2,2.0), f(1448,0.0418,0.001,0.2,2.0), f(1448,0.0402,0.01,0.2,1.0))"`.
#[test]
fn pftk_port_matches_the_python_model() {
    for (rtt, p, b, expected) in [
        (0.0452, 0.01, 2.0, 1978309.0759013018),
        (0.0418, 0.001, 2.0, 7444405.683518166),
        (0.0402, 0.01, 1.0, 3134877.0176847316),
    ] {
        let got = pftk_throughput_bps(MSS, rtt, p, 0.2, b);
        assert!((got / expected - 1.0).abs() < 1e-12, "{got} vs {expected}");
    }
}

/// p = 1e-2, 120 s per run (≈ 22 000 packets, 217–234 losses). Measured goodput/PFTK
/// (seeds 1–5): Reno median 1.055 (1.037–1.080), NewReno median 1.124 (1.073–1.133, it
/// repairs two losses of one window in one recovery). The model is a little low because it
/// takes the packets that follow a loss in the same round as lost too, which Bernoulli loss
/// does not do.
#[test]
fn reno_and_newreno_goodput_tracks_pftk_at_p_1e_2() {
    check(1e-2, "reno", "120s");
    check(1e-2, "newreno", "120s");
}

/// p = 1e-3, 330 s per run (≈ 220 000 packets, 218–229 losses). Measured goodput/PFTK
/// (seeds 1–5): Reno median 1.080 (1.029–1.094). NewReno differs from Reno only when a window
/// holds two losses, rare at this p; it is checked at p = 1e-3 and 1e-4 in the long test below
/// (one run costs about 1.5 s of CPU in a debug build, so one controller keeps this file fast).
#[test]
fn reno_goodput_tracks_pftk_at_p_1e_3() {
    check(1e-3, "reno", "330s");
}

/// The full grid, p ∈ {1e-4, 1e-3, 1e-2} × {Reno, NewReno}; at p = 1e-4 a run needs
/// 2 million packets for 200 losses (1100 s at ≈ 25 Mb/s, 238–264 losses), about 15 s of CPU
/// per seed in a debug build, 2 min 45 s of CPU for the whole grid. Measured medians of
/// goodput/PFTK: Reno 1.055 / 1.080 / 1.058 and NewReno 1.124 / 1.080 / 1.058 at
/// p = 1e-2 / 1e-3 / 1e-4. Run with
/// `cargo test -p celltcp-scenario --test tcp_pftk -- --ignored`.
#[test]
#[ignore = "about 3 minutes of CPU in a debug build; the two tests above cover p = 1e-2 and 1e-3"]
fn full_grid_tracks_pftk() {
    for cc in ["reno", "newreno"] {
        check(1e-2, cc, "120s");
        check(1e-3, cc, "330s");
        check(1e-4, cc, "1100s");
    }
}
