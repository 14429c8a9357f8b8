//! `downlink_loss` of `[cells.NAME]` and `[cells.NAME.ues.UE]`: receive errors at the UE on
//! the IP packets the radio delivered (the table of a link's `loss`). Each test measures what
//! the model should do to the flows and checks that the radio below it is unchanged.

#[path = "lte_support/keys.rs"]
mod keys;

use celltcp_scenario::{load_str, run, RunOptions};
use keys::*;
use serde_json::Value;

/// MCS of the fixed-SINR cell, and the UDP payload whose SDU fills one of its blocks.
const MCS: u8 = 10;
const ONE_BLOCK_PAYLOAD: &str = "85B";

/// The flow's packets whose fate is known (delivered or dropped) and the fraction lost at the
/// UE's receiver.
fn link_loss_ratio(s: &Value, flow: &str) -> (f64, f64) {
    let lost = flow_figure(s, flow, "drops.link_loss");
    let known = flow_figure(s, flow, "packets_delivered") + lost;
    (known, lost / known)
}

/// |measured − p| within 4 binomial standard deviations over n trials.
fn within_4_sigma(measured: f64, p: f64, n: f64) -> bool {
    (measured - p).abs() <= binomial_bound(p, n, 4.0)
}

#[test]
fn bernoulli_on_one_ue_of_two_loses_its_share_and_leaves_the_radio_alone() {
    // A lossy radio (BLER 0.3 per transmission, no combining, 2 transmissions) so that RLC AM
    // retransmits too; 100 one-block packets per second to each UE for 14 s.
    let cell = format!(
        "{}\nharq_combining = \"none\"\nharq_max_transmissions = 2",
        fixed_sinr_cell(sinr_for_bler(MCS, 0.3, 1.0), MCS)
    );
    let flows = udp(
        "f1",
        "server",
        "ue1",
        "68kbps",
        ONE_BLOCK_PAYLOAD,
        "stop = \"14s\"",
    ) + &udp(
        "f2",
        "server",
        "ue2",
        "68kbps",
        ONE_BLOCK_PAYLOAD,
        "stop = \"14s\"",
    );
    let text = |ue1_extra: &str| {
        scenario(
            "15s",
            &cell,
            &[("ue1", 5.0, ue1_extra), ("ue2", 5.0, "")],
            &flows,
        )
    };
    let p = 0.05;
    let with = summary(
        &text("downlink_loss = { kind = \"bernoulli\", p = 0.05 }"),
        &[],
    );
    let without = summary(&text(""), &[]);
    let (n, ratio) = link_loss_ratio(&with, "f1");
    let lost = flow_figure(&with, "f1", "drops.link_loss");
    let rlc_retx = |s: &Value, ue: &str| ue_figure(s, ue, "rlc_retransmissions");
    eprintln!(
        "ue1 Bernoulli {p}: {lost} of {n} packets lost at the UE ({ratio:.4}, 4σ = {:.4}); \
         flow loss ratio {:.4}; RLC retransmissions ue1 {} / ue2 {} (without the model {} / {})",
        binomial_bound(p, n, 4.0),
        flow_figure(&with, "f1", "loss_ratio"),
        rlc_retx(&with, "ue1"),
        rlc_retx(&with, "ue2"),
        rlc_retx(&without, "ue1"),
        rlc_retx(&without, "ue2"),
    );
    assert!(n > 1300.0, "{n}");
    assert!(within_4_sigma(ratio, p, n), "{ratio}");
    // Every drop of the flow is a receive error here, so its loss ratio is the same figure.
    assert_eq!(flow_figure(&with, "f1", "loss_ratio"), ratio);
    assert_eq!(ue_figure(&with, "ue1", "downlink_lost"), lost);
    // The other UE has no model: no figure, no loss.
    assert_eq!(flow_figure(&with, "f2", "loss_ratio"), 0.0);
    assert!(with["cells"]["c"]["ues"]["ue2"]
        .get("downlink_lost")
        .is_none());
    assert!(without["cells"]["c"]["ues"]["ue1"]
        .get("downlink_lost")
        .is_none());
    // The radio did the same work: RLC delivered the lost packets and did not retransmit them.
    assert!(rlc_retx(&without, "ue1") > 0.0);
    for ue in ["ue1", "ue2"] {
        for figure in [
            "rlc_retransmissions",
            "harq_retransmissions",
            "harq_residual_failures",
            "sdus_delivered",
        ] {
            assert_eq!(
                ue_figure(&with, ue, figure),
                ue_figure(&without, ue, figure),
                "{ue}.{figure}"
            );
        }
    }
    assert_eq!(
        flow_figure(&with, "f1", "packets_delivered") + lost,
        flow_figure(&without, "f1", "packets_delivered")
    );
}

