//! The receiving NR PDCP entity (TS 38.323 §5.2.2 receive operation).
//!
//! State variables (§7.1), all COUNTs:
//! * RX_NEXT — the COUNT of the next PDCP SDU expected to be received;
//! * RX_DELIV — the COUNT of the first PDCP SDU not delivered to the upper layer but still
//!   waited for;
//! * RX_REORD — the COUNT following the PDU that triggered t-Reordering.
//!
//! Reordering is the receiver's normal operation in NR: RLC AM delivers each SDU as soon as it
//! is reassembled (TS 38.322 §5.2.3.2.3), so PDCP restores COUNT order.

use std::collections::{BTreeMap, VecDeque};

use celltcp_engine::SimTime;
use celltcp_net::packet::Packet;

use super::{NrPdcpConfig, NrPdcpPdu};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NrPdcpRxStats {
    pub pdus_received: u64,
    /// Discarded: COUNT below RX_DELIV or received before (§5.2.2.1).
    pub pdus_discarded: u64,
    pub sdus_delivered: u64,
    /// COUNTs given up at t-Reordering expiry (never received, §5.2.2.2).
    pub counts_skipped: u64,
    pub t_reordering_expiries: u64,
}

/// Receiving NR PDCP entity. See the module documentation for the state it keeps.
#[derive(Debug)]
pub struct NrPdcpRx<S = Packet> {
    cfg: NrPdcpConfig,
    rx_next: u32,
    rx_deliv: u32,
    rx_reord: u32,
    /// Received COUNTs at or above RX_DELIV: `Some` waits for delivery, `None` was delivered
    /// out of order (kept for duplicate detection and RX_DELIV's advance).
    received: BTreeMap<u32, Option<S>>,
    ready: VecDeque<S>,
    t_reordering: Option<SimTime>,
    stats: NrPdcpRxStats,
}

impl<S: Copy> NrPdcpRx<S> {
    pub fn new(config: NrPdcpConfig) -> Self {
        Self::starting_at(config, 0)
    }

    /// An entity expecting COUNT `rx_deliv` next (a target cell continuing from an SN STATUS
    /// TRANSFER of TS 38.423).
    pub fn starting_at(config: NrPdcpConfig, rx_deliv: u32) -> Self {
        NrPdcpRx {
            cfg: config,
            rx_next: rx_deliv,
            rx_deliv,
            rx_reord: rx_deliv,
            received: BTreeMap::new(),
            ready: VecDeque::new(),
            t_reordering: None,
            stats: NrPdcpRxStats::default(),
        }
    }

    /// RX_NEXT.
    pub fn rx_next(&self) -> u32 {
        self.rx_next
    }
    /// RX_DELIV.
    pub fn rx_deliv(&self) -> u32 {
        self.rx_deliv
    }
    /// RX_REORD.
    pub fn rx_reord(&self) -> u32 {
        self.rx_reord
    }
    pub fn stats(&self) -> NrPdcpRxStats {
        self.stats
    }

    /// The next SDU for the upper layer.
    pub fn take_sdu(&mut self) -> Option<S> {
        self.ready.pop_front()
    }

