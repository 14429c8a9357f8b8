//! TR 38.901 (V16/V17) §7.4 path loss of the three scenarios an NR millimetre-wave cell is
//! evaluated in — UMi-Street Canyon, UMa and InH-Office — chosen by name, with their LOS
//! probability (§7.4.2, Table 7.4.2-1), shadow-fading standard deviation and validity range
//! (Table 7.4.1-1), and the choice between the full NLOS formula and the table's optional one.
//!
//! UMa and UMi are the models of [`super::pathloss`] ([`UrbanMacro`], [`UrbanMicro`]): this file
//! does not copy their formulas, it adds what they lack — InH-Office, the optional NLOS
//! formulas, the validity range as a check — and one type ([`Tr38901PathLoss`]) that the NR
//! cell configures by scenario name. Every formula takes f_c in GHz and distances in metres,
//! as Table 7.4.1-1 Note 1 normalises them.
//!
//! Simplifications, as in [`super::pathloss`]: the effective environment height h_E of the
//! UMa breakpoint is 1 m (exact for h_UT < 13 m); outdoor UEs only (no O2I penetration loss of
//! §7.4.3); distances outside the validity range are clamped to it by
//! [`Tr38901PathLoss::path_loss_db`] and refused by [`Tr38901PathLoss::check_distance`].

use super::pathloss::{LosCondition, PathLoss, PathLossModel, UrbanMacro, UrbanMicro};
use super::ChannelError;

/// A TR 38.901 §7.2 deployment scenario with a §7.4 path-loss model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tr38901Scenario {
    /// UMi-Street Canyon: base station below rooftops, h_BS = 10 m (Table 7.4.1-1).
    UmiStreetCanyon,
    /// UMa: base station above rooftops, h_BS = 25 m.
    Uma,
    /// InH-Office, mixed office (Table 7.4.2-1's "InH-Mixed office" LOS probability),
    /// h_BS = 3 m (ceiling).
    InhOfficeMixed,
    /// InH-Office, open office (Table 7.4.2-1's "InH-Open office" LOS probability).
    InhOfficeOpen,
}

impl Tr38901Scenario {
    /// Base-station and UE antenna heights of Table 7.4.1-1, metres: UMi 10/1.5, UMa 25/1.5,
    /// InH 3/1 (Table 7.2-2's ceiling-mounted BS and 1 m UE).
    pub fn default_heights_m(self) -> (f64, f64) {
        match self {
            Self::UmiStreetCanyon => (10.0, 1.5),
            Self::Uma => (25.0, 1.5),
            Self::InhOfficeMixed | Self::InhOfficeOpen => (3.0, 1.0),
        }
    }

    /// The correlation distance of the LOS state, metres (Table 7.6.3.1-2): UMi 50, UMa 50,
    /// InH 10. A UE's LOS condition is redrawn once it has moved this far.
    pub fn los_correlation_distance_m(self) -> f64 {
        match self {
            Self::UmiStreetCanyon | Self::Uma => 50.0,
            Self::InhOfficeMixed | Self::InhOfficeOpen => 10.0,
        }
    }

    fn is_indoor(self) -> bool {
        matches!(self, Self::InhOfficeMixed | Self::InhOfficeOpen)
    }
}

/// Which NLOS formula of Table 7.4.1-1 applies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NlosFormula {
    /// `PL_NLOS = max(PL_LOS, PL'_NLOS)` with the scenario's full PL'_NLOS.
    #[default]
    Full,
    /// The table's "optional" single-slope formula `32.4 + 20·log10(f_c) + n·log10(d_3D)`
    /// (n = 31.9 UMi and InH, 30 UMa), with its own, larger σ_SF.
    Optional,
}

/// Where a scenario's formulas hold (Table 7.4.1-1), metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValidityRange {
    /// Which distance the bounds are of: `"d_2D"` (UMi, UMa) or `"d_3D"` (InH).
    pub distance: &'static str,
    pub min_m: f64,
    pub max_m: f64,
}

