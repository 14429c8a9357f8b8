//! Event behaviour of the cell: no timer while idle, the uplink abstraction, and determinism
//! (same seed, same deliveries; per-UE random streams independent of the other UEs).

mod common;

use celltcp_engine::SimDuration;
use celltcp_engine::SimTime;
use celltcp_net::medium::Medium;
use celltcp_net::packet::NodeId;
use celltcp_net::queue::DropCause;
use celltcp_radio::cell::{CellRadioConfig, LteCell, LteCellConfig, UeConfig, UplinkConfig};
use celltcp_radio::channel::{LosCondition, PathLossModel, Position, UrbanMacro};
use common::*;

#[test]
fn an_idle_cell_has_no_timer() {
    let cell = LteCell::new(
        LteCellConfig::lte_default("c", ENB),
        vec![ue_at(NodeId(1), 200.0, 0.0)],
        1,
        0,
    )
    .unwrap();
    let mut h = Harness::new(cell);
    assert_eq!(h.cell.poll_timeout(), None);
    h.run_until(secs(1.0));
    assert_eq!(h.timer_calls, 0);

    // A burst of ten packets at 1.0005 s: the first TTI is the next boundary.
    for _ in 0..10 {
        h.send_at(SimTime::from_ns(1_000_500_000), ENB, NodeId(1), 1500);
    }
    assert_eq!(h.cell.poll_timeout(), Some(SimTime::from_ns(1_001_000_000)));
    h.run_until(secs(3.0));
    assert_eq!(h.delivered_to(NodeId(1)).len(), 10);
    // Delivered, acknowledged by a STATUS PDU, every timer stopped: idle again.
    assert_eq!(h.cell.poll_timeout(), None);
    let (calls, ttis) = (h.timer_calls, h.cell.ttis_processed());
    eprintln!("burst of 10 packets: {ttis} TTIs processed, {calls} timer calls");
    assert!(ttis < 20, "{ttis}");
    h.run_until(secs(10.0));
    assert_eq!(h.timer_calls, calls);
    assert_eq!(h.cell.ttis_processed(), ttis);
}

#[test]
fn the_uplink_is_a_delayed_fifo_at_its_rate_with_losses() {
    let cfg = LteCellConfig {
        uplink: UplinkConfig {
            rate_bps: 1_000_000,
            grant_delay: SimDuration::from_ms(8),
            loss: 0.0,
            ..UplinkConfig::default()
        },
        ..LteCellConfig::lte_default("c", ENB)
    };
    let mut h = Harness::new(LteCell::new(cfg, vec![ue_at(NodeId(1), 200.0, 0.0)], 1, 0).unwrap());
    // Two 96-byte packets at t = 0: each takes 100 bytes (PDCP 2 + RLC 2 bytes of headers) at
    // 1 Mbit/s = 0.8 ms after the 8 ms grant delay.
    h.send_at(SimTime::ZERO, NodeId(1), ENB, 96);
    h.send_at(SimTime::ZERO, NodeId(1), ENB, 96);
    h.run_until(secs(0.1));
    let times: Vec<u64> = h.delivered.iter().map(|d| d.time.as_ns()).collect();
    assert_eq!(times, vec![8_800_000, 9_600_000]);
    assert!(h.delivered.iter().all(|d| d.node == ENB));
    assert_eq!(
        h.cell.ttis_processed(),
        0,
        "the uplink needs no downlink TTI"
    );

    let lossy = LteCellConfig {
        uplink: UplinkConfig {
            loss: 0.1,
            ..UplinkConfig::default()
        },
        ..LteCellConfig::lte_default("c", ENB)
    };
    let mut h =
        Harness::new(LteCell::new(lossy, vec![ue_at(NodeId(1), 200.0, 0.0)], 1, 0).unwrap());
    for i in 0..5000u64 {
        h.send_at(SimTime::from_ns(i * 1_000_000), NodeId(1), ENB, 52);
    }
    h.run_until(secs(6.0));
    let lost = h
        .dropped
        .iter()
        .filter(|d| d.2 == DropCause::LinkLoss)
        .count();
    assert_eq!(lost + h.delivered.len(), 5000);
    let p = lost as f64 / 5000.0;
    assert!((p - 0.1).abs() < 0.02, "{p}");
}

