//! The EPC user plane: GTP-U tunnels on S1-U between the eNBs and a combined S-GW/P-GW, and
//! what happens to the ECN field at the tunnel ends.
//!
//! Downlink, a packet for a UE reaches the gateway (the P-GW owns the UEs' addresses on SGi, so
//! every router sends UE-bound traffic towards it), is encapsulated in a G-PDU to the UE's
//! serving eNB with the TEID that eNB allocated (3GPP TS 23.401 §5.3.4, TS 29.281 §4), routed on
//! its outer destination, decapsulated at the eNB and handed to the cell. Uplink, the eNB
//! encapsulates what its UEs send towards the gateway with the TEID the gateway allocated; the
//! gateway decapsulates and routes the inner packet on.
//!
//! ECN. Routers on S1-U see only the outer header, so what they may mark depends on the outer
//! ECN field the encapsulator sets, and whether a mark reaches the receiver depends on the
//! decapsulator. The scenario chooses one of three behaviours, [`EcnDecap`]:
//! * `Ignore` — deployed networks per Pacifico et al., GLOBECOM 2009 §III-A: the outer field is
//!   copied from the inner one (RFC 6040 §4.1 normal mode), but an outer CE is discarded with
//!   the outer header;
//! * `Rfc6040` — normal-mode copy at encapsulation, the RFC 6040 §4.2 table at decapsulation;
//! * `DropNotEct` — the same paper's proposal (Fig. 7): the tunnel is ECN-capable whatever it
//!   carries (outer ECT(0)), an outer CE is copied into an ECN-capable inner header and a
//!   Not-ECT inner packet with an outer CE is dropped at the eNB.
//!
//! The bearer table (UE → serving eNB and TEIDs) lives in one place, [`Epc`], and
//! [`Epc::switch_path`] changes a UE's downlink tunnel at run time, as the S1 path switch of a
//! handover does (TS 36.300 §10.1.2.1.1 steps 12–16; TS 23.401 §5.5.1.1.2).
//!
//! Handover also uses X2-U: the source eNB forwards the downlink data it still holds to the
//! target in G-PDUs that carry each packet's PDCP count (TS 36.300 §10.1.2.1.2, §10.1.2.3), under
//! a TEID the target allocates ([`Epc::allocate_forwarding_teid`]); the outer ECN field follows
//! the same [`EcnDecap`] mode as on S1-U, since the same routers carry both.

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use crate::packet::{Ecn, GtpInterface, GtpMessage, GtpTunnel, NodeId, Packet};

pub use crate::wire::GTPU_PORT;

/// How the tunnel endpoints set the outer ECN field and what they do with it at decapsulation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EcnDecap {
    /// Outer field copied at encapsulation, discarded with the outer header at decapsulation:
    /// a CE mark set on S1-U never reaches the receiver (today's deployments, Pacifico et al.
    /// 2009 §III-A).
    Ignore,
    /// RFC 6040: normal-mode copy at encapsulation (§4.1); at decapsulation (§4.2, Fig. 4) outer
    /// CE becomes inner CE when the inner packet is ECN-capable and the packet is dropped when
    /// it is Not-ECT; outer ECT(1) over inner ECT(0) gives ECT(1).
    #[default]
    Rfc6040,
    /// Pacifico et al. 2009 Fig. 7: the outer header is ECT(0) for every packet; at
    /// decapsulation an outer CE is copied into an ECN-capable inner header and the packet is
    /// dropped when the inner is Not-ECT; other outer codepoints leave the inner header as it is.
    DropNotEct,
}

impl EcnDecap {
    /// The scenario-file spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            EcnDecap::Ignore => "ignore",
            EcnDecap::Rfc6040 => "rfc6040",
            EcnDecap::DropNotEct => "drop_not_ect",
        }
    }
}

/// The outer ECN field set at encapsulation: RFC 6040 §4.1 normal mode copies the inner one;
/// the tunnel of Pacifico et al. Fig. 7 is ECT(0) whatever it carries.
#[inline]
pub fn encapsulated_ecn(mode: EcnDecap, inner: Ecn) -> Ecn {
    match mode {
        EcnDecap::Ignore | EcnDecap::Rfc6040 => inner,
        EcnDecap::DropNotEct => Ecn::Ect0,
    }
}

