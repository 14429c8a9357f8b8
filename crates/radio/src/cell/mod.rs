//! An LTE or NR cell as a shared medium: one eNB (or gNB) serving its UEs, implementing
//! [`celltcp_net::medium::Medium`].
//!
//! The cell runs one loop of scheduling units over an air interface (`air.rs`): the 1 ms TTI
//! of LTE, or the slot of NR (`LteCellConfig::nr`), whose slot length, downlink slots,
//! transport block sizes, CQI and MCS tables, BLER, layers and HARQ timing the air interface
//! owns. Below, "TTI" is that scheduling unit. An NR bearer uses the RLC and PDCP of this
//! cell (TS 36.322, TS 36.323) until those of TS 38.322 and TS 38.323 are wired in.
//!
//! Layers, each from its own module of this crate (`docs/lte-model.md` states what is
//! simplified and the measured validation figures):
//! * downlink bearer per UE ([`bearer`]): PDCP numbering and header (TS 36.323), RLC AM or UM
//!   (TS 36.322) with the eNB's transmitting side and the UE's receiving side, and the UE's
//!   PDCP receiver when it reorders (`pdcp.reordering`);
//! * MAC ([`crate::mac`]): one scheduler for the cell, one HARQ entity per UE (TS 36.321
//!   §5.3.2), transport block sizes of TS 36.213 made monotone ([`tbs`]);
//! * PHY abstraction ([`crate::phy`], [`radio_link`]): per-UE SINR from path loss, shadowing,
//!   fading and interference; periodic, delayed wideband CQI; BLER curves with chase
//!   combining;
//! * uplink ([`uplink`]): abstracted as a per-UE FIFO with a grant delay, a rate and losses,
//!   carrying IP packets (TCP ACKs) and the RLC STATUS PDUs of the downlink;
//! * receive errors at the UE ([`downlink_loss`]), optional per UE: a loss model applied to
//!   every IP packet at its delivery to the UE node, after RLC and PDCP.
//!
//! Timing and the call contract (the world's, see `celltcp_net::medium`):
//! * `send(eNB → UE)` writes the packet into the UE's downlink RLC buffer (refused when full:
//!   dropped with `DropCause::QueueFull`); `send(UE → eNB)` queues it on the UE's uplink;
//! * TTI k starts at k × the slot length (1 ms in LTE). `poll_timeout` returns the next TTI boundary only while some UE
//!   has downlink data, a HARQ process holding a block, or decoded data not yet handed to its
//!   RLC; otherwise the earliest RLC or PDCP timer or uplink arrival, or `None` when the cell
//!   is idle;
//! * `on_timer(now)` delivers the uplink items due, runs the RLC timers and the UEs' PDCP
//!   t-Reordering due, and, if `now` is a TTI boundary with work, runs that TTI (`tti.rs`).
//!   Deliveries and drops go to the `MediumOutput`.
//!
//! In a radio access network ([`LteCell::new_in_ran`], `handover.rs`) every UE of the network
//! has a context in every cell, and a cell serves only the UEs connected to it: a UE not
//! connected is never scheduled and has no deadline, and `send` to or from it is dropped with
//! `DropCause::NoRoute`. The network moves UEs with `detach_ue` / `attach_ue` (X2 handover,
//! TS 36.300 §10.1.2.1) and takes the reassembled downlink SDUs with `take_delivered_sdus`
//! for the UE's PDCP receiver, which persists across cells.
//!
//! Randomness: the `RngStream` the world hands to `on_timer` is not used. Each UE has its own
//! streams `cell/NAME/ue/NODE/{fading,shadowing,bler,uplink}` derived from the seed and run
//! given to [`LteCell::new`], so adding a UE never changes another UE's numbers; a UE with a
//! downlink loss model adds `cell/NAME/ue/NODE/downlink_loss`, which changes no other stream.

mod air;
pub mod bearer;
pub mod capture;
pub mod config;
pub mod downlink_loss;
mod handover;
pub mod los;
pub mod mac_lte;
pub mod nr_channel;
pub mod nr_config;
pub mod radio_link;
#[cfg(test)]
mod ran_tests;
pub mod stats;
pub mod tbs;
mod tti;
mod ue;
pub mod ue_link;
pub mod uplink;
mod wake;

