//! TCP over a WCDMA dedicated channel inside a scenario (python/celltcp/examples/001/): a bulk download at
//! 384 kbit/s without block errors, and the seed's FTP workload with its RLC throughput.

use celltcp_scenario::{load_path, run, RunOptions, RunOutput};
use serde_json::Value;

fn example(file: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples/001")
        .join(file)
}

fn run_example(file: &str, overrides: &[(&str, &str)]) -> RunOutput {
    let over: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let sc = load_path(&example(file), &over).unwrap_or_else(|e| panic!("{file}: {e}"));
    run(&sc, &RunOptions::default()).unwrap()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn bulk_tcp_over_a_clean_384_kbps_dch_fills_it_without_loss_at_a_tti_driven_rtt() {
    let out = run_example("bulk-dch384.toml", &[]);
    let flow = &out.summary["flows"]["bulk"];
    let sender = &flow["sender"];
    let dch = &out.summary["dch"]["radio"];
    let ul = &dch["uplink"];
    let goodput = f(&flow["goodput_bps"]);
    let (min_rtt, srtt) = (f(&sender["min_rtt_s"]), f(&sender["srtt_s"]));
    eprintln!(
        "goodput {goodput:.0} bit/s, min RTT {min_rtt:.3} s, srtt {srtt:.3} s, downlink delay \
         {:.3} s, uplink delay {:.3} s, RLC buffer mean {:.0} B, STATUS blocks {} down / {} up",
        f(&dch["delay_mean_s"]),
        f(&ul["delay_mean_s"]),
        f(&dch["buffer_mean_bytes"]),
        dch["status_pdus"],
        ul["status_pdus"]
    );
    // No loss anywhere: no block lost, no RLC retransmission, no drop, no TCP retransmission.
    assert_eq!(f(&dch["tbs_lost"]) + f(&ul["tbs_lost"]), 0.0);
    assert_eq!(
        f(&dch["pdus_retransmitted"]) + f(&ul["pdus_retransmitted"]),
        0.0
    );
    assert_eq!(f(&dch["sdus_refused"]), 0.0);
    assert_eq!(f(&flow["loss_ratio"]), 0.0);
    assert_eq!(f(&sender["retransmissions"]), 0.0);
    // The DCH carries 384 kbit/s of RLC payload; a 1500-byte packet takes 1501 bytes of it (one
    // LI) and carries 1448 bytes of TCP payload: at most 384 000 × 1448 / 1501 = 370.4 kbit/s
    // of goodput, less the downlink blocks taken by STATUS reports on the ACKs (0.6 %) and the
    // start-up.
    let ceiling = 384_000.0 * 1448.0 / 1501.0;
    assert!(
        goodput <= ceiling && goodput > 0.98 * ceiling,
        "{goodput} vs {ceiling}"
    );
    // TTI-driven delays: a 2-PDU ACK waits at most one 20 ms uplink TTI, takes one and the
    // 20 ms delay: 40–60 ms; the handshake's small packets bound the minimum RTT below by the
    // 50 ms wired round trip + one downlink TTI + 20 ms + one uplink TTI + 20 ms = 120 ms,
    // and a data segment (38 PDUs: 4 TTIs) above by about 50 + 10 + 40 + 20 + 20 + 20 + 20.
    let ul_delay = f(&ul["delay_mean_s"]);
    assert!((0.040..=0.060).contains(&ul_delay), "{ul_delay}");
    assert!((0.120..=0.185).contains(&min_rtt), "{min_rtt}");
    // The smoothed RTT is the RNC-to-UE delay (queueing in the RLC buffer included), the
    // uplink delay and the wired round trip.
    let expected = f(&dch["delay_mean_s"]) + ul_delay + 0.050;
    assert!((srtt - expected).abs() < 0.1, "srtt {srtt} vs {expected}");
}

/// The seed's FTP workload over 256 kbit/s at BLER 0.1; returns (RLC throughput, run
/// throughput, sessions, transfers, summary of the channel).
fn ftp(file_size: &str, secs: &str) -> (f64, f64, f64, f64, Value) {
    let out = run_example(
        "ftp-dch.toml",
        &[
            ("simulation.duration", secs),
            ("flows.ftp.app.file_size", file_size),
        ],
    );
    let dch = out.summary["dch"]["radio"].clone();
    let transfers = f(&out.summary["flows"]["ftp"]["sender"]["ftp_transfers"]);
    (
        f(&dch["rlc_throughput_bps"]),
        f(&dch["run_throughput_bps"]),
        f(&dch["sessions"]),
        transfers,
        dch,
    )
}

#[test]
fn ftp_rlc_throughput_counts_transfers_not_idle_times_and_grows_with_the_file_size() {
    let (small, small_run, sessions, transfers, dch) = ftp("50KB", "900s");
    let (large, large_run, _, large_transfers, _) = ftp("200KB", "900s");
    eprintln!(
        "RLC throughput 50 kB: {small:.0} bit/s ({transfers} transfers, {sessions} sessions, run \
         rate {small_run:.0}); 200 kB: {large:.0} bit/s ({large_transfers} transfers, run rate \
         {large_run:.0}); BLER {}, retransmitted {}, discarded {}",
        dch["bler_measured"], dch["pdus_retransmitted"], dch["max_dat_discards"]
    );
    // One session per transfer, except when the next request comes less than the 2 s gap after
    // the previous transfer ends and joins it.
    assert!(transfers >= 10.0);
    assert!(
        sessions <= transfers + 1.0 && sessions >= 0.8 * transfers,
        "{sessions} sessions, {transfers} transfers"
    );
    // The idle times are left out: above the run-wide rate by about the mean inter-request time
    // (30 s) over the mean transfer time (a 50 kB file ≈ 6 s, a 200 kB one ≈ 13 s at these
    // rates), and below the DCH's rate.
    assert!(small > 3.0 * small_run && large > 2.0 * large_run);
    assert!(large < 256_000.0 * 0.9);
    // The seed's goal 1: larger files spend less of their time in slow start.
    assert!(large > 1.2 * small, "200 kB: {large}, 50 kB: {small}");
}
