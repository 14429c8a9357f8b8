//! The measurement tick of a radio access network, every `measurement.period` from t = 0:
//!
//! 1. with `coupled_interference`, each cell sees every other cell of the network as an
//!    interferer loaded with the PRB utilisation it had over the last period;
//! 2. per UE, in configuration order: its position and speed from its mobility, in every cell
//!    (a cell measures and can take over every UE); the RSRP of every cell (TS 36.214 §5.1.1)
//!    plus the layer-1 measurement error, through the layer-3 filter (36.331 §5.5.3.2, its
//!    coefficient adapted to the measurement period as NOTE 2 of the clause asks);
//!    radio link monitoring on the serving cell's SINR (36.331 §5.3.10, 36.133 §7.6); Event A3
//!    on the filtered values (36.331 §5.5.4.4), every other cell a neighbour.
//!
//! Radio link monitoring runs before A3 so that a UE whose link fails at this tick does not
//! also start a handover on it. Neither runs while the UE is not served (during the
//! interruption T304 is the UE's timer, and a detached UE has no serving cell); A3 does not run
//! while a handover of the UE is in progress (one at a time), so its time to trigger starts
//! over afterwards. The measurement error is drawn for every (UE, cell) at every tick whatever
//! happens, so the stream `ran/ue/NODE/measurement` stays aligned across configurations.

use celltcp_engine::SimTime;
use celltcp_net::medium::MediumOutput;

use crate::measurement::measurement_error_db;
use crate::phy::TTI_NS;

use super::LteRan;

/// Interference coupling between the cells of a network.
#[derive(Clone, Debug)]
pub(super) struct Coupling {
    /// Per cell: the loads of its configured interferers (kept as configured).
    pub configured: Vec<Vec<f64>>,
    /// Per cell: `prbs_used` at the previous tick.
    pub prbs_at_last_tick: Vec<u64>,
}

impl LteRan {
    /// Runs the tick due at `now`.
    pub(super) fn tick(&mut self, now: SimTime, out: &mut MediumOutput) {
        if self.coupling.is_some() {
            self.couple_interference();
        }
        for u in 0..self.ues.len() {
            self.move_ue(now, u);
            self.measure_ue(u);
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
            let Some(ms) = ue.l3[serving].value() else {
                continue;
            };
            self.neighbours.clear();
            self.neighbours
                .extend(ue.filtered().filter(|&(c, _)| c != serving));
            let Some(a3) = ue.a3.as_mut() else { continue };
            if let Some(target) = a3.evaluate(now, ms, &self.neighbours) {
                self.a3_triggered(now, u, target);
            }
        }
    }

    /// Each cell's interferers: its configured ones at their configured loads, then the other
    /// cells of the network (in index order) at the PRB utilisation of the last period,
    /// Δprbs_used / (TTIs in the period × N_RB).
    fn couple_interference(&mut self) {
        let Some(coupling) = self.coupling.as_mut() else {
            return;
        };
        let period_ttis = self.meas_cfg.period.as_ns() as f64 / TTI_NS as f64;
        let utilisation: Vec<f64> = self
            .cells
            .iter()
            .zip(coupling.prbs_at_last_tick.iter_mut())
            .map(|(cell, last)| {
                let used = cell.prbs_used();
                let delta = used.saturating_sub(*last);
                *last = used;
                (delta as f64 / (period_ttis * f64::from(cell.n_prb()))).clamp(0.0, 1.0)
            })
            .collect();
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

    /// RSRP of every cell at UE `u` with its measurement error, into the layer-3 filters.
    fn measure_ue(&mut self, u: usize) {
        let std_db = self.meas_cfg.error_std_db;
        let ue = &mut self.ues[u];
        for (cell, filter) in self.cells.iter().zip(ue.l3.iter_mut()) {
            let error = measurement_error_db(std_db, &mut ue.measurement_rng);
            if let Ok(rsrp) = cell.ue_rsrp_dbm(ue.node) {
                filter.update(rsrp + error);
            }
        }
    }

    /// The first tick strictly after `now` (ticks are at k × period).
    pub(super) fn tick_after(&self, now: SimTime) -> SimTime {
        let p = self.meas_cfg.period.as_ns().max(1);
        SimTime::from_ns((now.as_ns() / p + 1).saturating_mul(p))
    }
}
