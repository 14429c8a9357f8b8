//! The bytes of the cell's layer-2 PDUs as 3GPP specifies them, for captures that Wireshark's
//! `mac-lte`, `rlc-lte` and `pdcp-lte` dissectors decode:
//!
//! * PDCP data PDU for a DRB (TS 36.323 §6.2.3–§6.2.6, §6.3.1): D/C = 1, reserved bits, the SN
//!   in the header's last `sn_bits` bits; ciphering is not modelled, so the IP datagram follows
//!   in the clear (EEA0, as Wireshark's default).
//! * RLC AMD PDU and AMD PDU segment (TS 36.322 §6.2.1.4, §6.2.1.5), UMD PDU (§6.2.1.3) and
//!   STATUS PDU (§6.2.1.6), with the fields the model's PDUs carry: SN, P, FI from the data
//!   field elements, LIs for every element but the last, LSF and SO for a segment, ACK_SN and
//!   NACK_SN with SOstart/SOend.
//! * MAC PDU of DL-SCH and UL-SCH (TS 36.321 §6.1.2): one R/R/E/LCID subheader per MAC SDU
//!   with its R/F/L field (7- or 15-bit L) unless it is the last one, padding as §6.1.2 requires
//!   (one or two padding subheaders at the start for one or two bytes, otherwise a padding
//!   subheader last and the padding bytes at the end).
//! * The "mac-lte-framed" UDP framing of Wireshark's `packet-mac-lte.h`: the signature
//!   `mac-lte`, radioType, direction, rntiType, then tag-value fields and the payload tag.
//!
//! The model sizes RLC PDUs to fill the transport block and does not count the MAC subheaders
//! (docs/lte-model.md); the MAC PDU written here is therefore the transport block's RLC PDUs and
//! padding plus the subheaders that carry them. Bit layouts are written most significant bit
//! first, as 36.321/36.322/36.323 draw them.

use crate::rlc::{AmdPdu, Nack, StatusPdu, UmdPdu};

use super::bearer::BearerSdu;

/// The logical channel of the UE's data radio bearer: DRB 1 on LCID 3, the first LCID of a
/// DRB (36.321 Table 6.2.1-1; 36.331 drb-Identity 1 → logicalChannelIdentity 3).
pub const DRB_LCID: u8 = 3;
/// LCID of padding (36.321 Table 6.2.1-1 and 6.2.1-2).
pub const PADDING_LCID: u8 = 0b11111;
/// First C-RNTI value (36.321 Table 7.1-1: RA-RNTI takes 0x0001–0x003C in FDD).
pub const FIRST_C_RNTI: u16 = 0x003D;

/// The framing of Wireshark's `packet-mac-lte.h` ("UDP framing format").
pub mod framing {
    /// Signature at the start of the UDP payload, without a terminating NUL.
    pub const START_STRING: &[u8] = b"mac-lte";
    /// radioType.
    pub const FDD_RADIO: u8 = 1;
    /// direction.
    pub const DIRECTION_UPLINK: u8 = 0;
    pub const DIRECTION_DOWNLINK: u8 = 1;
    /// rntiType.
    pub const C_RNTI: u8 = 3;
    /// Tags, each followed by its value (length implied by the tag).
    pub const PAYLOAD_TAG: u8 = 0x01;
    pub const RNTI_TAG: u8 = 0x02;
    pub const UEID_TAG: u8 = 0x03;
    pub const FRAME_SUBFRAME_TAG: u8 = 0x04;
    pub const RETX_TAG: u8 = 0x06;
    pub const CRC_STATUS_TAG: u8 = 0x07;
    pub const PHY_TAG: u8 = 0x0B;
    /// mac_lte_crc_status.
    pub const CRC_FAIL: u8 = 0;
    pub const CRC_SUCCESS: u8 = 1;
    /// mac_lte_dl_retx: `dl_retx_unknown`.
    pub const DL_RETX_UNKNOWN: u8 = 2;
    /// UDP port the captures use: one no Wireshark dissector claims, so that the heuristic
    /// dissector (`mac_lte_udp`) is asked.
    pub const UDP_PORT: u16 = 9999;
}