/// The inner ECN field after decapsulation with `mode`, or `None` when the packet must be
/// dropped.
pub fn decapsulated_ecn(mode: EcnDecap, inner: Ecn, outer: Ecn) -> Option<Ecn> {
    use Ecn::*;
    match mode {
        EcnDecap::Ignore => Some(inner),
        EcnDecap::DropNotEct => match (inner, outer) {
            (NotEct, Ce) => None,
            (_, Ce) => Some(Ce),
            (inner, _) => Some(inner),
        },
        // RFC 6040 §4.2, Fig. 4, row by row (the "(!!!)" combinations, which a compliant
        // encapsulator never produces, follow the table too).
        EcnDecap::Rfc6040 => match (inner, outer) {
            (NotEct, Ce) => None,
            (NotEct, _) => Some(NotEct),
            (Ce, _) | (_, Ce) => Some(Ce),
            (Ect0, Ect1) => Some(Ect1),
            (inner, _) => Some(inner),
        },
    }
}

/// Puts `pkt` in an S1-U G-PDU from `outer_src` to `outer_dst` with `teid`, the outer ECN field
/// per `mode` ([`encapsulated_ecn`]). The packet grows by the 36 bytes of the outer headers.
pub fn encapsulate(
    pkt: &mut Packet,
    outer_src: Ipv4Addr,
    outer_dst: Ipv4Addr,
    teid: u32,
    mode: EcnDecap,
) {
    encapsulate_on(
        pkt,
        GtpInterface::S1u,
        outer_src,
        outer_dst,
        teid,
        mode,
        None,
    );
}

/// Puts `pkt` in an X2-U G-PDU from the source eNB's `outer_src` to the target eNB's
/// `outer_dst` with the target's forwarding `teid` (TS 36.300 §10.1.2.1.2), carrying
/// `pdcp_count` in the PDCP PDU Number extension when given (TS 29.281 §5.2.2.2). The outer ECN
/// field follows `mode` as on S1-U. The packet grows by 36 bytes, 44 with the extension.
pub fn encapsulate_forwarded(
    pkt: &mut Packet,
    outer_src: Ipv4Addr,
    outer_dst: Ipv4Addr,
    teid: u32,
    mode: EcnDecap,
    pdcp_count: Option<u32>,
) {
    encapsulate_on(
        pkt,
        GtpInterface::X2u,
        outer_src,
        outer_dst,
        teid,
        mode,
        pdcp_count,
    );
}

fn encapsulate_on(
    pkt: &mut Packet,
    interface: GtpInterface,
    outer_src: Ipv4Addr,
    outer_dst: Ipv4Addr,
    teid: u32,
    mode: EcnDecap,
    pdcp_count: Option<u32>,
) {
    debug_assert!(pkt.tunnel.is_none(), "GTP-U in GTP-U is not modelled");
    let outer_ecn = encapsulated_ecn(mode, pkt.ip.ecn);
    pkt.tunnel = Some(GtpTunnel {
        outer_src,
        outer_dst,
        teid,
        outer_ecn,
        message: GtpMessage::GPdu,
        interface,
        pdcp_count,
    });
}

/// What decapsulation did to the congestion signal of the outer header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decapsulated {
    /// The inner packet goes on; `ce` tells the fate of an outer CE mark.
    Forward { ce: CeFate },
    /// The outer header carried CE over a Not-ECT inner packet: dropped (RFC 6040 §4.2).
    Dropped,
}

/// The fate of the outer CE mark at decapsulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CeFate {
    /// The outer header was not CE, or the inner already was.
    Unmarked,
    /// CE was copied into the inner header.
    Propagated,
    /// CE was discarded with the outer header ([`EcnDecap::Ignore`]).
    Lost,
}

/// Removes the tunnel of a G-PDU `pkt`, setting the inner ECN field per `mode`. A packet that
/// must be dropped is left untouched. An end marker has no inner packet to forward: call this
/// for G-PDUs only.
pub fn decapsulate(pkt: &mut Packet, mode: EcnDecap) -> Decapsulated {
    let Some(t) = pkt.tunnel else {
        return Decapsulated::Forward {
            ce: CeFate::Unmarked,
        };
    };
    let inner = pkt.ip.ecn;
    let Some(ecn) = decapsulated_ecn(mode, inner, t.outer_ecn) else {
        return Decapsulated::Dropped;
    };
    let ce = match (t.outer_ecn, inner, ecn) {
        (Ecn::Ce, Ecn::Ce, _) => CeFate::Unmarked,
        (Ecn::Ce, _, Ecn::Ce) => CeFate::Propagated,
        (Ecn::Ce, _, _) => CeFate::Lost,
        _ => CeFate::Unmarked,
    };
    pkt.ip.ecn = ecn;
    pkt.tunnel = None;
    Decapsulated::Forward { ce }
}

