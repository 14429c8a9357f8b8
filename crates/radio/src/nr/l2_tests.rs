//! NR layer 2 end to end: PDCP over RLC AM over a "MAC" that loses, delays (so reorders) and
//! duplicates PDUs, with random grants.
//!
//! Each TTI (1 ms) the transmitting RLC side fills one grant of a random size; every PDU is
//! lost with probability `loss`, else arrives after 1..=`max_delay_ms` ms, and with
//! probability `dup` arrives a second time after another delay (as a HARQ ACK misread as NACK
//! makes it do). STATUS PDUs travel back the same way.

use celltcp_engine::{RngStream, SimDuration, SimTime};
use celltcp_net::packet::Packet;
use proptest::prelude::*;

use super::pdcp::{NrPdcpConfig, NrPdcpPdu, NrPdcpRx, NrPdcpTx, PdcpSnLength};
use super::rlc::{AmSnLength, NrRlcAmConfig, NrRlcAmRx, NrRlcAmTx, NrRlcAmTxEvent};
use crate::rlc::testkit::{sdu, InFlight};

/// One direction of the "MAC" (see the module documentation for its faults).
struct Channel<T> {
    in_flight: InFlight<T>,
    loss: f64,
    dup: f64,
    max_delay_ms: u64,
}

impl<T: Clone> Channel<T> {
    fn new(loss: f64, dup: f64, max_delay_ms: u64) -> Self {
        Channel {
            in_flight: InFlight::new(),
            loss,
            dup,
            max_delay_ms,
        }
    }

    fn send(&mut self, now: SimTime, item: T, rng: &mut RngStream) {
        let lost = rng.bernoulli(self.loss);
        let delay = 1 + rng.below(self.max_delay_ms);
        let again = rng.bernoulli(self.dup);
        let later = delay + 1 + rng.below(self.max_delay_ms);
        if !lost {
            self.in_flight.push(now, delay, item.clone());
            if again {
                // Later than the first copy, so never tied with it.
                self.in_flight.push(now, later, item);
            }
        }
    }

    fn arrivals(&mut self, now: SimTime) -> Vec<T> {
        self.in_flight.arrivals(now)
    }

    fn is_empty(&self) -> bool {
        self.in_flight.is_empty()
    }
}

#[derive(Clone, Debug)]
struct L2Case {
    seed: u64,
    sizes: Vec<u32>,
    loss: f64,
    dup: f64,
    max_delay_ms: u64,
    max_grant: u32,
    rlc_sn: AmSnLength,
    pdcp_sn: PdcpSnLength,
    /// How far below the SN wrap the RLC SNs and PDCP COUNTs start.
    rlc_before_wrap: u32,
    pdcp_before_wrap: u32,
}

fn l2_case() -> impl Strategy<Value = L2Case> {
    (
        (any::<u64>(), prop::collection::vec(28u32..=1500, 1..250)),
        (0.0..0.3f64, 0.0..0.2f64, 1u64..10),
        prop_oneof![Just(60u32), Just(400u32), Just(3000u32)],
        (any::<bool>(), any::<bool>()),
        (0u32..300, 0u32..300),
    )
        .prop_map(
            |((seed, sizes), (loss, dup, max_delay_ms), max_grant, (r18, p18), (rb, pb))| L2Case {
                seed,
                sizes,
                loss,
                dup,
                max_delay_ms,
                max_grant,
                rlc_sn: if r18 {
                    AmSnLength::Bits18
                } else {
                    AmSnLength::Bits12
                },
                pdcp_sn: if p18 {
                    PdcpSnLength::Bits18
                } else {
                    PdcpSnLength::Bits12
                },
                rlc_before_wrap: rb,
                pdcp_before_wrap: pb,
            },
        )
}

struct L2Run {
    /// SDU ids in the order PDCP delivered them.
    delivered: Vec<u64>,
    /// Whether RLC handed some SDU to PDCP out of COUNT order.
    rlc_out_of_order: bool,
    finished: bool,
    max_retx_events: usize,
}