/// Context fields of one MAC PDU in the framing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MacContext {
    pub downlink: bool,
    pub rnti: u16,
    pub ueid: u16,
    /// TTI number since the start of the run: SFN = (tti / 10) mod 1024, subframe = tti mod 10.
    pub tti: u64,
    /// 0 for a new transmission, 1 for the first retransmission, …
    pub retx: u8,
    pub crc_ok: bool,
    /// Downlink PHY fields: MCS index, PRBs, HARQ process, NDI.
    pub phy: Option<DlPhy>,
}

/// The downlink part of `MAC_LTE_PHY_TAG`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DlPhy {
    pub mcs: u8,
    pub n_prb: u8,
    pub harq_id: u8,
    pub ndi: bool,
}

/// Appends the framing header (signature to payload tag) of a MAC PDU with `ctx`.
pub fn write_framing(out: &mut Vec<u8>, ctx: &MacContext) {
    use framing::*;
    out.extend_from_slice(START_STRING);
    let direction = if ctx.downlink {
        DIRECTION_DOWNLINK
    } else {
        DIRECTION_UPLINK
    };
    out.extend_from_slice(&[FDD_RADIO, direction, C_RNTI]);
    out.push(RNTI_TAG);
    out.extend_from_slice(&ctx.rnti.to_be_bytes());
    out.push(UEID_TAG);
    out.extend_from_slice(&ctx.ueid.to_be_bytes());
    // SFN in the 12 most significant bits, subframe in the 4 least (packet-mac-lte.h).
    let sfn = ((ctx.tti / 10) % 1024) as u16;
    let sf = (ctx.tti % 10) as u16;
    out.push(FRAME_SUBFRAME_TAG);
    out.extend_from_slice(&((sfn << 4) | sf).to_be_bytes());
    out.extend_from_slice(&[RETX_TAG, ctx.retx]);
    out.extend_from_slice(&[
        CRC_STATUS_TAG,
        if ctx.crc_ok { CRC_SUCCESS } else { CRC_FAIL },
    ]);
    if let Some(p) = ctx.phy {
        // DL: length 10, DCI format, resource allocation type, aggregation level, MCS index,
        // redundancy version, RB length, HARQ id, NDI, TB, DL reTx. The redundancy version
        // follows the transmission number as the eNB cycles it, rv_idx 0, 2, 3, 1 (36.321
        // §5.3.2.1 with 36.213 §7.1.7.1); DCI format 1 and allocation type 0 for a
        // single-codeword PDSCH; transport block 0. DL reTx is `dl_retx_unknown`: Wireshark's
        // RLC analysis skips the PDUs of a frame marked as a retransmission, taking them for
        // a copy of data already seen, whereas HARQ resends a block only after a NACK, so the
        // transmission the UE decodes is the first time its PDUs arrive (the retransmission
        // count is in `MAC_LTE_RETX_TAG`).
        let rv = [0u8, 2, 3, 1][usize::from(ctx.retx % 4)];
        out.extend_from_slice(&[
            PHY_TAG,
            10,
            1,
            0,
            0,
            p.mcs,
            rv,
            p.n_prb,
            p.harq_id,
            u8::from(p.ndi),
            0,
            DL_RETX_UNKNOWN,
        ]);
    }
    out.push(PAYLOAD_TAG);
}

/// Writes bits most significant first.
struct Bits<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    n: u32,
}

impl<'a> Bits<'a> {
    fn new(out: &'a mut Vec<u8>) -> Self {
        Bits { out, acc: 0, n: 0 }
    }
    fn put(&mut self, value: u32, bits: u32) {
        debug_assert!(bits <= 32);
        let mask = if bits == 32 {
            u32::MAX
        } else {
            (1 << bits) - 1
        };
        self.acc = (self.acc << bits) | u64::from(value & mask);
        self.n += bits;
        while self.n >= 8 {
            self.n -= 8;
            self.out.push((self.acc >> self.n) as u8);
        }
    }
    /// Pads with zero bits to a whole byte.
    fn finish(mut self) {
        if self.n > 0 {
            let pad = 8 - self.n;
            self.put(0, pad);
        }
    }
}

