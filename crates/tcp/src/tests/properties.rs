//! Property tests: random loss, reordering and duplication in both directions; every byte is
//! delivered exactly once and in order, bytes in flight stay within the outstanding data, and
//! cwnd never falls below one MSS — with the test controller and with every controller of
//! `cc::build`.

use celltcp_engine::{RngStream, SimDuration};
use celltcp_net::packet::FlowId;
use proptest::prelude::*;

use super::*;
use crate::cc;

fn chaos(seed: u64, p_drop: f64, p_reorder: f64, p_dup: f64) -> Rule {
    let mut rng = RngStream::new(seed, 0, "tests/chaos");
    Box::new(move |_, _, _| {
        let u = rng.next_f64();
        if u < p_drop {
            Fate::Drop
        } else if u < p_drop + p_reorder {
            Fate::Delay(SimDuration::from_us(rng.below(40_000)))
        } else if u < p_drop + p_reorder + p_dup {
            Fate::Duplicate
        } else {
            Fate::Deliver
        }
    })
}

fn check_run(mut h: Harness, total: u64) -> Result<(), TestCaseError> {
    h.to_write = total;
    h.close_after = true;
    let limit = secs(3_000);
    let mss = h.a.config().mss as u64;
    let mut last_delivered = 0;
    let mut steps = 0u64;
    while h.step(limit) {
        steps += 1;
        prop_assert!(steps < 3_000_000);
        prop_assert!(h.a.cc().cwnd() >= mss, "cwnd {} < mss", h.a.cc().cwnd());
        let outstanding = h.a.send_window().nxt() - h.a.send_window().una();
        prop_assert!(h.a.bytes_in_flight() <= 2 * outstanding);
        prop_assert!(h.delivered >= last_delivered && h.delivered <= total);
        last_delivered = h.delivered;
        if h.a.state() == TcpState::Closed && h.b.state() == TcpState::Closed {
            break;
        }
    }
    prop_assert_eq!(h.delivered, total);
    prop_assert_eq!(h.b.stats().bytes_delivered, total);
    // RCV.NXT: data plus the SYN and the FIN.
    prop_assert_eq!(h.b.receiver().rcv_nxt(), total + 2);
    prop_assert!(h.a.all_acked());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn all_data_delivered_once_in_order(
        seed in any::<u64>(),
        p_drop in 0.0f64..0.12,
        p_reorder in 0.0f64..0.2,
        p_dup in 0.0f64..0.05,
        total in 1u64..150_000,
        sack in any::<bool>(),
        timestamps in any::<bool>(),
        delack in any::<bool>(),
        frto in any::<bool>(),
        eifel in any::<bool>(),
        ecn in any::<bool>(),
        isn in any::<u32>(),
    ) {
        let c = TcpConfig {
            sack, timestamps, frto, eifel, ecn, isn,
            delayed_ack: delack.then(|| SimDuration::from_ms(40)),
            ..cfg()
        };
        let mut h = Harness::new(c, TcpConfig { isn: isn.wrapping_mul(7), ..c });
        h.rule = chaos(seed, p_drop, p_reorder, p_dup);
        h.rate_bps = Some(20_000_000);
        check_run(h, total)?;
    }

    #[test]
    fn every_controller_keeps_the_invariants(
        seed in any::<u64>(),
        p_drop in 0.0f64..0.08,
        p_reorder in 0.0f64..0.1,
        which in 0usize..16,
    ) {
        let name = cc::NAMES[which % cc::NAMES.len()];
        let c = cfg();
        let cca = cc::build(name, &c.cc_config()).unwrap();
        let ccb = cc::build(name, &c.cc_config()).unwrap();
        let a = TcpEndpoint::connect(c, cca, A, B, FlowId(1), SimTime::ZERO);
        let b = TcpEndpoint::listen(c, ccb, B, FlowId(1));
        let mut h = Harness::with(a, b);
        h.rule = chaos(seed, p_drop, p_reorder, 0.0);
        h.rate_bps = Some(10_000_000);
        check_run(h, 120_000)?;
    }
}
