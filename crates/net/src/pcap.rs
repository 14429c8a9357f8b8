//! libpcap capture files of chosen links (draft-ietf-opsawg-pcap, "PCAP Capture File Format").
//!
//! Files are written with the nanosecond-resolution magic, so simulated times survive exactly,
//! and link type `LINKTYPE_RAW`: each record is an IPv4 datagram as rendered by
//! [`crate::wire::write_datagram`]. All fields are written little-endian whatever the host, so
//! the same run gives the same bytes everywhere; readers learn the byte order from the magic.
//!
//! ```text
//! file header (24 bytes): magic u32 | major u16 = 2 | minor u16 = 4 | reserved u32 ×2 |
//!                         snaplen u32 | link type u32
//! record header (16 bytes): ts_sec u32 | ts_frac u32 | incl_len u32 | orig_len u32
//! ```

use std::io::{self, Write};

use celltcp_engine::SimTime;

use crate::packet::Packet;
use crate::wire::write_datagram;

/// Magic of files whose record timestamps count nanoseconds.
pub const MAGIC_NANOS: u32 = 0xA1B2_3C4D;
/// Magic of files whose record timestamps count microseconds (classic libpcap).
pub const MAGIC_MICROS: u32 = 0xA1B2_C3D4;
/// Records start with an IPv4 or IPv6 header (tcpdump.org link-layer header types).
pub const LINKTYPE_RAW: u32 = 101;
/// Records start with an IPv4 header.
pub const LINKTYPE_IPV4: u32 = 228;
/// File header, bytes.
pub const FILE_HEADER_BYTES: usize = 24;
/// Record header, bytes.
pub const RECORD_HEADER_BYTES: usize = 16;

const VERSION_MAJOR: u16 = 2;
const VERSION_MINOR: u16 = 4;
const NANOS_PER_SEC: u64 = 1_000_000_000;

/// Why bytes are not a capture file celltcp can read. Offsets count from the start of the file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PcapError {
    #[error("pcap file header truncated: {available} of 24 bytes present")]
    TruncatedFileHeader { available: usize },

    #[error(
        "pcap magic at offset 0 is {magic:#010x}; expected 0xa1b2c3d4 (microseconds) or \
         0xa1b23c4d (nanoseconds) in either byte order"
    )]
    BadMagic { magic: u32 },

    #[error("pcap version at offset 4 is {major}.{minor}; expected 2.4 or an earlier 2.x")]
    UnsupportedVersion { major: u16, minor: u16 },

    #[error(
        "pcap link type at offset 20 is {linktype}; expected 101 (LINKTYPE_RAW) or 228 \
         (LINKTYPE_IPV4)"
    )]
    UnsupportedLinkType { linktype: u32 },

    #[error("pcap record header at offset {offset} truncated: {available} of 16 bytes present")]
    TruncatedRecordHeader { offset: usize, available: usize },

    #[error(
        "pcap record at offset {offset}: captured length {incl_len} runs past the {available} \
         bytes left in the file"
    )]
    TruncatedRecord {
        offset: usize,
        incl_len: u32,
        available: usize,
    },

    #[error(
        "pcap record at offset {offset}: captured length {incl_len} exceeds the original \
         length {orig_len}"
    )]
    CapturedExceedsOriginal {
        offset: usize,
        incl_len: u32,
        orig_len: u32,
    },

    #[error(
        "pcap record at offset {offset}: captured length {incl_len} exceeds the file's \
         snapshot length {snaplen}"
    )]
    CapturedExceedsSnaplen {
        offset: usize,
        incl_len: u32,
        snaplen: u32,
    },

    #[error(
        "pcap record at offset {offset}: sub-second timestamp {fraction} is not below {limit}"
    )]
    BadTimestamp {
        offset: usize,
        fraction: u32,
        limit: u32,
    },
}

