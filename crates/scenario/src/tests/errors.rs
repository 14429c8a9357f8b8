//! One test per validation rule, each asserting the exact message.

use super::{base_err, err_with, BASE, MINIMAL};
use crate::load_str;

fn err(text: &str) -> String {
    err_with(text, &[])
}

#[test]
fn toml_syntax_errors_give_line_and_column() {
    let e = load_str("[simulation]\nduration = \"1s\"\nseed = = 3\n", &[]).expect_err("bad TOML");
    assert_eq!(e.key, "scenario");
    assert_eq!(
        e.message,
        "TOML syntax error at line 3, column 8: extra `=`, expected nothing"
    );
    let e = load_str("[simulation]\nduration = \"1s\"\n[simulation]\n", &[])
        .expect_err("duplicate table");
    assert_eq!(
        e.to_string(),
        "scenario: TOML syntax error at line 3, column 2: duplicate key"
    );
    // Columns count characters, not bytes: 'é' is one column.
    let e =
        load_str("[simulation]\nduration = \"1s\"\nseed = 'é\n", &[]).expect_err("unterminated");
    assert_eq!(
        e.to_string(),
        "scenario: TOML syntax error at line 3, column 10: invalid literal string, expected `'`"
    );
}

#[test]
fn unknown_keys_list_the_expected_ones() {
    assert_eq!(
        err(&format!(
            "{MINIMAL}[nodes.foo]\nkind = 'host'\ncolour = 'red'\n"
        )),
        "nodes.foo.colour: unknown key; expected one of: kind, address"
    );
    assert_eq!(
        err(&format!("{MINIMAL}[extra]\n")),
        "extra: unknown key; expected one of: simulation, nodes, links, cells, dch, epc, ran, mobility, middleboxes, flows, trace, capture, events"
    );
    assert_eq!(
        base_err("links.access.a_to_b.rte", "1Mbps"),
        "links.access.a_to_b.rte: unknown key; expected one of: rate, delay, queue, loss, trace, accounting"
    );
    assert_eq!(
        base_err("links.access.queue.max_p", "0.1"),
        "links.access.queue.max_p: unknown key; expected one of: kind, limit"
    );
    assert_eq!(
        base_err("flows.video.cc", "cubic"),
        "flows.video.cc: unknown key; expected one of: kind, src, dst, start, stop, rate, packet_size, \
         arrival, src_port, dst_port"
    );
    assert_eq!(
        base_err("trace.tcp_flow", "['bulk']"),
        "trace.tcp_flow: unknown key; expected one of: interval, queues, flows, packets, tcp, tcp_flows, cells, dch, max_event_rows"
    );
    assert_eq!(
        base_err("capture.snap", "1B"),
        "capture.snap: unknown key; expected one of: links, cells, snaplen"
    );
}

#[test]
fn required_keys() {
    assert_eq!(
        err("[nodes.a]\nkind = 'host'\n"),
        "simulation: required key is missing"
    );
    assert_eq!(
        err("[simulation]\nseed = 1\n"),
        "simulation.duration: required key is missing"
    );
    assert_eq!(
        err(&format!("{MINIMAL}[nodes.c]\n")),
        "nodes.c.kind: required key is missing"
    );
    assert_eq!(
        err(&MINIMAL.replace("rate = \"10Mbps\"", "")),
        "links.ab.rate: required key is missing"
    );
    assert_eq!(
        err(&MINIMAL.replace("rate = \"10Mbps\"", "a_to_b = { rate = '1Mbps' }")),
        "links.ab.rate: required key is missing (a_to_b has a rate but b_to_a does not)"
    );
    assert_eq!(
        err(&format!(
            "{BASE}[flows.x]\nkind = 'udp'\nsrc = 'server'\ndst = 'ue'\n"
        )),
        "flows.x.rate: required key is missing"
    );
    assert_eq!(
        err(&format!("{BASE}[flows.x]\nsrc = 'server'\n")),
        "flows.x.kind: required key is missing"
    );
    assert_eq!(
        base_err("links.access.queue", "{ kind = 'red', limit = '10p' }"),
        "links.access.queue.min_th: required key is missing"
    );
}

