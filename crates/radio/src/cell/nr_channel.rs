//! `[cells.NAME.nr.channel]`: the mmWave channel of an NR cell's UEs (`nr::mmwave`) instead of
//! the LTE link budget (`radio_link.rs`). The scenario file deserialises the table into
//! [`NrChannelConfig`] itself (serde and schemars behind the crate's `serde` feature; times as
//! integer nanoseconds, each marked `"x-unit" = "time"` so that the file layer reads them with
//! units, `"300ms"`); [`NrChannelConfig::resolve`] checks it and gives the library's
//! [`MmWaveChannelConfig`], or the trace, with messages naming the dotted key
//! (`cells.NAME.nr.channel.KEY`).
//!
//! Absent, the cell is as before: every UE's link is its [`RadioLink`](super::radio_link::RadioLink).

use std::sync::Arc;

use celltcp_engine::SimDuration;

use super::nr_config::NrConfigError;
use crate::channel::{LosCondition, NlosFormula, Position, Tr38901PathLoss, Tr38901Scenario};
use crate::nr::beam::{BeamConfig, BeamRecovery};
use crate::nr::blockage::{BlockageModelBConfig, BlockerKind};
use crate::nr::blockage_markov::MarkovBlockageConfig;
use crate::nr::mmwave::{BlockageConfig, LosMode, MmWaveChannelConfig};
use crate::nr::sinr_trace::{SinrInterpolation, SinrTrace};

#[cfg(feature = "serde")]
use celltcp_engine::serde_nanos as nanos;

/// What gives a UE's SINR.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "lowercase")
)]
pub enum NrChannelModel {
    /// TR 38.901 path loss, LOS condition, shadowing, blockage and beam recovery.
    #[default]
    Tr38901,
    /// A measured SINR series (`trace`), the same for every UE of the cell.
    Trace,
}

/// A TR 38.901 §7.4.1 scenario (Table 7.4.1-1) by its file name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "kebab-case")
)]
pub enum NrChannelScenario {
    /// UMi-Street Canyon, h_BS 10 m, h_UT 1.5 m.
    #[default]
    UmiStreetCanyon,
    /// UMa, h_BS 25 m, h_UT 1.5 m.
    Uma,
    /// InH-Office, mixed office LOS probability; h_BS 3 m, h_UT 1 m.
    InhOffice,
    /// InH-Office, open office LOS probability.
    InhOfficeOpen,
}

impl NrChannelScenario {
    pub fn scenario(self) -> Tr38901Scenario {
        match self {
            Self::UmiStreetCanyon => Tr38901Scenario::UmiStreetCanyon,
            Self::Uma => Tr38901Scenario::Uma,
            Self::InhOffice => Tr38901Scenario::InhOfficeMixed,
            Self::InhOfficeOpen => Tr38901Scenario::InhOfficeOpen,
        }
    }
}

/// How each UE's LOS condition is set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "lowercase")
)]
pub enum NrLos {
    /// Drawn from Table 7.4.2-1 at the UE's distance, redrawn every LOS correlation distance
    /// (Table 7.6.3.1-2).
    #[default]
    Drawn,
    Los,
    Nlos,
}

/// The blockage model's name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "kebab-case")
)]
pub enum NrBlockageKind {
    #[default]
    None,
    /// TR 38.901 §7.6.4.2 blockage model B: moving screens.
    ModelB,
    /// The two-state Markov process (MacCartney, Rappaport & Rangan, Globecom 2017).
    Markov,
}

/// Model B's blocker (TR 38.901 Table 7.6.4.2-5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "lowercase")
)]
pub enum NrBlocker {
    /// 0.3 m × 1.7 m at 3 km/h.
    #[default]
    Human,
    /// 4.8 m × 1.4 m at 30 km/h.
    Vehicle,
}

