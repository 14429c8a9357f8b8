//! `[ran]`, `[mobility]` and link handover events in scenario files: every new key is checked
//! at load time with a message naming the dotted key and the expected form, overrides reach
//! the new keys, and the echo of a loaded file loads to the same scenario.

use celltcp_net::handover::HandoverPolicy;
use celltcp_radio::ran::PathSwitchPrediction;
use celltcp_scenario::config::mobility::MobilitySpec;
use celltcp_scenario::config::ran::TriggerQuantityKind;
use celltcp_scenario::{load_str, Scenario};

/// Two cells 500 m apart behind one gateway, one UE under each, a RAN with defaults.
const RAN: &str = r#"
[simulation]
duration = "2s"

[nodes]
server = { kind = "host" }
pgw = { kind = "router" }
enb1 = { kind = "router" }
enb2 = { kind = "router" }
ue1 = { kind = "host" }
ue2 = { kind = "host" }

[links.sgi]
a = "server"
b = "pgw"
rate = "100Mbps"
delay = "5ms"

[links.s1u1]
a = "pgw"
b = "enb1"
rate = "100Mbps"
delay = "2ms"

[links.s1u2]
a = "pgw"
b = "enb2"
rate = "100Mbps"
delay = "2ms"

[cells.a]
enb = "enb1"
position = [0.0, 0.0]

[cells.a.ues]
ue1 = { position = [100.0, 0.0] }

[cells.b]
enb = "enb2"
position = [500.0, 0.0]

[cells.b.ues]
ue2 = { position = [450.0, 0.0] }

[epc]
gateway = "pgw"

[ran]

[flows.down]
kind = "tcp"
src = "server"
dst = "ue1"
cc = "newreno"
app = { kind = "bulk" }
"#;

fn load(text: &str, overrides: &[(&str, &str)]) -> Result<Scenario, String> {
    let owned: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    load_str(text, &owned).map_err(|e| e.to_string())
}

fn err(overrides: &[(&str, &str)]) -> String {
    load(RAN, overrides).expect_err("expected an error")
}

#[test]
fn defaults_fill_every_key() {
    let s = load(RAN, &[]).unwrap();
    let ran = s.ran.as_ref().expect("ran");
    assert!(ran.coupled_interference);
    assert_eq!(ran.measurement.period.as_ns(), 40_000_000);
    assert_eq!(ran.measurement.filter_k, 4);
    assert_eq!(ran.measurement.trigger_quantity, TriggerQuantityKind::Rsrp);
    assert_eq!(ran.handover.policy, HandoverPolicy::Forward);
    assert!(ran.handover.reordering);
    assert_eq!(ran.handover.end_marker_timeout.as_ns(), 200_000_000);
    assert_eq!(ran.handover.latencies.detach_sync.as_ns(), 30_000_000);
    assert!(ran.handover.a3.is_none() && ran.handover.rlf.is_none());
    // The echo names every default and loads back to the same scenario.
    let echo = s.echo();
    assert_eq!(echo["ran"]["handover"]["policy"], "forward");
    assert_eq!(echo["ran"]["measurement"]["period"], "40ms");
    assert_eq!(echo["ran"]["measurement"]["trigger_quantity"], "rsrp");
    let again: toml::Table = serde_json::from_value(echo).unwrap();
    let reloaded = load_str(&toml::to_string(&again).unwrap(), &[]).unwrap();
    assert_eq!(reloaded.ran, s.ran);
    assert_eq!(reloaded.cells, s.cells);
}

