//! The downlink radio link of one UE, as the cell's slot loop queries it: the LTE link budget
//! of `radio_link.rs` ([`RadioLink`]), or, in an NR cell with `[cells.NAME.nr.channel]`, the
//! mmWave channel of `nr::mmwave` ([`MmWaveUeLink`]). Both answer the same questions (SINR in
//! a TTI or slot, the large-scale SINR for the first CQI, RSRP, moves), so `tti.rs` does not
//! know which it has.
//!
//! Call-order contract of [`UeLink::sinr_db`]: slots do not decrease between calls (the CQI
//! reports and the slot loop query in slot order); a repeated slot returns the same SINR. The
//! mmWave channel is queried only at the slots the cell processes for the UE (no event is
//! added for an idle UE); the Markov process draws its sojourns as time passes them and model
//! B finds its transitions at the query times (`nr::mmwave`), so a UE queried every slot sees
//! every blockage within a slot.

use crate::channel::Position;
use crate::nr::mmwave::{MmWaveChannel, MmWaveLink};

use super::config::{CellError, LteCellConfig, UeConfig};
use super::nr_channel::NrChannel;
use super::radio_link::RadioLink;

/// SINR given to the cell in a beam outage (the channel's −∞ dB), dB: low enough that no MCS
/// decodes and the CQI is 0, and finite so that the SINR sums and chase combining stay
/// defined. The SINR traces' lower bound (`nr::sinr_trace`).
pub const MMWAVE_SINR_FLOOR_DB: f64 = -50.0;

/// The radio link of one UE (module documentation).
// The LTE link stays inline, as it was before the enum (every LTE slot reads it); the mmWave
// one is boxed.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum UeLink {
    Lte(RadioLink),
    /// Boxed: the channel holds the blockers of model B.
    MmWave(Box<MmWaveUeLink>),
}

