//! `[dch.NAME]` in scenario files: defaults and their echo, errors naming the key, the JSON
//! Schema of the examples.

use std::path::{Path, PathBuf};

use celltcp_scenario::{json_schema, load_path, load_str, run, RunOptions};

const BASE: &str = r#"
[simulation]
duration = "10s"

[nodes]
server = { kind = "host" }
rnc = { kind = "router" }
ue = { kind = "host" }

[links.core]
a = "server"
b = "rnc"
rate = "100Mbps"
delay = "10ms"

[dch.radio]
rnc = "rnc"
ue = "ue"
rate = "384kbps"

[flows.f]
kind = "udp"
src = "server"
dst = "ue"
rate = "100kbps"
"#;

fn err(overrides: &[(&str, &str)]) -> String {
    let over: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    load_str(BASE, &over)
        .expect_err("should be rejected")
        .to_string()
}

#[test]
fn defaults_are_filled_and_echoed() {
    let sc = load_str(BASE, &[]).unwrap();
    let d = &sc.dch["radio"];
    assert_eq!(d.downlink.rate_bps, 384_000);
    assert_eq!(d.downlink.tti.as_ns(), 10_000_000);
    assert_eq!(d.uplink.rate_bps, 64_000);
    assert_eq!(d.uplink.tti.as_ns(), 20_000_000);
    assert_eq!((d.downlink.bler, d.uplink.bler), (0.0, 0.0));
    assert_eq!(d.rlc.pdu_payload_bytes, 40);
    assert_eq!(d.rlc.max_dat, Some(10));
    let echo = &sc.echo()["dch"]["radio"];
    assert_eq!(echo["uplink_bler"], 0.0);
    assert_eq!(echo["rlc"]["max_dat"], 10);
    assert_eq!(echo["rlc"]["pdu_size"], "40B");
    // The uplink BLER follows the downlink's unless given.
    let sc = load_str(BASE, &[("dch.radio.bler".into(), "0.2".into())]).unwrap();
    assert_eq!(sc.dch["radio"].uplink.bler, 0.2);
    let sc = load_str(
        BASE,
        &[
            ("dch.radio.bler".into(), "0.2".into()),
            ("dch.radio.uplink_bler".into(), "0".into()),
        ],
    )
    .unwrap();
    assert_eq!(sc.dch["radio"].uplink.bler, 0.0);
    // "unlimited" MaxDAT, echoed as written.
    let sc = load_str(
        BASE,
        &[("dch.radio.rlc.max_dat".into(), "unlimited".into())],
    )
    .unwrap();
    assert_eq!(sc.dch["radio"].rlc.max_dat, None);
    assert_eq!(sc.echo()["dch"]["radio"]["rlc"]["max_dat"], "unlimited");
    // The echo loads to the same scenario.
    let echo: toml::Table = serde_json::from_value(sc.echo()).unwrap();
    let again = load_str(&toml::to_string(&echo).unwrap(), &[]).unwrap();
    assert_eq!(again.dch, sc.dch);
}