#[test]
fn overrides_reach_the_handover_keys() {
    let s = load(
        RAN,
        &[
            ("ran.handover.policy", "predicted"),
            ("ran.handover.prediction_step", "100ms"),
            (
                "ran.handover.a3",
                "{ hysteresis_db = 2.0, time_to_trigger = '128ms' }",
            ),
            ("mobility.ue1", "{ kind = 'linear', speed = '120km/h' }"),
        ],
    )
    .unwrap();
    let h = &s.ran.as_ref().unwrap().handover;
    assert_eq!(h.policy, HandoverPolicy::Predicted);
    assert_eq!(
        h.prediction,
        PathSwitchPrediction {
            step: celltcp_engine::SimDuration::from_ms(100),
            error_std: celltcp_engine::SimDuration::ZERO
        }
    );
    let a3 = h.a3.unwrap();
    assert_eq!(
        (a3.offset_db, a3.hysteresis_db, a3.time_to_trigger.as_ns()),
        (0.0, 2.0, 128_000_000)
    );
    match &s.mobility["ue1"] {
        MobilitySpec::Linear { speed_mps, .. } => assert!((speed_mps - 100.0 / 3.0).abs() < 1e-9),
        other => panic!("{other:?}"),
    }
    let s = load(RAN, &[("ran.handover.policy", "predicted")]).unwrap();
    let h = s.ran.unwrap().handover;
    assert_eq!(h.policy, HandoverPolicy::Predicted);
    assert_eq!(
        h.prediction,
        PathSwitchPrediction {
            step: celltcp_engine::SimDuration::from_ms(130),
            error_std: celltcp_engine::SimDuration::ZERO
        }
    );
}

#[test]
fn policy_and_prediction_errors() {
    assert_eq!(
        err(&[("ran.handover.policy", "fast_path_swich")]),
        "ran.handover.policy: 'fast_path_swich' is not one of: discard, forward, fast_path_switch, predicted"
    );
    assert_eq!(
        err(&[("ran.handover.prediction_step", "130ms")]),
        "ran.handover.prediction_step: '130ms' is given but policy is \"forward\"; it applies only with policy = \"predicted\""
    );
    assert_eq!(
        err(&[("ran.handover.policy", "discard"), ("ran.handover.prediction_error", "5ms")]),
        "ran.handover.prediction_error: '5ms' is given but policy is \"discard\"; it applies only with policy = \"predicted\""
    );
    assert_eq!(
        err(&[("ran.handover.policy", "predicted"), ("ran.handover.prediction_step", "130")]),
        "ran.handover.prediction_step: 130 has no unit; a time needs one of ns, us, ms, s, min (e.g. '130ms')"
    );
}

#[test]
fn unknown_keys_are_rejected_everywhere() {
    assert_eq!(
        err(&[("ran.colour", "1")]),
        "ran.colour: unknown key; expected one of: coupled_interference, layout, measurement, handover, dual_connectivity"
    );
    assert_eq!(
        err(&[("ran.handover.polcy", "discard")]),
        "ran.handover.polcy: unknown key; expected one of: procedure, daps, conditional, policy, prediction_step, prediction_error, reordering, \
         target_buffer, end_marker_timeout, forwarding_rate, forwarding_buffer, max_ues_per_cell, reestablishment, q_rxlevmin_dbm, a3, latencies, rlf, manual"
    );
    assert_eq!(
        err(&[("ran.handover.latencies.x3", "5ms")]),
        "ran.handover.latencies.x3: unknown key; expected one of: measurement_report, decision, x2, admission, rrc, \
         detach_sync, random_access, s1, s11"
    );
    assert_eq!(
        err(&[("ran.handover.a3", "{ offset = 3.0 }")]),
        "ran.handover.a3.offset: unknown key; expected one of: offset_db, hysteresis_db, time_to_trigger"
    );
    assert_eq!(
        err(&[("ran.handover.rlf", "{ t311 = '1s' }")]),
        "ran.handover.rlf.t311: unknown key; expected one of: q_out_db, q_in_db, n310, n311, t310"
    );
    assert_eq!(
        err(&[("ran.measurement.filter", "4")]),
        "ran.measurement.filter: unknown key; expected one of: period, filter_k, error_std_db, trigger_quantity"
    );
    assert_eq!(
        err(&[(
            "mobility.ue1",
            "{ kind = 'linear', speed = '3m/s', direction = 90 }"
        )]),
        "mobility.ue1.direction: unknown key; expected one of: kind, speed, heading_deg, depart"
    );
    assert_eq!(
        err(&[("mobility.ue1", "{ kind = 'teleport' }")]),
        "mobility.ue1.kind: 'teleport' is not one of: fixed, linear, waypoints, random_waypoint"
    );
    assert_eq!(
        err(&[("ran.layout", "{ kind = 'grid', cells = ['a'] }")]),
        "ran.layout.kind: 'grid' is not one of: line, hex"
    );
}

