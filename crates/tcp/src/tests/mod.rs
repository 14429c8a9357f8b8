//! Endpoint tests driven through a tiny two-host harness: a fixed one-way delay, an optional
//! bottleneck rate, drop/delay rules chosen per test, and manual time. No engine involved.
//! Files are grouped by RFC concern.

mod ack_control;
mod delack;
mod ecn;
mod flow_control;
mod fuzz;
mod handshake;
mod hystart;
mod newreno;
mod pacing;
mod properties;
mod rto;
mod rto_episode;
mod sack;
mod spurious;
mod tlp;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::net::Ipv4Addr;

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::packet::FlowId;
use celltcp_net::packet::{Packet, TcpFlags};
use celltcp_net::trace::{TraceVar, Traces};

use crate::cc::{AckEvent, CcSnapshot, CongestionControl, CongestionEvent, RtoEvent};
use crate::{TcpConfig, TcpEndpoint, TcpState};

pub const A: (Ipv4Addr, u16) = (Ipv4Addr::new(10, 0, 0, 1), 40_000);
pub const B: (Ipv4Addr, u16) = (Ipv4Addr::new(10, 0, 0, 2), 5_001);
pub const MSS: u64 = 1000;

/// A minimal Reno controller (RFC 5681 §3.1 with ABC L = 2), so that these tests pin the
/// endpoint's mechanics independently of the controllers in `cc/`.
pub struct TestReno {
    pub mss: u64,
    pub cwnd: u64,
    pub ssthresh: u64,
    pub acc: u64,
}

impl TestReno {
    pub fn new(mss: u64, iw: u64) -> Self {
        TestReno {
            mss,
            cwnd: iw * mss,
            ssthresh: u64::MAX,
            acc: 0,
        }
    }
}

impl CongestionControl for TestReno {
    fn name(&self) -> &'static str {
        "test-reno"
    }
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    fn on_ack(&mut self, ack: &AckEvent) {
        if ack.duplicate || ack.in_recovery || ack.acked_bytes == 0 {
            return;
        }
        if self.cwnd < self.ssthresh {
            self.cwnd += ack.acked_bytes.min(2 * self.mss);
        } else {
            self.acc += ack.acked_bytes;
            if self.acc >= self.cwnd {
                self.acc -= self.cwnd;
                self.cwnd += self.mss;
            }
        }
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        self.ssthresh = (ev.bytes_in_flight / 2).max(2 * self.mss);
        self.cwnd = self.ssthresh;
    }
    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.cwnd = self.ssthresh;
    }
    fn on_rto(&mut self, ev: &RtoEvent) {
        if ev.consecutive <= 1 {
            self.ssthresh = (ev.bytes_in_flight / 2).max(2 * self.mss);
        }
        self.cwnd = self.mss;
    }
    fn snapshot(&self) -> CcSnapshot {
        CcSnapshot {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            extra: 0,
        }
    }
    fn restore(&mut self, s: &CcSnapshot) {
        self.cwnd = s.cwnd;
        self.ssthresh = s.ssthresh;
    }
}

/// The configuration used unless a test says otherwise: 1000-byte MSS, no delayed ACK.
pub fn cfg() -> TcpConfig {
    TcpConfig {
        mss: MSS as u32,
        initial_window: 4,
        delayed_ack: None,
        min_rto: SimDuration::from_ms(200),
        ..TcpConfig::default()
    }
}

/// Direction of a packet in the harness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    AtoB,
    BtoA,
}

/// What a rule does with a packet about to enter the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Deliver,
    Drop,
    /// Deliver after this extra delay.
    Delay(SimDuration),
    /// Deliver twice.
    Duplicate,
    /// Deliver with the CE codepoint set (RFC 3168 §5) if the packet is ECN-capable.
    MarkCe,
}

pub type Rule = Box<dyn FnMut(SimTime, Dir, &Packet) -> Fate>;

