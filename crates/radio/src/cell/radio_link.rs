//! The downlink radio link of one UE: its SINR in each TTI and the wideband CQI reports the
//! scheduler sees.
//!
//! "TTI" here is the cell's scheduling unit: the 1 ms subframe of LTE, the slot of NR
//! (`air.rs`); the fading is sampled on that grid and the CQI period and delay count in it.
//!
//! SINR in TTI k (all powers over the carrier's N_RB × 180 kHz, `channel::sinr`):
//!
//! ```text
//! S(k) = P_tx + G − PL(d) − Sh(position) + F(k)                         dBm
//! SINR(k) = S(k) − 10·log10(Σ_i load_i·10^((P_i − PL(d_i))/10) + N)   dB
//! ```
//!
//! with PL the cell's path-loss model at the UE's distance, Sh the correlated log-normal
//! shadowing (updated when the UE moves), F the Rayleigh fading gain sampled at TTI k, and the
//! interferers seen through the same path-loss model without shadowing or fading (with
//! `probabilistic_los`, each link in its own drawn LOS condition, `los.rs`). The fading
//! process is advanced only in TTIs the cell processes; a gap of g TTIs is crossed in one step
//! with the exact correlation J0(2π f_d g·T) for a TTI of T (`RayleighFading::advance`), so skipping idle
//! TTIs does not change the statistics of the channel.
//!
//! CQI reports (TS 36.213 §7.2.2 periodic wideband reporting, simplified): the UE measures at
//! every TTI m with m mod `cqi_period_tti` = 0 and the scheduler uses the report from TTI
//! m + `cqi_delay_tti` on. Reports that fell in skipped TTIs and still matter (the last one
//! already visible and those in flight) are produced when the UE becomes active again, each on
//! the fading sample of its own TTI. Before the first periodic report is visible the scheduler
//! uses the CQI of the large-scale SINR (no fading), standing for the measurement made at
//! connection set-up.

use std::collections::VecDeque;

use celltcp_engine::RngStream;

use crate::channel::{PathLoss, Position, RayleighFading, Shadowing};
use crate::phy::Cqi;

use super::air::CsiReport;

use super::config::{CellError, LteCellConfig, UeConfig};
use super::los::LinkConditions;

/// dBm → mW.
fn to_mw(dbm: f64) -> f64 {
    10f64.powf(dbm / 10.0)
}

/// Channel state of one UE.
#[derive(Debug)]
pub struct RadioLink {
    position: Position,
    path_loss_db: f64,
    shadowing: Option<Shadowing>,
    shadowing_db: f64,
    /// `None` without fading or at speed 0.
    fading: Option<RayleighFading>,
    /// TTI of the current fading sample and its gain, dB.
    fading_sample: Option<(u64, f64)>,
    /// Interference plus noise, dBm: 10·log10 of their sum in mW, kept in dB because it changes
    /// only when the UE moves or an interferer's load changes, while the SINR is needed in every
    /// TTI the UE is active.
    interference_noise_dbm: f64,
    /// Power received from each interferer at full load, mW, in `cfg.interferers` order (its
    /// transmit power, the antenna gain and the path loss to this position): a load change
    /// rescales these without recomputing path losses.
    interferer_rx_mw: Vec<f64>,
    rng_fading: RngStream,
    rng_shadowing: RngStream,
    /// The fading's sample step, one TTI (or slot), nanoseconds.
    sample_ns: u64,
    /// The links' own LOS conditions with `probabilistic_los` (`los.rs`); otherwise every
    /// link uses the cell's model as configured.
    conditions: Option<LinkConditions>,
}

