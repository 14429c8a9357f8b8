//! Link abstraction: BLER of an NR transport block per MCS as a function of SINR, link
//! adaptation, and the MIMO rank from the SINR.
//!
//! # BLER
//!
//! [`NrBlerModel`] has the logistic form of the LTE model ([`crate::phy::BlerModel`]), with
//! the same semantics: MCS m has a 10 % point `s10[m]` (dB), all MCSs share a slope, and
//!
//! ```text
//! BLER_m(s) = 1 / (1 + 9 · exp((s − s10[m]) / w)),    w = decade_db / ln 11
//! ```
//!
//! so BLER is 0.1 at `s10[m]` and 0.01 one `decade_db` higher. The default thresholds put each
//! MCS where the attenuated Shannon bound SE = η · log2(1 + SINR/Γ) delivers its spectral
//! efficiency Q_m · R (TS 38.214 Tables 5.1.3.1-1/-2/-3), with Mogensen et al.'s fit
//! η = 0.75, Γ = 1.25 (0.97 dB) ("LTE Capacity compared to the Shannon Bound", IEEE VTC
//! 2007-Spring) and 1 dB per decade — the LTE model's defaults. No NR-specific fit is
//! claimed: LDPC codes at these block lengths decode within a few tenths of a dB of the turbo
//! codes the fit was made with, and link-level AWGN curves (for example those 5G-LENA ships
//! from its NR link-level simulator) replace the thresholds through
//! [`NrBlerModel::from_thresholds`], or whole link-level curves through
//! [`NrBlerModel::parse_table`], which reads the LTE [`BlerTable`] CSV format with this
//! table's MCS range. Chase combining uses the LTE crate's
//! [`ChaseCombining`]: the combined SINR is the sum of the linear SINRs.
//!
//! # Rank
//!
//! [`rank_for_sinr`] picks the number of layers that maximises the expected rate
//! L · SE(best MCS at the per-layer SINR), the throughput-maximising rank criterion of
//! Schwarz, Mehlführer and Rupp ("Calculation of the spatial preprocessing and link
//! adaption feedback for 3GPP UMTS/LTE", WiAD 2010), abstracted: the transmit power is split
//! equally over L layers (−10·log10 L dB each), and each layer beyond the first loses a
//! further `layer_loss_db` to the weaker eigenmodes and the inter-layer interference of a
//! real channel. With `layer_loss_db` = 0 the layers are ideal orthogonal channels; its value
//! is a modelling choice, not a measured figure — `docs/nr.md` says more.

use std::io::BufRead;

use celltcp_engine::RngStream;

use super::mcs::McsTable;
use super::{NrError, MAX_LAYERS};
use crate::phy::{BlerTable, BlerTableError, ChaseCombining, CqiTable, Mcs};

/// Default `η` of the attenuated Shannon bound (Mogensen et al. 2007), as for LTE.
pub const DEFAULT_SHANNON_ETA: f64 = crate::phy::bler::DEFAULT_SHANNON_ETA;

/// Default SNR efficiency `Γ`, dB (Mogensen et al. 2007), as for LTE.
pub const DEFAULT_SNR_EFFICIENCY_DB: f64 = crate::phy::bler::DEFAULT_SNR_EFFICIENCY_DB;

/// Default SINR step from BLER 10 % to 1 %, dB, as for LTE.
pub const DEFAULT_DECADE_DB: f64 = crate::phy::bler::DEFAULT_DECADE_DB;

/// Default per-layer loss of [`rank_for_sinr`] beyond the power split, dB.
pub const DEFAULT_LAYER_LOSS_DB: f64 = 3.0;

/// BLER curves of the data MCSs of one NR MCS table: logistic, or link-level points.
#[derive(Clone, Debug, PartialEq)]
pub struct NrBlerModel {
    table: McsTable,
    curves: Curves,
}

#[derive(Clone, Debug, PartialEq)]
enum Curves {
    Logistic {
        /// SINR at BLER 10 % of each data MCS, dB, finite.
        sinr10_db: Vec<f64>,
        /// Logistic scale `w`, dB.
        width_db: f64,
    },
    /// Points per MCS read by the LTE reader ([`BlerTable`]), its MCS indices read as
    /// this table's.
    Table(BlerTable),
}

/// The LTE table whose MCS count the reader checks a file of `table` against: 29 MCSs
/// (0..=28) for the two 64QAM tables, 28 (0..=27) for the 256QAM one.
fn reader_table(table: McsTable) -> CqiTable {
    match table {
        McsTable::Qam64 | McsTable::Qam64LowSe => CqiTable::Table1,
        McsTable::Qam256 => CqiTable::Table2,
    }
}

