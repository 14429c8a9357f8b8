//! Link-level BLER curves supplied as a table: per MCS, points (SINR in dB, BLER) from the
//! user's own link-level simulator (AWGN curves as ns-3 LENA or the Vienna LTE simulators
//! use), parsed from text and interpolated.
//!
//! # Format
//!
//! CSV, one point per line, after a header line naming the three columns:
//!
//! ```text
//! # MCS 0, AWGN, 6 PRBs
//! mcs,sinr_db,bler
//! 0,-10.0,1.0
//! 0,-8.0,0.35
//! 0,-6.0,0.004
//! 0,-5.0,0
//! ...
//! ```
//!
//! Lines whose first non-blank character is `#` and blank lines are skipped; the points of an
//! MCS may come in any order and interleaved with those of other MCSs (each curve is sorted by
//! SINR). `mcs` is an integer in 0..=28, `sinr_db` a finite SINR in dB, `bler` a probability in
//! [0, 1]. Every MCS needs a curve of at least two points, so link adaptation can never pick an
//! MCS that has none.
//!
//! # Interpolation
//!
//! Between two points the curve is linear in SINR (dB) of log10(BLER), the scale on which
//! link-level curves are plotted and on which a waterfall is nearly straight. A segment that
//! ends at BLER 0 (no error seen in the link-level run) cannot be linear in log10(BLER); it is
//! linear in BLER instead, reaching 0 exactly at that point. This adds no made-up floor, and it
//! is pessimistic: halfway between 10⁻³ and 0 it gives 5·10⁻⁴. Below the first point a curve
//! keeps the first point's BLER, above the last point the last point's BLER: a table whose last
//! point has BLER 10⁻³ means BLER 10⁻³ at any higher SINR, so extend curves to 0 or to a BLER
//! negligible for the study.
//!
//! # Validation
//!
//! Besides the format, each curve must be non-increasing in SINR, with no two points at the
//! same SINR, and must cross the CQI target BLER 0.1 (TS 36.213 §7.2.3): its first point above
//! 0.1 and its last at or below 0.1, so that the 10 % point — the lowest SINR at which BLER ≤
//! 0.1 — is finite. The 10 % points must increase strictly with the MCS's spectral efficiency
//! (with the MCS in LTE's tables; NR's Table 5.1.3.1-1 has MCS 17 a little below 16), as for
//! `BlerModel::from_thresholds`: link adaptation reports the highest CQI whose MCS meets the
//! target, and a higher MCS that needed less SINR than a lower one would make the lower one
//! useless, which points to a mislabelled curve.

use std::fmt::Write as _;
use std::io::BufRead;
use std::path::Path;

use celltcp_net::text_lines::{quote, BoundedLines, LineError};

use super::bler::BLER_TARGET;
use super::index::Mcs;
use super::tables::CqiTable;
use super::PhyError;

/// The header line the table must start with (after comments and blank lines).
pub const BLER_TABLE_HEADER: &str = "mcs,sinr_db,bler";

/// What a line of a table holds, for the messages of [`LineError`].
const LINE_FORM: &str = "the header `mcs,sinr_db,bler`, then one `MCS,SINR_dB,BLER` point per line";

