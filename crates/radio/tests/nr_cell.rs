//! The NR cell (`LteCellConfig::nr`): full-buffer peak rates against TS 38.306 §4.1.2, TDD
//! slots, and the HARQ timing of K1. Run with `--nocapture` to see the numbers that
//! docs/nr.md quotes.
//!
//! The peak rate of TS 38.306 §4.1.2 takes a flat overhead OH (0.14 in FR1, 0.18 in FR2
//! downlink) from all 14 symbols of every slot. The cell transmits TS 38.214 §5.1.3.2 blocks:
//! N'_RE = 12·N_symb − N_DMRS − N_oh REs per PRB of each slot with a PDSCH. So the measured
//! rate is the formula's times Σ_slots N'_RE / (slots · 168 · (1 − OH)) over a period of the
//! slot pattern, to the TBS quantisation (≤ 1/64), which is what these tests check.

mod common;

use celltcp_net::medium::Medium;
use celltcp_net::packet::NodeId;
use celltcp_radio::cell::{LteCell, LteCellConfig, NrCellConfig, NrDmrsConfig, RlcModeConfig};
use celltcp_radio::channel::{thermal_noise_dbm, LogDistance, PathLossModel};
use celltcp_radio::nr::carrier::{Carrier, FrequencyRange, Numerology};
use celltcp_radio::nr::mcs::McsTable;
use celltcp_radio::nr::peak_rate::{approx_peak_rate_bps, Direction, PeakRateCarrier};
use celltcp_radio::nr::rlc::NrRlcUmConfig;
use celltcp_radio::nr::{HarqTiming, SlotPattern, SpecialSlot};
use celltcp_radio::phy::Mcs;
use common::*;

/// TBS quantisation above N_info = 3824 (see tests/nr_peak_rate.rs), plus the edge of the
/// measurement window (one pattern period of a run of a few hundred).
const TOLERANCE: f64 = 1.0 / 64.0 + 0.005;

/// An NR cell configured by `nr` at `carrier_hz`, whose UE at ≤ 1 m sees `sinr_db` over the
/// carrier's bandwidth, with RLC UM (no ARQ window to limit a full buffer).
fn nr_cell(nr: NrCellConfig, carrier_hz: f64, sinr_db: f64) -> LteCellConfig {
    let air = nr.validate("cells.g", carrier_hz).unwrap();
    let c = air.carrier;
    let hz = f64::from(c.n_rb()) * f64::from(c.numerology().rb_bandwidth_hz());
    let cfg = LteCellConfig::lte_default("g", ENB);
    let noise = thermal_noise_dbm(hz, cfg.keys.noise_figure_db).unwrap();
    let pl0 = cfg.keys.tx_power_dbm - noise - sinr_db;
    LteCellConfig {
        carrier_hz,
        pathloss: PathLossModel::LogDistance(LogDistance::new(pl0, 1.0, 3.0).unwrap()),
        rlc: RlcModeConfig::NrUm(NrRlcUmConfig::default()),
        nr: Some(nr),
        trace_series: true,
        ..cfg
    }
}

struct Peak {
    measured_bps: f64,
    formula_bps: f64,
    /// Σ N'_RE over a period / (slots · 168 · (1 − OH)).
    overhead_ratio: f64,
}

/// Runs a full-buffer UDP downlink for `seconds` and measures the decoded rate after the
/// first 20 ms.
fn peak(
    nr: NrCellConfig,
    carrier_hz: f64,
    fr: FrequencyRange,
    qm: u8,
    re_per_slot: &[u32],
) -> Peak {
    let layers = nr.max_layers;
    let carrier = Carrier::new(
        fr,
        Numerology::new(nr.numerology).unwrap(),
        nr.bandwidth_mhz,
    )
    .unwrap();
    let formula_bps = approx_peak_rate_bps(&[PeakRateCarrier {
        layers,
        qm,
        scaling_factor: 1.0,
        numerology: carrier.numerology(),
        n_prb: carrier.n_rb(),
        fr,
        direction: Direction::Downlink,
    }]);
    let cfg = nr_cell(nr, carrier_hz, 70.0);
    let cell = LteCell::new(cfg, vec![ue_at(NodeId(1), 0.5, 0.0)], 1, 0).unwrap();
    let mut h = Harness::new(cell);
    let (warm, end) = (secs(0.02), secs(0.12));
    h.drive(&[Cbr::new(NodeId(1), formula_bps * 1.2, 1500, end)], end);
    let t = h.cell.trace().unwrap();
    let bits: u64 = (0..t.len())
        .filter(|&i| t.time_ns[i] >= warm.as_ns() && t.time_ns[i] < end.as_ns() && t.decoded[i])
        .map(|i| u64::from(t.tbs_bits[i]))
        .sum();
    let measured_bps = bits as f64 / (end - warm).as_secs_f64();
    let oh = celltcp_radio::nr::peak_rate::overhead(fr, Direction::Downlink);
    let overhead_ratio = f64::from(re_per_slot.iter().sum::<u32>())
        / (re_per_slot.len() as f64 * 168.0 * (1.0 - oh));
    Peak {
        measured_bps,
        formula_bps,
        overhead_ratio,
    }
}

