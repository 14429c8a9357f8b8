//! pcapng capture files (draft-ietf-opsawg-pcapng, "PCAP Now Generic Capture File Format") with
//! one interface per endpoint, for captures where a record must say whose packet it is: the
//! radio side of a cell holds the packets of all its UEs, each UE an interface of its own.
//!
//! ```text
//! Section Header Block   type 0x0A0D0D0A | length | byte-order magic 0x1A2B3C4D | 1.0 |
//!                        section length -1 | length
//! Interface Description  type 1 | length | LINKTYPE_RAW | snaplen | if_name | if_tsresol 9 |
//!                        opt_endofopt | length                       (one per interface)
//! Enhanced Packet Block  type 6 | length | interface | timestamp (high, low) | captured |
//!                        original | data padded to 32 bits | epb_flags | opt_endofopt | length
//! ```
//!
//! As in [`crate::pcap`], every field is little-endian whatever the host (readers learn the byte
//! order from the magic) and timestamps count nanoseconds (`if_tsresol` = 9), so the same run
//! gives the same bytes everywhere. Every interface is described before the first packet.

use std::io::{self, Write};

use celltcp_engine::SimTime;

use crate::pcap::LINKTYPE_RAW;

/// Block types (draft-ietf-opsawg-pcapng §4, §4.1–§4.3).
pub const BLOCK_SECTION_HEADER: u32 = 0x0A0D_0D0A;
pub const BLOCK_INTERFACE_DESCRIPTION: u32 = 0x0000_0001;
pub const BLOCK_ENHANCED_PACKET: u32 = 0x0000_0006;
/// Byte-order magic of the Section Header Block.
pub const BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;

/// Option codes (§3.5, §4.2, §4.3).
const OPT_ENDOFOPT: u16 = 0;
const IF_NAME: u16 = 2;
const IF_TSRESOL: u16 = 9;
const EPB_FLAGS: u16 = 2;

/// Which way a packet went through its interface: the epb_flags direction bits (§4.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Bits 0–1 = 01: received by the interface's endpoint.
    Inbound,
    /// Bits 0–1 = 10: sent by it.
    Outbound,
}

impl Direction {
    fn flags(self) -> u32 {
        match self {
            Direction::Inbound => 0b01,
            Direction::Outbound => 0b10,
        }
    }
}

/// Writes a pcapng file of raw IPv4 packets on named interfaces. Wrap files in a
/// [`std::io::BufWriter`]: each block is one `write_all` call.
pub struct PcapngWriter<W: Write> {
    inner: W,
    interfaces: u32,
    /// Most bytes of each packet stored.
    snaplen: u32,
    /// The block being written; reused so that steady-state writes do not allocate.
    buf: Vec<u8>,
}

impl<W: Write> PcapngWriter<W> {
    /// Writes the Section Header Block and one Interface Description Block per name, in order
    /// (interface `i` is `interfaces[i]`), each with `LINKTYPE_RAW`, `snaplen` and nanosecond
    /// timestamps.
    ///
    /// # Errors
    /// `InvalidInput` when `snaplen` is 0 or a name exceeds 65,535 bytes; any error of `inner`.
    pub fn new(mut inner: W, snaplen: u32, interfaces: &[&str]) -> io::Result<Self> {
        if snaplen == 0 {
            return Err(invalid("pcapng snaplen must be positive".into()));
        }
        let mut block = Vec::with_capacity(64);
        // Section Header Block (§4.1): version 1.0, section length unknown (-1), no options.
        begin(&mut block, BLOCK_SECTION_HEADER);
        block.extend_from_slice(&BYTE_ORDER_MAGIC.to_le_bytes());
        block.extend_from_slice(&1u16.to_le_bytes());
        block.extend_from_slice(&0u16.to_le_bytes());
        block.extend_from_slice(&(-1i64).to_le_bytes());
        end(&mut block);
        inner.write_all(&block)?;
        for name in interfaces {
            if name.len() > usize::from(u16::MAX) {
                return Err(invalid(format!("interface name of {} bytes", name.len())));
            }
            block.clear();
            // Interface Description Block (§4.2).
            begin(&mut block, BLOCK_INTERFACE_DESCRIPTION);
            block.extend_from_slice(&(LINKTYPE_RAW as u16).to_le_bytes());
            block.extend_from_slice(&0u16.to_le_bytes());
            block.extend_from_slice(&snaplen.to_le_bytes());
            option(&mut block, IF_NAME, name.as_bytes());
            // if_tsresol: bit 7 clear, value 9: timestamps count 10^-9 s.
            option(&mut block, IF_TSRESOL, &[9]);
            option(&mut block, OPT_ENDOFOPT, &[]);
            end(&mut block);
            inner.write_all(&block)?;
        }
        Ok(PcapngWriter {
            inner,
            interfaces: interfaces.len() as u32,
            snaplen,
            buf: Vec::new(),
        })
    }

