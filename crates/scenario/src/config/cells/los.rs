//! `[cells.NAME] los`: the line-of-sight condition of the UMa/UMi path-loss models — fixed for
//! every link of the cell (`true`, `false`), or drawn per link from TR 38.901's LOS probability
//! (`"probabilistic"`, Table 7.4.2-1; `celltcp_radio::cell::los`).

use std::borrow::Cow;
use std::fmt;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

const PROBABILISTIC: &str = "probabilistic";
const EXPECTED: &str = "true (LOS), false (NLOS) or \"probabilistic\" (drawn per link)";

/// `los` as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LosFile {
    /// Every link of the cell is LOS (`true`) or NLOS (`false`, the default).
    Fixed(bool),
    /// Each link's condition is drawn once from the LOS probability at its first distance.
    Probabilistic,
}

impl Default for LosFile {
    /// NLOS, as before the key took a string.
    fn default() -> Self {
        LosFile::Fixed(false)
    }
}

impl LosFile {
    /// The fixed condition (`true` = LOS); NLOS as the starting point of a drawn one.
    pub fn is_los(self) -> bool {
        matches!(self, LosFile::Fixed(true))
    }

    /// Whether each link's condition is drawn.
    pub fn is_probabilistic(self) -> bool {
        self == LosFile::Probabilistic
    }
}

impl Serialize for LosFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            LosFile::Fixed(b) => s.serialize_bool(*b),
            LosFile::Probabilistic => s.serialize_str(PROBABILISTIC),
        }
    }
}

impl<'de> Deserialize<'de> for LosFile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(LosVisitor)
    }
}

struct LosVisitor;

impl Visitor<'_> for LosVisitor {
    type Value = LosFile;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(EXPECTED)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<LosFile, E> {
        Ok(LosFile::Fixed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<LosFile, E> {
        if v == PROBABILISTIC {
            Ok(LosFile::Probabilistic)
        } else {
            Err(E::custom(format!(
                "'{v}' is not a LOS condition; expected {EXPECTED}"
            )))
        }
    }
}

impl JsonSchema for LosFile {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("Los")
    }

    fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Line of sight of the UMa/UMi links: true, false, or \"probabilistic\" (each link drawn once from TR 38.901 Table 7.4.2-1).",
            "anyOf": [{ "type": "boolean" }, { "const": PROBABILISTIC }],
        })
    }
}
