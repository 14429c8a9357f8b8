//! Transport block size of the PDSCH, TS 38.214 §5.1.3.2, computed in integers.
//!
//! ```text
//! N'_RE  = 12 · N_symb^sh − N_DMRS^PRB − N_oh^PRB
//! N_RE   = min(156, N'_RE) · n_PRB
//! N_info = N_RE · R · Q_m · υ
//! N_info ≤ 3824:  n = max(3, ⌊log2 N_info⌋ − 6),  N'_info = max(24, 2^n · ⌊N_info / 2^n⌋),
//!                 TBS = the smallest entry of Table 5.1.3.2-1 not below N'_info
//! N_info > 3824:  n = ⌊log2(N_info − 24)⌋ − 5,  N'_info = max(3840, 2^n · round((N_info − 24) / 2^n))
//!   R ≤ 1/4:          C = ⌈(N'_info + 24) / 3816⌉,  TBS = 8·C·⌈(N'_info + 24) / (8·C)⌉ − 24
//!   N'_info > 8424:   C = ⌈(N'_info + 24) / 8424⌉,  TBS = 8·C·⌈(N'_info + 24) / (8·C)⌉ − 24
//!   otherwise:        TBS = 8·⌈(N'_info + 24) / 8⌉ − 24
//! ```
//!
//! R = R×2048 / 2048 is dyadic, so N_info = N_RE · (R×2048) · Q_m · υ / 2^11 is held as the
//! integer numerator over 2^11: ⌊log2⌋, ⌊·/2^n⌋ and round become shifts, and no floating-point
//! rounding can move a block across a table entry. `round` rounds halves up (the quantity is
//! positive), as implementations of the clause do. The 3816 and 8424 are K_cb − 24 of base
//! graphs 2 and 1 (TS 38.212 §5.2.2), so the C here is the C of the code-block segmentation,
//! which [`TransportBlock`] carries.

use super::ldpc::{BaseGraph, CodeBlockSegmentation, SMALL_TB_MAX_BITS};
use super::mcs::McsRow;
use super::{NrError, MAX_LAYERS, MAX_PRBS, SUBCARRIERS_PER_RB, SYMBOLS_PER_SLOT};

/// TS 38.214 Table 5.1.3.2-1: the 93 transport block sizes for N_info ≤ 3824.
pub const SMALL_TBS_BITS: [u32; 93] = [
    24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184,
    192, 208, 224, 240, 256, 272, 288, 304, 320, 336, 352, 368, 384, 408, 432, 456, 480, 504, 528,
    552, 576, 608, 640, 672, 704, 736, 768, 808, 848, 888, 928, 984, 1032, 1064, 1128, 1160, 1192,
    1224, 1256, 1288, 1320, 1352, 1416, 1480, 1544, 1608, 1672, 1736, 1800, 1864, 1928, 2024, 2088,
    2152, 2216, 2280, 2408, 2472, 2536, 2600, 2664, 2728, 2792, 2856, 2976, 3104, 3240, 3368, 3496,
    3624, 3752, 3824,
];

/// Cap on the REs per PRB the TBS counts, TS 38.214 §5.1.3.2.
pub const MAX_RES_PER_PRB: u32 = 156;

/// log2 of the denominator of N_info: R × 2048.
const RATE_SHIFT: u32 = 11;

/// What TS 38.214 §5.1.3.2 needs besides the MCS row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TbsInput {
    /// Allocated PRBs n_PRB, 1..=275.
    pub n_prb: u16,
    /// PDSCH symbols N_symb^sh, 1..=14.
    pub n_symb: u8,
    /// DM-RS REs per PRB N_DMRS^PRB (see [`super::DmrsConfig::res_per_prb`]).
    pub n_dmrs_per_prb: u16,
    /// `xOverhead` REs per PRB N_oh^PRB (see [`super::XOverhead`]).
    pub n_oh_per_prb: u16,
    /// Layers υ, 1..=4.
    pub layers: u8,
}

impl TbsInput {
    fn check(&self) -> Result<(), NrError> {
        let range = |param, value: u32, ok: bool, expected| {
            if ok {
                Ok(())
            } else {
                Err(NrError::Range {
                    param,
                    value,
                    expected,
                })
            }
        };
        range(
            "n_prb",
            self.n_prb.into(),
            (1..=MAX_PRBS).contains(&self.n_prb),
            "1..=275 PRBs",
        )?;
        range(
            "n_symb",
            self.n_symb.into(),
            (1..=SYMBOLS_PER_SLOT).contains(&self.n_symb),
            "1..=14 PDSCH symbols",
        )?;
        range(
            "layers",
            self.layers.into(),
            (1..=MAX_LAYERS).contains(&self.layers),
            "1..=4 layers (one codeword)",
        )
    }

    /// N'_RE, REs per PRB for data; may be zero or negative for a bad allocation.
    pub fn res_per_prb(&self) -> i64 {
        i64::from(SUBCARRIERS_PER_RB) * i64::from(self.n_symb)
            - i64::from(self.n_dmrs_per_prb)
            - i64::from(self.n_oh_per_prb)
    }

    /// N_RE = min(156, N'_RE) · n_PRB.
    pub fn n_re(&self) -> Result<u32, NrError> {
        self.check()?;
        let per_prb = self.res_per_prb();
        if per_prb < 1 {
            return Err(NrError::NoDataRe {
                n_re_prime: per_prb,
            });
        }
        Ok((per_prb as u32).min(MAX_RES_PER_PRB) * u32::from(self.n_prb))
    }
}

/// ⌊log2 x⌋ for x ≥ 1.
fn floor_log2(x: u64) -> u32 {
    63 - x.leading_zeros()
}

