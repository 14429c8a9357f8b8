//! [`UplinkConfig`]: the abstracted uplink of every UE in the form a user states it — the keys
//! of a scenario file's `[cells.NAME.uplink]` and its `scheduling` table — with its defaults
//! and checks: those that need nothing but the table ([`UplinkConfig::check`]) and those that
//! need the cell's slot and radio access technology ([`UplinkConfig::check_slots`]: the
//! periodicities of TS 36.213 / TS 38.331, K2).
//!
//! With the `serde` feature the types (de)serialise in the file's form: the rate as integer
//! bits per second (`"x-unit" = "rate"` in the JSON Schema), times as integer nanoseconds
//! (`"time"`), grant sizes as integer bytes (`"size"`), so that a file layer reads and writes
//! them with units; `scheduling` is a table tagged by `kind`, written out only when it is not
//! the default "fixed". The doc comments of the fields are the schema's descriptions.

use celltcp_engine::SimDuration;

use super::keys::CellKeyError;

/// The radio access technology of a cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "lowercase")
)]
pub enum Rat {
    /// An LTE eNB (TS 36.300): the keys of `[cells.NAME]`.
    #[default]
    Lte,
    /// An NR gNB (TS 38.300): the keys of `[cells.NAME.nr]` for its air interface.
    Nr,
}

impl Rat {
    /// Whether this is the default, LTE (which an echo leaves out).
    pub fn is_lte(&self) -> bool {
        *self == Rat::Lte
    }
}

/// `[cells.NAME.uplink]`: the abstracted uplink of every UE, its items served at `rate` in the
/// grants `scheduling` gives, with independent losses (see `docs/lte-model.md`, "Uplink").
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(default, deny_unknown_fields),
    schemars(description = "`[cells.NAME.uplink]`: the abstracted uplink of each UE.")
)]
pub struct UplinkConfig {
    /// Service rate of one UE's uplink (a rate, > 0): its share of the uplink carrier.
    // Bits per second: the share of the uplink carrier the UE's grants give it.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "rate"),
        schemars(extend("x-unit" = "rate"))
    )]
    pub rate_bps: u64,
    /// With scheduling kind "fixed": scheduling request to transmission (a time).
    // The delay from the arrival of an item in the UE's uplink buffer to the earliest start of
    // its transmission: scheduling request, grant and PUSCH timing.
    #[cfg_attr(
        feature = "serde",
        serde(with = "celltcp_engine::serde_nanos"),
        schemars(with = "u64", extend("x-unit" = "time"))
    )]
    pub grant_delay: SimDuration,
    /// Loss probability per uplink packet, 0 to 1.
    // The residual error after uplink HARQ.
    pub loss: f64,
    /// How the UE obtains its grants: "fixed" (the default: every item waits grant_delay),
    /// "sr_bsr" (scheduling request and buffer status report, TS 36.321 / TS 38.321 §5.4.4–5.4.5)
    /// or "configured" (configured grants, TS 38.321 §5.8.2; LTE's uplink SPS).
    #[cfg_attr(
        feature = "serde",
        serde(skip_serializing_if = "UplinkScheduling::is_fixed")
    )]
    pub scheduling: UplinkScheduling,
}

impl Default for UplinkConfig {
    /// 5 Mbit/s, 8 ms (scheduling request in subframe n, grant in n + 4, PUSCH in n + 8 as in
    /// TS 36.213 §8.0 for FDD), no loss, the fixed delay.
    fn default() -> Self {
        UplinkConfig {
            rate_bps: 5_000_000,
            grant_delay: SimDuration::from_ms(8),
            loss: 0.0,
            scheduling: UplinkScheduling::Fixed,
        }
    }
}

