//! RLC acknowledged mode (36.322 §4.2.1.3, §5.1.3, §5.2): configuration, statistics and
//! [`RlcAmEntity`], the AM entity NR shares ([`AmEntity`]) over LTE's two sides and PDUs.
//!
//! The two sides are separate objects ([`RlcAmTx`], [`RlcAmRx`]): data PDUs and MRW go from a
//! transmitting side to the peer's receiving side, STATUS PDUs from that receiving side back to
//! the transmitting side, all through the MAC of the respective direction.

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::packet::Packet;

use super::am_entity::{AmEntity, AmPdu, AmRoute, AmRxSide, AmTxSide};
use super::am_pdu::{ControlBits, RlcPdu, StatusPdu};
use super::am_rx::RlcAmRx;
use super::am_tx::RlcAmTx;
use super::header::HeaderModel;
use super::{BufferLimit, BufferStatus, PduMode, RlcConfigError, RlcSdu, RlcSduRefused};

/// What the transmitting side does when an AMD PDU's RETX_COUNT reaches maxRetxThreshold.
/// The default is LTE's: radio link failure (36.322 §5.2.1). A scenario file writes it as
/// `"rlf"` or `"discard"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    schemars(
        description = "What RLC AM does when a PDU reached its maximum number of retransmissions."
    )
)]
pub enum MaxRetxAction {
    /// WCDMA-style SDU discard (25.322 §11.6, the MaxDAT rule): discard the AMD PDU, every
    /// unacknowledged PDU below it and the SDUs they carry, and move the peer's receiving window
    /// past them with an MRW. No radio link failure is indicated
    /// ([`RlcAmTx::max_retx_reached`] stays false); the discards are counted.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "discard"),
        schemars(
            description = "Discard the PDU's SDUs and move the window on (WCDMA's MaxDAT behaviour)."
        )
    )]
    Discard,
    /// LTE (36.322 §5.2.1): indicate to upper layers that max retransmission has been reached —
    /// RRC then declares radio link failure (36.331 §5.3.11.3). The entity latches
    /// [`RlcAmTx::max_retx_reached`] and keeps retransmitting until it is re-established.
    #[default]
    #[cfg_attr(
        feature = "serde",
        serde(rename = "rlf"),
        schemars(description = "Indicate a radio link failure (LTE, TS 36.322 §5.2.1).")
    )]
    RadioLinkFailure,
}

/// Configuration of one AM entity (both sides use the same values; 36.331 RLC-Config).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RlcAmConfig {
    pub pdu_mode: PduMode,
    /// SN length: 10 (LTE), 12 (WCDMA) or 16 bits (LTE extended, 36.322 Rel-13). The window is
    /// half the SN space (AM_Window_Size = 512 for 10 bits, 36.322 §7.2).
    pub sn_bits: u8,
    pub header: HeaderModel,
    /// t-PollRetransmit (36.322 §7.3); also the MRW retransmission timer (25.322 Timer_MRW).
    pub t_poll_retransmit: SimDuration,
    /// t-StatusProhibit.
    pub t_status_prohibit: SimDuration,
    /// t-Reordering.
    pub t_reordering: SimDuration,
    /// pollPDU in PDUs; `None` = infinity (36.322 §7.4).
    pub poll_pdu: Option<u32>,
    /// pollByte in bytes; `None` = infinity.
    pub poll_byte: Option<u64>,
    /// maxRetxThreshold; `None` = never give up.
    pub max_retx_threshold: Option<u32>,
    pub on_max_retx: MaxRetxAction,
    /// Limit on SDUs waiting for their first transmission.
    pub tx_buffer: BufferLimit,
}

impl RlcAmConfig {
    /// LTE with the default RLC configuration of 36.331 §9.2.1.1 (t-PollRetransmit 45 ms,
    /// pollPDU and pollByte infinity, maxRetxThreshold 4, t-Reordering 35 ms, t-StatusProhibit
    /// 0 ms), 10-bit SN, radio link failure at maxRetx, unlimited buffer.
    pub fn lte_default() -> Self {
        RlcAmConfig {
            pdu_mode: PduMode::Flexible,
            sn_bits: 10,
            header: HeaderModel::lte_am(10),
            t_poll_retransmit: SimDuration::from_ms(45),
            t_status_prohibit: SimDuration::ZERO,
            t_reordering: SimDuration::from_ms(35),
            poll_pdu: None,
            poll_byte: None,
            max_retx_threshold: Some(4),
            on_max_retx: MaxRetxAction::RadioLinkFailure,
            tx_buffer: BufferLimit::Unlimited,
        }
    }

