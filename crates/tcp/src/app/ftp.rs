//! Repeated file transfers, each on a new connection (so each starts in slow start again) — the
//! FTP model of the seed `001_…` ("Application: FTP, File Inter-Request time: exponential").
//!
//! Two ways to space the requests: an exponential think time from the end of
//! one transfer to the next request, or an exponential time between the starts of successive
//! requests (the seed's "inter-request time"). In the second, transfers never overlap: one flow
//! carries one file at a time, so a request whose start falls while the previous transfer is
//! still running waits for that transfer to end and starts then (counted as delayed).

use celltcp_engine::{RngStream, SimDuration, SimTime};
use celltcp_net::agent::ReportEntry;

use super::{AppRequest, Connection, TcpApplication};

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
    /// Exponential time with this mean between the starts of successive requests: request k + 1
    /// is due at start_k + X, X drawn when request k starts; if transfer k is still running
    /// then, request k + 1 starts as soon as it ends.
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
        /// When the next request is due (inter-request spacing only).
        next_due: Option<SimTime>,
    },
}

/// Repeated transfers spaced by think times or inter-request times.
#[derive(Clone, Debug)]
pub struct Ftp {
    pub file_size: FileSize,
    timing: RequestTiming,
    phase: Phase,
    /// Completion time of each finished transfer, in order.
    pub transfer_times: Vec<SimDuration>,
    /// Size of each finished transfer, bytes.
    pub transfer_sizes: Vec<u64>,
    /// Start time of each request made, in order.
    pub request_starts: Vec<SimTime>,
    /// Requests that started after their due time because the previous transfer was still
    /// running then (inter-request spacing only).
    pub requests_delayed: u64,
}

impl Ftp {
    /// Think times with mean `think_time_mean` between transfers; the first transfer starts at
    /// the agent's start.
    pub fn new(file_size: FileSize, think_time_mean: SimDuration) -> Self {
        Self::with_timing(file_size, RequestTiming::ThinkTime(think_time_mean))
    }

    /// Exponential times with mean `inter_request_mean` between the starts of successive
    /// requests (see the module documentation for late starts); the first transfer starts at
    /// the agent's start.
    pub fn with_inter_request(file_size: FileSize, inter_request_mean: SimDuration) -> Self {
        Self::with_timing(file_size, RequestTiming::InterRequest(inter_request_mean))
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
            requests_delayed: 0,
        }
    }

    /// Mean time between the starts of successive requests, seconds (needs two requests).
    pub fn mean_inter_request_s(&self) -> Option<f64> {
        let (first, last) = (self.request_starts.first()?, self.request_starts.last()?);
        let gaps = self.request_starts.len() - 1;
        // The gaps telescope: their sum is last − first.
        (gaps > 0).then(|| last.saturating_since(*first).as_secs_f64() / gaps as f64)
    }

    /// Mean completion time of the finished transfers, seconds.
    pub fn mean_transfer_time_s(&self) -> Option<f64> {
        let n = self.transfer_times.len();
        (n > 0).then(|| {
            self.transfer_times
                .iter()
                .map(|d| d.as_secs_f64())
                .sum::<f64>()
                / n as f64
        })
    }
}

impl TcpApplication for Ftp {
    fn poll(
        &mut self,
        now: SimTime,
        conn: Option<&mut dyn Connection>,
        rng: &mut RngStream,
    ) -> AppRequest {
        match &mut self.phase {
            Phase::Think(until) => {
                if now >= *until {
                    // Draw order (size, then inter-request time) is part of the reproducibility
                    // contract: think-time runs draw only the size here.
                    let size = self.file_size.sample(rng);
                    let next_due = match self.timing {
                        RequestTiming::ThinkTime(_) => None,
                        RequestTiming::InterRequest(mean) => Some(
                            now + SimDuration::from_secs_f64(rng.exponential(mean.as_secs_f64())),
                        ),
                    };
                    self.request_starts.push(now);
                    self.phase = Phase::Transfer {
                        start: now,
                        size,
                        written: 0,
                        closed: false,
                        next_due,
                    };
                    return AppRequest::Connect;
                }
                AppRequest::None
            }
            Phase::Transfer {
                start,
                size,
                written,
                closed,
                next_due,
            } => {
                let Some(conn) = conn else {
                    return AppRequest::None;
                };
                if *written < *size {
                    *written += conn.write((*size - *written).min(conn.send_space()));
                }
                if *written == *size && !*closed {
                    conn.close();
                    *closed = true;
                }
                if *closed && conn.all_acked() {
                    self.transfer_times.push(now.saturating_since(*start));
                    self.transfer_sizes.push(*size);
                    let next = match self.timing {
                        RequestTiming::ThinkTime(mean) => {
                            now + SimDuration::from_secs_f64(rng.exponential(mean.as_secs_f64()))
                        }
                        RequestTiming::InterRequest(_) => {
                            let due = next_due.unwrap_or(now);
                            // Still transferring when the next request fell due: it starts now.
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
            Phase::Transfer { .. } => None,
        }
    }

    fn report(&self, _now: SimTime, out: &mut Vec<ReportEntry>) {
        out.push(("ftp_transfers", self.transfer_times.len() as f64));
        if let Some(m) = self.mean_transfer_time_s() {
            out.push(("ftp_mean_transfer_time_s", m));
        }
        let n = self.transfer_sizes.len();
        if n > 0 {
            out.push((
                "ftp_mean_file_bytes",
                self.transfer_sizes.iter().sum::<u64>() as f64 / n as f64,
            ));
        }
        // Only in the inter-request mode, so that think-time summaries keep their keys.
        if let RequestTiming::InterRequest(_) = self.timing {
            out.push(("ftp_requests", self.request_starts.len() as f64));
            out.push(("ftp_requests_delayed", self.requests_delayed as f64));
            if let Some(m) = self.mean_inter_request_s() {
                out.push(("ftp_mean_inter_request_s", m));
            }
        }
    }
}