/// How a UE obtains its uplink grants (`[cells.NAME.uplink.scheduling]`, a table tagged by
/// `kind`).
///
/// In every mode the UE is granted at most `rate` × one slot per slot (a TTI of 1 ms in LTE,
/// the numerology's slot in NR), and an item reaches the base station at the end of the slot
/// whose PUSCH carries its last byte.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "snake_case"),
    schemars(tag = "kind")
)]
pub enum UplinkScheduling {
    /// Every item waits uplink.grant_delay, then a FIFO at uplink.rate.
    // The abstraction of earlier versions, unquantised.
    #[default]
    Fixed,
    /// Grants on request: SR occasions, the grant, its PUSCH, then grants by the BSR.
    // Dynamic scheduling driven by the scheduling request and the buffer status report (TS
    // 36.321 §5.4.4–5.4.5, TS 38.321 §5.4.4–5.4.5): data that find the UE without a grant wait
    // for its next SR occasion; the grant comes `sr_to_grant` later and its PUSCH
    // `grant_to_pusch` after that, carrying up to `first_grant_bytes` and a BSR; the rest is
    // granted slot by slot from `sr_to_grant + grant_to_pusch` after that PUSCH. Data arriving
    // while the UE still transmits are reported in its next PUSCH's BSR.
    SrBsr(SrBsrConfig),
    /// A grant every period without requests.
    // Configured grants (TS 38.321 §5.8.2 type 1; LTE's uplink semi-persistent scheduling, TS
    // 36.321 §5.10.2): a grant of `grant_bytes` every `period`; data fill the occasions in
    // order.
    Configured(ConfiguredGrantConfig),
}

impl UplinkScheduling {
    /// Whether this is the default, "fixed" (which the echo leaves out).
    pub fn is_fixed(&self) -> bool {
        *self == UplinkScheduling::Fixed
    }
}

/// The timing of [`UplinkScheduling::SrBsr`] (scheduling kind "sr_bsr").
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(default, deny_unknown_fields)
)]
pub struct SrBsrConfig {
    /// SR periodicity (LTE: 1, 2, 5, 10, 20, 40 or 80 ms, TS 36.213 Table 10.1.5-1; NR: 1, 2,
    /// 4, 5, 8, 10, 16, 20, 40, 80, 160, 320 or 640 slots, TS 38.331
    /// SchedulingRequestResourceConfig).
    #[cfg_attr(
        feature = "serde",
        serde(with = "celltcp_engine::serde_nanos"),
        schemars(with = "u64", extend("x-unit" = "time"))
    )]
    pub sr_period: SimDuration,
    /// From the SR, or the PUSCH carrying a BSR, to the grant (a whole number of slots; the
    /// base station's processing, left to the implementation).
    #[cfg_attr(
        feature = "serde",
        serde(with = "celltcp_engine::serde_nanos"),
        schemars(with = "u64", extend("x-unit" = "time"))
    )]
    pub sr_to_grant: SimDuration,
    /// From the grant to its PUSCH (a whole number of slots, at most 32: 4 subframes in LTE
    /// FDD, TS 36.213 §8.0; K2 in NR, TS 38.214 §6.1.2.1).
    #[cfg_attr(
        feature = "serde",
        serde(with = "celltcp_engine::serde_nanos"),
        schemars(with = "u64", extend("x-unit" = "time"))
    )]
    pub grant_to_pusch: SimDuration,
    /// Size of the first grant after an SR (a size > 0); absent: one slot's share of
    /// uplink.rate.
    // Bytes, before the base station knows the buffer.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "first_grant", skip_serializing_if = "Option::is_none"),
        schemars(with = "u64", extend("x-unit" = "size"))
    )]
    pub first_grant_bytes: Option<u64>,
}

impl Default for SrBsrConfig {
    /// SR every 10 ms; grant 4 ms after the SR and PUSCH 4 ms after the grant (TS 36.213 §8.0
    /// FDD), so that an SR in subframe n is served in n + 8 as the fixed delay's default says.
    fn default() -> Self {
        SrBsrConfig {
            sr_period: SimDuration::from_ms(10),
            sr_to_grant: SimDuration::from_ms(4),
            grant_to_pusch: SimDuration::from_ms(4),
            first_grant_bytes: None,
        }
    }
}

