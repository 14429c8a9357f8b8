//! `[epc]` in scenario files: the two example topologies run with every flow through the
//! tunnels, and a malformed `[epc]` is rejected with the offending key.

use std::path::PathBuf;

use celltcp_scenario::{load_path, load_str, run, RunOptions};
use serde_json::Value;

fn example(name: &str) -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples")
        .join(name)
}

/// Runs `name` for `duration`; checks that every flow delivered data and that nothing was
/// dropped for want of a route (the EPC steers every UE packet through the gateway).
fn run_example(name: &str, duration: &str) -> Value {
    let sc = load_path(
        &example(name),
        &[("simulation.duration".into(), duration.into())],
    )
    .unwrap();
    let out = run(&sc, &RunOptions::default()).unwrap();
    let flows = out.summary["flows"].as_object().unwrap();
    for (flow, f) in flows {
        let goodput = f["goodput_bps"].as_f64().unwrap();
        assert!(goodput > 0.0, "{name}: flow {flow} delivered nothing");
        assert_eq!(
            f["drops"]["no_route"].as_u64(),
            Some(0),
            "{name}: flow {flow}"
        );
        println!("{name}: {flow} {:.2} Mb/s", goodput / 1e6);
    }
    out.summary
}

/// Mean IP packet size of one link direction, bytes.
fn mean_packet_bytes(summary: &Value, link: &str, dir: &str) -> f64 {
    let d = &summary["links"][link][dir];
    d["bytes_sent"].as_f64().unwrap() / d["packets_sent"].as_f64().unwrap()
}

#[test]
fn three_enbs_of_the_lena_topology_carry_fifteen_flows_in_tunnels() {
    let s = run_example("epc-three-enbs.toml", "3s");
    assert_eq!(s["flows"].as_object().unwrap().len(), 15);
    // Downlink data segments are 1500 bytes on the SGi side and 1536 on S1-U (outer IPv4, UDP
    // and GTP-U). SYNs and the few short segments keep both means a little lower.
    let sgi = mean_packet_bytes(&s, "internet", "a_to_b");
    for e in 1..=3 {
        let s1u = mean_packet_bytes(&s, &format!("s1u_{e}"), "a_to_b");
        println!("mean packet on SGi {sgi:.1} B, on s1u_{e} {s1u:.1} B");
        assert!(s1u > 1500.0 && s1u <= 1536.0, "s1u_{e}: {s1u}");
        // ACKs: 52 bytes each (IPv4, TCP with timestamps), 88 in the tunnel.
        let up = mean_packet_bytes(&s, &format!("s1u_{e}"), "b_to_a");
        assert!((88.0..100.0).contains(&up), "s1u_{e} uplink: {up}");
    }
    assert!(sgi > 1450.0 && sgi <= 1500.0, "internet: {sgi}");
}

#[test]
fn the_two_cell_system_of_the_handover_study_runs_with_red_marking_on_s1u() {
    let s = run_example("epc-two-cells.toml", "4s");
    assert_eq!(s["flows"].as_object().unwrap().len(), 7);
    let marks = |l: &str| s["links"][l]["a_to_b"]["ecn_marks"].as_f64().unwrap();
    let received: f64 = s["flows"]
        .as_object()
        .unwrap()
        .values()
        .map(|f| f["receiver"]["ce_received"].as_f64().unwrap())
        .sum();
    println!(
        "marks: source {} target {}, CE received {received}",
        marks("s1u_source"),
        marks("s1u_target")
    );
    // Seven ECN-capable flows share two 12 Mb/s links: RED marks, and with ecn_decap = "rfc6040"
    // the marks reach the UEs (a mark can be lost only with its packet, in the cell).
    assert!(marks("s1u_source") + marks("s1u_target") > 0.0);
    assert!(received > 0.0 && received <= marks("s1u_source") + marks("s1u_target"));
}

const BASE: &str = r#"
[simulation]
duration = "1s"

[nodes]
server = { kind = "host" }
pgw = { kind = "router" }
enb = { kind = "router" }
ue = { kind = "host" }
island = { kind = "host" }
lonely = { kind = "router" }

