//! The history of each real TCP connection that the per-handover analytics
//! ([`crate::handover`]) reads: per direction of data, the time series a simulated flow's trace
//! would hold, rebuilt from the segments seen where they enter and leave the path, and the fate
//! of every datagram.
//!
//! Per *stream* (a connection's direction of data, numbered `2 × connection + direction`):
//!
//! * `seq_sent` — the first data offset of each new data segment entering the path (the
//!   `SeqSent` trace variable); `ack_received` — each cumulative ACK that advanced, as it left
//!   the path towards the sender (`AckReceived`); `delivered` — the bytes delivered in order,
//!   each time an ACK from the receiver entered the path and advanced it (`Delivered`: the
//!   receiver sends that ACK when the bytes have arrived, RFC 9293 §3.10.7.4);
//! * `rtt_sample` and `srtt` — one RTT sample per ACK that covered a first transmission (the
//!   oldest it covered, the one a sender times, RFC 6298 §3 and Karn's rule) and the smoothed
//!   RTT of RFC 6298 §2 over those samples;
//! * `retransmissions` — every retransmitted data segment, classified when it enters the path
//!   (see [`RetransmissionKind`]).
//!
//! A retransmission's *silence* is how long the data it repeats had waited unacknowledged:
//! the time since that range was last sent. A retransmission timer (RFC 6298 §5) expires only
//! after at least an RTO of it, whether the timer runs from the last ACK of new data (5.3) or,
//! as Linux runs it, from the transmission of the earliest outstanding segment. The RTO is
//! estimated from the RTT samples with the formula of RFC 6298 §2,
//! `RTO = SRTT + max(G, 4·RTTVAR)`, bounded below by [`HistoryConfig::min_rto_ns`] (§2.4) and
//! above by 60 s (§2.5), 1 s before the first sample (§2.1). See [`RetransmissionKind`] for
//! how the kinds are told apart.
//!
//! Memory is bounded: at most [`MAX_ROWS`] rows over all series and [`MAX_DATAGRAMS`] datagram
//! fates; past either, recording stops and the history says so ([`History::truncated`]).

use std::collections::{BTreeMap, HashMap};

use celltcp_engine::SimTime;

use crate::observe::Seen;

/// Rows kept over every series of every stream.
pub const MAX_ROWS: usize = 8_000_000;
/// Datagram fates kept (the datagrams injected first).
pub const MAX_DATAGRAMS: usize = 4_000_000;

/// RFC 6298 §2.3: α = 1/8, β = 1/4, K = 4.
const ALPHA: f64 = 1.0 / 8.0;
const BETA: f64 = 1.0 / 4.0;
const K: f64 = 4.0;
/// RFC 6298 §2.1: the RTO before the first sample, ns.
const INITIAL_RTO_NS: u64 = 1_000_000_000;
/// RFC 6298 §2.5: the upper bound of the RTO, ns.
const MAX_RTO_NS: u64 = 60_000_000_000;

/// How the RTO is estimated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HistoryConfig {
    /// Lower bound of the estimate, ns. RFC 6298 (2.4) asks for 1 s; Linux uses 200 ms
    /// (`TCP_RTO_MIN`), the default here, since the real programs are usually Linux's TCP.
    pub min_rto_ns: u64,
    /// Clock granularity G of RFC 6298 (2.2), ns (1 ms: Linux's jiffy at HZ = 1000).
    pub granularity_ns: u64,
}

impl Default for HistoryConfig {
    fn default() -> Self {
        HistoryConfig {
            min_rto_ns: 200_000_000,
            granularity_ns: 1_000_000,
        }
    }
}

/// SRTT and RTTVAR of RFC 6298 §2, ns.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RtoEstimator {
    srtt_ns: Option<f64>,
    rttvar_ns: f64,
}

impl RtoEstimator {
    /// Takes a measurement `r_ns` (2.2 for the first, 2.3 after).
    pub fn sample(&mut self, r_ns: u64) {
        let r = r_ns as f64;
        match self.srtt_ns {
            None => {
                self.srtt_ns = Some(r);
                self.rttvar_ns = r / 2.0;
            }
            Some(srtt) => {
                // RTTVAR is updated with the SRTT from before this sample (2.3).
                self.rttvar_ns = (1.0 - BETA) * self.rttvar_ns + BETA * (srtt - r).abs();
                self.srtt_ns = Some((1.0 - ALPHA) * srtt + ALPHA * r);
            }
        }
    }