/// The occasions of [`UplinkScheduling::Configured`] (scheduling kind "configured").
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(default, deny_unknown_fields)
)]
pub struct ConfiguredGrantConfig {
    /// Periodicity of the occasions (NR: 1, 2, 4, 5, 8, 10, 16, 20, 32, 40, 64, 80, 128, 160,
    /// 320 or 640 slots, TS 38.331 ConfiguredGrantConfig; LTE: 1 to 5, 10, 20, 32, 40, 64, 80,
    /// 128, 160, 320 or 640 subframes, TS 36.331 SPS-ConfigUL).
    #[cfg_attr(
        feature = "serde",
        serde(with = "celltcp_engine::serde_nanos"),
        schemars(with = "u64", extend("x-unit" = "time"))
    )]
    pub period: SimDuration,
    /// Bytes of each occasion (a size > 0); absent: the period's share of uplink.rate.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "grant", skip_serializing_if = "Option::is_none"),
        schemars(with = "u64", extend("x-unit" = "size"))
    )]
    pub grant_bytes: Option<u64>,
}

impl Default for ConfiguredGrantConfig {
    /// An occasion every slot (1 ms) of the period's share.
    fn default() -> Self {
        ConfiguredGrantConfig {
            period: SimDuration::from_ms(1),
            grant_bytes: None,
        }
    }
}

/// SR periodicities: NR's in slots (TS 38.331 SchedulingRequestResourceConfig, the slot-based
/// ones) and LTE's in subframes (TS 36.213 Table 10.1.5-1).
const NR_SR_PERIOD_SLOTS: [u64; 13] = [1, 2, 4, 5, 8, 10, 16, 20, 40, 80, 160, 320, 640];
const LTE_SR_PERIOD_MS: [u64; 7] = [1, 2, 5, 10, 20, 40, 80];
/// Configured-grant periodicities: NR's in slots (TS 38.331 ConfiguredGrantConfig, n × 14
/// symbols), LTE's uplink SPS intervals in subframes (TS 36.331 SPS-ConfigUL, with Rel-14's
/// sf1–sf5).
const NR_CG_PERIOD_SLOTS: [u64; 16] = [
    1, 2, 4, 5, 8, 10, 16, 20, 32, 40, 64, 80, 128, 160, 320, 640,
];
const LTE_CG_PERIOD_MS: [u64; 15] = [1, 2, 3, 4, 5, 10, 20, 32, 40, 64, 80, 128, 160, 320, 640];
/// K2's largest value, slots (TS 38.331 PUSCH-TimeDomainResourceAllocation k2: 0..32).
pub const MAX_K2_SLOTS: u64 = 32;
/// The largest grant, bytes: what the transmission path's grant (`u32`) holds.
const MAX_GRANT_BYTES: u64 = u32::MAX as u64;

impl UplinkConfig {
    /// Checks the keys that need no cell: a rate > 0, a loss probability, grant sizes > 0.
    /// Keys are as in the table (`scheduling.grant`); `shown(key)` is a key's value in
    /// messages, as written (`'0B'`).
    pub fn check(&self, shown: &dyn Fn(&'static str) -> String) -> Result<(), CellKeyError> {
        if self.rate_bps == 0 {
            return Err(CellKeyError {
                key: "rate",
                message: "must be a positive rate, e.g. '5Mbps'".into(),
            });
        }
        let loss = self.loss;
        if !(loss.is_finite() && (0.0..=1.0).contains(&loss)) {
            return Err(CellKeyError {
                key: "loss",
                message: format!("{loss} is out of range; expected a probability in [0, 1]"),
            });
        }
        let size = |key: &'static str, bytes: Option<u64>| match bytes {
            Some(b) if b == 0 || b > MAX_GRANT_BYTES => Err(CellKeyError {
                key,
                message: format!(
                    "'{}' must be a size from 1B to 4GB, e.g. '200B'",
                    shown(key)
                ),
            }),
            _ => Ok(()),
        };
        match &self.scheduling {
            UplinkScheduling::Fixed => Ok(()),
            UplinkScheduling::SrBsr(sr) => size("scheduling.first_grant", sr.first_grant_bytes),
            UplinkScheduling::Configured(cg) => size("scheduling.grant", cg.grant_bytes),
        }
    }

