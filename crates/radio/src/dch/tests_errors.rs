//! The block-error models driven through the whole medium: independent losses draw exactly the
//! numbers they drew before the Gilbert–Elliott channel existed, and a Gilbert–Elliott channel
//! gives the configured long-run BLER and burst length on a saturated downlink.

use celltcp_engine::{RngStream, SimDuration};
use celltcp_net::medium::{Medium, MediumOutput};
use celltcp_net::trace::Traces;

use super::tests::{cbr, config, ms, saturated, Harness, RNC, UE};
use super::*;

#[test]
fn independent_losses_draw_the_numbers_they_drew_before() {
    // Pinned before the error models were added: a saturated downlink for 10 s with the same
    // BLER both ways and MaxDAT unlimited (`saturated`). Downlink blocks sent and lost, PDUs
    // retransmitted, SDUs delivered, uplink blocks sent and lost.
    for (bler, seed, pinned) in [
        (0.1, 5, (12_012, 1_259, 1_247, 402, 65, 6)),
        (0.2, 6, (12_012, 2_354, 2_307, 366, 73, 10)),
    ] {
        let (r, h) = saturated(bler, 10, seed);
        let (d, u) = (&r.downlink, &r.uplink);
        assert_eq!(
            (
                d.tbs_sent,
                d.tbs_lost,
                d.pdus_retransmitted,
                d.sdus_delivered,
                u.tbs_sent,
                u.tbs_lost
            ),
            pinned,
            "BLER {bler}, seed {seed}"
        );
        assert_eq!((d.ttis_bad, u.ttis_bad), (0, 0));
        // One uniform per block from `dch/d/downlink`, lost when below the BLER, and nothing
        // else drawn from that stream: replaying the stream gives the same losses and leaves
        // it at the same point.
        let mut replay = RngStream::new(seed, 0, "dch/d/downlink");
        let lost = (0..d.tbs_sent).filter(|_| replay.next_f64() < bler).count() as u64;
        assert_eq!(lost, d.tbs_lost);
        let mut used = h.link.downlink.block_rng().clone();
        assert_eq!(used.next_u64(), replay.next_u64());
    }
}

/// A Gilbert–Elliott channel with an error-free good state.
fn bursty(mean_burst_ms: u64, bad_bler: f64) -> BlockErrorModel {
    BlockErrorModel::GilbertElliott(GilbertElliottConfig {
        mean_burst: SimDuration::from_ms(mean_burst_ms),
        bad_bler,
        bad_share: None,
    })
}

/// Runs a saturated 384 kbit/s downlink (10 ms TTIs, every TTI used) with a Gilbert–Elliott
/// channel for `secs`; returns the report and the state of each downlink TTI in order.
fn saturated_bursty(
    bler: f64,
    mean_burst_ms: u64,
    bad_bler: f64,
    secs: u64,
) -> (DchReport, Vec<bool>) {
    let mut c = config();
    c.downlink.bler = bler;
    c.downlink.errors = bursty(mean_burst_ms, bad_bler);
    c.rlc.max_dat = None;
    let mut h = Harness::new(c, 9);
    let gap = SimDuration::from_ns(1028 * 8 * 1_000_000_000 / 500_000);
    let n = secs * 1_000_000_000 / gap.as_ns();
    let mut sends = cbr(RNC, n, 1028, gap, 1).peekable();
    let end = ms(secs * 1000);
    let mut out = MediumOutput::default();
    let mut rng = RngStream::new(0, 0, "unused");
    let mut traces = Traces::new(&[]);
    let mut states = Vec::new();
    let mut before = h.link.channel_stats().0;
    // The harness's loop, reading the downlink's counters after each timer call: a TTI that
    // sent blocks adds one to `ttis`, and one to `ttis_bad` too when in the bad state.
    loop {
        let timer = h.link.poll_timeout().filter(|&t| t <= end);
        let send_at = sends.peek().map(|s| s.0).filter(|&s| s <= end);
        match (send_at, timer) {
            (Some(s), t) if t.is_none_or(|t| s <= t) => {
                let (at, from, pkt) = sends.next().expect("peeked");
                h.link.send(at, from, UE, pkt, &mut out);
            }
            (_, Some(t)) => {
                h.link.on_timer(t, &mut rng, &mut traces, &mut out);
                let now = h.link.channel_stats().0;
                if now.ttis > before.ttis {
                    states.push(now.ttis_bad > before.ttis_bad);
                }
                before = now;
            }
            _ => break,
        }
        out.delivered.clear();
        out.dropped.clear();
    }
    (h.link.dch_report(end), states)
}

