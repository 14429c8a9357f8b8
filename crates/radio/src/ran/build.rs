//! Building a radio access network from its configuration: validation at the boundary (every
//! error names its key), the cells with every UE in each, and the per-UE state.

use std::collections::VecDeque;

use celltcp_engine::{RngStream, SimDuration, SimTime};
use celltcp_net::packet::NodeId;

use crate::cell::{DownlinkLoss, Interferer, LteCell, UeConfig};
use crate::measurement::{check_error_std_db, A3Monitor, L3Filter, RlfMonitor};
use crate::mobility::Mobility;
use crate::pdcp::{PdcpConfig, PdcpRx};

use super::conditional::Conditional;
use super::dual_connectivity::{MAX_REPORT_PERIOD, MIN_REPORT_PERIOD, REPORT_PERIOD_RANGE};
use super::measure::Coupling;
use super::steps::{Step, StepQueue};
use super::timeline::Timeline;
use super::ue::{ReceivedCounts, UeRan};
use super::{LteRan, RanConfig, RanError};

impl LteRan {
    /// The network of `cfg`; random streams from (`seed`, `run`): each cell's as a plain
    /// cell's, plus `ran/ue/NODE/mobility`, `ran/ue/NODE/measurement`,
    /// `ran/ue/NODE/measurement/rsrq`, `ran/prediction` and, for a UE with receive errors,
    /// `ran/ue/NODE/downlink_loss`.
    pub fn new(cfg: RanConfig, seed: u64, run: u64) -> Result<LteRan, RanError> {
        validate(&cfg)?;
        let RanConfig {
            name,
            mut cells,
            ues,
            gateway,
            handover,
            measurement,
            coupled_interference,
            dual_connectivity,
        } = cfg;

        // Mobility first: the cells are built with every UE at its position at t = 0.
        let mut mobilities = Vec::with_capacity(ues.len());
        let mut ue_configs = Vec::with_capacity(ues.len());
        for (i, ue) in ues.iter().enumerate() {
            let rng = RngStream::new(seed, run, &format!("ran/ue/{}/mobility", ue.node));
            let mut m = Mobility::new(ue.mobility.clone(), rng)
                .map_err(|source| RanError::Mobility { index: i, source })?;
            ue_configs.push(UeConfig {
                node: ue.node,
                position: m.position_at(SimTime::ZERO),
                speed_mps: m.speed_mps_at(SimTime::ZERO),
            });
            mobilities.push(m);
        }

        let coupling = coupled_interference.then(|| {
            let configured = cells
                .iter()
                .map(|c| c.interferers.iter().map(|i| i.load).collect())
                .collect();
            // Every other cell interferes, starting unloaded (nothing was sent before t = 0).
            let others: Vec<Interferer> = cells
                .iter()
                .map(|c| Interferer {
                    position: c.position,
                    tx_power_dbm: c.keys.tx_power_dbm,
                    load: 0.0,
                })
                .collect();
            for (c, cell) in cells.iter_mut().enumerate() {
                let rest = others.iter().enumerate().filter(|&(o, _)| o != c);
                cell.interferers.extend(rest.map(|(_, &i)| i));
            }
            Coupling { configured }
        });

        // The UE's PDCP receiver: as a plain cell's (delivering as RLC delivers) outside
        // handovers, reordering during them if configured.
        let pdcp = PdcpConfig {
            reordering: false,
            ..cells[0].pdcp
        };
        let pdcp_reordering = PdcpConfig {
            reordering: true,
            ..pdcp
        };
        // Two legs feeding one receiver (dual connectivity), or NR's RLC, which delivers out
        // of SN order (TS 38.322 §5.2.3.2.3): the receiver reorders all the time, as NR PDCP
        // does (TS 38.323 §5.2.2.2).
        let pdcp_always_reorders =
            dual_connectivity.is_some() || cells.iter().any(|c| c.rlc.is_nr());
        let enbs: Vec<NodeId> = cells.iter().map(|c| c.enb).collect();
        let mut built = Vec::with_capacity(cells.len());
        for (i, cell) in cells.into_iter().enumerate() {
            // With dual connectivity the SN serves every UE too (the master is `serving`).
            let secondary = dual_connectivity.map(|d| d.secondary);
            let connected: Vec<bool> = ues
                .iter()
                .map(|u| u.serving == i || secondary == Some(i))
                .collect();
            let name = cell.name.clone();
            let lte = LteCell::new_in_ran(cell, ue_configs.clone(), &connected, seed, run)
                .map_err(|source| RanError::Cell {
                    index: i,
                    name,
                    source,
                })?;
            built.push(lte);
        }

        let filter = L3Filter::with_sample_period(measurement.filter_k, measurement.period)
            .map_err(|source| RanError::Measurement {
                section: "measurement",
                source,
            })?;
        let a3 = handover
            .a3
            .map(A3Monitor::new)
            .transpose()
            .map_err(|source| RanError::Measurement {
                section: "handover.a3",
                source,
            })?;
        let rlf = handover
            .rlf
            .map(RlfMonitor::new)
            .transpose()
            .map_err(|source| RanError::Measurement {
                section: "handover.rlf",
                source,
            })?;
        let cho = match &handover.procedure {
            super::HandoverProcedure::Conditional(c) => Some(
                Conditional::new(c)
                    .map_err(|(section, source)| RanError::Measurement { section, source })?,
            ),
            _ => None,
        };
        let n_cells = built.len();
        let mut states = Vec::with_capacity(ues.len());
        for ((ue, mobility), ue_cfg) in ues.iter().zip(mobilities).zip(&ue_configs) {
            let mut ever_served = vec![false; n_cells];
            ever_served[ue.serving] = true;
            states.push(UeRan {
                node: ue.node,
                serving: ue.serving,
                attached: true,
                sgw_cell: ue.serving,
                next_dl_count: 0,
                ever_served,
                mobility,
                position: ue_cfg.position,
                speed_mps: ue_cfg.speed_mps,
                measurement_rng: RngStream::new(
                    seed,
                    run,
                    &format!("ran/ue/{}/measurement", ue.node),
                ),
                l3: vec![filter.clone(); n_cells],
                rsrq_rng: RngStream::new(
                    seed,
                    run,
                    &format!("ran/ue/{}/measurement/rsrq", ue.node),
                ),
                l3_rsrq: vec![filter.clone(); n_cells],
                a3: a3.clone(),
                cho: cho.clone(),
                cancels_in_flight: Vec::new(),
                rlf: rlf.clone(),
                pdcp: PdcpRx::new(if pdcp_always_reorders {
                    pdcp_reordering
                } else {
                    pdcp
                })
                .map_err(|source| RanError::Pdcp { source })?,
                pdcp_reordering: pdcp_always_reorders,
                received: ReceivedCounts::new(pdcp.sn_bits),
                uplink_hold: VecDeque::new(),
                ho: None,
                latest_record: None,
                last_commanded: None,
                max_uid: Default::default(),
                downlink_loss: ue
                    .downlink_loss
                    .clone()
                    .map(|m| DownlinkLoss::new(m, seed, run, &format!("ran/ue/{}", ue.node))),
            });
        }
        let mut ue_index: Vec<(NodeId, usize)> = states
            .iter()
            .enumerate()
            .map(|(i, u)| (u.node, i))
            .collect();
        ue_index.sort_unstable();

        let pdcp_reordering_cfg = handover.reordering.then_some(pdcp_reordering);
        let mut steps = StepQueue::default();
        for m in &handover.manual {
            if let Some(&(_, u)) = ue_index.iter().find(|&&(n, _)| n == m.ue) {
                steps.schedule(m.at, u, None, Step::ManualDecision { target: m.target });
            }
        }
        // EN-DC with delivery status reports: each UE's first one period after the start.
        if let Some(p) = dual_connectivity
            .map(|d| d.report_period)
            .filter(|p| *p > SimDuration::ZERO)
        {
            for u in 0..states.len() {
                let at = SimTime::ZERO + p;
                steps.schedule(at, u, None, Step::DualConnectivityStatus);
            }
        }
        Ok(LteRan {
            name,
            cells: built,
            enbs,
            ues: states,
            ue_index,
            gateway,
            ho_cfg: handover,
            meas_cfg: measurement,
            coupling,
            prbs_at_last_tick: vec![0; n_cells],
            cell_loads: vec![0.0; n_cells],
            steps,
            next_tick: SimTime::ZERO,
            timeline: Timeline::default(),
            pdcp_cfg: pdcp,
            pdcp_reordering_cfg,
            pdcp_always_reorders,
            prediction_rng: RngStream::new(seed, run, "ran/prediction"),
            radio_link_failures: 0,
            totals_cho: Default::default(),
            dc: dual_connectivity
                .map(|d| super::dual_connectivity::DualConnectivity::new(d, ues.len())),
            sdus: Vec::new(),
            neighbours: Vec::new(),
            signals: Vec::new(),
            rssi_terms: Vec::new(),
            errors: Vec::new(),
        })
    }
}

