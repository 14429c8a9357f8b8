//! Delivery traces in Mahimahi's format (Netravali et al., "Mahimahi: Accurate Record-and-Replay
//! for HTTP", USENIX ATC 2015; the `mm-link` manual page).
//!
//! A trace is a text file with one line per delivery opportunity: an integer number of
//! milliseconds from the start of the trace, at which an MTU-sized packet (1500 bytes of IP) may
//! leave the bottleneck queue. Several lines with the same timestamp are several opportunities in that
//! millisecond. Timestamps never decrease. When the trace ends it repeats, each repetition offset
//! by the last timestamp (the trace's period), so a trace whose lines are `1` … `1000` offers one
//! opportunity every millisecond forever: 12 Mb/s.
//!
//! This module only reads and indexes the file. How a trace serves the packets of a link
//! direction (Mahimahi's byte accounting, or whole opportunities per packet) is in
//! [`crate::trace_service`].
//!
//! Opportunities are numbered globally: opportunity `k` is line `k mod n` of repetition
//! `k / n` (n = lines in the file), at time `(k / n) · period + t[k mod n]`. Times never decrease
//! with `k`, also across a repetition boundary (the last line is at `period` and the first line
//! of the next repetition at `period + t[0] ≥ period`).

use std::io::BufRead;
use std::path::Path;

use celltcp_engine::SimTime;

use crate::text_lines::{quote, BoundedLines, LineError};

/// IP bytes of the MTU-sized packet one delivery opportunity stands for: the unit of a trace's
/// mean rate, and of per-packet accounting. (Mahimahi's byte accounting counts 1504 bytes per
/// opportunity, the 1500 plus a TUN header per packet: see [`crate::trace_service`].)
pub const OPPORTUNITY_BYTES: u32 = 1500;

/// Nanoseconds per millisecond.
const NS_PER_MS: u64 = 1_000_000;

/// Largest timestamp accepted, milliseconds: keeps every opportunity time of a run of up to
/// 500 years representable in `u64` nanoseconds.
pub const MAX_TIMESTAMP_MS: u64 = 1_000_000_000_000;

/// A trace file was rejected. Messages name the 1-based line and the offending text so that a
/// scenario error reads `links.access.a_to_b.trace: line 17: 'abc' is not a millisecond timestamp`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TraceFileError {
    #[error("cannot read '{path}': {reason}")]
    Unreadable { path: String, reason: String },
    #[error("line {line}: '{text}' is not a millisecond timestamp")]
    NotATimestamp { line: usize, text: String },
    #[error(
        "line {line}: '{text}' is beyond the largest timestamp accepted ({MAX_TIMESTAMP_MS} ms)"
    )]
    TooLarge { line: usize, text: String },
    #[error("line {line}: {ms} ms is earlier than the {previous} ms of the line before; timestamps must not decrease")]
    Decreasing { line: usize, ms: u64, previous: u64 },
    #[error("the trace has no delivery opportunities (the file is empty)")]
    Empty,
    #[error("line {line}: the trace ends at 0 ms; its last timestamp must be > 0 for the trace to repeat")]
    ZeroPeriod { line: usize },
    /// A line too long to be a timestamp, not UTF-8, or unreadable.
    #[error(transparent)]
    Line(#[from] LineError),
}

/// What a line of a trace holds, for the messages of [`LineError`].
const LINE_FORM: &str = "one millisecond timestamp per line";

/// A validated delivery trace: opportunity times within one period, in milliseconds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeliveryTrace {
    /// Non-decreasing, non-empty, last element > 0 (the period).
    opportunities_ms: Vec<u64>,
    /// Per line, the time its opportunity stands for, nanoseconds (see
    /// [`DeliveryTrace::slice_ns`]); the slices of one period add up to the period.
    slices_ns: Vec<u64>,
}

impl DeliveryTrace {
    /// Parses the text of a trace file: [`DeliveryTrace::from_reader`] over `text`.
    pub fn parse(text: &str) -> Result<Self, TraceFileError> {
        Self::from_reader(text.as_bytes())
    }

