//! The scenario file format, one module per section.
//!
//! Each section has a raw form (`*File`, as written: serde with `deny_unknown_fields`, units
//! kept as text, defaults filled by serde) and a typed form (units resolved, cross-references
//! checked) produced by a `convert` step. [`ScenarioFile::resolve`] runs the steps in dependency
//! order: simulation, nodes, links, cells, epc, ran, mobility, flows, trace, capture, events.

pub mod apps;
pub mod capture;
pub mod cells;
pub mod dch;
pub mod dual_connectivity;
pub mod epc;
pub mod events;
pub mod flows;
pub mod handover;
pub mod kept;
pub mod links;
pub mod loss;
pub mod middleboxes;
pub mod mobility;
pub mod nodes;
pub mod quantity;
pub mod queue;
pub mod ran;
pub mod simulation;
pub mod tcp;
pub mod trace;
mod unit_keys;

use std::collections::BTreeMap;

use celltcp_net::packet::{FlowId, NodeId};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ScenarioError;
use capture::{CaptureFile, CaptureSpec};
use cells::{CellFile, CellSpec};
use epc::{EpcFile, EpcSpec};
use events::{EventFile, LinkEvent};
use flows::{Flow, FlowFile};
use links::{Link, LinkFile};
use mobility::{MobilityFile, MobilitySpec};
use nodes::{Node, NodeFile};
use ran::{RanFile, RanSpec};
use simulation::{Simulation, SimulationFile};
use trace::{TraceFile, TraceSpec};

/// Pattern of node, link and flow names (they become file names and trace labels).
pub const NAME_PATTERN: &str = "^[A-Za-z0-9_-]+$";

/// A scenario file as written (after overrides), with serde's defaults filled in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "celltcp scenario",
    description = "A celltcp scenario file (TOML). Values with a physical dimension are strings with a unit."
)]
pub struct ScenarioFile {
    /// Run length, seed and event budget.
    pub simulation: SimulationFile,
    /// Hosts and routers, by name.
    #[serde(default)]
    #[schemars(extend("propertyNames" = { "pattern": NAME_PATTERN }))]
    pub nodes: BTreeMap<String, NodeFile>,
    /// Full-duplex point-to-point links, by name.
    #[serde(default)]
    #[schemars(extend("propertyNames" = { "pattern": NAME_PATTERN }))]
    pub links: BTreeMap<String, LinkFile>,
    /// LTE cells: an eNB router serving UE hosts over the radio, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(extend("propertyNames" = { "pattern": NAME_PATTERN }))]
    pub cells: BTreeMap<String, CellFile>,
    /// WCDMA dedicated channels with RLC AM: an RNC router and one UE host each, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(extend("propertyNames" = { "pattern": NAME_PATTERN }))]
    pub dch: BTreeMap<String, dch::DchFile>,
    /// The EPC user plane: a combined S-GW/P-GW tunnelling the cells' UEs over S1-U (GTP-U).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epc: Option<EpcFile>,
    /// The cells as one radio access network with X2 handover between them (needs `epc`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ran: Option<RanFile>,
    /// How UEs of the radio access network move, by UE node name (needs `ran`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mobility: BTreeMap<String, MobilityFile>,
    /// Packet processing on routers (Snoop, ELN, split-TCP proxy), by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(extend("propertyNames" = { "pattern": NAME_PATTERN }))]
    pub middleboxes: BTreeMap<String, middleboxes::MiddleboxFile>,
    /// Application flows between hosts, by name.
    #[serde(default)]
    #[schemars(extend("propertyNames" = { "pattern": NAME_PATTERN }))]
    pub flows: BTreeMap<String, FlowFile>,
    /// Opt-in time series.
    #[serde(default)]
    pub trace: TraceFile,
    /// pcap captures of links.
    #[serde(default)]
    pub capture: CaptureFile,
    /// Changes to links at given times (delay spikes, rate changes, outages, handovers).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<EventFile>,
}

/// A validated scenario: plain data with units resolved.
///
/// Nodes, links and flows are indexed in name order (the maps' order): the i-th node has
/// `NodeId` i, the i-th flow `FlowId` i, so adding an element renumbers only later names.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub simulation: Simulation,
    pub nodes: BTreeMap<String, Node>,
    pub links: BTreeMap<String, Link>,
    pub cells: BTreeMap<String, CellSpec>,
    /// WCDMA dedicated channels, by name.
    pub dch: BTreeMap<String, dch::DchSpec>,
    /// The EPC, when the file has an `[epc]` section.
    pub epc: Option<EpcSpec>,
    /// The radio access network, when the file has a `[ran]` section.
    pub ran: Option<RanSpec>,
    /// Motion of the UEs that move, by UE name (only with a radio access network).
    pub mobility: BTreeMap<String, MobilitySpec>,
    /// Middleboxes, by name.
    pub middleboxes: BTreeMap<String, middleboxes::MiddleboxSpec>,
    pub flows: BTreeMap<String, Flow>,
    pub trace: TraceSpec,
    pub capture: CaptureSpec,
    /// Link changes in time order (stable: equal times keep the order written).
    pub events: Vec<LinkEvent>,
    /// The file this scenario was resolved from: overrides applied, every default filled
    /// (including default addresses, ports and `trace.tcp_flows`), units as written.
    pub file: ScenarioFile,
}

impl Scenario {
    /// The fully resolved file as JSON, for run summaries. Loading it again (as TOML or via
    /// the same structure) gives an equal scenario.
    pub fn echo(&self) -> serde_json::Value {
        // Serialization of these plain structs cannot fail (all map keys are strings); a
        // non-finite float is written as null by serde_json.
        let mut echo = serde_json::to_value(&self.file).unwrap_or(serde_json::Value::Null);
        cells::leave_out_keys_the_rat_refuses(&self.file.cells, &mut echo);
        echo
    }

