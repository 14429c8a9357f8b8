//! How a trace-driven link direction serves packets at the delivery opportunities of a
//! [`DeliveryTrace`] (Mahimahi's `mm-link`).
//!
//! Two accountings, chosen per direction ([`TraceAccounting`]):
//!
//! * **bytes** (the default) is Mahimahi's own. The facts below are read from Mahimahi's source
//!   (github.com/ravinet/mahimahi, `src/frontend/link_queue.cc`, `LinkQueue::rationalize`,
//!   `LinkQueue::read_packet`, `LinkQueue::use_a_delivery_opportunity` and the constructor;
//!   `src/frontend/link_queue.hh`, `PACKET_SIZE`; `src/util/netdevice.cc`, `TunDevice`):
//!   1. each opportunity carries [`OPPORTUNITY_WIRE_BYTES`] = 1504 bytes (`PACKET_SIZE`, "default
//!      max TUN payload size");
//!   2. a packet counts its IP bytes plus the 4-byte packet-information header that a TUN device
//!      opened without `IFF_NO_PI` puts before it ([`TUN_HEADER_BYTES`]), so a 1500-byte IP
//!      packet fills one opportunity exactly and a 52-byte ACK takes 56 bytes of one;
//!   3. the bytes of an opportunity that the packet in service leaves unused go to the next
//!      queued packet: several small packets share an opportunity, and a packet whose bytes do
//!      not fit carries the rest into the following opportunities and leaves at the one that
//!      completes it;
//!   4. bytes not used at the instant of an opportunity (no packet queued) are lost: capacity
//!      never accumulates;
//!   5. a packet only uses opportunities strictly after it arrives: `read_packet` runs the link
//!      up to the arrival's millisecond (`rationalize(now)`, which serves every opportunity at
//!      or before `now`) before it queues the packet. With Mahimahi's integer-millisecond clock
//!      a packet arriving within millisecond m waits for an opportunity after m; opportunity
//!      times being whole milliseconds, that is the same as "strictly after the arrival" in
//!      nanoseconds;
//!   6. the trace's time zero is the link's creation (`base_timestamp_` is taken in the
//!      constructor), not the first packet: here, the start of the run;
//!   7. when the trace ends it repeats, offset by its last timestamp (`base_timestamp_ +=
//!      schedule_.back()`), see [`DeliveryTrace::opportunity_time`].
//!
//! * **packets** (`accounting = "packets"`, celltcp's earlier model): each packet uses whole
//!   opportunities, one per started 1500 IP bytes ([`opportunities_for`]), the first at or after
//!   the instant it reaches the transmitter; unused opportunities are lost as well.
//!
//! Differences from Mahimahi kept in both: Mahimahi refuses a packet above 1504 bytes (it
//! stops with "packet size is greater than maximum"), while here a larger packet carries its
//! bytes over as many opportunities as it needs; Mahimahi takes a packet from its queue at an
//! opportunity, while here the transmitter takes the head-of-line packet as soon as it is idle
//! and the packet waits there for its opportunities (so the queue holds one packet fewer); and
//! Mahimahi's `--once` (the trace does not repeat) has no counterpart.

use std::sync::Arc;

use celltcp_engine::SimTime;

use crate::trace_file::{opportunities_for, DeliveryTrace};

/// Bytes one delivery opportunity carries under byte accounting: Mahimahi's `PACKET_SIZE`,
/// 1500 bytes of IP plus the 4-byte TUN packet-information header.
pub const OPPORTUNITY_WIRE_BYTES: u32 = 1504;

/// Bytes a packet counts beyond its IP length under byte accounting: the packet-information
/// header (2 bytes of flags, 2 of protocol) that a TUN device opened without `IFF_NO_PI` puts
/// before each packet Mahimahi reads (`TunDevice` sets only `IFF_TUN`).
pub const TUN_HEADER_BYTES: u32 = 4;

/// How a trace-driven direction charges a packet against the delivery opportunities.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TraceAccounting {
    /// Mahimahi's byte accounting (see the module documentation): the default.
    #[default]
    Bytes,
    /// One whole opportunity per started 1500 IP bytes, at or after the packet reaches the
    /// transmitter.
    Packets,
}

