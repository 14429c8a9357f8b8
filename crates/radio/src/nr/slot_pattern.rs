//! Which slots and symbols carry downlink and uplink: FDD, or a TDD pattern.
//!
//! A TDD pattern follows TS 38.213 §11.1 (`TDD-UL-DL-ConfigCommon` of TS 38.331): a sequence
//! of slots written as a string — `D` downlink, `U` uplink, `S` special — repeated with the
//! pattern's period, where every special slot splits its 14 symbols into downlink, guard and
//! uplink symbols (D:G:U, e.g. 10:2:2). The period P = slots × 1 ms / 2^μ must be one of the
//! `dl-UL-TransmissionPeriodicity` values 0.5, 0.625, 1, 1.25, 2, 2.5, 3, 4, 5 or 10 ms.
//! Example: "DDDSU" with S = 10:2:2 at μ = 1 is the 2.5 ms pattern of many FR1 deployments,
//! and "DDDDDDDSUU" with S = 6:4:4 at μ = 1 the 5 ms pattern of the TS 38.101-1 / 38.104
//! test configurations.
//!
//! Under FDD the downlink and uplink carriers are paired, so every slot has 14 downlink and
//! 14 uplink symbols.

use super::carrier::Numerology;
use super::{NrError, SYMBOLS_PER_SLOT};

/// `dl-UL-TransmissionPeriodicity` values of TS 38.331 (with the Release 15 v1530
/// extension), microseconds.
pub const TDD_PERIODS_US: [u64; 10] = [500, 625, 1000, 1250, 2000, 2500, 3000, 4000, 5000, 10_000];

/// Symbol split of a special slot: downlink, guard and uplink symbols, 14 in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpecialSlot {
    dl: u8,
    guard: u8,
    ul: u8,
}

impl SpecialSlot {
    pub fn new(dl: u8, guard: u8, ul: u8) -> Result<Self, NrError> {
        if u32::from(dl) + u32::from(guard) + u32::from(ul) != u32::from(SYMBOLS_PER_SLOT) {
            return Err(NrError::SlotPattern {
                pattern: format!("{dl}:{guard}:{ul}"),
                reason: "the special slot's D:G:U symbols must add up to 14".into(),
            });
        }
        Ok(SpecialSlot { dl, guard, ul })
    }

    /// Parses "D:G:U", e.g. "10:2:2".
    pub fn parse(text: &str) -> Result<Self, NrError> {
        let bad = || NrError::SlotPattern {
            pattern: text.into(),
            reason: "expected the special slot as D:G:U symbol counts, e.g. 10:2:2".into(),
        };
        let parts: Vec<u8> = text
            .split(':')
            .map(|p| p.trim().parse::<u8>().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        match parts[..] {
            [dl, guard, ul] => Self::new(dl, guard, ul),
            _ => Err(bad()),
        }
    }

    pub fn dl_symbols(&self) -> u8 {
        self.dl
    }
    pub fn guard_symbols(&self) -> u8 {
        self.guard
    }
    pub fn ul_symbols(&self) -> u8 {
        self.ul
    }
}

/// Kind of one slot of a TDD pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotKind {
    Downlink,
    Uplink,
    Special,
}

/// The duplexing of a carrier in slots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SlotPattern {
    /// Paired spectrum: every slot is both downlink and uplink.
    Fdd,
    /// Unpaired spectrum: one pattern of slots repeated.
    Tdd {
        slots: Vec<SlotKind>,
        special: SpecialSlot,
    },
}

impl SlotPattern {
    /// A TDD pattern such as "DDDSU" for numerology `numerology`, with `special` the split of
    /// its S slots. Fails on other letters, an empty pattern, one without downlink symbols or
    /// a period TS 38.331 does not allow.
    pub fn tdd(
        pattern: &str,
        special: SpecialSlot,
        numerology: Numerology,
    ) -> Result<Self, NrError> {
        let err = |reason: String| NrError::SlotPattern {
            pattern: pattern.into(),
            reason,
        };
        let slots: Vec<SlotKind> = pattern
            .chars()
            .map(|c| match c {
                'D' => Ok(SlotKind::Downlink),
                'U' => Ok(SlotKind::Uplink),
                'S' => Ok(SlotKind::Special),
                other => Err(err(format!("{other:?} is not a slot; expected D, U or S"))),
            })
            .collect::<Result<_, _>>()?;
        let tdd = SlotPattern::Tdd { slots, special };
        if tdd.period_slots() == 0 {
            return Err(err("the pattern has no slots".into()));
        }
        if !(0..tdd.period_slots() as u64).any(|n| tdd.dl_symbols(n) > 0) {
            return Err(err("the pattern has no downlink symbol".into()));
        }
        let period_ns = tdd.period_slots() as u64 * numerology.slot_ns();
        if !TDD_PERIODS_US.iter().any(|us| us * 1000 == period_ns) {
            return Err(err(format!(
                "its period is {} µs at {} kHz; expected one of 0.5, 0.625, 1, 1.25, 2, 2.5, 3, \
                 4, 5 or 10 ms (TS 38.331 dl-UL-TransmissionPeriodicity)",
                period_ns as f64 / 1000.0,
                numerology.scs_khz()
            )));
        }
        Ok(tdd)
    }

