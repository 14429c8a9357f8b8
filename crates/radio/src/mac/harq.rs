//! The downlink HARQ entity of one UE at the eNodeB (TS 36.321 §5.3.2; timing of TS 36.213
//! §7 and §10.1.2 for FDD): N stop-and-wait HARQ processes, each holding one transport block
//! until it is acknowledged or has been sent the maximum number of times.
//!
//! Timing (FDD defaults, all configurable in [`HarqConfig`]):
//! * 8 HARQ processes per UE and serving cell (TS 36.213 §7: "a maximum of 8 downlink HARQ
//!   processes" for FDD);
//! * a transport block sent on process p in TTI t is acknowledged or negatively acknowledged
//!   in TTI t + 4 (PDSCH in subframe n − 4, HARQ-ACK in subframe n: TS 36.213 §10.1.2, §7.3
//!   in Release 8);
//! * process p may carry its retransmission, or a new transport block after an ACK, from TTI
//!   t + 8 on (the 8 ms HARQ round-trip time: 4 ms to the feedback plus eNodeB processing).
//!   DL HARQ is asynchronous (TS 36.321 §5.3.2), so a later retransmission is allowed.
//!
//! The NR downlink ([`HarqTimeline::periodic`]) has up to 16 processes and a timing that
//! depends on the slot: under TDD the HARQ-ACK of slot n goes in the first uplink slot at or
//! after n + K1 (TS 38.213 §9.2.3), so the delays repeat with the slot pattern's period. An
//! entity therefore takes its delays from a [`HarqTimeline`], per TTI (slot) of a period; the
//! LTE FDD timing above is the timeline of period 1.
//!
//! Soft combining is chase combining: every transmission of a transport block is the same
//! coded block, and the receiver's effective SINR after k transmissions is the linear sum of
//! the k SINRs (maximum-ratio combining of identical copies). The entity returns that sum so
//! the caller can evaluate the block-error probability on it.
//!
//! After `max_transmissions` NACKs the transport block is a residual failure, returned to the
//! caller to hand to RLC (its ARQ recovers the data, TS 36.322 §5.2).
//!
//! Sans-IO: the caller passes the TTI to every call, delivers feedback exactly when
//! [`HarqEntity::feedback_due`] lists a process, and decides what to transmit from
//! [`HarqEntity::pending_retx`] and [`HarqEntity::free_process`]. Two forms of each call:
//! * checked ([`HarqEntity::on_tx`], [`HarqEntity::on_feedback`]): a call the state does not
//!   allow returns a [`HarqError`] and leaves the entity unchanged;
//! * by construction, for the per-TTI path of a cell: [`HarqEntity::claim_free_process`] and
//!   [`HarqEntity::claim_retx`] hand out a process that may transmit now, borrowed from the
//!   entity until it does ([`FreeProcess`], [`DueRetx`]), and
//!   [`HarqEntity::apply_feedback_due`] applies exactly the feedback due. What `on_tx` and
//!   `on_feedback` check holds for these by the way they are obtained, so they cannot fail and
//!   the caller has no error to handle.

use super::HarqRetx;
use crate::phy::Mcs;

/// HARQ parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HarqConfig {
    /// HARQ processes per UE, 1..=16. Default 8 (FDD, TS 36.213 §7).
    pub n_processes: u8,
    /// TTIs from a transmission to its ACK/NACK, ≥ 1. Default 4 (TS 36.213 §10.1.2, FDD).
    pub feedback_delay_tti: u64,
    /// HARQ round-trip time, TTIs: earliest reuse of a process after a transmission,
    /// ≥ `feedback_delay_tti`. Default 8.
    pub rtt_tti: u64,
    /// Transmissions of one transport block, first one included, ≥ 1. Default 4 (an eNodeB
    /// setting; 1 disables retransmissions).
    pub max_transmissions: u8,
}

impl Default for HarqConfig {
    fn default() -> Self {
        HarqConfig {
            n_processes: 8,
            feedback_delay_tti: 4,
            rtt_tti: 8,
            max_transmissions: 4,
        }
    }
}

