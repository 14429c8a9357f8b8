//! A one-cell network without handover is the plain cell: same streams, same deliveries at the
//! same instants, same report.

use celltcp_engine::{RngStream, SimDuration, SimTime};
use celltcp_net::medium::{Medium, MediumOutput};
use celltcp_net::packet::{FlowId, NodeId};
use celltcp_net::trace::Traces;

use super::harness::*;
use crate::cell::{CellRadioConfig, LteCell, LteCellConfig, UeConfig};
use crate::channel::Position;
use crate::mobility::MobilityModel;
use crate::ran::{HandoverConfig, LteRan, RanUe};

const START_X: f64 = 300.0;
/// m/s along +x.
const SPEED: f64 = 3.0;

/// A medium under test; the plain cell is moved at the network's measurement ticks (every
/// 40 ms), as the network moves its UEs.
trait Driven {
    fn medium(&mut self) -> &mut dyn Medium;
    fn next_tick(&self) -> Option<SimTime>;
    fn tick(&mut self, now: SimTime);
}

struct Plain {
    cell: LteCell,
    next_tick: SimTime,
    x: f64,
}

impl Driven for Plain {
    fn medium(&mut self) -> &mut dyn Medium {
        &mut self.cell
    }
    fn next_tick(&self) -> Option<SimTime> {
        Some(self.next_tick)
    }
    fn tick(&mut self, now: SimTime) {
        let x = START_X + SPEED * now.as_secs_f64();
        if x != self.x {
            self.x = x;
            self.cell
                .set_ue_position(NodeId(1), Position::new(x, 0.0))
                .unwrap();
        }
        self.next_tick = now + SimDuration::from_ms(40);
    }
}

impl Driven for LteRan {
    fn medium(&mut self) -> &mut dyn Medium {
        self
    }
    fn next_tick(&self) -> Option<SimTime> {
        None
    }
    fn tick(&mut self, _now: SimTime) {}
}

type Seen = Vec<(SimTime, NodeId, u64)>;

/// Downlink packets of 1500 bytes every `interval` to UE 1 and an 80-byte uplink packet every
/// 10 ms, sent straight to the eNB, until `end`. Returns (time, node, uid) of every delivery
/// and every drop.
fn drive(d: &mut dyn Driven, interval: SimDuration, end: SimTime) -> (Seen, Seen) {
    let mut rng = RngStream::new(0, 0, "unused");
    let mut traces = Traces::default();
    let mut out = MediumOutput::default();
    let (mut delivered, mut dropped) = (Vec::new(), Vec::new());
    let mut sends: Vec<(SimTime, bool)> = Vec::new();
    for (step, down) in [(interval, true), (SimDuration::from_ms(10), false)] {
        let mut t = SimTime::ZERO;
        while t < end {
            sends.push((t, down));
            t += step;
        }
    }
    sends.sort_by_key(|s| (s.0, !s.1));
    let (mut uid, mut i) = (0, 0);
    loop {
        let next_send = sends.get(i).map(|s| s.0);
        let tick = d.next_tick();
        let timer = d.medium().poll_timeout();
        let Some(next) = [next_send, tick, timer]
            .into_iter()
            .flatten()
            .min()
            .filter(|&n| n <= end)
        else {
            break;
        };
        let now = next;
        if next_send == Some(next) {
            let down = sends[i].1;
            i += 1;
            uid += 1;
            if down {
                d.medium().send(
                    now,
                    ENB0,
                    NodeId(1),
                    packet(uid, NodeId(1), FlowId(0), 1500),
                    &mut out,
                );
            } else {
                d.medium().send(
                    now,
                    NodeId(1),
                    ENB0,
                    packet(uid, NodeId(1), FlowId(1), 80),
                    &mut out,
                );
            }
        } else if tick == Some(next) {
            d.tick(now);
            continue;
        } else {
            d.medium().on_timer(now, &mut rng, &mut traces, &mut out);
        }
        delivered.extend(out.delivered.drain(..).map(|(n, p)| (now, n, p.uid)));
        dropped.extend(out.dropped.drain(..).map(|(p, _)| (now, NodeId(0), p.uid)));
    }
    (delivered, dropped)
}

/// The first index where the lists differ, with both entries.
fn first_difference<T: PartialEq + Copy>(
    a: &[T],
    b: &[T],
) -> Option<(usize, Option<T>, Option<T>)> {
    (0..a.len().max(b.len()))
        .find(|&i| a.get(i) != b.get(i))
        .map(|i| (i, a.get(i).copied(), b.get(i).copied()))
}

#[test]
fn a_one_cell_network_reproduces_the_plain_cell() {
    // Fast fading (3 m/s) and shadowing exercise the cell's random streams; 60 Mbit/s of
    // downlink overloads the cell (RLC buffer drops, HARQ retransmissions).
    let cfg = LteCellConfig {
        shadowing: Some((6.0, 20.0)),
        keys: CellRadioConfig {
            fading: true,
            ..cell(0, 0.0).keys
        },
        ..cell(0, 0.0)
    };
    let ue = UeConfig {
        node: NodeId(1),
        position: Position::new(START_X, 0.0),
        speed_mps: SPEED,
    };
    let mut plain = Plain {
        cell: LteCell::new(cfg.clone(), vec![ue], 5, 2).unwrap(),
        next_tick: SimTime::ZERO,
        x: START_X,
    };
    let ran_ue = RanUe {
        node: NodeId(1),
        serving: 0,
        downlink_loss: None,
        mobility: MobilityModel::Linear {
            start: Position::new(START_X, 0.0),
            velocity_mps: (SPEED, 0.0),
            depart: SimTime::ZERO,
        },
    };
    let mut ran = LteRan::new(
        ran_config(vec![cfg], vec![ran_ue], HandoverConfig::default()),
        5,
        2,
    )
    .unwrap();
    let interval = SimDuration::from_secs_f64(1500.0 * 8.0 / 60e6);
    let end = SimTime::from_ns(2_000_000_000);
    let a = drive(&mut plain, interval, end);
    let b = drive(&mut ran, interval, end);
    eprintln!("plain cell: {} deliveries, {} drops", a.0.len(), a.1.len());
    assert!(a.0.len() > 1000, "{}", a.0.len());
    assert!(!a.1.is_empty(), "the cell was overloaded");
    assert_eq!(
        first_difference(&a.0, &b.0),
        None,
        "same deliveries at the same instants"
    );
    assert_eq!(first_difference(&a.1, &b.1), None, "same drops");
    assert!(ran.handovers().is_empty());
    let (pr, rr) = (plain.cell.report(end), ran.parts()[0].report(end));
    assert_eq!(format!("{pr:?}"), format!("{rr:?}"), "the same cell report");
}
