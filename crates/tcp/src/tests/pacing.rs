//! Pacing and delivery-rate samples: a pacing controller's segments leave no faster than its
//! rate, the pacer's release time is a timer, and ACKs carry rate samples.

use std::sync::{Arc, Mutex};

use celltcp_engine::SimDuration;
use celltcp_net::packet::FlowId;

use super::*;
use crate::cc::RateSample;

/// TestReno with a fixed pacing rate that records the rate samples it is given.
struct Paced {
    inner: TestReno,
    rate_bps: u64,
    samples: Arc<Mutex<Vec<RateSample>>>,
}

impl CongestionControl for Paced {
    fn name(&self) -> &'static str {
        "paced"
    }
    fn cwnd(&self) -> u64 {
        self.inner.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.inner.ssthresh
    }
    fn on_ack(&mut self, ack: &AckEvent) {
        if let Some(r) = ack.rate_sample {
            self.samples.lock().unwrap().push(r);
        }
        self.inner.on_ack(ack)
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        self.inner.on_congestion_event(ev)
    }
    fn on_recovery_exit(&mut self, now: SimTime) {
        self.inner.on_recovery_exit(now)
    }
    fn on_rto(&mut self, ev: &RtoEvent) {
        self.inner.on_rto(ev)
    }
    fn snapshot(&self) -> CcSnapshot {
        self.inner.snapshot()
    }
    fn restore(&mut self, s: &CcSnapshot) {
        self.inner.restore(s)
    }
    fn pacing_rate_bps(&self) -> Option<u64> {
        Some(self.rate_bps)
    }
}

#[test]
fn segments_leave_at_the_pacing_rate_and_rate_samples_match_it() {
    let c = TcpConfig {
        initial_window: 40,
        ..cfg()
    };
    let samples = Arc::new(Mutex::new(vec![]));
    let cc = Paced {
        inner: TestReno::new(MSS, 40),
        rate_bps: 2_000_000,
        samples: samples.clone(),
    };
    let a = TcpEndpoint::connect(c, Box::new(cc), A, B, FlowId(1), SimTime::ZERO);
    let b = TcpEndpoint::listen(c, Box::new(TestReno::new(MSS, 4)), B, FlowId(1));
    let mut h = Harness::with(a, b);
    h.handshake();
    assert!(h.transfer(200_000, secs(30)));
    let times: Vec<SimTime> = h.data_sent().iter().map(|x| x.0).collect();
    // 1000 B payload + 52 B of headers at 2 Mb/s = 4.208 ms between departures.
    let gap = SimDuration::transmission(1052, 2_000_000);
    assert!(
        times.windows(2).all(|w| w[1] - w[0] >= gap),
        "a segment left early"
    );
    let total = *times.last().unwrap() - times[0];
    assert!(total < SimDuration(gap.0 * 201), "{total}");
    // Delivery-rate samples measure the paced rate (payload only: 2 Mb/s · 1000/1052).
    let s = samples.lock().unwrap();
    let last = s.last().unwrap();
    let expect = 2_000_000.0 * 1000.0 / 1052.0;
    assert!(
        (last.delivery_rate_bps as f64 - expect).abs() / expect < 0.05,
        "{last:?}"
    );
    assert!(!last.is_app_limited);
}

#[test]
fn pacer_release_time_is_a_timer() {
    let c = TcpConfig {
        initial_window: 40,
        ..cfg()
    };
    let cc = Paced {
        inner: TestReno::new(MSS, 40),
        rate_bps: 1_000_000,
        samples: Arc::default(),
    };
    let a = TcpEndpoint::connect(c, Box::new(cc), A, B, FlowId(1), SimTime::ZERO);
    let b = TcpEndpoint::listen(c, Box::new(TestReno::new(MSS, 4)), B, FlowId(1));
    let mut h = Harness::with(a, b);
    h.handshake();
    h.a.write(10_000);
    let now = h.now;
    let first = h.a.poll_transmit(now, &mut h.traces).unwrap();
    assert_eq!(first.payload_len, 1000);
    assert!(h.a.poll_transmit(now, &mut h.traces).is_none());
    let t = h.a.poll_timeout().unwrap();
    assert_eq!(t - now, SimDuration::transmission(1052, 1_000_000));
}
