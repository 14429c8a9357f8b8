//! The byte model of RLC data PDU headers.
//!
//! Flexible (LTE) PDUs, 36.322 §6.2.1.3–§6.2.1.5: a fixed part (D/C, RF, P, FI, E and SN), then
//! for a PDU with K data field elements, K − 1 pairs of (E, LI) fields of 1 + 11 bits, padded to
//! a whole byte: ⌈12·(K − 1) / 8⌉ bytes, i.e. 1.5 bytes per extra element. The last element's
//! length is implied by the PDU size. An AMD PDU segment adds LSF and SO (1 + 15 bits).
//!
//! Fixed (WCDMA) PDUs, 25.322 §9.2.1.4 and §9.2.2.8: a 2-byte fixed part and one (LI, E) byte
//! (7-bit LI, PDUs up to 126 bytes) or two bytes (15-bit LI) for every element that does not run
//! to the last byte of the PDU: it marks either the end of an SDU inside the PDU or the start of
//! padding. See docs/rlc.md for what this simplifies.

use super::RlcConfigError;

/// Header sizes of data PDUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeaderModel {
    /// Fixed part of a data PDU header, bytes.
    pub fixed_bytes: u32,
    /// Extra bytes in the header of an AMD PDU segment (LSF + SO, 36.322 §6.2.1.5), bytes.
    pub segment_bytes: u32,
    /// Bits per length indicator, including its E bit.
    pub li_bits: u32,
    /// Largest element length an LI can express, bytes. An element longer than this can only be
    /// the last element of a flexible PDU (36.322 §6.2.2.5: an 11-bit LI).
    pub li_max: u32,
}

impl HeaderModel {
    /// LTE AMD PDU with 10-bit (2-byte fixed part) or 16-bit SN (3 bytes, 36.322 §6.2.1.4 of
    /// Rel-13), 11-bit LIs.
    pub const fn lte_am(sn_bits: u8) -> Self {
        let fixed_bytes = if sn_bits > 10 { 3 } else { 2 };
        HeaderModel {
            fixed_bytes,
            segment_bytes: 2,
            li_bits: 12,
            li_max: 2047,
        }
    }

    /// LTE UMD PDU with 5-bit (1-byte fixed part) or 10-bit SN (2 bytes), 36.322 §6.2.1.3.
    pub const fn lte_um(sn_bits: u8) -> Self {
        let fixed_bytes = if sn_bits > 5 { 2 } else { 1 };
        HeaderModel {
            fixed_bytes,
            segment_bytes: 0,
            li_bits: 12,
            li_max: 2047,
        }
    }

    /// WCDMA AMD PDU of `pdu_bytes` (25.322 §9.2.1.4): D/C, 12-bit SN, P and HE in 2 bytes; a
    /// 7-bit LI with its E bit when the PDU is at most 126 bytes, else a 15-bit LI (§9.2.2.8).
    pub const fn wcdma_am(pdu_bytes: u32) -> Self {
        let (li_bits, li_max) = if pdu_bytes <= 126 {
            (8, 127)
        } else {
            (16, 32_767)
        };
        HeaderModel {
            fixed_bytes: 2,
            segment_bytes: 0,
            li_bits,
            li_max,
        }
    }

    /// Bytes taken by `count` (E, LI) fields, padded to a whole byte (36.322 §6.2.1.4).
    #[inline]
    pub fn li_bytes(&self, count: u32) -> u32 {
        (count * self.li_bits).div_ceil(8)
    }

    /// Header of a flexible-mode data PDU with `elements` data field elements; `segment` adds
    /// the AMD PDU segment fields.
    #[inline]
    pub fn flexible_header_bytes(&self, elements: usize, segment: bool) -> u32 {
        let lis = (elements as u32).saturating_sub(1);
        self.fixed_bytes + if segment { self.segment_bytes } else { 0 } + self.li_bytes(lis)
    }

    /// Bytes of one LI in fixed mode, where each LI is a whole number of bytes.
    #[inline]
    pub(crate) fn fixed_li_bytes(&self) -> u32 {
        self.li_bits.div_ceil(8)
    }

    pub(crate) fn validate(&self) -> Result<(), RlcConfigError> {
        if self.fixed_bytes == 0 {
            return Err(RlcConfigError::invalid(
                "header.fixed_bytes",
                0,
                "at least 1 byte",
            ));
        }
        if self.li_bits == 0 || self.li_bits > 32 {
            return Err(RlcConfigError::invalid(
                "header.li_bits",
                self.li_bits,
                "1..=32 bits",
            ));
        }
        if self.li_max == 0 {
            return Err(RlcConfigError::invalid(
                "header.li_max",
                0,
                "at least 1 byte",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lte_length_indicators_take_one_and_a_half_bytes_each() {
        let h = HeaderModel::lte_am(10);
        assert_eq!(h.flexible_header_bytes(1, false), 2);
        assert_eq!(h.flexible_header_bytes(2, false), 2 + 2); // 12 bits padded to 2 bytes
        assert_eq!(h.flexible_header_bytes(3, false), 2 + 3); // 24 bits
        assert_eq!(h.flexible_header_bytes(4, false), 2 + 5); // 36 bits padded to 5 bytes
        assert_eq!(h.flexible_header_bytes(1, true), 4);
        assert_eq!(HeaderModel::lte_am(16).flexible_header_bytes(1, false), 3);
        assert_eq!(HeaderModel::lte_um(5).fixed_bytes, 1);
        assert_eq!(HeaderModel::lte_um(10).fixed_bytes, 2);
    }

    #[test]
    fn wcdma_li_size_follows_the_pdu_size() {
        assert_eq!(HeaderModel::wcdma_am(40).fixed_li_bytes(), 1);
        assert_eq!(HeaderModel::wcdma_am(126).fixed_li_bytes(), 1);
        assert_eq!(HeaderModel::wcdma_am(127).fixed_li_bytes(), 2);
    }
}
