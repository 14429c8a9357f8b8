//! E-UTRA–NR dual connectivity (EN-DC, TS 37.340) with a split bearer: an LTE master eNB (MN)
//! and an NR secondary gNB (SN) serve every UE of the network at once.
//!
//! The bearer (TS 37.340 §4.2.2, the MN-terminated split bearer):
//! * **PDCP at the MN**: the S-GW tunnels the UE's downlink to the MN (S1-U), whose PDCP
//!   transmitter numbers every SDU with the next COUNT (TS 38.323 §5.2.1, TX_NEXT) and hands
//!   the PDU to one leg. The cells' own PDCP transmitters number nothing: both legs are written
//!   with [`LteCell::write_forwarded`](crate::cell::LteCell::write_forwarded), the COUNT given.
//! * **one RLC AM per leg**: the MN's LTE cell's bearer, and the SN's NR cell's bearer, which
//!   the MN reaches over X2-U (the network's forwarding path and its latency; TS 37.340 §10.2
//!   user-plane transfer, here a `MediumRequest::Forward` with the COUNT).
//! * **the UE's PDCP receiver** reorders by COUNT from the start (TS 38.323 §5.2.2.2,
//!   t-Reordering; the model's receiver is the network's one, TS 36.323 §5.1.2.1.4, whose
//!   window, timer and duplicate discard are the same rules), so every COUNT reaches the UE's
//!   upper layer at most once and in order; a COUNT missing when t-Reordering expires is
//!   skipped, and arrives later only to be discarded.
//! * **uplink** (TCP ACKs): over the MN's LTE uplink only, the primary path with
//!   ul-DataSplitThreshold infinite (TS 38.323 §5.2.1, TS 37.340 §7.7).
//!
//! Which leg a PDU takes ([`SplitPolicy`]): all over NR (`nr_only`), a fraction over NR
//! (`split_ratio`, a deterministic credit so that the share is exact without a random
//! stream), or the leg of the smaller estimated queueing delay (`split_delay`: the leg's RLC
//! buffer over its recent delivery rate, plus for the SN the bytes on X2-U and the measured
//! X2-U latency).
//!
//! **Switching** (every policy): at each measurement tick the MN looks at the NR leg's SINR
//! (the SN cell's large-scale SINR at the UE, the mmWave channel's blockage included). Below
//! `q_out_db` for `switch_detection` the NR leg is out (ns3-mmwave's outage threshold on the
//! UE's SINR reports); `switch_delay` later (the UE's report over LTE and the X2-C signalling
//! to the SN) the MN sends everything over LTE, and the PDCP PDUs the SN's RLC has not
//! confirmed delivered are sent again over LTE from the MN's PDCP (PDCP data recovery, TS
//! 38.323 §5.1.2: "retransmit all the PDCP Data PDUs … for which the successful delivery has
//! not been confirmed by lower layers"); the UE's PDCP discards the copies it already has.
//! PDUs still on X2-U reaching the SN after the switch go back to the MN and over LTE. Above
//! `q_in_db` for `switch_back_after` the NR leg is back, `switch_delay` later.
//!
//! **X2-U flow control** (`report_period`). TS 38.425 (the NR user plane protocol, which EN-DC
//! runs over X2-U) gives the corresponding node — here the SN — the DL DATA DELIVERY STATUS
//! frame (DDDS, §5.5.2.2) to let the node hosting PDCP control the downlink flow: §5.2 lists
//! among its services the highest NR PDCP SN delivered in sequence to the UE and "the
//! currently desired buffer size" for the bearer; §5.4.2.1 has the SN send it (periodically or
//! on events, left to the implementation) and the MN not send more than the desired buffer
//! size. TS 37.340 leaves the split's flow control to that protocol.
//! * `report_period` = 0 (the default): the MN knows the SN's RLC buffer room at once and
//!   counts what is on X2-U against it (the model before the reports; every output as before).
//! * `report_period` > 0: every period the SN sends a `DeliveryStatus` — the room of its
//!   leg's RLC buffer (the desired buffer size, `LteCell::ue_buffer_room`), the highest COUNT
//!   its RLC delivered in sequence (of the PDUs it took, all up to it delivered), and the NR-U sequence number of the last DL USER DATA frame (§5.5.2.1)
//!   it had received — which reaches the MN after the one-way X2-U latency the last PDU took
//!   (the forwarding path's). The MN sends no more than the reported room less what it sent
//!   after the frames the report covers (before the first report: the empty buffer's room),
//!   so that while it follows the reports the SN's RLC never refuses a PDU; `split_delay`
//!   takes the SN leg's queue as what it sent the SN that no report has confirmed delivered,
//!   and the leg's rate from what each report confirms over the period. The MN's view is then
//!   stale by up to a period plus the X2-U latency, which is what limits the NR leg (the
//!   room refilled once a report round) and misleads `split_delay`.
//!
//! ns3-mmwave's multi-connectivity (`McEnbPdcp`, checked at nyuwireless-unipd/ns3-mmwave
//! 0b1f4b7) has no X2-U flow control: while the mmWave leg is in use every PDU goes over X2 to
//! the mmWave RLC; its periodic X2 reports are the UEs' SINRs (estimated every 1.6 ms,
//! reported to the LTE coordinator every 25.6 ms, `MmWaveEnbPhy::UpdateUeSinrEstimatePeriod`),
//! which the NR outage switch above stands for. The default period is therefore 0, which keeps
//! every output of the model before the reports; 10 ms is a typical DDDS period to try.
//!
//! No handover while dual connectivity is on (the network refuses Event A3, manual
//! handovers, radio link monitoring of the MN and the DAPS/CHO procedures with it).

