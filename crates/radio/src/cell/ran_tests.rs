//! Tests of the cell in a radio access network (`handover.rs`): UEs not connected, detach with
//! the SDUs to forward, forwarding and attach at a target, RSRP and interference coupling.

use celltcp_engine::{RngStream, SimDuration, SimTime};
use celltcp_net::medium::{Medium, MediumOutput};
use celltcp_net::packet::NodeId;
use celltcp_net::queue::DropCause;
use celltcp_net::trace::Traces;

use crate::channel::{noise_power_dbm, LogDistance, PathLossModel, Position};
use crate::mac::HarqConfig;
use crate::pdcp::PdcpPdu;
use crate::phy::{Amc, BlerModel, Mcs};
use crate::rlc::testkit::sdu;
use crate::rlc::{BufferLimit, RlcAmConfig, RlcUmConfig};

use super::*;

const ENB: NodeId = NodeId(0);
const MCS: Mcs = match Mcs::new(16) {
    Ok(m) => m,
    Err(_) => panic!("16 is an MCS"),
};

fn ms(x: u64) -> SimTime {
    SimTime::from_ns(x * 1_000_000)
}

/// A cell whose UEs at ≤ 1 m see `sinr_db` (log-distance path loss clamped at its reference
/// distance; no shadowing, fading or interference).
fn cell_at_sinr(name: &str, sinr_db: f64) -> LteCellConfig {
    let cfg = LteCellConfig::lte_default(name, ENB);
    let noise = noise_power_dbm(cfg.n_prb, cfg.keys.noise_figure_db).unwrap();
    let pl0 = cfg.keys.tx_power_dbm - noise - sinr_db;
    LteCellConfig {
        pathloss: PathLossModel::LogDistance(LogDistance::new(pl0, 1.0, 3.0).unwrap()),
        ..cfg
    }
}

/// A cell at MCS 16 with block error rate `bler` per transmission and no HARQ combining, so
/// that HARQ residual failures exercise RLC ARQ.
fn lossy_cell(name: &str, bler: f64, rlc: RlcModeConfig) -> LteCellConfig {
    let m = BlerModel::default();
    // BLER = 1/(1 + 9·e^((s − s10)/w)), w = decade/ln 11.
    let w = m.decade_db() / 11f64.ln();
    let sinr = m.sinr10_db(MCS) + w * ((1.0 / bler - 1.0) / 9.0).ln();
    LteCellConfig {
        fixed_mcs: Some(MCS),
        harq: HarqConfig {
            max_transmissions: 2,
            ..HarqConfig::default()
        },
        rlc,
        keys: CellRadioConfig {
            harq_combining: HarqCombining::None,
            ..cell_at_sinr(name, sinr).keys
        },
        ..cell_at_sinr(name, sinr)
    }
}

fn am_unlimited() -> RlcModeConfig {
    RlcModeConfig::Am(RlcAmConfig {
        max_retx_threshold: None,
        tx_buffer: BufferLimit::Unlimited,
        ..default_rlc_am()
    })
}

fn ue(node: NodeId) -> UeConfig {
    UeConfig {
        node,
        position: Position::new(0.5, 0.0),
        speed_mps: 0.0,
    }
}

/// Drives one cell: runs its deadlines, collects what it delivers and drops.
struct Driver {
    cell: LteCell,
    now: SimTime,
    out: MediumOutput,
    rng: RngStream,
    traces: Traces,
    /// SDUs taken with `take_delivered_sdus`, in order.
    sdus: Vec<(NodeId, BearerSdu)>,
    dropped: Vec<(u64, DropCause)>,
    uplink_delivered: usize,
    next_uid: u64,
}

impl Driver {
    fn new(cell: LteCell) -> Self {
        Driver {
            cell,
            now: SimTime::ZERO,
            out: MediumOutput::default(),
            rng: RngStream::new(0, 0, "unused"),
            traces: Traces::default(),
            sdus: Vec::new(),
            dropped: Vec::new(),
            uplink_delivered: 0,
            next_uid: 1,
        }
    }

    fn collect(&mut self) {
        self.cell.take_delivered_sdus(&mut self.sdus);
        // Uplink packets reach the eNB node; no downlink packet reaches a UE node.
        for (node, _) in self.out.delivered.drain(..) {
            assert_eq!(node, ENB, "RAN mode hands downlink SDUs over instead");
            self.uplink_delivered += 1;
        }
        for (p, c) in self.out.dropped.drain(..) {
            self.dropped.push((p.uid, c));
        }
    }