/// Checks what the cells and the measurement types do not check themselves.
fn validate(cfg: &RanConfig) -> Result<(), RanError> {
    let n = cfg.cells.len();
    if n == 0 {
        return Err(RanError::invalid("cells", "no cell; expected at least one"));
    }
    let q = cfg.handover.q_rxlevmin_dbm;
    if !(-140.0..=-44.0).contains(&q) {
        return Err(RanError::invalid(
            "handover.q_rxlevmin_dbm",
            format!("{q} dBm is not allowed; expected -140 to -44 dBm (TS 36.331 Q-RxLevMin)"),
        ));
    }
    for (i, c) in cfg.cells.iter().enumerate() {
        if let Some(j) = cfg.cells[..i].iter().position(|d| d.enb == c.enb) {
            return Err(RanError::invalid(
                format!("cells[{i}].enb"),
                format!("node {} is already the eNB of cells[{j}]", c.enb),
            ));
        }
        if c.enb == cfg.gateway {
            return Err(RanError::invalid(
                format!("cells[{i}].enb"),
                format!("node {} is the gateway; expected a node of its own", c.enb),
            ));
        }
        // The UE's receive errors are the UE's, applied above the cells (its `RanUe`); a
        // cell's map would be silently unused.
        if let Some(node) = c.downlink_loss.keys().next() {
            return Err(RanError::invalid(
                format!("cells[{i}].downlink_loss"),
                format!(
                    "a model for node {node}; expected none in a radio access network (a UE's \
                     receive errors are its own: ues[..].downlink_loss)"
                ),
            ));
        }
        // The UE's PDCP receiver and its COUNT continue across cells (36.323 §5.1.2.1.2):
        // every cell must number with the same SN length.
        let first = cfg.cells[0].pdcp.sn_bits;
        if c.pdcp.sn_bits != first {
            return Err(RanError::invalid(
                format!("cells[{i}].pdcp.sn_bits"),
                format!(
                    "{} differs from cells[0] ({first}); expected one PDCP SN length in the \
                     network",
                    c.pdcp.sn_bits
                ),
            ));
        }
    }
    for (i, ue) in cfg.ues.iter().enumerate() {
        let key = |field: &str| format!("ues[{i}].{field}");
        if cfg.ues[..i].iter().any(|u| u.node == ue.node) {
            return Err(RanError::invalid(
                key("node"),
                format!("node {} appears twice", ue.node),
            ));
        }
        if ue.node == cfg.gateway || cfg.cells.iter().any(|c| c.enb == ue.node) {
            return Err(RanError::invalid(
                key("node"),
                format!("node {} is an eNB or the gateway", ue.node),
            ));
        }
        if ue.serving >= n {
            return Err(RanError::invalid(
                key("serving"),
                format!("{} is not a cell ({n} cells)", ue.serving),
            ));
        }
    }
    let ho = &cfg.handover;
    for (i, m) in ho.manual.iter().enumerate() {
        if m.target >= n {
            return Err(RanError::invalid(
                format!("handover.manual[{i}].target"),
                format!("{} is not a cell ({n} cells)", m.target),
            ));
        }
        if !cfg.ues.iter().any(|u| u.node == m.ue) {
            return Err(RanError::invalid(
                format!("handover.manual[{i}].ue"),
                format!("node {} is not a UE of the network", m.ue),
            ));
        }
    }
    if ho.max_ues_per_cell == Some(0) {
        return Err(RanError::invalid(
            "handover.max_ues_per_cell",
            "0; expected at least 1 (or no limit)",
        ));
    }
    validate_procedure(ho)?;
    if let Some(dc) = &cfg.dual_connectivity {
        validate_dual_connectivity(cfg, dc)?;
    }
    if cfg.measurement.period.as_ns() == 0 {
        return Err(RanError::invalid(
            "measurement.period",
            "0 ms; expected a period > 0",
        ));
    }
    check_error_std_db(cfg.measurement.error_std_db).map_err(|source| RanError::Measurement {
        section: "measurement",
        source,
    })?;
    Ok(())
}

