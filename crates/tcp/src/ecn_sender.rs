//! The ECN sender of RFC 3168 §6.1.2: an ECN-Echo reduces the window at most once per window
//! of data, and the first new data segment after the reduction carries CWR.

/// When the next ECN-Echo may reduce the window, and whether CWR is owed.
#[derive(Clone, Copy, Debug, Default)]
pub struct EcnSender {
    /// ECE is ignored until SND.UNA passes this offset (one reduction per window).
    recover: u64,
    /// Set CWR on the next new data segment.
    cwr_pending: bool,
}

impl EcnSender {
    /// An ECN-Echo may reduce the window: data sent after the last reduction (or loss
    /// response) has been acknowledged — SND.UNA is strictly beyond its recovery point.
    pub fn may_reduce(&self, snd_una: u64) -> bool {
        snd_una > self.recover
    }

    /// The window was reduced for an ECN-Echo with SND.NXT at `snd_nxt`: CWR is owed and no
    /// reduction follows in this window.
    pub fn on_reduction(&mut self, snd_nxt: u64) {
        self.recover = snd_nxt;
        self.cwr_pending = true;
    }

    /// No ECN reduction until SND.UNA passes `offset` (a loss response already reduced this
    /// window, or a new connection starts at it).
    pub fn hold_until(&mut self, offset: u64) {
        self.recover = offset;
    }

    /// Whether the segment being built carries CWR; the flag is then taken.
    pub fn take_cwr(&mut self) -> bool {
        std::mem::take(&mut self.cwr_pending)
    }
}