/// Two endpoints joined by a path with a fixed one-way delay and an optional A→B bottleneck.
pub struct Harness {
    pub now: SimTime,
    pub a: TcpEndpoint,
    pub b: TcpEndpoint,
    pub delay: SimDuration,
    /// A→B bottleneck rate (bits/s) serialising data; `None` for infinite.
    pub rate_bps: Option<u64>,
    link_free: SimTime,
    events: BinaryHeap<Reverse<(SimTime, u64, bool)>>,
    packets: Vec<Option<Packet>>,
    pub rule: Rule,
    pub traces: Traces,
    /// Every packet handed to the network: (time, direction, packet).
    pub sent: Vec<(SimTime, Dir, Packet)>,
    /// Bytes B has taken from its endpoint.
    pub delivered: u64,
    /// B's application reads as data arrives.
    pub auto_read: bool,
    /// Bytes A's application still wants to write; `close_after` closes A when all is written.
    pub to_write: u64,
    pub close_after: bool,
}

impl Harness {
    /// A connected pair (handshake not yet run) with the test controller on both sides.
    pub fn new(cfg_a: TcpConfig, cfg_b: TcpConfig) -> Self {
        let a = TcpEndpoint::connect(
            cfg_a,
            Box::new(TestReno::new(cfg_a.mss as u64, cfg_a.initial_window as u64)),
            A,
            B,
            FlowId(1),
            SimTime::ZERO,
        );
        let b = TcpEndpoint::listen(
            cfg_b,
            Box::new(TestReno::new(cfg_b.mss as u64, cfg_b.initial_window as u64)),
            B,
            FlowId(1),
        );
        Harness::with(a, b)
    }

    pub fn with(a: TcpEndpoint, b: TcpEndpoint) -> Self {
        Harness {
            now: SimTime::ZERO,
            a,
            b,
            delay: SimDuration::from_ms(50),
            rate_bps: None,
            link_free: SimTime::ZERO,
            events: BinaryHeap::new(),
            packets: Vec::new(),
            rule: Box::new(|_, _, _| Fate::Deliver),
            traces: Traces::new(&TraceVar::ALL),
            sent: Vec::new(),
            delivered: 0,
            auto_read: true,
            to_write: 0,
            close_after: false,
        }
    }

    fn feed_app(&mut self) {
        if self.to_write > 0 {
            let n = self.a.write(self.to_write);
            self.to_write -= n;
        }
        if self.to_write == 0 && self.close_after && matches!(self.a.state(), TcpState::Established)
        {
            self.a.close();
        }
    }

    fn flush(&mut self) {
        loop {
            self.feed_app();
            let mut any = false;
            while let Some(p) = self.a.poll_transmit(self.now, &mut self.traces) {
                self.transmit(Dir::AtoB, p);
                any = true;
            }
            while let Some(p) = self.b.poll_transmit(self.now, &mut self.traces) {
                self.transmit(Dir::BtoA, p);
                any = true;
            }
            if self.auto_read {
                self.delivered += self.b.take_delivered();
            }
            if self.b.state() == TcpState::CloseWait {
                self.b.close();
                any = true;
            }
            if !any {
                break;
            }
        }
    }

    fn transmit(&mut self, dir: Dir, mut p: Packet) {
        self.sent.push((self.now, dir, p));
        let fate = (self.rule)(self.now, dir, &p);
        let mut at = self.now + self.delay;
        if dir == Dir::AtoB {
            if let Some(rate) = self.rate_bps {
                let start = self.link_free.max(self.now);
                self.link_free = start + SimDuration::transmission(p.size_bytes() as u64, rate);
                at = self.link_free + self.delay;
            }
        }
        let copies = match fate {
            Fate::Drop => 0,
            Fate::Deliver => 1,
            Fate::Delay(d) => {
                at += d;
                1
            }
            Fate::Duplicate => 2,
            Fate::MarkCe => {
                if p.ip.ecn.is_ect() {
                    p.ip.ecn = celltcp_net::packet::Ecn::Ce;
                }
                1
            }
        };
        for _ in 0..copies {
            let id = self.packets.len() as u64;
            self.packets.push(Some(p));
            self.events.push(Reverse((at, id, dir == Dir::AtoB)));
        }
    }

