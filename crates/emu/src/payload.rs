//! The real bytes of the datagrams on the emulated path.
//!
//! The simulated [`celltcp_net::packet::Packet`] stays a small `Copy` value; the bytes wait here
//! under a key the packet carries in `app_seq`. Keys count up from 1 and map to a ring of
//! [`CAPACITY`] slots, so a lookup is an index and a comparison. A datagram leaves the table
//! when it leaves the path. One dropped on the path (by a queue, a loss model, a handover) is
//! never asked for; its slot is reused when the keys come round again, which bounds the memory
//! to `CAPACITY` datagrams. A datagram still on the path when `CAPACITY` newer ones have
//! entered has lost its bytes and is dropped when it comes out (counted as expired): at
//! 50 Mbit/s of 1500-byte datagrams that takes 3.9 s of queueing.

/// Slots of the ring: datagrams that can be on the path at once.
pub const CAPACITY: usize = 1 << 14;

/// Spare buffers kept for reuse, so that the steady state does not allocate.
const POOL_LIMIT: usize = 1024;

#[derive(Default)]
struct Slot {
    /// 0 = empty.
    key: u64,
    bytes: Vec<u8>,
}

/// Real datagrams by key (see the module documentation).
pub struct PayloadTable {
    slots: Vec<Slot>,
    next_key: u64,
    pool: Vec<Vec<u8>>,
}

impl Default for PayloadTable {
    fn default() -> Self {
        Self::new()
    }
}

impl PayloadTable {
    pub fn new() -> Self {
        PayloadTable {
            slots: (0..CAPACITY).map(|_| Slot::default()).collect(),
            next_key: 1,
            pool: Vec::new(),
        }
    }

    /// Stores a copy of `bytes`; returns its key (never 0).
    pub fn insert(&mut self, bytes: &[u8]) -> u64 {
        let key = self.next_key;
        self.next_key += 1;
        let slot = &mut self.slots[key as usize % CAPACITY];
        if slot.bytes.capacity() == 0 {
            slot.bytes = self.pool.pop().unwrap_or_default();
        }
        slot.key = key;
        slot.bytes.clear();
        slot.bytes.extend_from_slice(bytes);
        key
    }

    /// Takes the bytes stored under `key` out of the table; `None` when they were never
    /// stored, were taken already, or expired (see the module documentation).
    pub fn take(&mut self, key: u64) -> Option<Vec<u8>> {
        let slot = &mut self.slots[key as usize % CAPACITY];
        if key == 0 || slot.key != key {
            return None;
        }
        slot.key = 0;
        Some(std::mem::take(&mut slot.bytes))
    }

    /// Returns a buffer obtained from [`PayloadTable::take`] for reuse.
    pub fn recycle(&mut self, mut buf: Vec<u8>) {
        if self.pool.len() < POOL_LIMIT {
            buf.clear();
            self.pool.push(buf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_come_out_once_under_their_key() {
        let mut t = PayloadTable::new();
        let a = t.insert(b"first");
        let b = t.insert(b"second");
        assert_ne!(a, b);
        assert_eq!(t.take(b).as_deref(), Some(&b"second"[..]));
        assert_eq!(t.take(b), None, "taken twice");
        let buf = t.take(a).unwrap();
        assert_eq!(buf, b"first");
        t.recycle(buf);
        assert_eq!(t.take(0), None);
        assert_eq!(t.take(999), None, "never stored");
    }

    #[test]
    fn a_datagram_overtaken_by_a_full_ring_has_expired() {
        let mut t = PayloadTable::new();
        let old = t.insert(b"old");
        for _ in 0..CAPACITY {
            t.insert(b"x");
        }
        assert_eq!(t.take(old), None);
        let last = t.insert(b"new");
        assert_eq!(t.take(last).as_deref(), Some(&b"new"[..]));
    }
}
