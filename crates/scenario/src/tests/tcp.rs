//! TCP flows: controller, application, endpoint settings and their limits.

use celltcp_engine::SimDuration;

use super::{base_err, load, BASE};
use crate::{AckControlConfig, AppSpec, CcAlgorithm, FileSize, FlowKind, TcpConfig, TcpFlow};

fn tcp(s: &crate::Scenario, name: &str) -> TcpFlow {
    match &s.flows[name].kind {
        FlowKind::Tcp(t) => t.clone(),
        FlowKind::Udp(_) => panic!("{name} is a UDP flow"),
    }
}

fn with(overrides: &[(&str, &str)]) -> crate::Scenario {
    let owned: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    crate::load_str(BASE, &owned).unwrap_or_else(|e| panic!("should load: {e}"))
}

#[test]
fn defaults_match_the_documented_ones() {
    let web = tcp(&load(BASE), "web");
    assert_eq!(web.cc, CcAlgorithm::NewReno);
    assert_eq!(web.cc.name(), "newreno");
    assert_eq!(
        web.settings,
        TcpConfig {
            mss: 1448,
            initial_window: 10,
            initial_rto: SimDuration::from_secs(1),
            min_rto: SimDuration::from_ms(200),
            max_rto: SimDuration::from_secs(60),
            delayed_ack: Some(SimDuration::from_ms(40)),
            delack_segments: 2,
            abc_limit: 2,
            hystart: None,
            sack: true,
            timestamps: true,
            window_scale: true,
            limited_transmit: true,
            ecn: false,
            detect_lost_retransmissions: true,
            rcv_buf_bytes: 4_000_000,
            snd_buf_bytes: 4_000_000,
            dupack_threshold: 3,
            ack_copies: AckControlConfig {
                enabled: false,
                copies: 2,
                threshold: 0.1,
                p_buff: 0.01,
                window_segments: 32
            },
            ..TcpConfig::default()
        }
    );
    // The defaults are the domain type's: nothing of the file layer sets one.
    assert_eq!(web.settings, TcpConfig::default());
    assert_eq!(
        web.app,
        AppSpec::Ftp {
            file_size: FileSize::Pareto {
                mean: 100_000,
                shape: 1.5
            },
            think_time_mean: SimDuration::from_secs(30)
        }
    );
    let bulk = tcp(&load(BASE), "bulk");
    assert_eq!(bulk.cc, CcAlgorithm::Cubic);
    assert_eq!(bulk.settings.delayed_ack, None);
    assert!(bulk.settings.ecn);
    assert_eq!(
        bulk.app,
        AppSpec::Bulk {
            bytes: Some(10_000_000)
        }
    );
}

#[test]
fn every_controller_name_loads() {
    for name in [
        "reno",
        "newreno",
        "cubic",
        "cubic-linux",
        "bbr",
        "vegas",
        "westwood",
        "westwood-original",
        "petra",
    ] {
        assert_eq!(
            tcp(&with(&[("flows.bulk.cc", name)]), "bulk").cc.name(),
            name
        );
    }
    assert_eq!(
        base_err("flows.bulk.cc", "renoo"),
        "flows.bulk.cc: 'renoo' is not one of: reno, newreno, cubic, cubic-linux, bbr, vegas, westwood, westwood-original, petra"
    );
}

#[test]
fn applications() {
    let app = |value: &str| tcp(&with(&[("flows.bulk.app", value)]), "bulk").app;
    assert_eq!(app("{ kind = 'bulk' }"), AppSpec::Bulk { bytes: None });
    assert_eq!(
        app("{ kind = 'ftp', file_size = '100KB', think_time = '0s' }"),
        AppSpec::Ftp {
            file_size: FileSize::Fixed(100_000),
            think_time_mean: SimDuration::ZERO
        }
    );
    assert_eq!(
        app("{ kind = 'ftp', file_size = { dist = 'fixed', value = '1MiB' }, think_time = '1s' }"),
        AppSpec::Ftp {
            file_size: FileSize::Fixed(1 << 20),
            think_time_mean: SimDuration::from_secs(1)
        }
    );
    assert_eq!(
        app("{ kind = 'ftp', file_size = { dist = 'exponential', mean = '50KB' }, think_time = '2s' }"),
        AppSpec::Ftp {
            file_size: FileSize::Exponential { mean: 50_000 },
            think_time_mean: SimDuration::from_secs(2)
        }
    );
    assert_eq!(
        app("{ kind = 'onoff', on = '1s', off = '500ms', rate = '5Mbps' }"),
        AppSpec::OnOff {
            on_mean: SimDuration::from_secs(1),
            off_mean: SimDuration::from_ms(500),
            rate_bps: 5_000_000
        }
    );
}