#[test]
fn bad_values_name_their_key() {
    let cases: [(&[(&str, &str)], &str); 14] = [
        (&[("dch.radio.tti", "15ms")], "dch.radio.tti: '15ms' is not a DCH TTI; expected 10ms, 20ms, 40ms or 80ms"),
        (&[("dch.radio.uplink_tti", "5ms")], "dch.radio.uplink_tti: '5ms' is not a DCH TTI; expected 10ms, 20ms, 40ms or 80ms"),
        (&[("dch.radio.bler", "1.0")], "dch.radio.bler: 1 is not a block error rate; expected a number in [0, 1)"),
        (&[("dch.radio.uplink_bler", "-0.1")], "dch.radio.uplink_bler: -0.1 is not a block error rate; expected a number in [0, 1)"),
        (&[("dch.radio.rate", "8kbps")], "dch.radio.rate: '8kbps' carries less than one 40-byte RLC payload per 10ms TTI; use a higher rate"),
        (&[("dch.radio.rate", "384 kbit")], "dch.radio.rate: '384 kbit' is not a rate; use e.g. '25Mbps'"),
        (&[("dch.radio.rnc", "ue")], "dch.radio.rnc: node 'ue' is a host; an RNC is a router"),
        (&[("dch.radio.ue", "rnc")], "dch.radio.ue: node 'rnc' is a router; a UE is a host"),
        (&[("dch.radio.ue", "phone")], "dch.radio.ue: node 'phone' does not exist (nodes: rnc, server, ue)"),
        (&[("dch.radio.rlc.max_dat", "0")], "dch.radio.rlc.max_dat: expected one of 1 to 10, 15, 20, 25, 30, 35, 40 (TS 25.331 §10.3.4.25 MaxDAT), or 'unlimited', found 0"),
        (&[("dch.radio.rlc.max_dat", "forever")], "dch.radio.rlc.max_dat: expected one of 1 to 10, 15, 20, 25, 30, 35, 40 (TS 25.331 §10.3.4.25 MaxDAT), or 'unlimited', found 'forever'"),
        // Between the values 25.331 can signal, and above its largest.
        (&[("dch.radio.rlc.max_dat", "12")], "dch.radio.rlc.max_dat: expected one of 1 to 10, 15, 20, 25, 30, 35, 40 (TS 25.331 §10.3.4.25 MaxDAT), or 'unlimited', found 12"),
        (&[("dch.radio.rlc.max_dat", "41")], "dch.radio.rlc.max_dat: expected one of 1 to 10, 15, 20, 25, 30, 35, 40 (TS 25.331 §10.3.4.25 MaxDAT), or 'unlimited', found 41"),
        (&[("dch.radio.rlc.pdu_size", "2B")], "dch.radio.rlc.pdu_size: '2B' is out of range; expected 4B to 623B"),
    ];
    for (over, message) in cases {
        assert_eq!(err(over), message);
    }
    assert!(err(&[("dch.radio.colour", "red")])
        .starts_with("dch.radio.colour: unknown key; expected one of: rnc, ue, rate"));
    assert_eq!(
        err(&[("dch.radio.rlc.poll_pdu", "0")]),
        "dch.radio.rlc.poll_pdu: 0 is out of range; expected 1 to 4096 PDUs"
    );
    assert_eq!(
        err(&[("dch.radio.rlc.buffer", "0p")]),
        "dch.radio.rlc.buffer: '0p' must be > 0"
    );
    assert_eq!(
        err(&[("dch.radio.session_gap", "0s")]),
        "dch.radio.session_gap: '0s' must be > 0"
    );
}

#[test]
fn a_ue_has_one_radio_access() {
    let two = format!("{BASE}\n[dch.other]\nrnc = \"rnc\"\nue = \"ue\"\nrate = \"64kbps\"\n");
    assert_eq!(
        load_str(&two, &[]).unwrap_err().to_string(),
        "dch.radio.ue: UE 'ue' already has the DCH 'other'"
    );
    let cell = |name: &str, ue: &str| {
        format!(
            "{BASE}\n[nodes.enb]\nkind = \"router\"\n[nodes.ue2]\nkind = \"host\"\n\
             [cells.{name}]\nenb = \"enb\"\n[cells.{name}.ues]\n{ue} = {{ position = [100.0, 0.0] }}\n"
        )
    };
    assert_eq!(
        load_str(&cell("c1", "ue"), &[]).unwrap_err().to_string(),
        "dch.radio.ue: UE 'ue' is already served by cell 'c1'"
    );
    assert!(load_str(&cell("c1", "ue2"), &[]).is_ok());
    assert_eq!(
        load_str(&cell("radio", "ue2"), &[]).unwrap_err().to_string(),
        "dch.radio: 'radio' is also a cell's name; cells and dedicated channels need distinct names"
    );
}

#[test]
fn a_flow_reaches_the_ue_only_through_its_dch() {
    let over = [
        ("nodes.lonely", "{ kind = \"host\" }"),
        ("dch.radio.ue", "lonely"),
    ];
    let e = err(&over);
    assert!(e.starts_with("flows.f: ") && e.contains("no path"), "{e}");
}

fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/celltcp/examples/001");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