    fn run_until(&mut self, t: SimTime) {
        while let Some(d) = self.cell.poll_timeout() {
            if d > t {
                break;
            }
            assert!(d >= self.now);
            self.now = d;
            self.cell
                .on_timer(d, &mut self.rng, &mut self.traces, &mut self.out);
            self.collect();
        }
        self.now = self.now.max(t);
    }

    /// Sends a packet of `bytes` from `from` to `to` at `t`; returns its uid.
    fn send(&mut self, t: SimTime, from: NodeId, to: NodeId, bytes: u32) -> u64 {
        self.run_until(t);
        let uid = self.next_uid;
        self.next_uid += 1;
        self.cell.send(t, from, to, sdu(uid, bytes), &mut self.out);
        self.collect();
        uid
    }

    /// Downlink packets of 1200 bytes to `node` every `gap` in [from, to), with a 60-byte
    /// uplink packet (a TCP ACK) every other one; returns the downlink uids.
    fn bulk(&mut self, node: NodeId, from: SimTime, to: SimTime, gap: SimDuration) -> Vec<u64> {
        let mut uids = Vec::new();
        let mut t = from;
        while t < to {
            uids.push(self.send(t, ENB, node, 1200));
            if uids.len() % 2 == 0 {
                self.send(t, node, ENB, 60);
            }
            t += gap;
        }
        uids
    }

    fn counts_to(&self, node: NodeId) -> Vec<u32> {
        self.sdus
            .iter()
            .filter(|(n, _)| *n == node)
            .map(|(_, s)| s.count)
            .collect()
    }
}

fn counts(sdus: &[BearerSdu]) -> Vec<u32> {
    sdus.iter().map(|s| s.count).collect()
}

fn forwarded(count: u32, uid: u64) -> BearerSdu {
    PdcpPdu {
        count,
        sdu: StampedPacket {
            packet: sdu(uid, 1200),
            arrived: SimTime::ZERO,
        },
        header_bytes: 2,
        sn_bits: 12,
    }
}

mod not_connected {
    use super::*;

    #[test]
    fn a_ue_not_connected_is_never_served_and_after_attach_counts_continue() {
        let cfg = LteCellConfig {
            trace_series: true,
            ..cell_at_sinr("t", 20.0)
        };
        let cell = LteCell::new_in_ran(
            cfg,
            vec![ue(NodeId(1)), ue(NodeId(2))],
            &[true, false],
            1,
            0,
        )
        .unwrap();
        let mut d = Driver::new(cell);
        assert_eq!(d.cell.is_connected(NodeId(1)), Ok(true));
        assert_eq!(d.cell.is_connected(NodeId(2)), Ok(false));
        assert_eq!(
            d.cell.is_connected(NodeId(9)),
            Err(CellError::UnknownUe { node: NodeId(9) })
        );
        // Both directions to UE 2 are dropped; data forwarded to it waits without a TTI.
        let down = d.send(ms(1), ENB, NodeId(2), 1200);
        let up = d.send(ms(1), NodeId(2), ENB, 60);
        assert_eq!(
            d.dropped,
            vec![(down, DropCause::NoRoute), (up, DropCause::NoRoute)]
        );
        for k in 0..3 {
            d.cell
                .write_forwarded(ms(1), NodeId(2), forwarded(40 + k, 100 + u64::from(k)))
                .unwrap();
        }
        assert!(d.cell.ue_buffer_bytes(NodeId(2)).unwrap() > 3 * 1200);
        assert_eq!(
            d.cell.poll_timeout(),
            None,
            "nothing to do for a UE not connected"
        );
        // UE 1 is served meanwhile; no TTI row ever names UE 2.
        d.bulk(NodeId(1), ms(2), ms(50), SimDuration::from_ms(5));
        d.run_until(ms(200));
        let ttis_before = d.cell.ttis_processed();
        assert!(ttis_before > 0);
        assert!(d.cell.trace().unwrap().ue.iter().all(|&u| u == NodeId(1)));
        assert_eq!(d.counts_to(NodeId(1)), (0..10).collect::<Vec<_>>());
        assert_eq!(d.cell.poll_timeout(), None);
        assert_eq!(d.cell.ue_reports(d.now).len(), 1, "UE 2 never connected");
        // Attach at 200.5 ms: served from TTI 201, COUNTs continue from 43.
        d.now = SimTime::from_ns(200_500_000);
        d.cell.attach_ue(d.now, NodeId(2), 43).unwrap();
        assert_eq!(d.cell.poll_timeout(), Some(ms(201)));
        for _ in 0..4 {
            let t = d.now;
            d.send(t, ENB, NodeId(2), 1200);
        }
        d.run_until(ms(400));
        assert_eq!(d.counts_to(NodeId(2)), (40..47).collect::<Vec<_>>());
        let first_row = d
            .cell
            .trace()
            .unwrap()
            .ue
            .iter()
            .position(|&u| u == NodeId(2))
            .unwrap();
        assert_eq!(d.cell.trace().unwrap().time_ns[first_row], ms(201).as_ns());
        assert_eq!(d.cell.ue_reports(d.now).len(), 2);
        assert_eq!(
            d.cell.attach_ue(d.now, NodeId(2), 0),
            Err(CellError::AlreadyConnected { node: NodeId(2) })
        );
    }

