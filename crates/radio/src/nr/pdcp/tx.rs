//! The transmitting NR PDCP entity (TS 38.323 §5.2.1 transmit operation, §5.3 SDU discard).

use std::collections::VecDeque;

use super::{NrPdcpConfig, NrPdcpPdu};
use crate::rlc::RlcSdu;
use celltcp_engine::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NrPdcpTxStats {
    pub pdus: u64,
    /// PDU bytes handed to the lower layer (SDU plus header).
    pub bytes: u64,
    /// SDUs whose discardTimer expired before the lower layer confirmed delivery.
    pub sdus_discarded: u64,
}

/// A discard to indicate to the lower layer (§5.3: "If the corresponding PDCP Data PDU has
/// already been submitted to lower layers, the discard is indicated to lower layers"); the
/// RLC entity drops the SDU if no segment of it was sent yet (TS 38.322 §5.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NrPdcpDiscard {
    pub count: u32,
    /// The `sdu_id()` of the PDU, as the RLC entity knows it.
    pub sdu_id: u64,
}

/// One SDU's discardTimer.
#[derive(Clone, Copy, Debug)]
struct DiscardTimer {
    count: u32,
    sdu_id: u64,
    expires: SimTime,
    confirmed: bool,
}

/// Transmitting NR PDCP entity. TX_NEXT is the COUNT of the next SDU (§7.1).
#[derive(Debug)]
pub struct NrPdcpTx {
    cfg: NrPdcpConfig,
    tx_next: u32,
    /// Running discardTimers, in COUNT order (one duration for all, so in expiry order too).
    timers: VecDeque<DiscardTimer>,
    discards: VecDeque<NrPdcpDiscard>,
    stats: NrPdcpTxStats,
}

impl NrPdcpTx {
    pub fn new(config: NrPdcpConfig) -> Self {
        Self::starting_at(config, 0)
    }

    /// An entity whose TX_NEXT starts at `tx_next` (a target cell continuing from the COUNT
    /// of an SN STATUS TRANSFER of TS 38.423).
    pub fn starting_at(config: NrPdcpConfig, tx_next: u32) -> Self {
        NrPdcpTx {
            cfg: config,
            tx_next,
            timers: VecDeque::new(),
            discards: VecDeque::new(),
            stats: NrPdcpTxStats::default(),
        }
    }

    /// TX_NEXT.
    pub fn tx_next(&self) -> u32 {
        self.tx_next
    }
    pub fn stats(&self) -> NrPdcpTxStats {
        self.stats
    }

    /// §5.2.1: start the SDU's discardTimer, give it COUNT = TX_NEXT, increment TX_NEXT.
    pub fn write_sdu<S: RlcSdu>(&mut self, now: SimTime, sdu: S) -> NrPdcpPdu<S> {
        self.on_timeout(now);
        let pdu = NrPdcpPdu {
            count: self.tx_next,
            sdu,
            sn_length: self.cfg.sn_length,
        };
        if let Some(d) = self.cfg.discard_timer {
            self.timers.push_back(DiscardTimer {
                count: pdu.count,
                sdu_id: pdu.sdu_id(),
                expires: now + d,
                confirmed: false,
            });
        }
        self.tx_next = self.tx_next.wrapping_add(1);
        self.stats.pdus += 1;
        self.stats.bytes += pdu.size_bytes() as u64;
        pdu
    }

    /// The lower layer confirmed the delivery of the SDU (TS 38.322 §5.2.3.1.1): its
    /// discardTimer stops (§5.3). Confirmations mostly come in COUNT order, so the search
    /// from the oldest timer is short.
    pub fn confirm_delivered(&mut self, sdu_id: u64) {
        if let Some(t) = self
            .timers
            .iter_mut()
            .find(|t| !t.confirmed && t.sdu_id == sdu_id)
        {
            t.confirmed = true;
        }
        self.drop_confirmed();
    }

    /// The next discard to pass to the lower layer.
    pub fn pop_discard(&mut self) -> Option<NrPdcpDiscard> {
        self.discards.pop_front()
    }

    /// The earliest running discardTimer.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.timers.front().map(|t| t.expires)
    }

    /// §5.3: every SDU whose discardTimer expired at or before `now` is discarded.
    pub fn on_timeout(&mut self, now: SimTime) {
        while let Some(t) = self.timers.front().filter(|t| t.expires <= now).copied() {
            self.timers.pop_front();
            self.discards.push_back(NrPdcpDiscard {
                count: t.count,
                sdu_id: t.sdu_id,
            });
            self.stats.sdus_discarded += 1;
            self.drop_confirmed();
        }
    }

    fn drop_confirmed(&mut self) {
        while self.timers.front().is_some_and(|t| t.confirmed) {
            self.timers.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use celltcp_engine::SimDuration;

    use super::*;
    use crate::nr::pdcp::PdcpSnLength;
    use crate::rlc::testkit::sdu;

    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_ms(x)
    }

    /// §5.2.1: COUNT = TX_NEXT, the SN its low bits, wrapping into the HFN.
    #[test]
    fn count_is_tx_next_and_the_sn_wraps_into_the_hfn_5_2_1() {
        let cfg = NrPdcpConfig {
            sn_length: PdcpSnLength::Bits12,
            ..NrPdcpConfig::default()
        };
        let mut tx: NrPdcpTx = NrPdcpTx::starting_at(cfg, 4095);
        let a = tx.write_sdu(ms(0), sdu(1, 100));
        let b = tx.write_sdu(ms(0), sdu(2, 100));
        assert_eq!((a.count, a.sn(), b.count, b.sn()), (4095, 4095, 4096, 0));
        assert_eq!((tx.tx_next(), tx.poll_timeout()), (4097, None));
    }

    /// §5.3: an SDU's discardTimer expiry discards it and indicates the discard; a confirmed
    /// delivery stops the timer.
    #[test]
    fn discard_timer_expiry_indicates_the_discard_5_3() {
        let cfg = NrPdcpConfig {
            discard_timer: Some(SimDuration::from_ms(50)),
            ..NrPdcpConfig::default()
        };
        let mut tx: NrPdcpTx = NrPdcpTx::new(cfg);
        for (t, uid) in [(0, 10), (5, 11), (10, 12)] {
            tx.write_sdu(ms(t), sdu(uid, 100));
        }
        tx.confirm_delivered(10);
        assert_eq!(tx.poll_timeout(), Some(ms(55)));
        tx.confirm_delivered(12);
        tx.on_timeout(ms(54));
        assert_eq!(tx.pop_discard(), None);
        tx.on_timeout(ms(55));
        assert_eq!(
            tx.pop_discard(),
            Some(NrPdcpDiscard {
                count: 1,
                sdu_id: 11
            })
        );
        assert_eq!((tx.pop_discard(), tx.poll_timeout()), (None, None));
        assert_eq!(tx.stats().sdus_discarded, 1);
    }
}
