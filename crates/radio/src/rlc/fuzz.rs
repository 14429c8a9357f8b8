//! Model-based fuzzing of an RLC AM pair (3GPP TS 36.322) through a "MAC" that loses,
//! reorders (random delay), duplicates and truncates PDUs in both directions, with random grant
//! sizes, SN lengths, polling and status-prohibit settings.
//!
//! Truncation keeps PDUs well formed, as a receiver could meet them: an AMD PDU (segment) loses
//! the tail of its data field and becomes an AMD PDU segment with the same SO and LSF = 0
//! (§6.2.1.5); a STATUS PDU loses its last NACKs and its ACK_SN becomes the first NACK_SN left
//! out, as §5.2.3 builds a STATUS PDU that does not fit its grant.
//!
//! Checked after every TTI:
//!
//! * delivery: SDUs reach the upper layer exactly once and in order; with unlimited
//!   retransmissions, all of them, and the entities end idle;
//! * transmitting side (§7.1): VT(A) ≤ VT(S) ≤ VT(MS) = VT(A) + AM_Window_Size, and VT(A)
//!   never moves back or past VT(S);
//! * receiving side (§7.1): VR(R) ≤ VR(MS) ≤ VR(H) ≤ VR(MR) = VR(R) + AM_Window_Size, VR(R)
//!   never moves back, VT(A) ≤ VR(R) ≤ VT(S) (nothing is received that was not sent, nothing
//!   acknowledged that was not received);
//! * every PDU fits its grant and is at least one byte (no zero-progress pull loop);
//! * no progress-free loops: at most `MAX_IDLE_TTIS` TTIs without a delivery or a VT(A)
//!   change while data is outstanding, and the run ends within the TTI limit.
//!
//! `CELLTCP_FUZZ_CASES=N` sets the number of cases (docs/reliability.md).

use celltcp_engine::{RngStream, SimDuration, SimTime};
use proptest::prelude::*;

use super::am_pdu::{AmdPdu, SegmentHeader};
use super::testkit::{sdu, InFlight};
use super::*;

/// TTIs (ms) allowed without a delivery or an advance of VT(A) while data is outstanding.
const MAX_IDLE_TTIS: u64 = 120_000;
/// TTIs a case may take.
const MAX_TTIS: u64 = 900_000;

