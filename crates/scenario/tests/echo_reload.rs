//! Every scenario of the example library echoes a file that loads again to the same scenario:
//! the echo is what a run's summary records and what a sweep edits, so a key the echo writes
//! and the loader refuses (an LTE key of an NR cell, say) would make that run unrepeatable.

use std::path::{Path, PathBuf};

use celltcp_scenario::{load_path, Document};

fn examples(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the example library")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            // sweeps/ holds sweep specifications, which name a scenario rather than being one.
            if !path.ends_with("sweeps") {
                examples(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
}

#[test]
fn every_example_echo_loads_to_the_same_scenario() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/celltcp/examples");
    let mut files = Vec::new();
    examples(&root, &mut files);
    assert!(files.len() > 20, "{} examples found", files.len());
    let mut nr_cells = 0;
    for path in &files {
        let scenario = load_path(path, &[]).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        nr_cells += scenario
            .file
            .cells
            .values()
            .filter(|c| c.rat == celltcp_scenario::config::cells::Rat::Nr)
            .count();
        let echo = Document::from_echo(&scenario).expect("the echo is a document");
        let again = echo
            .load(&[], path.parent().expect("a directory"))
            .unwrap_or_else(|e| panic!("{}: its echo does not load: {e}", path.display()));
        assert_eq!(again.echo(), scenario.echo(), "{}", path.display());
    }
    // The library holds NR cells, so the test covers an NR cell's echo.
    assert!(nr_cells > 0);
}