impl UeLink {
    /// The link of `ue` in a cell configured by `cfg`: an [`MmWaveUeLink`] when the cell is NR
    /// with a `channel` table, otherwise a [`RadioLink`]; the arguments as [`RadioLink::new`]'s.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        cfg: &LteCellConfig,
        ue: &UeConfig,
        noise_dbm: f64,
        seed: u64,
        run: u64,
        rng_prefix: &str,
        slot_ns: u64,
    ) -> Result<Self, CellError> {
        match cfg.nr.as_ref().and_then(|nr| nr.channel.as_ref()) {
            None => Ok(UeLink::Lte(RadioLink::new(
                cfg, ue, noise_dbm, seed, run, rng_prefix, slot_ns,
            )?)),
            Some(channel) => {
                let resolved =
                    channel.resolve("cell", cfg.carrier_hz, cfg.position, &[ue.position])?;
                let link =
                    match resolved {
                        NrChannel::Trace(t) => MmWaveLink::Trace((*t).clone()),
                        NrChannel::Modelled(c) => MmWaveLink::Modelled(Box::new(
                            MmWaveChannel::new(&c, cfg.position, seed, run, rng_prefix)?,
                        )),
                    };
                let mut l = MmWaveUeLink {
                    link,
                    position: ue.position,
                    tx_power_dbm: cfg.keys.tx_power_dbm,
                    antenna_gain_db: cfg.antenna_gain_db,
                    noise_dbm,
                    slot_ns,
                    last: (0, 0.0),
                    blockage: BlockageRecord::default(),
                };
                l.query(0);
                Ok(UeLink::MmWave(Box::new(l)))
            }
        }
    }

    /// Moves the UE (new path loss and shadowing from the next query on).
    pub fn move_to(
        &mut self,
        cfg: &LteCellConfig,
        position: Position,
        noise_dbm: f64,
    ) -> Result<(), CellError> {
        match self {
            UeLink::Lte(l) => l.move_to(cfg, position, noise_dbm),
            UeLink::MmWave(m) => {
                if !(position.x_m.is_finite() && position.y_m.is_finite()) {
                    return Err(CellError::InvalidConfig {
                        key: "ues.position",
                        value: format!("{position:?}"),
                        expected: "finite coordinates in metres",
                    });
                }
                m.position = position;
                Ok(())
            }
        }
    }

    /// Changes the speed, m/s: the Doppler of the LTE fading; the mmWave channel has no fast
    /// fading (its shadowing and LOS follow the positions).
    pub fn set_speed(&mut self, cfg: &LteCellConfig, speed_mps: f64) -> Result<(), CellError> {
        match self {
            UeLink::Lte(l) => l.set_speed(cfg, speed_mps),
            UeLink::MmWave(_) => Ok(()),
        }
    }

    pub fn position(&self) -> Position {
        match self {
            UeLink::Lte(l) => l.position(),
            UeLink::MmWave(m) => m.position,
        }
    }

    /// SINR without fast fading, dB; for the mmWave channel that of the last query.
    pub fn large_scale_sinr_db(&self, cfg: &LteCellConfig) -> f64 {
        match self {
            UeLink::Lte(l) => l.large_scale_sinr_db(cfg),
            UeLink::MmWave(m) => m.last.1,
        }
    }

    /// RSRP, dBm per resource element, over the carrier's `n_prb` resource blocks (an LTE
    /// cell's N_RB^DL, an NR cell's N_RB of its numerology and bandwidth); for the mmWave
    /// channel that of the last query, blockage and beam state included.
    ///
    /// For an NR cell this is the SS-RSRP of TS 38.215 §5.1.1, the power per resource element
    /// of the SS/PBCH block: with the transmit power spread evenly over the carrier's
    /// N_RB·12 subcarriers, the SSB's REs carry the same power per RE as any other, so the
    /// LTE rule of TS 36.214 §5.1.1 over the NR carrier's subcarriers is its value.
    pub fn rsrp_dbm(&self, cfg: &LteCellConfig, n_prb: u32) -> f64 {
        match self {
            UeLink::Lte(l) => l.rsrp_dbm(cfg, n_prb),
            UeLink::MmWave(m) => m.last.1 + m.noise_dbm - 10.0 * (12.0 * f64::from(n_prb)).log10(),
        }
    }

    /// Brings the mmWave channel to slot `tti` for a measurement (call-order contract above:
    /// the slot the measurement falls in, which the cell has not passed); an LTE link budget
    /// has nothing to bring forward (its RSRP and large-scale SINR hold between moves).
    pub fn measure_at(&mut self, tti: u64) {
        if let UeLink::MmWave(m) = self {
            m.query(tti);
        }
    }

    /// Interference plus noise after an interferer's load changed; an mmWave link has none
    /// (`[cells.NAME.nr.channel]` is refused with interferers).
    pub fn refresh_interference(&mut self, cfg: &LteCellConfig, noise_dbm: f64) {
        if let UeLink::Lte(l) = self {
            l.refresh_interference(cfg, noise_dbm);
        }
    }

    /// SINR in TTI (slot) `tti`, dB (call-order contract above).
    pub fn sinr_db(&mut self, cfg: &LteCellConfig, tti: u64) -> f64 {
        match self {
            UeLink::Lte(l) => l.sinr_db(cfg, tti),
            UeLink::MmWave(m) => m.query(tti),
        }
    }

    /// The mmWave link, if this is one.
    pub fn mmwave(&self) -> Option<&MmWaveUeLink> {
        match self {
            UeLink::Lte(_) => None,
            UeLink::MmWave(m) => Some(m),
        }
    }
}

/// The mmWave channel of one UE with the link budget around it and what its blockage did.
pub struct MmWaveUeLink {
    link: MmWaveLink,
    position: Position,
    tx_power_dbm: f64,
    antenna_gain_db: f64,
    noise_dbm: f64,
    slot_ns: u64,
    /// Slot and SINR (dB, floored) of the last query.
    last: (u64, f64),
    blockage: BlockageRecord,
}

impl std::fmt::Debug for MmWaveUeLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MmWaveUeLink")
            .field("position", &self.position)
            .field("last", &self.last)
            .field("blockage", &self.blockage)
            .finish_non_exhaustive()
    }
}

impl MmWaveUeLink {
    /// The SINR at slot `tti`, querying the channel once per slot.
    fn query(&mut self, tti: u64) -> f64 {
        if self.blockage.last_ns.is_some() && self.last.0 >= tti {
            return self.last.1;
        }
        let now_ns = tti * self.slot_ns;
        let sinr = match &mut self.link {
            MmWaveLink::Modelled(c) => {
                let s = c.sample(now_ns, self.position);
                self.blockage.record(now_ns, s.blocked);
                s.sinr_db(self.tx_power_dbm, self.antenna_gain_db, self.noise_dbm)
            }
            MmWaveLink::Trace(t) => {
                self.blockage.last_ns = Some(now_ns);
                t.sinr_db_at(now_ns)
            }
        };
        self.last = (tti, sinr.max(MMWAVE_SINR_FLOOR_DB));
        self.last.1
    }

    /// SINR of the last query, dB.
    pub fn last_sinr_db(&self) -> f64 {
        self.last.1
    }