#[test]
fn bad_units_and_ranges() {
    assert_eq!(
        err(&[("ran.handover.q_rxlevmin_dbm", "-150")]),
        "ran.handover.q_rxlevmin_dbm: -150 dBm is not allowed; expected a number from -140 to -44 (dBm)"
    );
    assert_eq!(
        err(&[("ran.measurement.period", "40")]),
        "ran.measurement.period: 40 has no unit; a time needs one of ns, us, ms, s, min (e.g. '40ms')"
    );
    assert_eq!(
        err(&[("ran.measurement.period", "0ms")]),
        "ran.measurement.period: '0ms' must be > 0"
    );
    assert_eq!(
        err(&[("ran.measurement.filter_k", "20")]),
        "ran.measurement.filter_k: 20 is out of range; expected a filterCoefficient 0 to 19"
    );
    assert_eq!(
        err(&[("ran.measurement.error_std_db", "-1.0")]),
        "ran.measurement.error_std_db: -1 is not allowed; expected a standard deviation in dB ≥ 0"
    );
    assert_eq!(
        err(&[("ran.handover.target_buffer", "200")]),
        "ran.handover.target_buffer: 200 has no unit; a queue limit needs one of p (packets), B, kB, KB, MB, GB, KiB, MiB, GiB (e.g. '200p')"
    );
    assert_eq!(
        err(&[("ran.handover.target_buffer", "0p")]),
        "ran.handover.target_buffer: '0p' must be > 0; use e.g. '200p' or '1MB'"
    );
    assert_eq!(
        err(&[("ran.handover.max_ues_per_cell", "0")]),
        "ran.handover.max_ues_per_cell: 0 is not allowed; expected an integer ≥ 1"
    );
    assert_eq!(
        err(&[("ran.handover.latencies.x2", "5 msec")]),
        "ran.handover.latencies.x2: '5 msec' is not a time; use e.g. '20ms'"
    );
    assert_eq!(
        err(&[("ran.handover.end_marker_timeout", "-1ms")]),
        "ran.handover.end_marker_timeout: '-1ms' is negative; a time must be ≥ 0"
    );
    assert!(err(&[("ran.handover.a3", "{ time_to_trigger = '250ms' }")]).starts_with(
        "ran.handover.a3.time_to_trigger: '250ms' is not a timeToTrigger of TS 36.331; expected one of 0ms, 40ms, 64ms"
    ));
    assert_eq!(
        err(&[("ran.handover.a3", "{ hysteresis_db = -1.0 }")]),
        "ran.handover.a3.hysteresis_db: -1 is not allowed; expected a number of dB ≥ 0"
    );
    assert_eq!(
        err(&[("ran.handover.rlf", "{ q_out_db = -5.0, q_in_db = -6.0 }")]),
        "ran.handover.rlf.q_in_db: -6 dB is not above q_out_db (-5 dB); in-sync needs a better SINR than out-of-sync"
    );
    assert_eq!(
        err(&[("ran.handover.rlf", "{ n310 = 0 }")]),
        "ran.handover.rlf.n310: 0 is not allowed; expected an integer ≥ 1"
    );
}

