//! The size of a WCDMA status report: its negative acknowledgements written as super-fields
//! (SUFIs) into fixed-size STATUS PDUs (TS 25.322 §9.2.1.6, §9.2.2.11).
//!
//! A STATUS PDU is D/C (1 bit) and PDU type (3 bits) followed by SUFIs and padding. With fixed
//! PDU sizes every transport block of a transport channel in a TTI has the same size (25.302
//! §7.1), so a STATUS PDU occupies a whole block of the AMD PDU size whatever its SUFIs take.
//! The SUFIs used here, with a 12-bit SN (25.322 §9.2.2.11):
//!
//! | SUFI | fields | bits |
//! |---|---|---|
//! | ACK (§9.2.2.11.2) | type, LSN | 4 + 12 = 16 |
//! | LIST (§9.2.2.11.3) | type, LENGTH, LENGTH × (SN_i, L_i) | 8 + 16·pairs; a pair covers 1 + L_i ≤ 16 consecutive SNs, pairs ≤ 15 |
//! | BITMAP (§9.2.2.11.4) | type, LENGTH, FSN, (LENGTH + 1) octets of bitmap | 20 + 8·octets; octets ≤ 16 (128 SNs from FSN) |
//! | RLIST (§9.2.2.11.5) | type, LENGTH, FSN, LENGTH codewords | 20 + 4·codewords; codewords ≤ 15 |
//! | MRW_ACK (§9.2.2.11.7) | type, N, SN_ACK | 4 + 4 + 12 = 20 |
//!
//! An RLIST codeword is 3 bits of a number and 1 bit that ends it; the number is the distance
//! from the previous erroneous PDU to the next one, least significant codeword first, so a
//! distance d takes ⌈bitlen(d) / 3⌉ codewords (1 up to 7, 2 up to 63, 3 up to 511, 4 beyond).
//! Its error-burst codeword is not used: a run of consecutive losses is cheaper as a LIST pair
//! or in a BITMAP.
//!
//! 25.322 leaves the choice of SUFIs to the receiver. This encoder writes the missing SNs in
//! increasing order; at each step it considers the longest LIST, BITMAP and RLIST that start
//! at the next missing SN and fit in the room left in the PDU, and takes the one with the
//! fewest bits per missing SN covered (ties: LIST, then BITMAP, then RLIST). Every STATUS PDU
//! ends with the ACK SUFI (which also ends the SUFI list, so NO_MORE is not needed); an
//! MRW_ACK, when due, goes into the first PDU. A report that does not fit in the PDUs allowed
//! is cut after the last whole SUFI, and its LSN must then not exceed the first missing SN
//! left out (§9.2.2.11.2: if LSN is above VR(R), every erroneous PDU below it is in the
//! STATUS PDU).

use std::ops::Range;

/// D/C and PDU type of a STATUS PDU (25.322 §9.2.2.1, §9.2.2.2), bits.
pub const STATUS_HEADER_BITS: u32 = 4;
/// SUFI type field, bits (25.322 §9.2.2.11.1).
const TYPE_BITS: u32 = 4;
/// LENGTH field of LIST, BITMAP and RLIST, bits.
const LENGTH_BITS: u32 = 4;
/// Largest LENGTH of a LIST (pairs) or an RLIST (codewords); LENGTH 0 of a LIST is invalid.
const MAX_LENGTH: u32 = 15;
/// L_i of a LIST pair, bits: the pair covers SN_i and up to 15 following SNs.
const LIST_L_BITS: u32 = 4;
/// SNs one LIST pair can cover.
const LIST_PAIR_SPAN: u32 = 1 << LIST_L_BITS;
/// A bitmap of (LENGTH + 1) octets: at most 16.
const BITMAP_MAX_OCTETS: u32 = 16;
/// An RLIST codeword: 3 bits of the number and the bit that ends it.
const CW_BITS: u32 = 4;
const CW_DATA_BITS: u32 = 3;
/// N field of MRW_ACK, bits.
const MRW_ACK_N_BITS: u32 = 4;

/// One super-field carrying negative acknowledgements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sufi {
    /// LIST with this many (SN_i, L_i) pairs.
    List { pairs: u32 },
    /// BITMAP with a bitmap of this many octets.
    Bitmap { octets: u32 },
    /// RLIST with this many codewords after its FSN.
    Rlist { codewords: u32 },
}