#[test]
fn units_are_checked_at_their_key() {
    assert_eq!(
        base_err("links.access.rate", "25 Mbit"),
        "links.access.rate: '25 Mbit' is not a rate; use e.g. '25Mbps'"
    );
    assert_eq!(
        base_err("links.access.a_to_b.rate", "fast"),
        "links.access.a_to_b.rate: 'fast' is not a rate; use e.g. '25Mbps'"
    );
    assert_eq!(
        base_err("links.access.delay", "20"),
        "links.access.delay: 20 has no unit; a time needs one of ns, us, ms, s, min (e.g. '20ms')"
    );
    assert_eq!(
        base_err("flows.video.packet_size", "1.5"),
        "flows.video.packet_size: 1.5 has no unit; a size needs one of B, kB, KB, MB, GB, KiB, MiB, GiB (e.g. '1.5B')"
    );
    assert_eq!(
        base_err("links.access.queue.limit", "200"),
        "links.access.queue.limit: 200 has no unit; a queue limit needs one of p (packets), B, kB, KB, MB, GB, \
         KiB, MiB, GiB (e.g. '200p')"
    );
    assert_eq!(
        base_err("simulation.duration", "-5s"),
        "simulation.duration: '-5s' is negative; a time must be ≥ 0"
    );
    assert_eq!(
        base_err("flows.video.rate", "0.1Bps"),
        "flows.video.rate: '0.1Bps' is not a whole number of bits per second"
    );
    assert_eq!(
        base_err("links.access.rate", "99999999999Gbps"),
        "links.access.rate: '99999999999Gbps' is too large for a rate (at most 18446744073709551615 bits per second)"
    );
    assert_eq!(
        base_err("links.access.rate", "true"),
        "links.access.rate: expected a string like '25Mbps', found true"
    );
}

#[test]
fn types_are_named_in_the_format_s_words() {
    assert_eq!(
        base_err("simulation.seed", "-1"),
        "simulation.seed: expected an integer ≥ 0, found -1"
    );
    assert_eq!(
        base_err("simulation.seed", "'x'"),
        "simulation.seed: expected an integer ≥ 0, found 'x'"
    );
    assert_eq!(
        base_err("links.access.metric", "1.5"),
        "links.access.metric: expected an integer from 0 to 4294967295, found 1.5"
    );
    assert_eq!(
        base_err("flows.bulk.tcp.sack", "yes"),
        "flows.bulk.tcp.sack: expected a boolean, found 'yes'"
    );
    assert_eq!(
        base_err("trace.queues", "access"),
        "trace.queues: expected an array, found 'access'"
    );
    assert_eq!(
        base_err("trace.queues", "[1]"),
        "trace.queues[0]: expected a string, found 1"
    );
    assert_eq!(
        base_err("nodes.ue", "5"),
        "nodes.ue: expected a table, found 5"
    );
    assert_eq!(
        base_err("nodes.ue.kind", "switch"),
        "nodes.ue.kind: 'switch' is not one of: host, router"
    );
    assert_eq!(
        base_err("flows.video.arrival", "uniform"),
        "flows.video.arrival: 'uniform' is not one of: cbr, poisson"
    );
    assert_eq!(
        base_err("flows.video.kind", "quic"),
        "flows.video.kind: 'quic' is not one of: udp, tcp"
    );
    assert_eq!(
        base_err("links.access.queue.kind", "fq"),
        "links.access.queue.kind: 'fq' is not one of: droptail, red, codel"
    );
    assert_eq!(
        base_err("links.access.loss", "bernoulli"),
        "links.access.loss: expected a table like { kind = \"bernoulli\", … }, found 'bernoulli'"
    );
    assert_eq!(
        base_err("flows.video.src_port", "70000"),
        "flows.video.src_port: expected an integer from 0 to 65535, found 70000"
    );
}

