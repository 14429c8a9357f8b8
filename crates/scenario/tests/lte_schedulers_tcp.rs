//! MAC schedulers under TCP, at scenario level: proportional fair shares a cell equally among
//! UEs with equal channels, and round robin deals PRBs without looking at the channel.
//!
//! Every UE downloads with its own CUBIC bulk flow from one server (–100 Mb/s, 20 ms– gateway
//! –1 Gb/s, 3 ms– eNB), through a 10 MHz cell with TR 38.901 UMa NLOS path loss, 46 dBm, no
//! shadowing or fading, so that each UE's channel is fixed by its distance alone.

mod lte_support;

use celltcp_scenario::{load_str, run, RunOptions};

/// A cell with `scheduler` serving `ues` (name, x, y in metres), one CUBIC download each.
fn scenario(scheduler: &str, ues: &[(&str, f64, f64)], duration: &str) -> String {
    let mut s = format!(
        r#"
[simulation]
duration = "{duration}"
seed = 11

[nodes]
server = {{ kind = "host" }}
gateway = {{ kind = "router" }}
enb = {{ kind = "router" }}
"#
    );
    for (name, _, _) in ues {
        s += &format!("{name} = {{ kind = \"host\" }}\n");
    }
    s += &format!(
        r#"
{core}

[cells.cell]
enb = "enb"
bandwidth_mhz = 10
pathloss = "uma"
scheduler = "{scheduler}"

[cells.cell.ues]
"#,
        core = lte_support::CORE_LINKS
    );
    for (name, x, y) in ues {
        s += &format!("{name} = {{ position = [{x}, {y}] }}\n");
    }
    for (name, _, _) in ues {
        s += &format!(
            "\n[flows.{name}]\nkind = \"tcp\"\nsrc = \"server\"\ndst = \"{name}\"\ncc = \"cubic\"\n\
             app = {{ kind = \"bulk\" }}\n"
        );
    }
    s
}

/// Per UE, in the order given: (TCP goodput bit/s, PRB-TTIs, mean MCS).
fn run_cell(scheduler: &str, ues: &[(&str, f64, f64)], duration: &str) -> Vec<(f64, f64, f64)> {
    let sc = load_str(&scenario(scheduler, ues, duration), &[]).unwrap();
    let out = run(&sc, &RunOptions::default()).unwrap();
    ues.iter()
        .map(|(name, _, _)| {
            let ue = &out.summary["cells"]["cell"]["ues"][name];
            (
                out.summary["flows"][name]["goodput_bps"].as_f64().unwrap(),
                ue["prbs"].as_f64().unwrap(),
                ue["mcs_mean"].as_f64().unwrap_or(f64::NAN),
            )
        })
        .collect()
}

/// Jain's fairness index (Σx)² / (n·Σx²).
fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let q: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * q)
}

#[test]
fn proportional_fair_shares_equally_among_equal_channels() {
    // Four UEs 450 m from the eNB in four directions: the same path loss, the same MCS (below
    // the top one, so that the channel is not saturated).
    let ues = [
        ("ue1", 450.0, 0.0),
        ("ue2", 0.0, 450.0),
        ("ue3", -450.0, 0.0),
        ("ue4", 0.0, -450.0),
    ];
    let r = run_cell("proportional_fair", &ues, "20s");
    let goodputs: Vec<f64> = r.iter().map(|x| x.0).collect();
    let j = jain(&goodputs);
    eprintln!(
        "PF, 4 UEs at 450 m: goodputs {:?} Mb/s, MCS {:?}, Jain index {j:.5}",
        goodputs
            .iter()
            .map(|g| (g / 1e4).round() / 100.0)
            .collect::<Vec<_>>(),
        r.iter().map(|x| x.2).collect::<Vec<_>>()
    );
    assert!(
        r.windows(2).all(|w| w[0].2 == w[1].2),
        "equal channels: {r:?}"
    );
    assert!(goodputs.iter().all(|&g| g > 1e6), "{goodputs:?}");
    assert!(j >= 0.99, "Jain index {j}");
}

/// PRB share of the first of two UEs.
fn share(r: &[(f64, f64, f64)]) -> f64 {
    r[0].1 / (r[0].1 + r[1].1)
}

#[test]
fn round_robin_is_channel_blind() {
    // A near UE (150 m) and a far one (600 m): different MCSs.
    let ues = [("near", 150.0, 0.0), ("far", 600.0, 0.0)];
    // 60 s: each flow's start-up (slow-start overshoot into the 1 MB RLC buffer, recovery,
    // sometimes a timeout) empties its buffer for a while, and round robin, being work
    // conserving, then gives the other UE the whole band; over 60 s that weighs < 1 %.
    let rr = run_cell("round_robin", &ues, "60s");
    let mci = run_cell("max_ci", &ues, "20s");
    eprintln!(
        "RR, near/far: MCS {:.1}/{:.1}, PRB share of the near UE {:.4}, goodputs {:.3}/{:.3} Mb/s; \
         max C/I: PRB share of the near UE {:.4}, goodputs {:.3}/{:.3} Mb/s",
        rr[0].2,
        rr[1].2,
        share(&rr),
        rr[0].0 / 1e6,
        rr[1].0 / 1e6,
        share(&mci),
        mci[0].0 / 1e6,
        mci[1].0 / 1e6
    );
    // The channels differ...
    assert!(rr[0].2 > rr[1].2 + 4.0, "{rr:?}");
    // ...round robin deals the PRBs equally all the same, so the near UE's bytes are more in
    // proportion to its MCS...
    assert!((share(&rr) - 0.5).abs() < 0.01, "{rr:?}");
    assert!(rr[0].0 > 1.5 * rr[1].0, "{rr:?}");
    // ...while a channel-aware scheduler (max C/I) gives the near UE the band.
    assert!(share(&mci) > 0.9, "{mci:?}");
}
