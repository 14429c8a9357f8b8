//! Experiment 5-2 of the PETRA thesis (seed `003_…`, §5.4.2, Fig. 5.10, Tables 5.6 and 5.7):
//! three LTE cells with five UEs each, one bulk download per UE from one remote host (15
//! flows), random errors on the way to every UE, with NewReno, Westwood+ and PETRA in turn on
//! all flows — per-flow throughput, delay, jitter and loss, and Jain's fairness index of the
//! per-flow throughputs (the seed's equation 5.1). Scenario: `python/celltcp/examples/003/exp5-2.toml`, whose
//! comments explain how the seed's radio links, RLC and error model are mapped onto celltcp's
//! cells; docs/seed-003.md puts the seed's numbers beside the ones measured here.
//!
//! Runs last 10 s instead of the seed's 100 s (15 flows over three cells take about 1–3 s of
//! wall time per simulated 10 s in a debug build); every figure is the median over master
//! seeds 1–3. The runs of each controller are made once and shared by the tests of this file.

mod seed003_support;

use std::sync::OnceLock;

use celltcp_scenario::RunOutput;
use seed003_support::*;

const FILE: &str = "exp5-2.toml";
const DURATION: &str = "10s";
const SEEDS: std::ops::RangeInclusive<u64> = 1..=3;
const CELLS: [&str; 3] = ["cell1", "cell2", "cell3"];
/// Packet error rate of a 1500-byte data packet at the seed's byte error rate 5e-5.
const PER: f64 = 0.072_258;
/// Downlink PHY rate of a cell: TBS of I_TBS 21 (MCS 23) on 50 PRBs per 1 ms TTI, bit/s.
const CELL_PHY_RATE_BPS: f64 = 25_456_000.0;
/// Smallest one-way delay to a UE: 20 + 3 ms of propagation, 1500 bytes serialised at
/// 100 Mb/s and 1 Gb/s (0.12 + 0.012 ms), and at least one 1 ms TTI on the air, in seconds.
const DELAY_FLOOR_S: f64 = 0.024_132;
/// Largest queueing delay the eNB's 10 KiB RLC buffer can add for a UE served at a fifth of
/// the cell's PHY rate (its proportional-fair share when all five are backlogged), seconds.
const RLC_QUEUE_MAX_S: f64 = 10_240.0 * 8.0 / (CELL_PHY_RATE_BPS / 5.0);

fn flow_names() -> Vec<String> {
    (1..=15).map(|i| format!("f{i:02}")).collect()
}

/// The scenario with controller `cc` on all 15 flows, plus `extra` overrides. The flows' TCP
/// settings are celltcp's defaults (1448-byte segments with timestamps, SACK) without the
/// detection of lost retransmissions, the set-up these tests were written for; the file itself
/// runs ns-3.19's (536-byte segments, no SACK), which `celltcp reproduce 003` measures
/// (docs/seed-003.md).
fn overrides(cc: &str, extra: &[(String, String)]) -> Vec<(String, String)> {
    let tcp = "{ detect_lost_retransmissions = false }";
    let mut o: Vec<(String, String)> = flow_names()
        .iter()
        .flat_map(|f| {
            [
                set(format!("flows.{f}.cc"), cc),
                set(format!("flows.{f}.tcp"), tcp),
            ]
        })
        .collect();
    o.push(set("simulation.duration", DURATION));
    o.extend_from_slice(extra);
    o
}

/// Results of one controller.
struct Runs {
    cc: &'static str,
    /// Per run: the figures of the 15 flows, in flow order.
    flows: Vec<Vec<FlowFigures>>,
    /// Per run: Jain's index of the 15 throughputs.
    jain: Vec<f64>,
    outputs: Vec<RunOutput>,
}

impl Runs {
    fn new(
        cc: &'static str,
        extra: &[(String, String)],
        seeds: std::ops::RangeInclusive<u64>,
    ) -> Self {
        let mut runs = Runs {
            cc,
            flows: Vec::new(),
            jain: Vec::new(),
            outputs: Vec::new(),
        };
        for seed in seeds {
            let out = run_example(FILE, &overrides(cc, extra), seed);
            let figures: Vec<FlowFigures> =
                flow_names().iter().map(|f| flow_figures(&out, f)).collect();
            let rates: Vec<f64> = figures.iter().map(|f| f.throughput_bps).collect();
            runs.jain.push(jain_index(&rates));
            runs.flows.push(figures);
            runs.outputs.push(out);
        }
        runs
    }

    /// Per flow, the medians over runs.
    fn per_flow(&self) -> Vec<FlowFigures> {
        (0..15)
            .map(|i| median_figures(&self.flows.iter().map(|run| run[i]).collect::<Vec<_>>()))
            .collect()
    }

    /// Median over runs of the sum of the 15 throughputs, bit/s.
    fn aggregate_bps(&self) -> f64 {
        median(
            self.flows
                .iter()
                .map(|run| run.iter().map(|f| f.throughput_bps).sum())
                .collect(),
        )
    }