    /// SRTT, ns; `None` before the first sample.
    pub fn srtt_ns(&self) -> Option<f64> {
        self.srtt_ns
    }

    /// The RTO, ns: `SRTT + max(G, K·RTTVAR)` within `[min_rto, 60 s]`; 1 s before a sample.
    pub fn rto_ns(&self, cfg: &HistoryConfig) -> u64 {
        match self.srtt_ns {
            None => INITIAL_RTO_NS.max(cfg.min_rto_ns),
            Some(srtt) => {
                let rto = srtt + (cfg.granularity_ns as f64).max(K * self.rttvar_ns);
                (rto.round() as u64).clamp(cfg.min_rto_ns, MAX_RTO_NS.max(cfg.min_rto_ns))
            }
        }
    }
}

/// What made a sender retransmit, as seen from the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetransmissionKind {
    /// The retransmission timer expired: the segment holds the sender's cumulative ACK point
    /// (RFC 6298 (5.4) retransmits "the earliest segment that has not been acknowledged"), it
    /// follows a silence of at least the RTO estimate, and no ACK at all reached the sender for
    /// at least half the estimate (it was not being clocked by duplicate ACKs, as in fast
    /// recovery). The retransmissions that repair the rest of the flight after it, until the
    /// data outstanding at the timeout is acknowledged, are of this kind too: they are the
    /// slow start that follows the timeout (RFC 5681 §3.1), and celltcp's TCP records them as
    /// RTO retransmissions as well.
    Timeout,
    /// Loss recovery on duplicate ACKs: at least one duplicate ACK (RFC 5681 §2, or an ACK
    /// with SACK blocks, RFC 6675 §2) reached the sender since its last ACK of new data, and
    /// the sender is not repairing a timeout.
    Fast,
    /// Anything else: a tail loss probe, the slow-start retransmissions after a timeout, a
    /// retransmission without a reason visible on the path.
    Other,
}

/// One retransmitted data segment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Retransmission {
    /// When it entered the path, ns.
    pub time_ns: u64,
    pub kind: RetransmissionKind,
    /// Time since the data it repeats was last sent, ns (0 when that is not known).
    pub silence_ns: u64,
    /// Time since the last ACK of any kind reached the sender, ns.
    pub quiet_ns: u64,
    /// The RTO estimate then, ns.
    pub rto_ns: u64,
}

/// A time series: times (ns) and values, in the order recorded.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rows {
    pub time_ns: Vec<u64>,
    pub value: Vec<f64>,
}

impl Rows {
    fn push(&mut self, time_ns: u64, value: f64) {
        self.time_ns.push(time_ns);
        self.value.push(value);
    }

    pub fn len(&self) -> usize {
        self.time_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_ns.is_empty()
    }
}

/// One direction of data of a connection.
#[derive(Clone, Debug, Default)]
pub struct StreamHistory {
    /// Data segments that entered the path.
    pub data_segments: u64,
    pub seq_sent: Rows,
    pub ack_received: Rows,
    pub delivered: Rows,
    pub rtt_sample: Rows,
    pub srtt: Rows,
    pub retransmissions: Vec<Retransmission>,
    /// The RTO estimator over the samples so far.
    pub rto: RtoEstimator,
    /// Highest data offset that entered the path, exclusive.
    snd_max: u64,
    /// The sender's cumulative ACK point: the highest ACK offset that reached it.
    una: Option<u64>,
    /// Data sent and not yet acknowledged: start offset → (end offset, last sent, ns).
    outstanding: BTreeMap<u64, (u64, u64)>,
    /// When the last ACK of any kind reached the sender, ns.
    last_ack_ns: Option<u64>,
    /// Duplicate ACKs that reached the sender since its last ACK of new data.
    dupacks: u32,
    /// Window field of the last ACK that reached the sender.
    last_window: Option<u16>,
    /// While a timeout is being repaired: the `snd_max` when it fired (the recovery point).
    timeout_recovery_until: Option<u64>,
    /// Highest delivered count recorded.
    delivered_max: u64,
}