use std::collections::{BTreeMap, VecDeque};

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::medium::{MediumFigure, MediumOutput, MediumRequest};
use celltcp_net::packet::Packet;
use celltcp_net::queue::DropCause;

use crate::cell::bearer::BearerSdu;
use crate::cell::{BufferRoom, StampedPacket};
use crate::pdcp::PdcpPdu;

use super::steps::Step;
use super::LteRan;

/// How the MN's PDCP splits the downlink between its two legs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SplitPolicy {
    /// Every PDU over NR while the NR leg is up (the SN's leg as the primary downlink path).
    NrOnly,
    /// A fraction `nr_share` (0..=1) of the PDUs over NR, the rest over LTE.
    SplitRatio { nr_share: f64 },
    /// Each PDU over the leg whose estimated queueing delay is smaller.
    SplitDelay,
}

impl SplitPolicy {
    /// The scenario-file spelling.
    pub fn as_str(&self) -> &'static str {
        match self {
            SplitPolicy::NrOnly => "nr_only",
            SplitPolicy::SplitRatio { .. } => "split_ratio",
            SplitPolicy::SplitDelay => "split_delay",
        }
    }
}

/// Default Q_out of the NR leg, dB: ns3-mmwave's outage threshold (`LteEnbRrc::OutageThreshold`,
/// −5 dB), below which the MN takes the UE's mmWave link for lost.
pub const DEFAULT_NR_Q_OUT_DB: f64 = -5.0;
/// Default Q_in of the NR leg, dB: 2 dB above Q_out, the hysteresis of the LTE radio link
/// monitoring's default Q_out −8 / Q_in −6 dB.
pub const DEFAULT_NR_Q_IN_DB: f64 = -3.0;

/// The shortest delivery status report period other than 0: 1 ms, a few NR slots at most
/// (TS 38.425 leaves the period to the implementation); shorter would schedule a report more
/// often than the SN's RLC buffer can change by a PDU.
pub const MIN_REPORT_PERIOD: SimDuration = SimDuration::from_ms(1);
/// The longest: 1 s, the time after which the model takes a PDU on X2-U for lost; a report
/// rarer than that leaves the MN without any view of the SN leg.
pub const MAX_REPORT_PERIOD: SimDuration = SimDuration::from_ms(1000);
/// What a report period may be, for error messages.
pub const REPORT_PERIOD_RANGE: &str = "0 (the SN's room known at once) or a period from 1ms to 1s";

/// An EN-DC split bearer for every UE of the network (module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DualConnectivityConfig {
    /// Index of the master cell (LTE) in [`RanConfig::cells`](super::RanConfig::cells); it
    /// serves every UE (`RanUe::serving`).
    pub master: usize,
    /// Index of the secondary cell (NR).
    pub secondary: usize,
    pub policy: SplitPolicy,
    /// The NR leg is out when its SINR stays below this for `switch_detection`, dB.
    pub q_out_db: f64,
    /// The NR leg is back when its SINR stays above this (≥ `q_out_db`) for
    /// `switch_back_after`, dB.
    pub q_in_db: f64,
    /// How long the SINR must stay below Q_out (0 = at the first measurement below it).
    pub switch_detection: SimDuration,
    /// How long the SINR must stay above Q_in before the NR leg is used again.
    pub switch_back_after: SimDuration,
    /// From the detection to the MN's switch: the UE's report over LTE and the X2-C message
    /// to the SN (default 10 ms: the measurement report's 5 ms and the X2-C 5 ms of
    /// [`HandoverLatencies`](super::HandoverLatencies)).
    pub switch_delay: SimDuration,
    /// `flow_control.report_period`: how often the SN sends the MN a DL DATA DELIVERY STATUS
    /// (TS 38.425 §5.4.2.1), which reaches it over X2-U after the X2-U latency. Zero (the
    /// default): the MN knows the SN's RLC buffer room and deliveries at once.
    pub report_period: SimDuration,
}

impl DualConnectivityConfig {
    /// The defaults for a master and a secondary cell and a policy.
    pub fn new(master: usize, secondary: usize, policy: SplitPolicy) -> Self {
        DualConnectivityConfig {
            master,
            secondary,
            policy,
            q_out_db: DEFAULT_NR_Q_OUT_DB,
            q_in_db: DEFAULT_NR_Q_IN_DB,
            switch_detection: SimDuration::ZERO,
            switch_back_after: SimDuration::from_ms(100),
            switch_delay: SimDuration::from_ms(10),
            report_period: SimDuration::ZERO,
        }
    }
}

/// The two legs of the split bearer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Leg {
    Lte,
    Nr,
}

/// The NR leg as the MN sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NrLeg {
    /// In use.
    Up,
    /// Detected out; the MN switches at the scheduled step.
    GoingDown,
    /// Not in use: everything goes over LTE.
    Down,
    /// Detected back; the MN uses it again at the scheduled step.
    GoingUp,
}

impl NrLeg {
    /// Whether the MN sends new PDUs over NR.
    fn in_use(self) -> bool {
        matches!(self, NrLeg::Up | NrLeg::GoingDown)
    }
}

/// Weight of a new sample in a leg's delivery-rate average (per measurement period).
const RATE_EWMA_WEIGHT: f64 = 0.5;
/// Weight of a new sample in the X2-U latency average.
const X2_EWMA_WEIGHT: f64 = 0.125;
/// PDUs on X2-U this long are taken as lost there (the forwarding buffer dropped them) and
/// no longer count as in flight.
const X2_IN_FLIGHT_TIMEOUT: SimDuration = MAX_REPORT_PERIOD;

/// One leg's recent delivery rate: bytes its RLC delivered to the UE per measurement period,
/// averaged over the periods in which the leg had data.
#[derive(Clone, Copy, Debug, Default)]
struct LegRate {
    bytes_since_tick: u64,
    /// Bits per second; 0 before the first busy period.
    rate_bps: f64,
}