    /// Runs one event (a packet arrival or a timer); false when nothing is left to do or the
    /// next event lies beyond `limit`.
    pub fn step(&mut self, limit: SimTime) -> bool {
        self.flush();
        let next_pkt = self.events.peek().map(|Reverse((t, _, _))| *t);
        let ta = self.a.poll_timeout();
        let tb = self.b.poll_timeout();
        let next = [next_pkt, ta, tb].into_iter().flatten().min();
        let Some(t) = next else { return false };
        if t > limit {
            return false;
        }
        self.now = self.now.max(t);
        if next_pkt == Some(t) {
            let Reverse((_, id, to_b)) = self.events.pop().unwrap();
            let p = self.packets[id as usize].take().unwrap();
            if to_b {
                self.b.on_segment(self.now, &p, &mut self.traces);
            } else {
                self.a.on_segment(self.now, &p, &mut self.traces);
            }
        } else if ta == Some(t) {
            self.a.on_timeout(self.now, &mut self.traces);
        } else {
            self.b.on_timeout(self.now, &mut self.traces);
        }
        self.flush();
        true
    }

    /// Runs until `done` holds or time passes `limit`; returns whether `done` held.
    pub fn run_until(&mut self, limit: SimTime, mut done: impl FnMut(&Harness) -> bool) -> bool {
        let mut guard = 0u64;
        loop {
            if done(self) {
                return true;
            }
            if !self.step(limit) {
                return done(self);
            }
            guard += 1;
            assert!(guard < 5_000_000, "harness did not converge");
        }
    }

    pub fn handshake(&mut self) {
        assert!(
            self.run_until(secs(10), |h| h.a.state() == TcpState::Established
                && h.b.state() == TcpState::Established)
        );
    }

    /// Handshake, then transfer `bytes` from A to B and wait until B has read them all.
    pub fn transfer(&mut self, bytes: u64, limit: SimTime) -> bool {
        self.to_write = bytes;
        let target = self.delivered + bytes;
        self.run_until(limit, |h| h.delivered >= target)
    }

    /// Data segments A sent with their first sequence offset and whether each was a
    /// retransmission (offset seen before).
    pub fn data_sent(&self) -> Vec<(SimTime, u64, bool)> {
        let iss = self.a.config().isn;
        let mut seen = std::collections::HashSet::new();
        self.sent
            .iter()
            .filter(|(_, d, p)| *d == Dir::AtoB && p.payload_len > 0)
            .map(|(t, _, p)| {
                let off = p.tcp().unwrap().seq.wrapping_sub(iss) as u64;
                (*t, off, !seen.insert(off))
            })
            .collect()
    }

    /// Count of pure ACKs B sent.
    pub fn acks_from_b(&self) -> usize {
        self.sent
            .iter()
            .filter(|(_, d, p)| {
                *d == Dir::BtoA && p.payload_len == 0 && p.tcp().unwrap().flags == TcpFlags::ACK
            })
            .count()
    }
}

pub fn secs(s: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_secs(s)
}

/// Drops the first transmission of the data segments starting at the given offsets.
pub fn drop_first(offsets: Vec<u64>, iss: u32) -> Rule {
    let mut pending: std::collections::HashSet<u64> = offsets.into_iter().collect();
    Box::new(move |_, dir, p| {
        if dir == Dir::AtoB && p.payload_len > 0 {
            let off = p.tcp().unwrap().seq.wrapping_sub(iss) as u64;
            if pending.remove(&off) {
                return Fate::Drop;
            }
        }
        Fate::Deliver
    })
}

/// Offset of the k-th (0-based) full segment.
pub fn seg(k: u64) -> u64 {
    1 + k * MSS
}
