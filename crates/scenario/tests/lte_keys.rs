//! The keys of `[cells.NAME]`, each shown to change what it should in a short scenario run,
//! with the figure it changes asserted against its expected value (docs/scenarios.md lists
//! the keys; docs/lte-model.md the model behind each figure).
//!
//! Most runs use the one-cell scenarios of `lte_support/keys.rs`: a 1.4 MHz (6 PRB) carrier
//! with a fixed MCS and a fixed SINR, so that every block has a known BLER, and low-rate UDP
//! flows whose packets each fill one transport block exactly when an independent fate per
//! SDU is wanted (85-byte payloads: 113 bytes of IP + 2 of PDCP + 2 of RLC = the 117 bytes of
//! MCS 10 on 6 PRBs).

#[path = "lte_support/keys.rs"]
mod keys;

use celltcp_scenario::{load_path, run, RunOptions};
use keys::*;

/// MCS of the fixed-SINR cells, and the UDP payload whose SDU fills one of its blocks.
const MCS: u8 = 10;
const ONE_BLOCK_PAYLOAD: &str = "85B";

/// A 100-packet/s flow of one-block SDUs from 0 to 4 s, in a 5 s run.
fn one_block_flow() -> String {
    udp(
        "f",
        "server",
        "ue",
        "68kbps",
        ONE_BLOCK_PAYLOAD,
        "stop = \"4s\"",
    )
}

// ---------------------------------------------------------------------------------------------
// MAC: WFQ weights, proportional fair's time constant

#[test]
fn wfq_weights_share_the_cell_between_tcp_downloads() {
    // Two UEs at the same distance, bulk TCP each, RLC buffers large enough (1000 packets) that
    // both stay backlogged: WFQ serves bytes in the ratio of the weights.
    let cell =
        "bandwidth_mhz = 5\npathloss = \"uma\"\nscheduler = \"wfq\"\nrlc = { buffer = \"1000p\" }";
    let flows = tcp("a", "ue1") + &tcp("b", "ue2");
    let ratio = |w2: &str| {
        let text = scenario(
            "4s",
            cell,
            &[("ue1", 300.0, ""), ("ue2", -300.0, w2)],
            &flows,
        );
        let s = summary(&text, &[]);
        let r =
            ue_figure(&s, "ue2", "rlc_throughput_bps") / ue_figure(&s, "ue1", "rlc_throughput_bps");
        let g = flow_figure(&s, "b", "goodput_bps") / flow_figure(&s, "a", "goodput_bps");
        eprintln!("WFQ, ue2 '{w2}': RLC throughput ratio {r:.3}, TCP goodput ratio {g:.3}");
        (r, g)
    };
    let (weighted, goodput) = ratio("weight = 3.0");
    assert!((weighted / 3.0 - 1.0).abs() < 0.05, "{weighted}");
    assert!(goodput > 1.5, "{goodput}");
    let (equal, _) = ratio("");
    assert!((equal - 1.0).abs() < 0.05, "{equal}");

    let text = scenario(
        "1s",
        cell,
        &[("ue1", 300.0, ""), ("ue2", -300.0, "")],
        &flows,
    );
    assert_eq!(
        error(&text, &[("cells.c.ues.ue2.weight", "0")]),
        "cells.c.ues.ue2.weight: 0 is not a weight; expected a finite number > 0"
    );
    assert_eq!(
        error(&text, &[("cells.c.ues.ue2.weight", "2.0"), ("cells.c.scheduler", "proportional_fair")]),
        "cells.c.ues.ue2.weight: 2 is given but scheduler is \"proportional_fair\"; weights apply to \"wfq\" only"
    );
}

#[test]
fn pf_time_constant_sets_how_long_a_newcomer_is_favoured() {
    // UE 1 downloads alone from 0 s; UE 2, on the same channel, from 2 s (its first packet
    // reaches the eNB at 2.005 s); the run ends at 2.4 s, a window of W = 395 TTIs. The
    // newcomer starts with R = 0 and takes every TTI until its average passes the old UE's:
    // with the old UE converged (R = r) that takes m = ln 2 / −ln(1 − 1/t_c) TTIs, then the two
    // alternate. With t_c = 1 s the old UE's average (1 − e^−2)·r ≈ 0.86·r is not reached
    // within the window (623 TTIs), so the newcomer has all of it.
    let flows = udp("old", "server", "ue1", "3Mbps", "500B", "")
        + &udp("new", "server", "ue2", "3Mbps", "500B", "start = \"2s\"");
    let window_tti = 395.0;
    let newcomer_share = |tc: &str| {
        let cell = format!(
            "{}\npf_time_constant = \"{tc}\"",
            fixed_sinr_cell(30.0, MCS)
        );
        let s = summary(
            &scenario("2.4s", &cell, &[("ue1", 5.0, ""), ("ue2", 5.0, "")], &flows),
            &[],
        );
        ue_figure(&s, "ue2", "prbs") / (6.0 * window_tti)
    };
    let slow = newcomer_share("1s");
    let fast = newcomer_share("50ms");
    let m = 2f64.ln() / -(1.0 - 1.0 / 50.0f64).ln();
    let expected = (m + (window_tti - m) / 2.0) / window_tti;
    eprintln!("PF newcomer's share of {window_tti} TTIs: t_c 1 s {slow:.4}, t_c 50 ms {fast:.4} (expected {expected:.4})");
    assert!(slow > 0.99, "{slow}");
    assert!((fast - expected).abs() < 0.02, "{fast} vs {expected}");

    let text = scenario("1s", &fixed_sinr_cell(30.0, MCS), &[("ue", 5.0, "")], "");
    assert_eq!(
        error(&text, &[("cells.c.pf_time_constant", "0.5ms")]),
        "cells.c.pf_time_constant: '0.5ms' is too short; expected a time ≥ 1ms (one TTI)"
    );
    assert_eq!(
        error(&text, &[("cells.c.pf_time_constant", "100ms"), ("cells.c.scheduler", "round_robin")]),
        "cells.c.pf_time_constant: '100ms' is given but scheduler is \"round_robin\"; it applies to \"proportional_fair\" only"
    );
}

// ---------------------------------------------------------------------------------------------
// PHY and HARQ: combining, maximum transmissions, BLER slope