/// UMi and UMa: 10 m ≤ d_2D ≤ 5 km.
const OUTDOOR_RANGE: ValidityRange = ValidityRange {
    distance: "d_2D",
    min_m: 10.0,
    max_m: 5000.0,
};

/// InH-Office: 1 m ≤ d_3D ≤ 150 m.
const INDOOR_RANGE: ValidityRange = ValidityRange {
    distance: "d_3D",
    min_m: 1.0,
    max_m: 150.0,
};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Model {
    Umi(UrbanMicro),
    Uma(UrbanMacro),
    Inh,
}

/// TR 38.901 §7.4.1 path loss of one scenario in one LOS condition at one carrier.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tr38901PathLoss {
    scenario: Tr38901Scenario,
    condition: LosCondition,
    nlos_formula: NlosFormula,
    model: Model,
    carrier_ghz: f64,
    h_bs_m: f64,
    h_ut_m: f64,
}

impl Tr38901PathLoss {
    /// `scenario` at `carrier_hz` (0.5–100 GHz, §7.4.1's range) with antenna heights `h_bs_m`
    /// and `h_ut_m`; UMi/UMa check the heights as [`UrbanMicro::new`] does, InH takes
    /// 1.5 m ≥ h_UT ≥ 0.5 m under a 1.5–10 m ceiling.
    pub fn new(
        scenario: Tr38901Scenario,
        carrier_hz: f64,
        h_bs_m: f64,
        h_ut_m: f64,
        condition: LosCondition,
        nlos_formula: NlosFormula,
    ) -> Result<Self, ChannelError> {
        let carrier_hz = ChannelError::check(
            "carrier_hz",
            carrier_hz,
            0.5e9,
            100e9,
            "a carrier in [0.5e9, 100e9] Hz, the range of TR 38.901 §7.4.1",
        )?;
        let model = match scenario {
            Tr38901Scenario::UmiStreetCanyon => {
                Model::Umi(UrbanMicro::new(carrier_hz, h_bs_m, h_ut_m, condition)?)
            }
            Tr38901Scenario::Uma => {
                Model::Uma(UrbanMacro::new(carrier_hz, h_bs_m, h_ut_m, condition)?)
            }
            Tr38901Scenario::InhOfficeMixed | Tr38901Scenario::InhOfficeOpen => {
                ChannelError::check(
                    "h_bs_m",
                    h_bs_m,
                    1.5,
                    10.0,
                    "an indoor (ceiling) base-station height in [1.5, 10] m",
                )?;
                ChannelError::check(
                    "h_ut_m",
                    h_ut_m,
                    0.5,
                    1.5,
                    "an indoor UE height in [0.5, 1.5] m",
                )?;
                Model::Inh
            }
        };
        Ok(Tr38901PathLoss {
            scenario,
            condition,
            nlos_formula,
            model,
            carrier_ghz: carrier_hz / 1e9,
            h_bs_m,
            h_ut_m,
        })
    }

    /// [`Tr38901PathLoss::new`] with the scenario's heights ([`Tr38901Scenario::default_heights_m`]).
    pub fn with_default_heights(
        scenario: Tr38901Scenario,
        carrier_hz: f64,
        condition: LosCondition,
        nlos_formula: NlosFormula,
    ) -> Result<Self, ChannelError> {
        let (h_bs_m, h_ut_m) = scenario.default_heights_m();
        Self::new(
            scenario,
            carrier_hz,
            h_bs_m,
            h_ut_m,
            condition,
            nlos_formula,
        )
    }

    pub fn scenario(&self) -> Tr38901Scenario {
        self.scenario
    }

    pub fn condition(&self) -> LosCondition {
        self.condition
    }

    /// Base-station and UE antenna heights, metres.
    pub fn heights_m(&self) -> (f64, f64) {
        (self.h_bs_m, self.h_ut_m)
    }

