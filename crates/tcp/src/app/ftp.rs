//! Repeated file transfers, each on a new connection (so each starts in slow start again) — the
//! FTP model of the seed `001_…` ("Application: FTP, File Inter-Request time: exponential").
//!
//! Two ways to space the requests: an exponential think time from the end of one transfer to
//! the next request, or a schedule of requests with exponential times between them (the seed's
//! "inter-request time").
//!
//! **The schedule.** Request k + 1 is due at due_k + X_k, the first at the agent's start, with
//! the size of file k and then X_k drawn from the application's own random stream when request
//! k is made. The sizes and due times are therefore fixed by the seed and the run alone,
//! independent of how fast any transfer goes: two runs of one seed that differ only in the path
//! (with and without a split-TCP proxy, say) are offered the same files at the same times. This
//! is how the seed's workload is specified: "Inter-Request time" is the FTP attribute of OPNET's
//! standard application model, in which the start of the next request is the start of the
//! previous one plus the drawn time, independent of the response (Sethi & Hnatyshin, *The
//! Practical OPNET User Guide for Computer Network Simulation*, 2012, ch. 6, where the same rule
//! is stated for the transaction inter-arrival time of the database application).
//!
//! **One file at a time.** A flow carries one file at a time (the receiving host accepts one
//! connection at a time), so a request that falls due before the previous file is done waits
//! until it is, and starts then (counted as delayed; its wait is `ftp_hold_s`). "Done" is the
//! mobile host's receipt of the whole file when a [`FileReceipts`] record is attached (the
//! scenario builder attaches the receiving agent's), else the server's data and FIN being
//! acknowledged. The receipt is what makes the two arms of a proxy comparison equal: a proxy's
//! local ACKs end the server's transfer before the mobile host has the file, and a workload
//! gated on the server would ask for more files through the proxy. Requests made on time are
//! the same in both arms; a held one starts when the file arrives, at the first poll after it
//! (every [`RECEIPT_POLL`] while a request is due and held), and the schedule after it is
//! unchanged, so the arms are back in step once both have caught up.
//!
//! **Transfer time.** A file's transfer time runs from its request to its receipt by the mobile
//! host (to the server's last acknowledgement without a receipt record): the per-file time the
//! seed's users see, the same measure with and without a proxy.

use celltcp_engine::{RngStream, SimDuration, SimTime};
use celltcp_net::agent::ReportEntry;

use super::{AppRequest, Connection, FileReceipts, TcpApplication};

/// How often a request that is due checks whether the mobile host has received the previous
/// file (the receiving host cannot wake the server's application; the request then starts
/// within this time of the receipt, in every arm alike).
pub const RECEIPT_POLL: SimDuration = SimDuration::from_ms(10);

/// Distribution of the file size, bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FileSize {
    Fixed(u64),
    /// Exponential with this mean.
    Exponential {
        mean: u64,
    },
    /// Pareto with this mean and shape α > 1 (scale x_m = mean·(α − 1)/α).
    Pareto {
        mean: u64,
        shape: f64,
    },
}

impl FileSize {
    /// One size, at least one byte.
    pub fn sample(&self, rng: &mut RngStream) -> u64 {
        let x = match *self {
            FileSize::Fixed(v) => v as f64,
            FileSize::Exponential { mean } => rng.exponential(mean as f64),
            FileSize::Pareto { mean, shape } => {
                let shape = shape.max(1.0 + 1e-9);
                rng.pareto(shape, mean as f64 * (shape - 1.0) / shape)
            }
        };
        (x.round().min(u64::MAX as f64) as u64).max(1)
    }
}

/// How successive requests are spaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RequestTiming {
    /// Exponential think time with this mean from the end of one transfer (its last byte and
    /// FIN acknowledged) to the next request.
    ThinkTime(SimDuration),
    /// A schedule with exponential times of this mean between successive due times (see the
    /// module documentation).
    InterRequest(SimDuration),
}

#[derive(Clone, Copy, Debug)]
enum Phase {
    /// Thinking until the given time.
    Think(SimTime),
    /// Transferring a file of `size` bytes requested at `start`.
    Transfer {
        start: SimTime,
        size: u64,
        written: u64,
        closed: bool,
        /// The last poll (inter-request spacing: polls every RECEIPT_POLL while a request is
        /// due and this file is not yet received).
        polled: SimTime,
    },
}

