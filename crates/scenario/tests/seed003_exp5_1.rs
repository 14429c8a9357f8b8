//! Experiment 5-1 of the PETRA thesis (seed `003_…`, §5.4.1): one bulk download over the wired
//! path of Table 5.2 whose 25 Mb/s radio hop loses packets at random, with NewReno, Westwood+
//! and PETRA — Table 5.4 (throughput, delay, jitter, loss at the error rate 5e-5) and the
//! error-rate sweep of Table 5.5. Scenario: `python/celltcp/examples/003/exp5-1.toml`; the reading of the
//! seed's error rate (per byte, the default unit of ns-3's `RateErrorModel`) is explained there
//! and in docs/seed-003.md, which puts the seed's numbers beside the ones measured here.
//!
//! Every test replaces the file's `[flows.bulk.tcp]` (ns-3.19's 536-byte segments without SACK,
//! the set-up `celltcp reproduce 003` measures) with celltcp's defaults and the SACK setting it
//! states: 1448-byte segments with timestamps, 1500-byte packets.
//!
//! Runs are shorter than the seed's 100 s where they carry many packets (stated per test), and
//! every figure is the median over master seeds; the error stream of a seed is the same for
//! every controller. The seed's absolute numbers came from ns-3.19 with LENA and are not
//! comparable: the tests assert its orderings where celltcp reproduces them and the mechanisms
//! where it does not, with the measured medians in the comments (debug build, this machine).

mod seed003_support;

use std::ops::RangeInclusive;

use seed003_support::*;

const FILE: &str = "exp5-1.toml";
/// IP packet of a full segment: 1448 bytes of payload, 20 + 20 + 12 bytes of headers.
const DATA_PACKET_BYTES: u32 = 1500;
/// The seed's error rate of Tables 5.3 and 5.4 (ns-3 `RateErrorModel`, per byte).
const BASE_BYTE_ERROR_RATE: f64 = 5e-5;
/// Smallest one-way delay of a data packet: propagation 20 + 3 + 5 ms plus serialisation of
/// 1500 bytes at 100 Mb/s, 1 Gb/s and 25 Mb/s (0.12 + 0.012 + 0.48 ms), in seconds.
const DELAY_FLOOR_S: f64 = 0.028_612;

/// Median results of one controller at one error rate.
#[derive(Clone, Copy, Debug)]
struct Point {
    figures: FlowFigures,
    /// Retransmission timeouts per run.
    timeouts: f64,
    /// Fast-recovery episodes per run.
    fast_recoveries: f64,
    /// Data packets whose fate is known (delivered or dropped), per run.
    data_packets: f64,
}

/// The endpoint settings of the tests, replacing `[flows.bulk.tcp]`: SACK on or off, and no
/// detection of lost retransmissions, which ns-3.19 lacks (as in `python/celltcp/examples/003/exp5-1.toml`).
const SACK_ON: &str = "{ sack = true, detect_lost_retransmissions = false }";
const SACK_OFF: &str = "{ sack = false, detect_lost_retransmissions = false }";

/// Runs the bulk flow with controller `cc`, byte error rate `rate` and endpoint settings `tcp`
/// (a TOML table replacing `[flows.bulk.tcp]`) for `duration`, once per seed in `seeds`.
fn point(cc: &str, rate: f64, tcp: &str, duration: &str, seeds: RangeInclusive<u64>) -> Point {
    let overrides = [
        set("flows.bulk.cc", cc),
        set(
            "links.access.a_to_b.loss.ber",
            format!("{:e}", ber_for_byte_error_rate(rate)),
        ),
        set("flows.bulk.tcp", tcp),
        set("simulation.duration", duration),
    ];
    let (mut figures, mut timeouts, mut recoveries, mut packets) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for seed in seeds {
        let out = run_example(FILE, &overrides, seed);
        figures.push(flow_figures(&out, "bulk"));
        timeouts.push(sender_figure(&out, "bulk", "timeouts"));
        recoveries.push(sender_figure(&out, "bulk", "fast_recoveries"));
        packets.push(known_packets(&out, "bulk"));
    }
    let p = Point {
        figures: median_figures(&figures),
        timeouts: median(timeouts),
        fast_recoveries: median(recoveries),
        data_packets: median(packets),
    };
    println!(
        "r = {rate:e} {tcp} {cc:8}: {}  timeouts {:5.0}  fast recoveries {:5.0}",
        describe(&p.figures),
        p.timeouts,
        p.fast_recoveries
    );
    p
}