impl HarqConfig {
    /// Checks the ranges documented on each field; the error names the field.
    pub fn validate(&self) -> Result<(), HarqError> {
        let bad = |key, value: u64, expected| {
            Err(HarqError::InvalidConfig {
                key,
                value,
                expected,
            })
        };
        if !(1..=16).contains(&self.n_processes) {
            return bad("n_processes", self.n_processes.into(), "1..=16");
        }
        if self.feedback_delay_tti == 0 {
            return bad("feedback_delay_tti", 0, "at least 1 TTI");
        }
        if self.rtt_tti < self.feedback_delay_tti {
            return bad("rtt_tti", self.rtt_tti, "at least feedback_delay_tti");
        }
        if self.max_transmissions == 0 {
            return bad("max_transmissions", 0, "at least 1");
        }
        Ok(())
    }
}

/// When the feedback of a transmission is due and when its process may transmit again, per
/// TTI (or NR slot) n of a repeating period: a transmission in TTI t is acknowledged in
/// t + `feedback[t mod P]` and its process may carry a retransmission or a new block from
/// t + `reuse[t mod P]` on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HarqTimeline {
    /// (feedback delay, reuse delay) of each TTI of the period, TTIs; 1 ≤ feedback ≤ reuse.
    delays: Vec<(u64, u64)>,
}

impl HarqTimeline {
    /// The same delays in every TTI: `feedback_delay_tti` to the ACK/NACK, `rtt_tti` to the
    /// earliest reuse (LTE FDD: 4 and 8, [`HarqConfig`]).
    pub fn fixed(feedback_delay_tti: u64, rtt_tti: u64) -> Self {
        HarqTimeline {
            delays: vec![(feedback_delay_tti, rtt_tti)],
        }
    }

    /// Delays that repeat with a period of `delays.len()` TTIs, (feedback, reuse) per TTI;
    /// refused unless non-empty with 1 ≤ feedback ≤ reuse in every TTI.
    pub fn periodic(delays: Vec<(u64, u64)>) -> Result<Self, HarqError> {
        let bad = |value, expected| {
            Err(HarqError::InvalidConfig {
                key: "timeline",
                value,
                expected,
            })
        };
        if delays.is_empty() {
            return bad(0, "at least one TTI in the period");
        }
        if let Some(&(f, r)) = delays.iter().find(|&&(f, r)| f == 0 || r < f) {
            return bad(
                if f == 0 { f } else { r },
                "a feedback delay ≥ 1 and a reuse delay ≥ the feedback delay",
            );
        }
        Ok(HarqTimeline { delays })
    }

    /// (feedback delay, reuse delay) of a transmission in TTI `tti`.
    #[inline]
    fn delays(&self, tti: u64) -> (u64, u64) {
        self.delays[(tti % self.delays.len() as u64) as usize]
    }
}

/// The transport block a process holds. The entity never looks inside: `id` is the caller's
/// handle for the MAC PDU (and the RLC PDUs in it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransportBlock {
    /// Opaque identifier chosen by the caller.
    pub id: u64,
    /// Transport block size, bits.
    pub size_bits: u32,
    /// MCS of the first transmission.
    pub mcs: Mcs,
    /// PRBs of the first transmission.
    pub n_prb: u32,
    /// Layers of the first transmission.
    pub layers: super::Layers,
}

/// State of one HARQ process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HarqProcessState {
    /// No transport block (free from its `available` TTI on).
    Idle,
    /// Transmitted; ACK/NACK expected `feedback_delay_tti` after the transmission.
    AwaitingFeedback,
    /// NACKed with transmissions left: waiting for its retransmission.
    PendingRetx,
}

/// What a transmission did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TxReport {
    /// 1 for the first transmission, 2 for the first retransmission, ...
    pub transmission: u8,
    /// Chase-combined SINR after this transmission, linear (sum of the per-transmission SINRs).
    pub combined_sinr_linear: f64,
    /// TTI at which the ACK/NACK of this transmission is due.
    pub feedback_tti: u64,
}

