//! The shipped wired-chain example runs, and two runs give identical outputs.

use celltcp_scenario::{load_path, run, RunOptions};

fn example() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/celltcp/examples/wired-chain.toml")
}

#[test]
fn wired_chain_udp_gets_its_rate_and_the_path_delay() {
    let sc = load_path(&example(), &[("simulation.duration".into(), "5s".into())]).unwrap();
    let out = run(&sc, &RunOptions::default()).unwrap();
    let f = &out.summary["flows"]["video"];
    // 20 Mb/s of payload in 1400-byte datagrams (1428 IP bytes) over an uncongested path.
    let goodput = f["goodput_bps"].as_f64().unwrap();
    assert!((goodput - 20e6).abs() / 20e6 < 0.01, "goodput {goodput}");
    // Propagation 28 ms + serialisation at 100 Mb/s, 1 Gb/s and 25 Mb/s.
    let expected = 0.028 + 1428.0 * 8.0 * (1.0 / 100e6 + 1.0 / 1e9 + 1.0 / 25e6);
    let mean = f["delay_mean_s"].as_f64().unwrap();
    assert!((mean - expected).abs() < 1e-9, "delay {mean} vs {expected}");
    assert_eq!(f["loss_ratio"].as_f64().unwrap(), 0.0);
    let names: Vec<&str> = out.series.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["queue", "flow_rate"]);
}

#[test]
fn run_twice_gives_identical_summary_and_series() {
    let over = [
        (
            "links.access.loss".to_string(),
            "{ kind = \"bernoulli\", p = 0.01 }".to_string(),
        ),
        ("flows.video.arrival".to_string(), "poisson".to_string()),
        ("simulation.duration".to_string(), "2s".to_string()),
    ];
    let sc = load_path(&example(), &over).unwrap();
    let a = run(
        &sc,
        &RunOptions {
            seed: Some(7),
            ..Default::default()
        },
    )
    .unwrap();
    let b = run(
        &sc,
        &RunOptions {
            seed: Some(7),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        serde_json::to_string(&a.summary).unwrap(),
        serde_json::to_string(&b.summary).unwrap()
    );
    assert_eq!(a.series, b.series);
    let c = run(
        &sc,
        &RunOptions {
            seed: Some(7),
            run: 1,
            ..Default::default()
        },
    )
    .unwrap();
    assert_ne!(
        a.summary["flows"]["video"]["drops"],
        c.summary["flows"]["video"]["drops"]
    );
}

#[test]
fn tcp_bulk_over_the_wired_chain_fills_the_access_link() {
    let path = example().with_file_name("wired-chain-tcp.toml");
    let sc = load_path(&path, &[("simulation.duration".into(), "10s".into())]).unwrap();
    let out = run(&sc, &RunOptions::default()).unwrap();
    let f = &out.summary["flows"]["bulk"];
    let goodput = f["goodput_bps"].as_f64().unwrap();
    // 25 Mb/s of IP bytes; 1448-byte payloads in 1500-byte datagrams (20 IP + 32 TCP with
    // timestamps): at most 24.13 Mb/s of payload. Slow start and the random losses (Mathis at
    // p = 1e-4, RTT 56 ms: about 25 Mb/s, so the loss rate is just binding) cost some: measured
    // 20.5 Mb/s (85 %).
    assert!(goodput > 0.8 * 25e6 * 1448.0 / 1500.0, "goodput {goodput}");
    assert!(f["sender"]["retransmissions"].as_f64().unwrap() > 0.0);
}

#[test]
fn scheduled_outage_and_delay_spike_change_the_link() {
    let over = [
        ("simulation.duration".to_string(), "3s".to_string()),
        (
            "events".to_string(),
            "[{ at = \"1s\", link = \"access\", down = true }, { at = \"1.5s\", link = \"access\", down = false }, \
              { at = \"2s\", link = \"access\", direction = \"a_to_b\", delay = \"200ms\" }]"
                .to_string(),
        ),
        ("trace.packets".to_string(), "[\"video\"]".to_string()),
    ];
    let sc = load_path(&example(), &over).unwrap();
    let out = run(&sc, &RunOptions::default()).unwrap();
    let f = &out.summary["flows"]["video"];
    // 0.5 s of a 20 Mb/s stream of 1400-byte payloads: 892 or 893 datagrams lost to the outage.
    let outage = f["drops"]["outage"].as_u64().unwrap();
    assert!((892..=894).contains(&outage), "outage drops {outage}");
    assert_eq!(
        out.summary["links"]["access"]["a_to_b"]["drops"]["outage"]
            .as_u64()
            .unwrap(),
        outage
    );
    // After 2 s the one-way delay grows by 195 ms.
    assert!(f["delay_max_s"].as_f64().unwrap() > 0.028 + 0.195);
    let bad = load_path(
        &example(),
        &[(
            "events".into(),
            "[{ at = \"1s\", link = \"access\" }]".into(),
        )],
    )
    .unwrap_err();
    assert_eq!(
        bad.to_string(),
        "events[0]: changes nothing; give at least one of delay, rate, down, handover"
    );
}
