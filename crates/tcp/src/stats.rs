//! Counters of one TCP endpoint, for run summaries.

use celltcp_engine::{SimDuration, SimTime};

/// Totals over the life of one connection. Byte counts are payload bytes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TcpStats {
    /// Segments sent of any kind (SYN, data, pure ACK, FIN, probes), ACK copies included.
    pub segments_sent: u64,
    /// Payload bytes sent, retransmissions included.
    pub bytes_sent: u64,
    /// Segments carrying payload or FIN, retransmissions included.
    pub data_segments_sent: u64,
    /// Data segments retransmitted by fast retransmit / SACK recovery.
    pub retx_fast: u64,
    /// Data segments retransmitted after a retransmission timeout.
    pub retx_rto: u64,
    /// All data segment retransmissions (`retx_fast + retx_rto`).
    pub retx_total: u64,
    /// Payload bytes retransmitted.
    pub retx_bytes: u64,
    /// SYN or SYN-ACK retransmissions.
    pub syn_retx: u64,
    /// Retransmission-timer expiries with data outstanding.
    pub timeouts: u64,
    /// ACKs during RTO recovery that found go-back-N retransmissions lost (RFC 8985 §6.2),
    /// each sending them again without waiting for another timeout.
    pub lost_retransmissions: u64,
    /// Reductions undone as spurious (F-RTO or Eifel).
    pub spurious_undos: u64,
    /// Entries into fast recovery.
    pub fast_recoveries: u64,
    /// Window reductions triggered by ECN-Echo.
    pub ecn_reductions: u64,
    /// ACKs received carrying the ELN mark (Explicit Loss Notification).
    pub eln_acks_received: u64,
    /// Fast recoveries entered for a hole ELN marked, without a window reduction (counted in
    /// `fast_recoveries` too).
    pub eln_recoveries: u64,
    /// Retransmission timeouts for a hole ELN marked, answered without a window reduction
    /// (counted in `timeouts` too).
    pub eln_timeouts: u64,
    /// Duplicate ACKs received (by the definition in force: RFC 5681, or RFC 6675 with SACK).
    pub dupacks_received: u64,
    /// ACKs received (segments with the ACK bit processed in a synchronised state).
    pub acks_received: u64,
    /// Segments without payload sent with the ACK bit, copies included.
    pub acks_sent: u64,
    /// Extra ACK copies sent by receiver ACK control (`004_…`).
    pub ack_copies_sent: u64,
    /// Data segments received carrying the CE codepoint.
    pub ce_received: u64,
    /// Zero-window probes sent.
    pub window_probes: u64,
    /// Payload bytes acknowledged by the peer.
    pub bytes_acked: u64,
    /// Payload bytes delivered in order to the local application.
    pub bytes_delivered: u64,
    /// Largest congestion window seen, bytes.
    pub max_cwnd: u64,
    /// Smoothed RTT at the last update.
    pub srtt: SimDuration,
    /// Minimum RTT measured.
    pub min_rtt: SimDuration,
    /// RTT samples taken.
    pub rtt_samples: u64,
    /// When the connection reached ESTABLISHED.
    pub established_at: Option<SimTime>,
    /// When the connection reached CLOSED or TIME-WAIT.
    pub closed_at: Option<SimTime>,
}

impl TcpStats {
    /// Adds the counters of another connection (an agent's earlier connections): sums, maxima
    /// for `max_cwnd`, the latest RTT figures, the earliest establishment and latest close.
    pub fn accumulate(&mut self, o: &TcpStats) {
        self.segments_sent += o.segments_sent;
        self.bytes_sent += o.bytes_sent;
        self.data_segments_sent += o.data_segments_sent;
        self.retx_fast += o.retx_fast;
        self.retx_rto += o.retx_rto;
        self.retx_total += o.retx_total;
        self.retx_bytes += o.retx_bytes;
        self.syn_retx += o.syn_retx;
        self.timeouts += o.timeouts;
        self.lost_retransmissions += o.lost_retransmissions;
        self.spurious_undos += o.spurious_undos;
        self.fast_recoveries += o.fast_recoveries;
        self.ecn_reductions += o.ecn_reductions;
        self.eln_acks_received += o.eln_acks_received;
        self.eln_recoveries += o.eln_recoveries;
        self.eln_timeouts += o.eln_timeouts;
        self.dupacks_received += o.dupacks_received;
        self.acks_received += o.acks_received;
        self.acks_sent += o.acks_sent;
        self.ack_copies_sent += o.ack_copies_sent;
        self.ce_received += o.ce_received;
        self.window_probes += o.window_probes;
        self.bytes_acked += o.bytes_acked;
        self.bytes_delivered += o.bytes_delivered;
        self.max_cwnd = self.max_cwnd.max(o.max_cwnd);
        if o.rtt_samples > 0 {
            self.srtt = o.srtt;
            self.min_rtt = if self.rtt_samples > 0 {
                self.min_rtt.min(o.min_rtt)
            } else {
                o.min_rtt
            };
        }
        self.rtt_samples += o.rtt_samples;
        self.established_at = match (self.established_at, o.established_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.closed_at = self.closed_at.max(o.closed_at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accumulate_sums_and_takes_extremes() {
        let a = TcpStats {
            retx_total: 2,
            max_cwnd: 10,
            rtt_samples: 1,
            min_rtt: SimDuration(5),
            ..Default::default()
        };
        let b = TcpStats {
            retx_total: 3,
            max_cwnd: 7,
            rtt_samples: 2,
            min_rtt: SimDuration(3),
            srtt: SimDuration(9),
            ..Default::default()
        };
        let mut t = TcpStats::default();
        t.accumulate(&a);
        t.accumulate(&b);
        assert_eq!((t.retx_total, t.max_cwnd, t.rtt_samples), (5, 10, 3));
        assert_eq!((t.min_rtt, t.srtt), (SimDuration(3), SimDuration(9)));
    }
}
