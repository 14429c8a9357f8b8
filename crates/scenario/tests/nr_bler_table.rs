//! `[cells.NAME] bler_table` on an NR cell (`rat = "nr"`): link-level curves of the MCSs of its
//! `nr.mcs_table` (TS 38.214 Table 5.1.3.1-1 here, I_MCS 0..=28) replace the default curves of
//! `nr/link.rs`. A table sampled from the default curves reproduces a run without one; curves
//! 3 dB higher lower the MCS and the throughput; bad files are refused with the key, the file
//! and the line.

#[path = "lte_support/keys.rs"]
mod keys;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use celltcp_radio::channel::noise_power_dbm;
use celltcp_radio::nr::{McsTable, NrBlerModel};
use celltcp_scenario::{load_path, run, RunOptions};
use keys::*;
use serde_json::Value;

/// A fresh directory for one test's files.
fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "celltcp-nr-bler-table-{}-{test}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The default curves of `table` sampled every 0.05 dB over ±10 dB around each MCS's 10 %
/// point, shifted by `shift_db`, in the CSV the reader takes.
fn sampled_default_curves(table: McsTable, shift_db: f64) -> String {
    let model = NrBlerModel::for_table(table);
    let mut csv = format!("# NrBlerModel::for_table({table}), every 0.05 dB\nmcs,sinr_db,bler\n");
    for mcs in 0..=table.max_index() {
        let s10 = model.sinr10_db(mcs).unwrap();
        for k in -200..=200 {
            let sinr = s10 + f64::from(k) * 0.05;
            let bler = model.bler(mcs, sinr).unwrap();
            writeln!(csv, "{mcs},{:?},{bler:?}", sinr + shift_db).unwrap();
        }
    }
    csv
}

/// Writes `text` as `scenario.toml` and `table` (if any) as `curves.csv` in `d`, loads the
/// scenario from the file with `overrides`, and runs it; the summary, or the loader's message.
fn load_in(
    d: &Path,
    text: &str,
    table: Option<&str>,
    overrides: &[(&str, &str)],
) -> Result<Value, String> {
    if let Some(t) = table {
        std::fs::write(d.join("curves.csv"), t).unwrap();
    }
    let path = d.join("scenario.toml");
    std::fs::write(&path, text).unwrap();
    let over: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let sc = load_path(&path, &over).map_err(|e| e.to_string())?;
    Ok(run(&sc, &RunOptions::default()).unwrap().summary)
}

/// PRBs of the cell's 10 MHz carrier at 15 kHz (TS 38.101-1 Table 5.3.2-1).
const N_RB: u32 = 52;

/// An NR FDD cell of 10 MHz at 15 kHz whose one UE, within 10 m, sees exactly `sinr_db`
/// (log-distance path loss clamped to its 10 m reference, no shadowing, fading or
/// interference), with a 40 Mb/s UDP download (above the cell's rate), for 2 s; `extra` adds
/// lines to `[cells.c]`.
fn nr_cell(sinr_db: f64, extra: &str) -> String {
    let pl0 = 46.0 - noise_power_dbm(N_RB, 9.0).unwrap() - sinr_db;
    let cell = format!(
        "rat = \"nr\"\npathloss = \"log_distance\"\npl0_db = {pl0:?}\nd0_m = 10.0\n\
         exponent = 3.0\n{extra}\n\n[cells.c.nr]\nnumerology = 0\nbandwidth_mhz = 10\n\
         mcs_table = \"qam64\""
    );
    scenario(
        "2s",
        &cell,
        &[("ue", 5.0, "")],
        &udp("u", "server", "ue", "40Mbps", "1200B", ""),
    )
}

#[test]
fn a_table_sampled_from_the_default_curves_reproduces_a_run_without_one() {
    let d = dir("sampled");
    let plain = load_in(&d, &nr_cell(15.0, ""), None, &[]).unwrap();
    let tabled = load_in(
        &d,
        &nr_cell(15.0, "bler_table = \"curves.csv\""),
        Some(&sampled_default_curves(McsTable::Qam64, 0.0)),
        &[],
    )
    .unwrap();
    let echoed = tabled["scenario"]["cells"]["c"]["bler_table"]
        .as_str()
        .unwrap();
    assert_eq!(Path::new(echoed), d.join("curves.csv"));
    // Everything but the echo of the key is the same, byte for byte: at the UE's SINR the
    // interpolated table and the logistic curves differ by less than the gap between a
    // uniform draw and the BLER it is compared with, in every draw of this run (each decode
    // draws exactly one uniform, so the streams stay aligned). Not exact by construction:
    // between two samples the table is linear in log10 BLER, the logistic curve is not.
    let mut without_key = tabled.clone();
    without_key["scenario"]["cells"]["c"]
        .as_object_mut()
        .unwrap()
        .remove("bler_table");
    assert_eq!(
        serde_json::to_string(&without_key).unwrap(),
        serde_json::to_string(&plain).unwrap()
    );
}

