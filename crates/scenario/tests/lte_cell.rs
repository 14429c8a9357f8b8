//! An LTE cell inside a scenario: TCP downloads over the radio, per-UE figures in the summary.

use celltcp_scenario::{load_path, run, RunOptions};

fn example() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples/lte-single-cell.toml")
}

#[test]
fn two_ues_share_a_cell_and_the_nearer_gets_more() {
    let sc = load_path(&example(), &[("simulation.duration".into(), "5s".into())]).unwrap();
    let out = run(&sc, &RunOptions::default()).unwrap();
    let near = out.summary["flows"]["near"]["goodput_bps"]
        .as_f64()
        .unwrap();
    let far = out.summary["flows"]["far"]["goodput_bps"].as_f64().unwrap();
    let cell = &out.summary["cells"]["cell1"];
    let ues = &cell["ues"];
    let rlc_near = ues["ue_near"]["rlc_throughput_bps"].as_f64().unwrap();
    eprintln!(
        "near {near:.0} far {far:.0} rlc near {rlc_near:.0} prb {}",
        cell["prb_utilization"]
    );
    assert!(near > far, "near {near} far {far}");
    assert!(far > 0.0);
    // The cell is the bottleneck: it is busy most of the time once both flows run.
    assert!(cell["prb_utilization"].as_f64().unwrap() > 0.8);
    // A 10 MHz cell tops at 36.7 Mb/s (MCS 28, 50 PRBs); two UEs share it.
    assert!(near + far < 36.7e6);
}

#[test]
fn a_ue_in_two_cells_or_a_host_as_enb_is_rejected() {
    let e = load_path(&example(), &[("cells.cell1.enb".into(), "server".into())]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cells.cell1.enb: node 'server' is a host; an eNB is a router"
    );
    let e = load_path(
        &example(),
        &[("cells.cell1.bandwidth_mhz".into(), "7".into())],
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "cells.cell1.bandwidth_mhz: 7 is not an LTE bandwidth; expected one of 1.4, 3, 5, 10, 15, 20");
}

#[test]
fn cell_state_is_sampled_when_traced() {
    let over = [
        ("simulation.duration".to_string(), "2s".to_string()),
        ("trace.cells".to_string(), "[\"cell1\"]".to_string()),
        ("trace.interval".to_string(), "100ms".to_string()),
        ("trace.tcp".to_string(), "[\"cwnd\"]".to_string()),
        ("trace.tcp_flows".to_string(), "[\"far\"]".to_string()),
    ];
    let sc = load_path(&example(), &over).unwrap();
    let out = run(&sc, &RunOptions::default()).unwrap();
    let cells = out
        .series
        .iter()
        .find(|s| s.name == "cells")
        .expect("a cells series");
    let col = |name: &str| &cells.columns.iter().find(|(n, _)| n == name).unwrap().1;
    let celltcp_scenario::Column::Cat {
        codes: ue_codes,
        names: ue_names,
    } = col("ue")
    else {
        panic!()
    };
    let celltcp_scenario::Column::Cat {
        codes: fig_codes,
        names: fig_names,
    } = col("figure")
    else {
        panic!()
    };
    let celltcp_scenario::Column::F64(values) = col("value") else {
        panic!()
    };
    // 21 sampling instants (0, 0.1, ..., 2.0 s) × (2 UEs × 16 figures + 1 cell figure).
    assert_eq!(values.len(), 21 * 33);
    // The near UE's delivered bytes only grow, and reach what the summary reports.
    let near = ue_names.iter().position(|n| n == "ue_near").unwrap() as u32;
    let bytes = fig_names
        .iter()
        .position(|n| n == "sdu_bytes_delivered")
        .unwrap() as u32;
    let series: Vec<f64> = (0..values.len())
        .filter(|&i| ue_codes[i] == near && fig_codes[i] == bytes)
        .map(|i| values[i])
        .collect();
    assert!(series.windows(2).all(|w| w[1] >= w[0]));
    assert!(*series.last().unwrap() > 0.0);
    // The last sample is taken at 2.0 s after every event of that instant, its TTI included,
    // as the summary is: each counter is the summary's, and the sums behind the means give
    // the summary's means.
    let last = |ue: &str, figure: &str| -> f64 {
        let u = ue_names.iter().position(|n| n == ue).unwrap() as u32;
        let f = fig_names
            .iter()
            .position(|n| n == figure)
            .unwrap_or_else(|| panic!("{figure}")) as u32;
        (0..values.len())
            .filter(|&i| ue_codes[i] == u && fig_codes[i] == f)
            .map(|i| values[i])
            .next_back()
            .unwrap()
    };
    for ue in ["ue_near", "ue_far"] {
        let summary = &out.summary["cells"]["cell1"]["ues"][ue];
        let figure = |k: &str| summary[k].as_f64().unwrap_or_else(|| panic!("{ue}.{k}"));
        for k in ["prbs", "sdus_delivered", "sdus_refused", "uplink_lost"] {
            assert_eq!(last(ue, k), figure(k), "{ue}.{k}");
        }
        let sinr = last(ue, "sinr_sum_db") / last(ue, "sinr_samples");
        assert!((sinr - figure("sinr_mean_db")).abs() < 1e-9, "{ue}: {sinr}");
        let mcs = last(ue, "mcs_sum") / last(ue, "new_tbs");
        assert!((mcs - figure("mcs_mean")).abs() < 1e-9, "{ue}: {mcs}");
        assert!(last(ue, "prbs") > 0.0);
    }
    // trace.tcp_flows limits the TCP variables to the named flow.
    let tcp = out
        .series
        .iter()
        .find(|s| s.name == "tcp")
        .expect("a tcp series");
    let celltcp_scenario::Column::Cat { codes, names } = &tcp.columns[1].1 else {
        panic!()
    };
    assert!(codes.iter().all(|c| names[*c as usize] == "far"));
}