/// Mean length of the runs of `true`, leaving out a run cut by either end.
fn mean_run(states: &[bool]) -> (f64, usize) {
    let mut runs = Vec::new();
    let mut start = None;
    for (i, &b) in states.iter().enumerate() {
        match (b, start) {
            (true, None) if i > 0 => start = Some(i),
            (false, Some(s)) => {
                runs.push(i - s);
                start = None;
            }
            _ => {}
        }
    }
    (
        runs.iter().sum::<usize>() as f64 / runs.len() as f64,
        runs.len(),
    )
}

#[test]
fn a_gilbert_elliott_downlink_keeps_the_mean_bler_and_the_burst_length() {
    // 50 ms bursts (5 TTIs of 10 ms) at BLER 0.9, mean BLER 0.1: a bad share of 1/9, gaps of
    // 40 TTIs; 600 s = 60 000 TTIs, about 1 300 bursts. Standard errors: the measured BLER
    // about 0.004 (the state's share, λ = 0.775, dominates the binomial part), the mean burst
    // 4.5 / √1300 = 0.12 TTIs.
    let (r, states) = saturated_bursty(0.1, 50, 0.9, 600);
    let d = &r.downlink;
    assert_eq!(states.len() as u64, d.ttis);
    assert!(d.ttis > 59_000, "saturated: {}", d.ttis);
    let share = d.ttis_bad as f64 / d.ttis as f64;
    let (burst, bursts) = mean_run(&states);
    eprintln!(
        "measured BLER {:.4} (0.1), bad share {share:.4} (0.1111), {bursts} bursts of mean \
         {burst:.2} TTIs (5)",
        d.bler_measured
    );
    assert!((d.bler_measured - 0.1).abs() < 0.015, "{}", d.bler_measured);
    assert!((share - 1.0 / 9.0).abs() < 0.015, "{share}");
    assert!((burst / 5.0 - 1.0).abs() < 0.1, "{burst}");
    // The errors are bursty: the lost blocks sit in the bad TTIs (good state error-free).
    assert!(d.tbs_lost as f64 > 0.85 * d.ttis_bad as f64 * 12.0 * 0.9);
    assert_eq!(r.uplink.ttis_bad, 0, "the uplink keeps independent losses");
}

#[test]
fn with_bursts_the_rlc_still_recovers_every_loss() {
    // 200 ms bursts at BLER 0.9 hold PDUs through many retransmissions; with MaxDAT unlimited
    // every SDU still arrives once, in order.
    let mut c = config();
    c.downlink.bler = 0.2;
    c.downlink.errors = bursty(200, 0.9);
    c.rlc.max_dat = None;
    let mut h = Harness::new(c, 4);
    let gap = SimDuration::from_ms(40);
    h.run(ms(60_000), cbr(RNC, 1000, 1000, gap, 1));
    let got = h.delivered_to(UE);
    assert_eq!(got, (1..=1000).collect::<Vec<u64>>());
    let r = h.link.dch_report(ms(60_000));
    assert!(r.downlink.ttis_bad > 0 && r.downlink.max_dat_discards == 0);
    // Some SDUs waited out a burst: well above the 30–40 ms of a clean channel.
    assert!(r.downlink.delay_max_s > 0.4, "{}", r.downlink.delay_max_s);
}

#[test]
fn an_impossible_channel_is_refused_with_its_key() {
    let mut c = config();
    c.uplink.bler = 0.1;
    c.uplink.errors = BlockErrorModel::GilbertElliott(GilbertElliottConfig {
        mean_burst: SimDuration::from_ms(200),
        bad_bler: 0.9,
        bad_share: Some(0.5),
    });
    let e = DchLink::new(c.clone(), 1, 0).unwrap_err().to_string();
    assert!(
        e.starts_with("dch.uplink.errors.bad_share: 0.5 × bad_bler 0.9"),
        "{e}"
    );
    assert_eq!(c.validate().unwrap_err().to_string(), e);
    c.uplink.errors = BlockErrorModel::GilbertElliott(GilbertElliottConfig {
        mean_burst: SimDuration::from_ms(10),
        bad_bler: 0.9,
        bad_share: None,
    });
    let e = c.validate().unwrap_err().to_string();
    assert!(
        e.starts_with("dch.uplink.errors.mean_burst: 10 ms is too short"),
        "{e}"
    );
}

#[test]
fn the_same_seed_gives_the_same_bursts() {
    let a = saturated_bursty(0.2, 100, 0.8, 20);
    let b = saturated_bursty(0.2, 100, 0.8, 20);
    assert_eq!(format!("{:?}", a.0), format!("{:?}", b.0));
    assert_eq!(a.1, b.1);
}
