//! The transmission buffer of an RLC entity: SDUs that no PDU has carried yet, and the
//! assembly of new data PDUs from them by segmentation and concatenation (36.322 §5.1.2.1 for
//! UM, §5.1.3.1.1 for AM: "segment and/or concatenate the RLC SDUs so that the AMD PDUs fit
//! within the total size of RLC PDU(s) indicated by lower layer").

use std::collections::VecDeque;

use super::data_field::{DataElement, DataField};
use super::header::HeaderModel;
use super::{BufferLimit, PduMode, RlcSdu, RlcSduRefused};

/// A new PDU's data field and its header size, bytes.
pub(crate) struct NewPdu<S> {
    pub(crate) data: DataField<S>,
    pub(crate) header_bytes: u32,
    /// Size on the air: header + data in flexible mode, the fixed size in fixed mode.
    pub(crate) size_bytes: u32,
}

#[derive(Debug)]
pub(crate) struct SduBuffer<S> {
    sdus: VecDeque<S>,
    /// Bytes of the head SDU already carried by earlier PDUs.
    head_offset: u32,
    /// Bytes waiting: the sizes of the waiting SDUs minus `head_offset`.
    bytes: u64,
    limit: BufferLimit,
}

impl<S: RlcSdu> SduBuffer<S> {
    pub(crate) fn new(limit: BufferLimit) -> Self {
        SduBuffer {
            sdus: VecDeque::new(),
            head_offset: 0,
            bytes: 0,
            limit,
        }
    }

    /// Whether an SDU of `size` bytes would be queued after `ahead_sdus` more SDUs of
    /// `ahead_bytes` in all (data on their way to the buffer, e.g. over X2-U).
    pub(crate) fn admits_after(&self, ahead_sdus: usize, ahead_bytes: u64, size: u32) -> bool {
        match self.limit {
            BufferLimit::Unlimited => true,
            BufferLimit::Bytes(b) => self.bytes + ahead_bytes + u64::from(size) <= b,
            BufferLimit::Sdus(n) => self.sdus.len() + ahead_sdus < n,
        }
    }

    /// Queues `sdu` unless the limit is reached.
    pub(crate) fn push(&mut self, sdu: S) -> Result<(), RlcSduRefused> {
        let size = sdu.size_bytes();
        if size == 0 {
            return Err(RlcSduRefused::EmptySdu);
        }
        if !self.admits_after(0, 0, size) {
            return Err(RlcSduRefused::BufferFull {
                sdu_bytes: size,
                buffered_bytes: self.bytes,
                buffered_sdus: self.sdus.len(),
                limit: self.limit,
            });
        }
        self.sdus.push_back(sdu);
        self.bytes += size as u64;
        Ok(())
    }

    /// SDU bytes waiting.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// SDUs waiting, including a partly sent one.
    pub(crate) fn len(&self) -> usize {
        self.sdus.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.sdus.is_empty()
    }

    /// Removes every waiting SDU (RLC re-establishment, 36.322 §5.4) and returns how many.
    pub(crate) fn clear(&mut self) -> usize {
        let n = self.sdus.len();
        self.sdus.clear();
        self.head_offset = 0;
        self.bytes = 0;
        n
    }

    /// The SDU at the head of the buffer, if any.
    pub(crate) fn head(&self) -> Option<&S> {
        self.sdus.front()
    }

    /// Bytes of the head SDU that earlier PDUs already carried (0: the head is untouched).
    pub(crate) fn head_sent_bytes(&self) -> u32 {
        self.head_offset
    }

    /// Moves every waiting SDU into `out` whole, in order — the head SDU too when earlier PDUs
    /// already carried part of it — and leaves the buffer empty. What a transmitter hands back
    /// to PDCP at handover (36.323 §5.2.1.1: SDUs whose delivery is not confirmed are sent
    /// again whole; RLC never confirms a partly sent SDU).
    pub(crate) fn drain_sdus(&mut self, out: &mut Vec<S>) {
        out.extend(self.sdus.drain(..));
        self.head_offset = 0;
        self.bytes = 0;
    }

