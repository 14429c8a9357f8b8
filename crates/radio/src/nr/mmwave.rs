//! The mmWave channel of one UE, as the NR cell will query it: TR 38.901 §7.4 path loss of a
//! scenario ([`Tr38901PathLoss`]) in a LOS condition drawn from Table 7.4.2-1, log-normal
//! shadowing with the table's σ_SF, dynamic blockage ([`BlockerField`], model B, or
//! [`MarkovBlockage`]) and the beam recovery that follows each blockage transition
//! ([`BeamTracker`]) — or, instead of all of these, a measured [`SinrTrace`] ([`MmWaveLink`]).
//!
//! Random streams, under the UE's prefix (for example `cell/NAME/ue/NODE`): `/los` (the LOS
//! condition), `/shadowing`, `/blockers` (model B's field) and `/blockage` (the Markov
//! process); each component draws only from its own, so turning blockage on does not change
//! the shadowing a UE sees.
//!
//! Call-order contract: [`MmWaveChannel::sample`] takes non-decreasing times. Model B's
//! blockage transitions (which start a beam recovery) are found at the query times, on its
//! 1 ms grid ([`MODEL_B_STEP_NS`]), so a cell querying once per slot finds them within a
//! millisecond and a slot.

use celltcp_engine::RngStream;

use super::beam::{BeamConfig, BeamState, BeamTracker};
use super::blockage::{BlockageLoss, BlockageModelBConfig, BlockerField, LinkEnd, Neighbourhood};
use super::blockage_markov::{MarkovBlockage, MarkovBlockageConfig};
use super::sinr_trace::SinrTrace;
use super::NrError;
use crate::channel::{
    ChannelError, LosCondition, NlosFormula, PathLoss, Position, Shadowing, Tr38901PathLoss,
    Tr38901Scenario,
};

/// Which blockage acts on the direct path.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum BlockageConfig {
    /// None: the path loss and shadowing alone.
    #[default]
    None,
    /// TR 38.901 §7.6.4.2 model B: moving screens.
    ModelB(BlockageModelBConfig),
    /// The two-state Markov process.
    Markov(MarkovBlockageConfig),
}

/// How the UE's LOS condition is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum LosMode {
    /// Drawn from the scenario's LOS probability (Table 7.4.2-1) at the UE's distance, again
    /// each time the UE has moved the LOS correlation distance (Table 7.6.3.1-2) from where it
    /// was last drawn.
    #[default]
    Drawn,
    /// Held at one condition.
    Fixed(LosCondition),
}

/// Configuration of [`MmWaveChannel`]; the defaults are TR 38.901's UMi-Street Canyon at
/// 28 GHz with the scenario's heights (Table 7.4.1-1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MmWaveChannelConfig {
    pub scenario: Tr38901Scenario,
    /// Carrier, Hz.
    pub carrier_hz: f64,
    /// (h_BS, h_UT), metres; `None`: [`Tr38901Scenario::default_heights_m`].
    pub heights_m: Option<(f64, f64)>,
    pub nlos_formula: NlosFormula,
    pub los: LosMode,
    /// Log-normal shadowing with σ_SF of Table 7.4.1-1 and the decorrelation distance of
    /// Table 7.5-6.
    pub shadowing: bool,
    pub blockage: BlockageConfig,
    pub beam: BeamConfig,
}

impl Default for MmWaveChannelConfig {
    fn default() -> Self {
        MmWaveChannelConfig {
            scenario: Tr38901Scenario::UmiStreetCanyon,
            carrier_hz: 28e9,
            heights_m: None,
            nlos_formula: NlosFormula::Full,
            los: LosMode::Drawn,
            shadowing: true,
            blockage: BlockageConfig::None,
            beam: BeamConfig::default(),
        }
    }
}

/// Shadow-fading decorrelation distance, metres (TR 38.901 Table 7.5-6): UMi 10 (LOS) / 13
/// (NLOS), UMa 37 / 50, InH-Office 10 / 6.
fn shadowing_decorrelation_m(scenario: Tr38901Scenario, condition: LosCondition) -> f64 {
    use LosCondition::{Los, Nlos};
    match (scenario, condition) {
        (Tr38901Scenario::UmiStreetCanyon, Los) => 10.0,
        (Tr38901Scenario::UmiStreetCanyon, Nlos) => 13.0,
        (Tr38901Scenario::Uma, Los) => 37.0,
        (Tr38901Scenario::Uma, Nlos) => 50.0,
        (_, Los) => 10.0,
        (_, Nlos) => 6.0,
    }
}

