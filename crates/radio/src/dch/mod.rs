//! A WCDMA/UMTS dedicated channel (DCH) between an RNC and one UE, with RLC acknowledged mode,
//! as a medium of the network ([`celltcp_net::medium::Medium`]).
//!
//! ```text
//!  send(RNC → UE) ─► RLC AM tx at the RNC (25.322, fixed 42-byte PDUs, MaxDAT discard)
//!                        │ per downlink TTI: up to N PDUs, one per transport block
//!                        ▼ each block lost with probability BLER
//!                    (end of TTI + delay) RLC AM rx at the UE ─► in-order SDUs ─► UE node
//!                                                   │ STATUS PDUs
//!  send(UE → RNC) ─► RLC AM tx at the UE ─── per uplink TTI, same rules ───► RLC rx at the RNC
//! ```
//!
//! Each end holds one RLC AM entity (25.322 §4.2.1.3, [`RlcAmEntity`]): the RNC's transmits
//! the downlink data and receives the uplink data (the TCP ACKs), the UE's the reverse; the
//! STATUS PDUs of each receiving side travel in the transport blocks of the other direction,
//! ahead of data. Both directions work alike (`channel`): a TTI carries at most N transport
//! blocks of one PDU each ([`config`] gives the transport-block arithmetic), each block is lost
//! with the direction's BLER — independently, or with the BLER of the TTI's state in a
//! Gilbert–Elliott channel whose long-run BLER is the configured one ([`errors`]) — and the
//! received blocks reach the peer at the end of the TTI plus a fixed delay standing for the Iub transport and the Node B and RNC
//! processing. RLC AM then recovers losses by ARQ and delivers in order; after MaxDAT
//! transmissions of a PDU it discards the SDUs concerned and moves the receiver on with an MRW.
//!
//! Timing and the call contract (the world's, see `celltcp_net::medium`):
//! * `send(RNC → UE)` writes the packet into the RNC's RLC buffer, `send(UE → RNC)` into the
//!   UE's (a full buffer drops it with `DropCause::QueueFull`);
//! * `poll_timeout` returns the next TTI boundary of a direction only while that direction's
//!   sender has something to send (data, a retransmission, an MRW or a STATUS report that may go
//!   now), otherwise the earliest block arrival or RLC timer, and `None` when idle;
//! * `on_timer(now)`, in this order at one instant: delivers the downlink blocks due (then the
//!   in-order SDUs to the UE node), the uplink blocks due (SDUs to the RNC node), runs the RLC
//!   timers due, then the downlink TTI and the uplink TTI starting at `now`, if any has work.
//!   A STATUS PDU arriving at a TTI boundary is therefore acted upon in that TTI.
//!
//! Randomness: the `RngStream` the world hands to `on_timer` is not used. Each direction draws
//! one uniform per transport block from its own stream, `dch/NAME/downlink` and
//! `dch/NAME/uplink`, derived from the seed and run given to [`DchLink::new`], so uplink
//! traffic never changes the downlink's losses; a Gilbert–Elliott channel draws one uniform per
//! TTI with blocks from `dch/NAME/DIRECTION/gilbert_elliott`.

mod channel;
pub mod config;
pub mod errors;
pub mod sdu;
pub mod series;
pub mod stats;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_errors;

use celltcp_engine::{RngStream, SimTime};
use celltcp_net::medium::{Medium, MediumFigure, MediumOutput};
use celltcp_net::packet::{NodeId, Packet};
use celltcp_net::queue::DropCause;
use celltcp_net::trace::Traces;

use crate::cell::stats::TimeWeighted;
use crate::rlc::{earliest, RlcAmEntity, RlcAmRx, RlcAmTx, RlcAmTxStats};

