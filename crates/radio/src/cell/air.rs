//! The air interface of a cell: what differs between an LTE eNB and an NR gNB running the same
//! slot loop (`tti.rs`), in one type.
//!
//! | | LTE ([`AirInterface::Lte`]) | NR ([`AirInterface::Nr`]) |
//! |---|---|---|
//! | scheduling unit | 1 ms TTI (TS 36.211 §4.1) | slot of 1 ms / 2^μ (TS 38.211 §4.3.2) |
//! | downlink slots | every TTI (FDD) | FDD: every slot; TDD: D and S slots of the pattern (TS 38.213 §11.1) |
//! | PDSCH symbols | the subframe | `pdsch_symbols` in a D slot, up to the special slot's downlink symbols in S |
//! | TBS of (MCS, n_PRB, symbols, layers) | TS 36.213 Table 7.1.7.2.1-1, one layer ([`MonotoneTbs`]) | TS 38.214 §5.1.3.2 with DM-RS and xOverhead ([`NrTbs`]) |
//! | CQI → MCS | TS 36.213 tables ([`Amc`]) | TS 38.214 Tables 5.2.2.1-2/-3/-4 → 5.1.3.1-1/-2/-3 |
//! | BLER per MCS | [`BlerModel`](crate::phy::BlerModel) | [`NrBlerModel`] at the per-layer SINR |
//! | layers | 1 | rank from SINR ([`rank_for_sinr`]), up to `max_layers` |
//! | HARQ | 8 processes, ACK in k + 4, reuse k + 8 | 16 processes, ACK in the first uplink slot ≥ n + K1 ([`HarqTiming::feedback_slot`]) |
//!
//! The UE's CSI report carries the CQI and, in NR, the rank (RI, TS 38.214 §5.2.2.2): the rank
//! that maximises the expected rate at the measured SINR, and the CQI measured on one of that
//! many layers. What stays in milliseconds whatever the slot — the CQI reporting period and
//! delay of the configuration — is converted here to slots ([`AirInterface::slots_per_ms`]).

use crate::mac::{HarqConfig, HarqEntity, HarqError, HarqTimeline, Layers, TbsLookup};
use crate::nr::link::DEFAULT_LAYER_LOSS_DB;
use crate::nr::{
    mcs_for_cqi, per_layer_sinr_db, rank_for_sinr, tbs_bits, NrBlerModel, PdschTimeAllocation,
    TbsInput,
};
use crate::phy::{Amc, Cqi, Mcs, TTI_NS};

use super::config::{CellError, LteCellConfig};
use super::nr_config::NrAirConfig;
use super::tbs::MonotoneTbs;

/// What a UE reports of its channel: the wideband CQI and the rank (1 in LTE).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CsiReport {
    pub cqi: Cqi,
    pub layers: Layers,
}

/// The air interface of a cell. A cell holds one for its life and never moves it, so the
/// variants' sizes do not matter and neither is boxed (no indirection on the per-TTI path).
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)]
pub(crate) enum AirInterface {
    Lte(LteAir),
    Nr(NrAir),
}

/// LTE FDD: TTIs of 1 ms, one layer, the TS 36.213 tables.
#[derive(Clone, Debug)]
pub(crate) struct LteAir {
    tbs: MonotoneTbs,
    amc: Amc,
}

/// NR: slots of the carrier's numerology, the TS 38.214 tables, rank adaptation.
#[derive(Clone, Debug)]
pub(crate) struct NrAir {
    cfg: NrAirConfig,
    /// TBS of a downlink slot (`tbs[0]`) and of the special slot (`tbs[1]`, if it has a
    /// PDSCH).
    tbs: Vec<NrTbs>,
    /// Per slot of the pattern's period: the entry of `tbs` its PDSCH uses; `None` for a slot
    /// without PDSCH (uplink, or a special slot too short for one).
    slot_tbs: Vec<Option<usize>>,
    bler: NrBlerModel,
    /// MCS of CQI 0..=15 (`None` for CQI 0).
    mcs_of_cqi: [Option<Mcs>; 16],
    /// BLER at which a CQI is reported (TS 38.214 §5.2.2.1).
    target_bler: f64,
}