impl From<ChannelError> for NrError {
    fn from(e: ChannelError) -> Self {
        match e {
            ChannelError::OutOfRange {
                param,
                value,
                expected,
            } => NrError::Param {
                param,
                value,
                expected,
            },
            ChannelError::NoSuchCell { index, .. } => NrError::Param {
                param: "serving",
                value: index as f64,
                expected: "a cell index in range",
            },
        }
    }
}

/// What the channel gives at one time, every term in dB.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MmWaveSample {
    pub condition: LosCondition,
    pub path_loss_db: f64,
    /// Shadow fading, dB (positive: extra loss); 0 with shadowing off.
    pub shadowing_db: f64,
    /// Blockage loss of the direct path, dB.
    pub blockage_db: f64,
    /// Whether the blockage model has the direct path blocked.
    pub blocked: bool,
    pub beam: BeamState,
    /// Loss while the beam recovers, dB; infinite in outage.
    pub beam_loss_db: f64,
}

impl MmWaveSample {
    /// Total loss between the antennas, dB (infinite in a beam outage).
    pub fn total_loss_db(&self) -> f64 {
        self.path_loss_db + self.shadowing_db + self.blockage_db + self.beam_loss_db
    }

    /// SINR, dB, of a link of transmit power `tx_power_dbm`, total antenna (beamforming)
    /// gain `antenna_gain_db`, and noise plus interference `noise_dbm`; −∞ in outage.
    pub fn sinr_db(&self, tx_power_dbm: f64, antenna_gain_db: f64, noise_dbm: f64) -> f64 {
        tx_power_dbm + antenna_gain_db - self.total_loss_db() - noise_dbm
    }
}

enum Blockage {
    None,
    ModelB(Box<ModelB>),
    Markov(MarkovBlockage),
}

/// Model B's grid of evaluation times, ns: the field is evaluated at the 1 ms boundary at or
/// before each query and held until the next (a person at 3 km/h moves 0.83 mm in it, a car at
/// 30 km/h 8.3 mm), so that a cell of 125 µs slots pays one evaluation per millisecond (of the
/// screens near the path, [`BlockerField::loss_near`]), and the value at a time depends on that
/// time only, not on which slots queried.
pub const MODEL_B_STEP_NS: u64 = 1_000_000;

/// Model B's field with its candidate screens and the last evaluation.
struct ModelB {
    field: BlockerField,
    near: Neighbourhood,
    /// (grid time, UE position, loss) of the last evaluation.
    last: Option<(u64, Position, BlockageLoss)>,
}

impl ModelB {
    fn loss(&mut self, now_ns: u64, bs: LinkEnd, ue: LinkEnd) -> BlockageLoss {
        let grid_ns = now_ns - now_ns % MODEL_B_STEP_NS;
        match self.last {
            Some((t, p, loss)) if t == grid_ns && p == ue.position => loss,
            _ => {
                let loss = self.field.loss_near(grid_ns, bs, ue, &mut self.near);
                self.last = Some((grid_ns, ue.position, loss));
                loss
            }
        }
    }
}

/// The modelled mmWave channel of one UE (module documentation).
pub struct MmWaveChannel {
    bs: Position,
    los_mode: LosMode,
    path_loss: Tr38901PathLoss,
    rng_los: RngStream,
    /// Where the LOS condition was last drawn.
    los_anchor: Option<Position>,
    shadowing: Option<(Shadowing, RngStream)>,
    blockage: Blockage,
    beam: BeamTracker,
    was_blocked: Option<bool>,
}

