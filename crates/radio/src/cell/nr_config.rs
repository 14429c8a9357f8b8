//! The NR air interface of a cell (`[cells.NAME] rat = "nr"`, the table `[cells.NAME.nr]`):
//! carrier, slot pattern, PDSCH allocation, MCS and CQI tables, layers and HARQ, with their
//! defaults and the 3GPP clauses they come from. The scenario file deserialises the table into
//! [`NrCellConfig`] itself (serde and schemars behind the crate's `serde` feature); one
//! [`NrCellConfig::validate`] checks it and resolves it into the NR library's types
//! ([`NrAirConfig`]), with messages naming the dotted key (`cells.NAME.nr.KEY`).

use std::sync::Arc;

use crate::nr::{
    Carrier, CqiTable, DmrsConfig, DmrsConfigType, DmrsMaxLength, FrequencyRange, HarqTiming,
    McsTable, NrBlerModel, Numerology, PdschProcessingCapability, PdschTimeAllocation, SlotPattern,
    SpecialSlot, XOverhead, MAX_LAYERS, SYMBOLS_PER_SLOT,
};

/// `[cells.NAME.nr]` as written; every key is optional.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(deny_unknown_fields, default)
)]
pub struct NrCellConfig {
    /// Numerology μ, 0 to 4: subcarrier spacing 15·2^μ kHz, slot 1 ms / 2^μ (TS 38.211 Table
    /// 4.2-1). Default 1 (30 kHz), the FR1 TDD spacing of TS 38.101-1's 100 MHz channels.
    pub numerology: u8,
    /// Channel bandwidth, MHz, one that TS 38.101-1 (FR1) or TS 38.101-2 (FR2) Table 5.3.2-1
    /// lists for the carrier's frequency range and the numerology's spacing. Default 100.
    pub bandwidth_mhz: u32,
    /// "FDD", or a TDD pattern of D (downlink), S (special) and U (uplink) slots repeated
    /// with a `dl-UL-TransmissionPeriodicity` of TS 38.331 (e.g. "DDDSU" at μ = 1, 2.5 ms).
    /// Default "FDD".
    pub slot_pattern: String,
    /// Downlink, guard and uplink symbols of the special slot, "D:G:U" adding up to 14
    /// (TS 38.213 §11.1). Default "10:2:2".
    pub special_slot: String,
    /// PDSCH MCS table (TS 38.331 `mcs-Table`): "qam64" (TS 38.214 Table 5.1.3.1-1, the
    /// default when the field is absent), "qam256" (5.1.3.1-2) or "qam64_low_se" (5.1.3.1-3).
    pub mcs_table: McsTable,
    /// CQI table of the reports (TS 38.331 `cqi-Table`): "table1" (TS 38.214 Table
    /// 5.2.2.1-2), "table2" (5.2.2.1-3, 256QAM) or "table3" (5.2.2.1-4, low SE). By default
    /// the one designed with `mcs_table` (table1 with qam64, table2 with qam256, table3 with
    /// qam64_low_se).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub cqi_table: Option<CqiTable>,
    /// Largest number of layers of a transport block, 1 to 4 (TS 38.331 `maxMIMO-Layers`; one
    /// codeword). The rank of each block is chosen from the UE's SINR up to this. Default 1.
    pub max_layers: u8,
    /// PDSCH DM-RS (TS 38.331 `DMRS-DownlinkConfig`).
    pub dmrs: NrDmrsConfig,
    /// `xOverhead`, REs per PRB the TBS leaves for CSI-RS and other overhead: 0, 6, 12 or 18
    /// (TS 38.331 `PDSCH-ServingCellConfig`; 0 when absent, TS 38.214 §5.1.3.2).
    pub x_overhead: u16,
    /// K1, slots from a PDSCH to its HARQ-ACK (TS 38.331 `dl-DataToUL-ACK`, 0 to 15); under
    /// TDD the ACK goes in the first slot with uplink symbols at or after it. By default the
    /// smallest the UE meets, ⌈(N1 + 1) / 14⌉ with N1 of PDSCH processing capability 1
    /// (TS 38.214 Table 5.3-1); a smaller one is refused.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub k1_slots: Option<u8>,
    /// Downlink HARQ processes, 1 to 16 (TS 38.331 `nrofHARQ-ProcessesForPDSCH`, which is 8
    /// when absent). Default 16: with 8, a TDD pattern's K1 round trip stalls a full buffer.
    pub harq_processes: u8,
    /// PDSCH symbols of a downlink slot, 3 to 14, mapping type A ending with the slot (the
    /// symbols before it carry the PDCCH, TS 38.214 §5.1.2.1). Default 13 (a one-symbol
    /// CORESET). In a special slot the PDSCH ends with its downlink symbols.
    pub pdsch_symbols: u8,
    /// `[cells.NAME.nr.channel]`: the UEs' mmWave channel (TR 38.901 path loss, blockage,
    /// beam recovery, or a measured SINR trace; `nr_channel.rs`). Absent: the cell's LTE link
    /// budget (`radio_link.rs`).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub channel: Option<super::nr_channel::NrChannelConfig>,
    /// The link-level BLER curves of `mcs_table` read from the cell's `bler_table` file (the
    /// file layer reads it, a program sets it); `None`: the default curves of `mcs_table`
    /// (`nr/link.rs`).
    #[cfg_attr(feature = "serde", serde(skip), schemars(skip))]
    pub bler_curves: Option<Arc<NrBlerModel>>,
}

