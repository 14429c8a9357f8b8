//! The split-TCP proxy's mechanics: interception, pass-through, resets, the uplink
//! direction, the report and determinism, through the harness of `proxy_harness`.

mod proxy_harness;

use proxy_harness::*;

#[test]
fn proxy_answers_the_syn_as_the_ue_and_opens_a_connection_to_it() {
    let mut proxy = SplitTcpProxy::new("pep", proxy_cfg(10)).unwrap();
    let mut out = Vec::new();
    let mut rng = RngStream::new(1, 0, "proxy");
    let mut traces = Traces::new(&[]);
    let syn = server_syn();
    let mut ctx = MiddleboxCtx {
        now: SimTime::ZERO,
        out: &mut out,
        rng: &mut rng,
        traces: &mut traces,
    };
    assert_eq!(proxy.on_forward(syn, &mut ctx), None, "the SYN is absorbed");
    assert_eq!(out.len(), 2, "{out:?}");
    let synack = out.iter().find(|p| p.ip.dst == SERVER.0).unwrap();
    let h = synack.tcp().unwrap();
    assert!(h.flags.contains(TcpFlags::SYN) && h.flags.contains(TcpFlags::ACK));
    assert_eq!((synack.ip.src, h.src_port), UE, "impersonates the UE");
    assert_eq!(h.dst_port, SERVER.1);
    assert_eq!(h.ack, syn.tcp().unwrap().seq.wrapping_add(1));
    let syn2 = out.iter().find(|p| p.ip.dst == UE.0).unwrap();
    let h2 = syn2.tcp().unwrap();
    assert!(h2.flags.contains(TcpFlags::SYN) && !h2.flags.contains(TcpFlags::ACK));
    assert_eq!(
        (syn2.ip.src, h2.src_port),
        SERVER,
        "impersonates the server"
    );
    assert_eq!(h2.dst_port, UE.1);
    assert!(out.iter().all(|p| p.flow == FLOW), "flow id kept");
    assert_eq!(proxy.connections_split(), 1);
    assert!(
        proxy.poll_timeout().is_some(),
        "SYN retransmission timers run"
    );

    // A retransmitted SYN goes to the same split and is answered again.
    out.clear();
    let mut ctx = MiddleboxCtx {
        now: SimTime(1_000_000_000),
        out: &mut out,
        rng: &mut rng,
        traces: &mut traces,
    };
    assert_eq!(proxy.on_forward(syn, &mut ctx), None);
    assert_eq!(proxy.connections_split(), 1);
    assert!(out.iter().any(|p| p.ip.dst == SERVER.0));
}

#[test]
fn proxy_passes_other_connections_and_protocols_untouched() {
    let mut proxy = SplitTcpProxy::new("pep", proxy_cfg(10)).unwrap();
    let mut out = Vec::new();
    let mut rng = RngStream::new(1, 0, "proxy");
    let mut traces = Traces::new(&[]);
    let mut ctx = MiddleboxCtx {
        now: SimTime::ZERO,
        out: &mut out,
        rng: &mut rng,
        traces: &mut traces,
    };
    let udp = udp_packet(SERVER.0, UE.0);
    assert_eq!(proxy.on_forward(udp, &mut ctx), Some(udp));
    // A SYN between two hosts that are not behind the proxy.
    let mut other = server_syn();
    other.ip.dst = Ipv4Addr::new(10, 0, 0, 9);
    assert_eq!(proxy.on_forward(other, &mut ctx), Some(other));
    // A segment of a connection whose SYN the proxy never saw.
    let mut data = server_syn();
    if let Some(h) = data.tcp_mut() {
        h.flags = TcpFlags::ACK;
    }
    data.payload_len = 1000;
    assert_eq!(proxy.on_forward(data, &mut ctx), Some(data));
    assert!(out.is_empty());
    assert_eq!(proxy.connections_split(), 0);
}

