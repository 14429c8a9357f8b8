//! One downlink TTI of the cell — the 1 ms subframe of LTE, or one NR slot (`air.rs`) —, in
//! this order:
//!
//! 1. The transport blocks decoded in the previous TTI reach the UEs' RLC receivers (a block
//!    is received at the end of the subframe that carried it); in-order SDUs are delivered and
//!    STATUS PDUs queued on the uplink.
//! 2. HARQ feedback due now (sent in TTI k − 4, TS 36.213 §10.1.2; in NR in the uplink slot
//!    of K1, TS 38.213 §9.2.3) is applied.
//!
//! Steps 3 to 6 run only in a slot that carries a PDSCH (every LTE TTI; an NR slot with
//! downlink symbols for one, `AirInterface::tbs`). An uplink slot of a TDD pattern still
//! runs steps 1 and 2: it is where the HARQ-ACKs arrive.
//!
//! 3. For every UE with data (and a free HARQ process) or a retransmission due: its channel is
//!    brought to this TTI (fading, CQI reports measured and made visible) and its state for the
//!    scheduler is built: buffer (at most the largest transport block the UE's category
//!    allows, `keys.ue_category` of `LteCellConfig`), CQI and rank, MCS from the CQI (`mcs_for_cqi`
//!    of the air interface's tables) or the fixed MCS, and the UE's WFQ weight
//!    (`LteCellConfig::ue_weights`).
//! 4. The MAC scheduler allocates the PRBs (HARQ retransmissions first).
//! 5. Each allocation is transmitted: a retransmission resends the block its process holds;
//!    new data is built by pulling RLC PDUs until the transport block is full (control PDUs
//!    first, then retransmissions, then new data, 36.322 §5.1.3.1.1). The block is decoded
//!    or not by one draw against the BLER of its MCS at the UE's SINR (per layer, in NR),
//!    chase-combined over the block's transmissions when configured.
//! 6. The scheduler learns the bits decoded per UE.
//!
//! Only the UEs that need the TTI are visited (see `wake.rs`), and nothing here or in the MAC
//! scheduler allocates once the buffers have grown to their working size (RLC may, for
//! occasional STATUS PDUs and queue growth; see `docs/lte-model.md`).
//!
//! No lookup here can fail, so no error is turned into a plausible value: CQIs and MCSs are
//! [`Cqi`] and [`Mcs`], which hold only the indices the cell's tables have, and its BLER model
//! has a curve for each MCS (a table without one is refused when it is read, before the cell
//! is built); HARQ hands out only processes that may transmit now
//! ([`HarqEntity::claim_retx`](crate::mac::HarqEntity::claim_retx),
//! [`claim_free_process`](crate::mac::HarqEntity::claim_free_process)). What the types cannot
//! hold — the scheduler allocating only what the states offered, an SINR with a finite linear
//! value — is checked, and a violation panics naming the cell and the invariant
//! ([`broken_invariant`]), which the engine reports as the model's panic instead of the run
//! going on with made-up losses.

use celltcp_engine::SimTime;
use celltcp_net::medium::MediumOutput;

use crate::mac::{Allocation, TransportBlock, TxReport, UeState};
use crate::phy::{Cqi, Mcs};

use super::air::AirInterface;
use super::config::{HarqCombining, LteCellConfig};
use super::ue::{TtiRecord, UeContext};
use super::LteCell;

/// A transport block just handed to the PHY on a HARQ process.
struct SentBlock {
    process: u8,
    tb: TransportBlock,
    report: TxReport,
}

impl LteCell {
    /// Runs TTI `tti`, which starts at `now`.
    pub(super) fn run_tti(&mut self, tti: u64, now: SimTime, out: &mut MediumOutput) {
        // Only the UEs that need this TTI: any other has nothing decoded, no HARQ process
        // holding a block and an empty buffer, and nothing below changes that.
        let mut active = std::mem::take(&mut self.active);
        active.clear();
        active.extend((0..self.ues.len()).filter(|&i| self.wake.needs_tti(i)));
        // UEs whose bearer, HARQ entity or uplink this TTI changes (their deadline and TTI
        // need are recorded again at the end): those that receive decoded data or HARQ
        // feedback, and those that transmit. Building the scheduler state changes neither.
        let mut touched = std::mem::take(&mut self.touched);
        touched.clear();
        for &i in &active {
            let ue = &mut self.ues[i];
            let had_decoded = !ue.decoded.is_empty();
            ue.receive_decoded(now, &self.cfg, out, self.ran_delivered.as_mut());
            if ue.harq_feedback(tti) || had_decoded {
                touched.push(i);
            }
        }
        if self.air.tbs(tti).is_some() {
            self.run_downlink(tti, now, &active, &mut touched);
        }
        self.ttis_processed += 1;
        for &i in &touched {
            self.refresh_wake(i);
        }
        self.active = active;
        self.touched = touched;
    }

