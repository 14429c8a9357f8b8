//! The end of the loss episode a handover starts: the time by which the sender has
//! cumulatively acknowledged every byte it sent before the procedure ended.
//!
//! A handover that loses or delays several segments of a window can make the sender time out
//! long after the procedure is over: Reno repairs the first hole by fast retransmit
//! (RFC 5681 §3.2), then waits for the retransmission timer (RFC 6298 §5) for the next one,
//! because without SACK one partial ACK reveals one hole per RTT (RFC 6582 §3.2). The episode
//! is over once the cumulative ACK passes the data that was in flight when the procedure ended;
//! a timeout before that belongs to the handover, one after it does not.
//!
//! Both inputs are relative sequence numbers as the `tcp` crate records them: `SeqSent` the
//! first sequence number of each new segment (retransmissions are not `SeqSent` rows), and
//! `AckReceived` the cumulative ACK number. They are compared as recorded, with no wrap
//! handling. The `tcp` crate writes 64-bit offsets from the initial sequence number, exact in
//! an `f64` up to 2^53 bytes, so no wrap occurs; a recorder that wrote the 32-bit wire numbers
//! instead would limit this analysis to the first 4 GiB of each connection.
//!
//! An application may open several connections under one flow id (the FTP model opens one per
//! file) and the relative numbers restart at each. A new connection is recognised by a
//! `SeqSent` value below the previous row's; its rows, and the `AckReceived` rows from its first
//! `SeqSent` row on, are kept apart from the earlier connection's.

use std::ops::Range;

use super::index::VarSeries;

/// How the loss episode that a handover started ended, for one flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EpisodeEnd {
    /// No segment was sent at or before the end of the procedure: `H` is undefined.
    Undefined,
    /// The connection's cumulative ACK passed `H` at this time, ns (the handover start at the
    /// earliest, when it had passed before).
    Acknowledged(u64),
    /// Before its ACK passed `H`, the connection was replaced by a new one of the same flow,
    /// whose first segment went out at this time, ns.
    Replaced(u64),
    /// `H` was still unacknowledged at the end of the run.
    Open,
}

/// The sender's progress on one flow: the new segments it sent and the ACKs it received, split
/// into the flow's successive connections.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SendProgress {
    /// `SeqSent` rows: first relative sequence number of each new segment, bytes.
    pub seq_sent: VarSeries,
    /// `AckReceived` rows: relative cumulative ACK number, bytes.
    pub ack_received: VarSeries,
    /// Index in `seq_sent` of the first row of every connection after the first: the rows
    /// whose value is below the previous row's. Ascending.
    connection_starts: Vec<usize>,
    /// For each `ack_received` row, the highest ACK number of its connection up to and
    /// including that row, bytes. Non-decreasing within a connection, whatever the order of
    /// the raw values, so the first row above a level is found by binary search.
    ack_high: Vec<f64>,
}

impl SendProgress {
    /// No rows at all.
    pub const EMPTY: SendProgress = SendProgress {
        seq_sent: VarSeries::EMPTY,
        ack_received: VarSeries::EMPTY,
        connection_starts: Vec::new(),
        ack_high: Vec::new(),
    };

    /// The progress of these rows, both sorted by time, indexed. (The trace index fills the
    /// series in place and calls [`SendProgress::index_connections`] instead.)
    #[cfg(test)]
    pub fn new(seq_sent: VarSeries, ack_received: VarSeries) -> SendProgress {
        let mut p = SendProgress {
            seq_sent,
            ack_received,
            connection_starts: Vec::new(),
            ack_high: Vec::new(),
        };
        p.index_connections();
        p
    }

    /// Splits the rows into connections and computes the per-connection highest ACK. Call once,
    /// after both series are sorted by time; costs one pass over each.
    pub fn index_connections(&mut self) {
        let seq = &self.seq_sent.value;
        self.connection_starts = (1..seq.len()).filter(|&i| seq[i] < seq[i - 1]).collect();

        // An ACK row belongs to the connection whose first segment is the latest one at or
        // before it (rows before the first segment, such as the handshake's, to none); the
        // highest ACK restarts with each connection.
        let starts_ns: Vec<u64> = self
            .seq_sent
            .time_ns
            .first()
            .into_iter()
            .chain(
                self.connection_starts
                    .iter()
                    .map(|&i| &self.seq_sent.time_ns[i]),
            )
            .copied()
            .collect();
        let mut next = 0;
        let mut high = f64::NEG_INFINITY;
        self.ack_high = self
            .ack_received
            .time_ns
            .iter()
            .zip(&self.ack_received.value)
            .map(|(&t, &ack)| {
                while next < starts_ns.len() && starts_ns[next] <= t {
                    high = f64::NEG_INFINITY;
                    next += 1;
                }
                high = high.max(ack);
                high
            })
            .collect();
    }

    /// Rows of `seq_sent` of the connection holding row `row`.
    fn connection_of(&self, row: usize) -> Range<usize> {
        let c = self.connection_starts.partition_point(|&s| s <= row);
        let first = c.checked_sub(1).map_or(0, |k| self.connection_starts[k]);
        let end = self
            .connection_starts
            .get(c)
            .copied()
            .unwrap_or(self.seq_sent.time_ns.len());
        first..end
    }

