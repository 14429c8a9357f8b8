//! UDP constant-bit-rate and Poisson sources, and the sink that measures them.

use std::net::Ipv4Addr;

use celltcp_engine::{SimDuration, SimTime};

use crate::agent::{Agent, AgentCtx, ReportEntry};
use crate::packet::{Ecn, FlowId, IpHeader, Packet, Transport, UdpHeader};

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
        UdpSource {
            cfg,
            mean_gap,
            next_seq: 0,
            bytes_sent: 0,
        }
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
            ip: IpHeader {
                src: self.cfg.src.0,
                dst: self.cfg.dst.0,
                ecn: Ecn::NotEct,
                dscp: 0,
                ttl: 64,
                id: 0,
            },
            transport: Transport::Udp(UdpHeader {
                src_port: self.cfg.src.1,
                dst_port: self.cfg.dst.1,
            }),
            payload_len: self.cfg.payload_bytes,
            app_seq: self.next_seq,
            created_at: now,
            tunnel: None,
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
        vec![
            ("packets_sent", self.next_seq as f64),
            ("payload_bytes_sent", self.bytes_sent as f64),
        ]
    }
}

/// Receives a UDP flow and counts it: datagrams, payload and IP bytes, and reordering (by the
/// datagram sequence number). Delay and jitter are measured by the network for every flow.
#[derive(Default)]
pub struct UdpSink {
    pub packets: u64,
    pub payload_bytes: u64,
    pub ip_bytes: u64,
    highest_seq: Option<u64>,
    pub reordered: u64,
}

impl UdpSink {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Agent for UdpSink {
    fn start(&mut self, _ctx: &mut AgentCtx<'_>) {}

    fn on_packet(&mut self, pkt: Packet, _ctx: &mut AgentCtx<'_>) {
        self.packets += 1;
        self.payload_bytes += pkt.payload_len as u64;
        self.ip_bytes += pkt.size_bytes() as u64;
        match self.highest_seq {
            Some(h) if pkt.app_seq < h => self.reordered += 1,
            _ => self.highest_seq = Some(pkt.app_seq),
        }
    }

    fn on_timer(&mut self, _ctx: &mut AgentCtx<'_>) {}

    fn report(&self, _now: SimTime) -> Vec<ReportEntry> {
        vec![
            ("packets_received", self.packets as f64),
            ("payload_bytes_received", self.payload_bytes as f64),
            ("ip_bytes_received", self.ip_bytes as f64),
            ("reordered", self.reordered as f64),
        ]
    }
}
