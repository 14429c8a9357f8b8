//! `[[events]]` onto the world's scheduled link changes, including link handovers.
//!
//! A link handover (seed 002 §2: the emulator's radio hop; the link's `a` end is the base
//! station) becomes two changes of each selected direction: at `at` the direction is held
//! (its transmitter takes nothing from the queue; arrivals queue as usual, so with buffer
//! transfer the queue overruns at its limit), at `at + interruption` it is released. With the
//! `discard` policy the a→b direction (the base station's downlink buffer) is also flushed at
//! `at` and refuses every arrival during the interruption: without buffer transfer what was
//! buffered, and what arrives meanwhile, is lost.

use celltcp_engine::SimTime;
use celltcp_net::handover::HandoverPolicy;
use celltcp_net::packet::NodeId;
use celltcp_net::topology::DirId;
use celltcp_net::world::{LinkChange, WorldBuilder};
use celltcp_outputs::handovers::LinkHandover;

use crate::config::events::EventDirection;
use crate::Scenario;

/// Schedules every event's link changes; returns the link handovers (the link's `a` end the
/// base station, its `b` end the terminal) in time order, to report after the run.
pub(super) fn schedule(
    b: &mut WorldBuilder,
    scenario: &Scenario,
    link_index: impl Fn(&str) -> u32,
    node: impl Fn(&str) -> NodeId,
) -> Vec<LinkHandover> {
    let mut plans = Vec::new();
    for e in &scenario.events {
        let link = link_index(&e.link);
        let dirs: &[u32] = match e.direction {
            EventDirection::Both => &[0, 1],
            EventDirection::AToB => &[0],
            EventDirection::BToA => &[1],
        };
        let at = SimTime::ZERO + e.at;
        let Some(h) = e.handover else {
            let change = LinkChange {
                delay: e.delay,
                rate_bps: e.rate_bps,
                down: e.down,
                ..LinkChange::default()
            };
            for d in dirs {
                b.link_change(at, DirId(2 * link + d), change);
            }
            continue;
        };
        let end = at + h.interruption;
        for &d in dirs {
            // Direction 0 is a→b, the base station's downlink buffer.
            let discard = h.policy == HandoverPolicy::Discard && d == 0;
            let start = LinkChange {
                hold: Some(true),
                flush: discard,
                refuse: discard.then_some(true),
                ..LinkChange::default()
            };
            let stop = LinkChange {
                hold: Some(false),
                refuse: discard.then_some(false),
                ..LinkChange::default()
            };
            b.link_change(at, DirId(2 * link + d), start);
            b.link_change(end, DirId(2 * link + d), stop);
        }
        let l = &scenario.links[&e.link];
        plans.push(LinkHandover {
            at,
            end,
            base_station: node(&l.a),
            ue: node(&l.b),
            policy: h.policy,
        });
    }
    plans
}
