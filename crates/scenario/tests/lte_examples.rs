//! The LTE benchmark scenarios (`python/celltcp/examples/lte-bench-*.toml`, timed by `benches/lte.rs`) load,
//! run, and do the work they claim: every UE's TCP download gets data through its cell, and
//! the cells are busy. Run for 1 to 3 s here (the benchmarks run 100 s and 5 s).

use std::path::Path;

use celltcp_scenario::{load_path, run, RunOptions};

fn run_example(file: &str, duration: &str) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples")
        .join(file);
    let sc = load_path(&path, &[("simulation.duration".into(), duration.into())]).unwrap();
    run(&sc, &RunOptions::default()).unwrap().summary
}

/// Checks that every flow delivered data and every cell used most of its PRBs; returns
/// (flows, UEs, summed goodput in bit/s).
fn check(summary: &serde_json::Value, min_prb_utilization: f64) -> (usize, usize, f64) {
    let flows = summary["flows"].as_object().unwrap();
    for (name, f) in flows {
        let g = f["goodput_bps"].as_f64().unwrap();
        assert!(g > 0.0, "flow {name}: goodput {g}");
    }
    let cells = summary["cells"].as_object().unwrap();
    let mut ues = 0;
    for (name, c) in cells {
        let u = c["prb_utilization"].as_f64().unwrap();
        assert!(u > min_prb_utilization, "cell {name}: PRB utilisation {u}");
        ues += c["ues"].as_object().unwrap().len();
    }
    let goodput = flows
        .values()
        .map(|f| f["goodput_bps"].as_f64().unwrap())
        .sum();
    (flows.len(), ues, goodput)
}

#[test]
fn one_ue_example_fills_its_cell() {
    // A lone flow's start-up (slow start, then recovery from its overshoot into the 1 MiB RLC
    // buffer) leaves the cell partly idle in the first seconds; over the benchmark's 100 s the
    // PRB utilisation is 0.99.
    let s = run_example("lte-bench-1ue.toml", "3s");
    let (flows, ues, goodput) = check(&s, 0.7);
    assert_eq!((flows, ues), (1, 1));
    // 354 m from a 30 dBm eNB in free space: MCS 28, 36.7 Mbit/s of transport blocks; the
    // first seconds include the flow's start at 0.1 s and its slow start.
    let ue = &s["cells"]["cell1"]["ues"]["ue1"];
    assert_eq!(ue["mcs_mean"].as_f64(), Some(28.0));
    eprintln!(
        "lte-bench-1ue, first 3 s: goodput {:.2} Mb/s",
        goodput / 1e6
    );
    assert!(goodput > 20e6 && goodput < 36.7e6, "{goodput}");
}

#[test]
fn three_cell_example_serves_five_ues_per_cell() {
    let s = run_example("lte-bench-3cells.toml", "1s");
    let (flows, ues, goodput) = check(&s, 0.8);
    assert_eq!((flows, ues), (15, 15));
    // Each cell sees the other two as interferers: cell-edge UEs get lower MCSs than UEs
    // next to their eNB.
    let cell1 = s["cells"]["cell1"]["ues"].as_object().unwrap();
    let mcs: Vec<f64> = cell1
        .values()
        .map(|u| u["mcs_mean"].as_f64().unwrap())
        .collect();
    let (lo, hi) = mcs
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, h), &m| (l.min(m), h.max(m)));
    eprintln!(
        "lte-bench-3cells, first second: goodput {:.2} Mb/s, MCS in cell 1 {lo}..{hi}",
        goodput / 1e6
    );
    assert!(hi - lo > 5.0, "{mcs:?}");
}

#[test]
fn fifty_ue_example_serves_every_ue() {
    let s = run_example("lte-bench-50ue.toml", "1s");
    let (flows, ues, goodput) = check(&s, 0.8);
    assert_eq!((flows, ues), (50, 50));
    eprintln!(
        "lte-bench-50ue, first second: goodput {:.2} Mb/s",
        goodput / 1e6
    );
    assert!(goodput < 36.7e6, "{goodput}");
}
