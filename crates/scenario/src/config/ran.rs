//! `[ran]`: the cells of the scenario as one radio access network with X2 handover between
//! them (TS 36.300 §10.1.2.1), its cell layout and the UEs' RRC measurements (TS 36.331 §5.5).
//!
//! The section's presence turns every `[cells.*]` into a cell of one network medium; it needs
//! `[epc]`, whose S-GW switches a UE's downlink path at each handover.

use std::collections::{BTreeMap, BTreeSet};

use celltcp_engine::SimDuration;
use celltcp_radio::channel::Position;
use celltcp_radio::mobility::{hex_layout, line_layout, MobilityError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize, Serializer};

use super::cells::{CellFile, CellSpec};
use super::dual_connectivity::DualConnectivityFile;
use super::epc::EpcSpec;
use super::handover::{HandoverFile, HandoverSpec};
use super::quantity::{Length, Quantity, Time};
use super::KindTagged;
use crate::validate::positive_time;
use crate::ScenarioError;
use celltcp_radio::ran::DualConnectivityConfig;

/// Placement of the eNBs: a table tagged by `kind` (line, hex).
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(tag = "kind")]
pub enum LayoutFile {
    /// Cells on a straight line, `spacing` apart from `origin` along `heading_deg`.
    Line(LineLayoutFile),
    /// Sites of a hexagonal grid with inter-site distance `isd` around `origin`: the centre,
    /// then ring 1 (6 sites), ring 2 (12), … (TR 36.814 style, one cell per site).
    Hex(HexLayoutFile),
}

impl Serialize for LayoutFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            LayoutFile::Line(body) => KindTagged { kind: "line", body }.serialize(s),
            LayoutFile::Hex(body) => KindTagged { kind: "hex", body }.serialize(s),
        }
    }
}

/// `layout = { kind = "line", … }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LineLayoutFile {
    /// Cell names, in placement order (each a cell that does not set `position`).
    pub cells: Vec<String>,
    /// Distance between neighbouring eNBs (a length, > 0).
    pub spacing: Quantity<Length>,
    /// [x, y] of the first eNB, metres.
    #[serde(default)]
    pub origin: [f64; 2],
    /// Direction of the line, degrees counter-clockwise from the x axis.
    #[serde(default)]
    pub heading_deg: f64,
}

/// `layout = { kind = "hex", … }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HexLayoutFile {
    /// Cell names, in placement order (each a cell that does not set `position`).
    pub cells: Vec<String>,
    /// Inter-site distance (a length, > 0).
    pub isd: Quantity<Length>,
    /// [x, y] of the centre site, metres.
    #[serde(default)]
    pub origin: [f64; 2],
    /// Rotation of the grid about its centre, degrees counter-clockwise.
    #[serde(default)]
    pub heading_deg: f64,
}

/// `[ran.measurement]`: the UEs' layer-1 and layer-3 measurements (TS 36.331 §5.5.3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MeasurementFile {
    /// Measurement period: positions are updated, RSRP measured, filtered and evaluated this
    /// often (a time, > 0).
    pub period: Quantity<Time>,
    /// filterCoefficient k of the layer-3 filter, 0 to 19 (TS 36.331 §5.5.3.2; fc4 default).
    #[schemars(range(min = 0, max = 19))]
    pub filter_k: u8,
    /// Standard deviation of the Gaussian layer-1 measurement error, dB (≥ 0; 0 = exact).
    pub error_std_db: f64,
    /// The quantity Event A3 compares, "rsrp" (default) or "rsrq" (TS 36.331
    /// triggerQuantity); the offset and hysteresis are in dB either way.
    pub trigger_quantity: TriggerQuantityKind,
}

impl Default for MeasurementFile {
    fn default() -> Self {
        MeasurementFile {
            period: Quantity::default_of("40ms"),
            filter_k: 4,
            error_std_db: 0.0,
            trigger_quantity: TriggerQuantityKind::Rsrp,
        }
    }
}

/// The measured quantity of Event A3 (TS 36.331 ReportConfigEUTRA triggerQuantity).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TriggerQuantityKind {
    /// Reference signal received power, dBm (TS 36.214 §5.1.1).
    #[default]
    Rsrp,
    /// Reference signal received quality, dB (TS 36.214 §5.1.3).
    Rsrq,
}

