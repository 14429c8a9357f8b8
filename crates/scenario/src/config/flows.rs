//! `[flows.NAME]`: application flows between hosts; the UDP source, and what all flows share
//! (ends, start and stop, ports). TCP flows are in [`super::tcp`].

use std::collections::BTreeMap;

use celltcp_engine::SimDuration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize, Serializer};

use super::links::Link;
use super::nodes::{Node, NodeKind};
use super::quantity::{Quantity, Rate, Size, Time};
use super::simulation::Simulation;
use super::tcp::{TcpFlow, TcpFlowFile};
use super::KindTagged;
use crate::error::join_key;
use crate::validate::{check_name, connected, node_ref};
use crate::ScenarioError;

/// First default source port (the IANA dynamic range, RFC 6335 §6); flow i gets base + i.
pub const DEFAULT_SRC_PORT_BASE: u16 = 49152;
/// First default destination port (iperf's 5001); flow i gets base + i.
pub const DEFAULT_DST_PORT_BASE: u16 = 5001;

/// `[flows.NAME]`: an application flow, a table tagged by `kind` (udp, tcp).
// Parsed once per file; boxing the larger variant would only complicate the code.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(tag = "kind")]
pub enum FlowFile {
    /// A UDP source (constant bit rate or Poisson) and a sink.
    Udp(UdpFlowFile),
    /// A TCP sender at src with an application, and a TCP receiver at dst.
    Tcp(TcpFlowFile),
}

impl Serialize for FlowFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            FlowFile::Udp(body) => KindTagged { kind: "udp", body }.serialize(s),
            FlowFile::Tcp(body) => KindTagged { kind: "tcp", body }.serialize(s),
        }
    }
}

/// How UDP datagrams are spaced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Arrival {
    /// Constant spacing: packet_size / rate.
    #[default]
    Cbr,
    /// Exponential inter-departure times with mean packet_size / rate.
    Poisson,
}

/// A UDP flow (`kind = "udp"`): a source at `src` and a sink at `dst`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UdpFlowFile {
    /// Sending host.
    pub src: String,
    /// Receiving host.
    pub dst: String,
    /// When the source starts (a time, before the end of the run).
    #[serde(default = "zero_start")]
    pub start: Quantity<Time>,
    /// When the source stops (a time, after start, at most the run's duration); end of run by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Quantity<Time>>,
    /// Mean sending rate of application payload (a rate, > 0).
    pub rate: Quantity<Rate>,
    /// UDP payload per datagram (a size, 1B to 65507B).
    #[serde(default = "default_packet_size")]
    pub packet_size: Quantity<Size>,
    /// "cbr" (constant spacing) or "poisson" (exponential inter-departure times).
    #[serde(default)]
    pub arrival: Arrival,
    /// Source port; 49152 + i for the i-th flow in name order by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub src_port: Option<u16>,
    /// Destination port; 5001 + i for the i-th flow in name order by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub dst_port: Option<u16>,
}

pub(crate) fn zero_start() -> Quantity<Time> {
    Quantity::default_of("0s")
}
fn default_packet_size() -> Quantity<Size> {
    Quantity::default_of("1000B")
}

/// Largest UDP payload over IPv4: 65535 − 20 (IP header) − 8 (UDP header) bytes.
pub const MAX_UDP_PAYLOAD: u64 = 65_507;

/// An application flow from `src` to `dst`.
#[derive(Clone, Debug, PartialEq)]
pub struct Flow {
    /// Sending host (the TCP sender for TCP flows).
    pub src: String,
    /// Receiving host.
    pub dst: String,
    /// Start time, nanoseconds since the start of the run.
    pub start: SimDuration,
    /// Stop time, nanoseconds; `None` runs to the end.
    pub stop: Option<SimDuration>,
    /// Port at `src`.
    pub src_port: u16,
    /// Port at `dst`.
    pub dst_port: u16,
    pub kind: FlowKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FlowKind {
    Udp(UdpFlow),
    Tcp(TcpFlow),
}

impl FlowKind {
    /// "udp" or "tcp".
    pub fn as_str(&self) -> &'static str {
        match self {
            FlowKind::Udp(_) => "udp",
            FlowKind::Tcp(_) => "tcp",
        }
    }
}

/// A UDP source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UdpFlow {
    /// Mean payload rate, bits per second (> 0).
    pub rate_bps: u64,
    /// Payload bytes per datagram (1 to 65507).
    pub packet_size: u32,
    pub arrival: Arrival,
}

/// The fields every flow has, borrowed from either kind.
struct Ends<'a> {
    src: &'a str,
    dst: &'a str,
    start: &'a Quantity<Time>,
    stop: Option<&'a Quantity<Time>>,
    src_port: &'a mut Option<u16>,
    dst_port: &'a mut Option<u16>,
}

impl FlowFile {
    fn ends(&mut self) -> Ends<'_> {
        match self {
            FlowFile::Udp(f) => Ends {
                src: &f.src,
                dst: &f.dst,
                start: &f.start,
                stop: f.stop.as_ref(),
                src_port: &mut f.src_port,
                dst_port: &mut f.dst_port,
            },
            FlowFile::Tcp(f) => Ends {
                src: &f.src,
                dst: &f.dst,
                start: &f.start,
                stop: f.stop.as_ref(),
                src_port: &mut f.src_port,
                dst_port: &mut f.dst_port,
            },
        }
    }
}

