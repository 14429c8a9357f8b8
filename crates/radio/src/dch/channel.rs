//! One direction of the dedicated channel: a transport channel that, once per TTI while its
//! RLC entity has something to send, carries up to N transport blocks (an AMD, MRW or STATUS
//! PDU each; a status report may take several STATUS PDUs), loses each block with the TTI's
//! BLER (the configured one, or the state's of a Gilbert–Elliott channel: [`errors`]), and
//! delivers the others at the end of the TTI plus the fixed Iub/processing delay.
//!
//! [`errors`]: super::errors
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
//! the BLER (so the stream stays aligned when only the BLER or the error model changes); a
//! Gilbert–Elliott channel draws its states from a stream of its own.

use std::collections::VecDeque;

use celltcp_engine::{RngStream, SimDuration, SimTime};

use crate::rlc::status_sufi::{wcdma_status_layout, WcdmaStatusLayout};
use crate::rlc::{RlcAmEntity, RlcPdu, StatusPdu};

use super::config::TransportFormat;
use super::errors::BlockErrors;
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
    /// TTIs with blocks sent in the bad state of a Gilbert–Elliott channel (0 with
    /// independent losses), and the blocks they carried.
    pub ttis_bad: u64,
    pub tbs_sent_bad: u64,
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
    errors: BlockErrors,
    /// BLER of the TTI being built.
    tti_bler: f64,
    delay: SimDuration,
    /// One uniform per transport block.
    rng: RngStream,
    /// SN length of the RLC entities, bits (for the size of STATUS super-fields).
    sn_bits: u8,
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
        errors: BlockErrors,
        delay: SimDuration,
        sn_bits: u8,
        rng: RngStream,
    ) -> Self {
        TransportChannel {
            format,
            errors,
            tti_bler: 0.0,
            delay,
            rng,
            sn_bits,
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

    /// The per-block stream, for tests of its alignment.
    #[cfg(test)]
    pub(crate) fn block_rng(&self) -> &RngStream {
        &self.rng
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
    /// A data or MRW PDU fills one block. A STATUS report is written as 25.322 STATUS PDUs
    /// ([`status_sufi`](crate::rlc::status_sufi)), one block each, in the blocks left in the
    /// TTI; the peer receives what the blocks before the first lost one carry
    /// ([`status_received`]).
    pub(crate) fn run_tti(&mut self, k: u64, now: SimTime, entity: &mut RlcAmEntity<DchSdu>) {
        debug_assert_eq!(Some(k), self.tti_at(now));
        self.next_tti = k + 1;
        let deliver_at = now + self.format.tti + self.delay;
        let tb = self.format.tb_bytes;
        let mut sent = 0u32;
        // The state is drawn for every TTI run, even one that ends up sending nothing (the
        // caller runs a TTI only when the entity has something to send).
        let (bler, bad) = self.errors.at_tti(k);
        self.tti_bler = bler;
        while sent < self.format.tbs_per_tti {
            let left = self.format.tbs_per_tti - sent;
            // The receiving side lists every missing SN (a grant without limit); the 25.322
            // layout then decides how many blocks the report takes and where it is cut.
            if let Some(st) = entity.rx.pull_status(now, UNLIMITED_GRANT_BYTES) {
                sent += self.send_status(st, left, deliver_at);
                continue;
            }
            let Some(pdu) = entity.tx.pull_pdu(now, left * tb) else {
                break;
            };
            sent += 1;
            if let RlcPdu::Mrw(_) = pdu {
                self.stats.mrw_tbs += 1;
            }
            if !self.block_lost() {
                self.in_flight.push_back(InFlight { deliver_at, pdu });
            }
        }
        if sent > 0 {
            self.stats.ttis += 1;
            self.stats.tbs_sent += u64::from(sent);
            if bad {
                self.stats.ttis_bad += 1;
                self.stats.tbs_sent_bad += u64::from(sent);
            }
        }
    }

    /// Draws one block's fate: one uniform, lost when it falls below the TTI's BLER.
    fn block_lost(&mut self) -> bool {
        let lost = self.rng.next_f64() < self.tti_bler;
        self.stats.tbs_lost += u64::from(lost);
        lost
    }

    /// Sends STATUS report `st` in at most `left` blocks; returns the blocks used.
    fn send_status(&mut self, st: StatusPdu, left: u32, deliver_at: SimTime) -> u32 {
        let tb = self.format.tb_bytes;
        let missing = missing_sns(&st);
        let layout = wcdma_status_layout(&missing, self.sn_bits, tb, st.mrw_ack.is_some(), left);
        let blocks = layout.pdus.len() as u32;
        self.stats.status_tbs += u64::from(blocks);
        // Every block draws its fate, whatever happened to the ones before it.
        let first_lost = (0..blocks).fold(None, |first, i| {
            let lost = self.block_lost();
            first.or(lost.then_some(i as usize))
        });
        let sent = status_received(st, &missing, &layout, None, blocks * tb);
        let received = match first_lost {
            None => Some(sent),
            Some(0) => None,
            Some(i) => Some(status_received(
                sent,
                &missing,
                &layout,
                Some(i),
                i as u32 * tb,
            )),
        };
        if let Some(st) = received {
            self.in_flight.push_back(InFlight {
                deliver_at,
                pdu: RlcPdu::Status(st),
            });
        }
        blocks
    }
}

/// A grant larger than any status report: the receiving side then lists every missing SN.
const UNLIMITED_GRANT_BYTES: u32 = u32::MAX / 8;

/// The SNs a STATUS report acknowledges negatively, each once, in its order (from VR(R)). On
/// a DCH no PDU is segmented, so a NACK covers a whole PDU.
fn missing_sns(st: &StatusPdu) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::with_capacity(st.nacks.len());
    for n in &st.nacks {
        if out.last() != Some(&n.sn) {
            out.push(n.sn);
        }
    }
    out
}

/// What the peer receives of report `st` laid out as `layout`: the NACKs of the STATUS PDUs
/// before the first lost one, `first_lost` (all that were written when `None`), with the LSN
/// (ACK_SN) lowered to the first missing SN left out — 25.322 §9.2.2.11.2: an LSN above VR(R)
/// implies that every erroneous PDU below it is reported. `size_bytes` is the blocks' bytes.
///
/// 25.322 would let the STATUS PDUs after a lost one report their NACKs too (with an LSN of
/// VR(R)); here they are dropped, which only delays those retransmissions to the next report.
pub(crate) fn status_received(
    st: StatusPdu,
    missing: &[u32],
    layout: &WcdmaStatusLayout,
    first_lost: Option<usize>,
    size_bytes: u32,
) -> StatusPdu {
    let kept = match first_lost {
        None => layout.nacks_written,
        Some(i) => layout
            .pdus
            .get(i)
            .map_or(layout.nacks_written, |p| p.nacks.start),
    };
    let mut st = st;
    if kept < missing.len() {
        let cut_at = missing[kept];
        // NACKs are in SN order from VR(R): keep those of the first `kept` missing SNs.
        let mut distinct = 0;
        let mut last = None;
        st.nacks.retain(|n| {
            if last != Some(n.sn) {
                last = Some(n.sn);
                distinct += 1;
            }
            distinct <= kept
        });
        st.ack_sn = cut_at;
    }
    st.size_bytes = size_bytes;
    st
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
    fn a_report_takes_the_25_322_blocks_and_is_cut_at_a_lost_one() {
        let st = status_with_gaps();
        let missing = missing_sns(&st);
        assert_eq!(missing.len(), 20);
        // Every third SN missing (1, 4, …, 58): one BITMAP of 8 octets covers all 20 in
        // 20 + 64 = 84 bits (an RLIST would take 16 in 80 bits): 4 + 84 + 16 = 104 bits, one
        // 42-byte block (36.322's list: 17 + 20 × 14 = 297 bits).
        let layout = wcdma_status_layout(&missing, 12, 42, false, 12);
        assert_eq!(layout.pdus.len(), 1);
        assert_eq!(layout.pdus[0].bits, 104);
        let all = status_received(st.clone(), &missing, &layout, None, 42);
        assert_eq!(
            all,
            StatusPdu {
                size_bytes: 42,
                ..st.clone()
            }
        );
        // In 8-byte PDUs (64 bits: 44 for SUFIs, a BITMAP of 3 octets holding 8 NACKs) the
        // report takes 3 PDUs; losing the second keeps the NACKs of the first and moves ACK_SN
        // to the next missing SN.
        let small = wcdma_status_layout(&missing, 12, 8, false, 12);
        let sizes: Vec<usize> = small.pdus.iter().map(|p| p.nacks.len()).collect();
        assert_eq!(sizes, vec![8, 8, 4]);
        let cut = status_received(st.clone(), &missing, &small, Some(1), 8);
        assert_eq!(cut.nacks, st.nacks[..8].to_vec());
        assert_eq!(cut.ack_sn, missing[8]);
        assert_eq!(cut.size_bytes(), 8);
        // Allowed fewer PDUs than it needs, the report is cut the same way before sending.
        let two = wcdma_status_layout(&missing, 12, 8, false, 2);
        assert_eq!(two.nacks_written, 16);
        let sent = status_received(st.clone(), &missing, &two, None, 16);
        assert_eq!(sent.nacks.len(), two.nacks_written);
        assert_eq!(sent.ack_sn, missing[two.nacks_written]);
    }
}
