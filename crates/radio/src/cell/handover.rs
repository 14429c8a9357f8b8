//! The cell as one of the cells of a radio access network (RAN): every UE of the network has a
//! context here, the cell serves those connected to it, and the network moves UEs between
//! cells with an X2 handover (TS 36.300 §10.1.2.1).
//!
//! What each step does to the UE's layers:
//! * **detach** (the source at the handover command, or at radio link failure): the UE's RLC
//!   receiver is re-established and delivers what it can reassemble (36.322 §5.4); the eNB's
//!   RLC gives back the PDCP PDUs to forward — for RLC AM from the first whose delivery is not
//!   confirmed (36.323 §5.2.1.1, 36.300 §10.1.2.1.2), for RLC UM those not yet transmitted —
//!   and is re-established; HARQ is reset (36.321 §5.9: blocks in flight are lost); the UE's
//!   uplink queue goes with the UE to the target.
//! * **forwarding** (the target): PDCP PDUs from the source are queued with the COUNT they
//!   already have (36.300 §10.1.2.1.2: the target sends forwarded SDUs first, with their SN).
//! * **attach** (the target at the handover confirm): the PDCP transmitter continues at the DL
//!   COUNT of the SN STATUS TRANSFER (36.423 §9.1.4.4) and the UE is served from the next TTI
//!   the cell processes.
//!
//! The UE's PDCP receiver is not part of a cell in this mode: it persists across cells, so the
//! cell hands the SDUs its UEs' RLC reassembled to the network (`take_delivered_sdus`), which
//! numbers them back into order and discards the duplicates forwarding creates.
//!
//! Call contract: the wake table is refreshed after every change to a UE here, as everywhere in
//! the cell (`wake.rs`), so `poll_timeout` stays exact through detach and attach.

use celltcp_engine::SimTime;
use celltcp_net::packet::{NodeId, Packet};

use super::bearer::BearerSdu;
use super::config::{CellError, LteCellConfig, UeConfig};
use super::LteCell;

/// What a source cell hands over when a UE leaves it ([`LteCell::detach_ue`]).
#[derive(Clone, Debug)]
pub struct DetachedUe {
    /// Downlink PDCP PDUs to forward, in COUNT order: from the first whose delivery RLC has not
    /// confirmed (36.323 §5.2.1.1 / 36.300 §10.1.2.1.2 for RLC AM: every SDU with any byte in an
    /// AMD PDU at or above VT(A), then every SDU not yet segmented; an SDU appears once). For
    /// RLC UM: the SDUs not yet entirely transmitted.
    pub unconfirmed: Vec<BearerSdu>,
    /// The COUNT the next new downlink SDU gets (the PDCP transmitter's next COUNT).
    pub next_dl_count: u32,
    /// SDUs the UE's RLC reassembled at re-establishment (36.322 §5.4: what can be reassembled
    /// is delivered), including PDUs decoded but not yet handed to RLC, preceded by any SDUs of
    /// the UE reassembled earlier and not yet taken with `take_delivered_sdus`. The RAN gives
    /// these to the UE's PDCP.
    pub delivered: Vec<BearerSdu>,
    /// Uplink IP packets queued at the UE and not yet delivered to the eNB (the UE sends them
    /// to the target, 36.300 §10.1.2.1.2 uplink).
    pub uplink: Vec<Packet>,
}

impl LteCell {
    /// A cell of a radio access network: every UE of the network has a context here;
    /// `connected[i]` says whether `ues[i]` is served by this cell at the start. Downlink SDUs
    /// are handed over through `take_delivered_sdus` instead of being delivered to the UE node.
    pub fn new_in_ran(
        cfg: LteCellConfig,
        ues: Vec<UeConfig>,
        connected: &[bool],
        seed: u64,
        run: u64,
    ) -> Result<LteCell, CellError> {
        let queue = Vec::with_capacity(64);
        Self::build(cfg, ues, connected, seed, run, Some(queue))
    }

