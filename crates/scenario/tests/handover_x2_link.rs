//! X2-U forwarding takes a direct X2 link between the eNBs when the topology has one, and goes
//! up to the core and back down when it does not (seed 000 Fig. 1): the data path of a
//! handover is the network's routing, not a shortcut of the radio model.

use celltcp_scenario::{load_str, run, Column, RunOptions, RunOutput};

#[path = "support/mod.rs"]
mod support;
use support::{column, series};

/// server – pgw – {enb1, enb2}, optionally enb1 – enb2 (X2); the UE is handed over from cell
/// `a` to cell `b` at 0.8 s with forwarding.
fn scenario(x2_link: bool) -> String {
    let x2 = if x2_link {
        "[links.x2]\na = \"enb1\"\nb = \"enb2\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\n"
    } else {
        ""
    };
    format!(
        r#"
[simulation]
duration = "1.6s"

[nodes]
server = {{ kind = "host" }}
pgw = {{ kind = "router" }}
enb1 = {{ kind = "router" }}
enb2 = {{ kind = "router" }}
ue = {{ kind = "host" }}

[links.sgi]
a = "server"
b = "pgw"
rate = "100Mbps"
delay = "10ms"

[links.s1u1]
a = "pgw"
b = "enb1"
rate = "100Mbps"
delay = "2ms"

[links.s1u2]
a = "pgw"
b = "enb2"
rate = "100Mbps"
delay = "2ms"

{x2}
[cells.a]
enb = "enb1"
bandwidth_mhz = 5
rlc = {{ buffer = "200p" }}

[cells.a.ues]
ue = {{ position = [150.0, 0.0] }}

[cells.b]
enb = "enb2"
bandwidth_mhz = 5
rlc = {{ buffer = "200p" }}

[epc]
gateway = "pgw"

[ran]
layout = {{ kind = "line", cells = ["a", "b"], spacing = "500m" }}

[ran.handover]
policy = "forward"

[[ran.handover.manual]]
at = "0.8s"
ue = "ue"
target = "b"

[flows.bulk]
kind = "tcp"
src = "server"
dst = "ue"
cc = "newreno"
app = {{ kind = "bulk" }}
tcp = {{ rcv_buf = "128KB" }}
"#
    )
}

fn run_it(x2_link: bool) -> RunOutput {
    let s = load_str(&scenario(x2_link), &[]).unwrap_or_else(|e| panic!("{e}"));
    run(&s, &RunOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn packets(out: &RunOutput, link: &str, dir: &str) -> u64 {
    out.summary["links"][link][dir]["packets_sent"]
        .as_u64()
        .unwrap_or_else(|| panic!("{link}.{dir}: {}", out.summary["links"][link]))
}

fn forwarded(out: &RunOutput) -> u64 {
    match column(series(out, "handovers"), "forwarded") {
        Column::U64(v) => v.iter().sum(),
        other => panic!("forwarded: {other:?}"),
    }
}

#[test]
fn forwarding_takes_the_x2_link_when_there_is_one() {
    let direct = run_it(true);
    let via_core = run_it(false);
    let (fw_direct, fw_core) = (forwarded(&direct), forwarded(&via_core));
    assert!(fw_direct > 10 && fw_core > 10, "{fw_direct} {fw_core}");
    // Every forwarded G-PDU and the forwarded end marker cross the X2 link, source → target.
    assert_eq!(packets(&direct, "x2", "a_to_b"), fw_direct + 1);
    assert_eq!(packets(&direct, "x2", "b_to_a"), 0);
    // Without it they go up the source's S1-U link to the gateway and down the target's: the
    // source's uplink carries them on top of the UE's ACKs.
    let up_direct = packets(&direct, "s1u1", "b_to_a");
    let up_core = packets(&via_core, "s1u1", "b_to_a");
    assert!(
        up_core >= up_direct + fw_core,
        "s1u1 uplink: {up_core} via the core vs {up_direct} with X2, {fw_core} forwarded"
    );
    // Nothing is lost either way.
    for out in [&direct, &via_core] {
        assert_eq!(out.summary["flows"]["bulk"]["drops"]["handover"], 0);
    }
}
