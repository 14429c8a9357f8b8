//! The Internet checksum (RFC 1071): the 16-bit ones' complement of the ones' complement sum of
//! the data taken as big-endian 16-bit words, used by the IPv4 header (RFC 791), UDP (RFC 768)
//! and TCP (RFC 9293 §3.1).

use std::net::Ipv4Addr;

use super::{be16, WireError};

/// Incremental Internet checksum over several byte slices (RFC 1071 §2).
///
/// Slices may have any length: a slice that ends on an odd byte leaves the next slice starting
/// in the low half of a word, which is handled by byte-swapping that slice's partial sum
/// (RFC 1071 §2(B), byte-order independence). The sum is kept in a `u64` and folded only when a
/// slice ends, which is exact for any input below 2^32 words.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checksum {
    /// Running sum of folded 16-bit partial sums.
    sum: u64,
    /// True when an odd number of bytes has been added so far.
    odd: bool,
}

impl Checksum {
    pub const fn new() -> Self {
        Checksum { sum: 0, odd: false }
    }

    /// Adds `bytes`, continuing from where the previous slice ended.
    pub fn add_bytes(&mut self, bytes: &[u8]) {
        let partial = fold(sum_words(bytes));
        // RFC 1071 §2(B): the sum of byte-swapped words is the byte-swapped sum, so a slice that
        // starts on an odd offset is summed as if aligned and then swapped.
        self.sum += u64::from(if self.odd {
            partial.swap_bytes()
        } else {
            partial
        });
        self.odd ^= bytes.len() % 2 == 1;
    }

    /// Adds one 16-bit word as its two big-endian bytes.
    pub fn add_u16(&mut self, word: u16) {
        // Same byte-order rule as in `add_bytes` when the word starts on an odd offset.
        self.sum += u64::from(if self.odd { word.swap_bytes() } else { word });
    }

    /// Adds one 32-bit word as its four big-endian bytes.
    pub fn add_u32(&mut self, word: u32) {
        self.add_u16((word >> 16) as u16);
        self.add_u16(word as u16);
    }

    /// Adds the IPv4 pseudo-header of RFC 768 and RFC 9293 §3.1: source and destination
    /// addresses, a zero byte, the protocol number and the transport length in bytes.
    pub fn add_pseudo_header(&mut self, src: Ipv4Addr, dst: Ipv4Addr, protocol: u8, len: u16) {
        self.add_u32(u32::from(src));
        self.add_u32(u32::from(dst));
        self.add_u16(u16::from(protocol));
        self.add_u16(len);
    }

    /// The ones' complement sum folded to 16 bits, before complementing.
    pub fn sum16(&self) -> u16 {
        fold(self.sum)
    }

    /// The checksum to place in a header field whose bytes were added as zero. Over data that
    /// already contains a correct checksum field the result is 0 (RFC 1071 §1, step (3)).
    pub fn finish(&self) -> u16 {
        !self.sum16()
    }
}

/// The Internet checksum of one slice (RFC 1071).
pub fn internet_checksum(bytes: &[u8]) -> u16 {
    let mut c = Checksum::new();
    c.add_bytes(bytes);
    c.finish()
}

/// Sum of the big-endian 16-bit words of `bytes`, a trailing odd byte being the high half of a
/// word padded with zero (RFC 1071 §1). Summing 32-bit words and folding later gives the same
/// ones' complement sum, since 2^16 ≡ 1 (mod 2^16 − 1), and halves the loop count.
fn sum_words(bytes: &[u8]) -> u64 {
    let mut sum: u64 = 0;
    let mut chunks = bytes.chunks_exact(4);
    for c in &mut chunks {
        sum += u64::from(u32::from_be_bytes([c[0], c[1], c[2], c[3]]));
    }
    let rest = chunks.remainder();
    let mut pairs = rest.chunks_exact(2);
    for p in &mut pairs {
        sum += u64::from(u16::from_be_bytes([p[0], p[1]]));
    }
    if let [last] = pairs.remainder() {
        sum += u64::from(*last) << 8;
    }
    sum
}

/// Folds the carries of a wide sum back into 16 bits (end-around carry, RFC 1071 §2(C)).
fn fold(mut sum: u64) -> u16 {
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    sum as u16
}

