//! The run summary (`summary.json`): per flow, per link direction, and the run's identity.
//!
//! Every figure is a deterministic function of the inputs (no wall-clock time), so two runs with
//! the same scenario, seed and run number produce identical bytes. The summary is a
//! [`Summary`] (`summary/types.rs`); its JSON objects are ordered by key (serde_json's default
//! map), a figure without a sample (NaN) is null.

mod figures;
mod types;

use std::collections::BTreeMap;

use celltcp_engine::{RunOutcome, SimTime};
use celltcp_net::medium::Medium;
use celltcp_net::world::{AgentId, World};
use serde_json::Value;

pub use figures::{
    CellFigures, DchFigures, DchUplinkFigures, FigureCatalog, Figures, MiddleboxFigures,
    ReceiverFigures, SenderFigures, UeFigures,
};
pub use types::{
    CellSummary, DchSummary, EpcEndpointSummary, FlowDrops, FlowSummary, ForwardingSummary,
    HandoverEntry, HandoverResultCounts, HandoverSummary, LinkDirectionSummary, LinkDrops,
    LinkSummary, MiddleboxSummary, RanSection, Summary, TcpOutcomeCounts,
};

use crate::handovers::HandoverOutputs;
use crate::labels::Label;
use crate::RunStopReason;

/// What the summary needs to know about each flow beyond the world's counters.
#[derive(Clone, Debug)]
pub struct FlowInfo {
    pub name: String,
    pub kind: &'static str,
    pub src: String,
    pub dst: String,
    pub start: SimTime,
    /// End of the flow's active period: its stop time or the end of the run.
    pub end: SimTime,
    pub sender: AgentId,
    pub receiver: AgentId,
}

/// `v` when finite, else `None` (written as null).
pub fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

fn report<C>(world: &World, agent: AgentId, now: SimTime) -> Figures<C> {
    world.agent_report(agent, now).into_iter().collect()
}

fn flow_summary(world: &World, id: usize, f: &FlowInfo, now: SimTime) -> FlowSummary {
    let c = &world.flow_counters[id];
    let active_s = f.end.saturating_since(f.start).as_secs_f64();
    let sender: Figures<SenderFigures> = report(world, f.sender, now);
    let receiver: Figures<ReceiverFigures> = report(world, f.receiver, now);
    // Throughput counts IP bytes delivered to the destination; goodput counts application bytes.
    let throughput = c.bytes_delivered as f64 * 8.0 / active_s;
    let app_bytes = receiver
        .get("payload_bytes_received")
        .or_else(|| receiver.get("bytes_delivered"))
        .flatten()
        .unwrap_or(0.0);
    // Loss ratio over the flow's packets (both directions) whose fate is known — delivered or
    // dropped — so that packets still in flight at the end do not count as lost.
    let known = c.packets_delivered + c.drops();
    let loss = if known > 0 {
        c.drops() as f64 / known as f64
    } else {
        f64::NAN
    };
    // Of `packets_sent`, those middleboxes emitted; and the packets they absorbed.
    let middleboxes = world.middleboxes().next().is_some();
    // One-way delay and RFC 3550 jitter of the packets delivered to the destination host.
    let secs = |ns: Option<u64>| ns.map(|v| v as f64 * 1e-9);
    FlowSummary {
        kind: f.kind,
        src: f.src.clone(),
        dst: f.dst.clone(),
        start_s: f.start.as_secs_f64(),
        end_s: f.end.as_secs_f64(),
        throughput_bps: finite(throughput),
        goodput_bps: finite(app_bytes * 8.0 / active_s),
        loss_ratio: finite(loss),
        packets_sent: c.packets_sent,
        packets_delivered: c.packets_delivered,
        middlebox_packets_sent: middleboxes.then_some(c.middlebox_packets_sent),
        middlebox_absorbed: middleboxes.then_some(c.middlebox_absorbed),
        drops: FlowDrops {
            queue_full: c.drops_queue_full,
            aqm: c.drops_aqm,
            link_loss: c.drops_link_loss,
            no_route: c.drops_no_route,
            outage: c.drops_outage,
            ecn_decap: c.drops_ecn_decap,
            handover: c.drops_handover,
        },
        delay_mean_s: c.delay_ns.mean().map(|v| v * 1e-9).and_then(finite),
        delay_p50_s: secs(c.delay_ns.quantile(0.5)),
        delay_p95_s: secs(c.delay_ns.quantile(0.95)),
        delay_max_s: secs(c.delay_ns.max()),
        jitter_s: (c.packets_delivered > 1)
            .then_some(c.jitter_ns * 1e-9)
            .and_then(finite),
        sender,
        receiver,
    }
}

fn link_summary(world: &World, link: usize, end: SimTime) -> LinkSummary {
    let ends = &world.topo.links[link];
    let direction = |i: usize| {
        let d = &world.dirs[2 * link + i];
        let q = d.queue.stats();
        let s = &d.stats;
        LinkDirectionSummary {
            rate_bps: d.rate_bps,
            delay_s: d.delay.as_secs_f64(),
            queue: d.queue.kind(),
            packets_sent: s.packets_sent,
            bytes_sent: s.bytes_sent,
            packets_delivered: s.packets_delivered,
            bytes_delivered: s.bytes_delivered,
            drops: LinkDrops {
                queue_full: q.dropped_full,
                aqm: q.dropped_aqm,
                link_loss: s.drops_link_loss,
                outage: s.drops_outage,
                handover: s.drops_handover,
            },
            ecn_marks: q.ce_marked,
            queue_mean_packets: finite(d.occupancy_packets.mean(end)),
            queue_max_packets: d.occupancy_packets.max(),
            queue_mean_bytes: finite(d.occupancy_bytes.mean(end)),
            queue_max_bytes: d.occupancy_bytes.max(),
            utilization: finite(d.utilization(end)),
        }
    };
    LinkSummary {
        a: world.topo.nodes[ends.a.index()].name.clone(),
        b: world.topo.nodes[ends.b.index()].name.clone(),
        a_to_b: direction(0),
        b_to_a: direction(1),
    }
}

