//! A tiny driver for an `LteCell`: packets go into `send` at their times, `on_timer` runs at
//! every `poll_timeout`, deliveries and drops are collected. No world, no transport.

#![allow(dead_code)]

use std::net::Ipv4Addr;

use celltcp_engine::{RngStream, SimDuration, SimTime};
use celltcp_net::medium::{Medium, MediumOutput};
use celltcp_net::packet::FlowId;
use celltcp_net::packet::{
    Ecn, IpHeader, NodeId, Packet, Transport, UdpHeader, IPV4_HEADER_BYTES, UDP_HEADER_BYTES,
};
use celltcp_net::queue::DropCause;
use celltcp_net::trace::Traces;
use celltcp_radio::cell::{LteCell, LteCellConfig, UeConfig};
use celltcp_radio::channel::{LogDistance, PathLossModel, Position};
use celltcp_radio::phy::{BlerModel, Mcs};

pub const ENB: NodeId = NodeId(0);

/// A UDP packet of `size_bytes` on the wire.
pub fn packet(uid: u64, size_bytes: u32) -> Packet {
    Packet {
        uid,
        flow: FlowId(0),
        ip: IpHeader {
            src: Ipv4Addr::new(10, 0, 0, 1),
            dst: Ipv4Addr::new(10, 0, 1, 1),
            ecn: Ecn::NotEct,
            dscp: 0,
            ttl: 64,
            id: 0,
        },
        transport: Transport::Udp(UdpHeader {
            src_port: 5000,
            dst_port: 5001,
        }),
        payload_len: size_bytes - IPV4_HEADER_BYTES - UDP_HEADER_BYTES,
        app_seq: uid,
        created_at: SimTime::ZERO,
        tunnel: None,
    }
}

/// A delivery seen by the harness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub time: SimTime,
    pub node: NodeId,
    pub uid: u64,
}

/// One packet to send.
#[derive(Clone, Copy, Debug)]
pub struct Send {
    pub at: SimTime,
    pub from: NodeId,
    pub to: NodeId,
    pub size_bytes: u32,
}

/// Constant-bit-rate downlink source towards one UE.
#[derive(Clone, Copy, Debug)]
pub struct Cbr {
    pub ue: NodeId,
    pub interval: SimDuration,
    pub size_bytes: u32,
    pub start: SimTime,
    pub stop: SimTime,
}

impl Cbr {
    /// `rate_bps` of `size_bytes` packets from time 0 to `stop`.
    pub fn new(ue: NodeId, rate_bps: f64, size_bytes: u32, stop: SimTime) -> Self {
        Cbr {
            ue,
            interval: SimDuration::from_secs_f64(f64::from(size_bytes) * 8.0 / rate_bps),
            size_bytes,
            start: SimTime::ZERO,
            stop,
        }
    }
}

pub struct Harness {
    pub cell: LteCell,
    pub now: SimTime,
    rng: RngStream,
    traces: Traces,
    out: MediumOutput,
    next_uid: u64,
    pub delivered: Vec<Delivery>,
    pub dropped: Vec<(SimTime, u64, DropCause)>,
    /// Send time of every uid sent.
    pub sent_at: Vec<(u64, SimTime)>,
    pub timer_calls: u64,
}

impl Harness {
    pub fn new(cell: LteCell) -> Self {
        Harness {
            cell,
            now: SimTime::ZERO,
            rng: RngStream::new(0, 0, "unused"),
            traces: Traces::default(),
            out: MediumOutput::default(),
            next_uid: 1,
            delivered: Vec::new(),
            dropped: Vec::new(),
            sent_at: Vec::new(),
            timer_calls: 0,
        }
    }

    fn collect(&mut self) {
        for (node, p) in self.out.delivered.drain(..) {
            self.delivered.push(Delivery {
                time: self.now,
                node,
                uid: p.uid,
            });
        }
        for (p, cause) in self.out.dropped.drain(..) {
            self.dropped.push((self.now, p.uid, cause));
        }
    }

