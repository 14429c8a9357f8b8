//! Property tests: AM and UM pairs driven through a lossy, reordering "MAC".
//!
//! Each TTI (1 ms) the transmitting side fills one transmission opportunity of a random size;
//! each PDU is lost with probability `loss_dl` or arrives after a random delay (so PDUs
//! overtake each other, as HARQ retransmissions make them do). STATUS PDUs travel back the same
//! way with `loss_ul`.

use celltcp_engine::{RngStream, SimDuration, SimTime};
use proptest::prelude::*;

use super::testkit::{sdu, InFlight};
use super::*;

/// One direction of the "MAC": each PDU lost with probability `loss`, else delivered after
/// 1..=`max_delay_ms` ms.
struct Channel<T> {
    in_flight: InFlight<T>,
    loss: f64,
    max_delay_ms: u64,
}

impl<T> Channel<T> {
    fn new(loss: f64, max_delay_ms: u64) -> Self {
        Channel {
            in_flight: InFlight::new(),
            loss,
            max_delay_ms,
        }
    }

    fn send(&mut self, now: SimTime, item: T, rng: &mut RngStream) {
        let lost = rng.bernoulli(self.loss);
        let delay = 1 + rng.below(self.max_delay_ms);
        if !lost {
            self.in_flight.push(now, delay, item);
        }
    }

    fn arrivals(&mut self, now: SimTime) -> Vec<T> {
        self.in_flight.arrivals(now)
    }

    fn is_empty(&self) -> bool {
        self.in_flight.is_empty()
    }
}

struct AmRun {
    delivered: Vec<u64>,
    finished: bool,
    tx: RlcAmTxStats,
}

#[derive(Clone, Debug)]
struct AmCase {
    seed: u64,
    sizes: Vec<u32>,
    loss_dl: f64,
    loss_ul: f64,
    max_delay_ms: u64,
    max_grant: u32,
    status_prohibit_ms: u64,
    poll_pdu: Option<u32>,
}

fn am_case() -> impl Strategy<Value = AmCase> {
    (
        any::<u64>(),
        prop::collection::vec(28u32..=1500, 1..120),
        0.0..0.3f64,
        0.0..0.3f64,
        1u64..10,
        prop_oneof![Just(120u32), Just(3000u32)],
        prop_oneof![Just(0u64), Just(5), Just(20)],
        prop_oneof![Just(None), Just(Some(4u32))],
    )
        .prop_map(
            |(
                seed,
                sizes,
                loss_dl,
                loss_ul,
                max_delay_ms,
                max_grant,
                status_prohibit_ms,
                poll_pdu,
            )| {
                AmCase {
                    seed,
                    sizes,
                    loss_dl,
                    loss_ul,
                    max_delay_ms,
                    max_grant,
                    status_prohibit_ms,
                    poll_pdu,
                }
            },
        )
}

/// Runs `case` until the transmitter is idle and nothing is in flight, or 600 simulated s.
fn run_am(case: &AmCase, c: RlcAmConfig) -> AmRun {
    let c = RlcAmConfig {
        t_status_prohibit: SimDuration::from_ms(case.status_prohibit_ms),
        poll_pdu: case.poll_pdu,
        ..c
    };
    let mut tx: RlcAmTx = RlcAmTx::new(c).unwrap();
    let mut rx: RlcAmRx = RlcAmRx::new(c).unwrap();
    let mut rng = RngStream::new(case.seed, 0, "rlc/proptest");
    let mut dl = Channel::new(case.loss_dl, case.max_delay_ms);
    let mut ul = Channel::new(case.loss_ul, case.max_delay_ms);
    let mut delivered = Vec::new();
    let mut written = 0usize;
    let min_grant = match c.pdu_mode {
        PduMode::Flexible => 20,
        PduMode::Fixed { bytes } => bytes,
    };
    for tti in 0..600_000u64 {
        let now = SimTime::from_ns(tti * 1_000_000);
        // Offered load: up to three SDUs per TTI.
        for _ in 0..3 {
            if written < case.sizes.len() {
                tx.write_sdu(now, sdu(written as u64, case.sizes[written]))
                    .unwrap();
                written += 1;
            }
        }
        tx.on_timeout(now);
        rx.on_timeout(now);
        for pdu in dl.arrivals(now) {
            rx.on_pdu(now, pdu);
        }
        for status in ul.arrivals(now) {
            tx.on_status(now, &status);
        }
        let mut grant =
            min_grant + rng.below((case.max_grant.max(min_grant) - min_grant + 1) as u64) as u32;
        while let Some(pdu) = tx.pull_pdu(now, grant) {
            assert!(
                pdu.size_bytes() <= grant,
                "PDU of {} bytes in a {grant}-byte grant",
                pdu.size_bytes()
            );
            grant -= pdu.size_bytes();
            dl.send(now, pdu, &mut rng);
        }
        let ul_grant = min_grant + rng.below(3000 - min_grant as u64 + 1) as u32;
        if let Some(status) = rx.pull_status(now, ul_grant) {
            assert!(status.size_bytes() <= ul_grant);
            ul.send(now, status, &mut rng);
        }
        while let Some(p) = rx.take_sdu() {
            delivered.push(p.uid);
        }
        if written == case.sizes.len() && tx.is_idle() && dl.is_empty() && ul.is_empty() {
            return AmRun {
                delivered,
                finished: true,
                tx: tx.stats(),
            };
        }
    }
    AmRun {
        delivered,
        finished: false,
        tx: tx.stats(),
    }
}

