//! One direction of the dedicated channel: a transport channel that, once per TTI while its
//! RLC entity has something to send, carries up to N transport blocks (an AMD or MRW PDU each,
//! or part of a STATUS report), loses each block independently with probability BLER, and
//! delivers the others at the end of the TTI plus the fixed Iub/processing delay.
//!
//! Timing (TS 25.302 §7.1: a transport block set is handed to the physical layer once per TTI
//! and, after interleaving over the whole TTI, decoded at its end):
//! * TTI k of the direction spans [k·TTI, (k + 1)·TTI); its blocks are built at k·TTI from the
//!   RLC state at that instant;
//! * a block received by the peer is delivered at (k + 1)·TTI + delay, all blocks of one TTI
//!   together and in the order they were built (SN order for new data);
//! * a TTI with nothing to send sends nothing and costs nothing (transport format 0).
//!
//! Randomness: one uniform per transport block from the direction's own stream, drawn whatever
//! the BLER (so the stream stays aligned when only the BLER changes).

use std::collections::VecDeque;

use celltcp_engine::{RngStream, SimDuration, SimTime};

use crate::rlc::{Nack, RlcAmEntity, RlcPdu, StatusPdu};

use super::config::TransportFormat;
use super::sdu::DchSdu;

/// Counters of one direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChannelStats {
    /// TTIs in which at least one transport block was sent.
    pub ttis: u64,
    /// Transport blocks sent, and those lost.
    pub tbs_sent: u64,
    pub tbs_lost: u64,
    /// Transport blocks that carried STATUS reports, or an MRW.
    pub status_tbs: u64,
    pub mrw_tbs: u64,
}

/// A transport block on its way to the peer.
#[derive(Debug)]
struct InFlight {
    deliver_at: SimTime,
    pdu: RlcPdu<DchSdu>,
}

/// One direction of a [`DchLink`](super::DchLink).
#[derive(Debug)]
pub(crate) struct TransportChannel {
    format: TransportFormat,
    bler: f64,
    delay: SimDuration,
    rng: RngStream,
    /// SN length of the RLC entities, bits (for the size of STATUS fields).
    sn_bits: u32,
    /// First TTI index not yet processed.
    next_tti: u64,
    /// Received blocks in delivery order (`deliver_at` never decreases: a constant delay after
    /// the end of increasing TTIs).
    in_flight: VecDeque<InFlight>,
    stats: ChannelStats,
}

impl TransportChannel {
    pub(crate) fn new(
        format: TransportFormat,
        bler: f64,
        delay: SimDuration,
        sn_bits: u8,
        rng: RngStream,
    ) -> Self {
        TransportChannel {
            format,
            bler,
            delay,
            rng,
            sn_bits: u32::from(sn_bits),
            next_tti: 0,
            in_flight: VecDeque::new(),
            stats: ChannelStats::default(),
        }
    }

    pub(crate) fn format(&self) -> &TransportFormat {
        &self.format
    }

    pub(crate) fn stats(&self) -> ChannelStats {
        self.stats
    }

    fn tti_ns(&self) -> u64 {
        self.format.tti.as_ns()
    }

    /// Start of the first TTI at or after `now` that has not been processed.
    pub(crate) fn next_tti_start(&self, now: SimTime) -> SimTime {
        let first_possible = now.as_ns().div_ceil(self.tti_ns());
        SimTime::from_ns(first_possible.max(self.next_tti) * self.tti_ns())
    }

    /// The TTI index starting exactly at `now`, if it has not been processed.
    pub(crate) fn tti_at(&self, now: SimTime) -> Option<u64> {
        let k = now.as_ns() / self.tti_ns();
        (k * self.tti_ns() == now.as_ns() && k >= self.next_tti).then_some(k)
    }

    /// When the next received block reaches the peer.
    pub(crate) fn next_arrival(&self) -> Option<SimTime> {
        self.in_flight.front().map(|b| b.deliver_at)
    }

    /// The next block delivered at or before `now`.
    pub(crate) fn pop_due(&mut self, now: SimTime) -> Option<RlcPdu<DchSdu>> {
        if self.in_flight.front()?.deliver_at > now {
            return None;
        }
        self.in_flight.pop_front().map(|b| b.pdu)
    }

    /// Runs TTI `k` (starting at `now`): fills up to N transport blocks from `entity` (its
    /// STATUS report first, then MRW, retransmissions and new data: the priorities of 25.322
    /// §11.3.2 and 36.322 §5.1.3.1.1), draws each block's fate and queues the received PDUs.
    ///
    /// A data or MRW PDU fills one block. A STATUS report gets the blocks left in the TTI and
    /// takes as many as its size needs (several STATUS PDUs of one report, 25.322 §11.5); the
    /// peer receives what the blocks before the first lost one carry ([`truncate_status`]).
    pub(crate) fn run_tti(&mut self, k: u64, now: SimTime, entity: &mut RlcAmEntity<DchSdu>) {
        debug_assert_eq!(Some(k), self.tti_at(now));
        self.next_tti = k + 1;
        let deliver_at = now + self.format.tti + self.delay;
        let tb = self.format.tb_bytes;
        let mut sent = 0u32;
        while sent < self.format.tbs_per_tti {
            let left = self.format.tbs_per_tti - sent;
            let Some(pdu) = entity.pull_pdu(now, left * tb) else {
                break;
            };
            let blocks = pdu.size_bytes().div_ceil(tb).clamp(1, left);
            sent += blocks;
            match pdu {
                RlcPdu::Status(_) => self.stats.status_tbs += u64::from(blocks),
                RlcPdu::Mrw(_) => self.stats.mrw_tbs += 1,
                RlcPdu::Data(_) => {}
            }
            // One uniform per block; a block is lost when its draw falls below the BLER.
            let first_lost = (0..blocks).fold(None, |first, i| {
                let lost = self.rng.next_f64() < self.bler;
                self.stats.tbs_lost += u64::from(lost);
                first.or(lost.then_some(i))
            });
            let received = match (first_lost, pdu) {
                (None, pdu) => Some(pdu),
                (Some(i), RlcPdu::Status(st)) => {
                    truncate_status(st, i * tb, self.sn_bits).map(RlcPdu::Status)
                }
                (Some(_), _) => None,
            };
            if let Some(pdu) = received {
                self.in_flight.push_back(InFlight { deliver_at, pdu });
            }
        }
        if sent > 0 {
            self.stats.ttis += 1;
            self.stats.tbs_sent += u64::from(sent);
        }
    }
}

