//! Quantities with units as written in scenario files: rates, times, sizes and queue limits.
//!
//! Grammar shared by every kind: `NUMBER [" "] UNIT`, where `NUMBER` is decimal digits with an
//! optional fraction (`25`, `1.5`), at most one ASCII space separates it from the unit, and the
//! unit is matched case-sensitively (`Mbps` is megabits, `MBps` megabytes per second). Signs,
//! exponents, digit separators and other whitespace are rejected so that a value has one spelling.
//!
//! Conversion is exact integer arithmetic (no floats): `"1.5Mbps"` is 1 500 000 bit/s.
//! * rates are whole bits per second; a value that is not (e.g. `"0.1Bps"` = 0.8 bit/s) is an error;
//! * sizes are whole bytes and packet counts whole packets, likewise;
//! * times are whole nanoseconds, **rounded to the nearest nanosecond, halves rounded up**
//!   (`"1.5ns"` is 2 ns, `"0.4ns"` is 0 ns).
//!
//! SI prefixes are decimal (k = 10^3, M = 10^6, G = 10^9); `KiB`, `MiB`, `GiB` are binary
//! (2^10, 2^20, 2^30 bytes).
//!
//! Speeds and lengths (the geometry of a radio network, `motion`) follow the same grammar but
//! are stored as `f64` in SI units, since km/h has no exact integer form in m/s.

mod motion;

pub use motion::{length_missing_unit, parse_length, parse_speed, speed_missing_unit};

use celltcp_engine::SimDuration;
use celltcp_net::queue::QueueLimit;

/// Why a quantity did not parse. The text is quoted as written; the caller adds the dotted key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    /// Not of the form `NUMBER [" "] UNIT` with a known unit.
    #[error("'{text}' is not a {kind}; use e.g. '{example}'")]
    Malformed {
        text: String,
        kind: &'static str,
        example: &'static str,
    },
    /// A queue limit of neither form: names both.
    #[error(
        "'{text}' is not a queue limit; use whole packets ('500p') or a size such as '200KB' \
         (units B, kB, KB, MB, GB, KiB, MiB, GiB; kB = KB = 1000 bytes, KiB = 1024 bytes)"
    )]
    MalformedLimit { text: String },
    /// A number without a unit (a TOML number, or a string of digits only).
    #[error("{number} has no unit; a {kind} needs one of {units} (e.g. '{number}{suggested}')")]
    MissingUnit {
        number: String,
        kind: &'static str,
        units: &'static str,
        suggested: &'static str,
    },
    /// A leading minus sign: no quantity of the format is negative.
    #[error("'{text}' is negative; a {kind} must be ≥ 0")]
    Negative { text: String, kind: &'static str },
    /// The value does not fit the integer that stores it.
    #[error("'{text}' is too large for a {kind} (at most {max})")]
    Overflow {
        text: String,
        kind: &'static str,
        max: String,
    },
    /// The value is not a whole number of the stored unit.
    #[error("'{text}' is not a whole number of {base}")]
    Fraction { text: String, base: &'static str },
    /// More fraction digits than exact arithmetic supports.
    #[error("'{text}' has more than {} decimal places", MAX_FRACTION_DIGITS)]
    TooPrecise { text: String },
}

/// Fraction digits accepted (after trailing zeros are dropped). With multipliers up to 6·10^10
/// (`min` in ns) the fraction times the multiplier stays below 2^128.
pub const MAX_FRACTION_DIGITS: usize = 27;

/// How a kind of quantity is written and stored.
struct Grammar {
    /// Noun used in messages: "rate", "time", ...
    kind: &'static str,
    /// Example used in "use e.g." messages.
    example: &'static str,
    /// Unit names in documentation order, for messages.
    unit_list: &'static str,
    /// Unit suggested after a bare number.
    suggested: &'static str,
    /// Name of the stored integer unit, for messages about fractions.
    base: &'static str,
    /// Time values round to the base unit; other kinds must be exact.
    rounds: bool,
    /// Largest stored value.
    max: u128,
    /// Unit suffixes and their multipliers to the base unit.
    units: &'static [(&'static str, u128)],
}

