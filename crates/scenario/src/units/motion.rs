//! Speeds and lengths: the geometry and motion of a radio network (`"100km/h"`, `"250m"`).
//!
//! The grammar is the one of every quantity (`NUMBER [" "] UNIT`, no sign, no exponent), but
//! the value is an `f64` in SI units: km/h → m/s divides by 3.6, which no integer base unit
//! represents exactly, and positions are plain metres (`f64`) everywhere in the radio model.
//! A speed may also be written as a bare zero (`"0"`, `0`): standing still needs no unit.

use super::{decimal_parts, split, UnitError, MAX_FRACTION_DIGITS};

/// How a real-valued kind of quantity is written.
struct RealGrammar {
    kind: &'static str,
    example: &'static str,
    unit_list: &'static str,
    suggested: &'static str,
    /// Unit suffixes and their factors to the SI unit.
    units: &'static [(&'static str, f64)],
    /// A bare zero is a valid value (a speed of 0).
    bare_zero: bool,
}

const SPEED: RealGrammar = RealGrammar {
    kind: "speed",
    example: "100km/h",
    unit_list: "km/h, m/s",
    suggested: "km/h",
    // 1 km/h = 1000 m / 3600 s.
    units: &[("km/h", 1.0 / 3.6), ("m/s", 1.0)],
    bare_zero: true,
};

const LENGTH: RealGrammar = RealGrammar {
    kind: "length",
    example: "250m",
    unit_list: "m, km",
    suggested: "m",
    units: &[("m", 1.0), ("km", 1000.0)],
    bare_zero: false,
};

/// Parses a speed into metres per second: `"100km/h"` → 27.78, `"27.8m/s"`, `"0"` → 0.
pub fn parse_speed(text: &str) -> Result<f64, UnitError> {
    parse_real(&SPEED, text)
}

/// Parses a length into metres: `"250m"`, `"1.5km"` → 1500.
pub fn parse_length(text: &str) -> Result<f64, UnitError> {
    parse_real(&LENGTH, text)
}

/// True when `unit` is one of the speed units.
pub(super) fn is_speed_unit(unit: &str) -> bool {
    SPEED.units.iter().any(|(u, _)| *u == unit)
}

/// True when `unit` is one of the length units.
pub(super) fn is_length_unit(unit: &str) -> bool {
    LENGTH.units.iter().any(|(u, _)| *u == unit)
}

/// The error for a bare TOML number other than zero where a speed is required.
pub fn speed_missing_unit(number: &str) -> UnitError {
    bare_number(&SPEED, number)
}

/// The error for a bare TOML number where a length is required.
pub fn length_missing_unit(number: &str) -> UnitError {
    bare_number(&LENGTH, number)
}

fn bare_number(g: &RealGrammar, number: &str) -> UnitError {
    if number
        .strip_prefix('-')
        .is_some_and(|rest| !rest.is_empty())
    {
        return UnitError::Negative {
            text: number.to_owned(),
            kind: g.kind,
        };
    }
    UnitError::MissingUnit {
        number: number.to_owned(),
        kind: g.kind,
        units: g.unit_list,
        suggested: g.suggested,
    }
}

