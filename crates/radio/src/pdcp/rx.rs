//! The receiving PDCP entity for RLC AM bearers (36.323 §5.1.2.1.2 without reordering,
//! §5.1.2.1.4 with reordering), working on COUNT = HFN·2^sn_bits + SN.
//!
//! State variables (§7.1): Next_PDCP_RX_SN, RX_HFN, Last_Submitted_PDCP_RX_SN and
//! Reordering_PDCP_RX_COUNT; SN differences are plain integer differences as in the clause
//! text, compared with Reordering_Window.

use std::collections::{BTreeMap, VecDeque};

use celltcp_engine::SimTime;
use celltcp_net::packet::Packet;

use super::{PdcpConfig, PdcpConfigError, PdcpPdu};
use crate::rlc::RlcSdu;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PdcpRxStats {
    pub pdus_received: u64,
    /// Discarded as duplicates or as older than the last delivered SDU.
    pub pdus_discarded: u64,
    pub sdus_delivered: u64,
    pub t_reordering_expiries: u64,
}

/// Receiving PDCP entity. See the module documentation.
#[derive(Debug)]
pub struct PdcpRx<S = Packet> {
    cfg: PdcpConfig,
    next_rx_sn: u32,
    rx_hfn: u32,
    last_submitted_sn: u32,
    /// COUNT of the last SDU delivered, −1 before the first.
    last_submitted_count: i64,
    reordering_count: u32,
    stored: BTreeMap<u32, PdcpPdu<S>>,
    ready: VecDeque<S>,
    t_reordering: Option<SimTime>,
    stats: PdcpRxStats,
}

impl<S: RlcSdu> PdcpRx<S> {
    pub fn new(config: PdcpConfig) -> Result<Self, PdcpConfigError> {
        config.validate()?;
        Ok(PdcpRx {
            cfg: config,
            next_rx_sn: 0,
            rx_hfn: 0,
            // §7.1: Last_Submitted_PDCP_RX_SN starts at Maximum_PDCP_SN.
            last_submitted_sn: config.sn_modulus() - 1,
            last_submitted_count: -1,
            reordering_count: 0,
            stored: BTreeMap::new(),
            ready: VecDeque::new(),
            t_reordering: None,
            stats: PdcpRxStats::default(),
        })
    }

    /// A target cell's entity after handover: continues from the UL COUNT of the SN STATUS
    /// TRANSFER with the SDUs the source forwarded.
    pub fn resume(
        config: PdcpConfig,
        now: SimTime,
        ul_count: u32,
        forwarded: impl IntoIterator<Item = PdcpPdu<S>>,
    ) -> Result<Self, PdcpConfigError> {
        let mut rx = Self::new(config)?;
        let bits = config.sn_bits;
        let last = ul_count.wrapping_sub(1);
        rx.last_submitted_sn = last & (config.sn_modulus() - 1);
        rx.last_submitted_count = ul_count as i64 - 1;
        let mut next = ul_count;
        for p in forwarded {
            if p.count.wrapping_sub(ul_count) as i32 >= 0 {
                next = next.max(p.count.wrapping_add(1));
                rx.stored.insert(p.count, p);
            }
        }
        rx.next_rx_sn = next & (config.sn_modulus() - 1);
        rx.rx_hfn = next >> bits;
        rx.deliver_consecutive_from(ul_count);
        rx.restart_if_stored(now);
        Ok(rx)
    }

    pub fn take_sdu(&mut self) -> Option<S> {
        self.ready.pop_front()
    }

    pub fn stats(&self) -> PdcpRxStats {
        self.stats
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.t_reordering
    }

    pub fn on_timeout(&mut self, now: SimTime) {
        if let Some(t) = self.t_reordering.filter(|&t| t <= now) {
            self.t_reordering = None;
            self.stats.t_reordering_expiries += 1;
            // §5.1.2.1.4.2: deliver everything below Reordering_PDCP_RX_COUNT and what follows it
            // consecutively; restart if SDUs remain stored.
            self.deliver_below(self.reordering_count);
            self.deliver_consecutive_from(self.reordering_count);
            self.restart_if_stored(t);
        }
    }

