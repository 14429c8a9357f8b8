//! A sans-IO TCP endpoint with pluggable congestion controllers.
//!
//! The endpoint never reads a clock or a socket: segments and time come in as arguments,
//! segments to send and the next timer deadline come out (as in quinn-proto and smoltcp).
//!
//! One concept per module: [`config`], [`seq`] (sequence arithmetic), [`rtt`] (RFC 6298),
//! [`negotiated`] (the handshake's options), [`send_window`] (SND.UNA/SND.NXT/SND.WND,
//! RFC 9293 §3.3.1), [`send_buffer`] and [`scoreboard`] (RFC 6675), [`recovery`] (RFC 5681/6582/6675/3042),
//! [`rack`] (lost retransmissions in RTO recovery, RFC 8985), [`tlp`] (tail loss probes,
//! RFC 8985 §7), [`spurious`] (RFC 5682, RFC
//! 3522/4015), [`receiver`] (reassembly, delayed ACK, SACK, ECN
//! echo, window), [`ack_control`] (receiver ACK copies), [`rate`] (delivery-rate estimation),
//! [`endpoint`] (the RFC 9293 state machine), [`app`] (applications) and [`agent`] (the
//! network adapter). Middleboxes on routers, TCP-aware: [`snoop`] (Snoop at a base station)
//! and [`eln`] (the base station's Explicit Loss Notification marker).

pub mod ack_control;
pub mod agent;
pub mod app;
pub mod cc;
pub mod config;
pub mod ecn_sender;
pub mod eln;
pub mod endpoint;
pub mod models;
pub mod negotiated;
pub mod persist;
pub mod proxy;
pub mod rack;
pub mod rate;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod scoreboard;
pub mod send_buffer;
pub mod send_window;
pub mod seq;
pub mod snoop;
pub mod spurious;
pub mod stats;
pub mod tlp;

pub use config::{AckControlConfig, TcpConfig, TcpConfigError};
pub use endpoint::{TcpEndpoint, TcpState};
pub use negotiated::NegotiatedOptions;
pub use recovery::RecoveryPhase;
pub use stats::TcpStats;

#[cfg(test)]
mod tests;