/// Repeated transfers spaced by think times or inter-request times.
#[derive(Clone, Debug)]
pub struct Ftp {
    pub file_size: FileSize,
    timing: RequestTiming,
    phase: Phase,
    /// Completion time of each finished transfer, in order (think-time spacing, and
    /// inter-request spacing without a receipt record; see [`Ftp::file_times`]).
    pub transfer_times: Vec<SimDuration>,
    /// Size of each finished transfer, bytes.
    pub transfer_sizes: Vec<u64>,
    /// Start time of each request made, in order.
    pub request_starts: Vec<SimTime>,
    /// Size of each request made, bytes, in order.
    pub request_sizes: Vec<u64>,
    /// Due time of each request made (inter-request spacing; its start where it was not held).
    pub request_due: Vec<SimTime>,
    /// Requests that started after their due time because the previous file was not yet done
    /// then (inter-request spacing only).
    pub requests_delayed: u64,
    /// When the next request is due (inter-request spacing only).
    next_due: Option<SimTime>,
    /// The mobile host's receipts of the files (inter-request spacing), if attached.
    receipts: Option<FileReceipts>,
}

impl Ftp {
    /// Think times with mean `think_time_mean` between transfers; the first transfer starts at
    /// the agent's start.
    pub fn new(file_size: FileSize, think_time_mean: SimDuration) -> Self {
        Self::with_timing(file_size, RequestTiming::ThinkTime(think_time_mean))
    }

    /// A schedule of requests with exponential times of mean `inter_request_mean` between them
    /// (see the module documentation for requests held behind the previous file); the first
    /// request is due at the agent's start.
    pub fn with_inter_request(file_size: FileSize, inter_request_mean: SimDuration) -> Self {
        Self::with_timing(file_size, RequestTiming::InterRequest(inter_request_mean))
    }

    /// A file counts as done when the mobile host has received it, as `receipts` records
    /// (inter-request spacing only; think times keep running from the server's last
    /// acknowledgement).
    pub fn with_receipts(mut self, receipts: FileReceipts) -> Self {
        if let RequestTiming::InterRequest(_) = self.timing {
            self.receipts = Some(receipts);
        }
        self
    }

    /// Mean think time, if requests are spaced by think times.
    pub fn think_time_mean(&self) -> Option<SimDuration> {
        match self.timing {
            RequestTiming::ThinkTime(mean) => Some(mean),
            RequestTiming::InterRequest(_) => None,
        }
    }

    /// Mean inter-request time, if requests are spaced by inter-request times.
    pub fn inter_request_mean(&self) -> Option<SimDuration> {
        match self.timing {
            RequestTiming::InterRequest(mean) => Some(mean),
            RequestTiming::ThinkTime(_) => None,
        }
    }

    fn with_timing(file_size: FileSize, timing: RequestTiming) -> Self {
        Ftp {
            file_size,
            timing,
            phase: Phase::Think(SimTime::ZERO),
            transfer_times: Vec::new(),
            transfer_sizes: Vec::new(),
            request_starts: Vec::new(),
            request_sizes: Vec::new(),
            request_due: Vec::new(),
            requests_delayed: 0,
            next_due: None,
            receipts: None,
        }
    }

    /// Mean time between the starts of successive requests, seconds (needs two requests).
    pub fn mean_inter_request_s(&self) -> Option<f64> {
        let (first, last) = (self.request_starts.first()?, self.request_starts.last()?);
        let gaps = self.request_starts.len() - 1;
        // The gaps telescope: their sum is last − first.
        (gaps > 0).then(|| last.saturating_since(*first).as_secs_f64() / gaps as f64)
    }

    /// The transfer time of every file done, in order: from its request to its receipt by the
    /// mobile host when a receipt record is attached (every file received so far, noticed or
    /// not), else to the server's last acknowledgement.
    pub fn file_times(&self) -> Vec<SimDuration> {
        match &self.receipts {
            Some(r) => r
                .all()
                .iter()
                .zip(&self.request_starts)
                .map(|(got, start)| got.at.saturating_since(*start))
                .collect(),
            None => self.transfer_times.clone(),
        }
    }

    /// Mean transfer time of the files done ([`Ftp::file_times`]), seconds.
    pub fn mean_transfer_time_s(&self) -> Option<f64> {
        let times = self.file_times();
        let n = times.len();
        (n > 0).then(|| times.iter().map(|d| d.as_secs_f64()).sum::<f64>() / n as f64)
    }

    /// Whether file `k` (from 0) is done at `now`: received by the mobile host, or without a
    /// receipt record, its data and FIN acknowledged (`all_acked`).
    fn done(&self, k: usize, all_acked: bool) -> bool {
        match &self.receipts {
            Some(r) => r.len() > k,
            None => all_acked,
        }
    }
}

