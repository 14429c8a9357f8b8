//! Values with units as they appear in the raw file: the parsed value and the text as written.
//!
//! Parsing happens while the file is deserialized, so a bad value is reported at its exact key.
//! The text is kept so that [`crate::Scenario::echo`] shows units as the user wrote them.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use celltcp_engine::SimDuration;
use celltcp_net::queue::QueueLimit;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::units::{self, UnitError};

/// One kind of quantity: how it parses and how the JSON Schema describes it.
pub trait UnitKind: 'static {
    /// The stored value (an integer in base units).
    type Value: Copy + fmt::Debug + PartialEq;
    /// Name of the kind in the JSON Schema (`$defs/Rate`).
    const SCHEMA_NAME: &'static str;
    /// ECMA-262 regular expression for the JSON Schema; mirrors the parser in `units`.
    const PATTERN: &'static str;
    /// Description for the JSON Schema.
    const DESCRIPTION: &'static str;
    /// An example for messages about values of the wrong type.
    const EXAMPLE: &'static str;
    /// Parses the text form.
    fn parse(text: &str) -> Result<Self::Value, UnitError>;
    /// The error for a TOML number given without a unit.
    fn bare_number(number: &str) -> UnitError;
    /// A TOML number given without a unit: an error for every kind but speeds, where zero
    /// needs no unit.
    fn from_number(number: &str) -> Result<Self::Value, UnitError> {
        Err(Self::bare_number(number))
    }
    /// The JSON Schema also accepts the number 0 (speeds).
    const ZERO_NUMBER: bool = false;
}

/// Bit rates, stored in bits per second.
pub struct Rate;
/// Times, stored as [`SimDuration`] (integer nanoseconds).
pub struct Time;
/// Sizes, stored in bytes.
pub struct Size;
/// Queue limits: packets or bytes.
pub struct Limit;
/// Speeds, stored in metres per second (`f64`).
pub struct Speed;
/// Lengths, stored in metres (`f64`).
pub struct Length;

impl UnitKind for Rate {
    type Value = u64;
    const SCHEMA_NAME: &'static str = "Rate";
    const PATTERN: &'static str = "^[0-9]+(\\.[0-9]+)? ?(bps|kbps|Mbps|Gbps|Bps|kBps|MBps|GBps)$";
    const DESCRIPTION: &'static str = "A bit rate: a number and a unit, e.g. '25Mbps', '1.5Mbps', \
        '384kbps'. Prefixes are decimal (k = 1000); bps is bits per second, Bps bytes per second. \
        The value must be a whole number of bits per second.";
    const EXAMPLE: &'static str = "25Mbps";
    fn parse(text: &str) -> Result<u64, UnitError> {
        units::parse_rate(text)
    }
    fn bare_number(number: &str) -> UnitError {
        units::rate_missing_unit(number)
    }
}

impl UnitKind for Time {
    type Value = SimDuration;
    const SCHEMA_NAME: &'static str = "Time";
    const PATTERN: &'static str = "^[0-9]+(\\.[0-9]+)? ?(ns|us|ms|s|min)$";
    const DESCRIPTION: &'static str = "A time: a number and a unit, e.g. '20ms', '1.5s', '250us', \
        '2min'. Stored as integer nanoseconds, rounded to the nearest nanosecond (halves up).";
    const EXAMPLE: &'static str = "20ms";
    fn parse(text: &str) -> Result<SimDuration, UnitError> {
        units::parse_time(text)
    }
    fn bare_number(number: &str) -> UnitError {
        units::time_missing_unit(number)
    }
}