#[test]
fn application_errors() {
    assert_eq!(
        base_err("flows.bulk.app.bytes", "0B"),
        "flows.bulk.app.bytes: '0B' must be > 0"
    );
    assert_eq!(
        base_err("flows.bulk.app.kind", "video"),
        "flows.bulk.app.kind: 'video' is not one of: bulk, ftp, onoff"
    );
    assert_eq!(
        base_err("flows.web.app.file_size", "100 kb"),
        "flows.web.app.file_size: '100 kb' is not a size; use e.g. '1500B'"
    );
    assert_eq!(
        base_err("flows.web.app.file_size", "100000"),
        "flows.web.app.file_size: 100000 has no unit; a size needs one of B, kB, KB, MB, GB, KiB, MiB, GiB (e.g. '100000B')"
    );
    assert_eq!(
        base_err("flows.web.app.file_size.dist", "lognormal"),
        "flows.web.app.file_size.dist: 'lognormal' is not one of: fixed, exponential, pareto"
    );
    assert_eq!(
        base_err("flows.web.app.file_size.shape", "1.0"),
        "flows.web.app.file_size.shape: 1 is out of range; expected a number > 1 (the mean is infinite for shape ≤ 1)"
    );
    assert_eq!(
        base_err("flows.web.app.file_size.value", "1KB"),
        "flows.web.app.file_size.value: unknown key; expected one of: dist, mean, shape"
    );
    assert_eq!(
        base_err("flows.web.app.file_size", "{ mean = '1KB' }"),
        "flows.web.app.file_size.dist: required key is missing"
    );
    assert_eq!(
        base_err("flows.web.app.file_size", "'pareto'"),
        "flows.web.app.file_size: expected a table like { dist = \"pareto\", … }, found 'pareto'"
    );
    assert_eq!(base_err("flows.web.app.think_time", "30"), "flows.web.app.think_time: 30 has no unit; a time needs one of ns, us, ms, s, min (e.g. '30ms')");
    assert_eq!(
        base_err(
            "flows.bulk.app",
            "{ kind = 'onoff', on = '0s', off = '1s', rate = '1Mbps' }"
        ),
        "flows.bulk.app.on: '0s' must be > 0"
    );
    assert_eq!(
        base_err(
            "flows.bulk.app",
            "{ kind = 'onoff', on = '1s', off = '1s' }"
        ),
        "flows.bulk.app.rate: required key is missing"
    );
}

