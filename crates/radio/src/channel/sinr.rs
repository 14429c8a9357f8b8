//! Link budget, noise, interference, SINR, and the RSRP/RSRQ measurements of TS 36.214.
//!
//! Received power of a cell at a UE (all in dB units):
//!
//! ```text
//! P_rx [dBm] = P_tx [dBm] + G_antenna [dB] − PL [dB] − S [dB] + F [dB]
//! ```
//!
//! with P_tx the cell's total transmit power over its transmission bandwidth, G the sum of the
//! antenna gains, PL the path loss, S the shadowing (counted as loss) and F the fast-fading
//! power gain. Noise over a bandwidth B is `−174 dBm/Hz + 10·log10(B) + NF`: −174 dBm/Hz is the
//! thermal noise density kT at 290 K (−173.98 dBm/Hz) as rounded in 3GPP evaluations.
//!
//! SINR of the serving cell s, with the other cells' received powers weighted by their load
//! (the fraction of PRBs they transmit on in the TTI, 0..=1):
//!
//! ```text
//! SINR = P_s / (Σ_(c≠s) load_c · P_c + N)        (linear powers, mW)
//! ```
//!
//! Signal, interference and noise must refer to the same bandwidth: pass the noise over the
//! N_PRB × 180 kHz the transmit power is spread on ([`noise_power_dbm`]). This is a wideband
//! SINR: every PRB of the carrier sees the same value.
//!
//! Measurements for handover, TS 36.214 §5.1.1 and §5.1.3 (one cell-specific reference-signal
//! port, all resource elements at the same energy):
//! * RSRP: the power of one resource element carrying cell-specific reference signals,
//!   `P_rx / (12·N_PRB)`.
//! * E-UTRA carrier RSSI: total received power over the N_PRB resource blocks in an OFDM symbol
//!   carrying reference signals, from all cells plus noise. In such a symbol a cell transmits
//!   its 2 reference-signal REs per RB (antenna port 0, TS 36.211 §6.10.1.2) and, on the PRBs it
//!   uses, its 10 data REs, so it contributes `P_c · (2 + 10·load_c) / 12`.
//! * RSRQ = N_PRB × RSRP / RSSI. A lone unloaded cell without noise gives 1/2 (−3.01 dB), a
//!   fully loaded one 1/12 (−10.79 dB), the usual bounds.

use super::ChannelError;
use crate::phy::{PRB_BANDWIDTH_HZ, SUBCARRIERS_PER_PRB};

/// Thermal noise power spectral density, dBm per hertz.
pub const THERMAL_NOISE_DBM_PER_HZ: f64 = -174.0;

/// Reference-signal REs per resource block in an OFDM symbol that carries them, one antenna
/// port (TS 36.211 §6.10.1.2: every sixth subcarrier).
const RS_RES_PER_PRB: f64 = 2.0;

/// dBm → mW, as `exp(dBm·ln10/10)` (cheaper than `powf`).
pub(super) fn to_mw(dbm: f64) -> f64 {
    (dbm * (std::f64::consts::LN_10 / 10.0)).exp()
}

/// mW → dBm.
pub(super) fn to_dbm(mw: f64) -> f64 {
    10.0 * mw.log10()
}

/// Thermal noise over `bandwidth_hz` (Hz, > 0) at receiver noise figure `noise_figure_db`
/// (dB, 0..=30): `−174 + 10·log10(B) + NF`, dBm.
pub fn thermal_noise_dbm(bandwidth_hz: f64, noise_figure_db: f64) -> Result<f64, ChannelError> {
    let b =
        ChannelError::check_positive("bandwidth_hz", bandwidth_hz, "a positive bandwidth in Hz")?;
    let nf = ChannelError::check(
        "noise_figure_db",
        noise_figure_db,
        0.0,
        30.0,
        "a noise figure in [0, 30] dB",
    )?;
    Ok(THERMAL_NOISE_DBM_PER_HZ + 10.0 * b.log10() + nf)
}

/// Thermal noise over `n_prb` PRBs (N_PRB × 180 kHz), dBm; for 50 PRBs and NF 9 dB, −95.46 dBm.
pub fn noise_power_dbm(n_prb: u32, noise_figure_db: f64) -> Result<f64, ChannelError> {
    check_prbs(n_prb)?;
    thermal_noise_dbm(f64::from(n_prb) * PRB_BANDWIDTH_HZ, noise_figure_db)
}

pub(super) fn check_prbs(n_prb: u32) -> Result<f64, ChannelError> {
    if n_prb == 0 {
        return Err(ChannelError::OutOfRange {
            param: "n_prb",
            value: 0.0,
            expected: "at least one PRB",
        });
    }
    Ok(f64::from(n_prb))
}

