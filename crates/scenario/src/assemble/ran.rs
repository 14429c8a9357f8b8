//! `[ran]` onto the radio crate's `RanConfig`: every cell of the scenario in one radio access
//! network medium (`celltcp_radio::ran::LteRan`), added to the world as `ran`.
//!
//! Cells keep their names and their order (name order), so `ran.handover.manual[i].target`
//! maps to the cell's rank; each UE starts served by the cell that lists it, at its position
//! there, and moves per `[mobility.UE]` (standing still without an entry). A UE's downlink loss
//! model (its own, or the default of the cell that lists it) becomes the UE's in the network,
//! applied above the cells whichever serves it.

use celltcp_engine::RngStream;
use celltcp_engine::SimTime;
use celltcp_net::forwarding::ForwardingConfig;
use celltcp_net::packet::NodeId;
use celltcp_net::queue::QueueLimit;
use celltcp_net::world::WorldBuilder;
use celltcp_radio::cell::LteCellConfig;
use celltcp_radio::channel::{LosCondition, PathLoss, Position};
use celltcp_radio::measurement::{A3Config, MeasurementError, RlfConfig};
use celltcp_radio::mobility::{Mobility, MobilityModel};
use celltcp_radio::ran::{
    HandoverConfig, HandoverLatencies, LteRan, ManualHandover, MeasurementConfig, RanConfig,
    RanError, RanUe, TriggerQuantity,
};
use celltcp_radio::rlc::BufferLimit;

use super::cells::lte_cell_config;
use crate::config::cells::Rat;
use crate::config::handover::HandoverSpec;
use crate::config::ran::{RanSpec, TriggerQuantityKind};
use crate::error::{ScenarioError, ScenarioWarning};
use crate::Scenario;

/// The medium's name in summaries and its random-stream path.
pub(crate) const RAN_NAME: &str = "ran";

/// Builds the network and adds it to the world.
pub(super) fn add_ran(
    b: &mut WorldBuilder,
    scenario: &Scenario,
    ran: &RanSpec,
    seed: u64,
    run: u64,
    node: &impl Fn(&str) -> NodeId,
    captures: &super::CaptureRequest,
) -> Result<(), crate::run::RunError> {
    let cfg = ran_config(scenario, ran, node)?;
    // Every cell has a context for every UE of the network, in the network's order: cells in
    // name order, each one's UEs in name order (`ran_config`).
    let ue_names: Vec<String> = scenario
        .cells
        .values()
        .flat_map(|c| c.file.ues.keys().cloned())
        .collect();
    let cell_params: Vec<(u8, celltcp_radio::cell::RlcModeConfig)> = cfg
        .cells
        .iter()
        .map(|c| (c.harq.n_processes, c.rlc))
        .collect();
    // Every eNB of the network forwards over X2-U from its own buffer at its own pace.
    let forwarding = ForwardingConfig {
        rate_bps: ran.handover.forwarding_rate,
        capacity: Some(ran.handover.forwarding_buffer),
    };
    for cell in &cfg.cells {
        b.forwarding(cell.enb, forwarding);
    }
    let mut medium = LteRan::new(cfg, seed, run).map_err(ran_error)?;
    for (i, (name, cell)) in scenario.cells.iter().enumerate() {
        let ip = captures.radio_file(name, ".pcapng")?;
        // The mac-lte framing numbers subframes; an NR cell's slots have none (IP capture only),
        // as for a cell on its own (`cells::add_cells`).
        let mac = match cell.file.rat {
            Rat::Lte => captures.radio_file(name, ".mac-lte.pcap")?,
            Rat::Nr => None,
        };
        if ip.is_none() && mac.is_none() {
            continue;
        }
        let interfaces: Vec<String> = ue_names.iter().map(|ue| format!("{name}/{ue}")).collect();
        let interfaces: Vec<&str> = interfaces.iter().map(String::as_str).collect();
        let (harq_processes, rlc) = cell_params[i];
        let capture = celltcp_radio::cell::CellCapture::new(
            ip,
            mac,
            scenario.capture.snaplen,
            &interfaces,
            harq_processes,
            &rlc,
        )
        .map_err(|source| crate::run::RunError::Io {
            path: captures.dir_display().join(name),
            source,
        })?;
        medium.set_cell_capture(i, capture);
    }
    b.add_medium(RAN_NAME, Box::new(medium));
    Ok(())
}

