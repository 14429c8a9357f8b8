//! PDSCH MCS tables and CQI tables of TS 38.214 and the CQI → MCS mapping.
//!
//! An MCS row gives the modulation order Q_m and the target code rate R × 1024; its spectral
//! efficiency is Q_m · R information bits per resource element per layer (the tables print it
//! rounded to four decimals). Two rows of Table 5.1.3.1-2 have half-integer R × 1024 (682.5
//! and 916.5), so the rows hold R × 2048, an integer, and every product stays exact.
//!
//! * [`McsTable::Qam64`]: TS 38.214 Table 5.1.3.1-1, I_MCS 0..=28 (29..=31 reserved).
//! * [`McsTable::Qam256`]: Table 5.1.3.1-2, I_MCS 0..=27 (28..=31 reserved).
//! * [`McsTable::Qam64LowSe`]: Table 5.1.3.1-3, I_MCS 0..=28 (29..=31 reserved).
//!
//! The CQI tables (Tables 5.2.2.1-2, -3, -4) give the same pair per 4-bit CQI 1..=15; CQI 0
//! is "out of range". A CQI reports the highest entry whose transport block would be received
//! with BLER ≤ 0.1 (Tables -2, -3) or ≤ 10⁻⁵ (Table -4, URLLC), TS 38.214 §5.2.2.1.
//!
//! CQI → MCS: the gNB's choice is left to implementations; [`mcs_for_cqi`] takes the highest
//! MCS of the paired table whose spectral efficiency does not exceed the CQI's, which lands
//! on the MCS with exactly the CQI's (Q_m, R) wherever the MCS table has it.

use super::NrError;

/// Modulation of a PDSCH (TS 38.211 §5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Modulation {
    Qpsk,
    Qam16,
    Qam64,
    Qam256,
}

impl Modulation {
    /// Modulation order Q_m, bits per symbol.
    pub fn order(self) -> u8 {
        match self {
            Modulation::Qpsk => 2,
            Modulation::Qam16 => 4,
            Modulation::Qam64 => 6,
            Modulation::Qam256 => 8,
        }
    }
}

/// One row of an MCS or CQI table: modulation and target code rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct McsRow {
    modulation: Modulation,
    /// Target code rate R × 2048 (twice the tables' R × 1024, which is a multiple of 0.5).
    rate_x2048: u16,
}

/// A CQI table row has the same content as an MCS row.
pub type CqiRow = McsRow;

impl McsRow {
    const fn new(modulation: Modulation, rate_x2048: u16) -> Self {
        McsRow {
            modulation,
            rate_x2048,
        }
    }

    pub fn modulation(self) -> Modulation {
        self.modulation
    }

    /// Modulation order Q_m.
    pub fn qm(self) -> u8 {
        self.modulation.order()
    }

    /// Target code rate × 1024, as the tables print it.
    pub fn rate_x1024(self) -> f64 {
        f64::from(self.rate_x2048) / 2.0
    }

    /// Target code rate × 2048, an integer.
    pub fn rate_x2048(self) -> u32 {
        u32::from(self.rate_x2048)
    }

    /// Target code rate R.
    pub fn code_rate(self) -> f64 {
        f64::from(self.rate_x2048) / 2048.0
    }

    /// Spectral efficiency Q_m · R, information bits per resource element and layer.
    pub fn spectral_efficiency(self) -> f64 {
        f64::from(self.qm()) * self.code_rate()
    }
}

use Modulation::{Qam16 as Q16, Qam256 as Q256, Qam64 as Q64, Qpsk as Q2};

/// Shorthand for table rows, from the R × 1024 the specification prints, doubled.
const fn row(m: Modulation, rate_x1024_doubled: u16) -> McsRow {
    McsRow::new(m, rate_x1024_doubled)
}

