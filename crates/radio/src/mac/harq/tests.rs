//! HARQ entity tests: timing per TS 36.213 §10.1.2 (feedback at t + 4, reuse at t + 8), chase
//! combining, residual failures after the maximum number of transmissions, errors, and a Monte
//! Carlo check of the residual block-error rate.

use celltcp_engine::RngStream;

use super::*;

const MCS_16: Mcs = match Mcs::new(16) {
    Ok(m) => m,
    Err(_) => panic!("16 is an MCS"),
};

fn tb(id: u64) -> TransportBlock {
    TransportBlock {
        id,
        size_bits: 12_576,
        mcs: MCS_16,
        n_prb: 25,
        layers: crate::mac::Layers::ONE,
    }
}

fn entity() -> HarqEntity {
    HarqEntity::new(HarqConfig::default()).unwrap()
}

#[test]
fn feedback_at_t_plus_4_and_retransmission_from_t_plus_8() {
    let mut h = entity();
    let p = h.free_process(10).unwrap();
    let report = h.on_tx(10, p, tb(1), 2.0).unwrap();
    assert_eq!(report.transmission, 1);
    assert_eq!(report.feedback_tti, 14);
    assert_eq!(h.feedback_due(13).count(), 0);
    assert_eq!(h.feedback_due(14).collect::<Vec<_>>(), vec![p]);
    assert_eq!(
        h.on_feedback(13, p, false),
        Err(HarqError::FeedbackTiming {
            process: p,
            expected: 14,
            got: 13
        })
    );
    let outcome = h.on_feedback(14, p, false).unwrap();
    assert_eq!(
        outcome,
        FeedbackOutcome::RetxPending {
            tb: tb(1),
            transmissions: 1,
            earliest_retx_tti: 18
        }
    );
    assert_eq!(h.pending_retx(17), None);
    let due = h.pending_retx(18).unwrap();
    assert_eq!(due.process, p);
    assert_eq!(
        due.as_harq_retx(),
        HarqRetx {
            n_prb: 25,
            mcs: MCS_16,
            layers: crate::mac::Layers::ONE,
            process: p
        }
    );
    assert_eq!(
        h.on_tx(17, p, tb(1), 1.0),
        Err(HarqError::RetxTooEarly {
            process: p,
            tti: 17,
            earliest: 18
        })
    );
    // Chase combining: the SINRs add up (linear).
    let report = h.on_tx(18, p, tb(1), 1.5).unwrap();
    assert_eq!(report.transmission, 2);
    assert!((report.combined_sinr_linear - 3.5).abs() < 1e-12);
    assert_eq!(report.feedback_tti, 22);
    assert!(matches!(
        h.on_feedback(22, p, true),
        Ok(FeedbackOutcome::Acked {
            transmissions: 2,
            ..
        })
    ));
    // After the ACK the process is reusable one round trip after its last transmission.
    assert_eq!(h.state(p), Some(HarqProcessState::Idle));
    assert!(matches!(
        h.on_tx(25, p, tb(2), 1.0),
        Err(HarqError::ProcessBusy {
            available_tti: 26,
            ..
        })
    ));
    assert!(h.on_tx(26, p, tb(2), 1.0).is_ok());
    assert_eq!(
        *h.stats(),
        HarqStats {
            transmissions: 3,
            retransmissions: 1,
            acks: 1,
            nacks: 1,
            residual_failures: 0
        }
    );
}

#[test]
fn a_late_retransmission_is_allowed() {
    // Asynchronous DL HARQ (TS 36.321 §5.3.2): the retransmission may wait past t + 8.
    let mut h = entity();
    h.on_tx(0, 3, tb(9), 1.0).unwrap();
    h.on_feedback(4, 3, false).unwrap();
    assert_eq!(h.pending_retx(40).map(|r| r.process), Some(3));
    assert_eq!(h.on_tx(40, 3, tb(9), 1.0).unwrap().feedback_tti, 44);
}

#[test]
fn residual_failure_after_max_transmissions() {
    let mut h = HarqEntity::new(HarqConfig {
        max_transmissions: 3,
        ..HarqConfig::default()
    })
    .unwrap();
    let mut t = 0;
    for k in 1..=3u8 {
        let r = h.on_tx(t, 0, tb(5), 0.5).unwrap();
        assert_eq!(r.transmission, k);
        assert!((r.combined_sinr_linear - 0.5 * f64::from(k)).abs() < 1e-12);
        let outcome = h.on_feedback(t + 4, 0, false).unwrap();
        if k < 3 {
            assert!(matches!(outcome, FeedbackOutcome::RetxPending { .. }));
        } else {
            assert_eq!(
                outcome,
                FeedbackOutcome::ResidualFailure {
                    tb: tb(5),
                    transmissions: 3
                }
            );
        }
        t += 8;
    }
    assert_eq!(h.state(0), Some(HarqProcessState::Idle));
    assert_eq!(h.pending_retx(1000), None);
    assert_eq!(h.stats().residual_failures, 1);
    assert_eq!(h.stats().retransmissions, 2);
    assert_eq!(h.stats().transmissions, 3);
}