    /// Steps 3 to 6, in a slot with a PDSCH; the UEs allocated join `touched`.
    fn run_downlink(&mut self, tti: u64, now: SimTime, active: &[usize], touched: &mut Vec<usize>) {
        self.build_states(tti, active);
        let mut allocs = std::mem::take(&mut self.allocs);
        let n_prb = self.air.n_prb(&self.cfg);
        let Some(tbs) = self.air.tbs(tti) else {
            broken_invariant(
                &self.cfg.name,
                tti,
                format_args!("a downlink slot without PDSCH"),
            )
        };
        self.scheduler
            .schedule(tti, n_prb, &self.states, tbs, &mut allocs);
        self.served.clear();
        for a in &allocs {
            self.transmit(tti, now, a);
            touched.push(a.ue as usize);
        }
        self.allocs = allocs;
        self.scheduler.on_tti_end(tti, &self.served);
        self.end_states(tti, now);
    }

    /// Step 3: channel, CQI and scheduler state of every UE of `active` that can be
    /// scheduled, in increasing index order.
    fn build_states(&mut self, tti: u64, active: &[usize]) {
        self.states.clear();
        for &i in active {
            let ue = &mut self.ues[i];
            let retx = ue.harq.pending_retx(tti).map(|r| r.as_harq_retx());
            // No free HARQ process: the UE cannot take new data in this TTI.
            let buffer_bytes = match ue.harq.free_process(tti) {
                Some(_) => ue.tx.buffer_bytes(),
                None => 0,
            };
            if retx.is_none() && buffer_bytes == 0 {
                continue;
            }
            let air = &self.air;
            ue.cqi
                .advance_to(tti, &mut ue.link, &self.cfg, |s| air.csi_for_sinr(s));
            ue.sinr_db = ue.link.sinr_db(&self.cfg, tti);
            ue.counters.sinr_sum_db += ue.sinr_db;
            ue.counters.sinr_samples += 1;
            let reported = ue.cqi.current();
            let (wideband_cqi, mcs) = match (self.cfg.fixed_mcs, self.air.mcs_for_cqi(reported)) {
                // Link adaptation bypassed: the UE is always eligible, at the fixed MCS.
                (Some(m), _) => (reported.max(Cqi::MIN_IN_RANGE), m),
                (None, Some(m)) => (reported, m),
                // CQI 0 ("out of range"): no new data, so no MCS is used. The state still
                // needs one, and MCS 0 is what the per-TTI series shows for such a UE.
                (None, None) => (reported, Mcs::MIN),
            };
            self.states.push(UeState {
                ue: i as u32,
                buffer_bytes: offered_bytes(self.air.category_bound_bits(mcs), buffer_bytes),
                wideband_cqi,
                subband_cqi: None,
                mcs,
                layers: ue.cqi.current_layers(),
                weight: ue.weight,
                harq_retx: retx,
            });
        }
    }

    /// Step 5 for one allocation: sends the block, draws whether it is decoded and records
    /// the outcome.
    fn transmit(&mut self, tti: u64, now: SimTime, a: &Allocation) {
        let Some(sent) = self.send_block(tti, now, a) else {
            return;
        };
        let ue = &mut self.ues[a.ue as usize];
        let decoded = decode(&self.cfg, &self.air, ue, &sent);
        let p = usize::from(sent.process);
        let tb = sent.tb;
        if let Some(c) = self.capture.as_deref_mut() {
            c.downlink_tb(
                now,
                tti,
                a.ue as usize,
                sent.process,
                sent.report.transmission,
                decoded,
                tb.mcs.get(),
                tb.n_prb,
                tb.size_bits / 8,
                &ue.harq_pdus[p],
            );
        }
        ue.harq_decoded[p] = decoded;
        if decoded {
            let UeContext {
                decoded: rx_queue,
                harq_pdus,
                ..
            } = ue;
            rx_queue.append(&mut harq_pdus[p]);
            ue.counters.tbs_decoded += 1;
            ue.counters.tb_bits_decoded += u64::from(tb.size_bits);
            self.served.push((a.ue, tb.size_bits));
        }
        ue.counters.prbs += u64::from(a.n_prb);
        self.prbs_used += u64::from(a.n_prb);
        ue.record = TtiRecord {
            tti,
            mcs: tb.mcs.get(),
            n_prb: a.n_prb,
            tbs_bits: tb.size_bits,
            transmission: sent.report.transmission,
            decoded,
        };
    }