pub use channel::ChannelStats;
pub use config::{
    DchConfig, DchDirectionConfig, DchError, DchRlcConfig, TransportFormat, AMD_HEADER_BYTES,
    DCH_TTIS_MS, MAX_PDU_BYTES, STANDARD_RATES_BPS,
};
pub use errors::{BlockErrorModel, BlockErrorsError, GilbertElliottChain, GilbertElliottConfig};
pub use sdu::DchSdu;
pub use series::{DchSample, SAMPLE_FIGURES, SERIES_COLUMNS};
pub use stats::{Activity, DchReport, DeliveryCounters, DirectionReport};

use channel::TransportChannel;
use errors::BlockErrors;
use sdu::PacketStore;

/// The RLC AM entity of one end, carrying references to the packets of a [`PacketStore`].
type Entity = RlcAmEntity<DchSdu>;

/// An RNC and one UE joined by a dedicated channel, as a medium of the network.
pub struct DchLink {
    cfg: DchConfig,
    /// The RNC's RLC AM entity: downlink transmitting side, uplink receiving side.
    rnc: Entity,
    /// The UE's RLC AM entity: uplink transmitting side, downlink receiving side.
    ue: Entity,
    downlink: TransportChannel,
    uplink: TransportChannel,
    /// The packets in the downlink's and the uplink's RLC.
    dl_packets: PacketStore,
    ul_packets: PacketStore,
    /// Latest time seen in `send` or `on_timer`.
    now: SimTime,
    /// SDUs delivered to the UE (downlink) and to the RNC (uplink).
    dl_delivered: DeliveryCounters,
    ul_delivered: DeliveryCounters,
    /// SDU bytes waiting for their first transmission at the RNC and at the UE.
    dl_buffer: TimeWeighted,
    ul_buffer: TimeWeighted,
    activity: Activity,
    /// The IP packets delivered at either end, when captured (docs/captures.md).
    capture: Option<Box<crate::cell::IpCapture>>,
}

impl std::fmt::Debug for DchLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DchLink")
            .field("name", &self.cfg.name)
            .field("rnc", &self.cfg.rnc)
            .field("ue", &self.cfg.ue)
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

/// Whether `e` has something its transmission opportunity could carry at `now`: new data,
/// retransmissions, an MRW, or a STATUS report not held by Timer_Status_Prohibit.
fn needs_tti(e: &Entity, now: SimTime) -> bool {
    !e.tx.buffer_status().is_empty() || (e.rx.status_triggered() && e.rx.status_bytes(now) > 0)
}

/// A delivered SDU whose packet the link does not hold (delivered twice, or never written):
/// a panic naming the link and the invariant, which the engine reports as the model's panic.
#[cold]
#[inline(never)]
fn broken_invariant(link: &str, now: SimTime, sdu: DchSdu) -> ! {
    panic!(
        "dch {link} at {} ns: broken invariant: RLC delivered SDU {} ({} bytes) whose packet is \
         not held (delivered twice or never written)",
        now.as_ns(),
        sdu.seq,
        sdu.size_bytes
    )
}