/// Writes a libpcap file record by record. Wrap files in a [`std::io::BufWriter`]: each
/// record is one `write_all` call.
pub struct PcapWriter<W: Write> {
    inner: W,
    /// Most bytes of each datagram stored; longer datagrams are cut (incl_len < orig_len).
    snaplen: u32,
    /// Record header followed by the rendered datagram; reused so that steady-state writes do
    /// not allocate.
    buf: Vec<u8>,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the file header: nanosecond magic, version 2.4, `snaplen` and `LINKTYPE_RAW`.
    ///
    /// # Errors
    /// `InvalidInput` when `snaplen` is 0 (no record could hold a byte); any error of `inner`.
    pub fn new(mut inner: W, snaplen: u32) -> io::Result<Self> {
        if snaplen == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "pcap snaplen must be positive",
            ));
        }
        let mut header = [0u8; FILE_HEADER_BYTES];
        header[0..4].copy_from_slice(&MAGIC_NANOS.to_le_bytes());
        header[4..6].copy_from_slice(&VERSION_MAJOR.to_le_bytes());
        header[6..8].copy_from_slice(&VERSION_MINOR.to_le_bytes());
        // Bytes 8..16: two reserved fields (formerly thiszone and sigfigs), zero.
        header[16..20].copy_from_slice(&snaplen.to_le_bytes());
        header[20..24].copy_from_slice(&LINKTYPE_RAW.to_le_bytes());
        inner.write_all(&header)?;
        Ok(PcapWriter {
            inner,
            snaplen,
            buf: Vec::new(),
        })
    }

    /// Appends one record: `pkt` rendered as an IPv4 datagram, seen at simulated time `t`
    /// (nanoseconds since the start of the run, stored as seconds and nanoseconds).
    ///
    /// # Errors
    /// `InvalidInput` when `pkt` cannot be rendered (see [`crate::wire::WireError`]) or `t`
    /// lies beyond the 32-bit seconds field (about 136 years); any error of the writer.
    pub fn write(&mut self, t: SimTime, pkt: &Packet) -> io::Result<()> {
        self.buf.clear();
        self.buf.resize(RECORD_HEADER_BYTES, 0);
        write_datagram(pkt, &mut self.buf)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        self.write_buffered(t)
    }

    /// Appends one record holding `datagram`, an IPv4 datagram already rendered (e.g. a UDP
    /// datagram framing a radio PDU), seen at simulated time `t`.
    ///
    /// # Errors
    /// As [`PcapWriter::write`].
    pub fn write_bytes(&mut self, t: SimTime, datagram: &[u8]) -> io::Result<()> {
        self.buf.clear();
        self.buf.resize(RECORD_HEADER_BYTES, 0);
        self.buf.extend_from_slice(datagram);
        self.write_buffered(t)
    }

    /// Writes the record whose datagram follows the header room at the start of `buf`.
    fn write_buffered(&mut self, t: SimTime) -> io::Result<()> {
        let (secs, nanos) = pcap_time(t)?;
        let orig_len = (self.buf.len() - RECORD_HEADER_BYTES) as u32;
        let incl_len = orig_len.min(self.snaplen);
        let h = &mut self.buf[..RECORD_HEADER_BYTES];
        h[0..4].copy_from_slice(&secs.to_le_bytes());
        h[4..8].copy_from_slice(&nanos.to_le_bytes());
        h[8..12].copy_from_slice(&incl_len.to_le_bytes());
        h[12..16].copy_from_slice(&orig_len.to_le_bytes());
        self.inner
            .write_all(&self.buf[..RECORD_HEADER_BYTES + incl_len as usize])
    }

    /// The snapshot length given to [`PcapWriter::new`], bytes.
    pub fn snaplen(&self) -> u32 {
        self.snaplen
    }

    /// Flushes and returns the underlying writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.inner.flush()?;
        Ok(self.inner)
    }
}

