//! A sans-IO TCP endpoint with pluggable congestion controllers.
//!
//! The endpoint never reads a clock or a socket: segments and time come in as arguments,
//! segments to send and the next timer deadline come out (as in quinn-proto and smoltcp).

pub mod cc;
