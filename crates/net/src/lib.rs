//! The wired network of celltcp.
//!
//! Layers, each in its own module: [`packet`] (plain-value packets), [`wire`] (byte-exact
//! headers and checksums) and [`pcap`] (captures), [`queue`] (queue disciplines, one file each),
//! [`loss`] (loss models, one file each), [`link`] (point-to-point transmission), [`topology`]
//! and [`routing`] (nodes, links and static shortest paths), [`app`] (UDP applications), and
//! [`world`] (the engine model that ties them together and hosts transport agents).

pub mod loss;
pub mod packet;
pub mod pcap;
pub mod queue;
pub mod wire;
