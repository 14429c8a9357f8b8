//! NR RLC acknowledged mode (TS 38.322 §4.2.1.3, §5.2.3, §5.3): configuration, statistics,
//! events, and [`NrRlcAmEntity`], the AM entity LTE shares ([`AmEntity`]) over NR's two sides
//! and PDUs.

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::packet::Packet;

use super::am_rx::NrRlcAmRx;
use super::am_tx::NrRlcAmTx;
use super::pdu::{AmSnLength, NrAmdPdu, NrRlcPdu, NrStatusPdu};
use crate::rlc::am_entity::{AmEntity, AmPdu, AmRoute, AmRxSide, AmTxSide};
use crate::rlc::{BufferLimit, BufferStatus, RlcConfigError, RlcSdu, RlcSduRefused};

/// The values 38.331 `RLC-Config` allows for maxRetxThreshold (`UL-AM-RLC`: t1..t32).
pub const MAX_RETX_THRESHOLDS: [u32; 8] = [1, 2, 3, 4, 6, 8, 16, 32];

/// Configuration of one NR AM entity (TS 38.331 `RLC-Config` `am`: `UL-AM-RLC` and
/// `DL-AM-RLC`; both sides use the same values here).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NrRlcAmConfig {
    /// sn-FieldLength (`SN-FieldLengthAM`): 12 or 18 bits.
    pub sn_length: AmSnLength,
    /// t-PollRetransmit (§7.3).
    pub t_poll_retransmit: SimDuration,
    /// pollPDU in PDUs (§7.4); `None` = infinity.
    pub poll_pdu: Option<u32>,
    /// pollByte in bytes (§7.4); `None` = infinity.
    pub poll_byte: Option<u64>,
    /// maxRetxThreshold (§7.4), one of [`MAX_RETX_THRESHOLDS`]; `None` never indicates the
    /// failure (not a 38.331 value: for tests that need every SDU through).
    pub max_retx_threshold: Option<u32>,
    /// t-Reassembly (§7.3).
    pub t_reassembly: SimDuration,
    /// t-StatusProhibit (§7.3).
    pub t_status_prohibit: SimDuration,
    /// Limit on SDUs waiting for their first transmission.
    pub tx_buffer: BufferLimit,
}

impl Default for NrRlcAmConfig {
    /// The default RLC configuration of TS 38.331 §9.2.1 ("Default SRB configurations":
    /// sn-FieldLength size12, t-PollRetransmit ms45, pollPDU infinity, pollByte infinity,
    /// maxRetxThreshold t8, t-Reassembly ms35, t-StatusProhibit ms0); 38.331 gives no default
    /// for data radio bearers, which the network configures.
    fn default() -> Self {
        NrRlcAmConfig {
            sn_length: AmSnLength::Bits12,
            t_poll_retransmit: SimDuration::from_ms(45),
            poll_pdu: None,
            poll_byte: None,
            max_retx_threshold: Some(8),
            t_reassembly: SimDuration::from_ms(35),
            t_status_prohibit: SimDuration::ZERO,
            tx_buffer: BufferLimit::Unlimited,
        }
    }
}

impl NrRlcAmConfig {
    /// Checks the values, naming the offending field.
    pub fn validate(&self) -> Result<(), RlcConfigError> {
        if self.poll_pdu == Some(0) {
            return Err(RlcConfigError::invalid(
                "nr_am.poll_pdu",
                0,
                "at least 1 PDU, or infinity",
            ));
        }
        if self.poll_byte == Some(0) {
            return Err(RlcConfigError::invalid(
                "nr_am.poll_byte",
                0,
                "at least 1 byte, or infinity",
            ));
        }
        if let Some(t) = self.max_retx_threshold {
            if !MAX_RETX_THRESHOLDS.contains(&t) {
                return Err(RlcConfigError::invalid(
                    "nr_am.max_retx_threshold",
                    t,
                    "one of 1, 2, 3, 4, 6, 8, 16, 32 (TS 38.331 RLC-Config)",
                ));
            }
        }
        if let BufferLimit::Bytes(0) | BufferLimit::Sdus(0) = self.tx_buffer {
            return Err(RlcConfigError::invalid(
                "nr_am.tx_buffer",
                0,
                "a positive limit",
            ));
        }
        Ok(())
    }
}

/// What the transmitting side tells the upper layer (TS 38.322 §5.2.3.1.1, §5.3.2).
/// Drain them with [`NrRlcAmTx::pop_event`] after each call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NrRlcAmTxEvent {
    /// "send an indication to the upper layers of successful delivery of the RLC SDU" (PDCP
    /// discards its copy, TS 38.323 §5.3).
    Delivered { sn: u32, sdu_id: u64 },
    /// "indicate to upper layers that max retransmission has been reached" — RRC then
    /// declares radio link failure (TS 38.331 §5.3.10.3). The entity keeps retransmitting.
    MaxRetxReached {
        sn: u32,
        sdu_id: u64,
        retx_count: u32,
    },
}

