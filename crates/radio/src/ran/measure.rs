//! The measurement tick of a radio access network, every `measurement.period` from t = 0:
//!
//! 1. each cell's PRB utilisation over the last period, Δprbs_used / (downlink TTIs, or an NR
//!    cell's downlink slots, in the period × N_RB); with `coupled_interference`, each cell
//!    then sees every other cell of the network as an interferer loaded with it;
//! 2. per UE, in configuration order: its position and speed from its mobility, in every cell
//!    (a cell measures and can take over every UE); the RSRP (TS 36.214 §5.1.1; an NR
//!    cell's SS-RSRP, TS 38.215 §5.1.1, with a mmWave channel brought to the tick's slot so
//!    its blockage counts) and RSRQ (36.214 §5.1.3; an NR cell's SS-RSRQ, 38.215 §5.1.3) of
//!    every cell, each plus its own layer-1 measurement error, through its own layer-3 filter
//!    (36.331 §5.5.3.2, the coefficient adapted to the measurement period as NOTE 2 of the
//!    clause asks); radio link monitoring on the serving cell's SINR (36.331 §5.3.10, 36.133
//!    §7.6); Event A3 on the filtered values of `trigger_quantity` (36.331
//!    §5.5.4.4), every other cell a neighbour — with the conditional handover procedure its
//!    preparation and execution conditions instead (`conditional.rs`).
//!
//! RSRQ of an LTE cell c = N_PRB × RSRP_c / RSSI, with the carrier RSSI over cell c's N_PRB
//! summing every cell of the network at its RSRP × 12·N_PRB, weighted (2 + 10·load)/12 for the
//! REs it fills in a reference-signal symbol ([`crate::channel::rssi_dbm`]), plus the thermal
//! noise over the N_PRB at cell c's noise figure. The load of a cell is its utilisation of the
//! last period whether or not the interference is coupled: the UE measures the power the
//! neighbours radiate even where the SINR model keeps its configured interferers. The cells'
//! configured (non-network) interferers do not enter RSSI: they have a load but no received
//! power at a moving UE. All cells are taken to share the carrier (intra-frequency A3).
//!
//! NR has no CRS: SS-RSRQ of an NR cell c = N × SS-RSRP_c / NR carrier RSSI, N = 20, the
//! RSSI measured over the SS/PBCH block's 20 RBs in its 4 OFDM symbols (no
//! SS-RSSI-Measurement is configured; the clauses found, TS 38.215 §5.1.3 and TS 38.211
//! §7.4.3.1, and the assumptions are in [`crate::channel::ss_rsrq`]). There every NR cell of
//! the network sends its own block, 830 of the 960 REs at its SS-RSRP, and no PDSCH (TS 38.214
//! §5.1.4), so RSSI = Σ_NR cells SS-RSRP × 207.5 + the noise of 240 subcarriers at cell c's
//! per-RE noise, and the cells' loads do not enter: a lone NR cell measures 20 / 207.5
//! (−10.16 dB) idle or full, two equal ones −13.17 dB. An LTE cell of the network (the master
//! of EN-DC) has no SS/PBCH block and is on another carrier; it is left out of an NR cell's
//! RSSI. LTE cells keep the formula above, byte for byte.
//!
//! Radio link monitoring runs before A3 so that a UE whose link fails at this tick does not
//! also start a handover on it. Neither runs while the UE is not served (during the
//! interruption T304 is the UE's timer, and a detached UE has no serving cell); A3 does not run
//! while a handover of the UE is in progress (one at a time), so its time to trigger starts
//! over afterwards. The measurement errors are drawn for every (UE, cell) at every tick
//! whatever happens, RSRP's from `ran/ue/NODE/measurement` and RSRQ's from
//! `ran/ue/NODE/measurement/rsrq`, so the streams stay aligned across configurations.

use celltcp_engine::SimTime;
use celltcp_net::medium::MediumOutput;

use crate::cell::LteCell;
use crate::channel::{nr_carrier_rssi_dbm, rsrq_db, rssi_dbm, ss_rsrq_db, CellSignal};
use crate::measurement::measurement_error_db;
use crate::phy::SUBCARRIERS_PER_PRB;

