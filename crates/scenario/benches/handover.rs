//! Speed of the handover model (not a test; prints figures).
//!
//! Run: `cargo bench -p celltcp-scenario --bench handover` (optionally `-- --runs N`, default
//! 15). Three measurements, each the median of N runs in this process, in wall time and in the
//! CPU time of this thread (comparable when the machine is loaded):
//!
//! 1. **Seed `000_…`**: one replication of `python/celltcp/examples/000/forwarding.toml` (two eNBs, six UEs
//!    with cross traffic, one X2 handover, 5 s simulated), analytics included. Target ≤ 50 ms.
//!    **Seed `002_…`**: one replication of `python/celltcp/examples/002/handover-link.toml` (one
//!    bulk download, one link handover interrupting the radio hop, 20 s simulated).
//! 2. **Per-handover analytics**: [`analyse`] alone, on the trace rows and handover records of
//!    a run of (a) that scenario and (b) `python/celltcp/examples/003/exp5-3.toml` at 100 km/h (one UE along
//!    five cells for 100 s: several A3 handovers and a radio link failure). The run records the
//!    nine [`REQUIRED_TRACE_VARS`] of every flow (through `trace.tcp`), so its own analytics
//!    saw the same rows as this benchmark; the records are rebuilt from the run's `handovers`
//!    table and the result is checked against that table before it is timed.
//! 3. **The RAN against a plain cell**: `python/celltcp/examples/lte-bench-50ue.toml` (50 UEs, 5 s) and
//!    `python/celltcp/examples/lte-bench-1ue.toml` (1 UE, 100 s) as they are and with a `[ran]` section (one
//!    cell, so no handover can happen; the simulated traffic is the same), run alternately.
//!    The difference is what the RAN adds — measurements of every UE in every cell each
//!    period, the radio-link monitoring, the analytics' trace rows — per UE and simulated
//!    second. A third variant, the plain cell recording the same trace rows through
//!    `trace.tcp`, splits off the cost of those rows, which are written per segment and per
//!    ACK and so grow with the traffic rather than with the number of UEs.

use std::path::{Path, PathBuf};
use std::time::Instant;

use celltcp_engine::SimTime;
use celltcp_net::handover::{
    HandoverCause, HandoverFlowCounts, HandoverPolicy, HandoverRecord, HandoverResult,
};
use celltcp_net::packet::{FlowId, NodeId};
use celltcp_net::trace::{TraceVar, VarColumns};
use celltcp_outputs::analytics::{analyse, AnalyticsConfig, REQUIRED_TRACE_VARS};
use celltcp_scenario::{load_path, run, Column, RunOptions, RunOutput, Scenario, Series};

/// The target for one replication of the seed-000 scenario, seconds of wall time.
const TARGET_000_S: f64 = 0.050;

fn example(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples")
        .join(file)
}

fn load(file: &str, overrides: &[(&str, &str)]) -> Scenario {
    let overrides: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    load_path(&example(file), &overrides).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// CPU time of this thread in nanoseconds (Linux schedstat); `None` where unavailable.
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Wall and CPU seconds of one call of `f`.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64, f64) {
    let c0 = thread_cpu_ns();
    let t0 = Instant::now();
    let out = f();
    let wall = t0.elapsed().as_secs_f64();
    let cpu = match (c0, thread_cpu_ns()) {
        (Some(a), Some(b)) => (b - a) as f64 * 1e-9,
        _ => f64::NAN,
    };
    (out, wall, cpu)
}

fn run_once(sc: &Scenario) -> RunOutput {
    run(sc, &RunOptions::default()).expect("scenario runs")
}

// -- 1. seed 000 ---------------------------------------------------------------------------

fn seed_000(runs: usize) {
    let sc = load("000/forwarding.toml", &[]);
    let mut walls = Vec::new();
    let mut cpus = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let (out, wall, cpu) = timed(|| run_once(&sc));
        walls.push(wall);
        cpus.push(cpu);
        last = Some(out);
    }
    let out = last.expect("at least one run");
    let (wall, cpu) = (median(walls.clone()), median(cpus));
    let lo = walls.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = walls.iter().copied().fold(0.0, f64::max);
    let h = &out.summary["handovers"];
    println!(
        "000/forwarding.toml      wall {:.1} ms (min {:.1}, max {:.1})  cpu {:.1} ms  {} events  \
         {:.2} M events/s  {} handover(s), outcomes {}  target wall <= {:.0} ms: {}",
        wall * 1e3,
        lo * 1e3,
        hi * 1e3,
        cpu * 1e3,
        out.events,
        out.events as f64 / wall / 1e6,
        h["count"],
        h["outcomes"],
        TARGET_000_S * 1e3,
        if wall <= TARGET_000_S {
            "met"
        } else {
            "MISSED"
        },
    );
}

