//! Validation of the split-TCP proxy (seed 001, RFC 3135 §2.1.1): the RTT split, the gain of
//! a larger initial window towards the UE, exactly-once delivery with losses, local repair of
//! losses, and flow control through the relay.
//!
//! Run with `--nocapture` to see the measured figures.

mod proxy_harness;

use celltcp_tcp::app::OnOff;
use proxy_harness::*;

/// RFC 3135 §2.1.1: the proxy terminates the connection, so each host measures only its own
/// part of the path. Without delayed ACKs and at a low rate (no queueing) the SRTT of the
/// server's connection plus that of the proxy's connection towards the UE equals the SRTT of
/// the unsplit connection.
#[test]
fn proxy_split_rtts_add_up_to_the_end_to_end_rtt() {
    let tcp = TcpConfig {
        delayed_ack: None,
        ..TcpConfig::default()
    };
    // RTT1 = 2 × 20 ms (core), RTT2 = 2 × 150 ms (radio), both 10 Mb/s.
    let spec = PathSpec::new(Hop::new(20, 10_000_000), Hop::new(150, 10_000_000));
    let run = |proxy: Option<SplitTcpConfig>| {
        let app = OnOff::new(ms(1_000), ms(1_000), 200_000);
        let s = TcpSenderAgent::with_cc_name(tcp, FLOW, SERVER, UE, "newreno", 0, Box::new(app))
            .unwrap();
        let r = TcpReceiverAgent::with_cc_name(tcp, FLOW, UE, "newreno", 0).unwrap();
        let proxy = proxy.map(|c| SplitTcpProxy::new("pep", c).unwrap());
        let mut net = Net::new(s, r, proxy, spec, 1);
        net.start();
        net.run(secs(20), |_| false);
        assert!(net.ue.delivered() > 100_000, "{}", net.ue.delivered());
        net
    };
    let e2e = run(None).server.stats().srtt.as_secs_f64();
    let mut cfg = proxy_cfg(10);
    cfg.to_mobile.delayed_ack = None;
    cfg.to_server.delayed_ack = None;
    let net = run(Some(cfg));
    let proxy = net.proxy.as_ref().unwrap();
    let server_side = net.server.stats().srtt.as_secs_f64();
    let ue_side = proxy.stats_to_mobile().srtt.as_secs_f64();
    // The proxy's receiving connection has one sample: its SYN-ACK's.
    let proxy_server_side = proxy.stats_to_server().srtt.as_secs_f64();
    println!(
        "SRTT: end to end {:.2} ms; split: server {:.2} ms + proxy→UE {:.2} ms = {:.2} ms \
         (proxy→server handshake {:.2} ms)",
        e2e * 1e3,
        server_side * 1e3,
        ue_side * 1e3,
        (server_side + ue_side) * 1e3,
        proxy_server_side * 1e3
    );
    assert!((server_side - 0.040).abs() < 0.003, "{server_side}");
    assert!((ue_side - 0.300).abs() < 0.006, "{ue_side}");
    assert!(
        (proxy_server_side - 0.040).abs() < 0.003,
        "{proxy_server_side}"
    );
    let rel = (server_side + ue_side - e2e).abs() / e2e;
    assert!(
        rel < 0.03,
        "split {} vs e2e {e2e}: {rel}",
        server_side + ue_side
    );
}

/// Time until the UE has a `file`-byte download over core 2 × 50 ms at 10 Mb/s and radio
/// 2 × 200 ms at `radio_bps` (both directions): end to end with the server's initial window
/// `iw`, then split with IW 10 towards the UE, then split with IW `iw` towards the UE.
fn iw_times(file: u64, radio_bps: u64, iw: u32) -> (f64, f64, f64) {
    let spec = PathSpec::new(Hop::new(50, 10_000_000), Hop::new(200, radio_bps));
    let tcp = TcpConfig {
        initial_window: iw,
        ..TcpConfig::default()
    };
    let mut t = [0.0; 3];
    for (k, proxy) in [None, Some(proxy_cfg(10)), Some(proxy_cfg(iw))]
        .into_iter()
        .enumerate()
    {
        let mut net = downlink(tcp, Bulk::new(Some(file)), proxy, spec, 1);
        t[k] = completion(&mut net, file, secs(300)).expect("the transfer completes");
    }
    (t[0], t[1], t[2])
}

