//! Passive analysis of the real TCP connections that cross the emulated path, from the
//! segments seen where they enter it (read from the sender's TUN device) and where they leave
//! it (written to the receiver's).
//!
//! Per connection and per direction of data:
//! * data segments and bytes entering the path; a segment whose sequence range starts below
//!   the highest sequence number that entered before is a retransmission (its range was seen
//!   twice at the ingress);
//! * bytes delivered: the highest cumulative ACK the receiver sent into the path, capped at the
//!   data sent (RFC 9293 §3.4: the ACK number is the next sequence number expected, so every
//!   byte below it reached the receiver);
//! * goodput: those bytes over the time from the first data segment entering to the ACK that
//!   last advanced the delivered count;
//! * RTT samples at the path: for each data segment, the time from its entering the path to
//!   the first ACK covering it leaving the path towards the sender. As in Karn's algorithm
//!   (RFC 6298 §3), a segment whose range was retransmitted gives no sample, since the ACK
//!   cannot tell which copy it answers.
//!
//! Sequence numbers are unwrapped into 64-bit offsets from the initial sequence number (the
//! SYN's, or the first seen when the handshake was not seen), relative to the highest number
//! seen, as serial-number arithmetic allows for numbers within 2^31 of it (RFC 1982 §3).

use std::collections::{HashMap, VecDeque};
use std::net::Ipv4Addr;

use celltcp_engine::SimTime;
use celltcp_net::packet::TcpFlags;
use celltcp_net::stats::Histogram;
use serde_json::{json, Value};

use crate::ipv4::Datagram;

/// Connections followed; further ones are only counted.
pub const MAX_CONNECTIONS: usize = 16_384;
/// Segments per direction awaiting their ACK for an RTT sample; further ones give no sample.
const MAX_OUTSTANDING: usize = 65_536;
/// RTT samples kept as rows of the `emulation_rtt` series; further ones only count in the
/// per-connection statistics.
pub const MAX_RTT_ROWS: usize = 2_000_000;

/// The sequence space of one direction.
#[derive(Clone, Copy, Debug)]
struct SeqSpace {
    /// Offset of the first data byte: 1 after a SYN, 0 when the handshake was not seen.
    data_start: u64,
    /// A sequence number and its offset, the reference for unwrapping.
    ref_seq: u32,
    ref_off: u64,
}

impl SeqSpace {
    /// The offset of `seq`: the one within 2^31 of the reference (never below 0).
    fn offset(&self, seq: u32) -> u64 {
        let delta = i64::from(seq.wrapping_sub(self.ref_seq) as i32);
        (self.ref_off as i64 + delta).max(0) as u64
    }
}

/// A first transmission awaiting its ACK.
#[derive(Clone, Copy, Debug)]
struct Sent {
    end: u64,
    start: u64,
    entered: SimTime,
    /// Its range was sent again: no RTT sample (Karn).
    retransmitted: bool,
}

/// One direction of data of a connection: from `endpoints[i]` to the other end.
#[derive(Debug, Default)]
struct Direction {
    packets_in: u64,
    bytes_in: u64,
    packets_out: u64,
    bytes_out: u64,
    data_segments: u64,
    data_bytes: u64,
    retransmitted_segments: u64,
    retransmitted_bytes: u64,
    space: Option<SeqSpace>,
    /// Highest sequence offset that entered the path, exclusive.
    snd_max: u64,
    /// Highest data offset that entered the path, exclusive (SYN and FIN excluded).
    data_max: u64,
    /// Highest cumulative ACK offset the receiver sent into the path.
    acked: u64,
    outstanding: VecDeque<Sent>,
    rtt_ns: Histogram,
    first_data: Option<SimTime>,
    last_ack_advance: Option<SimTime>,
}

impl Direction {
    fn delivered_bytes(&self) -> u64 {
        let start = self.space.map_or(0, |s| s.data_start);
        self.acked.min(self.data_max).saturating_sub(start)
    }