#[test]
fn ber_loses_longer_packets_more_often() {
    // The cell's model is the default of both UEs: 100-byte IP packets to ue1, 1000-byte ones
    // to ue2, on a 5 MHz cell with room for both flows.
    let ber = 1e-4;
    let cell = format!(
        "bandwidth_mhz = 5\npathloss = \"uma\"\ndownlink_loss = {{ kind = \"ber\", ber = {ber:?} }}"
    );
    let flows = udp("small", "server", "ue1", "576kbps", "72B", "stop = \"7s\"")
        + &udp("big", "server", "ue2", "1944kbps", "972B", "stop = \"7s\"");
    let s = summary(
        &scenario(
            "8s",
            &cell,
            &[("ue1", 100.0, ""), ("ue2", -100.0, "")],
            &flows,
        ),
        &[],
    );
    for (flow, ue, bytes) in [("small", "ue1", 100.0), ("big", "ue2", 1000.0)] {
        let p = 1.0 - (1.0f64 - ber).powf(8.0 * bytes);
        let (n, ratio) = link_loss_ratio(&s, flow);
        eprintln!(
            "ber {ber}, {bytes} B packets: {ratio:.4} of {n} lost (expected {p:.4}, 4σ = {:.4})",
            binomial_bound(p, n, 4.0)
        );
        assert!(n > 1500.0, "{n}");
        assert!(within_4_sigma(ratio, p, n), "{flow}: {ratio} vs {p}");
        assert_eq!(
            ue_figure(&s, ue, "downlink_lost"),
            flow_figure(&s, flow, "drops.link_loss")
        );
        assert_eq!(flow_figure(&s, flow, "drops.queue_full"), 0.0);
    }
}

#[test]
fn a_ues_own_model_replaces_the_cells() {
    let cell = "bandwidth_mhz = 5\npathloss = \"uma\"\n\
                downlink_loss = { kind = \"bernoulli\", p = 0.5 }";
    let flows = udp("a", "server", "ue1", "2Mbps", "472B", "stop = \"2s\"")
        + &udp("b", "server", "ue2", "2Mbps", "472B", "stop = \"2s\"");
    let text = scenario(
        "2.5s",
        cell,
        &[
            ("ue1", 100.0, ""),
            (
                "ue2",
                -100.0,
                "downlink_loss = { kind = \"gilbert_elliott\", p_good_to_bad = 0.0, p_bad_to_good = 1.0 }",
            ),
        ],
        &flows,
    );
    let sc = load_str(&text, &[]).unwrap();
    let s = run(&sc, &RunOptions::default()).unwrap().summary;
    let (n, ratio) = link_loss_ratio(&s, "a");
    eprintln!("cell default p 0.5: {ratio:.3} of {n}; ue2's chain that never leaves Good: 0");
    assert!(within_4_sigma(ratio, 0.5, n), "{ratio}");
    // ue2's chain never enters Bad and loses nothing in Good; it is still a model, so the
    // figure is there.
    assert_eq!(flow_figure(&s, "b", "drops.link_loss"), 0.0);
    assert_eq!(ue_figure(&s, "ue2", "downlink_lost"), 0.0);
    // Echoed as written, and the echo loads back to the same scenario.
    let c = &s["scenario"]["cells"]["c"];
    assert_eq!(
        c["downlink_loss"],
        serde_json::json!({ "kind": "bernoulli", "p": 0.5 })
    );
    assert_eq!(c["ues"]["ue2"]["downlink_loss"]["kind"], "gilbert_elliott");
    assert!(c["ues"]["ue1"].get("downlink_loss").is_none());
    let echo: toml::Table = serde_json::from_value(sc.echo()).unwrap();
    let again = load_str(&toml::to_string(&echo).unwrap(), &[]).unwrap();
    assert_eq!(again.echo(), sc.echo());
    assert_eq!(again.cells["c"].downlink_loss, sc.cells["c"].downlink_loss);
}