/// Per cell (or network): its figures, with per-UE figures grouped under `ues.<name>` (the
/// medium reports them as `ue.<node id>.<figure>`).
fn cell_summary(world: &World, medium: &dyn Medium, end: SimTime) -> CellSummary {
    let mut cell = CellSummary::default();
    for (key, value) in medium.report(end) {
        let ue_figure = key.strip_prefix("ue.").and_then(|rest| {
            let (id, figure) = rest.split_once('.')?;
            let node = world.topo.nodes.get(id.parse::<usize>().ok()?)?;
            Some((node.name.clone(), figure.to_string()))
        });
        match ue_figure {
            Some((ue, figure)) => cell.ues.entry(ue).or_default().insert(figure, value),
            None => cell.figures.insert(key, value),
        }
    }
    cell
}

/// What the summary of a run is made from besides the world: the run's identity, how it
/// ended, its flows, and the parts only the scenario knows.
pub struct SummaryInputs<'a> {
    pub seed: u64,
    pub run: u64,
    pub outcome: &'a RunOutcome,
    pub flows: &'a [FlowInfo],
    /// The scenario as run ([`Summary::scenario`]).
    pub scenario: Value,
    /// A dedicated channel's summary when the medium is one (the scenario's `[dch]`), else
    /// `None`: the medium is a cell or a network.
    pub dch: &'a dyn Fn(&World, &dyn Medium) -> Option<DchSummary>,
    /// The middleboxes' section ([`Summary::middleboxes`]).
    pub middleboxes: Option<BTreeMap<String, MiddleboxSummary>>,
    /// The handovers, when a handover could happen: the `handovers` section.
    pub handovers: Option<&'a HandoverOutputs>,
}

/// The run summary of `world` at the end of its run.
pub fn make(world: &World, inputs: SummaryInputs<'_>) -> Summary {
    let SummaryInputs {
        seed,
        run,
        outcome,
        flows,
        scenario,
        dch: dch_of,
        middleboxes,
        handovers,
    } = inputs;
    let end = outcome.end_time;
    let flows = flows
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.clone(), flow_summary(world, i, f, end)))
        .collect();
    let links = (0..world.p2p_links())
        .map(|l| {
            (
                world.topo.links[l].name.clone(),
                link_summary(world, l, end),
            )
        })
        .collect();
    let epc = world
        .epc()
        .map(|epc| {
            epc.endpoints()
                .map(|(node, st)| {
                    (
                        world.topo.nodes[node.index()].name.clone(),
                        EpcEndpointSummary {
                            encapsulated: st.encapsulated,
                            decapsulated: st.decapsulated,
                            ce_propagated: st.ce_propagated,
                            ce_lost: st.ce_lost,
                            drops_ecn_decap: st.drops_ecn_decap,
                        },
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    // A network medium (a radio access network) lists its cells as plain cells are listed,
    // and its own figures under `ran`.
    let mut cells = BTreeMap::new();
    let mut ran = BTreeMap::new();
    let mut dch = BTreeMap::new();
    for m in world.media() {
        if let Some(channel) = dch_of(world, m) {
            dch.insert(m.name().to_string(), channel);
            continue;
        }
        let parts = m.parts();
        if parts.is_empty() {
            cells.insert(m.name().to_string(), cell_summary(world, m, end));
        } else {
            for p in parts {
                cells.insert(p.name().to_string(), cell_summary(world, p, end));
            }
            ran.insert(m.name().to_string(), cell_summary(world, m, end));
        }
    }
    // With one network (the usual case) its figures are `ran` itself.
    let ran = match ran.len() {
        0 => None,
        1 => ran.into_values().next().map(RanSection::One),
        _ => Some(RanSection::Many(ran)),
    };
    let forwarding: BTreeMap<String, ForwardingSummary> = world
        .forwarding_buffers()
        .map(|(node, f)| {
            let s = f.stats();
            let wait = celltcp_engine::SimDuration::from_ns(s.max_wait_ns);
            let summary = ForwardingSummary {
                released: s.released,
                dropped: s.dropped,
                peak_bytes: s.peak_bytes,
                max_wait_s: wait.as_secs_f64(),
            };
            (world.topo.nodes[node.index()].name.clone(), summary)
        })
        .collect();
    Summary {
        celltcp_version: env!("CARGO_PKG_VERSION"),
        seed,
        run,
        simulated_time_s: end.as_secs_f64(),
        events: outcome.events,
        stop_reason: Label::new(RunStopReason::from(outcome.reason).as_str()),
        scenario,
        flows,
        links,
        cells,
        epc,
        ran,
        dch: (!dch.is_empty()).then_some(dch),
        middleboxes,
        handovers: handovers.map(|h| h.summary(world)),
        forwarding: (!forwarding.is_empty()).then_some(forwarding),
        emulation: None,
    }
}
