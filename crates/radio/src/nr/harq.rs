//! HARQ timing of the NR downlink.
//!
//! * Up to 16 HARQ processes per serving cell (`nrofHARQ-ProcessesForPDSCH` of TS 38.331
//!   `PDSCH-ServingCellConfig`, TS 38.214 §5.1: "a maximum of 16 HARQ processes").
//! * A PDSCH received in slot n is acknowledged on PUCCH in slot n + K1, K1 from
//!   `dl-DataToUL-ACK` (0..=15 in Release 15, TS 38.213 §9.2.3). Under TDD the gNB picks K1
//!   so that n + K1 has uplink symbols; [`HarqTiming::feedback_slot`] does that with the
//!   pattern.
//! * The UE cannot send HARQ-ACK earlier than the PDSCH processing time N1 symbols after the
//!   PDSCH ends (TS 38.214 §5.3, Table 5.3-1 for capability 1, 5.3-2 for capability 2). With
//!   a full-slot PDSCH and the PUCCH in the last symbol of a slot, K1 ≥ ⌈(N1 + 1) / 14⌉
//!   (the d1,1 terms and the PUCCH start are abstracted to that rule).
//! * The gNB retransmits a NACKed block no earlier than `gnb_processing_slots` after the
//!   feedback slot (its decoding and scheduling delay, an implementation value; 1 slot by
//!   default). The HARQ round-trip time is K1 + that delay, in slots.

use super::carrier::Numerology;
use super::slot_pattern::SlotPattern;
use super::NrError;

/// Largest number of downlink HARQ processes (TS 38.331 `nrofHARQ-ProcessesForPDSCH`).
pub const NR_HARQ_PROCESSES: u8 = 16;

/// Largest K1 of Release 15 `dl-DataToUL-ACK`, slots.
pub const MAX_K1_SLOTS: u8 = 15;

/// UE PDSCH processing capability (TS 38.214 §5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PdschProcessingCapability {
    /// Capability 1, Table 5.3-1.
    Capability1,
    /// Capability 2, Table 5.3-2 (μ = 0..=2 only).
    Capability2,
}

impl PdschProcessingCapability {
    /// PDSCH decoding time N1, OFDM symbols (TS 38.214 Tables 5.3-1/-2), for `numerology`
    /// with (`additional_dmrs`) or without additional DM-RS positions; `None` where the table
    /// has no entry (capability 2 above μ = 2). Capability 2's 4.5 symbols at μ = 1 are
    /// rounded up to 5.
    pub fn n1_symbols(self, numerology: Numerology, additional_dmrs: bool) -> Option<u8> {
        let mu = usize::from(numerology.mu());
        match self {
            PdschProcessingCapability::Capability1 => {
                let table: [u8; 4] = if additional_dmrs {
                    [13, 13, 20, 24]
                } else {
                    [8, 10, 17, 20]
                };
                table.get(mu).copied()
            }
            PdschProcessingCapability::Capability2 => [3u8, 5, 9].get(mu).copied(),
        }
    }

    /// Smallest K1 the UE can meet: ⌈(N1 + 1) / 14⌉ slots (see the module documentation).
    pub fn min_k1_slots(self, numerology: Numerology, additional_dmrs: bool) -> Option<u8> {
        self.n1_symbols(numerology, additional_dmrs)
            .map(|n1| (n1 + 1).div_ceil(14))
    }
}

/// HARQ timing of one UE: processes, K1 and the gNB's retransmission delay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HarqTiming {
    processes: u8,
    k1_slots: u8,
    gnb_processing_slots: u8,
}

impl Default for HarqTiming {
    /// 16 processes, K1 = 4 slots (a common FDD setting, also srsRAN's default) and one slot
    /// of gNB processing.
    fn default() -> Self {
        HarqTiming {
            processes: NR_HARQ_PROCESSES,
            k1_slots: 4,
            gnb_processing_slots: 1,
        }
    }
}

impl HarqTiming {
    pub fn new(processes: u8, k1_slots: u8, gnb_processing_slots: u8) -> Result<Self, NrError> {
        if !(1..=NR_HARQ_PROCESSES).contains(&processes) {
            return Err(NrError::Range {
                param: "nrofHARQ-ProcessesForPDSCH",
                value: processes.into(),
                expected: "1..=16 HARQ processes (TS 38.331)",
            });
        }
        if k1_slots > MAX_K1_SLOTS {
            return Err(NrError::Range {
                param: "K1",
                value: k1_slots.into(),
                expected: "0..=15 slots (dl-DataToUL-ACK, TS 38.213 §9.2.3)",
            });
        }
        if gnb_processing_slots == 0 {
            return Err(NrError::Range {
                param: "gnb_processing_slots",
                value: 0,
                expected: "at least 1 slot between HARQ feedback and the retransmission",
            });
        }
        Ok(HarqTiming {
            processes,
            k1_slots,
            gnb_processing_slots,
        })
    }