[links.sgi]
a = "server"
b = "pgw"
rate = "100Mbps"

[links.s1u]
a = "pgw"
b = "enb"
rate = "100Mbps"

[links.side]
a = "island"
b = "lonely"
rate = "100Mbps"

[cells.cell]
enb = "enb"

[cells.cell.ues]
ue = { position = [50.0, 0.0] }

[epc]
gateway = "pgw"
"#;

fn err(overrides: &[(&str, &str)]) -> String {
    let o: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    load_str(BASE, &o).unwrap_err().to_string()
}

#[test]
fn a_bad_epc_is_rejected_with_its_key() {
    load_str(BASE, &[]).expect("the base scenario loads");
    assert_eq!(
        err(&[("epc.gateway", "server")]),
        "epc.gateway: node 'server' is a host; the S-GW/P-GW is a router"
    );
    assert_eq!(
        err(&[("epc.gateway", "enb")]),
        "epc.gateway: node 'enb' is the eNB of cell 'cell'; the S-GW/P-GW must be another router"
    );
    assert_eq!(
        err(&[("epc.gateway", "lonely")]),
        "epc.gateway: no path over the links from 'lonely' to 'enb', the eNB of cell 'cell'"
    );
    assert!(err(&[("epc.gateway", "sgw")]).starts_with("epc.gateway: node 'sgw' does not exist"));
    assert!(
        err(&[("epc.ecn_decap", "copy")]).starts_with("epc.ecn_decap: "),
        "{}",
        err(&[("epc.ecn_decap", "copy")])
    );
    assert!(err(&[("epc.teid", "7")]).starts_with("epc.teid: unknown key"));
    let no_cells = BASE.replace(
        "[cells.cell]\nenb = \"enb\"\n\n[cells.cell.ues]\nue = { position = [50.0, 0.0] }\n",
        "",
    );
    assert_eq!(
        load_str(&no_cells, &[]).unwrap_err().to_string(),
        "epc: an EPC serves the UEs of [cells]; no cell is defined"
    );
}

#[test]
fn a_flow_whose_far_end_cannot_reach_the_gateway_is_rejected() {
    // A wire between `island` and the UE would give the flow a path that avoids the gateway,
    // which every packet of a UE crosses; such a wire is refused first: a UE is reached over
    // the radio only.
    let text = format!(
        "{BASE}\n[links.direct]\na = \"island\"\nb = \"ue\"\nrate = \"100Mbps\"\n\n\
         [flows.f]\nkind = \"udp\"\nsrc = \"island\"\ndst = \"ue\"\nrate = \"1Mbps\"\n"
    );
    assert_eq!(
        load_str(&text, &[]).unwrap_err().to_string(),
        "cells.cell.ues.ue: node 'ue' is an end of the wired link 'direct' and a UE of cell \
         'cell'; a UE is reached over the radio only (connect the link to another host, or drop \
         the UE)"
    );
    // Without the wire, `island` (behind `lonely` only) has no path to the UE at all.
    let text = format!(
        "{BASE}\n[flows.f]\nkind = \"udp\"\nsrc = \"island\"\ndst = \"ue\"\nrate = \"1Mbps\"\n"
    );
    assert_eq!(
        load_str(&text, &[]).unwrap_err().to_string(),
        "flows.f: no path from 'island' to 'ue'"
    );
    // Without the EPC the UE is still reached over its cell only: no path either.
    let plain = text.replace("[epc]\ngateway = \"pgw\"\n", "");
    assert_eq!(
        load_str(&plain, &[]).unwrap_err().to_string(),
        "flows.f: no path from 'island' to 'ue'"
    );
}

#[test]
fn an_epc_run_is_reproducible_byte_for_byte() {
    let sc = load_path(
        &example("epc-two-cells.toml"),
        &[("simulation.duration".into(), "1s".into())],
    )
    .unwrap();
    let a = run(&sc, &RunOptions::default()).unwrap();
    let b = run(&sc, &RunOptions::default()).unwrap();
    assert_eq!(a.summary.to_string(), b.summary.to_string());
    assert_eq!(a.events, b.events);
}
