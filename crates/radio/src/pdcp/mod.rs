//! Packet Data Convergence Protocol for user-plane radio bearers (3GPP TS 36.323).
//!
//! * [`PdcpTx`]: numbers SDUs with a PDCP SN and HFN (together the 32-bit COUNT, §6.3.2,
//!   §7.1) and adds the data PDU header (2 bytes for a 12-bit SN, §6.2.3); optionally keeps the
//!   PDUs not yet confirmed delivered so that they can be forwarded at handover.
//! * [`PdcpRx`]: infers each PDU's COUNT from its SN, discards duplicates and PDUs older than
//!   the last delivered one, and delivers in COUNT order — immediately (36.323 §5.1.2.1.2, the
//!   behaviour without reordering), or with `reordering = true` holding out-of-order SDUs until
//!   the gap fills or t-Reordering expires (§5.1.2.1.4, used after handover and in dual
//!   connectivity).
//! * [`Forwarded`]: what a source cell hands to a target cell at an X2 handover — the SN STATUS
//!   TRANSFER values of 36.423 §9.1.4.4 (next DL COUNT to assign, first missing UL COUNT) and
//!   the PDUs to forward (36.300 §10.1.2.1.2 data forwarding).
//!
//! Ciphering, integrity protection and header compression are not modelled: they change no
//! sizes here (ROHC would; a fixed compressed header can be modelled by the upper layer's
//! packet sizes). Like the RLC entities, everything is sans-IO with `now` passed in.

mod rx;
mod tx;

use celltcp_engine::SimDuration;
use celltcp_net::packet::Packet;

use crate::rlc::RlcSdu;

pub use rx::{PdcpRx, PdcpRxStats};
pub use tx::{PdcpTx, PdcpTxStats};

/// A PDCP data PDU: the SDU with the COUNT it was given. Only the low `sn_bits` bits (the SN)
/// are on the air; the receiver infers the HFN (36.323 §5.1.2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PdcpPdu<S = Packet> {
    pub count: u32,
    pub sdu: S,
    /// Header bytes (§6.2.3–§6.2.6): 1 for a 7-bit SN, 2 for 12 or 15 bits, 3 for 18 bits.
    pub header_bytes: u8,
    pub sn_bits: u8,
}

impl<S> PdcpPdu<S> {
    /// The PDCP SN carried in the header.
    pub fn sn(&self) -> u32 {
        self.count
            & 1u32
                .checked_shl(self.sn_bits as u32)
                .map_or(u32::MAX, |m| m - 1)
    }
}

impl<S: RlcSdu> RlcSdu for PdcpPdu<S> {
    fn size_bytes(&self) -> u32 {
        self.sdu.size_bytes() + self.header_bytes as u32
    }
    fn sdu_id(&self) -> u64 {
        self.sdu.sdu_id()
    }
}

/// `[cells.NAME.pdcp]`: the PDCP of every UE's bearer (TS 36.323).
///
/// The configuration of a PDCP entity (36.331 PDCP-Config). With the `serde` feature it
/// (de)serialises in a scenario file's form — `t_reordering` as integer nanoseconds, marked in
/// the JSON Schema with `"x-unit" = "time"` so that a file layer reads and writes it with units
/// — and the doc comments of its keys are the schema's descriptions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(default, deny_unknown_fields),
    schemars(description = "`[cells.NAME.pdcp]`: the PDCP of every UE's bearer (TS 36.323).")
)]
pub struct PdcpConfig {
    /// PDCP SN length, bits: 7, 12, 15 or 18 (header of 1, 2, 2 or 3 bytes).
    // pdcp-SN-Size (TS 36.323 §6.3.2): 12 is the default for RLC AM bearers.
    #[cfg_attr(feature = "serde", schemars(extend("enum" = [7, 12, 15, 18])))]
    pub sn_bits: u8,
    /// The UE's receiver reorders by COUNT (RLC AM only; not with `[ran]`, see
    /// ran.handover.reordering).
    // Holds out-of-order SDUs at the receiver (§5.1.2.1.4) instead of delivering on arrival.
    pub reordering: bool,
    /// t-Reordering of the UE's receiver (a time).
    // §7.3; used when `reordering` is set.
    #[cfg_attr(
        feature = "serde",
        serde(with = "celltcp_engine::serde_nanos"),
        schemars(with = "u64", extend("x-unit" = "time"))
    )]
    pub t_reordering: SimDuration,
    /// At a handover with forwarding the UE sends a PDCP status report and the target does
    /// not send again the forwarded SDUs it confirms (RLC AM only; used with `[ran]`).
    // statusReportRequired of 36.331/38.331 PDCP-Config (rlc-AM). After the re-establishment
    // at a handover the UE reports the first missing COUNT and a bitmap of the SDUs received
    // above it (36.323 §5.4.1, 38.323 §5.4.1) as its first PDCP PDU in the target cell; the
    // target treats every SDU it confirms as delivered (§5.4.2) and discards it. 36.300
    // §10.1.2.3 describes this "PDCP SN based reporting" for lossless handover; real networks
    // set it on AM bearers, hence the default. Off, the target sends every forwarded SDU.
    pub status_report_required: bool,
    /// Keep transmitted PDUs until [`PdcpTx::confirm_delivered`] so that [`PdcpTx::forward`]
    /// can hand them to a target cell. Not a key of a scenario file: the radio access network
    /// sets it on its cells.
    #[cfg_attr(feature = "serde", serde(skip), schemars(skip))]
    pub retain_for_forwarding: bool,
}