    /// Jain's index of the per-flow throughputs averaged over the runs: the runs of 10 s
    /// together stand for one longer run, as the seed's 100 s one did.
    fn pooled_jain(&self) -> f64 {
        let n = self.flows.len() as f64;
        let means: Vec<f64> = (0..15)
            .map(|i| {
                self.flows
                    .iter()
                    .map(|run| run[i].throughput_bps)
                    .sum::<f64>()
                    / n
            })
            .collect();
        jain_index(&means)
    }

    /// Median over runs of the mean over flows of `figure`.
    fn mean_over_flows(&self, figure: fn(&FlowFigures) -> f64) -> f64 {
        median(
            self.flows
                .iter()
                .map(|run| run.iter().map(figure).sum::<f64>() / run.len() as f64)
                .collect(),
        )
    }

    fn print(&self) {
        for (i, f) in self.per_flow().iter().enumerate() {
            println!("{:8} flow {:2}: {}", self.cc, i + 1, describe(f));
        }
        println!(
            "{:8} total {:.2} Mb/s, mean delay {:.2} ms, mean jitter {:.3} ms, mean loss {:.2} %, Jain per run {:?}, pooled {:.5}",
            self.cc,
            self.aggregate_bps() / 1e6,
            self.mean_over_flows(|f| f.delay_mean_s) * 1e3,
            self.mean_over_flows(|f| f.jitter_mean_s) * 1e3,
            self.mean_over_flows(|f| f.loss_ratio) * 100.0,
            self.jain,
            self.pooled_jain()
        );
    }
}