    /// Reads a trace file from `reader` line by line (lines of at most
    /// [`crate::text_lines::MAX_LINE_BYTES`] bytes): only the line being parsed is held as
    /// text. A line is an unsigned decimal integer; surrounding spaces and a Windows line end
    /// are tolerated, anything else (signs, fractions, exponents, empty lines, comments) is an
    /// error naming the line. The size of the whole stream is the caller's to bound.
    pub fn from_reader(reader: impl BufRead) -> Result<Self, TraceFileError> {
        let mut opportunities_ms = Vec::new();
        let mut previous: Option<u64> = None;
        let mut lines = BoundedLines::new(reader, LINE_FORM);
        while let Some(next) = lines.next_line() {
            let (line, raw) = next?;
            let field = raw.trim();
            let digits_only = !field.is_empty() && field.bytes().all(|b| b.is_ascii_digit());
            if !digits_only {
                return Err(TraceFileError::NotATimestamp {
                    line,
                    text: quote(raw),
                });
            }
            // All digits: either a timestamp or one too large (also when it overflows u64).
            let ms = match field.parse::<u64>() {
                Ok(ms) if ms <= MAX_TIMESTAMP_MS => ms,
                _ => {
                    return Err(TraceFileError::TooLarge {
                        line,
                        text: quote(field),
                    })
                }
            };
            if let Some(previous) = previous {
                if ms < previous {
                    return Err(TraceFileError::Decreasing { line, ms, previous });
                }
            }
            previous = Some(ms);
            opportunities_ms.push(ms);
        }
        // The vector grew by doubling: give back what the last doubling left unused.
        opportunities_ms.shrink_to_fit();
        Self::from_opportunities_ms(opportunities_ms)
    }