impl Default for NrCellConfig {
    fn default() -> Self {
        NrCellConfig {
            numerology: 1,
            bandwidth_mhz: 100,
            slot_pattern: "FDD".into(),
            special_slot: "10:2:2".into(),
            mcs_table: McsTable::Qam64,
            cqi_table: None,
            max_layers: 1,
            dmrs: NrDmrsConfig::default(),
            x_overhead: 0,
            k1_slots: None,
            harq_processes: crate::nr::NR_HARQ_PROCESSES,
            pdsch_symbols: 13,
            channel: None,
            bler_curves: None,
        }
    }
}

/// `[cells.NAME.nr.dmrs]`: the PDSCH DM-RS (TS 38.331 `DMRS-DownlinkConfig`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema),
    serde(deny_unknown_fields, default)
)]
pub struct NrDmrsConfig {
    /// `dmrs-Type`: 1 (2 CDM groups of 6 REs, the default when absent) or 2 (3 groups of 4;
    /// TS 38.211 Tables 7.4.1.1.2-1/-2).
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub config_type: u8,
    /// `dmrs-AdditionalPosition`, 0 to 3 (0 to 1 with `max_length` 2). Default 1 (pos1, the
    /// common deployment and 5G-LENA's; TS 38.331's absent value is pos2).
    pub additional_position: u8,
    /// `maxLength`: 1 (single-symbol DM-RS, the default when absent) or 2 (double-symbol).
    pub max_length: u8,
}

impl Default for NrDmrsConfig {
    fn default() -> Self {
        let d = DmrsConfig::default();
        NrDmrsConfig {
            config_type: 1,
            additional_position: d.additional_position,
            max_length: 1,
        }
    }
}

/// A configuration error, with the dotted key of the value it concerns.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct NrConfigError {
    pub key: String,
    pub message: String,
}

/// The gNB's HARQ processing delay between a HARQ-ACK and the retransmission it triggers,
/// slots (an implementation value, [`HarqTiming`]'s default).
pub const GNB_PROCESSING_SLOTS: u8 = 1;

/// A validated [`NrCellConfig`], in the NR library's types.
#[derive(Clone, Debug, PartialEq)]
pub struct NrAirConfig {
    pub carrier: Carrier,
    pub pattern: SlotPattern,
    /// PDSCH of a downlink slot.
    pub pdsch: PdschTimeAllocation,
    /// PDSCH of the special slot; `None` when its downlink symbols leave no valid allocation
    /// after the PDCCH (then the special slot carries no PDSCH).
    pub special_pdsch: Option<PdschTimeAllocation>,
    pub dmrs: DmrsConfig,
    pub x_overhead: XOverhead,
    pub mcs_table: McsTable,
    /// BLER curves of `mcs_table`: the link-level ones given, or the defaults.
    pub bler: NrBlerModel,
    pub cqi_table: CqiTable,
    pub max_layers: u8,
    pub harq: HarqTiming,
}

