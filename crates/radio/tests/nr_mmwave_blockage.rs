//! Validation of the mmWave blockage models against their parameters (docs/nr.md, "mmWave
//! channel"): the measured blocked-time fraction and blocked-duration distribution of a long
//! run, for the two-state Markov model against `mean_blocked / (mean_blocked + mean_clear)` and
//! an exponential law, and for TR 38.901 model B against the geometric expectation for the
//! blockers' density, size and speed. Run with `--nocapture` to see the figures.

use celltcp_engine::RngStream;
use celltcp_radio::channel::Position;
use celltcp_radio::nr::{
    BlockageModelBConfig, BlockerField, BlockerKind, LinkEnd, MarkovBlockage, MarkovBlockageConfig,
};

/// Kolmogorov–Smirnov distance between `samples` and the exponential law of mean `mean`.
fn ks_exponential(samples: &mut [f64], mean: f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    let n = samples.len() as f64;
    samples
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let cdf = 1.0 - (-x / mean).exp();
            (cdf - i as f64 / n)
                .abs()
                .max(((i + 1) as f64 / n - cdf).abs())
        })
        .fold(0.0, f64::max)
}

#[test]
fn markov_blocked_fraction_and_exponential_durations() {
    let config = MarkovBlockageConfig {
        mean_clear_ns: 2_000_000_000,
        mean_blocked_ns: 500_000_000,
        blocked_loss_db: 30.0,
    };
    let mut m = MarkovBlockage::new(config, RngStream::new(1, 0, "cell/0/ue/0/blockage")).unwrap();
    let horizon_ns = 20_000 * 1_000_000_000u64;
    let (mut blocked_ns, mut durations_s) = (0u64, Vec::new());
    // Walk sojourn by sojourn: each query at the end of one returns the next.
    let mut state = m.state_at(0);
    while state.since_ns < horizon_ns {
        let end = state.until_ns.min(horizon_ns);
        if state.blocked {
            blocked_ns += end - state.since_ns;
            // The first and last sojourns are cut by the window; keep only whole ones.
            if state.since_ns > 0 && state.until_ns <= horizon_ns {
                durations_s.push((state.until_ns - state.since_ns) as f64 * 1e-9);
            }
        }
        state = m.state_at(state.until_ns);
    }
    let fraction = blocked_ns as f64 / horizon_ns as f64;
    let n = durations_s.len();
    let mean_s = durations_s.iter().sum::<f64>() / n as f64;
    let var = durations_s
        .iter()
        .map(|d| (d - mean_s).powi(2))
        .sum::<f64>()
        / (n - 1) as f64;
    let cv = var.sqrt() / mean_s;
    let ks = ks_exponential(&mut durations_s, mean_s);
    println!(
        "markov: blocked fraction {fraction:.4} (expected {:.4}), {n} blocked periods, mean \
         {mean_s:.4} s (expected 0.5), CV {cv:.3} (exponential: 1), KS D {ks:.4} (1% critical {:.4})",
        config.blocked_fraction(),
        1.63 / (n as f64).sqrt()
    );
    // Tolerances: about 4 standard deviations of 8,000 cycles (σ_fraction ≈ 0.0025, σ_mean ≈
    // 1.1 %, σ_CV ≈ 1.6 %); the KS bound is the 1 % critical value for a known law, which
    // is conservative for a mean estimated from the sample.
    assert!((fraction - 0.2).abs() < 0.01, "{fraction}");
    assert!((mean_s - 0.5).abs() < 0.5 * 0.05, "{mean_s}");
    assert!((cv - 1.0).abs() < 0.07, "{cv}");
    assert!(ks < 1.63 / (n as f64).sqrt(), "{ks}");
}

#[test]
fn model_b_blocked_fraction_and_durations_match_the_geometry() {
    // 160 people (0.2 per m²) walking at 3 km/h in a 40 m × 20 m area; a 30 m link from a
    // 3 m base station to a 1.5 m UE. The path is below 1.7 m for the first 4 m from the UE,
    // so the blocking region is 0.3 m × 4 m.
    let config = BlockageModelBConfig {
        blocker: BlockerKind::HUMAN,
        density_per_m2: 0.2,
        area_min: Position::new(-20.0, -10.0),
        area_max: Position::new(20.0, 10.0),
    };
    let field = BlockerField::new(
        config,
        28e9,
        &mut RngStream::new(1, 0, "cell/0/ue/0/blockers"),
    )
    .unwrap();
    assert_eq!(field.len(), 160);
    let bs = LinkEnd {
        position: Position::new(15.0, 0.0),
        height_m: 3.0,
    };
    let ue = LinkEnd {
        position: Position::new(-15.0, 0.0),
        height_m: 1.5,
    };
    let step_ns = 5_000_000u64;
    let steps = 3_000 * 1_000_000_000 / step_ns;
    let (mut blocked_steps, mut run, mut durations_s) = (0u64, 0u64, Vec::new());
    for k in 0..steps {
        if field.is_blocked(k * step_ns, bs, ue) {
            blocked_steps += 1;
            run += 1;
        } else if run > 0 {
            durations_s.push(run as f64 * step_ns as f64 * 1e-9);
            run = 0;
        }
    }
    let fraction = blocked_steps as f64 / steps as f64;
    let expected_fraction = field.expected_blocked_fraction(bs, ue);
    let n = durations_s.len();
    let mean_s = durations_s.iter().sum::<f64>() / n as f64;
    let expected_mean_s = field.expected_mean_blocked_s(bs, ue);
    // The knife-edge loss while blocked, sampled once per second.
    let losses: Vec<f64> = (0..3_000u64)
        .map(|s| field.loss(s * 1_000_000_000, bs, ue))
        .filter(|l| l.blocked)
        .map(|l| l.loss_db)
        .collect();
    let mean_loss = losses.iter().sum::<f64>() / losses.len() as f64;
    println!(
        "model B: blocked fraction {fraction:.4} (geometric {expected_fraction:.4}), {n} \
         blocked periods, mean {mean_s:.4} s (geometric {expected_mean_s:.4} s), mean \
         knife-edge loss while blocked {mean_loss:.2} dB over {} samples",
        losses.len()
    );
    // Tolerances: 10 % of the expected fraction and mean duration (the run has about 1,000
    // blocked periods, a standard error of about 3 %).
    assert!(
        (fraction / expected_fraction - 1.0).abs() < 0.10,
        "{fraction}"
    );
    assert!((mean_s / expected_mean_s - 1.0).abs() < 0.10, "{mean_s}");
    assert!(mean_loss > 3.0, "{mean_loss}");
}
