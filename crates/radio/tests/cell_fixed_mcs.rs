//! Validation at a fixed MCS: a single UE with a full buffer receives the TS 36.213 TBS-table
//! rate at the PHY, and that rate minus the RLC and PDCP headers as IP bytes.

mod common;

use celltcp_net::packet::NodeId;
use celltcp_radio::cell::{LteCell, LteCellConfig};
use celltcp_radio::phy::{tbs_bits_for_mcs, Mcs};
use common::*;

/// IP packet size of the source, bytes.
const SDU: u32 = 1500;
/// PDCP data PDU header for a 12-bit SN (TS 36.323 §6.2.3).
const PDCP_HEADER: u32 = 2;

#[test]
fn full_buffer_gets_the_tbs_table_rate() {
    let duration = secs(2.0);
    for mcs in [0u8, 9, 16, 28] {
        let cfg = LteCellConfig {
            fixed_mcs: Some(Mcs::new(mcs).unwrap()),
            ..LteCellConfig::lte_default("c", ENB)
        };
        let n_prb = cfg.n_prb;
        // 100 m from a 46 dBm eNB in free space: SINR ≈ 63 dB, no block errors.
        let cell = LteCell::new(cfg, vec![ue_at(NodeId(1), 100.0, 0.0)], 1, 0).unwrap();
        let mut h = Harness::new(cell);
        let tbs = tbs_bits_for_mcs(mcs, n_prb).unwrap();
        let table_rate = f64::from(tbs) * 1000.0;
        h.drive(
            &[Cbr::new(NodeId(1), table_rate * 1.3, SDU, duration)],
            duration,
        );
        let r = h.cell.ue_report(NodeId(1), duration).unwrap();

        let phy_error = (r.phy_throughput_bps - table_rate).abs() / table_rate;
        assert!(
            phy_error < 0.02,
            "MCS {mcs}: PHY {} vs table {table_rate}",
            r.phy_throughput_bps
        );
        assert_eq!(r.harq_retransmissions, 0);

        // RLC/PDCP overhead model: each transport block of B bytes carries one AMD PDU whose
        // header is 2 bytes plus 1.5 bytes (rounded up) per data field element after the first
        // (36.322 §6.2.1.4); each 1500-byte IP packet carries a 2-byte PDCP header.
        let b = tbs / 8;
        let max_elements = (b - 2).div_ceil(SDU + PDCP_HEADER) + 1;
        let max_header = 2 + (12 * (max_elements - 1)).div_ceil(8);
        let ip_share = f64::from(SDU) / f64::from(SDU + PDCP_HEADER);
        let high = r.phy_throughput_bps * f64::from(b - 2) / f64::from(b) * ip_share;
        let low = r.phy_throughput_bps * f64::from(b - max_header) / f64::from(b) * ip_share;
        // End effects: a partly delivered SDU and the last block, over the run.
        let slack = f64::from(2 * (SDU + PDCP_HEADER) + b) * 8.0 / duration.as_secs_f64();
        eprintln!(
            "MCS {mcs}: TBS {tbs} bits, PHY {:.0} bit/s (table {table_rate:.0}), RLC {:.0} bit/s \
             = {:.4} of PHY (bounds {:.4}..{:.4})",
            r.phy_throughput_bps,
            r.rlc_throughput_bps,
            r.rlc_throughput_bps / r.phy_throughput_bps,
            low / r.phy_throughput_bps,
            high / r.phy_throughput_bps,
        );
        assert!(
            r.rlc_throughput_bps >= low - slack && r.rlc_throughput_bps <= high + slack,
            "MCS {mcs}: RLC {} outside [{low}, {high}] ± {slack}",
            r.rlc_throughput_bps
        );
        // Every delivered SDU is in order, and the cell used all PRBs of every TTI.
        let uids = h.delivered_to(NodeId(1));
        assert!(uids.windows(2).all(|w| w[0] < w[1]));
        assert!(h.cell.prb_utilization(duration) > 0.99);
    }
}