#[test]
fn settings_limits() {
    let cases = [
        ("mss", "64B", "flows.bulk.tcp.mss: '64B' is out of range; expected 88B to 65495B"),
        ("initial_window", "0", "flows.bulk.tcp.initial_window: 0 is out of range; expected 1 to 100 segments (RFC 6928 allows up to 10)"),
        ("initial_window", "101", "flows.bulk.tcp.initial_window: 101 is out of range; expected 1 to 100 segments (RFC 6928 allows up to 10)"),
        ("min_rto", "0ms", "flows.bulk.tcp.min_rto: '0ms' must be > 0"),
        ("max_rto", "100ms", "flows.bulk.tcp.max_rto: '100ms' is below min_rto ('200ms')"),
        ("initial_rto", "100ms", "flows.bulk.tcp.initial_rto: '100ms' is outside [min_rto, max_rto] = ['200ms', '60s']"),
        ("delayed_ack", "500ms", "flows.bulk.tcp.delayed_ack: '500ms' is out of range; expected at least 1ms and below 500ms (RFC 5681 §4.2), or false"),
        ("delayed_ack", "0.5ms", "flows.bulk.tcp.delayed_ack: '0.5ms' is out of range; expected at least 1ms and below 500ms (RFC 5681 §4.2), or false"),
        ("delayed_ack", "true", "flows.bulk.tcp.delayed_ack: true is not allowed; use a time like '40ms', or false"),
        ("delayed_ack", "40", "flows.bulk.tcp.delayed_ack: 40 has no unit; a time needs one of ns, us, ms, s, min (e.g. '40ms')"),
        ("delack_segments", "0", "flows.bulk.tcp.delack_segments: 0 is out of range; expected 1 to 16 segments"),
        ("abc", "3", "flows.bulk.tcp.abc: 3 is out of range; expected 0 (off), 1 or 2 (RFC 3465 §2.2)"),
        ("rcv_buf", "1000B", "flows.bulk.tcp.rcv_buf: '1000B' is out of range; expected at least mss (1448B) and at most 1GiB (RFC 7323 §2.3)"),
        ("rcv_buf", "2GiB", "flows.bulk.tcp.rcv_buf: '2GiB' is out of range; expected at least mss (1448B) and at most 1GiB (RFC 7323 §2.3)"),
        ("snd_buf", "1KB", "flows.bulk.tcp.snd_buf: '1KB' is out of range; expected at least mss (1448B)"),
        ("dupack_threshold", "0", "flows.bulk.tcp.dupack_threshold: 0 is out of range; expected an integer ≥ 1 (RFC 5681: 3)"),
        ("ack_copies.copies", "0", "flows.bulk.tcp.ack_copies.copies: 0 is out of range; expected 1 to 16"),
        ("ack_copies.threshold", "2.0", "flows.bulk.tcp.ack_copies.threshold: 2 is not a probability; expected a number in [0, 1]"),
        ("ack_copies.p_buff", "1.0", "flows.bulk.tcp.ack_copies.p_buff: 1 is out of range; expected a number in [0, 1)"),
        ("ack_copies.enable", "true", "flows.bulk.tcp.ack_copies.enable: unknown key; expected one of: enabled, copies, threshold, p_buff, window_segments"),
        ("ack_copies.window_segments", "0", "flows.bulk.tcp.ack_copies.window_segments: 0 is out of range; expected 1 to 65536 segments"),
        ("ack_copies.window_segments", "65537", "flows.bulk.tcp.ack_copies.window_segments: 65537 is out of range; expected 1 to 65536 segments"),
    ];
    for (key, value, expected) in cases {
        assert_eq!(base_err(&format!("flows.bulk.tcp.{key}"), value), expected);
    }
    // An unknown key lists the known ones in TcpConfig's field order: exactly the keys of its
    // schema (so a new option needs no edit here).
    let message = base_err("flows.bulk.tcp.nagle", "true");
    let listed = message
        .strip_prefix("flows.bulk.tcp.nagle: unknown key; expected one of: ")
        .unwrap_or_else(|| panic!("{message}"));
    assert!(listed.starts_with("mss, initial_window, initial_rto, min_rto, max_rto, "));
    let mut listed: Vec<&str> = listed.split(", ").collect();
    listed.sort_unstable();
    let schema = schemars::schema_for!(TcpConfig);
    let keys: Vec<&str> = schema
        .get("properties")
        .and_then(|p| p.as_object())
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(listed, keys);
    assert_eq!(
        super::err_with(BASE, &[("flows.bulk.tcp.timestamps", "false"), ("flows.bulk.tcp.eifel", "true")]),
        "flows.bulk.tcp.eifel: Eifel detection needs timestamps (RFC 3522 §2); set timestamps = true"
    );
    assert_eq!(
        super::err_with(BASE, &[("flows.bulk.tcp.sack", "false"), ("flows.bulk.tcp.prr", "true")]),
        "flows.bulk.tcp.prr: true needs SACK (RFC 6937 counts SACKed data as delivered); set sack = true"
    );
    assert_eq!(
        base_err("flows.bulk.tcp.frto_after_repeated_rto", "true"),
        "flows.bulk.tcp.frto_after_repeated_rto: true needs F-RTO; set frto = true"
    );
}

#[test]
fn settings_at_their_limits_load() {
    let s = with(&[
        ("flows.bulk.tcp.initial_window", "100"),
        ("flows.bulk.tcp.delayed_ack", "1ms"),
        ("flows.bulk.tcp.abc", "0"),
        ("flows.bulk.tcp.mss", "88B"),
        ("flows.bulk.tcp.rcv_buf", "1GiB"),
        ("flows.bulk.tcp.eifel", "true"),
        ("flows.bulk.tcp.hystart", "false"),
        ("flows.bulk.tcp.prr", "true"),
        ("flows.bulk.tcp.frto", "true"),
        ("flows.bulk.tcp.frto_after_repeated_rto", "true"),
        ("flows.bulk.tcp.min_rto_bounds_variance", "true"),
        ("flows.bulk.tcp.rto_keeps_recovery_ssthresh", "true"),
        ("flows.bulk.tcp.tlp", "true"),
        (
            "flows.bulk.tcp.ack_copies",
            "{ enabled = true, copies = 3, window_segments = 8 }",
        ),
    ]);
    let settings = tcp(&s, "bulk").settings;
    assert_eq!(settings.initial_window, 100);
    assert_eq!(settings.delayed_ack, Some(SimDuration::from_ms(1)));
    assert_eq!(settings.abc_limit, 0);
    assert_eq!(settings.mss, 88);
    assert_eq!(settings.rcv_buf_bytes, 1 << 30);
    assert!(settings.eifel);
    assert_eq!(settings.hystart, Some(false));
    assert!(settings.prr && settings.frto && settings.frto_after_repeated_rto);
    assert!(settings.min_rto_bounds_variance && settings.rto_keeps_recovery_ssthresh);
    assert!(settings.tlp);
    assert_eq!(
        settings.ack_copies,
        AckControlConfig {
            enabled: true,
            copies: 3,
            threshold: 0.1,
            p_buff: 0.01,
            window_segments: 8
        }
    );
}