/// NewReno, Westwood+ and PETRA at one error rate.
fn controllers(rate: f64, tcp: &str, duration: &str, seeds: RangeInclusive<u64>) -> [Point; 3] {
    ["newreno", "westwood", "petra"].map(|cc| point(cc, rate, tcp, duration, seeds.clone()))
}

/// Every controller loses at least what the radio hop loses: the random errors set a floor no
/// window rule can go below. The tolerance is three binomial standard deviations of one run's
/// loss ratio, sqrt(PER·(1 − PER)/n) with n its data packets (1.3 points for a run of 1 Mb/s
/// over 40 s, 10 points for the few hundred packets of a run at 5e-4).
fn assert_loss_floor(rate: f64, points: &[Point; 3]) {
    let per = packet_error_rate(rate, DATA_PACKET_BYTES);
    for p in points {
        let tolerance = 3.0 * (per * (1.0 - per) / p.data_packets).sqrt();
        assert!(
            p.figures.loss_ratio >= per - tolerance,
            "r = {rate:e}: loss ratio {} below the packet error rate {per} (± {tolerance})",
            p.figures.loss_ratio
        );
    }
}

#[test]
fn support_formulas() {
    // 1 − (1 − ber)^(8L) equals 1 − (1 − r)^L for any packet size L.
    for r in [5e-5, 2.5e-4] {
        let ber = ber_for_byte_error_rate(r);
        for bytes in [52u32, 1500] {
            let by_bit = 1.0 - (1.0 - ber).powi(8 * bytes as i32);
            assert!((by_bit - packet_error_rate(r, bytes)).abs() < 1e-12);
        }
    }
    assert!((packet_error_rate(5e-5, 1500) - 0.072_258).abs() < 1e-6);
    // Delays 10, 12, 11, 11 ms: differences 2, 1, 0 → mean 1 ms.
    let jitter = mean_jitter_s(&[10_000_000, 12_000_000, 11_000_000, 11_000_000]);
    assert!((jitter - 1e-3).abs() < 1e-12);
    assert!(mean_jitter_s(&[5]).is_nan());
    assert!((jain_index(&[3.0; 15]) - 1.0).abs() < 1e-12);
    assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
}

/// Table 5.4 (error rate 5e-5, i.e. 7.23 % of the data packets), SACK on; 40 s, seeds 1–5.
///
/// Measured: NewReno 1.02 Mb/s, delay 28.92 ms, jitter 0.365 ms, loss 7.08 %;
/// Westwood+ 5.27 Mb/s, 29.61 ms, 0.213 ms, 7.22 %; PETRA 14.72 Mb/s, 40.05 ms, 0.229 ms,
/// 9.59 %. The seed's ordering of throughput (PETRA > TCPW > NewReno) and of delay (NewReno
/// lowest) holds; its loss ordering (PETRA lowest, by 0.1–0.2 points) does not: PETRA's
/// window also overflows the 100-packet access queue.
#[test]
fn table_5_4_with_sack() {
    let points = controllers(BASE_BYTE_ERROR_RATE, SACK_ON, "40s", 1..=5);
    let [newreno, westwood, petra] = points.map(|p| p.figures);
    assert!(
        westwood.throughput_bps >= 2.0 * newreno.throughput_bps,
        "Westwood+ {westwood:?} vs NewReno {newreno:?}"
    );
    assert!(
        petra.throughput_bps >= 1.5 * westwood.throughput_bps,
        "PETRA {petra:?} vs Westwood+ {westwood:?}"
    );
    // NewReno's small window leaves the access queue nearly empty (the seed's explanation of
    // its lowest delay): its mean delay is within 1 ms of the path's floor.
    assert!(newreno.delay_mean_s < westwood.delay_mean_s);
    assert!(newreno.delay_mean_s < petra.delay_mean_s);
    assert!(
        newreno.delay_mean_s < DELAY_FLOOR_S + 1e-3,
        "NewReno delay {}",
        newreno.delay_mean_s
    );
    assert_loss_floor(BASE_BYTE_ERROR_RATE, &points);
    // The access queue serialises a data packet in 0.48 ms, and consecutive packets' delays
    // differ by about that much or less (measured 0.21–0.37 ms; the seed reports 3.3–3.4 ms).
    for p in &points {
        assert!(p.figures.jitter_mean_s < 1e-3, "{:?}", p.figures);
    }
}