/// Bad BLER table. Messages give the 1-based line of the text, the value and what was
/// expected; the errors about the table as a whole ([`BlerTableError::Empty`],
/// [`BlerTableError::MissingMcs`]) have no line.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BlerTableError {
    #[error("{path}: cannot read the BLER table: {message}")]
    Io { path: String, message: String },
    #[error("{path}: {source}")]
    InFile {
        path: String,
        #[source]
        source: Box<BlerTableError>,
    },
    /// A line too long for a point, not UTF-8, or unreadable.
    #[error(transparent)]
    Line(#[from] LineError),
    #[error(
        "the BLER table has no points; expected the header line `{BLER_TABLE_HEADER}` \
         followed by one `MCS,SINR_dB,BLER` point per line"
    )]
    Empty,
    #[error("line {line}: found `{found}`; expected the header line `{BLER_TABLE_HEADER}`")]
    Header { line: usize, found: String },
    #[error("line {line}: {found} columns; expected 3 (`{BLER_TABLE_HEADER}`)")]
    Columns { line: usize, found: usize },
    #[error("line {line}: {column} `{value}` is not a number; expected {expected}")]
    NotANumber {
        line: usize,
        column: &'static str,
        value: String,
        expected: &'static str,
    },
    #[error("line {line}: {column} {value} is not finite; expected a finite number")]
    NotFinite {
        line: usize,
        column: &'static str,
        value: f64,
    },
    #[error(
        "line {line}: mcs {mcs} is out of range; expected an MCS index in 0..={max} ({table})"
    )]
    McsRange {
        line: usize,
        mcs: i64,
        /// The highest I_MCS of the MCS table the `mcs` column indexes.
        max: u8,
        /// That MCS table, cited ("TS 36.213 Table 7.1.7.1-1").
        table: &'static str,
    },
    #[error("line {line}: bler {bler} is out of range; expected a block error rate in [0, 1]")]
    BlerRange { line: usize, bler: f64 },
    #[error(
        "line {line}: MCS {mcs} has a second point at {sinr_db} dB (the first is on line \
         {first_line}); expected one point per SINR"
    )]
    DuplicateSinr {
        line: usize,
        first_line: usize,
        mcs: u8,
        sinr_db: f64,
    },
    #[error(
        "line {line}: MCS {mcs} has BLER {bler} at {sinr_db} dB, above BLER {lower_bler} at \
         the lower {lower_sinr_db} dB (line {lower_line}); expected a curve that does not \
         increase with SINR"
    )]
    NotMonotone {
        line: usize,
        mcs: u8,
        sinr_db: f64,
        bler: f64,
        lower_line: usize,
        lower_sinr_db: f64,
        lower_bler: f64,
    },
    #[error("line {line}: MCS {mcs} has only this point; expected at least 2 points per curve")]
    TooFewPoints { line: usize, mcs: u8 },
    #[error(
        "no curve for MCS {}; expected at least 2 points for every MCS in 0..={max}",
        list(.mcs)
    )]
    MissingMcs {
        mcs: Vec<u8>,
        /// The highest I_MCS of the table's MCS table.
        max: u8,
    },
    #[error(
        "line {line}: MCS {mcs} starts at BLER {bler} ({sinr_db} dB); expected a lowest-SINR \
         point with BLER above 0.1 (the curve keeps its first BLER below its first point, so \
         its 10 % point would not be defined)"
    )]
    StartsBelowTarget {
        line: usize,
        mcs: u8,
        sinr_db: f64,
        bler: f64,
    },
    #[error(
        "line {line}: MCS {mcs} ends at BLER {bler} ({sinr_db} dB); expected a curve that \
         reaches BLER 0.1 (the CQI target) within its points"
    )]
    NeverReachesTarget {
        line: usize,
        mcs: u8,
        sinr_db: f64,
        bler: f64,
    },
    #[error(
        "line {line}: MCS {mcs} reaches BLER 0.1 at {sinr10_db} dB, not above MCS {lower_mcs} \
         ({lower_sinr10_db} dB); expected 10 % points that increase with the MCS's spectral \
         efficiency"
    )]
    ThresholdOrder {
        line: usize,
        mcs: u8,
        sinr10_db: f64,
        lower_mcs: u8,
        lower_sinr10_db: f64,
    },
}

impl BlerTableError {
    /// The 1-based line of the text the error is about, if it is about one line.
    pub fn line(&self) -> Option<usize> {
        match self {
            Self::Io { .. } | Self::Empty | Self::MissingMcs { .. } => None,
            Self::InFile { source, .. } => source.line(),
            Self::Line(e) => Some(e.line()),
            Self::Header { line, .. }
            | Self::Columns { line, .. }
            | Self::NotANumber { line, .. }
            | Self::NotFinite { line, .. }
            | Self::McsRange { line, .. }
            | Self::BlerRange { line, .. }
            | Self::DuplicateSinr { line, .. }
            | Self::NotMonotone { line, .. }
            | Self::TooFewPoints { line, .. }
            | Self::StartsBelowTarget { line, .. }
            | Self::NeverReachesTarget { line, .. }
            | Self::ThresholdOrder { line, .. } => Some(*line),
        }
    }
}

/// "3, 7, 12" for the missing-MCS message.
fn list(mcs: &[u8]) -> String {
    let mut s = String::new();
    for (i, m) in mcs.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "{m}");
    }
    s
}

