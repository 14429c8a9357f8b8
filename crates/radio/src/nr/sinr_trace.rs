//! A UE's SINR as a time series, measured or produced by another simulator (a ray tracer, an
//! ns-3 mmWave or 5G-LENA run), read and validated as the LTE BLER tables are
//! ([`crate::phy::BlerTable`]).
//!
//! # Format
//!
//! CSV, one sample per line, after a header line naming the two columns:
//!
//! ```text
//! # UE 3, 28 GHz, street canyon
//! time_s,sinr_db
//! 0,18.5
//! 0.0005,18.1
//! 0.001,-3.2
//! ```
//!
//! Lines whose first non-blank character is `#` and blank lines are skipped. `time_s` is a
//! non-negative decimal number of seconds with at most 9 fractional digits, read exactly into
//! integer nanoseconds (no binary rounding, so a trace at 0.1 ms steps lands on the slots it
//! names); times increase strictly from line to line. `sinr_db` is a finite SINR in
//! [−50, 100] dB. A trace needs at least one sample.
//!
//! # Interpolation
//!
//! [`SinrInterpolation::Hold`] (the default) keeps each sample until the next one (zero-order
//! hold: a trace is a sequence of measurements, and a measurement says nothing about between
//! two of them). [`SinrInterpolation::Linear`] interpolates linearly in dB between samples.
//! Before the first sample the first value holds, after the last the last value holds.

use std::io::BufRead;
use std::path::Path;

use celltcp_net::text_lines::{quote, BoundedLines, LineError};

/// The header line the trace must start with (after comments and blank lines).
pub const SINR_TRACE_HEADER: &str = "time_s,sinr_db";

const LINE_FORM: &str = "the header `time_s,sinr_db`, then one `TIME_S,SINR_dB` sample per line";

/// SINRs a trace may hold, dB.
const SINR_RANGE_DB: (f64, f64) = (-50.0, 100.0);

/// Bad SINR trace. Messages give the 1-based line, the value and what was expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SinrTraceError {
    #[error("{path}: cannot read the SINR trace: {message}")]
    Io { path: String, message: String },
    #[error("{path}: {source}")]
    InFile {
        path: String,
        #[source]
        source: Box<SinrTraceError>,
    },
    #[error(transparent)]
    Line(#[from] LineError),
    #[error(
        "the SINR trace has no samples; expected the header line `{SINR_TRACE_HEADER}` \
         followed by one `TIME_S,SINR_dB` sample per line"
    )]
    Empty,
    #[error("line {line}: found `{found}`; expected the header line `{SINR_TRACE_HEADER}`")]
    Header { line: usize, found: String },
    #[error("line {line}: {found} columns; expected 2 (`{SINR_TRACE_HEADER}`)")]
    Columns { line: usize, found: usize },
    #[error(
        "line {line}: time_s `{value}` is not a time; expected a non-negative decimal number \
         of seconds with at most 9 fractional digits, e.g. `0.0125`"
    )]
    Time { line: usize, value: String },
    #[error(
        "line {line}: time_s {value} is not after the previous sample's (line {previous_line}); \
         expected strictly increasing times"
    )]
    NotIncreasing {
        line: usize,
        value: String,
        previous_line: usize,
    },
    #[error("line {line}: sinr_db `{value}` is not a number; expected an SINR in dB, e.g. `12.5`")]
    NotANumber { line: usize, value: String },
    #[error(
        "line {line}: sinr_db {value} is out of range; expected a finite SINR in [-50, 100] dB"
    )]
    SinrRange { line: usize, value: f64 },
}

/// How a trace is read between samples (module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SinrInterpolation {
    #[default]
    Hold,
    Linear,
}

/// A validated SINR trace.
#[derive(Clone, Debug, PartialEq)]
pub struct SinrTrace {
    times_ns: Box<[u64]>,
    sinr_db: Box<[f64]>,
    interpolation: SinrInterpolation,
}