    /// Runs every cell deadline up to and including `t`, then sets the clock to `t`.
    pub fn run_until(&mut self, t: SimTime) {
        while let Some(d) = self.cell.poll_timeout() {
            if d > t {
                break;
            }
            assert!(d >= self.now, "deadline {d} before now {}", self.now);
            self.now = d;
            self.timer_calls += 1;
            self.cell
                .on_timer(self.now, &mut self.rng, &mut self.traces, &mut self.out);
            self.collect();
        }
        self.now = self.now.max(t);
    }

    /// Sends one packet of `size_bytes` from `from` to `to` at `t`; returns its uid.
    pub fn send_at(&mut self, t: SimTime, from: NodeId, to: NodeId, size_bytes: u32) -> u64 {
        self.run_until(t);
        let uid = self.next_uid;
        self.next_uid += 1;
        self.sent_at.push((uid, t));
        self.cell
            .send(t, from, to, packet(uid, size_bytes), &mut self.out);
        self.collect();
        uid
    }

    /// Runs the downlink sources until `until` (sources stop at their `stop`), then the cell.
    pub fn drive(&mut self, sources: &[Cbr], until: SimTime) {
        let mut events = Vec::new();
        for s in sources {
            let mut t = s.start;
            while t < s.stop && t <= until {
                events.push(Send {
                    at: t,
                    from: ENB,
                    to: s.ue,
                    size_bytes: s.size_bytes,
                });
                t += s.interval;
            }
        }
        self.send_all(events, until);
    }

    /// Sends every packet of `events` at its time (equal times in list order), then runs the
    /// cell until `until`.
    pub fn send_all(&mut self, mut events: Vec<Send>, until: SimTime) {
        events.sort_by_key(|e| e.at);
        for e in events {
            self.send_at(e.at, e.from, e.to, e.size_bytes);
        }
        self.run_until(until);
    }

    /// Uids delivered to `node`, in delivery order.
    pub fn delivered_to(&self, node: NodeId) -> Vec<u64> {
        self.delivered
            .iter()
            .filter(|d| d.node == node)
            .map(|d| d.uid)
            .collect()
    }

    /// Queueing delays (send → delivery) of the packets delivered to `node`, with delivery time.
    pub fn delays(&self, node: NodeId) -> Vec<(SimTime, SimDuration)> {
        let mut sent = std::collections::HashMap::new();
        for &(uid, t) in &self.sent_at {
            sent.insert(uid, t);
        }
        self.delivered
            .iter()
            .filter(|d| d.node == node)
            .map(|d| (d.time, d.time.saturating_since(sent[&d.uid])))
            .collect()
    }
}

/// A cell whose UEs at distance ≤ 1 m all see exactly `sinr_db` (log-distance path loss clamped
/// to its reference distance, no shadowing or fading, no interference).
pub fn fixed_sinr_cell(sinr_db: f64) -> LteCellConfig {
    let cfg = LteCellConfig::lte_default("c", ENB);
    let noise =
        celltcp_radio::channel::noise_power_dbm(cfg.n_prb, cfg.keys.noise_figure_db).unwrap();
    let pl0 = cfg.keys.tx_power_dbm - noise - sinr_db;
    LteCellConfig {
        pathloss: PathLossModel::LogDistance(LogDistance::new(pl0, 1.0, 3.0).unwrap()),
        ..cfg
    }
}

/// The SINR (dB) at which MCS `mcs` has block error rate `bler` under the default curves.
pub fn sinr_for_bler(mcs: u8, bler: f64) -> f64 {
    let m = BlerModel::default();
    let s10 = m.sinr10_db(Mcs::new(mcs).unwrap());
    // BLER = 1/(1 + 9·e^((s − s10)/w)), w = decade/ln 11.
    let w = m.decade_db() / 11f64.ln();
    s10 + w * ((1.0 / bler - 1.0) / 9.0).ln()
}

pub fn ue_at(node: NodeId, x_m: f64, y_m: f64) -> UeConfig {
    UeConfig {
        node,
        position: Position::new(x_m, y_m),
        speed_mps: 0.0,
    }
}

pub fn secs(s: f64) -> SimTime {
    SimTime::from_ns((s * 1e9).round() as u64)
}

/// Jain's fairness index of `xs`.
pub fn jain(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let q: f64 = xs.iter().map(|x| x * x).sum();
    s * s / (xs.len() as f64 * q)
}