/// A pcap writer is where a link's captured packets go during a run.
impl<W: Write> crate::world::CaptureSink for PcapWriter<W> {
    fn capture(&mut self, t: SimTime, pkt: &Packet) -> io::Result<()> {
        self.write(t, pkt)
    }
    fn finish(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Reads every record of a capture whose records are raw IP datagrams (`LINKTYPE_RAW` or
/// `LINKTYPE_IPV4`): microsecond or nanosecond timestamps, either byte order. Returns each
/// record's time and its captured bytes (which a snapshot length may have cut short).
///
/// # Errors
/// The first defect in the file header or a record header, with its offset. The datagrams
/// themselves are not inspected; see [`crate::wire::parse_datagram`].
pub fn read_pcap(bytes: &[u8]) -> Result<Vec<(SimTime, Vec<u8>)>, PcapError> {
    if bytes.len() < FILE_HEADER_BYTES {
        return Err(PcapError::TruncatedFileHeader {
            available: bytes.len(),
        });
    }
    let magic_le = u32::from_le_bytes(word(bytes, 0));
    let (big_endian, ns_per_unit) = if magic_le == MAGIC_NANOS {
        (false, 1)
    } else if magic_le == MAGIC_MICROS {
        (false, 1_000)
    } else if magic_le.swap_bytes() == MAGIC_NANOS {
        (true, 1)
    } else if magic_le.swap_bytes() == MAGIC_MICROS {
        (true, 1_000)
    } else {
        return Err(PcapError::BadMagic {
            magic: u32::from_be_bytes(word(bytes, 0)),
        });
    };
    let u32_at = |at: usize| {
        let w = word(bytes, at);
        if big_endian {
            u32::from_be_bytes(w)
        } else {
            u32::from_le_bytes(w)
        }
    };
    let u16_at = |at: usize| {
        let w = [bytes[at], bytes[at + 1]];
        if big_endian {
            u16::from_be_bytes(w)
        } else {
            u16::from_le_bytes(w)
        }
    };
    let (major, minor) = (u16_at(4), u16_at(6));
    if major != VERSION_MAJOR || minor > VERSION_MINOR {
        return Err(PcapError::UnsupportedVersion { major, minor });
    }
    let snaplen = u32_at(16);
    // The upper 16 bits may carry FCS information (draft-ietf-opsawg-pcap, "File Header");
    // the link type proper is the lower 16 bits.
    let linktype = u32_at(20) & 0xFFFF;
    if linktype != LINKTYPE_RAW && linktype != LINKTYPE_IPV4 {
        return Err(PcapError::UnsupportedLinkType { linktype });
    }
    // Each second holds this many timestamp units.
    let units_per_sec = (NANOS_PER_SEC / ns_per_unit) as u32;

    let mut records = Vec::new();
    let mut at = FILE_HEADER_BYTES;
    while at < bytes.len() {
        let offset = at;
        if bytes.len() - at < RECORD_HEADER_BYTES {
            return Err(PcapError::TruncatedRecordHeader {
                offset,
                available: bytes.len() - at,
            });
        }
        let secs = u32_at(at);
        let fraction = u32_at(at + 4);
        let incl_len = u32_at(at + 8);
        let orig_len = u32_at(at + 12);
        if fraction >= units_per_sec {
            return Err(PcapError::BadTimestamp {
                offset,
                fraction,
                limit: units_per_sec,
            });
        }
        if incl_len > orig_len {
            return Err(PcapError::CapturedExceedsOriginal {
                offset,
                incl_len,
                orig_len,
            });
        }
        if incl_len > snaplen {
            return Err(PcapError::CapturedExceedsSnaplen {
                offset,
                incl_len,
                snaplen,
            });
        }
        at += RECORD_HEADER_BYTES;
        let available = bytes.len() - at;
        if incl_len as usize > available {
            return Err(PcapError::TruncatedRecord {
                offset,
                incl_len,
                available,
            });
        }
        let ns = u64::from(secs) * NANOS_PER_SEC + u64::from(fraction) * ns_per_unit;
        records.push((
            SimTime::from_ns(ns),
            bytes[at..at + incl_len as usize].to_vec(),
        ));
        at += incl_len as usize;
    }
    Ok(records)
}

/// `t` as pcap's seconds and nanoseconds.
///
/// # Errors
/// `InvalidInput` when `t` lies beyond the 32-bit seconds field (about 136 years).
pub(crate) fn pcap_time(t: SimTime) -> io::Result<(u32, u32)> {
    let secs = u32::try_from(t.as_ns() / NANOS_PER_SEC).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("time {t} exceeds pcap's 32-bit seconds"),
        )
    })?;
    Ok((secs, (t.as_ns() % NANOS_PER_SEC) as u32))
}

fn word(bytes: &[u8], at: usize) -> [u8; 4] {
    [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]
}

#[cfg(test)]
mod tests {
    use crate::packet::FlowId;
    use std::net::Ipv4Addr;
    use std::process::Command;

    use celltcp_engine::SimDuration;
    use proptest::prelude::*;

    use super::*;
    use crate::packet::{
        Ecn, IpHeader, SackBlock, TcpFlags, TcpHeader, TcpOptions, Transport, UdpHeader,
    };
    use crate::wire::parse_datagram;

    const CLIENT: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
    const SERVER: Ipv4Addr = Ipv4Addr::new(10, 0, 1, 1);
    const CLIENT_PORT: u16 = 50_000;
    const SERVER_PORT: u16 = 45_000;
    /// Payload of a full-sized segment: MSS 1460 less 12 bytes of timestamps option.
    const SMSS: u32 = 1448;

    fn ip(src: Ipv4Addr, dst: Ipv4Addr, ecn: Ecn, id: u16) -> IpHeader {
        IpHeader {
            src,
            dst,
            ecn,
            dscp: 0,
            ttl: 64,
            id,
        }
    }

    /// One TCP segment of the scripted connection.
    struct Seg {
        at_us: u64,
        from_client: bool,
        seq: u32,
        ack: u32,
        flags: TcpFlags,
        window: u16,
        options: TcpOptions,
        payload_len: u32,
    }

    fn ts(tsval: u32, tsecr: u32) -> TcpOptions {
        TcpOptions {
            timestamps: Some((tsval, tsecr)),
            ..Default::default()
        }
    }

    fn syn_options(tsval: u32, tsecr: u32) -> TcpOptions {
        TcpOptions {
            mss: Some(1460),
            window_scale: Some(7),
            sack_permitted: true,
            timestamps: Some((tsval, tsecr)),
            ..Default::default()
        }
    }

    fn with_sack(mut o: TcpOptions, blocks: &[(u32, u32)]) -> TcpOptions {
        for &(left, right) in blocks {
            assert!(o.push_sack(SackBlock { left, right }));
        }
        o
    }