const RATE: Grammar = Grammar {
    kind: "rate",
    example: "25Mbps",
    unit_list: "bps, kbps, Mbps, Gbps, Bps, kBps, MBps, GBps",
    suggested: "Mbps",
    base: "bits per second",
    rounds: false,
    max: u64::MAX as u128,
    units: &[
        ("bps", 1),
        ("kbps", 1_000),
        ("Mbps", 1_000_000),
        ("Gbps", 1_000_000_000),
        ("Bps", 8),
        ("kBps", 8_000),
        ("MBps", 8_000_000),
        ("GBps", 8_000_000_000),
    ],
};

const TIME: Grammar = Grammar {
    kind: "time",
    example: "20ms",
    unit_list: "ns, us, ms, s, min",
    suggested: "ms",
    base: "nanoseconds",
    rounds: true,
    max: u64::MAX as u128,
    units: &[
        ("ns", 1),
        ("us", 1_000),
        ("ms", 1_000_000),
        ("s", 1_000_000_000),
        ("min", 60_000_000_000),
    ],
};

const SIZE: Grammar = Grammar {
    kind: "size",
    example: "1500B",
    unit_list: "B, kB, KB, MB, GB, KiB, MiB, GiB",
    suggested: "B",
    base: "bytes",
    rounds: false,
    max: u64::MAX as u128,
    units: &[
        ("B", 1),
        // The SI symbol (lowercase k, as in kbps) and the common uppercase spelling.
        ("kB", 1_000),
        ("KB", 1_000),
        ("MB", 1_000_000),
        ("GB", 1_000_000_000),
        ("KiB", 1 << 10),
        ("MiB", 1 << 20),
        ("GiB", 1 << 30),
    ],
};

const PACKETS: Grammar = Grammar {
    kind: "queue limit",
    example: "100p",
    unit_list: "p (packets), B, kB, KB, MB, GB, KiB, MiB, GiB",
    suggested: "p",
    base: "packets",
    rounds: false,
    max: u32::MAX as u128,
    units: &[("p", 1)],
};

/// Parses a rate into bits per second, e.g. `"25Mbps"` → 25 000 000.
pub fn parse_rate(text: &str) -> Result<u64, UnitError> {
    parse_with(&RATE, text).map(|v| v as u64)
}

/// Parses a time into nanoseconds, e.g. `"20ms"` → 20 ms (rounded to the nearest ns, halves up).
pub fn parse_time(text: &str) -> Result<SimDuration, UnitError> {
    parse_with(&TIME, text).map(|v| SimDuration::from_ns(v as u64))
}

/// Parses a size into bytes, e.g. `"64KiB"` → 65 536.
pub fn parse_size(text: &str) -> Result<u64, UnitError> {
    parse_with(&SIZE, text).map(|v| v as u64)
}

/// Parses a queue limit: whole packets (`"200p"`) or a size (`"64KB"`).
pub fn parse_queue_limit(text: &str) -> Result<QueueLimit, UnitError> {
    let (_, unit) = split(text.strip_prefix('-').unwrap_or(text));
    if unit == "p" {
        return parse_with(&PACKETS, text).map(|v| QueueLimit::Packets(v as u32));
    }
    match parse_with(&SIZE, text) {
        Ok(bytes) => Ok(QueueLimit::Bytes(bytes as u64)),
        // Report a malformed or unit-less limit as a queue limit, naming both forms.
        Err(UnitError::Malformed { text, .. }) => Err(UnitError::MalformedLimit { text }),
        Err(UnitError::MissingUnit { number, .. }) => Err(missing_unit(&PACKETS, number)),
        Err(UnitError::Negative { text, .. }) => Err(UnitError::Negative {
            text,
            kind: PACKETS.kind,
        }),
        Err(other) => Err(other),
    }
}