impl TraceAccounting {
    /// The scenario spelling: "bytes" or "packets".
    pub fn as_str(self) -> &'static str {
        match self {
            TraceAccounting::Bytes => "bytes",
            TraceAccounting::Packets => "packets",
        }
    }

    /// Parses the scenario spelling.
    pub fn parse(text: &str) -> Option<TraceAccounting> {
        match text {
            "bytes" => Some(TraceAccounting::Bytes),
            "packets" => Some(TraceAccounting::Packets),
            _ => None,
        }
    }

    /// Every accounting, in the order of the documentation.
    pub const ALL: [TraceAccounting; 2] = [TraceAccounting::Bytes, TraceAccounting::Packets];
}

/// Where the latest packet's bytes went: its first and last opportunity and the bytes it used
/// of each (every opportunity between them it used whole). Only the packet in service can own
/// bytes of opportunities after the end of a run, so this is all [`TraceService::utilization`]
/// needs to leave them out.
#[derive(Clone, Copy, Debug, Default)]
struct Reservation {
    first: u64,
    first_bytes: u32,
    last: u64,
    last_bytes: u32,
}

impl Reservation {
    /// Bytes this reservation holds in opportunity `k`.
    fn bytes_in(&self, k: u64) -> u64 {
        if k < self.first || k > self.last {
            0
        } else if k == self.first {
            u64::from(self.first_bytes)
        } else if k == self.last {
            u64::from(self.last_bytes)
        } else {
            u64::from(OPPORTUNITY_WIRE_BYTES)
        }
    }
}

/// The delivery-opportunity state of a trace-driven direction.
///
/// Call-order contract: [`TraceService::reserve`] is called once per packet, in the order the
/// packets reach the transmitter, with non-decreasing `now`, and never before the previous
/// packet's reservation has ended (a link transmits one packet at a time).
#[derive(Clone, Debug)]
pub struct TraceService {
    trace: Arc<DeliveryTrace>,
    accounting: TraceAccounting,
    /// Global index of the first opportunity neither fully used nor passed by.
    next: u64,
    /// Bytes left in opportunity `next` (byte accounting; [`OPPORTUNITY_WIRE_BYTES`] while it is
    /// untouched).
    left: u32,
    /// Opportunities that carried at least one byte of a packet since the start of the run.
    used: u64,
    /// Bytes charged to opportunities since the start of the run (byte accounting: IP bytes plus
    /// the TUN header; packet accounting: whole opportunities).
    bytes_used: u64,
    /// Σ slice × bytes charged over every opportunity (divided by the opportunity's bytes it
    /// gives the busy time; kept whole so that the sum is exact).
    busy_scaled: u128,
    /// The latest packet's reservation.
    last: Reservation,
}

impl TraceService {
    /// A service starting at time zero of the run with the trace's first line.
    pub fn new(trace: Arc<DeliveryTrace>, accounting: TraceAccounting) -> Self {
        TraceService {
            trace,
            accounting,
            next: 0,
            left: OPPORTUNITY_WIRE_BYTES,
            used: 0,
            bytes_used: 0,
            busy_scaled: 0,
            last: Reservation::default(),
        }
    }

    pub fn trace(&self) -> &DeliveryTrace {
        &self.trace
    }

    pub fn accounting(&self) -> TraceAccounting {
        self.accounting
    }

    /// Serves a packet of `size_bytes` IP bytes that reaches the transmitter at `now`; returns
    /// the time of the opportunity that completes it, when it has left (≥ `now`).
    ///
    /// `arrived_now` tells whether the packet reached the link at `now` (rather than waiting in
    /// its queue since earlier). Under byte accounting such a packet may not use an opportunity
    /// at `now`, nor what is left of one (Mahimahi serves the opportunities up to an arrival's
    /// instant before it queues the packet), while a packet queued earlier may use the bytes an
    /// opportunity at `now` has left. Packet accounting ignores it: a packet may use an
    /// opportunity at the instant it reaches the transmitter.
    pub fn reserve(&mut self, size_bytes: u32, now: SimTime, arrived_now: bool) -> SimTime {
        match self.accounting {
            TraceAccounting::Bytes => {
                self.reserve_bytes(size_bytes + TUN_HEADER_BYTES, now, arrived_now)
            }
            TraceAccounting::Packets => {
                self.reserve_opportunities(opportunities_for(size_bytes), now)
            }
        }
    }

