//! Overrides applied through `load_str`, validated like written values.

use super::{base_err, err_with, load, BASE, MINIMAL};
use crate::{load_str, FlowKind, QueueSpec};

fn with(text: &str, overrides: &[(&str, &str)]) -> crate::Scenario {
    let owned: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    load_str(text, &owned).unwrap_or_else(|e| panic!("should load: {e}"))
}

#[test]
fn overrides_set_values_of_every_type() {
    let s = with(
        BASE,
        &[
            ("links.access.rate", "10Mbps"),
            ("simulation.seed", "42"),
            ("flows.bulk.tcp.sack", "false"),
            ("links.access.a_to_b.loss.p", "0.05"),
            ("trace.tcp", "['cwnd', 'rto']"),
            ("links.core.queue", "{ kind = 'codel', target = '10ms' }"),
            ("nodes.server.address", "\"192.168.1.1\""),
        ],
    );
    assert_eq!(s.links["access"].a_to_b.rate_bps, 10_000_000);
    assert_eq!(
        s.links["access"].b_to_a.rate_bps, 5_000_000,
        "the direction's own rate still wins"
    );
    assert_eq!(s.simulation.seed, 42);
    let FlowKind::Tcp(bulk) = &s.flows["bulk"].kind else {
        panic!("bulk is TCP")
    };
    assert!(!bulk.settings.sack);
    assert_eq!(
        s.links["access"].a_to_b.loss,
        Some(crate::LossSpec::Bernoulli { p: 0.05 })
    );
    assert_eq!(s.trace.tcp.len(), 2);
    assert!(
        matches!(s.links["core"].a_to_b.queue, QueueSpec::CoDel { target, .. } if target.as_ns() == 10_000_000)
    );
    assert_eq!(
        s.nodes["server"].address,
        Some("192.168.1.1".parse().expect("addr"))
    );
}

#[test]
fn overrides_create_missing_tables() {
    let s = with(
        MINIMAL,
        &[("links.ab.b_to_a.delay", "7ms"), ("trace.interval", "1ms")],
    );
    assert_eq!(s.links["ab"].b_to_a.delay.as_ns(), 7_000_000);
    assert_eq!(s.links["ab"].a_to_b.delay.as_ns(), 0);
    // A new named element is given as a whole table; its keys can then be overridden.
    let s = with(
        MINIMAL,
        &[
            (
                "flows.f",
                "{ kind = 'udp', src = 'a', dst = 'b', rate = '2Mbps' }",
            ),
            ("flows.f.rate", "1Mbps"),
        ],
    );
    assert!(matches!(s.flows["f"].kind, FlowKind::Udp(_)));
}

#[test]
fn overridden_values_are_validated_at_the_overridden_key() {
    assert_eq!(
        base_err("links.access.rate", "fast"),
        "links.access.rate: 'fast' is not a rate; use e.g. '25Mbps'"
    );
    assert_eq!(
        base_err("links.access.colour", "red"),
        "links.access.colour: unknown key; expected one of: a, b, rate, delay, metric, queue, loss, a_to_b, b_to_a"
    );
    assert_eq!(
        base_err("flows.video.stop", "40s"),
        "flows.video.stop: '40s' is after the end of the run (simulation.duration = '30s')"
    );
}

#[test]
fn overrides_through_arrays_or_values_are_errors() {
    assert_eq!(
        base_err("trace.queues.0", "core"),
        "trace.queues.0: cannot set: trace.queues is an array; values inside arrays cannot be set by key"
    );
    assert_eq!(
        base_err("links.access.rate.unit", "x"),
        "links.access.rate.unit: cannot set: links.access.rate is a value ('25Mbps'), not a table"
    );
    assert_eq!(
        err_with(BASE, &[("", "1")]),
        ": is not a dotted key; use e.g. 'links.access.rate' (no empty parts or spaces)"
    );
}

#[test]
fn overrides_apply_in_order() {
    let s = with(
        BASE,
        &[
            ("links.access.rate", "1Mbps"),
            ("links.access.rate", "2Mbps"),
        ],
    );
    assert_eq!(s.links["access"].a_to_b.rate_bps, 2_000_000);
    assert_eq!(s, with(BASE, &[("links.access.rate", "2Mbps")]));
    assert_ne!(s, load(BASE));
}

mod never_panic {
    use proptest::prelude::*;

    use super::super::BASE;
    use crate::load_str;

    const KEYS: &[&str] = &[
        "simulation.duration",
        "simulation.seed",
        "simulation.max_events",
        "nodes.ue.address",
        "nodes.gw.kind",
        "links.access.rate",
        "links.access.queue",
        "links.access.queue.limit",
        "links.access.a_to_b.loss",
        "links.access.b_to_a",
        "flows.video.packet_size",
        "flows.video.stop",
        "flows.bulk.app",
        "flows.web.app.file_size",
        "flows.bulk.tcp.delayed_ack",
        "flows.bulk.tcp.mss",
        "flows.bulk.tcp.ack_copies",
        "trace.tcp",
        "capture.snaplen",
        "x.y.z",
    ];

    proptest! {
        /// Bad input is an error value, never a panic: any text as any key's value.
        #[test]
        fn any_override_value_is_an_error_or_a_scenario(
            key in prop::sample::select(KEYS),
            value in prop_oneof!["\\PC{0,24}", "[0-9]{1,25}(\\.[0-9]{1,30})? ?[a-zA-Z]{0,4}", "\\{ kind = '[a-z_]{1,16}' \\}"],
        ) {
            let _ = load_str(BASE, &[(key.to_owned(), value)]);
        }

        #[test]
        fn any_text_is_an_error_or_a_scenario(text in "\\PC{0,200}") {
            let _ = load_str(&text, &[]);
        }
    }
}