/// Runs `case` until everything is delivered and acknowledged, or 600 simulated s.
fn run_l2(case: &L2Case, rlc: NrRlcAmConfig, pdcp: NrPdcpConfig) -> L2Run {
    let rlc = NrRlcAmConfig {
        sn_length: case.rlc_sn,
        ..rlc
    };
    let pdcp = NrPdcpConfig {
        sn_length: case.pdcp_sn,
        ..pdcp
    };
    let rlc_start = (1u32 << case.rlc_sn.bits()) - case.rlc_before_wrap.max(1);
    let pdcp_start = (3u32 << case.pdcp_sn.bits()) - case.pdcp_before_wrap.max(1);
    let mut pdcp_tx = NrPdcpTx::starting_at(pdcp, pdcp_start);
    let mut rlc_tx: NrRlcAmTx<NrPdcpPdu> = NrRlcAmTx::starting_at(rlc, rlc_start);
    let mut rlc_rx: NrRlcAmRx<NrPdcpPdu> = NrRlcAmRx::starting_at(rlc, rlc_start);
    let mut pdcp_rx: NrPdcpRx<Packet> = NrPdcpRx::starting_at(pdcp, pdcp_start);
    let mut rng = RngStream::new(case.seed, 0, "nr/l2-proptest");
    let mut dl = Channel::new(case.loss, case.dup, case.max_delay_ms);
    let mut ul = Channel::new(case.loss, case.dup, case.max_delay_ms);
    let mut run = L2Run {
        delivered: Vec::new(),
        rlc_out_of_order: false,
        finished: false,
        max_retx_events: 0,
    };
    let (mut written, mut last_count) = (0usize, None::<u32>);
    for tti in 0..600_000u64 {
        let now = SimTime::from_ns(tti * 1_000_000);
        for _ in 0..3 {
            if let Some(&size) = case.sizes.get(written) {
                let pdu = pdcp_tx.write_sdu(now, sdu(written as u64, size));
                rlc_tx.write_sdu(now, pdu).unwrap();
                written += 1;
            }
        }
        rlc_tx.on_timeout(now);
        rlc_rx.on_timeout(now);
        pdcp_rx.on_timeout(now);
        for pdu in dl.arrivals(now) {
            rlc_rx.on_pdu(now, pdu);
        }
        for status in ul.arrivals(now) {
            rlc_tx.on_status(now, &status);
        }
        let mut grant = 20 + rng.below(u64::from(case.max_grant - 20) + 1) as u32;
        while let Some(pdu) = rlc_tx.pull_pdu(now, grant) {
            assert!(
                pdu.size_bytes() <= grant,
                "{}-byte PDU in a {grant}-byte grant",
                pdu.size_bytes()
            );
            grant -= pdu.size_bytes();
            dl.send(now, pdu, &mut rng);
        }
        let ul_grant = 20 + rng.below(2981) as u32;
        if let Some(status) = rlc_rx.pull_status(now, ul_grant) {
            assert!(status.size_bytes() <= ul_grant);
            ul.send(now, status, &mut rng);
        }
        while let Some(event) = rlc_tx.pop_event() {
            match event {
                NrRlcAmTxEvent::Delivered { sdu_id, .. } => pdcp_tx.confirm_delivered(sdu_id),
                NrRlcAmTxEvent::MaxRetxReached { .. } => run.max_retx_events += 1,
            }
        }
        while let Some(pdu) = rlc_rx.take_sdu() {
            run.rlc_out_of_order |= last_count.is_some_and(|c| pdu.count < c);
            last_count = Some(pdu.count);
            pdcp_rx.on_pdu(now, pdu);
        }
        while let Some(p) = pdcp_rx.take_sdu() {
            run.delivered.push(p.uid);
        }
        if written == case.sizes.len() && rlc_tx.is_idle() && dl.is_empty() && ul.is_empty() {
            run.finished = true;
            break;
        }
    }
    run
}

