//! The cells of a scenario: each `[cells.NAME]` onto the radio crate's `LteCellConfig`, and
//! either one medium per cell or, with `[ran]`, one radio access network of all of them.

use std::collections::BTreeMap;

use celltcp_net::loss::{AnyLossModel, GeConfig};
use celltcp_net::packet::NodeId;
use celltcp_net::world::WorldBuilder;
use celltcp_radio::cell::{CellCapture, Interferer, LteCell, LteCellConfig, UeConfig};
use celltcp_radio::channel::{
    ChannelError, FreeSpace, LogDistance, LosCondition, PathLossModel, Position, UrbanMacro,
    UrbanMicro,
};
use celltcp_radio::phy::bler::{DEFAULT_SHANNON_ETA, DEFAULT_SNR_EFFICIENCY_DB};
use celltcp_radio::phy::{prbs_for_bandwidth, BlerModel, BlerTable};

use super::CaptureRequest;
use crate::config::cells::{nr_config, CellSpec, PathLossKind, Rat};
use crate::config::loss::LossSpec;
use crate::error::ScenarioError;
use crate::run::RunError;
use crate::Scenario;

/// One medium per cell, named `cell/NAME` for its random streams (without `[ran]`).
pub(super) fn add_cells(
    b: &mut WorldBuilder,
    scenario: &Scenario,
    seed: u64,
    run: u64,
    node: &impl Fn(&str) -> NodeId,
    captures: &CaptureRequest,
) -> Result<(), RunError> {
    if let Some(ran) = &scenario.ran {
        return super::ran::add_ran(b, scenario, ran, seed, run, node, captures);
    }
    for (name, cell) in &scenario.cells {
        let ues = cell.file.ues.iter().map(|(ue, u)| UeConfig {
            node: node(ue),
            position: Position::new(u.position[0], u.position[1]),
            speed_mps: u.speed_kmh / 3.6,
        });
        let cfg = lte_cell_config(name, cell, node)?;
        let harq_processes = cfg.harq.n_processes;
        let rlc = cfg.rlc;
        let mut lte = LteCell::new(cfg, ues.collect(), seed, run)
            .map_err(|e| ScenarioError::new(format!("cells.{name}"), e.to_string()))?;
        let ip = captures.radio_file(name, ".pcapng")?;
        // The mac-lte framing numbers subframes; an NR cell's slots have none (IP capture only).
        let mac = match cell.file.rat {
            Rat::Lte => captures.radio_file(name, ".mac-lte.pcap")?,
            Rat::Nr => None,
        };
        if ip.is_some() || mac.is_some() {
            let interfaces: Vec<String> = cell
                .file
                .ues
                .keys()
                .map(|ue| format!("{name}/{ue}"))
                .collect();
            let interfaces: Vec<&str> = interfaces.iter().map(String::as_str).collect();
            let snaplen = scenario.capture.snaplen;
            let capture = CellCapture::new(ip, mac, snaplen, &interfaces, harq_processes, &rlc)
                .map_err(|source| RunError::Io {
                    path: captures.dir_display().join(name),
                    source,
                })?;
            lte.set_capture(capture);
        }
        b.add_medium(&format!("cell/{name}"), Box::new(lte));
    }
    Ok(())
}

