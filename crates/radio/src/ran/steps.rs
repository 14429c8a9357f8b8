//! The timed steps of the handover procedures: a min-heap keyed by (time, insertion sequence),
//! so that steps due at the same instant run in the order they were scheduled, whatever the
//! heap's internal layout (the deterministic tie-break of discrete-event engines).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use celltcp_engine::SimTime;

/// What happens at a step (TS 36.300 Fig. 10.1.2.1.1-1 numbering in the comments). Each step
/// but the manual decision belongs to one handover of one UE and is ignored if that handover
/// is no longer the UE's current one (it failed or was superseded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// A configured handover: the source decides now, to cell `target`.
    ManualDecision { target: usize },
    /// 2. The A3 report reaches the source.
    MeasurementReport,
    /// 3. The source decides.
    HandoverDecision,
    /// 4. HANDOVER REQUEST reaches the target.
    HandoverRequest,
    /// 5. The target has run admission control.
    AdmissionControl,
    /// HANDOVER PREPARATION FAILURE reaches the source.
    HandoverPreparationFailure,
    /// 6. HANDOVER REQUEST ACKNOWLEDGE reaches the source.
    HandoverRequestAck,
    /// 7. The RRC handover command reaches the UE: it detaches.
    HandoverCommand,
    /// 8. SN STATUS TRANSFER reaches the target.
    SnStatusTransfer,
    /// 9–11. The UE has synchronised, accessed the target and sent the handover confirm.
    HandoverConfirm,
    /// 12. PATH SWITCH REQUEST reaches the MME; `from` is the sending cell.
    PathSwitchRequest { from: usize },
    /// 13–14. MODIFY BEARER REQUEST reaches the S-GW: it switches the downlink path.
    ModifyBearerRequest,
    /// 15. MODIFY BEARER RESPONSE reaches the MME.
    ModifyBearerResponse,
    /// 16. PATH SWITCH REQUEST ACKNOWLEDGE reaches the target.
    PathSwitchRequestAck,
    /// 17. UE CONTEXT RELEASE reaches the source.
    UeContextRelease,
    /// The target stops waiting for the end marker.
    EndMarkerTimeout,
    /// Radio link failure: cell selection and RRC connection re-establishment are over.
    Reestablishment,
    /// DAPS: the EARLY STATUS TRANSFER reaches the target (early data forwarding has begun).
    EarlyStatusTransfer,
    /// DAPS / CHO: HANDOVER SUCCESS reaches the source (the UE accessed the target).
    HandoverSuccess,
    /// DAPS: the RRC reconfiguration releasing the source leg reaches the UE.
    SourceRelease,
    /// EN-DC: the MN switches the UE's downlink leg (`dual_connectivity.rs`).
    DualConnectivitySwitch,
    /// EN-DC: the SN sends the MN a DL DATA DELIVERY STATUS (TS 38.425 §5.4.2.1).
    DualConnectivityStatus,
    /// EN-DC: the oldest DL DATA DELIVERY STATUS on X2-U reaches the MN.
    DualConnectivityStatusArrival,
    /// CHO: a step of candidate `cell`'s preparation (or its cancellation), `token` telling
    /// it from an earlier preparation of the same cell. Runs while the UE is still served by
    /// the source, before its handover exists.
    Conditional {
        cell: usize,
        token: u32,
        stage: super::conditional::ChoStep,
    },
}

/// A step due at `at` for UE index `ue` and handover record `handover` (none for a manual
/// decision, which opens its handover when it runs).
#[derive(Clone, Copy, Debug)]
pub(super) struct Scheduled {
    pub at: SimTime,
    seq: u64,
    pub ue: usize,
    pub handover: Option<u32>,
    pub step: Step,
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scheduled {
    /// Reversed (time, sequence): the earliest step is the greatest, on top of the max-heap.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// The pending steps of every procedure of a network.
#[derive(Debug, Default)]
pub(super) struct StepQueue {
    heap: BinaryHeap<Scheduled>,
    next_seq: u64,
}

impl StepQueue {
    pub fn schedule(&mut self, at: SimTime, ue: usize, handover: Option<u32>, step: Step) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Scheduled {
            at,
            seq,
            ue,
            handover,
            step,
        });
    }

    /// When the earliest step is due.
    pub fn next_at(&self) -> Option<SimTime> {
        self.heap.peek().map(|s| s.at)
    }

    /// The earliest step if it is due at or before `now`.
    pub fn pop_due(&mut self, now: SimTime) -> Option<Scheduled> {
        if self.heap.peek()?.at <= now {
            self.heap.pop()
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_times_run_in_scheduling_order() {
        let mut q = StepQueue::default();
        let t = |ms: u64| SimTime::from_ns(ms * 1_000_000);
        q.schedule(t(5), 2, Some(0), Step::HandoverCommand);
        q.schedule(t(3), 0, Some(0), Step::HandoverRequest);
        q.schedule(t(5), 1, Some(0), Step::PathSwitchRequest { from: 0 });
        q.schedule(t(5), 0, Some(1), Step::SnStatusTransfer);
        assert_eq!(q.next_at(), Some(t(3)));
        assert!(q.pop_due(t(2)).is_none());
        let order: Vec<usize> = std::iter::from_fn(|| q.pop_due(t(10)))
            .map(|s| s.ue)
            .collect();
        assert_eq!(order, vec![0, 2, 1, 0]);
        assert_eq!(q.next_at(), None);
    }
}