#[test]
fn harq_combining_and_max_transmissions_set_the_residual_block_errors() {
    // Every transmission at BLER 0.5. Without combining a block fails for good after k
    // transmissions with probability 0.5^k; with chase combining the second transmission is
    // decoded at the SINR + 10·log10 2 dB.
    let sinr = sinr_for_bler(MCS, 0.5, 1.0);
    let run = |combining: &str, max_tx: u8| {
        let s = one_ue_summary(
            "2s",
            sinr,
            MCS,
            &format!("harq_combining = \"{combining}\"\nharq_max_transmissions = {max_tx}"),
            &udp("f", "server", "ue", "2Mbps", "500B", ""),
        );
        // The channel is the one computed: 46 dBm − PL0 − noise.
        assert!((ue_figure(&s, "ue", "sinr_mean_db") - sinr).abs() < 1e-6);
        residual(&s, "ue")
    };
    for max_tx in 1..=3u8 {
        let (n, r) = run("none", max_tx);
        let p = 0.5f64.powi(i32::from(max_tx));
        eprintln!("no combining, maxTx {max_tx}: {n} blocks, residual {r:.4} (expected {p})");
        assert!(
            (r - p).abs() < binomial_bound(p, n, 4.0),
            "maxTx {max_tx}: {r} vs {p}"
        );
    }
    let (n, r) = run("chase", 2);
    let p = 0.5 * bler_at(MCS, sinr + 10.0 * 2f64.log10(), 1.0);
    eprintln!("chase combining, maxTx 2: {n} blocks, residual {r:.5} (expected {p:.5})");
    // About 0.5 failures expected: at most 4 (Poisson tail below 1e-3).
    assert!(r * n <= 4.0, "{r}");
}

#[test]
fn bler_decade_db_sets_the_slope_of_the_bler_curves() {
    // At 2 dB above the MCS's 10 % point the BLER is 0.0009 with the default 1 dB per decade
    // and 0.041 with 5 dB; one transmission per block, so residual failures are first-
    // transmission failures. The 10 % points, and so the CQI, do not move.
    let sinr = sinr_for_bler(MCS, 0.1, 1.0) + 2.0;
    for decade in [1.0, 5.0] {
        let s = one_ue_summary(
            "2s",
            sinr,
            MCS,
            &format!("harq_max_transmissions = 1\nbler_decade_db = {decade:?}"),
            &udp("f", "server", "ue", "2Mbps", "500B", ""),
        );
        let (n, r) = residual(&s, "ue");
        let p = bler_at(MCS, sinr, decade);
        eprintln!("bler_decade_db {decade}: {n} blocks, BLER {r:.4} (expected {p:.4})");
        assert!(
            (r - p).abs() < binomial_bound(p, n, 4.0).max(2.0 / n),
            "{r} vs {p}"
        );
    }
    let text = scenario("1s", "", &[("ue", 100.0, "")], "");
    assert_eq!(
        error(&text, &[("cells.c.bler_decade_db", "0")]),
        "cells.c.bler_decade_db: 0 is out of range; expected 0.1 to 10 (dB from BLER 10 % to 1 %)"
    );
    assert!(
        error(&text, &[("cells.c.harq_combining", "ir")]).starts_with("cells.c.harq_combining: ")
    );
}

#[test]
fn fixed_mcs_sets_every_block_s_mcs_and_is_refused_outside_the_mcs_table() {
    // Both ends of TS 36.213 Table 7.1.7.1-1 (the MCSs with a transport block size of their
    // own), far above the threshold of MCS 28: every new block goes at the fixed MCS.
    for mcs in [0u8, 28] {
        let s = one_ue_summary(
            "0.5s",
            40.0,
            mcs,
            "",
            &udp("f", "server", "ue", "2Mbps", "500B", ""),
        );
        assert!(ue_figure(&s, "ue", "phy_throughput_bps") > 0.0, "MCS {mcs}");
        assert_eq!(ue_figure(&s, "ue", "mcs_mean"), f64::from(mcs));
    }
    // Outside it, the scenario is refused when it is loaded (before any cell is built),
    // naming the key: the cell is built only with an MCS its tables and BLER curves cover.
    let text = scenario("1s", "fixed_mcs = 29", &[("ue", 100.0, "")], "");
    assert_eq!(
        error(&text, &[]),
        "cells.c.fixed_mcs: 29 is out of range; expected an MCS index 0 to 28"
    );
    let text = scenario("1s", "", &[("ue", 100.0, "")], "");
    assert_eq!(
        error(&text, &[("cells.c.fixed_mcs", "31")]),
        "cells.c.fixed_mcs: 31 is out of range; expected an MCS index 0 to 28"
    );
}

#[test]
fn cqi_period_and_delay_set_the_cqi_lag() {
    // A UE at 60 km/h in Rayleigh fading (coherence time about 4 ms at 2 GHz). Reported every
    // TTI and used at once, the CQI is that of the block's own SINR, so the first
    // transmissions fail at most 10 % of the time (the CQI's definition, TS 36.213 §7.2.3);
    // a CQI 8 ms old, by its period or by its delay, is one of another fade.
    let first_tx_bler = |period: &str, delay: &str| {
        let cell = format!(
            "pathloss = \"uma\"\nfading = true\ncqi_period = \"{period}\"\ncqi_delay = \"{delay}\""
        );
        let text = scenario(
            "2s",
            &cell,
            &[("ue", 300.0, "speed_kmh = 60.0")],
            &udp("f", "server", "ue", "20Mbps", "1000B", ""),
        );
        let s = summary(&text, &[]);
        let blocks =
            ue_figure(&s, "ue", "harq_transmissions") - ue_figure(&s, "ue", "harq_retransmissions");
        ue_figure(&s, "ue", "harq_retransmissions") / blocks
    };
    let ideal = first_tx_bler("1ms", "0ms");
    let by_period = first_tx_bler("8ms", "0ms");
    let by_delay = first_tx_bler("1ms", "8ms");
    eprintln!("first-transmission BLER: ideal CQI {ideal:.4}, period 8 ms {by_period:.4}, delay 8 ms {by_delay:.4}");
    assert!(ideal <= 0.1, "{ideal}");
    assert!(by_period > 2.0 * ideal.max(0.05) && by_delay > 2.0 * ideal.max(0.05));
    let text = scenario("1s", "", &[("ue", 100.0, "")], "");
    assert!(error(&text, &[("cells.c.cqi_delay", "2.5ms")]).contains("not a whole number of TTIs"));
}

// ---------------------------------------------------------------------------------------------
// Channel: path loss, line of sight, shadowing, fading

