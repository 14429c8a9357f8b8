//! Which buckets of the event queue hold events: one bit per (level, digit) plus one bit per level.
//!
//! The queue never scans empty buckets; finding the earliest non-empty one costs a
//! `trailing_zeros` on the level summary and at most [`WORDS`] words of that level.

/// Bits per digit of a key; a level has `2^DIGIT_BITS` buckets.
pub(super) const DIGIT_BITS: u32 = 8;
/// Buckets per level.
pub(super) const DIGITS: usize = 1 << DIGIT_BITS;
/// Levels needed to cover a 64-bit key.
pub(super) const LEVELS: usize = 64 / DIGIT_BITS as usize;
/// 64-bit words of bitmap per level.
const WORDS: usize = DIGITS / 64;

/// Occupancy bitmap of `LEVELS × DIGITS` buckets.
#[derive(Clone, Debug, Default)]
pub(super) struct Occupancy {
    words: [[u64; WORDS]; LEVELS],
    /// Bit `l` is set when level `l` has at least one occupied bucket.
    levels: u32,
}

impl Occupancy {
    /// Marks (level, digit) occupied; returns true when it was empty before.
    #[inline]
    pub(super) fn insert(&mut self, level: usize, digit: usize) -> bool {
        let word = &mut self.words[level][digit / 64];
        let bit = 1u64 << (digit % 64);
        let was_empty = *word & bit == 0;
        *word |= bit;
        self.levels |= 1 << level;
        was_empty
    }

    /// Marks (level, digit) empty.
    #[inline]
    pub(super) fn remove(&mut self, level: usize, digit: usize) {
        self.words[level][digit / 64] &= !(1u64 << (digit % 64));
        if self.words[level].iter().all(|&w| w == 0) {
            self.levels &= !(1 << level);
        }
    }

    #[inline]
    pub(super) fn contains(&self, level: usize, digit: usize) -> bool {
        self.words[level][digit / 64] & (1u64 << (digit % 64)) != 0
    }

    /// The lowest level with an occupied bucket.
    #[inline]
    pub(super) fn lowest_level(&self) -> Option<usize> {
        (self.levels != 0).then(|| self.levels.trailing_zeros() as usize)
    }

    /// The lowest occupied digit of `level`.
    #[inline]
    pub(super) fn lowest_digit(&self, level: usize) -> Option<usize> {
        let words = &self.words[level];
        let w = words.iter().position(|&w| w != 0)?;
        Some(w * 64 + words[w].trailing_zeros() as usize)
    }

    /// The occupied digits of `level`, ascending.
    pub(super) fn digits(&self, level: usize) -> impl Iterator<Item = usize> + '_ {
        self.words[level].iter().enumerate().flat_map(|(w, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let digit = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Some(digit)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracks_lowest_level_and_digit() {
        let mut o = Occupancy::default();
        assert_eq!(o.lowest_level(), None);
        assert!(o.insert(3, 200));
        assert!(
            !o.insert(3, 200),
            "second insert reports the bucket as already occupied"
        );
        assert!(o.insert(3, 70));
        assert!(o.insert(5, 0));
        assert_eq!(o.lowest_level(), Some(3));
        assert_eq!(o.lowest_digit(3), Some(70));
        assert_eq!(o.digits(3).collect::<Vec<_>>(), vec![70, 200]);
        o.remove(3, 70);
        assert_eq!(o.lowest_digit(3), Some(200));
        o.remove(3, 200);
        assert!(!o.contains(3, 200));
        assert_eq!(o.lowest_digit(3), None);
        assert_eq!(o.lowest_level(), Some(5));
        o.remove(5, 0);
        assert_eq!(o.lowest_level(), None);
    }

    #[test]
    fn every_word_of_a_level_is_reachable() {
        let mut o = Occupancy::default();
        for d in [255, 191, 128, 64, 63, 1] {
            o.insert(7, d);
            assert_eq!(o.lowest_digit(7), Some(d));
        }
        assert_eq!(
            o.digits(7).collect::<Vec<_>>(),
            vec![1, 63, 64, 128, 191, 255]
        );
    }
}
