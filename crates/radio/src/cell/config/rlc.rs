//! [`CellRlcConfig`]: the RLC of every UE's downlink bearer in the form a user states it — the
//! keys of a scenario file's `[cells.NAME.rlc]` — with its defaults and checks, and the one
//! conversion into the entity's configuration, [`RlcModeConfig`].
//!
//! One table serves both modes: `mode` picks AM or UM, and the keys of the other mode are kept
//! but not used (a UM bearer has no polls nor retransmissions), so that switching the mode of a
//! scenario is one key. With the `serde` feature the type (de)serialises in the file's form:
//! times as integer nanoseconds (`"x-unit" = "time"` in the JSON Schema), the buffer as
//! `{"packets": n}` or `{"bytes": n}` (`"queue-limit"`), pollByte as bytes or `"infinity"`
//! (`"size-or-infinity"`), so that a file layer reads and writes them with units; the doc
//! comments of the fields are the schema's descriptions.

use celltcp_engine::SimDuration;
use celltcp_net::queue::QueueLimit;

use super::keys::CellKeyError;
use super::{default_rlc_am, Rat, RlcModeConfig};
use crate::nr::rlc::{AmSnLength, NrRlcAmConfig, NrRlcUmConfig, UmSnLength, MAX_RETX_THRESHOLDS};
use crate::rlc::{BufferLimit, MaxRetxAction, RlcAmConfig, RlcUmConfig};

/// The largest maxRetxThreshold of TS 36.331 RLC-Config (t1 … t32).
pub const MAX_RETX_THRESHOLD: u32 = 32;

/// RLC mode of the UEs' downlink bearer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "snake_case")
)]
pub enum RlcMode {
    /// Acknowledged mode: ARQ with status reports (TS 36.322 §5.1.3).
    #[default]
    Am,
    /// Unacknowledged mode: no retransmission at RLC.
    Um,
}

/// pollPDU (TS 36.322 §5.2.2.1; RLC-Config of TS 36.331 §6.3.2): a poll every this many AMD
/// PDUs, or never by count. A file writes a number or `"infinity"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PollPdu {
    /// A number of PDUs, ≥ 1 (36.331 can signal 4, 8, 16, 32, 64, 128 and 256).
    Pdus(u32),
    /// "infinity" (pInfinity, the 36.331 default).
    Infinity,
}

impl PollPdu {
    /// The entity's form: `None` = infinity (36.322 §7.4).
    pub fn pdus(self) -> Option<u32> {
        match self {
            PollPdu::Pdus(n) => Some(n),
            PollPdu::Infinity => None,
        }
    }
}

/// `[cells.NAME.rlc]`: the RLC of every UE's downlink bearer, acknowledged or unacknowledged:
/// TS 36.322 in an LTE cell, TS 38.322 in an NR cell (`rat = "nr"`), the same keys for what
/// the two share and `t_reordering` (LTE) or `t_reassembly` (NR) for the receiving timer.
///
/// Its defaults are the cell's ([`default_rlc_am`]: 36.331 §9.2.1.1 with pollPDU p32, pollByte
/// kB25 and a 1 MB buffer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(default, deny_unknown_fields),
    schemars(
        description = "`[cells.NAME.rlc]`: the RLC of every UE's downlink bearer (TS 36.322)."
    )
)]
pub struct CellRlcConfig {
    /// "am" or "um".
    pub mode: RlcMode,
    /// The eNB's per-UE queue: packets ("500p") or bytes ("1MB").
    #[cfg_attr(
        feature = "serde",
        schemars(
            schema_with = "forms::queue_limit",
            extend("x-unit" = "queue-limit")
        )
    )]
    pub buffer: QueueLimit,
    /// maxRetxThreshold (AM), 1 to 32.
    pub max_retx: u32,
    /// "rlf" (LTE) or "discard" (MaxDAT-like).
    pub on_max_retx: MaxRetxAction,
    /// t-PollRetransmit (a time).
    #[cfg_attr(
        feature = "serde",
        serde(with = "celltcp_engine::serde_nanos"),
        schemars(with = "u64", extend("x-unit" = "time"))
    )]
    pub t_poll_retransmit: SimDuration,
    /// t-Reordering of an LTE cell (a time).
    #[cfg_attr(
        feature = "serde",
        serde(with = "celltcp_engine::serde_nanos"),
        schemars(with = "u64", extend("x-unit" = "time"))
    )]
    pub t_reordering: SimDuration,
    /// t-Reassembly of an NR cell (a time).
    // TS 38.322 §7.3; NR's receiving side delivers each SDU once complete and the timer only
    // drives status reporting (AM) or gives up a partly received SDU (UM).
    #[cfg_attr(
        feature = "serde",
        serde(with = "celltcp_engine::serde_nanos"),
        schemars(with = "u64", extend("x-unit" = "time"))
    )]
    pub t_reassembly: SimDuration,
    /// SN length, bits: LTE AM 10, LTE UM 5 or 10; NR AM 12 or 18, NR UM 6 or 12. Absent:
    /// 10 in LTE, 18 (AM) or 12 (UM) in NR.
    // 36.331/38.331 SN-FieldLength. NR AM defaults to 18 bits because a 12-bit SN's window of
    // 2048 SDUs (38.322 §7.2) stalls an eMBB bearer: 2048 × 1500 bytes per round trip.
    // Left out of an echo when absent: the default is the RAT's, which the table does not know.
    #[cfg_attr(
        feature = "serde",
        serde(skip_serializing_if = "Option::is_none"),
        schemars(extend("enum" = [5, 6, 10, 12, 18]))
    )]
    pub sn_bits: Option<u8>,
    /// t-StatusProhibit (a time).
    #[cfg_attr(
        feature = "serde",
        serde(with = "celltcp_engine::serde_nanos"),
        schemars(with = "u64", extend("x-unit" = "time"))
    )]
    pub t_status_prohibit: SimDuration,
    /// pollPDU (AM): a number of PDUs ≥ 1, or "infinity".
    pub poll_pdu: PollPdu,
    /// pollByte (AM): a size > 0, or "infinity".
    // `None` = infinity (kBinfinity); in bytes, as 36.331's kB25 … kB3000 (kB = 1000 bytes).
    #[cfg_attr(
        feature = "serde",
        serde(with = "bytes_or_infinity"),
        schemars(
            schema_with = "forms::bytes_or_infinity",
            extend("x-unit" = "size-or-infinity")
        )
    )]
    pub poll_byte: Option<u64>,
}