/// TS 38.214 Table 5.1.3.1-1, I_MCS 0..=28 (R × 2048).
const MCS_TABLE_1: [McsRow; 29] = [
    row(Q2, 240),
    row(Q2, 314),
    row(Q2, 386),
    row(Q2, 502),
    row(Q2, 616),
    row(Q2, 758),
    row(Q2, 898),
    row(Q2, 1052),
    row(Q2, 1204),
    row(Q2, 1358),
    row(Q16, 680),
    row(Q16, 756),
    row(Q16, 868),
    row(Q16, 980),
    row(Q16, 1106),
    row(Q16, 1232),
    row(Q16, 1316),
    row(Q64, 876),
    row(Q64, 932),
    row(Q64, 1034),
    row(Q64, 1134),
    row(Q64, 1232),
    row(Q64, 1332),
    row(Q64, 1438),
    row(Q64, 1544),
    row(Q64, 1644),
    row(Q64, 1746),
    row(Q64, 1820),
    row(Q64, 1896),
];

/// TS 38.214 Table 5.1.3.1-2, I_MCS 0..=27 (R × 2048).
const MCS_TABLE_2: [McsRow; 28] = [
    row(Q2, 240),
    row(Q2, 386),
    row(Q2, 616),
    row(Q2, 898),
    row(Q2, 1204),
    row(Q16, 756),
    row(Q16, 868),
    row(Q16, 980),
    row(Q16, 1106),
    row(Q16, 1232),
    row(Q16, 1316),
    row(Q64, 932),
    row(Q64, 1034),
    row(Q64, 1134),
    row(Q64, 1232),
    row(Q64, 1332),
    row(Q64, 1438),
    row(Q64, 1544),
    row(Q64, 1644),
    row(Q64, 1746),
    row(Q256, 1365),
    row(Q256, 1422),
    row(Q256, 1508),
    row(Q256, 1594),
    row(Q256, 1682),
    row(Q256, 1770),
    row(Q256, 1833),
    row(Q256, 1896),
];

/// TS 38.214 Table 5.1.3.1-3, I_MCS 0..=28 (R × 2048).
const MCS_TABLE_3: [McsRow; 29] = [
    row(Q2, 60),
    row(Q2, 80),
    row(Q2, 100),
    row(Q2, 128),
    row(Q2, 156),
    row(Q2, 198),
    row(Q2, 240),
    row(Q2, 314),
    row(Q2, 386),
    row(Q2, 502),
    row(Q2, 616),
    row(Q2, 758),
    row(Q2, 898),
    row(Q2, 1052),
    row(Q2, 1204),
    row(Q16, 680),
    row(Q16, 756),
    row(Q16, 868),
    row(Q16, 980),
    row(Q16, 1106),
    row(Q16, 1232),
    row(Q64, 876),
    row(Q64, 932),
    row(Q64, 1034),
    row(Q64, 1134),
    row(Q64, 1232),
    row(Q64, 1332),
    row(Q64, 1438),
    row(Q64, 1544),
];

/// TS 38.214 Table 5.2.2.1-2, CQI 1..=15 (R × 2048).
const CQI_TABLE_1: [CqiRow; 15] = [
    row(Q2, 156),
    row(Q2, 240),
    row(Q2, 386),
    row(Q2, 616),
    row(Q2, 898),
    row(Q2, 1204),
    row(Q16, 756),
    row(Q16, 980),
    row(Q16, 1232),
    row(Q64, 932),
    row(Q64, 1134),
    row(Q64, 1332),
    row(Q64, 1544),
    row(Q64, 1746),
    row(Q64, 1896),
];

/// TS 38.214 Table 5.2.2.1-3, CQI 1..=15 (R × 2048).
const CQI_TABLE_2: [CqiRow; 15] = [
    row(Q2, 156),
    row(Q2, 386),
    row(Q2, 898),
    row(Q16, 756),
    row(Q16, 980),
    row(Q16, 1232),
    row(Q64, 932),
    row(Q64, 1134),
    row(Q64, 1332),
    row(Q64, 1544),
    row(Q64, 1746),
    row(Q256, 1422),
    row(Q256, 1594),
    row(Q256, 1770),
    row(Q256, 1896),
];

/// TS 38.214 Table 5.2.2.1-4, CQI 1..=15 (R × 2048).
const CQI_TABLE_3: [CqiRow; 15] = [
    row(Q2, 60),
    row(Q2, 100),
    row(Q2, 156),
    row(Q2, 240),
    row(Q2, 386),
    row(Q2, 616),
    row(Q2, 898),
    row(Q2, 1204),
    row(Q16, 756),
    row(Q16, 980),
    row(Q16, 1232),
    row(Q64, 932),
    row(Q64, 1134),
    row(Q64, 1332),
    row(Q64, 1544),
];