/// One curve: points sorted by strictly increasing SINR with non-increasing BLER.
#[derive(Clone, Debug, PartialEq)]
struct BlerCurve {
    /// SINR of each point, dB; strictly increasing.
    sinr_db: Box<[f64]>,
    /// BLER of each point, in [0, 1]; non-increasing.
    bler: Box<[f64]>,
    /// log10 of `bler`, −∞ where it is 0.
    log10_bler: Box<[f64]>,
    /// Lowest SINR at which the interpolated BLER is ≤ 0.1, dB; finite.
    sinr10_db: f64,
}

impl BlerCurve {
    fn new(sinr_db: Vec<f64>, bler: Vec<f64>) -> Self {
        let log10_bler = bler.iter().map(|b| b.log10()).collect();
        let mut curve = BlerCurve {
            sinr_db: sinr_db.into(),
            bler: bler.into(),
            log10_bler,
            sinr10_db: f64::NAN,
        };
        curve.sinr10_db = curve.sinr_db_for_bler(BLER_TARGET);
        curve
    }

    /// Interpolated BLER at `sinr_db` (dB), see the module documentation; 1 for NaN.
    fn bler(&self, sinr_db: f64) -> f64 {
        if sinr_db.is_nan() {
            return 1.0;
        }
        let n = self.sinr_db.len();
        // Index of the first point above `sinr_db`: the segment is (hi − 1, hi).
        let hi = self.sinr_db.partition_point(|&s| s <= sinr_db);
        if hi == 0 {
            return self.bler[0];
        }
        if hi == n {
            return self.bler[n - 1];
        }
        let lo = hi - 1;
        if sinr_db == self.sinr_db[lo] {
            return self.bler[lo];
        }
        let t = (sinr_db - self.sinr_db[lo]) / (self.sinr_db[hi] - self.sinr_db[lo]);
        if self.bler[hi] > 0.0 {
            let l = self.log10_bler[lo] + t * (self.log10_bler[hi] - self.log10_bler[lo]);
            10f64.powf(l)
        } else {
            // Towards a zero point: linear in BLER (0 when both ends are 0).
            self.bler[lo] * (1.0 - t)
        }
    }

    /// Lowest SINR (dB) at which the interpolated BLER is ≤ `target` (in [0, 1]); −∞ when the
    /// first point already is, +∞ when no point is.
    fn sinr_db_for_bler(&self, target: f64) -> f64 {
        if target >= self.bler[0] {
            return f64::NEG_INFINITY;
        }
        // The first point at or below the target; the one before it is above it.
        let Some(hi) = self.bler.iter().position(|&b| b <= target) else {
            return f64::INFINITY;
        };
        let lo = hi - 1;
        let fraction = if self.bler[hi] > 0.0 {
            (target.log10() - self.log10_bler[lo]) / (self.log10_bler[hi] - self.log10_bler[lo])
        } else {
            (self.bler[lo] - target) / self.bler[lo]
        };
        self.sinr_db[lo] + fraction * (self.sinr_db[hi] - self.sinr_db[lo])
    }
}

/// One parsed data line.
#[derive(Clone, Copy, Debug)]
struct Point {
    line: usize,
    sinr_db: f64,
    bler: f64,
}

/// Validated link-level BLER curves of the PDSCH MCSs of one MCS table: the 29 of TS 36.213
/// Table 7.1.7.1-1, or the 28 of Table 7.1.7.1-1A with the 256QAM CQI table (see the module
/// documentation for the format, the interpolation and the checks).
#[derive(Clone, Debug, PartialEq)]
pub struct BlerTable {
    /// The CQI table whose MCS table the `mcs` column indexes.
    cqi_table: CqiTable,
    /// Curve of MCS m at index m: one per MCS of the table, by construction.
    curves: Box<[BlerCurve]>,
}

impl BlerTable {
    /// Parses and validates a table in the CSV format of the module documentation:
    /// [`BlerTable::from_reader`] over `text`.
    pub fn parse(text: &str) -> Result<Self, BlerTableError> {
        Self::from_reader(text.as_bytes())
    }

    /// [`BlerTable::parse`] for the MCSs of `table`'s MCS table.
    pub fn parse_for(table: CqiTable, text: &str) -> Result<Self, BlerTableError> {
        Self::from_reader_for(table, text.as_bytes())
    }

