//! From a validated [`Scenario`] to a runnable network world.
//!
//! Random streams are named after the scenario's own names (`link/access/a_to_b/loss`,
//! `flow/video/src`), never after creation order, so adding a flow or a link leaves every other
//! component's random numbers unchanged.

mod cells;
pub(crate) mod dch;
mod events;
mod handover;
pub(crate) mod middleboxes;
mod ran;

pub(crate) use handover::{user_trace, HandoverSetup};

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::fs::File;
use std::io::BufWriter;
use std::net::Ipv4Addr;
use std::path::PathBuf;

use celltcp_engine::{stream_seed, SimTime};
use celltcp_net::app::udp::{self, UdpSink, UdpSource, UdpSourceConfig};
use celltcp_net::gtp::EpcConfig;
use celltcp_net::link::LinkDirConfig;
use celltcp_net::loss::{Bernoulli, BitErrorRate, GeConfig, GilbertElliott, LossModel};
use celltcp_net::packet::{FlowId, NodeId};
use celltcp_net::pcap::PcapWriter;
use celltcp_net::queue::{CoDel, CoDelConfig, DropTail, ParamError, QueueDisc, Red, RedConfig};
use celltcp_net::topology::NodeKind as NetNodeKind;
use celltcp_net::trace::Traces;
use celltcp_net::world::{SeriesConfig, World, WorldBuilder, PROTO_TCP, PROTO_UDP};
use celltcp_tcp::ack_control::TerminalLossEstimate;
use celltcp_tcp::agent::{AgentError, TcpReceiverAgent, TcpSenderAgent};
use celltcp_tcp::app::{Bulk, FileReceipts, Ftp, OnOff, TcpApplication};

use crate::config::flows::{Arrival, FlowKind};
use crate::config::links::LinkDirection;
use crate::config::loss::LossSpec;
use crate::config::nodes::NodeKind;
use crate::config::queue::QueueSpec;
use crate::error::ScenarioError;
use crate::run::{RunError, RunOptions};
use crate::summary::FlowInfo;
use crate::AppSpec;
use crate::Scenario;

/// Largest IP packet assumed for CoDel's MTU parameter, bytes.
const CODEL_MTU_BYTES: u32 = 1500;

/// The links, cells and dedicated channels to capture and where their files go.
pub(crate) struct CaptureRequest {
    dir: Option<PathBuf>,
    links: Vec<String>,
    /// Cells and dedicated channels (`capture.cells`, or a `--pcap` name that is one).
    radio: BTreeSet<String>,
}

impl CaptureRequest {
    /// Merges the scenario's `capture.links` and `capture.cells` with the run options' names
    /// (each a link, a cell or a dedicated channel; a name that is both a link and a cell
    /// captures both) and checks every name.
    pub(crate) fn resolve(scenario: &Scenario, opts: &RunOptions) -> Result<Self, ScenarioError> {
        let mut links: BTreeSet<String> = scenario.capture.links.iter().cloned().collect();
        let mut radio: BTreeSet<String> = scenario.capture.cells.iter().cloned().collect();
        for l in &opts.capture_links {
            let is_link = scenario.links.contains_key(l);
            let is_radio = scenario.cells.contains_key(l) || scenario.dch.contains_key(l);
            if !is_link && !is_radio {
                let names = |keys: Vec<&String>| {
                    let v: Vec<&str> = keys.into_iter().map(String::as_str).collect();
                    if v.is_empty() {
                        "none".to_string()
                    } else {
                        v.join(", ")
                    }
                };
                return Err(ScenarioError::new(
                    "capture.links",
                    format!(
                        "'{l}' is not a link, a cell or a dedicated channel (links: {}; cells and channels: {})",
                        names(scenario.links.keys().collect()),
                        names(scenario.cells.keys().chain(scenario.dch.keys()).collect()),
                    ),
                ));
            }
            if is_link {
                links.insert(l.clone());
            }
            if is_radio {
                radio.insert(l.clone());
            }
        }
        if !(links.is_empty() && radio.is_empty()) && opts.capture_dir.is_none() {
            let key = if links.is_empty() {
                "capture.cells"
            } else {
                "capture.links"
            };
            return Err(ScenarioError::new(key, "captures need an output directory"));
        }
        Ok(CaptureRequest {
            dir: opts.capture_dir.clone(),
            links: links.into_iter().collect(),
            radio,
        })
    }

