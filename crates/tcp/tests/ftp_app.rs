//! The FTP application's request spacing, driven against a stand-in connection whose transfer
//! takes a set time, with a seeded random stream: think times (from the end of a transfer) and
//! inter-request times (between request starts, late starts when a transfer overruns).

use celltcp_engine::{RngStream, SimDuration, SimTime};
use celltcp_tcp::app::{AppRequest, Connection, FileSize, Ftp, TcpApplication};
use celltcp_tcp::TcpState;

/// A connection that accepts every byte at once and has everything acknowledged `duration`
/// after it was opened, once closed.
struct TimedConn {
    done_at: SimTime,
    written: u64,
    closed: bool,
    now: SimTime,
}

impl Connection for TimedConn {
    fn write(&mut self, bytes: u64) -> u64 {
        self.written += bytes;
        bytes
    }
    fn send_space(&self) -> u64 {
        u64::MAX / 2
    }
    fn close(&mut self) {
        self.closed = true;
    }
    fn state(&self) -> TcpState {
        TcpState::Established
    }
    fn all_acked(&self) -> bool {
        self.closed && self.now >= self.done_at
    }
}

/// Runs `ftp` until `end` with transfers lasting `duration`; returns (start, end) of each
/// finished transfer.
fn drive(
    ftp: &mut Ftp,
    duration: SimDuration,
    end: SimTime,
    rng: &mut RngStream,
) -> Vec<(SimTime, SimTime)> {
    let mut now = SimTime::ZERO;
    let mut conn: Option<TimedConn> = None;
    let mut spans = Vec::new();
    let mut finished = 0;
    while now <= end {
        // As the agent does: a new connection is handed to the next poll of the same instant.
        for _ in 0..4 {
            if let Some(c) = conn.as_mut() {
                c.now = now;
            }
            let request = ftp.poll(now, conn.as_mut().map(|c| c as &mut dyn Connection), rng);
            if request == AppRequest::Connect {
                conn = Some(TimedConn {
                    done_at: now + duration,
                    written: 0,
                    closed: false,
                    now,
                });
            } else {
                break;
            }
        }
        if ftp.transfer_times.len() > finished {
            finished = ftp.transfer_times.len();
            let start = *ftp
                .request_starts
                .get(finished - 1)
                .expect("a start per transfer");
            spans.push((start, now));
        }
        let pending = conn
            .as_ref()
            .filter(|c| !(c.closed && now >= c.done_at))
            .map(|c| c.done_at);
        let Some(next) = ftp.next_timer().into_iter().chain(pending).min() else {
            break;
        };
        assert!(next >= now, "time went back: {next:?} < {now:?}");
        now = next;
    }
    spans
}

fn secs(s: f64) -> SimDuration {
    SimDuration::from_secs_f64(s)
}

fn at(s: f64) -> SimTime {
    SimTime::ZERO + secs(s)
}