/// The runs of controller `cc` with the scenario as written, made once per test binary.
fn runs(cc: &'static str) -> &'static Runs {
    static NEWRENO: OnceLock<Runs> = OnceLock::new();
    static WESTWOOD: OnceLock<Runs> = OnceLock::new();
    static PETRA: OnceLock<Runs> = OnceLock::new();
    let cell = match cc {
        "newreno" => &NEWRENO,
        "westwood" => &WESTWOOD,
        "petra" => &PETRA,
        _ => panic!("no cached runs for {cc}"),
    };
    cell.get_or_init(|| {
        let r = Runs::new(cc, &[], SEEDS);
        r.print();
        r
    })
}

/// What holds for every controller: the radio works as the scenario file says, each cell
/// carries at most its PHY rate, every flow loses at least the random errors and sees a delay
/// between the path's floor and the floor plus a full RLC buffer, and the flows share fairly.
fn check_common(r: &Runs) {
    let jain = r.pooled_jain();
    assert!(
        jain >= 0.95,
        "{}: Jain's index {jain} (per run {:?})",
        r.cc,
        r.jain
    );
    for out in &r.outputs {
        for cell in CELLS {
            let ues = out.summary["cells"][cell]["ues"]
                .as_object()
                .unwrap_or_else(|| panic!("no UEs of {cell} in the summary"));
            let mut rlc_bps = 0.0;
            for (ue, fig) in ues {
                // MCS 23 is fixed and the 150 m UMa channel decodes it at the first attempt.
                assert_eq!(fig["mcs_mean"].as_f64(), Some(23.0), "{cell}/{ue}");
                assert_eq!(
                    fig["harq_retransmissions"].as_f64(),
                    Some(0.0),
                    "{cell}/{ue}"
                );
                rlc_bps += fig["rlc_throughput_bps"].as_f64().unwrap();
            }
            assert!(
                rlc_bps <= CELL_PHY_RATE_BPS,
                "{}: {cell} carries {rlc_bps} b/s",
                r.cc
            );
        }
    }
    let names = flow_names();
    for (i, f) in r.per_flow().iter().enumerate() {
        let flow = i + 1;
        // Three binomial standard deviations of one run's loss ratio (2.7 points for the
        // 800-odd packets of a 1 Mb/s flow over 10 s).
        let packets = median(
            r.outputs
                .iter()
                .map(|o| known_packets(o, &names[i]))
                .collect(),
        );
        let tolerance = 3.0 * (PER * (1.0 - PER) / packets).sqrt();
        assert!(
            f.loss_ratio >= PER - tolerance,
            "{} flow {flow}: loss {} below the error rate {PER} (± {tolerance})",
            r.cc,
            f.loss_ratio
        );
        assert!(
            (DELAY_FLOOR_S..DELAY_FLOOR_S + RLC_QUEUE_MAX_S).contains(&f.delay_mean_s),
            "{} flow {flow}: delay {}",
            r.cc,
            f.delay_mean_s
        );
        assert!(f.jitter_mean_s > 0.0, "{} flow {flow}: {f:?}", r.cc);
    }
}

/// Measured (medians over seeds 1–3 of 10 s runs): 15.34 Mb/s in total (0.94–1.20 Mb/s per
/// flow), mean delay 25.15 ms, jitter 0.329 ms, loss 7.88 %, Jain 0.9965 (per run
/// 0.992–0.995). Every flow is limited by the random losses, far below its cell share.
#[test]
fn table_5_7_flows_newreno() {
    check_common(runs("newreno"));
}

/// Measured: 37.76 Mb/s in total (1.53–3.30 Mb/s per flow), mean delay 25.68 ms, jitter
/// 0.552 ms, loss 10.00 %, Jain 0.963 (per run 0.932–0.967; 0.9987 over 100 s runs).
#[test]
fn table_5_7_flows_westwood() {
    check_common(runs("westwood"));
}

/// Measured: 54.30 Mb/s in total (2.72–4.36 Mb/s per flow), mean delay 27.47 ms, jitter
/// 0.994 ms, loss 18.70 %, Jain 0.981 (per run 0.974–0.982; 0.9993 over 100 s runs; the
/// seed: 0.99978).
#[test]
fn table_5_7_flows_petra() {
    check_common(runs("petra"));
}

/// The seed's orderings of Table 5.7: PETRA carries the most and NewReno the least (measured
/// 54.30 / 37.76 / 15.34 Mb/s, the seed 317.14 / 273.43 / 66.87 in its unit); NewReno has the
/// lowest delay and, here, the lowest jitter. The seed's loss ordering (PETRA lowest) is
/// reversed, and the last assertion pins celltcp's order so that docs/seed-003.md is revisited
/// if it changes: PETRA's losses are the random ones plus overflows of the 10 KiB RLC buffer
/// (seed 1, flow f01: 312 random losses, 539 overflows), which its loss classifier attributes
/// to the radio, because the classifier calls a loss congestion only with a backlog of half a
/// pipe (about 14 kB at 4 Mb/s and the 56 ms minimum RTT) and the buffer holds 10 kB
/// (docs/petra.md, "Loss classifier"); PETRA then keeps its window and overflows again.
#[test]
fn table_5_7_orderings() {
    let [newreno, westwood, petra] = ["newreno", "westwood", "petra"].map(runs);
    let total = |r: &Runs| r.aggregate_bps();
    assert!(
        total(westwood) >= 2.0 * total(newreno),
        "Westwood+ {} NewReno {}",
        total(westwood),
        total(newreno)
    );
    assert!(
        total(petra) >= 1.15 * total(westwood),
        "PETRA {} Westwood+ {}",
        total(petra),
        total(westwood)
    );
    let delay = |r: &Runs| r.mean_over_flows(|f| f.delay_mean_s);
    assert!(delay(newreno) < delay(westwood).min(delay(petra)));
    let jitter = |r: &Runs| r.mean_over_flows(|f| f.jitter_mean_s);
    assert!(jitter(newreno) < jitter(westwood).min(jitter(petra)));
    let loss = |r: &Runs| r.mean_over_flows(|f| f.loss_ratio);
    assert!(loss(petra) > loss(westwood) && loss(westwood) > loss(newreno));
}

/// Without the error model (the three `loss` lines removed) only the LTE model loses packets:
/// overflows of the 10 KiB RLC buffers. Nothing random is left that matters (the fixed MCS is
/// decoded at the first attempt; seeds 1 and 2 give identical figures), so one run per
/// controller suffices.
///
/// Measured (10 s, seed 1): NewReno / Westwood+ / PETRA carry 65.91 / 64.55 / 67.23 Mb/s in
/// total, Jain ≥ 0.9986, loss 0.85 / 5.48 / 18.12 %, mean delay 26.07 / 27.71 / 31.57 ms.
/// The cells are the bottleneck and every controller fills them: the seed's throughput
/// ordering shrinks to a few per cent, while PETRA loses 20 times as many packets as NewReno.
#[test]
fn without_random_errors_the_cells_are_the_bottleneck() {
    let no_errors: Vec<(String, String)> = (1..=3)
        .map(|c| set(format!("links.s1u{c}.a_to_b"), "{}"))
        .collect();
    let all = ["newreno", "westwood", "petra"].map(|cc| {
        let r = Runs::new(cc, &no_errors, 1..=1);
        r.print();
        r
    });
    let totals = all.each_ref().map(|r| r.aggregate_bps());
    let (lo, hi) = totals.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &t| {
        (lo.min(t), hi.max(t))
    });
    assert!(hi <= 1.05 * lo, "totals {totals:?}");
    assert!(lo >= 0.8 * 3.0 * CELL_PHY_RATE_BPS, "totals {totals:?}");
    for r in &all {
        assert!(r.jain[0] >= 0.99, "{}: Jain {:?}", r.cc, r.jain);
    }
    let newreno_loss = all[0].mean_over_flows(|f| f.loss_ratio);
    assert!(newreno_loss < 0.02, "NewReno loss {newreno_loss}");
}