/// The PDSCH MCS table a UE is configured with (`mcs-Table` of TS 38.331 `PDSCH-Config`).
/// A scenario file names it "qam64", "qam256" or "qam64_low_se", or by its table number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)
)]
pub enum McsTable {
    /// TS 38.214 Table 5.1.3.1-1, up to 64QAM (the default).
    #[cfg_attr(feature = "serde", serde(rename = "qam64", alias = "5.1.3.1-1"))]
    Qam64,
    /// TS 38.214 Table 5.1.3.1-2, up to 256QAM (`qam256`).
    #[cfg_attr(feature = "serde", serde(rename = "qam256", alias = "5.1.3.1-2"))]
    Qam256,
    /// TS 38.214 Table 5.1.3.1-3, low spectral efficiency 64QAM (`qam64LowSE`).
    #[cfg_attr(feature = "serde", serde(rename = "qam64_low_se", alias = "5.1.3.1-3"))]
    Qam64LowSe,
}

impl std::fmt::Display for McsTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            McsTable::Qam64 => "MCS table 5.1.3.1-1 (64QAM)",
            McsTable::Qam256 => "MCS table 5.1.3.1-2 (256QAM)",
            McsTable::Qam64LowSe => "MCS table 5.1.3.1-3 (low-SE 64QAM)",
        })
    }
}

impl McsTable {
    /// Every table, in the order of TS 38.214.
    pub const ALL: [McsTable; 3] = [McsTable::Qam64, McsTable::Qam256, McsTable::Qam64LowSe];

    /// The table, cited ("TS 38.214 Table 5.1.3.1-1").
    pub const fn citation(self) -> &'static str {
        match self {
            McsTable::Qam64 => "TS 38.214 Table 5.1.3.1-1",
            McsTable::Qam256 => "TS 38.214 Table 5.1.3.1-2",
            McsTable::Qam64LowSe => "TS 38.214 Table 5.1.3.1-3",
        }
    }

    /// The data rows, indexed by I_MCS.
    pub fn rows(self) -> &'static [McsRow] {
        match self {
            McsTable::Qam64 => &MCS_TABLE_1,
            McsTable::Qam256 => &MCS_TABLE_2,
            McsTable::Qam64LowSe => &MCS_TABLE_3,
        }
    }

    /// Highest I_MCS with a code rate (28, 27, 28); the indices above are reserved.
    pub fn max_index(self) -> u8 {
        (self.rows().len() - 1) as u8
    }

    /// Row `index`; the reserved indices, which signal a retransmission with the modulation
    /// of the initial one and no code rate, are an error.
    pub fn row(self, index: u8) -> Result<McsRow, NrError> {
        self.rows()
            .get(usize::from(index))
            .copied()
            .ok_or(NrError::Mcs { table: self, index })
    }

    /// The modulation a reserved index (29..=31, or 28..=31 in Table 5.1.3.1-2) announces for
    /// a retransmission; `None` for a data index or one above 31.
    pub fn reserved_modulation(self, index: u8) -> Option<Modulation> {
        let first = self.max_index() + 1;
        if index < first || index > 31 {
            return None;
        }
        [Q2, Q16, Q64, Q256]
            .get(usize::from(index - first))
            .copied()
    }
}

/// The CQI table a UE reports with (`cqi-Table` of TS 38.331 `CSI-ReportConfig`). A scenario
/// file names it "table1", "table2" or "table3", or by its table number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)
)]
pub enum CqiTable {
    /// TS 38.214 Table 5.2.2.1-2 (`table1`, up to 64QAM, BLER 0.1).
    #[cfg_attr(feature = "serde", serde(rename = "table1", alias = "5.2.2.1-2"))]
    Table1,
    /// TS 38.214 Table 5.2.2.1-3 (`table2`, up to 256QAM, BLER 0.1).
    #[cfg_attr(feature = "serde", serde(rename = "table2", alias = "5.2.2.1-3"))]
    Table2,
    /// TS 38.214 Table 5.2.2.1-4 (`table3`, low spectral efficiency, BLER 10⁻⁵).
    #[cfg_attr(feature = "serde", serde(rename = "table3", alias = "5.2.2.1-4"))]
    Table3,
}

