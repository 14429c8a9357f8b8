//! The figures of one interval of a running simulation, for a caller that watches the run
//! (`celltcp.run(..., on_interval=f, interval="100ms")`, docs/cli.md "Watching a run").
//!
//! The run stops at every multiple of the interval — stopping and resuming handles exactly the
//! events of an uninterrupted run, in the same order — and `IntervalWatch::figures` reads the
//! world there: per flow, per cell and per link direction, rates over the interval from the
//! differences of cumulative counters (as the `[trace]` series are made) and gauges at its end.
//! Nothing here changes the simulation: it reads counters, agents' reports and the TCP trace.
//!
//! A TCP flow's congestion window is the last value its sender recorded (a TCP sender records
//! `cwnd` and `srtt` at every change): watching a run turns those two trace variables on for
//! every TCP flow, and `IntervalWatch::strip_traces` removes the rows `[trace]` did not ask
//! for before the run's outputs are made, so that they are the same with and without a watch.

use std::collections::BTreeMap;

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::medium::Medium;
use celltcp_net::packet::FlowId;
use celltcp_net::trace::{TraceVar, Traces, VarColumns};
use celltcp_net::world::World;
use serde_json::{json, Map, Value};

use crate::labels::LINK_DIRECTIONS;
use crate::summary::FlowInfo;
use crate::trace_selection::TraceSelection;

/// The trace variables a watch reads.
const WATCHED_VARS: [TraceVar; 2] = [TraceVar::Cwnd, TraceVar::Srtt];

/// Cumulative values at the previous interval's end, to difference.
#[derive(Clone, Debug, Default)]
struct Previous {
    /// Per flow: IP bytes delivered, application bytes delivered, retransmissions.
    flows: Vec<(f64, f64, f64)>,
    /// Per cell name: SDU bytes delivered, PRBs used.
    cells: BTreeMap<String, (f64, f64)>,
    /// Per link direction: drops (queue full, AQM, loss, outage, handover) and bytes delivered.
    dirs: Vec<(u64, u64)>,
}

/// Watches a run: its interval, what it read last, and where it is in the TCP trace.
#[derive(Debug)]
pub struct IntervalWatch {
    interval: SimDuration,
    previous: Previous,
    /// Latest cwnd and srtt per flow, read from the trace rows up to `trace_cursor`.
    cwnd: Vec<f64>,
    srtt: Vec<f64>,
    trace_cursor: usize,
    /// The `[trace]` selection: the rows the outputs keep.
    user_trace: TraceSelection,
    /// Bandwidth of each cell in PRBs, by name.
    cell_prbs: BTreeMap<String, f64>,
}

impl IntervalWatch {
    /// A watch every `interval` of simulated time (> 0) of a run of `flows`, whose outputs
    /// keep the trace rows of `user_trace`; `cell_prbs` is the bandwidth of each cell in PRBs,
    /// by name (a cell not in it is not reported).
    pub fn new(
        interval: SimDuration,
        flows: &[FlowInfo],
        user_trace: TraceSelection,
        cell_prbs: BTreeMap<String, f64>,
    ) -> Self {
        IntervalWatch {
            interval,
            previous: Previous::default(),
            cwnd: vec![f64::NAN; flows.len()],
            srtt: vec![f64::NAN; flows.len()],
            trace_cursor: 0,
            user_trace,
            cell_prbs,
        }
    }

    pub fn interval(&self) -> SimDuration {
        self.interval
    }

    /// Turns on the trace variables the watch reads, for the TCP flows.
    pub fn enable_traces(traces: &mut Traces, flows: &[FlowInfo]) {
        let tcp: Vec<FlowId> = flows
            .iter()
            .enumerate()
            .filter(|(_, f)| f.kind == "tcp")
            .map(|(i, _)| FlowId::from_index(i))
            .collect();
        traces.also_record(&WATCHED_VARS, &tcp);
    }

    /// Keeps only the trace rows `[trace]` asked for.
    pub fn strip_traces(&self, vars: &mut VarColumns) {
        self.user_trace.strip(vars);
    }