impl LegRate {
    fn sample(&mut self, period: SimDuration, busy: bool) {
        let bytes = std::mem::take(&mut self.bytes_since_tick);
        if !busy && bytes == 0 {
            return;
        }
        let sample = bytes as f64 * 8.0 / period.as_secs_f64();
        self.rate_bps = if self.rate_bps == 0.0 {
            sample
        } else {
            RATE_EWMA_WEIGHT * sample + (1.0 - RATE_EWMA_WEIGHT) * self.rate_bps
        };
    }

    /// Seconds to send `bytes` at the recent rate: 0 for nothing, infinite without a rate.
    fn drain_s(&self, bytes: u64) -> f64 {
        match (bytes, self.rate_bps) {
            (0, _) => 0.0,
            (_, r) if r > 0.0 => bytes as f64 * 8.0 / r,
            _ => f64::INFINITY,
        }
    }
}

/// The DL DATA DELIVERY STATUS frame (DDDS, TS 38.425 §5.5.2.2) as the model carries it
/// from the SN to the MN: what the SN's leg looked like when the frame was sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct DeliveryStatus {
    /// Desired buffer size for the data radio bearer: the room of the SN leg's RLC buffer.
    desired: BufferRoom,
    /// Highest successfully delivered NR PDCP COUNT: the end of the run of PDUs the SN's RLC
    /// took and delivered to the UE without a gap, since the leg was last set up.
    highest_delivered: Option<u32>,
    /// The NR-U sequence number of the last DL USER DATA frame the SN had received from the
    /// MN (TS 38.425 §5.5.2.1: the MN numbers its frames so that the SN can tell which it has;
    /// the DDDS's lost NR-U ranges refer to them). The desired buffer size counts every PDU
    /// of that frame and earlier, none after.
    highest_nru_received: Option<u32>,
}

/// X2-U flow control with delivery status reports (`report_period` > 0): the MN's view of the
/// SN leg, from the last DDDS to arrive, and the SN's side of the reports.
///
/// TS 38.425 §5.4.2.1: the SN reports the desired buffer size and the highest delivered
/// NR PDCP SN; the MN should not send more than the desired buffer size. The MN counts what it
/// sent after the frames the report covers (by NR-U sequence number) against the reported
/// room, so that a PDU the report did not see yet is not counted twice nor forgotten; and it
/// takes the PDUs it sent with a COUNT up to the reported highest delivered one as gone from
/// the SN leg (the split_delay estimate of its queue).
#[derive(Clone, Debug, Default)]
struct FlowControl {
    /// NR-U sequence number of the next DL USER DATA frame (one PDU a frame).
    next_nru: u32,
    /// The last report the MN received; `None` until the first PDU for the SN, when the MN
    /// takes the room the SN's empty buffer has (the bearer's setup).
    report: Option<DeliveryStatus>,
    /// PDUs sent to the SN after the frames `report` covers: (NR-U SN, bytes).
    unreported: VecDeque<(u32, u32)>,
    unreported_bytes: u64,
    /// PDUs sent to the SN not yet reported delivered: COUNT → bytes.
    unconfirmed: BTreeMap<u32, u32>,
    unconfirmed_bytes: u64,
    /// Reports on their way to the MN, in sending order (X2-U is first in, first out).
    on_x2: VecDeque<(SimTime, DeliveryStatus)>,
    /// The SN's side: the last NR-U SN it received, the highest COUNT its RLC delivered in
    /// sequence (every PDU its RLC took up to it delivered), and the PDUs its RLC took and
    /// has not delivered in sequence yet, in the order it took them (COUNT, delivered).
    sn_highest_nru: Option<u32>,
    sn_highest_delivered: Option<u32>,
    sn_taken: VecDeque<(u32, bool)>,
}

impl FlowControl {
    /// A PDU of `bytes` with `count` goes to the SN; its NR-U sequence number.
    fn send(&mut self, count: u32, bytes: u32) -> u32 {
        let nru = self.next_nru;
        self.next_nru = nru.wrapping_add(1);
        self.unreported.push_back((nru, bytes));
        self.unreported_bytes += u64::from(bytes);
        if let Some(old) = self.unconfirmed.insert(count, bytes) {
            self.unconfirmed_bytes -= u64::from(old);
        }
        self.unconfirmed_bytes += u64::from(bytes);
        nru
    }

    /// Whether the last report leaves room for a PDU of `size` bytes after what the MN sent
    /// since; `initial` is the room of the SN's empty buffer, taken as the first report.
    fn admits(&mut self, size: u32, initial: impl FnOnce() -> BufferRoom) -> bool {
        let report = self.report.get_or_insert_with(|| DeliveryStatus {
            desired: initial(),
            highest_delivered: None,
            highest_nru_received: None,
        });
        report
            .desired
            .admits(self.unreported.len() as u64, self.unreported_bytes, size)
    }

    /// The SN's report now, its room given.
    fn status(&self, desired: BufferRoom) -> DeliveryStatus {
        DeliveryStatus {
            desired,
            highest_delivered: self.sn_highest_delivered,
            highest_nru_received: self.sn_highest_nru,
        }
    }

    /// A report reached the MN; the bytes it newly confirms delivered.
    fn receive(&mut self, r: DeliveryStatus) -> u64 {
        if let Some(h) = r.highest_nru_received {
            // NR-U sequence numbers within a run do not wrap (2^32 frames).
            while let Some(&(nru, bytes)) = self.unreported.front() {
                if nru > h {
                    break;
                }
                self.unreported.pop_front();
                self.unreported_bytes -= u64::from(bytes);
            }
        }
        let mut confirmed = 0;
        if let Some(h) = r.highest_delivered {
            let rest = self.unconfirmed.split_off(&h.saturating_add(1));
            confirmed = self.unconfirmed.values().map(|&b| u64::from(b)).sum();
            self.unconfirmed = rest;
            self.unconfirmed_bytes -= confirmed;
        }
        self.report = Some(r);
        confirmed
    }

