//! Receiver ACK control (seed `004_…`, Miyoshi, Sugano & Murata) in scenario runs: the radio
//! loss estimate belongs to the receiving terminal, so a connection that opens later at the
//! same host starts from the estimate the host's earlier connections built, while a host
//! elsewhere and a host whose flows do not enable `ack_copies` start from 0. Also: the bound of
//! `ack_copies.copies` is the one of `celltcp_tcp::config::MAX_ACK_COPIES` at load and at build.
//!
//! Path: `fh` —10 Mb/s, 1 ms— `bs` —384 kb/s, 1 ms— `wt`, and a second radio link of the same
//! kind from `bs` to `other`. Each radio link loses 20 % of the data packets (downlink only, so
//! that every ACK and every copy arrives) and no ACK; Reno without options, 100-byte segments.
//!
//! * `first` (fh → wt) downloads until 40 s. The receiver observes p ≈ 0.2, so the estimate
//!   tends to 1 − sqrt(0.8/0.99) ≈ 0.10; it passes the threshold 0.02 after three update windows
//!   of 32 segments (p = 0.2·(1 − (7/8)^k) ≥ 1 − 0.99·0.98² ≈ 0.049 for k ≥ 3).
//! * `second` (fh → wt) and `elsewhere` (fh → other) open at 60 s and carry 20 segments of
//!   100 bytes each: less than one update window, so a private estimate stays at 0, below the
//!   threshold, and sends no copy.

mod support;

use celltcp_scenario::{load_str, RunOutput};
use celltcp_tcp::config::MAX_ACK_COPIES;
use support::{num, run_text, tcp_series};

/// Threshold on p_err: low enough that `first` crosses it within its 40 s.
const THRESHOLD: f64 = 0.02;
/// When `second` and `elsewhere` open, nanoseconds.
const SECOND_START_NS: u64 = 60_000_000_000;

