//! What the cell measures: per-UE counters and their summary ([`UeReport`]), and the opt-in
//! per-TTI series ([`CellTrace`]).

use celltcp_engine::SimTime;
use celltcp_net::packet::NodeId;

/// A quantity integrated over time (bytes × ns), for a time-weighted mean.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimeWeighted {
    last_change: SimTime,
    value: u64,
    integral: f64,
    max: u64,
}

impl TimeWeighted {
    /// The quantity changes to `value` at `now` (times must not decrease).
    pub fn set(&mut self, now: SimTime, value: u64) {
        let dt = now.saturating_since(self.last_change).as_ns() as f64;
        self.integral += self.value as f64 * dt;
        self.last_change = self.last_change.max(now);
        self.value = value;
        self.max = self.max.max(value);
    }

    /// Time-weighted mean over [0, now].
    pub fn mean(&self, now: SimTime) -> f64 {
        if now.as_ns() == 0 {
            return self.value as f64;
        }
        let dt = now.saturating_since(self.last_change).as_ns() as f64;
        (self.integral + self.value as f64 * dt) / now.as_ns() as f64
    }

    pub fn max(&self) -> u64 {
        self.max
    }

    pub fn current(&self) -> u64 {
        self.value
    }
}

/// Running counters of one UE, updated by the cell.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UeCounters {
    /// Transport blocks decoded and their bits (each block counted once, on the transmission
    /// that decoded it).
    pub tbs_decoded: u64,
    pub tb_bits_decoded: u64,
    /// SDUs (IP packets) delivered to the UE and their IP bytes.
    pub sdus_delivered: u64,
    pub sdu_bytes_delivered: u64,
    /// Queueing delay (from `send` at the eNB to delivery at the UE) of the delivered SDUs, ns.
    pub delay_sum_ns: u128,
    pub delay_max_ns: u64,
    /// PRB-TTIs allocated to the UE (new data and retransmissions).
    pub prbs: u64,
    /// Sum of the per-TTI SINR (dB) over the TTIs in which the UE was active.
    pub sinr_sum_db: f64,
    pub sinr_samples: u64,
    /// Sum of the MCS of new transport blocks.
    pub mcs_sum: u64,
    pub new_tbs: u64,
    /// Transmissions lost for want of an RLC PDU to fill them (e.g. window stalled).
    pub empty_grants: u64,
}

/// Summary of one UE at a given time; every rate is over [0, now].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UeReport {
    pub node: NodeId,
    /// Bits of decoded transport blocks per second.
    pub phy_throughput_bps: f64,
    /// IP bytes delivered to the UE, as bits per second.
    pub rlc_throughput_bps: f64,
    pub sdus_delivered: u64,
    pub sdu_bytes_delivered: u64,
    pub tb_bits_decoded: u64,
    pub harq_transmissions: u64,
    pub harq_retransmissions: u64,
    /// Transport blocks given up after maxTx transmissions.
    pub harq_residual_failures: u64,
    /// AMD PDUs and segments retransmitted by RLC AM.
    pub rlc_retransmissions: u64,
    /// SDUs lost to RLC: in AM, those with a piece discarded at maxRetxThreshold (Discard
    /// mode) at the eNB; in UM, those the UE could not reassemble.
    pub rlc_discards: u64,
    /// Times an AMD PDU reached maxRetxThreshold.
    pub rlc_max_retx_reached: u64,
    /// RLC AM indicated radio link failure (maxRetxThreshold in RadioLinkFailure mode).
    pub radio_link_failure: bool,
    /// IP packets refused by the eNB's full RLC buffer.
    pub sdus_refused: u64,
    /// Mean and maximum queueing delay at the eNB (send → delivery), seconds.
    pub queueing_delay_mean_s: f64,
    pub queueing_delay_max_s: f64,
    /// Time-weighted mean and maximum of the eNB's RLC buffer for the UE (the buffer size the
    /// MAC sees: data with estimated RLC headers, retransmissions, control), bytes.
    pub buffer_mean_bytes: f64,
    pub buffer_max_bytes: u64,
    /// Mean SINR (dB) over the TTIs the UE was active, mean reported CQI, mean MCS of new
    /// transport blocks; NaN when there is no sample.
    pub sinr_mean_db: f64,
    pub cqi_mean: f64,
    pub mcs_mean: f64,
    /// PRB-TTIs allocated to the UE.
    pub prbs: u64,
    /// Items (IP packets and STATUS PDUs) lost on the uplink.
    pub uplink_lost: u64,
    /// IP packets lost by the UE's receiver after delivery by RLC and PDCP
    /// (`downlink_loss.rs`); `None` for a UE without a downlink loss model, which has no such
    /// figure.
    pub downlink_lost: Option<u64>,
}

