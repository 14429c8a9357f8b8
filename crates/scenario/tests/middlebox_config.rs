//! `[middleboxes.NAME]` and `tcp.eln` as scenario input: errors name the key, the `mobile`
//! hosts resolve as documented, the echo and the JSON Schema agree with the loader, the
//! examples of docs/middleboxes.md load, and a split-TCP proxy runs.

mod middlebox_common;
use middlebox_common::*;

use celltcp_scenario::config::middleboxes::MiddleboxKind;
use celltcp_scenario::load_str;

/// The fixture with 1 % radio loss and the given middlebox sections.
fn text(middleboxes: &str) -> String {
    let mut c = LastHop::new("1s", Some(0.01));
    c.middleboxes = middleboxes.into();
    c.toml()
}

fn error(middleboxes: &str) -> String {
    match load_str(&text(middleboxes), &[]) {
        Ok(_) => panic!("should not load:\n{middleboxes}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn errors_name_the_key() {
    let cases = [
        (
            "kind = \"proxy\"\nnode = \"bs\"",
            "middleboxes.m.kind: 'proxy' is not one of: snoop, eln, split_tcp",
        ),
        (
            "kind = \"snoop\"\nnode = \"bs\"\ncolour = 1",
            "middleboxes.m.colour: unknown key; expected one of: kind, node, mobile, cache, min_rto",
        ),
        ("kind = \"snoop\"", "middleboxes.m.node: required key is missing"),
        ("node = \"bs\"", "middleboxes.m.kind: required key is missing"),
        (
            "kind = \"eln\"\nnode = \"gw\"",
            "middleboxes.m.node: node 'gw' does not exist (nodes: bs, server, ue)",
        ),
        (
            "kind = \"eln\"\nnode = \"ue\"",
            "middleboxes.m.node: node 'ue' is a host; a middlebox runs on a router",
        ),
        (
            "kind = \"snoop\"\nnode = \"bs\"\nmobile = \"all\"",
            "middleboxes.m.mobile: 'all' is not 'wireless'; list host names as an array, e.g. ['all']",
        ),
        (
            "kind = \"snoop\"\nnode = \"bs\"\nmobile = []",
            "middleboxes.m.mobile: empty; list the mobile hosts, or write 'wireless'",
        ),
        (
            "kind = \"snoop\"\nnode = \"bs\"\nmobile = [\"bs\"]",
            "middleboxes.m.mobile: node 'bs' is a router; mobile hosts are hosts",
        ),
        (
            "kind = \"snoop\"\nnode = \"bs\"\nmobile = [\"ue\", \"ue\"]",
            "middleboxes.m.mobile: host 'ue' is listed twice",
        ),
        (
            "kind = \"snoop\"\nnode = \"bs\"\ncache = 0",
            "middleboxes.m.cache: 0 is out of range; expected at least 1 segment",
        ),
        (
            "kind = \"snoop\"\nnode = \"bs\"\nmin_rto = \"0ms\"",
            "middleboxes.m.min_rto: '0ms' must be > 0",
        ),
        (
            "kind = \"snoop\"\nnode = \"bs\"\nmin_rto = \"2s\"",
            "middleboxes.m.min_rto: '2s' is out of range; expected at most 1s (the local timer's bound)",
        ),
        (
            "kind = \"eln\"\nnode = \"bs\"\nholes = 0",
            "middleboxes.m.holes: 0 is out of range; expected at least 1",
        ),
        (
            "kind = \"split_tcp\"\nnode = \"bs\"\nto_mobile = { mss = \"10B\" }",
            "middleboxes.m.to_mobile.mss: '10B' is out of range; expected 88B to 65495B",
        ),
        (
            "kind = \"split_tcp\"\nnode = \"bs\"\nrelay_buffer = \"100B\"",
            "middleboxes.m.relay_buffer: '100B' is out of range; expected at least to_mobile.mss (1448B)",
        ),
    ];
    for (body, want) in cases {
        assert_eq!(error(&format!("[middleboxes.m]\n{body}\n")), want);
    }
    // Two middleboxes on one node.
    let two = format!("{SNOOP}\n[middleboxes.other]\nkind = \"eln\"\nnode = \"bs\"\n");
    assert_eq!(
        error(&two),
        "middleboxes.snoop.node: node 'bs' already has middlebox 'other'; at most one per node"
    );
    // `tcp.eln` is a boolean.
    let bad = text("").replace("[flows.bulk.tcp]\n", "[flows.bulk.tcp]\neln = \"yes\"\n");
    assert_eq!(
        load_str(&bad, &[]).unwrap_err().to_string(),
        "flows.bulk.tcp.eln: expected a boolean, found 'yes'"
    );
}

#[test]
fn wireless_means_one_radio_hop_away() {
    // The radio link's bs → ue direction has a loss model; the wired link's bs → server
    // direction has none: only the UE is mobile.
    let sc = load_str(&text(SNOOP), &[]).unwrap();
    match &sc.middleboxes["snoop"].kind {
        MiddleboxKind::Snoop {
            mobile,
            cache_packets,
            min_rto,
        } => {
            assert_eq!(mobile, &vec!["ue".to_string()]);
            assert_eq!(*cache_packets, 100);
            assert_eq!(min_rto.as_ns(), 50_000_000);
        }
        other => panic!("{other:?}"),
    }
    // Without any lossy or trace-driven link from bs, the hosts must be named.
    let mut c = LastHop::new("1s", None);
    c.middleboxes = SNOOP.into();
    let e = load_str(&c.toml(), &[]).unwrap_err().to_string();
    assert!(
        e.starts_with("middleboxes.snoop.mobile: no host is one radio hop from node 'bs'"),
        "{e}"
    );
    c.middleboxes = format!("{SNOOP}mobile = [\"ue\"]\n");
    assert!(load_str(&c.toml(), &[]).is_ok());
}

#[test]
fn the_echo_shows_every_default_and_loads_again() {
    let sc = load_str(&text(SNOOP), &[]).unwrap();
    let echo = sc.echo();
    let m = &echo["middleboxes"]["snoop"];
    assert_eq!(m["kind"], "snoop");
    assert_eq!(m["mobile"], "wireless");
    assert_eq!(
        (m["cache"].as_u64(), m["min_rto"].as_str()),
        (Some(100), Some("50ms"))
    );
    assert_eq!(echo["flows"]["bulk"]["tcp"]["eln"], false);
    let again: toml::Table = serde_json::from_value(echo).unwrap();
    let sc2 = load_str(&toml::to_string(&again).unwrap(), &[]).unwrap();
    assert_eq!(sc2.middleboxes, sc.middleboxes);
    // Without middleboxes the echo has no such section.
    let plain = load_str(&text(""), &[]).unwrap();
    assert!(plain.echo().get("middleboxes").is_none());
}

#[test]
fn the_schema_accepts_middleboxes_and_rejects_unknown_keys() {
    let schema = celltcp_scenario::json_schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let as_json = |t: &str| serde_json::to_value(t.parse::<toml::Table>().unwrap()).unwrap();
    for mb in [
        SNOOP.to_string(),
        format!("{SNOOP}mobile = [\"ue\"]\ncache = 64\nmin_rto = \"20ms\"\n"),
        ELN.to_string(),
        "[middleboxes.p]\nkind = \"split_tcp\"\nnode = \"bs\"\ncc = \"cubic\"\nrelay_buffer = \"2MB\"\nto_mobile = { initial_window = 4 }\n".to_string(),
    ] {
        let doc = as_json(&text(&mb));
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{mb}: {errors:?}");
        assert!(load_str(&text(&mb), &[]).is_ok(), "{mb}");
    }
    for bad in [
        format!("{SNOOP}colour = 1\n"),
        "[middleboxes.m]\nkind = \"proxy\"\nnode = \"bs\"\n".to_string(),
        format!("{SNOOP}mobile = \"all\"\n"),
    ] {
        assert!(!validator.is_valid(&as_json(&text(&bad))), "{bad}");
    }
}

/// The TOML examples of docs/middleboxes.md load after the fixture's topology.
#[test]
fn documented_examples_load() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/middleboxes.md");
    let doc = std::fs::read_to_string(path).unwrap();
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in doc.lines() {
        match (&mut current, line.trim()) {
            (None, "```toml") => current = Some(String::new()),
            (Some(b), "```") => {
                blocks.push(std::mem::take(b));
                current = None;
            }
            (Some(b), _) => {
                b.push_str(line);
                b.push('\n');
            }
            _ => {}
        }
    }
    assert!(blocks.len() >= 3, "the page has examples");
    for block in blocks {
        let t = text(&block);
        if let Err(e) = load_str(&t, &[]) {
            panic!("docs example does not load: {e}\n{block}");
        }
    }
}

/// A split-TCP proxy at the base station carries the bulk flow.
#[test]
fn a_split_tcp_proxy_runs() {
    let mut c = LastHop::new("5s", Some(0.01));
    c.middleboxes = "[middleboxes.pep]\nkind = \"split_tcp\"\nnode = \"bs\"\n".into();
    let out = c.run(1);
    let m = &out.summary["middleboxes"]["pep"];
    assert_eq!(
        (m["kind"].as_str(), m["node"].as_str()),
        (Some("split_tcp"), Some("bs"))
    );
    assert!(middlebox(&out, "pep", &["packets_absorbed"]) > 0.0, "{m}");
    assert!(middlebox(&out, "pep", &["packets_emitted"]) > 0.0, "{m}");
    let goodput = bulk(&out, &["goodput_bps"]);
    println!("split TCP, 1 % radio loss: {:.2} Mb/s; {m}", goodput / 1e6);
    assert!(goodput > 1e6, "{goodput}");
}
