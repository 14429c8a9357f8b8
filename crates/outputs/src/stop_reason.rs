//! Why a run ended: the summary's `stop_reason`.

use celltcp_engine::StopReason;

/// Why a run ended: the summary's `stop_reason`. The engine's own reasons, and the two of a
/// run its driver ended before its duration (`simulated_time_s` is then where it stopped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunStopReason {
    /// Simulated time reached the end of the run ([`StopReason::Duration`]).
    Duration,
    /// The event budget was spent ([`StopReason::EventBudget`]).
    EventBudget,
    /// No event remained ([`StopReason::Exhausted`]).
    Exhausted,
    /// The model halted the run ([`StopReason::Halted`]: a trace reached its row limit).
    Halted,
    /// The driver (an emulation whose programs are done), a caller's poll or a watch stopped
    /// the run.
    Stopped,
    /// A stop request (Ctrl-C) ended the run.
    Interrupted,
}

impl RunStopReason {
    /// Every reason, in the order of the output labels.
    pub const ALL: [RunStopReason; 6] = [
        RunStopReason::Duration,
        RunStopReason::EventBudget,
        RunStopReason::Exhausted,
        RunStopReason::Halted,
        RunStopReason::Stopped,
        RunStopReason::Interrupted,
    ];

    /// The summary's spelling (the engine's reasons lower-cased, as they always were).
    pub const fn as_str(self) -> &'static str {
        match self {
            RunStopReason::Duration => "duration",
            RunStopReason::EventBudget => "eventbudget",
            RunStopReason::Exhausted => "exhausted",
            RunStopReason::Halted => "halted",
            RunStopReason::Stopped => "stopped",
            RunStopReason::Interrupted => "interrupted",
        }
    }
}

impl From<StopReason> for RunStopReason {
    fn from(reason: StopReason) -> Self {
        match reason {
            StopReason::Duration => RunStopReason::Duration,
            StopReason::EventBudget => RunStopReason::EventBudget,
            StopReason::Exhausted => RunStopReason::Exhausted,
            StopReason::Halted => RunStopReason::Halted,
        }
    }
}
