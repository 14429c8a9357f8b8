//! Rows of the real connections added to the run's `handovers` table, beside the rows of the
//! scenario's own TCP flows, so that one table (`RunResult.handovers`, `handovers.parquet`)
//! holds both.
//!
//! The two kinds of rows share most columns. A column only one kind has is null for the
//! other: a number becomes a float column with NaN there (the Parquet writer's null), a name
//! (categorical) column gets the empty name. `observed_from` says which kind a row is:
//! `trace` (a simulated flow, from its TCP's own trace) or `packets` (a real connection, from
//! the packets on the path).

use celltcp_net::packet::NodeId;
use celltcp_outputs::series_columns::{Dtype, SeriesColumns};
use celltcp_outputs::{Column, Series};

use crate::handover::RealHandoverRow;

/// Name of the run's handover table.
pub const HANDOVERS: &str = "handovers";
/// The column that tells the two kinds of rows apart, and its values.
pub const OBSERVED_FROM: &str = "observed_from";
pub const FROM_TRACE: &str = "trace";
pub const FROM_PACKETS: &str = "packets";

/// The directions of the `emulation_rtt` series.
pub const RTT_DIRECTIONS: [&str; 2] = ["forward", "reverse"];

/// The `emulation_rtt` series: the RTT samples of the real connections.
pub fn emulation_rtt() -> SeriesColumns {
    SeriesColumns::new(
        "emulation_rtt",
        "celltcp emulate only: one row per RTT sample of a real TCP connection, taken from the packets on the path.",
    )
    .col("time_ns", Dtype::U64, "when the sample was taken, nanoseconds of the run (Python adds time_s, seconds)")
    .col("connection", Dtype::U32, "the connection, numbered in order of appearance")
    .col("direction", Dtype::Cat, "forward (data from the connection's initiator) or reverse")
    .col("rtt_ns", Dtype::U64, "the sample, nanoseconds")
}

/// The series of a simulation (`base`) as an emulation writes them: the `handovers` table with
/// its `observed_from` column (rows of real connections beside the simulated flows'; a column
/// only one kind of row has is NaN or an empty name for the other), and `emulation_rtt`.
pub fn series_columns(mut base: Vec<SeriesColumns>) -> Vec<SeriesColumns> {
    if let Some(h) = base.iter_mut().find(|s| s.name == HANDOVERS) {
        let spec = std::mem::replace(h, SeriesColumns::new(HANDOVERS, ""));
        *h = spec.col_only(
            OBSERVED_FROM,
            Dtype::Cat,
            "trace (a simulated flow, from its TCP's trace) or packets (a real connection, from the packets on the path)",
            "celltcp emulate, with real connections",
        );
    }
    base.push(emulation_rtt());
    base
}

/// One value of a column, while tables are merged.
#[derive(Clone, Debug, PartialEq)]
enum Cell {
    Null,
    F64(f64),
    U64(u64),
    U32(u32),
    Bool(bool),
    Name(String),
}

fn cells(c: &Column) -> Vec<Cell> {
    match c {
        Column::F64(v) => v.iter().map(|&x| Cell::F64(x)).collect(),
        Column::U64(v) => v.iter().map(|&x| Cell::U64(x)).collect(),
        Column::U32(v) => v.iter().map(|&x| Cell::U32(x)).collect(),
        Column::Bool(v) => v.iter().map(|&x| Cell::Bool(x)).collect(),
        Column::Cat { codes, names } => codes
            .iter()
            .map(|&i| Cell::Name(names.get(i as usize).cloned().unwrap_or_default()))
            .collect(),
    }
}

/// The column holding `cells`: its own type when every cell has it, floats (NaN for nulls)
/// when they mix numbers or hold nulls, names when any cell is a name (`""` for nulls).
/// `names` seeds a categorical column's list, so that a table's fixed categories survive.
fn column(cells: Vec<Cell>, mut names: Vec<String>) -> Column {
    let all = |f: fn(&Cell) -> bool| cells.iter().all(f);
    if cells.iter().any(|c| matches!(c, Cell::Name(_))) {
        let codes = cells
            .into_iter()
            .map(|c| {
                let n = match c {
                    Cell::Name(n) => n,
                    Cell::Null => String::new(),
                    Cell::F64(x) => x.to_string(),
                    Cell::U64(x) => x.to_string(),
                    Cell::U32(x) => x.to_string(),
                    Cell::Bool(x) => x.to_string(),
                };
                match names.iter().position(|m| *m == n) {
                    Some(i) => i as u32,
                    None => {
                        names.push(n);
                        (names.len() - 1) as u32
                    }
                }
            })
            .collect();
        return Column::Cat { codes, names };
    }
    if all(|c| matches!(c, Cell::U64(_))) {
        return Column::U64(
            cells
                .iter()
                .map(|c| if let Cell::U64(x) = c { *x } else { 0 })
                .collect(),
        );
    }
    if all(|c| matches!(c, Cell::U32(_))) {
        return Column::U32(
            cells
                .iter()
                .map(|c| if let Cell::U32(x) = c { *x } else { 0 })
                .collect(),
        );
    }
    if all(|c| matches!(c, Cell::Bool(_))) {
        return Column::Bool(
            cells
                .iter()
                .map(|c| matches!(c, Cell::Bool(true)))
                .collect(),
        );
    }
    Column::F64(
        cells
            .iter()
            .map(|c| match c {
                Cell::F64(x) => *x,
                Cell::U64(x) => *x as f64,
                Cell::U32(x) => f64::from(*x),
                Cell::Bool(x) => f64::from(u8::from(*x)),
                Cell::Null | Cell::Name(_) => f64::NAN,
            })
            .collect(),
    )
}

