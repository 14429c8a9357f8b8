//! [`CellRadioConfig`]: the radio parameters of a cell in the form a user states them — the
//! keys of a scenario file's `[cells.NAME]` — with their defaults, their citations and their
//! checks, and the one conversion into the cell's [`LteCellConfig`].
//!
//! With the `serde` feature the type (de)serialises in the file's form: times as integer
//! nanoseconds, each such key marked in the JSON Schema with `"x-unit" = "time"`, so that a
//! file layer reads and writes them with units (`"5ms"`); every other key is the plain TOML
//! value. The doc comments of the fields are the JSON Schema's descriptions. What is not a
//! radio parameter — the eNB and UE nodes, placement, interferers, the bearer's tables and the
//! reading of a BLER table file — stays with the file layer.

use std::fmt;

use celltcp_engine::SimDuration;
use celltcp_net::packet::NodeId;

use super::{HarqCombining, LteCellConfig, DEFAULT_SHADOWING_DECORRELATION_M};
use crate::channel::{
    FreeSpace, LogDistance, LosCondition, PathLossKind, PathLossModel, UrbanMacro, UrbanMicro,
};
use crate::mac::proportional_fair::DEFAULT_TIME_CONSTANT_TTI;
use crate::mac::{HarqConfig, NAMES};
use crate::phy::bler::{DEFAULT_DECADE_DB, DEFAULT_SHANNON_ETA, DEFAULT_SNR_EFFICIENCY_DB};
use crate::phy::{
    prbs_for_bandwidth, BlerModel, BlerTable, CqiTable, Mcs, UeCategory, CHANNEL_BANDWIDTHS,
    DEFAULT_BANDWIDTH_MHZ, TTI_NS,
};

/// The line-of-sight condition of the UMa and UMi path-loss models for every link of a cell:
/// fixed, or drawn once per link from TR 38.901's LOS probability (Table 7.4.2-1,
/// [`crate::cell::los`]). A scenario file writes `true`, `false` or `"probabilistic"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LosSetting {
    /// Every link is LOS (`true`) or NLOS (`false`, the default).
    Fixed(bool),
    /// Each link's condition is drawn once from the LOS probability at its first distance.
    Probabilistic,
}

impl Default for LosSetting {
    /// NLOS: the condition of most of a macro cell's area (TR 38.901 Table 7.4.2-1 at the
    /// distances of a 500 m inter-site distance).
    fn default() -> Self {
        LosSetting::Fixed(false)
    }
}

impl LosSetting {
    /// The fixed condition; NLOS as the starting point of a drawn one.
    pub fn condition(self) -> LosCondition {
        match self {
            LosSetting::Fixed(true) => LosCondition::Los,
            _ => LosCondition::Nlos,
        }
    }

    /// Whether each link's condition is drawn.
    pub fn is_probabilistic(self) -> bool {
        self == LosSetting::Probabilistic
    }
}