    /// Whether the cell serves the UE now.
    pub fn is_connected(&self, node: NodeId) -> Result<bool, CellError> {
        Ok(self.ue(node)?.connected)
    }

    /// RRC handover command / loss of the radio link: the UE leaves the cell now. Its counters
    /// are kept (the cell's report still shows what it did for this UE). Detaching a UE that
    /// is not connected is an error.
    pub fn detach_ue(&mut self, now: SimTime, node: NodeId) -> Result<DetachedUe, CellError> {
        let i = self.connected_index(node, true)?;
        self.now = self.now.max(now);
        let mut delivered = Vec::new();
        if let Some(queue) = self.ran_delivered.as_mut() {
            queue.retain(|&(n, sdu)| {
                if n == node {
                    delivered.push(sdu);
                }
                n != node
            });
        }
        let ue = &mut self.ues[i];
        let (unconfirmed, uplink) = ue.detach(now, &mut delivered);
        let next_dl_count = ue.pdcp.next_count();
        // What the re-establishment of the UE's RLC delivered goes to the capture now, not at
        // this cell's next timer.
        if self.capture.is_some() {
            self.capture_delivered(now);
        }
        // The scheduler forgets the UE (proportional fair's average restarts at the next
        // attach).
        self.scheduler.on_ue_removed(i as u32);
        self.refresh_wake(i);
        Ok(DetachedUe {
            unconfirmed,
            next_dl_count,
            delivered,
            uplink,
        })
    }

    /// The UE has synchronised and accessed the cell (handover confirm): it is served from the
    /// next TTI; its PDCP transmitter continues at `next_dl_count` (SN STATUS TRANSFER,
    /// 36.423 §9.1.4.4), with fresh RLC/HARQ entities and the CQI of the large-scale SINR until
    /// its first periodic report. PDUs forwarded before the attach (`write_forwarded`) are
    /// kept and sent first. Attaching a connected UE is an error.
    ///
    /// "The next TTI" is the first TTI the cell can still process: the one starting at `now`
    /// if `now` is a TTI boundary not yet processed, else the following one.
    pub fn attach_ue(
        &mut self,
        now: SimTime,
        node: NodeId,
        next_dl_count: u32,
    ) -> Result<(), CellError> {
        let i = self.connected_index(node, false)?;
        self.now = self.now.max(now);
        let first_tti = self.next_tti_start().as_ns() / self.air.slot_ns();
        let ue = &mut self.ues[i];
        ue.attach(&self.cfg, &self.air, first_tti, next_dl_count)?;
        ue.refresh_buffer(now);
        self.refresh_wake(i);
        Ok(())
    }

    /// Queues a PDCP PDU forwarded by a source cell with the COUNT it already has (36.300
    /// §10.1.2.1.2: the target sends forwarded PDCP SDUs with their SN first). The UE need not
    /// be connected yet: the PDU waits for its attach. Refused with
    /// [`CellError::SduRefused`] when the RLC buffer is full (counted in `sdus_refused`).
    pub fn write_forwarded(
        &mut self,
        now: SimTime,
        node: NodeId,
        pdu: BearerSdu,
    ) -> Result<(), CellError> {
        let i = self.index(node).ok_or(CellError::UnknownUe { node })?;
        self.now = self.now.max(now);
        let ue = &mut self.ues[i];
        let written = ue.tx.write_sdu(now, pdu);
        ue.refresh_buffer(now);
        self.refresh_wake(i);
        written.map_err(|source| CellError::SduRefused { node, source })
    }

    /// RAN mode: moves out the downlink SDUs reassembled by UEs' RLC since the last call, in the
    /// order reassembled. A cell built with [`LteCell::new`] delivers IP packets to the UE nodes
    /// instead and appends nothing.
    pub fn take_delivered_sdus(&mut self, out: &mut Vec<(NodeId, BearerSdu)>) {
        if let Some(queue) = self.ran_delivered.as_mut() {
            out.append(queue);
        }
    }

