//! `[cells.NAME.nr.channel]` from a scenario file: the keys and their errors, and a TCP CUBIC
//! download over an FR2 cell whose UE's direct path is blocked and cleared (the Markov
//! model), measured through the `flow_rate` and `cells` series. Run with `--nocapture` for the
//! numbers docs/nr.md quotes.

use std::path::Path;

use celltcp_outputs::series::{Column, Series};
use celltcp_scenario::{load_path, load_str, load_str_in, run, RunOptions};

/// A one-UE FR2 cell (28 GHz, μ = 3, 100 MHz, DDDSU) with `channel` as the body of
/// `[cells.c.nr.channel]` and `extra` after it, one bulk CUBIC download.
fn scenario(duration: &str, channel: &str, extra: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
seed = 3

[nodes]
server = {{ kind = "host" }}
gnb = {{ kind = "router" }}
ue = {{ kind = "host" }}

[links.wired]
a = "server"
b = "gnb"
rate = "2Gbps"
delay = "10ms"
queue = {{ kind = "droptail", limit = "5000p" }}

[cells.c]
rat = "nr"
enb = "gnb"
carrier_ghz = 28.0
tx_power_dbm = 40.0
rlc = {{ mode = "am", buffer = "2000p" }}
uplink = {{ rate = "50Mbps", grant_delay = "2ms" }}

[cells.c.nr]
numerology = 3
bandwidth_mhz = 100
slot_pattern = "DDDSU"
max_layers = 2

[cells.c.nr.channel]
{channel}

[cells.c.ues]
ue = {{ position = [80.0, 0.0] }}

[flows.bulk]
kind = "tcp"
src = "server"
dst = "ue"
cc = "cubic"
app = {{ kind = "bulk" }}
{extra}
"#
    )
}

/// (key, message) of the loader's error for `text`.
fn error(text: &str) -> (String, String) {
    let e = load_str(text, &[]).expect_err("the scenario must be refused");
    (e.key.clone(), e.message.clone())
}

#[test]
fn bad_channel_keys_are_named_by_their_dotted_key() {
    let cases = [
        (
            "[cells.c.nr.channel.blockage]\nkind = \"markov\"\nmean_blocked = \"0s\"",
            "cells.c.nr.channel.blockage.mean_blocked",
            "expected a time > 0",
        ),
        (
            "[cells.c.nr.channel.blockage]\nkind = \"markov\"\nmean_los = \"-2s\"",
            "cells.c.nr.channel.blockage.mean_los",
            "",
        ),
        (
            "[cells.c.nr.channel.blockage]\nkind = \"markov\"\nmean_los = 2",
            "cells.c.nr.channel.blockage.mean_los",
            "",
        ),
        (
            "[cells.c.nr.channel.blockage]\nkind = \"model-b\"\narea = [[-10.0, -10.0], [50.0, 10.0]]",
            "cells.c.nr.channel.blockage.area",
            "[80, 0] lies outside",
        ),
        (
            "[cells.c.nr.channel.blockage]\nkind = \"cloud\"",
            "cells.c.nr.channel.blockage.kind",
            "",
        ),
        (
            "scenario = \"rural\"",
            "cells.c.nr.channel.scenario",
            "",
        ),
        ("colour = 1", "cells.c.nr.channel.colour", ""),
        (
            "model = \"trace\"",
            "cells.c.nr.channel.trace",
            "needs a file",
        ),
        (
            "model = \"trace\"\ntrace = \"/nonexistent/sinr.csv\"",
            "cells.c.nr.channel.trace",
            "cannot read",
        ),
    ];
    for (channel, key, message) in cases {
        let (k, m) = error(&scenario("1s", channel, ""));
        assert_eq!(k, key, "{channel}: {m}");
        assert!(m.contains(message), "{channel}: {m}");
    }
    // A carrier outside TR 38.901's 0.5–100 GHz (0.45 GHz is FR1 n71's neighbourhood, valid
    // for NR but not for the path loss) is named by the carrier's key.
    let low = scenario("1s", "", "")
        .replace("carrier_ghz = 28.0", "carrier_ghz = 0.45")
        .replace("numerology = 3", "numerology = 0")
        .replace("bandwidth_mhz = 100", "bandwidth_mhz = 20");
    assert_eq!(error(&low).0, "cells.c.carrier_ghz");
}