impl TcpApplication for Ftp {
    fn poll(
        &mut self,
        now: SimTime,
        conn: Option<&mut dyn Connection>,
        rng: &mut RngStream,
    ) -> AppRequest {
        match self.phase {
            Phase::Think(until) => {
                if now >= until {
                    // Draw order (size, then inter-request time) is part of the reproducibility
                    // contract: think-time runs draw only the size here.
                    let size = self.file_size.sample(rng);
                    if let RequestTiming::InterRequest(mean) = self.timing {
                        let due = self.next_due.unwrap_or(now);
                        self.request_due.push(due);
                        self.next_due = Some(
                            due + SimDuration::from_secs_f64(rng.exponential(mean.as_secs_f64())),
                        );
                    }
                    self.request_starts.push(now);
                    self.request_sizes.push(size);
                    self.phase = Phase::Transfer {
                        start: now,
                        size,
                        written: 0,
                        closed: false,
                        polled: now,
                    };
                    return AppRequest::Connect;
                }
                AppRequest::None
            }
            Phase::Transfer {
                start,
                size,
                mut written,
                mut closed,
                ..
            } => {
                let Some(conn) = conn else {
                    return AppRequest::None;
                };
                if written < size {
                    written += conn.write((size - written).min(conn.send_space()));
                }
                if written == size && !closed {
                    conn.close();
                    closed = true;
                }
                self.phase = Phase::Transfer {
                    start,
                    size,
                    written,
                    closed,
                    polled: now,
                };
                let k = self.request_starts.len() - 1;
                if closed && self.done(k, conn.all_acked()) {
                    if self.receipts.is_none() {
                        self.transfer_times.push(now.saturating_since(start));
                    }
                    self.transfer_sizes.push(size);
                    let next = match self.timing {
                        RequestTiming::ThinkTime(mean) => {
                            now + SimDuration::from_secs_f64(rng.exponential(mean.as_secs_f64()))
                        }
                        RequestTiming::InterRequest(_) => {
                            let due = self.next_due.unwrap_or(now);
                            // Not done when the next request fell due: it starts now.
                            if due < now {
                                self.requests_delayed += 1;
                            }
                            due.max(now)
                        }
                    };
                    self.phase = Phase::Think(next);
                }
                AppRequest::None
            }
        }
    }

    fn next_timer(&self) -> Option<SimTime> {
        match self.phase {
            Phase::Think(t) => Some(t),
            // Waiting for the mobile host's receipt, which only the record shows: look again
            // once the next request is due, then every RECEIPT_POLL.
            Phase::Transfer {
                closed: true,
                polled,
                ..
            } if self.receipts.is_some() => self.next_due.map(|due| due.max(polled + RECEIPT_POLL)),
            Phase::Transfer { .. } => None,
        }
    }

    fn report(&self, _now: SimTime, out: &mut Vec<ReportEntry>) {
        let times = self.file_times();
        out.push(("ftp_transfers", times.len() as f64));
        if let Some(m) = self.mean_transfer_time_s() {
            out.push(("ftp_mean_transfer_time_s", m));
        }
        let n = times.len();
        if n > 0 {
            out.push((
                "ftp_mean_file_bytes",
                self.request_sizes[..n].iter().sum::<u64>() as f64 / n as f64,
            ));
        }
        // Only in the inter-request mode, so that think-time summaries keep their keys.
        if let RequestTiming::InterRequest(_) = self.timing {
            out.push(("ftp_requests", self.request_starts.len() as f64));
            out.push(("ftp_requests_delayed", self.requests_delayed as f64));
            if let Some(m) = self.mean_inter_request_s() {
                out.push(("ftp_mean_inter_request_s", m));
            }
            // The workload, to compare two runs: bytes requested, the sums of the due times
            // (equal for equal schedules) and of the request times, and of their waits past due.
            out.push((
                "ftp_requested_bytes",
                self.request_sizes.iter().sum::<u64>() as f64,
            ));
            out.push((
                "ftp_due_times_sum_s",
                self.request_due
                    .iter()
                    .map(|t| t.saturating_since(SimTime::ZERO).as_secs_f64())
                    .sum(),
            ));
            out.push((
                "ftp_request_times_sum_s",
                self.request_starts
                    .iter()
                    .map(|t| t.saturating_since(SimTime::ZERO).as_secs_f64())
                    .sum(),
            ));
            out.push((
                "ftp_hold_s",
                self.request_starts
                    .iter()
                    .zip(&self.request_due)
                    .map(|(s, d)| s.saturating_since(*d).as_secs_f64())
                    .sum(),
            ));
        }
    }
}
