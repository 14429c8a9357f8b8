//! The downlink data radio bearer of one UE: PDCP numbering at the eNB, then RLC AM or UM —
//! LTE's (TS 36.322) in an LTE cell, NR's (TS 38.322) in an NR cell — with the eNB's
//! transmitting side and the UE's receiving side behind one interface.
//!
//! NR's RLC delivers each SDU once it is complete, out of SN order after a loss (38.322
//! §5.2.3.2.3), so the UE's PDCP receiver above an NR bearer always reorders (TS 38.323
//! §5.2.2.2); see `ue.rs` and the radio access network's UE receiver.
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

use crate::nr::rlc::{NrAmdPdu, NrRlcAmRx, NrRlcAmTx, NrRlcUmRx, NrRlcUmTx, NrStatusPdu, NrUmdPdu};
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
    /// An NR AMD PDU (the downlink carries no NR STATUS PDU: the UE's go on the uplink).
    NrAm(NrAmdPdu<BearerSdu>),
    NrUm(NrUmdPdu<BearerSdu>),
}

impl DlPdu {
    /// Size on the air (RLC header, data, padding), bytes.
    pub fn size_bytes(&self) -> u32 {
        match self {
            DlPdu::Am(p) => p.size_bytes(),
            DlPdu::Um(p) => p.size_bytes(),
            DlPdu::NrAm(p) => p.size_bytes(),
            DlPdu::NrUm(p) => p.size_bytes(),
        }
    }
}

/// A STATUS PDU of the UE's receiving side, for the eNB's transmitting side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UlStatus {
    Lte(StatusPdu),
    Nr(NrStatusPdu),
}

impl UlStatus {
    /// Size on the air, bytes.
    pub fn size_bytes(&self) -> u32 {
        match self {
            UlStatus::Lte(s) => s.size_bytes(),
            UlStatus::Nr(s) => s.size_bytes(),
        }
    }
}

/// The eNB's transmitting RLC entity of one UE.
#[derive(Debug)]
pub enum DlTx {
    Am(Box<RlcAmTx<BearerSdu>>),
    Um(Box<RlcUmTx<BearerSdu>>),
    NrAm(Box<NrRlcAmTx<BearerSdu>>),
    NrUm(Box<NrRlcUmTx<BearerSdu>>),
}

/// The UE's receiving RLC entity.
#[derive(Debug)]
pub enum DlRx {
    Am(Box<RlcAmRx<BearerSdu>>),
    Um(Box<RlcUmRx<BearerSdu>>),
    NrAm(Box<NrRlcAmRx<BearerSdu>>),
    NrUm(Box<NrRlcUmRx<BearerSdu>>),
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
        RlcModeConfig::NrAm(c) => (
            DlTx::NrAm(Box::new(NrRlcAmTx::new(*c)?)),
            DlRx::NrAm(Box::new(NrRlcAmRx::new(*c)?)),
        ),
        RlcModeConfig::NrUm(c) => (
            DlTx::NrUm(Box::new(NrRlcUmTx::new(*c)?)),
            DlRx::NrUm(Box::new(NrRlcUmRx::new(*c)?)),
        ),
    })
}

impl DlTx {
    pub fn write_sdu(&mut self, now: SimTime, sdu: BearerSdu) -> Result<(), RlcSduRefused> {
        match self {
            DlTx::Am(t) => t.write_sdu(now, sdu),
            DlTx::Um(t) => t.write_sdu(now, sdu),
            DlTx::NrAm(t) => t.write_sdu(now, sdu),
            DlTx::NrUm(t) => t.write_sdu(now, sdu),
        }
    }

    /// Whether the RLC buffer would take an SDU of `size` bytes after `ahead_sdus` more of
    /// `ahead_bytes` in all.
    pub fn admits_after(&self, ahead_sdus: usize, ahead_bytes: u64, size: u32) -> bool {
        match self {
            DlTx::Am(t) => t.admits_after(ahead_sdus, ahead_bytes, size),
            DlTx::Um(t) => t.admits_after(ahead_sdus, ahead_bytes, size),
            DlTx::NrAm(t) => t.admits_after(ahead_sdus, ahead_bytes, size),
            DlTx::NrUm(t) => t.admits_after(ahead_sdus, ahead_bytes, size),
        }
    }