    /// Index of node `name` in name order.
    pub fn node_id(&self, name: &str) -> Option<NodeId> {
        index_of(&self.nodes, name).map(NodeId::from_index)
    }

    /// Index of link `name` in name order.
    pub fn link_index(&self, name: &str) -> Option<usize> {
        index_of(&self.links, name)
    }

    /// Index of flow `name` in name order.
    pub fn flow_id(&self, name: &str) -> Option<FlowId> {
        index_of(&self.flows, name).map(FlowId::from_index)
    }
}

fn index_of<V>(map: &BTreeMap<String, V>, name: &str) -> Option<usize> {
    map.keys().position(|k| k == name)
}

impl ScenarioFile {
    /// Validates the file and resolves it into a [`Scenario`].
    pub fn resolve(mut self) -> Result<Scenario, ScenarioError> {
        let simulation = self.simulation.convert()?;
        let nodes = nodes::convert(&mut self.nodes)?;
        let mut links = BTreeMap::new();
        for (name, link) in self.links.iter_mut() {
            link.fill_defaults();
            links.insert(name.clone(), link.convert(name, &nodes)?);
        }
        // EN-DC is the one network of LTE and NR cells.
        let mixed_rats = self
            .ran
            .as_ref()
            .is_some_and(|r| r.dual_connectivity.is_some());
        let mut cells = cells::convert(&self.cells, &nodes, self.ran.is_some(), mixed_rats)?;
        cells::check_unwired_ues(&cells, &links)?;
        let epc = epc::convert(self.epc.as_ref(), &nodes, &links, &cells)?;
        let ran = ran::convert(self.ran.as_ref(), &self.cells, &cells, epc.as_ref())?;
        if let Some(layout) = ran.as_ref().and_then(|r| r.layout.as_ref()) {
            for (name, position) in layout.cells().iter().zip(ran::layout_positions(layout)?) {
                if let Some(c) = cells.get_mut(name) {
                    c.position = position;
                }
            }
        }
        // The echo shows every default: cells not placed by a layout show their position.
        for (name, c) in self.cells.iter_mut() {
            if c.position.is_none() && !ran.as_ref().is_some_and(|r| r.places(name)) {
                c.position = Some(cells[name].position);
            }
        }
        let mobility = mobility::convert(&self.mobility, ran.is_some(), &cells)?;
        let dch = dch::convert(&mut self.dch, &nodes, &cells)?;
        let radio_edges = [cells::radio_edges(&cells), dch::radio_edges(&dch)].concat();
        let duration_text = self.simulation.duration.text.clone();
        let flows = flows::convert(
            &mut self.flows,
            &simulation,
            &duration_text,
            &nodes,
            &links,
            &radio_edges,
        )?;
        epc::check_flows(epc.as_ref(), &flows, &nodes, &links, &cells)?;
        let middleboxes = middleboxes::convert(&self.middleboxes, &nodes, &links, &radio_edges)?;
        let trace = self.trace.convert(&links, &flows, &cells, &dch)?;
        trace::check_rows(
            &trace,
            &self.trace.interval.text,
            simulation.duration,
            &cells,
            ran.is_some(),
        )?;
        let capture = self.capture.convert(&links, &cells, &dch)?;
        let mut events = events::convert(&self.events, &simulation, &links)?;
        events.sort_by_key(|e| e.at);
        Ok(Scenario {
            simulation,
            nodes,
            links,
            cells,
            dch,
            epc,
            ran,
            mobility,
            middleboxes,
            flows,
            trace,
            capture,
            events,
            file: self,
        })
    }
}

/// Serializes a variant's table with its `kind` tag first.
#[derive(Serialize)]
pub(crate) struct KindTagged<'a, T: Serialize> {
    pub kind: &'static str,
    #[serde(flatten)]
    pub body: &'a T,
}

/// Serializes a variant's table with its `dist` tag first.
#[derive(Serialize)]
pub(crate) struct DistTagged<'a, T: Serialize> {
    pub dist: &'static str,
    #[serde(flatten)]
    pub body: &'a T,
}

#[cfg(test)]
mod tests {
    use super::apps::{AppFile, FileSizeFile};
    use super::loss::LossFile;
    use super::mobility::MobilityFile;
    use super::queue::QueueFile;
    use super::ran::LayoutFile;
    use super::FlowFile;
    use crate::de::TABLE_ENUMS;

    /// serde passes an enum's Rust name to the deserializer, which looks it up in
    /// `TABLE_ENUMS`; a renamed enum must be renamed there too.
    #[test]
    fn tagged_enums_are_registered_by_their_names() {
        let names = [
            std::any::type_name::<QueueFile>(),
            std::any::type_name::<LossFile>(),
            std::any::type_name::<FlowFile>(),
            std::any::type_name::<AppFile>(),
            std::any::type_name::<FileSizeFile>(),
            std::any::type_name::<LayoutFile>(),
            std::any::type_name::<MobilityFile>(),
            std::any::type_name::<super::middleboxes::MiddleboxFile>(),
            std::any::type_name::<celltcp_radio::cell::UplinkScheduling>(),
        ];
        let short: Vec<&str> = names
            .iter()
            .map(|n| n.rsplit("::").next().unwrap_or(n))
            .collect();
        let registered: Vec<&str> = TABLE_ENUMS.iter().map(|(name, _, _)| *name).collect();
        assert_eq!(short, registered);
    }
}
