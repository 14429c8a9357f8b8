//! The `dch` series (`[trace] dch`): per-interval figures of each listed dedicated channel,
//! one row per channel and sampling instant after time zero.
//!
//! The world samples a traced channel's medium like a cell's, into its shared medium series;
//! [`take`] moves the rows of the traced channels out of it (the `cells` series is built from
//! what remains) and turns each pair of consecutive samples into a row of
//! [`celltcp_radio::dch::SERIES_COLUMNS`] (increments over the interval, rates, gauges at its
//! end; see `celltcp_radio::dch::series`).

use std::collections::BTreeMap;

use celltcp_net::medium::Medium;
use celltcp_net::world::World;
use celltcp_radio::dch::{DchSample, SERIES_COLUMNS};

use crate::series::{Column, Series};
use crate::series_columns;

/// Takes the rows of the channels `traced` (`[trace] dch`) out of the world's medium series
/// and returns the `dch` table (`None` when no channel is traced or nothing was sampled).
/// `is_dch` tells a dedicated channel from a cell of the same name.
pub fn take(
    world: &mut World,
    traced: &[String],
    is_dch: impl Fn(&World, &dyn Medium) -> bool,
) -> Option<Series> {
    if traced.is_empty() {
        return None;
    }
    // Medium index → position of its channel in `[trace] dch`.
    let channels: BTreeMap<u32, usize> = world
        .media()
        .enumerate()
        .filter(|(_, m)| is_dch(world, *m))
        .filter_map(|(i, m)| Some((i as u32, traced.iter().position(|n| n == m.name())?)))
        .collect();
    if channels.is_empty() {
        return None;
    }
    // Per channel, the figures of each sampling instant in time order.
    let mut samples: Vec<BTreeMap<u64, Vec<(u32, f64)>>> = vec![BTreeMap::new(); traced.len()];
    let s = &mut world.medium_series;
    let mut keep = 0;
    for i in 0..s.time_ns.len() {
        match channels.get(&s.medium[i]) {
            Some(&c) => samples[c]
                .entry(s.time_ns[i])
                .or_default()
                .push((s.figure[i], s.value[i])),
            None => {
                s.time_ns[keep] = s.time_ns[i];
                s.medium[keep] = s.medium[i];
                s.figure[keep] = s.figure[i];
                s.value[keep] = s.value[i];
                keep += 1;
            }
        }
    }
    s.time_ns.truncate(keep);
    s.medium.truncate(keep);
    s.figure.truncate(keep);
    s.value.truncate(keep);

    let mut time_ns = Vec::new();
    let mut codes = Vec::new();
    let mut columns: Vec<Vec<f64>> = vec![Vec::new(); SERIES_COLUMNS.len()];
    for (c, by_time) in samples.iter().enumerate() {
        let (mut prev, mut prev_ns) = (DchSample::default(), 0u64);
        for (&t, figures) in by_time {
            let named = figures
                .iter()
                .filter_map(|&(f, v)| Some((s.keys.get(f as usize)?.as_str(), v)));
            let Some(sample) = DchSample::from_figures(named) else {
                continue;
            };
            if t > prev_ns {
                let row = sample.interval_row(&prev, (t - prev_ns) as f64 * 1e-9);
                time_ns.push(t);
                codes.push(c as u32);
                for (column, value) in columns.iter_mut().zip(row) {
                    column.push(value);
                }
            }
            (prev, prev_ns) = (sample, t);
        }
    }
    if time_ns.is_empty() {
        return None;
    }
    let mut out = vec![
        Column::U64(time_ns),
        Column::Cat {
            codes,
            names: traced.to_vec(),
        },
    ];
    out.extend(columns.into_iter().map(Column::F64));
    Some(Series::from_columns(&series_columns::dch(), out))
}
