//! The run summary (`summary.json`): per flow, per link direction, and the run's identity.
//!
//! Every figure is a deterministic function of the inputs (no wall-clock time), so two runs with
//! the same scenario, seed and run number produce identical bytes. Keys are sorted (serde_json's
//! default map), NaN (no sample) is written as null.

use celltcp_engine::{RunOutcome, SimTime};
use celltcp_net::world::{AgentId, World};
use serde_json::{json, Map, Value};

use crate::handovers::HandoverOutputs;
use crate::Scenario;

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

fn num(v: f64) -> Value {
    if v.is_finite() {
        json!(v)
    } else {
        Value::Null
    }
}

fn report(world: &World, agent: AgentId, now: SimTime) -> Map<String, Value> {
    world
        .agent_report(agent, now)
        .into_iter()
        .map(|(k, v)| (k.to_string(), num(v)))
        .collect()
}

fn flow_summary(world: &World, id: usize, f: &FlowInfo, now: SimTime) -> Value {
    let c = &world.flow_counters[id];
    let mut m = Map::new();
    m.insert("kind".into(), json!(f.kind));
    m.insert("src".into(), json!(f.src));
    m.insert("dst".into(), json!(f.dst));
    m.insert("start_s".into(), num(f.start.as_secs_f64()));
    m.insert("end_s".into(), num(f.end.as_secs_f64()));
    let active_s = f.end.saturating_since(f.start).as_secs_f64();
    let sender = report(world, f.sender, now);
    let receiver = report(world, f.receiver, now);
    // Throughput counts IP bytes delivered to the destination; goodput counts application bytes.
    let throughput = c.bytes_delivered as f64 * 8.0 / active_s;
    m.insert("throughput_bps".into(), num(throughput));
    let app_bytes = receiver
        .get("payload_bytes_received")
        .or_else(|| receiver.get("bytes_delivered"))
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    m.insert("goodput_bps".into(), num(app_bytes * 8.0 / active_s));
    // Loss ratio over the flow's packets (both directions) whose fate is known — delivered or
    // dropped — so that packets still in flight at the end do not count as lost.
    let known = c.packets_delivered + c.drops();
    let loss = if known > 0 {
        c.drops() as f64 / known as f64
    } else {
        f64::NAN
    };
    m.insert("loss_ratio".into(), num(loss));
    m.insert("packets_sent".into(), json!(c.packets_sent));
    m.insert("packets_delivered".into(), json!(c.packets_delivered));
    if world.middleboxes().next().is_some() {
        // Of `packets_sent`, those middleboxes emitted; and the packets they absorbed.
        m.insert(
            "middlebox_packets_sent".into(),
            json!(c.middlebox_packets_sent),
        );
        m.insert("middlebox_absorbed".into(), json!(c.middlebox_absorbed));
    }
    m.insert(
        "drops".into(),
        json!({
            "queue_full": c.drops_queue_full,
            "aqm": c.drops_aqm,
            "link_loss": c.drops_link_loss,
            "no_route": c.drops_no_route,
            "outage": c.drops_outage,
            "ecn_decap": c.drops_ecn_decap,
            "handover": c.drops_handover,
        }),
    );
    // One-way delay and RFC 3550 jitter of the packets delivered to the destination host.
    let secs = |ns: Option<u64>| num(ns.map_or(f64::NAN, |v| v as f64 * 1e-9));
    m.insert(
        "delay_mean_s".into(),
        num(c.delay_ns.mean().map_or(f64::NAN, |v| v * 1e-9)),
    );
    m.insert("delay_p50_s".into(), secs(c.delay_ns.quantile(0.5)));
    m.insert("delay_p95_s".into(), secs(c.delay_ns.quantile(0.95)));
    m.insert("delay_max_s".into(), secs(c.delay_ns.max()));
    m.insert(
        "jitter_s".into(),
        num(if c.packets_delivered > 1 {
            c.jitter_ns * 1e-9
        } else {
            f64::NAN
        }),
    );
    m.insert("sender".into(), Value::Object(sender));
    m.insert("receiver".into(), Value::Object(receiver));
    Value::Object(m)
}

fn link_summary(world: &World, link: usize, end: SimTime) -> Value {
    let ends = &world.topo.links[link];
    let mut m = Map::new();
    m.insert("a".into(), json!(world.topo.nodes[ends.a as usize].name));
    m.insert("b".into(), json!(world.topo.nodes[ends.b as usize].name));
    for (i, name) in ["a_to_b", "b_to_a"].into_iter().enumerate() {
        let d = &world.dirs[2 * link + i];
        let q = d.queue.stats();
        let s = &d.stats;
        m.insert(
            name.into(),
            json!({
                "rate_bps": d.rate_bps,
                "delay_s": d.delay.as_secs_f64(),
                "queue": d.queue.kind(),
                "packets_sent": s.packets_sent,
                "bytes_sent": s.bytes_sent,
                "packets_delivered": s.packets_delivered,
                "bytes_delivered": s.bytes_delivered,
                "drops": {
                    "queue_full": q.dropped_full,
                    "aqm": q.dropped_aqm,
                    "link_loss": s.drops_link_loss,
                    "outage": s.drops_outage,
                    "handover": s.drops_handover,
                },
                "ecn_marks": q.ce_marked,
                "queue_mean_packets": num(d.occupancy_packets.mean(end)),
                "queue_max_packets": d.occupancy_packets.max(),
                "queue_mean_bytes": num(d.occupancy_bytes.mean(end)),
                "queue_max_bytes": d.occupancy_bytes.max(),
                "utilization": num(d.utilization(end)),
            }),
        );
    }
    Value::Object(m)
}

