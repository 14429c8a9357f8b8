//! Radio-side captures of a cell (docs/captures.md), written only when asked for: the cell
//! holds an `Option<Box<CellCapture>>` and every hook is behind one `if let`, so a run without
//! captures does no more than test it.
//!
//! * IP packets as the air interface delivers them, in a pcapng file with one interface per UE
//!   (named `CELL/UE`): a downlink packet when the UE's RLC delivers it (before PDCP reordering
//!   and the UE's own receive errors), direction inbound; an uplink packet when the abstracted
//!   uplink delivers it to the eNB, direction outbound.
//! * MAC PDUs in the "mac-lte-framed" UDP framing ([`super::mac_lte`]): every downlink
//!   transport block transmission at the start of its TTI, with its HARQ process, NDI, MCS,
//!   PRBs, retransmission count and CRC status (decoded or not, at the UE), the RLC PDUs it
//!   carries and their PDCP PDUs; and every RLC STATUS PDU the UE sends, as an uplink MAC PDU
//!   at its arrival at the eNB (CRC failed for one the uplink lost). The uplink's IP packets
//!   are not framed: the model does not run an uplink RLC entity for them (docs/lte-model.md).
//!
//! Writing never changes the simulation: hooks read the PDUs, draw no random numbers and
//! schedule nothing. A write error is kept and reported once, at the end of the run.

use std::io::{self, Write};
use std::net::Ipv4Addr;

use celltcp_engine::SimTime;
use celltcp_net::packet::Packet;
use celltcp_net::pcap::PcapWriter;
use celltcp_net::pcapng::{Direction, PcapngWriter};
use celltcp_net::wire::{write_datagram, Checksum, PROTOCOL_UDP};

use crate::rlc::RlcPdu;

use super::bearer::{DlPdu, UlStatus};
use super::config::RlcModeConfig;
use super::mac_lte::{self, framing, DlPhy, MacContext, DRB_LCID, FIRST_C_RNTI};

/// A sink for captured bytes that the simulation can own.
pub type CaptureOut = Box<dyn Write + Send>;

/// Addresses of the UDP datagrams that carry the framed MAC PDUs (a loopback pair: the
/// datagrams never were on a network).
const FRAMING_SRC: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 1);
const FRAMING_DST: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);

/// IP packets of a radio medium's UEs in a pcapng file, one interface per UE: a downlink
/// packet is inbound, an uplink packet outbound (as the UE sees them).
pub struct IpCapture {
    writer: PcapngWriter<CaptureOut>,
    datagram: Vec<u8>,
    error: Option<io::Error>,
}

impl IpCapture {
    /// A capture to `out` whose interface `i` is named `interfaces[i]`.
    ///
    /// # Errors
    /// Those of writing the file's header.
    pub fn new(out: CaptureOut, snaplen: u32, interfaces: &[&str]) -> io::Result<Self> {
        Ok(IpCapture {
            writer: PcapngWriter::new(out, snaplen, interfaces)?,
            datagram: Vec::new(),
            error: None,
        })
    }

    /// `pkt` of UE `ue` (its interface) at `t`.
    pub fn write(&mut self, ue: usize, t: SimTime, pkt: &Packet, downlink: bool) {
        self.datagram.clear();
        let mut p = *pkt;
        // Over the air a packet travels without its S1-U tunnel.
        p.tunnel = None;
        if write_datagram(&p, &mut self.datagram).is_err() {
            return;
        }
        let direction = if downlink {
            Direction::Inbound
        } else {
            Direction::Outbound
        };
        if let Err(e) = self.writer.write(ue as u32, t, &self.datagram, direction) {
            self.error.get_or_insert(e);
        }
    }

    /// Flushes the file; the first error of the run, if any.
    pub fn finish(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.writer.flush()
    }
}

/// The capture files of one cell and the state their records need.
pub struct CellCapture {
    ip: Option<IpCapture>,
    mac: Option<PcapWriter<CaptureOut>>,
    /// RLC SN length of the bearer, bits.
    am: Option<u8>,
    um: Option<u8>,
    /// NDI of each (UE, HARQ process): toggled by each new transport block (36.321 §5.3.2.2).
    ndi: Vec<Vec<bool>>,
    /// The PDU being framed, one RLC PDU's bytes, one SDU's bytes, one datagram.
    frame: Vec<u8>,
    body: Vec<u8>,
    sdu: Vec<u8>,
    datagram: Vec<u8>,
    sdus: Vec<(usize, usize)>,
    /// IPv4 identification of the next framing datagram.
    ip_id: u16,
    error: Option<io::Error>,
}

