//! The options both ends agreed on in the handshake: SACK (RFC 2018 §2), timestamps (RFC 7323
//! §3.2), ECN (RFC 3168 §6.1.1), window scaling (RFC 7323 §2.2) and the send MSS (RFC 9293
//! §3.7.1).

/// What the handshake negotiated; all off and the configured MSS before it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NegotiatedOptions {
    /// Both SYNs carried SACK-permitted.
    pub sack: bool,
    /// Both SYNs carried the timestamps option.
    pub timestamps: bool,
    /// The ECN-setup SYN was answered by an ECN-setup SYN-ACK.
    pub ecn: bool,
    /// Both SYNs carried the window-scale option.
    pub window_scale: bool,
    /// Effective send MSS: min(our MSS, the peer's announced MSS), bytes.
    pub mss: u32,
    /// The peer's window-scale shift, applied to the windows it advertises.
    pub snd_wscale: u8,
    /// Our window-scale shift, applied to the windows we advertise.
    pub rcv_wscale: u8,
}

impl NegotiatedOptions {
    /// Before the handshake: nothing agreed, segments of our own MSS.
    pub fn before_handshake(mss: u32) -> Self {
        NegotiatedOptions {
            mss,
            ..Default::default()
        }
    }
}