    /// Hands allocation `a`'s block to its HARQ process: the block the process holds for a
    /// retransmission, or a new one filled with RLC PDUs. `None` for a grant no RLC PDU fits
    /// in (counted as an empty grant).
    fn send_block(&mut self, tti: u64, now: SimTime, a: &Allocation) -> Option<SentBlock> {
        let cell = self.cfg.name.as_str();
        let Some(ue) = self.ues.get_mut(a.ue as usize) else {
            broken_invariant(
                cell,
                tti,
                format_args!("allocation to unknown UE index {}", a.ue),
            )
        };
        let sinr_linear = 10f64.powf(ue.sinr_db / 10.0);
        if !sinr_linear.is_finite() {
            broken_invariant(
                cell,
                tti,
                format_args!(
                    "UE {}: SINR {} dB has no finite linear value for HARQ to combine (a link \
                     budget no configuration check foresaw)",
                    ue.node, ue.sinr_db
                ),
            )
        }
        if a.harq_retx {
            let Some(retx) = ue.harq.claim_retx(tti) else {
                broken_invariant(
                    cell,
                    tti,
                    format_args!(
                        "UE {}: a retransmission was allocated, none is due",
                        ue.node
                    ),
                )
            };
            let due = retx.due();
            let report = retx.transmit(sinr_linear);
            return Some(SentBlock {
                process: due.process,
                tb: due.tb,
                report,
            });
        }
        let Some(free) = ue.harq.claim_free_process(tti) else {
            broken_invariant(
                cell,
                tti,
                format_args!(
                    "UE {}: new data was allocated, no HARQ process is free",
                    ue.node
                ),
            )
        };
        let process = free.process();
        let pdus = &mut ue.harq_pdus[usize::from(process)];
        if !fill_transport_block(&mut ue.tx, pdus, now, a.tbs_bytes) {
            ue.counters.empty_grants += 1;
            return None;
        }
        self.next_tb_id += 1;
        let tb = TransportBlock {
            id: self.next_tb_id,
            size_bits: a.tbs_bytes * 8,
            mcs: a.mcs,
            n_prb: a.n_prb,
            layers: a.layers,
        };
        let report = free.transmit(tb, sinr_linear);
        ue.counters.mcs_sum += u64::from(a.mcs.get());
        ue.counters.new_tbs += 1;
        Some(SentBlock {
            process,
            tb,
            report,
        })
    }

    /// After step 6: the buffer of every UE that was offered to the scheduler, and its row of
    /// the per-TTI series.
    fn end_states(&mut self, tti: u64, now: SimTime) {
        for s in &self.states {
            let ue = &mut self.ues[s.ue as usize];
            ue.refresh_buffer(now);
            if let Some(trace) = self.trace.as_mut() {
                let r = if ue.record.tti == tti && ue.record.n_prb > 0 {
                    ue.record
                } else {
                    TtiRecord {
                        mcs: s.mcs.get(),
                        ..TtiRecord::default()
                    }
                };
                trace.push(
                    now.as_ns(),
                    ue.node,
                    ue.sinr_db,
                    s.wideband_cqi.get(),
                    r.mcs,
                    r.n_prb,
                    r.tbs_bits,
                    r.transmission,
                    r.decoded,
                );
            }
        }
    }
}

/// The buffer offered to the scheduler for new data at `mcs`. A UE category bounds the
/// transport block (TS 36.306 Table 4.1-1, `tbs.rs`): the UE is offered no more than the
/// largest block it can receive, so that the scheduler stops at the fewest PRBs carrying
/// that block instead of granting PRBs the block cannot fill. Where the category does not
/// bound the block at `mcs` (or there is none), the buffer is offered as it is.
fn offered_bytes(bound_bits: Option<u32>, buffer_bytes: u64) -> u64 {
    match bound_bits {
        Some(bits) => buffer_bytes.min(u64::from(bits / 8)),
        None => buffer_bytes,
    }
}

/// Whether the block just sent to `ue` is decoded: one uniform per transmission, drawn
/// whatever the BLER (aligned streams), against the BLER of its MCS (on its layers) at the
/// UE's SINR, chase-combined over the block's transmissions when configured. The BLER model
/// has a curve for every MCS, so there is no MCS it cannot answer for.
fn decode(cfg: &LteCellConfig, air: &AirInterface, ue: &mut UeContext, sent: &SentBlock) -> bool {
    let decoding_sinr_db = match cfg.keys.harq_combining {
        HarqCombining::Chase => 10.0 * sent.report.combined_sinr_linear.log10(),
        HarqCombining::None => ue.sinr_db,
    };
    let u = ue.rng_bler.next_f64();
    u >= air.bler(cfg, sent.tb.mcs, sent.tb.layers, decoding_sinr_db)
}

/// Fills `pdus`, the transport block of `tbs_bytes` on a HARQ process, with RLC PDUs from
/// `tx`; false if no PDU fits.
fn fill_transport_block(
    tx: &mut super::bearer::DlTx,
    pdus: &mut Vec<super::bearer::DlPdu>,
    now: SimTime,
    tbs_bytes: u32,
) -> bool {
    pdus.clear();
    let mut remaining = tbs_bytes;
    while remaining > 0 {
        let Some(pdu) = tx.pull_pdu(now, remaining) else {
            break;
        };
        remaining = remaining.saturating_sub(pdu.size_bytes());
        pdus.push(pdu);
    }
    !pdus.is_empty()
}

/// Fails loudly on a state the per-TTI path cannot reach unless a component broke its
/// contract: a panic naming the cell, the TTI and the invariant, which the engine reports as
/// the model's panic (`celltcp_engine::ModelPanic`), where going on would turn the broken
/// state into plausible losses.
#[cold]
#[inline(never)]
#[track_caller]
fn broken_invariant(cell: &str, tti: u64, what: std::fmt::Arguments<'_>) -> ! {
    panic!("cell {cell}, TTI {tti}: broken invariant: {what}")
}