#[test]
fn the_examples_and_their_echoes_match_the_schema() {
    let validator = jsonschema::validator_for(&json_schema()).expect("the schema compiles");
    let files = examples();
    assert!(files.len() >= 2);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let table: toml::Table = text.parse().unwrap();
        let as_json = serde_json::to_value(table).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&as_json)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", path.display());
        let echo = load_path(&path, &[]).unwrap().echo();
        let errors: Vec<String> = validator
            .iter_errors(&echo)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{} echo: {errors:?}", path.display());
    }
    // The schema refuses a MaxDAT out of range and accepts "unlimited".
    let base: toml::Table = BASE.parse().unwrap();
    let mut v = serde_json::to_value(base).unwrap();
    v["dch"]["radio"]["rlc"] = serde_json::json!({ "max_dat": 41 });
    assert!(!validator.is_valid(&v));
    v["dch"]["radio"]["rlc"] = serde_json::json!({ "max_dat": 11 });
    assert!(!validator.is_valid(&v));
    v["dch"]["radio"]["rlc"] = serde_json::json!({ "max_dat": 35 });
    assert!(validator.is_valid(&v));
    v["dch"]["radio"]["rlc"] = serde_json::json!({ "max_dat": "unlimited" });
    assert!(validator.is_valid(&v));
}

#[test]
fn block_errors_are_independent_by_default_and_bursty_on_request() {
    use celltcp_radio::dch::{BlockErrorModel, GilbertElliottConfig};
    let sc = load_str(BASE, &[]).unwrap();
    let d = &sc.dch["radio"];
    assert_eq!(d.downlink.errors, BlockErrorModel::Independent);
    assert_eq!(d.uplink.errors, BlockErrorModel::Independent);
    let echo = &sc.echo()["dch"]["radio"];
    assert_eq!(
        echo["errors"],
        serde_json::json!({ "model": "independent" })
    );
    assert_eq!(
        echo["uplink_errors"],
        serde_json::json!({ "model": "independent" })
    );
    // The seed's bursty channel: both directions, the uplink following the downlink.
    let bursty = [
        ("dch.radio.bler", "0.1"),
        (
            "dch.radio.errors",
            "{ model = \"gilbert_elliott\", mean_burst = \"200ms\", bad_bler = 0.9 }",
        ),
    ];
    let over: Vec<(String, String)> = bursty
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let sc = load_str(BASE, &over).unwrap();
    let d = &sc.dch["radio"];
    let ge = BlockErrorModel::GilbertElliott(GilbertElliottConfig {
        mean_burst: celltcp_engine::SimDuration::from_ms(200),
        bad_bler: 0.9,
        bad_share: None,
    });
    assert_eq!((d.downlink.errors, d.uplink.errors), (ge, ge));
    let echo = sc.echo();
    assert_eq!(
        echo["dch"]["radio"]["uplink_errors"],
        serde_json::json!({ "model": "gilbert_elliott", "mean_burst": "200ms", "bad_bler": 0.9 })
    );
    let table: toml::Table = serde_json::from_value(echo).unwrap();
    let again = load_str(&toml::to_string(&table).unwrap(), &[]).unwrap();
    assert_eq!(again.dch, sc.dch);
    // An error-free uplink keeps independent (no) errors; keys one at a time work too.
    let sc = load_str(
        BASE,
        &[
            ("dch.radio.bler".into(), "0.2".into()),
            ("dch.radio.uplink_bler".into(), "0".into()),
            ("dch.radio.errors.model".into(), "gilbert_elliott".into()),
            ("dch.radio.errors.mean_burst".into(), "1s".into()),
            ("dch.radio.errors.bad_bler".into(), "0.5".into()),
            ("dch.radio.errors.bad_share".into(), "0.2".into()),
        ],
    )
    .unwrap();
    assert_eq!(sc.dch["radio"].uplink.errors, BlockErrorModel::Independent);
    assert!(matches!(
        sc.dch["radio"].downlink.errors,
        BlockErrorModel::GilbertElliott(GilbertElliottConfig { bad_share: Some(s), .. }) if s == 0.2
    ));
}