    /// Reads, parses and validates a table from `reader` line by line (lines of at most
    /// [`celltcp_net::text_lines::MAX_LINE_BYTES`] bytes): only the line being parsed is held
    /// as text. Reports the first error found: line by line for the format, then curve by curve
    /// in MCS order, then missing MCSs, then the order of the 10 % points. The size of the
    /// whole stream is the caller's to bound.
    pub fn from_reader(reader: impl BufRead) -> Result<Self, BlerTableError> {
        Self::from_reader_for(CqiTable::Table1, reader)
    }

    /// [`BlerTable::from_reader`] for the MCSs of `table`'s MCS table: the `mcs` column is an
    /// I_MCS of that table (0..=27 of Table 7.1.7.1-1A with the 256QAM CQI table), and every
    /// one of them needs a curve.
    pub fn from_reader_for(table: CqiTable, reader: impl BufRead) -> Result<Self, BlerTableError> {
        Self::from_reader_cited(
            table,
            lte_mcs_table(table),
            table.mcs_efficiencies(),
            reader,
        )
    }

    /// [`BlerTable::from_reader_for`] for the MCSs of another standard's MCS table with as many
    /// MCSs as `table`'s (an NR table of TS 38.214, [`crate::nr::NrBlerModel::from_reader`]):
    /// `cited` names it in the messages ("TS 38.214 Table 5.1.3.1-2"), `efficiency` holds the
    /// spectral efficiency of each of its MCSs, which orders the 10 % points (TS 38.214 Table
    /// 5.1.3.1-1 has MCS 17 below MCS 16). The curves are read, interpolated and checked as an
    /// LTE table's; only the indices' meaning is the caller's.
    ///
    /// # Panics
    /// If `efficiency` does not have one entry per MCS of `table`.
    pub fn from_reader_cited(
        table: CqiTable,
        cited: &'static str,
        efficiency: &[f64],
        reader: impl BufRead,
    ) -> Result<Self, BlerTableError> {
        assert_eq!(
            efficiency.len(),
            table.mcs_rows().len(),
            "one efficiency per MCS"
        );
        let mcs_count = table.mcs_rows().len();
        let mcs_max = table.mcs_max();
        let mut points: Vec<Vec<Point>> = vec![Vec::new(); mcs_count];
        let mut header_seen = false;
        let mut lines = BoundedLines::new(reader, LINE_FORM);
        while let Some(next) = lines.next_line() {
            let (line, raw) = next?;
            // A byte-order mark may open the file (spreadsheets write one).
            let raw = if line == 1 {
                raw.strip_prefix('\u{feff}').unwrap_or(raw)
            } else {
                raw
            };
            let content = raw.trim();
            if content.is_empty() || content.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = content.split(',').map(str::trim).collect();
            if !header_seen {
                if fields != ["mcs", "sinr_db", "bler"] {
                    return Err(BlerTableError::Header {
                        line,
                        found: quote(content),
                    });
                }
                header_seen = true;
                continue;
            }
            let (mcs, point) = parse_point(table, cited, line, &fields)?;
            points[usize::from(mcs)].push(point);
        }
        if points.iter().all(Vec::is_empty) {
            return Err(BlerTableError::Empty);
        }
        let mut curves = Vec::with_capacity(mcs_count);
        let mut missing = Vec::new();
        for (mcs, mut pts) in (0..=mcs_max).zip(points) {
            if pts.is_empty() {
                missing.push(mcs);
                continue;
            }
            pts.sort_by(|a, b| a.sinr_db.total_cmp(&b.sinr_db).then(a.line.cmp(&b.line)));
            check_curve(mcs, &pts)?;
            let curve = BlerCurve::new(
                pts.iter().map(|p| p.sinr_db).collect(),
                pts.iter().map(|p| p.bler).collect(),
            );
            curves.push((pts, curve));
        }
        if !missing.is_empty() {
            return Err(BlerTableError::MissingMcs {
                mcs: missing,
                max: mcs_max,
            });
        }
        // MCSs by increasing spectral efficiency (by index where equal): along it, each 10 %
        // point above the last of a lower efficiency.
        let mut by_efficiency: Vec<usize> = (0..curves.len()).collect();
        by_efficiency.sort_by(|&a, &b| efficiency[a].total_cmp(&efficiency[b]).then(a.cmp(&b)));
        for pair in by_efficiency.windows(2) {
            let &[lo, hi] = pair else { continue };
            let ((_, lower), (pts, curve)) = (&curves[lo], &curves[hi]);
            if efficiency[hi] > efficiency[lo] && curve.sinr10_db <= lower.sinr10_db {
                // The point at which this curve reaches the target.
                let at = pts
                    .iter()
                    .find(|p| p.bler <= BLER_TARGET)
                    .map_or(pts[0].line, |p| p.line);
                return Err(BlerTableError::ThresholdOrder {
                    line: at,
                    mcs: hi as u8,
                    sinr10_db: curve.sinr10_db,
                    lower_mcs: lo as u8,
                    lower_sinr10_db: lower.sinr10_db,
                });
            }
        }
        // One curve per MCS of the table: missing MCSs were refused above.
        Ok(BlerTable {
            cqi_table: table,
            curves: curves.into_iter().map(|(_, c)| c).collect(),
        })
    }