/// A quantity of any kind in its SI base unit, for reading values written with units outside a
/// scenario's typed keys (sweep parameters, plot options): the unit names the kind, since the
/// kinds' unit sets are disjoint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quantity {
    /// "rate", "time", "size", "packets", "speed" or "length".
    pub kind: &'static str,
    /// The SI base unit the value is in: bit/s, s, B, packets, m/s, m.
    pub unit: &'static str,
    pub value: f64,
}

/// Parses `text` as a quantity of whichever kind its unit belongs to; `None` when the unit is
/// no kind's, or the text is not a valid quantity of that kind.
pub fn parse_quantity(text: &str) -> Option<Quantity> {
    let (_, unit) = split(text);
    let has = |g: &Grammar| g.units.iter().any(|(u, _)| *u == unit);
    let q = |kind, unit, value| Some(Quantity { kind, unit, value });
    if has(&RATE) {
        q("rate", "bit/s", parse_rate(text).ok()? as f64)
    } else if has(&TIME) {
        q("time", "s", seconds(parse_time(text).ok()?))
    } else if has(&SIZE) {
        q("size", "B", parse_size(text).ok()? as f64)
    } else if has(&PACKETS) {
        q(
            "packets",
            "packets",
            parse_with(&PACKETS, text).ok()? as f64,
        )
    } else if motion::is_speed_unit(unit) {
        q("speed", "m/s", parse_speed(text).ok()?)
    } else if motion::is_length_unit(unit) {
        q("length", "m", parse_length(text).ok()?)
    } else {
        None
    }
}

/// A duration in seconds, correctly rounded (one division: 1 min is 60.0, where ns × 1e-9 gives
/// 60.00000000000001).
fn seconds(d: SimDuration) -> f64 {
    d.as_ns() as f64 / 1e9
}

/// The kinds of [`Quantity`], in the order [`parse_quantity`] tries them.
pub const QUANTITY_KINDS: [&str; 6] = ["rate", "time", "size", "packets", "speed", "length"];

/// Parses `text` as a quantity of `kind` (one of [`QUANTITY_KINDS`]) in its SI base unit, with
/// the message a scenario key of that kind gives; `None` for an unknown kind.
pub fn parse_quantity_of(kind: &str, text: &str) -> Option<Result<f64, UnitError>> {
    Some(match kind {
        "rate" => parse_rate(text).map(|v| v as f64),
        "time" => parse_time(text).map(seconds),
        "size" => parse_size(text).map(|v| v as f64),
        "packets" => parse_with(&PACKETS, text).map(|v| v as f64),
        "speed" => parse_speed(text),
        "length" => parse_length(text),
        _ => return None,
    })
}

/// The error for a bare TOML number where a rate is required.
pub fn rate_missing_unit(number: &str) -> UnitError {
    bare_number(&RATE, number)
}

/// The error for a bare TOML number where a time is required.
pub fn time_missing_unit(number: &str) -> UnitError {
    bare_number(&TIME, number)
}

/// The error for a bare TOML number where a size is required.
pub fn size_missing_unit(number: &str) -> UnitError {
    bare_number(&SIZE, number)
}

/// The error for a bare TOML number where a queue limit is required.
pub fn queue_limit_missing_unit(number: &str) -> UnitError {
    bare_number(&PACKETS, number)
}

/// Formats bits per second with the largest decimal unit that keeps it exact (`"1500kbps"`).
pub fn format_rate(bps: u64) -> String {
    format_exact(
        bps,
        &[
            ("Gbps", 1_000_000_000),
            ("Mbps", 1_000_000),
            ("kbps", 1_000),
            ("bps", 1),
        ],
    )
}

/// Formats a duration with the largest unit that keeps it exact (`"2min"`, `"1500us"`).
pub fn format_time(d: SimDuration) -> String {
    format_exact(
        d.as_ns(),
        &[
            ("min", 60_000_000_000),
            ("s", 1_000_000_000),
            ("ms", 1_000_000),
            ("us", 1_000),
            ("ns", 1),
        ],
    )
}