    /// Discards the waiting SDU whose `sdu_id()` is `id` if no PDU has carried a byte of it
    /// (36.322 §5.3 and 38.322 §5.4: the upper layer's discard applies only "if neither the RLC
    /// SDU nor a segment thereof has been submitted to the lower layers"); returns whether it
    /// was discarded.
    pub(crate) fn discard_waiting(&mut self, id: u64) -> bool {
        let skip = usize::from(self.head_offset > 0);
        let Some(at) = self.sdus.iter().skip(skip).position(|s| s.sdu_id() == id) else {
            return false;
        };
        if let Some(s) = self.sdus.remove(at + skip) {
            self.bytes -= s.size_bytes() as u64;
        }
        true
    }

    /// Estimated bytes on the air to send everything waiting (for buffer status reports).
    pub(crate) fn estimated_pdu_bytes(&self, mode: PduMode, h: &HeaderModel) -> u64 {
        if self.sdus.is_empty() {
            return 0;
        }
        match mode {
            PduMode::Flexible => self.bytes + self.sdus.len() as u64 * h.fixed_bytes as u64,
            PduMode::Fixed { bytes } => {
                let payload = bytes.saturating_sub(h.fixed_bytes).max(1) as u64;
                let data = self.bytes + self.sdus.len() as u64 * h.fixed_li_bytes() as u64;
                data.div_ceil(payload) * bytes as u64
            }
        }
    }

    /// Takes the next `take` bytes of the head SDU as an element.
    pub(crate) fn take_from_head(&mut self, take: u32) -> DataElement<S> {
        let sdu = self.sdus[0];
        let e = DataElement {
            sdu,
            offset: self.head_offset,
            len: take,
        };
        self.bytes -= take as u64;
        if self.head_offset + take == sdu.size_bytes() {
            self.sdus.pop_front();
            self.head_offset = 0;
        } else {
            self.head_offset += take;
        }
        e
    }

    /// Bytes of the head SDU that no PDU has carried yet.
    pub(crate) fn head_remaining(&self) -> Option<u32> {
        self.sdus.front().map(|s| s.size_bytes() - self.head_offset)
    }

    /// A new PDU of at most `max_bytes` (flexible mode) or exactly the fixed size, or `None` if
    /// nothing is waiting or the size leaves no room for a data byte.
    pub(crate) fn build(
        &mut self,
        mode: PduMode,
        max_bytes: u32,
        h: &HeaderModel,
    ) -> Option<NewPdu<S>> {
        match mode {
            PduMode::Flexible => self.build_flexible(max_bytes, h),
            PduMode::Fixed { bytes } if max_bytes >= bytes => self.build_fixed(bytes, h),
            PduMode::Fixed { .. } => None,
        }
    }

    /// Greedy concatenation: add elements while the header with one more LI still leaves room
    /// for at least one data byte; the last element is segmented to fill the size exactly.
    fn build_flexible(&mut self, max_bytes: u32, h: &HeaderModel) -> Option<NewPdu<S>> {
        let mut data = DataField::new();
        while let Some(remaining) = self.head_remaining() {
            // 36.322 §6.2.2.5: a non-last element needs an LI, which has to hold its length.
            if data.last().is_some_and(|e| e.len > h.li_max) {
                break;
            }
            let used = h.flexible_header_bytes(data.len() + 1, false) + data.bytes();
            if used >= max_bytes {
                break;
            }
            let take = (max_bytes - used).min(remaining);
            let whole = take == remaining;
            data.push(self.take_from_head(take));
            if !whole {
                break;
            }
        }
        if data.is_empty() {
            return None;
        }
        let header_bytes = h.flexible_header_bytes(data.len(), false);
        Some(NewPdu {
            size_bytes: header_bytes + data.bytes(),
            header_bytes,
            data,
        })
    }