/// The radio crate's cell configuration for a validated `[cells.NAME]`, with the WFQ weights and
/// the downlink loss models of the UEs it lists (`node` maps node names to ids); a radio access
/// network moves the loss models to its UEs.
pub(super) fn lte_cell_config(
    name: &str,
    c: &CellSpec,
    node: &impl Fn(&str) -> NodeId,
) -> Result<LteCellConfig, ScenarioError> {
    let f = &c.file;
    let enb = node(&f.enb);
    let key = |k: &str| format!("cells.{name}.{k}");
    let carrier_hz = f.carrier_ghz * 1e9;
    let channel = |k: &str, e: ChannelError| ScenarioError::new(key(k), e.to_string());
    let los = if f.los.is_los() {
        LosCondition::Los
    } else {
        LosCondition::Nlos
    };
    let pathloss = match f.pathloss {
        PathLossKind::FreeSpace => PathLossModel::FreeSpace(
            FreeSpace::new(carrier_hz).map_err(|e| channel("carrier_ghz", e))?,
        ),
        PathLossKind::LogDistance => PathLossModel::LogDistance(
            LogDistance::new(
                f.pl0_db.unwrap_or(0.0),
                f.d0_m.unwrap_or(1.0),
                f.exponent.unwrap_or(2.0),
            )
            .map_err(|e| channel("pathloss", e))?,
        ),
        PathLossKind::Uma => PathLossModel::UrbanMacro(
            UrbanMacro::with_default_heights(carrier_hz, los)
                .map_err(|e| channel("carrier_ghz", e))?,
        ),
        PathLossKind::Umi => PathLossModel::UrbanMicro(
            UrbanMicro::with_default_heights(carrier_hz, los)
                .map_err(|e| channel("carrier_ghz", e))?,
        ),
    };
    let mut cfg = LteCellConfig::lte_default(name, enb);
    cfg.position = Position::new(c.position[0], c.position[1]);
    cfg.n_prb = prbs_for_bandwidth(f.bandwidth_mhz)
        .map_err(|e| ScenarioError::new(key("bandwidth_mhz"), e.to_string()))?;
    cfg.carrier_hz = carrier_hz;
    cfg.tx_power_dbm = f.tx_power_dbm;
    cfg.noise_figure_db = f.noise_figure_db;
    cfg.pathloss = pathloss;
    cfg.probabilistic_los = f.los.is_probabilistic();
    cfg.shadowing = (f.shadowing_db > 0.0).then_some((f.shadowing_db, f.shadowing_decorrelation_m));
    cfg.fading = f.fading;
    cfg.interferers = f
        .interferers
        .iter()
        .map(|i| Interferer {
            position: Position::new(i.position[0], i.position[1]),
            tx_power_dbm: i.tx_power_dbm,
            load: i.load,
        })
        .collect();
    cfg.scheduler = f.scheduler.clone();
    cfg.pf_time_constant_tti = c.pf_time_constant_tti;
    cfg.ue_weights = f
        .ues
        .iter()
        .filter(|(_, u)| u.weight != 1.0)
        .map(|(ue, u)| (node(ue), u.weight))
        .collect();
    cfg.downlink_loss = downlink_loss(name, c, node)?;
    cfg.harq.max_transmissions = f.harq_max_transmissions;
    cfg.harq_combining = f.harq_combining;
    cfg.cqi_table = f.cqi_table;
    cfg.bler = match &c.bler_table {
        // Validated when the scenario was resolved; one copy per cell built.
        Some(table) => BlerModel::from_table(BlerTable::clone(table)),
        None => BlerModel::from_shannon_bound_for(
            f.cqi_table,
            DEFAULT_SHANNON_ETA,
            DEFAULT_SNR_EFFICIENCY_DB,
            f.bler_decade_db,
        )
        .map_err(|e| ScenarioError::new(key("bler_decade_db"), e.to_string()))?,
    };
    cfg.rlc = c.rlc;
    cfg.pdcp = c.pdcp;
    cfg.cqi_period_tti = c.cqi_period_tti;
    cfg.cqi_delay_tti = c.cqi_delay_tti;
    cfg.fixed_mcs = c.fixed_mcs;
    cfg.uplink = c.uplink;
    cfg.nr = nr_config(f);
    cfg.validate()
        .map_err(|e| ScenarioError::new(format!("cells.{name}"), e.to_string()))?;
    Ok(cfg)
}

/// The loss model of each UE of cell `name` that has one, by node.
fn downlink_loss(
    name: &str,
    c: &CellSpec,
    node: &impl Fn(&str) -> NodeId,
) -> Result<BTreeMap<NodeId, AnyLossModel>, ScenarioError> {
    c.downlink_loss
        .iter()
        .map(|(ue, spec)| {
            let model = any_loss_model(spec).map_err(|e| {
                ScenarioError::new(
                    format!("cells.{name}.ues.{ue}.downlink_loss"),
                    e.to_string(),
                )
            })?;
            Ok((node(ue), model))
        })
        .collect()
}

/// A validated loss model as a value (a link's is boxed instead, `assemble::loss_model`).
fn any_loss_model(spec: &LossSpec) -> Result<AnyLossModel, celltcp_net::loss::ParamError> {
    match *spec {
        LossSpec::Bernoulli { p } => AnyLossModel::bernoulli(p),
        LossSpec::Ber { ber } => AnyLossModel::ber(ber),
        LossSpec::GilbertElliott {
            p_good_to_bad,
            p_bad_to_good,
            loss_good,
            loss_bad,
        } => AnyLossModel::gilbert_elliott(GeConfig {
            p_good_to_bad,
            p_bad_to_good,
            loss_good,
            loss_bad,
        }),
    }
}