/// The radio keys of one cell (`[cells.NAME]` of a scenario file, every key optional).
///
/// [`Default`] is the file's default cell: the TR 36.814 Table A.2.1.1-2 macro-cell
/// calibration values (2 GHz carrier, 46 dBm over 10 MHz, UE noise figure 9 dB) with the UMa
/// path loss of TR 38.901 in NLOS, no shadowing and no fast fading, proportional fair, HARQ
/// maxTx 4 with chase combining, CQI Table 7.2.3-1 reported every 5 ms and used 4 ms later.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(default, deny_unknown_fields)
)]
pub struct CellRadioConfig {
    /// Downlink bandwidth, MHz: 1.4, 3, 5, 10, 15 or 20.
    pub bandwidth_mhz: f64,
    /// Carrier frequency, GHz (0.5 to 100).
    pub carrier_ghz: f64,
    /// Total transmit power, dBm.
    pub tx_power_dbm: f64,
    /// UE noise figure, dB.
    pub noise_figure_db: f64,
    /// "uma" (default), "umi", "free_space" or "log_distance".
    pub pathloss: PathLossKind,
    /// Line of sight for "uma" and "umi": true, false, or "probabilistic" (drawn per link).
    pub los: LosSetting,
    /// Log-distance: loss at d0_m, dB.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub pl0_db: Option<f64>,
    /// Log-distance: reference distance, m.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub d0_m: Option<f64>,
    /// Log-distance: path-loss exponent.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub exponent: Option<f64>,
    /// Log-normal shadowing standard deviation, dB (0 = none).
    pub shadowing_db: f64,
    /// Shadowing decorrelation distance, m.
    pub shadowing_decorrelation_m: f64,
    /// Time-correlated Rayleigh fading (Doppler from each UE's speed).
    pub fading: bool,
    /// "proportional_fair" (default), "round_robin", "max_ci" or "wfq".
    pub scheduler: String,
    /// Proportional fair: time constant of the throughput average (a time ≥ 1ms; one TTI is
    /// 1ms). Other than the default only with scheduler = "proportional_fair".
    #[cfg_attr(
        feature = "serde",
        serde(with = "nanos"),
        schemars(with = "u64", extend("x-unit" = "time"))
    )]
    pub pf_time_constant: SimDuration,
    /// HARQ maximum transmissions per transport block (1 to 8).
    pub harq_max_transmissions: u8,
    /// "chase" (default) or "none".
    pub harq_combining: HarqCombining,
    /// BLER curves: SINR step from BLER 10 % to 1 %, dB (0.1 to 10).
    pub bler_decade_db: f64,
    /// Period of the CQI reports (a time, whole milliseconds).
    #[cfg_attr(
        feature = "serde",
        serde(with = "nanos"),
        schemars(with = "u64", extend("x-unit" = "time"))
    )]
    pub cqi_period: SimDuration,
    /// Delay from a CQI measurement to its use (a time, whole milliseconds).
    #[cfg_attr(
        feature = "serde",
        serde(with = "nanos"),
        schemars(with = "u64", extend("x-unit" = "time"))
    )]
    pub cqi_delay: SimDuration,
    /// CQI table of the UEs' reports, with its MCS table (TS 36.213 §7.2.3, §7.1.7.1):
    /// "7.2.3-1" (default; QPSK to 64QAM, MCS 0 to 28) or "7.2.3-2" (256QAM, MCS 0 to 27).
    // Echoed only when not the default, so that the outputs of every scenario written before
    // the key existed stay as they were.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "is_default_cqi_table"))]
    pub cqi_table: CqiTable,
    /// Use this MCS (0 to 28; 0 to 27 with cqi_table = "7.2.3-2") of the cell's MCS table for
    /// every transport block instead of link adaptation.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub fixed_mcs: Option<u8>,
    /// Downlink category of every UE (TS 36.306 Table 4.1-1), 1 to 5: no transport block
    /// above its maximum (10296, 51024, 75376, 75376 or 149776 bits). Unbounded by default.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub ue_category: Option<UeCategory>,
}

#[cfg(feature = "serde")]
fn is_default_cqi_table(t: &CqiTable) -> bool {
    *t == CqiTable::default()
}

impl Default for CellRadioConfig {
    fn default() -> Self {
        CellRadioConfig {
            // TS 36.101 Table 5.6-1; TR 36.814 Table A.2.1.1-2 (10 MHz per carrier).
            bandwidth_mhz: DEFAULT_BANDWIDTH_MHZ,
            // TR 36.814 Table A.2.1.1-2: carrier frequency 2 GHz, total BS transmit power
            // 46 dBm for a 10 MHz carrier, UE noise figure 9 dB.
            carrier_ghz: 2.0,
            tx_power_dbm: 46.0,
            noise_figure_db: 9.0,
            // TR 38.901 §7.2 (Table 7.2-1): the macro-cell deployment (`PathLossKind`'s default),
            // in NLOS until `los` says otherwise.
            pathloss: PathLossKind::default(),
            los: LosSetting::default(),
            pl0_db: None,
            d0_m: None,
            exponent: None,
            shadowing_db: 0.0,
            // TR 38.901 Table 7.5-6 Part-1 (UMa NLOS).
            shadowing_decorrelation_m: DEFAULT_SHADOWING_DECORRELATION_M,
            fading: false,
            scheduler: "proportional_fair".to_string(),
            pf_time_constant: SimDuration((DEFAULT_TIME_CONSTANT_TTI as u64) * TTI_NS),
            // `HarqConfig::default`: 4 transmissions, an eNodeB setting (downlink HARQ is
            // asynchronous, TS 36.321 §5.3.2: the eNodeB decides when to stop retransmitting).
            harq_max_transmissions: HarqConfig::default().max_transmissions,
            harq_combining: HarqCombining::default(),
            bler_decade_db: DEFAULT_DECADE_DB,
            // A wideband CQI report every 5 ms, used 4 ms after its measurement (the timing
            // of `LteCellConfig::lte_default`, in TTIs there).
            cqi_period: SimDuration(5 * TTI_NS),
            cqi_delay: SimDuration(4 * TTI_NS),
            cqi_table: CqiTable::default(),
            fixed_mcs: None,
            ue_category: None,
        }
    }
}