impl AirInterface {
    /// The air interface of `cfg`: NR when `cfg.nr` is set, LTE otherwise.
    pub fn new(cfg: &LteCellConfig) -> Result<Self, CellError> {
        match &cfg.nr {
            None => Ok(AirInterface::Lte(LteAir {
                tbs: {
                    let table = MonotoneTbs::for_table(cfg.keys.cqi_table, cfg.n_prb)?;
                    match cfg.keys.ue_category {
                        Some(c) => table.capped_at(c.max_tb_bits()),
                        None => table,
                    }
                },
                amc: Amc::new(cfg.bler.clone()),
            })),
            Some(nr) => {
                let air = nr.validate("cell", cfg.carrier_hz)?;
                Ok(AirInterface::Nr(NrAir::new(air)?))
            }
        }
    }

    /// Duration of one slot (LTE: one TTI), nanoseconds.
    pub fn slot_ns(&self) -> u64 {
        match self {
            AirInterface::Lte(_) => TTI_NS,
            AirInterface::Nr(nr) => nr.cfg.carrier.numerology().slot_ns(),
        }
    }

    /// Slots per millisecond: 1 in LTE, 2^μ in NR.
    pub fn slots_per_ms(&self) -> u32 {
        match self {
            AirInterface::Lte(_) => 1,
            AirInterface::Nr(nr) => nr.cfg.carrier.numerology().slots_per_subframe(),
        }
    }

    /// Downlink PRBs of the carrier.
    pub fn n_prb(&self, cfg: &LteCellConfig) -> u32 {
        match self {
            AirInterface::Lte(_) => cfg.n_prb,
            AirInterface::Nr(nr) => u32::from(nr.cfg.carrier.n_rb()),
        }
    }

    /// Thermal noise plus the UE's noise figure over the carrier's resource blocks, dBm.
    pub fn noise_dbm(&self, cfg: &LteCellConfig) -> Result<f64, CellError> {
        Ok(match self {
            AirInterface::Lte(_) => {
                crate::channel::noise_power_dbm(cfg.n_prb, cfg.keys.noise_figure_db)?
            }
            AirInterface::Nr(nr) => {
                let c = &nr.cfg.carrier;
                let hz = f64::from(c.n_rb()) * f64::from(c.numerology().rb_bandwidth_hz());
                crate::channel::thermal_noise_dbm(hz, cfg.keys.noise_figure_db)?
            }
        })
    }

    /// The largest transport block the UEs' category allows at `mcs` where it bounds the
    /// cell's block (LTE's `ue_category`, TS 36.306 Table 4.1-1); `None` where nothing
    /// bounds it, and always in NR, whose cells refuse the key.
    pub fn category_bound_bits(&self, mcs: Mcs) -> Option<u32> {
        match self {
            AirInterface::Lte(lte) => lte.tbs.bound_bits(mcs),
            AirInterface::Nr(_) => None,
        }
    }

    /// The transport block sizes of slot `slot`, `None` when it carries no PDSCH.
    pub fn tbs(&self, slot: u64) -> Option<&dyn TbsLookup> {
        match self {
            AirInterface::Lte(lte) => Some(&lte.tbs),
            AirInterface::Nr(nr) => nr.slot_tbs_index(slot).map(|i| &nr.tbs[i] as _),
        }
    }

    /// Share of the slots that carry a PDSCH: 1 for LTE FDD, the downlink and special slots
    /// with a PDSCH per period of an NR slot pattern (TS 38.213 §11.1).
    pub fn downlink_share(&self) -> f64 {
        match self {
            AirInterface::Lte(_) => 1.0,
            AirInterface::Nr(nr) => {
                let per_period = nr.slot_tbs.iter().filter(|s| s.is_some()).count();
                per_period as f64 / nr.slot_tbs.len() as f64
            }
        }
    }

