//! A bulk TCP download to one UE in a 10 MHz cell fills the cell: its goodput is the cell's
//! rate at the UE's MCS (TS 36.213 Table 7.1.7.2.1-1 through the MCS table) less the headers.
//!
//! Expected goodput, bits per second: `TBS(mcs, 50 PRBs) × 1000 TTI/s × MSS / (IP + PDCP)`,
//! with 1448-byte segments in 1500-byte IP packets (20 bytes IP, 20 TCP, 12 timestamps) and
//! the 2-byte PDCP header of a 12-bit SN (TS 36.323 §6.2.3). What it leaves out, so that the
//! measured goodput is a little below it: the RLC AMD PDU headers of each transport block
//! (2 bytes plus 1.5 per extra data field element, TS 36.322 §6.2.1.4), the slow start at the
//! beginning of the flow and the recovery from its overshoot (the default 1 MB RLC buffer
//! overflows at the end of slow start: several hundred segments are lost at once and the
//! sender may time out, leaving the cell idle for a few hundred ms), and the segments still in
//! flight at the end. The runs last 60 s so that the start-up weighs about 1 %.

mod lte_support;

use celltcp_radio::cell::MonotoneTbs;
use celltcp_radio::mac::{Layers, TbsLookup};
use celltcp_radio::phy::Mcs;
use celltcp_scenario::{load_str, run, RunOptions};

const N_PRB: u32 = 50;
const MSS: f64 = 1448.0;
/// IP packet of a full segment plus the PDCP header, bytes.
const IP_PLUS_PDCP: f64 = 1500.0 + 2.0;

/// One UE at `distance_m` from a 10 MHz eNB (free space at 2 GHz, 46 dBm), downloading with
/// TCP `cc` from a server 23 ms away, for `duration`.
fn one_ue(distance_m: f64, cell_extra: &str, cc: &str, duration: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
seed = 3

[nodes]
server = {{ kind = "host" }}
gateway = {{ kind = "router" }}
enb = {{ kind = "router" }}
ue = {{ kind = "host" }}

{core}

[cells.cell]
enb = "enb"
bandwidth_mhz = 10
pathloss = "free_space"
{cell_extra}

[cells.cell.ues]
ue = {{ position = [{distance_m}, 0.0] }}

[flows.bulk]
kind = "tcp"
src = "server"
dst = "ue"
cc = "{cc}"
app = {{ kind = "bulk" }}
"#,
        core = lte_support::CORE_LINKS
    )
}

/// Goodput the cell carries at `mcs` on all 50 PRBs, bits per second (see the module doc).
fn expected_goodput_bps(mcs: u8) -> (f64, f64) {
    let tbs = MonotoneTbs::new(N_PRB).unwrap();
    let phy_bps = f64::from(tbs.tbs_bits(Mcs::new(mcs).unwrap(), Layers::ONE, N_PRB)) * 1000.0;
    (phy_bps, phy_bps * MSS / IP_PLUS_PDCP)
}

struct Measured {
    goodput_bps: f64,
    phy_bps: f64,
    mcs_mean: f64,
    prb_utilization: f64,
    harq_retx: f64,
    tcp_retransmissions: f64,
    tcp_timeouts: f64,
}

fn measure(toml: &str) -> Measured {
    let sc = load_str(toml, &[]).unwrap();
    let out = run(&sc, &RunOptions::default()).unwrap();
    let ue = &out.summary["cells"]["cell"]["ues"]["ue"];
    Measured {
        goodput_bps: out.summary["flows"]["bulk"]["goodput_bps"]
            .as_f64()
            .unwrap(),
        phy_bps: ue["phy_throughput_bps"].as_f64().unwrap(),
        mcs_mean: ue["mcs_mean"].as_f64().unwrap(),
        prb_utilization: out.summary["cells"]["cell"]["prb_utilization"]
            .as_f64()
            .unwrap(),
        harq_retx: ue["harq_retransmissions"].as_f64().unwrap(),
        tcp_retransmissions: out.summary["flows"]["bulk"]["sender"]["retransmissions"]
            .as_f64()
            .unwrap(),
        tcp_timeouts: out.summary["flows"]["bulk"]["sender"]["timeouts"]
            .as_f64()
            .unwrap(),
    }
}