/// What an ACK/NACK did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FeedbackOutcome {
    /// Decoded; the process is free from `rtt_tti` after the last transmission.
    Acked {
        tb: TransportBlock,
        transmissions: u8,
    },
    /// NACK with transmissions left: retransmission possible from `earliest_retx_tti`.
    RetxPending {
        tb: TransportBlock,
        transmissions: u8,
        earliest_retx_tti: u64,
    },
    /// NACK of the last allowed transmission: hand the block to RLC.
    ResidualFailure {
        tb: TransportBlock,
        transmissions: u8,
    },
}

/// A retransmission that may be sent now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetxDue {
    /// HARQ process, 0-based.
    pub process: u8,
    /// The block to send again.
    pub tb: TransportBlock,
    /// Transmissions so far.
    pub transmissions: u8,
}

impl RetxDue {
    /// The scheduler's view of this retransmission (same PRB count and MCS).
    pub fn as_harq_retx(&self) -> HarqRetx {
        HarqRetx {
            n_prb: self.tb.n_prb,
            mcs: self.tb.mcs,
            layers: self.tb.layers,
            process: self.process,
        }
    }
}

/// Counters of one entity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HarqStats {
    /// Transmissions, first ones and retransmissions.
    pub transmissions: u64,
    /// Retransmissions only.
    pub retransmissions: u64,
    /// ACKs received.
    pub acks: u64,
    /// NACKs received (residual failures included).
    pub nacks: u64,
    /// Transport blocks given up after `max_transmissions`.
    pub residual_failures: u64,
}

/// Why a call was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum HarqError {
    #[error("harq.{key}: {value} is invalid; expected {expected}")]
    InvalidConfig {
        key: &'static str,
        value: u64,
        expected: &'static str,
    },
    #[error("HARQ process {process} does not exist; the entity has {n_processes} processes")]
    UnknownProcess { process: u8, n_processes: u8 },
    #[error(
        "HARQ process {process} is busy at TTI {tti} ({state:?}, free from TTI {available_tti})"
    )]
    ProcessBusy {
        process: u8,
        tti: u64,
        state: HarqProcessState,
        available_tti: u64,
    },
    #[error("HARQ process {process} holds transport block {expected}, not {got}")]
    WrongTransportBlock {
        process: u8,
        expected: u64,
        got: u64,
    },
    #[error("HARQ process {process}: retransmission at TTI {tti} is before TTI {earliest}")]
    RetxTooEarly {
        process: u8,
        tti: u64,
        earliest: u64,
    },
    #[error("HARQ process {process} expects no feedback at TTI {tti}")]
    UnexpectedFeedback { process: u8, tti: u64 },
    #[error("HARQ process {process}: feedback at TTI {got}, expected TTI {expected}")]
    FeedbackTiming {
        process: u8,
        expected: u64,
        got: u64,
    },
    #[error("SINR {value} is invalid; expected a finite linear value ≥ 0")]
    InvalidSinr { value: f64 },
}

/// One stop-and-wait process.
#[derive(Clone, Copy, Debug)]
struct HarqProcess {
    state: HarqProcessState,
    tb: Option<TransportBlock>,
    transmissions: u8,
    /// Linear SINR summed over the transmissions of `tb`.
    combined_sinr: f64,
    last_tx_tti: u64,
    /// TTI of the ACK/NACK of the last transmission.
    feedback_tti: u64,
    /// First TTI at which the process may transmit again.
    available_tti: u64,
}

impl HarqProcess {
    const IDLE: HarqProcess = HarqProcess {
        state: HarqProcessState::Idle,
        tb: None,
        transmissions: 0,
        combined_sinr: 0.0,
        last_tx_tti: 0,
        feedback_tti: 0,
        available_tti: 0,
    };
}

/// The HARQ processes of one UE.
#[derive(Clone, Debug)]
pub struct HarqEntity {
    cfg: HarqConfig,
    timeline: HarqTimeline,
    processes: Vec<HarqProcess>,
    stats: HarqStats,
}

