//! Repeated file transfers, each on a new connection (so each starts in slow start again),
//! separated by exponential think times — the FTP model of the seed `001_…` ("Application:
//! FTP, File Inter-Request time: exponential").

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
    },
}

/// Repeated transfers with think times.
#[derive(Clone, Debug)]
pub struct Ftp {
    pub file_size: FileSize,
    /// Mean of the exponential think time between the end of one transfer and the next request.
    pub think_time_mean: SimDuration,
    phase: Phase,
    /// Completion time of each finished transfer, in order.
    pub transfer_times: Vec<SimDuration>,
    /// Size of each finished transfer, bytes.
    pub transfer_sizes: Vec<u64>,
}

impl Ftp {
    /// The first transfer starts at the agent's start.
    pub fn new(file_size: FileSize, think_time_mean: SimDuration) -> Self {
        Ftp {
            file_size,
            think_time_mean,
            phase: Phase::Think(SimTime::ZERO),
            transfer_times: Vec::new(),
            transfer_sizes: Vec::new(),
        }
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
                    let size = self.file_size.sample(rng);
                    self.phase = Phase::Transfer {
                        start: now,
                        size,
                        written: 0,
                        closed: false,
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
                    let think = SimDuration::from_secs_f64(
                        rng.exponential(self.think_time_mean.as_secs_f64()),
                    );
                    self.phase = Phase::Think(now + think);
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
    }
}