impl DchLink {
    /// A DCH configured by `cfg`; random streams from (`seed`, `run`).
    pub fn new(cfg: DchConfig, seed: u64, run: u64) -> Result<Self, DchError> {
        cfg.validate()?;
        let am = cfg.rlc.am_config();
        let payload = cfg.rlc.pdu_payload_bytes;
        let stream = |dir: &str| RngStream::new(seed, run, &format!("dch/{}/{dir}", cfg.name));
        let errors = |dir: &'static str, d: &DchDirectionConfig| match &d.errors {
            BlockErrorModel::Independent => Ok(BlockErrors::independent(d.bler)),
            BlockErrorModel::GilbertElliott(ge) => {
                let chain = ge
                    .chain(d.bler, d.tti)
                    .map_err(|source| DchError::Errors { dir, source })?;
                Ok::<_, DchError>(BlockErrors::gilbert_elliott(
                    chain,
                    stream(&format!("{dir}/gilbert_elliott")),
                ))
            }
        };
        let downlink = TransportChannel::new(
            TransportFormat::new(&cfg.downlink, payload)?,
            errors("downlink", &cfg.downlink)?,
            cfg.delay,
            am.sn_bits,
            stream("downlink"),
        );
        let uplink = TransportChannel::new(
            TransportFormat::new(&cfg.uplink, payload)?,
            errors("uplink", &cfg.uplink)?,
            cfg.delay,
            am.sn_bits,
            stream("uplink"),
        );
        let am_rx = cfg.rlc.am_rx_config();
        let entity = || -> Result<Entity, DchError> {
            Ok(Entity {
                tx: RlcAmTx::new(am)?,
                rx: RlcAmRx::new(am_rx)?,
            })
        };
        Ok(DchLink {
            rnc: entity()?,
            ue: entity()?,
            downlink,
            uplink,
            dl_packets: PacketStore::default(),
            ul_packets: PacketStore::default(),
            now: SimTime::ZERO,
            dl_delivered: DeliveryCounters::default(),
            ul_delivered: DeliveryCounters::default(),
            dl_buffer: TimeWeighted::default(),
            ul_buffer: TimeWeighted::default(),
            activity: Activity::new(cfg.session_gap),
            capture: None,
            cfg,
        })
    }

    /// Captures the IP packets the channel delivers from now on: downlink packets as the UE's
    /// RLC delivers them (inbound), uplink packets as the RNC's does (outbound), on the
    /// capture's interface 0.
    pub fn set_capture(&mut self, capture: crate::cell::IpCapture) {
        self.capture = Some(Box::new(capture));
    }

    pub fn config(&self) -> &DchConfig {
        &self.cfg
    }

    /// The transport format of the downlink and of the uplink.
    pub fn formats(&self) -> (TransportFormat, TransportFormat) {
        (*self.downlink.format(), *self.uplink.format())
    }

    /// Transport-channel counters of the downlink and of the uplink.
    pub fn channel_stats(&self) -> (ChannelStats, ChannelStats) {
        (self.downlink.stats(), self.uplink.stats())
    }

    /// RLC counters of the RNC's and the UE's transmitting sides.
    pub fn rlc_tx_stats(&self) -> (RlcAmTxStats, RlcAmTxStats) {
        (self.rnc.tx.stats(), self.ue.tx.stats())
    }

    /// SDUs delivered to the UE and to the RNC.
    pub fn deliveries(&self) -> (DeliveryCounters, DeliveryCounters) {
        (self.dl_delivered, self.ul_delivered)
    }

    /// Packets held for the downlink's and the uplink's RLC (written, not yet delivered or
    /// known to be lost).
    pub fn packets_held(&self) -> (usize, usize) {
        (self.dl_packets.len(), self.ul_packets.len())
    }

    /// The downlink RLC's busy periods and sessions.
    pub fn activity(&self) -> &Activity {
        &self.activity
    }

    /// The summary with rates over [0, now].
    pub fn dch_report(&self, now: SimTime) -> DchReport {
        let bytes_bits = self.dl_delivered.bytes as f64 * 8.0;
        let per = |s: f64| if s > 0.0 { bytes_bits / s } else { f64::NAN };
        let active = self.activity.active(now).as_secs_f64();
        let busy = self.activity.busy(now).as_secs_f64();
        DchReport {
            rlc_throughput_bps: per(active),
            busy_throughput_bps: per(busy),
            rlc_active_s: active,
            rlc_busy_s: busy,
            sessions: self.activity.sessions(),
            downlink: self.direction_report(true, now),
            uplink: self.direction_report(false, now),
        }
    }

    /// Gauges at `now` — the SDU bytes waiting at the RNC and at the UE — and cumulative
    /// counters: SDU bytes and SDUs delivered to the UE and their summed RNC-to-UE delay (s),
    /// the RNC's new and retransmitted AMD PDUs, downlink blocks sent and lost, SDUs discarded
    /// after MaxDAT, downlink MRW blocks, the downlink RLC's busy time (s), uplink blocks sent
    /// and those carrying STATUS PDUs.
    pub fn dch_sample(&self, now: SimTime) -> DchSample {
        let t = self.rnc.tx.stats();
        let d = &self.dl_delivered;
        let (dl, ul) = (self.downlink.stats(), self.uplink.stats());
        DchSample([
            self.dl_buffer.current() as f64,
            self.ul_buffer.current() as f64,
            d.bytes as f64,
            d.sdus as f64,
            d.delay_sum_ns as f64 * 1e-9,
            t.pdus_new as f64,
            t.pdus_retx as f64,
            dl.tbs_sent as f64,
            dl.tbs_lost as f64,
            t.sdus_discarded as f64,
            dl.mrw_tbs as f64,
            self.activity.busy(now).as_secs_f64(),
            ul.tbs_sent as f64,
            ul.status_tbs as f64,
        ])
    }

    fn direction_report(&self, downlink: bool, now: SimTime) -> DirectionReport {
        let (dir, ch, tx, rx, delivered, buffer) = if downlink {
            (
                &self.cfg.downlink,
                &self.downlink,
                &self.rnc,
                &self.ue,
                &self.dl_delivered,
                &self.dl_buffer,
            )
        } else {
            (
                &self.cfg.uplink,
                &self.uplink,
                &self.ue,
                &self.rnc,
                &self.ul_delivered,
                &self.ul_buffer,
            )
        };
        let secs = now.as_secs_f64();
        let c = ch.stats();
        let t = tx.tx.stats();
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
        DirectionReport {
            rate_bps: dir.rate_bps,
            tbs_per_tti: ch.format().tbs_per_tti,
            payload_rate_bps: ch.format().payload_rate_bps(),
            tti_s: dir.tti.as_secs_f64(),
            sdus_delivered: delivered.sdus,
            sdu_bytes_delivered: delivered.bytes,
            run_throughput_bps: ratio(delivered.bytes as f64 * 8.0, secs),
            sdus_refused: t.sdus_refused,
            delay_mean_s: ratio(delivered.delay_sum_ns as f64, delivered.sdus as f64) * 1e-9,
            delay_max_s: delivered.delay_max_ns as f64 * 1e-9,
            pdus_sent: t.pdus_new,
            pdus_retransmitted: t.pdus_retx,
            tbs_sent: c.tbs_sent,
            tbs_lost: c.tbs_lost,
            bler_measured: ratio(c.tbs_lost as f64, c.tbs_sent as f64),
            status_pdus: c.status_tbs,
            mrw_pdus: c.mrw_tbs,
            max_dat_discards: t.sdus_discarded,
            pdus_discarded: t.pdus_discarded,
            sdus_lost: rx.rx.stats().sdus_dropped,
            ttis: c.ttis,
            ttis_bad: c.ttis_bad,
            buffer_mean_bytes: buffer.mean(now),
            buffer_max_bytes: buffer.max(),
        }
    }

    /// Hands the SDUs `e` reassembled to `node`, with their packets from `store`, recording
    /// their delays. Every delivered SDU was written with its packet, and in-sequence delivery
    /// never hands one over twice, so the store holds each one's packet; one it does not hold
    /// is a broken invariant of the link `link` and fails loudly, where skipping it would lose
    /// the packet silently.
    fn deliver(
        link: &str,
        e: &mut Entity,
        store: &mut PacketStore,
        node: NodeId,
        now: SimTime,
        counters: &mut DeliveryCounters,
        out: &mut MediumOutput,
    ) {
        while let Some(sdu) = e.take_sdu() {
            let Some(p) = store.take(sdu) else {
                broken_invariant(link, now, sdu)
            };
            counters.record(sdu.size_bytes, now.saturating_since(p.arrived));
            out.delivered.push((node, p.packet));
        }
    }

    /// Updates the buffer gauges and the downlink RLC's activity after a change at `now`.
    fn record_state(&mut self, now: SimTime) {
        let (dl_sdus, dl_bytes) = self.rnc.tx.tx_buffer_len();
        self.dl_buffer.set(now, dl_bytes);
        self.ul_buffer.set(now, self.ue.tx.tx_buffer_len().1);
        self.activity
            .set(now, dl_sdus > 0 || self.rnc.tx.unacked_pdus() > 0);
    }
}

