//! Interference coupling: each cell sees the others loaded with their actual PRB use.

use super::harness::ms;
use super::support::*;
use crate::channel::noise_power_dbm;
use celltcp_net::packet::NodeId;

/// Friis at 2 GHz, dB.
fn free_space_db(d_m: f64) -> f64 {
    20.0 * (4.0 * std::f64::consts::PI * d_m * 2.0e9 / 299_792_458.0).log10()
}

/// [`loaded_neighbour`] with coupled interference for 1 s: UE 1's large-scale SINR at 1 s, dB,
/// and the load cell 0 then sees from cell 1.
fn sinr_of_ue1(cell1_rate_bps: f64) -> (f64, f64) {
    let h = loaded_neighbour(cell1_rate_bps, true, ms(1000));
    let cell0 = &h.ran.cells()[0];
    assert_eq!(cell0.config().interferers.len(), 1, "cell 1 appended");
    let load = cell0.config().interferers[0].load;
    (cell0.ue_large_scale_sinr_db(NodeId(1)).unwrap(), load)
}

#[test]
fn a_loaded_neighbour_lowers_the_sinr_by_the_expected_amount() {
    let s = 46.0 - free_space_db(200.0);
    let i = 46.0 - free_space_db(300.0);
    let n = noise_power_dbm(50, 9.0).unwrap();
    let expected =
        |load: f64| s - 10.0 * (10f64.powf(n / 10.0) + load * 10f64.powf(i / 10.0)).log10();

    let (idle, idle_load) = sinr_of_ue1(0.0);
    assert_eq!(idle_load, 0.0);
    assert!(
        (idle - expected(0.0)).abs() < 1e-6,
        "{idle} vs {}",
        expected(0.0)
    );

    // Saturated: cell 1 uses every PRB of every TTI.
    let (loaded, load) = sinr_of_ue1(SATURATING_BPS);
    eprintln!(
        "UE 1 SINR: {idle:.2} dB with cell 1 idle, {loaded:.2} dB with cell 1 at load {load:.3} \
         (hand computation {:.2} dB at full load)",
        expected(1.0)
    );
    assert!(load > 0.95, "{load}");
    assert!((loaded - expected(load)).abs() < 1e-6);
    // (200/300)² in free space: the neighbour arrives 3.5 dB below the server.
    assert!((expected(1.0) - 3.52).abs() < 0.01, "{}", expected(1.0));
    assert!(idle - loaded > 50.0);
}