    /// A PDCP PDU from the lower layer; only its SN is used.
    pub fn on_pdu(&mut self, now: SimTime, pdu: PdcpPdu<S>) {
        self.on_timeout(now);
        self.stats.pdus_received += 1;
        let modulus = self.cfg.sn_modulus();
        let w = self.cfg.reordering_window();
        let sn = (pdu.count & (modulus - 1)) as i64;
        let last = self.last_submitted_sn as i64;
        let next = self.next_rx_sn as i64;
        // Older than the last delivered SDU, or beyond the window: discard.
        if sn - last > w || (0 <= last - sn && last - sn < w) {
            self.stats.pdus_discarded += 1;
            return;
        }
        let hfn = if next - sn > w {
            self.rx_hfn = self.rx_hfn.wrapping_add(1);
            self.next_rx_sn = sn as u32 + 1;
            self.rx_hfn
        } else if sn - next >= w {
            self.rx_hfn.wrapping_sub(1)
        } else if sn >= next {
            self.next_rx_sn = sn as u32 + 1;
            let hfn = self.rx_hfn;
            if self.next_rx_sn >= modulus {
                self.next_rx_sn = 0;
                self.rx_hfn = self.rx_hfn.wrapping_add(1);
            }
            hfn
        } else {
            self.rx_hfn
        };
        let count = (hfn << self.cfg.sn_bits) | sn as u32;
        if self.stored.contains_key(&count) || (count as i64) <= self.last_submitted_count {
            self.stats.pdus_discarded += 1;
            return;
        }
        let received = PdcpPdu { count, ..pdu };
        if self.stored.is_empty() && count as i64 == self.last_submitted_count + 1 {
            // In sequence with nothing held back: both procedures below deliver this SDU
            // alone, so it skips the store (the common case, an SDU per PDU).
            self.deliver(received);
            if self.t_reordering.is_some()
                && self.last_submitted_count >= self.reordering_count as i64 - 1
            {
                self.t_reordering = None;
            }
            return;
        }
        self.stored.insert(count, received);
        if !self.cfg.reordering {
            // §5.1.2.1.2: deliver what is stored below the received COUNT and the consecutive
            // run from it — with nothing held back, this is the received SDU itself.
            self.deliver_below(count);
            self.deliver_consecutive_from(count);
            return;
        }
        // §5.1.2.1.4.1.
        if sn == last + 1 || sn == last - (modulus as i64 - 1) {
            self.deliver_consecutive_from(count);
        }
        if self.t_reordering.is_some()
            && self.last_submitted_count >= self.reordering_count as i64 - 1
        {
            self.t_reordering = None;
        }
        if self.t_reordering.is_none() {
            self.restart_if_stored(now);
        }
    }

    /// The first missing UL COUNT and the SDUs held out of order, for an SN STATUS TRANSFER;
    /// the entity keeps nothing afterwards.
    pub fn forward(&mut self) -> (u32, Vec<PdcpPdu<S>>) {
        let ul_count = (self.last_submitted_count + 1) as u32;
        self.t_reordering = None;
        (
            ul_count,
            std::mem::take(&mut self.stored).into_values().collect(),
        )
    }

    fn restart_if_stored(&mut self, at: SimTime) {
        if self.cfg.reordering && !self.stored.is_empty() {
            self.t_reordering = Some(at + self.cfg.t_reordering);
            self.reordering_count = (self.rx_hfn << self.cfg.sn_bits) | self.next_rx_sn;
        }
    }

    fn deliver(&mut self, p: PdcpPdu<S>) {
        self.last_submitted_sn = p.count & (self.cfg.sn_modulus() - 1);
        self.last_submitted_count = p.count as i64;
        self.ready.push_back(p.sdu);
        self.stats.sdus_delivered += 1;
    }

    fn deliver_below(&mut self, limit: u32) {
        while let Some(entry) = self.stored.first_entry() {
            if *entry.key() >= limit {
                break;
            }
            let p = entry.remove();
            self.deliver(p);
        }
    }