    /// Reads and parses the trace file at `path`, streaming. The file is opened as it is: a
    /// scenario's traces are read through the scenario crate, which accepts only regular files
    /// of bounded size.
    pub fn read(path: &Path) -> Result<Self, TraceFileError> {
        let file = std::fs::File::open(path).map_err(|e| TraceFileError::Unreadable {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Self::from_reader(std::io::BufReader::new(file))
    }

    /// A trace from opportunity times already in memory (milliseconds, one entry per
    /// opportunity), checked as a file would be.
    pub fn from_opportunities_ms(opportunities_ms: Vec<u64>) -> Result<Self, TraceFileError> {
        let Some(&last) = opportunities_ms.last() else {
            return Err(TraceFileError::Empty);
        };
        for (i, pair) in opportunities_ms.windows(2).enumerate() {
            if pair[1] < pair[0] {
                return Err(TraceFileError::Decreasing {
                    line: i + 2,
                    ms: pair[1],
                    previous: pair[0],
                });
            }
        }
        if let Some(i) = opportunities_ms
            .iter()
            .position(|&ms| ms > MAX_TIMESTAMP_MS)
        {
            return Err(TraceFileError::TooLarge {
                line: i + 1,
                text: opportunities_ms[i].to_string(),
            });
        }
        // Mahimahi refuses a trace that lasts no time: it would offer infinitely many
        // opportunities at time zero.
        if last == 0 {
            return Err(TraceFileError::ZeroPeriod {
                line: opportunities_ms.len(),
            });
        }
        let slices_ns = slices(&opportunities_ms);
        Ok(DeliveryTrace {
            opportunities_ms,
            slices_ns,
        })
    }

    /// Opportunity times within one period, milliseconds.
    pub fn opportunities_ms(&self) -> &[u64] {
        &self.opportunities_ms
    }

    /// Opportunities per period (lines in the file).
    pub fn opportunities_per_period(&self) -> u64 {
        self.opportunities_ms.len() as u64
    }

    /// The period after which the trace repeats (its last timestamp), milliseconds, > 0.
    pub fn period_ms(&self) -> u64 {
        *self
            .opportunities_ms
            .last()
            .expect("a trace is never empty")
    }

    /// The period in nanoseconds.
    fn period_ns(&self) -> u64 {
        self.period_ms() * NS_PER_MS
    }

    /// Mean capacity over one period, bits per second: opportunities × 1500 bytes × 8 / period,
    /// rounded to the nearest bit per second (at least 1).
    pub fn mean_rate_bps(&self) -> u64 {
        let bits_per_period =
            self.opportunities_per_period() as u128 * OPPORTUNITY_BYTES as u128 * 8;
        let period_ms = self.period_ms() as u128;
        let bps = (bits_per_period * 1000 + period_ms / 2) / period_ms;
        (bps.min(u64::MAX as u128) as u64).max(1)
    }

    /// Time of opportunity `k` (global numbering, see the module documentation). Saturates at
    /// `SimTime::MAX` far beyond any run.
    pub fn opportunity_time(&self, k: u64) -> SimTime {
        let n = self.opportunities_per_period();
        let repetition = (k / n) as u128;
        let within = self.opportunities_ms[(k % n) as usize] as u128 * NS_PER_MS as u128;
        let ns = repetition * self.period_ns() as u128 + within;
        SimTime::from_ns(ns.min(u64::MAX as u128) as u64)
    }

    /// Number of opportunities strictly before `t`; equivalently the global index of the first
    /// opportunity at or after `t`.
    pub fn count_before(&self, t: SimTime) -> u64 {
        let n = self.opportunities_per_period();
        let period_ns = self.period_ns();
        let t_ns = t.as_ns();
        // Repetition r holds times in [r·P + t0, (r+1)·P]. Every repetition before r0 − 1
        // (r0 = ⌊t/P⌋) ends before t; r0 − 1 may end exactly at t; repetitions after r0 start
        // after t. So only r0 − 1 and r0 need a search.
        let r0 = t_ns / period_ns;
        let first = r0.saturating_sub(1);
        let mut count = first.saturating_mul(n);
        for r in first..=r0 {
            let base = r as u128 * period_ns as u128;
            let before = self
                .opportunities_ms
                .partition_point(|&ms| base + (ms as u128) * (NS_PER_MS as u128) < t_ns as u128);
            count = count.saturating_add(before as u64);
        }
        count
    }

    /// The time opportunity `k` stands for, nanoseconds: the interval since the previous distinct
    /// opportunity time (from the start of its repetition for the first line), shared equally by
    /// the opportunities of the same millisecond. The slices of the opportunities up to an
    /// opportunity add up to its time, so the slices of the used opportunities measure how long
    /// the link was occupied, as serialisation time does on a fixed-rate link.
    pub fn slice_ns(&self, k: u64) -> u64 {
        self.slices_ns[(k % self.opportunities_per_period()) as usize]
    }

    /// Number of opportunities at or before `t`.
    pub fn count_at_or_before(&self, t: SimTime) -> u64 {
        self.count_before(SimTime::from_ns(t.as_ns().saturating_add(1)))
    }
}

/// Per line, its share of the interval since the previous distinct timestamp (the first group's
/// interval starts at 0 ms, where the previous repetition ended). A remainder of the equal split
/// goes to the first lines of a group, so each group's slices add up to its interval exactly.
fn slices(opportunities_ms: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(opportunities_ms.len());
    let mut previous_ms = 0;
    let mut start = 0;
    while start < opportunities_ms.len() {
        let ms = opportunities_ms[start];
        let group = opportunities_ms[start..]
            .iter()
            .take_while(|&&t| t == ms)
            .count() as u64;
        let interval_ns = (ms - previous_ms) * NS_PER_MS;
        for i in 0..group {
            out.push(interval_ns / group + u64::from(i < interval_ns % group));
        }
        previous_ms = ms;
        start += group as usize;
    }
    out
}

/// Opportunities a packet of `size_bytes` occupies under per-packet accounting: one per started
/// 1500 bytes, and a whole one for a smaller packet (the unused part of an opportunity is not
/// passed on).
pub fn opportunities_for(size_bytes: u32) -> u64 {
    (size_bytes.div_ceil(OPPORTUNITY_BYTES) as u64).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS_NS: u64 = NS_PER_MS;

    fn ms(v: u64) -> SimTime {
        SimTime::from_ns(v * NS_PER_MS)
    }

    #[test]
    fn parses_repeated_timestamps_and_whitespace() {
        let t = DeliveryTrace::parse("0\n 5 \r\n5\n10\n").unwrap();
        assert_eq!(t.opportunities_ms(), &[0, 5, 5, 10]);
        assert_eq!(t.period_ms(), 10);
        assert_eq!(t.opportunities_per_period(), 4);
    }

    #[test]
    fn rejects_each_kind_of_corruption_with_its_line() {
        let err = |text: &str| DeliveryTrace::parse(text).unwrap_err().to_string();
        assert_eq!(
            err("1\n2\nabc\n"),
            "line 3: 'abc' is not a millisecond timestamp"
        );
        assert_eq!(
            err("1\n-2\n"),
            "line 2: '-2' is not a millisecond timestamp"
        );
        assert_eq!(
            err("1\n+2\n"),
            "line 2: '+2' is not a millisecond timestamp"
        );
        assert_eq!(err("1.5\n"), "line 1: '1.5' is not a millisecond timestamp");
        assert_eq!(err("1\n\n2\n"), "line 2: '' is not a millisecond timestamp");
        assert_eq!(
            err("1\n5\n4\n"),
            "line 3: 4 ms is earlier than the 5 ms of the line before; timestamps must not decrease"
        );
        assert_eq!(
            err(""),
            "the trace has no delivery opportunities (the file is empty)"
        );
        assert_eq!(err("0\n0\n"), "line 2: the trace ends at 0 ms; its last timestamp must be > 0 for the trace to repeat");
        assert_eq!(
            err("99999999999999999999999\n"),
            "line 1: '99999999999999999999999' is beyond the largest timestamp accepted (1000000000000 ms)"
        );
        assert!(err("1\n2000000000000\n").starts_with("line 2: '2000000000000' is beyond"));
        let long = "x".repeat(100);
        assert_eq!(
            err(&long),
            format!(
                "line 1: '{}…' is not a millisecond timestamp",
                "x".repeat(40)
            )
        );
    }

    #[test]
    fn a_stream_is_read_line_by_line_with_lines_of_bounded_length() {
        use crate::text_lines::MAX_LINE_BYTES;
        // An endless stream of digits (a device, a file that never ends a line) is refused
        // at its first line instead of being buffered.
        let e =
            DeliveryTrace::from_reader(std::io::BufReader::new(std::io::repeat(b'1'))).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("line 1: more than {MAX_LINE_BYTES} bytes without a line end; expected one millisecond timestamp per line")
        );
        // Bytes that are not text name their line.
        let e = DeliveryTrace::from_reader(&b"1\n2\n\xff\n"[..]);
        assert_eq!(
            e.unwrap_err().to_string(),
            "line 3: not UTF-8 text (byte 0 of the line); expected one millisecond timestamp per line"
        );
    }

    #[test]
    fn the_shipped_traces_read_as_a_stream_equal_their_text_split_into_lines() {
        let dir =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/celltcp/examples/traces");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("trace") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            // The reading of the whole text, line by line, that streaming replaced.
            let whole: Vec<u64> = text.lines().map(|l| l.trim().parse().unwrap()).collect();
            let expected = DeliveryTrace::from_opportunities_ms(whole).unwrap();
            assert_eq!(DeliveryTrace::read(&path).unwrap(), expected, "{path:?}");
            for variant in [
                text.replace('\n', "\r\n"),
                text.trim_end().to_owned(),
                text.replace('\n', "\r\n").trim_end().to_owned(),
            ] {
                // Through a small buffer, so that line ends fall across reads.
                let reader = std::io::BufReader::with_capacity(7, variant.as_bytes());
                assert_eq!(
                    DeliveryTrace::from_reader(reader).unwrap(),
                    expected,
                    "{path:?}"
                );
            }
            seen += 1;
        }
        assert!(seen >= 2, "the example traces are in {dir:?}");
    }