    /// Reads and parses the table in file `path`, streaming; errors of the content name the
    /// file. The file is opened as it is: a scenario's tables are read through the scenario
    /// crate, which accepts only regular files of bounded size.
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self, BlerTableError> {
        let path = path.as_ref();
        let file = std::fs::File::open(path).map_err(|e| BlerTableError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Self::from_reader(std::io::BufReader::new(file)).map_err(|e| BlerTableError::InFile {
            path: path.display().to_string(),
            source: Box::new(e),
        })
    }

    /// The CQI table whose MCS table the curves are of.
    pub fn cqi_table(&self) -> CqiTable {
        self.cqi_table
    }

    /// The curve of `mcs`. An MCS beyond the table's (28 of a 256QAM table, which the cell
    /// never selects: it checks its fixed MCS and maps CQIs within the table) reads the
    /// highest MCS's curve rather than failing on the per-TTI path.
    #[inline]
    fn curve(&self, mcs: Mcs) -> &BlerCurve {
        let last = self.curves.len() - 1;
        &self.curves[mcs.index().min(last)]
    }

    /// BLER of MCS `mcs` at SINR `sinr_db` (dB), interpolated as in the module documentation;
    /// 1 for a NaN SINR.
    #[inline]
    pub fn bler(&self, mcs: Mcs, sinr_db: f64) -> f64 {
        self.curve(mcs).bler(sinr_db)
    }

    /// The 10 % point of MCS `mcs`: the lowest SINR (dB) at which its interpolated BLER is
    /// ≤ 0.1; finite.
    pub fn sinr10_db(&self, mcs: Mcs) -> f64 {
        self.curve(mcs).sinr10_db
    }

    /// Lowest SINR (dB) at which MCS `mcs` has interpolated BLER ≤ `bler`: −∞ when even the
    /// first point is, +∞ when no point is. Fails only for a `bler` outside [0, 1].
    pub fn sinr_db_for_bler(&self, mcs: Mcs, bler: f64) -> Result<f64, PhyError> {
        check_target(bler)?;
        Ok(self.curve_sinr_db_for_bler(mcs, bler))
    }

    /// [`BlerTable::sinr_db_for_bler`] for a `bler` known to be in [0, 1].
    pub(super) fn curve_sinr_db_for_bler(&self, mcs: Mcs, bler: f64) -> f64 {
        debug_assert!((0.0..=1.0).contains(&bler), "{bler}");
        self.curve(mcs).sinr_db_for_bler(bler)
    }

    /// The points of MCS `mcs` as (SINR dB, BLER), by increasing SINR.
    pub fn points(&self, mcs: Mcs) -> impl ExactSizeIterator<Item = (f64, f64)> + '_ {
        let curve = self.curve(mcs);
        curve
            .sinr_db
            .iter()
            .copied()
            .zip(curve.bler.iter().copied())
    }

    /// The table in the format [`BlerTable::parse`] reads, MCS by MCS; numbers are written so
    /// that they read back exactly.
    pub fn to_csv(&self) -> String {
        let mut s = String::from(BLER_TABLE_HEADER);
        s.push('\n');
        for (mcs, curve) in self.curves.iter().enumerate() {
            for (sinr_db, bler) in curve.sinr_db.iter().zip(curve.bler.iter()) {
                let _ = writeln!(s, "{mcs},{sinr_db:?},{bler:?}");
            }
        }
        s
    }
}