impl RadioLink {
    /// The link of `ue` in a cell configured by `cfg` with noise `noise_dbm` over the carrier;
    /// `rng_prefix` is the UE's stream path prefix (`cell/NAME/ue/NODE`); the fading is
    /// sampled every `sample_ns` (the cell's TTI or slot).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        cfg: &LteCellConfig,
        ue: &UeConfig,
        noise_dbm: f64,
        seed: u64,
        run: u64,
        rng_prefix: &str,
        sample_ns: u64,
    ) -> Result<Self, CellError> {
        let shadowing = match cfg.shadowing {
            Some((sigma_db, d_m)) => Some(Shadowing::new(sigma_db, d_m)?),
            None => None,
        };
        // Built in every case so that a bad speed is reported even without fading.
        let fading = RayleighFading::new(ue.speed_mps, cfg.carrier_hz, sample_ns)?;
        let fading = (cfg.keys.fading && ue.speed_mps > 0.0).then_some(fading);
        let mut link = RadioLink {
            position: ue.position,
            path_loss_db: 0.0,
            shadowing,
            shadowing_db: 0.0,
            fading,
            fading_sample: None,
            interference_noise_dbm: 0.0,
            interferer_rx_mw: Vec::with_capacity(cfg.interferers.len()),
            rng_fading: RngStream::new(seed, run, &format!("{rng_prefix}/fading")),
            rng_shadowing: RngStream::new(seed, run, &format!("{rng_prefix}/shadowing")),
            sample_ns,
            conditions: cfg.probabilistic_los.then(|| {
                LinkConditions::new(&cfg.pathloss, ue.node, cfg.position, ue.position, seed, run)
            }),
        };
        link.move_to(cfg, ue.position, noise_dbm)?;
        Ok(link)
    }

    /// Moves the UE: new path loss, interference and (one draw) shadowing.
    pub fn move_to(
        &mut self,
        cfg: &LteCellConfig,
        position: Position,
        noise_dbm: f64,
    ) -> Result<(), CellError> {
        if !(position.x_m.is_finite() && position.y_m.is_finite()) {
            return Err(CellError::InvalidConfig {
                key: "ues.position",
                value: format!("{position:?}"),
                expected: "finite coordinates in metres",
            });
        }
        self.position = position;
        let serving = self
            .conditions
            .as_ref()
            .map_or(&cfg.pathloss, |c| c.serving());
        self.path_loss_db = serving.path_loss_db(cfg.position.distance_m(position));
        if let Some(s) = self.shadowing.as_mut() {
            self.shadowing_db = s.update(position, &mut self.rng_shadowing);
        }
        self.interferer_rx_mw.clear();
        for (k, i) in cfg.interferers.iter().enumerate() {
            let model = match self.conditions.as_mut() {
                Some(c) => c.interferer(k, &cfg.pathloss, i.position, position),
                None => &cfg.pathloss,
            };
            let rx_dbm = i.tx_power_dbm + cfg.antenna_gain_db
                - model.path_loss_db(i.position.distance_m(position));
            self.interferer_rx_mw.push(to_mw(rx_dbm));
        }
        self.refresh_interference(cfg, noise_dbm);
        Ok(())
    }

    /// Recomputes the interference plus noise from the loads of `cfg.interferers` (which must
    /// be those the link was last moved with, in the same order), without a new shadowing draw
    /// or path-loss evaluation: Σ_i load_i · P_rx,i + N, in mW, then dBm.
    pub fn refresh_interference(&mut self, cfg: &LteCellConfig, noise_dbm: f64) {
        let mut i_mw = 0.0;
        for (i, rx_mw) in cfg.interferers.iter().zip(&self.interferer_rx_mw) {
            i_mw += i.load * rx_mw;
        }
        self.interference_noise_dbm = 10.0 * (i_mw + to_mw(noise_dbm)).log10();
    }

    /// Changes the speed (m/s) and so the Doppler of the fading.
    pub fn set_speed(&mut self, cfg: &LteCellConfig, speed_mps: f64) -> Result<(), CellError> {
        match (&mut self.fading, cfg.keys.fading && speed_mps > 0.0) {
            (Some(f), true) => f.set_speed(speed_mps)?,
            (None, true) => {
                self.fading = Some(RayleighFading::new(
                    speed_mps,
                    cfg.carrier_hz,
                    self.sample_ns,
                )?);
                self.fading_sample = None;
            }
            (_, false) => {
                RayleighFading::new(speed_mps, cfg.carrier_hz, self.sample_ns)?;
                self.fading = None;
                self.fading_sample = None;
            }
        }
        Ok(())
    }

    pub fn position(&self) -> Position {
        self.position
    }

    /// Received signal without fast fading, dBm.
    fn mean_signal_dbm(&self, cfg: &LteCellConfig) -> f64 {
        cfg.keys.tx_power_dbm + cfg.antenna_gain_db - self.path_loss_db - self.shadowing_db
    }

    /// RSRP, dBm per resource element (TS 36.214 §5.1.1: the linear average over the
    /// resource elements carrying cell-specific reference signals): the transmit power spread
    /// evenly over the 12·N_RB subcarriers of the carrier's `n_prb` resource blocks, plus the
    /// antenna gain, minus path loss and shadowing. Fast fading is left out: the UE's layer-1
    /// filtering averages it over the measurement period (36.214 leaves the averaging to the
    /// implementation).
    pub fn rsrp_dbm(&self, cfg: &LteCellConfig, n_prb: u32) -> f64 {
        self.mean_signal_dbm(cfg) - 10.0 * (12.0 * f64::from(n_prb)).log10()
    }

    /// SINR without fast fading, dB.
    pub fn large_scale_sinr_db(&self, cfg: &LteCellConfig) -> f64 {
        self.mean_signal_dbm(cfg) - self.interference_noise_dbm
    }

    /// SINR in TTI `tti`, dB, advancing the fading to that TTI. TTIs must not decrease between
    /// calls; a repeated TTI returns the same sample.
    pub fn sinr_db(&mut self, cfg: &LteCellConfig, tti: u64) -> f64 {
        let fading_db = match self.fading.as_mut() {
            None => 0.0,
            Some(f) => match self.fading_sample {
                Some((t, g)) if t >= tti => g,
                previous => {
                    let steps = previous.map_or(1, |(t, _)| tti - t);
                    let g = 10.0 * f.advance(steps, &mut self.rng_fading).log10();
                    self.fading_sample = Some((tti, g));
                    g
                }
            },
        };
        self.large_scale_sinr_db(cfg) + fading_db
    }
}