fn fuzz_cases(default: u32) -> u32 {
    std::env::var("CELLTCP_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[derive(Clone, Copy, Debug)]
struct Faults {
    loss: f64,
    duplicate: f64,
    truncate: f64,
    max_delay_ms: u64,
}

fn faults() -> impl Strategy<Value = Faults> {
    (
        prop_oneof![Just(0.0), 0.0f64..0.35],
        prop_oneof![Just(0.0), 0.0f64..0.15],
        prop_oneof![Just(0.0), 0.0f64..0.2],
        prop_oneof![Just(1u64), 1u64..12, 1u64..80],
    )
        .prop_map(|(loss, duplicate, truncate, max_delay_ms)| Faults {
            loss,
            duplicate,
            truncate,
            max_delay_ms,
        })
}

#[derive(Clone, Debug)]
struct Case {
    seed: u64,
    sizes: Vec<u32>,
    down: Faults,
    up: Faults,
    max_grant: u32,
    sn16: bool,
    status_prohibit_ms: u64,
    poll_pdu: Option<u32>,
    poll_byte: Option<u64>,
    /// SDUs offered per TTI at most.
    burst: usize,
}

fn case() -> impl Strategy<Value = Case> {
    (
        any::<u64>(),
        prop::collection::vec(prop_oneof![1u32..60, 28u32..=1500, 1400u32..9000], 1..400),
        faults(),
        faults(),
        prop_oneof![Just(30u32), Just(300), Just(3000), Just(20_000)],
        any::<bool>(),
        prop_oneof![Just(0u64), Just(5), Just(40)],
        prop_oneof![Just(None), Just(Some(1u32)), Just(Some(16))],
        prop_oneof![Just(None), Just(Some(2_000u64)), Just(Some(25_000))],
        prop_oneof![Just(1usize), Just(3), Just(50)],
    )
        .prop_map(
            |(
                seed,
                sizes,
                down,
                up,
                max_grant,
                sn16,
                status_prohibit_ms,
                poll_pdu,
                poll_byte,
                burst,
            )| Case {
                seed,
                sizes,
                down,
                up,
                max_grant,
                sn16,
                status_prohibit_ms,
                poll_pdu,
                poll_byte,
                burst,
            },
        )
}

/// One direction of the MAC: items delivered at their time, ties in the order sent.
struct Link<T> {
    in_flight: InFlight<T>,
    faults: Faults,
}

impl<T: Clone> Link<T> {
    fn new(faults: Faults) -> Self {
        Link {
            in_flight: InFlight::new(),
            faults,
        }
    }

    fn send(&mut self, now: SimTime, item: T, rng: &mut RngStream) {
        if rng.bernoulli(self.faults.loss) {
            return;
        }
        let copies = 1 + rng.bernoulli(self.faults.duplicate) as usize;
        for _ in 0..copies {
            let delay = 1 + rng.below(self.faults.max_delay_ms);
            self.in_flight.push(now, delay, item.clone());
        }
    }

    fn arrivals(&mut self, now: SimTime) -> Vec<T> {
        self.in_flight.arrivals(now)
    }
}

/// Cuts the tail of an AMD PDU (segment): the same SO, a shorter data field, LSF = 0.
fn truncate_amd(mut pdu: AmdPdu<Packet>, rng: &mut RngStream) -> AmdPdu<Packet> {
    let bytes = pdu.data.bytes();
    if bytes < 2 {
        return pdu;
    }
    let keep = 1 + rng.below(bytes as u64 - 1) as u32;
    let so = pdu.segment.map_or(0, |s| s.so);
    pdu.data = pdu.data.slice(0, keep);
    pdu.segment = Some(SegmentHeader { so, lsf: false });
    pdu.size_bytes = pdu.header_bytes + pdu.data.bytes();
    pdu
}

/// Drops the last NACKs of a STATUS PDU; ACK_SN becomes the first NACK_SN left out (§5.2.3).
fn truncate_status(mut status: StatusPdu, rng: &mut RngStream) -> StatusPdu {
    if status.nacks.is_empty() {
        return status;
    }
    let keep = rng.below(status.nacks.len() as u64) as usize;
    let ack_sn = status.nacks[keep].sn;
    status.ack_sn = ack_sn;
    // NACKs of byte ranges of the same SN as the new ACK_SN go too (NACK_SN < ACK_SN).
    status.nacks.truncate(keep);
    status.nacks.retain(|n| n.sn != ack_sn);
    status
}

struct Outcome {
    delivered: Vec<u64>,
    finished: bool,
}

/// (b − a) mod 2^bits.
fn off(a: u32, b: u32, bits: u8) -> u32 {
    b.wrapping_sub(a) & ((1u32 << bits) - 1)
}

fn run(case: &Case, c: RlcAmConfig) -> Result<Outcome, TestCaseError> {
    let mut tx: RlcAmTx = RlcAmTx::new(c).unwrap();
    let mut rx: RlcAmRx = RlcAmRx::new(c).unwrap();
    let bits = c.sn_bits;
    let window = 1u32 << (bits - 1);
    let mut rng = RngStream::new(case.seed, 0, "tests/rlc-fuzz");
    let mut dl: Link<RlcPdu> = Link::new(case.down);
    let mut ul: Link<StatusPdu> = Link::new(case.up);
    let mut delivered: Vec<u64> = Vec::new();
    let mut written = 0usize;
    let min_grant = match c.pdu_mode {
        PduMode::Flexible => 20,
        PduMode::Fixed { bytes } => bytes,
    };
    let unlimited = c.max_retx_threshold.is_none();
    let (mut vt_a, mut vr_r) = (tx.vt_a(), rx.vr_r());
    let mut idle = 0u64;
    for tti in 0..MAX_TTIS {
        let now = SimTime::from_ns(tti * 1_000_000);
        for _ in 0..case.burst {
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
        let mut pulls = 0;
        while let Some(pdu) = tx.pull_pdu(now, grant) {
            prop_assert!(
                pdu.size_bytes() >= 1 && pdu.size_bytes() <= grant,
                "PDU of {} bytes in a {grant}-byte grant",
                pdu.size_bytes()
            );
            grant -= pdu.size_bytes();
            pulls += 1;
            prop_assert!(pulls <= 20_000, "pull_pdu without end");
            let pdu = match pdu {
                RlcPdu::Data(d)
                    if c.pdu_mode == PduMode::Flexible && rng.bernoulli(case.down.truncate) =>
                {
                    RlcPdu::Data(truncate_amd(d, &mut rng))
                }
                other => other,
            };
            dl.send(now, pdu, &mut rng);
        }
        let ul_grant = min_grant + rng.below(3000 - min_grant as u64 + 1) as u32;
        if let Some(status) = rx.pull_status(now, ul_grant) {
            prop_assert!(status.size_bytes() <= ul_grant);
            let status = if rng.bernoulli(case.up.truncate) {
                truncate_status(status, &mut rng)
            } else {
                status
            };
            ul.send(now, status, &mut rng);
        }
        let before = delivered.len();
        while let Some(p) = rx.take_sdu() {
            // Exactly once, in order: each SDU's id is above the last one delivered.
            if let Some(&last) = delivered.last() {
                prop_assert!(p.uid > last, "SDU {} delivered after {}", p.uid, last);
            }
            if unlimited {
                prop_assert_eq!(p.uid, delivered.len() as u64, "an SDU skipped");
            }
            delivered.push(p.uid);
        }
        // Transmitting side: VT(A) ≤ VT(S) ≤ VT(A) + AM_Window_Size; VT(A) moves forward only,
        // and not past the previous VT(S).
        let outstanding = off(tx.vt_a(), tx.vt_s(), bits);
        prop_assert!(
            outstanding <= window,
            "VT(S) {} beyond VT(MS) = VT(A) {} + {window}",
            tx.vt_s(),
            tx.vt_a()
        );
        prop_assert!(
            off(vt_a, tx.vt_a(), bits) <= off(vt_a, tx.vt_s(), bits),
            "VT(A) moved from {} to {} (VT(S) {})",
            vt_a,
            tx.vt_a(),
            tx.vt_s()
        );
        // Receiving side.
        let (r, ms, h) = (rx.vr_r(), rx.vr_ms(), rx.vr_h());
        prop_assert!(
            off(r, ms, bits) <= off(r, h, bits) && off(r, h, bits) <= window,
            "VR(R) {r} ≤ VR(MS) {ms} ≤ VR(H) {h} ≤ VR(R) + {window} fails"
        );
        prop_assert!(
            off(vr_r, r, bits) <= window,
            "VR(R) moved back from {vr_r} to {r}"
        );
        if unlimited {
            prop_assert!(
                off(tx.vt_a(), r, bits) <= off(tx.vt_a(), tx.vt_s(), bits),
                "VR(R) {r} outside [VT(A) {}, VT(S) {}]",
                tx.vt_a(),
                tx.vt_s()
            );
        }
        let progress = delivered.len() > before || tx.vt_a() != vt_a || written < case.sizes.len();
        vt_a = tx.vt_a();
        vr_r = r;
        if progress || tx.is_idle() {
            idle = 0;
        } else {
            idle += 1;
            prop_assert!(
                idle < MAX_IDLE_TTIS,
                "{idle} TTIs without progress (VT(A) {}, VT(S) {}, VR(R) {r})",
                tx.vt_a(),
                tx.vt_s()
            );
        }
        if written == case.sizes.len()
            && tx.is_idle()
            && dl.in_flight.is_empty()
            && ul.in_flight.is_empty()
        {
            return Ok(Outcome {
                delivered,
                finished: true,
            });
        }
    }
    Ok(Outcome {
        delivered,
        finished: false,
    })
}

fn config(case: &Case) -> RlcAmConfig {
    let base = if case.sn16 {
        RlcAmConfig {
            sn_bits: 16,
            header: HeaderModel::lte_am(16),
            ..RlcAmConfig::lte_default()
        }
    } else {
        RlcAmConfig::lte_default()
    };
    RlcAmConfig {
        t_status_prohibit: SimDuration::from_ms(case.status_prohibit_ms),
        poll_pdu: case.poll_pdu,
        poll_byte: case.poll_byte,
        ..base
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(fuzz_cases(16)))]

    /// Unlimited retransmissions: every SDU once, in order, and the invariants of the header.
    #[test]
    fn fuzz_am_pair(case in case()) {
        let c = RlcAmConfig { max_retx_threshold: None, ..config(&case) };
        let out = run(&case, c)?;
        prop_assert!(out.finished, "not finished: {} of {} SDUs delivered", out.delivered.len(), case.sizes.len());
        prop_assert_eq!(out.delivered.len(), case.sizes.len());
    }

    /// maxRetxThreshold with discard (MRW): what arrives is in order and unique, the window
    /// invariants hold and the run ends.
    #[test]
    fn fuzz_am_pair_with_discard(case in case(), max_retx in 0u32..4) {
        let c = RlcAmConfig {
            max_retx_threshold: Some(max_retx),
            on_max_retx: MaxRetxAction::Discard,
            ..config(&case)
        };
        let out = run(&case, c)?;
        prop_assert!(out.finished, "not finished: {} of {} SDUs delivered", out.delivered.len(), case.sizes.len());
    }
}