    /// Slots of [0, `slots`) that carry a PDSCH (all of them in LTE and NR FDD).
    pub fn downlink_slots(&self, slots: u64) -> u64 {
        match self {
            AirInterface::Lte(_) => slots,
            AirInterface::Nr(nr) => {
                let period = nr.slot_tbs.len() as u64;
                let per_period = nr.slot_tbs.iter().filter(|s| s.is_some()).count() as u64;
                let rest = (0..slots % period)
                    .filter(|n| nr.slot_tbs[*n as usize].is_some())
                    .count() as u64;
                slots / period * per_period + rest
            }
        }
    }

    /// The CSI a UE reports at single-layer SINR `sinr_db`.
    pub fn csi_for_sinr(&self, sinr_db: f64) -> CsiReport {
        match self {
            AirInterface::Lte(lte) => CsiReport {
                cqi: lte.amc.cqi_for_sinr(sinr_db),
                layers: Layers::ONE,
            },
            AirInterface::Nr(nr) => nr.csi_for_sinr(sinr_db),
        }
    }

    /// The MCS of new data for CQI `cqi`; `None` for CQI 0.
    pub fn mcs_for_cqi(&self, cqi: Cqi) -> Option<Mcs> {
        match self {
            AirInterface::Lte(lte) => lte.amc.mcs_for_cqi(cqi),
            AirInterface::Nr(nr) => nr.mcs_of_cqi[usize::from(cqi.get())],
        }
    }

    /// BLER of a block at `mcs` on `layers` layers decoded at single-layer SINR `sinr_db`.
    /// Every MCS a block is built at is one of the cell's table (CQI → MCS and `fixed_mcs` are
    /// checked when the cell is built), so there is no MCS this cannot answer for.
    pub fn bler(&self, cfg: &LteCellConfig, mcs: Mcs, layers: Layers, sinr_db: f64) -> f64 {
        match self {
            AirInterface::Lte(_) => cfg.bler.bler(mcs, sinr_db),
            AirInterface::Nr(nr) => {
                let s = per_layer_sinr_db(sinr_db, layers.get(), DEFAULT_LAYER_LOSS_DB);
                nr.bler.bler(mcs.get(), s).unwrap_or_else(|e| {
                    panic!("cell {}: broken invariant: a block at {e}", cfg.name)
                })
            }
        }
    }

    /// The HARQ entity of one UE: `cfg`'s maximum transmissions, with LTE's 8 processes and
    /// fixed delays, or NR's processes and K1 timeline.
    pub fn harq_entity(&self, cfg: &HarqConfig) -> Result<HarqEntity, HarqError> {
        match self {
            AirInterface::Lte(_) => HarqEntity::new(*cfg),
            AirInterface::Nr(nr) => {
                let h = &nr.cfg.harq;
                let pattern = &nr.cfg.pattern;
                let delays = (0..pattern.period_slots() as u64)
                    .map(|n| {
                        let feedback = h.feedback_slot(n, pattern) - n;
                        let reuse = h.retransmission_slot(n, pattern) - n;
                        // K1 = 0 acknowledges in the slot itself; the entity applies feedback
                        // at a later slot boundary, so the earliest is the next slot.
                        (feedback.max(1), reuse.max(feedback.max(1)))
                    })
                    .collect();
                HarqEntity::with_timeline(
                    HarqConfig {
                        n_processes: h.processes(),
                        ..*cfg
                    },
                    HarqTimeline::periodic(delays)?,
                )
            }
        }
    }

    /// HARQ processes per UE.
    pub fn harq_processes(&self, cfg: &HarqConfig) -> u8 {
        match self {
            AirInterface::Lte(_) => cfg.n_processes,
            AirInterface::Nr(nr) => nr.cfg.harq.processes(),
        }
    }
}

