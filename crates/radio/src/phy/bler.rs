//! Block error rate of a transport block as a function of its SINR, per MCS, and HARQ chase
//! combining.
//!
//! [`BlerModel`] has two forms: the default logistic curves below, and link-level curves
//! supplied as a table of (SINR, BLER) points per MCS ([`BlerTable`], [`BlerModel::from_table`]).
//! Both answer the same questions with the same semantics: BLER at an SINR, the 10 % point of
//! each MCS, the BLER after chase combining, and one decoding draw.
//!
//! # Logistic form
//!
//! Each MCS m has a threshold `s10[m]`, the SINR (dB) at which its BLER is 10 %, and all MCSs
//! share a slope. Between and around the thresholds the curve is logistic in dB:
//!
//! ```text
//! BLER_m(s) = 1 / (1 + 9 · exp((s − s10[m]) / w))
//! ```
//!
//! so that BLER = 0.1 exactly at `s10[m]` and falls to 0.01 at `s10[m] + w·ln 11`. The
//! parameter callers set is that SINR step from 10 % to 1 % (`decade_db`, default 1 dB).
//!
//! The default thresholds are calibrated on the attenuated Shannon bound that Mogensen et al.
//! fitted to LTE link adaptation ("LTE Capacity compared to the Shannon Bound", IEEE VTC
//! 2007-Spring): spectral efficiency `SE = η · log2(1 + SINR / Γ)` with `η` = 0.75 and an SNR
//! efficiency (implementation gap) `Γ` = 1.25, i.e. 0.97 dB. The MCS whose efficiency is
//! `SE_m` (R1-081483, [`MCS_SPECTRAL_EFFICIENCY`](super::tables::MCS_SPECTRAL_EFFICIENCY)) is taken to reach its 10 % BLER point where
//! the bound delivers `SE_m`:
//!
//! ```text
//! s10[m] = Γ_dB + 10·log10(2^(SE_m / η) − 1)        (−7.3 dB for MCS 0 … 23.2 dB for MCS 28)
//! ```
//!
//! The MCSs of the 256QAM table (TS 36.213 Table 7.1.7.1-1A, [`CqiTable::Table2`]) are
//! placed by the same rule on their efficiencies (`tables::MCS_SPECTRAL_EFFICIENCY_256QAM`):
//! its QPSK to 64QAM MCSs are transport formats of Table 7.1.7.1-1 and get their thresholds,
//! and the 256QAM ones follow the bound up to 30.7 dB for I_MCS 27 (7.41 bit/RE). Mogensen
//! et al. fitted the bound up to 64QAM; extending it to 256QAM assumes the same implementation
//! gap, which suits an ideal receiver — link-level results for 256QAM (e.g. the Vienna LTE-A
//! simulators) need a few dB more at the top MCSs, as EVM and channel estimation limit
//! 256QAM; a link-level table (`BlerTable::parse_for`) replaces the curves where that matters.
//!
//! # Chase combining
//!
//! HARQ with chase combining (every retransmission repeats the same coded bits, which the
//! receiver adds with maximum-ratio combining) is modelled by the usual effective-SINR rule: the
//! SINR of the combined block after k transmissions is the sum of the k linear SINRs, and its
//! BLER is read off the same curve, logistic or table.
//!
//! Simplifications (see `docs/lte-phy.md`): one curve per MCS whatever the block length and the
//! number of PRBs; the SINR is one wideband value per transmission (no effective-SINR mapping
//! over subcarriers); no incremental redundancy.

use celltcp_engine::RngStream;

use super::bler_table::{check_target, BlerTable};
use super::index::Mcs;
use super::tables::{CqiTable, MCS_COUNT};
use super::PhyError;

/// BLER at which CQI is defined (TS 36.213 §7.2.3: the transport block "could be received with
/// a transport block error probability not exceeding 0.1") and at which the thresholds are set.
pub const BLER_TARGET: f64 = 0.1;

/// Default `η` of the attenuated Shannon bound (Mogensen et al. 2007).
pub const DEFAULT_SHANNON_ETA: f64 = 0.75;

/// Default SNR efficiency `Γ` of the attenuated Shannon bound, dB (1.25 linear, Mogensen et al.
/// 2007).
pub const DEFAULT_SNR_EFFICIENCY_DB: f64 = 0.969_100_130_080_564_2;

