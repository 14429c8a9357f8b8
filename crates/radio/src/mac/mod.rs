//! MAC layer of the eNodeB downlink: schedulers (one trait, one file per algorithm) and HARQ.
//!
//! Once per TTI (1 ms subframe) the cell hands its [`MacScheduler`] the UEs that have data in
//! their RLC buffers or a pending HARQ retransmission ([`UeState`]); the scheduler fills a list
//! of [`Allocation`]s (PRBs, MCS, transport block size). After the transmissions have been
//! decoded the cell reports the bits delivered to each UE with [`MacScheduler::on_tti_end`].
//!
//! Rules shared by every scheduler (implemented once in `alloc.rs`):
//! * HARQ retransmissions come first and keep the PRB count and MCS of their first transmission.
//!   DL HARQ is asynchronous (TS 36.321 §5.3.2), so a retransmission that does not fit in the
//!   PRBs left waits for a later TTI instead of being resized.
//! * At most one allocation (one transport block) per UE per TTI: one DL assignment per UE and
//!   serving cell per subframe, no spatial multiplexing (TS 36.213 §7.1). A UE whose HARQ
//!   retransmission is pending gets no new data in that TTI.
//! * New data only for a UE with `buffer_bytes > 0` and a wideband CQI other than 0 (CQI index
//!   0 is "out of range", TS 36.213 Table 7.2.3-1), at the UE's `mcs`.
//! * A UE never gets more PRBs than its buffer can fill: if its whole share would carry more than
//!   `buffer_bytes`, it receives the fewest PRBs whose transport block carries the buffer.
//! * Never more than `n_prb` PRBs in total; allocations are whole PRBs (resource allocation
//!   type 0 with its RBG granularity of TS 36.213 §7.1.6.1 is not modelled).
//! * MAC headers and padding are not modelled: `tbs_bytes` is entirely available to RLC.
//!
//! Schedulers ([`NAMES`], built by [`build`]): `round_robin`, `proportional_fair`, `max_ci` and
//! `wfq`. `docs/mac-schedulers.md` states each one's rule, parameters and sources.
//!
//! Transport block sizes come through the [`TbsLookup`] trait, so that this module does not
//! depend on the TS 36.213 tables of the PHY abstraction; it uses only its index types
//! ([`Cqi`], [`Mcs`]). A [`UeState`] holds nothing a scheduler could find invalid: the CQI and
//! the MCS are those types and the weight a [`Weight`], so no scheduler has a case for a bad
//! input to skip.

pub mod alloc;
pub mod harq;
pub mod max_ci;
pub mod proportional_fair;
pub mod round_robin;
pub mod wfq;

#[cfg(test)]
mod testkit;
#[cfg(test)]
mod tests;

pub use harq::{
    DueRetx, FeedbackOutcome, FreeProcess, HarqConfig, HarqEntity, HarqError, HarqProcessState,
    HarqStats, HarqTimeline, RetxDue, TransportBlock, TxReport,
};
pub use max_ci::MaxCi;
pub use proportional_fair::ProportionalFair;
pub use round_robin::RoundRobin;
pub use wfq::Wfq;

use crate::phy::{Cqi, Mcs};

/// Transport block size lookup of the slot being scheduled: bits carried by `n_prb` PRBs at
/// `mcs` on `layers` layers. The LTE cell's is TS 36.213 §7.1.7 (one layer); the NR cell's is
/// TS 38.214 §5.1.3.2 for the PDSCH symbols of the slot, so the slot's symbols are the
/// lookup's, and the MCS, layers and PRBs the allocation's.
///
/// Contract: for a supported (`mcs`, `layers`) the size is > 0 and non-decreasing in `n_prb`
/// over 1..=N_PRB of the cell bandwidth (as TS 36.213 Table 7.1.7.2.1-1 and the TS 38.214
/// formula are); 0 means the combination is not supported (`n_prb` = 0 or beyond the table, an
/// MCS the table lacks, more layers than the air interface carries). A scheduler never
/// allocates a transport block of 0 bits.
pub trait TbsLookup {
    /// Transport block size, bits.
    fn tbs_bits(&self, mcs: Mcs, layers: Layers, n_prb: u32) -> u32;
}