/// The frequency range of a carrier at `carrier_hz`: FR1 up to 7.125 GHz, FR2-1 from 24.25 to
/// 52.6 GHz (TS 38.104 §5.1).
pub fn frequency_range(carrier_hz: f64) -> Option<FrequencyRange> {
    if (0.41e9..=7.125e9).contains(&carrier_hz) {
        Some(FrequencyRange::Fr1)
    } else if (24.25e9..=52.6e9).contains(&carrier_hz) {
        Some(FrequencyRange::Fr2)
    } else {
        None
    }
}

impl NrCellConfig {
    /// Checks every key against the tables of its clause and resolves the configuration for
    /// a carrier at `carrier_hz`. `cell_key` is the cell's dotted key (`cells.NAME`); errors
    /// name `{cell_key}.nr.KEY`, or `{cell_key}.carrier_ghz` for a carrier in no FR.
    pub fn validate(&self, cell_key: &str, carrier_hz: f64) -> Result<NrAirConfig, NrConfigError> {
        let err = |k: &str, message: String| NrConfigError {
            key: format!("{cell_key}.nr.{k}"),
            message,
        };
        let fr = frequency_range(carrier_hz).ok_or_else(|| NrConfigError {
            key: format!("{cell_key}.carrier_ghz"),
            message: format!(
                "{} GHz is in no NR frequency range; expected FR1 (0.41 to 7.125 GHz) or FR2 \
                 (24.25 to 52.6 GHz), TS 38.104 §5.1",
                carrier_hz / 1e9
            ),
        })?;
        let numerology =
            Numerology::new(self.numerology).map_err(|e| err("numerology", e.to_string()))?;
        let carrier = Carrier::new(fr, numerology, self.bandwidth_mhz)
            .map_err(|e| err("bandwidth_mhz", e.to_string()))?;
        let pattern = self.pattern(numerology, &err)?;
        let cqi_table = self.cqi_table.unwrap_or(designed_cqi_table(self.mcs_table));
        check_mapping(cqi_table, self.mcs_table).map_err(|m| err("cqi_table", m))?;
        if !(1..=MAX_LAYERS).contains(&self.max_layers) {
            return Err(err(
                "max_layers",
                format!(
                    "{} is out of range; expected 1 to 4 (one codeword, TS 38.211 Table \
                     7.3.1.3-1)",
                    self.max_layers
                ),
            ));
        }
        let dmrs = self.dmrs.resolve(&err)?;
        let x_overhead = XOverhead::ALL
            .into_iter()
            .find(|x| x.res_per_prb() == self.x_overhead)
            .ok_or_else(|| {
                err(
                    "x_overhead",
                    format!(
                        "{} is not an xOverhead; expected 0, 6, 12 or 18 REs per PRB (TS 38.331 \
                         PDSCH-ServingCellConfig)",
                        self.x_overhead
                    ),
                )
            })?;
        if !(3..=SYMBOLS_PER_SLOT).contains(&self.pdsch_symbols) {
            return Err(err(
                "pdsch_symbols",
                format!(
                    "{} is out of range; expected 3 to 14 PDSCH symbols (mapping type A, TS \
                     38.214 Table 5.1.2.1-1)",
                    self.pdsch_symbols
                ),
            ));
        }
        let start = SYMBOLS_PER_SLOT - self.pdsch_symbols;
        let pdsch = PdschTimeAllocation::rest_of_slot(start)
            .map_err(|e| err("pdsch_symbols", e.to_string()))?;
        dmrs.res_per_prb(&pdsch)
            .map_err(|e| err("dmrs", e.to_string()))?;
        let special_pdsch = match &pattern {
            SlotPattern::Tdd { special, .. } => special
                .dl_symbols()
                .checked_sub(start)
                .and_then(|len| {
                    PdschTimeAllocation::new(crate::nr::PdschMappingType::TypeA, start, len).ok()
                })
                .filter(|a| dmrs.res_per_prb(a).is_ok()),
            SlotPattern::Fdd => None,
        };
        let harq = self.harq_timing(numerology, &dmrs, &err)?;
        let bler = match &self.bler_curves {
            None => NrBlerModel::for_table(self.mcs_table),
            Some(curves) if curves.mcs_table() == self.mcs_table => NrBlerModel::clone(curves),
            Some(curves) => {
                return Err(NrConfigError {
                    key: format!("{cell_key}.bler_table"),
                    message: format!(
                        "holds curves of {}, not of nr.mcs_table {}; read the table for the \
                         cell's MCS table",
                        curves.mcs_table(),
                        self.mcs_table
                    ),
                })
            }
        };
        Ok(NrAirConfig {
            carrier,
            pattern,
            pdsch,
            special_pdsch,
            dmrs,
            x_overhead,
            mcs_table: self.mcs_table,
            bler,
            cqi_table,
            max_layers: self.max_layers,
            harq,
        })
    }