/// Seed 001 (slides 5, 14–15): a long-RTT, small-BDP path — 64 kb/s DCH with 500 ms RTT
/// (BDP 4 kB) — where the proxy's connection towards the UE starts with IW 10 while the
/// server's own initial window is 1–4 segments. The same on a 384 kb/s DCH (BDP 24 kB) for
/// comparison: slide 17 expects the larger gain at the higher rate.
#[test]
fn proxy_with_iw10_towards_the_ue_beats_end_to_end_iw_1_to_4() {
    const FILE: u64 = 100_000;
    let mut gains = Vec::new();
    for radio_bps in [64_000, 384_000] {
        println!(
            "100 kB over {} kb/s, RTT 100 + 400 ms: time until the UE has the file",
            radio_bps / 1000
        );
        println!("server IW | end to end | proxy, IW 10 to UE | proxy, same IW to UE");
        let mut row_gains = Vec::new();
        for iw in 1..=4 {
            let (e2e, split10, split_same) = iw_times(FILE, radio_bps, iw);
            println!("{iw:9} | {e2e:8.3} s | {split10:16.3} s | {split_same:8.3} s");
            assert!(
                split10 < e2e,
                "{radio_bps} b/s, IW {iw}: split with IW 10 {split10} s vs end to end {e2e} s"
            );
            assert!(
                split10 <= split_same + 1e-9,
                "IW 10 towards the UE is no slower"
            );
            row_gains.push(e2e - split10);
        }
        // The gain shrinks as the end-to-end initial window grows.
        assert!(row_gains[0] > row_gains[3], "{row_gains:?}");
        gains.push(row_gains);
    }
    for iw in 0..4 {
        assert!(
            gains[1][iw] > gains[0][iw],
            "larger gain at 384 kb/s: {gains:?}"
        );
    }
}

/// Exactly-once, in-order delivery through the proxy with losses on the core side, the
/// radio side, and both, over several seeds.
#[test]
fn proxy_delivers_every_byte_once_and_in_order_with_losses_on_either_side() {
    const FILE: u64 = 300_000;
    let base = PathSpec::new(Hop::new(20, 10_000_000), Hop::new(60, 2_000_000));
    for (core, radio) in [(0.03, 0.0), (0.0, 0.05), (0.03, 0.05)] {
        for seed in 1..=4 {
            let spec = base.lossy(core, radio);
            let mut net = downlink(
                TcpConfig::default(),
                Bulk::new(Some(FILE)),
                Some(proxy_cfg(10)),
                spec,
                seed,
            );
            net.start();
            net.run(secs(300), |_| false);
            let ctx = format!("loss core {core} radio {radio} seed {seed}");
            assert!(
                net.dropped.iter().sum::<u64>() > 0 || core + radio == 0.0,
                "{ctx}"
            );
            assert_eq!(net.ue.delivered(), FILE, "{ctx}");
            assert_stream_is_exactly(&net.at_ue, FILE);
            let proxy = net.proxy.as_ref().unwrap();
            assert_eq!(proxy.bytes_relayed_to_mobile(), FILE, "{ctx}");
            assert_eq!(proxy.bytes_relayed_to_server(), 0, "{ctx}");
            assert_eq!(net.server.stats().bytes_acked, FILE, "{ctx}");
            assert_eq!(
                net.server.connection().map(|c| c.state()),
                Some(TcpState::Closed),
                "{ctx}"
            );
            assert_eq!(proxy.connections_split(), 1, "{ctx}");
            assert_eq!(proxy.active().count(), 0, "both connections ended: {ctx}");
        }
    }
}