impl HarqEntity {
    /// An entity with all processes idle and free from TTI 0, with the fixed delays of `cfg`.
    pub fn new(cfg: HarqConfig) -> Result<Self, HarqError> {
        let timeline = HarqTimeline::fixed(cfg.feedback_delay_tti, cfg.rtt_tti);
        Self::with_timeline(cfg, timeline)
    }

    /// An entity with `cfg`'s processes and maximum transmissions and the delays of
    /// `timeline`, which replace `cfg`'s fixed ones.
    pub fn with_timeline(cfg: HarqConfig, timeline: HarqTimeline) -> Result<Self, HarqError> {
        cfg.validate()?;
        Ok(HarqEntity {
            cfg,
            timeline,
            processes: vec![HarqProcess::IDLE; usize::from(cfg.n_processes)],
            stats: HarqStats::default(),
        })
    }

    pub fn config(&self) -> &HarqConfig {
        &self.cfg
    }

    pub fn stats(&self) -> &HarqStats {
        &self.stats
    }

    /// State of `process`, `None` if it does not exist.
    pub fn state(&self, process: u8) -> Option<HarqProcessState> {
        self.processes.get(usize::from(process)).map(|p| p.state)
    }

    /// Processes holding a transport block (awaiting feedback or a retransmission).
    pub fn in_flight(&self) -> usize {
        self.processes.iter().filter(|p| p.tb.is_some()).count()
    }

    fn process_mut(&mut self, process: u8) -> Result<&mut HarqProcess, HarqError> {
        let n_processes = self.cfg.n_processes;
        self.processes
            .get_mut(usize::from(process))
            .ok_or(HarqError::UnknownProcess {
                process,
                n_processes,
            })
    }

    /// Records the transmission of `tb` on `process` in TTI `tti` with SINR `sinr_linear`.
    /// On an idle process this is a first transmission (allowed from the process's free TTI
    /// on); on a process waiting for a retransmission, `tb` must be the block it holds and
    /// `tti` no earlier than the reuse delay of the timeline after its last transmission.
    pub fn on_tx(
        &mut self,
        tti: u64,
        process: u8,
        tb: TransportBlock,
        sinr_linear: f64,
    ) -> Result<TxReport, HarqError> {
        if !(sinr_linear.is_finite() && sinr_linear >= 0.0) {
            return Err(HarqError::InvalidSinr { value: sinr_linear });
        }
        let p = self.process_mut(process)?;
        let retx = match p.state {
            HarqProcessState::Idle if tti >= p.available_tti => false,
            HarqProcessState::PendingRetx => {
                let held = p.tb.map_or(0, |t| t.id);
                if held != tb.id {
                    return Err(HarqError::WrongTransportBlock {
                        process,
                        expected: held,
                        got: tb.id,
                    });
                }
                let earliest = p.available_tti;
                if tti < earliest {
                    return Err(HarqError::RetxTooEarly {
                        process,
                        tti,
                        earliest,
                    });
                }
                true
            }
            state => {
                return Err(HarqError::ProcessBusy {
                    process,
                    tti,
                    state,
                    available_tti: p.available_tti,
                })
            }
        };
        Ok(self.record_tx(
            tti,
            usize::from(process),
            (!retx).then_some(tb),
            sinr_linear,
        ))
    }

    /// Records a transmission on process `p` in TTI `tti`: the first one of `new_tb`, or, for
    /// `None`, a retransmission of the block the process holds. The caller has checked that
    /// the process may transmit (what `on_tx` checks).
    fn record_tx(
        &mut self,
        tti: u64,
        p: usize,
        new_tb: Option<TransportBlock>,
        sinr_linear: f64,
    ) -> TxReport {
        debug_assert!(
            sinr_linear.is_finite() && sinr_linear >= 0.0,
            "{sinr_linear}"
        );
        let (feedback_delay, rtt) = self.timeline.delays(tti);
        let p = &mut self.processes[p];
        let retx = new_tb.is_none();
        match new_tb {
            None => {
                p.transmissions += 1;
                p.combined_sinr += sinr_linear;
            }
            Some(tb) => {
                p.tb = Some(tb);
                p.transmissions = 1;
                p.combined_sinr = sinr_linear;
            }
        }
        p.state = HarqProcessState::AwaitingFeedback;
        p.last_tx_tti = tti;
        p.feedback_tti = tti.saturating_add(feedback_delay);
        p.available_tti = tti.saturating_add(rtt);
        let report = TxReport {
            transmission: p.transmissions,
            combined_sinr_linear: p.combined_sinr,
            feedback_tti: p.feedback_tti,
        };
        self.stats.transmissions += 1;
        if retx {
            self.stats.retransmissions += 1;
        }
        report
    }