    /// A download over an ECN-capable connection (RFC 3168 §6.1.1 negotiation in the
    /// handshake): request, four full segments of which the second is lost after the capture
    /// point, two duplicate ACKs with SACK blocks (RFC 2018), one retransmission, then the FIN
    /// exchange of RFC 9293 §3.6. Also three UDP datagrams of another flow.
    fn scripted_exchange() -> Vec<(SimTime, Packet)> {
        let (ack, psh, syn, fin) = (TcpFlags::ACK, TcpFlags::PSH, TcpFlags::SYN, TcpFlags::FIN);
        let (c_isn, s_isn) = (1_000u32, 5_000u32);
        let req = 100;
        let c1 = c_isn + 1 + req; // client's next sequence number after the request
        let d = |k: u32| s_isn + 1 + k * SMSS; // start of the k-th data segment
        #[rustfmt::skip]
        let script = [
            Seg { at_us: 0, from_client: true, seq: c_isn, ack: 0, flags: syn | TcpFlags::ECE | TcpFlags::CWR, window: 64_240, options: syn_options(1_000, 0), payload_len: 0 },
            Seg { at_us: 20_000, from_client: false, seq: s_isn, ack: c_isn + 1, flags: syn | ack | TcpFlags::ECE, window: 65_160, options: syn_options(2_000, 1_000), payload_len: 0 },
            Seg { at_us: 40_000, from_client: true, seq: c_isn + 1, ack: s_isn + 1, flags: ack, window: 502, options: ts(1_020, 2_000), payload_len: 0 },
            Seg { at_us: 40_010, from_client: true, seq: c_isn + 1, ack: s_isn + 1, flags: psh | ack, window: 502, options: ts(1_020, 2_000), payload_len: req },
            Seg { at_us: 60_000, from_client: false, seq: d(0), ack: c1, flags: ack, window: 509, options: ts(2_020, 1_020), payload_len: SMSS },
            Seg { at_us: 60_100, from_client: false, seq: d(1), ack: c1, flags: ack, window: 509, options: ts(2_020, 1_020), payload_len: SMSS },
            Seg { at_us: 60_200, from_client: false, seq: d(2), ack: c1, flags: ack, window: 509, options: ts(2_020, 1_020), payload_len: SMSS },
            Seg { at_us: 60_300, from_client: false, seq: d(3), ack: c1, flags: psh | ack, window: 509, options: ts(2_020, 1_020), payload_len: SMSS },
            Seg { at_us: 80_000, from_client: true, seq: c1, ack: d(1), flags: ack, window: 501, options: ts(1_040, 2_020), payload_len: 0 },
            Seg { at_us: 80_200, from_client: true, seq: c1, ack: d(1), flags: ack, window: 501, options: with_sack(ts(1_040, 2_020), &[(d(2), d(3))]), payload_len: 0 },
            Seg { at_us: 80_300, from_client: true, seq: c1, ack: d(1), flags: ack, window: 501, options: with_sack(ts(1_040, 2_020), &[(d(2), d(4))]), payload_len: 0 },
            Seg { at_us: 80_500, from_client: false, seq: d(1), ack: c1, flags: ack, window: 509, options: ts(2_040, 1_040), payload_len: SMSS },
            Seg { at_us: 100_500, from_client: true, seq: c1, ack: d(4), flags: ack, window: 501, options: ts(1_060, 2_040), payload_len: 0 },
            Seg { at_us: 101_000, from_client: false, seq: d(4), ack: c1, flags: fin | ack, window: 509, options: ts(2_060, 1_060), payload_len: 0 },
            Seg { at_us: 121_000, from_client: true, seq: c1, ack: d(4) + 1, flags: ack, window: 501, options: ts(1_080, 2_060), payload_len: 0 },
            Seg { at_us: 121_010, from_client: true, seq: c1, ack: d(4) + 1, flags: fin | ack, window: 501, options: ts(1_080, 2_060), payload_len: 0 },
            Seg { at_us: 141_010, from_client: false, seq: d(4) + 1, ack: c1 + 1, flags: ack, window: 509, options: ts(2_080, 1_080), payload_len: 0 },
        ];
        let mut out = Vec::new();
        for (i, s) in script.iter().enumerate() {
            let (src, dst, src_port, dst_port) = if s.from_client {
                (CLIENT, SERVER, CLIENT_PORT, SERVER_PORT)
            } else {
                (SERVER, CLIENT, SERVER_PORT, CLIENT_PORT)
            };
            // RFC 3168 §6.1.1: data segments of an ECN-capable connection are ECT(0); SYNs and
            // pure ACKs are not ECN-capable.
            let ecn = if s.payload_len > 0 {
                Ecn::Ect0
            } else {
                Ecn::NotEct
            };
            let h = TcpHeader {
                src_port,
                dst_port,
                seq: s.seq,
                ack: s.ack,
                flags: s.flags,
                window: s.window,
                options: s.options,
                eln: false,
            };
            let pkt = Packet {
                uid: i as u64,
                flow: FlowId(0),
                ip: ip(src, dst, ecn, 0x100 + i as u16),
                transport: Transport::Tcp(h),
                payload_len: s.payload_len,
                app_seq: 0,
                created_at: SimTime::ZERO,
                tunnel: None,
            };
            out.push((SimTime::ZERO + SimDuration::from_us(s.at_us), pkt));
        }
        for k in 0..3u64 {
            let pkt = Packet {
                uid: 100 + k,
                flow: FlowId(1),
                ip: ip(CLIENT, SERVER, Ecn::Ect1, 0x200 + k as u16),
                transport: Transport::Udp(UdpHeader {
                    src_port: 40_000,
                    dst_port: 40_001,
                }),
                payload_len: 200,
                app_seq: k,
                created_at: SimTime::ZERO,
                tunnel: None,
            };
            out.push((SimTime::ZERO + SimDuration::from_us(5_000 * (k + 1)), pkt));
        }
        out.sort_by_key(|(t, p)| (*t, p.uid));
        out
    }

