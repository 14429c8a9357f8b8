//! Explicit Loss Notification at the base station (Balakrishnan & Katz, "Explicit Loss
//! Notification and Wireless Web Performance", GLOBECOM 1998; the base-station variant the seed
//! `004_…` describes: "the TCP segment sequence numbers are cached at BS; … the ACK packet is
//! attached 'ELN bit active' at BS, if the packet's cached sequence number is lost").
//!
//! [`ElnMarker`] is a [`Middlebox`]: the world tells it through `on_link_loss` which TCP data
//! segments the loss models of its node's point-to-point links lost — the radio hop's own
//! losses, not congestion (queue drops are never reported). It remembers the sequence number of
//! each such hole per connection. When an ACK of that connection passes the node on its way to
//! the data sender and asks for a remembered hole (its ACK number is the hole's first sequence
//! number: the duplicate ACKs for it, or the ACK that first reaches it), the marker sets the ELN
//! bit of the TCP header ([`celltcp_net::packet::TcpHeader::eln`]). A sender with
//! `TcpConfig::eln` then retransmits without a congestion response (see [`crate::recovery`]).
//!
//! A hole is forgotten when an ACK passes it (repaired) and when a retransmission of it passes
//! the node (its fate is open again: a second radio loss is reported anew, a drop in the node's
//! queue is congestion and must not be marked).

use std::collections::BTreeMap;

use celltcp_engine::SimTime;
use celltcp_net::middlebox::{Middlebox, MiddleboxCtx, MiddleboxFigure};
use celltcp_net::packet::{Packet, TcpFlags};
use thiserror::Error;

use crate::seq::SeqNum;

#[cfg(test)]
mod tests;

/// Configuration of an ELN marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElnConfig {
    /// Holes remembered per connection; beyond it the oldest is forgotten (its ACKs then go
    /// unmarked, so the sender reacts as to congestion, the safe side).
    pub holes_per_connection: u32,
}

impl Default for ElnConfig {
    fn default() -> Self {
        ElnConfig {
            holes_per_connection: 64,
        }
    }
}

/// An ELN configuration out of range; the message names the key as in scenario files.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ElnError {
    #[error("holes: {0} is out of range; expected at least 1")]
    NoHoles(u32),
}

/// What the marker counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ElnStats {
    /// Data segments the node's links lost, remembered as holes.
    pub losses_recorded: u64,
    /// ACKs on which the ELN bit was set.
    pub acks_marked: u64,
    /// Holes forgotten because a retransmission of them passed.
    pub holes_retransmitted: u64,
    /// Holes forgotten because the connection had too many.
    pub holes_evicted: u64,
}

/// Connection key in the data direction: sender address and port, receiver address and port.
type Key = (u32, u16, u32, u16);

/// The base-station side of Explicit Loss Notification; a [`Middlebox`].
pub struct ElnMarker {
    name: String,
    cfg: ElnConfig,
    /// Per connection, the first sequence numbers of the segments lost, oldest first.
    holes: BTreeMap<Key, Vec<SeqNum>>,
    stats: ElnStats,
}

impl ElnMarker {
    pub fn new(name: &str, cfg: ElnConfig) -> Result<Self, ElnError> {
        if cfg.holes_per_connection == 0 {
            return Err(ElnError::NoHoles(0));
        }
        Ok(ElnMarker {
            name: name.to_string(),
            cfg,
            holes: BTreeMap::new(),
            stats: ElnStats::default(),
        })
    }

    pub fn stats(&self) -> &ElnStats {
        &self.stats
    }

    /// Holes remembered at present, over all connections.
    pub fn holes(&self) -> usize {
        self.holes.values().map(Vec::len).sum()
    }
}

/// The data-direction key of `pkt` and whether it carries data (payload or FIN).
fn data_key(pkt: &Packet) -> Option<(Key, bool)> {
    let h = pkt.tcp()?;
    let key = (
        u32::from(pkt.ip.src),
        h.src_port,
        u32::from(pkt.ip.dst),
        h.dst_port,
    );
    Some((key, pkt.payload_len > 0 || h.flags.contains(TcpFlags::FIN)))
}

impl Middlebox for ElnMarker {
    fn name(&self) -> &str {
        &self.name
    }

    fn on_forward(&mut self, mut pkt: Packet, _ctx: &mut MiddleboxCtx<'_>) -> Option<Packet> {
        if self.holes.is_empty() || pkt.tunnel.is_some() {
            return Some(pkt);
        }
        let Some((key, data)) = data_key(&pkt) else {
            return Some(pkt);
        };
        if data {
            // A retransmission of a hole going towards the receiver again.
            if let Some(list) = self.holes.get_mut(&key) {
                let seq = SeqNum(pkt.tcp().map_or(0, |h| h.seq));
                let before = list.len();
                list.retain(|&s| s != seq);
                self.stats.holes_retransmitted += (before - list.len()) as u64;
                if list.is_empty() {
                    self.holes.remove(&key);
                }
            }
        }
        let Some(h) = pkt.tcp_mut() else {
            return Some(pkt);
        };
        if !h.flags.contains(TcpFlags::ACK) {
            return Some(pkt);
        }
        // The ACK belongs to the connection whose data flows the other way.
        let reverse = (key.2, key.3, key.0, key.1);
        if let Some(list) = self.holes.get_mut(&reverse) {
            let ack = SeqNum(h.ack);
            // Holes below the ACK have been repaired.
            list.retain(|&s| !s.lt(ack));
            if list.contains(&ack) {
                h.eln = true;
                self.stats.acks_marked += 1;
            }
            if list.is_empty() {
                self.holes.remove(&reverse);
            }
        }
        Some(pkt)
    }

    fn on_link_loss(&mut self, pkt: &Packet, _ctx: &mut MiddleboxCtx<'_>) {
        if pkt.tunnel.is_some() {
            return;
        }
        let Some((key, true)) = data_key(pkt) else {
            return;
        };
        let seq = SeqNum(pkt.tcp().map_or(0, |h| h.seq));
        let list = self.holes.entry(key).or_default();
        if list.contains(&seq) {
            return;
        }
        self.stats.losses_recorded += 1;
        list.push(seq);
        if list.len() > self.cfg.holes_per_connection as usize {
            list.remove(0);
            self.stats.holes_evicted += 1;
        }
    }

    fn report(&self, _now: SimTime) -> Vec<MiddleboxFigure> {
        let s = &self.stats;
        [
            ("losses_recorded", s.losses_recorded),
            ("acks_marked", s.acks_marked),
            ("holes_retransmitted", s.holes_retransmitted),
            ("holes_evicted", s.holes_evicted),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v as f64))
        .collect()
    }
}
