//! Everything the cell keeps for one UE: its radio link and CQI reports, the downlink bearer
//! (PDCP numbering, the eNB's RLC transmitting side and the UE's receiving side), the HARQ
//! entity with the RLC PDUs each process holds, the uplink FIFO, random streams and counters.

use celltcp_engine::{RngStream, SimTime};
use celltcp_net::medium::MediumOutput;
use celltcp_net::packet::NodeId;

use crate::mac::{HarqEntity, HarqProcessState};
use crate::pdcp::PdcpTx;
use crate::phy::Amc;

use super::bearer::{bearer, DlPdu, DlRx, DlTx, StampedPacket};
use super::config::{CellError, LteCellConfig, RlcModeConfig, UeConfig};
use super::radio_link::{CqiReports, RadioLink};
use super::stats::{TimeWeighted, UeCounters};
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

#[derive(Debug)]
pub(crate) struct UeContext {
    pub node: NodeId,
    pub link: RadioLink,
    pub cqi: CqiReports,
    /// SINR of the TTI being processed, dB.
    pub sinr_db: f64,
    pub pdcp: PdcpTx<StampedPacket>,
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
    pub counters: UeCounters,
    pub buffer: TimeWeighted,
    pub record: TtiRecord,
}

impl UeContext {
    pub fn new(
        cfg: &LteCellConfig,
        ue: &UeConfig,
        noise_dbm: f64,
        amc: &Amc,
        seed: u64,
        run: u64,
    ) -> Result<Self, CellError> {
        let prefix = format!("cell/{}/ue/{}", cfg.name, ue.node);
        let link = RadioLink::new(cfg, ue, noise_dbm, seed, run, &prefix)?;
        let initial_cqi = amc.cqi_for_sinr(link.large_scale_sinr_db(cfg));
        let (tx, rx) = bearer(&cfg.rlc)?;
        let n = usize::from(cfg.harq.n_processes);
        // Uplink bearer headers: PDCP data PDU header plus the fixed RLC header of the mode.
        let rlc_header = match cfg.rlc {
            RlcModeConfig::Am(c) => c.header.fixed_bytes,
            RlcModeConfig::Um(c) => c.header.fixed_bytes,
        };
        let l2_overhead = u32::from(cfg.pdcp.header_bytes()) + rlc_header;
        Ok(UeContext {
            node: ue.node,
            link,
            cqi: CqiReports::new(cfg.cqi_period_tti, cfg.cqi_delay_tti, initial_cqi),
            sinr_db: f64::NAN,
            pdcp: PdcpTx::new(cfg.pdcp)?,
            tx,
            rx,
            harq: HarqEntity::new(cfg.harq)?,
            harq_pdus: (0..n).map(|_| Vec::with_capacity(4)).collect(),
            harq_decoded: vec![false; n],
            decoded: Vec::with_capacity(8),
            uplink: UplinkFifo::new(
                l2_overhead,
                RngStream::new(seed, run, &format!("{prefix}/uplink")),
            ),
            rng_bler: RngStream::new(seed, run, &format!("{prefix}/bler")),
            counters: UeCounters::default(),
            buffer: TimeWeighted::default(),
            record: TtiRecord::default(),
        })
    }

    /// The UE needs a TTI: data to schedule, a HARQ process holding a block, or decoded PDUs
    /// to hand to its RLC.
    pub fn needs_tti(&self) -> bool {
        !self.decoded.is_empty() || self.harq.in_flight() > 0 || self.tx.buffer_bytes() > 0
    }

    /// Earliest RLC timer or uplink arrival of this UE.
    pub fn next_deadline(&self) -> Option<SimTime> {
        [
            self.tx.poll_timeout(),
            self.rx.poll_timeout(),
            self.uplink.next_deadline(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Records the eNB buffer after a change.
    pub fn refresh_buffer(&mut self, now: SimTime) {
        self.buffer.set(now, self.tx.buffer_bytes());
    }

    /// Hands the SDUs the UE's RLC has reassembled to the UE node, and queues a STATUS PDU
    /// on the uplink if the receiving side has one to send.
    pub fn deliver(&mut self, now: SimTime, cfg: &LteCellConfig, out: &mut MediumOutput) {
        while let Some(sdu) = self.rx.take_sdu() {
            let packet = sdu.sdu.packet;
            let delay = now.saturating_since(sdu.sdu.arrived).as_ns();
            let c = &mut self.counters;
            c.sdus_delivered += 1;
            c.sdu_bytes_delivered += u64::from(packet.size_bytes());
            c.delay_sum_ns += u128::from(delay);
            c.delay_max_ns = c.delay_max_ns.max(delay);
            out.delivered.push((self.node, packet));
        }
        if let Some(status) = self.rx.pull_status(now) {
            self.uplink
                .push(now, UplinkItem::Status(status), &cfg.uplink);
        }
    }

    /// Hands the PDUs decoded in the previous TTI to the UE's RLC and delivers what comes out.
    pub fn receive_decoded(&mut self, now: SimTime, cfg: &LteCellConfig, out: &mut MediumOutput) {
        if self.decoded.is_empty() {
            return;
        }
        for pdu in self.decoded.drain(..) {
            self.rx.on_pdu(now, pdu);
        }
        self.deliver(now, cfg, out);
    }

    /// Applies the HARQ feedback due in TTI `tti` (ACK when the block was decoded). A block
    /// given up after maxTx NACKs loses its RLC PDUs; RLC AM recovers the data (36.322 §5.2).
    /// Returns whether any feedback was due.
    pub fn harq_feedback(&mut self, tti: u64) -> bool {
        let mut due = [0u8; 16];
        let mut n = 0;
        for p in self.harq.feedback_due(tti) {
            if n < due.len() {
                due[n] = p;
                n += 1;
            }
        }
        for &p in &due[..n] {
            let ok = self.harq_decoded[usize::from(p)];
            if self.harq.on_feedback(tti, p, ok).is_ok()
                && self.harq.state(p) == Some(HarqProcessState::Idle)
            {
                self.harq_pdus[usize::from(p)].clear();
            }
        }
        n > 0
    }
}