#[test]
fn fr1_100mhz_dddsu_256qam_4_layers_peak_rate() {
    let nr = NrCellConfig {
        numerology: 1,
        bandwidth_mhz: 100,
        slot_pattern: "DDDSU".into(),
        mcs_table: McsTable::Qam256,
        max_layers: 4,
        ..NrCellConfig::default()
    };
    // D: 13 PDSCH symbols, DM-RS pos1 (2 symbols × 12 REs): N'_RE = 156 − 24 = 132.
    // S (10:2:2): 9 PDSCH symbols after the PDCCH symbol, 2 DM-RS symbols: 108 − 24 = 84.
    // U: none.
    let p = peak(nr, 3.5e9, FrequencyRange::Fr1, 8, &[132, 132, 132, 84, 0]);
    let predicted = p.formula_bps * p.overhead_ratio;
    eprintln!(
        "FR1 100 MHz μ=1 DDDSU 256QAM 4 layers: measured {:.1} Mbit/s, TS 38.306 {:.1} Mbit/s, \
         overhead ratio {:.4} → {:.1} Mbit/s",
        p.measured_bps / 1e6,
        p.formula_bps / 1e6,
        p.overhead_ratio,
        predicted / 1e6
    );
    assert!((p.formula_bps - 2_337_000_120.0).abs() < 1.0);
    assert!(
        (p.measured_bps / predicted - 1.0).abs() < TOLERANCE,
        "{} vs {predicted}",
        p.measured_bps
    );
}

#[test]
fn fr2_100mhz_mu3_peak_rate() {
    let nr = NrCellConfig {
        numerology: 3,
        bandwidth_mhz: 100,
        slot_pattern: "DDDSU".into(),
        mcs_table: McsTable::Qam64,
        max_layers: 2,
        x_overhead: 6,
        ..NrCellConfig::default()
    };
    // D: 132 − 6 (xOverhead) = 126; S: 84 − 6 = 78; U: none.
    let p = peak(nr, 28e9, FrequencyRange::Fr2, 6, &[126, 126, 126, 78, 0]);
    let predicted = p.formula_bps * p.overhead_ratio;
    eprintln!(
        "FR2 100 MHz μ=3 DDDSU 64QAM 2 layers xOverhead 6: measured {:.1} Mbit/s, TS 38.306 \
         {:.1} Mbit/s, overhead ratio {:.4} → {:.1} Mbit/s",
        p.measured_bps / 1e6,
        p.formula_bps / 1e6,
        p.overhead_ratio,
        predicted / 1e6
    );
    assert!((p.formula_bps - 808_065_720.0).abs() < 1.0);
    assert!(
        (p.measured_bps / predicted - 1.0).abs() < TOLERANCE,
        "{} vs {predicted}",
        p.measured_bps
    );
}