    /// The figures of the interval that ends at `now` (started at `now` − interval, or 0).
    /// `is_dch` tells a dedicated channel, which is not reported, from a cell.
    pub fn figures(
        &mut self,
        world: &World,
        flows: &[FlowInfo],
        link_names: &[String],
        now: SimTime,
        is_dch: &dyn Fn(&World, &dyn Medium) -> bool,
    ) -> Value {
        let start = SimTime::from_ns(now.as_ns().saturating_sub(self.interval.as_ns()));
        let dt = now.saturating_since(start).as_secs_f64();
        let rate = |bytes: f64| if dt > 0.0 { bytes * 8.0 / dt } else { f64::NAN };
        self.read_trace(&world.traces.vars);

        let prev = std::mem::take(&mut self.previous);
        let mut next = Previous::default();
        let mut flows_out = Map::new();
        for (i, f) in flows.iter().enumerate() {
            let c = &world.flow_counters[i];
            let receiver = world.agent_report(f.receiver, now);
            let sender = world.agent_report(f.sender, now);
            let get = |r: &[(&str, f64)], k: &str| r.iter().find(|(n, _)| *n == k).map(|e| e.1);
            let app = get(&receiver, "payload_bytes_received")
                .or_else(|| get(&receiver, "bytes_delivered"))
                .unwrap_or(0.0);
            let retx = get(&sender, "retransmissions").unwrap_or(0.0);
            let ip = c.bytes_delivered as f64;
            let (p_ip, p_app, p_retx) = prev.flows.get(i).copied().unwrap_or_default();
            next.flows.push((ip, app, retx));
            let mut m = Map::new();
            m.insert("goodput_bps".into(), num(rate(app - p_app)));
            m.insert("throughput_bps".into(), num(rate(ip - p_ip)));
            if f.kind == "tcp" {
                m.insert("cwnd_bytes".into(), num(self.cwnd[i]));
                m.insert("srtt_s".into(), num(self.srtt[i]));
                m.insert(
                    "retransmissions".into(),
                    json!((retx - p_retx).max(0.0) as u64),
                );
            }
            flows_out.insert(f.name.clone(), Value::Object(m));
        }

        let mut cells_out = Map::new();
        let mut sample = Vec::new();
        for medium in world.media() {
            let parts = medium.parts();
            let cells: Vec<&dyn Medium> = if parts.is_empty() {
                vec![medium]
            } else {
                parts
            };
            for cell in cells {
                let name = cell.name().to_string();
                let Some(&n_prb) = self.cell_prbs.get(&name) else {
                    continue;
                };
                if is_dch(world, cell) {
                    continue;
                }
                sample.clear();
                cell.sample(now, &mut sample);
                let mut delivered = 0.0;
                let mut queue = 0.0;
                let mut prbs = 0.0;
                for (k, v) in &sample {
                    if k == "prbs_used" {
                        prbs = *v;
                    } else if k.ends_with(".sdu_bytes_delivered") {
                        delivered += v;
                    } else if k.ends_with(".buffer_bytes") {
                        queue += v;
                    }
                }
                let (p_delivered, p_prbs) = prev.cells.get(&name).copied().unwrap_or_default();
                let ttis = dt * 1e3;
                let mut m = Map::new();
                m.insert("throughput_bps".into(), num(rate(delivered - p_delivered)));
                m.insert(
                    "prb_utilization".into(),
                    num((prbs - p_prbs) / (ttis * n_prb)),
                );
                m.insert("queue_bytes".into(), num(queue));
                next.cells.insert(name.clone(), (delivered, prbs));
                cells_out.insert(name, Value::Object(m));
            }
        }

        let mut queues_out = Map::new();
        for (l, name) in link_names.iter().enumerate() {
            for (d, dir) in LINK_DIRECTIONS.into_iter().enumerate() {
                let ld = &world.dirs[2 * l + d];
                let q = ld.queue.stats();
                let s = &ld.stats;
                let drops = q.dropped_full
                    + q.dropped_aqm
                    + s.drops_link_loss
                    + s.drops_outage
                    + s.drops_handover;
                let (p_drops, p_bytes) = prev.dirs.get(2 * l + d).copied().unwrap_or_default();
                next.dirs.push((drops, s.bytes_delivered));
                queues_out.insert(
                    format!("{name}.{dir}"),
                    json!({
                        "packets": ld.queue.len_packets(),
                        "bytes": ld.queue.len_bytes(),
                        "drops": drops.saturating_sub(p_drops),
                        "throughput_bps": num(rate(s.bytes_delivered.saturating_sub(p_bytes) as f64)),
                    }),
                );
            }
        }
        self.previous = next;
        json!({
            "start_s": start.as_secs_f64(),
            "end_s": now.as_secs_f64(),
            "flows": flows_out,
            "cells": cells_out,
            "queues": queues_out,
        })
    }

    /// Reads the cwnd and srtt rows recorded since the last call.
    fn read_trace(&mut self, vars: &VarColumns) {
        let (cwnd, srtt) = (TraceVar::Cwnd as u8, TraceVar::Srtt as u8);
        for i in self.trace_cursor..vars.var.len() {
            let f = vars.flow[i].index();
            if f >= self.cwnd.len() {
                continue;
            }
            if vars.var[i] == cwnd {
                self.cwnd[f] = vars.value[i];
            } else if vars.var[i] == srtt {
                self.srtt[f] = vars.value[i];
            }
        }
        self.trace_cursor = vars.var.len();
    }
}

fn num(v: f64) -> Value {
    if v.is_finite() {
        json!(v)
    } else {
        Value::Null
    }
}