#[test]
fn pathloss_kinds_and_los_give_the_hand_computed_sinr() {
    // A UE at 200 m from a 46 dBm, 10 MHz (50 PRB) eNB at 2 GHz, no shadowing or fading:
    // SINR = 46 − PL − N, N = −174 + 10·log10(50 × 180 kHz) + 9 dB. PL from TR 38.901 Table
    // 7.4.1-1 (h_BS 25 m UMa, 10 m UMi, h_UT 1.5 m, effective heights less 1 m: the breakpoint
    // d'_BP = 4·h'_BS·h'_UT·f_c/c is 320 m for UMa, 120 m for UMi, so UMa LOS is on its first
    // slope and UMi LOS on its second), Friis, or log-distance.
    let (d2, fc_ghz) = (200.0f64, 2.0f64);
    let d3 = |h_bs: f64| d2.hypot(h_bs - 1.5);
    let fc = 20.0 * fc_ghz.log10();
    let breakpoint = |h_bs: f64| 4.0 * (h_bs - 1.0) * 0.5 * fc_ghz * 1e9 / 299_792_458.0;
    assert!(breakpoint(25.0) > d2 && breakpoint(10.0) < d2);
    let uma_los = 28.0 + 22.0 * d3(25.0).log10() + fc;
    let uma_nlos = uma_los.max(13.54 + 39.08 * d3(25.0).log10() + fc);
    let umi_los = 32.4 + 40.0 * d3(10.0).log10() + fc
        - 9.5 * (breakpoint(10.0).powi(2) + 8.5f64.powi(2)).log10();
    let umi_nlos = umi_los.max(22.4 + 35.3 * d3(10.0).log10() + 21.3 * fc_ghz.log10());
    let friis = 20.0 * (4.0 * std::f64::consts::PI * d2 * fc_ghz * 1e9 / 299_792_458.0).log10();
    let log_distance = 40.0 + 35.0 * d2.log10();
    let cases = [
        ("pathloss = \"uma\"\nlos = true", uma_los),
        ("pathloss = \"uma\"\nlos = false", uma_nlos),
        ("pathloss = \"umi\"\nlos = true", umi_los),
        ("pathloss = \"umi\"", umi_nlos),
        ("pathloss = \"free_space\"", friis),
        ("pathloss = \"free_space\"\nlos = true", friis),
        (
            "pathloss = \"log_distance\"\npl0_db = 40.0\nd0_m = 1.0\nexponent = 3.5",
            log_distance,
        ),
    ];
    for (keys, pl) in cases {
        let text = scenario(
            "0.2s",
            keys,
            &[("ue", d2, "")],
            &udp("f", "server", "ue", "100kbps", "200B", ""),
        );
        let sinr = ue_figure(&summary(&text, &[]), "ue", "sinr_mean_db");
        let expected = 46.0 - pl - noise_dbm(50);
        eprintln!(
            "{}: SINR {sinr:.3} dB, hand-computed {expected:.3} dB",
            keys.replace('\n', ", ")
        );
        assert!(
            (sinr - expected).abs() < 0.1,
            "{keys}: {sinr} vs {expected}"
        );
    }
}

#[test]
fn probabilistic_los_draws_each_link_with_the_probability_of_table_7_4_2_1() {
    // 200 UEs at 200 m from a UMa eNB, no shadowing or fading: each UE's SINR is the LOS or
    // the NLOS figure of the test above, LOS with p(200 m) = 18/200 + e^(−200/63)(1 − 18/200)
    // = 0.12805 (TR 38.901 Table 7.4.2-1): 25.6 of 200 expected, σ = 4.7. Within 18 m every
    // link is LOS. The draws follow the seed.
    let n = 200;
    let names: Vec<String> = (0..n).map(|i| format!("u{i:03}")).collect();
    let los_of = |distance: f64, seed: &str| -> Vec<bool> {
        let ues: Vec<(&str, f64, &str)> =
            names.iter().map(|u| (u.as_str(), distance, "")).collect();
        let flows: String = names
            .iter()
            .map(|u| udp(&format!("f_{u}"), "server", u, "20kbps", "200B", ""))
            .collect();
        let text = scenario(
            "0.03s",
            "pathloss = \"uma\"\nlos = \"probabilistic\"",
            &ues,
            &flows,
        );
        let s = summary(&text, &[("simulation.seed", seed)]);
        let (d3, fc) = (distance.hypot(23.5), 20.0 * 2f64.log10());
        let los_pl = 28.0 + 22.0 * d3.log10() + fc;
        let nlos_pl = los_pl.max(13.54 + 39.08 * d3.log10() + fc);
        names
            .iter()
            .map(|u| {
                let sinr = ue_figure(&s, u, "sinr_mean_db");
                let (los, nlos) = (
                    46.0 - los_pl - noise_dbm(50),
                    46.0 - nlos_pl - noise_dbm(50),
                );
                if (sinr - los).abs() < 0.01 {
                    true
                } else {
                    assert!(
                        (sinr - nlos).abs() < 0.01,
                        "{u}: {sinr} is neither {los} nor {nlos}"
                    );
                    false
                }
            })
            .collect()
    };
    let first = los_of(200.0, "1");
    let count = first.iter().filter(|&&l| l).count();
    eprintln!("probabilistic LOS at 200 m: {count} of {n} links LOS (25.6 expected)");
    assert!((7..=44).contains(&count), "{count}");
    assert_eq!(los_of(200.0, "1"), first, "same seed, same draws");
    assert_ne!(los_of(200.0, "2"), first, "another seed, other draws");
    assert!(
        los_of(10.0, "1").iter().all(|&l| l),
        "within 18 m every link is LOS"
    );
    // Only the models with a LOS condition can draw one.
    let text = scenario(
        "0.03s",
        "pathloss = \"free_space\"\nlos = \"probabilistic\"",
        &[("ue", 200.0, "")],
        "",
    );
    assert_eq!(
        error(&text, &[]),
        "cells.c.los: \"probabilistic\" needs a path-loss model with a LOS condition: pathloss = \"uma\" or \"umi\""
    );
    let text = scenario(
        "0.03s",
        "pathloss = \"uma\"\nlos = \"sometimes\"",
        &[("ue", 200.0, "")],
        "",
    );
    assert!(
        error(&text, &[]).contains("'sometimes' is not a LOS condition; expected true (LOS), false (NLOS) or \"probabilistic\""),
        "{}",
        error(&text, &[])
    );
}

#[test]
fn shadowing_db_spreads_the_sinr_across_seeds() {
    // A UE that does not move keeps one shadowing draw for the run: over 40 seeds its mean
    // SINR has the standard deviation shadowing_db (99.9 % chi-square interval for 39 degrees
    // of freedom: 0.65σ to 1.35σ); without shadowing every seed gives the same SINR.
    let spread = |sigma: f64| {
        let text = scenario(
            "0.05s",
            &format!("pathloss = \"uma\"\nshadowing_db = {sigma:?}"),
            &[("ue", 200.0, "")],
            &udp("f", "server", "ue", "400kbps", "200B", ""),
        );
        let sinrs: Vec<f64> = (1..=40)
            .map(|seed| {
                ue_figure(
                    &summary(&text, &[("simulation.seed", &seed.to_string())]),
                    "ue",
                    "sinr_mean_db",
                )
            })
            .collect();
        mean_std(&sinrs).1
    };
    let (with, without) = (spread(8.0), spread(0.0));
    eprintln!("SINR spread across 40 seeds: shadowing_db 8 → {with:.2} dB, 0 → {without:.2} dB");
    assert!((0.65 * 8.0..1.35 * 8.0).contains(&with), "{with}");
    assert!(without < 1e-9, "{without}");
}