fn entry(ftp: &Ftp, key: &str) -> Option<f64> {
    let mut out = Vec::new();
    ftp.report(SimTime::ZERO, &mut out);
    out.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

/// Replays the draws: with a fixed file size each request draws one exponential, so request
/// k + 1 is due at start_k + X_k and starts at max(due, end_k).
fn expected_starts(
    spans: &[(SimTime, SimTime)],
    mean: SimDuration,
    seed: u64,
) -> (Vec<SimTime>, u64) {
    let mut rng = RngStream::from_seed(seed);
    let mut starts = vec![SimTime::ZERO];
    let mut late = 0;
    for &(start, end) in spans {
        let due = start + secs(rng.exponential(mean.as_secs_f64()));
        if due < end {
            late += 1;
        }
        starts.push(due.max(end));
    }
    (starts, late)
}

#[test]
fn short_transfers_start_one_inter_request_time_apart_on_average() {
    let mean = secs(1.0);
    let mut ftp = Ftp::with_inter_request(FileSize::Fixed(10_000), mean);
    let mut rng = RngStream::from_seed(7);
    let spans = drive(&mut ftp, secs(0.01), at(5_000.0), &mut rng);
    assert!(spans.len() > 4_000, "{}", spans.len());
    let (starts, late) = expected_starts(&spans, mean, 7);
    assert_eq!(ftp.request_starts[..], starts[..ftp.request_starts.len()]);
    assert_eq!(ftp.requests_delayed, late);
    // Spacing is measured from request start, not from transfer end: the mean gap stays at the
    // configured 1 s (standard error ≈ 1/√5000 ≈ 1.4 %), not 1.01 s.
    let m = ftp.mean_inter_request_s().unwrap();
    assert!((m - 1.0).abs() < 0.05, "{m}");
    // P(X < 10 ms) = 1 − e^−0.01 ≈ 1 %.
    let share = late as f64 / spans.len() as f64;
    assert!(share > 0.002 && share < 0.025, "{share}");
    assert_eq!(
        entry(&ftp, "ftp_requests"),
        Some(ftp.request_starts.len() as f64)
    );
    assert_eq!(entry(&ftp, "ftp_requests_delayed"), Some(late as f64));
    assert_eq!(entry(&ftp, "ftp_mean_inter_request_s"), Some(m));
    assert_eq!(ftp.inter_request_mean(), Some(mean));
    assert_eq!(ftp.think_time_mean(), None);
}

#[test]
fn transfers_longer_than_the_draws_run_back_to_back_without_overlap() {
    let mean = secs(1.0);
    let duration = secs(5.0);
    let mut ftp = Ftp::with_inter_request(FileSize::Fixed(10_000), mean);
    let mut rng = RngStream::from_seed(11);
    let spans = drive(&mut ftp, duration, at(2_000.0), &mut rng);
    let (starts, late) = expected_starts(&spans, mean, 11);
    assert_eq!(ftp.request_starts[..], starts[..ftp.request_starts.len()]);
    assert_eq!(ftp.requests_delayed, late);
    // P(X < 5 s) = 1 − e^−5 ≈ 99.3 %: nearly every request waits for the previous transfer.
    assert!(
        late as f64 > 0.97 * spans.len() as f64,
        "{late} of {}",
        spans.len()
    );
    for (w, &(start, end)) in ftp.request_starts.windows(2).zip(&spans) {
        assert_eq!(w[0], start);
        assert_eq!(end, start + duration);
        // Never before the previous transfer ends: one file at a time on the flow.
        assert!(w[1] >= end);
    }
    let m = ftp.mean_inter_request_s().unwrap();
    // E[max(X, 5 s)] = 5 + e^−5 ≈ 5.0067 s.
    assert!((m - 5.0067).abs() < 0.01, "{m}");
}

#[test]
fn think_times_run_from_the_end_of_each_transfer() {
    let mean = secs(1.0);
    let mut ftp = Ftp::new(FileSize::Fixed(10_000), mean);
    let mut rng = RngStream::from_seed(3);
    let spans = drive(&mut ftp, secs(0.5), at(1_000.0), &mut rng);
    assert!(spans.len() > 500, "{}", spans.len());
    let mut replay = RngStream::from_seed(3);
    for (w, &(_, end)) in ftp.request_starts.windows(2).zip(&spans) {
        assert_eq!(w[1], end + secs(replay.exponential(mean.as_secs_f64())));
    }
    assert_eq!(ftp.requests_delayed, 0);
    // Think-time summaries keep their former keys only.
    assert_eq!(entry(&ftp, "ftp_requests"), None);
    assert_eq!(entry(&ftp, "ftp_requests_delayed"), None);
    assert_eq!(entry(&ftp, "ftp_transfers"), Some(spans.len() as f64));
    assert_eq!(ftp.think_time_mean(), Some(mean));
}

#[test]
fn random_file_sizes_are_drawn_before_the_inter_request_time() {
    // Exponential sizes draw one number per request, then the inter-request time draws one.
    let mean = secs(2.0);
    let mut ftp = Ftp::with_inter_request(FileSize::Exponential { mean: 50_000 }, mean);
    let mut rng = RngStream::from_seed(5);
    let spans = drive(&mut ftp, secs(0.1), at(200.0), &mut rng);
    assert!(spans.len() > 50, "{}", spans.len());
    let mut replay = RngStream::from_seed(5);
    for (w, (&(start, end), &size)) in ftp
        .request_starts
        .windows(2)
        .zip(spans.iter().zip(&ftp.transfer_sizes))
    {
        assert_eq!(
            FileSize::Exponential { mean: 50_000 }.sample(&mut replay),
            size
        );
        let due = start + secs(replay.exponential(mean.as_secs_f64()));
        assert_eq!(w[1], due.max(end));
    }
}
