//! A split-TCP performance-enhancing proxy (RFC 3135) as a middlebox: a transport-layer PEP
//! (§2.1.1) that splits connections (§2.4), integrated in one node (§2.2) and transparent to
//! the end hosts (§2.5), at the node between the servers and the mobile hosts, as in seed 001
//! (slides 13–15): local ACKs pipeline the two connections, and the connection towards the UE
//! may start with a larger initial window (up to 10 MSS).
//!
//! What the proxy does not do: it answers a SYN at once, before the responder has accepted
//! the proxy's own connection, so a server may see its connection accepted (and its data
//! acknowledged) although the UE never answers; and a connection ended by a reset on one side
//! is closed with a FIN on the other (the endpoint sends no resets).
//!
//! Interception. A SYN between a mobile host (an address of
//! [`SplitTcpConfig::mobile_side`]) and any other address is absorbed; the proxy answers it
//! as if it were the addressed host (a listening [`TcpEndpoint`] with the responder's address
//! and port) and opens its own connection to the responder with the initiator's address and
//! port as source. Both directions are split alike (RFC 3135 §2.3, symmetric): a server's
//! SYN to a UE (downlink transfer) and a UE's SYN to a server. Segments of a split connection
//! are fed to the endpoint they are addressed to and absorbed; everything else (other
//! protocols, connections not involving a mobile host, connections that began before any SYN
//! was seen) passes untouched.
//!
//! Relay. Bytes delivered in order by one connection are written into the other, bounded by
//! [`SplitTcpConfig::relay_buffer_bytes`] (see there); a FIN is passed on after the data.
//! The ACKs each end host receives are the proxy's local ACKs (RFC 3135 §3.1.2), so a
//! server's transfer can be acknowledged before the UE has the data (§4.1.3).
//!
//! The proxy's packets keep the flow id of the intercepted connection, so that the world's
//! per-flow counters cover both connections. Its endpoints do not write to the world's
//! per-flow traces, which describe the end hosts' connections; their figures are in
//! [`Middlebox::report`] and in [`SplitTcpProxy::stats_to_mobile`] /
//! [`SplitTcpProxy::stats_to_server`].

mod config;
mod split;

use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;

use celltcp_engine::{RngStream, SimTime};
use celltcp_net::middlebox::{Middlebox, MiddleboxCtx, MiddleboxFigure};
use celltcp_net::packet::{Packet, TcpFlags};
use celltcp_net::trace::Traces;

pub use config::{ProxyError, SplitTcpConfig, CC_TO_SERVER};
pub use split::SplitConnection;

use crate::cc::{self, CongestionControl};
use crate::config::TcpConfig;
use crate::endpoint::TcpEndpoint;
use crate::stats::TcpStats;
use split::Facing;

/// A split connection is keyed by (initiator address, initiator port, responder address,
/// responder port); the ordered map gives a deterministic iteration order for timers.
type SplitKey = (Ipv4Addr, u16, Ipv4Addr, u16);

/// Spacing of the initial sequence numbers of successive split connections, so that a new
/// connection between the same ports does not start inside an old one's sequence space.
const ISN_STRIDE: u32 = 0x1000_0000;

/// The split-TCP proxy; see the module documentation.
pub struct SplitTcpProxy {
    name: String,
    cfg: SplitTcpConfig,
    /// `cfg.mobile_side`, sorted for binary search.
    mobile: Vec<Ipv4Addr>,
    splits: BTreeMap<SplitKey, SplitConnection>,
    /// The next deadline of every split that has one, ordered by time then key (the key order
    /// makes simultaneous deadlines fire deterministically), and each split's entry in it: the
    /// world asks for the earliest deadline after every packet, which must not cost a scan of
    /// every connection.
    deadlines: BTreeSet<(SimTime, SplitKey)>,
    armed: BTreeMap<SplitKey, SimTime>,
    /// Connections split so far.
    opened: u64,
    /// Counters of the splits already finished and forgotten.
    finished_to_mobile: TcpStats,
    finished_to_server: TcpStats,
    finished_relayed_to_mobile: u64,
    finished_relayed_to_server: u64,
    relay_max: u64,
    /// Sink for the endpoints' trace calls: nothing is enabled (see the module documentation).
    quiet: Traces,
}

impl SplitTcpProxy {
    /// A proxy called `name` in summaries; the configuration is validated here.
    pub fn new(name: &str, cfg: SplitTcpConfig) -> Result<Self, ProxyError> {
        cfg.validate()?;
        let mut mobile = cfg.mobile_side.clone();
        mobile.sort_unstable();
        mobile.dedup();
        Ok(SplitTcpProxy {
            name: name.to_owned(),
            cfg,
            mobile,
            splits: BTreeMap::new(),
            deadlines: BTreeSet::new(),
            armed: BTreeMap::new(),
            opened: 0,
            finished_to_mobile: TcpStats::default(),
            finished_to_server: TcpStats::default(),
            finished_relayed_to_mobile: 0,
            finished_relayed_to_server: 0,
            relay_max: 0,
            quiet: Traces::new(&[]),
        })
    }