impl CqiTable {
    /// Highest CQI index.
    pub const MAX_CQI: u8 = 15;

    /// Rows for CQI 1..=15 (entry 0 is CQI 1).
    pub fn rows(self) -> &'static [CqiRow; 15] {
        match self {
            CqiTable::Table1 => &CQI_TABLE_1,
            CqiTable::Table2 => &CQI_TABLE_2,
            CqiTable::Table3 => &CQI_TABLE_3,
        }
    }

    /// Row of `cqi`; `None` for CQI 0 ("out of range"), an error above 15.
    pub fn row(self, cqi: u8) -> Result<Option<CqiRow>, NrError> {
        match cqi {
            0 => Ok(None),
            1..=15 => Ok(Some(self.rows()[usize::from(cqi - 1)])),
            _ => Err(NrError::Cqi { cqi }),
        }
    }

    /// The MCS table this CQI table is designed with (the same modulations and target BLER).
    pub fn mcs_table(self) -> McsTable {
        match self {
            CqiTable::Table1 => McsTable::Qam64,
            CqiTable::Table2 => McsTable::Qam256,
            CqiTable::Table3 => McsTable::Qam64LowSe,
        }
    }

    /// BLER at which the table's CQIs are defined (TS 38.214 §5.2.2.1).
    pub fn target_bler(self) -> f64 {
        match self {
            CqiTable::Table1 | CqiTable::Table2 => 0.1,
            CqiTable::Table3 => 1e-5,
        }
    }
}