/// The FI field (36.322 §6.2.2.6): bit 1 set when the first byte does not start an SDU, bit 0
/// when the last byte does not end one.
fn fi((starts, ends): (bool, bool)) -> u32 {
    (u32::from(!starts) << 1) | u32::from(!ends)
}

/// Appends the bytes of an RLC data field: for each element, its slice of the PDCP PDU of its
/// SDU (PDCP header, then the IP datagram). `render` writes an SDU's PDCP PDU to a buffer.
fn write_data<'a>(
    out: &mut Vec<u8>,
    elements: impl Iterator<Item = &'a crate::rlc::DataElement<BearerSdu>>,
    sdu_bytes: &mut Vec<u8>,
) {
    for e in elements {
        sdu_bytes.clear();
        write_pdcp_pdu(sdu_bytes, &e.sdu);
        let from = (e.offset as usize).min(sdu_bytes.len());
        let to = (e.offset as usize + e.len as usize).min(sdu_bytes.len());
        out.extend_from_slice(&sdu_bytes[from..to]);
        // An SDU the renderer made shorter than its modelled size (never for IPv4 packets
        // in a cell) still fills its element, so that every length field stays right.
        out.resize(out.len() + (e.len as usize - (to - from)), 0);
    }
}

/// Appends a PDCP data PDU for a DRB (36.323 §6.2.3–§6.2.6): D/C = 1, reserved zeros, the SN
/// in the last `sn_bits` bits of the header, then the IP datagram.
pub fn write_pdcp_pdu(out: &mut Vec<u8>, pdu: &BearerSdu) {
    let header_bits = u32::from(pdu.header_bytes) * 8;
    let sn_bits = u32::from(pdu.sn_bits).min(header_bits - 1);
    let mut b = Bits::new(out);
    b.put(1, 1);
    b.put(0, header_bits - 1 - sn_bits);
    b.put(pdu.sn(), sn_bits);
    b.finish();
    let mut pkt = pdu.sdu.packet;
    // Inside the cell a packet travels without its S1-U tunnel.
    pkt.tunnel = None;
    let start = out.len();
    if celltcp_net::wire::write_datagram(&pkt, out).is_err() {
        out.truncate(start);
    }
}

/// The E/LI fields (36.322 §6.2.1.4) of a data field: one per element but the last, each E set
/// when another follows, padded with four zero bits after an odd number.
fn write_lis<'a>(
    b: &mut Bits<'_>,
    k: usize,
    elements: impl Iterator<Item = &'a crate::rlc::DataElement<BearerSdu>>,
) {
    for (i, e) in elements.take(k.saturating_sub(1)).enumerate() {
        b.put(u32::from(i + 2 < k), 1);
        b.put(e.len, 11);
    }
}

/// Appends an AMD PDU or AMD PDU segment (36.322 §6.2.1.4, §6.2.1.5) with a `sn_bits` SN
/// (10, or 16 with the Rel-13 extended format and its two reserved bits and 16-bit SO).
pub fn write_amd_pdu(
    out: &mut Vec<u8>,
    pdu: &AmdPdu<BearerSdu>,
    sn_bits: u8,
    sdu_bytes: &mut Vec<u8>,
) {
    let k = pdu.data.len();
    let mut b = Bits::new(out);
    b.put(1, 1); // D/C: data PDU
    b.put(u32::from(pdu.segment.is_some()), 1); // RF
    b.put(u32::from(pdu.poll), 1); // P
    b.put(fi(pdu.framing_info()), 2);
    b.put(u32::from(k > 1), 1); // E
    let so_bits = if sn_bits > 10 {
        b.put(0, 2); // R1 R1
        b.put(pdu.sn, 16);
        16
    } else {
        b.put(pdu.sn, 10);
        15
    };
    if let Some(s) = pdu.segment {
        b.put(u32::from(s.lsf), 1);
        b.put(s.so, so_bits);
    }
    write_lis(&mut b, k, pdu.data.iter());
    b.finish();
    write_data(out, pdu.data.iter(), sdu_bytes);
}