/// `[ran]` as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RanFile {
    /// Every cell sees the other cells of the network as interferers loaded with the PRBs they
    /// actually used over the last measurement period.
    pub coupled_interference: bool,
    /// Placement of the listed cells' eNBs; other cells keep their `position`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<LayoutFile>,
    pub measurement: MeasurementFile,
    pub handover: HandoverFile,
    /// EN-DC with a split bearer: an LTE master and an NR secondary serve every UE at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dual_connectivity: Option<DualConnectivityFile>,
}

impl Default for RanFile {
    fn default() -> Self {
        RanFile {
            coupled_interference: true,
            layout: None,
            measurement: MeasurementFile::default(),
            handover: HandoverFile::default(),
            dual_connectivity: None,
        }
    }
}

/// A validated cell layout.
#[derive(Clone, Debug, PartialEq)]
pub enum LayoutSpec {
    Line {
        cells: Vec<String>,
        spacing_m: f64,
        origin: [f64; 2],
        heading_deg: f64,
    },
    Hex {
        cells: Vec<String>,
        isd_m: f64,
        origin: [f64; 2],
        heading_deg: f64,
    },
}

impl LayoutSpec {
    /// The cells placed, in placement order.
    pub fn cells(&self) -> &[String] {
        match self {
            LayoutSpec::Line { cells, .. } | LayoutSpec::Hex { cells, .. } => cells,
        }
    }
}

impl RanSpec {
    /// Whether `ran.layout` places cell `name`.
    pub fn places(&self, name: &str) -> bool {
        self.layout
            .as_ref()
            .is_some_and(|l| l.cells().iter().any(|c| c == name))
    }
}

/// The eNB positions of a layout, in the order of its `cells` ([x, y] metres): the radio
/// crate's `line_layout` / `hex_layout`, the hexagonal grid rotated by `heading_deg` about its
/// centre.
pub(crate) fn layout_positions(layout: &LayoutSpec) -> Result<Vec<[f64; 2]>, ScenarioError> {
    let err = |e: MobilityError| ScenarioError::new("ran.layout", e.to_string());
    let positions = match layout {
        LayoutSpec::Line {
            cells,
            spacing_m,
            origin,
            heading_deg,
        } => line_layout(
            cells.len(),
            *spacing_m,
            Position::new(origin[0], origin[1]),
            heading_deg.to_radians(),
        )
        .map_err(err)?,
        LayoutSpec::Hex {
            cells,
            isd_m,
            origin,
            heading_deg,
        } => {
            let centre = Position::new(origin[0], origin[1]);
            let (sin, cos) = heading_deg.to_radians().sin_cos();
            hex_layout(cells.len(), *isd_m, centre)
                .map_err(err)?
                .into_iter()
                .map(|p| {
                    let (dx, dy) = (p.x_m - centre.x_m, p.y_m - centre.y_m);
                    Position::new(
                        centre.x_m + dx * cos - dy * sin,
                        centre.y_m + dx * sin + dy * cos,
                    )
                })
                .collect()
        }
    };
    Ok(positions.into_iter().map(|p| [p.x_m, p.y_m]).collect())
}

/// Validated measurement settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeasurementSpec {
    pub period: SimDuration,
    pub filter_k: u8,
    pub error_std_db: f64,
    pub trigger_quantity: TriggerQuantityKind,
}

/// `[ran]`, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct RanSpec {
    pub coupled_interference: bool,
    pub layout: Option<LayoutSpec>,
    pub measurement: MeasurementSpec,
    pub handover: HandoverSpec,
    pub dual_connectivity: Option<DualConnectivityConfig>,
}