// -- 1b. a link handover (seed 002) -------------------------------------------------------

/// One replication of seed `002_…`'s link handover (`002/handover-link.toml`: one bulk TCP
/// download, one interruption of the radio hop, 20 s simulated), analytics included.
fn seed_002(runs: usize) {
    let sc = load("002/handover-link.toml", &[]);
    let mut walls = Vec::new();
    let mut cpus = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let (out, wall, cpu) = timed(|| run_once(&sc));
        walls.push(wall);
        cpus.push(cpu);
        last = Some(out);
    }
    let out = last.expect("at least one run");
    let (wall, cpu) = (median(walls), median(cpus));
    let dropped = match column(series(&out, "handovers"), "dropped") {
        Column::U64(v) => v.iter().sum::<u64>(),
        _ => panic!("dropped is a u64 column"),
    };
    println!(
        "002/handover-link.toml   wall {:.1} ms  cpu {:.1} ms  {} events  {:.2} M events/s  \
         {} handover(s), {dropped} packet(s) dropped",
        wall * 1e3,
        cpu * 1e3,
        out.events,
        out.events as f64 / wall / 1e6,
        out.summary["handovers"]["count"],
    );
}

// -- 2. analytics --------------------------------------------------------------------------

fn series<'a>(out: &'a RunOutput, name: &str) -> &'a Series {
    out.series
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("the run has no {name} series"))
}

fn column<'a>(s: &'a Series, name: &str) -> &'a Column {
    &s.columns
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("{}: no column {name}", s.name))
        .1
}

fn u64s(c: &Column) -> Vec<u64> {
    match c {
        Column::U64(v) => v.clone(),
        Column::U32(v) => v.iter().map(|&x| u64::from(x)).collect(),
        other => panic!("not an integer column: {other:?}"),
    }
}

fn f64s(c: &Column) -> &[f64] {
    match c {
        Column::F64(v) => v,
        other => panic!("not a float column: {other:?}"),
    }
}

/// (codes, names) of a categorical column.
fn cats(c: &Column) -> (&[u32], &[String]) {
    match c {
        Column::Cat { codes, names } => (codes, names),
        other => panic!("not a categorical column: {other:?}"),
    }
}

fn cat_names(c: &Column) -> Vec<&str> {
    let (codes, names) = cats(c);
    codes.iter().map(|&i| names[i as usize].as_str()).collect()
}

/// The run's trace rows, as the world held them when its analytics ran.
fn var_columns(out: &RunOutput) -> VarColumns {
    let tcp = series(out, "tcp");
    let var = cat_names(column(tcp, "var"))
        .into_iter()
        .map(|n| TraceVar::from_name(n).expect("a trace variable") as u8)
        .collect();
    VarColumns {
        time_ns: u64s(column(tcp, "time_ns")),
        flow: cats(column(tcp, "flow"))
            .0
            .iter()
            .map(|&f| FlowId(f))
            .collect(),
        var,
        value: f64s(column(tcp, "value")).to_vec(),
    }
}

fn at(s: f64) -> Option<SimTime> {
    s.is_finite().then(|| SimTime((s * 1e9).round() as u64))
}

fn policy(name: &str) -> HandoverPolicy {
    HandoverPolicy::ALL
        .into_iter()
        .find(|p| p.as_str() == name)
        .unwrap_or_else(|| panic!("unknown policy {name}"))
}

fn cause(name: &str) -> HandoverCause {
    [
        HandoverCause::A3,
        HandoverCause::Manual,
        HandoverCause::RadioLinkFailure,
        HandoverCause::Link,
    ]
    .into_iter()
    .find(|c| c.as_str() == name)
    .unwrap_or_else(|| panic!("unknown cause {name}"))
}

fn result(name: &str) -> HandoverResult {
    [
        HandoverResult::Completed,
        HandoverResult::InProgress,
        HandoverResult::PreparationFailed,
        HandoverResult::RadioLinkFailure,
    ]
    .into_iter()
    .find(|r| r.as_str() == name)
    .unwrap_or_else(|| panic!("unknown result {name}"))
}