use celltcp_engine::{RngStream, SimTime};
use celltcp_net::medium::{Medium, MediumFigure, MediumOutput};
use celltcp_net::packet::{NodeId, Packet};
use celltcp_net::queue::DropCause;
use celltcp_net::trace::Traces;

use crate::channel::Position;
use crate::mac::{build, Allocation, MacScheduler, MacSchedulerConfig, UeState};
use crate::phy::Cqi;

pub use air::{CsiReport, NrTbs};
pub use bearer::{BearerSdu, StampedPacket};
pub use capture::{CaptureOut, CellCapture, IpCapture};
pub use config::{
    default_rlc_am, CellError, CellKeyError, CellRadioConfig, CellRlcConfig, ConfiguredGrantConfig,
    HarqCombining, Interferer, LosSetting, LteCellConfig, PollPdu, Rat, RlcMode, RlcModeConfig,
    SrBsrConfig, UeConfig, UplinkConfig, UplinkScheduling, DEFAULT_SHADOWING_DECORRELATION_M,
    MAX_RETX_THRESHOLD,
};
pub use downlink_loss::DownlinkLoss;
pub use handover::{BufferRoom, DetachedUe};
pub use nr_channel::{
    NrBeamConfig, NrBlockageConfig, NrBlockageKind, NrBlocker, NrChannel, NrChannelConfig,
    NrChannelModel, NrChannelScenario, NrLos, NrTraceInterpolation,
};
pub use nr_config::{NrAirConfig, NrCellConfig, NrConfigError, NrDmrsConfig};
pub use stats::{CellTrace, UeReport};
pub use tbs::MonotoneTbs;
pub use ue_link::{BlockageRecord, MmWaveUeLink, UeLink, MMWAVE_SINR_FLOOR_DB};
pub use uplink::UplinkStats;

use air::AirInterface;
use ue::{RanQueue, UeContext};
use uplink::UplinkItem;
use wake::WakeTable;

/// An eNB and the UEs it serves, as a medium of the network.
pub struct LteCell {
    cfg: LteCellConfig,
    ues: Vec<UeContext>,
    /// (node, index into `ues`), sorted by node.
    by_node: Vec<(NodeId, usize)>,
    scheduler: Box<dyn MacScheduler>,
    /// LTE or NR: slots, TBS, CQI → MCS, BLER, layers, HARQ timing (`air.rs`).
    air: AirInterface,
    noise_dbm: f64,
    /// Latest time seen in `send` or `on_timer`.
    now: SimTime,
    /// First TTI not yet processed.
    next_tti: u64,
    next_tb_id: u64,
    ttis_processed: u64,
    prbs_used: u64,
    /// Per UE: its earliest deadline and whether it needs a TTI, as last recorded
    /// (`wake.rs`); refreshed with `refresh_wake` after every change to a UE.
    wake: WakeTable,
    /// Per-TTI scratch buffers, reused.
    states: Vec<UeState<'static>>,
    /// Indices of the UEs that needed the TTI being processed, and of those it changed.
    active: Vec<usize>,
    touched: Vec<usize>,
    allocs: Vec<Allocation>,
    served: Vec<(u32, u32)>,
    trace: Option<CellTrace>,
    /// A cell of a radio access network ([`LteCell::new_in_ran`]): the SDUs the UEs' RLC
    /// reassembled, in order, until `take_delivered_sdus`. `None` for a cell on its own, which
    /// delivers IP packets to the UE nodes.
    ran_delivered: Option<RanQueue>,
    /// Radio-side captures (`capture.rs`), when asked for; every hook tests this first.
    capture: Option<Box<CellCapture>>,
}

impl std::fmt::Debug for LteCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LteCell")
            .field("name", &self.cfg.name)
            .field("ues", &self.ues.len())
            .field("scheduler", &self.scheduler.name())
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

impl LteCell {
    /// A cell configured by `cfg` serving `ues`; random streams from (`seed`, `run`).
    pub fn new(
        cfg: LteCellConfig,
        ues: Vec<UeConfig>,
        seed: u64,
        run: u64,
    ) -> Result<Self, CellError> {
        let connected = vec![true; ues.len()];
        Self::build(cfg, ues, &connected, seed, run, None)
    }