/// Table 5.4 without SACK, as in ns-3.19's TCP; 100 s, seeds 1–5.
///
/// Measured: NewReno 0.763 Mb/s, Westwood+ 0.694 Mb/s, PETRA 0.885 Mb/s. PETRA stays ahead,
/// but Westwood+ loses its lead over NewReno. Without SACK a window with several losses is
/// repaired one segment per RTT (RFC 6582); the ACK rate, and with it the Westwood+ samples,
/// fall during the repair, and BWE·RTTmin settles at the window NewReno would have (traced
/// with seed 1 over 40 s: BWE averaging 0.73 Mb/s, mean cwnd 7.1 kB against NewReno's
/// 7.8 kB; with SACK, BWE averages 10.8 Mb/s and the mean cwnd is 27.6 kB).
#[test]
fn table_5_4_without_sack() {
    let points = controllers(BASE_BYTE_ERROR_RATE, SACK_OFF, "100s", 1..=5);
    let [newreno, westwood, petra] = points;
    let nr = newreno.figures.throughput_bps;
    let ww = westwood.figures.throughput_bps;
    let pt = petra.figures.throughput_bps;
    assert!(pt > nr && pt > ww, "PETRA {pt} NewReno {nr} Westwood+ {ww}");
    assert!(
        (0.75..1.15).contains(&(ww / nr)),
        "Westwood+/NewReno = {}",
        ww / nr
    );
    assert_loss_floor(BASE_BYTE_ERROR_RATE, &points);
}

/// Table 5.5 at the three moderate rates (10.6 %, 12.6 % and 13.9 % of the data packets),
/// SACK on; 30 s, seeds 1–3.
///
/// Measured (Mb/s, NewReno / Westwood+ / PETRA): 7.5e-5: 0.881 / 2.246 / 9.872;
/// 9e-5: 0.712 / 1.898 / 7.626; 1e-4: 0.655 / 1.375 / 5.995. The seed's ordering holds at
/// every rate, with wider margins than the seed's (PETRA 4–4.4 × Westwood+, where the seed
/// has 1.1 ×); NewReno has the lowest delay at every rate, as in the seed.
#[test]
fn table_5_5_moderate_error_rates() {
    let mut previous: Option<[Point; 3]> = None;
    for rate in [7.5e-5, 9e-5, 1e-4] {
        let points = controllers(rate, SACK_ON, "30s", 1..=3);
        let [newreno, westwood, petra] = points.map(|p| p.figures);
        assert!(
            westwood.throughput_bps >= 1.3 * newreno.throughput_bps,
            "r = {rate:e}: Westwood+ {westwood:?} vs NewReno {newreno:?}"
        );
        assert!(
            petra.throughput_bps >= 2.0 * westwood.throughput_bps,
            "r = {rate:e}: PETRA {petra:?} vs Westwood+ {westwood:?}"
        );
        assert!(newreno.delay_mean_s < westwood.delay_mean_s.min(petra.delay_mean_s));
        assert_loss_floor(rate, &points);
        // More errors, less throughput, for every controller (the seed's Figure 5.9).
        if let Some(prev) = previous {
            for (p, q) in prev.iter().zip(&points) {
                assert!(q.figures.throughput_bps < p.figures.throughput_bps);
            }
        }
        previous = Some(points);
    }
}

/// Table 5.5 at the two high rates (31.3 % and 52.8 % of the data packets), SACK on;
/// 100 s, seeds 1–5.
///
/// Measured (Mb/s, NewReno / Westwood+ / PETRA): 2.5e-4: 0.205 / 0.160 / 0.200;
/// 5e-4: 0.027 / 0.025 / 0.022. The seed's ordering does not hold here: every controller
/// collapses to the same rate. Timeouts repair most losses (2.5e-4: 209–213 timeouts against
/// 83–101 fast recoveries; 5e-4: 82–99 against 6–9), and the exponential backoff of RFC 6298
/// sets the pace whatever the window rule. The seed reports PETRA at 4.5–5.7 × the others at
/// 2.5e-4 and 84 × at 5e-4.
#[test]
fn table_5_5_high_error_rates() {
    for rate in [2.5e-4, 5e-4] {
        let points = controllers(rate, SACK_ON, "100s", 1..=5);
        let rates = points.map(|p| p.figures.throughput_bps);
        let (lo, hi) = rates.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &r| {
            (lo.min(r), hi.max(r))
        });
        assert!(hi < 0.5e6, "r = {rate:e}: {rates:?} b/s");
        assert!(hi < 1.5 * lo, "r = {rate:e}: {rates:?} b/s");
        for p in &points {
            assert!(p.timeouts > p.fast_recoveries, "r = {rate:e}: {p:?}");
        }
        assert_loss_floor(rate, &points);
    }
}