/// A reset from the UE ends the proxy's connection towards it; the proxy then closes the
/// server's connection (a FIN once the handshake completes) instead of leaving it open.
#[test]
fn proxy_closes_one_side_after_a_reset_on_the_other() {
    let mut proxy = SplitTcpProxy::new("pep", proxy_cfg(10)).unwrap();
    let mut out = Vec::new();
    let mut rng = RngStream::new(1, 0, "proxy");
    let mut traces = Traces::new(&[]);
    let syn = server_syn();
    let mut call = |p: Packet, t_ms: u64, out: &mut Vec<Packet>| {
        let mut ctx = MiddleboxCtx {
            now: SimTime(t_ms * 1_000_000),
            out,
            rng: &mut rng,
            traces: &mut traces,
        };
        proxy.on_forward(p, &mut ctx)
    };
    assert_eq!(call(syn, 0, &mut out), None);
    let synack = *out.iter().find(|p| p.ip.dst == SERVER.0).unwrap();
    let syn_to_ue = *out.iter().find(|p| p.ip.dst == UE.0).unwrap();
    out.clear();

    // The UE has no listener: RST, ACK (RFC 9293 §3.10.7.3).
    let mut rst = syn;
    rst.ip.src = UE.0;
    rst.ip.dst = SERVER.0;
    if let Some(h) = rst.tcp_mut() {
        h.src_port = UE.1;
        h.dst_port = SERVER.1;
        h.seq = 0;
        h.ack = syn_to_ue.tcp().unwrap().seq.wrapping_add(1);
        h.flags = TcpFlags::RST | TcpFlags::ACK;
        h.window = 0;
        h.options = Default::default();
    }
    assert_eq!(call(rst, 10, &mut out), None, "the reset is absorbed");

    // The server completes its handshake; the proxy's side then closes at once.
    let mut ack = syn;
    if let Some(h) = ack.tcp_mut() {
        h.seq = syn.tcp().unwrap().seq.wrapping_add(1);
        h.ack = synack.tcp().unwrap().seq.wrapping_add(1);
        h.flags = TcpFlags::ACK;
        h.options = Default::default();
    }
    assert_eq!(call(ack, 20, &mut out), None);
    let fin = out
        .iter()
        .find(|p| p.ip.dst == SERVER.0 && p.tcp().is_some_and(|h| h.flags.contains(TcpFlags::FIN)));
    assert!(fin.is_some(), "{out:?}");
    let c = proxy.active().next().unwrap();
    assert_eq!(c.to_mobile().state(), TcpState::Closed);
    assert_eq!(c.to_server().state(), TcpState::FinWait1);
}

/// A UE's connection to a server is split too (RFC 3135 §2.3, symmetric): its bytes reach the
/// server through the proxy, and the split keeps the connection's flow id.
#[test]
fn proxy_splits_uplink_connections_symmetrically() {
    const FILE: u64 = 200_000;
    let tcp = TcpConfig::default();
    let spec = PathSpec::new(Hop::new(20, 10_000_000), Hop::new(60, 2_000_000)).lossy(0.01, 0.02);
    let ue = TcpSenderAgent::with_cc_name(
        tcp,
        FLOW,
        UE,
        SERVER,
        "newreno",
        0,
        Box::new(Bulk::new(Some(FILE))),
    )
    .unwrap();
    let server = TcpReceiverAgent::with_cc_name(tcp, FLOW, SERVER, "newreno", 0).unwrap();
    let proxy = SplitTcpProxy::new("pep", proxy_cfg(10)).unwrap();
    let mut net = Net::new(server, ue, Some(proxy), spec, 2);
    net.start();
    net.run(secs(120), |_| false);
    assert_eq!(net.server.delivered(), FILE);
    let proxy = net.proxy.as_ref().unwrap();
    assert_eq!(proxy.connections_split(), 1);
    assert_eq!(proxy.bytes_relayed_to_server(), FILE);
    assert_eq!(proxy.bytes_relayed_to_mobile(), 0);
    assert!(net
        .at_server
        .iter()
        .all(|(_, p)| p.flow == FLOW && p.ip.src == UE.0));
    assert!(net
        .at_ue
        .iter()
        .all(|(_, p)| p.flow == FLOW && p.ip.src == SERVER.0));
    // The UE's SRTT covers the radio part only.
    let srtt = net.ue.stats().srtt.as_secs_f64();
    assert!(srtt > 0.12 && srtt < 0.2, "{srtt}");
}

/// The same configuration and seed give the same packets at the same times.
#[test]
fn proxy_runs_are_deterministic() {
    let spec = PathSpec::new(Hop::new(20, 10_000_000), Hop::new(60, 2_000_000)).lossy(0.02, 0.04);
    let run = || {
        let mut net = downlink(
            TcpConfig::default(),
            Bulk::new(Some(200_000)),
            Some(proxy_cfg(10)),
            spec,
            9,
        );
        net.start();
        net.run(secs(120), |_| false);
        let proxy = net.proxy.as_ref().unwrap();
        (net.at_ue, net.at_server, proxy.report(net.now))
    };
    let a = run();
    let b = run();
    assert!(a.0.len() > 100);
    assert_eq!(a, b);
}

#[test]
fn proxy_report_lists_figures_in_a_fixed_order() {
    let spec = PathSpec::new(Hop::new(10, 10_000_000), Hop::new(50, 2_000_000));
    let mut net = downlink(
        TcpConfig::default(),
        Bulk::new(Some(50_000)),
        Some(proxy_cfg(10)),
        spec,
        1,
    );
    net.start();
    net.run(secs(30), |_| false);
    let proxy = net.proxy.as_ref().unwrap();
    let rep = proxy.report(net.now);
    let names: Vec<&str> = rep.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "connections_split",
            "connections_active",
            "bytes_relayed_to_mobile",
            "bytes_relayed_to_server",
            "relay_max_bytes",
            "retransmissions_to_mobile",
            "timeouts_to_mobile",
            "retransmissions_to_server",
            "timeouts_to_server",
            "srtt_to_mobile_s",
            "srtt_to_server_s",
            "min_rtt_to_mobile_s",
            "min_rtt_to_server_s",
        ]
    );
    assert_eq!(rep[0].1, 1.0);
    assert_eq!(rep[1].1, 0.0);
    assert_eq!(rep[2].1, 50_000.0);
    assert_eq!(proxy.name(), "pep");
}
