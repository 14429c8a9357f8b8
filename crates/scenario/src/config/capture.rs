//! `[capture]`: pcap files of links.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
    /// Bytes of each packet stored (a size, 1B to 262144B).
    pub snaplen: Quantity<Size>,
}

impl Default for CaptureFile {
    fn default() -> Self {
        CaptureFile {
            links: Vec::new(),
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
    /// Bytes of each packet stored.
    pub snaplen: u32,
}

impl CaptureFile {
    pub(crate) fn convert(
        &self,
        links: &BTreeMap<String, Link>,
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
            snaplen: snaplen as u32,
        })
    }
}