#[test]
fn a_tcp_download_retransmits_about_what_the_ue_lost() {
    let cell = "bandwidth_mhz = 5\npathloss = \"uma\"";
    let text = scenario(
        "6s",
        cell,
        &[(
            "ue",
            200.0,
            "downlink_loss = { kind = \"bernoulli\", p = 0.01 }",
        )],
        &tcp("t", "ue"),
    );
    let s = summary(&text, &[]);
    let lost = flow_figure(&s, "t", "drops.link_loss");
    let drops_other = flow_figure(&s, "t", "drops.queue_full");
    let retx = flow_figure(&s, "t", "sender.retransmissions");
    let segments = flow_figure(&s, "t", "packets_delivered") + lost;
    eprintln!(
        "TCP bulk, p 0.01: {lost} of {segments} packets lost at the UE, {drops_other} dropped \
         by the eNB buffer, {retx} retransmissions, goodput {:.2} Mb/s",
        flow_figure(&s, "t", "goodput_bps") / 1e6
    );
    assert_eq!(ue_figure(&s, "ue", "downlink_lost"), lost);
    assert!(within_4_sigma(lost / segments, 0.01, segments));
    // Each lost segment is sent again once; a few more retransmissions are allowed for
    // segments lost twice or a spurious timeout.
    let dropped = lost + drops_other;
    assert!(
        retx >= dropped && retx <= 1.1 * dropped + 5.0,
        "{retx} vs {dropped}"
    );
}

#[test]
fn errors_name_the_key() {
    let text = scenario(
        "1s",
        "bandwidth_mhz = 5",
        &[("ue1", 100.0, ""), ("ue2", 100.0, "")],
        "",
    );
    assert_eq!(
        error(
            &text,
            &[("cells.c.downlink_loss", "{ kind = \"bernoulli\", p = 1.5 }")]
        ),
        "cells.c.downlink_loss.p: 1.5 is not a probability; expected a number in [0, 1]"
    );
    assert_eq!(
        error(
            &text,
            &[("cells.c.ues.ue2.downlink_loss", "{ kind = \"ber\", ber = -1e-5 }")]
        ),
        "cells.c.ues.ue2.downlink_loss.ber: -0.00001 is not a probability; expected a number in [0, 1]"
    );
    let unknown = error(
        &text,
        &[("cells.c.downlink_loss", "{ kind = \"burst\", p = 0.1 }")],
    );
    assert!(unknown.starts_with("cells.c.downlink_loss"), "{unknown}");
    let field = error(
        &text,
        &[(
            "cells.c.ues.ue1.downlink_loss",
            "{ kind = \"bernoulli\", q = 0.1 }",
        )],
    );
    assert!(
        field.starts_with("cells.c.ues.ue1.downlink_loss"),
        "{field}"
    );
}

// ---------------------------------------------------------------------------------------------
// A radio access network: the model is the UE's and follows it through a handover.

/// Two cells 250 m apart, the UE `car` midway, listed by `west` with `extra` keys, a manual
/// handover to `east` at 5 s, and a 2 Mb/s UDP download of 1000-byte packets until `stop`.
fn ran_scenario(duration: &str, car_extra: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
seed = 3

[nodes]
server = {{ kind = "host" }}
pgw = {{ kind = "router" }}
enb1 = {{ kind = "router" }}
enb2 = {{ kind = "router" }}
car = {{ kind = "host" }}

[links.internet]
a = "server"
b = "pgw"
rate = "100Mbps"
delay = "10ms"
queue = {{ kind = "droptail", limit = "1000p" }}

[links.s1u_1]
a = "pgw"
b = "enb1"
rate = "1Gbps"
delay = "3ms"

[links.s1u_2]
a = "pgw"
b = "enb2"
rate = "1Gbps"
delay = "3ms"

[links.x2]
a = "enb1"
b = "enb2"
rate = "1Gbps"
delay = "2ms"

[cells.west]
enb = "enb1"

[cells.west.ues]
car = {{ position = [125.0, 20.0]{car_extra} }}

[cells.east]
enb = "enb2"

[epc]
gateway = "pgw"

[ran]
layout = {{ kind = "line", cells = ["west", "east"], spacing = "250m" }}

[[ran.handover.manual]]
at = "5s"
ue = "car"
target = "east"

[flows.f]
kind = "udp"
src = "server"
dst = "car"
rate = "2Mbps"
packet_size = "972B"
"#
    )
}