/// The radio crate's configuration of the network.
pub(super) fn ran_config(
    scenario: &Scenario,
    ran: &RanSpec,
    node: &impl Fn(&str) -> NodeId,
) -> Result<RanConfig, ScenarioError> {
    // The mmWave channel models noise only (`[cells.NAME.nr.channel]` refuses interferers), so
    // the other cells of the network cannot interfere with it.
    if ran.coupled_interference {
        if let Some(name) = scenario
            .cells
            .iter()
            .find(|(_, c)| c.file.nr.as_ref().is_some_and(|nr| nr.channel.is_some()))
            .map(|(name, _)| name)
        {
            return Err(ScenarioError::new(
                "ran.coupled_interference",
                format!(
                    "true does not go with the mmWave channel of cell '{name}' \
                     (cells.{name}.nr.channel models noise only); set \
                     ran.coupled_interference = false"
                ),
            ));
        }
    }
    let mut cells = Vec::with_capacity(scenario.cells.len());
    let mut ues = Vec::new();
    // A UE's WFQ weight is the UE's: every cell has a context for every UE of the network.
    let mut weights = std::collections::BTreeMap::new();
    for (index, (name, cell)) in scenario.cells.iter().enumerate() {
        let mut cfg = lte_cell_config(name, cell, node)?;
        weights.extend(cfg.ue_weights.iter().map(|(&n, &w)| (n, w)));
        // The UE's receive errors are the UE's, not this cell's (`RanUe::downlink_loss`).
        let mut losses = std::mem::take(&mut cfg.downlink_loss);
        cells.push(cfg);
        for (ue, u) in &cell.file.ues {
            let mobility = match scenario.mobility.get(ue) {
                Some(m) => m.model(u.position),
                None => MobilityModel::Fixed {
                    position: Position::new(u.position[0], u.position[1]),
                },
            };
            ues.push(RanUe {
                node: node(ue),
                serving: index,
                mobility,
                downlink_loss: losses.remove(&node(ue)),
            });
        }
    }
    for cfg in &mut cells {
        cfg.ue_weights = weights.clone();
    }
    check_start_coverage(scenario, ran, &cells)?;
    let gateway = scenario
        .epc
        .as_ref()
        .map(|e| node(&e.gateway))
        .ok_or_else(|| ScenarioError::new("ran", "a radio access network needs [epc]"))?;
    Ok(RanConfig {
        name: RAN_NAME.to_string(),
        cells,
        ues,
        gateway,
        handover: handover_config(scenario, &ran.handover, node),
        measurement: MeasurementConfig {
            period: ran.measurement.period,
            filter_k: ran.measurement.filter_k,
            error_std_db: ran.measurement.error_std_db,
            trigger_quantity: match ran.measurement.trigger_quantity {
                TriggerQuantityKind::Rsrp => TriggerQuantity::Rsrp,
                TriggerQuantityKind::Rsrq => TriggerQuantity::Rsrq,
            },
        },
        coupled_interference: ran.coupled_interference,
        dual_connectivity: ran.dual_connectivity,
    })
}