#[test]
fn fading_lowers_the_mean_sinr_in_db_by_the_rayleigh_offset() {
    // The mean in dB of a unit-power Rayleigh fading gain is −10·γ/ln 10 = −2.51 dB (γ Euler's
    // constant). 2 s at 100 km/h (Doppler 185 Hz) hold about 700 independent fades: the
    // standard error of the mean (5.57 dB per fade) is 0.2 dB. A UE at speed 0 has no fading.
    let mean_sinr = |fading: bool, speed: &str| {
        let cell = format!("pathloss = \"uma\"\nfading = {fading}");
        let text = scenario(
            "2s",
            &cell,
            &[("ue", 200.0, speed)],
            &udp("f", "server", "ue", "20Mbps", "1000B", ""),
        );
        ue_figure(&summary(&text, &[]), "ue", "sinr_mean_db")
    };
    let large_scale = mean_sinr(false, "speed_kmh = 100.0");
    let faded = mean_sinr(true, "speed_kmh = 100.0");
    let standing = mean_sinr(true, "");
    let offset = faded - large_scale;
    let rayleigh = -10.0 * 0.577_215_664_901_532_9 / 10f64.ln();
    eprintln!("fading: mean SINR {faded:.2} dB vs {large_scale:.2} dB without: {offset:.2} dB (Rayleigh {rayleigh:.2})");
    assert!((offset - rayleigh).abs() < 0.6, "{offset}");
    assert_eq!(standing, large_scale);
}

// ---------------------------------------------------------------------------------------------
// Uplink

#[test]
fn uplink_grant_delay_adds_to_the_min_rtt() {
    let min_rtt = |grant: &str| {
        let cell = format!("bandwidth_mhz = 1.4\npathloss = \"free_space\"\nuplink = {{ grant_delay = \"{grant}\" }}");
        flow_figure(
            &summary(
                &scenario("1s", &cell, &[("ue", 100.0, "")], &tcp("t", "ue")),
                &[],
            ),
            "t",
            "sender.min_rtt_s",
        )
    };
    let (short, long) = (min_rtt("8ms"), min_rtt("48ms"));
    eprintln!("TCP min RTT: grant delay 8 ms {short:.6} s, 48 ms {long:.6} s");
    // The ACKs wait 40 ms more; the downlink side may shift by up to one TTI.
    assert!((long - short - 0.040).abs() <= 0.001, "{short} {long}");
}

#[test]
fn uplink_loss_loses_that_fraction_of_uplink_packets() {
    let lost = |loss: f64| {
        let cell = format!(
            "bandwidth_mhz = 1.4\npathloss = \"free_space\"\nuplink = {{ loss = {loss:?} }}"
        );
        let s = summary(
            &scenario(
                "2s",
                &cell,
                &[("ue", 100.0, "")],
                &udp("up", "ue", "server", "4Mbps", "500B", ""),
            ),
            &[],
        );
        let dropped = flow_figure(&s, "up", "drops.link_loss");
        assert_eq!(dropped, ue_figure(&s, "ue", "uplink_lost"));
        (dropped, flow_figure(&s, "up", "packets_sent"))
    };
    let (dropped, sent) = lost(0.1);
    eprintln!("uplink loss 0.1: {dropped} of {sent} packets lost");
    assert!(
        (dropped / sent - 0.1).abs() < binomial_bound(0.1, sent, 4.0),
        "{dropped}/{sent}"
    );
    assert_eq!(lost(0.0).0, 0.0);
}

#[test]
fn uplink_sr_bsr_makes_acks_wait_for_their_grants() {
    // A bulk download's ACKs over the request–grant cycle (TS 36.321 §5.4.4–5.4.5): an ACK that
    // finds the UE without a grant waits for its SR occasion, 4 ms for the grant and 4 ms for
    // the PUSCH, and leaves at the end of that TTI (at least 9 ms, against the fixed delay's
    // 8 ms plus 0.1 ms of transmission); one that arrives while the UE sends goes in its next
    // BSR, 9 ms before its grant; the longest wait is an SR period plus those 9 ms. The
    // smallest RTT therefore grows by at least 0.9 ms and by at most the SR period plus a TTI
    // (measured: 20.1 → 36.0 ms: the sender samples the first segment of a round, whose ACK
    // waits longest), and the download, limited by the downlink, keeps its goodput within 2 %
    // (4.17 → 4.14 Mb/s).
    let rtts = |scheduling: &str| {
        let cell =
            format!("bandwidth_mhz = 1.4\npathloss = \"free_space\"\nuplink = {{ {scheduling} }}");
        let s = summary(
            &scenario("3s", &cell, &[("ue", 100.0, "")], &tcp("t", "ue")),
            &[],
        );
        (
            flow_figure(&s, "t", "sender.min_rtt_s"),
            flow_figure(&s, "t", "goodput_bps"),
        )
    };
    let fixed = rtts("");
    let sr = rtts("scheduling = { kind = \"sr_bsr\", sr_period = \"20ms\" }");
    eprintln!(
        "fixed: min RTT {:.4} s, goodput {:.0} b/s",
        fixed.0, fixed.1
    );
    eprintln!(
        "SR/BSR, 20 ms: min RTT {:.4} s, goodput {:.0} b/s",
        sr.0, sr.1
    );
    assert!(sr.0 - fixed.0 >= 0.0009, "{fixed:?} {sr:?}");
    assert!(sr.0 - fixed.0 <= 0.020 + 0.001, "{fixed:?} {sr:?}");
    assert!((sr.1 / fixed.1 - 1.0).abs() < 0.02, "{fixed:?} {sr:?}");
}