fn names_of(c: &Column) -> Vec<String> {
    match c {
        Column::Cat { names, .. } => names.clone(),
        _ => Vec::new(),
    }
}

/// Appends the rows of `extra` (columns of equal length) to `table`, column by name; see the
/// module documentation for columns only one side has. Existing columns keep their order,
/// new ones follow.
pub fn append(table: &mut Series, mut extra: Vec<(String, Column)>) {
    let old_rows = table.columns.first().map_or(0, |c| c.1.len());
    let new_rows = extra.first().map_or(0, |c| c.1.len());
    let mut merged = Vec::with_capacity(table.columns.len() + extra.len());
    for (name, old) in std::mem::take(&mut table.columns) {
        let mut all = cells(&old);
        match extra.iter().position(|(n, _)| *n == name) {
            Some(i) => {
                let (_, new) = extra.remove(i);
                all.extend(cells(&new));
                let mut seed = names_of(&old);
                seed.extend(
                    names_of(&new)
                        .into_iter()
                        .filter(|n| !names_of(&old).contains(n)),
                );
                merged.push((name, column(all, seed)));
            }
            None => {
                all.extend(std::iter::repeat_n(Cell::Null, new_rows));
                merged.push((name, column(all, names_of(&old))));
            }
        }
    }
    for (name, new) in extra {
        let mut all: Vec<Cell> = std::iter::repeat_n(Cell::Null, old_rows).collect();
        all.extend(cells(&new));
        let seed = names_of(&new);
        merged.push((name, column(all, seed)));
    }
    table.columns = merged;
}

/// The real rows as columns named as in the scenario's `handovers` table; `node_names` by
/// node id. `forwarded`, `duplicated` and `reordered` are not among them (not observed).
pub fn real_columns(rows: &[RealHandoverRow], node_names: &[String]) -> Vec<(String, Column)> {
    let f = |get: &dyn Fn(&RealHandoverRow) -> Option<f64>| {
        Column::F64(rows.iter().map(|r| get(r).unwrap_or(f64::NAN)).collect())
    };
    let names = |get: &dyn Fn(&RealHandoverRow) -> String| {
        let mut list: Vec<String> = Vec::new();
        let codes = rows
            .iter()
            .map(|r| {
                let n = get(r);
                match list.iter().position(|m| *m == n) {
                    Some(i) => i as u32,
                    None => {
                        list.push(n);
                        (list.len() - 1) as u32
                    }
                }
            })
            .collect();
        Column::Cat { codes, names: list }
    };
    let node = |id: NodeId| {
        node_names
            .get(id.index())
            .cloned()
            .unwrap_or_else(|| id.to_string())
    };
    let cols: Vec<(&str, Column)> = vec![
        (
            "handover",
            Column::U32(rows.iter().map(|r| r.outcome.handover).collect()),
        ),
        ("flow", names(&|r| r.label())),
        ("ue", names(&|r| node(r.outcome.ue))),
        ("source", names(&|r| node(r.outcome.source))),
        ("target", names(&|r| node(r.outcome.target))),
        ("cause", names(&|r| r.outcome.cause.as_str().to_string())),
        ("policy", names(&|r| r.outcome.policy.to_string())),
        ("result", names(&|r| r.outcome.result.as_str().to_string())),
        ("decision_s", f(&|r| Some(r.outcome.decision_s))),
        ("command_s", f(&|r| r.outcome.command_s)),
        ("attach_s", f(&|r| r.outcome.attach_s)),
        ("path_switch_s", f(&|r| r.outcome.path_switch_s)),
        ("completion_s", f(&|r| r.outcome.completion_s)),
        ("interruption_s", f(&|r| r.outcome.interruption_s)),
        (
            "dropped",
            Column::U64(rows.iter().map(|r| r.outcome.dropped).collect()),
        ),
        ("start_s", f(&|r| Some(r.outcome.start_s))),
        ("window_end_s", f(&|r| Some(r.outcome.window_end_s))),
        (
            "outcome",
            names(&|r| r.outcome.outcome.as_str().to_string()),
        ),
        (
            "rto_retransmissions",
            Column::U32(rows.iter().map(|r| r.outcome.rto_retransmissions).collect()),
        ),
        (
            "fast_retransmissions",
            Column::U32(
                rows.iter()
                    .map(|r| r.outcome.fast_retransmissions)
                    .collect(),
            ),
        ),
        (
            "spurious_rto",
            Column::Bool(rows.iter().map(|r| r.outcome.spurious_rto).collect()),
        ),
        ("first_rto_s", f(&|r| r.outcome.first_rto_s)),
        ("rtt_before_s", f(&|r| r.outcome.rtt_before_s)),
        ("rtt_peak_s", f(&|r| r.outcome.rtt_peak_s)),
        ("goodput_before_bps", f(&|r| r.outcome.goodput_before_bps)),
        ("recovered_at_s", f(&|r| r.outcome.recovered_at_s)),
        ("recovery_time_s", f(&|r| r.outcome.recovery_time_s)),
        ("ramp_time_s", f(&|r| r.outcome.ramp_time_s)),
        ("episode_end_s", f(&|r| r.outcome.episode_end_s)),
        (
            "delivered_bytes",
            f(&|r| r.outcome.delivered_bytes.map(|b| b as f64)),
        ),
        (OBSERVED_FROM, names(&|_| FROM_PACKETS.to_string())),
        ("silence_s", f(&|r| r.silence_s)),
        ("rto_estimate_s", f(&|r| r.rto_estimate_s)),
    ];
    cols.into_iter().map(|(n, c)| (n.to_string(), c)).collect()
}

