//! LDPC base graph selection and code-block segmentation of a DL-SCH transport block.
//!
//! * Transport-block CRC (TS 38.212 §7.2.1): 24 bits when A > 3824, 16 bits otherwise.
//! * Base graph (TS 38.212 §7.2.2): base graph 2 if A ≤ 292, or A ≤ 3824 and R ≤ 0.67, or
//!   R ≤ 0.25; base graph 1 otherwise.
//! * Segmentation (TS 38.212 §5.2.2): B = A + L_TB; the largest code block K_cb is 8448 bits
//!   (base graph 1) or 3840 (base graph 2). If B ≤ K_cb one code block without a CRC of its
//!   own; else C = ⌈B / (K_cb − 24)⌉ blocks each with a 24-bit CRC, B' = B + 24·C, K' = B'/C.
//!   K_b = 22 for base graph 1; for base graph 2, 10 if B > 640, 9 if B > 560, 8 if B > 192,
//!   else 6. The lifting size Z is the smallest of TS 38.212 Table 5.3.2-1 with K_b · Z ≥ K';
//!   K = 22·Z (base graph 1) or 10·Z (base graph 2), and K − K' filler bits pad each block.

/// Transport blocks above this size get a 24-bit CRC and base graph 1 unless their code
/// rate is at most 1/4 (TS 38.212 §7.2.1, §7.2.2); also the limit of TS 38.214's small-TBS
/// branch.
pub const SMALL_TB_MAX_BITS: u32 = 3824;

/// The LDPC base graph of TS 38.212 §5.3.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BaseGraph {
    Bg1,
    Bg2,
}

impl BaseGraph {
    /// Base graph for a transport block of `tbs_bits` at target code rate `rate_x2048` / 2048
    /// (TS 38.212 §7.2.2). The thresholds 0.67 and 0.25 are compared exactly.
    pub fn select(tbs_bits: u32, rate_x2048: u32) -> Self {
        let r_le_067 = 100 * u64::from(rate_x2048) <= 67 * 2048;
        let r_le_025 = 4 * rate_x2048 <= 2048;
        if tbs_bits <= 292 || (tbs_bits <= SMALL_TB_MAX_BITS && r_le_067) || r_le_025 {
            BaseGraph::Bg2
        } else {
            BaseGraph::Bg1
        }
    }

    /// Maximum code block size K_cb, bits.
    pub fn max_code_block_bits(self) -> u32 {
        match self {
            BaseGraph::Bg1 => 8448,
            BaseGraph::Bg2 => 3840,
        }
    }

    /// Systematic columns of the base graph, K = columns · Z (22 or 10).
    pub fn systematic_columns(self) -> u32 {
        match self {
            BaseGraph::Bg1 => 22,
            BaseGraph::Bg2 => 10,
        }
    }
}

/// Every lifting size Z of TS 38.212 Table 5.3.2-1, ascending: a · 2^j ≤ 384 for
/// a ∈ {2, 3, 5, 7, 9, 11, 13, 15} (the eight sets i_LS = 0..=7).
pub const LIFTING_SIZES: [u32; 51] = lifting_size_table();

/// Builds [`LIFTING_SIZES`] from the set generators, then sorts it (insertion sort, in a
/// `const fn`).
const fn lifting_size_table() -> [u32; 51] {
    let generators = [2u32, 3, 5, 7, 9, 11, 13, 15];
    let mut out = [0u32; 51];
    let mut n = 0;
    let mut g = 0;
    while g < generators.len() {
        let mut z = generators[g];
        while z <= 384 {
            out[n] = z;
            n += 1;
            z *= 2;
        }
        g += 1;
    }
    assert!(n == 51, "Table 5.3.2-1 has 51 lifting sizes");
    let mut i = 1;
    while i < out.len() {
        let mut j = i;
        while j > 0 && out[j - 1] > out[j] {
            let t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
            j -= 1;
        }
        i += 1;
    }
    out
}

