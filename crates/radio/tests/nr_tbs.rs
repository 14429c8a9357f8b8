//! The NR transport block size against a second, independent reading of TS 38.214 §5.1.3.2
//! and TS 38.212 §5.2.2 / §7.2.2, written here literally in floating point (the library works
//! in integers), over the whole space the TBS depends on: every MCS table and data MCS, 1..=273
//! PRBs, 1..=4 layers, and every per-PRB RE count that 2..=14 symbols, every DM-RS set-up
//! (type 1/2, single/double symbol, additional positions, CDM groups without data, mapping
//! type A/B) and every xOverhead produce.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use celltcp_radio::nr::dmrs::{
    DmrsConfig, DmrsConfigType, DmrsMaxLength, PdschMappingType, PdschTimeAllocation, XOverhead,
};
use celltcp_radio::nr::ldpc::BaseGraph;
use celltcp_radio::nr::mcs::{McsRow, McsTable};
use celltcp_radio::nr::tbs::{TbsInput, TransportBlock};
use proptest::prelude::*;

/// Table 5.1.3.2-1, typed in again from the specification.
const TABLE_5_1_3_2_1: &str = "24 32 40 48 56 64 72 80 88 96 104 112 120 128 136 144 152 160 168 \
    176 184 192 208 224 240 256 272 288 304 320 336 352 368 384 408 432 456 480 504 528 552 576 \
    608 640 672 704 736 768 808 848 888 928 984 1032 1064 1128 1160 1192 1224 1256 1288 1320 \
    1352 1416 1480 1544 1608 1672 1736 1800 1864 1928 2024 2088 2152 2216 2280 2408 2472 2536 \
    2600 2664 2728 2792 2856 2976 3104 3240 3368 3496 3624 3752 3824";

static SMALL_TBS: LazyLock<Vec<f64>> = LazyLock::new(|| {
    TABLE_5_1_3_2_1
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect()
});

/// §5.1.3.2 step by step, in f64 as the clause is written.
fn reference_tbs(qm: f64, r: f64, n_re_prime: f64, n_prb: f64, layers: f64) -> u64 {
    let n_re = n_re_prime.min(156.0) * n_prb;
    let n_info = n_re * r * qm * layers;
    if n_info <= 3824.0 {
        let n = (n_info.log2().floor() - 6.0).max(3.0);
        let n_info_prime = (2f64.powi(n as i32) * (n_info / 2f64.powi(n as i32)).floor()).max(24.0);
        for tbs in SMALL_TBS.iter() {
            if *tbs >= n_info_prime {
                return *tbs as u64;
            }
        }
        unreachable!("N'_info ≤ 3824");
    }
    let n = (n_info - 24.0).log2().floor() - 5.0;
    let n_info_prime =
        (2f64.powi(n as i32) * ((n_info - 24.0) / 2f64.powi(n as i32)).round()).max(3840.0);
    let tbs = if r <= 0.25 {
        let c = ((n_info_prime + 24.0) / 3816.0).ceil();
        8.0 * c * ((n_info_prime + 24.0) / (8.0 * c)).ceil() - 24.0
    } else if n_info_prime > 8424.0 {
        let c = ((n_info_prime + 24.0) / 8424.0).ceil();
        8.0 * c * ((n_info_prime + 24.0) / (8.0 * c)).ceil() - 24.0
    } else {
        8.0 * ((n_info_prime + 24.0) / 8.0).ceil() - 24.0
    };
    tbs as u64
}

/// TS 38.212 §7.2.2 and §5.2.2 literally: (base graph 1?, C, K', Z, K).
fn reference_segmentation(a: u64, r: f64) -> (bool, u64, u64, u64, u64) {
    let bg2 = a <= 292 || (a <= 3824 && r <= 0.67) || r <= 0.25;
    let l_tb = if a > 3824 { 24 } else { 16 };
    let b = a + l_tb;
    let k_cb = if bg2 { 3840 } else { 8448 };
    let (c, b_prime) = if b <= k_cb {
        (1, b)
    } else {
        let c = (b as f64 / (k_cb - 24) as f64).ceil() as u64;
        (c, b + c * 24)
    };
    assert_eq!(
        b_prime % c,
        0,
        "B' = {b_prime} does not split into {c} equal blocks"
    );
    let k_prime = b_prime / c;
    let k_b = if !bg2 {
        22
    } else if b > 640 {
        10
    } else if b > 560 {
        9
    } else if b > 192 {
        8
    } else {
        6
    };
    // Table 5.3.2-1 row by row: the smallest Z of any set with K_b · Z ≥ K'.
    let sets: [&[u64]; 8] = [
        &[2, 4, 8, 16, 32, 64, 128, 256],
        &[3, 6, 12, 24, 48, 96, 192, 384],
        &[5, 10, 20, 40, 80, 160, 320],
        &[7, 14, 28, 56, 112, 224],
        &[9, 18, 36, 72, 144, 288],
        &[11, 22, 44, 88, 176, 352],
        &[13, 26, 52, 104, 208],
        &[15, 30, 60, 120, 240],
    ];
    let z = sets
        .iter()
        .flat_map(|s| s.iter())
        .copied()
        .filter(|z| k_b * z >= k_prime)
        .min()
        .unwrap();
    let k = if bg2 { 10 * z } else { 22 * z };
    (!bg2, c, k_prime, z, k)
}