/// Appends a UMD PDU (36.322 §6.2.1.3) with a 5- or 10-bit SN.
pub fn write_umd_pdu(
    out: &mut Vec<u8>,
    pdu: &UmdPdu<BearerSdu>,
    sn_bits: u8,
    sdu_bytes: &mut Vec<u8>,
) {
    let k = pdu.data.len();
    let mut b = Bits::new(out);
    if sn_bits > 5 {
        b.put(0, 3); // R1 R1 R1
    }
    b.put(fi(pdu.data.framing_info()), 2);
    b.put(u32::from(k > 1), 1);
    b.put(pdu.sn, u32::from(sn_bits));
    write_lis(&mut b, k, pdu.data.iter());
    b.finish();
    write_data(out, pdu.data.iter(), sdu_bytes);
}

/// Appends a STATUS PDU (36.322 §6.2.1.6): D/C = 0, CPT = 000, ACK_SN, then each NACK_SN with
/// its E1/E2 and, for a portion, SOstart and SOend (the last missing byte; 0x7FFF, or 0xFFFF
/// with 16-bit SOs, up to the end of the PDU). The MRW_ACK the model adds after an MRW
/// (a WCDMA SUFI) has no 36.322 field and is not written.
pub fn write_status_pdu(out: &mut Vec<u8>, status: &StatusPdu, sn_bits: u8) {
    let sn = u32::from(sn_bits);
    let so_bits = if sn_bits > 10 { 16 } else { 15 };
    let so_end_special = (1u32 << so_bits) - 1;
    let mut b = Bits::new(out);
    b.put(0, 1); // D/C: control PDU
    b.put(0, 3); // CPT: STATUS PDU
    b.put(status.ack_sn, sn);
    b.put(u32::from(!status.nacks.is_empty()), 1); // E1
    let n = status.nacks.len();
    for (i, Nack { sn: nack_sn, so }) in status.nacks.iter().enumerate() {
        b.put(*nack_sn, sn);
        b.put(u32::from(i + 1 < n), 1); // E1
        b.put(u32::from(so.is_some()), 1); // E2
        if let Some(r) = so {
            b.put(r.start, so_bits);
            b.put(
                r.end.map_or(so_end_special, |e| e.saturating_sub(1)),
                so_bits,
            );
        }
    }
    b.finish();
}