/// Counters of a transmitting side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NrRlcAmTxStats {
    pub sdus_written: u64,
    pub sdus_refused: u64,
    /// SDUs the upper layer discarded before any byte was sent (§5.4).
    pub sdus_discarded: u64,
    /// AMD PDUs carrying new bytes, and their bytes on the air.
    pub pdus_new: u64,
    pub bytes_new: u64,
    /// Retransmitted AMD PDUs (whole SDUs or segments) and their bytes on the air.
    pub pdus_retx: u64,
    pub bytes_retx: u64,
    pub polls: u64,
    pub t_poll_retransmit_expiries: u64,
    pub status_received: u64,
    /// STATUS PDUs ignored because ACK_SN or a NACK_SN lay outside what was sent.
    pub status_invalid: u64,
    pub sdus_delivered: u64,
    pub max_retx_reached: u64,
}

/// Counters of a receiving side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NrRlcAmRxStats {
    pub pdus_received: u64,
    pub bytes_received: u64,
    /// Discarded: every byte had been received before (§5.2.3.2.2).
    pub pdus_duplicate: u64,
    /// Discarded: SN outside the receiving window.
    pub pdus_outside_window: u64,
    pub sdus_delivered: u64,
    /// SDUs partly received when the entity was re-established (§5.1.2), given up.
    pub sdus_dropped: u64,
    pub status_sent: u64,
    pub t_reassembly_expiries: u64,
}

/// One node's NR AM entity (see [`AmEntity`]); 38.322 §5.2.3.1.1 orders a transmission
/// opportunity as 36.322 does: STATUS first, then retransmissions, then new data.
pub type NrRlcAmEntity<S = Packet> = AmEntity<NrRlcAmTx<S>, NrRlcAmRx<S>>;

impl<S: RlcSdu> AmPdu for NrRlcPdu<S> {
    type Status = NrStatusPdu;
    type Data = NrAmdPdu<S>;
    #[inline]
    fn from_status(status: NrStatusPdu) -> Self {
        NrRlcPdu::Status(status)
    }
    #[inline]
    fn route(self) -> AmRoute<NrStatusPdu, NrAmdPdu<S>> {
        match self {
            NrRlcPdu::Status(s) => AmRoute::Status(s),
            NrRlcPdu::Data(d) => AmRoute::Data(d),
        }
    }
}

impl<S: RlcSdu> AmTxSide for NrRlcAmTx<S> {
    type Sdu = S;
    type Config = NrRlcAmConfig;
    type Pdu = NrRlcPdu<S>;
    fn new(config: NrRlcAmConfig) -> Result<Self, RlcConfigError> {
        NrRlcAmTx::new(config)
    }
    #[inline]
    fn write_sdu(&mut self, now: SimTime, sdu: S) -> Result<(), RlcSduRefused> {
        NrRlcAmTx::write_sdu(self, now, sdu)
    }
    #[inline]
    fn buffer_status(&self) -> BufferStatus {
        NrRlcAmTx::buffer_status(self)
    }
    #[inline]
    fn pull_pdu(&mut self, now: SimTime, grant_bytes: u32) -> Option<NrRlcPdu<S>> {
        NrRlcAmTx::pull_pdu(self, now, grant_bytes).map(NrRlcPdu::Data)
    }
    #[inline]
    fn on_status(&mut self, now: SimTime, status: &NrStatusPdu) {
        NrRlcAmTx::on_status(self, now, status)
    }
    #[inline]
    fn poll_timeout(&self) -> Option<SimTime> {
        NrRlcAmTx::poll_timeout(self)
    }
    #[inline]
    fn on_timeout(&mut self, now: SimTime) {
        NrRlcAmTx::on_timeout(self, now)
    }
}

impl<S: RlcSdu> AmRxSide for NrRlcAmRx<S> {
    type Sdu = S;
    type Config = NrRlcAmConfig;
    type Pdu = NrRlcPdu<S>;
    fn new(config: NrRlcAmConfig) -> Result<Self, RlcConfigError> {
        NrRlcAmRx::new(config)
    }
    #[inline]
    fn status_bytes(&self, now: SimTime) -> u32 {
        NrRlcAmRx::status_bytes(self, now)
    }
    #[inline]
    fn pull_status(&mut self, now: SimTime, grant_bytes: u32) -> Option<NrStatusPdu> {
        NrRlcAmRx::pull_status(self, now, grant_bytes)
    }
    #[inline]
    fn on_pdu(&mut self, now: SimTime, pdu: NrAmdPdu<S>) {
        NrRlcAmRx::on_pdu(self, now, pdu)
    }
    #[inline]
    fn take_sdu(&mut self) -> Option<S> {
        NrRlcAmRx::take_sdu(self)
    }
    #[inline]
    fn poll_timeout(&self) -> Option<SimTime> {
        NrRlcAmRx::poll_timeout(self)
    }
    #[inline]
    fn on_timeout(&mut self, now: SimTime) {
        NrRlcAmRx::on_timeout(self, now)
    }
}