    /// WCDMA AM with fixed `pdu_bytes` PDUs (e.g. 40), 12-bit SN and SDU discard with explicit
    /// signalling after MaxDAT. 25.322 counts every time a PDU is scheduled in VT(DAT) and starts
    /// the discard when VT(DAT) reaches MaxDAT; here `max_retx_threshold = MaxDAT − 1`, so a PDU
    /// is sent at most MaxDAT times and discarded when it would need a further transmission
    /// (docs/rlc.md discusses the one-transmission difference between readings of 25.322).
    /// Timers are the LTE defaults; set Timer_Poll as `t_poll_retransmit`.
    pub fn wcdma(pdu_bytes: u32, max_dat: u32) -> Self {
        RlcAmConfig {
            pdu_mode: PduMode::Fixed { bytes: pdu_bytes },
            sn_bits: 12,
            header: HeaderModel::wcdma_am(pdu_bytes),
            max_retx_threshold: Some(max_dat.saturating_sub(1)),
            on_max_retx: MaxRetxAction::Discard,
            ..Self::lte_default()
        }
    }

    /// Checks the values, naming the offending field.
    pub fn validate(&self) -> Result<(), RlcConfigError> {
        if !matches!(self.sn_bits, 10 | 12 | 16) {
            return Err(RlcConfigError::invalid(
                "am.sn_bits",
                self.sn_bits,
                "10, 12 or 16",
            ));
        }
        self.header.validate()?;
        if self.poll_pdu == Some(0) {
            return Err(RlcConfigError::invalid(
                "am.poll_pdu",
                0,
                "at least 1 PDU, or infinity",
            ));
        }
        if self.poll_byte == Some(0) {
            return Err(RlcConfigError::invalid(
                "am.poll_byte",
                0,
                "at least 1 byte, or infinity",
            ));
        }
        if let BufferLimit::Bytes(0) | BufferLimit::Sdus(0) = self.tx_buffer {
            return Err(RlcConfigError::invalid(
                "am.tx_buffer",
                0,
                "a positive limit",
            ));
        }
        if let PduMode::Fixed { bytes } = self.pdu_mode {
            let min_data = self.header.fixed_bytes + self.header.fixed_li_bytes() + 1;
            let bits = ControlBits::new(self.sn_bits);
            let min_control = bits.status_base(true).max(bits.mrw()).div_ceil(8);
            if bytes < min_data || bytes < min_control {
                return Err(RlcConfigError::invalid(
                    "am.pdu_mode.bytes",
                    bytes,
                    "room for the header, one LI and a data byte, and for a STATUS PDU",
                ));
            }
        }
        Ok(())
    }
}

/// Counters of a transmitting side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RlcAmTxStats {
    /// SDUs accepted into the transmission buffer.
    pub sdus_written: u64,
    /// SDUs refused because the buffer was full.
    pub sdus_refused: u64,
    /// New AMD PDUs and their bytes on the air.
    pub pdus_new: u64,
    pub bytes_new: u64,
    /// Retransmitted AMD PDUs and segments and their bytes on the air.
    pub pdus_retx: u64,
    pub bytes_retx: u64,
    /// Data PDUs sent with the poll bit set.
    pub polls: u64,
    pub t_poll_retransmit_expiries: u64,
    pub status_received: u64,
    /// Times an AMD PDU's RETX_COUNT reached maxRetxThreshold, in either mode.
    pub max_retx_reached: u64,
    /// AMD PDUs discarded unacknowledged (Discard mode).
    pub pdus_discarded: u64,
    /// SDUs with at least one piece in a discarded AMD PDU. The receiver may still deliver some
    /// of them when only the acknowledgement was lost.
    pub sdus_discarded: u64,
    pub mrw_sent: u64,
    /// SDUs whose last piece has been positively acknowledged, counted in SN order as VT(A)
    /// passes them (an SDU with an earlier piece in a discarded PDU may be counted).
    pub sdus_acked: u64,
}

