//! Flow control: receive window, window scaling (RFC 7323 §2), zero-window probing (RFC 9293
//! §3.8.6.1), send-buffer limit.

use celltcp_engine::SimDuration;
use celltcp_net::packet::FlowId;

use super::*;

#[test]
fn slow_reader_closes_the_window_and_probes_keep_it_alive() {
    let mut cb = cfg();
    cb.rcv_buf_bytes = 10_000;
    let mut h = Harness::new(cfg(), cb);
    h.auto_read = false;
    h.handshake();
    h.to_write = 50_000;
    h.run_until(secs(20), |_| false);
    // Only the buffer's worth was accepted; the sender is blocked and probing.
    assert_eq!(h.a.bytes_acked(), 10_000);
    assert!(
        h.a.stats().window_probes >= 2,
        "{}",
        h.a.stats().window_probes
    );
    assert_eq!(h.a.stats().timeouts, 0);
    // The reader drains: a window update restarts the transfer.
    h.auto_read = true;
    assert!(h.run_until(secs(40), |h| h.delivered >= 50_000));
    assert_eq!(h.delivered, 50_000);
}

#[test]
fn lost_window_update_is_recovered_by_the_persist_timer() {
    let mut cb = cfg();
    cb.rcv_buf_bytes = 8_000;
    let mut h = Harness::new(cfg(), cb);
    h.auto_read = false;
    h.handshake();
    h.to_write = 30_000;
    h.run_until(secs(2), |_| false);
    assert_eq!(h.a.bytes_acked(), 8_000);
    // Drop B's next segment (the window update), then read.
    let mut dropped = false;
    h.rule = Box::new(move |_, d, _| {
        if d == Dir::BtoA && !dropped {
            dropped = true;
            return Fate::Drop;
        }
        Fate::Deliver
    });
    h.auto_read = true;
    assert!(h.run_until(secs(60), |h| h.delivered >= 30_000));
}

#[test]
fn window_scaling_allows_more_than_64k_in_flight_rfc7323_2() {
    let mut peaks = vec![];
    for ws in [true, false] {
        let c = TcpConfig {
            window_scale: ws,
            rcv_buf_bytes: 1 << 20,
            initial_window: 10,
            ..cfg()
        };
        let mut h = Harness::new(c, c);
        h.rate_bps = Some(100_000_000);
        h.handshake();
        assert!(h.transfer(3_000_000, secs(60)));
        let v = &h.traces.vars;
        let peak = (0..v.var.len())
            .filter(|&i| v.var[i] == TraceVar::BytesInFlight as u8 && v.flow[i] == FlowId(1))
            .map(|i| v.value[i] as u64)
            .max()
            .unwrap();
        peaks.push(peak);
    }
    assert!(peaks[0] > 65_535, "{peaks:?}");
    assert!(peaks[1] <= 65_535, "{peaks:?}");
}

#[test]
fn send_buffer_limits_what_the_application_can_write() {
    let c = TcpConfig {
        snd_buf_bytes: 20_000,
        ..cfg()
    };
    let mut h = Harness::new(c, c);
    h.handshake();
    assert_eq!(h.a.write(50_000), 20_000);
    assert_eq!(h.a.send_space(), 0);
    h.run_until(h.now + SimDuration::from_ms(120), |_| false);
    assert!(h.a.send_space() > 0);
    assert!(h.a.write(50_000) > 0);
}

/// Found by the model-based fuzzing (fuzz.rs): the SYN-ACK's window was not recorded as a
/// promise, so an out-of-order first segment (held above the gap, taking buffer space) made
/// B's duplicate ACK offer a window ending left of the SYN-ACK's (RFC 9293 §3.8.6.2.2).
#[test]
fn the_syn_ack_window_is_never_retracted() {
    let mut cb = cfg();
    cb.rcv_buf_bytes = 8_000;
    cb.window_scale = false;
    let mut h = Harness::new(cfg(), cb);
    h.auto_read = false;
    h.rule = drop_first(vec![seg(0)], h.a.config().isn);
    h.handshake();
    h.to_write = 3_000;
    h.run_until(secs(2), |_| false);
    let iss = h.a.config().isn;
    let edges: Vec<u64> = h
        .sent
        .iter()
        .filter(|(_, d, _)| *d == Dir::BtoA)
        .map(|(_, _, p)| {
            let t = p.tcp().unwrap();
            t.ack.wrapping_sub(iss) as u64 + t.window as u64
        })
        .collect();
    assert!(edges.len() >= 3, "{edges:?}");
    assert_eq!(edges[0], 1 + 8_000, "the SYN-ACK's right edge");
    assert!(edges.windows(2).all(|w| w[1] >= w[0]), "{edges:?}");
}