/// The LTE MCS table of `table`, cited for the reader's messages.
fn lte_mcs_table(table: CqiTable) -> &'static str {
    match table {
        CqiTable::Table1 => "TS 36.213 Table 7.1.7.1-1",
        CqiTable::Table2 => "TS 36.213 Table 7.1.7.1-1A",
    }
}

/// A BLER target for an inverse lookup must be a probability.
pub(crate) fn check_target(bler: f64) -> Result<(), PhyError> {
    if (0.0..=1.0).contains(&bler) {
        Ok(())
    } else {
        Err(PhyError::Param {
            param: "bler",
            value: bler,
            expected: "a block error rate in [0, 1]",
        })
    }
}

/// Parses the three fields of data line `line`.
fn parse_point(
    table: CqiTable,
    cited: &'static str,
    line: usize,
    fields: &[&str],
) -> Result<(u8, Point), BlerTableError> {
    let [mcs, sinr_db, bler] = fields else {
        return Err(BlerTableError::Columns {
            line,
            found: fields.len(),
        });
    };
    let mcs: i64 = mcs.parse().map_err(|_| BlerTableError::NotANumber {
        line,
        column: "mcs",
        value: quote(mcs),
        expected: match table {
            CqiTable::Table1 => "an integer MCS index in 0..=28",
            CqiTable::Table2 => "an integer MCS index in 0..=27",
        },
    })?;
    let mcs =
        u8::try_from(mcs)
            .ok()
            .filter(|&m| table.has_mcs(m))
            .ok_or(BlerTableError::McsRange {
                line,
                mcs,
                max: table.mcs_max(),
                table: cited,
            })?;
    let sinr_db = parse_finite(line, "sinr_db", sinr_db, "an SINR in dB")?;
    let bler = parse_finite(line, "bler", bler, "a block error rate in [0, 1]")?;
    if !(0.0..=1.0).contains(&bler) {
        return Err(BlerTableError::BlerRange { line, bler });
    }
    Ok((
        mcs,
        Point {
            line,
            sinr_db,
            bler,
        },
    ))
}

fn parse_finite(
    line: usize,
    column: &'static str,
    field: &str,
    expected: &'static str,
) -> Result<f64, BlerTableError> {
    let value: f64 = field.parse().map_err(|_| BlerTableError::NotANumber {
        line,
        column,
        value: quote(field),
        expected,
    })?;
    if value.is_finite() {
        Ok(value)
    } else {
        Err(BlerTableError::NotFinite {
            line,
            column,
            value,
        })
    }
}

