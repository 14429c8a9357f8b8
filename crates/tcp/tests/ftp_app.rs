//! The FTP application's request spacing, driven against a stand-in connection whose transfer
//! takes a set time, with a seeded random stream: think times (from the end of a transfer) and
//! inter-request times (between request starts, late starts when a transfer overruns).

use celltcp_engine::{RngStream, SimDuration, SimTime};
use celltcp_tcp::app::{
    AppRequest, Connection, FileReceipts, FileSize, Ftp, TcpApplication, RECEIPT_POLL,
};
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
/// k + 1 is due at due_k + X_k (a schedule independent of the transfers) and starts at
/// max(due, end_k).
fn expected_starts(
    spans: &[(SimTime, SimTime)],
    mean: SimDuration,
    seed: u64,
) -> (Vec<SimTime>, u64) {
    let mut rng = RngStream::from_seed(seed);
    let mut starts = vec![SimTime::ZERO];
    let mut due = SimTime::ZERO;
    let mut late = 0;
    for &(_, end) in spans {
        due += secs(rng.exponential(mean.as_secs_f64()));
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
    // The schedule offers a file every second on average and each takes 5 s: the requests fall
    // ever further behind it and run back to back, 5 s apart.
    let m = ftp.mean_inter_request_s().unwrap();
    assert!((m - 5.0).abs() < 0.01, "{m}");
    for (k, (&start, &due)) in ftp.request_starts.iter().zip(&ftp.request_due).enumerate() {
        assert!(start >= due, "request {k} started before it was due");
    }
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
    let mut due = SimTime::ZERO;
    for (w, (&(_, end), &size)) in ftp
        .request_starts
        .windows(2)
        .zip(spans.iter().zip(&ftp.transfer_sizes))
    {
        assert_eq!(
            FileSize::Exponential { mean: 50_000 }.sample(&mut replay),
            size
        );
        due += secs(replay.exponential(mean.as_secs_f64()));
        assert_eq!(w[1], due.max(end));
    }
}

/// Runs `ftp` until `end` against connections whose data and FIN are acknowledged `acked`
/// after the request (the server's view; a split-TCP proxy's local ACKs make it short) while
/// the mobile host has the whole file `received` after it, recorded in `receipts`. As in a
/// run, the receipt does not wake the application: it is polled at its own timer and when its
/// connection's state changes.
fn drive_with_receipts(
    ftp: &mut Ftp,
    acked: SimDuration,
    received: SimDuration,
    end: SimTime,
    receipts: &FileReceipts,
    rng: &mut RngStream,
) {
    let mut now = SimTime::ZERO;
    let mut conn: Option<TimedConn> = None;
    let mut pending_receipt: Option<SimTime> = None;
    while now <= end {
        if pending_receipt.is_some_and(|t| t <= now) {
            receipts.record(now, 1);
            pending_receipt = None;
        }
        for _ in 0..4 {
            if let Some(c) = conn.as_mut() {
                c.now = now;
            }
            let request = ftp.poll(now, conn.as_mut().map(|c| c as &mut dyn Connection), rng);
            if request == AppRequest::Connect {
                conn = Some(TimedConn {
                    done_at: now + acked,
                    written: 0,
                    closed: false,
                    now,
                });
                pending_receipt = Some(now + received);
            } else {
                break;
            }
        }
        let acked_at = conn
            .as_ref()
            .filter(|c| !(c.closed && now >= c.done_at))
            .map(|c| c.done_at);
        let Some(next) = ftp
            .next_timer()
            .into_iter()
            .chain(acked_at)
            .chain(pending_receipt)
            .min()
        else {
            break;
        };
        assert!(next >= now, "time went back: {next:?} < {now:?}");
        now = next;
    }
}

#[test]
fn a_proxy_arm_and_an_end_to_end_arm_request_the_same_files_at_the_same_times() {
    // The same seed, the mobile host receiving each file 20 s after its request in both arms;
    // the server sees its transfer acknowledged after 1 s through a proxy, after 20.3 s end to
    // end. Requests come 30 s apart on average, so some fall due before the previous file is in.
    let mean = secs(30.0);
    let size = FileSize::Exponential { mean: 100_000 };
    let arm = |acked: f64| {
        let receipts = FileReceipts::new();
        let mut ftp = Ftp::with_inter_request(size, mean).with_receipts(receipts.clone());
        let mut rng = RngStream::from_seed(13);
        drive_with_receipts(
            &mut ftp,
            secs(acked),
            secs(20.0),
            at(3_600.0),
            &receipts,
            &mut rng,
        );
        ftp
    };
    let (proxy, e2e) = (arm(1.0), arm(20.3));
    assert!(
        proxy.request_starts.len() > 100,
        "{}",
        proxy.request_starts.len()
    );
    assert_eq!(proxy.request_sizes, e2e.request_sizes);
    assert_eq!(proxy.request_due, e2e.request_due);
    assert_eq!(proxy.request_starts, e2e.request_starts);
    assert_eq!(proxy.requests_delayed, e2e.requests_delayed);
    assert!(proxy.requests_delayed > 10, "{}", proxy.requests_delayed);
    // Held requests start at the first poll after the receipt: within RECEIPT_POLL of it.
    for (k, w) in proxy.request_starts.windows(2).enumerate() {
        let got = w[0] + secs(20.0);
        let due = proxy.request_due[k + 1];
        assert!(
            w[1] >= due.max(got) && w[1] <= due.max(got) + RECEIPT_POLL,
            "request {}",
            k + 1
        );
    }
    // Every file's time is the mobile host's: 20 s in both arms.
    assert_eq!(proxy.file_times(), e2e.file_times());
    assert!(proxy.file_times().iter().all(|&t| t == secs(20.0)));
    for key in [
        "ftp_requests",
        "ftp_requested_bytes",
        "ftp_request_times_sum_s",
        "ftp_hold_s",
    ] {
        assert_eq!(entry(&proxy, key), entry(&e2e, key), "{key}");
    }
    // The schedule itself does not depend on the transfers: the sizes and due times replay
    // from the stream alone.
    let mut replay = RngStream::from_seed(13);
    let mut due = SimTime::ZERO;
    for (&s, &d) in proxy.request_sizes.iter().zip(&proxy.request_due) {
        assert_eq!(d, due);
        assert_eq!(size.sample(&mut replay), s);
        due += secs(replay.exponential(30.0));
    }
}

#[test]
fn gated_on_the_servers_acknowledgement_a_proxy_arm_would_ask_for_more_files() {
    // Without the receipt record a file is done at the server's last acknowledgement: with the
    // proxy's 1 s the arm runs ahead of the end-to-end one, which is why the scenario builder
    // attaches the mobile host's receipts.
    let mean = secs(10.0);
    let arm = |acked: f64| {
        let mut ftp = Ftp::with_inter_request(FileSize::Fixed(100_000), mean);
        let mut rng = RngStream::from_seed(17);
        drive(&mut ftp, secs(acked), at(3_600.0), &mut rng);
        ftp
    };
    let (early, late) = (arm(1.0), arm(20.0));
    assert!(
        early.request_starts.len() as f64 > 1.5 * late.request_starts.len() as f64,
        "{} vs {}",
        early.request_starts.len(),
        late.request_starts.len()
    );
}