    /// Goodput, bits per second; `None` before an ACK advanced past some data.
    fn goodput_bps(&self) -> Option<f64> {
        let (first, last) = (self.first_data?, self.last_ack_advance?);
        let span = last.saturating_since(first).as_secs_f64();
        let bytes = self.delivered_bytes();
        (span > 0.0 && bytes > 0).then(|| bytes as f64 * 8.0 / span)
    }

    fn report(&self) -> Value {
        let secs = |ns: Option<u64>| ns.map(|v| v as f64 * 1e-9);
        let h = &self.rtt_ns;
        json!({
            "packets_in": self.packets_in,
            "bytes_in": self.bytes_in,
            "packets_out": self.packets_out,
            "bytes_out": self.bytes_out,
            "data_segments": self.data_segments,
            "data_bytes": self.data_bytes,
            "retransmitted_segments": self.retransmitted_segments,
            "retransmitted_bytes": self.retransmitted_bytes,
            "bytes_delivered": self.delivered_bytes(),
            "goodput_bps": self.goodput_bps(),
            "rtt": {
                "samples": h.count(),
                "min_s": secs(h.min()),
                "mean_s": h.mean().map(|m| m * 1e-9),
                "p50_s": secs(h.quantile(0.5)),
                "p90_s": secs(h.quantile(0.9)),
                "p99_s": secs(h.quantile(0.99)),
                "max_s": secs(h.max()),
            },
        })
    }

    /// A segment of this direction entered the path at `t`; returns its data's range, if it
    /// carries data.
    fn entered(
        &mut self,
        t: SimTime,
        seq: u32,
        seq_len: u32,
        syn: bool,
        payload: u32,
    ) -> Option<SeenData> {
        let space = *self.space.get_or_insert(SeqSpace {
            data_start: u64::from(syn),
            ref_seq: seq,
            ref_off: 0,
        });
        let start = space.offset(seq);
        let end = start + u64::from(seq_len);
        let data = (payload > 0).then(|| {
            let data_start = start + u64::from(syn);
            SeenData {
                start: data_start,
                end: data_start + u64::from(payload),
                retransmission: start < self.snd_max,
            }
        });
        if let Some(d) = data {
            self.data_segments += 1;
            self.data_bytes += u64::from(payload);
            self.first_data.get_or_insert(t);
            self.data_max = self.data_max.max(d.end);
        }
        if seq_len == 0 {
            return data;
        }
        if start < self.snd_max {
            let repeated = end.min(self.snd_max) - start;
            if payload > 0 {
                self.retransmitted_segments += 1;
                self.retransmitted_bytes += repeated.min(u64::from(payload));
            }
            self.mark_retransmitted(start, start + repeated);
        }
        if end > self.snd_max {
            if self.outstanding.len() < MAX_OUTSTANDING {
                self.outstanding.push_back(Sent {
                    start: start.max(self.snd_max),
                    end,
                    entered: t,
                    retransmitted: false,
                });
            }
            self.snd_max = end;
            if let Some(s) = self.space.as_mut() {
                s.ref_seq = seq.wrapping_add(seq_len);
                s.ref_off = end;
            }
        }
        data
    }

    /// Marks the first transmissions overlapping `[start, end)` as retransmitted.
    fn mark_retransmitted(&mut self, start: u64, end: u64) {
        // Outstanding ranges are disjoint and in sequence order.
        let from = self.outstanding.partition_point(|s| s.end <= start);
        for s in self.outstanding.iter_mut().skip(from) {
            if s.start >= end {
                break;
            }
            s.retransmitted = true;
        }
    }

    /// The receiver sent a cumulative ACK for `ack` into the path at `t`; returns its offset
    /// (`None` before the direction's sequence space is known).
    fn ack_entered(&mut self, t: SimTime, ack: u32) -> Option<u64> {
        let space = self.space?;
        let off = space.offset(ack).min(self.snd_max);
        if off > self.acked {
            self.acked = off;
            if self.delivered_bytes() > 0 {
                self.last_ack_advance = Some(t);
            }
        }
        Some(off)
    }