/// `[cells.NAME.nr.channel.blockage]`.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(deny_unknown_fields, default)
)]
pub struct NrBlockageConfig {
    /// "none" (default), "model-b" or "markov".
    pub kind: NrBlockageKind,
    /// Markov: mean time the direct path is clear (LOS), a time > 0. Default 2s, the order of
    /// the gaps between pedestrian blockages MacCartney, Rappaport & Rangan measured at 73 GHz
    /// (Globecom 2017).
    #[cfg_attr(
        feature = "serde",
        serde(with = "nanos"),
        schemars(with = "u64", extend("x-unit" = "time"))
    )]
    pub mean_los: SimDuration,
    /// Markov: mean time the direct path is blocked, a time > 0. Default 300ms, the order of
    /// the human blockage durations of the same measurements.
    #[cfg_attr(
        feature = "serde",
        serde(with = "nanos"),
        schemars(with = "u64", extend("x-unit" = "time"))
    )]
    pub mean_blocked: SimDuration,
    /// Markov: extra loss while blocked, dB. Default 30, the attenuation of TR 38.901 Table
    /// 7.6.4.1-1's blocking region (model A).
    pub blocked_loss_db: f64,
    /// Model B: "human" (default) or "vehicle" (Table 7.6.4.2-5).
    pub blocker: NrBlocker,
    /// Model B: blockers per m², 0 to 10. Default 0.1 (§7.6.4.2 leaves the density to the
    /// study).
    pub density_per_m2: f64,
    /// Model B: blocker speed, m/s; default that of the blocker (3 km/h for a human, 30 km/h
    /// for a vehicle).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub speed_mps: Option<f64>,
    /// Model B: the rectangle the blockers move in, [[x_min, y_min], [x_max, y_max]] metres;
    /// the gNB and every UE must lie inside it. Required with kind = "model-b".
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub area: Option<[[f64; 2]; 2]>,
}

impl Default for NrBlockageConfig {
    fn default() -> Self {
        NrBlockageConfig {
            kind: NrBlockageKind::None,
            mean_los: SimDuration(2_000_000_000),
            mean_blocked: SimDuration(300_000_000),
            blocked_loss_db: 30.0,
            blocker: NrBlocker::Human,
            density_per_m2: 0.1,
            speed_mps: None,
            area: None,
        }
    }
}

/// `[cells.NAME.nr.channel.beam]`: beam recovery after each blockage onset or end (TS 38.321
/// §5.17, abstracted in `nr::beam`).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(deny_unknown_fields, default)
)]
pub struct NrBeamConfig {
    /// Time from a blockage transition to a realigned beam. Default 0s (ideal beam
    /// management).
    #[cfg_attr(
        feature = "serde",
        serde(with = "nanos"),
        schemars(with = "u64", extend("x-unit" = "time"))
    )]
    pub recovery: SimDuration,
    /// Loss during the recovery, dB; absent: outage (no link until the beam is found).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub recovery_loss_db: Option<f64>,
}

impl Default for NrBeamConfig {
    fn default() -> Self {
        NrBeamConfig {
            recovery: SimDuration(0),
            recovery_loss_db: None,
        }
    }
}

/// `[cells.NAME.nr.channel]` as written; every key is optional.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(deny_unknown_fields, default)
)]
pub struct NrChannelConfig {
    /// "tr38901" (default) or "trace".
    pub model: NrChannelModel,
    /// TR 38.901 scenario: "umi-street-canyon" (default), "uma", "inh-office" (mixed) or
    /// "inh-office-open" (Table 7.4.1-1).
    pub scenario: NrChannelScenario,
    /// "drawn" (default, Table 7.4.2-1), "los" or "nlos".
    pub los: NrLos,
    /// Log-normal shadowing with σ_SF of Table 7.4.1-1 and the decorrelation distance of
    /// Table 7.5-6. Default true.
    pub shadowing: bool,
    pub blockage: NrBlockageConfig,
    pub beam: NrBeamConfig,
    /// With model = "trace": a CSV file `time_s,sinr_db` (docs/nr.md), relative to the
    /// scenario file.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub trace: Option<String>,
    /// With model = "trace": "hold" (default) or "linear" between samples.
    pub trace_interpolation: NrTraceInterpolation,
    /// The trace read from `trace` (the file layer reads it; a program sets it).
    #[cfg_attr(feature = "serde", serde(skip), schemars(skip))]
    pub trace_samples: Option<Arc<SinrTrace>>,
}

/// Interpolation between trace samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "lowercase")
)]
pub enum NrTraceInterpolation {
    #[default]
    Hold,
    Linear,
}

impl NrTraceInterpolation {
    pub fn interpolation(self) -> SinrInterpolation {
        match self {
            Self::Hold => SinrInterpolation::Hold,
            Self::Linear => SinrInterpolation::Linear,
        }
    }
}

