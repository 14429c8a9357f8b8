//! A [`SimDuration`] in serialised configuration: integer nanoseconds, the form a file layer
//! gives a time after reading its unit (`"200ms"`). For `#[serde(with = "...")]` on the
//! configuration types of the protocol crates, so that each reads and writes times alike.

use serde::{Deserialize, Deserializer, Serializer};

use crate::SimDuration;

/// Writes the duration as integer nanoseconds.
pub fn serialize<S: Serializer>(d: &SimDuration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_ns())
}

/// Reads integer nanoseconds.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SimDuration, D::Error> {
    u64::deserialize(d).map(SimDuration)
}
