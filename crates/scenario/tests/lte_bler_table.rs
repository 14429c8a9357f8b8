//! `[cells.NAME] bler_table`: BLER curves from a CSV file (relative to the scenario file), read
//! when the scenario is loaded. A table sampled from the default curves reproduces a run
//! without one; shifted curves lower link adaptation; bad files are refused with the key, the
//! file and the line.

#[path = "lte_support/keys.rs"]
mod keys;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use celltcp_radio::phy::{BlerModel, Mcs};
use celltcp_scenario::{load_path, run, RunOptions};
use keys::*;
use serde_json::Value;

/// A fresh directory for one test's files.
fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("celltcp-bler-table-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The default logistic curves sampled every 0.05 dB over ±10 dB around each MCS's 10 % point,
/// shifted by `shift_db`, as the CSV `BlerTable` reads.
fn sampled_default_curves(shift_db: f64) -> String {
    let model = BlerModel::default();
    let mut csv = String::from("# BlerModel::default(), sampled every 0.05 dB\nmcs,sinr_db,bler\n");
    for mcs in Mcs::all() {
        let s10 = model.sinr10_db(mcs);
        for k in -200..=200 {
            let sinr = s10 + f64::from(k) * 0.05;
            let bler = model.bler(mcs, sinr);
            writeln!(csv, "{mcs},{:?},{bler:?}", sinr + shift_db).unwrap();
        }
    }
    csv
}

/// Writes `text` as `scenario.toml` and `table` (if any) as `curves.csv` in `d`, loads the
/// scenario from the file with `overrides`, and runs it.
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

/// Two UEs at 150 m and 900 m of a 5 MHz UMa cell, each with a bulk TCP download, 4 s.
fn two_ue_scenario(cell_extra: &str) -> String {
    scenario(
        "4s",
        &format!("bandwidth_mhz = 5\npathloss = \"uma\"\n{cell_extra}"),
        &[("near", 150.0, ""), ("far", 900.0, "")],
        &(tcp("a", "near") + &tcp("b", "far")),
    )
}

#[test]
fn a_table_sampled_from_the_default_curves_reproduces_a_run_without_one() {
    let d = dir("sampled");
    let plain = load_in(&d, &two_ue_scenario(""), None, &[]).unwrap();
    let tabled = load_in(
        &d,
        &two_ue_scenario("bler_table = \"curves.csv\""),
        Some(&sampled_default_curves(0.0)),
        &[],
    )
    .unwrap();
    // The echo shows the path that was read: relative to the scenario file's directory.
    let echoed = tabled["scenario"]["cells"]["c"]["bler_table"]
        .as_str()
        .unwrap();
    assert_eq!(Path::new(echoed), d.join("curves.csv"));
    assert!(plain["scenario"]["cells"]["c"].get("bler_table").is_none());
    for ue in ["near", "far"] {
        let figure = |s: &Value, k: &str| ue_figure(s, ue, k);
        let (t0, t1) = (
            figure(&plain, "rlc_throughput_bps"),
            figure(&tabled, "rlc_throughput_bps"),
        );
        eprintln!(
            "{ue}: CQI {} / {}, MCS {} / {}, RLC throughput {:.3} / {:.3} Mb/s (default / table), \
             HARQ retransmissions {} / {}",
            figure(&plain, "cqi_mean"),
            figure(&tabled, "cqi_mean"),
            figure(&plain, "mcs_mean"),
            figure(&tabled, "mcs_mean"),
            t0 / 1e6,
            t1 / 1e6,
            figure(&plain, "harq_retransmissions"),
            figure(&tabled, "harq_retransmissions"),
        );
        assert_eq!(figure(&tabled, "cqi_mean"), figure(&plain, "cqi_mean"));
        assert_eq!(figure(&tabled, "mcs_mean"), figure(&plain, "mcs_mean"));
        assert!((t1 / t0 - 1.0).abs() < 0.01, "{ue}: {t1} vs {t0}");
    }
}

#[test]
fn curves_shifted_up_lower_the_mcs_and_the_throughput_at_a_fixed_sinr() {
    // One UE within 10 m of a 1.4 MHz cell sees exactly 15 dB: the default curves give CQI 11
    // (MCS 20 needs 14.09 dB for BLER 10 %), curves 3 dB higher CQI 10 (MCS 18, 11.56 + 3 dB).
    let pl0 = 46.0 - noise_dbm(6) - 15.0;
    let cell = format!(
        "bandwidth_mhz = 1.4\npathloss = \"log_distance\"\npl0_db = {pl0:?}\nd0_m = 10.0\n\
         exponent = 3.0\nbler_table = \"curves.csv\""
    );
    let text = scenario("3s", &cell, &[("ue", 5.0, "")], &tcp("t", "ue"));
    let d = dir("shifted");
    let default = load_in(&d, &text, Some(&sampled_default_curves(0.0)), &[]).unwrap();
    let shifted = load_in(&d, &text, Some(&sampled_default_curves(3.0)), &[]).unwrap();
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
    assert!(f(&shifted, "rlc_throughput_bps") < 0.95 * f(&default, "rlc_throughput_bps"));
}

#[test]
fn bad_tables_are_refused_with_the_key_the_file_and_the_line() {
    let d = dir("bad");
    let text = two_ue_scenario("bler_table = \"curves.csv\"");
    let corrupt =
        "# a table with a typo\nmcs,sinr_db,bler\n0,-10.0,1.0\n0,-5.0,0.01\n0,abc,0.001\n";
    let e = load_in(&d, &text, Some(corrupt), &[]).unwrap_err();
    let file = d.join("curves.csv");
    let expected = format!(
        "cells.c.bler_table: {}:5: sinr_db `abc` is not a number",
        file.display()
    );
    assert!(e.starts_with(&expected), "{e}");
    // A file that does not exist, named as resolved.
    let e = load_in(&d, &text, None, &[("cells.c.bler_table", "missing.csv")]).unwrap_err();
    let missing = d.join("missing.csv");
    let expected = format!(
        "cells.c.bler_table: {}: cannot read the BLER table:",
        missing.display()
    );
    assert!(e.starts_with(&expected), "{e}");
    // A table that parses but lacks curves: an error about the whole file, without a line.
    let partial = "mcs,sinr_db,bler\n0,-10.0,1.0\n0,-5.0,0.0\n";
    let e = load_in(&d, &text, Some(partial), &[]).unwrap_err();
    let expected = format!("cells.c.bler_table: {}: no curve for MCS 1", file.display());
    assert!(e.starts_with(&expected), "{e}");
    // A table has its own slopes: a decade of its own is refused, naming both keys.
    let e = load_in(
        &d,
        &text,
        Some(&sampled_default_curves(0.0)),
        &[("cells.c.bler_decade_db", "2.0")],
    )
    .unwrap_err();
    assert_eq!(
        e,
        "cells.c.bler_decade_db: 2 is given with cells.c.bler_table; the table's curves have \
         their own slopes, so give one of the two keys"
    );
}

/// A table of three points per MCS, (c − 2, 1), (c, 0.1), (c + 2, 10⁻³) with c = −8 + m dB,
/// with the curve of each MCS in `replaced` given instead as its points (SINR, BLER), and no
/// curve at all for the MCSs in `dropped`. Returns the text and, per MCS, the 1-based line
/// of its first point.
fn synthetic_table(replaced: &[(u8, &[(f64, f64)])], dropped: &[u8]) -> (String, Vec<usize>) {
    let mut csv = String::from("mcs,sinr_db,bler\n");
    let mut first_line = vec![0; 29];
    let mut line = 1;
    for m in Mcs::all().map(Mcs::get).filter(|m| !dropped.contains(m)) {
        let c = -8.0 + f64::from(m);
        let standard = [(c - 2.0, 1.0), (c, 0.1), (c + 2.0, 1e-3)];
        let points = replaced
            .iter()
            .find(|(r, _)| *r == m)
            .map_or(&standard[..], |(_, p)| p);
        first_line[usize::from(m)] = line + 1;
        for (sinr, bler) in points {
            writeln!(csv, "{m},{sinr:?},{bler:?}").unwrap();
            line += 1;
        }
    }
    (csv, first_line)
}

/// A table that would leave link adaptation without an MCS for a CQI — no curve for the MCS of
/// CQI 15, a curve that never reaches the CQI target BLER 0.1 (so its CQI has no SINR
/// threshold), a 10 % point not above the lower MCS's (so a CQI is never reported) — is
/// refused when the scenario is loaded, naming the key, the file and, where there is one, the
/// line: the cell is only ever built with a curve and a threshold for every MCS it can choose.
#[test]
fn tables_that_leave_a_cqi_without_its_mcs_curve_are_refused_naming_the_key() {
    let d = dir("cqi");
    let text = two_ue_scenario("bler_table = \"curves.csv\"");
    let file = d.join("curves.csv");
    let file = file.display();
    // The sampled table loads; the synthetic one too: the cases below differ in one curve.
    let (good, _) = synthetic_table(&[], &[]);
    assert!(load_in(&d, &text, Some(&good), &[("simulation.duration", "0.1s")]).is_ok());
    let (missing_top, _) = synthetic_table(&[], &[28]);
    let e = load_in(&d, &text, Some(&missing_top), &[]).unwrap_err();
    assert_eq!(
        e,
        format!(
            "cells.c.bler_table: {file}: no curve for MCS 28; expected at least 2 points for \
             every MCS in 0..=28"
        )
    );
    // MCS 16 (CQI 9) stays above BLER 0.1.
    let (short, lines) = synthetic_table(&[(16, &[(6.0, 1.0), (12.0, 0.5)])], &[]);
    let e = load_in(&d, &text, Some(&short), &[]).unwrap_err();
    assert_eq!(
        e,
        format!(
            "cells.c.bler_table: {file}:{}: MCS 16 ends at BLER 0.5 (12 dB); expected a curve \
             that reaches BLER 0.1 (the CQI target) within its points",
            lines[16] + 1
        )
    );
    // MCS 10 (CQI 6) reaches 10 % at 1 dB, below MCS 9's 1 dB + 0.5.
    let (unordered, lines) = synthetic_table(&[(10, &[(-1.5, 1.0), (0.5, 0.1), (2.5, 1e-3)])], &[]);
    let e = load_in(&d, &text, Some(&unordered), &[]).unwrap_err();
    assert_eq!(
        e,
        format!(
            "cells.c.bler_table: {file}:{}: MCS 10 reaches BLER 0.1 at 0.5 dB, not above MCS 9 \
             (1 dB); expected 10 % points that increase with the MCS's spectral efficiency",
            lines[10] + 1
        )
    );
}

#[test]
fn in_a_ran_each_cell_reads_its_own_table() {
    // Two cells 500 m apart without coupled interference, one UE 5 m from each: both see
    // 15 dB (log-distance path loss clamped to 10 m), but the west cell's curves are 3 dB
    // higher.
    let pl0 = 46.0 - noise_dbm(25) - 15.0;
    let text = r#"
[simulation]
duration = "2s"
seed = 1

[nodes]
server = { kind = "host" }
pgw = { kind = "router" }
enb1 = { kind = "router" }
enb2 = { kind = "router" }
ue_w = { kind = "host" }
ue_e = { kind = "host" }

[links.internet]
a = "server"
b = "pgw"
rate = "1Gbps"
delay = "5ms"
queue = { kind = "droptail", limit = "1000p" }

[links.s1u_1]
a = "pgw"
b = "enb1"
rate = "1Gbps"
delay = "3ms"

[links.s1u_2]
a = "pgw"
b = "enb2"
rate = "1Gbps"
delay = "3ms"

[cells.west]
enb = "enb1"
bandwidth_mhz = 5
position = [0.0, 0.0]
pathloss = "log_distance"
pl0_db = PL0
d0_m = 10.0
exponent = 3.0
bler_table = "shifted.csv"

[cells.west.ues]
ue_w = { position = [-5.0, 0.0] }

[cells.east]
enb = "enb2"
bandwidth_mhz = 5
position = [500.0, 0.0]
pathloss = "log_distance"
pl0_db = PL0
d0_m = 10.0
exponent = 3.0
bler_table = "curves.csv"

[cells.east.ues]
ue_e = { position = [505.0, 0.0] }

[epc]
gateway = "pgw"

[ran]
coupled_interference = false

[flows.w]
kind = "udp"
src = "server"
dst = "ue_w"
rate = "2Mbps"
packet_size = "972B"

[flows.e]
kind = "udp"
src = "server"
dst = "ue_e"
rate = "2Mbps"
packet_size = "972B"
"#
    .replace("PL0", &format!("{pl0:?}"));
    let text = text.as_str();
    let d = dir("ran");
    std::fs::write(d.join("shifted.csv"), sampled_default_curves(3.0)).unwrap();
    let s = load_in(&d, text, Some(&sampled_default_curves(0.0)), &[]).unwrap();
    let cqi = |cell: &str, ue: &str| s["cells"][cell]["ues"][ue]["cqi_mean"].as_f64().unwrap();
    let sinr = |cell: &str, ue: &str| {
        s["cells"][cell]["ues"][ue]["sinr_mean_db"]
            .as_f64()
            .unwrap()
    };
    eprintln!(
        "RAN: west (curves +3 dB) CQI {} at {:.2} dB, east CQI {} at {:.2} dB",
        cqi("west", "ue_w"),
        sinr("west", "ue_w"),
        cqi("east", "ue_e"),
        sinr("east", "ue_e")
    );
    assert!((sinr("west", "ue_w") - sinr("east", "ue_e")).abs() < 1e-9);
    assert_eq!((cqi("west", "ue_w"), cqi("east", "ue_e")), (10.0, 11.0));
    // An error in one cell's table names that cell.
    std::fs::write(d.join("shifted.csv"), "mcs,sinr_db,bler\n0,1.0\n").unwrap();
    let e = load_in(&d, text, None, &[]).unwrap_err();
    let expected = format!(
        "cells.west.bler_table: {}:2: 2 columns",
        d.join("shifted.csv").display()
    );
    assert!(e.starts_with(&expected), "{e}");
}