impl NrAir {
    fn new(cfg: NrAirConfig) -> Result<Self, CellError> {
        let mut tbs = vec![NrTbs::new(&cfg, &cfg.pdsch)?];
        if let Some(s) = &cfg.special_pdsch {
            tbs.push(NrTbs::new(&cfg, s)?);
        }
        let has_special = tbs.len() > 1;
        let slot_tbs = (0..cfg.pattern.period_slots() as u64)
            .map(|n| match cfg.pattern.slot_kind(n) {
                None | Some(crate::nr::slot_pattern::SlotKind::Downlink) => Some(0),
                Some(crate::nr::slot_pattern::SlotKind::Special) => has_special.then_some(1),
                Some(crate::nr::slot_pattern::SlotKind::Uplink) => None,
            })
            .collect();
        let mut mcs_of_cqi = [None; 16];
        for (c, m) in mcs_of_cqi.iter_mut().enumerate().skip(1) {
            let index = mcs_for_cqi(cfg.cqi_table, c as u8, cfg.mcs_table)
                .map_err(CellError::NrPhy)?
                .expect("CQI 1..=15 maps to an MCS");
            *m = Some(Mcs::new(index)?);
        }
        Ok(NrAir {
            bler: cfg.bler.clone(),
            target_bler: cfg.cqi_table.target_bler(),
            tbs,
            slot_tbs,
            mcs_of_cqi,
            cfg,
        })
    }

    fn slot_tbs_index(&self, slot: u64) -> Option<usize> {
        self.slot_tbs[(slot % self.slot_tbs.len() as u64) as usize]
    }

    /// Rank first (the throughput-maximising L), then the highest CQI whose MCS meets the
    /// table's target BLER on one of L layers; CQI 0 if none.
    fn csi_for_sinr(&self, sinr_db: f64) -> CsiReport {
        let rank = rank_for_sinr(
            &self.bler,
            sinr_db,
            self.cfg.max_layers,
            DEFAULT_LAYER_LOSS_DB,
        );
        let s = per_layer_sinr_db(sinr_db, rank, DEFAULT_LAYER_LOSS_DB);
        let cqi = Cqi::in_range()
            .rev()
            .find(|c| {
                self.mcs_of_cqi[usize::from(c.get())].is_some_and(|m| {
                    self.bler
                        .bler(m.get(), s)
                        .is_ok_and(|b| b <= self.target_bler)
                })
            })
            .unwrap_or(Cqi::OUT_OF_RANGE);
        CsiReport {
            cqi,
            layers: Layers::new(rank).unwrap_or(Layers::ONE),
        }
    }
}

/// TS 38.214 §5.1.3.2 transport block sizes of one PDSCH allocation, precomputed for every
/// data MCS of the table, 1..=`max_layers` layers and 1..=N_RB PRBs, bits. The formula is
/// non-decreasing in the PRB count (N_info grows with N_RE and each quantisation step is
/// monotone), as [`TbsLookup`] requires; the test `nr_tbs_is_the_formula_and_monotone`
/// checks it on the tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NrTbs {
    n_rb: u32,
    n_mcs: usize,
    max_layers: u8,
    /// `bits[((layers − 1) · n_mcs + mcs) · n_rb + (n − 1)]`.
    bits: Vec<u32>,
}

impl NrTbs {
    fn new(cfg: &NrAirConfig, alloc: &PdschTimeAllocation) -> Result<Self, CellError> {
        let nr = CellError::NrPhy;
        let rows = cfg.mcs_table.rows();
        let n_rb = cfg.carrier.n_rb();
        let n_dmrs = cfg.dmrs.res_per_prb(alloc).map_err(nr)?;
        let mut bits =
            Vec::with_capacity(usize::from(cfg.max_layers) * rows.len() * usize::from(n_rb));
        for layers in 1..=cfg.max_layers {
            for row in rows {
                for n_prb in 1..=n_rb {
                    let input = TbsInput {
                        n_prb,
                        n_symb: alloc.length(),
                        n_dmrs_per_prb: n_dmrs,
                        n_oh_per_prb: cfg.x_overhead.res_per_prb(),
                        layers,
                    };
                    bits.push(tbs_bits(*row, &input).map_err(nr)?);
                }
            }
        }
        Ok(NrTbs {
            n_rb: u32::from(n_rb),
            n_mcs: rows.len(),
            max_layers: cfg.max_layers,
            bits,
        })
    }
}

