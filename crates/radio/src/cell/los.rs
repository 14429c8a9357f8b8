//! The LOS condition of each radio link of a UE, drawn once (TR 38.901 §7.4.2).
//!
//! With `LteCellConfig::probabilistic_los`, every link that reaches a UE — from its serving eNB
//! and from each interferer — is LOS with the path-loss model's probability at the distance the
//! UE first has from that transmitter (Table 7.4.2-1), NLOS otherwise, and keeps the condition
//! for the link's life, as ns-3's `ThreeGppChannelConditionModel` does with its default update
//! period of 0. A moving UE therefore keeps the conditions it started with.
//!
//! Randomness: one uniform per (UE, transmitter) pair from the stream
//! `channel/ue/NODE/los/X,Y` (the transmitter's position in metres), so the same physical link
//! gets the same condition in every cell that evaluates it — as the serving link in one cell
//! and as an interferer in another — and adding a link does not change the draws of the others.

use celltcp_engine::RngStream;
use celltcp_net::packet::NodeId;

use crate::channel::{LosCondition, PathLossModel, Position};

/// The links of one UE whose conditions have been drawn: the serving one and the interferers in
/// the order of the cell's `interferers` (drawn when first needed; a radio access network
/// appends its other cells to that list after the UE's link is created).
#[derive(Debug)]
pub struct LinkConditions {
    node: NodeId,
    seed: u64,
    run: u64,
    serving: PathLossModel,
    interferers: Vec<PathLossModel>,
}

impl LinkConditions {
    /// The conditions of UE `node` at `position`, served from `enb` through `model`.
    pub fn new(
        model: &PathLossModel,
        node: NodeId,
        enb: Position,
        position: Position,
        seed: u64,
        run: u64,
    ) -> Self {
        let serving = draw(model, node, enb, position, seed, run);
        LinkConditions {
            node,
            seed,
            run,
            serving,
            interferers: Vec::new(),
        }
    }

    /// The serving link's model, in its drawn condition.
    pub fn serving(&self) -> &PathLossModel {
        &self.serving
    }

    /// Interferer `i`'s model (at `tx`) in its condition, drawn now from `position` if this is
    /// the first time it is needed.
    pub fn interferer(
        &mut self,
        i: usize,
        model: &PathLossModel,
        tx: Position,
        position: Position,
    ) -> &PathLossModel {
        while self.interferers.len() <= i {
            self.interferers
                .push(draw(model, self.node, tx, position, self.seed, self.run));
        }
        &self.interferers[i]
    }
}

/// `model` in the condition of the link from `tx` to UE `node` at `rx`: LOS with the model's
/// probability at their 2D distance. A model without a LOS condition is returned as it is,
/// without a draw.
pub fn draw(
    model: &PathLossModel,
    node: NodeId,
    tx: Position,
    rx: Position,
    seed: u64,
    run: u64,
) -> PathLossModel {
    let Some(p_los) = model.los_probability(tx.distance_m(rx)) else {
        return *model;
    };
    let path = format!("channel/ue/{node}/los/{:.3},{:.3}", tx.x_m, tx.y_m);
    let u = RngStream::new(seed, run, &path).next_f64();
    let condition = if u < p_los {
        LosCondition::Los
    } else {
        LosCondition::Nlos
    };
    model.with_condition(condition)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::{PathLoss, UrbanMacro};

    fn uma(condition: LosCondition) -> PathLossModel {
        PathLossModel::UrbanMacro(UrbanMacro::with_default_heights(2e9, condition).unwrap())
    }

    #[test]
    fn the_los_share_over_many_ues_is_the_probability_of_table_7_4_2_1() {
        let model = uma(LosCondition::Nlos);
        let (enb, at) = (Position::new(0.0, 0.0), Position::new(200.0, 0.0));
        let p = model.los_probability(200.0).unwrap();
        let los_pl = uma(LosCondition::Los).path_loss_db(200.0);
        let n = 20_000;
        let los = (0..n)
            .filter(|&node| draw(&model, NodeId(node), enb, at, 7, 0).path_loss_db(200.0) == los_pl)
            .count();
        let share = los as f64 / f64::from(n);
        let sigma = (p * (1.0 - p) / f64::from(n)).sqrt();
        // p(200 m) = 18/200 + e^(-200/63)(1 - 18/200) = 0.09 + 0.04181 · 0.91 = 0.12805.
        assert!((p - 0.12805).abs() < 1e-4, "{p}");
        assert!((share - p).abs() < 4.0 * sigma, "{share} vs {p}");
    }

    #[test]
    fn a_link_gets_the_same_condition_wherever_it_is_evaluated() {
        let model = uma(LosCondition::Los);
        let (tx, rx) = (Position::new(500.0, 0.0), Position::new(100.0, 50.0));
        let a = draw(&model, NodeId(3), tx, rx, 1, 0);
        let mut c = LinkConditions::new(&model, NodeId(3), Position::new(0.0, 0.0), rx, 1, 0);
        assert_eq!(*c.interferer(0, &model, tx, rx), a);
        // Within 18 m every link is LOS.
        let near = draw(
            &uma(LosCondition::Nlos),
            NodeId(3),
            tx,
            Position::new(490.0, 0.0),
            1,
            0,
        );
        assert_eq!(near, model);
    }
}