impl Medium for DchLink {
    fn name(&self) -> &str {
        &self.cfg.name
    }

    fn edges(&self) -> Vec<(NodeId, NodeId)> {
        vec![(self.cfg.rnc, self.cfg.ue)]
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
        let (rnc, ue) = (self.cfg.rnc, self.cfg.ue);
        let (entity, store) = match (from, to) {
            (f, t) if f == rnc && t == ue => (&mut self.rnc, &mut self.dl_packets),
            (f, t) if f == ue && t == rnc => (&mut self.ue, &mut self.ul_packets),
            _ => {
                out.dropped.push((pkt, DropCause::NoRoute));
                return;
            }
        };
        let sdu = store.insert(pkt, now);
        if entity.write_sdu(now, sdu).is_err() {
            store.remove_last();
            out.dropped.push((pkt, DropCause::QueueFull));
        }
        self.record_state(now);
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        let now = self.now;
        let mut t = earliest(self.downlink.next_arrival(), self.uplink.next_arrival());
        t = earliest(t, earliest(self.rnc.poll_timeout(), self.ue.poll_timeout()));
        if needs_tti(&self.rnc, now) {
            t = earliest(t, Some(self.downlink.next_tti_start(now)));
        }
        if needs_tti(&self.ue, now) {
            t = earliest(t, Some(self.uplink.next_tti_start(now)));
        }
        t
    }

