//! Tests of the DCH medium driven directly, without a network: timing of the transport blocks,
//! idle behaviour, the saturated rate at BLER 0, ARQ at BLER > 0, MaxDAT discards and
//! determinism.

use celltcp_engine::{RngStream, SimDuration, SimTime};
use celltcp_net::medium::{Medium, MediumOutput};
use celltcp_net::packet::{NodeId, Packet};
use celltcp_net::queue::DropCause;
use celltcp_net::trace::Traces;

use super::*;
use crate::rlc::testkit::sdu;
use crate::rlc::BufferLimit;

pub(super) const RNC: NodeId = NodeId(0);
pub(super) const UE: NodeId = NodeId(1);

pub(super) fn ms(v: u64) -> SimTime {
    SimTime::from_ns(v * 1_000_000)
}

/// A DCH and the record of what it delivered and dropped, driven like the world drives a
/// medium: sends at their times, `on_timer` at every deadline.
pub(super) struct Harness {
    pub(super) link: DchLink,
    /// (time, node, uid) of every delivery, in order.
    delivered: Vec<(SimTime, NodeId, u64)>,
    dropped: Vec<(u64, DropCause)>,
    timer_calls: u64,
    now: SimTime,
}

impl Harness {
    pub(super) fn new(cfg: DchConfig, seed: u64) -> Self {
        Harness {
            link: DchLink::new(cfg, seed, 0).expect("valid configuration"),
            delivered: Vec::new(),
            dropped: Vec::new(),
            timer_calls: 0,
            now: SimTime::ZERO,
        }
    }

    fn collect(&mut self, at: SimTime, out: &mut MediumOutput) {
        for (node, p) in out.delivered.drain(..) {
            self.delivered.push((at, node, p.uid));
        }
        for (p, c) in out.dropped.drain(..) {
            self.dropped.push((p.uid, c));
        }
    }

