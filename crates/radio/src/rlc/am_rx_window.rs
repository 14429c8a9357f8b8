//! The receiving window of an AM receiving side, common to LTE and NR: its state variables, the
//! reception buffer they delimit, and when a received poll triggers a STATUS report.
//!
//! TS 36.322 §7.1 and TS 38.322 §7.1 define the same four variables under different names
//! (LTE numbers AMD PDUs, NR numbers RLC SDUs; "completely received" means every byte of it):
//!
//! | here | TS 36.322 | TS 38.322 | meaning |
//! |---|---|---|---|
//! | `next` | VR(R) | RX_Next | the SN following the last in-sequence completely received one; the lower edge of the window and the modulus base |
//! | `next + window` | VR(MR) | RX_Next + AM_Window_Size | the first SN above the window |
//! | `highest_status` | VR(MS) | RX_Highest_Status | the highest value ACK_SN may take in a STATUS PDU |
//! | `next_highest` | VR(H) | RX_Next_Highest | the SN following the highest SN received |
//! | `status_trigger` | VR(X) | RX_Next_Status_Trigger | the SN following the one that started t-Reordering / t-Reassembly |
//!
//! What the two specifications do differently stays with each receiving side: what an entry
//! of the buffer holds and when it is handed up (LTE reassembles in SN order as VR(R) passes;
//! NR delivers each SDU once complete), when t-Reordering / t-Reassembly starts and stops
//! (NR also looks at byte gaps of the SDU at RX_Next), LTE's MRW and NR's NACK ranges.

use std::collections::VecDeque;

use super::sn::SnSpace;

/// One entry of the reception buffer: what has been received of one SN.
pub(crate) trait RxEntry {
    /// Nothing received of this SN yet.
    fn missing() -> Self;
    /// Every byte of this SN has been received (36.322: "all byte segments"; 38.322: "all
    /// bytes of the RLC SDU").
    fn is_complete(&self) -> bool;
}

/// The receiving window and the reception buffer for SNs [`next`, `next_highest`), index =
/// SN − `next`. See the module documentation for the state variables.
#[derive(Debug)]
pub(crate) struct AmRxWindow<E> {
    sn: SnSpace,
    /// VR(R) / RX_Next.
    next: u32,
    /// VR(MS) / RX_Highest_Status.
    highest_status: u32,
    /// VR(H) / RX_Next_Highest.
    next_highest: u32,
    /// VR(X) / RX_Next_Status_Trigger.
    status_trigger: u32,
    buf: VecDeque<E>,
    /// SNs of received polls whose STATUS trigger is delayed (see [`Self::on_poll`]), in
    /// arrival order, without repeats.
    delayed_polls: Vec<u32>,
}

impl<E: RxEntry> AmRxWindow<E> {
    /// An empty window over `bits`-bit SNs with every state variable at 0 (36.322 §7.1,
    /// 38.322 §7.1: "initially set to 0").
    pub(crate) fn new(bits: u8) -> Self {
        AmRxWindow {
            sn: SnSpace::new(bits),
            next: 0,
            highest_status: 0,
            next_highest: 0,
            status_trigger: 0,
            buf: VecDeque::new(),
            delayed_polls: Vec::new(),
        }
    }

    /// A window whose state variables start at `sn` instead of 0.
    #[cfg(test)]
    pub(crate) fn starting_at(bits: u8, sn: u32) -> Self {
        let mut w = Self::new(bits);
        (w.next, w.highest_status, w.next_highest, w.status_trigger) = (sn, sn, sn, sn);
        w
    }

    /// The SN space (modulus and AM_Window_Size).
    #[inline]
    pub(crate) fn sn(&self) -> SnSpace {
        self.sn
    }
    /// VR(R) / RX_Next.
    #[inline]
    pub(crate) fn next(&self) -> u32 {
        self.next
    }
    /// VR(MS) / RX_Highest_Status.
    #[inline]
    pub(crate) fn highest_status(&self) -> u32 {
        self.highest_status
    }
    /// VR(H) / RX_Next_Highest.
    #[inline]
    pub(crate) fn next_highest(&self) -> u32 {
        self.next_highest
    }
    /// VR(X) / RX_Next_Status_Trigger.
    #[inline]
    pub(crate) fn status_trigger(&self) -> u32 {
        self.status_trigger
    }

    /// Offset of `sn` from VR(R) / RX_Next, the modulus base (36.322 §7.1, 38.322 §7.1).
    #[inline]
    pub(crate) fn off(&self, sn: u32) -> u32 {
        self.sn.offset(sn, self.next)
    }

    /// Whether `x` lies in the receiving window: VR(R) <= x < VR(MR) (36.322 §5.1.3.2.2),
    /// RX_Next <= x < RX_Next + AM_Window_Size (38.322 §5.2.3.2.2).
    #[inline]
    pub(crate) fn contains(&self, x: u32) -> bool {
        self.sn.contains(x) && self.off(x) < self.sn.window()
    }