    /// Bytes the MAC should schedule (36.321 §5.4.5 buffer size: data with estimated RLC
    /// headers, retransmissions, control PDUs).
    pub fn buffer_bytes(&self) -> u64 {
        match self {
            DlTx::Am(t) => t.buffer_status().total_bytes(),
            DlTx::Um(t) => t.buffer_status().total_bytes(),
            DlTx::NrAm(t) => t.buffer_status().total_bytes(),
            DlTx::NrUm(t) => t.buffer_status().total_bytes(),
        }
    }

    /// The next PDU for a transmission opportunity of `grant_bytes`.
    pub fn pull_pdu(&mut self, now: SimTime, grant_bytes: u32) -> Option<DlPdu> {
        match self {
            DlTx::Am(t) => t.pull_pdu(now, grant_bytes).map(DlPdu::Am),
            DlTx::Um(t) => t.pull_pdu(now, grant_bytes).map(DlPdu::Um),
            DlTx::NrAm(t) => t.pull_pdu(now, grant_bytes).map(DlPdu::NrAm),
            DlTx::NrUm(t) => t.pull_pdu(now, grant_bytes).map(DlPdu::NrUm),
        }
    }

    /// A STATUS PDU from the UE (AM only; UM has none). The NR entity's delivery and
    /// threshold indications are not read as events here: the network takes the delivery
    /// from what RLC gives back at a handover and the failure from
    /// [`max_retx_reached`](Self::max_retx_reached).
    pub fn on_status(&mut self, now: SimTime, status: &UlStatus) {
        match (self, status) {
            (DlTx::Am(t), UlStatus::Lte(s)) => t.on_status(now, s),
            (DlTx::NrAm(t), UlStatus::Nr(s)) => {
                t.on_status(now, s);
                t.clear_events();
            }
            // A STATUS PDU is built by the bearer's own receiving side: the RAT matches.
            _ => {}
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self {
            DlTx::Am(t) => t.poll_timeout(),
            DlTx::NrAm(t) => t.poll_timeout(),
            DlTx::Um(_) | DlTx::NrUm(_) => None,
        }
    }

    pub fn on_timeout(&mut self, now: SimTime) {
        match self {
            DlTx::Am(t) => t.on_timeout(now),
            DlTx::NrAm(t) => {
                t.on_timeout(now);
                t.clear_events();
            }
            DlTx::Um(_) | DlTx::NrUm(_) => {}
        }
    }

    /// RLC retransmissions (AMD PDUs and segments sent again).
    pub fn pdus_retx(&self) -> u64 {
        match self {
            DlTx::Am(t) => t.stats().pdus_retx,
            DlTx::NrAm(t) => t.stats().pdus_retx,
            DlTx::Um(_) | DlTx::NrUm(_) => 0,
        }
    }

    /// SDUs discarded by the transmitting side at maxRetxThreshold (LTE AM Discard mode; NR
    /// has none).
    pub fn sdus_discarded(&self) -> u64 {
        match self {
            DlTx::Am(t) => t.stats().sdus_discarded,
            DlTx::Um(_) | DlTx::NrAm(_) | DlTx::NrUm(_) => 0,
        }
    }

    /// Times an AMD PDU reached maxRetxThreshold.
    pub fn max_retx_reached_count(&self) -> u64 {
        match self {
            DlTx::Am(t) => t.stats().max_retx_reached,
            DlTx::NrAm(t) => t.stats().max_retx_reached,
            DlTx::Um(_) | DlTx::NrUm(_) => 0,
        }
    }

    /// The radio-link-failure indication of 36.322 §5.2.1 (LTE AM in `RadioLinkFailure`
    /// mode only: `Discard` mode discards instead of indicating) or 38.322 §5.3.2 (NR AM) has
    /// been latched.
    pub fn max_retx_reached(&self) -> bool {
        match self {
            DlTx::Am(t) => t.max_retx_reached(),
            DlTx::NrAm(t) => t.max_retx_reached(),
            DlTx::Um(_) | DlTx::NrUm(_) => false,
        }
    }

    /// Handover: the SDUs to forward — AM: from the first whose delivery is not confirmed
    /// ([`RlcAmTx::take_unconfirmed`], [`NrRlcAmTx::take_unconfirmed`]); UM: those not yet
    /// entirely transmitted ([`RlcUmTx::take_untransmitted`],
    /// [`NrRlcUmTx::take_untransmitted`]) — after which the entity is re-established.
    pub fn take_unconfirmed(&mut self) -> Vec<BearerSdu> {
        match self {
            DlTx::Am(t) => t.take_unconfirmed(),
            DlTx::Um(t) => t.take_untransmitted(),
            DlTx::NrAm(t) => t.take_unconfirmed(),
            DlTx::NrUm(t) => t.take_untransmitted(),
        }
    }

    /// SDUs refused because the transmission buffer was full.
    pub fn sdus_refused(&self) -> u64 {
        match self {
            DlTx::Am(t) => t.stats().sdus_refused,
            DlTx::Um(t) => t.stats().sdus_refused,
            DlTx::NrAm(t) => t.stats().sdus_refused,
            DlTx::NrUm(t) => t.stats().sdus_refused,
        }
    }
}

impl DlRx {
    pub fn on_pdu(&mut self, now: SimTime, pdu: DlPdu) {
        match (self, pdu) {
            (DlRx::Am(r), DlPdu::Am(p)) => r.on_pdu(now, p),
            (DlRx::Um(r), DlPdu::Um(p)) => r.on_pdu(now, p),
            (DlRx::NrAm(r), DlPdu::NrAm(p)) => r.on_pdu(now, p),
            (DlRx::NrUm(r), DlPdu::NrUm(p)) => r.on_pdu(now, p),
            // Both sides of a bearer are built from one mode; a mismatch cannot occur.
            _ => {}
        }
    }