fn all_dmrs() -> Vec<DmrsConfig> {
    let mut all = Vec::new();
    for config_type in [DmrsConfigType::Type1, DmrsConfigType::Type2] {
        for max_length in [DmrsMaxLength::Single, DmrsMaxLength::Double] {
            for additional_position in 0..=3 {
                for cdm_groups_without_data in 1..=3 {
                    all.push(DmrsConfig {
                        config_type,
                        max_length,
                        additional_position,
                        cdm_groups_without_data,
                    });
                }
            }
        }
    }
    all
}

/// Every (N_symb, N_DMRS, N_oh) of 2..=14 symbols from the slot start (type A) or as a
/// mini-slot (type B), every valid DM-RS set-up and every xOverhead.
fn allocations() -> Vec<(u8, u16, u16)> {
    let mut out = BTreeSet::new();
    for length in 2..=14u8 {
        for mapping in [PdschMappingType::TypeA, PdschMappingType::TypeB] {
            let Ok(alloc) = PdschTimeAllocation::new(mapping, 0, length) else {
                continue;
            };
            for dmrs in all_dmrs() {
                let Ok(n_dmrs) = dmrs.res_per_prb(&alloc) else {
                    continue;
                };
                for x in XOverhead::ALL {
                    out.insert((length, n_dmrs, x.res_per_prb()));
                }
            }
        }
    }
    out.into_iter().collect()
}

static ALLOCATIONS: LazyLock<Vec<(u8, u16, u16)>> = LazyLock::new(allocations);

fn check(row: McsRow, n_prb: u16, layers: u8, (n_symb, n_dmrs, n_oh): (u8, u16, u16)) {
    let input = TbsInput {
        n_prb,
        n_symb,
        n_dmrs_per_prb: n_dmrs,
        n_oh_per_prb: n_oh,
        layers,
    };
    let n_re_prime = 12 * i64::from(n_symb) - i64::from(n_dmrs) - i64::from(n_oh);
    let got = TransportBlock::new(row, &input);
    if n_re_prime < 1 {
        assert!(got.is_err(), "{input:?}");
        return;
    }
    let tb = got.unwrap();
    let r = row.rate_x1024() / 1024.0;
    let want = reference_tbs(
        f64::from(row.qm()),
        r,
        n_re_prime as f64,
        f64::from(n_prb),
        f64::from(layers),
    );
    assert_eq!(u64::from(tb.tbs_bits), want, "{row:?} {input:?}");
    let (bg1, c, k_prime, z, k) = reference_segmentation(want, r);
    let s = tb.segmentation;
    assert_eq!(
        (
            s.base_graph == BaseGraph::Bg1,
            u64::from(s.code_blocks),
            u64::from(s.k_prime)
        ),
        (bg1, c, k_prime),
        "{row:?} {input:?}"
    );
    assert_eq!(
        (u64::from(s.lifting_size), u64::from(s.k)),
        (z, k),
        "{row:?} {input:?}"
    );
    assert_eq!(s.filler_bits, s.k - s.k_prime);
}

/// The exhaustive sweep. The TBS depends on the symbols, DM-RS and xOverhead only through
/// N'_RE, so one allocation per distinct N'_RE (capped at 156) covers every combination; the
/// proptest below draws the combinations themselves.
#[test]
fn tbs_matches_the_reference_over_the_whole_space() {
    let mut by_re = std::collections::BTreeMap::new();
    for a in ALLOCATIONS.iter().copied() {
        let re = (12 * i64::from(a.0) - i64::from(a.1) - i64::from(a.2)).min(156);
        by_re.entry(re).or_insert(a);
    }
    // Symbols come in 12 REs, DM-RS in 4 or 6, xOverhead in 6: 81 distinct values in 1..=156.
    assert_eq!(by_re.len(), 81);
    let mut cases = 0u64;
    for table in McsTable::ALL {
        for row in table.rows() {
            for n_prb in 1..=273 {
                for layers in 1..=4 {
                    for a in by_re.values() {
                        check(*row, n_prb, layers, *a);
                        cases += 1;
                    }
                }
            }
        }
    }
    assert_eq!(cases, 86 * 273 * 4 * 81);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    /// Random points of the raw space: the combination of symbols, DM-RS and xOverhead, not
    /// only its N'_RE.
    #[test]
    fn tbs_matches_the_reference_on_raw_inputs(
        table in 0..3usize,
        mcs in 0..29usize,
        n_prb in 1..=273u16,
        layers in 1..=4u8,
        alloc in 0..ALLOCATIONS.len(),
    ) {
        let table = McsTable::ALL[table];
        let row = table.rows()[mcs % table.rows().len()];
        check(row, n_prb, layers, ALLOCATIONS[alloc]);
    }
}
