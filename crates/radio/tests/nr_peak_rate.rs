//! The approximate peak data rate of TS 38.306 §4.1.2 against the full-buffer rate the TBS
//! of TS 38.214 §5.1.3.2 gives per slot, for the two carriers of `docs/nr.md`: FR1 100 MHz at
//! 30 kHz (273 PRBs) and FR2 100 MHz at 120 kHz (66 PRBs). The formula applies a flat
//! overhead OH (0.14 FR1, 0.18 FR2 downlink); the TBS counts the REs the configured PDCCH
//! symbols, DM-RS and xOverhead leave. With an allocation whose overhead equals OH the two
//! agree to the TBS quantisation (at most 1/64); with a realistic one the TBS rate is lower by exactly the
//! extra overhead. Run with `--nocapture` to see the numbers.

use celltcp_radio::nr::carrier::{Carrier, FrequencyRange, Numerology};
use celltcp_radio::nr::dmrs::{DmrsConfig, PdschTimeAllocation, XOverhead};
use celltcp_radio::nr::mcs::McsTable;
use celltcp_radio::nr::peak_rate::{approx_peak_rate_bps, Direction, PeakRateCarrier};
use celltcp_radio::nr::slot_pattern::{SlotPattern, SpecialSlot};
use celltcp_radio::nr::tbs::{tbs_bits, TbsInput};

/// Above N_info = 3824 the TBS rounds N_info − 24 to a multiple of 2^n with
/// n = ⌊log2(N_info − 24)⌋ − 5, an error of at most 2^(n−1) ≤ (N_info − 24) / 64: the TBS is
/// within 1/64 of N_info (plus the byte and code-block alignment, a few bits).
const TBS_QUANTISATION: f64 = 1.0 / 64.0 + 1e-4;

struct Case {
    carrier: Carrier,
    layers: u8,
    table: McsTable,
    mcs: u8,
}

impl Case {
    fn formula_bps(&self) -> f64 {
        approx_peak_rate_bps(&[PeakRateCarrier {
            layers: self.layers,
            qm: self.table.row(self.mcs).unwrap().qm(),
            scaling_factor: 1.0,
            numerology: self.carrier.numerology(),
            n_prb: self.carrier.n_rb(),
            fr: self.carrier.frequency_range(),
            direction: Direction::Downlink,
        }])
    }

    /// TBS of one slot whose PDSCH starts at `start` and ends at `start + length`.
    fn slot_tbs(&self, start: u8, length: u8, dmrs: DmrsConfig, x: XOverhead) -> u32 {
        let alloc = PdschTimeAllocation::new(
            celltcp_radio::nr::dmrs::PdschMappingType::TypeA,
            start,
            length,
        )
        .unwrap();
        let input = TbsInput {
            n_prb: self.carrier.n_rb(),
            n_symb: alloc.length(),
            n_dmrs_per_prb: dmrs.res_per_prb(&alloc).unwrap(),
            n_oh_per_prb: x.res_per_prb(),
            layers: self.layers,
        };
        tbs_bits(self.table.row(self.mcs).unwrap(), &input).unwrap()
    }

    fn slots_per_second(&self) -> f64 {
        self.carrier.numerology().slots_per_second() as f64
    }
}

fn fr1() -> Case {
    Case {
        carrier: Carrier::new(FrequencyRange::Fr1, Numerology::new(1).unwrap(), 100).unwrap(),
        layers: 4,
        table: McsTable::Qam256,
        mcs: 27,
    }
}

fn fr2() -> Case {
    Case {
        carrier: Carrier::new(FrequencyRange::Fr2, Numerology::new(3).unwrap(), 100).unwrap(),
        layers: 2,
        table: McsTable::Qam64,
        mcs: 28,
    }
}

fn one_dmrs_symbol() -> DmrsConfig {
    DmrsConfig {
        additional_position: 0,
        ..DmrsConfig::default()
    }
}

