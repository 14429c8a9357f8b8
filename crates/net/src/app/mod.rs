//! Applications that run directly over the network layer (TCP applications live in
//! `celltcp-tcp`).

pub mod udp;
