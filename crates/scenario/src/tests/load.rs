use std::net::Ipv4Addr;

use celltcp_engine::SimDuration;
use celltcp_net::packet::{FlowId, NodeId};
use celltcp_net::queue::QueueLimit;
use celltcp_net::trace::TraceVar;

use super::{load, BASE, MINIMAL};
use crate::*;

#[test]
fn base_scenario_resolves_units_and_directions() {
    let s = load(BASE);
    assert_eq!(
        s.simulation,
        Simulation {
            duration: SimDuration::from_secs(30),
            seed: 7,
            max_events: None
        }
    );
    assert_eq!(s.nodes["gw"].kind, NodeKind::Router);
    let access = &s.links["access"];
    assert_eq!(
        (access.a.as_str(), access.b.as_str(), access.metric),
        ("enb", "ue", 1)
    );
    assert_eq!(access.a_to_b.rate_bps, 25_000_000);
    assert_eq!(access.a_to_b.delay, SimDuration::from_ms(20));
    assert_eq!(
        access.a_to_b.queue,
        QueueSpec::DropTail {
            limit: QueueLimit::Packets(200)
        }
    );
    assert_eq!(access.a_to_b.loss, Some(LossSpec::Bernoulli { p: 0.01 }));
    assert_eq!(access.b_to_a.rate_bps, 5_000_000);
    assert_eq!(access.b_to_a.delay, SimDuration::from_ms(20));
    assert_eq!(
        access.b_to_a.queue,
        QueueSpec::CoDel {
            limit: QueueLimit::Packets(1000),
            target: SimDuration::from_ms(5),
            interval: SimDuration::from_ms(100),
            ecn: false
        }
    );
    assert_eq!(access.b_to_a.loss, None);
    assert_eq!(s.links["backhaul"].metric, 2);

    let video = &s.flows["video"];
    assert_eq!(
        (video.start, video.stop),
        (SimDuration::from_secs(1), Some(SimDuration::from_secs(20)))
    );
    assert_eq!(
        video.kind,
        FlowKind::Udp(UdpFlow {
            rate_bps: 2_000_000,
            packet_size: 1200,
            arrival: Arrival::Poisson
        })
    );
    assert_eq!(
        s.trace,
        TraceSpec {
            interval: SimDuration::from_ms(100),
            queues: vec!["access".into()],
            flows: vec!["video".into()],
            packets: vec![],
            tcp: vec![TraceVar::Cwnd, TraceVar::Srtt],
            tcp_flows: vec!["bulk".into(), "web".into()],
            cells: vec![],
            dch: vec![],
            max_event_rows: config::trace::MAX_EVENT_ROWS,
        }
    );
    assert_eq!(
        s.capture,
        CaptureSpec {
            links: vec!["access".into()],
            cells: vec![],
            snaplen: 128
        }
    );
}

#[test]
fn defaults_of_a_minimal_file() {
    let s = load(MINIMAL);
    assert_eq!(s.simulation.seed, 1);
    assert_eq!(s.simulation.max_events, None);
    let ab = &s.links["ab"];
    for dir in [&ab.a_to_b, &ab.b_to_a] {
        assert_eq!(dir.rate_bps, 10_000_000);
        assert_eq!(dir.delay, SimDuration::ZERO);
        assert_eq!(
            dir.queue,
            QueueSpec::DropTail {
                limit: QueueLimit::Packets(100)
            }
        );
        assert_eq!(dir.loss, None);
    }
    assert_eq!(ab.metric, 1);
    assert_eq!(s.trace.interval, SimDuration::from_ms(10));
    assert!(s.trace.tcp.is_empty() && s.trace.tcp_flows.is_empty() && s.trace.queues.is_empty());
    assert_eq!(
        s.capture,
        CaptureSpec {
            links: vec![],
            cells: vec![],
            snaplen: 65_535
        }
    );
    assert!(s.flows.is_empty());
}

#[test]
fn red_and_loss_defaults() {
    let s = load(&format!(
        "{MINIMAL}queue = {{ kind = 'red', limit = '100KB', min_th = '5KB', max_th = '15KB' }}\n\
         loss = {{ kind = 'gilbert_elliott', p_good_to_bad = 0.01, p_bad_to_good = 0.3 }}\n"
    ));
    let dir = &s.links["ab"].a_to_b;
    assert_eq!(
        dir.queue,
        QueueSpec::Red {
            limit: QueueLimit::Bytes(100_000),
            min_th: 5000.0,
            max_th: 15000.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle: true,
            ecn: false,
            byte_mode: true,
            mean_packet_size: 1000
        }
    );
    assert_eq!(
        dir.loss,
        Some(LossSpec::GilbertElliott {
            p_good_to_bad: 0.01,
            p_bad_to_good: 0.3,
            loss_good: 0.0,
            loss_bad: 1.0
        })
    );
    let s = load(&format!(
        "{MINIMAL}queue = {{ kind = 'red', limit = '100p', min_th = '5p', max_th = '15p' }}\n"
    ));
    assert!(
        matches!(s.links["ab"].b_to_a.queue, QueueSpec::Red { byte_mode: false, min_th, .. } if min_th == 5.0)
    );
    let s = load(&format!("{MINIMAL}loss = {{ kind = 'ber', ber = 1e-6 }}\n"));
    assert_eq!(s.links["ab"].a_to_b.loss, Some(LossSpec::Ber { ber: 1e-6 }));
}