impl std::fmt::Debug for CellCapture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CellCapture")
            .field("ip", &self.ip.is_some())
            .field("mac", &self.mac.is_some())
            .finish_non_exhaustive()
    }
}

impl CellCapture {
    /// Captures of a cell with `ues` UEs (in the cell's order), `harq_processes` HARQ processes
    /// each and bearer `rlc`: IP packets to `ip` (a pcapng file, interface `i` named
    /// `interfaces[i]`), MAC PDUs to `mac` (a pcap file of UDP datagrams); either may be absent.
    ///
    /// # Errors
    /// Those of writing the files' headers.
    pub fn new(
        ip: Option<CaptureOut>,
        mac: Option<CaptureOut>,
        snaplen: u32,
        interfaces: &[&str],
        harq_processes: u8,
        rlc: &RlcModeConfig,
    ) -> io::Result<Self> {
        let ip = ip
            .map(|w| IpCapture::new(w, snaplen, interfaces))
            .transpose()?;
        let mac = mac.map(|w| PcapWriter::new(w, snaplen)).transpose()?;
        let (am, um) = match rlc {
            RlcModeConfig::Am(c) => (Some(c.sn_bits), None),
            RlcModeConfig::Um(c) => (None, Some(c.sn_bits)),
            // An NR cell has no mac-lte capture (the framing numbers LTE subframes).
            RlcModeConfig::NrAm(_) | RlcModeConfig::NrUm(_) => (None, None),
        };
        Ok(CellCapture {
            ip,
            mac,
            am,
            um,
            ndi: vec![vec![false; usize::from(harq_processes)]; interfaces.len()],
            frame: Vec::new(),
            body: Vec::new(),
            sdu: Vec::new(),
            datagram: Vec::new(),
            sdus: Vec::new(),
            ip_id: 0,
            error: None,
        })
    }

    /// Whether IP packets are captured (the UEs then keep what their RLC delivers).
    pub fn captures_ip(&self) -> bool {
        self.ip.is_some()
    }

    fn keep(&mut self, r: io::Result<()>) {
        if let Err(e) = r {
            self.error.get_or_insert(e);
        }
    }

    /// An IP packet of UE `ue` (its index in the cell) at `t`.
    pub fn ip(&mut self, ue: usize, t: SimTime, pkt: &Packet, downlink: bool) {
        if let Some(c) = self.ip.as_mut() {
            c.write(ue, t, pkt, downlink);
        }
    }

    /// One transmission of a downlink transport block of `tbs_bytes` to UE `ue` on HARQ
    /// process `process` in TTI `tti` (starting at `t`): transmission number `transmission`
    /// (1 for new data), decoded or not at the UE, carrying `pdus`.
    #[allow(clippy::too_many_arguments)]
    pub fn downlink_tb(
        &mut self,
        t: SimTime,
        tti: u64,
        ue: usize,
        process: u8,
        transmission: u8,
        decoded: bool,
        mcs: u8,
        n_prb: u32,
        tbs_bytes: u32,
        pdus: &[DlPdu],
    ) {
        if self.mac.is_none() {
            return;
        }
        let ndi = &mut self.ndi[ue][usize::from(process)];
        if transmission <= 1 {
            *ndi = !*ndi;
        }
        let ctx = MacContext {
            downlink: true,
            rnti: rnti(ue),
            ueid: ueid(ue),
            tti,
            retx: transmission.saturating_sub(1),
            crc_ok: decoded,
            phy: Some(DlPhy {
                mcs,
                n_prb: n_prb.min(255) as u8,
                harq_id: process,
                ndi: *ndi,
            }),
        };
        self.body.clear();
        self.sdus.clear();
        let mut carried = 0u32;
        for pdu in pdus {
            let from = self.body.len();
            match pdu {
                DlPdu::Am(RlcPdu::Data(d)) => {
                    let sn = self.am.unwrap_or(10);
                    mac_lte::write_amd_pdu(&mut self.body, d, sn, &mut self.sdu);
                }
                DlPdu::Am(RlcPdu::Status(s)) => {
                    mac_lte::write_status_pdu(&mut self.body, s, self.am.unwrap_or(10));
                }
                // The model's MRW (a WCDMA control PDU) has no 36.322 form: its bytes count as
                // padding.
                DlPdu::Am(RlcPdu::Mrw(_)) => continue,
                DlPdu::Um(u) => {
                    let sn = self.um.unwrap_or(10);
                    mac_lte::write_umd_pdu(&mut self.body, u, sn, &mut self.sdu);
                }
                // Not built for an NR cell (see `new`).
                DlPdu::NrAm(_) | DlPdu::NrUm(_) => continue,
            }
            carried += (self.body.len() - from) as u32;
            self.sdus.push((from, self.body.len()));
        }
        let padding = tbs_bytes.saturating_sub(carried);
        self.write_mac(t, &ctx, padding);
    }