/// The periodic wideband CQI reports of one UE (with the rank, in NR) and the one the
/// scheduler currently uses.
#[derive(Debug)]
pub struct CqiReports {
    period: u64,
    delay: u64,
    /// Reports measured and not yet visible: (TTI from which visible, report), in TTI order.
    in_flight: VecDeque<(u64, CsiReport)>,
    /// The report the scheduler uses.
    current: CsiReport,
    /// Last TTI up to which measurements have been considered.
    measured_through: Option<u64>,
    /// Sum and count of the reports made, for the mean CQI.
    sum: u64,
    count: u64,
}

impl CqiReports {
    /// Reports every `period` TTIs, used `delay` TTIs later, starting from `initial_cqi`.
    pub fn new(period: u32, delay: u32, initial_cqi: CsiReport) -> Self {
        let (period, delay) = (u64::from(period.max(1)), u64::from(delay));
        CqiReports {
            period,
            delay,
            // At most ⌈delay/period⌉ + 1 reports are in flight; reserve them once.
            in_flight: VecDeque::with_capacity((delay / period + 2) as usize),
            current: initial_cqi,
            measured_through: None,
            sum: 0,
            count: 0,
        }
    }

    /// The UE starts reporting afresh from TTI `first_tti` (it has just accessed the cell,
    /// after a handover): reports in flight are dropped, the scheduler uses `initial_cqi` (the
    /// measurement made at access) until the first periodic report measured at or after
    /// `first_tti` is visible. The mean over the reports made so far is kept.
    pub fn restart(&mut self, first_tti: u64, initial_cqi: CsiReport) {
        self.in_flight.clear();
        self.current = initial_cqi;
        self.measured_through = first_tti.checked_sub(1);
    }

    /// The CQI the scheduler uses.
    pub fn current(&self) -> Cqi {
        self.current.cqi
    }

    /// The rank the scheduler uses (the report's; 1 in LTE).
    pub fn current_layers(&self) -> crate::mac::Layers {
        self.current.layers
    }