/// A key of [`CellRadioConfig`] out of its range, or two keys that do not go together. `key`
/// is the key as in scenario files (`carrier_ghz`); `message` names the value and what is
/// expected, so that `"{key}: {message}"` reads as one sentence. A file layer puts the dotted
/// key of the cell in front (`cells.macro.carrier_ghz`).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct CellKeyError {
    pub key: &'static str,
    pub message: String,
}

fn check(
    ok: bool,
    key: &'static str,
    message: impl FnOnce() -> String,
) -> Result<(), CellKeyError> {
    if ok {
        Ok(())
    } else {
        Err(CellKeyError {
            key,
            message: message(),
        })
    }
}

/// A finite number in `lo..=hi`.
fn in_range(v: f64, key: &'static str, lo: f64, hi: f64, what: &str) -> Result<(), CellKeyError> {
    check(v.is_finite() && v >= lo && v <= hi, key, || {
        format!("{v} is out of range; expected {what}")
    })
}

/// One TTI, the unit of the CQI timing and of the proportional-fair time constant.
const TTI: SimDuration = SimDuration(TTI_NS);

impl CellRadioConfig {
    /// Checks every key; times are shown in the engine's form (`0.005000000s`).
    pub fn validate(&self) -> Result<(), CellKeyError> {
        self.validate_showing(&|key| self.shown(key))
    }