    fn capture(records: &[(SimTime, Packet)], snaplen: u32) -> Vec<u8> {
        let mut w = PcapWriter::new(Vec::new(), snaplen).unwrap();
        for (t, p) in records {
            w.write(*t, p).unwrap();
        }
        w.into_inner().unwrap()
    }

    #[test]
    fn file_header_is_nanosecond_raw_ip_little_endian() {
        let bytes = PcapWriter::new(Vec::new(), 262_144)
            .unwrap()
            .into_inner()
            .unwrap();
        let want: [u8; 24] = [
            0x4d, 0x3c, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00, 0x04, 0x00,
            101, 0, 0, 0,
        ];
        assert_eq!(bytes, want);
        assert_eq!(read_pcap(&bytes), Ok(vec![]));
    }

    #[test]
    fn records_round_trip_with_exact_times() {
        let records = scripted_exchange();
        let bytes = capture(&records, 65_535);
        let read = read_pcap(&bytes).unwrap();
        assert_eq!(read.len(), records.len());
        let mut buf = Vec::new();
        for ((t, pkt), (t2, data)) in records.iter().zip(&read) {
            assert_eq!(t, t2);
            buf.clear();
            write_datagram(pkt, &mut buf).unwrap();
            assert_eq!(&buf, data);
            let mut want = *pkt;
            (want.uid, want.flow, want.created_at) = (0, FlowId(0), SimTime::ZERO);
            assert_eq!(parse_datagram(data).unwrap().to_packet(), want);
        }
        // A record header: ts_sec, ts_nsec, incl_len, orig_len, little-endian.
        let second = &bytes[FILE_HEADER_BYTES + RECORD_HEADER_BYTES + 64..][..16];
        assert_eq!(
            second,
            [0, 0, 0, 0, 0x40, 0x4b, 0x4c, 0, 228, 0, 0, 0, 228, 0, 0, 0]
        );
    }

    #[test]
    fn snaplen_cuts_records_but_keeps_the_original_length() {
        let records = scripted_exchange();
        let bytes = capture(&records, 96);
        let read = read_pcap(&bytes).unwrap();
        let full = records
            .iter()
            .position(|(_, p)| p.payload_len == SMSS)
            .unwrap();
        assert_eq!(read[full].1.len(), 96);
        let at = FILE_HEADER_BYTES
            + read[..full]
                .iter()
                .map(|(_, d)| RECORD_HEADER_BYTES + d.len())
                .sum::<usize>();
        let orig = u32::from_le_bytes(word(&bytes, at + 12));
        assert_eq!(orig, records[full].1.size_bytes());
        assert!(
            parse_datagram(&read[full].1).is_err(),
            "a cut datagram is reported truncated"
        );
    }

    #[test]
    fn writer_rejects_what_pcap_cannot_hold() {
        assert_eq!(
            PcapWriter::new(Vec::new(), 0).err().map(|e| e.kind()),
            Some(io::ErrorKind::InvalidInput)
        );
        let (_, pkt) = scripted_exchange()[0];
        let mut w = PcapWriter::new(Vec::new(), 65_535).unwrap();
        let late = SimTime::from_ns((u64::from(u32::MAX) + 1) * NANOS_PER_SEC);
        assert_eq!(
            w.write(late, &pkt).unwrap_err().kind(),
            io::ErrorKind::InvalidInput
        );
        let mut bad = pkt;
        bad.ip.dscp = 200;
        assert_eq!(
            w.write(SimTime::ZERO, &bad).unwrap_err().kind(),
            io::ErrorKind::InvalidInput
        );
        let last = SimTime::from_ns(u64::from(u32::MAX) * NANOS_PER_SEC + 999_999_999);
        w.write(last, &pkt).unwrap();
        let bytes = w.into_inner().unwrap();
        let read = read_pcap(&bytes).unwrap();
        assert_eq!(read.len(), 1, "failed writes leave nothing behind");
        assert_eq!(read[0].0, last);
    }

