//! `[[events]]`: changes to links at given times — a delay spike, a rate change, an outage, a
//! handover.
//!
//! These drive the TCP behaviours that matter on radio paths: a delay spike causes a spurious
//! retransmission timeout (what F-RTO and Eifel detect), an outage produces the RFC 6298 backoff
//! sequence, a rate drop makes a standing queue. A link handover stands for the radio hop of an
//! access link handing over, as in the emulator testbed of seed 002 (§2, §4.3): the base
//! station (the link's `a` end) stops serving for the interruption, and either keeps its buffer
//! (buffer transfer, `forward`) or loses it together with what arrives meanwhile (`discard`).

use std::collections::BTreeMap;

use celltcp_engine::SimDuration;
use celltcp_net::handover::HandoverPolicy;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::links::Link;
use super::quantity::{Quantity, Rate, Time};
use super::simulation::Simulation;
use crate::validate::link_ref;
use crate::ScenarioError;

/// Which directions of a link an event changes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EventDirection {
    #[default]
    Both,
    AToB,
    BToA,
}

/// `handover = { interruption, policy }` of an event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkHandoverFile {
    /// How long the selected directions serve nothing (a time, > 0; the interruption ends
    /// before the end of the run).
    pub interruption: Quantity<Time>,
    /// "forward" (default: the buffer is kept) or "discard" (it is lost, and so are arrivals
    /// during the interruption); a link has no X2 or path switch for the other policies.
    #[serde(default)]
    pub policy: HandoverPolicy,
}

/// A validated link handover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkHandover {
    pub interruption: SimDuration,
    /// One of [`HandoverPolicy::LINK`].
    pub policy: HandoverPolicy,
}

/// `[[events]]` as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventFile {
    /// When the change happens (a time, before the end of the run).
    pub at: Quantity<Time>,
    /// The link changed (an existing link).
    pub link: String,
    /// "both" (default), "a_to_b" or "b_to_a".
    #[serde(default)]
    pub direction: EventDirection,
    /// New propagation delay (a time, ≥ 0). Packets already propagating keep theirs; a link
    /// never reorders, so a shorter delay holds packets behind those already in flight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Quantity<Time>>,
    /// New transmission rate (a rate, > 0), from the next packet serialised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Quantity<Rate>>,
    /// true: an outage starts — every packet that finishes serialisation is lost until an event
    /// with `down = false`. Queues keep filling and draining as usual.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub down: Option<bool>,
    /// A handover of the radio hop the link stands for; excludes delay, rate and down.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handover: Option<LinkHandoverFile>,
}

/// A validated link change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkEvent {
    /// Time of the change from the start of the run.
    pub at: SimDuration,
    pub link: String,
    pub direction: EventDirection,
    pub delay: Option<SimDuration>,
    /// Bits per second.
    pub rate_bps: Option<u64>,
    pub down: Option<bool>,
    pub handover: Option<LinkHandover>,
}

/// Validates `events` in the order written (events at the same time apply in that order).
pub(crate) fn convert(
    events: &[EventFile],
    simulation: &Simulation,
    links: &BTreeMap<String, Link>,
) -> Result<Vec<LinkEvent>, ScenarioError> {
    events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let key = format!("events[{i}]");
            link_ref(&format!("{key}.link"), &e.link, links)?;
            if e.at.value >= simulation.duration {
                return Err(ScenarioError::new(
                    format!("{key}.at"),
                    format!("'{}' is not before the end of the run", e.at),
                ));
            }
            if let Some(r) = &e.rate {
                let link = &links[&e.link];
                let traced = match e.direction {
                    EventDirection::Both => {
                        link.a_to_b.trace.is_some() || link.b_to_a.trace.is_some()
                    }
                    EventDirection::AToB => link.a_to_b.trace.is_some(),
                    EventDirection::BToA => link.b_to_a.trace.is_some(),
                };
                if traced {
                    return Err(ScenarioError::new(
                        format!("{key}.rate"),
                        format!(
                            "link '{}' is driven by a trace there; its rate cannot be changed",
                            e.link
                        ),
                    ));
                }
                if r.value == 0 {
                    return Err(ScenarioError::new(
                        format!("{key}.rate"),
                        format!("'{r}' is not a positive rate; use e.g. '5Mbps'"),
                    ));
                }
            }
            if let Some(h) = &e.handover {
                for (k, given) in [
                    ("delay", e.delay.is_some()),
                    ("rate", e.rate.is_some()),
                    ("down", e.down.is_some()),
                ] {
                    if given {
                        return Err(ScenarioError::new(
                            format!("{key}.{k}"),
                            "cannot be combined with handover in one event; write a separate event",
                        ));
                    }
                }
                if !HandoverPolicy::LINK.contains(&h.policy) {
                    let link: Vec<&str> = HandoverPolicy::LINK.iter().map(|p| p.as_str()).collect();
                    return Err(ScenarioError::new(
                        format!("{key}.handover.policy"),
                        format!(
                            "'{}' is not a link handover's policy (a link has no X2 or path \
                             switch); expected one of: {}",
                            h.policy,
                            link.join(", ")
                        ),
                    ));
                }
                if h.interruption.value == SimDuration::ZERO {
                    return Err(ScenarioError::new(
                        format!("{key}.handover.interruption"),
                        format!("'{}' must be > 0", h.interruption),
                    ));
                }
                if e.at.value + h.interruption.value > simulation.duration {
                    return Err(ScenarioError::new(
                        format!("{key}.handover.interruption"),
                        format!(
                            "'{}' from '{}' ends after the end of the run",
                            h.interruption, e.at
                        ),
                    ));
                }
            } else if e.delay.is_none() && e.rate.is_none() && e.down.is_none() {
                return Err(ScenarioError::new(
                    key,
                    "changes nothing; give at least one of delay, rate, down, handover",
                ));
            }
            Ok(LinkEvent {
                at: e.at.value,
                link: e.link.clone(),
                direction: e.direction,
                delay: e.delay.as_ref().map(|d| d.value),
                rate_bps: e.rate.as_ref().map(|r| r.value),
                down: e.down,
                handover: e.handover.as_ref().map(|h| LinkHandover {
                    interruption: h.interruption.value,
                    policy: h.policy,
                }),
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .and_then(|events| check_handover_overlap(&events).map(|()| events))
}

/// Two handovers of one link may not overlap: the end of the first would release the hold of
/// the second.
fn check_handover_overlap(events: &[LinkEvent]) -> Result<(), ScenarioError> {
    for (i, e) in events.iter().enumerate() {
        let Some(h) = e.handover else { continue };
        for (j, other) in events.iter().enumerate().skip(i + 1) {
            let Some(o) = other.handover else { continue };
            let overlap = other.at < e.at + h.interruption && e.at < other.at + o.interruption;
            if other.link == e.link && overlap {
                return Err(ScenarioError::new(
                    format!("events[{j}].handover"),
                    format!("overlaps the handover of events[{i}] on link '{}'; handovers of a link follow one another", e.link),
                ));
            }
        }
    }
    Ok(())
}