#[test]
fn default_addresses_follow_name_order_and_skip_explicit_ones() {
    let s = load(&format!(
        "{MINIMAL}[nodes.c]\nkind = 'router'\naddress = '10.0.0.2'\n[nodes.d]\nkind = 'router'\n"
    ));
    let addr = |n: &str| s.nodes[n].address;
    assert_eq!(addr("a"), Some(Ipv4Addr::new(10, 0, 0, 1)));
    assert_eq!(addr("b"), Some(Ipv4Addr::new(10, 0, 0, 3)));
    assert_eq!(addr("c"), Some(Ipv4Addr::new(10, 0, 0, 2)));
    assert_eq!(addr("d"), Some(Ipv4Addr::new(10, 0, 0, 4)));
    let base = load(BASE);
    assert_eq!(base.nodes["ue"].address, Some(Ipv4Addr::new(10, 0, 0, 9)));
    assert_eq!(base.nodes["enb"].address, Some(Ipv4Addr::new(10, 0, 0, 1)));
}

#[test]
fn indices_follow_name_order() {
    let s = load(BASE);
    assert_eq!(s.node_id("enb"), Some(NodeId(0)));
    assert_eq!(s.node_id("ue"), Some(NodeId(3)));
    assert_eq!(s.node_id("nope"), None);
    assert_eq!(s.link_index("access"), Some(0));
    assert_eq!(s.link_index("core"), Some(2));
    assert_eq!(s.flow_id("bulk"), Some(FlowId(0)));
    assert_eq!(s.flow_id("web"), Some(FlowId(2)));
}

#[test]
fn default_ports_are_by_flow_index() {
    let s = load(BASE);
    let ports: Vec<(u16, u16)> = s.flows.values().map(|f| (f.src_port, f.dst_port)).collect();
    assert_eq!(ports, vec![(49152, 5001), (49153, 5002), (49154, 5003)]);
}

#[test]
fn echo_fills_defaults_keeps_units_and_reloads_equal() {
    let s = load(BASE);
    let echo = s.echo();
    assert_eq!(echo["links"]["access"]["rate"], "25Mbps");
    assert_eq!(
        echo["links"]["core"]["queue"],
        serde_json::json!({ "kind": "droptail", "limit": "100p" })
    );
    assert_eq!(echo["links"]["core"]["metric"], 1);
    assert_eq!(echo["nodes"]["server"]["address"], "10.0.0.3");
    assert_eq!(echo["flows"]["bulk"]["tcp"]["mss"], "1448B");
    assert_eq!(echo["flows"]["bulk"]["tcp"]["delayed_ack"], false);
    assert_eq!(echo["flows"]["web"]["tcp"]["delayed_ack"], "40ms");
    assert_eq!(echo["flows"]["web"]["app"]["file_size"]["dist"], "pareto");
    assert_eq!(echo["flows"]["video"]["src_port"], 49153);
    assert_eq!(
        echo["trace"]["tcp_flows"],
        serde_json::json!(["bulk", "web"])
    );
    assert_eq!(echo["simulation"]["seed"], 7);
    assert!(echo["simulation"].get("max_events").is_none());

    let toml_text = toml::to_string(&echo).expect("echo converts to TOML");
    let again = load(&toml_text);
    assert_eq!(again, s);
    assert_eq!(again.echo(), echo);
}

#[test]
fn echo_shows_overridden_values() {
    let s = load_str(BASE, &[("links.access.rate".into(), "10Mbps".into())]).expect("valid");
    assert_eq!(s.links["access"].a_to_b.rate_bps, 10_000_000);
    assert_eq!(s.echo()["links"]["access"]["rate"], "10Mbps");
}

#[test]
fn load_path_reads_files_and_reports_missing_ones() {
    let dir = std::env::temp_dir().join(format!("celltcp-scenario-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("base.toml");
    std::fs::write(&path, BASE).expect("write");
    assert_eq!(load_path(&path, &[]).expect("loads"), load(BASE));
    let missing = dir.join("missing.toml");
    let err = load_path(&missing, &[]).expect_err("missing file");
    assert_eq!(err.key, "scenario");
    assert!(
        err.message
            .starts_with(&format!("cannot read '{}': ", missing.display())),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).expect("cleanup");
}

#[test]
fn examples_load() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/celltcp/examples");
    for path in super::schema::example_files(&dir) {
        if let Err(e) = load_path(&path, &[]) {
            panic!("{}: {e}", path.display());
        }
    }
}