/// Formats a duration with the largest unit up to seconds that keeps it exact (`"60s"`,
/// `"40ms"`): the form of the TCP timers' defaults, in the unit RFC 6298 states them in. Zero
/// is `"0ms"`, as TS 36.331 writes a timer of none (t-StatusProhibit ms0).
pub fn format_time_secs(d: SimDuration) -> String {
    if d.as_ns() == 0 {
        return "0ms".to_owned();
    }
    format_exact(
        d.as_ns(),
        &[
            ("s", 1_000_000_000),
            ("ms", 1_000_000),
            ("us", 1_000),
            ("ns", 1),
        ],
    )
}

/// Formats bytes with the largest decimal, else binary, unit that keeps it exact.
// `%` rather than `is_multiple_of`, which is newer than the workspace's rust-version (1.80).
#[allow(clippy::manual_is_multiple_of)]
pub fn format_size(bytes: u64) -> String {
    let decimal = [("GB", 1_000_000_000), ("MB", 1_000_000), ("KB", 1_000)];
    let binary = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    if bytes != 0 {
        for (unit, mult) in decimal.into_iter().chain(binary) {
            if bytes % mult == 0 {
                return format!("{}{unit}", bytes / mult);
            }
        }
    }
    format!("{bytes}B")
}

/// Formats a queue limit as `"200p"` or a size.
pub fn format_queue_limit(limit: QueueLimit) -> String {
    match limit {
        QueueLimit::Packets(n) => format!("{n}p"),
        QueueLimit::Bytes(b) => format_size(b),
    }
}

#[allow(clippy::manual_is_multiple_of)]
fn format_exact(value: u64, units: &[(&str, u64)]) -> String {
    for &(unit, mult) in units {
        if value != 0 && value % mult == 0 {
            return format!("{}{unit}", value / mult);
        }
    }
    // Zero (or a value only the last unit divides) uses the smallest unit.
    let (unit, _) = units[units.len() - 1];
    format!("{value}{unit}")
}

fn bare_number(g: &Grammar, number: &str) -> UnitError {
    if let Some(rest) = number.strip_prefix('-') {
        if !rest.is_empty() {
            return UnitError::Negative {
                text: number.to_owned(),
                kind: g.kind,
            };
        }
    }
    missing_unit(g, number.to_owned())
}

fn missing_unit(g: &Grammar, number: String) -> UnitError {
    UnitError::MissingUnit {
        number,
        kind: g.kind,
        units: g.unit_list,
        suggested: g.suggested,
    }
}

/// Splits `text` into the leading run of digits and dots, and the rest after at most one space.
fn split(text: &str) -> (&str, &str) {
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, rest) = text.split_at(end);
    (number, rest.strip_prefix(' ').unwrap_or(rest))
}