    /// Applies the ACK (`ok`) or NACK received in TTI `tti` for `process`, which must be
    /// exactly the timeline's feedback delay after its last transmission.
    pub fn on_feedback(
        &mut self,
        tti: u64,
        process: u8,
        ok: bool,
    ) -> Result<FeedbackOutcome, HarqError> {
        let p = self.process_mut(process)?;
        let (HarqProcessState::AwaitingFeedback, Some(_)) = (p.state, p.tb) else {
            return Err(HarqError::UnexpectedFeedback { process, tti });
        };
        let expected = p.feedback_tti;
        if tti != expected {
            return Err(HarqError::FeedbackTiming {
                process,
                expected,
                got: tti,
            });
        }
        Ok(self.record_feedback(usize::from(process), ok))
    }

    /// Applies the ACK (`ok`) or NACK of process `p`, which awaits its feedback now (what
    /// `on_feedback` checks).
    fn record_feedback(&mut self, p: usize, ok: bool) -> FeedbackOutcome {
        let max_tx = self.cfg.max_transmissions;
        let p = &mut self.processes[p];
        debug_assert_eq!(p.state, HarqProcessState::AwaitingFeedback);
        let Some(tb) = p.tb else {
            unreachable!("a process awaiting feedback holds a block")
        };
        let transmissions = p.transmissions;
        let outcome = if ok {
            *p = HarqProcess {
                available_tti: p.available_tti,
                ..HarqProcess::IDLE
            };
            FeedbackOutcome::Acked { tb, transmissions }
        } else if transmissions < max_tx {
            p.state = HarqProcessState::PendingRetx;
            FeedbackOutcome::RetxPending {
                tb,
                transmissions,
                earliest_retx_tti: p.available_tti,
            }
        } else {
            *p = HarqProcess {
                available_tti: p.available_tti,
                ..HarqProcess::IDLE
            };
            FeedbackOutcome::ResidualFailure { tb, transmissions }
        };
        match outcome {
            FeedbackOutcome::Acked { .. } => self.stats.acks += 1,
            FeedbackOutcome::RetxPending { .. } => self.stats.nacks += 1,
            FeedbackOutcome::ResidualFailure { .. } => {
                self.stats.nacks += 1;
                self.stats.residual_failures += 1;
            }
        }
        outcome
    }

    /// Applies the feedback due in TTI `tti` of every process [`HarqEntity::feedback_due`]
    /// lists, in process order: an ACK when `decoded(process)`, a NACK otherwise; hands each
    /// outcome to `outcome`. Returns how many processes had feedback due. These are exactly
    /// the processes waiting for feedback at this TTI, so nothing can be refused.
    pub fn apply_feedback_due(
        &mut self,
        tti: u64,
        decoded: impl Fn(u8) -> bool,
        mut outcome: impl FnMut(u8, FeedbackOutcome),
    ) -> usize {
        let mut applied = 0;
        for i in 0..self.processes.len() {
            if self.feedback_is_due(i, tti) {
                let process = i as u8;
                let o = self.record_feedback(i, decoded(process));
                outcome(process, o);
                applied += 1;
            }
        }
        applied
    }

    /// Whether process `i` waits for the feedback of TTI `tti`.
    fn feedback_is_due(&self, i: usize, tti: u64) -> bool {
        let p = &self.processes[i];
        p.state == HarqProcessState::AwaitingFeedback && p.feedback_tti == tti
    }

