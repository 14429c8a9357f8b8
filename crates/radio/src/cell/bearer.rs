//! The downlink data radio bearer of one UE: PDCP numbering at the eNB, then RLC AM or UM,
//! with the eNB's transmitting side and the UE's receiving side behind one interface.
//!
//! The SDU that RLC carries is the PDCP PDU of an IP packet ([`BearerSdu`]): its size is the IP
//! datagram plus the PDCP header (TS 36.323 §6.2.3: 2 bytes for a 12-bit SN), and it remembers
//! when the packet reached the eNB so that the queueing delay can be measured at delivery.
//!
//! The UE's PDCP receiving entity is instantiated only when it reorders (`pdcp.reordering`,
//! 36.323 §5.1.2.1.4, in a cell on its own; it lives in the UE's context, `ue.rs`). Without
//! reordering it would be a pass-through: over RLC AM it receives SDUs in order and exactly
//! once, so (36.323 §5.1.2.1.2) it delivers each one as it arrives; over RLC UM (§5.1.2.2) it
//! delivers in the order RLC delivers. Ciphering and header compression are not modelled (PDCP
//! module documentation).

use celltcp_engine::SimTime;
use celltcp_net::packet::Packet;

use crate::pdcp::PdcpPdu;
use crate::rlc::{
    RlcAmRx, RlcAmTx, RlcConfigError, RlcPdu, RlcSdu, RlcSduRefused, RlcUmRx, RlcUmTx, StatusPdu,
    UmdPdu,
};

use super::config::RlcModeConfig;

/// An IP packet queued at the eNB, with its arrival time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StampedPacket {
    pub packet: Packet,
    /// When the packet was handed to the cell (`send`).
    pub arrived: SimTime,
}

impl RlcSdu for StampedPacket {
    #[inline]
    fn size_bytes(&self) -> u32 {
        self.packet.size_bytes()
    }
    #[inline]
    fn sdu_id(&self) -> u64 {
        self.packet.uid
    }
}

/// What the downlink RLC carries: the PDCP PDU of a stamped IP packet.
pub type BearerSdu = PdcpPdu<StampedPacket>;

/// A downlink RLC PDU as the MAC carries it.
#[derive(Clone, Debug)]
pub enum DlPdu {
    Am(RlcPdu<BearerSdu>),
    Um(UmdPdu<BearerSdu>),
}

impl DlPdu {
    /// Size on the air (RLC header, data, padding), bytes.
    pub fn size_bytes(&self) -> u32 {
        match self {
            DlPdu::Am(p) => p.size_bytes(),
            DlPdu::Um(p) => p.size_bytes(),
        }
    }
}

/// The eNB's transmitting RLC entity of one UE.
#[derive(Debug)]
pub enum DlTx {
    Am(Box<RlcAmTx<BearerSdu>>),
    Um(Box<RlcUmTx<BearerSdu>>),
}

/// The UE's receiving RLC entity.
#[derive(Debug)]
pub enum DlRx {
    Am(Box<RlcAmRx<BearerSdu>>),
    Um(Box<RlcUmRx<BearerSdu>>),
}

/// Builds the two sides of a bearer.
pub fn bearer(cfg: &RlcModeConfig) -> Result<(DlTx, DlRx), RlcConfigError> {
    Ok(match cfg {
        RlcModeConfig::Am(c) => (
            DlTx::Am(Box::new(RlcAmTx::new(*c)?)),
            DlRx::Am(Box::new(RlcAmRx::new(*c)?)),
        ),
        RlcModeConfig::Um(c) => (
            DlTx::Um(Box::new(RlcUmTx::new(*c)?)),
            DlRx::Um(Box::new(RlcUmRx::new(*c)?)),
        ),
    })
}

impl DlTx {
    pub fn write_sdu(&mut self, now: SimTime, sdu: BearerSdu) -> Result<(), RlcSduRefused> {
        match self {
            DlTx::Am(t) => t.write_sdu(now, sdu),
            DlTx::Um(t) => t.write_sdu(now, sdu),
        }
    }

    /// Whether the RLC buffer would take an SDU of `size` bytes after `ahead_sdus` more of
    /// `ahead_bytes` in all.
    pub fn admits_after(&self, ahead_sdus: usize, ahead_bytes: u64, size: u32) -> bool {
        match self {
            DlTx::Am(t) => t.admits_after(ahead_sdus, ahead_bytes, size),
            DlTx::Um(t) => t.admits_after(ahead_sdus, ahead_bytes, size),
        }
    }

    /// Bytes the MAC should schedule (36.321 §5.4.5 buffer size: data with estimated RLC
    /// headers, retransmissions, control PDUs).
    pub fn buffer_bytes(&self) -> u64 {
        match self {
            DlTx::Am(t) => t.buffer_status().total_bytes(),
            DlTx::Um(t) => t.buffer_status().total_bytes(),
        }
    }