#[test]
fn oldest_retransmission_first() {
    let mut h = entity();
    h.on_tx(0, 5, tb(50), 1.0).unwrap();
    h.on_tx(1, 2, tb(20), 1.0).unwrap();
    h.on_feedback(4, 5, false).unwrap();
    h.on_feedback(5, 2, false).unwrap();
    assert_eq!(h.pending_retx(8).map(|r| r.process), Some(5));
    // Process 2 (sent at TTI 1) is not due before TTI 9.
    h.on_tx(8, 5, tb(50), 1.0).unwrap();
    assert_eq!(h.pending_retx(8), None);
    assert_eq!(h.pending_retx(9).map(|r| r.process), Some(2));
}

#[test]
fn eight_processes_saturate_at_one_block_per_tti() {
    for (n_processes, expected) in [(8u8, 1000u64), (4, 500), (10, 1000)] {
        let cfg = HarqConfig {
            n_processes,
            ..HarqConfig::default()
        };
        let mut h = HarqEntity::new(cfg).unwrap();
        let mut sent = 0u64;
        for t in 0..1000u64 {
            let due: Vec<u8> = h.feedback_due(t).collect();
            for p in due {
                h.on_feedback(t, p, true).unwrap();
            }
            if let Some(p) = h.free_process(t) {
                if n_processes == 8 {
                    // Each process comes back exactly one 8-TTI round trip after its last use.
                    assert_eq!(u64::from(p), t % 8);
                }
                h.on_tx(t, p, tb(t), 1.0).unwrap();
                sent += 1;
            }
        }
        assert_eq!(sent, expected, "{n_processes} processes");
    }
}

#[test]
fn errors_leave_the_entity_unchanged() {
    let mut h = entity();
    assert_eq!(
        h.on_tx(0, 8, tb(1), 1.0),
        Err(HarqError::UnknownProcess {
            process: 8,
            n_processes: 8
        })
    );
    assert!(matches!(
        h.on_tx(0, 0, tb(1), f64::NAN),
        Err(HarqError::InvalidSinr { .. })
    ));
    assert!(matches!(
        h.on_tx(0, 0, tb(1), -1.0),
        Err(HarqError::InvalidSinr { .. })
    ));
    assert_eq!(
        h.on_feedback(4, 0, true),
        Err(HarqError::UnexpectedFeedback { process: 0, tti: 4 })
    );
    h.on_tx(0, 0, tb(1), 1.0).unwrap();
    assert!(matches!(
        h.on_tx(1, 0, tb(2), 1.0),
        Err(HarqError::ProcessBusy { .. })
    ));
    h.on_feedback(4, 0, false).unwrap();
    assert_eq!(
        h.on_tx(8, 0, tb(2), 1.0),
        Err(HarqError::WrongTransportBlock {
            process: 0,
            expected: 1,
            got: 2
        })
    );
    assert_eq!(
        *h.stats(),
        HarqStats {
            transmissions: 1,
            retransmissions: 0,
            acks: 0,
            nacks: 1,
            residual_failures: 0
        }
    );
    assert_eq!(h.state(0), Some(HarqProcessState::PendingRetx));
}

#[test]
fn invalid_configurations_name_the_key() {
    let base = HarqConfig::default();
    let cases = [
        (
            HarqConfig {
                n_processes: 0,
                ..base
            },
            "n_processes",
        ),
        (
            HarqConfig {
                n_processes: 17,
                ..base
            },
            "n_processes",
        ),
        (
            HarqConfig {
                feedback_delay_tti: 0,
                ..base
            },
            "feedback_delay_tti",
        ),
        (HarqConfig { rtt_tti: 3, ..base }, "rtt_tti"),
        (
            HarqConfig {
                max_transmissions: 0,
                ..base
            },
            "max_transmissions",
        ),
    ];
    for (cfg, key) in cases {
        match HarqEntity::new(cfg) {
            Err(HarqError::InvalidConfig { key: k, .. }) => assert_eq!(k, key),
            other => panic!("{key}: {other:?}"),
        }
    }
    let msg = HarqConfig { rtt_tti: 3, ..base }
        .validate()
        .unwrap_err()
        .to_string();
    assert_eq!(
        msg,
        "harq.rtt_tti: 3 is invalid; expected at least feedback_delay_tti"
    );
}