#[test]
fn a_trace_is_read_relative_to_the_scenario_and_checked() {
    let dir = std::env::temp_dir().join(format!("celltcp-nr-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("good.csv"),
        "time_s,sinr_db\n0,20\n0.5,-5\n1.0,20\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("back.csv"),
        "time_s,sinr_db\n0,20\n0.5,-5\n0.4,20\n",
    )
    .unwrap();
    let text = |file: &str| scenario("1s", &format!("model = \"trace\"\ntrace = \"{file}\""), "");
    assert!(load_str_in(&text("good.csv"), &[], &dir).is_ok());
    let e = load_str_in(&text("back.csv"), &[], &dir).unwrap_err();
    assert_eq!(e.key, "cells.c.nr.channel.trace");
    // The library's own message: the file, the line, the value.
    assert!(
        e.message.contains("back.csv") && e.message.contains("line 4"),
        "{}",
        e.message
    );
    // A trace of 20 dB with 5 dB from 0.5 s: the SINR the cells series shows at 0.3 s and 0.8 s.
    std::fs::write(dir.join("step.csv"), "time_s,sinr_db\n0,20\n0.5,5\n").unwrap();
    let sc = load_str_in(
        &scenario(
            "1s",
            "model = \"trace\"\ntrace = \"step.csv\"",
            "[trace]\ninterval = \"100ms\"\ncells = [\"c\"]",
        ),
        &[],
        &dir,
    )
    .unwrap();
    let out = run(&sc, &RunOptions::default()).unwrap();
    let sinr = ue_figure_series(&out.series, "channel_sinr_db");
    let at = |t: f64| sinr.iter().find(|(s, _)| (s - t).abs() < 1e-9).unwrap().1;
    assert_eq!((at(0.3), at(0.8)), (20.0, 5.0), "{sinr:?}");
    std::fs::remove_dir_all(&dir).ok();
}

fn column<'a>(s: &'a Series, name: &str) -> &'a Column {
    &s.columns.iter().find(|(n, _)| n == name).unwrap().1
}

fn cat(s: &Series, name: &str, i: usize) -> String {
    match column(s, name) {
        Column::Cat { codes, names } => names[codes[i] as usize].clone(),
        _ => panic!("{name} is categorical"),
    }
}

/// (time_s, value) of the UE's figure `figure` in the cells series.
fn ue_figure_series(series: &[Series], figure: &str) -> Vec<(f64, f64)> {
    let s = series.iter().find(|s| s.name == "cells").unwrap();
    let (Column::U64(t), Column::F64(v)) = (column(s, "time_ns"), column(s, "value")) else {
        panic!("cells columns")
    };
    (0..t.len())
        .filter(|&i| cat(s, "ue", i) == "ue" && cat(s, "figure", i) == figure)
        .map(|i| (t[i] as f64 * 1e-9, v[i]))
        .collect()
}