    pub fn processes(&self) -> u8 {
        self.processes
    }

    /// The configured (minimum) K1, slots.
    pub fn k1_slots(&self) -> u8 {
        self.k1_slots
    }

    /// Slot of the HARQ-ACK for a PDSCH in slot `pdsch_slot`: the first slot at or after
    /// `pdsch_slot` + K1 with uplink symbols under `pattern`.
    pub fn feedback_slot(&self, pdsch_slot: u64, pattern: &SlotPattern) -> u64 {
        let earliest = pdsch_slot + u64::from(self.k1_slots);
        pattern
            .next_uplink_slot(earliest)
            .expect("every valid pattern has an uplink slot in a period, or is FDD")
    }

    /// Earliest slot in which a NACKed block of slot `pdsch_slot` can be retransmitted: the
    /// first downlink slot at least `gnb_processing_slots` after its feedback.
    pub fn retransmission_slot(&self, pdsch_slot: u64, pattern: &SlotPattern) -> u64 {
        let earliest =
            self.feedback_slot(pdsch_slot, pattern) + u64::from(self.gnb_processing_slots);
        (earliest..)
            .find(|n| pattern.is_downlink(*n))
            .expect("a valid pattern has a downlink slot in every period")
    }

    /// HARQ round trip of a block sent in `pdsch_slot`, nanoseconds.
    pub fn round_trip_ns(
        &self,
        pdsch_slot: u64,
        pattern: &SlotPattern,
        numerology: Numerology,
    ) -> u64 {
        (self.retransmission_slot(pdsch_slot, pattern) - pdsch_slot) * numerology.slot_ns()
    }

    /// Whether the processes suffice to transmit in every downlink slot (no stall waiting
    /// for feedback): the longest round trip of a period must not exceed the processes.
    pub fn sustains_full_buffer(&self, pattern: &SlotPattern) -> bool {
        (0..pattern.period_slots() as u64)
            .filter(|n| pattern.is_downlink(*n))
            .all(|n| {
                let rtt = self.retransmission_slot(n, pattern) - n;
                let dl_slots_in_flight = (n..n + rtt).filter(|m| pattern.is_downlink(*m)).count();
                dl_slots_in_flight <= usize::from(self.processes)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nr::slot_pattern::SpecialSlot;

    fn mu(m: u8) -> Numerology {
        Numerology::new(m).unwrap()
    }

    #[test]
    fn processing_times_of_table_5_3_1() {
        let c1 = PdschProcessingCapability::Capability1;
        assert_eq!(c1.n1_symbols(mu(0), false), Some(8));
        assert_eq!(c1.n1_symbols(mu(3), true), Some(24));
        assert_eq!(c1.min_k1_slots(mu(1), false), Some(1));
        assert_eq!(c1.min_k1_slots(mu(3), true), Some(2));
        assert_eq!(
            PdschProcessingCapability::Capability2.n1_symbols(mu(3), false),
            None
        );
    }

    #[test]
    fn fdd_timing() {
        let h = HarqTiming::default();
        let fdd = SlotPattern::Fdd;
        assert_eq!(h.feedback_slot(10, &fdd), 14);
        assert_eq!(h.retransmission_slot(10, &fdd), 15);
        assert_eq!(h.round_trip_ns(10, &fdd, mu(1)), 5 * 500_000);
        assert!(h.sustains_full_buffer(&fdd));
        assert!(!HarqTiming::new(4, 4, 1).unwrap().sustains_full_buffer(&fdd));
        assert!(HarqTiming::new(17, 4, 1).is_err());
        assert!(HarqTiming::new(16, 16, 1).is_err());
        assert!(HarqTiming::new(16, 4, 0).is_err());
    }

    #[test]
    fn tdd_timing_waits_for_uplink_and_downlink_slots() {
        let p = SlotPattern::tdd("DDDSU", SpecialSlot::new(10, 2, 2).unwrap(), mu(1)).unwrap();
        let h = HarqTiming::new(16, 1, 1).unwrap();
        // PDSCH in slot 0: K1 = 1 → slot 1 is downlink, first uplink is the special slot 3;
        // retransmission from slot 4 on, which is uplink-only, so slot 5.
        assert_eq!(h.feedback_slot(0, &p), 3);
        assert_eq!(h.retransmission_slot(0, &p), 5);
        // PDSCH in the special slot 3: feedback in 4, retransmission in 5.
        assert_eq!(h.feedback_slot(3, &p), 4);
        assert_eq!(h.retransmission_slot(3, &p), 5);
        assert!(h.sustains_full_buffer(&p));
    }
}