#[test]
fn positive_quantities() {
    assert_eq!(
        base_err("simulation.duration", "0s"),
        "simulation.duration: '0s' must be > 0"
    );
    assert_eq!(
        base_err("simulation.max_events", "0"),
        "simulation.max_events: 0 is not allowed; expected an integer > 0"
    );
    assert_eq!(
        base_err("links.access.rate", "0Mbps"),
        "links.access.rate: '0Mbps' must be > 0"
    );
    assert_eq!(
        base_err("links.access.b_to_a.rate", "0bps"),
        "links.access.b_to_a.rate: '0bps' must be > 0"
    );
    assert_eq!(
        base_err("flows.video.rate", "0kbps"),
        "flows.video.rate: '0kbps' must be > 0"
    );
    assert_eq!(
        base_err("links.access.queue.limit", "0p"),
        "links.access.queue.limit: '0p' must be > 0"
    );
    assert_eq!(
        base_err("links.access.metric", "0"),
        "links.access.metric: 0 is not allowed; expected an integer ≥ 1"
    );
    assert_eq!(
        base_err("trace.interval", "0ms"),
        "trace.interval: '0ms' must be > 0"
    );
    assert_eq!(
        base_err(
            "links.access.b_to_a.queue",
            "{ kind = 'codel', target = '0ms' }"
        ),
        "links.access.b_to_a.queue.target: '0ms' must be > 0"
    );
    assert_eq!(
        base_err("flows.video.packet_size", "65508B"),
        "flows.video.packet_size: '65508B' is out of range; expected 1B to 65507B"
    );
    assert_eq!(
        base_err("capture.snaplen", "0B"),
        "capture.snaplen: '0B' is out of range; expected 1B to 262144B"
    );
}

#[test]
fn probabilities_are_in_the_unit_interval() {
    assert_eq!(
        base_err("links.access.a_to_b.loss.p", "1.5"),
        "links.access.a_to_b.loss.p: 1.5 is not a probability; expected a number in [0, 1]"
    );
    assert_eq!(
        base_err("links.access.loss", "{ kind = 'ber', ber = -0.1 }"),
        "links.access.loss.ber: -0.1 is not a probability; expected a number in [0, 1]"
    );
    assert_eq!(
        base_err(
            "links.access.loss",
            "{ kind = 'gilbert_elliott', p_good_to_bad = 0.1, p_bad_to_good = nan }"
        ),
        "links.access.loss.p_bad_to_good: expected a finite number, found NaN"
    );
    assert_eq!(
        base_err(
            "links.access.queue",
            "{ kind = 'red', limit = '100p', min_th = '5p', max_th = '15p', max_p = 0 }"
        ),
        "links.access.queue.max_p: 0 is not allowed; expected a number in (0, 1]"
    );
}

#[test]
fn red_thresholds_are_ordered_and_of_one_kind() {
    assert_eq!(
        base_err(
            "links.access.queue",
            "{ kind = 'red', limit = '100p', min_th = '20p', max_th = '10p' }"
        ),
        "links.access.queue.min_th: '20p' must be below max_th ('10p')"
    );
    assert_eq!(
        base_err(
            "links.access.queue",
            "{ kind = 'red', limit = '100p', min_th = '10p', max_th = '10p' }"
        ),
        "links.access.queue.min_th: '10p' must be below max_th ('10p')"
    );
    assert_eq!(
        base_err(
            "links.access.queue",
            "{ kind = 'red', limit = '100p', min_th = '5p', max_th = '30KB' }"
        ),
        "links.access.queue.max_th: '30KB' and min_th '5p' must both be packets or both be sizes"
    );
}

#[test]
fn link_ends_exist_and_differ() {
    assert_eq!(
        base_err("links.access.b", "enb2"),
        "links.access.b: node 'enb2' does not exist (nodes: enb, gw, server, ue)"
    );
    assert_eq!(
        base_err("links.access.b", "enb"),
        "links.access.b: both ends are 'enb'; a link joins two different nodes"
    );
    assert_eq!(
        err("[simulation]\nduration = '1s'\n[links.x]\na = 'p'\nb = 'q'\nrate = '1Mbps'\n"),
        "links.x.a: node 'p' does not exist (no nodes are defined)"
    );
}

#[test]
fn parallel_links_are_allowed() {
    let s = super::load(&format!(
        "{MINIMAL}[links.ab2]\na = 'b'\nb = 'a'\nrate = '1Mbps'\n"
    ));
    assert_eq!(s.links.len(), 2);
}

#[test]
fn names_are_restricted() {
    assert_eq!(
        err(&format!("{MINIMAL}[nodes.\"a b\"]\nkind = 'host'\n")),
        "nodes.a b: 'a b' is not a valid name; use letters, digits, '_' and '-'"
    );
    assert_eq!(
        err(&format!(
            "{MINIMAL}[links.\"x.y\"]\na = 'a'\nb = 'b'\nrate = '1Mbps'\n"
        )),
        "links.x.y: 'x.y' is not a valid name; use letters, digits, '_' and '-'"
    );
    let s = super::load(&format!("{MINIMAL}[nodes.Ue_2-b]\nkind = 'host'\n"));
    assert!(s.nodes.contains_key("Ue_2-b"));
}

