//! NR SS-RSRQ (TS 38.215 §5.1.3) and the NR carrier RSSI it divides by, for a UE that has no
//! SS-RSSI-Measurement configured.
//!
//! What the clauses say (TS 38.215 §5.1.3, as stored in the reference text this was written
//! from):
//!
//! * SS-RSRQ is the ratio N × SS-RSRP / NR carrier RSSI, N the number of resource blocks of
//!   the NR carrier RSSI measurement bandwidth; numerator and denominator are to be measured
//!   over the same set of resource blocks.
//! * The NR carrier RSSI is the linear average of the total received power (W) observed only
//!   in certain OFDM symbols of the measurement time resources, in the measurement bandwidth
//!   over the N resource blocks, from all sources: co-channel serving and non-serving cells,
//!   adjacent-channel interference, thermal noise. Outside cell selection its time resources
//!   lie within the SMTC window (the SS/PBCH block measurement time configuration). With
//!   SS-RSSI-Measurement (TS 38.331 `measurementSlots`, `endSymbol`) the symbols are those of
//!   the indicated slots given by Table 5.1.3-1; without it they are "OFDM symbols within SMTC
//!   window duration" (the stored text breaks off in the clause on measurement gaps there).
//! * SS-RSRP (§5.1.1) is the linear average power of the REs carrying the SSS (optionally also
//!   the PBCH DM-RS) of the SS/PBCH block.
//!
//! TS 38.211 §7.4.3.1 (Table 7.4.3.1-1): the SS/PBCH block is 240 contiguous subcarriers (20
//! RBs) by 4 OFDM symbols. Symbol 0 carries the PSS on subcarriers 56–182 and zeros on the
//! other 113; symbols 1 and 3 carry PBCH (with its DM-RS every fourth subcarrier) on all 240;
//! symbol 2 carries the SSS on 56–182, PBCH on 0–47 and 192–239, and zeros on 48–55 and
//! 183–191. So 127 + 240 + 223 + 240 = 830 of the block's 960 REs carry power. The UE may
//! assume that the REs of a resource block overlapping the SS/PBCH block and not used by it
//! are zero in the block's symbols, and TS 38.214 §5.1.4 takes those resource blocks away from
//! PDSCH there.
//!
//! What the text leaves open, and what is assumed here:
//!
//! * **Measurement bandwidth: the SS/PBCH block's 20 RBs (N = 20).** The text does not give N,
//!   but it asks for the numerator and the denominator over the same resource blocks, and
//!   SS-RSRP exists only on the block's SSS (and PBCH DM-RS) REs, inside its 20 RBs. MATLAB's
//!   `nrSSBMeasurements` measures all three quantities on the 240 × 4 grid of one block.
//! * **Time resources: the SS/PBCH block's 4 symbols.** Which of the SMTC window's symbols a
//!   UE uses is not specified; the block's own symbols are the ones it always has, as in
//!   `nrSSBMeasurements`.
//! * **The cells are synchronised and their blocks coincide**: an intra-frequency SSB
//!   measurement is one where serving and neighbour blocks have the same centre frequency and
//!   subcarrier spacing (TS 38.300 §9.2.4), and the cells of a network start their slot grids
//!   together, so in those 20 RBs and 4 symbols every cell sends its own block and nothing
//!   else. **Load therefore does not enter:** a lone cell measures 20 / 207.5 (−10.16 dB)
//!   idle or full, where LTE's CRS symbol gives −3.01 to −10.79 dB. This is the known property
//!   of SSB-based RSSI in a synchronised network that SS-RSSI-Measurement exists to change;
//!   that configuration is not modelled.
//! * **All SS/PBCH REs at the SS-RSRP's energy** (PSS-to-SSS EPRE ratio 0 dB, one of the two
//!   TS 38.213 §4.1 allows; PBCH and its DM-RS at the SSS's EPRE), one block per cell, no
//!   beam sweep.
//! * **Noise** over the block's 240 subcarriers at the per-RE noise of the cell's carrier.
//!   With flat power spectral densities, N × SS-RSRP / RSSI does not depend on the block's
//!   subcarrier spacing, so a carrier of fewer than 20 RBs (11 at 30 kHz in 5 MHz, whose block
//!   would use 15 kHz) measures the same.
//!
//! TS 38.300 §9.2.4, TS 38.213 §4.1 and TS 38.214 §5.1.4 are cited from the specifications;
//! the reference text searched held none of them. The zero REs of the block's resource blocks
//! are in the stored TS 38.211 §7.4.3.1 and are what the model rests on.
//!
//! 5G-LENA, read at commit 25752db9 of its GitHub mirror, sets NR RSRQ to 0 ("not supported"),
//! so it offers no definition to follow.