impl Default for CellRlcConfig {
    /// [`default_rlc_am`] in AM.
    fn default() -> Self {
        let am = default_rlc_am();
        CellRlcConfig {
            mode: RlcMode::Am,
            buffer: match am.tx_buffer {
                BufferLimit::Sdus(n) => QueueLimit::Packets(n as u32),
                BufferLimit::Bytes(b) => QueueLimit::Bytes(b),
                BufferLimit::Unlimited => unreachable!("the cell's default RLC buffer is limited"),
            },
            max_retx: am.max_retx_threshold.unwrap_or(u32::MAX),
            on_max_retx: am.on_max_retx,
            t_poll_retransmit: am.t_poll_retransmit,
            t_reordering: am.t_reordering,
            t_reassembly: NrRlcAmConfig::default().t_reassembly,
            sn_bits: None,
            t_status_prohibit: am.t_status_prohibit,
            poll_pdu: am.poll_pdu.map_or(PollPdu::Infinity, PollPdu::Pdus),
            poll_byte: am.poll_byte,
        }
    }
}

impl CellRlcConfig {
    /// Checks every key; a pollByte is shown in bytes (`0B`).
    pub fn validate(&self) -> Result<(), CellKeyError> {
        self.validate_showing(&|key| match key {
            "poll_byte" => format!("{}B", self.poll_byte.unwrap_or_default()),
            _ => String::new(),
        })
    }