    /// A cumulative ACK for `ack` left the path towards the sender at `t`: every first
    /// transmission it covers gives an RTT sample, pushed to `rows`. Returns the ACK's offset
    /// and the sample of the oldest transmission it covered, if any.
    fn ack_left(
        &mut self,
        t: SimTime,
        ack: u32,
        mut sample: impl FnMut(SimTime, u64),
    ) -> Option<(u64, Option<u64>)> {
        let space = self.space?;
        let off = space.offset(ack);
        let mut first = None;
        while let Some(s) = self.outstanding.front() {
            if s.end > off {
                break;
            }
            if !s.retransmitted {
                let rtt = t.saturating_since(s.entered).as_ns();
                self.rtt_ns.record(rtt);
                sample(t, rtt);
                first.get_or_insert(rtt);
            }
            self.outstanding.pop_front();
        }
        Some((off, first))
    }
}

/// The data of a segment, as offsets in its direction's sequence space (SYN and FIN
/// excluded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeenData {
    pub start: u64,
    pub end: u64,
    /// Its range starts below the highest sequence number that entered before: it was sent
    /// before (RFC 9293 §3.4's sequence space; the retransmission counted above).
    pub retransmission: bool,
}

/// What the observer made of one TCP segment, for the per-handover history
/// ([`crate::history`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seen {
    /// The connection's index in [`Observer::report`]'s list.
    pub connection: u32,
    /// The direction of data the segment's sender sends: 0 forward (from the initiator), 1
    /// reverse.
    pub direction: usize,
    /// Its data, if any.
    pub data: Option<SeenData>,
    /// Its cumulative ACK as an offset in the other direction's sequence space (`None`
    /// without the ACK flag or before that direction's space is known).
    pub ack: Option<u64>,
    /// Bytes of the other direction delivered so far (after this segment's ACK).
    pub delivered: u64,
    /// Neither data nor SYN nor FIN: what a duplicate ACK is (RFC 5681 §2).
    pub pure_ack: bool,
    /// The window field as sent, unscaled.
    pub window: u16,
    /// It carries SACK blocks (RFC 2018 §3).
    pub sack: bool,
    /// For a segment leaving the path: the RTT sample of the oldest first transmission its
    /// ACK covered, ns.
    pub rtt_ns: Option<u64>,
}

impl Seen {
    fn new(connection: u32, direction: usize, d: &Datagram, seg: &crate::ipv4::TcpSegment) -> Seen {
        let (window, sack) = match d.transport {
            celltcp_net::packet::Transport::Tcp(h) => (h.window, h.options.sack_len > 0),
            celltcp_net::packet::Transport::Udp(_) => (0, false),
        };
        Seen {
            connection,
            direction,
            data: None,
            ack: None,
            delivered: 0,
            pure_ack: seg.seq_len() == 0,
            window,
            sack,
            rtt_ns: None,
        }
    }
}

/// A connection's endpoints, in a canonical order so that both directions find it.
type ConnKey = ((u32, u16), (u32, u16));

fn key(a: (Ipv4Addr, u16), b: (Ipv4Addr, u16)) -> ConnKey {
    let a = (u32::from(a.0), a.1);
    let b = (u32::from(b.0), b.1);
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

#[derive(Debug)]
struct Connection {
    /// The initiator (the sender of the first SYN without ACK, or of the first segment seen)
    /// and the responder.
    endpoints: [(Ipv4Addr, u16); 2],
    handshake_seen: bool,
    reset_seen: bool,
    first_seen: SimTime,
    last_seen: SimTime,
    dirs: [Direction; 2],
}

impl Connection {
    fn direction_of(&self, src: (Ipv4Addr, u16)) -> usize {
        usize::from(src != self.endpoints[0])
    }
}

/// RTT samples as rows: when the ACK left the path, which connection (index in the report's
/// list), which direction of data (0 = forward, from the initiator), the RTT.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RttRows {
    pub time_ns: Vec<u64>,
    pub connection: Vec<u32>,
    pub direction: Vec<u32>,
    pub rtt_ns: Vec<u64>,
    /// Samples beyond [`MAX_RTT_ROWS`], counted only.
    pub omitted: u64,
}