#[test]
fn no_downlink_block_in_an_uplink_slot() {
    let nr = NrCellConfig {
        slot_pattern: "DDDSU".into(),
        ..NrCellConfig::default()
    };
    let slot_ns = 500_000;
    let cell = LteCell::new(
        nr_cell(nr, 3.5e9, 30.0),
        vec![ue_at(NodeId(1), 0.5, 0.0)],
        1,
        0,
    )
    .unwrap();
    assert_eq!(cell.slot_ns(), slot_ns);
    let mut h = Harness::new(cell);
    let end = secs(0.05);
    h.drive(&[Cbr::new(NodeId(1), 500e6, 1500, end)], end);
    let t = h.cell.trace().unwrap();
    let mut per_kind = [0u32; 5];
    for i in (0..t.len()).filter(|&i| t.n_prb[i] > 0) {
        assert_eq!(t.time_ns[i] % slot_ns, 0, "a block off the slot grid");
        per_kind[((t.time_ns[i] / slot_ns) % 5) as usize] += 1;
    }
    eprintln!("blocks per slot of DDDSU over 50 ms: {per_kind:?}");
    assert_eq!(per_kind[4], 0, "a downlink block in the U slot");
    assert!(per_kind[..4].iter().all(|&n| n >= 19), "{per_kind:?}");
    // The U slots are processed all the same (their HARQ-ACKs), but carry nothing.
    assert!(h.cell.ttis_processed() >= 99);
}

/// Slots of the transmissions of the first block of a run where every block fails.
fn transmissions_of_first_block(nr: NrCellConfig) -> (Vec<(u64, u8)>, LteCell) {
    let mut cfg = nr_cell(nr, 3.5e9, -10.0);
    cfg.fixed_mcs = Some(Mcs::new(27).unwrap());
    let cell = LteCell::new(cfg, vec![ue_at(NodeId(1), 0.5, 0.0)], 3, 0).unwrap();
    let mut h = Harness::new(cell);
    let end = secs(0.02);
    h.drive(&[Cbr::new(NodeId(1), 50e6, 1500, end)], end);
    let slot_ns = h.cell.slot_ns();
    let t = h.cell.trace().unwrap();
    let rows: Vec<(u64, u8)> = (0..t.len())
        .filter(|&i| t.n_prb[i] > 0)
        .map(|i| (t.time_ns[i] / slot_ns, t.harq_transmission[i]))
        .collect();
    (rows, h.cell)
}

#[test]
fn a_retransmission_waits_for_k1_and_the_gnb_processing() {
    // FDD, K1 = 4, one slot of gNB processing: a block of slot n is NACKed in n + 4 and sent
    // again in n + 5 at the earliest. Every block fails, and the UE's retransmission has
    // priority, so slot k carries transmission (k div 5) mod 4 + 1, as LTE's k div 8.
    let (rows, cell) = transmissions_of_first_block(NrCellConfig {
        k1_slots: Some(4),
        ..NrCellConfig::default()
    });
    let expected: Vec<(u64, u8)> = (0..40u64).map(|k| (k, ((k / 5) % 4 + 1) as u8)).collect();
    assert_eq!(rows[..40], expected[..]);
    assert!(
        cell.ue_report(NodeId(1), secs(0.02))
            .unwrap()
            .harq_residual_failures
            > 0
    );

    // TDD DDDSU with the default K1 (1 slot at 30 kHz): the ACK of slot 0 waits for the first
    // slot with uplink symbols (S, slot 3), the retransmission for the next downlink slot
    // after the gNB's slot (slot 5): HarqTiming::retransmission_slot.
    let (rows, _) = transmissions_of_first_block(NrCellConfig {
        slot_pattern: "DDDSU".into(),
        ..NrCellConfig::default()
    });
    let mu1 = Numerology::new(1).unwrap();
    let pattern = SlotPattern::tdd("DDDSU", SpecialSlot::new(10, 2, 2).unwrap(), mu1).unwrap();
    let timing = HarqTiming::new(16, 1, 1).unwrap();
    let retx = timing.retransmission_slot(0, &pattern);
    assert_eq!((timing.feedback_slot(0, &pattern), retx), (3, 5));
    // Slots 0 to 3 (D, D, D, S) carry first transmissions, slot 4 (U) nothing, and the first
    // retransmission is the block of slot 0 in slot 5, no earlier.
    let head: Vec<(u64, u8)> = rows.iter().copied().take_while(|r| r.0 <= retx).collect();
    assert_eq!(head, [(0, 1), (1, 1), (2, 1), (3, 1), (5, 2)]);
    assert_eq!(timing.retransmission_slot(0, &pattern), 5);
}

