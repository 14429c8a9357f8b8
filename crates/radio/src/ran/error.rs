//! Why a radio access network could not be built. Every message names the configuration key
//! (as a path into [`RanConfig`](super::RanConfig)), the value and what was expected.

use crate::cell::CellError;
use crate::measurement::MeasurementError;
use crate::mobility::MobilityError;
use crate::pdcp::PdcpConfigError;

/// A [`RanConfig`](super::RanConfig) the network cannot run with.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RanError {
    /// A value of the network's own configuration, e.g.
    /// `handover.manual[0].target: 7 is not a cell (3 cells)`.
    #[error("{key}: {problem}")]
    Invalid { key: String, problem: String },
    /// A cell refused its configuration.
    #[error("cells[{index}] ({name}): {source}")]
    Cell {
        index: usize,
        name: String,
        #[source]
        source: CellError,
    },
    /// A UE's mobility model is invalid.
    #[error("ues[{index}].mobility.{source}")]
    Mobility {
        index: usize,
        #[source]
        source: MobilityError,
    },
    /// A measurement, trigger or radio link monitoring parameter is invalid; `section` is the
    /// configuration table (`measurement`, `handover.a3`, `handover.rlf`).
    #[error("{section}.{source}")]
    Measurement {
        section: &'static str,
        #[source]
        source: MeasurementError,
    },
    /// The UE-side PDCP receiver cannot be built from the cells' PDCP configuration.
    #[error("cells[0].{source}")]
    Pdcp {
        #[source]
        source: PdcpConfigError,
    },
}

impl RanError {
    pub(crate) fn invalid(key: impl Into<String>, problem: impl Into<String>) -> Self {
        RanError::Invalid {
            key: key.into(),
            problem: problem.into(),
        }
    }
}
