//! Nodes, links and static shortest-path routes.
//!
//! Every link is full duplex and has two directions, numbered `2·link` (a→b) and `2·link + 1`
//! (b→a). Routes minimise the sum of link metrics (hop count when every metric is 1), computed once
//! by Dijkstra from every node; ties are broken towards the lower direction index so that routes do
//! not depend on hash order or insertion accidents.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::net::Ipv4Addr;

use crate::packet::NodeId;

pub use crate::id::DirId;

impl DirId {
    /// The direction a→b (`reverse` false) or b→a of link `link`: `2·link` or `2·link + 1`.
    #[inline]
    pub const fn of_link(link: usize, reverse: bool) -> DirId {
        DirId::from_index(2 * link + reverse as usize)
    }

    /// The link this direction belongs to: its index in the topology's links.
    #[inline]
    pub const fn link(self) -> usize {
        (self.0 / 2) as usize
    }

    /// The direction runs from the link's end `a` to its end `b`.
    #[inline]
    pub fn is_a_to_b(self) -> bool {
        self.0.is_multiple_of(2)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// Runs applications; forwards nothing it does not own (hosts do not route transit traffic).
    Host,
    /// Forwards packets along the routing table.
    Router,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    pub addr: Ipv4Addr,
}

#[derive(Clone, Debug)]
pub struct LinkEnds {
    pub name: String,
    pub a: NodeId,
    pub b: NodeId,
    pub metric: u32,
}

/// The static graph and its routing tables.
#[derive(Clone, Debug, Default)]
pub struct Topology {
    pub nodes: Vec<Node>,
    pub links: Vec<LinkEnds>,
    /// `next_hop[src][dst]`: the direction to send on from `src` towards `dst`.
    next_hop: Vec<Vec<Option<DirId>>>,
    /// Addresses sorted for lookup by binary search.
    addr_index: Vec<(u32, NodeId)>,
}

impl Topology {
    pub fn new(nodes: Vec<Node>, links: Vec<LinkEnds>) -> Self {
        let mut addr_index: Vec<(u32, NodeId)> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (u32::from(n.addr), NodeId::from_index(i)))
            .collect();
        addr_index.sort_unstable();
        let mut t = Topology {
            nodes,
            links,
            next_hop: Vec::new(),
            addr_index,
        };
        t.next_hop = (0..t.nodes.len())
            .map(|s| t.routes_from(NodeId::from_index(s)))
            .collect();
        t
    }

    /// Node at the sending end of a direction.
    pub fn dir_from(&self, dir: DirId) -> NodeId {
        let l = &self.links[dir.link()];
        if dir.is_a_to_b() {
            l.a
        } else {
            l.b
        }
    }

    /// Node at the receiving end of a direction.
    pub fn dir_to(&self, dir: DirId) -> NodeId {
        let l = &self.links[dir.link()];
        if dir.is_a_to_b() {
            l.b
        } else {
            l.a
        }
    }

    #[inline]
    pub fn next_hop(&self, at: NodeId, dst: NodeId) -> Option<DirId> {
        self.next_hop[at.index()][dst.index()]
    }

    #[inline]
    pub fn node_by_addr(&self, addr: Ipv4Addr) -> Option<NodeId> {
        let key = u32::from(addr);
        self.addr_index
            .binary_search_by_key(&key, |(a, _)| *a)
            .ok()
            .map(|i| self.addr_index[i].1)
    }

    /// Whether `dst` can be reached from `src` (through routers only, as packets are forwarded).
    pub fn reachable(&self, src: NodeId, dst: NodeId) -> bool {
        src == dst || self.next_hop(src, dst).is_some()
    }