/// The combinations of procedure and data path that make sense (modules `daps`,
/// `conditional`). CHO runs `forward` or `discard` at the HANDOVER SUCCESS (the early path
/// switches need a command), with its own conditions instead of `a3`. DAPS forwards
/// the source's data and keeps the path until the UE has accessed the target, so it needs
/// `forward` (`discard` would lose what the source has not delivered; `fast_path_switch` and
/// `predicted` move the path before the UE can be served there, the break DAPS avoids) and the
/// UE's PDCP reordering (two legs feed one receiver).
fn validate_procedure(ho: &super::HandoverConfig) -> Result<(), RanError> {
    use super::HandoverProcedure as P;
    match ho.procedure {
        P::Classic => Ok(()),
        P::Daps(_) if ho.policy != celltcp_net::handover::HandoverPolicy::Forward => {
            Err(RanError::invalid(
                "handover.policy",
                format!(
                    "\"{}\" with procedure \"daps\"; expected \"forward\" (DAPS forwards the \
                     source's data and switches the path after the UE's access)",
                    ho.policy.as_str()
                ),
            ))
        }
        P::Daps(_) if !ho.reordering => Err(RanError::invalid(
            "handover.reordering",
            "false with procedure \"daps\"; expected true (the UE's PDCP reorders what its two \
             legs deliver)",
        )),
        P::Daps(_) => Ok(()),
        P::Conditional(c) => {
            validate_conditional(&c)?;
            if ho.policy.early_path_switch() {
                return Err(RanError::invalid(
                    "handover.policy",
                    format!(
                        "\"{}\" with procedure \"conditional\"; expected \"forward\" or \
                         \"discard\" (the source does not know when, or towards which \
                         candidate, the UE executes: it has no handover command to switch the \
                         path with)",
                        ho.policy.as_str()
                    ),
                ));
            }
            if ho.a3.is_some() {
                return Err(RanError::invalid(
                    "handover.a3",
                    "given with procedure \"conditional\"; expected none (its preparation \
                     and execution conditions trigger it)",
                ));
            }
            Ok(())
        }
    }
}

