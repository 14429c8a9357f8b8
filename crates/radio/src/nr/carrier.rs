//! Numerologies and carriers: subcarrier spacing, slot duration and the number of resource
//! blocks a channel bandwidth holds.
//!
//! NR numerology μ (TS 38.211 Table 4.2-1) has subcarrier spacing Δf = 2^μ · 15 kHz. With the
//! normal cyclic prefix a slot has 14 OFDM symbols, a 1 ms subframe 2^μ slots and a 10 ms frame
//! 10 · 2^μ slots (TS 38.211 §4.3.1, Table 4.3.2-1), so a slot lasts exactly 1 ms / 2^μ — an
//! integer number of nanoseconds for every μ ≤ 4 (62 500 ns at μ = 4). The extended cyclic
//! prefix (μ = 2 only) is not modelled.
//!
//! The transmission bandwidth N_RB of a channel bandwidth is tabulated per frequency range:
//! TS 38.101-1 Table 5.3.2-1 (FR1, 410–7125 MHz; 15/30/60 kHz, 5–100 MHz, Release 17, which
//! added 35 and 45 MHz) and TS 38.101-2 Table 5.3.2-1 (FR2-1, 24.25–52.6 GHz; 60/120 kHz,
//! 50–400 MHz). 240 kHz (μ = 4) carries only SS/PBCH blocks in FR2-1 and no data channel, so
//! it has no N_RB: asking for it is an error, as is every blank cell of the tables.

use super::{NrError, SUBCARRIERS_PER_RB, SYMBOLS_PER_SLOT};

/// Nanoseconds in one 1 ms subframe (TS 38.211 §4.3.1).
pub const SUBFRAME_NS: u64 = 1_000_000;

/// Subframes in one 10 ms frame (TS 38.211 §4.3.1).
pub const SUBFRAMES_PER_FRAME: u32 = 10;

/// An NR numerology μ in 0..=4 with the normal cyclic prefix (TS 38.211 Table 4.2-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Numerology(u8);

impl Numerology {
    /// Highest numerology of TS 38.211 Table 4.2-1 (Release 15/16).
    pub const MAX_MU: u8 = 4;

    /// Numerology μ; fails outside 0..=4.
    pub fn new(mu: u8) -> Result<Self, NrError> {
        if mu > Self::MAX_MU {
            return Err(NrError::Numerology { mu });
        }
        Ok(Numerology(mu))
    }

    /// The numerology whose subcarrier spacing is `scs_khz` (15, 30, 60, 120 or 240 kHz).
    pub fn from_scs_khz(scs_khz: u32) -> Result<Self, NrError> {
        (0..=Self::MAX_MU)
            .map(Numerology)
            .find(|n| n.scs_khz() == scs_khz)
            .ok_or(NrError::SubcarrierSpacing { scs_khz })
    }

    /// μ.
    pub fn mu(self) -> u8 {
        self.0
    }

    /// Subcarrier spacing Δf = 2^μ · 15 kHz, kHz.
    pub fn scs_khz(self) -> u32 {
        15 << self.0
    }

    /// Bandwidth of one resource block, 12 subcarriers, Hz.
    pub fn rb_bandwidth_hz(self) -> u32 {
        SUBCARRIERS_PER_RB * self.scs_khz() * 1000
    }

    /// Slots per 1 ms subframe, 2^μ.
    pub fn slots_per_subframe(self) -> u32 {
        1 << self.0
    }

    /// Slots per 10 ms frame, 10 · 2^μ.
    pub fn slots_per_frame(self) -> u32 {
        SUBFRAMES_PER_FRAME * self.slots_per_subframe()
    }

    /// Slots per second.
    pub fn slots_per_second(self) -> u64 {
        1000 * u64::from(self.slots_per_subframe())
    }

    /// Duration of one slot, 1 ms / 2^μ, nanoseconds (exact for every μ ≤ 4).
    pub fn slot_ns(self) -> u64 {
        SUBFRAME_NS >> self.0
    }

    /// Average duration of one OFDM symbol including its cyclic prefix, T_s^μ = 10⁻³ / (14 ·
    /// 2^μ) s as TS 38.306 §4.1.2 uses it, seconds.
    pub fn average_symbol_s(self) -> f64 {
        1e-3 / f64::from(u32::from(SYMBOLS_PER_SLOT) * self.slots_per_subframe())
    }
}