/// Counters of a receiving side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RlcAmRxStats {
    /// AMD PDUs and segments received, and their bytes on the air.
    pub pdus_received: u64,
    pub bytes_received: u64,
    /// Discarded because every byte had been received before (36.322 §5.1.3.2.2).
    pub pdus_duplicate: u64,
    /// Discarded because the SN fell outside the receiving window.
    pub pdus_outside_window: u64,
    pub sdus_delivered: u64,
    /// SDUs that could not be reassembled (a piece given up after an MRW or a re-establishment).
    pub sdus_dropped: u64,
    pub status_sent: u64,
    pub t_reordering_expiries: u64,
    pub mrw_received: u64,
}

/// One node's LTE AM entity (see [`AmEntity`]).
pub type RlcAmEntity<S = Packet> = AmEntity<RlcAmTx<S>, RlcAmRx<S>>;

impl<S: RlcSdu> RlcAmEntity<S> {
    /// RLC re-establishment of both sides (36.322 §5.4).
    pub fn reestablish(&mut self) {
        self.tx.reestablish();
        self.rx.reestablish();
    }
}

impl<S: RlcSdu> AmPdu for RlcPdu<S> {
    type Status = StatusPdu;
    /// AMD PDUs and MRW, which [`RlcAmRx::on_pdu`] takes as [`RlcPdu`]s.
    type Data = RlcPdu<S>;
    #[inline]
    fn from_status(status: StatusPdu) -> Self {
        RlcPdu::Status(status)
    }
    #[inline]
    fn route(self) -> AmRoute<StatusPdu, Self> {
        match self {
            RlcPdu::Status(s) => AmRoute::Status(s),
            other => AmRoute::Data(other),
        }
    }
}

impl<S: RlcSdu> AmTxSide for RlcAmTx<S> {
    type Sdu = S;
    type Config = RlcAmConfig;
    type Pdu = RlcPdu<S>;
    fn new(config: RlcAmConfig) -> Result<Self, RlcConfigError> {
        RlcAmTx::new(config)
    }
    #[inline]
    fn write_sdu(&mut self, now: SimTime, sdu: S) -> Result<(), RlcSduRefused> {
        RlcAmTx::write_sdu(self, now, sdu)
    }
    #[inline]
    fn buffer_status(&self) -> BufferStatus {
        RlcAmTx::buffer_status(self)
    }
    #[inline]
    fn pull_pdu(&mut self, now: SimTime, grant_bytes: u32) -> Option<RlcPdu<S>> {
        RlcAmTx::pull_pdu(self, now, grant_bytes)
    }
    #[inline]
    fn on_status(&mut self, now: SimTime, status: &StatusPdu) {
        RlcAmTx::on_status(self, now, status)
    }
    #[inline]
    fn poll_timeout(&self) -> Option<SimTime> {
        RlcAmTx::poll_timeout(self)
    }
    #[inline]
    fn on_timeout(&mut self, now: SimTime) {
        RlcAmTx::on_timeout(self, now)
    }
}

impl<S: RlcSdu> AmRxSide for RlcAmRx<S> {
    type Sdu = S;
    type Config = RlcAmConfig;
    type Pdu = RlcPdu<S>;
    fn new(config: RlcAmConfig) -> Result<Self, RlcConfigError> {
        RlcAmRx::new(config)
    }
    #[inline]
    fn status_bytes(&self, now: SimTime) -> u32 {
        RlcAmRx::status_bytes(self, now)
    }
    #[inline]
    fn pull_status(&mut self, now: SimTime, grant_bytes: u32) -> Option<StatusPdu> {
        RlcAmRx::pull_status(self, now, grant_bytes)
    }
    #[inline]
    fn on_pdu(&mut self, now: SimTime, pdu: RlcPdu<S>) {
        RlcAmRx::on_pdu(self, now, pdu)
    }
    #[inline]
    fn take_sdu(&mut self) -> Option<S> {
        RlcAmRx::take_sdu(self)
    }
    #[inline]
    fn poll_timeout(&self) -> Option<SimTime> {
        RlcAmRx::poll_timeout(self)
    }
    #[inline]
    fn on_timeout(&mut self, now: SimTime) {
        RlcAmRx::on_timeout(self, now)
    }
}