#[test]
fn uplink_scheduling_keys_are_checked_against_the_specifications_tables() {
    let text = |scheduling: &str| {
        let cell = format!(
            "bandwidth_mhz = 1.4\npathloss = \"free_space\"\nuplink = {{ scheduling = {{ {scheduling} }} }}"
        );
        scenario("1s", &cell, &[("ue", 100.0, "")], &tcp("t", "ue"))
    };
    let e = error(&text("kind = \"sr_bsr\", sr_period = \"3ms\""), &[]);
    assert!(
        e.contains("cells.c.uplink.scheduling.sr_period")
            && e.contains("1, 2, 5, 10, 20, 40, 80 ms"),
        "{e}"
    );
    let e = error(&text("kind = \"sr_bsr\", sr_to_grant = \"1500us\""), &[]);
    assert!(e.contains("cells.c.uplink.scheduling.sr_to_grant"), "{e}");
    let e = error(&text("kind = \"sr_bsr\", grant_to_pusch = \"40ms\""), &[]);
    assert!(
        e.contains("cells.c.uplink.scheduling.grant_to_pusch"),
        "{e}"
    );
    let e = error(&text("kind = \"configured\", period = \"6ms\""), &[]);
    assert!(e.contains("cells.c.uplink.scheduling.period"), "{e}");
    let e = error(&text("kind = \"configured\", grant = \"0B\""), &[]);
    assert!(e.contains("cells.c.uplink.scheduling.grant"), "{e}");
    let e = error(&text("kind = \"polled\""), &[]);
    assert!(e.contains("uplink") && e.contains("polled"), "{e}");
    // A key without its unit, a key of another kind, and a bare string each name the key.
    assert_eq!(
        error(&text("kind = \"sr_bsr\", sr_period = 3"), &[]),
        "cells.c.uplink.scheduling.sr_period: 3 has no unit; a time needs one of ns, us, ms, s, min (e.g. '3ms')"
    );
    let e = error(&text("kind = \"fixed\", sr_period = \"5ms\""), &[]);
    assert!(
        e.starts_with("cells.c.uplink.scheduling.sr_period: unknown key"),
        "{e}"
    );
    // A kind without keys may be written as a string, as the format's other tagged tables.
    let cell = |s: &str| {
        format!("bandwidth_mhz = 1.4\npathloss = \"free_space\"\nuplink = {{ scheduling = {s} }}")
    };
    let at = |s: &str| scenario("1s", &cell(s), &[("ue", 100.0, "")], &tcp("t", "ue"));
    summary(&at("\"fixed\""), &[]);
    assert_eq!(
        error(&at("\"sr_bsr\""), &[]),
        "cells.c.uplink.scheduling: expected a table like { kind = \"sr_bsr\", … }, found 'sr_bsr'"
    );
    assert_eq!(
        error(&at("5"), &[]),
        "cells.c.uplink.scheduling: expected a table with kind = one of: fixed, sr_bsr, configured, found 5"
    );
    // The defaults of each kind load.
    summary(&text("kind = \"sr_bsr\""), &[]);
    summary(&text("kind = \"configured\", period = \"10ms\""), &[]);
}

#[test]
fn uplink_rate_serves_the_uplink_at_that_rate() {
    // 2 Mbit/s offered to a 1 Mbit/s uplink: 1028-byte IP packets plus the 2-byte PDCP and
    // 2-byte RLC AM headers leave every 8.256 ms once the first has waited its grant delay
    // (8 ms); they reach the server 5 ms later.
    let cell = "bandwidth_mhz = 1.4\npathloss = \"free_space\"\nuplink = { rate = \"1Mbps\" }";
    let s = summary(
        &scenario(
            "2s",
            cell,
            &[("ue", 100.0, "")],
            &udp("up", "ue", "server", "2Mbps", "1000B", ""),
        ),
        &[],
    );
    let delivered = flow_figure(&s, "up", "packets_delivered");
    let expected = ((2.0 - 0.008 - BACKHAUL_S) / ((1028.0 + 4.0) * 8.0 / 1e6)).floor();
    eprintln!("uplink 1 Mbit/s: {delivered} packets delivered in 2 s (expected {expected})");
    assert!(
        (delivered - expected).abs() <= 1.0,
        "{delivered} vs {expected}"
    );
}

// ---------------------------------------------------------------------------------------------
// RLC

#[test]
fn discard_at_max_retx_reports_no_radio_link_failure() {
    // BLER 0.5, one HARQ transmission, one SDU per AMD PDU. An AMD PDU reaches
    // maxRetxThreshold t after t + 1 failed transmissions (36.322 §5.2.1), with probability
    // 0.5^(t+1) at least (a poll retransmission also counts). With "discard" its SDU is
    // discarded and counted, and no radio link failure is reported; with "rlf" the failure is
    // reported and every SDU is still delivered.
    let sinr = sinr_for_bler(MCS, 0.5, 1.0);
    let run = |mode: &str, t: u32| {
        one_ue_summary(
            "5s",
            sinr,
            MCS,
            &format!(
                "harq_max_transmissions = 1\nrlc = {{ max_retx = {t}, on_max_retx = \"{mode}\" }}"
            ),
            &one_block_flow(),
        )
    };
    let mut discards = Vec::new();
    for t in [1u32, 2, 3] {
        let s = run("discard", t);
        let (reached, discarded) = (
            ue_figure(&s, "ue", "rlc_max_retx_reached"),
            ue_figure(&s, "ue", "rlc_discards"),
        );
        let (sent, delivered) = (
            flow_figure(&s, "f", "packets_sent"),
            flow_figure(&s, "f", "packets_delivered"),
        );
        eprintln!("discard, max_retx {t}: threshold reached {reached}, {discarded} SDUs discarded, {delivered} of {sent} delivered");
        assert_eq!(
            ue_figure(&s, "ue", "radio_link_failure"),
            0.0,
            "max_retx {t}"
        );
        let p = 0.5f64.powi(t as i32 + 1);
        assert!(
            reached / sent >= p - binomial_bound(p, sent, 4.0),
            "{reached}"
        );
        // Nothing is lost silently.
        assert!(delivered + discarded >= sent);
        discards.push(discarded);
    }
    assert!(discards.windows(2).all(|w| w[1] < w[0]), "{discards:?}");
    let s = run("rlf", 1);
    assert_eq!(ue_figure(&s, "ue", "radio_link_failure"), 1.0);
    assert!(ue_figure(&s, "ue", "rlc_max_retx_reached") > 0.0);
    assert_eq!(ue_figure(&s, "ue", "rlc_discards"), 0.0);
    assert_eq!(
        flow_figure(&s, "f", "packets_delivered"),
        flow_figure(&s, "f", "packets_sent")
    );
}

