//! Cellular radio access of celltcp, one module per layer with narrow interfaces between them
//! (as the 3GPP stack: PDCP ↔ RLC ↔ MAC ↔ PHY):
//!
//! * [`phy`]: the PHY abstraction — CQI, MCS and transport-block-size tables of TS 36.213 and
//!   block-error curves as a function of SINR; no signal processing.
//! * [`channel`]: path loss, shadowing, fast fading and interference giving each UE's SINR.
//! * [`mac`]: MAC schedulers (one file each) and HARQ processes.
//! * [`rlc`]: RLC acknowledged and unacknowledged mode entities (TS 36.322).
//! * [`pdcp`]: PDCP sequence numbering and reordering (TS 36.323).
//! * [`nr`]: the 5G NR PHY abstraction — numerologies, carriers, TDD patterns, the MCS, CQI
//!   and TBS rules of TS 38.214, LDPC segmentation, BLER, rank and HARQ timing.
//!
//! Every entity is sans-IO: it receives `now` and inputs, returns outputs and its next timer
//! deadline, and draws randomness only from the `RngStream` it is handed.

pub mod cell;
pub mod channel;
pub mod dch;
pub mod mac;
pub mod measurement;
pub mod mobility;
pub mod nr;
pub mod pdcp;
pub mod phy;
pub mod ran;
pub mod rlc;