impl Sufi {
    /// Size on the air with `sn_bits`-bit SNs, bits.
    pub fn bits(self, sn_bits: u32) -> u32 {
        match self {
            Sufi::List { pairs } => TYPE_BITS + LENGTH_BITS + pairs * (sn_bits + LIST_L_BITS),
            Sufi::Bitmap { octets } => TYPE_BITS + LENGTH_BITS + sn_bits + 8 * octets,
            Sufi::Rlist { codewords } => TYPE_BITS + LENGTH_BITS + sn_bits + CW_BITS * codewords,
        }
    }
}

/// Bits of the ACK SUFI: type and LSN.
pub fn ack_sufi_bits(sn_bits: u32) -> u32 {
    TYPE_BITS + sn_bits
}

/// Bits of the MRW_ACK SUFI: type, N and SN_ACK.
pub fn mrw_ack_sufi_bits(sn_bits: u32) -> u32 {
    TYPE_BITS + MRW_ACK_N_BITS + sn_bits
}

/// RLIST codewords for a distance `d` ≥ 1 between two erroneous PDUs.
pub fn rlist_codewords(d: u32) -> u32 {
    let bits = u32::BITS - d.max(1).leading_zeros();
    bits.div_ceil(CW_DATA_BITS)
}

/// One STATUS PDU of a report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WcdmaStatusPdu {
    /// The missing SNs it reports, as indices into the report's list.
    pub nacks: Range<usize>,
    /// Its SUFIs carrying NACKs, each with the number of missing SNs it covers.
    pub sufis: Vec<(Sufi, usize)>,
    /// Bits before padding: header, MRW_ACK (first PDU), the SUFIs and the ACK SUFI.
    pub bits: u32,
}

/// A status report laid out in STATUS PDUs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WcdmaStatusLayout {
    pub pdus: Vec<WcdmaStatusPdu>,
    /// How many of the missing SNs (a prefix of the list) the PDUs report; the others did not
    /// fit in the PDUs allowed.
    pub nacks_written: usize,
}

/// Lays out a status report: `missing` are the SNs to acknowledge negatively, in increasing
/// order from VR(R) (modulo 2^`sn_bits`), each once; STATUS PDUs are `pdu_bytes` long; the
/// first carries an MRW_ACK when `mrw_ack`; at most `max_pdus` PDUs (at least one is laid out
/// when `max_pdus` > 0, even without NACKs: a report always carries its ACK SUFI).
///
/// A PDU too small for the header, the ACK SUFI and one SUFI (under 40 bits with a 12-bit SN)
/// reports no NACK.
pub fn wcdma_status_layout(
    missing: &[u32],
    sn_bits: u8,
    pdu_bytes: u32,
    mrw_ack: bool,
    max_pdus: u32,
) -> WcdmaStatusLayout {
    let sn_bits = u32::from(sn_bits);
    let mask = (1u32 << sn_bits) - 1;
    let capacity = pdu_bytes.saturating_mul(8);
    let mut pdus = Vec::new();
    let mut i = 0;
    while (pdus.len() as u32) < max_pdus {
        let first = pdus.is_empty();
        let fixed = STATUS_HEADER_BITS
            + ack_sufi_bits(sn_bits)
            + if first && mrw_ack {
                mrw_ack_sufi_bits(sn_bits)
            } else {
                0
            };
        let start = i;
        let mut bits = fixed;
        let mut sufis = Vec::new();
        while i < missing.len() {
            let room = capacity.saturating_sub(bits);
            let Some((sufi, covered)) = best_sufi(&missing[i..], room, sn_bits, mask) else {
                break;
            };
            bits += sufi.bits(sn_bits);
            sufis.push((sufi, covered));
            i += covered;
        }
        let progress = i > start;
        pdus.push(WcdmaStatusPdu {
            nacks: start..i,
            sufis,
            bits,
        });
        // Stop when everything is written, or when a PDU without the MRW_ACK could not take
        // even one SUFI (a further PDU would not either).
        if i == missing.len() || !(progress || first && mrw_ack) {
            break;
        }
    }
    WcdmaStatusLayout {
        pdus,
        nacks_written: i,
    }
}

/// The SUFI with the fewest bits per missing SN among the longest LIST, BITMAP and RLIST
/// starting at `sns[0]` that fit in `room` bits; `None` if none fits.
fn best_sufi(sns: &[u32], room: u32, sn_bits: u32, mask: u32) -> Option<(Sufi, usize)> {
    let candidates = [
        list(sns, room, sn_bits, mask),
        bitmap(sns, room, sn_bits, mask),
        rlist(sns, room, sn_bits, mask),
    ];
    let mut best: Option<(Sufi, usize)> = None;
    for (sufi, covered) in candidates.into_iter().flatten() {
        let better = match best {
            None => true,
            // covered / bits larger: compare cross products to stay in integers.
            Some((b, c)) => {
                covered as u64 * u64::from(b.bits(sn_bits))
                    > c as u64 * u64::from(sufi.bits(sn_bits))
            }
        };
        if better {
            best = Some((sufi, covered));
        }
    }
    best
}