#[test]
fn rlc_um_loses_what_harq_loses_and_am_recovers_it() {
    // BLER 0.2, one HARQ transmission, one SDU per block: UM loses exactly the SDUs of the
    // blocks HARQ gave up; AM retransmits them and delivers all.
    let sinr = sinr_for_bler(MCS, 0.2, 1.0);
    let run = |mode: &str| {
        one_ue_summary(
            "5s",
            sinr,
            MCS,
            &format!("harq_max_transmissions = 1\nrlc = {{ mode = \"{mode}\" }}"),
            &one_block_flow(),
        )
    };
    let um = run("um");
    let (sent, delivered) = (
        flow_figure(&um, "f", "packets_sent"),
        flow_figure(&um, "f", "packets_delivered"),
    );
    let failed = ue_figure(&um, "ue", "harq_residual_failures");
    eprintln!("RLC UM: {delivered} of {sent} delivered, {failed} blocks lost by HARQ");
    assert_eq!(sent - delivered, failed);
    assert!((failed / sent - 0.2).abs() < binomial_bound(0.2, sent, 4.0));
    assert_eq!(ue_figure(&um, "ue", "rlc_retransmissions"), 0.0);
    let am = run("am");
    assert_eq!(flow_figure(&am, "f", "packets_delivered"), sent);
    assert!(
        ue_figure(&am, "ue", "rlc_retransmissions")
            >= ue_figure(&am, "ue", "harq_residual_failures")
    );
}

#[test]
fn rlc_t_reordering_holds_an_um_sdu_after_a_gap() {
    // UM, BLER 0.2, one SDU every 40 ms: the SDU after a lost one waits exactly t-Reordering
    // (36.322 §5.1.2.2.3), and the next arrives after the timer expired, so the largest delay
    // is the smallest (7 ms: 5 ms of backhaul, the TTI wait, the TTI) plus t-Reordering.
    let sinr = sinr_for_bler(MCS, 0.2, 1.0);
    for t_reordering in [10.0, 30.0] {
        let cell = format!(
            "{}\nharq_max_transmissions = 1\nrlc = {{ mode = \"um\", t_reordering = \"{t_reordering}ms\" }}",
            fixed_sinr_cell(sinr, MCS)
        );
        let flow = udp(
            "f",
            "server",
            "ue",
            "17kbps",
            ONE_BLOCK_PAYLOAD,
            "stop = \"4s\"",
        );
        let s = summary(&scenario("5s", &cell, &[("ue", 5.0, "")], &flow), &[]);
        let (min, max) = (
            flow_figure(&s, "f", "delay_p50_s"),
            flow_figure(&s, "f", "delay_max_s"),
        );
        eprintln!("UM t-Reordering {t_reordering} ms: delay median {min:.4} s, max {max:.4} s");
        // (Plus 4 µs of backhaul transmission for the median; the held SDU leaves when the
        // timer expires, on a TTI boundary.)
        assert!((min - 0.007).abs() < 1e-5, "{min}");
        assert!((max - 0.007 - t_reordering * 1e-3).abs() < 1e-5, "{max}");
    }
}

#[test]
fn rlc_t_status_prohibit_and_t_poll_retransmit_set_the_status_reports() {
    // Counting STATUS PDUs: with an uplink that loses everything (loss = 1, a test device),
    // `uplink_lost` is the number of STATUS PDUs the UE sent, and the eNB never hears one:
    // after 512 PDUs (the AM window) it stalls and polls once per t-PollRetransmit. With
    // t-StatusProhibit the UE sends at most one report per prohibit time.
    let statuses = |prohibit: &str, poll: &str| {
        let s = one_ue_summary(
            "2s",
            30.0,
            28,
            &format!("rlc = {{ t_status_prohibit = \"{prohibit}\", t_poll_retransmit = \"{poll}\" }}\nuplink = {{ loss = 1.0 }}"),
            &udp("f", "server", "ue", "6Mbps", "500B", ""),
        );
        ue_figure(&s, "ue", "uplink_lost")
    };
    let (base, prohibited, slow_poll) = (
        statuses("0ms", "45ms"),
        statuses("200ms", "45ms"),
        statuses("0ms", "100ms"),
    );
    eprintln!("STATUS PDUs in 2 s: {base} (defaults), {prohibited} (t-StatusProhibit 200 ms), {slow_poll} (t-PollRetransmit 100 ms)");
    assert!(prohibited <= 2.0 / 0.2 + 1.0, "{prohibited}");
    assert!(base > 3.0 * prohibited);
    // The stalled window (from about 0.5 s on) is polled 1.5/0.045 − 1.5/0.1 ≈ 18 times more.
    assert!((base - slow_poll - 18.0).abs() <= 3.0, "{base} {slow_poll}");
}

#[test]
fn poll_pdu_and_poll_byte_keep_the_window_open() {
    // One 549-byte AMD PDU per TTI (MCS 28 on 6 PRBs), a 200 ms uplink grant delay. With
    // neither counter the transmitter polls only when its 512-PDU window stalls (36.322
    // §5.2.2.1), and waits 1 + 200 TTIs for the STATUS: cycles of 512 busy and 201 idle TTIs.
    // A poll every 32 PDUs, or every 25 KB (46 PDUs), gets the STATUS back before the window
    // closes. t-PollRetransmit is set beyond the wait so that it plays no part.
    let busy_ttis = |pdu: &str, byte: &str| {
        let s = one_ue_summary(
            "3s",
            40.0,
            28,
            &format!(
                "rlc = {{ poll_pdu = {pdu}, poll_byte = {byte}, t_poll_retransmit = \"500ms\" }}\n\
             uplink = {{ grant_delay = \"200ms\" }}"
            ),
            &udp("f", "server", "ue", "6Mbps", "500B", ""),
        );
        ue_figure(&s, "ue", "prbs") / 6.0
    };
    let by_pdu = busy_ttis("32", "\"infinity\"");
    let by_byte = busy_ttis("\"infinity\"", "\"25KB\"");
    let stalled = busy_ttis("\"infinity\"", "\"infinity\"");
    let cycle = 512.0 + 201.0;
    let expected = (by_pdu / cycle).floor() * 512.0 + (by_pdu % cycle).min(512.0);
    eprintln!("busy TTIs in 3 s: pollPDU 32 {by_pdu}, pollByte 25KB {by_byte}, neither {stalled} (expected {expected})");
    assert_eq!(by_pdu, by_byte);
    assert!((stalled - expected).abs() <= 1.0, "{stalled} vs {expected}");

    let text = scenario("1s", "", &[("ue", 100.0, "")], "");
    assert_eq!(
        error(&text, &[("cells.c.rlc.poll_pdu", "0")]),
        "cells.c.rlc.poll_pdu: 0 is not a pollPDU; expected a number of PDUs ≥ 1 (e.g. 32), or \"infinity\""
    );
    assert_eq!(
        error(&text, &[("cells.c.rlc.poll_byte", "0KB")]),
        "cells.c.rlc.poll_byte: '0KB' must be > 0; use a size such as '25KB', or \"infinity\""
    );
}

