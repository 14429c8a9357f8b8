//! Analytic models of TCP throughput and window growth: the one implementation that the
//! simulator's validation tests compare runs with and that Python's `celltcp.models` exposes
//! (through `celltcp._core`, which adds the argument checks and their messages).
//!
//! Units: rates in bits per second, times in seconds, sizes in bytes, windows in segments; `p`
//! is the probability that a segment is lost (in PFTK, of a "loss indication" per segment sent).
//! The arithmetic follows the formulas term by term in the order written below, with `powf`
//! for powers (C's `pow`, as Python's `**`) but squares as products: Python's figures are those
//! it had when it computed them itself, or one unit in the last place off (in 4 of 20,000 random
//! arguments of eq. (32), none of the others).
//!
//! * Mathis, Semke, Mahdavi, Ott, "The Macroscopic Behavior of the TCP Congestion Avoidance
//!   Algorithm", CCR 27(3), 1997: `BW = MSS/RTT · C/sqrt(p)`.
//! * Padhye, Firoiu, Towsley, Kurose, "Modeling TCP Throughput: A Simple Model and its Empirical
//!   Validation", SIGCOMM 1998 (PFTK); equation numbers are the paper's.
//! * RFC 5681 §3.1 (slow start and congestion avoidance), RFC 3465 §2 (byte counting).

const BITS_PER_BYTE: f64 = 8.0;

/// Mathis et al.: `8 · MSS/RTT · C/sqrt(p)` bits per second (`C = sqrt(3/(2b))`).
pub fn mathis_throughput_bps(mss_bytes: f64, rtt_s: f64, p: f64, c: f64) -> f64 {
    BITS_PER_BYTE * mss_bytes / rtt_s * c / p.sqrt()
}

/// PFTK eq. (28): `f(p) = 1 + p + 2p² + 4p³ + 8p⁴ + 16p⁵ + 32p⁶`; a sequence of timeouts lasts
/// `T0 · f(p) / (1 − p)` on average, each further timeout doubling the timer (RFC 6298 (5.5)) up
/// to 64 · T0.
pub fn pftk_backoff_factor(p: f64) -> f64 {
    let terms = (1..=6).fold(0.0, |sum, k| {
        sum + 2f64.powf(f64::from(k - 1)) * p.powf(f64::from(k))
    });
    1.0 + terms
}

/// PFTK eq. (24): Q̂(p, w), the probability that a loss in a window of `w` segments is detected
/// by a timeout rather than by three duplicate ACKs; 1 for `w ≤ 3`.
pub fn pftk_timeout_probability(p: f64, window_segments: f64) -> f64 {
    if window_segments <= 3.0 {
        return 1.0;
    }
    let q = 1.0 - p;
    let numerator =
        (1.0 - q.powf(3.0)) * (1.0 + q.powf(3.0) * (1.0 - q.powf(window_segments - 3.0)));
    (numerator / (1.0 - q.powf(window_segments))).min(1.0)
}

/// PFTK eq. (13): the unconstrained mean window at a loss indication, segments, with `b`
/// segments acknowledged per ACK (2 with delayed ACKs, RFC 5681 §4.2).
pub fn pftk_expected_window_segments(p: f64, b: f64) -> f64 {
    let offset = (2.0 + b) / (3.0 * b);
    offset + (8.0 * (1.0 - p) / (3.0 * b * p) + offset * offset).sqrt()
}