    /// Fixed-size assembly: an element that ends an SDU before the end of the PDU costs an LI;
    /// an SDU remainder that would not leave room for its LI is cut so that the PDU ends with a
    /// segment followed by padding (whose start the same LI marks).
    fn build_fixed(&mut self, pdu_bytes: u32, h: &HeaderModel) -> Option<NewPdu<S>> {
        let li = h.fixed_li_bytes();
        let mut used = h.fixed_bytes;
        let mut lis = 0u32;
        let mut data = DataField::new();
        while let Some(remaining) = self.head_remaining() {
            let space = pdu_bytes.saturating_sub(used);
            if space == 0 {
                break;
            }
            if remaining >= space {
                data.push(self.take_from_head(space));
                break;
            } else if remaining + li <= space {
                data.push(self.take_from_head(remaining));
                used += remaining + li;
                lis += 1;
            } else {
                let take = space.saturating_sub(li);
                if take > 0 {
                    data.push(self.take_from_head(take));
                    lis += 1;
                }
                break;
            }
        }
        if data.is_empty() {
            return None;
        }
        Some(NewPdu {
            header_bytes: h.fixed_bytes + lis * li,
            size_bytes: pdu_bytes,
            data,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::sdu;
    use super::*;
    use celltcp_net::packet::Packet;

    fn parts(p: &NewPdu<Packet>) -> Vec<(u64, u32, u32)> {
        p.data
            .iter()
            .map(|e| (e.sdu.uid, e.offset, e.len))
            .collect()
    }

    #[test]
    fn flexible_concatenates_then_segments_the_last_sdu() {
        let h = HeaderModel::lte_am(10);
        let mut b = SduBuffer::new(BufferLimit::Unlimited);
        b.push(sdu(1, 100)).unwrap();
        b.push(sdu(2, 100)).unwrap();
        b.push(sdu(3, 100)).unwrap();
        // 250 bytes: header 2 + 2 LI... element 1 (100), element 2 (100) with header 4,
        // element 3 with header 5: 250 - 5 - 200 = 45 bytes of SDU 3.
        let p = b.build(PduMode::Flexible, 250, &h).unwrap();
        assert_eq!(parts(&p), vec![(1, 0, 100), (2, 0, 100), (3, 0, 45)]);
        assert_eq!(p.header_bytes, 5);
        assert_eq!(p.size_bytes, 250);
        assert_eq!(b.bytes(), 55);
        let p = b.build(PduMode::Flexible, 1000, &h).unwrap();
        assert_eq!(parts(&p), vec![(3, 45, 55)]);
        assert_eq!(p.size_bytes, 57);
        assert!(b.build(PduMode::Flexible, 1000, &h).is_none());
    }

    #[test]
    fn flexible_refuses_a_grant_without_room_for_data() {
        let h = HeaderModel::lte_am(10);
        let mut b = SduBuffer::new(BufferLimit::Unlimited);
        b.push(sdu(1, 100)).unwrap();
        assert!(b.build(PduMode::Flexible, 2, &h).is_none());
        let p = b.build(PduMode::Flexible, 3, &h).unwrap();
        assert_eq!(parts(&p), vec![(1, 0, 1)]);
    }

    #[test]
    fn an_element_longer_than_the_li_range_ends_the_pdu() {
        let h = HeaderModel::lte_am(10);
        let mut b = SduBuffer::new(BufferLimit::Unlimited);
        b.push(sdu(1, 3000)).unwrap();
        b.push(sdu(2, 100)).unwrap();
        let p = b.build(PduMode::Flexible, 5000, &h).unwrap();
        assert_eq!(parts(&p), vec![(1, 0, 3000)]);
    }

    #[test]
    fn fixed_pdus_carry_size_minus_header_and_mark_sdu_ends() {
        let h = HeaderModel::wcdma_am(40);
        let mut b = SduBuffer::new(BufferLimit::Unlimited);
        b.push(sdu(1, 100)).unwrap();
        b.push(sdu(2, 30)).unwrap();
        let mode = PduMode::Fixed { bytes: 40 };
        assert!(b.build(mode, 39, &h).is_none(), "grant below the PDU size");
        let p1 = b.build(mode, 1500, &h).unwrap();
        assert_eq!(
            (parts(&p1), p1.size_bytes, p1.header_bytes),
            (vec![(1, 0, 38)], 40, 2)
        );
        let p2 = b.build(mode, 40, &h).unwrap();
        assert_eq!(parts(&p2), vec![(1, 38, 38)]);
        // 24 bytes of SDU 1 end inside (2 + 1 LI + 24 = 27); SDU 2 fills the remaining 13.
        let p3 = b.build(mode, 40, &h).unwrap();
        assert_eq!(parts(&p3), vec![(1, 76, 24), (2, 0, 13)]);
        assert_eq!((p3.header_bytes, p3.size_bytes), (3, 40));
        let p4 = b.build(mode, 40, &h).unwrap();
        assert_eq!(parts(&p4), vec![(2, 13, 17)]);
        assert_eq!(
            (p4.header_bytes, p4.size_bytes),
            (3, 40),
            "17 bytes, LI, 20 bytes padding"
        );
        assert!(b.build(mode, 40, &h).is_none());
    }

    #[test]
    fn fixed_mode_cuts_an_sdu_whose_end_leaves_no_room_for_its_li() {
        // 200-byte PDUs use 2-byte LIs: a 197-byte SDU cannot end in the 198 free bytes with
        // its LI, so 196 bytes go now (LI marks the padding) and 1 byte in the next PDU.
        let h = HeaderModel::wcdma_am(200);
        let mode = PduMode::Fixed { bytes: 200 };
        let mut b = SduBuffer::new(BufferLimit::Unlimited);
        b.push(sdu(1, 197)).unwrap();
        let p1 = b.build(mode, 200, &h).unwrap();
        assert_eq!((parts(&p1), p1.header_bytes), (vec![(1, 0, 196)], 4));
        let p2 = b.build(mode, 200, &h).unwrap();
        assert_eq!((parts(&p2), p2.header_bytes), (vec![(1, 196, 1)], 4));
    }

    #[test]
    fn drain_returns_a_partly_sent_head_whole_and_empties_the_buffer() {
        let h = HeaderModel::lte_am(10);
        let mut b = SduBuffer::new(BufferLimit::Bytes(250));
        b.push(sdu(1, 100)).unwrap();
        b.push(sdu(2, 100)).unwrap();
        b.build(PduMode::Flexible, 42, &h).unwrap(); // 40 bytes of SDU 1
        assert_eq!(b.bytes(), 160);
        let mut out = vec![sdu(9, 50)];
        b.drain_sdus(&mut out);
        let got: Vec<(u64, u32)> = out.iter().map(|p| (p.uid, p.size_bytes())).collect();
        assert_eq!(got, vec![(9, 50), (1, 100), (2, 100)]);
        assert!(b.is_empty() && b.bytes() == 0);
        assert!(b.build(PduMode::Flexible, 1000, &h).is_none());
        // The limit counts from zero again, and a new head starts at its first byte.
        b.push(sdu(3, 250)).unwrap();
        let p = b.build(PduMode::Flexible, 1000, &h).unwrap();
        assert_eq!(parts(&p), vec![(3, 0, 250)]);
    }

    #[test]
    fn discard_removes_only_sdus_no_pdu_has_carried() {
        let h = HeaderModel::lte_am(10);
        let mut b = SduBuffer::new(BufferLimit::Unlimited);
        for uid in 1..=3 {
            b.push(sdu(uid, 100)).unwrap();
        }
        b.build(PduMode::Flexible, 42, &h).unwrap(); // 40 bytes of SDU 1
        assert!(!b.discard_waiting(1), "partly sent: stays");
        assert!(b.discard_waiting(3));
        assert!(!b.discard_waiting(3) && !b.discard_waiting(9));
        assert_eq!((b.len(), b.bytes()), (2, 160));
        let p = b.build(PduMode::Flexible, 1000, &h).unwrap();
        assert_eq!(parts(&p), vec![(1, 40, 60), (2, 0, 100)]);
    }

    #[test]
    fn limits_in_bytes_and_sdus_refuse_and_report() {
        let mut b = SduBuffer::new(BufferLimit::Bytes(250));
        b.push(sdu(1, 100)).unwrap();
        b.push(sdu(2, 100)).unwrap();
        let err = b.push(sdu(3, 100)).unwrap_err();
        assert_eq!(
            err,
            RlcSduRefused::BufferFull {
                sdu_bytes: 100,
                buffered_bytes: 200,
                buffered_sdus: 2,
                limit: BufferLimit::Bytes(250)
            }
        );
        b.push(sdu(4, 50)).unwrap();
        let mut c = SduBuffer::new(BufferLimit::Sdus(1));
        c.push(sdu(1, 100)).unwrap();
        assert!(c.push(sdu(2, 28)).is_err());
    }
}
