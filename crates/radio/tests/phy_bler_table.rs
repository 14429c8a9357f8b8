//! Link-level BLER tables: parsing and validation (each error with its line), interpolation
//! checked by hand, a table sampled from the default logistic curves reproducing them (BLER and
//! link adaptation), chase combining and decoding draws on a table.

use celltcp_engine::RngStream;
use celltcp_radio::phy::{
    mcs_for_cqi, Amc, BlerModel, BlerTable, BlerTableError, ChaseCombining, Cqi, CqiTable, Mcs,
    MCS_MAX,
};

fn mcs(index: u8) -> Mcs {
    Mcs::new(index).unwrap()
}

/// Centre (10 % point) of MCS `m` in the synthetic table, dB.
fn centre_db(m: u8) -> f64 {
    -8.0 + f64::from(m)
}

/// The data lines of a valid synthetic table: MCS m has the points (c − 2, 1), (c, 0.1),
/// (c + 2, 10⁻³), (c + 3, 0) with c = −8 + m dB. Line k of the text is element k − 2 (line 1 is
/// the header).
fn synthetic_lines() -> Vec<String> {
    let mut lines = Vec::new();
    for m in 0..=MCS_MAX {
        let c = centre_db(m);
        for (offset, bler) in [(-2.0, 1.0), (0.0, 0.1), (2.0, 1e-3), (3.0, 0.0)] {
            lines.push(format!("{m},{},{bler}", c + offset));
        }
    }
    lines
}

fn text(lines: &[String]) -> String {
    let mut t = String::from("mcs,sinr_db,bler\n");
    for l in lines {
        t.push_str(l);
        t.push('\n');
    }
    t
}

/// Parses the synthetic table after replacing its data line `line` (1-based line of the text)
/// by `replacement`.
fn parse_with(line: usize, replacement: &str) -> Result<BlerTable, BlerTableError> {
    let mut lines = synthetic_lines();
    lines[line - 2] = replacement.to_string();
    BlerTable::parse(&text(&lines))
}

fn synthetic() -> BlerModel {
    BlerModel::from_table(BlerTable::parse(&text(&synthetic_lines())).unwrap())
}

