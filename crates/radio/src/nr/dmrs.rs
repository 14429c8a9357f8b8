//! PDSCH time-domain allocation and the resource elements DM-RS and xOverhead take from it.
//!
//! The TBS of TS 38.214 §5.1.3.2 counts, per PRB, 12 · N_symb^sh resource elements less
//! N_DMRS^PRB (DM-RS, "including the overhead of the DM-RS CDM groups without data") and
//! N_oh^PRB (`xOverhead`). This module computes those two from the configuration:
//!
//! * DM-RS symbols: TS 38.211 §7.4.1.1.2, Table 7.4.1.1.2-3 (single-symbol DM-RS, positions
//!   by duration l_d and `dmrs-AdditionalPosition` pos0..pos3) and Table 7.4.1.1.2-4
//!   (double-symbol, pos0/pos1, each position two symbols). For mapping type A l_d counts
//!   from the start of the slot to the end of the PDSCH, for type B it is the PDSCH duration.
//! * REs per DM-RS symbol and PRB: configuration type 1 has 2 CDM groups of 6 subcarriers,
//!   type 2 has 3 groups of 4 (TS 38.211 Tables 7.4.1.1.2-1/-2); a CDM group "without data"
//!   is empty of PDSCH, so N_DMRS^PRB = symbols × groups × (6 or 4).
//! * Time allocations valid per TS 38.214 Table 5.1.2.1-1 (normal CP): type A S ∈ 0..=3,
//!   L ∈ 3..=14; type B S ∈ 0..=12, L ∈ 2..=13 (Release 16); S + L ≤ 14.
//!
//! Not modelled: `dmrs-TypeA-Position` (whose pos3 restriction to pos2 TS 38.211 states),
//! PT-RS, CSI-RS and SSB REs (which `xOverhead` approximates), and PDSCH rate matching.

use super::{NrError, SYMBOLS_PER_SLOT};

/// `dmrs-Type` (TS 38.331 `DMRS-DownlinkConfig`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DmrsConfigType {
    /// Comb of 6 subcarriers per PRB per CDM group, 2 CDM groups (TS 38.211 Table 7.4.1.1.2-1).
    Type1,
    /// 4 subcarriers per PRB per CDM group, 3 CDM groups (TS 38.211 Table 7.4.1.1.2-2).
    Type2,
}

impl DmrsConfigType {
    /// Subcarriers of one CDM group in one PRB and DM-RS symbol.
    pub fn res_per_cdm_group(self) -> u16 {
        match self {
            DmrsConfigType::Type1 => 6,
            DmrsConfigType::Type2 => 4,
        }
    }

    /// Number of CDM groups.
    pub fn cdm_groups(self) -> u8 {
        match self {
            DmrsConfigType::Type1 => 2,
            DmrsConfigType::Type2 => 3,
        }
    }
}

/// `maxLength` (TS 38.331 `DMRS-DownlinkConfig`): single- or double-symbol DM-RS.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DmrsMaxLength {
    Single,
    Double,
}

/// PDSCH mapping type (TS 38.214 §5.1.2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PdschMappingType {
    /// Slot-based: DM-RS relative to the slot start.
    TypeA,
    /// Mini-slot: DM-RS relative to the PDSCH start.
    TypeB,
}

/// Start symbol S and length L of a PDSCH in its slot, validated against TS 38.214 Table
/// 5.1.2.1-1 (normal cyclic prefix).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PdschTimeAllocation {
    mapping: PdschMappingType,
    start: u8,
    length: u8,
}

impl PdschTimeAllocation {
    pub fn new(mapping: PdschMappingType, start: u8, length: u8) -> Result<Self, NrError> {
        let (starts, lengths, expected) = match mapping {
            PdschMappingType::TypeA => {
                (0..=3, 3..=14, "type A: S in 0..=3, L in 3..=14, S+L <= 14")
            }
            PdschMappingType::TypeB => (
                0..=12,
                2..=13,
                "type B: S in 0..=12, L in 2..=13, S+L <= 14",
            ),
        };
        if !starts.contains(&start)
            || !lengths.contains(&length)
            || start + length > SYMBOLS_PER_SLOT
        {
            return Err(NrError::TimeAllocation {
                mapping,
                start,
                length,
                expected,
            });
        }
        Ok(PdschTimeAllocation {
            mapping,
            start,
            length,
        })
    }

    /// A full-slot type A allocation from symbol `start` (the symbols before it carry the
    /// PDCCH) to the end of the slot.
    pub fn rest_of_slot(start: u8) -> Result<Self, NrError> {
        Self::new(
            PdschMappingType::TypeA,
            start,
            SYMBOLS_PER_SLOT.saturating_sub(start),
        )
    }

    pub fn mapping(&self) -> PdschMappingType {
        self.mapping
    }

    /// First symbol S.
    pub fn start(&self) -> u8 {
        self.start
    }