impl StreamHistory {
    /// A data segment of this stream entered the path at `t_ns`; returns the classification of
    /// a retransmission.
    fn data_entered(
        &mut self,
        t_ns: u64,
        start: u64,
        end: u64,
        retransmission: bool,
        cfg: &HistoryConfig,
        rows: &mut Budget,
    ) -> Option<Retransmission> {
        self.data_segments += 1;
        if !retransmission {
            if end > self.snd_max {
                if rows.take() {
                    self.seq_sent.push(t_ns, start as f64);
                }
                self.outstanding.insert(start, (end, t_ns));
            }
            self.snd_max = self.snd_max.max(end);
            return None;
        }
        let rto_ns = self.rto.rto_ns(cfg);
        // The outstanding range holding `start`, and when it was last sent.
        let sent = self
            .outstanding
            .range(..=start)
            .next_back()
            .filter(|(_, (e, _))| *e > start)
            .map(|(&s, &(e, last))| (s, e, last));
        let silence_ns = sent.map_or(0, |(_, _, last)| t_ns.saturating_sub(last));
        let quiet_ns = self.last_ack_ns.map_or(t_ns, |a| t_ns.saturating_sub(a));
        let at_una = self
            .una
            .is_some_and(|u| start <= u && u < end.max(start + 1));
        let kind = if self.timeout_recovery_until.is_some() {
            RetransmissionKind::Timeout
        } else if at_una && silence_ns >= rto_ns && quiet_ns >= rto_ns / 2 {
            // What is outstanding now is repaired as part of this timeout.
            self.timeout_recovery_until = Some(self.snd_max);
            self.dupacks = 0;
            RetransmissionKind::Timeout
        } else if self.dupacks > 0 {
            RetransmissionKind::Fast
        } else {
            RetransmissionKind::Other
        };
        if let Some((s, e, _)) = sent {
            self.outstanding.insert(s, (e, t_ns));
        }
        self.snd_max = self.snd_max.max(end);
        let r = Retransmission {
            time_ns: t_ns,
            kind,
            silence_ns,
            quiet_ns,
            rto_ns,
        };
        if rows.take() {
            self.retransmissions.push(r);
        }
        Some(r)
    }

    /// The receiver's cumulative ACK entered the path at `t_ns`, `delivered` bytes delivered.
    fn ack_entered(&mut self, t_ns: u64, delivered: u64, rows: &mut Budget) {
        if delivered > self.delivered_max && rows.take() {
            self.delivered_max = delivered;
            self.delivered.push(t_ns, delivered as f64);
        }
    }

    /// An ACK for offset `ack` reached the sender (left the path) at `t_ns`.
    fn ack_left(&mut self, t_ns: u64, ack: u64, seen: &Seen, rows: &mut Budget) {
        self.last_ack_ns = Some(t_ns);
        if let Some(r) = seen.rtt_ns {
            self.rto.sample(r);
            if rows.take() {
                self.rtt_sample.push(t_ns, r as f64 * 1e-9);
                let srtt = self.rto.srtt_ns().unwrap_or(r as f64);
                self.srtt.push(t_ns, srtt * 1e-9);
            }
        }
        match self.una {
            Some(una) if ack <= una => {
                // RFC 5681 §2: no data, no SYN/FIN, the same ACK number, data outstanding,
                // the same window; RFC 6675 §2 counts an ACK with SACK information as well.
                let same_window = self.last_window == Some(seen.window);
                if ack == una && seen.pure_ack && ack < self.snd_max && (same_window || seen.sack) {
                    self.dupacks += 1;
                }
            }
            _ => {
                self.una = Some(ack);
                if rows.take() {
                    self.ack_received.push(t_ns, ack as f64);
                }
                self.dupacks = 0;
                while let Some((&s, &(e, _))) = self.outstanding.first_key_value() {
                    if e > ack {
                        break;
                    }
                    self.outstanding.remove(&s);
                }
                if self
                    .timeout_recovery_until
                    .is_some_and(|recover| ack >= recover)
                {
                    self.timeout_recovery_until = None;
                }
            }
        }
        self.last_window = Some(seen.window);
    }
}

