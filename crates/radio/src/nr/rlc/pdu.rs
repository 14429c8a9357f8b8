//! NR RLC PDUs (TS 38.322 §6.2.2) and their exact sizes on the air.
//!
//! NR has no concatenation: the data field of an AMD or UMD PDU is one RLC SDU or one segment
//! of one (§4.2.1, §6.2.2.3/4), which is exactly a [`DataElement`]: the SDU, the segment offset
//! SO (§6.2.3.5) and its length. The SI field (§6.2.3.4) follows from the element.
//!
//! Byte layouts (§6.2.2.3, §6.2.2.4, §6.2.2.5), all byte-aligned:
//!
//! | PDU | fields | bytes |
//! |---|---|---|
//! | UMD, complete SDU (Figure 6.2.2.3-1) | SI, R×6 | 1 |
//! | UMD segment, 6-bit SN (Figure 6.2.2.3-2/-4) | SI, SN(6), SO(16) if not first | 1; 3 with SO |
//! | UMD segment, 12-bit SN (Figure 6.2.2.3-3/-5) | SI, R×2, SN(12), SO(16) if not first | 2; 4 with SO |
//! | AMD, 12-bit SN (Figure 6.2.2.4-1/-3) | D/C, P, SI, SN(12), SO(16) if not first | 2; 4 with SO |
//! | AMD, 18-bit SN (Figure 6.2.2.4-2/-4) | D/C, P, SI, R×2, SN(18), SO(16) if not first | 3; 5 with SO |
//! | STATUS, 12-bit SN (Figure 6.2.2.5-1) | D/C, CPT(3), ACK_SN(12), E1, R×7 | 3 |
//! | … each NACK | NACK_SN(12), E1, E2, E3, R | 2 |
//! | STATUS, 18-bit SN (Figure 6.2.2.5-2) | D/C, CPT(3), ACK_SN(18), E1, R | 3 |
//! | … each NACK | NACK_SN(18), E1, E2, E3, R×3 | 3 |
//! | … SOstart, SOend (E2 = 1) | 16 + 16 bits | 4 |
//! | … NACK range (E3 = 1) | 8 bits | 1 |
//!
//! SO is present only when the segment does not start its SDU (SI = 10 or 11): the first
//! segment (SI = 01) and a complete SDU (SI = 00) carry none.

use celltcp_net::packet::Packet;

use crate::rlc::{DataElement, RlcSdu};

/// Bytes of the SO field (§6.2.3.5: 16 bits).
pub const SO_BYTES: u32 = 2;

/// Largest value of the NACK range field (§6.2.3.17: 8 bits, the number of consecutively lost
/// RLC SDUs starting from and including NACK_SN).
pub const MAX_NACK_RANGE: u32 = 255;

/// The SI field (TS 38.322 §6.2.3.4, Table 6.2.3.4-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentationInfo {
    /// 00: the data field contains all bytes of an RLC SDU.
    Complete,
    /// 01: the first segment of an RLC SDU.
    First,
    /// 10: the last segment of an RLC SDU.
    Last,
    /// 11: neither the first nor the last segment.
    Middle,
}

impl SegmentationInfo {
    /// The SI of a data field carrying `e`.
    pub fn of<S: RlcSdu>(e: &DataElement<S>) -> Self {
        match (e.is_sdu_start(), e.is_sdu_end()) {
            (true, true) => SegmentationInfo::Complete,
            (true, false) => SegmentationInfo::First,
            (false, true) => SegmentationInfo::Last,
            (false, false) => SegmentationInfo::Middle,
        }
    }

    /// Whether the header carries SO (§6.2.2.3/4: SI = 10 or 11).
    pub fn has_so(self) -> bool {
        matches!(self, SegmentationInfo::Last | SegmentationInfo::Middle)
    }
}

/// SN field lengths of NR RLC AM (38.331 `SN-FieldLengthAM`: size12 or size18).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AmSnLength {
    Bits12,
    Bits18,
}

