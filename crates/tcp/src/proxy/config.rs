//! Configuration of the split-TCP proxy and its validation at the boundary.

use std::net::Ipv4Addr;

use thiserror::Error;

use crate::cc;
use crate::config::{TcpConfig, TcpConfigError};

/// Controller of the proxy's connections towards the servers. Those connections mostly
/// receive (downlink); the standard controller of RFC 5681/RFC 6582 carries whatever the
/// mobile hosts send (requests, uploads).
pub const CC_TO_SERVER: &str = "newreno";

/// Everything that parameterises a [`SplitTcpProxy`](super::SplitTcpProxy).
#[derive(Clone, Debug, PartialEq)]
pub struct SplitTcpConfig {
    /// Addresses of the hosts behind the proxy (the UEs). A connection between one of them and
    /// an address not in the list is split; every other packet passes untouched.
    pub mobile_side: Vec<Ipv4Addr>,
    /// The proxy's connections towards the mobile hosts: MSS, initial window (seed 001,
    /// slide 14: "up to maximum 10 MSS"), buffers, delayed ACK, RTO bounds.
    pub to_mobile: TcpConfig,
    /// Congestion controller of the connections towards the mobile hosts (one of
    /// [`cc::NAMES`]).
    pub cc_to_mobile: String,
    /// The proxy's connections towards the servers: receive buffer (`rcv_buf_bytes`, the
    /// window the server sees), delayed ACK, MSS. Their controller is [`CC_TO_SERVER`].
    pub to_server: TcpConfig,
    /// Relay buffer per direction of a split connection, bytes: the proxy reads from the
    /// receiving connection only while fewer than this many bytes wait in the relay (read and
    /// not yet acknowledged by the other side). Once the relay is full, the receiving
    /// connection's buffer fills and its advertised window closes (RFC 9293 §3.8.6 flow
    /// control). A read takes all the in-order data the receiving connection holds, so the
    /// relay holds at most `relay_buffer_bytes` plus that connection's receive buffer.
    pub relay_buffer_bytes: u64,
}

impl Default for SplitTcpConfig {
    /// No mobile hosts (to be filled in), IW 10 towards the mobiles with NewReno, default
    /// endpoints otherwise, and a relay of 1 MiB per direction.
    fn default() -> Self {
        SplitTcpConfig {
            mobile_side: Vec::new(),
            to_mobile: TcpConfig {
                initial_window: 10,
                ..TcpConfig::default()
            },
            cc_to_mobile: "newreno".to_owned(),
            to_server: TcpConfig::default(),
            relay_buffer_bytes: 1 << 20,
        }
    }
}

/// Why a proxy could not be built. Messages name the key as in scenario files.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum ProxyError {
    #[error("mobile_side: empty; expected the addresses of the hosts behind the proxy")]
    NoMobileSide,
    #[error("cc_to_mobile: '{name}' is not a congestion controller; expected one of {expected}")]
    UnknownCc { name: String, expected: String },
    #[error("to_mobile.{0}")]
    ToMobile(TcpConfigError),
    #[error("to_server.{0}")]
    ToServer(TcpConfigError),
    #[error("relay_buffer_bytes: {value} is out of range; expected >= to_mobile.mss ({mss})")]
    RelayTooSmall { value: u64, mss: u32 },
}

impl SplitTcpConfig {
    /// Checks every field; the proxy is built only from a valid configuration.
    pub fn validate(&self) -> Result<(), ProxyError> {
        if self.mobile_side.is_empty() {
            return Err(ProxyError::NoMobileSide);
        }
        if !cc::NAMES.contains(&self.cc_to_mobile.as_str()) {
            return Err(ProxyError::UnknownCc {
                name: self.cc_to_mobile.clone(),
                expected: cc::NAMES.join(", "),
            });
        }
        self.to_mobile.validate().map_err(ProxyError::ToMobile)?;
        self.to_server.validate().map_err(ProxyError::ToServer)?;
        // A relay smaller than one segment could never hand the mobile side a full segment.
        if self.relay_buffer_bytes < self.to_mobile.mss as u64 {
            return Err(ProxyError::RelayTooSmall {
                value: self.relay_buffer_bytes,
                mss: self.to_mobile.mss,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid() -> SplitTcpConfig {
        SplitTcpConfig {
            mobile_side: vec![Ipv4Addr::new(10, 1, 0, 2)],
            ..Default::default()
        }
    }

    #[test]
    fn defaults_with_a_mobile_host_are_valid() {
        valid().validate().unwrap();
        assert_eq!(valid().to_mobile.initial_window, 10);
    }

    #[test]
    fn errors_name_the_key() {
        let cfg = SplitTcpConfig::default();
        assert!(cfg
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("mobile_side:"));

        let cfg = SplitTcpConfig {
            cc_to_mobile: "fast".into(),
            ..valid()
        };
        let msg = cfg.validate().unwrap_err().to_string();
        assert!(msg.starts_with("cc_to_mobile: 'fast'"), "{msg}");

        let mut cfg = valid();
        cfg.to_mobile.initial_window = 0;
        let msg = cfg.validate().unwrap_err().to_string();
        assert!(msg.starts_with("to_mobile.initial_window: 0"), "{msg}");

        let mut cfg = valid();
        cfg.to_server.mss = 10;
        let msg = cfg.validate().unwrap_err().to_string();
        assert!(msg.starts_with("to_server.mss: '10B'"), "{msg}");

        let cfg = SplitTcpConfig {
            relay_buffer_bytes: 100,
            ..valid()
        };
        let msg = cfg.validate().unwrap_err().to_string();
        assert!(msg.starts_with("relay_buffer_bytes: 100"), "{msg}");
    }
}
