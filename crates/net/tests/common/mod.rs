//! Fixtures shared by the integration tests: a scripted UDP sender.

#![allow(dead_code)]

use std::net::Ipv4Addr;

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::agent::{Agent, AgentCtx, ReportEntry};
use celltcp_net::packet::{Ecn, FlowId, IpHeader, Packet, Transport, UdpHeader};

/// A UDP datagram of `payload_len` application bytes from `src` port 49152 to `dst` port 5001
/// (`size_bytes() = payload_len + 28`).
pub fn udp(
    flow: FlowId,
    src: Ipv4Addr,
    dst: Ipv4Addr,
    payload_len: u32,
    app_seq: u64,
    now: SimTime,
) -> Packet {
    Packet {
        uid: 0,
        flow,
        ip: IpHeader {
            src,
            dst,
            ecn: Ecn::NotEct,
            dscp: 0,
            ttl: 64,
            id: 0,
        },
        transport: Transport::Udp(UdpHeader {
            src_port: 49152,
            dst_port: 5001,
        }),
        payload_len,
        app_seq,
        created_at: now,
        tunnel: None,
    }
}

/// Sends `burst` datagrams of 1000 payload bytes every `period` from its start until `stop`
/// (exclusive).
pub struct Bursts {
    pub flow: FlowId,
    pub src: Ipv4Addr,
    pub dst: Ipv4Addr,
    pub burst: u32,
    pub period: SimDuration,
    pub stop: SimTime,
    pub seq: u64,
}

impl Bursts {
    fn send_burst(&mut self, ctx: &mut AgentCtx<'_>) {
        if ctx.now() >= self.stop {
            return;
        }
        for _ in 0..self.burst {
            ctx.send(udp(
                self.flow,
                self.src,
                self.dst,
                1000,
                self.seq,
                ctx.now(),
            ));
            self.seq += 1;
        }
        ctx.set_timer(Some(ctx.now() + self.period));
    }
}

impl Agent for Bursts {
    fn start(&mut self, ctx: &mut AgentCtx<'_>) {
        self.send_burst(ctx);
    }
    fn on_packet(&mut self, _: Packet, _: &mut AgentCtx<'_>) {}
    fn on_timer(&mut self, ctx: &mut AgentCtx<'_>) {
        self.send_burst(ctx);
    }
    fn report(&self, _: SimTime) -> Vec<ReportEntry> {
        Vec::new()
    }
}