/// MCS of `mcs_table` for a report of `cqi` from `cqi_table`: the highest I_MCS whose
/// spectral efficiency is at most the CQI's (compared exactly, as Q_m · R × 2048); `None` for
/// CQI 0, and MCS 0 when even MCS 0 is more efficient than the CQI (CQI 1 of Table 5.2.2.1-2,
/// 0.1523 bit/RE, with MCS table 5.1.3.1-1, whose lowest entry is 0.2344 bit/RE).
pub fn mcs_for_cqi(
    cqi_table: CqiTable,
    cqi: u8,
    mcs_table: McsTable,
) -> Result<Option<u8>, NrError> {
    let Some(cqi_row) = cqi_table.row(cqi)? else {
        return Ok(None);
    };
    let bits = |r: McsRow| u32::from(r.qm()) * r.rate_x2048();
    let mcs = mcs_table
        .rows()
        .iter()
        .rposition(|r| bits(*r) <= bits(cqi_row))
        .unwrap_or(0);
    Ok(Some(mcs as u8))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (I_MCS, Q_m, R × 1024, SE) as printed in TS 38.214, a few rows of each table.
    fn check(table: McsTable, rows: &[(u8, u8, f64, f64)]) {
        for &(i, qm, r, se) in rows {
            let row = table.row(i).unwrap();
            assert_eq!((row.qm(), row.rate_x1024()), (qm, r), "{table} row {i}");
            assert!(
                (row.spectral_efficiency() - se).abs() < 5e-5,
                "{table} row {i}"
            );
        }
    }

    #[test]
    fn mcs_table_rows_as_printed() {
        check(
            McsTable::Qam64,
            &[
                (0, 2, 120.0, 0.2344),
                (9, 2, 679.0, 1.3262),
                (10, 4, 340.0, 1.3281),
                (16, 4, 658.0, 2.5703),
                (17, 6, 438.0, 2.5664),
                (27, 6, 910.0, 5.3320),
                (28, 6, 948.0, 5.5547),
            ],
        );
        check(
            McsTable::Qam256,
            &[
                (0, 2, 120.0, 0.2344),
                (4, 2, 602.0, 1.1758),
                (5, 4, 378.0, 1.4766),
                (19, 6, 873.0, 5.1152),
                (20, 8, 682.5, 5.3320),
                (26, 8, 916.5, 7.1602),
                (27, 8, 948.0, 7.4063),
            ],
        );
        check(
            McsTable::Qam64LowSe,
            &[
                (0, 2, 30.0, 0.0586),
                (5, 2, 99.0, 0.1934),
                (14, 2, 602.0, 1.1758),
                (15, 4, 340.0, 1.3281),
                (21, 6, 438.0, 2.5664),
                (28, 6, 772.0, 4.5234),
            ],
        );
        assert_eq!(McsTable::ALL.map(McsTable::max_index), [28, 27, 28]);
        assert!(McsTable::Qam256.row(28).is_err());
        assert!(McsTable::Qam64.row(29).is_err());
        assert_eq!(
            McsTable::Qam256.reserved_modulation(31),
            Some(Modulation::Qam256)
        );
        assert_eq!(
            McsTable::Qam64.reserved_modulation(29),
            Some(Modulation::Qpsk)
        );
        assert_eq!(McsTable::Qam64.reserved_modulation(28), None);
    }

    #[test]
    fn tables_increase_in_efficiency() {
        for t in McsTable::ALL {
            for w in t.rows().windows(2) {
                // Table 5.1.3.1-1 has one dip, as printed: I_MCS 17 (64QAM, 2.5664) below
                // I_MCS 16 (16QAM, 2.5703).
                let dip = w[0].spectral_efficiency() - w[1].spectral_efficiency();
                assert!(dip < 0.005, "{t}: {w:?}");
            }
        }
        for t in [CqiTable::Table1, CqiTable::Table2, CqiTable::Table3] {
            for w in t.rows().windows(2) {
                assert!(w[0].spectral_efficiency() < w[1].spectral_efficiency());
            }
        }
    }

    #[test]
    fn cqi_rows_as_printed() {
        let r = |t: CqiTable, c: u8| {
            let row = t.row(c).unwrap().unwrap();
            (
                row.qm(),
                row.rate_x1024(),
                (row.spectral_efficiency() * 1e4).round() / 1e4,
            )
        };
        assert_eq!(r(CqiTable::Table1, 1), (2, 78.0, 0.1523));
        assert_eq!(r(CqiTable::Table1, 7), (4, 378.0, 1.4766));
        assert_eq!(r(CqiTable::Table1, 15), (6, 948.0, 5.5547));
        assert_eq!(r(CqiTable::Table2, 12), (8, 711.0, 5.5547));
        assert_eq!(r(CqiTable::Table2, 15), (8, 948.0, 7.4063));
        assert_eq!(r(CqiTable::Table3, 1), (2, 30.0, 0.0586));
        assert_eq!(r(CqiTable::Table3, 15), (6, 772.0, 4.5234));
        assert_eq!(CqiTable::Table1.row(0), Ok(None));
        assert!(CqiTable::Table1.row(16).is_err());
    }

    #[test]
    fn cqi_to_mcs() {
        let m = |t: CqiTable, c| mcs_for_cqi(t, c, t.mcs_table()).unwrap();
        assert_eq!(m(CqiTable::Table1, 0), None);
        assert_eq!(m(CqiTable::Table1, 1), Some(0));
        assert_eq!(m(CqiTable::Table1, 2), Some(0));
        assert_eq!(m(CqiTable::Table1, 7), Some(11));
        assert_eq!(m(CqiTable::Table1, 15), Some(28));
        assert_eq!(m(CqiTable::Table2, 12), Some(21));
        assert_eq!(m(CqiTable::Table2, 15), Some(27));
        assert_eq!(m(CqiTable::Table3, 1), Some(0));
        assert_eq!(m(CqiTable::Table3, 15), Some(28));
        // Every CQI of every table whose (Q_m, R) an MCS row has lands on that row.
        for t in [CqiTable::Table1, CqiTable::Table2, CqiTable::Table3] {
            for c in 1..=15 {
                let cqi_row = t.row(c).unwrap().unwrap();
                let mcs = m(t, c).unwrap();
                if t.mcs_table().rows().contains(&cqi_row) {
                    assert_eq!(
                        t.mcs_table().rows()[usize::from(mcs)],
                        cqi_row,
                        "{t:?} CQI {c}"
                    );
                }
            }
        }
    }
}