#[test]
fn the_dmrs_configuration_reaches_the_transport_block() {
    // Double-symbol DM-RS type 2 takes more REs than the default: smaller blocks at the same
    // MCS, PRBs and layers.
    let size = |dmrs: NrDmrsConfig| {
        let nr = NrCellConfig {
            dmrs,
            ..NrCellConfig::default()
        };
        let mut cfg = nr_cell(nr, 3.5e9, 40.0);
        cfg.fixed_mcs = Some(Mcs::new(20).unwrap());
        let cell = LteCell::new(cfg, vec![ue_at(NodeId(1), 0.5, 0.0)], 1, 0).unwrap();
        let mut h = Harness::new(cell);
        let end = secs(0.005);
        h.drive(&[Cbr::new(NodeId(1), 400e6, 1500, end)], end);
        let t = h.cell.trace().unwrap();
        (0..t.len()).map(|i| t.tbs_bits[i]).max().unwrap()
    };
    let default = size(NrDmrsConfig::default());
    let heavy = size(NrDmrsConfig {
        config_type: 2,
        additional_position: 1,
        max_length: 2,
    });
    assert!(heavy < default, "{heavy} vs {default}");
}

#[test]
fn idle_slots_cost_no_event() {
    // μ = 3: 8000 slots a second. A burst of 20 ms of traffic, then 1 s of silence: the cell
    // runs the slots of the burst and its HARQ and RLC tail, then no more (the wake table).
    let nr = NrCellConfig {
        numerology: 3,
        slot_pattern: "DDDSU".into(),
        ..NrCellConfig::default()
    };
    let cell = LteCell::new(
        nr_cell(nr, 28e9, 30.0),
        vec![ue_at(NodeId(1), 0.5, 0.0)],
        1,
        0,
    )
    .unwrap();
    assert_eq!(cell.slot_ns(), 125_000);
    let mut h = Harness::new(cell);
    h.drive(&[Cbr::new(NodeId(1), 100e6, 1500, secs(0.02))], secs(1.02));
    let processed = h.cell.ttis_processed();
    eprintln!(
        "slots processed: {processed} of 8160; timer calls {}",
        h.timer_calls
    );
    assert!((150..400).contains(&processed), "{processed}");
    assert_eq!(h.cell.poll_timeout(), None);
    assert!(h.timer_calls < 1000, "{}", h.timer_calls);
}