/// RLC AM that never gives up, and PDCP reordering that waits for it (t-Reordering infinity):
/// nothing can be lost, so every loss is the entities' fault.
fn lossless_l2() -> (NrRlcAmConfig, NrPdcpConfig) {
    (
        NrRlcAmConfig {
            max_retx_threshold: None,
            ..NrRlcAmConfig::default()
        },
        NrPdcpConfig {
            t_reordering: None,
            ..NrPdcpConfig::default()
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Every SDU reaches the upper layer exactly once and in order through PDCP, whatever the
    /// channel loses, reorders and duplicates and whatever the grants, for 12- and 18-bit RLC
    /// and PDCP SNs, with both crossing their wrap.
    #[test]
    fn rlc_am_and_pdcp_deliver_every_sdu_once_in_order(case in l2_case()) {
        let (rlc, pdcp) = lossless_l2();
        let run = run_l2(&case, rlc, pdcp);
        prop_assert!(run.finished, "did not finish: {} of {} delivered", run.delivered.len(), case.sizes.len());
        prop_assert_eq!(run.delivered, (0..case.sizes.len() as u64).collect::<Vec<_>>());
        prop_assert_eq!(run.max_retx_events, 0);
    }
}

/// RLC hands SDUs to PDCP out of order after a loss (TS 38.322 §5.2.3.2.3); PDCP's
/// reordering (TS 38.323 §5.2.2.1) restores the order.
#[test]
fn rlc_delivers_out_of_order_and_pdcp_restores_the_order() {
    let (rlc, pdcp) = lossless_l2();
    let mut pdcp_tx = NrPdcpTx::new(pdcp);
    let mut rlc_tx: NrRlcAmTx<NrPdcpPdu> = NrRlcAmTx::new(rlc).unwrap();
    let mut rlc_rx: NrRlcAmRx<NrPdcpPdu> = NrRlcAmRx::new(rlc).unwrap();
    let mut pdcp_rx: NrPdcpRx<Packet> = NrPdcpRx::new(pdcp);
    let at = |x| SimTime::ZERO + SimDuration::from_ms(x);
    for uid in 0..3 {
        rlc_tx
            .write_sdu(at(0), pdcp_tx.write_sdu(at(0), sdu(uid, 100)))
            .unwrap();
    }
    let pdus: Vec<_> = std::iter::from_fn(|| rlc_tx.pull_pdu(at(0), 200)).collect();
    let (mut rlc_order, mut pdcp_order) = (Vec::new(), Vec::new());
    let mut step = |rx: &mut NrRlcAmRx<NrPdcpPdu>, pdcp_rx: &mut NrPdcpRx<Packet>, now| {
        while let Some(p) = rx.take_sdu() {
            rlc_order.push(p.count);
            pdcp_rx.on_pdu(now, p);
        }
        pdcp_order.extend(std::iter::from_fn(|| pdcp_rx.take_sdu()).map(|p| p.uid));
        (rlc_order.clone(), pdcp_order.clone())
    };
    rlc_rx.on_pdu(at(1), pdus[1]); // the PDU of SDU 0 is lost
    rlc_rx.on_pdu(at(1), pdus[2]);
    let (rlc_seen, pdcp_seen) = step(&mut rlc_rx, &mut pdcp_rx, at(1));
    assert_eq!(rlc_seen, vec![1, 2], "RLC delivers SDUs 1 and 2 at once");
    assert_eq!(pdcp_seen, Vec::<u64>::new(), "PDCP holds COUNTs 1 and 2");
    rlc_rx.on_timeout(at(36));
    let status = rlc_rx.pull_status(at(36), 100).unwrap();
    rlc_tx.on_status(at(37), &status);
    rlc_rx.on_pdu(at(38), rlc_tx.pull_pdu(at(37), 200).unwrap());
    let (rlc_seen, pdcp_seen) = step(&mut rlc_rx, &mut pdcp_rx, at(38));
    assert_eq!(rlc_seen, vec![1, 2, 0]);
    assert_eq!(pdcp_seen, vec![0, 1, 2]);
}

#[test]
fn a_lossy_run_is_deterministic_and_reorders_at_rlc() {
    let case = L2Case {
        seed: 11,
        sizes: vec![1200; 200],
        loss: 0.2,
        dup: 0.1,
        max_delay_ms: 6,
        max_grant: 3000,
        rlc_sn: AmSnLength::Bits12,
        pdcp_sn: PdcpSnLength::Bits12,
        rlc_before_wrap: 50,
        pdcp_before_wrap: 50,
    };
    let (rlc, pdcp) = lossless_l2();
    let run = run_l2(&case, rlc, pdcp);
    assert!(run.finished && run.rlc_out_of_order);
    assert_eq!(run.delivered, (0..200).collect::<Vec<_>>());
    let again = run_l2(&case, rlc, pdcp);
    assert_eq!(again.delivered, run.delivered);
}

/// TS 38.323 §5.3 → TS 38.322 §5.4 → TS 38.323 §5.2.2.2: an SDU whose discardTimer expires
/// before RLC sent any of it is dropped from RLC's buffer without using an RLC SN; the
/// receiving PDCP sees its COUNT missing and delivers past it at t-Reordering expiry.
#[test]
fn a_discard_timer_expiry_reaches_rlc_and_pdcp_delivers_past_the_count() {
    let at = |x| SimTime::ZERO + SimDuration::from_ms(x);
    let pdcp = NrPdcpConfig {
        discard_timer: Some(SimDuration::from_ms(10)),
        t_reordering: Some(SimDuration::from_ms(30)),
        ..NrPdcpConfig::default()
    };
    let rlc = NrRlcAmConfig::default();
    let mut pdcp_tx = NrPdcpTx::new(pdcp);
    let mut rlc_tx: NrRlcAmTx<NrPdcpPdu> = NrRlcAmTx::new(rlc).unwrap();
    let mut rlc_rx: NrRlcAmRx<NrPdcpPdu> = NrRlcAmRx::new(rlc).unwrap();
    let mut pdcp_rx: NrPdcpRx<Packet> = NrPdcpRx::new(pdcp);
    for (t, uid) in [(0, 0), (5, 1), (12, 2)] {
        pdcp_tx.on_timeout(at(t));
        rlc_tx
            .write_sdu(at(t), pdcp_tx.write_sdu(at(t), sdu(uid, 100)))
            .unwrap();
    }
    // Only SDU 0 was sent before SDU 1's timer expired at 15 ms; SDU 0's expired at 10 ms but
    // RLC had sent it, so that discard does nothing.
    rlc_rx.on_pdu(at(1), rlc_tx.pull_pdu(at(1), 200).unwrap());
    pdcp_tx.on_timeout(at(15));
    let discarded: Vec<bool> = std::iter::from_fn(|| pdcp_tx.pop_discard())
        .map(|d| rlc_tx.discard_sdu(d.sdu_id))
        .collect();
    assert_eq!(discarded, vec![false, true]);
    let last = rlc_tx.pull_pdu(at(16), 200).unwrap();
    assert_eq!(
        (last.sn, last.data.sdu.count),
        (1, 2),
        "RLC SN 1 carries COUNT 2"
    );
    rlc_rx.on_pdu(at(17), last);
    while let Some(p) = rlc_rx.take_sdu() {
        pdcp_rx.on_pdu(at(17), p);
    }
    let up = |rx: &mut NrPdcpRx<Packet>| {
        std::iter::from_fn(|| rx.take_sdu())
            .map(|p| p.uid)
            .collect::<Vec<_>>()
    };
    assert_eq!(up(&mut pdcp_rx), vec![0]);
    pdcp_rx.on_timeout(at(47));
    assert_eq!(up(&mut pdcp_rx), vec![2]);
    assert_eq!(pdcp_rx.stats().counts_skipped, 1);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// NR RLC UM over a channel that loses and reorders (no duplicates: a complete SDU carries
    /// no SN, so UM cannot tell a copy — PDCP does): every SDU is delivered at most once and
    /// only once all its bytes arrived, and without loss every SDU is delivered.
    #[test]
    fn rlc_um_delivers_each_complete_sdu_once(
        seed in any::<u64>(),
        sizes in prop::collection::vec(28u32..=1500, 1..200),
        loss in prop_oneof![Just(0.0f64), 0.0..0.3f64],
        max_delay_ms in 1u64..6,
        sn6 in any::<bool>(),
    ) {
        use super::rlc::{NrRlcUmConfig, NrRlcUmRx, NrRlcUmTx, NrUmdPdu, UmSnLength};
        let sn_length = if sn6 { UmSnLength::Bits6 } else { UmSnLength::Bits12 };
        let cfg = NrRlcUmConfig { sn_length, ..NrRlcUmConfig::default() };
        let mut tx: NrRlcUmTx = NrRlcUmTx::new(cfg).unwrap();
        let mut rx: NrRlcUmRx = NrRlcUmRx::new(cfg).unwrap();
        let mut rng = RngStream::new(seed, 0, "nr/um-proptest");
        let mut ch: Channel<NrUmdPdu> = Channel::new(loss, 0.0, max_delay_ms);
        let (mut delivered, mut arrived) = (Vec::new(), vec![0u32; sizes.len()]);
        for tti in 0..100_000u64 {
            let now = SimTime::from_ns(tti * 1_000_000);
            if let Some(&size) = sizes.get(tti as usize) {
                tx.write_sdu(now, sdu(tti, size)).unwrap();
            }
            rx.on_timeout(now);
            for pdu in ch.arrivals(now) {
                arrived[pdu.data.sdu.uid as usize] += pdu.data.len;
                rx.on_pdu(now, pdu);
            }
            let grant = 20 + rng.below(2981) as u32;
            if let Some(p) = tx.pull_pdu(now, grant) {
                ch.send(now, p, &mut rng);
            }
            delivered.extend(std::iter::from_fn(|| rx.take_sdu()).map(|p| p.uid));
            if tti as usize >= sizes.len() && tx.buffer_status().is_empty() && ch.is_empty()
                && rx.poll_timeout().is_none() {
                break;
            }
        }
        let mut unique = delivered.clone();
        unique.sort_unstable();
        unique.dedup();
        prop_assert_eq!(unique.len(), delivered.len(), "an SDU delivered twice");
        prop_assert!(delivered.iter().all(|&u| arrived[u as usize] == sizes[u as usize]));
        if loss == 0.0 {
            prop_assert_eq!(unique, (0..sizes.len() as u64).collect::<Vec<_>>());
        }
    }
}

/// What a receiving PDCP entity hands up, each SDU with the instant it did.
type Deliveries = Vec<(u64, u64)>;

/// Drives one receiving PDCP entity through `arrivals` (time in ns, COUNT, UID, in time
/// order), running its t-Reordering at each deadline, and records every delivery.
fn drive_pdcp_rx(
    arrivals: &[(u64, u32, u64)],
    mut deadline: impl FnMut() -> Option<SimTime>,
    mut on_timeout: impl FnMut(SimTime),
    mut on_pdu: impl FnMut(SimTime, u32, Packet),
    mut take: impl FnMut() -> Option<Packet>,
) -> Deliveries {
    let mut out = Vec::new();
    let drain = |t: SimTime, out: &mut Deliveries, take: &mut dyn FnMut() -> Option<Packet>| {
        while let Some(p) = take() {
            out.push((t.as_ns(), p.uid));
        }
    };
    for &(t_ns, count, uid) in arrivals {
        let t = SimTime::ZERO + SimDuration::from_ns(t_ns);
        while let Some(d) = deadline().filter(|&d| d <= t) {
            on_timeout(d);
            drain(d, &mut out, &mut take);
        }
        on_pdu(t, count, sdu(uid, 100));
        drain(t, &mut out, &mut take);
    }
    while let Some(d) = deadline() {
        on_timeout(d);
        drain(d, &mut out, &mut take);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The cell's PDCP receiver with reordering (TS 36.323 §5.1.2.1.4: Next_PDCP_RX_SN,
    /// RX_HFN, Last_Submitted_PDCP_RX_SN, Reordering_PDCP_RX_COUNT), which an NR cell's UE
    /// uses, delivers exactly what the NR receiver of TS 38.323 §5.2.2 (RX_NEXT, RX_DELIV,
    /// RX_REORD) delivers, at the same instants: the same SDUs in the same order, whatever
    /// the lower layer loses, reorders (within half the SN space) and duplicates, for 12- and
    /// 18-bit SNs starting anywhere, the wrap included.
    #[test]
    fn the_cells_reordering_pdcp_receiver_is_nr_pdcps(
        seed in any::<u64>(),
        n in 1usize..400,
        start in 0u32..9000,
        loss in prop_oneof![Just(0.0f64), 0.0..0.2f64],
        dup in prop_oneof![Just(0.0f64), 0.0..0.2f64],
        jitter_ms in 0u64..60,
        t_reordering_ms in 1u64..80,
        bits18 in any::<bool>(),
    ) {
        use crate::pdcp::{PdcpConfig, PdcpPdu, PdcpRx};
        let (bits, sn_length) = if bits18 { (18, PdcpSnLength::Bits18) } else { (12, PdcpSnLength::Bits12) };
        let t_reordering = SimDuration::from_ms(t_reordering_ms);
        // One SDU every 0.5 ms, each delayed by up to `jitter_ms` (reordering far below the
        // 2048-SDU window), lost or sent twice.
        let mut rng = RngStream::new(seed, 0, "pdcp-equivalence");
        let mut arrivals: Vec<(u64, u32, u64)> = Vec::new();
        for i in 0..n as u64 {
            let count = start.wrapping_add(i as u32);
            let sent = i * 500_000;
            if rng.next_f64() < loss {
                continue;
            }
            let delay = (rng.next_f64() * (jitter_ms * 1_000_000) as f64) as u64;
            arrivals.push((sent + delay, count, i));
            if rng.next_f64() < dup {
                let again = (rng.next_f64() * (jitter_ms * 1_000_000 + 1) as f64) as u64;
                arrivals.push((sent + delay + again, count, i));
            }
        }
        arrivals.sort_by_key(|a| a.0);

        let cfg = PdcpConfig { sn_bits: bits, reordering: true, t_reordering, ..PdcpConfig::default() };
        let lte = std::cell::RefCell::new(PdcpRx::resume(cfg, SimTime::ZERO, start, []).unwrap());
        let lte_out = drive_pdcp_rx(
            &arrivals,
            || lte.borrow().poll_timeout(),
            |t| lte.borrow_mut().on_timeout(t),
            |t, count, p| lte.borrow_mut().on_pdu(t, PdcpPdu { count, sdu: p, header_bytes: cfg.header_bytes(), sn_bits: bits }),
            || lte.borrow_mut().take_sdu(),
        );
        let nr_cfg = NrPdcpConfig { sn_length, t_reordering: Some(t_reordering), ..NrPdcpConfig::default() };
        let nr = std::cell::RefCell::new(NrPdcpRx::starting_at(nr_cfg, start));
        let nr_out = drive_pdcp_rx(
            &arrivals,
            || nr.borrow().poll_timeout(),
            |t| nr.borrow_mut().on_timeout(t),
            |t, count, p| nr.borrow_mut().on_pdu(t, NrPdcpPdu { count, sdu: p, sn_length }),
            || nr.borrow_mut().take_sdu(),
        );
        prop_assert_eq!(&lte_out, &nr_out);
        // Each SDU at most once, in COUNT order.
        prop_assert!(nr_out.windows(2).all(|w| w[0].1 < w[1].1));
    }
}
