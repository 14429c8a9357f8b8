//! UDP constant-bit-rate and Poisson sources, and the sink that measures them.

use std::net::Ipv4Addr;

use celltcp_engine::{SimDuration, SimTime};

use crate::agent::{Agent, AgentCtx, ReportEntry};
use crate::packet::{Ecn, FlowId, IpHeader, Packet, Transport, UdpHeader};
use crate::stats::Histogram;

/// How datagram departures are spaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// Fixed spacing of `packet_size·8 / rate`.
    Cbr,
    /// Exponential spacing with that mean (a Poisson process).
    Poisson,
}

#[derive(Clone, Debug)]
pub struct UdpSourceConfig {
    pub flow: FlowId,
    pub src: (Ipv4Addr, u16),
    pub dst: (Ipv4Addr, u16),
    /// Mean application payload rate, bits per second.
    pub rate_bps: u64,
    /// Payload bytes per datagram.
    pub payload_bytes: u32,
    pub arrival: Arrival,
    /// No datagram leaves at or after this time.
    pub stop: SimTime,
}

pub struct UdpSource {
    cfg: UdpSourceConfig,
    mean_gap: SimDuration,
    next_seq: u64,
    bytes_sent: u64,
}

impl UdpSource {
    pub fn new(cfg: UdpSourceConfig) -> Self {
        let mean_gap = SimDuration::transmission(cfg.payload_bytes as u64, cfg.rate_bps);
        UdpSource { cfg, mean_gap, next_seq: 0, bytes_sent: 0 }
    }

    fn gap(&self, ctx: &mut AgentCtx<'_>) -> SimDuration {
        match self.cfg.arrival {
            Arrival::Cbr => self.mean_gap,
            Arrival::Poisson => {
                let mean_s = self.mean_gap.as_secs_f64();
                SimDuration::from_secs_f64(ctx.rng.exponential(mean_s)).max(SimDuration(1))
            }
        }
    }

    fn send_one(&mut self, ctx: &mut AgentCtx<'_>) {
        let now = ctx.now();
        if now >= self.cfg.stop {
            ctx.set_timer(None);
            return;
        }
        ctx.send(Packet {
            uid: 0,
            flow: self.cfg.flow,
            ip: IpHeader { src: self.cfg.src.0, dst: self.cfg.dst.0, ecn: Ecn::NotEct, dscp: 0, ttl: 64, id: 0 },
            transport: Transport::Udp(UdpHeader { src_port: self.cfg.src.1, dst_port: self.cfg.dst.1 }),
            payload_len: self.cfg.payload_bytes,
            app_seq: self.next_seq,
            created_at: now,
        });
        self.next_seq += 1;
        self.bytes_sent += self.cfg.payload_bytes as u64;
        let gap = self.gap(ctx);
        ctx.set_timer(Some(now + gap));
    }

    pub fn packets_sent(&self) -> u64 {
        self.next_seq
    }
}

impl Agent for UdpSource {
    fn start(&mut self, ctx: &mut AgentCtx<'_>) {
        self.send_one(ctx);
    }
    fn on_packet(&mut self, _pkt: Packet, _ctx: &mut AgentCtx<'_>) {}
    fn on_timer(&mut self, ctx: &mut AgentCtx<'_>) {
        self.send_one(ctx);
    }
    fn report(&self, _now: SimTime) -> Vec<ReportEntry> {
        vec![("packets_sent", self.next_seq as f64), ("payload_bytes_sent", self.bytes_sent as f64)]
    }
}

/// Receives a UDP flow and measures it: counts, one-way delay distribution, RFC 3550 jitter,
/// duplicates and reordering (by the datagram sequence number).
#[derive(Default)]
pub struct UdpSink {
    pub packets: u64,
    pub payload_bytes: u64,
    pub ip_bytes: u64,
    pub delay_ns: Histogram,
    /// RFC 3550 §6.4.1 interarrival jitter estimate, nanoseconds (as f64 for the 1/16 gain).
    pub jitter_ns: f64,
    last_transit: Option<i128>,
    highest_seq: Option<u64>,
    pub reordered: u64,
    pub first_arrival: Option<SimTime>,
    pub last_arrival: Option<SimTime>,
}

impl UdpSink {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Agent for UdpSink {
    fn start(&mut self, _ctx: &mut AgentCtx<'_>) {}

    fn on_packet(&mut self, pkt: Packet, ctx: &mut AgentCtx<'_>) {
        let now = ctx.now();
        self.packets += 1;
        self.payload_bytes += pkt.payload_len as u64;
        self.ip_bytes += pkt.size_bytes() as u64;
        let delay = now.saturating_since(pkt.created_at).as_ns();
        self.delay_ns.record(delay);
        // RFC 3550 §6.4.1: D = (R_j − R_i) − (S_j − S_i) = transit_j − transit_i; J += (|D| − J)/16.
        let transit = now.as_ns() as i128 - pkt.created_at.as_ns() as i128;
        if let Some(prev) = self.last_transit {
            let d = (transit - prev).abs() as f64;
            self.jitter_ns += (d - self.jitter_ns) / 16.0;
        }
        self.last_transit = Some(transit);
        match self.highest_seq {
            Some(h) if pkt.app_seq < h => self.reordered += 1,
            _ => self.highest_seq = Some(pkt.app_seq),
        }
        self.first_arrival.get_or_insert(now);
        self.last_arrival = Some(now);
    }

    fn on_timer(&mut self, _ctx: &mut AgentCtx<'_>) {}

    fn report(&self, _now: SimTime) -> Vec<ReportEntry> {
        let q = |x: f64| self.delay_ns.quantile(x).map_or(f64::NAN, |v| v as f64 * 1e-9);
        vec![
            ("packets_received", self.packets as f64),
            ("payload_bytes_received", self.payload_bytes as f64),
            ("ip_bytes_received", self.ip_bytes as f64),
            ("delay_mean_s", self.delay_ns.mean().map_or(f64::NAN, |m| m * 1e-9)),
            ("delay_p50_s", q(0.5)),
            ("delay_p95_s", q(0.95)),
            ("delay_max_s", self.delay_ns.max().map_or(f64::NAN, |m| m as f64 * 1e-9)),
            ("jitter_s", self.jitter_ns * 1e-9),
            ("reordered", self.reordered as f64),
        ]
    }
}
