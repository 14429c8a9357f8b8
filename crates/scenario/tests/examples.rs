//! Every shipped scenario example loads and runs: shortened to one simulated second, or, when
//! it schedules something later than that (a handover event), at its own length with an event
//! budget.
//! Sweep files (python/celltcp/examples/sweeps/) are not scenarios and are checked by the sweep tests.

use std::path::{Path, PathBuf};

use celltcp_scenario::{load_path, run, RunOptions};

fn scenario_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "sweeps") {
                scenario_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
}

#[test]
fn every_example_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/celltcp/examples");
    let mut files = Vec::new();
    scenario_files(&root, &mut files);
    assert!(files.len() >= 3, "examples found: {files:?}");
    for file in files {
        let short = load_path(&file, &[("simulation.duration".into(), "1s".into())]);
        let sc = match short {
            Ok(sc) => sc,
            Err(e) if e.to_string().contains("before the end of the run") => {
                load_path(&file, &[("simulation.max_events".into(), "300000".into())])
                    .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
            }
            Err(e) => panic!("{}: {e}", file.display()),
        };
        let out =
            run(&sc, &RunOptions::default()).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert!(out.events > 0, "{}: no events", file.display());
    }
}