/// A function of (MCS, PRBs) is a single-layer lookup: 0 bits on more than one layer.
impl<F: Fn(Mcs, u32) -> u32> TbsLookup for F {
    fn tbs_bits(&self, mcs: Mcs, layers: Layers, n_prb: u32) -> u32 {
        if layers == Layers::ONE {
            self(mcs, n_prb)
        } else {
            0
        }
    }
}

/// Number of spatial layers υ of one transport block (one codeword): 1..=4 (TS 38.211 Table
/// 7.3.1.3-1; 5..=8 layers need a second codeword, which is not modelled). The LTE cell's
/// blocks have one layer (no spatial multiplexing, TS 36.213 §7.1 transmission mode 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Layers(u8);

impl Layers {
    /// One layer.
    pub const ONE: Layers = Layers(1);
    /// Four layers, the most of one codeword.
    pub const MAX: Layers = Layers(4);

    /// `layers` layers, or `None` outside 1..=4.
    pub const fn new(layers: u8) -> Option<Layers> {
        if layers >= 1 && layers <= Self::MAX.0 {
            Some(Layers(layers))
        } else {
            None
        }
    }

    /// The number of layers, 1..=4.
    #[inline]
    pub const fn get(self) -> u8 {
        self.0
    }
}

impl Default for Layers {
    fn default() -> Self {
        Layers::ONE
    }
}

/// A pending HARQ retransmission of a UE: it is sent again on the same process with the PRB
/// count and MCS of its first transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HarqRetx {
    /// PRBs of the original transmission.
    pub n_prb: u32,
    /// MCS of the original transmission.
    pub mcs: Mcs,
    /// Layers of the original transmission.
    pub layers: Layers,
    /// HARQ process number, 0-based.
    pub process: u8,
}

/// A weighted-fair-queueing weight: dimensionless, finite and > 0 (checked where it is made).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Weight(f64);

impl Weight {
    /// Weight 1, every UE's unless configured otherwise.
    pub const ONE: Weight = Weight(1.0);

    /// Weight `value`, or [`MacError::InvalidParameter`] naming `weight` unless it is finite
    /// and > 0.
    pub fn new(value: f64) -> Result<Weight, MacError> {
        if value.is_finite() && value > 0.0 {
            Ok(Weight(value))
        } else {
            Err(MacError::InvalidParameter {
                key: "weight",
                value,
                expected: "a finite number > 0",
            })
        }
    }

    /// The weight, finite and > 0.
    #[inline]
    pub fn get(self) -> f64 {
        self.0
    }
}

impl Default for Weight {
    fn default() -> Self {
        Weight::ONE
    }
}

/// What the scheduler knows of one UE in this TTI. Every field is valid by its type, so a
/// scheduler takes every state as it comes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UeState<'a> {
    /// UE identifier (unique within the cell).
    pub ue: u32,
    /// RLC buffer status, bytes: new data, RLC retransmissions and status PDUs.
    pub buffer_bytes: u64,
    /// Wideband CQI (CQI 0 = out of range: no new data).
    pub wideband_cqi: Cqi,
    /// Subband CQIs, if the UE reports them. The schedulers in this module allocate whole-band
    /// and use the wideband values only.
    pub subband_cqi: Option<&'a [Cqi]>,
    /// MCS for new data, chosen by link adaptation from the CQI. At CQI 0 the UE gets no new
    /// data and the value is not used.
    pub mcs: Mcs,
    /// Layers of new data (the rank the UE reported; 1 in LTE).
    pub layers: Layers,
    /// Weighted-fair-queueing weight.
    pub weight: Weight,
    /// The HARQ retransmission this UE is waiting for, if any.
    pub harq_retx: Option<HarqRetx>,
}