/// The claimed processes and the due feedback, which cannot fail, do what the checked calls
/// do: two entities driven TTI by TTI, one each way, with the same decoding outcomes.
#[test]
fn claims_and_due_feedback_follow_the_checked_calls() {
    let cfg = HarqConfig {
        n_processes: 4,
        max_transmissions: 3,
        ..HarqConfig::default()
    };
    let (mut checked, mut claimed) = (HarqEntity::new(cfg).unwrap(), HarqEntity::new(cfg).unwrap());
    let mut rng = RngStream::new(7, 0, "mac/harq/claims");
    let mut decoded = [false; 4];
    let mut next_id = 0;
    for tti in 0..2_000u64 {
        let due: Vec<u8> = checked.feedback_due(tti).collect();
        let mut outcomes = Vec::new();
        for &p in &due {
            outcomes.push((
                p,
                checked
                    .on_feedback(tti, p, decoded[usize::from(p)])
                    .unwrap(),
            ));
        }
        let mut claimed_outcomes = Vec::new();
        let n = claimed.apply_feedback_due(
            tti,
            |p| decoded[usize::from(p)],
            |p, o| claimed_outcomes.push((p, o)),
        );
        assert_eq!((n, &claimed_outcomes), (due.len(), &outcomes), "TTI {tti}");
        let sinr = 0.5 + rng.next_f64();
        if let Some(r) = checked.pending_retx(tti) {
            let want = checked.on_tx(tti, r.process, r.tb, sinr).unwrap();
            let slot = claimed.claim_retx(tti).unwrap();
            assert_eq!(slot.due(), r);
            assert_eq!(slot.transmit(sinr), want);
            decoded[usize::from(r.process)] = rng.next_f64() < 0.5;
        } else if let Some(p) = checked.free_process(tti) {
            next_id += 1;
            let want = checked.on_tx(tti, p, tb(next_id), sinr).unwrap();
            let slot = claimed.claim_free_process(tti).unwrap();
            assert_eq!(slot.process(), p);
            assert_eq!(slot.transmit(tb(next_id), sinr), want);
            decoded[usize::from(p)] = rng.next_f64() < 0.5;
        } else {
            assert!(claimed.claim_free_process(tti).is_none() && claimed.claim_retx(tti).is_none());
        }
        assert_eq!(checked.stats(), claimed.stats());
    }
    assert!(checked.stats().residual_failures > 0 && checked.stats().acks > 0);
}

#[test]
fn reset_flushes_and_returns_blocks_in_flight() {
    let mut h = entity();
    h.on_tx(0, 0, tb(1), 1.0).unwrap();
    h.on_tx(1, 1, tb(2), 1.0).unwrap();
    h.on_feedback(4, 0, false).unwrap();
    assert_eq!(h.reset(), vec![tb(1), tb(2)]);
    assert_eq!(h.in_flight(), 0);
    assert_eq!(h.free_process(2), Some(0));
    assert_eq!(h.pending_retx(100), None);
}

/// Drives one full-buffer UE for `n_blocks` transport blocks, each transmission failing
/// independently with probability `bler`; returns (residual failures, transmissions).
fn monte_carlo(bler: f64, max_transmissions: u8, n_blocks: u64, rng: &mut RngStream) -> (u64, u64) {
    let cfg = HarqConfig {
        max_transmissions,
        ..HarqConfig::default()
    };
    let mut h = HarqEntity::new(cfg).unwrap();
    let (mut next_id, mut done, mut residual) = (0u64, 0u64, 0u64);
    let mut t = 0u64;
    while done < n_blocks {
        let due: Vec<u8> = h.feedback_due(t).collect();
        for p in due {
            let ok = !rng.bernoulli(bler);
            match h.on_feedback(t, p, ok).unwrap() {
                FeedbackOutcome::Acked { .. } => done += 1,
                FeedbackOutcome::ResidualFailure { .. } => {
                    done += 1;
                    residual += 1;
                }
                FeedbackOutcome::RetxPending { .. } => {}
            }
        }
        if let Some(r) = h.pending_retx(t) {
            h.on_tx(t, r.process, r.tb, 1.0).unwrap();
        } else if next_id < n_blocks {
            if let Some(p) = h.free_process(t) {
                h.on_tx(t, p, tb(next_id), 1.0).unwrap();
                next_id += 1;
            }
        }
        t += 1;
    }
    assert_eq!(h.stats().residual_failures, residual);
    (residual, h.stats().transmissions)
}

#[test]
fn residual_bler_is_b_to_the_max_transmissions() {
    let mut rng = RngStream::new(1, 0, "test/harq/monte_carlo");
    for (b, max_tx) in [(0.3f64, 4u8), (0.1, 2), (0.5, 3)] {
        let n = 200_000u64;
        let (residual, transmissions) = monte_carlo(b, max_tx, n, &mut rng);
        let p = b.powi(i32::from(max_tx));
        let measured = residual as f64 / n as f64;
        // Binomial standard deviation; 4 sigma keeps a false failure below 1e-4.
        let sigma = (p * (1.0 - p) / n as f64).sqrt();
        // Mean transmissions per block: 1 + b + ... + b^(maxTx − 1).
        let mean_tx = (1.0 - p) / (1.0 - b);
        let measured_tx = transmissions as f64 / n as f64;
        eprintln!(
            "b = {b}, maxTx = {max_tx}: residual BLER {measured:.6} (expected {p:.6}, sigma \
             {sigma:.6}); transmissions per block {measured_tx:.4} (expected {mean_tx:.4})"
        );
        assert!((measured - p).abs() < 4.0 * sigma, "{measured} vs {p}");
        assert!(
            (measured_tx - mean_tx).abs() < 0.01,
            "{measured_tx} vs {mean_tx}"
        );
    }
}