/// The terms of one cell → UE link budget, dB units.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinkBudget {
    /// Total transmit power of the cell over its transmission bandwidth, dBm.
    pub tx_power_dbm: f64,
    /// Transmit plus receive antenna gain, dB (dBi).
    pub antenna_gain_db: f64,
    /// Path loss, dB.
    pub path_loss_db: f64,
    /// Shadowing, dB, counted as extra loss.
    pub shadowing_db: f64,
    /// Fast-fading power gain, dB (0 without fading).
    pub fading_gain_db: f64,
}

impl LinkBudget {
    /// Received power `P_tx + G − PL − S + F`, dBm.
    pub fn rx_power_dbm(&self) -> f64 {
        self.tx_power_dbm + self.antenna_gain_db - self.path_loss_db - self.shadowing_db
            + self.fading_gain_db
    }
}

/// What a UE receives from one cell in a TTI.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellSignal {
    /// Received power when the cell transmits on all its PRBs, dBm.
    pub rx_power_dbm: f64,
    /// Fraction of the cell's PRBs in use, 0..=1 (PRB utilisation).
    pub load: f64,
}

pub(super) fn check_load(load: f64) -> Result<f64, ChannelError> {
    ChannelError::check("load", load, 0.0, 1.0, "a PRB utilisation in [0, 1]")
}

/// SINR of cell `serving` among `cells` with noise `noise_dbm` (over the same bandwidth as the
/// received powers), dB. The serving cell's own load does not matter.
pub fn sinr_db(cells: &[CellSignal], serving: usize, noise_dbm: f64) -> Result<f64, ChannelError> {
    let signal = cells.get(serving).ok_or(ChannelError::NoSuchCell {
        index: serving,
        cells: cells.len(),
    })?;
    let mut interference_mw = 0.0;
    for (i, c) in cells.iter().enumerate() {
        let load = check_load(c.load)?;
        if i != serving {
            interference_mw += load * to_mw(c.rx_power_dbm);
        }
    }
    Ok(signal.rx_power_dbm - to_dbm(interference_mw + to_mw(noise_dbm)))
}

/// RSRP of a cell received at `rx_power_dbm` (total over `n_prb` PRBs): the power of one
/// resource element, `P_rx − 10·log10(12·N_PRB)`, dBm.
pub fn rsrp_dbm(rx_power_dbm: f64, n_prb: u32) -> Result<f64, ChannelError> {
    let n = check_prbs(n_prb)?;
    Ok(rx_power_dbm - 10.0 * (f64::from(SUBCARRIERS_PER_PRB) * n).log10())
}

/// E-UTRA carrier RSSI over `n_prb` PRBs in a reference-signal symbol, dBm: every cell's
/// `P_c·(2 + 10·load_c)/12` plus `noise_dbm` (noise over the same N_PRB × 180 kHz).
pub fn rssi_dbm(cells: &[CellSignal], n_prb: u32, noise_dbm: f64) -> Result<f64, ChannelError> {
    check_prbs(n_prb)?;
    let per_prb = f64::from(SUBCARRIERS_PER_PRB);
    let mut total_mw = to_mw(noise_dbm);
    for c in cells {
        let load = check_load(c.load)?;
        let active_res = RS_RES_PER_PRB + (per_prb - RS_RES_PER_PRB) * load;
        total_mw += to_mw(c.rx_power_dbm) * active_res / per_prb;
    }
    Ok(to_dbm(total_mw))
}

