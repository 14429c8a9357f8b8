//! Block errors of a dedicated channel in a scenario: `errors = { model = "gilbert_elliott" … }`
//! reaches the channel (bursts with the configured long-run BLER on the downlink, the uplink's
//! own setting), and the default stays independent.

#[path = "support/mod.rs"]
mod support;

use celltcp_scenario::{load_str, run, RunOptions, RunOutput};
use serde_json::Value;

/// The DCH network of the tests' support, RLC with unlimited MaxDAT and a 2 MB buffer, and a
/// saturating CBR to the UE, so every downlink TTI is used.
fn scenario(dch_extra: &str, secs: u64) -> String {
    let extra = format!("rlc = {{ max_dat = \"unlimited\", buffer = \"2MB\" }}\n{dch_extra}");
    support::dch_network(secs, &extra, support::DCH_SATURATING_CBR)
}

/// The run's output and the scenario's echo.
fn run_text(text: &str) -> (RunOutput, Value) {
    let sc = load_str(text, &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
    (run(&sc, &RunOptions::default()).unwrap(), sc.echo())
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn a_bursty_downlink_keeps_its_long_run_bler_and_spends_its_share_in_bursts() {
    // 100 ms bursts (10 TTIs) at BLER 0.8, mean 0.2: a bad share of 1/4, gaps of 30 TTIs;
    // 400 s = 40 000 TTIs, about 1 000 bursts. With λ = 1 − 1/10 − 1/30 the share's standard
    // error is about √(s(1 − s)(1 + λ)/(1 − λ)/40 000) = 0.012, the BLER's 0.8 of that.
    let (out, echo) = run_text(&scenario(
        "bler = 0.2\nuplink_bler = 0.0\n\
         errors = { model = \"gilbert_elliott\", mean_burst = \"100ms\", bad_bler = 0.8 }",
        400,
    ));
    let d = &out.summary["dch"]["radio"];
    let (ttis, bad) = (f(&d["ttis"]), f(&d["ttis_bad"]));
    let share = bad / ttis;
    let bler = f(&d["bler_measured"]);
    eprintln!("{ttis} TTIs, bad share {share:.4} (0.25), measured BLER {bler:.4} (0.2)");
    assert!(ttis > 39_000.0, "saturated: {ttis}");
    assert!((share - 0.25).abs() < 0.05, "{share}");
    assert!((bler - 0.2).abs() < 0.04, "{bler}");
    // The good state is error-free: every loss is in a bad TTI (at most 12 blocks each).
    assert!(f(&d["tbs_lost"]) <= 12.0 * bad);
    // The uplink has no errors, so its errors default to independent.
    assert_eq!(f(&d["uplink"]["ttis_bad"]), 0.0);
    assert_eq!(f(&d["uplink"]["tbs_lost"]), 0.0);
    assert_eq!(
        echo["dch"]["radio"]["uplink_errors"],
        serde_json::json!({ "model": "independent" })
    );
}

#[test]
fn by_default_losses_are_independent_and_no_ttis_are_bad() {
    let (out, _) = run_text(&scenario("bler = 0.2", 20));
    let d = &out.summary["dch"]["radio"];
    assert_eq!(f(&d["ttis_bad"]), 0.0);
    assert_eq!(f(&d["uplink"]["ttis_bad"]), 0.0);
    assert!((f(&d["bler_measured"]) - 0.2).abs() < 0.02);
}
