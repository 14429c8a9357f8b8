//! Adaptive modulation and coding: SINR → CQI → MCS, and the PRB count of a channel bandwidth.
//!
//! * SINR → CQI: the highest CQI whose transport block would be received with a block error
//!   probability not above 0.1 (the CQI definition of TS 36.213 §7.2.3), judged with the
//!   [`BlerModel`] curve of the MCS that the CQI maps to (logistic or from a link-level
//!   table). CQI 0 ("out of range") when even CQI 1 misses the target.
//! * CQI → MCS, the table-based rule of Piro, Grieco, Boggia and Camarda (European Wireless
//!   2010; the "PiroEW2010" AMC of the ns-3 LTE module): the highest MCS whose R1-081483
//!   spectral efficiency does not exceed the CQI's efficiency. Both are compared at the two
//!   decimals to which R1-081483 gives MCS efficiencies, so CQI c ≥ 1 maps to MCS 2(c − 1)
//!   (CQI 1 → MCS 0, CQI 15 → MCS 28). Without the rounding CQI 3, 5, 6, 7, 9 and 14 would fall
//!   one MCS lower only because 0.8770 < 0.88 and the like.
//!   With the 256QAM CQI table (Table 7.2.3-2 and MCS Table 7.1.7.1-1A) the same rule gives
//!   CQI 1 → MCS 0, 2 → 2, 3 → 4, 4 → 6, 5 → 8, 6 → 10, 7 → 11, then every other MCS up to CQI
//!   15 → MCS 27 (256QAM, I_TBS 33).
//! * Channel bandwidth → PRBs: TS 36.101 Table 5.6-1 (transmission bandwidth configuration).

use celltcp_engine::RngStream;

use super::bler::BlerModel;
use super::index::{Cqi, Mcs};
use super::tables::{tbs_bits_for_mcs, CqiTable, CQI_MAX};
use super::{PhyError, TTIS_PER_SECOND};

/// The MCS used for CQI `cqi`; `None` for CQI 0 (no transmission). Every CQI 1..=15 has one,
/// so this cannot fail.
#[inline]
pub fn mcs_for_cqi(cqi: Cqi) -> Option<Mcs> {
    MCS_OF_CQI[usize::from(cqi.get())]
}

/// The rule of the module documentation worked out for CQI 0..=15: CQI c ≥ 1 → MCS 2(c − 1).
/// Written out so that the per-TTI lookup is an index; the test `cqi_maps_to_every_other_mcs`
/// derives it again from the CQI efficiencies and R1-081483.
const MCS_OF_CQI: [Option<Mcs>; CQI_MAX as usize + 1] = {
    let mut table = [None; CQI_MAX as usize + 1];
    let mut cqi = 1;
    while cqi <= CQI_MAX {
        table[cqi as usize] = match Mcs::new(2 * (cqi - 1)) {
            Ok(mcs) => Some(mcs),
            Err(_) => panic!("CQI 15 maps to MCS 28"),
        };
        cqi += 1;
    }
    table
};

/// The rule of the module documentation for the 256QAM tables, worked out; the test
/// `cqi_maps_by_efficiency_in_both_tables` derives it again.
const MCS_OF_CQI_256QAM: [Option<Mcs>; CQI_MAX as usize + 1] = {
    const INDEX: [u8; CQI_MAX as usize] = [0, 2, 4, 6, 8, 10, 11, 13, 15, 17, 19, 21, 23, 25, 27];
    let mut table = [None; CQI_MAX as usize + 1];
    let mut cqi = 1;
    while cqi <= CQI_MAX as usize {
        table[cqi] = match Mcs::new(INDEX[cqi - 1]) {
            Ok(mcs) => Some(mcs),
            Err(_) => panic!("CQI 15 maps to MCS 27"),
        };
        cqi += 1;
    }
    table
};

impl CqiTable {
    /// The MCS (of the table's MCS table) used for CQI `cqi` of this table; `None` for CQI 0.
    #[inline]
    pub fn mcs_for_cqi(self, cqi: Cqi) -> Option<Mcs> {
        match self {
            CqiTable::Table1 => MCS_OF_CQI[usize::from(cqi.get())],
            CqiTable::Table2 => MCS_OF_CQI_256QAM[usize::from(cqi.get())],
        }
    }
}

/// The LTE channel bandwidths, MHz, with their transmission bandwidth configuration N_RB
/// (TS 36.101 Table 5.6-1).
pub const CHANNEL_BANDWIDTHS: [(f64, u32); 6] = [
    (1.4, 6),
    (3.0, 15),
    (5.0, 25),
    (10.0, 50),
    (15.0, 75),
    (20.0, 100),
];

