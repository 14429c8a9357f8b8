//! Distance-dependent path loss.
//!
//! * [`FreeSpace`]: Friis, `20·log10(4π d f_c / c)`.
//! * [`LogDistance`]: `PL0 + 10·n·log10(d / d0)`.
//! * [`UrbanMacro`] and [`UrbanMicro`]: 3GPP TR 38.901 (V16/V17) Table 7.4.1-1, scenarios UMa
//!   and UMi-Street Canyon, LOS or NLOS, with the LOS probabilities of Table 7.4.2-1, the
//!   shadow-fading standard deviations of Table 7.4.1-1 and the shadow-fading decorrelation
//!   distances of Table 7.5-6. TR 38.901 is chosen over TR 36.814 Table B.1.2.1-1 because it
//!   covers 0.5–100 GHz with one closed form per condition (TR 36.814's UMa NLOS needs street
//!   width and building height).
//!
//! Models take the horizontal distance between base station and UE; those with antenna heights
//! form the 3D distance `d_3D = sqrt(d_2D² + (h_BS − h_UT)²)` themselves. Distances below a
//! model's range are clamped to its lower end (10 m for UMa/UMi, `d0` for log-distance, 1 m for
//! free space) so that a UE passing under the mast sees a finite loss; above 5 km the UMa/UMi
//! formulas are extrapolated.
//!
//! Simplification: the effective environment height h_E of the breakpoint distance is 1 m. For
//! UMi that is the specification; for UMa it is exact for h_UT < 13 m, where Table 7.4.1-1
//! Note 1 draws h_E = 1 m with probability 1 (C(d_2D, h_UT) = 0).

use super::{ChannelError, SPEED_OF_LIGHT_MPS};

/// A path-loss law.
pub trait PathLoss {
    /// Path loss at horizontal distance `distance_2d_m` (metres) between base station and UE,
    /// dB (positive: a loss).
    fn path_loss_db(&self, distance_2d_m: f64) -> f64;
}

/// Line-of-sight condition of a link, drawn by the scenario (for example from
/// [`UrbanMacro::los_probability`]) and kept for as long as the scenario says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LosCondition {
    Los,
    Nlos,
}

/// Friis free-space loss.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FreeSpace {
    carrier_hz: f64,
}

impl FreeSpace {
    /// Free space at carrier frequency `carrier_hz` (hertz, > 0).
    pub fn new(carrier_hz: f64) -> Result<Self, ChannelError> {
        let carrier_hz =
            ChannelError::check_positive("carrier_hz", carrier_hz, "a positive frequency in Hz")?;
        Ok(FreeSpace { carrier_hz })
    }
}

impl PathLoss for FreeSpace {
    /// `20·log10(4π d f_c / c)` with d clamped to ≥ 1 m.
    fn path_loss_db(&self, distance_2d_m: f64) -> f64 {
        let d = distance_2d_m.max(1.0);
        20.0 * (4.0 * std::f64::consts::PI * d * self.carrier_hz / SPEED_OF_LIGHT_MPS).log10()
    }
}

/// Log-distance law: loss `pl0_db` at reference distance `d0_m`, growing by `10·n` dB per decade.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogDistance {
    pl0_db: f64,
    d0_m: f64,
    exponent: f64,
}

impl LogDistance {
    /// `pl0_db`: loss at `d0_m`, dB; `d0_m` > 0 metres; `exponent` n in [1, 10] (2 in free
    /// space, about 2.7–5 in cities).
    pub fn new(pl0_db: f64, d0_m: f64, exponent: f64) -> Result<Self, ChannelError> {
        let pl0_db = ChannelError::check(
            "pl0_db",
            pl0_db,
            -50.0,
            250.0,
            "a reference loss in [-50, 250] dB",
        )?;
        let d0_m =
            ChannelError::check_positive("d0_m", d0_m, "a positive reference distance in metres")?;
        let exponent = ChannelError::check(
            "exponent",
            exponent,
            1.0,
            10.0,
            "a path-loss exponent in [1, 10]",
        )?;
        Ok(LogDistance {
            pl0_db,
            d0_m,
            exponent,
        })
    }
}

