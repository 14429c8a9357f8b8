//! Model-based fuzzing of the endpoint: a sender A and a receiver B joined by a network that
//! drops, reorders (random extra delay), duplicates, truncates (the payload cut short, as a
//! re-segmenting middlebox would, FIN removed) and CE-marks segments in both directions, under
//! random configurations (SACK, timestamps, window scaling, delayed ACK, F-RTO, Eifel, ECN,
//! limited transmit, small receive and send buffers, wrapping ISNs) and every controller of
//! `cc::NAMES`, with a receiving application that reads at random moments so that the
//! receive window closes and reopens.
//!
//! A model next to the endpoints knows what was written, sent and delivered, and checks after
//! every segment and every event:
//!
//! * delivery: the bytes B's application takes are exactly the in-order prefix of the stream
//!   (`delivered = RCV.NXT − 1 − FIN`), never more than A's application wrote, each once; at
//!   the end all of them, and both ends CLOSED with no timer left;
//! * sequence space (RFC 9293 §3.3.1): SND.UNA ≤ SND.NXT ≤ end of the written stream; B never
//!   acknowledges what A has not sent; RCV.NXT never moves back;
//! * windows: new data starts at SND.NXT and ends within SND.UNA + SND.WND (RFC 9293 §3.8.6);
//!   a transmission with data in flight keeps pipe within cwnd (RFC 6675 §5, plus RFC 3042's
//!   2·SMSS for limited transmit and RFC 5682's two new segments for F-RTO); no retransmission
//!   below SND.UNA; B's advertised right edge never moves left (RFC 7323 §2.4, up to the
//!   scaling granule) and B accepts nothing beyond it; RFC 6675 pipe ≤ 2·(SND.NXT − SND.UNA);
//! * no progress-free loops: while data is outstanding a retransmission timer runs (RFC 6298
//!   §5.1) or the pacer holds a transmission; at most `MAX_SAME_INSTANT` segments from one
//!   endpoint in one instant, at most `MAX_IDLE_EVENTS` events without progress (SND.UNA,
//!   RCV.NXT, a read, a state change), at most `MAX_EVENTS_BASE` + `MAX_EVENTS_PER_SEGMENT`
//!   events per MSS of data in a whole case, and termination within the simulated-time limit.
//!
//! `cargo test` runs 128 cases; `CELLTCP_FUZZ_CASES=N` runs N (see docs/reliability.md for the
//! long run and its count); `CELLTCP_FUZZ_STATS=1` prints each case's events per segment.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use celltcp_engine::{RngStream, SimDuration, SimTime};
use celltcp_net::packet::FlowId;
use celltcp_net::packet::{Ecn, Packet, TcpFlags, Transport};
use celltcp_net::trace::Traces;
use proptest::prelude::*;

use super::*;
use crate::cc;
use crate::spurious::FrtoStep;

/// Segments one endpoint may emit in one instant before the run is called a livelock.
const MAX_SAME_INSTANT: u64 = 20_000;
/// Events (arrivals and timer expiries, reads excluded) allowed for a whole case: a base for the
/// handshake, the close and zero-window probing, plus so many per MSS of data (the most seen
/// in 200,000 cases was 23 per MSS).
const MAX_EVENTS_BASE: u64 = 20_000;
const MAX_EVENTS_PER_SEGMENT: u64 = 200;
/// Events (arrivals and timer expiries) allowed without any progress.
const MAX_IDLE_EVENTS: u64 = 200_000;