    /// No captures: the world is built to be checked, not run.
    pub(crate) fn none() -> Self {
        CaptureRequest {
            dir: None,
            links: Vec::new(),
            radio: BTreeSet::new(),
        }
    }

    pub(crate) fn dir_display(&self) -> PathBuf {
        self.dir.clone().unwrap_or_default()
    }

    /// The new file `NAME` + `suffix` of a captured cell or channel `name`, or `None` when it
    /// is not captured.
    pub(crate) fn radio_file(
        &self,
        name: &str,
        suffix: &str,
    ) -> Result<Option<celltcp_radio::cell::CaptureOut>, RunError> {
        let Some(dir) = self.dir.as_ref().filter(|_| self.radio.contains(name)) else {
            return Ok(None);
        };
        let path = dir.join(format!("{name}{suffix}"));
        let file = File::create(&path).map_err(|source| RunError::Io { path, source })?;
        Ok(Some(Box::new(BufWriter::new(file))))
    }
}

/// A world ready to run, with the names the summary and series need.
pub(crate) struct Built {
    pub world: World,
    pub flows: Vec<FlowInfo>,
    pub link_names: Vec<String>,
    pub flow_names: Vec<String>,
    /// What the handover outputs need (nothing to do when no handover can happen).
    pub handover: HandoverSetup,
}

/// Media whose state `[trace] cells` samples: without `[ran]` each cell is a medium, added in
/// cell name order, so a cell's medium index is its rank; with `[ran]` every cell is a part of
/// the one network medium, which is sampled whole (the series keeps the listed cells' rows).
fn traced_media(scenario: &Scenario) -> Vec<u32> {
    let cells = &scenario.trace.cells;
    if scenario.ran.is_some() {
        return if cells.is_empty() {
            Vec::new()
        } else {
            vec![0]
        };
    }
    cells
        .iter()
        .map(|c| {
            scenario
                .cells
                .keys()
                .position(|k| k == c)
                .expect("validated") as u32
        })
        .collect()
}

fn param(key: &str, e: ParamError) -> ScenarioError {
    ScenarioError::new(key, e.to_string())
}

fn queue_disc(
    spec: &QueueSpec,
    rate_bps: u64,
    key: &str,
) -> Result<Box<dyn QueueDisc>, ScenarioError> {
    let key = format!("{key}.queue");
    Ok(match *spec {
        QueueSpec::DropTail { limit } => {
            Box::new(DropTail::new(limit).map_err(|e| param(&key, e))?)
        }
        QueueSpec::Red {
            limit,
            min_th,
            max_th,
            max_p,
            w_q,
            gentle,
            ecn,
            byte_mode,
            mean_packet_size,
        } => Box::new(
            Red::new(RedConfig {
                limit,
                min_th,
                max_th,
                max_p,
                w_q,
                gentle,
                ecn,
                byte_mode,
                mean_packet_size,
                link_rate_bps: rate_bps,
            })
            .map_err(|e| param(&key, e))?,
        ),
        QueueSpec::CoDel {
            limit,
            target,
            interval,
            ecn,
        } => Box::new(
            CoDel::new(CoDelConfig {
                limit,
                target,
                interval,
                ecn,
                mtu: CODEL_MTU_BYTES,
            })
            .map_err(|e| param(&key, e))?,
        ),
    })
}

