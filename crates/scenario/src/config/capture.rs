//! `[capture]`: pcap files of links, and radio-side captures of cells and dedicated channels
//! (docs/captures.md).

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::cells::CellSpec;
use super::dch::DchSpec;
use super::links::Link;
use super::quantity::{Quantity, Size};
use crate::validate::link_ref;
use crate::ScenarioError;

/// `[capture]`: pcap files of links; every key has a default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CaptureFile {
    /// Links written to LINK.pcap, every packet that starts transmission, both directions.
    pub links: Vec<String>,
    /// Cells and dedicated channels captured on their radio side: NAME.pcapng (the IP packets
    /// the air interface delivers, one interface per UE) and, for a cell, NAME.mac-lte.pcap
    /// (its MAC PDUs with their RLC and PDCP headers, for Wireshark's mac-lte dissector).
    pub cells: Vec<String>,
    /// Bytes of each packet stored (a size, 1B to 262144B).
    pub snaplen: Quantity<Size>,
}

impl Default for CaptureFile {
    fn default() -> Self {
        CaptureFile {
            links: Vec::new(),
            cells: Vec::new(),
            snaplen: Quantity::default_of("65535B"),
        }
    }
}

/// Largest snapshot length accepted, bytes (libpcap's MAXIMUM_SNAPLEN).
pub const MAX_SNAPLEN: u64 = 262_144;

/// Which links to capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureSpec {
    /// Link names, in the order written.
    pub links: Vec<String>,
    /// Cell and dedicated channel names, in the order written.
    pub cells: Vec<String>,
    /// Bytes of each packet stored.
    pub snaplen: u32,
}

impl CaptureFile {
    pub(crate) fn convert(
        &self,
        links: &BTreeMap<String, Link>,
        cells: &BTreeMap<String, CellSpec>,
        dch: &BTreeMap<String, DchSpec>,
    ) -> Result<CaptureSpec, ScenarioError> {
        let mut seen = BTreeSet::new();
        for name in &self.links {
            link_ref("capture.links", name, links)?;
            if !seen.insert(name) {
                return Err(ScenarioError::new(
                    "capture.links",
                    format!("'{name}' is listed twice"),
                ));
            }
        }
        let mut seen = BTreeSet::new();
        for name in &self.cells {
            radio_ref("capture.cells", name, cells, dch)?;
            if !seen.insert(name) {
                return Err(ScenarioError::new(
                    "capture.cells",
                    format!("'{name}' is listed twice"),
                ));
            }
        }
        let snaplen = self.snaplen.value;
        if snaplen == 0 || snaplen > MAX_SNAPLEN {
            return Err(ScenarioError::new(
                "capture.snaplen",
                format!(
                    "'{}' is out of range; expected 1B to {MAX_SNAPLEN}B",
                    self.snaplen
                ),
            ));
        }
        Ok(CaptureSpec {
            links: self.links.clone(),
            cells: self.cells.clone(),
            snaplen: snaplen as u32,
        })
    }
}

/// Checks that `name` is a cell or a dedicated channel; the error lists both.
pub(crate) fn radio_ref(
    key: &str,
    name: &str,
    cells: &BTreeMap<String, CellSpec>,
    dch: &BTreeMap<String, DchSpec>,
) -> Result<(), ScenarioError> {
    if cells.contains_key(name) || dch.contains_key(name) {
        return Ok(());
    }
    let known: Vec<&str> = cells.keys().chain(dch.keys()).map(String::as_str).collect();
    let known = if known.is_empty() {
        "none".to_string()
    } else {
        known.join(", ")
    };
    Err(ScenarioError::new(
        key,
        format!("'{name}' is not a cell or a dedicated channel (cells and channels: {known})"),
    ))
}