impl PathLoss for LogDistance {
    /// `PL0 + 10·n·log10(d/d0)` with d clamped to ≥ d0.
    fn path_loss_db(&self, distance_2d_m: f64) -> f64 {
        let d = distance_2d_m.max(self.d0_m);
        self.pl0_db + 10.0 * self.exponent * (d / self.d0_m).log10()
    }
}

/// Shortest 2D distance of the UMa/UMi formulas (TR 38.901 Table 7.4.1-1), metres.
const MIN_DISTANCE_2D_M: f64 = 10.0;

/// Effective environment height h_E, metres (see the module notes).
const ENVIRONMENT_HEIGHT_M: f64 = 1.0;

/// Geometry shared by UMa and UMi.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Geometry {
    /// Carrier frequency, GHz (the unit of the 38.901 formulas).
    carrier_ghz: f64,
    h_bs_m: f64,
    h_ut_m: f64,
    /// d'_BP = 4 h'_BS h'_UT f_c / c, metres (Table 7.4.1-1 Note 1).
    breakpoint_m: f64,
}

impl Geometry {
    fn new(carrier_hz: f64, h_bs_m: f64, h_ut_m: f64) -> Result<Self, ChannelError> {
        let carrier_hz = ChannelError::check(
            "carrier_hz",
            carrier_hz,
            0.5e9,
            100e9,
            "a carrier in [0.5e9, 100e9] Hz, the range of TR 38.901",
        )?;
        let h_ut_m = ChannelError::check(
            "h_ut_m",
            h_ut_m,
            1.5,
            22.5,
            "a UE height in [1.5, 22.5] m (TR 38.901 Table 7.4.1-1)",
        )?;
        let h_bs_m = ChannelError::check(
            "h_bs_m",
            h_bs_m,
            1.5,
            150.0,
            "a base-station height in [1.5, 150] m",
        )?;
        let breakpoint_m =
            4.0 * (h_bs_m - ENVIRONMENT_HEIGHT_M) * (h_ut_m - ENVIRONMENT_HEIGHT_M) * carrier_hz
                / SPEED_OF_LIGHT_MPS;
        Ok(Geometry {
            carrier_ghz: carrier_hz / 1e9,
            h_bs_m,
            h_ut_m,
            breakpoint_m,
        })
    }

    fn distance_3d_m(&self, d2d_m: f64) -> f64 {
        d2d_m.hypot(self.h_bs_m - self.h_ut_m)
    }

    /// Dual-slope LOS loss: `a + b1·log10(d3D) + 20·log10(fc)` up to the breakpoint, then
    /// `a + 40·log10(d3D) + 20·log10(fc) − k·log10(d'BP² + (hBS − hUT)²)`.
    fn los_db(&self, d2d_m: f64, a: f64, b1: f64, k: f64) -> f64 {
        let d3 = self.distance_3d_m(d2d_m);
        let fc = 20.0 * self.carrier_ghz.log10();
        if d2d_m <= self.breakpoint_m {
            a + b1 * d3.log10() + fc
        } else {
            let dh = self.h_bs_m - self.h_ut_m;
            a + 40.0 * d3.log10() + fc - k * (self.breakpoint_m.powi(2) + dh * dh).log10()
        }
    }
}

/// TR 38.901 UMa (urban macro): base station above rooftops (25 m in the specification).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UrbanMacro {
    geometry: Geometry,
    condition: LosCondition,
}

impl UrbanMacro {
    /// UMa at `carrier_hz` (0.5–100 GHz) with antenna heights `h_bs_m` and `h_ut_m` (1.5–22.5 m).
    pub fn new(
        carrier_hz: f64,
        h_bs_m: f64,
        h_ut_m: f64,
        condition: LosCondition,
    ) -> Result<Self, ChannelError> {
        Ok(UrbanMacro {
            geometry: Geometry::new(carrier_hz, h_bs_m, h_ut_m)?,
            condition,
        })
    }

    /// UMa with the specification's heights: h_BS = 25 m, h_UT = 1.5 m.
    pub fn with_default_heights(
        carrier_hz: f64,
        condition: LosCondition,
    ) -> Result<Self, ChannelError> {
        Self::new(carrier_hz, 25.0, 1.5, condition)
    }