    /// PDCP data recovery moved every PDU of the SN leg to LTE; the SN's RLC starts afresh.
    fn recovered(&mut self) {
        self.unconfirmed.clear();
        self.unconfirmed_bytes = 0;
        self.sn_highest_delivered = None;
        self.sn_taken.clear();
    }

    /// The SN's RLC took the PDU with `count` (the MN sends COUNTs in increasing order).
    fn sn_took(&mut self, count: u32) {
        self.sn_taken.push_back((count, false));
    }

    /// The SN's RLC delivered the PDU with `count` to the UE. TS 38.425 §5.5.3: the highest
    /// NR PDCP SN "successfully delivered in sequence" — NR RLC hands SDUs up out of order
    /// (TS 38.322 §5.2.3.2.3), so the report's COUNT is the end of the run delivered without a
    /// gap, not the highest delivered.
    fn sn_delivered(&mut self, count: u32) {
        if let Ok(i) = self.sn_taken.binary_search_by_key(&count, |&(c, _)| c) {
            self.sn_taken[i].1 = true;
        }
        while let Some(&(c, true)) = self.sn_taken.front() {
            self.sn_taken.pop_front();
            self.sn_highest_delivered = Some(c);
        }
    }
}

/// Per UE: the MN's PDCP transmitter and its view of the two legs.
#[derive(Clone, Debug)]
pub(super) struct DcUe {
    /// TX_NEXT of the MN's PDCP transmitter (TS 38.323 §7.1).
    tx_next: u32,
    nr: NrLeg,
    /// Since when the NR leg's SINR has been below Q_out (while in use) or above Q_in (while
    /// not).
    crossed_since: Option<SimTime>,
    /// `split_ratio`: the NR share owed, in PDUs.
    credit: f64,
    /// PDUs on X2-U to the SN: COUNT → (sent, bytes, NR-U sequence number).
    x2_in_flight: BTreeMap<u32, (SimTime, u32, u32)>,
    x2_in_flight_bytes: u64,
    /// Measured one-way X2-U latency, seconds (averaged), once a PDU has arrived.
    x2_latency_s: Option<f64>,
    /// The one-way X2-U latency of the last PDU to reach the SN: what a delivery status
    /// report takes back to the MN (zero before the first).
    x2_last_latency: SimDuration,
    lte_rate: LegRate,
    nr_rate: LegRate,
    /// With `report_period` > 0.
    fc: FlowControl,
}

impl DcUe {
    pub fn new() -> Self {
        DcUe {
            tx_next: 0,
            nr: NrLeg::Up,
            crossed_since: None,
            credit: 0.0,
            x2_in_flight: BTreeMap::new(),
            x2_in_flight_bytes: 0,
            x2_latency_s: None,
            x2_last_latency: SimDuration::ZERO,
            lte_rate: LegRate::default(),
            nr_rate: LegRate::default(),
            fc: FlowControl::default(),
        }
    }

    fn leg_rate(&mut self, leg: Leg) -> &mut LegRate {
        match leg {
            Leg::Lte => &mut self.lte_rate,
            Leg::Nr => &mut self.nr_rate,
        }
    }
}

/// The network's EN-DC counters (reported only with dual connectivity).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct DcTotals {
    pdus_lte: u64,
    pdus_nr: u64,
    pdus_recovered: u64,
    switches_to_lte: u64,
    switches_to_nr: u64,
    pdcp_duplicates: u64,
    pdcp_late: u64,
    refused_lte: u64,
    refused_nr: u64,
}

/// The network's dual connectivity: its configuration, per-UE state and counters.
#[derive(Clone, Debug)]
pub(super) struct DualConnectivity {
    pub cfg: DualConnectivityConfig,
    /// One per UE, in the network's UE order.
    pub ues: Vec<DcUe>,
    totals: DcTotals,
}

impl DualConnectivity {
    pub fn new(cfg: DualConnectivityConfig, n_ues: usize) -> Self {
        DualConnectivity {
            cfg,
            ues: vec![DcUe::new(); n_ues],
            totals: DcTotals::default(),
        }
    }

    /// The leg of cell `c`, if it is one.
    fn leg_of(&self, c: usize) -> Option<Leg> {
        if c == self.cfg.master {
            Some(Leg::Lte)
        } else if c == self.cfg.secondary {
            Some(Leg::Nr)
        } else {
            None
        }
    }

    /// Cell `c`'s RLC delivered the PDU with `count` of `bytes` to UE `u`: for the legs'
    /// rates, which with delivery status reports the MN learns of the SN leg from them.
    pub fn note_delivered(&mut self, u: usize, c: usize, count: u32, bytes: u64) {
        let reported = self.reports();
        let leg = self.leg_of(c);
        let ue = &mut self.ues[u];
        match leg {
            Some(Leg::Nr) if reported => ue.fc.sn_delivered(count),
            Some(leg) => ue.leg_rate(leg).bytes_since_tick += bytes,
            None => {}
        }
    }

    /// Whether the MN learns of the SN leg from delivery status reports (else at once).
    fn reports(&self) -> bool {
        self.cfg.report_period > SimDuration::ZERO
    }

    /// The UE's PDCP receiver discarded a PDU: a duplicate (it had the COUNT) or a late one.
    pub fn note_discard(&mut self, duplicate: bool) {
        if duplicate {
            self.totals.pdcp_duplicates += 1;
        } else {
            self.totals.pdcp_late += 1;
        }
    }