#[test]
fn format_errors_carry_their_line() {
    // Line 11 is MCS 2's second point, `2,-6,0.1`.
    assert_eq!(synthetic_lines()[9], "2,-6,0.1");
    let cases: [(&str, BlerTableError); 12] = [
        ("2,-6", BlerTableError::Columns { line: 11, found: 2 }),
        ("2,-6,0.1,7", BlerTableError::Columns { line: 11, found: 4 }),
        (
            "two,-6,0.1",
            BlerTableError::NotANumber {
                line: 11,
                column: "mcs",
                value: "two".into(),
                expected: "an integer MCS index in 0..=28",
            },
        ),
        (
            "2.0,-6,0.1",
            BlerTableError::NotANumber {
                line: 11,
                column: "mcs",
                value: "2.0".into(),
                expected: "an integer MCS index in 0..=28",
            },
        ),
        (
            "2,-6dB,0.1",
            BlerTableError::NotANumber {
                line: 11,
                column: "sinr_db",
                value: "-6dB".into(),
                expected: "an SINR in dB",
            },
        ),
        (
            "2,-6,",
            BlerTableError::NotANumber {
                line: 11,
                column: "bler",
                value: "".into(),
                expected: "a block error rate in [0, 1]",
            },
        ),
        (
            "29,-6,0.1",
            BlerTableError::McsRange {
                line: 11,
                mcs: 29,
                max: 28,
                table: "TS 36.213 Table 7.1.7.1-1",
            },
        ),
        (
            "-1,-6,0.1",
            BlerTableError::McsRange {
                line: 11,
                mcs: -1,
                max: 28,
                table: "TS 36.213 Table 7.1.7.1-1",
            },
        ),
        (
            "2,-6,1.5",
            BlerTableError::BlerRange {
                line: 11,
                bler: 1.5,
            },
        ),
        (
            "2,-6,-0.1",
            BlerTableError::BlerRange {
                line: 11,
                bler: -0.1,
            },
        ),
        (
            "2,inf,0.1",
            BlerTableError::NotFinite {
                line: 11,
                column: "sinr_db",
                value: f64::INFINITY,
            },
        ),
        (
            "2,-6,-inf",
            BlerTableError::NotFinite {
                line: 11,
                column: "bler",
                value: f64::NEG_INFINITY,
            },
        ),
    ];
    for (replacement, expected) in cases {
        let e = parse_with(11, replacement).unwrap_err();
        assert_eq!(e, expected, "{replacement}");
        assert_eq!(e.line(), Some(11));
        assert!(e.to_string().starts_with("line 11: "), "{e}");
    }
    // NaN is not finite either (it compares unequal, so match the variant).
    let e = parse_with(11, "2,NaN,0.1").unwrap_err();
    assert!(
        matches!(e, BlerTableError::NotFinite { line: 11, column: "sinr_db", value } if value.is_nan()),
        "{e}"
    );
    let e = parse_with(11, "2,-6,nan").unwrap_err();
    assert!(
        matches!(
            e,
            BlerTableError::NotFinite {
                line: 11,
                column: "bler",
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(
        parse_with(11, "2,-6,1.5").unwrap_err().to_string(),
        "line 11: bler 1.5 is out of range; expected a block error rate in [0, 1]"
    );
}

#[test]
fn header_comments_blank_lines_and_empty_tables() {
    let mut lines = synthetic_lines();
    lines.insert(3, "   # a comment between points".into());
    lines.insert(7, String::new());
    lines.insert(8, "\t".into());
    let with_comments = format!(
        "\u{feff}# link-level curves\n\n  mcs , sinr_db , bler \r\n{}",
        text(&lines).trim_start_matches("mcs,sinr_db,bler\n")
    );
    let a = BlerTable::parse(&with_comments).unwrap();
    let b = BlerTable::parse(&text(&synthetic_lines())).unwrap();
    assert_eq!(a, b);

    let e = BlerTable::parse("# curves\nmcs,bler,sinr_db\n0,-6,1\n").unwrap_err();
    assert_eq!(
        e,
        BlerTableError::Header {
            line: 2,
            found: "mcs,bler,sinr_db".into()
        }
    );
    // Without a header the first point is reported as a bad header.
    let e = BlerTable::parse(&synthetic_lines().join("\n")).unwrap_err();
    assert_eq!(e.line(), Some(1));
    assert_eq!(BlerTable::parse(""), Err(BlerTableError::Empty));
    assert_eq!(BlerTable::parse("\n# none\n"), Err(BlerTableError::Empty));
    assert_eq!(
        BlerTable::parse("# none\nmcs,sinr_db,bler\n\n"),
        Err(BlerTableError::Empty)
    );
    assert_eq!(BlerTableError::Empty.line(), None);
}

#[test]
fn curve_errors_carry_their_line() {
    // MCS 2's points are lines 10–13: (−8, 1), (−6, 0.1), (−4, 10⁻³), (−3, 0).
    // Duplicate SINR: MCS 2's third point moved onto its second's SINR.
    assert_eq!(
        parse_with(12, "2,-6,0.001").unwrap_err(),
        BlerTableError::DuplicateSinr {
            line: 12,
            first_line: 11,
            mcs: 2,
            sinr_db: -6.0
        }
    );
    // A duplicate given out of order, lines apart: the later line is reported.
    let mut lines = synthetic_lines();
    lines.push("0,-8,0.2".into());
    let n = lines.len() + 1;
    assert_eq!(
        BlerTable::parse(&text(&lines)).unwrap_err(),
        BlerTableError::DuplicateSinr {
            line: n,
            first_line: 3,
            mcs: 0,
            sinr_db: -8.0
        }
    );
    // BLER rising with SINR: MCS 2's 10⁻³ point raised above the 0.1 before it.
    let e = parse_with(12, "2,-4,0.2").unwrap_err();
    assert_eq!(
        e,
        BlerTableError::NotMonotone {
            line: 12,
            mcs: 2,
            sinr_db: -4.0,
            bler: 0.2,
            lower_line: 11,
            lower_sinr_db: -6.0,
            lower_bler: 0.1
        }
    );
    assert!(
        e.to_string()
            .contains("line 12: MCS 2 has BLER 0.2 at -4 dB"),
        "{e}"
    );
    // A curve of one point: MCS 28 keeps one of its four.
    let mut lines = synthetic_lines();
    let last = lines.len();
    lines.truncate(last - 3);
    let n = lines.len() + 1;
    assert_eq!(
        BlerTable::parse(&text(&lines)).unwrap_err(),
        BlerTableError::TooFewPoints { line: n, mcs: 28 }
    );
    // A curve starting at or below the target: MCS 2's first point lowered to 0.1.
    assert_eq!(
        parse_with(10, "2,-8,0.1").unwrap_err(),
        BlerTableError::StartsBelowTarget {
            line: 10,
            mcs: 2,
            sinr_db: -8.0,
            bler: 0.1
        }
    );
    // A curve never reaching the target: MCS 2's last three points (lines 11–13) at 0.5.
    let mut lines = synthetic_lines();
    for line in 11..=13 {
        lines[line - 2] = format!("2,{},0.5", -7.0 + (line as f64 - 11.0));
    }
    let e = BlerTable::parse(&text(&lines)).unwrap_err();
    assert_eq!(
        e,
        BlerTableError::NeverReachesTarget {
            line: 13,
            mcs: 2,
            sinr_db: -5.0,
            bler: 0.5
        }
    );
}

#[test]
fn table_wide_errors() {
    // MCS 3 and 17 missing.
    let lines: Vec<String> = synthetic_lines()
        .into_iter()
        .filter(|l| !l.starts_with("3,") && !l.starts_with("17,"))
        .collect();
    let e = BlerTable::parse(&text(&lines)).unwrap_err();
    assert_eq!(
        e,
        BlerTableError::MissingMcs {
            mcs: vec![3, 17],
            max: 28
        }
    );
    assert_eq!(e.line(), None);
    assert_eq!(
        e.to_string(),
        "no curve for MCS 3, 17; expected at least 2 points for every MCS in 0..=28"
    );
    // 10 % points not increasing: MCS 5's curve moved 1.5 dB below its own centre, under
    // MCS 4's. Its 10 % point is line 23 (MCS 5's second point).
    let mut lines = synthetic_lines();
    let c = centre_db(5) - 1.5;
    for (k, (offset, bler)) in [(-2.0, 1.0), (0.0, 0.1), (2.0, 1e-3), (3.0, 0.0)]
        .into_iter()
        .enumerate()
    {
        lines[20 + k] = format!("5,{},{bler}", c + offset);
    }
    assert_eq!(lines[20 + 1], "5,-4.5,0.1");
    assert_eq!(
        BlerTable::parse(&text(&lines)).unwrap_err(),
        BlerTableError::ThresholdOrder {
            line: 23,
            mcs: 5,
            sinr10_db: -4.5,
            lower_mcs: 4,
            lower_sinr10_db: -4.0
        }
    );
    // Equal 10 % points are rejected too (strictly increasing, as `from_thresholds`).
    let mut lines = synthetic_lines();
    for (k, (offset, bler)) in [(-2.0, 1.0), (0.0, 0.1), (2.0, 1e-3), (3.0, 0.0)]
        .into_iter()
        .enumerate()
    {
        lines[20 + k] = format!("5,{},{bler}", centre_db(4) + offset);
    }
    assert!(matches!(
        BlerTable::parse(&text(&lines)),
        Err(BlerTableError::ThresholdOrder { mcs: 5, .. })
    ));
}

#[test]
fn from_path_names_the_file() {
    let dir = std::env::temp_dir().join(format!("celltcp-bler-table-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.csv");
    std::fs::write(&good, text(&synthetic_lines())).unwrap();
    assert_eq!(
        BlerTable::from_path(&good).unwrap(),
        BlerTable::parse(&text(&synthetic_lines())).unwrap()
    );
    let bad = dir.join("bad.csv");
    let mut lines = synthetic_lines();
    lines[3] = "0,-5,1.2".into();
    std::fs::write(&bad, text(&lines)).unwrap();
    let e = BlerTable::from_path(&bad).unwrap_err();
    assert_eq!(e.line(), Some(5));
    assert!(
        e.to_string()
            .starts_with(&format!("{}: line 5: bler 1.2", bad.display())),
        "{e}"
    );
    let missing = dir.join("missing.csv");
    let e = BlerTable::from_path(&missing).unwrap_err();
    assert!(matches!(e, BlerTableError::Io { .. }), "{e}");
    assert!(e.to_string().contains("missing.csv"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn interpolation_by_hand() {
    let m = synthetic();
    assert!(m.table().is_some());
    assert!(BlerModel::default().table().is_none());
    for mcs in Mcs::all() {
        let c = centre_db(mcs.get());
        // At the points.
        assert_eq!(m.bler(mcs, c - 2.0), 1.0);
        assert_eq!(m.bler(mcs, c), 0.1);
        assert_eq!(m.bler(mcs, c + 2.0), 1e-3);
        assert_eq!(m.bler(mcs, c + 3.0), 0.0);
        // Between: log10 BLER linear. From (c−2, 0) to (c, −1): at c − 1.5, −0.25.
        let b = m.bler(mcs, c - 1.5);
        assert!((b - 0.562_341_325_190_349).abs() < 1e-12, "{b}");
        // From (c, −1) to (c+2, −3): at c + 1, −2 → 0.01; at c + 0.5, −1.5.
        assert!((m.bler(mcs, c + 1.0) - 0.01).abs() < 1e-14);
        assert!((m.bler(mcs, c + 0.5) - 0.031_622_776_601_683_8).abs() < 1e-14);
        // Towards the zero point, linear in BLER: at c + 2.25, 10⁻³·0.75.
        assert!((m.bler(mcs, c + 2.25) - 7.5e-4).abs() < 1e-15);
        // Outside the points: the end points' BLER, at any SINR.
        assert_eq!(m.bler(mcs, c - 30.0), 1.0);
        assert_eq!(m.bler(mcs, c + 30.0), 0.0);
        assert_eq!(m.bler(mcs, f64::NEG_INFINITY), 1.0);
        assert_eq!(m.bler(mcs, f64::INFINITY), 0.0);
        assert_eq!(m.bler(mcs, f64::NAN), 1.0);
        // Threshold and inverse.
        assert_eq!(m.sinr10_db(mcs), c);
        assert!((m.sinr_db_for_bler(mcs, 0.01).unwrap() - (c + 1.0)).abs() < 1e-12);
        assert_eq!(m.sinr_db_for_bler(mcs, 1.0), Ok(f64::NEG_INFINITY));
        assert_eq!(m.sinr_db_for_bler(mcs, 0.0), Ok(c + 3.0));
    }
    // Every curve falls from 10 % to 1 % in 1 dB.
    assert!((m.decade_db() - 1.0).abs() < 1e-12);
    assert!(m.sinr_db_for_bler(Mcs::MIN, 1.5).is_err());
    assert!(m.sinr_db_for_bler(Mcs::MIN, f64::NAN).is_err());
}

#[test]
fn a_table_whose_curves_stop_above_one_percent_has_no_decade() {
    // Each curve ends at BLER 0.05: it reaches the 10 % target but never 1 %.
    let mut t = String::from("mcs,sinr_db,bler\n");
    for m in 0..=MCS_MAX {
        let c = centre_db(m);
        t.push_str(&format!("{m},{},0.5\n{m},{},0.05\n", c - 1.0, c + 1.0));
    }
    let m = BlerModel::from_table(BlerTable::parse(&t).unwrap());
    assert!(m.decade_db().is_nan());
    assert_eq!(m.sinr_db_for_bler(mcs(3), 0.01), Ok(f64::INFINITY));
    // Above the last point the BLER stays at the last point's.
    assert_eq!(m.bler(mcs(3), 50.0), 0.05);
}

#[test]
fn points_in_any_order_and_csv_round_trip() {
    let mut lines = synthetic_lines();
    lines.reverse();
    let shuffled = BlerTable::parse(&text(&lines)).unwrap();
    let sorted = BlerTable::parse(&text(&synthetic_lines())).unwrap();
    assert_eq!(shuffled, sorted);
    let points: Vec<(f64, f64)> = sorted.points(mcs(4)).collect();
    assert_eq!(
        points,
        vec![(-6.0, 1.0), (-4.0, 0.1), (-2.0, 1e-3), (-1.0, 0.0)]
    );
    let dense = dense_default_table();
    assert_eq!(BlerTable::parse(&dense.to_csv()).unwrap(), dense);
}

/// SINR grid step of the table sampled from the default curves, dB.
const GRID_DB: f64 = 0.05;

/// A table sampled from `BlerModel::default()` on a 0.05 dB grid (absolute, so not aligned
/// with the thresholds) spanning each threshold ± 10 dB.
fn dense_default_table() -> BlerTable {
    let d = BlerModel::default();
    let mut t = String::from("mcs,sinr_db,bler\n");
    for mcs in Mcs::all() {
        let s10 = d.sinr10_db(mcs);
        let first = ((s10 - 10.0) / GRID_DB).floor() as i64;
        let last = ((s10 + 10.0) / GRID_DB).ceil() as i64;
        for k in first..=last {
            let s = k as f64 * GRID_DB;
            t.push_str(&format!("{mcs},{s},{}\n", d.bler(mcs, s)));
        }
    }
    BlerTable::parse(&t).unwrap()
}

#[test]
fn a_dense_table_of_the_default_curves_reproduces_them() {
    let d = BlerModel::default();
    let t = BlerModel::from_table(dense_default_table());
    let mut rng = RngStream::new(7, 0, "phy/bler_table/dense");
    let mut worst: f64 = 0.0;
    for mcs in Mcs::all() {
        for _ in 0..2000 {
            let s = rng.uniform(-15.0, 35.0);
            let err = (t.bler(mcs, s) - d.bler(mcs, s)).abs();
            worst = worst.max(err);
            assert!(err < 1e-3, "MCS {mcs} at {s} dB: {err}");
        }
        let ds = (t.sinr10_db(mcs) - d.sinr10_db(mcs)).abs();
        assert!(ds < 1e-3, "MCS {mcs}: 10 % point off by {ds} dB");
    }
    assert!(
        worst > 0.0,
        "the table is interpolated, not the logistic itself"
    );
    assert!((t.decade_db() - d.decade_db()).abs() < 1e-3);

    // Link adaptation picks the same CQI from −10 to 30 dB, except within 0.05 dB of a
    // threshold of the default curves.
    let (amc_d, amc_t) = (Amc::new(d.clone()), Amc::new(t.clone()));
    let thresholds: Vec<f64> = Cqi::in_range()
        .map(|cqi| d.sinr10_db(mcs_for_cqi(cqi).unwrap()))
        .collect();
    let mut compared = 0;
    for tenth_db in -100..=300 {
        let s = f64::from(tenth_db) / 10.0;
        if thresholds.iter().any(|th| (s - th).abs() < 0.05) {
            continue;
        }
        compared += 1;
        assert_eq!(amc_t.cqi_for_sinr(s), amc_d.cqi_for_sinr(s), "{s} dB");
        assert_eq!(amc_t.mcs_for_sinr(s), amc_d.mcs_for_sinr(s), "{s} dB");
    }
    assert!(compared > 380, "{compared}");
}

#[test]
fn link_adaptation_on_a_table_meets_the_target() {
    let m = synthetic();
    let amc = Amc::new(m.clone());
    assert_eq!(amc.cqi_for_sinr(-30.0), Cqi::OUT_OF_RANGE);
    assert_eq!(amc.cqi_for_sinr(40.0), Cqi::MAX);
    for tenth_db in -150..=300 {
        let s = f64::from(tenth_db) / 10.0;
        let cqi = amc.cqi_for_sinr(s);
        if let Some(mcs) = mcs_for_cqi(cqi) {
            assert!(m.bler(mcs, s) <= 0.1 + 1e-12, "{s} dB");
        }
        if cqi < Cqi::MAX {
            let next = mcs_for_cqi(Cqi::new(cqi.get() + 1).unwrap()).unwrap();
            assert!(m.bler(next, s) > 0.1, "{s} dB");
        }
    }
    // CQI c maps to MCS 2(c − 1), whose 10 % point is −8 + 2(c − 1) dB.
    assert_eq!(amc.cqi_for_sinr(-8.0 + 16.0).get(), 9);
    assert_eq!(amc.cqi_for_sinr(-8.0 + 16.0 - 1e-9).get(), 8);
}

#[test]
fn chase_combining_reads_the_combined_sinr_off_the_table() {
    let m = synthetic();
    let mcs = mcs(12);
    let c = centre_db(mcs.get());
    let mut comb = ChaseCombining::new();
    assert_eq!(m.bler_combined(mcs, &comb), 1.0);
    comb.add_transmission(c - 1.0);
    comb.add_transmission(c - 1.0);
    // Two equal transmissions: c − 1 + 3.0103 dB = c + 2.0103, past the 10⁻³ point on the
    // segment linear in BLER: 10⁻³·(1 − 0.0103).
    let expected = 1e-3 * (1.0 - (10.0 * 2f64.log10() - 3.0));
    assert!((m.bler_combined(mcs, &comb) - expected).abs() < 1e-12);
    assert_eq!(
        m.bler_combined(mcs, &comb),
        m.bler(mcs, comb.effective_sinr_db())
    );
}

#[test]
fn decoding_draws_match_the_table_bler() {
    let m = synthetic();
    let mcs = mcs(20);
    // Between points: c − 1 is halfway from (c−2, 1) to (c, 0.1) in log10, BLER 10^−0.5.
    let s = centre_db(mcs.get()) - 1.0;
    let p = m.bler(mcs, s);
    assert!((p - 0.316_227_766_016_838).abs() < 1e-12);
    let n = 100_000;
    let mut rng = RngStream::new(11, 0, "phy/bler_table/draws");
    let lost = (0..n).filter(|_| !m.is_decoded(mcs, s, &mut rng)).count();
    let rate = lost as f64 / n as f64;
    let sigma = (p * (1.0 - p) / n as f64).sqrt();
    assert!((rate - p).abs() < 4.0 * sigma, "{rate} vs {p} ± {sigma}");
}

#[test]
fn one_uniform_per_decoding_draw_in_both_forms() {
    let forms = [BlerModel::default(), synthetic()];
    let mut next = Vec::new();
    for m in &forms {
        let mut rng = RngStream::new(5, 1, "phy/bler_table/alignment");
        for k in 0..1000u32 {
            // SINRs across, below and above every curve, and NaN.
            let s = if k % 97 == 0 {
                f64::NAN
            } else {
                -40.0 + 0.08 * f64::from(k)
            };
            m.is_decoded(mcs((k % 29) as u8), s, &mut rng);
        }
        next.push(rng.next_u64());
    }
    assert_eq!(next[0], next[1]);
    let mut fresh = RngStream::new(5, 1, "phy/bler_table/alignment");
    for _ in 0..1000 {
        fresh.next_f64();
    }
    assert_eq!(fresh.next_u64(), next[0]);
}

#[test]
fn logistic_inverse_matches_its_curve() {
    let d = BlerModel::default();
    for mcs in [0, 9, 28].map(mcs) {
        for b in [0.9, 0.5, 0.1, 0.01, 1e-4] {
            let s = d.sinr_db_for_bler(mcs, b).unwrap();
            assert!((d.bler(mcs, s) - b).abs() < 1e-12 * b.max(1e-3) / 1e-3);
        }
        assert_eq!(d.sinr_db_for_bler(mcs, 0.1), Ok(d.sinr10_db(mcs)));
        assert!((d.sinr_db_for_bler(mcs, 0.01).unwrap() - d.sinr10_db(mcs) - 1.0).abs() < 1e-12);
        assert_eq!(d.sinr_db_for_bler(mcs, 1.0), Ok(f64::NEG_INFINITY));
        assert_eq!(d.sinr_db_for_bler(mcs, 0.0), Ok(f64::INFINITY));
    }
    assert!(d.sinr_db_for_bler(Mcs::MIN, -0.1).is_err());
}

#[test]
fn a_table_read_as_a_stream_equals_its_text_with_any_line_end() {
    let sampled = BlerModel::default();
    let mut lines = synthetic_lines();
    lines.insert(0, "# a comment".into());
    let plain = text(&lines);
    let expected = BlerTable::parse(&plain).unwrap();
    for variant in [
        plain.clone(),
        plain.replace('\n', "\r\n"),
        plain.trim_end().to_owned(),
        format!("\u{feff}{}", plain.replace('\n', "\r\n").trim_end()),
    ] {
        for capacity in [1, 5, 8192] {
            // Small buffers put line ends and characters across reads.
            let reader = std::io::BufReader::with_capacity(capacity, variant.as_bytes());
            assert_eq!(
                BlerTable::from_reader(reader).unwrap(),
                expected,
                "{capacity}"
            );
        }
    }
    // A table written by `to_csv` reads back the same through a stream.
    let dense = {
        let mut csv = String::from("mcs,sinr_db,bler\n");
        for mcs in Mcs::all() {
            let s10 = sampled.sinr10_db(mcs);
            for k in -8..=8 {
                let sinr = s10 + f64::from(k) * 0.5;
                csv.push_str(&format!("{mcs},{sinr:?},{:?}\n", sampled.bler(mcs, sinr)));
            }
        }
        BlerTable::parse(&csv).unwrap()
    };
    let csv = dense.to_csv();
    assert_eq!(BlerTable::from_reader(csv.as_bytes()).unwrap(), dense);
}

#[test]
fn lines_beyond_the_bound_and_bytes_that_are_not_text_name_their_line() {
    let mut lines = synthetic_lines();
    lines[2] = format!("0,{},0.5", "1".repeat(100_000));
    let e = BlerTable::parse(&text(&lines)).unwrap_err();
    assert_eq!(e.line(), Some(4));
    assert_eq!(
        e.to_string(),
        "line 4: more than 4096 bytes without a line end; expected the header \
         `mcs,sinr_db,bler`, then one `MCS,SINR_dB,BLER` point per line"
    );
    // An endless stream without a line end is refused after its first 4 KiB.
    let e = BlerTable::from_reader(std::io::BufReader::new(std::io::repeat(b','))).unwrap_err();
    assert_eq!(e.line(), Some(1));
    let e = BlerTable::from_reader(&b"mcs,sinr_db,bler\n0,\xff,1\n"[..]).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("line 2: not UTF-8 text (byte 2 of the line)"),
        "{e}"
    );
    // Values echoed in a message are cut to 40 characters.
    let e = parse_with(3, &format!("0,{},0.5", "x".repeat(1000))).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "line 3: sinr_db `{}…` is not a number; expected an SINR in dB",
            "x".repeat(40)
        )
    );
}

#[test]
fn a_table_for_the_256qam_cqi_table_has_the_mcss_of_table_7_1_7_1_1a() {
    // The synthetic curves of MCS 0..=27 are a complete table for Table 7.1.7.1-1A …
    let lines: Vec<String> = synthetic_lines()
        .into_iter()
        .filter(|l| !l.starts_with("28,"))
        .collect();
    let t = BlerTable::parse_for(CqiTable::Table2, &text(&lines)).unwrap();
    assert_eq!(t.cqi_table(), CqiTable::Table2);
    let m = BlerModel::from_table(t);
    assert_eq!(m.cqi_table(), CqiTable::Table2);
    let amc = Amc::new(m.clone());
    assert_eq!(amc.mcs_for_cqi(Cqi::MAX), Some(mcs(27)));
    assert!(m.sinr10_db(mcs(27)) > m.sinr10_db(mcs(26)));
    // … where MCS 28 does not exist, and which Table 7.1.7.1-1 finds incomplete.
    let e = BlerTable::parse_for(CqiTable::Table2, &text(&synthetic_lines())).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "line {}: mcs 28 is out of range; expected an MCS index in 0..=27 (TS 36.213 Table \
             7.1.7.1-1A)",
            2 + 28 * 4
        )
    );
    let e = BlerTable::parse(&text(&lines)).unwrap_err();
    assert!(
        matches!(e, BlerTableError::MissingMcs { ref mcs, max: 28 } if mcs == &vec![28]),
        "{e}"
    );
}