/// Splits a decimal number into its integer and fraction digits; `None` if malformed.
fn decimal_parts(number: &str) -> Option<(&str, &str)> {
    let (int, frac) = match number.split_once('.') {
        Some((int, frac)) => (int, frac),
        None => (number, ""),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(int) || (number.contains('.') && !digits(frac)) {
        return None;
    }
    Some((int, frac))
}

fn parse_with(g: &Grammar, text: &str) -> Result<u128, UnitError> {
    let malformed = || UnitError::Malformed {
        text: text.to_owned(),
        kind: g.kind,
        example: g.example,
    };
    if let Some(rest) = text.strip_prefix('-') {
        // Only call it negative if the rest would otherwise be a quantity of this kind.
        return match parse_with(g, rest) {
            Ok(_) | Err(UnitError::Overflow { .. } | UnitError::Fraction { .. }) => {
                Err(UnitError::Negative {
                    text: text.to_owned(),
                    kind: g.kind,
                })
            }
            Err(UnitError::MissingUnit { .. }) => Err(bare_number(g, text)),
            Err(_) => Err(malformed()),
        };
    }
    let (number, unit) = split(text);
    let (int, frac) = decimal_parts(number).ok_or_else(malformed)?;
    if unit.is_empty() && !text.ends_with(' ') {
        return Err(missing_unit(g, number.to_owned()));
    }
    let mult = g
        .units
        .iter()
        .find(|(u, _)| *u == unit)
        .map(|(_, m)| *m)
        .ok_or_else(malformed)?;
    let frac = frac.trim_end_matches('0');
    if frac.len() > MAX_FRACTION_DIGITS {
        return Err(UnitError::TooPrecise {
            text: text.to_owned(),
        });
    }
    let overflow = || UnitError::Overflow {
        text: text.to_owned(),
        kind: g.kind,
        max: format!("{} {}", g.max, g.base),
    };
    // Integer part: at most 39 digits fit a u128; anything longer overflows every kind.
    let int: u128 = int.parse().map_err(|_| overflow())?;
    let whole = int.checked_mul(mult).ok_or_else(overflow)?;
    // Fraction part: frac · mult / 10^k, exact in u128 by MAX_FRACTION_DIGITS.
    let scale = 10u128.pow(frac.len() as u32);
    let frac_scaled = if frac.is_empty() {
        0
    } else {
        frac.parse::<u128>().unwrap_or(0) * mult
    };
    let mut value = whole
        .checked_add(frac_scaled / scale)
        .ok_or_else(overflow)?;
    let remainder = frac_scaled % scale;
    if remainder != 0 {
        if !g.rounds {
            return Err(UnitError::Fraction {
                text: text.to_owned(),
                base: g.base,
            });
        }
        // Round half up: remainder/scale ≥ 1/2.
        if remainder >= scale - remainder {
            value = value.checked_add(1).ok_or_else(overflow)?;
        }
    }
    if value > g.max {
        return Err(overflow());
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn err(r: Result<impl std::fmt::Debug, UnitError>) -> String {
        r.expect_err("expected an error").to_string()
    }

    #[test]
    fn rates_in_every_unit() {
        assert_eq!(parse_rate("100bps"), Ok(100));
        assert_eq!(parse_rate("384kbps"), Ok(384_000));
        assert_eq!(parse_rate("25Mbps"), Ok(25_000_000));
        assert_eq!(parse_rate("1Gbps"), Ok(1_000_000_000));
        assert_eq!(parse_rate("3Bps"), Ok(24));
        assert_eq!(parse_rate("2kBps"), Ok(16_000));
        assert_eq!(parse_rate("1MBps"), Ok(8_000_000));
        assert_eq!(parse_rate("1GBps"), Ok(8_000_000_000));
        assert_eq!(parse_rate("0bps"), Ok(0));
    }

    #[test]
    fn rate_fractions_are_exact() {
        assert_eq!(parse_rate("1.5Mbps"), Ok(1_500_000));
        assert_eq!(parse_rate("0.001Gbps"), Ok(1_000_000));
        assert_eq!(parse_rate("0.125Bps"), Ok(1));
        assert_eq!(
            parse_rate("2.50000000000000000000000000000Mbps"),
            Ok(2_500_000)
        );
        assert_eq!(
            err(parse_rate("0.1Bps")),
            "'0.1Bps' is not a whole number of bits per second"
        );
        assert_eq!(
            err(parse_rate("1.0001kbps")),
            "'1.0001kbps' is not a whole number of bits per second"
        );
    }

    #[test]
    fn one_space_is_accepted_other_whitespace_is_not() {
        assert_eq!(parse_rate("25 Mbps"), Ok(25_000_000));
        assert_eq!(parse_time("20 ms"), Ok(SimDuration::from_ms(20)));
        assert_eq!(parse_size("64 KiB"), Ok(65_536));
        assert_eq!(parse_queue_limit("200 p"), Ok(QueueLimit::Packets(200)));
        for bad in ["25  Mbps", " 25Mbps", "25Mbps ", "25\tMbps", "25 "] {
            assert_eq!(
                err(parse_rate(bad)),
                format!("'{bad}' is not a rate; use e.g. '25Mbps'")
            );
        }
    }

    #[test]
    fn unknown_units_and_garbage() {
        assert_eq!(
            err(parse_rate("25 Mbit")),
            "'25 Mbit' is not a rate; use e.g. '25Mbps'"
        );
        assert_eq!(
            err(parse_rate("25mbps")),
            "'25mbps' is not a rate; use e.g. '25Mbps'"
        );
        assert_eq!(
            err(parse_rate("Mbps")),
            "'Mbps' is not a rate; use e.g. '25Mbps'"
        );
        assert_eq!(err(parse_rate("")), "'' is not a rate; use e.g. '25Mbps'");
        assert_eq!(
            err(parse_rate("1.Mbps")),
            "'1.Mbps' is not a rate; use e.g. '25Mbps'"
        );
        assert_eq!(
            err(parse_rate(".5Mbps")),
            "'.5Mbps' is not a rate; use e.g. '25Mbps'"
        );
        assert_eq!(
            err(parse_rate("1.2.3Mbps")),
            "'1.2.3Mbps' is not a rate; use e.g. '25Mbps'"
        );
        assert_eq!(
            err(parse_rate("+5Mbps")),
            "'+5Mbps' is not a rate; use e.g. '25Mbps'"
        );
        assert_eq!(
            err(parse_rate("1e6bps")),
            "'1e6bps' is not a rate; use e.g. '25Mbps'"
        );
        assert_eq!(
            err(parse_rate("1_000bps")),
            "'1_000bps' is not a rate; use e.g. '25Mbps'"
        );
        assert_eq!(
            err(parse_time("20 msec")),
            "'20 msec' is not a time; use e.g. '20ms'"
        );
        assert_eq!(
            err(parse_time("20µs")),
            "'20µs' is not a time; use e.g. '20ms'"
        );
        assert_eq!(
            err(parse_size("64kb")),
            "'64kb' is not a size; use e.g. '1500B'"
        );
        assert_eq!(
            err(parse_queue_limit("200 pkts")),
            "'200 pkts' is not a queue limit; use whole packets ('500p') or a size such as '200KB' \
             (units B, kB, KB, MB, GB, KiB, MiB, GiB; kB = KB = 1000 bytes, KiB = 1024 bytes)"
        );
        assert!(
            err(parse_queue_limit("x")).starts_with("'x' is not a queue limit; use whole packets")
        );
        // Size units are case-sensitive everywhere (`KB`); a lower-case k is named in the message.
        // Any kind, by its unit, in SI base units.
        let q = |t| parse_quantity(t).map(|q| (q.kind, q.unit, q.value));
        assert_eq!(q("20Mbps"), Some(("rate", "bit/s", 2e7)));
        assert_eq!(q("5 ms"), Some(("time", "s", 0.005)));
        assert_eq!(q("1min"), Some(("time", "s", 60.0)));
        assert_eq!(q("64KiB"), Some(("size", "B", 65_536.0)));
        assert_eq!(q("100p"), Some(("packets", "packets", 100.0)));
        assert_eq!(q("36km/h"), Some(("speed", "m/s", 10.0)));
        assert_eq!(q("1.5km"), Some(("length", "m", 1500.0)));
        assert_eq!(q("20"), None);
        assert_eq!(q("20 furlongs"), None);
        assert_eq!(q("0.1Bps"), None);
        // The SI symbol is a size unit too (as in kbps): 200 kB = 200 KB = 200 000 bytes.
        assert_eq!(parse_queue_limit("200kB"), Ok(QueueLimit::Bytes(200_000)));
        assert_eq!(parse_size("1.5kB"), Ok(1_500));
        // One kind asked for: its value, or that kind's message; another kind's unit is an error.
        let of = |k, t| parse_quantity_of(k, t).map(|r| r.map_err(|e| e.to_string()));
        assert_eq!(of("rate", "20Mbps"), Some(Ok(2e7)));
        assert_eq!(of("time", "1min"), Some(Ok(60.0)));
        assert_eq!(of("length", "1.5km"), Some(Ok(1500.0)));
        assert_eq!(
            of("time", "20Mbps"),
            Some(Err("'20Mbps' is not a time; use e.g. '20ms'".into()))
        );
        assert_eq!(of("furlongs", "1m"), None);
        for kind in QUANTITY_KINDS {
            assert!(parse_quantity_of(kind, "1").is_some(), "{kind}");
        }
    }

    #[test]
    fn numbers_without_units_name_the_units() {
        assert_eq!(
            err(parse_rate("25")),
            "25 has no unit; a rate needs one of bps, kbps, Mbps, Gbps, Bps, kBps, MBps, GBps (e.g. '25Mbps')"
        );
        assert_eq!(
            err(parse_time("1.5")),
            "1.5 has no unit; a time needs one of ns, us, ms, s, min (e.g. '1.5ms')"
        );
        assert_eq!(
            rate_missing_unit("10").to_string(),
            "10 has no unit; a rate needs one of bps, kbps, Mbps, Gbps, Bps, kBps, MBps, GBps (e.g. '10Mbps')"
        );
        assert_eq!(
            size_missing_unit("1500").to_string(),
            "1500 has no unit; a size needs one of B, kB, KB, MB, GB, KiB, MiB, GiB (e.g. '1500B')"
        );
        assert_eq!(
            err(parse_queue_limit("100")),
            "100 has no unit; a queue limit needs one of p (packets), B, kB, KB, MB, GB, KiB, MiB, GiB (e.g. '100p')"
        );
        assert_eq!(
            time_missing_unit("-3").to_string(),
            "'-3' is negative; a time must be ≥ 0"
        );
        assert_eq!(
            queue_limit_missing_unit("7").to_string(),
            missing_unit(&PACKETS, "7".into()).to_string()
        );
    }

    #[test]
    fn negatives_are_rejected_as_such() {
        assert_eq!(
            err(parse_rate("-5Mbps")),
            "'-5Mbps' is negative; a rate must be ≥ 0"
        );
        assert_eq!(
            err(parse_time("-1s")),
            "'-1s' is negative; a time must be ≥ 0"
        );
        assert_eq!(
            err(parse_size("-1.5KB")),
            "'-1.5KB' is negative; a size must be ≥ 0"
        );
        assert_eq!(
            err(parse_queue_limit("-3p")),
            "'-3p' is negative; a queue limit must be ≥ 0"
        );
        assert_eq!(err(parse_time("-x")), "'-x' is not a time; use e.g. '20ms'");
        assert_eq!(err(parse_time("-")), "'-' is not a time; use e.g. '20ms'");
    }

    #[test]
    fn overflow_is_reported_with_the_limit() {
        assert_eq!(parse_rate("18446744073709551615bps"), Ok(u64::MAX));
        assert_eq!(
            err(parse_rate("18446744073709551616bps")),
            "'18446744073709551616bps' is too large for a rate (at most 18446744073709551615 bits per second)"
        );
        assert!(err(parse_rate("99999999999999999999Gbps")).contains("too large"));
        assert!(
            err(parse_rate("1000000000000000000000000000000000000000000bps")).contains("too large")
        );
        assert!(err(parse_time("1000000000min")).contains("too large"));
        assert_eq!(
            parse_time("1000000min"),
            Ok(SimDuration::from_secs(60_000_000))
        );
        assert_eq!(
            parse_queue_limit("4294967295p"),
            Ok(QueueLimit::Packets(u32::MAX))
        );
        assert_eq!(
            err(parse_queue_limit("4294967296p")),
            "'4294967296p' is too large for a queue limit (at most 4294967295 packets)"
        );
        assert_eq!(
            err(parse_time("1.0000000000000000000000000001s")),
            "'1.0000000000000000000000000001s' has more than 27 decimal places"
        );
    }

    #[test]
    fn times_round_to_nearest_nanosecond_halves_up() {
        assert_eq!(parse_time("100ns"), Ok(SimDuration::from_ns(100)));
        assert_eq!(parse_time("250us"), Ok(SimDuration::from_us(250)));
        assert_eq!(parse_time("1.5s"), Ok(SimDuration::from_ms(1500)));
        assert_eq!(parse_time("2min"), Ok(SimDuration::from_secs(120)));
        assert_eq!(parse_time("0s"), Ok(SimDuration::ZERO));
        assert_eq!(parse_time("1.5ns"), Ok(SimDuration::from_ns(2)));
        assert_eq!(parse_time("1.4999ns"), Ok(SimDuration::from_ns(1)));
        assert_eq!(parse_time("0.4ns"), Ok(SimDuration::ZERO));
        assert_eq!(parse_time("0.0000000015s"), Ok(SimDuration::from_ns(2)));
        assert_eq!(
            parse_time("0.333333333333s"),
            Ok(SimDuration::from_ns(333_333_333))
        );
    }

    #[test]
    fn sizes_decimal_and_binary() {
        assert_eq!(parse_size("1500B"), Ok(1500));
        assert_eq!(parse_size("64KB"), Ok(64_000));
        assert_eq!(parse_size("64KiB"), Ok(65_536));
        assert_eq!(parse_size("1MB"), Ok(1_000_000));
        assert_eq!(parse_size("1MiB"), Ok(1 << 20));
        assert_eq!(parse_size("2GB"), Ok(2_000_000_000));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("1.5KiB"), Ok(1536));
        assert_eq!(
            err(parse_size("1.5B")),
            "'1.5B' is not a whole number of bytes"
        );
        assert_eq!(parse_queue_limit("64KB"), Ok(QueueLimit::Bytes(64_000)));
        assert_eq!(
            err(parse_queue_limit("1.5p")),
            "'1.5p' is not a whole number of packets"
        );
    }

    #[test]
    fn formatting_picks_the_largest_exact_unit() {
        assert_eq!(format_rate(25_000_000), "25Mbps");
        assert_eq!(format_rate(1_500_000), "1500kbps");
        assert_eq!(format_rate(0), "0bps");
        assert_eq!(format_time(SimDuration::from_secs(120)), "2min");
        assert_eq!(format_time(SimDuration::from_us(1500)), "1500us");
        assert_eq!(format_time(SimDuration::ZERO), "0ns");
        assert_eq!(format_size(65_536), "64KiB");
        assert_eq!(format_size(64_000), "64KB");
        assert_eq!(format_size(1_024_000), "1024KB");
        assert_eq!(format_size(0), "0B");
        assert_eq!(format_queue_limit(QueueLimit::Packets(200)), "200p");
    }

    proptest! {
        #[test]
        fn formatted_rates_parse_back(bps in any::<u64>()) {
            prop_assert_eq!(parse_rate(&format_rate(bps)), Ok(bps));
        }

        #[test]
        fn formatted_times_parse_back(ns in any::<u64>()) {
            let d = SimDuration::from_ns(ns);
            prop_assert_eq!(parse_time(&format_time(d)), Ok(d));
        }

        #[test]
        fn formatted_sizes_parse_back(bytes in any::<u64>()) {
            prop_assert_eq!(parse_size(&format_size(bytes)), Ok(bytes));
        }

        #[test]
        fn formatted_limits_parse_back(n in any::<u32>(), b in any::<u64>()) {
            for limit in [QueueLimit::Packets(n), QueueLimit::Bytes(b)] {
                prop_assert_eq!(parse_queue_limit(&format_queue_limit(limit)), Ok(limit));
            }
        }

        #[test]
        fn plain_integers_with_a_unit_scale_exactly(n in 0u64..=18_446_744_073u64, i in 0usize..4) {
            let (unit, mult) = [("bps", 1u128), ("kbps", 1_000), ("Mbps", 1_000_000), ("Gbps", 1_000_000_000)][i];
            let expected = n as u128 * mult;
            let parsed = parse_rate(&format!("{n}{unit}"));
            if expected <= u64::MAX as u128 {
                prop_assert_eq!(parsed, Ok(expected as u64));
            } else {
                prop_assert!(matches!(parsed, Err(UnitError::Overflow { .. })), "overflow expected");
            }
        }

        #[test]
        fn arbitrary_text_never_panics(s in "\\PC{0,40}") {
            let _ = parse_rate(&s);
            let _ = parse_time(&s);
            let _ = parse_size(&s);
            let _ = parse_queue_limit(&s);
        }
    }
}