    /// Dijkstra from `src`. Only routers forward, so a path may pass through a host only at its
    /// ends. Returns, for each destination, the first direction of a cheapest path.
    fn routes_from(&self, src: NodeId) -> Vec<Option<DirId>> {
        let n = self.nodes.len();
        let mut out_dirs: Vec<Vec<DirId>> = vec![Vec::new(); n];
        for (i, l) in self.links.iter().enumerate() {
            out_dirs[l.a.index()].push(DirId::of_link(i, false));
            out_dirs[l.b.index()].push(DirId::of_link(i, true));
        }
        let mut dist = vec![u64::MAX; n];
        let mut first: Vec<Option<DirId>> = vec![None; n];
        let mut heap = BinaryHeap::new();
        dist[src.index()] = 0;
        heap.push(Reverse((0u64, src, None::<DirId>)));
        let mut done = vec![false; n];
        while let Some(Reverse((d, u, via))) = heap.pop() {
            if done[u.index()] {
                continue;
            }
            done[u.index()] = true;
            first[u.index()] = via;
            // A host other than the source does not forward.
            if u != src && self.nodes[u.index()].kind == NodeKind::Host {
                continue;
            }
            for &dir in &out_dirs[u.index()] {
                let v = self.dir_to(dir);
                let nd = d + self.links[dir.link()].metric as u64;
                let first_dir = via.or(Some(dir));
                // Lower cost wins; equal cost keeps the lower first direction (heap order on
                // (cost, node, dir) makes the first settled candidate the smallest one).
                if nd < dist[v.index()] || (nd == dist[v.index()] && !done[v.index()]) {
                    dist[v.index()] = dist[v.index()].min(nd);
                    heap.push(Reverse((nd, v, first_dir)));
                }
            }
        }
        first[src.index()] = None;
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, kind: NodeKind, last: u8) -> Node {
        Node {
            name: name.into(),
            kind,
            addr: Ipv4Addr::new(10, 0, 0, last),
        }
    }

    fn link(a: NodeId, b: NodeId, metric: u32) -> LinkEnds {
        LinkEnds {
            name: format!("{a}-{b}"),
            a,
            b,
            metric,
        }
    }

    #[test]
    fn chain_routes_both_ways() {
        // server - gw - enb - ue
        let t = Topology::new(
            vec![
                node("server", NodeKind::Host, 1),
                node("gw", NodeKind::Router, 2),
                node("enb", NodeKind::Router, 3),
                node("ue", NodeKind::Host, 4),
            ],
            vec![
                link(NodeId(0), NodeId(1), 1),
                link(NodeId(1), NodeId(2), 1),
                link(NodeId(2), NodeId(3), 1),
            ],
        );
        assert_eq!(t.next_hop(NodeId(0), NodeId(3)), Some(DirId(0)));
        assert_eq!(t.next_hop(NodeId(1), NodeId(3)), Some(DirId(2)));
        assert_eq!(t.next_hop(NodeId(2), NodeId(3)), Some(DirId(4)));
        assert_eq!(t.next_hop(NodeId(3), NodeId(0)), Some(DirId(5)));
        assert_eq!(t.next_hop(NodeId(2), NodeId(0)), Some(DirId(3)));
        assert_eq!(t.node_by_addr(Ipv4Addr::new(10, 0, 0, 4)), Some(NodeId(3)));
        assert_eq!(t.node_by_addr(Ipv4Addr::new(10, 0, 0, 9)), None);
    }

    #[test]
    fn metric_prefers_cheaper_path_and_ties_are_stable() {
        // 0 -> 1 -> 3 (cost 2) vs 0 -> 2 -> 3 (cost 2): the lower first direction wins.
        let nodes = vec![
            node("h0", NodeKind::Host, 1),
            node("r1", NodeKind::Router, 2),
            node("r2", NodeKind::Router, 3),
            node("h3", NodeKind::Host, 4),
        ];
        let t = Topology::new(
            nodes.clone(),
            vec![
                link(NodeId(0), NodeId(1), 1),
                link(NodeId(0), NodeId(2), 1),
                link(NodeId(1), NodeId(3), 1),
                link(NodeId(2), NodeId(3), 1),
            ],
        );
        assert_eq!(t.next_hop(NodeId(0), NodeId(3)), Some(DirId(0)));
        // Make the first path expensive.
        let t = Topology::new(
            nodes,
            vec![
                link(NodeId(0), NodeId(1), 5),
                link(NodeId(0), NodeId(2), 1),
                link(NodeId(1), NodeId(3), 1),
                link(NodeId(2), NodeId(3), 1),
            ],
        );
        assert_eq!(t.next_hop(NodeId(0), NodeId(3)), Some(DirId(2)));
    }

    #[test]
    fn hosts_do_not_forward() {
        // h0 - h1 - h2: h1 is a host, so h0 cannot reach h2.
        let t = Topology::new(
            vec![
                node("h0", NodeKind::Host, 1),
                node("h1", NodeKind::Host, 2),
                node("h2", NodeKind::Host, 3),
            ],
            vec![link(NodeId(0), NodeId(1), 1), link(NodeId(1), NodeId(2), 1)],
        );
        assert!(t.reachable(NodeId(0), NodeId(1)));
        assert!(!t.reachable(NodeId(0), NodeId(2)));
    }
}