    /// RSRP of the cell at the UE, dBm per resource element (TS 36.214 §5.1.1; an NR cell's
    /// SS-RSRP, TS 38.215 §5.1.1): transmit power per RE (total − 10·log10(12·N_RB), N_RB the
    /// carrier's: LTE's N_RB^DL, NR's of its numerology and bandwidth) + antenna gain − path
    /// loss − shadowing; no fast fading (the UE's layer-1 filtering averages it out). With the
    /// mmWave channel, the power of the last query, its blockage and beam state included
    /// ([`LteCell::measure_ue_rsrp_dbm`] brings it to the measurement's time).
    pub fn ue_rsrp_dbm(&self, node: NodeId) -> Result<f64, CellError> {
        Ok(self
            .ue(node)?
            .link
            .rsrp_dbm(&self.cfg, self.air.n_prb(&self.cfg)))
    }

    /// The RSRP a measurement at `now` takes ([`LteCell::ue_rsrp_dbm`]): a UE's mmWave channel
    /// is first brought to the slot `now` falls in, whether or not this cell serves the UE,
    /// so that a neighbour's blockage enters the UE's measurements as it happens (a blocked
    /// link measures lower). An LTE link budget is measured as it stands.
    pub fn measure_ue_rsrp_dbm(&mut self, now: SimTime, node: NodeId) -> Result<f64, CellError> {
        let i = self.index(node).ok_or(CellError::UnknownUe { node })?;
        self.ues[i]
            .link
            .measure_at(now.as_ns() / self.air.slot_ns());
        self.ue_rsrp_dbm(node)
    }

    /// PRB-TTIs used since the start (for the RAN's interference coupling).
    pub fn prbs_used(&self) -> u64 {
        self.prbs_used
    }

    /// The carrier's downlink PRBs, N_RB^DL.
    pub fn n_prb(&self) -> u32 {
        self.air.n_prb(&self.cfg)
    }

    /// Sets the load (0..=1) of each configured interferer, in `config().interferers` order, and
    /// recomputes every UE's interference (no new shadowing draw). Lets the RAN make its cells
    /// interfere with one another according to their actual PRB use. The SINR of TTIs already
    /// processed is unchanged; CQI reports measured from now on see the new interference.
    pub fn set_interferer_loads(&mut self, loads: &[f64]) -> Result<(), CellError> {
        if loads.len() != self.cfg.interferers.len() {
            return Err(CellError::InvalidConfig {
                key: "interferers.load",
                value: format!(
                    "{} loads for {} interferers",
                    loads.len(),
                    self.cfg.interferers.len()
                ),
                expected: "one load per configured interferer",
            });
        }
        if let Some(bad) = loads
            .iter()
            .find(|l| !(l.is_finite() && (0.0..=1.0).contains(*l)))
        {
            return Err(CellError::InvalidConfig {
                key: "interferers.load",
                value: bad.to_string(),
                expected: "a PRB utilisation in [0, 1]",
            });
        }
        for (i, &load) in self.cfg.interferers.iter_mut().zip(loads) {
            i.load = load;
        }
        for ue in &mut self.ues {
            ue.link.refresh_interference(&self.cfg, self.noise_dbm);
        }
        Ok(())
    }

    /// Bytes queued for the UE at the eNB (RLC buffer status: data with estimated RLC
    /// headers, retransmissions, control PDUs).
    pub fn ue_buffer_bytes(&self, node: NodeId) -> Result<u64, CellError> {
        Ok(self.ue(node)?.tx.buffer_bytes())
    }

    /// Whether the UE's RLC buffer would take an SDU of `size` bytes after `ahead_sdus` more of
    /// `ahead_bytes` in all (the room an EN-DC secondary reports to the master, TS 38.425
    /// §5.4.2.1 desired buffer size).
    pub fn ue_admits_after(
        &self,
        node: NodeId,
        ahead_sdus: usize,
        ahead_bytes: u64,
        size: u32,
    ) -> Result<bool, CellError> {
        Ok(self
            .ue(node)?
            .tx
            .admits_after(ahead_sdus, ahead_bytes, size))
    }

