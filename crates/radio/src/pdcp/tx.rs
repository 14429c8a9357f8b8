//! The transmitting PDCP entity (36.323 §5.1.1): SN and HFN assignment.

use std::collections::VecDeque;

use celltcp_net::packet::Packet;

use super::{PdcpConfig, PdcpConfigError, PdcpPdu};
use crate::rlc::RlcSdu;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PdcpTxStats {
    pub pdus: u64,
    /// PDU bytes handed to RLC (SDU plus header).
    pub bytes: u64,
}

/// Transmitting PDCP entity. COUNT = TX_HFN·2^sn_bits + Next_PDCP_TX_SN (36.323 §7.1).
#[derive(Debug)]
pub struct PdcpTx<S = Packet> {
    cfg: PdcpConfig,
    /// TX_HFN and Next_PDCP_TX_SN combined.
    next_count: u32,
    retained: VecDeque<PdcpPdu<S>>,
    stats: PdcpTxStats,
}

impl<S: RlcSdu> PdcpTx<S> {
    pub fn new(config: PdcpConfig) -> Result<Self, PdcpConfigError> {
        Self::resume(config, 0)
    }

    /// A target cell's entity continuing from the DL COUNT of an SN STATUS TRANSFER.
    pub fn resume(config: PdcpConfig, next_count: u32) -> Result<Self, PdcpConfigError> {
        config.validate()?;
        Ok(PdcpTx {
            cfg: config,
            next_count,
            retained: VecDeque::new(),
            stats: PdcpTxStats::default(),
        })
    }

    /// Numbers an SDU (36.323 §5.1.1: associate COUNT = TX_HFN|Next_PDCP_TX_SN, then increment
    /// Next_PDCP_TX_SN, wrapping into TX_HFN after Maximum_PDCP_SN).
    pub fn write_sdu(&mut self, sdu: S) -> PdcpPdu<S> {
        let pdu = PdcpPdu {
            count: self.next_count,
            sdu,
            header_bytes: self.cfg.header_bytes(),
            sn_bits: self.cfg.sn_bits,
        };
        self.next_count = self.next_count.wrapping_add(1);
        self.stats.pdus += 1;
        self.stats.bytes += pdu.size_bytes() as u64;
        if self.cfg.retain_for_forwarding {
            self.retained.push_back(pdu);
        }
        pdu
    }

    /// Numbers an SDU as [`write_sdu`](Self::write_sdu) does and hands the PDU to the lower
    /// layer (`lower`); a PDU the lower layer refuses (a full RLC buffer) takes no COUNT: the
    /// next SDU gets the same one. The SDU is then dropped before PDCP, as at a full buffer
    /// ahead of it, and the UE's reordering (36.323 §5.1.2.1.4, 38.323 §5.2.2.2) never waits
    /// t-Reordering for a COUNT that was never sent.
    pub fn write_sdu_into<E>(
        &mut self,
        sdu: S,
        lower: impl FnOnce(PdcpPdu<S>) -> Result<(), E>,
    ) -> Result<(), E>
    where
        S: Copy,
    {
        let pdu = PdcpPdu {
            count: self.next_count,
            sdu,
            header_bytes: self.cfg.header_bytes(),
            sn_bits: self.cfg.sn_bits,
        };
        lower(pdu)?;
        self.next_count = self.next_count.wrapping_add(1);
        self.stats.pdus += 1;
        self.stats.bytes += pdu.size_bytes() as u64;
        if self.cfg.retain_for_forwarding {
            self.retained.push_back(pdu);
        }
        Ok(())
    }

    /// The lower layer confirmed delivery of every PDU up to and including `count` (RLC AM
    /// acknowledgements arrive in order); their copies are released.
    pub fn confirm_delivered(&mut self, count: u32) {
        while self
            .retained
            .front()
            .is_some_and(|p| p.count.wrapping_sub(count) as i32 <= 0)
        {
            self.retained.pop_front();
        }
    }

    /// PDUs kept for forwarding.
    pub fn retained(&self) -> usize {
        self.retained.len()
    }

    /// The COUNT the next SDU gets.
    pub fn next_count(&self) -> u32 {
        self.next_count
    }

    /// The DL COUNT for an SN STATUS TRANSFER and the unconfirmed PDUs to forward, in order.
    pub fn forward(&mut self) -> (u32, Vec<PdcpPdu<S>>) {
        (self.next_count, self.retained.drain(..).collect())
    }

    pub fn stats(&self) -> PdcpTxStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rlc::testkit::sdu;

    #[test]
    fn sn_wraps_into_the_hfn_and_the_header_is_counted() {
        let mut tx: PdcpTx = PdcpTx::resume(PdcpConfig::default(), 4095).unwrap();
        let a = tx.write_sdu(sdu(1, 100));
        let b = tx.write_sdu(sdu(2, 100));
        assert_eq!((a.sn(), a.count, b.sn(), b.count), (4095, 4095, 0, 4096));
        assert_eq!(a.size_bytes(), 102);
        assert!(PdcpTx::<Packet>::new(PdcpConfig {
            sn_bits: 9,
            ..PdcpConfig::default()
        })
        .is_err());
    }

    #[test]
    fn retained_pdus_are_released_by_confirmations_and_forwarded() {
        let cfg = PdcpConfig {
            retain_for_forwarding: true,
            ..PdcpConfig::default()
        };
        let mut tx: PdcpTx = PdcpTx::new(cfg).unwrap();
        for uid in 0..5 {
            tx.write_sdu(sdu(uid, 100));
        }
        tx.confirm_delivered(1);
        assert_eq!(tx.retained(), 3);
        let (next, fwd) = tx.forward();
        assert_eq!(next, 5);
        assert_eq!(
            fwd.iter().map(|p| p.count).collect::<Vec<_>>(),
            vec![2, 3, 4]
        );
        let mut target: PdcpTx = PdcpTx::resume(cfg, next).unwrap();
        assert_eq!(target.write_sdu(sdu(9, 100)).count, 5);
    }
}
