//! The run summary (`summary.json`) of a scenario's run: the figures of the world
//! ([`celltcp_outputs::summary`]) with what only the scenario knows — the scenario as run,
//! which media are its dedicated channels, its middleboxes.

pub use celltcp_outputs::summary::*;

use celltcp_engine::RunOutcome;
use celltcp_net::world::World;
use celltcp_outputs::handovers::HandoverOutputs;

use crate::assemble::{dch, middleboxes};
use crate::Scenario;

/// The summary of a run of `scenario` with master seed `seed` and replication `run`;
/// `handovers` (when a handover could happen) adds the `handovers` section.
pub(crate) fn for_run(
    scenario: &Scenario,
    (seed, run): (u64, u64),
    outcome: &RunOutcome,
    world: &World,
    flows: &[FlowInfo],
    handovers: Option<&HandoverOutputs>,
) -> Summary {
    let end = outcome.end_time;
    make(
        world,
        SummaryInputs {
            seed,
            run,
            outcome,
            flows,
            scenario: scenario.echo(),
            dch: &|w, m| dch::is_dch(scenario, w, m).then(|| dch::summary(m, end)),
            middleboxes: middleboxes::summary(scenario, world, end),
            handovers,
        },
    )
}