#[test]
fn in_a_ran_the_ue_keeps_its_model_across_a_handover() {
    let p = 0.05;
    let extra = ", downlink_loss = { kind = \"bernoulli\", p = 0.05 }";
    // The same run cut just before the handover: the first 4.9 s are the same events, so the
    // difference of the two summaries is what happened from 4.9 s on.
    let before = summary(&ran_scenario("4.9s", extra), &[]);
    let whole = summary(&ran_scenario("10s", extra), &[]);
    let count = |s: &Value, path: &str| flow_figure(s, "f", path);
    let lost = |s: &Value| count(s, "drops.link_loss");
    let reached = |s: &Value| count(s, "packets_delivered") + lost(s);
    let (n_before, n_after) = (reached(&before), reached(&whole) - reached(&before));
    let ratio_before = lost(&before) / n_before;
    let ratio_after = (lost(&whole) - lost(&before)) / n_after;
    eprintln!(
        "RAN, Bernoulli {p} on car: before the handover {ratio_before:.4} of {n_before}, after \
         {ratio_after:.4} of {n_after} (4σ = {:.4}); handovers completed {}, dropped by the \
         handover {}",
        binomial_bound(p, n_after, 4.0),
        whole["ran"]["handovers_completed"],
        count(&whole, "drops.handover"),
    );
    assert_eq!(whole["ran"]["handovers_completed"], 1.0);
    assert!(whole["cells"]["east"]["ues"]["car"]["sdus_delivered"].as_f64() > Some(1000.0));
    assert!(n_before > 1000.0 && n_after > 1000.0);
    assert!(within_4_sigma(ratio_before, p, n_before), "{ratio_before}");
    assert!(within_4_sigma(ratio_after, p, n_after), "{ratio_after}");
    // The figure is the network's, per UE; the cells have none.
    assert_eq!(whole["ran"]["ues"]["car"]["downlink_lost"], lost(&whole));
    for cell in ["west", "east"] {
        assert!(whole["cells"][cell]["ues"]["car"]
            .get("downlink_lost")
            .is_none());
    }
    // Without the model nothing is lost at the UE and the network reports no per-UE figure.
    let plain = summary(&ran_scenario("10s", ""), &[]);
    assert_eq!(lost(&plain), 0.0);
    assert_eq!(plain["ran"]["ues"], serde_json::json!({}));
}

// ---------------------------------------------------------------------------------------------
// python/celltcp/examples/003/exp5-2.toml: its header's override lines move the errors from S1-U to the radio.

#[test]
fn the_exp5_2_header_moves_the_errors_onto_the_radio() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples/003/exp5-2.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    // Every `--set '…'` of the comment, as the shell would pass it.
    let mut overrides: Vec<(String, String)> = text
        .lines()
        .filter(|l| l.starts_with('#'))
        .flat_map(|l| l.split("--set '").skip(1))
        .filter_map(|rest| rest.split_once('\'')?.0.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assert_eq!(overrides.len(), 6, "{overrides:?}");
    overrides.push(("simulation.duration".into(), "2s".into()));
    let sc = celltcp_scenario::load_path(&path, &overrides).unwrap();
    for link in ["s1u1", "s1u2", "s1u3"] {
        assert_eq!(sc.links[link].a_to_b.loss, None, "{link}");
    }
    let s = run(&sc, &RunOptions::default()).unwrap().summary;
    let (mut lost, mut flows_lost) = (0.0, 0.0);
    for (name, cell) in s["cells"].as_object().unwrap() {
        for (ue, u) in cell["ues"].as_object().unwrap() {
            lost += u["downlink_lost"]
                .as_f64()
                .unwrap_or_else(|| panic!("{name}.{ue}"));
        }
    }
    for f in s["flows"].as_object().unwrap().values() {
        flows_lost += f["drops"]["link_loss"].as_f64().unwrap();
    }
    for link in ["s1u1", "s1u2", "s1u3"] {
        assert_eq!(
            s["links"][link]["a_to_b"]["drops"]["link_loss"], 0,
            "{link}"
        );
    }
    eprintln!("exp5-2 with the errors on the radio, first 2 s: {lost} packets lost at the UEs");
    assert!(lost > 0.0);
    assert_eq!(lost, flows_lost);
}