/// RSRQ = N_PRB × RSRP / RSSI, dB.
pub fn rsrq_db(rsrp_dbm: f64, rssi_dbm: f64, n_prb: u32) -> Result<f64, ChannelError> {
    let n = check_prbs(n_prb)?;
    Ok(10.0 * n.log10() + rsrp_dbm - rssi_dbm)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::{LosCondition, PathLoss, UrbanMacro};

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() < tol
    }

    #[test]
    fn thermal_noise_hand_computed() {
        // 10 MHz, NF 9 dB: −174 + 70 + 9 = −95 dBm.
        assert!(close(thermal_noise_dbm(10e6, 9.0).unwrap(), -95.0, 1e-12));
        // 50 PRBs = 9 MHz: −174 + 69.5424 + 9 = −95.4576 dBm.
        assert!(close(noise_power_dbm(50, 9.0).unwrap(), -95.457_575, 1e-5));
        assert!(thermal_noise_dbm(0.0, 9.0).is_err());
        assert!(thermal_noise_dbm(1e6, -1.0).is_err());
        assert!(noise_power_dbm(0, 9.0).is_err());
    }

    #[test]
    fn single_cell_sinr_equals_the_link_budget() {
        // 46 dBm, 15 dBi, UMa NLOS at 2 GHz and 500 m (125.0551 dB), shadowing 3 dB, no fading.
        let pl = UrbanMacro::with_default_heights(2e9, LosCondition::Nlos)
            .unwrap()
            .path_loss_db(500.0);
        let link = LinkBudget {
            tx_power_dbm: 46.0,
            antenna_gain_db: 15.0,
            path_loss_db: pl,
            shadowing_db: 3.0,
            fading_gain_db: 0.0,
        };
        let rx = link.rx_power_dbm();
        assert!(close(rx, 46.0 + 15.0 - 125.0551 - 3.0, 1e-3));
        let noise = noise_power_dbm(50, 9.0).unwrap();
        let alone = [CellSignal {
            rx_power_dbm: rx,
            load: 1.0,
        }];
        let sinr = sinr_db(&alone, 0, noise).unwrap();
        // −67.0551 − (−95.4576) = 28.4025 dB.
        assert!(close(sinr, rx - noise, 1e-9));
        assert!(close(sinr, 28.4025, 1e-3));
        // An idle neighbour does not interfere.
        let with_idle = [
            alone[0],
            CellSignal {
                rx_power_dbm: rx + 10.0,
                load: 0.0,
            },
        ];
        assert!(close(sinr_db(&with_idle, 0, noise).unwrap(), sinr, 1e-12));
    }

    #[test]
    fn interference_scales_with_load() {
        let cells = |load| {
            [
                CellSignal {
                    rx_power_dbm: -70.0,
                    load: 0.3,
                },
                CellSignal {
                    rx_power_dbm: -70.0,
                    load,
                },
            ]
        };
        let noise = -200.0; // negligible
        assert!(close(sinr_db(&cells(1.0), 0, noise).unwrap(), 0.0, 1e-9));
        assert!(close(sinr_db(&cells(0.5), 0, noise).unwrap(), 3.0103, 1e-4));
        // Interference plus noise: equal interferer at full load and noise at −70 dBm → −3.01 dB.
        assert!(close(
            sinr_db(&cells(1.0), 0, -70.0).unwrap(),
            -3.0103,
            1e-4
        ));
        let mut prev = f64::INFINITY;
        for tenth in 0..=10 {
            let s = sinr_db(&cells(f64::from(tenth) / 10.0), 0, -100.0).unwrap();
            assert!(s < prev);
            prev = s;
        }
    }

    #[test]
    fn sinr_rejects_bad_input() {
        let cells = [CellSignal {
            rx_power_dbm: -70.0,
            load: 1.5,
        }];
        assert!(matches!(
            sinr_db(&cells, 0, -100.0),
            Err(ChannelError::OutOfRange { param: "load", .. })
        ));
        assert_eq!(
            sinr_db(&[], 0, -100.0),
            Err(ChannelError::NoSuchCell { index: 0, cells: 0 })
        );
        let e = sinr_db(&[], 2, -100.0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "serving: cell index 2 is out of range; 0 cells were given"
        );
    }

    #[test]
    fn rsrp_is_power_per_resource_element() {
        // −62 dBm over 50 PRBs = 600 REs: −62 − 27.7815 = −89.7815 dBm.
        assert!(close(rsrp_dbm(-62.0, 50).unwrap(), -89.781_512_5, 1e-6));
        assert!(rsrp_dbm(-62.0, 0).is_err());
    }

    #[test]
    fn rsrq_bounds_and_interference() {
        let n = 50;
        let no_noise = -300.0;
        let rx = -80.0;
        let rsrp = rsrp_dbm(rx, n).unwrap();
        let rsrq = |cells: &[CellSignal], noise| {
            rsrq_db(rsrp, rssi_dbm(cells, n, noise).unwrap(), n).unwrap()
        };
        let idle = [CellSignal {
            rx_power_dbm: rx,
            load: 0.0,
        }];
        let full = [CellSignal {
            rx_power_dbm: rx,
            load: 1.0,
        }];
        // 1/2 for an idle cell, 1/12 for a fully loaded one.
        assert!(close(rsrq(&idle, no_noise), -3.0103, 1e-4));
        assert!(close(rsrq(&full, no_noise), -10.7918, 1e-4));
        // An equal, fully loaded neighbour doubles the RSSI of a fully loaded serving cell.
        let two = [
            full[0],
            CellSignal {
                rx_power_dbm: rx,
                load: 1.0,
            },
        ];
        assert!(close(rsrq(&two, no_noise), -10.7918 - 3.0103, 1e-4));
        // Noise lowers RSRQ.
        assert!(rsrq(&full, -90.0) < rsrq(&full, no_noise));
        assert!(rssi_dbm(
            &[CellSignal {
                rx_power_dbm: rx,
                load: -0.1
            }],
            n,
            no_noise
        )
        .is_err());
    }
}