/// The handover records rebuilt from the `handovers` table (one row per handover and flow),
/// with each UE's flows.
fn records(out: &RunOutput) -> (Vec<HandoverRecord>, Vec<(NodeId, Vec<FlowId>)>) {
    let t = series(out, "handovers");
    let id = u64s(column(t, "handover"));
    let flow: Vec<FlowId> = cats(column(t, "flow"))
        .0
        .iter()
        .map(|&f| FlowId(f))
        .collect();
    let ue: Vec<NodeId> = cats(column(t, "ue")).0.iter().map(|&n| NodeId(n)).collect();
    let source: Vec<NodeId> = cats(column(t, "source"))
        .0
        .iter()
        .map(|&n| NodeId(n))
        .collect();
    let target: Vec<NodeId> = cats(column(t, "target"))
        .0
        .iter()
        .map(|&n| NodeId(n))
        .collect();
    let causes = cat_names(column(t, "cause"));
    let policies = cat_names(column(t, "policy"));
    let results = cat_names(column(t, "result"));
    let time = |n: &str| f64s(column(t, n)).to_vec();
    let (decision, command, attach) = (time("decision_s"), time("command_s"), time("attach_s"));
    let (path_switch, completion) = (time("path_switch_s"), time("completion_s"));
    let count = |n: &str| u64s(column(t, n));
    let (fwd, drop, dup, reord) = (
        count("forwarded"),
        count("dropped"),
        count("duplicated"),
        count("reordered"),
    );
    let mut recs: Vec<HandoverRecord> = Vec::new();
    let mut ue_flows: Vec<(NodeId, Vec<FlowId>)> = Vec::new();
    for i in 0..id.len() {
        let counts = HandoverFlowCounts {
            forwarded: fwd[i],
            dropped: drop[i],
            dropped_at_target: 0,
            duplicated: dup[i],
            reordered: reord[i],
        };
        match ue_flows.iter_mut().find(|(u, _)| *u == ue[i]) {
            Some((_, f)) if !f.contains(&flow[i]) => f.push(flow[i]),
            Some(_) => {}
            None => ue_flows.push((ue[i], vec![flow[i]])),
        }
        if let Some(r) = recs.iter_mut().find(|r| u64::from(r.id) == id[i]) {
            r.flows.push((flow[i], counts));
            continue;
        }
        recs.push(HandoverRecord {
            id: id[i] as u32,
            ue: ue[i],
            source: source[i],
            target: target[i],
            cause: cause(causes[i]),
            policy: policy(policies[i]),
            decision: at(decision[i]).expect("a decision time"),
            command: at(command[i]),
            execution: None,
            attach: at(attach[i]),
            path_switch: at(path_switch[i]),
            completion: at(completion[i]),
            result: result(results[i]),
            flows: vec![(flow[i], counts)],
        });
    }
    (recs, ue_flows)
}

fn analytics(label: &str, file: &str, overrides: &[(&str, &str)], runs: usize) {
    let vars = analytics_trace_vars();
    let mut all = overrides.to_vec();
    all.push(("trace.tcp", vars.as_str()));
    let sc = load(file, &all);
    let (out, run_wall, run_cpu) = timed(|| run_once(&sc));
    let traces = var_columns(&out);
    let (recs, ue_flows) = records(&out);
    let run_end = at(out.summary["simulated_time_s"]
        .as_f64()
        .expect("simulated time"))
    .expect("a finite end");
    let flows_of = |ue: NodeId| {
        ue_flows
            .iter()
            .find(|(u, _)| *u == ue)
            .map(|(_, f)| f.clone())
            .unwrap_or_default()
    };
    let cfg = AnalyticsConfig::default();
    let rows = analyse(&recs, flows_of, &traces, run_end, cfg).expect("analytics run");
    // The run's own analytics read the same rows: the rebuilt inputs must give its table.
    let table = series(&out, "handovers");
    let outcomes = cat_names(column(table, "outcome"));
    let windows = f64s(column(table, "window_end_s"));
    let same = rows.len() == outcomes.len()
        && rows.iter().enumerate().all(|(i, r)| {
            r.outcome.as_str() == outcomes[i] && (r.window_end_s - windows[i]).abs() < 1e-9
        });
    assert!(
        same,
        "{label}: rebuilt inputs do not reproduce the run's handovers table"
    );
    // Short calls: time batches long enough for the clock, and report the median batch.
    let (_, one, _) = timed(|| analyse(&recs, flows_of, &traces, run_end, cfg));
    let reps = ((0.02 / one.max(1e-7)).ceil() as usize).clamp(1, 100_000);
    let mut walls = Vec::new();
    let mut cpus = Vec::new();
    for _ in 0..runs {
        let (_, wall, cpu) = timed(|| {
            for _ in 0..reps {
                std::hint::black_box(
                    analyse(&recs, flows_of, &traces, run_end, cfg).expect("analytics run"),
                );
            }
        });
        walls.push(wall / reps as f64);
        cpus.push(cpu / reps as f64);
    }
    let (wall, cpu) = (median(walls), median(cpus));
    let handovers = recs.len().max(1) as f64;
    println!(
        "analytics, {label:<28} {} handover(s) x flow rows {}, {} trace rows: {:.1} us per call \
         (cpu {:.1} us), {:.1} us per handover; the run itself {:.1} ms (cpu {:.1} ms): \
         analytics {:.3} % of it",
        recs.len(),
        rows.len(),
        traces.time_ns.len(),
        wall * 1e6,
        cpu * 1e6,
        wall / handovers * 1e6,
        run_wall * 1e3,
        run_cpu * 1e3,
        100.0 * wall / run_wall,
    );
}

