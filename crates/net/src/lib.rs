//! The wired network of celltcp.
//!
//! Layers, each in its own module: [`packet`] (plain-value packets), [`wire`] (byte-exact
//! headers and checksums) and [`pcap`] (captures), [`queue`] (queue disciplines, one file each),
//! [`loss`] (loss models, one file each), [`link`] (one direction of a point-to-point link,
//! fixed-rate or trace-driven), [`trace_file`] (Mahimahi delivery traces), [`trace_service`] (how
//! a trace serves packets: Mahimahi's byte accounting), [`medium`] (shared media such as cells),
//! [`forwarding`] (a base station's X2-U data forwarding), [`gtp`] (the EPC's GTP-U tunnels on
//! S1-U and ECN at their ends),
//! [`text_lines`] (line-by-line reading of input files, lines of bounded length),
//! [`id`] (the identifiers of nodes, flows, link directions and agents),
//! [`topology`] (nodes, links and static shortest-path routes), [`agent`] (transport endpoints on
//! hosts), [`app`] (UDP applications), [`stats`] (streaming statistics), [`trace`] (opt-in
//! columnar series) and [`world`] (the engine model that ties them together).

pub mod agent;
pub mod app;
pub mod forwarding;
pub mod gtp;
pub mod handover;
pub mod id;
pub mod link;
pub mod loss;
pub mod medium;
pub mod middlebox;
pub mod packet;
pub mod pcap;
pub mod pcapng;
pub mod queue;
pub mod stats;
pub mod text_lines;
pub mod topology;
pub mod trace;
pub mod trace_file;
pub mod trace_service;
pub mod wire;
pub mod world;