    fn pattern(
        &self,
        numerology: Numerology,
        err: &impl Fn(&str, String) -> NrConfigError,
    ) -> Result<SlotPattern, NrConfigError> {
        if self.slot_pattern.eq_ignore_ascii_case("fdd") {
            return Ok(SlotPattern::Fdd);
        }
        let special = SpecialSlot::parse(&self.special_slot)
            .map_err(|e| err("special_slot", e.to_string()))?;
        SlotPattern::tdd(&self.slot_pattern, special, numerology)
            .map_err(|e| err("slot_pattern", format!("{e}; or \"FDD\"")))
    }

    fn harq_timing(
        &self,
        numerology: Numerology,
        dmrs: &DmrsConfig,
        err: &impl Fn(&str, String) -> NrConfigError,
    ) -> Result<HarqTiming, NrConfigError> {
        let min_k1 = PdschProcessingCapability::Capability1
            .min_k1_slots(numerology, dmrs.additional_position > 0)
            .expect("capability 1 has an N1 for every numerology of a data channel");
        let k1 = self.k1_slots.unwrap_or(min_k1);
        if k1 < min_k1 {
            return Err(err(
                "k1_slots",
                format!(
                    "{k1} is shorter than the UE's PDSCH processing time; expected at least \
                     {min_k1} slots at {} kHz (N1 of TS 38.214 Table 5.3-1, capability 1)",
                    numerology.scs_khz()
                ),
            ));
        }
        HarqTiming::new(self.harq_processes, k1, GNB_PROCESSING_SLOTS).map_err(|e| {
            let key =
                if self.harq_processes == 0 || self.harq_processes > crate::nr::NR_HARQ_PROCESSES {
                    "harq_processes"
                } else {
                    "k1_slots"
                };
            err(key, e.to_string())
        })
    }
}

impl NrDmrsConfig {
    fn resolve(
        &self,
        err: &impl Fn(&str, String) -> NrConfigError,
    ) -> Result<DmrsConfig, NrConfigError> {
        let config_type = match self.config_type {
            1 => DmrsConfigType::Type1,
            2 => DmrsConfigType::Type2,
            t => {
                return Err(err(
                    "dmrs.type",
                    format!("{t} is not a DM-RS type; expected 1 or 2 (TS 38.211 §7.4.1.1)"),
                ))
            }
        };
        let max_length = match self.max_length {
            1 => DmrsMaxLength::Single,
            2 => DmrsMaxLength::Double,
            l => {
                return Err(err(
                    "dmrs.max_length",
                    format!("{l} is not a maxLength; expected 1 or 2 DM-RS symbols"),
                ))
            }
        };
        let max_pos = if max_length == DmrsMaxLength::Single {
            3
        } else {
            1
        };
        if self.additional_position > max_pos {
            return Err(err(
                "dmrs.additional_position",
                format!(
                    "{} is out of range; expected 0 to {max_pos} with max_length {} (TS 38.211 \
                     Tables 7.4.1.1.2-3/-4)",
                    self.additional_position, self.max_length
                ),
            ));
        }
        Ok(DmrsConfig {
            config_type,
            max_length,
            additional_position: self.additional_position,
            // Single-user PDSCH: the CDM groups not carrying this UE's DM-RS carry no data
            // either (the TS 38.214 §5.1.3.2 count of "CDM groups without data").
            cdm_groups_without_data: config_type.cdm_groups().min(2),
        })
    }
}

/// The CQI table TS 38.214 designs with `mcs_table` (same modulations and target BLER).
pub fn designed_cqi_table(mcs_table: McsTable) -> CqiTable {
    match mcs_table {
        McsTable::Qam64 => CqiTable::Table1,
        McsTable::Qam256 => CqiTable::Table2,
        McsTable::Qam64LowSe => CqiTable::Table3,
    }
}

