//! Applications of TCP flows (`app = { kind = …, … }`) and their size distributions.

use std::borrow::Cow;
use std::fmt;

use celltcp_engine::SimDuration;
use celltcp_tcp::app::FileSize;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, EnumAccess, VariantAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::quantity::{Quantity, Rate, Size, Time};
use super::{DistTagged, KindTagged};
use crate::error::join_key;
use crate::units::size_missing_unit;
use crate::validate::positive_time;
use crate::ScenarioError;

/// The application of a TCP flow: a table tagged by `kind` (bulk, ftp, onoff).
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(tag = "kind")]
pub enum AppFile {
    /// Sends as fast as TCP allows: unbounded, or `bytes` then closes.
    Bulk(BulkFile),
    /// Repeated file transfers, each on a new connection, spaced by exponential think times or
    /// inter-request times.
    Ftp(FtpFile),
    /// Alternating exponential on and off periods; sends at `rate` while on.
    #[serde(rename = "onoff")]
    OnOff(OnOffFile),
}

impl Serialize for AppFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            AppFile::Bulk(body) => KindTagged { kind: "bulk", body }.serialize(s),
            AppFile::Ftp(body) => KindTagged { kind: "ftp", body }.serialize(s),
            AppFile::OnOff(body) => KindTagged {
                kind: "onoff",
                body,
            }
            .serialize(s),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BulkFile {
    /// Bytes to send before closing (a size, > 0); unbounded by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<Quantity<Size>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FtpFile {
    /// Size of each file: a size, or a distribution table { dist = "fixed" | "exponential" | "pareto", … }.
    pub file_size: FileSizeFile,
    /// Mean of the exponential think time from the end of one transfer to the next request (a
    /// time, ≥ 0). Exactly one of `think_time` and `inter_request` is required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think_time: Option<Quantity<Time>>,
    /// Mean of the exponential time between the starts of successive requests (a time, > 0); a
    /// request due while the previous transfer still runs starts when it ends. Exactly one of
    /// `think_time` and `inter_request` is required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inter_request: Option<Quantity<Time>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OnOffFile {
    /// Mean of the exponential on periods (a time, > 0).
    pub on: Quantity<Time>,
    /// Mean of the exponential off periods (a time, ≥ 0).
    pub off: Quantity<Time>,
    /// Application sending rate while on (a rate, > 0).
    pub rate: Quantity<Rate>,
}

/// `file_size`: a plain size, or a distribution table tagged by `dist`.
#[derive(Clone, Debug, PartialEq)]
pub enum FileSizeFile {
    /// `file_size = "100KB"`: every file has this size.
    Size(Quantity<Size>),
    Dist(SizeDistFile),
}

/// A distribution of file sizes: a table tagged by `dist` (fixed, exponential, pareto).
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(tag = "dist")]
pub enum SizeDistFile {
    Fixed(FixedSizeFile),
    Exponential(ExponentialSizeFile),
    Pareto(ParetoSizeFile),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FixedSizeFile {
    /// The size of every file (a size, > 0).
    pub value: Quantity<Size>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExponentialSizeFile {
    /// Mean size (a size, > 0).
    pub mean: Quantity<Size>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParetoSizeFile {
    /// Mean size (a size, > 0); the scale is mean · (shape − 1) / shape.
    pub mean: Quantity<Size>,
    /// Shape parameter α (> 1, so that the mean is finite).
    pub shape: f64,
}

impl Serialize for FileSizeFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            FileSizeFile::Size(q) => q.serialize(s),
            FileSizeFile::Dist(SizeDistFile::Fixed(body)) => DistTagged {
                dist: "fixed",
                body,
            }
            .serialize(s),
            FileSizeFile::Dist(SizeDistFile::Exponential(body)) => DistTagged {
                dist: "exponential",
                body,
            }
            .serialize(s),
            FileSizeFile::Dist(SizeDistFile::Pareto(body)) => DistTagged {
                dist: "pareto",
                body,
            }
            .serialize(s),
        }
    }
}

impl Serialize for SizeDistFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        FileSizeFile::Dist(self.clone()).serialize(s)
    }
}

const DISTS: &[&str] = &["fixed", "exponential", "pareto"];

/// Reads a string as a size and a table by its `dist` tag (see `crate::de::TABLE_ENUMS`).
impl<'de> Deserialize<'de> for FileSizeFile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_enum("FileSizeFile", DISTS, FileSizeVisitor)
    }
}

struct FileSizeVisitor;

