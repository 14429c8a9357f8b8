//! EN-DC with a split bearer (`ran/dual_connectivity.rs`): an LTE master (cell 0) and an NR
//! secondary (cell 1, 3.5 GHz, μ = 1, 20 MHz) whose SINR follows a trace, one UE, a CBR
//! downlink through the harness's S-GW (10 ms S1) and X2-U (8 ms).

use std::sync::Arc;

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::packet::{FlowId, NodeId};

use super::harness::*;
use crate::cell::nr_channel::{NrChannelConfig, NrChannelModel};
use crate::cell::nr_config::NrCellConfig;
use crate::cell::LteCellConfig;
use crate::cell::{Rat, RlcModeConfig};
use crate::nr::sinr_trace::{SinrInterpolation, SinrTrace};
use crate::ran::{DualConnectivityConfig, HandoverConfig, SplitPolicy};
use crate::rlc::BufferLimit;
use celltcp_net::medium::Medium;

const UE: NodeId = NodeId(1);

/// An NR cell whose UE's SINR is 20 dB, except −20 dB from 0.3 s to 0.6 s.
fn nr_cell_with_outage() -> LteCellConfig {
    let trace = "time_s,sinr_db\n0,20\n0.3,-20\n0.6,20\n";
    let samples = SinrTrace::parse(trace, SinrInterpolation::Hold).unwrap();
    LteCellConfig {
        carrier_hz: 3.5e9,
        rlc: RlcModeConfig::cell_default(Rat::Nr),
        nr: Some(NrCellConfig {
            numerology: 1,
            bandwidth_mhz: 20,
            channel: Some(NrChannelConfig {
                model: NrChannelModel::Trace,
                trace_samples: Some(Arc::new(samples)),
                ..NrChannelConfig::default()
            }),
            ..NrCellConfig::default()
        }),
        ..cell(1, 0.0)
    }
}

fn run(policy: SplitPolicy) -> Harness {
    let mut cfg = ran_config(
        vec![cell(0, 0.0), nr_cell_with_outage()],
        vec![fixed_ue(UE, 0, 100.0)],
        HandoverConfig::default(),
    );
    cfg.dual_connectivity = Some(DualConnectivityConfig::new(0, 1, policy));
    let mut h = Harness::build(cfg);
    // 1000-byte packets every 1 ms (8 Mb/s) for 1 s: either leg carries them.
    h.cbr(
        UE,
        FlowId(0),
        1000,
        SimDuration::from_ms(1),
        ms(0),
        ms(1000),
    );
    h.run_until(ms(1300));
    h
}

fn figure(h: &Harness, name: &str) -> f64 {
    let report = h.ran.report(h.now);
    report
        .iter()
        .find(|(k, _)| k == name)
        .unwrap_or_else(|| panic!("no {name} in {report:?}"))
        .1
}

/// split_ratio 0.5: every other PDU over NR until the outage (detected at the 0.32 s tick,
/// the first after 0.3 s, the switch 10 ms later), then all over LTE until the NR leg has
/// been above Q_in for 100 ms (0.72 s tick; switch at 0.73 s), then every other one again.
/// Every packet reaches the UE once and in order. Measured: 700 PDUs over LTE, 300 over NR.
#[test]
fn split_ratio_halves_the_pdus_outside_the_outage_and_delivers_each_once_in_order() {
    let h = run(SplitPolicy::SplitRatio { nr_share: 0.5 });
    let sent = h.sent_to(UE);
    assert_eq!(sent.len(), 1000);
    assert_eq!(h.delivered_to(UE), sent, "every packet once, in order");
    let (lte, nr) = (figure(&h, "endc_pdus_lte"), figure(&h, "endc_pdus_nr"));
    assert_eq!(lte + nr, 1000.0);
    // About 0.41 s of the 1 s all over LTE, the other 0.59 s halved.
    assert!((680.0..=720.0).contains(&lte), "LTE {lte}, NR {nr}");
    assert_eq!(figure(&h, "endc_switches_to_lte"), 1.0);
    assert_eq!(figure(&h, "endc_switches_to_nr"), 1.0);
    assert_eq!(figure(&h, "endc_pdcp_duplicates"), 0.0);
    assert_eq!(figure(&h, "endc_pdcp_late"), 0.0);
}