#[test]
fn fr1_100mhz_30khz() {
    let c = fr1();
    assert_eq!(c.carrier.n_rb(), 273);
    let formula = c.formula_bps();
    // 4 · 8 · 948/1024 · 273 · 12 · 28 000 · 0.86 = 2 337 000 120 bit/s exactly.
    assert!((formula - 2_337_000_120.0).abs() < 1.0, "{formula}");

    // Overhead equal to OH: 14 symbols, one DM-RS symbol (12 REs), xOverhead 12 →
    // N'_RE = 144 of 168 REs per PRB, 14.3 % overhead.
    let matched =
        f64::from(c.slot_tbs(0, 14, one_dmrs_symbol(), XOverhead::Xoh12)) * c.slots_per_second();
    let predicted = formula * (144.0 / 168.0) / 0.86;
    eprintln!("FR1 formula {formula:.0} bit/s; TBS, 144 RE/PRB: {matched:.0} bit/s");
    assert!(
        (matched / predicted - 1.0).abs() < TBS_QUANTISATION,
        "{matched} vs {predicted}"
    );

    // A realistic FDD slot: 2 PDCCH symbols, PDSCH on 12, DM-RS pos1 (2 symbols, 24 REs):
    // N'_RE = 120, 28.6 % overhead.
    let fdd =
        f64::from(c.slot_tbs(2, 12, DmrsConfig::default(), XOverhead::Xoh0)) * c.slots_per_second();
    eprintln!("FR1 TBS, FDD 2 PDCCH + 2 DM-RS symbols: {fdd:.0} bit/s");
    assert!((fdd / (formula * (120.0 / 168.0) / 0.86) - 1.0).abs() < TBS_QUANTISATION);

    // TDD DDDSU, S = 10:2:2: three full slots and a special slot whose PDSCH has 8 symbols.
    let p = SlotPattern::tdd(
        "DDDSU",
        SpecialSlot::new(10, 2, 2).unwrap(),
        c.carrier.numerology(),
    )
    .unwrap();
    let period_bits: u32 = (0..5)
        .filter(|n| p.is_downlink(*n))
        .map(|n| {
            c.slot_tbs(
                2,
                p.dl_symbols(n) - 2,
                DmrsConfig::default(),
                XOverhead::Xoh0,
            )
        })
        .sum();
    let tdd = f64::from(period_bits) * c.slots_per_second() / 5.0;
    eprintln!("FR1 TBS, TDD DDDSU 10:2:2: {tdd:.0} bit/s");
    assert!(tdd < fdd * 0.8 && tdd > fdd * 0.7);
}

#[test]
fn fr2_100mhz_120khz() {
    let c = fr2();
    assert_eq!(c.carrier.n_rb(), 66);
    let formula = c.formula_bps();
    // 2 · 6 · 948/1024 · 66 · 12 · 112 000 · 0.82 = 808 065 720 bit/s.
    assert!((formula - 808_065_720.0).abs() < 1.0, "{formula}");
    // Overhead close to OH: 14 symbols, DM-RS pos1 (24 REs), xOverhead 6 → N'_RE = 138,
    // 17.9 % overhead.
    let matched =
        f64::from(c.slot_tbs(0, 14, DmrsConfig::default(), XOverhead::Xoh6)) * c.slots_per_second();
    let predicted = formula * (138.0 / 168.0) / 0.82;
    eprintln!("FR2 formula {formula:.0} bit/s; TBS, 138 RE/PRB: {matched:.0} bit/s");
    assert!(
        (matched / predicted - 1.0).abs() < TBS_QUANTISATION,
        "{matched} vs {predicted}"
    );
    let fdd_like =
        f64::from(c.slot_tbs(2, 12, DmrsConfig::default(), XOverhead::Xoh0)) * c.slots_per_second();
    eprintln!("FR2 TBS, 2 PDCCH + 2 DM-RS symbols, every slot: {fdd_like:.0} bit/s");
    assert!(fdd_like < matched);
}