/// Cases per property: `CELLTCP_FUZZ_CASES`, else `default`.
pub(crate) fn fuzz_cases(default: u32) -> u32 {
    std::env::var("CELLTCP_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What the network does to each segment, drawn independently per segment.
#[derive(Clone, Copy, Debug)]
pub struct Faults {
    pub drop: f64,
    pub reorder: f64,
    pub duplicate: f64,
    pub truncate: f64,
    pub ce: f64,
    /// Largest extra delay of a reordered segment.
    pub max_extra_us: u64,
}

fn faults() -> impl Strategy<Value = Faults> {
    (
        prop_oneof![Just(0.0), 0.0f64..0.05, 0.0f64..0.25],
        prop_oneof![Just(0.0), 0.0f64..0.3],
        prop_oneof![Just(0.0), 0.0f64..0.1],
        prop_oneof![Just(0.0), 0.0f64..0.1],
        prop_oneof![Just(0.0), 0.0f64..0.05],
        prop_oneof![Just(2_000u64), Just(60_000), Just(400_000)],
    )
        .prop_map(
            |(drop, reorder, duplicate, truncate, ce, max_extra_us)| Faults {
                drop,
                reorder,
                duplicate,
                truncate,
                ce,
                max_extra_us,
            },
        )
}

/// A random endpoint configuration (before validation).
fn config() -> impl Strategy<Value = TcpConfig> {
    (
        (
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            prop::option::of(prop_oneof![Just(40u64), Just(200)]),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        ),
        (
            any::<bool>(),
            prop_oneof![Just(536u32), Just(1000), Just(1460)],
            1u32..=10,
            prop_oneof![
                Just(3_000u64),
                Just(8_000),
                Just(65_535),
                Just(300_000),
                Just(4 << 20)
            ],
            prop_oneof![Just(5_000u64), Just(64_000), Just(4 << 20)],
            prop_oneof![Just(0u32), Just(u32::MAX - 3_000), any::<u32>()],
        ),
    )
        .prop_map(
            |(
                (sack, timestamps, window_scale, delack, frto, eifel, ecn, limited_transmit),
                (detect_lost_retransmissions, mss, initial_window, rcv_buf, snd_buf, isn),
            )| TcpConfig {
                sack,
                timestamps,
                window_scale,
                delayed_ack: delack.map(SimDuration::from_ms),
                frto,
                eifel,
                ecn,
                limited_transmit,
                detect_lost_retransmissions,
                mss,
                initial_window,
                rcv_buf_bytes: rcv_buf,
                snd_buf_bytes: snd_buf,
                isn,
                min_rto: SimDuration::from_ms(200),
                ..TcpConfig::default()
            },
        )
}

/// One fuzz case.
#[derive(Clone, Debug)]
pub struct Case {
    pub seed: u64,
    pub cfg: TcpConfig,
    pub cc: &'static str,
    pub faults: Faults,
    pub total: u64,
    /// Mean interval between the reads of B's application, µs (0: it reads at every event).
    pub read_every_us: u64,
    /// One-way delay of the path.
    pub delay_us: u64,
    /// A→B bottleneck, bits/s (None: infinite).
    pub rate_bps: Option<u64>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        any::<u64>(),
        config(),
        0usize..cc::NAMES.len(),
        faults(),
        prop_oneof![1u64..3_000, 1u64..400_000],
        prop_oneof![Just(0u64), Just(5_000), Just(300_000)],
        prop_oneof![Just(100u64), Just(20_000), Just(150_000)],
        prop_oneof![Just(None), Just(Some(2_000_000u64)), Just(Some(50_000_000))],
    )
        .prop_map(
            |(seed, cfg, which, faults, total, read_every_us, delay_us, rate_bps)| Case {
                seed,
                cfg,
                cc: cc::NAMES[which],
                faults,
                total,
                read_every_us,
                delay_us,
                rate_bps,
            },
        )
}

/// The network and the application models around the two endpoints.
pub struct World {
    pub now: SimTime,
    pub a: TcpEndpoint,
    pub b: TcpEndpoint,
    traces: Traces,
    events: BinaryHeap<Reverse<(SimTime, u64, bool)>>,
    packets: Vec<Option<Packet>>,
    rng: RngStream,
    case: Case,
    link_free: SimTime,
    /// When B's application reads next (with `read_every_us` > 0).
    next_read: SimTime,
    // The model.
    /// Bytes A's application has written (accepted by the send buffer).
    pub written: u64,
    /// Bytes B's application has taken.
    pub delivered: u64,
    /// Largest SND.NXT A reached.
    snd_max: u64,
    /// Last RCV.NXT seen at B.
    rcv_nxt: u64,
    /// Right edge of the largest window B advertised (offset in A's sequence space).
    right_edge: u64,
    /// Events handled, and since the last progress.
    pub handled: u64,
    /// Of which reads by B's application.
    reads: u64,
    idle: u64,
    progress_mark: (u64, u64, u64, TcpState, TcpState),
}

/// The state an A transmission is judged against.
#[derive(Clone, Copy, Debug)]
struct Before {
    snd_una: u64,
    snd_nxt: u64,
    snd_wnd: u64,
    pipe: u64,
    cwnd: u64,
    allowance: u64,
    frto_bypass: bool,
    retransmit_now: bool,
    synchronized: bool,
}

impl World {
    pub fn new(case: Case) -> Self {
        let c = case.cfg;
        let a = TcpEndpoint::connect(
            c,
            cc::build(case.cc, &c.cc_config()).unwrap(),
            A,
            B,
            FlowId(1),
            SimTime::ZERO,
        );
        let b_cfg = TcpConfig {
            isn: c.isn.wrapping_mul(2_654_435_761),
            ..c
        };
        let b = TcpEndpoint::listen(
            b_cfg,
            cc::build(case.cc, &b_cfg.cc_config()).unwrap(),
            B,
            FlowId(1),
        );
        World {
            now: SimTime::ZERO,
            a,
            b,
            traces: Traces::new(&[]),
            events: BinaryHeap::new(),
            packets: Vec::new(),
            rng: RngStream::new(case.seed, 0, "tests/tcp-fuzz"),
            case,
            link_free: SimTime::ZERO,
            next_read: SimTime::ZERO,
            written: 0,
            delivered: 0,
            snd_max: 0,
            rcv_nxt: 1,
            right_edge: 0,
            handled: 0,
            reads: 0,
            idle: 0,
            progress_mark: (0, 0, 0, TcpState::SynSent, TcpState::Listen),
        }
    }

    fn before(&self) -> Before {
        let a = &self.a;
        Before {
            snd_una: a.send_window().una(),
            snd_nxt: a.send_window().nxt(),
            snd_wnd: a.send_window().wnd(),
            pipe: a.send_buffer().pipe(),
            cwnd: a.effective_cwnd(),
            allowance: a.limited_transmit_allowance(),
            frto_bypass: a.spurious().frto_step() == FrtoStep::AwaitSecondAck,
            retransmit_now: a.recovery().retransmit_now(),
            synchronized: a.state().is_synchronized(),
        }
    }

    /// Checks one segment A emitted against the state before it.
    fn check_a_segment(&mut self, b: &Before, p: &Packet) -> Result<(), TestCaseError> {
        let h = p.tcp().unwrap();
        let len = p.payload_len as u64 + h.flags.contains(TcpFlags::FIN) as u64;
        if !b.synchronized || len == 0 {
            return Ok(());
        }
        let off = h.seq.wrapping_sub(self.a.iss()) as u64;
        let end = off + len;
        if end > b.snd_nxt {
            prop_assert_eq!(off, b.snd_nxt, "new data must start at SND.NXT");
            prop_assert!(
                off + p.payload_len as u64 <= b.snd_una + b.snd_wnd,
                "new data [{}, {}) beyond SND.UNA + SND.WND = {}",
                off,
                end,
                b.snd_una + b.snd_wnd
            );
            prop_assert!(
                b.pipe == 0 || b.pipe + len <= b.cwnd + b.allowance || b.frto_bypass,
                "new data with pipe {} + {} over cwnd {} + {}",
                b.pipe,
                len,
                b.cwnd,
                b.allowance
            );
        } else {
            prop_assert!(
                off >= b.snd_una,
                "retransmission at {off} below SND.UNA {}",
                b.snd_una
            );
            prop_assert!(
                b.pipe == 0 || b.pipe + len <= b.cwnd || b.retransmit_now,
                "retransmission with pipe {} + {} over cwnd {}",
                b.pipe,
                len,
                b.cwnd
            );
        }
        Ok(())
    }

    /// Checks one segment B emitted: it acknowledges only what A sent, and its window's right
    /// edge never moves left by a scaling granule or more.
    fn check_b_segment(&mut self, p: &Packet) -> Result<(), TestCaseError> {
        let h = p.tcp().unwrap();
        // A reset (B closed, answering a stray segment) offers no window.
        if !h.flags.contains(TcpFlags::ACK) || h.flags.contains(TcpFlags::RST) {
            return Ok(());
        }
        let ack = h.ack.wrapping_sub(self.a.iss()) as u64;
        prop_assert!(
            ack <= self.snd_max,
            "B acknowledges {ack} beyond SND.MAX {}",
            self.snd_max
        );
        let syn = h.flags.contains(TcpFlags::SYN);
        let shift = if syn || !self.b.negotiated().window_scale {
            0
        } else {
            self.b.receiver().wscale()
        };
        let edge = ack + ((h.window as u64) << shift);
        let granule = 1u64 << shift;
        prop_assert!(
            edge + granule > self.right_edge,
            "B's window right edge moved left: {} after {}",
            edge,
            self.right_edge
        );
        self.right_edge = self.right_edge.max(edge);
        Ok(())
    }

    fn feed_app(&mut self) {
        let want = self.case.total - self.written;
        if want > 0 {
            self.written += self.a.write(want);
        }
        if self.written == self.case.total && self.a.state() == TcpState::Established {
            self.a.close();
        }
    }

    /// Lets both endpoints transmit until they are quiet, checking every segment.
    fn pump(&mut self) -> Result<(), TestCaseError> {
        loop {
            self.feed_app();
            let mut any = false;
            let mut n = 0u64;
            loop {
                let before = self.before();
                let Some(p) = self.a.poll_transmit(self.now, &mut self.traces) else {
                    break;
                };
                // The SYN occupies offset 0 (RCV.NXT 1 acknowledges it).
                let syn = p.tcp().unwrap().flags.contains(TcpFlags::SYN) as u64;
                self.snd_max = self.snd_max.max(self.a.send_window().nxt()).max(syn);
                self.check_a_segment(&before, &p)?;
                self.transmit(true, p);
                n += 1;
                prop_assert!(
                    n < MAX_SAME_INSTANT,
                    "A emits without end at {:?}",
                    self.now
                );
                any = true;
            }
            n = 0;
            while let Some(p) = self.b.poll_transmit(self.now, &mut self.traces) {
                self.check_b_segment(&p)?;
                self.transmit(false, p);
                n += 1;
                prop_assert!(
                    n < MAX_SAME_INSTANT,
                    "B emits without end at {:?}",
                    self.now
                );
                any = true;
            }
            if self.b.state() == TcpState::CloseWait {
                self.b.close();
                any = true;
            }
            if !any {
                return Ok(());
            }
        }
    }

    fn transmit(&mut self, to_b: bool, mut p: Packet) {
        let f = self.case.faults;
        let delay = SimDuration::from_us(self.case.delay_us);
        let mut at = self.now + delay;
        if to_b {
            if let Some(rate) = self.case.rate_bps {
                let start = self.link_free.max(self.now);
                self.link_free = start + SimDuration::transmission(p.size_bytes() as u64, rate);
                at = self.link_free + delay;
            }
        }
        if self.rng.bernoulli(f.drop) {
            return;
        }
        if self.rng.bernoulli(f.reorder) {
            at += SimDuration::from_us(self.rng.below(f.max_extra_us));
        }
        if p.payload_len > 0 && self.rng.bernoulli(f.truncate) {
            // The tail is cut: the segment now ends before the FIN it carried.
            p.payload_len = self.rng.below(p.payload_len as u64) as u32;
            if let Transport::Tcp(h) = &mut p.transport {
                h.flags.remove(TcpFlags::FIN);
            }
        }
        if p.ip.ecn.is_ect() && self.rng.bernoulli(f.ce) {
            p.ip.ecn = Ecn::Ce;
        }
        let copies = 1 + self.rng.bernoulli(f.duplicate) as usize;
        for k in 0..copies {
            let id = self.packets.len() as u64;
            self.packets.push(Some(p));
            let extra = SimDuration::from_us(k as u64 * self.rng.below(f.max_extra_us + 1));
            self.events.push(Reverse((at + extra, id, to_b)));
        }
    }

    /// Checks that hold between events.
    fn check_state(&mut self) -> Result<(), TestCaseError> {
        let a = &self.a;
        prop_assert!(
            a.send_window().una() <= a.send_window().nxt(),
            "SND.UNA {} > SND.NXT {}",
            a.send_window().una(),
            a.send_window().nxt()
        );
        if a.state().is_synchronized() {
            prop_assert!(
                a.send_window().nxt() <= a.send_buffer().stream_end(),
                "SND.NXT {} beyond the stream's end {}",
                a.send_window().nxt(),
                a.send_buffer().stream_end()
            );
        }
        // RFC 6298 §5.1: while data is outstanding the retransmission timer runs (or the pacer
        // holds a transmission that will start it), or nothing would ever resend it.
        if a.state().is_synchronized() && a.state() != TcpState::TimeWait {
            prop_assert!(
                a.send_window().una() >= a.send_window().nxt()
                    || a.rtt_estimator().timer_deadline().is_some()
                    || a.pacing_blocked(),
                "[{}, {}) outstanding without a retransmission timer at {:?}",
                a.send_window().una(),
                a.send_window().nxt(),
                self.now
            );
        }
        let outstanding = a.send_window().nxt() - a.send_window().una();
        prop_assert!(
            a.bytes_in_flight() <= 2 * outstanding,
            "pipe {} over twice the outstanding {}",
            a.bytes_in_flight(),
            outstanding
        );
        prop_assert_eq!(a.send_buffer().written(), self.written);
        let mss = a.negotiated().mss as u64;
        prop_assert!(
            a.cc().cwnd() >= mss.min(a.config().mss as u64),
            "cwnd {} below one MSS",
            a.cc().cwnd()
        );
        let rcv_nxt = self.b.receiver().rcv_nxt();
        prop_assert!(
            rcv_nxt >= self.rcv_nxt,
            "RCV.NXT moved back: {} after {}",
            rcv_nxt,
            self.rcv_nxt
        );
        self.rcv_nxt = rcv_nxt;
        let data_end = rcv_nxt - 1 - self.b.receiver().fin_received() as u64;
        prop_assert!(
            data_end <= self.written,
            "B holds {} bytes in order, A wrote {}",
            data_end,
            self.written
        );
        if self.b.state().is_synchronized() {
            prop_assert!(
                data_end <= self.right_edge.max(1),
                "B accepted data up to {} beyond its advertised right edge {}",
                data_end,
                self.right_edge
            );
        }
        prop_assert!(self.delivered <= data_end);
        Ok(())
    }

    /// B's application reads: what it takes is exactly the in-order data.
    fn read(&mut self) -> Result<(), TestCaseError> {
        self.delivered += self.b.take_delivered();
        if self.case.read_every_us > 0 {
            let gap = 1 + self.rng.below(2 * self.case.read_every_us);
            self.next_read = self.now + SimDuration::from_us(gap);
        }
        if (self.b.state().is_synchronized() || self.b.state() == TcpState::Closed)
            && self.b.receiver().rcv_nxt() > 1
        {
            let in_order =
                self.b.receiver().rcv_nxt() - 1 - self.b.receiver().fin_received() as u64;
            prop_assert_eq!(self.delivered, in_order, "delivered ≠ RCV.NXT − 1 − FIN");
        }
        Ok(())
    }

    /// One event; false when nothing is left to happen before `limit`.
    fn step(&mut self, limit: SimTime) -> Result<bool, TestCaseError> {
        self.pump()?;
        let next_pkt = self.events.peek().map(|Reverse((t, _, _))| *t);
        let ta = self.a.poll_timeout();
        let tb = self.b.poll_timeout();
        // The application's reads are events only while there is something to read.
        let tr = (self.case.read_every_us > 0 && self.b.receiver().rcv_nxt() > 1 + self.delivered)
            .then_some(self.next_read.max(self.now));
        let Some(t) = [next_pkt, ta, tb, tr].into_iter().flatten().min() else {
            return Ok(false);
        };
        if t > limit {
            return Ok(false);
        }
        prop_assert!(
            t >= self.now,
            "a timer in the past: {:?} < {:?}",
            t,
            self.now
        );
        self.now = t;
        if next_pkt == Some(t) {
            let Reverse((_, id, to_b)) = self.events.pop().unwrap();
            let p = self.packets[id as usize].take().unwrap();
            if to_b {
                self.b.on_segment(self.now, &p, &mut self.traces);
            } else {
                self.a.on_segment(self.now, &p, &mut self.traces);
            }
        } else if ta == Some(t) {
            self.a.on_timeout(self.now, &mut self.traces);
        } else if tb == Some(t) {
            self.b.on_timeout(self.now, &mut self.traces);
        } else {
            self.read()?;
            self.reads += 1;
        }
        self.handled += 1;
        if self.case.read_every_us == 0 {
            self.read()?;
        }
        self.pump()?;
        self.check_state()?;
        let mark = (
            self.a.send_window().una(),
            self.b.receiver().rcv_nxt(),
            self.delivered,
            self.a.state(),
            self.b.state(),
        );
        if mark != self.progress_mark {
            self.progress_mark = mark;
            self.idle = 0;
        } else {
            self.idle += 1;
            prop_assert!(
                self.idle < MAX_IDLE_EVENTS,
                "{} events without progress at {:?} (A {:?}, B {:?})",
                self.idle,
                self.now,
                self.a.state(),
                self.b.state()
            );
        }
        Ok(true)
    }

    /// Runs the case to its end and checks the outcome.
    pub fn run(&mut self) -> Result<(), TestCaseError> {
        let limit = SimTime::ZERO + SimDuration::from_secs(20_000);
        while self.step(limit)? {
            if self.a.state() == TcpState::Closed && self.b.state() == TcpState::Closed {
                break;
            }
        }
        self.read()?;
        prop_assert_eq!(
            (self.a.state(), self.b.state()),
            (TcpState::Closed, TcpState::Closed),
            "not closed by {:?}: {} of {} bytes delivered",
            self.now,
            self.delivered,
            self.case.total
        );
        prop_assert_eq!(self.delivered, self.case.total);
        prop_assert_eq!(self.b.stats().bytes_delivered, self.case.total);
        prop_assert_eq!(self.b.receiver().rcv_nxt(), self.case.total + 2);
        prop_assert!(self.a.all_acked());
        // Work per delivered segment: arrivals and timer expiries (the reads excluded, their
        // number is the model's choice) stay within a bound far above what loss, duplication
        // and a slow reader need (MAX_EVENTS_PER_SEGMENT, measured maximum in its comment).
        let segments = self.case.total / self.a.negotiated().mss as u64 + 1;
        let work = self.handled - self.reads;
        if std::env::var_os("CELLTCP_FUZZ_STATS").is_some() {
            eprintln!(
                "fuzz-stats events/segment {:.1}",
                work as f64 / segments as f64
            );
        }
        prop_assert!(
            work <= MAX_EVENTS_BASE + MAX_EVENTS_PER_SEGMENT * segments,
            "{} events for {} segments",
            work,
            segments
        );
        // Termination: once both are closed, no timer is left.
        prop_assert_eq!(self.a.poll_timeout(), None);
        prop_assert_eq!(self.b.poll_timeout(), None);
        Ok(())
    }
}

/// Runs one case (also the entry point of the regression tests).
pub fn run_case(case: Case) -> Result<(), TestCaseError> {
    if case.cfg.validate().is_err() {
        return Ok(());
    }
    World::new(case).run()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(fuzz_cases(128)))]

    /// Every controller, every option, every fault: the invariants of the module's header.
    #[test]
    fn fuzz_endpoint_pair(case in case()) {
        prop_assume!(case.cfg.validate().is_ok());
        run_case(case)?;
    }
}