    /// Slots per period (1 for FDD).
    pub fn period_slots(&self) -> usize {
        match self {
            SlotPattern::Fdd => 1,
            SlotPattern::Tdd { slots, .. } => slots.len(),
        }
    }

    /// Kind of slot `n` (counted from the start of a period); `None` under FDD.
    pub fn slot_kind(&self, n: u64) -> Option<SlotKind> {
        match self {
            SlotPattern::Fdd => None,
            SlotPattern::Tdd { slots, .. } => Some(slots[(n % slots.len() as u64) as usize]),
        }
    }

    /// Downlink symbols of slot `n`.
    pub fn dl_symbols(&self, n: u64) -> u8 {
        match self {
            SlotPattern::Fdd => SYMBOLS_PER_SLOT,
            SlotPattern::Tdd { special, .. } => match self.slot_kind(n) {
                Some(SlotKind::Downlink) => SYMBOLS_PER_SLOT,
                Some(SlotKind::Special) => special.dl,
                _ => 0,
            },
        }
    }

    /// Uplink symbols of slot `n`.
    pub fn ul_symbols(&self, n: u64) -> u8 {
        match self {
            SlotPattern::Fdd => SYMBOLS_PER_SLOT,
            SlotPattern::Tdd { special, .. } => match self.slot_kind(n) {
                Some(SlotKind::Uplink) => SYMBOLS_PER_SLOT,
                Some(SlotKind::Special) => special.ul,
                _ => 0,
            },
        }
    }

    /// Slot `n` has downlink symbols.
    pub fn is_downlink(&self, n: u64) -> bool {
        self.dl_symbols(n) > 0
    }

    /// Slot `n` has uplink symbols.
    pub fn is_uplink(&self, n: u64) -> bool {
        self.ul_symbols(n) > 0
    }

    /// Share of all symbols that are downlink, over a period.
    pub fn dl_fraction(&self) -> f64 {
        let p = self.period_slots() as u64;
        let dl: u64 = (0..p).map(|n| u64::from(self.dl_symbols(n))).sum();
        dl as f64 / (p * u64::from(SYMBOLS_PER_SLOT)) as f64
    }

    /// The first slot at or after `n` with uplink symbols (for HARQ feedback on PUCCH).
    pub fn next_uplink_slot(&self, n: u64) -> Option<u64> {
        (n..n + self.period_slots() as u64).find(|m| self.is_uplink(*m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mu(m: u8) -> Numerology {
        Numerology::new(m).unwrap()
    }

    #[test]
    fn dddsu() {
        let s = SpecialSlot::parse("10:2:2").unwrap();
        let p = SlotPattern::tdd("DDDSU", s, mu(1)).unwrap();
        assert_eq!(p.period_slots(), 5);
        let dl: Vec<u8> = (0..10).map(|n| p.dl_symbols(n)).collect();
        assert_eq!(dl, [14, 14, 14, 10, 0, 14, 14, 14, 10, 0]);
        let ul: Vec<u8> = (0..5).map(|n| p.ul_symbols(n)).collect();
        assert_eq!(ul, [0, 0, 0, 2, 14]);
        assert!(p.is_downlink(3) && p.is_uplink(3) && !p.is_downlink(4));
        assert_eq!(p.next_uplink_slot(0), Some(3));
        assert_eq!(p.next_uplink_slot(4), Some(4));
        assert!((p.dl_fraction() - 52.0 / 70.0).abs() < 1e-12);
        // 5 slots at 15 kHz = 5 ms, allowed; at 120 kHz = 0.625 ms, allowed; at 60 kHz 1.25 ms.
        for m in [0, 2, 3] {
            assert!(SlotPattern::tdd("DDDSU", s, mu(m)).is_ok());
        }
        // 3 slots at 30 kHz = 1.5 ms is no TS 38.331 periodicity.
        assert!(SlotPattern::tdd("DSU", s, mu(1)).is_err());
    }

    #[test]
    fn bad_patterns_and_fdd() {
        let s = SpecialSlot::new(6, 4, 4).unwrap();
        assert!(SlotPattern::tdd("DDDDDDDSUU", s, mu(1)).is_ok());
        assert!(SlotPattern::tdd("DDXSU", s, mu(1)).is_err());
        assert!(SlotPattern::tdd("", s, mu(1)).is_err());
        assert!(SlotPattern::tdd("UU", s, mu(2)).is_err());
        assert!(SpecialSlot::new(10, 2, 3).is_err());
        assert!(SpecialSlot::parse("10:2").is_err());
        let f = SlotPattern::Fdd;
        assert_eq!(
            (f.dl_symbols(7), f.ul_symbols(7), f.dl_fraction()),
            (14, 14, 1.0)
        );
    }
}