fn loss_model(spec: &LossSpec, key: &str) -> Result<Box<dyn LossModel>, ScenarioError> {
    let key = format!("{key}.loss");
    Ok(match *spec {
        LossSpec::Bernoulli { p } => Box::new(Bernoulli::new(p).map_err(|e| param(&key, e))?),
        LossSpec::Ber { ber } => Box::new(BitErrorRate::new(ber).map_err(|e| param(&key, e))?),
        LossSpec::GilbertElliott {
            p_good_to_bad,
            p_bad_to_good,
            loss_good,
            loss_bad,
        } => Box::new(
            GilbertElliott::new(GeConfig {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            })
            .map_err(|e| param(&key, e))?,
        ),
    })
}

fn link_dir(d: &LinkDirection, key: &str) -> Result<LinkDirConfig, ScenarioError> {
    Ok(LinkDirConfig {
        rate_bps: d.rate_bps,
        delay: d.delay,
        queue: queue_disc(&d.queue, d.rate_bps, key)?,
        loss: d.loss.as_ref().map(|l| loss_model(l, key)).transpose()?,
    })
}

/// The application of a TCP flow. An FTP schedule of inter-request times counts a file as done
/// when the receiving host has it: `receipts` is the record the flow's receiver fills.
fn tcp_app(spec: &AppSpec, receipts: &FileReceipts) -> Box<dyn TcpApplication> {
    match *spec {
        AppSpec::Bulk { bytes } => Box::new(Bulk::new(bytes)),
        AppSpec::Ftp {
            file_size,
            think_time_mean,
        } => Box::new(Ftp::new(file_size, think_time_mean)),
        AppSpec::FtpInterRequest {
            file_size,
            inter_request_mean,
        } => Box::new(
            Ftp::with_inter_request(file_size, inter_request_mean).with_receipts(receipts.clone()),
        ),
        AppSpec::OnOff {
            on_mean,
            off_mean,
            rate_bps,
        } => Box::new(OnOff::new(on_mean, off_mean, rate_bps)),
    }
}

/// Addresses: as given, else 10.0.x.y numbered from 1 in name order, skipping given ones.
fn addresses(scenario: &Scenario) -> Vec<Ipv4Addr> {
    let taken: BTreeSet<Ipv4Addr> = scenario.nodes.values().filter_map(|n| n.address).collect();
    let mut next = 1u32;
    scenario
        .nodes
        .values()
        .map(|n| {
            n.address.unwrap_or_else(|| loop {
                let a = Ipv4Addr::from(0x0a00_0000 | next);
                next += 1;
                if !taken.contains(&a) {
                    break a;
                }
            })
        })
        .collect()
}

fn index_of(names: &[String], name: &str) -> u32 {
    names
        .iter()
        .position(|n| n == name)
        .expect("validated name") as u32
}

/// Warnings about the scenario (see [`crate::run::check`]): UE routes that leave every cell's
/// coverage.
pub(crate) fn warnings(scenario: &Scenario) -> Result<Vec<crate::ScenarioWarning>, ScenarioError> {
    let node = |name: &str| scenario.node_id(name).unwrap_or_default();
    ran::route_warnings(scenario, &node)
}