/// A mobile-radio cell: UMa NLOS path loss, 8 dB shadowing, fading at 3 m/s, uplink losses.
fn rich_cell(trace: bool) -> LteCellConfig {
    LteCellConfig {
        pathloss: PathLossModel::UrbanMacro(
            UrbanMacro::with_default_heights(2e9, LosCondition::Nlos).unwrap(),
        ),
        shadowing: Some((8.0, 50.0)),
        uplink: UplinkConfig {
            loss: 0.01,
            ..UplinkConfig::default()
        },
        trace_series: trace,
        keys: CellRadioConfig {
            fading: true,
            ..LteCellConfig::lte_default("c", ENB).keys
        },
        ..LteCellConfig::lte_default("c", ENB)
    }
}

fn walker(node: NodeId, x_m: f64) -> UeConfig {
    UeConfig {
        node,
        position: Position::new(x_m, 0.0),
        speed_mps: 3.0,
    }
}

fn rich_run(seed: u64, ues: Vec<UeConfig>) -> Harness {
    let nodes: Vec<NodeId> = ues.iter().map(|u| u.node).collect();
    let mut h = Harness::new(LteCell::new(rich_cell(true), ues, seed, 0).unwrap());
    let end = secs(2.0);
    let mut events = Vec::new();
    for &n in &nodes {
        // 30 Mbit/s of 1400-byte packets: more than any UE gets.
        for i in 0..(end.as_ns() / 373_333) {
            events.push(Send {
                at: SimTime::from_ns(i * 373_333),
                from: ENB,
                to: n,
                size_bytes: 1400,
            });
        }
    }
    // Small uplink packets from the first UE every 9 ms.
    for i in 0..200u64 {
        let at = SimTime::from_ns(i * 9_000_000 + 300_000);
        events.push(Send {
            at,
            from: nodes[0],
            to: ENB,
            size_bytes: 52,
        });
    }
    h.send_all(events, end);
    h
}

#[test]
fn same_seed_same_deliveries() {
    let ues = || {
        vec![
            walker(NodeId(1), 150.0),
            walker(NodeId(2), 300.0),
            walker(NodeId(3), -400.0),
        ]
    };
    let a = rich_run(5, ues());
    let b = rich_run(5, ues());
    assert!(a.delivered.len() > 1000);
    assert_eq!(a.delivered, b.delivered);
    assert_eq!(a.dropped, b.dropped);
    assert_eq!(a.cell.report(a.now), b.cell.report(b.now));
    assert_eq!(a.cell.trace(), b.cell.trace());
    let c = rich_run(6, ues());
    assert_ne!(a.delivered, c.delivered, "another seed, other draws");
}

#[test]
fn a_ue_sees_the_same_channel_whatever_the_other_ues() {
    // UE 1's fading and shadowing come from its own streams: adding UE 4 does not change them.
    let sinr_of_ue1 = |ues: Vec<UeConfig>| {
        let h = rich_run(5, ues);
        let t = h.cell.trace().unwrap().clone();
        (0..t.len())
            .filter(|&i| t.ue[i] == NodeId(1))
            .map(|i| (t.time_ns[i], t.sinr_db[i]))
            .collect::<Vec<_>>()
    };
    let alone = sinr_of_ue1(vec![walker(NodeId(1), 150.0)]);
    let shared = sinr_of_ue1(vec![walker(NodeId(1), 150.0), walker(NodeId(4), 250.0)]);
    assert!(alone.len() > 1000);
    assert_eq!(alone, shared);
}