/// Mean RSRP of cell `cfg` at `p`, dBm per resource element, in the most favourable case the
/// model allows: as `RadioLink::rsrp_dbm` (TS 36.214 §5.1.1; an NR cell's SS-RSRP, TS 38.215
/// §5.1.1: the transmit power over the 12·N_RB subcarriers of the carrier, plus the antenna
/// gain, minus path loss), without shadowing (its mean is 0 dB) and, where the line of sight
/// is drawn, in line of sight. On the mmWave channel, its TR 38.901 path loss in line of sight
/// without blockage; `None` for an NR channel trace, whose SINR does not depend on the
/// position (a [ran] refuses it; a cell on its own serves its UEs wherever they are).
fn best_case_rsrp_dbm(cfg: &LteCellConfig, p: Position) -> Result<Option<f64>, ScenarioError> {
    let error = |e: &dyn std::fmt::Display| {
        ScenarioError::new(format!("cells.{}", cfg.name), e.to_string())
    };
    let d = cfg.position.distance_m(p);
    let mmwave = cfg.nr.as_ref().and_then(|nr| nr.channel.as_ref());
    let path_loss_db = match mmwave {
        Some(channel) => match channel
            .best_case_path_loss_db(cfg.carrier_hz, d)
            .map_err(|e| error(&e))?
        {
            Some(db) => db,
            None => return Ok(None),
        },
        None if cfg.probabilistic_los => cfg
            .pathloss
            .with_condition(LosCondition::Los)
            .path_loss_db(d),
        None => cfg.pathloss.path_loss_db(d),
    };
    let n_rb = cfg.carrier_n_rb().map_err(|e| error(&e))?;
    Ok(Some(
        cfg.keys.tx_power_dbm + cfg.antenna_gain_db
            - path_loss_db
            - 10.0 * (12.0 * f64::from(n_rb)).log10(),
    ))
}

/// Every UE starts where some cell can serve it. "Coverage" is the model's own cell-selection
/// rule, the S criterion of TS 36.304 §5.2.3.2 (Srxlev = RSRP − q_rxlevmin > 0) that
/// re-establishment applies (`celltcp_radio::ran::reestablishment`), evaluated on the mean
/// RSRP in the most favourable case ([`best_case_rsrp_dbm`]): a UE that fails it even then
/// could not be served by any cell at t = 0, and the run would report nothing but losses.
fn check_start_coverage(
    scenario: &Scenario,
    ran: &RanSpec,
    cells: &[LteCellConfig],
) -> Result<(), ScenarioError> {
    let q_rxlevmin = ran.handover.q_rxlevmin_dbm;
    for (cell_name, cell) in &scenario.cells {
        for (ue, u) in &cell.file.ues {
            let at = Position::new(u.position[0], u.position[1]);
            let mut best: Option<(f64, &str)> = None;
            for c in cells {
                let Some(rsrp) = best_case_rsrp_dbm(c, at)? else {
                    continue;
                };
                if best.is_none_or(|(b, _)| rsrp.total_cmp(&b).is_ge()) {
                    best = Some((rsrp, c.name.as_str()));
                }
            }
            let Some((rsrp, best_cell)) = best else {
                continue;
            };
            if rsrp > q_rxlevmin {
                continue;
            }
            return Err(ScenarioError::new(
                format!("cells.{cell_name}.ues.{ue}.position"),
                format!(
                    "UE '{ue}' starts at [{}, {}] m, where no cell can serve it: the best mean \
                     RSRP there is {rsrp:.1} dBm (cell '{best_cell}'), not above \
                     ran.handover.q_rxlevmin_dbm = {q_rxlevmin} (the S criterion of TS 36.304 \
                     §5.2.3.2); move the UE or a cell closer, or raise the cell's tx_power_dbm",
                    u.position[0], u.position[1]
                ),
            ));
        }
    }
    Ok(())
}

/// Most positions of a route looked at by [`route_warnings`].
const MAX_ROUTE_SAMPLES: u64 = 10_000;

