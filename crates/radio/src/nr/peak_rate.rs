//! Approximate peak data rate of TS 38.306 §4.1.2:
//!
//! ```text
//! rate = 10⁻⁶ · Σ_j υ_layers · Q_m · f · R_max · (N_PRB^{BW,μ} · 12 / T_s^μ) · (1 − OH)   Mbps
//! ```
//!
//! over the aggregated carriers j, with R_max = 948/1024, T_s^μ = 10⁻³ / (14 · 2^μ) s the
//! average symbol duration, f ∈ {1, 0.8, 0.75, 0.4} the scaling factor, and the overhead OH
//! 0.14 (FR1 downlink), 0.18 (FR2 downlink), 0.08 (FR1 uplink), 0.10 (FR2 uplink).
//! `docs/nr.md` compares it with the rate [`super::tbs`] gives per slot.

use super::carrier::{FrequencyRange, Numerology};
use super::SUBCARRIERS_PER_RB;

/// R_max of TS 38.306 §4.1.2.
pub const R_MAX: f64 = 948.0 / 1024.0;

/// Direction of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Downlink,
    Uplink,
}

/// The overhead OH of TS 38.306 §4.1.2.
pub fn overhead(fr: FrequencyRange, direction: Direction) -> f64 {
    match (fr, direction) {
        (FrequencyRange::Fr1, Direction::Downlink) => 0.14,
        (FrequencyRange::Fr2, Direction::Downlink) => 0.18,
        (FrequencyRange::Fr1, Direction::Uplink) => 0.08,
        (FrequencyRange::Fr2, Direction::Uplink) => 0.10,
    }
}

/// One component carrier j of the formula.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PeakRateCarrier {
    pub layers: u8,
    /// Q_m of the highest modulation (8 for 256QAM).
    pub qm: u8,
    /// Scaling factor f (1, 0.8, 0.75 or 0.4).
    pub scaling_factor: f64,
    pub numerology: Numerology,
    /// N_PRB^{BW,μ}, the maximum RB allocation of the bandwidth.
    pub n_prb: u16,
    pub fr: FrequencyRange,
    pub direction: Direction,
}

impl PeakRateCarrier {
    /// This carrier's term of the sum, bits per second.
    pub fn rate_bps(&self) -> f64 {
        let res_per_second = f64::from(self.n_prb) * f64::from(SUBCARRIERS_PER_RB)
            / self.numerology.average_symbol_s();
        f64::from(self.layers)
            * f64::from(self.qm)
            * self.scaling_factor
            * R_MAX
            * res_per_second
            * (1.0 - overhead(self.fr, self.direction))
    }
}

/// The approximate peak data rate over `carriers`, bits per second.
pub fn approx_peak_rate_bps(carriers: &[PeakRateCarrier]) -> f64 {
    carriers.iter().map(PeakRateCarrier::rate_bps).sum()
}
