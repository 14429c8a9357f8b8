//! The wired network of celltcp.
//!
//! Layers, each in its own module: [`packet`] (plain-value packets), [`wire`] (byte-exact
//! headers and checksums) and [`pcap`] (captures), [`queue`] (queue disciplines, one file each),
//! [`loss`] (loss models, one file each), [`link`] (point-to-point transmission), [`topology`]
//! (nodes, links and static shortest-path routes), [`agent`] (transport endpoints on hosts),
//! [`app`] (UDP applications), [`trace`] (opt-in columnar series) and [`world`] (the engine model
//! that ties them together).

pub mod agent;
pub mod loss;
pub mod packet;
pub mod pcap;
pub mod queue;
pub mod trace;
pub mod wire;
