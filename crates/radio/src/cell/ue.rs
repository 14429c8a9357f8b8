//! Everything the cell keeps for one UE: its radio link and CQI reports, the downlink bearer
//! (PDCP numbering, the eNB's RLC transmitting side and the UE's receiving side), the HARQ
//! entity with the RLC PDUs each process holds, the uplink FIFO, the UE's downlink receive
//! errors, random streams and counters.

use celltcp_engine::{RngStream, SimTime};
use celltcp_net::medium::MediumOutput;
use celltcp_net::packet::{NodeId, Packet};

use crate::mac::{FeedbackOutcome, HarqEntity, Weight};
use crate::pdcp::{PdcpConfig, PdcpRx, PdcpTx};

use super::air::AirInterface;

use super::bearer::{bearer, BearerSdu, DlPdu, DlRx, DlTx, StampedPacket};
use super::config::{CellError, LteCellConfig, UeConfig};
use super::downlink_loss::{deliver_to_ue, DownlinkLoss};
use super::radio_link::CqiReports;
use super::stats::{TimeWeighted, UeCounters};
use super::ue_link::UeLink;
use super::uplink::{UplinkFifo, UplinkItem};

/// What happened to a UE in the TTI being processed (for the trace).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct TtiRecord {
    pub tti: u64,
    pub mcs: u8,
    pub n_prb: u32,
    pub tbs_bits: u32,
    pub transmission: u8,
    pub decoded: bool,
}

/// Where the SDUs a UE's RLC reassembles go: to the UE node as IP packets (a cell on its own),
/// or, in a radio access network, to a queue the network takes them from for the UE's PDCP
/// receiver, which outlives the cell's bearer (36.323 §5.1.2.1.2).
pub(crate) type RanQueue = Vec<(NodeId, BearerSdu)>;

#[derive(Debug)]
pub(crate) struct UeContext {
    pub node: NodeId,
    /// The cell serves the UE now (RRC connected here). A UE not connected is never scheduled
    /// and has no deadline: its context only follows its channel, so that the network can
    /// measure the cell at the UE and hand the UE over to it.
    pub connected: bool,
    /// The UE has been connected to the cell at some time (reports cover only these).
    pub ever_connected: bool,
    pub link: UeLink,
    pub cqi: CqiReports,
    /// SINR of the TTI being processed, dB.
    pub sinr_db: f64,
    pub pdcp: PdcpTx<StampedPacket>,
    /// The UE's PDCP receiving entity with reordering (36.323 §5.1.2.1.4, 38.323 §5.2.2.2),
    /// in a cell on its own configured with `pdcp.reordering` or of NR. `None` otherwise: without reordering the
    /// receiver of §5.1.2.1.2 delivers each SDU as RLC delivers it (in order, once), and in a
    /// radio access network the UE's receiver sits above the cells.
    pub pdcp_rx: Option<PdcpRx<StampedPacket>>,
    /// Weighted-fair-queueing weight, handed to the MAC scheduler.
    pub weight: Weight,
    pub tx: DlTx,
    pub rx: DlRx,
    pub harq: HarqEntity,
    /// RLC PDUs of the transport block each HARQ process holds (emptied when it is decoded or
    /// given up); buffers are reused.
    pub harq_pdus: Vec<Vec<DlPdu>>,
    /// Whether the last transmission on each process was decoded; reported at its feedback.
    pub harq_decoded: Vec<bool>,
    /// RLC PDUs of blocks decoded in the last processed TTI, handed to the UE's RLC at the
    /// next TTI boundary (the end of the subframe that carried them).
    pub decoded: Vec<DlPdu>,
    pub uplink: UplinkFifo,
    /// Decoding draws: one uniform per transmission.
    pub rng_bler: RngStream,
    /// Receive errors of the IP packets handed to the UE node (`downlink_loss.rs`), if the UE
    /// has a model; a cell of a radio access network has none (the network applies the UE's).
    pub downlink_loss: Option<DownlinkLoss>,
    pub counters: UeCounters,
    pub buffer: TimeWeighted,
    pub record: TtiRecord,
    /// With an IP capture of the cell: the packets RLC delivered since the cell last wrote
    /// them (`capture.rs`); `None` otherwise.
    pub ip_tap: Option<Vec<Packet>>,
}

