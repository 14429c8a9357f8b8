//! Checks shared by the sections: names, references between sections, ranges, reachability.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::config::links::Link;
use crate::config::nodes::{Node, NodeKind};
use crate::config::quantity::{Quantity, Time};
use crate::error::join_key;
use crate::ScenarioError;

/// Node, link and flow names are `[A-Za-z0-9_-]+`: they appear in file names and columns.
pub(crate) fn check_name(section: &str, name: &str) -> Result<(), ScenarioError> {
    let valid = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if valid {
        Ok(())
    } else {
        Err(ScenarioError::new(
            join_key(section, name),
            format!("'{name}' is not a valid name; use letters, digits, '_' and '-'"),
        ))
    }
}

fn reference<V>(
    key: &str,
    what: &str,
    name: &str,
    map: &BTreeMap<String, V>,
) -> Result<(), ScenarioError> {
    if map.contains_key(name) {
        return Ok(());
    }
    let known = if map.is_empty() {
        format!("no {what}s are defined")
    } else {
        format!(
            "{what}s: {}",
            map.keys()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    Err(ScenarioError::new(
        key,
        format!("{what} '{name}' does not exist ({known})"),
    ))
}

/// `name` must be a node: "node 'enb2' does not exist (nodes: enb, gw, server, ue)".
pub(crate) fn node_ref<V>(
    key: &str,
    name: &str,
    nodes: &BTreeMap<String, V>,
) -> Result<(), ScenarioError> {
    reference(key, "node", name, nodes)
}

/// `name` must be a link.
pub(crate) fn link_ref<V>(
    key: &str,
    name: &str,
    links: &BTreeMap<String, V>,
) -> Result<(), ScenarioError> {
    reference(key, "link", name, links)
}

/// `name` must be a flow.
pub(crate) fn flow_ref<V>(
    key: &str,
    name: &str,
    flows: &BTreeMap<String, V>,
) -> Result<(), ScenarioError> {
    reference(key, "flow", name, flows)
}

/// A time that must be > 0.
pub(crate) fn positive_time(key: &str, t: &Quantity<Time>) -> Result<(), ScenarioError> {
    if t.value.as_ns() == 0 {
        return Err(ScenarioError::new(key, format!("'{t}' must be > 0")));
    }
    Ok(())
}

/// A probability: a number in [0, 1] (NaN is rejected).
pub(crate) fn unit_interval(key: &str, p: f64) -> Result<(), ScenarioError> {
    if (0.0..=1.0).contains(&p) {
        Ok(())
    } else {
        Err(ScenarioError::new(
            key,
            format!("{p} is not a probability; expected a number in [0, 1]"),
        ))
    }
}

/// True when `dst` can be reached from `src` over the links and the cells' radio edges
/// (breadth-first search; edges are full duplex). Only routers forward, as in the network's
/// routing: a path may pass through a host only at its ends.
pub(crate) fn connected(
    links: &BTreeMap<String, Link>,
    radio_edges: &[(String, String)],
    nodes: &BTreeMap<String, Node>,
    src: &str,
    dst: &str,
) -> bool {
    let mut adjacent: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let edges = links.values().map(|l| (l.a.as_str(), l.b.as_str()));
    for (a, b) in edges.chain(radio_edges.iter().map(|(a, b)| (a.as_str(), b.as_str()))) {
        adjacent.entry(a).or_default().push(b);
        adjacent.entry(b).or_default().push(a);
    }
    let forwards = |n: &str| n == src || nodes.get(n).is_some_and(|n| n.kind == NodeKind::Router);
    let mut seen = BTreeSet::from([src]);
    let mut queue = VecDeque::from([src]);
    while let Some(node) = queue.pop_front() {
        if node == dst {
            return true;
        }
        if !forwards(node) {
            continue;
        }
        for &next in adjacent.get(node).into_iter().flatten() {
            if seen.insert(next) {
                queue.push_back(next);
            }
        }
    }
    false
}
