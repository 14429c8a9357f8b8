//! RFC 2018 SACK blocks and RFC 6675 loss recovery.

use celltcp_net::packet::TcpFlags;

use super::*;

#[test]
fn many_losses_in_one_window_without_timeout_rfc6675() {
    let losses: Vec<u64> = vec![30, 32, 34, 36, 38, 40, 41, 42, 50, 55];
    let c = cfg();
    let mut h = Harness::new(c, c);
    h.rule = drop_first(losses.iter().map(|&k| seg(k)).collect(), c.isn);
    h.handshake();
    assert!(h.transfer(200_000, secs(60)));
    let s = h.a.stats();
    assert_eq!(s.timeouts, 0);
    assert_eq!(s.fast_recoveries, 1);
    assert_eq!(s.retx_fast, losses.len() as u64);
    // Every lost segment retransmitted exactly once, and nothing else.
    let mut retx: Vec<u64> = h
        .data_sent()
        .into_iter()
        .filter(|x| x.2)
        .map(|x| x.1)
        .collect();
    retx.sort();
    assert_eq!(retx, losses.iter().map(|&k| seg(k)).collect::<Vec<_>>());
    assert_eq!(h.delivered, 200_000);
}

#[test]
fn newreno_needs_a_round_trip_per_loss_sack_does_not() {
    let losses: Vec<u64> = vec![30, 33, 36, 39, 42];
    let mut durations = vec![];
    for sack in [false, true] {
        let c = TcpConfig { sack, ..cfg() };
        let mut h = Harness::new(c, c);
        h.rule = drop_first(losses.iter().map(|&k| seg(k)).collect(), c.isn);
        h.handshake();
        assert!(h.transfer(100_000, secs(60)));
        assert_eq!(h.a.stats().timeouts, 0, "sack {sack}");
        durations.push(h.now);
    }
    assert!(durations[1] < durations[0], "{durations:?}");
}

#[test]
fn ack_carries_at_most_three_blocks_with_timestamps_four_without_rfc2018_3() {
    for (ts, max) in [(true, 3usize), (false, 4)] {
        let c = TcpConfig {
            timestamps: ts,
            ..cfg()
        };
        let mut h = Harness::new(c, c);
        h.rule = drop_first(
            [20u64, 22, 24, 26, 28, 30]
                .iter()
                .map(|&k| seg(k))
                .collect(),
            c.isn,
        );
        h.handshake();
        assert!(h.transfer(100_000, secs(60)));
        let most = h
            .sent
            .iter()
            .filter(|(_, d, _)| *d == Dir::BtoA)
            .map(|(_, _, p)| p.tcp().unwrap().options.sack_len as usize)
            .max()
            .unwrap();
        assert_eq!(most, max, "timestamps {ts}");
        assert!(h
            .sent
            .iter()
            .all(|(_, _, p)| p.size_bytes() <= 20 + 60 + p.payload_len));
        let _ = TcpFlags::ACK;
    }
}

#[test]
fn rescue_retransmission_recovers_a_lost_tail_rfc6675_4_rule_4() {
    // The last segments of the transfer are lost with too few segments after them for three
    // duplicate ACKs above each: recovery still completes without a timeout only if the
    // scoreboard rules fire; at minimum all data is delivered.
    let c = cfg();
    let total = 40_000u64;
    let mut h = Harness::new(c, c);
    h.rule = drop_first(vec![seg(33), seg(38)], c.isn);
    h.handshake();
    assert!(h.transfer(total, secs(60)));
    assert_eq!(h.delivered, total);
    assert_eq!(h.a.stats().fast_recoveries, 1);
}