impl AmSnLength {
    pub fn bits(self) -> u8 {
        match self {
            AmSnLength::Bits12 => 12,
            AmSnLength::Bits18 => 18,
        }
    }

    /// AM_Window_Size (§7.2): 2048 for a 12-bit SN, 131072 for an 18-bit SN.
    pub fn window(self) -> u32 {
        1 << (self.bits() - 1)
    }

    /// AMD PDU header without SO (Figures 6.2.2.4-1/-2): 2 or 3 bytes.
    pub fn amd_header_bytes(self) -> u32 {
        match self {
            AmSnLength::Bits12 => 2,
            AmSnLength::Bits18 => 3,
        }
    }

    /// Bits of one NACK_SN with its E1, E2, E3 and reserved bits (Figures 6.2.2.5-1/-2).
    pub fn nack_sn_bits(self) -> u32 {
        match self {
            AmSnLength::Bits12 => 16,
            AmSnLength::Bits18 => 24,
        }
    }
}

/// SN field lengths of NR RLC UM (38.331 `SN-FieldLengthUM`: size6 or size12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UmSnLength {
    Bits6,
    Bits12,
}

impl UmSnLength {
    pub fn bits(self) -> u8 {
        match self {
            UmSnLength::Bits6 => 6,
            UmSnLength::Bits12 => 12,
        }
    }

    /// UM_Window_Size (§7.2): 32 for a 6-bit SN, 2048 for a 12-bit SN.
    pub fn window(self) -> u32 {
        1 << (self.bits() - 1)
    }

    /// UMD PDU segment header without SO (Figures 6.2.2.3-2/-3): 1 or 2 bytes.
    pub fn segment_header_bytes(self) -> u32 {
        match self {
            UmSnLength::Bits6 => 1,
            UmSnLength::Bits12 => 2,
        }
    }
}

/// Header bytes of a UMD PDU carrying a complete SDU (Figure 6.2.2.3-1: SI and 6 R bits).
pub const UMD_COMPLETE_HEADER_BYTES: u32 = 1;

/// An AMD PDU (TS 38.322 §6.2.2.4): one SDU, or one segment of one, with its SN and P bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NrAmdPdu<S = Packet> {
    /// SN of the RLC SDU (§6.2.3.3): every segment of an SDU carries the SDU's SN.
    pub sn: u32,
    /// P: the peer is asked for a STATUS report (§5.3.3).
    pub poll: bool,
    /// The data field: bytes `[offset, offset + len)` of the SDU; SO = `offset`.
    pub data: DataElement<S>,
    pub(crate) sn_length: AmSnLength,
}

impl<S: RlcSdu> NrAmdPdu<S> {
    pub fn si(&self) -> SegmentationInfo {
        SegmentationInfo::of(&self.data)
    }
    /// SO (§6.2.3.5) when the header carries it.
    pub fn so(&self) -> Option<u32> {
        self.si().has_so().then_some(self.data.offset)
    }
    pub fn header_bytes(&self) -> u32 {
        amd_header_bytes(self.sn_length, self.data.offset)
    }
    /// Size on the air, bytes.
    pub fn size_bytes(&self) -> u32 {
        self.header_bytes() + self.data.len
    }
}

/// Header bytes of an AMD PDU whose data field starts at byte `offset` of its SDU.
pub(crate) fn amd_header_bytes(sn: AmSnLength, offset: u32) -> u32 {
    sn.amd_header_bytes() + if offset > 0 { SO_BYTES } else { 0 }
}

/// A UMD PDU (TS 38.322 §6.2.2.3). A complete SDU carries no SN (Figure 6.2.2.3-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NrUmdPdu<S = Packet> {
    /// SN (§6.2.3.3), present only on segments.
    pub sn: Option<u32>,
    pub data: DataElement<S>,
    pub(crate) sn_length: UmSnLength,
}