/// CHO: both conditions valid, the preparation no later than the execution (a smaller or equal
/// offset + hysteresis and time to trigger), at least one candidate.
fn validate_conditional(c: &super::ConditionalConfig) -> Result<(), RanError> {
    for (section, a3) in [
        ("handover.conditional.preparation", &c.preparation),
        ("handover.conditional.execution", &c.execution),
    ] {
        a3.validate()
            .map_err(|source| RanError::Measurement { section, source })?;
    }
    let (p, e) = (&c.preparation, &c.execution);
    if p.offset_db + p.hysteresis_db > e.offset_db + e.hysteresis_db {
        return Err(RanError::invalid(
            "handover.conditional.preparation.offset_db",
            format!(
                "offset + hysteresis {} dB is above the execution's {} dB; expected the \
                 preparation to hold no later than the execution",
                p.offset_db + p.hysteresis_db,
                e.offset_db + e.hysteresis_db
            ),
        ));
    }
    if p.time_to_trigger > e.time_to_trigger {
        return Err(RanError::invalid(
            "handover.conditional.preparation.time_to_trigger",
            format!(
                "{} ms is longer than the execution's {} ms; expected the preparation to hold \
                 no later than the execution",
                p.time_to_trigger.as_ns() / 1_000_000,
                e.time_to_trigger.as_ns() / 1_000_000
            ),
        ));
    }
    if c.max_candidates == 0 {
        return Err(RanError::invalid(
            "handover.conditional.max_candidates",
            "0; expected 1 to 8 (maxNrofCondCells)",
        ));
    }
    if c.max_candidates > 8 {
        return Err(RanError::invalid(
            "handover.conditional.max_candidates",
            format!("{}; expected 1 to 8 (maxNrofCondCells)", c.max_candidates),
        ));
    }
    Ok(())
}