/// A warning for each UE that is, or whose route takes it, out of coverage during the run:
/// with a radio access network, every cell's (as in [`check_start_coverage`], which refuses a
/// start out of coverage), looked at every measurement period on the route of replication 0
/// for a random waypoint; in a plain cell, which serves its UEs wherever they are (and whose
/// UEs do not move), its own cell's, with the default q-RxLevMin of TS 36.304 (a UE there
/// would not camp on the cell, and receives next to nothing). At most [`MAX_ROUTE_SAMPLES`] positions a
/// route. Leaving coverage may be what a study wants (radio link failure and
/// re-establishment), so it is a warning, not an error.
pub(super) fn route_warnings(
    scenario: &Scenario,
    node: &impl Fn(&str) -> NodeId,
) -> Result<Vec<ScenarioWarning>, ScenarioError> {
    let cells = scenario
        .cells
        .iter()
        .map(|(name, cell)| Ok((name.as_str(), lte_cell_config(name, cell, node)?)))
        .collect::<Result<Vec<_>, ScenarioError>>()?;
    let (q_rxlevmin, q_key, period) = match &scenario.ran {
        Some(ran) => (
            ran.handover.q_rxlevmin_dbm,
            "ran.handover.q_rxlevmin_dbm",
            ran.measurement.period.as_ns(),
        ),
        None => (
            celltcp_radio::ran::DEFAULT_Q_RXLEVMIN_DBM,
            "q-RxLevMin (TS 36.304 §5.2.3.2)",
            0,
        ),
    };
    let duration = scenario.simulation.duration.as_ns();
    let step = period.max(duration / MAX_ROUTE_SAMPLES).max(1);
    let mut out = Vec::new();
    for (cell_name, cell) in &scenario.cells {
        // The cells that may serve this cell's UEs.
        let serving: Vec<&LteCellConfig> = cells
            .iter()
            .filter(|(name, _)| scenario.ran.is_some() || name == cell_name)
            .map(|(_, c)| c)
            .collect();
        // A cell whose SINR does not depend on the position (an NR channel trace) warns of
        // nothing.
        let best_at = |at: Position| -> Result<f64, ScenarioError> {
            serving.iter().try_fold(f64::NEG_INFINITY, |best, c| {
                Ok(match best_case_rsrp_dbm(c, at)? {
                    Some(rsrp) => f64::max(best, rsrp),
                    None => f64::INFINITY,
                })
            })
        };
        for (ue, u) in &cell.file.ues {
            let start = Position::new(u.position[0], u.position[1]);
            let Some(motion) = scenario.mobility.get(ue) else {
                // A UE that stays put: a [ran] refuses it out of coverage at the build.
                let best = best_at(start)?;
                if scenario.ran.is_none() && best <= q_rxlevmin {
                    out.push(ScenarioWarning::new(
                        format!("cells.{cell_name}.ues.{ue}.position"),
                        format!(
                            "UE '{ue}' at [{}, {}] m receives a best mean RSRP of {best:.1} dBm \
                             from cell '{cell_name}', not above {q_key} = {q_rxlevmin}: it would \
                             not camp on the cell, and receives next to nothing",
                            u.position[0], u.position[1]
                        ),
                    ));
                }
                continue;
            };
            let path = format!("ran/ue/{}/mobility", node(ue));
            let rng = RngStream::new(scenario.simulation.seed, 0, &path);
            let Ok(mut mobility) = Mobility::new(motion.model(u.position), rng) else {
                continue; // refused by the world's build, with its key
            };
            let mut t = 0;
            while t <= duration {
                let at = mobility.position_at(SimTime(t));
                let best = best_at(at)?;
                if best <= q_rxlevmin {
                    out.push(ScenarioWarning::new(
                        format!("mobility.{ue}"),
                        format!(
                            "the route of UE '{ue}' leaves every cell's coverage at {:.3} s, at \
                             [{:.1}, {:.1}] m (best mean RSRP {best:.1} dBm, not above \
                             {q_key} = {q_rxlevmin}); the UE is then out of service",
                            t as f64 * 1e-9,
                            at.x_m,
                            at.y_m
                        ),
                    ));
                    break;
                }
                t += step;
            }
        }
    }
    Ok(out)
}