/// Appends a MAC PDU (36.321 §6.1.2) carrying `sdus` (each a byte range of `body`, in order) on
/// `lcid`, followed by `padding` bytes of padding.
pub fn write_mac_pdu(
    out: &mut Vec<u8>,
    lcid: u8,
    body: &[u8],
    sdus: &[(usize, usize)],
    padding: u32,
) {
    let n = sdus.len();
    // One or two bytes of padding are the padding subheaders themselves, placed first.
    let (lead, tail) = match padding {
        0 => (0, None),
        1 | 2 => (padding, None),
        p => (0, Some(p - 1)),
    };
    for _ in 0..lead {
        out.push(0b0010_0000 | PADDING_LCID); // R R E=1 LCID
    }
    for (i, &(from, to)) in sdus.iter().enumerate() {
        let last = i + 1 == n && tail.is_none();
        let e = if last { 0 } else { 0b0010_0000 };
        out.push(e | (lcid & 0x1F));
        if !last {
            let len = to - from;
            if len < 128 {
                out.push(len as u8); // F = 0, 7-bit L
            } else {
                out.extend_from_slice(&(0x8000 | (len as u16 & 0x7FFF)).to_be_bytes());
            }
        }
    }
    if tail.is_some() {
        out.push(PADDING_LCID); // R R E=0 LCID: the last subheader
    }
    for &(from, to) in sdus {
        out.extend_from_slice(&body[from..to]);
    }
    if let Some(t) = tail {
        out.resize(out.len() + t as usize, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rlc::{SegmentHeader, SoRange};

    fn status(ack_sn: u32, nacks: Vec<Nack>) -> StatusPdu {
        StatusPdu {
            ack_sn,
            nacks,
            mrw_ack: None,
            size_bytes: 0,
        }
    }

    #[test]
    fn status_pdu_fields_follow_36_322() {
        let mut out = Vec::new();
        write_status_pdu(&mut out, &status(8, vec![]), 10);
        // D/C 0, CPT 000, ACK_SN 0000001000, E1 0, one pad bit.
        assert_eq!(out, vec![0b0000_0000, 0b0010_0000]);
        out.clear();
        let nacks = vec![
            Nack { sn: 5, so: None },
            Nack {
                sn: 6,
                so: Some(SoRange {
                    start: 10,
                    end: None,
                }),
            },
        ];
        write_status_pdu(&mut out, &status(8, nacks), 10);
        // 15 + 12 + 12 + 30 = 69 bits → 9 bytes.
        assert_eq!(out.len(), 9);
        // ACK_SN 8, E1 1, then the first bit of NACK_SN 5.
        assert_eq!(out[0..2], [0b0000_0000, 0b0010_0010]);
        // NACK_SN 5 (0000000101), E1 1, E2 0, then NACK_SN 6, E1 0, E2 1, SOstart 10, SOend 0x7FFF.
        let bits: String = out.iter().map(|b| format!("{b:08b}")).collect();
        assert_eq!(&bits[15..27], "000000010110");
        assert_eq!(&bits[27..39], "000000011001");
        assert_eq!(&bits[39..54], format!("{:015b}", 10));
        assert_eq!(&bits[54..69], "111111111111111");
    }

    #[test]
    fn mac_padding_uses_leading_subheaders_for_one_or_two_bytes() {
        let body = [0xAAu8; 200];
        let mut out = Vec::new();
        write_mac_pdu(&mut out, 3, &body, &[(0, 10), (10, 150)], 0);
        // LCID 3 with L=10, then LCID 3 last without L.
        assert_eq!(out[..3], [0x23, 10, 0x03]);
        assert_eq!(out.len(), 3 + 150);
        out.clear();
        write_mac_pdu(&mut out, 3, &body, &[(0, 150)], 2);
        assert_eq!(out[..3], [0x3F, 0x3F, 0x03]);
        assert_eq!(out.len(), 2 + 1 + 150);
        out.clear();
        write_mac_pdu(&mut out, 3, &body, &[(0, 150)], 20);
        // LCID 3 with a 15-bit L of 150, then the padding subheader last, 19 padding bytes.
        assert_eq!(out[..4], [0x23, 0x80, 150, 0x1F]);
        assert_eq!(out.len(), 4 + 150 + 19);
    }

    #[test]
    fn framing_carries_the_packet_mac_lte_h_tags() {
        let mut out = Vec::new();
        let ctx = MacContext {
            downlink: true,
            rnti: 0x3D,
            ueid: 2,
            tti: 12_345,
            retx: 1,
            crc_ok: false,
            phy: None,
        };
        write_framing(&mut out, &ctx);
        let sfn_sf = ((1234u16 % 1024) << 4) | 5;
        let mut want = b"mac-lte".to_vec();
        want.extend_from_slice(&[1, 1, 3, 0x02, 0, 0x3D, 0x03, 0, 2, 0x04]);
        want.extend_from_slice(&sfn_sf.to_be_bytes());
        want.extend_from_slice(&[0x06, 1, 0x07, 0, 0x01]);
        assert_eq!(out, want);
        out.clear();
        let phy = DlPhy {
            mcs: 22,
            n_prb: 50,
            harq_id: 5,
            ndi: true,
        };
        write_framing(
            &mut out,
            &MacContext {
                phy: Some(phy),
                ..ctx
            },
        );
        // PHY tag, length 10: DCI 1, type 0, level 0, MCS 22, RV 2 (second transmission), 50
        // PRBs, HARQ 5, NDI 1, TB 0, DL reTx unknown; then the payload tag.
        let tail = &out[out.len() - 13..];
        assert_eq!(tail, &[0x0B, 10, 1, 0, 0, 22, 2, 50, 5, 1, 0, 2, 0x01]);
    }

    fn bearer_sdu(uid: u64, ip_bytes: u32, count: u32) -> BearerSdu {
        crate::pdcp::PdcpPdu {
            count,
            sdu: crate::cell::StampedPacket {
                packet: crate::rlc::testkit::sdu(uid, ip_bytes),
                arrived: celltcp_engine::SimTime::ZERO,
            },
            header_bytes: 2,
            sn_bits: 12,
        }
    }

    #[test]
    fn amd_pdu_segment_carries_lsf_so_lis_and_the_pdcp_pdus() {
        use crate::rlc::{DataElement, DataField};
        // The tail of SDU 1 (bytes 30.. of its 102-byte PDCP PDU), then SDU 2 whole, then the
        // head of SDU 3: FI 11, two LIs (72 and 52), an AMD PDU segment at SO 300, last.
        let (a, b, c) = (
            bearer_sdu(1, 100, 4096 + 7),
            bearer_sdu(2, 50, 8),
            bearer_sdu(3, 100, 9),
        );
        let mut data = DataField::new();
        data.push(DataElement {
            sdu: a,
            offset: 30,
            len: 72,
        });
        data.push(DataElement {
            sdu: b,
            offset: 0,
            len: 52,
        });
        data.push(DataElement {
            sdu: c,
            offset: 0,
            len: 10,
        });
        let pdu = AmdPdu {
            sn: 0x2AB,
            poll: true,
            segment: Some(SegmentHeader { so: 300, lsf: true }),
            data,
            header_bytes: 0,
            size_bytes: 0,
        };
        let mut out = Vec::new();
        write_amd_pdu(&mut out, &pdu, 10, &mut Vec::new());
        let bits: String = out.iter().map(|b| format!("{b:08b}")).collect();
        // D/C 1, RF 1, P 1, FI 11, E 1, SN 1010101011; LSF 1, SO 300 (15 bits).
        assert_eq!(&bits[..16], "1111111010101011");
        assert_eq!(&bits[16..32], format!("1{:015b}", 300));
        // E 1, LI 72; E 0, LI 52: 24 bits, no padding (an odd number of LIs would add 4).
        assert_eq!(&bits[32..44], format!("1{:011b}", 72));
        assert_eq!(&bits[44..56], format!("0{:011b}", 52));
        let header = 7;
        assert_eq!(out.len(), header + 72 + 52 + 10);
        // SDU 2's PDCP PDU: D/C 1, SN 8 in 12 bits, then an IPv4 header of 50 bytes total.
        let pdcp = &out[header + 72..header + 72 + 52];
        assert_eq!(pdcp[..2], [0x80, 0x08]);
        assert_eq!(pdcp[2] >> 4, 4);
        assert_eq!(u16::from_be_bytes([pdcp[4], pdcp[5]]), 50);
        // SDU 3's head: its PDCP SN 9, the COUNT's low 12 bits.
        assert_eq!(out[header + 124..header + 126], [0x80, 0x09]);
        // The first element is bytes 30..102 of SDU 1's PDCP PDU, whose header holds SN 7
        // (COUNT 4103 modulo 2^12).
        let mut full = Vec::new();
        write_pdcp_pdu(&mut full, &a);
        assert_eq!(full.len(), 102);
        assert_eq!(full[..2], [0x80, 0x07]);
        assert_eq!(out[header..header + 72], full[30..]);
    }
}