impl<S: RlcSdu> NrUmdPdu<S> {
    pub fn si(&self) -> SegmentationInfo {
        SegmentationInfo::of(&self.data)
    }
    pub fn so(&self) -> Option<u32> {
        self.si().has_so().then_some(self.data.offset)
    }
    pub fn header_bytes(&self) -> u32 {
        umd_header_bytes(self.sn_length, self.si())
    }
    pub fn size_bytes(&self) -> u32 {
        self.header_bytes() + self.data.len
    }
}

/// Header bytes of a UMD PDU with segmentation info `si`.
pub(crate) fn umd_header_bytes(sn: UmSnLength, si: SegmentationInfo) -> u32 {
    match si {
        SegmentationInfo::Complete => UMD_COMPLETE_HEADER_BYTES,
        SegmentationInfo::First => sn.segment_header_bytes(),
        SegmentationInfo::Last | SegmentationInfo::Middle => sn.segment_header_bytes() + SO_BYTES,
    }
}

/// SOstart and SOend of a NACK (§6.2.3.14, §6.2.3.15) as a half-open byte range.
///
/// `start` applies to the SDU NACK_SN, `end` to the last SDU of the NACK range (NACK_SN itself
/// without one). On the air SOend is the last missing byte, `end − 1`; `end = None` is the
/// special value 0xFFFF, "all bytes to the last byte of the RLC SDU".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NackSo {
    pub start: u32,
    pub end: Option<u32>,
}

/// One NACK of a STATUS PDU (§6.2.2.5): NACK_SN with the optional SOstart/SOend (E2) and NACK
/// range (E3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NrNack {
    pub sn: u32,
    pub so: Option<NackSo>,
    /// NACK range (§6.2.3.17): SDUs NACK_SN..NACK_SN + range − 1 are (partly) missing; `None`
    /// for one SDU. Values 2..=255.
    pub range: Option<u8>,
}

impl NrNack {
    /// Bits of this NACK on the air.
    pub fn bits(&self, sn: AmSnLength) -> u32 {
        sn.nack_sn_bits()
            + if self.so.is_some() { 32 } else { 0 }
            + if self.range.is_some() { 8 } else { 0 }
    }

    /// SDUs this NACK covers (1 without a range).
    pub fn sdus(&self) -> u32 {
        self.range.map_or(1, u32::from)
    }
}

/// Bits of a STATUS PDU without NACKs: D/C, CPT, ACK_SN, E1 and the reserved bits up to a byte
/// boundary (Figures 6.2.2.5-1/-2: 24 bits for either SN length).
pub const STATUS_BASE_BITS: u32 = 24;

/// A STATUS PDU (TS 38.322 §6.2.2.5): ACK_SN and NACKs in increasing SN order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NrStatusPdu {
    /// ACK_SN (§6.2.3.10): the SN of the next not received RLC SDU which is not reported as
    /// missing; every SDU below it that no NACK covers was received.
    pub ack_sn: u32,
    pub nacks: Vec<NrNack>,
    pub(crate) sn_length: AmSnLength,
}

impl NrStatusPdu {
    /// Size on the air, bits (always a whole number of bytes).
    pub fn size_bits(&self) -> u32 {
        STATUS_BASE_BITS
            + self
                .nacks
                .iter()
                .map(|n| n.bits(self.sn_length))
                .sum::<u32>()
    }
    pub fn size_bytes(&self) -> u32 {
        self.size_bits().div_ceil(8)
    }
}

/// Any PDU of an NR AM entity, as the MAC carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NrRlcPdu<S = Packet> {
    /// From a transmitting side to the peer receiving side.
    Data(NrAmdPdu<S>),
    /// From a receiving side to the peer transmitting side (D/C = 0, CPT = 000).
    Status(NrStatusPdu),
}