/// Found by this fuzzing (50,000 cases): BBR's pacer held the retransmission due at an RTO
/// expiry; a SACK then moved F-RTO to step 2b, which waited for new data that sender SWS
/// avoidance would not send into an 80-byte window, with nothing in flight and, since the
/// timer was only restarted by a transmission, no timer: the connection stalled for good.
#[test]
fn rto_restarts_at_expiry_when_the_pacer_holds_the_retransmission() {
    let case = Case {
        seed: 1_288_311_270_886_911_230,
        cfg: TcpConfig {
            mss: 1460,
            initial_window: 1,
            delayed_ack: None,
            sack: true,
            timestamps: false,
            window_scale: false,
            limited_transmit: false,
            frto: true,
            detect_lost_retransmissions: false,
            rcv_buf_bytes: 3000,
            snd_buf_bytes: 5000,
            isn: 0,
            min_rto: SimDuration::from_ms(200),
            ..TcpConfig::default()
        },
        cc: "bbr",
        faults: Faults {
            drop: 0.0,
            reorder: 0.0,
            duplicate: 0.0,
            truncate: 0.054_754_767_967_282_23,
            ce: 0.0,
            max_extra_us: 2000,
        },
        total: 170_901,
        read_every_us: 5000,
        delay_us: 150_000,
        rate_bps: None,
    };
    run_case(case).unwrap();
}