    pub fn take_sdu(&mut self) -> Option<BearerSdu> {
        match self {
            DlRx::Am(r) => r.take_sdu(),
            DlRx::Um(r) => r.take_sdu(),
            DlRx::NrAm(r) => r.take_sdu(),
            DlRx::NrUm(r) => r.take_sdu(),
        }
    }

    /// The STATUS PDU to send on the uplink now, if one is triggered and allowed (AM only).
    /// The uplink grant is not a constraint here: the abstracted uplink carries any size.
    pub fn pull_status(&mut self, now: SimTime) -> Option<UlStatus> {
        match self {
            DlRx::Am(r) if r.status_triggered() => r.pull_status(now, u32::MAX).map(UlStatus::Lte),
            DlRx::NrAm(r) if r.status_triggered() => r.pull_status(now, u32::MAX).map(UlStatus::Nr),
            _ => None,
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self {
            DlRx::Am(r) => r.poll_timeout(),
            DlRx::Um(r) => r.poll_timeout(),
            DlRx::NrAm(r) => r.poll_timeout(),
            DlRx::NrUm(r) => r.poll_timeout(),
        }
    }

    pub fn on_timeout(&mut self, now: SimTime) {
        match self {
            DlRx::Am(r) => r.on_timeout(now),
            DlRx::Um(r) => r.on_timeout(now),
            DlRx::NrAm(r) => r.on_timeout(now),
            DlRx::NrUm(r) => r.on_timeout(now),
        }
    }

    /// RLC re-establishment (36.322 §5.4; 38.322 §5.1.2): in LTE what can be reassembled
    /// becomes available to [`take_sdu`](Self::take_sdu) (NR delivered every complete SDU
    /// already), the rest is discarded, state and timers are reset.
    pub fn reestablish(&mut self) {
        match self {
            DlRx::Am(r) => r.reestablish(),
            DlRx::Um(r) => r.reestablish(),
            DlRx::NrAm(r) => r.reestablish(),
            DlRx::NrUm(r) => r.reestablish(),
        }
    }

    /// SDUs the receiving side could not reassemble (lost pieces).
    pub fn sdus_dropped(&self) -> u64 {
        match self {
            DlRx::Am(r) => r.stats().sdus_dropped,
            DlRx::Um(r) => r.stats().sdus_dropped,
            DlRx::NrAm(r) => r.stats().sdus_dropped,
            DlRx::NrUm(r) => r.stats().sdus_dropped,
        }
    }
}
