//! Configuration errors name their key.

use celltcp_engine::SimDuration;
use celltcp_net::packet::NodeId;

use super::harness::*;
use crate::channel::Position;
use crate::measurement::A3Config;
use crate::mobility::MobilityModel;
use crate::ran::{HandoverConfig, LteRan, ManualHandover, RanConfig, RanUe};

fn base() -> RanConfig {
    ran_config(
        vec![cell(0, 0.0), cell(1, 500.0), cell(2, 1000.0)],
        vec![fixed_ue(NodeId(1), 0, 100.0)],
        HandoverConfig::default(),
    )
}

fn error(cfg: RanConfig) -> String {
    LteRan::new(cfg, 1, 0).unwrap_err().to_string()
}

#[test]
fn errors_name_the_key_and_the_value() {
    let mut cfg = base();
    cfg.handover.manual.push(ManualHandover {
        at: ms(1),
        ue: NodeId(1),
        target: 7,
    });
    assert_eq!(
        error(cfg),
        "handover.manual[0].target: 7 is not a cell (3 cells)"
    );

    let mut cfg = base();
    cfg.ues[0].serving = 3;
    assert_eq!(error(cfg), "ues[0].serving: 3 is not a cell (3 cells)");

    let mut cfg = base();
    cfg.handover.manual.push(ManualHandover {
        at: ms(1),
        ue: NodeId(9),
        target: 1,
    });
    assert_eq!(
        error(cfg),
        "handover.manual[0].ue: node 9 is not a UE of the network"
    );

    let mut cfg = base();
    cfg.cells[2].enb = cfg.cells[0].enb;
    assert_eq!(
        error(cfg),
        "cells[2].enb: node 10 is already the eNB of cells[0]"
    );

    let mut cfg = base();
    cfg.ues.push(fixed_ue(NodeId(11), 0, 10.0));
    assert_eq!(error(cfg), "ues[1].node: node 11 is an eNB or the gateway");

    // A UE's receive errors are the UE's (`RanUe::downlink_loss`), never a cell's.
    let mut cfg = base();
    let model = celltcp_net::loss::AnyLossModel::bernoulli(0.1).unwrap();
    cfg.cells[1].downlink_loss.insert(NodeId(1), model.clone());
    assert_eq!(
        error(cfg),
        "cells[1].downlink_loss: a model for node 1; expected none in a radio access network \
         (a UE's receive errors are its own: ues[..].downlink_loss)"
    );
    let mut cfg = base();
    cfg.ues[0].downlink_loss = Some(model);
    assert!(LteRan::new(cfg, 1, 0).is_ok());

    let mut cfg = base();
    cfg.cells[1].pdcp.sn_bits = 7;
    assert!(error(cfg).starts_with("cells[1].pdcp.sn_bits: 7 differs from cells[0] (12)"));

    let mut cfg = base();
    cfg.cells[1].n_prb = 0;
    assert_eq!(
        error(cfg),
        "cells[1] (c1): cell.n_prb: 0 is invalid; expected 1..=110 PRBs"
    );

    let mut cfg = base();
    cfg.ues[0] = RanUe {
        node: NodeId(1),
        serving: 0,
        downlink_loss: None,
        mobility: MobilityModel::Linear {
            start: Position::new(0.0, 0.0),
            velocity_mps: (300.0, 0.0),
            depart: ms(0),
        },
    };
    assert!(error(cfg).starts_with("ues[0].mobility.velocity_mps: "));

    let mut cfg = base();
    cfg.handover.a3 = Some(A3Config {
        time_to_trigger: SimDuration::from_ms(250),
        ..A3Config::default()
    });
    assert!(error(cfg).starts_with("handover.a3.time_to_trigger: 250 ms is not allowed"));

    let mut cfg = base();
    cfg.measurement.filter_k = 20;
    assert!(error(cfg).starts_with("measurement.filter_k: 20"));

    let mut cfg = base();
    cfg.measurement.period = SimDuration::ZERO;
    assert_eq!(
        error(cfg),
        "measurement.period: 0 ms; expected a period > 0"
    );

    let mut cfg = base();
    cfg.handover.max_ues_per_cell = Some(0);
    assert!(error(cfg).starts_with("handover.max_ues_per_cell: 0"));

    let mut cfg = base();
    cfg.cells.clear();
    assert!(error(cfg).starts_with("cells: "));
}