    fn on_timer(
        &mut self,
        now: SimTime,
        _rng: &mut RngStream,
        _traces: &mut Traces,
        out: &mut MediumOutput,
    ) {
        self.now = self.now.max(now);
        let (rnc, ue) = (self.cfg.rnc, self.cfg.ue);
        while let Some(pdu) = self.downlink.pop_due(now) {
            self.ue.on_pdu(now, pdu);
        }
        while let Some(pdu) = self.uplink.pop_due(now) {
            self.rnc.on_pdu(now, pdu);
        }
        // Timers due now, including a zero t-Reordering started by a gap just received (the
        // Missing PDU Indicator, `config.rs`), before the TTIs that may carry their reports.
        self.rnc.on_timeout(now);
        self.ue.on_timeout(now);
        let first_delivered = out.delivered.len();
        Self::deliver(
            &self.cfg.name,
            &mut self.ue,
            &mut self.dl_packets,
            ue,
            now,
            &mut self.dl_delivered,
            out,
        );
        Self::deliver(
            &self.cfg.name,
            &mut self.rnc,
            &mut self.ul_packets,
            rnc,
            now,
            &mut self.ul_delivered,
            out,
        );
        if let Some(c) = self.capture.as_deref_mut() {
            for (node, p) in &out.delivered[first_delivered..] {
                c.write(0, now, p, *node == ue);
            }
        }
        if let Some(k) = self.downlink.tti_at(now) {
            if needs_tti(&self.rnc, now) {
                self.downlink.run_tti(k, now, &mut self.rnc);
            }
        }
        if let Some(k) = self.uplink.tti_at(now) {
            if needs_tti(&self.ue, now) {
                self.uplink.run_tti(k, now, &mut self.ue);
            }
        }
        self.record_state(now);
    }

    fn finish_captures(&mut self) -> std::io::Result<()> {
        match self.capture.as_deref_mut() {
            Some(c) => c.finish(),
            None => Ok(()),
        }
    }

    fn report(&self, now: SimTime) -> Vec<MediumFigure> {
        let mut out = Vec::with_capacity(64);
        self.dch_report(now).figures(&mut out);
        out
    }

    /// The figures of [`DchSample`] at `now` (the `[trace] dch` series, [`series`]).
    fn sample(&self, now: SimTime, out: &mut Vec<MediumFigure>) {
        out.extend(
            self.dch_sample(now)
                .figures()
                .map(|(k, v)| (k.to_string(), v)),
        );
    }
}