    /// Breakpoint distance d'_BP, metres.
    pub fn breakpoint_distance_m(&self) -> f64 {
        self.geometry.breakpoint_m
    }

    /// Shadow-fading standard deviation, dB: 4 (LOS) or 6 (NLOS), Table 7.4.1-1.
    pub fn shadow_fading_std_db(&self) -> f64 {
        match self.condition {
            LosCondition::Los => 4.0,
            LosCondition::Nlos => 6.0,
        }
    }

    /// Shadow-fading decorrelation distance, metres: 37 (LOS) or 50 (NLOS), Table 7.5-6.
    pub fn shadowing_decorrelation_m(&self) -> f64 {
        match self.condition {
            LosCondition::Los => 37.0,
            LosCondition::Nlos => 50.0,
        }
    }

    /// Probability that an outdoor UE at `distance_2d_m` is in LOS (Table 7.4.2-1, UMa):
    /// 1 up to 18 m, then `[18/d + e^(−d/63)(1 − 18/d)]·[1 + C'(h_UT)·5/4·(d/100)³·e^(−d/150)]`
    /// with `C'(h_UT)` = 0 for h_UT ≤ 13 m and `((h_UT − 13)/10)^1.5` above.
    pub fn los_probability(&self, distance_2d_m: f64) -> f64 {
        let d = distance_2d_m;
        if d <= 18.0 {
            return 1.0;
        }
        let h = self.geometry.h_ut_m;
        let c = if h <= 13.0 {
            0.0
        } else {
            ((h - 13.0) / 10.0).powf(1.5)
        };
        let base = 18.0 / d + (-d / 63.0).exp() * (1.0 - 18.0 / d);
        (base * (1.0 + c * 1.25 * (d / 100.0).powi(3) * (-d / 150.0).exp())).min(1.0)
    }
}

impl PathLoss for UrbanMacro {
    /// LOS: PL1 = 28.0 + 22·log10(d3D) + 20·log10(fc) up to d'_BP, then
    /// PL2 = 28.0 + 40·log10(d3D) + 20·log10(fc) − 9·log10(d'_BP² + (hBS − hUT)²).
    /// NLOS: max(PL_LOS, 13.54 + 39.08·log10(d3D) + 20·log10(fc) − 0.6·(hUT − 1.5)).
    fn path_loss_db(&self, distance_2d_m: f64) -> f64 {
        let g = &self.geometry;
        let d2 = distance_2d_m.max(MIN_DISTANCE_2D_M);
        let los = g.los_db(d2, 28.0, 22.0, 9.0);
        match self.condition {
            LosCondition::Los => los,
            LosCondition::Nlos => {
                let nlos =
                    13.54 + 39.08 * g.distance_3d_m(d2).log10() + 20.0 * g.carrier_ghz.log10()
                        - 0.6 * (g.h_ut_m - 1.5);
                los.max(nlos)
            }
        }
    }
}

/// TR 38.901 UMi-Street Canyon (urban micro): base station below rooftops (10 m).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UrbanMicro {
    geometry: Geometry,
    condition: LosCondition,
}

impl UrbanMicro {
    /// UMi at `carrier_hz` (0.5–100 GHz) with antenna heights `h_bs_m` and `h_ut_m` (1.5–22.5 m).
    pub fn new(
        carrier_hz: f64,
        h_bs_m: f64,
        h_ut_m: f64,
        condition: LosCondition,
    ) -> Result<Self, ChannelError> {
        Ok(UrbanMicro {
            geometry: Geometry::new(carrier_hz, h_bs_m, h_ut_m)?,
            condition,
        })
    }

    /// UMi with the specification's heights: h_BS = 10 m, h_UT = 1.5 m.
    pub fn with_default_heights(
        carrier_hz: f64,
        condition: LosCondition,
    ) -> Result<Self, ChannelError> {
        Self::new(carrier_hz, 10.0, 1.5, condition)
    }