fn unlimited() -> RlcAmConfig {
    RlcAmConfig {
        max_retx_threshold: None,
        ..RlcAmConfig::lte_default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// With unlimited retransmissions every SDU is delivered exactly once and in order.
    #[test]
    fn am_delivers_everything_once_in_order(case in am_case(), sn16 in any::<bool>()) {
        let c = if sn16 {
            RlcAmConfig { sn_bits: 16, header: HeaderModel::lte_am(16), ..unlimited() }
        } else {
            unlimited()
        };
        let run = run_am(&case, c);
        prop_assert!(run.finished, "did not finish: {} of {} delivered", run.delivered.len(), case.sizes.len());
        let expected: Vec<u64> = (0..case.sizes.len() as u64).collect();
        prop_assert_eq!(run.delivered, expected);
        prop_assert_eq!(run.tx.sdus_discarded, 0);
        prop_assert_eq!(run.tx.sdus_acked, case.sizes.len() as u64);
    }

    /// With a finite maxRetxThreshold and discard, what is delivered stays in order and unique,
    /// and every SDU not delivered was counted as discarded.
    #[test]
    fn am_with_discard_keeps_order_and_uniqueness(case in am_case(), max_retx in 0u32..3) {
        let c = RlcAmConfig {
            max_retx_threshold: Some(max_retx),
            on_max_retx: MaxRetxAction::Discard,
            ..RlcAmConfig::lte_default()
        };
        let run = run_am(&case, c);
        prop_assert!(run.finished);
        prop_assert!(run.delivered.windows(2).all(|w| w[0] < w[1]), "{:?}", run.delivered);
        prop_assert!(run.delivered.len() as u64 + run.tx.sdus_discarded >= case.sizes.len() as u64);
    }

    /// WCDMA fixed 40-byte PDUs with unlimited retransmissions: everything once, in order.
    #[test]
    fn am_fixed_pdus_deliver_everything(case in am_case()) {
        let c = RlcAmConfig { max_retx_threshold: None, ..RlcAmConfig::wcdma(40, 1) };
        let case = AmCase { sizes: case.sizes.into_iter().take(30).collect(), max_grant: 400, ..case };
        let run = run_am(&case, c);
        prop_assert!(run.finished);
        prop_assert_eq!(run.delivered, (0..case.sizes.len() as u64).collect::<Vec<_>>());
    }

    /// UM: delivered SDUs are in order and unique; without loss, all of them.
    #[test]
    fn um_delivers_in_order(seed in any::<u64>(), sizes in prop::collection::vec(28u32..=1500, 1..100),
                            loss in prop_oneof![Just(0.0f64), 0.0..0.3f64], max_delay_ms in 1u64..6) {
        let cfg = RlcUmConfig::lte(10);
        let mut tx: RlcUmTx = RlcUmTx::new(cfg).unwrap();
        let mut rx: RlcUmRx = RlcUmRx::new(cfg).unwrap();
        let mut rng = RngStream::new(seed, 0, "rlc/um-proptest");
        let mut ch = Channel::new(loss, max_delay_ms);
        let mut delivered = Vec::new();
        let mut written = 0;
        for tti in 0..100_000u64 {
            let now = SimTime::from_ns(tti * 1_000_000);
            if written < sizes.len() {
                tx.write_sdu(now, sdu(written as u64, sizes[written])).unwrap();
                written += 1;
            }
            rx.on_timeout(now);
            for pdu in ch.arrivals(now) {
                rx.on_pdu(now, pdu);
            }
            let grant = 20 + rng.below(2981) as u32;
            if let Some(p) = tx.pull_pdu(now, grant) {
                ch.send(now, p, &mut rng);
            }
            while let Some(p) = rx.take_sdu() {
                delivered.push(p.uid);
            }
            if written == sizes.len() && tx.buffer_status().is_empty() && ch.is_empty()
                && rx.poll_timeout().is_none() {
                break;
            }
        }
        prop_assert!(delivered.windows(2).all(|w| w[0] < w[1]));
        let s = rx.stats();
        prop_assert!(s.sdus_delivered + s.sdus_dropped <= sizes.len() as u64 + 1);
        if loss == 0.0 {
            prop_assert_eq!(delivered, (0..sizes.len() as u64).collect::<Vec<_>>());
        }
    }
}

#[test]
fn high_loss_with_a_small_max_retx_discards() {
    let case = AmCase {
        seed: 7,
        sizes: vec![1000; 200],
        loss_dl: 0.3,
        loss_ul: 0.3,
        max_delay_ms: 5,
        max_grant: 3000,
        status_prohibit_ms: 0,
        poll_pdu: None,
    };
    let c = RlcAmConfig {
        max_retx_threshold: Some(1),
        on_max_retx: MaxRetxAction::Discard,
        ..RlcAmConfig::lte_default()
    };
    let run = run_am(&case, c);
    assert!(run.finished);
    assert!(run.tx.sdus_discarded > 0, "{:?}", run.tx);
    assert!(run.delivered.len() < 200);
    assert!(run.delivered.windows(2).all(|w| w[0] < w[1]));
    // Running the same case again gives the same outcome.
    let again = run_am(&case, c);
    assert_eq!((again.delivered, again.tx), (run.delivered, run.tx));
}