    /// The room left in the UE's RLC transmission buffer, in the dimensions its limit bounds:
    /// what an EN-DC secondary reports to the master as the desired buffer size (TS 38.425
    /// §5.4.2.1). It is the room [`LteCell::ue_admits_after`] leaves, found by bisection on
    /// that rule, so the two agree by construction: an SDU of `size` bytes after `k` more of
    /// `b` bytes fits now exactly when [`BufferRoom::admits`]`(k, b, size)`.
    pub fn ue_buffer_room(&self, node: NodeId) -> Result<BufferRoom, CellError> {
        let tx = &self.ue(node)?.tx;
        let sdus = largest_admitted(|m| {
            m == 0 || tx.admits_after(usize::try_from(m - 1).unwrap_or(usize::MAX), 0, 1)
        });
        let bytes = largest_admitted(|x| tx.admits_after(0, x, 0));
        Ok(BufferRoom { sdus, bytes })
    }

    /// The index of UE `node`, which must be connected (`want`) or not.
    fn connected_index(&self, node: NodeId, want: bool) -> Result<usize, CellError> {
        let i = self.index(node).ok_or(CellError::UnknownUe { node })?;
        match (self.ues[i].connected, want) {
            (true, false) => Err(CellError::AlreadyConnected { node }),
            (false, true) => Err(CellError::NotConnected { node }),
            _ => Ok(i),
        }
    }
}

/// The room of an RLC transmission buffer (TS 38.425 §5.4.2.1, the desired buffer size for the
/// data radio bearer): how many more SDUs and how many more bytes it takes; `None` in a
/// dimension its limit does not bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferRoom {
    pub sdus: Option<u64>,
    pub bytes: Option<u64>,
}

impl BufferRoom {
    /// Whether an SDU of `size` bytes fits after `ahead_sdus` more of `ahead_bytes` in all.
    pub fn admits(&self, ahead_sdus: u64, ahead_bytes: u64, size: u32) -> bool {
        self.sdus.is_none_or(|n| ahead_sdus < n)
            && self
                .bytes
                .is_none_or(|b| ahead_bytes + u64::from(size) <= b)
    }
}

/// Above this a buffer's room counts as unbounded (2^40 SDUs or bytes: no RLC buffer limit of
/// a scenario comes near).
const UNBOUNDED_ROOM: u64 = 1 << 40;

/// The largest `x` ≤ [`UNBOUNDED_ROOM`] with `admitted(x)`, for a rule true from 0 up to some
/// point and false beyond; `None` when it still holds at the bound.
fn largest_admitted(admitted: impl Fn(u64) -> bool) -> Option<u64> {
    if admitted(UNBOUNDED_ROOM) {
        return None;
    }
    if !admitted(0) {
        return Some(0);
    }
    // admitted(lo), !admitted(hi)
    let (mut lo, mut hi) = (0, UNBOUNDED_ROOM);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if admitted(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bisection finds the edge of a monotone rule, and reports no bound beyond 2^40.
    #[test]
    fn largest_admitted_is_the_edge_of_the_rule() {
        assert_eq!(largest_admitted(|x| x <= 999), Some(999));
        assert_eq!(largest_admitted(|x| x == 0), Some(0));
        assert_eq!(largest_admitted(|_| false), Some(0));
        assert_eq!(largest_admitted(|_| true), None);
    }

    /// A room of 3 SDUs and 4000 bytes takes a third 1000-byte SDU after two, not a fourth, and
    /// no 2001-byte SDU after 2000 bytes.
    #[test]
    fn buffer_room_admits_within_both_bounds() {
        let r = BufferRoom {
            sdus: Some(3),
            bytes: Some(4000),
        };
        assert!(r.admits(2, 2000, 1000));
        assert!(!r.admits(3, 3000, 1000));
        assert!(!r.admits(1, 2000, 2001));
        let unbounded = BufferRoom {
            sdus: None,
            bytes: None,
        };
        assert!(unbounded.admits(u64::MAX - 1, 1 << 50, u32::MAX));
    }
}