impl Default for NrChannelConfig {
    fn default() -> Self {
        NrChannelConfig {
            model: NrChannelModel::Tr38901,
            scenario: NrChannelScenario::UmiStreetCanyon,
            los: NrLos::Drawn,
            shadowing: true,
            blockage: NrBlockageConfig::default(),
            beam: NrBeamConfig::default(),
            trace: None,
            trace_interpolation: NrTraceInterpolation::Hold,
            trace_samples: None,
        }
    }
}

/// A validated channel: the library's configuration, or a trace.
#[derive(Clone, Debug, PartialEq)]
pub enum NrChannel {
    Modelled(MmWaveChannelConfig),
    Trace(Arc<SinrTrace>),
}

impl NrChannelConfig {
    /// The path loss, dB, of the TR 38.901 channel at `distance_2d_m` from the gNB in the most
    /// favourable case it allows: line of sight, no shadowing (its mean is 0 dB), no blockage
    /// and no beam loss; `None` for a trace (whose SINR does not depend on the position).
    /// `carrier_hz` is the cell's, checked by [`NrChannelConfig::resolve`].
    pub fn best_case_path_loss_db(
        &self,
        carrier_hz: f64,
        distance_2d_m: f64,
    ) -> Result<Option<f64>, crate::channel::ChannelError> {
        use crate::channel::PathLoss;
        if self.model == NrChannelModel::Trace {
            return Ok(None);
        }
        let los = Tr38901PathLoss::with_default_heights(
            self.scenario.scenario(),
            carrier_hz,
            LosCondition::Los,
            NlosFormula::Full,
        )?;
        Ok(Some(los.path_loss_db(distance_2d_m)))
    }

    /// Checks the table for a cell at `carrier_hz` whose gNB is at `gnb` and whose UEs start
    /// at `ues`; `cell_key` is `cells.NAME`. Errors name `cells.NAME.nr.channel.KEY`, or
    /// `cells.NAME.carrier_ghz` for a carrier outside TR 38.901's range.
    pub fn resolve(
        &self,
        cell_key: &str,
        carrier_hz: f64,
        gnb: Position,
        ues: &[Position],
    ) -> Result<NrChannel, NrConfigError> {
        let err = |k: &str, message: String| NrConfigError {
            key: format!("{cell_key}.nr.channel.{k}"),
            message,
        };
        if self.model == NrChannelModel::Trace {
            return match (&self.trace, &self.trace_samples) {
                (_, Some(t)) => Ok(NrChannel::Trace(Arc::clone(t))),
                (Some(path), None) => Err(err("trace", format!("{path}: the trace was not read"))),
                (None, None) => Err(err(
                    "trace",
                    "is missing; model = \"trace\" needs a file, e.g. trace = \"sinr.csv\"".into(),
                )),
            };
        }
        if self.trace.is_some() {
            return Err(err(
                "trace",
                "is given but model is \"tr38901\"; set model = \"trace\" to use it".into(),
            ));
        }
        let scenario = self.scenario.scenario();
        let (h_bs, h_ut) = scenario.default_heights_m();
        Tr38901PathLoss::new(
            scenario,
            carrier_hz,
            h_bs,
            h_ut,
            LosCondition::Los,
            NlosFormula::Full,
        )
        .map_err(|e| NrConfigError {
            key: format!("{cell_key}.carrier_ghz"),
            message: format!(
                "{} GHz is outside the range of the TR 38.901 path loss of nr.channel \
                 ({e}); expected 0.5 to 100 GHz (§7.4.1)",
                carrier_hz / 1e9
            ),
        })?;
        Ok(NrChannel::Modelled(MmWaveChannelConfig {
            scenario,
            carrier_hz,
            heights_m: None,
            nlos_formula: NlosFormula::Full,
            los: match self.los {
                NrLos::Drawn => LosMode::Drawn,
                NrLos::Los => LosMode::Fixed(LosCondition::Los),
                NrLos::Nlos => LosMode::Fixed(LosCondition::Nlos),
            },
            shadowing: self.shadowing,
            blockage: self.blockage.resolve(gnb, ues, &|k, m| err(k, m))?,
            beam: self.beam.resolve(&|k, m| err(k, m))?,
        }))
    }
}

type ErrFn<'a> = &'a dyn Fn(&str, String) -> NrConfigError;

