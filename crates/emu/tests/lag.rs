//! A path whose rate the machine cannot keep up with in real time stops the run with a clear
//! message. Its own test binary: the flood takes a whole core, which would disturb the timing
//! of tests running beside it.

mod support;

use std::time::Instant;

use celltcp_emu::{EmuError, EmulateOptions, Priority};
use celltcp_engine::SimDuration;
use support::*;

fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("celltcp-emu-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The flood keeps the loop busy until it gives up: under the thread's own scheduling, so that
/// the test does not hold a core from the rest of the machine meanwhile.
fn opts_for(secs: u64) -> EmulateOptions {
    EmulateOptions {
        duration: Some(SimDuration::from_secs(secs)),
        priority: Priority::Inherit,
        ..EmulateOptions::default()
    }
}

/// The wired chain with a UDP flow far beyond what any machine handles in real time:
/// 5 Gbit/s of 100-byte datagrams over 10 Gbit/s links, 6.25 million datagrams per second.
fn overloaded() -> String {
    WIRED
        .replace("100Mbps", "10Gbps")
        .replace("25Mbps", "10Gbps")
        .replace("1Gbps", "10Gbps")
        + r#"
[flows.flood]
kind = "udp"
src = "server"
dst = "ue"
rate = "5Gbps"
packet_size = "100B"
arrival = "cbr"
"#
}

#[test]
fn a_rate_that_cannot_be_kept_up_with_stops_the_run_and_leaves_no_capture() {
    let dir = temp_dir("lag");
    let (app, emu) = device();
    let opts = EmulateOptions {
        pcap: Some(dir.join("never.pcap")),
        ..opts_for(20)
    };
    let started = Instant::now();
    let r = spawn(&overloaded(), &[("ue", emu)], None, opts)
        .join()
        .unwrap();
    let took = started.elapsed().as_secs_f64();
    match r {
        Err(EmuError::TooSlow {
            behind_s,
            max_lag_s,
            over_for_s,
            ..
        }) => {
            assert!(
                behind_s > max_lag_s && max_lag_s == 0.1,
                "{behind_s} {max_lag_s}"
            );
            assert!(over_for_s > 1.0);
        }
        other => panic!("{other:?}"),
    }
    let msg = match spawn(&overloaded(), &[("ue", emu)], None, opts_for(20))
        .join()
        .unwrap()
    {
        Err(e) => e.to_string(),
        Ok(_) => panic!("kept up with 6 million datagrams a second"),
    };
    assert!(
        msg.starts_with(celltcp_emu::error::TOO_SLOW_MARKER) && msg.contains("(max_lag 100 ms)"),
        "{msg}"
    );
    // The Python layer recognises the failure by this beginning (celltcp.emulate.errors).
    assert_eq!(
        celltcp_emu::error::TOO_SLOW_MARKER,
        "cannot keep up with real time"
    );
    assert!(took < 10.0, "gave up after {took} s");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "nothing left behind"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    close(app);
    close(emu);
}
