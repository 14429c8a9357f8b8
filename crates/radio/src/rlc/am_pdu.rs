//! PDUs exchanged by the AM entities: AMD PDUs and AMD PDU segments (36.322 §6.2.1.4,
//! §6.2.1.5), STATUS PDUs (§6.2.1.6), and the MRW control PDU that signals an SDU discard to the
//! receiver (after 25.322 §9.2.2.11.5; LTE has no equivalent, see docs/rlc.md).
//!
//! Sizes are bytes on the air as the byte model gives them; fields are the 36.322 fields that
//! the procedures act on.

use celltcp_net::packet::Packet;

use super::data_field::DataField;
use super::PduMode;

/// Fields of an AMD PDU segment header (36.322 §6.2.2.12 LSF, §6.2.2.13 SO).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentHeader {
    /// SO: position of the segment's first byte within the data field of the original AMD PDU,
    /// bytes.
    pub so: u32,
    /// LSF: the segment's last byte is the last byte of the original AMD PDU.
    pub lsf: bool,
}

/// An AMD PDU, or an AMD PDU segment when `segment` is present (36.322 §6.2.1.4, §6.2.1.5).
#[derive(Clone, Debug)]
pub struct AmdPdu<S = Packet> {
    /// SN, modulo 2^sn_bits.
    pub sn: u32,
    /// P: the peer is asked for a STATUS report (36.322 §5.2.2).
    pub poll: bool,
    pub segment: Option<SegmentHeader>,
    /// The data field (or, for a segment, the bytes `[so, so + len)` of it).
    pub data: DataField<S>,
    pub(crate) header_bytes: u32,
    pub(crate) size_bytes: u32,
}

impl<S: super::RlcSdu> AmdPdu<S> {
    /// Size on the air: header, data and (fixed mode) padding, bytes.
    pub fn size_bytes(&self) -> u32 {
        self.size_bytes
    }
    /// Header bytes by the byte model (fixed part, LIs, segment fields).
    pub fn header_bytes(&self) -> u32 {
        self.header_bytes
    }
    /// Padding bytes (fixed mode only).
    pub fn padding_bytes(&self) -> u32 {
        self.size_bytes
            .saturating_sub(self.header_bytes + self.data.bytes())
    }
    /// The FI field (36.322 §6.2.2.6): (first byte starts an SDU, last byte ends an SDU).
    pub fn framing_info(&self) -> (bool, bool) {
        self.data.framing_info()
    }
}

/// SOstart and SOend of a NACK (36.322 §6.2.2.17, §6.2.2.18) as a half-open byte range of the
/// original AMD PDU's data field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SoRange {
    /// First missing byte.
    pub start: u32,
    /// One past the last missing byte; `None` means up to the end of the PDU (the special SOend
    /// value 0x7FFF).
    pub end: Option<u32>,
}

/// One NACK_SN (with its optional SO range) of a STATUS PDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nack {
    pub sn: u32,
    /// Portion missing; `None`: the whole AMD PDU.
    pub so: Option<SoRange>,
}

/// A STATUS PDU (36.322 §6.2.1.6): ACK_SN and NACKs in increasing SN order, plus, after an MRW
/// was received, the MRW_ACK of 25.322 §9.2.2.11.6 carrying the SN the window moved to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusPdu {
    /// ACK_SN: the SN of the next not received AMD PDU that is not reported as missing; every
    /// SN below it that is not NACKed was received.
    pub ack_sn: u32,
    pub nacks: Vec<Nack>,
    pub mrw_ack: Option<u32>,
    pub(crate) size_bytes: u32,
}

impl StatusPdu {
    /// Size on the air, bytes.
    pub fn size_bytes(&self) -> u32 {
        self.size_bytes
    }
}

/// Request to move the receiving window up to `sn_mrw` after the transmitter discarded every
/// AMD PDU below it (25.322 §9.2.2.11.5 MRW SUFI with SN_MRW_LENGTH = `sn_mrw`, N_LENGTH = 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MrwPdu {
    pub sn_mrw: u32,
    pub(crate) size_bytes: u32,
}

impl MrwPdu {
    pub fn size_bytes(&self) -> u32 {
        self.size_bytes
    }
}