/// Per cell (or network): its figures, with per-UE figures grouped under `ues.<name>` (the
/// medium reports them as `ue.<node id>.<figure>`).
fn cell_summary(world: &World, medium: &dyn celltcp_net::medium::Medium, end: SimTime) -> Value {
    let mut cell = Map::new();
    let mut ues: Map<String, Value> = Map::new();
    for (key, value) in medium.report(end) {
        let ue_figure = key.strip_prefix("ue.").and_then(|rest| {
            let (id, figure) = rest.split_once('.')?;
            let node = world.topo.nodes.get(id.parse::<usize>().ok()?)?;
            Some((node.name.clone(), figure.to_string()))
        });
        match ue_figure {
            Some((ue, figure)) => {
                let entry = ues.entry(ue).or_insert_with(|| Value::Object(Map::new()));
                entry
                    .as_object_mut()
                    .expect("object")
                    .insert(figure, num(value));
            }
            None => {
                cell.insert(key, num(value));
            }
        }
    }
    cell.insert("ues".into(), Value::Object(ues));
    Value::Object(cell)
}

/// The run summary; `handovers` (when a handover could happen) adds the `handovers` section.
pub(crate) fn make(
    scenario: &Scenario,
    seed: u64,
    run: u64,
    outcome: &RunOutcome,
    world: &World,
    flows: &[FlowInfo],
    handovers: Option<&HandoverOutputs>,
) -> Value {
    let end = outcome.end_time;
    let flows_json: Map<String, Value> = flows
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.clone(), flow_summary(world, i, f, end)))
        .collect();
    let links_json: Map<String, Value> = (0..world.p2p_links())
        .map(|l| {
            (
                world.topo.links[l].name.clone(),
                link_summary(world, l, end),
            )
        })
        .collect();
    let epc_json: Map<String, Value> = world
        .epc()
        .map(|epc| {
            epc.endpoints()
                .map(|(node, st)| {
                    (
                        world.topo.nodes[node as usize].name.clone(),
                        json!({
                            "encapsulated": st.encapsulated,
                            "decapsulated": st.decapsulated,
                            "ce_propagated": st.ce_propagated,
                            "ce_lost": st.ce_lost,
                            "drops_ecn_decap": st.drops_ecn_decap,
                        }),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    // A network medium (a radio access network) lists its cells as plain cells are listed,
    // and its own figures under `ran`.
    let mut cells_json: Map<String, Value> = Map::new();
    let mut ran_json: Map<String, Value> = Map::new();
    let mut dch_json: Map<String, Value> = Map::new();
    for m in world.media() {
        if crate::build::dch::is_dch(scenario, world, m) {
            dch_json.insert(m.name().to_string(), crate::build::dch::summary(m, end));
            continue;
        }
        let parts = m.parts();
        if parts.is_empty() {
            cells_json.insert(m.name().to_string(), cell_summary(world, m, end));
        } else {
            for p in parts {
                cells_json.insert(p.name().to_string(), cell_summary(world, p, end));
            }
            ran_json.insert(m.name().to_string(), cell_summary(world, m, end));
        }
    }
    let mut summary = json!({
        "celltcp_version": env!("CARGO_PKG_VERSION"),
        "cells": cells_json,
        "epc": epc_json,
        "seed": seed,
        "run": run,
        "simulated_time_s": end.as_secs_f64(),
        "events": outcome.events,
        "stop_reason": format!("{:?}", outcome.reason).to_lowercase(),
        "scenario": scenario.echo(),
        "flows": flows_json,
        "links": links_json,
    });
    if let Some(obj) = summary.as_object_mut() {
        // With one network (the usual case) its figures are `ran` itself.
        match ran_json.len() {
            0 => {}
            1 => {
                let (_, v) = ran_json.into_iter().next().expect("one entry");
                obj.insert("ran".into(), v);
            }
            _ => {
                obj.insert("ran".into(), Value::Object(ran_json));
            }
        }
        if !dch_json.is_empty() {
            obj.insert("dch".into(), Value::Object(dch_json));
        }
        if let Some(mb) = crate::build::middleboxes::summary(scenario, world, end) {
            obj.insert("middleboxes".into(), mb);
        }
        if let Some(h) = handovers {
            obj.insert("handovers".into(), h.summary(world));
        }
        let forwarding: Map<String, Value> = world
            .forwarding_buffers()
            .map(|(node, f)| {
                let s = f.stats();
                let name = world.topo.nodes[node as usize].name.clone();
                let wait = celltcp_engine::SimDuration::from_ns(s.max_wait_ns);
                let v = json!({
                    "released": s.released,
                    "dropped": s.dropped,
                    "peak_bytes": s.peak_bytes,
                    "max_wait_s": wait.as_secs_f64(),
                });
                (name, v)
            })
            .collect();
        if !forwarding.is_empty() {
            obj.insert("forwarding".into(), Value::Object(forwarding));
        }
    }
    summary
}
