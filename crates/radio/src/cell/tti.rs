//! One downlink TTI (1 ms subframe) of the cell, in this order:
//!
//! 1. The transport blocks decoded in the previous TTI reach the UEs' RLC receivers (a block
//!    is received at the end of the subframe that carried it); in-order SDUs are delivered and
//!    STATUS PDUs queued on the uplink.
//! 2. HARQ feedback due now (sent in TTI k − 4, TS 36.213 §10.1.2) is applied.
//! 3. For every UE with data (and a free HARQ process) or a retransmission due: its channel is
//!    brought to this TTI (fading, CQI reports measured and made visible) and its state for the
//!    scheduler is built: buffer, CQI, MCS from the CQI (`mcs_for_cqi`) or the fixed MCS, and
//!    the UE's WFQ weight (`LteCellConfig::ue_weights`).
//! 4. The MAC scheduler allocates the PRBs (HARQ retransmissions first).
//! 5. Each allocation is transmitted: a retransmission resends the block its process holds;
//!    new data is built by pulling RLC PDUs until the transport block is full (control PDUs
//!    first, then retransmissions, then new data, 36.322 §5.1.3.1.1). The block is decoded
//!    or not by one draw against the BLER of its MCS at the UE's SINR, chase-combined over the
//!    block's transmissions when configured.
//! 6. The scheduler learns the bits decoded per UE.
//!
//! Only the UEs that need the TTI are visited (see `wake.rs`), and nothing here or in the MAC
//! scheduler allocates once the buffers have grown to their working size (RLC may, for
//! occasional STATUS PDUs and queue growth; see `docs/lte-model.md`).

use celltcp_engine::SimTime;
use celltcp_net::medium::MediumOutput;

use crate::mac::{Allocation, TransportBlock, UeState};
use crate::phy::mcs_for_cqi;

use super::config::HarqCombining;
use super::ue::{TtiRecord, UeContext};
use super::LteCell;

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
        self.build_states(tti, &active);
        let mut allocs = std::mem::take(&mut self.allocs);
        self.scheduler
            .schedule(tti, self.cfg.n_prb, &self.states, &self.tbs, &mut allocs);
        self.served.clear();
        for a in &allocs {
            self.transmit(tti, now, a);
            touched.push(a.ue as usize);
        }
        self.allocs = allocs;
        self.scheduler.on_tti_end(tti, &self.served);
        self.ttis_processed += 1;
        for s in &self.states {
            let ue = &mut self.ues[s.ue as usize];
            ue.refresh_buffer(now);
            if let Some(trace) = self.trace.as_mut() {
                let r = if ue.record.tti == tti && ue.record.n_prb > 0 {
                    ue.record
                } else {
                    TtiRecord {
                        mcs: s.mcs,
                        ..TtiRecord::default()
                    }
                };
                trace.push(
                    now.as_ns(),
                    ue.node,
                    ue.sinr_db,
                    s.wideband_cqi,
                    r.mcs,
                    r.n_prb,
                    r.tbs_bits,
                    r.transmission,
                    r.decoded,
                );
            }
        }
        for &i in &touched {
            self.refresh_wake(i);
        }
        self.active = active;
        self.touched = touched;
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
            ue.cqi.advance_to(tti, &mut ue.link, &self.cfg, &self.amc);
            ue.sinr_db = ue.link.sinr_db(&self.cfg, tti);
            ue.counters.sinr_sum_db += ue.sinr_db;
            ue.counters.sinr_samples += 1;
            let reported = ue.cqi.current();
            let (wideband_cqi, mcs) = match self.cfg.fixed_mcs {
                // Link adaptation bypassed: the UE is always eligible, at the fixed MCS.
                Some(m) => (reported.max(1), m),
                None => (reported, mcs_for_cqi(reported).ok().flatten().unwrap_or(0)),
            };
            let state = UeState {
                ue: i as u32,
                buffer_bytes,
                wideband_cqi,
                subband_cqi: None,
                mcs,
                // Checked by `LteCellConfig::validate` (finite, > 0).
                weight: ue.weight,
                harq_retx: retx,
            };
            debug_assert!(state.validate().is_ok(), "{state:?}");
            self.states.push(state);
        }
    }

    /// Step 5 for one allocation.
    fn transmit(&mut self, tti: u64, now: SimTime, a: &Allocation) {
        let Some(ue) = self.ues.get_mut(a.ue as usize) else {
            return;
        };
        let sinr_linear = 10f64.powf(ue.sinr_db / 10.0);
        if !sinr_linear.is_finite() {
            return;
        }
        let (process, tb, report) = if a.harq_retx {
            let Some(due) = ue.harq.pending_retx(tti) else {
                return;
            };
            match ue.harq.on_tx(tti, due.process, due.tb, sinr_linear) {
                Ok(r) => (due.process, due.tb, r),
                Err(_) => return,
            }
        } else {
            let Some(process) = ue.harq.free_process(tti) else {
                return;
            };
            if !fill_transport_block(ue, process, now, a.tbs_bytes) {
                ue.counters.empty_grants += 1;
                return;
            }
            self.next_tb_id += 1;
            let tb = TransportBlock {
                id: self.next_tb_id,
                size_bits: a.tbs_bytes * 8,
                mcs: a.mcs,
                n_prb: a.n_prb,
            };
            match ue.harq.on_tx(tti, process, tb, sinr_linear) {
                Ok(r) => {
                    ue.counters.mcs_sum += u64::from(a.mcs);
                    ue.counters.new_tbs += 1;
                    (process, tb, r)
                }
                Err(_) => {
                    ue.harq_pdus[usize::from(process)].clear();
                    return;
                }
            }
        };
        let decoding_sinr_db = match self.cfg.harq_combining {
            HarqCombining::Chase => 10.0 * report.combined_sinr_linear.log10(),
            HarqCombining::None => ue.sinr_db,
        };
        // One uniform per transmission, drawn whatever the BLER (aligned streams).
        let u = ue.rng_bler.next_f64();
        let decoded = match self.cfg.bler.bler(tb.mcs, decoding_sinr_db) {
            Ok(bler) => u >= bler,
            Err(_) => false,
        };
        let p = usize::from(process);
        if let Some(c) = self.capture.as_deref_mut() {
            c.downlink_tb(
                now,
                tti,
                a.ue as usize,
                process,
                report.transmission,
                decoded,
                tb.mcs,
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
            mcs: tb.mcs,
            n_prb: a.n_prb,
            tbs_bits: tb.size_bits,
            transmission: report.transmission,
            decoded,
        };
    }
}

/// Fills the transport block of `tbs_bytes` on `process` with RLC PDUs; false if no PDU fits.
fn fill_transport_block(ue: &mut UeContext, process: u8, now: SimTime, tbs_bytes: u32) -> bool {
    let pdus = &mut ue.harq_pdus[usize::from(process)];
    pdus.clear();
    let mut remaining = tbs_bytes;
    while remaining > 0 {
        let Some(pdu) = ue.tx.pull_pdu(now, remaining) else {
            break;
        };
        remaining = remaining.saturating_sub(pdu.size_bytes());
        pdus.push(pdu);
    }
    !pdus.is_empty()
}
