//! Receive errors at a UE on the downlink, after the radio protocols: an IP packet that RLC
//! (and PDCP, when it reorders) delivered is lost at the UE's receiver with the probability of
//! a loss model (`celltcp_net::loss`).
//!
//! Why: studies that model the radio as "errors on the radio link between the UE and the eNB"
//! (ns-3's `RateErrorModel` installed on the UE's device, as seed study 003 does) lose IP
//! packets that the lower layers handed up, without any RLC recovery. This is that loss, on top
//! of the cell's own PHY/MAC/RLC model: RLC AM does not see it (it delivered the SDU), so it is
//! not retransmitted below TCP. A lost packet is reported dropped with `DropCause::LinkLoss`,
//! the cause a wired link's loss model gives.
//!
//! Randomness: one stream per UE, `<prefix>/downlink_loss` (`cell/NAME/ue/NODE/downlink_loss`
//! in a cell, `ran/ue/NODE/downlink_loss` in a radio access network), drawn only for the UE's
//! own packets, so the other streams of the cell — fading, decoding, uplink — see the same
//! numbers with or without the model; a UE without a model draws nothing.

use celltcp_engine::{RngStream, SimTime};
use celltcp_net::loss::{AnyLossModel, LossModel};
use celltcp_net::medium::MediumOutput;
use celltcp_net::packet::{NodeId, Packet};
use celltcp_net::queue::DropCause;

/// Name of the UE figure counting the packets lost here (summary and series).
pub const DOWNLINK_LOST: &str = "downlink_lost";

/// One UE's receive-error model, its random stream and its count of lost packets.
#[derive(Clone, Debug)]
pub struct DownlinkLoss {
    model: AnyLossModel,
    rng: RngStream,
    lost: u64,
}

impl DownlinkLoss {
    /// `model` with the stream `<prefix>/downlink_loss` of (`seed`, `run`); `prefix` names the
    /// UE's component (`cell/NAME/ue/NODE` or `ran/ue/NODE`).
    pub fn new(model: AnyLossModel, seed: u64, run: u64, prefix: &str) -> Self {
        DownlinkLoss {
            model,
            rng: RngStream::new(seed, run, &format!("{prefix}/downlink_loss")),
            lost: 0,
        }
    }

    /// Packets lost so far.
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// The model (its state included, for Gilbert–Elliott).
    pub fn model(&self) -> &AnyLossModel {
        &self.model
    }

    /// Whether `pkt`, arriving at the UE at `now`, is lost (one decision of the model on the
    /// whole IP datagram); counts it if so.
    pub fn is_lost(&mut self, now: SimTime, pkt: &Packet) -> bool {
        let lost = self.model.is_lost(pkt.size_bytes(), now, &mut self.rng);
        self.lost += u64::from(lost);
        lost
    }
}

/// Hands `pkt` to UE node `node` at `now`, unless `loss` says the UE's receiver loses it: then
/// it is dropped with `DropCause::LinkLoss`. Without a model there is no draw.
pub(crate) fn deliver_to_ue(
    loss: Option<&mut DownlinkLoss>,
    now: SimTime,
    node: NodeId,
    pkt: Packet,
    out: &mut MediumOutput,
) {
    if loss.is_some_and(|l| l.is_lost(now, &pkt)) {
        out.dropped.push((pkt, DropCause::LinkLoss));
    } else {
        out.delivered.push((node, pkt));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rlc::testkit::sdu as packet;

    #[test]
    fn lost_packets_are_dropped_as_link_losses_and_counted() {
        let mut l = DownlinkLoss::new(AnyLossModel::bernoulli(0.3).unwrap(), 1, 0, "cell/c/ue/2");
        let mut out = MediumOutput::default();
        let n = 20_000;
        for uid in 0..n {
            deliver_to_ue(
                Some(&mut l),
                SimTime::ZERO,
                NodeId(2),
                packet(uid, 1000),
                &mut out,
            );
        }
        assert_eq!(out.delivered.len() + out.dropped.len(), n as usize);
        assert_eq!(l.lost(), out.dropped.len() as u64);
        assert!(out.dropped.iter().all(|(_, c)| *c == DropCause::LinkLoss));
        assert!(out.delivered.iter().all(|(node, _)| *node == NodeId(2)));
        // Four binomial standard deviations: 4·√(0.3·0.7/20000) = 0.013.
        let rate = l.lost() as f64 / n as f64;
        assert!((rate - 0.3).abs() < 0.013, "{rate}");
    }

    #[test]
    fn the_stream_is_the_ues_own_and_no_model_draws_nothing() {
        // Two UEs' streams differ; the same prefix reproduces the same decisions.
        let decisions = |prefix: &str| {
            let mut l = DownlinkLoss::new(AnyLossModel::bernoulli(0.5).unwrap(), 9, 3, prefix);
            (0..64)
                .map(|i| l.is_lost(SimTime::ZERO, &packet(i, 100)))
                .collect::<Vec<_>>()
        };
        assert_eq!(decisions("ran/ue/4"), decisions("ran/ue/4"));
        assert_ne!(decisions("ran/ue/4"), decisions("ran/ue/5"));
        let mut out = MediumOutput::default();
        deliver_to_ue(None, SimTime::ZERO, NodeId(7), packet(1, 100), &mut out);
        assert_eq!(out.delivered.len(), 1);
        assert!(out.dropped.is_empty());
    }
}