/// Default SINR step from BLER 10 % to 1 %, dB.
pub const DEFAULT_DECADE_DB: f64 = 1.0;

/// BLER curves of the 29 PDSCH MCSs: logistic curves around per-MCS 10 % thresholds (the
/// default) or link-level curves from a [`BlerTable`].
///
/// Complete by construction: both forms hold one curve per [`Mcs`], each with a finite 10 %
/// point, strictly increasing with the MCS, and give a BLER in [0, 1] at every SINR. So every
/// query for an MCS answers, and the cell, which chooses only MCSs, cannot meet an MCS without
/// a curve while it runs.
#[derive(Clone, Debug, PartialEq)]
pub struct BlerModel {
    /// The CQI table whose MCS table the curves are of.
    cqi_table: CqiTable,
    curves: Curves,
}

/// The two forms of [`BlerModel`]. The logistic thresholds stay inline (one model per cell,
/// never stored in bulk), so the default model allocates nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
enum Curves {
    Logistic {
        /// SINR at BLER 10 % of each MCS, dB; strictly increasing over the MCSs of the table.
        /// A 256QAM table has no MCS 28; its entry repeats MCS 27's, never selected.
        sinr10_db: [f64; MCS_COUNT],
        /// Logistic scale `w`, dB.
        width_db: f64,
    },
    Table(BlerTable),
}

impl Default for BlerModel {
    /// Thresholds from the attenuated Shannon bound with the defaults above, 1 dB per decade.
    fn default() -> Self {
        Self::from_shannon_bound(
            DEFAULT_SHANNON_ETA,
            DEFAULT_SNR_EFFICIENCY_DB,
            DEFAULT_DECADE_DB,
        )
        .expect("the default calibration is valid")
    }
}

impl From<BlerTable> for BlerModel {
    fn from(table: BlerTable) -> Self {
        Self::from_table(table)
    }
}

impl BlerModel {
    /// Thresholds from the attenuated Shannon bound `SE = eta · log2(1 + SINR/Γ)` with
    /// `Γ = snr_efficiency_db` (dB) and slope `decade_db` (SINR step from BLER 10 % to 1 %, dB).
    pub fn from_shannon_bound(
        eta: f64,
        snr_efficiency_db: f64,
        decade_db: f64,
    ) -> Result<Self, PhyError> {
        Self::from_shannon_bound_for(CqiTable::Table1, eta, snr_efficiency_db, decade_db)
    }

    /// [`BlerModel::from_shannon_bound`] for the MCSs of `table`'s MCS table.
    pub fn from_shannon_bound_for(
        table: CqiTable,
        eta: f64,
        snr_efficiency_db: f64,
        decade_db: f64,
    ) -> Result<Self, PhyError> {
        if !(eta > 0.0 && eta <= 1.0) {
            return Err(PhyError::Param {
                param: "eta",
                value: eta,
                expected: "a bandwidth/SNR efficiency factor in (0, 1]",
            });
        }
        if !snr_efficiency_db.is_finite() {
            return Err(PhyError::Param {
                param: "snr_efficiency_db",
                value: snr_efficiency_db,
                expected: "a finite gap in dB",
            });
        }
        let mut sinr10_db = [0.0; MCS_COUNT];
        for (s, se) in sinr10_db.iter_mut().zip(table.mcs_efficiencies()) {
            *s = snr_efficiency_db + 10.0 * ((se / eta).exp2() - 1.0).log10();
        }
        Self::from_thresholds_for(table, sinr10_db, decade_db)
    }

    /// Thresholds given directly, for example read off published link-level curves:
    /// `sinr10_db[m]` is the SINR (dB) at which MCS m has BLER 10 %; they must be finite and
    /// strictly increasing with m. `decade_db` is the SINR step from BLER 10 % to 1 %, dB.
    pub fn from_thresholds(sinr10_db: [f64; MCS_COUNT], decade_db: f64) -> Result<Self, PhyError> {
        Self::from_thresholds_for(CqiTable::Table1, sinr10_db, decade_db)
    }