    /// The leg of the next PDU of UE `u`, given each leg's queue as the MN sees it (LTE RLC
    /// bytes; the SN leg's bytes, X2-U included) and whether the SN has room for it; `None`:
    /// `nr_only` and the SN has no room (the PDU is dropped at the MN, as a full RLC buffer
    /// drops in a plain cell).
    fn choose(&mut self, u: usize, lte_bytes: u64, nr_bytes: u64, sn_room: bool) -> Option<Leg> {
        let ue = &mut self.ues[u];
        if !ue.nr.in_use() {
            return Some(Leg::Lte);
        }
        let leg = match self.cfg.policy {
            SplitPolicy::NrOnly if sn_room => Leg::Nr,
            SplitPolicy::NrOnly => return None,
            SplitPolicy::SplitRatio { nr_share } => {
                ue.credit += nr_share;
                if ue.credit >= 1.0 {
                    ue.credit -= 1.0;
                    Leg::Nr
                } else {
                    Leg::Lte
                }
            }
            SplitPolicy::SplitDelay => {
                let lte = ue.lte_rate.drain_s(lte_bytes);
                let nr = ue.nr_rate.drain_s(nr_bytes) + ue.x2_latency_s.unwrap_or(0.0);
                // A tie goes to the MN's own leg.
                if nr < lte {
                    Leg::Nr
                } else {
                    Leg::Lte
                }
            }
        };
        // X2-U flow control: no more to the SN than its RLC buffer takes.
        Some(if sn_room { leg } else { Leg::Lte })
    }

    /// The figures of [`LteRan::report`] with dual connectivity: the counters, and over every
    /// UE the PDCP receivers' t-Reordering expiries and SDUs delivered.
    pub fn figures(&self, t_reordering_expiries: u64, sdus: u64, out: &mut Vec<MediumFigure>) {
        let t = &self.totals;
        for (name, v) in [
            ("endc_pdus_lte", t.pdus_lte),
            ("endc_pdus_nr", t.pdus_nr),
            ("endc_pdus_recovered", t.pdus_recovered),
            ("endc_switches_to_lte", t.switches_to_lte),
            ("endc_switches_to_nr", t.switches_to_nr),
            ("endc_pdcp_duplicates", t.pdcp_duplicates),
            ("endc_pdcp_late", t.pdcp_late),
            ("endc_t_reordering_expiries", t_reordering_expiries),
            ("endc_pdcp_sdus_delivered", sdus),
            ("endc_refused_lte", t.refused_lte),
            ("endc_refused_nr", t.refused_nr),
        ] {
            out.push((name.into(), v as f64));
        }
    }
}

impl LteRan {
    fn dc(&self) -> Option<&DualConnectivity> {
        self.dc.as_ref()
    }

    /// A PDCP PDU of the MN's PDCP with `count` for `pkt`.
    fn dc_pdu(&self, now: SimTime, pkt: Packet, count: u32) -> BearerSdu {
        let pdcp = self.pdcp_cfg;
        PdcpPdu {
            count,
            sdu: StampedPacket {
                packet: pkt,
                arrived: now,
            },
            header_bytes: pdcp.header_bytes(),
            sn_bits: pdcp.sn_bits,
        }
    }

    /// A downlink packet for UE `u` reached the MN (from the S-GW): its PDCP numbers it and
    /// hands it to a leg. A PDU the LTE leg's RLC refuses is dropped before it takes a COUNT
    /// (as a full buffer drops in a plain cell), so the UE's receiver waits for no gap.
    pub(super) fn dc_downlink(
        &mut self,
        now: SimTime,
        u: usize,
        pkt: Packet,
        out: &mut MediumOutput,
    ) {
        let Some(m) = self.dc().map(|d| d.cfg.master) else {
            return;
        };
        let node = self.ues[u].node;
        let lte_bytes = self.cells[m].ue_buffer_bytes(node).unwrap_or(0);
        let nr_bytes = self.dc_nr_backlog(u);
        let sn_room = self.dc_sn_admits(u, pkt.size_bytes());
        let Some(dc) = self.dc.as_mut() else { return };
        let Some(leg) = dc.choose(u, lte_bytes, nr_bytes, sn_room) else {
            dc.totals.refused_nr += 1;
            out.dropped.push((pkt, DropCause::QueueFull));
            return;
        };
        let count = dc.ues[u].tx_next;
        let pdu = self.dc_pdu(now, pkt, count);
        let Some(dc) = self.dc.as_mut() else { return };
        match leg {
            Leg::Lte => {
                if self.cells[m].write_forwarded(now, node, pdu).is_err() {
                    dc.totals.refused_lte += 1;
                    out.dropped.push((pkt, DropCause::QueueFull));
                    return;
                }
                dc.totals.pdus_lte += 1;
            }
            Leg::Nr => {
                dc.totals.pdus_nr += 1;
                self.dc_forward_to_sn(now, u, pkt, count, out);
            }
        }
        if let Some(dc) = self.dc.as_mut() {
            dc.ues[u].tx_next = count.wrapping_add(1);
        }
    }

    /// Sends the PDU with `count` of UE `u` to the SN over X2-U (a DL USER DATA frame).
    fn dc_forward_to_sn(
        &mut self,
        now: SimTime,
        u: usize,
        pkt: Packet,
        count: u32,
        out: &mut MediumOutput,
    ) {
        let Some(dc) = self.dc.as_mut() else { return };
        let (m, s) = (dc.cfg.master, dc.cfg.secondary);
        let reports = dc.reports();
        let ue = &mut dc.ues[u];
        let bytes = pkt.size_bytes();
        let nru = if reports { ue.fc.send(count, bytes) } else { 0 };
        ue.x2_in_flight.insert(count, (now, bytes, nru));
        ue.x2_in_flight_bytes += u64::from(bytes);
        out.requests.push(MediumRequest::Forward {
            from: self.enbs[m],
            to: self.enbs[s],
            pkt,
            pdcp_count: Some(count),
        });
    }