#[test]
fn curves_shifted_up_lower_the_mcs_and_the_throughput_at_a_fixed_sinr() {
    // Measured (2026-12-03): at 15 dB the default curves give CQI 11 and MCS 20, 22.163 Mb/s
    // of RLC throughput; every curve 3 dB higher gives CQI 10 and MCS 18, 18.228 Mb/s (−18 %).
    let d = dir("shifted");
    let text = nr_cell(15.0, "bler_table = \"curves.csv\"");
    let default = load_in(
        &d,
        &text,
        Some(&sampled_default_curves(McsTable::Qam64, 0.0)),
        &[],
    )
    .unwrap();
    let shifted = load_in(
        &d,
        &text,
        Some(&sampled_default_curves(McsTable::Qam64, 3.0)),
        &[],
    )
    .unwrap();
    let f = |s: &Value, k: &str| ue_figure(s, "ue", k);
    eprintln!(
        "15 dB: CQI {} → {}, MCS {} → {}, RLC throughput {:.3} → {:.3} Mb/s (curves +3 dB)",
        f(&default, "cqi_mean"),
        f(&shifted, "cqi_mean"),
        f(&default, "mcs_mean"),
        f(&shifted, "mcs_mean"),
        f(&default, "rlc_throughput_bps") / 1e6,
        f(&shifted, "rlc_throughput_bps") / 1e6,
    );
    assert_eq!(f(&default, "cqi_mean"), 11.0);
    assert_eq!(f(&shifted, "cqi_mean"), 10.0);
    assert_eq!(f(&default, "mcs_mean"), 20.0);
    assert_eq!(f(&shifted, "mcs_mean"), 18.0);
    let ratio = f(&shifted, "rlc_throughput_bps") / f(&default, "rlc_throughput_bps");
    assert!((ratio - 18.228 / 22.163).abs() < 0.01, "{ratio}");
}

#[test]
fn bad_tables_are_refused_with_the_key_the_file_and_the_line() {
    let d = dir("bad");
    let file = d.join("curves.csv");
    let text = nr_cell(15.0, "bler_table = \"curves.csv\"");
    // qam256 has I_MCS 0..=27: a table of the 64QAM table's 29 MCSs is refused at MCS 28.
    let full = sampled_default_curves(McsTable::Qam64, 0.0);
    let first_28 = 3 + full
        .lines()
        .skip(2)
        .take_while(|l| !l.starts_with("28,"))
        .count();
    let e = load_in(
        &d,
        &text,
        Some(&full),
        &[("cells.c.nr.mcs_table", "qam256")],
    )
    .unwrap_err();
    assert_eq!(
        e,
        format!(
            "cells.c.bler_table: {}:{first_28}: mcs 28 is out of range; expected an MCS index \
             in 0..=27 (TS 38.214 Table 5.1.3.1-2)",
            file.display()
        )
    );
    // A curve whose BLER rises with SINR.
    let rising = full.replacen("0,", "0,20.0,0.5\n0,", 1);
    let e = load_in(&d, &text, Some(&rising), &[]).unwrap_err();
    let expected = format!(
        "cells.c.bler_table: {}:3: MCS 0 has BLER 0.5 at 20 dB",
        file.display()
    );
    assert!(e.starts_with(&expected), "{e}");
    // Missing MCSs of the table.
    let e = load_in(&d, &text, Some("mcs,sinr_db,bler\n0,-10,1\n0,0,0\n"), &[]).unwrap_err();
    assert!(
        e.starts_with(&format!(
            "cells.c.bler_table: {}: no curve for MCS 1, 2,",
            file.display()
        )) && e.ends_with("expected at least 2 points for every MCS in 0..=28"),
        "{e}"
    );
    // A file that does not exist, named as resolved.
    let e = load_in(&d, &text, None, &[("cells.c.bler_table", "missing.csv")]).unwrap_err();
    let expected = format!(
        "cells.c.bler_table: {}: cannot read the BLER table:",
        d.join("missing.csv").display()
    );
    assert!(e.starts_with(&expected), "{e}");
    // A directory is not a table (the reader accepts only regular files of bounded size).
    let e = load_in(&d, &text, None, &[("cells.c.bler_table", ".")]).unwrap_err();
    assert!(e.starts_with("cells.c.bler_table: "), "{e}");
}