    /// [`BlerModel::from_thresholds`] for the MCSs of `table`'s MCS table; entries beyond its
    /// highest MCS are ignored.
    pub fn from_thresholds_for(
        table: CqiTable,
        mut sinr10_db: [f64; MCS_COUNT],
        decade_db: f64,
    ) -> Result<Self, PhyError> {
        let count = table.mcs_rows().len();
        if !(decade_db > 0.0 && decade_db.is_finite()) {
            return Err(PhyError::Param {
                param: "decade_db",
                value: decade_db,
                expected: "a positive, finite SINR step in dB",
            });
        }
        for (m, s) in sinr10_db.iter().enumerate().take(count) {
            if !s.is_finite() || (m > 0 && *s <= sinr10_db[m - 1]) {
                return Err(PhyError::Param {
                    param: "sinr10_db",
                    value: *s,
                    expected: "finite thresholds strictly increasing with the MCS index",
                });
            }
        }
        let last = sinr10_db[count - 1];
        sinr10_db[count..].fill(last);
        Ok(BlerModel {
            cqi_table: table,
            curves: Curves::Logistic {
                sinr10_db,
                width_db: decade_db / 11f64.ln(),
            },
        })
    }

    /// Link-level curves from a validated table: BLER interpolated between its points (see
    /// [`BlerTable`]). Every MCS has a curve and the 10 % points increase with the MCS, which
    /// the table checked when it was built.
    pub fn from_table(table: BlerTable) -> Self {
        BlerModel {
            cqi_table: table.cqi_table(),
            curves: Curves::Table(table),
        }
    }

    /// The CQI table whose MCS table the curves are of.
    pub fn cqi_table(&self) -> CqiTable {
        self.cqi_table
    }

    /// The table behind this model; `None` for the logistic form.
    pub fn table(&self) -> Option<&BlerTable> {
        match &self.curves {
            Curves::Logistic { .. } => None,
            Curves::Table(table) => Some(table),
        }
    }

    /// SINR at which MCS `mcs` has BLER 10 %, dB; finite. For a table, the lowest SINR at which
    /// the interpolated curve is at or below 0.1 (where it crosses 0.1).
    #[inline]
    pub fn sinr10_db(&self, mcs: Mcs) -> f64 {
        match &self.curves {
            Curves::Logistic { sinr10_db, .. } => sinr10_db[mcs.index()],
            Curves::Table(table) => table.sinr10_db(mcs),
        }
    }

    /// SINR step from BLER 10 % to 1 %, dB. For the logistic form the slope shared by every
    /// MCS. For a table, whose curves each have their own slope, the mean over the MCSs whose
    /// curve reaches 1 % of `sinr_db_for_bler(mcs, 0.01) − sinr10_db(mcs)`, NaN when no curve
    /// reaches 1 %; use [`BlerModel::sinr_db_for_bler`] for the step of one MCS.
    pub fn decade_db(&self) -> f64 {
        match &self.curves {
            Curves::Logistic { width_db, .. } => width_db * 11f64.ln(),
            Curves::Table(table) => {
                let (sum, count) = Mcs::all()
                    .filter(|m| self.cqi_table.has_mcs(m.get()))
                    .filter_map(|mcs| {
                        let s1 = table.curve_sinr_db_for_bler(mcs, 0.01);
                        s1.is_finite().then(|| s1 - table.sinr10_db(mcs))
                    })
                    .fold((0.0, 0u32), |(sum, n), step| (sum + step, n + 1));
                if count == 0 {
                    f64::NAN
                } else {
                    sum / f64::from(count)
                }
            }
        }
    }

    /// The lowest SINR (dB) at which MCS `mcs` has BLER ≤ `bler` (a probability in [0, 1]):
    /// the inverse of [`BlerModel::bler`]. −∞ when the curve is at or below `bler` at every
    /// SINR (`bler` = 1, or a table's first point), +∞ when it never gets there (`bler` = 0 for
    /// the logistic form, below a table's last point). Fails only for a `bler` outside [0, 1].
    pub fn sinr_db_for_bler(&self, mcs: Mcs, bler: f64) -> Result<f64, PhyError> {
        match &self.curves {
            Curves::Logistic { width_db, .. } => {
                let s10 = self.sinr10_db(mcs);
                check_target(bler)?;
                // Solving 1/(1 + 9·e^((s − s10)/w)) = b: s = s10 + w·ln((1/b − 1)/9).
                Ok(if bler >= 1.0 {
                    f64::NEG_INFINITY
                } else if bler <= 0.0 {
                    f64::INFINITY
                } else {
                    s10 + width_db * ((1.0 / bler - 1.0) / 9.0).ln()
                })
            }
            Curves::Table(table) => table.sinr_db_for_bler(mcs, bler),
        }
    }