/// The TCP observer of the path.
#[derive(Debug, Default)]
pub struct Observer {
    index: HashMap<ConnKey, u32>,
    conns: Vec<Connection>,
    /// Connections seen after [`MAX_CONNECTIONS`] were followed.
    untracked: u64,
    pub rtt: RttRows,
}

impl Observer {
    /// The connection of a segment from `src` to `dst`, created for a new one.
    fn connection(
        &mut self,
        t: SimTime,
        src: (Ipv4Addr, u16),
        dst: (Ipv4Addr, u16),
        flags: TcpFlags,
        create: bool,
    ) -> Option<u32> {
        let k = key(src, dst);
        if let Some(&i) = self.index.get(&k) {
            return Some(i);
        }
        if !create {
            return None;
        }
        if self.conns.len() >= MAX_CONNECTIONS {
            self.untracked += 1;
            return None;
        }
        // A SYN-ACK seen first names its receiver as the initiator.
        let initiator_is_src = !(flags.contains(TcpFlags::SYN) && flags.contains(TcpFlags::ACK));
        let endpoints = if initiator_is_src {
            [src, dst]
        } else {
            [dst, src]
        };
        let i = self.conns.len() as u32;
        self.conns.push(Connection {
            endpoints,
            handshake_seen: false,
            reset_seen: false,
            first_seen: t,
            last_seen: t,
            dirs: [Direction::default(), Direction::default()],
        });
        self.index.insert(k, i);
        Some(i)
    }

    /// A datagram entered the path at `t` (read from its sender's TUN device); returns what
    /// it was, when it is a segment of a followed TCP connection.
    pub fn ingress(&mut self, t: SimTime, d: &Datagram) -> Option<Seen> {
        let seg = d.tcp?;
        let (src, dst) = ((d.ip.src, seg.src_port), (d.ip.dst, seg.dst_port));
        let i = self.connection(t, src, dst, seg.flags, true)?;
        let c = &mut self.conns[i as usize];
        c.last_seen = t;
        let syn = seg.flags.contains(TcpFlags::SYN);
        c.handshake_seen |= syn;
        c.reset_seen |= seg.flags.contains(TcpFlags::RST);
        let dir = c.direction_of(src);
        let mut seen = Seen::new(i, dir, d, &seg);
        let mine = &mut c.dirs[dir];
        mine.packets_in += 1;
        mine.bytes_in += u64::from(d.total_len);
        if mine.space.is_some() || syn || seg.seq_len() > 0 {
            seen.data = mine.entered(t, seg.seq, seg.seq_len(), syn, seg.payload_len);
        }
        if seg.flags.contains(TcpFlags::ACK) {
            let other = &mut c.dirs[1 - dir];
            seen.ack = other.ack_entered(t, seg.ack);
            seen.delivered = other.delivered_bytes();
        }
        Some(seen)
    }