/// nr_only: everything over NR but during the outage; the PDUs stuck in the NR leg's RLC at
/// the switch are sent again over LTE (data recovery) and the UE still gets every packet
/// once, in order. Measured: 32 PDUs recovered at the switch to LTE, none moved back at the
/// switch to NR (the LTE leg had drained); 600 over NR, 400 over LTE.
#[test]
fn nr_only_switches_to_lte_on_the_outage_and_recovers_the_nr_legs_pdus() {
    let h = run(SplitPolicy::NrOnly);
    let sent = h.sent_to(UE);
    assert_eq!(h.delivered_to(UE), sent, "every packet once, in order");
    assert_eq!(figure(&h, "endc_switches_to_lte"), 1.0);
    assert_eq!(figure(&h, "endc_switches_to_nr"), 1.0);
    // The ~30 packets the MN sent over NR from the outage to its switch, 10 ms after the
    // 0.32 s tick.
    let recovered = figure(&h, "endc_pdus_recovered");
    assert!((25.0..=40.0).contains(&recovered), "{recovered}");
    let lte = figure(&h, "endc_pdus_lte");
    assert!((380.0..=440.0).contains(&lte), "LTE {lte}");
    assert_eq!(figure(&h, "endc_pdcp_late"), 0.0);
    // The outage's data came over LTE after the NR leg had taken them: nothing in the UE's
    // order shows it.
    assert!(h.dropped.is_empty(), "{:?}", h.dropped);
}

#[test]
fn configuration_errors_name_the_key() {
    let build = |dc: DualConnectivityConfig, cells: Vec<LteCellConfig>| {
        let mut cfg = ran_config(
            cells,
            vec![fixed_ue(UE, 0, 100.0)],
            HandoverConfig::default(),
        );
        cfg.dual_connectivity = Some(dc);
        crate::ran::LteRan::new(cfg, 1, 0).unwrap_err().to_string()
    };
    let cells = || vec![cell(0, 0.0), nr_cell_with_outage()];
    let nr_only = DualConnectivityConfig::new(0, 1, SplitPolicy::NrOnly);
    assert!(build(
        DualConnectivityConfig {
            master: 1,
            ..nr_only
        },
        cells()
    )
    .starts_with("dual_connectivity.master: cell 'c1' is an NR cell"));
    assert!(build(nr_only, vec![cell(0, 0.0), cell(1, 0.0)])
        .starts_with("dual_connectivity.secondary: cell 'c1' is an LTE cell"));
    let ratio = SplitPolicy::SplitRatio { nr_share: -0.1 };
    assert!(build(DualConnectivityConfig::new(0, 1, ratio), cells())
        .starts_with("dual_connectivity.ratio: -0.1 is not allowed"));
    assert_eq!(
        build(
            DualConnectivityConfig {
                secondary: 2,
                ..nr_only
            },
            cells()
        ),
        "dual_connectivity.secondary: 2 is not a cell (2 cells)"
    );
}

/// An NR cell at 20 dB throughout whose RLC buffer takes `sdus` SDUs.
fn nr_cell_with_buffer(sdus: usize) -> LteCellConfig {
    let trace = "time_s,sinr_db\n0,20\n";
    let samples = SinrTrace::parse(trace, SinrInterpolation::Hold).unwrap();
    let mut c = nr_cell_with_outage();
    if let Some(nr) = c.nr.as_mut() {
        if let Some(ch) = nr.channel.as_mut() {
            ch.trace_samples = Some(Arc::new(samples));
        }
    }
    c.rlc = c.rlc.with_tx_buffer(BufferLimit::Sdus(sdus));
    c
}