    /// BLER of one transmission at MCS `mcs` and SINR `sinr_db` (dB), in [0, 1] for every
    /// SINR: 1 at −∞, 0 at +∞ (logistic; a table keeps its end points' BLER), and a NaN SINR
    /// counts as no signal (BLER 1). Every MCS has a curve, so this cannot fail.
    #[inline]
    pub fn bler(&self, mcs: Mcs, sinr_db: f64) -> f64 {
        let bler = match &self.curves {
            Curves::Logistic {
                sinr10_db,
                width_db,
            } => {
                let bler =
                    1.0 / (1.0 + 9.0 * ((sinr_db - sinr10_db[mcs.index()]) / width_db).exp());
                if bler.is_nan() {
                    1.0
                } else {
                    bler
                }
            }
            Curves::Table(table) => table.bler(mcs, sinr_db),
        };
        debug_assert!((0.0..=1.0).contains(&bler), "BLER {bler} of MCS {mcs}");
        bler
    }

    /// BLER of a block at MCS `mcs` after the transmissions accumulated in `combining`; 1 when
    /// nothing has been received yet.
    pub fn bler_combined(&self, mcs: Mcs, combining: &ChaseCombining) -> f64 {
        if combining.transmissions() == 0 {
            return 1.0;
        }
        self.bler(mcs, combining.effective_sinr_db())
    }

    /// Draws whether a block at MCS `mcs` and SINR `sinr_db` is decoded. Uses exactly one
    /// uniform from `rng` whatever the outcome and whatever the form of the model, so the stream
    /// stays aligned across runs that differ only in SINR or in the curves.
    pub fn is_decoded(&self, mcs: Mcs, sinr_db: f64, rng: &mut RngStream) -> bool {
        let bler = self.bler(mcs, sinr_db);
        rng.next_f64() >= bler
    }
}

/// Soft-combining buffer of one HARQ process under chase combining: the linear SINRs of the
/// transmissions of one transport block add up.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ChaseCombining {
    /// Sum of the linear SINRs received so far.
    sinr_sum_linear: f64,
    transmissions: u32,
}

impl ChaseCombining {
    /// An empty buffer (a new transport block).
    pub const fn new() -> Self {
        ChaseCombining {
            sinr_sum_linear: 0.0,
            transmissions: 0,
        }
    }

    /// Adds one (re)transmission received at `sinr_db` (dB). A NaN SINR adds nothing but counts
    /// as a transmission.
    pub fn add_transmission(&mut self, sinr_db: f64) {
        let linear = 10f64.powf(sinr_db / 10.0);
        if linear.is_finite() {
            self.sinr_sum_linear += linear;
        } else if linear == f64::INFINITY {
            self.sinr_sum_linear = f64::INFINITY;
        }
        self.transmissions += 1;
    }

    /// Transmissions combined so far.
    pub fn transmissions(&self) -> u32 {
        self.transmissions
    }

    /// SINR of the combined block, dB: `10·log10(Σ 10^(SINR_i/10))`; −∞ when empty.
    pub fn effective_sinr_db(&self) -> f64 {
        10.0 * self.sinr_sum_linear.log10()
    }