    /// Runs until `end`, handing over each of `sends` (time-ordered) at its time; a send and a
    /// deadline at the same instant: the send first.
    pub(super) fn run(
        &mut self,
        end: SimTime,
        sends: impl IntoIterator<Item = (SimTime, NodeId, Packet)>,
    ) {
        let mut sends = sends.into_iter().peekable();
        let mut out = MediumOutput::default();
        let mut rng = RngStream::new(0, 0, "unused");
        let mut traces = Traces::new(&[]);
        loop {
            let timer = self.link.poll_timeout().filter(|&t| t <= end);
            let send_at = sends.peek().map(|s| s.0).filter(|&s| s <= end);
            let send_first = match (send_at, timer) {
                (Some(s), Some(t)) => s <= t,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            if send_first {
                let (at, from, pkt) = sends.next().expect("peeked");
                let to = if from == RNC { UE } else { RNC };
                self.now = at;
                self.link.send(at, from, to, pkt, &mut out);
                self.collect(at, &mut out);
            } else {
                let t = timer.expect("a deadline");
                assert!(t >= self.now, "deadline {t:?} before now {:?}", self.now);
                self.now = t;
                self.timer_calls += 1;
                self.link.on_timer(t, &mut rng, &mut traces, &mut out);
                self.collect(t, &mut out);
            }
        }
    }

    pub(super) fn delivered_to(&self, node: NodeId) -> Vec<u64> {
        self.delivered
            .iter()
            .filter(|d| d.1 == node)
            .map(|d| d.2)
            .collect()
    }
}

/// `count` packets of `size` bytes from `from`, one every `gap`, uids from `first_uid`.
pub(super) fn cbr(
    from: NodeId,
    count: u64,
    size: u32,
    gap: SimDuration,
    first_uid: u64,
) -> impl Iterator<Item = (SimTime, NodeId, Packet)> {
    (0..count).map(move |i| {
        (
            SimTime::ZERO + SimDuration::from_ns(i * gap.as_ns()),
            from,
            sdu(first_uid + i, size),
        )
    })
}

pub(super) fn config() -> DchConfig {
    let mut c = DchConfig::new("d", RNC, UE);
    c.rlc.tx_buffer = BufferLimit::Unlimited;
    c
}

#[test]
fn a_packet_takes_its_ttis_plus_the_delay_and_then_the_link_goes_idle() {
    let mut h = Harness::new(config(), 1);
    assert_eq!(h.link.poll_timeout(), None, "no work before any packet");
    // 1010 bytes + 1 LI = 1011 data-field bytes = 26 PDUs of 40 bytes: 12 + 12 + 2 blocks in
    // the TTIs starting at 0, 10 and 20 ms; the last ends at 30 ms and arrives 20 ms later.
    h.run(ms(10_000), [(SimTime::ZERO, RNC, sdu(7, 1010))]);
    assert_eq!(h.delivered, vec![(ms(50), UE, 7)]);
    let (dl, ul) = h.link.channel_stats();
    assert_eq!((dl.ttis, dl.tbs_sent, dl.tbs_lost), (3, 26, 0));
    // The last PDU polls; the UE answers with one STATUS PDU in the uplink TTI at 60 ms, which
    // reaches the RNC at 60 + 20 + 20 = 100 ms and ends the activity.
    assert_eq!((ul.ttis, ul.status_tbs), (1, 1));
    assert_eq!(h.link.poll_timeout(), None, "idle again");
    assert_eq!(
        h.link.activity().busy(ms(10_000)),
        SimDuration::from_ms(100)
    );
    // Three downlink TTIs (0, 10, 20 ms), their arrivals (30, 40, 50 ms), one uplink TTI
    // (60 ms) and its arrival (100 ms): 8 timer calls, none while idle.
    assert_eq!(h.timer_calls, 8);
}

#[test]
fn uplink_packets_ride_the_uplink_transport_format() {
    let mut h = Harness::new(config(), 1);
    // A 52-byte TCP ACK-sized packet: 53 data-field bytes = 2 PDUs, in the uplink TTI at 0.
    h.run(ms(1_000), [(SimTime::ZERO, UE, sdu(3, 52))]);
    assert_eq!(h.delivered, vec![(ms(40), RNC, 3)]);
    let (dl, ul) = h.link.formats();
    assert_eq!((dl.tbs_per_tti, ul.tbs_per_tti), (12, 4));
}

#[test]
fn at_bler_zero_a_saturated_downlink_delivers_the_payload_rate_less_length_indicators() {
    let mut c = config();
    c.downlink.bler = 0.0;
    let mut h = Harness::new(c, 1);
    // 500 kbit/s of 1028-byte packets (more than 384 kbit/s) for 10 s.
    let gap = SimDuration::from_ns(1028 * 8 * 1_000_000_000 / 500_000);
    let n = 10_000_000_000 / gap.as_ns();
    h.run(ms(10_000), cbr(RNC, n, 1028, gap, 1));
    // The backlog never empties, so every TTI carries 12 × 40 data-field bytes; an SDU takes
    // S + 1 of them (its bytes and one LI), or S when it ends exactly at a PDU boundary. The
    // blocks of TTIs 0..=997 (starting at 0..=9.97 s) have arrived by 10 s: 998 × 480 bytes of
    // data field, which hold floor(479 040 / 1029) = floor(479 040 / 1028) = 465 SDUs.
    let r = h.link.dch_report(ms(10_000));
    assert_eq!(r.downlink.sdus_delivered, 465);
    let rate = r.downlink.sdu_bytes_delivered as f64 * 8.0 / 9.98;
    let formula = 384_000.0 * 1028.0 / 1029.0;
    assert!((rate / formula - 1.0).abs() < 0.003, "{rate} vs {formula}");
    assert_eq!(r.downlink.pdus_retransmitted, 0);
    assert_eq!(r.downlink.tbs_lost, 0);
    assert_eq!(r.downlink.ttis, 1001, "every TTI in [0, 10 s] was used");
    assert!(
        r.downlink.buffer_max_bytes > 100_000,
        "the buffer grows: offered > rate"
    );
    // In order, each once.
    let got = h.delivered_to(UE);
    assert!(got.windows(2).all(|w| w[1] == w[0] + 1));
}

/// Runs a saturating 1028-byte downlink for `secs` with `bler` on both directions and no
/// MaxDAT; returns the report and the harness.
pub(super) fn saturated(bler: f64, secs: u64, seed: u64) -> (DchReport, Harness) {
    let mut c = config();
    c.downlink.bler = bler;
    c.uplink.bler = bler;
    c.rlc.max_dat = None;
    let mut h = Harness::new(c, seed);
    let gap = SimDuration::from_ns(1028 * 8 * 1_000_000_000 / 500_000);
    let n = secs * 1_000_000_000 / gap.as_ns();
    h.run(ms(secs * 1000), cbr(RNC, n, 1028, gap, 1));
    (h.link.dch_report(ms(secs * 1000)), h)
}

#[test]
fn with_bler_and_unlimited_max_dat_the_rate_is_the_fraction_of_blocks_received() {
    for bler in [0.05, 0.1, 0.2] {
        let (r, h) = saturated(bler, 40, 3);
        // In-order delivery lags the blocks by the recovery of the latest losses, so the rate
        // is measured over [5 s, 40 s], in steady state.
        let in_window = h
            .delivered
            .iter()
            .filter(|d| d.1 == UE && d.0 > ms(5_000))
            .count();
        let rate = in_window as f64 * 1028.0 * 8.0 / 35.0;
        // Only data blocks on the downlink (no uplink data, so no STATUS reports on it): the
        // payload rate times the fraction of blocks received, less one LI per SDU.
        let expected = 384_000.0 * (1.0 - bler) * 1028.0 / 1029.0;
        assert!(
            (rate / expected - 1.0).abs() < 0.02,
            "BLER {bler}: {rate:.0} bit/s vs {expected:.0}"
        );
        assert!(
            (r.downlink.bler_measured - bler).abs() < 0.01,
            "{}",
            r.downlink.bler_measured
        );
        assert_eq!(r.downlink.status_pdus, 0);
        // Every lost block is resent once per loss, less those lost in the last round trips;
        // a retransmission beyond that is spurious and reaches the UE as a duplicate (or is
        // lost). Spurious ones come from a report sent while the retransmissions asked by the
        // one before are still queued (after lost reports, when they exceed
        // Timer_Status_Prohibit's worth of TTIs): under 1 % of the PDUs.
        let data_lost = r.downlink.tbs_lost as f64;
        let retx = r.downlink.pdus_retransmitted as f64;
        let duplicates = h.link.ue.rx.stats().pdus_duplicate as f64;
        assert!(
            retx <= data_lost + duplicates && retx >= data_lost - 120.0,
            "BLER {bler}: {retx} retransmissions for {data_lost} lost blocks"
        );
        assert!(
            duplicates < 0.01 * r.downlink.pdus_sent as f64,
            "{duplicates}"
        );
        assert_eq!(r.downlink.max_dat_discards, 0);
        let got = h.delivered_to(UE);
        assert!(
            got.windows(2).all(|w| w[1] == w[0] + 1),
            "in order, each once"
        );
        eprintln!(
            "BLER {bler}: {rate:.0} bit/s in steady state ({:.4} of R(1-b)S/(S+1)), {retx} \
             retransmissions for {data_lost} lost blocks ({duplicates} duplicates at the UE), \
             {} STATUS blocks on the uplink",
            rate / expected,
            r.uplink.status_pdus
        );
    }
}

#[test]
fn max_dat_discards_the_sdus_whose_pdu_failed_every_transmission() {
    // One 39-byte SDU per PDU (39 bytes + 1 LI fill the 40-byte data field), one every 2 ms
    // (0.75 PDUs per ms with retransmissions, under the 1.2 per ms of the channel), BLER 0.5 in
    // the downlink, a clean uplink, MaxDAT 2: a PDU is discarded when both its transmissions
    // are lost, with probability 0.25.
    let mut c = config();
    c.downlink.bler = 0.5;
    c.rlc.max_dat = Some(2);
    let mut h = Harness::new(c, 11);
    let n = 20_000;
    h.run(ms(60_000), cbr(RNC, n, 39, SimDuration::from_ms(2), 1));
    let r = h.link.dch_report(ms(60_000));
    let (tx, _) = h.link.rlc_tx_stats();
    assert_eq!(tx.pdus_new, n, "one PDU per SDU");
    let discarded = r.downlink.max_dat_discards as f64;
    let expected = n as f64 * 0.25;
    // A PDU also goes when a higher one is discarded while it awaits its retransmission (the
    // MRW moves the receiver's whole window, 25.322 §11.6), which can only add to SDUs × 0.5²;
    // the binomial spread is 61 (σ), so the window is about −4σ / +8σ.
    assert!(
        discarded >= expected * 0.95 && discarded <= expected * 1.1,
        "{discarded} discards, {expected} expected"
    );
    eprintln!(
        "MaxDAT 2, BLER 0.5: {discarded} SDUs discarded of {n} ({expected} = SDUs × 0.5² \
         expected), {} PDUs discarded, {} retransmissions, {} MRW",
        r.downlink.pdus_discarded, tx.pdus_retx, r.downlink.mrw_pdus
    );
    // Nothing was transmitted more than MaxDAT times.
    assert!(tx.pdus_retx <= tx.pdus_new);
    // Every SDU is delivered or discarded, none twice, in order.
    let got = h.delivered_to(UE);
    assert!(got.windows(2).all(|w| w[1] > w[0]));
    // An SDU counted as discarded may still be delivered when its PDU was received after the
    // STATUS report that NACKed it (25.322 §11.6: the receiver delivers what it holds below
    // SN_MRW).
    assert!(got.len() as u64 + r.downlink.max_dat_discards >= n);
    assert!(got.len() as u64 + r.downlink.max_dat_discards <= n + n / 100);
    assert_eq!(
        r.downlink.sdus_lost, 0,
        "whole SDUs are discarded, never pieces"
    );
    assert!(r.downlink.mrw_pdus > 0);
}

#[test]
fn a_full_rnc_buffer_refuses_packets() {
    let mut c = config();
    c.rlc.tx_buffer = BufferLimit::Bytes(5_000);
    let mut h = Harness::new(c, 1);
    h.run(ms(2_000), cbr(RNC, 20, 1000, SimDuration::ZERO, 1));
    // All twenty arrive at 0, before the first TTI: five fill the 5000-byte buffer, the rest
    // are refused.
    let refused: Vec<u64> = h
        .dropped
        .iter()
        .filter(|d| d.1 == DropCause::QueueFull)
        .map(|d| d.0)
        .collect();
    assert_eq!(refused.len(), 15, "{refused:?}");
    assert_eq!(h.delivered_to(UE).len(), 5);
    assert_eq!(h.link.dch_report(ms(2_000)).downlink.sdus_refused, 15);
}

#[test]
fn a_packet_between_other_nodes_is_not_routed() {
    let mut link = DchLink::new(config(), 1, 0).unwrap();
    let mut out = MediumOutput::default();
    link.send(SimTime::ZERO, RNC, NodeId(5), sdu(1, 100), &mut out);
    assert_eq!(out.dropped.len(), 1);
    assert_eq!(out.dropped[0].1, DropCause::NoRoute);
    assert_eq!(link.poll_timeout(), None);
}

#[test]
fn same_seed_same_run_different_seed_different_losses() {
    let (a, ha) = saturated(0.1, 5, 21);
    let (b, hb) = saturated(0.1, 5, 21);
    // Debug text: the uplink's mean delay is NaN (no SDU), which `==` would not equal.
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    assert_eq!(ha.delivered, hb.delivered);
    let (c, _) = saturated(0.1, 5, 22);
    assert_ne!(a.downlink.tbs_lost, c.downlink.tbs_lost);
}

#[test]
fn report_and_sample_name_the_figures() {
    let mut h = Harness::new(config(), 1);
    h.run(
        ms(1_000),
        [
            (SimTime::ZERO, RNC, sdu(1, 1000)),
            (SimTime::ZERO, UE, sdu(2, 52)),
        ],
    );
    let figures = h.link.report(ms(1_000));
    let get = |k: &str| figures.iter().find(|f| f.0 == k).map(|f| f.1);
    assert_eq!(get("sdus_delivered"), Some(1.0));
    assert_eq!(get("uplink.sdus_delivered"), Some(1.0));
    assert_eq!(get("tbs_per_tti"), Some(12.0));
    assert_eq!(get("uplink.tbs_per_tti"), Some(4.0));
    assert_eq!(get("sessions"), Some(1.0));
    // 1000 bytes in 100 ms of activity.
    assert!((get("rlc_throughput_bps").unwrap() - 80_000.0).abs() < 1e-6);
    assert!((get("run_throughput_bps").unwrap() - 8_000.0).abs() < 1e-6);
    let mut sample = Vec::new();
    h.link.sample(ms(1_000), &mut sample);
    assert_eq!(sample[2], ("sdu_bytes_delivered".to_string(), 1000.0));
}

#[test]
fn a_pdu_holds_references_not_packets() {
    // The reason for `DchSdu` (sdu.rs): PDUs move by value through the RLC and the channel.
    let size = size_of::<crate::rlc::RlcPdu<DchSdu>>();
    assert!(size <= 200, "{size}");
    assert_eq!(size_of::<DchSdu>(), 16);
}
