//! Trace files and BLER tables are read as streams (issue 14): line by line, each line of at
//! most `MAX_LINE_BYTES`, the file of at most 64 MiB counted while it is read. A line beyond the
//! bound, or a file without line ends, is refused with the key, the line and the expected form;
//! Windows line ends and a missing final line end read as before.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use celltcp_net::text_lines::MAX_LINE_BYTES;
use celltcp_radio::phy::{BlerModel, BlerTable, Mcs};
use celltcp_scenario::{load_path, Scenario};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/celltcp/examples")
}

/// A fresh directory holding the trace example's scenario and the cell example's.
fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("celltcp-streaming-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::copy(
        examples().join("traces/trace-link.toml"),
        d.join("trace.toml"),
    )
    .unwrap();
    std::fs::copy(examples().join("lte-single-cell.toml"), d.join("cell.toml")).unwrap();
    d
}

fn load(path: &Path, key: &str, value: &str) -> Result<Scenario, String> {
    load_path(path, &[(key.to_owned(), value.to_owned())]).map_err(|e| e.to_string())
}

const TRACE_KEY: &str = "links.access.a_to_b.trace";
const TABLE_KEY: &str = "cells.cell1.bler_table";

/// The default curves sampled every 0.5 dB, as a table file.
fn table_text() -> String {
    let model = BlerModel::default();
    let mut csv = String::from("# sampled\nmcs,sinr_db,bler\n");
    for mcs in Mcs::all() {
        let s10 = model.sinr10_db(mcs);
        for k in -20..=20 {
            let sinr = s10 + f64::from(k) * 0.5;
            writeln!(csv, "{mcs},{sinr:?},{:?}", model.bler(mcs, sinr)).unwrap();
        }
    }
    csv
}

#[test]
fn a_line_longer_than_the_bound_is_refused_with_its_number() {
    let d = dir("long-line");
    let long = "1".repeat(100_000);
    std::fs::write(d.join("t.trace"), format!("1\n2\n{long}\n3\n")).unwrap();
    assert_eq!(
        load(&d.join("trace.toml"), TRACE_KEY, "t.trace").unwrap_err(),
        format!(
            "{TRACE_KEY}: line 3: more than {MAX_LINE_BYTES} bytes without a line end; \
             expected one millisecond timestamp per line"
        )
    );
    let mut table = table_text();
    table.insert_str(table.find("mcs,").unwrap(), &format!("# {long}\n"));
    std::fs::write(d.join("t.csv"), table).unwrap();
    let file = d.join("t.csv");
    assert_eq!(
        load(&d.join("cell.toml"), TABLE_KEY, file.to_str().unwrap()).unwrap_err(),
        format!(
            "{TABLE_KEY}: {}:2: more than {MAX_LINE_BYTES} bytes without a line end; expected \
             the header `mcs,sinr_db,bler`, then one `MCS,SINR_dB,BLER` point per line",
            file.display()
        )
    );
}

#[test]
fn a_file_without_any_line_end_is_refused_at_line_1() {
    let d = dir("no-line-end");
    // 20 MB of digits: a valid-looking timestamp that never ends.
    std::fs::write(d.join("t.trace"), "7".repeat(20_000_000)).unwrap();
    let e = load(&d.join("trace.toml"), TRACE_KEY, "t.trace").unwrap_err();
    assert!(
        e.starts_with(&format!(
            "{TRACE_KEY}: line 1: more than {MAX_LINE_BYTES} bytes"
        )),
        "{e}"
    );
    std::fs::write(d.join("t.csv"), ",".repeat(20_000_000)).unwrap();
    let e = load(&d.join("cell.toml"), TABLE_KEY, "t.csv").unwrap_err();
    assert!(
        e.contains("t.csv:1: more than 4096 bytes without a line end"),
        "{e}"
    );
}

#[test]
fn windows_line_ends_and_a_missing_final_line_end_read_the_same() {
    let d = dir("line-ends");
    let trace = std::fs::read_to_string(examples().join("traces/drive.trace")).unwrap();
    let table = table_text();
    let variants = |text: &str| {
        [
            text.to_owned(),
            text.replace('\n', "\r\n"),
            text.trim_end_matches('\n').to_owned(),
            text.replace('\n', "\r\n").trim_end_matches('\n').to_owned(),
        ]
    };
    let reference = load(
        &d.join("trace.toml"),
        TRACE_KEY,
        &examples().join("traces/drive.trace").display().to_string(),
    )
    .unwrap();
    for (i, text) in variants(&trace).iter().enumerate() {
        std::fs::write(d.join("t.trace"), text).unwrap();
        let sc = load(&d.join("trace.toml"), TRACE_KEY, "t.trace").unwrap();
        let (got, want) = (
            &sc.links["access"].a_to_b,
            &reference.links["access"].a_to_b,
        );
        assert_eq!(
            got.trace.as_ref().unwrap().trace,
            want.trace.as_ref().unwrap().trace,
            "{i}"
        );
    }
    let expected = BlerTable::parse(&table).unwrap();
    for (i, text) in variants(&table).iter().enumerate() {
        std::fs::write(d.join("t.csv"), text).unwrap();
        let sc = load(&d.join("cell.toml"), TABLE_KEY, "t.csv").unwrap();
        let got = sc.cells["cell1"].bler_table.as_ref().expect("a table");
        assert_eq!(**got, expected, "{i}");
    }
}

#[cfg(unix)]
#[test]
fn fifos_are_refused_without_waiting_for_a_writer() {
    let d = dir("fifo");
    let fifo = d.join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        return; // no mkfifo on this system: nothing to test
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let fifo_path = fifo.display().to_string();
    std::thread::spawn(move || {
        let trace = load(&d.join("trace.toml"), TRACE_KEY, &fifo_path);
        let table = load(&d.join("cell.toml"), TABLE_KEY, &fifo_path);
        let _ = tx.send((trace.map(drop), table.map(drop)));
    });
    let (trace, table) = rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("refused within 10 s, not waiting for a writer");
    for (e, key) in [
        (trace.unwrap_err(), TRACE_KEY),
        (table.unwrap_err(), TABLE_KEY),
    ] {
        assert!(
            e.starts_with(key) && e.contains("not a regular file"),
            "{e}"
        );
    }
}