impl UdpFlowFile {
    fn convert(&self, key: &str) -> Result<UdpFlow, ScenarioError> {
        if self.rate.value == 0 {
            return Err(ScenarioError::new(
                join_key(key, "rate"),
                format!("'{}' must be > 0", self.rate),
            ));
        }
        let size = self.packet_size.value;
        if size == 0 || size > MAX_UDP_PAYLOAD {
            return Err(ScenarioError::new(
                join_key(key, "packet_size"),
                format!(
                    "'{}' is out of range; expected 1B to {MAX_UDP_PAYLOAD}B",
                    self.packet_size
                ),
            ));
        }
        Ok(UdpFlow {
            rate_bps: self.rate.value,
            packet_size: size as u32,
            arrival: self.arrival,
        })
    }
}

/// Converts all flows, writing resolved default ports back into `file`.
pub(crate) fn convert(
    file: &mut BTreeMap<String, FlowFile>,
    sim: &Simulation,
    sim_duration_text: &str,
    nodes: &BTreeMap<String, Node>,
    links: &BTreeMap<String, Link>,
    radio_edges: &[(String, String)],
) -> Result<BTreeMap<String, Flow>, ScenarioError> {
    // (node, protocol, port) → flow that uses it, to reject two sockets on one port.
    let mut sockets: BTreeMap<(String, &'static str, u16), String> = BTreeMap::new();
    let mut flows = BTreeMap::new();
    for (index, (name, flow)) in file.iter_mut().enumerate() {
        check_name("flows", name)?;
        let key = join_key("flows", name);
        let kind = match &*flow {
            FlowFile::Udp(f) => FlowKind::Udp(f.convert(&key)?),
            FlowFile::Tcp(f) => FlowKind::Tcp(f.convert(&key)?),
        };
        let protocol = kind.as_str();
        let ends = flow.ends();
        for (field, node) in [("src", ends.src), ("dst", ends.dst)] {
            let field_key = join_key(&key, field);
            node_ref(&field_key, node, nodes)?;
            if nodes[node].kind != NodeKind::Host {
                return Err(ScenarioError::new(
                    field_key,
                    format!("node '{node}' is a router; flows run between hosts"),
                ));
            }
        }
        if ends.src == ends.dst {
            return Err(ScenarioError::new(
                join_key(&key, "dst"),
                format!(
                    "'{}' is also the source; a flow needs two different hosts",
                    ends.dst
                ),
            ));
        }
        if !connected(links, radio_edges, nodes, ends.src, ends.dst) {
            return Err(ScenarioError::new(
                &key,
                format!("no path from '{}' to '{}'", ends.src, ends.dst),
            ));
        }
        let start = ends.start.value;
        if start >= sim.duration {
            return Err(ScenarioError::new(
                join_key(&key, "start"),
                format!(
                    "'{}' is not before the end of the run (simulation.duration = '{sim_duration_text}')",
                    ends.start
                ),
            ));
        }
        if let Some(stop) = ends.stop {
            if stop.value <= start {
                return Err(ScenarioError::new(
                    join_key(&key, "stop"),
                    format!("'{stop}' is not after start ('{}')", ends.start),
                ));
            }
            if stop.value > sim.duration {
                return Err(ScenarioError::new(
                    join_key(&key, "stop"),
                    format!("'{stop}' is after the end of the run (simulation.duration = '{sim_duration_text}')"),
                ));
            }
        }
        let src_port = port(
            &key,
            "src_port",
            *ends.src_port,
            DEFAULT_SRC_PORT_BASE,
            index,
        )?;
        let dst_port = port(
            &key,
            "dst_port",
            *ends.dst_port,
            DEFAULT_DST_PORT_BASE,
            index,
        )?;
        for (field, node, port) in [
            ("src_port", ends.src, src_port),
            ("dst_port", ends.dst, dst_port),
        ] {
            if let Some(other) = sockets.insert((node.to_owned(), protocol, port), name.clone()) {
                return Err(ScenarioError::new(
                    join_key(&key, field),
                    format!("{protocol} port {port} on '{node}' is already used by flow '{other}'"),
                ));
            }
        }
        *ends.src_port = Some(src_port);
        *ends.dst_port = Some(dst_port);
        flows.insert(
            name.clone(),
            Flow {
                src: ends.src.to_owned(),
                dst: ends.dst.to_owned(),
                start,
                stop: ends.stop.map(|s| s.value),
                src_port,
                dst_port,
                kind,
            },
        );
    }
    Ok(flows)
}

/// The port given, or `base + index` by default.
fn port(
    key: &str,
    field: &str,
    given: Option<u16>,
    base: u16,
    index: usize,
) -> Result<u16, ScenarioError> {
    let key = join_key(key, field);
    match given {
        Some(0) => Err(ScenarioError::new(
            key,
            "0 is not a usable port; expected 1 to 65535",
        )),
        Some(p) => Ok(p),
        None => u16::try_from(base as usize + index).map_err(|_| {
            ScenarioError::new(
                key,
                format!("the default port {base} + {index} is above 65535; set {field} explicitly"),
            )
        }),
    }
}