#[test]
fn manual_handovers_name_a_ue_and_a_cell() {
    let manual = |ue: &str, target: &str, at: &str| {
        format!("{RAN}\n[[ran.handover.manual]]\nat = '{at}'\nue = '{ue}'\ntarget = '{target}'\n")
    };
    let s = load(&manual("ue1", "b", "1s"), &[]).unwrap();
    assert_eq!(s.ran.unwrap().handover.manual.len(), 1);
    assert_eq!(
        load(&manual("ue1", "c", "1s"), &[]).unwrap_err(),
        "ran.handover.manual[0].target: 'c' is not a cell (cells: a, b)"
    );
    assert_eq!(
        load(&manual("server", "b", "1s"), &[]).unwrap_err(),
        "ran.handover.manual[0].ue: 'server' is not a UE of the cells (UEs: ue1, ue2)"
    );
    // A handover scheduled past the end simply does not happen (a shortened run keeps its
    // schedule).
    assert_eq!(
        load(&manual("ue1", "b", "2s"), &[])
            .unwrap()
            .ran
            .unwrap()
            .handover
            .manual[0]
            .at
            .as_ns(),
        2_000_000_000
    );
    assert_eq!(
        load(
            &format!("{RAN}\n[[ran.handover.manual]]\nat = '1s'\nue = 'ue1'\n"),
            &[]
        )
        .unwrap_err(),
        "ran.handover.manual[0].target: required key is missing"
    );
}

#[test]
fn ran_needs_epc_and_mobility_needs_ran() {
    let without_epc = RAN.replace("[epc]\ngateway = \"pgw\"\n", "");
    assert_eq!(
        load(&without_epc, &[]).unwrap_err(),
        "ran: a radio access network needs [epc]: its S-GW switches each UE's downlink path at handover"
    );
    let without_ran = RAN.replace("\n[ran]\n", "\n");
    assert_eq!(
        load(
            &without_ran,
            &[("mobility.ue1", "{ kind = 'linear', speed = '10m/s' }")]
        )
        .unwrap_err(),
        "mobility: moving UEs need [ran]: without it a cell cannot hand a UE over to another cell"
    );
    assert_eq!(
        err(&[("mobility.server", "{ kind = 'fixed' }")]),
        "mobility.server: 'server' is not a UE of the cells (UEs: ue1, ue2)"
    );
}

#[test]
fn mobility_models_are_checked() {
    assert_eq!(
        err(&[("mobility.ue1", "{ kind = 'linear', speed = '-3km/h' }")]),
        "mobility.ue1.speed: '-3km/h' is negative; a speed must be ≥ 0"
    );
    assert_eq!(
        err(&[("mobility.ue1", "{ kind = 'linear', speed = '30' }")]),
        "mobility.ue1.speed: 30 has no unit; a speed needs one of km/h, m/s (e.g. '30km/h')"
    );
    assert_eq!(
        err(&[("mobility.ue1", "{ kind = 'linear', speed = '200m/s' }")]),
        "mobility.ue1.speed: '200m/s' is faster than 500 km/h, most likely a unit mistake; use e.g. '100km/h'"
    );
    let fixed = load(RAN, &[("mobility.ue1", "{ kind = 'linear', speed = 0 }")]).unwrap();
    assert_eq!(
        fixed.mobility["ue1"],
        MobilitySpec::Linear {
            speed_mps: 0.0,
            heading_deg: 0.0,
            depart: Default::default()
        }
    );
    assert_eq!(
        err(&[("mobility.ue1", "{ kind = 'waypoints', points = [{ at = '1s', position = [0.0, 0.0] }, { at = '1s', position = [5.0, 0.0] }] }")]),
        "mobility.ue1.points[1].at: '1s' is not after the previous point's time; times must increase strictly"
    );
    assert_eq!(
        err(&[("mobility.ue1", "{ kind = 'waypoints', points = [] }")]),
        "mobility.ue1.points: a path needs at least one point"
    );
    assert_eq!(
        err(&[("mobility.ue1", "{ kind = 'random_waypoint', area = [[0.0, 0.0], [0.0, 10.0]], speed_min = '1m/s', speed_max = '2m/s' }")]),
        "mobility.ue1.area: [[0, 0], [0, 10]] is not a rectangle; expected [[x0, y0], [x1, y1]] with x0 < x1 and y0 < y1"
    );
    assert_eq!(
        err(&[("mobility.ue1", "{ kind = 'random_waypoint', area = [[0.0, -50.0], [50.0, 50.0]], speed_min = '1m/s', speed_max = '2m/s' }")]),
        "mobility.ue1.area: does not contain the UE's start [100, 0] (its cells.*.ues.ue1.position)"
    );
    assert_eq!(
        err(&[("mobility.ue1", "{ kind = 'random_waypoint', area = [[0.0, -50.0], [200.0, 50.0]], speed_min = '0', speed_max = '2m/s' }")]),
        "mobility.ue1.speed_min: '0' must be > 0 (a random waypoint with speed 0 never arrives)"
    );
    assert_eq!(
        err(&[("mobility.ue1", "{ kind = 'random_waypoint', area = [[0.0, -50.0], [200.0, 50.0]], speed_min = '3m/s', speed_max = '2m/s' }")]),
        "mobility.ue1.speed_max: '2m/s' is below speed_min '3m/s'"
    );
    let rwp = load(RAN, &[("mobility.ue1", "{ kind = 'random_waypoint', area = [[0.0, -50.0], [200.0, 50.0]], speed_min = '1m/s', speed_max = '36km/h', pause = '1s' }")]).unwrap();
    assert!(
        matches!(rwp.mobility["ue1"], MobilitySpec::RandomWaypoint { speed_mps: (min, max), .. } if min == 1.0 && (max - 10.0).abs() < 1e-12)
    );
}