    /// Number of symbols L, the N_symb^sh of TS 38.214 §5.1.3.2.
    pub fn length(&self) -> u8 {
        self.length
    }

    /// The duration l_d of TS 38.211 §7.4.1.1.2 that indexes the DM-RS position tables.
    pub fn dmrs_duration(&self) -> u8 {
        match self.mapping {
            PdschMappingType::TypeA => self.start + self.length,
            PdschMappingType::TypeB => self.length,
        }
    }
}

/// PDSCH DM-RS configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DmrsConfig {
    pub config_type: DmrsConfigType,
    pub max_length: DmrsMaxLength,
    /// `dmrs-AdditionalPosition`, 0..=3 (pos0..pos3); 0..=1 with double-symbol DM-RS.
    pub additional_position: u8,
    /// CDM groups without data: 1..=2 for type 1, 1..=3 for type 2 (TS 38.212 Table
    /// 7.3.1.2.2-1 and following).
    pub cdm_groups_without_data: u8,
}

impl Default for DmrsConfig {
    /// Type 1, single symbol, one additional position, both CDM groups without data: the
    /// common configuration (`dmrs-AdditionalPosition` defaults to pos2 in TS 38.331, but
    /// deployments and 5G-LENA use pos1).
    fn default() -> Self {
        DmrsConfig {
            config_type: DmrsConfigType::Type1,
            max_length: DmrsMaxLength::Single,
            additional_position: 1,
            cdm_groups_without_data: 2,
        }
    }
}

impl DmrsConfig {
    fn check(&self) -> Result<(), NrError> {
        let max_pos = match self.max_length {
            DmrsMaxLength::Single => 3,
            DmrsMaxLength::Double => 1,
        };
        if self.additional_position > max_pos {
            return Err(NrError::Range {
                param: "dmrs-AdditionalPosition",
                value: u32::from(self.additional_position),
                expected: "0..=3 for single-symbol and 0..=1 for double-symbol DM-RS \
                           (TS 38.211 Tables 7.4.1.1.2-3/-4)",
            });
        }
        if self.cdm_groups_without_data == 0
            || self.cdm_groups_without_data > self.config_type.cdm_groups()
        {
            return Err(NrError::Range {
                param: "CDM groups without data",
                value: u32::from(self.cdm_groups_without_data),
                expected: "1..=2 for DM-RS type 1, 1..=3 for type 2",
            });
        }
        Ok(())
    }

    /// Number of DM-RS positions of Table 7.4.1.1.2-3 (single) or -4 (double) for `alloc`.
    fn positions(&self, alloc: &PdschTimeAllocation) -> Option<u8> {
        let ld = alloc.dmrs_duration();
        let pos = self.additional_position;
        match (self.max_length, alloc.mapping) {
            (DmrsMaxLength::Single, PdschMappingType::TypeA) => Some(match ld {
                0..=2 => return None,
                3..=7 => 1,
                8..=9 => 1 + pos.min(1),
                10..=11 => 1 + pos.min(2),
                _ => 1 + pos,
            }),
            (DmrsMaxLength::Single, PdschMappingType::TypeB) => Some(match ld {
                0..=1 | 14.. => return None,
                2..=4 => 1,
                5..=7 => 1 + pos.min(1),
                8..=10 => 1 + pos.min(2),
                _ => 1 + pos,
            }),
            (DmrsMaxLength::Double, PdschMappingType::TypeA) => match ld {
                0..=3 => None,
                4..=9 => Some(1),
                _ => Some(1 + pos),
            },
            (DmrsMaxLength::Double, PdschMappingType::TypeB) => match ld {
                0..=4 | 14.. => None,
                5..=7 => Some(1),
                _ => Some(1 + pos),
            },
        }
    }

    /// DM-RS OFDM symbols in the allocation.
    pub fn symbols(&self, alloc: &PdschTimeAllocation) -> Result<u8, NrError> {
        self.check()?;
        let per_position = match self.max_length {
            DmrsMaxLength::Single => 1,
            DmrsMaxLength::Double => 2,
        };
        self.positions(alloc)
            .map(|p| p * per_position)
            .ok_or(NrError::Range {
                param: "DM-RS duration l_d",
                value: u32::from(alloc.dmrs_duration()),
                expected: "a duration TS 38.211 Tables 7.4.1.1.2-3/-4 define DM-RS positions for",
            })
    }

    /// N_DMRS^PRB of TS 38.214 §5.1.3.2: REs per PRB taken by DM-RS and the CDM groups
    /// without data over the allocation.
    pub fn res_per_prb(&self, alloc: &PdschTimeAllocation) -> Result<u16, NrError> {
        Ok(u16::from(self.symbols(alloc)?)
            * u16::from(self.cdm_groups_without_data)
            * self.config_type.res_per_cdm_group())
    }
}