    #[test]
    fn reports_and_samples_leave_out_ues_never_connected() {
        let cfg = cell_at_sinr("r", 20.0);
        let cell = LteCell::new_in_ran(
            cfg,
            vec![ue(NodeId(1)), ue(NodeId(2)), ue(NodeId(3))],
            &[false, true, false],
            1,
            0,
        )
        .unwrap();
        let mut d = Driver::new(cell);
        let keys = |c: &LteCell, now| -> Vec<String> {
            let mut v = Vec::new();
            c.sample(now, &mut v);
            v.into_iter().map(|(k, _)| k).collect()
        };
        let report = d.cell.report(ms(0));
        assert!(report.iter().any(|(k, _)| k.starts_with("ue.2.")));
        assert!(!report
            .iter()
            .any(|(k, _)| k.starts_with("ue.1.") || k.starts_with("ue.3.")));
        assert!(keys(&d.cell, ms(0)).iter().all(|k| !k.starts_with("ue.1.")));
        d.cell.attach_ue(ms(3), NodeId(1), 0).unwrap();
        d.send(ms(3), ENB, NodeId(1), 500);
        d.run_until(ms(100));
        d.cell.detach_ue(ms(100), NodeId(1)).unwrap();
        // Detached, still reported with what the cell did for it.
        let r = d.cell.ue_report(NodeId(1), ms(100)).unwrap();
        assert_eq!(r.sdus_delivered, 1);
        assert_eq!(
            d.cell
                .ue_reports(ms(100))
                .iter()
                .map(|r| r.node)
                .collect::<Vec<_>>(),
            vec![NodeId(1), NodeId(2)]
        );
        assert!(keys(&d.cell, ms(100))
            .iter()
            .any(|k| k.starts_with("ue.1.")));
    }

    #[test]
    fn wrong_calls_are_error_values() {
        let cfg = cell_at_sinr("e", 20.0);
        assert!(matches!(
            LteCell::new_in_ran(
                cfg.clone(),
                vec![ue(NodeId(1)), ue(NodeId(2))],
                &[true],
                1,
                0
            ),
            Err(CellError::InvalidConfig {
                key: "connected",
                ..
            })
        ));
        let mut cell = LteCell::new_in_ran(cfg, vec![ue(NodeId(1))], &[false], 1, 0).unwrap();
        assert_eq!(
            cell.detach_ue(ms(0), NodeId(1)).unwrap_err(),
            CellError::NotConnected { node: NodeId(1) }
        );
        assert_eq!(
            cell.detach_ue(ms(0), NodeId(7)).unwrap_err(),
            CellError::UnknownUe { node: NodeId(7) }
        );
        assert_eq!(
            cell.attach_ue(ms(0), NodeId(7), 0),
            Err(CellError::UnknownUe { node: NodeId(7) })
        );
        assert_eq!(
            cell.write_forwarded(ms(0), NodeId(7), forwarded(0, 1)),
            Err(CellError::UnknownUe { node: NodeId(7) })
        );
    }
}

mod detach_and_forward {
    use super::*;

    /// One bulk transfer over a lossy cell, detached at `detach_at`.
    struct Detach {
        sent: u32,
        /// COUNTs delivered by RLC before the detach, and at it (re-establishment).
        before: Vec<u32>,
        at_detach: Vec<u32>,
        unconfirmed: Vec<u32>,
        next_dl_count: u32,
        uplink: usize,
    }