impl NrBlerModel {
    /// Default curves for `table`: attenuated Shannon bound with the defaults above.
    pub fn for_table(table: McsTable) -> Self {
        Self::from_shannon_bound(
            table,
            DEFAULT_SHANNON_ETA,
            DEFAULT_SNR_EFFICIENCY_DB,
            DEFAULT_DECADE_DB,
        )
        .expect("the default calibration is valid")
    }

    /// Thresholds from SE = `eta` · log2(1 + SINR/Γ), Γ = `snr_efficiency_db`:
    /// `s10[m] = Γ_dB + 10·log10(2^(SE_m/η) − 1)`.
    pub fn from_shannon_bound(
        table: McsTable,
        eta: f64,
        snr_efficiency_db: f64,
        decade_db: f64,
    ) -> Result<Self, NrError> {
        if !(eta > 0.0 && eta <= 1.0) {
            return Err(NrError::Param {
                param: "eta",
                value: eta,
                expected: "a bandwidth/SNR efficiency factor in (0, 1]",
            });
        }
        let sinr10_db: Vec<f64> = table
            .rows()
            .iter()
            .map(|r| {
                snr_efficiency_db + 10.0 * ((r.spectral_efficiency() / eta).exp2() - 1.0).log10()
            })
            .collect();
        Self::from_thresholds(table, &sinr10_db, decade_db)
    }

    /// Thresholds given directly, one per data MCS of `table` (e.g. the 10 % points of
    /// link-level AWGN curves), finite; `decade_db` > 0 is the step from 10 % to 1 %.
    pub fn from_thresholds(
        table: McsTable,
        sinr10_db: &[f64],
        decade_db: f64,
    ) -> Result<Self, NrError> {
        if sinr10_db.len() != table.rows().len() {
            return Err(NrError::Param {
                param: "sinr10_db",
                value: sinr10_db.len() as f64,
                expected: "one threshold per data MCS of the table",
            });
        }
        if let Some(bad) = sinr10_db.iter().find(|s| !s.is_finite()) {
            return Err(NrError::Param {
                param: "sinr10_db",
                value: *bad,
                expected: "finite thresholds in dB",
            });
        }
        if !(decade_db > 0.0 && decade_db.is_finite()) {
            return Err(NrError::Param {
                param: "decade_db",
                value: decade_db,
                expected: "a positive, finite SINR step in dB",
            });
        }
        Ok(NrBlerModel {
            table,
            curves: Curves::Logistic {
                sinr10_db: sinr10_db.to_vec(),
                width_db: decade_db / 11f64.ln(),
            },
        })
    }

    /// Link-level curves of `table` from CSV text in the format of [`BlerTable`]
    /// (`mcs,sinr_db,bler`, one point a line, every data MCS of `table` with at least two
    /// points, 10 % points increasing with the MCS). The reader, its interpolation (linear in
    /// log10 BLER) and its checks are the LTE ones; only the MCS range is this table's.
    pub fn parse_table(table: McsTable, text: &str) -> Result<Self, BlerTableError> {
        Self::from_reader(table, text.as_bytes())
    }

    /// [`NrBlerModel::parse_table`] read line by line from `reader` (the LTE reader's bounded
    /// lines, [`BlerTable::from_reader_cited`]); an `mcs` beyond `table`'s data MCSs is an
    /// error citing `table`. The size of the whole stream is the caller's to bound.
    pub fn from_reader(table: McsTable, reader: impl BufRead) -> Result<Self, BlerTableError> {
        let efficiency: Vec<f64> = table
            .rows()
            .iter()
            .map(|r| r.spectral_efficiency())
            .collect();
        let points = BlerTable::from_reader_cited(
            reader_table(table),
            table.citation(),
            &efficiency,
            reader,
        )?;
        Ok(Self::from_points(table, points))
    }

    /// Link-level curves of `table` already read, for example by a scenario's file reader
    /// through [`NrBlerModel::from_reader`]: the points of each of `table`'s data MCSs.
    ///
    /// # Panics
    /// If `points` was read for another number of MCSs than `table` has (29 for the 64QAM
    /// tables, 28 for the 256QAM one): a caller's bug, as the reader checks the range.
    pub fn from_points(table: McsTable, points: BlerTable) -> Self {
        assert_eq!(
            points.cqi_table(),
            reader_table(table),
            "BLER points read for another MCS count than {table}"
        );
        NrBlerModel {
            table,
            curves: Curves::Table(points),
        }
    }