fn handover_config(
    scenario: &Scenario,
    h: &HandoverSpec,
    node: &impl Fn(&str) -> NodeId,
) -> HandoverConfig {
    let l = &h.latencies;
    HandoverConfig {
        procedure: h.procedure,
        policy: h.policy,
        prediction: h.prediction,
        latencies: HandoverLatencies {
            measurement_report: l.measurement_report,
            decision: l.decision,
            x2: l.x2,
            admission: l.admission,
            rrc: l.rrc,
            detach_sync: l.detach_sync,
            random_access: l.random_access,
            s1: l.s1,
            s11: l.s11,
        },
        a3: h.a3.map(|a| A3Config {
            offset_db: a.offset_db,
            hysteresis_db: a.hysteresis_db,
            time_to_trigger: a.time_to_trigger,
        }),
        manual: h
            .manual
            .iter()
            .map(|m| ManualHandover {
                at: SimTime::ZERO + m.at,
                ue: node(&m.ue),
                // Validated: the target is a cell; cells are in name order.
                target: scenario
                    .cells
                    .keys()
                    .position(|k| *k == m.target)
                    .unwrap_or(0),
            })
            .collect(),
        reordering: h.reordering,
        target_buffer: match h.target_buffer {
            QueueLimit::Packets(n) => BufferLimit::Sdus(n as usize),
            QueueLimit::Bytes(n) => BufferLimit::Bytes(n),
        },
        end_marker_timeout: h.end_marker_timeout,
        max_ues_per_cell: h.max_ues_per_cell,
        rlf: h.rlf.map(|r| RlfConfig {
            q_out_db: r.q_out_db,
            q_in_db: r.q_in_db,
            n310: r.n310,
            n311: r.n311,
            t310: r.t310,
        }),
        reestablishment: h.reestablishment,
        q_rxlevmin_dbm: h.q_rxlevmin_dbm,
    }
}

/// A network the RAN refused, as an error of the scenario key it comes from: the RAN's
/// `handover` and `measurement` paths (`handover.a3.hysteresis_db`) are those of `[ran]`'s
/// tables, so they name `ran.<path>`; the others (its cells and UEs by index) keep `ran` and
/// the RAN's message.
fn ran_error(e: RanError) -> ScenarioError {
    let of_ran = |key: &str| {
        ["handover.", "measurement.", "dual_connectivity."]
            .iter()
            .any(|p| key.starts_with(p))
    };
    match e {
        RanError::Invalid { key, problem } if of_ran(&key) => {
            ScenarioError::new(format!("ran.{key}"), problem)
        }
        RanError::Measurement {
            section,
            source:
                MeasurementError::Invalid {
                    key,
                    value,
                    expected,
                },
        } => ScenarioError::new(
            format!("ran.{section}.{key}"),
            format!("{value} is not allowed; expected {expected}"),
        ),
        other => ScenarioError::new("ran", other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use celltcp_engine::SimDuration;
    use celltcp_net::packet::NodeId;

    /// The network of `python/celltcp/examples/000/forwarding.toml` (WFQ cells `source` and `target`), with
    /// the node ids of `ue_ref` and `ue_t1`.
    fn config(overrides: &[(&str, &str)]) -> (celltcp_radio::ran::RanConfig, NodeId, NodeId) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../python/celltcp/examples/000/forwarding.toml");
        let over: Vec<(String, String)> = overrides
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let scenario = crate::load_path(&path, &over).unwrap();
        let node = |n: &str| scenario.node_id(n).unwrap();
        let cfg = super::ran_config(&scenario, scenario.ran.as_ref().unwrap(), &node).unwrap();
        (cfg, node("ue_ref"), node("ue_t1"))
    }

    #[test]
    fn a_ues_weight_and_the_pdcp_reach_every_cell() {
        let (cfg, ue_ref, ue_t1) = config(&[
            ("cells.source.ues.ue_ref.weight", "2.0"),
            ("cells.target.ues.ue_t1.weight", "0.5"),
            ("cells.source.pdcp.t_reordering", "80ms"),
            ("cells.target.pdcp.t_reordering", "80ms"),
        ]);
        // The weight is the UE's: every cell has a context for every UE and knows it.
        let expected = BTreeMap::from([(ue_ref, 2.0), (ue_t1, 0.5)]);
        for c in &cfg.cells {
            assert_eq!(c.ue_weights, expected, "{}", c.name);
            // The cells never reorder themselves in a network; the UE's receiver, above them,
            // takes its SN length and t-Reordering from them.
            assert!(!c.pdcp.reordering);
            assert_eq!(c.pdcp.t_reordering, SimDuration::from_ms(80));
            assert_eq!(c.pdcp.sn_bits, 12);
        }
        let (plain, _, _) = config(&[]);
        assert!(plain.cells.iter().all(|c| c.ue_weights.is_empty()));
    }
}