/// The remaining room for rows.
#[derive(Clone, Copy, Debug)]
struct Budget {
    left: usize,
    exhausted: bool,
}

impl Budget {
    /// Takes room for one row; false (and remembered) when there is none.
    fn take(&mut self) -> bool {
        if self.left == 0 {
            self.exhausted = true;
            return false;
        }
        self.left -= 1;
        true
    }
}

/// What happened to one datagram on the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fate {
    /// Its stream; `u32::MAX` for a datagram of no followed connection.
    stream: u32,
    entered_ns: u64,
    /// `u64::MAX` while it has not left.
    left_ns: u64,
}

const NO_STREAM: u32 = u32::MAX;
const NOT_LEFT: u64 = u64::MAX;

/// A datagram that entered the path and never left it, while a later one of its stream did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lost {
    pub stream: u32,
    pub entered_ns: u64,
    /// When the last earlier datagram of its stream left (its entry when none had), ns.
    pub after_ns: u64,
    /// When the first later datagram of its stream left, ns.
    pub before_ns: u64,
}

/// The history of every followed connection (see the module documentation).
#[derive(Clone, Debug)]
pub struct History {
    cfg: HistoryConfig,
    streams: Vec<StreamHistory>,
    /// Fates by payload key, from `first_key`.
    fates: Vec<Fate>,
    first_key: Option<u64>,
    budget: Budget,
    fates_truncated: bool,
}

impl History {
    pub fn new(cfg: HistoryConfig) -> History {
        History {
            cfg,
            streams: Vec::new(),
            fates: Vec::new(),
            first_key: None,
            budget: Budget {
                left: MAX_ROWS,
                exhausted: false,
            },
            fates_truncated: false,
        }
    }

    /// The configuration of the RTO estimate.
    pub fn config(&self) -> &HistoryConfig {
        &self.cfg
    }

    /// The stream of direction `direction` of connection `connection`.
    pub fn stream_id(connection: u32, direction: usize) -> u32 {
        connection * 2 + direction as u32
    }

    /// The history of stream `id`, if anything was recorded for it.
    pub fn stream(&self, id: u32) -> Option<&StreamHistory> {
        self.streams.get(id as usize)
    }

    /// Number of streams (some possibly empty).
    pub fn streams(&self) -> usize {
        self.streams.len()
    }

    fn stream_mut(&mut self, id: u32) -> &mut StreamHistory {
        let i = id as usize;
        if self.streams.len() <= i {
            self.streams.resize_with(i + 1, StreamHistory::default);
        }
        &mut self.streams[i]
    }

    /// Some rows or fates were not kept ([`MAX_ROWS`], [`MAX_DATAGRAMS`]).
    pub fn truncated(&self) -> bool {
        self.budget.exhausted || self.fates_truncated
    }

    /// A datagram stored under payload key `key` entered the path at `t`; `seen` is what the
    /// observer made of it (`None`: not a segment of a followed connection). Keys must come
    /// in increasing order (the payload table counts them up).
    pub fn entered(&mut self, key: u64, t: SimTime, seen: Option<&Seen>) {
        let t_ns = t.as_ns();
        let stream = seen.map_or(NO_STREAM, |s| Self::stream_id(s.connection, s.direction));
        self.record_fate(key, stream, t_ns);
        let Some(seen) = seen else { return };
        let cfg = self.cfg;
        let mut budget = self.budget;
        if let Some(d) = seen.data {
            self.stream_mut(stream).data_entered(
                t_ns,
                d.start,
                d.end,
                d.retransmission,
                &cfg,
                &mut budget,
            );
        }
        if seen.ack.is_some() {
            let other = Self::stream_id(seen.connection, 1 - seen.direction);
            self.stream_mut(other)
                .ack_entered(t_ns, seen.delivered, &mut budget);
        }
        self.budget = budget;
    }

    /// The datagram under payload key `key` left the path at `t` (reached its destination
    /// host, whether or not its descriptor then took it).
    pub fn left(&mut self, key: u64, t: SimTime) {
        let t_ns = t.as_ns();
        if let Some(first) = self.first_key {
            if let Some(f) = key
                .checked_sub(first)
                .and_then(|i| self.fates.get_mut(i as usize))
            {
                f.left_ns = f.left_ns.min(t_ns);
            }
        }
    }