    /// A STATUS PDU of UE `ue` reaching the eNB at `t` over the uplink, or lost on it.
    pub fn uplink_status(&mut self, ue: usize, t: SimTime, status: &UlStatus, lost: bool) {
        let (Some(_), UlStatus::Lte(status)) = (&self.mac, status) else {
            return;
        };
        let ctx = MacContext {
            downlink: false,
            rnti: rnti(ue),
            ueid: ueid(ue),
            tti: t.as_ns() / crate::phy::TTI_NS,
            retx: 0,
            crc_ok: !lost,
            phy: None,
        };
        self.body.clear();
        self.sdus.clear();
        mac_lte::write_status_pdu(&mut self.body, status, self.am.unwrap_or(10));
        self.sdus.push((0, self.body.len()));
        self.write_mac(t, &ctx, 0);
    }

    /// Frames the MAC PDU of `self.sdus` (ranges of `self.body`) and appends it as a UDP
    /// datagram seen at `t`.
    fn write_mac(&mut self, t: SimTime, ctx: &MacContext, padding: u32) {
        self.frame.clear();
        mac_lte::write_framing(&mut self.frame, ctx);
        mac_lte::write_mac_pdu(&mut self.frame, DRB_LCID, &self.body, &self.sdus, padding);
        self.datagram.clear();
        udp_datagram(&mut self.datagram, self.ip_id, &self.frame);
        self.ip_id = self.ip_id.wrapping_add(1);
        let r = match self.mac.as_mut() {
            Some(w) => w.write_bytes(t, &self.datagram),
            None => Ok(()),
        };
        self.keep(r);
    }

    /// Flushes the files; the first error of the run, if any.
    pub fn finish(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if let Some(c) = self.ip.as_mut() {
            c.finish()?;
        }
        if let Some(w) = self.mac.as_mut() {
            use celltcp_net::world::CaptureSink;
            w.finish()?;
        }
        Ok(())
    }
}

/// The C-RNTI of the cell's UE `ue`: from 0x003D on, in the cell's UE order.
pub fn rnti(ue: usize) -> u16 {
    FIRST_C_RNTI.saturating_add(ue as u16)
}

/// The UEId of the framing: the UE's rank in the cell, from 1.
pub fn ueid(ue: usize) -> u16 {
    (ue as u16).saturating_add(1)
}

/// An IPv4/UDP datagram (RFC 791, RFC 768) from [`FRAMING_SRC`] to [`FRAMING_DST`], port
/// [`framing::UDP_PORT`] at both ends, carrying `payload`, with both checksums.
fn udp_datagram(out: &mut Vec<u8>, id: u16, payload: &[u8]) {
    let udp_len = (8 + payload.len()) as u16;
    let total = 20 + udp_len;
    let start = out.len();
    out.extend_from_slice(&[0x45, 0]);
    out.extend_from_slice(&total.to_be_bytes());
    out.extend_from_slice(&id.to_be_bytes());
    out.extend_from_slice(&[0, 0, 64, PROTOCOL_UDP, 0, 0]);
    out.extend_from_slice(&FRAMING_SRC.octets());
    out.extend_from_slice(&FRAMING_DST.octets());
    let mut c = Checksum::new();
    c.add_bytes(&out[start..start + 20]);
    let ip_sum = c.finish();
    out[start + 10..start + 12].copy_from_slice(&ip_sum.to_be_bytes());
    let u = out.len();
    out.extend_from_slice(&framing::UDP_PORT.to_be_bytes());
    out.extend_from_slice(&framing::UDP_PORT.to_be_bytes());
    out.extend_from_slice(&udp_len.to_be_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(payload);
    let mut c = Checksum::new();
    c.add_pseudo_header(FRAMING_SRC, FRAMING_DST, PROTOCOL_UDP, udp_len);
    c.add_bytes(&out[u..]);
    // RFC 768: a computed zero is sent as all ones.
    let sum = match c.finish() {
        0 => 0xFFFF,
        s => s,
    };
    out[u + 6..u + 8].copy_from_slice(&sum.to_be_bytes());
}