fn positive(d: SimDuration, key: &str, err: ErrFn<'_>) -> Result<u64, NrConfigError> {
    if d.as_ns() == 0 {
        return Err(err(
            key,
            "0s is not a mean sojourn; expected a time > 0, e.g. \"300ms\"".into(),
        ));
    }
    Ok(d.as_ns())
}

impl NrBlockageConfig {
    fn resolve(
        &self,
        gnb: Position,
        ues: &[Position],
        err: ErrFn<'_>,
    ) -> Result<BlockageConfig, NrConfigError> {
        match self.kind {
            NrBlockageKind::None => Ok(BlockageConfig::None),
            NrBlockageKind::Markov => {
                let loss = self.blocked_loss_db;
                if !(loss.is_finite() && (0.0..=200.0).contains(&loss)) {
                    return Err(err(
                        "blockage.blocked_loss_db",
                        format!("{loss} is out of range; expected a loss in [0, 200] dB"),
                    ));
                }
                Ok(BlockageConfig::Markov(MarkovBlockageConfig {
                    mean_clear_ns: positive(self.mean_los, "blockage.mean_los", err)?,
                    mean_blocked_ns: positive(self.mean_blocked, "blockage.mean_blocked", err)?,
                    blocked_loss_db: loss,
                }))
            }
            NrBlockageKind::ModelB => self.model_b(gnb, ues, err),
        }
    }

    fn model_b(
        &self,
        gnb: Position,
        ues: &[Position],
        err: ErrFn<'_>,
    ) -> Result<BlockageConfig, NrConfigError> {
        let Some([[x0, y0], [x1, y1]]) = self.area else {
            return Err(err(
                "blockage.area",
                "is missing; kind = \"model-b\" needs the blockers' rectangle, e.g. area = \
                 [[-10, -20], [110, 20]] (metres)"
                    .into(),
            ));
        };
        if !(x0 < x1 && y0 < y1) {
            return Err(err(
                "blockage.area",
                format!(
                    "[[{x0}, {y0}], [{x1}, {y1}]] is not a rectangle; expected [[x_min, y_min], \
                     [x_max, y_max]] with x_min < x_max and y_min < y_max"
                ),
            ));
        }
        let inside = |p: &Position| (x0..=x1).contains(&p.x_m) && (y0..=y1).contains(&p.y_m);
        if let Some(p) = std::iter::once(&gnb).chain(ues).find(|p| !inside(p)) {
            return Err(err(
                "blockage.area",
                format!(
                    "the gNB or a UE at [{}, {}] lies outside [[{x0}, {y0}], [{x1}, {y1}]]; \
                     model B's links must lie inside the blockers' area (TR 38.901 §7.6.4.2)",
                    p.x_m, p.y_m
                ),
            ));
        }
        let mut blocker = match self.blocker {
            NrBlocker::Human => BlockerKind::HUMAN,
            NrBlocker::Vehicle => BlockerKind::VEHICLE,
        };
        if let Some(v) = self.speed_mps {
            blocker.speed_mps = v;
        }
        let config = BlockageModelBConfig {
            blocker,
            density_per_m2: self.density_per_m2,
            area_min: Position::new(x0, y0),
            area_max: Position::new(x1, y1),
        };
        // The library's own checks (density, speed), under the key of the value.
        config.validate().map_err(|e| {
            let key = match &e {
                crate::nr::NrError::Param {
                    param: "density_per_m2",
                    ..
                } => "blockage.density_per_m2",
                crate::nr::NrError::Param {
                    param: "blocker.speed_mps",
                    ..
                } => "blockage.speed_mps",
                _ => "blockage.area",
            };
            err(key, e.to_string())
        })?;
        Ok(BlockageConfig::ModelB(config))
    }
}