    /// Processes whose ACK/NACK is due in TTI `tti`, in process order.
    pub fn feedback_due(&self, tti: u64) -> impl Iterator<Item = u8> + '_ {
        (0..self.processes.len())
            .filter(move |&i| self.feedback_is_due(i, tti))
            .map(|i| i as u8)
    }

    /// The retransmission to send in TTI `tti`, if any may be sent: the one waiting longest
    /// (earliest last transmission), ties to the lower process number.
    pub fn pending_retx(&self, tti: u64) -> Option<RetxDue> {
        self.processes
            .iter()
            .enumerate()
            .filter(|(_, p)| p.state == HarqProcessState::PendingRetx && p.available_tti <= tti)
            .min_by_key(|&(i, p)| (p.last_tx_tti, i))
            .and_then(|(i, p)| {
                p.tb.map(|tb| RetxDue {
                    process: i as u8,
                    tb,
                    transmissions: p.transmissions,
                })
            })
    }

    /// A process that may carry a new transport block in TTI `tti` (the lowest-numbered idle
    /// one whose round-trip time has elapsed), if any.
    pub fn free_process(&self, tti: u64) -> Option<u8> {
        self.processes
            .iter()
            .position(|p| p.state == HarqProcessState::Idle && p.available_tti <= tti)
            .map(|i| i as u8)
    }

    /// [`HarqEntity::free_process`], held until it carries a new block in TTI `tti`.
    pub fn claim_free_process(&mut self, tti: u64) -> Option<FreeProcess<'_>> {
        let process = self.free_process(tti)?;
        Some(FreeProcess {
            entity: self,
            tti,
            process,
        })
    }

    /// [`HarqEntity::pending_retx`], held until it is sent in TTI `tti`.
    pub fn claim_retx(&mut self, tti: u64) -> Option<DueRetx<'_>> {
        let due = self.pending_retx(tti)?;
        Some(DueRetx {
            entity: self,
            tti,
            due,
        })
    }

    /// Flushes every soft buffer (MAC reset, TS 36.321 §5.9, e.g. at handover) and returns the
    /// transport blocks that were in flight, in process order, for RLC to recover. Processes
    /// are free at once; the counters are kept.
    pub fn reset(&mut self) -> Vec<TransportBlock> {
        let flushed = self.processes.iter().filter_map(|p| p.tb).collect();
        self.processes.fill(HarqProcess::IDLE);
        flushed
    }
}

/// An idle HARQ process that may carry a new transport block in the TTI it was claimed for
/// ([`HarqEntity::claim_free_process`]). It borrows its entity, so nothing can change the
/// process before [`FreeProcess::transmit`], which therefore cannot fail. Dropping it leaves
/// the process idle.
#[derive(Debug)]
pub struct FreeProcess<'a> {
    entity: &'a mut HarqEntity,
    tti: u64,
    process: u8,
}

impl FreeProcess<'_> {
    /// The process, 0-based.
    pub fn process(&self) -> u8 {
        self.process
    }

    /// Records the first transmission of `tb` on this process at linear SINR `sinr_linear`
    /// (finite and ≥ 0: the caller's to check, here only in debug builds).
    pub fn transmit(self, tb: TransportBlock, sinr_linear: f64) -> TxReport {
        let p = usize::from(self.process);
        self.entity.record_tx(self.tti, p, Some(tb), sinr_linear)
    }
}

/// A HARQ retransmission that may be sent in the TTI it was claimed for
/// ([`HarqEntity::claim_retx`]), borrowing its entity as [`FreeProcess`] does.
#[derive(Debug)]
pub struct DueRetx<'a> {
    entity: &'a mut HarqEntity,
    tti: u64,
    due: RetxDue,
}

impl DueRetx<'_> {
    /// The process and the block it sends again.
    pub fn due(&self) -> RetxDue {
        self.due
    }

    /// Records the retransmission at linear SINR `sinr_linear` (finite and ≥ 0, as for
    /// [`FreeProcess::transmit`]).
    pub fn transmit(self, sinr_linear: f64) -> TxReport {
        let p = usize::from(self.due.process);
        self.entity.record_tx(self.tti, p, None, sinr_linear)
    }
}

#[cfg(test)]
mod tests;