/// Any PDU of an AM entity, as the MAC carries it.
#[derive(Clone, Debug)]
pub enum RlcPdu<S = Packet> {
    /// From the transmitting side to the peer receiving side.
    Data(AmdPdu<S>),
    /// From a receiving side to the peer transmitting side.
    Status(StatusPdu),
    /// From the transmitting side to the peer receiving side.
    Mrw(MrwPdu),
}

impl<S: super::RlcSdu> RlcPdu<S> {
    pub fn size_bytes(&self) -> u32 {
        match self {
            RlcPdu::Data(p) => p.size_bytes(),
            RlcPdu::Status(p) => p.size_bytes(),
            RlcPdu::Mrw(p) => p.size_bytes(),
        }
    }
    /// STATUS and MRW are RLC control PDUs (D/C = 0).
    pub fn is_control(&self) -> bool {
        !matches!(self, RlcPdu::Data(_))
    }
}

/// Bit sizes of control PDU fields for an SN length.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ControlBits {
    sn_bits: u32,
    /// SOstart / SOend: 15 bits with a 10-bit SN, 16 bits with a 16-bit SN.
    so_bits: u32,
}

impl ControlBits {
    pub(crate) fn new(sn_bits: u8) -> Self {
        ControlBits {
            sn_bits: sn_bits as u32,
            so_bits: if sn_bits > 10 { 16 } else { 15 },
        }
    }

    /// D/C (1) + CPT (3) + ACK_SN + E1 (1), 36.322 §6.2.1.6; plus MRW_ACK (type 4, N 4, SN).
    pub(crate) fn status_base(&self, with_mrw_ack: bool) -> u32 {
        5 + self.sn_bits + if with_mrw_ack { 8 + self.sn_bits } else { 0 }
    }

    /// NACK_SN + E1 + E2, and SOstart + SOend when the NACK covers a portion.
    pub(crate) fn nack(&self, with_so: bool) -> u32 {
        self.sn_bits + 2 + if with_so { 2 * self.so_bits } else { 0 }
    }

    /// Bytes of a control PDU of `bits` bits: rounded up, or the fixed PDU size.
    pub(crate) fn bytes(mode: PduMode, bits: u32) -> u32 {
        match mode {
            PduMode::Flexible => bits.div_ceil(8),
            PduMode::Fixed { bytes } => bytes,
        }
    }

    /// Bits available in a grant for one control PDU, or `None` if the grant is below a fixed
    /// PDU size.
    pub(crate) fn budget(mode: PduMode, grant_bytes: u32) -> Option<u32> {
        match mode {
            PduMode::Flexible => Some(grant_bytes.saturating_mul(8)),
            PduMode::Fixed { bytes } if grant_bytes >= bytes => Some(bytes * 8),
            PduMode::Fixed { .. } => None,
        }
    }

    /// MRW control PDU (25.322 §9.2.1.6 with one MRW SUFI): D/C (1) + PDU type (3) + SUFI type
    /// (4) + LENGTH (4) + SN_MRW + N_LENGTH (4).
    pub(crate) fn mrw(&self) -> u32 {
        16 + self.sn_bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_sizes_follow_36_322() {
        let c = ControlBits::new(10);
        // ACK only: 15 bits -> 2 bytes.
        assert_eq!(
            ControlBits::bytes(PduMode::Flexible, c.status_base(false)),
            2
        );
        // one whole NACK: 15 + 12 = 27 bits -> 4 bytes; with SO: 57 bits -> 8 bytes.
        assert_eq!(
            ControlBits::bytes(PduMode::Flexible, c.status_base(false) + c.nack(false)),
            4
        );
        assert_eq!(
            ControlBits::bytes(PduMode::Flexible, c.status_base(false) + c.nack(true)),
            8
        );
        assert_eq!(ControlBits::bytes(PduMode::Fixed { bytes: 40 }, 15), 40);
        assert_eq!(ControlBits::bytes(PduMode::Flexible, c.mrw()), 4);
        assert_eq!(ControlBits::budget(PduMode::Fixed { bytes: 40 }, 39), None);
    }
}
