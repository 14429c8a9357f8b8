//! Tests of the radio access network, driven by a small stand-in for the world
//! ([`harness`]).

mod a3;
mod admission;
mod cho;
mod config_errors;
mod daps;
mod data_path;
mod dual_connectivity;
mod harness;
mod interference;
mod medium;
mod procedure;
mod rlf;
mod rsrq;
mod single_cell;
mod support;