/// PFTK full model, eq. (31), bits per second: segments sent between two timeout sequences over
/// the time they take, with the receiver window `w_max_segments` when given.
pub fn pftk_throughput_bps(
    mss_bytes: f64,
    rtt_s: f64,
    p: f64,
    t0_s: f64,
    b: f64,
    w_max_segments: Option<f64>,
) -> f64 {
    let q = 1.0 - p;
    let timeout_time = t0_s * pftk_backoff_factor(p) / q;
    let w_u = pftk_expected_window_segments(p, b);
    let (segments, seconds) = match w_max_segments {
        Some(w_max) if w_u >= w_max => {
            let q_hat = pftk_timeout_probability(p, w_max);
            (
                q / p + w_max + q_hat / q,
                rtt_s * (b / 8.0 * w_max + q / (p * w_max) + 2.0) + q_hat * timeout_time,
            )
        }
        _ => {
            let q_hat = pftk_timeout_probability(p, w_u);
            (
                q / p + w_u + q_hat / q,
                rtt_s * (b / 2.0 * w_u + 1.0) + q_hat * timeout_time,
            )
        }
    };
    BITS_PER_BYTE * mss_bytes * segments / seconds
}

/// PFTK approximate model, eq. (32), bits per second:
/// `min(W_max/RTT, 1 / (RTT sqrt(2bp/3) + T0 min(1, 3 sqrt(3bp/8)) p (1 + 32p²)))` segments per
/// second (the `S_TCP` of seed 004 without `w_max_segments`).
pub fn pftk_approx_throughput_bps(
    mss_bytes: f64,
    rtt_s: f64,
    p: f64,
    t0_s: f64,
    b: f64,
    w_max_segments: Option<f64>,
) -> f64 {
    let fast_retransmit_term = rtt_s * (2.0 * b * p / 3.0).sqrt();
    let timeout_term =
        t0_s * (3.0 * (3.0 * b * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p);
    let mut segments_per_s = 1.0 / (fast_retransmit_term + timeout_term);
    if let Some(w_max) = w_max_segments {
        segments_per_s = (w_max / rtt_s).min(segments_per_s);
    }
    BITS_PER_BYTE * mss_bytes * segments_per_s
}

/// Rounds of slow start from `initial_window` to `target_window` segments when each round
/// multiplies cwnd by `growth` (`1 + 1/b`, or `1 + min(b, L)/b` with byte counting): fluid
/// `log(W/IW) / log(g)`, 0 when `W ≤ IW`.
pub fn slow_start_rounds(target_window: f64, initial_window: f64, growth: f64) -> f64 {
    if target_window <= initial_window {
        return 0.0;
    }
    (target_window / initial_window).ln() / growth.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pftk_tends_to_mathis_at_low_loss_and_to_the_window_limit_with_one() {
        // Without timeouts' weight (p → 0) eq. (31) is Mathis with C = sqrt(3/(2b)).
        let (mss, rtt, p, b) = (1460.0, 0.1, 1e-6, 2.0);
        let pftk = pftk_throughput_bps(mss, rtt, p, 1.0, b, None);
        let mathis = mathis_throughput_bps(mss, rtt, p, (3.0 / (2.0 * b)).sqrt());
        assert!((pftk / mathis - 1.0).abs() < 0.01, "{pftk} vs {mathis}");
        let limited = pftk_throughput_bps(mss, rtt, p, 1.0, b, Some(20.0));
        assert!(
            (limited / (8.0 * mss * 20.0 / rtt) - 1.0).abs() < 0.01,
            "{limited}"
        );
    }

    #[test]
    fn the_pieces_take_their_defining_values() {
        assert_eq!(pftk_backoff_factor(0.0), 1.0);
        assert!(
            (pftk_backoff_factor(0.5) - (1.0 + 0.5 + 0.5 + 0.5 + 0.5 + 0.5 + 0.5)).abs() < 1e-12
        );
        assert_eq!(pftk_timeout_probability(0.1, 3.0), 1.0);
        // As p → 0, Q̂ → 3/w.
        assert!((pftk_timeout_probability(1e-7, 30.0) - 0.1).abs() < 1e-4);
        assert_eq!(slow_start_rounds(1024.0, 1.0, 2.0), 10.0);
        assert_eq!(slow_start_rounds(1.0, 4.0, 2.0), 0.0);
    }
}