    /// Appends an Enhanced Packet Block: `datagram` seen on `interface` at `t` (nanoseconds
    /// since the start of the run), going `direction`; cut to the snapshot length.
    ///
    /// # Errors
    /// `InvalidInput` for an interface that was not described or a datagram above 4 GiB; any
    /// error of the writer.
    pub fn write(
        &mut self,
        interface: u32,
        t: SimTime,
        datagram: &[u8],
        direction: Direction,
    ) -> io::Result<()> {
        if interface >= self.interfaces {
            return Err(invalid(format!(
                "interface {interface} of {} described",
                self.interfaces
            )));
        }
        let orig_len = u32::try_from(datagram.len())
            .map_err(|_| invalid(format!("a {}-byte packet", datagram.len())))?;
        let incl_len = orig_len.min(self.snaplen);
        let ns = t.as_ns();
        let b = &mut self.buf;
        b.clear();
        begin(b, BLOCK_ENHANCED_PACKET);
        b.extend_from_slice(&interface.to_le_bytes());
        b.extend_from_slice(&((ns >> 32) as u32).to_le_bytes());
        b.extend_from_slice(&(ns as u32).to_le_bytes());
        b.extend_from_slice(&incl_len.to_le_bytes());
        b.extend_from_slice(&orig_len.to_le_bytes());
        b.extend_from_slice(&datagram[..incl_len as usize]);
        pad32(b);
        option(b, EPB_FLAGS, &direction.flags().to_le_bytes());
        option(b, OPT_ENDOFOPT, &[]);
        end(b);
        self.inner.write_all(b)
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }

    /// Flushes and returns the underlying writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.inner.flush()?;
        Ok(self.inner)
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// Starts a block: its type and room for its total length.
fn begin(b: &mut Vec<u8>, block_type: u32) {
    b.extend_from_slice(&block_type.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
}

/// Ends a block: the total length, written at both ends (§3.1).
fn end(b: &mut Vec<u8>) {
    let total = (b.len() + 4) as u32;
    b[4..8].copy_from_slice(&total.to_le_bytes());
    b.extend_from_slice(&total.to_le_bytes());
}

/// One option (§3.5): code, length, value padded to 32 bits.
fn option(b: &mut Vec<u8>, code: u16, value: &[u8]) {
    b.extend_from_slice(&code.to_le_bytes());
    b.extend_from_slice(&(value.len() as u16).to_le_bytes());
    b.extend_from_slice(value);
    pad32(b);
}

fn pad32(b: &mut Vec<u8>) {
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Splits a file into (block type, body) and checks both length fields of every block.
    fn blocks(bytes: &[u8]) -> Vec<(u32, Vec<u8>)> {
        let mut out = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let t = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
            let len = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
            assert_eq!(len % 4, 0, "block at {at} not a multiple of 4 bytes");
            let trailer = u32::from_le_bytes(bytes[at + len - 4..at + len].try_into().unwrap());
            assert_eq!(trailer as usize, len, "block at {at}: trailing length");
            out.push((t, bytes[at + 8..at + len - 4].to_vec()));
            at += len;
        }
        out
    }

    #[test]
    fn blocks_carry_interfaces_times_and_directions() {
        let mut w = PcapngWriter::new(Vec::new(), 4, &["cell1/ue_a", "cell1/ue_b"]).unwrap();
        let t = SimTime::from_ns(5_000_000_123);
        w.write(1, t, &[1, 2, 3, 4, 5, 6], Direction::Inbound)
            .unwrap();
        w.write(0, t, &[7], Direction::Outbound).unwrap();
        assert!(w.write(2, t, &[7], Direction::Outbound).is_err());
        let bytes = w.into_inner().unwrap();
        let b = blocks(&bytes);
        let types: Vec<u32> = b.iter().map(|(t, _)| *t).collect();
        assert_eq!(types, vec![BLOCK_SECTION_HEADER, 1, 1, 6, 6]);
        assert_eq!(&b[0].1[0..4], &BYTE_ORDER_MAGIC.to_le_bytes());
        // IDB: LINKTYPE_RAW, snaplen 4, if_name "cell1/ue_b" (10 bytes, padded to 12).
        let idb = &b[2].1;
        assert_eq!(u16::from_le_bytes([idb[0], idb[1]]), 101);
        assert_eq!(u32::from_le_bytes(idb[4..8].try_into().unwrap()), 4);
        assert_eq!(&idb[8..12], &[2, 0, 10, 0]);
        assert_eq!(&idb[12..22], b"cell1/ue_b");
        assert_eq!(&idb[24..29], &[9, 0, 1, 0, 9]);
        // EPB: interface 1, 64-bit nanoseconds, 4 of 6 bytes kept, inbound.
        let epb = &b[3].1;
        let word = |i: usize| u32::from_le_bytes(epb[i..i + 4].try_into().unwrap());
        assert_eq!(word(0), 1);
        assert_eq!((u64::from(word(4)) << 32) | u64::from(word(8)), t.as_ns());
        assert_eq!((word(12), word(16)), (4, 6));
        assert_eq!(&epb[20..24], &[1, 2, 3, 4]);
        assert_eq!(&epb[24..28], &[2, 0, 4, 0]);
        assert_eq!(word(28), 0b01);
        assert_eq!(u32::from_le_bytes(b[4].1[28..32].try_into().unwrap()), 0b10);
    }

    #[test]
    fn a_zero_snaplen_is_refused() {
        assert!(PcapngWriter::new(Vec::new(), 0, &[]).is_err());
    }
}