/// `xOverhead` of TS 38.331 `PDSCH-ServingCellConfig`: N_oh^PRB REs per PRB set aside for
/// CSI-RS and other overhead in the TBS (TS 38.214 §5.1.3.2; 0 when not configured).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum XOverhead {
    #[default]
    Xoh0,
    Xoh6,
    Xoh12,
    Xoh18,
}

impl XOverhead {
    /// N_oh^PRB.
    pub fn res_per_prb(self) -> u16 {
        match self {
            XOverhead::Xoh0 => 0,
            XOverhead::Xoh6 => 6,
            XOverhead::Xoh12 => 12,
            XOverhead::Xoh18 => 18,
        }
    }

    pub const ALL: [XOverhead; 4] = [
        XOverhead::Xoh0,
        XOverhead::Xoh6,
        XOverhead::Xoh12,
        XOverhead::Xoh18,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(s: u8, l: u8) -> PdschTimeAllocation {
        PdschTimeAllocation::new(PdschMappingType::TypeA, s, l).unwrap()
    }
    fn b(l: u8) -> PdschTimeAllocation {
        PdschTimeAllocation::new(PdschMappingType::TypeB, 0, l).unwrap()
    }
    fn single(pos: u8) -> DmrsConfig {
        DmrsConfig {
            additional_position: pos,
            ..DmrsConfig::default()
        }
    }
    fn double(pos: u8) -> DmrsConfig {
        DmrsConfig {
            max_length: DmrsMaxLength::Double,
            ..single(pos)
        }
    }

    #[test]
    fn type_a_single_symbol_table() {
        // Table 7.4.1.1.2-3, type A columns: l_d = 14 → l0 | l0,11 | l0,7,11 | l0,5,8,11.
        let counts = |alloc| {
            (0..=3)
                .map(|p| single(p).symbols(&alloc).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(counts(a(0, 14)), [1, 2, 3, 4]);
        assert_eq!(counts(a(2, 10)), [1, 2, 3, 4]); // l_d = 12: l0,5,8,11 with pos3
        assert_eq!(counts(a(1, 10)), [1, 2, 3, 3]); // l_d = 11
        assert_eq!(counts(a(0, 9)), [1, 2, 2, 2]);
        assert_eq!(counts(a(0, 7)), [1, 1, 1, 1]);
    }

    #[test]
    fn type_b_and_double_symbol_tables() {
        let counts = |cfg: fn(u8) -> DmrsConfig, n: u8, alloc| {
            (0..n)
                .map(|p| cfg(p).symbols(&alloc).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(counts(single, 4, b(2)), [1, 1, 1, 1]);
        assert_eq!(counts(single, 4, b(7)), [1, 2, 2, 2]);
        assert_eq!(counts(single, 4, b(9)), [1, 2, 3, 3]);
        assert_eq!(counts(single, 4, b(12)), [1, 2, 3, 4]);
        // Double symbol: l_d 13 type A → l0 | l0,10, two symbols each.
        assert_eq!(counts(double, 2, a(0, 13)), [2, 4]);
        assert_eq!(counts(double, 2, a(0, 9)), [2, 2]);
        assert_eq!(counts(double, 2, b(8)), [2, 4]);
        assert!(double(0).symbols(&b(4)).is_err());
        assert!(double(2).symbols(&a(0, 14)).is_err());
    }

    #[test]
    fn res_per_prb() {
        assert_eq!(single(1).res_per_prb(&a(1, 13)), Ok(24));
        let one_group = DmrsConfig {
            cdm_groups_without_data: 1,
            ..single(0)
        };
        assert_eq!(one_group.res_per_prb(&a(1, 13)), Ok(6));
        let type2 = DmrsConfig {
            config_type: DmrsConfigType::Type2,
            cdm_groups_without_data: 3,
            ..single(2)
        };
        assert_eq!(type2.res_per_prb(&a(0, 14)), Ok(36));
        assert!(DmrsConfig {
            cdm_groups_without_data: 3,
            ..single(0)
        }
        .res_per_prb(&a(0, 14))
        .is_err());
        assert_eq!(XOverhead::ALL.map(XOverhead::res_per_prb), [0, 6, 12, 18]);
    }

    #[test]
    fn time_allocations_of_table_5_1_2_1_1() {
        assert!(PdschTimeAllocation::new(PdschMappingType::TypeA, 4, 10).is_err());
        assert!(PdschTimeAllocation::new(PdschMappingType::TypeA, 0, 2).is_err());
        assert!(PdschTimeAllocation::new(PdschMappingType::TypeB, 12, 2).is_ok());
        assert!(PdschTimeAllocation::new(PdschMappingType::TypeB, 2, 13).is_err());
        assert_eq!(
            PdschTimeAllocation::rest_of_slot(2)
                .unwrap()
                .dmrs_duration(),
            14
        );
    }
}