impl NrBeamConfig {
    fn resolve(&self, err: ErrFn<'_>) -> Result<BeamConfig, NrConfigError> {
        let during_recovery = match self.recovery_loss_db {
            None => BeamRecovery::Outage,
            Some(loss_db) => BeamRecovery::ReducedGain { loss_db },
        };
        let beam = BeamConfig {
            recovery_ns: self.recovery.as_ns(),
            during_recovery,
        };
        beam.validate()
            .map_err(|e| err("beam.recovery_loss_db", e.to_string()))?;
        Ok(beam)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GNB: Position = Position::new(0.0, 0.0);

    fn key(c: NrChannelConfig, hz: f64, ues: &[Position]) -> String {
        c.resolve("cells.g", hz, GNB, ues).unwrap_err().key
    }

    fn markov(mean_los_ns: u64, mean_blocked_ns: u64) -> NrChannelConfig {
        NrChannelConfig {
            blockage: NrBlockageConfig {
                kind: NrBlockageKind::Markov,
                mean_los: SimDuration(mean_los_ns),
                mean_blocked: SimDuration(mean_blocked_ns),
                ..NrBlockageConfig::default()
            },
            ..NrChannelConfig::default()
        }
    }

    #[test]
    fn defaults_are_umi_drawn_los_with_shadowing_and_no_blockage() {
        let NrChannel::Modelled(c) = NrChannelConfig::default()
            .resolve("cells.g", 28e9, GNB, &[])
            .unwrap()
        else {
            panic!("a modelled channel")
        };
        assert_eq!(c.scenario, Tr38901Scenario::UmiStreetCanyon);
        assert_eq!((c.los, c.shadowing), (LosMode::Drawn, true));
        assert_eq!(c.blockage, BlockageConfig::None);
        assert_eq!(c.beam, BeamConfig::default());
        // The Markov defaults: 2 s clear, 300 ms blocked, 30 dB.
        let NrChannel::Modelled(m) = markov(2_000_000_000, 300_000_000)
            .resolve("cells.g", 28e9, GNB, &[])
            .unwrap()
        else {
            panic!("a modelled channel")
        };
        let BlockageConfig::Markov(m) = m.blockage else {
            panic!("Markov")
        };
        assert_eq!(
            m.blocked_loss_db,
            NrBlockageConfig::default().blocked_loss_db
        );
        assert_eq!(m.blocked_loss_db, 30.0);
        assert!((m.blocked_fraction() - 0.3 / 2.3).abs() < 1e-12);
    }

    #[test]
    fn errors_name_the_dotted_key() {
        assert_eq!(
            key(markov(0, 1), 28e9, &[]),
            "cells.g.nr.channel.blockage.mean_los"
        );
        assert_eq!(
            key(markov(1, 0), 28e9, &[]),
            "cells.g.nr.channel.blockage.mean_blocked"
        );
        // 0.45 GHz is FR1 but below TR 38.901's 0.5 GHz.
        assert_eq!(
            key(NrChannelConfig::default(), 0.45e9, &[]),
            "cells.g.carrier_ghz"
        );
        let model_b = |area| NrChannelConfig {
            blockage: NrBlockageConfig {
                kind: NrBlockageKind::ModelB,
                area,
                ..NrBlockageConfig::default()
            },
            ..NrChannelConfig::default()
        };
        let ue = [Position::new(30.0, 0.0)];
        assert_eq!(
            key(model_b(None), 28e9, &ue),
            "cells.g.nr.channel.blockage.area"
        );
        // The UE at x = 30 m outside a 20 m wide area.
        let e = model_b(Some([[-5.0, -5.0], [20.0, 5.0]]))
            .resolve("cells.g", 28e9, GNB, &ue)
            .unwrap_err();
        assert_eq!(e.key, "cells.g.nr.channel.blockage.area");
        assert!(e.message.contains("[30, 0] lies outside"), "{}", e.message);
        assert!(model_b(Some([[-5.0, -5.0], [40.0, 5.0]]))
            .resolve("cells.g", 28e9, GNB, &ue)
            .is_ok());
        let dense = NrChannelConfig {
            blockage: NrBlockageConfig {
                density_per_m2: 11.0,
                ..model_b(Some([[-5.0, -5.0], [40.0, 5.0]])).blockage
            },
            ..NrChannelConfig::default()
        };
        assert_eq!(
            key(dense, 28e9, &ue),
            "cells.g.nr.channel.blockage.density_per_m2"
        );
        let trace = NrChannelConfig {
            model: NrChannelModel::Trace,
            ..NrChannelConfig::default()
        };
        assert_eq!(key(trace, 28e9, &[]), "cells.g.nr.channel.trace");
        let beam = NrChannelConfig {
            beam: NrBeamConfig {
                recovery: SimDuration(1),
                recovery_loss_db: Some(-1.0),
            },
            ..NrChannelConfig::default()
        };
        assert_eq!(
            key(beam, 28e9, &[]),
            "cells.g.nr.channel.beam.recovery_loss_db"
        );
    }
}