impl<S: RlcSdu> NrRlcPdu<S> {
    pub fn size_bytes(&self) -> u32 {
        match self {
            NrRlcPdu::Data(p) => p.size_bytes(),
            NrRlcPdu::Status(s) => s.size_bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rlc::testkit::sdu;

    fn piece(offset: u32, len: u32) -> DataElement<Packet> {
        DataElement {
            sdu: sdu(1, 1000),
            offset,
            len,
        }
    }

    /// TS 38.322 §6.2.2.4, Figures 6.2.2.4-1..-4: 2/3-byte AMD headers, +2 bytes of SO on
    /// segments that do not start their SDU.
    #[test]
    fn amd_header_sizes_follow_38_322_6_2_2_4() {
        for (sn, base) in [(AmSnLength::Bits12, 2), (AmSnLength::Bits18, 3)] {
            let pdu = |offset, len| NrAmdPdu {
                sn: 0,
                poll: false,
                data: piece(offset, len),
                sn_length: sn,
            };
            let whole = pdu(0, 1000);
            assert_eq!(
                (whole.si(), whole.so(), whole.header_bytes()),
                (SegmentationInfo::Complete, None, base)
            );
            assert_eq!(whole.size_bytes(), base + 1000);
            let first = pdu(0, 300);
            assert_eq!(
                (first.si(), first.so(), first.header_bytes()),
                (SegmentationInfo::First, None, base)
            );
            let middle = pdu(300, 300);
            assert_eq!(
                (middle.si(), middle.so(), middle.header_bytes()),
                (SegmentationInfo::Middle, Some(300), base + 2)
            );
            let last = pdu(600, 400);
            assert_eq!(
                (last.si(), last.so(), last.header_bytes()),
                (SegmentationInfo::Last, Some(600), base + 2)
            );
        }
        assert_eq!(
            (AmSnLength::Bits12.window(), AmSnLength::Bits18.window()),
            (2048, 131_072)
        );
    }

    /// TS 38.322 §6.2.2.3, Figures 6.2.2.3-1..-5: a complete SDU has a 1-byte header without SN;
    /// segments have a 1-byte (6-bit SN) or 2-byte (12-bit SN) header, +2 with SO.
    #[test]
    fn umd_header_sizes_follow_38_322_6_2_2_3() {
        use SegmentationInfo::*;
        for (sn, base) in [(UmSnLength::Bits6, 1), (UmSnLength::Bits12, 2)] {
            assert_eq!(umd_header_bytes(sn, Complete), 1);
            assert_eq!(umd_header_bytes(sn, First), base);
            assert_eq!(umd_header_bytes(sn, Middle), base + 2);
            assert_eq!(umd_header_bytes(sn, Last), base + 2);
        }
        assert_eq!(
            (UmSnLength::Bits6.window(), UmSnLength::Bits12.window()),
            (32, 2048)
        );
    }

    /// TS 38.322 §6.2.2.5, Figures 6.2.2.5-1/-2: 3 bytes of ACK_SN part; a NACK_SN is 2 bytes
    /// (12-bit SN) or 3 bytes (18-bit SN), SOstart+SOend 4 bytes, NACK range 1 byte.
    #[test]
    fn status_sizes_follow_38_322_6_2_2_5() {
        let nack = |so: bool, range: bool| NrNack {
            sn: 5,
            so: so.then_some(NackSo {
                start: 10,
                end: None,
            }),
            range: range.then_some(3),
        };
        for (sn, n) in [(AmSnLength::Bits12, 2), (AmSnLength::Bits18, 3)] {
            let status = |nacks: Vec<NrNack>| NrStatusPdu {
                ack_sn: 9,
                nacks,
                sn_length: sn,
            };
            assert_eq!(status(vec![]).size_bytes(), 3);
            assert_eq!(status(vec![nack(false, false)]).size_bytes(), 3 + n);
            assert_eq!(status(vec![nack(true, false)]).size_bytes(), 3 + n + 4);
            assert_eq!(status(vec![nack(false, true)]).size_bytes(), 3 + n + 1);
            assert_eq!(
                status(vec![nack(true, true), nack(false, false)]).size_bytes(),
                3 + n + 5 + n
            );
            assert_eq!(status(vec![nack(true, true)]).size_bits() % 8, 0);
        }
    }
}