/// The SINR at which a block of `mcs` (64QAM table) on 2 layers fails with probability `bler`.
fn sinr_for_nr_bler(mcs: u8, bler: f64) -> f64 {
    use celltcp_radio::nr::link::{per_layer_sinr_db, NrBlerModel, DEFAULT_LAYER_LOSS_DB};
    let model = NrBlerModel::for_table(McsTable::Qam64);
    let at = |s: f64| {
        model
            .bler(mcs, per_layer_sinr_db(s, 2, DEFAULT_LAYER_LOSS_DB))
            .unwrap()
    };
    let (mut lo, mut hi) = (-10.0, 60.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if at(mid) > bler {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// An FR2 cell (28 GHz, μ = 3, 200 MHz, DDDSU, 64QAM MCS 20 on 2 layers) at the SINR of a
/// 3 % block error rate, whose HARQ gives a block up at its first failure so that every lost
/// block leaves a hole for RLC AM, with NR RLC AM of `sn_bits` and a 4 MB buffer; 1500-byte
/// UDP above the cell's rate for 0.3 s, then 0.2 s to drain. Returns the UE report and the
/// UIDs in the order the UE received them.
fn fr2_am_run(sn_bits: u8, t_reordering_ms: u64) -> (celltcp_radio::cell::UeReport, Vec<u64>) {
    use celltcp_net::queue::QueueLimit;
    use celltcp_radio::cell::{CellRlcConfig, Rat};
    use celltcp_radio::mac::HarqConfig;
    let nr = NrCellConfig {
        numerology: 3,
        bandwidth_mhz: 200,
        slot_pattern: "DDDSU".into(),
        mcs_table: McsTable::Qam64,
        max_layers: 2,
        ..NrCellConfig::default()
    };
    let rlc = CellRlcConfig {
        sn_bits: Some(sn_bits),
        buffer: QueueLimit::Bytes(4_000_000),
        ..CellRlcConfig::default()
    };
    let mut cfg = nr_cell(nr, 28e9, sinr_for_nr_bler(20, 0.03));
    cfg.fixed_mcs = Some(Mcs::new(20).unwrap());
    cfg.rlc = rlc.entity_config(Rat::Nr).unwrap();
    // An 18-bit PDCP SN as an eMBB bearer has it: RLC holds a hole for up to two
    // t-Reassembly rounds (a lost retransmission), ≈ 4000 SDUs at this rate, beyond the
    // 2048-SDU window of a 12-bit PDCP SN (TS 38.323 §7.2), where the receiver could no
    // longer derive the COUNT.
    cfg.pdcp.sn_bits = 18;
    cfg.pdcp.t_reordering = celltcp_engine::SimDuration::from_ms(t_reordering_ms);
    cfg.harq = HarqConfig {
        max_transmissions: 1,
        ..cfg.harq
    };
    let cell = LteCell::new(cfg, vec![ue_at(NodeId(1), 0.5, 0.0)], 1, 0).unwrap();
    let mut h = Harness::new(cell);
    let stop = secs(0.3);
    h.drive(&[Cbr::new(NodeId(1), 1.5e9, 1500, stop)], secs(0.5));
    (
        h.cell.ue_report(NodeId(1), h.now).unwrap(),
        h.delivered_to(NodeId(1)),
    )
}
/// An NR cell's bearer is NR RLC AM (TS 38.322) under NR PDCP's reordering (TS 38.323
/// §5.2.2.2): with every block error left to RLC, RLC retransmits and hands SDUs up out of
/// SN order, and the UE still receives every packet once and in order. With a 12-bit RLC SN
/// the window of 2048 SDUs (§7.2) is 3 MB of 1500-byte packets, less than what the cell sends
/// while a hole holds TX_Next_Ack (t-Reassembly, 35 ms, then the STATUS round trip): the
/// transmitter stalls at every hole. PDCP's t-Reordering must outlast RLC's recovery: at
/// 50 ms an SDU whose retransmission was lost too (two t-Reassembly rounds) comes after the
/// receiver gave up on it and is discarded. Measured (seed 1, 0.5 s): 18-bit SN 459.7 Mbit/s
/// (19 153 SDUs, 723 RLC retransmissions, 69 lost blocks), 12-bit 252.2 Mbit/s; with
/// t-Reordering 50 ms the UE receives 18 996 of the 19 153 SDUs RLC delivered.
#[test]
fn an_nr_bearer_recovers_every_hole_in_order_and_a_12_bit_sn_stalls_it() {
    let (r18, order18) = fr2_am_run(18, 200);
    let (r12, order12) = fr2_am_run(12, 200);
    let (r50, order50) = fr2_am_run(18, 50);
    eprintln!(
        "FR2 RLC AM, HARQ maxTx 1: 18-bit {:.1} Mbit/s ({} SDUs, {} RLC retx, {} lost \
         blocks), 12-bit {:.1} Mbit/s ({} SDUs); t-Reordering 50 ms: the UE receives {} of {}",
        r18.rlc_throughput_bps / 1e6,
        r18.sdus_delivered,
        r18.rlc_retransmissions,
        r18.harq_residual_failures,
        r12.rlc_throughput_bps / 1e6,
        r12.sdus_delivered,
        order50.len(),
        r50.sdus_delivered,
    );
    for (r, order) in [(&r18, &order18), (&r12, &order12), (&r50, &order50)] {
        assert!(r.harq_residual_failures > 10, "{r:?}");
        assert!(r.rlc_retransmissions >= r.harq_residual_failures, "{r:?}");
        // In order at the UE: PDCP restored what RLC delivered out of order.
        assert!(
            order.windows(2).all(|w| w[0] < w[1]),
            "out of order at the UE"
        );
    }
    // Once each: everything RLC delivered reaches the UE when t-Reordering outlasts RLC.
    assert_eq!(order18.len() as u64, r18.sdus_delivered);
    assert_eq!(order12.len() as u64, r12.sdus_delivered);
    assert!((order50.len() as u64) < r50.sdus_delivered);
    assert!(
        r12.rlc_throughput_bps < 0.8 * r18.rlc_throughput_bps,
        "12-bit {} vs 18-bit {}",
        r12.rlc_throughput_bps,
        r18.rlc_throughput_bps
    );
}