/// Everything over NR that the SN has room for (split_ratio 1: the rest over LTE), with a
/// 20-SDU SN buffer, X2-U flow control by reports every `period` (0: the room known at once),
/// and a 160 Mb/s downlink (1000 bytes every 50 µs) from 0 to 1 s, more than either leg.
fn overloaded(period: SimDuration, until: SimTime) -> Harness {
    let mut cfg = ran_config(
        vec![cell(0, 0.0), nr_cell_with_buffer(20)],
        vec![fixed_ue(UE, 0, 100.0)],
        HandoverConfig::default(),
    );
    cfg.dual_connectivity = Some(DualConnectivityConfig {
        report_period: period,
        ..DualConnectivityConfig::new(0, 1, SplitPolicy::SplitRatio { nr_share: 1.0 })
    });
    let mut h = Harness::build(cfg);
    h.cbr(
        UE,
        FlowId(0),
        1000,
        SimDuration::from_us(50),
        ms(0),
        ms(1000),
    );
    h.run_until(until);
    h
}

/// TS 38.425 §5.4.2.1: the MN should not send more than the desired buffer size. With a
/// report every 50 ms the first report reaches the MN at 58 ms (50 ms + the harness's 8 ms
/// X2-U), so until then the MN sends the SN exactly the room of its empty buffer, 20 PDUs,
/// and the rest over LTE. Known at once, the room lets the MN send as the SN drains:
/// measured 116 PDUs over NR by 55 ms.
#[test]
fn before_the_first_report_the_mn_sends_no_more_than_the_empty_buffers_room() {
    let h = overloaded(SimDuration::from_ms(50), ms(55));
    assert_eq!(figure(&h, "endc_pdus_nr"), 20.0);
    let at_once = overloaded(SimDuration::ZERO, ms(55));
    let nr = figure(&at_once, "endc_pdus_nr");
    assert!(nr > 100.0, "known at once: {nr} PDUs over NR");
}

/// Reports every 10 or 50 ms, each stale by up to a period plus 8 ms of X2-U: the MN counts what
/// it sent after the frames a report covers against the reported room, so the SN's RLC never
/// has to refuse a PDU (`endc_refused_nr` counts its refusals; with split_ratio the MN drops
/// none itself). The price is the NR leg's share: the 20-PDU room is refilled once a report
/// round, so the leg carries about 20 PDUs per period + 8 ms. Measured over 1.1 s: 0 refused
/// in each case; 2,360 PDUs over NR with the room known at once, 1,012 with 10 ms reports
/// (20 / 18 ms ≈ 1.1 a ms), 420 with 50 ms (20 / 58 ms ≈ 0.34 a ms).
#[test]
fn following_the_reports_the_sns_rlc_never_refuses_a_pdu() {
    let nr = |period: u64| {
        let h = overloaded(SimDuration::from_ms(period), ms(1100));
        assert_eq!(figure(&h, "endc_refused_nr"), 0.0, "period {period} ms");
        figure(&h, "endc_pdus_nr")
    };
    let (at_once, p10, p50) = (nr(0), nr(10), nr(50));
    assert!(at_once > 2000.0, "known at once: {at_once}");
    assert!((800.0..1200.0).contains(&p10), "10 ms: {p10}");
    assert!((300.0..500.0).contains(&p50), "50 ms: {p50}");
}

#[test]
fn a_report_period_out_of_range_is_refused_with_its_key() {
    let build = |period: SimDuration| {
        let mut cfg = ran_config(
            vec![cell(0, 0.0), nr_cell_with_outage()],
            vec![fixed_ue(UE, 0, 100.0)],
            HandoverConfig::default(),
        );
        cfg.dual_connectivity = Some(DualConnectivityConfig {
            report_period: period,
            ..DualConnectivityConfig::new(0, 1, SplitPolicy::NrOnly)
        });
        crate::ran::LteRan::new(cfg, 1, 0)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    for bad in [SimDuration::from_us(500), SimDuration::from_ms(1001)] {
        let e = build(bad).unwrap_err();
        assert!(
            e.starts_with("dual_connectivity.flow_control.report_period: "),
            "{e}"
        );
    }
    for good in [
        SimDuration::ZERO,
        SimDuration::from_ms(1),
        SimDuration::from_ms(1000),
    ] {
        assert_eq!(build(good), Ok(()));
    }
}
