//! Per-handover TCP analytics: how each TCP flow of a UE fared across each of its handovers.
//!
//! [`analyse`] joins the media's [`HandoverRecord`](celltcp_net::handover::HandoverRecord)s with
//! the flows' trace rows ([`VarColumns`](celltcp_net::trace::VarColumns)) and returns one
//! [`HandoverOutcome`] per (handover, TCP flow with the UE at either end), ordered by handover
//! id, then flow id. [`HandoverColumns`] is the same table column by column.
//!
//! # Inputs
//!
//! The eleven trace variables of [`REQUIRED_TRACE_VARS`] are read for each flow: `RetxRto` and
//! `RetxFast` (one row per RTO or fast retransmission), `CcState` (0 slow start, 1 congestion
//! avoidance, 2 fast recovery, 3 RTO recovery), `SpuriousUndo` (F-RTO/Eifel undid a
//! reduction), `RttSample` and `Srtt` (seconds), `Delivered` (cumulative bytes delivered in
//! order at the receiver, recorded by the receiving agent under the same flow id), `SeqSent`
//! (relative sequence number of the first byte of each new segment the sender sends) and
//! `AckReceived` (relative cumulative ACK number the sender receives), and `Dropped` with
//! `DropSite` (the world's record of each drop of the flow: cause and node). `D(t)` below is
//! `Delivered` read as a step function: the last value at or before `t`, 0 before the first
//! row. Rows of `RttSample`, `Srtt`, `Delivered`, `SeqSent` and `AckReceived` whose value is
//! not finite are ignored. A run without `SeqSent` rows for a flow gets the window of the
//! procedure alone (see **window**).
//!
//! # Definitions
//!
//! All output times are seconds since the start of the run; a field is `None` where it is
//! undefined. Intervals include both ends.
//!
//! - **start** — the handover command, when the user-plane interruption starts (the decision
//!   when there was no command: preparation failed; the execution of a conditional handover,
//!   whose command is the conditional reconfiguration), or the path switch when it came first: a
//!   predicted handover moves the downlink to the target ~130 ms before the command, and what
//!   that does to the flow is the handover's. Every time the window reports, the first RTO
//!   among them, is at or after start. `attach`, `path_switch` and `completion`
//!   are copied as recorded (`None` if not reached), and so is the `interruption` (command to
//!   attach).
//! - **rtt_before** — the flow's last `Srtt` at or before start (`None` without a sample).
//! - **procedure end** — the completion, else the attach, else the end of the run.
//! - **H** — the largest `SeqSent` value recorded at or before the procedure end (in the
//!   connection of the last such row, see *Several connections* below): the first byte of the
//!   last new segment sent before the procedure ended. Undefined without such a row. Sequence numbers are compared as recorded, with no wrap handling: the `tcp` crate
//!   records 64-bit offsets from the initial sequence number (exact in an `f64` up to 2^53
//!   bytes), so this holds for any connection; a recorder writing 32-bit wire numbers would
//!   limit it to 4 GiB per connection.
//! - **episode_end** — the first time at or after start by which the sender's cumulative ACK
//!   (`AckReceived`) exceeds H, i.e. every byte sent before the procedure ended has been
//!   acknowledged and the loss episode the handover started is over (start itself when that
//!   was already so at start: an idle sender has no episode). `None` when H is undefined or
//!   the ACK never passes H before the end of the run.
//!   *Several connections*: an application may open several connections under one flow (FTP,
//!   one per file), and relative sequence numbers restart with each. A `SeqSent` value below
//!   the previous row's starts a new connection. H and the ACKs are taken from the connection
//!   of the last `SeqSent` row at or before the procedure end only: its `SeqSent` rows and the
//!   `AckReceived` rows from its first `SeqSent` row until the next connection's first one.
//!   When a next connection starts sending before the ACK passes H (the connection was given
//!   up), the episode is taken as over at that first segment, and episode_end is `None`. A
//!   new connection whose first segment does not start below the previous connection's last
//!   segment is not told apart (only possible when that connection sent a single segment).
//! - **window** — `[start, end_w]` with `end_w` = max(procedure end + `k_rtt` × rtt_before,
//!   episode_end), clipped to the end of the run (rtt_before taken as 0 if unknown). The
//!   `k_rtt` RTTs past the end of the procedure catch a retransmission timer armed during the
//!   interruption that fires just after it. The episode extends the window until the data
//!   in flight when the procedure ended is acknowledged: when several segments of a window
//!   were lost or delayed, Reno repairs the first by fast retransmit and, without SACK,
//!   learns of the next hole only one partial ACK per RTT (RFC 6582 §3.2) or by a timeout
//!   (RFC 6298 §5) that can fire long after the procedure (000 §IV). The end of the episode
//!   by a replaced connection counts like episode_end; H defined but never acknowledged
//!   extends the window to the end of the run; H undefined leaves the procedure window
//!   alone (extending it to the end of the run would attribute every later timeout of the
//!   flow to the handover).
//!
//!   Every field below that looks at "the window" (outcome, counts, spurious_rto, rtt_peak,
//!   the ramp's reference timeout) uses this `end_w`, reported as `window_end_s`;
//!   episode_end is reported as `episode_end_s`.
//! - **lost_from** — the earlier of start and the decision, where the drop counts and the
//!   spurious rule start.
//! - **outcome** — `timeout` if an RTO retransmission falls in `[start, end_w]`; else `halving` if
//!   a fast retransmission falls in it or the controller enters fast recovery (a `CcState` row
//!   of 2 whose previous row was not 2) in it; else `none`. A timeout's loss recovery that was
//!   already under way just before start (the last `CcState` row before it is 3) is not the
//!   handover's: its RTO retransmissions are skipped up to the first `CcState` row in the window
//!   that leaves state 3 (the whole window when none does). A trace without `CcState` rows
//!   (the emulator's) skips nothing. These are the three classes of 000
//!   §VI-B (Fig. 8: slow start after a timeout, window halving, nothing). `rto_retransmissions` and
//!   `fast_retransmissions` count the retransmission rows in the window.
//! - **spurious_rto** — the outcome is `timeout` and either a `SpuriousUndo` row falls in the
//!   window (the sender itself found the timeout spurious) or nothing of the flow was lost: the
//!   handover dropped none of its packets (`dropped == 0` in the record) and the network dropped
//!   none from lost_from to the first RTO (no `Dropped` row, which the world records for every
//!   drop of a traced flow: router queues, AQM, link losses). An RTO when
//!   nothing was lost means the data was delayed, not lost: the spurious timeout of 000 §IV,
//!   caused by the RTT growth of forwarding. A flow the record does not list counts as having
//!   lost none at the handover.
//! - **rtt_peak** — the largest `RttSample` in the window.
//! - **goodput_before** — `(D(start) − D(start − 1 s)) / 1 s` in bits per second; when start
//!   is under 1 s, `D(start) / start`; `None` when start is 0.
//! - **recovery** — with `w = max(rtt_before, 10 ms)` and the windowed goodput
//!   `g(t) = (D(t) − D(t − w)) / w` (`D` is 0 before time 0), let `t*` be the first time on
//!   the grid `t0 + j·w/4` (`t0` = attach, or start without an attach) such that
//!   `g ≥ recovery_fraction × goodput_before` at every grid point of `[t*, t* + hold]`, with
//!   `hold = max(2w, 100 ms)`. The hold rejects the instant jump of `D` when a retransmission
//!   fills a hole and the receiver releases its out-of-order queue at once. **recovered_at** =
//!   max(`t* − w`, `t0`): the start of that first averaging window, not its end, because the
//!   average over `(t − w, t]` reports a rate reached inside the window only at its end, `w`
//!   later (the ramp's lag that docs/seed-002.md measured); never before `t0`, where the scan
//!   starts. `recovery_time` = recovered_at − start.
//!   `ramp_time` = recovered_at − the ramp's start: with `rto` the first RTO retransmission
//!   in the window at or before recovered_at, the first `Delivered` row strictly after `rto`
//!   when it is at or before recovered_at (the retransmission, or whatever fills the hole,
//!   reached the receiver in order), else `rto` itself (the first window starts before that
//!   arrival, which the grid step allows); without such an `rto` the attach, else start.
//!   That is the quantity the recovery-time model of 002 §4.3 predicts, slow start and
//!   congestion avoidance from the loss window, which leaves out the interruption, the
//!   timeout wait and the trip of the retransmission to the receiver (an RTO after
//!   recovered_at did not start the ramp, so it is not the reference). All three are `None`
//!   if the flow never recovers with `t* + hold` at or before the end of the run, or when
//!   goodput_before is `None` or 0.
//! - **delivered_bytes** — `D(attach + rtt_before) − D(command)`: the data delivered from the
//!   handover command until one RTT after the UE attaches (000 Fig. 12, §V: "from the
//!   handover command"); from start when there is no command; `None` without an attach. A
//!   predicted path switch before the command does not move its beginning.
//! - **forwarded**, **duplicated**, **reordered** — the flow's packet counts in the record, 0
//!   when the record does not list the flow.
//! - **drops** — every packet of the flow lost during the handover, by place and by cause
//!   ([`HandoverDrops`]); **dropped** is their total. The procedure's own losses (cause
//!   `handover`) come from the record: `dropped_at_target` of them at the target, the rest at
//!   the source. Every other `Dropped` row of the flow in `[lost_from, end_w]` is placed by the
//!   `DropSite` row recorded with it: the source eNB's node → `source_egress` (its X2-U
//!   forwarding buffer, its egress queues and links), −1 → `radio` (inside a cell), any other
//!   node → `transport` (a trace without sites places every such drop there). Rows of cause
//!   `handover` are skipped (the record has them). Two handovers whose windows overlap both
//!   count a drop in the overlap.
//!
//! # Cost
//!
//! The trace is read once to split the rows of the flows of interest by flow and variable,
//! then each flow's `SeqSent` and `AckReceived` rows are walked once to mark where its
//! connections start and the highest ACK of the connection so far; every window query after
//! that, the episode end included, is a binary search. The recovery scan walks forward from the
//! attach and stops at the recovery, jumping over stretches where the goodput cannot rise, so
//! it costs the flow's `Delivered` rows and grid points up to the recovery (up to the end of
//! the run for a flow that never recovers), never a pass over the whole trace.
//!
//! # References
//!
//! - 000: D. Pacifico et al., "Improving TCP Performance During the Intra LTE Handover", IEEE
//!   GLOBECOM 2009 — §IV the timeout and halving cases, §VI-B Fig. 8 their frequencies,
//!   Fig. 12 the data delivered across the handover.
//! - 002: 3GPP RAN contribution on TCP's tolerance to data loss at handover (answer to LS
//!   S1-060371/RP-060208) — §2 and §4.3 the recovery time after a handover without buffer
//!   transfer.

mod columns;
mod config;
mod episode;
mod handover;
mod index;
mod recovery;

#[cfg(test)]
mod tests;

use celltcp_net::trace::TraceVar;

pub use columns::HandoverColumns;
pub use config::{AnalyticsConfig, AnalyticsError};
pub use handover::{analyse, outcome_counts, HandoverDrops, HandoverOutcome, TcpOutcome};

/// The trace variables [`analyse`] reads: the scenario must record them for every TCP flow of a
/// terminal that can hand over, whatever the user's trace selection.
pub const REQUIRED_TRACE_VARS: [TraceVar; 11] = [
    TraceVar::RetxRto,
    TraceVar::RetxFast,
    TraceVar::CcState,
    TraceVar::SpuriousUndo,
    TraceVar::RttSample,
    TraceVar::Srtt,
    TraceVar::Delivered,
    TraceVar::SeqSent,
    TraceVar::AckReceived,
    TraceVar::Dropped,
    TraceVar::DropSite,
];