#[test]
fn layouts_place_cells_and_conflict_with_positions() {
    let unplaced = RAN
        .replace("position = [0.0, 0.0]\n", "")
        .replace("position = [500.0, 0.0]\n", "");
    let s = load(&unplaced, &[("ran.layout", "{ kind = 'line', cells = ['b', 'a'], spacing = '0.25km', origin = [10.0, 5.0], heading_deg = 90.0 }")]).unwrap();
    assert_eq!(s.cells["b"].position, [10.0, 5.0]);
    let a = s.cells["a"].position;
    assert!(
        (a[0] - 10.0).abs() < 1e-9 && (a[1] - 255.0).abs() < 1e-9,
        "{a:?}"
    );
    // The echo leaves the placed cells without a position, so it loads again.
    let echo = s.echo();
    assert!(echo["cells"]["a"].get("position").is_none());
    let again: toml::Table = serde_json::from_value(echo).unwrap();
    assert_eq!(
        load_str(&toml::to_string(&again).unwrap(), &[])
            .unwrap()
            .cells,
        s.cells
    );

    let hex = load(
        &unplaced,
        &[(
            "ran.layout",
            "{ kind = 'hex', cells = ['a', 'b'], isd = '500m' }",
        )],
    )
    .unwrap();
    assert_eq!(hex.cells["a"].position, [0.0, 0.0]);
    assert!((hex.cells["b"].position[0] - 500.0).abs() < 1e-9);

    assert_eq!(
        err(&[("ran.layout", "{ kind = 'line', cells = ['a', 'b'], spacing = '250m' }")]),
        "ran.layout.cells: cell 'a' is placed by the layout and also sets cells.a.position; remove one of the two"
    );
    assert_eq!(
        load(
            &unplaced,
            &[(
                "ran.layout",
                "{ kind = 'line', cells = ['a', 'x'], spacing = '250m' }"
            )]
        )
        .unwrap_err(),
        "ran.layout.cells: cell 'x' does not exist (cells: a, b)"
    );
    assert_eq!(
        load(
            &unplaced,
            &[(
                "ran.layout",
                "{ kind = 'line', cells = ['a', 'a'], spacing = '250m' }"
            )]
        )
        .unwrap_err(),
        "ran.layout.cells: 'a' is listed twice"
    );
    assert_eq!(
        load(
            &unplaced,
            &[(
                "ran.layout",
                "{ kind = 'line', cells = ['a'], spacing = '250' }"
            )]
        )
        .unwrap_err(),
        "ran.layout.spacing: 250 has no unit; a length needs one of m, km (e.g. '250m')"
    );
    assert_eq!(
        load(
            &unplaced,
            &[("ran.layout", "{ kind = 'hex', cells = ['a'], isd = '0m' }")]
        )
        .unwrap_err(),
        "ran.layout.isd: '0m' must be > 0"
    );
    assert_eq!(
        load(
            &unplaced,
            &[(
                "ran.layout",
                "{ kind = 'hex', cells = ['a'], spacing = '1m' }"
            )]
        )
        .unwrap_err(),
        "ran.layout.spacing: unknown key; expected one of: kind, cells, isd, origin, heading_deg"
    );
}