/// Adds the real rows to the run's `handovers` table (creating it if the run has none),
/// marking the rows already there as observed from the trace.
pub fn add_real_rows(series: &mut Vec<Series>, rows: &[RealHandoverRow], node_names: &[String]) {
    if rows.is_empty() {
        return;
    }
    let table = match series.iter().position(|s| s.name == HANDOVERS) {
        Some(i) => &mut series[i],
        None => {
            series.push(Series {
                name: HANDOVERS.into(),
                columns: Vec::new(),
            });
            series.last_mut().expect("just pushed")
        }
    };
    let old_rows = table.columns.first().map_or(0, |c| c.1.len());
    if !table.columns.iter().any(|(n, _)| n == OBSERVED_FROM) && !table.columns.is_empty() {
        table.columns.push((
            OBSERVED_FROM.into(),
            Column::Cat {
                codes: vec![0; old_rows],
                names: vec![FROM_TRACE.into()],
            },
        ));
    }
    append(table, real_columns(rows, node_names));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Series {
        Series {
            name: HANDOVERS.into(),
            columns: vec![
                ("handover".into(), Column::U32(vec![0])),
                (
                    "flow".into(),
                    Column::Cat {
                        codes: vec![0],
                        names: vec!["bulk".into(), "other".into()],
                    },
                ),
                ("forwarded".into(), Column::U64(vec![7])),
                ("spurious_rto".into(), Column::Bool(vec![false])),
            ],
        }
    }

    #[test]
    fn rows_append_by_name_with_nulls_for_what_one_side_lacks() {
        let mut t = table();
        append(
            &mut t,
            vec![
                ("handover".into(), Column::U32(vec![0, 1])),
                (
                    "flow".into(),
                    Column::Cat {
                        codes: vec![0, 1],
                        names: vec!["a>b".into(), "bulk".into()],
                    },
                ),
                ("spurious_rto".into(), Column::Bool(vec![true, false])),
                ("silence_s".into(), Column::F64(vec![0.3, 0.4])),
            ],
        );
        let col = |name: &str| &t.columns.iter().find(|c| c.0 == name).unwrap().1;
        assert_eq!(col("handover"), &Column::U32(vec![0, 0, 1]));
        assert_eq!(
            col("flow"),
            &Column::Cat {
                codes: vec![0, 2, 0],
                names: vec!["bulk".into(), "other".into(), "a>b".into()]
            },
            "the fixed names stay first, in order"
        );
        assert_eq!(col("spurious_rto"), &Column::Bool(vec![false, true, false]));
        match col("forwarded") {
            Column::F64(v) => {
                assert_eq!(v[0], 7.0);
                assert!(v[1].is_nan() && v[2].is_nan());
            }
            other => panic!("{other:?}"),
        }
        match col("silence_s") {
            Column::F64(v) => assert!(v[0].is_nan() && v[1] == 0.3 && v[2] == 0.4),
            other => panic!("{other:?}"),
        }
        let names: Vec<&str> = t.columns.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(
            names,
            ["handover", "flow", "forwarded", "spurious_rto", "silence_s"]
        );
        assert!(t.columns.iter().all(|c| c.1.len() == 3));
    }

    #[test]
    fn a_name_column_only_one_side_has_is_empty_on_the_other() {
        let mut t = table();
        append(
            &mut t,
            vec![(
                OBSERVED_FROM.into(),
                Column::Cat {
                    codes: vec![0],
                    names: vec![FROM_PACKETS.into()],
                },
            )],
        );
        let (_, c) = t.columns.iter().find(|c| c.0 == OBSERVED_FROM).unwrap();
        assert_eq!(
            c,
            &Column::Cat {
                codes: vec![1, 0],
                names: vec![FROM_PACKETS.into(), String::new()]
            }
        );
    }
}