use super::LteRan;

/// Interference coupling between the cells of a network.
#[derive(Clone, Debug)]
pub(super) struct Coupling {
    /// Per cell: the loads of its configured interferers (kept as configured).
    pub configured: Vec<Vec<f64>>,
}

impl LteRan {
    /// Runs the tick due at `now`.
    pub(super) fn tick(&mut self, now: SimTime, out: &mut MediumOutput) {
        self.update_cell_loads();
        if self.coupling.is_some() {
            self.couple_interference();
        }
        for u in 0..self.ues.len() {
            self.move_ue(now, u);
            self.measure_ue(now, u);
            if self.dc.is_some() {
                self.dc_tick(now, u);
            }
            let ue = &mut self.ues[u];
            if !ue.attached {
                continue;
            }
            let sinr = self.cells[ue.serving]
                .ue_large_scale_sinr_db(ue.node)
                .unwrap_or(f64::NAN);
            if ue.rlf.as_mut().is_some_and(|m| m.evaluate(now, sinr)) {
                self.radio_link_failure(now, u, out);
                continue;
            }
            if ue.ho.is_some() {
                continue;
            }
            let serving = ue.serving;
            let quantity = self.meas_cfg.trigger_quantity;
            let Some(ms) = ue.filters_of(quantity)[serving].value() else {
                continue;
            };
            self.neighbours.clear();
            self.neighbours
                .extend(ue.filtered_of(quantity).filter(|&(c, _)| c != serving));
            if ue.cho.is_some() {
                self.cho_tick(now, u, ms, out);
                continue;
            }
            let Some(a3) = ue.a3.as_mut() else { continue };
            if let Some(target) = a3.evaluate(now, ms, &self.neighbours) {
                self.a3_triggered(now, u, target);
            }
        }
    }

    /// Each cell's PRB utilisation over the last period, Δprbs_used / (downlink TTIs or slots
    /// in the period × N_RB), into `cell_loads`.
    fn update_cell_loads(&mut self) {
        let period_ns = self.meas_cfg.period.as_ns();
        for ((cell, last), load) in self
            .cells
            .iter()
            .zip(self.prbs_at_last_tick.iter_mut())
            .zip(self.cell_loads.iter_mut())
        {
            let used = cell.prbs_used();
            let delta = used.saturating_sub(*last);
            *last = used;
            let period_slots = cell.downlink_slots_in(period_ns);
            *load = (delta as f64 / (period_slots * f64::from(cell.n_prb()))).clamp(0.0, 1.0);
        }
    }

    /// Each cell's interferers: its configured ones at their configured loads, then the other
    /// cells of the network (in index order) at their utilisation of the last period.
    fn couple_interference(&mut self) {
        let Some(coupling) = self.coupling.as_ref() else {
            return;
        };
        let utilisation = &self.cell_loads;
        for (c, cell) in self.cells.iter_mut().enumerate() {
            let mut loads = coupling.configured[c].clone();
            loads.extend(
                utilisation
                    .iter()
                    .enumerate()
                    .filter(|&(o, _)| o != c)
                    .map(|(_, &l)| l),
            );
            if let Err(e) = cell.set_interferer_loads(&loads) {
                self.errors
                    .push(format!("interference coupling of cell {c}: {e}"));
            }
        }
    }

    /// Moves UE `u` to where its mobility puts it at `now`, in every cell.
    fn move_ue(&mut self, now: SimTime, u: usize) {
        let ue = &mut self.ues[u];
        if !ue.mobility.is_mobile() {
            return;
        }
        let position = ue.mobility.position_at(now);
        let speed = ue.mobility.speed_mps_at(now);
        let node = ue.node;
        let moved = position != ue.position;
        let new_speed = speed != ue.speed_mps;
        ue.position = position;
        ue.speed_mps = speed;
        for (c, cell) in self.cells.iter_mut().enumerate() {
            let mut r = Ok(());
            if moved {
                r = cell.set_ue_position(node, position);
            }
            if new_speed && r.is_ok() {
                r = cell.set_ue_speed(node, speed);
            }
            if let Err(e) = r {
                self.errors
                    .push(format!("mobility of UE {node} in cell {c}: {e}"));
            }
        }
    }