    /// Checks the scheduling's times against a cell's slot of `slot_ns` (1 ms for LTE, whose
    /// tables are in subframes; the numerology's for NR) and the tables of its `rat`: every
    /// time a whole number of slots, the SR and configured-grant periodicities of TS 36.213 /
    /// TS 36.331 (LTE) or TS 38.331 (NR), K2 ≤ 32.
    pub fn check_slots(
        &self,
        slot_ns: u64,
        rat: Rat,
        shown: &dyn Fn(&'static str) -> String,
    ) -> Result<(), CellKeyError> {
        let slots = |key: &'static str, d: SimDuration| {
            if d.as_ns().is_multiple_of(slot_ns) {
                return Ok(d.as_ns() / slot_ns);
            }
            Err(CellKeyError {
                key,
                message: format!(
                    "'{}' is not a whole number of the cell's {} µs slots",
                    shown(key),
                    slot_ns / 1_000
                ),
            })
        };
        let one_of = |key: &'static str, d: SimDuration, lte: &[u64], nr: &[u64]| {
            let (allowed, unit) = match rat {
                Rat::Lte => (lte, "ms"),
                Rat::Nr => (nr, "slots"),
            };
            if allowed.contains(&slots(key, d)?) {
                return Ok(());
            }
            let list: Vec<String> = allowed.iter().map(u64::to_string).collect();
            Err(CellKeyError {
                key,
                message: format!(
                    "'{}' is not allowed; expected {} {unit}",
                    shown(key),
                    list.join(", ")
                ),
            })
        };
        match &self.scheduling {
            UplinkScheduling::Fixed => Ok(()),
            UplinkScheduling::SrBsr(sr) => {
                one_of(
                    "scheduling.sr_period",
                    sr.sr_period,
                    &LTE_SR_PERIOD_MS,
                    &NR_SR_PERIOD_SLOTS,
                )?;
                slots("scheduling.sr_to_grant", sr.sr_to_grant)?;
                let key = "scheduling.grant_to_pusch";
                if slots(key, sr.grant_to_pusch)? > MAX_K2_SLOTS {
                    return Err(CellKeyError {
                        key,
                        message: format!("'{}' is more than {MAX_K2_SLOTS} slots", shown(key)),
                    });
                }
                Ok(())
            }
            UplinkScheduling::Configured(cg) => one_of(
                "scheduling.period",
                cg.period,
                &LTE_CG_PERIOD_MS,
                &NR_CG_PERIOD_SLOTS,
            ),
        }
    }
}

