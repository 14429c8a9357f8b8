//! Errors of rendering and parsing datagrams. Byte offsets count from the first byte of the IPv4
//! header.

/// Why a [`crate::packet::Packet`] cannot be rendered, or why bytes are not a datagram celltcp
/// can read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    // ---- parsing ----
    #[error(
        "truncated {what}: needs {needed} bytes from offset {offset}, only {available} present"
    )]
    Truncated {
        what: &'static str,
        offset: usize,
        needed: usize,
        available: usize,
    },

    #[error("IPv4 version at offset 0 is {version}, expected 4 (RFC 791 §3.1)")]
    BadVersion { version: u8 },

    #[error("IPv4 IHL at offset 0 is {ihl} words, below the minimum of 5 (RFC 791 §3.1)")]
    BadIhl { ihl: u8 },

    #[error("IPv4 header with options (IHL {ihl} words at offset 0) is not supported")]
    UnsupportedIpOptions { ihl: u8 },

    #[error(
        "IPv4 total length at offset 2 is {total_len} bytes, below the {min} bytes of its headers"
    )]
    BadTotalLength { total_len: u16, min: usize },

    #[error("IPv4 reserved flag (bit 0 of offset 6) is set; RFC 791 §3.1 requires zero")]
    ReservedFlag,

    #[error(
        "IPv4 fragment at offset 6 (MF {more_fragments}, fragment offset {fragment_offset} \
         units of 8 bytes) is not supported"
    )]
    Fragment {
        more_fragments: bool,
        fragment_offset: u16,
    },

    #[error("IP protocol {protocol} at offset 9 is not supported; expected 6 (TCP) or 17 (UDP)")]
    UnsupportedProtocol { protocol: u8 },

    #[error("{layer} checksum at offset {offset} is {found:#06x}, expected {expected:#06x}")]
    BadChecksum {
        layer: &'static str,
        offset: usize,
        found: u16,
        expected: u16,
    },

    #[error(
        "UDP length at offset {offset} is {udp_len} bytes, expected {expected} (the IPv4 \
         payload length)"
    )]
    BadUdpLength {
        offset: usize,
        udp_len: u16,
        expected: usize,
    },

    #[error(
        "TCP data offset at offset {offset} is {data_offset} words; must be at least 5 and fit \
         the {segment_len}-byte segment (RFC 9293 §3.1)"
    )]
    BadDataOffset {
        offset: usize,
        data_offset: u8,
        segment_len: usize,
    },

    #[error("TCP option kind {kind} at offset {offset}: {reason}")]
    BadOption {
        offset: usize,
        kind: u8,
        reason: &'static str,
    },

    #[error("TCP option kind {kind} at offset {offset} appears a second time")]
    DuplicateOption { offset: usize, kind: u8 },

    #[error(
        "GTP-U flags E/S/PN at offset {offset} are {flags:#05b}; a sequence number or N-PDU \
         number (S, PN) is not supported (3GPP TS 29.281 §5.1)"
    )]
    UnsupportedGtpFields { offset: usize, flags: u8 },

    #[error(
        "GTP-U next extension header type at offset {offset} is {extension_type:#04x}; only \
         0xc0 (PDCP PDU Number) followed by 0x00 is supported (3GPP TS 29.281 §5.2)"
    )]
    UnsupportedGtpExtension { offset: usize, extension_type: u8 },

    #[error(
        "GTP-U PDCP PDU Number extension length at offset {offset} is {units} units of 4 bytes, \
         expected 1 (3GPP TS 29.281 §5.2.2.2)"
    )]
    BadGtpExtensionLength { offset: usize, units: u8 },

    #[error(
        "GTP-U end marker with {len} bytes of T-PDU at offset {offset}; an end marker carries \
         none (3GPP TS 29.281 §7.3.2)"
    )]
    EndMarkerWithPayload { offset: usize, len: usize },

    #[error(
        "GTP-U length at offset {offset} is {length} bytes, expected {expected} (the bytes after \
         the 8-byte mandatory header, 3GPP TS 29.281 §5.1)"
    )]
    BadGtpLength {
        offset: usize,
        length: u16,
        expected: usize,
    },

    #[error(
        "in the datagram tunnelled at offset {offset} (offsets from its own header): {source}"
    )]
    InTunnel {
        offset: usize,
        source: Box<WireError>,
    },

    // ---- rendering ----
    #[error("datagram of {size_bytes} bytes exceeds the IPv4 total length limit of 65535")]
    DatagramTooLong { size_bytes: u64 },

    #[error("TCP options need {len} bytes; at most 40 fit in the header (RFC 9293 §3.1)")]
    OptionsTooLong { len: u32 },

    #[error("TCP sack_len is {sack_len}; at most 4 SACK blocks are representable (RFC 2018 §3)")]
    TooManySackBlocks { sack_len: u8 },

    #[error("DSCP {dscp} does not fit in six bits (RFC 2474 §3)")]
    DscpOutOfRange { dscp: u8 },
}