#[test]
fn bulk_tcp_fills_the_cell_at_a_fixed_mcs() {
    // MCS 16 (I_TBS 15): 15 264 bits on 50 PRBs, 15.264 Mbit/s at the PHY.
    let (phy, expected) = expected_goodput_bps(16);
    assert_eq!(phy, 15.264e6);
    let m = measure(&one_ue(300.0, "fixed_mcs = 16", "newreno", "60s"));
    eprintln!(
        "MCS 16: TBS rate {:.3} Mb/s, expected goodput {:.3} Mb/s; measured goodput {:.3} Mb/s \
         ({:.2} % of expected), PHY {:.3} Mb/s, PRB utilisation {:.4}, TCP retransmissions {} and \
         timeouts {}",
        phy / 1e6,
        expected / 1e6,
        m.goodput_bps / 1e6,
        100.0 * m.goodput_bps / expected,
        m.phy_bps / 1e6,
        m.prb_utilization,
        m.tcp_retransmissions,
        m.tcp_timeouts
    );
    assert_eq!(m.mcs_mean, 16.0);
    // The cell is busy all the time once the flow has recovered from its start-up: TCP keeps
    // the RLC queue non-empty.
    assert!(
        m.prb_utilization > 0.985,
        "PRB utilisation {}",
        m.prb_utilization
    );
    assert!(
        m.phy_bps > 0.985 * phy && m.phy_bps <= phy * 1.001,
        "PHY {}",
        m.phy_bps
    );
    // Within 1.5 % below the expected goodput (RLC headers, the start-up), never above it.
    assert!(
        m.goodput_bps > 0.985 * expected,
        "goodput {} vs {expected}",
        m.goodput_bps
    );
    assert!(
        m.goodput_bps < expected,
        "goodput {} vs {expected}",
        m.goodput_bps
    );
}

#[test]
fn bulk_tcp_fills_the_cell_with_link_adaptation() {
    // 100 m in free space from a 46 dBm eNB: the SINR is far above the CQI 15 threshold, so
    // link adaptation picks MCS 28 (CQI 15 → MCS 2·(15 − 1)): 36 696 bits on 50 PRBs.
    let (phy, expected) = expected_goodput_bps(28);
    assert_eq!(phy, 36.696e6);
    let m = measure(&one_ue(100.0, "", "cubic", "60s"));
    eprintln!(
        "AMC at 100 m: mean MCS {:.2}, TBS rate {:.3} Mb/s, expected goodput {:.3} Mb/s; measured \
         goodput {:.3} Mb/s ({:.2} % of expected), PHY {:.3} Mb/s, HARQ retransmissions {}, \
         PRB utilisation {:.4}, TCP retransmissions {} and timeouts {}",
        m.mcs_mean,
        phy / 1e6,
        expected / 1e6,
        m.goodput_bps / 1e6,
        100.0 * m.goodput_bps / expected,
        m.phy_bps / 1e6,
        m.harq_retx,
        m.prb_utilization,
        m.tcp_retransmissions,
        m.tcp_timeouts
    );
    assert_eq!(m.mcs_mean, 28.0);
    // CUBIC overshoots the 1 MB buffer more often than NewReno (several recoveries and
    // timeouts in 60 s), so the cell idles a little more.
    assert!(
        m.prb_utilization > 0.98,
        "PRB utilisation {}",
        m.prb_utilization
    );
    assert!(
        m.goodput_bps > 0.975 * expected,
        "goodput {} vs {expected}",
        m.goodput_bps
    );
    assert!(
        m.goodput_bps < expected,
        "goodput {} vs {expected}",
        m.goodput_bps
    );
}