    /// Breakpoint distance d'_BP, metres.
    pub fn breakpoint_distance_m(&self) -> f64 {
        self.geometry.breakpoint_m
    }

    /// Shadow-fading standard deviation, dB: 4 (LOS) or 7.82 (NLOS), Table 7.4.1-1.
    pub fn shadow_fading_std_db(&self) -> f64 {
        match self.condition {
            LosCondition::Los => 4.0,
            LosCondition::Nlos => 7.82,
        }
    }

    /// Shadow-fading decorrelation distance, metres: 10 (LOS) or 13 (NLOS), Table 7.5-6.
    pub fn shadowing_decorrelation_m(&self) -> f64 {
        match self.condition {
            LosCondition::Los => 10.0,
            LosCondition::Nlos => 13.0,
        }
    }

    /// Probability that an outdoor UE at `distance_2d_m` is in LOS (Table 7.4.2-1, UMi-Street
    /// Canyon): 1 up to 18 m, then `18/d + e^(−d/36)·(1 − 18/d)`.
    pub fn los_probability(&self, distance_2d_m: f64) -> f64 {
        let d = distance_2d_m;
        if d <= 18.0 {
            1.0
        } else {
            18.0 / d + (-d / 36.0).exp() * (1.0 - 18.0 / d)
        }
    }
}

impl PathLoss for UrbanMicro {
    /// LOS: PL1 = 32.4 + 21·log10(d3D) + 20·log10(fc) up to d'_BP, then
    /// PL2 = 32.4 + 40·log10(d3D) + 20·log10(fc) − 9.5·log10(d'_BP² + (hBS − hUT)²).
    /// NLOS: max(PL_LOS, 35.3·log10(d3D) + 22.4 + 21.3·log10(fc) − 0.3·(hUT − 1.5)).
    fn path_loss_db(&self, distance_2d_m: f64) -> f64 {
        let g = &self.geometry;
        let d2 = distance_2d_m.max(MIN_DISTANCE_2D_M);
        let los = g.los_db(d2, 32.4, 21.0, 9.5);
        match self.condition {
            LosCondition::Los => los,
            LosCondition::Nlos => {
                let nlos = 35.3 * g.distance_3d_m(d2).log10() + 22.4 + 21.3 * g.carrier_ghz.log10()
                    - 0.3 * (g.h_ut_m - 1.5);
                los.max(nlos)
            }
        }
    }
}

/// Which of the models a cell uses, by the name a scenario file writes (`pathloss = "umi"`);
/// the model's parameters come with it ([`PathLossModel`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(rename_all = "snake_case")
)]
pub enum PathLossKind {
    /// Free space (Friis) at the carrier frequency.
    FreeSpace,
    /// `pl0_db` at `d0_m`, then 10·`exponent` dB per decade.
    LogDistance,
    /// TR 38.901 urban macro (25 m base station), LOS or NLOS by `los`. The default: the
    /// macro-cell deployment of the 3GPP system-level evaluations (TR 38.901 §7.2, Table
    /// 7.2-1; TR 36.873 §6, 3D-UMa), which an LTE cell of one eNB stands for.
    #[default]
    Uma,
    /// TR 38.901 urban micro street canyon (10 m base station), LOS or NLOS by `los`.
    Umi,
}

/// Any of the models above, for configurations that choose one by name.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PathLossModel {
    FreeSpace(FreeSpace),
    LogDistance(LogDistance),
    UrbanMacro(UrbanMacro),
    UrbanMicro(UrbanMicro),
}

impl PathLossModel {
    /// Probability of line of sight at `distance_2d_m` (TR 38.901 Table 7.4.2-1) for the models
    /// that have a LOS condition (UMa, UMi); `None` for the others.
    pub fn los_probability(&self, distance_2d_m: f64) -> Option<f64> {
        match self {
            PathLossModel::UrbanMacro(m) => Some(m.los_probability(distance_2d_m)),
            PathLossModel::UrbanMicro(m) => Some(m.los_probability(distance_2d_m)),
            PathLossModel::FreeSpace(_) | PathLossModel::LogDistance(_) => None,
        }
    }