    /// [`CellRadioConfig::validate`], with the values of the keys that carry a unit shown by
    /// `shown(key)`: a file layer passes the text as written (`'0.5ms' is too short`).
    pub fn validate_showing(
        &self,
        shown: &dyn Fn(&'static str) -> String,
    ) -> Result<(), CellKeyError> {
        check(
            prbs_for_bandwidth(self.bandwidth_mhz).is_ok(),
            "bandwidth_mhz",
            || {
                let table: Vec<String> = CHANNEL_BANDWIDTHS
                    .iter()
                    .map(|(b, _)| b.to_string())
                    .collect();
                format!(
                    "{} is not an LTE bandwidth; expected one of {}",
                    self.bandwidth_mhz,
                    table.join(", ")
                )
            },
        )?;
        let ranges = [
            (
                "carrier_ghz",
                self.carrier_ghz,
                0.5,
                100.0,
                "0.5 to 100 (GHz)",
            ),
            (
                "tx_power_dbm",
                self.tx_power_dbm,
                -30.0,
                80.0,
                "-30 to 80 (dBm)",
            ),
            (
                "noise_figure_db",
                self.noise_figure_db,
                0.0,
                30.0,
                "0 to 30 (dB)",
            ),
            ("shadowing_db", self.shadowing_db, 0.0, 30.0, "0 to 30 (dB)"),
            (
                "shadowing_decorrelation_m",
                self.shadowing_decorrelation_m,
                0.1,
                1e4,
                "0.1 to 10000 (m)",
            ),
        ];
        for (key, v, lo, hi, what) in ranges {
            in_range(v, key, lo, hi, what)?;
        }
        self.check_pathloss()?;
        check(
            NAMES.contains(&self.scheduler.as_str()),
            "scheduler",
            || {
                format!(
                    "'{}' is not a MAC scheduler; expected one of: {}",
                    self.scheduler,
                    NAMES.join(", ")
                )
            },
        )?;
        self.check_pf_time_constant(shown)?;
        in_range(
            f64::from(self.harq_max_transmissions),
            "harq_max_transmissions",
            1.0,
            8.0,
            "1 to 8",
        )?;
        in_range(
            self.bler_decade_db,
            "bler_decade_db",
            0.1,
            10.0,
            "0.1 to 10 (dB from BLER 10 % to 1 %)",
        )?;
        self.fixed_mcs()?;
        whole_ttis(self.cqi_period, "cqi_period", 1, shown)?;
        whole_ttis(self.cqi_delay, "cqi_delay", 0, shown)?;
        Ok(())
    }

    /// A time key in the engine's form, for [`CellRadioConfig::validate`].
    fn shown(&self, key: &str) -> String {
        match key {
            "pf_time_constant" => self.pf_time_constant.to_string(),
            "cqi_period" => self.cqi_period.to_string(),
            "cqi_delay" => self.cqi_delay.to_string(),
            _ => String::new(),
        }
    }

    /// A drawn LOS needs a model with a LOS probability (TR 38.901 Table 7.4.2-1: UMa, UMi);
    /// the log-distance model has no default for its three parameters.
    fn check_pathloss(&self) -> Result<(), CellKeyError> {
        let has_los = matches!(self.pathloss, PathLossKind::Uma | PathLossKind::Umi);
        check(!self.los.is_probabilistic() || has_los, "los", || {
            "\"probabilistic\" needs a path-loss model with a LOS condition: pathloss = \"uma\" \
             or \"umi\""
                .into()
        })?;
        if self.pathloss == PathLossKind::LogDistance {
            for (key, v) in [
                ("pl0_db", self.pl0_db),
                ("d0_m", self.d0_m),
                ("exponent", self.exponent),
            ] {
                check(v.is_some(), key, || {
                    "required by pathloss = \"log_distance\"".into()
                })?;
            }
        }
        Ok(())
    }

    /// At least one TTI, and other than the default only with the proportional-fair scheduler
    /// (no other scheduler reads it).
    fn check_pf_time_constant(
        &self,
        shown: &dyn Fn(&'static str) -> String,
    ) -> Result<(), CellKeyError> {
        let key = "pf_time_constant";
        check(self.pf_time_constant >= TTI, key, || {
            format!(
                "'{}' is too short; expected a time ≥ 1ms (one TTI)",
                shown(key)
            )
        })?;
        let given = self.pf_time_constant != CellRadioConfig::default().pf_time_constant;
        check(!given || self.scheduler == "proportional_fair", key, || {
            format!(
                "'{}' is given but scheduler is \"{}\"; it applies to \"proportional_fair\" only",
                shown(key),
                self.scheduler
            )
        })
    }

    /// `fixed_mcs` as an [`Mcs`]: an index with its own transport block size in the MCS table
    /// of `cqi_table`, 0 to 28 (TS 36.213 Table 7.1.7.1-1) or 0 to 27 (Table 7.1.7.1-1A).
    pub fn fixed_mcs(&self) -> Result<Option<Mcs>, CellKeyError> {
        let Some(m) = self.fixed_mcs else {
            return Ok(None);
        };
        let table = self.cqi_table;
        let message = match Mcs::new(m) {
            Ok(mcs) if table.has_mcs(m) => return Ok(Some(mcs)),
            _ if m <= CqiTable::Table1.mcs_max() => format!(
                "{m} is out of range with cqi_table = \"{}\"; expected an MCS index 0 to {} \
                 (TS 36.213 Table {})",
                table.name(),
                table.mcs_max(),
                table.mcs_table_name()
            ),
            _ => format!(
                "{m} is out of range; expected an MCS index 0 to {}",
                table.mcs_max()
            ),
        };
        Err(CellKeyError {
            key: "fixed_mcs",
            message,
        })
    }

    /// The path-loss model of the keys, at the carrier.
    pub fn pathloss_model(&self) -> Result<PathLossModel, CellKeyError> {
        let carrier_hz = self.carrier_ghz * 1e9;
        let at = |key: &'static str| {
            move |e: crate::channel::ChannelError| CellKeyError {
                key,
                message: e.to_string(),
            }
        };
        let los = self.los.condition();
        Ok(match self.pathloss {
            PathLossKind::FreeSpace => {
                PathLossModel::FreeSpace(FreeSpace::new(carrier_hz).map_err(at("carrier_ghz"))?)
            }
            PathLossKind::LogDistance => PathLossModel::LogDistance(
                LogDistance::new(
                    self.pl0_db.unwrap_or(0.0),
                    self.d0_m.unwrap_or(1.0),
                    self.exponent.unwrap_or(2.0),
                )
                .map_err(at("pathloss"))?,
            ),
            PathLossKind::Uma => PathLossModel::UrbanMacro(
                UrbanMacro::with_default_heights(carrier_hz, los).map_err(at("carrier_ghz"))?,
            ),
            PathLossKind::Umi => PathLossModel::UrbanMicro(
                UrbanMicro::with_default_heights(carrier_hz, los).map_err(at("carrier_ghz"))?,
            ),
        })
    }

    /// The cell's configuration: these keys over [`LteCellConfig::lte_default`] for cell
    /// `name` with eNB `enb`, with the BLER curves of `bler_table` if given (read by the
    /// caller, of the MCSs of `cqi_table`) instead of the default curves of `bler_decade_db`.
    /// The keys go with it as [`LteCellConfig::keys`], where the cell reads the plain ones;
    /// only the keys it needs in another form are built here. The placement, the interferers,
    /// the per-UE maps and the bearer are the caller's.
    pub fn cell_config(
        &self,
        name: &str,
        enb: NodeId,
        bler_table: Option<BlerTable>,
    ) -> Result<LteCellConfig, CellKeyError> {
        let n_prb = prbs_for_bandwidth(self.bandwidth_mhz).map_err(|e| CellKeyError {
            key: "bandwidth_mhz",
            message: e.to_string(),
        })?;
        let bler = match bler_table {
            Some(table) => BlerModel::from_table(table),
            None => BlerModel::from_shannon_bound_for(
                self.cqi_table,
                DEFAULT_SHANNON_ETA,
                DEFAULT_SNR_EFFICIENCY_DB,
                self.bler_decade_db,
            )
            .map_err(|e| CellKeyError {
                key: "bler_decade_db",
                message: e.to_string(),
            })?,
        };
        let base = LteCellConfig::lte_default(name, enb);
        Ok(LteCellConfig {
            n_prb,
            carrier_hz: self.carrier_ghz * 1e9,
            pathloss: self.pathloss_model()?,
            probabilistic_los: self.los.is_probabilistic(),
            shadowing: (self.shadowing_db > 0.0)
                .then_some((self.shadowing_db, self.shadowing_decorrelation_m)),
            pf_time_constant_tti: self.pf_time_constant.as_ns() as f64 / TTI_NS as f64,
            harq: HarqConfig {
                max_transmissions: self.harq_max_transmissions,
                ..base.harq
            },
            bler,
            cqi_period_tti: ttis(self.cqi_period),
            cqi_delay_tti: ttis(self.cqi_delay),
            fixed_mcs: self.fixed_mcs()?,
            // Every plain key (the cell reads it as given) comes with the keys.
            keys: self.clone(),
            ..base
        })
    }
}

/// Whole TTIs of a checked time.
fn ttis(d: SimDuration) -> u32 {
    (d.as_ns() / TTI_NS) as u32
}

/// A time of whole TTIs (1 ms each), at least `min` of them.
// `%` rather than `is_multiple_of`, which is newer than the workspace's rust-version.
#[allow(clippy::manual_is_multiple_of)]
fn whole_ttis(
    d: SimDuration,
    key: &'static str,
    min: u64,
    shown: &dyn Fn(&'static str) -> String,
) -> Result<(), CellKeyError> {
    let ns = d.as_ns();
    let whole = ns % TTI_NS == 0 && ns / TTI_NS >= min && ns / TTI_NS <= u64::from(u32::MAX);
    check(whole, key, || {
        format!(
            "'{}' is not a whole number of TTIs; expected a multiple of 1ms, at least {min}ms",
            shown(key)
        )
    })
}

impl fmt::Display for LosSetting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LosSetting::Fixed(b) => write!(f, "{b}"),
            LosSetting::Probabilistic => f.write_str(PROBABILISTIC),
        }
    }
}

