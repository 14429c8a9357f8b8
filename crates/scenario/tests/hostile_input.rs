//! Input the loader must refuse with one short error naming the key (issue 14): the checks of
//! the core itself, without the Python layer in front of it.

use std::path::Path;

use celltcp_scenario::{check, load_path, load_str, ScenarioError};

const CHAIN: &str = r#"
[simulation]
duration = "2s"
[nodes]
a = { kind = "host" }
r = { kind = "router" }
b = { kind = "host" }
[links.core]
a = "a"
b = "r"
rate = "100Mbps"
delay = "10ms"
[links.access]
a = "r"
b = "b"
rate = "10Mbps"
delay = "5ms"
[flows.video]
kind = "udp"
src = "a"
dst = "b"
rate = "5Mbps"
packet_size = "1200B"
[trace]
interval = "100ms"
queues = ["access"]
flows = ["video"]
"#;

fn err(text: &str, overrides: &[(&str, &str)]) -> ScenarioError {
    let overrides: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    load_str(text, &overrides).expect_err("refused")
}

#[test]
fn a_trace_interval_that_would_fill_the_memory_is_refused() {
    let e = err(CHAIN, &[("trace.interval", "1ns")]);
    assert_eq!(e.key, "trace.interval");
    assert!(
        e.message.starts_with(
            "'1ns' samples 3 series 2000000001 times over the run: 6000000003 rows, more than \
             the 5000000 a run may keep; use a longer trace.interval (at least '2us')"
        ),
        "{e}"
    );
    // The suggested interval is accepted.
    let ok: Vec<(String, String)> = vec![("trace.interval".into(), "2us".into())];
    load_str(CHAIN, &ok).expect("2 us keeps the rows within the bound");
}

#[test]
fn non_finite_numbers_and_long_arrays_name_the_key() {
    let cell = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples/lte-single-cell.toml");
    let text = std::fs::read_to_string(&cell).expect("example");
    let e = err(&text, &[("cells.cell1.tx_power_dbm", "inf")]);
    assert_eq!(
        e.to_string(),
        "cells.cell1.tx_power_dbm: expected a finite number, found inf"
    );
    let e = err(&text, &[("cells.cell1.position", "[0.0, nan]")]);
    assert_eq!(
        e.to_string(),
        "cells.cell1.position[1]: expected a finite number, found NaN"
    );
    let e = err(&text, &[("cells.cell1.position", "[1.0, 2.0, 3.0]")]);
    assert_eq!(
        e.to_string(),
        "cells.cell1.position: expected an array of length 2, found an array of 3"
    );
}

#[test]
fn echoed_values_are_bounded() {
    let long = "9".repeat(100_000);
    let e = err(CHAIN, &[("links.access.rate", &format!("{long} Mbit"))]);
    assert!(e.message.chars().count() <= 400, "{}", e.message.len());
    let quoted = e.message.split('\'').nth(1).expect("the value is quoted");
    assert_eq!(quoted.chars().count(), 80);
}

#[test]
fn a_ue_that_is_also_a_wired_host_is_refused() {
    let forwarding = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples/000/forwarding.toml");
    let overrides = vec![(
        "links.wired_ue".to_string(),
        r#"{ a = "router", b = "ue_t1", rate = "1Gbps", delay = "1ms" }"#.to_string(),
    )];
    let e = load_path(&forwarding, &overrides).expect_err("refused");
    assert_eq!(e.key, "cells.target.ues.ue_t1");
    assert!(e.message.contains("wired link 'wired_ue'"), "{e}");
}

#[test]
fn the_checks_of_a_run_are_made_without_running() {
    let forwarding = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples/000/forwarding.toml");
    let scenario = load_path(&forwarding, &[]).expect("the example loads");
    assert!(check(&scenario).expect("the example builds").is_empty());
    let far = vec![(
        "cells.target.ues.ue_t1.position".to_string(),
        "[1.0e6, 0.0]".to_string(),
    )];
    let scenario = load_path(&forwarding, &far).expect("loads: coverage is a check of the build");
    let e = check(&scenario).expect_err("no cell can serve the UE");
    assert!(
        e.to_string()
            .starts_with("cells.target.ues.ue_t1.position: UE 'ue_t1' starts at"),
        "{e}"
    );
}

#[test]
fn a_scenario_path_that_is_a_device_is_refused_at_once() {
    let e = load_path(Path::new("/dev/zero"), &[]).expect_err("a device");
    assert_eq!(e.key, "scenario");
    assert!(e.message.contains("not a regular file"), "{e}");
}
