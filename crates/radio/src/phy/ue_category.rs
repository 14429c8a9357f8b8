//! The downlink UE categories of TS 36.306 §4.1 (Table 4.1-1): how many DL-SCH bits a UE can
//! receive in one TTI.
//!
//! The eNB never sends a UE a transport block larger than its category allows (the UE signals
//! `ue-Category`, TS 36.331 §6.3.6 UE-EUTRA-Capability). The cell carries one transport block
//! per UE and TTI on one layer, so the binding figure is the table's "maximum number of bits of
//! a DL-SCH transport block received within a TTI"; the total per TTI (over the transport
//! blocks of spatial multiplexing) is never below it.
//!
//! Only the Release 8 categories 1 to 5 are modelled: the later ones (6 and up) differ from
//! category 4 or 5 in their layers, carrier aggregation and 256QAM, which a single-layer,
//! single-carrier cell does not have.

use std::fmt;

/// Table 4.1-1 of TS 36.306, categories 1 to 5: (maximum bits of a DL-SCH transport block
/// received within a TTI, maximum DL-SCH transport block bits received within a TTI).
const TABLE_4_1_1: [(u32, u32); 5] = [
    (10_296, 10_296),
    (51_024, 51_024),
    (75_376, 102_048),
    (75_376, 150_752),
    (149_776, 299_552),
];

/// A downlink UE category of TS 36.306 Table 4.1-1, 1 to 5. A scenario file writes the number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "u8", into = "u8")
)]
pub struct UeCategory(u8);

/// A number that is not a category of Table 4.1-1 (1 to 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0} is not a UE category of TS 36.306 Table 4.1-1; expected 1 to 5")]
pub struct UeCategoryError(pub u8);

impl UeCategory {
    /// Category `n`, 1 to 5.
    pub fn new(n: u8) -> Result<Self, UeCategoryError> {
        if (1..=TABLE_4_1_1.len() as u8).contains(&n) {
            Ok(UeCategory(n))
        } else {
            Err(UeCategoryError(n))
        }
    }

    /// The category number.
    pub fn get(self) -> u8 {
        self.0
    }

    /// Largest DL-SCH transport block the UE receives in a TTI, bits (Table 4.1-1, "maximum
    /// number of bits of a DL-SCH transport block received within a TTI"): 10296, 51024,
    /// 75376, 75376 and 149776 for categories 1 to 5.
    pub fn max_tb_bits(self) -> u32 {
        TABLE_4_1_1[usize::from(self.0) - 1].0
    }

    /// All DL-SCH transport block bits the UE receives in a TTI (Table 4.1-1, "maximum number
    /// of DL-SCH transport block bits received within a TTI", over its spatial layers).
    pub fn max_bits_per_tti(self) -> u32 {
        TABLE_4_1_1[usize::from(self.0) - 1].1
    }
}

impl TryFrom<u8> for UeCategory {
    type Error = UeCategoryError;

    fn try_from(n: u8) -> Result<Self, Self::Error> {
        UeCategory::new(n)
    }
}

impl From<UeCategory> for u8 {
    fn from(c: UeCategory) -> u8 {
        c.0
    }
}

impl fmt::Display for UeCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "category {}", self.0)
    }
}

#[cfg(feature = "serde")]
impl schemars::JsonSchema for UeCategory {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed("UeCategory")
    }

    fn json_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "integer",
            "minimum": 1,
            "maximum": TABLE_4_1_1.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_categories_of_table_4_1_1() {
        let bits: Vec<(u32, u32)> = (1..=5)
            .map(|n| {
                let c = UeCategory::new(n).unwrap();
                (c.max_tb_bits(), c.max_bits_per_tti())
            })
            .collect();
        assert_eq!(
            bits,
            [
                (10_296, 10_296),
                (51_024, 51_024),
                (75_376, 102_048),
                (75_376, 150_752),
                (149_776, 299_552)
            ]
        );
        // One transport block never exceeds the total of the TTI.
        assert!(bits.iter().all(|(tb, tti)| tb <= tti));
        assert_eq!(
            UeCategory::new(0).unwrap_err().to_string(),
            "0 is not a UE category of TS 36.306 Table 4.1-1; expected 1 to 5"
        );
        assert!(UeCategory::new(6).is_err());
    }
}