#[test]
fn link_handover_events_are_checked() {
    let event = |body: &str| format!("{RAN}\n[[events]]\nat = '1s'\nlink = 'sgi'\n{body}\n");
    let s = load(
        &event("handover = { interruption = '100ms', policy = 'discard' }"),
        &[],
    )
    .unwrap();
    let h = s.events[0].handover.unwrap();
    assert_eq!(h.interruption.as_ns(), 100_000_000);
    assert_eq!(h.policy.as_str(), "discard");
    let s = load(&event("handover = { interruption = '100ms' }"), &[]).unwrap();
    assert_eq!(s.events[0].handover.unwrap().policy.as_str(), "forward");
    assert_eq!(
        load(
            &event("handover = { interruption = '100ms' }\ndown = true"),
            &[]
        )
        .unwrap_err(),
        "events[0].down: cannot be combined with handover in one event; write a separate event"
    );
    assert_eq!(
        load(
            &event("handover = { interruption = '100ms', policy = 'drop' }"),
            &[]
        )
        .unwrap_err(),
        "events[0].handover.policy: 'drop' is not one of: discard, forward, fast_path_switch, predicted"
    );
    // A radio access network's policies name X2 and path-switch steps a link does not have.
    for policy in ["fast_path_switch", "predicted"] {
        assert_eq!(
            load(
                &event(&format!(
                    "handover = {{ interruption = '100ms', policy = '{policy}' }}"
                )),
                &[]
            )
            .unwrap_err(),
            format!(
                "events[0].handover.policy: '{policy}' is not a link handover's policy (a link \
                 has no X2 or path switch); expected one of: discard, forward"
            )
        );
    }
    assert_eq!(
        load(&event("handover = { interruption = '0s' }"), &[]).unwrap_err(),
        "events[0].handover.interruption: '0s' must be > 0"
    );
    assert_eq!(
        load(&event("handover = { interruption = '1.5s' }"), &[]).unwrap_err(),
        "events[0].handover.interruption: '1.5s' from '1s' ends after the end of the run"
    );
    assert_eq!(
        load(&event("handover = { interruption = '100' }"), &[]).unwrap_err(),
        "events[0].handover.interruption: 100 has no unit; a time needs one of ns, us, ms, s, min (e.g. '100ms')"
    );
    assert_eq!(
        load(&event("handover = { duration = '100ms' }"), &[]).unwrap_err(),
        "events[0].handover.duration: unknown key; expected one of: interruption, policy"
    );
    let two = format!(
        "{}\n[[events]]\nat = '1.05s'\nlink = 'sgi'\nhandover = {{ interruption = '100ms' }}\n",
        event("handover = { interruption = '100ms' }")
    );
    assert_eq!(
        load(&two, &[]).unwrap_err(),
        "events[1].handover: overlaps the handover of events[0] on link 'sgi'; handovers of a link follow one another"
    );
    assert_eq!(
        load(&event(""), &[]).unwrap_err(),
        "events[0]: changes nothing; give at least one of delay, rate, down, handover"
    );
}

/// The scenario text with overrides applied, as JSON (what `celltcp schema` validates).
fn as_json(text: &str, overrides: &[(&str, &str)]) -> serde_json::Value {
    let mut table: toml::Table = text.parse().unwrap();
    let owned: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    celltcp_scenario::overrides::apply(&mut table, &owned).unwrap();
    serde_json::to_value(table).unwrap()
}