impl<'de> Visitor<'de> for FileSizeVisitor {
    type Value = FileSizeFile;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "a size like '100KB' or a table { dist = \"fixed\" | \"exponential\" | \"pareto\", … }",
        )
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<FileSizeFile, A::Error> {
        let (name, access): (String, _) = data.variant()?;
        let dist = match name.as_str() {
            "fixed" => SizeDistFile::Fixed(access.newtype_variant()?),
            "exponential" => SizeDistFile::Exponential(access.newtype_variant()?),
            "pareto" => SizeDistFile::Pareto(access.newtype_variant()?),
            // Not a distribution name: a plain size (a table with an unknown tag is rejected
            // by `unit_variant`).
            _ => {
                access.unit_variant()?;
                return Quantity::parse(&name)
                    .map(FileSizeFile::Size)
                    .map_err(de::Error::custom);
            }
        };
        Ok(FileSizeFile::Dist(dist))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<FileSizeFile, E> {
        Err(E::custom(size_missing_unit(&v.to_string())))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<FileSizeFile, E> {
        Err(E::custom(size_missing_unit(&v.to_string())))
    }
}

impl JsonSchema for FileSizeFile {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("FileSize")
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let size = generator.subschema_for::<Quantity<Size>>();
        let dist = generator.subschema_for::<SizeDistFile>();
        json_schema!({
            "description": "A fixed size, or a distribution of sizes.",
            "anyOf": [size, dist],
        })
    }
}

/// The application of a TCP flow.
#[derive(Clone, Debug, PartialEq)]
pub enum AppSpec {
    /// Keeps the send buffer full; `bytes` (then closes) or unbounded.
    Bulk { bytes: Option<u64> },
    /// Repeated transfers on new connections; think times (from the end of a transfer to the
    /// next request) are exponential with this mean.
    Ftp {
        file_size: FileSize,
        think_time_mean: SimDuration,
    },
    /// Repeated transfers on new connections; the times between the starts of successive
    /// requests are exponential with this mean (> 0). Transfers do not overlap: a request due
    /// while the previous transfer still runs starts when that transfer ends.
    FtpInterRequest {
        file_size: FileSize,
        inter_request_mean: SimDuration,
    },
    /// Exponential on and off periods with these means; sends at `rate_bps` while on.
    OnOff {
        on_mean: SimDuration,
        off_mean: SimDuration,
        rate_bps: u64,
    },
}

fn positive_size(key: &str, q: &Quantity<Size>) -> Result<u64, ScenarioError> {
    if q.value == 0 {
        return Err(ScenarioError::new(key, format!("'{q}' must be > 0")));
    }
    Ok(q.value)
}

impl AppFile {
    /// Converts the application at dotted key `key` (`flows.bulk.app`).
    pub(crate) fn convert(&self, key: &str) -> Result<AppSpec, ScenarioError> {
        let k = |field: &str| join_key(key, field);
        Ok(match self {
            AppFile::Bulk(a) => {
                let bytes = match &a.bytes {
                    Some(q) => Some(positive_size(&k("bytes"), q)?),
                    None => None,
                };
                AppSpec::Bulk { bytes }
            }
            AppFile::Ftp(a) => {
                let size_key = k("file_size");
                let sk = |field: &str| join_key(&size_key, field);
                let file_size = match &a.file_size {
                    FileSizeFile::Size(q) => FileSize::Fixed(positive_size(&size_key, q)?),
                    FileSizeFile::Dist(SizeDistFile::Fixed(d)) => {
                        FileSize::Fixed(positive_size(&sk("value"), &d.value)?)
                    }
                    FileSizeFile::Dist(SizeDistFile::Exponential(d)) => FileSize::Exponential {
                        mean: positive_size(&sk("mean"), &d.mean)?,
                    },
                    FileSizeFile::Dist(SizeDistFile::Pareto(d)) => {
                        let mean = positive_size(&sk("mean"), &d.mean)?;
                        // The mean of a Pareto variable is finite only for α > 1.
                        if !(d.shape > 1.0 && d.shape.is_finite()) {
                            return Err(ScenarioError::new(
                                sk("shape"),
                                format!("{} is out of range; expected a number > 1 (the mean is infinite for shape ≤ 1)", d.shape),
                            ));
                        }
                        FileSize::Pareto {
                            mean,
                            shape: d.shape,
                        }
                    }
                };
                match (&a.think_time, &a.inter_request) {
                    (Some(think), None) => AppSpec::Ftp {
                        file_size,
                        think_time_mean: think.value,
                    },
                    (None, Some(inter)) => {
                        let key = k("inter_request");
                        positive_time(&key, inter)?;
                        AppSpec::FtpInterRequest {
                            file_size,
                            inter_request_mean: inter.value,
                        }
                    }
                    (Some(_), Some(_)) => {
                        return Err(ScenarioError::new(
                            k("inter_request"),
                            "not allowed together with think_time; give exactly one of the two",
                        ))
                    }
                    (None, None) => {
                        return Err(ScenarioError::new(
                            k("think_time"),
                            "required key is missing (give think_time or inter_request)",
                        ))
                    }
                }
            }
            AppFile::OnOff(a) => {
                positive_time(&k("on"), &a.on)?;
                if a.rate.value == 0 {
                    return Err(ScenarioError::new(
                        k("rate"),
                        format!("'{}' must be > 0", a.rate),
                    ));
                }
                AppSpec::OnOff {
                    on_mean: a.on.value,
                    off_mean: a.off.value,
                    rate_bps: a.rate.value,
                }
            }
        })
    }
}