    /// Byte accounting: charges `bytes` to the opportunities from the first usable one on.
    fn reserve_bytes(&mut self, bytes: u32, now: SimTime, arrived_now: bool) -> SimTime {
        // Opportunities this packet may not use pass; what they had left is lost.
        let first_usable = if arrived_now {
            self.trace.count_at_or_before(now)
        } else {
            self.trace.count_before(now)
        };
        if self.next < first_usable {
            self.next = first_usable;
            self.left = OPPORTUNITY_WIRE_BYTES;
        }
        let mut remaining = bytes.max(1);
        let mut reservation = Reservation {
            first: self.next,
            ..Reservation::default()
        };
        loop {
            let k = self.next;
            let take = remaining.min(self.left);
            if self.left == OPPORTUNITY_WIRE_BYTES {
                self.used += 1;
            }
            self.charge(k, take);
            if k == reservation.first {
                reservation.first_bytes = take;
            }
            reservation.last = k;
            reservation.last_bytes = take;
            remaining -= take;
            self.left -= take;
            if self.left == 0 {
                self.next += 1;
                self.left = OPPORTUNITY_WIRE_BYTES;
            }
            if remaining == 0 {
                self.last = reservation;
                return self.trace.opportunity_time(k);
            }
        }
    }

    /// Packet accounting: the `n` (≥ 1) opportunities not yet used at or after `now`; those
    /// before `now` pass unused.
    fn reserve_opportunities(&mut self, n: u64, now: SimTime) -> SimTime {
        let n = n.max(1);
        if self.trace.opportunity_time(self.next) < now {
            self.next = self.next.max(self.trace.count_before(now));
        }
        let first = self.next;
        let last = first + (n - 1);
        for k in first..=last {
            self.charge(k, OPPORTUNITY_WIRE_BYTES);
        }
        self.next = last + 1;
        self.used += n;
        self.last = Reservation {
            first,
            first_bytes: OPPORTUNITY_WIRE_BYTES,
            last,
            last_bytes: OPPORTUNITY_WIRE_BYTES,
        };
        self.trace.opportunity_time(last)
    }

    fn charge(&mut self, k: u64, bytes: u32) {
        self.bytes_used += u64::from(bytes);
        self.busy_scaled += u128::from(self.trace.slice_ns(k)) * u128::from(bytes);
    }

    /// Opportunities that carried at least one byte of a packet so far (including those
    /// reserved by the packet being served, which may lie in the future).
    pub fn opportunities_used(&self) -> u64 {
        self.used
    }

    /// Opportunities the trace offered from the start of the run to `end`, inclusive.
    pub fn opportunities_offered(&self, end: SimTime) -> u64 {
        self.trace.count_at_or_before(end)
    }

    /// Share of the capacity offered up to `end` that carried packets, in [0, 1]; NaN when no
    /// opportunity was offered. Byte accounting: bytes charged over 1504 bytes per opportunity
    /// offered; packet accounting: opportunities used over offered. `end` is at or after the
    /// last reservation's start (the end of the run).
    ///
    /// Bytes reserved in opportunities after `end` (by the packet still being served) do not
    /// count; only the latest reservation can reach past `end`, as packets are served one at a
    /// time and each reservation starts at or after the instant it is made.
    pub fn utilization(&self, end: SimTime) -> f64 {
        let offered = self.opportunities_offered(end);
        if offered == 0 {
            return f64::NAN;
        }
        let after_end: u64 = (offered.max(self.last.first)..=self.last.last)
            .map(|k| self.last.bytes_in(k))
            .sum();
        let used = self.bytes_used.saturating_sub(after_end);
        used as f64 / (offered as f64 * f64::from(OPPORTUNITY_WIRE_BYTES))
    }