/// Distance from `a` to `b` going up, modulo the SN space.
fn dist(a: u32, b: u32, mask: u32) -> u32 {
    b.wrapping_sub(a) & mask
}

/// The longest LIST: runs of consecutive missing SNs, up to 16 per pair, up to 15 pairs.
fn list(sns: &[u32], room: u32, sn_bits: u32, mask: u32) -> Option<(Sufi, usize)> {
    let pair_bits = sn_bits + LIST_L_BITS;
    let mut pairs = 0;
    let mut j = 0;
    while j < sns.len()
        && pairs < MAX_LENGTH
        && (Sufi::List { pairs: pairs + 1 }).bits(sn_bits) <= room
    {
        let mut len = 1;
        while j + len < sns.len()
            && (len as u32) < LIST_PAIR_SPAN
            && dist(sns[j + len - 1], sns[j + len], mask) == 1
        {
            len += 1;
        }
        pairs += 1;
        j += len;
    }
    debug_assert!(pairs == 0 || TYPE_BITS + LENGTH_BITS + pairs * pair_bits <= room);
    (pairs > 0).then_some((Sufi::List { pairs }, j))
}

/// The longest BITMAP from FSN = `sns[0]`: the missing SNs less than 128 above it whose bit
/// falls in the octets that fit.
fn bitmap(sns: &[u32], room: u32, sn_bits: u32, mask: u32) -> Option<(Sufi, usize)> {
    let mut octets = 0;
    let mut j = 0;
    while j < sns.len() {
        let d = dist(sns[0], sns[j], mask);
        let need = d / 8 + 1;
        if need > BITMAP_MAX_OCTETS || (Sufi::Bitmap { octets: need }).bits(sn_bits) > room {
            break;
        }
        octets = need;
        j += 1;
    }
    (j > 0).then_some((Sufi::Bitmap { octets }, j))
}