/// The losses of each part of the path are repaired by that part's connection (local
/// retransmission, RFC 3135 §3.1.3): radio losses by the proxy, core losses by the server.
#[test]
fn proxy_repairs_losses_on_the_side_where_they_happen() {
    const FILE: u64 = 300_000;
    let base = PathSpec::new(Hop::new(20, 10_000_000), Hop::new(60, 2_000_000));
    let run = |core, radio| {
        let mut net = downlink(
            TcpConfig::default(),
            Bulk::new(Some(FILE)),
            Some(proxy_cfg(10)),
            base.lossy(core, radio),
            3,
        );
        net.start();
        net.run(secs(300), |_| false);
        assert_eq!(net.ue.delivered(), FILE);
        let p = net.proxy.as_ref().unwrap();
        let rep = p.report(net.now);
        let get = |k: &str| rep.iter().find(|(n, _)| n == k).map(|e| e.1).unwrap();
        (
            net.server.stats().retx_total,
            get("retransmissions_to_mobile") as u64,
            get("retransmissions_to_server") as u64,
        )
    };
    let (server, to_mobile, to_server) = run(0.0, 0.05);
    println!("radio loss 5 %: server retx {server}, proxy→UE retx {to_mobile}");
    assert_eq!(server, 0, "radio losses are hidden from the server");
    assert!(to_mobile > 0);
    assert_eq!(to_server, 0, "the proxy sends no data towards the server");
    let (server, to_mobile, _) = run(0.03, 0.0);
    println!("core loss 3 %: server retx {server}, proxy→UE retx {to_mobile}");
    assert!(server > 0);
    assert_eq!(to_mobile, 0, "core losses are repaired before the proxy");
}

/// Flow control: a fast server behind a slow radio link fills the relay; the proxy then stops
/// reading, its receive window towards the server closes, and the server stays at most the
/// relay plus the proxy's buffers ahead of the UE.
#[test]
fn proxy_full_relay_closes_the_window_towards_the_server() {
    const FILE: u64 = 1_000_000;
    const RELAY: u64 = 40_000;
    // A whole number of segments, so that a full buffer advertises exactly zero.
    const RCV_BUF: u64 = 14 * 1448;
    let spec = PathSpec::new(Hop::new(5, 100_000_000), Hop::new(40, 1_000_000));
    let mut cfg = proxy_cfg(10);
    cfg.relay_buffer_bytes = RELAY;
    cfg.to_server.rcv_buf_bytes = RCV_BUF;
    let mut net = downlink(
        TcpConfig::default(),
        Bulk::new(Some(FILE)),
        Some(cfg),
        spec,
        1,
    );
    net.start();
    let mut max_lead = 0u64;
    net.run(secs(60), |net| {
        let lead =
            net.server.stats().bytes_acked - net.ue.delivered().min(net.server.stats().bytes_acked);
        max_lead = max_lead.max(lead);
        false
    });
    assert_eq!(net.ue.delivered(), FILE);
    assert_stream_is_exactly(&net.at_ue, FILE);
    let proxy = net.proxy.as_ref().unwrap();
    let zero_windows = net
        .at_server
        .iter()
        .filter(|(_, p)| p.tcp().is_some_and(|h| h.window == 0))
        .count();
    println!(
        "relay {RELAY} B, receive buffer {RCV_BUF} B: relay max {} B, server lead max {max_lead} \
         B, {zero_windows} zero windows advertised",
        proxy.relay_max_bytes()
    );
    assert!(zero_windows > 0, "the window towards the server closed");
    assert!(proxy.relay_max_bytes() >= RELAY, "the relay filled");
    assert!(proxy.relay_max_bytes() <= RELAY + RCV_BUF);
    assert!(max_lead <= RELAY + 2 * RCV_BUF, "{max_lead}");
    // Without flow control the server would have finished in about 0.1 s, megabytes ahead.
    let server_done = net.server.stats().closed_at.unwrap().as_secs_f64();
    assert!(server_done > 6.0, "{server_done}");
}