/// Default channel bandwidth of a cell, MHz: 10 MHz, N_RB = 50 (TS 36.101 Table 5.6-1), the
/// middle of the table and the bandwidth of the LTE system-level calibrations (TR 36.814
/// Table A.2.1.1-2, 10 MHz per carrier).
pub const DEFAULT_BANDWIDTH_MHZ: f64 = 10.0;

/// Number of PRBs, N_RB, of an LTE channel bandwidth in MHz ([`CHANNEL_BANDWIDTHS`]):
/// 1.4 → 6, 3 → 15, 5 → 25, 10 → 50, 15 → 75, 20 → 100.
pub fn prbs_for_bandwidth(bandwidth_mhz: f64) -> Result<u32, PhyError> {
    CHANNEL_BANDWIDTHS
        .iter()
        .find(|(mhz, _)| (bandwidth_mhz - mhz).abs() < 1e-9)
        .map(|&(_, n_rb)| n_rb)
        .ok_or(PhyError::Bandwidth { mhz: bandwidth_mhz })
}

/// Bit rate of a UE that receives one transport block of `n_prb` PRBs at MCS `mcs` in every
/// TTI without errors: TBS bits per 1 ms subframe, bits per second. Fails only for a PRB
/// count outside 1..=110.
pub fn transport_rate_bps(mcs: Mcs, n_prb: u32) -> Result<u64, PhyError> {
    Ok(u64::from(tbs_bits_for_mcs(mcs.get(), n_prb)?) * TTIS_PER_SECOND)
}

/// Link adaptation on top of a [`BlerModel`].
#[derive(Clone, Debug, PartialEq)]
pub struct Amc {
    bler: BlerModel,
    /// SINR at BLER 10 % of the MCS of CQI 1..=15 (index 0 unused), dB; finite, since both
    /// forms of `BlerModel` have a finite 10 % point for every MCS. Both also make it strictly
    /// increasing (checked when they are built), but `cqi_for_sinr` does not rely on that.
    cqi_threshold_db: [f64; CQI_MAX as usize + 1],
}

impl Default for Amc {
    fn default() -> Self {
        Amc::new(BlerModel::default())
    }
}

impl Amc {
    pub fn new(bler: BlerModel) -> Self {
        let mut cqi_threshold_db = [f64::NEG_INFINITY; CQI_MAX as usize + 1];
        let table = bler.cqi_table();
        for cqi in Cqi::in_range() {
            if let Some(mcs) = table.mcs_for_cqi(cqi) {
                cqi_threshold_db[usize::from(cqi.get())] = bler.sinr10_db(mcs);
            }
        }
        debug_assert!(cqi_threshold_db[1..].iter().all(|s| s.is_finite()));
        Amc {
            bler,
            cqi_threshold_db,
        }
    }

    /// The BLER curves used to pick the CQI.
    pub fn bler_model(&self) -> &BlerModel {
        &self.bler
    }

    /// The CQI a UE reports at wideband SINR `sinr_db` (dB): the highest CQI whose MCS has BLER
    /// ≤ 10 % at that SINR, 0 if none (and for a NaN SINR). Because no curve increases with
    /// SINR and the threshold is the lowest SINR at which BLER ≤ 10 %, "BLER ≤ 10 %" is "SINR ≥
    /// the MCS's 10 % threshold", which is what is compared, so the result does not depend on
    /// rounding exactly at a threshold. The search runs from CQI 15 down and tests every
    /// threshold on its own, so it picks the highest qualifying CQI even if the thresholds
    /// were out of order.
    pub fn cqi_for_sinr(&self, sinr_db: f64) -> Cqi {
        Cqi::in_range()
            .rev()
            .find(|&cqi| sinr_db >= self.cqi_threshold_db[usize::from(cqi.get())])
            .unwrap_or(Cqi::OUT_OF_RANGE)
    }

    /// The MCS chosen at `sinr_db` through the reported CQI; `None` when the CQI is 0.
    pub fn mcs_for_sinr(&self, sinr_db: f64) -> Option<Mcs> {
        self.mcs_for_cqi(self.cqi_for_sinr(sinr_db))
    }

    /// The MCS for CQI `cqi` in the CQI table of the curves.
    #[inline]
    pub fn mcs_for_cqi(&self, cqi: Cqi) -> Option<Mcs> {
        self.bler.cqi_table().mcs_for_cqi(cqi)
    }