use super::sinr::{check_load, check_prbs, to_dbm, to_mw, CellSignal};
use super::ChannelError;
use crate::phy::SUBCARRIERS_PER_PRB;

/// Resource blocks of an SS/PBCH block, the SS-RSRQ measurement bandwidth N (TS 38.211
/// §7.4.3.1: 240 subcarriers).
pub const SSB_RBS: u32 = 20;

/// Subcarriers of an SS/PBCH block (TS 38.211 §7.4.3.1).
pub const SSB_SUBCARRIERS: u32 = SSB_RBS * SUBCARRIERS_PER_PRB;

/// REs carrying power in each of the SS/PBCH block's 4 OFDM symbols (TS 38.211 Table
/// 7.4.3.1-1): PSS on 127; PBCH on 240; SSS on 127 and PBCH on 2 × 48; PBCH on 240. The rest
/// of the 240 are set to zero.
pub const SSB_POWERED_RES_PER_SYMBOL: [u32; 4] = [127, 240, 127 + 2 * 48, 240];

/// REs per symbol, averaged over the block's 4 symbols, that carry its power: 830 / 4 = 207.5.
fn ssb_res_per_symbol() -> f64 {
    let total: u32 = SSB_POWERED_RES_PER_SYMBOL.iter().sum();
    f64::from(total) / SSB_POWERED_RES_PER_SYMBOL.len() as f64
}

/// NR carrier RSSI over the SS/PBCH block's 20 RBs in its 4 OFDM symbols, dBm: the average
/// over the symbols of every cell's 207.5 powered REs at its SS-RSRP, plus the noise of 240
/// subcarriers at the carrier's per-RE noise (`carrier_noise_dbm` over its `n_rb` RBs).
///
/// `ss_rsrp` holds per cell of the carrier its SS-RSRP in `rx_power_dbm` (dBm per RE, −∞ when
/// not received) and its PRB load, checked (0..=1) but not used: in the block's symbols its
/// resource blocks carry no PDSCH (TS 38.214 §5.1.4), so no cell's data falls in the band.
pub fn nr_carrier_rssi_dbm(
    ss_rsrp: &[CellSignal],
    carrier_noise_dbm: f64,
    n_rb: u32,
) -> Result<f64, ChannelError> {
    let carrier_subcarriers = f64::from(SUBCARRIERS_PER_PRB) * check_prbs(n_rb)?;
    let noise_mw = to_mw(carrier_noise_dbm) * f64::from(SSB_SUBCARRIERS) / carrier_subcarriers;
    let per_symbol = ssb_res_per_symbol();
    let mut total_mw = noise_mw;
    for c in ss_rsrp {
        check_load(c.load)?;
        total_mw += to_mw(c.rx_power_dbm) * per_symbol;
    }
    Ok(to_dbm(total_mw))
}