/// Checks one curve, its points sorted by SINR (ties by line).
fn check_curve(mcs: u8, pts: &[Point]) -> Result<(), BlerTableError> {
    let (first, last) = match pts {
        [] | [_] => {
            return Err(BlerTableError::TooFewPoints {
                line: pts.first().map_or(0, |p| p.line),
                mcs,
            })
        }
        [first, .., last] => (first, last),
    };
    for pair in pts.windows(2) {
        let [lower, p] = pair else { continue };
        if p.sinr_db == lower.sinr_db {
            return Err(BlerTableError::DuplicateSinr {
                line: p.line,
                first_line: lower.line,
                mcs,
                sinr_db: p.sinr_db,
            });
        }
        if p.bler > lower.bler {
            return Err(BlerTableError::NotMonotone {
                line: p.line,
                mcs,
                sinr_db: p.sinr_db,
                bler: p.bler,
                lower_line: lower.line,
                lower_sinr_db: lower.sinr_db,
                lower_bler: lower.bler,
            });
        }
    }
    if first.bler <= BLER_TARGET {
        return Err(BlerTableError::StartsBelowTarget {
            line: first.line,
            mcs,
            sinr_db: first.sinr_db,
            bler: first.bler,
        });
    }
    if last.bler > BLER_TARGET {
        return Err(BlerTableError::NeverReachesTarget {
            line: last.line,
            mcs,
            sinr_db: last.sinr_db,
            bler: last.bler,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(points: &[(f64, f64)]) -> BlerCurve {
        BlerCurve::new(
            points.iter().map(|p| p.0).collect(),
            points.iter().map(|p| p.1).collect(),
        )
    }

    #[test]
    fn interpolates_log_bler_linearly_and_clamps_outside() {
        let c = curve(&[(0.0, 1.0), (2.0, 0.1), (4.0, 1e-3), (5.0, 0.0), (6.0, 0.0)]);
        // At the points, exactly their BLER.
        assert_eq!(c.bler(0.0), 1.0);
        assert_eq!(c.bler(2.0), 0.1);
        assert_eq!(c.bler(4.0), 1e-3);
        assert_eq!(c.bler(5.0), 0.0);
        // log10 halfway between 0 and −1 is −0.5: 10^−0.5 = 0.316 227 766.
        assert!((c.bler(1.0) - 0.316_227_766_016_838).abs() < 1e-12);
        // log10 halfway between −1 and −3 is −2; a quarter of the way is −1.5.
        assert!((c.bler(3.0) - 0.01).abs() < 1e-14);
        assert!((c.bler(2.5) - 0.031_622_776_601_683_8).abs() < 1e-14);
        // Towards the zero point, linear in BLER: 1e-3 · (1 − 0.5).
        assert!((c.bler(4.5) - 5e-4).abs() < 1e-16);
        assert_eq!(c.bler(5.5), 0.0);
        // Outside: the end points' BLER; NaN is no signal.
        assert_eq!(c.bler(-50.0), 1.0);
        assert_eq!(c.bler(f64::NEG_INFINITY), 1.0);
        assert_eq!(c.bler(80.0), 0.0);
        assert_eq!(c.bler(f64::INFINITY), 0.0);
        assert_eq!(c.bler(f64::NAN), 1.0);
        assert_eq!(c.sinr10_db, 2.0);
    }

    #[test]
    fn inverse_lookup_matches_interpolation() {
        let c = curve(&[(-1.0, 0.5), (1.0, 0.05), (3.0, 0.0)]);
        // log10 0.1 = −1 lies (−1 − log10 0.5)/(log10 0.05 − log10 0.5) = 0.699/1 of the way.
        assert!((c.sinr10_db - (-1.0 + 2.0 * 0.698_970_004_336_018_8)).abs() < 1e-12);
        assert!((c.bler(c.sinr10_db) - 0.1).abs() < 1e-15);
        // 0.025 on the linear segment: halfway from 0.05 to 0.
        assert!((c.sinr_db_for_bler(0.025) - 2.0).abs() < 1e-12);
        assert_eq!(c.sinr_db_for_bler(0.0), 3.0);
        assert_eq!(c.sinr_db_for_bler(0.5), f64::NEG_INFINITY);
        assert_eq!(c.sinr_db_for_bler(0.7), f64::NEG_INFINITY);
        let floor = curve(&[(0.0, 0.5), (1.0, 0.01)]);
        assert_eq!(floor.sinr_db_for_bler(1e-3), f64::INFINITY);
        for k in 0..=40 {
            let b = 0.5 * 0.8f64.powi(k);
            let s = floor.sinr_db_for_bler(b);
            if b >= 0.01 {
                assert!((floor.bler(s) - b).abs() < 1e-12 * b.max(1e-3), "{b}");
            }
        }
    }

    #[test]
    fn error_lines_are_reported() {
        let e = BlerTable::parse("# c\n\nmcs,sinr_db\n").unwrap_err();
        assert_eq!(e.line(), Some(3));
        assert_eq!(
            e.to_string(),
            "line 3: found `mcs,sinr_db`; expected the header line `mcs,sinr_db,bler`"
        );
        let e = BlerTable::parse("mcs,sinr_db,bler\n0,1.0\n").unwrap_err();
        assert_eq!(e, BlerTableError::Columns { line: 2, found: 2 });
        assert_eq!(BlerTable::parse("  \n# only\n"), Err(BlerTableError::Empty));
        assert_eq!(
            BlerTable::parse("mcs,sinr_db,bler\n"),
            Err(BlerTableError::Empty)
        );
        assert_eq!(
            BlerTableError::MissingMcs {
                mcs: vec![3, 7],
                max: 28
            }
            .to_string(),
            "no curve for MCS 3, 7; expected at least 2 points for every MCS in 0..=28"
        );
    }
}