    /// Whether the MN may send UE `u`'s SN a PDU of `size` bytes (X2-U flow control): at
    /// once, if the SN's RLC buffer takes it after what is on X2-U; with delivery status
    /// reports, if the last report's desired buffer size does after what the MN sent since
    /// (TS 38.425 §5.4.2.1: the MN should not send more than the desired buffer size).
    fn dc_sn_admits(&mut self, u: usize, size: u32) -> bool {
        let Some(dc) = self.dc.as_mut() else {
            return false;
        };
        let node = self.ues[u].node;
        let sn = &self.cells[dc.cfg.secondary];
        let reports = dc.reports();
        let ue = &mut dc.ues[u];
        if reports {
            let full = BufferRoom {
                sdus: Some(0),
                bytes: Some(0),
            };
            ue.fc
                .admits(size, || sn.ue_buffer_room(node).unwrap_or(full))
        } else {
            sn.ue_admits_after(node, ue.x2_in_flight.len(), ue.x2_in_flight_bytes, size)
                .unwrap_or(false)
        }
    }

    /// The SN leg's queue as the MN sees it, bytes: at once, the SN's RLC buffer and what is
    /// on X2-U; with delivery status reports, what it sent the SN that no report has
    /// confirmed delivered.
    fn dc_nr_backlog(&self, u: usize) -> u64 {
        let Some(dc) = self.dc() else { return 0 };
        let ue = &dc.ues[u];
        if dc.reports() {
            return ue.fc.unconfirmed_bytes;
        }
        let node = self.ues[u].node;
        self.cells[dc.cfg.secondary]
            .ue_buffer_bytes(node)
            .unwrap_or(0)
            + ue.x2_in_flight_bytes
    }

    /// The SN sends UE `u`'s MN a DL DATA DELIVERY STATUS (every `report_period`, TS 38.425
    /// §5.4.2.1 "periodically"): the room of its leg's RLC buffer, the highest COUNT delivered,
    /// the last NR-U frame received. It reaches the MN after the one-way X2-U latency the last
    /// PDU took (the forwarding path's), behind any report sent before.
    pub(super) fn dc_delivery_status(&mut self, now: SimTime, u: usize) {
        let Some(dc) = self.dc.as_mut() else { return };
        let node = self.ues[u].node;
        let desired = match self.cells[dc.cfg.secondary].ue_buffer_room(node) {
            Ok(r) => r,
            Err(e) => {
                let msg = format!("EN-DC delivery status of UE {node}: {e}");
                self.internal_error(msg);
                return;
            }
        };
        let period = dc.cfg.report_period;
        let ue = &mut dc.ues[u];
        let status = ue.fc.status(desired);
        let behind = ue.fc.on_x2.back().map_or(now, |&(t, _)| t);
        let at = (now + ue.x2_last_latency).max(behind);
        ue.fc.on_x2.push_back((at, status));
        self.steps
            .schedule(at, u, None, Step::DualConnectivityStatusArrival);
        self.steps
            .schedule(now + period, u, None, Step::DualConnectivityStatus);
    }

    /// A delivery status report reached UE `u`'s MN: its view of the SN leg is the report's,
    /// and the bytes it confirms delivered are a sample of the NR leg's rate over the report
    /// period (the SN sends one a period), the leg busy if anything was unconfirmed. Sampled
    /// per measurement period instead, the rate would read zero in the periods no report
    /// arrives.
    pub(super) fn dc_delivery_status_arrival(&mut self, u: usize) {
        let Some(dc) = self.dc.as_mut() else { return };
        let period = dc.cfg.report_period;
        let ue = &mut dc.ues[u];
        if let Some((_, r)) = ue.fc.on_x2.pop_front() {
            let busy = ue.fc.unconfirmed_bytes > 0;
            let confirmed = ue.fc.receive(r);
            ue.nr_rate.bytes_since_tick += confirmed;
            ue.nr_rate.sample(period, busy);
        }
    }

    /// X2-U data for UE `u` reached cell `c`'s node: at the SN, a PDU from the MN for its RLC
    /// (or, once the MN has switched to LTE, back to the MN); at the MN, a PDU the SN sent
    /// back, for the LTE leg. Anything else has no place in the split bearer.
    pub(super) fn dc_tunnel_forwarded(
        &mut self,
        now: SimTime,
        c: usize,
        u: usize,
        pkt: Packet,
        pdcp_count: Option<u32>,
        out: &mut MediumOutput,
    ) {
        let Some(dc) = self.dc.as_mut() else { return };
        let (m, s) = (dc.cfg.master, dc.cfg.secondary);
        let Some(count) = pdcp_count else {
            out.dropped.push((pkt, DropCause::NoRoute));
            return;
        };
        let node = self.ues[u].node;
        if c == s {
            let ue = &mut dc.ues[u];
            if let Some((sent, bytes, nru)) = ue.x2_in_flight.remove(&count) {
                ue.x2_in_flight_bytes -= u64::from(bytes);
                ue.x2_last_latency = now.saturating_since(sent);
                let h = &mut ue.fc.sn_highest_nru;
                *h = Some(h.map_or(nru, |h| h.max(nru)));
                let sample = now.saturating_since(sent).as_secs_f64();
                ue.x2_latency_s = Some(match ue.x2_latency_s {
                    None => sample,
                    Some(l) => X2_EWMA_WEIGHT * sample + (1.0 - X2_EWMA_WEIGHT) * l,
                });
            }
            if !ue.nr.in_use() {
                out.requests.push(MediumRequest::Forward {
                    from: self.enbs[s],
                    to: self.enbs[m],
                    pkt,
                    pdcp_count: Some(count),
                });
                return;
            }
            let pdu = self.dc_pdu(now, pkt, count);
            let written = self.cells[s].write_forwarded(now, node, pdu);
            if written.is_ok() {
                if let Some(dc) = self.dc.as_mut() {
                    dc.ues[u].fc.sn_took(count);
                }
            }
            if written.is_err() {
                // The MN's flow control keeps this from happening while it follows the SN's
                // room (at once, or as reported); a PDU the SN's RLC cannot take is lost, a
                // gap t-Reordering closes.
                if let Some(dc) = self.dc.as_mut() {
                    dc.totals.refused_nr += 1;
                }
                out.dropped.push((pkt, DropCause::QueueFull));
            }
        } else if c == m {
            self.dc_write_lte(now, u, pkt, count, out);
        } else {
            out.dropped.push((pkt, DropCause::NoRoute));
        }
    }