pub(crate) fn build(
    scenario: &Scenario,
    seed: u64,
    run: u64,
    captures: &CaptureRequest,
) -> Result<Built, RunError> {
    let mut b = WorldBuilder::new(seed, run);
    let node_names: Vec<String> = scenario.nodes.keys().cloned().collect();
    for ((name, node), addr) in scenario.nodes.iter().zip(addresses(scenario)) {
        let kind = match node.kind {
            NodeKind::Host => NetNodeKind::Host,
            NodeKind::Router => NetNodeKind::Router,
        };
        b.add_node(name, kind, addr);
    }
    let node = |name: &str| NodeId(index_of(&node_names, name));

    let link_names: Vec<String> = scenario.links.keys().cloned().collect();
    for (name, link) in &scenario.links {
        let key = format!("links.{name}");
        let ab = link_dir(&link.a_to_b, &format!("{key}.a_to_b"))?;
        let ba = link_dir(&link.b_to_a, &format!("{key}.b_to_a"))?;
        b.add_link(name, node(&link.a), node(&link.b), link.metric, ab, ba);
    }

    cells::add_cells(&mut b, scenario, seed, run, &node, captures)?;
    let traced_dch = dch::add_dch(&mut b, scenario, seed, run, &node, captures)?;
    middleboxes::add_middleboxes(&mut b, scenario, &node)?;

    if let Some(epc) = &scenario.epc {
        // Every cell's eNB is an S1-U endpoint; its UEs get their bearers in cell, then UE,
        // name order, which fixes the TEIDs each endpoint allocates.
        let cfg = EpcConfig {
            gateway: node(&epc.gateway),
            ecn_decap: epc.ecn_decap.mode(),
            enbs: scenario.cells.values().map(|c| node(&c.file.enb)).collect(),
            attachments: scenario
                .cells
                .values()
                .flat_map(|c| c.file.ues.keys().map(|ue| (node(ue), node(&c.file.enb))))
                .collect(),
        };
        b.epc(&cfg)
            .map_err(|e| ScenarioError::new("epc", e.to_string()))?;
    }

    let end = SimTime::ZERO + scenario.simulation.duration;
    let flow_names: Vec<String> = scenario.flows.keys().cloned().collect();
    let mut flows = Vec::new();
    // Receiver ACK control (seed `004_…`): the radio loss estimate belongs to the receiving
    // terminal, so the TCP flows to one host that enable `ack_copies` share one estimate.
    let mut terminals: BTreeMap<&str, TerminalLossEstimate> = BTreeMap::new();
    for (name, flow) in &scenario.flows {
        let (src, dst) = (node(&flow.src), node(&flow.dst));
        let id = b.add_flow(dst);
        let start = SimTime::ZERO + flow.start;
        let stop = flow.stop.map_or(end, |s| SimTime::ZERO + s);
        let (src_addr, dst_addr) = (b.node_addr(src), b.node_addr(dst));
        let (sender, receiver) = match &flow.kind {
            FlowKind::Udp(u) => {
                let source = UdpSource::new(UdpSourceConfig {
                    flow: id,
                    src: (src_addr, flow.src_port),
                    dst: (dst_addr, flow.dst_port),
                    rate_bps: u.rate_bps,
                    payload_bytes: u.packet_size,
                    arrival: match u.arrival {
                        Arrival::Cbr => udp::Arrival::Cbr,
                        Arrival::Poisson => udp::Arrival::Poisson,
                    },
                    stop,
                });
                let sender = b.add_agent(
                    src,
                    id,
                    PROTO_UDP,
                    flow.src_port,
                    start,
                    &format!("flow/{name}/src"),
                    Box::new(source),
                );
                let receiver = b.add_agent(
                    dst,
                    id,
                    PROTO_UDP,
                    flow.dst_port,
                    SimTime::ZERO,
                    &format!("flow/{name}/dst"),
                    Box::new(UdpSink::new()),
                );
                (sender, receiver)
            }
            FlowKind::Tcp(t) => {
                let key = format!("flows.{name}");
                let cfg = t.settings;
                let agent_err =
                    |e: AgentError| ScenarioError::new(format!("{key}.tcp"), e.to_string());
                let receipts = FileReceipts::new();
                let app = tcp_app(&t.app, &receipts);
                // The controllers' own draws (BBR's ProbeBW phase) come from streams of the
                // flow's ends, apart from the agents' streams, so that they change no other
                // number of the run.
                let cc_seed = |end: &str| stream_seed(seed, run, &format!("flow/{name}/{end}/cc"));
                let sender = TcpSenderAgent::with_cc_name(
                    cfg,
                    id,
                    (src_addr, flow.src_port),
                    (dst_addr, flow.dst_port),
                    t.cc.name(),
                    cc_seed("src"),
                    app,
                )
                .map_err(agent_err)?;
                let sender = match flow.stop {
                    Some(_) => sender.with_stop(stop),
                    None => sender,
                };
                let ack_copies = cfg.ack_copies.enabled;
                let receiver = TcpReceiverAgent::with_cc_name(
                    cfg,
                    id,
                    (dst_addr, flow.dst_port),
                    t.cc.name(),
                    cc_seed("dst"),
                )
                .map_err(agent_err)?;
                let receiver = if ack_copies {
                    receiver.with_terminal_estimate(
                        terminals.entry(flow.dst.as_str()).or_default().clone(),
                    )
                } else {
                    receiver
                };
                let receiver = match t.app {
                    AppSpec::FtpInterRequest { .. } => receiver.with_receipts(receipts),
                    _ => receiver,
                };
                let s = b.add_agent(
                    src,
                    id,
                    PROTO_TCP,
                    flow.src_port,
                    start,
                    &format!("flow/{name}/src"),
                    Box::new(sender),
                );
                let r = b.add_agent(
                    dst,
                    id,
                    PROTO_TCP,
                    flow.dst_port,
                    SimTime::ZERO,
                    &format!("flow/{name}/dst"),
                    Box::new(receiver),
                );
                (s, r)
            }
        };
        flows.push(FlowInfo {
            name: name.clone(),
            kind: flow.kind.as_str(),
            src: flow.src.clone(),
            dst: flow.dst.clone(),
            start,
            end: stop,
            sender,
            receiver,
        });
    }

    let link_handovers = events::schedule(&mut b, scenario, |l| index_of(&link_names, l), node);

    let t = &scenario.trace;
    b.series(SeriesConfig {
        interval: t.interval,
        queue_links: t.queues.iter().map(|l| index_of(&link_names, l)).collect(),
        rate_flows: t
            .flows
            .iter()
            .map(|f| FlowId(index_of(&flow_names, f)))
            .collect(),
        packet_flows: t
            .packets
            .iter()
            .map(|f| FlowId(index_of(&flow_names, f)))
            .collect(),
        media: [traced_media(scenario), traced_dch].concat(),
        event_rows_limit: Some(t.max_event_rows),
    });
    let tcp_flows: Vec<FlowId> = t
        .tcp_flows
        .iter()
        .map(|f| FlowId(index_of(&flow_names, f)))
        .collect();
    let mut traces = Traces::new(&t.tcp).only_flows(&tcp_flows);
    let handover = HandoverSetup::new(scenario, link_handovers, &node);
    handover.enable_traces(&mut traces);
    b.traces(traces);

    if let Some(dir) = &captures.dir {
        for link in &captures.links {
            let path = dir.join(format!("{link}.pcap"));
            let file = File::create(&path).map_err(|source| RunError::Io {
                path: path.clone(),
                source,
            })?;
            let writer = PcapWriter::new(BufWriter::new(file), scenario.capture.snaplen).map_err(
                |source| RunError::Io {
                    path: path.clone(),
                    source,
                },
            )?;
            b.capture(index_of(&link_names, link), Box::new(writer));
        }
    }
    let mut world = b.build();
    // Trace-driven directions (`trace = "file"`) are served at the trace's delivery
    // opportunities; the world's link `name` holds directions 2·i (a→b) and 2·i + 1 (b→a).
    for (name, link) in &scenario.links {
        let i = world
            .topo
            .links
            .iter()
            .position(|l| &l.name == name)
            .expect("every link was added");
        for (d, dir) in [&link.a_to_b, &link.b_to_a].into_iter().enumerate() {
            if let Some(t) = &dir.trace {
                world.dirs[2 * i + d].serve_by_trace(t.trace.clone(), t.accounting);
            }
        }
    }
    Ok(Built {
        world,
        flows,
        link_names,
        flow_names,
        handover,
    })
}