    /// A datagram left the path at `t` (written to its receiver's TUN device); returns what
    /// it was, when it is a segment of a followed TCP connection.
    pub fn egress(&mut self, t: SimTime, d: &Datagram) -> Option<Seen> {
        let seg = d.tcp?;
        let (src, dst) = ((d.ip.src, seg.src_port), (d.ip.dst, seg.dst_port));
        let i = self.connection(t, src, dst, seg.flags, false)?;
        let c = &mut self.conns[i as usize];
        c.last_seen = t;
        let dir = c.direction_of(src);
        let mut seen = Seen::new(i, dir, d, &seg);
        c.dirs[dir].packets_out += 1;
        c.dirs[dir].bytes_out += u64::from(d.total_len);
        if seg.flags.contains(TcpFlags::ACK) {
            let rows = &mut self.rtt;
            let left = c.dirs[1 - dir].ack_left(t, seg.ack, |t, rtt| {
                if rows.time_ns.len() < MAX_RTT_ROWS {
                    rows.time_ns.push(t.as_ns());
                    rows.connection.push(i);
                    rows.direction.push((1 - dir) as u32);
                    rows.rtt_ns.push(rtt);
                } else {
                    rows.omitted += 1;
                }
            });
            if let Some((off, rtt)) = left {
                seen.ack = Some(off);
                seen.rtt_ns = rtt;
            }
            seen.delivered = c.dirs[1 - dir].delivered_bytes();
        }
        Some(seen)
    }

    /// Number of connections followed.
    pub fn connections(&self) -> usize {
        self.conns.len()
    }

    /// The endpoints (address, port) of connection `i`: the initiator first.
    pub fn endpoints(&self, i: u32) -> Option<[(Ipv4Addr, u16); 2]> {
        self.conns.get(i as usize).map(|c| c.endpoints)
    }

    /// Connections seen beyond [`MAX_CONNECTIONS`].
    pub fn untracked(&self) -> u64 {
        self.untracked
    }