    /// A classic big-endian microsecond file, as written on a big-endian host.
    #[test]
    fn reads_big_endian_microsecond_files() {
        let datagram = [0x45u8; 5];
        let mut f = Vec::new();
        f.extend_from_slice(&MAGIC_MICROS.to_be_bytes());
        f.extend_from_slice(&[0, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0]);
        f.extend_from_slice(&65_535u32.to_be_bytes());
        f.extend_from_slice(&LINKTYPE_IPV4.to_be_bytes());
        for (sec, usec) in [(1u32, 2u32), (3, 999_999)] {
            f.extend_from_slice(&sec.to_be_bytes());
            f.extend_from_slice(&usec.to_be_bytes());
            f.extend_from_slice(&5u32.to_be_bytes());
            f.extend_from_slice(&60u32.to_be_bytes());
            f.extend_from_slice(&datagram);
        }
        let read = read_pcap(&f).unwrap();
        assert_eq!(
            read[0],
            (SimTime::from_ns(1_000_002_000), datagram.to_vec())
        );
        assert_eq!(read[1].0, SimTime::from_ns(3_999_999_000));
        // The same file little-endian, microseconds.
        let mut le = Vec::new();
        le.extend_from_slice(&MAGIC_MICROS.to_le_bytes());
        le.extend_from_slice(&[2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        le.extend_from_slice(&65_535u32.to_le_bytes());
        le.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
        for v in [1u32, 2, 5, 60] {
            le.extend_from_slice(&v.to_le_bytes());
        }
        le.extend_from_slice(&datagram);
        assert_eq!(read_pcap(&le).unwrap(), read[..1]);
    }

    #[test]
    fn corrupt_files_are_errors_with_offsets() {
        let good = capture(&scripted_exchange()[..2], 65_535);
        // The SYN (20 + 20 + 24 bytes), then a UDP datagram (20 + 8 + 200 bytes).
        let first_len = 16 + 64;
        let second = FILE_HEADER_BYTES + first_len;
        let patch = |at: usize, v: u32| {
            let mut b = good.clone();
            b[at..at + 4].copy_from_slice(&v.to_le_bytes());
            b
        };
        assert_eq!(
            read_pcap(&good[..10]),
            Err(PcapError::TruncatedFileHeader { available: 10 })
        );
        assert_eq!(
            read_pcap(&patch(0, 0x0a0d_0d0a)),
            Err(PcapError::BadMagic { magic: 0x0a0d_0d0a })
        );
        assert_eq!(
            read_pcap(&patch(4, 0x0000_0001)),
            Err(PcapError::UnsupportedVersion { major: 1, minor: 0 })
        );
        assert_eq!(
            read_pcap(&patch(20, 1)),
            Err(PcapError::UnsupportedLinkType { linktype: 1 })
        );
        assert_eq!(
            read_pcap(&good[..second + 7]),
            Err(PcapError::TruncatedRecordHeader {
                offset: second,
                available: 7
            })
        );
        assert_eq!(
            read_pcap(&good[..good.len() - 1]),
            Err(PcapError::TruncatedRecord {
                offset: second,
                incl_len: 228,
                available: 227
            })
        );
        assert_eq!(
            read_pcap(&patch(second + 4, 1_000_000_000)),
            Err(PcapError::BadTimestamp {
                offset: second,
                fraction: 1_000_000_000,
                limit: 1_000_000_000
            })
        );
        assert_eq!(
            read_pcap(&patch(second + 12, 227)),
            Err(PcapError::CapturedExceedsOriginal {
                offset: second,
                incl_len: 228,
                orig_len: 227
            })
        );
        assert_eq!(
            read_pcap(&patch(16, 50)),
            Err(PcapError::CapturedExceedsSnaplen {
                offset: 24,
                incl_len: 64,
                snaplen: 50
            })
        );
        let e = read_pcap(&good[..second + 7]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "pcap record header at offset 104 truncated: 7 of 16 bytes present"
        );
    }

    proptest! {
        /// Cutting a file between records gives the records before the cut; cutting anywhere
        /// else is an error. Random bytes and random corruption never panic.
        #[test]
        fn truncated_or_corrupt_files_never_panic(
            cut in any::<prop::sample::Index>(),
            flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
            noise in proptest::collection::vec(any::<u8>(), 0..64),
        ) {
            let records = scripted_exchange();
            let good = capture(&records, 65_535);
            let keep = cut.index(good.len() + 1);
            let mut boundaries = vec![FILE_HEADER_BYTES];
            for r in read_pcap(&good).unwrap() {
                let last = *boundaries.last().unwrap();
                boundaries.push(last + RECORD_HEADER_BYTES + r.1.len());
            }
            match read_pcap(&good[..keep]) {
                Ok(read) => {
                    let n = boundaries.iter().position(|&b| b == keep);
                    prop_assert_eq!(Some(read.len()), n, "cut at {}", keep);
                }
                Err(_) => prop_assert!(!boundaries.contains(&keep), "cut at {}", keep),
            }
            let mut corrupt = good.clone();
            for (at, mask) in flips {
                let i = at.index(corrupt.len());
                corrupt[i] ^= mask;
            }
            let _ = read_pcap(&corrupt);
            let mut noisy = good[..FILE_HEADER_BYTES].to_vec();
            noisy.extend_from_slice(&noise);
            let _ = read_pcap(&noisy);
            let _ = read_pcap(&noise);
        }
    }

    fn tshark_available() -> bool {
        Command::new("tshark")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    }

    /// Runs tshark on `records` with `-T fields` for `fields`; one line per record, fields
    /// separated by `|`, repeated occurrences by `;`. `None` when tshark is not installed.
    fn tshark_fields(records: &[(SimTime, Packet)], fields: &[&str], tag: &str) -> Option<String> {
        if !tshark_available() {
            println!("skipped: tshark not installed");
            return None;
        }
        let path =
            std::env::temp_dir().join(format!("celltcp-pcap-{}-{tag}.pcap", std::process::id()));
        std::fs::write(&path, capture(records, 65_535)).unwrap();
        let mut cmd = Command::new("tshark");
        cmd.arg("-r").arg(&path);
        for pref in [
            "ip.check_checksum:TRUE",
            "udp.check_checksum:TRUE",
            "tcp.check_checksum:TRUE",
        ] {
            cmd.args(["-o", pref]);
        }
        cmd.args([
            "-T",
            "fields",
            "-E",
            "separator=|",
            "-E",
            "occurrence=a",
            "-E",
            "aggregator=;",
        ]);
        for f in fields {
            cmd.args(["-e", f]);
        }
        let out = cmd.output().unwrap();
        let _ = std::fs::remove_file(&path);
        assert!(
            out.status.success(),
            "tshark failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Some(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Wireshark's GTP dissector reads what the handover plumbing sends: G-PDUs on S1-U, G-PDUs
    /// forwarded on X2-U with the PDCP PDU Number extension (TS 29.281 §5.2.2.2) and end markers
    /// (§7.3.2), with every checksum right and nothing malformed.
    #[test]
    fn tshark_decodes_end_markers_and_the_pdcp_pdu_number() {
        use crate::gtp::{encapsulate, encapsulate_forwarded, EcnDecap};
        use crate::packet::GtpInterface;
        let (gw, enb1, enb2) = (
            Ipv4Addr::new(10, 9, 0, 1),
            Ipv4Addr::new(10, 9, 0, 2),
            Ipv4Addr::new(10, 9, 0, 3),
        );
        let exchange = scripted_exchange();
        let data = |i: usize| {
            exchange
                .iter()
                .filter(|(_, p)| p.payload_len == SMSS)
                .nth(i)
                .unwrap()
                .1
        };
        let mut s1u = data(0);
        encapsulate(&mut s1u, gw, enb1, 3, EcnDecap::Rfc6040);
        let mut x2u = data(1);
        encapsulate_forwarded(&mut x2u, enb1, enb2, 9, EcnDecap::Rfc6040, Some(0x0abc));
        let s1u_marker =
            Packet::end_marker(7, CLIENT, gw, enb1, 3, GtpInterface::S1u, SimTime::ZERO);
        let x2u_marker =
            Packet::end_marker(8, CLIENT, enb1, enb2, 9, GtpInterface::X2u, SimTime::ZERO);
        let at = |us: u64| SimTime::ZERO + SimDuration::from_us(us);
        let records = [
            (at(1), s1u),
            (at(2), x2u),
            (at(3), s1u_marker),
            (at(4), x2u_marker),
        ];
        let fields = [
            "frame.number",
            "ip.checksum.status",
            "udp.checksum.status",
            "tcp.checksum.status",
            "gtp.message",
            "gtp.teid",
            "gtp.length",
            "gtp.flags.e",
            "gtp.ext_hdr.pdcp_sn",
            "gtp.ext_hdr.next",
            "_ws.malformed",
            "_ws.expert.severity",
        ];
        let Some(stdout) = tshark_fields(&records, &fields, "gtp") else {
            return;
        };
        let lines: Vec<Vec<&str>> = stdout.lines().map(|l| l.split('|').collect()).collect();
        assert_eq!(lines.len(), 4, "{stdout}");
        const PI_WARN: u32 = 0x0060_0000;
        for (i, f) in lines.iter().enumerate() {
            assert_eq!(f.len(), fields.len(), "{stdout}");
            assert_eq!(f[0], (i + 1).to_string());
            // Outer (and, for a G-PDU, inner) IPv4 and UDP checksums verified good.
            assert!(
                f[1].split(';').all(|c| c == "1"),
                "IPv4 checksums: {stdout}"
            );
            assert!(f[2].split(';').all(|c| c == "1"), "UDP checksums: {stdout}");
            assert_eq!(f[10], "", "malformed: {stdout}");
            for severity in f[11].split(';').filter(|s| !s.is_empty()) {
                assert!(
                    severity.parse::<u32>().unwrap() < PI_WARN,
                    "expert warning: {stdout}"
                );
            }
        }
        let g = |i: usize, j: usize| lines[i][j];
        // tshark prints the message type, the TEID and the extension types in hex.
        // Frame 1: a G-PDU (255) on S1-U, TEID 3, length = the inner datagram, no extension.
        assert_eq!(
            (g(0, 3), g(0, 4), g(0, 5)),
            ("1", "0xff", "0x00000003"),
            "{stdout}"
        );
        assert_eq!(g(0, 6), s1u.inner_size_bytes().to_string());
        assert_eq!((g(0, 7), g(0, 8)), ("0", ""), "{stdout}");
        // Frame 2: a forwarded G-PDU with the PDCP PDU Number 0x0abc = 2748, announced by the
        // next extension type 0xc0 and followed by none (0x00); the length counts the 8 bytes
        // of optional fields and extension header (§5.1).
        assert_eq!(
            (g(1, 3), g(1, 4), g(1, 5)),
            ("1", "0xff", "0x00000009"),
            "{stdout}"
        );
        assert_eq!(g(1, 6), (x2u.inner_size_bytes() + 8).to_string());
        assert_eq!(
            (g(1, 7), g(1, 8), g(1, 9)),
            ("1", "2748", "0xc0;0x00"),
            "{stdout}"
        );
        // Frames 3 and 4: end markers (254) with nothing after the header.
        for (i, teid) in [(2, "0x00000003"), (3, "0x00000009")] {
            assert_eq!(
                (g(i, 3), g(i, 4), g(i, 5), g(i, 6)),
                ("", "0xfe", teid, "0"),
                "{stdout}"
            );
            assert_eq!(g(i, 7), "0", "{stdout}");
        }
    }

    #[test]
    fn tshark_accepts_the_capture() {
        if !tshark_available() {
            println!("skipped: tshark not installed");
            return;
        }
        let records = scripted_exchange();
        let path =
            std::env::temp_dir().join(format!("celltcp-pcap-{}-tshark.pcap", std::process::id()));
        std::fs::write(&path, capture(&records, 65_535)).unwrap();
        let out = Command::new("tshark")
            .arg("-r")
            .arg(&path)
            .args(["-o", "tcp.analyze_sequence_numbers:TRUE"])
            .args(["-o", "ip.check_checksum:TRUE"])
            .args(["-o", "tcp.check_checksum:TRUE"])
            .args(["-o", "udp.check_checksum:TRUE"])
            .args([
                "-T",
                "fields",
                "-E",
                "separator=|",
                "-E",
                "occurrence=a",
                "-E",
                "aggregator=;",
            ])
            .args([
                "-e",
                "frame.number",
                "-e",
                "ip.checksum.status",
                "-e",
                "tcp.checksum.status",
            ])
            .args([
                "-e",
                "udp.checksum.status",
                "-e",
                "_ws.expert.severity",
                "-e",
                "_ws.expert.message",
            ])
            .args(["-e", "_ws.malformed", "-e", "tcp.analysis.retransmission"])
            .output()
            .unwrap();
        let _ = std::fs::remove_file(&path);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "tshark failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );

        // Checksum status values of Wireshark's proto.h: 0 bad, 1 good, 2 unverified.
        const GOOD: &str = "1";
        // Expert severities of Wireshark's proto.h: chat 0x200000, note 0x400000,
        // warn 0x600000, error 0x800000 (malformed packets are errors).
        const PI_WARN: u32 = 0x0060_0000;
        let retransmitted = records.iter().position(|(_, p)| p.uid == 11).unwrap() + 1;
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), records.len(), "{stdout}");
        let mut retransmissions = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let f: Vec<&str> = line.split('|').collect();
            assert_eq!(f.len(), 8, "{line}");
            assert_eq!(f[0], (i + 1).to_string(), "{line}");
            assert_eq!(f[1], GOOD, "IPv4 checksum: {line}");
            match records[i].1.transport {
                Transport::Tcp(_) => assert_eq!((f[2], f[3]), (GOOD, ""), "TCP checksum: {line}"),
                Transport::Udp(_) => assert_eq!((f[2], f[3]), ("", GOOD), "UDP checksum: {line}"),
            }
            for severity in f[4].split(';').filter(|s| !s.is_empty()) {
                let severity: u32 = severity.parse().unwrap();
                assert!(severity < PI_WARN, "expert warning or error: {line}");
            }
            assert_eq!(f[6], "", "malformed: {line}");
            if !f[7].is_empty() {
                retransmissions.push(i + 1);
            }
        }
        assert_eq!(retransmissions, vec![retransmitted], "{stdout}");
    }
}