/// Code-block segmentation of one transport block (TS 38.212 §5.2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeBlockSegmentation {
    /// LDPC base graph.
    pub base_graph: BaseGraph,
    /// CRC bits attached to the transport block, L_TB (16 or 24).
    pub tb_crc_bits: u32,
    /// Number of code blocks C.
    pub code_blocks: u32,
    /// CRC bits attached to each code block (0 for a single block, else 24).
    pub cb_crc_bits: u32,
    /// Bits per code block before filler, K' = B' / C.
    pub k_prime: u32,
    /// Lifting size Z.
    pub lifting_size: u32,
    /// Code block length K including filler bits.
    pub k: u32,
    /// Filler bits per code block, K − K'.
    pub filler_bits: u32,
}

impl CodeBlockSegmentation {
    /// Segmentation of a transport block of `tbs_bits` with `base_graph`. For the sizes of
    /// TS 38.214 §5.1.3.2 B' divides evenly into C blocks (the TBS formula is built so);
    /// for other sizes K' is rounded up.
    pub fn new(tbs_bits: u32, base_graph: BaseGraph) -> Self {
        let tb_crc_bits = if tbs_bits > SMALL_TB_MAX_BITS { 24 } else { 16 };
        let b = tbs_bits + tb_crc_bits;
        let k_cb = base_graph.max_code_block_bits();
        let (code_blocks, cb_crc_bits) = if b <= k_cb {
            (1, 0)
        } else {
            (b.div_ceil(k_cb - 24), 24)
        };
        let b_prime = b + code_blocks * cb_crc_bits;
        let k_prime = b_prime.div_ceil(code_blocks);
        let k_b = match base_graph {
            BaseGraph::Bg1 => 22,
            BaseGraph::Bg2 if b > 640 => 10,
            BaseGraph::Bg2 if b > 560 => 9,
            BaseGraph::Bg2 if b > 192 => 8,
            BaseGraph::Bg2 => 6,
        };
        let lifting_size = *LIFTING_SIZES
            .iter()
            .find(|z| k_b * **z >= k_prime)
            .expect("K' ≤ K_cb ≤ K_b · 384 for both base graphs");
        let k = base_graph.systematic_columns() * lifting_size;
        CodeBlockSegmentation {
            base_graph,
            tb_crc_bits,
            code_blocks,
            cb_crc_bits,
            k_prime,
            lifting_size,
            k,
            filler_bits: k - k_prime,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifting_size_table() {
        let z = LIFTING_SIZES;
        assert!(z.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(&z[..10], &[2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        assert_eq!(z.last(), Some(&384));
        assert!(z.contains(&352) && z.contains(&208) && !z.contains(&17));
    }

    #[test]
    fn base_graph_selection() {
        assert_eq!(BaseGraph::select(292, 1896), BaseGraph::Bg2);
        assert_eq!(BaseGraph::select(300, 1896), BaseGraph::Bg1);
        assert_eq!(BaseGraph::select(3824, 1372), BaseGraph::Bg2); // R = 0.6699
        assert_eq!(BaseGraph::select(3824, 1373), BaseGraph::Bg1); // R = 0.6704
        assert_eq!(BaseGraph::select(100_000, 512), BaseGraph::Bg2); // R = 1/4
        assert_eq!(BaseGraph::select(100_000, 514), BaseGraph::Bg1);
    }

    #[test]
    fn segmentation_examples() {
        // One BG1 block: A = 8424 → B = 8448 = K_cb, K' = 8448, Z = 384.
        let s = CodeBlockSegmentation::new(8424, BaseGraph::Bg1);
        assert_eq!(
            (s.code_blocks, s.k_prime, s.lifting_size, s.filler_bits),
            (1, 8448, 384, 0)
        );
        // Two BG1 blocks: A = 8456 → B = 8480, C = 2, B' = 8528, K' = 4264, Z = 208 (22·208 = 4576).
        let s = CodeBlockSegmentation::new(8456, BaseGraph::Bg1);
        assert_eq!(
            (s.code_blocks, s.k_prime, s.lifting_size, s.k, s.filler_bits),
            (2, 4264, 208, 4576, 312)
        );
        // Small BG2 block: A = 24 → B = 40, K_b = 6, Z = 7 (6·7 = 42 ≥ 40), K = 70.
        let s = CodeBlockSegmentation::new(24, BaseGraph::Bg2);
        assert_eq!(
            (
                s.tb_crc_bits,
                s.code_blocks,
                s.lifting_size,
                s.k,
                s.filler_bits
            ),
            (16, 1, 7, 70, 30)
        );
    }
}