/// The scenario text; `first_copies` is `first`'s `ack_copies.enabled`, `copies` the number of
/// copies of every flow.
fn scenario(first_copies: bool, copies: u32) -> String {
    let tcp = |enabled: bool| {
        format!(
            "mss = \"100B\"\ninitial_window = 1\ndelayed_ack = false\nsack = false\n\
             timestamps = false\nwindow_scale = false\nrcv_buf = \"50000B\"\nsnd_buf = \"5000B\"\n\
             ack_copies = {{ enabled = {enabled}, copies = {copies}, threshold = {THRESHOLD}, p_buff = 0.01 }}\n"
        )
    };
    let radio = |name: &str, host: &str| {
        format!(
            "[links.{name}]\na = \"bs\"\nb = \"{host}\"\nrate = \"384kbps\"\ndelay = \"1ms\"\n\
             queue = {{ kind = \"droptail\", limit = \"50000B\" }}\n\
             a_to_b = {{ loss = {{ kind = \"bernoulli\", p = 0.2 }} }}\n\n"
        )
    };
    let flow = |name: &str, dst: &str, start: &str, app: &str, enabled: bool| {
        format!(
            "[flows.{name}]\nkind = \"tcp\"\nsrc = \"fh\"\ndst = \"{dst}\"\nstart = \"{start}\"\n\
             cc = \"reno\"\napp = {app}\n\n[flows.{name}.tcp]\n{}\n",
            tcp(enabled)
        )
    };
    format!(
        "[simulation]\nduration = \"100s\"\n\n\
         [nodes]\nfh = {{ kind = \"host\" }}\nbs = {{ kind = \"router\" }}\n\
         wt = {{ kind = \"host\" }}\nother = {{ kind = \"host\" }}\n\n\
         [links.wired]\na = \"fh\"\nb = \"bs\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
         queue = {{ kind = \"droptail\", limit = \"50000B\" }}\n\n{}{}\
         [trace]\ntcp = [\"loss_estimate\"]\n\n{}{}{}",
        radio("radio", "wt"),
        radio("radio_other", "other"),
        flow("first", "wt", "0s", "{ kind = \"bulk\" }", first_copies)
            .replace("start = \"0s\"\n", "start = \"0s\"\nstop = \"40s\"\n"),
        flow(
            "second",
            "wt",
            "60s",
            "{ kind = \"bulk\", bytes = \"2000B\" }",
            true
        ),
        flow(
            "elsewhere",
            "other",
            "60s",
            "{ kind = \"bulk\", bytes = \"2000B\" }",
            true
        ),
    )
}

/// A receiver figure of flow `flow` in the run's summary.
fn receiver(out: &RunOutput, flow: &str, key: &str) -> f64 {
    num(&out.summary, &["flows", flow, "receiver", key])
}

#[test]
fn a_later_connection_to_the_same_host_starts_from_the_terminal_estimate() {
    let out = run_text(&scenario(true, 2), 1);

    // `first` taught the terminal a loss estimate above the threshold.
    let first: Vec<_> = tcp_series(&out, "first", "loss_estimate")
        .into_iter()
        .filter(|&(t_ns, _)| t_ns < SECOND_START_NS)
        .collect();
    assert!(first.len() >= 3, "{} updates", first.len());
    let learnt = first.last().unwrap().1;
    assert!(learnt >= THRESHOLD, "first's last estimate {learnt}");

    // `second` carries all its data, and every one of its pure ACKs is sent twice from the
    // first on: the estimate it reads is the terminal's, not a fresh 0.
    assert_eq!(receiver(&out, "second", "bytes_delivered"), 2000.0);
    let (copies, acks) = (
        receiver(&out, "second", "ack_copies_sent"),
        receiver(&out, "second", "acks_sent"),
    );
    // At least one ACK for most of the 20 segments (how many depends on the losses and
    // their recovery: 21 with ssthresh from SND.NXT − SND.UNA, 19 since a reduction halves at
    // most cwnd, RFC 5681 §3.2 step 2).
    assert!(copies >= 15.0, "{copies} copies of {acks} ACKs");
    assert!(2.0 * copies >= acks - 2.0, "{copies} copies of {acks} ACKs");
    // An update that closes on one of `second`'s segments continues the terminal's history; a
    // first update from a private 0 at an observed 0.2 would give 1 − sqrt(0.975/0.99) ≈ 0.008.
    for (_, p_err) in tcp_series(&out, "second", "loss_estimate") {
        assert!(p_err >= 0.5 * learnt, "{p_err} against {learnt}");
    }

    // `elsewhere` has the same path and data but another host: its estimate starts at 0 and
    // stays below the threshold, so it sends no copy.
    assert_eq!(receiver(&out, "elsewhere", "bytes_delivered"), 2000.0);
    assert_eq!(receiver(&out, "elsewhere", "ack_copies_sent"), 0.0);
}

#[test]
fn a_flow_without_ack_copies_does_not_feed_the_terminal_estimate() {
    let out = run_text(&scenario(false, 2), 1);
    assert!(tcp_series(&out, "first", "loss_estimate").is_empty());
    assert_eq!(receiver(&out, "first", "ack_copies_sent"), 0.0);
    assert_eq!(receiver(&out, "second", "bytes_delivered"), 2000.0);
    assert_eq!(receiver(&out, "second", "ack_copies_sent"), 0.0);
}

#[test]
fn copies_are_bounded_by_the_endpoint_constant() {
    // The largest value the scenario accepts is one the endpoint accepts: it builds and runs.
    let out = run_text(&scenario(true, MAX_ACK_COPIES), 1);
    let (copies, acks) = (
        receiver(&out, "second", "ack_copies_sent"),
        receiver(&out, "second", "acks_sent"),
    );
    assert!(copies > 0.0);
    assert!(
        f64::from(MAX_ACK_COPIES) * copies >= f64::from(MAX_ACK_COPIES - 1) * (acks - 2.0),
        "{copies} copies of {acks} ACKs"
    );
    // One more is rejected at load, naming the key.
    let e = load_str(&scenario(true, MAX_ACK_COPIES + 1), &[]).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "flows.elsewhere.tcp.ack_copies.copies: {} is out of range; expected 1 to {MAX_ACK_COPIES}",
            MAX_ACK_COPIES + 1
        )
    );
}