    pub fn config(&self) -> &SplitTcpConfig {
        &self.cfg
    }

    /// Connections split so far.
    pub fn connections_split(&self) -> u64 {
        self.opened
    }

    /// The split connections not yet finished, in key order.
    pub fn active(&self) -> impl Iterator<Item = &SplitConnection> {
        self.splits.values()
    }

    /// Counters of the connections towards the mobile hosts, finished and active.
    pub fn stats_to_mobile(&self) -> TcpStats {
        let mut s = self.finished_to_mobile.clone();
        for c in self.splits.values() {
            s.accumulate(c.to_mobile().stats());
        }
        s
    }

    /// Counters of the connections towards the servers, finished and active.
    pub fn stats_to_server(&self) -> TcpStats {
        let mut s = self.finished_to_server.clone();
        for c in self.splits.values() {
            s.accumulate(c.to_server().stats());
        }
        s
    }

    /// Bytes relayed from the servers towards the mobile hosts.
    pub fn bytes_relayed_to_mobile(&self) -> u64 {
        self.finished_relayed_to_mobile
            + self
                .splits
                .values()
                .map(|c| c.relayed_to_mobile())
                .sum::<u64>()
    }

    /// Bytes relayed from the mobile hosts towards the servers.
    pub fn bytes_relayed_to_server(&self) -> u64 {
        self.finished_relayed_to_server
            + self
                .splits
                .values()
                .map(|c| c.relayed_to_server())
                .sum::<u64>()
    }

    /// Largest number of bytes one direction of one split connection held in its relay.
    pub fn relay_max_bytes(&self) -> u64 {
        self.splits
            .values()
            .map(|c| c.relay_max_bytes())
            .fold(self.relay_max, u64::max)
    }

    fn is_mobile(&self, a: Ipv4Addr) -> bool {
        self.mobile.binary_search(&a).is_ok()
    }

    fn build_cc(
        &self,
        to_mobile: bool,
        cfg: &TcpConfig,
        rng: &mut RngStream,
    ) -> Box<dyn CongestionControl> {
        let name = if to_mobile {
            self.cfg.cc_to_mobile.as_str()
        } else {
            CC_TO_SERVER
        };
        // Names were checked by `validate`; the seed only matters to controllers that draw
        // random numbers (BBR), and comes from the middlebox's own stream.
        cc::build_with_seed(name, &cfg.cc_config(), rng.next_u64())
            .unwrap_or_else(|| unreachable!("controller names are validated in new()"))
    }

    /// Starts a split for the SYN `pkt` from `initiator` to `responder`.
    fn open(
        &mut self,
        pkt: &Packet,
        initiator: (Ipv4Addr, u16),
        responder: (Ipv4Addr, u16),
        ctx: &mut MiddleboxCtx<'_>,
    ) -> SplitConnection {
        let mobile_initiated = self.is_mobile(initiator.0);
        let isn_offset = (self.opened as u32).wrapping_mul(ISN_STRIDE);
        let with_isn = |c: &TcpConfig| TcpConfig {
            isn: c.isn.wrapping_add(isn_offset),
            ..*c
        };
        let (cfg_i, cfg_r) = if mobile_initiated {
            (with_isn(&self.cfg.to_mobile), with_isn(&self.cfg.to_server))
        } else {
            (with_isn(&self.cfg.to_server), with_isn(&self.cfg.to_mobile))
        };
        let cc_i = self.build_cc(mobile_initiated, &cfg_i, ctx.rng);
        let cc_r = self.build_cc(!mobile_initiated, &cfg_r, ctx.rng);
        let towards_initiator = TcpEndpoint::listen(cfg_i, cc_i, responder, pkt.flow);
        let towards_responder =
            TcpEndpoint::connect(cfg_r, cc_r, initiator, responder, pkt.flow, ctx.now);
        self.opened += 1;
        SplitConnection::new(
            pkt.flow,
            initiator,
            responder,
            mobile_initiated,
            towards_initiator,
            towards_responder,
        )
    }

    /// Adds a finished split's counters to the totals.
    fn retire(&mut self, c: &SplitConnection) {
        self.finished_to_mobile.accumulate(c.to_mobile().stats());
        self.finished_to_server.accumulate(c.to_server().stats());
        self.finished_relayed_to_mobile += c.relayed_to_mobile();
        self.finished_relayed_to_server += c.relayed_to_server();
        self.relay_max = self.relay_max.max(c.relay_max_bytes());
    }

    /// Relays and transmits for the split `key`, forgetting it once both connections ended,
    /// and records its next deadline. Every change to a split ends here.
    fn drive(&mut self, key: SplitKey, ctx: &mut MiddleboxCtx<'_>) {
        let limit = self.cfg.relay_buffer_bytes;
        let next = match self.splits.get_mut(&key) {
            Some(c) => {
                c.drive(ctx.now, limit, ctx.out, &mut self.quiet);
                if c.is_finished() {
                    if let Some(c) = self.splits.remove(&key) {
                        self.retire(&c);
                    }
                    None
                } else {
                    c.poll_timeout()
                }
            }
            None => None,
        };
        self.arm(key, next);
    }