    /// A cell with a context for each of `ues`, serving those with `connected[i]`; `ran` is
    /// the queue of reassembled SDUs in RAN mode.
    fn build(
        cfg: LteCellConfig,
        ues: Vec<UeConfig>,
        connected: &[bool],
        seed: u64,
        run: u64,
        ran_delivered: Option<RanQueue>,
    ) -> Result<Self, CellError> {
        cfg.validate()?;
        if connected.len() != ues.len() {
            return Err(CellError::InvalidConfig {
                key: "connected",
                value: format!("{} flags for {} UEs", connected.len(), ues.len()),
                expected: "one flag per UE",
            });
        }
        let air = AirInterface::new(&cfg)?;
        // The time constant is configured in ms (LTE TTIs); the scheduler counts slots.
        let scheduler = build(
            &cfg.keys.scheduler,
            &MacSchedulerConfig {
                pf_time_constant_tti: cfg.pf_time_constant_tti * f64::from(air.slots_per_ms()),
            },
        )?;
        let noise_dbm = air.noise_dbm(&cfg)?;
        let mut by_node = Vec::with_capacity(ues.len());
        let mut contexts = Vec::with_capacity(ues.len());
        for (i, u) in ues.iter().enumerate() {
            if u.node == cfg.enb || by_node.iter().any(|&(n, _)| n == u.node) {
                return Err(CellError::DuplicateUe { node: u.node });
            }
            by_node.push((u.node, i));
            contexts.push(UeContext::new(
                &cfg,
                u,
                noise_dbm,
                &air,
                seed,
                run,
                connected[i],
                ran_delivered.is_some(),
            )?);
        }
        // A weight or a loss model for a node that is not a UE here is a configuration mistake
        // (a misspelt or misplaced UE), not something to ignore.
        if let Some(&node) = cfg
            .ue_weights
            .keys()
            .chain(cfg.downlink_loss.keys())
            .find(|n| by_node.iter().all(|&(m, _)| m != **n))
        {
            return Err(CellError::UnknownUe { node });
        }
        by_node.sort_unstable();
        let n = ues.len();
        let mut cell = LteCell {
            trace: cfg.trace_series.then(CellTrace::default),
            cfg,
            ues: contexts,
            by_node,
            scheduler,
            air,
            noise_dbm,
            now: SimTime::ZERO,
            next_tti: 0,
            next_tb_id: 0,
            ttis_processed: 0,
            prbs_used: 0,
            wake: WakeTable::new(n),
            states: Vec::with_capacity(n),
            active: Vec::with_capacity(n),
            touched: Vec::with_capacity(n),
            allocs: Vec::with_capacity(n),
            served: Vec::with_capacity(n),
            ran_delivered,
            capture: None,
        };
        for i in 0..n {
            cell.refresh_wake(i);
        }
        Ok(cell)
    }

    pub fn config(&self) -> &LteCellConfig {
        &self.cfg
    }

    /// Captures this cell's radio side from now on (`capture.rs`; docs/captures.md).
    pub fn set_capture(&mut self, capture: CellCapture) {
        let ip = capture.captures_ip();
        for ue in &mut self.ues {
            ue.ip_tap = ip.then(Vec::new);
        }
        self.capture = Some(Box::new(capture));
    }

    /// Writes the IP packets the UEs' RLC delivered at `now` to the capture.
    fn capture_delivered(&mut self, now: SimTime) {
        if let Some(c) = self.capture.as_deref_mut() {
            for (i, ue) in self.ues.iter_mut().enumerate() {
                if let Some(tap) = ue.ip_tap.as_mut() {
                    for p in tap.drain(..) {
                        c.ip(i, now, &p, true);
                    }
                }
            }
        }
    }