    fn detach_during_bulk(seed: u64, detach_at: SimTime, rlc: RlcModeConfig) -> Detach {
        let cfg = lossy_cell("src", 0.3, rlc);
        let cell = LteCell::new_in_ran(cfg, vec![ue(NodeId(1))], &[true], seed, 0).unwrap();
        let mut d = Driver::new(cell);
        // 1200-byte packets every 2 ms (4.8 Mbit/s).
        let sent = d
            .bulk(NodeId(1), ms(0), detach_at, SimDuration::from_ms(2))
            .len() as u32;
        d.run_until(detach_at);
        let before = d.counts_to(NodeId(1));
        let det = d.cell.detach_ue(detach_at, NodeId(1)).unwrap();
        // Nothing is left: no deadline, no buffer, no TTI.
        assert_eq!(d.cell.poll_timeout(), None);
        assert_eq!(d.cell.ue_buffer_bytes(NodeId(1)), Ok(0));
        assert_eq!(d.cell.is_connected(NodeId(1)), Ok(false));
        let mut none = Vec::new();
        d.cell.take_delivered_sdus(&mut none);
        assert!(none.is_empty(), "the detach took the UE's pending SDUs");
        let r = d.cell.ue_report(NodeId(1), detach_at).unwrap();
        assert_eq!(
            r.sdus_delivered as usize,
            before.len() + det.delivered.len(),
            "counters kept"
        );
        Detach {
            sent,
            before,
            at_detach: counts(&det.delivered),
            unconfirmed: counts(&det.unconfirmed),
            next_dl_count: det.next_dl_count,
            uplink: det.uplink.len(),
        }
    }

    #[test]
    fn over_am_unconfirmed_and_delivered_cover_every_sdu_in_count_order() {
        let mut overlaps = Vec::new();
        let (mut uplink, mut above_hole) = (0, 0);
        for seed in 1..=12u64 {
            let at = SimTime::from_ns(300_000_000 + seed * 37_300_000);
            let r = detach_during_bulk(seed, at, am_unlimited());
            let n = r.sent;
            assert_eq!(r.next_dl_count, n);
            // Before the detach RLC AM delivers in order and exactly once: a prefix.
            let b = r.before.len() as u32;
            assert_eq!(r.before, (0..b).collect::<Vec<_>>());
            // Re-establishment delivers whatever is complete, above holes too (36.322 §5.4),
            // in ascending SN order, nothing twice.
            assert!(r.at_detach.windows(2).all(|w| w[0] < w[1]));
            assert!(r.at_detach.iter().all(|&c| c >= b && c < n));
            // The unconfirmed SDUs are consecutive COUNTs up to the last one written, and
            // every COUNT below the first of them was delivered.
            let first = r.unconfirmed.first().copied().unwrap_or(n);
            assert_eq!(r.unconfirmed, (first..n).collect::<Vec<_>>(), "seed {seed}");
            let below: Vec<u32> = r.at_detach.iter().copied().filter(|&c| c < first).collect();
            assert_eq!(
                below,
                (b..first).collect::<Vec<_>>(),
                "seed {seed}: lost COUNTs"
            );
            // The future duplicates: delivered and forwarded.
            let dup = b.saturating_sub(first) as usize
                + r.at_detach.iter().filter(|&&c| c >= first).count();
            overlaps.push(dup);
            above_hole += usize::from(r.at_detach.windows(2).any(|w| w[1] > w[0] + 1));
            uplink += r.uplink;
        }
        eprintln!(
            "duplicates (delivered and unconfirmed) per detach: {overlaps:?}; detaches \
             delivering above a hole: {above_hole}/12"
        );
        // The duplicates are SDUs the UE received above VT(A), the oldest SN not acknowledged.
        // VT(A) lags behind a residual HARQ failure by at most about: two HARQ transmissions
        // (16 ms), t-Reordering (35 ms), the STATUS on the uplink (9 ms), the retransmission
        // with its HARQ (16 ms) and the wait for the next STATUS (a poll every 32 PDUs or
        // 25 kB: ~40 ms at this rate, plus 9 ms) — about 125 ms. Bound: the SDUs offered in
        // 160 ms (80 at one per 2 ms).
        assert!(overlaps.iter().all(|&o| o <= 80), "{overlaps:?}");
        assert!(overlaps.iter().any(|&o| o > 0), "{overlaps:?}");
        assert!(
            uplink > 0,
            "uplink packets queued at the detach go with the UE"
        );
    }