    fn deliver_consecutive_from(&mut self, mut count: u32) {
        while let Some(p) = self.stored.remove(&count) {
            self.deliver(p);
            count = count.wrapping_add(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use celltcp_engine::SimDuration;

    use super::super::{forward, PdcpTx};
    use super::*;
    use crate::rlc::testkit::sdu;

    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_ms(x)
    }

    fn uids(rx: &mut PdcpRx) -> Vec<u64> {
        std::iter::from_fn(|| rx.take_sdu())
            .map(|p| p.uid)
            .collect()
    }

    fn pdus(n: u64) -> Vec<PdcpPdu> {
        let mut tx: PdcpTx = PdcpTx::new(PdcpConfig::default()).unwrap();
        (0..n).map(|uid| tx.write_sdu(sdu(uid, 100))).collect()
    }

    #[test]
    fn without_reordering_delivers_on_arrival_and_discards_older_and_duplicates() {
        let mut rx: PdcpRx = PdcpRx::new(PdcpConfig::default()).unwrap();
        let p = pdus(4);
        for k in [0usize, 2, 1, 2, 3] {
            rx.on_pdu(ms(0), p[k]);
        }
        // SN 1 arrives after SN 2 was delivered: older than Last_Submitted, discarded.
        assert_eq!(uids(&mut rx), vec![0, 2, 3]);
        assert_eq!(rx.stats().pdus_discarded, 2);
        assert_eq!(rx.poll_timeout(), None);
    }

    #[test]
    fn reordering_holds_until_the_gap_fills_or_t_reordering_expires() {
        let cfg = PdcpConfig {
            reordering: true,
            ..PdcpConfig::default()
        };
        let mut rx: PdcpRx = PdcpRx::new(cfg).unwrap();
        let p = pdus(6);
        rx.on_pdu(ms(0), p[0]);
        rx.on_pdu(ms(1), p[2]);
        assert_eq!(uids(&mut rx), vec![0]);
        assert_eq!(rx.poll_timeout(), Some(ms(51)));
        rx.on_pdu(ms(2), p[1]);
        assert_eq!(uids(&mut rx), vec![1, 2]);
        assert_eq!(
            rx.poll_timeout(),
            None,
            "Reordering_PDCP_RX_COUNT - 1 delivered: stopped"
        );
        rx.on_pdu(ms(3), p[1]);
        assert_eq!(rx.stats().pdus_discarded, 1, "duplicate");
        // SN 3 is lost: 4 and 5 wait until t-Reordering (started at 4 ms) expires.
        rx.on_pdu(ms(4), p[4]);
        rx.on_pdu(ms(5), p[5]);
        assert_eq!(uids(&mut rx), Vec::<u64>::new());
        rx.on_timeout(ms(53));
        assert_eq!(uids(&mut rx), Vec::<u64>::new());
        rx.on_timeout(ms(54));
        assert_eq!(uids(&mut rx), vec![4, 5]);
        assert_eq!(rx.poll_timeout(), None);
        rx.on_pdu(ms(60), p[3]);
        assert_eq!(
            uids(&mut rx),
            Vec::<u64>::new(),
            "late SN 3 is older than the last delivered"
        );
    }

    #[test]
    fn the_hfn_advances_across_the_sn_wrap() {
        let cfg = PdcpConfig {
            sn_bits: 7,
            reordering: true,
            ..PdcpConfig::default()
        };
        let mut tx: PdcpTx = PdcpTx::new(cfg).unwrap();
        let mut rx: PdcpRx = PdcpRx::new(cfg).unwrap();
        let all: Vec<_> = (0..400).map(|uid| tx.write_sdu(sdu(uid, 100))).collect();
        // Pairs swapped: 1, 0, 3, 2, ...
        for pair in all.chunks(2) {
            rx.on_pdu(ms(0), pair[1]);
            rx.on_pdu(ms(0), pair[0]);
        }
        assert_eq!(uids(&mut rx), (0..400).collect::<Vec<_>>());
    }

    #[test]
    fn handover_forwarding_keeps_numbering_and_order() {
        let cfg = PdcpConfig {
            reordering: true,
            retain_for_forwarding: true,
            ..PdcpConfig::default()
        };
        let mut dl_tx: PdcpTx = PdcpTx::new(cfg).unwrap();
        let mut ul_rx: PdcpRx = PdcpRx::new(cfg).unwrap();
        for uid in 0..4 {
            dl_tx.write_sdu(sdu(uid, 100));
        }
        dl_tx.confirm_delivered(0);
        let ul = pdus(4);
        ul_rx.on_pdu(ms(0), ul[0]);
        ul_rx.on_pdu(ms(0), ul[2]);
        let fwd = forward(&mut dl_tx, &mut ul_rx);
        assert_eq!((fwd.status.dl_count, fwd.status.ul_count), (4, 1));
        assert_eq!(fwd.status.ul_received, vec![2]);
        assert_eq!(
            fwd.dl.iter().map(|p| p.count).collect::<Vec<_>>(),
            vec![1, 2, 3]
        );
        let mut target: PdcpRx = PdcpRx::resume(cfg, ms(10), fwd.status.ul_count, fwd.ul).unwrap();
        assert_eq!(target.poll_timeout(), Some(ms(60)));
        target.on_pdu(ms(11), ul[1]);
        target.on_pdu(ms(11), ul[3]);
        assert_eq!(uids(&mut target), vec![1, 2, 3]);
    }

    proptest::proptest! {
        /// Any arrival order with duplicates, within the reordering window and before
        /// t-Reordering expires, is delivered complete, in order and once.
        #[test]
        fn reordering_restores_order_and_drops_duplicates(
            keys in proptest::collection::vec(0u32..1000, 1..300),
        ) {
            let cfg = PdcpConfig { reordering: true, ..PdcpConfig::default() };
            let mut rx: PdcpRx = PdcpRx::new(cfg).unwrap();
            let all = pdus(300);
            // Arrival order: SN k at "time" k + jitter, i.e. sorted by k + keys[k] % 40; every
            // third PDU is sent twice.
            let mut order: Vec<(u32, usize)> = (0..keys.len()).map(|k| (k as u32 + keys[k] % 40, k)).collect();
            order.extend((0..keys.len()).step_by(3).map(|k| (k as u32 + keys[k] % 7, k)));
            order.sort();
            for (_, k) in order {
                rx.on_pdu(ms(0), all[k]);
            }
            proptest::prop_assert_eq!(uids(&mut rx), (0..keys.len() as u64).collect::<Vec<_>>());
        }
    }
}