/// One downlink assignment of a TTI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allocation {
    /// UE identifier.
    pub ue: u32,
    /// PRBs assigned, ≥ 1.
    pub n_prb: u32,
    /// MCS of the transport block.
    pub mcs: Mcs,
    /// Layers of the transport block.
    pub layers: Layers,
    /// Transport block size, bytes (`TbsLookup::tbs_bits / 8`), > 0.
    pub tbs_bytes: u32,
    /// True for a HARQ retransmission, false for new data.
    pub harq_retx: bool,
}

/// A downlink MAC scheduler (the eNodeB's per-TTI resource allocation).
///
/// Call order per TTI: [`schedule`](MacScheduler::schedule) once, then, when the outcome of
/// the transmissions is known, [`on_tti_end`](MacScheduler::on_tti_end) with the same `tti`.
/// TTIs in which the cell has nothing to schedule may be skipped entirely; schedulers that keep
/// time averages account for skipped TTIs from the `tti` numbers.
pub trait MacScheduler: Send {
    /// Name used in scenario files and traces, e.g. "proportional_fair".
    fn name(&self) -> &'static str;

    /// Allocates up to `n_prb` PRBs of TTI `tti` among `ues`. `out` is cleared, then filled:
    /// HARQ retransmissions first, then new data in the scheduler's priority order. If a UE
    /// identifier appears more than once in `ues`, only its first entry is considered.
    fn schedule(
        &mut self,
        tti: u64,
        n_prb: u32,
        ues: &[UeState<'_>],
        tbs: &dyn TbsLookup,
        out: &mut Vec<Allocation>,
    );

    /// Bits actually delivered to each UE in TTI `tti`, as `(ue, bits)` (decoded transport
    /// blocks only); UEs not listed received nothing.
    fn on_tti_end(&mut self, tti: u64, served: &[(u32, u32)]);

    /// Forgets the state kept for `ue` (it left the cell, e.g. after a handover).
    fn on_ue_removed(&mut self, _ue: u32) {}
}

/// Names accepted by [`build`], in the order of `docs/mac-schedulers.md`.
pub const NAMES: &[&str] = &["round_robin", "proportional_fair", "max_ci", "wfq"];

/// Parameters of the schedulers that have any.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MacSchedulerConfig {
    /// Time constant t_c of the proportional-fair throughput average, TTIs (> 0; ≥ 1 is
    /// meaningful). Default [`proportional_fair::DEFAULT_TIME_CONSTANT_TTI`].
    pub pf_time_constant_tti: f64,
}

impl Default for MacSchedulerConfig {
    fn default() -> Self {
        MacSchedulerConfig {
            pf_time_constant_tti: proportional_fair::DEFAULT_TIME_CONSTANT_TTI,
        }
    }
}

/// Why a scheduler or a [`Weight`] could not be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MacError {
    #[error("MAC scheduler '{name}' is unknown; expected one of {expected}")]
    UnknownScheduler { name: String, expected: String },
    #[error("{key}: {value} is invalid; expected {expected}")]
    InvalidParameter {
        key: &'static str,
        value: f64,
        expected: &'static str,
    },
}

/// Builds the scheduler called `name` (one of [`NAMES`]) with the parameters of `cfg`.
pub fn build(name: &str, cfg: &MacSchedulerConfig) -> Result<Box<dyn MacScheduler>, MacError> {
    match name {
        "round_robin" => Ok(Box::new(RoundRobin::new())),
        "proportional_fair" => Ok(Box::new(ProportionalFair::new(cfg.pf_time_constant_tti)?)),
        "max_ci" => Ok(Box::new(MaxCi::new())),
        "wfq" => Ok(Box::new(Wfq::new())),
        _ => Err(MacError::UnknownScheduler {
            name: name.to_string(),
            expected: NAMES.join(", "),
        }),
    }
}
