//! The dedicated channels of a scenario: each `[dch.NAME]` onto the radio crate's `DchConfig`,
//! one medium per channel (random streams `dch/NAME/downlink` and `dch/NAME/uplink`), and the
//! `dch` section of the run summary.

use celltcp_engine::SimTime;
use celltcp_net::medium::Medium;
use celltcp_net::packet::NodeId;
use celltcp_net::world::{World, WorldBuilder};
use celltcp_radio::cell::IpCapture;
use celltcp_radio::dch::{DchConfig, DchLink};

use crate::config::dch::DchSpec;
use crate::error::ScenarioError;
use crate::summary::DchSummary;
use crate::Scenario;

/// The radio crate's configuration of a validated `[dch.NAME]`.
pub(crate) fn dch_config(name: &str, d: &DchSpec, rnc: NodeId, ue: NodeId) -> DchConfig {
    DchConfig {
        name: name.to_string(),
        rnc,
        ue,
        downlink: d.downlink,
        uplink: d.uplink,
        delay: d.delay,
        rlc: d.rlc,
        session_gap: d.session_gap,
    }
}

/// One medium per dedicated channel, in name order, after the cells. Returns the media of the
/// channels `[trace] dch` lists, for sampling.
pub(super) fn add_dch(
    b: &mut WorldBuilder,
    scenario: &Scenario,
    seed: u64,
    run: u64,
    node: &impl Fn(&str) -> NodeId,
    captures: &super::CaptureRequest,
) -> Result<Vec<u32>, crate::run::RunError> {
    let mut traced = Vec::new();
    for (name, d) in &scenario.dch {
        let cfg = dch_config(name, d, node(&d.file.rnc), node(&d.file.ue));
        let mut link = DchLink::new(cfg, seed, run)
            .map_err(|e| ScenarioError::new(format!("dch.{name}"), e.to_string()))?;
        if let Some(out) = captures.radio_file(name, ".pcapng")? {
            let interface = format!("{name}/{}", d.file.ue);
            let snaplen = scenario.capture.snaplen;
            let capture =
                IpCapture::new(out, snaplen, &[interface.as_str()]).map_err(|source| {
                    crate::run::RunError::Io {
                        path: captures.dir_display().join(name),
                        source,
                    }
                })?;
            link.set_capture(capture);
        }
        let medium = b.add_medium(&format!("dch/{name}"), Box::new(link));
        if scenario.trace.dch.contains(name) {
            traced.push(medium);
        }
    }
    Ok(traced)
}

/// Whether `m` is the medium of `[dch.NAME]` for its name: its one edge joins that channel's
/// RNC and UE (a cell or a network could carry the same name).
pub(crate) fn is_dch(scenario: &Scenario, world: &World, m: &dyn Medium) -> bool {
    let Some(d) = scenario.dch.get(m.name()) else {
        return false;
    };
    let name = |n: NodeId| world.topo.nodes.get(n.index()).map(|n| n.name.as_str());
    matches!(m.edges()[..], [(rnc, ue)] if name(rnc) == Some(&d.file.rnc) && name(ue) == Some(&d.file.ue))
}

/// A channel's summary: its figures, the uplink's grouped under `uplink` (the medium reports
/// them as `uplink.<figure>`).
pub(crate) fn summary(m: &dyn Medium, end: SimTime) -> DchSummary {
    let mut out = DchSummary::default();
    for (key, value) in m.report(end) {
        match key.strip_prefix("uplink.") {
            Some(figure) => out.uplink.insert(figure, value),
            None => out.figures.insert(key, value),
        }
    }
    out
}