/// Checks `[ran]` against the run, the cells and the EPC.
pub(crate) fn convert(
    file: Option<&RanFile>,
    cell_files: &BTreeMap<String, CellFile>,
    cells: &BTreeMap<String, CellSpec>,
    epc: Option<&EpcSpec>,
) -> Result<Option<RanSpec>, ScenarioError> {
    let Some(f) = file else { return Ok(None) };
    if epc.is_none() {
        return Err(ScenarioError::new(
            "ran",
            "a radio access network needs [epc]: its S-GW switches each UE's downlink path at handover",
        ));
    }
    // The fading's Doppler follows each UE's motion in a network; a separate speed would be
    // silently overridden.
    for (name, cell) in cell_files {
        if let Some((ue, _)) = cell.ues.iter().find(|(_, u)| u.speed_kmh != 0.0) {
            return Err(ScenarioError::new(
                format!("cells.{name}.ues.{ue}.speed_kmh"),
                format!("is not used with [ran]: a UE's speed comes from its motion; set [mobility.{ue}] instead"),
            ));
        }
    }
    let layout = f
        .layout
        .as_ref()
        .map(|l| layout_spec(l, cell_files))
        .transpose()?;
    let m = &f.measurement;
    positive_time("ran.measurement.period", &m.period)?;
    if m.filter_k > 19 {
        return Err(ScenarioError::new(
            "ran.measurement.filter_k",
            format!(
                "{} is out of range; expected a filterCoefficient 0 to 19",
                m.filter_k
            ),
        ));
    }
    if !(m.error_std_db.is_finite() && m.error_std_db >= 0.0) {
        return Err(ScenarioError::new(
            "ran.measurement.error_std_db",
            format!(
                "{} is not allowed; expected a standard deviation in dB ≥ 0",
                m.error_std_db
            ),
        ));
    }
    let handover = f.handover.convert(cells)?;
    let dual_connectivity = f
        .dual_connectivity
        .as_ref()
        .map(|d| d.convert(cell_files, &handover, f.coupled_interference))
        .transpose()?;
    Ok(Some(RanSpec {
        coupled_interference: f.coupled_interference,
        layout,
        measurement: MeasurementSpec {
            period: m.period.value,
            filter_k: m.filter_k,
            error_std_db: m.error_std_db,
            trigger_quantity: m.trigger_quantity,
        },
        handover,
        dual_connectivity,
    }))
}

fn layout_spec(
    l: &LayoutFile,
    cell_files: &BTreeMap<String, CellFile>,
) -> Result<LayoutSpec, ScenarioError> {
    let (cells, distance, distance_key, origin, heading_deg) = match l {
        LayoutFile::Line(x) => (&x.cells, &x.spacing, "spacing", x.origin, x.heading_deg),
        LayoutFile::Hex(x) => (&x.cells, &x.isd, "isd", x.origin, x.heading_deg),
    };
    if cells.is_empty() {
        return Err(ScenarioError::new(
            "ran.layout.cells",
            "the layout places at least one cell",
        ));
    }
    let mut seen = BTreeSet::new();
    for name in cells {
        let Some(cell) = cell_files.get(name) else {
            let known: Vec<&str> = cell_files.keys().map(String::as_str).collect();
            return Err(ScenarioError::new(
                "ran.layout.cells",
                format!("cell '{name}' does not exist (cells: {})", known.join(", ")),
            ));
        };
        if !seen.insert(name) {
            return Err(ScenarioError::new(
                "ran.layout.cells",
                format!("'{name}' is listed twice"),
            ));
        }
        if cell.position.is_some() {
            return Err(ScenarioError::new(
                "ran.layout.cells",
                format!("cell '{name}' is placed by the layout and also sets cells.{name}.position; remove one of the two"),
            ));
        }
    }
    if !(distance.value.is_finite() && distance.value > 0.0) {
        return Err(ScenarioError::new(
            format!("ran.layout.{distance_key}"),
            format!("'{distance}' must be > 0"),
        ));
    }
    for (k, v) in [
        ("origin[0]", origin[0]),
        ("origin[1]", origin[1]),
        ("heading_deg", heading_deg),
    ] {
        if !v.is_finite() {
            return Err(ScenarioError::new(
                format!("ran.layout.{k}"),
                format!("{v} is not allowed; expected a finite number"),
            ));
        }
    }
    let cells = cells.clone();
    Ok(match l {
        LayoutFile::Line(_) => LayoutSpec::Line {
            cells,
            spacing_m: distance.value,
            origin,
            heading_deg,
        },
        LayoutFile::Hex(_) => LayoutSpec::Hex {
            cells,
            isd_m: distance.value,
            origin,
            heading_deg,
        },
    })
}