/// Exchanges the inner and the outer ECN fields of a tunnelled packet (no-op otherwise).
///
/// Queue disciplines read and mark `pkt.ip.ecn`. A router on S1-U sees only the outer header
/// (RFC 6040 §1, §4), so the world calls this before offering a tunnelled packet to a queue and
/// again when the packet leaves it: inside the queue `ip.ecn` is the outer field, and a CE mark
/// set there ends up in `tunnel.outer_ecn`.
#[inline]
pub fn swap_ecn_layers(pkt: &mut Packet) {
    if let Some(t) = pkt.tunnel.as_mut() {
        std::mem::swap(&mut pkt.ip.ecn, &mut t.outer_ecn);
    }
}

/// Where a packet being routed at a node came from; the EPC acts differently on each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ingress {
    /// Sent by an agent on the node.
    Local,
    /// Arrived over a point-to-point link.
    Wire,
    /// Delivered by a medium (a cell): at an eNB, an uplink packet from a UE over the radio.
    Radio,
    /// Just decapsulated at this node.
    Tunnel,
}

/// A UE's EPS bearer on S1-U: its serving eNB and the two tunnel endpoint identifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bearer {
    pub ue: NodeId,
    /// The serving eNB: the downlink tunnel's far end.
    pub enb: NodeId,
    /// TEID allocated by the eNB for the downlink (S1-U eNB F-TEID, TS 23.401 §5.3.4.1).
    pub dl_teid: u32,
    /// TEID allocated by the gateway for the uplink (S1-U S-GW F-TEID).
    pub ul_teid: u32,
}

/// Counters of one tunnel endpoint (the gateway or an eNB).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TunnelEndpointStats {
    /// Packets put into a tunnel here.
    pub encapsulated: u64,
    /// Packets taken out of a tunnel here and forwarded.
    pub decapsulated: u64,
    /// Outer CE marks copied into the inner header.
    pub ce_propagated: u64,
    /// Outer CE marks discarded with the outer header ([`EcnDecap::Ignore`]).
    pub ce_lost: u64,
    /// Packets dropped at decapsulation: outer CE over a Not-ECT inner packet.
    pub drops_ecn_decap: u64,
    /// GTP-U end markers sent (by the gateway at a path switch, by a source eNB after its last
    /// forwarded packet) and received (by an eNB) here (TS 29.281 §7.3.2).
    pub end_markers: u64,
}

/// How to set up the EPC of a world: the gateway, the decapsulation mode, the eNBs and the UEs
/// each one serves at the start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpcConfig {
    /// The combined S-GW/P-GW node.
    pub gateway: NodeId,
    pub ecn_decap: EcnDecap,
    /// eNBs, including those that serve no UE at the start (handover targets).
    pub enbs: Vec<NodeId>,
    /// (UE, serving eNB) pairs.
    pub attachments: Vec<(NodeId, NodeId)>,
}

/// An EPC configuration or a run-time request that does not fit the topology.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EpcError {
    #[error("epc: node {node} does not exist ({nodes} nodes)")]
    UnknownNode { node: NodeId, nodes: usize },
    #[error("epc: the gateway (node {node}) cannot also be an eNB")]
    GatewayIsEnb { node: NodeId },
    #[error("epc: node {node} is not an eNB of the EPC")]
    NotAnEnb { node: NodeId },
    #[error("epc: UE node {ue} is attached twice")]
    AttachedTwice { ue: NodeId },
    #[error("epc: node {ue} has no bearer (not a UE of the EPC)")]
    NoBearer { ue: NodeId },
    #[error("epc: node {node} is the gateway or an eNB and cannot be a UE")]
    NotAUe { node: NodeId },
}

/// Where the EPC sends a packet that is not in a tunnel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Steer {
    /// Ordinary IP forwarding towards the packet's destination.
    Ip,
    /// Towards the gateway: the destination is a UE, whose address only the P-GW serves.
    ToGateway,
    /// Into a tunnel to `end` with `teid`.
    Encapsulate { end: NodeId, teid: u32 },
}

/// The EPC of a world: gateway, decapsulation mode, bearer table and per-endpoint counters.
#[derive(Clone, Debug)]
pub struct Epc {
    gateway: NodeId,
    ecn_decap: EcnDecap,
    /// Per node: its bearer when the node is a UE of the EPC.
    bearers: Vec<Option<Bearer>>,
    is_enb: Vec<bool>,
    /// Per node: the next TEID it allocates. TEID 0 is reserved for signalling that precedes
    /// any tunnel (TS 29.281 §5.1), so allocation starts at 1.
    next_teid: Vec<u32>,
    /// X2-U forwarding TEIDs by (target eNB, UE), allocated on first use.
    forwarding_teids: BTreeMap<(NodeId, NodeId), u32>,
    stats: Vec<TunnelEndpointStats>,
}