    /// The entry at index `i` (SN `next + i`), if the buffer reaches it.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<&E> {
        self.buf.get(i)
    }

    /// The entry of SN `x`, which must lie in the window; entries up to it are created missing.
    pub(crate) fn entry_mut(&mut self, x: u32) -> &mut E {
        let i = self.off(x) as usize;
        if self.buf.len() <= i {
            self.buf.resize_with(i + 1, E::missing);
        }
        &mut self.buf[i]
    }

    /// Whether the entry at index `i` is completely received.
    #[inline]
    pub(crate) fn is_complete(&self, i: usize) -> bool {
        self.buf.get(i).is_some_and(E::is_complete)
    }

    /// The first SN at or after `sn` that is not completely received.
    pub(crate) fn first_incomplete_from(&self, sn: u32) -> u32 {
        let mut i = self.off(sn) as usize;
        while self.is_complete(i) {
            i += 1;
        }
        self.sn.add(self.next, i as u32)
    }

    /// After SN `x` was placed in the buffer: "if x >= VR(H), update VR(H) to x + 1" (36.322
    /// §5.1.3.2.3), "if x >= RX_Next_Highest, update RX_Next_Highest to x + 1" (38.322
    /// §5.2.3.2.3); then, if the SN at VR(MS) / RX_Highest_Status is now complete, move it to
    /// the first SN above not completely received (ibid., "if x = VR(MS)" / "if x =
    /// RX_Highest_Status": only the placed SN changed, so it is the one at that variable).
    #[inline]
    pub(crate) fn on_placed(&mut self, x: u32) {
        if self.off(x) >= self.off(self.next_highest) {
            self.next_highest = self.sn.add(x, 1);
        }
        if self.is_complete(self.off(self.highest_status) as usize) {
            self.highest_status = self.first_incomplete_from(self.highest_status);
        }
    }

    /// Sets VR(MS) / RX_Highest_Status to the first SN at or after `sn` not completely
    /// received (t-Reordering expiry, 36.322 §5.1.3.2.4; t-Reassembly expiry, 38.322
    /// §5.2.3.2.4, both from VR(X) / RX_Next_Status_Trigger).
    pub(crate) fn set_highest_status_from(&mut self, sn: u32) {
        self.highest_status = self.first_incomplete_from(sn);
    }

    /// "set VR(X) to VR(H)" / "set RX_Next_Status_Trigger to RX_Next_Highest", as
    /// t-Reordering / t-Reassembly starts.
    #[inline]
    pub(crate) fn mark_status_trigger(&mut self) {
        self.status_trigger = self.next_highest;
    }

    /// Moves VR(R) / RX_Next over the completely received SNs at the front of the buffer,
    /// handing each entry to `taken` in SN order.
    #[inline]
    pub(crate) fn advance_next(&mut self, mut taken: impl FnMut(E)) {
        while self.buf.front().is_some_and(E::is_complete) {
            if let Some(e) = self.buf.pop_front() {
                taken(e);
            }
            self.next = self.sn.add(self.next, 1);
        }
    }

    /// Moves VR(R) to `to`, `d` = `off(to)` SNs on (1 ..= AM_Window_Size), handing each SN
    /// below it to `taken` (`None` for an SN the buffer never reached); VR(H) and VR(MS) that
    /// fall below `to` move to it (an MRW, 25.322 §11.6.3).
    pub(crate) fn slide_to(&mut self, to: u32, mut taken: impl FnMut(Option<E>)) {
        let d = self.off(to);
        let (h_off, ms_off) = (self.off(self.next_highest), self.off(self.highest_status));
        for _ in 0..d {
            taken(self.buf.pop_front());
        }
        self.next = to;
        if h_off < d {
            self.next_highest = to;
        }
        if ms_off < d {
            self.highest_status = to;
        }
    }

    /// Empties the buffer in SN order through `taken` and sets every state variable back to
    /// 0, forgetting delayed polls (re-establishment, 36.322 §5.4).
    pub(crate) fn reset(&mut self, taken: impl FnMut(E)) {
        self.buf.drain(..).for_each(taken);
        (
            self.next,
            self.highest_status,
            self.next_highest,
            self.status_trigger,
        ) = (0, 0, 0, 0);
        self.delayed_polls.clear();
    }

    /// A poll received in SN `x` (36.322 §5.2.3, 38.322 §5.3.4, which read the same): true
    /// when the STATUS report is to be triggered now — the PDU is `discarded`, or x < VR(MS)
    /// or x >= VR(MR) (x < RX_Highest_Status or x >= RX_Next + AM_Window_Size) —, else "delay
    /// triggering the STATUS report until" that holds, which [`Self::delayed_poll_due`]
    /// checks.
    ///
    /// Each poll's trigger is delayed on its own condition, as both clauses state it per
    /// received poll. Keeping only one SN cannot do that: the lowest fires on time but loses
    /// the trigger of a higher poll still waiting when VR(MS) stops between the two; the
    /// highest holds back the lower poll's trigger past the instant its own condition held.
    pub(crate) fn on_poll(&mut self, x: u32, discarded: bool) -> bool {
        if discarded || self.poll_may_trigger(x) {
            return true;
        }
        if !self.delayed_polls.contains(&x) {
            self.delayed_polls.push(x);
        }
        false
    }

    /// Whether a delayed poll's condition now holds; such polls are served (removed).
    #[inline]
    pub(crate) fn delayed_poll_due(&mut self) -> bool {
        if self.delayed_polls.is_empty() {
            return false;
        }
        let before = self.delayed_polls.len();
        let (sn, next, hs) = (self.sn, self.next, self.highest_status);
        self.delayed_polls
            .retain(|&p| !Self::may_trigger(sn, next, hs, p));
        self.delayed_polls.len() < before
    }

    /// The SNs of the polls whose STATUS trigger is delayed.
    #[cfg(test)]
    pub(crate) fn delayed_polls(&self) -> &[u32] {
        &self.delayed_polls
    }

    #[inline]
    fn poll_may_trigger(&self, x: u32) -> bool {
        Self::may_trigger(self.sn, self.next, self.highest_status, x)
    }

    /// x < VR(MS) or x >= VR(MR), offsets from the modulus base VR(R).
    #[inline]
    fn may_trigger(sn: SnSpace, next: u32, highest_status: u32, x: u32) -> bool {
        let off = sn.offset(x, next);
        off < sn.offset(highest_status, next) || off >= sn.window()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry that is either missing or complete.
    impl RxEntry for bool {
        fn missing() -> Self {
            false
        }
        fn is_complete(&self) -> bool {
            *self
        }
    }

    fn receive(w: &mut AmRxWindow<bool>, x: u32) {
        *w.entry_mut(x) = true;
        w.on_placed(x);
        if x == w.next() {
            w.advance_next(drop);
        }
    }

    /// 36.322 §5.2.3 / 38.322 §5.3.4, one condition per poll: polls in SNs 2 and 4 wait while
    /// SN 0 is missing (VR(MS) = 0); SN 0 arriving moves VR(MS) to 3 and serves the poll in
    /// SN 2 alone; SN 3 moves it to 5 and serves the poll in SN 4. A poll repeated while it
    /// waits (t-PollRetransmit) is one delayed trigger, not two.
    #[test]
    fn each_delayed_poll_is_served_when_its_own_condition_holds() {
        let mut w = AmRxWindow::<bool>::new(10);
        for x in [1, 2, 4] {
            receive(&mut w, x);
        }
        assert!(!w.on_poll(2, false) && !w.on_poll(4, false) && !w.on_poll(4, false));
        assert_eq!(w.delayed_polls(), &[2, 4]);
        assert!(!w.delayed_poll_due());
        receive(&mut w, 0);
        assert_eq!((w.next(), w.highest_status(), w.next_highest()), (3, 3, 5));
        assert!(w.delayed_poll_due());
        assert_eq!(w.delayed_polls(), &[4]);
        assert!(!w.delayed_poll_due(), "served once");
        receive(&mut w, 3);
        assert_eq!((w.next(), w.highest_status()), (5, 5));
        assert!(w.delayed_poll_due());
        assert!(w.delayed_polls().is_empty());
    }

    /// A discarded PDU's poll, a poll below VR(MS) and one at VR(MR) = VR(R) + 512 (10-bit
    /// SN) trigger at once; a poll at VR(MR) − 1 waits.
    #[test]
    fn polls_below_vr_ms_at_vr_mr_or_discarded_trigger_at_once() {
        let mut w = AmRxWindow::<bool>::starting_at(10, 1000);
        receive(&mut w, 1000);
        assert_eq!(w.highest_status(), 1001);
        assert!(w.on_poll(1000, false), "x < VR(MS)");
        assert!(w.on_poll(1001, true), "discarded");
        assert!(w.on_poll((1001 + 512) % 1024, false), "x = VR(MR)");
        assert!(!w.on_poll((1001 + 511) % 1024, false), "x = VR(MR) - 1");
        assert_eq!(w.delayed_polls(), &[488]);
    }

    /// An MRW to SN 6 hands SNs 0..6 over (the buffer reached 0..4), and VR(H) and VR(MS)
    /// below it move with VR(R).
    #[test]
    fn slide_to_hands_over_every_sn_below_and_moves_the_variables() {
        let mut w = AmRxWindow::<bool>::new(10);
        receive(&mut w, 3);
        let mut seen = Vec::new();
        w.slide_to(6, |e| seen.push(e));
        assert_eq!(
            seen,
            vec![
                Some(false),
                Some(false),
                Some(false),
                Some(true),
                None,
                None
            ]
        );
        assert_eq!((w.next(), w.highest_status(), w.next_highest()), (6, 6, 6));
    }
}
