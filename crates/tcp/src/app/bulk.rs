//! Bulk transfer: keeps the send buffer full; with a size, closes once everything is written.

use celltcp_engine::{RngStream, SimTime};
use celltcp_net::agent::ReportEntry;

use super::{AppRequest, Connection, TcpApplication};

/// A bulk sender (FTP-like single transfer, or unbounded when `bytes` is `None`).
#[derive(Clone, Debug)]
pub struct Bulk {
    /// Bytes to send; `None` for an unbounded transfer.
    pub bytes: Option<u64>,
    written: u64,
    connected: bool,
    closed: bool,
    started_at: Option<SimTime>,
    completed_at: Option<SimTime>,
}

impl Bulk {
    pub fn new(bytes: Option<u64>) -> Self {
        Bulk {
            bytes,
            written: 0,
            connected: false,
            closed: false,
            started_at: None,
            completed_at: None,
        }
    }

    /// Time from the connection request until every byte was acknowledged.
    pub fn completion_time(&self) -> Option<celltcp_engine::SimDuration> {
        Some(self.completed_at?.saturating_since(self.started_at?))
    }
}

impl TcpApplication for Bulk {
    fn poll(
        &mut self,
        now: SimTime,
        conn: Option<&mut dyn Connection>,
        _rng: &mut RngStream,
    ) -> AppRequest {
        let Some(conn) = conn.filter(|_| self.connected) else {
            if self.connected {
                return AppRequest::None;
            }
            self.connected = true;
            self.started_at = Some(now);
            return AppRequest::Connect;
        };
        let want = self.bytes.map_or(u64::MAX, |b| b - self.written);
        if want > 0 {
            self.written += conn.write(want.min(conn.send_space()));
        }
        if self.bytes == Some(self.written) && !self.closed {
            conn.close();
            self.closed = true;
        }
        if self.closed && self.completed_at.is_none() && conn.all_acked() {
            self.completed_at = Some(now);
        }
        AppRequest::None
    }

    fn next_timer(&self) -> Option<SimTime> {
        None
    }

    fn report(&self, _now: SimTime, out: &mut Vec<ReportEntry>) {
        out.push(("app_bytes_written", self.written as f64));
        if let Some(t) = self.completion_time() {
            out.push(("transfer_time_s", t.as_secs_f64()));
        }
    }
}