impl UnitKind for Size {
    type Value = u64;
    const SCHEMA_NAME: &'static str = "Size";
    const PATTERN: &'static str = "^[0-9]+(\\.[0-9]+)? ?(B|kB|KB|MB|GB|KiB|MiB|GiB)$";
    const DESCRIPTION: &'static str =
        "A size: a number and a unit, e.g. '1500B', '64KB', '64KiB'. \
        kB = KB = 1000 bytes, KiB = 1024 bytes; the value must be a whole number of bytes.";
    const EXAMPLE: &'static str = "1500B";
    fn parse(text: &str) -> Result<u64, UnitError> {
        units::parse_size(text)
    }
    fn bare_number(number: &str) -> UnitError {
        units::size_missing_unit(number)
    }
}

impl UnitKind for Limit {
    type Value = QueueLimit;
    const SCHEMA_NAME: &'static str = "QueueLimit";
    const PATTERN: &'static str = "^[0-9]+ ?p$|^[0-9]+(\\.[0-9]+)? ?(B|kB|KB|MB|GB|KiB|MiB|GiB)$";
    const DESCRIPTION: &'static str =
        "A queue limit: whole packets ('200p') or a size ('64KB', '64KiB').";
    const EXAMPLE: &'static str = "100p";
    fn parse(text: &str) -> Result<QueueLimit, UnitError> {
        units::parse_queue_limit(text)
    }
    fn bare_number(number: &str) -> UnitError {
        units::queue_limit_missing_unit(number)
    }
}

impl UnitKind for Speed {
    type Value = f64;
    const SCHEMA_NAME: &'static str = "Speed";
    const PATTERN: &'static str = "^[0-9]+(\\.[0-9]+)? ?(km/h|m/s)$|^0+(\\.0+)?$";
    const DESCRIPTION: &'static str = "A speed: a number and a unit, e.g. '100km/h', '27.8m/s'; \
        a bare zero ('0' or 0) stands still. Stored in metres per second.";
    const EXAMPLE: &'static str = "100km/h";
    const ZERO_NUMBER: bool = true;
    fn parse(text: &str) -> Result<f64, UnitError> {
        units::parse_speed(text)
    }
    fn bare_number(number: &str) -> UnitError {
        units::speed_missing_unit(number)
    }
    fn from_number(number: &str) -> Result<f64, UnitError> {
        let zero = number.parse::<f64>().is_ok_and(|v| v == 0.0);
        if zero {
            Ok(0.0)
        } else {
            Err(Self::bare_number(number))
        }
    }
}

impl UnitKind for Length {
    type Value = f64;
    const SCHEMA_NAME: &'static str = "Length";
    const PATTERN: &'static str = "^[0-9]+(\\.[0-9]+)? ?(m|km)$";
    const DESCRIPTION: &'static str = "A length: a number and a unit, e.g. '250m', '1.5km'. \
        Stored in metres.";
    const EXAMPLE: &'static str = "250m";
    fn parse(text: &str) -> Result<f64, UnitError> {
        units::parse_length(text)
    }
    fn bare_number(number: &str) -> UnitError {
        units::length_missing_unit(number)
    }
}

/// A quantity read from the file: its value in base units and the text as written.
pub struct Quantity<K: UnitKind> {
    pub value: K::Value,
    pub text: String,
    kind: PhantomData<K>,
}

impl<K: UnitKind> Quantity<K> {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<Self, UnitError> {
        K::parse(text).map(|value| Quantity {
            value,
            text: text.to_owned(),
            kind: PhantomData,
        })
    }

    /// A TOML number without a unit (accepted only where the kind allows it: a zero speed).
    fn from_number(number: &str) -> Result<Self, UnitError> {
        K::from_number(number).map(|value| Quantity {
            value,
            text: number.to_owned(),
            kind: PhantomData,
        })
    }

    /// A default written in this crate's source. Every default is parsed when a minimal
    /// scenario loads, which the tests do, so the `expect` cannot fire at run time.
    pub(crate) fn default_of(text: &'static str) -> Self {
        Self::parse(text).expect("quantity defaults in the source are valid")
    }