impl MmWaveChannel {
    /// The channel from a base station at `bs` to one UE, its streams under `rng_prefix`.
    pub fn new(
        config: &MmWaveChannelConfig,
        bs: Position,
        seed: u64,
        run: u64,
        rng_prefix: &str,
    ) -> Result<Self, NrError> {
        let (h_bs_m, h_ut_m) = config
            .heights_m
            .unwrap_or(config.scenario.default_heights_m());
        let initial = match config.los {
            LosMode::Fixed(c) => c,
            LosMode::Drawn => LosCondition::Los,
        };
        let path_loss = Tr38901PathLoss::new(
            config.scenario,
            config.carrier_hz,
            h_bs_m,
            h_ut_m,
            initial,
            config.nlos_formula,
        )?;
        let stream = |name: &str| RngStream::new(seed, run, &format!("{rng_prefix}/{name}"));
        let shadowing = if config.shadowing {
            Some((Self::shadowing_for(&path_loss)?, stream("shadowing")))
        } else {
            None
        };
        let blockage = match config.blockage {
            BlockageConfig::None => Blockage::None,
            BlockageConfig::ModelB(b) => Blockage::ModelB(Box::new(ModelB {
                field: BlockerField::new(b, config.carrier_hz, &mut stream("blockers"))?,
                near: Neighbourhood::default(),
                last: None,
            })),
            BlockageConfig::Markov(m) => {
                Blockage::Markov(MarkovBlockage::new(m, stream("blockage"))?)
            }
        };
        Ok(MmWaveChannel {
            bs,
            los_mode: config.los,
            path_loss,
            rng_los: stream("los"),
            los_anchor: None,
            shadowing,
            blockage,
            beam: BeamTracker::new(config.beam)?,
            was_blocked: None,
        })
    }

    fn shadowing_for(path_loss: &Tr38901PathLoss) -> Result<Shadowing, NrError> {
        Ok(Shadowing::new(
            path_loss.shadow_fading_std_db(),
            shadowing_decorrelation_m(path_loss.scenario(), path_loss.condition()),
        )?)
    }

    pub fn path_loss_model(&self) -> &Tr38901PathLoss {
        &self.path_loss
    }

    /// Redraws the LOS condition when the UE has moved the correlation distance.
    fn update_condition(&mut self, ue: Position) -> Result<(), NrError> {
        if self.los_mode != LosMode::Drawn {
            return Ok(());
        }
        let corr = self.path_loss.scenario().los_correlation_distance_m();
        if self.los_anchor.is_some_and(|a| a.distance_m(ue) < corr) {
            return Ok(());
        }
        self.los_anchor = Some(ue);
        let p = self.path_loss.los_probability(self.bs.distance_m(ue));
        let condition = if self.rng_los.bernoulli(p) {
            LosCondition::Los
        } else {
            LosCondition::Nlos
        };
        if condition != self.path_loss.condition() {
            self.path_loss = self.path_loss.with_condition(condition);
            if let Some((s, _)) = &mut self.shadowing {
                *s = Self::shadowing_for(&self.path_loss)?;
            }
        }
        Ok(())
    }

    /// The channel at `now_ns` for a UE at `ue`.
    ///
    /// # Panics
    /// If `now_ns` is earlier than a previous query (Markov blockage's call-order contract).
    pub fn sample(&mut self, now_ns: u64, ue: Position) -> MmWaveSample {
        self.update_condition(ue)
            .expect("the shadowing parameters come from the tables");
        let d = self.bs.distance_m(ue);
        let path_loss_db = self.path_loss.path_loss_db(d);
        let shadowing_db = match &mut self.shadowing {
            Some((s, rng)) => s.update(ue, rng),
            None => 0.0,
        };
        let (h_bs_m, h_ut_m) = self.path_loss.heights_m();
        let (blockage_db, blocked) = match &mut self.blockage {
            Blockage::None => (0.0, false),
            Blockage::Markov(m) => {
                let blocked = m.state_at(now_ns).blocked;
                (m.loss_db(now_ns), blocked)
            }
            Blockage::ModelB(model_b) => {
                let loss = model_b.loss(
                    now_ns,
                    LinkEnd {
                        position: self.bs,
                        height_m: h_bs_m,
                    },
                    LinkEnd {
                        position: ue,
                        height_m: h_ut_m,
                    },
                );
                (loss.loss_db, loss.blocked)
            }
        };
        if self.was_blocked.is_some_and(|was| was != blocked) {
            self.beam.transition(now_ns);
        }
        self.was_blocked = Some(blocked);
        MmWaveSample {
            condition: self.path_loss.condition(),
            path_loss_db,
            shadowing_db,
            blockage_db,
            blocked,
            beam: self.beam.state_at(now_ns),
            beam_loss_db: self.beam.loss_db(now_ns),
        }
    }
}

/// The one type an NR cell queries for a UE's SINR: the modelled channel, or a trace.
pub enum MmWaveLink {
    /// Boxed: the channel is large beside a trace's two slices.
    Modelled(Box<MmWaveChannel>),
    /// A measured SINR series: it already holds the path loss, blockage and beam effects of
    /// the run it was measured in, so none is added.
    Trace(SinrTrace),
}