    /// The link-level points behind this model; `None` for the logistic form.
    pub fn points_table(&self) -> Option<&BlerTable> {
        match &self.curves {
            Curves::Table(t) => Some(t),
            Curves::Logistic { .. } => None,
        }
    }

    /// The MCS table the curves are of.
    pub fn mcs_table(&self) -> McsTable {
        self.table
    }

    /// `mcs` as an index of the reader's tables, after checking it is a data MCS of this
    /// table (the reader's range is the same size).
    fn checked(&self, mcs: u8) -> Result<Mcs, NrError> {
        let err = NrError::Mcs {
            table: self.table,
            index: mcs,
        };
        if mcs > self.table.max_index() {
            return Err(err);
        }
        Mcs::new(mcs).map_err(|_| err)
    }

    /// SINR at which MCS `mcs` has BLER 10 %, dB.
    pub fn sinr10_db(&self, mcs: u8) -> Result<f64, NrError> {
        let m = self.checked(mcs)?;
        Ok(match &self.curves {
            Curves::Logistic { sinr10_db, .. } => sinr10_db[m.index()],
            Curves::Table(t) => t.sinr10_db(m),
        })
    }

    /// BLER of one transmission at MCS `mcs` and SINR `sinr_db`, in [0, 1]; a NaN SINR counts
    /// as no signal.
    pub fn bler(&self, mcs: u8, sinr_db: f64) -> Result<f64, NrError> {
        let m = self.checked(mcs)?;
        if sinr_db.is_nan() {
            return Ok(1.0);
        }
        Ok(match &self.curves {
            Curves::Logistic {
                sinr10_db,
                width_db,
            } => 1.0 / (1.0 + 9.0 * ((sinr_db - sinr10_db[m.index()]) / width_db).exp()),
            Curves::Table(t) => t.bler(m, sinr_db),
        })
    }

    /// BLER after the transmissions chase-combined in `combining`; 1 before the first.
    pub fn bler_combined(&self, mcs: u8, combining: &ChaseCombining) -> Result<f64, NrError> {
        self.bler(mcs, combining.effective_sinr_db())
    }

    /// Draws whether a block is decoded; exactly one uniform from `rng` per call.
    pub fn is_decoded(&self, mcs: u8, sinr_db: f64, rng: &mut RngStream) -> Result<bool, NrError> {
        let bler = self.bler(mcs, sinr_db)?;
        Ok(rng.next_f64() >= bler)
    }

    /// Link adaptation: of the MCSs with BLER ≤ `target_bler` at `sinr_db`, the one of
    /// highest spectral efficiency (the lower index on a tie); `None` when none meets it.
    pub fn best_mcs(&self, sinr_db: f64, target_bler: f64) -> Option<u8> {
        let rows = self.table.rows();
        let se = |m: u8| rows[usize::from(m)].spectral_efficiency();
        (0..rows.len() as u8)
            .filter(|m| self.bler(*m, sinr_db).is_ok_and(|b| b <= target_bler))
            // `max_by` keeps the last of equal elements; iterating downwards makes that the
            // lower index.
            .rev()
            .max_by(|a, b| se(*a).total_cmp(&se(*b)))
    }
}

/// SINR of each of `layers` layers for a single-layer SINR `sinr_db`: the transmit power
/// split equally (−10·log10 L dB) and `layer_loss_db` lost by each layer beyond the first (the
/// rule of the module documentation, used for the rank and for decoding alike).
pub fn per_layer_sinr_db(sinr_db: f64, layers: u8, layer_loss_db: f64) -> f64 {
    let l = layers.max(1);
    sinr_db - 10.0 * f64::from(l).log10() - f64::from(l - 1) * layer_loss_db
}