    /// The UE nodes, in the order they were given.
    pub fn ue_nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.ues.iter().map(|u| u.node)
    }

    fn index(&self, node: NodeId) -> Option<usize> {
        self.by_node
            .binary_search_by_key(&node, |&(n, _)| n)
            .ok()
            .map(|i| self.by_node[i].1)
    }

    /// A downlink IP packet for UE `node` into its bearer: PDCP numbers it and RLC queues it;
    /// a packet the RLC buffer refuses takes no COUNT
    /// ([`PdcpTx::write_sdu_into`](crate::pdcp::PdcpTx::write_sdu_into)), so that the UE's
    /// reordering never waits for it. The drop cause if it was not taken (the caller still has
    /// the packet, which is `Copy`): `NoRoute` for a UE the cell does not serve, `QueueFull`
    /// when the RLC buffer is full.
    pub fn write_downlink(
        &mut self,
        now: SimTime,
        node: NodeId,
        pkt: Packet,
    ) -> Result<(), DropCause> {
        self.now = self.now.max(now);
        let Some(i) = self.index(node).filter(|&i| self.ues[i].connected) else {
            return Err(DropCause::NoRoute);
        };
        let ue = &mut self.ues[i];
        let stamped = StampedPacket {
            packet: pkt,
            arrived: now,
        };
        let tx = &mut ue.tx;
        let written = ue
            .pdcp
            .write_sdu_into(stamped, |sdu| tx.write_sdu(now, sdu));
        ue.refresh_buffer(now);
        self.refresh_wake(i);
        written.map_err(|_| DropCause::QueueFull)
    }

    fn ue(&self, node: NodeId) -> Result<&UeContext, CellError> {
        self.index(node)
            .map(|i| &self.ues[i])
            .ok_or(CellError::UnknownUe { node })
    }

    /// Moves a UE (new path loss, interference and shadowing from the next TTI on).
    pub fn set_ue_position(&mut self, node: NodeId, position: Position) -> Result<(), CellError> {
        let i = self.index(node).ok_or(CellError::UnknownUe { node })?;
        self.ues[i]
            .link
            .move_to(&self.cfg, position, self.noise_dbm)
    }

    /// Changes a UE's speed, m/s (the Doppler of its fading).
    pub fn set_ue_speed(&mut self, node: NodeId, speed_mps: f64) -> Result<(), CellError> {
        let i = self.index(node).ok_or(CellError::UnknownUe { node })?;
        self.ues[i].link.set_speed(&self.cfg, speed_mps)
    }

    /// A UE's current position.
    pub fn ue_position(&self, node: NodeId) -> Result<Position, CellError> {
        Ok(self.ue(node)?.link.position())
    }

    /// The CQI the scheduler currently uses for a UE.
    pub fn ue_cqi(&self, node: NodeId) -> Result<Cqi, CellError> {
        Ok(self.ue(node)?.cqi.current())
    }

    /// A UE's SINR without fast fading, dB.
    pub fn ue_large_scale_sinr_db(&self, node: NodeId) -> Result<f64, CellError> {
        Ok(self.ue(node)?.link.large_scale_sinr_db(&self.cfg))
    }

    /// What a UE's modelled mmWave channel (`[cells.NAME.nr.channel]`) saw of its blockage
    /// so far; `None` for any other link.
    pub fn ue_blockage(&self, node: NodeId) -> Result<Option<BlockageRecord>, CellError> {
        Ok(self
            .ue(node)?
            .link
            .mmwave()
            .and_then(|m| m.blockage().copied()))
    }

    /// The uplink counters of a UE.
    pub fn ue_uplink_stats(&self, node: NodeId) -> Result<UplinkStats, CellError> {
        Ok(self.ue(node)?.uplink.stats())
    }

    /// The summary of a UE with rates over [0, now].
    pub fn ue_report(&self, node: NodeId, now: SimTime) -> Result<UeReport, CellError> {
        Ok(self.report_of(self.ue(node)?, now))
    }

    /// Reports of every UE connected at some time, in the order they were given.
    pub fn ue_reports(&self, now: SimTime) -> Vec<UeReport> {
        self.reported_ues()
            .map(|u| self.report_of(u, now))
            .collect()
    }

    /// The UEs that reports cover: those connected at some time (in a radio access network
    /// every cell has a context for every UE; a cell reports only those it served).
    fn reported_ues(&self) -> impl Iterator<Item = &UeContext> + '_ {
        self.ues.iter().filter(|u| u.ever_connected)
    }

    /// Fraction of the PRBs of the downlink slots of [0, now] that carried a transport block.
    pub fn prb_utilization(&self, now: SimTime) -> f64 {
        let slots = self.air.downlink_slots(now.as_ns() / self.air.slot_ns());
        if slots == 0 {
            return 0.0;
        }
        self.prbs_used as f64 / (slots as f64 * f64::from(self.air.n_prb(&self.cfg)))
    }

    /// Thermal noise plus the UE's noise figure over the carrier's resource blocks, dBm.
    pub fn noise_dbm(&self) -> f64 {
        self.noise_dbm
    }

    /// Duration of the cell's scheduling unit, nanoseconds: the 1 ms TTI of LTE, the slot of
    /// NR.
    pub fn slot_ns(&self) -> u64 {
        self.air.slot_ns()
    }

    /// Downlink slots in `period_ns` (LTE: its 1 ms TTIs; NR: its slots times the share with a
    /// PDSCH of the slot pattern), fractional; times N_RB, the PRBs the cell can use in it.
    pub fn downlink_slots_in(&self, period_ns: u64) -> f64 {
        period_ns as f64 / self.air.slot_ns() as f64 * self.air.downlink_share()
    }

    /// TTIs (NR: slots) the cell has processed (idle ones are skipped).
    pub fn ttis_processed(&self) -> u64 {
        self.ttis_processed
    }

    /// The per-TTI series, if `trace_series` is on.
    pub fn trace(&self) -> Option<&CellTrace> {
        self.trace.as_ref()
    }

    fn report_of(&self, ue: &UeContext, now: SimTime) -> UeReport {
        let secs = now.as_secs_f64();
        let rate = |bits: f64| if secs > 0.0 { bits / secs } else { 0.0 };
        let c = &ue.counters;
        let h = ue.harq.stats();
        let mean = |sum: f64, n: u64| if n > 0 { sum / n as f64 } else { f64::NAN };
        let ul = ue.uplink.stats();
        UeReport {
            node: ue.node,
            phy_throughput_bps: rate(c.tb_bits_decoded as f64),
            rlc_throughput_bps: rate(c.sdu_bytes_delivered as f64 * 8.0),
            sdus_delivered: c.sdus_delivered,
            sdu_bytes_delivered: c.sdu_bytes_delivered,
            tb_bits_decoded: c.tb_bits_decoded,
            harq_transmissions: h.transmissions,
            harq_retransmissions: h.retransmissions,
            harq_residual_failures: h.residual_failures,
            rlc_retransmissions: ue.tx.pdus_retx(),
            rlc_discards: ue.rlc_discards(),
            rlc_max_retx_reached: ue.tx.max_retx_reached_count(),
            radio_link_failure: ue.tx.max_retx_reached(),
            sdus_refused: ue.tx.sdus_refused(),
            queueing_delay_mean_s: mean(c.delay_sum_ns as f64, c.sdus_delivered) * 1e-9,
            queueing_delay_max_s: c.delay_max_ns as f64 * 1e-9,
            buffer_mean_bytes: ue.buffer.mean(now),
            buffer_max_bytes: ue.buffer.max(),
            sinr_mean_db: mean(c.sinr_sum_db, c.sinr_samples),
            cqi_mean: ue.cqi.mean().unwrap_or(f64::NAN),
            mcs_mean: mean(c.mcs_sum as f64, c.new_tbs),
            prbs: c.prbs,
            uplink_lost: ul.packets_lost + ul.status_lost,
            downlink_lost: ue.downlink_loss.as_ref().map(DownlinkLoss::lost),
        }
    }

    /// Records UE `i`'s deadline and TTI need after a change to it (the contract of
    /// `wake.rs`).
    fn refresh_wake(&mut self, i: usize) {
        if let Some(ue) = self.ues.get(i) {
            self.wake.set(i, ue.next_deadline(), ue.needs_tti());
        }
    }

    /// Whether the recorded deadlines and TTI needs are those of the UEs now.
    fn wake_is_current(&self) -> bool {
        self.wake
            .matches(self.ues.iter().map(|u| (u.next_deadline(), u.needs_tti())))
    }

    /// Start of the first TTI that can still be processed.
    fn next_tti_start(&self) -> SimTime {
        let slot_ns = self.air.slot_ns();
        let first_possible = self.now.as_ns().div_ceil(slot_ns);
        SimTime::from_ns(first_possible.max(self.next_tti) * slot_ns)
    }
}

