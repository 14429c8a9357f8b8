//! Columnar time series handed to the Python layer (which writes them as Parquet). Their
//! column sets are in [`crate::series_columns`].

use std::collections::BTreeMap;

use celltcp_net::trace::TraceVar;
use celltcp_net::world::World;

use crate::labels::LINK_DIRECTIONS;
use crate::series_columns;

/// One column; categorical columns carry codes into a list of names.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    U32(Vec<u32>),
    Bool(Vec<bool>),
    Cat { codes: Vec<u32>, names: Vec<String> },
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::U32(v) => v.len(),
            Column::Bool(v) => v.len(),
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

/// Moves the world's collected series out as tables; empty tables are omitted. `trace_cells`
/// are the cells `[trace] cells` lists (the parts of a network medium not listed are left out).
pub fn collect(
    world: &mut World,
    link_names: &[String],
    flow_names: &[String],
    trace_cells: &[String],
) -> Vec<Series> {
    let mut out = Vec::new();
    let q = std::mem::take(&mut world.queue_series);
    if !q.time_ns.is_empty() {
        out.push(Series::from_columns(
            &series_columns::queue(),
            vec![
                Column::U64(q.time_ns),
                Column::Cat {
                    codes: q.link,
                    names: link_names.to_vec(),
                },
                Column::Cat {
                    codes: q.direction,
                    names: LINK_DIRECTIONS.map(String::from).to_vec(),
                },
                Column::U32(q.packets),
                Column::U64(q.bytes),
                Column::U64(q.bytes_delivered),
                Column::U64(q.drops_queue_full),
                Column::U64(q.drops_aqm),
                Column::U64(q.drops_link_loss),
                Column::U64(q.drops_outage),
                Column::U64(q.drops_handover),
                Column::U64(q.ecn_marks),
            ],
        ));
    }
    let r = std::mem::take(&mut world.rate_series);
    if !r.time_ns.is_empty() {
        out.push(Series::from_columns(
            &series_columns::flow_rate(),
            vec![
                Column::U64(r.time_ns),
                Column::Cat {
                    codes: r.flow,
                    names: flow_names.to_vec(),
                },
                Column::F64(r.rate_bps),
            ],
        ));
    }
    let p = std::mem::take(&mut world.packet_series);
    if !p.time_ns.is_empty() {
        out.push(Series::from_columns(
            &series_columns::packets(),
            vec![
                Column::U64(p.time_ns),
                Column::Cat {
                    codes: p.flow,
                    names: flow_names.to_vec(),
                },
                Column::U64(p.delay_ns),
                Column::U32(p.size_bytes),
                Column::U64(p.app_seq),
            ],
        ));
    }
    if let Some(cells) = cell_series(world, trace_cells) {
        out.push(cells);
    }
    let v = std::mem::take(&mut world.traces.vars);
    if !v.time_ns.is_empty() {
        let names = TraceVar::ALL.iter().map(|t| t.name().to_string()).collect();
        // Codes are the enum's discriminants, which equal their positions in TraceVar::ALL.
        debug_assert!(TraceVar::ALL
            .iter()
            .enumerate()
            .all(|(i, t)| *t as usize == i));
        out.push(Series::from_columns(
            &series_columns::tcp(),
            vec![
                Column::U64(v.time_ns),
                Column::Cat {
                    codes: v.flow.into_iter().map(|f| f.0).collect(),
                    names: flow_names.to_vec(),
                },
                Column::Cat {
                    codes: v.var.into_iter().map(u32::from).collect(),
                    names,
                },
                Column::F64(v.value),
            ],
        ));
    }
    out
}

/// Interns `name` into `names`, returning its code.
fn intern(names: &mut Vec<String>, name: &str) -> u32 {
    match names.iter().position(|n| n == name) {
        Some(i) => i as u32,
        None => {
            names.push(name.to_string());
            (names.len() - 1) as u32
        }
    }
}

/// A row's (cell, ue, figure) category codes.
type RowCodes = (u32, u32, u32);

/// The `cells` table from the world's medium samples.
///
/// A figure key is `ue.<node id>.<name>` or a cell-level name; a network medium (a radio
/// access network) prefixes its cells' keys with `CELL/` and adds figures of its own (a UE's
/// serving cell and measured RSRPs). Each row is attributed to its cell — the prefix's, else
/// the medium's own name — and split into a UE column (empty for cell-level figures) and a
/// figure column. Rows of a network's cells that `[trace] cells` does not list are dropped.
fn cell_series(world: &mut World, trace_cells: &[String]) -> Option<Series> {
    let m = std::mem::take(&mut world.medium_series);
    if m.time_ns.is_empty() {
        return None;
    }
    let media: Vec<(String, Vec<String>)> = world
        .media()
        .map(|md| {
            (
                md.name().to_string(),
                md.parts().iter().map(|p| p.name().to_string()).collect(),
            )
        })
        .collect();
    // Cells in media order (a network's listed cells in its parts' order), as before any row.
    let mut cell_names: Vec<String> = Vec::new();
    for (name, parts) in &media {
        if parts.is_empty() {
            cell_names.push(name.clone());
        }
        for p in parts.iter().filter(|p| trace_cells.contains(p)) {
            cell_names.push(p.clone());
        }
    }
    let mut ue_names: Vec<String> = vec![String::new()];
    let mut figure_names: Vec<String> = Vec::new();
    // (medium, figure) → (cell, ue, figure) codes, or None for a row left out.
    let mut attribution: BTreeMap<(u32, u32), Option<RowCodes>> = BTreeMap::new();
    let (mut time_ns, mut cells, mut ues, mut figures, mut values) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..m.time_ns.len() {
        let (medium, figure) = (m.medium[i], m.figure[i]);
        let codes = *attribution.entry((medium, figure)).or_insert_with(|| {
            let (name, parts) = media.get(medium as usize)?;
            let key = m.keys.get(figure as usize)?.as_str();
            let (cell, key) = match key.split_once('/') {
                Some((part, rest)) if parts.iter().any(|p| p == part) => (part, rest),
                _ => (name.as_str(), key),
            };
            if !parts.is_empty() && cell != name && !trace_cells.iter().any(|c| c == cell) {
                return None;
            }
            let (ue, fig) = key
                .strip_prefix("ue.")
                .and_then(|rest| rest.split_once('.'))
                .and_then(|(id, fig)| {
                    let node = world.topo.nodes.get(id.parse::<usize>().ok()?)?;
                    Some((node.name.clone(), fig.to_string()))
                })
                .unwrap_or_else(|| (String::new(), key.to_string()));
            Some((
                intern(&mut cell_names, cell),
                intern(&mut ue_names, &ue),
                intern(&mut figure_names, &fig),
            ))
        });
        if let Some((c, u, f)) = codes {
            time_ns.push(m.time_ns[i]);
            cells.push(c);
            ues.push(u);
            figures.push(f);
            values.push(m.value[i]);
        }
    }
    Some(Series::from_columns(
        &series_columns::cells(),
        vec![
            Column::U64(time_ns),
            Column::Cat {
                codes: cells,
                names: cell_names,
            },
            Column::Cat {
                codes: ues,
                names: ue_names,
            },
            Column::Cat {
                codes: figures,
                names: figure_names,
            },
            Column::F64(values),
        ],
    ))
}