    /// The end of the episode of a handover that started at `start_ns` and whose procedure
    /// ended at `procedure_end_ns`, observed up to `run_end_ns` (all ns).
    ///
    /// `H` is the largest `SeqSent` value at or before the procedure end within the connection
    /// of the last such row (the values of one connection never decrease, so it is that last
    /// row's). The episode ends at the first time at or after the start by which the
    /// connection's cumulative ACK exceeds `H`: every byte sent before the procedure ended is
    /// acknowledged. ACK rows of the connection before the start count too, so that a sender
    /// that had everything acknowledged when the handover started (idle, or between files)
    /// ends its episode at the start.
    ///
    /// Cost: two binary searches.
    pub fn episode_end(&self, start_ns: u64, procedure_end_ns: u64, run_end_ns: u64) -> EpisodeEnd {
        let Some(last) = self.seq_sent.upper_bound(procedure_end_ns).checked_sub(1) else {
            return EpisodeEnd::Undefined;
        };
        let h = self.seq_sent.value[last];
        let conn = self.connection_of(last);
        let first_ns = self.seq_sent.time_ns[conn.start];
        // The next connection's first segment, if any: it comes after the procedure end, since
        // `last` is the last row at or before it.
        let next_ns = self.seq_sent.time_ns.get(conn.end).copied();
        let to_ns = match next_ns {
            Some(n) => n.saturating_sub(1).min(run_end_ns),
            None => run_end_ns,
        };
        let rows = if first_ns <= to_ns {
            self.ack_received.range(first_ns, to_ns)
        } else {
            0..0
        };
        let above = rows.start + self.ack_high[rows.clone()].partition_point(|&a| a <= h);
        if above < rows.end {
            return EpisodeEnd::Acknowledged(self.ack_received.time_ns[above].max(start_ns));
        }
        match next_ns {
            Some(n) if n <= run_end_ns => EpisodeEnd::Replaced(n),
            _ => EpisodeEnd::Open,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(seq: &[(u64, f64)], ack: &[(u64, f64)]) -> SendProgress {
        let series = |rows: &[(u64, f64)]| VarSeries {
            time_ns: rows.iter().map(|r| r.0).collect(),
            value: rows.iter().map(|r| r.1).collect(),
        };
        SendProgress::new(series(seq), series(ack))
    }

    #[test]
    fn connections_split_where_the_sequence_restarts() {
        // Connection 1 from 10, connection 2 from 40 (value back to 1), 3 from 70.
        let p = progress(
            &[
                (10, 1.0),
                (20, 1001.0),
                (30, 1001.0),
                (40, 1.0),
                (50, 2001.0),
                (70, 1.0),
            ],
            &[
                (5, 1.0),
                (25, 2001.0),
                (35, 1001.0),
                (40, 1.0),
                (60, 1001.0),
                (80, 501.0),
            ],
        );
        assert_eq!(p.connection_starts, vec![3, 5]);
        // The out-of-order 1001 at 35 does not lower the high of connection 1; the ACK at 40
        // is connection 2's first.
        assert_eq!(p.ack_high, vec![1.0, 2001.0, 2001.0, 1.0, 1001.0, 501.0]);
        assert_eq!(p.connection_of(0), 0..3);
        assert_eq!(p.connection_of(2), 0..3);
        assert_eq!(p.connection_of(3), 3..5);
        assert_eq!(p.connection_of(5), 5..6);
    }

    #[test]
    fn episode_ends_when_the_ack_exceeds_h() {
        // H = 3001 (sent at 30); ACK 3001 at 60 is not enough, 4001 at 70 is.
        let p = progress(
            &[(10, 1.0), (20, 1001.0), (30, 3001.0), (90, 4001.0)],
            &[(50, 1001.0), (60, 3001.0), (70, 4001.0)],
        );
        assert_eq!(p.episode_end(25, 40, 1_000), EpisodeEnd::Acknowledged(70));
        // Procedure end at 25: H = 1001, passed at 60.
        assert_eq!(p.episode_end(25, 25, 1_000), EpisodeEnd::Acknowledged(60));
        // Already passed before the start: the episode ends at the start.
        assert_eq!(p.episode_end(75, 80, 1_000), EpisodeEnd::Acknowledged(75));
        // Nothing sent at or before the procedure end.
        assert_eq!(p.episode_end(0, 5, 1_000), EpisodeEnd::Undefined);
        // The run ends before the ACK that passes H.
        assert_eq!(p.episode_end(25, 40, 69), EpisodeEnd::Open);
        // H = 4001 (procedure ending at 90) is never acknowledged.
        assert_eq!(p.episode_end(80, 90, 1_000), EpisodeEnd::Open);
    }

    #[test]
    fn a_replaced_connection_ends_its_episode() {
        // Connection 1 sends up to 8001 and is acknowledged up to 6001 only; connection 2
        // starts at 50 and its ACK 9001 at 70 would pass connection 1's H if it counted.
        let p = progress(
            &[(10, 1.0), (20, 8001.0), (50, 1.0), (60, 8001.0)],
            &[(30, 6001.0), (55, 1.0), (65, 2001.0), (70, 9001.0)],
        );
        assert_eq!(p.episode_end(25, 25, 1_000), EpisodeEnd::Replaced(50));
        assert_eq!(p.episode_end(25, 25, 49), EpisodeEnd::Open);
        // In connection 2 with the procedure ending at 55, H = 1: the ACK 1 at 55 does not
        // exceed it (connection 1's high of 6001 does not leak in), the ACK 2001 at 65 does.
        assert_eq!(p.episode_end(52, 55, 1_000), EpisodeEnd::Acknowledged(65));
        // With the procedure ending at 62, H = 8001, passed at 70.
        assert_eq!(p.episode_end(52, 62, 1_000), EpisodeEnd::Acknowledged(70));
    }

    #[test]
    fn empty_progress_is_undefined() {
        assert_eq!(
            SendProgress::EMPTY.episode_end(0, 10, 100),
            EpisodeEnd::Undefined
        );
    }
}
