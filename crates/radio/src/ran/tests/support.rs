//! Layouts shared by the measurement tests ([`super::rsrq`], [`super::a3`],
//! [`super::interference`]): a UE driving between two cells, and two cells side by side, one of
//! them loaded, of LTE cells or of other cells given (such as [`nr_cell`]s). Each builds its
//! network on the [`Harness`], runs it and checks that the network recorded no error.

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::handover::{HandoverCause, HandoverRecord, HandoverResult};
use celltcp_net::packet::{FlowId, NodeId};

use super::harness::*;
use crate::cell::nr_config::NrCellConfig;
use crate::cell::LteCellConfig;
use crate::channel::{FreeSpace, PathLossModel, Position};
use crate::measurement::A3Config;
use crate::mobility::MobilityModel;
use crate::ran::{HandoverConfig, MeasurementConfig, RanUe};

/// Size of every downlink packet of these layouts, bytes.
pub const PACKET_BYTES: u32 = 1500;

/// A downlink rate more than a 50-PRB cell carries, bits per second: a cell sent it uses every
/// PRB of every TTI.
pub const SATURATING_BPS: f64 = 80e6;

/// Interval between [`PACKET_BYTES`]-byte packets at `rate_bps` bits per second.
pub fn interval_at(rate_bps: f64) -> SimDuration {
    SimDuration::from_secs_f64(f64::from(PACKET_BYTES) * 8.0 / rate_bps)
}

/// The node of the driving UE.
pub const DRIVER: NodeId = NodeId(1);
/// Speed of the driving UE, m/s (120 km/h).
pub const SPEED_MPS: f64 = 120.0 / 3.6;
/// Where the driving UE starts, x in m.
const START_X_M: f64 = 100.0;
/// How long the drive lasts (100 m to 900 m at 120 km/h), ms.
const DRIVE_MS: u64 = 24_000;

/// Cells at x = 0 and 1000 m (free space, 46 dBm each); UE [`DRIVER`] drives from x = 100 m to
/// x = 900 m at 120 km/h (24 s) with a light downlink (a packet every 20 ms), handed over on
/// Event A3 as `a3` with the UE measuring as `measurement`.
pub fn drive(a3: A3Config, measurement: MeasurementConfig) -> Harness {
    drive_between(vec![cell(0, 0.0), cell(1, 1000.0)], a3, measurement)
}

/// The [`drive`] between `cells` (two, at x = 0 and 1000 m).
pub fn drive_between(
    cells: Vec<LteCellConfig>,
    a3: A3Config,
    measurement: MeasurementConfig,
) -> Harness {
    let ue = RanUe {
        node: DRIVER,
        serving: 0,
        downlink_loss: None,
        mobility: MobilityModel::Linear {
            start: Position::new(START_X_M, 0.0),
            velocity_mps: (SPEED_MPS, 0.0),
            depart: ms(0),
        },
    };
    let mut cfg = ran_config(
        cells,
        vec![ue],
        HandoverConfig {
            a3: Some(a3),
            ..HandoverConfig::default()
        },
    );
    cfg.measurement = measurement;
    let mut h = Harness::build(cfg);
    h.cbr(
        DRIVER,
        FlowId(0),
        PACKET_BYTES,
        SimDuration::from_ms(20),
        ms(0),
        ms(DRIVE_MS),
    );
    h.run_until(ms(DRIVE_MS));
    assert!(h.ran.errors().is_empty(), "{:?}", h.ran.errors());
    h
}

/// The one handover of a [`drive`]: triggered by Event A3, completed, from cell 0 to cell 1.
pub fn the_one_a3_handover(h: &Harness) -> HandoverRecord {
    let records = h.records();
    assert_eq!(records.len(), 1, "{records:?}");
    let r = records[0].clone();
    assert_eq!(r.cause, HandoverCause::A3);
    assert_eq!(r.result, HandoverResult::Completed);
    assert_eq!((r.source, r.target), (ENB0, NodeId(ENB0.0 + 1)));
    r
}

/// An NR cell of [`cell`]'s position and node: 3.5 GHz, μ = 1 (30 kHz), 20 MHz, so 51 RBs
/// (TS 38.101-1 Table 5.3.2-1), FDD, on the LTE link budget (free space, 46 dBm).
pub fn nr_cell(i: usize, x_m: f64) -> LteCellConfig {
    LteCellConfig {
        carrier_hz: 3.5e9,
        pathloss: PathLossModel::FreeSpace(FreeSpace::new(3.5e9).expect("a valid carrier")),
        rlc: crate::cell::RlcModeConfig::cell_default(crate::cell::Rat::Nr),
        nr: Some(NrCellConfig {
            numerology: 1,
            bandwidth_mhz: 20,
            ..NrCellConfig::default()
        }),
        ..cell(i, x_m)
    }
}

/// x of the driving UE at `t`, m.
pub fn x_at(t: SimTime) -> f64 {
    START_X_M + SPEED_MPS * t.as_secs_f64()
}

/// Equal cells at 0 and 500 m; UE 1 at 200 m in cell 0 without traffic, UE 2 at 480 m in
/// cell 1 with `cell1_rate_bps` bits per second of downlink (none at 0) until `until`, when the
/// run stops. `coupled` couples the cells' interference to their PRB use.
pub fn loaded_neighbour(cell1_rate_bps: f64, coupled: bool, until: SimTime) -> Harness {
    loaded_neighbour_between(
        vec![cell(0, 0.0), cell(1, 500.0)],
        cell1_rate_bps,
        coupled,
        until,
    )
}

/// The [`loaded_neighbour`] layout between `cells` (two, at x = 0 and 500 m).
pub fn loaded_neighbour_between(
    cells: Vec<LteCellConfig>,
    cell1_rate_bps: f64,
    coupled: bool,
    until: SimTime,
) -> Harness {
    let mut cfg = ran_config(
        cells,
        vec![fixed_ue(NodeId(1), 0, 200.0), fixed_ue(NodeId(2), 1, 480.0)],
        HandoverConfig::default(),
    );
    cfg.coupled_interference = coupled;
    let mut h = Harness::build(cfg);
    if cell1_rate_bps > 0.0 {
        h.cbr(
            NodeId(2),
            FlowId(0),
            PACKET_BYTES,
            interval_at(cell1_rate_bps),
            ms(0),
            until,
        );
    }
    h.run_until(until);
    assert!(h.ran.errors().is_empty(), "{:?}", h.ran.errors());
    h
}
