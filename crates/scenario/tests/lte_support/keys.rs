//! Small one-cell scenarios for the tests of the `[cells.NAME]` keys (`lte_keys.rs`): a server
//! behind a 1 Gb/s, 5 ms link to the eNB, one cell `c` with the keys under test, UEs at given
//! positions, and UDP or TCP flows. Every run is short (≤ 3 s simulated, mostly on a 1.4 MHz
//! carrier) so that the whole file runs in seconds in a debug build.

#![allow(dead_code)]

use celltcp_radio::channel::noise_power_dbm;
use celltcp_radio::phy::{BlerModel, Mcs};
use celltcp_scenario::{load_str, run, RunOptions};
use serde_json::Value;

/// One-way delay of the server–eNB link, seconds.
pub const BACKHAUL_S: f64 = 0.005;

/// The scenario text: `duration`, the lines of `[cells.c]` (after `enb`), the UEs as
/// `(name, x metres, extra inline keys)`, and the flows' tables.
pub fn scenario(duration: &str, cell: &str, ues: &[(&str, f64, &str)], flows: &str) -> String {
    let mut nodes = String::from("server = { kind = \"host\" }\nenb = { kind = \"router\" }\n");
    let mut ue_lines = String::new();
    for (name, x, extra) in ues {
        nodes.push_str(&format!("{name} = {{ kind = \"host\" }}\n"));
        let extra = if extra.is_empty() {
            String::new()
        } else {
            format!(", {extra}")
        };
        ue_lines.push_str(&format!("{name} = {{ position = [{x:?}, 0.0]{extra} }}\n"));
    }
    format!(
        "[simulation]\nduration = \"{duration}\"\nseed = 1\n\n[nodes]\n{nodes}\n\
         [links.backhaul]\na = \"server\"\nb = \"enb\"\nrate = \"1Gbps\"\ndelay = \"5ms\"\n\
         queue = {{ kind = \"droptail\", limit = \"1000p\" }}\n\n\
         [cells.c]\nenb = \"enb\"\n{cell}\n\n[cells.c.ues]\n{ue_lines}\n{flows}"
    )
}

/// A UDP flow table from `src` to `dst` at `rate` with `size`-byte payloads, plus extra lines.
pub fn udp(name: &str, src: &str, dst: &str, rate: &str, size: &str, extra: &str) -> String {
    format!(
        "[flows.{name}]\nkind = \"udp\"\nsrc = \"{src}\"\ndst = \"{dst}\"\nrate = \"{rate}\"\n\
         packet_size = \"{size}\"\n{extra}\n"
    )
}

/// A bulk TCP (CUBIC) download from the server to `ue`.
pub fn tcp(name: &str, ue: &str) -> String {
    format!(
        "[flows.{name}]\nkind = \"tcp\"\nsrc = \"server\"\ndst = \"{ue}\"\ncc = \"cubic\"\n\
         app = {{ kind = \"bulk\" }}\n"
    )
}

/// Loads `text` with `overrides` and runs it; the summary.
pub fn summary(text: &str, overrides: &[(&str, &str)]) -> Value {
    let over: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let sc = load_str(text, &over).unwrap_or_else(|e| panic!("{e}\n{text}"));
    run(&sc, &RunOptions::default()).unwrap().summary
}

/// The loader's message for `text` with `overrides` (which must fail).
pub fn error(text: &str, overrides: &[(&str, &str)]) -> String {
    let over: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    match load_str(text, &over) {
        Ok(_) => panic!("{overrides:?} should be rejected"),
        Err(e) => e.to_string(),
    }
}

/// A figure of UE `ue` of cell `c`.
pub fn ue_figure(s: &Value, ue: &str, key: &str) -> f64 {
    s["cells"]["c"]["ues"][ue][key]
        .as_f64()
        .unwrap_or_else(|| panic!("cells.c.ues.{ue}.{key}"))
}

/// A figure of flow `flow` at the dotted `path` (e.g. "sender.min_rtt_s").
pub fn flow_figure(s: &Value, flow: &str, path: &str) -> f64 {
    let mut v = &s["flows"][flow];
    for k in path.split('.') {
        v = &v[k];
    }
    v.as_f64().unwrap_or_else(|| panic!("flows.{flow}.{path}"))
}

/// New transport blocks of a UE (first transmissions) and the fraction that failed for good.
pub fn residual(s: &Value, ue: &str) -> (f64, f64) {
    let blocks = ue_figure(s, ue, "harq_transmissions") - ue_figure(s, ue, "harq_retransmissions");
    (blocks, ue_figure(s, ue, "harq_residual_failures") / blocks)
}

/// `k` standard deviations of a binomial proportion p over n trials.
pub fn binomial_bound(p: f64, n: f64, k: f64) -> f64 {
    k * (p * (1.0 - p) / n).sqrt()
}

/// Noise over `n_prb` PRBs with a 9 dB noise figure (the default), dBm.
pub fn noise_dbm(n_prb: u32) -> f64 {
    noise_power_dbm(n_prb, 9.0).unwrap()
}

/// Keys of `[cells.c]` for a 1.4 MHz (6 PRB) cell whose UEs within 10 m see exactly `sinr_db`
/// (log-distance path loss clamped to its 10 m reference, no shadowing, fading or interference)
/// and transmit every block at MCS `mcs`.
pub fn fixed_sinr_cell(sinr_db: f64, mcs: u8) -> String {
    let pl0 = 46.0 - noise_dbm(6) - sinr_db;
    format!(
        "bandwidth_mhz = 1.4\npathloss = \"log_distance\"\npl0_db = {pl0:?}\nd0_m = 10.0\n\
         exponent = 3.0\nfixed_mcs = {mcs}"
    )
}

/// The summary of a run of `duration` with one UE ("ue") in a cell of `fixed_sinr_cell(sinr_db,
/// mcs)` plus the cell keys `extra` (lines), carrying `flows`.
pub fn one_ue_summary(duration: &str, sinr_db: f64, mcs: u8, extra: &str, flows: &str) -> Value {
    let cell = format!("{}\n{extra}", fixed_sinr_cell(sinr_db, mcs));
    summary(&scenario(duration, &cell, &[("ue", 5.0, "")], flows), &[])
}

/// The SINR (dB) at which MCS `mcs` has BLER `bler` on the curves with `decade_db`.
pub fn sinr_for_bler(mcs: u8, bler: f64, decade_db: f64) -> f64 {
    let m = BlerModel::default();
    let s10 = m.sinr10_db(Mcs::new(mcs).unwrap());
    // BLER = 1/(1 + 9·e^((s − s10)/w)), w = decade/ln 11 (phy/bler.rs).
    let w = decade_db / 11f64.ln();
    s10 + w * ((1.0 / bler - 1.0) / 9.0).ln()
}

/// BLER of MCS `mcs` at `sinr_db` on the curves with `decade_db`.
pub fn bler_at(mcs: u8, sinr_db: f64, decade_db: f64) -> f64 {
    let s10 = BlerModel::default().sinr10_db(Mcs::new(mcs).unwrap());
    let w = decade_db / 11f64.ln();
    1.0 / (1.0 + 9.0 * ((sinr_db - s10) / w).exp())
}

/// Mean and (sample) standard deviation.
pub fn mean_std(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let v = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, v.sqrt())
}