    /// Mean of the CQIs reported so far, `None` before the first.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum as f64 / self.count as f64)
    }

    /// Brings the reports up to TTI `tti`: measures at the report TTIs since the last call that
    /// still matter, each with `measure` on the link's SINR of that TTI, and makes visible
    /// those due by `tti`. Returns the CQI measured at `tti` itself, if `tti` is a report TTI.
    pub fn advance_to(
        &mut self,
        tti: u64,
        link: &mut super::ue_link::UeLink,
        cfg: &LteCellConfig,
        measure: impl Fn(f64) -> CsiReport,
    ) -> Option<Cqi> {
        // The latest report TTI whose report is visible at `tti`: reports before it are
        // superseded and need not be measured.
        let oldest_needed = tti
            .checked_sub(self.delay)
            .map_or(0, |t| t - t % self.period);
        let from = match self.measured_through {
            Some(t) if t >= tti => tti + 1,
            Some(t) => (t + 1).max(oldest_needed),
            None => oldest_needed,
        };
        let mut measured_now = None;
        let mut m = from.div_ceil(self.period) * self.period;
        while m <= tti {
            let report = measure(link.sinr_db(cfg, m));
            if self.in_flight.len() == self.in_flight.capacity() {
                self.in_flight.pop_front();
            }
            self.in_flight.push_back((m + self.delay, report));
            self.sum += u64::from(report.cqi.get());
            self.count += 1;
            if m == tti {
                measured_now = Some(report.cqi);
            }
            m += self.period;
        }
        self.measured_through = Some(self.measured_through.map_or(tti, |t| t.max(tti)));
        while let Some(&(visible, report)) = self.in_flight.front() {
            if visible > tti {
                break;
            }
            self.current = report;
            self.in_flight.pop_front();
        }
        measured_now
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::{LogDistance, PathLossModel};
    use crate::mac::Layers;
    use crate::phy::Amc;
    use celltcp_net::packet::NodeId;

    fn csi(cqi: u8) -> CsiReport {
        CsiReport {
            cqi: Cqi::new(cqi).unwrap(),
            layers: Layers::ONE,
        }
    }

    fn lte(amc: &Amc) -> impl Fn(f64) -> CsiReport + '_ {
        |s| CsiReport {
            cqi: amc.cqi_for_sinr(s),
            layers: Layers::ONE,
        }
    }

    fn cell(pl0_db: f64) -> LteCellConfig {
        LteCellConfig {
            pathloss: PathLossModel::LogDistance(LogDistance::new(pl0_db, 1.0, 3.0).unwrap()),
            ..LteCellConfig::lte_default("c", NodeId(0))
        }
    }

    #[test]
    fn sinr_is_the_link_budget_over_noise_and_interference() {
        let mut cfg = cell(100.0);
        let ue = UeConfig {
            node: NodeId(1),
            position: Position::new(0.5, 0.0),
            speed_mps: 0.0,
        };
        let noise = crate::channel::noise_power_dbm(50, 9.0).unwrap();
        let mut link = RadioLink::new(&cfg, &ue, noise, 1, 0, "t", crate::phy::TTI_NS).unwrap();
        // 46 − 100 − (−95.4576) = 41.4576 dB.
        assert!((link.sinr_db(&cfg, 0) - 41.457_575).abs() < 1e-5);
        // An interferer received at the same power at full load: SINR ≈ 0 dB (noise is 41 dB
        // below).
        cfg.interferers.push(super::super::config::Interferer {
            position: Position::new(0.0, 0.5),
            tx_power_dbm: 46.0,
            load: 1.0,
        });
        link.move_to(&cfg, ue.position, noise).unwrap();
        assert!(link.sinr_db(&cfg, 1).abs() < 1e-3);
    }

    #[test]
    fn reports_are_periodic_and_delayed() {
        let cfg = cell(100.0);
        let ue = UeConfig {
            node: NodeId(1),
            position: Position::new(0.5, 0.0),
            speed_mps: 0.0,
        };
        let mut link = super::super::ue_link::UeLink::Lte(
            RadioLink::new(&cfg, &ue, -95.0, 1, 0, "t", crate::phy::TTI_NS).unwrap(),
        );
        let amc = Amc::default();
        let mut r = CqiReports::new(5, 4, csi(3));
        let mut seen = Vec::new();
        for k in 0..12 {
            let measured = r.advance_to(k, &mut link, &cfg, lte(&amc));
            seen.push((k, measured.is_some(), r.current().get()));
        }
        // Measured at 0, 5, 10; the first becomes visible at TTI 4.
        let measured: Vec<u64> = seen.iter().filter(|s| s.1).map(|s| s.0).collect();
        assert_eq!(measured, vec![0, 5, 10]);
        assert_eq!(seen[3].2, 3);
        assert_eq!(seen[4].2, 15);
        assert_eq!(r.mean(), Some(15.0));
    }

    #[test]
    fn a_gap_produces_only_the_reports_that_still_matter() {
        let cfg = cell(100.0);
        let ue = UeConfig {
            node: NodeId(1),
            position: Position::new(0.5, 0.0),
            speed_mps: 0.0,
        };
        let mut link = super::super::ue_link::UeLink::Lte(
            RadioLink::new(&cfg, &ue, -95.0, 1, 0, "t", crate::phy::TTI_NS).unwrap(),
        );
        let amc = Amc::default();
        let mut r = CqiReports::new(5, 4, csi(3));
        r.advance_to(0, &mut link, &cfg, lte(&amc));
        // Jump to TTI 103: report 95 (visible at 99) and 100 (visible at 104) are measured.
        assert_eq!(r.advance_to(103, &mut link, &cfg, lte(&amc)), None);
        assert_eq!(r.count, 3);
        assert_eq!(r.current(), Cqi::MAX);
        assert_eq!(r.in_flight.len(), 1);
    }
}