    /// A default formatted from a value of the radio or network crates (`"45ms"`, `"1MB"`),
    /// which parses back to that value; like [`Self::default_of`] it is parsed when a minimal
    /// scenario loads.
    pub(crate) fn default_of_text(text: String) -> Self {
        Self::parse(&text).expect("formatted quantity defaults parse")
    }
}

impl Quantity<Time> {
    /// A default timer of the radio crates in milliseconds, the unit in which the RRC
    /// specifications signal their timers (TS 36.331 §6.3.2 RLC-Config and PDCP-Config: ms0,
    /// ms5, …; TS 25.331 §10.3.4 for the WCDMA RLC). Every such default is a whole millisecond.
    pub(crate) fn default_ms(d: SimDuration) -> Self {
        Self::default_of_text(format!("{}ms", d.as_ns() / 1_000_000))
    }
}

impl<K: UnitKind> Clone for Quantity<K> {
    fn clone(&self) -> Self {
        Quantity {
            value: self.value,
            text: self.text.clone(),
            kind: PhantomData,
        }
    }
}

impl<K: UnitKind> fmt::Debug for Quantity<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} ({:?})", self.text, self.value)
    }
}

/// Two quantities are equal when their values are: `"1000ms"` equals `"1s"`.
impl<K: UnitKind> PartialEq for Quantity<K> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<K: UnitKind> fmt::Display for Quantity<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl<K: UnitKind> Serialize for Quantity<K> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de, K: UnitKind> Deserialize<'de> for Quantity<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(QuantityVisitor::<K>(PhantomData))
    }
}

struct QuantityVisitor<K>(PhantomData<K>);

impl<K: UnitKind> Visitor<'_> for QuantityVisitor<K> {
    type Value = Quantity<K>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a string like '{}'", K::EXAMPLE)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Quantity::parse(v).map_err(E::custom)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Quantity::from_number(&v.to_string()).map_err(E::custom)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Quantity::from_number(&v.to_string()).map_err(E::custom)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Quantity::from_number(&v.to_string()).map_err(E::custom)
    }
}

impl<K: UnitKind> JsonSchema for Quantity<K> {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed(K::SCHEMA_NAME)
    }

    fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
        if K::ZERO_NUMBER {
            return json_schema!({
                "anyOf": [
                    { "type": "string", "pattern": K::PATTERN },
                    { "const": 0 },
                ],
                "description": K::DESCRIPTION,
                "examples": [K::EXAMPLE],
            });
        }
        json_schema!({
            "type": "string",
            "pattern": K::PATTERN,
            "description": K::DESCRIPTION,
            "examples": [K::EXAMPLE],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equality_is_by_value_and_text_is_kept() {
        let a = Quantity::<Time>::parse("1000ms").expect("valid");
        let b = Quantity::<Time>::parse("1s").expect("valid");
        assert_eq!(a, b);
        assert_eq!(a.text, "1000ms");
        assert_eq!(
            serde_json::to_value(&a).expect("serializes"),
            serde_json::json!("1000ms")
        );
    }

    #[test]
    fn speeds_and_lengths() {
        let s = Quantity::<Speed>::parse("36km/h").expect("valid");
        assert!((s.value - 10.0).abs() < 1e-12);
        assert_eq!(Quantity::<Speed>::parse("0").expect("zero").value, 0.0);
        assert_eq!(Quantity::<Speed>::from_number("0").expect("zero").text, "0");
        assert_eq!(
            Quantity::<Speed>::from_number("5").unwrap_err().to_string(),
            "5 has no unit; a speed needs one of km/h, m/s (e.g. '5km/h')"
        );
        assert_eq!(
            Quantity::<Speed>::from_number("-5")
                .unwrap_err()
                .to_string(),
            "'-5' is negative; a speed must be ≥ 0"
        );
        assert_eq!(
            Quantity::<Length>::parse("1.5km").expect("valid").value,
            1500.0
        );
        assert!(Quantity::<Length>::from_number("0").is_err());
    }
}