/// Frequency range (TS 38.104 §5.1): FR1 (410–7125 MHz) or FR2-1 (24.25–52.6 GHz).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrequencyRange {
    Fr1,
    Fr2,
}

impl std::fmt::Display for FrequencyRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FrequencyRange::Fr1 => "FR1",
            FrequencyRange::Fr2 => "FR2",
        })
    }
}

/// Channel bandwidths of TS 38.101-1 Table 5.3.2-1, MHz (the table's columns).
pub const FR1_BANDWIDTHS_MHZ: [u32; 15] =
    [5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 60, 70, 80, 90, 100];

/// N_RB of TS 38.101-1 Table 5.3.2-1, rows 15, 30 and 60 kHz; 0 where the table says N/A.
const FR1_N_RB: [[u16; 15]; 3] = [
    [25, 52, 79, 106, 133, 160, 188, 216, 242, 270, 0, 0, 0, 0, 0],
    [
        11, 24, 38, 51, 65, 78, 92, 106, 119, 133, 162, 189, 217, 245, 273,
    ],
    [0, 11, 18, 24, 31, 38, 44, 51, 58, 65, 79, 93, 107, 121, 135],
];

/// Channel bandwidths of TS 38.101-2 Table 5.3.2-1, MHz.
pub const FR2_BANDWIDTHS_MHZ: [u32; 4] = [50, 100, 200, 400];

/// N_RB of TS 38.101-2 Table 5.3.2-1, rows 60 and 120 kHz; 0 where the table says N/A.
const FR2_N_RB: [[u16; 4]; 2] = [[66, 132, 264, 0], [32, 66, 132, 264]];

/// Maximum transmission bandwidth N_RB of a channel of `bandwidth_mhz` with the subcarrier
/// spacing of `numerology` in frequency range `fr` (TS 38.101-1/-2 Table 5.3.2-1). Every
/// combination the tables leave blank, and every bandwidth they do not list, is an error.
pub fn n_rb(
    fr: FrequencyRange,
    numerology: Numerology,
    bandwidth_mhz: u32,
) -> Result<u16, NrError> {
    let (row, column) = match fr {
        FrequencyRange::Fr1 => (
            Some(numerology.mu())
                .filter(|mu| *mu <= 2)
                .map(|mu| &FR1_N_RB[usize::from(mu)][..]),
            FR1_BANDWIDTHS_MHZ.iter().position(|b| *b == bandwidth_mhz),
        ),
        FrequencyRange::Fr2 => (
            numerology
                .mu()
                .checked_sub(2)
                .filter(|i| *i <= 1)
                .map(|i| &FR2_N_RB[usize::from(i)][..]),
            FR2_BANDWIDTHS_MHZ.iter().position(|b| *b == bandwidth_mhz),
        ),
    };
    match (row, column) {
        (Some(row), Some(column)) if row[column] > 0 => Ok(row[column]),
        _ => Err(NrError::Bandwidth {
            fr,
            scs_khz: numerology.scs_khz(),
            bandwidth_mhz,
        }),
    }
}

/// One NR carrier: frequency range, numerology and channel bandwidth, with its N_RB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Carrier {
    fr: FrequencyRange,
    numerology: Numerology,
    bandwidth_mhz: u32,
    n_rb: u16,
}

impl Carrier {
    /// A carrier whose combination of range, spacing and bandwidth the tables list.
    pub fn new(
        fr: FrequencyRange,
        numerology: Numerology,
        bandwidth_mhz: u32,
    ) -> Result<Self, NrError> {
        Ok(Carrier {
            fr,
            numerology,
            bandwidth_mhz,
            n_rb: n_rb(fr, numerology, bandwidth_mhz)?,
        })
    }

    pub fn frequency_range(&self) -> FrequencyRange {
        self.fr
    }

    pub fn numerology(&self) -> Numerology {
        self.numerology
    }

    pub fn bandwidth_mhz(&self) -> u32 {
        self.bandwidth_mhz
    }

    /// Transmission bandwidth, resource blocks.
    pub fn n_rb(&self) -> u16 {
        self.n_rb
    }

