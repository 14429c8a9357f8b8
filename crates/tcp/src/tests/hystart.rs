//! HyStart through the endpoint: a CUBIC sender over a 10 Mb/s bottleneck with a 50 ms base
//! RTT and a queue without limit, Linux-like defaults (delayed ACKs every two segments,
//! timestamps, ABC L = 2). Without HyStart slow start only ends on a loss, so here never; with
//! it, it ends once the queue adds a few milliseconds to the round trip.

use celltcp_engine::SimDuration;
use celltcp_net::packet::FlowId;

use super::{secs, Harness, A, B};
use crate::cc::{self, CcConfig};
use crate::{TcpConfig, TcpEndpoint};

/// The sender's cwnd and ssthresh (segments; `None` while ssthresh is the initial one) at the
/// end of a 3 MB transfer with `hystart`.
fn slow_start_exit(name: &str, hystart: Option<bool>) -> (u64, Option<u64>) {
    let cfg = TcpConfig {
        hystart,
        ..TcpConfig::default()
    };
    let mss = u64::from(cfg.mss);
    let cc_cfg = CcConfig {
        hystart,
        ..cfg.cc_config()
    };
    let a = TcpEndpoint::connect(
        cfg,
        cc::build(name, &cc_cfg).unwrap(),
        A,
        B,
        FlowId(1),
        secs(0),
    );
    let b = TcpEndpoint::listen(cfg, cc::build(name, &cc_cfg).unwrap(), B, FlowId(1));
    let mut h = Harness::with(a, b);
    h.delay = SimDuration::from_ms(25);
    h.rate_bps = Some(10_000_000);
    h.handshake();
    assert!(h.transfer(3_000_000, secs(30)));
    let c = h.a.cc();
    let ssthresh = (c.ssthresh() != u64::MAX).then(|| c.ssthresh() / mss);
    (c.cwnd() / mss, ssthresh)
}

/// BDP = 10 Mb/s · 50 ms = 43 segments of 1448 B. Slow start sends each window at twice the
/// bottleneck's rate in the ACK train of the previous one, so a round's first segments find
/// the link idle until the previous window exceeds the BDP: rounds of 10, 20, 40 and 80
/// segments all have a minimum RTT of 52.4 ms, and the round of 160 is the first whose
/// minimum is above 52.4 + 6.55 ms. Linux's HyStart ends slow start on its ninth sample
/// (cwnd 160 + 8 ACKs · 2 = 176); HyStart++ enters CSS there and grows by a quarter for five
/// rounds (exit at 513); without either, the 3 MB go out in slow start (cwnd 2050).
#[test]
fn cubic_leaves_slow_start_on_the_rising_rtt_only_with_hystart() {
    for (name, exit_at) in [("cubic-linux", 176), ("cubic", 513)] {
        let (cwnd_off, ssthresh_off) = slow_start_exit(name, Some(false));
        assert_eq!((cwnd_off, ssthresh_off), (2050, None), "{name}");
        let (cwnd_on, ssthresh_on) = slow_start_exit(name, None);
        assert_eq!(ssthresh_on, Some(exit_at), "{name}: cwnd {cwnd_on}");
        assert!(cwnd_on < exit_at + 10, "{name}: {cwnd_on}");
    }
}