/// SS-RSRQ = N × SS-RSRP / NR carrier RSSI with N = [`SSB_RBS`], dB (TS 38.215 §5.1.3), from
/// the cell's SS-RSRP (dBm per RE) and the RSSI of [`nr_carrier_rssi_dbm`].
pub fn ss_rsrq_db(ss_rsrp_dbm: f64, rssi_dbm: f64) -> f64 {
    10.0 * f64::from(SSB_RBS).log10() + ss_rsrp_dbm - rssi_dbm
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::thermal_noise_dbm;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() < tol
    }

    const NO_NOISE: f64 = -300.0;
    /// 20 MHz at 30 kHz: 51 RBs (TS 38.101-1 Table 5.3.2-1).
    const N_RB: u32 = 51;

    fn at(rx_power_dbm: f64, load: f64) -> CellSignal {
        CellSignal { rx_power_dbm, load }
    }

    fn rsrq(own: f64, cells: &[CellSignal], noise: f64) -> f64 {
        ss_rsrq_db(own, nr_carrier_rssi_dbm(cells, noise, N_RB).unwrap())
    }

    #[test]
    fn the_block_powers_830_of_its_960_res() {
        assert_eq!(SSB_SUBCARRIERS, 240);
        assert_eq!(SSB_POWERED_RES_PER_SYMBOL.iter().sum::<u32>(), 830);
        assert_eq!(ssb_res_per_symbol(), 207.5);
    }

    #[test]
    fn a_lone_cell_measures_20_over_207_5_idle_or_full() {
        // RSSI = −80 + 10·log10(207.5) = −56.8298 dBm; SS-RSRQ = 10·log10(20 / 207.5)
        // = −10.1599 dB, against LTE's −3.01 (idle) to −10.79 dB (full).
        let idle = [at(-80.0, 0.0)];
        let rssi = nr_carrier_rssi_dbm(&idle, NO_NOISE, N_RB).unwrap();
        assert!(close(rssi, -56.829_819, 1e-5), "{rssi}");
        assert!(close(rsrq(-80.0, &idle, NO_NOISE), -10.159_881, 1e-5));
        // Full load: the block's RBs carry no PDSCH in its symbols, the same figure.
        let full = [at(-80.0, 1.0)];
        assert_eq!(rsrq(-80.0, &full, NO_NOISE), rsrq(-80.0, &idle, NO_NOISE));
        // Nor does the RSRP level or the carrier's width matter without noise.
        let wide = ss_rsrq_db(
            -95.0,
            nr_carrier_rssi_dbm(&[at(-95.0, 0.5)], NO_NOISE, 273).unwrap(),
        );
        assert!(close(wide, -10.159_881, 1e-5), "{wide}");
    }

    #[test]
    fn neighbours_count_at_their_rsrp_whatever_their_load() {
        // An equal neighbour doubles the RSSI: 10·log10(20 / 415) = −13.1702 dB, idle or full.
        for load in [0.0, 1.0] {
            let two = [at(-80.0, 0.0), at(-80.0, load)];
            assert!(close(rsrq(-80.0, &two, NO_NOISE), -13.170_181, 1e-5));
        }
        // A neighbour at (200/300)² of the cell's power (free space at 200 and 300 m):
        // 20 / (207.5 · (1 + 4/9)) → −11.7569 dB.
        let p1 = -80.0 + 20.0 * (200.0f64 / 300.0).log10();
        let cells = [at(-80.0, 0.3), at(p1, 1.0)];
        assert!(close(rsrq(-80.0, &cells, NO_NOISE), -11.756_889, 1e-5));
        // The neighbour's own SS-RSRQ shares the RSSI: the two differ by the RSRP difference.
        let diff = rsrq(-80.0, &cells, NO_NOISE) - rsrq(p1, &cells, NO_NOISE);
        assert!(close(diff, -80.0 - p1, 1e-9), "{diff}");
        // A cell that is not received adds nothing.
        let unseen = [at(-80.0, 0.0), at(f64::NEG_INFINITY, 1.0)];
        assert_eq!(
            rsrq(-80.0, &unseen, NO_NOISE),
            rsrq(-80.0, &unseen[..1], NO_NOISE)
        );
    }

    #[test]
    fn noise_is_counted_over_the_blocks_240_subcarriers() {
        // 51 RBs at 30 kHz, NF 9 dB: −174 + 10·log10(18.36 MHz) + 9 = −92.3613 dBm over the
        // carrier, −120.2288 dBm per RE, −96.4267 dBm over 240 subcarriers.
        let noise = thermal_noise_dbm(51.0 * 360e3, 9.0).unwrap();
        assert!(close(noise, -92.361_273, 1e-5), "{noise}");
        let alone = nr_carrier_rssi_dbm(&[], noise, N_RB).unwrap();
        assert!(close(alone, -96.426_675, 1e-5), "{alone}");
        // A block whose 207.5 REs per symbol carry as much as the noise: RSSI doubles, SS-RSRQ
        // = 20 / 415 = −13.1702 dB.
        let rsrp = alone - 10.0 * 207.5f64.log10();
        assert!(close(
            rsrq(rsrp, &[at(rsrp, 1.0)], noise),
            -13.170_181,
            1e-5
        ));
        // The same noise power spectral density on a 273-RB carrier: the same figure.
        let wide_noise = noise + 10.0 * (273.0f64 / 51.0).log10();
        let wide = ss_rsrq_db(
            rsrp,
            nr_carrier_rssi_dbm(&[at(rsrp, 0.0)], wide_noise, 273).unwrap(),
        );
        assert!(close(wide, -13.170_181, 1e-5), "{wide}");
    }

    #[test]
    fn bad_input_is_refused() {
        assert!(matches!(
            nr_carrier_rssi_dbm(&[at(-80.0, 1.5)], NO_NOISE, N_RB),
            Err(ChannelError::OutOfRange { param: "load", .. })
        ));
        assert!(matches!(
            nr_carrier_rssi_dbm(&[at(-80.0, 0.0)], NO_NOISE, 0),
            Err(ChannelError::OutOfRange { param: "n_prb", .. })
        ));
    }
}