#[test]
fn addresses_are_valid_and_unique() {
    assert_eq!(
        base_err("nodes.gw.address", "10.0.0.9"),
        "nodes.ue.address: 10.0.0.9 is already the address of node 'gw'"
    );
    assert_eq!(
        base_err("nodes.gw.address", "10.0.0"),
        "nodes.gw.address: '10.0.0' is not an IPv4 address; use e.g. '10.0.0.1'"
    );
    assert_eq!(
        base_err("nodes.gw.address", "224.0.0.1"),
        "nodes.gw.address: '224.0.0.1' is not a unicast address"
    );
}

#[test]
fn flow_ends_are_connected_distinct_hosts() {
    assert_eq!(
        base_err("flows.video.dst", "phone"),
        "flows.video.dst: node 'phone' does not exist (nodes: enb, gw, server, ue)"
    );
    assert_eq!(
        base_err("flows.video.src", "gw"),
        "flows.video.src: node 'gw' is a router; flows run between hosts"
    );
    assert_eq!(
        base_err("flows.video.dst", "server"),
        "flows.video.dst: 'server' is also the source; a flow needs two different hosts"
    );
    let island = format!("{BASE}[nodes.far]\nkind = 'host'\n");
    assert_eq!(
        err_with(&island, &[("flows.video.dst", "far")]),
        "flows.video: no path from 'server' to 'far'"
    );
}

#[test]
fn flow_times_lie_within_the_run() {
    assert_eq!(
        base_err("flows.video.start", "30s"),
        "flows.video.start: '30s' is not before the end of the run (simulation.duration = '30s')"
    );
    assert_eq!(
        base_err("flows.video.stop", "1s"),
        "flows.video.stop: '1s' is not after start ('1s')"
    );
    assert_eq!(
        base_err("flows.video.stop", "31s"),
        "flows.video.stop: '31s' is after the end of the run (simulation.duration = '30s')"
    );
    super::load(&BASE.replace("stop = \"20s\"", "stop = \"30s\""));
}

#[test]
fn ports_are_not_shared() {
    assert_eq!(
        err_with(BASE, &[("flows.web.dst_port", "5001")]),
        "flows.web.dst_port: tcp port 5001 on 'ue' is already used by flow 'bulk'"
    );
    // UDP and TCP have separate port spaces.
    super::load(&BASE.replace(
        "arrival = \"poisson\"",
        "arrival = \"poisson\"\ndst_port = 5001",
    ));
    assert_eq!(
        base_err("flows.video.src_port", "0"),
        "flows.video.src_port: 0 is not a usable port; expected 1 to 65535"
    );
}

#[test]
fn trace_and_capture_names_exist() {
    assert_eq!(
        base_err("trace.queues", "['access', 'radio']"),
        "trace.queues: link 'radio' does not exist (links: access, backhaul, core)"
    );
    assert_eq!(
        base_err("trace.flows", "['audio']"),
        "trace.flows: flow 'audio' does not exist (flows: bulk, video, web)"
    );
    assert_eq!(
        base_err("trace.packets", "['video', 'video']"),
        "trace.packets: 'video' is listed twice"
    );
    assert_eq!(
        base_err("capture.links", "['wifi']"),
        "capture.links: link 'wifi' does not exist (links: access, backhaul, core)"
    );
    assert_eq!(
        base_err("trace.tcp", "['cwnd', 'cwin']"),
        "trace.tcp: 'cwin' is not a TCP trace variable; expected one of: cwnd, ssthresh, srtt, rttvar, rto, rtt, \
         bytes_in_flight, cc_state, bandwidth_estimate, retx_fast, retx_rto, spurious_undo, dupack, seq_sent, \
         ack_received, delivered, loss_estimate, dropped, drop_site"
    );
    assert_eq!(
        base_err("trace.tcp_flows", "['video']"),
        "trace.tcp_flows: flow 'video' is not a TCP flow (TCP flows: bulk, web)"
    );
}