#[test]
fn cubic_loses_goodput_while_blocked_and_recovers_after() {
    // Mean 1 s clear, 300 ms blocked, 30 dB: at 80 m in UMi LOS (PL 101.4 dB at 28 GHz) the
    // SINR falls from about 23 dB to −7 dB, where no MCS of Table 5.1.3.1-1 decodes.
    let channel = "los = \"los\"\nshadowing = false\n\n[cells.c.nr.channel.blockage]\n\
                   kind = \"markov\"\nmean_los = \"1s\"\nmean_blocked = \"300ms\"";
    let trace = "[trace]\ninterval = \"10ms\"\nflows = [\"bulk\"]\ncells = [\"c\"]";
    let sc = load_str(&scenario("12s", channel, trace), &[]).unwrap();
    let out = run(&sc, &RunOptions::default()).unwrap();
    let blocked_time = ue_figure_series(&out.series, "blocked_time_s");
    let rate = out.series.iter().find(|s| s.name == "flow_rate").unwrap();
    let (Column::U64(t), Column::F64(bps)) = (column(rate, "time_ns"), column(rate, "rate_bps"))
    else {
        panic!("flow_rate columns")
    };
    // Each 10 ms interval is blocked when the UE's blocked time grew by the whole interval,
    // clear when it did not grow; intervals with a transition, and the first second (slow
    // start), are left out.
    let mut blocked_of = std::collections::BTreeMap::new();
    for w in blocked_time.windows(2) {
        let grown = w[1].1 - w[0].1;
        let dt = w[1].0 - w[0].0;
        blocked_of.insert(
            (w[1].0 * 1e3).round() as u64,
            (grown > dt - 1e-6, grown < 1e-9),
        );
    }
    let (mut blocked, mut clear) = (Vec::new(), Vec::new());
    for i in 0..t.len() {
        let ms = (t[i] as f64 * 1e-6).round() as u64;
        match blocked_of.get(&ms) {
            Some(_) if ms < 1000 => {}
            Some((true, _)) => blocked.push(bps[i]),
            Some((_, true)) => clear.push(bps[i]),
            _ => {}
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (b, c) = (mean(&blocked), mean(&clear));
    // Recovery: the goodput of the clear intervals in the first 100 ms after each blockage
    // ends, and 200–500 ms after it, over the blockages after the first second.
    let rate_at: std::collections::BTreeMap<u64, f64> = (0..t.len())
        .map(|i| ((t[i] as f64 * 1e-6).round() as u64, bps[i]))
        .collect();
    // A blockage ends at the first clear interval after a blocked one (the interval of the
    // transition between them is neither).
    let mut ends = Vec::new();
    let mut was_blocked = false;
    for (&ms, &(is_blocked, is_clear)) in &blocked_of {
        if is_clear && was_blocked && ms > 1000 {
            ends.push(ms);
        }
        if is_blocked || is_clear {
            was_blocked = is_blocked;
        }
    }
    let after = |from: u64, to: u64| {
        let v: Vec<f64> = ends
            .iter()
            .flat_map(|e| (e + from..e + to).step_by(10))
            .filter(|ms| blocked_of.get(ms).is_some_and(|s| s.1))
            .filter_map(|ms| rate_at.get(&ms).copied())
            .collect();
        mean(&v)
    };
    let (early, late) = (after(0, 100), after(200, 500));
    eprintln!(
        "after {} blockage ends: {:.1} Mbit/s in the first 100 ms, {:.1} Mbit/s 200–500 ms later",
        ends.len(),
        early / 1e6,
        late / 1e6
    );
    assert!(ends.len() >= 5, "{ends:?}");
    assert!(late > 0.5 * c, "late {late} vs clear {c}");
    let r = ue_figure_series(&out.series, "blockage_events");
    eprintln!(
        "CUBIC over FR2 with Markov blockage, 12 s: {} blocked and {} clear 10 ms intervals; \
         goodput {:.1} Mbit/s blocked, {:.1} Mbit/s clear; {} blockage events; summary \
         blocked fraction {:.4}",
        blocked.len(),
        clear.len(),
        b / 1e6,
        c / 1e6,
        r.last().unwrap().1,
        out.summary["cells"]["c"]["ues"]["ue"]["blocked_fraction"]
    );
    assert!(
        blocked.len() > 50 && clear.len() > 300,
        "{} {}",
        blocked.len(),
        clear.len()
    );
    assert!(b < 0.1 * c, "blocked {b} vs clear {c}");
    assert!(c > 100e6, "{c}");
    let fraction = out.summary["cells"]["c"]["ues"]["ue"]["blocked_fraction"]
        .as_f64()
        .unwrap();
    assert!(fraction > 0.05 && fraction < 0.6, "{fraction}");
}

#[test]
fn the_example_runs_and_reports_blockage_per_ue() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples/nr-fr2-blockage.toml");
    let sc = load_path(&file, &[]).unwrap();
    // The echo writes the channel's times with units, as they are written in the file.
    let echo = sc.echo();
    let channel = &echo["cells"]["fr2"]["nr"]["channel"];
    assert_eq!(channel["blockage"]["mean_blocked"], "300ms", "{channel}");
    assert_eq!(channel["beam"]["recovery"], "10ms", "{channel}");
    assert_eq!(channel["blockage"]["kind"], "markov", "{channel}");
    let out = run(&sc, &RunOptions::default()).unwrap();
    for ue in ["ue0", "ue1", "ue2"] {
        let u = &out.summary["cells"]["fr2"]["ues"][ue];
        eprintln!(
            "{ue}: blocked fraction {}, {} blockage events, PHY {} bit/s",
            u["blocked_fraction"], u["blockage_events"], u["phy_throughput_bps"]
        );
        assert!(u["blockage_events"].as_f64().is_some(), "{u}");
    }
}