    /// Transmits one transport block of `n_prb` PRBs at `mcs` over a TTI at `sinr_db` (dB) and
    /// returns the bits delivered: the TBS when decoded, 0 when not. One uniform from `rng`.
    /// Fails only for a PRB count outside 1..=110.
    pub fn transmit(
        &self,
        mcs: Mcs,
        n_prb: u32,
        sinr_db: f64,
        rng: &mut RngStream,
    ) -> Result<u32, PhyError> {
        let tbs = self.bler.cqi_table().tbs_bits(mcs.get(), n_prb)?;
        Ok(if self.bler.is_decoded(mcs, sinr_db, rng) {
            tbs
        } else {
            0
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::tables::{cqi_efficiency, tbs_bits, MCS_SPECTRAL_EFFICIENCY};
    use crate::phy::TTI_NS;

    fn cqi(index: u8) -> Cqi {
        Cqi::new(index).unwrap()
    }

    fn mcs(index: u8) -> Mcs {
        Mcs::new(index).unwrap()
    }

    /// The rule of the module documentation: the highest MCS whose R1-081483 efficiency does
    /// not exceed the CQI's, both at two decimals.
    fn by_efficiency(cqi: Cqi) -> Option<u8> {
        let rounded = (cqi_efficiency(cqi.get()).unwrap() * 100.0).round() / 100.0;
        if cqi.is_out_of_range() {
            return None;
        }
        MCS_SPECTRAL_EFFICIENCY
            .iter()
            .rposition(|&se| se <= rounded + 1e-9)
            .map(|m| m as u8)
    }

    #[test]
    fn cqi_maps_to_every_other_mcs() {
        assert_eq!(mcs_for_cqi(Cqi::OUT_OF_RANGE), None);
        for c in Cqi::all() {
            assert_eq!(mcs_for_cqi(c).map(Mcs::get), by_efficiency(c), "CQI {c}");
        }
        for c in 1..=CQI_MAX {
            assert_eq!(mcs_for_cqi(cqi(c)), Some(mcs(2 * (c - 1))), "CQI {c}");
            let se_cqi = cqi_efficiency(c).unwrap();
            let se_mcs = MCS_SPECTRAL_EFFICIENCY[usize::from(2 * (c - 1))];
            assert!((se_mcs - se_cqi).abs() < 0.005);
        }
    }

    #[test]
    fn cqi_increases_with_sinr() {
        let amc = Amc::default();
        assert_eq!(amc.cqi_for_sinr(-20.0), Cqi::OUT_OF_RANGE);
        assert_eq!(amc.cqi_for_sinr(f64::NAN), Cqi::OUT_OF_RANGE);
        assert_eq!(amc.cqi_for_sinr(40.0), Cqi::MAX);
        let mut prev = Cqi::OUT_OF_RANGE;
        let mut seen = [false; 16];
        for tenth_db in -150..=300 {
            let cqi = amc.cqi_for_sinr(f64::from(tenth_db) / 10.0);
            assert!(cqi >= prev);
            prev = cqi;
            seen[usize::from(cqi.get())] = true;
        }
        assert!(seen.iter().all(|&s| s), "every CQI is reachable: {seen:?}");
    }

    #[test]
    fn chosen_cqi_meets_the_bler_target_and_the_next_does_not() {
        let amc = Amc::default();
        let bler = amc.bler_model();
        for tenth_db in -100..=260 {
            let s = f64::from(tenth_db) / 10.0;
            let c = amc.cqi_for_sinr(s);
            if let Some(m) = mcs_for_cqi(c) {
                assert!(bler.bler(m, s) <= 0.1 + 1e-12, "{s} dB");
            }
            if c < Cqi::MAX {
                let next = mcs_for_cqi(cqi(c.get() + 1)).unwrap();
                assert!(bler.bler(next, s) > 0.1, "{s} dB");
            }
        }
        // At a CQI's own threshold the CQI is reported.
        let s = bler.sinr10_db(mcs_for_cqi(cqi(9)).unwrap());
        assert_eq!(amc.cqi_for_sinr(s), cqi(9));
        assert_eq!(amc.mcs_for_sinr(s), Some(mcs(16)));
    }

    #[test]
    fn bandwidths() {
        let cases = [
            (1.4, 6),
            (3.0, 15),
            (5.0, 25),
            (10.0, 50),
            (15.0, 75),
            (20.0, 100),
        ];
        for (mhz, n) in cases {
            assert_eq!(prbs_for_bandwidth(mhz), Ok(n));
        }
        assert_eq!(
            prbs_for_bandwidth(7.0),
            Err(PhyError::Bandwidth { mhz: 7.0 })
        );
        assert!(prbs_for_bandwidth(f64::NAN).is_err());
    }

    #[test]
    fn single_ue_fixed_mcs_gets_tbs_per_millisecond() {
        // One UE, MCS 16 (I_TBS 15) on all 50 PRBs of a 10 MHz carrier, far above threshold:
        // every block is decoded, so the rate is TBS / 1 ms exactly.
        let amc = Amc::default();
        let mut rng = RngStream::new(1, 0, "phy/amc/single_ue");
        let n_prb = prbs_for_bandwidth(10.0).unwrap();
        let tbs = tbs_bits(15, 50).unwrap();
        assert_eq!(tbs, 15264);
        let ttis = 1000u64;
        let bits: u64 = (0..ttis)
            .map(|_| u64::from(amc.transmit(mcs(16), n_prb, 30.0, &mut rng).unwrap()))
            .sum();
        let rate_bps = bits as f64 / (ttis * TTI_NS) as f64 * 1e9;
        assert_eq!(rate_bps, 15_264_000.0);
        assert_eq!(transport_rate_bps(mcs(16), n_prb), Ok(15_264_000));

        // At the MCS's 10 % threshold, 90 % of that.
        let s10 = amc.bler_model().sinr10_db(mcs(16));
        let ttis = 20_000u64;
        let bits: u64 = (0..ttis)
            .map(|_| u64::from(amc.transmit(mcs(16), n_prb, s10, &mut rng).unwrap()))
            .sum();
        let ratio = bits as f64 / (ttis as f64 * f64::from(tbs));
        assert!((ratio - 0.9).abs() < 0.01, "{ratio}");
    }

    #[test]
    fn cqi_maps_by_efficiency_in_both_tables() {
        use crate::phy::tables::CQI_TABLE_256QAM;
        for table in [CqiTable::Table1, CqiTable::Table2] {
            let rows = table.cqi_rows();
            let se = table.mcs_efficiencies();
            assert_eq!(table.mcs_for_cqi(Cqi::OUT_OF_RANGE), None);
            for c in Cqi::in_range() {
                let e = rows[usize::from(c.get())].unwrap().efficiency;
                let rounded = (e * 100.0).round() / 100.0;
                let rule = se
                    .iter()
                    .rposition(|&s| s <= rounded + 1e-9)
                    .map(|m| m as u8);
                assert_eq!(
                    table.mcs_for_cqi(c).map(Mcs::get),
                    rule,
                    "{table:?} CQI {c}"
                );
            }
        }
        // CQI 15 of Table 7.2.3-2 (256QAM, rate 948/1024) is served at 256QAM, I_TBS 33.
        let top = CqiTable::Table2.mcs_for_cqi(Cqi::MAX).unwrap();
        assert_eq!(top.get(), 27);
        assert_eq!(CqiTable::Table2.mcs_to_itbs(top.get()), Ok((8, 33)));
        assert_eq!(CQI_TABLE_256QAM[15].unwrap().modulation.order(), 8);
        assert_eq!(CqiTable::Table1.mcs_for_cqi(Cqi::MAX), Some(Mcs::MAX));
    }

    #[test]
    fn the_256qam_curves_rise_above_the_64qam_ones() {
        let t2 = BlerModel::from_shannon_bound_for(
            CqiTable::Table2,
            crate::phy::bler::DEFAULT_SHANNON_ETA,
            crate::phy::bler::DEFAULT_SNR_EFFICIENCY_DB,
            1.0,
        )
        .unwrap();
        let t1 = BlerModel::default();
        // Shared transport formats keep their thresholds (Table 7.1.7.1-1A MCS 19 = MCS 26).
        assert_eq!(t2.sinr10_db(mcs(19)), t1.sinr10_db(mcs(26)));
        assert!(t2.sinr10_db(mcs(27)) > t1.sinr10_db(Mcs::MAX) + 7.0);
        assert!((t2.sinr10_db(mcs(27)) - 30.7).abs() < 0.05);
        let amc = Amc::new(t2);
        assert_eq!(amc.cqi_for_sinr(t1.sinr10_db(Mcs::MAX) + 0.5), cqi(12));
        assert_eq!(amc.cqi_for_sinr(40.0), Cqi::MAX);
        assert_eq!(amc.mcs_for_sinr(40.0), Some(mcs(27)));
    }
}
