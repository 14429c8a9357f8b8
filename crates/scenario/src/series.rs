//! Columnar time series handed to the Python layer (which writes them as Parquet).

use celltcp_net::trace::TraceVar;
use celltcp_net::world::World;

/// One column; categorical columns carry codes into a list of names.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    U32(Vec<u32>),
    Cat { codes: Vec<u32>, names: Vec<String> },
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::U32(v) => v.len(),
            Column::Cat { codes, .. } => codes.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A named table of equal-length columns.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub columns: Vec<(String, Column)>,
}

fn col(name: &str, c: Column) -> (String, Column) {
    (name.to_string(), c)
}

/// Moves the world's collected series out as tables; empty tables are omitted.
pub(crate) fn collect(world: &mut World, link_names: &[String], flow_names: &[String]) -> Vec<Series> {
    let mut out = Vec::new();
    let q = std::mem::take(&mut world.queue_series);
    if !q.time_ns.is_empty() {
        out.push(Series {
            name: "queue".into(),
            columns: vec![
                col("time_ns", Column::U64(q.time_ns)),
                col("link", Column::Cat { codes: q.link, names: link_names.to_vec() }),
                col(
                    "direction",
                    Column::Cat { codes: q.direction, names: vec!["a_to_b".into(), "b_to_a".into()] },
                ),
                col("packets", Column::U32(q.packets)),
                col("bytes", Column::U64(q.bytes)),
            ],
        });
    }
    let r = std::mem::take(&mut world.rate_series);
    if !r.time_ns.is_empty() {
        out.push(Series {
            name: "flow_rate".into(),
            columns: vec![
                col("time_ns", Column::U64(r.time_ns)),
                col("flow", Column::Cat { codes: r.flow, names: flow_names.to_vec() }),
                col("rate_bps", Column::F64(r.rate_bps)),
            ],
        });
    }
    let p = std::mem::take(&mut world.packet_series);
    if !p.time_ns.is_empty() {
        out.push(Series {
            name: "packets".into(),
            columns: vec![
                col("time_ns", Column::U64(p.time_ns)),
                col("flow", Column::Cat { codes: p.flow, names: flow_names.to_vec() }),
                col("delay_ns", Column::U64(p.delay_ns)),
                col("size_bytes", Column::U32(p.size_bytes)),
                col("app_seq", Column::U64(p.app_seq)),
            ],
        });
    }
    let m = std::mem::take(&mut world.medium_series);
    if !m.time_ns.is_empty() {
        // Figure keys are `ue.<node id>.<name>` or a cell-level name: split them into a UE
        // column (empty for cell-level figures) and a figure column.
        let mut ue_names: Vec<String> = vec![String::new()];
        let mut figure_names: Vec<String> = Vec::new();
        let mut key_map: Vec<(u32, u32)> = Vec::with_capacity(m.keys.len());
        for key in &m.keys {
            let (ue, figure) = key
                .strip_prefix("ue.")
                .and_then(|rest| rest.split_once('.'))
                .and_then(|(id, fig)| {
                    let node = world.topo.nodes.get(id.parse::<usize>().ok()?)?;
                    Some((node.name.clone(), fig.to_string()))
                })
                .unwrap_or_else(|| (String::new(), key.clone()));
            let intern = |names: &mut Vec<String>, name: String| match names.iter().position(|n| *n == name) {
                Some(i) => i as u32,
                None => {
                    names.push(name);
                    (names.len() - 1) as u32
                }
            };
            key_map.push((intern(&mut ue_names, ue), intern(&mut figure_names, figure)));
        }
        let cell_names: Vec<String> = world.media().map(|m| m.name().to_string()).collect();
        out.push(Series {
            name: "cells".into(),
            columns: vec![
                col("time_ns", Column::U64(m.time_ns)),
                col("cell", Column::Cat { codes: m.medium, names: cell_names }),
                col("ue", Column::Cat { codes: m.figure.iter().map(|f| key_map[*f as usize].0).collect(), names: ue_names }),
                col("figure", Column::Cat {
                    codes: m.figure.iter().map(|f| key_map[*f as usize].1).collect(),
                    names: figure_names,
                }),
                col("value", Column::F64(m.value)),
            ],
        });
    }
    let v = std::mem::take(&mut world.traces.vars);
    if !v.time_ns.is_empty() {
        let names = TraceVar::ALL.iter().map(|t| t.name().to_string()).collect();
        // Codes are the enum's discriminants, which equal their positions in TraceVar::ALL.
        debug_assert!(TraceVar::ALL.iter().enumerate().all(|(i, t)| *t as usize == i));
        out.push(Series {
            name: "tcp".into(),
            columns: vec![
                col("time_ns", Column::U64(v.time_ns)),
                col("flow", Column::Cat { codes: v.flow, names: flow_names.to_vec() }),
                col("var", Column::Cat { codes: v.var.into_iter().map(u32::from).collect(), names }),
                col("value", Column::F64(v.value)),
            ],
        });
    }
    out
}
