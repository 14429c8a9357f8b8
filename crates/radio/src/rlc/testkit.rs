//! Fixtures shared by the RLC tests.

use std::net::Ipv4Addr;

use celltcp_engine::{SimDuration, SimTime};
use celltcp_net::packet::FlowId;
use celltcp_net::packet::{
    Ecn, IpHeader, Packet, Transport, UdpHeader, IPV4_HEADER_BYTES, UDP_HEADER_BYTES,
};

/// A UDP packet of `size_bytes` on the wire (at least the 28 bytes of IP and UDP headers).
pub(crate) fn sdu(uid: u64, size_bytes: u32) -> Packet {
    let headers = IPV4_HEADER_BYTES + UDP_HEADER_BYTES;
    Packet {
        uid,
        flow: FlowId(0),
        ip: IpHeader {
            src: Ipv4Addr::new(10, 0, 0, 1),
            dst: Ipv4Addr::new(10, 0, 0, 2),
            ecn: Ecn::NotEct,
            dscp: 0,
            ttl: 64,
            id: 0,
        },
        transport: Transport::Udp(UdpHeader {
            src_port: 5000,
            dst_port: 5001,
        }),
        payload_len: size_bytes.saturating_sub(headers),
        app_seq: uid,
        created_at: SimTime::ZERO,
        tunnel: None,
    }
}

/// Items in flight through a test "MAC", each delivered at its arrival time, in the order they
/// were put in when times tie (so a run is the same whatever order `Vec::swap_remove` leaves
/// them in). The fault model — which items are lost, delayed or duplicated — is each test's.
pub(crate) struct InFlight<T> {
    items: Vec<(SimTime, u64, T)>,
    next_seq: u64,
}

impl<T> InFlight<T> {
    pub(crate) fn new() -> Self {
        InFlight {
            items: Vec::new(),
            next_seq: 0,
        }
    }

    /// `item` arrives `delay_ms` after `now`.
    pub(crate) fn push(&mut self, now: SimTime, delay_ms: u64, item: T) {
        self.items
            .push((now + SimDuration::from_ms(delay_ms), self.next_seq, item));
        self.next_seq += 1;
    }

    /// The items due at or before `now`, by arrival time, then in the order put in.
    pub(crate) fn arrivals(&mut self, now: SimTime) -> Vec<T> {
        let mut due = Vec::new();
        let mut k = 0;
        while k < self.items.len() {
            if self.items[k].0 <= now {
                due.push(self.items.swap_remove(k));
            } else {
                k += 1;
            }
        }
        due.sort_by_key(|&(at, seq, _)| (at, seq));
        due.into_iter().map(|(_, _, x)| x).collect()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_flight_delivers_by_time_then_in_order_put_in() {
        let mut f = InFlight::new();
        let t0 = SimTime::ZERO;
        f.push(t0, 3, 'a');
        f.push(t0, 1, 'b');
        f.push(t0, 3, 'c');
        f.push(t0, 2, 'd');
        assert!(f.arrivals(t0).is_empty());
        let at = |ms| t0 + SimDuration::from_ms(ms);
        assert_eq!(f.arrivals(at(2)), vec!['b', 'd']);
        assert!(!f.is_empty());
        assert_eq!(f.arrivals(at(3)), vec!['a', 'c']);
        assert!(f.is_empty());
    }
}