const PROBABILISTIC: &str = "probabilistic";

#[cfg(feature = "serde")]
use celltcp_engine::serde_nanos as nanos;

/// `los` as a file writes it: a boolean, or `"probabilistic"`.
#[cfg(feature = "serde")]
mod los_serde {
    use std::borrow::Cow;
    use std::fmt;

    use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
    use serde::de::{self, Deserializer, Visitor};
    use serde::{Deserialize, Serialize, Serializer};

    use super::{LosSetting, PROBABILISTIC};

    const EXPECTED: &str = "true (LOS), false (NLOS) or \"probabilistic\" (drawn per link)";

    impl Serialize for LosSetting {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            match self {
                LosSetting::Fixed(b) => s.serialize_bool(*b),
                LosSetting::Probabilistic => s.serialize_str(PROBABILISTIC),
            }
        }
    }

    impl<'de> Deserialize<'de> for LosSetting {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_any(LosVisitor)
        }
    }

    struct LosVisitor;

    impl Visitor<'_> for LosVisitor {
        type Value = LosSetting;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(EXPECTED)
        }

        fn visit_bool<E: de::Error>(self, v: bool) -> Result<LosSetting, E> {
            Ok(LosSetting::Fixed(v))
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<LosSetting, E> {
            if v == PROBABILISTIC {
                Ok(LosSetting::Probabilistic)
            } else {
                Err(E::custom(format!(
                    "'{v}' is not a LOS condition; expected {EXPECTED}"
                )))
            }
        }
    }

    impl JsonSchema for LosSetting {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_valid_and_builds_the_cell_the_file_layer_built() {
        let keys = CellRadioConfig::default();
        assert_eq!(keys.validate(), Ok(()));
        let cfg = keys.cell_config("c", NodeId(3), None).unwrap();
        assert_eq!(cfg.validate(), Ok(()));
        assert_eq!(cfg.n_prb, 50);
        assert_eq!(cfg.carrier_hz, 2e9);
        assert_eq!(cfg.pf_time_constant_tti, DEFAULT_TIME_CONSTANT_TTI);
        assert_eq!((cfg.cqi_period_tti, cfg.cqi_delay_tti), (5, 4));
        assert!(matches!(cfg.pathloss, PathLossModel::UrbanMacro(_)));
        assert_eq!(cfg.shadowing, None);
        // Everything but the radio keys is the programmatic default's.
        let base = LteCellConfig::lte_default("c", NodeId(3));
        assert_eq!(cfg.rlc, base.rlc);
        assert_eq!(cfg.harq.n_processes, base.harq.n_processes);
        // The plain keys reach the cell as given.
        assert_eq!(cfg.keys, keys);
        let given = CellRadioConfig {
            fading: true,
            scheduler: "round_robin".into(),
            cqi_table: CqiTable::Table2,
            ue_category: Some(UeCategory::new(3).unwrap()),
            ..keys
        };
        let cfg = given.cell_config("c", NodeId(3), None).unwrap();
        assert_eq!(cfg.keys, given);
        assert_eq!(cfg.bler.cqi_table(), CqiTable::Table2);
    }

    #[test]
    fn the_programmatic_cell_keeps_the_file_defaults_but_free_space() {
        let base = LteCellConfig::lte_default("c", NodeId(0));
        assert_eq!(
            base.keys,
            CellRadioConfig {
                pathloss: PathLossKind::FreeSpace,
                ..CellRadioConfig::default()
            }
        );
        // The built fields are those the keys build.
        let built = base.keys.cell_config("c", NodeId(0), None).unwrap();
        assert_eq!(built, base);
    }

    #[test]
    fn errors_name_the_key_and_show_times_as_given() {
        let bad = |f: &dyn Fn(&mut CellRadioConfig)| {
            let mut c = CellRadioConfig::default();
            f(&mut c);
            c.validate().unwrap_err().to_string()
        };
        assert_eq!(
            bad(&|c| c.bandwidth_mhz = 7.0),
            "bandwidth_mhz: 7 is not an LTE bandwidth; expected one of 1.4, 3, 5, 10, 15, 20"
        );
        assert_eq!(
            bad(&|c| c.carrier_ghz = f64::NAN),
            "carrier_ghz: NaN is out of range; expected 0.5 to 100 (GHz)"
        );
        assert_eq!(
            bad(&|c| c.pf_time_constant = SimDuration::from_us(500)),
            "pf_time_constant: '0.000500000s' is too short; expected a time ≥ 1ms (one TTI)"
        );
        assert!(bad(&|c| c.cqi_delay = SimDuration::from_us(2500))
            .starts_with("cqi_delay: '0.002500000s' is not a whole number of TTIs"));
        assert_eq!(
            bad(&|c| {
                c.pathloss = PathLossKind::FreeSpace;
                c.los = LosSetting::Probabilistic;
            }),
            "los: \"probabilistic\" needs a path-loss model with a LOS condition: pathloss = \
             \"uma\" or \"umi\""
        );
        assert_eq!(
            bad(&|c| c.pathloss = PathLossKind::LogDistance),
            "pl0_db: required by pathloss = \"log_distance\""
        );
        let mut shown = CellRadioConfig {
            cqi_period: SimDuration(0),
            ..CellRadioConfig::default()
        };
        shown.scheduler = "max_ci".into();
        let e = shown.validate_showing(&|_| "0s".into()).unwrap_err();
        assert_eq!(e.key, "cqi_period");
        assert!(e.message.starts_with("'0s' is not"), "{e}");
    }
}