    /// Empties the buffer (the block was decoded or dropped).
    pub fn clear(&mut self) {
        *self = Self::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mcs(index: u8) -> Mcs {
        Mcs::new(index).unwrap()
    }

    #[test]
    fn default_thresholds_follow_the_shannon_fit() {
        let m = BlerModel::default();
        // Hand-computed: 0.969 + 10·log10(2^(0.15/0.75) − 1) = 0.969 − 8.277 = −7.31 dB.
        assert!((m.sinr10_db(Mcs::MIN) - (-7.308)).abs() < 0.01);
        // 0.969 + 10·log10(2^(5.55/0.75) − 1) = 0.969 + 22.250 = 23.22 dB.
        assert!((m.sinr10_db(Mcs::MAX) - 23.219).abs() < 0.01);
        assert!((m.decade_db() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn bler_is_ten_percent_at_threshold_and_one_percent_a_decade_later() {
        let m = BlerModel::default();
        for mcs in Mcs::all() {
            let s10 = m.sinr10_db(mcs);
            assert!((m.bler(mcs, s10) - 0.1).abs() < 1e-12);
            assert!((m.bler(mcs, s10 + 1.0) - 0.01).abs() < 1e-12);
        }
    }

    #[test]
    fn bler_decreases_with_sinr_and_increases_with_mcs() {
        let m = BlerModel::default();
        for mcs in Mcs::all() {
            let mut prev = 1.0;
            for tenth_db in -200..=400 {
                let b = m.bler(mcs, f64::from(tenth_db) / 10.0);
                assert!((0.0..=1.0).contains(&b));
                assert!(b <= prev, "MCS {mcs} at {} dB", f64::from(tenth_db) / 10.0);
                prev = b;
            }
            assert!(m.bler(mcs, -30.0) > 0.999);
            assert!(m.bler(mcs, 60.0) < 1e-6);
            assert_eq!(m.bler(mcs, f64::INFINITY), 0.0);
            assert_eq!(m.bler(mcs, f64::NEG_INFINITY), 1.0);
        }
        for m1 in 1..=Mcs::MAX.get() {
            assert!(m.bler(mcs(m1), 10.0) > m.bler(mcs(m1 - 1), 10.0));
        }
        assert_eq!(m.bler(Mcs::MIN, f64::NAN), 1.0);
    }

    #[test]
    fn rejects_bad_calibrations() {
        assert!(BlerModel::from_shannon_bound(0.0, 1.0, 1.0).is_err());
        assert!(BlerModel::from_shannon_bound(0.75, f64::NAN, 1.0).is_err());
        assert!(BlerModel::from_shannon_bound(0.75, 1.0, 0.0).is_err());
        let mut t = [0.0; MCS_COUNT];
        for (i, s) in t.iter_mut().enumerate() {
            *s = i as f64;
        }
        assert!(BlerModel::from_thresholds(t, 1.0).is_ok());
        t[5] = t[4];
        let e = BlerModel::from_thresholds(t, 1.0).unwrap_err();
        assert!(
            e.to_string().starts_with("sinr10_db: 4 is out of range"),
            "{e}"
        );
    }

    #[test]
    fn chase_combining_adds_linear_sinrs() {
        let mut c = ChaseCombining::new();
        assert_eq!(c.effective_sinr_db(), f64::NEG_INFINITY);
        c.add_transmission(0.0);
        assert!((c.effective_sinr_db() - 0.0).abs() < 1e-12);
        c.add_transmission(0.0);
        // 1 + 1 = 2 → 3.0103 dB.
        assert!((c.effective_sinr_db() - 3.010_299_956_6).abs() < 1e-9);
        c.add_transmission(10.0);
        // 1 + 1 + 10 = 12 → 10.7918 dB.
        assert!((c.effective_sinr_db() - 10.791_812_460_5).abs() < 1e-9);
        assert_eq!(c.transmissions(), 3);
        c.clear();
        assert_eq!(c.transmissions(), 0);
    }

    #[test]
    fn bler_after_k_transmissions_uses_the_combined_sinr() {
        let m = BlerModel::default();
        let mcs = mcs(10);
        let s = m.sinr10_db(mcs) - 3.0; // first transmission: BLER well above 10 %
        let mut c = ChaseCombining::new();
        assert_eq!(m.bler_combined(mcs, &c), 1.0);
        let mut prev = 1.0;
        for k in 1..=4u32 {
            c.add_transmission(s);
            let b = m.bler_combined(mcs, &c);
            let expected = m.bler(mcs, s + 10.0 * f64::from(k).log10());
            assert!((b - expected).abs() < 1e-12);
            assert!(b < prev);
            prev = b;
        }
        // Two equal transmissions gain 10·log10(2) = 3.01 dB.
        let mut two = ChaseCombining::new();
        two.add_transmission(s);
        two.add_transmission(s);
        assert!((m.bler_combined(mcs, &two) - m.bler(mcs, s + 3.0103)).abs() < 1e-4);
    }

    #[test]
    fn decoding_draws_match_the_bler() {
        let m = BlerModel::default();
        let mut rng = RngStream::new(3, 0, "phy/bler/test");
        let mcs = mcs(15);
        let s10 = m.sinr10_db(mcs);
        let n = 100_000;
        let lost = (0..n).filter(|_| !m.is_decoded(mcs, s10, &mut rng)).count();
        let rate = lost as f64 / n as f64;
        assert!((rate - 0.1).abs() < 0.004, "{rate}");
    }
}