    /// [`CellRlcConfig::validate`], with the values of the keys that carry a unit shown by
    /// `shown(key)`: a file layer passes the text as written (`'0KB' must be > 0`).
    pub fn validate_showing(
        &self,
        shown: &dyn Fn(&'static str) -> String,
    ) -> Result<(), CellKeyError> {
        if !(1..=MAX_RETX_THRESHOLD).contains(&self.max_retx) {
            return Err(CellKeyError {
                key: "max_retx",
                message: format!(
                    "{} is out of range; expected 1 to {MAX_RETX_THRESHOLD}",
                    self.max_retx
                ),
            });
        }
        // Checked in either mode, as pollByte is checked wherever it is written.
        if self.poll_byte == Some(0) {
            return Err(CellKeyError {
                key: "poll_byte",
                message: format!(
                    "'{}' must be > 0; use a size such as '25KB', or \"infinity\"",
                    shown("poll_byte")
                ),
            });
        }
        Ok(())
    }
}

impl CellRlcConfig {
    /// The entity's configuration of a checked table for a cell of `rat`.
    ///
    /// LTE: AM with the cell's other defaults ([`default_rlc_am`]: flexible PDUs), or UM
    /// (TS 36.331 §6.3.2 SN-FieldLength size5 or size10). NR: the AM or UM entity of TS 38.322,
    /// whose maxRetxThreshold is one of 38.331's t1 … t32 and which has no discard at the
    /// threshold (there is no MRW in NR to tell the receiver).
    pub fn entity_config(&self, rat: Rat) -> Result<RlcModeConfig, CellKeyError> {
        self.validate()?;
        let tx_buffer = match self.buffer {
            QueueLimit::Packets(n) => BufferLimit::Sdus(n as usize),
            QueueLimit::Bytes(b) => BufferLimit::Bytes(b),
        };
        let sn_error = |expected: &str| CellKeyError {
            key: "sn_bits",
            message: format!(
                "{} is not an SN length of this RLC; expected {expected}",
                self.sn_bits.unwrap_or_default()
            ),
        };
        Ok(match (rat, self.mode) {
            (Rat::Lte, RlcMode::Am) => {
                if !matches!(self.sn_bits, None | Some(10)) {
                    return Err(sn_error("10 (LTE AM)"));
                }
                RlcModeConfig::Am(RlcAmConfig {
                    max_retx_threshold: Some(self.max_retx),
                    on_max_retx: self.on_max_retx,
                    t_poll_retransmit: self.t_poll_retransmit,
                    t_reordering: self.t_reordering,
                    t_status_prohibit: self.t_status_prohibit,
                    poll_pdu: self.poll_pdu.pdus(),
                    poll_byte: self.poll_byte,
                    tx_buffer,
                    ..default_rlc_am()
                })
            }
            (Rat::Lte, RlcMode::Um) => {
                let bits = match self.sn_bits {
                    None => 10,
                    Some(b @ (5 | 10)) => b,
                    Some(_) => return Err(sn_error("5 or 10 (LTE UM)")),
                };
                RlcModeConfig::Um(RlcUmConfig {
                    t_reordering: self.t_reordering,
                    tx_buffer,
                    ..RlcUmConfig::lte(bits)
                })
            }
            (Rat::Nr, RlcMode::Am) => {
                let sn_length = match self.sn_bits {
                    None | Some(18) => AmSnLength::Bits18,
                    Some(12) => AmSnLength::Bits12,
                    Some(_) => return Err(sn_error("12 or 18 (NR AM)")),
                };
                if !MAX_RETX_THRESHOLDS.contains(&self.max_retx) {
                    return Err(CellKeyError {
                        key: "max_retx",
                        message: format!(
                            "{} is not an NR maxRetxThreshold; expected one of 1, 2, 3, 4, 6, \
                             8, 16, 32 (TS 38.331 RLC-Config)",
                            self.max_retx
                        ),
                    });
                }
                if self.on_max_retx == MaxRetxAction::Discard {
                    return Err(CellKeyError {
                        key: "on_max_retx",
                        message: "\"discard\" is not available in an NR cell; expected \"rlf\" \
                                  (TS 38.322 §5.3.2 indicates the threshold to RRC)"
                            .into(),
                    });
                }
                RlcModeConfig::NrAm(NrRlcAmConfig {
                    sn_length,
                    t_poll_retransmit: self.t_poll_retransmit,
                    poll_pdu: self.poll_pdu.pdus(),
                    poll_byte: self.poll_byte,
                    max_retx_threshold: Some(self.max_retx),
                    t_reassembly: self.t_reassembly,
                    t_status_prohibit: self.t_status_prohibit,
                    tx_buffer,
                })
            }
            (Rat::Nr, RlcMode::Um) => {
                let sn_length = match self.sn_bits {
                    None | Some(12) => UmSnLength::Bits12,
                    Some(6) => UmSnLength::Bits6,
                    Some(_) => return Err(sn_error("6 or 12 (NR UM)")),
                };
                RlcModeConfig::NrUm(NrRlcUmConfig {
                    sn_length,
                    t_reassembly: self.t_reassembly,
                    tx_buffer,
                })
            }
        })
    }
}

#[cfg(feature = "serde")]
const INFINITY: &str = "infinity";

#[cfg(feature = "serde")]
mod poll_pdu_serde {
    use std::borrow::Cow;
    use std::fmt;

    use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
    use serde::de::{self, Deserializer, Visitor};
    use serde::{Deserialize, Serialize, Serializer};

    use super::{PollPdu, INFINITY};

    impl Serialize for PollPdu {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            match self {
                PollPdu::Pdus(n) => s.serialize_u32(*n),
                PollPdu::Infinity => s.serialize_str(INFINITY),
            }
        }
    }