/// Number of layers 1..=`max_layers` (at most 4) for a wideband SINR `sinr_db` (the SINR of
/// single-layer transmission): the L maximising L · SE(best MCS of `model` at BLER 10 % at
/// SINR − 10·log10 L − (L − 1)·`layer_loss_db`), the lower L on a tie, and 1 when no MCS
/// meets the target at any rank. See the module documentation for the rule and its source.
pub fn rank_for_sinr(model: &NrBlerModel, sinr_db: f64, max_layers: u8, layer_loss_db: f64) -> u8 {
    let rows = model.mcs_table().rows();
    let mut best = (1u8, 0.0f64);
    for layers in 1..=max_layers.clamp(1, MAX_LAYERS) {
        let per_layer_db = per_layer_sinr_db(sinr_db, layers, layer_loss_db);
        let rate = model.best_mcs(per_layer_db, 0.1).map_or(0.0, |m| {
            f64::from(layers) * rows[usize::from(m)].spectral_efficiency()
        });
        if rate > best.1 {
            best = (layers, rate);
        }
    }
    best.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_follow_the_bound() {
        let m = NrBlerModel::for_table(McsTable::Qam256);
        // MCS 27 (7.4063 bit/RE): 0.97 + 10·log10(2^(7.4063/0.75) − 1) = 30.7 dB, as LTE's
        // 256QAM top MCS of the same efficiency.
        assert!((m.sinr10_db(27).unwrap() - 30.7).abs() < 0.05);
        assert!((m.bler(27, m.sinr10_db(27).unwrap()).unwrap() - 0.1).abs() < 1e-12);
        assert!((m.bler(5, m.sinr10_db(5).unwrap() + 1.0).unwrap() - 0.01).abs() < 1e-12);
        assert_eq!(m.bler(3, f64::NAN), Ok(1.0));
        assert!(m.bler(28, 0.0).is_err());
        // The 64QAM table's MCS 0 (0.2344 bit/RE): 0.97 + 10·log10(2^0.3125 − 1) = −5.2 dB.
        let t1 = NrBlerModel::for_table(McsTable::Qam64);
        assert!(
            (t1.sinr10_db(0).unwrap() + 5.2).abs() < 0.01,
            "{}",
            t1.sinr10_db(0).unwrap()
        );
    }

    #[test]
    fn link_adaptation_and_combining() {
        let m = NrBlerModel::for_table(McsTable::Qam64);
        assert_eq!(m.best_mcs(-20.0, 0.1), None);
        assert_eq!(m.best_mcs(40.0, 0.1), Some(28));
        let at_10db = m.best_mcs(10.0, 0.1).unwrap();
        assert!(m.bler(at_10db, 10.0).unwrap() <= 0.1);
        assert!(m.bler(at_10db + 1, 10.0).unwrap() > 0.1);
        let mut c = ChaseCombining::new();
        c.add_transmission(5.0);
        c.add_transmission(5.0);
        // Two equal transmissions combine to +3 dB.
        let combined = m.bler_combined(at_10db, &c).unwrap();
        assert!((combined - m.bler(at_10db, 5.0 + 10.0 * 2f64.log10()).unwrap()).abs() < 1e-12);
        assert!(NrBlerModel::from_thresholds(McsTable::Qam64, &[1.0; 3], 1.0).is_err());
    }

    #[test]
    fn link_level_table() {
        let mut csv = String::from("mcs,sinr_db,bler\n");
        for m in 0..=27 {
            let s10 = -6.0 + f64::from(m);
            csv += &format!("{m},{},1\n{m},{s10},0.1\n{m},{},0\n", s10 - 2.0, s10 + 2.0);
        }
        let t = NrBlerModel::parse_table(McsTable::Qam256, &csv).unwrap();
        assert_eq!(t.sinr10_db(27), Ok(21.0));
        assert_eq!(t.bler(3, -3.0), Ok(0.1));
        assert_eq!(t.bler(3, 10.0), Ok(0.0));
        assert!(t.bler(28, 0.0).is_err());
        assert!(t.points_table().is_some());
        // The 64QAM tables need MCS 28 too.
        assert_eq!(
            NrBlerModel::parse_table(McsTable::Qam64, &csv)
                .unwrap_err()
                .to_string(),
            "no curve for MCS 28; expected at least 2 points for every MCS in 0..=28"
        );
        // And the 256QAM table has no MCS 28: the error cites the NR table.
        let extra = format!("{csv}28,0,1\n28,1,0\n");
        assert_eq!(
            NrBlerModel::parse_table(McsTable::Qam256, &extra)
                .unwrap_err()
                .to_string(),
            "line 86: mcs 28 is out of range; expected an MCS index in 0..=27 (TS 38.214 Table \
             5.1.3.1-2)"
        );
    }

    #[test]
    fn rank_grows_with_sinr() {
        let m = NrBlerModel::for_table(McsTable::Qam256);
        let ranks: Vec<u8> = [-5.0, 5.0, 15.0, 25.0, 35.0]
            .iter()
            .map(|s| rank_for_sinr(&m, *s, 4, DEFAULT_LAYER_LOSS_DB))
            .collect();
        assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{ranks:?}");
        assert_eq!(ranks[0], 1);
        assert_eq!(*ranks.last().unwrap(), 4);
        assert_eq!(rank_for_sinr(&m, 35.0, 2, DEFAULT_LAYER_LOSS_DB), 2);
        assert_eq!(rank_for_sinr(&m, -30.0, 4, 0.0), 1);
    }
}