    #[test]
    fn over_um_only_sdus_not_entirely_transmitted_are_forwarded() {
        let um = RlcModeConfig::Um(RlcUmConfig::lte(10));
        for seed in 1..=4u64 {
            let at = SimTime::from_ns(200_000_000 + seed * 11_100_000);
            let r = detach_during_bulk(seed, at, um);
            let n = r.sent;
            let first = r.unconfirmed.first().copied().unwrap_or(n);
            assert_eq!(r.unconfirmed, (first..n).collect::<Vec<_>>());
            // UM loses what HARQ loses but never reorders or duplicates; an SDU delivered was
            // entirely transmitted, so it is not forwarded.
            let all: Vec<u32> = r.before.iter().chain(&r.at_detach).copied().collect();
            assert!(all.windows(2).all(|w| w[0] < w[1]), "seed {seed}");
            assert!(all.iter().all(|&c| c < first), "seed {seed}");
        }
    }

    #[test]
    fn a_handover_chain_delivers_every_count_after_pdcp_duplicate_discard() {
        let src_cfg = lossy_cell("src", 0.3, am_unlimited());
        let tgt_cfg = lossy_cell("tgt", 0.3, am_unlimited());
        let mut src =
            Driver::new(LteCell::new_in_ran(src_cfg, vec![ue(NodeId(1))], &[true], 5, 0).unwrap());
        let mut tgt =
            Driver::new(LteCell::new_in_ran(tgt_cfg, vec![ue(NodeId(1))], &[false], 5, 0).unwrap());
        let at = ms(413);
        let sent = src
            .bulk(NodeId(1), ms(0), at, SimDuration::from_ms(2))
            .len() as u32;
        src.run_until(at);
        let det = src.cell.detach_ue(at, NodeId(1)).unwrap();
        let mut got = src.counts_to(NodeId(1));
        got.extend(counts(&det.delivered));
        // Forwarded over X2 and queued before the UE arrives; attach 40 ms later.
        tgt.run_until(at);
        for pdu in &det.unconfirmed {
            tgt.cell.write_forwarded(at, NodeId(1), *pdu).unwrap();
        }
        tgt.run_until(at + SimDuration::from_ms(40));
        assert!(tgt.sdus.is_empty());
        let t = tgt.now;
        tgt.cell.attach_ue(t, NodeId(1), det.next_dl_count).unwrap();
        // New data after the path switch continues the numbering.
        let more = tgt.bulk(
            NodeId(1),
            t,
            t + SimDuration::from_ms(100),
            SimDuration::from_ms(2),
        );
        tgt.run_until(t + SimDuration::from_secs(2));
        let target_counts = tgt.counts_to(NodeId(1));
        let total = sent + more.len() as u32;
        // The target sends the forwarded SDUs first, then its own, in COUNT order.
        let first = det.unconfirmed[0].count;
        assert_eq!(target_counts, (first..total).collect::<Vec<_>>());
        // The UE's PDCP (36.323 §5.1.2.1.2) discards the COUNTs it already has.
        let mut have = std::collections::BTreeSet::new();
        let mut dups = 0;
        for c in got.into_iter().chain(target_counts) {
            if !have.insert(c) {
                dups += 1;
            }
        }
        assert!(have.into_iter().eq(0..total), "every COUNT arrives");
        eprintln!("handover chain: {total} SDUs, {dups} duplicates discarded by PDCP");
    }

    #[test]
    fn decoded_pdus_not_yet_handed_to_rlc_are_delivered_at_detach() {
        let cell = LteCell::new_in_ran(cell_at_sinr("d", 25.0), vec![ue(NodeId(1))], &[true], 1, 0)
            .unwrap();
        let mut d = Driver::new(cell);
        d.send(ms(0), ENB, NodeId(1), 1200);
        d.send(ms(0), ENB, NodeId(1), 1200);
        // Run TTI by TTI until a block has been decoded but not yet reached the UE's RLC (it
        // does at the next TTI boundary).
        while d.cell.ues[0].decoded.is_empty() {
            let t = d.cell.poll_timeout().unwrap();
            d.run_until(t);
        }
        assert!(d.sdus.is_empty());
        let t = d.now + SimDuration::from_us(500);
        let det = d.cell.detach_ue(t, NodeId(1)).unwrap();
        // TTI 0 ran when the second SDU arrived and carried the first alone. The first is
        // delivered by the UE's RLC but not acknowledged yet: it is forwarded as well.
        assert_eq!(counts(&det.delivered), vec![0]);
        assert_eq!(counts(&det.unconfirmed), vec![0, 1]);
        assert_eq!(det.next_dl_count, 2);
        let ue = &d.cell.ues[0];
        assert!(ue.decoded.is_empty() && ue.harq.in_flight() == 0);
        assert!(ue.harq_pdus.iter().all(Vec::is_empty));
        assert!(ue.tx.buffer_bytes() == 0 && ue.rx.poll_timeout().is_none());
    }

