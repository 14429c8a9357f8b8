//! A base station's X2-U forwarding is read out of its buffer at the rate of its transport
//! interface (TS 36.300 §10.1.2.1.2; `celltcp_net::forwarding`): a whole RLC buffer handed
//! over at the handover command does not overflow the source's own egress queue, a configured
//! rate spaces the packets, a full forwarding buffer drops at the source (drop site = the
//! source), and the end marker still follows the last G-PDU.

use celltcp_engine::SimDuration;
use celltcp_net::forwarding::ForwardingConfig;
use celltcp_net::medium::{MediumRequest, TunnelArrival};
use celltcp_net::queue::QueueLimit;
use celltcp_net::trace::{TraceVar, Traces};

mod common;
mod x2_toy;
use x2_toy::*;

/// 300 G-PDUs and an end marker handed to enb1 at once, at 100 ms.
fn burst_script(n: u64) -> Vec<(celltcp_engine::SimTime, Action)> {
    let mut script: Vec<_> = (0..n)
        .map(|i| {
            (
                ms(100),
                Action::Request(MediumRequest::Forward {
                    from: ENB1,
                    to: ENB2,
                    pkt: datagram(i),
                    pdcp_count: Some(i as u32),
                }),
            )
        })
        .collect();
    script.push((
        ms(100),
        Action::Request(MediumRequest::ForwardEndMarker {
            from: ENB1,
            to: ENB2,
            ue: UE,
        }),
    ));
    script
}

/// The forwarded PDCP counts in arrival order, the arrival times and whether the last
/// arrival is the end marker.
fn arrivals(run: &Run) -> (Vec<u32>, Vec<u64>, bool) {
    let all = tunnel_arrivals(&run.log);
    let counts = all
        .iter()
        .filter_map(|(_, _, _, a)| match a {
            TunnelArrival::Forwarded { pdcp_count, .. } => *pdcp_count,
            TunnelArrival::EndMarker { .. } => None,
        })
        .collect();
    let times = all.iter().map(|(t, ..)| t.as_ns()).collect();
    let marker_last = matches!(all.last(), Some((_, _, _, TunnelArrival::EndMarker { .. })));
    (counts, times, marker_last)
}

const G_PDU: u64 = 1028 + 44;

#[test]
fn a_whole_buffer_forwarded_at_once_does_not_overflow_the_sources_egress() {
    // enb1's egress queue holds 100 packets; the burst is 300. Handed to the queue at once,
    // 200 would be tail-dropped there.
    let mut run = build(Setup {
        script: burst_script(300),
        enb1_egress_limit: 100,
        ..Default::default()
    });
    run_until(&mut run.sim, ms(2_000));
    let (counts, times, marker_last) = arrivals(&run);
    assert_eq!(
        counts,
        (0..300).collect::<Vec<u32>>(),
        "every G-PDU, in order"
    );
    assert!(marker_last, "the end marker follows the last G-PDU");
    let egress = &run.sim.model.dirs[ENB1_TO_ROUTER];
    assert_eq!(egress.queue.stats().dropped_full, 0);
    // Back-pressure keeps at most the packet being serialised at the interface.
    assert!(
        egress.occupancy_packets.max() <= 1,
        "{}",
        egress.occupancy_packets.max()
    );
    // Line rate: the last G-PDU leaves enb1 after 300 serialisations at 10 Mb/s, then crosses
    // the router (one more serialisation, 3 + 4 ms).
    let last = ms(100).as_ns() + 301 * tx_10m(G_PDU) + 7_000_000;
    assert_eq!(times[299], last);
    let f = run.sim.model.forwarding_buffer(ENB1).unwrap().stats();
    assert_eq!((f.released, f.dropped), (301, 0));
    assert_eq!(
        f.max_wait_ns,
        300 * tx_10m(G_PDU),
        "the end marker waited for 300 G-PDUs"
    );
}

#[test]
fn a_forwarding_rate_spaces_the_packets() {
    // 2.5 Mb/s: one G-PDU every four serialisations at the 10 Mb/s line rate.
    let mut run = build(Setup {
        script: burst_script(20),
        forwarding: Some(ForwardingConfig {
            rate_bps: Some(2_500_000),
            capacity: None,
        }),
        ..Default::default()
    });
    run_until(&mut run.sim, ms(2_000));
    let (counts, times, marker_last) = arrivals(&run);
    assert_eq!(counts.len(), 20);
    assert!(marker_last);
    let gaps: Vec<u64> = times[..20].windows(2).map(|w| w[1] - w[0]).collect();
    let pace = SimDuration::transmission(G_PDU, 2_500_000).as_ns();
    assert_eq!(pace, 4 * tx_10m(G_PDU));
    assert!(gaps.iter().all(|&g| g == pace), "{gaps:?}");
}

#[test]
fn a_full_forwarding_buffer_drops_at_the_source_and_keeps_the_end_marker() {
    let b_traces = Traces::new(&[TraceVar::Dropped, TraceVar::DropSite]);
    let mut run = build(Setup {
        script: burst_script(300),
        forwarding: Some(ForwardingConfig {
            rate_bps: None,
            capacity: Some(QueueLimit::Packets(50)),
        }),
        traces: Some(b_traces),
        ..Default::default()
    });
    run_until(&mut run.sim, ms(2_000));
    let (counts, _, marker_last) = arrivals(&run);
    // The first G-PDU leaves at once, 50 wait: the buffer took 51 of the 300.
    assert_eq!(counts, (0..51).collect::<Vec<u32>>());
    assert!(marker_last);
    let f = run.sim.model.forwarding_buffer(ENB1).unwrap().stats();
    assert_eq!(f.dropped, 249);
    // Every drop is recorded at enb1.
    let v = &run.sim.model.traces.vars;
    let sites: Vec<f64> = (0..v.var.len())
        .filter(|&i| v.var[i] == TraceVar::DropSite as u8)
        .map(|i| v.value[i])
        .collect();
    assert_eq!(sites.len(), 249);
    assert!(sites.iter().all(|&s| s == f64::from(ENB1.0)));
}