impl UeContext {
    /// The context of `ue` in a cell configured by `cfg`; `in_ran` for a cell of a radio
    /// access network (whose UE PDCP receivers are the network's).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        cfg: &LteCellConfig,
        ue: &UeConfig,
        noise_dbm: f64,
        air: &AirInterface,
        seed: u64,
        run: u64,
        connected: bool,
        in_ran: bool,
    ) -> Result<Self, CellError> {
        let prefix = format!("cell/{}/ue/{}", cfg.name, ue.node);
        let link = UeLink::new(cfg, ue, noise_dbm, seed, run, &prefix, air.slot_ns())?;
        let initial_cqi = air.csi_for_sinr(link.large_scale_sinr_db(cfg));
        let (tx, rx) = bearer(&cfg.rlc)?;
        let n = usize::from(air.harq_processes(&cfg.harq));
        // The CQI period and delay are milliseconds (TTIs of LTE); in slots for NR.
        let slots_per_ms = air.slots_per_ms();
        // Uplink bearer headers: PDCP data PDU header plus the fixed RLC header of the mode.
        let l2_overhead = u32::from(cfg.pdcp.header_bytes()) + cfg.rlc.data_header_bytes();
        Ok(UeContext {
            node: ue.node,
            connected,
            ever_connected: connected,
            link,
            cqi: CqiReports::new(
                cfg.cqi_period_tti * slots_per_ms,
                cfg.cqi_delay_tti * slots_per_ms,
                initial_cqi,
            ),
            sinr_db: f64::NAN,
            pdcp: PdcpTx::new(cfg.pdcp)?,
            // NR's RLC delivers out of SN order, and NR PDCP always reorders (TS 38.323
            // §5.2.2.2); LTE's reorders when configured.
            pdcp_rx: if (cfg.pdcp.reordering || cfg.rlc.is_nr()) && !in_ran {
                Some(PdcpRx::new(PdcpConfig {
                    reordering: true,
                    ..cfg.pdcp
                })?)
            } else {
                None
            },
            weight: match cfg.ue_weights.get(&ue.node) {
                Some(&w) => Weight::new(w)?,
                None => Weight::ONE,
            },
            tx,
            rx,
            harq: air.harq_entity(&cfg.harq)?,
            harq_pdus: (0..n).map(|_| Vec::with_capacity(4)).collect(),
            harq_decoded: vec![false; n],
            decoded: Vec::with_capacity(8),
            uplink: UplinkFifo::new(
                l2_overhead,
                RngStream::new(seed, run, &format!("{prefix}/uplink")),
                air.slot_ns(),
                ue.node.index() as u64,
            ),
            rng_bler: RngStream::new(seed, run, &format!("{prefix}/bler")),
            downlink_loss: cfg
                .downlink_loss
                .get(&ue.node)
                .map(|m| DownlinkLoss::new(m.clone(), seed, run, &prefix)),
            counters: UeCounters::default(),
            buffer: TimeWeighted::default(),
            record: TtiRecord::default(),
            ip_tap: None,
        })
    }

    /// The UE needs a TTI: it is connected and has data to schedule, a HARQ process holding a
    /// block, or decoded PDUs to hand to its RLC.
    pub fn needs_tti(&self) -> bool {
        self.connected
            && (!self.decoded.is_empty() || self.harq.in_flight() > 0 || self.tx.buffer_bytes() > 0)
    }

    /// Earliest RLC timer or uplink arrival of this UE; none while it is not connected (its
    /// timers do not run).
    pub fn next_deadline(&self) -> Option<SimTime> {
        if !self.connected {
            return None;
        }
        [
            self.tx.poll_timeout(),
            self.rx.poll_timeout(),
            self.pdcp_rx.as_ref().and_then(|p| p.poll_timeout()),
            self.uplink.next_deadline(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// SDUs RLC lost: in AM those the eNB gave up at maxRetxThreshold (LTE's Discard mode; the
    /// UE's reassembly losses are the same SDUs; NR AM gives up none), in UM those the UE
    /// could not reassemble.
    pub fn rlc_discards(&self) -> u64 {
        match self.rx {
            DlRx::Um(_) | DlRx::NrUm(_) => self.rx.sdus_dropped(),
            DlRx::Am(_) | DlRx::NrAm(_) => self.tx.sdus_discarded(),
        }
    }

    /// Records the eNB buffer after a change.
    pub fn refresh_buffer(&mut self, now: SimTime) {
        self.buffer.set(now, self.tx.buffer_bytes());
    }

    /// Counts an SDU the UE's RLC delivered at `now`.
    fn count_delivered(&mut self, now: SimTime, sdu: &BearerSdu) {
        let delay = now.saturating_since(sdu.sdu.arrived).as_ns();
        let c = &mut self.counters;
        c.sdus_delivered += 1;
        c.sdu_bytes_delivered += u64::from(sdu.sdu.packet.size_bytes());
        c.delay_sum_ns += u128::from(delay);
        c.delay_max_ns = c.delay_max_ns.max(delay);
        if let Some(tap) = self.ip_tap.as_mut() {
            tap.push(sdu.sdu.packet);
        }
    }

    /// Hands the SDUs the UE's RLC has reassembled to the UE node (through its PDCP
    /// receiver when it reorders) or to `ran`'s queue, and queues a STATUS PDU on the uplink
    /// if the receiving side has one to send. The delivery counters are RLC's: an SDU is
    /// counted when RLC delivers it, before any PDCP reordering wait and before the UE's
    /// receive errors (which RLC does not see).
    pub fn deliver(
        &mut self,
        now: SimTime,
        cfg: &LteCellConfig,
        out: &mut MediumOutput,
        mut ran: Option<&mut RanQueue>,
    ) {
        while let Some(sdu) = self.rx.take_sdu() {
            self.count_delivered(now, &sdu);
            match (ran.as_mut(), self.pdcp_rx.as_mut()) {
                (Some(q), _) => q.push((self.node, sdu)),
                (None, Some(pdcp)) => pdcp.on_pdu(now, sdu),
                (None, None) => deliver_to_ue(
                    self.downlink_loss.as_mut(),
                    now,
                    self.node,
                    sdu.sdu.packet,
                    out,
                ),
            }
        }
        self.release_pdcp(now, out);
        if let Some(status) = self.rx.pull_status(now) {
            self.uplink
                .push(now, UplinkItem::Status(status), &cfg.uplink);
        }
    }

    /// When the UE's PDCP receiver's t-Reordering is due: its deadline, if it runs.
    pub fn pdcp_timeout(&self) -> Option<SimTime> {
        self.pdcp_rx.as_ref().and_then(|p| p.poll_timeout())
    }

    /// Runs the UE's PDCP t-Reordering due at `now` (36.323 §5.1.2.1.4.2) and delivers what
    /// it releases.
    pub fn on_pdcp_timeout(&mut self, now: SimTime, out: &mut MediumOutput) {
        if let Some(pdcp) = self.pdcp_rx.as_mut() {
            pdcp.on_timeout(now);
        }
        self.release_pdcp(now, out);
    }

    /// Delivers to the UE node the SDUs its PDCP receiver has released at `now`, in COUNT
    /// order (each subject to the UE's receive errors).
    fn release_pdcp(&mut self, now: SimTime, out: &mut MediumOutput) {
        if let Some(pdcp) = self.pdcp_rx.as_mut() {
            while let Some(sdu) = pdcp.take_sdu() {
                deliver_to_ue(self.downlink_loss.as_mut(), now, self.node, sdu.packet, out);
            }
        }
    }

    /// Hands the PDUs decoded in the previous TTI to the UE's RLC and delivers what comes out.
    pub fn receive_decoded(
        &mut self,
        now: SimTime,
        cfg: &LteCellConfig,
        out: &mut MediumOutput,
        ran: Option<&mut RanQueue>,
    ) {
        if self.decoded.is_empty() {
            return;
        }
        for pdu in self.decoded.drain(..) {
            self.rx.on_pdu(now, pdu);
        }
        self.deliver(now, cfg, out, ran);
    }

    /// The UE leaves the cell at `now` (handover command or radio link failure). The PDUs
    /// decoded and not yet handed over reach the UE's RLC, whose re-establishment (36.322 §5.4)
    /// delivers what can be reassembled into `delivered`; the eNB's RLC gives back the SDUs
    /// not confirmed (AM) or not transmitted (UM) and is re-established; HARQ is reset (MAC
    /// reset, 36.321 §5.9: the blocks in flight are lost); the uplink queue is emptied.
    /// Returns (unconfirmed downlink SDUs, uplink packets). Counters are kept.
    pub fn detach(
        &mut self,
        now: SimTime,
        delivered: &mut Vec<BearerSdu>,
    ) -> (Vec<BearerSdu>, Vec<Packet>) {
        for pdu in self.decoded.drain(..) {
            self.rx.on_pdu(now, pdu);
        }
        self.rx.reestablish();
        while let Some(sdu) = self.rx.take_sdu() {
            self.count_delivered(now, &sdu);
            delivered.push(sdu);
        }
        let unconfirmed = self.tx.take_unconfirmed();
        self.harq.reset();
        self.harq_pdus.iter_mut().for_each(Vec::clear);
        self.harq_decoded.fill(false);
        let uplink = self.uplink.drain_packets();
        self.connected = false;
        self.refresh_buffer(now);
        (unconfirmed, uplink)
    }

    /// The UE has accessed the cell (handover confirm) and is served from TTI `first_tti`: its
    /// PDCP transmitter continues at `next_dl_count` (36.423 §9.1.4.4 SN STATUS TRANSFER), the
    /// scheduler uses the CQI of the large-scale SINR until the UE's first periodic report. Its
    /// RLC and HARQ entities are fresh already (built so, or re-established at its last
    /// detach); SDUs forwarded to it meanwhile are kept.
    pub fn attach(
        &mut self,
        cfg: &LteCellConfig,
        air: &AirInterface,
        first_tti: u64,
        next_dl_count: u32,
    ) -> Result<(), CellError> {
        self.pdcp = PdcpTx::resume(cfg.pdcp, next_dl_count)?;
        let initial_cqi = air.csi_for_sinr(self.link.large_scale_sinr_db(cfg));
        self.cqi.restart(first_tti, initial_cqi);
        self.connected = true;
        self.ever_connected = true;
        Ok(())
    }

    /// Applies the HARQ feedback due in TTI `tti` (ACK when the block was decoded). A block
    /// given up after maxTx NACKs loses its RLC PDUs; RLC AM recovers the data (36.322 §5.2).
    /// Returns whether any feedback was due.
    pub fn harq_feedback(&mut self, tti: u64) -> bool {
        let UeContext {
            harq,
            harq_decoded,
            harq_pdus,
            ..
        } = self;
        let applied = harq.apply_feedback_due(
            tti,
            |p| harq_decoded[usize::from(p)],
            |p, outcome| {
                // Acknowledged or given up: the process is idle and its PDUs are done with.
                if !matches!(outcome, FeedbackOutcome::RetxPending { .. }) {
                    harq_pdus[usize::from(p)].clear();
                }
            },
        );
        applied > 0
    }
}