/// TBS of TS 38.214 §5.1.3.2 for one codeword, bits.
pub fn tbs_bits(mcs: McsRow, input: &TbsInput) -> Result<u32, NrError> {
    Ok(TransportBlock::new(mcs, input)?.tbs_bits)
}

/// A transport block sized by TS 38.214 §5.1.3.2, with its LDPC segmentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransportBlock {
    /// Transport block size A, bits.
    pub tbs_bits: u32,
    /// REs counted, N_RE.
    pub n_re: u32,
    /// N_info × 2048 (N_info is a multiple of 1/2048).
    pub n_info_x2048: u64,
    /// Base graph, code blocks C, K', Z, K and filler bits (TS 38.212).
    pub segmentation: CodeBlockSegmentation,
}

impl TransportBlock {
    pub fn new(mcs: McsRow, input: &TbsInput) -> Result<Self, NrError> {
        let n_re = input.n_re()?;
        // N_info · 2^11, exact: at most 156 · 275 · 1896 · 8 · 4 < 2^32 · 2^11.
        let n_info_x2048 = u64::from(n_re)
            * u64::from(mcs.rate_x2048())
            * u64::from(mcs.qm())
            * u64::from(input.layers);
        let tbs_bits = if n_info_x2048 <= u64::from(SMALL_TB_MAX_BITS) << RATE_SHIFT {
            small_tbs(n_info_x2048)
        } else {
            large_tbs(n_info_x2048, mcs.rate_x2048())
        };
        let base_graph = BaseGraph::select(tbs_bits, mcs.rate_x2048());
        Ok(TransportBlock {
            tbs_bits,
            n_re,
            n_info_x2048,
            segmentation: CodeBlockSegmentation::new(tbs_bits, base_graph),
        })
    }

    /// N_info, the unquantised information bits.
    pub fn n_info(&self) -> f64 {
        self.n_info_x2048 as f64 / f64::from(1u32 << RATE_SHIFT)
    }
}

/// The N_info ≤ 3824 branch; `n_info_x2048` = N_info · 2^11 > 0.
fn small_tbs(n_info_x2048: u64) -> u32 {
    // ⌊log2 N_info⌋ = ⌊log2(N_info · 2^11)⌋ − 11; N_info < 1 gives n = 3 either way.
    let log2 = i64::from(floor_log2(n_info_x2048.max(1))) - i64::from(RATE_SHIFT);
    let n = (log2 - 6).max(3) as u32;
    let n_info_prime = ((n_info_x2048 >> (n + RATE_SHIFT)) << n).max(24);
    *SMALL_TBS_BITS
        .iter()
        .find(|t| u64::from(**t) >= n_info_prime)
        .expect("N'_info ≤ 3824, the last entry")
}

/// The N_info > 3824 branch.
fn large_tbs(n_info_x2048: u64, rate_x2048: u32) -> u32 {
    let x = n_info_x2048 - (24 << RATE_SHIFT); // (N_info − 24) · 2^11
    let n = floor_log2(x) - RATE_SHIFT - 5;
    let shift = n + RATE_SHIFT;
    let rounded = (x + (1 << (shift - 1))) >> shift; // round((N_info − 24) / 2^n), halves up
    let n_info_prime = (rounded << n).max(3840);
    let b = n_info_prime + 24;
    let per_block = |c: u64| 8 * c * b.div_ceil(8 * c) - 24;
    let tbs = if 4 * rate_x2048 <= 2048 {
        per_block(b.div_ceil(3816))
    } else if n_info_prime > 8424 {
        per_block(b.div_ceil(8424))
    } else {
        8 * b.div_ceil(8) - 24
    };
    u32::try_from(tbs).expect("TBS below 2^32 for 275 PRBs and 4 layers")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nr::mcs::McsTable;

    fn input(n_prb: u16, n_symb: u8, n_dmrs: u16, layers: u8) -> TbsInput {
        TbsInput {
            n_prb,
            n_symb,
            n_dmrs_per_prb: n_dmrs,
            n_oh_per_prb: 0,
            layers,
        }
    }

    #[test]
    fn small_table_has_93_increasing_multiples_of_8() {
        assert_eq!(SMALL_TBS_BITS.len(), 93);
        assert!(SMALL_TBS_BITS.windows(2).all(|w| w[0] < w[1]));
        assert!(SMALL_TBS_BITS.iter().all(|t| t % 8 == 0));
    }

    #[test]
    fn spot_values() {
        // A captured 100 MHz μ=1 downlink: 273 PRBs, 13 symbols, 2 DM-RS symbols of type 1
        // (24 REs), MCS 9 of the 256QAM table, 4 layers: N_info = 346 846.5, TBS 344 376.
        let t =
            TransportBlock::new(McsTable::Qam256.row(9).unwrap(), &input(273, 13, 24, 4)).unwrap();
        assert_eq!(t.n_info(), 346_846.5);
        assert_eq!(t.tbs_bits, 344_376);
        assert_eq!(t.segmentation.code_blocks, 41);
        assert_eq!(t.segmentation.base_graph, BaseGraph::Bg1);
        // 1 PRB, 12 data REs: N_info = 12·(120/1024)·2 = 2.8 → N'_info = 24 → TBS 24.
        assert_eq!(
            tbs_bits(McsTable::Qam64.row(0).unwrap(), &input(1, 2, 12, 1)),
            Ok(24)
        );
        // 156-RE cap: 14 symbols without DM-RS count as 156, not 168.
        let capped = input(10, 14, 0, 1);
        assert_eq!(capped.n_re(), Ok(1560));
        assert!(input(1, 2, 24, 1).n_re().is_err());
        assert!(input(276, 14, 12, 1).n_re().is_err());
        assert!(input(1, 14, 12, 5).n_re().is_err());
    }
}
