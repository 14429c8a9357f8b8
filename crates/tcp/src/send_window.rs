//! The send sequence space of RFC 9293 §3.3.1: SND.UNA, SND.NXT and the peer's window SND.WND
//! with the segment that last updated it (SND.WL1, SND.WL2), as offsets from the ISS.
//!
//! The window update follows RFC 9293 §3.10.7.4: a segment updates SND.WND only if it is newer
//! than the one that last did (SND.WL1 < SEG.SEQ, or SND.WL1 = SEG.SEQ and SND.WL2 ≤ SEG.ACK),
//! so that an old segment reordered behind a newer one cannot reopen or shrink the window. The
//! largest window ever offered is kept for the sender's silly-window-syndrome avoidance
//! (RFC 9293 §3.8.6.2.1).

/// SND.UNA, SND.NXT, SND.WND, SND.WL1 and SND.WL2 of one connection (offsets from the ISS;
/// the SYN occupies offset 0, so data starts at 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SendWindow {
    una: u64,
    nxt: u64,
    wnd: u64,
    wl1: u64,
    wl2: u64,
    max_wnd: u64,
}

impl SendWindow {
    /// SND.UNA: the oldest unacknowledged offset.
    #[inline]
    pub fn una(&self) -> u64 {
        self.una
    }

    /// SND.NXT: the next offset to send.
    #[inline]
    pub fn nxt(&self) -> u64 {
        self.nxt
    }

    /// SND.WND: the peer's window in bytes (scaled).
    #[inline]
    pub fn wnd(&self) -> u64 {
        self.wnd
    }

    /// The largest window the peer has offered, bytes.
    #[inline]
    pub fn max_wnd(&self) -> u64 {
        self.max_wnd
    }

    /// FlightSize of RFC 5681 eq. (4): data sent but not cumulatively acknowledged.
    #[inline]
    pub fn flight_size(&self) -> u64 {
        self.nxt - self.una
    }

    /// Some sent data is not yet cumulatively acknowledged.
    #[inline]
    pub fn has_outstanding(&self) -> bool {
        self.una < self.nxt
    }

    /// Bytes the receive window still admits beyond SND.NXT: SND.UNA + SND.WND − SND.NXT.
    #[inline]
    pub fn room(&self) -> u64 {
        (self.una + self.wnd).saturating_sub(self.nxt)
    }

    /// The window of the peer's SYN (never scaled, RFC 7323 §2.2), taken in LISTEN.
    pub fn on_syn(&mut self, window: u64) {
        self.wnd = window;
        self.max_wnd = window;
    }

    /// SYN-SENT: the SYN-ACK acknowledged our SYN and carries the first (unscaled) window;
    /// RFC 9293 §3.10.7.3 sets SND.WL1 = SEG.SEQ − IRS offset 0 and SND.WL2 = SEG.ACK.
    pub fn on_syn_ack(&mut self, window: u64) {
        self.una = 1;
        self.on_syn(window);
        self.wl1 = 0;
        self.wl2 = 1;
    }

    /// SYN-RECEIVED: the ACK of our SYN-ACK (RFC 9293 §3.10.7.4, "SND.WND ← SEG.WND,
    /// SND.WL1 ← SEG.SEQ, SND.WL2 ← SEG.ACK" — the window itself follows in the ordinary
    /// update of the same segment).
    pub fn on_syn_ack_acked(&mut self, wl1: u64) {
        self.una = 1;
        self.wl1 = wl1;
        self.wl2 = 1;
    }

    /// The handshake is complete: data starts at offset 1.
    pub fn start_data(&mut self) {
        self.nxt = 1;
    }

    /// RFC 9293 §3.10.7.4 window update for a segment at `seq` (SND.WL1 for a segment whose
    /// sequence number is outside the receive window) acknowledging `ack` with the scaled
    /// `window`.
    pub fn update_window(&mut self, seq: Option<u64>, ack: u64, window: u64) {
        let seq = seq.unwrap_or(self.wl1);
        if ack >= self.una && (self.wl1 < seq || (self.wl1 == seq && self.wl2 <= ack)) {
            self.wnd = window;
            self.wl1 = seq;
            self.wl2 = ack;
            self.max_wnd = self.max_wnd.max(window);
        }
    }

    /// SND.UNA ← SEG.ACK for an acceptable ACK (SND.UNA < SEG.ACK ≤ SND.NXT).
    pub fn on_cumulative_ack(&mut self, ack: u64) {
        debug_assert!(ack > self.una && ack <= self.nxt);
        self.una = ack;
    }

    /// SND.NXT advances over `len` newly sent sequence numbers.
    pub fn on_new_data_sent(&mut self, len: u64) {
        self.nxt += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 9293 §3.10.7.4: an older segment (lower SEG.SEQ, or the same SEG.SEQ with a lower
    /// SEG.ACK) does not update SND.WND; a newer one does, and the maximum is kept.
    #[test]
    fn only_a_newer_segment_updates_the_window() {
        let mut w = SendWindow::default();
        w.on_syn_ack(1000);
        w.start_data();
        w.on_new_data_sent(500);
        w.update_window(Some(10), 1, 4000);
        assert_eq!((w.wnd(), w.max_wnd()), (4000, 4000));
        w.update_window(Some(5), 1, 100);
        assert_eq!(w.wnd(), 4000, "lower SEG.SEQ");
        w.on_cumulative_ack(300);
        w.update_window(Some(10), 200, 100);
        assert_eq!(w.wnd(), 4000, "same SEG.SEQ, older SEG.ACK");
        w.update_window(Some(10), 300, 100);
        assert_eq!((w.wnd(), w.max_wnd()), (100, 4000));
        // SND.UNA + SND.WND − SND.NXT = 300 + 100 − 501.
        assert_eq!(w.room(), 0);
        assert_eq!(w.flight_size(), 201);
        // Outside the receive window the segment counts as SND.WL1.
        w.update_window(None, 300, 700);
        assert_eq!(w.room(), 499);
    }
}