impl Default for PdcpConfig {
    fn default() -> Self {
        PdcpConfig {
            sn_bits: 12,
            reordering: false,
            t_reordering: SimDuration::from_ms(50),
            status_report_required: true,
            retain_for_forwarding: false,
        }
    }
}

/// A PDCP configuration the entities cannot run with.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PdcpConfigError {
    #[error("pdcp.sn_bits: {0} is not allowed; expected 7, 12, 15 or 18")]
    SnBits(u8),
}

impl PdcpConfig {
    pub fn validate(&self) -> Result<(), PdcpConfigError> {
        match self.sn_bits {
            7 | 12 | 15 | 18 => Ok(()),
            b => Err(PdcpConfigError::SnBits(b)),
        }
    }

    /// Header bytes of a data PDU (36.323 §6.2.3 and following).
    pub fn header_bytes(&self) -> u8 {
        match self.sn_bits {
            7 => 1,
            18 => 3,
            _ => 2,
        }
    }

    /// Maximum_PDCP_SN + 1.
    pub(crate) fn sn_modulus(&self) -> u32 {
        1 << self.sn_bits
    }

    /// Reordering_Window: half the SN space (36.323 §7.2: 2048 for a 12-bit SN).
    pub(crate) fn reordering_window(&self) -> i64 {
        1i64 << (self.sn_bits - 1)
    }
}

/// SN STATUS TRANSFER values (36.423 §9.1.4.4) with COUNT = HFN·2^sn_bits + SN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnStatusTransfer {
    /// DL COUNT: the COUNT the target assigns to the next new downlink SDU.
    pub dl_count: u32,
    /// UL COUNT: the COUNT of the first missing uplink SDU (Last_Submitted + 1).
    pub ul_count: u32,
    /// COUNTs of uplink SDUs received out of order above `ul_count` (the receive status
    /// bitmap, as a list).
    pub ul_received: Vec<u32>,
}

/// What a source cell hands to a target cell at handover (36.300 §10.1.2.1.2).
#[derive(Clone, Debug)]
pub struct Forwarded<S = Packet> {
    pub status: SnStatusTransfer,
    /// Downlink PDUs sent or waiting at the source but not confirmed delivered, in COUNT order,
    /// to be sent by the target with their original SN.
    pub dl: Vec<PdcpPdu<S>>,
    /// Uplink SDUs received out of order at the source, for the target's reordering.
    pub ul: Vec<PdcpPdu<S>>,
}

/// Builds the handover hand-over of one bearer from the source's transmitting (downlink) and
/// receiving (uplink) entities, draining both.
pub fn forward<S: RlcSdu>(dl: &mut PdcpTx<S>, ul: &mut PdcpRx<S>) -> Forwarded<S> {
    let (dl_count, dl_pdus) = dl.forward();
    let (ul_count, ul_pdus) = ul.forward();
    Forwarded {
        status: SnStatusTransfer {
            dl_count,
            ul_count,
            ul_received: ul_pdus.iter().map(|p| p.count).collect(),
        },
        dl: dl_pdus,
        ul: ul_pdus,
    }
}