fn parse_real(g: &RealGrammar, text: &str) -> Result<f64, UnitError> {
    let malformed = || UnitError::Malformed {
        text: text.to_owned(),
        kind: g.kind,
        example: g.example,
    };
    if let Some(rest) = text.strip_prefix('-') {
        // Negative only if the rest would be a quantity of this kind (or a bare number).
        return match parse_real(g, rest) {
            Ok(_) | Err(UnitError::MissingUnit { .. } | UnitError::Overflow { .. }) => {
                Err(UnitError::Negative {
                    text: text.to_owned(),
                    kind: g.kind,
                })
            }
            Err(_) => Err(malformed()),
        };
    }
    let (number, unit) = split(text);
    let (_, frac) = decimal_parts(number).ok_or_else(malformed)?;
    if frac.trim_end_matches('0').len() > MAX_FRACTION_DIGITS {
        return Err(UnitError::TooPrecise {
            text: text.to_owned(),
        });
    }
    // `number` is digits with an optional fraction, which `f64` parses (to the nearest double).
    let magnitude: f64 = number.parse().map_err(|_| malformed())?;
    if unit.is_empty() && !text.ends_with(' ') {
        if g.bare_zero && magnitude == 0.0 {
            return Ok(0.0);
        }
        return Err(bare_number(g, number));
    }
    let factor = g
        .units
        .iter()
        .find(|(u, _)| *u == unit)
        .map(|(_, f)| *f)
        .ok_or_else(malformed)?;
    let value = magnitude * factor;
    if !value.is_finite() {
        return Err(UnitError::Overflow {
            text: text.to_owned(),
            kind: g.kind,
            max: format!("{:e}", f64::MAX),
        });
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(r: Result<f64, UnitError>) -> String {
        r.expect_err("expected an error").to_string()
    }

    #[test]
    fn speeds_in_both_units_and_a_bare_zero() {
        assert!((parse_speed("100km/h").unwrap() - 27.777_777_777_777_78).abs() < 1e-12);
        assert!((parse_speed("120 km/h").unwrap() - 33.333_333_333_333_336).abs() < 1e-12);
        assert_eq!(parse_speed("27.8m/s"), Ok(27.8));
        assert_eq!(parse_speed("3 m/s"), Ok(3.0));
        assert_eq!(parse_speed("0"), Ok(0.0));
        assert_eq!(parse_speed("0.0"), Ok(0.0));
        assert_eq!(parse_speed("0km/h"), Ok(0.0));
    }

    #[test]
    fn lengths_in_metres_and_kilometres() {
        assert_eq!(parse_length("250m"), Ok(250.0));
        assert_eq!(parse_length("1.5km"), Ok(1500.0));
        assert_eq!(parse_length("500 m"), Ok(500.0));
        assert_eq!(
            err(parse_length("0")),
            "0 has no unit; a length needs one of m, km (e.g. '0m')"
        );
    }

    #[test]
    fn malformed_missing_unit_and_negative() {
        assert_eq!(
            err(parse_speed("100kmh")),
            "'100kmh' is not a speed; use e.g. '100km/h'"
        );
        assert_eq!(
            err(parse_speed("100 mph")),
            "'100 mph' is not a speed; use e.g. '100km/h'"
        );
        assert_eq!(
            err(parse_speed("1e2m/s")),
            "'1e2m/s' is not a speed; use e.g. '100km/h'"
        );
        assert_eq!(
            err(parse_speed("")),
            "'' is not a speed; use e.g. '100km/h'"
        );
        assert_eq!(
            err(parse_speed("100")),
            "100 has no unit; a speed needs one of km/h, m/s (e.g. '100km/h')"
        );
        assert_eq!(
            err(parse_speed("-3km/h")),
            "'-3km/h' is negative; a speed must be ≥ 0"
        );
        assert_eq!(
            err(parse_speed("-3")),
            "'-3' is negative; a speed must be ≥ 0"
        );
        assert_eq!(
            err(parse_speed("-x")),
            "'-x' is not a speed; use e.g. '100km/h'"
        );
        assert_eq!(
            err(parse_length("-1m")),
            "'-1m' is negative; a length must be ≥ 0"
        );
        assert_eq!(
            err(parse_length("250 meters")),
            "'250 meters' is not a length; use e.g. '250m'"
        );
        assert_eq!(
            speed_missing_unit("-2").to_string(),
            "'-2' is negative; a speed must be ≥ 0"
        );
        assert_eq!(
            length_missing_unit("7").to_string(),
            "7 has no unit; a length needs one of m, km (e.g. '7m')"
        );
    }

    #[test]
    fn huge_values_are_reported_not_infinite() {
        let text = format!("{}km", "9".repeat(400));
        assert!(err(parse_length(&text)).contains("too large for a length"));
    }
}
