//! NR Packet Data Convergence Protocol for data radio bearers (TS 38.323).
//!
//! * [`NrPdcpTx`] (§5.2.1, §5.3): numbers each SDU with COUNT = [HFN, SN] from TX_NEXT and,
//!   with a discardTimer, discards the SDUs whose timer expires, telling the lower layer
//!   ([`NrPdcpTx::pop_discard`] → the RLC entity's `discard_sdu`).
//! * [`NrPdcpRx`] (§5.2.2): derives each PDU's COUNT from its SN and RX_DELIV, discards
//!   duplicates and PDUs older than RX_DELIV, and delivers in COUNT order with t-Reordering
//!   (§5.2.2.1, §5.2.2.2) — or, with `outOfOrderDelivery`, at once.
//!
//! The NR difference from LTE PDCP ([`crate::pdcp`], TS 36.323): reordering is always on,
//! because NR RLC AM delivers SDUs out of order (TS 38.322 §5.2.3.2.3); the receiver keeps
//! COUNTs (RX_NEXT, RX_DELIV, RX_REORD) rather than Last_Submitted_PDCP_RX_SN and an HFN;
//! discard is a per-SDU timer.
//!
//! Ciphering, integrity protection (the 4-byte MAC-I, §6.3.4), header compression and status
//! reports are not modelled; docs/nr.md says what that leaves out.

mod rx;
mod tx;

use celltcp_engine::SimDuration;
use celltcp_net::packet::Packet;

use crate::rlc::RlcSdu;

pub use rx::{NrPdcpRx, NrPdcpRxStats};
pub use tx::{NrPdcpDiscard, NrPdcpTx, NrPdcpTxStats};

/// pdcp-SN-SizeUL / pdcp-SN-SizeDL (TS 38.331 `PDCP-Config`: len12bits or len18bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PdcpSnLength {
    Bits12,
    Bits18,
}

impl PdcpSnLength {
    pub fn bits(self) -> u32 {
        match self {
            PdcpSnLength::Bits12 => 12,
            PdcpSnLength::Bits18 => 18,
        }
    }

    /// Window_Size = 2^(pdcp-SN-Size − 1) (§7.2): 2048 or 131072.
    pub fn window(self) -> u32 {
        1 << (self.bits() - 1)
    }

    /// Header of a PDCP Data PDU for a DRB (§6.2.2.2 Figure 6.2.2.2-1: D/C, R×3, 12-bit SN in
    /// 2 bytes; §6.2.2.3 Figure 6.2.2.3-1: D/C, R×5, 18-bit SN in 3 bytes), without MAC-I.
    pub fn header_bytes(self) -> u32 {
        match self {
            PdcpSnLength::Bits12 => 2,
            PdcpSnLength::Bits18 => 3,
        }
    }
}

/// Configuration of an NR PDCP entity of a DRB (TS 38.331 `PDCP-Config` `drb`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NrPdcpConfig {
    /// pdcp-SN-SizeUL/DL.
    pub sn_length: PdcpSnLength,
    /// discardTimer (§7.3); `None` = infinity.
    pub discard_timer: Option<SimDuration>,
    /// t-Reordering (§7.3); `None` = infinity, 38.331's value when the field is absent.
    pub t_reordering: Option<SimDuration>,
    /// outOfOrderDelivery: deliver each SDU on arrival (§5.2.2.1).
    pub out_of_order_delivery: bool,
}

impl Default for NrPdcpConfig {
    /// 18-bit SN, discardTimer infinity, t-Reordering ms100, in-order delivery. 38.331 sets no
    /// default for a DRB (the fields are mandatory at setup, t-Reordering absent = infinity);
    /// these are values of its ranges: the 18-bit SN keeps an eMBB bearer's window (131072
    /// SDUs) from stalling, and a finite t-Reordering bounds the wait for an SDU RLC gave up.
    fn default() -> Self {
        NrPdcpConfig {
            sn_length: PdcpSnLength::Bits18,
            discard_timer: None,
            t_reordering: Some(SimDuration::from_ms(100)),
            out_of_order_delivery: false,
        }
    }
}

impl NrPdcpConfig {
    /// Maximum SN + 1.
    pub(crate) fn sn_modulus(&self) -> u32 {
        1 << self.sn_length.bits()
    }
}

/// A PDCP Data PDU: the SDU with the COUNT it was given. Only the SN, the low pdcp-SN-Size
/// bits, is on the air; the receiver derives the HFN (§5.2.2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NrPdcpPdu<S = Packet> {
    pub count: u32,
    pub sdu: S,
    pub sn_length: PdcpSnLength,
}

impl<S> NrPdcpPdu<S> {
    /// The PDCP SN carried in the header: COUNT mod 2^pdcp-SN-Size.
    pub fn sn(&self) -> u32 {
        self.count & ((1 << self.sn_length.bits()) - 1)
    }
}

impl<S: RlcSdu> RlcSdu for NrPdcpPdu<S> {
    fn size_bytes(&self) -> u32 {
        self.sdu.size_bytes() + self.sn_length.header_bytes()
    }
    fn sdu_id(&self) -> u64 {
        self.sdu.sdu_id()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rlc::testkit::sdu;

    /// §6.2.2.2 and §6.2.2.3: 2-byte (12-bit SN) and 3-byte (18-bit SN) data PDU headers;
    /// Window_Size of §7.2.
    #[test]
    fn data_pdu_headers_follow_38_323_6_2_2() {
        let p = |count, sn_length| NrPdcpPdu {
            count,
            sdu: sdu(1, 100),
            sn_length,
        };
        assert_eq!(p(5, PdcpSnLength::Bits12).size_bytes(), 102);
        assert_eq!(p(5, PdcpSnLength::Bits18).size_bytes(), 103);
        assert_eq!(p(4096 + 7, PdcpSnLength::Bits12).sn(), 7);
        assert_eq!(p((1 << 18) + 9, PdcpSnLength::Bits18).sn(), 9);
        assert_eq!(
            (PdcpSnLength::Bits12.window(), PdcpSnLength::Bits18.window()),
            (2048, 131_072)
        );
    }
}