/// `"12.0125"` → 12_012_500_000 ns, exactly; `None` if it is not that form.
fn parse_time_ns(text: &str) -> Option<u64> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() || !digits(int) || !digits(frac) || frac.len() > 9 {
        return None;
    }
    if text.ends_with('.') {
        return None;
    }
    let seconds: u64 = int.parse().ok()?;
    let frac_ns: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse::<u64>().ok()? * 10u64.pow(9 - frac.len() as u32)
    };
    seconds.checked_mul(1_000_000_000)?.checked_add(frac_ns)
}

impl SinrTrace {
    /// Parses and validates a trace: [`SinrTrace::from_reader`] over `text`.
    pub fn parse(text: &str, interpolation: SinrInterpolation) -> Result<Self, SinrTraceError> {
        Self::from_reader(text.as_bytes(), interpolation)
    }

    /// Reads a trace line by line (lines of at most
    /// [`celltcp_net::text_lines::MAX_LINE_BYTES`] bytes), reporting the first error found.
    pub fn from_reader(
        reader: impl BufRead,
        interpolation: SinrInterpolation,
    ) -> Result<Self, SinrTraceError> {
        let mut times_ns = Vec::new();
        let mut sinr_db = Vec::new();
        let mut previous_line = 0;
        let mut header_seen = false;
        let mut lines = BoundedLines::new(reader, LINE_FORM);
        while let Some(next) = lines.next_line() {
            let (line, raw) = next?;
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
                if fields != ["time_s", "sinr_db"] {
                    return Err(SinrTraceError::Header {
                        line,
                        found: quote(content),
                    });
                }
                header_seen = true;
                continue;
            }
            let [time, sinr] = fields[..] else {
                return Err(SinrTraceError::Columns {
                    line,
                    found: fields.len(),
                });
            };
            let t = parse_time_ns(time).ok_or_else(|| SinrTraceError::Time {
                line,
                value: quote(time),
            })?;
            if times_ns.last().is_some_and(|&prev| t <= prev) {
                return Err(SinrTraceError::NotIncreasing {
                    line,
                    value: quote(time),
                    previous_line,
                });
            }
            let s: f64 = sinr.parse().map_err(|_| SinrTraceError::NotANumber {
                line,
                value: quote(sinr),
            })?;
            if !(s.is_finite() && (SINR_RANGE_DB.0..=SINR_RANGE_DB.1).contains(&s)) {
                return Err(SinrTraceError::SinrRange { line, value: s });
            }
            times_ns.push(t);
            sinr_db.push(s);
            previous_line = line;
        }
        if times_ns.is_empty() {
            return Err(SinrTraceError::Empty);
        }
        Ok(SinrTrace {
            times_ns: times_ns.into(),
            sinr_db: sinr_db.into(),
            interpolation,
        })
    }

    /// Reads the trace at `path`; errors name the path.
    pub fn from_path(
        path: impl AsRef<Path>,
        interpolation: SinrInterpolation,
    ) -> Result<Self, SinrTraceError> {
        let path = path.as_ref();
        let file = std::fs::File::open(path).map_err(|e| SinrTraceError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Self::from_reader(std::io::BufReader::new(file), interpolation).map_err(|e| {
            SinrTraceError::InFile {
                path: path.display().to_string(),
                source: Box::new(e),
            }
        })
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.times_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.times_ns.is_empty()
    }

    /// Time of the last sample, ns.
    pub fn end_ns(&self) -> u64 {
        *self.times_ns.last().expect("a trace has a sample")
    }

    /// The SINR at `now_ns`, dB, by the trace's interpolation rule.
    pub fn sinr_db_at(&self, now_ns: u64) -> f64 {
        // Index of the first sample after `now_ns`.
        let next = self.times_ns.partition_point(|&t| t <= now_ns);
        if next == 0 {
            return self.sinr_db[0];
        }
        if next == self.times_ns.len() {
            return self.sinr_db[next - 1];
        }
        let (t0, s0) = (self.times_ns[next - 1], self.sinr_db[next - 1]);
        match self.interpolation {
            SinrInterpolation::Hold => s0,
            SinrInterpolation::Linear => {
                let (t1, s1) = (self.times_ns[next], self.sinr_db[next]);
                s0 + (s1 - s0) * (now_ns - t0) as f64 / (t1 - t0) as f64
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# a trace\ntime_s,sinr_db\n0,10\n0.001,20\n0.0030,-5\n";

    fn err(text: &str) -> String {
        SinrTrace::parse(text, SinrInterpolation::Hold)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn hold_and_linear() {
        let hold = SinrTrace::parse(TEXT, SinrInterpolation::Hold).unwrap();
        assert_eq!(hold.len(), 3);
        assert_eq!(hold.end_ns(), 3_000_000);
        assert_eq!(hold.sinr_db_at(0), 10.0);
        assert_eq!(hold.sinr_db_at(999_999), 10.0);
        assert_eq!(hold.sinr_db_at(1_000_000), 20.0);
        assert_eq!(hold.sinr_db_at(2_999_999), 20.0);
        assert_eq!(hold.sinr_db_at(9_000_000_000), -5.0);
        let lin = SinrTrace::parse(TEXT, SinrInterpolation::Linear).unwrap();
        assert_eq!(lin.sinr_db_at(500_000), 15.0);
        assert_eq!(lin.sinr_db_at(2_000_000), 7.5);
        assert_eq!(lin.sinr_db_at(3_000_000), -5.0);
        // Before the first sample the first value holds.
        let late =
            SinrTrace::parse("time_s,sinr_db\n1,3\n2,4\n", SinrInterpolation::Linear).unwrap();
        assert_eq!(late.sinr_db_at(0), 3.0);
    }

    #[test]
    fn times_are_exact_decimals() {
        assert_eq!(parse_time_ns("0.0001"), Some(100_000));
        assert_eq!(parse_time_ns("12.000000001"), Some(12_000_000_001));
        assert_eq!(parse_time_ns("3"), Some(3_000_000_000));
        for bad in ["", "-1", "1e-3", "0.1234567891", ".5", "5.", "1,5", "nan"] {
            assert_eq!(parse_time_ns(bad), None, "{bad}");
        }
    }

    #[test]
    fn errors_name_the_line_and_the_form() {
        assert_eq!(
            err("# only a comment\n"),
            "the SINR trace has no samples; expected the header line `time_s,sinr_db` \
             followed by one `TIME_S,SINR_dB` sample per line"
        );
        assert_eq!(
            err("time,sinr\n"),
            "line 1: found `time,sinr`; expected the header line `time_s,sinr_db`"
        );
        assert_eq!(
            err("time_s,sinr_db\n0,1,2\n"),
            "line 2: 3 columns; expected 2 (`time_s,sinr_db`)"
        );
        assert!(err("time_s,sinr_db\n1ms,3\n").starts_with("line 2: time_s `1ms` is not a time"));
        assert_eq!(
            err("time_s,sinr_db\n0.002,1\n\n0.002,2\n"),
            "line 4: time_s 0.002 is not after the previous sample's (line 2); expected \
             strictly increasing times"
        );
        assert!(err("time_s,sinr_db\n0,x\n").starts_with("line 2: sinr_db `x` is not a number"));
        assert_eq!(
            err("time_s,sinr_db\n0,120\n"),
            "line 2: sinr_db 120 is out of range; expected a finite SINR in [-50, 100] dB"
        );
        assert!(err("time_s,sinr_db\n0,inf\n").contains("out of range"));
    }

    #[test]
    fn from_path_names_the_file() {
        let dir = std::env::temp_dir().join(format!("celltcp-sinr-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.csv");
        std::fs::write(&path, "time_s,sinr_db\n0,x\n").unwrap();
        let e = SinrTrace::from_path(&path, SinrInterpolation::Hold).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(&format!("{}: line 2:", path.display())),
            "{e}"
        );
        let missing = SinrTrace::from_path(dir.join("none.csv"), SinrInterpolation::Hold);
        assert!(matches!(missing, Err(SinrTraceError::Io { .. })));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