    /// The same model in `condition`.
    pub fn with_condition(&self, condition: LosCondition) -> Self {
        // The urban models switch through `PathLossModel`, which owns their fields.
        let model = match self.model {
            Model::Umi(m) => match PathLossModel::UrbanMicro(m).with_condition(condition) {
                PathLossModel::UrbanMicro(n) => Model::Umi(n),
                _ => unreachable!("with_condition keeps the model"),
            },
            Model::Uma(m) => match PathLossModel::UrbanMacro(m).with_condition(condition) {
                PathLossModel::UrbanMacro(n) => Model::Uma(n),
                _ => unreachable!("with_condition keeps the model"),
            },
            Model::Inh => Model::Inh,
        };
        Tr38901PathLoss {
            condition,
            model,
            ..*self
        }
    }

    /// Breakpoint distance d'_BP = 4 h'_BS h'_UT f_c / c, metres (Table 7.4.1-1 Note 1); InH's
    /// LOS law has a single slope and no breakpoint.
    pub fn breakpoint_distance_m(&self) -> Option<f64> {
        match self.model {
            Model::Umi(m) => Some(m.breakpoint_distance_m()),
            Model::Uma(m) => Some(m.breakpoint_distance_m()),
            Model::Inh => None,
        }
    }

    /// The distances the formulas hold for (Table 7.4.1-1).
    pub fn validity_range(&self) -> ValidityRange {
        if self.scenario.is_indoor() {
            INDOOR_RANGE
        } else {
            OUTDOOR_RANGE
        }
    }

    /// Refuses a 2D distance whose d_2D (UMi, UMa) or d_3D (InH) is outside the validity range.
    pub fn check_distance(&self, distance_2d_m: f64) -> Result<f64, ChannelError> {
        let range = self.validity_range();
        let d = self.range_distance_m(distance_2d_m);
        ChannelError::check(
            "distance_m",
            d,
            range.min_m,
            range.max_m,
            if self.scenario.is_indoor() {
                "a 3D distance in [1, 150] m (TR 38.901 Table 7.4.1-1, InH-Office)"
            } else {
                "a 2D distance in [10, 5000] m (TR 38.901 Table 7.4.1-1, UMi/UMa)"
            },
        )
        .map(|_| distance_2d_m)
    }

    fn range_distance_m(&self, distance_2d_m: f64) -> f64 {
        if self.scenario.is_indoor() {
            self.distance_3d_m(distance_2d_m)
        } else {
            distance_2d_m
        }
    }

    fn distance_3d_m(&self, distance_2d_m: f64) -> f64 {
        distance_2d_m.hypot(self.h_bs_m - self.h_ut_m)
    }

    /// Shadow-fading standard deviation σ_SF, dB (Table 7.4.1-1): LOS UMi 4, UMa 4, InH 3;
    /// NLOS UMi 7.82, UMa 6, InH 8.03; the optional NLOS formulas UMi 8.2, UMa 7.8, InH 8.29.
    pub fn shadow_fading_std_db(&self) -> f64 {
        use LosCondition::{Los, Nlos};
        use Tr38901Scenario::*;
        match (self.scenario, self.condition, self.nlos_formula) {
            (UmiStreetCanyon | Uma, Los, _) => 4.0,
            (InhOfficeMixed | InhOfficeOpen, Los, _) => 3.0,
            (UmiStreetCanyon, Nlos, NlosFormula::Full) => 7.82,
            (UmiStreetCanyon, Nlos, NlosFormula::Optional) => 8.2,
            (Uma, Nlos, NlosFormula::Full) => 6.0,
            (Uma, Nlos, NlosFormula::Optional) => 7.8,
            (InhOfficeMixed | InhOfficeOpen, Nlos, NlosFormula::Full) => 8.03,
            (InhOfficeMixed | InhOfficeOpen, Nlos, NlosFormula::Optional) => 8.29,
        }
    }