    /// What the blockage model did so far; `None` for a trace (which holds its own).
    pub fn blockage(&self) -> Option<&BlockageRecord> {
        matches!(self.link, MmWaveLink::Modelled(_)).then_some(&self.blockage)
    }
}

/// The blockage a UE's queries saw: each interval between two queries counts in the state of
/// its first query (so with a query every slot, to a slot).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockageRecord {
    /// Time of the last query, ns.
    pub last_ns: Option<u64>,
    /// The direct path was blocked at the last query.
    pub blocked: bool,
    /// Time between the first and the last query, ns.
    pub observed_ns: u64,
    /// Of which blocked, ns.
    pub blocked_ns: u64,
    /// Blockage onsets seen (a first query in the blocked state counts as one).
    pub events: u64,
}

impl BlockageRecord {
    fn record(&mut self, now_ns: u64, blocked: bool) {
        if let Some(t) = self.last_ns {
            let dt = now_ns - t;
            self.observed_ns += dt;
            if self.blocked {
                self.blocked_ns += dt;
            }
        }
        if blocked && (self.last_ns.is_none() || !self.blocked) {
            self.events += 1;
        }
        self.blocked = blocked;
        self.last_ns = Some(now_ns);
    }

    /// Blocked share of the observed time; `None` before two queries.
    pub fn blocked_fraction(&self) -> Option<f64> {
        (self.observed_ns > 0).then(|| self.blocked_ns as f64 / self.observed_ns as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::nr_channel::{NrBeamConfig, NrBlockageConfig, NrBlockageKind, NrLos};
    use crate::cell::{NrCellConfig, NrChannelConfig};
    use celltcp_engine::SimDuration;
    use celltcp_net::packet::NodeId;

    #[test]
    fn each_interval_counts_in_the_state_at_its_start() {
        let mut r = BlockageRecord::default();
        for (t, b) in [(0, false), (10, true), (15, true), (30, false), (40, true)] {
            r.record(t, b);
        }
        // Blocked over [10, 30): 20 of 40 ns; onsets at 10 and 40.
        assert_eq!((r.blocked_ns, r.observed_ns, r.events), (20, 40, 2));
        assert_eq!(r.blocked_fraction(), Some(0.5));
        let mut first_blocked = BlockageRecord::default();
        first_blocked.record(0, true);
        assert_eq!(
            (first_blocked.events, first_blocked.blocked_fraction()),
            (1, None)
        );
    }

    #[test]
    fn a_beam_outage_gives_the_floor_and_lte_cells_keep_their_link() {
        let ue = UeConfig {
            node: NodeId(1),
            position: Position::new(40.0, 0.0),
            speed_mps: 0.0,
        };
        let lte = LteCellConfig::lte_default("g", NodeId(0));
        let link = UeLink::new(&lte, &ue, -90.0, 1, 0, "p", 1_000_000).unwrap();
        assert!(matches!(link, UeLink::Lte(_)));
        // Markov blockage with a 1 s beam outage after every transition: every slot in an
        // outage is at the floor, the others 30 dB apart.
        let channel = NrChannelConfig {
            los: NrLos::Los,
            shadowing: false,
            blockage: NrBlockageConfig {
                kind: NrBlockageKind::Markov,
                mean_los: SimDuration(20_000_000),
                mean_blocked: SimDuration(20_000_000),
                ..NrBlockageConfig::default()
            },
            beam: NrBeamConfig {
                recovery: SimDuration(1_000_000_000),
                recovery_loss_db: None,
            },
            ..NrChannelConfig::default()
        };
        let nr = LteCellConfig {
            carrier_hz: 28e9,
            nr: Some(NrCellConfig {
                channel: Some(channel),
                ..NrCellConfig::default()
            }),
            ..lte.clone()
        };
        let mut link = UeLink::new(&nr, &ue, -90.0, 1, 0, "p", 1_000_000).unwrap();
        let sinrs: Vec<f64> = (0..200).map(|k| link.sinr_db(&nr, k)).collect();
        assert!(sinrs.contains(&MMWAVE_SINR_FLOOR_DB), "{sinrs:?}");
        assert!(sinrs
            .iter()
            .all(|s| s.is_finite() && *s >= MMWAVE_SINR_FLOOR_DB));
        // A repeated slot is the same query.
        assert_eq!(link.sinr_db(&nr, 199), sinrs[199]);
        assert!(link.mmwave().unwrap().blockage().unwrap().events > 0);
    }
}