    /// t-Reordering's deadline while running.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.t_reordering
    }

    /// §5.2.2.1: the COUNT of a received SN relative to RX_DELIV. RCVD_HFN is one more than
    /// HFN(RX_DELIV) when RCVD_SN < SN(RX_DELIV) − Window_Size, one less when RCVD_SN ≥
    /// SN(RX_DELIV) + Window_Size, else HFN(RX_DELIV). `None` for a COUNT below 0.
    pub fn rcvd_count(&self, rcvd_sn: u32) -> Option<u32> {
        let bits = self.cfg.sn_length.bits();
        let window = i64::from(self.cfg.sn_length.window());
        let deliv_sn = i64::from(self.rx_deliv & (self.cfg.sn_modulus() - 1));
        let deliv_hfn = i64::from(self.rx_deliv >> bits);
        let sn = i64::from(rcvd_sn);
        let hfn = if sn < deliv_sn - window {
            deliv_hfn + 1
        } else if sn >= deliv_sn + window {
            deliv_hfn - 1
        } else {
            deliv_hfn
        };
        u32::try_from((hfn << bits) | sn).ok().filter(|_| hfn >= 0)
    }

    /// A PDCP Data PDU from the lower layer (§5.2.2.1); only its SN is read.
    pub fn on_pdu(&mut self, now: SimTime, pdu: NrPdcpPdu<S>) {
        self.on_timeout(now);
        self.stats.pdus_received += 1;
        let count = match self.rcvd_count(pdu.sn()) {
            Some(c) if c >= self.rx_deliv && !self.received.contains_key(&c) => c,
            _ => {
                self.stats.pdus_discarded += 1;
                return;
            }
        };
        if count >= self.rx_next {
            self.rx_next = count.wrapping_add(1);
        }
        if self.cfg.out_of_order_delivery {
            self.deliver(pdu.sdu);
            self.received.insert(count, None);
        } else {
            self.received.insert(count, Some(pdu.sdu));
        }
        if count == self.rx_deliv {
            self.deliver_consecutive_from(count);
        }
        if self.t_reordering.is_some() && self.rx_deliv >= self.rx_reord {
            self.t_reordering = None;
        }
        self.start_t_reordering_if_waiting(now);
    }

    /// Runs t-Reordering if due at or before `now` (§5.2.2.2), at its own deadline.
    pub fn on_timeout(&mut self, now: SimTime) {
        let Some(at) = self.t_reordering.filter(|&t| t <= now) else {
            return;
        };
        self.t_reordering = None;
        self.stats.t_reordering_expiries += 1;
        // Deliver every stored SDU below RX_REORD; the COUNTs among them never received are
        // given up. Then RX_DELIV = the first COUNT ≥ RX_REORD not received, delivering the
        // consecutive run from RX_REORD.
        let below: Vec<u32> = self
            .received
            .range(..self.rx_reord)
            .map(|(&c, _)| c)
            .collect();
        for &c in &below {
            if let Some(Some(sdu)) = self.received.remove(&c) {
                self.deliver(sdu);
            }
        }
        self.stats.counts_skipped += u64::from(self.rx_reord - self.rx_deliv) - below.len() as u64;
        self.deliver_consecutive_from(self.rx_reord);
        self.start_t_reordering_if_waiting(at);
    }

    fn deliver(&mut self, sdu: S) {
        self.ready.push_back(sdu);
        self.stats.sdus_delivered += 1;
    }

    /// RX_DELIV moves over the received COUNTs from `from` on, delivering those not delivered
    /// yet, to the first COUNT not received.
    fn deliver_consecutive_from(&mut self, from: u32) {
        let mut c = from;
        while let Some(entry) = self.received.remove(&c) {
            if let Some(sdu) = entry {
                self.deliver(sdu);
            }
            c = c.wrapping_add(1);
        }
        self.rx_deliv = c;
    }

    /// "if t-Reordering is not running ... and RX_DELIV < RX_NEXT: update RX_REORD to
    /// RX_NEXT; start t-Reordering". Infinity never starts it.
    fn start_t_reordering_if_waiting(&mut self, now: SimTime) {
        if self.t_reordering.is_none() && self.rx_deliv < self.rx_next {
            if let Some(t) = self.cfg.t_reordering {
                self.rx_reord = self.rx_next;
                self.t_reordering = Some(now + t);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use celltcp_engine::SimDuration;

    use super::*;
    use crate::nr::pdcp::{NrPdcpTx, PdcpSnLength};
    use crate::rlc::testkit::sdu;

    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_ms(x)
    }

    fn uids(rx: &mut NrPdcpRx) -> Vec<u64> {
        std::iter::from_fn(|| rx.take_sdu())
            .map(|p| p.uid)
            .collect()
    }

    fn pdus(cfg: NrPdcpConfig, first_count: u32, n: u64) -> Vec<NrPdcpPdu> {
        let mut tx = NrPdcpTx::starting_at(cfg, first_count);
        (0..n)
            .map(|uid| tx.write_sdu(ms(0), sdu(uid, 100)))
            .collect()
    }

    /// §5.2.2.1: SDUs are delivered in COUNT order — an SDU above a missing COUNT waits —;
    /// duplicates and COUNTs below RX_DELIV are discarded; t-Reordering runs while RX_DELIV <
    /// RX_NEXT and stops when RX_DELIV reaches RX_REORD.
    #[test]
    fn delivers_in_count_order_and_discards_duplicates_5_2_2_1() {
        let cfg = NrPdcpConfig::default();
        let mut rx = NrPdcpRx::new(cfg);
        let p = pdus(cfg, 0, 5);
        rx.on_pdu(ms(0), p[0]);
        rx.on_pdu(ms(1), p[2]);
        rx.on_pdu(ms(1), p[3]);
        assert_eq!(uids(&mut rx), vec![0]);
        assert_eq!((rx.rx_deliv(), rx.rx_next(), rx.rx_reord()), (1, 4, 3));
        assert_eq!(rx.poll_timeout(), Some(ms(101)));
        rx.on_pdu(ms(2), p[3]);
        rx.on_pdu(ms(2), p[1]);
        assert_eq!(uids(&mut rx), vec![1, 2, 3]);
        assert_eq!(
            (rx.rx_deliv(), rx.poll_timeout()),
            (4, None),
            "RX_DELIV ≥ RX_REORD: stopped"
        );
        rx.on_pdu(ms(3), p[2]);
        assert_eq!(
            rx.stats().pdus_discarded,
            2,
            "a duplicate above RX_DELIV, one below"
        );
        assert!(uids(&mut rx).is_empty());
    }

    /// §5.2.2.2: at t-Reordering expiry the stored SDUs below RX_REORD and the consecutive run
    /// from it are delivered, leaving a gap; the timer restarts for what is still out of order,
    /// and the missing SDU arriving late is discarded.
    #[test]
    fn t_reordering_expiry_delivers_with_a_gap_5_2_2_2() {
        let cfg = NrPdcpConfig {
            t_reordering: Some(SimDuration::from_ms(20)),
            ..NrPdcpConfig::default()
        };
        let mut rx = NrPdcpRx::new(cfg);
        let p = pdus(cfg, 0, 8);
        for k in [0, 2, 3] {
            rx.on_pdu(ms(0), p[k]);
        }
        rx.on_pdu(ms(5), p[6]); // t-Reordering runs with RX_REORD = 4
        assert_eq!(uids(&mut rx), vec![0]);
        rx.on_timeout(ms(19));
        assert!(uids(&mut rx).is_empty());
        rx.on_timeout(ms(20));
        assert_eq!(
            uids(&mut rx),
            vec![2, 3],
            "COUNT 1 skipped; 6 waits behind 4 and 5"
        );
        assert_eq!(
            (rx.rx_deliv(), rx.rx_reord(), rx.poll_timeout()),
            (4, 7, Some(ms(40)))
        );
        rx.on_timeout(ms(40));
        assert_eq!(uids(&mut rx), vec![6]);
        assert_eq!((rx.rx_deliv(), rx.poll_timeout()), (7, None));
        assert_eq!(rx.stats().counts_skipped, 3);
        rx.on_pdu(ms(41), p[1]);
        rx.on_pdu(ms(41), p[7]);
        assert_eq!(uids(&mut rx), vec![7]);
        assert_eq!(rx.stats().pdus_discarded, 1);
    }

    /// §5.2.2.1 with outOfOrderDelivery: each SDU goes up on arrival, duplicates are still
    /// discarded, and RX_DELIV follows the received COUNTs.
    #[test]
    fn out_of_order_delivery_delivers_on_arrival_5_2_2_1() {
        let cfg = NrPdcpConfig {
            out_of_order_delivery: true,
            ..NrPdcpConfig::default()
        };
        let mut rx = NrPdcpRx::new(cfg);
        let p = pdus(cfg, 0, 3);
        rx.on_pdu(ms(0), p[2]);
        rx.on_pdu(ms(0), p[2]);
        rx.on_pdu(ms(0), p[0]);
        assert_eq!(uids(&mut rx), vec![2, 0]);
        assert_eq!(rx.rx_deliv(), 1);
        rx.on_pdu(ms(1), p[1]);
        assert_eq!(
            (uids(&mut rx), rx.rx_deliv(), rx.poll_timeout()),
            (vec![1], 3, None)
        );
        assert_eq!(rx.stats().pdus_discarded, 1);
    }

    /// §5.2.2.1: RCVD_HFN follows RX_DELIV across the SN wrap for both SN sizes, in both
    /// directions of the window.
    #[test]
    fn count_derivation_crosses_the_sn_wrap_5_2_2_1() {
        for sn_length in [PdcpSnLength::Bits12, PdcpSnLength::Bits18] {
            let cfg = NrPdcpConfig {
                sn_length,
                ..NrPdcpConfig::default()
            };
            let m = 1u32 << sn_length.bits();
            let mut rx = NrPdcpRx::starting_at(cfg, 3 * m - 2);
            assert_eq!(rx.rcvd_count(m - 1), Some(3 * m - 1));
            assert_eq!(
                rx.rcvd_count(1),
                Some(3 * m + 1),
                "HFN + 1 below SN(RX_DELIV) − window"
            );
            let p = pdus(cfg, 3 * m - 2, 4);
            for k in [1, 3, 2, 0] {
                rx.on_pdu(ms(0), p[k]);
            }
            assert_eq!(uids(&mut rx), vec![0, 1, 2, 3]);
            assert_eq!(rx.rx_deliv(), 3 * m + 2);
            assert_eq!(
                rx.rcvd_count(m - 1),
                Some(3 * m - 1),
                "HFN − 1 above SN(RX_DELIV) + window"
            );
        }
        let rx: NrPdcpRx = NrPdcpRx::new(NrPdcpConfig::default());
        assert_eq!(rx.rcvd_count((1 << 18) - 1), None, "below COUNT 0");
    }
}