impl Epc {
    /// Checks `cfg` against a topology of `nodes` nodes and allocates the TEIDs: each endpoint
    /// numbers the tunnels it receives 1, 2, … in the order of `cfg.attachments`.
    pub fn new(cfg: &EpcConfig, nodes: usize) -> Result<Epc, EpcError> {
        let check = |node: NodeId| {
            if node.index() < nodes {
                Ok(node)
            } else {
                Err(EpcError::UnknownNode { node, nodes })
            }
        };
        let gateway = check(cfg.gateway)?;
        let mut epc = Epc {
            gateway,
            ecn_decap: cfg.ecn_decap,
            bearers: vec![None; nodes],
            is_enb: vec![false; nodes],
            next_teid: vec![1; nodes],
            forwarding_teids: BTreeMap::new(),
            stats: vec![TunnelEndpointStats::default(); nodes],
        };
        let enbs = cfg
            .enbs
            .iter()
            .copied()
            .chain(cfg.attachments.iter().map(|&(_, enb)| enb));
        for enb in enbs {
            if check(enb)? == gateway {
                return Err(EpcError::GatewayIsEnb { node: enb });
            }
            epc.is_enb[enb.index()] = true;
        }
        for &(ue, enb) in &cfg.attachments {
            if check(ue)? == gateway || epc.is_enb[ue.index()] {
                return Err(EpcError::NotAUe { node: ue });
            }
            if epc.bearers[ue.index()].is_some() {
                return Err(EpcError::AttachedTwice { ue });
            }
            let dl_teid = epc.allocate_teid(enb);
            let ul_teid = epc.allocate_teid(gateway);
            epc.bearers[ue.index()] = Some(Bearer {
                ue,
                enb,
                dl_teid,
                ul_teid,
            });
        }
        Ok(epc)
    }

    fn allocate_teid(&mut self, endpoint: NodeId) -> u32 {
        let t = &mut self.next_teid[endpoint.index()];
        let teid = *t;
        *t = t.wrapping_add(1).max(1);
        teid
    }

    /// The combined S-GW/P-GW.
    pub fn gateway(&self) -> NodeId {
        self.gateway
    }

    pub fn ecn_decap(&self) -> EcnDecap {
        self.ecn_decap
    }

    pub fn is_enb(&self, node: NodeId) -> bool {
        self.is_enb.get(node.index()).copied().unwrap_or(false)
    }

    /// The bearer of UE `ue`, if it is a UE of the EPC.
    pub fn bearer(&self, ue: NodeId) -> Option<&Bearer> {
        self.bearers.get(ue.index()).and_then(Option::as_ref)
    }

    /// All bearers, by UE node.
    pub fn bearers(&self) -> impl Iterator<Item = &Bearer> {
        self.bearers.iter().flatten()
    }

    /// The tunnel endpoints (gateway first, then the eNBs by node) with their counters.
    pub fn endpoints(&self) -> impl Iterator<Item = (NodeId, &TunnelEndpointStats)> {
        let enbs = (0..self.is_enb.len())
            .filter(|&n| self.is_enb[n])
            .map(NodeId::from_index);
        std::iter::once(self.gateway)
            .chain(enbs)
            .map(|n| (n, &self.stats[n.index()]))
    }

    /// Counters of `node` as a tunnel endpoint (zero for a node that is none).
    pub fn endpoint_stats(&self, node: NodeId) -> TunnelEndpointStats {
        self.stats.get(node.index()).copied().unwrap_or_default()
    }

    pub(crate) fn stats_mut(&mut self, node: NodeId) -> &mut TunnelEndpointStats {
        &mut self.stats[node.index()]
    }

    /// Moves the downlink tunnel of `ue` to `enb`, which allocates a new TEID for it; returns
    /// that TEID. Packets already in the old tunnel still reach the old eNB. The uplink TEID is
    /// the gateway's and does not change (TS 23.401 §5.5.1.1.2).
    pub fn switch_path(&mut self, ue: NodeId, enb: NodeId) -> Result<u32, EpcError> {
        if !self.is_enb(enb) {
            return Err(EpcError::NotAnEnb { node: enb });
        }
        if self.bearer(ue).is_none() {
            return Err(EpcError::NoBearer { ue });
        }
        let teid = self.allocate_teid(enb);
        if let Some(b) = self.bearers[ue.index()].as_mut() {
            b.enb = enb;
            b.dl_teid = teid;
        }
        Ok(teid)
    }