    #[test]
    fn missing_file_is_an_error_naming_the_path() {
        let e = DeliveryTrace::read(Path::new("/nonexistent/celltcp/x.trace")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("cannot read '/nonexistent/celltcp/x.trace': "),
            "{e}"
        );
    }

    #[test]
    fn mean_rate_of_one_opportunity_per_millisecond_is_12_mbps() {
        let t = DeliveryTrace::from_opportunities_ms((1..=1000).collect()).unwrap();
        assert_eq!(t.mean_rate_bps(), 12_000_000);
        let two = DeliveryTrace::parse("1\n1\n").unwrap();
        assert_eq!(two.mean_rate_bps(), 24_000_000);
    }

    #[test]
    fn opportunity_times_loop_offset_by_the_last_timestamp() {
        let t = DeliveryTrace::parse("0\n3\n3\n10\n").unwrap();
        let times: Vec<u64> = (0..9)
            .map(|k| t.opportunity_time(k).as_ns() / NS_PER_MS)
            .collect();
        assert_eq!(times, [0, 3, 3, 10, 10, 13, 13, 20, 20]);
    }

    #[test]
    fn count_before_agrees_with_enumeration() {
        for text in ["0\n3\n3\n10\n", "4\n4\n7\n", "1\n", "2\n2\n2\n9\n9\n"] {
            let t = DeliveryTrace::parse(text).unwrap();
            let times: Vec<SimTime> = (0..200).map(|k| t.opportunity_time(k)).collect();
            for probe_ms in 0..(3 * t.period_ms() + 2) {
                for offset in [0, 1, NS_PER_MS / 2] {
                    let probe = SimTime::from_ns(ms(probe_ms).as_ns() + offset);
                    let expected = times.iter().filter(|&&x| x < probe).count() as u64;
                    assert_eq!(t.count_before(probe), expected, "{text:?} at {probe}");
                    let at_or_before = times.iter().filter(|&&x| x <= probe).count() as u64;
                    assert_eq!(
                        t.count_at_or_before(probe),
                        at_or_before,
                        "{text:?} at {probe}"
                    );
                }
            }
        }
    }

    #[test]
    fn slices_share_each_interval_and_add_up_to_the_period() {
        let t = DeliveryTrace::parse("2\n2\n5\n6\n6\n6\n").unwrap();
        let slices: Vec<u64> = (0..6).map(|k| t.slice_ns(k)).collect();
        assert_eq!(slices, [MS_NS, MS_NS, 3 * MS_NS, 333_334, 333_333, 333_333]);
        assert_eq!(slices.iter().sum::<u64>(), t.period_ms() * MS_NS);
        // The next repetition repeats them.
        assert_eq!(t.slice_ns(6), MS_NS);
    }

    #[test]
    fn opportunities_per_packet_size() {
        assert_eq!(opportunities_for(40), 1);
        assert_eq!(opportunities_for(1500), 1);
        assert_eq!(opportunities_for(1501), 2);
        assert_eq!(opportunities_for(4500), 3);
        assert_eq!(opportunities_for(0), 1);
    }
}