/// Bits of the fixed part of a STATUS PDU as the RLC entities size it (36.322 §6.2.1.6: D/C,
/// CPT, ACK_SN and E1 = 5 + SN bits), with the MRW_ACK super-field (type, N, SN_ACK = 8 + SN
/// bits) when present.
fn status_head_bits(st: &StatusPdu, sn_bits: u32) -> u32 {
    5 + sn_bits + st.mrw_ack.map_or(0, |_| 8 + sn_bits)
}

/// Bits of one NACK (36.322 §6.2.1.6: NACK_SN, E1, E2; SOstart and SOend, 16 bits each beyond
/// a 10-bit SN, when it covers a portion).
fn nack_bits(n: &Nack, sn_bits: u32) -> u32 {
    let so = if sn_bits > 10 { 16 } else { 15 };
    sn_bits + 2 + n.so.map_or(0, |_| 2 * so)
}

/// What the peer receives of STATUS report `st` when only its first `kept_bytes` arrive (the
/// blocks before the first lost one): the NACKs entirely inside, with ACK_SN moved to the first
/// NACK left out — the rule by which an RLC entity cuts a report to fit (36.322 §5.2.3: "set
/// ACK_SN to the SN of the next not received RLC Data PDU which is not indicated as missing").
/// `None` if not even the fixed part arrived. 25.322 would keep the NACKs of later STATUS PDUs
/// of the report too; dropping them only delays those retransmissions to the next report.
pub(crate) fn truncate_status(st: StatusPdu, kept_bytes: u32, sn_bits: u32) -> Option<StatusPdu> {
    let budget = kept_bytes * 8;
    let mut bits = status_head_bits(&st, sn_bits);
    if bits > budget {
        return None;
    }
    let mut keep = 0;
    for n in &st.nacks {
        let b = nack_bits(n, sn_bits);
        if bits + b > budget {
            break;
        }
        bits += b;
        keep += 1;
    }
    let mut st = st;
    if keep < st.nacks.len() {
        st.ack_sn = st.nacks[keep].sn;
        st.nacks.truncate(keep);
    }
    st.size_bytes = bits.div_ceil(8);
    Some(st)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dch::DchRlcConfig;
    use crate::rlc::testkit::sdu;
    use crate::rlc::{RlcAmRx, RlcAmTx};
    use celltcp_net::packet::Packet;

    /// A STATUS report of the receiving side after every third of 60 PDUs was lost.
    fn status_with_gaps() -> StatusPdu {
        let cfg = DchRlcConfig::default();
        let mut tx: RlcAmTx<Packet> = RlcAmTx::new(cfg.am_config()).unwrap();
        let mut rx: RlcAmRx<Packet> = RlcAmRx::new(cfg.am_rx_config()).unwrap();
        let now = SimTime::ZERO;
        tx.write_sdu(now, sdu(1, 60 * 40)).unwrap();
        for i in 0..60 {
            let pdu = tx.pull_pdu(now, 42).unwrap();
            if i % 3 != 1 {
                rx.on_pdu(now, pdu);
            }
        }
        rx.on_timeout(now);
        rx.pull_status(now, 10_000)
            .expect("a gap triggers a report")
    }

    #[test]
    fn status_bits_match_the_rlc_byte_model() {
        let st = status_with_gaps();
        assert_eq!(st.nacks.len(), 20);
        let bits =
            status_head_bits(&st, 12) + st.nacks.iter().map(|n| nack_bits(n, 12)).sum::<u32>();
        assert_eq!(bits.div_ceil(8), st.size_bytes());
    }

    #[test]
    fn a_status_cut_at_a_lost_block_keeps_the_nacks_before_it() {
        let st = status_with_gaps();
        // 17 + 20 × 14 = 297 bits = 38 bytes; 20 bytes (160 bits) hold 17 + 10 × 14 = 157 bits.
        let cut = truncate_status(st.clone(), 20, 12).unwrap();
        assert_eq!(cut.nacks, st.nacks[..10].to_vec());
        assert_eq!(cut.ack_sn, st.nacks[10].sn);
        assert_eq!(cut.size_bytes(), 20);
        assert_eq!(truncate_status(st.clone(), 40, 12), Some(st.clone()));
        assert_eq!(truncate_status(st, 2, 12), None);
    }
}