    /// The TEID under which eNB `target` receives the data forwarded to it over X2-U for `ue`
    /// (TS 36.300 §10.1.2.1.1 step 5: the target allocates the DL forwarding tunnel in its
    /// Handover Request Acknowledge). The target allocates it from its own TEID space the first
    /// time it is asked for that UE, and reuses it for every later handover of the UE to it, so
    /// the rule depends only on the order of requests, which is deterministic.
    pub fn allocate_forwarding_teid(
        &mut self,
        target: NodeId,
        ue: NodeId,
    ) -> Result<u32, EpcError> {
        if !self.is_enb(target) {
            return Err(EpcError::NotAnEnb { node: target });
        }
        if self.bearer(ue).is_none() {
            return Err(EpcError::NoBearer { ue });
        }
        if let Some(&teid) = self.forwarding_teids.get(&(target, ue)) {
            return Ok(teid);
        }
        let teid = self.allocate_teid(target);
        self.forwarding_teids.insert((target, ue), teid);
        Ok(teid)
    }

    /// Where an untunnelled packet from `src` to `dst` (nodes, when the addresses are known)
    /// goes at `node`. Call contract: `dst != node` (local delivery comes first).
    pub(crate) fn steer(
        &self,
        node: NodeId,
        src: Option<NodeId>,
        dst: NodeId,
        ingress: Ingress,
    ) -> Steer {
        let to_ue = self.bearer(dst);
        if node == self.gateway {
            // SGi → S1-U downlink: the P-GW/S-GW puts the packet in the UE's bearer.
            return match to_ue {
                Some(b) => Steer::Encapsulate {
                    end: b.enb,
                    teid: b.dl_teid,
                },
                None => Steer::Ip,
            };
        }
        if self.is_enb(node) {
            match ingress {
                // Uplink from a UE — over the radio, or over a point-to-point access link that
                // stands for one: into the UE's S1-U bearer towards the gateway.
                Ingress::Radio | Ingress::Wire => {
                    if let Some(b) = src.and_then(|s| self.bearer(s)) {
                        return Steer::Encapsulate {
                            end: self.gateway,
                            teid: b.ul_teid,
                        };
                    }
                }
                // Downlink just out of its tunnel: on to the UE.
                Ingress::Tunnel => return Steer::Ip,
                Ingress::Local => {}
            }
        }
        if to_ue.is_some() {
            Steer::ToGateway
        } else {
            Steer::Ip
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::FlowId;
    use crate::packet::{IpHeader, Transport, UdpHeader};
    use celltcp_engine::SimTime;
    use Ecn::*;

    const ALL: [Ecn; 4] = [NotEct, Ect0, Ect1, Ce];

    /// RFC 6040 §4.2 Fig. 4, rows = arriving inner, columns = arriving outer
    /// (Not-ECT, ECT(0), ECT(1), CE); `None` = drop.
    const RFC6040_TABLE: [[Option<Ecn>; 4]; 4] = [
        [Some(NotEct), Some(NotEct), Some(NotEct), None],
        [Some(Ect0), Some(Ect0), Some(Ect1), Some(Ce)],
        [Some(Ect1), Some(Ect1), Some(Ect1), Some(Ce)],
        [Some(Ce), Some(Ce), Some(Ce), Some(Ce)],
    ];

    #[test]
    fn rfc6040_decapsulation_follows_figure_4() {
        for (i, inner) in ALL.iter().enumerate() {
            for (o, outer) in ALL.iter().enumerate() {
                assert_eq!(
                    decapsulated_ecn(EcnDecap::Rfc6040, *inner, *outer),
                    RFC6040_TABLE[i][o],
                    "inner {inner:?} outer {outer:?}"
                );
            }
        }
    }

    #[test]
    fn ignore_keeps_the_inner_field_and_drop_not_ect_acts_on_ce_only() {
        for inner in ALL {
            for outer in ALL {
                assert_eq!(
                    decapsulated_ecn(EcnDecap::Ignore, inner, outer),
                    Some(inner)
                );
                let fig7 = decapsulated_ecn(EcnDecap::DropNotEct, inner, outer);
                let want = match (inner, outer) {
                    (NotEct, Ce) => None,
                    (_, Ce) => Some(Ce),
                    _ => Some(inner),
                };
                assert_eq!(fig7, want, "inner {inner:?} outer {outer:?}");
            }
        }
        // The two propagating modes differ only where RFC 6040 carries ECT(1) inwards.
        assert_eq!(
            decapsulated_ecn(EcnDecap::DropNotEct, Ect0, Ect1),
            Some(Ect0)
        );
        assert_eq!(decapsulated_ecn(EcnDecap::Rfc6040, Ect0, Ect1), Some(Ect1));
    }

    fn packet(ecn: Ecn) -> Packet {
        Packet {
            uid: 1,
            flow: FlowId(0),
            ip: IpHeader {
                src: Ipv4Addr::new(10, 0, 0, 1),
                dst: Ipv4Addr::new(10, 0, 0, 9),
                ecn,
                dscp: 0,
                ttl: 64,
                id: 1,
            },
            transport: Transport::Udp(UdpHeader {
                src_port: 1,
                dst_port: 2,
            }),
            payload_len: 1000,
            app_seq: 0,
            created_at: SimTime::ZERO,
            tunnel: None,
        }
    }

    #[test]
    fn encapsulation_sets_the_outer_ecn_and_adds_36_bytes() {
        for ecn in ALL {
            for mode in [EcnDecap::Ignore, EcnDecap::Rfc6040, EcnDecap::DropNotEct] {
                let mut p = packet(ecn);
                encapsulate(
                    &mut p,
                    Ipv4Addr::new(10, 1, 0, 1),
                    Ipv4Addr::new(10, 1, 0, 2),
                    9,
                    mode,
                );
                let t = p.tunnel.unwrap();
                let outer = if mode == EcnDecap::DropNotEct {
                    Ect0
                } else {
                    ecn
                };
                assert_eq!((t.outer_ecn, t.teid), (outer, 9), "{mode:?} {ecn:?}");
                assert_eq!(p.size_bytes(), 1028 + 36);
                assert_eq!(p.ip.ecn, ecn, "the inner header is untouched");
            }
        }
    }

    #[test]
    fn decapsulation_reports_the_fate_of_ce() {
        let mark = |ecn: Ecn, mode: EcnDecap| {
            let mut p = packet(ecn);
            encapsulate(
                &mut p,
                Ipv4Addr::new(10, 1, 0, 1),
                Ipv4Addr::new(10, 1, 0, 2),
                9,
                mode,
            );
            p.tunnel.as_mut().unwrap().outer_ecn = Ce;
            let out = decapsulate(&mut p, mode);
            (out, p)
        };
        let (out, p) = mark(Ect0, EcnDecap::Ignore);
        assert_eq!(out, Decapsulated::Forward { ce: CeFate::Lost });
        assert_eq!((p.ip.ecn, p.tunnel, p.size_bytes()), (Ect0, None, 1028));
        let (out, p) = mark(Ect0, EcnDecap::Rfc6040);
        assert_eq!(
            out,
            Decapsulated::Forward {
                ce: CeFate::Propagated
            }
        );
        assert_eq!(p.ip.ecn, Ce);
        let (out, p) = mark(NotEct, EcnDecap::Rfc6040);
        assert_eq!(out, Decapsulated::Dropped);
        assert!(p.tunnel.is_some(), "a dropped packet is left as it was");
        let (out, _) = mark(NotEct, EcnDecap::DropNotEct);
        assert_eq!(out, Decapsulated::Dropped);
        let (out, _) = mark(NotEct, EcnDecap::Ignore);
        assert_eq!(out, Decapsulated::Forward { ce: CeFate::Lost });
        let (out, _) = mark(Ce, EcnDecap::Rfc6040);
        assert_eq!(
            out,
            Decapsulated::Forward {
                ce: CeFate::Unmarked
            }
        );
    }

    #[test]
    fn swapping_ecn_layers_is_an_involution_that_exposes_the_outer_field() {
        let mut p = packet(Ect0);
        encapsulate(
            &mut p,
            Ipv4Addr::new(10, 1, 0, 1),
            Ipv4Addr::new(10, 1, 0, 2),
            9,
            EcnDecap::Rfc6040,
        );
        swap_ecn_layers(&mut p);
        p.ip.ecn = Ce; // what a marking queue does
        swap_ecn_layers(&mut p);
        assert_eq!(p.ip.ecn, Ect0);
        assert_eq!(p.tunnel.unwrap().outer_ecn, Ce);
        let mut plain = packet(Ect1);
        swap_ecn_layers(&mut plain);
        assert_eq!(plain.ip.ecn, Ect1);
    }

    fn epc() -> Epc {
        // 0 server, 1 gw, 2 enb1, 3 enb2, 4 ue1, 5 ue2
        let cfg = EpcConfig {
            gateway: NodeId(1),
            ecn_decap: EcnDecap::Rfc6040,
            enbs: vec![NodeId(3)],
            attachments: vec![(NodeId(4), NodeId(2)), (NodeId(5), NodeId(2))],
        };
        Epc::new(&cfg, 6).unwrap()
    }

    #[test]
    fn teids_are_allocated_by_the_receiving_endpoint() {
        let e = epc();
        assert_eq!(
            e.bearer(NodeId(4)),
            Some(&Bearer {
                ue: NodeId(4),
                enb: NodeId(2),
                dl_teid: 1,
                ul_teid: 1
            })
        );
        assert_eq!(
            e.bearer(NodeId(5)),
            Some(&Bearer {
                ue: NodeId(5),
                enb: NodeId(2),
                dl_teid: 2,
                ul_teid: 2
            })
        );
        assert_eq!(e.bearer(NodeId(0)), None);
        let ends: Vec<NodeId> = e.endpoints().map(|(n, _)| n).collect();
        assert_eq!(ends, [1, 2, 3].map(NodeId));
    }

    #[test]
    fn steering_at_each_kind_of_node() {
        let e = epc();
        // Downlink: routers send UE traffic to the gateway, which encapsulates to the eNB.
        assert_eq!(
            e.steer(NodeId(0), Some(NodeId(0)), NodeId(4), Ingress::Local),
            Steer::ToGateway
        );
        assert_eq!(
            e.steer(NodeId(1), Some(NodeId(0)), NodeId(4), Ingress::Wire),
            Steer::Encapsulate {
                end: NodeId(2),
                teid: 1
            }
        );
        assert_eq!(
            e.steer(NodeId(2), Some(NodeId(0)), NodeId(4), Ingress::Tunnel),
            Steer::Ip
        );
        // Uplink: the eNB encapsulates what arrives over the radio from its UEs.
        assert_eq!(
            e.steer(NodeId(2), Some(NodeId(4)), NodeId(0), Ingress::Radio),
            Steer::Encapsulate {
                end: NodeId(1),
                teid: 1
            }
        );
        assert_eq!(
            e.steer(NodeId(1), Some(NodeId(4)), NodeId(0), Ingress::Tunnel),
            Steer::Ip
        );
        // UE to UE goes up to the gateway and down again.
        assert_eq!(
            e.steer(NodeId(2), Some(NodeId(4)), NodeId(5), Ingress::Radio),
            Steer::Encapsulate {
                end: NodeId(1),
                teid: 1
            }
        );
        assert_eq!(
            e.steer(NodeId(1), Some(NodeId(4)), NodeId(5), Ingress::Tunnel),
            Steer::Encapsulate {
                end: NodeId(2),
                teid: 2
            }
        );
        // A UE on a point-to-point access link is tunnelled the same way.
        assert_eq!(
            e.steer(NodeId(2), Some(NodeId(5)), NodeId(0), Ingress::Wire),
            Steer::Encapsulate {
                end: NodeId(1),
                teid: 2
            }
        );
        // Traffic between non-UE nodes is plain IP.
        assert_eq!(
            e.steer(NodeId(2), Some(NodeId(0)), NodeId(3), Ingress::Wire),
            Steer::Ip
        );
    }

    #[test]
    fn path_switch_moves_the_downlink_tunnel_only() {
        let mut e = epc();
        assert_eq!(e.switch_path(NodeId(4), NodeId(3)), Ok(1));
        assert_eq!(
            e.bearer(NodeId(4)),
            Some(&Bearer {
                ue: NodeId(4),
                enb: NodeId(3),
                dl_teid: 1,
                ul_teid: 1
            })
        );
        assert_eq!(
            e.steer(NodeId(1), Some(NodeId(0)), NodeId(4), Ingress::Wire),
            Steer::Encapsulate {
                end: NodeId(3),
                teid: 1
            }
        );
        assert_eq!(
            e.switch_path(NodeId(4), NodeId(2)),
            Ok(3),
            "enb1 has handed out TEIDs 1 and 2 already"
        );
        assert_eq!(
            e.switch_path(NodeId(4), NodeId(0)),
            Err(EpcError::NotAnEnb { node: NodeId(0) })
        );
        assert_eq!(
            e.switch_path(NodeId(0), NodeId(2)),
            Err(EpcError::NoBearer { ue: NodeId(0) })
        );
    }

    #[test]
    fn forwarding_teids_come_from_the_targets_space_once_per_ue() {
        let mut e = epc();
        // enb2 (3) has allocated nothing yet; enb1 (2) has handed out 1 and 2 on S1-U.
        assert_eq!(e.allocate_forwarding_teid(NodeId(3), NodeId(4)), Ok(1));
        assert_eq!(e.allocate_forwarding_teid(NodeId(3), NodeId(5)), Ok(2));
        assert_eq!(
            e.allocate_forwarding_teid(NodeId(3), NodeId(4)),
            Ok(1),
            "stable per (target, UE)"
        );
        assert_eq!(e.allocate_forwarding_teid(NodeId(2), NodeId(4)), Ok(3));
        // A path switch to enb2 draws from the same space, after the forwarding tunnels.
        assert_eq!(e.switch_path(NodeId(4), NodeId(3)), Ok(3));
        assert_eq!(
            e.allocate_forwarding_teid(NodeId(1), NodeId(4)),
            Err(EpcError::NotAnEnb { node: NodeId(1) })
        );
        assert_eq!(
            e.allocate_forwarding_teid(NodeId(99), NodeId(4)),
            Err(EpcError::NotAnEnb { node: NodeId(99) })
        );
        assert_eq!(
            e.allocate_forwarding_teid(NodeId(3), NodeId(0)),
            Err(EpcError::NoBearer { ue: NodeId(0) })
        );
        assert_eq!(
            e.allocate_forwarding_teid(NodeId(3), NodeId(999)),
            Err(EpcError::NoBearer { ue: NodeId(999) })
        );
    }

    #[test]
    fn forwarded_packets_are_x2u_g_pdus_with_their_pdcp_count() {
        for (mode, outer) in [
            (EcnDecap::Rfc6040, Ect1),
            (EcnDecap::Ignore, Ect1),
            (EcnDecap::DropNotEct, Ect0),
        ] {
            let mut p = packet(Ect1);
            encapsulate_forwarded(
                &mut p,
                Ipv4Addr::new(10, 1, 0, 2),
                Ipv4Addr::new(10, 1, 0, 3),
                4,
                mode,
                Some(77),
            );
            let t = p.tunnel.unwrap();
            assert_eq!(
                (t.interface, t.message, t.pdcp_count, t.outer_ecn, t.teid),
                (GtpInterface::X2u, GtpMessage::GPdu, Some(77), outer, 4),
                "{mode:?}"
            );
            assert_eq!(p.size_bytes(), 1028 + 44);
            assert_eq!(
                decapsulate(&mut p, mode),
                Decapsulated::Forward {
                    ce: CeFate::Unmarked
                }
            );
            assert_eq!((p.tunnel, p.size_bytes()), (None, 1028));
        }
        let mut p = packet(Ect0);
        encapsulate_forwarded(
            &mut p,
            Ipv4Addr::LOCALHOST,
            Ipv4Addr::LOCALHOST,
            1,
            EcnDecap::Rfc6040,
            None,
        );
        assert_eq!(p.size_bytes(), 1028 + 36, "no extension without a count");
        let mut s1 = packet(Ect0);
        encapsulate(
            &mut s1,
            Ipv4Addr::LOCALHOST,
            Ipv4Addr::LOCALHOST,
            1,
            EcnDecap::Rfc6040,
        );
        let t = s1.tunnel.unwrap();
        assert_eq!(
            (t.interface, t.message, t.pdcp_count),
            (GtpInterface::S1u, GtpMessage::GPdu, None)
        );
    }

    #[test]
    fn bad_configurations_are_errors() {
        let base = EpcConfig {
            gateway: NodeId(1),
            ecn_decap: EcnDecap::Ignore,
            enbs: vec![],
            attachments: vec![(NodeId(4), NodeId(2))],
        };
        let with = |f: &dyn Fn(&mut EpcConfig)| {
            let mut c = base.clone();
            f(&mut c);
            Epc::new(&c, 6).unwrap_err()
        };
        assert_eq!(
            with(&|c| c.gateway = NodeId(9)),
            EpcError::UnknownNode {
                node: NodeId(9),
                nodes: 6
            }
        );
        assert_eq!(
            with(&|c| c.enbs = vec![NodeId(1)]),
            EpcError::GatewayIsEnb { node: NodeId(1) }
        );
        assert_eq!(
            with(&|c| c.attachments.push((NodeId(4), NodeId(3)))),
            EpcError::AttachedTwice { ue: NodeId(4) }
        );
        assert_eq!(
            with(&|c| c.attachments.push((NodeId(2), NodeId(3)))),
            EpcError::NotAUe { node: NodeId(2) }
        );
        assert_eq!(
            with(&|c| c.attachments.push((NodeId(1), NodeId(3)))),
            EpcError::NotAUe { node: NodeId(1) }
        );
    }
}