    impl<'de> Deserialize<'de> for PollPdu {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_any(PollPduVisitor)
        }
    }

    struct PollPduVisitor;

    const EXPECTED: &str = "a number of PDUs ≥ 1 (e.g. 32), or \"infinity\"";

    impl Visitor<'_> for PollPduVisitor {
        type Value = PollPdu;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(EXPECTED)
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<PollPdu, E> {
            match u32::try_from(v) {
                Ok(n) if n >= 1 => Ok(PollPdu::Pdus(n)),
                _ => Err(E::custom(format!(
                    "{v} is not a pollPDU; expected {EXPECTED}"
                ))),
            }
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<PollPdu, E> {
            match u32::try_from(v) {
                Ok(n) if n >= 1 => Ok(PollPdu::Pdus(n)),
                _ => Err(E::custom(format!(
                    "{v} is not a pollPDU; expected {EXPECTED}"
                ))),
            }
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<PollPdu, E> {
            if v == INFINITY {
                Ok(PollPdu::Infinity)
            } else {
                Err(E::custom(format!(
                    "'{v}' is not a pollPDU; expected {EXPECTED}"
                )))
            }
        }
    }

    impl JsonSchema for PollPdu {
        fn schema_name() -> Cow<'static, str> {
            Cow::Borrowed("PollPdu")
        }

        fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
            json_schema!({
                "description": "pollPDU: a number of AMD PDUs ≥ 1 between polls, or \"infinity\".",
                "anyOf": [{ "type": "integer", "minimum": 1 }, { "const": INFINITY }],
            })
        }
    }
}

/// The schemas of the serialised forms of the keys with a unit; a file layer shows the unit's
/// schema instead.
#[cfg(feature = "serde")]
mod forms {
    use schemars::{json_schema, Schema, SchemaGenerator};

    use super::INFINITY;

    /// [`QueueLimit`](celltcp_net::queue::QueueLimit): `{"packets": n}` or `{"bytes": n}`.
    pub(super) fn queue_limit(_generator: &mut SchemaGenerator) -> Schema {
        let count = json_schema!({ "type": "integer", "minimum": 0 });
        json_schema!({
            "oneOf": [
                { "type": "object", "properties": { "packets": count }, "required": ["packets"] },
                { "type": "object", "properties": { "bytes": count }, "required": ["bytes"] },
            ],
        })
    }

    /// Bytes, or `"infinity"`.
    pub(super) fn bytes_or_infinity(_generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [{ "type": "integer", "minimum": 0 }, { "const": INFINITY }],
        })
    }
}

/// pollByte in the serialised form: integer bytes, or `"infinity"` for `None`.
#[cfg(feature = "serde")]
mod bytes_or_infinity {
    use std::fmt;

    use serde::de::{self, Deserializer, Visitor};
    use serde::Serializer;

    use super::INFINITY;

    pub(super) fn serialize<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(n) => s.serialize_u64(*n),
            None => s.serialize_str(INFINITY),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        d.deserialize_any(BytesOrInfinity)
    }

    struct BytesOrInfinity;

    impl Visitor<'_> for BytesOrInfinity {
        type Value = Option<u64>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a number of bytes, or \"infinity\"")
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Option<u64>, E> {
            Ok(Some(v))
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Option<u64>, E> {
            u64::try_from(v)
                .map(Some)
                .map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<u64>, E> {
            if v == INFINITY {
                Ok(None)
            } else {
                Err(E::invalid_value(de::Unexpected::Str(v), &self))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The defaults are the cell's own: converting them gives [`default_rlc_am`] exactly.
    #[test]
    fn the_default_table_is_the_cells_default_am() {
        let built = CellRlcConfig::default().entity_config(Rat::Lte).unwrap();
        assert_eq!(built, RlcModeConfig::Am(default_rlc_am()));
    }

    /// UM keeps the buffer and t-Reordering and leaves the AM keys unused.
    #[test]
    fn um_takes_the_buffer_and_t_reordering() {
        let c = CellRlcConfig {
            mode: RlcMode::Um,
            buffer: QueueLimit::Packets(200),
            t_reordering: SimDuration::from_ms(20),
            poll_pdu: PollPdu::Infinity,
            ..CellRlcConfig::default()
        };
        let RlcModeConfig::Um(um) = c.entity_config(Rat::Lte).unwrap() else {
            panic!("a UM table builds an UM entity");
        };
        assert_eq!(um.tx_buffer, BufferLimit::Sdus(200));
        assert_eq!(um.t_reordering, SimDuration::from_ms(20));
        assert_eq!(um.sn_bits, 10);
    }

    /// maxRetxThreshold is 1 to 32 (36.331 t1 … t32) and a pollByte of 0 bytes is refused, in
    /// either mode.
    #[test]
    fn max_retx_and_poll_byte_are_checked() {
        for (max_retx, ok) in [(0, false), (1, true), (32, true), (33, false)] {
            let c = CellRlcConfig {
                max_retx,
                ..CellRlcConfig::default()
            };
            assert_eq!(c.validate().is_ok(), ok, "max_retx {max_retx}");
        }
        let c = CellRlcConfig {
            mode: RlcMode::Um,
            poll_byte: Some(0),
            ..CellRlcConfig::default()
        };
        let e = c.entity_config(Rat::Lte).unwrap_err();
        assert_eq!(
            e.to_string(),
            "poll_byte: '0B' must be > 0; use a size such as '25KB', or \"infinity\""
        );
    }
}