    #[test]
    fn forwarded_pdus_keep_their_count_and_a_full_buffer_refuses() {
        let cfg = LteCellConfig {
            rlc: RlcModeConfig::Am(RlcAmConfig {
                tx_buffer: BufferLimit::Sdus(3),
                ..default_rlc_am()
            }),
            ..cell_at_sinr("f", 20.0)
        };
        let cell = LteCell::new_in_ran(cfg, vec![ue(NodeId(1))], &[false], 1, 0).unwrap();
        let mut d = Driver::new(cell);
        for c in [7, 8, 9] {
            d.cell
                .write_forwarded(ms(0), NodeId(1), forwarded(c, u64::from(c)))
                .unwrap();
        }
        let err = d
            .cell
            .write_forwarded(ms(0), NodeId(1), forwarded(10, 10))
            .unwrap_err();
        assert!(
            matches!(
                err,
                CellError::SduRefused {
                    node: NodeId(1),
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(d.cell.ue_report(NodeId(1), ms(0)).unwrap().sdus_refused, 1);
        d.cell.attach_ue(ms(0), NodeId(1), 10).unwrap();
        d.run_until(ms(50));
        d.send(ms(50), ENB, NodeId(1), 1200);
        d.send(ms(50), ENB, NodeId(1), 1200);
        d.run_until(ms(200));
        assert_eq!(d.counts_to(NodeId(1)), vec![7, 8, 9, 10, 11]);
    }
}

mod measurement_and_interference {
    use super::*;

    /// Path loss 100 dB at the UE (log-distance clamped at 1 m).
    fn pl100() -> LteCellConfig {
        LteCellConfig {
            pathloss: PathLossModel::LogDistance(LogDistance::new(100.0, 1.0, 3.0).unwrap()),
            ..LteCellConfig::lte_default("m", ENB)
        }
    }

    #[test]
    fn rsrp_is_the_power_per_resource_element_minus_path_loss() {
        // 46 dBm over 12 × 50 = 600 subcarriers: 46 − 10·log10(600) = 18.2185 dBm per RE;
        // minus 100 dB: −81.7815 dBm, connected or not.
        let cell = LteCell::new_in_ran(
            pl100(),
            vec![ue(NodeId(1)), ue(NodeId(2))],
            &[true, false],
            1,
            0,
        )
        .unwrap();
        for node in [NodeId(1), NodeId(2)] {
            let rsrp = cell.ue_rsrp_dbm(node).unwrap();
            assert!((rsrp - (-81.781_512)).abs() < 1e-5, "{rsrp}");
        }
        assert_eq!((cell.n_prb(), cell.prbs_used()), (50, 0));
        // 6 PRBs and 3 dB of antenna gain: 46 − 10·log10(72) + 3 − 100 = −69.5733 dBm.
        let narrow = LteCellConfig {
            n_prb: 6,
            antenna_gain_db: 3.0,
            ..pl100()
        };
        let cell = LteCell::new(narrow, vec![ue(NodeId(1))], 1, 0).unwrap();
        assert!((cell.ue_rsrp_dbm(NodeId(1)).unwrap() - (-69.573_325)).abs() < 1e-5);
        assert_eq!(
            cell.ue_rsrp_dbm(NodeId(3)),
            Err(CellError::UnknownUe { node: NodeId(3) })
        );
    }

    #[test]
    fn interferer_loads_change_the_sinr_by_the_hand_computed_amount() {
        // An interferer received at exactly the noise power at full load: its transmit power
        // is N + 100 dB (same path loss). With shadowing on, its draw must not change.
        let noise = noise_power_dbm(50, 9.0).unwrap();
        let cfg = LteCellConfig {
            shadowing: Some((8.0, 50.0)),
            interferers: vec![Interferer {
                position: Position::new(0.0, 0.5),
                tx_power_dbm: noise + 100.0,
                load: 0.0,
            }],
            ..pl100()
        };
        let mut cell = LteCell::new_in_ran(
            cfg,
            vec![ue(NodeId(1)), ue(NodeId(2))],
            &[true, false],
            3,
            0,
        )
        .unwrap();
        let base: Vec<f64> = [NodeId(1), NodeId(2)]
            .map(|n| cell.ue_large_scale_sinr_db(n).unwrap())
            .to_vec();
        let rsrp = cell.ue_rsrp_dbm(NodeId(1)).unwrap();
        // SINR drop = 10·log10(1 + load): 3.0103 dB at load 1, 1.7609 dB at 0.5, 0 at 0.
        for (load, drop_db) in [(1.0, 3.010_300), (0.5, 1.760_913), (0.0, 0.0)] {
            cell.set_interferer_loads(&[load]).unwrap();
            for (k, n) in [NodeId(1), NodeId(2)].into_iter().enumerate() {
                let got = base[k] - cell.ue_large_scale_sinr_db(n).unwrap();
                assert!((got - drop_db).abs() < 1e-5, "load {load}: {got} dB");
            }
            assert_eq!(cell.config().interferers[0].load, load);
        }
        assert_eq!(
            cell.ue_rsrp_dbm(NodeId(1)).unwrap(),
            rsrp,
            "no new shadowing draw"
        );
        let e = cell.set_interferer_loads(&[1.5]).unwrap_err();
        assert!(e.to_string().contains("interferers.load"), "{e}");
        let e = cell.set_interferer_loads(&[0.5, 0.5]).unwrap_err();
        assert!(e.to_string().contains("2 loads for 1 interferers"), "{e}");
        assert_eq!(cell.config().interferers[0].load, 0.0, "refused: unchanged");
    }

    #[test]
    fn attach_uses_the_cqi_of_the_large_scale_sinr_until_the_first_report() {
        let cfg = LteCellConfig {
            cqi_period_tti: 5,
            cqi_delay_tti: 4,
            ..cell_at_sinr("c", 8.0)
        };
        let amc = Amc::new(cfg.bler.clone());
        let mut d =
            Driver::new(LteCell::new_in_ran(cfg, vec![ue(NodeId(1))], &[false], 1, 0).unwrap());
        // Move the UE far away before it attaches: the initial CQI follows its SINR now.
        d.cell
            .set_ue_position(NodeId(1), Position::new(3.0, 0.0))
            .unwrap();
        let sinr = d.cell.ue_large_scale_sinr_db(NodeId(1)).unwrap();
        d.cell.attach_ue(ms(7), NodeId(1), 0).unwrap();
        assert_eq!(d.cell.ue_cqi(NodeId(1)).unwrap(), amc.cqi_for_sinr(sinr));
        assert!(d.cell.ue_cqi(NodeId(1)).unwrap() < amc.cqi_for_sinr(8.0));
        d.send(ms(7), ENB, NodeId(1), 1200);
        d.run_until(ms(7));
        // Detach and move back close; the re-attach takes the new large-scale CQI at once.
        d.run_until(ms(30));
        d.cell.detach_ue(ms(30), NodeId(1)).unwrap();
        d.cell
            .set_ue_position(NodeId(1), Position::new(0.5, 0.0))
            .unwrap();
        d.cell.attach_ue(ms(31), NodeId(1), 1).unwrap();
        assert_eq!(d.cell.ue_cqi(NodeId(1)).unwrap(), amc.cqi_for_sinr(8.0));
    }

    /// An NR cell at 3.5 GHz, μ = 1, 20 MHz, FDD on the LTE link budget, path loss 100 dB.
    fn nr_pl100() -> LteCellConfig {
        LteCellConfig {
            carrier_hz: 3.5e9,
            rlc: RlcModeConfig::cell_default(Rat::Nr),
            nr: Some(NrCellConfig {
                numerology: 1,
                bandwidth_mhz: 20,
                ..NrCellConfig::default()
            }),
            ..pl100()
        }
    }

    #[test]
    fn nr_ss_rsrp_spreads_the_power_over_the_nr_carriers_subcarriers() {
        // TS 38.101-1 Table 5.3.2-1: 20 MHz at 30 kHz is 51 PRBs. SS-RSRP (TS 38.215 §5.1.1)
        // = 46 − 10·log10(12 × 51) − 100 = −81.8675 dBm, not the −81.7815 of the 50 PRBs that
        // `n_prb` (LTE's, unused by an NR cell) holds.
        let cfg = nr_pl100();
        assert_eq!((cfg.n_prb, cfg.carrier_n_rb().unwrap()), (50, 51));
        let expected = 46.0 - 10.0 * (12.0f64 * 51.0).log10() - 100.0;
        assert!((expected - (-81.867_514)).abs() < 1e-5, "{expected}");
        let mut cell = LteCell::new_in_ran(
            cfg,
            vec![ue(NodeId(1)), ue(NodeId(2))],
            &[true, false],
            1,
            0,
        )
        .unwrap();
        assert_eq!(cell.n_prb(), 51);
        for node in [NodeId(1), NodeId(2)] {
            let rsrp = cell.ue_rsrp_dbm(node).unwrap();
            assert!((rsrp - expected).abs() < 1e-9, "{rsrp}");
            assert_eq!(cell.measure_ue_rsrp_dbm(ms(40), node).unwrap(), rsrp);
        }
        // 100 MHz at 30 kHz: 273 PRBs, 7.29 dB below the 51 of 20 MHz.
        let wide = LteCellConfig {
            nr: Some(NrCellConfig {
                numerology: 1,
                bandwidth_mhz: 100,
                ..NrCellConfig::default()
            }),
            ..nr_pl100()
        };
        let wide = LteCell::new_in_ran(wide, vec![ue(NodeId(1))], &[false], 1, 0).unwrap();
        let drop = expected - wide.ue_rsrp_dbm(NodeId(1)).unwrap();
        assert!(
            (drop - 10.0 * (273.0f64 / 51.0).log10()).abs() < 1e-9,
            "{drop}"
        );
    }

    /// With the mmWave channel a measurement brings the channel to its time, connected or not:
    /// Markov blockage of 30 dB (mean 200 ms clear, 100 ms blocked) shows in the SS-RSRP of a
    /// UE the cell does not serve. Measured, seed 1, 2 s every 40 ms: the RSRP takes two
    /// levels 30 dB apart (the 38.901 LOS path loss at 40 m and that plus the blockage), and
    /// is SINR + noise − 10·log10(12·N_RB) at every measurement.
    #[test]
    fn a_blocked_mmwave_link_measures_lower() {
        use crate::cell::nr_channel::{NrBlockageKind, NrLos};
        let cfg = LteCellConfig {
            carrier_hz: 28e9,
            rlc: RlcModeConfig::cell_default(Rat::Nr),
            nr: Some(NrCellConfig {
                numerology: 3,
                bandwidth_mhz: 100,
                channel: Some(NrChannelConfig {
                    los: NrLos::Los,
                    shadowing: false,
                    blockage: NrBlockageConfig {
                        kind: NrBlockageKind::Markov,
                        mean_los: SimDuration(200_000_000),
                        mean_blocked: SimDuration(100_000_000),
                        ..NrBlockageConfig::default()
                    },
                    beam: NrBeamConfig {
                        recovery: SimDuration::ZERO,
                        recovery_loss_db: None,
                    },
                    ..NrChannelConfig::default()
                }),
                ..NrCellConfig::default()
            }),
            ..LteCellConfig::lte_default("mm", ENB)
        };
        let far = UeConfig {
            node: NodeId(1),
            position: Position::new(40.0, 0.0),
            speed_mps: 0.0,
        };
        let mut cell = LteCell::new_in_ran(cfg, vec![far], &[false], 1, 0).unwrap();
        // 100 MHz at 120 kHz: 66 PRBs of 1.44 MHz, the noise over them.
        assert_eq!(cell.n_prb(), 66);
        let n_rb = 66.0;
        let noise = crate::channel::thermal_noise_dbm(n_rb * 1.44e6, 9.0).unwrap();
        let mut rsrps = Vec::new();
        for k in 0..50 {
            let rsrp = cell.measure_ue_rsrp_dbm(ms(40 * k), NodeId(1)).unwrap();
            let sinr = cell.ue_large_scale_sinr_db(NodeId(1)).unwrap();
            assert!(
                (rsrp - (sinr + noise - 10.0 * (12.0 * n_rb).log10())).abs() < 1e-9,
                "{rsrp} {sinr}"
            );
            rsrps.push(rsrp);
        }
        let max = rsrps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let min = rsrps.iter().copied().fold(f64::INFINITY, f64::min);
        assert!((max - min - 30.0).abs() < 1e-9, "{rsrps:?}");
        assert!(rsrps.iter().all(|r| *r == max || *r == min), "{rsrps:?}");
    }
}
