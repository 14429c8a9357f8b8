//! Sequence-number arithmetic modulo 2^bits (36.322 §7.1: "arithmetic comparisons of state
//! variables and SN values use a modulus base").

/// The sequence-number space of one entity: modulus and window size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SnSpace {
    modulus: u32,
    window: u32,
}

impl SnSpace {
    /// `bits`-bit SNs with a window of half the space (AM_Window_Size = 512 for 10 bits, 32768
    /// for 16 bits, 36.322 §7.2; UM_Window_Size = 16 for 5 bits, 512 for 10 bits).
    pub(crate) fn new(bits: u8) -> Self {
        let modulus = 1u32 << bits;
        SnSpace {
            modulus,
            window: modulus / 2,
        }
    }

    /// AM_Window_Size / UM_Window_Size.
    #[inline]
    pub(crate) fn window(self) -> u32 {
        self.window
    }

    /// `sn + n` modulo the space.
    #[inline]
    pub(crate) fn add(self, sn: u32, n: u32) -> u32 {
        sn.wrapping_add(n) & (self.modulus - 1)
    }

    /// `sn - n` modulo the space.
    #[inline]
    pub(crate) fn sub(self, sn: u32, n: u32) -> u32 {
        sn.wrapping_sub(n) & (self.modulus - 1)
    }

    /// Position of `sn` relative to the modulus base `base`: `(sn - base) mod 2^bits`. Comparing
    /// two SNs means comparing their offsets from the same base.
    #[inline]
    pub(crate) fn offset(self, sn: u32, base: u32) -> u32 {
        sn.wrapping_sub(base) & (self.modulus - 1)
    }

    /// Whether `sn` is a valid value of this space.
    #[inline]
    pub(crate) fn contains(self, sn: u32) -> bool {
        sn < self.modulus
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_and_compares_against_a_base() {
        let s = SnSpace::new(10);
        assert_eq!(s.window(), 512);
        assert_eq!(s.add(1023, 1), 0);
        assert_eq!(s.sub(0, 1), 1023);
        assert_eq!(s.offset(3, 1020), 7);
        assert_eq!(s.offset(1020, 3), 1017);
        assert!(s.contains(1023) && !s.contains(1024));
        assert_eq!(SnSpace::new(5).window(), 16);
        assert_eq!(SnSpace::new(16).window(), 32768);
    }
}