    /// A PDU with its COUNT into the LTE leg (data recovery, or back from the SN), unless the
    /// UE has it already; whether it was written.
    fn dc_write_lte(
        &mut self,
        now: SimTime,
        u: usize,
        pkt: Packet,
        count: u32,
        out: &mut MediumOutput,
    ) -> bool {
        if self.ues[u].received.contains(count) {
            return false;
        }
        let Some(m) = self.dc().map(|d| d.cfg.master) else {
            return false;
        };
        let node = self.ues[u].node;
        let pdu = self.dc_pdu(now, pkt, count);
        let written = self.cells[m].write_forwarded(now, node, pdu).is_ok();
        if !written {
            if let Some(dc) = self.dc.as_mut() {
                dc.totals.refused_lte += 1;
            }
            out.dropped.push((pkt, DropCause::QueueFull));
        }
        written
    }

    /// The measurement tick for UE `u` (after its RSRP and the mmWave channel were brought to
    /// `now`): the legs' rates, the X2-U PDUs taken as lost, and the NR leg's monitoring.
    pub(super) fn dc_tick(&mut self, now: SimTime, u: usize) {
        let period = self.meas_cfg.period;
        let node = self.ues[u].node;
        let Some(dc) = self.dc.as_ref() else { return };
        let (m, s) = (dc.cfg.master, dc.cfg.secondary);
        let lte_busy = self.cells[m].ue_buffer_bytes(node).unwrap_or(0) > 0;
        let nr_busy = self.cells[s].ue_buffer_bytes(node).unwrap_or(0) > 0;
        // With reports the NR leg's rate is sampled as they arrive.
        let nr_sampled_here = !dc.reports();
        let sinr = self.cells[s]
            .ue_large_scale_sinr_db(node)
            .unwrap_or(f64::NEG_INFINITY);
        let Some(dc) = self.dc.as_mut() else { return };
        let cfg = dc.cfg;
        let ue = &mut dc.ues[u];
        ue.lte_rate.sample(period, lte_busy);
        if nr_sampled_here {
            ue.nr_rate.sample(period, nr_busy);
        }
        let stale: Vec<u32> = ue
            .x2_in_flight
            .iter()
            .filter(|(_, &(sent, _, _))| now.saturating_since(sent) >= X2_IN_FLIGHT_TIMEOUT)
            .map(|(&c, _)| c)
            .collect();
        for c in stale {
            if let Some((_, b, _)) = ue.x2_in_flight.remove(&c) {
                ue.x2_in_flight_bytes -= u64::from(b);
            }
        }
        let (crossed, wait, next) = match ue.nr {
            NrLeg::Up => (sinr < cfg.q_out_db, cfg.switch_detection, NrLeg::GoingDown),
            NrLeg::Down => (sinr > cfg.q_in_db, cfg.switch_back_after, NrLeg::GoingUp),
            NrLeg::GoingDown | NrLeg::GoingUp => return,
        };
        if !crossed {
            ue.crossed_since = None;
            return;
        }
        let since = *ue.crossed_since.get_or_insert(now);
        if now.saturating_since(since) >= wait {
            ue.crossed_since = None;
            ue.nr = next;
            self.steps.schedule(
                now + cfg.switch_delay,
                u,
                None,
                Step::DualConnectivitySwitch,
            );
        }
    }

    /// The MN switches UE `u`'s downlink: to LTE with PDCP data recovery of what the SN's RLC
    /// has not confirmed, or back to NR.
    pub(super) fn dc_switch(&mut self, now: SimTime, u: usize, out: &mut MediumOutput) {
        let Some(dc) = self.dc.as_mut() else { return };
        let s = dc.cfg.secondary;
        let ue = &mut dc.ues[u];
        match ue.nr {
            NrLeg::GoingUp => {
                ue.nr = NrLeg::Up;
                dc.totals.switches_to_nr += 1;
                let m = dc.cfg.master;
                self.dc_move_lte_backlog(now, u, m, out);
            }
            NrLeg::GoingDown => {
                ue.nr = NrLeg::Down;
                dc.totals.switches_to_lte += 1;
                self.dc_recover(now, u, s, out);
            }
            NrLeg::Up | NrLeg::Down => {}
        }
    }