    /// How long the used capacity kept the link occupied, nanoseconds: each opportunity stands
    /// for the interval since the previous one ([`DeliveryTrace::slice_ns`]), and a packet
    /// occupies the share of it that its bytes are of the opportunity's 1504 (all of it under
    /// packet accounting). A saturated link is busy all the time, gaps included.
    pub fn busy_ns(&self) -> u64 {
        let ns = self.busy_scaled / u128::from(OPPORTUNITY_WIRE_BYTES);
        ns.min(u128::from(u64::MAX)) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn at_ms(ms: u64) -> SimTime {
        SimTime::from_ns(ms * MS)
    }

    fn service(text: &str, accounting: TraceAccounting) -> TraceService {
        TraceService::new(Arc::new(DeliveryTrace::parse(text).unwrap()), accounting)
    }

    fn bytes(text: &str) -> TraceService {
        service(text, TraceAccounting::Bytes)
    }

    /// IP length of a packet that fills `n` bytes of opportunities with its TUN header.
    fn ip(n: u32) -> u32 {
        n - TUN_HEADER_BYTES
    }

    // Byte accounting: one test per rule of Mahimahi's `LinkQueue` (module documentation).

    /// Rule 1 and 2: an opportunity is 1504 bytes, and a packet counts 4 bytes more than its IP
    /// length: a 1500-byte IP packet fills one exactly; a 1501-byte one spills 1 byte into the
    /// next.
    #[test]
    fn an_opportunity_is_1504_bytes_and_a_packet_counts_its_tun_header() {
        let mut s = bytes("1\n2\n3\n4\n5\n6\n");
        assert_eq!(s.reserve(1500, SimTime::ZERO, true), at_ms(1));
        assert_eq!(s.reserve(1500, SimTime::ZERO, false), at_ms(2));
        // 1501 + 4 bytes: 1504 of the opportunity at 3 ms, 1 of the one at 4 ms.
        assert_eq!(s.reserve(1501, SimTime::ZERO, false), at_ms(4));
        // 1503 bytes remain at 4 ms: a 1499-byte packet (1503 with its header) fits.
        assert_eq!(s.reserve(1499, at_ms(4), false), at_ms(4));
        assert_eq!(s.reserve(40, at_ms(4), false), at_ms(5));
        // 26 ACKs of 52 bytes (56 with the header, 1456 in all) share one opportunity; the 27th
        // needs 8 bytes of the next.
        let mut s = bytes("1\n2\n");
        for _ in 0..26 {
            assert_eq!(s.reserve(52, SimTime::ZERO, false), at_ms(1));
        }
        assert_eq!(s.reserve(52, SimTime::ZERO, false), at_ms(2));
        assert_eq!(s.opportunities_used(), 2);
    }

    /// Rule 3: a packet whose bytes do not fit in what the opportunity has left carries the rest
    /// into the next opportunities and leaves at the one that completes it; the next packet
    /// goes on in the bytes left there.
    #[test]
    fn a_packet_spans_opportunities_and_the_next_uses_what_is_left() {
        let mut s = bytes("1\n2\n3\n4\n");
        // 1000 bytes at 1 ms (504 left), then 1000 more: 504 at 1 ms and 496 at 2 ms.
        assert_eq!(s.reserve(ip(1000), SimTime::ZERO, true), at_ms(1));
        assert_eq!(s.reserve(ip(1000), SimTime::ZERO, false), at_ms(2));
        // 1008 left at 2 ms: another 1000 bytes leave at 2 ms too, 8 bytes remain.
        assert_eq!(s.reserve(ip(1000), at_ms(2), false), at_ms(2));
        // A 3000-byte packet takes those 8, all of 3 ms and 1488 of 4 ms.
        assert_eq!(s.reserve(ip(3000), at_ms(2), false), at_ms(4));
        // The trace loops: 16 left at 4 ms, then 5, 6 ms, … (period 4 ms).
        assert_eq!(s.reserve(ip(16 + 1504 + 1), at_ms(4), false), at_ms(6));
        // Under packet accounting each of them takes whole opportunities.
        let mut p = service("1\n2\n3\n4\n", TraceAccounting::Packets);
        assert_eq!(p.reserve(ip(1000), SimTime::ZERO, true), at_ms(1));
        assert_eq!(p.reserve(ip(1000), SimTime::ZERO, false), at_ms(2));
    }

    /// Rule 4: bytes not used at an opportunity's instant are lost, both those of an
    /// opportunity that found the queue empty and what a packet left of one.
    #[test]
    fn unused_bytes_are_lost_not_accumulated() {
        let mut s = bytes("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n");
        // Idle until 5.5 ms: five opportunities (7520 bytes) pass. Four half-opportunity packets
        // (752 bytes each) arriving together then leave two per opportunity, not all at once.
        let t = SimTime::from_ns(5 * MS + MS / 2);
        assert_eq!(s.reserve(ip(752), t, true), at_ms(6));
        assert_eq!(s.reserve(ip(752), t, false), at_ms(6));
        assert_eq!(s.reserve(ip(752), t, false), at_ms(7));
        assert_eq!(s.reserve(ip(752), t, false), at_ms(7));
        // A 100-byte packet leaves 1404 bytes of the opportunity at 8 ms; the next packet
        // arrives at 8.5 ms: those bytes are gone, it waits for 9 ms.
        assert_eq!(s.reserve(ip(100), at_ms(7), true), at_ms(8));
        assert_eq!(
            s.reserve(ip(100), SimTime::from_ns(8 * MS + MS / 2), true),
            at_ms(9)
        );
        // 8 opportunities offered up to 8 ms, of which 4 · 752 + 100 bytes were used.
        let u = s.utilization(at_ms(8));
        assert_eq!(u, (4.0 * 752.0 + 100.0) / (8.0 * 1504.0));
    }

    /// Rule 5: a packet arriving exactly at an opportunity's instant does not use it (nor what a
    /// packet before it left of it); one queued before that instant does.
    #[test]
    fn a_packet_arriving_at_an_opportunity_waits_for_the_next() {
        let mut s = bytes("1\n2\n3\n4\n");
        // Arrives at 1 ms exactly: the opportunity at 1 ms has been served without it.
        assert_eq!(s.reserve(100, at_ms(1), true), at_ms(2));
        // Another arrives at 2 ms while the first is in service (it was queued at 1 ms): the
        // 1400 bytes left at 2 ms are not for it.
        assert_eq!(s.reserve(100, at_ms(2), true), at_ms(3));
        // One queued before 3 ms takes the transmitter at 3 ms and uses what is left there.
        assert_eq!(s.reserve(100, at_ms(3), false), at_ms(3));
        // Just before an opportunity's instant, it may use it.
        assert_eq!(s.reserve(100, SimTime::from_ns(4 * MS - 1), true), at_ms(4));
        // Packet accounting lets a packet use an opportunity at the instant it arrives.
        let mut p = service("1\n2\n3\n4\n", TraceAccounting::Packets);
        assert_eq!(p.reserve(100, at_ms(1), true), at_ms(1));
    }

    /// Rule 6: time zero is the link's creation: a first line `0` is an opportunity at the start
    /// of the run, which no packet can use (none arrives before it), and the trace does not wait
    /// for the first packet.
    #[test]
    fn the_trace_starts_at_time_zero_of_the_run() {
        let mut s = bytes("0\n3\n6\n");
        assert_eq!(s.reserve(1500, SimTime::ZERO, true), at_ms(3));
        // A packet first arriving at 4 ms does not restart the trace: its opportunity is at 6 ms.
        let mut s = bytes("0\n3\n6\n");
        assert_eq!(s.reserve(1500, at_ms(4), true), at_ms(6));
        // Offered by 6 ms: 0, 3, 6 and the 6 ms of the second repetition's first line.
        assert_eq!(s.utilization(at_ms(6)), 1.0 / 4.0);
        let mut p = service("0\n3\n6\n", TraceAccounting::Packets);
        assert_eq!(p.reserve(1500, SimTime::ZERO, true), SimTime::ZERO);
    }

    /// Rule 7: the trace repeats offset by its last timestamp, and the bytes of the last
    /// opportunity of one repetition carry a packet into the first of the next.
    #[test]
    fn the_trace_loops_and_bytes_carry_across_the_wrap() {
        // Opportunities at 2, 2, 5 | 7, 7, 10 | …
        let mut s = bytes("2\n2\n5\n");
        assert_eq!(s.reserve(ip(3008), SimTime::ZERO, true), at_ms(2));
        assert_eq!(s.reserve(ip(1000), at_ms(2), false), at_ms(5));
        // 504 bytes left at 5 ms, then both opportunities at 7 ms.
        assert_eq!(s.reserve(ip(504 + 1504 + 1), at_ms(5), false), at_ms(7));
        assert_eq!(s.reserve(ip(1503), at_ms(7), false), at_ms(7));
        assert_eq!(s.reserve(40, at_ms(7), false), at_ms(10));
        assert_eq!(s.utilization(at_ms(7)), 1.0);
    }

    #[test]
    fn busy_time_counts_the_share_of_each_slice() {
        let mut s = bytes("1\n2\n");
        s.reserve(ip(752), SimTime::ZERO, true);
        assert_eq!(s.busy_ns(), MS / 2);
        s.reserve(ip(1504), SimTime::ZERO, false);
        assert_eq!(s.busy_ns(), 3 * MS / 2);
    }

    #[test]
    fn utilization_ignores_bytes_reserved_after_the_end() {
        let mut s = bytes("1\n2\n3\n4\n");
        s.reserve(ip(752), SimTime::ZERO, true); // 752 of 1 ms
        s.reserve(ip(752 + 1504 + 100), at_ms(1), false); // 752 of 1, 2 ms, 100 of 3 ms
        assert_eq!(s.utilization(at_ms(1)), 1.0);
        assert_eq!(s.utilization(at_ms(2)), 1.0);
        assert_eq!(
            s.utilization(at_ms(3)),
            (2.0 * 1504.0 + 100.0) / (3.0 * 1504.0)
        );
        assert!(s.utilization(SimTime::ZERO).is_nan());
    }

    #[test]
    fn accounting_spellings_round_trip() {
        for a in TraceAccounting::ALL {
            assert_eq!(TraceAccounting::parse(a.as_str()), Some(a));
        }
        assert_eq!(TraceAccounting::parse("Bytes"), None);
        assert_eq!(TraceAccounting::default(), TraceAccounting::Bytes);
    }

    // Packet accounting keeps celltcp's earlier rules.

    #[test]
    fn packets_take_consecutive_whole_opportunities_at_or_after_now() {
        let mut s = service("1\n1\n4\n6\n", TraceAccounting::Packets);
        // One packet at 0: the first opportunity, at 1 ms.
        assert_eq!(s.reserve(40, SimTime::ZERO, true), at_ms(1));
        // The next packet at 1 ms takes the second opportunity in the same millisecond.
        assert_eq!(s.reserve(40, at_ms(1), true), at_ms(1));
        // A packet needing three: 4, 6 and (second repetition) 7 ms.
        assert_eq!(s.reserve(4500, at_ms(1), false), at_ms(7));
        assert_eq!(s.opportunities_used(), 5);
    }

    #[test]
    fn packets_let_opportunities_before_now_pass_unused() {
        let mut s = service("1\n1\n4\n6\n", TraceAccounting::Packets);
        // Idle until 13 ms: the opportunities at 1, 1, 4, 6, 7, 7, 10, 12 are lost.
        assert_eq!(s.reserve(1500, at_ms(13), true), at_ms(13));
        assert_eq!(s.reserve(1500, at_ms(13), true), at_ms(13));
        assert_eq!(s.reserve(1500, at_ms(13), true), at_ms(16));
        // A packet arriving just after an opportunity waits for the next one.
        assert_eq!(
            s.reserve(1500, SimTime::from_ns(16 * MS + 1), true),
            at_ms(18)
        );
    }

    #[test]
    fn packets_utilization_ignores_reservations_after_the_end() {
        let mut s = service("1\n2\n3\n4\n", TraceAccounting::Packets);
        s.reserve(1500, SimTime::ZERO, true);
        s.reserve(4500, at_ms(2), false); // 2, 3, 4 ms
                                          // By 3 ms: offered 1, 2, 3; used 1, 2, 3 (the reservation at 4 ms is in the future).
        assert_eq!(s.utilization(at_ms(3)), 1.0);
        assert_eq!(s.utilization(at_ms(4)), 1.0);
        // By 8 ms: 8 offered, 4 used.
        assert_eq!(s.utilization(at_ms(8)), 0.5);
        assert!(s.utilization(SimTime::ZERO).is_nan());
    }
}