#[test]
fn rlc_buffer_counts_packets_or_bytes() {
    // 2 Mbit/s of 1028-byte packets into a 1 Mbit/s cell: the buffer fills to its limit. The
    // buffer figure counts each SDU (1030 bytes with PDCP) with an estimated 2-byte RLC header.
    let buffer_max = |limit: &str| {
        let s = one_ue_summary(
            "2s",
            30.0,
            MCS,
            &format!("rlc = {{ buffer = \"{limit}\" }}"),
            &udp("f", "server", "ue", "2Mbps", "1000B", ""),
        );
        assert!(ue_figure(&s, "ue", "sdus_refused") > 0.0);
        ue_figure(&s, "ue", "buffer_max_bytes")
    };
    let packets = buffer_max("20p");
    let bytes = buffer_max("20KB");
    eprintln!("RLC buffer maximum: '20p' {packets} bytes, '20KB' {bytes} bytes");
    assert_eq!(packets, 20.0 * 1032.0);
    // At most 20 000 bytes of SDUs (the last may be partly sent), 2 header bytes per SDU.
    assert!(
        bytes <= 20_000.0 + 2.0 * 20.0 && bytes > 20_000.0 - 1030.0,
        "{bytes}"
    );

    let text = scenario("1s", "", &[("ue", 100.0, "")], "");
    assert_eq!(
        error(&text, &[("cells.c.rlc.buffer", "200kb")]),
        "cells.c.rlc.buffer: '200kb' is not a queue limit; use whole packets ('500p') or a size such \
         as '200KB' (units B, kB, KB, MB, GB, KiB, MiB, GiB; kB = KB = 1000 bytes, KiB = 1024 bytes)"
    );
}

// ---------------------------------------------------------------------------------------------
// PDCP

#[test]
fn pdcp_sn_bits_set_the_header_size() {
    // One 1028-byte IP packet per second up a 80 kbit/s uplink: it carries the PDCP header
    // (1, 2 or 3 bytes for 7, 12 or 18-bit SNs, TS 36.323 §6.2.3 ff.) and the 2-byte RLC AM
    // header. One-way delay = grant delay 8 ms + (1028 + header + 2)·8/80 000 s + the
    // backhaul's 8.224 µs of transmission and 5 ms.
    for (sn_bits, header) in [(7, 1.0), (12, 2.0), (18, 3.0)] {
        let s = one_ue_summary(
            "3s",
            30.0,
            MCS,
            &format!("pdcp = {{ sn_bits = {sn_bits} }}\nuplink = {{ rate = \"80kbps\" }}"),
            &udp("up", "ue", "server", "8kbps", "1000B", ""),
        );
        let delay = flow_figure(&s, "up", "delay_max_s");
        let expected =
            0.008 + (1028.0 + header + 2.0) * 8.0 / 80_000.0 + 1028.0 * 8.0 / 1e9 + BACKHAUL_S;
        eprintln!("PDCP SN {sn_bits} bits: uplink delay {delay:.9} s (expected {expected:.9})");
        assert!((delay - expected).abs() < 1e-9, "{delay} vs {expected}");
        assert_eq!(flow_figure(&s, "up", "delay_mean_s"), delay);
    }
    let text = scenario("1s", "", &[("ue", 100.0, "")], "");
    assert_eq!(
        error(&text, &[("cells.c.pdcp.sn_bits", "9")]),
        "cells.c.pdcp.sn_bits: 9 is not a PDCP SN length; expected 7, 12, 15 or 18 (bits)"
    );
}

#[test]
fn pdcp_reordering_holds_sdus_after_a_discarded_one() {
    // RLC AM discarding at maxRetxThreshold (BLER 0.5, one HARQ transmission) leaves gaps in
    // COUNT. Without reordering the UE's PDCP delivers what RLC delivers; with reordering it
    // holds the SDUs after a gap until t-Reordering (500 ms) expires (36.323 §5.1.2.1.4). The
    // same SDUs arrive either way, only later.
    let sinr = sinr_for_bler(MCS, 0.5, 1.0);
    let run = |reordering: bool| {
        let cell = format!(
            "{}\nharq_max_transmissions = 1\nrlc = {{ max_retx = 1, on_max_retx = \"discard\" }}\n\
             pdcp = {{ reordering = {reordering}, t_reordering = \"500ms\" }}",
            fixed_sinr_cell(sinr, MCS)
        );
        let flow = udp(
            "f",
            "server",
            "ue",
            "68kbps",
            ONE_BLOCK_PAYLOAD,
            "stop = \"3s\"",
        );
        let s = summary(&scenario("4s", &cell, &[("ue", 5.0, "")], &flow), &[]);
        (
            flow_figure(&s, "f", "delay_max_s"),
            flow_figure(&s, "f", "packets_delivered"),
            ue_figure(&s, "ue", "rlc_discards"),
        )
    };
    let (plain, held) = (run(false), run(true));
    eprintln!("PDCP without reordering: max delay {:.3} s, {} delivered; with: {:.3} s, {} delivered ({} discarded)", plain.0, plain.1, held.0, held.1, held.2);
    assert!(held.2 > 0.0);
    assert!(plain.0 < 0.5, "{plain:?}");
    assert!(held.0 >= 0.5, "{held:?}");
    assert_eq!(plain.1, held.1);

    let text = scenario("1s", "rlc = { mode = \"um\" }", &[("ue", 100.0, "")], "");
    assert_eq!(
        error(&text, &[("cells.c.pdcp.reordering", "true")]),
        "cells.c.pdcp.reordering: true is not allowed with rlc.mode = \"um\"; PDCP reordering is for RLC \
         AM bearers (TS 36.323 §5.1.2.1.4)"
    );
}