/// The file's form of the scheduling table: `kind` and the variant's keys in one table
/// (serde's external tagging is the form a file layer's deserializer maps such a table onto).
#[cfg(feature = "serde")]
impl serde::Serialize for UplinkScheduling {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(serde::Serialize)]
        struct Tagged<'a, B> {
            kind: &'static str,
            #[serde(flatten)]
            body: &'a B,
        }
        match self {
            UplinkScheduling::Fixed => {
                use serde::ser::SerializeMap;
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry("kind", "fixed")?;
                map.end()
            }
            UplinkScheduling::SrBsr(body) => Tagged {
                kind: "sr_bsr",
                body,
            }
            .serialize(s),
            UplinkScheduling::Configured(body) => Tagged {
                kind: "configured",
                body,
            }
            .serialize(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// A value shown as its key, so that a message says which key it shows.
    fn by_key(key: &'static str) -> String {
        key.to_owned()
    }

    fn sr_bsr(sr: SrBsrConfig) -> UplinkConfig {
        UplinkConfig {
            scheduling: UplinkScheduling::SrBsr(sr),
            ..UplinkConfig::default()
        }
    }

    fn configured(cg: ConfiguredGrantConfig) -> UplinkConfig {
        UplinkConfig {
            scheduling: UplinkScheduling::Configured(cg),
            ..UplinkConfig::default()
        }
    }

    /// The defaults of every kind pass both checks in an LTE cell and in an NR cell of 30 kHz
    /// (0.5 ms slots): 10 ms is 20 NR slots, 4 ms is 8, 1 ms is 2, all in the tables.
    #[test]
    fn the_defaults_of_every_kind_pass() {
        for ul in [
            UplinkConfig::default(),
            sr_bsr(SrBsrConfig::default()),
            configured(ConfiguredGrantConfig::default()),
        ] {
            assert_eq!(ul.check(&by_key), Ok(()));
            assert_eq!(ul.check_slots(MS, Rat::Lte, &by_key), Ok(()));
            assert_eq!(ul.check_slots(MS / 2, Rat::Nr, &by_key), Ok(()));
        }
    }

    #[test]
    fn a_zero_rate_a_loss_out_of_range_and_empty_grants_are_refused() {
        let zero = UplinkConfig {
            rate_bps: 0,
            ..UplinkConfig::default()
        };
        assert_eq!(zero.check(&by_key).unwrap_err().key, "rate");
        for loss in [-0.1, 1.5, f64::NAN] {
            let e = UplinkConfig {
                loss,
                ..UplinkConfig::default()
            }
            .check(&by_key)
            .unwrap_err();
            assert_eq!(e.key, "loss");
            assert!(
                e.message.ends_with("expected a probability in [0, 1]"),
                "{e:?}"
            );
        }
        let e = sr_bsr(SrBsrConfig {
            first_grant_bytes: Some(0),
            ..SrBsrConfig::default()
        })
        .check(&by_key)
        .unwrap_err();
        assert_eq!(
            e.message,
            "'scheduling.first_grant' must be a size from 1B to 4GB, e.g. '200B'"
        );
        for bytes in [0, MAX_GRANT_BYTES + 1] {
            let e = configured(ConfiguredGrantConfig {
                grant_bytes: Some(bytes),
                ..ConfiguredGrantConfig::default()
            })
            .check(&by_key)
            .unwrap_err();
            assert_eq!(e.key, "scheduling.grant");
        }
        let largest = configured(ConfiguredGrantConfig {
            grant_bytes: Some(MAX_GRANT_BYTES),
            ..ConfiguredGrantConfig::default()
        });
        assert_eq!(largest.check(&by_key), Ok(()));
    }

    /// 3 ms is not an LTE SR periodicity (Table 10.1.5-1 skips it), and 3 slots not an NR
    /// one; 6 ms is not an SPS interval, while 3 ms is (Rel-14 sf3).
    #[test]
    fn periodicities_follow_the_tables_of_the_rat() {
        let period = |ms: u64| {
            sr_bsr(SrBsrConfig {
                sr_period: SimDuration::from_ms(ms),
                ..SrBsrConfig::default()
            })
        };
        let e = period(3).check_slots(MS, Rat::Lte, &by_key).unwrap_err();
        assert_eq!(e.key, "scheduling.sr_period");
        assert_eq!(
            e.message,
            "'scheduling.sr_period' is not allowed; expected 1, 2, 5, 10, 20, 40, 80 ms"
        );
        let e = period(3).check_slots(MS, Rat::Nr, &by_key).unwrap_err();
        assert!(e.message.ends_with("320, 640 slots"), "{e:?}");
        // 4 ms is 4 LTE subframes (not allowed) but 8 NR slots of 0.5 ms (allowed).
        assert!(period(4).check_slots(MS, Rat::Lte, &by_key).is_err());
        assert_eq!(period(4).check_slots(MS / 2, Rat::Nr, &by_key), Ok(()));
        let cg = |ms: u64| {
            configured(ConfiguredGrantConfig {
                period: SimDuration::from_ms(ms),
                ..ConfiguredGrantConfig::default()
            })
        };
        assert_eq!(cg(3).check_slots(MS, Rat::Lte, &by_key), Ok(()));
        let e = cg(6).check_slots(MS, Rat::Lte, &by_key).unwrap_err();
        assert_eq!(e.key, "scheduling.period");
    }

    #[test]
    fn times_are_whole_slots_and_k2_at_most_32() {
        let e = sr_bsr(SrBsrConfig {
            sr_to_grant: SimDuration::from_us(1_500),
            ..SrBsrConfig::default()
        })
        .check_slots(MS, Rat::Lte, &by_key)
        .unwrap_err();
        assert_eq!(
            e.message,
            "'scheduling.sr_to_grant' is not a whole number of the cell's 1000 µs slots"
        );
        let k2 = |ms: u64| {
            sr_bsr(SrBsrConfig {
                grant_to_pusch: SimDuration::from_ms(ms),
                ..SrBsrConfig::default()
            })
            .check_slots(MS, Rat::Lte, &by_key)
        };
        assert_eq!(k2(32), Ok(()));
        let e = k2(33).unwrap_err();
        assert_eq!(e.key, "scheduling.grant_to_pusch");
        assert_eq!(
            e.message,
            "'scheduling.grant_to_pusch' is more than 32 slots"
        );
    }
}