    /// Probability that a UE at `distance_2d_m` is in LOS, Table 7.4.2-1. UMi and UMa as in
    /// [`UrbanMicro::los_probability`] and [`UrbanMacro::los_probability`]; InH-Mixed office:
    /// 1 up to 1.2 m, `e^(−(d − 1.2)/4.7)` up to 6.5 m, then `0.32·e^(−(d − 6.5)/32.6)`;
    /// InH-Open office: 1 up to 5 m, `e^(−(d − 5)/70.8)` up to 49 m, then
    /// `0.54·e^(−(d − 49)/211.7)`.
    pub fn los_probability(&self, distance_2d_m: f64) -> f64 {
        let d = distance_2d_m;
        match (self.scenario, self.model) {
            (_, Model::Umi(m)) => m.los_probability(d),
            (_, Model::Uma(m)) => m.los_probability(d),
            (Tr38901Scenario::InhOfficeMixed, _) => {
                if d <= 1.2 {
                    1.0
                } else if d < 6.5 {
                    (-(d - 1.2) / 4.7).exp()
                } else {
                    0.32 * (-(d - 6.5) / 32.6).exp()
                }
            }
            _ => {
                if d <= 5.0 {
                    1.0
                } else if d <= 49.0 {
                    (-(d - 5.0) / 70.8).exp()
                } else {
                    0.54 * (-(d - 49.0) / 211.7).exp()
                }
            }
        }
    }

    /// InH-Office LOS: `32.4 + 17.3·log10(d_3D) + 20·log10(f_c)`.
    fn inh_los_db(&self, d3d_m: f64) -> f64 {
        32.4 + 17.3 * d3d_m.log10() + 20.0 * self.carrier_ghz.log10()
    }

    /// The optional NLOS formula `32.4 + 20·log10(f_c) + n·log10(d_3D)`.
    fn optional_nlos_db(&self, d3d_m: f64) -> f64 {
        let n = match self.scenario {
            Tr38901Scenario::Uma => 30.0,
            _ => 31.9,
        };
        32.4 + 20.0 * self.carrier_ghz.log10() + n * d3d_m.log10()
    }
}