#[test]
fn impossible_block_errors_name_their_key() {
    let ge = |extra: &str| format!("{{ model = \"gilbert_elliott\"{extra} }}");
    let cases: Vec<(Vec<(&str, String)>, &str)> = vec![
        (
            vec![("dch.radio.errors", ge(", bad_bler = 0.9"))],
            "dch.radio.errors.mean_burst: is required with model = \"gilbert_elliott\" (e.g. mean_burst = \"200ms\")",
        ),
        (
            vec![("dch.radio.errors", ge(", mean_burst = \"200ms\""))],
            "dch.radio.errors.bad_bler: is required with model = \"gilbert_elliott\" (e.g. bad_bler = 0.9)",
        ),
        (
            vec![("dch.radio.errors", "{ model = \"independent\", bad_bler = 0.9 }".into())],
            "dch.radio.errors.bad_bler: applies to model = \"gilbert_elliott\" only; independent losses take only the BLER",
        ),
        (
            vec![("dch.radio.errors", ge(", mean_burst = \"200ms\", bad_bler = 0.9"))],
            "dch.radio.bler: 0 leaves no errors to put in bursts; a Gilbert–Elliott channel needs a block error rate in (0, 1) (with errors = { model = \"gilbert_elliott\" })",
        ),
        (
            vec![
                ("dch.radio.bler", "0.1".into()),
                ("dch.radio.errors", ge(", mean_burst = \"200ms\", bad_bler = 0.05")),
            ],
            "dch.radio.errors.bad_bler: 0.05 is not a bad-state block error rate for a mean BLER of 0.1; expected a number above 0.1 and at most 1",
        ),
        (
            vec![
                ("dch.radio.bler", "0.1".into()),
                ("dch.radio.errors", ge(", mean_burst = \"200ms\", bad_bler = 0.9, bad_share = 0.3")),
            ],
            "dch.radio.errors.bad_share: 0.3 × bad_bler 0.9 = 0.270000 exceeds the mean BLER 0.1: the good state would need a negative BLER; expected at most 0.111111 (bler / bad_bler)",
        ),
        (
            // 15 ms bursts suit the 10 ms downlink TTI but not the uplink's 20 ms, which
            // follows the downlink's errors.
            vec![
                ("dch.radio.bler", "0.1".into()),
                ("dch.radio.errors", ge(", mean_burst = \"15ms\", bad_bler = 0.9")),
            ],
            "dch.radio.uplink_errors.mean_burst: 15 ms is too short: with a bad share of 0.1111 and a 20 ms TTI both the bursts and the gaps between them must last one TTI or more on average; expected at least 20 ms",
        ),
        (
            vec![("dch.radio.errors", "{ model = \"rayleigh\" }".into())],
            "dch.radio.errors.model: 'rayleigh' is not one of: independent, gilbert_elliott",
        ),
    ];
    for (over, message) in cases {
        let over: Vec<(&str, &str)> = over.iter().map(|(k, v)| (*k, v.as_str())).collect();
        assert_eq!(err(&over), message);
    }
    assert!(err(&[(
        "dch.radio.errors",
        "{ model = \"independent\", burst = \"1s\" }"
    )])
    .starts_with("dch.radio.errors.burst: unknown key"));
}

#[test]
fn every_max_dat_of_25_331_loads_and_no_other_does() {
    // TS 25.331 §10.3.4.25: MaxDAT is one of 1..10, 15, 20, 25, 30, 35, 40.
    let allowed = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 35, 40];
    for n in 0..=45u32 {
        let got = load_str(BASE, &[("dch.radio.rlc.max_dat".into(), n.to_string())]);
        if allowed.contains(&n) {
            assert_eq!(got.unwrap().dch["radio"].rlc.max_dat, Some(n));
        } else {
            let e = got.unwrap_err().to_string();
            assert!(
                e.starts_with("dch.radio.rlc.max_dat: expected one of 1 to 10, 15, 20"),
                "{n}: {e}"
            );
        }
    }
}

#[test]
fn the_summary_states_the_rate_the_transport_blocks_carry() {
    // 100 kbit/s is no standard DCH rate: with 40-byte payloads and a 20 ms TTI it is 6.25
    // payloads per TTI, of which the blocks carry 6 (96 kbit/s); 384 kbit/s at 10 ms is 12.
    for (rate, tti, carried, blocks) in [
        ("100kbps", "20ms", 96_000.0, 6.0),
        ("384kbps", "10ms", 384_000.0, 12.0),
    ] {
        let sc = load_str(
            BASE,
            &[
                ("dch.radio.rate".into(), rate.into()),
                ("dch.radio.tti".into(), tti.into()),
                ("simulation.duration".into(), "1s".into()),
            ],
        )
        .unwrap();
        let s = run(&sc, &RunOptions::default()).unwrap().summary;
        let d = &s["dch"]["radio"];
        assert_eq!(d["payload_rate_bps"].as_f64(), Some(carried), "{rate}");
        assert_eq!(d["tbs_per_tti"].as_f64(), Some(blocks), "{rate}");
    }
}
