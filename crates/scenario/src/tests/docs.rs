//! docs/scenarios.md stays exact: its TOML examples load and its quoted messages are the ones
//! the loader produces.

use super::{err_with, BASE, MINIMAL};

fn docs() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenarios.md");
    std::fs::read_to_string(path).expect("docs/scenarios.md is readable")
}

/// The fenced ```toml blocks of the document.
fn toml_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match (&mut current, line.trim_start()) {
            (None, "```toml") => current = Some(String::new()),
            (Some(block), "```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

#[test]
fn toml_examples_load() {
    // The examples are fragments naming the hosts `server` and `ue`.
    let nodes = "[simulation]\nduration = '30s'\n[nodes.server]\nkind = 'host'\n[nodes.ue]\nkind = 'host'\n";
    // A wired link to `ue`, except where `ue` is a cell's UE: a UE is reached over the radio
    // only, and those fragments bring their own backhaul.
    let wired = "[links.l]\na = 'server'\nb = 'ue'\nrate = '10Mbps'\n";
    let blocks = toml_blocks(&docs());
    assert!(!blocks.is_empty(), "the document has TOML examples");
    for block in blocks {
        let header = if block.contains("[cells.") {
            nodes.to_owned()
        } else {
            format!("{nodes}{wired}")
        };
        if let Err(e) = crate::load_str(&format!("{header}{block}"), &[]) {
            panic!("example does not load: {e}\n{block}");
        }
    }
}

#[test]
fn quoted_messages_are_produced() {
    let text = docs();
    let cases = [
        (err_with(BASE, &[("links.access.rate", "25 Mbit")]), "links.access.rate: '25 Mbit' is not a rate; use e.g. '25Mbps'"),
        (err_with(&format!("{MINIMAL}[nodes.foo]\nkind = 'host'\ncolour = 1\n"), &[]), "nodes.foo.colour: unknown key; expected one of: kind, address"),
        (err_with(BASE, &[("links.access.delay", "20")]), "links.access.delay: 20 has no unit; a time needs one of ns, us, ms, s, min (e.g. '20ms')"),
        (err_with("[simulation]\nduration = \"1s\"\nseed = = 3\n", &[]), "scenario: TOML syntax error at line 3, column 8: extra `=`, expected nothing"),
    ];
    // The radio access network example, with a negative speed.
    let header = "[simulation]\nduration = '30s'\n[nodes.server]\nkind = 'host'\n[nodes.ue]\nkind = 'host'\n\
                  [links.l]\na = 'server'\nb = 'ue'\nrate = '10Mbps'\n";
    let ran = toml_blocks(&text)
        .into_iter()
        .find(|b| b.contains("[mobility.car]"))
        .expect("the [ran] example");
    let speed = err_with(
        &format!("{header}{ran}"),
        &[("mobility.car.speed", "-3km/h")],
    );
    let cases = cases.into_iter().chain([(
        speed,
        "mobility.car.speed: '-3km/h' is negative; a speed must be ≥ 0",
    )]);
    for (produced, quoted) in cases {
        assert_eq!(produced, quoted);
        assert!(
            text.contains(quoted),
            "docs/scenarios.md should quote: {quoted}"
        );
    }
}