/// Whether every CQI of `cqi_table` has an MCS of `mcs_table` of its own modulation: a CQI
/// table reporting 256QAM (table2) cannot be mapped onto a 64QAM MCS table (its CQIs 12 to 15
/// would all fall on the top 64QAM MCS, reporting rates no block can carry).
fn check_mapping(cqi_table: CqiTable, mcs_table: McsTable) -> Result<(), String> {
    let top = |qm: &mut dyn Iterator<Item = u8>| qm.max().unwrap_or(0);
    let cqi_qm = top(&mut cqi_table.rows().iter().map(|r| r.qm()));
    let mcs_qm = top(&mut mcs_table.rows().iter().map(|r| r.qm()));
    if cqi_qm > mcs_qm {
        let name = match cqi_table {
            CqiTable::Table1 => "table1 (TS 38.214 Table 5.2.2.1-2)",
            CqiTable::Table2 => "table2 (TS 38.214 Table 5.2.2.1-3)",
            CqiTable::Table3 => "table3 (TS 38.214 Table 5.2.2.1-4)",
        };
        return Err(format!(
            "{name} reports modulation order {cqi_qm}, which {mcs_table} has no MCS of; \
             use mcs_table = \"qam256\" or cqi_table = \"table1\""
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fr1() -> f64 {
        3.5e9
    }

    #[test]
    fn defaults_resolve_and_follow_the_tables() {
        let a = NrCellConfig::default().validate("cells.g", fr1()).unwrap();
        assert_eq!(a.carrier.n_rb(), 273);
        assert_eq!(a.pattern, SlotPattern::Fdd);
        assert_eq!(a.pdsch.length(), 13);
        assert_eq!(a.cqi_table, CqiTable::Table1);
        assert_eq!((a.harq.processes(), a.harq.k1_slots()), (16, 1));
    }

    #[test]
    fn errors_name_the_dotted_key() {
        let key = |c: NrCellConfig, hz: f64| c.validate("cells.g", hz).unwrap_err().key;
        let d = NrCellConfig::default;
        assert_eq!(
            key(
                NrCellConfig {
                    numerology: 5,
                    ..d()
                },
                fr1()
            ),
            "cells.g.nr.numerology"
        );
        // 100 MHz at 15 kHz is no FR1 channel (TS 38.101-1 Table 5.3.2-1 stops at 50 MHz).
        assert_eq!(
            key(
                NrCellConfig {
                    numerology: 0,
                    ..d()
                },
                fr1()
            ),
            "cells.g.nr.bandwidth_mhz"
        );
        assert_eq!(
            key(
                NrCellConfig {
                    slot_pattern: "DDXSU".into(),
                    ..d()
                },
                fr1()
            ),
            "cells.g.nr.slot_pattern"
        );
        assert_eq!(
            key(
                NrCellConfig {
                    cqi_table: Some(CqiTable::Table2),
                    ..d()
                },
                fr1()
            ),
            "cells.g.nr.cqi_table"
        );
        assert_eq!(key(d(), 12e9), "cells.g.carrier_ghz");
        assert_eq!(
            key(
                NrCellConfig {
                    k1_slots: Some(0),
                    ..d()
                },
                fr1()
            ),
            "cells.g.nr.k1_slots"
        );
        assert_eq!(
            key(
                NrCellConfig {
                    harq_processes: 17,
                    ..d()
                },
                fr1()
            ),
            "cells.g.nr.harq_processes"
        );
        assert_eq!(
            key(
                NrCellConfig {
                    x_overhead: 7,
                    ..d()
                },
                fr1()
            ),
            "cells.g.nr.x_overhead"
        );
    }

    #[test]
    fn the_special_slot_pdsch_ends_with_its_downlink_symbols() {
        let c = NrCellConfig {
            slot_pattern: "DDDSU".into(),
            ..NrCellConfig::default()
        };
        let a = c.validate("cells.g", fr1()).unwrap();
        // 10 downlink symbols, the first for the PDCCH: 9 PDSCH symbols from symbol 1.
        let s = a.special_pdsch.unwrap();
        assert_eq!((s.start(), s.length()), (1, 9));
        // With 2 downlink symbols there is no type A PDSCH of 3 or more symbols.
        let c = NrCellConfig {
            special_slot: "2:2:10".into(),
            ..c
        };
        assert_eq!(c.validate("cells.g", fr1()).unwrap().special_pdsch, None);
    }
}