    /// Makes `at` the recorded deadline of the split `key` (none: it has no timer running).
    fn arm(&mut self, key: SplitKey, at: Option<SimTime>) {
        if let Some(old) = self.armed.remove(&key) {
            self.deadlines.remove(&(old, key));
        }
        if let Some(at) = at {
            self.armed.insert(key, at);
            self.deadlines.insert((at, key));
        }
    }

    /// The recorded deadlines are those the splits report (checked in debug builds).
    fn deadlines_agree(&self) -> bool {
        let recorded: Vec<(SimTime, SplitKey)> = self.deadlines.iter().copied().collect();
        let mut actual: Vec<(SimTime, SplitKey)> = self
            .splits
            .iter()
            .filter_map(|(k, c)| c.poll_timeout().map(|t| (t, *k)))
            .collect();
        actual.sort_unstable();
        recorded == actual
    }
}

impl Middlebox for SplitTcpProxy {
    fn name(&self) -> &str {
        &self.name
    }

    fn on_forward(&mut self, pkt: Packet, ctx: &mut MiddleboxCtx<'_>) -> Option<Packet> {
        let Some(h) = pkt.tcp() else {
            return Some(pkt);
        };
        let src = (pkt.ip.src, h.src_port);
        let dst = (pkt.ip.dst, h.dst_port);
        // Only connections with exactly one end behind the proxy are split.
        if self.is_mobile(src.0) == self.is_mobile(dst.0) {
            return Some(pkt);
        }
        let from_initiator: SplitKey = (src.0, src.1, dst.0, dst.1);
        let from_responder: SplitKey = (dst.0, dst.1, src.0, src.1);
        let is_syn = h.flags.contains(TcpFlags::SYN) && !h.flags.contains(TcpFlags::ACK);
        let (key, facing) = if self.splits.contains_key(&from_initiator) {
            (from_initiator, Facing::Initiator)
        } else if self.splits.contains_key(&from_responder) {
            (from_responder, Facing::Responder)
        } else if is_syn {
            let c = self.open(&pkt, src, dst, ctx);
            self.splits.insert(from_initiator, c);
            (from_initiator, Facing::Initiator)
        } else {
            return Some(pkt);
        };
        if is_syn && facing == Facing::Initiator {
            // A SYN reusing the ports of a connection that has ended starts a new split.
            let ended = self.splits.get(&key).is_some_and(|c| c.accepts_new_syn());
            if ended {
                if let Some(old) = self.splits.remove(&key) {
                    self.retire(&old);
                }
                let c = self.open(&pkt, src, dst, ctx);
                self.splits.insert(key, c);
            }
        }
        if let Some(c) = self.splits.get_mut(&key) {
            c.on_segment(facing, ctx.now, &pkt, &mut self.quiet);
        }
        self.drive(key, ctx);
        None
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        debug_assert!(
            self.deadlines_agree(),
            "a split's deadline changed outside drive()"
        );
        self.deadlines.first().map(|(t, _)| *t)
    }

    fn on_timer(&mut self, ctx: &mut MiddleboxCtx<'_>) {
        let now = ctx.now;
        let due: Vec<SplitKey> = self
            .deadlines
            .iter()
            .take_while(|(t, _)| *t <= now)
            .map(|(_, k)| *k)
            .collect();
        for key in due {
            if let Some(c) = self.splits.get_mut(&key) {
                c.on_timeout(now, &mut self.quiet);
            }
            self.drive(key, ctx);
        }
    }

    fn report(&self, _now: SimTime) -> Vec<MiddleboxFigure> {
        let m = self.stats_to_mobile();
        let s = self.stats_to_server();
        let fig = |k: &str, v: f64| (k.to_owned(), v);
        vec![
            fig("connections_split", self.opened as f64),
            fig("connections_active", self.splits.len() as f64),
            fig(
                "bytes_relayed_to_mobile",
                self.bytes_relayed_to_mobile() as f64,
            ),
            fig(
                "bytes_relayed_to_server",
                self.bytes_relayed_to_server() as f64,
            ),
            fig("relay_max_bytes", self.relay_max_bytes() as f64),
            fig("retransmissions_to_mobile", m.retx_total as f64),
            fig("timeouts_to_mobile", m.timeouts as f64),
            fig("retransmissions_to_server", s.retx_total as f64),
            fig("timeouts_to_server", s.timeouts as f64),
            fig("srtt_to_mobile_s", m.srtt.as_secs_f64()),
            fig("srtt_to_server_s", s.srtt.as_secs_f64()),
            fig("min_rtt_to_mobile_s", m.min_rtt.as_secs_f64()),
            fig("min_rtt_to_server_s", s.min_rtt.as_secs_f64()),
        ]
    }
}