impl TbsLookup for NrTbs {
    /// Bits of `n_prb` PRBs at `mcs` on `layers`; 0 outside 1..=N_RB, for a reserved MCS index
    /// of the table or beyond `max_layers`.
    #[inline]
    fn tbs_bits(&self, mcs: Mcs, layers: Layers, n_prb: u32) -> u32 {
        if n_prb == 0
            || n_prb > self.n_rb
            || mcs.index() >= self.n_mcs
            || layers.get() > self.max_layers
        {
            return 0;
        }
        let row = usize::from(layers.get() - 1) * self.n_mcs + mcs.index();
        self.bits[row * self.n_rb as usize + n_prb as usize - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::nr_config::NrCellConfig;
    use crate::nr::McsTable;

    fn air(c: NrCellConfig, carrier_hz: f64) -> NrAir {
        NrAir::new(c.validate("cells.g", carrier_hz).unwrap()).unwrap()
    }

    #[test]
    fn nr_tbs_is_the_formula_and_monotone() {
        let a = air(
            NrCellConfig {
                slot_pattern: "DDDSU".into(),
                mcs_table: McsTable::Qam256,
                max_layers: 4,
                ..NrCellConfig::default()
            },
            3.5e9,
        );
        let t = &a.tbs[0];
        // 273 PRBs, 13 symbols, DM-RS pos1 type 1 (2 symbols × 12 REs), MCS 27, 4 layers.
        let input = TbsInput {
            n_prb: 273,
            n_symb: 13,
            n_dmrs_per_prb: 24,
            n_oh_per_prb: 0,
            layers: 4,
        };
        let want = tbs_bits(McsTable::Qam256.row(27).unwrap(), &input).unwrap();
        let mcs27 = Mcs::new(27).unwrap();
        assert_eq!(t.tbs_bits(mcs27, Layers::MAX, 273), want);
        // MCS 28 is reserved in Table 5.1.3.1-2; beyond N_RB and 0 PRBs are not sizes.
        assert_eq!(t.tbs_bits(Mcs::MAX, Layers::ONE, 10), 0);
        assert_eq!(t.tbs_bits(mcs27, Layers::ONE, 274), 0);
        assert_eq!(t.tbs_bits(mcs27, Layers::ONE, 0), 0);
        for tbs in &a.tbs {
            for l in 1..=4 {
                let layers = Layers::new(l).unwrap();
                for m in 0..=27 {
                    let mcs = Mcs::new(m).unwrap();
                    for n in 2..=273 {
                        assert!(tbs.tbs_bits(mcs, layers, n) >= tbs.tbs_bits(mcs, layers, n - 1));
                    }
                }
            }
        }
        // The special slot's 9 symbols carry less than a downlink slot's 13.
        assert!(a.tbs[1].tbs_bits(mcs27, Layers::MAX, 273) < want);
        // DDDSU: D, D, D carry the full PDSCH, S the short one, U none.
        let slots: Vec<_> = (0..10).map(|n| a.slot_tbs_index(n)).collect();
        assert_eq!(
            slots,
            [
                Some(0),
                Some(0),
                Some(0),
                Some(1),
                None,
                Some(0),
                Some(0),
                Some(0),
                Some(1),
                None
            ]
        );
    }

    #[test]
    fn csi_rank_grows_with_the_sinr() {
        let a = air(
            NrCellConfig {
                mcs_table: McsTable::Qam256,
                max_layers: 4,
                ..NrCellConfig::default()
            },
            3.5e9,
        );
        let low = a.csi_for_sinr(0.0);
        let high = a.csi_for_sinr(60.0);
        assert_eq!(low.layers, Layers::ONE);
        assert_eq!(high.layers, Layers::MAX);
        assert_eq!(high.cqi, Cqi::MAX);
        assert!(low.cqi < Cqi::MAX && !low.cqi.is_out_of_range());
        assert_eq!(a.csi_for_sinr(-30.0).cqi, Cqi::OUT_OF_RANGE);
    }
}