impl UeReport {
    /// `(name, value)` pairs for the run summary, names `ue.<node>.<figure>`; `downlink_lost`
    /// only for a UE with a downlink loss model.
    pub fn figures(&self, out: &mut Vec<(String, f64)>) {
        let n = self.node;
        let mut push = |k: &str, v: f64| out.push((format!("ue.{n}.{k}"), v));
        push("phy_throughput_bps", self.phy_throughput_bps);
        push("rlc_throughput_bps", self.rlc_throughput_bps);
        push("sdus_delivered", self.sdus_delivered as f64);
        push("harq_transmissions", self.harq_transmissions as f64);
        push("harq_retransmissions", self.harq_retransmissions as f64);
        push("harq_residual_failures", self.harq_residual_failures as f64);
        push("rlc_retransmissions", self.rlc_retransmissions as f64);
        push("rlc_discards", self.rlc_discards as f64);
        push("rlc_max_retx_reached", self.rlc_max_retx_reached as f64);
        push(
            "radio_link_failure",
            f64::from(u8::from(self.radio_link_failure)),
        );
        push("sdus_refused", self.sdus_refused as f64);
        push("queueing_delay_mean_s", self.queueing_delay_mean_s);
        push("queueing_delay_max_s", self.queueing_delay_max_s);
        push("buffer_mean_bytes", self.buffer_mean_bytes);
        push("buffer_max_bytes", self.buffer_max_bytes as f64);
        push("sinr_mean_db", self.sinr_mean_db);
        push("cqi_mean", self.cqi_mean);
        push("mcs_mean", self.mcs_mean);
        push("prbs", self.prbs as f64);
        push("uplink_lost", self.uplink_lost as f64);
        if let Some(lost) = self.downlink_lost {
            push(super::downlink_loss::DOWNLINK_LOST, lost as f64);
        }
    }
}

/// Per-TTI series, kept only with `trace_series` on: one row per UE and processed TTI in
/// which the UE had data or a HARQ retransmission pending. Columns have equal lengths.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CellTrace {
    /// Start of the TTI, ns.
    pub time_ns: Vec<u64>,
    /// UE node.
    pub ue: Vec<NodeId>,
    /// SINR in the TTI, dB.
    pub sinr_db: Vec<f64>,
    /// CQI the scheduler used (the last visible report).
    pub cqi: Vec<u8>,
    /// MCS of the transport block sent, or the MCS link adaptation chose if none was sent.
    pub mcs: Vec<u8>,
    /// PRBs allocated (0: not scheduled).
    pub n_prb: Vec<u32>,
    /// Transport block size, bits (0: not scheduled).
    pub tbs_bits: Vec<u32>,
    /// HARQ transmission number of the block (1 = first, 0 = not scheduled).
    pub harq_transmission: Vec<u8>,
    /// The block was decoded.
    pub decoded: Vec<bool>,
}

impl CellTrace {
    pub fn len(&self) -> usize {
        self.time_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_ns.is_empty()
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push(
        &mut self,
        time_ns: u64,
        ue: NodeId,
        sinr_db: f64,
        cqi: u8,
        mcs: u8,
        n_prb: u32,
        tbs_bits: u32,
        harq_transmission: u8,
        decoded: bool,
    ) {
        self.time_ns.push(time_ns);
        self.ue.push(ue);
        self.sinr_db.push(sinr_db);
        self.cqi.push(cqi);
        self.mcs.push(mcs);
        self.n_prb.push(n_prb);
        self.tbs_bits.push(tbs_bits);
        self.harq_transmission.push(harq_transmission);
        self.decoded.push(decoded);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_weighted_mean() {
        let mut b = TimeWeighted::default();
        b.set(SimTime::from_ns(0), 100);
        b.set(SimTime::from_ns(10), 300);
        // 100 for 10 ns, 300 for 30 ns: (1000 + 9000) / 40 = 250.
        assert_eq!(b.mean(SimTime::from_ns(40)), 250.0);
        assert_eq!(b.max(), 300);
    }
}