/// The longest RLIST from FSN = `sns[0]`: each further missing SN costs the codewords of its
/// distance from the previous one, up to 15 codewords.
fn rlist(sns: &[u32], room: u32, sn_bits: u32, mask: u32) -> Option<(Sufi, usize)> {
    if (Sufi::Rlist { codewords: 0 }).bits(sn_bits) > room {
        return None;
    }
    let mut codewords = 0;
    let mut j = 1;
    while j < sns.len() {
        let c = codewords + rlist_codewords(dist(sns[j - 1], sns[j], mask));
        if c > MAX_LENGTH || (Sufi::Rlist { codewords: c }).bits(sn_bits) > room {
            break;
        }
        codewords = c;
        j += 1;
    }
    Some((Sufi::Rlist { codewords }, j))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 42-byte STATUS PDU: 336 bits, of which 4 + 16 go to the header and the ACK SUFI.
    const PDU: u32 = 42;

    fn spaced(k: u32, spacing: u32, from: u32) -> Vec<u32> {
        (0..k).map(|i| (from + i * spacing) % 4096).collect()
    }

    #[test]
    fn sufi_sizes_follow_25_322() {
        assert_eq!(ack_sufi_bits(12), 16);
        assert_eq!(mrw_ack_sufi_bits(12), 20);
        assert_eq!(Sufi::List { pairs: 1 }.bits(12), 24);
        assert_eq!(Sufi::List { pairs: 15 }.bits(12), 248);
        assert_eq!(Sufi::Bitmap { octets: 1 }.bits(12), 28);
        assert_eq!(Sufi::Bitmap { octets: 16 }.bits(12), 148);
        assert_eq!(Sufi::Rlist { codewords: 0 }.bits(12), 20);
        assert_eq!(Sufi::Rlist { codewords: 15 }.bits(12), 80);
        for (d, cw) in [
            (1, 1),
            (7, 1),
            (8, 2),
            (63, 2),
            (64, 3),
            (511, 3),
            (512, 4),
            (2047, 4),
        ] {
            assert_eq!(rlist_codewords(d), cw, "distance {d}");
        }
    }

    #[test]
    fn a_report_without_nacks_is_one_pdu_of_header_and_ack() {
        let l = wcdma_status_layout(&[], 12, PDU, false, 4);
        assert_eq!(l.pdus.len(), 1);
        assert_eq!(l.pdus[0].bits, 20);
        assert_eq!(l.nacks_written, 0);
        let l = wcdma_status_layout(&[], 12, PDU, true, 4);
        assert_eq!(l.pdus[0].bits, 40);
    }

    #[test]
    fn one_missing_pdu_is_an_rlist_of_its_fsn_alone() {
        // RLIST 20 bits beats LIST (24) and BITMAP (28): 4 + 20 + 16 = 40 bits.
        let l = wcdma_status_layout(&[100], 12, PDU, false, 4);
        assert_eq!(l.pdus[0].sufis, vec![(Sufi::Rlist { codewords: 0 }, 1)]);
        assert_eq!(l.pdus[0].bits, 40);
    }

    #[test]
    fn k_isolated_nacks_ten_apart_take_the_rlist_sizes() {
        // Distance 10 takes two codewords: an RLIST holds its FSN and 7 more NACKs in
        // 20 + 14 × 4 = 76 bits (BITMAP: 13 NACKs in 148 bits; LIST: 15 in 248 bits).
        for (k, bits) in [(1, 40), (2, 48), (8, 96), (9, 116), (16, 172), (32, 324)] {
            let l = wcdma_status_layout(&spaced(k, 10, 7), 12, PDU, false, 4);
            assert_eq!(l.pdus.len(), 1, "{k} NACKs");
            assert_eq!(l.pdus[0].bits, bits, "{k} NACKs");
            assert_eq!(l.nacks_written, k as usize);
        }
        // 4 full RLISTs fill 304 of the 316 bits left: a 33rd NACK needs a second PDU.
        let l = wcdma_status_layout(&spaced(33, 10, 7), 12, PDU, false, 4);
        assert_eq!(l.pdus.len(), 2);
        assert_eq!(l.pdus[0].nacks, 0..32);
        assert_eq!(l.pdus[1].nacks, 32..33);
        assert_eq!(l.pdus[1].bits, 40);
        // The same 33 NACKs listed as 36.322 does (14 bits each after 17) would take
        // 17 + 33 × 14 = 479 bits: two blocks as well, and 22 NACKs per block at most.
    }

    #[test]
    fn a_run_of_consecutive_losses_is_a_list() {
        // 20 consecutive SNs: LIST pairs of 16 and 4 = 8 + 2 × 16 = 40 bits (BITMAP: 44 bits,
        // RLIST: 16 of them in 80 bits).
        let sns: Vec<u32> = (50..70).collect();
        let l = wcdma_status_layout(&sns, 12, PDU, false, 4);
        assert_eq!(l.pdus[0].sufis, vec![(Sufi::List { pairs: 2 }, 20)]);
        assert_eq!(l.pdus[0].bits, 4 + 40 + 16);
    }

    #[test]
    fn dense_losses_take_a_bitmap() {
        // Every other SN over 128: the bitmap covers 64 NACKs in 148 bits; RLIST 16 in 80 bits
        // (5 bits each), LIST 15 in 248 bits.
        let sns = spaced(64, 2, 0);
        let l = wcdma_status_layout(&sns, 12, PDU, false, 4);
        assert_eq!(l.pdus[0].sufis, vec![(Sufi::Bitmap { octets: 16 }, 64)]);
        assert_eq!(l.pdus[0].bits, 4 + 148 + 16);
    }

    #[test]
    fn sns_wrap_around_the_12_bit_space() {
        let l = wcdma_status_layout(&[4090, 4094, 2, 6], 12, PDU, false, 1);
        // Distances 4, 4, 4: one codeword each.
        assert_eq!(l.pdus[0].sufis, vec![(Sufi::Rlist { codewords: 3 }, 4)]);
    }

    #[test]
    fn a_report_is_cut_to_the_pdus_allowed() {
        let sns = spaced(100, 10, 0);
        let l = wcdma_status_layout(&sns, 12, PDU, true, 2);
        assert_eq!(l.pdus.len(), 2);
        // The first PDU also carries the MRW_ACK: 316 − 20 bits for NACKs, 3 RLISTs and a
        // shorter fourth; the second 4 full RLISTs.
        assert!(l.pdus.iter().all(|p| p.bits <= 336));
        assert_eq!(l.pdus[1].nacks.end, l.nacks_written);
        assert!(l.nacks_written < 100 && l.nacks_written >= 60);
        let all = wcdma_status_layout(&sns, 12, PDU, false, 16);
        assert_eq!(all.nacks_written, 100);
        assert_eq!(all.pdus.len(), 4); // 32 + 32 + 32 + 4
    }

    #[test]
    fn a_pdu_too_small_for_any_sufi_reports_nothing() {
        let l = wcdma_status_layout(&[1, 2, 3], 12, 4, false, 3);
        assert_eq!(l.nacks_written, 0);
        assert_eq!(l.pdus.len(), 1);
    }
}