impl MmWaveLink {
    /// SINR at `now_ns` of a UE at `ue`, dB (−∞ in a beam outage); `tx_power_dbm`,
    /// `antenna_gain_db` and `noise_dbm` as in [`MmWaveSample::sinr_db`], unused by a trace.
    pub fn sinr_db(
        &mut self,
        now_ns: u64,
        ue: Position,
        tx_power_dbm: f64,
        antenna_gain_db: f64,
        noise_dbm: f64,
    ) -> f64 {
        match self {
            MmWaveLink::Modelled(c) => {
                c.sample(now_ns, ue)
                    .sinr_db(tx_power_dbm, antenna_gain_db, noise_dbm)
            }
            MmWaveLink::Trace(t) => t.sinr_db_at(now_ns),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nr::beam::BeamRecovery;
    use crate::nr::sinr_trace::SinrInterpolation;

    fn channel(config: MmWaveChannelConfig) -> MmWaveChannel {
        MmWaveChannel::new(&config, Position::new(0.0, 0.0), 3, 0, "cell/0/ue/1").unwrap()
    }

    #[test]
    fn fixed_los_without_shadowing_is_the_table_formula() {
        let mut c = channel(MmWaveChannelConfig {
            los: LosMode::Fixed(LosCondition::Los),
            shadowing: false,
            ..MmWaveChannelConfig::default()
        });
        let s = c.sample(0, Position::new(100.0, 0.0));
        // UMi LOS at 28 GHz, 100 m (channel::tr38901's hand value).
        assert!((s.path_loss_db - 103.3760).abs() < 1e-3, "{s:?}");
        assert_eq!(s.total_loss_db(), s.path_loss_db);
        assert_eq!(
            s.sinr_db(30.0, 20.0, -90.0),
            30.0 + 20.0 - s.path_loss_db + 90.0
        );
    }

    #[test]
    fn drawn_los_follows_table_7_4_2_1() {
        // Many UEs at 100 m in UMi: P(LOS) = 0.23098.
        let n = 4000;
        let los = (0..n)
            .filter(|i| {
                let mut c = MmWaveChannel::new(
                    &MmWaveChannelConfig::default(),
                    Position::new(0.0, 0.0),
                    1,
                    0,
                    &format!("cell/0/ue/{i}"),
                )
                .unwrap();
                c.sample(0, Position::new(100.0, 0.0)).condition == LosCondition::Los
            })
            .count();
        let p = los as f64 / f64::from(n);
        // Binomial σ = sqrt(0.231·0.769/4000) = 0.0067; 4σ.
        assert!((p - 0.23098).abs() < 0.027, "{p}");
    }

    #[test]
    fn markov_blockage_starts_a_beam_recovery() {
        let mut c = channel(MmWaveChannelConfig {
            los: LosMode::Fixed(LosCondition::Los),
            shadowing: false,
            blockage: BlockageConfig::Markov(MarkovBlockageConfig {
                mean_clear_ns: 100_000_000,
                mean_blocked_ns: 100_000_000,
                blocked_loss_db: 25.0,
            }),
            beam: BeamConfig {
                recovery_ns: 5_000_000,
                during_recovery: BeamRecovery::Outage,
            },
            ..MmWaveChannelConfig::default()
        });
        let ue = Position::new(50.0, 0.0);
        let mut prev = c.sample(0, ue);
        let mut transitions = 0;
        for t in (1..20_000u64).map(|k| k * 125_000) {
            let s = c.sample(t, ue);
            assert_eq!(s.blockage_db, if s.blocked { 25.0 } else { 0.0 });
            if s.blocked != prev.blocked {
                transitions += 1;
                assert_eq!(
                    s.beam,
                    BeamState::Recovering {
                        until_ns: t + 5_000_000
                    }
                );
                assert_eq!(s.total_loss_db(), f64::INFINITY);
            }
            prev = s;
        }
        // 2.5 s of mean sojourns 0.1 s: about 25 transitions.
        assert!(transitions > 10, "{transitions}");
    }

    #[test]
    fn model_b_blockage_reaches_the_sample() {
        let blockers = BlockageModelBConfig {
            blocker: crate::nr::blockage::BlockerKind::HUMAN,
            density_per_m2: 0.5,
            area_min: Position::new(-5.0, -10.0),
            area_max: Position::new(45.0, 10.0),
        };
        let mut c = channel(MmWaveChannelConfig {
            scenario: Tr38901Scenario::InhOfficeOpen,
            los: LosMode::Fixed(LosCondition::Los),
            shadowing: false,
            blockage: BlockageConfig::ModelB(blockers),
            beam: BeamConfig {
                recovery_ns: 10_000_000,
                during_recovery: BeamRecovery::ReducedGain { loss_db: 6.0 },
            },
            ..MmWaveChannelConfig::default()
        });
        let ue = Position::new(40.0, 0.0);
        let samples: Vec<_> = (0..2000u64).map(|k| c.sample(k * 5_000_000, ue)).collect();
        let blocked = samples.iter().filter(|s| s.blocked).count();
        assert!(blocked > 0 && blocked < samples.len(), "{blocked}");
        for w in samples.windows(2) {
            if w[0].blocked != w[1].blocked {
                assert_eq!(w[1].beam_loss_db, 6.0);
            }
            if w[1].blocked {
                assert!(w[1].blockage_db > 0.0, "{:?}", w[1]);
            }
        }
    }

    #[test]
    fn model_b_is_evaluated_on_its_1_ms_grid_whatever_the_queries() {
        let blockers = BlockageModelBConfig {
            blocker: crate::nr::blockage::BlockerKind::HUMAN,
            density_per_m2: 0.5,
            area_min: Position::new(-5.0, -10.0),
            area_max: Position::new(45.0, 10.0),
        };
        let config = MmWaveChannelConfig {
            scenario: Tr38901Scenario::InhOfficeOpen,
            los: LosMode::Fixed(LosCondition::Los),
            shadowing: false,
            blockage: BlockageConfig::ModelB(blockers),
            ..MmWaveChannelConfig::default()
        };
        let ue = Position::new(40.0, 0.0);
        // One channel queried every 125 µs slot, one every millisecond.
        let (mut slots, mut ms) = (channel(config), channel(config));
        let mut changes = 0;
        let mut prev = None;
        for k in 0..16_000u64 {
            let t = k * 125_000;
            let s = slots.sample(t, ue);
            if k % 8 == 0 {
                assert_eq!(ms.sample(t, ue).blockage_db, s.blockage_db, "{t}");
            } else {
                // Held from the millisecond boundary.
                assert_eq!(
                    prev.map(|p: MmWaveSample| p.blockage_db),
                    Some(s.blockage_db)
                );
            }
            changes += usize::from(prev.is_some_and(|p| p.blocked != s.blocked));
            prev = Some(s);
        }
        // 2 s of a 0.5 people per m² crowd: measured 2 blockage transitions.
        eprintln!("{changes} blockage transitions");
        assert!(changes > 0, "{changes}");
    }

    #[test]
    fn same_streams_same_samples_and_blockage_leaves_shadowing_alone() {
        let run = |blockage| {
            let mut c = channel(MmWaveChannelConfig {
                blockage,
                ..MmWaveChannelConfig::default()
            });
            (0..200u64)
                .map(|k| c.sample(k * 1_000_000, Position::new(20.0 + k as f64, 5.0)))
                .collect::<Vec<_>>()
        };
        let markov = BlockageConfig::Markov(MarkovBlockageConfig {
            mean_clear_ns: 50_000_000,
            mean_blocked_ns: 10_000_000,
            blocked_loss_db: 30.0,
        });
        let (a, b, none) = (run(markov), run(markov), run(BlockageConfig::None));
        assert_eq!(a, b);
        for (x, y) in a.iter().zip(&none) {
            assert_eq!(x.shadowing_db, y.shadowing_db);
            assert_eq!(x.condition, y.condition);
        }
    }

    #[test]
    fn a_trace_link_reads_the_trace() {
        let trace =
            SinrTrace::parse("time_s,sinr_db\n0,12\n0.5,-4\n", SinrInterpolation::Hold).unwrap();
        let mut link = MmWaveLink::Trace(trace);
        assert_eq!(
            link.sinr_db(499_999_999, Position::default(), 0.0, 0.0, 0.0),
            12.0
        );
        assert_eq!(
            link.sinr_db(500_000_000, Position::default(), 0.0, 0.0, 0.0),
            -4.0
        );
    }

    #[test]
    fn bad_configuration_names_the_parameter() {
        let e = MmWaveChannel::new(
            &MmWaveChannelConfig {
                carrier_hz: 200e9,
                ..MmWaveChannelConfig::default()
            },
            Position::default(),
            1,
            0,
            "cell/0/ue/0",
        )
        .err()
        .unwrap();
        assert!(
            e.to_string()
                .starts_with("carrier_hz: 200000000000 is out of range"),
            "{e}"
        );
    }
}