    /// A datagram that left the path at `t` was written to its receiver; `seen` is what the
    /// observer made of it (its ACK has now reached the sender of the other direction).
    pub fn written(&mut self, t: SimTime, seen: &Seen) {
        let t_ns = t.as_ns();
        let Some(ack) = seen.ack else { return };
        let mut budget = self.budget;
        let other = Self::stream_id(seen.connection, 1 - seen.direction);
        self.stream_mut(other)
            .ack_left(t_ns, ack, seen, &mut budget);
        self.budget = budget;
    }

    fn record_fate(&mut self, key: u64, stream: u32, entered_ns: u64) {
        let first = *self.first_key.get_or_insert(key);
        let Some(index) = key.checked_sub(first) else {
            return;
        };
        let index = index as usize;
        if index >= MAX_DATAGRAMS {
            self.fates_truncated = true;
            return;
        }
        // Keys of datagrams the history was not told about (none in practice) get no fate.
        while self.fates.len() < index {
            self.fates.push(Fate {
                stream: NO_STREAM,
                entered_ns,
                left_ns: NOT_LEFT,
            });
        }
        if self.fates.len() == index {
            self.fates.push(Fate {
                stream,
                entered_ns,
                left_ns: NOT_LEFT,
            });
        }
    }

    /// The datagrams of followed streams lost on the path: each that never left while a
    /// datagram of its stream that entered after it did. On a path that keeps each stream's
    /// order (links and queues are first in, first out), it would have left between its
    /// neighbours' departures, `after_ns` and `before_ns`. A datagram with no later one that
    /// left was still on the path, or lost with the stream's last ones, when the run ended: it
    /// is not counted.
    pub fn lost(&self) -> Vec<Lost> {
        let mut last_left: HashMap<u32, u64> = HashMap::new();
        let mut pending: HashMap<u32, Vec<usize>> = HashMap::new();
        let mut out = Vec::new();
        for (i, f) in self.fates.iter().enumerate() {
            if f.stream == NO_STREAM {
                continue;
            }
            if f.left_ns == NOT_LEFT {
                pending.entry(f.stream).or_default().push(i);
                continue;
            }
            if let Some(waiting) = pending.remove(&f.stream) {
                let prev = last_left.get(&f.stream).copied();
                for j in waiting {
                    let g = self.fates[j];
                    out.push(Lost {
                        stream: g.stream,
                        entered_ns: g.entered_ns,
                        after_ns: prev.unwrap_or(g.entered_ns),
                        before_ns: f.left_ns,
                    });
                }
            }
            last_left.insert(f.stream, f.left_ns);
        }
        out.sort_by_key(|l| (l.stream, l.entered_ns));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::SeenData;

    const MS: u64 = 1_000_000;

    #[test]
    fn the_rto_follows_rfc_6298() {
        let cfg = HistoryConfig {
            min_rto_ns: 0,
            granularity_ns: MS,
        };
        let mut e = RtoEstimator::default();
        assert_eq!(e.rto_ns(&cfg), INITIAL_RTO_NS, "(2.1) before a sample");
        e.sample(100 * MS);
        // (2.2): SRTT = R, RTTVAR = R/2, RTO = R + 4·R/2 = 3R.
        assert_eq!(e.rto_ns(&cfg), 300 * MS);
        e.sample(60 * MS);
        // (2.3): RTTVAR = 3/4·50 + 1/4·40 = 47.5 ms; SRTT = 7/8·100 + 1/8·60 = 95 ms.
        assert_eq!(e.srtt_ns(), Some(95.0 * MS as f64));
        assert_eq!(e.rto_ns(&cfg), 285 * MS);
        // (2.4): the floor.
        let floor = HistoryConfig::default();
        for _ in 0..200 {
            e.sample(50 * MS);
        }
        assert_eq!(e.rto_ns(&floor), 200 * MS);
        // G dominates a vanishing variance.
        let g = HistoryConfig {
            min_rto_ns: 0,
            granularity_ns: 10 * MS,
        };
        assert!(e.rto_ns(&g) >= 60 * MS && e.rto_ns(&g) < 61 * MS);
    }

    fn data(connection: u32, start: u64, len: u64, retx: bool) -> Seen {
        Seen {
            connection,
            direction: 0,
            data: Some(SeenData {
                start,
                end: start + len,
                retransmission: retx,
            }),
            ack: None,
            delivered: 0,
            pure_ack: false,
            window: 100,
            sack: false,
            rtt_ns: None,
        }
    }

    fn ack(connection: u32, ack: u64, rtt_ms: Option<u64>) -> Seen {
        Seen {
            connection,
            direction: 1,
            data: None,
            ack: Some(ack),
            delivered: ack,
            pure_ack: true,
            window: 100,
            sack: false,
            rtt_ns: rtt_ms.map(|r| r * MS),
        }
    }

    fn t(ms: u64) -> SimTime {
        SimTime::from_ns(ms * MS)
    }

    #[test]
    fn a_datagram_that_never_left_between_two_that_did_is_lost() {
        let mut h = History::new(HistoryConfig::default());
        for (k, at) in [(1u64, 0u64), (2, 1), (3, 2), (4, 3)] {
            h.entered(k, t(at), Some(&data(0, k * 100, 100, false)));
        }
        h.entered(5, t(4), None);
        h.left(1, t(10));
        h.left(4, t(40));
        // 2 and 3 would have left between 10 ms and 40 ms.
        let lost = h.lost();
        assert_eq!(lost.len(), 2);
        assert_eq!(
            lost[0],
            Lost {
                stream: 0,
                entered_ns: MS,
                after_ns: 10 * MS,
                before_ns: 40 * MS
            }
        );
        // A datagram still on the path at the end is not lost.
        h.entered(6, t(50), Some(&data(0, 500, 100, false)));
        assert_eq!(h.lost().len(), 2);
    }

    #[test]
    fn a_retransmission_after_a_silence_of_an_rto_at_the_ack_point_is_a_timeout() {
        let mut h = History::new(HistoryConfig::default());
        // Ten segments of 100 bytes at 0..9 ms; the first four acknowledged at 50..53 ms
        // with 50 ms samples.
        for k in 0..10u64 {
            h.entered(k + 1, t(k), Some(&data(0, k * 100, 100, false)));
        }
        for k in 0..4u64 {
            h.left(100 + k, t(50 + k));
            h.written(t(50 + k), &ack(0, (k + 1) * 100, Some(50)));
        }
        let s = h.stream(0).unwrap();
        let rto = s.rto.rto_ns(h.config());
        assert_eq!(rto, 200 * MS, "the floor: 50 ms samples of no variance");
        // The head (offset 400, sent at 4 ms) again 300 ms after the last ACK.
        h.entered(20, t(353), Some(&data(0, 400, 100, true)));
        let r = h.stream(0).unwrap().retransmissions[0];
        assert_eq!(r.kind, RetransmissionKind::Timeout);
        assert_eq!((r.silence_ns, r.quiet_ns), (349 * MS, 300 * MS));
        // The next hole is repaired in slow start after the ACK: part of the timeout, even
        // with duplicate ACKs about; so is the rest, until the flight is acknowledged.
        h.left(110, t(410));
        h.written(t(410), &ack(0, 500, None));
        h.left(111, t(411));
        h.written(t(411), &ack(0, 500, None));
        h.entered(21, t(412), Some(&data(0, 500, 100, true)));
        assert_eq!(
            h.stream(0).unwrap().retransmissions[1].kind,
            RetransmissionKind::Timeout
        );
        h.written(t(460), &ack(0, 1000, None));
        h.entered(22, t(470), Some(&data(0, 1000, 100, false)));
        h.written(t(520), &ack(0, 1000, None));
        h.written(t(521), &ack(0, 1000, None));
        h.entered(23, t(522), Some(&data(0, 1000, 100, true)));
        assert_eq!(
            h.stream(0).unwrap().retransmissions[2].kind,
            RetransmissionKind::Fast,
            "after the repair, duplicate ACKs start fast recovery again"
        );
    }

    #[test]
    fn a_head_resent_while_duplicate_acks_arrive_is_not_a_timeout() {
        // A long RTT with little variance: the estimate (about 1.006 s) is below the age of a
        // segment repaired by fast retransmit one RTT and a reordering window later.
        let mut h = History::new(HistoryConfig::default());
        for k in 0..40u64 {
            h.entered(k + 1, t(k), Some(&data(0, k * 100, 100, false)));
        }
        for k in 0..20u64 {
            h.written(t(1000 + k), &ack(0, (k + 1) * 100, Some(1000)));
        }
        for k in 0..4u64 {
            h.written(t(1100 + k * 10), &ack(0, 2000, None));
        }
        let rto = h.stream(0).unwrap().rto.rto_ns(h.config());
        assert!(rto < 1_010 * MS, "{rto}");
        h.entered(50, t(1140), Some(&data(0, 2000, 100, true)));
        let r = h.stream(0).unwrap().retransmissions[0];
        assert_eq!((r.silence_ns, r.quiet_ns), (1120 * MS, 10 * MS));
        assert!(r.silence_ns >= rto);
        assert_eq!(r.kind, RetransmissionKind::Fast);
    }

    #[test]
    fn a_retransmission_after_duplicate_acks_is_fast_and_a_probe_is_neither() {
        let mut h = History::new(HistoryConfig::default());
        for k in 0..10u64 {
            h.entered(k + 1, t(k), Some(&data(0, k * 100, 100, false)));
        }
        h.left(100, t(50));
        h.written(t(50), &ack(0, 100, Some(50)));
        // A tail probe of the last segment 100 ms later: no duplicate ACK, not at the ACK
        // point.
        h.entered(30, t(150), Some(&data(0, 900, 100, true)));
        // Three duplicate ACKs (same window, no data), then the head again.
        for k in 0..3 {
            h.left(101 + k, t(160 + k));
            h.written(t(160 + k), &ack(0, 100, None));
        }
        h.entered(31, t(165), Some(&data(0, 100, 100, true)));
        let kinds: Vec<_> = h
            .stream(0)
            .unwrap()
            .retransmissions
            .iter()
            .map(|r| r.kind)
            .collect();
        assert_eq!(
            kinds,
            vec![RetransmissionKind::Other, RetransmissionKind::Fast]
        );
        // A window update is not a duplicate ACK.
        let mut h = History::new(HistoryConfig::default());
        h.entered(1, t(0), Some(&data(0, 0, 100, false)));
        h.entered(2, t(1), Some(&data(0, 100, 100, false)));
        h.left(3, t(50));
        h.written(t(50), &ack(0, 100, Some(50)));
        let mut update = ack(0, 100, None);
        update.window = 200;
        h.left(4, t(51));
        h.written(t(51), &update);
        h.entered(5, t(60), Some(&data(0, 100, 100, true)));
        assert_eq!(
            h.stream(0).unwrap().retransmissions[0].kind,
            RetransmissionKind::Other
        );
    }

    #[test]
    fn series_hold_new_data_acks_and_deliveries() {
        let mut h = History::new(HistoryConfig::default());
        h.entered(1, t(0), Some(&data(0, 0, 100, false)));
        h.entered(2, t(1), Some(&data(0, 100, 100, false)));
        h.entered(3, t(2), Some(&data(0, 0, 100, true)));
        // The receiver's ACKs entering (its direction is 1): delivery rows.
        h.entered(4, t(20), Some(&ack(0, 100, None)));
        h.entered(5, t(21), Some(&ack(0, 100, None)));
        h.entered(6, t(22), Some(&ack(0, 200, None)));
        h.left(4, t(40));
        h.written(t(40), &ack(0, 100, Some(40)));
        h.left(6, t(42));
        h.written(t(42), &ack(0, 200, None));
        let s = h.stream(0).unwrap();
        assert_eq!(s.seq_sent.value, vec![0.0, 100.0]);
        assert_eq!(s.delivered.value, vec![100.0, 200.0]);
        assert_eq!(s.delivered.time_ns, vec![20 * MS, 22 * MS]);
        assert_eq!(s.ack_received.value, vec![100.0, 200.0]);
        assert_eq!(s.rtt_sample.value, vec![0.04]);
        assert_eq!(s.data_segments, 3);
        assert!(!h.truncated());
    }
}