impl PathLoss for Tr38901PathLoss {
    /// The loss of Table 7.4.1-1 at `distance_2d_m`, clamped to the validity range (InH's
    /// range is of d_3D; above it the formulas are extrapolated, below it held).
    fn path_loss_db(&self, distance_2d_m: f64) -> f64 {
        let range = self.validity_range();
        if self.condition == LosCondition::Nlos && self.nlos_formula == NlosFormula::Optional {
            let d2 = if self.scenario.is_indoor() {
                distance_2d_m
            } else {
                distance_2d_m.max(range.min_m)
            };
            return self.optional_nlos_db(self.distance_3d_m(d2).max(range.min_m));
        }
        match self.model {
            Model::Umi(m) => m.path_loss_db(distance_2d_m),
            Model::Uma(m) => m.path_loss_db(distance_2d_m),
            Model::Inh => {
                let d3 = self.distance_3d_m(distance_2d_m).max(range.min_m);
                let los = self.inh_los_db(d3);
                match self.condition {
                    LosCondition::Los => los,
                    // PL'_InH-NLOS = 38.3·log10(d_3D) + 17.30 + 24.9·log10(f_c).
                    LosCondition::Nlos => {
                        los.max(38.3 * d3.log10() + 17.30 + 24.9 * self.carrier_ghz.log10())
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use LosCondition::{Los, Nlos};
    use Tr38901Scenario::*;

    fn model(s: Tr38901Scenario, fc: f64, c: LosCondition, f: NlosFormula) -> Tr38901PathLoss {
        Tr38901PathLoss::with_default_heights(s, fc, c, f).unwrap()
    }

    #[track_caller]
    fn assert_close(got: f64, want: f64) {
        assert!((got - want).abs() < 1e-3, "got {got}, want {want}");
    }

    // Every expected value below is Table 7.4.1-1's formula evaluated by hand (to 4
    // decimals), with d_3D = sqrt(d_2D² + (h_BS − h_UT)²).

    #[test]
    fn umi_at_28_and_39_ghz() {
        // 28 GHz: d'_BP = 4·9·0.5·28e9/c = 1681.16 m, so 100 m and 1000 m are on PL1.
        let los = model(UmiStreetCanyon, 28e9, Los, NlosFormula::Full);
        assert_close(los.breakpoint_distance_m().unwrap(), 1681.1630);
        // 100 m: d_3D = 100.3606; 32.4 + 21·log10(100.3606) + 20·log10(28) = 103.3760.
        assert_close(los.path_loss_db(100.0), 103.3760);
        // NLOS 100 m: 35.3·log10(100.3606) + 22.4 + 21.3·log10(28) = 123.8796 (> LOS).
        let nlos = model(UmiStreetCanyon, 28e9, Nlos, NlosFormula::Full);
        assert_close(nlos.path_loss_db(100.0), 123.8796);
        // Optional 100 m: 32.4 + 20·log10(28) + 31.9·log10(100.3606) = 125.1930.
        let opt = model(UmiStreetCanyon, 28e9, Nlos, NlosFormula::Optional);
        assert_close(opt.path_loss_db(100.0), 125.1930);
        assert_eq!(opt.shadow_fading_std_db(), 8.2);
        // 39 GHz, 2500 m, beyond d'_BP = 2341.62 m: d_3D = 2500.0145;
        // 32.4 + 40·log10(2500.0145) + 20·log10(39) − 9.5·log10(2341.62² + 8.5²) = 136.1181.
        let los39 = model(UmiStreetCanyon, 39e9, Los, NlosFormula::Full);
        assert_close(los39.breakpoint_distance_m().unwrap(), 2341.6199);
        assert_close(los39.path_loss_db(2500.0), 136.1181);
    }

    #[test]
    fn uma_at_28_and_39_ghz() {
        // 28 GHz, 200 m: d_3D = 201.3759; 28 + 22·log10(201.3759) + 20·log10(28) = 107.6313.
        let los = model(Uma, 28e9, Los, NlosFormula::Full);
        assert_close(los.path_loss_db(200.0), 107.6313);
        // NLOS 200 m: 13.54 + 39.08·log10(201.3759) + 20·log10(28) = 132.5238.
        let nlos = model(Uma, 28e9, Nlos, NlosFormula::Full);
        assert_close(nlos.path_loss_db(200.0), 132.5238);
        // Optional 200 m: 32.4 + 20·log10(28) + 30·log10(201.3759) = 130.4634, σ 7.8 dB.
        let opt = model(Uma, 28e9, Nlos, NlosFormula::Optional);
        assert_close(opt.path_loss_db(200.0), 130.4634);
        assert_eq!(opt.shadow_fading_std_db(), 7.8);
        // 39 GHz, 500 m: d_3D = 500.5519; 28 + 22·log10(500.5519) + 20·log10(39) = 119.2092.
        let los39 = model(Uma, 39e9, Los, NlosFormula::Full);
        assert_close(los39.path_loss_db(500.0), 119.2092);
    }

    #[test]
    fn inh_office_at_28_and_39_ghz() {
        // h_BS 3 m, h_UT 1 m. 28 GHz, 20 m: d_3D = 20.0998;
        // LOS 32.4 + 17.3·log10(20.0998) + 20·log10(28) = 83.8884.
        let los = model(InhOfficeMixed, 28e9, Los, NlosFormula::Full);
        assert_close(los.path_loss_db(20.0), 83.8884);
        assert_eq!(los.breakpoint_distance_m(), None);
        assert_eq!(los.shadow_fading_std_db(), 3.0);
        // NLOS: 38.3·log10(20.0998) + 17.30 + 24.9·log10(28) = 103.2464.
        let nlos = model(InhOfficeOpen, 28e9, Nlos, NlosFormula::Full);
        assert_close(nlos.path_loss_db(20.0), 103.2464);
        assert_eq!(nlos.shadow_fading_std_db(), 8.03);
        // 39 GHz, 50 m: d_3D = 50.0400; optional 32.4 + 20·log10(39) + 31.9·log10(50.04)
        // = 118.4295.
        let opt = model(InhOfficeOpen, 39e9, Nlos, NlosFormula::Optional);
        assert_close(opt.path_loss_db(50.0), 118.4295);
        assert_eq!(opt.shadow_fading_std_db(), 8.29);
        // 39 GHz, 50 m, LOS: 32.4 + 17.3·log10(50.04) + 20·log10(39) = 93.6195.
        assert_close(
            model(InhOfficeMixed, 39e9, Los, NlosFormula::Full).path_loss_db(50.0),
            93.6195,
        );
    }

    #[test]
    fn nlos_is_never_below_los_and_losses_grow() {
        for s in [UmiStreetCanyon, Uma, InhOfficeMixed] {
            for fc in [28e9, 39e9] {
                let los = model(s, fc, Los, NlosFormula::Full);
                let nlos = model(s, fc, Nlos, NlosFormula::Full);
                let mut prev = 0.0;
                for d in (1..150).map(f64::from) {
                    let pl = nlos.path_loss_db(d);
                    assert!(pl >= los.path_loss_db(d), "{s:?} {fc} {d}");
                    assert!(pl >= prev - 1e-9);
                    prev = pl;
                }
            }
        }
    }

    #[test]
    fn los_probabilities_by_hand() {
        let mixed = model(InhOfficeMixed, 28e9, Los, NlosFormula::Full);
        assert_eq!(mixed.los_probability(1.0), 1.0);
        // e^(−(4 − 1.2)/4.7) = 0.55112; 0.32·e^(−(20 − 6.5)/32.6) = 0.21150.
        assert_close(mixed.los_probability(4.0), 0.55112);
        assert_close(mixed.los_probability(20.0), 0.21150);
        let open = model(InhOfficeOpen, 28e9, Los, NlosFormula::Full);
        // e^(−(30 − 5)/70.8) = 0.70250; 0.54·e^(−(100 − 49)/211.7) = 0.42439.
        assert_close(open.los_probability(30.0), 0.70250);
        assert_close(open.los_probability(100.0), 0.42439);
        // UMi/UMa are those of pathloss.rs: 18/100 + e^(−100/36)·0.82 = 0.23098.
        assert_close(
            model(UmiStreetCanyon, 28e9, Los, NlosFormula::Full).los_probability(100.0),
            0.23098,
        );
        assert_close(
            model(Uma, 39e9, Los, NlosFormula::Full).los_probability(100.0),
            0.34767,
        );
    }

    #[test]
    fn validity_ranges_are_checked() {
        let umi = model(UmiStreetCanyon, 28e9, Los, NlosFormula::Full);
        assert!(umi.check_distance(9.0).is_err());
        assert!(umi.check_distance(5001.0).is_err());
        assert_eq!(umi.check_distance(10.0), Ok(10.0));
        let inh = model(InhOfficeOpen, 28e9, Los, NlosFormula::Full);
        // d_2D 0 m is d_3D 2 m: in range; d_2D 150 m is d_3D 150.013 m: out.
        assert!(inh.check_distance(0.0).is_ok());
        let e = inh.check_distance(150.0).unwrap_err();
        assert!(e.to_string().starts_with("distance_m: 150.013"), "{e}");
        // Below the range the loss is held at the range's end.
        assert_eq!(umi.path_loss_db(2.0), umi.path_loss_db(10.0));
        assert!(Tr38901PathLoss::with_default_heights(Uma, 101e9, Los, NlosFormula::Full).is_err());
        assert!(
            Tr38901PathLoss::new(InhOfficeOpen, 28e9, 3.0, 2.0, Los, NlosFormula::Full).is_err()
        );
    }

    #[test]
    fn with_condition_switches_the_formula() {
        let los = model(Uma, 28e9, Los, NlosFormula::Full);
        let nlos = los.with_condition(Nlos);
        assert_eq!(nlos, model(Uma, 28e9, Nlos, NlosFormula::Full));
        assert_eq!(nlos.with_condition(Los), los);
    }
}