    /// RSRP and RSRQ of every cell at UE `u`, each with its measurement error, into their
    /// layer-3 filters.
    fn measure_ue(&mut self, now: SimTime, u: usize) {
        let std_db = self.meas_cfg.error_std_db;
        let ue = &mut self.ues[u];
        // Every cell's RSRP and load once; `rx_power_dbm` holds the RSRP (per RE) here, −∞ when
        // the cell cannot measure the UE.
        self.signals.clear();
        for (cell, &load) in self.cells.iter_mut().zip(&self.cell_loads) {
            let rsrp = cell
                .measure_ue_rsrp_dbm(now, ue.node)
                .unwrap_or(f64::NEG_INFINITY);
            self.signals.push(CellSignal {
                rx_power_dbm: rsrp,
                load,
            });
        }
        for (signal, filter) in self.signals.iter().zip(ue.l3.iter_mut()) {
            // One draw per cell and tick whether or not the cell is measured, as before.
            let error = measurement_error_db(std_db, &mut ue.measurement_rng);
            if signal.rx_power_dbm.is_finite() {
                filter.update(signal.rx_power_dbm + error);
            }
        }
        for (c, filter) in ue.l3_rsrq.iter_mut().enumerate() {
            let error = measurement_error_db(std_db, &mut ue.rsrq_rng);
            match rsrq_of(&self.cells, c, &self.signals, &mut self.rssi_terms) {
                Ok(Some(rsrq)) => {
                    filter.update(rsrq + error);
                }
                Ok(None) => {}
                Err(e) => self
                    .errors
                    .push(format!("RSRQ of cell {c} at UE {}: {e}", ue.node)),
            }
        }
    }

    /// The first tick strictly after `now` (ticks are at k × period).
    pub(super) fn tick_after(&self, now: SimTime) -> SimTime {
        let p = self.meas_cfg.period.as_ns().max(1);
        SimTime::from_ns((now.as_ns() / p + 1).saturating_mul(p))
    }
}

/// RSRQ of cell `c` of `cells`, dB, from `rsrp`: per cell of the network its RSRP at the UE
/// (in `rx_power_dbm`, dBm per RE, −∞ when unknown) and its load. `None` when the cell's own
/// RSRP is unknown. An LTE cell's is the RSRQ of TS 36.214 §5.1.3, an NR cell's the SS-RSRQ of
/// TS 38.215 §5.1.3 ([`crate::channel::ss_rsrq`]). `band` is scratch.
fn rsrq_of(
    cells: &[LteCell],
    c: usize,
    rsrp: &[CellSignal],
    band: &mut Vec<CellSignal>,
) -> Result<Option<f64>, crate::channel::ChannelError> {
    let own = rsrp[c].rx_power_dbm;
    if !own.is_finite() {
        return Ok(None);
    }
    let cell = &cells[c];
    let n_prb = cell.n_prb();
    let noise = cell.noise_dbm();
    band.clear();
    if cell.config().nr.is_some() {
        // The SS/PBCH blocks of the NR cells, each at its SS-RSRP; an LTE cell of the network
        // (an EN-DC master) has none and is on another carrier.
        band.extend(
            rsrp.iter()
                .zip(cells)
                .filter(|(_, other)| other.config().nr.is_some())
                .map(|(s, _)| *s),
        );
        let rssi = nr_carrier_rssi_dbm(band, noise, n_prb)?;
        return Ok(Some(ss_rsrq_db(own, rssi)));
    }
    // RSRP × 12·N_PRB: each cell's received power over the measured band when fully loaded.
    let per_re_to_band = 10.0 * (f64::from(SUBCARRIERS_PER_PRB) * f64::from(n_prb)).log10();
    band.extend(rsrp.iter().map(|s| CellSignal {
        rx_power_dbm: s.rx_power_dbm + per_re_to_band,
        load: s.load,
    }));
    let rssi = rssi_dbm(band, n_prb, noise)?;
    Ok(Some(rsrq_db(own, rssi, n_prb)?))
}
