//! What the RLC entities of a DCH carry: a 16-byte reference to an IP packet that the link
//! keeps aside, instead of the packet itself.
//!
//! Why: an RLC entity copies its SDU value into every PDU that carries a piece of it, and a PDU
//! moves by value through the transmitter, the transport channel and the receiver. A DCH cuts
//! each IP packet into dozens of 40-byte PDUs (38 for a 1500-byte packet), so with the 152-byte
//! stamped packet as the SDU, copying PDUs (704 bytes each) took three quarters of the run time.
//! With a reference the PDU is 192 bytes.
//!
//! The packets wait in a `PacketStore` per direction, in the order they were written, until
//! the receiving side delivers their reference. RLC AM delivers in sequence (a function of AM in 25.322 §4), so
//! when the SDU of sequence number s is delivered, every packet written before it has been
//! delivered or will never be (its PDUs were discarded after MaxDAT): the store drops them then.

use std::collections::VecDeque;

use celltcp_engine::SimTime;
use celltcp_net::packet::Packet;

use crate::cell::StampedPacket;
use crate::rlc::RlcSdu;

/// An IP packet in the RLC of one direction: its sequence number in that direction's
/// `PacketStore` and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DchSdu {
    /// Position in the order of writing, from 0; unique within a direction.
    pub seq: u64,
    /// IP datagram bytes.
    pub size_bytes: u32,
}

impl RlcSdu for DchSdu {
    #[inline]
    fn size_bytes(&self) -> u32 {
        self.size_bytes
    }
    #[inline]
    fn sdu_id(&self) -> u64 {
        self.seq
    }
}

/// The packets of one direction whose SDU the receiving side has not delivered yet.
#[derive(Debug, Default)]
pub(crate) struct PacketStore {
    /// Sequence number of `slots[0]`.
    base: u64,
    slots: VecDeque<StampedPacket>,
}

impl PacketStore {
    /// Keeps `packet`, handed over at `now`, and returns its reference.
    pub(crate) fn insert(&mut self, packet: Packet, now: SimTime) -> DchSdu {
        let seq = self.base + self.slots.len() as u64;
        self.slots.push_back(StampedPacket {
            packet,
            arrived: now,
        });
        DchSdu {
            seq,
            size_bytes: packet.size_bytes(),
        }
    }

    /// Forgets the packet inserted last (the RLC refused its SDU).
    pub(crate) fn remove_last(&mut self) {
        self.slots.pop_back();
    }

    /// The packet of a delivered SDU; the packets written before it are dropped (delivered or
    /// discarded already). `None` for a reference not held (delivered twice, or unknown).
    pub(crate) fn take(&mut self, sdu: DchSdu) -> Option<StampedPacket> {
        let idx = usize::try_from(sdu.seq.checked_sub(self.base)?).ok()?;
        if idx >= self.slots.len() {
            return None;
        }
        self.slots.drain(..idx);
        self.base = sdu.seq + 1;
        self.slots.pop_front()
    }

    /// Packets held (written, not yet delivered or known to be lost).
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rlc::testkit::sdu;

    #[test]
    fn delivery_in_order_releases_the_skipped_packets() {
        let mut s = PacketStore::default();
        let refs: Vec<DchSdu> = (0..5)
            .map(|i| s.insert(sdu(100 + i, 50 + i as u32), SimTime::from_ns(i)))
            .collect();
        assert_eq!(
            refs[3],
            DchSdu {
                seq: 3,
                size_bytes: 53
            }
        );
        let p = s.take(refs[0]).unwrap();
        assert_eq!((p.packet.uid, p.arrived), (100, SimTime::ZERO));
        // 1 and 2 were discarded: delivering 3 drops them.
        assert_eq!(s.take(refs[3]).unwrap().packet.uid, 103);
        assert_eq!(s.len(), 1);
        assert!(s.take(refs[1]).is_none(), "gone");
        assert!(s.take(refs[3]).is_none(), "taken once");
        let r5 = s.insert(sdu(105, 60), SimTime::ZERO);
        assert_eq!(r5.seq, 5);
        s.remove_last();
        assert_eq!(s.insert(sdu(106, 60), SimTime::ZERO).seq, 5);
        assert_eq!(s.take(refs[4]).unwrap().packet.uid, 104);
        assert_eq!(
            s.take(DchSdu {
                seq: 99,
                size_bytes: 1
            }),
            None
        );
    }
}