// -- 3. RAN against a plain cell --------------------------------------------------------------

/// `trace.tcp` override value recording the analytics' variables of every flow.
fn analytics_trace_vars() -> String {
    let vars: Vec<String> = REQUIRED_TRACE_VARS
        .iter()
        .map(|v| format!("\"{}\"", v.name()))
        .collect();
    format!("[{}]", vars.join(", "))
}

/// Median (wall, CPU) seconds of each variant, the variants run alternately `runs` times, and
/// the last output of each.
fn alternate(variants: &[&Scenario], runs: usize) -> Vec<(f64, f64, RunOutput)> {
    let mut w = vec![Vec::new(); variants.len()];
    let mut c = vec![Vec::new(); variants.len()];
    let mut outs: Vec<Option<RunOutput>> = vec![None; variants.len()];
    for _ in 0..runs {
        for (i, sc) in variants.iter().enumerate() {
            let (out, wall, cpu) = timed(|| run_once(sc));
            w[i].push(wall);
            c[i].push(cpu);
            outs[i] = Some(out);
        }
    }
    w.into_iter()
        .zip(c)
        .zip(outs)
        .map(|((w, c), o)| (median(w), median(c), o.expect("at least one run")))
        .collect()
}

fn goodput_bps(out: &RunOutput) -> f64 {
    out.summary["flows"]
        .as_object()
        .expect("flows")
        .values()
        .filter_map(|f| f["goodput_bps"].as_f64())
        .sum()
}

/// The plain cell, the same cell recording the trace rows the RAN records for its analytics,
/// and the cell as a one-cell RAN: the RAN's cost per UE-second, and how much of it is the
/// analytics' trace rows (recorded per segment and per ACK, so they scale with the traffic,
/// not with the UEs).
fn ran_cost(file: &str, ues: usize, runs: usize) {
    let vars = analytics_trace_vars();
    let plain = load(file, &[]);
    let traced = load(file, &[("trace.tcp", vars.as_str())]);
    let ran = load(file, &[("ran.coupled_interference", "true")]);
    let m = alternate(&[&plain, &traced, &ran], runs);
    let [(wp, cp, op), (_, ct, ot), (wr, cr, or)] = [&m[0], &m[1], &m[2]];
    let sim_s = op.summary["simulated_time_s"].as_f64().unwrap_or(f64::NAN);
    let ue_s = ues as f64 * sim_s;
    let rows = ot
        .series
        .iter()
        .find(|s| s.name == "tcp")
        .and_then(|s| s.columns.first())
        .map_or(0, |(_, c)| c.len());
    println!(
        "RAN vs plain cell, {file:<22} plain wall {:.1} ms (cpu {:.1}), 1-cell RAN {:.1} ms \
         (cpu {:.1}): +{:.1} % cpu = {:.1} us of CPU ({:.1} us wall) per UE-second \
         ({ues} UEs x {sim_s:.0} s); of it the analytics' {rows} trace rows {:.1} us per \
         UE-second ({:.0} ns per row), the rest {:.1} us; goodput {:.3} / {:.3} Mb/s, events \
         {} / {}",
        wp * 1e3,
        cp * 1e3,
        wr * 1e3,
        cr * 1e3,
        100.0 * (cr / cp - 1.0),
        (cr - cp) / ue_s * 1e6,
        (wr - wp) / ue_s * 1e6,
        (ct - cp) / ue_s * 1e6,
        (ct - cp) / rows.max(1) as f64 * 1e9,
        (cr - ct) / ue_s * 1e6,
        goodput_bps(op) / 1e6,
        goodput_bps(or) / 1e6,
        op.events,
        or.events,
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .filter(|&n: &usize| n >= 1)
        .unwrap_or(15);
    println!("Handover benchmarks (release), median of {runs} runs");
    seed_000(runs);
    seed_002(runs);
    analytics("000/forwarding.toml", "000/forwarding.toml", &[], runs);
    analytics(
        "003/exp5-3.toml, 100 km/h",
        "003/exp5-3.toml",
        &[("mobility.ue.speed", "100km/h")],
        runs,
    );
    ran_cost("lte-bench-50ue.toml", 50, runs.min(9));
    ran_cost("lte-bench-1ue.toml", 1, runs.min(5));
}