/// Checks that `pseudo` (an empty sum or a pseudo-header) plus `covered` adds up to zero;
/// otherwise reports the value the 16-bit field at `field` (an offset into `covered`) should
/// have held. Offsets in the error are relative to `covered`; callers add their base.
pub(super) fn verify(
    covered: &[u8],
    layer: &'static str,
    field: usize,
    pseudo: Checksum,
) -> Result<(), WireError> {
    let mut all = pseudo;
    all.add_bytes(covered);
    if all.finish() == 0 {
        return Ok(());
    }
    // What the sender should have written: the checksum with the field taken as zero.
    let mut expected = pseudo;
    expected.add_bytes(&covered[..field]);
    expected.add_u16(0);
    expected.add_bytes(&covered[field + 2..]);
    Err(WireError::BadChecksum {
        layer,
        offset: field,
        found: be16(covered, field),
        expected: expected.finish(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// RFC 1071 §3, "Numerical Examples": the bytes 00 01 f2 03 f4 f5 f6 f7 have the ones'
    /// complement sum 0xddf2, so the checksum is 0x220d.
    #[test]
    fn rfc1071_numerical_example() {
        let bytes = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        let mut c = Checksum::new();
        c.add_bytes(&bytes);
        assert_eq!(c.sum16(), 0xddf2);
        assert_eq!(c.finish(), 0x220d);
    }

    /// A widely reproduced IPv4 header (192.168.0.1 → 192.168.0.199, UDP, total length 115)
    /// whose header checksum is 0xb861.
    #[test]
    fn known_ipv4_header() {
        let mut hdr = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(internet_checksum(&hdr), 0xb861);
        hdr[10..12].copy_from_slice(&0xb861u16.to_be_bytes());
        assert_eq!(internet_checksum(&hdr), 0, "a correct header sums to zero");
    }

    #[test]
    fn odd_length_pads_with_zero() {
        // RFC 1071 §1: an odd final byte is the high half of a word.
        assert_eq!(internet_checksum(&[0x12]), !0x1200);
        assert_eq!(
            internet_checksum(&[0x12, 0x34, 0x56]),
            !(0x1234u16 + 0x5600)
        );
        assert_eq!(internet_checksum(&[]), 0xFFFF);
    }

    #[test]
    fn carries_wrap_around() {
        // 0xffff + 0x0001 = 0x1_0000 → end-around carry gives 0x0001.
        let mut c = Checksum::new();
        c.add_bytes(&[0xff, 0xff, 0x00, 0x01]);
        assert_eq!(c.sum16(), 0x0001);
    }

    #[test]
    fn pseudo_header_matches_byte_layout() {
        let (src, dst) = (Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2));
        let mut a = Checksum::new();
        a.add_pseudo_header(src, dst, 6, 40);
        let mut b = Checksum::new();
        b.add_bytes(&[10, 0, 0, 1, 10, 0, 0, 2, 0, 6, 0, 40]);
        assert_eq!(a, b);
    }

    /// Plain 16-bit reference: sum words in a u32 with end-around carry after each addition.
    fn reference(bytes: &[u8]) -> u16 {
        let mut sum: u32 = 0;
        for i in (0..bytes.len()).step_by(2) {
            let hi = u32::from(bytes[i]) << 8;
            let lo = bytes.get(i + 1).copied().map_or(0, u32::from);
            sum += hi | lo;
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
        !(sum as u16)
    }

    proptest! {
        #[test]
        fn split_anywhere_equals_whole(
            data in proptest::collection::vec(any::<u8>(), 0..300),
            cuts in proptest::collection::vec(any::<usize>(), 0..4),
        ) {
            let whole = internet_checksum(&data);
            prop_assert_eq!(whole, reference(&data));
            let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (data.len() + 1)).collect();
            cuts.sort_unstable();
            let mut c = Checksum::new();
            let mut from = 0;
            for &to in &cuts {
                c.add_bytes(&data[from..to]);
                from = to;
            }
            c.add_bytes(&data[from..]);
            prop_assert_eq!(c.finish(), whole);
        }
    }
}