    /// Occupied share of the channel bandwidth, N_RB · 12 · Δf / BW (the rest is guard band,
    /// TS 38.101-1 §5.3.3).
    pub fn spectrum_utilisation(&self) -> f64 {
        f64::from(self.n_rb) * f64::from(self.numerology.rb_bandwidth_hz())
            / (f64::from(self.bandwidth_mhz) * 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mu(m: u8) -> Numerology {
        Numerology::new(m).unwrap()
    }

    #[test]
    fn numerologies_of_table_4_2_1() {
        let rows: Vec<_> = (0..=4)
            .map(|m| {
                let n = mu(m);
                (
                    n.scs_khz(),
                    n.slots_per_subframe(),
                    n.slots_per_frame(),
                    n.slot_ns(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                (15, 1, 10, 1_000_000),
                (30, 2, 20, 500_000),
                (60, 4, 40, 250_000),
                (120, 8, 80, 125_000),
                (240, 16, 160, 62_500),
            ]
        );
        for m in 0..=4 {
            // Slots tile the subframe exactly: no nanosecond is lost to rounding.
            assert_eq!(
                mu(m).slot_ns() * u64::from(mu(m).slots_per_subframe()),
                SUBFRAME_NS
            );
        }
        assert!(Numerology::new(5).is_err());
        assert_eq!(Numerology::from_scs_khz(120), Ok(mu(3)));
        assert!(Numerology::from_scs_khz(45).is_err());
    }

    #[test]
    fn fr1_table_spot_values() {
        let fr1 = FrequencyRange::Fr1;
        assert_eq!(n_rb(fr1, mu(0), 5), Ok(25));
        assert_eq!(n_rb(fr1, mu(0), 20), Ok(106));
        assert_eq!(n_rb(fr1, mu(0), 50), Ok(270));
        assert_eq!(n_rb(fr1, mu(1), 40), Ok(106));
        assert_eq!(n_rb(fr1, mu(1), 100), Ok(273));
        assert_eq!(n_rb(fr1, mu(1), 35), Ok(92));
        assert_eq!(n_rb(fr1, mu(2), 10), Ok(11));
        assert_eq!(n_rb(fr1, mu(2), 100), Ok(135));
        // N/A cells, bandwidths the table does not list, and spacings of FR2 only.
        assert!(n_rb(fr1, mu(0), 60).is_err());
        assert!(n_rb(fr1, mu(2), 5).is_err());
        assert!(n_rb(fr1, mu(1), 12).is_err());
        assert!(n_rb(fr1, mu(3), 100).is_err());
    }

    #[test]
    fn every_cell_of_both_tables() {
        let mut valid = 0;
        for m in 0..=4 {
            for b in FR1_BANDWIDTHS_MHZ {
                valid += usize::from(n_rb(FrequencyRange::Fr1, mu(m), b).is_ok());
            }
            for b in FR2_BANDWIDTHS_MHZ {
                valid += usize::from(n_rb(FrequencyRange::Fr2, mu(m), b).is_ok());
            }
        }
        // FR1: 10 + 15 + 14 cells; FR2: 3 + 4.
        assert_eq!(valid, 39 + 7);
        // Every listed N_RB fits its channel with a guard band, as TS 38.101 requires.
        for fr in [FrequencyRange::Fr1, FrequencyRange::Fr2] {
            for m in 0..=4 {
                for b in FR1_BANDWIDTHS_MHZ.iter().chain(&FR2_BANDWIDTHS_MHZ) {
                    if let Ok(c) = Carrier::new(fr, mu(m), *b) {
                        assert!(c.spectrum_utilisation() < 1.0 && c.spectrum_utilisation() > 0.75);
                    }
                }
            }
        }
    }

    #[test]
    fn fr2_table_spot_values() {
        let fr2 = FrequencyRange::Fr2;
        assert_eq!(n_rb(fr2, mu(2), 50), Ok(66));
        assert_eq!(n_rb(fr2, mu(2), 200), Ok(264));
        assert_eq!(n_rb(fr2, mu(3), 100), Ok(66));
        assert_eq!(n_rb(fr2, mu(3), 400), Ok(264));
        assert!(n_rb(fr2, mu(2), 400).is_err());
        assert!(n_rb(fr2, mu(4), 100).is_err());
        assert!(n_rb(fr2, mu(1), 100).is_err());
    }
}
