//! When the cell has to run next, kept up to date per UE so that answering costs O(1).
//!
//! The world asks a medium for its next deadline after every call (`Medium::poll_timeout`),
//! that is after every packet the cell receives or delivers. Scanning every UE's RLC timers,
//! uplink queue, HARQ processes and buffers each time made that question O(number of UEs) with
//! a cache miss per UE. Instead the cell records, each time it has changed a UE, that UE's
//! earliest deadline (RLC timer or uplink arrival) and whether it needs a TTI (data to
//! schedule, a HARQ process holding a block, decoded data for its RLC); this table keeps the
//! earliest deadline over all UEs and the number of UEs that need a TTI.
//!
//! Contract: after any change to a UE's bearer, HARQ entity or uplink queue, the cell calls
//! [`WakeTable::set`] for that UE before the world next asks for the deadline. The cell checks
//! the table against a full recomputation in debug builds.

use celltcp_engine::SimTime;

/// What the cell last recorded of one UE.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct UeWake {
    /// Earliest RLC timer or uplink arrival of the UE.
    deadline: Option<SimTime>,
    /// The UE needs the next TTI.
    needs_tti: bool,
}

/// Per-UE deadlines and TTI needs, with their earliest deadline and count of UEs needing a TTI.
#[derive(Clone, Debug, Default)]
pub(crate) struct WakeTable {
    ues: Vec<UeWake>,
    /// Earliest `deadline` over `ues`.
    earliest: Option<SimTime>,
    /// UEs with `needs_tti`.
    needing_tti: usize,
}

impl WakeTable {
    /// A table of `n` UEs with no deadline and no TTI need.
    pub fn new(n: usize) -> Self {
        WakeTable {
            ues: vec![UeWake::default(); n],
            earliest: None,
            needing_tti: 0,
        }
    }

    /// Records UE `i`'s earliest deadline and TTI need. O(1), except when the UE held the
    /// earliest deadline and it moved later or went away: then O(n) over this compact table.
    pub fn set(&mut self, i: usize, deadline: Option<SimTime>, needs_tti: bool) {
        let Some(slot) = self.ues.get_mut(i) else {
            return;
        };
        let old = std::mem::replace(
            slot,
            UeWake {
                deadline,
                needs_tti,
            },
        );
        match (old.needs_tti, needs_tti) {
            (false, true) => self.needing_tti += 1,
            (true, false) => self.needing_tti -= 1,
            _ => {}
        }
        if old.deadline == deadline {
            return;
        }
        match (deadline, self.earliest) {
            (Some(d), Some(e)) if d <= e => self.earliest = Some(d),
            (Some(d), None) => self.earliest = Some(d),
            // Later than the earliest, or none: the earliest changes only if it was this UE's.
            _ if old.deadline.is_some() && old.deadline == self.earliest => {
                self.earliest = self.ues.iter().filter_map(|u| u.deadline).min();
            }
            _ => {}
        }
    }

    /// Earliest deadline over all UEs.
    pub fn earliest_deadline(&self) -> Option<SimTime> {
        self.earliest
    }

    /// Whether some UE needs a TTI.
    pub fn any_needs_tti(&self) -> bool {
        self.needing_tti > 0
    }

    /// Whether UE `i` needs a TTI.
    pub fn needs_tti(&self, i: usize) -> bool {
        self.ues.get(i).is_some_and(|u| u.needs_tti)
    }

    /// Whether UE `i` has a deadline at or before `now`.
    pub fn due(&self, i: usize, now: SimTime) -> bool {
        self.ues
            .get(i)
            .is_some_and(|u| u.deadline.is_some_and(|d| d <= now))
    }

    /// Whether the table holds exactly `expected` (deadline, needs TTI) per UE, with matching
    /// aggregates (the debug check of the cell).
    pub fn matches(&self, expected: impl Iterator<Item = (Option<SimTime>, bool)>) -> bool {
        let mut n = 0;
        for (u, (deadline, needs_tti)) in self.ues.iter().zip(expected) {
            if u.deadline != deadline || u.needs_tti != needs_tti {
                return false;
            }
            n += 1;
        }
        n == self.ues.len()
            && self.earliest == self.ues.iter().filter_map(|u| u.deadline).min()
            && self.needing_tti == self.ues.iter().filter(|u| u.needs_tti).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn t(ms: u64) -> SimTime {
        SimTime::from_ns(ms * 1_000_000)
    }

    #[test]
    fn earliest_moves_later_when_its_ue_is_served() {
        let mut w = WakeTable::new(3);
        assert_eq!(w.earliest_deadline(), None);
        assert!(!w.any_needs_tti());
        w.set(0, Some(t(30)), false);
        w.set(1, Some(t(10)), true);
        w.set(2, Some(t(20)), false);
        assert_eq!(w.earliest_deadline(), Some(t(10)));
        assert!(w.any_needs_tti() && w.needs_tti(1) && !w.needs_tti(0));
        assert!(w.due(1, t(10)) && !w.due(2, t(10)) && !w.due(7, t(99)));
        // UE 1's timer fired and was not restarted: UE 2's is next.
        w.set(1, None, true);
        assert_eq!(w.earliest_deadline(), Some(t(20)));
        w.set(2, Some(t(40)), false);
        assert_eq!(w.earliest_deadline(), Some(t(30)));
        w.set(1, None, false);
        assert!(!w.any_needs_tti());
        w.set(0, None, false);
        w.set(2, None, false);
        assert_eq!(w.earliest_deadline(), None);
        // An index beyond the table is ignored.
        w.set(3, Some(t(1)), true);
        assert_eq!(w.earliest_deadline(), None);
        assert!(!w.any_needs_tti());
    }

    proptest! {
        #[test]
        fn aggregates_equal_a_full_recomputation(
            ops in proptest::collection::vec(
                (0..6usize, proptest::option::of(0..50u64), any::<bool>()),
                0..200,
            )
        ) {
            let mut w = WakeTable::new(6);
            let mut model = [(None, false); 6];
            for (i, d, needs) in ops {
                let d = d.map(t);
                w.set(i, d, needs);
                model[i] = (d, needs);
                prop_assert!(w.matches(model.iter().copied()));
                prop_assert_eq!(w.earliest_deadline(), model.iter().filter_map(|m| m.0).min());
                prop_assert_eq!(w.any_needs_tti(), model.iter().any(|m| m.1));
            }
        }
    }
}