    /// The same model in `condition` (UMa, UMi); a model without a LOS condition is returned
    /// as it is.
    pub fn with_condition(&self, condition: LosCondition) -> PathLossModel {
        match *self {
            PathLossModel::UrbanMacro(m) => {
                PathLossModel::UrbanMacro(UrbanMacro { condition, ..m })
            }
            PathLossModel::UrbanMicro(m) => {
                PathLossModel::UrbanMicro(UrbanMicro { condition, ..m })
            }
            other => other,
        }
    }
}

impl PathLoss for PathLossModel {
    fn path_loss_db(&self, distance_2d_m: f64) -> f64 {
        match self {
            PathLossModel::FreeSpace(m) => m.path_loss_db(distance_2d_m),
            PathLossModel::LogDistance(m) => m.path_loss_db(distance_2d_m),
            PathLossModel::UrbanMacro(m) => m.path_loss_db(distance_2d_m),
            PathLossModel::UrbanMicro(m) => m.path_loss_db(distance_2d_m),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-3
    }

    #[test]
    fn free_space_hand_computed() {
        // 20·log10(4π · 1000 · 2e9 / 299792458) = 98.4684 dB.
        let fs = FreeSpace::new(2e9).unwrap();
        assert!(
            close(fs.path_loss_db(1000.0), 98.4684),
            "{}",
            fs.path_loss_db(1000.0)
        );
        // Doubling the distance adds 20·log10(2) = 6.0206 dB.
        assert!(close(
            fs.path_loss_db(2000.0) - fs.path_loss_db(1000.0),
            6.0206
        ));
        assert_eq!(fs.path_loss_db(0.0), fs.path_loss_db(1.0));
        assert!(FreeSpace::new(0.0).is_err());
    }

    #[test]
    fn log_distance_hand_computed() {
        // 40 dB at 1 m, n = 3.5: at 100 m, 40 + 35·2 = 110 dB.
        let m = LogDistance::new(40.0, 1.0, 3.5).unwrap();
        assert!(close(m.path_loss_db(100.0), 110.0));
        assert!(close(m.path_loss_db(0.1), 40.0));
        assert!(LogDistance::new(40.0, 0.0, 3.5).is_err());
        assert!(LogDistance::new(40.0, 1.0, 0.5).is_err());
    }

    #[test]
    fn uma_hand_computed() {
        // 3.5 GHz, hBS 25 m, hUT 1.5 m, d2D 100 m: d3D = 102.7241 m, d'BP = 560.39 m,
        // PL1 = 28 + 22·log10(102.7241) + 20·log10(3.5) = 83.1382 dB.
        let los = UrbanMacro::with_default_heights(3.5e9, LosCondition::Los).unwrap();
        assert!(close(los.breakpoint_distance_m(), 560.3877));
        assert!(
            close(los.path_loss_db(100.0), 83.1382),
            "{}",
            los.path_loss_db(100.0)
        );
        // 2 GHz, d2D 1000 m beyond d'BP = 320.22 m:
        // PL2 = 28 + 40·log10(1000.2761) + 20·log10(2) − 9·log10(320.22² + 23.5²) = 108.9063 dB.
        let los2 = UrbanMacro::with_default_heights(2e9, LosCondition::Los).unwrap();
        assert!(
            close(los2.path_loss_db(1000.0), 108.9063),
            "{}",
            los2.path_loss_db(1000.0)
        );
        // NLOS at 2 GHz, 500 m: 13.54 + 39.08·log10(500.5519) + 20·log10(2) = 125.0551 dB.
        let nlos = UrbanMacro::with_default_heights(2e9, LosCondition::Nlos).unwrap();
        assert!(
            close(nlos.path_loss_db(500.0), 125.0551),
            "{}",
            nlos.path_loss_db(500.0)
        );
        // Below 10 m the loss is that of 10 m: 28 + 22·log10(25.5392) + 20·log10(2) = 64.9792.
        assert!(close(los2.path_loss_db(2.0), 64.9792));
        assert_eq!(nlos.shadow_fading_std_db(), 6.0);
        assert_eq!(nlos.shadowing_decorrelation_m(), 50.0);
    }

    #[test]
    fn umi_hand_computed() {
        // 2 GHz, hBS 10 m, hUT 1.5 m: d'BP = 4·9·0.5·2e9/c = 120.08 m.
        let los = UrbanMicro::with_default_heights(2e9, LosCondition::Los).unwrap();
        assert!(close(los.breakpoint_distance_m(), 120.0831));
        // 100 m: 32.4 + 21·log10(100.3606) + 20·log10(2) = 80.4534 dB.
        assert!(
            close(los.path_loss_db(100.0), 80.4534),
            "{}",
            los.path_loss_db(100.0)
        );
        // 400 m: 32.4 + 40·log10(400.0903) + 20·log10(2) − 9.5·log10(120.08² + 8.5²) = 102.9761.
        assert!(
            close(los.path_loss_db(400.0), 102.9761),
            "{}",
            los.path_loss_db(400.0)
        );
        // NLOS 200 m: 35.3·log10(200.1805) + 22.4 + 21.3·log10(2) = 110.0521 dB.
        let nlos = UrbanMicro::with_default_heights(2e9, LosCondition::Nlos).unwrap();
        assert!(
            close(nlos.path_loss_db(200.0), 110.0521),
            "{}",
            nlos.path_loss_db(200.0)
        );
        assert_eq!(nlos.shadow_fading_std_db(), 7.82);
    }

    #[test]
    fn losses_grow_with_distance_and_nlos_is_never_below_los() {
        let models = [
            PathLossModel::UrbanMacro(
                UrbanMacro::with_default_heights(2e9, LosCondition::Los).unwrap(),
            ),
            PathLossModel::UrbanMacro(
                UrbanMacro::with_default_heights(2e9, LosCondition::Nlos).unwrap(),
            ),
            PathLossModel::UrbanMicro(
                UrbanMicro::with_default_heights(2e9, LosCondition::Los).unwrap(),
            ),
            PathLossModel::UrbanMicro(
                UrbanMicro::with_default_heights(2e9, LosCondition::Nlos).unwrap(),
            ),
            PathLossModel::FreeSpace(FreeSpace::new(2e9).unwrap()),
            PathLossModel::LogDistance(LogDistance::new(38.0, 1.0, 3.0).unwrap()),
        ];
        for m in &models {
            let mut prev = f64::NEG_INFINITY;
            for d in (10..5000).step_by(7) {
                let pl = m.path_loss_db(f64::from(d));
                assert!(pl >= prev - 1e-9, "{m:?} at {d} m");
                prev = pl;
            }
        }
        for d in [15.0, 100.0, 1000.0, 4000.0] {
            assert!(models[1].path_loss_db(d) >= models[0].path_loss_db(d));
            assert!(models[3].path_loss_db(d) >= models[2].path_loss_db(d));
        }
    }

    #[test]
    fn los_probabilities() {
        let uma = UrbanMacro::with_default_heights(2e9, LosCondition::Los).unwrap();
        let umi = UrbanMicro::with_default_heights(2e9, LosCondition::Los).unwrap();
        assert_eq!(uma.los_probability(10.0), 1.0);
        // 18/100 + e^(−100/63)·(1 − 0.18) = 0.34767.
        assert!(close(uma.los_probability(100.0), 0.34767));
        // 18/100 + e^(−100/36)·(1 − 0.18) = 0.23098.
        assert!(close(umi.los_probability(100.0), 0.23098));
        let tall = UrbanMacro::new(2e9, 25.0, 20.0, LosCondition::Los).unwrap();
        assert!(tall.los_probability(100.0) > uma.los_probability(100.0));
    }

    #[test]
    fn rejects_out_of_range_parameters() {
        assert!(UrbanMacro::with_default_heights(0.2e9, LosCondition::Los).is_err());
        assert!(UrbanMicro::new(2e9, 10.0, 30.0, LosCondition::Los).is_err());
        let e = UrbanMacro::new(2e9, f64::NAN, 1.5, LosCondition::Los).unwrap_err();
        assert!(
            e.to_string().starts_with("h_bs_m: NaN is out of range"),
            "{e}"
        );
    }
}