#[test]
fn the_json_schema_knows_the_new_keys() {
    let v = jsonschema::validator_for(&celltcp_scenario::json_schema()).unwrap();
    let good: &[&[(&str, &str)]] = &[
        &[],
        &[("ran.handover.policy", "predicted"), ("ran.handover.prediction_step", "100ms")],
        &[("ran.handover.a3", "{ offset_db = 1.0, hysteresis_db = 2.0, time_to_trigger = '256ms' }")],
        &[("ran.handover.rlf", "{ t310 = '1s' }"), ("ran.handover.max_ues_per_cell", "3")],
        &[("mobility.ue1", "{ kind = 'linear', speed = '100km/h', heading_deg = 45.0 }")],
        &[("mobility.ue1", "{ kind = 'linear', speed = 0 }")],
        &[("mobility.ue1", "{ kind = 'waypoints', points = [{ at = '0s', position = [0.0, 1.0] }] }")],
        &[("ran.layout", "{ kind = 'hex', cells = ['a'], isd = '500m' }")],
        &[("events", "[{ at = '1s', link = 'sgi', handover = { interruption = '100ms', policy = 'discard' } }]")],
    ];
    for overrides in good {
        let errors: Vec<String> = v
            .iter_errors(&as_json(RAN, overrides))
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{overrides:?}: {errors:?}");
    }
    let bad: &[(&str, &str)] = &[
        ("ran.handover.policy", "fast_path_swich"),
        ("ran.handover.polcy", "discard"),
        ("ran.measurement.filter_k", "20"),
        ("ran.handover.latencies.x2", "'5'"),
        ("mobility.ue1", "{ kind = 'linear', speed = '30kmh' }"),
        ("mobility.ue1", "{ kind = 'linear', speed = 30 }"),
        ("mobility.ue1", "{ kind = 'teleport' }"),
        (
            "ran.layout",
            "{ kind = 'line', cells = ['a'], spacing = '250 meters' }",
        ),
        (
            "events",
            "[{ at = '1s', link = 'sgi', handover = { interruption = '100ms', policy = 'drop' } }]",
        ),
    ];
    for (key, value) in bad {
        assert!(
            !v.is_valid(&as_json(RAN, &[(key, value)])),
            "{key} = {value} should be rejected by the schema"
        );
    }
    // The handover examples load and validate.
    let examples =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/celltcp/examples");
    for name in ["000/forwarding.toml", "003/exp5-3.toml"] {
        let path = examples.join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        celltcp_scenario::load_path(&path, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        let errors: Vec<String> = v
            .iter_errors(&as_json(&text, &[]))
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
}

#[test]
fn a_ues_speed_comes_from_its_motion_in_a_network() {
    assert_eq!(
        err(&[("cells.a.ues.ue1.speed_kmh", "30.0")]),
        "cells.a.ues.ue1.speed_kmh: is not used with [ran]: a UE's speed comes from its motion; set [mobility.ue1] instead"
    );
}

#[test]
fn trigger_quantity_selects_rsrq_and_names_its_key() {
    let s = load(RAN, &[("ran.measurement.trigger_quantity", "rsrq")]).unwrap();
    assert_eq!(
        s.ran.unwrap().measurement.trigger_quantity,
        TriggerQuantityKind::Rsrq
    );
    let e = err(&[("ran.measurement.trigger_quantity", "sinr")]);
    assert!(e.starts_with("ran.measurement.trigger_quantity: "), "{e}");
    assert!(e.contains("rsrp") && e.contains("rsrq"), "{e}");
}

/// What the RAN refuses when it is built (`check`, as `celltcp validate` and `run` do) names the
/// `[ran]` key: TS 36.331's Hysteresis range (0 to 15 dB) and a3-Offset range (±15 dB).
#[test]
fn ran_build_errors_name_the_ran_key() {
    let check_err = |overrides: &[(&str, &str)]| {
        let s = load(RAN, overrides).expect("loads");
        celltcp_scenario::check(&s)
            .expect_err("the RAN refuses it")
            .to_string()
    };
    assert_eq!(
        check_err(&[("ran.handover.a3", "{ hysteresis_db = 20.0 }")]),
        "ran.handover.a3.hysteresis_db: 20 dB is not allowed; expected 0 to 15 dB (TS 36.331 Hysteresis)"
    );
    assert_eq!(
        check_err(&[("ran.handover.a3", "{ offset_db = -16.0 }")]),
        "ran.handover.a3.offset_db: -16 dB is not allowed; expected -15 to 15 dB (TS 36.331 a3-Offset)"
    );
}