#[test]
fn pdcp_in_a_radio_access_network_has_one_receiver() {
    // In a [ran] the UE's PDCP receiver sits above the cells: ran.handover.reordering decides
    // when it reorders, and every cell gives it the same SN length and t-Reordering.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples/000/forwarding.toml");
    let load = |over: &[(&str, &str)]| {
        let over: Vec<(String, String)> = over
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        load_path(&path, &over)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    assert_eq!(
        load(&[("cells.target.pdcp.reordering", "true")]).unwrap_err(),
        "cells.target.pdcp.reordering: true is not allowed with [ran]: the UE's PDCP receiver sits above \
         the cells there and reorders around handovers as ran.handover.reordering says"
    );
    assert_eq!(
        load(&[("cells.target.pdcp.sn_bits", "18")]).unwrap_err(),
        "cells.target.pdcp.sn_bits: 18 differs from cells.source.pdcp.sn_bits (12); a radio access \
         network uses one PDCP SN length"
    );
    assert_eq!(
        load(&[("cells.target.pdcp.t_reordering", "80ms")]).unwrap_err(),
        "cells.target.pdcp.t_reordering: '80ms' differs from cells.source.pdcp.t_reordering ('50ms'); a \
         radio access network uses one t-Reordering"
    );
    let same = [
        ("cells.source.pdcp.t_reordering", "80ms"),
        ("cells.target.pdcp.t_reordering", "80ms"),
    ];
    assert_eq!(load(&same), Ok(()));
}

// ---------------------------------------------------------------------------------------------
// The echo

#[test]
fn new_keys_are_echoed_with_their_defaults() {
    let text = scenario(
        "0.1s",
        "scheduler = \"wfq\"",
        &[("ue", 100.0, "weight = 2.5")],
        "",
    );
    let sc = celltcp_scenario::load_str(&text, &[]).unwrap();
    let out = run(&sc, &RunOptions::default()).unwrap();
    let c = &out.summary["scenario"]["cells"]["c"];
    assert_eq!(c["ues"]["ue"]["weight"], 2.5);
    assert_eq!(c["pf_time_constant"], "1s");
    assert_eq!(c["harq_combining"], "chase");
    assert_eq!(c["bler_decade_db"], 1.0);
    assert_eq!(c["rlc"]["poll_pdu"], 32);
    assert_eq!(c["rlc"]["poll_byte"], "25KB");
    assert_eq!(
        c["pdcp"],
        serde_json::json!({
            "sn_bits": 12,
            "reordering": false,
            "t_reordering": "50ms",
            "status_report_required": true
        })
    );
    // The echo loads to a scenario with the same echo.
    let echo: toml::Table = serde_json::from_value(sc.echo()).unwrap();
    let again = celltcp_scenario::load_str(&toml::to_string(&echo).unwrap(), &[]).unwrap();
    assert_eq!(again.echo(), sc.echo());
}

#[test]
fn cqi_table_chooses_the_256qam_tables() {
    // A 20 MHz cell, one UE 50 m away in free space (SINR far above every threshold) with a
    // saturating UDP flow: link adaptation reaches the top MCS of the cell's MCS table.
    let flows = udp("f", "server", "ue", "150Mbps", "1400B", "");
    let cell = |table: &str| format!("bandwidth_mhz = 20\npathloss = \"free_space\"\n{table}");
    let peak = |table: &str| {
        let text = scenario("0.5s", &cell(table), &[("ue", 50.0, "")], &flows);
        ue_figure(&summary(&text, &[]), "ue", "phy_throughput_bps")
    };
    let table1 = peak("");
    let table2 = peak("cqi_table = \"7.2.3-2\"");
    // 75 376 and 97 896 bits per 1 ms TTI (TS 36.213 Table 7.1.7.2.1-1, 100 PRBs).
    assert!((table1 / 75.376e6 - 1.0).abs() < 0.03, "{table1}");
    assert!((table2 / 97.896e6 - 1.0).abs() < 0.03, "{table2}");
    assert_eq!(
        peak("cqi_table = \"7.2.3-1\""),
        table1,
        "the default is Table 7.2.3-1"
    );

    let text = scenario("1s", "", &[("ue", 100.0, "")], "");
    let e = error(&text, &[("cells.c.cqi_table", "256qam")]);
    assert!(e.starts_with("cells.c.cqi_table: "), "{e}");
    assert!(e.contains("7.2.3-2"), "{e}");
    assert_eq!(
        error(
            &text,
            &[
                ("cells.c.cqi_table", "7.2.3-2"),
                ("cells.c.fixed_mcs", "28")
            ]
        ),
        "cells.c.fixed_mcs: 28 is out of range with cqi_table = \"7.2.3-2\"; expected an MCS \
         index 0 to 27 (TS 36.213 Table 7.1.7.1-1A)"
    );
    // The echo names the table when it is not the default.
    let sc = celltcp_scenario::load_str(&text, &[]).unwrap();
    assert!(sc.echo()["cells"]["c"].get("cqi_table").is_none());
    let over = [("cells.c.cqi_table".to_string(), "7.2.3-2".to_string())];
    let sc = celltcp_scenario::load_str(&text, &over).unwrap();
    assert_eq!(sc.echo()["cells"]["c"]["cqi_table"], "7.2.3-2");
}

#[test]
fn ue_category_bounds_the_transport_block_of_every_tti() {
    // The cell of `cqi_table_chooses_the_256qam_tables`: 100 PRBs at MCS 28 carry 75 376
    // bits per TTI. A UE category bounds the block (TS 36.306 Table 4.1-1): category 1 to
    // 10 296 bits, category 2 to 51 024; category 3 allows 75 376, the cell's largest block.
    let flows = udp("f", "server", "ue", "150Mbps", "1400B", "");
    let cell =
        |category: &str| format!("bandwidth_mhz = 20\npathloss = \"free_space\"\n{category}");
    let run_with = |category: &str| {
        let text = scenario("0.5s", &cell(category), &[("ue", 50.0, "")], &flows);
        let s = summary(&text, &[]);
        let phy = ue_figure(&s, "ue", "phy_throughput_bps");
        let prbs = s["cells"]["c"]["prb_utilization"]
            .as_f64()
            .unwrap_or(f64::NAN);
        eprintln!(
            "ue_category '{category}': PHY {:.3} Mbit/s, PRB utilisation {prbs:.3}",
            phy / 1e6
        );
        (phy, prbs)
    };
    let (unbounded, all_prbs) = run_with("");
    assert!((unbounded / 75.376e6 - 1.0).abs() < 0.03, "{unbounded}");
    let (cat1, cat1_prbs) = run_with("ue_category = 1");
    assert!((cat1 / 10.296e6 - 1.0).abs() < 0.03, "{cat1}");
    // The block of category 1 fills 14 of the 100 PRBs at MCS 28; the others stay free.
    assert!(cat1_prbs < 0.2 && all_prbs > 0.9, "{cat1_prbs} {all_prbs}");
    let (cat2, _) = run_with("ue_category = 2");
    assert!((cat2 / 51.024e6 - 1.0).abs() < 0.03, "{cat2}");
    assert_eq!(run_with("ue_category = 3"), (unbounded, all_prbs));

    let text = scenario("1s", "", &[("ue", 100.0, "")], "");
    assert_eq!(
        error(&text, &[("cells.c.ue_category", "6")]),
        "cells.c.ue_category: 6 is not a UE category of TS 36.306 Table 4.1-1; expected 1 to 5"
    );
    assert!(
        error(&text, &[("cells.c.ue_category", "\"cat4\"")]).starts_with("cells.c.ue_category: ")
    );
    // Echoed only when given, so that every scenario written before the key echoes as it did.
    let sc = celltcp_scenario::load_str(&text, &[]).unwrap();
    assert!(sc.echo()["cells"]["c"].get("ue_category").is_none());
    let over = [("cells.c.ue_category".to_string(), "4".to_string())];
    let sc = celltcp_scenario::load_str(&text, &over).unwrap();
    assert_eq!(sc.echo()["cells"]["c"]["ue_category"], 4);
}