impl Medium for LteCell {
    fn name(&self) -> &str {
        &self.cfg.name
    }

    fn edges(&self) -> Vec<(NodeId, NodeId)> {
        self.ues.iter().map(|u| (self.cfg.enb, u.node)).collect()
    }

    fn send(
        &mut self,
        now: SimTime,
        from: NodeId,
        to: NodeId,
        pkt: Packet,
        out: &mut MediumOutput,
    ) {
        self.now = self.now.max(now);
        let enb = self.cfg.enb;
        if from == enb {
            if let Err(cause) = self.write_downlink(now, to, pkt) {
                out.dropped.push((pkt, cause));
            }
        } else if to == enb {
            let Some(i) = self.index(from).filter(|&i| self.ues[i].connected) else {
                out.dropped.push((pkt, DropCause::NoRoute));
                return;
            };
            let cfg = &self.cfg.uplink;
            self.ues[i].uplink.push(now, UplinkItem::Packet(pkt), cfg);
            self.refresh_wake(i);
        } else {
            out.dropped.push((pkt, DropCause::NoRoute));
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        debug_assert!(self.wake_is_current(), "wake table out of date");
        let tti = self.wake.any_needs_tti().then(|| self.next_tti_start());
        [self.wake.earliest_deadline(), tti]
            .into_iter()
            .flatten()
            .min()
    }

    fn on_timer(
        &mut self,
        now: SimTime,
        _rng: &mut RngStream,
        _traces: &mut Traces,
        out: &mut MediumOutput,
    ) {
        self.now = self.now.max(now);
        let enb = self.cfg.enb;
        // Only UEs with a deadline due have anything to do here (the wake table is current).
        if self.wake.earliest_deadline().is_some_and(|e| e <= now) {
            for i in 0..self.ues.len() {
                if !self.wake.due(i, now) {
                    continue;
                }
                let ue = &mut self.ues[i];
                while let Some((item, lost)) = ue.uplink.pop_due(now) {
                    if let Some(c) = self.capture.as_deref_mut() {
                        match &item {
                            UplinkItem::Packet(p) if !lost => c.ip(i, now, p, false),
                            UplinkItem::Status(s) => c.uplink_status(i, now, s, lost),
                            UplinkItem::Packet(_) => {}
                        }
                    }
                    match (item, lost) {
                        (UplinkItem::Packet(p), false) => out.delivered.push((enb, p)),
                        (UplinkItem::Packet(p), true) => out.dropped.push((p, DropCause::LinkLoss)),
                        (UplinkItem::Status(s), false) => {
                            ue.tx.on_status(now, &s);
                            ue.refresh_buffer(now);
                        }
                        (UplinkItem::Status(_), true) => {}
                    }
                }
                if ue.tx.poll_timeout().is_some_and(|t| t <= now) {
                    ue.tx.on_timeout(now);
                    ue.refresh_buffer(now);
                }
                if ue.rx.poll_timeout().is_some_and(|t| t <= now) {
                    ue.rx.on_timeout(now);
                    // UM reassembles on t-Reordering expiry; AM may trigger a STATUS report.
                    ue.deliver(now, &self.cfg, out, self.ran_delivered.as_mut());
                }
                if ue.pdcp_timeout().is_some_and(|t| t <= now) {
                    ue.on_pdcp_timeout(now, out);
                }
                self.refresh_wake(i);
            }
        }
        let slot_ns = self.air.slot_ns();
        let tti = now.as_ns() / slot_ns;
        let on_boundary = tti * slot_ns == now.as_ns();
        if on_boundary && tti >= self.next_tti && self.wake.any_needs_tti() {
            self.run_tti(tti, now, out);
            self.next_tti = tti + 1;
        }
        if self.capture.is_some() {
            self.capture_delivered(now);
        }
    }

    fn finish_captures(&mut self) -> std::io::Result<()> {
        match self.capture.as_deref_mut() {
            Some(c) => c.finish(),
            None => Ok(()),
        }
    }

    /// Per UE: the eNB buffer (bytes queued for the UE now, a gauge), the current CQI, and the
    /// cumulative decoded transport-block bits, delivered SDU bytes and SDUs, the summed eNB
    /// queueing delay of the delivered SDUs (seconds; its difference over the SDUs' difference
    /// is the interval's mean delay), HARQ and RLC retransmissions, RLC discards, SDUs refused
    /// by the full buffer, uplink losses, PRBs allocated, the sums behind the mean SINR
    /// and MCS (differences of a sum over differences of its count give the interval's mean,
    /// as the summary's means are the run's), and, for a UE with a downlink loss model, the
    /// packets its receiver lost (`downlink_lost`). For a UE with an mmWave channel
    /// (`[cells.NAME.nr.channel]`): the SINR of its last query (`channel_sinr_db`, dB), and with a
    /// modelled channel whether the direct path was blocked then (`blocked`, 0 or 1), the
    /// blocked time so far (`blocked_time_s`) and the blockage onsets (`blockage_events`); the
    /// channel is queried in the slots the UE is scheduled in. Per cell: PRBs used so far.
    fn sample(&self, _now: SimTime, out: &mut Vec<MediumFigure>) {
        for ue in self.reported_ues() {
            let n = ue.node;
            let c = &ue.counters;
            let mut push = |k: &str, v: f64| out.push((format!("ue.{n}.{k}"), v));
            push("buffer_bytes", ue.buffer.current() as f64);
            push("cqi", f64::from(ue.cqi.current().get()));
            push("tb_bits_decoded", c.tb_bits_decoded as f64);
            push("sdu_bytes_delivered", c.sdu_bytes_delivered as f64);
            push("sdus_delivered", c.sdus_delivered as f64);
            push("queueing_delay_sum_s", c.delay_sum_ns as f64 * 1e-9);
            push(
                "harq_retransmissions",
                ue.harq.stats().retransmissions as f64,
            );
            push("rlc_retransmissions", ue.tx.pdus_retx() as f64);
            push("rlc_discards", ue.rlc_discards() as f64);
            push("sdus_refused", ue.tx.sdus_refused() as f64);
            let ul = ue.uplink.stats();
            push("uplink_lost", (ul.packets_lost + ul.status_lost) as f64);
            push("prbs", c.prbs as f64);
            push("sinr_sum_db", c.sinr_sum_db);
            push("sinr_samples", c.sinr_samples as f64);
            push("mcs_sum", c.mcs_sum as f64);
            push("new_tbs", c.new_tbs as f64);
            if let Some(l) = &ue.downlink_loss {
                push(downlink_loss::DOWNLINK_LOST, l.lost() as f64);
            }
            if let Some(m) = ue.link.mmwave() {
                push("channel_sinr_db", m.last_sinr_db());
                if let Some(b) = m.blockage() {
                    push("blocked", f64::from(u8::from(b.blocked)));
                    push("blocked_time_s", b.blocked_ns as f64 * 1e-9);
                    push("blockage_events", b.events as f64);
                }
            }
        }
        out.push(("prbs_used".to_string(), self.prbs_used as f64));
    }

    fn report(&self, now: SimTime) -> Vec<MediumFigure> {
        let mut out = Vec::with_capacity(self.ues.len() * 20 + 2);
        for ue in self.reported_ues() {
            self.report_of(ue, now).figures(&mut out);
            if let Some(b) = ue.link.mmwave().and_then(|m| m.blockage()) {
                let n = ue.node;
                let fraction = b.blocked_fraction().unwrap_or(f64::NAN);
                out.push((format!("ue.{n}.blocked_fraction"), fraction));
                out.push((format!("ue.{n}.blockage_events"), b.events as f64));
            }
        }
        out.push(("prb_utilization".to_string(), self.prb_utilization(now)));
        out.push(("ttis_processed".to_string(), self.ttis_processed as f64));
        out
    }
}