/// EN-DC: an LTE master and an NR secondary of the network, every UE served by the master, a
/// split share in 0..=1, thresholds in order, and no handover of either leg (the split bearer
/// and a handover's data path are not combined in the model).
fn validate_dual_connectivity(
    cfg: &RanConfig,
    dc: &super::DualConnectivityConfig,
) -> Result<(), RanError> {
    let n = cfg.cells.len();
    let key = |k: &str| format!("dual_connectivity.{k}");
    for (k, c) in [("master", dc.master), ("secondary", dc.secondary)] {
        if c >= n {
            return Err(RanError::invalid(
                key(k),
                format!("{c} is not a cell ({n} cells)"),
            ));
        }
    }
    if cfg.cells[dc.master].nr.is_some() {
        return Err(RanError::invalid(
            key("master"),
            format!(
                "cell '{}' is an NR cell; expected an LTE cell (the EN-DC master is an eNB)",
                cfg.cells[dc.master].name
            ),
        ));
    }
    if cfg.cells[dc.secondary].nr.is_none() {
        return Err(RanError::invalid(
            key("secondary"),
            format!(
                "cell '{}' is an LTE cell; expected an NR cell (the EN-DC secondary is a gNB)",
                cfg.cells[dc.secondary].name
            ),
        ));
    }
    if let super::SplitPolicy::SplitRatio { nr_share } = dc.policy {
        if !(0.0..=1.0).contains(&nr_share) {
            return Err(RanError::invalid(
                key("ratio"),
                format!("{nr_share} is not allowed; expected the fraction over NR, 0 to 1"),
            ));
        }
    }
    let period = dc.report_period;
    if period != SimDuration::ZERO && !(MIN_REPORT_PERIOD..=MAX_REPORT_PERIOD).contains(&period) {
        return Err(RanError::invalid(
            key("flow_control.report_period"),
            format!("{period} is not allowed; expected {}", REPORT_PERIOD_RANGE),
        ));
    }
    if !(dc.q_out_db.is_finite() && dc.q_in_db.is_finite() && dc.q_out_db <= dc.q_in_db) {
        return Err(RanError::invalid(
            key("q_in_db"),
            format!(
                "Q_out {} dB, Q_in {} dB; expected finite thresholds with q_out_db ≤ q_in_db",
                dc.q_out_db, dc.q_in_db
            ),
        ));
    }
    if let Some((i, _)) = cfg
        .ues
        .iter()
        .enumerate()
        .find(|(_, u)| u.serving != dc.master)
    {
        return Err(RanError::invalid(
            format!("ues[{i}].serving"),
            format!(
                "{}; expected the EN-DC master {} (every UE starts on the master)",
                cfg.ues[i].serving, dc.master
            ),
        ));
    }
    let ho = &cfg.handover;
    let refused = if ho.a3.is_some() {
        Some("handover.a3")
    } else if !ho.manual.is_empty() {
        Some("handover.manual")
    } else if ho.rlf.is_some() {
        Some("handover.rlf")
    } else if ho.procedure != super::HandoverProcedure::Classic {
        Some("handover.procedure")
    } else {
        None
    };
    match refused {
        Some(k) => Err(RanError::invalid(
            k,
            "given with dual_connectivity; expected none (no handover of either EN-DC leg is \
             modelled: the split bearer and a handover's data path are not combined)",
        )),
        None => Ok(()),
    }
}