    /// PDCP data recovery from the SN's leg: its RLC is re-established (what the UE's RLC
    /// can reassemble is delivered; the cell hands back every PDU not confirmed delivered)
    /// and the UE stays connected to the SN with an empty bearer. The MN sends those the UE
    /// does not have again over LTE in COUNT order with the LTE leg's own unconfirmed PDUs:
    /// the LTE leg is re-established too and refilled oldest COUNT first, since behind its
    /// backlog the recovered PDUs, older, would reach the UE after t-Reordering had given
    /// them up (a loss for TCP).
    fn dc_recover(&mut self, now: SimTime, u: usize, s: usize, out: &mut MediumOutput) {
        let Some(m) = self.dc().map(|d| d.cfg.master) else {
            return;
        };
        let mut pending = Vec::new();
        let Some(from_sn) = self.dc_reestablish(now, u, s, out) else {
            return;
        };
        let Some(from_lte) = self.dc_reestablish(now, u, m, out) else {
            return;
        };
        if let Some(dc) = self.dc.as_mut() {
            dc.ues[u].fc.recovered();
        }
        pending.extend(from_sn.into_iter().map(|p| (p, true)));
        pending.extend(from_lte.into_iter().map(|p| (p, false)));
        pending.sort_by_key(|(p, _)| p.count);
        for (pdu, recovered) in pending {
            if self.dc_write_lte(now, u, pdu.sdu.packet, pdu.count, out) && recovered {
                if let Some(dc) = self.dc.as_mut() {
                    dc.totals.pdus_recovered += 1;
                }
            }
        }
    }

    /// Re-establishes UE `u`'s RLC in cell `c` (a detach and an attach at once; the UE stays
    /// connected): what the UE's RLC reassembles goes to its PDCP, its uplink queue to the
    /// MN, and the PDUs not confirmed delivered, in COUNT order, are returned.
    fn dc_reestablish(
        &mut self,
        now: SimTime,
        u: usize,
        c: usize,
        out: &mut MediumOutput,
    ) -> Option<Vec<BearerSdu>> {
        let node = self.ues[u].node;
        let mut d = match self.cells[c].detach_ue(now, node) {
            Ok(d) => d,
            Err(e) => {
                self.internal_error(format!("EN-DC leg switch of UE {node} at cell {c}: {e}"));
                return None;
            }
        };
        for pdu in std::mem::take(&mut d.delivered) {
            self.pdcp_receive(now, u, pdu, out);
        }
        if let Err(e) = self.cells[c].attach_ue(now, node, d.next_dl_count) {
            self.internal_error(format!("EN-DC leg switch of UE {node} at cell {c}: {e}"));
            return None;
        }
        // The uplink is the MN's (attached again just above when `c` is the MN).
        for pkt in std::mem::take(&mut d.uplink) {
            self.uplink(now, u, pkt, out);
        }
        Some(d.unconfirmed)
    }

    /// Back to NR: the LTE leg's RLC is re-established and the PDUs it has not confirmed go
    /// to the SN over X2-U ahead of any new one, in COUNT order, as far as the SN has room
    /// (the rest back into the LTE leg). Left in LTE, the outage's backlog would hold the
    /// UE's in-order delivery behind NR's newer PDUs for longer than t-Reordering.
    fn dc_move_lte_backlog(&mut self, now: SimTime, u: usize, m: usize, out: &mut MediumOutput) {
        let Some(unconfirmed) = self.dc_reestablish(now, u, m, out) else {
            return;
        };
        let mut to_sn = true;
        for pdu in unconfirmed {
            let (pkt, count) = (pdu.sdu.packet, pdu.count);
            if self.ues[u].received.contains(count) {
                continue;
            }
            // Once one does not fit the rest stay in LTE, so that each leg keeps COUNT order.
            to_sn = to_sn && self.dc_sn_admits(u, pkt.size_bytes());
            if !to_sn {
                self.dc_write_lte(now, u, pkt, count, out);
                continue;
            }
            if let Some(dc) = self.dc.as_mut() {
                dc.totals.pdus_recovered += 1;
            }
            self.dc_forward_to_sn(now, u, pkt, count, out);
        }
    }

    /// With dual connectivity, the receiver of UE `u` counts its discards here.
    pub(super) fn dc_note_discard(&mut self, duplicate: bool) {
        if let Some(dc) = self.dc.as_mut() {
            dc.note_discard(duplicate);
        }
    }

    /// The EN-DC figures, if configured.
    pub(super) fn dc_figures(&self, out: &mut Vec<MediumFigure>) {
        let Some(dc) = self.dc() else { return };
        let expiries = self
            .ues
            .iter()
            .map(|u| u.pdcp.stats().t_reordering_expiries)
            .sum();
        let sdus = self.ues.iter().map(|u| u.pdcp.stats().sdus_delivered).sum();
        dc.figures(expiries, sdus, out);
    }
}

#[cfg(test)]
mod tests {
    use super::FlowControl;

    /// TS 38.425 §5.5.3: the report names the highest COUNT delivered in sequence. NR RLC
    /// delivers out of order, so a COUNT delivered above a hole is not reported until the
    /// hole is delivered (the highest delivered would tell the MN that the hole left the SN).
    #[test]
    fn the_highest_delivered_count_is_the_end_of_the_run_without_a_gap() {
        let mut fc = FlowControl::default();
        for count in [10, 11, 12, 14] {
            fc.sn_took(count);
        }
        fc.sn_delivered(11);
        fc.sn_delivered(12);
        assert_eq!(fc.sn_highest_delivered, None);
        fc.sn_delivered(10);
        assert_eq!(fc.sn_highest_delivered, Some(12));
        // 13 never reached the SN (sent over LTE): the run goes on to 14.
        fc.sn_delivered(14);
        assert_eq!(fc.sn_highest_delivered, Some(14));
        // A COUNT the SN never took changes nothing.
        fc.sn_delivered(20);
        assert_eq!(fc.sn_highest_delivered, Some(14));
        fc.recovered();
        assert_eq!(fc.sn_highest_delivered, None);
    }
}