    /// One entry per connection, in the order first seen: its 5-tuple (source = initiator),
    /// whether its handshake or a reset was seen, when it was first and last seen (simulated
    /// seconds), and per direction of data (`forward` from the initiator, `reverse`) the
    /// figures of the module documentation.
    pub fn report(&self) -> Value {
        Value::Array(
            self.conns
                .iter()
                .map(|c| {
                    json!({
                        "protocol": "tcp",
                        "src": c.endpoints[0].0.to_string(),
                        "src_port": c.endpoints[0].1,
                        "dst": c.endpoints[1].0.to_string(),
                        "dst_port": c.endpoints[1].1,
                        "handshake_seen": c.handshake_seen,
                        "reset_seen": c.reset_seen,
                        "first_seen_s": c.first_seen.as_secs_f64(),
                        "last_seen_s": c.last_seen.as_secs_f64(),
                        "forward": c.dirs[0].report(),
                        "reverse": c.dirs[1].report(),
                    })
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipv4::TcpSegment;
    use celltcp_net::packet::{Ecn, IpHeader, TcpHeader, TcpOptions, Transport};

    const A: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 4);
    const B: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);

    fn seg(from_a: bool, seq: u32, ack: u32, flags: TcpFlags, payload: u32) -> Datagram {
        let (src, dst, sp, dp) = if from_a {
            (A, B, 40000, 80)
        } else {
            (B, A, 80, 40000)
        };
        let header = TcpHeader {
            src_port: sp,
            dst_port: dp,
            seq,
            ack,
            flags,
            window: 1000,
            options: TcpOptions::default(),
            eln: false,
        };
        Datagram {
            ip: IpHeader {
                src,
                dst,
                ecn: Ecn::NotEct,
                dscp: 0,
                ttl: 64,
                id: 0,
            },
            protocol: 6,
            total_len: (40 + payload) as u16,
            transport: Transport::Tcp(header),
            tcp: Some(TcpSegment {
                src_port: sp,
                dst_port: dp,
                seq,
                ack,
                flags,
                payload_len: payload,
            }),
        }
    }

    fn ms(v: u64) -> SimTime {
        SimTime::from_ns(v * 1_000_000)
    }

    const ACK: TcpFlags = TcpFlags::ACK;

    #[test]
    fn a_transfer_gives_delivery_goodput_and_rtt_samples() {
        let mut o = Observer::default();
        let isn = u32::MAX - 1000; // the sequence numbers wrap during the transfer
        o.ingress(ms(0), &seg(true, 77, 0, TcpFlags::SYN, 0));
        o.egress(ms(10), &seg(true, 77, 0, TcpFlags::SYN, 0));
        o.ingress(ms(10), &seg(false, isn, 78, TcpFlags::SYN | ACK, 0));
        o.egress(ms(20), &seg(false, isn, 78, TcpFlags::SYN | ACK, 0));
        // The server sends 3 segments of 1000 bytes from isn + 1; the client ACKs them.
        for k in 0..3u32 {
            let seq = isn.wrapping_add(1 + 1000 * k);
            o.ingress(ms(20 + k as u64), &seg(false, seq, 78, ACK, 1000));
            o.egress(ms(30 + k as u64), &seg(false, seq, 78, ACK, 1000));
        }
        let ack = isn.wrapping_add(3001);
        o.ingress(ms(33), &seg(true, 78, ack, ACK, 0));
        o.egress(ms(43), &seg(true, 78, ack, ACK, 0));
        let r = o.report();
        let c = &r[0];
        assert_eq!(
            (c["src"].as_str(), c["src_port"].as_u64()),
            (Some("10.0.0.4"), Some(40000))
        );
        assert_eq!(c["handshake_seen"], true);
        let down = &c["reverse"];
        assert_eq!(down["data_segments"], 3);
        assert_eq!(down["retransmitted_segments"], 0);
        assert_eq!(down["bytes_delivered"], 3000);
        // 3000 bytes from 20 ms (first data in) to 33 ms (the ACK in): 24 000 bits / 13 ms.
        let g = down["goodput_bps"].as_f64().unwrap();
        assert!((g - 24_000.0 / 0.013).abs() < 1e-6, "{g}");
        // The SYN-ACK (in at 10 ms) and the three data segments (20, 21, 22 ms) are covered by
        // the ACK leaving at 43 ms: four samples, 33 ms down to 21 ms.
        let rtt = &down["rtt"];
        assert_eq!(rtt["samples"], 4);
        assert_eq!(rtt["max_s"].as_f64().unwrap(), 0.033);
        assert_eq!(rtt["min_s"].as_f64().unwrap(), 0.021);
        assert_eq!(
            o.rtt.rtt_ns.len(),
            4 + 1,
            "the SYN's sample from the SYN-ACK too"
        );
        assert_eq!(c["forward"]["rtt"]["samples"], 1);
    }

    #[test]
    fn a_range_seen_twice_is_a_retransmission_and_gives_no_sample() {
        let mut o = Observer::default();
        o.ingress(ms(0), &seg(true, 1000, 0, ACK, 500));
        o.ingress(ms(1), &seg(true, 1500, 0, ACK, 500));
        // 1000..1500 is lost on the path and sent again; 1500..2000 arrives.
        o.ingress(ms(50), &seg(true, 1000, 0, ACK, 500));
        o.ingress(ms(60), &seg(false, 0, 2000, ACK, 0));
        o.egress(ms(70), &seg(false, 0, 2000, ACK, 0));
        let r = o.report();
        let f = &r[0]["forward"];
        assert_eq!(f["data_segments"], 3);
        assert_eq!(f["retransmitted_segments"], 1);
        assert_eq!(f["retransmitted_bytes"], 500);
        assert_eq!(f["bytes_delivered"], 1000);
        // Only 1500..2000 was sent once: one sample, 1 ms → 70 ms.
        assert_eq!(f["rtt"]["samples"], 1);
        assert_eq!(f["rtt"]["max_s"].as_f64().unwrap(), 0.069);
        assert_eq!(r[0]["handshake_seen"], false);
    }

    #[test]
    fn udp_and_unknown_egress_are_ignored() {
        let mut o = Observer::default();
        let mut d = seg(true, 1, 0, ACK, 10);
        o.egress(ms(1), &d);
        d.tcp = None;
        o.ingress(ms(1), &d);
        assert_eq!(o.report(), Value::Array(vec![]));
    }
}