    /// The next PDU for a transmission opportunity of `grant_bytes`.
    pub fn pull_pdu(&mut self, now: SimTime, grant_bytes: u32) -> Option<DlPdu> {
        match self {
            DlTx::Am(t) => t.pull_pdu(now, grant_bytes).map(DlPdu::Am),
            DlTx::Um(t) => t.pull_pdu(now, grant_bytes).map(DlPdu::Um),
        }
    }

    /// A STATUS PDU from the UE (AM only; ignored in UM, which has none).
    pub fn on_status(&mut self, now: SimTime, status: &StatusPdu) {
        if let DlTx::Am(t) = self {
            t.on_status(now, status);
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self {
            DlTx::Am(t) => t.poll_timeout(),
            DlTx::Um(_) => None,
        }
    }

    pub fn on_timeout(&mut self, now: SimTime) {
        if let DlTx::Am(t) = self {
            t.on_timeout(now);
        }
    }

    /// RLC retransmissions (AMD PDUs and segments sent again).
    pub fn pdus_retx(&self) -> u64 {
        match self {
            DlTx::Am(t) => t.stats().pdus_retx,
            DlTx::Um(_) => 0,
        }
    }

    /// SDUs discarded by the transmitting side at maxRetxThreshold (AM Discard mode).
    pub fn sdus_discarded(&self) -> u64 {
        match self {
            DlTx::Am(t) => t.stats().sdus_discarded,
            DlTx::Um(_) => 0,
        }
    }

    /// Times an AMD PDU reached maxRetxThreshold.
    pub fn max_retx_reached_count(&self) -> u64 {
        match self {
            DlTx::Am(t) => t.stats().max_retx_reached,
            DlTx::Um(_) => 0,
        }
    }

    /// The radio-link-failure indication of 36.322 §5.2.1 has been latched (AM in
    /// `RadioLinkFailure` mode only: `Discard` mode discards instead of indicating).
    pub fn max_retx_reached(&self) -> bool {
        match self {
            DlTx::Am(t) => t.max_retx_reached(),
            DlTx::Um(_) => false,
        }
    }

    /// Handover: the SDUs to forward — AM: from the first whose delivery is not confirmed
    /// ([`RlcAmTx::take_unconfirmed`]); UM: those not yet entirely transmitted
    /// ([`RlcUmTx::take_untransmitted`]) — after which the entity is re-established.
    pub fn take_unconfirmed(&mut self) -> Vec<BearerSdu> {
        match self {
            DlTx::Am(t) => t.take_unconfirmed(),
            DlTx::Um(t) => t.take_untransmitted(),
        }
    }

    /// SDUs refused because the transmission buffer was full.
    pub fn sdus_refused(&self) -> u64 {
        match self {
            DlTx::Am(t) => t.stats().sdus_refused,
            DlTx::Um(t) => t.stats().sdus_refused,
        }
    }
}

impl DlRx {
    pub fn on_pdu(&mut self, now: SimTime, pdu: DlPdu) {
        match (self, pdu) {
            (DlRx::Am(r), DlPdu::Am(p)) => r.on_pdu(now, p),
            (DlRx::Um(r), DlPdu::Um(p)) => r.on_pdu(now, p),
            // Both sides of a bearer are built from one mode; a mismatch cannot occur.
            _ => {}
        }
    }

    pub fn take_sdu(&mut self) -> Option<BearerSdu> {
        match self {
            DlRx::Am(r) => r.take_sdu(),
            DlRx::Um(r) => r.take_sdu(),
        }
    }

    /// The STATUS PDU to send on the uplink now, if one is triggered and allowed (AM only).
    /// The uplink grant is not a constraint here: the abstracted uplink carries any size.
    pub fn pull_status(&mut self, now: SimTime) -> Option<StatusPdu> {
        match self {
            DlRx::Am(r) if r.status_triggered() => r.pull_status(now, u32::MAX),
            _ => None,
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self {
            DlRx::Am(r) => r.poll_timeout(),
            DlRx::Um(r) => r.poll_timeout(),
        }
    }

    pub fn on_timeout(&mut self, now: SimTime) {
        match self {
            DlRx::Am(r) => r.on_timeout(now),
            DlRx::Um(r) => r.on_timeout(now),
        }
    }

    /// RLC re-establishment (36.322 §5.4): what can be reassembled becomes available to
    /// [`take_sdu`](Self::take_sdu), the rest is discarded, state and timers are reset.
    pub fn reestablish(&mut self) {
        match self {
            DlRx::Am(r) => r.reestablish(),
            DlRx::Um(r) => r.reestablish(),
        }
    }

    /// SDUs the receiving side could not reassemble (lost pieces).
    pub fn sdus_dropped(&self) -> u64 {
        match self {
            DlRx::Am(r) => r.stats().sdus_dropped,
            DlRx::Um(r) => r.stats().sdus_dropped,
        }
    }
}
